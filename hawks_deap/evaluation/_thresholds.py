"""Own-cluster thresholds: each point's smallest positive squared distance within its cluster.

The overlap test of a point x of cluster j against another cluster is
``0 < s(x, y) <= o(x)``, with ``o(x)`` the threshold computed here. Translating a shape
(a gene's mean) moves distances by rounding only, so each shape carries a certificate
(`certify`: every point's nearest neighbour with the margin that keeps it the nearest
under translation) and a gene's thresholds cost one distance per point where it holds.
`reach_bound` bounds a gene's largest threshold without computing any, which lets the
overlap skip genes whose pairs are provably empty.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from hawks_deap.evaluation import _compiled
from hawks_deap.evaluation._cache import GeneEntry, GeneStore, Shape
from hawks_deap.evaluation._kernels import (
    EPS,
    REL,
    abs_slack,
    nearest_two_dense,
    nearest_two_scaled,
    nearest_two_tree,
    own_nn_dense,
    own_nn_tree,
    row_min_positive,
    sqdist_rows,
)

__all__ = ["certify", "own_thresholds", "reach_bound", "z_neighbours", "z_steps"]

#: Candidate neighbours per point in the two-dimensional shape certificates (`certify`),
#: and the number of anisotropy levels (down to a variance ratio of 2^-_Z_LEVELS) they
#: are kept for.
_Z_NEIGHBOURS = 6
_Z_LEVELS = 24


def own_thresholds(store: GeneStore, slot: int, gene: Any, entry: GeneEntry) -> np.ndarray:
    """The own-cluster thresholds ``o`` of a gene's points (cached with the gene).

    Translating a shape moves distances by rounding only: where the shape's
    nearest-neighbour margin (`Shape.set_own`) exceeds the gene's translation
    slack, ``o(i)`` is the exact distance to the shape's nearest neighbour; the
    other points are measured as without the shape (KD-tree candidates, or distance
    rows).
    """
    if entry.own_nn is None and store.low_dims and _compiled.available():
        # the exact minima directly, one compiled sweep (no shape certificate needed)
        _set_own(store, entry, _compiled.own_nn_sweep(entry.points))
    if entry.own_nn is None:
        P = entry.points
        shape = store.shape(slot, gene)
        had_own = shape.own_idx is not None
        certify(store, slot, gene, shape)
        assert shape.own_margin is not None and shape.own_idx is not None  # certify sets them
        slack = abs_slack(P.shape[1], max(entry.maxabs, shape.maxabs))
        sure = shape.own_margin > slack
        if sure.all():
            own = sqdist_rows(P, P[shape.own_idx])
        else:
            own = np.empty(P.shape[0])
            own[sure] = sqdist_rows(P[sure], P[shape.own_idx[sure]])
            rest = np.flatnonzero(~sure)
            if store.low_dims:
                shape.ensure_tree()
                own[rest] = own_nn_tree(P, shape.tree, shape.p0, slack, rest)
            elif 8 * rest.size > P.shape[0]:
                own[rest] = own_nn_dense(P, store.tuning.small_cluster)[rest]
            else:
                own[rest] = [row_min_positive(P, i) for i in rest.tolist()]
        if not had_own:
            store.put_shape(slot, gene, shape)
        _set_own(store, entry, own)
    assert entry.own_nn is not None  # set above
    return entry.own_nn

def _set_own(store: GeneStore, entry: GeneEntry, own: np.ndarray) -> None:
    """Store a gene's thresholds with their derived values, and the entry again."""
    entry.own_nn = own
    entry.own_reach = np.sqrt(own * (1.0 + REL)) / (1.0 - REL)
    entry.own_max = float(own.max()) if own.size else 0.0
    store.put_gene(entry)

def reach_bound(store: GeneStore, slot: int, gene: Any, entry: GeneEntry) -> float:
    """An upper bound on a gene's largest own-cluster threshold ``max o(i)``.

    ``o(i) <= s(i, l)`` for any other point l at a positive distance. Pairing each
    point with its nearest draw in the slot's z (fixed for the run, `z_steps`),
    the shape moves the pair's difference to ``dz diag(sqrt(lam)) R^T``, of exact
    length ``sqrt(sum_d lam_d dz_d^2)`` (rotations keep lengths): the largest such
    length, widened by the rounding of the points (``E`` below), bounds ``sqrt(o)``
    from above; the smallest, less ``E``, shows that no pair coincides in floating
    point (else the bound is ``inf``). Computing the thresholds themselves costs a
    nearest-neighbour pass over the gene; `_overlap.overlap_pairs` skips it for genes whose
    pairs this bound already proves empty.
    """
    shape = store.shape(slot, gene)
    if shape.step_range is None:
        steps = z_steps(store, slot)
        if steps is None:
            shape.step_range = (0.0, math.inf)
        else:
            length = np.sqrt(np.square(steps) @ gene.variances)
            shape.step_range = (float(length.min()), float(length.max()))
    low, high = shape.step_range
    d = store.layout.n_dims
    # |fl(p0) - exact| per point <= (D + 3) eps |p0| <= (D + 3) eps sqrt(D) maxabs in
    # each coordinate, then the translation; both points of a pair, four times over
    err = 8.0 * EPS * ((d + 3) * d * shape.maxabs + math.sqrt(d) * entry.maxabs)
    if not (low * (1.0 - REL) > err and low > 1e-150):  # (no underflow to 0 either)
        return math.inf
    return ((high * (1.0 + REL) + err) * (1.0 + REL)) ** 2

def z_steps(store: GeneStore, slot: int) -> np.ndarray | None:
    """``z_i - z_nearest(i)`` for the draws of a slot (None if fewer than 2)."""
    if slot not in store.z_step_table:
        z = store.layout.z[slot]
        if z.shape[0] < 2:
            steps = None
        else:
            _, idx = cKDTree(z).query(z, k=2)
            other = np.where(idx[:, 0] == np.arange(z.shape[0]), idx[:, 1], idx[:, 0])
            steps = z - z[other]
        store.z_step_table[slot] = steps
    return store.z_step_table[slot]

def certify(store: GeneStore, slot: int, gene: Any, shape: Shape) -> None:
    """The nearest-neighbour certificate of a shape (`Shape.set_own`), once.

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
    if not store.low_dims:
        shape.set_own(*nearest_two_dense(p0, store.tuning.small_cluster))
        return
    lam = gene.variances
    if d == 2 and n > _Z_NEIGHBOURS:
        big = int(lam[1] > lam[0])
        t = math.sqrt(lam[1 - big] / lam[big])
        level = int(math.floor(-2.0 * math.log2(t))) if t > 0 else _Z_LEVELS + 1
        if level <= _Z_LEVELS:
            cand, r = z_neighbours(store, slot, big, level)
            factor = min(1.0, t / 2.0 ** (-level / 2.0))
            # rounding of p0 = (z sqrt(lam)) R^T against its exact linear image
            margin = 8.0 * (d + 2) * EPS * math.sqrt(d) * shape.maxabs
            bound = math.sqrt(lam[big]) * factor * r * (1.0 - REL) - margin
            shape.set_own(*nearest_two_scaled(p0, cand, bound))
            return
    shape.ensure_tree()
    shape.set_own(*nearest_two_tree(p0, shape.tree))

def z_neighbours(store: GeneStore, slot: int, big: int, level: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The `_Z_NEIGHBOURS` nearest draws of each point of a slot in one fixed metric.

    The metric is ``dz_big^2 + t^2 dz_small^2`` with ``t = 2^(-level/2)``. Returns
    the neighbours (n, k) and the distance to the last of them (0 where a point has
    a duplicate, which voids its certificate). Cached with the other entries.
    """
    key = ("z", slot, big, level)
    entry = store.cache.get(key)
    if entry is None:
        z = store.layout.z[slot].copy()
        z[:, 1 - big] *= 2.0 ** (-level / 2.0)
        k = _Z_NEIGHBOURS
        dist, idx = cKDTree(z, balanced_tree=False).query(z, k=k + 1)
        r = np.where(dist[:, 1] > 0.0, dist[:, k], 0.0)
        cand = np.where((idx[:, :1] == np.arange(z.shape[0])[:, None]), idx[:, 1:],
                        idx[:, :k]).astype(np.intp)
        entry = (cand, r)
        store.cache.put(key, entry)
    return entry

# -- public API ----------------------------------------------------------------------
