"""Process pools that evaluate individuals of one problem.

Two kinds: `ProblemPool` (a ``multiprocess`` pool; the parent waits while its workers
evaluate whole batches: Versus mode, ``map=``) and `HelperPool` with `SplitEvaluate`
(the parent evaluates part of each batch itself while helper processes, one pipe each,
evaluate the first offspring as soon as they are mutated: Index mode with n_jobs > 1).

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
import struct
import time
import traceback
from collections.abc import Callable, Iterable
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


class _HeldGenes:
    """Genes held by key within a byte budget; past it, the table starts over.

    A pool worker keeps the genes it received (`_gene_from_wire`); a helper too, and the
    parent keeps a mirror of each helper's table (keys only), updated by the same rule
    in the same order, so that it sends a gene the helper holds as its key alone
    (unpickling the arrays of genes it already had took ~8-10 % of a helper's profiled
    time on config b).
    """

    __slots__ = ("budget", "genes", "size")

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.genes: dict[str, Any] = {}
        self.size = 0

    def add(self, key: str, gene: Any, arrays: tuple) -> None:
        """Hold ``gene`` under ``key``; ``arrays`` (its mean, variances, rotation) count."""
        size = sum(a.nbytes for a in arrays)
        if self.size + size > self.budget:  # start over: the helper does the same
            self.clear()
        self.genes[key] = gene
        self.size += size

    def clear(self) -> None:
        self.genes.clear()
        self.size = 0


#: Array bytes of the genes a worker keeps by key (`_gene_from_wire`) before it starts
#: over (a budget, not a cache: a gene not kept is rebuilt from the bytes it came with).
WORKER_GENE_BYTES = 64 << 20
#: The genes this worker or helper holds (a pool worker makes it on first use, with
#: `WORKER_GENE_BYTES`; a helper at its start, with the budget its parent mirrors).
_WORKER_TABLE: _HeldGenes | None = None


def _gene_from_wire(key: str, shape_key: str, mean: Any, variances: Any,
                    rotation: Any) -> Cluster:
    """A gene received from the parent: the worker's copy of it if it has one.

    Genes are immutable and ``key`` is a digest of their arrays, so a gene the worker
    already holds is reused (offspring share most of their genes with the individuals
    evaluated before them); a new one is rebuilt from the parent's valid arrays and
    keys, without checking or hashing them again.
    """
    global _WORKER_TABLE
    if _WORKER_TABLE is None:
        _WORKER_TABLE = _HeldGenes(WORKER_GENE_BYTES)
    gene = _WORKER_TABLE.genes.get(key)
    if gene is None:
        gene = Cluster._trusted(mean, variances, rotation, key, shape_key)
        _WORKER_TABLE.add(key, gene, (gene.mean, gene.variances, gene.rotation))
    return gene


def _held_gene(key: str) -> Cluster:
    """A gene the receiving helper holds (sent as its key alone)."""
    return _WORKER_TABLE.genes[key]


class _WirePickler(pickle.Pickler):
    """The C pickler, with each gene sent as its key and arrays (`_gene_from_wire`).

    With ``mirror`` (the parent's copy of a helper's table), a gene the helper holds
    goes as its key alone (`_held_gene`), and the others are recorded in the mirror as
    the helper will record them.
    """

    def __init__(self, file: Any, mirror: _HeldGenes | None = None) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.mirror = mirror

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is not Cluster:
            return NotImplemented
        arrays = (obj.mean, obj.variances, obj.rotation)
        if self.mirror is not None:
            if obj.key in self.mirror.genes:
                return _held_gene, (obj.key,)
            self.mirror.add(obj.key, None, arrays)
        return _gene_from_wire, (obj.key, obj.shape_key, *arrays)


def _to_wire(obj: Any, mirror: _HeldGenes | None = None) -> bytes | None:
    """``obj`` as plain pickle bytes (genes by `_WirePickler`); None if it needs dill.

    A ``mirror`` left partly updated by a failure is cleared (the helper clears its
    table when it gets the dill message instead).
    """
    buffer = io.BytesIO()
    try:
        _WirePickler(buffer, mirror).dump(obj)
    except (pickle.PicklingError, TypeError, AttributeError):
        if mirror is not None:
            mirror.clear()
        return None  # e.g. a class created at run time: multiprocess's dill sends it
    return buffer.getvalue()


def _evaluate_wire(blob: bytes) -> Any:
    """Evaluate the ``(individual, eval_seed)`` pairs of a `_to_wire` blob.

    Returns the evaluations as plain pickle bytes, or as a list (then sent by dill)
    when they do not pickle plainly.
    """
    results = _evaluate_batch(pickle.loads(blob))
    return _to_wire(results) or results


def _evaluate_batch(items: list[tuple[Any, int | None]]) -> list:
    """The installed problem's evaluations of a batch, its overlap pairs prefetched."""
    prefetch = getattr(_WORKER_PROBLEM, "prefetch", None)
    if prefetch is not None and len(items) > 1:
        prefetch([individual for individual, _ in items])
    return [_evaluate_installed(item) for item in items]


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


# -- helper processes: the calling process evaluates a share of each batch too ----------

#: Blob tags: plain pickle (`_to_wire`), dill, an error (exception and traceback).
_PLAIN, _DILL, _ERROR = b"p", b"d", b"e"


def _encode(obj: Any, mirror: _HeldGenes | None = None) -> bytes:
    """``obj`` tagged: plain pickle bytes when it pickles plainly, else dill bytes.

    ``mirror``: a helper's table (see `_WirePickler`); a message that needs dill resets
    the table on both sides.
    """
    plain = _to_wire(obj, mirror)
    if plain is not None:
        return _PLAIN + plain
    import dill

    return _DILL + dill.dumps(obj, protocol=dill.HIGHEST_PROTOCOL)


def _decode(blob: bytes) -> Any:
    if blob[:1] == _PLAIN:
        return pickle.loads(blob[1:])
    import dill

    return dill.loads(blob[1:])


def _helper_main(conn: Any, inherited: list, payload: bytes, threads: int | None,
                 gene_bytes: int) -> None:
    """Loop of a `HelperPool` process: evaluate each batch it receives, reply, repeat.

    A reply is a tag, the seconds the evaluations took (a float64) and the results
    (`_encode`), or the error tag and the pickled exception with its traceback. The loop
    ends on an empty message or when the parent's end of the pipe closes; ``inherited``
    are the parent's ends of the pipes (a forked child holds copies of them, which would
    keep its own pipe open after the parent has gone).
    """
    global _WORKER_TABLE
    for end in inherited:
        end.close()
    _install(payload, threads)
    _WORKER_TABLE = _HeldGenes(gene_bytes)
    while True:
        try:
            blob = conn.recv_bytes()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if not blob:
            return
        start = time.perf_counter()
        try:
            if blob[:1] == _DILL:  # the parent has reset its mirror of the table
                _WORKER_TABLE.clear()
            reply = _encode(_evaluate_batch(_decode(blob)))
        except KeyboardInterrupt:
            return
        except BaseException as error:  # noqa: BLE001 - sent to the parent, raised there
            text = traceback.format_exc()
            try:
                import dill

                reply = _ERROR + dill.dumps((error, text))
            except Exception:  # noqa: BLE001 - an exception that does not pickle
                reply = _ERROR + pickle.dumps(
                    (RuntimeError(f"{type(error).__name__}: {error}"), text))
        seconds = time.perf_counter() - start
        try:
            conn.send_bytes(reply[:1] + struct.pack("<d", seconds) + reply[1:])
        except (OSError, KeyboardInterrupt):
            return


class _RemoteTraceback(Exception):
    """The traceback of an exception raised in a helper process (its ``__cause__``)."""

    def __str__(self) -> str:
        return f"\n\nHelper process traceback:\n{self.args[0]}"


class HelperPool:
    """Helper processes for evaluations that the calling process shares in.

    Unlike `ProblemPool`, whose workers evaluate whole batches while the parent waits,
    a helper pool is for cheap evaluations (Index mode, ~1 ms): the parent submits the
    first part of a batch to the helpers as soon as it is ready, evaluates the rest
    itself (see `SplitEvaluate`), then collects the helpers' results. Messages go
    through one pipe per helper (a round trip costs ~0.2 ms, against ~1.3 ms through a
    ``multiprocess`` pool's task and result threads). Each helper holds its own copy of
    the problem (sent once, as dill bytes, so that every start method works) and its
    own caches; it runs one BLAS thread.

    The pool never hangs: an exception raised in a helper is raised again by `result`
    (with the helper's traceback as its cause), and a helper that dies is reported as a
    ``RuntimeError`` naming its process id and exit code.

    Parameters
    ----------
    problem : Problem
        Must already have its layout (``problem.prepare``).
    n_helpers : int
        Number of helper processes (>= 1).
    start_method : str, optional
        ``"fork"``, ``"spawn"`` or ``"forkserver"``; `DEFAULT_START_METHOD`, else the
        platform default, if None.
    """

    def __init__(self, problem: Any, n_helpers: int, *,
                 start_method: str | None = None) -> None:
        import dill
        import multiprocess

        from hawks_deap._validation import check_choice, check_int

        self.n_helpers = check_int("n_helpers", n_helpers, minimum=1)
        methods = multiprocess.get_all_start_methods()
        start_method = start_method if start_method is not None else DEFAULT_START_METHOD
        if start_method is not None:
            check_choice("start_method", start_method, methods)
        ctx = multiprocess.get_context(start_method)
        if ctx.get_start_method() == "fork" and (getattr(problem, "n_threads", None) or 1) > 1:
            # as in ProblemPool: GNU OpenMP deadlocks in forked children of OpenMP users
            ctx = multiprocess.get_context("forkserver" if "forkserver" in methods
                                           else "spawn")
        self.start_method = ctx.get_start_method()
        from multiprocess.connection import wait

        self._wait = wait
        payload = dill.dumps(problem, protocol=dill.HIGHEST_PROTOCOL)
        self._processes: list[Any] = []
        self._conns: list[Any] = []
        self._closed = False
        try:
            for _ in range(self.n_helpers):
                parent, child = ctx.Pipe()
                self._conns.append(parent)
                process = ctx.Process(target=_helper_main,
                                      args=(child, list(self._conns), payload, 1,
                                            WORKER_GENE_BYTES), daemon=True)
                process.start()
                child.close()
                self._processes.append(process)
        except BaseException:
            self.close()
            raise
        self._pending = [False] * self.n_helpers
        self._held = [_HeldGenes(WORKER_GENE_BYTES) for _ in range(self.n_helpers)]

    def __enter__(self) -> HelperPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def submit(self, helper: int, items: list[tuple[Any, int | None]]) -> None:
        """Send ``(individual, eval_seed)`` pairs to helper number ``helper``."""
        if self._closed:
            raise RuntimeError("the helper pool is closed")
        if self._pending[helper]:
            raise RuntimeError(f"helper {helper} has a batch already: collect its result "
                               "first")
        self._conns[helper].send_bytes(_encode(list(items), self._held[helper]))
        self._pending[helper] = True

    def pending(self, helper: int) -> bool:
        """Whether helper ``helper`` has a batch whose result was not collected."""
        return self._pending[helper] and not self._closed

    def ready(self, helper: int) -> bool:
        """Whether helper ``helper``'s reply has arrived (`result` will not wait)."""
        return self._conns[helper].poll()

    def result(self, helper: int) -> tuple[list, float]:
        """The evaluations of helper ``helper``'s batch, and the seconds they took there.

        Raises
        ------
        Exception
            Whatever an evaluation raised in the helper.
        RuntimeError
            If the helper died, or nothing was submitted to it.
        """
        if not self._pending[helper]:
            raise RuntimeError(f"nothing was submitted to helper {helper}")
        conn, process = self._conns[helper], self._processes[helper]
        while not conn.poll():
            ready = self._wait([conn, process.sentinel], timeout=POLL_SECONDS)
            if conn in ready:
                break
            if process.sentinel in ready or process.exitcode is not None:
                self._died(process)
        try:
            blob = conn.recv_bytes()
        except (EOFError, OSError):  # the pipe closed: the helper has gone
            self._died(process)
        self._pending[helper] = False
        tag, seconds = blob[:1], struct.unpack("<d", blob[1:9])[0]
        if tag == _ERROR:
            import dill

            error, text = dill.loads(blob[9:])
            raise error from _RemoteTraceback(text)
        return _decode(tag + blob[9:]), seconds

    def _died(self, process: Any) -> None:
        process.join(POLL_SECONDS)
        code = process.exitcode
        how = (f"killed by signal {-code}" if code is not None and code < 0
               else f"exit code {code}")
        hint = " (SIGKILL: often the out-of-memory killer)" if code == -9 else ""
        self.close()
        raise RuntimeError(
            f"a helper process of the evaluation (pid {process.pid}) died ({how}{hint}) "
            "while evaluating; its batch is lost and the run stops")

    def close(self) -> None:
        """Stop the helpers (idempotent): each sees its pipe close and exits."""
        if self._closed:
            return
        self._closed = True
        for conn in self._conns:
            try:
                conn.send_bytes(b"")
            except OSError:  # the helper has gone
                pass
            conn.close()
        for process in self._processes:
            process.join(1.0)
            if process.exitcode is None:
                process.terminate()
                process.join()


class SplitEvaluate:
    """Evaluate batches partly in `HelperPool` helpers, partly in the calling process.

    Called with an iterable of ``(individual, eval_seed)`` pairs, typically produced
    while the offspring are being mutated: the first pairs go to the helpers as soon as
    each helper's share is complete, so that they evaluate while the caller mutates the
    rest; the caller then evaluates the remaining pairs itself (``prefetch`` first) and
    collects the helpers' results. If the iterable has a ``prepare(count)`` method, it
    is called first with the helpers' total share, so that an iterable that makes its
    items in chunks makes that many first. Results come in the order of the pairs and
    never depend on the split (evaluations are deterministic given their seed).

    The split balances the finishing times with costs measured as the run goes (moving
    averages, in seconds per individual): ``c_var`` to produce a pair (mutation), ``c_own``
    to evaluate one here, ``c_help`` to evaluate one in a helper (as the helper reports
    it) and ``latency`` per round trip. With n pairs expected and h helpers, the helpers
    take the first ``w`` pairs, the w that makes ``w (c_var + c_help / h) + latency``
    (when the helpers finish) equal ``n c_var + (n - w) c_own`` (when the caller does).
    The first batch, before any measurement, is split evenly.

    Parameters
    ----------
    pool : HelperPool
    evaluate : callable
        ``(individual, eval_seed) -> Evaluation`` pair evaluator of the caller's process.
    prefetch : callable, optional
        Called with the caller's individuals before it evaluates them.
    """

    #: Weight of the newest measurement in the moving averages.
    SMOOTHING = 0.3

    def __init__(self, pool: HelperPool,
                 evaluate: Callable[[tuple[Any, int | None]], Any],
                 prefetch: Callable[[list], None] | None = None) -> None:
        self.pool = pool
        self.evaluate = evaluate
        self.prefetch = prefetch
        self.costs: dict[str, float] = {}

    def _average(self, name: str, value: float) -> None:
        old = self.costs.get(name)
        self.costs[name] = value if old is None else (
            old + self.SMOOTHING * (value - old))

    def shares(self, n: int) -> list[int]:
        """Pairs for each helper (in order), for a batch of about ``n`` pairs."""
        h = self.pool.n_helpers
        c = self.costs
        if {"c_own", "c_help"} <= c.keys():
            c_var = c.get("c_var", 0.0)
            own = c_var + c["c_own"]
            w = (n * own - c.get("latency", 0.0)) / (own + c["c_help"] / h)
            w = min(n, max(0, round(w)))
        else:
            w = n * h // (h + 1)
        return [w * (i + 1) // h - w * i // h for i in range(h)]

    def __call__(self, pairs: Iterable[tuple[Any, int | None]],
                 size_hint: int | None = None) -> list:
        """Evaluations of ``pairs`` (consumed once, in order), in their order.

        ``size_hint`` is the number of pairs expected (default: ``len(pairs)``).
        """
        if size_hint is None:
            pairs = list(pairs)
            size_hint = len(pairs)
        shares = self.shares(size_hint)
        prepare = getattr(pairs, "prepare", None)
        if prepare is not None:  # make the helpers' pairs first, then the rest
            prepare(sum(shares))
        pool = self.pool
        sent: list[tuple[int, float, int]] = []  # (helper, time sent, count)
        chunk: list = []
        local: list = []
        helper = 0
        n_pairs = 0
        start = time.perf_counter()
        try:
            for pair in pairs:
                n_pairs += 1
                while helper < len(shares) and shares[helper] == 0:
                    helper += 1
                if helper < len(shares):
                    chunk.append(pair)
                    if len(chunk) == shares[helper]:
                        pool.submit(helper, chunk)
                        sent.append((helper, time.perf_counter(), len(chunk)))
                        chunk, helper = [], helper + 1
                else:
                    local.append(pair)
            if chunk:  # fewer pairs than expected
                pool.submit(helper, chunk)
                sent.append((helper, time.perf_counter(), len(chunk)))
            produced = time.perf_counter()
            if n_pairs:
                self._average("c_var", (produced - start) / n_pairs)
            if local:
                if self.prefetch is not None:
                    self.prefetch([individual for individual, _ in local])
                own = [self.evaluate(pair) for pair in local]
                self._average("c_own", (time.perf_counter() - produced) / len(local))
            else:
                own = []
            results: list = []
            for index, (h, at, count) in enumerate(sent):
                waited = not pool.ready(h)
                values, seconds = pool.result(h)
                results.extend(values)
                self._average("c_help", seconds / count)
                if waited and index == len(sent) - 1:
                    # the caller waited for the last helper: its overhead is measurable
                    self._average("latency", max(0.0, time.perf_counter() - at - seconds))
        except BaseException:
            for h, _, _ in sent:  # a batch left in a helper would poison the next call
                if pool.pending(h):
                    try:
                        pool.result(h)
                    except BaseException:  # noqa: BLE001 - the first error wins
                        pass
            raise
        results.extend(own)
        return results
