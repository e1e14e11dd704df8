"""The incremental overlap of a genotype, exact, from cached pairs of genes.

The overlap (Eq. 5) is the fraction of points whose nearest neighbour lies in another
cluster. Point x of cluster j overlaps iff some point y of another cluster has
``0 < s(x, y) <= o(x)`` (`hawks_deap.evaluation._thresholds`), a test that splits over
pairs of clusters: the points that cluster m "captures" from cluster j depend only on
the two genes. Each pair's captured points are cached under the two gene keys, so an
offspring computes only the pairs that involve a gene never seen before; all of a
genotype's (or a generation's, `prefetch_overlap`) missing pairs are pruned and tested
together (`overlap_pairs`).

In two dimensions, where the C kernels were built (`hawks_deap.evaluation._compiled`),
none of this runs: one compiled pass over the whole dataset on a grid of cells
(`grid_overlap_flags`) costs less than the cached pairs (BENCHMARKS.md, "One compiled
pass in two dimensions"), needs no cache, and gives the same values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import repeat
from operator import is_not

import numpy as np

from hawks_deap.evaluation import _compiled
from hawks_deap.evaluation._cache import GeneEntry, GeneStore
from hawks_deap.evaluation._kernels import (
    BLOCK_ELEMENTS,
    EMPTY,
    EPS,
    REL,
    abs_slack,
    dense_hits,
    dense_operands,
    limit_terms32,
    maybe_within,
    nonzero2,
    tree_hits,
)
from hawks_deap.evaluation._thresholds import own_thresholds, reach_bound
from hawks_deap.evaluation.reference import overlap_flags

__all__ = ["Table", "overlap", "overlap_pairs", "prefetch_overlap"]



class Table:
    """The genes of one computation of overlap pair entries (`overlap_pairs`).

    Gene u: its slot ``slots[u]``, its `Cluster` ``genes[u]`` and cache entry
    ``entries[u]``; its points are rows ``offs[u]:offs[u + 1]`` of
    ``X`` (the table's rows). A genotype's table has gene u in slot u and X its dataset
    (``data_offs`` None: table rows are data rows); a batch's (`prefetch_overlap`) lists
    each (slot, gene) once, and ``data_offs[u]`` is the first data row of u's slot.
    ``n_genotypes`` scales the whole-dataset budget.
    """

    __slots__ = ("slots", "genes", "entries", "offs", "offs_arr", "sizes_arr", "X",
                 "data_offs", "n_genotypes")

    def __init__(self, slots: list[int], genes: list, entries: list[GeneEntry], offs: list[int],
                 offs_arr: np.ndarray, sizes_arr: np.ndarray, X: np.ndarray,
                 data_offs: np.ndarray | None, n_genotypes: int) -> None:
        self.slots, self.genes, self.entries = slots, genes, entries
        self.offs, self.offs_arr, self.sizes_arr, self.X = offs, offs_arr, sizes_arr, X
        self.data_offs, self.n_genotypes = data_offs, n_genotypes



def overlap(store: GeneStore, genotype: Sequence) -> float:
    if store.prefetched:  # measured by the prefetch of its generation?
        found = store.prefetched.get(tuple(g.key for g in genotype))
        if found is not None and found[1] is not None:
            return found[1]
    keys, genes = store.genes(genotype)
    if grid_pass(store):
        return _overlap_full(store, genes)
    pairs = store.pairs
    entries = store.pair_entries(genes)
    if _lacks(entries):
        lacking = [p for p, e in enumerate(entries) if e is None]
        computed = overlap_pairs(store, _genotype_table(store, genotype, genes),
                                 [pairs[p] for p in lacking])
        if computed is None:  # a whole-dataset pass was cheaper; pairs stay uncached
            return _overlap_full(store, genes)
        for p, entry in zip(lacking, computed, strict=True):
            entries[p] = entry
    return _captured_fraction(store, entries)


def _lacks(entries: list) -> bool:
    """Whether a pair entry is missing (None); in C, and never comparing the arrays."""
    return not all(map(is_not, entries, repeat(None)))


def _captured_fraction(store: GeneStore, entries: list) -> float:
    """The overlap from a genotype's pair entries: the fraction of rows some entry holds."""
    parts = [e for e in entries if e is not EMPTY]  # an identity test, not e.size
    if not parts:
        return 0.0
    flags = np.zeros(store.layout.n_samples, dtype=bool)
    flags[np.concatenate(parts)] = True
    return float(np.count_nonzero(flags) / flags.size)


def _genotype_table(store: GeneStore, genotype: Sequence, genes: list[GeneEntry]) -> Table:
    """The `Table` of one genotype: gene u is slot u, its rows are the data rows."""
    return Table(list(range(len(genes))), list(genotype), genes, store.offsets,
                  store.offsets_arr, store.sizes_arr, store.points(genes), None, 1)

def prefetch_overlap(store: GeneStore, genotypes: Sequence[Sequence]) -> None:
    """Compute together the overlap pair entries that a batch of genotypes lacks.

    A generation's offspring share most of their genes: their missing pairs of
    genes go through one `overlap_pairs` call (one projection per query gene, one
    exact test per target gene or pivot) instead of one call per genotype, and are
    cached; `overlap` then finds them. Values are unchanged (each pair entry is
    exact, whichever call computes it). The genotypes are taken in order, as long as
    their missing pairs hold at most `store.tuning.prefetch_points` points in all (memory stays
    that of a few evaluations; at N = 100,000 a genotype alone exceeds it and is
    left to its own evaluation); pairs whose pass would exceed the whole-dataset
    budget are left to the genotypes' evaluations too.
    """
    if grid_pass(store):  # nothing is cached on that path
        return
    sizes, pairs = store.sizes, store.pairs
    store.prefetched = {}
    todo: dict[tuple, tuple] = {}  # (uid, uid) of a missing pair -> (genotype, genes, pair)
    waiting: list[tuple] = []  # (keys, gene entries, pair entries) of the batch's genotypes
    volume = n_genotypes = 0
    for genotype in genotypes:
        store.layout.check(genotype)
        keys = tuple(g.key for g in genotype)
        genes = [store.gene(slot, g) for slot, g in enumerate(genotype)]
        entries = store.pair_entries(genes)
        if not _lacks(entries):
            store.prefetched[keys] = (genes, _captured_fraction(store, entries))
            continue
        store.prefetched[keys] = (genes, None)
        new = {}
        for p in [p for p, e in enumerate(entries) if e is None]:
            j, m = pairs[p]
            uids = (genes[j].uid, genes[m].uid)
            if uids not in todo:
                new[uids] = (genotype, genes, p)
        if not new:  # pairs the batch computes
            waiting.append((keys, genes, entries))
            continue
        more = sum(sizes[j] + sizes[m] for j, m in (pairs[p] for _, _, p in new.values()))
        if volume + more > store.tuning.prefetch_points:
            _prefetch_pairs(store, todo, waiting, n_genotypes)
            # (only the batch's keys are kept: those of every genotype, K (K - 1) each,
            # once held 2 GB at K = 1,500)
            volume, n_genotypes, todo, waiting = 0, 0, {}, []
            if more > store.tuning.prefetch_points:
                continue
        todo.update(new)
        waiting.append((keys, genes, entries))
        volume += more
        n_genotypes += 1
    _prefetch_pairs(store, todo, waiting, n_genotypes)


def _prefetch_pairs(store: GeneStore, todo: dict[tuple, tuple], waiting: list[tuple],
                    n_genotypes: int) -> None:
    """`overlap_pairs` for the missing pairs of a batch of ``n_genotypes`` genotypes at once.

    ``todo`` maps each missing pair's gene entry uids to (a genotype holding the pair, its
    gene entries, the pair's number); ``waiting`` lists the batch's genotypes (keys, gene
    entries, pair entries). Then each waiting genotype whose pair entries are all cached
    has its overlap measured into ``store.prefetched``: its evaluation finds it there
    instead of reading its K (K - 1) / 2 pairs again (BENCHMARKS.md, "The pivots in C");
    a pair left uncached (a whole-dataset pass was cheaper) leaves its genotype to its
    evaluation. A batch of fewer than two genotypes is left to their evaluations.
    """
    if n_genotypes < 2:
        return
    index: dict[int, int] = {}  # gene entry uid -> table unit
    slots: list[int] = []
    genes: list = []
    entries: list[GeneEntry] = []
    pairs = store.pairs
    missing = []
    for genotype, gene_entries, p in todo.values():
        units = []
        for slot in pairs[p]:
            entry = gene_entries[slot]
            u = index.get(entry.uid)
            if u is None:
                u = index[entry.uid] = len(slots)
                slots.append(slot)
                genes.append(genotype[slot])
                entries.append(entry)
            units.append(u)
        missing.append((units[0], units[1]))
    sizes = np.array([e.points.shape[0] for e in entries], dtype=np.intp)
    offs_arr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    table = Table(slots, genes, entries, offs_arr.tolist(), offs_arr, sizes,
                   np.concatenate([e.points for e in entries]), store.offsets_arr[slots],
                   n_genotypes)
    overlap_pairs(store, table, missing)
    for keys, gene_entries, found in waiting:
        if _lacks(found):
            found = store.pair_entries(gene_entries)
            if _lacks(found):
                continue
        store.prefetched[keys] = (gene_entries, _captured_fraction(store, found))

def overlap_pairs(store: GeneStore, t: Table, missing: list[tuple[int, int]]
                  ) -> list[np.ndarray] | None:
    """Compute and cache the captured points of each missing pair of genes.

    ``t`` holds the genes (`Table`: one genotype's, or a batch's for
    `prefetch_overlap`); ``missing`` pairs ``(u, v)`` of its genes, u's slot first. Each
    pair's entry is kept by u's gene entry (`GeneEntry.add_partner`), which is then put
    in the cache again, so that its budget counts it.

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
       (`tree_hits`) in low dimension, matrix products (`dense_hits`) otherwise.

    Returns each pair's entry (its captured data rows, `EMPTY` for none), in the order
    of ``missing``. In low dimension, when more query points are left than a
    whole-dataset pass would cost (`store.tuning.global_cost` per point and genotype),
    nothing is computed and None is returned.
    """
    genes = t.entries
    n_dims = store.layout.n_dims
    J = np.array([j for j, _ in missing], dtype=np.intp)
    M = np.array([m for _, m in missing], dtype=np.intp)
    cents = np.stack([e.centroid for e in genes])
    delta = cents[M] - cents[J]
    dist = np.sqrt(np.einsum("ij,ij->i", delta, delta))
    radius = np.array([e.radius for e in genes])
    maxnorm = np.array([e.maxnorm for e in genes])
    maxnorm = np.maximum(maxnorm, np.abs(cents).max(axis=1) * math.sqrt(n_dims))
    # rounding margin of the bounds of a pair (projections of its points, distances)
    slack = 16.0 * (n_dims + 2) * EPS * (4.0 * np.maximum(maxnorm[J], maxnorm[M]) + dist)
    gap = dist - radius[J] - radius[M]
    # step 1 with the thresholds' largest value where measured, else an upper bound
    # on it (`reach_bound`): genes whose pairs are all empty need no thresholds
    units = sorted(set(J.tolist()) | set(M.tolist()))
    reach = np.zeros(len(genes))
    for u in units:
        e = genes[u]
        reach[u] = (e.own_max if e.own_nn is not None
                    else reach_bound(store, t.slots[u], t.genes[u], e))
    near = np.flatnonzero(maybe_within(gap, np.maximum(reach[J], reach[M]), slack))
    own = {}
    for u in sorted(set(J[near].tolist()) | set(M[near].tolist())):
        own[u] = own_thresholds(store, t.slots[u], t.genes[u], genes[u])
        reach[u] = genes[u].own_max
    if own:  # the same test with the measured thresholds
        near = near[maybe_within(gap[near], np.maximum(reach[J[near]], reach[M[near]]),
                                  slack[near])]
    entries = [EMPTY] * len(missing)
    if near.size:
        found = _side_hits(store, t, own, J[near], M[near], delta[near], dist[near],
                           slack[near])
        if found is None:  # a whole-dataset pass is cheaper; pairs stay uncached
            return None
        for p, entry in zip(near.tolist(), found, strict=True):
            entries[p] = entry
    store.add_pairs([genes[u] for u, _ in missing], [genes[v] for _, v in missing], entries)
    return entries

def _side_hits(store: GeneStore, t: Table, own: dict[int, np.ndarray], J: np.ndarray,
               M: np.ndarray, delta: np.ndarray, dist: np.ndarray,
               slack: np.ndarray) -> list[np.ndarray] | None:
    """Steps 2 and 3 of `overlap_pairs` for pairs (J, M): captured points per pair.

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
    groups = _query_groups(genes, q_side, e_side)
    hi = np.concatenate([proj.max(axis=0) for _, _, _, proj in groups])
    # The lower bound lb = dist + min_y (y - c_t).e - (x - c_q).e (the min over the
    # target is minus the reverse side's largest projection) fails to exclude x when
    # lb (1 - rel) - slack <= sqrt(o(x) (1 + rel)), the test of `maybe_within`, i.e.
    # when (x - c_q).e + reach(x) >= dist - hi_reverse - slack / (1 - rel), with
    # reach(x) = sqrt(o(x) (1 + rel)) / (1 - rel).
    base = dist[pair_side] - hi[reverse] - slack[pair_side] / (1.0 - REL)
    budget = (store.tuning.global_cost * store.layout.n_samples * t.n_genotypes if store.low_dims
              else math.inf)

    def survivors(start: int, stop: int, q: int, proj: np.ndarray, step: int) -> np.ndarray:
        reach = genes[q].own_reach
        assert reach is not None  # measured for every gene above
        return proj[::step] + reach[::step, None] >= base[None, start:stop]

    if sum(proj.size for *_, proj in groups) > budget:
        # estimate from every 8th point first: a pass that is bound to exceed the
        # budget is not worth finishing (timing only: both paths are exact)
        sample = sum(np.count_nonzero(survivors(*g, 8)) for g in groups)
        if 8 * sample > budget:
            return None
    found_sides, found_points = [], []
    count = 0
    for start, stop, q, proj in groups:
        rows, sides = nonzero2(survivors(start, stop, q, proj, 1))
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
    elif store.low_dims:
        hit = _tree_side_hits(store, t, q_side[s_c], t_side[s_c], point, own_all[point])
    else:
        hit = _dense_side_hits(store, t, J, M, pair_side, q_side[s_c], s_c, point,
                                    own_all)
    return _entries_by_pair(store, t, pair_side[s_c[hit]], q_side[s_c[hit]], point[hit],
                            n_pairs)


def _query_groups(genes: list[GeneEntry], q_side: np.ndarray, e_side: np.ndarray
                  ) -> list[tuple[int, int, int, np.ndarray]]:
    """The sides grouped by query gene: one matrix product per query gene.

    Each group is (first side, end side, query slot, projections (n_q, sides)); the sides
    are sorted by query slot.
    """
    q_list = q_side.tolist()
    groups = []
    start = 0
    while start < len(q_list):
        q = q_list[start]
        stop = start + 1
        while stop < len(q_list) and q_list[stop] == q:
            stop += 1
        g = genes[q]
        groups.append((start, stop, q, (g.points - g.centroid) @ e_side[start:stop].T))
        start = stop
    return groups


def _entries_by_pair(store: GeneStore, t: Table, pair: np.ndarray, query: np.ndarray,
                     point: np.ndarray, n_pairs: int) -> list[np.ndarray]:
    """The captured data rows of each pair, sorted, read-only (`EMPTY` for none).

    ``pair``, ``query`` and ``point`` describe each captured point: its pair, its
    query gene and its table row.
    """
    n = store.layout.n_samples
    if t.data_offs is not None:  # table rows to data rows
        point = point - t.offs_arr[query] + t.data_offs[query]
    found = pair * n + point
    found.sort()
    cuts = np.searchsorted(found, np.arange(n_pairs + 1) * n).tolist()
    found = (found % n).astype(np.int32)
    out = []
    for p in range(n_pairs):
        if cuts[p] == cuts[p + 1]:
            out.append(EMPTY)
        else:
            entry = found[cuts[p]:cuts[p + 1]].copy()
            entry.setflags(write=False)
            out.append(entry)
    return out


def _tree_side_hits(store: GeneStore, t: Table, q_c: np.ndarray, t_c: np.ndarray, point: np.ndarray,
                    o_c: np.ndarray) -> np.ndarray:
    """Exact test of candidate query points with the targets' KD-trees.

    Candidates: query gene ``q_c``, target gene ``t_c``, table row ``point`` and
    threshold ``o_c``; one `tree_hits` call per target gene.
    """
    X, genes = t.X, t.entries
    if _compiled.available(point.size):
        # one compiled sweep for every target: the same decisions, no KD-trees needed
        return _compiled.sweep_hits(X, t.offs_arr, point, o_c, t_c)
    maxabs = np.array([e.maxabs for e in genes])
    hit = np.zeros(point.size, dtype=bool)
    by_target = np.argsort(t_c, kind="stable")
    bounds = np.searchsorted(t_c[by_target], np.arange(len(genes) + 1)).tolist()
    for u in range(len(genes)):
        if bounds[u] == bounds[u + 1]:
            continue
        sel = by_target[bounds[u]:bounds[u + 1]]
        gt = genes[u]
        shape = store.tree_shape(t.slots[u], t.genes[u])
        mag = max(gt.maxabs, shape.maxabs, float(maxabs[q_c[sel]].max()))
        hit[sel] = tree_hits(X[point[sel]], o_c[sel], gt.points, gt.mean, shape.tree,
                              abs_slack(store.layout.n_dims, mag))
    return hit

def _dense_side_hits(store: GeneStore, t: Table, J: np.ndarray, M: np.ndarray,
                     pair_side: np.ndarray, q_c: np.ndarray, s_c: np.ndarray,
                     point: np.ndarray, own_all: np.ndarray) -> np.ndarray:
    """Exact test of candidate query points by matrix products, grouped by pivot.

    Pairs are covered by pivot genes (`_pivot_cover`). Per pivot (`dense_hits`): its
    candidate rows against every point of its partners that have candidates, which
    settles both directions for them, then its other rows against the partners'
    candidates alone. ``own_all`` holds the own-cluster thresholds by table row; genes
    are the table's (``q_c``, ``J``, ``M``).
    """
    X = t.X
    Q, qn = dense_operands(X)
    if Q.dtype == np.float32 and _compiled.native():
        # the same pivots and blocks in one compiled call, without the Python around
        # each pivot's products (BENCHMARKS.md, "The pivots in C")
        found = _compiled.pivot_hits(Q, qn, X, own_all, t.offs_arr, J, M, pair_side[s_c],
                                     q_c, point, limit_terms32(X.shape[1]), BLOCK_ELEMENTS)
        if found is not None:
            return found
    offs = t.offs_arr
    hit = np.zeros(point.size, dtype=bool)
    pivots, pivot_of_pair, pair_cut, partner_gene, place = _pivot_cover(J, M, len(t.entries))
    # candidates grouped by pivot too, once per pass, not masked again for each pivot
    pair_c = pair_side[s_c]
    pivot_c = pivot_of_pair[pair_c]
    cand_order = np.argsort(pivot_c, kind="stable")
    cand_cut = np.searchsorted(pivot_c[cand_order], np.arange(pivots.size + 1)).tolist()
    place_c = place[pair_c]
    from_pivot_c = q_c == pivots[pivot_c]
    for k, pivot in enumerate(pivots.tolist()):
        in_group = cand_order[cand_cut[k]:cand_cut[k + 1]]
        if not in_group.size:
            continue
        partners = partner_gene[pair_cut[k]:pair_cut[k + 1]]
        partner_c = place_c[in_group]
        from_pivot = from_pivot_c[in_group]
        active = np.zeros(partners.size, dtype=bool)
        active[partner_c] = True
        act = np.flatnonzero(active)
        act_genes = partners[act]
        sizes = t.sizes_arr[act_genes]
        col_end = np.cumsum(sizes)
        # columns: every point of the active partners, in partner order
        col_rows = (np.arange(int(col_end[-1]))
                    + np.repeat(offs[act_genes] - (col_end - sizes), sizes))
        seg = np.repeat(np.arange(act.size), sizes)
        col_start = np.zeros(len(t.entries), dtype=np.intp)  # by gene
        col_start[act_genes] = col_end - sizes
        seg_of_partner = np.full(partners.size, -1, dtype=np.intp)
        seg_of_partner[act] = np.arange(act.size)
        o_cols = own_all[col_rows]
        # rows: the pivot's points, candidates for some partner first
        p0, n0 = int(offs[pivot]), int(t.sizes_arr[pivot])
        mine = in_group[from_pivot]
        live = np.zeros(n0, dtype=bool)
        live[point[mine] - p0] = True
        rows = np.flatnonzero(live) + p0
        rows_hit, cols_hit = dense_hits(Q, qn, X, rows, col_rows, own_all[rows], o_cols,
                                         seg, act.size)
        to_pivot = in_group[~from_pivot]
        q_to = q_c[to_pivot]
        cand_cols = col_start[q_to] + (point[to_pivot] - offs[q_to])
        rest = np.flatnonzero(~live) + p0
        if rest.size and cand_cols.size:
            _, ch = dense_hits(Q, qn, X, rest, col_rows[cand_cols], None,
                               o_cols[cand_cols], seg[cand_cols], act.size)
            cols_hit[cand_cols] |= ch
        hit[to_pivot] = cols_hit[cand_cols]
        hit[mine] = rows_hit[np.searchsorted(rows, point[mine]),
                             seg_of_partner[partner_c[from_pivot]]]
    return hit


def _pivot_cover(J: np.ndarray, M: np.ndarray, n_genes: int
                 ) -> tuple[np.ndarray, np.ndarray, list[int], np.ndarray, np.ndarray]:
    """Pivot genes covering the pairs (J, M), and the pairs grouped by pivot.

    Greedy: the gene in most pairs not yet covered (the first such gene on a tie) takes
    them all, until every pair has its pivot. Returns the pivots, each pair's pivot
    number, the groups' bounds in pivot order (group k: ``cut[k]:cut[k + 1]``, pairs in
    their original order), each pair's other gene in that order, and each pair's
    position in its group.
    """
    pivots: list[int] = []
    pivot_of_pair = np.empty(J.shape[0], dtype=np.intp)
    left = np.ones(J.shape[0], dtype=bool)
    while left.any():
        count = (np.bincount(J[left], minlength=n_genes)
                 + np.bincount(M[left], minlength=n_genes))
        pivot = int(count.argmax())
        in_pivot = left & ((J == pivot) | (M == pivot))
        pivot_of_pair[in_pivot] = len(pivots)
        pivots.append(pivot)
        left &= ~in_pivot
    pivot_arr = np.array(pivots, dtype=np.intp)
    order = np.argsort(pivot_of_pair, kind="stable")
    cut = np.searchsorted(pivot_of_pair[order], np.arange(len(pivots) + 1))
    place = np.empty(J.shape[0], dtype=np.intp)
    place[order] = np.arange(J.shape[0]) - np.repeat(cut[:-1], np.diff(cut))
    other = np.where(J == pivot_arr[pivot_of_pair], M, J)[order]
    return pivot_arr, pivot_of_pair, cut.tolist(), other, place

def grid_pass(store: GeneStore) -> bool:
    """Whether this evaluation takes the compiled whole-dataset pass (two dimensions).

    Where the C kernels were built (`_compiled.native`): they load in a millisecond, so
    from a run's first evaluation.
    """
    return store.layout.n_dims == _compiled.GRID_DIMS and _compiled.native()


def _overlap_full(store: GeneStore, genes: list[GeneEntry]) -> float:
    """Overlap from one plain pass over the whole dataset (no pair is cached)."""
    return overlap_of_points(store, store.points(genes), pairs_follow=True)


def overlap_of_points(store: GeneStore, X: np.ndarray, *, pairs_follow: bool = False
                      ) -> float:
    """Overlap of the layout's data ``X`` (rows in slot order), in one plain pass.

    The compiled grid pass where `grid_pass` holds; otherwise `overlap_flags`: one
    KD-tree, the 3 nearest neighbours of every point (more only for ties and
    duplicates). Both are equivalent to the pair criterion ``0 < s(x, y) <= o(x)`` for a
    foreign y, and need no ``o``: the same flags, bit for bit. ``pairs_follow``: later
    evaluations may compute gene pairs (Index mode), so a KD-tree pass counts its 3 N
    candidates towards the switch to numba's sweeps; a Versus evaluation's never does.
    """
    grid = grid_pass(store)
    if not grid and pairs_follow:
        _compiled.available(3 * X.shape[0])
    flags = _compiled.grid_overlap_flags(X, store.codes) if grid else None
    if flags is None:
        flags = overlap_flags(X, store.codes)
    return float(np.count_nonzero(flags) / X.shape[0])
