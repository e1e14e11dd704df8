"""benchmarks/fidelity_fig7.py (the paper's Fig. 7 and supplement S-IV) on a tiny Index
suite, a tiny battery and a partial quick Versus campaign: its outputs, and its numbers
against sklearn's PCA, scipy's tests, brute-force cell counts and numpy's spreads."""

import importlib.util
import json
import math
import subprocess
import sys
from itertools import combinations
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from scipy import stats

from hawks_deap.analysis.features import FEATURE_NAMES
from hawks_deap.campaign import suite as hs
from hawks_deap.io import Dataset

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
Fig7 = tuple[Path, dict[str, Any], str]  # (output folder, its JSON, the printed text)
SL_AL, AL_SL = "single-linkage vs average-linkage", "average-linkage vs single-linkage"


def _module(name: str) -> ModuleType:
    """A benchmark script as a module (it puts benchmarks/ on sys.path: undone after)."""
    path = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = path
    return module


@pytest.fixture(scope="module")
def fig7() -> ModuleType:
    return _module("fidelity_fig7")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, fig7: ModuleType) -> Fig7:
    """The script on 6 Index runs, 6 saved datasets and a partial Versus campaign: 3 runs
    per pair of single- and average-linkage as winners, 1 per pair of GMM, no K-Means++."""
    root = tmp_path_factory.mktemp("fig7")
    (root / "grid.toml").write_text(
        '[suite]\nruns = 1\nseed = 0\n[dataset]\nn_samples = 120\n'
        'n_clusters = [2, 4, 6]\nn_dims = [2, 3]\n[ga]\ngenerations = 3\n')
    hs.run_suite(hs.load_suite(root / "grid.toml"), root / "suite", workers=2)
    from sklearn.datasets import make_blobs

    for i in range(6):
        X, y = make_blobs(n_samples=90 + 10 * i, centers=2 + i % 3, n_features=2 + i % 2,
                          cluster_std=0.5 + 0.6 * i, random_state=i)
        Dataset(X, y).save(root / "other" / f"blobs{i}")
    versus = _module("fidelity_versus")
    if not versus.CONFIG.is_file():  # the shared anchors beside the checkout (CI has them)
        pytest.skip(f"HAWKS' Versus defaults not found at {versus.CONFIG} (../shared/ of "
                    "the project: not part of the repository)")
    versus.stage_run(root / "versus", 3, "hawks-tevc", 2, True,
                     ("single-linkage", "average-linkage"))
    versus.stage_run(root / "versus", 1, "hawks-tevc", 2, True, ("gmm",))
    out = root / "out"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "fidelity_fig7.py"), "--index", str(root / "suite"),
         "--versus", str(root / "versus"), "--batteries", str(root / "other"),
         "--out", str(out), "--permutations", "999", "--quick"],
        capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return out, json.loads((out / "fidelity_fig7.json").read_text()), proc.stdout


def _coords(rows: list[dict[str, Any]], *groups: str) -> np.ndarray:
    return np.array([[r["pc1"], r["pc2"]] for r in rows if r["group"] in groups])


# --------------------------------------------------------------------------- end to end


def test_outputs_exist_and_count_every_run(run: Fig7) -> None:
    out, result, stdout = run
    assert (out / "fidelity_fig7.md").read_text().strip() in stdout
    for name in ("fig7.png", "s7.png"):
        image = (out / name).read_bytes()
        assert image[:8] == b"\x89PNG\r\n\x1a\n" and len(image) > 10_000
    assert result["n"] == {"Index": 6, "Other": 6, "Versus": 21} and result["skipped"] == []
    expected = {f"{w} vs {lo}": (3 if w in ("single-linkage", "average-linkage") else
                                 1 if w == "gmm" else 0)
                for w in ("average-linkage", "gmm", "kmeans++", "single-linkage")
                for lo in ("average-linkage", "gmm", "kmeans++", "single-linkage") if w != lo}
    assert result["n_pair"] == expected  # a partial campaign: what is finished, per pair
    assert [p["difference"]["n"] for p in result["s4"]["pairs"].values()] == [
        expected[p] for p in result["s4"]["pairs"]]
    assert len(result["verdicts"]) == 6 and "Rules:" in stdout
    assert result["verdicts"][2]["verdict"] == "not testable"  # no HK datasets


def test_space_is_fitted_on_index_and_batteries_only(run: Fig7) -> None:
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import StandardScaler

    rows = run[1]["rows"]
    feats = np.array([[r[f] for f in FEATURE_NAMES] for r in rows])
    fitted = np.array([r["group"] != "Versus" for r in rows])
    scaler = StandardScaler().fit(feats[fitted])
    pca = PCA(2).fit(scaler.transform(feats[fitted]))
    expected = pca.transform(scaler.transform(feats))
    coords = np.array([[r["pc1"], r["pc2"]] for r in rows])
    signs = np.sign(np.sum(expected[fitted] * coords[fitted], axis=0))  # a convention
    np.testing.assert_allclose(coords, expected * signs, atol=1e-8)


def test_axis_tests_are_scipys_mann_whitney(run: Fig7) -> None:
    result = run[1]
    index, versus = _coords(result["rows"], "Index"), _coords(result["rows"], "Versus")
    for k, written in enumerate(result["fig7"]["axes"]):
        expected = stats.mannwhitneyu(index[:, k], versus[:, k], alternative="two-sided")
        np.testing.assert_allclose([written["U"], written["p"]],
                                   [expected.statistic, expected.pvalue], rtol=1e-12)
        assert written["median_versus"] == pytest.approx(np.median(versus[:, k]))


def test_energy_statistic_by_brute_force(run: Fig7) -> None:
    result = run[1]
    a, b = _coords(result["rows"], "Index"), _coords(result["rows"], "Versus")

    def mean_dist(u: np.ndarray, v: np.ndarray) -> float:
        return sum(math.dist(p, q) for p in u for q in v) / (len(u) * len(v))

    energy = result["fig7"]["energy"]
    expected = 2 * mean_dist(a, b) - mean_dist(a, a) - mean_dist(b, b)
    assert energy["statistic"] == pytest.approx(expected, rel=1e-10)
    assert not energy["exact"] and energy["resamples"] == 999  # C(27, 6) splits > 999
    count = energy["p"] * 1000 - 1  # (1 + count) / (1 + 999)
    assert abs(count - round(count)) < 1e-9 and 0 <= round(count) <= 999
    verdict = result["verdicts"][0]["verdict"]
    holds = (energy["p"] < 0.01) + (result["fig7"]["cells"]["versus_share_no_index"] >= 0.5)
    assert verdict == ("reproduced", "partly", "not reproduced")[2 - holds]


def test_cells_by_brute_force(run: Fig7) -> None:
    from matplotlib.path import Path as Polygon
    from scipy.spatial import ConvexHull

    result = run[1]
    cells = result["fig7"]["cells"]
    grid = cells["grid"]
    index, versus = _coords(result["rows"], "Index"), _coords(result["rows"], "Versus")
    base = _coords(result["rows"], "Index", "Other")

    def cell(p: np.ndarray) -> tuple[int, int]:
        return (math.floor((p[0] - grid["origin"][0]) / grid["cell"]),
                math.floor((p[1] - grid["origin"][1]) / grid["cell"]))

    index_cells = {cell(p) for p in index}
    base_cells = {cell(p) for p in base}
    versus_cells = [cell(p) for p in versus]
    hull = Polygon(base[ConvexHull(base).vertices])
    region = {(i, j) for i in range(grid["shape"][0]) for j in range(grid["shape"][1])
              if hull.contains_point((grid["origin"][0] + (i + 0.5) * grid["cell"],
                                      grid["origin"][1] + (j + 0.5) * grid["cell"]))}
    added = set(versus_cells) - base_cells
    assert grid["region_cells"] == len(region)
    assert cells["versus_share_no_index"] == pytest.approx(
        sum(c not in index_cells for c in versus_cells) / len(versus))
    assert cells["versus_share_no_dataset"] == pytest.approx(
        sum(c not in base_cells for c in versus_cells) / len(versus))
    assert (cells["index_cells"], cells["collection_cells"], cells["versus_cells"]) == (
        len(index_cells), len(base_cells), len(set(versus_cells)))
    assert cells["added_cells"] == len(added)
    assert cells["added_cells_in_region"] == len(added & region)
    assert cells["coverage_collection"] == pytest.approx(len(base_cells & region) / len(region))
    assert cells["coverage_collection_and_versus"] == pytest.approx(
        len((base_cells | added) & region) / len(region))
    assert cells["coverage_index_and_versus"] == pytest.approx(
        len((index_cells | set(versus_cells)) & region) / len(region))


def test_s4_spreads_ranks_and_tests(run: Fig7) -> None:
    result = run[1]
    runs, s4 = result["runs"], result["s4"]
    diffs = {name: np.array([r["winner_ari"] - r["loser_ari"] for r in runs
                             if f"{r['winner']} vs {r['loser']}" == name])
             for name in s4["pairs"]}
    for name, d in diffs.items():
        written = s4["pairs"][name]["difference"]
        if len(d) < 2:
            assert len(d) == written["n"] and not np.isfinite(written["sd"])
            continue
        np.testing.assert_allclose(
            [written["mean"], written["sd"], written["iqr"], written["min"], written["max"]],
            [d.mean(), d.std(ddof=1), stats.iqr(d), d.min(), d.max()], atol=1e-12)
    ranked = [n for n in s4["pairs"] if len(diffs[n]) >= 2]
    order = stats.rankdata([-diffs[n].std(ddof=1) for n in ranked], method="ordinal")
    assert [s4["pairs"][n]["sd_rank"]["difference"] for n in ranked] == order.tolist()
    assert s4["top_third"] == math.ceil(len(ranked) / 3)
    others = np.concatenate([d - np.median(d) for n, d in diffs.items()
                             if n not in (SL_AL, AL_SL) and len(d)])
    for name in (SL_AL, AL_SL):
        bf = s4["focus"][name]["brown_forsythe"]
        expected = stats.levene(diffs[name], others, center="median")
        np.testing.assert_allclose([bf["W"], bf["p"]], [expected.statistic, expected.pvalue],
                                   rtol=1e-10)
        pair = [r for r in runs if f"{r['winner']} vs {r['loser']}" == name]
        rho = stats.spearmanr([r["winner_ari"] for r in pair], [r["loser_ari"] for r in pair])
        written = s4["focus"][name]["spearman"]
        np.testing.assert_allclose([written["rho"], written["p"]],
                                   [rho.statistic, rho.pvalue], rtol=1e-10, atol=1e-12)


def test_s4_verdicts_follow_the_rules(run: Fig7) -> None:
    result = run[1]
    s4, top = result["s4"], result["s4"]["top_third"]
    ranks = s4["pairs"][SL_AL]["sd_rank"]
    high = sum(ranks[k] <= top for k in ("winner", "loser"))
    bf = s4["focus"][SL_AL]["brown_forsythe"]
    diff = (ranks["difference"] <= top) + (bf["p"] < 0.01 and bf["larger"])
    rho = s4["focus"][SL_AL]["spearman"]
    corr = ("reproduced" if rho["p"] < 0.01 else "partly") if rho["rho"] > 0 else \
        "not reproduced"
    names = ("not reproduced", "partly", "reproduced")
    assert s4["ranked_pairs"] == 6 and rho["n"] == 3  # judged: >= 3 runs, >= 6 pairs
    assert [v["verdict"] for v in result["verdicts"][3:]] == [names[high], names[diff], corr]


def test_too_few_runs_are_not_testable(fig7: ModuleType) -> None:
    runs = [{"winner": w, "loser": lo, "winner_ari": 0.9 - 0.1 * i, "loser_ari": 0.2 * i}
            for i in range(3) for w, lo in fig7.ORDERED_PAIRS[:5]]  # 5 pairs: too few
    runs += [{"winner": "single-linkage", "loser": "average-linkage", "winner_ari": 0.5 + i,
              "loser_ari": 0.1 * i} for i in range(3)]
    s4 = fig7.s4_evidence(runs)
    assert s4["ranked_pairs"] == 6  # the 5 pairs and single vs average itself
    assert "not testable" not in [v["verdict"] for v in fig7.s4_verdicts(s4)]
    s4 = fig7.s4_evidence(runs[:-1])  # 2 runs of single vs average
    assert [v["verdict"] for v in fig7.s4_verdicts(s4)] == ["not testable"] * 3
    cells = {"versus_share_no_index": 1.0, "added_cells": 5, "collection_cells": 5,
             "added_cells_in_region": 5}
    few = {"energy": {"p": 0.001, "n_versus": 9}, "cells": cells}
    assert {v["verdict"] for v in fig7.fig7_verdicts(few)} == {"not testable"}
    enough = {"energy": {"p": 0.001, "n_versus": 10}, "cells": cells}
    assert [v["verdict"] for v in fig7.fig7_verdicts(enough)][:2] == ["reproduced"] * 2


def test_s7_partitions_are_the_scored_ones(run: Fig7) -> None:
    result = run[1]
    assert [ex["pair"] for ex in result["s7"]] == [SL_AL, AL_SL, "gmm vs kmeans++"]
    for ex in result["s7"]:
        pair = [r for r in result["runs"] if f"{r['winner']} vs {r['loser']}" == ex["pair"]]
        best = max(pair, key=lambda r: r["winner_ari"] - r["loser_ari"])
        assert ex["run"] == best["name"] and ex["n_runs"] == len(pair)
        # re-run with the recorded seeds on the saved data: the run's own ARIs
        assert ex["winner_ari_rerun"] == pytest.approx(ex["winner_ari"], abs=1e-12)
        assert ex["loser_ari_rerun"] == pytest.approx(ex["loser_ari"], abs=1e-12)


# --------------------------------------------------------------------------- units


def test_energy_statistic_is_scipys_energy_distance_squared_in_1d(fig7: ModuleType) -> None:
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=7), rng.normal(0.5, 2.0, size=11)
    assert fig7.energy_statistic(a, b) == pytest.approx(stats.energy_distance(a, b) ** 2,
                                                        rel=1e-12)


def test_exact_energy_test_is_scipys_permutation_test(fig7: ModuleType) -> None:
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=6), rng.normal(0.8, 1.0, size=7)  # C(13, 6) = 1716 splits
    ours = fig7.energy_test(a, b, 5000, np.random.default_rng(0))
    theirs = stats.permutation_test(
        (a, b), lambda x, y: stats.energy_distance(x, y) ** 2, alternative="greater",
        permutation_type="independent", n_resamples=np.inf, vectorized=False)
    assert ours["exact"] and ours["resamples"] == 1716
    assert ours["statistic"] == pytest.approx(theirs.statistic, rel=1e-12)
    assert ours["p"] == pytest.approx(theirs.pvalue, rel=1e-12)


def test_exact_energy_test_in_2d_by_enumeration(fig7: ModuleType) -> None:
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(4, 2)), rng.normal(1.0, 1.0, size=(5, 2))
    pooled = np.vstack([a, b])

    def mean(s: np.ndarray, t: np.ndarray) -> float:
        return float(np.mean([math.dist(p, q) for p in s for q in t]))

    def stat(u: np.ndarray, v: np.ndarray) -> float:
        return 2 * mean(u, v) - mean(u, u) - mean(v, v)

    observed = stat(a, b)
    null = [stat(pooled[list(c)], pooled[[i for i in range(9) if i not in c]])
            for c in combinations(range(9), 4)]
    ours = fig7.energy_test(a, b, 10_000, np.random.default_rng(0))
    assert ours["statistic"] == pytest.approx(observed, rel=1e-12)
    assert ours["p"] == pytest.approx(np.mean(np.array(null) >= observed - 1e-12))


def test_random_energy_test_finds_a_shift_and_not_a_null(fig7: ModuleType) -> None:
    rng = np.random.default_rng(4)
    shifted = fig7.energy_test(rng.normal(size=(30, 2)), rng.normal(2.0, 1.0, size=(30, 2)),
                               999, np.random.default_rng(0))
    assert not shifted["exact"] and shifted["p"] == pytest.approx(1 / 1000)
    same = fig7.energy_test(rng.normal(size=(30, 2)), rng.normal(size=(30, 2)), 999,
                            np.random.default_rng(0))
    assert same["p"] > 0.01


def test_spread_is_numpys(fig7: ModuleType) -> None:
    values = [0.3, 0.9, 0.1, 0.5, 0.7]
    s = fig7.spread(values)
    np.testing.assert_allclose([s["mean"], s["sd"], s["iqr"], s["min"], s["max"]],
                               [0.5, float(np.std(values, ddof=1)), 0.4, 0.1, 0.9])
    assert s["n"] == 5 and not np.isfinite(fig7.spread([0.4])["sd"])
    assert fig7.spread([])["n"] == 0


def test_cell_keys_reach_beyond_the_grid(fig7: ModuleType) -> None:
    from hawks_deap.analysis.gaps import CoverageGrid

    grid = CoverageGrid.from_region(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), cell=0.25)
    keys = fig7.cell_keys(grid, np.array([[0.1, 0.6], [-0.3, 2.0], [0.99, 0.01]]))
    assert keys == [(0, 2), (-2, 8), (3, 0)]
    assert not fig7._in_region(grid, (-2, 8)) and fig7._in_region(grid, (0, 0))
    assert not fig7._in_region(grid, (3, 3))  # in the box, beyond the hull


def test_brown_forsythe_centres_each_other_pair(fig7: ModuleType) -> None:
    # two other pairs far apart but each tight: pooled raw they would look spread
    diffs = {"p": [0.1, 0.5, 0.9, 0.3], "q": [0.50, 0.51, 0.49], "r": [0.95, 0.96, 0.94],
             "skip": [0.0, 1.0]}
    out = fig7.brown_forsythe(diffs, "p", ("p", "skip"))
    pooled = [-0.0, 0.01, -0.01, 0.0, 0.01, -0.01]
    expected = stats.levene(diffs["p"], pooled, center="median")
    assert out["W"] == pytest.approx(expected.statistic) and out["larger"] is True
    assert out["n_others"] == 6 and out["pairs_pooled"] == 2
    assert np.isnan(fig7.brown_forsythe({"p": [0.2], "q": [0.1, 0.3]}, "p", ("p",))["p"])
