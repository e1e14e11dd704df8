"""Caps on the threads of native libraries (BLAS, OpenMP), for any module.

Evaluation, mutation and initialisation multiply small matrices, for which several BLAS
threads only add synchronisation and, on a busy machine, oversubscription; clustering
in Versus mode must also run with a fixed number of OpenMP threads so that its results
do not depend on the machine. ``threadpoolctl.threadpool_limits`` does this but lists
every loaded library at each call; the limiters here list them once, and again only
when Python modules were imported since (a library such as scikit-learn's OpenMP
runtime may be loaded by a lazy import after the first use, and must be capped too:
an uncapped libgomp deadlocks in a child forked from a parent that used it).

Every path that runs many clustering calls (Versus mode, `performance_table`, stability)
takes the same ``n_threads`` parameter with the same rule, `check_threads` and
`thread_cap`: an int caps each call at that many native threads (default 1: the calls
are small and many, so threads only add synchronisation, and on a busy machine an OpenMP
team that waits for a descheduled thread spins for most of its time); None leaves the
libraries' own settings.
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager, nullcontext

from hawks_deap._util.validation import check_int

__all__ = ["blas_thread_limit", "check_threads", "native_thread_limit", "thread_cap"]


class _ThreadLimiter:
    """Cheap, re-entrant caps on the threads of native libraries of some ``user_api``.

    Only the outermost level changes the libraries, and only those using more threads
    than asked; leaving restores them.
    """

    def __init__(self, user_apis: tuple[str, ...], preload: tuple[str, ...] = ()) -> None:
        self.user_apis = user_apis
        self.preload = preload
        self.libs: list = []
        self.modules_seen = -1  # len(sys.modules) when the libraries were listed
        self.depth = 0

    def _libraries(self) -> list:
        if len(sys.modules) != self.modules_seen:
            import importlib

            from threadpoolctl import ThreadpoolController

            for name in self.preload:  # load them now, to cap them from their first use
                importlib.import_module(name)
            self.libs = [lib for lib in ThreadpoolController().lib_controllers
                         if lib.user_api in self.user_apis]
            self.modules_seen = len(sys.modules)
        return self.libs

    def __call__(self, threads: int) -> _Cap:
        return _Cap(self, threads)


class _Cap:
    """One entry of a `_ThreadLimiter`.

    A class, not a generator: entered several times in every evaluation, where
    ``contextlib.contextmanager``'s own cost showed.
    """

    __slots__ = ("changed", "limiter", "threads")
    changed: list  # the libraries this entry capped, with their thread counts before

    def __init__(self, limiter: _ThreadLimiter, threads: int) -> None:
        self.limiter, self.threads = limiter, threads

    def __enter__(self) -> None:
        limiter, self.changed = self.limiter, []
        if not limiter.depth:
            for lib in limiter._libraries():
                n = lib.num_threads
                if n > self.threads:
                    lib.set_num_threads(self.threads)
                    self.changed.append((lib, n))
        limiter.depth += 1

    def __exit__(self, *exc: object) -> None:
        self.limiter.depth -= 1
        for lib, n in self.changed:
            lib.set_num_threads(n)


_BLAS_LIMITER = _ThreadLimiter(("blas",))
# scikit-learn loads its OpenMP runtime on import: imported before the first listing, the
# runtime is capped from the first clustering call on
_NATIVE_LIMITER = _ThreadLimiter(("blas", "openmp"), preload=("sklearn",))


def blas_thread_limit(threads: int = 1) -> AbstractContextManager[None]:
    """Context in which the BLAS libraries use at most ``threads`` threads.

    Re-entrant and cheap: the libraries are listed once (again after new imports), only
    the outermost level changes them, and only those using more threads.
    """
    return _BLAS_LIMITER(threads)


def native_thread_limit(threads: int = 1) -> AbstractContextManager[None]:
    """`blas_thread_limit` for BLAS and OpenMP together (scikit-learn's clustering loops)."""
    return _NATIVE_LIMITER(threads)


def check_threads(name: str, value: object) -> int | None:
    """``value`` as a thread cap: None (no cap) or an int >= 1; else TypeError/ValueError.

    Parameters
    ----------
    name : str
        The parameter's name, for the message (e.g. ``"n_threads"``).
    value : object
        The cap asked for.

    Returns
    -------
    int or None
    """
    return None if value is None else check_int(name, value, minimum=1)


def thread_cap(n_threads: int | None, *, openmp: bool = True) -> AbstractContextManager[None]:
    """The cap of a clustering path: at most ``n_threads`` native threads, None: no cap.

    Parameters
    ----------
    n_threads : int or None
        Threads per library (checked by `check_threads` beforehand); None leaves the
        libraries' own settings.
    openmp : bool
        Cap OpenMP as well as BLAS (`native_thread_limit`, which imports scikit-learn to
        cap its OpenMP runtime); False caps BLAS only (`blas_thread_limit`), for code that
        runs no OpenMP loop and should not pay for that import.

    Returns
    -------
    context manager
    """
    if n_threads is None:
        return nullcontext()
    return native_thread_limit(n_threads) if openmp else blas_thread_limit(n_threads)
