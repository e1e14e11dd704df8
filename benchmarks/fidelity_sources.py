"""Fidelity to the paper, section V: HAWKS beside the SIPU and UCI batteries (issue 20).

The paper's Fig. 2 (instance space by source and by best algorithm, with the PCA
loadings in its caption), Table I (which algorithm wins per source), Fig. 3 (ARI
boxplots per source) and Fig. 4 (Friedman test and Nemenyi critical differences over
ARI ranks, per source), for three sources:

- HAWKS: the 448 Index datasets of `benchmarks/fidelity_index.py` (run it first), once as
  ours (best feasible individual, our clustering settings) and once under the
  ``hawks-tevc`` preset (final population's best fitness, K-Means++ 10 starts, GMM 3);
- SIPU and UCI: the batteries of ``clustering-data-v1`` (``--data``), read with
  `hawks_deap.io.batteries`, clustered by the same six algorithms with each setting.

Datasets too large for the linkage algorithms' pairwise distances are left out, and
named (birch1, birch2 and worms_2 of SIPU: 100,000 points, 40 GB of distances).

    python benchmarks/fidelity_sources.py --index fidelity-index \
        --data ../shared/data/clustering-data-v1 --out fidelity-sources --workers 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fidelity_index import (  # noqa: E402
    ALGORITHMS,
    PAPER_TABLE_I,
    combination,
    read_rows,
)

import hawks_deap as hd  # noqa: E402
from hawks_deap.analysis import stats  # noqa: E402
from hawks_deap.analysis.features import (  # noqa: E402
    FEATURE_NAMES,
    InstanceSpace,
    Table,
    best_algorithms,
    features_table,
    performance_table,
)
from hawks_deap.io.batteries import read_battery  # noqa: E402

#: Largest battery dataset clustered (the linkage algorithms hold N(N-1)/2 distances).
MAX_POINTS = 20_000
SETTINGS = {"ours": None, "hawks-tevc": "hawks-tevc"}


def hawks_tables(index_out: Path) -> dict[str, tuple[Table, Table]]:
    """(features, ARI) of the HAWKS datasets, for our settings and the preset's."""
    evolutions = read_rows(index_out / "evolutions.jsonl")
    scores = {row["file"]: row for row in read_rows(index_out / "scores.jsonl")}
    out = {}
    for label, cand, preset in (("ours", "best-feasible", False),
                                ("hawks-tevc", "final-fittest", True)):
        feats, aris = combination(evolutions, scores, of="any", cand=cand, preset=preset)
        names = tuple(f"hawks/{i}" for i in range(len(aris)))
        out[label] = (Table(names, FEATURE_NAMES, [[f[k] for k in FEATURE_NAMES]
                                                   for f in feats]),
                      Table(names, ALGORITHMS, [[a[k] for k in ALGORITHMS] for a in aris]))
    return out


def battery_tables(path: Path, workers: int, cache: Path) -> dict[str, tuple[Table, Table]]:
    """(features, ARI) of a battery's datasets for both settings (cached in ``cache``)."""
    if cache.exists():
        raw = json.loads(cache.read_text())
        return {k: (Table(**v["features"]), Table(**v["ari"])) for k, v in raw.items()}
    datasets = read_battery(path)
    kept = [d for d in datasets if d.n_samples <= MAX_POINTS]
    left = [d.metadata["name"] for d in datasets if d.n_samples > MAX_POINTS]
    if left:
        print(f"{path.name}: left out (more than {MAX_POINTS:,} points): {', '.join(left)}")
    names = [d.metadata["name"] for d in kept]
    feats = features_table(kept, names=names)
    out, raw = {}, {}
    for label, preset in SETTINGS.items():
        t0 = time.perf_counter()
        ari = performance_table(kept, list(ALGORITHMS), seed=0, names=names, n_jobs=workers,
                                preset=preset)
        print(f"{path.name} ({label}): ARI of {len(ALGORITHMS)} algorithms on {len(kept)} "
              f"datasets in {time.perf_counter() - t0:.0f} s")
        out[label] = (feats, ari)
        raw[label] = {t: {"index": list(tab.index), "columns": list(tab.columns),
                          "values": tab.values.tolist()}
                      for t, tab in (("features", feats), ("ari", ari))}
    hd.io.dataset.write_text_atomic(cache, json.dumps(raw))
    return out


def wins_row(ari: Table) -> str:
    counts, n = Counter(best_algorithms(ari)), len(ari)
    return " | ".join(f"{counts.get(a, 0) / n:.3f}" for a in (*ALGORITHMS, "tied"))


def report(sources: dict[str, dict[str, tuple[Table, Table]]], out: Path) -> None:
    from hawks_deap.analysis import plotting

    print("\n| source | settings | datasets | " + " | ".join(ALGORITHMS) + " | tied |")
    print("|---|---|---|" + "---|" * (len(ALGORITHMS) + 1))
    for source, by_setting in sources.items():
        for label, (_, ari) in by_setting.items():
            print(f"| {source} | {label} | {len(ari)} | {wins_row(ari)} |")
    paper = " | ".join(f"{PAPER_TABLE_I[a]:.3f}" for a in ALGORITHMS)
    print(f"| HAWKS | paper Table I | 448 | {paper} | |")
    print("| SIPU | paper Table I | | (the text keeps '– – 0.106 0.202 – –') | |")
    print("| UCI | paper Table I | | (the text keeps '0.100 0.150') | |")
    print("\nMedian (mean) ARI per source and algorithm (Fig. 3):")
    print("| source | settings | " + " | ".join(ALGORITHMS) + " |")
    print("|---|---|" + "---|" * len(ALGORITHMS))
    for source, by_setting in sources.items():
        for label, (_, ari) in by_setting.items():
            cells = " | ".join(f"{np.median(ari.values[:, j]):.3f} ({ari.values[:, j].mean():.3f})"
                               for j in range(len(ALGORITHMS)))
            print(f"| {source} | {label} | {cells} |")
    for label in SETTINGS:
        print(f"\nFriedman / Nemenyi over ARI ranks ({label} settings):")
        for source, by_setting in sources.items():
            result = stats.friedman_nemenyi(by_setting[label][1])
            print(f"\n{source}:\n{result.to_text()}")
            fig = plotting.plot_critical_difference(result, title=f"{source} ({label})")
            name = source.lower().replace(" ", "").replace("(", "_").replace(")", "")
            plotting.save_figure(fig, out / f"cd_{name.replace(',', '')}_{label}.png")
        fig = plotting.plot_performance({s: b[label][1] for s, b in sources.items()},
                                        title=f"ARI per source ({label} settings)")
        plotting.save_figure(fig, out / f"ari_boxplots_{label}.png")
    # the instance space of all sources (features do not depend on clustering settings)
    label = "hawks-tevc"
    whole = {s: b for s, b in sources.items() if s != "SIPU (S, A)"}  # (no row twice)
    feats = np.vstack([b[label][0].values for b in whole.values()])
    groups = [s for s, b in whole.items() for _ in range(len(b[label][0]))]
    best = [a for b in whole.values() for a in best_algorithms(b[label][1])]
    space = InstanceSpace().fit(feats, FEATURE_NAMES)
    coords = space.transform(feats)
    print("\nInstance space (HAWKS with the preset, SIPU, UCI): explained variance "
          + ", ".join(f"{v:.3f}" for v in space.explained_variance_ratio_))
    print(stats.loadings_beside_paper(space))
    fig = plotting.plot_instance_space(coords, groups, space=space, legend_title="source")
    plotting.save_figure(fig, out / "instance_space_source.png")
    fig = plotting.plot_instance_space(coords, best, space=space, legend_title="best ARI")
    plotting.save_figure(fig, out / "instance_space_best.png")
    print("\nMean features per source (HAWKS with the preset):")
    print("| source | " + " | ".join(FEATURE_NAMES) + " |")
    print("|---|" + "---|" * len(FEATURE_NAMES))
    for source, b in sources.items():
        print(f"| {source} | " + " | ".join(f"{v:.3f}" for v in
                                            np.nanmean(b[label][0].values, axis=0)) + " |")
    print(f"\nfigures in {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", default="fidelity-index",
                        help="output of benchmarks/fidelity_index.py")
    parser.add_argument("--data", default=str(HERE.parents[1] / "shared" / "data"
                                              / "clustering-data-v1"))
    parser.add_argument("--out", default="fidelity-sources")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sources = {}
    if (Path(args.index) / "evolutions.jsonl").exists():
        sources["HAWKS"] = hawks_tables(Path(args.index))
    else:  # the batteries' rows alone (run benchmarks/fidelity_index.py for HAWKS')
        print(f"no {args.index}/evolutions.jsonl: the HAWKS rows are left out")
    for battery in ("sipu", "uci"):
        sources[battery.upper()] = battery_tables(Path(args.data) / battery, args.workers,
                                                  out / f"{battery}.json")
    sources["SIPU (S, A)"] = {label: subset(tables, SIPU_PAPER_SETS)
                              for label, tables in sources["SIPU"].items()}
    report(sources, out)


#: The SIPU sets the paper names (line 77: the S-sets, A-sets and G2-sets; the battery
#: holds no G2 set): its Table I, Fig. 3 and Fig. S-6 SIPU rows are of these.
SIPU_PAPER_SETS = ("a1", "a2", "a3", "s1", "s2", "s3", "s4")


def subset(tables: tuple[Table, Table], names: tuple[str, ...]) -> tuple[Table, Table]:
    """The rows of (features, ARI) whose dataset is one of ``names``."""
    def keep(table: Table) -> Table:
        rows = [i for i, n in enumerate(table.index) if n.rpartition("/")[2] in names]
        return Table(tuple(table.index[i] for i in rows), table.columns, table.values[rows])

    return keep(tables[0]), keep(tables[1])


if __name__ == "__main__":
    main()
