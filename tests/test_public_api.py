"""The public API: a small top level, every other name in its sub-package, and one
silhouette meaning (scikit-learn's) behind every default."""

import importlib
import inspect

import numpy as np
import pytest
import sklearn.metrics

import hawks_deap as hd

TOP_LEVEL = {
    "Dataset", "Eccentricity", "IndexProblem", "MultiIndexProblem", "MultiObjectiveProblem",
    "MultiVersusProblem", "Overlap", "Result", "VersusProblem", "evolve", "make_hawks",
    "make_toolbox", "resume",
}
SUB_PACKAGES = {
    "algorithms", "analysis", "clustering", "evaluation", "genome", "io", "metrics",
    "operators", "presets", "problems",
}
#: Names the top level held before issue 32 (item 4), and their home module.
MOVED = {
    **dict.fromkeys(["Cluster", "Evaluation", "Genotype", "IndexFitness", "Layout",
                     "MultiObjectiveFitness", "RecordFitness", "VersusFitness", "clone",
                     "genotype_equal"], "genome"),
    **dict.fromkeys(["ALGORITHMS", "GenerationState", "ProblemPool", "final_fittest",
                     "select_best"], "algorithms"),
    **dict.fromkeys(["Evaluator", "nearest_neighbour_overlap", "silhouette_samples",
                     "silhouette_score"], "evaluation"),
    **dict.fromkeys(["InstanceSpace", "performance_table", "problem_features",
                     "friedman_nemenyi"], "analysis"),
    "Constraint": "problems",
    "Problem": "problems",
}


def test_the_top_level_is_the_small_set():
    names = {n for n in dir(hd) if not n.startswith("_")}
    objects = {n for n in names if not inspect.ismodule(getattr(hd, n))}
    assert objects == TOP_LEVEL
    assert len(objects) <= 15
    assert set(hd.__all__) == TOP_LEVEL | SUB_PACKAGES
    assert len(hd.__all__) == len(set(hd.__all__))
    for name in SUB_PACKAGES:
        assert inspect.ismodule(getattr(hd, name)), name
        assert getattr(hd, name).__name__ == f"hawks_deap.{name}"
    assert isinstance(hd.__version__, str)


@pytest.mark.parametrize("name", sorted(MOVED))
def test_a_moved_name_lives_in_its_sub_package_only(name):
    module = importlib.import_module(f"hawks_deap.{MOVED[name]}")
    assert name in module.__all__
    assert getattr(module, name) is not None
    assert not hasattr(hd, name)


def test_problem_pool_is_public_in_algorithms():
    from hawks_deap.algorithms.pool import ProblemPool

    assert hd.algorithms.ProblemPool is ProblemPool


def random_data(seed, n=60, d=3, k=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + rng.integers(0, 3, size=(n, 1))
    y = np.r_[np.arange(k), rng.integers(0, k, size=n - k)]  # every label present
    return X, rng.permutation(y)


@pytest.mark.parametrize("seed", range(5))
def test_every_default_silhouette_is_scikit_learns(seed):
    X, y = random_data(seed)
    expected = sklearn.metrics.silhouette_score(X, y)
    assert hd.metrics.silhouette(X, y) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert hd.metrics.get("silhouette_score")(X, y) == pytest.approx(expected, rel=1e-12,
                                                                     abs=1e-15)
    assert hd.evaluation.silhouette_score(X, y) == pytest.approx(expected, rel=1e-12,
                                                                 abs=1e-15)
    np.testing.assert_allclose(hd.evaluation.silhouette_samples(X, y),
                               sklearn.metrics.silhouette_samples(X, y),
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_hawks_silhouette_is_the_squared_euclidean_one_by_name(seed):
    X, y = random_data(seed)
    expected = sklearn.metrics.silhouette_score(X, y, metric="sqeuclidean")
    assert expected != pytest.approx(sklearn.metrics.silhouette_score(X, y), rel=1e-6)
    assert hd.evaluation.silhouette_score(X, y, metric="sqeuclidean") == pytest.approx(
        expected, rel=1e-12, abs=1e-15)
    assert hd.metrics.silhouette(X, y, metric="sqeuclidean") == pytest.approx(
        expected, rel=1e-12, abs=1e-15)
    # what Index mode targets and the features report by default: HAWKS' own
    assert hd.analysis.features.problem_features(X, y)["silhouette"] == pytest.approx(
        expected, rel=1e-12, abs=1e-15)


def test_index_mode_still_targets_the_squared_euclidean_silhouette():
    assert inspect.signature(hd.IndexProblem).parameters["metric"].default == "sqeuclidean"
    result = hd.evolve(hd.IndexProblem(120, 3, 2, target=0.5), population_size=4,
                       generations=2, seed=0)
    dataset = result.best_dataset()
    assert result.best.record["index"] == pytest.approx(
        hd.evaluation.silhouette_score(dataset.X, dataset.y, metric="sqeuclidean"),
        rel=1e-12)
