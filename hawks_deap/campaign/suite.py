"""Benchmark suites: parameter-grid campaigns on local processes or a dask cluster.

A grid file is a config file (sections ``[dataset]``, ``[objective]``,
``[constraints]``, ``[ga]``, see `hawks_deap.settings.config`) plus a ``[suite]`` section::

    [suite]
    runs = 7          # runs per configuration
    seed = 0          # suite seed
    mode = "index"    # or "versus", or "target" (Feature-target mode)

    [dataset]
    n_samples = [500, 2500]     # a list: every value is tried
    n_clusters = [5, 30]

Every list is expanded into the cartesian product (`expand_grid`), as in HAWKS. Each run is one task
whose seed derives from (suite seed, configuration, run index): it does not depend on
the backend, the number of workers or the order of completion, and ``hawks-deap
generate --seed SEED`` with the configuration's settings repeats it alone.

The configuration enters through an explicit, versioned key (`hawks_deap.campaign.seed_keys`):
adding an option, a constraint or a mean operator changes no seed of an existing grid.

Results stream to the output directory as runs finish: ``runs/<config>-r<run>/`` (a
dataset directory with its logbook) and ``summary.csv`` (one row per finished run),
both written atomically. Running the same suite again on the same directory resumes it:
finished runs are skipped and unfinished ones are redone, so a suite killed at any
moment and resumed gives the same summary and byte-identical datasets (with more
``[suite] runs`` too: only the new runs are done).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import math
import operator
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hawks_deap._util.files import CONFIG_MAX_BYTES, CONFIG_MAX_DEPTH, read_json
from hawks_deap._util.memory import check_fits
from hawks_deap._util.validation import check_bool, check_choice, check_parent_dir
from hawks_deap._util.workers import (
    PoolWatch,
    check_not_reimported,
    check_workers,
    interrupts_ignored_by_workers,
    main_not_reimported,
    orphan_check,
    suite_worker,
)
from hawks_deap.campaign.dask_backend import close_dask, connect_dask, iter_dask
from hawks_deap.campaign.runs import (
    FILE_KEYS,
    absolute_file,
    build_problem,
    format_value,
    run_configuration,
)
from hawks_deap.campaign.seed_keys import (
    SEED_KEY_VERSION,
    SEED_KEYS,
    configuration_values,
    derive_seed,
    key_values,
    run_seeds,
    seed_key,
)
from hawks_deap.campaign.summary import (
    LOCK_FILE,
    RUNS_DIR,
    SUMMARY_FILE,
    OutputRefused,
    SuiteBusy,
    check_lock_file,
    check_real_dir,
    check_runs_dir,
    clean_partial,
    finished_rows,
    finished_task_rows,
    holds_run,
    is_own_temp_file,
    read_summary,
    suite_lock,
    summary_frame,
    summary_rows,  # noqa: F401 (re-exported: hawks_deap.campaign.suite.summary_rows)
    summary_text,
)
from hawks_deap.clustering import install_algorithms, user_algorithms
from hawks_deap.io.dataset import check_replaceable, write_text_atomic
from hawks_deap.settings import config

__all__ = [
    "BACKENDS",
    "SEED_KEYS",
    "SEED_KEY_VERSION",
    "SUITE_OPTIONS",
    "OutputRefused",
    "SuiteBusy",
    "Suite",
    "SuiteTask",
    "check_memory",
    "check_output",
    "check_set_aside_dir",
    "close_dask",
    "connect_dask",
    "derive_seed",
    "expand_grid",
    "finished_rows",
    "load_suite",
    "read_summary",
    "run_suite",
    "runs_to_do",
    "run_task",
    "seed_key",
    "suite_lock",
    "summary_frame",
]

#: Where a suite's runs execute: local worker processes, or a dask.distributed cluster.
BACKENDS = config.SUITE_BACKENDS
MODES = {"index": "generate", "versus": "versus", "target": "target"}
GRID_FILE = "suite.json"
#: The key of ``suite.json`` that records the environment, beside the grid's description.
GRID_ENVIRONMENT = "environment"

#: Largest grid: every configuration is validated (a problem built) before any run.
MAX_CONFIGURATIONS = 100_000
#: Largest suite: one summary row and one run folder per run.
MAX_RUNS = 10_000_000
#: Suites with more runs than this get a warning on the command line, even with --quiet.
LONG_SUITE_RUNS = 10_000

#: The ``[suite]`` section of grid files.
SUITE_OPTIONS: tuple[config.Option, ...] = (
    config.Option("suite", "runs", "int", 1, "runs per configuration", low=1),
    config.Option("suite", "seed", "int", 0, "suite seed", low=0),
    config.Option("suite", "mode", "str", "index", "Index, Versus or Feature-target mode",
                  choices=tuple(MODES)),
    config.Option("suite", "format", "str", "csv",
                  "file of each run's points: data.csv (text) or data.npz (compressed)",
                  choices=("csv", "npz")),
)

#: Settings a grid may not set: each run's seed is derived, and runs are the unit of
#: parallelism.
_FORBIDDEN = {("ga", "seed"): "per-run seeds derive from [suite] seed",
              ("ga", "n_jobs"): "runs are evaluated one per worker (use --workers)"}


@dataclass(frozen=True)
class SuiteTask:
    """One run of a suite: a configuration, a run index and its derived seed.

    Attributes
    ----------
    config_id : str
        The configuration's id, e.g. ``"c003"``.
    run : int
        The run index within the configuration, from 0.
    seed : int
        The run's seed (`derive_seed`).
    command : str
        The single-run command: ``"generate"``, ``"versus"`` or ``"target"``.
    values : dict
        The configuration's settings, ``{key: value}`` (no ``seed`` nor ``n_jobs``).
    format : {"csv", "npz"}
        File of the run's points (no setting: it changes no result or seed).
    metadata : dict
        Entries added to the run's metadata.
    algorithms : dict
        The clustering algorithms its settings name that a user registered
        (`hawks_deap.clustering.user_algorithms`), installed where it runs.
    """

    config_id: str
    run: int
    seed: int
    command: str
    values: dict[str, Any]
    format: str = "csv"
    metadata: dict[str, Any] = field(default_factory=dict)
    algorithms: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """Directory name of the run, e.g. ``c003-r02``."""
        return f"{self.config_id}-r{self.run:02d}"


@dataclass
class Suite:
    """A parsed and validated grid file.

    Attributes
    ----------
    mode : {"index", "versus", "target"}
        ``[suite] mode``.
    runs, seed : int
        ``[suite] runs`` (runs per configuration) and ``[suite] seed``.
    configurations : list of dict
        Each configuration's settings, ``{key: value}`` (no ``seed`` nor ``n_jobs``).
    grid : dict
        The grid, as `describe` stores it: a grid file's validated ``{section: {key:
        value or list}}`` without ``[suite]`` (`hawks_deap.campaign.hawks_json` stores its own).
    format : {"csv", "npz"}
        ``[suite] format``: the file of each run's points.
    metadata : dict
        Entries added to every run's metadata (e.g. ``settings_source``); not part of
        the suite's identity (`describe`), so a moved grid file resumes the same suite.
    runs_keys : tuple of tuple of str
        Where `describe` holds the run count (a HAWKS grid repeats it), for `_more_runs`.
    seed_key : int
        The version of the key the runs' seeds derive from (`SEED_KEYS`), recorded by
        `describe` and in every run's metadata.
    key_configurations : list of dict, optional
        What each configuration's seeds hash (`hawks_deap.campaign.seed_keys.key_values`:
        the grid's values with the key version's presets); None: the configurations.
    files : dict
        The SHA-256 of each file the configurations read (an instance space, an
        algorithm named by ``path/to/file.py:attr``), by its text in the grid: part of
        `describe`, so that a resume that would read other contents is refused.
    """

    mode: str
    runs: int
    seed: int
    configurations: list[dict[str, Any]]
    grid: dict[str, dict[str, Any]] = field(default_factory=dict)
    format: str = "csv"
    metadata: dict[str, Any] = field(default_factory=dict)
    runs_keys: tuple[tuple[str, ...], ...] = (("runs",),)
    seed_key: int = SEED_KEY_VERSION
    key_configurations: list[dict[str, Any]] | None = None
    files: dict[str, str] = field(default_factory=dict)

    @property
    def command(self) -> str:
        """The single-run command of the mode ("generate", "versus" or "target")."""
        return MODES[self.mode]

    def tasks(self) -> list[SuiteTask]:
        """Every run, configuration by configuration."""
        out = []
        width = max(3, len(str(len(self.configurations) - 1)))
        metadata = {**self.metadata, "seed_key": self.seed_key}
        keyed = self.key_configurations or self.configurations
        for i, (values, key) in enumerate(zip(self.configurations, keyed, strict=True)):
            seeds = run_seeds(self.seed, key, range(self.runs), command=self.command,
                              version=self.seed_key)
            # a user's registered algorithms travel with the task (workers start without)
            algorithms = user_algorithms((values.get("winner"), values.get("loser")))
            for r, seed in enumerate(seeds):
                out.append(SuiteTask(f"c{i:0{width}d}", r, seed, self.command, values,
                                     self.format, metadata, algorithms))
        return out

    def describe(self) -> dict[str, Any]:
        """JSON-ready description, stored in the output directory."""
        described = {"mode": self.mode, "runs": self.runs, "seed": self.seed,
                     "grid": self.grid, "seed_key": self.seed_key}
        if self.format != "csv":  # (suites written before the option stay the same)
            described["format"] = self.format
        if self.files:  # (so do suites that read no file)
            described["files"] = dict(sorted(self.files.items()))
        return described


def load_suite(path: str | os.PathLike, *, preset: str | None = None) -> Suite:
    """Read and validate a grid file; every configuration is checked before any run.

    ``preset`` (``hawks-deap suite GRID --preset NAME``) is every configuration's
    ``[ga] preset``, over the file's own.

    Raises ``ValueError`` / ``TypeError`` naming the section and key (an unknown key
    suggests the closest valid one), for an empty product, and for configurations that
    are invalid as a whole (naming the configuration); ``ValueError`` naming the file
    when it cannot be read or is not TOML.

    Parameters
    ----------
    path : str or os.PathLike
        The grid file (TOML).
    preset : str, optional
        A preset name (`hawks_deap.presets`).

    Returns
    -------
    Suite
    """
    raw = config.load_toml(path)
    if preset is not None:
        raw = {**raw, "ga": {**raw.get("ga", {}), "preset": preset}}
    return parse_suite(raw, source=str(path))


def expand_grid(grid: Mapping[str, Mapping[str, Any]],
                options: Sequence[config.Option] = config.OPTIONS
                ) -> list[dict[str, dict[str, Any]]]:
    """Cartesian product of the list values of a grid config.

    Parameters
    ----------
    grid : mapping
        ``{section: {key: value or list of values}}`` (from
        `hawks_deap.settings.config.validate_config` with ``allow_lists=True``).
    options : sequence of Option
        The schema, which fixes the order of the product (schema order, the last key
        varying fastest).

    Returns
    -------
    list of dict
        One ``{section: {key: value}}`` per combination; a config without lists gives
        one.
    """
    order = {(o.section, o.key): i for i, o in enumerate(options)}
    items = sorted(((s, k, v) for s, table in grid.items() for k, v in table.items()),
                   key=lambda t: order.get((t[0], t[1]), len(order)))
    axes: list[list[Any]] = [v if isinstance(v, list) else [v] for _, _, v in items]
    for (section, key, _), axis in zip(items, axes, strict=True):
        check_distinct(f"[{section}] {key}", axis, " (the same seed, byte-identical "
                       "datasets); list it once, or raise [suite] runs")
    out = []
    for combo in itertools.product(*axes):
        point: dict[str, dict[str, Any]] = {s: {} for s in grid}
        for (section, key, _), value in zip(items, combo, strict=True):
            point[section][key] = value
        out.append(point)
    return out


def parse_suite(raw: Mapping[str, Any], *, source: str = "") -> Suite:
    """Validate a parsed grid (see `load_suite`)."""
    where = f" in {source}" if source else ""
    raw = _algorithms_by_name(raw)
    options = (*config.OPTIONS, *SUITE_OPTIONS)
    suite_table = raw.get("suite", {})
    if not isinstance(suite_table, Mapping):
        raise TypeError(f"[suite]{where} must be a table of keys")
    mode = suite_table.get("mode", "index")
    try:
        check_choice("[suite] mode", mode, MODES)
    except (TypeError, ValueError) as error:
        raise type(error)(f"{error} ({source})" if source else str(error)) from None
    command = MODES[mode]
    # a relative [objective] space or algorithm file is the grid file's neighbour: read
    # from there by every run (and by this check), while the grid and the seeds keep the
    # text as written (a moved folder resumes the same suite, if the files hold the same)
    base = Path(source).parent if source else Path.cwd()
    validated = config.validate_config(_grid_files_from(raw, base), command=command,
                                       options=options, allow_lists=True, source=source)
    written = raw.get("objective")
    for key in FILE_KEYS:  # the checked values, a file's text as written
        if isinstance(written, Mapping) and key in written and "objective" in validated:
            validated["objective"][key] = _as_written(key, written[key],
                                                      validated["objective"][key], base)
    suite = validated.pop("suite", {})
    for key, value in suite.items():
        if isinstance(value, list):
            raise TypeError(f"[suite] {key}{where} must be a single value, got a list")
    for (section, key), why in _FORBIDDEN.items():
        if key in validated.get(section, {}):
            raise ValueError(f"[{section}] {key}{where} cannot be set in a suite: {why}")
    n_configs = math.prod(len(v) if isinstance(v, list) else 1
                          for table in validated.values() for v in table.values())
    check_size(n_configs, int(suite.get("runs", 1)), runs_name="[suite] runs", where=where)
    points = expand_grid(validated, options)
    if not points:
        raise ValueError(f"the grid{where} expands to no configuration")
    files: dict[str, str] = {}
    configurations = [checked_configuration(command, _files_from(point, base, files), {},
                                            i, _short(point), where)
                      for i, point in enumerate(points)]
    return Suite(mode=mode, runs=int(suite.get("runs", 1)), seed=int(suite.get("seed", 0)),
                 configurations=configurations, grid=validated,
                 format=str(suite.get("format", "csv")),
                 key_configurations=[key_values(command, point) for point in points],
                 files=files)


def _as_written(key: str, written: Any, checked: Any, base: Path) -> Any:
    """``checked``, with each file spec (lists too) back in its text as written."""
    if isinstance(written, list) and isinstance(checked, list):
        return [_as_written(key, w, c, base) for w, c in zip(written, checked, strict=True)]
    return written if absolute_file(key, written, base)[1] is not None else checked


def _grid_files_from(raw: Mapping[str, Any], base: Path) -> Mapping[str, Any]:
    """A grid whose relative files (`FILE_KEYS`, lists too) are made absolute from ``base``."""
    objective = raw.get("objective")
    if not isinstance(objective, Mapping):
        return raw
    objective = dict(objective)
    for key in FILE_KEYS:
        if key in objective:
            value = objective[key]
            objective[key] = ([absolute_file(key, v, base)[0] for v in value]
                              if isinstance(value, list) else absolute_file(key, value, base)[0])
    return {**raw, "objective": objective}


def _files_from(point: dict[str, dict[str, Any]], base: Path, files: dict[str, str]
                ) -> dict[str, dict[str, Any]]:
    """A configuration whose relative files (`FILE_KEYS`) are made absolute from ``base``.

    Each file's SHA-256 goes into ``files``, by its text as written (a missing file is
    left to the configuration's check, which names it).
    """
    if "objective" not in point:
        return point
    objective = dict(point["objective"])
    for key in FILE_KEYS:
        text = objective.get(key)
        objective[key], path = absolute_file(key, text, base)
        if path is not None and path.is_file():
            files[str(text)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return {**point, "objective": objective}


def _algorithms_by_name(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """A grid whose ``[objective]`` algorithms given as objects are given by name.

    A suite's configurations are text (the seeds come from them): an algorithm object
    stands for its spec (an import path or plugin) or its registered name, when it
    has one; any other object is refused, saying how to name it.
    """
    objective = raw.get("objective")
    if not isinstance(objective, Mapping):
        return raw
    from hawks_deap.clustering import ClusteringAlgorithm, get_algorithm

    def name(key: str, value: Any) -> Any:
        if isinstance(value, list):
            return [name(key, v) for v in value]
        if not isinstance(value, ClusteringAlgorithm):
            return value
        text = value.spec or value.name
        try:
            if get_algorithm(text) == value:
                return text
        except (ValueError, ImportError):
            pass
        raise TypeError(f"[objective] {key}: {value!r} is neither registered under its name "
                        "nor named by an import path; register it (register_algorithm) or "
                        "give its import path 'package.module:attr'")

    converted = {k: name(k, v) if k in ("winner", "loser") else v
                 for k, v in objective.items()}
    return {**raw, "objective": converted}


def check_distinct(name: str, values: Sequence[Any], advice: str) -> None:
    """Refuse a grid's list holding a value twice (equal and of the same type).

    Each value of a list makes its own configurations, so a repeated value would make
    the same configurations again. The message names the list and the value; ``advice``
    ends it.
    """
    for i, value in enumerate(values):
        if any(value == v and type(value) is type(v) for v in values[:i]):
            raise ValueError(f"{name} lists {value!r} twice: each value makes its own "
                             f"configurations{advice}")


def check_size(n_configs: int, runs: int, *, runs_name: str, where: str = "") -> None:
    """Refuse a grid too large to validate or to run, before expanding it.

    At most `MAX_CONFIGURATIONS` configurations (each is validated before any run) and
    `MAX_RUNS` runs; ``runs_name`` is the setting of the runs per configuration (e.g.
    ``"[suite] runs"``), ``where`` the file (``" in grid.toml"``).
    """
    if n_configs > MAX_CONFIGURATIONS:
        raise ValueError(f"the grid{where} expands to {n_configs:,} configurations; at most "
                         f"{MAX_CONFIGURATIONS:,} (each is validated before any run): split it "
                         "into several suites")
    if n_configs * runs > MAX_RUNS:
        raise ValueError(f"{runs_name} = {runs:,}{where}: {n_configs:,} configurations x "
                         f"{runs:,} runs = {n_configs * runs:,} runs, at most {MAX_RUNS:,}")


def checked_configuration(command: str, file_values: Mapping[str, Mapping[str, Any]],
                          extras: Mapping[str, Any], index: int, description: str,
                          where: str = "") -> dict[str, Any]:
    """The settings of one configuration of a suite, checked by building its problem.

    `hawks_deap.settings.config.resolve`'s settings of ``file_values`` without ``seed`` and
    ``n_jobs`` (each run's seed is derived; runs are the unit of parallelism), plus
    ``extras``. An invalid configuration raises its ``TypeError`` or ``ValueError``
    prefixed with ``configuration {index} ({description}){where}``.
    """
    values = configuration_values(command, file_values, extras)
    try:
        build_problem(command, values)  # every setting checked, alone and together
    except (TypeError, ValueError) as error:
        raise type(error)(f"configuration {index} ({description}){where}: {error}") from None
    return values


def _short(point: Mapping[str, Mapping[str, Any]]) -> str:
    return ", ".join(f"{k}={v}" for table in point.values() for k, v in table.items())


# --------------------------------------------------------------------------- one run


def run_task(task: SuiteTask, out: str | os.PathLike) -> dict[str, str]:
    """Run one task, save its dataset under ``out/runs/``, return its summary row.

    The row's values are already formatted as text (`hawks_deap.campaign.runs.format_value`), so
    a summary read back from disk and written again is unchanged.

    Parameters
    ----------
    task : SuiteTask
        The run (`Suite.tasks`).
    out : str or os.PathLike
        The suite directory; the run is saved at ``out/runs/<task.name>``, replacing
        what is there.

    Returns
    -------
    dict of str to str
        ``config_id``, ``run``, ``seed``, the settings, ``fitness``, the best
        individual's numeric record, ``feature_*`` and ``path``.
    """
    from hawks_deap.analysis.features import problem_features

    install_algorithms(task.algorithms)
    problem = build_problem(task.command, task.values)
    # runs are the unit of parallelism (--workers): each evaluates serially, so that
    # workers (daemonic pool or dask processes) start no processes of their own and a
    # suite never runs more processes than its workers (results never depend on n_jobs)
    values = {**task.values, "n_jobs": 1}
    run = run_configuration(problem, values, seed=task.seed, metadata={
        **task.metadata,
        # the configuration's settings (a preset among them), as a command's run records
        "command": {"name": task.command, "settings": dict(task.values)},
        "suite": {"config_id": task.config_id, "run": task.run, "seed": task.seed}})
    row: dict[str, str] = {"config_id": task.config_id, "run": str(task.run),
                           "seed": str(task.seed)}
    for key, value in task.values.items():
        row[key] = format_value(value)
    orphan_check()  # a worker whose suite process was killed stops here, writing nothing
    run.save(Path(out) / RUNS_DIR / task.name, overwrite=True, format=task.format)
    row["fitness"] = format_value(run.result.best.fitness.values[0])
    for key, value in run.result.best.record.items():
        if isinstance(value, bool | int | float | np.number):
            # the record's "index" (the index value) must not hide the setting "index"
            row[key if key not in row else f"{key}_value"] = format_value(value)
    for key, value in problem_features(run.dataset.X, run.dataset.y).items():
        row[f"feature_{key}"] = format_value(value)
    for role in ("winner", "loser"):  # which code ran (the names are in the settings)
        identity = problem.parameters().get(f"{role}_identity")
        if identity is not None:
            row[f"{role}_version"] = format_value(identity["version"])
    row["name"] = task.name
    row["path"] = f"{RUNS_DIR}/{task.name}"
    return row


def _run_task_star(args: tuple[SuiteTask, str]) -> dict[str, str]:
    return run_task(*args)


# --------------------------------------------------------------------------- backends


def check_output(out: Path, suite: Suite, *, locked: bool = False) -> None:
    """Refuse a directory holding another suite (resuming needs the same grid).

    Raises `OutputRefused` (a ``ValueError``: the command line's exit code 2, also where
    the check comes only once the work runs, as in ``hawks-deap fill``) when ``out`` is a
    file, a symbolic link or cannot be created,
    when its ``suite.json`` cannot be read or describes another suite (only ``[suite]
    runs`` may grow), when it is a non-empty folder that is not a suite's, or when its
    ``.suite.lock``, ``runs/`` or ``set-aside/`` is a symbolic link (or not what
    hawks-deap writes there: `hawks_deap.campaign.summary.check_lock_file`,
    `hawks_deap.campaign.summary.check_runs_dir`, `check_set_aside_dir`).

    Parameters
    ----------
    out : pathlib.Path
        The output directory (it may not exist yet).
    suite : Suite
        The suite to run there.
    locked : bool
        Whether this process holds the folder's lock (`run_suite`, after `suite_lock`).
        Without it, a folder holding a lock may be a suite starting, whatever else it
        holds; with it, a folder without ``suite.json`` must hold nothing but the lock
        (a stray lock beside a user's files, or another suite's folder whose
        ``suite.json`` went missing, is refused).
    """
    try:
        _check_output(out, suite, locked)
    except ValueError as error:
        raise OutputRefused(str(error)) from None


def _check_output(out: Path, suite: Suite, locked: bool) -> None:
    """`check_output`'s checks, each raising a ``ValueError``."""
    if out.is_symlink():  # (a suite deletes its own leftovers there: never through a link)
        raise ValueError(f"--out {out} is a symbolic link (to {os.path.realpath(out)}); give "
                         "the folder itself")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} exists and is not a directory")
    check_parent_dir(out, f"--out {out}")
    check_lock_file(out)
    check_runs_dir(out)
    check_set_aside_dir(out)
    grid = out / GRID_FILE
    if grid.is_file():
        try:
            previous = read_json(grid, "it", limit=CONFIG_MAX_BYTES, max_depth=CONFIG_MAX_DEPTH)
        except ValueError as error:
            raise ValueError(f"--out {out}: {grid} cannot be read ({error}); it is not a "
                             "suite this command wrote") from None
        described = json.loads(json.dumps(suite.describe(), default=str))
        if isinstance(previous, dict):
            previous.pop(GRID_ENVIRONMENT, None)  # where it ran is no part of the grid
            previous.setdefault("seed_key", 1)  # (written before key versions: version 1)
            if "files" in described:  # (written before files were recorded: not checked)
                previous.setdefault("files", described["files"])
        # more runs resume (only the new ones are done); fewer would leave finished runs
        if previous != described and not _more_runs(previous, described, suite):
            changed = "; ".join(config.differences(previous, described))
            raise ValueError(f"--out {out} holds a different suite ({grid}; {changed}); use "
                             "a new directory to run this grid (only [suite] runs may grow)")
    elif out.is_dir():
        # One listing, judged as a whole: a suite starting there creates its folder, then
        # its lock, so a folder holding the lock is a suite starting (judged again under
        # the lock). Asking "no lock?" and then "not empty?" could see the folder before
        # the lock and the lock itself after it, and refuse a suite that is starting.
        # (beside the lock, the temporary suite.json of a suite killed while writing it is
        # a suite starting too: `clean_partial` deletes it)
        entries = {entry.name for entry in out.iterdir()
                   if not is_own_temp_file(entry, (GRID_FILE, SUMMARY_FILE))}
        if (entries - {LOCK_FILE}) and (locked or LOCK_FILE not in entries):
            raise ValueError(f"--out {out} exists and is not a suite directory")


def _more_runs(previous: Any, described: dict[str, Any], suite: Suite) -> bool:
    """Whether ``described`` is ``previous`` with more runs (whose seeds do not change)."""
    try:
        grown = json.loads(json.dumps(previous))
        for *parents, key in suite.runs_keys:
            functools.reduce(operator.getitem, parents, grown)[key] = suite.runs
        return grown == described and suite.runs > previous["runs"]
    except (KeyError, TypeError):  # not a suite's description: not this suite either
        return False


#: Where the folders of unfinished runs that cannot be replaced are moved.
SET_ASIDE_DIR = "set-aside"


def _set_aside(out: Path, task: SuiteTask) -> None:
    """Move an unfinished run's folder out of the way when it may not be replaced.

    A run's folder is replaced when its run is redone only if it holds this very run
    (`hawks_deap.campaign.summary.holds_run`: its summary row was lost) and nothing
    hawks-deap did not write. Any other folder at its path (another suite's run, a
    ``generate`` output, what hawks-deap did not write, metadata that cannot be read)
    moves to ``out/set-aside/<name>-<i>`` (nothing deleted) with a warning, and the run
    is redone at its path.
    """
    folder = out / RUNS_DIR / task.name
    if not (folder.exists() or folder.is_symlink()):
        return
    try:
        check_replaceable(folder, by="a suite")
        if not holds_run(folder, task):
            raise ValueError(f"{folder} does not hold run {task.name} of this suite (seed "
                             f"{task.seed}) whole: another suite's or command's run, or one "
                             "cut short")
    except ValueError as error:
        check_set_aside_dir(out)  # re-checked right before the move: never through a link
        (out / SET_ASIDE_DIR).mkdir(exist_ok=True)
        aside = next(out / SET_ASIDE_DIR / f"{task.name}-{i}" for i in itertools.count(1)
                     if not os.path.lexists(out / SET_ASIDE_DIR / f"{task.name}-{i}"))
        folder.rename(aside)
        warnings.warn(f"{error}; moved to {aside} and the run is redone", RuntimeWarning,
                      stacklevel=2)


def check_set_aside_dir(out: Path) -> None:
    """Refuse a suite folder whose ``set-aside/`` is a symbolic link or not a folder.

    Folders a resume may not replace move there: never through a link (out of the
    suite's folder), never onto a file.

    Parameters
    ----------
    out : pathlib.Path
        The suite's folder (its ``set-aside/`` may be missing: it is created when needed).
    """
    check_real_dir(out, SET_ASIDE_DIR, link="moves run folders only within the suite's "
                   "folder", file="moves the run folders it may not replace there")


def cost_estimate(task: SuiteTask) -> float:
    """Relative cost of a run, to start the longest ones first (only the order matters).

    ``generations x population x N x (K + D)``: the silhouette and overlap work per
    evaluation grows with N (K + D); Versus runs (clustering calls) count ten times more.
    """
    v = task.values
    n = float(v.get("n_samples", 1)) * (float(v.get("n_clusters", 1))
                                        + float(v.get("n_dims", 1)))
    cost = float(v.get("generations", 1)) * float(v.get("population_size", 1)) * n
    return cost * (10.0 if task.command == "versus" else 1.0)


def _iter_processes(tasks: list[SuiteTask], out: str, workers: int
                    ) -> Iterator[dict[str, str]]:
    """The rows of ``tasks`` as they finish, in at most one worker per task.

    The workers die with this process (`hawks_deap._util.workers.suite_worker`): a suite
    killed alone leaves none writing run folders after its lock is gone.
    """
    workers = min(workers, len(tasks))
    if workers <= 1:
        for task in tasks:
            yield run_task(task, out)
        return
    import multiprocess

    # spawn: a forked child of a process that already ran OpenMP code (scikit-learn)
    # can deadlock in libgomp; fresh interpreters cannot.
    context = multiprocess.get_context("spawn")
    with main_not_reimported(), interrupts_ignored_by_workers():  # the workers start here
        pool = context.Pool(workers, initializer=suite_worker, initargs=(os.getpid(),))
    # a worker that dies (the out-of-memory killer) loses its run: waiting for it would
    # wait forever, so the suite stops there, its finished runs kept
    watch = PoolWatch(pool, "the suite", "its run is lost and the suite stops: run the "
                      "same command again to resume the runs not finished")
    finished = False
    try:
        rows = pool.imap_unordered(_run_task_star, [(t, out) for t in tasks])
        for _ in tasks:
            yield watch.wait(rows.next)
        finished = True
    finally:
        watch.stop(abandon=not finished)


def _todo(tasks: Sequence[SuiteTask], finished: Mapping[tuple[str, int], Any]
          ) -> list[SuiteTask]:
    """The tasks not ``finished``, in the order they start.

    Longest first (an estimate), so no long run starts last while workers idle; among
    equal costs run index first, so a suite stopped part way holds as many runs of each
    configuration. The order changes nothing in the results (seeds come from config and
    run).
    """
    todo = [t for t in tasks if (t.config_id, t.run) not in finished]
    todo.sort(key=lambda t: (-cost_estimate(t), t.run))
    return todo


def runs_to_do(out: Path, suite: Suite) -> list[SuiteTask]:
    """The suite's runs that ``out`` does not hold finished, in the order they start.

    Reads ``out`` only (its summary and run folders).

    Parameters
    ----------
    out : pathlib.Path
        The suite directory (it may not exist yet: every run).
    suite : Suite
        From `load_suite`.

    Returns
    -------
    list of SuiteTask
        Longest first (`cost_estimate`), run index first among equal costs.
    """
    tasks = suite.tasks()
    return _todo(tasks, finished_task_rows(out, tasks))


def check_memory(out: Path, suite: Suite, workers: int) -> None:
    """Refuse, before any run starts, first runs that together cannot fit in memory.

    The first ``workers`` runs still to do in ``out`` (longest first) start at once; each
    evaluation of each holds its problem's ``evaluation_bytes`` (Versus mode with a
    pairwise linkage: the distances). A problem's own check covers one run alone. Reads
    ``out`` only (`run_suite` checks it before taking the folder's lock).

    Parameters
    ----------
    out : pathlib.Path
        The suite directory (its finished runs are not counted).
    suite : Suite
        From `load_suite`.
    workers : int
        The processes that will run tasks at once.

    Raises
    ------
    ValueError
        Naming ``workers``, the bytes those runs need and the machine's memory.
    """
    if workers < 2:  # one run at a time: its problem checked itself (no pass over out)
        return
    first = runs_to_do(out, suite)[:workers]
    per_configuration: dict[str, int] = {}
    for task in first:
        if task.config_id not in per_configuration:
            per_configuration[task.config_id] = build_problem(task.command,
                                                              task.values).evaluation_bytes
    need = sum(per_configuration[task.config_id] for task in first)
    if len(first) > 1 and need:
        check_fits(f"the first {len(first)} runs at once (longest first; their evaluations' "
                   "pairwise distances)", need, {"workers": workers})


def run_suite(suite: Suite, out: str | os.PathLike, *, workers: int = 1,
              backend: str = "processes", scheduler: str | None = None,
              progress: bool = False, client: Any = None,
              on_row: Callable[[dict[str, str]], None] | None = None) -> Path:
    """Run (or resume) a suite into ``out``; returns the path of ``summary.csv``.

    Parameters
    ----------
    suite : Suite
        From `load_suite`.
    out : path
        Output directory (created; one of the same suite, or fewer runs, is resumed).
    workers : int
        Processes running tasks at once (local processes, or LocalCluster workers): at
        most `hawks_deap._util.workers.MAX_WORKERS` (else ``ValueError``); no more are
        started than there are runs to do. ``ValueError`` too, before any run, when the
        first runs (longest first) cannot all fit in this machine's memory at once
        (Versus runs with a pairwise linkage: their distances).
    backend : {"processes", "dask"}
        Local processes (no server needed), or ``dask.distributed``.
    scheduler : str, optional
        Address of an existing dask scheduler (``tcp://host:8786``); a LocalCluster
        with ``workers`` workers when omitted.
    progress : bool
        A tqdm progress bar over runs.
    client : dask.distributed.Client, optional
        Use this client instead of making one.
    on_row : callable, optional
        Called with each new summary row (after it is written).
    """
    check_not_reimported("run_suite")
    if not isinstance(suite, Suite):
        raise TypeError(f"suite must be a Suite (hawks_deap.campaign.suite.load_suite reads a grid "
                        f"file), got {type(suite).__name__}")
    workers = check_workers("workers", workers)
    check_choice("backend", backend, BACKENDS)
    progress = check_bool("progress", progress)
    if on_row is not None and not callable(on_row):
        raise TypeError(f"on_row must be callable or None, got {type(on_row).__name__}")
    if backend != "dask" and (scheduler is not None or client is not None):
        raise ValueError(f"{'scheduler' if client is None else 'client'} needs "
                         f"backend='dask', got backend={backend!r}")
    if workers != 1 and (scheduler is not None or client is not None):
        raise ValueError(f"workers={workers} starts a LocalCluster of that many workers; "
                         "with a scheduler or a client their own workers run the suite")
    out = Path(out)
    own_client = None
    check_output(out, suite)  # before any work (a file, another suite), a cluster included
    check_memory(out, suite, workers)
    if backend == "dask" and client is None:  # (no more workers than runs to do)
        own_client = client = connect_dask(max(1, min(workers, len(runs_to_do(out, suite)))),
                                           scheduler)
    abandon = True  # (a Ctrl-C or an error: the runs still running are not wanted)
    try:
        with suite_lock(out):
            check_output(out, suite, locked=True)  # again: no other process writes now
            _run_locked(suite, out, workers, backend, client, progress, on_row)
        abandon = False
    finally:
        if own_client is not None:
            close_dask(own_client, abandon=abandon)
    return out / SUMMARY_FILE


def _run_locked(suite: Suite, out: Path, workers: int, backend: str, client: Any,
                progress: bool, on_row: Callable[[dict[str, str]], Any] | None) -> None:
    """`run_suite`'s work, with the folder's lock held."""
    from hawks_deap.io.environment import environment

    # the environment of the process that last started the suite (each run's
    # metadata.json records its own); not part of the grid compared on resume
    described = {**suite.describe(), GRID_ENVIRONMENT: environment()}
    write_text_atomic(out / GRID_FILE,
                      json.dumps(described, indent=2, sort_keys=True, default=str) + "\n")
    tasks = suite.tasks()
    # (refuses a runs/ that is a link)
    clean_partial(out, (t.name for t in tasks), files=(SUMMARY_FILE, GRID_FILE))
    rows = finished_task_rows(out, tasks)
    todo = _todo(tasks, rows)
    for task in todo:
        _set_aside(out, task)
    from tqdm.auto import tqdm

    total = len(rows) + len(todo)
    bar = tqdm(total=total, initial=len(rows), disable=not progress, desc="runs")
    results: Iterable[dict[str, str]]
    if backend == "dask":
        results = iter_dask(run_task, todo, str(out), client)
    else:
        results = _iter_processes(todo, str(out), workers)
    try:
        # closed here, whatever stops the loop: the workers stop before the lock is let go
        # (a second suite could then take it while they still wrote run folders)
        with contextlib.closing(iter(results)) as stream:  # type: ignore[type-var]
            for row in stream:
                rows[(row["config_id"], int(row["run"]))] = row
                write_text_atomic(out / SUMMARY_FILE, summary_text(rows))
                bar.update(1)
                if on_row is not None:
                    on_row(row)
    finally:
        bar.close()
    # rows that did not check out are gone from the summary once every run is done
    write_text_atomic(out / SUMMARY_FILE, summary_text(rows))
