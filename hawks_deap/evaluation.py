"""Exact evaluation: silhouette width and nearest-neighbour overlap, plain and incremental.

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
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numpy as np
from scipy import sparse
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from hawks_deap._validation import check_choice, check_int

__all__ = [
    "EVALUATORS",
    "blas_thread_limit",
    "native_thread_limit",
    "SILHOUETTE_METRICS",
    "ByteLRU",
    "Evaluator",
    "NaiveEvaluator",
    "make_evaluator",
    "nearest_neighbour_overlap",
    "overlap_flags",
    "silhouette_samples",
    "silhouette_score",
]

SILHOUETTE_METRICS = ("sqeuclidean", "euclidean")

#: Evaluator names accepted by `make_evaluator` (and ``IndexProblem(evaluator=...)``).
EVALUATORS = ("fast", "naive")

#: Rows of the distance matrix computed at once by the Euclidean silhouette.
_BLOCK_ROWS = 1024

#: Elements of a distance block held at once by the incremental kernels (16 MiB).
_BLOCK_ELEMENTS = 1 << 21

#: Elements of a block of Euclidean distances summed at once (256 KiB: the block stays in
#: the processor's cache between the square roots and the sums).
_SUM_BLOCK = 1 << 15

_EPS = float(np.finfo(float).eps)

#: Relative margin on distances given by a KD-tree (its rounding is ~D eps).
_REL = 1e-9

#: Clusters with n^2 D up to this get their own-cluster distances from one ``cdist``
#: block (measured: n=100, D=20: 0.07 ms vs 0.09 ms by matrix products; n=200, D=20:
#: 0.25 vs 0.17 ms; n=400, D=2: 0.24 vs 0.41 ms).
_SMALL_CLUSTER = 600_000

#: Up to this N * K * D, the closed-form silhouette measures the whole N x K block of
#: squared distances to the centroids at every evaluation (no per-gene bookkeeping).
_DIRECT_SILHOUETTE = 1 << 18

#: Above this N * K, the closed-form silhouette is reduced slot by slot.
_SLOTWISE_SILHOUETTE = 1 << 18

#: Candidate neighbours per point in the two-dimensional shape certificates
#: (`Evaluator._certify`), and the number of anisotropy levels (down to a variance ratio
#: of 2^-_Z_LEVELS) they are kept for.
_Z_NEIGHBOURS = 6
_Z_LEVELS = 24

#: Cost of a whole-dataset overlap pass, in KD-tree queries per point (see
#: `Evaluator._overlap_pairs`).
_GLOBAL_COST = 8.0

#: Points (summed over the two genes of each pair) of the missing pairs that
#: `Evaluator.prefetch_overlap` computes in one batch; more go batch after batch.
_PREFETCH_POINTS = 1 << 18


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

    ``sums[i, k]`` is the sum of distances from point i to the points of cluster k;
    ``a(i) = sums[i, own] / (n_own - 1)``, ``b(i) = min_{k != own} sums[i, k] / n_k``.
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
    neighbour at positive distance does not count. Squared distances are summed
    coordinate by coordinate in order, as ``cdist(..., "sqeuclidean")`` does, and ties are
    decided on those values.
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


def _sqdist_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``_sqdist_sequential`` for two (m, D) arrays of paired rows, coordinate-major.

    ``sum_d (a_d - b_d)^2`` accumulated in the order d = 0, 1, ..., D-1 (bit-identical to
    `_sqdist_sequential` and to ``cdist``), on a transposed copy so that each step runs
    over contiguous memory. With two rows or more, numpy's reduction over the outer
    axis of the (D, m) array adds its rows in that order (pairwise summation applies
    along the contiguous axis only; tested against the loop in the test suite): one
    call instead of D.
    """
    diff = np.ascontiguousarray((a - b).T)
    np.multiply(diff, diff, out=diff)
    if diff.shape[1] >= 2:
        return np.add.reduce(diff, axis=0)
    acc = diff[0].copy()
    for d in range(1, diff.shape[0]):
        acc += diff[d]
    return acc


def _sqdist_gather(P: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``s(P_i, P_idx[i, j])`` for an (n, k) index array, shape (n, k).

    The arithmetic of `_sqdist_rows` (coordinates in order), so the same bits, one
    coordinate column at a time instead of on n k repeated rows.
    """
    acc = None
    for col in P.T:
        diff = col[:, None] - col[idx]
        diff *= diff
        if acc is None:
            acc = diff
        else:
            acc += diff
    return acc if acc is not None else np.zeros(idx.shape)


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
        clear = (dist[:, 1] > 0) & (dist[:, 2] > dist[:, 1] * (1.0 + _REL))
        flags[clear] = codes[idx[clear, 1]] != codes[clear]
        pending = np.flatnonzero(~clear)
    else:
        pending = np.arange(n)
    k = min(n, 8)
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


def _self_blocks(Xc: np.ndarray, nrm: np.ndarray) -> Iterator[tuple[int, int, np.ndarray]]:
    """Row blocks ``(start, stop, A)`` of the expansion ``A_il = |x_i|^2 + |x_l|^2 - 2 x_i.x_l``.

    ``Xc`` are centred points and ``nrm`` their squared norms; each block holds rows
    ``start:stop`` against every point (at most `_BLOCK_ELEMENTS` values), with the
    diagonal (a point against itself) at ``+inf``. Rounding bound: `_dense_tol`.
    """
    n = Xc.shape[0]
    step = max(1, _BLOCK_ELEMENTS // max(n, 1))
    for start in range(0, n, step):
        stop = min(n, start + step)
        block = Xc[start:stop] @ Xc.T
        block *= -2.0
        block += nrm[start:stop, None]
        block += nrm[None, :]
        local = np.arange(stop - start)
        block[local, local + start] = np.inf
        yield start, stop, block


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
    tols = _dense_tol(d) * (norms + norms.max())
    flags = np.zeros(n, dtype=bool)
    for start, stop, block in _self_blocks(Xc, norms):
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


#: Dimension up to which overlap uses KD-trees; above it, blocked matrix products.
#: Full pass, N=2000 (2 cores): KD-tree 3 ms / brute 47 ms at D=2, 8 / 37 ms at D=5,
#: 29 / 20 ms at D=10, 91 / 20 ms at D=50.
KDTREE_MAX_DIMS = 8

#: The incremental overlap of `Evaluator` uses KD-trees up to D=4, and up to
#: `KDTREE_MAX_DIMS` when clusters hold at least this many points on average; matrix
#: products otherwise. Measured over the evaluations of 40 generations (P=10, one core),
#: trees / products: N=2000 K=5: 0.81 / 1.33 s at D=2, 1.17 / 1.27 s at D=5;
#: N=2000 K=10: 0.92 / 0.97 s at D=2, 1.07 / 1.11 s at D=4, 1.55 / 1.03 s at D=6,
#: 1.82 / 1.15 s at D=8; N=20000 K=20: 7.2 / 48 s at D=2, 19 / 44 s at D=5.
_TREE_MIN_SIZE = 400


def overlap_flags(X: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per-point overlap flags (see `nearest_neighbour_overlap`), exact.

    Uses a KD-tree up to `KDTREE_MAX_DIMS` dimensions and blocked brute force above.
    """
    if X.shape[1] <= KDTREE_MAX_DIMS:
        return _overlap_flags_kdtree(X, codes)
    return _overlap_flags_bruteforce(X, codes)


# ---------------------------------------------------------------------------------------
# Incremental exact kernels
# ---------------------------------------------------------------------------------------

def _dense_tol(n_dims: int) -> float:
    """Factor ``c`` of the rounding bound ``|A_il - s_il| <= c (|x_i|^2 + |y_l|^2)``.

    ``A_il = |x_i|^2 + |y_l|^2 - 2 x_i.y_l`` is computed from the coordinates (centred or
    not: a centring rounding moves the difference by at most ``eps (|x_i| + |y_l|)``,
    ``4 eps (..)``) and ``s_il`` is the exact sequential squared distance. Norms, dot
    product (any summation order, FMA or not) and the three additions give
    ``(2D + 6) eps (..)``; the sequential sum differs from the true value by
    ``(D + 2) eps t <= (2D + 4) eps (..)``. Their sum ``(4D + 14) eps`` is doubled.
    """
    return (8.0 * n_dims + 32.0) * _EPS


def _nonzero2(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero`` of a C-contiguous 2-D mask, through the (much faster) flat indices."""
    return np.divmod(np.flatnonzero(mask), mask.shape[1])


def _group_min(rows: np.ndarray, values: np.ndarray, out: np.ndarray) -> None:
    """``out[r] = min(out[r], values[rows == r])`` for sorted ``rows`` (in place)."""
    if rows.size == 0:
        return
    starts = np.flatnonzero(np.diff(rows)) + 1
    starts = np.concatenate([[0], starts])
    uniq = rows[starts]
    out[uniq] = np.minimum(out[uniq], np.minimum.reduceat(values, starts))


def _row_min_positive(P: np.ndarray, i: int) -> float:
    """Smallest positive exact squared distance from ``P[i]`` to the other rows of P."""
    s = _sqdist_sequential(P, P[i])
    s = s[s > 0]
    return float(s.min()) if s.size else math.inf


def _own_nn_dense(P: np.ndarray) -> np.ndarray:
    """``o(i) = min {s(i, l) : l != i, s(i, l) > 0}`` within one cluster, exactly.

    ``s`` is the sequential squared distance. Candidates: every l with
    ``A_il <= min_l A_il + 2 T_i`` (``A`` the matrix-product expansion, ``T_i`` its
    rounding bound, see `_dense_tol`), which contains the exact minimiser; they are
    re-measured exactly. A row whose candidates include a duplicate (s = 0) is measured
    in full. ``inf`` where there is no positive distance.
    """
    n, d = P.shape
    out = np.full(n, math.inf)
    if n < 2:
        return out
    if n * n * d <= _SMALL_CLUSTER:  # the whole block, with the sequential arithmetic
        block = cdist(P, P, "sqeuclidean")
        block[block <= 0.0] = math.inf  # the point itself and duplicates
        return block.min(axis=1)
    Xc = P - P.mean(axis=0)
    nrm = np.einsum("ij,ij->i", Xc, Xc)
    tol = _dense_tol(d) * (nrm + nrm.max())
    redo: list[int] = []
    for start, stop, block in _self_blocks(Xc, nrm):
        amin = block.min(axis=1)
        ii, ll = _nonzero2(block <= (amin + 2.0 * tol[start:stop])[:, None])
        gi = ii + start
        s = _sqdist_rows(P[gi], P[ll])
        zero = s <= 0.0
        if zero.any():
            redo.extend(np.unique(gi[zero]).tolist())
        _group_min(gi, np.where(zero, math.inf, s), out)
    for i in redo:
        out[i] = _row_min_positive(P, i)
    return out


def _nearest_two_dense(P: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                np.ndarray]:
    """Nearest neighbour of every point and bounds on the distances, exactly.

    Returns ``(nearest, a, b, valid)``: ``a`` the exact (sequential) distance from each
    point to ``nearest`` and ``b`` a lower bound on its distance to any other point,
    where ``valid``. Small clusters (n^2 D up to `_SMALL_CLUSTER`): from the whole
    ``cdist`` block (duplicates ignored). Larger ones: the 2 smallest values of each row
    of the expansion ``A`` (`_self_blocks`) are re-measured exactly, and every other
    point is at squared distance at least ``A_(3) - T`` (``T`` the rounding bound,
    `_dense_tol`); a row is not valid when a candidate is a duplicate or might not be
    the nearest.
    """
    n, d = P.shape
    if n * n * d <= _SMALL_CLUSTER:
        block = cdist(P, P, "sqeuclidean")
        block[block <= 0.0] = math.inf  # the point itself and duplicates
        rows = np.arange(n)
        nearest = block.argmin(axis=1)
        a2 = block[rows, nearest]
        block[rows, nearest] = math.inf
        return nearest, np.sqrt(a2), np.sqrt(block.min(axis=1)), np.isfinite(a2)
    Xc = P - P.mean(axis=0)
    nrm = np.einsum("ij,ij->i", Xc, Xc)
    tol = _dense_tol(d) * (nrm + nrm.max())
    nearest = np.zeros(n, dtype=np.intp)
    a2 = np.zeros(n)
    b2 = np.zeros(n)
    valid = np.zeros(n, dtype=bool)
    for start, stop, block in _self_blocks(Xc, nrm):
        rows = np.arange(stop - start)
        i1 = block.argmin(axis=1)
        block[rows, i1] = math.inf
        i2 = block.argmin(axis=1)
        block[rows, i2] = math.inf
        third = block.min(axis=1) - tol[start:stop]  # bound on every other point
        grow = np.arange(start, stop)
        s1 = _sqdist_rows(P[grow], P[i1])
        s2 = _sqdist_rows(P[grow], P[i2])
        swap = s2 < s1
        nearest[start:stop] = np.where(swap, i2, i1)
        first, other = np.minimum(s1, s2), np.maximum(s1, s2)
        a2[start:stop] = first
        b2[start:stop] = np.minimum(other, third)
        valid[start:stop] = (first > 0.0) & (first < third)
    return nearest, np.sqrt(a2), np.sqrt(np.maximum(b2, 0.0)), valid


def _dense_hits(Pr: np.ndarray, nr: np.ndarray, o_r: np.ndarray | None, Pc: np.ndarray,
                nc: np.ndarray, oc: np.ndarray, seg: np.ndarray,
                n_seg: int) -> tuple[np.ndarray, np.ndarray]:
    """Captures between row points and column points of other clusters, exactly.

    Parameters
    ----------
    Pr, nr, o_r : arrays (a, D), (a,), (a,)
        Points of one cluster, their squared norms ``|x|^2`` and their own-cluster
        thresholds ``o``; ``o_r=None`` when the rows are known not to be capturable
        (only the columns are tested).
    Pc, nc, oc : arrays (b, D), (b,), (b,)
        Points of other clusters (concatenated), squared norms and own thresholds.
    seg : int array (b,)
        Partner number (0..n_seg-1) of each column.

    Returns
    -------
    rows_hit : bool array (a, n_seg)
        ``exists l in segment t: 0 < s(i, l) <= o_r[i]``.
    cols_hit : bool array (b,)
        ``exists i: 0 < s(i, l) <= oc[l]``.

    Notes
    -----
    Candidates pass ``A_il <= o + T`` with ``A_il = |x_i|^2 + |y_l|^2 - 2 x_i.y_l`` (one
    matrix product per block of rows) and ``T`` its rounding bound (`_dense_tol`), a
    superset of the exact condition; each candidate is re-measured with the sequential
    arithmetic. One product serves both directions.
    """
    a, d = Pr.shape
    b = Pc.shape[0]
    rows_hit = np.zeros((a, n_seg), dtype=bool)
    cols_hit = np.zeros(b, dtype=bool)
    if a == 0 or b == 0:
        return rows_hit, cols_hit
    c = _dense_tol(d)
    lim_c = oc + c * (nc + nr.max())
    lim_r = None if o_r is None else o_r + c * (nr + nc.max())
    step = max(1, _BLOCK_ELEMENTS // b)
    for start in range(0, a, step):
        stop = min(a, start + step)
        block = (-2.0 * Pr[start:stop]) @ Pc.T
        block += nc[None, :]
        if lim_r is not None:
            # rows: |x|^2 + (|y|^2 - 2 x.y) <= lim_r  <=>  block <= lim_r - |x|^2
            mask = block <= (lim_r[start:stop] - nr[start:stop])[:, None]
            block += nr[start:stop, None]
            mask |= block <= lim_c[None, :]
        else:
            block += nr[start:stop, None]
            mask = block <= lim_c[None, :]
        ii, ll = _nonzero2(mask)
        if ii.size == 0:
            continue
        gi = ii + start
        s = _sqdist_rows(Pr[gi], Pc[ll])
        positive = s > 0.0
        if o_r is not None:
            rh = positive & (s <= o_r[gi])
            rows_hit[gi[rh], seg[ll[rh]]] = True
        ch = positive & (s <= oc[ll])
        cols_hit[ll[ch]] = True
    return rows_hit, cols_hit


def _abs_slack(n_dims: int, magnitude: float) -> float:
    """Bound on ``|r0 - sqrt(s)|`` from translating points (distance units).

    KD-trees hold the mean-free points ``p0`` of a gene; its points are
    ``p = fl(mu + p0)`` and queries ``q' = fl(q - mu)``. Each rounding moves a coordinate
    by at most ``eps |coordinate|``, so distances move by at most
    ``2 eps sqrt(D) M`` (M bounds every coordinate involved); we take four times that.
    """
    return 8.0 * _EPS * math.sqrt(n_dims) * magnitude


def _own_nn_tree(P: np.ndarray, tree: cKDTree, P0: np.ndarray, slack: float,
                 rows: np.ndarray) -> np.ndarray:
    """`_own_nn_dense` for some ``rows``, with candidates from a KD-tree on ``P0``.

    ``P = fl(mu + P0)``. A row is settled when its k-th tree neighbour (from k=3) lies
    beyond ``sqrt(d_min) (1 + 1e-9) + slack``: then every point that could be at the
    exact smallest positive distance ``d_min`` is among the candidates. Others query
    again with k doubled. Returns the thresholds of ``rows``.
    """
    n = P.shape[0]
    out = np.full(n, math.inf)
    if n < 2:
        return out[rows]
    pending = rows
    k = min(n, 3)
    dist, idx = tree.query(P0[pending], k=k)
    dist, idx = dist.reshape(pending.size, k), idx.reshape(pending.size, k)
    while True:
        s = _sqdist_sequential(P[idx], P[pending][:, None, :])
        dmin = np.where(s > 0.0, s, math.inf).min(axis=1)
        window = np.sqrt(dmin) * (1.0 + _REL) + slack
        done = dist[:, -1] > window
        if k >= n:
            done[:] = True
        out[pending[done]] = dmin[done]
        pending = pending[~done]
        if pending.size == 0:
            return out[rows]
        k = min(n, 2 * k)
        dist, idx = tree.query(P0[pending], k=k)
        dist = dist.reshape(pending.size, k)
        idx = idx.reshape(pending.size, k)


def _nearest_two_tree(P: np.ndarray, tree: cKDTree) -> tuple[np.ndarray, np.ndarray,
                                                             np.ndarray, np.ndarray]:
    """`_nearest_two_dense` from the 3 nearest neighbours of every point in a KD-tree.

    ``a`` is re-measured exactly; ``b`` is the tree's distance to the third point (a
    bound on every other point up to the tree's rounding, far inside `_REL`). Rows with
    a duplicate point are not valid.
    """
    n = P.shape[0]
    dist, idx = tree.query(P, k=3)
    nearest = idx[:, 1].astype(np.intp)
    a = np.sqrt(_sqdist_rows(P, P[nearest]))
    valid = (dist[:, 1] > 0.0) & (idx[:, 0] == np.arange(n))
    return nearest, a, dist[:, 2], valid


def _nearest_two_scaled(P: np.ndarray, cand: np.ndarray, bound: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`_nearest_two_dense` from given candidates and a bound on every other point.

    ``cand`` (n, k) holds, for every point, k candidate neighbours and ``bound`` a lower
    bound on its distance to every point outside them. The candidates are measured
    exactly; a row is valid when none is a duplicate and the nearest lies below
    ``bound`` (it is then the nearest of all).
    """
    n = cand.shape[0]
    rows = np.arange(n)
    exact = _sqdist_gather(P, cand)
    first = exact.argmin(axis=1)
    d1 = exact[rows, first]
    exact[rows, first] = np.inf
    d2 = exact.min(axis=1)
    a = np.sqrt(d1)
    b = np.minimum(np.sqrt(d2), bound)
    valid = (d1 > 0.0) & (d2 > 0.0) & (a * (1.0 + _REL) < bound)
    return cand[rows, first], a, b, valid


def _tree_hits(Q: np.ndarray, oq: np.ndarray, P: np.ndarray, mean: np.ndarray,
               tree: cKDTree, slack: float) -> np.ndarray:
    """Which query points Q have a target point p with ``0 < s(q, p) <= oq``, exactly.

    The target's points are ``P = fl(mean + P0)`` and ``tree`` indexes ``P0``. Each query
    (at ``Q - mean``) looks within ``r = sqrt(oq) (1 + 1e-9) + slack``, a radius that
    contains every point with ``s <= oq``. The nearest neighbour decides almost every
    query: outside the radius, nothing can capture q; inside, its exact ``s`` usually
    does. The rest (a duplicate, or a rounding tie at the radius) go to
    `_tree_hits_all`, which examines every candidate.
    """
    m = Q.shape[0]
    n = P.shape[0]
    if m == 0 or n == 0:
        return np.zeros(m, dtype=bool)
    rad = np.sqrt(oq)
    rad *= 1.0 + _REL
    rad += slack
    bound = float(rad.max())
    bound = math.inf if not math.isfinite(bound) else bound * (1.0 + 1e-12) + 1e-300
    dist, idx = tree.query(Q - mean, k=1, distance_upper_bound=bound)
    inside = dist <= rad
    idx[~inside] = 0
    s = _sqdist_rows(P[idx], Q)
    hits = inside & (s > 0.0) & (s <= oq)
    todo = np.flatnonzero(inside & ~hits)
    if todo.size:
        hits[todo] = _tree_hits_all(Q[todo], oq[todo], P, mean, tree, rad[todo])
    return hits


def _tree_hits_all(Q: np.ndarray, oq: np.ndarray, P: np.ndarray, mean: np.ndarray,
                   tree: cKDTree, rad: np.ndarray) -> np.ndarray:
    """`_tree_hits` examining every neighbour within the radius.

    k doubles until the k-th neighbour lies outside the radius or a capture is found.
    """
    m = Q.shape[0]
    n = P.shape[0]
    hits = np.zeros(m, dtype=bool)
    q0 = Q - mean
    pending = np.arange(m)
    k = min(n, 2)
    while pending.size:
        bound = float(rad[pending].max())
        bound = math.inf if not math.isfinite(bound) else bound * (1.0 + 1e-12) + 1e-300
        dist, idx = tree.query(q0[pending], k=k, distance_upper_bound=bound)
        dist = dist.reshape(pending.size, k)
        idx = idx.reshape(pending.size, k)
        inside = dist <= rad[pending, None]
        safe = np.where(inside, idx, 0)
        s = _sqdist_sequential(P[safe], Q[pending][:, None, :])
        hit = np.any(inside & (s > 0.0) & (s <= oq[pending, None]), axis=1)
        hits[pending[hit]] = True
        if k >= n:
            break
        pending = pending[~(hit | ~inside[:, -1])]
        k = min(n, 2 * k)
    return hits


def _maybe_within(lb: np.ndarray, o: np.ndarray, slack: float) -> np.ndarray:
    """False where the lower bound ``lb`` on distances proves ``s > o`` (with margins).

    ``lb`` is computed in floating point from projections; ``lb (1 - 1e-9) - slack``
    bounds the true distance from below and the exact squared distance is within
    ``(D + 2) eps`` of the true one, hence the test ``(lb') ** 2 > o (1 + 1e-9)``.
    """
    low = lb * (1.0 - _REL) - slack
    return (low <= 0.0) | (np.square(low) <= o * (1.0 + _REL))


_EMPTY = np.zeros(0, dtype=np.int32)
_EMPTY.setflags(write=False)


# ---------------------------------------------------------------------------------------
# Caches
# ---------------------------------------------------------------------------------------

def _nbytes(value: Any) -> int:
    """Bytes held by a cache value: arrays, tuples of arrays, or objects with ``nbytes``."""
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value)
    return int(getattr(value, "nbytes", 0))


class ByteLRU:
    """A least-recently-used cache bounded by the bytes of the values it holds.

    Parameters
    ----------
    max_bytes : int
        Budget; the least recently used entries are evicted to keep within it. An
        entry larger than the whole budget is not stored.

    Notes
    -----
    Values are numpy arrays, tuples of arrays or objects with an ``nbytes`` attribute;
    each entry is charged its ``nbytes`` plus `OVERHEAD` (key, bookkeeping). An object
    that grows after being stored is re-measured by putting it again.
    """

    #: Bytes charged per entry on top of its arrays (key tuple, dictionary slots).
    OVERHEAD = 256

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = check_int("cache_bytes", max_bytes, minimum=0)
        self._data: OrderedDict = OrderedDict()
        self._sizes: dict = {}
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

    def absent(self, keys: Iterable) -> list:
        """The keys not held (no entry is touched, no hit or miss counted)."""
        data = self._data
        return [key for key in keys if key not in data]

    def get_many(self, keys: Sequence) -> list:
        """`get` for many keys at once (None where missing)."""
        data = self._data
        get, touch = data.get, data.move_to_end
        out = []
        for key in keys:
            value = get(key)
            if value is not None:
                touch(key)
            out.append(value)
        found = sum(v is not None for v in out)
        self.hits += found
        self.misses += len(out) - found
        return out

    def put(self, key: object, value: Any) -> None:
        """Store ``value``, evicting least recently used entries beyond the budget."""
        self.put_many((key,), (value,))

    def put_many(self, keys: Sequence, values: Sequence) -> None:
        """`put` for many entries, in order."""
        data, sizes, budget, overhead = self._data, self._sizes, self.max_bytes, self.OVERHEAD
        nbytes = self.nbytes
        for key, value in zip(keys, values, strict=True):
            size = _nbytes(value) + overhead
            old = sizes.pop(key, None)
            if old is not None:
                del data[key]
                nbytes -= old
            if size > budget:
                continue
            data[key] = value
            sizes[key] = size
            nbytes += size
            while nbytes > budget:
                evicted, _ = data.popitem(last=False)
                nbytes -= sizes.pop(evicted)
                self.evictions += 1
        self.nbytes = nbytes

    def clear(self) -> None:
        """Drop every entry."""
        self._data.clear()
        self._sizes.clear()
        self.nbytes = 0

    def stats(self) -> dict[str, int]:
        """Entries, bytes held, budget, hits, misses and evictions."""
        return {"entries": len(self._data), "nbytes": self.nbytes,
                "max_bytes": self.max_bytes, "hits": self.hits, "misses": self.misses,
                "evictions": self.evictions}


class _Shape:
    """What a gene's shape (variances, rotation) fixes in one slot: the mean-free points.

    ``p0 = z_k diag(sqrt(lambda)) R^T``, with what translations leave unchanged: its
    centroid ``c0``, scatter, radius (largest distance to ``c0``) and largest norm;
    when needed, a KD-tree on p0 (`ensure_tree`), the nearest-neighbour certificate
    (`set_own`) and the Euclidean intra-cluster row sums.
    """

    __slots__ = ("p0", "maxabs", "c0", "scatter", "radius", "maxnorm", "tree", "eu_intra",
                 "own_idx", "own_margin", "step_range")

    def __init__(self, p0: np.ndarray) -> None:
        p0.setflags(write=False)
        self.p0 = p0
        self.maxabs = float(np.abs(p0).max()) if p0.size else 0.0
        self.c0 = p0.mean(axis=0)
        diff = p0 - self.c0
        sq = np.einsum("ij,ij->i", diff, diff)
        self.scatter = float(sq.sum())
        self.radius = float(np.sqrt(sq.max()))
        self.maxnorm = float(np.sqrt(np.einsum("ij,ij->i", p0, p0).max()))
        self.tree: cKDTree | None = None
        self.eu_intra: np.ndarray | None = None
        self.own_idx: np.ndarray | None = None
        self.own_margin: np.ndarray | None = None
        # (min, max) over points of the exact distance to a fixed other point of the
        # shape (`Evaluator._reach_bound`)
        self.step_range: tuple[float, float] | None = None

    def ensure_tree(self) -> None:
        """Build the KD-tree on p0 (once)."""
        if self.tree is None:
            self.tree = cKDTree(self.p0, copy_data=False, balanced_tree=False)

    @property
    def nbytes(self) -> int:
        n, d = self.p0.shape
        size = self.p0.nbytes
        if self.tree is not None:
            # indices + nodes (leafsize 16, ~100 bytes a node, two nodes per leaf)
            size += 8 * n + 200 * (n // 16 + 1)
        if self.eu_intra is not None:
            size += self.eu_intra.nbytes
        if self.own_idx is not None:
            size += self.own_idx.nbytes + self.own_margin.nbytes
        return size

    def set_own(self, nearest: np.ndarray, a: np.ndarray, b: np.ndarray,
                valid: np.ndarray) -> None:
        """Store every point's nearest neighbour ``l*`` with its translation margin.

        For a gene ``P = fl(mu + p0)`` whose translation slack (`_abs_slack`) is below
        ``own_margin[i]``, ``l*`` is the unique point at the smallest positive distance
        from point i, so ``o(i) = s(P_i, P_l*)`` exactly: with ``a`` the distance to
        ``l*`` and ``b`` a lower bound on the distance to any other point (relative
        margins `_REL`), the margin is ``min((b - a) / 2, a)``; rows not ``valid``
        (duplicates, near ties) get ``-inf``. See `Evaluator._certify`.
        """
        margin = np.full(a.shape[0], -math.inf)
        with np.errstate(invalid="ignore"):
            m = np.minimum(0.5 * (b * (1.0 - _REL) - a * (1.0 + _REL)), a * (1.0 - _REL))
        margin[valid] = m[valid]
        self.own_idx, self.own_margin = nearest, margin


class _Gene:
    """What a gene fixes in one slot: its points ``fl(mu + p0)`` and their summaries.

    Centroid ``mu + c0``, scatter and radius come from the shape (translation leaves
    them unchanged, up to rounding far below the margins of the bounds using them);
    ``maxabs`` and ``maxnorm`` are upper bounds on the points' coordinates and norms.
    The squared norms of the points are measured on first use (matrix-product paths).
    """

    __slots__ = ("points", "mean", "centroid", "scatter", "maxabs", "radius", "_sqnorm",
                 "maxnorm", "own_nn", "own_reach", "own_max", "ctx_keys", "ctx_d2", "own_d2")

    def __init__(self, mean: np.ndarray, shape: _Shape) -> None:
        # mu + p0: the same arithmetic as Cluster.sample, so the same bits as X.
        points = mean + shape.p0
        points.setflags(write=False)
        self.points = points
        self.mean = mean
        self.centroid = mean + shape.c0
        self.scatter = shape.scatter
        self.radius = shape.radius
        grow = 1.0 + 4.0 * _EPS
        self.maxabs = (float(np.abs(mean).max()) + shape.maxabs) * grow
        self.maxnorm = (float(np.sqrt(mean @ mean)) + shape.maxnorm) * grow
        self._sqnorm: np.ndarray | None = None
        self.own_nn: np.ndarray | None = None
        self.own_reach: np.ndarray | None = None  # sqrt(o) with margins (`_side_hits`)
        self.own_max = math.inf
        self.ctx_keys: list[str] | None = None
        self.ctx_d2: np.ndarray | None = None
        self.own_d2: np.ndarray | None = None

    @property
    def sqnorm(self) -> np.ndarray:
        """Squared norms ``|x|^2`` of the points (measured once)."""
        if self._sqnorm is None:
            self._sqnorm = np.einsum("ij,ij->i", self.points, self.points)
        return self._sqnorm

    @property
    def nbytes(self) -> int:
        # the squared norms are charged up front, measured or not
        size = self.points.nbytes + 8 * self.points.shape[0] + 4 * self.centroid.nbytes
        if self.own_nn is not None:
            size += self.own_nn.nbytes + self.own_reach.nbytes
        if self.ctx_d2 is not None:
            size += self.ctx_d2.nbytes + self.own_d2.nbytes
        return size


class _ThreadLimiter:
    """Cheap, re-entrant caps on the threads of native libraries of some ``user_api``.

    The libraries are found once (``threadpoolctl``); only the outermost level changes
    them, and only those using more threads than asked; leaving restores them.
    """

    def __init__(self, user_apis: tuple[str, ...]) -> None:
        self.user_apis = user_apis
        self.libs: list | None = None
        self.depth = 0

    @contextmanager
    def __call__(self, threads: int) -> Iterator[None]:
        if self.depth:
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
            return
        if self.libs is None:
            from threadpoolctl import ThreadpoolController

            self.libs = [lib for lib in ThreadpoolController().lib_controllers
                         if lib.user_api in self.user_apis]
        changed = []
        for lib in self.libs:
            n = lib.num_threads
            if n > threads:
                lib.set_num_threads(threads)
                changed.append((lib, n))
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            for lib, n in changed:
                lib.set_num_threads(n)


_BLAS_LIMITER = _ThreadLimiter(("blas",))
_NATIVE_LIMITER = _ThreadLimiter(("blas", "openmp"))


def blas_thread_limit(threads: int = 1) -> AbstractContextManager[None]:
    """Context in which the BLAS libraries use at most ``threads`` threads.

    The kernels of evaluation and of the covariance mutation multiply small matrices,
    for which several BLAS threads only add synchronisation (and, on a busy machine,
    oversubscription: a 50 x 50 ``eigh`` took 6.5 ms instead of 0.36 ms). Cheap and
    re-entrant, unlike ``threadpoolctl.threadpool_limits``: the libraries are found once,
    only the outermost level changes them, and only those using more threads.
    """
    return _BLAS_LIMITER(threads)


def native_thread_limit(threads: int = 1) -> AbstractContextManager[None]:
    """`blas_thread_limit` for BLAS and OpenMP together (scikit-learn's clustering loops)."""
    return _NATIVE_LIMITER(threads)


class _Table:
    """The genes of one computation of overlap pair entries (`Evaluator._overlap_pairs`).

    Gene u: its slot ``slots[u]``, its `Cluster` ``genes[u]`` and cache entry
    ``entries[u]``; its points are rows ``offs[u]:offs[u + 1]`` of
    ``X`` (the table's rows). A genotype's table has gene u in slot u and X its dataset
    (``data_offs`` None: table rows are data rows); a batch's (`prefetch_overlap`) lists
    each (slot, gene) once, and ``data_offs[u]`` is the first data row of u's slot.
    ``n_genotypes`` scales the whole-dataset budget.
    """

    __slots__ = ("slots", "genes", "entries", "offs", "offs_arr", "sizes_arr", "X",
                 "data_offs", "n_genotypes")

    def __init__(self, slots: list[int], genes: list, entries: list[_Gene], offs: list[int],
                 offs_arr: np.ndarray, sizes_arr: np.ndarray, X: np.ndarray,
                 data_offs: np.ndarray | None, n_genotypes: int) -> None:
        self.slots, self.genes, self.entries = slots, genes, entries
        self.offs, self.offs_arr, self.sizes_arr, self.X = offs, offs_arr, sizes_arr, X
        self.data_offs, self.n_genotypes = data_offs, n_genotypes


class Evaluator:
    """Exact, incremental evaluation of the genotypes of one run layout.

    Parameters
    ----------
    layout : Layout
        The run's layout (sizes and common random numbers).
    metric : {"sqeuclidean", "euclidean"}
        Distance of the silhouette.
    cache_bytes : int
        Budget of all caches together (default 512 MiB), least recently used first out.
    threads : int or None
        BLAS threads while evaluating (default 1: the kernels use small matrix products,
        for which more threads only add overhead and oversubscription); None leaves the
        setting alone.

    Notes
    -----
    Cached by content keys, so a gene never evaluated before costs work only for the
    blocks that involve it:

    - per (slot, shape key): the mean-free points ``p0`` with their centroid, scatter
      and radius, every point's nearest neighbour with the rounding margin that keeps
      it the nearest under translation (`_certify`), in low dimension a KD-tree on
      ``p0`` (built when another gene's points are tested against it), and for the
      Euclidean silhouette the intra-cluster row sums;
    - per (slot, anisotropy level), in two dimensions: the nearest draws of every point
      of the slot in a fixed metric, from which the shapes' certificates are taken;
    - per (slot, gene key): the points ``mu + p0``, the own-cluster thresholds ``o(i)``
      (smallest positive squared distance within the cluster: one distance per point
      where the shape's certificate holds) and, for large N K D, the squared distances
      of its points to the centroids of the genotype it was last evaluated in;
    - per pair of (slot, gene key): the points of each cluster captured by the other
      (overlap; all missing pairs of a genotype are pruned and tested together, see
      `_overlap_pairs`) and, for the Euclidean silhouette, the row and column sums of
      their distance block.

    Every cached value is a pure function of its key, so results do not depend on the
    cache's history or budget (only on the layout). Overlap is exact (see the module
    notes); the silhouette equals ``sklearn.metrics.silhouette_score`` up to rounding
    (1e-12 relative). Memory: the budget counts the arrays held plus `ByteLRU.OVERHEAD`
    bytes per entry; nothing of size N x N is ever built.
    """

    def __init__(self, layout, *, metric: str = "sqeuclidean",
                 cache_bytes: int = 512 * 2**20, threads: int | None = 1) -> None:
        self.layout = layout
        self.metric = check_choice("metric", metric, SILHOUETTE_METRICS)
        self.cache = ByteLRU(cache_bytes)
        self.threads = None if threads is None else check_int("threads", threads, minimum=1)
        self.codes = np.asarray(layout.labels, dtype=np.intp)
        self.counts = np.asarray(layout.sizes, dtype=float)
        self._sizes = [int(n) for n in layout.sizes]
        self._offsets = [int(o) for o in layout.offsets]
        self._offsets_arr = np.asarray(layout.offsets, dtype=np.intp)
        self._sizes_arr = np.asarray(layout.sizes, dtype=np.intp)
        d, mean_size = layout.n_dims, layout.n_samples / layout.n_clusters
        self.low_dims = d <= KDTREE_MAX_DIMS and (d <= 4 or mean_size >= _TREE_MIN_SIZE)
        self._shape_keys: dict[str, str] = {}
        self._z_step_cache: dict[int, np.ndarray | None] = {}
        self._last: tuple[list[str], list[_Gene]] = ([], [])
        self._last_points: tuple[list[_Gene], np.ndarray] | None = None
        k = layout.n_clusters
        self._pairs = [(j, m) for j in range(k) for m in range(j + 1, k)]
        self._rows = np.arange(layout.n_samples)
        self._own_n = self.counts[self.codes]
        self._multi = self._own_n > 1  # s(i) = 0 for a point alone in its cluster
        self._own_n1 = np.where(self._multi, self._own_n - 1.0, 1.0)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["cache"] = ByteLRU(self.cache.max_bytes)  # caches are not shipped
        state["_shape_keys"] = {}
        state["_z_step_cache"] = {}
        state["_last"] = ([], [])
        state["_last_points"] = None
        return state

    # -- plumbing ------------------------------------------------------------------------

    @contextmanager
    def limit_threads(self) -> Iterator[None]:
        """Context in which BLAS uses at most ``threads`` threads (no-op if None)."""
        if self.threads is None:
            yield
            return
        with blas_thread_limit(self.threads):
            yield

    def _shape_key(self, gene) -> str:
        key = self._shape_keys.get(gene.key)
        if key is None:
            if len(self._shape_keys) > 200_000:
                self._shape_keys.clear()
            key = self._shape_keys[gene.key] = gene.shape_key
        return key

    def _shape(self, slot: int, gene) -> _Shape:
        ckey = ("s", slot, self._shape_key(gene))
        shape = self.cache.get(ckey)
        if shape is None:
            z = self.layout.z[slot]
            shape = _Shape((z * np.sqrt(gene.variances)) @ gene.rotation.T)
            self.cache.put(ckey, shape)
        return shape

    def _gene(self, slot: int, gene) -> _Gene:
        ckey = ("g", slot, gene.key)
        entry = self.cache.get(ckey)
        if entry is None:
            entry = _Gene(gene.mean, self._shape(slot, gene))
            self.cache.put(ckey, entry)
        return entry

    def _genes(self, genotype: Sequence) -> tuple[list[str], list[_Gene]]:
        """Gene keys and cache entries of a genotype (the last genotype's are reused)."""
        keys = [g.key for g in genotype]
        last_keys, last_entries = self._last
        if keys == last_keys:
            return keys, last_entries
        self.layout.check(genotype)
        entries = [self._gene(k, g) for k, g in enumerate(genotype)]
        self._last = (keys, entries)
        return keys, entries

    def _own_nn(self, slot: int, gene, entry: _Gene) -> np.ndarray:
        """The own-cluster thresholds ``o`` of a gene's points (cached with the gene).

        Translating a shape moves distances by rounding only: where the shape's
        nearest-neighbour margin (`_Shape.set_own`) exceeds the gene's translation
        slack, ``o(i)`` is the exact distance to the shape's nearest neighbour; the
        other points are measured as without the shape (KD-tree candidates, or distance
        rows).
        """
        if entry.own_nn is None:
            P = entry.points
            shape = self._shape(slot, gene)
            had_own = shape.own_idx is not None
            self._certify(slot, gene, shape)
            slack = _abs_slack(P.shape[1], max(entry.maxabs, shape.maxabs))
            sure = shape.own_margin > slack
            if sure.all():
                own = _sqdist_rows(P, P[shape.own_idx])
            else:
                own = np.empty(P.shape[0])
                own[sure] = _sqdist_rows(P[sure], P[shape.own_idx[sure]])
                rest = np.flatnonzero(~sure)
                if self.low_dims:
                    shape.ensure_tree()
                    own[rest] = _own_nn_tree(P, shape.tree, shape.p0, slack, rest)
                elif 8 * rest.size > P.shape[0]:
                    own[rest] = _own_nn_dense(P)[rest]
                else:
                    own[rest] = [_row_min_positive(P, i) for i in rest.tolist()]
            if not had_own:
                self.cache.put(("s", slot, self._shape_key(gene)), shape)
            entry.own_nn = own
            entry.own_reach = np.sqrt(own * (1.0 + _REL)) / (1.0 - _REL)
            entry.own_max = float(own.max()) if own.size else 0.0
            self.cache.put(("g", slot, gene.key), entry)
        return entry.own_nn

    def _reach_bound(self, slot: int, gene, entry: _Gene) -> float:
        """An upper bound on a gene's largest own-cluster threshold ``max o(i)``.

        ``o(i) <= s(i, l)`` for any other point l at a positive distance. Pairing each
        point with its nearest draw in the slot's z (fixed for the run, `_z_steps`),
        the shape moves the pair's difference to ``dz diag(sqrt(lam)) R^T``, of exact
        length ``sqrt(sum_d lam_d dz_d^2)`` (rotations keep lengths): the largest such
        length, widened by the rounding of the points (``E`` below), bounds ``sqrt(o)``
        from above; the smallest, less ``E``, shows that no pair coincides in floating
        point (else the bound is ``inf``). Computing the thresholds themselves costs a
        nearest-neighbour pass over the gene; `_overlap_pairs` skips it for genes whose
        pairs this bound already proves empty.
        """
        shape = self._shape(slot, gene)
        if shape.step_range is None:
            steps = self._z_steps(slot)
            if steps is None:
                shape.step_range = (0.0, math.inf)
            else:
                length = np.sqrt(np.square(steps) @ gene.variances)
                shape.step_range = (float(length.min()), float(length.max()))
        low, high = shape.step_range
        d = self.layout.n_dims
        # |fl(p0) - exact| per point <= (D + 3) eps |p0| <= (D + 3) eps sqrt(D) maxabs in
        # each coordinate, then the translation; both points of a pair, four times over
        err = 8.0 * _EPS * ((d + 3) * d * shape.maxabs + math.sqrt(d) * entry.maxabs)
        if not (low * (1.0 - _REL) > err and low > 1e-150):  # (no underflow to 0 either)
            return math.inf
        return ((high * (1.0 + _REL) + err) * (1.0 + _REL)) ** 2

    def _z_steps(self, slot: int) -> np.ndarray | None:
        """``z_i - z_nearest(i)`` for the draws of a slot (None if fewer than 2)."""
        steps = self._z_step_cache.get(slot, False)
        if steps is False:
            z = self.layout.z[slot]
            if z.shape[0] < 2:
                steps = None
            else:
                _, idx = cKDTree(z).query(z, k=2)
                other = np.where(idx[:, 0] == np.arange(z.shape[0]), idx[:, 1], idx[:, 0])
                steps = z - z[other]
            self._z_step_cache[slot] = steps
        return steps

    def _certify(self, slot: int, gene, shape: _Shape) -> None:
        """The nearest-neighbour certificate of a shape (`_Shape.set_own`), once.

        In two dimensions the candidates come from the slot's draws z: the shape's
        squared distances are ``lam_1 dz_1^2 + lam_2 dz_2^2`` (rotation aside), at least
        ``lam_big f^2 (dz_big^2 + t_j^2 dz_small^2)`` with ``t = sqrt(lam_small /
        lam_big)``, ``t_j = 2^(-j/2)`` the level just above t and ``f = min(1, t / t_j)``.
        So the `_Z_NEIGHBOURS` nearest draws of each point in the fixed metric of level
        j (computed once per slot and level) hold its nearest point in the shape unless
        that lies beyond ``sqrt(lam_big) f r`` (``r`` the level distance to the last of
        them, less a rounding margin): no KD-tree query per shape. Other dimensions: the
        3 nearest neighbours in a KD-tree on p0, or matrix products.
        """
        if shape.own_idx is not None:
            return
        p0 = shape.p0
        n, d = p0.shape
        if n < 4:
            shape.set_own(np.zeros(n, dtype=np.intp), np.zeros(n), np.zeros(n),
                          np.zeros(n, dtype=bool))
            return
        if not self.low_dims:
            shape.set_own(*_nearest_two_dense(p0))
            return
        lam = gene.variances
        if d == 2 and n > _Z_NEIGHBOURS:
            big = int(lam[1] > lam[0])
            t = math.sqrt(lam[1 - big] / lam[big])
            level = int(math.floor(-2.0 * math.log2(t))) if t > 0 else _Z_LEVELS + 1
            if level <= _Z_LEVELS:
                cand, r = self._z_neighbours(slot, big, level)
                factor = min(1.0, t / 2.0 ** (-level / 2.0))
                # rounding of p0 = (z sqrt(lam)) R^T against its exact linear image
                margin = 8.0 * (d + 2) * _EPS * math.sqrt(d) * shape.maxabs
                bound = math.sqrt(lam[big]) * factor * r * (1.0 - _REL) - margin
                shape.set_own(*_nearest_two_scaled(p0, cand, bound))
                return
        shape.ensure_tree()
        shape.set_own(*_nearest_two_tree(p0, shape.tree))

    def _z_neighbours(self, slot: int, big: int, level: int) -> tuple[np.ndarray, np.ndarray]:
        """The `_Z_NEIGHBOURS` nearest draws of each point of a slot in one fixed metric.

        The metric is ``dz_big^2 + t^2 dz_small^2`` with ``t = 2^(-level/2)``. Returns
        the neighbours (n, k) and the distance to the last of them (0 where a point has
        a duplicate, which voids its certificate). Cached with the other entries.
        """
        key = ("z", slot, big, level)
        entry = self.cache.get(key)
        if entry is None:
            z = self.layout.z[slot].copy()
            z[:, 1 - big] *= 2.0 ** (-level / 2.0)
            k = _Z_NEIGHBOURS
            dist, idx = cKDTree(z, balanced_tree=False).query(z, k=k + 1)
            r = np.where(dist[:, 1] > 0.0, dist[:, k], 0.0)
            cand = np.where((idx[:, :1] == np.arange(z.shape[0])[:, None]), idx[:, 1:],
                            idx[:, :k]).astype(np.intp)
            entry = (cand, r)
            self.cache.put(key, entry)
        return entry

    # -- public API ----------------------------------------------------------------------

    def points(self, genotype: Sequence) -> np.ndarray:
        """The dataset X of a genotype, shape (N, D) (bit-identical to ``layout.sample``)."""
        return self._points(self._genes(genotype)[1]).copy()  # the caller may write to it

    def silhouette(self, data: Any) -> float:
        """Mean silhouette (Eq. 2) of a genotype under the evaluator's metric.

        Parameters
        ----------
        data : Genotype or array of shape (N, D)
            A genotype (fast path, cached) or its data X (plain computation).
        """
        k = self.layout.n_clusters
        if isinstance(data, np.ndarray):
            if self.metric == "sqeuclidean":
                sums = silhouette_sums_sqeuclidean(data, self.codes, k)
            else:
                sums = silhouette_sums_euclidean(data, self.codes, k)
            return float(np.mean(_silhouette_from_sums(sums, self.codes, self.counts)))
        with self.limit_threads():
            keys, genes = self._genes(data)
            if self.metric == "sqeuclidean":
                return self._silhouette_sq(keys, genes)
            return self._silhouette_eu(data, keys, genes)

    def overlap(self, data: Any) -> float:
        """Overlap (Eq. 5) of a genotype: fraction of points with a foreign nearest neighbour.

        Parameters
        ----------
        data : Genotype or array of shape (N, D)
            A genotype (fast path, cached) or its data X (plain computation).
        """
        if isinstance(data, np.ndarray):
            return float(np.mean(overlap_flags(data, self.codes)))
        with self.limit_threads():
            return self._overlap(data)

    # -- silhouette ----------------------------------------------------------------------

    def _silhouette_sq(self, keys: list[str], genes: list[_Gene]) -> float:
        """Squared-Euclidean silhouette in closed form.

        ``a(i) = (n_own d_own + SS_own) / (n_own - 1)`` and
        ``b(i) = min_{k != own} (d_ik + SS_k / n_k)`` with ``d_ik = ||x_i - c_k||^2``.
        Up to N K D = `_DIRECT_SILHOUETTE`, the whole K x N block ``d`` is measured at
        every call (one ``cdist``). Above, each slot's gene keeps ``d_own`` and the block
        ``d_ki`` (K x n, own row at +inf) of its points against the centroids of the
        genotype it was last evaluated in, with their keys; only the columns whose gene
        changed since are measured again, in one ``cdist`` call for all slots (every value
        is the same whichever path computed it). Small problems reduce the blocks together,
        large ones slot by slot (no N x K copy); the choice depends only on N and K.
        """
        k = len(keys)
        centroids = np.stack([e.centroid for e in genes])
        scatter = np.array([e.scatter for e in genes])
        if self.layout.n_samples * k * self.layout.n_dims <= _DIRECT_SILHOUETTE:
            # one K x N block from scratch is cheaper than the bookkeeping below
            d2 = cdist(centroids, self._points(genes), "sqeuclidean")
            a = d2[self.codes, self._rows]
            d2 += (scatter / self.counts)[:, None]
            d2[self.codes, self._rows] = np.inf
            return self._silhouette_from_a_b(a, d2.min(axis=0), scatter)
        stale: dict[int, list[int]] = {}
        union: set[int] = set()
        for j, e in enumerate(genes):
            ctx = e.ctx_keys
            if ctx is None:
                e.ctx_d2 = cdist(centroids, e.points, "sqeuclidean")
                e.own_d2 = e.ctx_d2[j].copy()
                e.ctx_d2[j] = np.inf
                e.ctx_keys = keys
                self.cache.put(("g", j, keys[j]), e)
            elif ctx != keys:
                changed = [m for m in range(k) if ctx[m] != keys[m]]
                stale[j] = changed
                union.update(changed)
                e.ctx_keys = keys
        if stale:
            cols = sorted(union)
            slots = sorted(stale)
            fresh = cdist(centroids[cols], np.concatenate([genes[j].points for j in slots]),
                          "sqeuclidean")
            where = {m: t for t, m in enumerate(cols)}
            start = 0
            for j in slots:
                stop = start + genes[j].points.shape[0]
                changed = stale[j]
                genes[j].ctx_d2[changed] = fresh[[where[m] for m in changed], start:stop]
                start = stop
        spread = scatter / self.counts
        if self.layout.n_samples * k <= _SLOTWISE_SILHOUETTE:
            d2 = np.concatenate([e.ctx_d2 for e in genes], axis=1)
            d2 += spread[:, None]
            return self._silhouette_from_a_b(np.concatenate([e.own_d2 for e in genes]),
                                             d2.min(axis=0), scatter)
        total = 0.0
        for j, e in enumerate(genes):
            n_j = self._sizes[j]
            if n_j < 2:
                continue  # s(i) = 0 for a point alone in its cluster
            b = (e.ctx_d2 + spread[:, None]).min(axis=0)
            a = e.own_d2 * float(n_j)
            a += scatter[j]
            a /= n_j - 1.0
            denom = np.maximum(a, b)
            b -= a
            total += float(np.divide(b, denom, out=np.zeros_like(b), where=denom > 0).sum())
        return total / self.layout.n_samples

    def _silhouette_from_a_b(self, d_own: np.ndarray, b: np.ndarray,
                             scatter: np.ndarray) -> float:
        """Mean silhouette from ``d_own = ||x_i - c_own||^2`` and ``b(i)`` (both consumed)."""
        a = d_own
        a *= self._own_n
        a += scatter.take(self.codes)
        a /= self._own_n1
        return self._mean_silhouette(a, b)

    def _mean_silhouette(self, a: np.ndarray, b: np.ndarray) -> float:
        """Mean silhouette ``(b - a) / max(a, b)``; 0 for a point alone (``b`` consumed)."""
        denom = np.maximum(a, b)
        b -= a
        s = np.divide(b, denom, out=np.zeros_like(b), where=self._multi & (denom > 0))
        return float(s.mean())

    def _points(self, genes: list[_Gene]) -> np.ndarray:
        """The dataset X of a list of gene entries (kept for the last genotype)."""
        last = self._last_points
        if last is not None and last[0] is genes:
            return last[1]
        X = np.concatenate([e.points for e in genes])
        self._last_points = (genes, X)
        return X

    def _silhouette_eu(self, genotype: Sequence, keys: list[str], genes: list[_Gene]) -> float:
        """Euclidean silhouette from per-pair row sums, measured where needed.

        ``a(i)`` comes from the intra-cluster row sums (cached per shape), ``b(i)`` from
        the mean distances ``m_ik`` to the other clusters. Per pair of genes the cache
        holds the row and the column sums of their distance block (NaN where not
        measured yet): for each of the two clusters, its points' summed distances to the
        other. A sum is measured only where it can be
        point i's ``b(i)``: by Jensen's inequality
        ``|x - c_k| <= m_ik <= sqrt(|x - c_k|^2 + SS_k / n_k)``, so a cluster whose lower
        bound exceeds the smallest upper bound (or known mean) cannot be the minimum.
        Each sum has the same bits whichever call measured it (`_euclidean_rows`,
        `_euclidean_cols`, `_euclidean_block_sums`), so the result does not depend on the
        cache's history.
        """
        k = len(genes)
        n = self.layout.n_samples
        offs, sizes = self._offsets, self._sizes
        intra = np.empty(n)
        for j in range(k):
            shape = self._shape(j, genotype[j])
            if shape.eu_intra is None:
                shape.eu_intra = _euclidean_intra_sums(shape.p0)
                self.cache.put(("s", j, self._shape_key(genotype[j])), shape)
            intra[offs[j]:offs[j + 1]] = shape.eu_intra
        means = np.full((n, k), np.nan)
        pairs = self._pairs
        table = self.cache.get_many([("e", j, keys[j], m, keys[m]) for j, m in pairs])
        for p, (j, m) in enumerate(pairs):
            entry = table[p]
            if entry is None:
                entry = table[p] = (np.full(sizes[j], np.nan), np.full(sizes[m], np.nan))
                self.cache.put(("e", j, keys[j], m, keys[m]), entry)
            means[offs[j]:offs[j + 1], m] = entry[0] / float(sizes[m])
            means[offs[m]:offs[m + 1], j] = entry[1] / float(sizes[j])
        rows = self._rows
        means[rows, self.codes] = np.inf  # never a candidate for b(i)
        unknown = np.isnan(means)
        if unknown.any():
            centroids = np.stack([e.centroid for e in genes])
            low = cdist(self._points(genes), centroids, "euclidean")
            spread = np.array([e.scatter for e in genes]) / self.counts
            high = np.sqrt(np.square(low) + spread[None, :])
            known = ~unknown
            low[known] = means[known]
            high[known] = means[known]
            best = high.min(axis=1) * (1.0 + _REL)
            need = unknown & (low * (1.0 - _REL) <= best[:, None])
            by_slot = np.logical_or.reduceat(need, self._offsets_arr[:-1], axis=0)  # (k, k)
            for p, (j, m) in enumerate(pairs):
                if not (by_slot[j, m] or by_slot[m, j]):
                    continue
                row_j, row_m = table[p]
                Pj, Pm = genes[j].points, genes[m].points
                rj = np.flatnonzero(need[offs[j]:offs[j + 1], m])
                rm = np.flatnonzero(need[offs[m]:offs[m + 1], j])
                nj, nm = sizes[j], sizes[m]
                if (rj.size * nm + rm.size * nj < 0.8 * nj * nm
                        or nj * nm > _BLOCK_ELEMENTS):
                    if rj.size:
                        row_j[rj] = _euclidean_rows(Pj[rj], Pm)
                    if rm.size:
                        row_m[rm] = _euclidean_cols(Pj, Pm[rm])
                else:  # nearly the whole block: both directions from one block
                    row_j[:], row_m[:] = _euclidean_block_sums(Pj, Pm)
                means[offs[j]:offs[j + 1], m] = row_j / float(nm)
                means[offs[m]:offs[m + 1], j] = row_m / float(nj)
            means[np.isnan(means)] = np.inf  # provably not the minimum
        return self._mean_silhouette(intra / self._own_n1, means.min(axis=1))

    # -- overlap -------------------------------------------------------------------------

    def _overlap(self, genotype: Sequence) -> float:
        keys, genes = self._genes(genotype)
        pairs = self._pairs
        ckeys = [("o", j, keys[j], m, keys[m]) for j, m in pairs]
        entries = self.cache.get_many(ckeys)
        lacking = [p for p, e in enumerate(entries) if e is None]
        parts = [e for e in entries if e is not None and e.size]
        if lacking:
            computed = self._overlap_pairs(self._genotype_table(genotype, genes),
                                           [pairs[p] for p in lacking],
                                           [ckeys[p] for p in lacking])
            if computed is None:  # a whole-dataset pass was cheaper; pairs stay uncached
                return self._overlap_full(genes)
            parts.extend(computed)
        if not parts:
            return 0.0
        flags = np.zeros(self.layout.n_samples, dtype=bool)
        flags[np.concatenate(parts)] = True
        return float(np.count_nonzero(flags) / flags.size)

    def _genotype_table(self, genotype: Sequence, genes: list[_Gene]) -> _Table:
        """The `_Table` of one genotype: gene u is slot u, its rows are the data rows."""
        return _Table(list(range(len(genes))), list(genotype), genes, self._offsets,
                      self._offsets_arr, self._sizes_arr, self._points(genes), None, 1)

    def prefetch_overlap(self, genotypes: Sequence[Sequence]) -> None:
        """Compute together the overlap pair entries that a batch of genotypes lacks.

        A generation's offspring share most of their genes: their missing pairs of
        genes go through one `_overlap_pairs` call (one projection per query gene, one
        exact test per target gene or pivot) instead of one call per genotype, and are
        cached; `overlap` then finds them. Values are unchanged (each pair entry is
        exact, whichever call computes it). The genotypes are taken in order, as long as
        their missing pairs hold at most `_PREFETCH_POINTS` points in all (memory stays
        that of a few evaluations; at N = 100,000 a genotype alone exceeds it and is
        left to its own evaluation); pairs whose pass would exceed the whole-dataset
        budget are left to the genotypes' evaluations too.
        """
        with self.limit_threads():
            sizes = self._sizes
            pairs = self._pairs
            todo: dict[tuple, Sequence] = {}  # cache key -> a genotype with that pair
            batch: list[tuple] = []
            volume = n_genotypes = 0
            for genotype in genotypes:
                self.layout.check(genotype)
                keys = [g.key for g in genotype]
                new = [c for c in self.cache.absent([("o", j, keys[j], m, keys[m])
                                                     for j, m in pairs]) if c not in todo]
                if not new:
                    continue
                todo.update(dict.fromkeys(new, genotype))
                more = sum(sizes[c[1]] + sizes[c[3]] for c in new)
                if volume + more > _PREFETCH_POINTS:
                    if n_genotypes > 1:
                        self._prefetch_pairs(batch, todo, n_genotypes)
                    batch, volume, n_genotypes = [], 0, 0
                    if more > _PREFETCH_POINTS:
                        continue
                batch.extend(new)
                volume += more
                n_genotypes += 1
            if n_genotypes > 1:
                self._prefetch_pairs(batch, todo, n_genotypes)

    def _prefetch_pairs(self, ckeys: list[tuple], genotypes: dict[tuple, Sequence],
                        n_genotypes: int) -> None:
        """`_overlap_pairs` for the pairs of several genotypes at once.

        ``ckeys`` are the pairs' cache keys, ``genotypes[ckey]`` a genotype holding each.
        """
        index: dict[tuple[int, str], int] = {}
        slots: list[int] = []
        genes: list = []
        entries: list[_Gene] = []

        def unit(ckey: tuple, slot: int, key: str) -> int:
            u = index.get((slot, key))
            if u is None:
                gene = genotypes[ckey][slot]
                u = index[(slot, key)] = len(slots)
                slots.append(slot)
                genes.append(gene)
                entries.append(self._gene(slot, gene))
            return u

        missing = [(unit(c, c[1], c[2]), unit(c, c[3], c[4])) for c in ckeys]
        sizes = np.array([e.points.shape[0] for e in entries], dtype=np.intp)
        offs_arr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        table = _Table(slots, genes, entries, offs_arr.tolist(), offs_arr, sizes,
                       np.concatenate([e.points for e in entries]), self._offsets_arr[slots],
                       n_genotypes)
        self._overlap_pairs(table, missing, ckeys)

    def _overlap_pairs(self, t: _Table, missing: list[tuple[int, int]],
                       ckeys: list[tuple]) -> list[np.ndarray] | None:
        """Compute and cache the captured points of each missing pair of genes.

        ``t`` holds the genes (`_Table`: one genotype's, or a batch's for
        `prefetch_overlap`); ``missing`` pairs ``(u, v)`` of its genes, u's slot first,
        and ``ckeys`` their cache keys.

        All missing pairs at once, in a number of array operations that does not grow
        with the number of pairs:

        1. Whole pairs, by spheres: ``||x - y|| >= |c_j - c_m| - r_j - r_m`` (``r`` the
           largest distance of a cluster's points to its centroid); a pair whose bound
           exceeds both clusters' largest threshold ``sqrt(o)`` is empty.
        2. Points, by a separating axis. A remaining pair has two sides: the points of
           one gene (queries) against the other (target). With ``e`` the unit vector
           from the query's centroid to the target's, ``||x - y|| >= (y - x).e``, which
           is at least ``|c_t - c_q| + min_y (y - c_t).e - (x - c_q).e``; a query point
           whose bound exceeds its threshold ``sqrt(o(x))`` cannot be captured.
        3. The query points left are tested exactly, one call per target gene: a KD-tree
           (`_tree_hits`) in low dimension, matrix products (`_dense_hits`) otherwise.

        In low dimension, when more query points are left than a whole-dataset pass
        would cost (`_GLOBAL_COST` per point and genotype), nothing is computed and None
        is returned.
        """
        genes = t.entries
        n_dims = self.layout.n_dims
        J = np.array([j for j, _ in missing], dtype=np.intp)
        M = np.array([m for _, m in missing], dtype=np.intp)
        cents = np.stack([e.centroid for e in genes])
        delta = cents[M] - cents[J]
        dist = np.sqrt(np.einsum("ij,ij->i", delta, delta))
        radius = np.array([e.radius for e in genes])
        maxnorm = np.array([e.maxnorm for e in genes])
        maxnorm = np.maximum(maxnorm, np.abs(cents).max(axis=1) * math.sqrt(n_dims))
        # rounding margin of the bounds of a pair (projections of its points, distances)
        slack = 16.0 * (n_dims + 2) * _EPS * (4.0 * np.maximum(maxnorm[J], maxnorm[M]) + dist)
        gap = dist - radius[J] - radius[M]
        # step 1 with the thresholds' largest value where measured, else an upper bound
        # on it (`_reach_bound`): genes whose pairs are all empty need no thresholds
        units = sorted(set(J.tolist()) | set(M.tolist()))
        reach = np.zeros(len(genes))
        for u in units:
            e = genes[u]
            reach[u] = (e.own_max if e.own_nn is not None
                        else self._reach_bound(t.slots[u], t.genes[u], e))
        near = np.flatnonzero(_maybe_within(gap, np.maximum(reach[J], reach[M]), slack))
        own = {}
        for u in sorted(set(J[near].tolist()) | set(M[near].tolist())):
            own[u] = self._own_nn(t.slots[u], t.genes[u], genes[u])
            reach[u] = genes[u].own_max
        if own:  # the same test with the measured thresholds
            near = near[_maybe_within(gap[near], np.maximum(reach[J[near]], reach[M[near]]),
                                      slack[near])]
        entries = [_EMPTY] * len(missing)
        if near.size:
            found = self._side_hits(t, own, J[near], M[near], delta[near], dist[near],
                                    slack[near])
            if found is None:  # a whole-dataset pass is cheaper; pairs stay uncached
                return None
            for p, entry in zip(near.tolist(), found, strict=True):
                entries[p] = entry
        self.cache.put_many(ckeys, entries)
        return [e for e in entries if e.size]

    def _side_hits(self, t: _Table, own: dict[int, np.ndarray], J: np.ndarray,
                   M: np.ndarray, delta: np.ndarray, dist: np.ndarray,
                   slack: np.ndarray) -> list[np.ndarray] | None:
        """Steps 2 and 3 of `_overlap_pairs` for pairs (J, M): captured points per pair.

        Candidates are numbered by the table's rows; the entries hold data rows.
        """
        genes = t.entries
        n_pairs = J.shape[0]
        n_sides = 2 * n_pairs
        with np.errstate(divide="ignore", invalid="ignore"):
            unit = np.where(dist[:, None] > 0, delta / dist[:, None], 0.0)
        # side p: queries J[p] towards M[p]; side n_pairs + p: M[p] towards J[p];
        # sides are then grouped by query slot, for one matrix product per query gene
        order = np.argsort(np.concatenate([J, M]), kind="stable")
        q_side = np.concatenate([J, M])[order]
        t_side = np.concatenate([M, J])[order]
        e_side = np.concatenate([unit, -unit])[order]
        pair_side = np.concatenate([np.arange(n_pairs), np.arange(n_pairs)])[order]
        position = np.empty(n_sides, dtype=np.intp)
        position[order] = np.arange(n_sides)
        reverse = position[(order + n_pairs) % n_sides]
        q_list = q_side.tolist()
        groups = []  # (first side, end side, query slot, projections (n_q, sides))
        start = 0
        while start < n_sides:
            q = q_list[start]
            stop = start + 1
            while stop < n_sides and q_list[stop] == q:
                stop += 1
            g = genes[q]
            groups.append((start, stop, q, (g.points - g.centroid) @ e_side[start:stop].T))
            start = stop
        hi = np.concatenate([proj.max(axis=0) for _, _, _, proj in groups])
        # The lower bound lb = dist + min_y (y - c_t).e - (x - c_q).e (the min over the
        # target is minus the reverse side's largest projection) fails to exclude x when
        # lb (1 - rel) - slack <= sqrt(o(x) (1 + rel)), the test of `_maybe_within`, i.e.
        # when (x - c_q).e + reach(x) >= dist - hi_reverse - slack / (1 - rel), with
        # reach(x) = sqrt(o(x) (1 + rel)) / (1 - rel).
        base = dist[pair_side] - hi[reverse] - slack[pair_side] / (1.0 - _REL)
        budget = (_GLOBAL_COST * self.layout.n_samples * t.n_genotypes if self.low_dims
                  else math.inf)

        def survivors(start: int, stop: int, q: int, proj: np.ndarray, step: int) -> np.ndarray:
            return proj[::step] + genes[q].own_reach[::step, None] >= base[None, start:stop]

        if sum(proj.size for *_, proj in groups) > budget:
            # estimate from every 8th point first: a pass that is bound to exceed the
            # budget is not worth finishing (timing only: both paths are exact)
            sample = sum(np.count_nonzero(survivors(*g, 8)) for g in groups)
            if 8 * sample > budget:
                return None
        found_sides, found_points = [], []
        count = 0
        for start, stop, q, proj in groups:
            rows, sides = _nonzero2(survivors(start, stop, q, proj, 1))
            count += rows.size
            if count > budget:  # a whole-dataset pass is cheaper
                return None
            found_sides.append(sides + start)
            found_points.append(rows + t.offs[q])
        s_c = np.concatenate(found_sides)  # side of each candidate
        point = np.concatenate(found_points)  # its table row
        own_all = np.full(t.X.shape[0], np.nan)  # thresholds by table row
        for u, o in own.items():
            own_all[t.offs[u]:t.offs[u + 1]] = o
        if not s_c.size:
            hit = np.zeros(0, dtype=bool)
        elif self.low_dims:
            hit = self._tree_side_hits(t, q_side[s_c], t_side[s_c], point, own_all[point])
        else:
            hit = self._dense_side_hits(t, J, M, pair_side, q_side[s_c], s_c, point,
                                        own_all)
        n = self.layout.n_samples
        point = point[hit]
        if t.data_offs is not None:  # table rows to data rows
            q_hit = q_side[s_c[hit]]
            point = point - t.offs_arr[q_hit] + t.data_offs[q_hit]
        found = pair_side[s_c[hit]] * n + point
        found.sort()
        cuts = np.searchsorted(found, np.arange(n_pairs + 1) * n).tolist()
        found = (found % n).astype(np.int32)
        out = []
        for p in range(n_pairs):
            if cuts[p] == cuts[p + 1]:
                out.append(_EMPTY)
            else:
                entry = found[cuts[p]:cuts[p + 1]].copy()
                entry.setflags(write=False)
                out.append(entry)
        return out

    def _tree_side_hits(self, t: _Table, q_c: np.ndarray, t_c: np.ndarray, point: np.ndarray,
                        o_c: np.ndarray) -> np.ndarray:
        """Exact test of candidate query points with the targets' KD-trees.

        Candidates: query gene ``q_c``, target gene ``t_c``, table row ``point`` and
        threshold ``o_c``; one `_tree_hits` call per target gene.
        """
        X, genes = t.X, t.entries
        maxabs = np.array([e.maxabs for e in genes])
        hit = np.zeros(point.size, dtype=bool)
        by_target = np.argsort(t_c, kind="stable")
        bounds = np.searchsorted(t_c[by_target], np.arange(len(genes) + 1)).tolist()
        for u in range(len(genes)):
            if bounds[u] == bounds[u + 1]:
                continue
            sel = by_target[bounds[u]:bounds[u + 1]]
            gt = genes[u]
            shape = self._tree_shape(t.slots[u], t.genes[u])
            mag = max(gt.maxabs, shape.maxabs, float(maxabs[q_c[sel]].max()))
            hit[sel] = _tree_hits(X[point[sel]], o_c[sel], gt.points, gt.mean, shape.tree,
                                  _abs_slack(self.layout.n_dims, mag))
        return hit

    def _dense_side_hits(self, t: _Table, J: np.ndarray, M: np.ndarray,
                         pair_side: np.ndarray, q_c: np.ndarray, s_c: np.ndarray,
                         point: np.ndarray, own_all: np.ndarray) -> np.ndarray:
        """Exact test of candidate query points by matrix products, grouped by pivot.

        Pairs are covered by pivot genes (the one in most remaining pairs first). Per
        pivot (`_dense_hits`): its candidate rows against every point of its partners
        that have candidates, which settles both directions for them, then its other
        rows against the partners' candidates alone. ``own_all`` holds the own-cluster
        thresholds by table row; genes are the table's (``q_c``, ``J``, ``M``).
        """
        X, genes = t.X, t.entries
        sq = np.concatenate([e.sqnorm for e in genes])
        offs = t.offs_arr
        hit = np.zeros(point.size, dtype=bool)
        pair_c = pair_side[s_c]
        J_list, M_list = J.tolist(), M.tolist()
        n_genes = len(genes)
        left = np.ones(len(J_list), dtype=bool)
        while left.any():
            # the gene in most remaining pairs (the first such gene on a tie)
            count = (np.bincount(J[left], minlength=n_genes)
                     + np.bincount(M[left], minlength=n_genes))
            pivot = int(count.argmax())
            in_pivot = left & ((J == pivot) | (M == pivot))
            group = np.flatnonzero(in_pivot).tolist()
            left &= ~in_pivot
            partner_of_pair = np.full(len(J_list), -1, dtype=np.intp)
            partner_of_pair[group] = np.arange(len(group))
            in_group = np.flatnonzero(partner_of_pair[pair_c] >= 0)
            if not in_group.size:
                continue
            partner_c = partner_of_pair[pair_c[in_group]]
            from_pivot = q_c[in_group] == pivot
            partners = [M_list[p] if J_list[p] == pivot else J_list[p] for p in group]
            active = np.zeros(len(partners), dtype=bool)
            active[partner_c] = True
            act = np.flatnonzero(active)
            act_genes = [partners[i] for i in act.tolist()]
            sizes = t.sizes_arr[act_genes]
            # columns: every point of the active partners, in partner order
            col_rows = np.concatenate([np.arange(t.offs[u], t.offs[u + 1])
                                       for u in act_genes])
            seg = np.repeat(np.arange(act.size), sizes)
            col_start = np.zeros(n_genes, dtype=np.intp)  # by gene
            col_start[act_genes] = np.cumsum(sizes) - sizes
            seg_of_partner = np.full(len(partners), -1, dtype=np.intp)
            seg_of_partner[act] = np.arange(act.size)
            o_cols = own_all[col_rows]
            # rows: the pivot's points, candidates for some partner first
            p0, n0 = offs[pivot], genes[pivot].points.shape[0]
            live = np.zeros(n0, dtype=bool)
            live[point[in_group[from_pivot]] - p0] = True
            rows = np.flatnonzero(live) + p0
            rows_hit, cols_hit = _dense_hits(X[rows], sq[rows], own_all[rows],
                                             X[col_rows], sq[col_rows], o_cols, seg,
                                             act.size)
            to_pivot = in_group[~from_pivot]
            q_to = q_c[to_pivot]
            cand_cols = col_start[q_to] + (point[to_pivot] - offs[q_to])
            rest = np.flatnonzero(~live) + p0
            if rest.size and cand_cols.size:
                _, ch = _dense_hits(X[rest], sq[rest], None, X[col_rows[cand_cols]],
                                    sq[col_rows[cand_cols]], o_cols[cand_cols],
                                    seg[cand_cols], act.size)
                cols_hit[cand_cols] |= ch
            hit[to_pivot] = cols_hit[cand_cols]
            mine = in_group[from_pivot]
            hit[mine] = rows_hit[np.searchsorted(rows, point[mine]),
                                 seg_of_partner[partner_of_pair[pair_c[mine]]]]
        return hit

    def _overlap_full(self, genes: list[_Gene]) -> float:
        """Overlap from one plain pass over the whole dataset (no pair is cached).

        `overlap_flags` on the concatenated points: one KD-tree, the 3 nearest neighbours
        of every point (more only for ties and duplicates). Equivalent to the pair
        criterion ``0 < s(x, y) <= o(x)`` for a foreign y, and needs no ``o``.
        """
        X = self._points(genes)
        return float(np.count_nonzero(overlap_flags(X, self.codes)) / X.shape[0])

    def _tree_shape(self, slot: int, gene) -> _Shape:
        shape = self._shape(slot, gene)
        if shape.tree is None:
            shape.ensure_tree()
            self.cache.put(("s", slot, self._shape_key(gene)), shape)
        return shape


def _euclidean_rows(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Row sums of the Euclidean distance block between A and B.

    Each row is summed whole (pairwise summation over its contiguous distances), by
    blocks of rows that stay in the processor's cache (`_SUM_BLOCK`): a row's sum has
    the same bits whatever other rows are measured with it. Distances are the square
    roots of ``cdist``'s squared distances, its own "euclidean" bits.
    """
    na, nb = A.shape[0], B.shape[0]
    rows = np.empty(na)
    step = max(1, _SUM_BLOCK // max(nb, 1))
    for start in range(0, na, step):
        stop = min(na, start + step)
        block = cdist(A[start:stop], B, "sqeuclidean")
        np.sqrt(block, out=block)
        rows[start:stop] = block.sum(axis=1)
    return rows


def _euclidean_cols(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Column sums of the Euclidean distance block between A and B.

    Each column is summed in row order, one row after the other (numpy's reduction
    over the first axis), by blocks of whole columns: a column's sum has the same bits
    whatever other columns are measured with it.
    """
    na, nb = A.shape[0], B.shape[0]
    cols = np.empty(nb)
    step = max(1, _SUM_BLOCK // max(na, 1))
    for start in range(0, nb, step):
        stop = min(nb, start + step)
        block = cdist(A, B[start:stop], "sqeuclidean")
        np.sqrt(block, out=block)
        cols[start:stop] = block.sum(axis=0)
    return cols


def _euclidean_block_sums(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(_euclidean_rows(A, B), _euclidean_cols(A, B))`` from one block of distances."""
    block = cdist(A, B, "sqeuclidean")
    np.sqrt(block, out=block)
    return block.sum(axis=1), block.sum(axis=0)


def _euclidean_intra_sums(P: np.ndarray) -> np.ndarray:
    """Row sums of the Euclidean distance matrix of P against itself.

    Each distance is measured once: by blocks of rows (at most `_SUM_BLOCK` distances,
    which stay in the processor's cache), each block against itself and the later
    points; its row sums go to its rows and its column sums beyond itself to the later
    rows. The order of the sums depends only on the shape of P.
    """
    n = P.shape[0]
    out = np.zeros(n)
    step = max(1, _SUM_BLOCK // max(n, 1))
    for start in range(0, n, step):
        stop = min(n, start + step)
        block = cdist(P[start:stop], P[start:], "sqeuclidean")
        np.sqrt(block, out=block)
        out[start:stop] += block.sum(axis=1)
        if stop < n:
            out[stop:] += block[:, stop - start:].sum(axis=0)
    return out


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

    def __init__(self, layout, *, metric: str = "sqeuclidean",
                 cache_bytes: int = 0, threads: int | None = None) -> None:
        self.layout = layout
        self.metric = check_choice("metric", metric, SILHOUETTE_METRICS)
        self.codes = np.asarray(layout.labels, dtype=np.intp)
        self.cache = ByteLRU(0)

    @contextmanager
    def limit_threads(self) -> Iterator[None]:
        """No-op (the naive evaluator leaves BLAS threads alone)."""
        yield

    def points(self, genotype: Sequence) -> np.ndarray:
        """The dataset X of a genotype, shape (N, D)."""
        return self.layout.sample(genotype)[0]

    def _data(self, data: Any) -> np.ndarray:
        return data if isinstance(data, np.ndarray) else self.points(data)

    def silhouette(self, data: Any) -> float:
        """``sklearn.metrics.silhouette_score(X, labels, metric=metric)``."""
        from sklearn.metrics import silhouette_score as sk_silhouette

        return float(sk_silhouette(self._data(data), self.codes, metric=self.metric))

    def overlap(self, data: Any) -> float:
        """Full exact nearest-neighbour pass over the dataset."""
        return float(np.mean(overlap_flags(self._data(data), self.codes)))


def make_evaluator(name: str, layout, *, metric: str = "sqeuclidean",
                   cache_bytes: int = 512 * 2**20) -> Evaluator | NaiveEvaluator:
    """The evaluator called ``name`` (``"fast"``: `Evaluator`; ``"naive"``: `NaiveEvaluator`)."""
    check_choice("evaluator", name, EVALUATORS)
    if name == "fast":
        return Evaluator(layout, metric=metric, cache_bytes=cache_bytes)
    return NaiveEvaluator(layout, metric=metric)
