"""Instance Space Analysis files: the ``metadata.csv`` that MATILDA and its ports read.

Instance Space Analysis (ISA; MATILDA, its MATLAB toolkit ``InstanceSpace``, the
Python ``instancespace`` package and ``pyispace``) takes one table, ``metadata.csv``:
one row per instance, a column ``instances`` (the instance's name), an optional column
``source`` (where it came from: drawn as the instances' groups), one column
``feature_<name>`` per problem feature and one column ``algo_<name>`` per algorithm's
performance. The readers match ``instances`` and ``source`` ignoring case, and the
prefixes ``feature_`` and ``algo_`` likewise; they ignore any other column.

`write_isa_metadata` writes that file from a features `Table` and a performance
`Table` (`hawks_deap.analysis.features.features_table` and `performance_table`), and
`read_isa_metadata` reads it back. Values are written as the shortest text that reads
back to the same float (``repr``), so a file round-trips bit for bit; a missing value
(NaN) is an empty field, which MATLAB's ``readtable`` and pandas' ``read_csv`` (the
readers of MATILDA and of the Python ports) both read as NaN; infinities are ``Inf``
and ``-Inf``, which both read too.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from hawks_deap._util.files import read_text
from hawks_deap._util.writes import write_file_atomic
from hawks_deap.analysis.table import Table

__all__ = ["ALGO_PREFIX", "FEATURE_PREFIX", "INSTANCES", "METADATA_FILE", "SOURCE",
           "isa_metadata_text", "read_isa_metadata", "write_isa_metadata"]

#: The file name the ISA tools look for in their input folder.
METADATA_FILE = "metadata.csv"
#: The header of the instances' names and of their sources (matched ignoring case).
INSTANCES, SOURCE = "instances", "source"
#: The prefixes of the feature and of the algorithm (performance) columns.
FEATURE_PREFIX, ALGO_PREFIX = "feature_", "algo_"


def _value_text(value: float) -> str:
    """A float as the shortest text that reads back to it; NaN empty; ``Inf``."""
    if math.isnan(value):
        return ""
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    return repr(float(value))


def _check_names(kind: str, names: Sequence[str]) -> None:
    empty = [i for i, n in enumerate(names) if not n.strip()]
    if empty:
        raise ValueError(f"{kind} name {empty[0]} is empty")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"{kind} names {', '.join(map(repr, repeated))} repeat")


def _check_inputs(features: Table, performance: Table | None,
                  sources: Sequence[str] | None) -> Table:
    """The performance table (an empty one for None), every input checked."""
    if not isinstance(features, Table):
        raise TypeError(f"features must be a Table, got {type(features).__name__}")
    if performance is None:
        performance = Table(features.index, (), np.empty((len(features), 0)))
    elif not isinstance(performance, Table):
        raise TypeError(f"performance must be a Table or None, got "
                        f"{type(performance).__name__}")
    if performance.index != features.index:
        raise ValueError("performance's rows must be features' rows, in the same order")
    if not features.index:
        raise ValueError("no instance: features has no row")
    _check_names("instance", list(features.index))
    _check_names("feature", list(features.columns))
    _check_names("algorithm", list(performance.columns))
    if sources is not None:
        if isinstance(sources, str) or len(sources) != len(features):
            raise ValueError(f"sources must be one string per instance ({len(features)}), "
                             f"got {sources!r:.80}")
        if not all(isinstance(s, str) for s in sources):
            raise TypeError("sources must be strings")
    return performance


def isa_metadata_text(features: Table, performance: Table | None = None,
                      sources: Sequence[str] | None = None) -> str:
    """The text of an ISA ``metadata.csv`` (see `write_isa_metadata`).

    Parameters
    ----------
    features : Table
        One row per instance (its name: the ``instances`` column), one column per
        feature (written as ``feature_<column>``).
    performance : Table or None
        The same rows in the same order, one column per algorithm (written as
        ``algo_<column>``); None: no algorithm column.
    sources : sequence of str or None
        One source per instance (the ``source`` column); None: no such column.

    Returns
    -------
    str
        Comma-separated, a header line then one line per instance, ending with a newline.

    Examples
    --------
    >>> import numpy as np
    >>> from hawks_deap.analysis.table import Table
    >>> f = Table(("a", "b"), ("silhouette",), np.array([[0.5], [np.nan]]))
    >>> p = Table(("a", "b"), ("gmm",), np.array([[1.0], [0.25]]))
    >>> print(isa_metadata_text(f, p, ["hawks", "hawks"]), end="")
    instances,source,feature_silhouette,algo_gmm
    a,hawks,0.5,1.0
    b,hawks,,0.25
    """
    performance = _check_inputs(features, performance, sources)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([INSTANCES, *([SOURCE] if sources is not None else []),
                     *(FEATURE_PREFIX + c for c in features.columns),
                     *(ALGO_PREFIX + c for c in performance.columns)])
    for i, name in enumerate(features.index):
        writer.writerow([name, *([sources[i]] if sources is not None else []),
                         *map(_value_text, features.values[i]),
                         *map(_value_text, performance.values[i])])
    return buffer.getvalue()


def write_isa_metadata(path: str | os.PathLike[str], features: Table,
                       performance: Table | None, sources: Sequence[str] | None,
                       overwrite: bool = False) -> Path:
    """Write an Instance Space Analysis ``metadata.csv`` (MATILDA's input), atomically.

    The header is ``instances``, then ``source`` (when ``sources`` is given), then
    ``feature_<name>`` per column of ``features`` and ``algo_<name>`` per column of
    ``performance``, in their order; then one line per instance. Values read back
    exactly (`read_isa_metadata`); NaN is an empty field.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (the ISA tools look for `METADATA_FILE` in their folder).
    features : Table
        The instances' features: rows are the instances (names), columns the features.
    performance : Table or None
        The algorithms' performance on the same rows, in the same order (e.g. the ARI
        of `hawks_deap.analysis.features.performance_table`); None: no ``algo_``
        column (MATILDA needs at least one to build a space).
    sources : sequence of str or None
        Each instance's source (e.g. its collection or folder); None: no ``source``.
    overwrite : bool
        Replace an existing file; otherwise an existing one (even one that appears
        while writing) raises FileExistsError and is left as it is.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    FileExistsError
        ``path`` exists and ``overwrite`` is False.
    ValueError
        Rows that differ between the tables, empty or repeated names, ``sources`` not
        one per instance; ``path`` is a symbolic link (never replaced).
    """
    path = Path(path)
    text = isa_metadata_text(features, performance, sources)
    if not overwrite and (path.exists() or path.is_symlink()):
        raise FileExistsError(f"{path} already exists; pass overwrite=True to replace it")
    write_file_atomic(path, text.encode("utf-8"), replace=overwrite)
    return path


def _parse_value(text: str, where: str) -> float:
    stripped = text.strip()
    if not stripped or stripped.lower() == "nan":
        return math.nan
    try:
        return float(stripped)
    except ValueError:
        raise ValueError(f"{where}: {text[:40]!r} is not a number") from None


def _header_roles(header: Sequence[str], name: str) -> tuple[int, int | None,
                                                             list[int], list[int]]:
    """Positions of the instances and source columns, and of the feature and algo ones."""
    lowered = [h.strip().lower() for h in header]
    named = [i for i, h in enumerate(lowered) if h == INSTANCES.lower()]
    if len(named) != 1:
        raise ValueError(f"{name}: the header needs one {INSTANCES!r} column, it has "
                         f"{len(named)}")
    sources = [i for i, h in enumerate(lowered) if h == SOURCE.lower()]
    if len(sources) > 1:
        raise ValueError(f"{name}: the header has {len(sources)} {SOURCE!r} columns")
    feats = [i for i, h in enumerate(lowered) if h.startswith(FEATURE_PREFIX)]
    algos = [i for i, h in enumerate(lowered) if h.startswith(ALGO_PREFIX)]
    return named[0], (sources[0] if sources else None), feats, algos


def read_isa_metadata(path: str | os.PathLike[str]
                      ) -> tuple[Table, Table, list[str] | None]:
    """Read an Instance Space Analysis ``metadata.csv``.

    As MATILDA reads it: ``instances`` and ``source`` are matched ignoring case, the
    ``feature_`` and ``algo_`` prefixes too, other columns are ignored. An empty field
    or ``NaN`` is NaN.

    Parameters
    ----------
    path : str or os.PathLike
        The file (UTF-8 CSV).

    Returns
    -------
    features : Table
        Rows: the instances' names; columns: the feature names without ``feature_``.
    performance : Table
        The same rows; columns: the algorithm names without ``algo_`` (none: no column).
    sources : list of str or None
        Each instance's ``source`` (None: the file has no such column).

    Raises
    ------
    ValueError
        A file that is not readable text, a header without one ``instances`` column, a
        line of another length than the header's, a value that is not a number.
    """
    name = str(path)
    rows = list(csv.reader(io.StringIO(read_text(path, name), newline="")))
    if not rows:
        raise ValueError(f"{name} is empty: no header")
    header, body = rows[0], [r for r in rows[1:] if r]
    inst, src, feats, algos = _header_roles(header, name)
    values = np.full((len(body), len(feats) + len(algos)), np.nan)
    for r, row in enumerate(body):
        if len(row) != len(header):
            raise ValueError(f"{name} line {r + 2}: {len(row)} fields, the header has "
                             f"{len(header)}")
        for j, c in enumerate([*feats, *algos]):
            values[r, j] = _parse_value(row[c], f"{name} line {r + 2}, {header[c]}")
    index = tuple(row[inst] for row in body)
    features = Table(index, tuple(header[c][len(FEATURE_PREFIX):] for c in feats),
                     values[:, :len(feats)])
    performance = Table(index, tuple(header[c][len(ALGO_PREFIX):] for c in algos),
                        values[:, len(feats):])
    return features, performance, (None if src is None else [row[src] for row in body])
