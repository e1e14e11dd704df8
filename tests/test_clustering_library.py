"""The algorithms people compare (issue 21): Ward, complete linkage, spectral, BIRCH, Genie.

Oracles: direct calls of scipy, scikit-learn and genieclust; "same partition" is
scikit-learn's adjusted Rand index equal to exactly 1.0.
"""

from __future__ import annotations

import pickle
import sys
import tracemalloc
import warnings

import genieclust
import numpy as np
import pytest
from scipy.cluster.hierarchy import fcluster, linkage
from sklearn.cluster import AgglomerativeClustering, Birch, SpectralClustering
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

import hawks_deap as hd
from hawks_deap import cli
from hawks_deap.analysis.features import clustering_seed, performance_table
from hawks_deap.clustering import available_algorithms, get_algorithm, random_state_from_seed

NEW = ["ward-linkage", "complete-linkage", "complete-linkage-2k", "spectral", "birch", "genie"]
pytestmark = pytest.mark.usefixtures("one_blas_thread")


@pytest.fixture(scope="module")
def X() -> np.ndarray:
    """Four overlapping Gaussian blobs, N=240, D=2 (continuous: no distance ties)."""
    return make_blobs(n_samples=240, centers=4, cluster_std=1.5, random_state=3)[0]


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    return adjusted_rand_score(a, b) == 1.0


def test_the_new_names_are_registered_after_the_papers() -> None:
    assert available_algorithms()[6:12] == NEW
    for name in NEW:
        algorithm = get_algorithm(name)
        assert algorithm.name == name
        assert algorithm.k_multiplier == (2 if name.endswith("-2k") else 1)


@pytest.mark.parametrize("method", ["ward", "complete"])
def test_ward_and_complete_linkage_match_scipy_and_scikit_learn(X: np.ndarray,
                                                                method: str) -> None:
    Z = linkage(X, method=method)
    for k in (1, 2, 4, 9):
        labels = get_algorithm(f"{method}-linkage")(X, k, 0)
        assert len(np.unique(labels)) == k
        assert same_partition(labels, fcluster(Z, k, criterion="maxclust"))
        sk = AgglomerativeClustering(n_clusters=k, linkage=method).fit_predict(X)
        assert same_partition(labels, sk)
    doubled = get_algorithm("complete-linkage-2k")(X, 4, 0)
    np.testing.assert_array_equal(doubled, get_algorithm("complete-linkage")(X, 8, 0))


def test_ward_and_complete_linkage_give_exactly_k_clusters_with_ties() -> None:
    grid = np.stack(np.meshgrid(np.arange(6.0), np.arange(5.0)), axis=-1).reshape(-1, 2)
    for name in ("ward-linkage", "complete-linkage", "complete-linkage-2k"):
        algorithm = get_algorithm(name)
        for k in (2, 4, 7):
            assert len(np.unique(algorithm(grid, k, 0))) == k * algorithm.k_multiplier


def test_spectral_matches_scikit_learn(X: np.ndarray) -> None:
    for seed in (0, 7):
        expected = SpectralClustering(
            n_clusters=4, affinity="nearest_neighbors", n_neighbors=10,
            assign_labels="kmeans", random_state=random_state_from_seed(seed)).fit_predict(X)
        np.testing.assert_array_equal(get_algorithm("spectral")(X, 4, seed), expected)


def _birch_by_hand(X: np.ndarray, k: int) -> tuple[np.ndarray, int]:
    """scikit-learn's Birch with the threshold halved until it finds k subclusters."""
    for halvings in range(41):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            birch = Birch(n_clusters=k, threshold=0.5 / 2**halvings).fit(X)
        if len(birch.subcluster_centers_) >= k:
            return birch.labels_, halvings
    raise AssertionError("unreachable on continuous data")


def test_birch_matches_scikit_learn_at_its_default_threshold(X: np.ndarray) -> None:
    large = 10 * X  # subclusters of radius 0.5 are many here
    for k in (2, 4, 9):
        expected, halvings = _birch_by_hand(large, k)
        assert halvings == 0
        np.testing.assert_array_equal(get_algorithm("birch")(large, k, 0),
                                      Birch(n_clusters=k).fit_predict(large))
        np.testing.assert_array_equal(get_algorithm("birch")(large, k, 0), expected)


def test_birch_halves_its_threshold_on_small_data(X: np.ndarray) -> None:
    small = X / 20  # a radius of 0.5 holds almost everything
    with pytest.warns(ConvergenceWarning, match="subclusters"):
        plain = Birch(n_clusters=8).fit_predict(small)
    assert len(np.unique(plain)) < 8  # scikit-learn's own result: too few clusters
    expected, halvings = _birch_by_hand(small, 8)
    assert halvings > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        labels = get_algorithm("birch")(small, 8, 0)
    np.testing.assert_array_equal(labels, expected)
    assert len(np.unique(labels)) == 8


def test_genie_matches_genieclust(X: np.ndarray) -> None:
    for k in (2, 4, 9):
        expected = genieclust.Genie(n_clusters=k, gini_threshold=0.3).fit_predict(X)
        np.testing.assert_array_equal(get_algorithm("genie")(X, k, 0), expected)
        assert len(np.unique(expected)) == k


def test_genie_on_one_dimensional_data() -> None:
    x = np.random.default_rng(5).normal(size=(60, 1)) * [3.0]
    labels = get_algorithm("genie")(x, 3, 0)
    # the same distances, embedded on a line at an angle in the plane
    angle = np.array([[np.cos(0.7), np.sin(0.7)]])
    assert same_partition(labels, genieclust.Genie(n_clusters=3).fit_predict(x * angle))
    assert len(np.unique(labels)) == 3


@pytest.mark.parametrize("name", ["birch", "genie", "ward-linkage", "complete-linkage"])
def test_one_and_n_clusters(name: str) -> None:
    X = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 1.0]])
    np.testing.assert_array_equal(get_algorithm(name)(X, 1, 0), [0, 0, 0])
    assert sorted(get_algorithm(name)(X, 3, 0)) == [0, 1, 2]
    np.testing.assert_array_equal(get_algorithm(name)(X[:1], 1, 0), [0])


@pytest.mark.parametrize("name", available_algorithms())
def test_every_registered_algorithm_gives_k_integer_labels_and_pickles(X: np.ndarray,
                                                                       name: str) -> None:
    algorithm = get_algorithm(name)
    labels = algorithm(X, 3, 1)
    assert labels.shape == (len(X),) and labels.dtype == np.intp
    assert len(np.unique(labels)) == 3 * algorithm.k_multiplier
    np.testing.assert_array_equal(algorithm(X, 3, 1), labels)  # seeded: deterministic
    restored = pickle.loads(pickle.dumps(algorithm))
    assert restored == algorithm and hash(restored) == hash(algorithm)
    np.testing.assert_array_equal(restored(X, 3, 1), labels)


@pytest.mark.parametrize("name", available_algorithms())
def test_pairwise_is_declared_by_the_algorithms_that_hold_every_distance(name: str) -> None:
    """Oracle: tracemalloc's peak (numpy's arrays are traced) against the condensed matrix."""
    n = 2000
    X = make_blobs(n_samples=n, centers=4, random_state=0)[0]
    algorithm = get_algorithm(name)
    algorithm(X[:50], 3, 0)  # imports and first-use caches stay out of the measure
    tracemalloc.start()
    try:
        algorithm(X, 3, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    condensed = 8 * n * (n - 1) // 2
    assert algorithm.pairwise is (peak >= condensed), peak
    if not algorithm.pairwise:
        assert peak < condensed / 4, peak  # far below: not a borderline case
    assert algorithm.memory_bytes(n) == (2 * condensed if algorithm.pairwise else 0)


_PEAK_SCRIPT = '''
import sys
from sklearn.datasets import make_blobs
from hawks_deap.clustering import get_algorithm


def status(key):
    with open("/proc/self/status") as lines:
        return next(1024 * int(line.split()[1]) for line in lines if line.startswith(key))


n = int(sys.argv[2])
X = make_blobs(n_samples=n, centers=4, random_state=0)[0]
algorithm = get_algorithm(sys.argv[1])
algorithm(X[:50], 3, 0)
peaks = []
# the least of 3: a page the system took back before a call and faulted in again during
# it counts in that call's peak without being the call's
for _ in range(3):
    before = status("VmRSS:")
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # resets the peak (VmHWM) to the resident size now
    algorithm(X, 3, 0)
    peaks.append(status("VmHWM:") - before)
print(min(peaks))
'''


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/clear_refs: Linux only")
@pytest.mark.parametrize("name", ["average-linkage", "ward-linkage", "complete-linkage-2k"])
def test_memory_bytes_is_the_measured_peak_of_a_pairwise_call(name: str) -> None:
    """Oracle: the process's peak resident memory over the call (scipy's linkage copies the
    condensed matrix outside numpy's traced allocations: tracemalloc sees one of the two)."""
    import subprocess

    n = 5000  # 100 MB a condensed matrix: far above the interpreter's own noise
    out = subprocess.run([sys.executable, "-c", _PEAK_SCRIPT, name, str(n)], check=True,
                         capture_output=True, text=True).stdout
    peak, bound = int(out), get_algorithm(name).memory_bytes(n)
    assert 0.97 * bound <= peak <= 1.15 * bound, (peak, bound)  # a bound, and a tight one


def test_users_algorithms_declare_no_pairwise_need() -> None:
    for spec in (AgglomerativeClustering(linkage="average"), lambda X, k, seed: X[:, 0] > 0):
        algorithm = get_algorithm(spec)
        assert not algorithm.pairwise and algorithm.memory_bytes(10**6) == 0
    with pytest.raises(ValueError, match="n_samples must be >= 0"):
        get_algorithm("ward-linkage").memory_bytes(-1)


def test_missing_genieclust_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path,
                                            capsys: pytest.CaptureFixture) -> None:
    before = get_algorithm("genie")
    monkeypatch.setitem(sys.modules, "genieclust", None)  # "import genieclust" fails
    with pytest.raises(ImportError, match=r'pip install "hawks-deap\[genie\]"'):
        get_algorithm("genie")
    assert "genie" in available_algorithms()  # still a name: the error says what to do
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(RuntimeError, match=r"'genie'.*hawks-deap\[genie\]"):  # in a worker
        before(X, 2, 0)
    with pytest.raises(ImportError, match=r"hawks-deap\[genie\]"):
        performance_table([(X, np.repeat([0, 1], 15))], ["kmeans++", "genie"])
    hd.Dataset(X, np.repeat([0, 1], 15)).save(tmp_path / "d")
    code = cli.main(["features", str(tmp_path / "d"), "--algorithms", "kmeans++,genie"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert 'pip install "hawks-deap[genie]"' in err
    # "all": every algorithm that runs here, with a note of what is left out
    code = cli.main(["features", str(tmp_path / "d"), "--algorithms", "all", "--format",
                     "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "leaves out 'genie'" in err and 'pip install "hawks-deap[genie]"' in err
    header = out.splitlines()[0].split(",")
    assert [c for c in header if c.startswith("ari_")] == [
        f"ari_{name}" for name in available_algorithms() if name != "genie"]


# well-separated clusters give a k-NN graph with a component per cluster, which
# scikit-learn's spectral embedding warns about (and spectral clustering then finds)
@pytest.mark.filterwarnings("ignore:Graph is not fully connected:UserWarning")
def test_performance_table_takes_the_new_algorithms() -> None:
    rng = np.random.default_rng(4)
    y = np.repeat(np.arange(3), 30)
    data = [(rng.normal(size=(90, 2)) * s + np.array([[0, 0], [4, 0], [0, 4]])[y], y)
            for s in (0.5, 1.5)]
    table = performance_table(data, NEW, seed=3)
    assert table.columns == tuple(NEW)
    for i, (X, _) in enumerate(data):
        for j, name in enumerate(NEW):
            labels = get_algorithm(name)(X, 3, clustering_seed(3, X, name))
            assert table.values[i, j] == pytest.approx(adjusted_rand_score(y, labels),
                                                       rel=1e-12)
