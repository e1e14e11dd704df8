"""Compiled exact kernels for the overlap and the squared-Euclidean silhouette, optional.

Two kinds, for two costs of loading:

- **C** (`_native.c`, built at install where a C compiler is found): at D = 2, one pass
  over the whole dataset per evaluation gives every point's overlap flag
  (`grid_overlap_flags`, which replaces the cached pairs of genes), and every point's
  squared-Euclidean silhouette at any size (`silhouette_points`). Above two dimensions,
  the overlap pairs' matrix-product filter runs in single precision (`operands32`), and
  one call per pass (`pivot_hits`) makes its products through BLAS's ``sgemm`` and
  tests each block's candidates exactly (`dense_scan`); the silhouette measures its
  genes' stale centroid rows in place and gives every point's value in one call per
  evaluation (`silhouette_genes`). The extension imports in about a millisecond, so
  every evaluation uses it, from a run's first.
- **numba** (the ``fast`` extra): sweeps for the pairs of genes at D <= 8, the capture
  test (`sweep_hits`) and the own-cluster thresholds (`own_nn_sweep`). Importing numba and
  loading its cached code costs about 0.4-0.5 s of CPU per process, about what the
  sweeps save on 1.5 million candidate points (a whole config-a run of
  `benchmarks/bench_index.py` tests 1.0 million). So a process loads them when a run
  announces enough work to pay for the load (`plan`: ``evolve`` announces its evaluations
  times N, and from `PLAN_WORK` the whole run uses the kernels), or, in a process whose
  runs announce nothing (a user's own DEAP loop), once its numpy path has tested
  `SWITCH_WORK` candidates; compiled code is cached on disk (``cache=True``).

The overlap's decisions are predicates on exact squared distances ``s(x, y)``, summed
coordinate by coordinate in order (`hawks_deap.evaluation._kernels`): whichever way the
candidates are found, the answer is that of a brute-force pass. Both kinds decide on the
same ``s`` as the numpy path (``diff = y_d - x_d``, ``acc += diff * diff`` from ``acc =
0``, no fused multiply-add: numba compiles without ``fastmath``, the C build with
``-ffp-contract=off``), and the silhouette does each operation of the numpy path in its
order, so they return the same values bit for bit and no rule here changes a result.

Why the sweep is exact without any margin: with ``t_a = fl(y_a - x_a) ** 2`` the term of
axis a, the sequential sum satisfies ``s >= t_a`` (adding non-negative terms never
rounds below a summand), and ``t_a`` does not decrease as y moves away from x along the
sorted axis (rounding is monotone). So once ``t_a > o`` no later point in that
direction can have ``s <= o``, and the scan stops there. The grid pass stops on the same
bound (`_native.c`).

The environment variable ``HAWKS_DEAP_COMPILED`` chooses: ``0`` the numpy path, ``1``
the compiled kernels a run uses, numba's from the start (an error if the ones it needs
are missing), unset: the C kernels where built, numba's by the rules above (never
without numba).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["GRID_DIMS", "PLAN_WORK", "SWITCH_WORK", "available", "col_means", "dense_scan",
           "grid_overlap_flags", "native", "operands32", "own_nn_sweep", "pivot_hits", "plan",
           "set_compiled", "sgemm", "silhouette_genes", "silhouette_points", "sweep_hits"]

ENV = "HAWKS_DEAP_COMPILED"

#: Candidate points a process tests on the numpy path before it switches to the compiled
#: kernels (when numba imports): the import's cost in candidates, see above.
SWITCH_WORK = 1_500_000

#: Point-evaluations (evaluations times N) from which a run that announces them (`plan`)
#: loads the compiled kernels at its start: measured in fresh processes
#: (`benchmarks/bench_compiled_start.py`), runs of 1.0 million and more gained 1.15x or
#: more, runs of 0.5-0.6 million lost 8-14 % (BENCHMARKS.md, "Loading the kernels when
#: a run announces its size").
PLAN_WORK = 800_000

#: Dimension in which an evaluation's overlap is one compiled pass over the whole dataset
#: (`grid_overlap_flags`) instead of cached pairs of genes: measured faster at D = 2
#: (BENCHMARKS.md, "One compiled pass in two dimensions").
GRID_DIMS = 2

_state: dict[str, Any] = {"forced": None, "kernels": None, "tried": False, "work": 0,
                         "why": "", "native": None}


def set_compiled(flag: bool | None) -> None:
    """Force the compiled path (True), the numpy path (False) or choose again (None).

    For the equality tests and benchmarks; overrides ``HAWKS_DEAP_COMPILED``.
    """
    if flag is not None and not isinstance(flag, bool):
        raise TypeError(f"flag must be True, False or None, got {flag!r}")
    _state["forced"] = flag
    _state["work"] = 0


def _wanted() -> bool | None:
    forced = _state["forced"]
    if forced is not None:
        return forced
    value = os.environ.get(ENV, "").strip()
    if value in ("", "auto"):
        return None
    if value not in ("0", "1"):
        raise ValueError(f"{ENV} must be 0, 1 or unset, got {value!r}")
    return value == "1"


def available(work: int = 0) -> bool:
    """Whether the compiled kernels are used (importing numba when they first are).

    ``work``: candidate points about to be tested, counted towards `SWITCH_WORK`.
    """
    wanted = _wanted()
    if wanted is False:
        return False
    if wanted is None and not _state["tried"]:
        _state["work"] += work
        if _state["work"] < SWITCH_WORK:
            return False
    _load()
    if wanted and _state["kernels"] is None:
        raise ImportError(f"{ENV}=1 asks for the compiled kernels, but {_state['why']}")
    return _state["kernels"] is not None


def native() -> bool:
    """Whether the C kernels are used (`grid_overlap_flags`, `silhouette_points`).

    True where the extension was built at install and the numpy path is not forced.
    """
    wanted = _wanted()
    if wanted is False:
        return False
    if _state["native"] is None:
        try:
            import hawks_deap.evaluation._native as _native
        except ImportError:
            _state["native"] = False
        else:
            _state["native"] = _native
    if wanted and _state["native"] is False:
        raise ImportError(f"{ENV}=1 asks for the compiled kernels, but the C kernels were "
                          "not built at install (no C compiler was found)")
    return _state["native"] is not False


def plan(work: int) -> None:
    """A run announces its size: from `PLAN_WORK` the kernels load now, for all of it.

    ``work``: the run's evaluations times N (point-evaluations). Nothing changes when a
    path is forced (`set_compiled`, ``HAWKS_DEAP_COMPILED``) or the process has already
    chosen; the values are the same either way.
    """
    if work >= PLAN_WORK and _wanted() is None:
        _load()


def _load() -> None:
    """Import numba and the kernels, once per process (None when numba is missing)."""
    if not _state["tried"]:
        _state["tried"] = True
        try:
            _state["kernels"] = _build()
        except ImportError:
            _state["kernels"] = None
            _state["why"] = "numba is not installed (pip install hawks-deap[fast])"
        except RuntimeError as error:
            # no place to cache compiled code (a read-only install, no writable home):
            # numba refuses `cache=True` at import; compiling each process anew would cost
            # seconds, so the numpy path runs (the same values)
            if "cannot cache" not in str(error):
                raise
            _state["kernels"] = None
            _state["why"] = f"numba cannot cache compiled code here ({error})"


def _call(name: str, *args: Any) -> Any:
    """Run compiled kernel ``name``; a Ctrl-C (or SIGTERM) that arrived inside it is one.

    A signal caught while compiled code runs comes out as a ``SystemError`` ("returned a
    result with an exception set") whose cause is the ``KeyboardInterrupt``: raised as
    that, the command line exits 130 with one line, as elsewhere.
    """
    try:
        return _state["kernels"][name](*args)
    except SystemError as error:
        if isinstance(error.__cause__ or error.__context__, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        raise


def _build() -> dict[str, Any]:
    """Compile (or load from numba's on-disk cache) the kernels."""
    from hawks_deap.evaluation import _numba_kernels as nk

    return {"hits": nk.sweep_hits, "own": nk.own_sweep}


def own_nn_sweep(P: np.ndarray) -> np.ndarray:
    """``o(i) = min {s(i, l) : l != i, s(i, l) > 0}`` (inf if none), compiled.

    The values of `hawks_deap.evaluation._kernels.own_nn_dense`, bit for bit. Requires
    `available`. Sorting is numpy's (compiling numba's sort costs seconds).
    """
    n = P.shape[0]
    if n == 0:
        return np.zeros(0)
    a = int(np.argmax(P.max(axis=0) - P.min(axis=0)))  # narrowest strips (speed only)
    order = np.argsort(P[:, a])
    T = P[order]
    out = np.empty(n)
    out[order] = _call("own", T, np.ascontiguousarray(T[:, a]), a)
    return out


def sweep_hits(X: np.ndarray, offs: np.ndarray, point: np.ndarray, o: np.ndarray,
               tgt: np.ndarray) -> np.ndarray:
    """Which candidates have a target point y with ``0 < s(X[point], y) <= o``, compiled.

    Candidate c is row ``point[c]`` of X with threshold ``o[c]``, against the points of
    gene ``tgt[c]``, rows ``offs[u]:offs[u + 1]`` of X for gene u (none empty); the
    values of `hawks_deap.evaluation._kernels.tree_hits`, bit for bit. Requires
    `available`. The targets are sorted by one numpy call: gene, then the value on the
    gene's axis of largest extent (narrowest strips; any axis is exact).
    """
    X = np.ascontiguousarray(X, dtype=float)
    offs = np.asarray(offs, dtype=np.intp)
    if point.size == 0:
        return np.zeros(0, dtype=bool)
    n_genes = offs.size - 1
    used = np.zeros(n_genes, dtype=bool)
    used[tgt] = True
    used[offs[1:] == offs[:-1]] = False  # an empty target captures nothing
    genes = np.flatnonzero(used)
    if genes.size == 0:
        return np.zeros(point.size, dtype=bool)
    starts, stops = offs[genes], offs[genes + 1]
    extent = np.maximum.reduceat(X, starts) - np.minimum.reduceat(X, starts)
    # reduceat reads segment i as starts[i]:starts[i + 1]: with unused genes between
    # two used ones the segment is too long, so those are measured one by one
    long = np.flatnonzero(np.append(starts[1:], X.shape[0]) != stops)
    for i in long.tolist():
        rows = X[starts[i]:stops[i]]
        extent[i] = rows.max(axis=0) - rows.min(axis=0)
    axis = np.zeros(n_genes, dtype=np.intp)
    axis[genes] = np.argmax(extent, axis=1)
    sizes = stops - starts
    gene_of = np.repeat(genes, sizes)
    rows = np.repeat(starts - np.cumsum(sizes) + sizes, sizes) + np.arange(sizes.sum())
    key = X[rows, axis[gene_of]]
    order = np.lexsort((key, gene_of))
    T = np.empty_like(X)
    T[rows] = X[rows[order]]
    keys = np.zeros(X.shape[0])
    keys[rows] = key[order]
    return _call("hits", X, np.asarray(point, dtype=np.intp),
                                     np.ascontiguousarray(o, dtype=float),
                                     np.asarray(tgt, dtype=np.intp), T, keys, offs, axis)


def grid_overlap_flags(X: np.ndarray, codes: np.ndarray) -> np.ndarray | None:
    """Per-point overlap flags of X (`overlap_flags`), compiled, from a grid of cells.

    One pass over the whole dataset, the values of the exact reference bit for bit;
    cells on the two axes of largest extent (`_native.c`). None if a coordinate is not
    finite (the caller takes another path). Requires `native`.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.empty(X.shape[0], dtype=np.bool_)
    # the bounds are the kernel's: numpy's X.min(axis=0) of an (N, 2) array costs as
    # much as a tenth of the pass
    ok = _state["native"].grid_flags(X, np.ascontiguousarray(codes, dtype=np.int64), out,
                                     X.shape[0], X.shape[1])
    return out if ok else None


def silhouette_points(X: np.ndarray, offs: np.ndarray, centroids: np.ndarray,
                      scatter: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per-point squared-Euclidean silhouette of two-dimensional X, compiled.

    Slot m holds rows ``offs[m]:offs[m + 1]``, with centroid ``centroids[m]``, scatter
    (sum of squared distances to it) ``scatter[m]`` and ``counts[m]`` points (floats).
    The values of `hawks_deap.evaluation._silhouette` point by point, bit for bit
    (`_native.c`); the caller reduces them as the numpy path does. Requires `native`.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, k = X.shape[0], centroids.shape[0]
    if X.shape[1] != 2:
        raise ValueError(f"X must have 2 columns, got {X.shape[1]}")
    out = np.empty(n)
    scatter = np.ascontiguousarray(scatter, dtype=np.float64)
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    _state["native"].silhouette_2d(
        X, np.ascontiguousarray(offs, dtype=np.int64),
        np.ascontiguousarray(centroids, dtype=np.float64), scatter / counts, scatter, counts,
        out, n, k)
    return out


def silhouette_genes(points_t: list[np.ndarray], ctx: list[np.ndarray], own: list[np.ndarray],
                     mask: np.ndarray, centroids: np.ndarray, scatter: np.ndarray,
                     counts: np.ndarray) -> np.ndarray:
    """Per-point squared-Euclidean silhouette from each gene's distance block, compiled.

    Gene j's points, transposed (``points_t[j]``, D x n_j, float64, C order), its block
    ``ctx[j]`` (K x n_j: row m the points' squared distances to centroid m, its own row
    +inf) and ``own[j]`` (n_j: to its own centroid). The rows m with ``mask[j, m]`` are
    measured first, in place (m = j: ``own[j]``), with cdist's bits. Returns s(i) for
    the genes' points in order, the values of `hawks_deap.evaluation._silhouette` bit
    for bit (`_native.c`); the caller reduces them as the numpy path does. Requires
    `native`.
    """
    k, dims = centroids.shape
    out = np.empty(sum(p.shape[1] for p in points_t))
    scatter = np.ascontiguousarray(scatter, dtype=np.float64)
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    _state["native"].silhouette_genes(
        points_t, ctx, own, np.array([p.shape[1] for p in points_t], dtype=np.int64),
        np.ascontiguousarray(mask, dtype=np.uint8),
        np.ascontiguousarray(centroids, dtype=np.float64), scatter / counts, scatter,
        counts, out, k, dims)
    return out


def operands32(X: np.ndarray, centre: np.ndarray, Q: np.ndarray, qn: np.ndarray) -> float:
    """``Q = float32(X - centre)``, ``qn = |X - centre|^2``; returns the largest ``|X - centre|``.

    inf where a value is not finite (Q is then meaningless). Requires `native`.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, dims = X.shape
    return _state["native"].operands32(X, np.ascontiguousarray(centre, dtype=np.float64), Q,
                                       qn, n, dims)


def dense_scan(G: np.ndarray, nr: np.ndarray, nc: np.ndarray, lim_r: np.ndarray | None,
               lim_c: np.ndarray, X: np.ndarray, rows: np.ndarray, cols: np.ndarray,
               o_r: np.ndarray | None, oc: np.ndarray, seg: np.ndarray,
               rows_hit: np.ndarray, cols_hit: np.ndarray) -> None:
    """The exact test of the candidates of a single-precision filtering block G, compiled.

    Candidate (i, l): ``nr[i] + nc[l] - 2 G[i, l]`` at most ``lim_r[i]`` or ``lim_c[l]``;
    then ``0 < s <= o_r[i]`` sets ``rows_hit[i, seg[l]]`` and ``0 < s <= oc[l]`` sets
    ``cols_hit[l]``, with s the exact squared distance of ``X[rows[i]]`` and
    ``X[cols[l]]`` (`hawks_deap.evaluation._kernels.dense_hits`, `_native.c`). ``lim_r``
    None: the rows are not tested. Requires `native`.
    """
    a, b = G.shape
    test_rows = lim_r is not None and o_r is not None
    f64 = np.float64
    empty = np.zeros(0)
    _state["native"].dense_scan(
        np.ascontiguousarray(G, dtype=np.float32), np.ascontiguousarray(nr, dtype=f64),
        np.ascontiguousarray(nc, dtype=f64),
        np.ascontiguousarray(lim_r, dtype=f64) if test_rows else empty,
        np.ascontiguousarray(lim_c, dtype=f64), np.ascontiguousarray(X, dtype=f64),
        np.ascontiguousarray(rows, dtype=np.int64), np.ascontiguousarray(cols, dtype=np.int64),
        np.ascontiguousarray(o_r, dtype=f64) if test_rows else empty,
        np.ascontiguousarray(oc, dtype=f64), np.ascontiguousarray(seg, dtype=np.int64),
        rows_hit, cols_hit, a, b, X.shape[0], X.shape[1], rows_hit.shape[1], test_rows)


def sgemm() -> Any:
    """BLAS's ``sgemm`` for `pivot_hits` (a capsule of scipy's cython_blas), None if absent.

    scipy is a core dependency and ships its BLAS; a build without the capsule leaves
    the overlap on `dense_scan` and numpy's products (the same values).
    """
    if "sgemm" not in _state:
        try:
            from scipy.linalg import cython_blas
            _state["sgemm"] = cython_blas.__pyx_capi__["sgemm"]
        except (ImportError, AttributeError, KeyError):
            _state["sgemm"] = None
    return _state["sgemm"]


def pivot_hits(Q: np.ndarray, qn: np.ndarray, X: np.ndarray, own: np.ndarray,
               offs: np.ndarray, J: np.ndarray, M: np.ndarray, pair_c: np.ndarray,
               q_c: np.ndarray, point: np.ndarray, terms: tuple[float, float, float],
               block: int) -> np.ndarray | None:
    """The exact test of an overlap pass's candidates, every pivot in one compiled call.

    The algorithm of `hawks_deap.evaluation._overlap._dense_side_hits` (pivots, their
    single-precision products, `dense_scan`'s exact test) with its products through BLAS's
    ``sgemm`` from C: candidate c (table row ``point[c]`` of gene ``q_c[c]``, pair
    ``pair_c[c]`` of genes ``(J, M)``, gene g's rows ``offs[g]:offs[g + 1]``) is hit iff a
    row y of the pair's other gene has ``0 < s(x, y) <= own[x]``. ``Q`` must be single
    precision (`hawks_deap.evaluation._kernels.dense_operands`); ``terms`` are the
    filter's limit terms (`hawks_deap.evaluation._kernels.limit_terms32`) and ``block``
    bounds a filtering block's elements. None where `sgemm` is missing. Requires `native`.
    """
    if Q.dtype != np.float32:
        raise TypeError(f"Q must be single precision (dense_operands), got {Q.dtype}")
    capsule = sgemm()
    if capsule is None:
        return None
    i64, f64 = np.int64, np.float64
    hit = np.zeros(point.shape[0], dtype=bool)
    _state["native"].pivot_hits(
        np.ascontiguousarray(Q), np.ascontiguousarray(qn, dtype=f64),
        np.ascontiguousarray(X, dtype=f64), np.ascontiguousarray(own, dtype=f64),
        np.ascontiguousarray(offs, dtype=i64), np.ascontiguousarray(J, dtype=i64),
        np.ascontiguousarray(M, dtype=i64), np.ascontiguousarray(pair_c, dtype=i64),
        np.ascontiguousarray(q_c, dtype=i64), np.ascontiguousarray(point, dtype=i64), hit,
        capsule, X.shape[0], X.shape[1], offs.shape[0] - 1, J.shape[0], point.shape[0],
        tuple(float(v) for v in terms), block)
    return hit


def col_means(P: np.ndarray) -> np.ndarray:
    """``P.mean(axis=0)`` with numpy's bits, compiled where `native` (else numpy's own).

    numpy reduces a C-ordered array of two columns or more over axis 0 by adding whole
    rows in order to 0.0; `_native.c` does the same without a call per row (at (5000, 2):
    57 us in numpy). One column (numpy sums it pairwise), other layouts or dtypes, no row:
    numpy.
    """
    n = P.shape[0] if P.ndim == 2 else 0
    if (n == 0 or P.dtype != np.float64 or not P.flags.c_contiguous or not native()
            or P.shape[1] < 2 or not _numpy_sums_rows_in_order()):
        return P.mean(axis=0)
    out = np.empty(P.shape[1])
    _state["native"].col_means(P, out, n, P.shape[1])
    return out


def shape_2d(z: np.ndarray, variances: np.ndarray, rotation: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A two-dimensional gene's ``p0 = z diag(sqrt(variances)) R^T``, its ``c0`` and ``sq``.

    ``c0`` is ``p0.mean(axis=0)``, ``sq[i] = |p0_i - c0|^2``: the bits of
    `hawks_deap.genome.products.shape_points` and `hawks_deap.evaluation._cache.Shape`'s
    numpy arithmetic, in one compiled call (`_native.c`). None where it does not apply
    (not `native`, not 2 x 2, no row, a numpy that means otherwise than `col_means`): the
    caller takes the numpy path.
    """
    if (z.ndim != 2 or z.shape[0] == 0 or z.shape[1] != 2 or rotation.shape != (2, 2)
            or not native() or not _numpy_sums_rows_in_order()):
        return None
    n = z.shape[0]
    p0, c0, sq = np.empty((n, 2)), np.empty(2), np.empty(n)
    _state["native"].shape_2d(np.ascontiguousarray(z, dtype=np.float64),
                              np.ascontiguousarray(variances, dtype=np.float64),
                              np.ascontiguousarray(rotation, dtype=np.float64), p0, c0, sq, n)
    return p0, c0, sq


def _numpy_sums_rows_in_order() -> bool:
    """Whether this numpy's ``mean(axis=0)`` has the bits of `col_means` (checked once).

    Values of very different magnitudes make the sum depend on its order, so a numpy
    that summed otherwise (pairwise, in blocks) would disagree here and keep its own.
    """
    ok = _state.get("rows_in_order")
    if ok is None:
        P = np.random.default_rng(2026).normal(size=(600, 8))
        P *= 10.0 ** np.arange(-8, 8, 2)
        P[::7] *= 1e6
        out = np.empty(8)
        _state["native"].col_means(P, out, 600, 8)
        ok = _state["rows_in_order"] = out.tobytes() == P.mean(axis=0).tobytes()
    return bool(ok)
