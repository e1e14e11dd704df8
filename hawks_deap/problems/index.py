"""Index mode: evolve datasets whose validity index hits a target (HAWKS paper III-C1)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from hawks_deap._util.validation import check_choice, check_float, check_int
from hawks_deap.evaluation import EVALUATORS, SILHOUETTE_METRICS, make_evaluator
from hawks_deap.genome.genotype import Evaluation, Genotype, IndexFitness, MultiObjectiveFitness
from hawks_deap.problems.base import DatasetProblem
from hawks_deap.problems.constraints import Constraint

if TYPE_CHECKING:
    from hawks_deap.metrics import MetricInfo

__all__ = ["IndexProblem", "MultiIndexProblem", "available_indices"]

INDICES = ("silhouette",)
"""Indices with a fast incremental evaluator; any other internal index of
`hawks_deap.metrics` is computed on the dataset by its registry function."""


def available_indices() -> list[str]:
    """Names that ``IndexProblem(index=...)`` accepts.

    The internal indices of the metrics registry; their aliases (``"db"``, ``"ch"``, ...)
    are accepted too.
    """
    from hawks_deap import metrics

    return sorted(set(INDICES) | set(metrics.available("internal")))


def _resolve_index(index: str) -> tuple[str, MetricInfo | None]:
    """(canonical name, MetricInfo or None for the built-in silhouette)."""
    from hawks_deap import metrics

    if not isinstance(index, str):
        raise TypeError(f"index must be a name, got {index!r}")
    try:
        info = metrics.get(index)
    except ValueError:
        check_choice("index", index, available_indices())
        raise
    if info.kind != "internal":
        raise ValueError(f"index {index!r} is an external index (it needs true labels); "
                         f"valid internal indices: "
                         + ", ".join(repr(n) for n in available_indices()))
    return info.name, (None if info.name == "silhouette" else info)


def _check_metric_used(metric: str, indices: list[str]) -> None:
    """Refuse a silhouette distance other than the default when no index uses it."""
    if metric != SILHOUETTE_METRICS[0] and "silhouette" not in indices:
        which = (f"the index {indices[0]!r} has" if len(indices) == 1 else
                 f"the indices {', '.join(map(repr, indices))} have")
        raise ValueError(f"metric={metric!r} is the silhouette's distance, and {which} none: "
                         "leave metric out")


def _index_target(index: str, target: float, name: str = "target"
                  ) -> tuple[str, MetricInfo | None, float]:
    """(canonical name, MetricInfo or None, target checked against the index's range)."""
    index, info = _resolve_index(index)
    low, high = (-1.0, 1.0) if info is None else info.bounds
    return index, info, check_float(name, target, low=low, high=high)


def _check_index_sizes(names: Iterable[str], n_samples: int) -> None:
    """Refuse an index the datasets' size leaves undefined, before any run.

    The connectivity counts each point's ``n_neighbors`` nearest neighbours (its
    registry function's default), so it needs more points than that.
    """
    if "connectivity" in names:
        import inspect

        from hawks_deap.metrics.internal import connectivity

        k = inspect.signature(connectivity).parameters["n_neighbors"].default
        if n_samples <= k:
            raise ValueError(f"index 'connectivity' counts each point's {k} nearest "
                             f"neighbours: n_samples must be > {k}, got {n_samples}")


class IndexProblem(DatasetProblem):
    """Minimise ``|s_t - s|``, the distance of a validity index to a target (Eq. 3).

    Parameters
    ----------
    n_samples, n_clusters, n_dims : int
        Dataset size N, number of clusters K (>= 2) and dimension D (>= 1).
    target : float
        Target value ``s_t`` of the index, in [-1, 1] for the silhouette.
    index : str
        The validity index; ``"silhouette"`` (the paper's).
    metric : {"sqeuclidean", "euclidean"}
        Distance of the silhouette; ``"sqeuclidean"`` is HAWKS' choice (equal to
        ``sklearn.metrics.silhouette_score(X, y, metric="sqeuclidean")``).
    constraints : iterable of Constraint
        E.g. ``[Overlap(max=0.1), Eccentricity(min=1.0)]``.
    equal_sizes, min_size, initial_mean_upper, initial_cov_upper
        See `hawks_deap.problems.base.DatasetProblem`; defaults follow the TEVC
        experiments (random sizes with minimum 10, means in U(0, 2), variances in
        U(0, 0.5)).
    cache_bytes : int
        Memory budget of the evaluator's caches (default 512 MiB).
    evaluator : {"fast", "naive"}
        ``"fast"`` (default): the incremental, cached `hawks_deap.evaluation.Evaluator`;
        ``"naive"``: full ``sklearn.metrics.silhouette_score`` and a full
        nearest-neighbour pass at every evaluation (a reference for checks and
        benchmarks). Both give the same overlap exactly and the same silhouette up to
        rounding (1e-12 relative).

    Notes
    -----
    The evaluation record holds ``"index"`` (the index value), one entry per constraint
    (``"overlap"``, ``"eccentricity"``), ``"penalty"`` (sum of squared violations) and
    ``"feasible"``.
    """

    fitness_class = IndexFitness

    def __init__(self, n_samples: int, n_clusters: int, n_dims: int, target: float, *,
                 index: str = "silhouette", metric: str = "sqeuclidean",
                 constraints: Iterable[Constraint] = (), equal_sizes: bool = False,
                 min_size: int = 10, initial_mean_upper: float = 2.0,
                 initial_cov_upper: float = 0.5, cache_bytes: int = 512 * 2**20,
                 evaluator: str = "fast") -> None:
        self.index, self._index_info, self.target = _index_target(index, target)
        self.metric = check_choice("metric", metric, SILHOUETTE_METRICS)
        _check_metric_used(self.metric, [self.index])
        super().__init__(n_samples=n_samples, n_clusters=n_clusters, n_dims=n_dims,
                         constraints=constraints, equal_sizes=equal_sizes, min_size=min_size,
                         initial_mean_upper=initial_mean_upper,
                         initial_cov_upper=initial_cov_upper)
        _check_index_sizes([self.index], self.n_samples)
        self.cache_bytes = check_int("cache_bytes", cache_bytes, minimum=0)
        self.evaluator_name = check_choice("evaluator", evaluator, EVALUATORS)
        self.evaluator = None

    def _on_new_layout(self) -> None:
        self.evaluator = make_evaluator(self.evaluator_name, self.layout, metric=self.metric,
                                        cache_bytes=self.cache_bytes)

    def evaluate(self, individual: Genotype, eval_seed: int | None = None) -> Evaluation:
        """``(|s_t - s|,)`` with the record (index, constraint values, penalty, feasible).

        The default (fast) evaluator works from the genotype (its caches are keyed by
        gene content); the dataset X is only built for an index other than the
        silhouette, or when a constraint other than overlap and eccentricity needs it.

        Parameters
        ----------
        individual : Genotype
            An individual of this problem, under the current layout (`prepare` must have
            been called: a RuntimeError otherwise).
        eval_seed : int, optional
            Ignored (the built-in indices are deterministic).

        Returns
        -------
        Evaluation
            ``(|s_t - s|,)``, ``inf`` when the index value is not finite (it then ranks
            last), carrying the record.
        """
        layout = self.require_layout()
        assert self.evaluator is not None  # made with the layout
        with self.evaluator.limit_threads():
            if self._index_info is None:
                value = self.evaluator.silhouette(individual)
            else:
                X = self.evaluator.points(individual)
                value = float(self._index_info.function(X, layout.labels))
            record: dict[str, Any] = {"index": value, **self.constraint_record(individual)}
        # An undefined index value (nan) ranks last rather than breaking comparisons.
        error = abs(self.target - value) if np.isfinite(value) else math.inf
        return Evaluation((error,), record, layout.key,
                          self.fitness_class.weights)

    def mutation_context(self) -> dict[str, Any]:
        """The target and its index's direction, for PSO-informed mutation."""
        higher = self._index_info is None or self._index_info.higher_is_better  # None: s
        return {"target": self.target, "higher_is_better": bool(higher)}

    def parameters(self) -> dict[str, Any]:
        """JSON-ready description of the problem."""
        return {
            "mode": "index",
            "target": self.target,
            "index": self.index,
            "metric": self.metric,
            **self.dataset_parameters(),
        }

    def __repr__(self) -> str:
        return (f"IndexProblem(n_samples={self.n_samples}, n_clusters={self.n_clusters}, "
                f"n_dims={self.n_dims}, target={self.target}, index={self.index!r}, "
                f"metric={self.metric!r}, constraints={list(self.constraints)})")


class MultiIndexProblem(IndexProblem):
    """Index mode with several validity indices at once, one objective each.

    Minimise ``|t_j - index_j|`` for every index j (e.g. silhouette 0.5 and
    Davies-Bouldin 1.2); use ``evolve(..., algorithm="nsga2" | "nsga3")``.

    Parameters
    ----------
    n_samples, n_clusters, n_dims : int
        As `IndexProblem`.
    targets : mapping of str to float
        Index name (any internal index of `hawks_deap.metrics`, or an alias) -> target;
        at least two, each target within its index's range.
    **kwargs
        As `IndexProblem` (``metric`` is the silhouette's distance, ``constraints``, ...).

    Notes
    -----
    The record holds ``"index"`` (the first index's value, read by PSO-informed
    mutation), ``"index_<name>"`` for each index, the constraint values, ``"penalty"``
    and ``"feasible"``.
    """

    def __init__(self, n_samples: int, n_clusters: int, n_dims: int,
                 targets: Mapping[str, float], **kwargs: Any) -> None:
        if not isinstance(targets, Mapping):
            raise TypeError(f"targets must be a mapping index name -> target, got {targets!r}")
        items = list(targets.items())
        if len(items) < 2:
            raise ValueError(f"targets must give at least 2 indices (one objective each), "
                             f"got {len(items)}; for one index use IndexProblem")
        indices = [_index_target(name, target, f"targets[{name!r}]") for name, target in items]
        # the silhouette's distance, checked against every target's index (the first
        # one's alone may have none)
        metric = check_choice("metric", kwargs.pop("metric", SILHOUETTE_METRICS[0]),
                              SILHOUETTE_METRICS)
        _check_metric_used(metric, [n for n, _, _ in indices])
        first_name, first_target = items[0]
        super().__init__(n_samples, n_clusters, n_dims, first_target, index=first_name,
                         **kwargs)
        self.metric = metric
        self.indices = indices
        names = [n for n, _, _ in self.indices]
        _check_index_sizes(names, self.n_samples)
        if len(set(names)) != len(names):
            raise ValueError(f"targets name the same index twice: {names}")
        self.objective_names = tuple(names)

    @property
    def fitness_class(self) -> type[MultiObjectiveFitness]:  # type: ignore[override]
        """`MultiObjectiveFitness` minimising every index's distance to its target."""
        return MultiObjectiveFitness.with_weights((-1.0,) * len(self.indices))

    def evaluate(self, individual: Genotype, eval_seed: int | None = None) -> Evaluation:
        """One ``|t_j - index_j|`` per index, with the record.

        Parameters
        ----------
        individual : Genotype
            An individual of this problem, under the current layout (`prepare` must have
            been called: a RuntimeError otherwise).
        eval_seed : int, optional
            Ignored (the built-in indices are deterministic).

        Returns
        -------
        Evaluation
            One distance per index, in the order of ``targets`` (``inf`` for a value
            that is not finite), carrying the record.
        """
        layout = self.require_layout()
        assert self.evaluator is not None  # made with the layout
        values, errors = {}, []
        with self.evaluator.limit_threads():
            X = None
            for name, info, target in self.indices:
                if info is None:
                    value = self.evaluator.silhouette(individual)
                else:
                    if X is None:
                        X = self.evaluator.points(individual)
                    value = float(info.function(X, layout.labels))
                values[name] = value
                errors.append(abs(target - value) if np.isfinite(value) else math.inf)
            record: dict[str, Any] = {"index": values[self.indices[0][0]]}
            record.update({f"index_{name}": v for name, v in values.items()})
            record.update(self.constraint_record(individual))
        return Evaluation(errors, record, layout.key,
                          self.fitness_class.weights)

    def parameters(self) -> dict[str, Any]:
        """JSON-ready description of the problem."""
        params = super().parameters()
        params.update(mode="multi-index", targets={n: t for n, _, t in self.indices})
        params.pop("target", None)
        params.pop("index", None)
        return params
