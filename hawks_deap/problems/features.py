"""Feature targets: Index mode on several problem features at once (issue 35, item 1).

`FeatureTargetProblem` minimises the weighted distance, in standardised units, of a
dataset's problem features (HAWKS paper IV-A, `hawks_deap.metrics.features`) to target
values: ``sqrt(sum_f w_f ((value_f - target_f) / scale_f)^2)``.

What each feature costs per evaluation, and where it comes from:

- ``silhouette``: the evaluation engine (`hawks_deap.evaluation.Evaluator.silhouette`,
  incremental and cached by gene), exactly as `IndexProblem`;
- ``silhouette_std``: the silhouette widths of the sampled points
  (`hawks_deap.evaluation.silhouette_samples`: the engine's closed form, O(N K D), with
  the squared Euclidean distance, the default; O(N^2 D) time and O(N) memory with the
  Euclidean one): the incremental engine keeps only their mean;
- ``connectivity``, ``eccentricity``: the exact feature functions on the sampled points
  (a KD-tree, O(N L log N); one SVD per cluster). The eccentricity is measured on the
  points, as the paper's feature, not read from the genes' variances: a gene's ratio
  ``max / min`` of its variances is that of the distribution, the feature is that of
  the sample (and keeps only the eigenvalues that reach 95% of the variance), and they
  differ.

``n_clusters`` (K) and ``dimensionality`` (D) are fixed by the problem, and so is the
``entropy``: the cluster sizes are drawn once per run (`DatasetProblem.prepare`, the
`hawks_deap.genome.Layout`), not evolved, so the size entropy is a constant of a run.
Targets on them are refused: no individual could move them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from hawks_deap._util.validation import check_choice, check_float, check_int
from hawks_deap.evaluation import (
    EVALUATORS,
    SILHOUETTE_METRICS,
    make_evaluator,
    silhouette_samples,
)
from hawks_deap.genome.genotype import Evaluation, Genotype, IndexFitness
from hawks_deap.metrics.features import (
    FEATURE_NAMES,
    average_eccentricity,
    connectivity,
    size_entropy,
)
from hawks_deap.problems.base import DatasetProblem
from hawks_deap.problems.constraints import Constraint

__all__ = ["TARGETABLE_FEATURES", "FeatureTargetProblem", "SpaceTargetProblem"]

#: The problem features a `FeatureTargetProblem` may target (the others are fixed by it).
TARGETABLE_FEATURES: tuple[str, ...] = ("connectivity", "eccentricity", "silhouette",
                                        "silhouette_std")

_FIXED = {
    "n_clusters": "K is the problem's n_clusters",
    "dimensionality": "D is the problem's n_dims",
    "entropy": "the cluster sizes are drawn once per run (prepare), not evolved: the size "
               "entropy is a constant of the run (equal_sizes=True gives entropy 1)",
}


def _target_range(name: str, n_neighbors: int) -> tuple[float, float]:
    """The values a feature can take (connectivity: up to ``H_L = 1 + ... + 1/L``)."""
    if name == "silhouette":
        return -1.0, 1.0
    if name == "silhouette_std":  # widths lie in [-1, 1]: their deviation is at most 1
        return 0.0, 1.0
    if name == "connectivity":
        return 0.0, float(sum(1.0 / j for j in range(1, n_neighbors + 1)))
    return 1.0, math.inf  # eccentricity: a ratio of the largest to a smaller eigenvalue


def _check_names(param: str, names: Iterable[Any], allowed: Iterable[str]) -> None:
    allowed = tuple(allowed)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{param} keys must be feature names (str), got {name!r}")
        if name in _FIXED and name in allowed:
            continue
        if name in _FIXED and param == "targets":
            raise ValueError(f"{param}[{name!r}] cannot be targeted: {_FIXED[name]}; "
                             f"targetable features: {', '.join(map(repr, allowed))}")
        if name not in allowed:
            what = "a feature that is not targeted" if param == "weights" else "an unknown feature"
            raise ValueError(f"{param} has {what}, {name!r}; allowed: "
                             + ", ".join(map(repr, allowed)))


def check_targets(targets: Any, n_neighbors: int = 10) -> dict[str, float]:
    """Check a feature-target mapping: targetable features, values in their ranges.

    Parameters
    ----------
    targets : mapping of str to float
        Feature name (`TARGETABLE_FEATURES`) -> target, at least one.
    n_neighbors : int
        L of the connectivity, which bounds its target (``<= H_L``).

    Returns
    -------
    dict of str to float
        The targets, in the mapping's order.
    """
    if not isinstance(targets, Mapping):
        raise TypeError(f"targets must be a mapping feature name -> target value, got "
                        f"{targets!r}")
    if not targets:
        raise ValueError("targets must name at least one feature; targetable: "
                         + ", ".join(map(repr, TARGETABLE_FEATURES)))
    _check_names("targets", targets, TARGETABLE_FEATURES)
    out = {}
    for name, value in targets.items():
        low, high = _target_range(name, n_neighbors)
        out[name] = check_float(f"targets[{name!r}]", value, low=low,
                                high=None if math.isinf(high) else high)
    return out


def _table_scale(table: Any, names: Iterable[str]) -> dict[str, float]:
    """Population standard deviation of each targeted column of a reference Table."""
    out = {}
    columns = tuple(table.columns)
    for name in names:
        if name not in columns:
            raise ValueError(f"scale: the reference table has no column {name!r} (it has "
                             f"{list(columns)})")
        values = np.asarray(table.column(name), dtype=float)
        if values.shape[0] < 2:
            raise ValueError(f"scale: a reference table needs at least 2 rows for a "
                             f"standard deviation, got {values.shape[0]}")
        if not np.all(np.isfinite(values)):
            raise ValueError(f"scale: the reference table's column {name!r} has "
                             "non-finite values")
        sd = float(values.std())
        # InstanceSpace's rule: a constant feature only shifts, it keeps its raw unit
        out[name] = sd if sd > 0.0 else 1.0
    return out


def check_scale(scale: Any, names: Iterable[str]) -> dict[str, float]:
    """Each targeted feature's unit: given, a reference table's standard deviation, or 1.

    Parameters
    ----------
    scale : mapping of str to float, Table or None
        Per-feature standard deviations (> 0, finite; every targeted feature, any other
        of `FEATURE_NAMES` ignored); a features table of a reference collection
        (`hawks_deap.analysis.features.features_table`: the population standard
        deviation of each targeted column, as `InstanceSpace` standardises; 1 for a
        constant column); None: 1 for every feature (raw units).
    names : iterable of str
        The targeted features.

    Returns
    -------
    dict of str to float
        The scale of each targeted feature.
    """
    names = list(names)
    if scale is None:
        return dict.fromkeys(names, 1.0)
    if hasattr(scale, "columns") and hasattr(scale, "column"):  # a Table (analysis layer)
        return _table_scale(scale, names)
    if not isinstance(scale, Mapping):
        raise TypeError(f"scale must be a mapping feature name -> standard deviation, a "
                        f"features Table or None, got {type(scale).__name__}")
    _check_names("scale", scale, FEATURE_NAMES)
    missing = [n for n in names if n not in scale]
    if missing:
        raise ValueError(f"scale must give every targeted feature's standard deviation; "
                         f"missing: {missing}")
    return {n: check_float(f"scale[{n!r}]", scale[n], low=0.0, low_open=True) for n in names}


def check_weights(weights: Any, names: Iterable[str]) -> dict[str, float]:
    """Each targeted feature's weight (>= 0, finite; default 1; not all 0).

    Parameters
    ----------
    weights : mapping of str to float or None
        Targeted feature -> weight; a feature left out weighs 1.
    names : iterable of str
        The targeted features.

    Returns
    -------
    dict of str to float
        The weight of each targeted feature.
    """
    names = list(names)
    if weights is None:
        return dict.fromkeys(names, 1.0)
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a mapping feature name -> weight or None, got "
                        f"{weights!r}")
    _check_names("weights", weights, names)
    out = {n: check_float(f"weights[{n!r}]", weights.get(n, 1.0), low=0.0) for n in names}
    if not any(w > 0.0 for w in out.values()):
        raise ValueError(f"weights must not all be 0, got {dict(weights)}")
    return out


class FeatureTargetProblem(DatasetProblem):
    """Minimise the standardised, weighted distance of problem features to targets.

    The fitness is ``sqrt(sum_f w_f ((value_f - target_f) / scale_f)^2)`` over the
    targeted features f. With one target, weight 1 and scale 1 it is
    ``|target - value|``: ``targets={"silhouette": s_t}`` is `IndexProblem`'s fitness,
    the same float.

    Parameters
    ----------
    n_samples, n_clusters, n_dims : int
        Dataset size N, number of clusters K (>= 2) and dimension D (>= 1).
    targets : mapping of str to float
        Feature (`TARGETABLE_FEATURES`: ``"connectivity"``, ``"eccentricity"``,
        ``"silhouette"``, ``"silhouette_std"``) -> target value, in raw units (those of
        `hawks_deap.analysis.features.problem_features`). ``n_clusters``,
        ``dimensionality`` and ``entropy`` are fixed by the problem and refused.
    scale : mapping of str to float, Table or None
        Each feature's unit (`check_scale`): standard deviations, a reference
        collection's features table (its columns' standard deviations), or None (1).
    weights : mapping of str to float or None
        Each feature's weight (`check_weights`; default 1).
    metric : {"sqeuclidean", "euclidean"}
        Distance of the silhouette features (HAWKS' ``"sqeuclidean"`` by default);
        another needs a silhouette feature among the targets.
    n_neighbors : int
        L of the connectivity (10, the paper's); at most N - 1.
    variance_kept : float
        Share of the eigenvalues the eccentricity keeps (0.95, the paper's), in (0, 1].
    constraints : iterable of Constraint
        E.g. ``[Overlap(max=0.1)]``, as `IndexProblem`.
    equal_sizes, min_size, initial_mean_upper, initial_cov_upper, cache_bytes
        See `hawks_deap.problems.base.DatasetProblem`.
    evaluator : {"fast", "naive"}
        The silhouette and overlap engine, as `IndexProblem`'s.

    Notes
    -----
    The evaluation record holds ``"feature_<name>"`` for each targeted feature (equal to
    `problem_features` on the individual's dataset: the silhouette to rounding, 1e-12,
    as the engine sums in its own order; the others exactly), ``"index"`` (the
    silhouette, when targeted: what PSO-informed mutation reads), the constraint values,
    ``"penalty"`` and ``"feasible"``. See the module documentation for what each feature
    costs.
    """

    fitness_class = IndexFitness

    def __init__(self, n_samples: int, n_clusters: int, n_dims: int,
                 targets: Mapping[str, float], *, scale: Any = None,
                 weights: Mapping[str, float] | None = None, metric: str = "sqeuclidean",
                 n_neighbors: int = 10, variance_kept: float = 0.95,
                 constraints: Iterable[Constraint] = (), equal_sizes: bool = False,
                 min_size: int = 10, initial_mean_upper: float = 2.0,
                 initial_cov_upper: float = 0.5, cache_bytes: int = 512 * 2**20,
                 evaluator: str = "fast") -> None:
        self.n_neighbors = check_int("n_neighbors", n_neighbors, minimum=1)
        self.targets = self._checked_targets(targets)
        self.scale = check_scale(scale, self.targets)
        self.weights = check_weights(weights, self.targets)
        self.metric = check_choice("metric", metric, SILHOUETTE_METRICS)
        if self.metric != SILHOUETTE_METRICS[0] and not (
                {"silhouette", "silhouette_std"} & set(self.targets)):
            raise ValueError(f"metric={self.metric!r} is the silhouette's distance, and no "
                             "silhouette feature is targeted: leave metric out")
        self.variance_kept = check_float("variance_kept", variance_kept, low=0.0, high=1.0,
                                         low_open=True)
        self.evaluator_name = check_choice("evaluator", evaluator, EVALUATORS)
        super().__init__(n_samples=n_samples, n_clusters=n_clusters, n_dims=n_dims,
                         constraints=constraints, equal_sizes=equal_sizes, min_size=min_size,
                         initial_mean_upper=initial_mean_upper,
                         initial_cov_upper=initial_cov_upper, cache_bytes=cache_bytes)
        if self.n_neighbors > self.n_samples - 1 and "connectivity" in self.targets:
            raise ValueError(f"n_neighbors must be <= n_samples - 1 = {self.n_samples - 1}, "
                             f"got {self.n_neighbors}")

    def _checked_targets(self, targets: Any) -> dict[str, float]:
        return check_targets(targets, self.n_neighbors)

    def _on_new_layout(self) -> None:
        self.evaluator = make_evaluator(self.evaluator_name, self.layout, metric=self.metric,
                                        cache_bytes=self.cache_bytes)

    def feature_values(self, individual: Genotype) -> dict[str, float]:
        """The targeted features of an individual's dataset, in the targets' order.

        Parameters
        ----------
        individual : Genotype
            An individual under the current layout (`prepare` must have been called: a
            RuntimeError otherwise).

        Returns
        -------
        dict of str to float
            Feature name -> value (see the class Notes for the precision).
        """
        labels = self.require_layout().labels
        assert self.evaluator is not None  # made with the layout
        values: dict[str, float] = {}
        if "silhouette" in self.targets:  # the engine's incremental path, as IndexProblem
            values["silhouette"] = float(self.evaluator.silhouette(individual))
        others = [n for n in self.targets if n != "silhouette"]
        if others:  # the points are built only when a feature other than the mean needs them
            X = self.evaluator.points(individual)
            for name in others:
                if name == "silhouette_std":
                    widths = silhouette_samples(X, labels, metric=self.metric)
                    values[name] = float(widths.std())
                elif name == "connectivity":
                    values[name] = connectivity(X, labels, self.n_neighbors)
                else:
                    values[name] = average_eccentricity(X, labels,
                                                        variance_kept=self.variance_kept)
        values = {n: values[n] for n in self.targets}  # the targets' order
        return values

    def distance(self, values: Mapping[str, float]) -> float:
        """The fitness of measured feature values (``inf`` if one is not finite).

        Parameters
        ----------
        values : mapping of str to float
            Every targeted feature's value (as `feature_values` returns).

        Returns
        -------
        float
            ``sqrt(sum_f w_f ((value_f - target_f) / scale_f)^2)``.
        """
        if not all(np.isfinite(values[n]) for n in self.targets):
            return math.inf  # an undefined feature ranks last rather than breaking order
        terms = [(self.weights[n], (values[n] - t) / self.scale[n])
                 for n, t in self.targets.items()]
        if len(terms) == 1:  # the same float as IndexProblem's |s_t - s| (w = scale = 1)
            weight, diff = terms[0]
            return math.sqrt(weight) * abs(diff)
        return math.sqrt(sum(w * d * d for w, d in terms))

    def evaluate(self, individual: Genotype, eval_seed: int | None = None) -> Evaluation:
        """``(distance,)`` with the record (features, constraint values, penalty, feasible).

        Parameters
        ----------
        individual : Genotype
            An individual under the current layout (`prepare` must have been called).
        eval_seed : int, optional
            Ignored (the features are deterministic).

        Returns
        -------
        Evaluation
            ``(distance,)`` (`distance`), carrying the record.
        """
        layout = self.require_layout()
        assert self.evaluator is not None  # made with the layout
        with self.evaluator.limit_threads():
            values = self.feature_values(individual)
            record: dict[str, Any] = {f"feature_{n}": v for n, v in values.items()}
            if "silhouette" in values:
                record["index"] = values["silhouette"]
            # X is not passed: the overlap's fast path works from the genes
            record.update(self.constraint_record(individual))
        return Evaluation((self._fitness(values, record),), record, layout.key,
                          self.fitness_class.weights)

    def _fitness(self, values: Mapping[str, float], record: dict[str, Any]) -> float:
        """The fitness of measured values (`distance`); a subclass may add to ``record``."""
        return self.distance(values)

    def mutation_context(self) -> dict[str, Any]:
        """The silhouette target, for PSO-informed mutation (none without one)."""
        return ({"target": self.targets["silhouette"], "higher_is_better": True}
                if "silhouette" in self.targets else {})

    def parameters(self) -> dict[str, Any]:
        """JSON-ready description of the problem."""
        return {
            "mode": "feature-target",
            "targets": dict(self.targets),
            "scale": dict(self.scale),
            "weights": dict(self.weights),
            "metric": self.metric,
            "n_neighbors": self.n_neighbors,
            "variance_kept": self.variance_kept,
            **self.dataset_parameters(),
        }

    def __repr__(self) -> str:
        return (f"FeatureTargetProblem(n_samples={self.n_samples}, "
                f"n_clusters={self.n_clusters}, n_dims={self.n_dims}, "
                f"targets={self.targets}, scale={self.scale}, weights={self.weights}, "
                f"metric={self.metric!r}, constraints={list(self.constraints)})")


def space_arrays(point: Any, feature_names: Any, mean: Any, scale: Any,
                  components: Any) -> tuple[tuple[str, ...], np.ndarray, np.ndarray,
                                            np.ndarray, np.ndarray]:
    """The checked projection of `SpaceTargetProblem`: names, mean, scale, axes, point."""
    if isinstance(feature_names, str) or not isinstance(feature_names, Iterable):
        raise TypeError(f"feature_names must be a sequence of feature names, got "
                        f"{feature_names!r}")
    names = tuple(feature_names)
    _check_names("feature_names", names, FEATURE_NAMES)
    if not names or len(set(names)) != len(names):
        raise ValueError(f"feature_names must be distinct feature names, got {names}")
    arrays = {}
    for label, value, shape in (("mean", mean, (len(names),)), ("scale", scale, (len(names),)),
                                ("components", components, (None, len(names)))):
        array = np.asarray(value, dtype=float)
        if array.ndim != len(shape) or any(n is not None and n != m
                                           for n, m in zip(shape, array.shape, strict=True)):
            raise ValueError(f"{label} must have shape {shape} (None: any), one value per "
                             f"feature of feature_names, got {array.shape}")
        if not np.all(np.isfinite(array)) or array.size == 0:
            raise ValueError(f"{label} must hold finite numbers, got {array.tolist()}")
        arrays[label] = array
    if np.any(arrays["scale"] <= 0):
        raise ValueError(f"scale must be > 0, got {arrays['scale'].tolist()}")
    target = np.asarray(point, dtype=float)
    if target.shape != (arrays["components"].shape[0],) or not np.all(np.isfinite(target)):
        raise ValueError(f"point must be {arrays['components'].shape[0]} finite coordinates "
                         f"(one per component), got {point!r}")
    return names, arrays["mean"], arrays["scale"], arrays["components"], target


class SpaceTargetProblem(FeatureTargetProblem):
    """Minimise the distance of a dataset's point in an instance space to a target point.

    The instance space (HAWKS paper, section V-A) standardises the problem features and
    projects them on principal axes: ``p = ((f - mean) / scale) @ components.T``. The
    fitness is the Euclidean distance ``||p - point||`` in those coordinates. The
    features with a loading are measured as `FeatureTargetProblem` measures them; K, D
    and the size entropy are the run's constants (they place the run's datasets, and
    no individual moves them). Usually made by
    `hawks_deap.analysis.features.InstanceSpace.target_problem`.

    Parameters
    ----------
    n_samples, n_clusters, n_dims : int
        Dataset size N, number of clusters K (>= 2) and dimension D (>= 1).
    point : sequence of float
        The target, one coordinate per component.
    feature_names : sequence of str
        The space's features (`FEATURE_NAMES`), in the order of ``mean``, ``scale`` and
        the columns of ``components``.
    mean, scale : sequence of float
        The standardisation (``InstanceSpace.mean_``, ``scale_``; scale > 0).
    components : array of shape (n_components, n_features)
        The principal axes (``InstanceSpace.components_``).
    metric, n_neighbors, variance_kept, constraints, equal_sizes, min_size,
    initial_mean_upper, initial_cov_upper, cache_bytes, evaluator
        As `FeatureTargetProblem`.

    Notes
    -----
    The record holds the measured features (``"feature_<name>"``) and the dataset's
    coordinates (``"space_0"``, ``"space_1"``, ...), equal to ``InstanceSpace.transform``
    of its features (the silhouette to rounding).
    """

    def __init__(self, n_samples: int, n_clusters: int, n_dims: int, point: Any, *,
                 feature_names: Iterable[str], mean: Any, scale: Any, components: Any,
                 **kwargs: Any) -> None:
        for key in ("targets", "weights"):
            if key in kwargs:
                raise TypeError(f"SpaceTargetProblem takes no {key}: the target is point")
        (self.feature_names, self.space_mean, self.space_scale, self.components,
         self.point) = space_arrays(point, feature_names, mean, scale, components)
        loaded = np.any(self.components != 0, axis=0)
        measured = [n for n, used in zip(self.feature_names, loaded, strict=True)
                    if used and n in TARGETABLE_FEATURES]
        self._measured = measured
        self._constants: dict[str, float] = {}
        super().__init__(n_samples, n_clusters, n_dims, {}, **kwargs)

    def _checked_targets(self, targets: Any) -> dict[str, float]:
        # the features to measure (their "targets" are the point's, through the space)
        return dict.fromkeys(self._measured, math.nan)

    def _on_new_layout(self) -> None:
        super()._on_new_layout()
        layout = self.require_layout()
        self._constants = {"n_clusters": float(self.n_clusters),
                           "dimensionality": float(self.n_dims),
                           "entropy": size_entropy(layout.labels)}

    def project(self, values: Mapping[str, float]) -> np.ndarray:
        """The coordinates of measured features (with the run's constants) in the space.

        Parameters
        ----------
        values : mapping of str to float
            The measured features (`feature_values`).

        Returns
        -------
        numpy.ndarray of shape (n_components,)
        """
        if not self._constants:  # set with the layout (prepare)
            self.require_layout()
            self._on_new_layout()
        # a feature no axis loads is neither measured nor needed: its mean (no term)
        f = np.array([values[n] if n in values else self._constants.get(n, mean)
                      for n, mean in zip(self.feature_names, self.space_mean, strict=True)],
                     dtype=float)
        return ((f - self.space_mean) / self.space_scale) @ self.components.T

    def distance(self, values: Mapping[str, float]) -> float:
        """``||project(values) - point||`` (``inf`` if a feature is not finite).

        Parameters
        ----------
        values : mapping of str to float
            The measured features (`feature_values`).

        Returns
        -------
        float
        """
        return self._distance_to_point(self.project(values))

    def _distance_to_point(self, p: np.ndarray) -> float:
        return float(np.linalg.norm(p - self.point)) if np.all(np.isfinite(p)) else math.inf

    def _fitness(self, values: Mapping[str, float], record: dict[str, Any]) -> float:
        """`distance` from one projection, whose coordinates go to the record.

        The record gets ``space_0``, ... and loses ``index`` (no silhouette target here).
        """
        p = self.project(values)
        record.pop("index", None)
        record.update({f"space_{i}": float(c) for i, c in enumerate(p)})
        return self._distance_to_point(p)

    def mutation_context(self) -> dict[str, Any]:
        """Nothing: no silhouette target (PSO-informed mutation needs one)."""
        return {}

    def parameters(self) -> dict[str, Any]:
        """JSON-ready description of the problem."""
        params = super().parameters()
        for key in ("targets", "scale", "weights"):
            params.pop(key)
        params.update(mode="space-target", point=self.point.tolist(),
                      feature_names=list(self.feature_names),
                      space_mean=self.space_mean.tolist(),
                      space_scale=self.space_scale.tolist(),
                      components=self.components.tolist())
        return params

    def __repr__(self) -> str:
        return (f"SpaceTargetProblem(n_samples={self.n_samples}, "
                f"n_clusters={self.n_clusters}, n_dims={self.n_dims}, "
                f"point={self.point.tolist()}, constraints={list(self.constraints)})")
