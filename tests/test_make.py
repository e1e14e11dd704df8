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
    assert abs(hd.evaluation.silhouette_score(X, y, metric="sqeuclidean") - 0.5) < 1e-3


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


def test_make_hawks_validates_under_its_own_names(monkeypatch):
    monkeypatch.setattr(hd.algorithms.loop, "evolve", lambda *a, **k: pytest.fail("work started"))
    cases = [  # (keyword arguments, error, the message names make_hawks' parameter)
        ({"silhouette": 1.5}, ValueError, r"silhouette must lie in \[-1, 1\], got 1.5"),
        ({"n_features": 2.5}, TypeError, "n_features must be an integer"),
        ({"return_model": "yes"}, TypeError, "return_model must be True or False"),
        ({"max_overlap": 2.0}, ValueError, r"max_overlap must lie in \[0, 1\]"),
        ({"min_eccentricity": 0.5}, ValueError, "min_eccentricity must lie in"),
        ({"random_state": -1}, ValueError, "random_state: seed must be a non-negative"),
        ({"random_state": "x"}, TypeError, "random_state: seed must be an int"),
        ({"n_samples": 40}, ValueError, r"n_samples must be >= 10 \* n_clusters = 50 "
                                        r"\(every cluster gets at least 10 points"),
        ({"n_clusters": 1}, ValueError, "n_clusters must be >= 2"),
    ]
    for kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            hd.make_hawks(**kwargs)
