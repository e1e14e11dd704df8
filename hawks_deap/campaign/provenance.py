"""What a run ran on, and whether a saved run regenerates here.

The reproducibility contract (README, "Reproducibility"):

- **Same environment, same bytes.** The same seed and settings, with the same
  hawks-deap, Python, numpy, scipy, scikit-learn and DEAP versions and the same native
  kernels (the BLAS library and the CPU kernel it picked), give byte-identical files.
- **Elsewhere, the same path to a tolerance, as a rule.** Under other kernels or library
  versions a run takes the same evolutionary path (the same selections, evaluation and
  feasibility counts, and labels) and its values agree to `ATOL` plus `RTOL` times the
  largest magnitude of their kind (`tolerance_used`): floating-point sums and products are
  rounded differently by different kernels (the last bits of the points), not the model.
  The exception: where two different individuals' fitness values tie exactly under one
  kernel and not under the other, selection orders them differently and the paths part
  (one run of 576 measured, see the reproducibility guide).

`environment` is what every run records (``metadata.json``'s ``"environment"``, and
``suite.json``'s); `environment_differences` names what changed between two records;
`verify` runs a saved run's recorded settings and seed again and compares every file it
wrote.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hawks_deap._util.files import read_json
from hawks_deap.io.environment import environment, environment_differences
from hawks_deap.settings.options import COMMANDS

__all__ = ["ATOL", "RTOL", "Verification", "check_verifiable", "environment",
           "environment_differences", "tolerance_used", "verify"]

#: Across kernels and library versions, values agree to this tolerance relative to the
#: largest magnitude among the values of their kind (`tolerance_used`) ...
RTOL = 1e-9
#: ... plus this absolute one (values that are differences of larger ones: a fitness
#: ``abs(s_t - s)`` of 2e-5 carries the rounding of silhouettes near 0.5).
ATOL = 1e-12

#: ``metadata.json`` entries of the environment, not of the run: `environment_differences`
#: compares them (the package's version is also in the environment record).
ENVIRONMENT_KEYS = ("environment", "version")

#: Logbook columns that are counts: part of the path, compared exactly.
PATH_COLUMNS = ("gen", "nevals", "n_feasible")


def tolerance_used(old: Any, new: Any) -> float:
    """The share of the tolerance that two arrays of values of one kind use (<= 1: within).

    ``max |a - b| / (ATOL + RTOL * s)``, with ``s`` the largest magnitude in either
    array: the tolerance is normwise, as rounding errors are, since a value near zero (a
    coordinate of a rotated cluster, say) carries the rounding of the larger terms it came
    from; ``ATOL`` covers kinds that are all small differences of larger values (a
    fitness near its target). Never tighter than the element-wise ``|a - b| <= ATOL +
    RTOL |a|``. ``inf`` for different shapes, NaN in different places or an infinity
    that differs.

    Parameters
    ----------
    old, new : array_like
        The saved values and the values made again (e.g. a run's points).

    Returns
    -------
    float
        0.0 when equal.
    """
    a, b = np.asarray(old, dtype=float), np.asarray(new, dtype=float)
    if a.shape != b.shape or not np.array_equal(np.isnan(a), np.isnan(b)):
        return math.inf
    ok = ~np.isnan(a) & (a != b)  # (equal infinities are equal)
    if not ok.any():
        return 0.0
    gap = float(np.abs(a[ok] - b[ok]).max())
    finite = np.isfinite(a) & np.isfinite(b)
    scale = float(np.maximum(np.abs(a[finite]), np.abs(b[finite])).max(initial=0.0))
    return math.inf if not math.isfinite(gap) else gap / (ATOL + RTOL * scale)


@dataclass(frozen=True)
class Verification:
    """The outcome of `verify`: a saved run compared with the same run made again here.

    Attributes
    ----------
    path : pathlib.Path
        The run directory.
    identical : bool
        Every file the run wrote is there with the same bytes (``metadata.json`` apart
        from its ``environment`` entry, which `environment_differences` compares).
    same_path : bool
        The same labels, partitions, logbook counts (`PATH_COLUMNS`), and the same
        structure of genes and metadata, integers included: the evolutionary path.
    max_abs_difference : float
        Largest absolute difference over the points, the genes, the fitness, the
        metadata's and the logbook's values (0.0 when identical).
    max_rel_difference : float
        The same, relative to the larger magnitude of the two values (where non-zero).
    within_tolerance : bool
        ``same_path`` and every kind of value within the tolerance (`tolerance_used` <= 1).
    environment_differences : list of str
        What differs between the recorded environment and this one
        (`environment_differences`).
    tolerance_used : float
        The largest `tolerance_used` over the kinds of values.
    missing : tuple of str
        Files the run wrote that are not in the directory.
    differing : tuple of str
        Files whose bytes differ from those the run writes again.
    """

    path: Path
    identical: bool
    same_path: bool
    max_abs_difference: float
    max_rel_difference: float
    within_tolerance: bool
    environment_differences: list[str] = field(default_factory=list)
    tolerance_used: float = 0.0
    missing: tuple[str, ...] = ()
    differing: tuple[str, ...] = ()

    @property
    def holds(self) -> bool:
        """Whether the contract holds: identical, or within the tolerance elsewhere."""
        return self.identical or (self.within_tolerance and bool(self.environment_differences))

    def summary(self) -> str:
        """One line: identical, equal within the tolerance, or different, and why."""
        files = f" in {', '.join(self.differing)}" if self.differing else ""
        if self.missing:
            verdict = f"INCOMPLETE (not in the folder: {', '.join(self.missing)})"
        elif self.identical:
            verdict = "identical (every file, byte for byte)"
        elif self.within_tolerance:
            verdict = (f"same path, values within the tolerance{files} (largest difference "
                       f"{self.max_abs_difference:.3g} absolute, {self.max_rel_difference:.3g}"
                       f" relative; {100 * self.tolerance_used:.3g}% of the tolerance, atol "
                       f"{ATOL:g} + rtol {RTOL:g} of the largest value of each kind)")
            if not self.environment_differences:
                verdict += (": NOT identical although the environment is the same (the "
                            "bytes should be)")
        elif not self.same_path:
            verdict = (f"DIFFERENT path{files} (labels, partitions, evaluation or feasibility"
                       " counts, or the genes' or metadata's structure differ)")
        else:
            verdict = (f"DIFFERENT values{files} (largest difference "
                       f"{self.max_abs_difference:.3g} absolute, {self.max_rel_difference:.3g}"
                       f" relative; {self.tolerance_used:.3g} times the tolerance)")
        env = ("same environment" if not self.environment_differences else
               "environment differs: " + "; ".join(self.environment_differences))
        return f"{self.path}: {verdict}; {env}"


def _differences(a: Any, b: Any) -> tuple[float, float]:
    """Largest absolute and relative differences of two equal-shaped float arrays."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.size == 0:
        return 0.0, 0.0
    both_nan = np.isnan(a) & np.isnan(b)
    diff = np.where(both_nan | (a == b), 0.0, np.abs(a - b))
    scale = np.maximum(np.abs(a), np.abs(b))
    rel = np.divide(diff, scale, out=np.zeros_like(diff), where=scale > 0)
    diff, rel = np.nan_to_num(diff, nan=np.inf), np.nan_to_num(rel, nan=np.inf)
    return float(diff.max()), float(rel.max())


def _numbers(tree: Any) -> tuple[str, dict[str, list[float]]]:
    """A JSON value's structure and its floating-point values, by kind.

    The structure (as text) holds the keys, list lengths, strings, booleans and integers
    (counts and sizes: part of the path); the floats are grouped by their key path
    without list positions (``clusters.mean``), one kind of value each.
    """
    numbers: dict[str, list[float]] = {}

    def walk(value: Any, kind: str) -> Any:
        if isinstance(value, dict):
            return {key: walk(value[key], f"{kind}.{key}") for key in sorted(value)}
        if isinstance(value, list):
            return [walk(item, kind) for item in value]
        if isinstance(value, float):
            numbers.setdefault(kind, []).append(value)
            return 0.0
        return value

    return json.dumps(walk(tree, ""), sort_keys=True), numbers


def _logbook_values(rows: list[dict[str, Any]]) -> tuple[tuple[str, ...], np.ndarray]:
    keys = tuple(sorted({key for row in rows for key in row}))
    values = np.array([[float(row.get(key, np.nan)) for key in keys] for row in rows],
                      dtype=float).reshape(len(rows), len(keys))
    return keys, values


def verify(path: str | os.PathLike, *, n_jobs: int | None = None) -> Verification:
    """Run a saved run again from its recorded settings and seed, and compare.

    The run directory must have been written by ``hawks-deap generate``, ``versus`` or a
    suite (its ``metadata.json`` records the command, its settings and the seed). The
    run is evolved again (as long as it first took) and nothing is written. Every file
    the run wrote is compared: the points, ``genes.json``, ``metadata.json`` (its
    ``environment`` entry apart), ``logbook.csv`` and a Versus run's ``partitions.csv``.

    Parameters
    ----------
    path : str or os.PathLike
        The run directory.
    n_jobs : int, optional
        Evaluation processes for the repeat (results never depend on it; None:
        `hawks_deap.evolve`'s default, one per core in Versus mode, 1 otherwise).

    Returns
    -------
    Verification
        Identical bytes, or the largest difference and whether it is within the
        contract's tolerance, with what differs in the environment
        (`Verification.holds`: whether the contract holds).

    Raises
    ------
    ValueError
        If ``path`` is not a dataset directory, or its metadata does not record the
        command, settings and seed of a run.
    """
    from hawks_deap._util.workers import check_workers
    from hawks_deap.algorithms.result import partitions_source
    from hawks_deap.campaign import runs
    from hawks_deap.io.dataset import DATA_NPZ, METADATA_FILE, Dataset

    if n_jobs is not None:
        n_jobs = check_workers("n_jobs", n_jobs)
    path = Path(path)
    command = check_verifiable(path)
    meta = read_json(path / METADATA_FILE)  # (a JSON object: check_verifiable)
    try:
        saved: Dataset | None = Dataset.load(path)
    except ValueError:  # files no run writes together (edited): compared as bytes alone
        saved = None
    values = {**command["settings"], "n_jobs": n_jobs}
    problem = runs.build_problem(command["name"], values)
    run = runs.run_configuration(problem, values, seed=meta["seed"])
    again = run.dataset
    # what the caller added to the metadata (the command, a suite's task) and the
    # environment are the saved ones: the first made this run, the second is compared
    # on its own (`environment_differences`)
    again.metadata.update({key: value for key, value in meta.items()
                           if key not in again.metadata or key == "environment"})
    expected = again.files("npz" if (path / DATA_NPZ).is_file() else "csv")
    versus = partitions_source(problem, None) is not None
    expected.update({name: text.encode("utf-8")
                     for name, text in run.files(partitions=versus).items()})
    missing = tuple(name for name in expected if not (path / name).is_file())
    differing = tuple(name for name in expected if name not in missing
                      and (path / name).read_bytes() != expected[name])
    same_path, kinds = (False, []) if saved is None else _value_pairs(
        path, saved, again, expected, run.result.logbook)
    within = same_path and not missing
    used, abs_diff, rel_diff = _compare(kinds)
    within = within and used <= 1.0
    identical = not missing and not differing
    return Verification(path, identical, bool(same_path), abs_diff, rel_diff, bool(within),
                        environment_differences(meta.get("environment")), used, missing,
                        differing)


def _value_pairs(path: Path, saved: Any, again: Any, expected: dict[str, bytes],
                 logbook: list[Any]) -> tuple[bool, list[tuple[Any, Any]]]:
    """(same path, the (saved, again) values of each kind): points, genes, metadata, logbook.

    The path: the labels, a Versus run's partitions, the logbook's counts
    (`PATH_COLUMNS`) and the structure (integers included) of the genes and the metadata.
    ``expected``: the files the run writes again; ``logbook``: its rows.
    """
    from hawks_deap.io.dataset import GENES_FILE, METADATA_FILE, PARTITIONS_FILE

    if saved.X.shape != again.X.shape or not np.array_equal(saved.y, again.y):
        return False, []
    kinds: list[tuple[Any, Any]] = [(saved.X, again.X)]
    same_path = True
    for name in (GENES_FILE, METADATA_FILE):
        if not (path / name).is_file():
            continue
        new = json.loads(expected[name])
        old = read_json(path / name)  # (Dataset.load read both: valid JSON objects)
        if name == METADATA_FILE:  # (the environment, and the version in it, apart)
            new = {key: value for key, value in new.items() if key not in ENVIRONMENT_KEYS}
            old = {key: old.get(key) for key in new}
        (old_shape, old_numbers), (new_shape, new_numbers) = _numbers(old), _numbers(new)
        if old_shape != new_shape or old_numbers.keys() != new_numbers.keys():
            return False, kinds
        kinds += [(old_numbers[k], new_numbers[k]) for k in sorted(new_numbers)]
    if PARTITIONS_FILE in expected and (path / PARTITIONS_FILE).is_file():
        # integer labels: any other byte is another partition
        same_path &= (path / PARTITIONS_FILE).read_bytes() == expected[PARTITIONS_FILE]
    old_log = _read_logbook(path)
    if old_log is not None and same_path:
        new_log = [{k: v for k, v in dict(row).items()
                    if isinstance(v, int | float | np.number)} for row in logbook]
        old_keys, old_values = _logbook_values(old_log)
        new_keys, new_values = _logbook_values(
            [{k: v for k, v in row.items() if k in old_keys} for row in new_log])
        if old_keys != new_keys or old_values.shape != new_values.shape:
            return False, kinds
        counts = [i for i, key in enumerate(old_keys) if key in PATH_COLUMNS]
        same_path &= np.array_equal(old_values[:, counts], new_values[:, counts])
        kinds += [(old_values[:, i], new_values[:, i]) for i in range(len(old_keys))
                  if i not in counts]
    return bool(same_path), kinds


def _compare(kinds: list[tuple[Any, Any]]) -> tuple[float, float, float]:
    """(the largest `tolerance_used`, the largest absolute and relative differences)."""
    used = abs_diff = rel_diff = 0.0
    for old, new in kinds:
        used = max(used, tolerance_used(old, new))
        if np.shape(old) == np.shape(new):
            a, r = _differences(old, new)
            abs_diff, rel_diff = max(abs_diff, a), max(rel_diff, r)
    return used, abs_diff, rel_diff


def check_verifiable(path: str | os.PathLike) -> dict[str, Any]:
    """The recorded command of a run directory that `verify` can repeat.

    Parameters
    ----------
    path : str or os.PathLike
        The run directory.

    Returns
    -------
    dict
        ``metadata.json``'s ``"command"``: ``name`` and ``settings``.

    Raises
    ------
    ValueError
        If ``path`` is not a dataset directory, or naming the file when its metadata does
        not record a run's command, settings and seed (a dataset saved from the Python
        API, a battery's, an older format).
    """
    from hawks_deap.io.dataset import DATA_FILE, DATA_NPZ, METADATA_FILE, is_dataset_dir

    if not is_dataset_dir(path):
        raise ValueError(f"RUN {path} is not a run directory (no {DATA_FILE} or {DATA_NPZ})")
    file = Path(path) / METADATA_FILE
    meta = read_json(file)
    command = meta.get("command") if isinstance(meta, dict) else None
    if (not isinstance(command, dict) or not isinstance(command.get("settings"), dict)
            or command.get("name") not in COMMANDS or "seed" not in meta):
        raise ValueError(f"{file} does not record a run's command, settings and seed (only "
                         f"directories written by `hawks-deap {'`, `'.join(COMMANDS)}` or "
                         "`suite` can be verified)")
    space = command["settings"].get("space")
    if isinstance(space, str):
        found = _space_file(Path(path), Path(space), meta.get("problem"))
        command = {**command, "settings": {**command["settings"], "space": str(found)}}
    return command


#: Folders `verify` searches for a target run's instance space when the recorded path is
#: gone: the run's own and this many above it (a fill's runs sit three below its space).
SPACE_SEARCH_DEPTH = 5


def _space_file(run: Path, space: Path, problem: Any) -> Path:
    """A target run's instance space file: the recorded one, or found again after a move.

    Suites and fills record the space's absolute path; a moved (or copied) study keeps
    the file beside the run folders' ancestors. A file counts only if it is the space the
    run used: its feature names, mean, scale and components equal those the run's
    metadata records (``problem``), bit for bit; the recorded path first (it may hold
    another space now: another study written there since), then a file of its name in
    the run's folder and the `SPACE_SEARCH_DEPTH` above it.
    """
    from hawks_deap.analysis.features import InstanceSpace

    folders = [run.resolve(), *run.resolve().parents][:SPACE_SEARCH_DEPTH + 1]
    recorded = problem if isinstance(problem, dict) else {}
    for candidate in [space, *(folder / space.name for folder in folders)]:
        if not candidate.is_file():
            continue
        try:
            loaded = InstanceSpace.load(candidate)
        except ValueError:
            continue
        # (a loaded space is fitted)
        assert loaded.components_ is not None and loaded.mean_ is not None
        assert loaded.scale_ is not None
        if (list(loaded.feature_names) == recorded.get("feature_names")
                and loaded.mean_.tolist() == recorded.get("space_mean")
                and loaded.scale_.tolist() == recorded.get("space_scale")
                and loaded.components_.tolist() == recorded.get("components")):
            return candidate
    state = "holds another space" if space.is_file() else "is gone"
    raise ValueError(f"RUN {run}: its instance space {space} {state}, and no {space.name} "
                     f"holding the space it used is in the run's folder or the "
                     f"{SPACE_SEARCH_DEPTH} above it (put the study's {space.name} back)")


def _read_logbook(path: Path) -> list[dict[str, Any]] | None:
    from hawks_deap.campaign.runs import read_logbook_csv
    from hawks_deap.io.dataset import LOGBOOK_FILE

    if not (path / LOGBOOK_FILE).is_file():
        return None
    return [dict(row) for row in read_logbook_csv(path / LOGBOOK_FILE)]
