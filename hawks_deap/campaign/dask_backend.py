"""The dask backend of suites: a client (a LocalCluster or a scheduler) and its runs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

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
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        return Client(cluster)
    try:
        return Client(scheduler, timeout=f"{timeout}s")
    except (OSError, TimeoutError) as error:
        raise ValueError(f"--scheduler {scheduler}: cannot reach the dask scheduler within "
                         f"{timeout:g} s ({type(error).__name__}: {error})") from None


def close_dask(client: Any) -> None:
    """Close a client from `connect_dask`, and the LocalCluster it started, if any.

    Parameters
    ----------
    client : dask.distributed.Client
        The client; its ``cluster``, if any, is closed after it.
    """
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def iter_dask(run_task: Callable[..., dict[str, str]], tasks: list[Any], out: str,
              client: Any) -> Iterator[dict[str, str]]:
    """``run_task(task, out=out)`` of each task on ``client``'s workers, as they finish.

    ``run_task`` is given (the suite's, a module-level function that dask pickles by
    reference), so that this backend does not import the suite back.
    """
    from dask.distributed import as_completed

    futures = client.map(run_task, tasks, out=out, pure=False)
    for future in as_completed(futures):
        yield future.result()
