"""Checkpoints of `hawks_deap.evolve`: their format, and checks that name the file.

A checkpoint is a pickle of the run's state (`hawks_deap.algorithms`); it is read
only by `hawks_deap.resume`, so a damaged or foreign file gets one clear error naming
it rather than an ``UnpicklingError``, ``EOFError``, ``KeyError``, or the
``OverflowError`` or ``MemoryError`` of a damaged length field (the file is read into
memory first, so pickle checks each length against the bytes there are); a path that
could never be written is refused before the run starts, not at its first save.
A checkpoint of another format (one written by an earlier hawks-deap) is refused, with
a message that says to run again, before anything in it is loaded: the names a pickle
holds are those of the version that wrote it.
"""

from __future__ import annotations

import os
import pickle
import pickletools
from pathlib import Path
from typing import Any

from hawks_deap._util.files import read_bytes
from hawks_deap._util.validation import check_parent_dir

__all__ = ["CHECKPOINT_FORMAT", "CHECKPOINT_KEYS", "check_checkpoint_path", "read_checkpoint"]

#: The format written in every checkpoint (the first entry of its dict). Version 3: the
#: layered package (classes pickled under their sub-packages, e.g.
#: ``hawks_deap.genome.genotype.Genotype``); any other is refused (`read_checkpoint`).
CHECKPOINT_FORMAT = "hawks-deap-checkpoint-3"
_FORMAT_PREFIX = "hawks-deap-checkpoint-"
#: Bytes read to recognise a checkpoint: its format string comes within the first few
#: dozen (protocol, frame, dict, "format", the value).
_HEAD_BYTES = 4096
CHECKPOINT_KEYS = ("generation", "settings", "seed_sequence", "rng_states", "problem",
                   "population", "hall_of_fame", "front", "fallback", "logbook")


def read_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """A checkpoint's payload, or a ``ValueError`` naming the file and what is wrong.

    A checkpoint of another format (written by an earlier hawks-deap) is refused before
    anything in it is loaded, with a message that says to re-run it.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by ``evolve(checkpoint=...)``.

    Returns
    -------
    dict
        The checkpoint's entries (`CHECKPOINT_KEYS`, after ``"format"``).
    """
    # a missing file, a directory, a device: ValueError naming it
    data = read_bytes(path, f"checkpoint {str(path)!r}")
    _refuse_other_format(path, _declared_format(data))
    try:  # (from memory, a damaged length field is checked against the bytes there are;
        # from a file, pickle would first allocate what the field claims)
        payload = pickle.loads(data)
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError,
            KeyError, SystemError, TypeError, ValueError, OverflowError, MemoryError,
            RecursionError) as error:  # (damaged bytes, e.g. a length field)
        raise ValueError(f"checkpoint {str(path)!r} cannot be read (truncated, empty or not "
                         f"a hawks-deap checkpoint: {type(error).__name__}: {error})") from None
    if isinstance(payload, dict):
        _refuse_other_format(path, payload.get("format"))
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"checkpoint {str(path)!r} is not a hawks-deap checkpoint")
    missing = [key for key in CHECKPOINT_KEYS if key not in payload]
    if missing:
        raise ValueError(f"checkpoint {str(path)!r} lacks {', '.join(missing)}: it is "
                         "damaged or from another version")
    return payload


def _declared_format(data: bytes) -> str | None:
    """The format a checkpoint's bytes declare, read from its first opcodes, loading nothing.

    A checkpoint pickles a dict whose first entry is ``"format"``: the opcodes start with
    the protocol and frame, an empty dict, then the strings ``"format"`` and its value
    (memo opcodes between them). None for bytes that do not start so.
    """
    skip = {"PROTO", "FRAME", "MARK", "MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT"}
    strings = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE"}
    expected = ["EMPTY_DICT", "format", None]
    try:
        for opcode, arg, _ in pickletools.genops(data):
            if opcode.name in skip:
                continue
            step = expected.pop(0)
            if step is None:
                return arg if opcode.name in strings else None
            if step != (arg if opcode.name in strings else opcode.name):
                return None
    except Exception:  # noqa: BLE001 - damaged bytes: pickle.loads names what is wrong
        return None
    return None


def _refuse_other_format(path: str | os.PathLike, declared: object) -> None:
    """Refuse a checkpoint of another hawks-deap checkpoint format, in one line."""
    if (not isinstance(declared, str) or not declared.startswith(_FORMAT_PREFIX)
            or declared == CHECKPOINT_FORMAT):
        return
    version = declared.removeprefix(_FORMAT_PREFIX)
    current = CHECKPOINT_FORMAT.removeprefix(_FORMAT_PREFIX)
    later = version.isdigit() and int(version) > int(current)
    raise ValueError(f"checkpoint {str(path)!r} was written by "
                     f"{'a later' if later else 'an earlier'} hawks-deap (checkpoint format "
                     f"{version}, this version reads {current}) and cannot be resumed: "
                     "re-run it from the start")


def check_checkpoint_path(path: str | os.PathLike | None, name: str = "checkpoint") -> None:
    """Refuse a checkpoint path that could never be written, or whose file is not ours.

    A checkpoint replaces the file at its path, so an existing file must be a hawks-deap
    checkpoint (of any format: its first bytes say so, `_declared_format`, loading
    nothing); anything else there, a symbolic link included, is refused. Checked before
    the run starts and again right before each write (`hawks_deap.evolve`).

    Parameters
    ----------
    path : str, os.PathLike or None
        Where ``evolve`` is to write its checkpoints; None: no checkpoints.
    name : str
        The parameter's name, for the messages (``resume`` writes to ``save_to``).
    """
    if path is None:
        return
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"{name} must be a file path (str or os.PathLike) or None, got "
                        f"{path!r}")
    path = Path(path)
    label = f"{name} {str(path)!r}"
    if path.is_symlink():
        raise ValueError(f"{label} is a symbolic link: give the path of a file (a checkpoint "
                         "replaces the file there, never through a link)")
    if path.is_dir():
        raise ValueError(f"{label} is a directory; give a file path")
    if path.exists():
        if not path.is_file():
            raise ValueError(f"{label} exists and is not a regular file")
        if not _is_checkpoint(path):
            raise ValueError(f"{label} exists and is not a hawks-deap checkpoint: a checkpoint "
                             "would replace it; give another path (or remove that file)")
    check_parent_dir(path, label)


def _is_checkpoint(path: Path) -> bool:
    """Whether the file's first bytes declare a hawks-deap checkpoint, of any format."""
    try:
        with open(path, "rb") as file:
            head = file.read(_HEAD_BYTES)
    except OSError as error:
        raise ValueError(f"checkpoint {str(path)!r} cannot be read: {error}") from None
    declared = _declared_format(head)
    return isinstance(declared, str) and declared.startswith(_FORMAT_PREFIX)
