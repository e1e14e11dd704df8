"""Fidelity to the paper, Fig. S-5: best ARI and the 7 features across the instance space.

The paper (supplement, Fig. S-5) draws the instance space of section V eight times,
coloured by the best ARI any algorithm reached and by each of the 7 problem features,
and claims (i) "for each problem feature there is a clear gradient across the space",
(ii) "there is also a gradient for the best ARI achieved", (iii) "lower values are
generally associated with either a lower silhouette width, higher standard deviation of
the silhouette width, and higher average cluster eccentricity" (issue 36, item 5).

Here the space is fitted on a HAWKS suite (``--suite``, e.g. the paper's Index grid of
``benchmarks/fill_paper_suite.toml``) and the clustering-benchmarks batteries
(``--batteries``: SIPU and UCI; the paper's space also held HK, QJ and UKC datasets,
which we do not have). The evidence, per value: the R^2 of an ordinary least-squares fit
of it on (PC1, PC2) with an intercept, and its F-test; for the best ARI, Spearman's rho
against silhouette, silhouette_std and eccentricity, over all datasets and over the HAWKS
datasets alone. Writes ``fidelity_s5.json`` (every number, per dataset too),
``fidelity_s5.md`` (the table printed) and ``fidelity_s5.png`` (2 x 4 panels) to ``--out``.

Datasets whose linkages cannot hold their pairwise distances (more than ``--max-points``
points, or ``memory_bytes`` x ``--n-jobs`` above half this machine's memory) are left out
and named, as in benchmarks/fidelity_sources.py (SIPU's birch1, birch2 and worms_2).

    python benchmarks/fidelity_s5.py --suite fill-suite --out s5 --n-jobs 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from hawks_deap.analysis.features import (
    FEATURE_NAMES,
    InstanceSpace,
    features_table,
    performance_table,
)
from hawks_deap.clustering import PAPER_ALGORITHMS, get_algorithm
from hawks_deap.io.collection import collection_items, load_items
from hawks_deap.io.dataset import Dataset, write_text_atomic

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data" / "clustering-data-v1"

#: Largest dataset clustered, as benchmarks/fidelity_sources.py (the linkages hold
#: N(N-1)/2 distances: 1.6 GB at 20,000 points; the silhouettes' cost grows as N^2 too).
MAX_POINTS = 20_000
#: The quick run's algorithms (one stochastic, one linkage): enough for the test.
QUICK_ALGORITHMS = ("kmeans++", "average-linkage")

#: One marker shape per source, in the collection's order.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
BEST = "best ARI"
VALUES = (BEST, *FEATURE_NAMES)
#: The paper's three associations with the best ARI, and the sign each claims.
ASSOCIATIONS = {"silhouette": +1, "silhouette_std": -1, "eccentricity": -1}
#: The rules of the verdicts (stated in the output).
GRADIENT_R2, ALPHA = 0.3, 0.01
RULES = {
    "gradient": f"R^2 of the OLS fit on (PC1, PC2) >= {GRADIENT_R2} and F-test p < {ALPHA}",
    "weak gradient": f"F-test p < {ALPHA} but R^2 < {GRADIENT_R2} (counts as 'partly')",
    "association": f"Spearman's rho of the expected sign and p < {ALPHA}",
    "claim (i)": "reproduced if all 7 features have a gradient, partly if some, "
                 "not reproduced if none",
    "claim (ii)": "reproduced if the best ARI has a gradient, partly if a weak one",
    "claim (iii)": "per scope (all, HAWKS): reproduced if all 3 associations hold, "
                   "partly if 1 or 2, not reproduced if none",
}


# --------------------------------------------------------------------------- statistics


def ols_r2(coords: np.ndarray, values: np.ndarray) -> dict[str, float]:
    """R^2, F and its p-value of ``values ~ 1 + PC1 + PC2`` (ordinary least squares)."""
    n = len(values)
    design = np.column_stack([np.ones(n), coords[:, 0], coords[:, 1]])
    beta, *_ = np.linalg.lstsq(design, values, rcond=None)
    residual = float(np.sum((values - design @ beta) ** 2))
    total = float(np.sum((values - values.mean()) ** 2))
    if total == 0 or n <= 3:  # a constant value (or no residual degree): nothing to explain
        return {"r2": float("nan"), "F": float("nan"), "p": float("nan"), "n": n}
    r2 = 1 - residual / total
    df1, df2 = 2, n - 3
    f_stat = (r2 / df1) / ((1 - r2) / df2) if r2 < 1 else float("inf")
    return {"r2": r2, "F": f_stat, "p": float(stats.f.sf(f_stat, df1, df2)), "n": n}


def spearman(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Spearman's rho and its p-value (nan for a constant input or fewer than 3 points)."""
    if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return {"rho": float("nan"), "p": float("nan"), "n": len(a)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ties are fine: spearmanr ranks them by average
        result = stats.spearmanr(a, b)
    return {"rho": float(result.statistic), "p": float(result.pvalue), "n": len(a)}


def gradient_kind(fit: dict[str, float]) -> str:
    """'gradient', 'weak' or 'none' by `RULES` (nan: 'none')."""
    if not fit["p"] < ALPHA:
        return "none"
    return "gradient" if fit["r2"] >= GRADIENT_R2 else "weak"


def association_holds(result: dict[str, float], sign: int) -> bool:
    return bool(result["p"] < ALPHA and np.sign(result["rho"]) == sign)


def share_verdict(hits: int, total: int) -> str:
    return "reproduced" if hits == total else "partly" if hits else "not reproduced"


def verdicts(gradients: dict[str, dict[str, Any]],
             associations: dict[str, dict[str, dict[str, Any]]]) -> list[dict[str, str]]:
    """One verdict per claim, each with its evidence."""
    kinds = {v: gradients[v]["kind"] for v in VALUES}
    full = [f for f in FEATURE_NAMES if kinds[f] == "gradient"]
    weak = [f for f in FEATURE_NAMES if kinds[f] == "weak"]
    out = [{"claim": "(i) a clear gradient for each of the 7 features",
            "verdict": share_verdict(len(full), len(FEATURE_NAMES)),
            "evidence": f"{len(full)}/7 with a gradient; weak: {', '.join(weak) or 'none'}"}]
    ari_kind = kinds[BEST]
    out.append({"claim": "(ii) a gradient of the best ARI",
                "verdict": {"gradient": "reproduced", "weak": "partly"}.get(ari_kind,
                                                                          "not reproduced"),
                "evidence": f"R^2 = {gradients[BEST]['r2']:.3f}, p = {gradients[BEST]['p']:.2g}"})
    for scope, results in associations.items():
        held = [f for f in ASSOCIATIONS if results[f]["holds"]]
        out.append({"claim": f"(iii) lower best ARI with lower silhouette, higher "
                             f"silhouette_std, higher eccentricity ({scope})",
                    "verdict": share_verdict(len(held), len(ASSOCIATIONS)),
                    "evidence": f"holds for: {', '.join(held) or 'none'}"})
    return out


# --------------------------------------------------------------------------- data


def too_big(dataset: Dataset, algorithms: list[Any], n_jobs: int, max_points: int,
            memory: int | None) -> str | None:
    """Why ``dataset`` is left out, or None."""
    n = dataset.n_samples
    if n > max_points:
        return f"{n:,} points > --max-points {max_points:,}"
    need = max(a.memory_bytes(n) for a in algorithms) * n_jobs
    if memory is not None and need > memory // 2:
        return f"{n_jobs} x {need // n_jobs:,} bytes of distances > half the memory"
    return None


def load(suite: Path, batteries: list[Path], algorithms: list[Any], n_jobs: int,
         max_points: int) -> tuple[list[Dataset], list[bool], list[dict[str, Any]]]:
    """The datasets kept, whether each is HAWKS', and those left out (with why)."""
    from hawks_deap._util.memory import total_memory

    n_hawks = len(collection_items(suite))  # the suite's datasets come first
    datasets = load_items(collection_items([suite, *batteries]))
    memory = total_memory()
    kept, hawks, skipped = [], [], []
    for i, d in enumerate(datasets):
        reason = too_big(d, algorithms, n_jobs, max_points, memory)
        if reason is None:
            kept.append(d)
            hawks.append(i < n_hawks)
        else:
            skipped.append({"name": d.name, "source": d.source, "n_samples": d.n_samples,
                            "reason": reason})
    return kept, hawks, skipped


def measure(args: argparse.Namespace, algorithms: list[str]) -> dict[str, Any]:
    """Features, ARI table, instance space and per-dataset rows of the collection."""
    runners = [get_algorithm(a, preset=args.preset) for a in algorithms]
    datasets, hawks, skipped = load(Path(args.suite), [Path(b) for b in args.batteries],
                                    runners, args.n_jobs, args.max_points)
    for s in skipped:
        print(f"left out: {s['name']} ({s['reason']})")
    t0 = time.perf_counter()
    feats = features_table(datasets)
    t1 = time.perf_counter()
    ari = performance_table(datasets, algorithms, preset=args.preset, n_jobs=args.n_jobs,
                            seed=0)
    t2 = time.perf_counter()
    print(f"features of {len(datasets)} datasets in {t1 - t0:.0f} s; ARI of "
          f"{len(algorithms)} algorithms in {t2 - t1:.0f} s")
    finite = np.all(np.isfinite(feats.values), axis=1)
    for i in np.flatnonzero(~finite):  # the space cannot place a non-finite feature
        skipped.append({"name": datasets[i].name, "source": datasets[i].source,
                        "n_samples": datasets[i].n_samples, "reason": "non-finite feature"})
    space = InstanceSpace().fit(feats.values[finite], FEATURE_NAMES)
    coords = space.transform(feats.values[finite])
    rows = []
    for row, i in enumerate(np.flatnonzero(finite)):
        d = datasets[i]
        rows.append({"name": d.name, "source": d.source, "hawks": hawks[i],
                     "n_samples": d.n_samples, "pc1": float(coords[row, 0]),
                     "pc2": float(coords[row, 1]),
                     BEST: float(np.nanmax(ari.values[i])),
                     "ari": dict(zip(ari.columns, map(float, ari.values[i]), strict=True)),
                     **dict(zip(FEATURE_NAMES, map(float, feats.values[i]), strict=True))})
    return {"space": space, "rows": rows, "skipped": skipped,
            "seconds": {"features": t1 - t0, "performance": t2 - t1}}


def evidence(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The gradients, the associations and the verdicts (see `RULES`)."""
    coords = np.array([[r["pc1"], r["pc2"]] for r in rows])
    gradients = {}
    for v in VALUES:
        fit = ols_r2(coords, np.array([r[v] for r in rows]))
        gradients[v] = {**fit, "kind": gradient_kind(fit)}
    associations: dict[str, dict[str, dict[str, Any]]] = {}
    for scope, sub in (("all", rows), ("HAWKS", [r for r in rows if r["hawks"]])):
        best = np.array([r[BEST] for r in sub])
        associations[scope] = {}
        for feature, sign in ASSOCIATIONS.items():
            result = spearman(best, np.array([r[feature] for r in sub]))
            associations[scope][feature] = {**result, "expected": "+" if sign > 0 else "-",
                                            "holds": association_holds(result, sign)}
    return {"gradients": gradients, "associations": associations,
            "verdicts": verdicts(gradients, associations)}


# --------------------------------------------------------------------------- outputs


def markdown(result: dict[str, Any]) -> str:
    """The tables and verdicts, as printed."""
    g, a = result["gradients"], result["associations"]
    lines = ["| value | R^2 on (PC1, PC2) | F | p | gradient |", "|---|---|---|---|---|"]
    lines += [f"| {v} | {g[v]['r2']:.3f} | {g[v]['F']:.1f} | {g[v]['p']:.2g} | {g[v]['kind']} |"
              for v in VALUES]
    n_all, n_h = a["all"]["silhouette"]["n"], a["HAWKS"]["silhouette"]["n"]
    lines += ["", f"| best ARI vs | expected | rho (all, n={n_all}) | p | holds "
                  f"| rho (HAWKS, n={n_h}) | p | holds |", "|---|---|---|---|---|---|---|---|"]
    for f in ASSOCIATIONS:
        x, h = a["all"][f], a["HAWKS"][f]
        lines.append(f"| {f} | {x['expected']} | {x['rho']:.3f} | {x['p']:.2g} | "
                     f"{'yes' if x['holds'] else 'no'} | {h['rho']:.3f} | {h['p']:.2g} | "
                     f"{'yes' if h['holds'] else 'no'} |")
    lines += ["", "n per source: " + ", ".join(f"{k} {v}" for k, v in result["n"].items())
              + f" (total {sum(result['n'].values())})"]
    return "\n".join(lines + tail_lines(result, RULES))


def tail_lines(result: dict[str, Any], rules: dict[str, str]) -> list[str]:
    """The report's end: the datasets left out, the rules and the verdicts."""
    lines = []
    skipped = result["skipped"]
    if 0 < len(skipped) <= 10:
        lines.append("left out: " + ", ".join(f"{s['name']} ({s['reason']})" for s in skipped))
    elif skipped:  # (each was printed as it was left out; all are in the JSON)
        lines.append(f"left out: {len(skipped)} datasets (listed in the JSON)")
    lines += ["", "Rules:"] + [f"- {k}: {v}" for k, v in rules.items()] + ["", "Verdicts:"]
    return lines + [f"- {v['claim']}: **{v['verdict']}** ({v['evidence']})"
                    for v in result["verdicts"]]


def figure(rows: list[dict[str, Any]], space: InstanceSpace, dpi: int, path: Path) -> None:
    """2 x 4 panels: the space coloured by the best ARI and by each feature."""
    from matplotlib.lines import Line2D

    from hawks_deap.analysis.plotting import pyplot, save_figure

    plt = pyplot()
    coords = np.array([[r["pc1"], r["pc2"]] for r in rows])
    sources = np.array([r["source"] for r in rows])
    kinds = list(dict.fromkeys(sources.tolist()))  # in the collection's order
    xlabel, ylabel = space.axis_labels()[:2]
    fig, axes = plt.subplots(2, 4, figsize=(19, 8.5), constrained_layout=True)
    for k, (ax, value) in enumerate(zip(axes.flat, VALUES, strict=True)):
        colour = np.array([r[value] for r in rows])
        norm = plt.Normalize(float(colour.min()), float(colour.max()))
        for j, kind in enumerate(kinds):
            mask = sources == kind
            scatter = ax.scatter(coords[mask, 0], coords[mask, 1], c=colour[mask], norm=norm,
                                 cmap="viridis", marker=MARKERS[j % len(MARKERS)], s=22,
                                 alpha=0.85, edgecolors="none")
        fig.colorbar(scatter, ax=ax, shrink=0.9)
        ax.set_title(f"{value} (max over algorithms)" if value == BEST else value)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if k == 0:  # one legend: the marker shapes are the same in every panel
            ax.legend(handles=[  # in grey: a legend entry is a shape, not a value
                Line2D([], [], marker=MARKERS[j % len(MARKERS)], color="0.35",
                       linestyle="none", label=f"{kind} ({int((sources == kind).sum())})")
                for j, kind in enumerate(kinds)], title="source", fontsize="small",
                loc="best")
    fig.suptitle(f"Instance space ({', '.join(kinds)}) coloured by the best ARI and the 7 "
                 "problem features (paper, Fig. S-5)")
    save_figure(fig, path, dpi=dpi)
    plt.close(fig)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", required=True, help="a hawks-deap suite's output folder")
    parser.add_argument("--batteries", nargs="+",
                        default=[str(DATA / "sipu"), str(DATA / "uci")])
    parser.add_argument("--out", default="fidelity-s5")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--preset", default="hawks-tevc",
                        help="clustering settings (default: the paper's, hawks-tevc)")
    parser.add_argument("--max-points", type=int, default=MAX_POINTS)
    parser.add_argument("--quick", action="store_true",
                        help=f"only {', '.join(QUICK_ALGORITHMS)}, a 60 dpi figure (tests)")
    args = parser.parse_args(argv)
    if args.preset.lower() == "none":
        args.preset = None
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse(argv)
    algorithms = list(QUICK_ALGORITHMS if args.quick else PAPER_ALGORITHMS)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    measured = measure(args, algorithms)
    rows, space = measured["rows"], measured["space"]
    result: dict[str, Any] = {
        "command": ["benchmarks/fidelity_s5.py", *(sys.argv[1:] if argv is None else argv)],
        "preset": args.preset, "algorithms": algorithms, "seed": 0,
        "n": dict(Counter(r["source"] for r in rows)),
        "n_hawks": sum(r["hawks"] for r in rows), "skipped": measured["skipped"],
        "rules": RULES, **evidence(rows),
        "space": {"axis_labels": space.axis_labels(), "loadings": space.loadings(),
                  "explained_variance_ratio": space.explained_variance_ratio_.tolist()
                  if space.explained_variance_ratio_ is not None else None},
        "rows": rows}
    text = markdown(result)
    print(text)
    figure(rows, space, 60 if args.quick else 150, out / "fidelity_s5.png")
    result["seconds"] = {**measured["seconds"], "total": time.perf_counter() - t0}
    write_text_atomic(out / "fidelity_s5.json", json.dumps(result, indent=1))
    write_text_atomic(out / "fidelity_s5.md", text + "\n")
    print(f"\n{out}/fidelity_s5.{{json,md,png}} in {result['seconds']['total']:.0f} s")
    return result


if __name__ == "__main__":
    main()
