"""Constraints: overlap and eccentricity (HAWKS paper III-D), and the penalty.

A constraint bounds a measure of the dataset from below (``min=``), above (``max=``) or
both. Its violation is the distance to the allowed interval, and the penalty of an
individual is the sum of the squared violations, as in HAWKS 0.2.0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from hawks_deap._util.validation import check_choice, check_float
from hawks_deap.evaluation import nearest_neighbour_overlap
from hawks_deap.genome.genotype import Cluster

__all__ = ["CONSTRAINTS", "ECCENTRICITY_OF", "Constraint", "Eccentricity", "Overlap",
           "check_constraints",
           "from_settings", "penalty"]


class Constraint:
    """A bound on one measure of a dataset.

    Subclasses set ``measure`` (the record key) and the admissible threshold range, and
    implement `compute`.

    Parameters
    ----------
    min, max : float, optional
        Lower and upper bound of the measure (keyword-only; at least one, and
        ``min <= max``), each within the class's admissible range (``[0, inf)`` unless a
        subclass narrows it: [0, 1] for `Overlap`, ``[1, inf)`` for `Eccentricity`).
        Otherwise a ValueError (a TypeError for a non-number).
    """

    measure: ClassVar[str] = ""
    _low: ClassVar[float] = 0.0
    _high: ClassVar[float | None] = None

    def __init__(self, *, min: float | None = None, max: float | None = None) -> None:  # noqa: A002
        if min is None and max is None:
            raise ValueError(f"{type(self).__name__} needs min=... and/or max=...")
        name = type(self).__name__
        self.min = None if min is None else check_float(f"{name}(min)", min, low=self._low,
                                                        high=self._high)
        self.max = None if max is None else check_float(f"{name}(max)", max, low=self._low,
                                                        high=self._high)
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"{name}: min ({self.min:g}) must be <= max ({self.max:g})")

    @property
    def name(self) -> str:
        """Key of this constraint's value in evaluation records."""
        return self.measure

    def violation(self, value: float) -> float:
        """Distance from ``value`` to the allowed interval (0 when satisfied).

        Parameters
        ----------
        value : float
            The measured value.

        Returns
        -------
        float
            ``value - max`` above the interval, ``min - value`` below it, else 0.
        """
        if self.max is not None and value > self.max:
            return float(value - self.max)
        if self.min is not None and value < self.min:
            return float(self.min - value)
        return 0.0

    def compute(self, genotype: Sequence[Cluster], X: np.ndarray, labels: np.ndarray) -> float:
        """The measure of a dataset (plain computation; evaluators may cache).

        Parameters
        ----------
        genotype : sequence of Cluster
            The genes of the dataset.
        X : numpy.ndarray of shape (N, D)
            Its data.
        labels : numpy.ndarray of shape (N,)
            Its cluster labels.

        Returns
        -------
        float
            The measured value; the base class raises NotImplementedError.
        """
        raise NotImplementedError

    def check_reachable(self, n_dims: int) -> None:
        """Refuse bounds no dataset of ``n_dims`` dimensions can meet (none here).

        Parameters
        ----------
        n_dims : int
            The datasets' dimension.
        """

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description."""
        return {"type": type(self).__name__, "min": self.min, "max": self.max}

    def __repr__(self) -> str:
        parts = [f"{b}={getattr(self, b)!r}" for b in ("min", "max")
                 if getattr(self, b) is not None]
        return f"{type(self).__name__}({', '.join(parts)})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.to_dict().items())))


class Overlap(Constraint):
    """Fraction of points whose nearest neighbour lies in another cluster (Eq. 5).

    Thresholds lie in [0, 1]. ``Overlap(max=0.1)`` is the paper's usual constraint. See
    `hawks_deap.evaluation.nearest_neighbour_overlap` for ties and duplicate points.
    """

    measure = "overlap"
    _high = 1.0

    def compute(self, genotype: Sequence[Cluster], X: np.ndarray, labels: np.ndarray) -> float:
        """Overlap of the dataset.

        Parameters
        ----------
        genotype : sequence of Cluster
            Unused (the overlap is measured on the data).
        X : numpy.ndarray of shape (N, D)
            The data.
        labels : numpy.ndarray of shape (N,)
            Cluster labels.

        Returns
        -------
        float
            `hawks_deap.evaluation.nearest_neighbour_overlap`, in [0, 1].
        """
        return nearest_neighbour_overlap(X, labels)


class Eccentricity(Constraint):
    """Eigenvalue ratio ``lambda_max / lambda_min`` of the clusters' covariances (Eq. 6).

    Parameters
    ----------
    min, max : float, optional
        Bounds (>= 1, since a ratio of eigenvalues is at least 1).
    aggregate : {"max", "min"}
        How the per-cluster ratios are combined: ``"max"`` as in Eq. 6 (at least one
        cluster is that eccentric), ``"min"`` (every cluster is), as the paper's text
        asks. Computed from the genes' variances: no eigendecomposition.
    """

    measure = "eccentricity"
    _low = 1.0

    def __init__(self, *, min: float | None = None, max: float | None = None,  # noqa: A002
                 aggregate: str = "max") -> None:
        super().__init__(min=min, max=max)
        self.aggregate = check_choice("aggregate", aggregate, ("max", "min"))

    def compute(self, genotype: Sequence[Cluster], X: np.ndarray | None = None,
                labels: np.ndarray | None = None) -> float:
        """Aggregated eigenvalue ratio of the genes.

        Parameters
        ----------
        genotype : sequence of Cluster
            The genes; each one's ratio is ``Cluster.eccentricity``.
        X, labels : numpy.ndarray or None
            Unused (the ratio comes from the genes' variances).

        Returns
        -------
        float
            The largest ratio (``aggregate="max"``) or the smallest (``"min"``).
        """
        ratios = [gene.eccentricity for gene in genotype]
        return float(max(ratios) if self.aggregate == "max" else min(ratios))

    def check_reachable(self, n_dims: int) -> None:
        """A one-dimensional cluster's ratio is 1: ``min`` above 1 cannot be met there.

        Parameters
        ----------
        n_dims : int
            The datasets' dimension.
        """
        if n_dims == 1 and self.min is not None and self.min > 1.0:
            raise ValueError(f"an eccentricity bound min = {self.min!r} (min_eccentricity) "
                             "cannot be met with n_dims = "
                             "1: a one-dimensional cluster's eccentricity (the ratio of its "
                             "largest to smallest variance) is always 1")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description."""
        return {**super().to_dict(), "aggregate": self.aggregate}


#: Settings of ``eccentricity_of`` (which clusters the eccentricity bound is about) and
#: the `Eccentricity` aggregate each one means.
ECCENTRICITY_OF: dict[str, str] = {"any": "max", "all": "min"}

#: Constraint classes by measure, in the order settings build them (`from_settings`).
CONSTRAINTS: dict[str, type[Constraint]] = {"overlap": Overlap, "eccentricity": Eccentricity}


def from_settings(values: Mapping[str, Any]) -> list[Constraint]:
    """The constraints that settings ``min_<measure>`` / ``max_<measure>`` describe.

    One constraint per measure of `CONSTRAINTS` with a bound set (None: unset), in that
    order; the command line and TOML files name their options so (``max_overlap``,
    ``min_eccentricity``).

    The eccentricity constraint also reads ``eccentricity_of``: ``"any"`` (default: some
    cluster must be that eccentric, the largest ratio, as Eq. 6 and HAWKS 0.2.0) or
    ``"all"`` (every cluster, the smallest ratio, as the paper's text says).

    Parameters
    ----------
    values : mapping of str to object
        Settings; read are ``min_overlap``, ``max_overlap``, ``min_eccentricity``,
        ``max_eccentricity`` and ``eccentricity_of``, other keys are ignored.

    Returns
    -------
    list of Constraint
        Possibly empty.

    Raises
    ------
    ValueError
        If ``eccentricity_of`` is set to anything but ``"any"`` without an eccentricity
        bound, or to anything but ``"any"`` or ``"all"`` with one; or if a bound is
        invalid (as `Constraint`).
    TypeError
        If a bound is not a real number (as `Constraint`).
    """
    out = []
    for measure, cls in CONSTRAINTS.items():
        bounds = {b: values.get(f"{b}_{measure}") for b in ("min", "max")}
        kwargs: dict[str, Any] = {b: v for b, v in bounds.items() if v is not None}
        if not kwargs:
            if cls is Eccentricity and values.get("eccentricity_of") not in (None, "any"):
                # it aggregates the bound's ratios: without a bound it would change nothing
                raise ValueError(f"eccentricity_of = {values['eccentricity_of']!r} needs an "
                                 "eccentricity bound (min_eccentricity or max_eccentricity)")
            continue
        if cls is Eccentricity:
            of = values.get("eccentricity_of")
            of = "any" if of is None else of  # None is unset; "" or 0 are refused below
            kwargs["aggregate"] = ECCENTRICITY_OF[check_choice("eccentricity_of", of,
                                                               tuple(ECCENTRICITY_OF))]
        out.append(cls(**kwargs))
    return out


def check_constraints(constraints: Iterable[Constraint]) -> tuple[Constraint, ...]:
    """Validate a collection of constraints: right type, at most one per measure.

    Parameters
    ----------
    constraints : iterable of Constraint, or a Constraint
        The constraints (a single one is taken as a one-element collection).

    Returns
    -------
    tuple of Constraint
        The constraints, in their order.

    Raises
    ------
    TypeError
        For None, a string, or an element that is not a `Constraint`.
    ValueError
        If two constraints bound the same measure.
    """
    if isinstance(constraints, Constraint):
        constraints = (constraints,)
    if constraints is None or isinstance(constraints, str | bytes):
        raise TypeError(f"constraints must be an iterable of Constraint objects (Overlap, "
                        f"Eccentricity); () for none, got {constraints!r}")
    out = tuple(constraints)
    seen: set[str] = set()
    for c in out:
        if not isinstance(c, Constraint):
            raise TypeError(f"constraints must be Constraint objects (Overlap, Eccentricity), "
                            f"got {c!r}")
        if c.measure in seen:
            raise ValueError(f"constraints: two constraints on {c.measure!r}; give one with "
                             "both min= and max= instead")
        seen.add(c.measure)
    return out


def penalty(constraints: Iterable[Constraint], values: dict[str, float]) -> float:
    """Sum of squared violations of the constraints, given their measured values.

    Parameters
    ----------
    constraints : iterable of Constraint
        The constraints.
    values : dict of str to float
        Measured value of each constraint by ``measure``; a missing one raises a
        KeyError.

    Returns
    -------
    float
        ``sum(c.violation(values[c.measure]) ** 2)``, 0 when all are satisfied.
    """
    return float(sum(c.violation(values[c.measure]) ** 2 for c in constraints))
