import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture
def small_problem():
    import hawks_deap as hd

    return hd.IndexProblem(300, 4, 2, target=0.5, constraints=[hd.Overlap(max=0.1)])


@pytest.fixture
def batch_sizes(monkeypatch):
    """``batch_sizes(cls, name)``: the lengths of the batches later passed to that method.

    The method (e.g. ``ProblemPool.evaluate``) still runs; the returned list fills up.
    """

    def spy_on(cls, name):
        sizes = []
        real = getattr(cls, name)

        def spy(self, items):
            sizes.append(len(items))
            return real(self, items)

        monkeypatch.setattr(cls, name, spy)
        return sizes

    return spy_on


@pytest.fixture
def one_blas_thread():
    """One BLAS/OpenMP thread: small fits run many times faster on a busy machine."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield
