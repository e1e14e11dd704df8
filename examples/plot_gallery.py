"""A gallery of hawks-deap figures.
==================================

A run, its convergence, a regenerated sample, an instance space of a small collection
(by source and by best algorithm), ARI boxplots and, when Versus mode is available, a
Versus run.

    python examples/plot_gallery.py [--quick] [--out DIR]

Writes PNG files into DIR (default: the current directory): ``dataset.png``,
``convergence.png``, ``regenerated.png``, ``instance_space.png``,
``instance_space_best.png``, ``performance.png``, ``versus.png`` and ``gallery.png``
(all panels together). The full run (without ``--quick``) also writes
``docs/gallery.png``, the picture shown in the README.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import hawks_deap as hd  # noqa: E402
from hawks_deap.analysis import features, plotting


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    parser.add_argument("--out", default=".", help="folder for the figures (default .)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    if args.quick:
        n, k, gens, pop, seeds = 250, 4, 4, 6, (0, 1)
        collection_n, collection_gens = 150, 3
    else:
        n, k, gens, pop, seeds = 1000, 5, 100, 10, (0, 1, 2, 3, 4)
        collection_n, collection_gens = 500, 40

    # 1. one Index-mode run
    problem = hd.IndexProblem(n, k, 2, target=0.5,
                              constraints=[hd.Overlap(max=0.1), hd.Eccentricity(min=2.0)])
    result = hd.evolve(problem, population_size=pop, generations=gens, seed=0)
    dataset = result.best_dataset()
    rec = result.best.record
    print(f"run: silhouette {rec['index']:.3f} (target 0.5), overlap {rec['overlap']:.3f}, "
          f"eccentricity {rec['eccentricity']:.2f}, penalty {rec['penalty']:.3g}")
    big = dataset.regenerate(5 * n, seed=1)
    print("features of the run:", {key: round(float(v), 3) for key, v in
                                   features.problem_features(dataset.X, dataset.y).items()})

    # 2. a small collection: three silhouette targets, a few seeds each
    collection, sources = [], []
    for target in (0.2, 0.5, 0.8):
        for seed in seeds:
            p = hd.IndexProblem(collection_n, 3, 2, target=target,
                                constraints=[hd.Overlap(max=0.3)])
            collection.append(hd.evolve(p, population_size=pop, generations=collection_gens,
                                        seed=seed).best_dataset())
            sources.append(f"target {target}")
    table = features.features_table(collection)
    space = features.InstanceSpace().fit(table)
    coords = space.transform(table)
    perf = features.performance_table(collection, seed=0)
    best = features.best_algorithms(perf)
    print(f"collection: {len(collection)} datasets; PCA keeps "
          f"{100 * space.explained_variance_ratio_.sum():.0f}% of the feature variance; "
          f"best algorithms: {sorted(set(best))}")

    # 3. Versus mode, when it is available
    versus = None
    try:
        from hawks_deap.problems.versus import VersusProblem
    except ImportError:
        print("Versus mode not available: versus.png skipped")
    else:
        vp = VersusProblem("gmm", "single-linkage", n_samples=n // 2, n_clusters=3, n_dims=2,
                           constraints=[hd.Overlap(max=0.1)])
        vres = hd.evolve(vp, population_size=4 if args.quick else 10,
                         generations=2 if args.quick else 30, p_f=0.75, seed=0)
        winner_labels, loser_labels = vp.partitions(vres.best)
        vds = vres.best_dataset()
        versus = (vds, winner_labels, loser_labels, vres.best.record)
        print(f"versus: gmm ARI {vres.best.record['winner_score']:.3f}, single-linkage ARI "
              f"{vres.best.record['loser_score']:.3f}")

    # 4. the figures, one by one
    written = []
    figures = {
        "dataset.png": plotting.plot_dataset(dataset),
        "convergence.png": plotting.plot_convergence(result.logbook, target=0.5),
        "regenerated.png": plotting.plot_dataset(big, title=f"regenerated, N={5 * n}"),
        "instance_space.png": plotting.plot_instance_space(coords, sources, space=space,
                                                           legend_title="source"),
        "instance_space_best.png": plotting.plot_instance_space(
            coords, best, space=space, legend_title="best ARI", title="best algorithm"),
        "performance.png": plotting.plot_performance(perf),
    }
    if versus is not None:
        vds, wl, ll, vrec = versus
        figures["versus.png"] = plotting.plot_versus(
            vds.X, vds.y, wl, ll, winner="gmm", loser="single-linkage",
            winner_score=vrec["winner_score"], loser_score=vrec["loser_score"])
    for name, fig in figures.items():
        written.append(plotting.save_figure(fig, out / name, dpi=90 if args.quick else 120))
        plt.close(fig)

    # 5. everything on one page (the README picture)
    fig, axes = plt.subplots(2, 3, figsize=(17, 10.5))
    plotting.plot_dataset(dataset, ax=axes[0, 0], title="evolved dataset (target 0.5)")
    plotting.plot_convergence(result.logbook, target=0.5, ax=axes[0, 1])
    plotting.plot_dataset(big, ax=axes[0, 2], title=f"regenerated from the genes, N={5 * n}")
    plotting.plot_instance_space(coords, sources, space=space, ax=axes[1, 0],
                                 legend_title="source", title="instance space (by source)")
    plotting.plot_instance_space(coords, best, space=space, ax=axes[1, 1],
                                 legend_title="best ARI", title="instance space (by best)")
    plotting.plot_performance(perf, ax=axes[1, 2], title="ARI per algorithm")
    fig.tight_layout()
    written.append(plotting.save_figure(fig, out / "gallery.png", dpi=80 if args.quick else 100))
    if not args.quick:
        docs = Path(__file__).resolve().parent.parent / "docs"  # the README's figure
        written.append(plotting.save_figure(fig, docs / "gallery.png", dpi=80))
    plt.close(fig)
    for path in written:
        print(f"wrote {path}")
    print(f"done in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
