"""Argument checks shared by every entry point, and the seed conversions.

Each check raises a ``ValueError`` or ``TypeError`` naming the parameter, the value
received and what is allowed, before any work starts.

Seeds: `as_seed_sequence` and `as_generator` accept every seed form; `child_sequence`
addresses an independent stream by a key (position, generation, ...), and `seed_words` /
`int_seed` turn a sequence into the plain integers that scikit-learn and user functions
take. Every derived seed of the package goes through these, so the same key always
gives the same numbers. A seed of None is drawn from Python's ``random`` (DEAP's
convention: ``random.seed(...)`` repeats what follows).
"""

from __future__ import annotations

import difflib
import math
import numbers
import os
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypeAlias

import numpy as np

SeedLike: TypeAlias = ("int | Sequence[int] | np.random.SeedSequence | np.random.Generator"
                       " | None")
"""What every random function accepts as ``seed``."""


def check_int(name: str, value: object, *, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise if it is not an integer in range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return value


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` as a bool, or raise: a string such as ``"no"`` is not taken as True."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)


def check_names(name: str, value: object) -> list[str]:
    """Return ``value`` as a list of names; one string is refused, not split into letters."""
    if isinstance(value, str):
        raise TypeError(f"{name} must be a sequence of names, not one string: "
                        f"[{value!r}], not {value!r}")
    return list(value)  # type: ignore[call-overload]


def check_float(name: str, value: object, *, low: float | None = None,
                high: float | None = None, low_open: bool = False,
                high_open: bool = False) -> float:
    """Return ``value`` as a finite float, or raise if it is not a number in range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    lo_bad = low is not None and (value <= low if low_open else value < low)
    hi_bad = high is not None and (value >= high if high_open else value > high)
    if lo_bad or hi_bad:
        # (an unbounded side is open: the value must be finite)
        left = "(" if low_open or low is None or np.isinf(low) else "["
        right = ")" if high_open or high is None or np.isinf(high) else "]"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise ValueError(f"{name} must lie in {left}{lo}, {hi}{right}, got {value!r}")
    return value


def check_probability(name: str, value: object) -> float:
    """Return ``value`` as a probability in [0, 1], or raise."""
    return check_float(name, value, low=0.0, high=1.0)


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``; else raise listing them all."""
    choices = list(choices)
    if not isinstance(value, str) or value not in choices:
        hint = ""
        if isinstance(value, str):
            close = difflib.get_close_matches(value, choices, n=1)
            if close:
                hint = f" (did you mean {close[0]!r}?)"
        valid = ", ".join(repr(c) for c in choices)
        raise ValueError(f"unknown {name} {value!r}{hint}; valid: {valid}")
    return value


#: The largest max |x| * sqrt(N D) `check_X` accepts: sqrt(largest float) / 16, so that a
#: sum of N squared distances (each below 4 max|x|^2 D) stays 64 times below overflow.
MAX_SCALE = math.sqrt(np.finfo(float).max) / 16


def check_X(X: object, name: str = "X") -> np.ndarray:
    """Return ``X`` as a finite float array of shape (n_samples, n_features), or raise.

    Raises
    ------
    ValueError
        If ``X`` (called ``name`` in the messages) is not a non-empty 2-D array of
        finite numbers, or if its values are so large that sums of squared distances
        overflow: max |x| * sqrt(N D) must be at most `MAX_SCALE` (every squared distance
        is then below 4 max|x|^2 D, and a sum of N of them stays finite).
    """
    dtype = np.asarray(X).dtype
    try:
        if dtype.kind not in "biufO":  # complex would lose its imaginary part
            raise TypeError
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold real numbers, got an array of dtype {dtype}") from None
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"{name} must be a non-empty 2-D array (n_samples, n_features), got shape {X.shape}"
        )
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} must contain only finite values")
    largest = max(float(X.max()), -float(X.min()))
    if largest * math.sqrt(X.size) > MAX_SCALE:
        raise ValueError(f"{name} holds values up to {largest:.3g} in magnitude, with which "
                         f"squared distances overflow: max |x| * sqrt(N * D) must be <= "
                         f"{MAX_SCALE:.3g} (N * D = {X.size}); rescale the data")
    return X


def as_generator(seed: object) -> np.random.Generator:
    """Turn a seed (see `as_seed_sequence`) into a numpy Generator; a Generator is kept."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(as_seed_sequence(seed))


def as_seed_sequence(seed: object) -> np.random.SeedSequence:
    """Turn a seed into a SeedSequence from which independent streams can be spawned.

    A Generator is consumed once (one 128-bit draw) to make the sequence, so passing the
    same Generator twice gives two different runs, as numpy users expect. A list or tuple
    of non-negative ints is a SeedSequence's entropy (what a run records as its seed
    when it was given a Generator), so it repeats that run. None draws 128 bits from
    Python's ``random`` (DEAP's source): after ``random.seed(...)`` the same calls give
    the same sequence, as DEAP users expect, and without it ``random`` is seeded from
    operating-system entropy at import.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, list | tuple) and seed and all(
            isinstance(e, numbers.Integral) and not isinstance(e, bool) and int(e) >= 0
            for e in seed):
        return np.random.SeedSequence([int(e) for e in seed])
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**63, size=2, dtype=np.uint64).tolist())
    if seed is None:
        return np.random.SeedSequence(random.getrandbits(128))
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        return np.random.SeedSequence(int(seed))
    raise TypeError(
        "seed must be an int, numpy.random.SeedSequence, numpy.random.Generator, a list "
        "of non-negative ints (a SeedSequence's entropy) or None, "
        f"got {seed!r} ({type(seed).__name__})"
    )


def child_sequence(seed: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """The child of ``seed`` at ``key``: ``SeedSequence(seed.entropy, spawn_key=(..., *key))``.

    Unlike ``seed.spawn(n)``, which hands out the next children of a counter, a child
    addressed by a key (a dataset and algorithm position, a generation and offspring
    position) is the same whatever else was drawn before, so results do not depend on
    evaluation order, worker count or which other children exist.

    Parameters
    ----------
    seed : numpy.random.SeedSequence
        The parent.
    *key : int
        Non-negative integers appended to the parent's ``spawn_key``.

    Returns
    -------
    numpy.random.SeedSequence

    Examples
    --------
    >>> child = child_sequence(np.random.SeedSequence(7), 2, 3)
    >>> child.entropy, child.spawn_key
    (7, (2, 3))
    """
    return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, *key))


def seed_words(seed: object, n: int, *, dtype: type = np.uint32) -> list[int]:
    """``n`` integer seeds drawn from a seed: ``as_seed_sequence(seed).generate_state(n)``.

    Used to hand plain integer seeds to code that takes no SeedSequence (scikit-learn's
    ``random_state``, user clustering functions, worker tasks).

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence, numpy.random.Generator or None
        As `as_seed_sequence`.
    n : int
        How many words.
    dtype : numpy.uint32 or numpy.uint64
        Word size: 32-bit words fit every ``random_state``.

    Returns
    -------
    list of int
        Python integers in ``[0, 2**32)`` (or ``[0, 2**64)``).

    Examples
    --------
    >>> seed_words(0, 2) == np.random.SeedSequence(0).generate_state(2).tolist()
    True
    """
    return [int(word) for word in as_seed_sequence(seed).generate_state(n, dtype)]


def int_seed(seed: object, *key: int) -> int:
    """One 32-bit integer seed from ``seed``, or from its child at ``key`` when one is given.

    ``int_seed(ss, i, j)`` is ``int(child_sequence(ss, i, j).generate_state(1)[0])``.

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence, numpy.random.Generator or None
        As `as_seed_sequence`.
    *key : int
        Optional child key (see `child_sequence`).

    Returns
    -------
    int
        An integer in ``[0, 2**32)``.
    """
    ss = as_seed_sequence(seed)
    return seed_words(child_sequence(ss, *key) if key else ss, 1)[0]


def check_parent_dir(path: str | os.PathLike, label: str) -> None:
    """Refuse a path that could never be created: its nearest existing parent is a file.

    ``label`` starts the message (e.g. ``"--out run"``). Checked before any work, so that
    a long run never ends in a refused write.
    """
    for parent in Path(path).parents:
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"{label}: {parent} is not a directory")
            if not os.access(parent, os.W_OK):
                raise ValueError(f"{label}: {parent} is not writable")
            return

