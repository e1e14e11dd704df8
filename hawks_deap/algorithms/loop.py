"""The HAWKS evolutionary loop: `evolve` and `resume`.

`evolve` runs the HAWKS loop (paper III-F): rank-tournament parent selection on the
ranked population, cloning, uniform crossover, mutation of every offspring, evaluation of
the changed ones through ``map``, and stochastic ranking of parents plus offspring; or
NSGA-II / NSGA-III on a problem's multi-objective form. `resume` goes on from a
checkpoint.
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from typing import Any

import numpy as np
from deap import tools

from hawks_deap._util.memory import check_processes, fitting_processes
from hawks_deap._util.validation import (
    check_bool,
    check_choice,
    check_int,
    check_probability,
    int_seed,
)
from hawks_deap._util.workers import check_workers, usable_cores
from hawks_deap.algorithms.checkpoints import (
    CHECKPOINT_FORMAT,
    check_checkpoint_path,
    read_checkpoint,
)
from hawks_deap.algorithms.pool import EvaluateTask, ProblemPool, serial_reason
from hawks_deap.algorithms.result import (
    RETURNS,
    FeasibleHallOfFame,
    GenerationState,
    Result,
    final_fittest,
    final_top_ranked,
    select_best,
)
from hawks_deap.algorithms.toolbox import (
    ALGORITHMS,
    STREAMS,
    build_toolbox,
    check_divisions,
    check_map,
    check_mutation,
    check_population,
    check_problem,
    check_single_objective,
    seed_streams,
)
from hawks_deap.genome.genotype import Genotype, genotype_equal
from hawks_deap.operators import (
    record_penalty,
)
from hawks_deap.problems.base import Problem

__all__ = ["ALGORITHMS", "evolve", "resume"]

#: Where a run says that it evaluates serially although ``n_jobs > 1`` (level INFO).
_logger = logging.getLogger(__name__)

def _resolve_problem(problem: Problem, algorithm: str) -> Problem:
    """The problem in the form the algorithm needs (multi-objective for NSGA)."""
    from hawks_deap.problems.multiobjective import MultiObjectiveProblem

    check_choice("algorithm", algorithm, ALGORITHMS)
    n_obj = len(problem.fitness_class().weights)
    if algorithm == "hawks":
        check_single_objective(n_obj)
        return problem
    # a single objective, or several with constraints (MultiIndexProblem,
    # MultiVersusProblem): one more objective per constraint, which NSGA's selection
    # then weighs (a constraint only recorded would not act on the run at all)
    constrained = bool(problem.constraints)
    if not isinstance(problem, MultiObjectiveProblem) and (n_obj == 1 or constrained):
        try:  # the protocol's default raises NotImplementedError: no multi-objective form
            problem = problem.as_multiobjective()
        except NotImplementedError:
            if n_obj == 1:
                raise ValueError(f"algorithm={algorithm!r} needs a multi-objective "
                                 "problem") from None
    n_obj = len(problem.fitness_class().weights)
    if n_obj < 2:
        raise ValueError(f"algorithm={algorithm!r} needs at least 2 objectives, the problem "
                         f"has {n_obj}: add constraints, or objectives to as_multiobjective()")
    return problem


def _eval_seed(ss: np.random.SeedSequence, generation: int, position: int) -> int:
    """The seed of one evaluation: a child of the run's sequence past its streams."""
    return int_seed(ss, len(STREAMS), generation, position)


def _log_row(gen: int, nevals: int, population: Sequence[Genotype]) -> dict[str, Any]:
    values = np.array([ind.fitness.values[0] for ind in population])
    best = select_best(population)
    row: dict[str, Any] = {
        "gen": gen,
        "nevals": nevals,
        "fitness_best": float(max(population, key=lambda i: i.fitness.wvalues).fitness.values[0]),
        "fitness_median": float(np.median(values)),
        "n_feasible": int(sum(record_penalty(ind) == 0.0 for ind in population)),
    }
    if best is not None:
        for key, value in best.record.items():
            if isinstance(value, (int, float, np.floating, np.integer)) and not isinstance(
                    value, bool):
                row[key] = float(value)
    return row


def evolve(problem: Problem, *, population_size: int = 10, generations: int = 100,
           p_crossover: float = 0.7, p_f: float = 0.5,
           mean_mutation: str | Callable[..., Any] = "pso",
           seed: object = None, map: Callable | None = None,  # noqa: A002 - DEAP's name
           n_jobs: int | None = None,
           callbacks: Iterable[Callable[[GenerationState], Any]] = (),
           progress: bool = False, p_mean: float | None = None, p_cov: float | None = None,
           mean_kwargs: Mapping[str, Any] | None = None,
           cov_kwargs: Mapping[str, Any] | None = None,
           hall_of_fame_size: int = 10, algorithm: str = "hawks",
           nsga3_divisions: int | None = None, checkpoint: str | os.PathLike | None = None,
           checkpoint_every: int = 10, returns: str = "best-feasible") -> Result:
    """Run HAWKS on a problem.

    Parameters
    ----------
    problem : Problem
        What to evolve (e.g. `hawks_deap.IndexProblem`).
    population_size : int
        P (>= 2).
    generations : int
        G (>= 1).
    p_crossover : float
        Probability that a pair of offspring is crossed (paper: 0.7).
    p_f : float
        Stochastic ranking's probability of comparing on fitness (paper: 0.5).
    mean_mutation : {"gaussian", "rails", "pso", "pso-informed", "de"} or callable
        Mean operator (paper: "pso", PSO-random), or a researcher's own, as in
        `make_toolbox`.
    seed : int, SeedSequence, Generator or None
        Makes the run reproducible: the same problem arguments and seed give
        byte-identical datasets, whatever ``map`` or ``n_jobs``. None draws the seed
        from Python's ``random`` (DEAP's convention: ``random.seed(...)`` first repeats
        the run); ``Result.seed`` records it either way.
    map : callable, optional
        A ``map`` for evaluations (DEAP style, e.g. ``pool.map``).
    n_jobs : int, optional
        With no ``map``: the number of processes that evaluate, kept for the whole run
        (1: serial; at most `hawks_deap._util.workers.MAX_WORKERS`, else ``ValueError``;
        at most one per task of a generation are started: one per individual, or per
        part of its evaluation where the problem has several, ``evaluation_parts()``, as
        a Versus individual's clusterings and its constraints). Default: serial, except
        for problems whose evaluations are expensive (``parallel_by_default``: Versus
        mode), which get one process per core this process may run on (its CPU
        affinity: a batch job's or ``taskset``'s cores, not the machine's), at most
        that many, and no more than the machine's memory holds evaluations of at once (the problem's
        ``evaluation_bytes``: a pairwise linkage's distances; an explicit ``n_jobs``
        beyond that is a ``ValueError`` naming how many fit). An
        Index-mode run too small
        for a pool to pay (``P x N x (K + D)`` below
        `hawks_deap.algorithms.pool.POOL_MIN_WORK`: measured slower with two processes
        than with one) evaluates serially whatever ``n_jobs``, and logs why (logger
        ``hawks_deap.algorithms.loop``, level INFO). With n_jobs > 1 the run
        registers the ``map`` of a `hawks_deap.algorithms.ProblemPool` as ``toolbox.map``,
        as a user would; each worker keeps its own caches (the evaluator's byte budget
        applies to each). Results never depend on it. This process holds
        ``problem.loop_context()`` (one BLAS thread by default: its matrices are small;
        Versus problems: their ``n_threads``) for the whole loop, callbacks included;
        when it evaluates a batch itself it hands it to ``problem.prefetch`` first (Index
        mode: the batch's overlap pairs are computed together).
    callbacks : iterable of callables
        Called with a `GenerationState` after each generation; a true return value stops
        the run.
    progress : bool
        Show a tqdm progress bar over generations.
    p_mean, p_cov : float, optional
        Per-cluster mutation probabilities (default 1/K).
    mean_kwargs, cov_kwargs : mapping, optional
        Options of the mean operator and of the covariance operator.
    hall_of_fame_size : int
        Capacity of the hall of fame of feasible individuals.
    algorithm : {"hawks", "nsga2", "nsga3"}
        The HAWKS loop (stochastic ranking), or NSGA-II / NSGA-III selection in the same
        generational loop. For NSGA a single-objective problem is turned into
        ``problem.as_multiobjective()`` (one objective per constraint); the result then
        carries ``pareto_front``.
    nsga3_divisions : int, optional
        Reference-point divisions for NSGA-III (see `make_toolbox`); only with
        ``algorithm="nsga3"``.
    checkpoint : path, optional
        Write a checkpoint (a pickle: population, logbook, hall of fame, Pareto front,
        problem and layout, every random generator state) to this file every
        ``checkpoint_every`` generations and at the end, atomically. `resume` continues
        it with results identical to an uninterrupted run. Load only checkpoints you
        wrote yourself: unpickling runs code. A file already there must be a hawks-deap
        checkpoint, which is replaced; any other file, or a symbolic link, is refused
        (``ValueError``) before the run and again before each write.
    checkpoint_every : int
        Generations between checkpoints.
    returns : {"best-feasible", "final-fittest", "final-top-ranked"}
        Which individual becomes ``Result.best`` (and ``best_dataset()``): the best
        feasible individual seen during the run (default; the smallest penalty when none
        was feasible); as HAWKS 0.2.0 and the paper do, the final population's
        individual of best fitness whatever its penalty (`final_fittest`); or, as the
        authors' Index-mode script asks (``"comparison": "ranking"``), the top of the
        final stochastic ranking (`final_top_ranked`). The evolution is the same either
        way: only the returned individual differs.

    Returns
    -------
    Result
    """
    check_problem(problem)
    returns = check_choice("returns", returns, RETURNS)
    population_size = check_population(problem, population_size)
    generations = check_int("generations", generations, minimum=1)
    progress = check_bool("progress", progress)
    p_crossover = check_probability("p_crossover", p_crossover)
    p_f = check_probability("p_f", p_f)
    n_jobs = (_default_n_jobs(problem, map, population_size) if n_jobs is None
              else min(check_workers("n_jobs", n_jobs), most_jobs(problem, population_size)))
    check_evaluation_memory(problem, map, n_jobs)
    hall_of_fame_size = check_int("hall_of_fame_size", hall_of_fame_size, minimum=1)
    checkpoint_every = check_int("checkpoint_every", checkpoint_every, minimum=1)
    check_checkpoint_path(checkpoint)
    if checkpoint is not None:  # checkpoints are pickles: fail now, not at the first one
        try:
            pickle.dumps((problem, mean_mutation))
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            raise TypeError(f"checkpoint= needs a problem and mean_mutation that pickle "
                            f"(module-level functions, not lambdas): {error}") from None
    check_mutation(problem, mean_mutation, mean_kwargs, cov_kwargs)
    callbacks = _check_callbacks(callbacks)
    check_map(map, n_jobs)
    if p_mean is not None:
        check_probability("p_mean", p_mean)
    if p_cov is not None:
        check_probability("p_cov", p_cov)
    check_divisions(nsga3_divisions, algorithm)
    problem = _resolve_problem(problem, algorithm)

    settings = {
        "population_size": population_size, "generations": generations,
        "p_crossover": p_crossover, "p_f": p_f, "mean_mutation": mean_mutation,
        "p_mean": p_mean, "p_cov": p_cov,
        "mean_kwargs": dict(mean_kwargs or {}), "cov_kwargs": dict(cov_kwargs or {}),
        "algorithm": algorithm, "nsga3_divisions": nsga3_divisions,
        "hall_of_fame_size": hall_of_fame_size,
    }
    if returns != RETURNS[0]:  # (the default leaves the settings of earlier runs as they were)
        settings["returns"] = returns
    ss, rngs = seed_streams(seed)
    run = _Run(problem, settings, ss, rngs, prepare=True, map_fn=map)
    return run.execute(n_jobs=n_jobs, callbacks=callbacks, progress=progress,
                       checkpoint=checkpoint, checkpoint_every=checkpoint_every)


def resume(checkpoint: str | os.PathLike, *, generations: int | None = None,
           map: Callable | None = None,  # noqa: A002 - DEAP's name
           n_jobs: int = 1, callbacks: Iterable[Callable[[GenerationState], Any]] = (),
           progress: bool = False, checkpoint_every: int = 10,
           save_to: str | os.PathLike | None = None) -> Result:
    """Continue a run from a checkpoint written by ``evolve(..., checkpoint=...)``.

    The result is identical to that of the uninterrupted run: the checkpoint holds the
    population, logbook, hall of fame, Pareto front, the problem with its layout and the
    state of every random generator.

    Parameters
    ----------
    checkpoint : path
        The checkpoint file. Load only checkpoints you wrote yourself: it is a pickle.
    generations : int, optional
        Total number of generations to reach (default: the original run's).
    map, n_jobs, callbacks, progress
        As in `evolve`, except that ``n_jobs`` defaults to 1 for every problem (the
        results do not depend on it).
    checkpoint_every : int
        Generations between checkpoints of the continued run.
    save_to : path, optional
        Where the continued run writes its checkpoints (default: ``checkpoint``).
    """
    n_jobs = check_workers("n_jobs", n_jobs)
    checkpoint_every = check_int("checkpoint_every", checkpoint_every, minimum=1)
    callbacks = _check_callbacks(callbacks)
    progress = check_bool("progress", progress)
    check_map(map, n_jobs)
    payload = read_checkpoint(checkpoint)  # (a file that is no checkpoint: refused here)
    n_jobs = min(n_jobs, most_jobs(payload["problem"], payload["settings"]["population_size"]))
    check_evaluation_memory(payload["problem"], map, n_jobs)
    if save_to is None:
        check_checkpoint_path(checkpoint)
    else:
        check_checkpoint_path(save_to, "save_to")
    settings = dict(payload["settings"])
    if generations is not None:
        settings["generations"] = check_int("generations", generations,
                                            minimum=payload["generation"])
    ss = payload["seed_sequence"]
    _, rngs = seed_streams(ss)
    for name, state in payload["rng_states"].items():
        rngs[name].bit_generator.state = state
    run = _Run(payload["problem"], settings, ss, rngs, prepare=False, map_fn=map)
    run.restore(payload)
    return run.execute(n_jobs=n_jobs, callbacks=callbacks, progress=progress,
                       checkpoint=checkpoint if save_to is None else save_to,
                       checkpoint_every=checkpoint_every)



def _check_callbacks(callbacks: Iterable[Any]) -> list[Callable]:
    if callable(callbacks) or not isinstance(callbacks, Iterable):
        raise TypeError(f"callbacks must be an iterable of callables (e.g. [f]), got "
                        f"{callbacks!r}")
    callbacks = list(callbacks)
    for cb in callbacks:
        if not callable(cb):
            raise TypeError(f"callbacks must be callables, got {cb!r}")
    return callbacks


def most_jobs(problem: Problem, population_size: int) -> int:
    """The most processes a run can keep busy: the tasks of a generation's evaluations.

    One per individual, times the parts a pool sends of each evaluation
    (``problem.evaluation_parts()``: a Versus evaluation's clusterings and its
    constraints), so that a Versus run with P = 10 and constraints may use 30 cores.

    Parameters
    ----------
    problem : Problem
        The run's problem.
    population_size : int
        P, the individuals evaluated per generation at most.

    Returns
    -------
    int
    """
    return population_size * problem.evaluation_parts()


def _default_n_jobs(problem: Problem, map_fn: Callable | None, population_size: int) -> int:
    """Default ``n_jobs``: 1, or one process per core for expensive problems.

    Problems with ``parallel_by_default`` (Versus mode) run without ``map=`` get one
    process per core this process may use (`usable_cores`), at most `most_jobs` and at
    most as many as the machine's memory holds evaluations of at once.
    """
    if map_fn is not None or not problem.parallel_by_default:
        return 1
    fit = fitting_processes(problem.evaluation_bytes)  # None: no bound
    return max(1, min(usable_cores(), most_jobs(problem, population_size),
                      *([] if fit is None else [fit])))


def check_evaluation_memory(problem: Problem, map_fn: Callable | None, n_jobs: int) -> None:
    """Refuse ``n_jobs`` processes whose evaluations at once cannot fit in memory.

    `evolve` and `resume` check it; so does the command line, before its output folder.

    Each worker of a pool evaluates its own individual, so ``n_jobs`` of the problem's
    ``evaluation_bytes`` are held at once (a problem's own check covers one). A user's
    ``map`` runs where it likes: not checked.
    """
    if map_fn is None and n_jobs > 1 and problem.evaluation_bytes:
        check_processes("n_jobs", n_jobs, problem.evaluation_bytes,
                        "evaluations (the problem's evaluation_bytes)")


class _Run:
    """One run of the generational loop: its toolbox, streams and state."""

    def __init__(self, problem: Problem, settings: dict[str, Any],
                 ss: np.random.SeedSequence, rngs: dict[str, np.random.Generator], *,
                 prepare: bool, map_fn: Callable | None) -> None:
        self.problem = problem
        self.settings = settings
        self.user_map = map_fn
        self.ss = ss
        self.rngs = rngs
        self.toolbox = build_toolbox(
            problem, rngs, mean_mutation=settings["mean_mutation"], p_f=settings["p_f"],
            p_mean=settings["p_mean"], p_cov=settings["p_cov"],
            mean_kwargs=settings["mean_kwargs"], cov_kwargs=settings["cov_kwargs"],
            map_fn=map_fn, algorithm=settings["algorithm"],
            population_size=settings["population_size"],
            nsga3_divisions=settings["nsga3_divisions"], prepare=prepare)
        self.problem = self.toolbox.problem  # the run's own copy, with its layout
        self.task = EvaluateTask(self.problem)
        self.prefetch = False
        self.n_jobs = 1  # the processes that evaluate (set by _start)
        self.generation = -1  # -1: no population yet
        self.population: list[Genotype] = []
        self.hof = FeasibleHallOfFame(settings["hall_of_fame_size"])
        self.front = (None if settings["algorithm"] == "hawks"
                      else tools.ParetoFront(similar=genotype_equal))
        self.fallback: Genotype | None = None
        self.logbook = tools.Logbook()
        self.logbook.header = ["gen", "nevals", "fitness_best", "fitness_median", "n_feasible"]

    # -- checkpoints -------------------------------------------------------------------
    def restore(self, payload: dict[str, Any]) -> None:
        self.generation = payload["generation"]
        self.population = payload["population"]
        self.hof = FeasibleHallOfFame.adopt(payload["hall_of_fame"])
        self.front = payload["front"]
        self.fallback = payload["fallback"]
        self.logbook = payload["logbook"]

    def save(self, path: str | os.PathLike) -> None:
        payload = {
            "format": CHECKPOINT_FORMAT,
            "generation": self.generation,
            "settings": self.settings,
            "seed_sequence": self.ss,
            "rng_states": {name: rng.bit_generator.state for name, rng in self.rngs.items()},
            "problem": self.problem,
            "population": self.population,
            "hall_of_fame": self.hof,
            "front": self.front,
            "fallback": self.fallback,
            "logbook": self.logbook,
        }
        from hawks_deap.io.dataset import write_bytes_atomic

        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        check_checkpoint_path(path)  # again, right before replacing what is there
        write_bytes_atomic(path, data)

    # -- the loop ----------------------------------------------------------------------
    def _evaluate(self, individuals: Iterable[Genotype]) -> int:
        """Evaluate the individuals without a valid fitness through ``toolbox.map``.

        Each gets the seed of its (generation, position among those evaluated), so the
        values do not depend on the map. Returns how many were evaluated.
        """
        todo = [ind for ind in individuals if not ind.fitness.valid]
        if not todo:  # nothing changed: a user's map is not called
            return 0
        if self.prefetch:
            self.problem.prefetch(todo)
        pairs = [(ind, _eval_seed(self.ss, self.generation, i)) for i, ind in enumerate(todo)]
        results = list(self.toolbox.map(self.task, pairs))
        if len(results) != len(todo):
            raise ValueError(f"map returned {len(results)} results for {len(todo)} "
                             "individuals: it must return one per item, in order")
        for ind, values in zip(todo, results, strict=True):
            ind.fitness.values = values
        return len(todo)

    def _record(self, evaluated: list[Genotype], nevals: int) -> None:
        self.hof.update(evaluated)
        if self.front is not None:
            self.front.update(evaluated)
        candidate = select_best([*([self.fallback] if self.fallback else []), *evaluated])
        if candidate is not None:
            self.fallback = candidate
        self.logbook.record(**_log_row(self.generation, nevals, self.population))

    def initialise(self) -> None:
        size = self.settings["population_size"]
        self.generation = 0
        population = self.toolbox.population(n=size)
        nevals = self._evaluate(population)
        self.population = self.toolbox.rank(population, size)  # rank before tournaments
        self._record(self.population, nevals)

    def step(self) -> None:
        toolbox, size = self.toolbox, self.settings["population_size"]
        self.generation += 1
        parents = toolbox.parent_select(self.population, size)
        offspring = [toolbox.clone(ind) for ind in parents]
        before = [tuple(gene.key for gene in ind) for ind in offspring]  # gene contents
        var_rng = self.rngs["variation"]
        for i in range(0, len(offspring) - 1, 2):
            if var_rng.random() < self.settings["p_crossover"]:
                toolbox.mate(offspring[i], offspring[i + 1])
        toolbox.mutate_many(offspring)
        for ind, keys in zip(offspring, before, strict=True):
            if tuple(gene.key for gene in ind) != keys:
                del ind.fitness.values
        nevals = self._evaluate(offspring)
        self.population = toolbox.select(self.population + offspring, size)
        self._record(offspring, nevals)

    def _start(self, n_jobs: int, stack: ExitStack) -> None:
        """Hold the problem's loop context and, for n_jobs > 1, register a pool's map.

        The pool's ``map`` is what a user could register (`ProblemPool`); the problem
        fills its caches for a whole batch first only when this process evaluates it. A
        run too cheap for a pool (`hawks_deap.algorithms.pool.serial_reason`) evaluates
        serially and logs why (logger ``hawks_deap.algorithms.loop``, level INFO).
        """
        stack.enter_context(self.problem.loop_context())
        # before a pool forks: its workers inherit what the problem loads for the run
        left = self.settings["generations"] - max(self.generation, 0)
        self.problem.expect(self.settings["population_size"]
                            * (left + (self.generation < 0)))
        reason = None if n_jobs == 1 else serial_reason(self.problem,
                                                        self.settings["population_size"])
        if reason is not None:
            _logger.info("n_jobs=%d: %s", n_jobs, reason)
            n_jobs = 1
        self.n_jobs = n_jobs
        if n_jobs > 1:
            pool = stack.enter_context(ProblemPool(self.problem, n_jobs))
            self.toolbox.register("map", pool.map)
        self.prefetch = self.user_map is None and n_jobs == 1

    @property
    def best(self) -> Genotype:
        if len(self.hof):
            return self.hof[0]
        assert self.fallback is not None  # set by the first evaluation (_record)
        return self.fallback

    def returned(self) -> Genotype:
        pick = {"final-fittest": final_fittest, "final-top-ranked": final_top_ranked}.get(
            self.settings.get("returns", RETURNS[0]))
        if pick is None:
            return self.best
        chosen = pick(self.population)
        assert chosen is not None  # the population is never empty
        return chosen

    def execute(self, *, n_jobs: int, callbacks: list[Callable], progress: bool,
                checkpoint: str | os.PathLike | None, checkpoint_every: int) -> Result:
        total = self.settings["generations"]
        with ExitStack() as stack:
            self._start(n_jobs, stack)
            if self.generation < 0:
                self.initialise()
            bar = None
            if progress:  # tqdm (and the asyncio it imports) only when asked for
                from tqdm.auto import tqdm

                bar = tqdm(total=total, initial=self.generation, desc="generations",
                           leave=False)
                stack.callback(bar.close)
            while self.generation < total:
                self.step()
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(fitness=f"{self.best.fitness.values[0]:.3g}")
                if checkpoint is not None and self.generation % checkpoint_every == 0:
                    self.save(checkpoint)
                state = GenerationState(self.generation, self.population, self.logbook,
                                        self.hof, self.best)
                if any(bool(cb(state)) for cb in callbacks):
                    break
            if checkpoint is not None:
                self.save(checkpoint)
        entropy = self.ss.entropy
        assert entropy is not None  # a SeedSequence made without entropy draws it
        seed_value = entropy if isinstance(entropy, int) else [int(e) for e in entropy]
        # the run's own copy (Problem.snapshot) keeps this run's layout and evaluator: the
        # caller's problem is prepared anew by its next run, which must not change them
        return Result(problem=self.problem, population=self.population,
                      logbook=self.logbook,
                      hall_of_fame=self.hof, best=self.returned(), seed=seed_value,
                      settings=self.settings, generations_run=self.generation,
                      pareto_front=self.front, best_feasible=self.best,
                      seed_spawn_key=tuple(int(k) for k in self.ss.spawn_key))
