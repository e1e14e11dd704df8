"""The numba kernels of `hawks_deap.evaluation._compiled` (imported only from there).

A module of its own so that importing it is importing numba: `_compiled` does it on the
first evaluation that needs it. Every function is compiled once and cached on disk
(``cache=True``); no ``fastmath``, so no fused multiply-add: each squared distance is
``acc = 0; acc += (y_d - x_d) ** 2`` for d in order, the arithmetic of the numpy path.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["lower", "own_sweep", "sq", "sweep_hits"]

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
