"""The DEAP toolbox of a problem: `make_toolbox`.

`make_toolbox` registers the HAWKS operators for a problem in a ``deap.base.Toolbox``,
usable with ``deap.algorithms``, DEAP's selections, pools and checkpoints; `evolve`
builds its own toolbox the same way (`build_toolbox`). A run's random streams
(`seed_streams`) are addressed children of its seed, one per use (`STREAMS`).
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from deap import base, tools

from hawks_deap._util.memory import check_fits, population_bytes
from hawks_deap._util.validation import (
    as_seed_sequence,
    check_choice,
    check_int,
    check_probability,
    child_sequence,
)
from hawks_deap.genome.genotype import Genotype, clone
from hawks_deap.operators import (
    MEAN_MUTATIONS,
    check_mutation_options,
    cx_uniform,
    mean_needs,
    mutate,
    mutate_many,
    sel_hawks,
    sel_nsga3,
    sel_stochastic_ranking,
    sel_tournament_crowded,
    sel_tournament_rank,
)
from hawks_deap.operators._rng import numpy_rng
from hawks_deap.problems.base import DatasetProblem, Problem

# public: make_toolbox, and check_population (the command line checks with it); the other
# names are this module's internals that the loop shares (`hawks_deap.algorithms.loop`)
__all__ = ["ALGORITHMS", "check_population", "make_toolbox"]

#: Streams spawned from a run's SeedSequence, in this order.
STREAMS = ("layout", "init", "variation", "selection", "evaluation")


def seed_streams(seed: object) -> tuple[np.random.SeedSequence, dict[str, np.random.Generator]]:
    """A run's SeedSequence and one numpy generator per stream of `STREAMS`."""
    ss = as_seed_sequence(seed)
    # addressed children, not ss.spawn(): spawning advances a caller's SeedSequence, so
    # the same SeedSequence passed twice would give two different runs (for a fresh
    # sequence both give the same children)
    return ss, {name: np.random.default_rng(child_sequence(ss, i))
                for i, name in enumerate(STREAMS)}


def make_toolbox(problem: Problem, *, seed: object = None,
                 mean_mutation: str | Callable[..., Any] = "pso",
                 p_f: float = 0.5, p_mean: float | None = None, p_cov: float | None = None,
                 mean_kwargs: Mapping[str, Any] | None = None,
                 cov_kwargs: Mapping[str, Any] | None = None,
                 map: Callable | None = None,  # noqa: A002 - DEAP's name
                 algorithm: str = "hawks", population_size: int = 10,
                 nsga3_divisions: int | None = None) -> base.Toolbox:
    """A DEAP toolbox with the HAWKS operators for ``problem``.

    Calls ``problem.prepare`` (new layout and caches) with a stream of ``seed``, and
    binds the toolbox to its own copy of the prepared problem (`Problem.snapshot`,
    ``toolbox.problem``): several toolboxes made from one problem (islands) are
    independent; ``problem`` itself keeps the layout of the last toolbox made from it.

    Parameters
    ----------
    problem : Problem
        E.g. an `hawks_deap.IndexProblem`.
    seed : int, SeedSequence, Generator or None
        Seeds the toolbox's own layout, initialisation, variation and selection
        streams. None follows DEAP's convention: the layout's seed is drawn from Python's
        ``random`` and the operators draw from ``random`` at each call (``rng=None``):
        ``random.seed(...)`` first repeats a run, and ``random.getstate()`` saved with
        the population (DEAP's checkpoint tutorial) resumes it exactly, in a new process
        with a toolbox made again the same way.
    mean_mutation : {"gaussian", "rails", "pso", "pso-informed", "de"} or callable
        Mean operator used by ``mutate``: a name, or a researcher's own operator with the
        signature of the ``mut_mean_*`` building blocks
        (`hawks_deap.operators.resolve_mean_mutation`).
    p_f : float
        Stochastic ranking's probability of comparing on fitness.
    p_mean, p_cov : float, optional
        Per-cluster mutation probabilities (default 1/K).
    mean_kwargs, cov_kwargs : mapping, optional
        Options of the mean operator and of ``mut_cov_haar``.
    map : callable, optional
        Registered as ``toolbox.map`` (e.g. ``pool.map``); builtin ``map`` by default.
    algorithm : {"hawks", "nsga2", "nsga3"}
        Which ``select`` / ``rank`` / ``parent_select`` to register: HAWKS selection
        (`hawks_deap.operators.sel_hawks`: stochastic ranking for survivors, rank
        tournaments when a whole generation of parents is asked for, as eaSimple does),
        stochastic ranking and rank tournaments; ``deap.tools.selNSGA2`` and crowded
        tournaments; or NSGA-III selection (`hawks_deap.operators.sel_nsga3`) and uniform
        mating. For NSGA, pass a multi-objective problem (``problem.as_multiobjective()``).
        NSGA's ``select`` chooses survivors: use it with eaMuPlusLambda (as DEAP's NSGA-II
        example does) or `hawks_deap.evolve`; under eaSimple, which asks it for the whole
        population, it returns every individual and selects nothing.
    population_size : int
        Used by NSGA-III to choose the number of reference-point divisions.
    nsga3_divisions : int, optional
        Divisions of ``deap.tools.uniform_reference_points`` (default: the most whose
        points do not outnumber the population); only with ``algorithm="nsga3"``
        (ValueError otherwise: no other algorithm has reference points).

    Returns
    -------
    deap.base.Toolbox
        With ``individual``, ``population``, ``evaluate``, ``mate``, ``mutate`` (and
        ``mutate_many``), ``select``, ``rank`` (the whole pool ranked), ``parent_select``
        (rank tournament), ``clone`` and ``map``. It works with the evolutionary
        algorithms of ``deap.algorithms`` (eaSimple, eaMuPlusLambda, eaMuCommaLambda,
        varAnd/varOr loops; not eaGenerateUpdate, which needs a strategy's ``generate``
        and ``update``); DEAP's algorithms draw from Python's ``random`` module, which the caller
        seeds. ``toolbox.problem`` is its problem, with its layout. With an int seed
        the toolbox holds its own generators: DEAP's checkpoint recipe must then pickle
        the toolbox with the population to resume the same run (the guide's "DEAP recipes").
    """
    check_problem(problem)
    check_mutation(problem, mean_mutation, mean_kwargs, cov_kwargs)
    p_f = check_probability("p_f", p_f)
    if p_mean is not None:
        check_probability("p_mean", p_mean)
    if p_cov is not None:
        check_probability("p_cov", p_cov)
    check_choice("algorithm", algorithm, ALGORITHMS)
    population_size = check_population(problem, population_size)
    check_divisions(nsga3_divisions, algorithm)
    check_map(map, 1)
    n_obj = len(problem.fitness_class().weights)
    if algorithm != "hawks" and n_obj < 2:
        raise ValueError(f"algorithm={algorithm!r} needs a multi-objective problem: pass "
                         "problem.as_multiobjective()")
    from hawks_deap.problems.multiobjective import MultiObjectiveProblem

    if (algorithm != "hawks" and bool(problem.constraints)
            and not isinstance(problem, MultiObjectiveProblem)):
        # (MultiIndexProblem, MultiVersusProblem: NSGA's selection sees objectives only)
        raise ValueError(f"algorithm={algorithm!r} selects on the objectives alone: the "
                         "constraints of this multi-objective problem would only be "
                         "recorded. Pass problem.as_multiobjective() (one more objective per "
                         "constraint, as hawks_deap.evolve does), or a problem without "
                         "constraints")
    if algorithm == "hawks":
        check_single_objective(n_obj)
    before = random.getstate()
    _, streams = seed_streams(seed)
    rngs: dict[str, np.random.Generator | None] = dict(streams)
    if seed is None:  # DEAP's convention: every draw from `random` (getstate saves it)
        rngs.update(init=None, variation=None, selection=None)
    # (the layout's seed was the only draw from `random`: the state the toolbox leaves)
    check = _ReseedCheck(random.getstate(), before) if seed is None else None
    return build_toolbox(problem, rngs, mean_mutation=mean_mutation, p_f=p_f, p_mean=p_mean,
                          p_cov=p_cov, mean_kwargs=mean_kwargs, cov_kwargs=cov_kwargs,
                          map_fn=map, algorithm=algorithm, population_size=population_size,
                          nsga3_divisions=nsga3_divisions, reseed_check=check)


#: The index of Python's Mersenne Twister state right after ``random.seed``.
RESEEDED_INDEX = 624


class _ReseedCheck:
    """Warns, once, when `random` was seeded again after a toolbox drew its layout from it.

    DEAP's examples make their toolbox at import and call ``random.seed`` in ``main()``:
    with ``make_toolbox(seed=None)`` the layout (cluster sizes, draws) then comes from an
    unseeded ``random``, and every run of the script evolves another dataset, silently.
    ``random.seed`` leaves Python's Mersenne Twister at index 624 (nothing drawn since);
    seen at the first individual with a state other than the one the toolbox left, that
    is the mark of a seeding after the toolbox was made. Unless it is the state the
    layout was drawn from (``random.seed(64)`` both before the toolbox and in ``main()``,
    as some scripts do: the layout repeats). A fresh interpreter's `random` is at that
    index too, seeded from the system, so the index alone cannot tell.
    """

    def __init__(self, state: tuple[Any, ...], drawn_from: tuple[Any, ...]) -> None:
        self.state: tuple[Any, ...] | None = state
        self.drawn_from = drawn_from

    def __call__(self) -> None:
        if self.state is None:
            return
        state, self.state = self.state, None
        now = random.getstate()
        if now != state and now[1][-1] == RESEEDED_INDEX and now != self.drawn_from:
            warnings.warn(
                "make_toolbox(seed=None) drew this toolbox's layout (cluster sizes and draws) "
                "from Python's random before random.seed(...) was called again: a script "
                "that makes its toolbox before seeding gets another layout, hence another "
                "dataset, on every run. Call random.seed(...) before make_toolbox, or pass "
                "make_toolbox(seed=...)", RuntimeWarning, stacklevel=4)



def check_divisions(nsga3_divisions: int | None, algorithm: str) -> None:
    """Refuse ``nsga3_divisions`` that is not an integer >= 1, or given without NSGA-III.

    Silently ignored, divisions given to another algorithm would suggest reference
    points the run does not have.
    """
    if nsga3_divisions is None:
        return
    check_int("nsga3_divisions", nsga3_divisions, minimum=1)
    if algorithm != "nsga3":
        raise ValueError(f"nsga3_divisions={nsga3_divisions} sets NSGA-III's reference "
                         f"points; algorithm={algorithm!r} has none: give "
                         "algorithm='nsga3' or leave nsga3_divisions out")


def check_mutation(problem: Problem, mean_mutation: str | Callable[..., Any],
                    mean_kwargs: Mapping[str, Any] | None,
                    cov_kwargs: Mapping[str, Any] | None) -> None:
    """Refuse, before any work, what the mutation would refuse.

    Its options (`check_mutation_options`), or a mean operator the problem cannot feed.
    """
    check_mutation_options(mean_mutation, mean_kwargs, cov_kwargs)
    needs_target, min_clusters, _ = mean_needs(mean_mutation)
    if needs_target and "target" not in problem.mutation_context():
        valid = [m for m in MEAN_MUTATIONS if not mean_needs(m)[0]]
        raise ValueError(f"mean_mutation={mean_mutation!r} needs the individual's index "
                         f"value and a target, which {type(problem).__name__} has not (Index "
                         f"mode only); valid here: {', '.join(map(repr, valid))}")
    if problem.n_clusters < min_clusters:
        raise ValueError(f"mean_mutation={mean_mutation!r} needs n_clusters >= {min_clusters}, "
                         f"got {problem.n_clusters}")


def _individual(problem: Problem, rng: np.random.Generator | None,
                check: Callable[[], None] | None = None) -> Genotype:
    """A random individual of ``problem`` (rng None: a Generator seeded from ``random``).

    ``check``: called first (`_ReseedCheck`, for toolboxes that draw from ``random``).
    """
    if check is not None:
        check()
    return problem.random_individual(numpy_rng(rng))


def build_toolbox(problem: Problem, rngs: Mapping[str, np.random.Generator | None], *,
                   mean_mutation: str | Callable[..., Any], p_f: float,
                   p_mean: float | None, p_cov: float | None,
                   mean_kwargs: Mapping[str, Any] | None, cov_kwargs: Mapping[str, Any] | None,
                   map_fn: Callable | None, algorithm: str = "hawks",
                   nsga3_divisions: int | None = None,
                   population_size: int = 10, prepare: bool = True,
                   reseed_check: Callable[[], None] | None = None) -> base.Toolbox:
    """The toolbox of `make_toolbox` and `evolve`, from checked arguments and streams.

    ``reseed_check``: called before the first individual (`_ReseedCheck`).
    """
    if prepare:
        layout_rng = rngs["layout"]
        assert layout_rng is not None  # never None (seed_streams)
        problem.prepare(layout_rng)
    problem = problem.snapshot()  # its own layout: the next toolbox prepares the caller's
    layout = problem.layout
    toolbox = base.Toolbox()
    toolbox.problem = problem
    toolbox.register("individual", _individual, problem, rngs["init"], reseed_check)
    toolbox.register("population", tools.initRepeat, list, toolbox.individual)
    toolbox.register("evaluate", problem.evaluate)
    toolbox.register("mate", cx_uniform, rng=rngs["variation"])
    for name, function in (("mutate", mutate), ("mutate_many", mutate_many)):
        toolbox.register(name, function, rng=rngs["variation"], mean_mutation=mean_mutation,
                         p_mean=p_mean, p_cov=p_cov, layout=layout, mean_kwargs=mean_kwargs,
                         cov_kwargs=cov_kwargs, **problem.mutation_context())
    if algorithm == "hawks":
        toolbox.register("select", sel_hawks, rng=rngs["selection"], p_f=p_f)
        toolbox.register("rank", sel_stochastic_ranking, rng=rngs["selection"], p_f=p_f)
        toolbox.register("parent_select", sel_tournament_rank, rng=rngs["selection"])
    elif algorithm == "nsga2":
        toolbox.register("select", tools.selNSGA2)
        toolbox.register("rank", tools.selNSGA2)
        toolbox.register("parent_select", sel_tournament_crowded, rng=rngs["selection"])
    else:
        n_obj = len(problem.fitness_class().weights)
        divisions = (_default_divisions(n_obj, population_size) if nsga3_divisions is None
                     else nsga3_divisions)
        toolbox.register("select", sel_nsga3, rng=rngs["selection"],
                         ref_points=tools.uniform_reference_points(n_obj, divisions))
        toolbox.register("rank", toolbox.select)
        # Deb & Jain (2014) mate uniformly at random: a tournament of size 1.
        toolbox.register("parent_select", sel_tournament_rank, rng=rngs["selection"],
                         tournsize=1)
    toolbox.register("clone", clone)
    toolbox.register("map", map_fn if map_fn is not None else map)
    return toolbox


def _default_divisions(n_objectives: int, population_size: int) -> int:
    """Largest number of divisions whose reference points do not outnumber the population.

    ``uniform_reference_points(M, p)`` makes C(p + M - 1, M - 1) points; at least 1 division.
    """
    p = 1
    while math.comb(p + 1 + n_objectives - 1, n_objectives - 1) <= population_size:
        p += 1
    return p



def check_problem(problem: Any) -> None:
    """Raise ``TypeError`` unless ``problem`` is a `Problem`."""
    if not isinstance(problem, Problem):
        raise TypeError(f"problem must be a hawks_deap Problem (e.g. hd.IndexProblem(...) or "
                        f"hd.VersusProblem(...)), got {problem!r}")


def check_population(problem: Problem, population_size: object) -> int:
    """``population_size`` if an integer >= 2 whose population fits in memory, up front.

    Called by `make_toolbox`, `evolve` and the command line (`hawks_deap.cli`).

    Parameters
    ----------
    problem : Problem
        The problem whose individuals the population holds (its K, and D for a
        `DatasetProblem`).
    population_size : int
        The number of individuals.

    Returns
    -------
    int
        ``population_size``.
    """
    size = check_int("population_size", population_size, minimum=2)
    n_dims = problem.n_dims if isinstance(problem, DatasetProblem) else 1  # else: a bound
    # a generation holds its parents and as many offspring: clones that share their
    # parents' genes until mutated (counted as their own individuals, without genes)
    need = (population_bytes(size, problem.n_clusters, n_dims)
            + population_bytes(size, 0, n_dims))
    check_fits("a population (parents and offspring)", need,
               {"population_size": size, "n_clusters": problem.n_clusters, "n_dims": n_dims})
    return size


#: The loops `evolve` runs (``algorithm=``): HAWKS' own (stochastic ranking, single
#: objective), NSGA-II and NSGA-III (on the problem's multi-objective form).
ALGORITHMS = ("hawks", "nsga2", "nsga3")


def check_single_objective(n_obj: int) -> None:
    """Raise unless ``n_obj`` is 1: the HAWKS loop ranks whole fitnesses."""
    # sel_hawks compares whole fitnesses: lexicographic, meaningless for several objectives
    if n_obj != 1:
        raise ValueError(f"algorithm='hawks' needs a single-objective problem, got {n_obj} "
                         "objectives; use algorithm='nsga2' or 'nsga3'")


def check_map(map_fn: Callable | None, n_jobs: int) -> None:
    """Raise if both a ``map`` and ``n_jobs > 1`` are given."""
    if map_fn is not None and not callable(map_fn):
        raise TypeError(f"map must be a callable map(func, iterable), got {map_fn!r}")
    if map_fn is not None and n_jobs != 1:
        raise ValueError(f"give either map= or n_jobs= (got n_jobs={n_jobs} and a map)")
