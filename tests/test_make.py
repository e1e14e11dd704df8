"""`make_hawks`: scikit-learn's make_* convention over the Index-mode generator."""

import subprocess
import sys

import numpy as np
import pytest

import hawks_deap as hd


def test_make_hawks_returns_x_y_deterministically_and_hits_the_target():
    X, y = hd.make_hawks(n_samples=1000, n_features=2, n_clusters=5, silhouette=0.5,
                         random_state=0)
    assert X.shape == (1000, 2) and y.shape == (1000,) and y.dtype == np.int64
    assert sorted(set(y.tolist())) == [0, 1, 2, 3, 4]
    again, y2 = hd.make_hawks(n_samples=1000, n_features=2, n_clusters=5, silhouette=0.5,
                              random_state=0)
    assert again.tobytes() == X.tobytes() and np.array_equal(y, y2)
    assert abs(hd.silhouette_score(X, y) - 0.5) < 1e-3


def test_make_hawks_is_generate_with_random_state_as_seed(tmp_path):
    X, y, dataset = hd.make_hawks(n_samples=300, n_clusters=3, silhouette=0.4,
                                  generations=10, random_state=3, return_model=True)
    r = subprocess.run([sys.executable, "-m", "hawks_deap.cli", "generate", "--n-samples",
                        "300", "--n-clusters", "3", "--target", "0.4", "--generations", "10",
                        "--seed", "3", "--quiet", "--out", str(tmp_path / "run")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    saved = hd.Dataset.load(tmp_path / "run")
    assert saved.X.tobytes() == X.tobytes() and np.array_equal(saved.y, y)
    assert isinstance(dataset, hd.Dataset) and len(dataset.genotype) == 3


def test_make_hawks_validates_like_everything_else():
    with pytest.raises(ValueError, match="target"):
        hd.make_hawks(silhouette=1.5)
    with pytest.raises(TypeError, match="n_features"):
        hd.make_hawks(n_features=2.5)
    with pytest.raises(TypeError, match="return_model"):
        hd.make_hawks(return_model="yes")
    with pytest.raises(ValueError, match="Overlap"):
        hd.make_hawks(max_overlap=2.0)
