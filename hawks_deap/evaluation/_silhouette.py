"""The incremental silhouette of a genotype, exact.

Squared Euclidean distance (HAWKS' choice): the closed form
``sum_{y in C} ||x - y||^2 = n_C ||x - c_C||^2 + SS_C`` gives every mean distance from the
centroids and scatters, in O(N K D). Euclidean distance: per pair of genes, the cache
holds the row and column sums of their distance block, measured only where a cluster can
be a point's nearest (Jensen bounds). Both agree with
`hawks_deap.evaluation.reference.silhouette_score` (to 1e-12 relative) and their values
do not depend on the cache's history.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.spatial.distance import cdist

from hawks_deap.evaluation import _compiled
from hawks_deap.evaluation._cache import GeneEntry, GeneStore
from hawks_deap.evaluation._kernels import (
    BLOCK_ELEMENTS,
    REL,
    euclidean_block_sums,
    euclidean_cols,
    euclidean_intra_sums,
    euclidean_rows,
)

__all__ = ["silhouette_eu", "silhouette_sq"]


def silhouette_sq(store: GeneStore, keys: list[str], genes: list[GeneEntry]) -> float:
    """Squared-Euclidean silhouette in closed form.

    ``a(i) = (n_own d_own + SS_own) / (n_own - 1)`` and
    ``b(i) = min_{k != own} (d_ik + SS_k / n_k)`` with ``d_ik = ||x_i - c_k||^2``.
    Up to N K D = `store.tuning.direct_silhouette`, the whole K x N block ``d`` is measured at
    every call (one ``cdist``). Above, each slot's gene keeps ``d_own`` and the block
    ``d_ki`` (K x n, own row at +inf) of its points against the centroids of the
    genotype it was last evaluated in, with their keys; only the columns whose gene
    changed since are measured again, in one ``cdist`` call per group of genes last
    evaluated together (every value is the same whichever path computed it). Small
    problems reduce the blocks together, large ones slot by slot (no N x K copy); the
    choice depends only on N and K. Where the C
    kernels were built, at D = 2, one compiled pass gives every point's value instead
    (`_compiled.silhouette_points`), the same bits, reduced as the numpy path reduces
    them (whole, or slot by slot above `store.tuning.slotwise_silhouette`; BENCHMARKS.md,
    "The overlap and silhouette kernels in C").
    """
    k = len(keys)
    centroids = np.array([e.centroid for e in genes])
    scatter = np.array([e.scatter for e in genes])
    direct = store.layout.n_samples * k * store.layout.n_dims <= store.tuning.direct_silhouette
    slotwise = store.layout.n_samples * k > store.tuning.slotwise_silhouette
    if store.layout.n_dims == 2 and _compiled.native():
        # one compiled pass over all N K: faster than the numpy blocks at every size
        # measured, and it keeps no cache (a pool's workers would each fill their own)
        s = _compiled.silhouette_points(store.points(genes), store.offsets_arr, centroids,
                                        scatter, store.counts)
        return _reduce(store, s, slotwise)
    if direct:
        # one K x N block from scratch is cheaper than the bookkeeping below
        d2 = cdist(centroids, store.points(genes), "sqeuclidean")
        a = d2[store.codes, store.rows]
        d2 += (scatter / store.counts)[:, None]
        d2[store.codes, store.rows] = np.inf
        return _silhouette_from_a_b(store, a, d2.min(axis=0), scatter)
    return _silhouette_cached(store, keys, genes, centroids, scatter, slotwise)


def _silhouette_cached(store: GeneStore, keys: list[str], genes: list[GeneEntry],
                       centroids: np.ndarray, scatter: np.ndarray, slotwise: bool) -> float:
    """`silhouette_sq` from each gene's cached block against the centroids.

    Where the C kernels were built, one call measures the stale rows in place and gives
    every point's value (`_compiled.silhouette_genes`, the same bits); numpy otherwise.
    """
    k = len(keys)
    fresh, groups = _stale_rows(keys, genes)
    if _compiled.native():
        stale = np.zeros((k, k), dtype=np.uint8)  # rows to measure
        for j in fresh:
            n_j = genes[j].points.shape[0]
            genes[j].ctx_d2, genes[j].own_d2 = np.empty((k, n_j)), np.empty(n_j)
            stale[j] = 1
        for changed, slots in groups:
            stale[np.ix_(slots, changed)] = 1
        s = _compiled.silhouette_genes([e.points_t for e in genes],
                                       [e.ctx_d2 for e in genes],  # type: ignore[misc]
                                       [e.own_d2 for e in genes],  # type: ignore[misc]
                                       stale, centroids, scatter, store.counts)
        store.put_genes([genes[j] for j in fresh])  # once their blocks exist
        return _reduce(store, s, slotwise)
    for j in fresh:
        e = genes[j]
        e.ctx_d2 = cdist(centroids, e.points, "sqeuclidean")
        e.own_d2 = e.ctx_d2[j].copy()
        e.ctx_d2[j] = np.inf
    for changed, slots in groups:
        measured = cdist(centroids[changed],
                         np.concatenate([genes[j].points for j in slots]), "sqeuclidean")
        start = 0
        for j in slots:
            stop = start + genes[j].points.shape[0]
            ctx_d2 = genes[j].ctx_d2
            assert ctx_d2 is not None  # every entry has its rows here
            ctx_d2[changed] = measured[:, start:stop]
            start = stop
    store.put_genes([genes[j] for j in fresh])
    spread = scatter / store.counts
    if not slotwise:
        d2 = np.concatenate([e.ctx_d2 for e in genes], axis=1)
        d2 += spread[:, None]
        return _silhouette_from_a_b(store, np.concatenate([e.own_d2 for e in genes]),
                                         d2.min(axis=0), scatter)
    total = 0.0
    for j, e in enumerate(genes):
        n_j = store.sizes[j]
        if n_j < 2:
            continue  # s(i) = 0 for a point alone in its cluster
        assert e.ctx_d2 is not None and e.own_d2 is not None  # every entry has its rows here
        b = (e.ctx_d2 + spread[:, None]).min(axis=0)
        a = e.own_d2 * float(n_j)
        a += scatter[j]
        a /= n_j - 1.0
        denom = np.maximum(a, b)
        b -= a
        total += float(np.divide(b, denom, out=np.zeros_like(b), where=denom > 0).sum())
    return total / store.layout.n_samples


def _stale_rows(keys: list[str], genes: list[GeneEntry]
                ) -> tuple[list[int], list[tuple[list[int], list[int]]]]:
    """What a genotype's cached blocks lack, and every gene's context set to ``keys``.

    Returns the slots of genes without a block (all rows to measure), and groups
    ``(changed slots, gene slots)`` of rows to measure again. The genes last evaluated
    together share one list of keys (their context), hence the rows to measure again,
    and each group measures only its own (not the union of every group's).
    """
    k = len(keys)
    fresh: list[int] = []
    groups: dict[int, tuple[list[int], list[int]]] = {}
    holders = []  # each group's context: its id is not reused while held here
    for j, e in enumerate(genes):
        ctx = e.ctx_keys
        if ctx is None:
            fresh.append(j)
        elif ctx is not keys:
            group = groups.get(id(ctx))
            if group is None:
                holders.append(ctx)
                group = groups[id(ctx)] = ([m for m in range(k) if ctx[m] != keys[m]], [])
            group[1].append(j)
        e.ctx_keys = keys
    return fresh, [g for g in groups.values() if g[0]]


def _reduce(store: GeneStore, s: np.ndarray, slotwise: bool) -> float:
    """Mean of the per-point values ``s`` (slot order) as the numpy path reduces them.

    Whole (``s.mean()``), or slot by slot: each slot's sum, added in slot order, over N
    (the bits of the slot-by-slot numpy path).
    """
    if not slotwise:
        # s.mean()'s bits (numpy's sum, then one division) without its Python wrapper
        return float(np.add.reduce(s)) / s.size
    offs = store.offsets
    total = 0.0
    for j in range(len(store.sizes)):
        if store.sizes[j] >= 2:
            total += float(s[offs[j]:offs[j + 1]].sum())
    return total / store.layout.n_samples

def _silhouette_from_a_b(store: GeneStore, d_own: np.ndarray, b: np.ndarray,
                         scatter: np.ndarray) -> float:
    """Mean silhouette from ``d_own = ||x_i - c_own||^2`` and ``b(i)`` (both consumed)."""
    a = d_own
    a *= store.own_n
    a += scatter.take(store.codes)
    a /= store.own_n1
    return _mean_silhouette(store, a, b)

def _mean_silhouette(store: GeneStore, a: np.ndarray, b: np.ndarray) -> float:
    """Mean silhouette ``(b - a) / max(a, b)``; 0 for a point alone (``b`` consumed)."""
    denom = np.maximum(a, b)
    b -= a
    s = np.divide(b, denom, out=np.zeros_like(b), where=store.multi & (denom > 0))
    return float(s.mean())

def silhouette_eu(store: GeneStore, genotype: Sequence, genes: list[GeneEntry]) -> float:
    """Euclidean silhouette from per-pair row sums, measured where needed.

    ``a(i)`` comes from the intra-cluster row sums (cached per shape), ``b(i)`` from
    the mean distances ``m_ik`` to the other clusters. Per pair of genes the cache
    holds the row and the column sums of their distance block (NaN where not
    measured yet): for each of the two clusters, its points' summed distances to the
    other. A sum is measured only where it can be
    point i's ``b(i)``: by Jensen's inequality
    ``|x - c_k| <= m_ik <= sqrt(|x - c_k|^2 + SS_k / n_k)``, so a cluster whose lower
    bound exceeds the smallest upper bound (or known mean) cannot be the minimum.
    Each sum has the same bits whichever call measured it (`euclidean_rows`,
    `euclidean_cols`, `euclidean_block_sums`), so the result does not depend on the
    cache's history.
    """
    k = len(genes)
    n = store.layout.n_samples
    offs, sizes = store.offsets, store.sizes
    intra = np.empty(n)
    for j in range(k):
        shape = store.shape(j, genotype[j])
        if shape.eu_intra is None:
            shape.eu_intra = euclidean_intra_sums(shape.p0)
            store.put_shape(j, genotype[j], shape)
        intra[offs[j]:offs[j + 1]] = shape.eu_intra
    means = np.full((n, k), np.nan)
    pairs = store.pairs
    table = store.pair_entries(genes, euclidean=True)
    owners, partners, new = [], [], []
    for p, (j, m) in enumerate(pairs):
        entry = table[p]
        if entry is None:
            entry = table[p] = (np.full(sizes[j], np.nan), np.full(sizes[m], np.nan))
            owners.append(genes[j])
            partners.append(genes[m])
            new.append(entry)
        means[offs[j]:offs[j + 1], m] = entry[0] / float(sizes[m])
        means[offs[m]:offs[m + 1], j] = entry[1] / float(sizes[j])
    store.add_pairs(owners, partners, new, euclidean=True)
    rows = store.rows
    means[rows, store.codes] = np.inf  # never a candidate for b(i)
    unknown = np.isnan(means)
    if unknown.any():
        centroids = np.stack([e.centroid for e in genes])
        low = cdist(store.points(genes), centroids, "euclidean")
        spread = np.array([e.scatter for e in genes]) / store.counts
        high = np.sqrt(np.square(low) + spread[None, :])
        known = ~unknown
        low[known] = means[known]
        high[known] = means[known]
        best = high.min(axis=1) * (1.0 + REL)
        need = unknown & (low * (1.0 - REL) <= best[:, None])
        by_slot = np.logical_or.reduceat(need, store.offsets_arr[:-1], axis=0)  # (k, k)
        for p, (j, m) in enumerate(pairs):
            if not (by_slot[j, m] or by_slot[m, j]):
                continue
            row_j, row_m = table[p]
            Pj, Pm = genes[j].points, genes[m].points
            rj = np.flatnonzero(need[offs[j]:offs[j + 1], m])
            rm = np.flatnonzero(need[offs[m]:offs[m + 1], j])
            nj, nm = sizes[j], sizes[m]
            if (rj.size * nm + rm.size * nj < 0.8 * nj * nm
                    or nj * nm > BLOCK_ELEMENTS):
                if rj.size:
                    row_j[rj] = euclidean_rows(Pj[rj], Pm)
                if rm.size:
                    row_m[rm] = euclidean_cols(Pj, Pm[rm])
            else:  # nearly the whole block: both directions from one block
                row_j[:], row_m[:] = euclidean_block_sums(Pj, Pm)
            means[offs[j]:offs[j + 1], m] = row_j / float(nm)
            means[offs[m]:offs[m + 1], j] = row_m / float(nj)
        means[np.isnan(means)] = np.inf  # provably not the minimum
    return _mean_silhouette(store, intra / store.own_n1, means.min(axis=1))

# -- overlap -------------------------------------------------------------------------
