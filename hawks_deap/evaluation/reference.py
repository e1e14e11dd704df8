"""The exact reference: silhouette width and nearest-neighbour overlap of a whole dataset.

Silhouette
----------
The silhouette of point i (Rousseeuw 1987; HAWKS paper Eq. 1-2) is
``s(i) = (b(i) - a(i)) / max(a(i), b(i))`` with ``a(i)`` the mean distance from i to the
other points of its cluster and ``b(i)`` the smallest mean distance from i to the points
of another cluster; ``s(i) = 0`` for a point alone in its cluster (scikit-learn's
convention).

With the squared Euclidean distance (HAWKS' own choice) the sum of distances from a point
x to a cluster C has the closed form

    sum_{y in C} ||x - y||^2 = n_C ||x - c_C||^2 + SS_C,

with ``c_C`` the centroid of C and ``SS_C = sum_{y in C} ||y - c_C||^2`` its scatter, so
the whole silhouette costs O(N K D) and needs no pairwise matrix. The Euclidean
silhouette has no closed form; the `Evaluator` caches, per pair of genes, the row and
column sums of their block of the distance matrix.

Overlap
-------
The overlap (Eq. 5) is the fraction of points whose nearest neighbour lies in another
cluster. Squared distances are summed coordinate by coordinate in order (the arithmetic
of ``scipy.spatial.distance.cdist(..., "sqeuclidean")``), distances of exactly 0 are
ignored and a tie between clusters counts as overlap. With ``o(i)`` the smallest positive
squared distance from i to its own cluster (``inf`` if none), point i overlaps iff some
point y of another cluster has ``0 < ||x_i - y||^2 <= o(i)``. That test splits over pairs
of clusters, which is what makes the overlap incremental: the points of cluster j that
cluster k "captures" depend only on the two genes.

Fast filters (a KD-tree in low dimension, a matrix product ``|x|^2 + |y|^2 - 2 x.y`` in
high dimension) only propose candidates; every decision is taken on the exact squared
distance, with a proven margin for the filter's rounding errors, so results are exact.

These functions compute on the whole dataset and are the oracles of the incremental
`hawks_deap.evaluation.Evaluator`, which must agree with them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from scipy import sparse
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from hawks_deap._util.labels import encode_labels
from hawks_deap._util.validation import check_choice, check_X
from hawks_deap.evaluation._cache import ByteLRU
from hawks_deap.evaluation._kernels import (
    KDTREE_MAX_DIMS,
    REL,
    dense_tol,
    self_blocks,
    sqdist_sequential,
)

__all__ = [
    "KDTREE_MAX_DIMS",
    "SILHOUETTE_METRICS",
    "NaiveEvaluator",
    "nearest_neighbour_overlap",
    "overlap_flags",
    "silhouette_from_sums",
    "silhouette_samples",
    "silhouette_score",
]

#: The silhouette's distances: squared Euclidean (HAWKS' own) and Euclidean
#: (scikit-learn's default, and every silhouette's default here).
SILHOUETTE_METRICS = ("sqeuclidean", "euclidean")

#: Rows of the distance matrix computed at once by the Euclidean silhouette.
_BLOCK_ROWS = 1024

def silhouette_from_sums(sums: np.ndarray, codes: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Silhouette values from per-point sums of distances to every cluster.

    ``sums[i, k]`` is the sum of distances from point i to the points of cluster k;
    ``a(i) = sums[i, own] / (n_own - 1)``, ``b(i) = min_{k != own} sums[i, k] / n_k``.

    Parameters
    ----------
    sums : numpy.ndarray of shape (N, K)
        ``sums[i, k]``, e.g. from `silhouette_sums_sqeuclidean` (a new array is returned;
        ``sums`` is not modified).
    codes : numpy.ndarray of int, shape (N,)
        Cluster codes ``0..K-1`` of the points.
    counts : numpy.ndarray of shape (K,)
        Cluster sizes ``n_k`` (``numpy.bincount(codes)``, each at least 1). None of the
        three is checked.

    Returns
    -------
    numpy.ndarray of shape (N,)
        ``s(i)``; 0 for a point alone in its cluster and wherever the formula is
        undefined (0/0, or no other cluster).
    """
    n = codes.shape[0]
    rows = np.arange(n)
    own = counts[codes]
    intra_sum = sums[rows, codes]
    with np.errstate(divide="ignore", invalid="ignore"):
        a = intra_sum / (own - 1)
        means = sums / counts[np.newaxis, :]
    means[rows, codes] = np.inf
    b = means.min(axis=1)
    denom = np.maximum(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (b - a) / denom
    s[own == 1] = 0.0
    return np.nan_to_num(s, nan=0.0, posinf=0.0, neginf=0.0)


def silhouette_sums_sqeuclidean(X: np.ndarray, codes: np.ndarray, n_clusters: int) -> np.ndarray:
    """Per-point sums of squared Euclidean distances to every cluster, in closed form.

    Returns ``S`` of shape (N, K) with ``S[i, k] = n_k ||x_i - c_k||^2 + SS_k``.
    """
    counts = np.bincount(codes, minlength=n_clusters).astype(float)
    onehot = sparse.csr_matrix(
        (np.ones(codes.shape[0]), (codes, np.arange(codes.shape[0]))),
        shape=(n_clusters, codes.shape[0]),
    )
    centroids = np.asarray(onehot @ X) / counts[:, np.newaxis]
    d2 = cdist(X, centroids, "sqeuclidean")
    scatter = np.bincount(codes, weights=d2[np.arange(codes.shape[0]), codes],
                          minlength=n_clusters)
    return d2 * counts[np.newaxis, :] + scatter[np.newaxis, :]


def silhouette_sums_euclidean(X: np.ndarray, codes: np.ndarray, n_clusters: int) -> np.ndarray:
    """Per-point sums of Euclidean distances to every cluster, exactly, by row blocks."""
    n = codes.shape[0]
    onehot = sparse.csr_matrix((np.ones(n), (np.arange(n), codes)), shape=(n, n_clusters))
    sums = np.empty((n, n_clusters))
    for start in range(0, n, _BLOCK_ROWS):
        stop = min(start + _BLOCK_ROWS, n)
        block = cdist(X[start:stop], X, "euclidean")
        sums[start:stop] = np.asarray((onehot.T @ block.T).T)
    return sums


def silhouette_samples(X: np.ndarray, labels: np.ndarray, *,
                       metric: str = "euclidean") -> np.ndarray:
    """Silhouette width of each point.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        The data.
    labels : array of shape (n_samples,)
        Cluster labels, any hashable values (coded as `hawks_deap.metrics` codes them:
        sorted where numpy can sort them, else in order of first appearance).
    metric : {"euclidean", "sqeuclidean"}
        Distance. ``"euclidean"`` (the default, scikit-learn's) is exact in O(N^2 D)
        time and O(N) memory per block of rows; ``"sqeuclidean"`` (HAWKS' own choice,
        what Index mode targets by default) uses the closed form in O(N K D).

    Returns
    -------
    numpy.ndarray of shape (n_samples,)
        ``s(i) = (b(i) - a(i)) / max(a(i), b(i))`` (HAWKS paper Eq. 1), 0 for singletons.
        Equal to ``sklearn.metrics.silhouette_samples(X, labels, metric=metric)``.
    """
    check_choice("metric", metric, SILHOUETTE_METRICS)
    X = check_X(X)
    codes, k = encode_labels(labels, n_samples=X.shape[0])
    if not 2 <= k <= X.shape[0] - 1:
        raise ValueError(
            f"the silhouette needs 2 <= number of labels <= n_samples - 1, got {k} labels "
            f"for {X.shape[0]} samples"
        )
    counts = np.bincount(codes, minlength=k).astype(float)
    if metric == "sqeuclidean":
        sums = silhouette_sums_sqeuclidean(X, codes, k)
    else:
        sums = silhouette_sums_euclidean(X, codes, k)
    return silhouette_from_sums(sums, codes, counts)


def silhouette_score(X: np.ndarray, labels: np.ndarray, *, metric: str = "euclidean") -> float:
    """Mean silhouette width ``s_all`` (HAWKS paper Eq. 2); see `silhouette_samples`.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        The data, finite.
    labels : array of shape (n_samples,)
        Cluster labels, any hashable values; 2 <= number of labels <= n_samples - 1.
    metric : {"euclidean", "sqeuclidean"}
        Distance. The default is scikit-learn's (``"euclidean"``): the value is
        ``sklearn.metrics.silhouette_score(X, labels)``. HAWKS' silhouette, the one
        `hawks_deap.IndexProblem` targets by default and `hawks_deap.analysis.features` reports,
        is ``metric="sqeuclidean"``.

    Returns
    -------
    float
        The mean of `silhouette_samples`, in [-1, 1].

    Raises
    ------
    ValueError
        If ``metric`` is unknown, X is not a non-empty finite 2-D array, ``labels`` is
        not of length n_samples, or the number of labels is outside [2, n_samples - 1]
        (unlike `hawks_deap.metrics.silhouette`, which returns ``nan`` there).
    TypeError
        If X is not numeric.
    """
    return float(np.mean(silhouette_samples(X, labels, metric=metric)))


def nearest_neighbour_overlap(X: np.ndarray, labels: np.ndarray) -> float:
    """Fraction of points whose nearest neighbour lies in another cluster (Eq. 5).

    Distances are Euclidean (the nearest neighbour is the same for the squared distance).
    Duplicated points (distance exactly 0) are ignored as neighbours, as in HAWKS 0.2.0:
    the neighbour of a point is its nearest point at a positive distance. A point whose
    nearest positive distance is reached by points of several clusters (an exact tie)
    counts as overlapping when any of them lies in another cluster. A point with no
    neighbour at positive distance does not count. Squared distances are summed
    coordinate by coordinate in order, as ``cdist(..., "sqeuclidean")`` does, and ties are
    decided on those values.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        The data, finite.
    labels : array of shape (n_samples,)
        Cluster labels, any hashable values.

    Returns
    -------
    float
        The fraction of overlapping points, in [0, 1].

    Raises
    ------
    ValueError
        If X is not a non-empty finite 2-D array or ``labels`` is not of length n_samples.
    TypeError
        If X is not numeric.
    """
    X = check_X(X)
    codes, _ = encode_labels(labels, n_samples=X.shape[0])
    return float(np.mean(overlap_flags(X, codes)))



def _overlap_flags_kdtree(X: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per-point overlap flags using a KD-tree for candidates (exact).

    Fast path: one query of the 3 nearest points settles every point that has no
    duplicate and whose nearest neighbour is clearly nearer than the second nearest
    (relative margin 1e-9, far above the rounding of either arithmetic): its neighbour
    is unique, so no tie can arise. For the others (ties, duplicates), the tree proposes
    the k nearest points; their squared distances are then measured from coordinate
    differences, the same arithmetic as the brute-force path, and k grows until every
    point at the smallest positive distance is surely among them.
    """
    n = X.shape[0]
    tree = cKDTree(X, balanced_tree=False, compact_nodes=False)  # ~10% faster, same answers
    flags = np.zeros(n, dtype=bool)
    if n >= 3:
        dist, idx = tree.query(X, k=3)  # column 0: the point itself when dist[:, 1] > 0
        clear = (dist[:, 1] > 0) & (dist[:, 2] > dist[:, 1] * (1.0 + REL))
        flags[clear] = codes[idx[clear, 1]] != codes[clear]
        pending = np.flatnonzero(~clear)
    else:
        pending = np.arange(n)
    k = min(n, 8)
    while pending.size:
        dist, idx = tree.query(X[pending], k=k)
        idx = idx.reshape(pending.size, k)
        far = np.square(dist.reshape(pending.size, k)[:, -1])
        exact = sqdist_sequential(X[idx], X[pending][:, None, :])
        positive = exact > 0
        has = positive.any(axis=1)
        dmin = np.where(positive, exact, np.inf).min(axis=1)
        complete = (far > dmin * (1.0 + 1e-9)) | (k >= n)
        done = (has & complete) | (~has & (k >= n))
        ties = (exact == dmin[:, None]) & positive
        other = codes[idx] != codes[pending][:, None]
        flags[pending[done]] = np.any(ties & other, axis=1)[done]
        pending = pending[~done]
        if k >= n:
            break
        k = min(n, 2 * k)
    return flags



def _overlap_flags_bruteforce(X: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per-point overlap flags by blocks of squared distances (exact).

    Distances come from the fast expansion ``|x|^2 + |y|^2 - 2 x.y`` (one matrix
    product per block of rows); every neighbour within the expansion's rounding bound of
    the smallest value is then re-measured exactly from coordinate differences, so the
    result is that of an exact nearest-neighbour search.
    """
    n, d = X.shape
    Xc = X - X.mean(axis=0)
    norms = np.einsum("ij,ij->i", Xc, Xc)
    tols = dense_tol(d) * (norms + norms.max())
    flags = np.zeros(n, dtype=bool)
    for start, stop, block in self_blocks(Xc, norms):
        tol = tols[start:stop]
        approx_min = block.min(axis=1)
        within = block <= (approx_min + 2.0 * tol)[:, None]
        n_cand = within.sum(axis=1)
        # A single candidate clearly above zero is the exact nearest neighbour.
        simple = (n_cand == 1) & (approx_min > 2.0 * tol)
        argmin = block.argmin(axis=1)
        idx = np.arange(start, stop)
        flags[idx[simple]] = codes[argmin[simple]] != codes[idx[simple]]
        for r in np.flatnonzero(~simple):
            i = start + r
            cand = np.flatnonzero(within[r])
            exact = sqdist_sequential(X[cand], X[i])
            keep = exact > 0
            if not keep.all():
                if not keep.any():  # only duplicates near the minimum: measure the row
                    cand = np.delete(np.arange(n), i)
                    exact = sqdist_sequential(X[cand], X[i])
                    keep = exact > 0
                    if not keep.any():
                        continue
                cand, exact = cand[keep], exact[keep]
            nearest = cand[exact == exact.min()]
            flags[i] = bool(np.any(codes[nearest] != codes[i]))
    return flags



def overlap_flags(X: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per-point overlap flags (see `nearest_neighbour_overlap`), exact.

    Uses a KD-tree up to `KDTREE_MAX_DIMS` dimensions and blocked brute force above.

    Parameters
    ----------
    X : numpy.ndarray of float, shape (n_samples, n_features)
        The data, finite (not checked).
    codes : numpy.ndarray of shape (n_samples,)
        Cluster codes (e.g. from `hawks_deap._util.labels.encode_labels`), only compared for
        equality (not checked).

    Returns
    -------
    numpy.ndarray of bool, shape (n_samples,)
        True where the point's nearest neighbour at positive distance is in another
        cluster.
    """
    if X.shape[1] <= KDTREE_MAX_DIMS:
        return _overlap_flags_kdtree(X, codes)
    return _overlap_flags_bruteforce(X, codes)



class NaiveEvaluator:
    """Reference evaluator: full computations on the whole dataset at every call.

    ``sklearn.metrics.silhouette_score`` for the silhouette and a full exact
    nearest-neighbour pass (`overlap_flags`) for the overlap; nothing is cached. Same
    interface as `Evaluator`, for checks and benchmarks.

    Parameters
    ----------
    layout : Layout
        The run's layout.
    metric : {"sqeuclidean", "euclidean"}
        Distance of the silhouette.
    cache_bytes, threads
        Accepted for interface compatibility with `Evaluator`; ignored.
    """

    def __init__(self, layout: Any, *, metric: str = "sqeuclidean",
                 cache_bytes: int = 0, threads: int | None = None) -> None:
        self.layout = layout
        self.metric = check_choice("metric", metric, SILHOUETTE_METRICS)
        self.codes = np.asarray(layout.labels, dtype=np.intp)
        self.cache = ByteLRU(0)

    @contextmanager
    def limit_threads(self) -> Iterator[None]:
        """No-op (the naive evaluator leaves BLAS threads alone)."""
        yield

    def prefetch_overlap(self, genotypes: Sequence[Sequence]) -> None:
        """No-op (nothing is cached).

        Parameters
        ----------
        genotypes : sequence of Genotype
            Ignored (not checked).
        """

    def points(self, genotype: Sequence) -> np.ndarray:
        """The dataset X of a genotype, shape (N, D).

        Parameters
        ----------
        genotype : Genotype
            One gene per cluster of the layout (``layout.sample`` raises ``ValueError``
            otherwise).

        Returns
        -------
        numpy.ndarray of shape (N, D)
            A new array, ``layout.sample(genotype)[0]``.
        """
        return self.layout.sample(genotype)[0]

    def _data(self, data: Any) -> np.ndarray:
        return data if isinstance(data, np.ndarray) else self.points(data)

    def silhouette(self, data: Any) -> float:
        """``sklearn.metrics.silhouette_score(X, labels, metric=metric)``.

        Parameters
        ----------
        data : Genotype or numpy.ndarray of shape (N, D)
            A genotype (sampled through the layout) or its data X, used as given.

        Returns
        -------
        float
            The mean silhouette, with the layout's labels.
        """
        from sklearn.metrics import silhouette_score as sk_silhouette

        return float(sk_silhouette(self._data(data), self.codes, metric=self.metric))

    def overlap(self, data: Any) -> float:
        """Full exact nearest-neighbour pass over the dataset.

        Parameters
        ----------
        data : Genotype or numpy.ndarray of shape (N, D)
            A genotype (sampled through the layout) or its data X, used as given
            (not checked).

        Returns
        -------
        float
            The overlap, the fraction of points whose nearest neighbour is in another
            cluster, with the layout's labels.
        """
        return float(np.mean(overlap_flags(self._data(data), self.codes)))
