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


@pytest.fixture
def highest_simd_level():
    """numpy's highest x86 dispatch level on this CPU (``X86_V3``: AVX2, ``X86_V4``:
    AVX-512), the value to give ``NPY_DISABLE_CPU_FEATURES``; the test is skipped on CPUs
    without x86 levels (nothing of this kind to turn off there)."""
    from hawks_deap.io.environment import numpy_dispatch

    levels = [f for f in numpy_dispatch() or [] if f.startswith("X86_V")]
    if not levels:
        pytest.skip("numpy has no x86 dispatch levels on this machine")
    return max(levels)


def _scipy_draws_haar_by_qr() -> bool:
    import scipy

    return tuple(int(part) for part in scipy.__version__.split(".")[:2]) >= (1, 16)


#: For tests whose oracle is scipy's `special_ortho_group`: scipy 1.16 draws it by a QR
#: decomposition, as `haar_rotation` does (bit for bit); earlier versions by Householder
#: reflections, another stream (Python 3.10 gets scipy 1.15). The Haar distribution
#: itself is tested on every version.
needs_scipy_qr_haar = pytest.mark.skipif(
    not _scipy_draws_haar_by_qr(),
    reason="scipy < 1.16 draws special_ortho_group by Householder reflections")


def filter_points(rng, n: int, d: int, kind: str):
    """n points in d dimensions for the overlap filter's tests: ``normal``, ``grid`` (ties
    and duplicates), ``far`` from the origin, ``tiny``, ``huge`` (squares overflow single
    precision) or ``mixed`` scales."""
    X = rng.normal(size=(n, d))
    if kind == "grid":
        X = rng.integers(0, 3, size=(n, d)).astype(float)
    elif kind == "far":
        X = X * 1e-3 + rng.uniform(-1e6, 1e6, size=d)
    elif kind == "tiny":
        X *= 1e-30
    elif kind == "huge":
        X *= 1e20
    elif kind == "mixed":
        X[rng.random(n) < 0.3] *= 1e4
    return X
