"""The dask backend of suites: a client (a LocalCluster or a scheduler) and its runs."""

from __future__ import annotations

import contextlib
import logging
import signal
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from hawks_deap._util.workers import interrupts_ignored_by_workers

if TYPE_CHECKING:
    from dask.distributed import Client


def connect_dask(workers: int, scheduler: str | None, timeout: float = 10.0) -> Client:
    """A ``dask.distributed.Client``: a new LocalCluster, or an existing scheduler.

    Raises ``ValueError`` naming the address when the scheduler cannot be reached
    within ``timeout`` seconds, and ``ImportError`` naming the extra when dask is
    missing.

    Parameters
    ----------
    workers : int
        Workers of the new LocalCluster (one process, one thread each); unused with a
        ``scheduler``.
    scheduler : str or None
        Address of an existing scheduler (``tcp://host:8786``); None starts a
        LocalCluster.
    timeout : float
        Seconds to wait for the scheduler (default 10).

    Returns
    -------
    dask.distributed.Client
    """
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as error:
        raise ImportError("the dask backend needs dask.distributed: install "
                          f"hawks-deap[distributed] ({error})") from None
    if scheduler is None:
        # no dashboard; the scheduler's HTTP server (health routes) still starts, on
        # port 8787 unless told otherwise, and warns on stderr when another cluster
        # holds that port: a free port instead
        cluster = LocalCluster(n_workers=0, threads_per_worker=1, processes=True,
                               dashboard_address=None,
                               scheduler_kwargs={"dashboard_address": ":0"})
        client = Client(cluster)
        try:
            # Ctrl-C is ignored only until the workers' processes exist (they ignore it
            # from then on), not while the scheduler starts or they import: the whole
            # start of a LocalCluster(n_workers=...) lost it
            # the cluster's own view of its workers, kept by a stream: a call to the
            # scheduler cut short by Ctrl-C makes distributed log an error of its own
            def up() -> bool:
                return (len(cluster.scheduler_info.get("workers", {})) >= workers
                        or bool(_failed(cluster)))

            with interrupts_ignored_by_workers():
                spawned = _children_counter()
                cluster.scale(workers)
                _wait_until(lambda: spawned() >= workers or up(), WORKER_SPAWN_SECONDS)
            _wait_until(up)
            failed = _failed(cluster)
            if failed:  # (LocalCluster(n_workers=...) raises so; scale() only logs it)
                raise RuntimeError(f"a worker of the dask LocalCluster failed to start "
                                   f"({failed[0]}; its error above)")
        except BaseException:
            close_dask(client, abandon=True)
            raise
        return client
    try:
        return Client(scheduler, timeout=f"{timeout}s")
    except (OSError, TimeoutError) as error:
        raise ValueError(f"--scheduler {scheduler}: cannot reach the dask scheduler within "
                         f"{timeout:g} s ({type(error).__name__}: {error})") from None


#: Seconds a LocalCluster's worker processes may take to be spawned (not to start:
#: their imports come after) before `connect_dask` hears Ctrl-C again anyway.
WORKER_SPAWN_SECONDS = 30.0


def _children_counter() -> Callable[[], int]:
    """How many processes this one has started through multiprocessing since the call."""
    import multiprocessing

    before = set(multiprocessing.active_children())
    return lambda: len(set(multiprocessing.active_children()) - before)


def _failed(cluster: Any) -> list[str]:
    """The nannies of a LocalCluster that failed to start their workers."""
    from distributed.core import Status

    return [repr(nanny) for nanny in list(getattr(cluster, "workers", {}).values())
            if getattr(nanny, "status", None) == Status.failed]


def _wait_until(condition: Callable[[], bool], seconds: float | None = None) -> None:
    """Return once ``condition()`` holds, or ``seconds`` later (None: no bound)."""
    import time

    deadline = None if seconds is None else time.monotonic() + seconds
    while not condition() and (deadline is None or time.monotonic() < deadline):
        time.sleep(0.005)


def close_dask(client: Any, timeout: float = 30.0, *, abandon: bool = False) -> None:
    """Close a client from `connect_dask`, and the LocalCluster it started, if any.

    A LocalCluster stops in this order: its workers, each given ``timeout`` seconds to
    exit while the scheduler still answers them; then the client; then the cluster (the
    scheduler). Its workers' own log of that shutdown is silenced first: their runs are
    done and saved, and a heartbeat in flight while a worker unregisters (a race inside
    dask.distributed) would otherwise print "Failed to communicate with scheduler during
    heartbeat" and a traceback. A client of an existing scheduler is only closed: its
    workers are not ours.

    Parameters
    ----------
    client : dask.distributed.Client
        The client; its ``cluster``, if any, is closed after it.
    timeout : float
        Seconds each step may take (default 30). dask's own default gives a worker
        4 s to exit before it kills it with a warning, which a loaded machine exceeds
        (measured: 4.3 s and two warnings after a suite's runs, load average 7 on 2
        cores).
    abandon : bool
        The runs still running are not wanted (a Ctrl-C, an error): a LocalCluster's
        worker processes are killed first, not asked to finish them (a nanny waits
        ``0.8 timeout`` for a worker's run, then kills it with a warning).
    """
    cluster = getattr(client, "cluster", None)
    if cluster is None:
        client.close(timeout=timeout)
        return
    quiet = (_loggers_quiet(_ABANDON_LOGGERS, logging.CRITICAL) if abandon
             else contextlib.nullcontext())
    with quiet:
        _close_cluster(client, cluster, timeout, abandon)


def _close_cluster(client: Any, cluster: Any, timeout: float, abandon: bool) -> None:
    """`close_dask` of a client and the LocalCluster it started."""
    if abandon:
        _kill_worker_processes(cluster)
    else:
        # a courtesy that fails (a worker already gone) must not hide the suite's outcome:
        # the client and the cluster are closed whatever happens
        with _scheduler_quiet(), contextlib.suppress(Exception):
            client.run(_quiet_shutdown)
            workers = list(getattr(cluster, "workers", {}).values())
            if workers:  # (the nannies of a LocalCluster: each stops its worker process)
                cluster.sync(_close_workers, workers, timeout)
    try:
        with _scheduler_quiet():
            client.close(timeout=timeout)
    finally:
        with _scheduler_quiet():
            cluster.close(timeout=timeout)


def _kill_worker_processes(cluster: Any) -> None:
    """SIGKILL a LocalCluster's worker processes, their nannies told not to restart them.

    Their runs are abandoned; what they wrote is whole or a hidden temporary folder (a
    resume deletes it). Asked to stop instead, a worker cancels its run and warns on
    stderr; killed behind its nanny's back, it is restarted. So each nanny is first
    marked closing gracefully (it closes itself when its worker exits), then its worker
    is killed; the warnings of the nannies and the scheduler about it are no news then.
    """
    import os

    from distributed.core import Status

    for nanny in list(getattr(cluster, "workers", {}).values()):
        pid = getattr(nanny, "pid", None)
        if not pid:
            continue
        with contextlib.suppress(Exception):
            nanny.status = Status.closing_gracefully
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


#: What an abandoned LocalCluster's shutdown (`close_dask`) would say about workers killed
#: in the middle of their runs: no news then.
_ABANDON_LOGGERS = ("distributed.nanny", "distributed.scheduler", "distributed.core",
                    "distributed.batched", "distributed.comm")


@contextlib.contextmanager
def _loggers_quiet(names: tuple[str, ...], level: int) -> Iterator[None]:
    """The loggers ``names`` say only ``level`` and above meanwhile (then as before)."""
    loggers = [logging.getLogger(name) for name in names]
    before = [logger.level for logger in loggers]
    for logger, was in zip(loggers, before, strict=True):
        logger.setLevel(max(was, level))  # (never louder)
    try:
        yield
    finally:
        for logger, was in zip(loggers, before, strict=True):
            logger.setLevel(was)


def _scheduler_quiet() -> contextlib.AbstractContextManager[None]:
    """The local scheduler's warnings while its workers leave are no news either.

    Removing a worker that still holds finished results makes it warn that the cluster
    "lost already computed task(s)" (seen once in CI): those runs are saved already.
    """
    return _loggers_quiet(("distributed.scheduler",), logging.ERROR)


def _quiet_shutdown() -> None:
    """In a worker whose work is done: its shutdown's errors are no news (ERROR and below)."""
    for name in ("distributed.worker", "distributed.core", "distributed.comm"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


async def _close_workers(workers: list[Any], timeout: float) -> None:
    import asyncio

    await asyncio.gather(*(worker.close(timeout=timeout) for worker in workers))


def iter_dask(run_task: Callable[..., dict[str, str]], tasks: list[Any], out: str,
              client: Any) -> Iterator[dict[str, str]]:
    """``run_task(task, out=out)`` of each task on ``client``'s workers, as they finish.

    ``run_task`` is given (the suite's, a module-level function that dask pickles by
    reference), so that this backend does not import the suite back. The tasks start in
    the order given (the suite's: longest first), each with a higher priority than the
    next, so that no long run starts last while the other workers idle.
    """
    from dask.distributed import as_completed

    futures = [client.submit(run_task, task, out=out, pure=False, priority=len(tasks) - i)
               for i, task in enumerate(tasks)]
    finished = False
    try:
        for future in as_completed(futures):
            yield future.result()
        finished = True
    finally:
        # stopped short: the runs left are not wanted. On a user's scheduler they are
        # cancelled; the LocalCluster's workers are killed instead (`close_dask`), as a
        # cancel there makes each worker warn on stderr
        if not finished and getattr(client, "cluster", None) is None:
            with contextlib.suppress(Exception):
                client.cancel(futures)
