"""A researcher's own clustering algorithm, named by an import path or a plugin.

Named the same way on the command line, in TOML, in suite grids and in Python; resolved
alike in worker processes and dask workers (so results do not depend on where a task
runs); refused before any work when it cannot be resolved, with the reason.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from sklearn.cluster import AgglomerativeClustering

import hawks_deap.campaign.suite as hs
import hawks_deap.clustering as hc
from hawks_deap.clustering import (
    ClusteringAlgorithm,
    algorithm_identity,
    available_algorithms,
    get_algorithm,
    register_algorithm,
)

MY_ALGO = '''
from sklearn.cluster import AgglomerativeClustering


class MyAlgo(AgglomerativeClustering):
    """Ward linkage, as a researcher's own estimator class."""

    def __init__(self, n_clusters=2, linkage="ward"):
        super().__init__(n_clusters=n_clusters, linkage=linkage)


INSTANCE = AgglomerativeClustering(linkage="complete")


def factory():
    return AgglomerativeClustering(linkage="average")


def first_half(X, n_clusters, seed):
    """A function func(X, n_clusters, seed) -> labels."""
    import numpy as np

    return (np.arange(len(X)) >= len(X) // 2).astype(int)


def broken_factory():
    raise RuntimeError("no licence server")


def zeroes_X(X, n_clusters, seed):
    """Writes into its input, as careless code may."""
    import numpy as np

    X *= 0
    return np.arange(len(X)) % n_clusters


def one_argument(X):
    return [0] * len(X)


def four_arguments(X, n_clusters, seed, extra):
    return [0] * len(X)


class NotAnEstimator:
    pass
'''


@pytest.fixture
def my_pkg(tmp_path, monkeypatch):
    """A package ``my_pkg`` with the module ``my_pkg.algo``, importable from tmp_path."""
    package = tmp_path / "my_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "algo.py").write_text(MY_ALGO)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m == "my_pkg" or m.startswith("my_pkg.")]:
        del sys.modules[name]
    hc._spec._RESOLVED.clear()


def blobs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    X = np.vstack([c + rng.normal(size=(n // 3, 2)) for c in centres])
    return X, np.repeat(np.arange(3), n // 3)


@pytest.mark.parametrize("attr, linkage", [("MyAlgo", "ward"), ("INSTANCE", "complete"),
                                           ("factory", "average")])
def test_an_import_path_names_a_class_an_instance_or_a_factory(my_pkg, attr, linkage):
    X, _ = blobs()
    algorithm = get_algorithm(f"my_pkg.algo:{attr}")
    assert algorithm.name == f"my_pkg.algo:{attr}"
    assert algorithm.settings["linkage"] == linkage
    expected = AgglomerativeClustering(n_clusters=3, linkage=linkage).fit_predict(X)
    np.testing.assert_array_equal(algorithm(X, 3, seed=0), expected)


def test_an_import_path_names_a_function_and_a_file(my_pkg, tmp_path):
    X, _ = blobs()
    np.testing.assert_array_equal(get_algorithm("my_pkg.algo:first_half")(X, 2, 0),
                                  np.repeat([0, 1], 30))
    path = tmp_path / "loose_algo.py"
    path.write_text(MY_ALGO)
    spec = f"{path}:MyAlgo"
    algorithm = get_algorithm(spec)
    assert algorithm.name == spec
    expected = AgglomerativeClustering(n_clusters=3, linkage="ward").fit_predict(X)
    np.testing.assert_array_equal(algorithm(X, 3, 0), expected)


def test_an_algorithm_that_writes_into_X_changes_no_one_elses_data(my_pkg):
    """Code from outside gets its own copy of the points: the next algorithm, the
    caller's dataset and a Versus evaluation see the data unchanged."""
    from hawks_deap import Dataset
    from hawks_deap.analysis import performance_table

    X, y = blobs()
    before = X.copy()
    get_algorithm("my_pkg.algo:zeroes_X")(X, 3, 0)
    np.testing.assert_array_equal(X, before)
    dataset = Dataset(X, y)
    alone = performance_table([dataset], ["kmeans++"])
    table = performance_table([dataset], ["my_pkg.algo:zeroes_X", "kmeans++"])
    assert table.column("kmeans++").tolist() == alone.column("kmeans++").tolist()
    np.testing.assert_array_equal(dataset.X, before)


@pytest.mark.parametrize("attr", ["one_argument", "four_arguments"])
def test_a_function_of_another_signature_is_refused_before_any_work(my_pkg, attr):
    with pytest.raises(ValueError, match=r"must be callable as func\(X, n_clusters, seed\)"):
        get_algorithm(f"my_pkg.algo:{attr}")
    with pytest.raises(TypeError, match=r"must be callable as func\(X, n_clusters, seed\)"):
        hc.as_algorithm(lambda X: X)


@pytest.mark.parametrize("spec, reason", [
    ("no_such_pkg.algo:MyAlgo", "No module named 'no_such_pkg'"),
    ("my_pkg.algo:Missing", "has no attribute 'Missing'"),
    ("my_pkg.algo:NotAnEstimator", "has no fit_predict"),
    ("my_pkg.algo:broken_factory", "no licence server"),
    ("my_pkg.algo:", "is not an import path"),
    ("missing_file.py:MyAlgo", "no file"),
    ("no-such-algorithm", "unknown algorithm"),
])
def test_an_unresolvable_spec_is_refused_naming_it_and_why(my_pkg, spec, reason):
    with pytest.raises(ValueError) as info:
        get_algorithm(spec)
    assert spec in str(info.value) and reason in str(info.value)


def test_a_spec_algorithm_pickles_as_its_text_and_keeps_its_name(my_pkg, tmp_path):
    algorithm = get_algorithm("my_pkg.algo:MyAlgo")
    data = pickle.dumps(algorithm)
    assert b"my_pkg.algo:MyAlgo" in data and b"hawks_deap.clustering._spec" not in data
    assert pickle.loads(data) == algorithm
    path = tmp_path / "loose_algo.py"
    path.write_text(MY_ALGO)
    relative = "loose_algo.py:MyAlgo"
    import os

    previous = os.getcwd()
    os.chdir(tmp_path)
    try:
        loose = get_algorithm(relative)
    finally:
        os.chdir(previous)
    again = pickle.loads(pickle.dumps(loose))  # resolved from another directory
    assert again.name == relative and again.spec == f"{path.resolve()}:MyAlgo"


def test_a_plugin_is_named_by_its_entry_point(my_pkg, tmp_path):
    dist = tmp_path / "my_pkg-1.2.3.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-pkg\nVersion: 1.2.3\n")
    (dist / "entry_points.txt").write_text(
        "[hawks_deap.algorithms]\nmy-ward = my_pkg.algo:MyAlgo\n")
    (dist / "top_level.txt").write_text("my_pkg\n")
    hc._spec._plugins.cache_clear()
    hc._spec._distributions.cache_clear()
    try:
        assert "my-ward" in available_algorithms()
        algorithm = get_algorithm("my-ward")
        assert algorithm.name == "my-ward" and algorithm.settings["linkage"] == "ward"
        identity = algorithm_identity("my-ward")
        assert identity["source"] == "plugin" and identity["version"] == "1.2.3"
        assert pickle.loads(pickle.dumps(algorithm)).name == "my-ward"
    finally:
        hc._spec._plugins.cache_clear()
        hc._spec._distributions.cache_clear()


def test_identity_says_where_an_algorithm_comes_from(my_pkg):
    import sklearn

    assert algorithm_identity("gmm")["source"] == "builtin"
    assert algorithm_identity("gmm")["version"] == sklearn.__version__
    identity = algorithm_identity("my_pkg.algo:MyAlgo")
    assert identity["source"] == "import" and identity["spec"] == "my_pkg.algo:MyAlgo"
    assert identity["module"] == "my_pkg" and identity["settings"]["linkage"] == "ward"
    assert algorithm_identity(AgglomerativeClustering())["source"] == "object"


def _cli(*args, cwd):
    """The installed console script, as a researcher types it (cwd not on sys.path)."""
    script = Path(sys.executable).with_name("hawks-deap")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "hawks_deap.cli"]
    return subprocess.run([*command, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


def test_the_command_line_takes_import_paths(my_pkg):
    out = my_pkg / "run"
    r = _cli("versus", "my_pkg.algo:MyAlgo", "kmeans++", "--out", str(out), "--n-samples",
             "90", "--n-clusters", "3", "--population-size", "4", "--generations", "2",
             "--quiet", cwd=my_pkg)
    assert r.returncode == 0, r.stderr
    import json

    problem = json.loads((out / "metadata.json").read_text())["problem"]
    assert problem["winner"] == "my_pkg.algo:MyAlgo"
    assert problem["winner_identity"]["source"] == "import"
    assert problem["loser_identity"]["version"] is not None
    r = _cli("features", str(out), "--algorithms", "paper,my_pkg.algo:MyAlgo", "--format",
             "csv", cwd=my_pkg)
    assert r.returncode == 0, r.stderr
    header = r.stdout.splitlines()[0].split(",")
    assert "ari_my_pkg.algo:MyAlgo" in header and "ari_kmeans++" in header


def test_a_run_records_its_algorithm_file_as_read_and_verifies_from_anywhere(tmp_path):
    study = tmp_path / "study"
    study.mkdir()
    (study / "algo.py").write_text(MY_ALGO)
    r = _cli("versus", "algo.py:MyAlgo", "kmeans++", "--out", "run", "--n-samples", "60",
             "--n-clusters", "3", "--population-size", "4", "--generations", "2",
             "--n-jobs", "1", "--quiet", cwd=study)
    assert r.returncode == 0, r.stderr
    settings = json.loads((study / "run" / "metadata.json").read_text())["command"]["settings"]
    assert settings["winner"] == f"{(study / 'algo.py').resolve()}:MyAlgo"
    r = _cli("verify", str(study / "run"), "--n-jobs", "1", cwd=tmp_path)
    assert r.returncode == 0 and "identical (every file" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("args", [
    ["versus", "my_pkg.algo:Missing", "kmeans++", "--out", "never"],
    ["features", "data", "--algorithms", "gmm,my_pkg.algo:broken_factory"],
])
def test_an_unresolvable_spec_exits_2_before_any_work(my_pkg, args):
    from hawks_deap.io import Dataset

    Dataset(*blobs()).save(my_pkg / "data")
    r = _cli(*args, cwd=my_pkg)
    assert r.returncode == 2
    assert args[1 if args[0] == "versus" else 3].split(",")[-1] in r.stderr
    assert "has no attribute" in r.stderr or "no licence server" in r.stderr
    assert not (my_pkg / "never").exists()


GRID = """
[suite]
mode = "versus"
runs = 2
seed = 3

[objective]
winner = "my_pkg.algo:MyAlgo"
loser = ["kmeans++", "single-linkage"]

[dataset]
n_samples = 60
n_clusters = 3

[ga]
population_size = 4
generations = 2
"""


def _snapshot(out: Path) -> dict[str, bytes]:
    files = {"summary.csv": (out / "summary.csv").read_bytes()}
    for path in sorted((out / "runs").rglob("*")):
        if path.is_file():
            files[str(path.relative_to(out))] = path.read_bytes()
    return files


def test_a_suite_naming_a_spec_gives_the_same_bytes_on_any_workers(my_pkg, tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID)
    suite = hs.load_suite(grid)
    hs.run_suite(suite, tmp_path / "one", workers=1)
    hs.run_suite(suite, tmp_path / "two", workers=2)
    hs.run_suite(suite, tmp_path / "dask", workers=2, backend="dask")
    reference = _snapshot(tmp_path / "one")
    assert len(hs.summary_rows(tmp_path / "one")) == 4
    assert _snapshot(tmp_path / "two") == reference
    assert _snapshot(tmp_path / "dask") == reference


def test_a_grids_algorithm_file_is_the_grid_files_neighbour_and_is_recorded(
        tmp_path, monkeypatch):
    """A relative ``file.py:attr`` is read beside the grid file, whatever the working
    folder; its SHA-256 is part of the suite, so a resume that would read other code (a
    copy of the grid beside another file, an edited file) is refused before any run."""
    study, other = tmp_path / "study", tmp_path / "other"
    study.mkdir()
    other.mkdir()
    (study / "algo.py").write_text(MY_ALGO)
    (other / "algo.py").write_text(MY_ALGO.replace('linkage="ward"', 'linkage="single"'))
    text = GRID.replace("my_pkg.algo:MyAlgo", "algo.py:MyAlgo").replace(
        'loser = ["kmeans++", "single-linkage"]', 'loser = "kmeans++"').replace(
        "runs = 2", "runs = 1")
    (study / "grid.toml").write_text(text)
    (other / "grid.toml").write_text(text)
    monkeypatch.chdir(other)
    suite = hs.load_suite(study / "grid.toml")
    assert suite.configurations[0]["winner"] == f"{(study / 'algo.py').resolve()}:MyAlgo"
    out = tmp_path / "out"
    hs.run_suite(suite, out)
    recorded = json.loads((out / "suite.json").read_text())["files"]
    assert list(recorded) == ["algo.py:MyAlgo"]
    hs.run_suite(hs.load_suite(study / "grid.toml"), out)  # the same: resumes
    with pytest.raises(ValueError, match="holds a different suite .*files"):
        hs.run_suite(hs.load_suite(other / "grid.toml"), out)
    (study / "algo.py").write_text(MY_ALGO + "\n# edited\n")
    with pytest.raises(ValueError, match="holds a different suite .*files"):
        hs.run_suite(hs.load_suite(study / "grid.toml"), out)


def test_a_grid_refuses_an_unresolvable_spec_before_it_starts(my_pkg, tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID.replace("my_pkg.algo:MyAlgo", "my_pkg.algo:Missing"))
    with pytest.raises(ValueError, match="my_pkg.algo:Missing.*has no attribute"):
        hs.load_suite(grid)


def _ward(X, n_clusters, seed):
    return AgglomerativeClustering(n_clusters=n_clusters).fit_predict(X)


def test_a_grid_takes_an_algorithm_object_by_its_name(my_pkg):
    raw = {"suite": {"mode": "versus"}, "dataset": {"n_samples": 60, "n_clusters": 3},
           "ga": {"population_size": 4, "generations": 2},
           "objective": {"winner": get_algorithm("my_pkg.algo:MyAlgo"), "loser": "gmm"}}
    suite = hs.parse_suite(raw)
    assert suite.configurations[0]["winner"] == "my_pkg.algo:MyAlgo"
    registered = register_algorithm("test-own-ward", _ward)
    try:
        raw["objective"]["winner"] = registered
        assert hs.parse_suite(raw).configurations[0]["winner"] == "test-own-ward"
        raw["objective"]["winner"] = ClusteringAlgorithm("unregistered", _ward)
        with pytest.raises(TypeError, match="neither registered under its name"):
            hs.parse_suite(raw)
    finally:
        hc._REGISTRY.pop("test-own-ward")


def test_a_script_without_a_main_guard_runs_its_suite_once(tmp_path):
    """Spawned workers do not run the script again (today they would hang the suite)."""
    (tmp_path / "grid.toml").write_text(textwrap.dedent("""
        [suite]
        runs = 2
        [dataset]
        n_samples = 60
        [ga]
        population_size = 4
        generations = 2
    """))
    (tmp_path / "unguarded.py").write_text(textwrap.dedent("""
        from hawks_deap.campaign.suite import load_suite, run_suite
        print("body", flush=True)
        run_suite(load_suite("grid.toml"), "out", workers=2)
    """))
    r = subprocess.run([sys.executable, "unguarded.py"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["body"]
    assert sorted(p.name for p in (tmp_path / "out" / "runs").iterdir()) == [
        "c000-r00", "c000-r01"]


def test_run_suite_refuses_to_start_inside_a_reimported_script(monkeypatch):
    main = type(sys)("__mp_main__")
    monkeypatch.setitem(sys.modules, "__main__", main)
    with pytest.raises(RuntimeError, match='if __name__ == "__main__"'):
        hs.run_suite(object(), "never")  # type: ignore[arg-type]
