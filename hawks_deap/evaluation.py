"""Exact evaluation kernels: silhouette width and nearest-neighbour overlap.

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
silhouette has no closed form and is computed exactly from row blocks of the distance
matrix (O(N^2 D) time, O(N * block) memory).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from hawks_deap._validation import check_choice

SILHOUETTE_METRICS = ("sqeuclidean", "euclidean")

#: Rows of the distance matrix computed at once by the Euclidean silhouette.
_BLOCK_ROWS = 1024


def _encode(labels: np.ndarray, n_samples: int, name: str = "labels") -> tuple[np.ndarray, int]:
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != n_samples:
        raise ValueError(
            f"{name} must be a 1-D array of length {n_samples} (the number of rows of X), "
            f"got shape {labels.shape}"
        )
    _, codes = np.unique(labels, return_inverse=True)
    codes = codes.reshape(-1).astype(np.intp, copy=False)
    return codes, int(codes.max()) + 1 if codes.size else 0


def _check_X(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array (n_samples, n_features), got shape "
                         f"{X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must contain only finite values")
    return X


def _silhouette_from_sums(sums: np.ndarray, codes: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Silhouette values from per-point sums of distances to every cluster.

    ``sums[i, k]`` is the sum of distances from point i to the points of cluster k.
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
                       metric: str = "sqeuclidean") -> np.ndarray:
    """Silhouette width of each point.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        The data.
    labels : array of shape (n_samples,)
        Cluster labels, any hashable values numpy can sort.
    metric : {"sqeuclidean", "euclidean"}
        Distance. ``"sqeuclidean"`` (HAWKS' choice) uses the closed form in O(N K D);
        ``"euclidean"`` is exact in O(N^2 D) time and O(N) memory per block of rows.

    Returns
    -------
    numpy.ndarray of shape (n_samples,)
        ``s(i) = (b(i) - a(i)) / max(a(i), b(i))`` (HAWKS paper Eq. 1), 0 for singletons.
        Equal to ``sklearn.metrics.silhouette_samples(X, labels, metric=metric)``.
    """
    check_choice("metric", metric, SILHOUETTE_METRICS)
    X = _check_X(X)
    codes, k = _encode(labels, X.shape[0])
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
    return _silhouette_from_sums(sums, codes, counts)


def silhouette_score(X: np.ndarray, labels: np.ndarray, *, metric: str = "sqeuclidean") -> float:
    """Mean silhouette width ``s_all`` (HAWKS paper Eq. 2); see `silhouette_samples`."""
    return float(np.mean(silhouette_samples(X, labels, metric=metric)))


def nearest_neighbour_overlap(X: np.ndarray, labels: np.ndarray) -> float:
    """Fraction of points whose nearest neighbour lies in another cluster (Eq. 5).

    Distances are Euclidean (the nearest neighbour is the same for the squared distance).
    Duplicated points (distance exactly 0) are ignored as neighbours, as in HAWKS 0.2.0:
    the neighbour of a point is its nearest point at a positive distance. A point whose
    nearest positive distance is reached by points of several clusters (an exact tie)
    counts as overlapping when any of them lies in another cluster. A point with no
    neighbour at positive distance does not count.
    """
    X = _check_X(X)
    codes, _ = _encode(labels, X.shape[0])
    return float(np.mean(overlap_flags(X, codes)))


def _sqdist_sequential(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared distances between broadcast rows, summed over coordinates in order.

    The same arithmetic as ``scipy.spatial.distance.cdist(..., "sqeuclidean")``, so
    exact ties are decided identically to that reference.
    """
    acc = np.zeros(np.broadcast_shapes(a.shape, b.shape)[:-1])
    for d in range(a.shape[-1]):
        diff = a[..., d] - b[..., d]
        acc += diff * diff
    return acc


def _overlap_flags_kdtree(X: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per-point overlap flags using a KD-tree for candidates (exact).

    The tree proposes the k nearest points; their squared distances are then measured
    from coordinate differences, the same arithmetic as the brute-force path, and k
    grows until every point at the smallest positive distance is surely among them.
    """
    n = X.shape[0]
    tree = cKDTree(X)
    k = min(n, 8)
    flags = np.zeros(n, dtype=bool)
    pending = np.arange(n)
    while pending.size:
        dist, idx = tree.query(X[pending], k=k)
        idx = idx.reshape(pending.size, k)
        far = np.square(dist.reshape(pending.size, k)[:, -1])
        exact = _sqdist_sequential(X[idx], X[pending][:, None, :])
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
    eps = np.finfo(float).eps
    rows_per_block = max(1, min(n, (4 << 20) // max(n, 1)))
    flags = np.zeros(n, dtype=bool)
    for start in range(0, n, rows_per_block):
        stop = min(start + rows_per_block, n)
        block = Xc[start:stop] @ Xc.T
        block *= -2.0
        block += norms[start:stop, None]
        block += norms[None, :]
        local = np.arange(stop - start)
        block[local, local + start] = np.inf
        tol = 4.0 * (d + 2) * eps * (norms[start:stop] + norms.max())
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
            exact = _sqdist_sequential(X[cand], X[i])
            keep = exact > 0
            if not keep.all():
                if not keep.any():  # only duplicates near the minimum: measure the row
                    cand = np.delete(np.arange(n), i)
                    exact = _sqdist_sequential(X[cand], X[i])
                    keep = exact > 0
                    if not keep.any():
                        continue
                cand, exact = cand[keep], exact[keep]
            nearest = cand[exact == exact.min()]
            flags[i] = bool(np.any(codes[nearest] != codes[i]))
    return flags


#: Dimension up to which overlap uses a KD-tree; above it, blocked brute force.
#: Measured on N=2000 (2 cores): KD-tree 3 ms / brute 47 ms at D=2, 8 / 37 ms at D=5,
#: 29 / 20 ms at D=10, 91 / 20 ms at D=50.
KDTREE_MAX_DIMS = 8


def overlap_flags(X: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per-point overlap flags (see `nearest_neighbour_overlap`), exact.

    Uses a KD-tree up to `KDTREE_MAX_DIMS` dimensions and blocked brute force above.
    """
    if X.shape[1] <= KDTREE_MAX_DIMS:
        return _overlap_flags_kdtree(X, codes)
    return _overlap_flags_bruteforce(X, codes)


class ByteLRU:
    """A least-recently-used cache bounded by the bytes of the numpy arrays it holds.

    Parameters
    ----------
    max_bytes : int
        Budget; the least recently used entries are evicted to keep within it. An
        entry larger than the whole budget is not stored.
    """

    def __init__(self, max_bytes: int) -> None:
        from collections import OrderedDict

        self.max_bytes = int(max_bytes)
        self._data: OrderedDict = OrderedDict()
        self.nbytes = 0
        self.hits = 0
        self.misses = 0
        self.evictions = 0

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def get(self, key: object):
        """The value for ``key`` (marked most recently used), or None."""
        value = self._data.get(key)
        if value is None:
            self.misses += 1
            return None
        self._data.move_to_end(key)
        self.hits += 1
        return value

    def put(self, key: object, value: np.ndarray) -> None:
        """Store ``value``, evicting least recently used entries beyond the budget."""
        size = int(value.nbytes)
        if key in self._data:
            self.nbytes -= int(self._data.pop(key).nbytes)
        if size > self.max_bytes:
            return
        self._data[key] = value
        self.nbytes += size
        while self.nbytes > self.max_bytes:
            _, old = self._data.popitem(last=False)
            self.nbytes -= int(old.nbytes)
            self.evictions += 1

    def clear(self) -> None:
        """Drop every entry."""
        self._data.clear()
        self.nbytes = 0


class Evaluator:
    """Evaluates the genotypes of one run layout: data, silhouette and overlap.

    Parameters
    ----------
    layout : Layout
        The run's layout (sizes and common random numbers).
    metric : {"sqeuclidean", "euclidean"}
        Distance of the silhouette.
    cache_bytes : int
        Budget of the cache of per-cluster points (keyed by slot and gene key).

    Notes
    -----
    Results are exactly those of the plain computations on ``layout.sample(genotype)``.
    """

    def __init__(self, layout, *, metric: str = "sqeuclidean",
                 cache_bytes: int = 512 * 2**20) -> None:
        self.layout = layout
        self.metric = check_choice("metric", metric, SILHOUETTE_METRICS)
        self.cache = ByteLRU(cache_bytes)
        self.codes = np.asarray(layout.labels, dtype=np.intp)
        self.counts = np.asarray(layout.sizes, dtype=float)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["cache"] = ByteLRU(self.cache.max_bytes)  # caches are not shipped
        return state

    def cluster_points(self, genotype, k: int) -> np.ndarray:
        """Points of slot k (cached by gene key)."""
        key = (k, genotype[k].key)
        pts = self.cache.get(key)
        if pts is None:
            pts = self.layout.cluster_points(genotype, k)
            pts.setflags(write=False)
            self.cache.put(key, pts)
        return pts

    def points(self, genotype) -> np.ndarray:
        """The dataset X of a genotype, shape (N, D)."""
        self.layout.check(genotype)
        return np.concatenate([self.cluster_points(genotype, k) for k in range(len(genotype))])

    def silhouette(self, X: np.ndarray) -> float:
        """Mean silhouette of the genotype's data ``X`` under the evaluator's metric."""
        k = self.layout.n_clusters
        if self.metric == "sqeuclidean":
            sums = silhouette_sums_sqeuclidean(X, self.codes, k)
        else:
            sums = silhouette_sums_euclidean(X, self.codes, k)
        return float(np.mean(_silhouette_from_sums(sums, self.codes, self.counts)))

    def overlap(self, X: np.ndarray) -> float:
        """Overlap of the genotype's data ``X`` (Eq. 5)."""
        return float(np.mean(overlap_flags(X, self.codes)))
