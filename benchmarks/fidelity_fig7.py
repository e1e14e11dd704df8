"""Fidelity to the paper, Fig. 7 and supplement S-IV: the Versus datasets in the instance
space, and the spread of the single-linkage vs average-linkage head-to-head.

Fig. 7 (section V-B): "we add the 30 datasets from each of the 12 head-to-heads to the
instance space created in Section V-A (using the same principal components) ... Clearly,
we are able to generate datasets that are notably different in terms of their problem
features ... there are many datasets in the region where previously only HK produced
datasets ... covering additional regions". Here the space is fitted, as
benchmarks/fidelity_s5.py fits it, on a HAWKS Index suite (``--index``) and the
clustering-benchmarks batteries (``--batteries``: SIPU and UCI; the paper's also held HK,
QJ and UKC datasets, which we do not have), and only on them: the Versus datasets of a
benchmarks/fidelity_versus.py campaign (``--versus``; a partial one is read as it is) are
projected into it. The evidence that Index and Versus differ: a two-sample permutation
test on the 2-D energy distance of their coordinates (primary: it tests equality of the
two distributions in the plane, so it sees a shift, a different spread or shape and a
different dependence between the axes, in one test of one p-value; a test per axis sees
only shifts along that axis and needs two tests), with a Mann-Whitney U test per axis
beside it (which axis moved); and where they lie: the share of Versus datasets in cells
of side ``--cell`` (0.25, the fill's) holding no Index dataset, and the cells they add to
the coverage of the space (`hawks_deap.analysis.gaps.CoverageGrid`).

S-IV (supplement, "Single-linkage vs. Average-linkage"): "there was a high spread in the
ARI for both algorithms, and high variance in the maximum difference found between runs
... some datasets that correlate both high and low performance between the two". Over the
campaign's runs of single-linkage (winner) against average-linkage (loser), and the
reverse for contrast: each ARI and their difference (the fitness) as mean, sd, IQR and
range (the runs' own scores, as fidelity_versus.py reports them); the rank of each sd among
the ordered pairs' (largest first); a Brown-Forsythe test of the difference's spread
against the other 10 pairs' pooled (each centred on its own median first, so that the
pairs' different levels do not count as spread); Spearman's rho of the two ARIs across the
runs. ``s7.png`` draws Fig. S-7's head-to-heads (single vs average, average vs single,
GMM vs K-Means++): the truth and both partitions (re-run with the run's recorded seeds) of
each pair's run with the largest difference.

Writes ``fidelity_fig7.json`` (every number), ``fidelity_fig7.md`` (printed),
``fig7.png`` and ``s7.png`` to ``--out``.

    python benchmarks/fidelity_fig7.py --index fill-suite --versus fidelity-versus \
        --out fig7 --n-jobs 1
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fidelity_s5 import (  # noqa: E402
    ALPHA,
    DATA,
    MAX_POINTS,
    load,
    share_verdict,
    spearman,
    tail_lines,
)
from fidelity_versus import ALGORITHMS, read_runs  # noqa: E402

from hawks_deap.analysis.features import (  # noqa: E402
    FEATURE_NAMES,
    InstanceSpace,
    features_table,
)
from hawks_deap.analysis.gaps import CoverageGrid  # noqa: E402
from hawks_deap.clustering import PAPER_ALGORITHMS, get_algorithm  # noqa: E402
from hawks_deap.io.dataset import Dataset, write_text_atomic  # noqa: E402
from hawks_deap.metrics import adjusted_rand_index  # noqa: E402

#: The fill's cell side (standardised units of the space).
CELL = 0.25
#: Share of Versus datasets in cells without an Index dataset for "apart".
APART_SHARE = 0.5
#: Cells the Versus datasets add, as a share of those the fitted collection holds, for
#: "additional regions" to be reproduced.
ADDED_SHARE = 0.1
#: Fewest Versus datasets for Fig. 7's claims to be judged (fewer cannot reach p < ALPHA
#: reliably, nor stand for "the Versus datasets"); fewest ordered pairs with an sd for
#: S-IV's ranks (a "top third" of 1 or 2 pairs says nothing).
MIN_VERSUS, MIN_RANKED = 10, 6
PAIR = ("single-linkage", "average-linkage")
REVERSE = (PAIR[1], PAIR[0])
#: Fig. S-7's head-to-heads (winner, loser), in its order.
S7_PAIRS = (PAIR, REVERSE, ("gmm", "kmeans++"))
ORDERED_PAIRS = [(w, lo) for w in ALGORITHMS for lo in ALGORITHMS if w != lo]
RULES = {
    "different": f"2-D energy-distance permutation test, Index vs Versus coordinates, "
                 f"p < {ALPHA}",
    "apart": f"at least {APART_SHARE:.0%} of the Versus datasets lie in cells (side "
             f"{CELL}) holding no Index dataset",
    "Fig. 7 judged": f"with at least {MIN_VERSUS} Versus datasets, else not testable",
    "claim (Fig. 7a)": "notably different problem features: reproduced if 'different' and "
                       "'apart' both hold, partly if one, not reproduced if neither",
    "claim (Fig. 7b)": f"additional regions: reproduced if the Versus datasets occupy cells "
                       f"holding no dataset of the fitted collection, at least "
                       f"{ADDED_SHARE:.0%} as many as it occupies; partly if fewer but some",
    "claim (Fig. 7c)": "many Versus datasets where only HK's were: not testable (no HK "
                       "datasets)",
    "top third": "an sd ranks among the largest third of the ordered pairs with >= 2 runs "
                 "(rank <= ceil(pairs / 3), rank 1 the largest)",
    "S-IV judged": f"(a) and (b) with >= 3 runs of the pair and >= {MIN_RANKED} pairs with "
                   f">= 2 runs, else not testable",
    "claim (S-IV a)": "high spread of both ARIs (single vs average): reproduced if the "
                      "winner's and the loser's ARI sd are both in the top third, partly "
                      "if one",
    "claim (S-IV b)": f"high variance of the difference (single vs average): reproduced if "
                      f"its sd is in the top third and the Brown-Forsythe test against "
                      f"the other 10 pairs has p < {ALPHA} with the larger spread; partly "
                      f"if one",
    "claim (S-IV c)": f"datasets correlate high and low performance of the two (single vs "
                      f"average): reproduced if Spearman's rho > 0 with p < {ALPHA}, partly "
                      f"if rho > 0 otherwise, not testable under 3 runs",
}


# --------------------------------------------------------------------------- statistics


def energy_statistic(a: np.ndarray, b: np.ndarray) -> float:
    """Squared energy distance ``2 E|A-B| - E|A-A'| - E|B-B'|`` of two samples.

    The expectations are over the empirical distributions (every pair, itself included),
    so that in 1-D it is the square of ``scipy.stats.energy_distance``.
    """
    from scipy.spatial.distance import cdist

    a, b = np.atleast_2d(a.T).T, np.atleast_2d(b.T).T  # 1-D samples as columns
    return float(2 * cdist(a, b).mean() - cdist(a, a).mean() - cdist(b, b).mean())


def _split_statistics(dist: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """`energy_statistic` of each split of the pooled sample (row of ``masks``: group A)."""
    m = masks.astype(float)
    na, nb = m[0].sum(), len(dist) - m[0].sum()
    total = dist.sum()
    s_aa = np.einsum("bi,bi->b", m @ dist, m)
    s_bb = np.einsum("bi,bi->b", (1 - m) @ dist, 1 - m)
    s_ab = (total - s_aa - s_bb) / 2
    return 2 * s_ab / (na * nb) - s_aa / na**2 - s_bb / nb**2


def energy_test(a: np.ndarray, b: np.ndarray, permutations: int,
                rng: np.random.Generator) -> dict[str, Any]:
    """Permutation test of equal distributions on `energy_statistic` (one-sided: larger).

    Every split is enumerated when there are at most ``permutations`` of them (p = the
    share of splits at least as large, the observed one included), else ``permutations``
    random ones (p = (1 + count) / (1 + permutations)): scipy.stats.permutation_test's
    conventions, its tolerance for ties included.
    """
    from scipy.spatial.distance import cdist

    pooled = np.vstack([np.atleast_2d(a.T).T, np.atleast_2d(b.T).T])
    n, na = len(pooled), len(a)
    dist = cdist(pooled, pooled)
    first = np.zeros((1, n), dtype=bool)
    first[0, :na] = True
    observed = float(_split_statistics(dist, first)[0])
    exact = math.comb(n, na) <= permutations
    if exact:
        masks = np.zeros((math.comb(n, na), n), dtype=bool)
        for row, chosen in enumerate(combinations(range(n), na)):
            masks[row, list(chosen)] = True
    else:
        masks = np.zeros((permutations, n), dtype=bool)
        for row in range(permutations):
            masks[row, rng.permutation(n)[:na]] = True
    null = np.concatenate([_split_statistics(dist, masks[i:i + 2000])
                           for i in range(0, len(masks), 2000)])
    tolerance = abs(observed) * np.finfo(float).eps * 100  # equal splits, rounded apart
    count = int(np.sum(null >= observed - tolerance))
    p = count / len(null) if exact else (count + 1) / (len(null) + 1)
    return {"statistic": observed, "p": float(p), "resamples": len(null), "exact": exact,
            "n_index": na, "n_versus": n - na}


def axis_tests(index: np.ndarray, versus: np.ndarray) -> list[dict[str, float]]:
    """Per principal component: Mann-Whitney U (two-sided), medians, U / (n1 n2)."""
    out = []
    for k in range(index.shape[1]):
        result = stats.mannwhitneyu(index[:, k], versus[:, k], alternative="two-sided")
        out.append({"U": float(result.statistic), "p": float(result.pvalue),
                    "U_share": float(result.statistic) / (len(index) * len(versus)),
                    "median_index": float(np.median(index[:, k])),
                    "median_versus": float(np.median(versus[:, k]))})
    return out


def cell_keys(grid: CoverageGrid, points: np.ndarray) -> list[tuple[int, ...]]:
    """The cell of each point (`CoverageGrid.cell_index`, also beyond its box), as keys."""
    return [tuple(int(v) for v in row) for row in grid.cell_index(points)]


def _in_region(grid: CoverageGrid, key: tuple[int, ...]) -> bool:
    inside_box = all(0 <= k < s for k, s in zip(key, grid.shape, strict=True))
    return bool(inside_box and grid.inside[key])


def cell_evidence(grid: CoverageGrid, index: np.ndarray, other: np.ndarray,
                  versus: np.ndarray) -> dict[str, Any]:
    """Where the Versus datasets lie against the cells of the fitted collection."""
    index_cells = set(cell_keys(grid, index))
    base_cells = index_cells | set(cell_keys(grid, other))
    keys = cell_keys(grid, versus)
    cells = set(keys)
    new = cells - base_cells
    base = np.vstack([index, other]) if len(other) else index
    return {
        "grid": grid.to_dict(),
        "versus_share_no_index": float(np.mean([k not in index_cells for k in keys])),
        "versus_share_no_dataset": float(np.mean([k not in base_cells for k in keys])),
        "index_cells": len(index_cells), "collection_cells": len(base_cells),
        "versus_cells": len(cells), "versus_cells_no_index": len(cells - index_cells),
        "added_cells": len(new),
        "added_cells_in_region": sum(_in_region(grid, k) for k in new),
        "coverage_collection": grid.coverage(base),
        "coverage_collection_and_versus": grid.coverage(np.vstack([base, versus])),
        "coverage_index": grid.coverage(index),
        "coverage_index_and_versus": grid.coverage(np.vstack([index, versus]))}


def spread(values: list[float]) -> dict[str, float]:
    """n, mean, sd (n - 1), quartiles, IQR, min and max (nan where undefined)."""
    v = np.asarray(values, dtype=float)
    if len(v) == 0:
        return {"n": 0, **dict.fromkeys(("mean", "sd", "q1", "q3", "iqr", "min", "max"),
                                         float("nan"))}
    q1, q3 = np.percentile(v, [25, 75])
    return {"n": len(v), "mean": float(v.mean()),
            "sd": float(v.std(ddof=1)) if len(v) > 1 else float("nan"),
            "q1": float(q1), "q3": float(q3), "iqr": float(q3 - q1),
            "min": float(v.min()), "max": float(v.max())}


def sd_ranks(table: dict[str, dict[str, Any]], key: str) -> dict[str, int]:
    """Rank of each pair's ``table[pair][key]["sd"]`` (1 = largest) among pairs with one."""
    sds = {p: row[key]["sd"] for p, row in table.items() if np.isfinite(row[key]["sd"])}
    order = sorted(sds, key=lambda p: -sds[p])
    return {p: order.index(p) + 1 for p in sds}


def brown_forsythe(diffs: dict[str, list[float]], pair: str,
                   exclude: tuple[str, ...]) -> dict[str, Any]:
    """Brown-Forsythe test of ``pair``'s differences against the other pairs', pooled.

    Each other pair is centred on its own median before pooling: the pairs' levels
    differ (0.99 against 0.4), and pooled raw they would count as spread.
    """
    own = np.asarray(diffs.get(pair, []), dtype=float)
    others = [np.asarray(v) - np.median(v) for p, v in diffs.items()
              if p not in exclude and len(v) > 0]
    pooled = np.concatenate(others) if others else np.zeros(0)
    out: dict[str, Any] = {"n": len(own), "n_others": len(pooled),
                           "pairs_pooled": sum(1 for p in diffs if p not in exclude
                                               and len(diffs[p]) > 0)}
    if len(own) < 2 or len(pooled) < 2:
        return {**out, "W": float("nan"), "p": float("nan"), "larger": None}
    result = stats.levene(own, pooled, center="median")
    mad_own = float(np.mean(np.abs(own - np.median(own))))
    mad_others = float(np.mean(np.abs(pooled - np.median(pooled))))
    return {**out, "W": float(result.statistic), "p": float(result.pvalue),
            "mean_abs_dev": mad_own, "mean_abs_dev_others": mad_others,
            "larger": mad_own > mad_others}


def pair_name(pair: tuple[str, str]) -> str:
    return f"{pair[0]} vs {pair[1]}"


def s4_evidence(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per ordered pair the spreads; for single vs average (and the reverse) the tests."""
    table: dict[str, dict[str, Any]] = {}
    diffs: dict[str, list[float]] = {}
    for pair in ORDERED_PAIRS:
        sub = [r for r in runs if (r["winner"], r["loser"]) == pair]
        name = pair_name(pair)
        diffs[name] = [r["winner_ari"] - r["loser_ari"] for r in sub]
        table[name] = {"winner": spread([r["winner_ari"] for r in sub]),
                       "loser": spread([r["loser_ari"] for r in sub]),
                       "difference": spread(diffs[name])}
    ranks = {key: sd_ranks(table, key) for key in ("winner", "loser", "difference")}
    for name, row in table.items():
        row["sd_rank"] = {key: ranks[key].get(name) for key in ranks}
    ranked = len(ranks["difference"])
    focus = {}
    for pair in (PAIR, REVERSE):
        sub = [r for r in runs if (r["winner"], r["loser"]) == pair]
        name = pair_name(pair)
        focus[name] = {
            "brown_forsythe": brown_forsythe(diffs, name, (pair_name(PAIR),
                                                           pair_name(REVERSE))),
            "spearman": spearman(np.array([r["winner_ari"] for r in sub]),
                                 np.array([r["loser_ari"] for r in sub]))}
    return {"pairs": table, "ranked_pairs": ranked,
            "top_third": math.ceil(ranked / 3) if ranked else 0, "focus": focus}


# --------------------------------------------------------------------------- verdicts


def fig7_verdicts(fig7: dict[str, Any]) -> list[dict[str, str]]:
    """The verdicts of Fig. 7's claims by `RULES`."""
    energy, cells = fig7["energy"], fig7["cells"]
    different = bool(energy["p"] < ALPHA)
    apart = bool(cells["versus_share_no_index"] >= APART_SHARE)
    added, held = cells["added_cells"], cells["collection_cells"]
    judged = energy["n_versus"] >= MIN_VERSUS
    return [
        {"claim": "(Fig. 7a) the Versus datasets have notably different problem features",
         "verdict": share_verdict(different + apart, 2) if judged else "not testable",
         "evidence": f"energy test p = {energy['p']:.2g} ({'holds' if different else 'no'}); "
                     f"{cells['versus_share_no_index']:.0%} of the Versus datasets in cells "
                     f"without an Index dataset ({'holds' if apart else 'no'})"},
        {"claim": "(Fig. 7b) the Versus datasets cover additional regions",
         "verdict": "not testable" if not judged else
                    "reproduced" if added >= ADDED_SHARE * held else
                    "partly" if added else "not reproduced",
         "evidence": f"{added} cells holding no dataset of the fitted collection, which "
                     f"occupies {held} ({cells['added_cells_in_region']} of them inside "
                     f"its region); {energy['n_versus']} Versus datasets"},
        {"claim": "(Fig. 7c) many Versus datasets where previously only HK's were",
         "verdict": "not testable", "evidence": "no HK datasets"}]


def s4_verdicts(s4: dict[str, Any]) -> list[dict[str, str]]:
    """The verdicts of S-IV's claims (single-linkage vs average-linkage) by `RULES`."""
    name = pair_name(PAIR)
    row, focus, top = s4["pairs"][name], s4["focus"][name], s4["top_third"]
    n = row["difference"]["n"]
    ranks = row["sd_rank"]
    high = [k for k in ("winner", "loser") if ranks[k] is not None and ranks[k] <= top]
    bf, rho = focus["brown_forsythe"], focus["spearman"]
    diff_top = ranks["difference"] is not None and ranks["difference"] <= top
    bf_holds = bool(bf["p"] < ALPHA and bf["larger"])
    if n < 3:
        corr = "not testable"
    elif rho["rho"] > 0:
        corr = "reproduced" if rho["p"] < ALPHA else "partly"
    else:
        corr = "not reproduced"
    judged = n >= 3 and s4["ranked_pairs"] >= MIN_RANKED
    out = [{"claim": "(S-IV a) high spread of the ARI of both algorithms",
            "verdict": share_verdict(len(high), 2) if judged else "not testable",
            "evidence": f"sd ranks winner {ranks['winner'] or '-'}, loser "
                        f"{ranks['loser'] or '-'} of "
                        f"{s4['ranked_pairs']} (top third: <= {top}); n = {n}"},
           {"claim": "(S-IV b) high variance of the difference between runs",
            "verdict": share_verdict(diff_top + bf_holds, 2) if judged else "not testable",
            "evidence": f"sd rank {ranks['difference'] or '-'} of {s4['ranked_pairs']}; "
                        f"Brown-Forsythe W = {_f(bf['W'], '.2f')}, p = {_f(bf['p'], '.2g')}, "
                        f"larger: {bf['larger']}"},
           {"claim": "(S-IV c) datasets correlate high and low performance of the two",
            "verdict": corr, "evidence": f"Spearman rho = {rho['rho']:.3f}, "
                                         f"p = {rho['p']:.2g}, n = {rho['n']}"}]
    return out


# --------------------------------------------------------------------------- data


def read_versus(folder: Path) -> tuple[list[dict[str, Any]], list[Dataset]]:
    """The finished runs of a fidelity_versus.py campaign and their datasets.

    As its ``report`` stage reads them: one suite per winner in ``folder/<winner>``, each
    run's own scores in its dataset's ``metadata["record"]``.
    """
    runs, datasets = [], []
    for suite, row, ds in read_runs(folder):
        record = ds.metadata["record"]
        runs.append({"winner": row["winner"], "loser": row["loser"],
                     "name": f"{suite.name}/{row['name']}", "path": str(suite / row["path"]),
                     "preset": row.get("preset") or None,
                     "n_clusters": int(row["n_clusters"]),
                     "winner_ari": float(record["winner_score"]),
                     "loser_ari": float(record["loser_score"]),
                     "feasible": bool(record["feasible"]),
                     "seeds": {k: int(v) for k, v in record["seeds"].items()}})
        datasets.append(ds)
    return runs, datasets


def _features_chunk(datasets: list[Dataset]) -> np.ndarray:
    return features_table(datasets).values


def features_of(datasets: list[Dataset], n_jobs: int) -> np.ndarray:
    """`features_table` values, over ``n_jobs`` processes (interleaved chunks)."""
    if n_jobs <= 1 or len(datasets) < 2:
        return features_table(datasets).values
    chunks = [list(range(j, len(datasets), n_jobs)) for j in range(n_jobs)]
    out = np.empty((len(datasets), len(FEATURE_NAMES)))
    with ProcessPoolExecutor(n_jobs) as pool:
        parts = pool.map(_features_chunk, [[datasets[i] for i in c] for c in chunks])
        for chunk, values in zip(chunks, parts, strict=True):
            out[chunk] = values
    return out


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """The space fitted on Index + batteries, every dataset placed, the Versus runs."""
    # the same left-out datasets as fidelity_s5.py (the paper's algorithms, their memory)
    runners = [get_algorithm(a, preset="hawks-tevc") for a in PAPER_ALGORITHMS]
    datasets, hawks, skipped = load(Path(args.index), [Path(b) for b in args.batteries],
                                    runners, args.n_jobs, args.max_points)
    for s in skipped:
        print(f"left out: {s['name']} ({s['reason']})")
    runs, versus = read_versus(Path(args.versus))
    if not runs:
        raise SystemExit(f"--versus {args.versus}: no finished run in any of "
                         f"{', '.join(ALGORITHMS)}/summary.csv")
    t0 = time.perf_counter()
    feats = features_of([*datasets, *versus], args.n_jobs)
    seconds = time.perf_counter() - t0
    print(f"features of {len(datasets)} + {len(versus)} datasets in {seconds:.0f} s")
    groups = ["Index" if h else "Other" for h in hawks] + ["Versus"] * len(versus)
    names = [d.name for d in datasets] + [r["name"] for r in runs]
    sources = [d.source for d in datasets] + ["Versus"] * len(versus)
    extra: list[dict[str, str]] = [{} for _ in datasets]
    extra += [{"pair": pair_name((r["winner"], r["loser"]))} for r in runs]
    finite = np.all(np.isfinite(feats), axis=1)
    for i in np.flatnonzero(~finite):  # the space cannot place a non-finite feature
        skipped.append({"name": names[i], "source": sources[i],
                        "n_samples": [*datasets, *versus][i].n_samples,
                        "reason": "non-finite feature"})
    fitted = finite & (np.array(groups) != "Versus")  # the paper's "same components"
    space = InstanceSpace().fit(feats[fitted], FEATURE_NAMES)
    coords = space.transform(feats[finite])
    rows = []
    for row, i in enumerate(np.flatnonzero(finite)):
        rows.append({"name": names[i], "source": sources[i], "group": groups[i], **extra[i],
                     "pc1": float(coords[row, 0]), "pc2": float(coords[row, 1]),
                     **dict(zip(FEATURE_NAMES, map(float, feats[i]), strict=True))})
    return {"space": space, "rows": rows, "runs": runs, "versus": versus,
            "skipped": skipped, "seconds": {"features": seconds}}


def fig7_evidence(rows: list[dict[str, Any]], cell: float, permutations: int
                  ) -> dict[str, Any]:
    """Index against Versus in the space: the tests and the cells (see `RULES`)."""
    xy = {g: np.array([[r["pc1"], r["pc2"]] for r in rows if r["group"] == g]).reshape(-1, 2)
          for g in ("Index", "Other", "Versus")}
    grid = CoverageGrid.from_region(np.vstack([xy["Index"], xy["Other"]]), cell=cell)
    out = {"axes": axis_tests(xy["Index"], xy["Versus"]),
           "energy": energy_test(xy["Index"], xy["Versus"], permutations,
                                 np.random.default_rng(0)),
           "cells": cell_evidence(grid, xy["Index"], xy["Other"], xy["Versus"])}
    return {**out, "verdicts": fig7_verdicts(out)}


def s7_examples(runs: list[dict[str, Any]], versus: list[Dataset]) -> list[dict[str, Any]]:
    """Per Fig. S-7 pair, its run with the largest difference, re-clustered.

    The partitions are the scored ones: each algorithm re-run on the saved dataset with
    the seed its evaluation recorded (the recomputed ARIs are written beside the
    recorded ones).
    """
    out: list[dict[str, Any]] = []
    for pair in S7_PAIRS:
        index = [i for i, r in enumerate(runs) if (r["winner"], r["loser"]) == pair]
        if not index:
            out.append({"pair": pair_name(pair), "run": None})
            continue
        i = max(index, key=lambda j: runs[j]["winner_ari"] - runs[j]["loser_ari"])
        run, ds = runs[i], versus[i]
        labels = {role: get_algorithm(run[role], preset=run["preset"])(
            ds.X, run["n_clusters"], run["seeds"][role]) for role in ("winner", "loser")}
        out.append({"pair": pair_name(pair), "run": run["name"], "index": i,
                    "n_runs": len(index), "winner_ari": run["winner_ari"],
                    "loser_ari": run["loser_ari"],
                    "winner_ari_rerun": adjusted_rand_index(ds.y, labels["winner"]),
                    "loser_ari_rerun": adjusted_rand_index(ds.y, labels["loser"]),
                    "labels": labels})
    return out


# --------------------------------------------------------------------------- outputs


def _f(x: float | None, spec: str = ".3f") -> str:
    return "-" if x is None or not np.isfinite(x) else format(x, spec)


def fig7_markdown(result: dict[str, Any]) -> list[str]:
    fig7 = result["fig7"]
    e, c = fig7["energy"], fig7["cells"]
    lines = ["Fig. 7: Index against Versus in the space fitted on Index + batteries",
             "", "| PC | median Index | median Versus | Mann-Whitney U | U / (n1 n2) | p |",
             "|---|---|---|---|---|---|"]
    for k, a in enumerate(fig7["axes"]):
        lines.append(f"| PC{k + 1} | {a['median_index']:.3f} | {a['median_versus']:.3f} | "
                     f"{a['U']:.0f} | {a['U_share']:.3f} | {a['p']:.2g} |")
    kind = "all splits" if e["exact"] else "random splits"
    lines += ["", f"Energy distance (2-D, squared) Index vs Versus: {e['statistic']:.4f}, "
                  f"permutation p = {e['p']:.2g} ({e['resamples']} {kind}; n = "
                  f"{e['n_index']} + {e['n_versus']}). The verdict's test: one test of equal "
                  "distributions in the plane, which sees a shift, a spread or a shape; the "
                  "U tests above see only a shift along one axis each.", "",
              f"| cells (side {c['grid']['cell']}) | value |", "|---|---|",
              f"| Versus datasets in cells with no Index dataset | "
              f"{c['versus_share_no_index']:.3f} |",
              f"| Versus datasets in cells with no dataset of the fitted collection | "
              f"{c['versus_share_no_dataset']:.3f} |",
              f"| cells holding Index / fitted collection / Versus datasets | "
              f"{c['index_cells']} / {c['collection_cells']} / {c['versus_cells']} |",
              f"| Versus cells with no Index dataset | {c['versus_cells_no_index']} |",
              f"| Versus cells with no dataset of the collection (added) | "
              f"{c['added_cells']} ({c['added_cells_in_region']} inside the region) |",
              f"| coverage of the region ({c['grid']['region_cells']} cells): collection, "
              f"+ Versus | {c['coverage_collection']:.3f}, "
              f"{c['coverage_collection_and_versus']:.3f} |",
              f"| coverage: Index, Index + Versus | {c['coverage_index']:.3f}, "
              f"{c['coverage_index_and_versus']:.3f} |"]
    return lines


def s4_markdown(result: dict[str, Any]) -> list[str]:
    s4 = result["s4"]
    lines = ["", "S-IV: ARI of the winner and the loser and their difference per ordered "
                 "pair (runs' own scores); sd rank 1 = largest",
             "", "| winner vs loser | runs | ARI winner | ARI loser | difference mean (sd) "
                 "| IQR | range | sd rank (winner, loser, difference) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, row in s4["pairs"].items():
        w, lo, d, r = row["winner"], row["loser"], row["difference"], row["sd_rank"]
        lines.append(f"| {name} | {d['n']} | {_f(w['mean'])} ({_f(w['sd'])}) | "
                     f"{_f(lo['mean'])} ({_f(lo['sd'])}) | {_f(d['mean'])} ({_f(d['sd'])}) "
                     f"| {_f(d['iqr'])} | {_f(d['min'])} to {_f(d['max'])} | "
                     f"{r['winner'] or '-'}, {r['loser'] or '-'}, {r['difference'] or '-'} |")
    lines += ["", "| pair | value | mean | sd | IQR | min | max |", "|---|---|---|---|---|---|---|"]
    for name in (pair_name(PAIR), pair_name(REVERSE)):
        for key in ("winner", "loser", "difference"):
            v = s4["pairs"][name][key]
            lines.append(f"| {name} | {key} | {_f(v['mean'])} | {_f(v['sd'])} | "
                         f"{_f(v['iqr'])} | {_f(v['min'])} | {_f(v['max'])} |")
    lines += ["", "| pair | Brown-Forsythe W vs the other 10 (pooled n) | p | larger spread "
                  "| Spearman rho (winner, loser ARI) | p | n |", "|---|---|---|---|---|---|---|"]
    for name, f in s4["focus"].items():
        bf, rho = f["brown_forsythe"], f["spearman"]
        lines.append(f"| {name} | {_f(bf['W'], '.2f')} ({bf['n_others']}) | "
                     f"{_f(bf['p'], '.2g')} | {bf['larger']} | {_f(rho['rho'])} | "
                     f"{_f(rho['p'], '.2g')} | {rho['n']} |")
    lines += ["", "Fig. S-7 runs (largest difference of each pair; ARI recorded / re-run "
                  "with the recorded seeds):"]
    for ex in result["s7"]:
        if ex["run"] is None:
            lines.append(f"- {ex['pair']}: no finished run")
        else:
            lines.append(f"- {ex['pair']}: {ex['run']} (of {ex['n_runs']}), winner "
                         f"{ex['winner_ari']:.3f} / {ex['winner_ari_rerun']:.3f}, loser "
                         f"{ex['loser_ari']:.3f} / {ex['loser_ari_rerun']:.3f}")
    return lines


def markdown(result: dict[str, Any]) -> str:
    """The tables, rules and verdicts, as printed."""
    lines = fig7_markdown(result) + s4_markdown(result)
    lines += ["", "n per group: " + ", ".join(f"{k} {v}" for k, v in result["n"].items()),
              "n per source: " + ", ".join(f"{k} {v}" for k, v in result["n_source"].items())]
    return "\n".join(lines + tail_lines(result, RULES))


def fig7_figure(rows: list[dict[str, Any]], space: InstanceSpace, dpi: int,
                path: Path) -> None:
    """Fig. 7: the space with Index and Versus highlighted; beside it, Versus by winner."""
    from hawks_deap.analysis.plotting import (
        algorithm_colours,
        plot_instance_space,
        pyplot,
        save_figure,
    )

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(14, 6), constrained_layout=True)
    coords = np.array([[r["pc1"], r["pc2"]] for r in rows])
    count = Counter(r["group"] for r in rows)
    label = {g: f"{g} ({count[g]})" for g in ("Other", "Index", "Versus")}
    groups = [label[r["group"]] for r in rows]
    plot_instance_space(coords, groups, space=space, ax=axes[0], legend_title="source",
                        order=list(label.values()),
                        colours=dict(zip(label.values(), ("0.75", "C0", "C3"), strict=True)),
                        title="Fig. 7: Index and Versus datasets ('Other': SIPU, UCI)")
    by_winner = [label[r["group"]] if r["group"] != "Versus"
                 else f"Versus, {r['pair'].split(' vs ')[0]} wins" for r in rows]
    names = list(dict.fromkeys([label["Other"], label["Index"]]
                               + [f"Versus, {a} wins" for a in ALGORITHMS]))
    names = [n for n in names if n in by_winner]
    colours = {label["Other"]: "0.75", label["Index"]: "#9ecae1",
               **{f"Versus, {a} wins": c for a, c in algorithm_colours(ALGORITHMS).items()}}
    plot_instance_space(coords, by_winner, space=space, ax=axes[1], legend_title="source",
                        order=names, colours={n: colours[n] for n in names},
                        title="Versus datasets by winner")
    save_figure(fig, path, dpi=dpi)
    plt.close(fig)


def s7_figure(examples: list[dict[str, Any]], runs: list[dict[str, Any]],
              versus: list[Dataset], dpi: int, path: Path) -> None:
    """Fig. S-7: per pair, the truth and both partitions of its largest-difference run."""
    from hawks_deap.analysis.plotting import plot_versus, pyplot, save_figure

    plt = pyplot()
    fig, axes = plt.subplots(len(examples), 3, figsize=(13, 4.2 * len(examples)),
                             constrained_layout=True, squeeze=False)
    for row, ex in zip(axes, examples, strict=True):
        if ex["run"] is None:
            for ax in row:
                ax.set_axis_off()
            row[1].set_title(f"{ex['pair']}: no finished run")
            continue
        run, ds = runs[ex["index"]], versus[ex["index"]]
        plot_versus(ds.X, ds.y, ex["labels"]["winner"], ex["labels"]["loser"],
                    winner=run["winner"], loser=run["loser"],
                    winner_score=ex["winner_ari_rerun"], loser_score=ex["loser_ari_rerun"],
                    axes=list(row))
        row[0].set_title(f"{ex['pair']}: {ex['run']} (largest difference of "
                         f"{ex['n_runs']})\ntruth", fontsize="small")
    fig.suptitle("Fig. S-7: examples of the head-to-heads (truth, winner, loser)")
    save_figure(fig, path, dpi=dpi)
    plt.close(fig)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", required=True,
                        help="a hawks-deap Index suite's output folder")
    parser.add_argument("--versus", required=True,
                        help="benchmarks/fidelity_versus.py's --out folder (runs finished "
                             "so far are read)")
    parser.add_argument("--batteries", nargs="+",
                        default=[str(DATA / "sipu"), str(DATA / "uci")])
    parser.add_argument("--out", default="fidelity-fig7")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--max-points", type=int, default=MAX_POINTS)
    parser.add_argument("--cell", type=float, default=CELL)
    parser.add_argument("--permutations", type=int, default=9999,
                        help="random splits of the energy test (all when fewer exist)")
    parser.add_argument("--quick", action="store_true", help="60 dpi figures (tests)")
    args = parser.parse_args(argv)
    for name in ("n_jobs", "permutations"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if not args.cell > 0:
        parser.error(f"--cell must be > 0, got {args.cell}")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    measured = measure(args)
    rows, space, runs = measured["rows"], measured["space"], measured["runs"]
    fig7 = fig7_evidence(rows, args.cell, args.permutations)
    s4 = s4_evidence(runs)
    examples = s7_examples(runs, measured["versus"])
    result: dict[str, Any] = {
        "command": ["benchmarks/fidelity_fig7.py", *(sys.argv[1:] if argv is None else argv)],
        "n": dict(Counter(r["group"] for r in rows)),
        "n_source": dict(Counter(r["source"] for r in rows)),
        "n_pair": {pair_name(p): sum((r["winner"], r["loser"]) == p for r in runs)
                   for p in ORDERED_PAIRS},
        "skipped": measured["skipped"], "rules": RULES, "fig7": fig7, "s4": s4,
        "s7": [{k: v for k, v in ex.items() if k != "labels"} for ex in examples],
        "verdicts": fig7["verdicts"] + s4_verdicts(s4),
        "space": {"axis_labels": space.axis_labels(), "loadings": space.loadings(),
                  "explained_variance_ratio": space.explained_variance_ratio_.tolist()
                  if space.explained_variance_ratio_ is not None else None},
        "runs": runs, "rows": rows}
    text = markdown(result)
    print(text)
    dpi = 60 if args.quick else 150
    fig7_figure(rows, space, dpi, out / "fig7.png")
    s7_figure(examples, runs, measured["versus"], dpi, out / "s7.png")
    result["seconds"] = {**measured["seconds"], "total": time.perf_counter() - t0}
    write_text_atomic(out / "fidelity_fig7.json", json.dumps(result, indent=1))
    write_text_atomic(out / "fidelity_fig7.md", text + "\n")
    print(f"\n{out}/fidelity_fig7.{{json,md}}, fig7.png, s7.png in "
          f"{result['seconds']['total']:.0f} s")
    return result


if __name__ == "__main__":
    main()
