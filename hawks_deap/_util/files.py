"""Reading the files users give: whole regular files, bounded, parsed with one-line errors.

Every JSON or TOML file hawks-deap reads (configs, HAWKS JSON, a dataset's
``genes.json`` and ``metadata.json``, a suite's ``suite.json``) goes through
`read_json` or `read_toml`, so hostile input is refused with a ``ValueError`` that
names the file instead of a traceback: nesting deep enough to exhaust the parser's
recursion (``[[[[...`` 200,000 levels deep), bytes that are not UTF-8, a path that is
not a regular file (``/dev/zero``, a FIFO: never read until memory runs out), or, for
configs, a file over `CONFIG_MAX_BYTES`. `npy_headers` reads the shapes an npz file
claims without reading its arrays, so that a 200-byte file cannot ask for terabytes.
"""

from __future__ import annotations

import math
import os
import reprlib
import stat
import sys
import zipfile
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["CONFIG_MAX_BYTES", "CONFIG_MAX_DEPTH", "check_npz_arrays", "nesting_depth",
           "npy_headers", "read_bytes", "read_json", "read_text", "read_toml", "short_repr"]

#: The largest config file read (TOML, HAWKS JSON, ``suite.json``): configs are a few kB.
CONFIG_MAX_BYTES = 16 * 2**20
#: The deepest nesting of tables and lists a config may have (HAWKS JSON needs 4).
CONFIG_MAX_DEPTH = 32

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 60, 60


def short_repr(value: Any) -> str:
    """A bounded ``repr`` of untrusted data for messages (any depth or size)."""
    return _REPR.repr(value)


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"  # pragma: no cover - every other kind


def read_bytes(path: str | os.PathLike, name: str | None = None, *,
               limit: int | None = None) -> bytes:
    """The bytes of a regular file, or a ``ValueError`` naming it.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Devices, FIFOs, sockets and directories are refused without reading
        (a FIFO is opened without blocking).
    name : str, optional
        How messages name the file (default: the path), e.g. ``"config file x.toml"``.
    limit : int, optional
        Refuse a file of more bytes (read at most ``limit + 1``).
    """
    name = str(path) if name is None else name
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as error:  # (ValueError: a NUL in the path)
        raise ValueError(f"cannot read {name}: {getattr(error, 'strerror', None) or error}"
                         ) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ValueError(f"{name} is {_kind(mode)}, not a regular file: give a file")
        with open(fd, "rb", closefd=False) as fh:
            data = fh.read() if limit is None else fh.read(limit + 1)
    except OSError as error:
        raise ValueError(f"cannot read {name}: {error.strerror or error}") from None
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:
        raise ValueError(f"{name} is larger than {limit} bytes: not a file hawks-deap reads "
                         "(too large)")
    return data


def read_text(path: str | os.PathLike, name: str | None = None, *,
              limit: int | None = None) -> str:
    """A regular file's UTF-8 text (`read_bytes`); ``ValueError`` naming it otherwise."""
    name = str(path) if name is None else name
    try:
        return read_bytes(path, name, limit=limit).decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{name} is not UTF-8 text: {error}") from None


def nesting_depth(value: Any) -> int:
    """How deeply lists and dicts nest in ``value`` (a scalar: 0), without recursion."""
    depth, level = 0, [value]
    while containers := [item for item in level if isinstance(item, list | dict)]:
        level = [v for item in containers
                 for v in (item.values() if isinstance(item, dict) else item)]
        depth += 1
    return depth


def _checked_depth(data: Any, name: str, max_depth: int | None) -> Any:
    if max_depth is not None and nesting_depth(data) > max_depth:
        raise ValueError(f"{name} nests tables or lists more than {max_depth} levels deep: "
                         "not a config hawks-deap reads")
    return data


def read_json(path: str | os.PathLike, name: str | None = None, *, limit: int | None = None,
              max_depth: int | None = None,
              object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """A JSON file's value, or a ``ValueError`` naming the file.

    Refused: what `read_text` refuses, invalid JSON (with the parser's message, or that
    of ``object_pairs_hook``), nesting too deep to parse, and nesting deeper than
    ``max_depth`` when given.
    """
    import json

    name = str(path) if name is None else name
    text = read_text(path, name, limit=limit)
    try:
        data = json.loads(text, object_pairs_hook=object_pairs_hook)
    except RecursionError:
        raise ValueError(f"{name} is not valid JSON: it nests too deeply to be read"
                         ) from None
    except ValueError as error:
        raise ValueError(f"{name} is not valid JSON: {error}") from None
    return _checked_depth(data, name, max_depth)


def read_toml(path: str | os.PathLike, name: str | None = None, *,
              limit: int | None = CONFIG_MAX_BYTES, max_depth: int | None = CONFIG_MAX_DEPTH
              ) -> dict[str, Any]:
    """A TOML file's tables (``tomllib``, or ``tomli`` on Python 3.10), or a ``ValueError``.

    Refused as by `read_json`, with the size and depth limits of a config by default.
    """
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    name = str(path) if name is None else name
    # a byte-order mark (some Windows editors write one) is not TOML, but not an error
    text = read_text(path, name, limit=limit).removeprefix("\ufeff")
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ValueError(f"{name} is not valid TOML: it nests too deeply to be read"
                         ) from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{name} is not valid TOML: {error}") from None
    return _checked_depth(data, name, max_depth)


def npy_headers(path: str | os.PathLike, names: Sequence[str]
                ) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """The shape and dtype each named array of an npz file claims, its data not read.

    An array ``a`` is the member ``a`` or ``a.npy``, as ``numpy.load`` finds it.

    Raises
    ------
    ValueError
        Naming the file: not a zip archive, an array missing, or a member that is not
        an ``.npy`` array with a readable header.
    """
    from numpy.lib import format as npy

    out = {}
    try:
        with zipfile.ZipFile(path) as archive:
            members = set(archive.namelist())
            for key in names:
                member = key if key in members else f"{key}.npy"
                if member not in members:
                    raise ValueError(f"{path}: not a dataset (an npz file with arrays X and "
                                     f"y): it has no array {key!r}")
                with archive.open(member) as fp:
                    version = npy.read_magic(fp)
                    # 3.0 differs from 2.0 only in the header's encoding (field names)
                    read = npy.read_array_header_1_0 if version == (1, 0) else \
                        npy.read_array_header_2_0
                    shape, _, dtype = read(fp)
                out[key] = (tuple(int(n) for n in shape), np.dtype(dtype))
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError,
            RuntimeError, ValueError, TypeError, SyntaxError) as error:
        message = str(error)
        if message.startswith(f"{path}: "):
            raise
        raise ValueError(f"{path}: not a dataset (an npz file with arrays X and y): "
                         f"{type(error).__name__}: {message}") from None
    return out


def check_npz_arrays(path: str | os.PathLike, names: Sequence[str] = ("X", "y")) -> None:
    """Refuse an npz file whose arrays' headers claim more than this machine's memory.

    The bound is the arrays as stored plus their float64 copies (`npy_headers`; a file
    of a few hundred bytes may claim an array of terabytes). ``ValueError`` names the file.
    """
    from hawks_deap._util.memory import check_fits

    headers = npy_headers(path, names)
    sizes = {key: math.prod(shape) for key, (shape, _) in headers.items()}
    nbytes = sum(n * (headers[key][1].itemsize + 8) for key, n in sizes.items())
    arrays = " and ".join(f"{key} of shape {shape} ({dtype})"
                          for key, (shape, dtype) in headers.items())
    check_fits(f"{path}: reading {arrays}, as its headers say,", nbytes, {})
