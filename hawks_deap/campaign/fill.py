"""Fill the gaps of an instance space: ``hawks-deap fill COLLECTION... --n 50 --out DIR``.

1. The collection's problem features (`features_table`) fit an `InstanceSpace` (PCA of
   the standardised features, 2-D), saved as ``DIR/space.json``.
2. The region is the convex hull of the collection's points, cut into cells
   (`hawks_deap.analysis.gaps.CoverageGrid`); the generator's reach is modelled from the
   collection's generated datasets (`Reach`: the range of their targetable features,
   for every candidate K and D); `plan_gaps` picks ``n`` empty cells the generator can
   reach, largest holes first, with a (K, D) for each.
3. One Feature-target run per target (`hawks_deap.problems.SpaceTargetProblem`, its
   ``point`` the cell's centre) runs as a suite in ``DIR/suite``: in parallel (local
   processes or dask), resumable (run the same command again), locked.
4. The report (``DIR/fill.json``, ``DIR/targets.csv``, ``DIR/fill.png``): where each
   filled dataset landed (its features measured on the saved dataset), its distance
   to its target, and the coverage of the region before and after.

The plan is a function of the collection and the arguments only, so the same command
gives the same targets, seeds and datasets; a folder holding another fill is refused.
"""

from __future__ import annotations

import csv
import io
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hawks_deap._util.validation import check_float, check_int
from hawks_deap.campaign.seed_keys import configuration_values, key_values
from hawks_deap.campaign.suite import Suite, check_output, run_suite
from hawks_deap.campaign.summary import LOCK_FILE, check_lock_file, suite_lock, summary_rows
from hawks_deap.io.dataset import write_text_atomic
from hawks_deap.settings.model import RunSettings

__all__ = ["FILL_DEFAULTS", "FILL_FILES", "FillPlan", "check_fill_dir", "check_settings",
           "fill_report", "fill_suite", "plan_fill", "run_fill"]

#: The files of a fill's folder.
FILL_FILES: Mapping[str, str] = {"space": "space.json", "targets": "targets.csv",
                                 "suite": "suite", "report": "fill.json",
                                 "figure": "fill.png"}
#: Settings of the runs where a fill differs from ``hawks-deap target``'s defaults:
#: 250 generations, measured to bring the median distance to a target under 0.1
#: (BENCHMARKS.md, "Filling an instance space").
FILL_DEFAULTS: Mapping[str, Any] = {"generations": 250}
#: Settings a fill sets for each run (or refuses: one seed per run, runs in parallel).
_PLANNED = ("n_clusters", "n_dims", "targets", "weights", "scale", "space", "point", "seed",
            "n_jobs")


@dataclass(frozen=True)
class FillPlan:
    """What a fill runs: the collection's space and points, the targets and their runs.

    Attributes
    ----------
    names, sources : list of str
        The collection's datasets and where each came from.
    points : numpy.ndarray of shape (n_datasets, 2)
        Their coordinates in ``space``.
    space : InstanceSpace
        Fitted on the collection.
    plan : GapPlan
        The targets, their (K, D) and margins, and the region's grid.
    generated : numpy.ndarray of bool
        The datasets whose features set the reach (made by a generator).
    settings : dict
        The runs' other settings (flat, as `hawks_deap.settings.model.RunSettings` reads).
    """

    names: list[str]
    sources: list[str]
    points: np.ndarray
    space: Any
    plan: Any
    generated: np.ndarray
    settings: dict[str, Any]


def check_settings(settings: Mapping[str, Mapping[str, Any]] | None
                   ) -> dict[str, dict[str, Any]]:
    """The runs' settings by section: `FILL_DEFAULTS` under ``settings``, checked.

    Parameters
    ----------
    settings : mapping, optional
        ``{section: {key: value}}`` of ``hawks-deap target``'s schema, without what the
        fill sets for each run (K, D, the objective, the seed, ``n_jobs``).

    Returns
    -------
    dict
        ``{"dataset": ..., "constraints": ..., "ga": ...}``.

    Raises
    ------
    ValueError, TypeError
        Naming the setting.
    """
    from hawks_deap.settings import config

    given = dict(settings or {})
    for section, table in given.items():
        for key in table:
            if key in _PLANNED:
                raise ValueError(f"[{section}] {key} is set by the fill for each run")
    validated = config.validate_config(given, command="target")
    merged: dict[str, dict[str, Any]] = {"dataset": {}, "constraints": {}, "ga": {}}
    for key, value in FILL_DEFAULTS.items():
        merged["ga"][key] = value
    for section, table in validated.items():
        merged.setdefault(section, {}).update(table)
    run_sizes(merged)  # (settings that no run could take: refused here, before any work)
    return merged


def run_sizes(sections: Mapping[str, Mapping[str, Any]]) -> tuple[int, int]:
    """N and the smallest cluster size of the fill's runs (their settings' and defaults).

    Built as a run's problem with the fewest clusters and dimensions a fill plans, so
    settings no run could take (``n_samples`` below two clusters' minimum size) raise
    here, naming the setting.

    Parameters
    ----------
    sections : mapping
        `check_settings`' ``{section: {key: value}}``.

    Returns
    -------
    tuple of int
    """
    flat = {k: v for table in sections.values() for k, v in table.items()}
    probe = RunSettings.from_values("target", {**flat, "targets": "silhouette=0.5",
                                               "n_clusters": 2, "n_dims": 2}).problem()
    return int(probe.n_samples), int(probe.min_size)


def plan_fill(paths: Sequence[str | os.PathLike], n: int = 50, *, cell: float = 0.25,
              min_margin: float = 0.1,
              settings: Mapping[str, Mapping[str, Any]] | None = None,
              labels: int = 0) -> FillPlan:
    """Fit the space on the collection at ``paths`` and pick ``n`` targets with their runs.

    Parameters
    ----------
    paths : sequence of path
        The collection (`hawks_deap.io.load_collection`): suites, dataset folders,
        batteries.
    n : int
        How many gaps to fill.
    cell, min_margin : float
        As `hawks_deap.analysis.gaps.plan_gaps`.
    settings : mapping, optional
        The runs' settings by section (``{"dataset": {"n_samples": 1000}, "ga": {...}}``;
        not K, D or the objective, which the plan sets).
    labels : int
        Reference partition of battery datasets (``NAME.labels{labels}.gz``).

    Returns
    -------
    FillPlan
    """
    from hawks_deap.analysis.features import InstanceSpace, features_table
    from hawks_deap.analysis.gaps import Reach, plan_gaps
    from hawks_deap.io.collection import collection_items, load_items

    n = check_int("n", n, minimum=1)
    sections = check_settings(settings)
    items = collection_items(paths)
    datasets = load_items(items, labels=labels)
    names = [item.name for item in items]
    table = features_table(datasets, names=names)
    space = InstanceSpace().fit(table)
    points = space.transform(table)
    # a dataset a hawks-deap run saved records its problem: the generator reached it
    generated = np.array([isinstance((d.metadata or {}).get("problem"), Mapping)
                          for d in datasets])
    flat = {k: v for table_ in sections.values() for k, v in table_.items()}
    n_samples, min_size = run_sizes(sections)
    # K and D as far as the generated datasets show the generator's behaviour: a real
    # dataset of 100 clusters widens the space, not what the box was measured on
    reached = generated if generated.any() else np.ones(len(names), dtype=bool)
    k_max = int(table.column("n_clusters")[reached].max())
    d_max = int(table.column("dimensionality")[reached].max())
    reach = Reach.from_collection(space, table, reached=reached,
                                  n_clusters=range(2, max(k_max, 2) + 1),
                                  n_dims=range(2, max(d_max, 2) + 1), n_samples=n_samples,
                                  min_size=min_size)
    plan = plan_gaps(points, reach, n, cell=cell, min_margin=min_margin)
    return FillPlan(names, [item.group for item in items], points, space, plan, generated,
                    flat)


def _point_text(point: np.ndarray) -> str:
    return ",".join(repr(float(c)) for c in point)


def fill_suite(plan: FillPlan, space_file: Path, *, seed: int = 0) -> Suite:
    """The suite of a plan's runs: one configuration per target, one run each.

    Parameters
    ----------
    plan : FillPlan
        From `plan_fill`.
    space_file : pathlib.Path
        Where the space is saved: the runs read it by its absolute path, and its file
        name (not its folder) enters the seeds, so a moved fill resumes.
    seed : int
        The suite seed.

    Returns
    -------
    hawks_deap.campaign.suite.Suite
    """
    configurations, keys, rows = [], [], []
    for target, k, d in zip(plan.plan.targets, plan.plan.n_clusters, plan.plan.n_dims,
                            strict=True):
        values = _file_values(plan.settings, int(k), int(d), target, str(space_file.resolve()))
        configuration = configuration_values("target", values)
        # every setting checked, alone and together (the space is saved once the fill
        # holds its folder, so the problem itself is built by each run)
        RunSettings.from_values("target", configuration)
        configurations.append(configuration)
        # the seed reads the space's file name, not where the folder is
        keys.append(key_values("target", _file_values(plan.settings, int(k), int(d), target,
                                                      space_file.name)))
        rows.append([_point_text(target), int(k), int(d)])
    grid = {"fill": {"space": plan.space.to_dict(), "targets": rows,
                     "settings": plan.settings}}
    return Suite(mode="target", runs=1, seed=seed, configurations=configurations, grid=grid,
                 key_configurations=keys)


def _file_values(settings: Mapping[str, Any], k: int, d: int, target: np.ndarray,
                 space: str) -> dict[str, dict[str, Any]]:
    from hawks_deap.settings import config

    values: dict[str, dict[str, Any]] = {}
    for key, value in settings.items():
        option = next(o for o in config.OPTIONS if o.key == key and "target" in o.commands)
        assert option.section is not None
        values.setdefault(option.section, {})[key] = value
    values.setdefault("dataset", {}).update(n_clusters=k, n_dims=d)
    values["objective"] = {"space": space, "point": _point_text(target)}
    return values


# --------------------------------------------------------------------------- the folder


def check_fill_dir(out: Path) -> None:
    """Refuse an ``out`` that is a file, a link, or a folder that is not a fill's.

    A fill's folder holds the lock a fill takes before writing anything there (a user's
    own files beside its files are kept); any other folder must be empty (hidden files
    apart), so that a fill never replaces a file of the same name it did not write (a
    user's ``space.json``).

    Parameters
    ----------
    out : pathlib.Path
        The fill's folder (it may not exist yet).

    Raises
    ------
    ValueError
        Naming the folder and what it holds.
    """
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ValueError(f"--out {out} exists and is not a directory (or is a link)")
    if not out.exists():
        return
    if os.path.lexists(out / LOCK_FILE):
        check_lock_file(out)  # (a link, or not hawks-deap's lock: refused)
        return
    # (hidden .NAME.*.tmp files are what an interrupted atomic write leaves)
    others = sorted(e.name for e in out.iterdir() if not e.name.startswith("."))
    if others:
        raise ValueError(f"--out {out} exists and is not a fill's folder (it holds "
                         f"{', '.join(others[:3])}, and no fill's {LOCK_FILE}); give a new "
                         "or empty folder")


def run_fill(paths: Sequence[str | os.PathLike], out: str | os.PathLike, *, n: int = 50,
             cell: float = 0.25, min_margin: float = 0.1,
             settings: Mapping[str, Mapping[str, Any]] | None = None, seed: int = 0,
             labels: int = 0, workers: int = 1, backend: str = "processes",
             client: Any = None, progress: bool = False,
             on_row: Callable[[dict[str, str]], None] | None = None) -> dict[str, Any]:
    """Fill ``n`` gaps of the instance space of a collection; returns the report.

    Runs (or resumes) the plan of `plan_fill` as a suite in ``out/suite`` and writes
    ``out/space.json``, ``out/targets.csv``, ``out/fill.json`` and, with matplotlib,
    ``out/fill.png`` (see the module documentation).

    Parameters
    ----------
    paths, n, cell, min_margin, settings, labels
        As `plan_fill`.
    out : path
        The fill's folder (created; a fill's folder with the same plan resumes).
    seed : int
        The suite seed of the runs.
    workers, backend, client, progress, on_row
        As `hawks_deap.campaign.suite.run_suite`.

    Returns
    -------
    dict
        The report written to ``fill.json``.
    """
    out = Path(out)
    seed = check_int("seed", seed, minimum=0)
    cell = check_float("cell", cell, low=0.0, low_open=True)
    check_fill_dir(out)
    start = time.perf_counter()
    plan = plan_fill(paths, n, cell=cell, min_margin=min_margin, settings=settings,
                     labels=labels)
    space_file = out / FILL_FILES["space"]
    suite = fill_suite(plan, space_file, seed=seed)
    check_output(out / FILL_FILES["suite"], suite)  # another fill's runs: refused here
    with suite_lock(out):
        check_fill_dir(out)
        check_output(out / FILL_FILES["suite"], suite)
        plan.space.save(space_file)
        run_suite(suite, out / FILL_FILES["suite"], workers=workers, backend=backend,
                  client=client, progress=progress, on_row=on_row)
        report = fill_report(plan, out, seconds=time.perf_counter() - start,
                             paths=paths, n=n, cell=cell, min_margin=min_margin, seed=seed)
        write_text_atomic(out / FILL_FILES["report"],
                          json.dumps(report, indent=2, sort_keys=True) + "\n")
    return report


def fill_report(plan: FillPlan, out: Path, *, seconds: float, **arguments: Any
                ) -> dict[str, Any]:
    """Where the filled datasets landed, and the coverage before and after.

    Writes ``out/targets.csv`` (one row per target: its point, K, D, margin, the run's
    folder, the point reached and its distance) and, with matplotlib, ``out/fill.png``.

    Parameters
    ----------
    plan : FillPlan
        The fill's plan.
    out : pathlib.Path
        The fill's folder (its suite's summary is read).
    seconds : float
        The fill's wall time, recorded.
    **arguments
        The fill's arguments, recorded.

    Returns
    -------
    dict
        The report (`run_fill`).
    """
    rows = {row["config_id"]: row for row in summary_rows(out / FILL_FILES["suite"])}
    reached = np.full(plan.plan.targets.shape, np.nan)
    folders = []
    width = max(3, len(str(len(plan.plan.targets) - 1)))
    for i in range(len(plan.plan.targets)):
        row = rows.get(f"c{i:0{width}d}")
        folders.append("" if row is None else f"{FILL_FILES['suite']}/{row['path']}")
        if row is not None:  # the features measured on the saved dataset
            features = {name: float(row[f"feature_{name}"])
                        for name in plan.space.feature_names}
            reached[i] = plan.space.transform([features])[0]
    done = ~np.isnan(reached[:, 0])
    distance = np.linalg.norm(reached - plan.plan.targets, axis=1)
    grid = plan.plan.grid
    before = grid.coverage(plan.points)
    after = grid.coverage(np.vstack([plan.points, reached[done]]))
    _write_targets(out / FILL_FILES["targets"], plan, folders, reached, distance)
    figure = _figure(plan, reached, out / FILL_FILES["figure"])
    d = distance[done]
    return {
        "arguments": {k: (list(map(str, v)) if k == "paths" else v)
                      for k, v in arguments.items()},
        "collection": {"datasets": len(plan.names), "generated": int(plan.generated.sum()),
                       "sources": sorted(set(plan.sources))},
        "space": {"explained_variance_ratio":
                  plan.space.explained_variance_ratio_.tolist()},
        "region": {**grid.to_dict(), "reachable_cells": plan.plan.reachable_cells},
        "runs": {"planned": len(plan.plan.targets), "done": int(done.sum()),
                 "settings": plan.settings},
        "coverage": {"before": before, "after": after,
                     "relative_gain": (after / before - 1.0) if before > 0 else None},
        "distance": {"median": float(np.median(d)) if d.size else None,
                     "quartiles": np.quantile(d, [0.25, 0.75]).tolist() if d.size else None,
                     "max": float(d.max()) if d.size else None,
                     "within_0.1": int((d <= 0.1).sum())},
        "figure": figure, "seconds": round(seconds, 1),
    }


def _write_targets(path: Path, plan: FillPlan, folders: list[str], reached: np.ndarray,
                   distance: np.ndarray) -> None:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["target", "x", "y", "n_clusters", "n_dims", "margin", "run",
                     "reached_x", "reached_y", "distance"])
    for i, target in enumerate(plan.plan.targets):
        writer.writerow([i, repr(float(target[0])), repr(float(target[1])),
                         int(plan.plan.n_clusters[i]), int(plan.plan.n_dims[i]),
                         repr(float(plan.plan.margins[i])), folders[i],
                         *(repr(float(v)) if np.isfinite(v) else "" for v in
                           (*reached[i], distance[i]))])
    write_text_atomic(path, text.getvalue())


def _figure(plan: FillPlan, reached: np.ndarray, path: Path) -> str | None:
    """``fill.png``: the collection, the targets and where the runs landed (if plotting)."""
    try:
        from hawks_deap.analysis.plotting import plot_fill, save_figure
    except ImportError:
        return None
    try:
        done = np.all(np.isfinite(reached), axis=1)
        close = int((np.linalg.norm(reached - plan.plan.targets, axis=1)[done] <= 0.1).sum())
        fig = plot_fill(plan.points, plan.sources, plan.plan.targets, reached,
                        grid=plan.plan.grid, space=plan.space,
                        title=f"{int(done.sum())} of {len(done)} gaps run, {close} within "
                              "0.1 of their target")
    except ImportError:  # matplotlib is an extra
        return None
    save_figure(fig, path)
    return path.name
