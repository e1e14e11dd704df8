"""What a run returns: `Result`, the states callbacks see, and the choice of the best.

`select_best` (the best feasible individual, else the smallest penalty) is what a run
keeps as it goes; `final_fittest` is what HAWKS 0.2.0 returns (the final population's
best fitness, penalty ignored); `final_top_ranked` is what the authors' Index-mode script
asks for (``"comparison": "ranking"``: the top of the final stochastic ranking).
`hawks_deap.evolve`'s ``returns`` chooses among them (`RETURNS`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deap import tools

from hawks_deap._util.names import qualified_name
from hawks_deap._util.validation import check_bool, check_int
from hawks_deap.genome.genotype import Genotype, genotype_equal
from hawks_deap.operators import record_penalty
from hawks_deap.problems.base import Problem

if TYPE_CHECKING:
    from hawks_deap.io.dataset import Dataset
    from hawks_deap.problems.versus import VersusProblem

__all__ = ["RETURNS", "FeasibleHallOfFame", "GenerationState", "Result", "final_fittest",
           "final_top_ranked",
           "select_best"]


class FeasibleHallOfFame(tools.HallOfFame):
    """DEAP's ``HallOfFame`` of the individuals that meet every constraint.

    HAWKS handles constraints in its selection (stochastic ranking), not in the
    fitness: an individual's fitness is its objective alone, with the constraints'
    penalty in its evaluation record (`hawks_deap.operators.record_penalty`). DEAP's
    ``tools.HallOfFame`` compares fitness only, so under DEAP's algorithms it fills
    with the best objectives, feasible or not. This one admits an individual only when
    its penalty is 0 (the hall of fame `hawks_deap.evolve` keeps, ``Result.hall_of_fame``);
    pass it as ``halloffame=`` to ``deap.algorithms.eaSimple`` and the others.

    Parameters
    ----------
    maxsize : int
        The individuals kept, best first.
    similar : callable
        As DEAP's; default `hawks_deap.genome.genotype.genotype_equal` (the same genes).

    Examples
    --------
    >>> from deap import algorithms
    >>> hof = FeasibleHallOfFame(5)
    >>> # algorithms.eaSimple(population, toolbox, 0.7, 0.5, 20, halloffame=hof)
    """

    def __init__(self, maxsize: int, similar: Any = genotype_equal) -> None:
        maxsize = check_int("maxsize", maxsize, minimum=1)
        if not callable(similar):
            raise TypeError(f"similar must be a callable (a, b) -> bool, got {similar!r}")
        super().__init__(maxsize, similar=similar)

    def update(self, population: Iterable[Genotype]) -> None:
        """Add the feasible individuals of ``population`` that beat the worst kept.

        Parameters
        ----------
        population : iterable of Genotype
            Evaluated individuals; those whose record has a penalty above 0 are skipped.
        """
        super().update([ind for ind in population if record_penalty(ind) == 0.0])

    @classmethod
    def adopt(cls, hof: tools.HallOfFame) -> FeasibleHallOfFame:
        """A `FeasibleHallOfFame` holding what a plain ``HallOfFame`` holds.

        For checkpoints written before this class, whose loop gave its plain hall of
        fame feasible individuals only.

        Parameters
        ----------
        hof : deap.tools.HallOfFame
            A hall of fame; returned as it is if already a `FeasibleHallOfFame`.

        Returns
        -------
        FeasibleHallOfFame
        """
        if isinstance(hof, cls):
            return hof
        out = cls(hof.maxsize, similar=hof.similar)
        out.update(list(hof))
        return out


def select_best(individuals: Iterable[Genotype]) -> Genotype | None:
    """The best feasible individual by fitness; if none is feasible, the smallest penalty.

    Ties in penalty are broken by fitness. Individuals without a valid fitness are
    ignored; returns None when there is none.

    Parameters
    ----------
    individuals : iterable of Genotype
        Evaluated with a record (`hawks_deap.operators.record_penalty`); anything but an
        iterable of `Genotype` raises TypeError.

    Returns
    -------
    Genotype or None
        One of ``individuals`` (a reference), the first of equals.
    """
    valid = _evaluated(individuals, "individuals")
    if not valid:
        return None
    feasible = [ind for ind in valid if record_penalty(ind) == 0.0]
    if feasible:
        return max(feasible, key=lambda ind: ind.fitness.wvalues)
    return min(valid, key=lambda ind: (record_penalty(ind), tuple(-w for w in ind.fitness.wvalues)))


def _evaluated(individuals: Iterable[Genotype], name: str) -> list[Genotype]:
    """The individuals with a valid fitness; anything but an iterable of Genotypes is refused."""
    if not isinstance(individuals, Iterable):
        raise TypeError(f"{name} must be an iterable of individuals, got "
                        f"{type(individuals).__name__}")
    individuals = list(individuals)
    for ind in individuals:
        if not isinstance(ind, Genotype):
            raise TypeError(f"{name} must hold hawks_deap individuals (Genotype), got "
                            f"{type(ind).__name__}")
    return [ind for ind in individuals if ind.fitness.valid]


#: Which individual a run returns as ``Result.best`` (`evolve`'s ``returns``):
#: ``"best-feasible"`` (`select_best` over the run, the default), ``"final-fittest"``
#: (`final_fittest` of the final population: HAWKS 0.2.0, ``"comparison": "fitness"``),
#: ``"final-top-ranked"`` (`final_top_ranked`: ``"comparison": "ranking"``).
RETURNS = ("best-feasible", "final-fittest", "final-top-ranked")


def final_fittest(population: Iterable[Genotype]) -> Genotype | None:
    """The individual of best fitness in ``population``, its penalty ignored.

    What HAWKS 0.2.0 returns (the paper, section III: "the individual with the best
    fitness"): the smallest ``|s_t - s|`` of the final population in Index mode, which may
    violate the constraints while feasible individuals exist. Compared on the first
    objective (the single-objective problem's fitness in the NSGA forms); ties go to the
    earlier individual, i.e. the better ranked in a ranked population. Individuals
    without a valid fitness are ignored; returns None when there is none.

    Parameters
    ----------
    population : iterable of Genotype
        Anything but an iterable of `Genotype` raises TypeError.

    Returns
    -------
    Genotype or None
        One of ``population`` (a reference).
    """
    valid = _evaluated(population, "population")
    if not valid:
        return None
    return max(valid, key=lambda ind: ind.fitness.wvalues[0])


def final_top_ranked(population: Iterable[Genotype]) -> Genotype | None:
    """The first individual of ``population``: the top of a ranked population.

    The HAWKS loop keeps its population as the first P of the stochastic ranking of
    parents and offspring (``toolbox.select``, `hawks_deap.operators.sel_hawks`), best
    first, so the final population's first individual is the top of the final ranking:
    what the authors' Index-mode script selects with ``"comparison": "ranking"`` (the
    paper, section IV-C, "Solution selection", names it as the alternative to its
    "highest fitness": "the individual with the highest (sorted) rank"). Unlike
    `final_fittest`, the ranking weighs the penalty: with ``p_f < 1`` a feasible
    individual can rank above a fitter infeasible one, but the top may still be
    infeasible. For ``algorithm="nsga2"`` / ``"nsga3"`` the population
    is in the order of their selection (first front first), not a stochastic ranking.
    Individuals without a valid fitness are skipped; returns None when there is none.

    Parameters
    ----------
    population : iterable of Genotype
        In ranked order, best first; anything but an iterable of `Genotype` raises
        TypeError.

    Returns
    -------
    Genotype or None
        One of ``population`` (a reference).
    """
    valid = _evaluated(population, "population")
    return valid[0] if valid else None


@dataclass
class GenerationState:
    """What callbacks receive after each generation (return True to stop the run).

    Attributes
    ----------
    generation : int
        The generation just completed: 1 after the first (0, the initial population,
        is not reported); a resumed run goes on counting.
    population : list of Genotype
        The run's current population (its own list, not a copy).
    logbook : deap.tools.Logbook
        The run's logbook, one row per generation so far.
    hall_of_fame : deap.tools.HallOfFame
        The best feasible individuals seen so far.
    best : Genotype or None
        The best feasible individual seen so far; if none was ever feasible, the one
        with the smallest penalty (`Result.best_feasible` so far, whatever ``returns``).
    """

    generation: int
    population: list[Genotype]
    logbook: tools.Logbook
    hall_of_fame: tools.HallOfFame
    best: Genotype | None


@dataclass
class Result:
    """The outcome of `evolve`.

    Attributes
    ----------
    problem : Problem
        The run's own copy of the problem (`Problem.snapshot`), with the run's layout:
        later runs or toolboxes of the caller's problem leave it as it is.
    population : list of Genotype
        Final population, ranked best first by stochastic ranking.
    logbook : deap.tools.Logbook
        One row per generation (0 is the initial population): ``gen``, ``nevals``,
        ``fitness_best``, ``fitness_median``, ``n_feasible`` and the record of the
        generation's best individual (``index``, constraint values, ``penalty``).
    hall_of_fame : deap.tools.HallOfFame
        The best feasible individuals seen during the run.
    best : Genotype
        The individual the run returns (`evolve`'s ``returns``): by default
        `best_feasible`; with ``returns="final-fittest"`` the final population's
        individual of best fitness, its penalty ignored (`final_fittest`); with
        ``returns="final-top-ranked"`` the first of the final, ranked population
        (`final_top_ranked`).
    seed : int or list of int
        Entropy of the run's SeedSequence: ``evolve(problem, seed=result.seed, ...)``
        repeats the run, unless it was seeded with a spawned SeedSequence (see
        `seed_spawn_key`).
    settings : dict
        The loop's settings, for metadata.
    generations_run : int
        Generations completed (fewer than asked when a callback stopped the run).
    pareto_front : deap.tools.ParetoFront or None
        For ``algorithm="nsga2"`` / ``"nsga3"``: the non-dominated individuals seen
        during the run; None for the HAWKS loop.
    best_feasible : Genotype or None
        The best feasible individual seen during the run; if none was ever feasible,
        the one with the smallest penalty (whatever ``returns`` says).
    seed_spawn_key : tuple of int
        The spawn key of the run's SeedSequence: empty unless it was spawned (e.g.
        ``SeedSequence(0).spawn(4)[1]``), when ``evolve(problem,
        seed=numpy.random.SeedSequence(result.seed, spawn_key=result.seed_spawn_key))``
        repeats the run. Saved datasets record it as ``seed_spawn_key`` when not empty.
    """

    problem: Problem
    population: list[Genotype]
    logbook: tools.Logbook
    hall_of_fame: tools.HallOfFame
    best: Genotype
    seed: int | list[int]
    settings: dict[str, Any] = field(default_factory=dict)
    generations_run: int = 0
    pareto_front: tools.ParetoFront | None = None
    best_feasible: Genotype | None = None
    seed_spawn_key: tuple[int, ...] = ()

    def dataset(self, individual: Genotype) -> Dataset:
        """The `hawks_deap.Dataset` of any individual of this run.

        Parameters
        ----------
        individual : Genotype
            An individual of this run (of its layout: one evaluated on another layout
            raises ValueError; anything but a `Genotype` raises TypeError).

        Returns
        -------
        hawks_deap.Dataset
            Its data, with the run's seed, settings and ``generations_run`` in its
            metadata.
        """
        from hawks_deap.io.dataset import Dataset

        # a researcher's own operator (a callable setting) is recorded by its name
        settings = {key: qualified_name(value) if callable(value) else value
                    for key, value in self.settings.items()}
        spawned = {"seed_spawn_key": list(self.seed_spawn_key)} if self.seed_spawn_key else {}
        return Dataset.from_individual(self.problem, individual,
                                       extra={"seed": self.seed, **spawned,
                                              "evolve": settings,
                                              "generations_run": self.generations_run})

    def best_dataset(self) -> Dataset:
        """The `hawks_deap.Dataset` of `best`."""
        return self.dataset(self.best)

    def save(self, out: str | os.PathLike, *, overwrite: bool = False,
             partitions: bool | None = None, format: str = "csv",  # noqa: A002
             metadata: Mapping[str, Any] | None = None) -> Path:
        """Write the run's directory as ``hawks-deap generate`` / ``versus`` write theirs.

        The best individual's dataset (`best_dataset`: ``data.csv`` or ``data.npz``,
        ``genes.json``, ``metadata.json``), ``logbook.csv`` (`logbook`) and, for a Versus
        problem, ``partitions.csv`` (the winner's and the loser's labels of the points),
        written atomically (`hawks_deap.io.run_files.save_run`): ``hawks-deap plot OUT``
        draws the dataset, the convergence and, for Versus, the two partitions.

        Parameters
        ----------
        out : str or os.PathLike
            The run directory; an existing one is refused (``FileExistsError``) unless
            ``overwrite``, checked before any work.
        overwrite : bool
            Replace an existing directory that hawks-deap wrote and that holds nothing
            but its files (anything else: ``ValueError``).
        partitions : bool, optional
            Write ``partitions.csv``; default: when the problem is a Versus problem
            (or the multi-objective form of one). True for another problem raises
            ``ValueError``.
        format : {"csv", "npz"}
            The file of the points (`hawks_deap.Dataset.save`).
        metadata : mapping, optional
            Entries added to the dataset's ``metadata.json`` (e.g. notes on the run).

        Returns
        -------
        pathlib.Path
            ``out``.
        """
        from hawks_deap._util.validation import check_choice
        from hawks_deap.io.dataset import DATA_FORMATS
        from hawks_deap.io.run_files import check_new_run_dir, save_run

        check_choice("format", format, DATA_FORMATS)
        if metadata is not None and not isinstance(metadata, Mapping):
            raise TypeError(f"metadata must be a mapping or None, got "
                            f"{type(metadata).__name__}")
        versus = partitions_source(self.problem, partitions)
        out = check_new_run_dir(out, overwrite)  # before the partitions' clustering
        dataset = self.best_dataset()
        dataset.metadata.update(metadata or {})
        labels = None if versus is None else versus.partitions(self.best)
        return save_run(dataset, out, logbook=self.logbook, partitions=labels,
                        overwrite=overwrite, format=format)


def partitions_source(problem: Problem, partitions: bool | None) -> VersusProblem | None:
    """The Versus problem whose partitions a saved run writes (``partitions.csv``), or None.

    ``partitions`` None: a Versus problem's runs have them, others not (the command
    line, suites and `Result.save` alike); True for another problem: ``ValueError``.
    """
    versus = _versus_problem(problem)
    if partitions is None:
        return versus
    if check_bool("partitions", partitions) and versus is None:
        raise ValueError(f"partitions=True needs a Versus problem (two algorithms' "
                         f"partitions), got {type(problem).__name__}")
    return versus if partitions else None


def _versus_problem(problem: Problem) -> VersusProblem | None:
    """The Versus problem a run evolved (unwrapped from its multi-objective form), or None."""
    from hawks_deap.problems.multiobjective import MultiObjectiveProblem
    from hawks_deap.problems.versus import VersusProblem

    base = problem.base if isinstance(problem, MultiObjectiveProblem) else problem
    return base if isinstance(base, VersusProblem) else None
