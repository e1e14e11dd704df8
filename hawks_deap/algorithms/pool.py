"""The one process pool of hawks-deap: `ProblemPool`, whose ``map`` a toolbox registers.

``evolve(..., n_jobs=k)`` registers ``ProblemPool(problem, k).map`` as ``toolbox.map``,
exactly as a DEAP user registers ``pool.map`` of a ``multiprocess`` or
``concurrent.futures`` pool or a dask client's ``map``; every such map gives the same
results, because each task carries its individual and its evaluation seed, and nothing
depends on which worker evaluates what.

What the pool adds to a plain ``multiprocess`` pool:

- the problem is sent once to each worker (pool initializer), not with every task; it
  travels as ``dill`` bytes and is rebuilt inside the worker, where a failure to rebuild
  it is reported with the first evaluation instead of killing the worker. ``map`` of an
  evaluation of that very problem (`EvaluateTask`, or its bound ``evaluate``) ships the
  individuals alone, one batch per worker written by the C pickler (``dill``'s pure-Python
  pickler, ``multiprocess``'s transport, took 25x longer on ten genotypes), and their
  evaluations come back the same way;
- `serial_reason` says when a pool cannot pay (Index-mode runs below `POOL_MIN_WORK`):
  ``evolve(n_jobs > 1)`` then evaluates serially;
- it never hangs: an exception raised by a task is raised again by ``map``; a worker
  that dies (out of memory, a crash in native code) is detected within
  `hawks_deap._util.workers.POLL_SECONDS` and reported as a ``RuntimeError`` naming its
  process id and exit code (`hawks_deap._util.workers.PoolWatch`; a plain pool
  would wait forever for its task); an optional ``timeout`` bounds every call;
- threads: each worker caps its BLAS/OpenMP thread pools to ``threads_per_worker`` (1
  under fork, else ``cpu_count // n_jobs``), so that workers do not oversubscribe the
  cores. Forked workers must stay single-threaded: GNU OpenMP (scikit-learn's libgomp)
  deadlocks in a forked child whose parent has run an OpenMP thread team, so a pool
  asked for more threads starts its workers with forkserver (or spawn) instead.
"""

from __future__ import annotations

import os
import pickle
import traceback
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from hawks_deap._util.validation import check_choice, check_float, check_int
from hawks_deap._util.workers import (
    PoolWatch,
    check_workers,
    default_threads_per_worker,
    quiet_worker,
)
from hawks_deap.evaluation import _compiled

__all__ = ["POOL_MIN_WORK", "POOL_MIN_WORK_C2D", "EvaluateTask", "ProblemPool",
           "serial_reason"]

#: Start method used when none is given (None: the platform's default).
DEFAULT_START_METHOD: str | None = None

#: Least evaluation work per generation, ``P x N x (K + D)`` (as a suite's
#: ``cost_estimate``), at which `hawks_deap.evolve` starts a pool for ``n_jobs > 1``
#: on a problem whose evaluations are cheap (not ``parallel_by_default``: Index mode).
#: Measured with ``benchmarks/bench_pool.py`` (P=10, G=100, 2 workers; the speed-up two
#: idle cores would give, from CPU times: serial CPU over the parent's CPU plus half the
#: workers'): a (N=2000, K=5, D=2: 140,000) 0.94x, b (1000, 10, 20: 300,000) 0.88x,
#: c (2000, 30, 50: 1,600,000) 1.12x, scale (100,000, 20, 2: 22,000,000) 1.57x; on the
#: shared machine (load 6 on 2 cores) two processes were slower in wall time at every
#: size. The workers spent 2.2x (a), 2.6x (b), 1.7x (c), 1.26x (scale) the CPU time of
#: the evaluations they took over: each worker's caches see only its share of each
#: generation's genes and of its overlap batch. Hence a pool only above c. Between c
#: and scale, on an idle machine (wall time, serial against a forced pool, 3 seeds):
#: N=10,000, K=20, D=2 (2,200,000) 1.17x, N=7,000, K=10, D=20 (2,200,000) 1.11x,
#: N=20,000, K=20, D=2 (4,400,000) 1.09x and 1.27x (two runs); every seed faster.
POOL_MIN_WORK = 2_000_000

#: `POOL_MIN_WORK` for two-dimensional problems where the C kernels are built
#: (`hawks_deap.evaluation._compiled.native`): their evaluations cost less per unit of
#: work and keep no cache, so a pool pays from more work. Idle, with them (wall time, a
#: forced pool against serial, 3 seeds; BENCHMARKS.md, "The overlap and silhouette
#: kernels in C"): N=10,000, K=20 (2,200,000) 0.67x, N=20,000, K=20 (4,400,000) 0.98x,
#: N=50,000, K=20 (11,000,000) 1.46x.
POOL_MIN_WORK_C2D = 8_000_000


#: Work of one evaluation, N x (K + D), from which an Index-mode pool sends evaluations one
#: per task (as Versus mode's) rather than one batch per worker: a batch pays for its
#: messages and its overlap pairs computed together, but at this size a generation's
#: genotypes no longer share a prefetch (`hawks_deap.evaluation.Tuning.prefetch_points`)
#: and a task's message is small beside its evaluation, so taking the next individual
#: as soon as a worker is free balances the two workers' shares. Measured with
#: ``benchmarks/bench_pool.py --items`` (BENCHMARKS.md, "n_jobs=2 in Index mode").
ITEM_MIN_WORK = 1_000_000


def evaluation_work(problem: Any) -> int | None:
    """``N x (K + D)``, the work of one evaluation of ``problem``.

    None if the problem and its layout do not give N, K and D (an unprepared problem,
    or one of the user's whose cost is unknown).
    """
    layout = getattr(problem, "layout", None)
    n_samples = getattr(layout, "n_samples", None)
    n_clusters = getattr(problem, "n_clusters", None)
    n_dims = getattr(layout, "n_dims", None)
    if not (isinstance(n_samples, int) and isinstance(n_clusters, int)
            and isinstance(n_dims, int)):
        return None
    return n_samples * (n_clusters + n_dims)


def serial_reason(problem: Any, population_size: int) -> str | None:
    """Why a pool would make a run of ``problem`` slower than serial; None if it may pay.

    Problems with ``parallel_by_default`` (Versus: clustering calls) always may; so may a
    problem whose layout does not give N and D (its cost is unknown). An Index-mode run
    whose work per generation, ``population_size x N x (K + D)``, is below
    `POOL_MIN_WORK` (`POOL_MIN_WORK_C2D` in two dimensions with the C kernels) gets a
    reason.

    Parameters
    ----------
    problem : Problem
        A prepared problem (its ``layout`` set).
    population_size : int
        P, the individuals evaluated per generation at most.

    Returns
    -------
    str or None
        One sentence, for a log line; None when a pool may pay.
    """
    if problem.parallel_by_default:
        return None
    each = evaluation_work(problem)
    if each is None:
        return None
    work = population_size * each
    n_samples, n_dims = problem.layout.n_samples, problem.layout.n_dims
    least, name = POOL_MIN_WORK, "POOL_MIN_WORK"
    if n_dims == _compiled.GRID_DIMS and _compiled.native():
        least, name = POOL_MIN_WORK_C2D, "POOL_MIN_WORK_C2D"
    if work >= least:
        return None
    return (f"P x N x (K + D) = {population_size} x {n_samples} x "
            f"({problem.n_clusters} + {n_dims}) = {work:,} < {least:,} "
            f"({name}): evaluations this "
            f"cheap run faster in one process than a pool's messages and split caches "
            f"allow, so the run evaluates serially (results never depend on n_jobs)")

_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                     "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

_WORKER_PROBLEM: Any = None
_WORKER_ERROR: str | None = None
_WORKER_LIMITS: Any = None


class EvaluateTask:
    """Picklable ``(individual, eval_seed) -> Evaluation`` of a problem, for any ``map``.

    Parameters
    ----------
    problem : Problem
        The problem whose ``evaluate`` it calls.
    """

    def __init__(self, problem: Any) -> None:
        self.problem = problem

    def __call__(self, item: tuple[Any, int | None]) -> Any:
        """The problem's evaluation of ``item = (individual, eval_seed)``."""
        individual, eval_seed = item
        return self.problem.evaluate(individual, eval_seed)


def _install(payload: bytes, threads: int | None) -> None:
    """Pool initializer: cap the threads, then rebuild the problem from its bytes.

    The worker's signals are `quiet_worker`'s.
    """
    global _WORKER_PROBLEM, _WORKER_ERROR, _WORKER_LIMITS
    quiet_worker()
    if threads is not None:
        for name in _THREAD_VARIABLES:  # for libraries loaded after this point
            os.environ[name] = str(threads)
    try:
        import dill

        _WORKER_PROBLEM = dill.loads(payload)
    except BaseException as error:  # noqa: BLE001 - reported by every task of this worker
        _WORKER_ERROR = (f"{type(error).__name__}: {error}\n\nWorker traceback:\n"
                         f"{traceback.format_exc()}")
        return
    if threads is not None:
        from threadpoolctl import threadpool_limits

        _WORKER_LIMITS = threadpool_limits(limits=threads)  # kept for the worker's life


def _evaluate_batch(items: list[tuple[Any, int | None]] | bytes) -> list | bytes:
    """The installed problem's evaluations of a batch (its caches filled together first).

    A batch that came as plain-pickle bytes (`_wire`) goes back as plain-pickle bytes.
    """
    if _WORKER_ERROR is not None:
        raise RuntimeError(f"the problem could not be rebuilt in a worker process: "
                           f"{_WORKER_ERROR}")
    wired = isinstance(items, bytes)
    pairs = _unwire(items)
    if len(pairs) > 1:
        _WORKER_PROBLEM.prefetch([individual for individual, _ in pairs])
    values = [_WORKER_PROBLEM.evaluate(individual, seed) for individual, seed in pairs]
    return _wire(values) if wired else values


def _wire(value: Any) -> Any:
    """``value`` as plain-pickle bytes, or ``value`` itself if plain pickle refuses it.

    The pool's transport (``multiprocess``) pickles with ``dill``, whose pure-Python
    pickler is far slower than the C pickler on genotypes (BENCHMARKS.md, "n_jobs=2 in
    Index mode"); the C pickler writes the same objects, and ``dill`` then only copies
    one bytes object. What plain pickle cannot write (a user's
    fitness class made in ``__main__`` by a lambda, say) travels by ``dill`` as before.
    """
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return value


def _identity(value: Any) -> Any:
    return value


def _unwire(value: Any) -> Any:
    """The inverse of `_wire`."""
    return pickle.loads(value) if isinstance(value, bytes) else value


class ProblemPool:
    """A ``multiprocess`` pool with a problem installed in every worker.

    Parameters
    ----------
    problem : Problem or None
        Must already have its layout (``problem.prepare``); it is copied into each worker
        once, with its layout, so the workers' evaluations equal the parent's. None for a
        pool of plain tasks.
    n_jobs : int
        Number of worker processes, in [1, `MAX_WORKERS`].
    start_method : str, optional
        ``"fork"``, ``"spawn"`` or ``"forkserver"``; `DEFAULT_START_METHOD`, else the
        platform default, if None.
    threads_per_worker : int, optional
        BLAS/OpenMP threads in each worker. Default: 1 under fork, else
        `default_threads_per_worker`. Workers that may run more than one thread (this
        option, or a problem's ``n_threads`` > 1) are never forked.
    timeout : float, optional
        Seconds after which `map` gives up with ``TimeoutError`` (no limit if None).

    Examples
    --------
    >>> import numpy as np
    >>> import hawks_deap as hd
    >>> problem = hd.IndexProblem(100, 2, 2, target=0.5)
    >>> _ = problem.prepare(np.random.default_rng(0))
    >>> individual = problem.random_individual(np.random.default_rng(1))
    >>> with ProblemPool(problem, 2) as pool:
    ...     values = pool.map(problem.evaluate, [individual, individual])
    >>> values[0] == problem.evaluate(individual)
    True
    """

    def __init__(self, problem: Any, n_jobs: int, *, start_method: str | None = None,
                 threads_per_worker: int | None = None, timeout: float | None = None) -> None:
        import dill
        import multiprocess

        if problem is not None and not callable(getattr(problem, "evaluate", None)):
            raise TypeError(f"problem must be a prepared hawks-deap problem or None, got "
                            f"{type(problem).__name__}")
        self.n_jobs = check_workers("n_jobs", n_jobs)
        methods = multiprocess.get_all_start_methods()
        start_method = start_method if start_method is not None else DEFAULT_START_METHOD
        if start_method is not None:
            check_choice("start_method", start_method, methods)
        ctx = multiprocess.get_context(start_method)
        forked = ctx.get_start_method() == "fork"
        if threads_per_worker is None:
            threads_per_worker = 1 if forked else default_threads_per_worker(n_jobs)
        self.threads_per_worker = check_int("threads_per_worker", threads_per_worker,
                                            minimum=1)
        problem_threads = None if problem is None else problem.n_threads
        if forked and (self.threads_per_worker > 1 or (problem_threads or 1) > 1):
            ctx = multiprocess.get_context("forkserver" if "forkserver" in methods
                                           else "spawn")
        self.start_method = ctx.get_start_method()
        self.timeout = None if timeout is None else check_float("timeout", timeout, low=0.0,
                                                                low_open=True)
        self.problem = problem
        # the layout the workers hold: a problem prepared again since (a new run) must not
        # be evaluated by the installed copy, whose layout is the old one
        self._layout = None if problem is None else problem.layout
        # expensive evaluations go one per task, for balance; cheap ones one batch per
        # worker, since the pool's per-task cost would dominate
        self.per_item = (problem is None or problem.parallel_by_default
                         or (evaluation_work(problem) or 0) >= ITEM_MIN_WORK)
        payload = dill.dumps(problem, protocol=dill.HIGHEST_PROTOCOL)
        self._pool = ctx.Pool(self.n_jobs, initializer=_install,
                              initargs=(payload, self.threads_per_worker))
        self._watch = PoolWatch(self._pool, "the evaluation pool",
                                "its tasks are lost and the run stops")
        self._closed = False

    def __enter__(self) -> ProblemPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(abandon=exc[0] is not None)

    def _pairs(self, func: Callable, items: list) -> list | None:
        """``(individual, eval_seed)`` pairs if ``func`` evaluates the installed problem."""
        if self.problem is None or self.problem.layout is not self._layout:
            return None  # the generic path sends the problem (its current layout) along
        if isinstance(func, partial) and not func.args and not func.keywords:
            func = func.func  # what deap.base.Toolbox.register makes of a function
        if isinstance(func, EvaluateTask) and func.problem is self.problem:
            return items
        if getattr(func, "__self__", None) is self.problem and \
                getattr(func, "__name__", "") == "evaluate":
            return [(individual, None) for individual in items]
        return None

    def map(self, func: Callable, iterable: Iterable) -> list:
        """``[func(x) for x in iterable]`` in the workers, in order (DEAP's ``map``).

        Parameters
        ----------
        func : callable
            Picklable by ``dill``. The installed problem's ``evaluate`` (bound, or as
            ``toolbox.evaluate`` registers it) or an `EvaluateTask` of it, while the
            problem keeps the pool's layout, ships the items alone; any other function
            is sent with every task.
        iterable : iterable
            The arguments, consumed into a list first.

        Returns
        -------
        list
            The results, in the order of ``iterable``.

        Raises
        ------
        Exception
            Whatever a task raised (e.g. the ``RuntimeError`` of a failing clustering
            algorithm).
        RuntimeError
            If a worker process died, or the pool is closed.
        TimeoutError
            If the pool's ``timeout`` passed.
        """
        items = list(iterable)
        pairs = self._pairs(func, items)
        if pairs is None:
            return self._run(func, items)
        if not pairs:
            return []
        n_chunks = len(pairs) if self.per_item else min(len(pairs), self.n_jobs)
        cuts = [len(pairs) * i // n_chunks for i in range(n_chunks + 1)]
        # classes of __main__ pickle by reference, which a spawned worker cannot follow:
        # dill sends them by value
        wire = _wire if all(type(ind).__module__ != "__main__" and
                            type(getattr(ind, "fitness", None)).__module__ != "__main__"
                            for ind, _ in pairs) else _identity
        chunks = [wire(pairs[a:b]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
        return [value for chunk in self._run(_evaluate_batch, chunks)
                for value in _unwire(chunk)]

    def evaluate(self, items: Iterable[tuple[Any, int | None]]) -> list:
        """Evaluate ``(individual, eval_seed)`` pairs with the installed problem, in order.

        Parameters
        ----------
        items : iterable of (Genotype, int or None)
            Individuals with their evaluation seeds (None: the problem's default). The
            pool needs a problem (a RuntimeError otherwise).

        Returns
        -------
        list of Evaluation
            As `map`, which it calls with an `EvaluateTask`.
        """
        if self.problem is None:
            raise RuntimeError("this pool has no problem installed (ProblemPool(None, ...)): "
                               "use map(func, items)")
        return self.map(EvaluateTask(self.problem), items)

    def _run(self, func: Callable, items: list) -> list:
        if self._closed:
            raise RuntimeError("the evaluation pool is closed")
        self._watch.check()
        result = self._pool.map_async(func, items, chunksize=1)
        try:
            return self._watch.wait(lambda seconds: result.get(timeout=seconds), self.timeout)
        except TimeoutError:
            raise TimeoutError(f"{len(items)} tasks of the evaluation pool took more than "
                               f"{self.timeout:g} s") from None

    def close(self, *, abandon: bool = False) -> None:
        """Stop the workers (idempotent).

        Parameters
        ----------
        abandon : bool
            Stopped by an exception (a Ctrl-C, SIGTERM): `PoolWatch.stop`'s.
        """
        if self._closed:
            return
        self._closed = True
        self._watch.stop(abandon=abandon)
