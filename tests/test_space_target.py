"""Instance-space targets (issue 35, item 2): evolve datasets toward a point of a fitted
instance space; the record's coordinates are the space's own transform of the dataset."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap.analysis.features import InstanceSpace, features_table
from hawks_deap.problems import SpaceTargetProblem


@pytest.fixture(scope="module")
def space():
    datasets = [hd.make_hawks(n_samples=200, n_clusters=3, silhouette=s, generations=4,
                              random_state=i, return_model=True)[2]
                for i, s in enumerate([0.2, 0.4, 0.6, 0.8, 0.3, 0.7])]
    table = features_table(datasets)
    return InstanceSpace().fit(table), table


def test_the_record_is_the_spaces_transform_and_the_distance_falls(space):
    fitted, table = space
    point = fitted.transform(table).mean(axis=0) + np.array([0.25, -0.15])
    problem = fitted.target_problem(point, 200, 3, 2, constraints=[hd.Overlap(max=0.2)])
    result = hd.evolve(problem, population_size=8, generations=15, seed=1)
    best = result.best
    coords = np.array([best.record["space_0"], best.record["space_1"]])
    expected = fitted.transform(features_table([result.best_dataset()]))[0]
    np.testing.assert_allclose(coords, expected, rtol=0, atol=1e-9)
    assert best.fitness.values[0] == pytest.approx(np.linalg.norm(coords - point), abs=1e-12)
    # the coordinates' distance is the fitness exactly, and there is no silhouette target
    assert best.fitness.values[0] == result.problem.distance(
        {n: best.record[f"feature_{n}"] for n in result.problem.targets})
    assert "index" not in best.record
    assert best.fitness.values[0] < result.logbook[0]["fitness_best"]


def test_constants_of_the_run_enter_the_projection(space):
    fitted, _ = space
    problem = fitted.target_problem([0.0, 0.0], 200, 3, 2)
    assert set(problem.targets) <= {"connectivity", "eccentricity", "silhouette",
                                    "silhouette_std"}
    problem.prepare(np.random.default_rng(0))
    individual = problem.random_individual(np.random.default_rng(1))
    values = problem.feature_values(individual)
    X, y = problem.sample(individual)
    features = hd.analysis.problem_features(X, y)
    full = np.array([[features[n] for n in fitted.feature_names]])
    np.testing.assert_allclose(problem.project(values), fitted.transform(full)[0],
                               rtol=0, atol=1e-9)


def test_bad_spaces_are_refused_before_work():
    names = ["silhouette", "connectivity"]
    good = {"feature_names": names, "mean": [0, 0], "scale": [1, 1],
            "components": [[1, 0], [0, 1]]}
    SpaceTargetProblem(100, 2, 2, [0, 0], **good)
    with pytest.raises(ValueError, match="point must be 2 finite"):
        SpaceTargetProblem(100, 2, 2, [0, 0, 0], **good)
    with pytest.raises(ValueError, match="scale must be > 0"):
        SpaceTargetProblem(100, 2, 2, [0, 0], **{**good, "scale": [1, 0]})
    with pytest.raises(ValueError, match="components must have shape"):
        SpaceTargetProblem(100, 2, 2, [0, 0], **{**good, "components": [[1, 0, 0]]})
    with pytest.raises(ValueError, match="feature_names"):
        SpaceTargetProblem(100, 2, 2, [0, 0], **{**good, "feature_names": ["nope", "sil"]})
    with pytest.raises(TypeError, match="no targets"):
        SpaceTargetProblem(100, 2, 2, [0, 0], targets={"silhouette": 0.5}, **good)
    with pytest.raises(RuntimeError, match="not fitted"):
        InstanceSpace().target_problem([0, 0], 100, 2, 2)


def test_it_pickles_and_describes_itself(space):
    fitted, _ = space
    problem = fitted.target_problem([0.1, 0.2], 200, 3, 2)
    again = pickle.loads(pickle.dumps(problem))
    assert again.parameters() == problem.parameters()
    assert problem.parameters()["mode"] == "space-target"
    assert problem.parameters()["point"] == [0.1, 0.2]


def test_a_feature_no_axis_loads_is_not_needed(space):
    """A targetable feature constant over the collection gets no loading: the run neither
    measures nor needs it (it used to raise KeyError in the projection)."""
    fitted, table = space
    data = fitted.to_dict()
    column = data["feature_names"].index("connectivity")
    components = np.array(data["components"])
    components[:, column] = 0.0
    q, _ = np.linalg.qr(components.T)  # orthonormal rows again, connectivity still unloaded
    axes = q.T * np.sign(np.diag(q.T @ components.T))[:, None]
    axes[:, column] = 0.0  # (QR leaves rounding there)
    data["components"] = axes.tolist()
    loaded = InstanceSpace.from_dict(data)
    problem = loaded.target_problem([0.0, 0.0], 200, 3, 2)
    assert "connectivity" not in problem.targets
    result = hd.evolve(problem, population_size=6, generations=3, seed=0)
    expected = loaded.transform(features_table([result.best_dataset()]))[0]
    coords = [result.best.record["space_0"], result.best.record["space_1"]]
    np.testing.assert_allclose(coords, expected, rtol=0, atol=1e-9)


def test_a_saved_space_must_be_a_pca(space):
    fitted, _ = space
    good = fitted.to_dict()
    InstanceSpace.from_dict(good)
    for change, match in (({"components": [[1e300] * 7, [0.0] * 6 + [1.0]]}, "orthonormal"),
                          ({"explained_variance_ratio": [-0.5, 0.2]}, "shares of the"),
                          ({"version": True}, "version True"),
                          ({"n_components": 2.0}, "n_components 2.0")):
        with pytest.raises(ValueError, match=match):
            InstanceSpace.from_dict({**good, **change})

