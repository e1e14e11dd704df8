"""Process pools that evaluate individuals of one problem.

The problem is sent once to each worker (pool initializer), not with every task; each
task carries only an individual and its evaluation seed. Works with the fork, spawn and
forkserver start methods: everything sent is picklable by name.
"""

from __future__ import annotations

from typing import Any

_WORKER_PROBLEM: Any = None


def _install(problem: Any) -> None:
    global _WORKER_PROBLEM
    _WORKER_PROBLEM = problem


def _evaluate_installed(item: tuple[Any, int]):
    individual, eval_seed = item
    return _WORKER_PROBLEM.evaluate(individual, eval_seed)


class ProblemPool:
    """A ``multiprocess`` pool with a problem installed in every worker.

    Parameters
    ----------
    problem : Problem
        Must already have its layout (``problem.prepare``).
    n_jobs : int
        Number of worker processes.
    start_method : str, optional
        ``"fork"``, ``"spawn"`` or ``"forkserver"``; the platform default if None.
    """

    def __init__(self, problem: Any, n_jobs: int, *, start_method: str | None = None) -> None:
        import multiprocess

        ctx = multiprocess.get_context(start_method)
        self._pool = ctx.Pool(n_jobs, initializer=_install, initargs=(problem,))

    def evaluate(self, items: list[tuple[Any, int]]) -> list:
        """Evaluate ``(individual, eval_seed)`` pairs, results in order."""
        return self._pool.map(_evaluate_installed, items, chunksize=1)

    def close(self) -> None:
        """Stop the workers."""
        self._pool.terminate()
        self._pool.join()
