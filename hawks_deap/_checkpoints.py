"""Checkpoints of `hawks_deap.evolve`: their format, and checks that name the file.

A checkpoint is a pickle of the run's state (`hawks_deap.algorithms`); it is read
only by `hawks_deap.resume`, so a damaged or foreign file gets one clear error naming
it rather than an ``UnpicklingError``, ``EOFError``, ``KeyError``, or the
``OverflowError`` or ``MemoryError`` of a damaged length field (the file is read into
memory first, so pickle checks each length against the bytes there are); a path that
could never be written is refused before the run starts, not at its first save.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

from hawks_deap._files import read_bytes
from hawks_deap._validation import check_parent_dir

__all__ = ["CHECKPOINT_FORMAT", "CHECKPOINT_KEYS", "check_checkpoint_path", "read_checkpoint"]

CHECKPOINT_FORMAT = "hawks-deap-checkpoint-1"
CHECKPOINT_KEYS = ("generation", "settings", "seed_sequence", "rng_states", "problem",
                   "population", "hall_of_fame", "front", "fallback", "logbook")


def read_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """A checkpoint's payload, or a ``ValueError`` naming the file and what is wrong."""
    # a missing file, a directory, a device: ValueError naming it
    data = read_bytes(path, f"checkpoint {str(path)!r}")
    try:  # (from memory, a damaged length field is checked against the bytes there are;
        # from a file, pickle would first allocate what the field claims)
        payload = pickle.loads(data)
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError,
            KeyError, SystemError, TypeError, ValueError, OverflowError, MemoryError,
            RecursionError) as error:  # (damaged bytes, e.g. a length field)
        raise ValueError(f"checkpoint {str(path)!r} cannot be read (truncated, empty or not "
                         f"a hawks-deap checkpoint: {type(error).__name__}: {error})") from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"checkpoint {str(path)!r} is not a hawks-deap checkpoint")
    missing = [key for key in CHECKPOINT_KEYS if key not in payload]
    if missing:
        raise ValueError(f"checkpoint {str(path)!r} lacks {', '.join(missing)}: it is "
                         "damaged or from another version")
    return payload


def check_checkpoint_path(path: str | os.PathLike | None) -> None:
    """Refuse, before any work, a checkpoint path that could never be written."""
    if path is None:
        return
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"checkpoint must be a file path (str or os.PathLike) or None, got "
                        f"{path!r}")
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"checkpoint {str(path)!r} is a directory; give a file path")
    check_parent_dir(path, f"checkpoint {str(path)!r}")
