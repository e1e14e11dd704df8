"""A run's directory: the dataset's files plus its logbook and, for Versus, partitions.

What ``hawks-deap generate`` / ``versus``, a suite's runs and `hawks_deap.Result.save`
write, one writer for all::

    run-dir/
      data.csv        the points and their labels          (hawks_deap.io.dataset)
      genes.json      the best genotype                    (hawks_deap.io.dataset)
      metadata.json   problem, seed, record, extra entries (hawks_deap.io.dataset)
      logbook.csv     one row per generation               (LOGBOOK_FILE)
      partitions.csv  Versus only: both algorithms' labels (PARTITIONS_FILE)

`save_run` writes the directory atomically (`hawks_deap.Dataset.save`); the readers
`read_logbook_csv` and `read_partitions_csv` load the two files it adds (what
``hawks-deap plot`` draws). `format_value` is the single text form of values in every
CSV the package writes (logbooks here, suite summaries in `hawks_deap.campaign.suite`).
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hawks_deap.io.dataset import (
    DATA_FORMATS,
    LOGBOOK_FILE,
    PARTITIONS_FILE,
    Dataset,
    check_replaceable,
    csv_has_rows,
    files_are_whole,
)

__all__ = [
    "LOGBOOK_FILE",
    "PARTITIONS_FILE",
    "check_new_run_dir",
    "format_value",
    "logbook_csv",
    "partitions_csv",
    "read_logbook_csv",
    "read_partitions_csv",
    "run_files",
    "run_files_are_whole",
    "save_run",
]


def format_value(value: Any) -> str:
    """The text of one CSV cell.

    None is empty, booleans are ``True`` / ``False``, floats (Python or numpy) use
    ``repr`` so that they read back to the same float, numpy integers print as Python
    integers, anything else uses ``str``. Text written this way and read back is
    unchanged when written again, which is what lets a resumed suite rewrite its summary
    without altering finished rows.

    Parameters
    ----------
    value : object
        The value of the cell.

    Returns
    -------
    str
    """
    if value is None:
        return ""
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, float | np.floating):
        return repr(float(value))
    if isinstance(value, np.integer):
        return str(int(value))
    return str(value)


# --------------------------------------------------------------------------- logbook


def logbook_csv(logbook: Sequence[Mapping[str, Any]]) -> str:
    """A logbook (a list of dict rows) as CSV text.

    Parameters
    ----------
    logbook : sequence of mapping
        One row per generation, e.g. ``Result.logbook``.

    Returns
    -------
    str
        A header with the columns in order of first appearance, then one line per row
        (`format_value`; a key missing from a row is an empty cell).
    """
    keys: list[str] = []
    for row in logbook:
        for k in row:
            if k not in keys:
                keys.append(k)
    lines = [",".join(keys)]
    for row in logbook:
        lines.append(",".join(format_value(row.get(k)) for k in keys))
    return "\n".join(lines) + "\n"


def read_logbook_csv(path: str | os.PathLike) -> list[dict[str, float]]:
    """Rows of a ``logbook.csv`` with numeric values.

    Empty cells are NaN; non-numeric cells are left out of their row.

    Parameters
    ----------
    path : str or os.PathLike
        The ``logbook.csv`` file.

    Returns
    -------
    list of dict
        One ``{column: float}`` per generation, in file order.

    Raises
    ------
    ValueError
        Naming the file when it cannot be read (missing, not a regular file, not
        UTF-8), is not CSV (e.g. a field over the csv module's limit of 128 KiB), or has
        no rows or no ``fitness_best`` column.
    """
    from hawks_deap._util.files import read_text

    text = read_text(path)
    rows = []
    try:
        for row in csv.DictReader(io.StringIO(text, newline="")):
            parsed: dict[str, float] = {}
            for k, v in row.items():
                try:  # (k None: cells beyond the header's, left out)
                    parsed[k] = float(v) if v not in ("", None) else math.nan
                except (TypeError, ValueError):
                    continue
            rows.append(parsed)
    except csv.Error as error:
        raise ValueError(f"{path} is not a hawks-deap logbook (not CSV: {error})") from None
    if not rows or "fitness_best" not in rows[0]:
        raise ValueError(f"{path} is not a hawks-deap logbook (no rows or no fitness_best "
                         "column)")
    return rows


# --------------------------------------------------------------------------- partitions


def partitions_csv(winner_labels: Sequence[int] | np.ndarray,
                   loser_labels: Sequence[int] | np.ndarray) -> str:
    """The two partitions of a Versus run as CSV text (header ``winner,loser``).

    Parameters
    ----------
    winner_labels, loser_labels : sequence of int
        Each algorithm's label per point, of the same length (``ValueError`` otherwise).

    Returns
    -------
    str
        The header, then one ``winner,loser`` line per point.
    """
    return "winner,loser\n" + "".join(
        f"{int(a)},{int(b)}\n" for a, b in zip(winner_labels, loser_labels, strict=True))


def read_partitions_csv(path: str | os.PathLike, n_samples: int) -> dict[str, np.ndarray]:
    """The ``winner`` and ``loser`` label arrays of a ``partitions.csv``.

    Parameters
    ----------
    path : str or os.PathLike
        The ``partitions.csv`` file.
    n_samples : int
        The number of points (rows) it must hold.

    Returns
    -------
    dict of str to numpy.ndarray
        ``{"winner": labels, "loser": labels}``, each int64 of shape ``(n_samples,)``.

    Raises
    ------
    ValueError
        Naming the file when it is not integer CSV or has not ``n_samples`` rows of two
        labels.
    OSError
        When the file cannot be read (e.g. ``FileNotFoundError``).
    """
    try:
        raw = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2, dtype=np.int64,
                         comments=None)  # (a "#" row is refused, never skipped)
    except ValueError as error:
        raise ValueError(f"{path} is not a partitions file: {error}") from None
    if raw.shape != (n_samples, 2):
        raise ValueError(f"{path} must have {n_samples} rows of winner,loser labels, got "
                         f"shape {raw.shape}")
    return {"winner": raw[:, 0], "loser": raw[:, 1]}


# --------------------------------------------------------------------------- the directory


def run_files(logbook: Sequence[Mapping[str, Any]],
              partitions: tuple[Any, Any] | None = None) -> dict[str, str]:
    """The text files a run directory holds beside its dataset's.

    Parameters
    ----------
    logbook : sequence of mapping
        One row per generation (``Result.logbook``).
    partitions : (winner labels, loser labels), optional
        A Versus run's two partitions of the saved points.

    Returns
    -------
    dict of str to str
        ``{LOGBOOK_FILE: text}``, and ``PARTITIONS_FILE`` when ``partitions`` is given.
    """
    files = {LOGBOOK_FILE: logbook_csv(logbook)}
    if partitions is not None:
        files[PARTITIONS_FILE] = partitions_csv(*partitions)
    return files


def run_files_are_whole(path: str | os.PathLike, metadata: Mapping[str, Any]) -> bool:
    """Whether a run directory's files are whole, cheaply (a resume's test).

    `hawks_deap.io.dataset.files_are_whole` for the dataset's (N from ``metadata``'s
    ``sizes``), and the run's own: ``logbook.csv`` holding its header and one row per
    generation (``generations_run`` + 1, the initial population's first), and
    ``partitions.csv`` (a Versus run's) its header and N rows; each ending its last line.

    Parameters
    ----------
    path : str or os.PathLike
        The run directory.
    metadata : mapping
        Its ``metadata.json``, read.

    Returns
    -------
    bool
        False also when a file is missing or cannot be read.
    """
    path = Path(path)
    sizes, generations = metadata.get("sizes"), metadata.get("generations_run")
    if (not isinstance(sizes, list) or not all(type(n) is int for n in sizes)
            or type(generations) is not int):
        return False
    n_points = sum(sizes)
    if not files_are_whole(path, n_points):
        return False
    problem = metadata.get("problem")
    versus = isinstance(problem, Mapping) and problem.get("mode") == "versus"
    try:
        if not csv_has_rows(path / LOGBOOK_FILE, generations + 1):
            return False
        partitions = path / PARTITIONS_FILE
        return not (versus or partitions.exists()) or csv_has_rows(partitions, n_points)
    except OSError:
        return False


def check_new_run_dir(out: str | os.PathLike, overwrite: bool) -> Path:
    """Refuse, before any work, a run directory `save_run` would refuse at the end.

    The checks of `hawks_deap.Dataset.save`, made up front so that nothing is computed
    for a write that cannot happen.

    Parameters
    ----------
    out : str or os.PathLike
        The run directory.
    overwrite : bool
        Whether an existing directory may be replaced.

    Returns
    -------
    pathlib.Path
        ``out``.

    Raises
    ------
    FileExistsError
        If ``out`` exists and ``overwrite`` is False.
    ValueError
        If ``overwrite`` is True and ``out`` is not a directory hawks-deap may replace
        (`hawks_deap.io.dataset.check_replaceable`: another program's directory, one
        holding other files, the working directory).
    TypeError
        If ``out`` is not a path or ``overwrite`` not a bool.
    """
    from hawks_deap._util.validation import check_bool

    if not isinstance(out, str | os.PathLike):
        raise TypeError(f"out must be a path (str or os.PathLike), got {out!r} "
                        f"({type(out).__name__})")
    overwrite = check_bool("overwrite", overwrite)
    out = Path(out)
    if os.path.lexists(os.path.abspath(out)):
        if not overwrite:
            raise FileExistsError(f"{out} exists; pass overwrite=True to replace it")
        check_replaceable(os.path.abspath(out), shown=out)
    return out


def save_run(dataset: Dataset, out: str | os.PathLike, *,
             logbook: Sequence[Mapping[str, Any]],
             partitions: tuple[Any, Any] | None = None, overwrite: bool = False,
             format: str = "csv", keep_if_taken: bool = False) -> Path:  # noqa: A002
    """Write a run directory atomically: the dataset, its logbook, its partitions.

    Parameters
    ----------
    dataset : Dataset
        The run's dataset (``Result.best_dataset()``, with any extra metadata).
    out : str or os.PathLike
        The run directory.
    logbook : sequence of mapping
        One row per generation (``Result.logbook``): ``logbook.csv``.
    partitions : (winner labels, loser labels), optional
        A Versus run's partitions of the dataset's points: ``partitions.csv``.
    overwrite : bool
        Replace an existing directory hawks-deap wrote (`hawks_deap.Dataset.save`).
    format : {"csv", "npz"}
        The file of the points (`hawks_deap.Dataset.save`).
    keep_if_taken : bool
        Keep the run as ``NAME.kept-HEX`` when ``out`` was taken meanwhile
        (`hawks_deap.Dataset.save`).

    Returns
    -------
    pathlib.Path
        ``out``.

    Raises
    ------
    FileExistsError, ValueError, TypeError
        As `check_new_run_dir`; ``ValueError`` also for partitions that do not label
        every point, or an unknown ``format``.
    """
    from hawks_deap._util.validation import check_choice

    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a hawks_deap.Dataset, got {type(dataset).__name__}")
    check_choice("format", format, DATA_FORMATS)
    if not keep_if_taken:
        out = check_new_run_dir(out, overwrite)
    if partitions is not None:
        shapes = [np.shape(labels) for labels in partitions]
        if len(partitions) != 2 or any(s != (dataset.n_samples,) for s in shapes):
            raise ValueError(f"partitions must be the winner's and the loser's labels of the "
                             f"{dataset.n_samples} points, got shapes {shapes}")
    return dataset.save(out, overwrite=overwrite, format=format,
                        extra_files=run_files(logbook, partitions),
                        keep_if_taken=keep_if_taken)
