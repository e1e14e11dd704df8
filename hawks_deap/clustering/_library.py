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
from collections.abc import Callable
from functools import partial

import numpy as np
from scipy.cluster.hierarchy import linkage
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
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
    from sklearn.cluster import AgglomerativeClustering

    return AgglomerativeClustering(n_clusters=n_clusters, **params).fit_predict(X)


#: The tree of one point (no merges), which scikit-learn and scipy refuse to build.
_ONE_POINT_TREE = partial(_cut_merges, np.empty((0, 2), dtype=np.intp))


def agglomerative_tree(X: np.ndarray, **params: object) -> Callable[[int], np.ndarray]:
    """The tree `agglomerative` cuts, built once: ``n_clusters -> labels``.

    Without connectivity scikit-learn always builds the whole tree and cuts it by
    undoing its last ``n_clusters - 1`` merges, as `cut_linkage` does: the partition is
    the same, and `_cut_children` numbers it as scikit-learn does (the labels of
    `agglomerative`).
    """
    if X.shape[0] == 1:
        return _ONE_POINT_TREE
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
