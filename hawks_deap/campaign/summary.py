"""A suite directory's state: its ``summary.csv`` (reading, checking, text), its lock.

One row per finished run, keyed by (config_id, run), its values text; `hawks_deap.campaign.suite`
writes it (`summary_text`) as runs finish and reads it back to resume (`finished_rows`).
The folder's lock (`suite_lock`) keeps a second process out, and `clean_partial` removes
what a run cut short left behind, on resume. Nothing is written or deleted through a
symbolic link: a link at the lock's path or at ``runs/`` is refused, and only the
temporary names hawks-deap itself makes for the suite's runs are ever deleted.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import stat
import warnings
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hawks_deap._util.files import read_json
from hawks_deap._util.optional import optional_module
from hawks_deap._util.writes import remove_own_file, remove_tree
from hawks_deap.io.collection import RUNS_DIR, base_name
from hawks_deap.io.dataset import METADATA_FILE, OWN_FILES
from hawks_deap.io.run_files import run_files_are_whole

if TYPE_CHECKING:
    from hawks_deap.campaign.suite import Suite, SuiteTask

__all__ = [
    "LOCK_FILE",
    "NAME_COLUMN",
    "RUNS_DIR",
    "SUMMARY_FILE",
    "OutputRefused",
    "SuiteBusy",
    "check_lock_file",
    "check_real_dir",
    "check_runs_dir",
    "clean_partial",
    "finished_rows",
    "finished_task_rows",
    "holds_run",
    "is_own_temp_file",
    "read_summary",
    "run_name",
    "summary_frame",
    "summary_rows",
    "summary_text",
    "suite_lock",
]

SUMMARY_FILE = "summary.csv"
#: The column of a run's name: its name in a collection (`hawks_deap.io.collection`).
NAME_COLUMN = "name"
#: Held (``flock``) by the process running a suite in the folder, for the whole run.
LOCK_FILE = ".suite.lock"
#: The temporary names `hawks_deap.Dataset.save` makes beside a run folder NAME (and
#: nothing else of a suite's does): ``.NAME.<16 hex digits>.tmp`` or ``.old``.
_TEMP_NAME = re.compile(r"\.(?P<name>.+)\.[0-9a-f]{16}\.(?:tmp|old)")


def is_own_temp_file(entry: Path, files: Iterable[str]) -> bool:
    """Whether ``entry`` is the temporary file a killed atomic write of ``files`` left.

    ``.NAME.<16 hex digits>.tmp`` with NAME one of ``files``, a regular file (never a
    link): what `clean_partial` deletes, and what a suite's folder may hold beside its
    lock when a suite was killed while writing its first ``suite.json``.

    Parameters
    ----------
    entry : pathlib.Path
        An entry of a suite's folder.
    files : iterable of str
        The names of the files written atomically there (``suite.json``, ``summary.csv``).
    """
    match = _TEMP_NAME.fullmatch(entry.name)
    return (match is not None and match["name"] in set(files) and entry.name.endswith(".tmp")
            and not entry.is_symlink() and entry.is_file())


def read_summary(out: str | os.PathLike) -> dict[tuple[str, int], dict[str, str]]:
    """Rows of an existing ``summary.csv``, keyed by (config_id, run).

    Only whole rows are read: a last row without its line end (the file cut short), a
    row with cells missing or extra, a line longer than the csv module's field limit,
    or one whose run is not an integer is left out, and so is every row under a header
    that is not a summary's (their runs are checked and redone, never lost).

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
    # a line over the csv module's field limit is no row the suite wrote (csv.Error)
    limit = csv.field_size_limit()
    text = "".join(line for line in text.splitlines(keepends=True) if len(line) <= limit)
    rows: dict[tuple[str, int], dict[str, str]] = {}
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            if None in row or None in row.values() or not row.get("config_id"):
                continue
            try:
                run = int(row["run"])
            except (KeyError, ValueError):
                continue
            rows[(row["config_id"], run)] = dict(row)
    except csv.Error:  # (a quoted field spanning lines): the rows after it are redone
        pass
    return rows


def finished_rows(out: str | os.PathLike, suite: Suite) -> dict[tuple[str, int], dict[str, str]]:
    """The summary rows of runs that are really finished: the row and the run folder agree.

    A row counts when it is whole (`read_summary`), belongs to a task of this suite with
    the same seed and folder, and that folder holds the task's own run (its metadata
    names the task) with no file cut short (`hawks_deap.io.run_files.run_files_are_whole`).
    Every other task is run (again) on resume.

    Parameters
    ----------
    out : str or os.PathLike
        The suite directory.
    suite : Suite
        The suite whose tasks (`hawks_deap.campaign.suite.Suite.tasks`) the rows must match.

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
                and holds_run(out / row["path"], task)):
            rows[key] = row
    return rows


def holds_run(folder: Path, task: SuiteTask) -> bool:
    """Whether ``folder`` holds ``task``'s run: written for this task, and whole.

    A run's folder is renamed into place once all its files are written
    (`hawks_deap.Dataset.save`) and its summary row is written after that, so a run cut
    short by a kill is never at its path (only a hidden temporary folder, removed on
    resume). Checked: its ``metadata.json`` names the task's configuration, run and seed
    (another run's folder is not trusted), and its other files were not cut short
    (`hawks_deap.io.run_files.run_files_are_whole`: the dataset's, the logbook and a
    Versus run's partitions; not by parsing the points: too slow per resume).

    Parameters
    ----------
    folder : pathlib.Path
        A run folder (``runs/<task.name>``).
    task : SuiteTask
        The run it should hold.

    Returns
    -------
    bool
        False for a link, a folder of another run or command, or one cut short.
    """
    if folder.is_symlink():  # not written by hawks-deap: set aside, never deleted
        return False
    try:
        metadata = read_json(folder / METADATA_FILE)  # (too deep, a device, ...: not whole)
    except ValueError:
        return False
    own = {"config_id": task.config_id, "run": task.run, "seed": task.seed}
    if not isinstance(metadata, dict) or metadata.get("suite") != own:
        return False
    return run_files_are_whole(folder, metadata)


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


def run_name(row: Mapping[str, str]) -> str:
    """The name of a summary row's run: its name in a collection of the suite.

    What `hawks_deap.io.collection.load_collection` and the command line
    (``features``, ``plot``, ``export``) call the run given the suite's folder: its
    folder's name (`hawks_deap.io.collection.base_name`, e.g. ``c000-r02``), read off
    the row's ``path`` (``runs/c000-r02``); a row that has a `NAME_COLUMN` keeps it.

    Parameters
    ----------
    row : mapping
        A summary row (``{column: text}``).

    Returns
    -------
    str
        Empty when the row has neither a name nor a path.
    """
    if row.get(NAME_COLUMN):
        return str(row[NAME_COLUMN])
    path = row.get("path") or ""
    return base_name(path) if path else ""


def summary_rows(out: str | os.PathLike) -> list[dict[str, str]]:
    """The summary of a suite directory, sorted by (config_id, run).

    Parameters
    ----------
    out : str or os.PathLike
        The suite directory.

    Returns
    -------
    list of dict
        Its whole rows (`read_summary`), ``{column: text}`` each, each with its run's
        `NAME_COLUMN` (`run_name`: the name a collection of the suite gives the run);
        empty without a ``summary.csv``.
    """
    rows = read_summary(out)
    return [{**rows[k], NAME_COLUMN: run_name(rows[k])} for k in sorted(rows)]


def summary_frame(out: str | os.PathLike) -> Any:
    """A suite's summary (settings, seed, fitness, records, features) as a DataFrame.

    The rows of `summary_rows` (whole rows only), one per finished run, indexed by
    ``(config_id, run)``; a column whose every cell is a number (or empty) becomes
    float64 (empty: NaN) or int64, the others stay text. pandas is optional (installed
    with dask).

    Parameters
    ----------
    out : str or os.PathLike
        The suite directory.

    Returns
    -------
    pandas.DataFrame
        Empty (no rows, no columns) without a ``summary.csv``.

    Raises
    ------
    ImportError
        When pandas is not installed, saying how to install it.
    """
    pd = optional_module("pandas", "summary_frame", "pip install pandas")
    rows = summary_rows(out)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    for column in frame.columns:
        if column == "config_id":
            continue
        cells = frame[column].replace("", None)
        numbers = pd.to_numeric(cells, errors="coerce")  # (int64 when every cell is one)
        if numbers.notna().sum() == cells.notna().sum():  # every given cell is a number
            if numbers.dtype.kind == "f":  # exactly: pandas 2's parser can miss the last bit
                numbers = pd.Series([float(c) if isinstance(c, str) else float("nan")
                                     for c in cells],
                                    index=cells.index, dtype="float64")
            frame[column] = numbers
    return frame.set_index(["config_id", "run"]).sort_index()


# --------------------------------------------------------------------------- the folder


class SuiteBusy(ValueError):
    """Another process is running a suite in the folder (`suite_lock`)."""


class OutputRefused(ValueError):
    """The folder cannot take this suite (not a suite's folder, or another suite's)."""


def check_runs_dir(out: Path) -> None:
    """Refuse a suite folder whose ``runs/`` is a symbolic link or not a folder.

    Resuming deletes leftovers in ``runs/`` and replaces unfinished run folders there:
    never in a folder reached through a link (another project's folder, a home).

    Parameters
    ----------
    out : pathlib.Path
        The suite's folder (its ``runs/`` may be missing: it is created).
    """
    check_real_dir(out, RUNS_DIR, link="writes and deletes run folders only in a real "
                   "folder", file="writes the run folders there")


def check_real_dir(out: Path, name: str, *, link: str, file: str) -> None:
    """Refuse ``out/name`` when it is a symbolic link or exists and is not a folder.

    Parameters
    ----------
    out : pathlib.Path
        The suite's folder.
    name : str
        The subfolder hawks-deap writes in (it may be missing).
    link, file : str
        What hawks-deap does there, said in the message for a link and for a file.
    """
    path = out / name
    if path.is_symlink():
        raise ValueError(f"--out {out}: {path} is a symbolic link; hawks-deap {link}: "
                         "replace the link by a folder")
    if path.exists() and not path.is_dir():
        raise ValueError(f"--out {out}: {path} is not a folder; hawks-deap {file}: move "
                         "it away")
    if path.is_dir() and not os.access(path, os.W_OK | os.X_OK):  # (before any run)
        raise ValueError(f"--out {out}: {path} is not writable; hawks-deap {file}")


def check_lock_file(out: Path) -> None:
    """Refuse a ``.suite.lock`` hawks-deap may not write: a link, or not its lock file.

    `suite_lock` makes the same checks on the file it opens (without following a link);
    this one lets a command refuse before any work.

    Parameters
    ----------
    out : pathlib.Path
        The suite's folder (a missing folder or lock file passes).
    """
    path = out / LOCK_FILE
    if not (path.exists() or path.is_symlink()):
        return
    fd = _open_lock(path, os.O_RDONLY)
    try:
        _check_lock_fd(fd, path)
    finally:
        os.close(fd)


def _open_lock(path: Path, flags: int) -> int:
    """``os.open`` of the lock file that never follows a link (a link is refused)."""
    flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    if path.is_symlink():  # (O_NOFOLLOW says so too, with an error number of its own)
        raise ValueError(f"--out {path.parent}: {path} is a symbolic link; hawks-deap "
                         "writes its lock file only in place, never through a link: "
                         "remove the link")
    try:
        return os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError:
        if path.is_symlink():  # made since the check above
            raise ValueError(f"--out {path.parent}: {path} is a symbolic link; hawks-deap "
                             "never writes through a link: remove the link") from None
        raise


def _check_lock_fd(fd: int, path: Path) -> None:
    """Raise unless ``fd`` is a lock file of hawks-deap: a plain file holding a pid.

    That is a regular file with one name (not a hard link to another file) holding
    nothing or a process id: anything else would be overwritten by the lock's pid.
    """
    info = os.fstat(fd)
    what = None
    if not stat.S_ISREG(info.st_mode):
        what = "not a regular file"
    elif info.st_nlink > 1:
        what = f"a file with {info.st_nlink} names (a hard link)"
    elif info.st_size > 32 or not re.fullmatch(rb"\d*\n?", _read_start(fd)):
        what = "a file holding other data than a process id"
    if what is not None:
        raise ValueError(f"--out {path.parent}: {path} is {what}, not the lock file "
                         "hawks-deap writes there (it would be overwritten): move it away")


def _read_start(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    return os.read(fd, 33)


@contextlib.contextmanager
def suite_lock(out: Path) -> Iterator[None]:
    """Hold the folder's lock while a suite runs there; a second process is refused.

    Two processes on one folder would each delete the other's unfinished runs and do
    the remaining work twice: the second one gets a `SuiteBusy` naming the folder
    and the process holding it. The operating system releases the lock when its process
    ends, however it ends, so a killed suite resumes. (Where ``fcntl`` is missing, as on
    Windows, no lock is taken.) The lock file is opened without following a link and
    written (the holder's pid) only once the lock is held; a link, or a file that is
    not a lock file (`check_lock_file`), raises ``ValueError`` and is left untouched.

    Parameters
    ----------
    out : pathlib.Path
        The suite's folder (created, with its parents, if missing); the lock is its
        ``.suite.lock`` file, holding the pid of the process that holds it.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux or macOS
        yield
        return
    out.mkdir(parents=True, exist_ok=True)
    path = out / LOCK_FILE
    fd = _open_lock(path, os.O_RDWR | os.O_CREAT)
    try:
        _check_lock_fd(fd, path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            raise SuiteBusy(f"--out {out}: another hawks-deap suite is running there (pid "
                            f"{holder}); wait for it, or use another directory") from None
        _check_lock_fd(fd, path)  # (as the last holder left it)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def clean_partial(out: Path, names: Iterable[str], files: Iterable[str] = ()) -> None:
    """Delete what runs cut short left in ``out/runs``: hawks-deap's temporary folders.

    Only folders named as `hawks_deap.Dataset.save` names its temporary folders beside
    one of ``names`` (``.NAME.<16 hex digits>.tmp`` or ``.old``) are deleted, and of
    them only the files hawks-deap writes (`hawks_deap.io.dataset.OWN_FILES`; a folder
    holding anything else is kept, with a warning); symbolic links are never followed
    nor deleted, and everything else (a user's ``.notes``, ``.git``) stays. A ``runs/``
    that is a link is refused (`check_runs_dir`).

    Parameters
    ----------
    out : pathlib.Path
        The suite's folder.
    names : iterable of str
        The names of the run folders the suite writes (`hawks_deap.campaign.suite.SuiteTask.name`).
    files : iterable of str
        Files the suite writes atomically in ``out`` itself (``summary.csv``,
        ``suite.json``): their temporary files (``.NAME.<16 hex digits>.tmp``, regular
        files, never links) that a killed write left are deleted too.
    """
    check_runs_dir(out)
    files = set(files)
    for entry in out.iterdir() if files else ():
        if is_own_temp_file(entry, files):
            remove_own_file(entry, None)  # (a regular file only: a link stays)
    runs = out / RUNS_DIR
    if not runs.is_dir():
        return
    names = set(names)
    for entry in runs.iterdir():
        match = _TEMP_NAME.fullmatch(entry.name)
        if match is None or match["name"] not in names or entry.is_symlink() \
                or not entry.is_dir():
            continue
        if not remove_tree(entry, names=OWN_FILES):  # (never follows a link)
            warnings.warn(f"kept {entry}, a temporary folder of a run cut short: it holds "
                          "files hawks-deap did not write", RuntimeWarning, stacklevel=2)
