"""The registered algorithms' library calls, and the exact cut of a linkage matrix.

Each function ``run(X, n_clusters, seed, **params)`` makes one library call with the
keyword arguments ``params``; each `LibraryCall` constant below pairs a function with
its default keyword arguments (its settings). The linkages also have a ``*_tree``
function that builds their hierarchy once, to cut it at several numbers of clusters.
Libraries are imported on first use: Index mode never needs them.
"""

from __future__ import annotations

import heapq
import warnings
from collections.abc import Callable, Mapping
from functools import partial

import numpy as np
from scipy.cluster.hierarchy import linkage
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
from scipy.spatial import Delaunay, QhullError
from scipy.spatial.distance import pdist

from hawks_deap._util.labels import encode_labels
from hawks_deap._util.validation import check_int
from hawks_deap.clustering._core import (
    BUILTIN_CALLS,
    LibraryCall,
    import_optional,
    random_state_from_seed,
)

__all__ = [
    "AVERAGE_LINKAGE",
    "BIRCH",
    "BIRCH_HALVINGS",
    "COMPLETE_LINKAGE",
    "GENIE",
    "GMM",
    "KMEANS_PLUS_PLUS",
    "SINGLE_LINKAGE",
    "SPECTRAL",
    "WARD_LINKAGE",
    "cut_linkage",
]


# --------------------------------------------------------------------------- linkage cut


def cut_linkage(Z: np.ndarray, n_clusters: int) -> np.ndarray:
    """Cut a linkage matrix into exactly ``n_clusters`` flat clusters.

    The partition is the one reached after the first ``N - n_clusters`` merges of ``Z``,
    i.e. the last ``n_clusters - 1`` merges are undone. Unlike
    ``fcluster(Z, n_clusters, criterion="maxclust")``, which cuts at a distance threshold,
    this gives exactly ``n_clusters`` clusters even when merge distances are tied. For a
    monotone linkage (single, average, complete, Ward) without ties both give the same
    partition, as does :func:`scipy.cluster.hierarchy.cut_tree`.

    Parameters
    ----------
    Z : ndarray of shape (N - 1, 4)
        A linkage matrix as returned by :func:`scipy.cluster.hierarchy.linkage`.
    n_clusters : int
        The number of clusters, ``1 <= n_clusters <= N``.

    Returns
    -------
    ndarray of shape (N,)
        Integer labels in ``0 .. n_clusters - 1``, numbered in order of first appearance.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.cluster.hierarchy import fcluster, linkage
    >>> X = np.arange(6.0).reshape(-1, 1)  # a regular grid: all merge distances tie
    >>> Z = linkage(X, method="single")
    >>> len(np.unique(fcluster(Z, 3, criterion="maxclust")))
    1
    >>> len(np.unique(cut_linkage(Z, 3)))
    3
    """
    Z = np.asarray(Z)
    if Z.ndim != 2 or Z.shape[1] != 4:
        raise ValueError(f"Z must be a linkage matrix of shape (N - 1, 4), got shape {Z.shape}")
    n_clusters = check_int("n_clusters", n_clusters, minimum=1, maximum=Z.shape[0] + 1)
    return _cut_merges(Z[:, :2], n_clusters)


def _cut_merges(merges: np.ndarray, n_clusters: int) -> np.ndarray:
    """`cut_linkage` of ``merges`` (the two children of each merge); no checks."""
    n = merges.shape[0] + 1
    # connected_components numbers components in order of their smallest node, so the
    # codes of the leaves are already in order of first appearance.
    return encode_labels(_cut_components(merges, n_clusters)[:n])[0]


def _cut_components(merges: np.ndarray, n_clusters: int) -> np.ndarray:
    """The component of every node (leaves, then merges) after the first N - K merges."""
    n = merges.shape[0] + 1
    n_kept = n - n_clusters
    # Union of the first n_kept merges: node n + i is joined to its two children.
    parents = np.repeat(np.arange(n, n + n_kept), 2)
    children = merges[:n_kept].astype(np.intp).ravel()
    size = 2 * n - 1
    graph = coo_matrix((np.ones(children.size, dtype=np.int8), (parents, children)),
                       shape=(size, size))
    return connected_components(graph, directed=False)[1]


def _cut_children(children: np.ndarray, n_clusters: int) -> np.ndarray:
    """The cut of scikit-learn's tree ``children``, numbered as scikit-learn numbers it.

    ``AgglomerativeClustering(n_clusters).fit(X).labels_`` without connectivity: the
    partition of `_cut_merges`, each cluster numbered by the position of its root in
    scikit-learn's heap of the nodes left after undoing the last ``n_clusters - 1``
    merges (``sklearn.cluster._agglomerative._hc_cut``). The heap is replayed on the
    roots only (K - 1 steps); the leaves take the number of their component.
    """
    n = children.shape[0] + 1
    component = _cut_components(children, n_clusters)
    nodes = [-(2 * n - 2)]  # the root (_hc_cut's max(children[-1]) + 1)
    for _ in range(n_clusters - 1):
        left, right = children[-nodes[0] - n]
        heapq.heappush(nodes, -int(left))
        heapq.heappushpop(nodes, -int(right))
    codes = np.empty(component.max() + 1, dtype=np.intp)
    codes[component[-np.asarray(nodes, dtype=np.intp)]] = np.arange(len(nodes))
    return codes[component[:n]]


def _trivial_partition(n_samples: int, n_clusters: int) -> np.ndarray | None:
    """The only partition into 1 or N clusters (libraries that need 2 <= K < N)."""
    if n_clusters == 1:
        return np.zeros(n_samples, dtype=np.intp)
    if n_clusters == n_samples:
        return np.arange(n_samples, dtype=np.intp)
    return None


# ------------------------------------------------------------------- single linkage by the EMST

#: Whether `agglomerative` and `agglomerative_tree` find single linkage through the
#: Euclidean minimum spanning tree of a Delaunay triangulation where that gives exactly
#: scikit-learn's labels (`_emst_tree`); False sends every call to scikit-learn. A switch
#: for benchmarks/bench_single_linkage.py and the tests: the labels are the same either way.
MST_SINGLE_LINKAGE = True
#: The smallest N at which the MST path is taken, by dimension (none above 3), measured
#: by benchmarks/bench_single_linkage.py: below it scikit-learn's O(N^2) loop is faster
#: than qhull's Delaunay triangulation, whose cost grows fast with the dimension (1-D
#: needs only a sort). At K = 5 (ms, scikit-learn / MST): 2-D N=1000 5.4 / 5.4, N=2000
#: 16.7 / 10.4, N=10000 298 / 44; 3-D N=2000 15.8 / 29.4, N=8000 199 / 153.
MST_MIN_SAMPLES: dict[int, int] = {1: 100, 2: 1000, 3: 8000}
#: Distances closer than this (relative) count as tied: scikit-learn computes them with
#: its own loop, which may round differently from numpy's in the last bits.
_TIE_RTOL = 1e-12

_MstEdges = tuple[np.ndarray, np.ndarray, np.ndarray]  # (i, j, distance) of each edge


def _use_emst(X: np.ndarray, params: Mapping[str, object]) -> bool:
    """Whether `agglomerative` with ``params`` on ``X`` takes the MST path."""
    return (MST_SINGLE_LINKAGE and set(params) <= {"linkage", "metric"}
            and params.get("linkage") == "single"
            and params.get("metric", "euclidean") == "euclidean"
            and X.ndim == 2 and X.shape[0] >= max(MST_MIN_SAMPLES.get(X.shape[1], 0), 2)
            and X.shape[1] in MST_MIN_SAMPLES)


def _distances(X: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Euclidean distances of the pairs ``(i, j)``, squares summed feature by feature."""
    diff = X[i] - X[j]
    return np.sqrt((diff * diff).sum(axis=1))


def _emst(X: np.ndarray) -> tuple[_MstEdges, _MstEdges] | None:
    """A Euclidean MST of ``X`` and the Delaunay edges (once each); None where qhull fails.

    Every edge of a Euclidean MST is a Delaunay edge, and so is every pair that can be
    the shortest between two sets of points (its diametral disk is empty), which the
    tie checks of `_cluster_prim` rely on. In 1-D the Delaunay edges are the neighbours
    in sorted order. Duplicated points, which qhull leaves out, join their twin at
    distance 0.
    """
    n = X.shape[0]
    if X.shape[1] == 1:
        order = np.argsort(X[:, 0], kind="stable")
        i, j = order[:-1], order[1:]
        mst = (i, j, _distances(X, i, j))
        return mst, mst
    try:
        tri = Delaunay(X)
    except QhullError:  # all points collinear (coplanar in 3-D), or too few
        return None
    indptr, cols = tri.vertex_neighbor_vertices
    rows = np.repeat(np.arange(n), np.diff(indptr))
    once = rows < cols  # each edge is listed from both ends
    rows, cols = rows[once], cols[once].astype(np.intp)
    w = _distances(X, rows, cols)
    if not np.all(w > 0):  # distinct points whose distance underflows: csgraph drops 0s
        return None
    tree = minimum_spanning_tree(coo_matrix((w, (rows, cols)), shape=(n, n))).tocoo()
    i, j, mst_w = tree.row.astype(np.intp), tree.col.astype(np.intp), tree.data
    twins = tri.coplanar  # (point, facet, nearest vertex) of each point left out
    if twins.size:
        point, twin = twins[:, 0].astype(np.intp), twins[:, 2].astype(np.intp)
        if not np.array_equal(X[point], X[twin]):  # left out for precision, not a twin
            return None
        zeros = np.zeros(point.size)
        i, j, mst_w = (np.concatenate([i, point]), np.concatenate([j, twin]),
                       np.concatenate([mst_w, zeros]))
        rows, cols, w = (np.concatenate([rows, point]), np.concatenate([cols, twin]),
                         np.concatenate([w, zeros]))
    return (i, j, mst_w), (rows, cols, w)


def _tied(values: np.ndarray) -> bool:
    """Whether two of the decreasing ``values`` are within `_TIE_RTOL` of each other."""
    return bool(np.any(values[:-1] <= values[1:] * (1 + _TIE_RTOL)))


def _emst_cut(n: int, mst: _MstEdges, graph: _MstEdges, n_clusters: int
              ) -> np.ndarray | None:
    """scikit-learn's single-linkage labels at ``n_clusters``, or None where not exact.

    The K-cluster partition is the components of the MST without its K - 1 heaviest
    edges, the same for every MST when the (K-1)-th heaviest weight is larger than the
    K-th. scikit-learn numbers the clusters by replaying a heap of node ids (`_hc_cut`),
    and its ids come from its merge order: the K - 1 cut edges by weight (ties refused),
    each cluster's root by its heaviest internal edge (ties refused; a single point is
    its own id, below every merge), and each merge's (left, right) children by the order
    in which its Prim's algorithm from point 0 enters the clusters (`_cluster_prim`).
    Exact in real arithmetic; in floating point, a pair that is not a Delaunay edge could
    still tie with the lightest Delaunay edge into another cluster by rounding alone
    (distances equal to about 1e-16, relative), which no test has met.
    """
    if n_clusters == 1:
        return np.zeros(n, dtype=np.intp)
    i, j, w = mst
    order = np.argsort(-w, kind="stable")
    cut = w[order[:n_clusters]]  # the K - 1 cut edges and the K-th heaviest (if K < N)
    # A cut edge that rounding can absorb (0: twins) lets scikit-learn reach its far
    # cluster at the same computed distance as its near one, by a pair not in Delaunay.
    if _tied(cut) or not cut[n_clusters - 2] > cut[0] * _TIE_RTOL:
        return None
    keep = order[n_clusters - 1:]
    kept = coo_matrix((np.ones(keep.size, dtype=np.int8), (i[keep], j[keep])), shape=(n, n))
    comp = connected_components(kept, directed=False)[1]
    heaviest = np.full(n_clusters, -1.0)  # -1: a single point
    np.maximum.at(heaviest, comp[i[keep]], w[keep])
    merged = np.flatnonzero(np.bincount(comp, minlength=n_clusters) > 1)
    by_weight = merged[np.argsort(-heaviest[merged], kind="stable")]
    if _tied(heaviest[by_weight]):
        return None
    roots = np.unique(comp, return_index=True)[1]  # a single point's id is its index
    roots[by_weight[::-1]] = n + np.arange(by_weight.size)  # only the order of ids counts
    prim = _cluster_prim(comp, graph, n_clusters)
    if prim is None or not np.array_equal(np.sort(prim[1]), np.sort(w[order[:n_clusters - 1]])):
        return None
    return _heap_labels(comp, roots, *prim, first_merge=2 * n)


def _cluster_prim(comp: np.ndarray, graph: _MstEdges, n_clusters: int
                  ) -> tuple[list[int], list[float]] | None:
    """The clusters in the order Prim's algorithm from point 0 enters them, and the weights.

    scikit-learn's Prim (`mst_linkage_core`) finishes a cluster before it crosses one of
    the heavier cut edges, so it enters the clusters as Prim's algorithm on the clusters
    does, taking the lightest Delaunay edge out of those entered. None when another
    cluster can be entered at the same weight (to `_TIE_RTOL`): scikit-learn would break
    the tie by its own rounding and point order.
    """
    rows, cols, w = graph
    cross = comp[rows] != comp[cols]
    source = np.concatenate([comp[rows[cross]], comp[cols[cross]]])  # both ways
    target = np.concatenate([comp[cols[cross]], comp[rows[cross]]])
    w = np.tile(w[cross], 2)
    key = source * n_clusters + target
    if key.size == 0:  # the Delaunay graph is connected; defensive
        return None
    order = np.lexsort((w, key))  # the lightest edge of each ordered pair first
    key, w = key[order], w[order]
    first = np.concatenate([[True], key[1:] != key[:-1]])
    key, w = key[first], w[first]
    starts = np.searchsorted(key // n_clusters, np.arange(n_clusters + 1))
    targets = key % n_clusters
    entered = np.zeros(n_clusters, dtype=bool)
    heap: list[tuple[float, int]] = []
    visits, weights = [0], []  # point 0 is in cluster 0 (numbered by smallest point)
    for step in range(n_clusters):
        cluster = visits[-1]
        entered[cluster] = True
        for edge in range(starts[cluster], starts[cluster + 1]):
            heapq.heappush(heap, (float(w[edge]), int(targets[edge])))
        if step == n_clusters - 1:
            break
        while heap and entered[heap[0][1]]:
            heapq.heappop(heap)
        if not heap:  # the Delaunay graph reaches every cluster; defensive
            return None
        weight, cluster = heapq.heappop(heap)
        while heap and heap[0][0] <= weight * (1 + _TIE_RTOL):
            other = heapq.heappop(heap)[1]
            if other != cluster and not entered[other]:
                return None
        visits.append(cluster)
        weights.append(weight)
    return visits, weights


def _heap_labels(comp: np.ndarray, roots: np.ndarray, visits: list[int],
                 weights: list[float], *, first_merge: int) -> np.ndarray:
    """`_hc_cut`'s labels: the cut merges' children replayed through its heap.

    Merge ``r`` (by increasing weight) gets id ``first_merge + r``, above every root;
    its children are (left) the cluster Prim's algorithm left and (right) the one it
    entered, each as the id of its current merge (a union-find over the clusters).
    """
    n_clusters = len(visits)
    parent = list(range(n_clusters))
    node = [int(root) for root in roots]

    def find(cluster: int) -> int:
        while parent[cluster] != cluster:
            cluster = parent[cluster]
        return cluster

    children: dict[int, tuple[int, int]] = {}
    for rank, step in enumerate(np.argsort(weights, kind="stable")):
        left, right = find(visits[step]), find(visits[step + 1])
        children[first_merge + rank] = (node[left], node[right])
        parent[right] = left
        node[left] = first_merge + rank
    nodes = [-(first_merge + n_clusters - 2)]
    for _ in range(n_clusters - 1):  # as _hc_cut and _cut_children
        left_id, right_id = children[-nodes[0]]
        heapq.heappush(nodes, -left_id)
        heapq.heappushpop(nodes, -right_id)
    position = {-node_id: place for place, node_id in enumerate(nodes)}
    codes = np.array([position[int(root)] for root in roots], dtype=np.intp)
    return codes[comp]


class _EmstTree:
    """Single linkage by the Euclidean MST: ``n_clusters -> labels``, scikit-learn's.

    Each cut the MST cannot give exactly (ties) is taken from scikit-learn's tree, built
    at most once.
    """

    def __init__(self, X: np.ndarray, params: Mapping[str, object],
                 edges: tuple[_MstEdges, _MstEdges]) -> None:
        self._X, self._params = X, dict(params)
        self._mst, self._graph = edges
        self._sklearn: Callable[[int], np.ndarray] | None = None

    def exact(self, n_clusters: int) -> np.ndarray | None:
        """The labels from the MST, or None where scikit-learn's tree is needed."""
        return _emst_cut(self._X.shape[0], self._mst, self._graph, n_clusters)

    def __call__(self, n_clusters: int) -> np.ndarray:
        labels = self.exact(n_clusters)
        if labels is None:
            if self._sklearn is None:
                self._sklearn = _sklearn_tree(self._X, self._params)
            labels = self._sklearn(n_clusters)
        return labels


def _emst_tree(X: np.ndarray, params: Mapping[str, object]
               ) -> Callable[[int], np.ndarray]:
    """`_EmstTree` of ``X``, or scikit-learn's tree where qhull cannot triangulate ``X``."""
    X = np.ascontiguousarray(X, dtype=np.float64)  # as scikit-learn computes
    edges = _emst(X)
    if edges is None:
        return _sklearn_tree(X, params)
    return _EmstTree(X, params, edges)


# --------------------------------------------------------------------------- library calls


def kmeans(X: np.ndarray, n_clusters: int, seed: int | None, **params: object) -> np.ndarray:
    """``sklearn.cluster.KMeans(n_clusters, random_state, **params).fit_predict(X)``."""
    from sklearn.cluster import KMeans

    estimator = KMeans(n_clusters=n_clusters, random_state=random_state_from_seed(seed),
                       **params)
    return estimator.fit_predict(X)


def gaussian_mixture(X: np.ndarray, n_clusters: int, seed: int | None,
                     **params: object) -> np.ndarray:
    """``GaussianMixture(n_components, random_state, **params).fit(X).predict(X)``."""
    from sklearn.mixture import GaussianMixture

    estimator = GaussianMixture(n_components=n_clusters,
                                random_state=random_state_from_seed(seed), **params)
    return estimator.fit(X).predict(X)


def agglomerative(X: np.ndarray, n_clusters: int, seed: int | None,
                  **params: object) -> np.ndarray:
    """``sklearn.cluster.AgglomerativeClustering(n_clusters, **params).fit_predict(X)``."""
    del seed  # deterministic
    if X.shape[0] == 1:
        return np.zeros(1, dtype=np.intp)
    if _use_emst(X, params):  # the same labels, from the MST where they are exact
        return _emst_tree(X, params)(n_clusters)
    from sklearn.cluster import AgglomerativeClustering

    return AgglomerativeClustering(n_clusters=n_clusters, **params).fit_predict(X)


#: The tree of one point (no merges), which scikit-learn and scipy refuse to build.
_ONE_POINT_TREE = partial(_cut_merges, np.empty((0, 2), dtype=np.intp))


def agglomerative_tree(X: np.ndarray, **params: object) -> Callable[[int], np.ndarray]:
    """The tree `agglomerative` cuts, built once: ``n_clusters -> labels``.

    Without connectivity scikit-learn always builds the whole tree and cuts it by
    undoing its last ``n_clusters - 1`` merges, as `cut_linkage` does: the partition is
    the same, and `_cut_children` numbers it as scikit-learn does (the labels of
    `agglomerative`). Single linkage in 1 to 3 dimensions is cut from the Euclidean MST
    where that gives the same labels (`MST_SINGLE_LINKAGE`).
    """
    if X.shape[0] == 1:
        return _ONE_POINT_TREE
    if _use_emst(X, params):
        return _emst_tree(X, params)
    return _sklearn_tree(X, params)


def _sklearn_tree(X: np.ndarray, params: Mapping[str, object]) -> Callable[[int], np.ndarray]:
    """scikit-learn's whole tree of ``X``, cut by `_cut_children`."""
    from sklearn.cluster import AgglomerativeClustering

    children = AgglomerativeClustering(n_clusters=1, **params).fit(X).children_
    return partial(_cut_children, children)


def linkage_tree(X: np.ndarray, *, method: str, metric: str) -> Callable[[int], np.ndarray]:
    """The linkage `linkage_cut` cuts, built once: ``n_clusters -> labels``."""
    if X.shape[0] == 1:
        return _ONE_POINT_TREE
    Z = linkage(pdist(np.asarray(X, dtype=np.float64), metric=metric), method=method)
    return partial(_cut_merges, Z[:, :2])


def linkage_cut(X: np.ndarray, n_clusters: int, seed: int | None, *, method: str,
                metric: str) -> np.ndarray:
    """``scipy.cluster.hierarchy.linkage(pdist(X, metric), method)``, cut exactly."""
    del seed  # deterministic
    trivial = _trivial_partition(X.shape[0], n_clusters)
    if trivial is not None:  # what the cut gives too, without building the linkage
        return trivial
    return linkage_tree(X, method=method, metric=metric)(n_clusters)


def spectral(X: np.ndarray, n_clusters: int, seed: int | None, **params: object) -> np.ndarray:
    """``sklearn.cluster.SpectralClustering(n_clusters, random_state, **params)``."""
    from sklearn.cluster import SpectralClustering

    estimator = SpectralClustering(n_clusters=n_clusters,
                                   random_state=random_state_from_seed(seed), **params)
    return estimator.fit_predict(X)


#: Birch's threshold is halved at most this many times (a factor of about 10**12).
BIRCH_HALVINGS = 40


def birch(X: np.ndarray, n_clusters: int, seed: int | None, *, threshold: float,
          **params: object) -> np.ndarray:
    """``sklearn.cluster.Birch(n_clusters, threshold, **params)``; threshold halved as needed.

    Birch's threshold is a radius in the units of ``X``: on data small against it the
    CF tree has fewer than ``n_clusters`` subclusters, and scikit-learn warns and
    returns fewer clusters. The threshold is then halved until the tree has enough.
    """
    del seed  # deterministic
    trivial = _trivial_partition(X.shape[0], n_clusters)
    if trivial is not None:  # Birch's global step needs 2 subclusters or more
        return trivial
    from sklearn.cluster import Birch
    from sklearn.exceptions import ConvergenceWarning

    for halvings in range(BIRCH_HALVINGS + 1):
        estimator = Birch(n_clusters=n_clusters, threshold=threshold * 0.5**halvings,
                          **params)
        with warnings.catch_warnings():
            if halvings < BIRCH_HALVINGS:  # "fewer subclusters": try a smaller threshold
                warnings.simplefilter("ignore", ConvergenceWarning)
            estimator.fit(X)
        if len(estimator.subcluster_centers_) >= n_clusters:
            break
    return estimator.labels_


def genie(X: np.ndarray, n_clusters: int, seed: int | None, **params: object) -> np.ndarray:
    """``genieclust.Genie(n_clusters, **params).fit_predict(X)``.

    genieclust needs ``2 <= n_clusters < N`` (the only partitions into 1 or N clusters
    are given directly), and its minimum spanning tree (quitefastmst 1.3) refuses
    one-dimensional data, which is given a zero second column: the same distances.
    """
    del seed  # deterministic
    trivial = _trivial_partition(X.shape[0], n_clusters)
    if trivial is not None:
        return trivial
    genieclust = import_optional("genieclust", "genie", "genie")
    X = np.asarray(X, dtype=np.float64)
    if X.shape[1] == 1:
        X = np.hstack([X, np.zeros_like(X)])
    return genieclust.Genie(n_clusters=n_clusters, **params).fit_predict(X)


_CUT = {"cut": "hawks_deap.clustering.cut_linkage"}

KMEANS_PLUS_PLUS = LibraryCall(kmeans, "sklearn.cluster.KMeans",
                               {"init": "k-means++", "n_init": "auto"})
GMM = LibraryCall(gaussian_mixture, "sklearn.mixture.GaussianMixture",
                  {"covariance_type": "full", "n_init": 1})
SINGLE_LINKAGE = LibraryCall(agglomerative, "sklearn.cluster.AgglomerativeClustering",
                             {"linkage": "single"}, tree=agglomerative_tree)
AVERAGE_LINKAGE, COMPLETE_LINKAGE, WARD_LINKAGE = (
    LibraryCall(linkage_cut, "scipy.cluster.hierarchy.linkage",
                {"method": method, "metric": "euclidean"}, kind="function", notes=_CUT,
                pairwise=True, tree=linkage_tree)
    for method in ("average", "complete", "ward"))
SPECTRAL = LibraryCall(spectral, "sklearn.cluster.SpectralClustering",
                       {"affinity": "nearest_neighbors", "n_neighbors": 10,
                        "assign_labels": "kmeans"})
BIRCH = LibraryCall(birch, "sklearn.cluster.Birch",
                    {"threshold": 0.5, "branching_factor": 50},
                    notes={"threshold_rule": "halved until >= n_clusters subclusters"})
GENIE = LibraryCall(genie, "genieclust.Genie", {"gini_threshold": 0.3},
                    requires=("genieclust", "genie"))

# the registered algorithms' calls, by target, for `LibraryCall.builtin` (unpickling)
BUILTIN_CALLS.update({
    call.target: call for call in (KMEANS_PLUS_PLUS, GMM, SINGLE_LINKAGE, AVERAGE_LINKAGE,
                                   SPECTRAL, BIRCH, GENIE)})
