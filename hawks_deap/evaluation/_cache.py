"""The gene and shape cache of one run layout, bounded by bytes.

Every cached value is a pure function of its key (a slot and the content keys of genes
or shapes), so results never depend on the cache's history or budget. `GeneStore`
owns the cache of one layout and the lookups every incremental computation starts from:
a gene's shape (`Shape`: the mean-free points, which translation leaves unchanged) and
its points (`GeneEntry`).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from hawks_deap._util.validation import check_int
from hawks_deap.evaluation import _compiled
from hawks_deap.evaluation._kernels import EPS, KDTREE_MAX_DIMS, REL, SMALL_CLUSTER
from hawks_deap.genome.products import shape_points

__all__ = ["ByteLRU", "GeneEntry", "GeneStore", "Shape", "Tuning"]


def nbytes_of(value: Any) -> int:
    """Bytes held by a cache value: arrays, tuples of arrays, or objects with ``nbytes``."""
    if isinstance(value, np.ndarray):  # the most frequent: pair entries
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(nbytes_of(v) for v in value)
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

    def get(self, key: object) -> Any:
        """The value for ``key`` (marked most recently used), or None.

        Parameters
        ----------
        key : hashable
            The entry's key.

        Returns
        -------
        object or None
            The stored value (a hit), or None if ``key`` is not held (a miss).
        """
        value = self._data.get(key)
        if value is None:
            self.misses += 1
            return None
        self._data.move_to_end(key)
        self.hits += 1
        return value

    def absent(self, keys: Iterable) -> list:
        """The keys not held (no entry is touched, no hit or miss counted).

        Parameters
        ----------
        keys : iterable of hashable
            The keys to look up.

        Returns
        -------
        list
            The keys of ``keys`` that have no entry, in their order.
        """
        data = self._data
        return [key for key in keys if key not in data]

    def get_many(self, keys: Sequence) -> list:
        """`get` for many keys at once (None where missing).

        Parameters
        ----------
        keys : sequence of hashable
            The keys to look up; each one held is marked most recently used, in order.

        Returns
        -------
        list
            One value or None per key, in the order of ``keys``.
        """
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
        """Store ``value``, evicting least recently used entries beyond the budget.

        Parameters
        ----------
        key : hashable
            The entry's key; an entry already held under it is replaced.
        value : object
            A numpy array, a tuple or list of them, or an object with ``nbytes``. If it
            exceeds the whole budget (its bytes plus `OVERHEAD`), it is not stored (and the
            old entry is dropped).
        """
        self.put_many((key,), (value,))

    def put_many(self, keys: Sequence, values: Sequence) -> None:
        """`put` for many entries, in order.

        Parameters
        ----------
        keys, values : sequence
            The keys and their values, as for `put`, of the same length (``ValueError``
            otherwise, before anything is stored).
        """
        if len(keys) != len(values):  # checked first: a failure midway would skew nbytes
            raise ValueError(f"keys and values must have the same length, got {len(keys)} "
                             f"and {len(values)}")
        data, sizes, budget, overhead = self._data, self._sizes, self.max_bytes, self.OVERHEAD
        nbytes = self.nbytes
        for key, value in zip(keys, values, strict=True):
            size = nbytes_of(value) + overhead
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



class Shape:
    """What a gene's shape (variances, rotation) fixes in one slot: the mean-free points.

    ``p0 = z_k diag(sqrt(lambda)) R^T``, with what translations leave unchanged: its
    centroid ``c0``, scatter, radius (largest distance to ``c0``) and largest norm;
    when needed, a KD-tree on p0 (`ensure_tree`), the nearest-neighbour certificate
    (`set_own`) and the Euclidean intra-cluster row sums. Built from p0 alone, or with
    ``c0`` and ``sq`` (the squared distances to it) already measured with the same bits
    (`of_gene`).
    """

    __slots__ = ("p0", "_maxabs", "c0", "scatter", "radius", "_maxnorm", "tree", "eu_intra",
                 "own_idx", "own_margin", "step_range")

    def __init__(self, p0: np.ndarray, c0: np.ndarray | None = None,
                 sq: np.ndarray | None = None) -> None:
        p0.setflags(write=False)
        self.p0 = p0
        if c0 is None or sq is None:
            c0 = _compiled.col_means(p0)  # p0.mean(axis=0), its bits
            diff = p0 - c0
            sq = np.einsum("ij,ij->i", diff, diff)
        self.c0 = c0
        self.scatter = float(sq.sum())
        self.radius = float(np.sqrt(sq.max()))
        # bounds that only the pairs of genes use (not the two-dimensional grid pass): on
        # first use; at N = 100,000 a pool's workers each build most genes' entries
        self._maxabs: float | None = None
        self._maxnorm: float | None = None
        self.tree: cKDTree | None = None
        self.eu_intra: np.ndarray | None = None
        self.own_idx: np.ndarray | None = None
        self.own_margin: np.ndarray | None = None
        # (min, max) over points of the exact distance to a fixed other point of the
        # shape (`hawks_deap.evaluation._thresholds.reach_bound`)
        self.step_range: tuple[float, float] | None = None

    @classmethod
    def of_gene(cls, z: np.ndarray, variances: np.ndarray, rotation: np.ndarray) -> Shape:
        """The shape of a gene's variances and rotation on the draws ``z`` of its slot.

        In two dimensions one compiled call gives p0 with what `__init__` measures of it
        (`_compiled.shape_2d`, the same bits): a covariance mutation's new shape cost
        seven numpy calls (BENCHMARKS.md, "New shapes in one call").
        """
        compiled = _compiled.shape_2d(z, variances, rotation)
        if compiled is not None:
            return cls(*compiled)
        return cls(shape_points(z, variances, rotation))

    @property
    def maxabs(self) -> float:
        """Largest absolute coordinate of p0."""
        if self._maxabs is None:
            self._maxabs = float(np.abs(self.p0).max()) if self.p0.size else 0.0
        return self._maxabs

    @property
    def maxnorm(self) -> float:
        """Largest norm of a row of p0."""
        if self._maxnorm is None:
            self._maxnorm = float(np.sqrt(np.einsum("ij,ij->i", self.p0, self.p0).max()))
        return self._maxnorm

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
        if self.own_idx is not None and self.own_margin is not None:  # set together
            size += self.own_idx.nbytes + self.own_margin.nbytes
        return size

    def set_own(self, nearest: np.ndarray, a: np.ndarray, b: np.ndarray,
                valid: np.ndarray) -> None:
        """Store every point's nearest neighbour ``l*`` with its translation margin.

        For a gene ``P = fl(mu + p0)`` whose translation slack (`abs_slack`) is below
        ``own_margin[i]``, ``l*`` is the unique point at the smallest positive distance
        from point i, so ``o(i) = s(P_i, P_l*)`` exactly: with ``a`` the distance to
        ``l*`` and ``b`` a lower bound on the distance to any other point (relative
        margins `REL`), the margin is ``min((b - a) / 2, a)``; rows not ``valid``
        (duplicates, near ties) get ``-inf``. See `hawks_deap.evaluation._thresholds.certify`.
        """
        margin = np.full(a.shape[0], -math.inf)
        with np.errstate(invalid="ignore"):
            m = np.minimum(0.5 * (b * (1.0 - REL) - a * (1.0 + REL)), a * (1.0 - REL))
        margin[valid] = m[valid]
        self.own_idx, self.own_margin = nearest, margin


class GeneEntry:
    """What a gene fixes in one slot: its points ``fl(mu + p0)`` and their summaries.

    Centroid ``mu + c0``, scatter and radius come from the shape (translation leaves
    them unchanged, up to rounding far below the margins of the bounds using them);
    ``maxabs`` and ``maxnorm`` bound the magnitudes of the mean and of the points.

    ``uid`` numbers the entry in its store, never twice: it stands for the slot and the
    gene's content while the entry lives. ``partners[uid]`` holds what this gene and the
    gene of entry ``uid`` in a later slot give together: their overlap entry (the data
    rows one captures from the other, `hawks_deap.evaluation._overlap`), and
    ``eu_partners[uid]`` their Euclidean distance sums (`hawks_deap.evaluation._silhouette`);
    `add_partner` stores one, counted in `nbytes`.
    """

    __slots__ = ("points", "mean", "centroid", "scatter", "_maxabs", "radius", "_maxnorm",
                 "own_nn", "own_reach", "own_max", "ctx_keys", "ctx_d2", "own_d2", "uid",
                 "partners", "eu_partners", "partner_bytes", "_points_t", "ckey")

    #: Bytes charged per pair entry on top of its array (dictionary slot, key).
    PAIR_OVERHEAD = 104

    def __init__(self, mean: np.ndarray, shape: Shape, uid: int, ckey: tuple) -> None:
        self.uid = uid
        self.ckey = ckey  # its key in the store's cache
        self.partners: dict[int, np.ndarray] = {}
        self.eu_partners: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.partner_bytes = 0
        # mu + p0: the same arithmetic as Cluster.sample, so the same bits as X.
        points = mean + shape.p0
        points.setflags(write=False)
        self.points = points
        self.mean = mean
        self.centroid = mean + shape.c0
        self.scatter = shape.scatter
        self.radius = shape.radius
        self._maxabs: float | None = None
        self._maxnorm: float | None = None
        self.own_nn: np.ndarray | None = None
        self.own_reach: np.ndarray | None = None  # sqrt(o) with margins, for the overlap
        self.own_max = math.inf
        self.ctx_keys: list[str] | None = None
        self.ctx_d2: np.ndarray | None = None
        self.own_d2: np.ndarray | None = None
        self._points_t: np.ndarray | None = None

    # The two bounds below serve the pairs of genes only (not the two-dimensional grid
    # pass): measured on first use. Each bounds the mean and the points' mean-free parts
    # together (``|mu| + |p0|``, the magnitudes that translating a query meets):
    # ``p0 = points - mu`` up to rounding, so ``2 |mu| + |points|`` with a rounding margin.

    @property
    def maxabs(self) -> float:
        """An upper bound on ``|mu| + |p0|`` over coordinates (so on the points' too)."""
        if self._maxabs is None:
            mu = float(np.abs(self.mean).max()) if self.mean.size else 0.0
            pts = float(np.abs(self.points).max()) if self.points.size else 0.0
            self._maxabs = (2.0 * mu + pts) * (1.0 + 8.0 * EPS)
        return self._maxabs

    @property
    def maxnorm(self) -> float:
        """An upper bound on ``|mu| + |p0|`` over rows, in norm (so on the points' too)."""
        if self._maxnorm is None:
            mu = float(np.sqrt(self.mean @ self.mean))
            pts = (float(np.sqrt(np.einsum("ij,ij->i", self.points, self.points).max()))
                   if self.points.size else 0.0)
            self._maxnorm = (2.0 * mu + pts) * (1.0 + 8.0 * EPS)
        return self._maxnorm

    @property
    def points_t(self) -> np.ndarray:
        """The points transposed (D x n, C order), for the compiled silhouette's lanes."""
        if self._points_t is None:
            self._points_t = np.ascontiguousarray(self.points.T)
        return self._points_t

    def add_partner(self, uid: int, entry: Any, euclidean: bool = False) -> None:
        """Keep this gene's pair entry with the gene of entry ``uid``, a later slot's.

        The overlap entry, or with ``euclidean`` the distance sums.
        """
        table = self.eu_partners if euclidean else self.partners
        old = table.get(uid)
        if old is not None:
            self.partner_bytes -= nbytes_of(old) + self.PAIR_OVERHEAD
        table[uid] = entry
        self.partner_bytes += nbytes_of(entry) + self.PAIR_OVERHEAD

    @property
    def nbytes(self) -> int:
        size = self.points.nbytes + 4 * self.centroid.nbytes + self.partner_bytes
        if self.own_nn is not None and self.own_reach is not None:  # set together
            size += self.own_nn.nbytes + self.own_reach.nbytes
        if self.ctx_d2 is not None and self.own_d2 is not None:  # set together
            size += self.ctx_d2.nbytes + self.own_d2.nbytes
        if self._points_t is not None:
            size += self._points_t.nbytes
        return size



@dataclass(frozen=True)
class Tuning:
    """Sizes at which the evaluator switches between exact paths.

    Every path gives the same bits; these choose only the fastest one for a size (the
    measurements behind them are in BENCHMARKS.md). Tests set them to force each path.

    Attributes
    ----------
    tree_min_size : int
        The overlap uses KD-trees up to D=4, and up to
        `hawks_deap.evaluation._kernels.KDTREE_MAX_DIMS` when clusters hold at least this
        many points on average; matrix products otherwise.
    global_cost : float
        Cost of a whole-dataset overlap pass, in KD-tree queries per point: when more
        candidate points are left than this budget, one plain pass replaces the pairs.
    direct_silhouette : int
        Up to this N K D, the closed-form silhouette measures the whole K x N block of
        squared distances to the centroids at every evaluation.
    slotwise_silhouette : int
        Above this N K, the closed-form silhouette is reduced slot by slot.
    small_cluster : int
        Clusters with n^2 D up to this get their own-cluster distances from one ``cdist``
        block.
    prefetch_points : int
        Points (summed over the two genes of each pair) of the missing overlap pairs a
        generation's batch computes together.
    """

    tree_min_size: int = 400
    global_cost: float = 8.0
    direct_silhouette: int = 1 << 18
    slotwise_silhouette: int = 1 << 18
    small_cluster: int = SMALL_CLUSTER
    prefetch_points: int = 1 << 18


class GeneStore:
    """The cache of one layout, with the lookups of shapes, genes and datasets.

    Parameters
    ----------
    layout : Layout
        The run's layout (sizes and common random numbers).
    cache_bytes : int
        Budget of the cache, least recently used entries first out.
    tuning : Tuning
        Path choices (speed only).

    Notes
    -----
    Cache keys: ``("s", slot, shape key)`` a `Shape`; ``("g", slot, gene key)`` a
    `GeneEntry`; ``("z", slot, axis, level)`` the two-dimensional neighbour tables of
    `hawks_deap.evaluation._thresholds`. What a pair of genes gives together (the points
    one captures from the other, their Euclidean distance sums) is held by the gene
    entry of the lower slot (`GeneEntry.partners`, `pair_entries`), so that it lives and
    is evicted with it. An entry that grows after being stored is put again, so that the
    budget counts it.
    """

    def __init__(self, layout: Any, cache_bytes: int, tuning: Tuning) -> None:
        self.layout = layout
        self.cache = ByteLRU(cache_bytes)
        self.tuning = tuning
        self.codes = np.asarray(layout.labels, dtype=np.intp)
        self.counts = np.asarray(layout.sizes, dtype=float)
        self.sizes = [int(n) for n in layout.sizes]
        self.offsets = [int(o) for o in layout.offsets]
        self.offsets_arr = np.asarray(layout.offsets, dtype=np.intp)
        self.sizes_arr = np.asarray(layout.sizes, dtype=np.intp)
        d, mean_size = layout.n_dims, layout.n_samples / layout.n_clusters
        self.low_dims = d <= KDTREE_MAX_DIMS and (d <= 4 or mean_size >= tuning.tree_min_size)
        k = layout.n_clusters
        self.pairs = [(j, m) for j in range(k) for m in range(j + 1, k)]
        self._uids = 0  # the numbers given to gene entries (`GeneEntry.uid`)
        self.rows = np.arange(layout.n_samples)
        self.own_n = self.counts[self.codes]
        self.multi = self.own_n > 1  # s(i) = 0 for a point alone in its cluster
        self.own_n1 = np.where(self.multi, self.own_n - 1.0, 1.0)
        self.z_step_table: dict[int, np.ndarray | None] = {}  # per slot, see _thresholds
        self._reset()

    def _reset(self) -> None:
        self._shape_keys: dict[str, str] = {}
        self._last: tuple[list[str], list[GeneEntry]] = ([], [])
        self._last_points: tuple[list[GeneEntry], np.ndarray] | None = None
        # what the last prefetch (`_overlap.prefetch_overlap`) found of each genotype, by
        # gene keys: its gene entries and its overlap (None: left to its evaluation)
        self.prefetched: dict[tuple[str, ...], tuple[list[GeneEntry], float | None]] = {}

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["cache"] = ByteLRU(self.cache.max_bytes)  # caches are not shipped
        state["z_step_table"] = {}
        state.update(_shape_keys={}, _last=([], []), _last_points=None, prefetched={})
        return state

    def shape_key(self, gene: Any) -> str:
        """The gene's shape key (memoised: it hashes the variances and rotation)."""
        key = self._shape_keys.get(gene.key)
        if key is None:
            if len(self._shape_keys) > 200_000:
                self._shape_keys.clear()
            key = self._shape_keys[gene.key] = gene.shape_key
        return key

    def shape(self, slot: int, gene: Any) -> Shape:
        """The `Shape` of a gene in a slot (cached)."""
        ckey = ("s", slot, self.shape_key(gene))
        shape = self.cache.get(ckey)
        if shape is None:
            z = self.layout.z[slot]
            shape = Shape.of_gene(z, gene.variances, gene.rotation)
            self.cache.put(ckey, shape)
        return shape

    def put_shape(self, slot: int, gene: Any, shape: Shape) -> None:
        """Store a shape again after it grew (tree, certificate, sums)."""
        self.cache.put(("s", slot, self.shape_key(gene)), shape)

    def tree_shape(self, slot: int, gene: Any) -> Shape:
        """The `Shape` of a gene with its KD-tree built."""
        shape = self.shape(slot, gene)
        if shape.tree is None:
            shape.ensure_tree()
            self.put_shape(slot, gene, shape)
        return shape

    def gene(self, slot: int, gene: Any) -> GeneEntry:
        """The `GeneEntry` of a gene in a slot (cached)."""
        ckey = ("g", slot, gene.key)
        entry = self.cache.get(ckey)
        if entry is None:
            entry = GeneEntry(gene.mean, self.shape(slot, gene), self._uids, ckey)
            self._uids += 1
            self.cache.put(ckey, entry)
        return entry

    def pair_entries(self, entries: list[GeneEntry], euclidean: bool = False) -> list:
        """A genotype's pair entries, in `pairs` order (None: missing).

        Overlap entries, or with ``euclidean`` the distance sums, read from each lower
        slot's gene entry (`GeneEntry.partners`), one C-level ``map`` per slot: a
        genotype's K (K - 1) / 2 lookups by tuple keys in the shared cache took longer
        (BENCHMARKS.md, "Pair entries on the gene entries").
        """
        uids = [e.uid for e in entries]
        out: list = []
        for j, e in enumerate(entries[:-1]):
            table = e.eu_partners if euclidean else e.partners
            out.extend(map(table.get, uids[j + 1:]))
        return out

    def add_pairs(self, owners: list[GeneEntry], partners: list[GeneEntry], values: list,
                  euclidean: bool = False) -> None:
        """Keep new pair entries on their lower slot's gene entry, counted in the budget.

        Pair i is ``owners[i]`` (the lower slot's gene entry) with ``partners[i]``; its
        value goes to the owner (`GeneEntry.add_partner`: the overlap entry, or with
        ``euclidean`` the distance sums), and every entry that grew is put in the cache
        again.
        """
        grown: dict[int, GeneEntry] = {}
        for owner, partner, value in zip(owners, partners, values, strict=True):
            owner.add_partner(partner.uid, value, euclidean)
            grown[owner.uid] = owner
        self.put_genes(list(grown.values()))

    def put_gene(self, entry: GeneEntry) -> None:
        """Store a gene entry again after it grew."""
        self.put_genes([entry])

    def put_genes(self, grown: Sequence[GeneEntry]) -> None:
        """Store gene entries again after they grew."""
        self.cache.put_many([e.ckey for e in grown], grown)

    def genes(self, genotype: Sequence) -> tuple[list[str], list[GeneEntry]]:
        """Gene keys and entries of a genotype (the last one's and prefetched ones' reused)."""
        keys = [g.key for g in genotype]
        last_keys, last_entries = self._last
        if keys == last_keys:
            return keys, last_entries
        found = self.prefetched.get(tuple(keys)) if self.prefetched else None
        if found is not None:
            entries = found[0]
        else:
            self.layout.check(genotype)
            entries = [self.gene(k, g) for k, g in enumerate(genotype)]
        self._last = (keys, entries)
        return keys, entries

    def points(self, entries: list[GeneEntry]) -> np.ndarray:
        """The dataset X of a list of gene entries (kept for the last genotype)."""
        last = self._last_points
        if last is not None and last[0] is entries:
            return last[1]
        X = np.concatenate([e.points for e in entries])
        self._last_points = (entries, X)
        return X
