"""benchmarks/fidelity_s5.py (the paper's Fig. S-5) on a tiny collection: its outputs,
and its statistics against numpy's least squares, scipy's Spearman and sklearn's PCA."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from hawks_deap.analysis.features import FEATURE_NAMES
from hawks_deap.campaign import suite as hs
from hawks_deap.io import Dataset

ROOT = Path(__file__).resolve().parents[1]
S5 = tuple[Path, dict[str, Any], str]  # (output folder, its JSON, the printed text)
VALUES = ("best ARI", *FEATURE_NAMES)


@pytest.fixture(scope="module")
def s5(tmp_path_factory: pytest.TempPathFactory) -> S5:
    """The script's JSON on a 6-run suite (N = 120, 3 generations) and 6 saved datasets."""
    root = tmp_path_factory.mktemp("s5")
    (root / "grid.toml").write_text(
        '[suite]\nruns = 1\nseed = 0\n[dataset]\nn_samples = 120\n'
        'n_clusters = [2, 4, 6]\nn_dims = [2, 3]\n[ga]\ngenerations = 3\n')
    hs.run_suite(hs.load_suite(root / "grid.toml"), root / "suite", workers=2)
    from sklearn.datasets import make_blobs

    for i in range(6):  # spread of separations, so that the best ARI varies
        X, y = make_blobs(n_samples=90 + 10 * i, centers=2 + i % 3, n_features=2 + i % 2,
                          cluster_std=0.5 + 0.6 * i, random_state=i)
        Dataset(X, y).save(root / "other" / f"blobs{i}")
    out = root / "out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fidelity_s5.py"), "--suite",
         str(root / "suite"), "--batteries", str(root / "other"), "--out", str(out),
         "--quick"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return out, json.loads((out / "fidelity_s5.json").read_text()), proc.stdout


def test_outputs_exist_and_count_every_dataset(s5: S5) -> None:
    out, result, stdout = s5
    assert (out / "fidelity_s5.md").read_text().strip() in stdout
    image = (out / "fidelity_s5.png").read_bytes()
    assert image[:8] == b"\x89PNG\r\n\x1a\n" and len(image) > 10_000
    assert result["n"] == {"suite": 6, "other": 6} and result["n_hawks"] == 6
    assert [r["hawks"] for r in result["rows"]] == [True] * 6 + [False] * 6
    assert result["skipped"] == []
    for row in result["rows"]:  # the best ARI is the best of the algorithms' ARIs
        assert row["best ARI"] == max(row["ari"].values())
        assert set(row["ari"]) == {"kmeans++", "average-linkage"}
    assert len(result["verdicts"]) == 4 and "Rules:" in stdout


def test_coordinates_are_the_pca_of_the_standardised_features(s5: S5) -> None:
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import StandardScaler

    rows = s5[1]["rows"]
    feats = np.array([[r[f] for f in FEATURE_NAMES] for r in rows])
    expected = PCA(2).fit_transform(StandardScaler().fit_transform(feats))
    coords = np.array([[r["pc1"], r["pc2"]] for r in rows])
    signs = np.sign(np.sum(expected * coords, axis=0))  # an axis' sign is a convention
    np.testing.assert_allclose(coords, expected * signs, atol=1e-8)


def test_r2_and_f_test_are_those_of_least_squares(s5: S5) -> None:
    result = s5[1]
    rows = result["rows"]
    n = len(rows)
    design = np.array([[1.0, r["pc1"], r["pc2"]] for r in rows])
    for value in VALUES:
        y = np.array([r[value] for r in rows])
        _, ss_res, *_ = np.linalg.lstsq(design, y, rcond=None)
        ss_tot = np.sum((y - y.mean()) ** 2)
        r2 = 1 - ss_res[0] / ss_tot
        f_stat = ((ss_tot - ss_res[0]) / 2) / (ss_res[0] / (n - 3))
        written = result["gradients"][value]
        assert written["n"] == n
        np.testing.assert_allclose(written["r2"], r2, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(written["p"], stats.f.sf(f_stat, 2, n - 3), rtol=1e-6)
        kind = ("gradient" if r2 >= 0.3 else "weak") if written["p"] < 0.01 else "none"
        assert written["kind"] == kind
    ari = result["gradients"]["best ARI"]["kind"]
    verdict = {"gradient": "reproduced", "weak": "partly"}.get(ari, "not reproduced")
    assert result["verdicts"][1]["verdict"] == verdict


def test_associations_are_scipys_spearman(s5: S5) -> None:
    result = s5[1]
    for scope, hawks_only in (("all", False), ("HAWKS", True)):
        rows = [r for r in result["rows"] if r["hawks"] or not hawks_only]
        best = [r["best ARI"] for r in rows]
        for feature, sign in (("silhouette", 1), ("silhouette_std", -1), ("eccentricity", -1)):
            expected = stats.spearmanr(best, [r[feature] for r in rows])
            written = result["associations"][scope][feature]
            assert written["n"] == len(rows)
            np.testing.assert_allclose([written["rho"], written["p"]],
                                       [expected.statistic, expected.pvalue], rtol=1e-9)
            holds = bool(expected.pvalue < 0.01 and np.sign(expected.statistic) == sign)
            assert written["holds"] == holds
