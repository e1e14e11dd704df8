"""The Problem protocol: everything a loop, a toolbox or a pool may ask of a problem.

A problem owns one generation task: the dataset layout (N, K, D, cluster sizes, the
common random numbers), the fitness, the constraints, the evaluator and its caches, and
the DEAP fitness class. It knows nothing about the loop that optimises it.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from hawks_deap._util.threads import blas_thread_limit
from hawks_deap._util.validation import check_int
from hawks_deap.genome.genotype import Evaluation, Genotype, Layout, RecordFitness
from hawks_deap.problems.constraints import Constraint

__all__ = ["Problem"]


class Problem(ABC):
    """What every problem offers to toolboxes and loops: the whole protocol, declared.

    Loops and pools use nothing of a problem but what is declared here.

    Attributes
    ----------
    fitness_class : type
        The DEAP fitness class of its individuals (a `RecordFitness` subclass).
    layout : Layout or None
        The layout of the current run, made by `prepare`.
    parallel_by_default : bool
        Whether an evaluation is expensive enough that `hawks_deap.evolve` uses one
        process per core when neither ``n_jobs`` nor ``map`` is given (Versus mode), and
        a pool sends one individual per task rather than one batch per worker.
    n_threads : int or None
        Native (BLAS/OpenMP) threads an evaluation may use; None: the libraries' own
        setting. A pool never forks workers whose evaluations may use several threads.
    constraints : sequence of Constraint
        The problem's constraints (none by default). Under NSGA-II/III, `hawks_deap.evolve`
        makes each one more objective (`as_multiobjective`), whether the problem has one
        objective of its own or several.
    evaluation_bytes : int
        A lower bound on the memory one evaluation needs besides the run's own (a Versus
        problem with a pairwise linkage: its distances); 0 when none is declared.
        `hawks_deap.evolve` refuses an ``n_jobs`` whose evaluations at once cannot fit
        in this machine's memory, and its default ``n_jobs`` starts no more processes
        than fit.
    n_clusters : int
        K, the number of genes of an individual: `hawks_deap.make_toolbox` and
        `hawks_deap.evolve` read it for the population's memory bound and for the
        operators that need several clusters (``mean_mutation="de"``: K >= 3). Every
        problem sets it.
    """

    fitness_class: type[RecordFitness]
    n_clusters: int
    layout: Layout | None = None
    parallel_by_default: bool = False
    n_threads: int | None = None
    evaluation_bytes: int = 0
    constraints: Sequence[Constraint] = ()

    @abstractmethod
    def prepare(self, rng: np.random.Generator) -> Layout:
        """Start a run: draw the layout (sizes, common random numbers), reset caches.

        Parameters
        ----------
        rng : numpy.random.Generator
            Source of the layout's draws.

        Returns
        -------
        Layout
            The new layout, also kept as ``layout``.
        """

    @abstractmethod
    def random_individual(self, rng: np.random.Generator) -> Genotype:
        """A random initial individual.

        Parameters
        ----------
        rng : numpy.random.Generator
            Source of the individual's draws.

        Returns
        -------
        Genotype
            An unevaluated individual with a ``fitness_class`` fitness.
        """

    @abstractmethod
    def evaluate(self, individual: Genotype, eval_seed: int | None = None) -> Evaluation:
        """Fitness values and evaluation record of an individual.

        ``eval_seed`` seeds any randomness of the evaluation (stochastic clustering in
        Versus mode); deterministic problems ignore it.

        Parameters
        ----------
        individual : Genotype
            An individual of this problem, under the current layout.
        eval_seed : int, optional
            Seed of this evaluation's randomness; None: the problem's own default.

        Returns
        -------
        Evaluation
            The fitness values, carrying the evaluation record.
        """

    @abstractmethod
    def parameters(self) -> dict[str, Any]:
        """JSON-ready description of the problem (for dataset metadata)."""

    def snapshot(self) -> Problem:
        """A copy bound to the current layout: a later `prepare` of either leaves the other.

        Each toolbox of `hawks_deap.make_toolbox` and each run's `hawks_deap.Result`
        keeps one, so that several toolboxes made from one problem (islands) and the
        results of earlier runs keep their own layout. A shallow copy (layout, evaluator
        and caches shared until the next `prepare`, which replaces them): a problem whose
        `prepare` changes state in place must override it.

        Returns
        -------
        Problem
            The copy, of the same class.
        """
        return copy.copy(self)

    def mutation_context(self) -> dict[str, Any]:
        """Keyword arguments the mutation operators may need (e.g. the target)."""
        return {}

    def as_multiobjective(self, objectives: Iterable[str] | None = None) -> Problem:
        """The problem with one more objective per constraint (NSGA-II / NSGA-III).

        `hawks_deap.evolve` calls it, without ``objectives``, when ``algorithm`` is
        ``"nsga2"`` or ``"nsga3"`` and the problem has a single objective
        (`hawks_deap.make_toolbox` asks for the multi-objective problem itself). The
        default has no multi-objective form and raises a NotImplementedError (`evolve`
        then refuses the problem with a ValueError); `DatasetProblem` returns a
        `hawks_deap.problems.multiobjective.MultiObjectiveProblem`.

        Parameters
        ----------
        objectives : iterable of str, optional
            Measures of this problem's constraints to add as objectives; None: all.

        Returns
        -------
        Problem
            A new problem with several objectives; this one is unchanged.

        Raises
        ------
        NotImplementedError
            When the problem has no multi-objective form (the default).
        """
        raise NotImplementedError(f"{type(self).__name__} has no multi-objective form")

    def evaluation_parts(self) -> int:
        """Into how many independent tasks a pool may split one evaluation (1: none).

        A pool of several workers sends each part of each individual as a task of its
        own (`evaluate_part`) and joins the results in the parent (`join_parts`), so that
        a generation of few costly evaluations keeps every worker busy to its end; the
        values are those of `evaluate`. The default is one part, the evaluation itself.

        Returns
        -------
        int
            At least 1.
        """
        return 1

    def evaluate_part(self, individual: Genotype, eval_seed: int | None = None,
                      part: int = 0) -> Any:
        """Part ``part`` of `evaluate`'s work on ``individual`` (picklable).

        The default has the one part, which is `evaluate` itself.

        Parameters
        ----------
        individual : Genotype
            An individual of this problem, under the current layout.
        eval_seed : int, optional
            The evaluation's seed, as for `evaluate`.
        part : int
            In ``[0, evaluation_parts())``.

        Returns
        -------
        object
            What `join_parts` takes.
        """
        if check_int("part", part, minimum=0) != 0:
            raise ValueError(f"part must be 0: {type(self).__name__} evaluates in one part, "
                             f"got {part!r}")
        return self.evaluate(individual, eval_seed)

    def join_parts(self, individual: Genotype, eval_seed: int | None,
                   parts: Sequence[Any]) -> Evaluation:
        """`evaluate`'s result from the results of all of ``individual``'s parts.

        Parameters
        ----------
        individual : Genotype
            The individual the parts evaluated.
        eval_seed : int or None
            The seed they were given.
        parts : sequence
            `evaluate_part`'s result for each part, in any order (a pool sends the parts
            in an order of its own: the kind that took longest first), so the result
            must not depend on it.

        Returns
        -------
        Evaluation
            The default: the one part's result.
        """
        if len(parts) != 1:
            raise ValueError(f"parts must hold the one part of {type(self).__name__}'s "
                             f"evaluations, got {len(parts)}")
        return parts[0]

    def prefetch(self, individuals: Sequence[Genotype]) -> None:
        """Hook before a batch of evaluations (one generation's): fill caches together.

        Evaluations give the same values with or without it; the default does nothing.

        Parameters
        ----------
        individuals : sequence of Genotype
            The batch about to be evaluated.
        """
        return None

    def expect(self, evaluations: int) -> None:
        """Hook before a run: about how many evaluations it will make.

        For choices of speed only (e.g. loading compiled code that pays on long runs);
        evaluations give the same values with or without it. The default does nothing.

        Parameters
        ----------
        evaluations : int
            The run's evaluations, e.g. population size times (generations + 1).
        """
        return None

    def loop_context(self) -> AbstractContextManager:
        """Context held around a serial loop over this problem (set once per run).

        One BLAS thread by default: variation and evaluation multiply small matrices,
        for which more threads only cost.
        """
        return blas_thread_limit(1)
