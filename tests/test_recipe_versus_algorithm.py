"""Backs the "A Versus algorithm" recipe of docs/ARCHITECTURE.md (section "Recipes").

A researcher adds their own clustering algorithm from their own code, through the public
extension point `hawks_deap.clustering.register_algorithm`, and with no other edit it is
a valid name everywhere an algorithm is named: the registry, `VersusProblem` and
`evolve`, the ``versus`` command (positional WINNER and ``--config``), suite grids and
the features' performance table (`performance_table` and ``features --algorithms``).
"""

import csv
import json

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

import hawks_deap as hd
from hawks_deap import clustering
from hawks_deap.analysis.features import performance_table
from hawks_deap.campaign.suite import load_suite, run_suite
from hawks_deap.cli import main

NAME = "first-coordinate"

#: Every call of `first_coordinate` made in this process.
CALLS: list[int] = []


def first_coordinate(X, n_clusters, seed):
    """The researcher's algorithm: K equal slices of the points sorted by x0."""
    CALLS.append(len(X))
    order = np.argsort(np.asarray(X)[:, 0], kind="stable")
    labels = np.empty(len(X), dtype=int)
    for k, chunk in enumerate(np.array_split(order, n_clusters)):
        labels[chunk] = k
    return labels


@pytest.fixture
def registered(monkeypatch):
    """Register `first_coordinate` as NAME; the global registry is restored afterwards."""
    assert NAME not in clustering.available_algorithms()  # no leak from another test
    monkeypatch.setattr(clustering, "_REGISTRY", dict(clustering._REGISTRY))
    CALLS.clear()
    return clustering.register_algorithm(NAME, first_coordinate)


def own_ari(X, y):
    """The ARI of the researcher's partition of X against the true labels."""
    return adjusted_rand_score(y, first_coordinate(X, len(np.unique(y)), 0))


def blobs():
    """Three clusters stacked along x1: the x0 split cannot find them, K-Means can."""
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(size=(20, 2)) * 0.3 + [0.0, 6.0 * k] for k in range(3)])
    return X, np.repeat(np.arange(3), 20)


def versus_args(*args, out):
    return ["versus", *args, "--n-samples", "60", "--n-clusters", "3", "--generations", "2",
            "--population-size", "4", "--out", str(out), "--quiet"]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def check_saved_run(folder, *, partitions=True):
    """A saved Versus run's winner is the researcher's: metadata, partition and score.

    The ``versus`` command saves both partitions; a suite's runs do not.
    """
    metadata = json.loads((folder / "metadata.json").read_text())
    problem = metadata["problem"]
    assert problem["winner"] == NAME and problem["loser"] == "single-linkage"
    assert problem["winner_settings"] == {
        "callable": f"{first_coordinate.__module__}.first_coordinate"}
    dataset = hd.Dataset.load(folder)
    if partitions:
        winner = [int(row["winner"]) for row in read_csv(folder / "partitions.csv")]
        assert adjusted_rand_score(winner, first_coordinate(dataset.X, 3, 0)) == 1.0
    assert metadata["record"]["winner_score"] == pytest.approx(own_ari(dataset.X, dataset.y))
    return metadata


def test_registry_lists_and_returns_it(registered):
    assert clustering.available_algorithms()[-1] == NAME
    assert clustering.available_algorithms(settings=True)[NAME] == registered.settings
    algorithm = clustering.get_algorithm(NAME)
    assert algorithm.name == NAME
    X, y = blobs()
    np.testing.assert_array_equal(algorithm(X, 3, seed=0), first_coordinate(X, 3, 0))
    assert len(CALLS) == 2  # it ran the researcher's function


def test_versus_problem_and_evolve(registered):
    problem = hd.VersusProblem(winner=NAME, loser="single-linkage", n_samples=60,
                               n_clusters=3, n_dims=2)
    assert problem.winner.name == NAME
    result = hd.evolve(problem, population_size=4, generations=2, seed=0)
    X, y = result.best_dataset().X, result.best_dataset().y
    record = result.best.record
    assert record["winner_score"] == pytest.approx(own_ari(X, y))
    assert record["winner_score"] != pytest.approx(record["loser_score"])
    # the same run evaluated in this process calls the function, with the same result
    CALLS.clear()
    serial = hd.evolve(problem, population_size=4, generations=2, seed=0, n_jobs=1)
    assert len(CALLS) >= 4 and set(CALLS) == {60}
    np.testing.assert_array_equal(serial.best_dataset().X, X)


def test_versus_command(registered, tmp_path):
    assert main(versus_args(NAME, "single-linkage", out=tmp_path / "run")) == 0
    assert CALLS
    metadata = check_saved_run(tmp_path / "run")
    assert metadata["command"]["settings"]["winner"] == NAME


def test_versus_command_with_config_file(registered, tmp_path):
    toml = tmp_path / "versus.toml"
    toml.write_text(f'[dataset]\nn_samples = 60\nn_clusters = 3\n\n'
                    f'[objective]\nwinner = "{NAME}"\nloser = "single-linkage"\n\n'
                    f'[ga]\ngenerations = 2\npopulation_size = 4\n')
    out = tmp_path / "run"
    assert main(["versus", "--config", str(toml), "--out", str(out), "--quiet"]) == 0
    assert CALLS
    metadata = check_saved_run(out)
    assert metadata["command"]["settings"]["winner"] == NAME


GRID = f"""
[suite]
runs = 1
mode = "versus"

[dataset]
n_samples = 60
n_clusters = 3

[objective]
winner = ["{NAME}", "kmeans++"]
loser = "single-linkage"

[ga]
generations = 2
population_size = 4
"""


def test_suite_grid(registered, tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID)
    suite = load_suite(grid)
    assert [c["winner"] for c in suite.configurations] == [NAME, "kmeans++"]
    summary = run_suite(suite, tmp_path / "suite", workers=1)
    rows = {row["winner"]: row for row in read_csv(summary)}
    assert set(rows) == {NAME, "kmeans++"}
    assert rows[NAME]["winner_score"] != rows["kmeans++"]["winner_score"]
    metadata = check_saved_run(tmp_path / "suite" / rows[NAME]["path"], partitions=False)
    assert float(rows[NAME]["winner_score"]) == pytest.approx(
        metadata["record"]["winner_score"])
    assert CALLS


def test_suite_grid_in_worker_processes(registered, tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID)
    # the suite's spawned workers start with the built-in registry: the algorithm travels
    # with its tasks (clustering.user_algorithms) and is installed where they run
    summary = run_suite(load_suite(grid), tmp_path / "suite", workers=2)
    rows = read_csv(summary)
    assert {row["winner"] for row in rows} == {NAME, "kmeans++"}
    mine = next(row for row in rows if row["winner"] == NAME)
    run = hd.Dataset.load(tmp_path / "suite" / mine["path"])
    assert float(mine["winner_score"]) == pytest.approx(own_ari(run.X, run.y))


def test_performance_table_and_features_command(registered, tmp_path, capsys):
    X, y = blobs()
    table = performance_table([(X, y)], [NAME, "kmeans++"])
    assert table.columns == (NAME, "kmeans++")
    mine, kmeans = table.values[0]
    assert mine == pytest.approx(own_ari(X, y)) and mine < 0.5 < kmeans
    assert CALLS

    hd.Dataset(X, y).save(tmp_path / "blobs")
    capsys.readouterr()
    assert main(["features", str(tmp_path / "blobs"), "--algorithms", f"{NAME},kmeans++",
                 "--format", "csv"]) == 0
    (row,) = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert float(row[f"ari_{NAME}"]) == pytest.approx(mine)
    assert float(row["ari_kmeans++"]) == pytest.approx(kmeans)
