"""Worker processes: the one bound on their number, their signals, dying with a suite.

`MAX_WORKERS` and `check_workers` bound every pool of hawks-deap (`ProblemPool`'s
``n_jobs``, a suite's ``workers``, the features' ``n_jobs``); `quiet_worker` and
`suite_worker` are pool initializers; `orphan_check` ends a suite worker whose parent is
gone before it writes anything.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from hawks_deap._util.validation import check_int

T = TypeVar("T")

__all__ = ["MAX_WORKERS", "POLL_SECONDS", "PoolWatch", "check_not_reimported",
           "check_workers", "death_message",
           "default_threads_per_worker", "interrupts_ignored_by_workers",
           "main_not_reimported", "orphan_check",
           "quiet_worker", "suite_worker", "usable_cores"]

#: Seconds between two checks that the workers are alive while `ProblemPool.map` waits.
POLL_SECONDS = 0.2

#: Most worker processes any pool of hawks-deap starts: ``n_jobs`` (`ProblemPool`,
#: ``evolve``, ``[ga] n_jobs``, ``--n-jobs``) and a suite's ``workers`` (``--workers``)
#: above it are refused (`check_workers`). The one bound, in one place.
MAX_WORKERS = 1024


def quiet_worker() -> None:
    """Signals of a pool worker (evaluation pools, suites): leave Ctrl-C to the parent.

    The parent gets Ctrl-C and stops its workers (one message, not one traceback per
    worker); SIGTERM, by which a pool stops them, ends them quietly (a forked worker
    would otherwise inherit the command's handler, which raises ``KeyboardInterrupt``).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def interrupts_ignored_by_workers() -> Iterator[None]:
    """Start worker processes inside: they ignore Ctrl-C from their first instruction.

    A terminal's Ctrl-C (or ``timeout``'s signal) reaches every process of the group,
    and a spawned worker that gets it while it imports, before its initializer
    (`quiet_worker`) ignores it, printed a KeyboardInterrupt traceback of its own while
    this process stopped the workers anyway. An ignored signal stays ignored across
    ``exec``, and Python then installs no handler; a handler does not. So SIGINT is
    ignored here while the workers start: a Ctrl-C in those moments is lost (a process
    pool's start returns once each worker is forked and executed; `connect_dask` waits
    only until a dask cluster's worker processes exist, not for their imports).
    Blocking it instead did not keep it pending: spawned workers started with an empty
    mask, and the signal reached another thread of this process. Outside the main
    thread nothing changes.
    """
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def check_workers(name: str, value: object) -> int:
    """``value`` as a number of worker processes: an integer in [1, `MAX_WORKERS`].

    The message above the bound is the option schema's (``[ga] n_jobs``, ``--workers``),
    with ``name`` first, so the Python API and the command line say the same.
    """
    value = check_int(name, value)
    if value < 0:  # scikit-learn's and joblib's habit
        raise ValueError(f"{name} must be an integer in [1, {MAX_WORKERS}], got {value} (a "
                         f"number of processes: -1 for every core is scikit-learn's "
                         f"convention, not this package's; give os.cpu_count())")
    value = check_int(name, value, minimum=1)
    if value > MAX_WORKERS:
        raise ValueError(f"{name} must be an integer in [1, {MAX_WORKERS}], got {value!r}")
    return value


#: The process that started this worker (`suite_worker`); None outside suite workers.
_PARENT_PID: int | None = None
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def suite_worker(parent_pid: int) -> None:
    """Pool initializer of a suite's workers: `quiet_worker`, and die with the parent.

    A suite killed alone (``kill -9``, the out-of-memory killer) must not leave its
    workers writing run folders after its lock is gone. On Linux the kernel kills the
    worker when its parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``); elsewhere a
    daemon thread checks ``os.getppid()`` every `POLL_SECONDS`. Either way `orphan_check`
    runs before each write.

    Parameters
    ----------
    parent_pid : int
        The process id of the suite process (``os.getpid()`` there).
    """
    global _PARENT_PID
    quiet_worker()
    _PARENT_PID = parent_pid
    if not _die_with_parent():
        import threading

        def watch() -> None:
            while True:
                orphan_check()
                time.sleep(POLL_SECONDS)

        threading.Thread(target=watch, name="hawks-deap-orphan-check", daemon=True).start()
    orphan_check()  # the parent may have died before the kernel was told


def _die_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where it cannot."""
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):  # pragma: no cover - no prctl in this libc
        return False


def orphan_check() -> None:
    """End this worker at once, silently, if the suite process that started it is gone.

    A no-op outside a suite's workers (`suite_worker`): in the suite process itself and
    in dask workers. Nothing is written and nothing is sent back (the parent is gone).
    """
    if _PARENT_PID is not None and os.getppid() != _PARENT_PID:
        os._exit(1)


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity, else ``os.cpu_count()``.

    A batch job (SLURM, PBS), ``taskset`` or a container's cpuset gives a process fewer
    cores than the machine has: ``os.cpu_count()`` counts the machine's, the affinity
    mask those the process is allowed. (A CPU-time quota without a cpuset, e.g. docker's
    ``--cpus``, is not seen by either.)
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity masks on this system (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def default_threads_per_worker(n_jobs: int) -> int:
    """``max(1, usable_cores() // n_jobs)``: threads per worker without oversubscription."""
    return max(1, usable_cores() // max(1, n_jobs))


@contextlib.contextmanager
def main_not_reimported() -> Iterator[None]:
    """Start spawn workers that do not run the main script again.

    A spawned worker first imports the parent's main module (as ``__mp_main__``), so a
    script without an ``if __name__ == "__main__":`` guard runs again in every worker:
    one that starts a suite there takes the suite's lock (``SuiteBusy``), the worker dies
    while starting, the pool starts another, and the suite waits for ever. Suite workers
    need nothing of the main module (tasks and a user's algorithms travel pickled by
    dill, by value), so while a pool starts its workers the main module hides its file
    and spec, which is all the spawn start method reads to import it.
    """
    main = sys.modules.get("__main__")
    saved: dict[str, object] = {k: main.__dict__[k] for k in ("__file__", "__spec__")
             if main is not None and k in main.__dict__}
    if main is not None:
        main.__dict__.pop("__file__", None)
        main.__spec__ = None  # read without a default
    try:
        yield
    finally:
        if main is not None:
            main.__dict__.pop("__spec__", None)
            main.__dict__.update(saved)


def check_not_reimported(what: str) -> None:
    """Refuse to start ``what`` from a main module re-imported by a spawned worker.

    Raises
    ------
    RuntimeError
        In a worker process that is running the parent's script again (it lacks an
        ``if __name__ == "__main__":`` guard around ``what``), saying so.
    """
    if getattr(sys.modules.get("__main__"), "__name__", None) == "__mp_main__":
        raise RuntimeError(
            f"{what} was called while a worker process was importing your script: put the "
            'call under an `if __name__ == "__main__":` guard (worker processes start by '
            "importing the main module; see the 'spawn' start method in Python's "
            "multiprocessing documentation)")


def death_message(process: Any, what: str, consequence: str) -> str:
    """How a worker process that exited (``exitcode`` set) died, for a RuntimeError.

    Parameters
    ----------
    process : multiprocess.Process
        The worker, exited.
    what : str
        What the workers do (e.g. ``"the evaluation pool"``).
    consequence : str
        What the death means for the caller.
    """
    code = process.exitcode
    how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
    hint = " (SIGKILL: often the out-of-memory killer)" if code == -9 else ""
    return f"a worker process of {what} (pid {process.pid}) died ({how}{hint}); {consequence}"


class PoolWatch:
    """The workers of a ``multiprocess`` pool, watched: one that dies stops the work.

    A pool replaces a worker that died (out of memory, a crash in native code, a
    ``kill``) but not the task it held, which is lost: waiting for its result waits
    forever. `check` raises as soon as a worker has exited (workers never exit while the
    pool runs), and `stop` ends the pool even then.

    Parameters
    ----------
    pool : multiprocess.pool.Pool
        The pool, just made.
    what : str
        What the workers do, for the message (e.g. ``"the evaluation pool"``).
    consequence : str
        What the death means for the caller (e.g. ``"its tasks are lost and the run
        stops"``).
    """

    def __init__(self, pool: Any, what: str, consequence: str) -> None:
        self.pool = pool
        self.what = what
        self.consequence = consequence
        self.workers: list[Any] = list(pool._pool)

    def check(self) -> None:
        """Raise RuntimeError if a worker process has exited, naming how."""
        for process in list(self.pool._pool):  # replacements started by the pool
            if all(process is not p for p in self.workers):
                self.workers.append(process)
        for process in self.workers:
            if process.exitcode is not None:
                raise RuntimeError(death_message(process, self.what, self.consequence))

    def wait(self, get: Callable[[float], T], timeout: float | None = None) -> T:
        """``get(POLL_SECONDS)`` until it returns, the workers checked between tries.

        Parameters
        ----------
        get : callable
            Takes a timeout in seconds, raises ``multiprocess.TimeoutError`` when it
            passes (``AsyncResult.get``, an ``imap`` iterator's ``next``).
        timeout : float, optional
            Seconds in all: then the builtin ``TimeoutError`` (None: no limit).

        Returns
        -------
        object
            What ``get`` returned.
        """
        import multiprocess

        start = time.monotonic()
        while True:
            try:
                return get(POLL_SECONDS)
            except multiprocess.TimeoutError:
                pass
            self.check()
            if timeout is not None and time.monotonic() - start > timeout:
                raise TimeoutError(f"waited {timeout:g} s")

    def stop(self, *, abandon: bool = False) -> None:
        """Stop the workers: ``terminate``, after freeing what a dead worker may hold.

        Parameters
        ----------
        abandon : bool
            The work stopped short (an exception, a Ctrl-C or SIGTERM): the workers are
            killed and the queues' locks freed first whether or not one is seen dead yet
            (a SIGTERM to the process group kills idle workers a moment before their
            exit is seen, and ``terminate`` would wait for a lock one of them held).
        """
        if abandon or any(process.exitcode is not None
                          for process in [*self.workers, *self.pool._pool]):
            _stop_workers(self.pool)
        self.pool.terminate()
        self.pool.join()


def _stop_workers(pool: Any) -> None:
    """Kill a pool's workers and free the locks a killed one may hold, before ``terminate``.

    An idle worker waits for its next task holding the task queue's read lock (and one
    sending a result holds the result queue's write lock); one killed meanwhile (a SIGTERM
    to the process group, as a batch scheduler sends) never releases it, and
    ``Pool.terminate`` waits for it forever. So, once a worker has died: no more
    replacement workers, every worker killed (what ``terminate`` does anyway), and then
    the locks that no live process releases within a moment are freed.
    """
    from multiprocess.pool import TERMINATE

    handler = pool._worker_handler
    handler._state = TERMINATE
    pool._change_notifier.put(None)
    handler.join()
    workers = list(pool._pool)
    for process in workers:
        if process.exitcode is None:
            process.kill()
    for process in workers:
        process.join()
    for lock in (pool._inqueue._rlock, pool._outqueue._wlock):
        if lock is None:
            continue
        # taken (free, or released by a live thread within the moment) and given back,
        # or held by a dead worker and freed: one release either way
        lock.acquire(timeout=0.5)
        lock.release()
