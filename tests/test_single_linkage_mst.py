"""Single linkage through the Euclidean MST: scikit-learn's label arrays, byte for byte.

The oracle is scikit-learn's own ``AgglomerativeClustering(linkage="single")`` (today's
path, O(N^2) Prim), and scipy's single linkage cut exactly (`cut_linkage`) for the
partition. The MST path must give the same array (values and dtype) at every K, take
scikit-learn's tree on ties, duplicates and degenerate inputs, and be off with the switch.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.cluster.hierarchy import linkage
from scipy.spatial.distance import pdist
from sklearn.cluster import AgglomerativeClustering

from hawks_deap.clustering import _library as lib
from hawks_deap.clustering import cut_linkage, get_algorithm

PARAMS = {"linkage": "single"}


def sklearn_labels(X: np.ndarray, k: int) -> np.ndarray:
    return AgglomerativeClustering(n_clusters=k, linkage="single").fit_predict(X)


def scipy_partition(X: np.ndarray, k: int) -> np.ndarray:
    return cut_linkage(linkage(pdist(X), method="single"), k)


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    pairs = np.unique(np.stack([a, b]), axis=1)
    return pairs.shape[1] == len(np.unique(a)) == len(np.unique(b))


def assert_identical(labels: np.ndarray, expected: np.ndarray) -> None:
    assert labels.dtype == expected.dtype
    np.testing.assert_array_equal(labels, expected)


@pytest.fixture
def everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """The MST path at every N in 1 to 3 dimensions (it is measured to lose below)."""
    monkeypatch.setattr(lib, "MST_MIN_SAMPLES", {1: 2, 2: 2, 3: 2})


def mst_tree(X: np.ndarray) -> lib._EmstTree:
    tree = lib._emst_tree(X, PARAMS)
    assert isinstance(tree, lib._EmstTree)
    return tree


# --------------------------------------------------------------------------- property


points = st.integers(2, 30).flatmap(lambda n: st.integers(1, 3).flatmap(lambda d: st.tuples(
    st.sampled_from(["continuous", "grid", "rounded", "duplicated"]),
    st.lists(st.floats(-100, 100, allow_nan=False), min_size=n * d, max_size=n * d),
    st.just((n, d)))))


def make_points(kind: str, values: list[float], shape: tuple[int, int]) -> np.ndarray:
    X = np.asarray(values, dtype=np.float64).reshape(shape)
    if kind == "grid":  # a few values on an even grid: ties and duplicated points
        X = np.floor(np.abs(X)) % 4
    elif kind == "rounded":
        X = np.round(X / 25.0)
    elif kind == "duplicated":
        X[shape[0] // 2:] = X[: shape[0] - shape[0] // 2]
    return X


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # a constant patch
@given(points)
def test_labels_are_sklearns_at_every_k(everywhere: None,
                                       case: tuple[str, list[float], tuple[int, int]]) -> None:
    X = make_points(*case)
    n = X.shape[0]
    tree = lib.agglomerative_tree(X, **PARAMS)
    for k in range(1, n + 1):
        expected = sklearn_labels(X, k)
        assert_identical(lib.agglomerative(X, k, None, **PARAMS), expected)
        assert_identical(tree(k), expected)
        if isinstance(tree, lib._EmstTree) and tree.exact(k) is not None:
            assert same_partition(tree.exact(k), scipy_partition(X, k))


@pytest.mark.parametrize("d", [1, 2, 3])
def test_generic_points_never_fall_back(d: int) -> None:
    X = np.random.default_rng(d).normal(size=(60, d))
    tree = mst_tree(X)
    for k in range(1, 61):
        labels = tree.exact(k)
        assert labels is not None
        assert_identical(labels, sklearn_labels(X, k))
        assert same_partition(labels, scipy_partition(X, k))
    assert tree._sklearn is None  # scikit-learn's tree was never needed


# --------------------------------------------------------------------------- hand cases


def test_hand_computed_1d() -> None:
    # Gaps 1, 2, 4, 8: merges 5 = (0, 1), 6 = (5, 2), 7 = (6, 3), 8 = (7, 4). _hc_cut's
    # heap of negated ids from [-8]: pop the largest id, push its two children; at K = 5
    # it ends as [-4, -2, -3, -1, -0], so point 4 is cluster 0, point 2 cluster 1, ...
    X = np.array([[0.0], [1.0], [3.0], [7.0], [15.0]])
    tree = mst_tree(X)
    expected = {1: [0, 0, 0, 0, 0], 2: [0, 0, 0, 0, 1], 3: [0, 0, 0, 2, 1],
                4: [0, 0, 3, 2, 1], 5: [4, 3, 1, 2, 0]}
    for k, labels in expected.items():
        assert_identical(tree.exact(k), np.array(labels, dtype=np.intp))
        assert_identical(tree(k), sklearn_labels(X, k))


@pytest.mark.parametrize("X", [np.arange(12.0).reshape(-1, 1),
                               np.array([[i, j] for i in range(5) for j in range(5)], float),
                               np.array([[i, j, h] for i in range(3) for j in range(3)
                                         for h in range(3)], float)],
                         ids=["1d", "2d", "3d"])
def test_even_grids_fall_back_on_ties(X: np.ndarray) -> None:
    n = X.shape[0]
    tree = mst_tree(X)
    assert tree.exact(1) is not None  # one cluster needs no cut
    for k in range(2, n):  # every MST edge has the same length
        assert tree.exact(k) is None
        assert_identical(tree(k), sklearn_labels(X, k))


def test_duplicated_points_join_their_twins() -> None:
    rng = np.random.default_rng(5)
    centres = np.array([[0.0, 0.0], [20.0, 0.0], [0.0, 30.0]])
    X = np.vstack([c + rng.normal(size=(10, 2)) for c in centres])
    X = np.vstack([X, X[[0, 12, 25]]])  # one twin in each cluster
    tree = mst_tree(X)
    assert len(tree._mst[0]) == X.shape[0] - 1  # twins are in the tree, at distance 0
    for k in (1, 2, 3, 4, 5):
        assert tree.exact(k) is not None
        assert_identical(tree(k), sklearn_labels(X, k))
    # two clusters of twins: their heaviest internal edges tie at 0
    assert tree.exact(X.shape[0] - 1) is None
    assert_identical(tree(X.shape[0] - 1), sklearn_labels(X, X.shape[0] - 1))


def test_two_clusters_entered_at_the_same_distance_fall_back() -> None:
    # From (0, 0), (1, 0) and (0.6, 0.8) are both at distance 1 (to rounding), and 0.89
    # apart: the MST weights 1 and 0.89 differ, but which cluster scikit-learn's Prim
    # enters first is its own tie-break, so K = 3 is taken from scikit-learn.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.6, 0.8]])
    tree = mst_tree(X)
    assert tree.exact(2) is not None
    assert tree.exact(3) is None
    for k in (1, 2, 3):
        assert_identical(tree(k), sklearn_labels(X, k))


@pytest.mark.parametrize("X", [np.column_stack([np.arange(8.0), 2 * np.arange(8.0)]),
                               np.column_stack([np.arange(8.0), np.arange(8.0) ** 2,
                                                np.zeros(8)]),
                               np.array([[0.0, 0.0], [1.0, 1.0]])],
                         ids=["collinear", "coplanar", "two-points"])
def test_degenerate_points_take_sklearns_tree(everywhere: None, X: np.ndarray) -> None:
    assert lib._emst(X) is None  # qhull cannot triangulate them
    tree = lib.agglomerative_tree(X, **PARAMS)
    assert not isinstance(tree, lib._EmstTree)
    for k in range(1, X.shape[0] + 1):
        assert_identical(tree(k), sklearn_labels(X, k))
        assert_identical(lib.agglomerative(X, k, None, **PARAMS), sklearn_labels(X, k))


def test_sklearns_tree_is_built_once_for_several_tied_cuts() -> None:
    X = np.arange(10.0).reshape(-1, 1)
    tree = mst_tree(X)
    tree(3)
    built = tree._sklearn
    assert built is not None
    tree(4)
    assert tree._sklearn is built


# --------------------------------------------------------------------------- range, switch


def test_range_of_the_mst_path(monkeypatch: pytest.MonkeyPatch) -> None:
    use = lib._use_emst
    for d, n in lib.MST_MIN_SAMPLES.items():
        assert use(np.zeros((n, d)), PARAMS)
        assert not use(np.zeros((n - 1, d)), PARAMS)
    assert not use(np.zeros((50_000, 4)), PARAMS)  # Delaunay grows too fast with D
    assert not use(np.zeros((5_000, 2)), {"linkage": "single", "metric": "manhattan"})
    assert not use(np.zeros((5_000, 2)), {"linkage": "average"})
    assert use(np.zeros((5_000, 2)), {"linkage": "single", "metric": "euclidean"})
    monkeypatch.setattr(lib, "MST_SINGLE_LINKAGE", False)
    assert not use(np.zeros((5_000, 2)), PARAMS)


@pytest.mark.parametrize("switch", [True, False])
def test_switch_chooses_the_path_not_the_labels(monkeypatch: pytest.MonkeyPatch,
                                                switch: bool) -> None:
    monkeypatch.setattr(lib, "MST_SINGLE_LINKAGE", switch)
    rng = np.random.default_rng(9)
    X = np.vstack([rng.normal(loc, 0.5, size=(240, 2)) for loc in range(0, 25, 5)])
    assert X.shape[0] >= lib.MST_MIN_SAMPLES[2]
    assert isinstance(lib.agglomerative_tree(X, **PARAMS), lib._EmstTree) is switch
    # the registered algorithms, with the tree shared by K and 2K as performance_table does
    trees: dict = {}
    single, double = get_algorithm("single-linkage"), get_algorithm("single-linkage-2k")
    assert_identical(single(X, 5, 0, trees=trees), sklearn_labels(X, 5))
    assert_identical(double(X, 5, 0, trees=trees), sklearn_labels(X, 10))
    assert len(trees) == 1
    (_, tree), = trees.values()
    assert isinstance(tree, lib._EmstTree) is switch
    if switch:
        assert tree.exact(5) is not None and tree.exact(10) is not None
