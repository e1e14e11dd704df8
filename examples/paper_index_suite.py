"""The HAWKS paper's Index-mode benchmark set, end to end, as a resumable suite.
=============================================================================

The grid of the TEVC experiments (``index_config.json`` of the paper's artefacts):
N in {500, 2500}, D in {2, 50}, K in {5, 30}, target silhouette in {0.45, 0.9},
overlap <= {0, 0.1}, eigenvalue ratio >= {1, 50}; 64 configurations x 7 runs, P=10,
G=100, PSO-random mean mutation, minimum cluster size 10. Then:

1. the suite itself (``hawks_deap.campaign.suite``; interrupt and rerun to resume),
2. the problem-features table of every dataset (from the summary),
3. a contrast collection from ``sklearn.datasets.make_blobs`` with the same N, K, D,
4. the ARI of the paper's six clustering algorithms on every dataset, and the table of
   which algorithm wins most often per source (the paper's Table I),
5. the instance space (features standardised, PCA) coloured by source and by best
   algorithm (the paper's Fig. 2), when matplotlib is installed.

    python examples/paper_index_suite.py [--out DIR] [--workers 2] [--quick]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import numpy as np

import hawks_deap as hd
from hawks_deap.analysis.features import (
    FEATURE_NAMES,
    InstanceSpace,
    best_algorithms,
    performance_table,
)
from hawks_deap.campaign import suite as hs

GRID = """
[suite]
runs = {runs}
seed = 0
mode = "index"

[dataset]
n_samples = {n_samples}
n_dims = {n_dims}
n_clusters = {n_clusters}

[objective]
target = [0.45, 0.9]

[constraints]
max_overlap = [0.0, 0.1]
min_eccentricity = [1.0, 50.0]

[ga]
generations = {generations}
population_size = 10
mean_mutation = "pso"
"""

FULL = dict(runs=7, n_samples="[500, 2500]", n_dims="[2, 50]", n_clusters="[5, 30]",
            generations=100)
QUICK = dict(runs=1, n_samples="[60, 90]", n_dims="2", n_clusters="3", generations=2)


def blobs(summary: list[dict[str, str]], seed: int) -> list[hd.Dataset]:
    """make_blobs datasets with the N, K, D of each HAWKS configuration (one per config)."""
    from sklearn.datasets import make_blobs

    rng = np.random.default_rng(seed)
    seen, out = set(), []
    for row in summary:
        key = (int(row["n_samples"]), int(row["n_clusters"]), int(row["n_dims"]))
        if key in seen:
            continue
        seen.add(key)
        for std in (0.5, 1.0, 2.0):
            X, y = make_blobs(n_samples=key[0], centers=key[1], n_features=key[2],
                              cluster_std=std, random_state=int(rng.integers(2**31)))
            out.append(hd.Dataset(X, y, metadata={"name": f"blobs-{key}-{std}"}))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--out", default="paper-index-suite", help="output directory")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--quick", action="store_true", help="tiny grid for the test suite")
    args = parser.parse_args()
    out = Path(args.out)
    grid_path = out.with_suffix(".toml")
    grid_path.parent.mkdir(parents=True, exist_ok=True)
    grid_path.write_text(GRID.format(**(QUICK if args.quick else FULL)))

    suite = hs.load_suite(grid_path)
    print(f"{len(suite.configurations)} configurations x {suite.runs} runs, "
          f"{args.workers} workers")
    t0 = time.perf_counter()
    hs.run_suite(suite, out, workers=args.workers, progress=not args.quick)
    wall = time.perf_counter() - t0
    summary = hs.summary_rows(out)
    print(f"suite: {len(summary)} runs in {wall:.1f} s")

    hawks = [hd.Dataset.load(out / row["path"]) for row in summary]
    feats = np.array([[float(row[f"feature_{f}"]) for f in FEATURE_NAMES] for row in summary])
    contrast = blobs(summary, seed=0)
    contrast_feats = hd.analysis.features.features_table(contrast).values
    print("\nproblem features (mean over datasets):")
    print(f"{'source':8s} " + " ".join(f"{f:>15s}" for f in FEATURE_NAMES))
    for name, table in (("HAWKS", feats), ("blobs", contrast_feats)):
        print(f"{name:8s} " + " ".join(f"{v:15.4f}" for v in np.nanmean(table, axis=0)))

    datasets = hawks + contrast
    sources = ["HAWKS"] * len(hawks) + ["blobs"] * len(contrast)
    t1 = time.perf_counter()
    perf = performance_table(datasets, seed=0, n_jobs=args.workers)
    print(f"\nARI of {len(perf.columns)} algorithms on {len(datasets)} datasets in "
          f"{time.perf_counter() - t1:.1f} s")
    best = best_algorithms(perf)
    print("\nwhich algorithm wins most often (ARI; the paper's Table I):")
    labels = sorted(set(best))
    print(f"{'source':8s} " + " ".join(f"{a:>18s}" for a in labels))
    for source in ("HAWKS", "blobs"):
        counts = Counter(b for b, s in zip(best, sources, strict=True) if s == source)
        print(f"{source:8s} " + " ".join(f"{counts.get(a, 0):18d}" for a in labels))

    space = InstanceSpace().fit(np.vstack([feats, contrast_feats]), FEATURE_NAMES)
    coords = space.transform(np.vstack([feats, contrast_feats]))
    try:
        from hawks_deap.analysis import plotting
    except ImportError:
        return
    try:
        fig = plotting.plot_instance_space(coords, sources, space=space, title="by source")
        plotting.save_figure(fig, out / "instance_space_source.png")
        fig = plotting.plot_instance_space(coords, best, space=space, title="by best ARI")
        plotting.save_figure(fig, out / "instance_space_best.png")
        print(f"\nwrote {out / 'instance_space_source.png'} and "
              f"{out / 'instance_space_best.png'}")
    except ImportError as error:
        print(f"(no figures: {error})")


if __name__ == "__main__":
    main()
