"""Process pools that evaluate individuals of one problem.

The problem is sent once to each worker (pool initializer), not with every task; each
task carries only an individual and its evaluation seed, so results do not depend on
which worker evaluates what. Works with the fork, spawn and forkserver start methods:
the problem travels as ``dill`` bytes and is rebuilt inside the worker, where a failure
to rebuild it is reported with the first evaluation instead of killing the worker.

Individuals travel as plain (C) pickle bytes rather than ``dill``: writing ten 50-D
genotypes with dill took longer than evaluating them (config c of
``benchmarks/bench_index.py`` ran 9.7 s with two workers against 5.8 s serially; 4.3 s
now). Each gene goes as its content key and arrays, and a worker keeps the genes it has
received (`WORKER_GENE_BYTES`), so that it validates and copies only new ones. Cheap
evaluations go as one message per worker, expensive ones (a problem with
``parallel_by_default``, Versus mode) one per individual, so that the workers stay
balanced. What does not pickle plainly (a class created at run time) goes by dill.

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

import io
import os
import pickle
import time
import traceback
from typing import Any

from hawks_deap.genotype import Cluster

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


#: Array bytes of the genes a worker keeps by key (`_gene_from_wire`) before it starts
#: over (a budget, not a cache: a gene not kept is rebuilt from the bytes it came with).
WORKER_GENE_BYTES = 64 << 20
_WORKER_GENES: dict[str, Cluster] = {}
_WORKER_GENE_BYTES = 0


def _gene_from_wire(key: str, mean: Any, variances: Any, rotation: Any) -> Cluster:
    """A gene received from the parent: the worker's copy of it if it has one.

    Genes are immutable and ``key`` is a digest of their arrays, so a gene the worker
    already holds is reused rather than validated and copied again (offspring share
    most of their genes with the individuals evaluated before them).
    """
    global _WORKER_GENE_BYTES
    gene = _WORKER_GENES.get(key)
    if gene is None:
        gene = Cluster(mean, variances, rotation)
        size = gene.mean.nbytes + gene.variances.nbytes + gene.rotation.nbytes
        if _WORKER_GENE_BYTES + size > WORKER_GENE_BYTES:
            _WORKER_GENES.clear()
            _WORKER_GENE_BYTES = 0
        _WORKER_GENES[key] = gene
        _WORKER_GENE_BYTES += size
    return gene


class _WirePickler(pickle.Pickler):
    """The C pickler, with each gene sent as its key and arrays (`_gene_from_wire`)."""

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is Cluster:
            return _gene_from_wire, (obj.key, obj.mean, obj.variances, obj.rotation)
        return NotImplemented


def _to_wire(obj: Any) -> bytes | None:
    """``obj`` as plain pickle bytes (genes by `_WirePickler`); None if it needs dill."""
    buffer = io.BytesIO()
    try:
        _WirePickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None  # e.g. a class created at run time: multiprocess's dill sends it
    return buffer.getvalue()


def _evaluate_wire(blob: bytes) -> Any:
    """Evaluate the ``(individual, eval_seed)`` pairs of a `_to_wire` blob.

    Returns the evaluations as plain pickle bytes, or as a list (then sent by dill)
    when they do not pickle plainly.
    """
    items = pickle.loads(blob)
    prefetch = getattr(_WORKER_PROBLEM, "prefetch", None)
    if prefetch is not None and len(items) > 1:
        prefetch([individual for individual, _ in items])
    results = [_evaluate_installed(item) for item in items]
    return _to_wire(results) or results


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
        self.per_item = bool(getattr(problem, "parallel_by_default", False))
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
        items = list(items)
        if not items:
            return []
        # Cheap evaluations go as one message per worker (the pool's per-task cost would
        # dominate), in consecutive runs (siblings share genes: the worker's `prefetch`
        # computes their pairs together); expensive ones (``parallel_by_default``) one
        # per individual, for balance. Individuals travel as plain pickle bytes, not
        # dill: 10x cheaper to write, and a worker reuses the genes it already holds.
        n_chunks = len(items) if self.per_item else min(len(items), self.n_jobs)
        cuts = [len(items) * i // n_chunks for i in range(n_chunks + 1)]
        blobs = [_to_wire(items[a:b]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
        if any(blob is None for blob in blobs):
            return self._run(_evaluate_installed, items)
        results: list = []
        for done in self._run(_evaluate_wire, blobs):
            results.extend(pickle.loads(done) if isinstance(done, bytes) else done)
        return results

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
