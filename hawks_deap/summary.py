"""The ``summary.csv`` of a suite directory: reading it, checking its rows, its text.

One row per finished run, keyed by (config_id, run), its values text; `hawks_deap.suite`
writes it (`summary_text`) as runs finish and reads it back to resume (`finished_rows`).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from hawks_deap.dataset import METADATA_FILE, files_are_whole

if TYPE_CHECKING:
    from hawks_deap.suite import Suite, SuiteTask

__all__ = [
    "RUNS_DIR",
    "SUMMARY_FILE",
    "finished_rows",
    "finished_task_rows",
    "read_summary",
    "summary_rows",
    "summary_text",
]

SUMMARY_FILE = "summary.csv"
RUNS_DIR = "runs"


def read_summary(out: str | os.PathLike) -> dict[tuple[str, int], dict[str, str]]:
    """Rows of an existing ``summary.csv``, keyed by (config_id, run).

    Only whole rows are read: a last row without its line end (the file cut short), a
    row with cells missing or extra, or one whose run is not an integer is left out,
    and so is every row under a header that is not a summary's.

    Parameters
    ----------
    out : str or os.PathLike
        The suite directory holding ``summary.csv``.

    Returns
    -------
    dict
        ``{(config_id, run): row}``, each row ``{column: text}``; empty when there is
        no ``summary.csv`` (a row with an empty config_id is left out too; of two rows
        of one key, the later one is kept).
    """
    path = Path(out) / SUMMARY_FILE
    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8", errors="replace")
    text = text[: text.rfind("\n") + 1]  # a row cut short is not a row
    rows: dict[tuple[str, int], dict[str, str]] = {}
    for row in csv.DictReader(io.StringIO(text, newline="")):
        if None in row or None in row.values() or not row.get("config_id"):
            continue
        try:
            run = int(row["run"])
        except (KeyError, ValueError):
            continue
        rows[(row["config_id"], run)] = dict(row)
    return rows


def finished_rows(out: str | os.PathLike, suite: Suite) -> dict[tuple[str, int], dict[str, str]]:
    """The summary rows of runs that are really finished: the row and the run folder agree.

    A row counts when it is whole (`read_summary`), belongs to a task of this suite with
    the same seed and folder, and that folder holds the task's own run (its metadata
    names the task) with no file cut short (`hawks_deap.dataset.files_are_whole`).
    Every other task is run (again) on resume.

    Parameters
    ----------
    out : str or os.PathLike
        The suite directory.
    suite : Suite
        The suite whose tasks (`hawks_deap.suite.Suite.tasks`) the rows must match.

    Returns
    -------
    dict
        ``{(config_id, run): row}`` of the finished runs, as `read_summary` gives them.
    """
    return finished_task_rows(Path(out), suite.tasks())


def finished_task_rows(out: Path, tasks: Iterable[SuiteTask]
                       ) -> dict[tuple[str, int], dict[str, str]]:
    """`finished_rows` of the tasks already listed (a suite's `tasks`, made once).

    Parameters
    ----------
    out : pathlib.Path
        The suite directory.
    tasks : iterable of SuiteTask
        The suite's tasks.

    Returns
    -------
    dict
        ``{(config_id, run): row}`` of the finished runs.
    """
    by_key = {(t.config_id, t.run): t for t in tasks}
    rows = {}
    for key, row in read_summary(out).items():
        task = by_key.get(key)
        if (task is not None and row.get("seed") == str(task.seed)
                and row.get("path") == f"{RUNS_DIR}/{task.name}"
                and _holds_run(out / row["path"], task)):
            rows[key] = row
    return rows


def _holds_run(folder: Path, task: SuiteTask) -> bool:
    """Whether ``folder`` holds ``task``'s run: written for this task, and whole.

    A run's folder is renamed into place once all its files are written
    (`hawks_deap.Dataset.save`) and its summary row is written after that, so a run cut
    short by a kill is never at its path (only a hidden temporary folder, removed on
    resume). Checked: its ``metadata.json`` names the task's configuration, run and seed
    (another run's folder is not trusted), and its other files were not cut short
    (`hawks_deap.dataset.files_are_whole`; not by parsing the points: too slow per resume).
    """
    try:
        metadata = json.loads((folder / METADATA_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    own = {"config_id": task.config_id, "run": task.run, "seed": task.seed}
    if not isinstance(metadata, dict) or metadata.get("suite") != own:
        return False
    sizes = metadata.get("sizes")
    if not isinstance(sizes, list) or not all(type(n) is int for n in sizes):
        return False
    return files_are_whole(folder, sum(sizes))


def summary_text(rows: Mapping[tuple[str, int], Mapping[str, str]]) -> str:
    """CSV text of the rows, sorted by (config_id, run), columns in first-seen order.

    Parameters
    ----------
    rows : mapping
        ``{(config_id, run): row}``, each row ``{column: text}``; a row without a
        column gets an empty cell.

    Returns
    -------
    str
        The header line and one line per row, each ending in a newline.
    """
    ordered = [rows[k] for k in sorted(rows)]
    columns: list[str] = []
    for row in ordered:
        for key in row:
            if key not in columns:
                columns.append(key)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in ordered:
        writer.writerow({c: row.get(c, "") for c in columns})
    return buf.getvalue()


def summary_rows(out: str | os.PathLike) -> list[dict[str, str]]:
    """The summary of a suite directory, sorted by (config_id, run).

    Parameters
    ----------
    out : str or os.PathLike
        The suite directory.

    Returns
    -------
    list of dict
        Its whole rows (`read_summary`), ``{column: text}`` each; empty without a
        ``summary.csv``.
    """
    rows = read_summary(out)
    return [rows[k] for k in sorted(rows)]
