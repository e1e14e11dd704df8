"""Algorithm settings and presets (issue 20): the paper's K-Means++ n_init=10, GMM n_init=3.

Oracles: direct scikit-learn calls with the same ``random_state`` derivation.
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score
from sklearn.mixture import GaussianMixture

import hawks_deap as hd
from hawks_deap import cli, clustering
from hawks_deap.analysis.features import clustering_seed, performance_table
from hawks_deap.clustering import (
    ALGORITHM_PRESETS,
    ClusteringAlgorithm,
    available_algorithms,
    check_preset,
    get_algorithm,
    random_state_from_seed,
    register_algorithm,
)
from hawks_deap.clustering._core import LibraryCall

SEEDS = range(3)
pytestmark = pytest.mark.usefixtures("one_blas_thread")


@pytest.fixture(scope="module")
def X() -> np.ndarray:
    """Uniform points: no structure, so the number of starts changes the partition."""
    return np.random.default_rng(8).uniform(size=(80, 2))


@pytest.fixture
def private_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clustering, "_REGISTRY", dict(clustering._REGISTRY))


def record_call(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    return np.zeros(len(X), dtype=int)


# --------------------------------------------------------------------------- presets


def test_the_hawks_tevc_preset() -> None:
    assert ALGORITHM_PRESETS == {"hawks-tevc": {"kmeans++": {"n_init": 10},
                                                "gmm": {"n_init": 3}}}
    for preset, overrides in ALGORITHM_PRESETS.items():
        assert check_preset(preset) == preset
        for name, params in overrides.items():
            default = get_algorithm(name).settings
            assert set(params) <= set(default)  # it replaces settings the call has
            assert get_algorithm(name, preset=preset).settings == {**default, **params}


def kmeans_oracle(X: np.ndarray, k: int, n_init: object, rs: int) -> np.ndarray:
    return KMeans(n_clusters=k, init="k-means++", n_init=n_init, random_state=rs).fit_predict(X)


def gmm_oracle(X: np.ndarray, k: int, n_init: object, rs: int) -> np.ndarray:
    return GaussianMixture(n_components=k, covariance_type="full", n_init=n_init,
                           random_state=rs).fit(X).predict(X)


@pytest.mark.parametrize(("name", "k", "oracle", "default_n_init", "paper_n_init"), [
    ("kmeans++", 6, kmeans_oracle, "auto", 10),
    ("gmm", 4, gmm_oracle, 1, 3),
])
def test_the_preset_runs_the_papers_number_of_starts(X: np.ndarray, name, k, oracle,
                                                     default_n_init, paper_n_init) -> None:
    algorithm = get_algorithm(name, preset="hawks-tevc")
    assert algorithm.name == name and algorithm.settings["n_init"] == paper_n_init
    changed = False
    for seed in SEEDS:
        rs = random_state_from_seed(seed)
        paper, default = oracle(X, k, paper_n_init, rs), oracle(X, k, default_n_init, rs)
        np.testing.assert_array_equal(algorithm(X, k, seed), paper)
        np.testing.assert_array_equal(get_algorithm(name)(X, k, seed), default)
        changed |= not np.array_equal(paper, default)
    assert changed  # the data tell the two settings apart


def test_a_preset_leaves_everything_else_unchanged() -> None:
    for name in available_algorithms():
        assert get_algorithm(name, preset=None) is get_algorithm(name)
        if name not in ALGORITHM_PRESETS["hawks-tevc"]:
            assert get_algorithm(name, preset="hawks-tevc") is get_algorithm(name)
    estimator = KMeans(n_init=2)
    assert get_algorithm(estimator, preset="hawks-tevc").settings["n_init"] == 2
    assert get_algorithm(record_call, preset="hawks-tevc").func is record_call
    mine = ClusteringAlgorithm("kmeans++", record_call)
    assert get_algorithm(mine, preset="hawks-tevc") is mine


def test_unknown_preset_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown preset 'hawks_tevc' \(did you mean "
                                         r"'hawks-tevc'\?\); valid: 'hawks-tevc'"):
        get_algorithm("kmeans++", preset="hawks_tevc")
    with pytest.raises(ValueError, match="valid: 'hawks-tevc'"):
        available_algorithms(preset="paper")
    with pytest.raises(TypeError, match="preset must be a string or None, got 1"):
        check_preset(1)
    assert check_preset(None) is None


@pytest.mark.usefixtures("private_registry")
def test_a_preset_for_a_user_function_is_refused() -> None:
    register_algorithm("kmeans++", record_call, overwrite=True)
    assert get_algorithm("kmeans++").settings == {"callable": f"{__name__}.record_call"}
    with pytest.raises(ValueError, match="'kmeans\\+\\+'.*without settings"):
        get_algorithm("kmeans++", preset="hawks-tevc")


def test_library_call_overrides_only_its_own_settings() -> None:
    call = get_algorithm("kmeans++").func
    assert isinstance(call, LibraryCall)
    with pytest.raises(ValueError, match=r"\['n_start'\] cannot be overridden; valid: "
                                         r"'init', 'n_init'"):
        call.with_params(n_start=10)


# --------------------------------------------------------------------------- settings


def test_available_algorithms_with_settings() -> None:
    names = available_algorithms()
    default = available_algorithms(settings=True)
    paper = available_algorithms(preset="hawks-tevc", settings=True)
    assert list(default) == list(paper) == names
    assert json.loads(json.dumps(default)) == default  # JSON-able
    assert default["kmeans++"] == {"estimator": "sklearn.cluster.KMeans",
                                   "init": "k-means++", "n_init": "auto"}
    assert default["gmm"] == {"estimator": "sklearn.mixture.GaussianMixture",
                              "covariance_type": "full", "n_init": 1}
    assert default["spectral"]["affinity"] == "nearest_neighbors"
    assert default["genie"] == {"estimator": "genieclust.Genie", "gini_threshold": 0.3}
    for name in names:
        assert default[name].get("k_multiplier", 1) == get_algorithm(name).k_multiplier
        if name in ("kmeans++", "gmm"):
            assert paper[name] == {**default[name], **ALGORITHM_PRESETS["hawks-tevc"][name]}
        else:
            assert paper[name] == default[name]
    settings = get_algorithm("gmm").settings
    settings["n_init"] = 7  # a copy: the algorithm keeps its own
    assert get_algorithm("gmm").settings["n_init"] == 1


def test_settings_of_estimators_and_callables() -> None:
    km = get_algorithm(KMeans(n_clusters=99, n_init=3, random_state=0)).settings
    assert km["estimator"] == "sklearn.cluster.KMeans"
    assert km["n_init"] == 3 and km["init"] == "k-means++"
    assert not {"n_clusters", "random_state"} & set(km)  # set per call
    gm = get_algorithm(GaussianMixture(covariance_type="diag")).settings
    assert gm["estimator"] == "sklearn.mixture.GaussianMixture"
    assert gm["covariance_type"] == "diag" and "n_components" not in gm
    assert json.loads(json.dumps([km, gm])) == [km, gm]
    assert get_algorithm(record_call).settings == {"callable": f"{__name__}.record_call"}


@pytest.mark.usefixtures("private_registry")
def test_settings_of_registered_user_algorithms() -> None:
    mine = register_algorithm("mine-3k", record_call, k_multiplier=3)
    assert mine.settings == {"callable": f"{__name__}.record_call", "k_multiplier": 3}
    assert available_algorithms(settings=True)["mine-3k"] == mine.settings


def test_preset_algorithms_compare_print_and_pickle(X: np.ndarray) -> None:
    paper = get_algorithm("kmeans++", preset="hawks-tevc")
    default = get_algorithm("kmeans++")
    assert paper != default and paper == get_algorithm("kmeans++", preset="hawks-tevc")
    assert len({paper, default, get_algorithm("kmeans++", preset="hawks-tevc")}) == 2
    assert repr(paper) == ("ClusteringAlgorithm('kmeans++', settings={'estimator': "
                           "'sklearn.cluster.KMeans', 'init': 'k-means++', 'n_init': 10})")
    assert str(paper) == repr(paper)
    restored = pickle.loads(pickle.dumps(paper))
    assert restored == paper and restored.settings == paper.settings
    np.testing.assert_array_equal(restored(X, 5, 11), paper(X, 5, 11))
    # in spawn workers: test_clustering.test_registered_algorithm_runs_in_a_spawn_worker


# --------------------------------------------------------------------------- features


def _two_datasets() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(6)
    y = np.repeat(np.arange(4), 30)
    return [(rng.normal(size=(120, 2)) * s + np.array([[0, 0], [2, 0], [0, 2], [2, 2]])[y], y)
            for s in (0.6, 1.2)]


def test_performance_table_with_the_preset() -> None:
    data = _two_datasets()
    table = performance_table(data, ["gmm", "kmeans++"], seed=4, preset="hawks-tevc")
    assert table.columns == ("gmm", "kmeans++")
    for i, (X, y) in enumerate(data):
        rs = random_state_from_seed(clustering_seed(4, X, "kmeans++"))
        labels = KMeans(n_clusters=4, init="k-means++", n_init=10,
                        random_state=rs).fit_predict(X)
        assert table.values[i, 1] == pytest.approx(adjusted_rand_score(y, labels), rel=1e-12)
    with pytest.raises(ValueError, match="unknown preset"):
        performance_table(data, ["gmm"], preset="tevc")


def test_features_command_with_the_preset(tmp_path, capsys: pytest.CaptureFixture) -> None:
    data = _two_datasets()
    for i, (X, y) in enumerate(data):
        hd.Dataset(X, y).save(tmp_path / f"d{i}")
    dirs = [str(tmp_path / f"d{i}") for i in range(2)]
    code = cli.main(["features", *dirs, "--algorithms", "kmeans++,gmm", "--preset",
                     "hawks-tevc", "--seed", "2", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = json.loads(out)
    table = performance_table([hd.Dataset.load(d) for d in dirs], ["kmeans++", "gmm"], seed=2,
                              preset="hawks-tevc")
    assert [[r["ari_kmeans++"], r["ari_gmm"]] for r in rows] == table.values.tolist()
    code = cli.main(["features", *dirs, "--preset", "hawks-tevc"])
    assert code == 2 and "give --algorithms too" in capsys.readouterr().err
    code = cli.main(["plot", *dirs, "--algorithms", "gmm", "--preset", "tevc"])
    err = capsys.readouterr().err
    assert code == 2 and "argument --preset: must be one of 'hawks-tevc', got 'tevc'" in err
