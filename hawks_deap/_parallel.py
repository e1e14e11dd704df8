"""Process pools that evaluate individuals of one problem.

The problem is sent once to each worker (pool initializer), not with every task; each
task carries only an individual and its evaluation seed, so results do not depend on
which worker evaluates what. Works with the fork, spawn and forkserver start methods:
the problem travels as ``dill`` bytes and is rebuilt inside the worker, where a failure
to rebuild it is reported with the first evaluation instead of killing the worker.

The pool never hangs:

- an exception raised by an evaluation (e.g. the ``RuntimeError`` of a failing
  clustering algorithm, which names it) is raised again in the parent by `evaluate`;
- a worker that dies (killed by the operating system, out of memory, a crash in native
  code) is detected within `POLL_SECONDS` and reported as a ``RuntimeError`` naming its
  process id and exit code; ``multiprocessing`` alone would wait forever for its task;
- an optional ``timeout`` bounds every `evaluate` call.

Threads: each worker caps its BLAS/OpenMP thread pools (``threadpoolctl``, and the usual
environment variables for libraries loaded later) to ``threads_per_worker``, so that
``n_jobs`` workers do not oversubscribe the cores: 1 under the fork start method, else
``cpu_count // n_jobs`` (at least 1). Forked workers must stay single-threaded: GNU
OpenMP (scikit-learn's libgomp) deadlocks in a forked child whose parent has already run
an OpenMP thread team (seen here: four 2-ms evaluations never returned); a pool asked for
more threads is therefore started with forkserver (or spawn) instead of fork.
"""

from __future__ import annotations

import os
import time
import traceback
from typing import Any

_WORKER_PROBLEM: Any = None
_WORKER_ERROR: str | None = None
_WORKER_LIMITS: Any = None

#: Seconds between two checks that the workers are alive while `evaluate` waits.
POLL_SECONDS = 0.2

#: Start method used when none is given (None: the platform's default).
DEFAULT_START_METHOD: str | None = None

_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                     "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def _install(payload: bytes, threads: int | None) -> None:
    """Pool initializer: cap the threads, then rebuild the problem from its bytes."""
    global _WORKER_PROBLEM, _WORKER_ERROR, _WORKER_LIMITS
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
        try:
            from threadpoolctl import threadpool_limits

            _WORKER_LIMITS = threadpool_limits(limits=threads)  # kept for the worker's life
        except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
            pass


def _evaluate_installed(item: tuple[Any, int | None]):
    if _WORKER_ERROR is not None:
        raise RuntimeError(f"the problem could not be rebuilt in a worker process: "
                           f"{_WORKER_ERROR}")
    individual, eval_seed = item
    return _WORKER_PROBLEM.evaluate(individual, eval_seed)


def default_threads_per_worker(n_jobs: int) -> int:
    """``max(1, os.cpu_count() // n_jobs)``: threads per worker without oversubscription."""
    return max(1, (os.cpu_count() or 1) // max(1, n_jobs))


class ProblemPool:
    """A ``multiprocess`` pool with a problem installed in every worker.

    Parameters
    ----------
    problem : Problem
        Must already have its layout (``problem.prepare``); it is copied into each worker
        once, with its layout, so the workers' evaluations equal the parent's.
    n_jobs : int
        Number of worker processes (>= 1).
    start_method : str, optional
        ``"fork"``, ``"spawn"`` or ``"forkserver"``; `DEFAULT_START_METHOD`, else the
        platform default, if None.
    threads_per_worker : int, optional
        BLAS/OpenMP threads in each worker. Default: 1 under fork, else
        `default_threads_per_worker`. Workers that may run more than one thread (this
        option, or a problem's ``n_threads`` > 1) are never forked: the pool then uses
        forkserver (or spawn), because GNU OpenMP deadlocks in a forked child whose
        parent has used OpenMP threads.
    timeout : float, optional
        Seconds after which `evaluate` gives up with ``TimeoutError`` (no limit if None).

    Examples
    --------
    >>> import numpy as np
    >>> import hawks_deap as hd
    >>> problem = hd.IndexProblem(100, 2, 2, target=0.5)
    >>> _ = problem.prepare(np.random.default_rng(0))
    >>> individual = problem.random_individual(np.random.default_rng(1))
    >>> with ProblemPool(problem, 2) as pool:
    ...     values = pool.evaluate([(individual, 0), (individual, 1)])
    >>> values[0] == problem.evaluate(individual)
    True
    """

    def __init__(self, problem: Any, n_jobs: int, *, start_method: str | None = None,
                 threads_per_worker: int | None = None, timeout: float | None = None) -> None:
        import dill
        import multiprocess

        from hawks_deap._validation import check_choice, check_float, check_int

        n_jobs = check_int("n_jobs", n_jobs, minimum=1)
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
        problem_threads = getattr(problem, "n_threads", None)
        if forked and (self.threads_per_worker > 1 or (problem_threads or 1) > 1):
            # GNU OpenMP (scikit-learn's libgomp) deadlocks in forked children whose
            # parent has used an OpenMP thread team: only single-threaded workers fork.
            ctx = multiprocess.get_context("forkserver" if "forkserver" in methods
                                           else "spawn")
        self.start_method = ctx.get_start_method()
        self.timeout = None if timeout is None else check_float("timeout", timeout, low=0.0,
                                                                low_open=True)
        self.n_jobs = n_jobs
        payload = dill.dumps(problem, protocol=dill.HIGHEST_PROTOCOL)
        self._timeout_error = multiprocess.TimeoutError
        self._pool = ctx.Pool(n_jobs, initializer=_install,
                              initargs=(payload, self.threads_per_worker))
        self._workers: list[Any] = list(self._pool._pool)
        self._closed = False

    def __enter__(self) -> ProblemPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_workers(self) -> None:
        """Raise if a worker process has exited (workers never exit while the pool runs)."""
        for process in list(self._pool._pool):  # replacements started by the pool
            if all(process is not p for p in self._workers):
                self._workers.append(process)
        for process in self._workers:
            code = process.exitcode
            if code is not None:
                how = (f"killed by signal {-code}" if code < 0 else f"exit code {code}")
                hint = " (SIGKILL: often the out-of-memory killer)" if code == -9 else ""
                raise RuntimeError(
                    f"a worker process of the evaluation pool (pid {process.pid}) died "
                    f"({how}{hint}) while evaluating; its tasks are lost and the run stops"
                )

    def evaluate(self, items: list[tuple[Any, int | None]]) -> list:
        """Evaluate ``(individual, eval_seed)`` pairs; results in order.

        Raises
        ------
        Exception
            Whatever an evaluation raised (e.g. the ``RuntimeError`` of a failing
            clustering algorithm).
        RuntimeError
            If a worker process died, or the pool is closed.
        TimeoutError
            If the pool's ``timeout`` passed.
        """
        return self._run(_evaluate_installed, items)

    def map(self, func: Any, iterable: Any) -> list:
        """``pool.map`` guarded like `evaluate` (for ``evolve(map=...)`` or DEAP)."""
        return self._run(func, iterable)

    def _run(self, func: Any, iterable: Any) -> list:
        if self._closed:
            raise RuntimeError("the evaluation pool is closed")
        self._check_workers()
        items = list(iterable)
        result = self._pool.map_async(func, items, chunksize=1)
        start = time.monotonic()
        while True:
            try:
                return result.get(timeout=POLL_SECONDS)
            except self._timeout_error:
                pass
            self._check_workers()
            if self.timeout is not None and time.monotonic() - start > self.timeout:
                raise TimeoutError(f"{len(items)} tasks of the evaluation pool took more "
                                   f"than {self.timeout:g} s")

    def close(self) -> None:
        """Stop the workers (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._pool.terminate()
        self._pool.join()
