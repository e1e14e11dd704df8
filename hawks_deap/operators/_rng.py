"""The random source of an operator: a numpy Generator, or Python's ``random`` (DEAP's)."""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["numpy_rng"]


def numpy_rng(rng: Any = None) -> np.random.Generator:
    """``rng`` as a ``numpy.random.Generator``.

    None (every operator's default, and what ``make_toolbox(seed=None)`` registers) means
    Python's ``random``, DEAP's own source. Python's ``random`` module or a
    ``random.Random`` instance (DEAP's habit: ``toolbox.register("mutate", ...,
    rng=random)``) seeds a new Generator with 128 bits drawn from it at each call, so
    ``random.seed`` repeats a run and ``random.getstate()`` holds the operators' whole
    state (DEAP's checkpoint recipe); so does numpy's legacy ``RandomState`` (or the
    ``numpy.random`` module). A Generator, or an object with a Generator's ``random``
    and ``integers``, is used as it is. A seed is refused: an operator is called many
    times, and re-seeding at each call would repeat the same draws.
    """
    if rng is None:
        return np.random.default_rng(random.getrandbits(128))
    if isinstance(rng, random.Random) or (isinstance(rng, ModuleType) and rng is random):
        return np.random.default_rng(rng.getrandbits(128))
    if isinstance(rng, np.random.RandomState) or rng is np.random:  # numpy's legacy source
        return np.random.default_rng(rng.randint(0, 2**32, size=4, dtype=np.uint64))
    if not (hasattr(rng, "random") and hasattr(rng, "integers")):
        raise TypeError(f"rng must be a numpy.random.Generator, None or random / "
                        f"random.Random (DEAP's), got {rng!r} ({type(rng).__name__}); for "
                        "a seed, pass numpy.random.default_rng(seed) once and reuse it")
    return rng
