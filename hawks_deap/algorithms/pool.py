"""The one process pool of hawks-deap: `ProblemPool`, whose ``map`` a toolbox registers.

``evolve(..., n_jobs=k)`` registers ``ProblemPool(problem, k).map`` as ``toolbox.map``,
exactly as a DEAP user registers ``pool.map`` of a ``multiprocess`` or
``concurrent.futures`` pool or a dask client's ``map``; every such map gives the same
results, because each task carries its individual and its evaluation seed, and nothing
depends on which worker evaluates what.

What the pool adds to a plain ``multiprocess`` pool:

- the problem is sent once to each worker (at its start), not with every task; it
  travels as ``dill`` bytes and is rebuilt inside the worker, where a failure to rebuild
  it is reported with the first evaluation instead of killing the worker. ``map`` of an
  evaluation of that very problem (`EvaluateTask`, or its bound ``evaluate``) ships the
  individuals alone, written by the C pickler (``dill``'s pure-Python pickler took 25x
  longer on ten genotypes), and their evaluations come back the same way;
- an evaluation that the problem splits into independent parts
  (``problem.evaluation_parts()``: a Versus evaluation, one part per clustering
  algorithm and one for the constraints) goes as one task per part when the pool has
  several workers, every individual's part of the kind that took longest in the map
  before first; the parent joins each individual's parts (``problem.join_parts``), which
  gives what ``evaluate`` gives. A generation of ten costly evaluations then starts its
  slowest clusterings first and ends with short tasks that fill the workers' last gaps
  (BENCHMARKS.md, "Versus evaluations in parts", "The constraints, a part of their
  own", "The longest part first");
- each worker has a pipe of its own, which the calling thread writes and reads: a task
  is one message of bytes each way, with no queue, lock or helper thread between (a
  ``multiprocess`` pool's cost several times what the messages themselves do, and its
  helper threads compete with the workers for the cores; BENCHMARKS.md, "A pool's
  messages"), and the next task goes to the first worker that is free;
- `serial_reason` says when a pool cannot pay (Index-mode runs below `POOL_MIN_WORK`):
  ``evolve(n_jobs > 1)`` then evaluates serially;
- it never hangs: an exception raised by a task is raised again by ``map`` (once the
  tasks already running have finished, so the pool goes on); a worker that dies (out of
  memory, a crash in native code) is seen at once and reported as a ``RuntimeError``
  naming its process id and exit code (a plain pool would wait forever for its task);
  an optional ``timeout`` bounds every call;
- threads: each worker caps its BLAS/OpenMP thread pools to ``threads_per_worker`` (1
  under fork, else ``cpu_count // n_jobs``), so that workers do not oversubscribe the
  cores. Forked workers must stay single-threaded: GNU OpenMP (scikit-learn's libgomp)
  deadlocks in a forked child whose parent has run an OpenMP thread team, so a pool
  asked for more threads starts its workers with forkserver (or spawn) instead.
"""

from __future__ import annotations

import os
import pickle
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, NoReturn

from hawks_deap._util.validation import check_choice, check_float, check_int
from hawks_deap._util.workers import (
    POLL_SECONDS,
    check_workers,
    death_message,
    default_threads_per_worker,
    interrupts_ignored_by_workers,
    quiet_worker,
)

__all__ = ["POOL_MIN_WORK", "EvaluateTask", "ProblemPool",
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
#: Two-dimensional runs with the C kernels (cheaper evaluations, no cache) had a higher
#: bound of their own until each worker had a pipe of its own; since, they pay from this
#: one too, while a, b and c still lose with a pool (BENCHMARKS.md, "A pool's messages").
POOL_MIN_WORK = 2_000_000


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
    `POOL_MIN_WORK` gets a reason.

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
    if work >= POOL_MIN_WORK:
        return None
    return (f"P x N x (K + D) = {population_size} x {problem.layout.n_samples} x "
            f"({problem.n_clusters} + {problem.layout.n_dims}) = {work:,} < "
            f"{POOL_MIN_WORK:,} (POOL_MIN_WORK): evaluations this "
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


def _install(payload: bytes | None, threads: int | None) -> None:
    """A worker's start: cap the threads, then rebuild the problem from its bytes.

    The worker's signals are `quiet_worker`'s.
    """
    global _WORKER_PROBLEM, _WORKER_ERROR, _WORKER_LIMITS
    quiet_worker()
    if threads is not None:
        for name in _THREAD_VARIABLES:  # for libraries loaded after this point
            os.environ[name] = str(threads)
    if payload is not None:
        try:
            import dill

            _WORKER_PROBLEM = dill.loads(payload)
        except BaseException as error:  # noqa: BLE001 - reported by each task of this worker
            _WORKER_ERROR = (f"{type(error).__name__}: {error}\n\nWorker traceback:\n"
                             f"{traceback.format_exc()}")
            return
    if threads is not None:
        from threadpoolctl import threadpool_limits

        _WORKER_LIMITS = threadpool_limits(limits=threads)  # kept for the worker's life


def _installed() -> Any:
    """The worker's problem; a RuntimeError if it could not be rebuilt."""
    if _WORKER_ERROR is not None:
        raise RuntimeError(f"the problem could not be rebuilt in a worker process: "
                           f"{_WORKER_ERROR}")
    return _WORKER_PROBLEM


def _evaluate_batch(pairs: list[tuple[Any, int | None]]) -> list:
    """The installed problem's evaluations of a batch (its caches filled together first)."""
    problem = _installed()
    if len(pairs) > 1:
        problem.prefetch([individual for individual, _ in pairs])
    return [problem.evaluate(individual, seed) for individual, seed in pairs]


# The first byte of a message: how the rest is written (plain pickle or dill), and what a
# worker's answer is (a value or the exception its task raised).
_PLAIN, _DILL = b"P", b"D"
_VALUE, _RAISED = b"V", b"E"


def _wire(value: Any, plain: bool = True) -> bytes:
    """``value`` as bytes: the C pickler's, else (or if ``plain`` is False) ``dill``'s.

    ``dill``'s pure-Python pickler is far slower than the C pickler on genotypes
    (BENCHMARKS.md, "n_jobs=2 in Index mode"); what plain pickle cannot write (a user's
    function, a fitness class made in ``__main__`` by a lambda) travels by ``dill``.
    """
    if plain:
        try:
            return _PLAIN + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError):
            pass
    import dill

    return _DILL + dill.dumps(value, protocol=dill.HIGHEST_PROTOCOL)


def _unwire(data: bytes | memoryview) -> Any:
    """The inverse of `_wire`."""
    if data[:1] == _PLAIN:
        return pickle.loads(data[1:])
    import dill

    return dill.loads(data[1:])


def _answer(message: bytes) -> bytes:
    """A worker's answer to one message (`_wire` of ``(func, item)``).

    `_VALUE` and the value, or `_RAISED` and the exception (as itself where it pickles,
    else as a RuntimeError with its text) with the worker's traceback. ``func`` None: an
    evaluation batch of the installed problem, an int: that part of one evaluation of it
    (``item`` an ``(individual, eval_seed)`` pair), both answered in the message's pickle.
    """
    try:
        func, item = _unwire(message)
        plain = message[:1] == _PLAIN
        if func is None:  # an evaluation batch of the installed problem
            return _VALUE + _wire(_evaluate_batch(item), plain)
        if type(func) is int:  # a part of one evaluation of the installed problem
            individual, seed = item
            return _VALUE + _wire(_installed().evaluate_part(individual, seed, func), plain)
        return _VALUE + _wire(func(item), plain=False)
    except BaseException as error:  # noqa: BLE001 - sent to the parent, raised there
        text = traceback.format_exc()
        try:
            return _RAISED + _wire((error, text))
        except BaseException:  # noqa: BLE001 - an exception that does not pickle
            return _RAISED + _wire((RuntimeError(f"{type(error).__name__}: {error}"), text))


def _serve(conn: Any, parent_ends: list[Any], payload: bytes | None,
           threads: int | None) -> None:
    """A worker's life: `_install`, then `_answer` each message.

    It ends at an empty message, or when the parent is gone: the parent's ends of the
    pipes (which a forked worker holds copies of) are closed here first, so that the
    parent's death closes this worker's pipe.
    """
    for end in parent_ends:
        end.close()
    _install(payload, threads)
    while True:
        try:
            message = conn.recv_bytes()
            if not message:
                return
            conn.send_bytes(_answer(message))
        except (EOFError, OSError):
            return


class WorkerTraceback(Exception):
    """The traceback, in the worker, of an exception a pool's task raised (its cause)."""

    def __str__(self) -> str:
        return f"\n\nWorker traceback:\n{self.args[0]}"


class ProblemPool:
    """Worker processes (``multiprocess``'s) with a problem installed in each, one pipe each.

    Parameters
    ----------
    problem : Problem or None
        A prepared problem (``problem.prepare``: `hawks_deap.make_toolbox` prepares it); it
        is copied into each worker once, with its layout, so the workers' evaluations
        equal the parent's. Its evaluations (and those of the toolbox's copy of it) then
        ship the individuals alone; a problem not prepared yet, or prepared again since
        the pool started, is sent with every task instead (the same results, slower).
        None for a pool of plain tasks.
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
        payload = (None if problem is None
                   else dill.dumps(problem, protocol=dill.HIGHEST_PROTOCOL))
        self._closed = False
        self._broken: str | None = None  # why the pool can take no more work
        self._lock = threading.Lock()  # one call at a time on the pipes (threads may share)
        self._seconds: list[float] = []  # each task's time of the last `_run`, send to answer
        # each part's summed seconds in the last map of evaluations in parts but the first
        # (whose tasks carry the workers' start and the libraries' first calls)
        self._part_seconds: list[float] = []
        self._part_maps = 0
        self._workers: list[Any] = []
        self._conns: list[Any] = []
        try:
            with interrupts_ignored_by_workers():
                for _ in range(self.n_jobs):
                    parent_end, child_end = ctx.Pipe()
                    self._conns.append(parent_end)
                    worker = ctx.Process(target=_serve, daemon=True,
                                         args=(child_end, self._conns, payload,
                                               self.threads_per_worker))
                    worker.start()
                    child_end.close()  # the worker's alone: its death closes the pipe
                    self._workers.append(worker)
        except BaseException:
            self.close(abandon=True)
            raise

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
        if isinstance(func, EvaluateTask) and self._installed_as(func.problem):
            return items
        if self._installed_as(getattr(func, "__self__", None)) and \
                getattr(func, "__name__", "") == "evaluate":
            return [(individual, None) for individual in items]
        return None

    def _installed_as(self, owner: Any) -> bool:
        """Whether ``owner`` evaluates as the installed problem does.

        It does if it is that problem, or a copy holding the very same attributes
        (`Problem.snapshot`, as the toolbox of `hawks_deap.make_toolbox` holds, so that a
        DEAP user's ``toolbox.evaluate`` takes the fast path); a copy whose attributes
        were changed since does not.
        """
        problem = self.problem
        if owner is problem:
            return True
        if type(owner) is not type(problem):
            return False
        # (a problem without a __dict__, one of __slots__, is recognised only as itself)
        mine, theirs = getattr(problem, "__dict__", None), getattr(owner, "__dict__", None)
        return (mine is not None and theirs is not None and theirs.keys() == mine.keys()
                and all(theirs[name] is value for name, value in mine.items()))

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
            algorithm), with the worker's traceback as its cause; the first of them, in
            the order of ``iterable``.
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
        # classes of __main__ pickle by reference, which a spawned worker cannot follow:
        # dill sends them by value
        plain = all(type(ind).__module__ != "__main__" and
                    type(getattr(ind, "fitness", None)).__module__ != "__main__"
                    for ind, _ in pairs)
        n_parts = self.problem.evaluation_parts() if self.per_item and self.n_jobs > 1 else 1
        if n_parts > 1:
            # every individual's longest part, then every second longest, ...: a
            # generation waits for its slowest part, and the short ones fill the workers'
            # gaps at its end (BENCHMARKS.md, "Versus evaluations in parts", "The longest
            # part first")
            order = self._part_order(n_parts)
            answers = self._run(None, [_wire((part, pair), plain)
                                       for part in order for pair in pairs])
            n, took = len(pairs), self._seconds
            self._part_maps += 1
            if self._part_maps > 1 and len(took) == n * n_parts:  # (not another thread's)
                self._part_seconds = [0.0] * n_parts
                for rank, part in enumerate(order):
                    self._part_seconds[part] = sum(took[rank * n:(rank + 1) * n])
            return [self.problem.join_parts(individual, seed, answers[i::n])
                    for i, (individual, seed) in enumerate(pairs)]
        n_chunks = len(pairs) if self.per_item else min(len(pairs), self.n_jobs)
        cuts = [len(pairs) * i // n_chunks for i in range(n_chunks + 1)]
        chunks = [_wire((None, pairs[a:b]), plain)
                  for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
        return [value for chunk in self._run(None, chunks) for value in chunk]

    def _part_order(self, n_parts: int) -> list[int]:
        """The parts, the longest in the last timed map first (else the problem's order).

        A map's tasks are timed from the second on (the first carries the workers' start
        and the libraries' first calls). Which of a Versus evaluation's clusterings takes
        longer depends on the algorithms and on the data they evolve (single linkage
        against GMM: the loser's); the order changes only which worker computes what,
        never a value.
        """
        if len(self._part_seconds) != n_parts:
            return list(range(n_parts))
        return sorted(range(n_parts), key=lambda part: -self._part_seconds[part])

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

    def _run(self, func: Callable | None, items: list) -> list:
        """``func`` of each item as one task, each task to the first free worker.

        ``func`` None: the items are messages already (`_wire` of evaluation batches).
        """
        with self._lock:
            return self._run_locked(func, items)

    def _run_locked(self, func: Callable | None, items: list) -> list:
        from multiprocess.connection import wait

        if self._closed:
            raise RuntimeError("the evaluation pool is closed")
        if self._broken is not None:
            raise RuntimeError(self._broken)
        self._check_alive()
        messages = items if func is None else [_wire((func, item), plain=False)
                                               for item in items]
        results: list[Any] = [None] * len(messages)
        self._seconds = took = [0.0] * len(messages)
        raised: dict[int, bytes] = {}
        busy: dict[Any, int] = {}  # a worker's end of the pipe -> the task it holds
        queue = iter(range(len(messages)))
        deadline = None if self.timeout is None else time.monotonic() + self.timeout

        def give(conn: Any) -> None:
            index = None if raised else next(queue, None)  # none after a task raised
            if index is not None:
                took[index] = time.perf_counter()
                conn.send_bytes(messages[index])
                busy[conn] = index

        try:
            for conn in self._conns:
                give(conn)
            sentinels = {w.sentinel for w in self._workers}
            while busy:
                seconds = POLL_SECONDS if deadline is None else max(
                    0.0, min(POLL_SECONDS, deadline - time.monotonic()))
                ready = wait([*busy, *sentinels], seconds)
                if not ready and deadline is not None and time.monotonic() >= deadline:
                    self._broken = "the evaluation pool stopped at a timeout"
                    raise TimeoutError(f"{len(messages)} tasks of the evaluation pool took "
                                       f"more than {self.timeout:g} s")
                for conn in [r for r in ready if r in busy]:
                    index = busy.pop(conn)
                    answer = conn.recv_bytes()
                    took[index] = time.perf_counter() - took[index]
                    if answer[:1] == _VALUE:
                        results[index] = answer[1:]
                    else:
                        raised[index] = answer[1:]
                    give(conn)
                if any(r in sentinels for r in ready):
                    self._dead()
        except TimeoutError:  # (an OSError)
            raise
        except (EOFError, OSError):  # a pipe closed: a worker died
            self._dead()
        except BaseException:  # a Ctrl-C: the tasks running would answer the next call
            self._broken = self._broken or "the evaluation pool was interrupted"
            raise
        if raised:
            try:
                error, text = _unwire(raised[min(raised)])
            except Exception as unloadable:  # e.g. a class whose __init__ pickle cannot call
                raise RuntimeError(f"a task of the evaluation pool raised an exception that "
                                   f"could not be rebuilt here ({unloadable})") from None
            raise error from WorkerTraceback(text)
        return [_unwire(data) for data in results]

    def _check_alive(self) -> None:
        """RuntimeError if a worker has exited (workers never exit while the pool runs)."""
        for worker in self._workers:
            if worker.exitcode is not None:
                self._broken = death_message(worker, "the evaluation pool",
                                             "its tasks are lost and the run stops")
                raise RuntimeError(self._broken)

    def _dead(self) -> NoReturn:
        """Raise the RuntimeError of a worker that died (its exit awaited a moment)."""
        # a dead worker's pipe and sentinel close a moment before the kernel lets it be
        # reaped (its exit code), so the exit code is polled for, a second at most
        wait_until = time.monotonic() + 1.0
        while time.monotonic() < wait_until and all(w.exitcode is None for w in self._workers):
            time.sleep(0.01)
        self._check_alive()
        self._broken = "a worker process of the evaluation pool closed its pipe"
        raise RuntimeError(self._broken)

    def close(self, *, abandon: bool = False) -> None:
        """Stop the workers (idempotent).

        Parameters
        ----------
        abandon : bool
            Stopped by an exception (a Ctrl-C, SIGTERM) or a failure: the workers are
            killed at once instead of being asked to stop.
        """
        if self._closed:
            return
        self._closed = True
        if not abandon and self._broken is None:
            for conn in self._conns:
                try:
                    conn.send_bytes(b"")  # stop
                except OSError:  # a worker already gone
                    pass
            for worker in self._workers:
                worker.join(timeout=POLL_SECONDS * 5)
        for worker in self._workers:
            if worker.exitcode is None:
                worker.kill()
        for worker in self._workers:
            worker.join()
        for conn in self._conns:
            conn.close()
