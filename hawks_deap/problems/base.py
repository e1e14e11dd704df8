"""`DatasetProblem`: the dataset parameters, layout and constraints of Index and Versus problems."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from hawks_deap._util.memory import check_fits, run_bytes
from hawks_deap._util.validation import MAX_SCALE, check_bool, check_float, check_int
from hawks_deap.evaluation import Evaluator, NaiveEvaluator
from hawks_deap.genome.genotype import Genotype, Layout
from hawks_deap.genome.initialization import cluster_sizes, random_genotype
from hawks_deap.problems.constraints import (
    Constraint,
    Eccentricity,
    Overlap,
    check_constraints,
    penalty,
)
from hawks_deap.problems.multiobjective import MultiObjectiveProblem
from hawks_deap.problems.protocol import Problem

__all__ = ["DatasetProblem", "Problem"]



class DatasetProblem(Problem):
    """Common dataset parameters of Index and Versus problems.

    Parameters
    ----------
    n_samples, n_clusters, n_dims : int
        N (>= n_clusters * min_size, or >= n_clusters with equal sizes), K (>= 2), D (>= 1).
    constraints : iterable of Constraint
        At most one per measure (e.g. ``Overlap(max=0.1)``, ``Eccentricity(min=1.0)``).
    equal_sizes : bool
        Equal cluster sizes instead of random ones (supplement S-I.A).
    min_size : int
        Minimum cluster size when sizes are random.
    initial_mean_upper, initial_cov_upper : float
        Upper bounds of the uniform initial means and variances (paper III-B).
    cache_bytes : int
        Memory budget of the evaluator's caches (default 512 MiB).

    Attributes
    ----------
    evaluator : Evaluator or None
        The evaluator of the current layout (points, overlap, silhouette and their
        caches), made by `_make_evaluator` at every `prepare`.
    """

    def __init__(self, *, n_samples: int, n_clusters: int, n_dims: int,
                 constraints: Iterable[Constraint] = (), equal_sizes: bool = False,
                 min_size: int = 10, initial_mean_upper: float = 2.0,
                 initial_cov_upper: float = 0.5, cache_bytes: int = 512 * 2**20) -> None:
        self.n_clusters = check_int("n_clusters", n_clusters, minimum=2)
        self.n_dims = check_int("n_dims", n_dims, minimum=1)
        self.min_size = check_int("min_size", min_size, minimum=1)
        self.equal_sizes = check_bool("equal_sizes", equal_sizes)
        needed = self.n_clusters * (1 if self.equal_sizes else self.min_size)
        self.n_samples = check_int("n_samples", n_samples, minimum=1)
        if self.n_samples < needed:
            what = "n_clusters" if self.equal_sizes else "n_clusters * min_size"
            raise ValueError(f"n_samples must be >= {what} = {needed}, got {self.n_samples}")
        if self.n_samples == self.n_clusters:
            raise ValueError(f"n_samples must exceed n_clusters = {self.n_clusters}: with "
                             "every cluster a single point no validity index is defined")
        # the data must stay far below what squared distances can hold (check_X's bound),
        # with room for the samples' tails and the means' mutation
        reach = MAX_SCALE / (1e3 * math.sqrt(self.n_samples * self.n_dims))
        self.initial_mean_upper = check_float("initial_mean_upper", initial_mean_upper, low=0.0,
                                              low_open=True, high=reach)
        self.initial_cov_upper = check_float("initial_cov_upper", initial_cov_upper, low=0.0,
                                             low_open=True, high=reach * reach)
        check_fits("a run", run_bytes(self.n_samples, self.n_clusters, self.n_dims),
                   {"n_samples": self.n_samples, "n_clusters": self.n_clusters,
                    "n_dims": self.n_dims})
        self.constraints = check_constraints(constraints)
        for constraint in self.constraints:
            constraint.check_reachable(self.n_dims)
        self.cache_bytes = check_int("cache_bytes", cache_bytes, minimum=0)
        self.evaluator: Evaluator | NaiveEvaluator | None = None
        self.layout = None

    def prepare(self, rng: np.random.Generator) -> Layout:
        """Draw the cluster sizes and common random numbers of a run.

        Also makes a new evaluator (fresh caches) for the new layout.

        Parameters
        ----------
        rng : numpy.random.Generator
            Source of the sizes (a Dirichlet draw; unused with ``equal_sizes``) and then
            of the standard-normal draws of every slot.

        Returns
        -------
        Layout
            The new layout, also kept as ``layout``.
        """
        sizes = cluster_sizes(self.n_samples, self.n_clusters, rng, equal=self.equal_sizes,
                              min_size=self.min_size)
        self.layout = Layout(sizes, self.n_dims, rng=rng)
        self._on_new_layout()
        return self.layout

    def _on_new_layout(self) -> None:
        """Hook: rebuild evaluators and caches for ``self.layout``."""
        self.evaluator = self._make_evaluator()

    def _make_evaluator(self) -> Evaluator | NaiveEvaluator:
        """The evaluator of ``self.layout``; subclasses override it to pass options."""
        return Evaluator(self.layout, cache_bytes=self.cache_bytes)

    def require_layout(self) -> Layout:
        """The current layout; raises if `prepare` has not been called."""
        if self.layout is None:
            raise RuntimeError(f"{type(self).__name__} has no layout yet: call "
                               "problem.prepare(rng) (make_toolbox and evolve do it)")
        return self.layout

    def random_individual(self, rng: np.random.Generator) -> Genotype:
        """A random genotype (paper III-B).

        Parameters
        ----------
        rng : numpy.random.Generator
            Source of the genes' draws (`hawks_deap.genome.initialization.random_genotype`
            with this problem's ``initial_mean_upper`` and ``initial_cov_upper``).

        Returns
        -------
        Genotype
            K genes of dimension D, with an unevaluated ``fitness_class`` fitness.
        """
        return random_genotype(self.n_clusters, self.n_dims, rng,
                               fitness_class=self.fitness_class,
                               initial_mean_upper=self.initial_mean_upper,
                               initial_cov_upper=self.initial_cov_upper)

    def sample(self, individual: Genotype) -> tuple[np.ndarray, np.ndarray]:
        """The dataset (X, y) of an individual under the current layout.

        Parameters
        ----------
        individual : Genotype
            K genes of dimension D (a ValueError otherwise); `prepare` must have been
            called (a RuntimeError otherwise).

        Returns
        -------
        tuple of numpy.ndarray
            X of shape (N, D) and the labels y of shape (N,), slot by slot.
        """
        return self.require_layout().sample(individual)

    def prefetch(self, individuals: Sequence[Genotype]) -> None:
        """Compute the overlap pair entries the batch lacks together (`Evaluator`).

        Only with an overlap constraint and the fast evaluator; values are unchanged.

        Parameters
        ----------
        individuals : sequence of Genotype
            The batch about to be evaluated (e.g. a generation's offspring), under the
            current layout (`prepare` must have been called: a RuntimeError otherwise).
        """
        self.require_layout()
        assert self.evaluator is not None  # made with the layout
        if any(isinstance(c, Overlap) for c in self.constraints):
            self.evaluator.prefetch_overlap(individuals)

    def expect(self, evaluations: int) -> None:
        """Tell the fast evaluator a run's size (`Evaluator.expect`), with an overlap constraint.

        A long low-dimensional run then loads the compiled kernels at once; values are
        unchanged.

        Parameters
        ----------
        evaluations : int
            The run's evaluations (`prepare` must have been called: a RuntimeError
            otherwise).
        """
        self.require_layout()
        if (isinstance(self.evaluator, Evaluator)
                and any(isinstance(c, Overlap) for c in self.constraints)):
            self.evaluator.expect(evaluations)

    def constraint_values(self, individual: Genotype,
                          X: np.ndarray | None = None) -> dict[str, float]:
        """Measured value of each constraint.

        ``X`` is the individual's data when the caller has built it; with None, the
        evaluator works from the genotype (its caches are keyed by gene content) and X is
        only built for constraints that need it.

        Parameters
        ----------
        individual : Genotype
            An individual under the current layout (`prepare` must have been called: a
            RuntimeError otherwise).
        X : numpy.ndarray of shape (N, D), optional
            The individual's data, if already built.

        Returns
        -------
        dict of str to float
            The measured value of each constraint, keyed by its ``measure``.
        """
        labels = self.require_layout().labels
        return {c.measure: self._measure(c, individual, X, labels) for c in self.constraints}

    def constraint_record(self, individual: Genotype,
                          X: np.ndarray | None = None) -> dict[str, Any]:
        """Constraint values, ``"penalty"`` and ``"feasible"``, for an evaluation record.

        Parameters
        ----------
        individual : Genotype
            An individual under the current layout.
        X : numpy.ndarray of shape (N, D), optional
            The individual's data, if already built (as `constraint_values`).

        Returns
        -------
        dict
            `constraint_values`, with ``"penalty"`` (`penalty_of` them) and
            ``"feasible"`` (whether the penalty is 0).
        """
        record: dict[str, Any] = self.constraint_values(individual, X)
        pen = self.penalty_of(record)
        record["penalty"] = pen
        record["feasible"] = pen == 0.0
        return record

    def _measure(self, constraint: Constraint, individual: Genotype, X: np.ndarray | None,
                 labels: np.ndarray) -> float:
        assert self.evaluator is not None  # made with the layout
        if isinstance(constraint, Overlap):
            return self.evaluator.overlap(individual if X is None else X)
        if isinstance(constraint, Eccentricity):
            return constraint.compute(individual, X, labels)
        if X is None:
            X = self.evaluator.points(individual)
        return constraint.compute(individual, X, labels)

    def penalty_of(self, values: dict[str, float]) -> float:
        """Sum of squared constraint violations for measured values.

        Parameters
        ----------
        values : dict of str to float
            Measured value of each constraint by ``measure`` (as `constraint_values`
            returns); a missing measure raises a KeyError.

        Returns
        -------
        float
            The penalty, 0 when every constraint is satisfied.
        """
        return penalty(self.constraints, values)

    def as_multiobjective(self, objectives: Iterable[str] | None = None) -> Problem:
        """Return the problem with one more objective per constraint (NSGA-II / NSGA-III).

        See `hawks_deap.problems.multiobjective.MultiObjectiveProblem`.

        Parameters
        ----------
        objectives : iterable of str, optional
            Measures of this problem's constraints to add as objectives (e.g.
            ``["overlap"]``); None: all its constraints, in their order.

        Returns
        -------
        MultiObjectiveProblem
            A new problem wrapping this one (which keeps its layout and caches).
        """
        return MultiObjectiveProblem(self, objectives)  # it checks and copies them

    def dataset_parameters(self) -> dict[str, Any]:
        """The dataset part of `parameters`."""
        return {
            "n_samples": self.n_samples,
            "n_clusters": self.n_clusters,
            "n_dims": self.n_dims,
            "equal_sizes": self.equal_sizes,
            "min_size": self.min_size,
            "initial_mean_upper": self.initial_mean_upper,
            "initial_cov_upper": self.initial_cov_upper,
            "constraints": [c.to_dict() for c in self.constraints],
        }
