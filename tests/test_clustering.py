from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy.cluster.hierarchy import cut_tree, fcluster, linkage
from scipy.spatial.distance import pdist
from sklearn.cluster import DBSCAN, AgglomerativeClustering, KMeans
from sklearn.metrics import adjusted_rand_score
from sklearn.mixture import GaussianMixture

from hawks_deap import clustering
from hawks_deap._util.validation import child_sequence, int_seed, seed_words
from hawks_deap.clustering import (
    ClusteringAlgorithm,
    available_algorithms,
    cut_linkage,
    get_algorithm,
    random_state_from_seed,
    register_algorithm,
)

BUILTINS = [
    "kmeans++",
    "gmm",
    "average-linkage",
    "single-linkage",
    "average-linkage-2k",
    "single-linkage-2k",
]


@pytest.fixture(scope="module")
def blobs() -> np.ndarray:
    """Four overlapping elongated Gaussian clusters, N=240, D=2 (no distance ties)."""
    rng = np.random.default_rng(12345)
    centres = np.array([[0.0, 0.0], [3.0, 0.5], [0.5, 3.5], [4.0, 4.0]])
    sizes = [90, 60, 50, 40]
    parts = [c + rng.normal(size=(n, 2)) * [1.0, 0.4] for c, n in zip(centres, sizes, strict=True)]
    return np.concatenate(parts)


@pytest.fixture
def private_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let a test register algorithms without leaking them into other tests."""
    monkeypatch.setattr(clustering, "_REGISTRY", dict(clustering._REGISTRY))


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """True when two labelings are equal up to a renaming of the labels."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    pairs = np.unique(np.stack([a, b]), axis=1)
    return pairs.shape[1] == len(np.unique(a)) == len(np.unique(b))


# Module-level helpers: importable, hence picklable into spawn workers.
def nearest_of_first_points(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    """Assign each point to the nearest of the first n_clusters points."""
    distances = ((X[:, None, :] - X[None, :n_clusters, :]) ** 2).sum(axis=-1)
    return distances.argmin(axis=1)


def record_call(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    """Encode the received arguments in the labels."""
    labels = np.zeros(len(X), dtype=int)
    labels[0] = n_clusters
    labels[1] = -1 if seed is None else seed
    return labels


def failing(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    raise np.linalg.LinAlgError("singular matrix")


def too_short(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    return np.zeros(len(X) - 1, dtype=int)


def run_in_worker(algorithm: ClusteringAlgorithm, X: np.ndarray) -> np.ndarray:
    return algorithm(X, 3, 11)


# --------------------------------------------------------------------------- registry


def test_available_algorithms_lists_the_paper_algorithms() -> None:
    assert available_algorithms()[: len(BUILTINS)] == BUILTINS
    for name in BUILTINS:
        algorithm = get_algorithm(name)
        assert isinstance(algorithm, ClusteringAlgorithm)
        assert algorithm.name == name
        assert algorithm.k_multiplier == (2 if name.endswith("-2k") else 1)


def test_available_algorithms_returns_a_copy() -> None:
    names = available_algorithms()
    names.append("bogus")
    assert "bogus" not in available_algorithms()


# --------------------------------------------------------------------------- oracles


def test_kmeans_plus_plus_matches_scikit_learn(blobs: np.ndarray) -> None:
    for seed in (0, 7, 2**70):
        expected = KMeans(n_clusters=4, init="k-means++", n_init="auto",
                          random_state=random_state_from_seed(seed)).fit_predict(blobs)
        labels = get_algorithm("kmeans++")(blobs, 4, seed)
        np.testing.assert_array_equal(labels, expected)
        assert labels.dtype == np.intp


def test_gmm_matches_scikit_learn(blobs: np.ndarray) -> None:
    for seed in (0, 7):
        gmm = GaussianMixture(n_components=4, covariance_type="full",
                              random_state=random_state_from_seed(seed))
        expected = gmm.fit(blobs).predict(blobs)
        np.testing.assert_array_equal(get_algorithm("gmm")(blobs, 4, seed), expected)


def test_single_linkage_matches_scikit_learn_and_scipy(blobs: np.ndarray) -> None:
    for k in (1, 2, 4, 9):
        labels = get_algorithm("single-linkage")(blobs, k, 0)
        expected = AgglomerativeClustering(n_clusters=k, linkage="single").fit_predict(blobs)
        np.testing.assert_array_equal(labels, expected)
        scipy_labels = fcluster(linkage(blobs, method="single"), k, criterion="maxclust")
        assert same_partition(labels, scipy_labels)
        assert len(np.unique(labels)) == k


def test_average_linkage_matches_scipy_and_scikit_learn(blobs: np.ndarray) -> None:
    Z = linkage(pdist(blobs), method="average")
    for k in (1, 2, 4, 9):
        labels = get_algorithm("average-linkage")(blobs, k, 0)
        assert same_partition(labels, fcluster(Z, k, criterion="maxclust"))
        sk = AgglomerativeClustering(n_clusters=k, linkage="average").fit_predict(blobs)
        assert same_partition(labels, sk)
        # Labels are numbered in order of first appearance.
        _, first = np.unique(labels, return_index=True)
        assert np.all(np.diff(first) > 0)


@pytest.mark.parametrize("base", ["average-linkage", "single-linkage"])
def test_doubled_k_variants_ask_for_2k_clusters(blobs: np.ndarray, base: str) -> None:
    doubled = get_algorithm(f"{base}-2k")(blobs, 4, 0)
    assert len(np.unique(doubled)) == 8
    np.testing.assert_array_equal(doubled, get_algorithm(base)(blobs, 8, 0))


@pytest.mark.parametrize("name", BUILTINS)
def test_every_builtin_returns_n_integer_labels(blobs: np.ndarray, name: str) -> None:
    algorithm = get_algorithm(name)
    labels = algorithm(blobs, 3, 1)
    assert labels.shape == (len(blobs),)
    assert labels.dtype == np.intp
    assert len(np.unique(labels)) == 3 * algorithm.k_multiplier
    assert adjusted_rand_score(labels, labels) == 1.0


def test_linkage_gives_exactly_k_clusters_with_tied_distances() -> None:
    # A regular grid: every merge happens at the same distance, so a distance-threshold
    # cut (fcluster maxclust) collapses to one cluster.
    X = np.stack(np.meshgrid(np.arange(6.0), np.arange(5.0)), axis=-1).reshape(-1, 2)
    Z = linkage(X, method="single")
    assert len(np.unique(fcluster(Z, 4, criterion="maxclust"))) < 4
    for name in ("single-linkage", "average-linkage", "single-linkage-2k",
                 "average-linkage-2k"):
        algorithm = get_algorithm(name)
        for k in (2, 4, 7):
            labels = algorithm(X, k, 0)
            assert len(np.unique(labels)) == k * algorithm.k_multiplier, (name, k)
    # Duplicated points (zero distances tie too).
    duplicated = np.repeat(np.arange(4.0), 5).reshape(-1, 1) * [1.0, 0.0]
    for name in ("single-linkage", "average-linkage"):
        labels = get_algorithm(name)(duplicated, 4, 0)
        assert same_partition(labels, np.repeat(np.arange(4), 5))


LINKAGES = ["single-linkage", "average-linkage", "complete-linkage", "ward-linkage"]


@pytest.mark.parametrize("name", LINKAGES)
def test_a_shared_tree_gives_the_partitions_of_separate_calls(blobs: np.ndarray,
                                                               name: str) -> None:
    method = name.split("-")[0]
    algorithms = [get_algorithm(n) for n in available_algorithms()
                  if n.startswith(name)]  # the linkage and its -2k variant, if any
    trees: dict = {}
    for k in (1, 2, 4, 9, 120):
        for algorithm in algorithms:
            shared = algorithm(blobs, k, 0, trees=trees)
            alone = algorithm(blobs, k, 0)
            np.testing.assert_array_equal(shared, alone)  # the labels, not only the partition
            sk = AgglomerativeClustering(n_clusters=k * algorithm.k_multiplier,
                                         linkage=method).fit_predict(blobs)
            assert same_partition(shared, sk), (name, k)
    assert len(trees) == 1  # one tree for every k and both variants


def test_trees_are_kept_per_array_and_per_call(blobs: np.ndarray) -> None:
    trees: dict = {}
    average, single = get_algorithm("average-linkage"), get_algorithm("single-linkage")
    other = blobs[::-1].copy()
    for X in (blobs, other):
        assert same_partition(average(X, 3, 0, trees=trees), average(X, 3, 0))
        assert same_partition(single(X, 3, 0, trees=trees), single(X, 3, 0))
    assert len(trees) == 4
    # a user's callable, an estimator and a non-linkage built-in ignore trees
    for spec in (nearest_of_first_points, KMeans(n_init=1), "gmm"):
        algorithm = get_algorithm(spec)
        np.testing.assert_array_equal(algorithm(blobs, 3, 5, trees=trees),
                                      algorithm(blobs, 3, 5))
    assert len(trees) == 4
    single_point = np.zeros((1, 2))
    np.testing.assert_array_equal(average(single_point, 1, 0, trees=trees), [0])
    np.testing.assert_array_equal(single(single_point, 1, 0, trees=trees), [0])
    with pytest.raises(TypeError, match="trees must be a dict or None, got list"):
        average(blobs, 3, 0, trees=[])


def test_cut_linkage_matches_scipy_cut_tree() -> None:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    for method in ("single", "average", "complete", "ward"):
        Z = linkage(X, method=method)
        for k in range(1, 41):
            labels = cut_linkage(Z, k)
            assert len(np.unique(labels)) == k
            assert same_partition(labels, cut_tree(Z, n_clusters=k).ravel())


def test_cut_linkage_validates() -> None:
    Z = linkage(np.arange(5.0).reshape(-1, 1))
    with pytest.raises(ValueError, match="n_clusters"):
        cut_linkage(Z, 6)
    with pytest.raises(ValueError, match="n_clusters"):
        cut_linkage(Z, 0)
    with pytest.raises(ValueError, match="linkage matrix"):
        cut_linkage(np.zeros((3, 3)), 2)
    np.testing.assert_array_equal(cut_linkage(Z, 5), np.arange(5))


def test_single_sample() -> None:
    X = np.zeros((1, 2))
    for name in ("single-linkage", "average-linkage"):
        np.testing.assert_array_equal(get_algorithm(name)(X, 1, 0), [0])


# --------------------------------------------------------------------------- seeds


@pytest.mark.parametrize("name", ["kmeans++", "gmm"])
def test_fixed_seed_is_deterministic(blobs: np.ndarray, name: str) -> None:
    algorithm = get_algorithm(name)
    first = algorithm(blobs, 4, 123)
    np.testing.assert_array_equal(algorithm(blobs, 4, 123), first)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(algorithm))(blobs, 4, 123), first)
    np.testing.assert_array_equal(algorithm(blobs, 4, np.int64(123)), first)


def test_seed_changes_stochastic_results() -> None:
    # Many small random problems: K-Means++ with different seeds must disagree somewhere.
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 2))
    algorithm = get_algorithm("kmeans++")
    runs = {tuple(algorithm(X, 8, seed)) for seed in range(6)}
    assert len(runs) > 1


def test_random_state_from_seed() -> None:
    assert random_state_from_seed(5) == random_state_from_seed(5)
    assert random_state_from_seed(5) == int(np.random.SeedSequence(5).generate_state(1)[0])
    assert random_state_from_seed(5) != random_state_from_seed(6)
    values = {random_state_from_seed(None) for _ in range(5)}
    assert all(0 <= v < 2**32 for v in values)
    assert len(values) > 1  # fresh entropy, not a fixed default
    with pytest.raises(ValueError, match="seed"):
        random_state_from_seed(-1)
    with pytest.raises(TypeError, match="seed"):
        random_state_from_seed(1.5)  # type: ignore[arg-type]


def test_seed_helpers_give_the_numbers_of_the_explicit_seed_sequence_expressions() -> None:
    parent = np.random.SeedSequence(1234).spawn(3)[2]  # a non-empty spawn_key
    explicit = np.random.SeedSequence(parent.entropy, spawn_key=(*parent.spawn_key, 5, 7, 1))
    child = child_sequence(parent, 5, 7, 1)
    assert (child.entropy, child.spawn_key) == (explicit.entropy, explicit.spawn_key)
    assert child.generate_state(4).tolist() == explicit.generate_state(4).tolist()
    assert int_seed(parent, 5, 7, 1) == int(explicit.generate_state(1, np.uint32)[0])
    assert int_seed(9) == int(np.random.SeedSequence(9).generate_state(1, np.uint32)[0])
    assert int_seed(9) == random_state_from_seed(9)
    assert seed_words(2**70 + 3, 3) == [
        int(w) for w in np.random.SeedSequence(2**70 + 3).generate_state(3, np.uint32)]
    assert seed_words(parent, 2, dtype=np.uint64) == [
        int(w) for w in parent.generate_state(2, np.uint64)]
    # suite.derive_seed's SeedSequence(suite_seed, spawn_key=(*words, run))
    words = [11, 2**32 - 1, 0, 8]
    assert int_seed(3, *words, 4) == int(np.random.SeedSequence(
        3, spawn_key=(*words, 4)).generate_state(1, np.uint32)[0])
    assert all(type(w) is int for w in seed_words(0, 2))


def test_seed_none_does_not_touch_global_numpy_state(blobs: np.ndarray) -> None:
    # The legacy global state is exactly what must stay untouched.
    np.random.seed(0)  # noqa: NPY002
    _, key, pos, *_ = np.random.get_state()  # noqa: NPY002
    key = key.copy()
    for name in ("kmeans++", "gmm"):
        labels = get_algorithm(name)(blobs, 4, None)
        assert labels.shape == (len(blobs),)
    _, key_after, pos_after, *_ = np.random.get_state()  # noqa: NPY002
    np.testing.assert_array_equal(key_after, key)
    assert pos_after == pos


def test_seed_sequence_and_generator_are_turned_into_ints() -> None:
    X = np.zeros((3, 2))
    algorithm = get_algorithm(record_call)
    from_sequence = algorithm(X, 2, np.random.SeedSequence(4))[1]
    assert from_sequence == algorithm(X, 2, np.random.SeedSequence(4))[1]
    assert from_sequence >= 0
    from_generator = algorithm(X, 2, np.random.default_rng(4))[1]
    assert from_generator >= 0


# --------------------------------------------------------------------------- specs


def test_estimator_spec_sets_n_clusters_and_random_state(blobs: np.ndarray) -> None:
    template = KMeans(n_clusters=99, n_init=3, random_state=0)
    algorithm = get_algorithm(template)
    assert algorithm.name == "KMeans"
    labels = algorithm(blobs, 4, 21)
    expected = KMeans(n_clusters=4, n_init=3,
                      random_state=random_state_from_seed(21)).fit_predict(blobs)
    np.testing.assert_array_equal(labels, expected)
    # The template is cloned, never changed or fitted.
    assert template.n_clusters == 99 and template.random_state == 0
    assert not hasattr(template, "labels_")


def test_estimator_spec_sets_n_components(blobs: np.ndarray) -> None:
    algorithm = get_algorithm(GaussianMixture(covariance_type="diag"))
    expected = GaussianMixture(n_components=3, covariance_type="diag",
                               random_state=random_state_from_seed(2)).fit_predict(blobs)
    np.testing.assert_array_equal(algorithm(blobs, 3, 2), expected)


def test_estimator_without_n_clusters_or_random_state(blobs: np.ndarray) -> None:
    labels = get_algorithm(DBSCAN(eps=0.5))(blobs, 4, 0)
    np.testing.assert_array_equal(labels, DBSCAN(eps=0.5).fit_predict(blobs))


def test_plain_object_with_fit_predict() -> None:
    class Halves:
        n_clusters = 0

        def fit_predict(self, X: np.ndarray) -> np.ndarray:
            return (np.arange(len(X)) * self.n_clusters) // len(X)

    template = Halves()
    labels = get_algorithm(template)(np.zeros((6, 1)), 2, 0)
    np.testing.assert_array_equal(labels, [0, 0, 0, 1, 1, 1])
    assert template.n_clusters == 0


class _Plain:
    """An estimator without get_params: its attributes are what a call sets."""

    def fit_predict(self, X: np.ndarray) -> np.ndarray:
        return np.arange(len(X)) % getattr(self, "n_components", 1)


def test_takes_n_clusters_is_whether_a_call_sets_the_number_of_clusters() -> None:
    sized = _Plain()
    sized.n_components = 1
    X = np.arange(24.0).reshape(12, 2)  # 12 points, 2.8 apart: DBSCAN calls all noise
    for spec, expected in [("birch", True), (nearest_of_first_points, True),
                           (KMeans(), True), (GaussianMixture(), True), (sized, True),
                           (DBSCAN(), False), (_Plain(), False)]:
        algorithm = get_algorithm(spec)
        assert algorithm.takes_n_clusters is expected, spec
        # the oracle: 3 clusters asked, 3 found when the number reaches the algorithm
        assert (len(np.unique(algorithm(X, 3, 0))) == 3) is expected, spec


def test_estimator_class_is_rejected_with_a_hint() -> None:
    with pytest.raises(TypeError, match=r"KMeans\(\)"):
        get_algorithm(KMeans)


def test_callable_spec(blobs: np.ndarray) -> None:
    algorithm = get_algorithm(record_call)
    assert algorithm.name == "record_call"
    labels = algorithm(blobs, 3, 17)
    assert labels[0] == 3 and labels[1] == 17
    assert algorithm(blobs, 3, None)[1] == -1
    np.testing.assert_array_equal(
        get_algorithm(nearest_of_first_points)(blobs, 3, 0),
        nearest_of_first_points(blobs, 3, 0),
    )


def test_clustering_algorithm_spec_is_returned_unchanged() -> None:
    algorithm = get_algorithm("gmm")
    assert get_algorithm(algorithm) is algorithm


@pytest.mark.parametrize("spec", [3, None, [1, 2], 2.5])
def test_invalid_spec_types(spec: object) -> None:
    with pytest.raises(TypeError, match="algorithm must be"):
        get_algorithm(spec)


# --------------------------------------------------------------------------- register


@pytest.mark.usefixtures("private_registry")
def test_register_algorithm_with_k_multiplier() -> None:
    algorithm = register_algorithm("first-points-3k", nearest_of_first_points, k_multiplier=3)
    assert "first-points-3k" in available_algorithms()
    assert get_algorithm("first-points-3k") is algorithm
    assert algorithm.func is nearest_of_first_points
    X = np.random.default_rng(0).normal(size=(30, 2))
    assert len(np.unique(get_algorithm("first-points-3k")(X, 2, 0))) == 6


@pytest.mark.usefixtures("private_registry")
def test_register_estimator() -> None:
    register_algorithm("kmeans-10", KMeans(n_init=10))
    X = np.random.default_rng(1).normal(size=(50, 2))
    expected = KMeans(n_clusters=3, n_init=10,
                      random_state=random_state_from_seed(4)).fit_predict(X)
    np.testing.assert_array_equal(get_algorithm("kmeans-10")(X, 3, 4), expected)


@pytest.mark.usefixtures("private_registry")
def test_register_refuses_duplicates_unless_overwrite() -> None:
    register_algorithm("mine", record_call)
    with pytest.raises(ValueError, match="already registered"):
        register_algorithm("mine", nearest_of_first_points)
    with pytest.raises(ValueError, match="already registered"):
        register_algorithm("gmm", nearest_of_first_points)
    register_algorithm("mine", nearest_of_first_points, overwrite=True)
    assert get_algorithm("mine").func is nearest_of_first_points


@pytest.mark.usefixtures("private_registry")
def test_register_validates_arguments() -> None:
    with pytest.raises(ValueError, match="k_multiplier"):
        register_algorithm("x", record_call, k_multiplier=0)
    with pytest.raises(TypeError, match="k_multiplier"):
        register_algorithm("x", record_call, k_multiplier=2.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="name"):
        register_algorithm("", record_call)
    with pytest.raises(TypeError, match="func"):
        register_algorithm("x", "gmm")
    with pytest.raises(TypeError, match="algorithm must be"):
        register_algorithm("x", 42)
    assert "x" not in available_algorithms()


def test_registration_does_not_leak_between_tests() -> None:
    assert "mine" not in available_algorithms()
    assert "first-points-3k" not in available_algorithms()


# --------------------------------------------------------------------------- errors


def test_unknown_name_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="single_linkage") as info:
        get_algorithm("single_linkage")
    message = str(info.value)
    assert "did you mean 'single-linkage'" in message
    for name in BUILTINS:
        assert repr(name) in message


def test_failing_algorithm_raises_runtime_error_naming_it(blobs: np.ndarray) -> None:
    with pytest.raises(RuntimeError, match="'failing'.*LinAlgError: singular matrix") as info:
        get_algorithm(failing)(blobs, 3, 0)
    assert isinstance(info.value.__cause__, np.linalg.LinAlgError)


@pytest.mark.usefixtures("private_registry")
def test_failing_registered_algorithm_is_named(blobs: np.ndarray) -> None:
    register_algorithm("fragile", failing)
    with pytest.raises(RuntimeError, match="'fragile'"):
        get_algorithm("fragile")(blobs, 3, 0)


def test_failing_builtin_is_named() -> None:
    X = np.arange(10.0).reshape(5, 2)  # fewer points than spectral's 10 neighbours
    with pytest.raises(RuntimeError, match="'spectral'.*n_neighbors"):
        get_algorithm("spectral")(X, 2, 0)


def runnable_algorithms() -> list[str]:
    """Every registered name whose optional dependency is installed."""
    names = []
    for name in available_algorithms():
        try:
            get_algorithm(name)
        except ImportError:
            continue
        names.append(name)
    return names


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("name", runnable_algorithms() + ["failing"])
def test_non_finite_X_is_refused_before_the_algorithm_runs(name: str, bad: float) -> None:
    X = np.arange(40.0).reshape(20, 2)
    X[7, 1] = bad
    algorithm = get_algorithm(failing if name == "failing" else name)
    # a ValueError, not the RuntimeError of a failing run: `failing` never ran
    with pytest.raises(ValueError, match=rf"X must hold finite numbers only \(no NaN or "
                                         rf"inf\), got 1 non-finite value\(s\), the first "
                                         rf"X\[7, 1\] = {bad}"):
        algorithm(X, 2, 0)


def test_non_numeric_X_is_refused_before_the_algorithm_runs() -> None:
    for X in (np.array([["a", "b"], ["c", "d"]]), np.zeros((2, 2), dtype=object),
              np.zeros((2, 2), dtype=complex)):
        with pytest.raises(TypeError, match=f"X must hold real numbers.*dtype {X.dtype}"):
            get_algorithm(failing)(X, 1, 0)
    labels = get_algorithm("single-linkage")(np.array([[0, 0], [0, 1], [9, 9]]), 2, 0)
    assert same_partition(labels, [0, 0, 1])  # integer X is fine


def test_wrong_length_labels_raise_runtime_error_naming_it(blobs: np.ndarray) -> None:
    with pytest.raises(RuntimeError, match=r"'too_short'.*shape \(239,\).*length 240"):
        get_algorithm(too_short)(blobs, 3, 0)


@pytest.mark.parametrize(
    ("result", "pattern"),
    [
        (lambda n: np.zeros((n, 1), dtype=int), "shape"),
        (lambda n: 0, "shape"),
        (lambda n: np.full(n, 0.5), "not all integers"),
        (lambda n: np.full(n, np.nan), "not all integers"),
        (lambda n: np.array(["a"] * n), "not all integers"),
    ],
)
def test_bad_labels_raise_runtime_error(result, pattern: str) -> None:
    algorithm = ClusteringAlgorithm("odd", lambda X, k, seed: result(len(X)))
    with pytest.raises(RuntimeError, match=f"'odd'.*{pattern}"):
        algorithm(np.zeros((5, 2)), 2, 0)


def test_integral_float_and_bool_labels_are_accepted() -> None:
    X = np.zeros((4, 2))
    floats = ClusteringAlgorithm("floats", lambda X, k, seed: np.array([0.0, 1.0, 1.0, 0.0]))
    np.testing.assert_array_equal(floats(X, 2, 0), [0, 1, 1, 0])
    assert floats(X, 2, 0).dtype == np.intp
    bools = ClusteringAlgorithm("bools", lambda X, k, seed: [True, False, False, True])
    np.testing.assert_array_equal(bools(X, 2, 0), [1, 0, 0, 1])


def test_invalid_call_arguments_raise_before_running(blobs: np.ndarray) -> None:
    algorithm = get_algorithm(failing)  # would raise RuntimeError if it ran
    with pytest.raises(ValueError, match="n_clusters"):
        algorithm(blobs, 0, 0)
    with pytest.raises(TypeError, match="n_clusters"):
        algorithm(blobs, 2.0, 0)
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        algorithm(blobs[:, 0], 2, 0)
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        algorithm(np.zeros((0, 2)), 1, 0)
    with pytest.raises(ValueError, match="seed"):
        algorithm(blobs, 2, -3)
    with pytest.raises(TypeError, match="seed"):
        algorithm(blobs, 2, "zero")
    with pytest.raises(ValueError, match=r"'single-linkage-2k'.*3 \* 2 = 6"):
        get_algorithm("single-linkage-2k")(np.zeros((5, 2)), 3, 0)


def test_clustering_algorithm_validates_its_fields() -> None:
    with pytest.raises(TypeError, match="name"):
        ClusteringAlgorithm("", record_call)
    with pytest.raises(TypeError, match="func"):
        ClusteringAlgorithm("x", 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="k_multiplier"):
        ClusteringAlgorithm("x", record_call, k_multiplier=0)


# --------------------------------------------------------------------------- pickling


@pytest.mark.parametrize(
    "spec",
    [*BUILTINS, KMeans(n_init=2), GaussianMixture(), nearest_of_first_points],
    ids=lambda s: s if isinstance(s, str) else getattr(s, "__name__", type(s).__name__),
)
def test_pickle_round_trip(blobs: np.ndarray, spec: object) -> None:
    algorithm = get_algorithm(spec)
    restored = pickle.loads(pickle.dumps(algorithm))
    assert restored.name == algorithm.name
    assert restored.k_multiplier == algorithm.k_multiplier
    np.testing.assert_array_equal(restored(blobs, 3, 5), algorithm(blobs, 3, 5))
    if isinstance(spec, str) or (callable(spec) and not hasattr(spec, "fit_predict")):
        assert restored == algorithm


@pytest.mark.usefixtures("private_registry")
def test_registered_algorithm_runs_in_a_spawn_worker(blobs: np.ndarray) -> None:
    import multiprocess
    mine = register_algorithm("first-points-2k", nearest_of_first_points, k_multiplier=2)
    algorithms = [get_algorithm("gmm"), get_algorithm("single-linkage-2k"), mine,
                  get_algorithm(KMeans(n_init=2)), get_algorithm("genie"),
                  get_algorithm("kmeans++", preset="hawks-tevc"),
                  get_algorithm("gmm", preset="hawks-tevc")]
    with multiprocess.get_context("spawn").Pool(1) as pool:
        results = pool.starmap(run_in_worker, [(a, blobs) for a in algorithms])
    for algorithm, labels in zip(algorithms, results, strict=True):
        np.testing.assert_array_equal(labels, algorithm(blobs, 3, 11))
