"""The `Evaluator` facade: exact, incremental silhouette and overlap of genotypes.

It ties the pieces of the engine to one run layout: the gene and shape cache
(`hawks_deap.evaluation._cache`), the incremental silhouette
(`hawks_deap.evaluation._silhouette`) and overlap (`hawks_deap.evaluation._overlap`), and
their exact references (`hawks_deap.evaluation.reference`), which `NaiveEvaluator`
calls on the whole dataset at every evaluation.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import numpy as np

from hawks_deap._util.threads import blas_thread_limit
from hawks_deap._util.validation import check_choice, check_int, check_X
from hawks_deap.evaluation import _compiled
from hawks_deap.evaluation._cache import ByteLRU, GeneStore, Tuning
from hawks_deap.evaluation._overlap import (
    grid_pass,
    overlap,
    overlap_of_points,
    prefetch_overlap,
)
from hawks_deap.evaluation._silhouette import silhouette_eu, silhouette_sq
from hawks_deap.evaluation.reference import (
    SILHOUETTE_METRICS,
    NaiveEvaluator,
    silhouette_from_sums,
    silhouette_sums_euclidean,
    silhouette_sums_sqeuclidean,
)

__all__ = ["EVALUATORS", "Evaluator", "make_evaluator"]

#: Evaluator names accepted by `make_evaluator` (and ``IndexProblem(evaluator=...)``).
EVALUATORS = ("fast", "naive")

# one stateless, re-entrant context for evaluators without a thread cap: every evaluation
# enters it several times
_NO_LIMIT: AbstractContextManager[None] = nullcontext()


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
    tuning : Tuning, optional
        Sizes at which exact paths switch (speed only; tests use it to force a path).

    Notes
    -----
    Cached by content keys, so a gene never evaluated before costs work only for the
    blocks that involve it:

    - per (slot, shape key): the mean-free points ``p0`` with their centroid, scatter
      and radius, every point's nearest neighbour with the rounding margin that keeps
      it the nearest under translation, in low dimension a KD-tree on ``p0``, and for the
      Euclidean silhouette the intra-cluster row sums;
    - per (slot, gene key): the points ``mu + p0``, the own-cluster thresholds ``o(i)``
      and, for large N K D, the squared distances of its points to the centroids of the
      genotype it was last evaluated in;
    - per pair of (slot, gene key): the points of each cluster captured by the other
      (overlap) and, for the Euclidean silhouette, the row and column sums of their
      distance block.

    Every cached value is a pure function of its key, so results do not depend on the
    cache's history or budget (only on the layout). Overlap is exact; the silhouette
    equals ``sklearn.metrics.silhouette_score`` up to rounding (1e-12 relative). The
    closed forms work on absolute coordinates, so far from the origin they lose digits
    to cancellation: against the exact silhouette of the centred data, 5 clusters with
    variances in (0, 0.5) measured 1e-15 at means ~1e3, 1e-12 at ~1e6 and 1e-10 at
    ~1e9 (HAWKS' means stay within tens of the origin). Memory:
    the budget counts the arrays held plus `ByteLRU.OVERHEAD` bytes per entry; nothing
    of size N x N is ever built.
    """

    def __init__(self, layout: Any, *, metric: str = "sqeuclidean",
                 cache_bytes: int = 512 * 2**20, threads: int | None = 1,
                 tuning: Tuning | None = None) -> None:
        self.metric = check_choice("metric", metric, SILHOUETTE_METRICS)
        self.threads = None if threads is None else check_int("threads", threads, minimum=1)
        cache_bytes = check_int("cache_bytes", cache_bytes, minimum=0)
        self.store = GeneStore(layout, cache_bytes, Tuning() if tuning is None else tuning)

    @property
    def layout(self) -> Any:
        """The layout evaluated."""
        return self.store.layout

    @property
    def cache(self) -> ByteLRU:
        """The cache of every entry (`ByteLRU.stats` for its figures)."""
        return self.store.cache

    def limit_threads(self) -> AbstractContextManager[None]:
        """Context in which BLAS uses at most ``threads`` threads (no-op if None)."""
        return _NO_LIMIT if self.threads is None else blas_thread_limit(self.threads)

    def _layout_data(self, X: np.ndarray) -> np.ndarray:
        """``X`` checked: finite, and one row per point of the layout."""
        X = check_X(X, "data")
        layout = self.store.layout
        expected = (int(layout.sizes.sum()), layout.n_dims)
        if X.shape != expected:
            raise ValueError(f"data must have the layout's shape {expected}, got {X.shape}")
        return X

    def points(self, genotype: Sequence) -> np.ndarray:
        """The dataset X of a genotype, shape (N, D) (bit-identical to ``layout.sample``).

        Parameters
        ----------
        genotype : Genotype
            One gene per cluster of the layout.

        Returns
        -------
        numpy.ndarray of shape (N, D)
            A new array (the caller may write to it), clusters in slot order.

        Raises
        ------
        ValueError
            If the genotype does not fit the layout (number of genes, dimension).
        """
        store = self.store
        return store.points(store.genes(genotype)[1]).copy()  # the caller may write to it

    def silhouette(self, data: Any) -> float:
        """Mean silhouette (Eq. 2) of a genotype under the evaluator's metric.

        Parameters
        ----------
        data : Genotype or array of shape (N, D)
            A genotype (fast path, cached) or its data X (plain computation).
        """
        store = self.store
        if isinstance(data, np.ndarray):
            data = self._layout_data(data)
            k = store.layout.n_clusters
            if self.metric == "sqeuclidean":
                sums = silhouette_sums_sqeuclidean(data, store.codes, k)
            else:
                sums = silhouette_sums_euclidean(data, store.codes, k)
            return float(np.mean(silhouette_from_sums(sums, store.codes, store.counts)))
        with self.limit_threads():
            keys, genes = store.genes(data)
            if self.metric == "sqeuclidean":
                return silhouette_sq(store, keys, genes)
            return silhouette_eu(store, data, genes)

    def overlap(self, data: Any) -> float:
        """Overlap (Eq. 5) of a genotype: fraction of points with a foreign nearest neighbour.

        Parameters
        ----------
        data : Genotype or array of shape (N, D)
            A genotype (fast path, cached) or its data X (plain computation).
        """
        if isinstance(data, np.ndarray):
            # the whole-data pass an Index evaluation takes (the compiled grid in 2-D)
            return overlap_of_points(self.store, self._layout_data(data))
        with self.limit_threads():
            return overlap(self.store, data)

    def expect(self, evaluations: int) -> None:
        """Hear how many overlap evaluations a run is about to make.

        In low dimension a run long enough to pay for loading numba's kernels
        (`hawks_deap.evaluation._compiled.plan`) loads them now, so all its evaluations
        use them; not where the C kernels take every evaluation (D = 2). Values are
        unchanged (every path is exact).

        Parameters
        ----------
        evaluations : int
            The run's evaluations (about population size times generations + 1).
        """
        evaluations = check_int("evaluations", evaluations, minimum=0)
        if self.store.low_dims and not grid_pass(self.store):
            _compiled.plan(evaluations * self.store.layout.n_samples)

    def prefetch_overlap(self, genotypes: Sequence[Sequence]) -> None:
        """Compute together the overlap pair entries that a batch of genotypes lacks.

        A generation's offspring share most of their genes: their missing pairs go
        through one computation instead of one per genotype, and are cached; `overlap`
        then finds them. Values are unchanged (each pair entry is exact).

        Parameters
        ----------
        genotypes : sequence of Genotype
            The batch, e.g. a generation's offspring; each must fit the layout
            (``ValueError`` otherwise).
        """
        with self.limit_threads():
            prefetch_overlap(self.store, genotypes)


def make_evaluator(name: str, layout: Any, *, metric: str = "sqeuclidean",
                   cache_bytes: int = 512 * 2**20) -> Evaluator | NaiveEvaluator:
    """The evaluator called ``name`` (``"fast"``: `Evaluator`; ``"naive"``: `NaiveEvaluator`).

    Parameters
    ----------
    name : {"fast", "naive"}
        Which evaluator (`EVALUATORS`).
    layout : Layout
        The run's layout (sizes and common random numbers).
    metric : {"sqeuclidean", "euclidean"}
        Distance of the silhouette.
    cache_bytes : int
        Cache budget of the fast evaluator (default 512 MiB); not passed to the naive
        one, which caches nothing.

    Returns
    -------
    Evaluator or NaiveEvaluator
        A new evaluator of ``layout``.

    Raises
    ------
    ValueError
        If ``name`` or ``metric`` is unknown, or (``"fast"``) ``cache_bytes`` is negative.
    TypeError
        If (``"fast"``) ``cache_bytes`` is not an integer.
    """
    check_choice("evaluator", name, EVALUATORS)
    if name == "fast":
        return Evaluator(layout, metric=metric, cache_bytes=cache_bytes)
    return NaiveEvaluator(layout, metric=metric)
