"""Exact nearest-neighbour and distance-sum kernels on small blocks of points.

Every decision is taken on the exact squared distance ``s(x, y)``, summed coordinate by
coordinate in order (the arithmetic of ``scipy.spatial.distance.cdist(...,
"sqeuclidean")``). Fast filters (a KD-tree, or the matrix-product expansion
``|x|^2 + |y|^2 - 2 x.y``) only propose candidates, with a proven margin for their
rounding errors (`dense_tol`, `abs_slack`, `REL`), so every kernel here returns what a
brute-force computation returns. The Euclidean sums fix their summation order by the
shape of their input alone, so a sum has the same bits whichever call measured it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from hawks_deap.evaluation import _compiled

#: Elements of a distance block held at once (16 MiB).
BLOCK_ELEMENTS = 1 << 21

#: Elements of a block of Euclidean distances summed at once (256 KiB: the block stays
#: in the processor's cache between the square roots and the sums).
SUM_BLOCK = 1 << 15

EPS = float(np.finfo(float).eps)
EPS32 = float(np.finfo(np.float32).eps)
SINGLE_MAX = float(np.finfo(np.float32).max)

#: Relative margin on distances given by a KD-tree (its rounding is ~D eps).
REL = 1e-9

#: Clusters with n^2 D up to this get their own-cluster distances from one ``cdist``
#: block, larger ones from matrix products (a speed choice: both are exact).
SMALL_CLUSTER = 600_000

#: Dimension up to which nearest neighbours are searched with KD-trees; above it, by
#: blocked matrix products (a speed choice: both are exact).
KDTREE_MAX_DIMS = 8

#: A read-only empty index array (a pair of clusters that captures no point).
EMPTY = np.zeros(0, dtype=np.int32)
EMPTY.setflags(write=False)



def sqdist_sequential(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared distances between broadcast rows, summed over coordinates in order.

    The same arithmetic as ``scipy.spatial.distance.cdist(..., "sqeuclidean")``, so
    exact ties are decided identically to that reference.
    """
    acc = np.zeros(np.broadcast_shapes(a.shape, b.shape)[:-1])
    for d in range(a.shape[-1]):
        diff = a[..., d] - b[..., d]
        acc += diff * diff
    return acc


def sqdist_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sqdist_sequential`` for two (m, D) arrays of paired rows, coordinate-major.

    ``sum_d (a_d - b_d)^2`` accumulated in the order d = 0, 1, ..., D-1 (bit-identical to
    `sqdist_sequential` and to ``cdist``), on a transposed copy so that each step runs
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


def sqdist_gather(P: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``s(P_i, P_idx[i, j])`` for an (n, k) index array, shape (n, k).

    The arithmetic of `sqdist_rows` (coordinates in order), so the same bits, one
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



def self_blocks(Xc: np.ndarray, nrm: np.ndarray) -> Iterator[tuple[int, int, np.ndarray]]:
    """Row blocks ``(start, stop, A)`` of the expansion ``A_il = |x_i|^2 + |x_l|^2 - 2 x_i.x_l``.

    ``Xc`` are centred points and ``nrm`` their squared norms; each block holds rows
    ``start:stop`` against every point (at most `BLOCK_ELEMENTS` values), with the
    diagonal (a point against itself) at ``+inf``. Rounding bound: `dense_tol`.
    """
    n = Xc.shape[0]
    step = max(1, BLOCK_ELEMENTS // max(n, 1))
    for start in range(0, n, step):
        stop = min(n, start + step)
        block = Xc[start:stop] @ Xc.T
        block *= -2.0
        block += nrm[start:stop, None]
        block += nrm[None, :]
        local = np.arange(stop - start)
        block[local, local + start] = np.inf
        yield start, stop, block



def dense_tol(n_dims: int) -> float:
    """Factor ``c`` of the rounding bound ``|A_il - s_il| <= c (|x_i|^2 + |y_l|^2)``.

    ``A_il = |x_i|^2 + |y_l|^2 - 2 x_i.y_l`` is computed from the coordinates (centred or
    not: a centring rounding moves the difference by at most ``eps (|x_i| + |y_l|)``,
    ``4 eps (..)``) and ``s_il`` is the exact sequential squared distance. Norms, dot
    product (any summation order, FMA or not) and the three additions give
    ``(2D + 6) eps (..)``; the sequential sum differs from the true value by
    ``(D + 2) eps t <= (2D + 4) eps (..)``. Their sum ``(4D + 14) eps`` is doubled.
    """
    return (8.0 * n_dims + 32.0) * EPS


def nonzero2(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def row_min_positive(P: np.ndarray, i: int) -> float:
    """Smallest positive exact squared distance from ``P[i]`` to the other rows of P."""
    s = sqdist_sequential(P, P[i])
    s = s[s > 0]
    return float(s.min()) if s.size else math.inf


def own_nn_dense(P: np.ndarray, small_cluster: int = SMALL_CLUSTER) -> np.ndarray:
    """``o(i) = min {s(i, l) : l != i, s(i, l) > 0}`` within one cluster, exactly.

    ``s`` is the sequential squared distance. Candidates: every l with
    ``A_il <= min_l A_il + 2 T_i`` (``A`` the matrix-product expansion, ``T_i`` its
    rounding bound, see `dense_tol`), which contains the exact minimiser; they are
    re-measured exactly. A row whose candidates include a duplicate (s = 0) is measured
    in full. ``inf`` where there is no positive distance.
    """
    n, d = P.shape
    out = np.full(n, math.inf)
    if n < 2:
        return out
    if n * n * d <= small_cluster:  # the whole block, with the sequential arithmetic
        block = cdist(P, P, "sqeuclidean")
        block[block <= 0.0] = math.inf  # the point itself and duplicates
        return block.min(axis=1)
    Xc = P - P.mean(axis=0)
    nrm = np.einsum("ij,ij->i", Xc, Xc)
    tol = dense_tol(d) * (nrm + nrm.max())
    redo: list[int] = []
    for start, stop, block in self_blocks(Xc, nrm):
        amin = block.min(axis=1)
        ii, ll = nonzero2(block <= (amin + 2.0 * tol[start:stop])[:, None])
        gi = ii + start
        s = sqdist_rows(P[gi], P[ll])
        zero = s <= 0.0
        if zero.any():
            redo.extend(np.unique(gi[zero]).tolist())
        _group_min(gi, np.where(zero, math.inf, s), out)
    for i in redo:
        out[i] = row_min_positive(P, i)
    return out


def nearest_two_dense(P: np.ndarray, small_cluster: int = SMALL_CLUSTER
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Nearest neighbour of every point and bounds on the distances, exactly.

    Returns ``(nearest, a, b, valid)``: ``a`` the exact (sequential) distance from each
    point to ``nearest`` and ``b`` a lower bound on its distance to any other point,
    where ``valid``. Small clusters (n^2 D up to `SMALL_CLUSTER`): from the whole
    ``cdist`` block (duplicates ignored). Larger ones: the 2 smallest values of each row
    of the expansion ``A`` (`self_blocks`) are re-measured exactly, and every other
    point is at squared distance at least ``A_(3) - T`` (``T`` the rounding bound,
    `dense_tol`); a row is not valid when a candidate is a duplicate or might not be
    the nearest.
    """
    n, d = P.shape
    if n * n * d <= small_cluster:
        block = cdist(P, P, "sqeuclidean")
        block[block <= 0.0] = math.inf  # the point itself and duplicates
        rows = np.arange(n)
        nearest = block.argmin(axis=1)
        a2 = block[rows, nearest]
        block[rows, nearest] = math.inf
        return nearest, np.sqrt(a2), np.sqrt(block.min(axis=1)), np.isfinite(a2)
    Xc = P - P.mean(axis=0)
    nrm = np.einsum("ij,ij->i", Xc, Xc)
    tol = dense_tol(d) * (nrm + nrm.max())
    nearest = np.zeros(n, dtype=np.intp)
    a2 = np.zeros(n)
    b2 = np.zeros(n)
    valid = np.zeros(n, dtype=bool)
    for start, stop, block in self_blocks(Xc, nrm):
        rows = np.arange(stop - start)
        i1 = block.argmin(axis=1)
        block[rows, i1] = math.inf
        i2 = block.argmin(axis=1)
        block[rows, i2] = math.inf
        third = block.min(axis=1) - tol[start:stop]  # bound on every other point
        grow = np.arange(start, stop)
        s1 = sqdist_rows(P[grow], P[i1])
        s2 = sqdist_rows(P[grow], P[i2])
        swap = s2 < s1
        nearest[start:stop] = np.where(swap, i2, i1)
        first, other = np.minimum(s1, s2), np.maximum(s1, s2)
        a2[start:stop] = first
        b2[start:stop] = np.minimum(other, third)
        valid[start:stop] = (first > 0.0) & (first < third)
    return nearest, np.sqrt(a2), np.sqrt(np.maximum(b2, 0.0)), valid


def dense_hits(Q: np.ndarray, qn: np.ndarray, X: np.ndarray, rows: np.ndarray,
               cols: np.ndarray, o_r: np.ndarray | None, oc: np.ndarray, seg: np.ndarray,
               n_seg: int) -> tuple[np.ndarray, np.ndarray]:
    """Captures between row points and column points of other clusters, exactly.

    Parameters
    ----------
    Q, qn, X : arrays (n, D), (n,), (n, D)
        The filter's operands of the points and their squared norms (`dense_operands`),
        and the points themselves.
    rows, cols : int arrays (a,), (b,)
        The row points (one cluster) and column points (other clusters, concatenated).
    o_r : array (a,) or None
        The rows' own-cluster thresholds ``o``; None when the rows are known not to be
        capturable (only the columns are tested).
    oc : array (b,)
        The columns' own thresholds.
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
    Candidates pass ``A_il <= lim`` with ``A_il = |x_i|^2 + |y_l|^2 - 2 x_i.y_l`` (one
    matrix product per block of rows, in the operands' precision) and ``lim`` its
    rounding bound (`dense_limits`), a superset of the exact condition; each candidate is
    re-measured with the sequential arithmetic on X. One product serves both directions.
    """
    a, b = rows.shape[0], cols.shape[0]
    d = X.shape[1]
    rows_hit = np.zeros((a, n_seg), dtype=bool)
    cols_hit = np.zeros(b, dtype=bool)
    if a == 0 or b == 0:
        return rows_hit, cols_hit
    Qr, Qc = Q[rows], Q[cols]
    nr, nc = qn[rows], qn[cols]
    single = Q.dtype == np.float32
    if single and _compiled.native():
        # one compiled pass over each block: candidates and their exact test
        lim_c = dense_limits(oc, nc, float(nr.max()), d, True)
        lim_r = None if o_r is None else dense_limits(o_r, nr, float(nc.max()), d, True)
        step = max(1, BLOCK_ELEMENTS // b)
        for start in range(0, a, step):
            stop = min(a, start + step)
            _compiled.dense_scan(Qr[start:stop] @ Qc.T, nr[start:stop], nc,
                                 None if lim_r is None else lim_r[start:stop], lim_c, X,
                                 rows[start:stop], cols, None if o_r is None
                                 else o_r[start:stop], oc, seg,
                                 rows_hit[start:stop], cols_hit)
        return rows_hit, cols_hit
    lim_c = round_up(dense_limits(oc, nc, float(nr.max()), d, single), Q.dtype)
    # rows: |x|^2 + (|y|^2 - 2 x.y) <= lim_r  <=>  block <= lim_r - |x|^2
    lim_r = None if o_r is None else round_up(
        dense_limits(o_r, nr, float(nc.max()), d, single) - nr, Q.dtype)
    # (the norms' rounding to single precision is within the limits' margin)
    nc_q, nr_q = nc.astype(Q.dtype), nr.astype(Q.dtype)
    step = max(1, BLOCK_ELEMENTS // b)
    for start in range(0, a, step):
        stop = min(a, start + step)
        block = (-2.0 * Qr[start:stop]) @ Qc.T
        block += nc_q[None, :]
        if lim_r is not None:
            mask = block <= lim_r[start:stop, None]
            block += nr_q[start:stop, None]
            mask |= block <= lim_c[None, :]
        else:
            block += nr_q[start:stop, None]
            mask = block <= lim_c[None, :]
        ii, ll = nonzero2(mask)
        if ii.size == 0:
            continue
        gi = ii + start
        s = sqdist_rows(X[rows[gi]], X[cols[ll]])
        positive = s > 0.0
        if o_r is not None:
            rh = positive & (s <= o_r[gi])
            rows_hit[gi[rh], seg[ll[rh]]] = True
        ch = positive & (s <= oc[ll])
        cols_hit[ll[ch]] = True
    return rows_hit, cols_hit


#: Relative margin on the threshold ``o`` of a single-precision filter (`dense_operands`).
REL32 = 2.0**-11

#: Absolute margin of a single-precision filter: the underflow of its operations.
TINY32 = 2.0**-140


def dense_operands(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Operands of `dense_hits`'s filtering products for the points X: ``(Q, |Q|^2)``.

    Single precision (the product costs half as much, and so does every pass over its
    block) on coordinates centred on X's mean, with their squared norms in double
    precision; X itself, in double, where its centred coordinates are not all finite or
    are so large that a single-precision product could overflow. The filter's rounding
    bound for either kind is `dense_limits`; the decisions are always taken on X.
    """
    n, n_dims = X.shape
    # any centre gives a valid bound; the mean keeps the norms, hence the margin, small
    centre = _compiled.col_means(X) if n else np.zeros(n_dims)
    compiled = _compiled.native()
    if compiled:
        Q = np.empty((n, n_dims), dtype=np.float32)
        qn = np.empty(n)
        scale = _compiled.operands32(X, centre, Q, qn)
    else:
        Xc = X - centre
        scale = float(np.abs(Xc).max()) if Xc.size else 0.0
    if not (math.isfinite(scale) and scale * scale * 8.0 * (n_dims + 3) < SINGLE_MAX):
        return X, np.einsum("ij,ij->i", X, X)
    if not compiled:
        Q, qn = Xc.astype(np.float32), np.einsum("ij,ij->i", Xc, Xc)
    return Q, qn


def dense_limits(o: np.ndarray, n: np.ndarray, n_other: float, n_dims: int,
                 single: bool) -> np.ndarray:
    """Upper bounds on the filter's ``A = |x|^2 + |y|^2 - 2 x.y`` where ``s <= o``.

    For points of squared norms ``n`` against points of squared norms at most
    ``n_other`` (both in the operands' coordinates), operands in single precision or not.
    Double precision: ``o + c (n + n_other)`` with ``c`` from `dense_tol`. Single
    precision, where the operands are ``fl32(x - m)``: ``r = ||x - y||`` and ``r' =
    ||x' - y'||`` of the rounded operands differ by at most ``d = u (|x - m| + |y - m|)``
    (``u = 2^-24``, plus subnormal spacing), so ``r'^2 <= r^2 (1 + t) + d^2 (1 + 1/t)``
    for any ``t > 0`` (``t = 2^-12``: ``4097 d^2`` is below ``1e-10 (n + n_other)``); the
    single-precision norms, dot product and additions add ``(2D + 6) u (..)``, and ``r^2 <=
    s (1 + (D + 2) eps)``. The limit ``o (1 + 2^-11) + (8D + 32) eps32 (n + n_other) +
    (D + 8) 2^-140`` covers all of it with a factor above 4 on each term.
    """
    if not single:
        return o + dense_tol(n_dims) * (n + n_other)
    scale, norm, tiny = limit_terms32(n_dims)
    return o * scale + norm * (n + n_other) + tiny


def limit_terms32(n_dims: int) -> tuple[float, float, float]:
    """The terms ``(scale, norm, tiny)`` of the single-precision `dense_limits`.

    The limit is ``o scale + norm (n + n_other) + tiny`` with ``(1 + 2^-11, (8D + 32)
    eps32, (D + 8) 2^-140)``; the compiled pivots (`_compiled.pivot_hits`) take them
    from here.
    """
    return 1.0 + REL32, (8.0 * n_dims + 32.0) * EPS32, (n_dims + 8) * TINY32


def round_up(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``values`` in ``dtype``, each rounded to the nearest representable value not below it."""
    out = values.astype(dtype)
    if dtype == values.dtype:
        return out
    low = out < values
    if low.any():
        out[low] = np.nextafter(out[low], dtype.type(np.inf))
    return out


def abs_slack(n_dims: int, magnitude: float) -> float:
    """Bound on ``|r0 - sqrt(s)|`` from translating points (distance units).

    KD-trees hold the mean-free points ``p0`` of a gene; its points are
    ``p = fl(mu + p0)`` and queries ``q' = fl(q - mu)``. Each rounding moves a coordinate
    by at most ``eps |coordinate|``, so distances move by at most
    ``2 eps sqrt(D) M`` (M bounds every coordinate involved); we take four times that.
    """
    return 8.0 * EPS * math.sqrt(n_dims) * magnitude


def own_nn_tree(P: np.ndarray, tree: cKDTree, P0: np.ndarray, slack: float,
                 rows: np.ndarray) -> np.ndarray:
    """`own_nn_dense` for some ``rows``, with candidates from a KD-tree on ``P0``.

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
        s = sqdist_sequential(P[idx], P[pending][:, None, :])
        dmin = np.where(s > 0.0, s, math.inf).min(axis=1)
        window = np.sqrt(dmin) * (1.0 + REL) + slack
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


def nearest_two_tree(P: np.ndarray, tree: cKDTree) -> tuple[np.ndarray, np.ndarray,
                                                             np.ndarray, np.ndarray]:
    """`nearest_two_dense` from the 3 nearest neighbours of every point in a KD-tree.

    ``a`` is re-measured exactly; ``b`` is the tree's distance to the third point (a
    bound on every other point up to the tree's rounding, far inside `REL`). Rows with
    a duplicate point are not valid.
    """
    n = P.shape[0]
    dist, idx = tree.query(P, k=3)
    nearest = idx[:, 1].astype(np.intp)
    a = np.sqrt(sqdist_rows(P, P[nearest]))
    valid = (dist[:, 1] > 0.0) & (idx[:, 0] == np.arange(n))
    return nearest, a, dist[:, 2], valid


def nearest_two_scaled(P: np.ndarray, cand: np.ndarray, bound: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`nearest_two_dense` from given candidates and a bound on every other point.

    ``cand`` (n, k) holds, for every point, k candidate neighbours and ``bound`` a lower
    bound on its distance to every point outside them. The candidates are measured
    exactly; a row is valid when none is a duplicate and the nearest lies below
    ``bound`` (it is then the nearest of all).
    """
    n = cand.shape[0]
    rows = np.arange(n)
    exact = sqdist_gather(P, cand)
    first = exact.argmin(axis=1)
    d1 = exact[rows, first]
    exact[rows, first] = np.inf
    d2 = exact.min(axis=1)
    a = np.sqrt(d1)
    b = np.minimum(np.sqrt(d2), bound)
    valid = (d1 > 0.0) & (d2 > 0.0) & (a * (1.0 + REL) < bound)
    return cand[rows, first], a, b, valid


def tree_hits(Q: np.ndarray, oq: np.ndarray, P: np.ndarray, mean: np.ndarray,
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
    rad *= 1.0 + REL
    rad += slack
    bound = float(rad.max())
    bound = math.inf if not math.isfinite(bound) else bound * (1.0 + 1e-12) + 1e-300
    dist, idx = tree.query(Q - mean, k=1, distance_upper_bound=bound)
    inside = dist <= rad
    idx[~inside] = 0
    s = sqdist_rows(P[idx], Q)
    hits = inside & (s > 0.0) & (s <= oq)
    todo = np.flatnonzero(inside & ~hits)
    if todo.size:
        hits[todo] = _tree_hits_all(Q[todo], oq[todo], P, mean, tree, rad[todo])
    return hits


def _tree_hits_all(Q: np.ndarray, oq: np.ndarray, P: np.ndarray, mean: np.ndarray,
                   tree: cKDTree, rad: np.ndarray) -> np.ndarray:
    """`tree_hits` examining every neighbour within the radius.

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
        s = sqdist_sequential(P[safe], Q[pending][:, None, :])
        hit = np.any(inside & (s > 0.0) & (s <= oq[pending, None]), axis=1)
        hits[pending[hit]] = True
        if k >= n:
            break
        pending = pending[~(hit | ~inside[:, -1])]
        k = min(n, 2 * k)
    return hits


def maybe_within(lb: np.ndarray, o: np.ndarray, slack: float) -> np.ndarray:
    """False where the lower bound ``lb`` on distances proves ``s > o`` (with margins).

    ``lb`` is computed in floating point from projections; ``lb (1 - 1e-9) - slack``
    bounds the true distance from below and the exact squared distance is within
    ``(D + 2) eps`` of the true one, hence the test ``(lb') ** 2 > o (1 + 1e-9)``.
    """
    low = lb * (1.0 - REL) - slack
    return (low <= 0.0) | (np.square(low) <= o * (1.0 + REL))



def euclidean_rows(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Row sums of the Euclidean distance block between A and B.

    Each row is summed whole (pairwise summation over its contiguous distances), by
    blocks of rows that stay in the processor's cache (`SUM_BLOCK`): a row's sum has
    the same bits whatever other rows are measured with it. Distances are the square
    roots of ``cdist``'s squared distances, its own "euclidean" bits.
    """
    na, nb = A.shape[0], B.shape[0]
    rows = np.empty(na)
    step = max(1, SUM_BLOCK // max(nb, 1))
    for start in range(0, na, step):
        stop = min(na, start + step)
        block = cdist(A[start:stop], B, "sqeuclidean")
        np.sqrt(block, out=block)
        rows[start:stop] = block.sum(axis=1)
    return rows


def euclidean_cols(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Column sums of the Euclidean distance block between A and B.

    Each column is summed in row order, one row after the other (numpy's reduction
    over the first axis), by blocks of whole columns: a column's sum has the same bits
    whatever other columns are measured with it.
    """
    na, nb = A.shape[0], B.shape[0]
    cols = np.empty(nb)
    step = max(1, SUM_BLOCK // max(na, 1))
    for start in range(0, nb, step):
        stop = min(nb, start + step)
        block = cdist(A, B[start:stop], "sqeuclidean")
        np.sqrt(block, out=block)
        cols[start:stop] = block.sum(axis=0)
    return cols


def euclidean_block_sums(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(euclidean_rows(A, B), euclidean_cols(A, B))`` from one block of distances."""
    block = cdist(A, B, "sqeuclidean")
    np.sqrt(block, out=block)
    return block.sum(axis=1), block.sum(axis=0)


def euclidean_intra_sums(P: np.ndarray) -> np.ndarray:
    """Row sums of the Euclidean distance matrix of P against itself.

    Each distance is measured once: by blocks of rows (at most `SUM_BLOCK` distances,
    which stay in the processor's cache), each block against itself and the later
    points; its row sums go to its rows and its column sums beyond itself to the later
    rows. The order of the sums depends only on the shape of P.
    """
    n = P.shape[0]
    out = np.zeros(n)
    step = max(1, SUM_BLOCK // max(n, 1))
    for start in range(0, n, step):
        stop = min(n, start + step)
        block = cdist(P[start:stop], P[start:], "sqeuclidean")
        np.sqrt(block, out=block)
        out[start:stop] += block.sum(axis=1)
        if stop < n:
            out[stop:] += block[:, stop - start:].sum(axis=0)
    return out
