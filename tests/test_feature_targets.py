"""FeatureTargetProblem: Index mode targeting several problem features (issue 35, item 1)."""

from __future__ import annotations

import math
import pickle
import statistics

import numpy as np
import pytest
from sklearn.metrics import silhouette_samples as sk_silhouette_samples

import hawks_deap as hd
from hawks_deap.analysis.features import Table, problem_features
from hawks_deap.problems import FeatureTargetProblem, IndexProblem

ALL4 = {"silhouette": 0.5, "silhouette_std": 0.2, "connectivity": 0.3, "eccentricity": 3.0}


def _prepared(problem, seed=0, n=4):
    problem.prepare(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 100)
    return [problem.random_individual(rng) for _ in range(n)]


def test_the_feature_functions_moved_below_the_problems_and_are_re_exported():
    import hawks_deap.analysis.features as analysis_features
    import hawks_deap.metrics.features as metrics_features

    for name in ("FEATURE_NAMES", "problem_features", "connectivity", "average_eccentricity",
                 "size_entropy"):
        assert getattr(analysis_features, name) is getattr(metrics_features, name)
        assert name in analysis_features.__all__


def test_the_record_holds_the_features_of_the_returned_dataset():
    problem = FeatureTargetProblem(300, 3, 2, ALL4, constraints=[hd.Overlap(max=0.1)])
    result = hd.evolve(problem, population_size=6, generations=4, seed=1)
    data = result.best_dataset()
    expected = problem_features(data.X, data.y)
    record = result.best.record
    # exact: the same functions on bit-identical points and labels
    for name in ("silhouette_std", "connectivity", "eccentricity"):
        assert record[f"feature_{name}"] == expected[name], name
    # the engine sums the mean silhouette in its own order: equal to rounding
    assert record["feature_silhouette"] == pytest.approx(expected["silhouette"], rel=1e-12,
                                                         abs=1e-15)
    assert record["index"] == record["feature_silhouette"]
    # and an independent oracle for the silhouette widths (scikit-learn's)
    widths = sk_silhouette_samples(data.X, data.y, metric="sqeuclidean")
    assert record["feature_silhouette_std"] == pytest.approx(widths.std(), rel=1e-10)
    assert record["feature_silhouette"] == pytest.approx(widths.mean(), rel=1e-10)


def test_the_eccentricity_is_the_points_not_the_genes_ratio():
    problem = FeatureTargetProblem(300, 3, 2, {"eccentricity": 2.0})
    (ind,) = _prepared(problem, n=1)
    record = problem.evaluate(ind).record
    genes = float(np.mean([g.eccentricity for g in ind]))
    X, y = problem.sample(ind)
    assert record["feature_eccentricity"] == problem_features(X, y)["eccentricity"]
    assert record["feature_eccentricity"] != genes  # a sample's ratio is not the law's


def test_the_fitness_is_the_weighted_standardised_distance_by_hand():
    targets = {"silhouette": 0.4, "connectivity": 0.2, "eccentricity": 2.5}
    scale = {"silhouette": 0.2, "connectivity": 0.5, "eccentricity": 4.0, "entropy": 0.1}
    weights = {"silhouette": 2.0, "eccentricity": 0.5}  # connectivity: 1
    problem = FeatureTargetProblem(250, 4, 2, targets, scale=scale, weights=weights)
    for ind in _prepared(problem):
        evaluation = problem.evaluate(ind)
        r = evaluation.record
        by_hand = math.sqrt(2.0 * ((r["feature_silhouette"] - 0.4) / 0.2) ** 2
                            + 1.0 * ((r["feature_connectivity"] - 0.2) / 0.5) ** 2
                            + 0.5 * ((r["feature_eccentricity"] - 2.5) / 4.0) ** 2)
        assert evaluation[0] == pytest.approx(by_hand, rel=1e-14)


def test_a_reference_table_scales_by_its_population_standard_deviations():
    rows = [[0.1, 2.0], [0.3, 5.0], [0.8, 3.0]]
    table = Table(("a", "b", "c"), ("silhouette", "eccentricity"), np.array(rows))
    problem = FeatureTargetProblem(200, 3, 2, {"silhouette": 0.5, "eccentricity": 2.0},
                                   scale=table)
    assert problem.scale["silhouette"] == pytest.approx(statistics.pstdev([0.1, 0.3, 0.8]))
    assert problem.scale["eccentricity"] == pytest.approx(statistics.pstdev([2.0, 5.0, 3.0]))
    constant = Table(("a", "b"), ("silhouette",), np.array([[0.5], [0.5]]))
    assert FeatureTargetProblem(200, 3, 2, {"silhouette": 0.5},
                                scale=constant).scale == {"silhouette": 1.0}


@pytest.mark.parametrize("metric", ["sqeuclidean", "euclidean"])
def test_a_silhouette_target_alone_is_index_mode_to_the_bit(metric):
    index = IndexProblem(400, 4, 2, 0.35, metric=metric, constraints=[hd.Overlap(max=0.1)])
    feature = FeatureTargetProblem(400, 4, 2, {"silhouette": 0.35}, metric=metric,
                                   constraints=[hd.Overlap(max=0.1)])
    for a, b in zip(_prepared(index, n=6), _prepared(feature, n=6), strict=True):
        ea, eb = index.evaluate(a), feature.evaluate(b)
        assert tuple(ea) == tuple(eb)
        assert eb.record["index"] == ea.record["index"]
        assert eb.record["overlap"] == ea.record["overlap"]
    assert feature.mutation_context() == index.mutation_context() == {"target": 0.35,
                                                                   "higher_is_better": True}


def test_a_silhouette_run_returns_index_modes_dataset():
    kwargs = dict(population_size=6, generations=5, seed=7, mean_mutation="pso-informed")
    a = hd.evolve(IndexProblem(300, 3, 2, 0.5, constraints=[hd.Overlap(max=0.1)]), **kwargs)
    b = hd.evolve(FeatureTargetProblem(300, 3, 2, {"silhouette": 0.5},
                                       constraints=[hd.Overlap(max=0.1)]), **kwargs)
    assert a.best.fitness.values == b.best.fitness.values
    np.testing.assert_array_equal(a.best_dataset().X, b.best_dataset().X)


def test_a_run_moves_several_features_toward_their_targets():
    targets = {"connectivity": 0.05, "eccentricity": 4.0, "silhouette_std": 0.15}
    problem = FeatureTargetProblem(250, 3, 2, targets)
    result = hd.evolve(problem, population_size=8, generations=25, seed=5)
    start = result.logbook[0]["fitness_best"]  # the initial population's best distance
    final = result.best.fitness.values[0]
    assert final < 0.5 * start
    data = result.best_dataset()
    feats = problem_features(data.X, data.y)
    assert final == pytest.approx(math.sqrt(sum((feats[n] - t) ** 2
                                                for n, t in targets.items())), rel=1e-12)


def test_make_toolbox_and_pickling():
    problem = FeatureTargetProblem(200, 3, 2, {"connectivity": 0.1, "silhouette": 0.6},
                                   constraints=[hd.Overlap(max=0.2)])
    toolbox = hd.make_toolbox(problem, seed=0)
    population = toolbox.population(n=4)
    for ind, fit in zip(population, toolbox.map(toolbox.evaluate, population), strict=True):
        ind.fitness.values = fit
    assert all(ind.fitness.valid for ind in population)
    copy = pickle.loads(pickle.dumps(toolbox.problem))
    for ind in population:
        assert tuple(copy.evaluate(ind)) == tuple(toolbox.problem.evaluate(ind))
    assert repr(copy) == repr(toolbox.problem)
    assert copy.parameters() == toolbox.problem.parameters()
    assert copy.parameters()["mode"] == "feature-target"


def test_informed_mutation_needs_a_silhouette_target():
    problem = FeatureTargetProblem(200, 3, 2, {"connectivity": 0.1})
    assert problem.mutation_context() == {}
    with pytest.raises(ValueError, match="pso-informed"):
        hd.evolve(problem, population_size=4, generations=1, seed=0,
                  mean_mutation="pso-informed")


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(targets=[("silhouette", 0.5)]), TypeError, "targets must be a mapping"),
    (dict(targets={}), ValueError, "at least one feature"),
    (dict(targets={"n_clusters": 3}), ValueError, r"targets\['n_clusters'\] cannot"),
    (dict(targets={"dimensionality": 2}), ValueError, "n_dims"),
    (dict(targets={"entropy": 0.9}), ValueError, "constant of the run"),
    (dict(targets={"silhoutte": 0.5}), ValueError, "unknown feature, 'silhoutte'"),
    (dict(targets={"silhouette": 1.5}), ValueError, r"targets\['silhouette'\]"),
    (dict(targets={"silhouette": "0.5"}), TypeError, r"targets\['silhouette'\]"),
    (dict(targets={"eccentricity": 0.5}), ValueError, r"targets\['eccentricity'\]"),
    (dict(targets={"connectivity": 3.0}), ValueError, r"targets\['connectivity'\]"),
    (dict(targets={"silhouette_std": -0.1}), ValueError, "silhouette_std"),
    (dict(targets={"silhouette": 0.5}, scale={"eccentricity": 1.0}), ValueError, "missing"),
    (dict(targets={"silhouette": 0.5}, scale={"silhouette": 0.0}), ValueError, "scale"),
    (dict(targets={"silhouette": 0.5}, scale=0.2), TypeError, "scale must be"),
    (dict(targets={"silhouette": 0.5}, weights={"connectivity": 1.0}), ValueError,
     "not targeted, 'connectivity'"),
    (dict(targets={"silhouette": 0.5}, weights={"silhouette": -1.0}), ValueError, "weights"),
    (dict(targets={"silhouette": 0.5}, weights={"silhouette": 0.0}), ValueError, "all be 0"),
    (dict(targets={"connectivity": 0.5}, metric="euclidean"), ValueError, "no silhouette"),
    (dict(targets={"connectivity": 0.5}, n_neighbors=200), ValueError, "n_neighbors"),
    (dict(targets={"eccentricity": 2.0}, variance_kept=0.0), ValueError, "variance_kept"),
    (dict(targets={"silhouette": 0.5}, evaluator="slow"), ValueError, "evaluator"),
])
def test_bad_arguments_are_refused_by_name(kwargs, error, match):
    with pytest.raises(error, match=match):
        FeatureTargetProblem(200, 3, 2, **kwargs)


def test_a_reference_table_without_a_targeted_column_is_refused():
    table = Table(("a", "b"), ("silhouette",), np.array([[0.1], [0.2]]))
    with pytest.raises(ValueError, match="no column 'connectivity'"):
        FeatureTargetProblem(200, 3, 2, {"connectivity": 0.1}, scale=table)
    short = Table(("a",), ("silhouette",), np.array([[0.1]]))
    with pytest.raises(ValueError, match="at least 2 rows"):
        FeatureTargetProblem(200, 3, 2, {"silhouette": 0.1}, scale=short)
