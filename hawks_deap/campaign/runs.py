"""Run one configuration and save it: shared by the command line and suites.

A run is a problem evolved from resolved settings (see `hawks_deap.settings.config.resolve`)
and its best individual saved as a dataset directory::

    run-dir/
      data.csv        the points and their labels          (hawks_deap.io.dataset)
      genes.json      the best genotype                    (hawks_deap.io.dataset)
      metadata.json   problem, seed, record, extra entries (hawks_deap.io.dataset)
      logbook.csv     one row per generation               (this module)
      partitions.csv  Versus mode only: both algorithms' labels (this module)

`build_problem` turns settings into a problem, `run_configuration` evolves it,
`Run.save` writes the directory atomically, and the readers (`read_logbook_csv`,
`read_partitions_csv`) load the two files this module adds. `format_value` is the
single text form of values in every CSV the package writes (logbooks here, suite
summaries in `hawks_deap.campaign.suite`).
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from hawks_deap._util.validation import check_parent_dir
from hawks_deap.io.dataset import LOGBOOK_FILE, PARTITIONS_FILE, check_replaceable
from hawks_deap.settings.model import GASettings, RunSettings

if TYPE_CHECKING:
    from hawks_deap.algorithms.result import Result
    from hawks_deap.io.dataset import Dataset
    from hawks_deap.problems import Problem
    from hawks_deap.problems.versus import VersusProblem

__all__ = [
    "LOGBOOK_FILE",
    "PARTITIONS_FILE",
    "Run",
    "build_problem",
    "check_run_dir",
    "evolve_options",
    "format_value",
    "logbook_csv",
    "partitions_csv",
    "read_logbook_csv",
    "read_partitions_csv",
    "run_configuration",
]




# --------------------------------------------------------------------------- values


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


# --------------------------------------------------------------------------- settings


def build_problem(command: str, values: Mapping[str, Any]) -> Problem:
    """The problem that settings describe: ``RunSettings.from_values(...).problem()``.

    Parameters
    ----------
    command : {"generate", "versus"}
        Index mode (`hawks_deap.IndexProblem`) or Versus mode (``VersusProblem``).
    values : mapping
        ``{key: value}`` as returned by `hawks_deap.settings.config.resolve` (or a HAWKS
        config's or a suite configuration's settings): keys of
        `hawks_deap.settings.model.RunSettings`.

    Raises
    ------
    ValueError
        For settings that are valid one by one but not together (e.g. the DE mean
        mutation with fewer than 3 clusters, Versus without a winner), naming them
        (`hawks_deap.settings.model.RunSettings`).
    """
    return RunSettings.from_values(command, values).problem()


def evolve_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments of `hawks_deap.evolve` from settings (seed excluded).

    Parameters
    ----------
    values : mapping
        Settings (`hawks_deap.settings.config.resolve`'s); the ``[ga]`` ones are read
        (`hawks_deap.settings.model.GASettings`).

    Returns
    -------
    dict
        ``population_size``, ``generations``, ``p_crossover``, ``p_f``,
        ``mean_mutation``, ``n_jobs``, ``returns``, and the HAWKS-only ``p_mean``,
        ``p_cov``, ``mean_kwargs``, ``cov_kwargs`` when set.
    """
    return GASettings.from_values(values).evolve_options()


# --------------------------------------------------------------------------- runs


def check_run_dir(out: str | os.PathLike, overwrite: bool) -> None:
    """Refuse an existing output directory unless ``overwrite`` and it holds a dataset.

    Checked before a run starts, so that a long run never ends in a refused write.

    Parameters
    ----------
    out : str or os.PathLike
        The output directory.
    overwrite : bool
        Whether an existing hawks-deap output directory may be replaced.

    Raises
    ------
    ValueError
        Naming ``--out`` and the directory: it exists (without ``overwrite``), it is
        not one an overwrite may replace (`hawks_deap.io.dataset.check_replaceable`: not
        a hawks-deap output directory, holding other files, read-only, or the working
        directory or a parent of it), or a parent is not a writable directory.
    """
    out = Path(out)
    if out.exists() or out.is_symlink():
        if not overwrite:
            raise ValueError(f"--out {out} already exists; choose a new directory or pass "
                             "--overwrite")
        try:
            check_replaceable(out)
        except ValueError as error:
            raise ValueError(f"--out: {error} (--overwrite)") from None
    check_parent_dir(out, f"--out {out}")


@dataclass(frozen=True)
class Run:
    """A finished run: the problem, the result of `hawks_deap.evolve` and its dataset.

    Attributes
    ----------
    problem : Problem
        The problem that was evolved.
    result : Result
        What `hawks_deap.evolve` returned (best individual, logbook, ...).
    dataset : Dataset
        ``result.best_dataset()``, with the caller's extra metadata entries.
    """

    problem: Problem
    result: Result
    dataset: Dataset

    def files(self, *, partitions: bool = False) -> dict[str, str]:
        """The text files saved beside the dataset: the logbook, and the partitions.

        Parameters
        ----------
        partitions : bool
            Also give ``partitions.csv`` (Versus problems only).

        Returns
        -------
        dict of str to str
            ``{file name: text}``.
        """
        files = {LOGBOOK_FILE: logbook_csv(self.result.logbook)}
        if partitions:
            versus = cast("VersusProblem", self.problem)  # partitions: Versus problems only
            files[PARTITIONS_FILE] = partitions_csv(*versus.partitions(self.result.best))
        return files

    def save(self, out: str | os.PathLike, *, overwrite: bool = False,
             partitions: bool = False, format: str = "csv") -> Path:  # noqa: A002
        """Write the run directory atomically; returns its path.

        Parameters
        ----------
        out : path
            The run directory (see `check_run_dir` for the command line's rules).
        overwrite : bool
            Replace an existing directory.
        partitions : bool
            Also write ``partitions.csv`` (Versus problems only).
        format : {"csv", "npz"}
            The file of the points (`hawks_deap.Dataset.save`).
        """
        return self.dataset.save(out, overwrite=overwrite, format=format,
                                 extra_files=self.files(partitions=partitions))


def run_configuration(problem: Problem, values: Mapping[str, Any], *, seed: int,
                      progress: bool = False,
                      metadata: Mapping[str, Any] | None = None) -> Run:
    """Evolve a problem with resolved settings; nothing is written.

    Parameters
    ----------
    problem : Problem
        From `build_problem` (built by the caller, so that it is validated before
        anything runs).
    values : mapping
        Resolved settings (`hawks_deap.settings.config.resolve`); the GA settings among them go
        to `hawks_deap.evolve` (`evolve_options`).
    seed : int
        The run's seed.
    progress : bool
        A progress bar over generations.
    metadata : mapping, optional
        Entries added to the dataset's metadata (e.g. the command and its settings).

    Returns
    -------
    Run
    """
    # the loop's evolve, looked up when called (tests replace it there)
    from hawks_deap.algorithms import loop

    result = loop.evolve(problem, seed=seed, progress=progress, **evolve_options(values))
    dataset = result.best_dataset()
    dataset.metadata.update(metadata or {})
    return Run(problem, result, dataset)
