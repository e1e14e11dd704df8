"""The numba kernels of `hawks_deap.evaluation._compiled` (imported only from there).

A module of its own so that importing it is importing numba: `_compiled` does it on the
first evaluation that needs it. Every function is compiled once and cached on disk
(``cache=True``); no ``fastmath``, so no fused multiply-add: each squared distance is
``acc = 0; acc += (y_d - x_d) ** 2`` for d in order, the arithmetic of the numpy path.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["grid_cells", "grid_flags", "grid_frame", "lower", "own_sweep", "ring_scan",
           "silhouette_2d", "sq", "sq2", "sweep_hits"]

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


@_jit
def lower(v: np.ndarray, lo: int, hi: int, x: float) -> int:
    """First k in [lo, hi) with ``v[k] >= x`` (v sorted there); hi if none."""
    while lo < hi:
        mid = (lo + hi) // 2
        if v[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@_jit
def sq(P: np.ndarray, k: int, q: np.ndarray) -> float:
    """``s(P[k], q)``: ``(P[k, d] - q[d]) ** 2`` summed in order d = 0, 1, ..."""
    acc = 0.0
    for d in range(P.shape[1]):
        diff = P[k, d] - q[d]
        acc += diff * diff
    return acc


@_jit
def sweep_hits(X: np.ndarray, point: np.ndarray, o: np.ndarray, tgt: np.ndarray,
               T: np.ndarray, key: np.ndarray, offs: np.ndarray, axis: np.ndarray
               ) -> np.ndarray:
    """For each candidate c: some row k of target ``tgt[c]`` with ``0 < s <= o[c]``.

    Target u is rows ``offs[u]:offs[u + 1]`` of T, sorted on axis ``axis[u]`` (``key``
    holds those sorted values); the candidate is row ``point[c]`` of X. The scan goes
    both ways from the candidate's position and stops where the axis term alone
    exceeds ``o[c]`` (see `hawks_deap.evaluation._compiled`).
    """
    out = np.zeros(point.shape[0], dtype=np.bool_)
    for i in range(point.shape[0]):
        q = X[point[i]]
        oi = o[i]
        u = tgt[i]
        a = axis[u]
        lo, hi = offs[u], offs[u + 1]
        qa = q[a]
        start = lower(key, lo, hi, qa)
        found = False
        k = start
        while k < hi and not found:
            diff = T[k, a] - qa
            if diff * diff > oi:
                break
            s = sq(T, k, q)
            found = s > 0.0 and s <= oi
            k += 1
        k = start - 1
        while k >= lo and not found:
            diff = T[k, a] - qa
            if diff * diff > oi:
                break
            s = sq(T, k, q)
            found = s > 0.0 and s <= oi
            k -= 1
        out[i] = found
    return out


@_jit
def own_sweep(T: np.ndarray, key: np.ndarray, a: int) -> np.ndarray:
    """Smallest positive ``s`` from each row of T to the others (inf if none).

    T is sorted on axis a (``key = T[:, a]``); results in T's order. A direction's scan
    stops once the axis term alone reaches the best value so far.
    """
    n = T.shape[0]
    out = np.full(n, np.inf)
    for i in range(n):
        q = T[i]
        qa = key[i]
        best = np.inf
        for k in range(i + 1, n):
            diff = T[k, a] - qa
            if diff * diff >= best:
                break
            s = sq(T, k, q)
            if s > 0.0 and s < best:
                best = s
        for k in range(i - 1, -1, -1):
            diff = T[k, a] - qa
            if diff * diff >= best:
                break
            s = sq(T, k, q)
            if s > 0.0 and s < best:
                best = s
        out[i] = best
    return out


@_jit
def grid_frame(X: np.ndarray) -> tuple[int, int, float, float, float, float, int]:
    """The grid of `grid_flags`: axes a0, a1 of largest extent, their lows, cell side h.

    Cells of side h on the bounding box: ``(e0 / h) (e1 / h) <= n`` and ``e0 / h, e1 / h
    <= n``, so about one row per cell and at most 2 n + 1 cells. ``margin`` bounds the
    rounding of the cell arithmetic. Status 0: a grid; 1: one point repeated (no positive
    distance); 2: an extent is not finite.
    """
    n, dims = X.shape
    lo = np.full(dims, np.inf)
    hi = np.full(dims, -np.inf)
    for i in range(n):
        for d in range(dims):
            lo[d] = min(lo[d], X[i, d])
            hi[d] = max(hi[d], X[i, d])
    extent = hi - lo
    a0 = int(np.argmax(extent))
    a1 = a0
    for d in range(dims):
        if d != a0 and (a1 == a0 or extent[d] > extent[a1]):
            a1 = d
    e0, e1 = extent[a0], extent[a1]
    scale = 0.0
    for d in range(dims):
        scale = max(scale, abs(lo[d]), abs(hi[d]))
    h = max(math.sqrt(e0 * e1 / n), (e0 + e1) / n)
    status = 0
    if not (math.isfinite(h) and math.isfinite(e0) and math.isfinite(e1)):
        status = 2
    elif h == 0.0:
        status = 1
    return a0, a1, lo[a0], lo[a1], h, 1e-9 * (scale + e0 + e1), status


@_jit
def grid_cells(X: np.ndarray, a0: int, a1: int, lo0: float, lo1: float, h: float
               ) -> tuple[np.ndarray, np.ndarray, int, int, np.ndarray, float]:
    """Each row's cell (cx, cy), the grid's size and its rows' start per cell, and h.

    A counting sort: cell c = cx * ny + cy holds the rows ``start[c]:start[c + 1]`` of
    the sorted order. Clustered data crowd a few cells of the bounding box: h is refined
    once, to about two rows an occupied cell (measured best; at most 4 times the cells).
    """
    n = X.shape[0]
    cx = np.empty(n, dtype=np.intp)
    cy = np.empty(n, dtype=np.intp)
    for attempt in range(2):
        nx = ny = 1
        for i in range(n):
            cx[i] = int((X[i, a0] - lo0) / h)
            cy[i] = int((X[i, a1] - lo1) / h)
            nx = max(nx, cx[i] + 1)
            ny = max(ny, cy[i] + 1)
        start = np.zeros(nx * ny + 1, dtype=np.intp)
        for i in range(n):
            start[cx[i] * ny + cy[i] + 1] += 1
        occupied = 0
        for c in range(nx * ny):
            occupied += start[c + 1] > 0
            start[c + 1] += start[c]
        if attempt == 1 or n <= 3 * occupied:
            break
        h *= max(0.5, math.sqrt(2.0 * occupied / n))
    return cx, cy, nx, ny, start, h


@_jit
def ring_scan(T: np.ndarray, lab: np.ndarray, q: np.ndarray, li: int, ci: int, cj: int,
              start: np.ndarray, nx: int, ny: int, a0: int, a1: int, lo0: float,
              lo1: float, h: float, margin: float) -> tuple[float, float]:
    """Smallest positive ``s`` from q to its own cluster (li) and to the others.

    Rings of cells around q's cell (ci, cj), until the gap to the unscanned cells alone,
    less ``margin``, exceeds the best ``s`` so far: every unscanned y has ``s >= t_a >=
    gap ** 2`` (see `sweep_hits`), so neither minimum can change any more where it
    matters (ties are scanned: the stop is strict).
    """
    own = np.inf
    oth = np.inf
    ring = 0
    while True:
        i0, i1, j0, j1 = ci - ring, ci + ring, cj - ring, cj + ring
        for a in range(max(i0, 0), min(i1, nx - 1) + 1):
            edge = a == i0 or a == i1
            b = j0
            while b <= j1:
                if 0 <= b < ny:
                    c = a * ny + b
                    for k in range(start[c], start[c + 1]):
                        s = sq(T, k, q)
                        if s > 0.0:
                            if lab[k] == li:
                                own = min(own, s)
                            else:
                                oth = min(oth, s)
                b += 1 if edge or j1 == j0 else j1 - j0  # inner rows: both ends only
        if i0 <= 0 and j0 <= 0 and i1 >= nx - 1 and j1 >= ny - 1:
            return own, oth
        gap = min(q[a0] - (lo0 + i0 * h), (lo0 + (i1 + 1) * h) - q[a0],
                  q[a1] - (lo1 + j0 * h), (lo1 + (j1 + 1) * h) - q[a1]) - margin
        if gap > 0.0 and gap * gap > min(own, oth):
            return own, oth
        ring += 1


@_jit
def grid_flags(X: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, bool]:
    """Overlap flags of every row of X: its nearest neighbour lies in another cluster.

    Row i is flagged iff ``min {s : foreign} <= min {s : own}`` over positive ``s``
    (the pair criterion ``0 < s(x, y) <= o(x)``, ties to a foreign point flagged): the
    rows sorted into the cells of `grid_frame` / `grid_cells`, each scanned by
    `ring_scan`. Also False if an extent is not finite (the flags are then meaningless).
    """
    n, dims = X.shape
    if n == 0:
        return np.zeros(0, dtype=np.bool_), True
    a0, a1, lo0, lo1, h, margin, status = grid_frame(X)
    if status:
        return np.zeros(n, dtype=np.bool_), status == 1
    cx, cy, nx, ny, start, h = grid_cells(X, a0, a1, lo0, lo1, h)
    fill = start[:-1].copy()
    order = np.empty(n, dtype=np.intp)
    for i in range(n):
        c = cx[i] * ny + cy[i]
        order[fill[c]] = i
        fill[c] += 1
    T = np.empty((n, dims))
    lab = np.empty(n, dtype=codes.dtype)
    for r in range(n):
        T[r] = X[order[r]]
        lab[r] = codes[order[r]]
    out = np.zeros(n, dtype=np.bool_)
    for r in range(n):
        i = order[r]
        own, oth = ring_scan(T, lab, T[r], lab[r], cx[i], cy[i], start, nx, ny, a0, a1,
                             lo0, lo1, h, margin)
        out[i] = oth <= own and oth < np.inf
    return out, True


@_jit
def sq2(X: np.ndarray, i: int, c0: float, c1: float) -> float:
    """``(c0 - x_i0)^2 + (c1 - x_i1)^2``: two terms, so the bits of any summation order."""
    e0 = c0 - X[i, 0]
    e1 = c1 - X[i, 1]
    return e0 * e0 + e1 * e1


@_jit
def silhouette_2d(X: np.ndarray, offs: np.ndarray, centroids: np.ndarray,
                  spread: np.ndarray, scatter: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per-point squared-Euclidean silhouette ``s(i)`` in two dimensions, closed form.

    Slot m holds rows ``offs[m]:offs[m + 1]`` of X. ``d_m(i) = (c_m0 - x_i0)^2 +
    (c_m1 - x_i1)^2`` (a sum of two terms: the same bits in any order, so those of
    ``cdist(centroids, X, "sqeuclidean")``), ``b(i) = min_{m != own} (d_m(i) +
    spread[m])`` (`sq2`), ``a(i) = (d_own(i) n_own + scatter[own]) / (n_own - 1)``, ``s(i) =
    (b - a) / max(a, b)``, 0 where that maximum is not positive or the point is alone in
    its slot: each the operation of the numpy path (`hawks_deap.evaluation._silhouette`)
    in its order, so the same bits. One pass per centroid over the points (no K x N
    block is kept).
    """
    n = X.shape[0]
    b = np.full(n, np.inf)
    out = np.zeros(n)  # a(i) first, then s(i): fewer N-arrays (each costs about a pass)
    for m in range(centroids.shape[0]):
        c0, c1, sp = centroids[m, 0], centroids[m, 1], spread[m]
        lo, hi = offs[m], offs[m + 1]
        for i in range(lo):
            b[i] = min(b[i], sq2(X, i, c0, c1) + sp)
        for i in range(hi, n):
            b[i] = min(b[i], sq2(X, i, c0, c1) + sp)
        if counts[m] < 2.0:
            continue  # s = 0 for a point alone in its cluster
        for i in range(lo, hi):
            own = sq2(X, i, c0, c1) * counts[m]
            own += scatter[m]
            out[i] = own / (counts[m] - 1.0)
    for m in range(centroids.shape[0]):
        if counts[m] < 2.0:
            continue
        for i in range(offs[m], offs[m + 1]):
            a = out[i]
            denom = max(a, b[i])
            out[i] = (b[i] - a) / denom if denom > 0.0 else 0.0
    return out
