"""What a run ran on, and whether a saved run regenerates here.

The reproducibility contract (README, "Reproducibility"):

- **Same environment, same bytes.** The same seed and settings, with the same
  hawks-deap, Python, numpy, scipy, scikit-learn and DEAP versions and the same native
  kernels (the BLAS library and the CPU kernel it picked), give byte-identical files.
- **Elsewhere, the same path to a tolerance.** Under other kernels or library versions a
  run takes the same evolutionary path (the same selections, the same number of
  generations and the same labels) and its values agree to `RTOL` relative, `ATOL`
  absolute: floating-point sums and products are rounded differently by different
  kernels (the last bits of the points), not the model.

`environment` is what every run records (``metadata.json``'s ``"environment"``, and
``suite.json``'s); `environment_differences` names what changed between two records;
`verify` runs a saved run's recorded settings and seed again and compares.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hawks_deap._util.files import read_json
from hawks_deap.io.environment import environment, environment_differences
from hawks_deap.settings.options import COMMANDS

__all__ = ["ATOL", "RTOL", "Verification", "check_verifiable", "environment",
           "environment_differences", "verify"]

#: Across kernels and library versions, values agree to this relative tolerance...
RTOL = 1e-9
#: ... or this absolute one (values near zero).
ATOL = 1e-12


@dataclass(frozen=True)
class Verification:
    """The outcome of `verify`: a saved run compared with the same run made again here.

    Attributes
    ----------
    path : pathlib.Path
        The run directory.
    identical : bool
        The points' file and ``genes.json`` are the same bytes.
    same_path : bool
        The same labels, number of generations and logbook shape (the evolutionary path).
    max_abs_difference : float
        Largest absolute difference over the points, the genes' arrays, the fitness and
        the logbook's values (0.0 when identical).
    max_rel_difference : float
        The same, relative to the larger magnitude of the two values (where non-zero).
    within_tolerance : bool
        ``same_path`` and every value equal to `RTOL` relative or `ATOL` absolute.
    environment_differences : list of str
        What differs between the recorded environment and this one
        (`environment_differences`).
    """

    path: Path
    identical: bool
    same_path: bool
    max_abs_difference: float
    max_rel_difference: float
    within_tolerance: bool
    environment_differences: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: identical, equal within the tolerance, or different, and why."""
        if self.identical:
            verdict = "identical (byte for byte)"
        elif self.within_tolerance:
            verdict = (f"same path, values within the tolerance (largest difference "
                       f"{self.max_abs_difference:.3g} absolute, {self.max_rel_difference:.3g}"
                       f" relative; rtol {RTOL:g}, atol {ATOL:g})")
        elif not self.same_path:
            verdict = "DIFFERENT path (labels, generations or logbook differ)"
        else:
            verdict = (f"DIFFERENT values (largest difference {self.max_abs_difference:.3g}"
                       f" absolute, {self.max_rel_difference:.3g} relative)")
        env = ("same environment" if not self.environment_differences else
               "environment differs: " + "; ".join(self.environment_differences))
        return f"{self.path}: {verdict}; {env}"


def _differences(a: Any, b: Any) -> tuple[float, float]:
    """Largest absolute and relative differences of two equal-shaped float arrays."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.size == 0:
        return 0.0, 0.0
    both_nan = np.isnan(a) & np.isnan(b)
    diff = np.where(both_nan, 0.0, np.abs(a - b))
    scale = np.maximum(np.abs(a), np.abs(b))
    rel = np.divide(diff, scale, out=np.zeros_like(diff), where=scale > 0)
    diff, rel = np.nan_to_num(diff, nan=np.inf), np.nan_to_num(rel, nan=np.inf)
    return float(diff.max()), float(rel.max())


def _numbers(tree: Any) -> tuple[str, list[float]]:
    """A JSON value's structure (its keys and list lengths, as text) and its numbers."""
    numbers: list[float] = []

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: walk(value[key]) for key in sorted(value)}
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, int | float) and not isinstance(value, bool):
            numbers.append(float(value))
            return 0
        return value

    return json.dumps(walk(tree), sort_keys=True), numbers


def _logbook_values(rows: list[dict[str, Any]]) -> tuple[tuple[str, ...], np.ndarray]:
    keys = tuple(sorted({key for row in rows for key in row}))
    values = np.array([[float(row.get(key, np.nan)) for key in keys] for row in rows],
                      dtype=float).reshape(len(rows), len(keys))
    return keys, values


def verify(path: str | os.PathLike, *, n_jobs: int | None = None) -> Verification:
    """Run a saved run again from its recorded settings and seed, and compare.

    The run directory must have been written by ``hawks-deap generate``, ``versus`` or a
    suite (its ``metadata.json`` records the command, its settings and the seed). The
    run is evolved again (as long as it first took) and nothing is written.

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
        contract's tolerance, with what differs in the environment.

    Raises
    ------
    ValueError
        If ``path`` is not a dataset directory, or its metadata does not record the
        command, settings and seed of a run.
    """
    from hawks_deap._util.workers import check_workers
    from hawks_deap.campaign import runs
    from hawks_deap.io.dataset import GENES_FILE, Dataset

    if n_jobs is not None:
        n_jobs = check_workers("n_jobs", n_jobs)
    path = Path(path)
    command = check_verifiable(path)
    saved = Dataset.load(path)
    meta = saved.metadata
    values = {**command["settings"], "n_jobs": n_jobs}
    problem = runs.build_problem(command["name"], values)
    run = runs.run_configuration(problem, values, seed=meta["seed"])
    again = run.dataset

    same_points = _same_points(path, saved, again)
    # genes.json as saved and as it would be saved now (what save writes: `_numbers`
    # compares its values, the covariances R diag(v) R^T included)
    old_genes = read_json(path / GENES_FILE)  # (Dataset.load read it: it is valid JSON)
    assert again.genotype is not None  # a run's dataset has its genotype
    new_genes = json.loads(json.dumps({"sizes": again.sizes.tolist(),
                                       "clusters": [g.to_dict() for g in again.genotype]}))
    same_genes = old_genes == new_genes
    new_log = [{k: v for k, v in dict(row).items() if isinstance(v, int | float | np.number)}
               for row in run.result.logbook]
    same_path, pairs = _value_pairs(saved, again, (old_genes, new_genes),
                                    (_read_logbook(path), new_log))
    same_path, within, abs_diff, rel_diff = _compare(pairs, same_path)
    identical = bool(same_points and same_genes and same_path and abs_diff == 0.0)
    return Verification(path, identical, bool(same_path), abs_diff, rel_diff,
                        bool(within), environment_differences(meta.get("environment")))


def _same_points(path: Path, saved: Any, again: Any) -> bool:
    """The saved points' bytes equal those of the run made again."""
    from hawks_deap.io.dataset import DATA_FILE

    if (path / DATA_FILE).is_file():
        return (path / DATA_FILE).read_bytes() == again.to_csv_text().encode("utf-8")
    # npz: compare the arrays exactly (the archive's own bytes hold timestamps)
    return (saved.X.dtype == again.X.dtype and saved.X.shape == again.X.shape
            and saved.X.tobytes() == again.X.tobytes())


def _value_pairs(saved: Any, again: Any, genes: tuple[Any, Any],
                 logs: tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]
                 ) -> tuple[bool, list[tuple[Any, Any]]]:
    """(same path, the (saved, again) values to compare): points, genes, fitness, logbook."""
    old_log, new_log = logs
    same_path = (saved.X.shape == again.X.shape and np.array_equal(saved.y, again.y)
                 and len(saved.genotype or ()) == len(again.genotype)
                 and (old_log is None or len(old_log) == len(new_log)))
    pairs: list[tuple[Any, Any]] = []
    if not same_path:
        return False, pairs
    pairs.append((saved.X, again.X))
    (old_shape, old_numbers), (new_shape, new_numbers) = map(_numbers, genes)
    same_path = old_shape == new_shape
    pairs.append((old_numbers, new_numbers))
    old_fit, new_fit = saved.metadata.get("fitness", []), again.metadata.get("fitness", [])
    if len(old_fit) == len(new_fit):
        pairs.append((old_fit, new_fit))
    else:
        same_path = False
    if old_log is not None and same_path:
        old_keys, old_values = _logbook_values(old_log)
        new_keys, new_values = _logbook_values(
            [{k: v for k, v in row.items() if k in old_keys} for row in new_log])
        if old_keys != new_keys:
            same_path = False
        else:
            pairs.append((old_values, new_values))
    return same_path, pairs


def _compare(pairs: list[tuple[Any, Any]], same_path: bool
             ) -> tuple[bool, bool, float, float]:
    """(same path, within the tolerance, largest absolute and relative differences)."""
    abs_diff = rel_diff = 0.0
    within = same_path
    for old, new in pairs:
        old, new = np.asarray(old, dtype=float), np.asarray(new, dtype=float)
        if old.shape != new.shape:
            same_path = within = False
            continue
        a, r = _differences(old, new)
        abs_diff, rel_diff = max(abs_diff, a), max(rel_diff, r)
        within = within and bool(np.allclose(old, new, rtol=RTOL, atol=ATOL, equal_nan=True))
    return same_path, within, abs_diff, rel_diff


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
    if isinstance(space, str) and not Path(space).is_file():
        found = _moved_space(Path(path), Path(space), meta.get("problem"))
        command = {**command, "settings": {**command["settings"], "space": str(found)}}
    return command


#: Folders `verify` searches for a target run's instance space when the recorded path is
#: gone: the run's own and this many above it (a fill's runs sit three below its space).
SPACE_SEARCH_DEPTH = 5


def _moved_space(run: Path, space: Path, problem: Any) -> Path:
    """A target run's instance space file, found again after its study folder moved.

    Suites and fills record the space's absolute path; a moved (or copied) study keeps
    the file beside the run folders' ancestors. A candidate of the same name counts only
    if it is the space the run used: its feature names, mean, scale and components equal
    those the run's metadata records (``problem``), bit for bit.
    """
    from hawks_deap.analysis.features import InstanceSpace

    folders = [run.resolve(), *run.resolve().parents][:SPACE_SEARCH_DEPTH + 1]
    recorded = problem if isinstance(problem, dict) else {}
    for folder in folders:
        candidate = folder / space.name
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
    raise ValueError(f"RUN {run}: its instance space {space} is gone, and no {space.name} "
                     f"holding the space it used is in the run's folder or the "
                     f"{SPACE_SEARCH_DEPTH} above it (put the study's {space.name} back)")


def _read_logbook(path: Path) -> list[dict[str, Any]] | None:
    from hawks_deap.campaign.runs import read_logbook_csv
    from hawks_deap.io.dataset import LOGBOOK_FILE

    if not (path / LOGBOOK_FILE).is_file():
        return None
    return [dict(row) for row in read_logbook_csv(path / LOGBOOK_FILE)]
