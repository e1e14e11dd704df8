"""Run one configuration and save it: shared by the command line and suites.

A run is a problem evolved from resolved settings (see `hawks_deap.settings.config.resolve`)
and its best individual saved as a run directory (the dataset's files, ``logbook.csv``
and, in Versus mode, ``partitions.csv``: `hawks_deap.io.run_files`, which also writes
what `hawks_deap.Result.save` writes).

`build_problem` turns settings into a problem, `run_configuration` evolves it and
`Run.save` writes the directory atomically. The files' writers and readers
(`logbook_csv`, `read_logbook_csv`, `partitions_csv`, `read_partitions_csv`,
`format_value`, `LOGBOOK_FILE`, `PARTITIONS_FILE`) live in `hawks_deap.io.run_files`
and are re-exported here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hawks_deap._util.validation import check_parent_dir
from hawks_deap.io.dataset import check_replaceable

# the run directory's files: one writer and reader for the command line, suites and
# Result.save (hawks_deap.io.run_files), re-exported here under their documented names
from hawks_deap.io.run_files import (
    LOGBOOK_FILE,
    PARTITIONS_FILE,
    format_value,
    logbook_csv,
    partitions_csv,
    read_logbook_csv,
    read_partitions_csv,
    run_files,
    save_run,
)
from hawks_deap.settings.model import GASettings, RunSettings

if TYPE_CHECKING:
    from hawks_deap.algorithms.result import Result
    from hawks_deap.io.dataset import Dataset
    from hawks_deap.problems import Problem

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




# --------------------------------------------------------------------------- settings


#: Settings that may name a file: an instance space, an algorithm ``path/to/file.py:attr``.
FILE_KEYS = ("space", "winner", "loser")


def absolute_file(key: str, value: Any, base: Path) -> tuple[Any, Path | None]:
    """A `FILE_KEYS` setting with its file made absolute from ``base``, and that file.

    Other values (a registered algorithm's name, an import path, None) come back
    unchanged, with None.

    Parameters
    ----------
    key : str
        The setting's name.
    value : object
        Its value.
    base : pathlib.Path
        The folder a relative path is read from.

    Returns
    -------
    tuple
        ``(value, path)``.
    """
    from hawks_deap.clustering._spec import file_spec

    named: tuple[Path, str | None] | None
    if key == "space":
        named = (Path(value), None) if isinstance(value, str) else None
    else:
        named = file_spec(value) if key in FILE_KEYS else None
    if named is None:
        return value, None
    path = (base / named[0].expanduser()).resolve()
    return (str(path) if named[1] is None else f"{path}:{named[1]}"), path


def build_problem(command: str, values: Mapping[str, Any]) -> Problem:
    """The problem that settings describe: ``RunSettings.from_values(...).problem()``.

    Parameters
    ----------
    command : {"generate", "versus", "target"}
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
            ``{file name: text}`` (`hawks_deap.io.run_files.run_files`).
        """
        return run_files(self.result.logbook, self._partitions(partitions))

    def _partitions(self, partitions: bool | None) -> tuple[Any, Any] | None:
        from hawks_deap.algorithms.result import partitions_source

        versus = partitions_source(self.problem, partitions)
        return None if versus is None else versus.partitions(self.result.best)

    def save(self, out: str | os.PathLike, *, overwrite: bool = False,
             partitions: bool | None = None, format: str = "csv",  # noqa: A002
             keep_if_taken: bool = False) -> Path:
        """Write the run directory atomically; returns its path.

        Parameters
        ----------
        out : path
            The run directory (see `check_run_dir` for the command line's rules).
        overwrite : bool
            Replace an existing directory.
        partitions : bool, optional
            Write ``partitions.csv``; default: for a Versus run (suites and commands
            alike, `hawks_deap.algorithms.result.partitions_source`).
        format : {"csv", "npz"}
            The file of the points (`hawks_deap.Dataset.save`).
        keep_if_taken : bool
            Keep the run as ``NAME.kept-HEX`` when ``out`` was taken meanwhile
            (`hawks_deap.Dataset.save`).
        """
        return save_run(self.dataset, out, logbook=self.result.logbook,
                        partitions=self._partitions(partitions), overwrite=overwrite,
                        format=format, keep_if_taken=keep_if_taken)


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
