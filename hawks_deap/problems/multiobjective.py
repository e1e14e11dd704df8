"""Multi-objective forms of a problem, for NSGA-II / NSGA-III.

``problem.as_multiobjective()`` keeps the problem's primary objective (``|s_t - s|`` in
Index mode, the score gap in Versus mode) and adds one objective per constraint, each
with the DEAP weight that matches the constraint's direction: an upper bound
(``Overlap(max=...)``) becomes a minimised objective (the measured value), a lower bound
(``Eccentricity(min=...)``) a maximised one, and a two-sided bound a minimised
violation (distance to the allowed interval). The evaluation record is unchanged, so
the penalty and feasibility are still recorded.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from hawks_deap.genome.genotype import Evaluation, Genotype, Layout, MultiObjectiveFitness
from hawks_deap.problems.constraints import Constraint
from hawks_deap.problems.protocol import Problem

if TYPE_CHECKING:
    from hawks_deap.problems.base import DatasetProblem

__all__ = ["MultiObjectiveProblem"]


def _constraint_objective(constraint: Constraint) -> tuple[float, bool]:
    """(DEAP weight, use the violation instead of the value) for a constraint."""
    if constraint.min is not None and constraint.max is not None:
        return -1.0, True
    return (-1.0, False) if constraint.max is not None else (1.0, False)


class MultiObjectiveProblem(Problem):
    """A problem whose fitness has several objectives.

    Parameters
    ----------
    base : Problem
        The single-objective problem (Index or Versus mode) it is made from; layout,
        evaluation and caches are the base problem's.
    objectives : sequence of str, optional
        Measures of the base problem's constraints to add as objectives (e.g.
        ``["overlap"]``); all its constraints by default.

    Attributes
    ----------
    objective_names : tuple of str
        Names of the objectives, the primary one first.
    weights : tuple of float
        DEAP weights, in the same order.
    """

    def __init__(self, base: Problem, objectives: Iterable[str] | None = None) -> None:
        if isinstance(base, MultiObjectiveProblem):
            raise TypeError("base is already a multi-objective problem")
        if not isinstance(base, Problem):
            raise TypeError(f"base must be a Problem (e.g. hawks_deap.IndexProblem), got "
                            f"{type(base).__name__}")
        constraints = {c.measure: c for c in getattr(base, "constraints", ())}
        if objectives is None:
            objectives = list(constraints)
        if isinstance(objectives, str):
            objectives = [objectives]
        objectives = list(objectives)
        for name in objectives:
            if name not in constraints:
                valid = ", ".join(repr(m) for m in constraints) or "none: add constraints"
                raise ValueError(f"unknown objective {name!r}: objectives are the measures of "
                                 f"the problem's constraints ({valid})")
        if len(set(objectives)) != len(objectives):
            raise ValueError(f"objectives must be distinct, got {objectives}")
        self.base = base
        self.objectives = tuple(objectives)
        primary = tuple(base.fitness_class().weights)
        specs = [_constraint_objective(constraints[m]) for m in self.objectives]
        self._use_violation = tuple(v for _, v in specs)
        self.weights = primary + tuple(w for w, _ in specs)
        self.objective_names = tuple(
            [*(base.objective_names if hasattr(base, "objective_names") else ("fitness",)),
             *self.objectives])
        self._constraints = constraints

    @property
    def fitness_class(self) -> type[MultiObjectiveFitness]:  # type: ignore[override]
        """`MultiObjectiveFitness` with this problem's weights."""
        return MultiObjectiveFitness.with_weights(self.weights)

    @property
    def parallel_by_default(self) -> bool:  # type: ignore[override]
        """The base problem's."""
        return self.base.parallel_by_default

    @property
    def n_threads(self) -> int | None:  # type: ignore[override]
        """The base problem's."""
        return self.base.n_threads

    @property
    def evaluation_bytes(self) -> int:  # type: ignore[override]
        """The base problem's."""
        return self.base.evaluation_bytes

    @property
    def n_clusters(self) -> int:  # type: ignore[override]
        """The base problem's."""
        return self.base.n_clusters

    @property
    def n_objectives(self) -> int:
        """Number of objectives."""
        return len(self.weights)

    @property
    def layout(self) -> Layout | None:  # type: ignore[override]
        """The base problem's layout."""
        return self.base.layout

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "base":
            raise AttributeError(name)
        return getattr(self.base, name)

    def prepare(self, rng: np.random.Generator) -> Layout:
        """Prepare the base problem (new layout, fresh caches).

        Parameters
        ----------
        rng : numpy.random.Generator
            Passed to the base problem's `prepare`.

        Returns
        -------
        Layout
            The base problem's new layout.
        """
        return self.base.prepare(rng)

    def snapshot(self) -> MultiObjectiveProblem:
        """A copy bound to the current layout, with a snapshot of the base problem.

        Returns
        -------
        MultiObjectiveProblem
            A later `prepare` of either leaves the other's layout as it is.
        """
        new = copy.copy(self)
        new.base = self.base.snapshot()
        return new

    def as_multiobjective(self, objectives: Iterable[str] | None = None) -> Problem:
        """The base problem's `as_multiobjective`: a new problem, this one unchanged.

        Parameters
        ----------
        objectives : sequence of str, optional
            Measures of the base problem's constraints to add as objectives; None: all.

        Returns
        -------
        MultiObjectiveProblem
            ``base.as_multiobjective(objectives)``.
        """
        return self.base.as_multiobjective(objectives)

    def random_individual(self, rng: np.random.Generator) -> Genotype:
        """A random individual with the multi-objective fitness.

        Parameters
        ----------
        rng : numpy.random.Generator
            Passed to the base problem's `random_individual`.

        Returns
        -------
        Genotype
            The base problem's random genes, with an unevaluated ``fitness_class``
            fitness.
        """
        return Genotype(self.base.random_individual(rng), self.fitness_class())

    def evaluate(self, individual: Genotype, eval_seed: int | None = None) -> Evaluation:
        """The base evaluation, with one value per added objective.

        Parameters
        ----------
        individual : Genotype
            An individual of the base problem, under its current layout.
        eval_seed : int, optional
            Passed to the base problem's `evaluate`.

        Returns
        -------
        Evaluation
            The base fitness values, then for each added objective the constraint's
            measured value (its violation for a two-sided bound), with the base record
            and layout key unchanged.
        """
        return self._extended(self.base.evaluate(individual, eval_seed))

    def evaluation_parts(self) -> int:
        """The base problem's `evaluation_parts`."""
        return self.base.evaluation_parts()

    def evaluate_part(self, individual: Genotype, eval_seed: int | None = None,
                      part: int = 0) -> Any:
        """The base problem's `evaluate_part`.

        Parameters
        ----------
        individual : Genotype
            An individual of the base problem, under its current layout.
        eval_seed : int, optional
            Passed to the base problem.
        part : int
            In ``[0, evaluation_parts())``.

        Returns
        -------
        object
            What `join_parts` takes.
        """
        return self.base.evaluate_part(individual, eval_seed, part)

    def join_parts(self, individual: Genotype, eval_seed: int | None,
                   parts: Sequence[Any]) -> Evaluation:
        """The base problem's `join_parts`, with one value per added objective.

        Parameters
        ----------
        individual : Genotype
            The individual the parts evaluated.
        eval_seed : int or None
            The seed they were given.
        parts : sequence
            `evaluate_part`'s result for each part.

        Returns
        -------
        Evaluation
            What `evaluate` returns.
        """
        return self._extended(self.base.join_parts(individual, eval_seed, parts))

    def _extended(self, ev: Evaluation) -> Evaluation:
        """A base evaluation with the added objectives' values."""
        extra = []
        for name, violation in zip(self.objectives, self._use_violation, strict=True):
            value = ev.record[name]
            extra.append(self._constraints[name].violation(value) if violation else value)
        return Evaluation((*ev, *extra), ev.record, ev.layout_key,
                          self.weights)

    def mutation_context(self) -> dict[str, Any]:
        """The base problem's mutation context."""
        return self.base.mutation_context()

    def loop_context(self) -> AbstractContextManager:
        """The base problem's loop context."""
        return self.base.loop_context()

    def expect(self, evaluations: int) -> None:
        """The base problem's `expect`.

        Parameters
        ----------
        evaluations : int
            The run's evaluations.
        """
        self.base.expect(evaluations)

    def prefetch(self, individuals: Sequence[Genotype]) -> None:
        """The base problem's `prefetch`.

        Parameters
        ----------
        individuals : sequence of Genotype
            The batch about to be evaluated.
        """
        self.base.prefetch(individuals)

    def sample(self, individual: Genotype) -> tuple[np.ndarray, np.ndarray]:
        """The dataset of an individual.

        Parameters
        ----------
        individual : Genotype
            An individual under the base problem's current layout.

        Returns
        -------
        tuple of numpy.ndarray
            X of shape (N, D) and labels y of shape (N,), as the base problem's `sample`.
        """
        return cast("DatasetProblem", self.base).sample(individual)  # its base's sample

    def parameters(self) -> dict[str, Any]:
        """The base problem's parameters plus the objectives and weights."""
        return {**self.base.parameters(), "objectives": list(self.objective_names),
                "weights": list(self.weights)}

    def __repr__(self) -> str:
        return f"{self.base!r}.as_multiobjective({list(self.objectives)})"
