import numpy as np
import pytest
import sklearn.metrics

import hawks_deap as hd


@pytest.mark.parametrize("metric", ["sqeuclidean", "euclidean"])
def test_evaluation_matches_sklearn(metric):
    p = hd.IndexProblem(300, 4, 3, target=0.3, metric=metric,
                        constraints=[hd.Overlap(max=0.1), hd.Eccentricity(min=2.0)])
    p.prepare(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for _ in range(5):
        ind = p.random_individual(rng)
        ev = p.evaluate(ind)
        X, y = p.sample(ind)
        s = sklearn.metrics.silhouette_score(X, y, metric=metric)
        rel = 1e-12 if metric == "sqeuclidean" else 1e-10
        assert ev.record["index"] == pytest.approx(s, rel=rel)
        assert ev[0] == pytest.approx(abs(0.3 - s), abs=1e-9)
        ecc = max(g.variances.max() / g.variances.min() for g in ind)
        assert ev.record["eccentricity"] == pytest.approx(ecc)
        assert ev.record["eccentricity"] == max(g.eccentricity for g in ind)
        from scipy.spatial.distance import cdist

        d = cdist(X, X, "sqeuclidean")
        np.fill_diagonal(d, np.inf)
        ov = np.mean(y[d.argmin(axis=1)] != y)  # continuous data: no ties, no duplicates
        assert ev.record["overlap"] == ov
        pen = max(0.0, ov - 0.1) ** 2 + max(0.0, 2.0 - ecc) ** 2
        assert ev.record["penalty"] == pytest.approx(pen)
        assert ev.record["feasible"] == (pen == 0)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(n_clusters=1), ValueError, "n_clusters must be >= 2, got 1"),
    (dict(n_dims=0), ValueError, "n_dims must be >= 1, got 0"),
    (dict(n_samples=50, n_clusters=6), ValueError, "n_samples must be >= n_clusters \\* min_size"),
    (dict(target=1.5), ValueError, r"target must lie in \[-1, 1\], got 1.5"),
    (dict(target=-1.01), ValueError, "target"),
    (dict(metric="cosine"), ValueError, "'sqeuclidean', 'euclidean'"),
    (dict(index="dunn_typo"), ValueError, "index"),
    (dict(n_clusters=2.5), TypeError, "n_clusters must be an integer"),
    (dict(initial_mean_upper=0), ValueError, "initial_mean_upper"),
])
def test_bad_problem_input(kwargs, exc, match):
    args = dict(n_samples=100, n_clusters=3, n_dims=2, target=0.5)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        hd.IndexProblem(**args)


@pytest.mark.parametrize("make, match", [
    (lambda: hd.Overlap(max=-0.1), r"Overlap\(max\) must lie in \[0, 1\], got -0.1"),
    (lambda: hd.Overlap(min=1.2), "Overlap"),
    (lambda: hd.Eccentricity(min=-1.0), r"Eccentricity\(min\) must lie in \[1, inf\)"),
    (lambda: hd.Overlap(), "min=... and/or max="),
    (lambda: hd.Overlap(min=0.5, max=0.1), "min"),
    (lambda: hd.Eccentricity(min=2, aggregate="mean"), "aggregate"),
])
def test_bad_constraints(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_duplicate_constraint_rejected():
    with pytest.raises(ValueError, match="overlap"):
        hd.IndexProblem(100, 3, 2, 0.5, constraints=[hd.Overlap(max=0.1), hd.Overlap(min=0.0)])


def test_eccentricity_aggregates_and_violation():
    genes = [hd.genome.Cluster([0, 0], [1.0, 4.0], np.eye(2)),
             hd.genome.Cluster([0, 0], [1.0, 1.0], np.eye(2))]
    assert hd.Eccentricity(min=1, aggregate="max").compute(genes) == 4.0
    assert hd.Eccentricity(min=1, aggregate="min").compute(genes) == 1.0
    c = hd.Overlap(max=0.1)
    assert c.violation(0.05) == 0 and c.violation(0.3) == pytest.approx(0.2)
    assert hd.Overlap(min=0.2).violation(0.05) == pytest.approx(0.15)


def test_evaluate_before_prepare_is_a_clear_error():
    p = hd.IndexProblem(100, 3, 2, 0.5)
    ind = hd.genome.Genotype([hd.genome.Cluster([0, 0], [1, 1], np.eye(2))] * 3)
    with pytest.raises(RuntimeError, match="prepare"):
        p.evaluate(ind)
