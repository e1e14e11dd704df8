"""Suites lose nothing of the user's (issue 30, items 2, 3, 13, 14).

2. the folder's lock file is never followed through a link nor overwritten when it is
   not hawks-deap's; 3. resuming deletes only hawks-deap's own temporary folders, never
   through a link; 13. worker counts are bounded (`MAX_WORKERS`) and capped at the work;
   14. a suite killed alone (``kill -9``) takes its workers with it, and they write
   nothing after the kill.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import hawks_deap as hd
from hawks_deap._util import workers as worker_processes
from hawks_deap._util.workers import MAX_WORKERS
from hawks_deap.algorithms.pool import ProblemPool
from hawks_deap.campaign import suite as hs

GRID = """
[suite]
runs = 1
seed = 3
mode = "index"

[dataset]
n_samples = {n_samples}
n_clusters = 3

[objective]
target = [0.3, 0.6]

[ga]
generations = {generations}
population_size = 6
"""

HUGE = 10**20  # "1e20" workers


def write_grid(tmp_path: Path, generations: int = 2, n_samples: int = 120) -> Path:
    path = tmp_path / "grid.toml"
    path.write_text(GRID.format(generations=generations, n_samples=n_samples))
    return path


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hawks_deap.cli", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=600)


def error_lines(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


# ------------------------------------------------------------------ 2. the lock file


def test_a_lock_file_that_is_a_link_is_refused_and_its_target_kept(tmp_path):
    """mkdir s; ln -s ../userfile.txt s/.suite.lock; hawks-deap suite grid.toml --out s"""
    grid = write_grid(tmp_path)
    user_file = tmp_path / "userfile.txt"
    user_file.write_text("the user's own words\n")
    (tmp_path / "s").mkdir()
    os.symlink("../userfile.txt", tmp_path / "s" / ".suite.lock")
    r = cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    lines = error_lines(r)
    assert len(lines) == 1 and "Traceback" not in r.stderr
    assert "s/.suite.lock is a symbolic link" in lines[0]
    assert user_file.read_text() == "the user's own words\n"
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == [".suite.lock"]
    # a dangling link: nothing is created at its target either
    user_file.unlink()
    r = cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path)
    assert r.returncode == 2 and "is a symbolic link" in r.stderr
    assert not user_file.exists()


def test_the_lock_itself_never_writes_through_a_link_nor_over_other_files(tmp_path):
    """The checks under the lock (O_NOFOLLOW, the opened file's own checks), used by
    `run_suite` and `suite_lock` even when the folder changed after the first check."""
    user_file = tmp_path / "userfile.txt"
    user_file.write_text("keep me\n")
    out = tmp_path / "s"
    out.mkdir()
    lock = out / ".suite.lock"
    os.symlink(user_file, lock)
    with pytest.raises(ValueError, match="is a symbolic link"):
        with hs.suite_lock(out):
            pass
    lock.unlink()
    os.link(user_file, lock)  # a hard link: the same file under a second name
    with pytest.raises(ValueError, match=r"2 names \(a hard link\)"):
        with hs.suite_lock(out):
            pass
    with pytest.raises(ValueError, match="hard link"):
        hs.run_suite(hs.load_suite(write_grid(tmp_path)), out)
    assert user_file.read_text() == "keep me\n"
    lock.unlink()
    lock.write_text("notes a user kept here\n")  # not a process id
    with pytest.raises(ValueError, match="holding other data than a process id"):
        with hs.suite_lock(out):
            pass
    assert lock.read_text() == "notes a user kept here\n"
    lock.unlink()
    os.mkfifo(lock)
    with pytest.raises(ValueError, match="not a regular file"):
        with hs.suite_lock(out):
            pass
    lock.unlink()
    lock.write_text("12345\n")  # a lock a killed suite left: taken over
    with hs.suite_lock(out):
        assert lock.read_text() == f"{os.getpid()}\n"


# ------------------------------------------------------------------ 3. resume


def test_resume_keeps_hidden_entries_of_runs_and_removes_only_its_own(tmp_path):
    """mkdir s/runs/.notes; echo x > s/runs/.notes/a.md; then resume."""
    grid = write_grid(tmp_path)
    assert cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path).returncode == 0
    runs = tmp_path / "s" / "runs"
    (runs / ".notes").mkdir()
    (runs / ".notes" / "a.md").write_text("x\n")
    (runs / ".hidden-file").write_text("y\n")
    # names like hawks-deap's own, but not of a run of this suite, or not its pattern
    (runs / ".c999-r00.0123456789abcdef.tmp").mkdir()
    (runs / ".c000-r00.0123456789abcdef.tmp.bak").mkdir()
    (runs / ".c000-r00.tmp").mkdir()
    # a link named as hawks-deap's temporary folder: neither followed nor deleted
    victim = tmp_path / "victim"
    (victim / ".git").mkdir(parents=True)
    (victim / ".git" / "HEAD").write_text("ref\n")
    os.symlink(victim, runs / ".c001-r00.fedcba9876543210.old")
    # what a run cut short by a kill leaves: removed on resume
    for leftover in (".c000-r00.0123456789abcdef.tmp", ".c001-r00.00112233aabbccdd.old"):
        (runs / leftover).mkdir()
        (runs / leftover / "data.csv").write_text("1,2\n")
    r = cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (runs / ".notes" / "a.md").read_text() == "x\n"
    assert (runs / ".hidden-file").read_text() == "y\n"
    assert sorted(p.name for p in runs.iterdir()) == sorted([
        ".c000-r00.0123456789abcdef.tmp.bak", ".c000-r00.tmp",
        ".c001-r00.fedcba9876543210.old", ".c999-r00.0123456789abcdef.tmp",
        ".hidden-file", ".notes", "c000-r00", "c001-r00"])
    assert (victim / ".git" / "HEAD").read_text() == "ref\n"


def test_a_leftover_holding_other_files_is_kept_with_a_warning(tmp_path):
    grid = write_grid(tmp_path)
    out = tmp_path / "s"
    hs.run_suite(hs.load_suite(grid), out)
    leftover = out / "runs" / ".c000-r00.0123456789abcdef.old"
    leftover.mkdir()
    (leftover / "metadata.json").write_text("{}")
    (leftover / "my-analysis.txt").write_text("mine\n")
    with pytest.warns(RuntimeWarning, match="holds files hawks-deap did not write"):
        hs.run_suite(hs.load_suite(grid), out)
    assert sorted(p.name for p in leftover.iterdir()) == ["my-analysis.txt"]


def test_a_runs_folder_that_is_a_link_is_refused_not_followed(tmp_path):
    """runs/ a link to another folder: its .git/ and .bashrc stay."""
    grid = write_grid(tmp_path)
    assert cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path).returncode == 0
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (other / ".git" / "config").write_text("[core]\n")
    (other / ".bashrc").write_text("alias ll='ls -l'\n")
    (other / ".c000-r00.0123456789abcdef.tmp").mkdir()  # even hawks-deap's own names
    runs = tmp_path / "s" / "runs"
    runs.rename(tmp_path / "s" / "runs-moved")
    os.symlink(other, runs)
    before = sorted(p.name for p in other.iterdir())
    r = cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path)
    assert r.returncode == 2
    assert len(error_lines(r)) == 1 and "s/runs is a symbolic link" in r.stderr
    with pytest.raises(ValueError, match="runs is a symbolic link"):
        hs.run_suite(hs.load_suite(grid), tmp_path / "s")
    with pytest.raises(ValueError, match="runs is a symbolic link"):
        hs.clean_partial(tmp_path / "s", ["c000-r00"])  # the check under the lock
    assert sorted(p.name for p in other.iterdir()) == before
    assert (other / ".bashrc").read_text() == "alias ll='ls -l'\n"
    assert (other / ".git" / "config").read_text() == "[core]\n"


def test_an_out_folder_that_is_a_link_is_refused_not_followed(tmp_path):
    """--out a link to a suite's folder: refused in one line, the folder untouched (a
    suite deletes its own leftovers in --out, never through a link)."""
    grid = write_grid(tmp_path)
    assert cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path).returncode == 0
    leftover = tmp_path / "s" / ".c000-r00.0123456789abcdef.tmp"
    leftover.mkdir()
    os.symlink(tmp_path / "s", tmp_path / "link")
    r = cli("suite", str(grid), "--out", "link", "--quiet", cwd=tmp_path)
    assert r.returncode == 2
    assert len(error_lines(r)) == 1 and "--out link is a symbolic link" in r.stderr
    with pytest.raises(ValueError, match="is a symbolic link"):
        hs.run_suite(hs.load_suite(grid), tmp_path / "link")
    assert leftover.is_dir()


def test_a_run_folder_that_is_a_link_is_set_aside_not_deleted(tmp_path):
    grid = write_grid(tmp_path)
    suite = hs.load_suite(grid)
    out = tmp_path / "s"
    hs.run_suite(suite, out)
    target = tmp_path / "elsewhere"
    (out / "runs" / "c000-r00").rename(target)
    os.symlink(target, out / "runs" / "c000-r00")
    with pytest.warns(RuntimeWarning, match="moved to"):
        hs.run_suite(suite, out)
    assert (out / "runs" / "c000-r00").is_dir()
    assert not (out / "runs" / "c000-r00").is_symlink()
    assert target.is_dir() and (target / "metadata.json").is_file()


# ------------------------------------------------------------------ 13. worker counts


def test_absurd_worker_counts_are_refused_with_one_message(tmp_path):
    grid = write_grid(tmp_path)
    expected = f"must be an integer in [1, {MAX_WORKERS}], got {HUGE}"
    r = cli("suite", str(grid), "--out", "s", "--workers", str(HUGE), cwd=tmp_path)
    assert r.returncode == 2 and f"argument --workers: {expected}" in r.stderr
    # n_jobs may also be "none" (evolve's default)
    or_none = expected.replace("], got", '] or "none", got')
    r = cli("generate", "--out", "g", "--n-jobs", str(HUGE), cwd=tmp_path)
    assert r.returncode == 2 and or_none in r.stderr and "--n-jobs" in r.stderr
    (tmp_path / "run.toml").write_text(f"[ga]\nn_jobs = {HUGE}\n")
    r = cli("generate", "--config", "run.toml", "--out", "g", cwd=tmp_path)
    assert r.returncode == 2 and f"[ga] n_jobs in run.toml {or_none}" in r.stderr
    assert not (tmp_path / "s").exists() and not (tmp_path / "g").exists()
    problem = hd.IndexProblem(60, 2, 2, target=0.5)
    with pytest.raises(ValueError) as error:
        hd.evolve(problem, generations=1, population_size=4, n_jobs=HUGE)
    assert str(error.value) == f"n_jobs {expected}"
    with pytest.raises(ValueError) as error:
        ProblemPool(None, MAX_WORKERS + 1)
    assert str(error.value) == f"n_jobs must be an integer in [1, {MAX_WORKERS}], got " \
                               f"{MAX_WORKERS + 1}"
    with pytest.raises(ValueError) as error:
        hs.run_suite(hs.load_suite(grid), tmp_path / "s", workers=HUGE)
    assert str(error.value) == f"workers {expected}"
    assert not (tmp_path / "s").exists()


def test_no_more_workers_start_than_runs_or_individuals(tmp_path, monkeypatch):
    """suite --workers 64 for 2 runs starts 2 processes; evolve(n_jobs=64) of 4, 4."""
    import multiprocess.pool

    sizes = []
    original = multiprocess.pool.Pool.__init__

    def recording_init(self, processes=None, *args, **kwargs):
        sizes.append(processes)
        original(self, processes, *args, **kwargs)

    monkeypatch.setattr(multiprocess.pool.Pool, "__init__", recording_init)
    out = tmp_path / "s"
    hs.run_suite(hs.load_suite(write_grid(tmp_path)), out, workers=64)
    assert sizes == [2]
    assert len(hs.read_summary(out)) == 2
    hs.run_suite(hs.load_suite(write_grid(tmp_path)), out, workers=64)  # nothing to do
    assert sizes == [2]
    problem = hd.IndexProblem(60, 2, 2, target=0.5)
    # (a run this small evaluates serially: pool.serial_reason; forced here)
    monkeypatch.setattr("hawks_deap.algorithms.pool.POOL_MIN_WORK", 0)
    started = []
    pool_init = ProblemPool.__init__

    def recording_pool(self, *args, **kwargs):
        pool_init(self, *args, **kwargs)
        started.append(len(self._workers))

    monkeypatch.setattr(ProblemPool, "__init__", recording_pool)
    hd.evolve(problem, generations=1, population_size=4, n_jobs=64, seed=0)
    assert started == [4] and sizes == [2]


def test_a_local_dask_cluster_has_no_more_workers_than_runs(tmp_path, monkeypatch):
    asked = []

    class Stop(Exception):
        pass

    def connect(workers, scheduler):
        asked.append(workers)
        raise Stop

    monkeypatch.setattr(hs, "connect_dask", connect)
    with pytest.raises(Stop):
        hs.run_suite(hs.load_suite(write_grid(tmp_path)), tmp_path / "s", workers=64,
                     backend="dask")
    assert asked == [2]


# ------------------------------------------------------------------ 14. kill -9


def _children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid:
            out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead and not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _cpu_seconds(pid: int) -> float:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _is_worker(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _listing(folder: Path) -> dict[str, float]:
    return {str(p.relative_to(folder)): p.lstat().st_mtime for p in folder.rglob("*")}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("backend", ["processes", "dask"])
def test_workers_die_with_a_killed_suite_and_write_nothing_after(tmp_path, backend):
    """kill -9 of the suite process alone, as the out-of-memory killer does.

    (A LocalCluster's workers end with their parent by dask's own means.)
    """
    if backend == "dask":
        pytest.importorskip("dask.distributed")
    grid = write_grid(tmp_path, generations=20_000, n_samples=200)  # runs of ~20 s
    out = tmp_path / "s"
    err = (tmp_path / "stderr.txt").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "hawks_deap.cli", "suite", str(grid),
                             "--out", str(out), "--workers", "2", "--backend", backend,
                             "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 240
        workers: list[int] = []
        while time.monotonic() < deadline and proc.poll() is None:
            workers = [p for p in _children(proc.pid) if _is_worker(p)]
            # a worker past its imports (seconds of CPU) is running its task
            if len(workers) == 2 and all(_cpu_seconds(p) > 3.0 for p in workers):
                break
            time.sleep(0.1)
        assert proc.poll() is None and len(workers) == 2, "the workers never ran"
        before = _listing(out)
        os.kill(proc.pid, signal.SIGKILL)
        killed = time.monotonic()
        proc.wait(timeout=30)
        while any(_alive(p) for p in workers) and time.monotonic() - killed < 5:
            time.sleep(0.05)
        assert not any(_alive(p) for p in workers), "workers outlived the suite by 5 s"
        time.sleep(0.5)
        assert _listing(out) == before  # no run folder, not even a temporary one
        err.close()
        text = (tmp_path / "stderr.txt").read_text()
        assert "BrokenPipeError" not in text
        assert backend == "dask" or "Traceback" not in text
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        err.close()
        for pid in workers:
            if _alive(pid) and _is_worker(pid):
                os.kill(pid, signal.SIGKILL)


_ORPHAN = textwrap.dedent("""
    import os, sys, time
    from hawks_deap._util import workers as _parallel

    if sys.argv[1] == "no-prctl":  # the portable fallback: a thread watches the parent
        _parallel._die_with_parent = lambda: False
    alive_r, alive_w = os.pipe()  # at its end-of-file, the parent is gone
    pid = os.fork()
    if pid == 0:  # the worker
        os.close(alive_w)
        _parallel.suite_worker(os.getppid())
        print("worker", os.getpid(), flush=True)
        if sys.argv[1] == "before-write":
            os.read(alive_r, 1)  # returns when the parent is dying
            time.sleep(0.5)  # (its fds close before its children are handed over)
            _parallel.orphan_check()  # (what run_task does before it writes)
            print("wrote", flush=True)
        time.sleep(20)
        os._exit(0)
    time.sleep(0.5)
    os._exit(0)  # the parent dies alone
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("how", ["prctl", "no-prctl", "before-write"])
def test_a_suite_worker_stops_when_its_parent_dies(how):
    """Each way a worker notices: Linux's parent-death signal, the watching thread (other
    systems), and the check before each write (what is left with neither)."""
    if how == "before-write":
        # neither the kernel nor the thread: only the check before the write
        script = _ORPHAN.replace("_parallel.suite_worker(os.getppid())",
                                 "_parallel._PARENT_PID = os.getppid()")
    else:
        script = _ORPHAN
    # (returns once the worker closed its end of stdout: when it ended)
    r = subprocess.run([sys.executable, "-c", script, how], capture_output=True, text=True,
                       timeout=40)
    assert r.returncode == 0, r.stderr
    worker = int(r.stdout.split()[1])
    deadline = time.monotonic() + 5
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(worker)
    assert "wrote" not in r.stdout and "Traceback" not in r.stderr


def test_orphan_check_is_a_no_op_outside_suite_workers():
    assert worker_processes.orphan_check() is None  # this process is no suite worker


def test_a_summary_row_over_the_csv_field_limit_is_redone_not_a_traceback(tmp_path):
    # issue 30 (item 9's sibling): a summary.csv field over 128 KB ended resume with
    # _csv.Error; such a line is no row the suite wrote: its run is checked again
    from hawks_deap.campaign.summary import read_summary

    out = tmp_path / "s"
    out.mkdir()
    good = "config_id,run,seed\nc000,0,1\n"
    (out / "summary.csv").write_text(good + "c000,1," + "9" * 200_000 + "\nc001,0,3\n")
    rows = read_summary(out)
    assert set(rows) == {("c000", 0), ("c001", 0)}


def test_resume_removes_the_temporary_files_a_killed_summary_write_left(tmp_path):
    # a kill during write_text_atomic of summary.csv / suite.json leaves a hidden
    # .NAME.<16 hex>.tmp file in the suite folder; resume removes exactly those
    grid = write_grid(tmp_path)
    out = tmp_path / "s"
    hs.run_suite(hs.load_suite(grid), out)
    left = [".summary.csv.0123456789abcdef.tmp", ".suite.json.fedcba9876543210.tmp"]
    for name in left:
        (out / name).write_text("partial")
    kept = {".summary.csv.0123456789abcdef.tmp.bak": "mine", ".notes.0123456789abcdef.tmp":
            "mine", ".summary.csv.0123.tmp": "mine"}
    for name, text in kept.items():
        (out / name).write_text(text)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    os.symlink(victim, out / ".summary.csv.00112233aabbccdd.tmp")  # a link: left alone
    hs.run_suite(hs.load_suite(grid), out)
    assert not any((out / name).exists() for name in left)
    assert all((out / name).read_text() == text for name, text in kept.items())
    assert (out / ".summary.csv.00112233aabbccdd.tmp").is_symlink()
    assert victim.read_text() == "precious"


def test_a_suite_starting_in_the_folder_is_not_taken_for_a_foreign_folder(tmp_path,
                                                                          monkeypatch):
    """A second suite checked the folder while the first was creating it: "no lock yet?"
    then "not empty?" saw the folder before the lock and the lock itself after it, and
    refused with "not a suite directory" (seen once in CI). The folder is listed once."""
    from hawks_deap.campaign.summary import LOCK_FILE

    suite = hs.load_suite(write_grid(tmp_path))
    out = tmp_path / "out"
    out.mkdir()
    listing = Path.iterdir

    def first_suite_creates_its_lock_now(self):
        if self == out and not (out / LOCK_FILE).exists():
            (out / LOCK_FILE).write_text("")  # the first suite's suite_lock, meanwhile
        return listing(self)

    monkeypatch.setattr(Path, "iterdir", first_suite_creates_its_lock_now)
    hs.check_output(out, suite)  # a suite starting: judged again under the lock
    monkeypatch.undo()
    (out / LOCK_FILE).unlink()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="exists and is not a suite directory"):
        hs.check_output(out, suite)


def test_the_command_line_says_a_damaged_run_was_set_aside_in_one_line(tmp_path):
    """As its errors: named with the command, no Python source line, words for a suite."""
    grid = write_grid(tmp_path)
    assert cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path).returncode == 0
    (tmp_path / "s" / "runs" / "c000-r00" / "metadata.json").write_text("{")
    r = cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path)
    assert r.returncode == 0
    (line,) = error_lines(r)
    assert line.startswith("hawks-deap suite: warning: ")
    assert "a suite only replaces those; moved to s/set-aside/c000-r00-1" in line
    assert (tmp_path / "s" / "set-aside" / "c000-r00-1" / "metadata.json").read_text() == "{"


def _digests(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_resume_sets_aside_a_folder_holding_another_run(tmp_path):
    """Another suite's run and a generate output at the paths of runs to do are moved to
    set-aside/, byte for byte, never replaced (check_replaceable alone let them be)."""
    grid = write_grid(tmp_path)
    suite = hs.load_suite(grid)
    out = tmp_path / "out"
    hs.run_suite(suite, out)
    reference = _digests(out / "runs")
    other = tmp_path / "other"
    other_grid = tmp_path / "g2" / "grid.toml"
    other_grid.parent.mkdir()
    other_grid.write_text(grid.read_text().replace("seed = 3", "seed = 4"))
    hs.run_suite(hs.load_suite(other_grid), other)
    assert cli("generate", "--n-samples", "120", "--generations", "2", "--seed", "1",
               "--out", "gen", "--quiet", cwd=tmp_path).returncode == 0
    (out / "summary.csv").unlink()  # every run to do again
    for name, source in (("c000-r00", other / "runs" / "c000-r00"),
                         ("c001-r00", tmp_path / "gen")):
        stray = out / "runs" / name
        for path in stray.iterdir():
            path.unlink()
        stray.rmdir()
        source.rename(stray)
    strays = {name: _digests(out / "runs" / name) for name in ("c000-r00", "c001-r00")}
    with pytest.warns(RuntimeWarning, match="does not hold run c00[01]-r00 of this suite"):
        hs.run_suite(suite, out)
    for name, files in strays.items():
        assert _digests(out / "set-aside" / f"{name}-1") == files
    assert _digests(out / "runs") == reference  # the suite's own runs, redone


def test_a_stray_lock_beside_other_files_is_not_a_suite_starting(tmp_path):
    """Judged under the lock: a folder without suite.json must hold the lock alone."""
    suite = hs.load_suite(write_grid(tmp_path))
    out = tmp_path / "out"
    out.mkdir()
    (out / ".suite.lock").write_text("")
    (out / "summary.csv").write_text("mine\n")
    hs.check_output(out, suite)  # unlocked: maybe a suite starting
    with pytest.raises(hs.OutputRefused, match="exists and is not a suite directory"):
        hs.run_suite(suite, out)
    assert (out / "summary.csv").read_text() == "mine\n"
    assert sorted(p.name for p in out.iterdir()) == [".suite.lock", "summary.csv"]
    r = cli("suite", str(tmp_path / "grid.toml"), "--out", "out", "--quiet", cwd=tmp_path)
    assert r.returncode == 2 and error_lines(r) == [
        f"hawks-deap suite: error: --out {Path('out')} exists and is not a suite directory"]


@pytest.mark.parametrize("kind", ["link", "file"])
def test_a_set_aside_that_is_a_link_or_a_file_is_refused_before_any_work(tmp_path, kind):
    grid = write_grid(tmp_path)
    out = tmp_path / "out"
    hs.run_suite(hs.load_suite(grid), out)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if kind == "link":
        (out / "set-aside").symlink_to(elsewhere, target_is_directory=True)
    else:
        (out / "set-aside").write_text("mine")
    (out / "runs" / "c000-r00" / "notes.txt").write_text("mine")  # to be set aside
    (out / "summary.csv").unlink()
    before = _digests(out)
    r = cli("suite", str(grid), "--out", "out", "--quiet", cwd=tmp_path)
    assert r.returncode == 2 and "set-aside" in error_lines(r)[0], r.stderr
    assert _digests(out) == before and not any(elsewhere.iterdir())


def test_a_grids_own_algorithm_file_is_checked_beside_the_grid(tmp_path):
    """Run from another folder: the check read algo.py from the working folder (missing
    there: refused; present: another file checked than the runs used)."""
    folder = tmp_path / "alg"
    folder.mkdir()
    (folder / "algo.py").write_text(
        "from sklearn.cluster import KMeans\n\n\ndef mine(X, n_clusters, seed):\n"
        "    return KMeans(n_clusters, n_init=1, random_state=seed).fit_predict(X)\n")
    (folder / "grid.toml").write_text(
        '[suite]\nruns = 1\nseed = 1\nmode = "versus"\n[dataset]\nn_samples = 60\n'
        'n_clusters = 2\n[objective]\nwinner = "algo.py:mine"\nloser = "single-linkage"\n'
        "[ga]\ngenerations = 1\npopulation_size = 4\n")
    r = cli("suite", "alg/grid.toml", "--out", "o", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    suite = hs.load_suite(folder / "grid.toml")
    assert suite.configurations[0]["winner"].endswith(str(Path("alg") / "algo.py:mine"))
    assert suite.grid["objective"]["winner"] == "algo.py:mine"  # the seeds' text, as written
    assert len(hs.read_summary(tmp_path / "o")) == 1


def test_a_dask_resume_sizes_its_cluster_by_the_runs_left(tmp_path):
    suite = hs.load_suite(write_grid(tmp_path))
    out = tmp_path / "out"
    assert [t.name for t in hs.runs_to_do(out, suite)] == ["c000-r00", "c001-r00"]
    hs.run_suite(suite, out)
    assert hs.runs_to_do(out, suite) == []
    data = out / "runs" / "c001-r00" / "data.csv"
    data.write_bytes(data.read_bytes()[:-50])  # one run no longer whole
    assert [t.name for t in hs.runs_to_do(out, suite)] == ["c001-r00"]


# ------------------------------------------------------------------ a worker that dies


def test_a_suite_whose_worker_dies_stops_with_one_line(tmp_path):
    """A killed worker (the out-of-memory killer) lost its run and the suite waited for it
    forever, deaf to Ctrl-C: it now stops within a moment, its finished runs kept."""
    grid = write_grid(tmp_path, generations=2000, n_samples=600)
    process = subprocess.Popen([sys.executable, "-m", "hawks_deap.cli", "suite", str(grid),
                                "--out", "s", "--workers", "2", "--quiet"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        workers: list[int] = []
        deadline = time.monotonic() + 120
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            found = subprocess.run(["pgrep", "-P", str(process.pid), "-f", "spawn_main"],
                                   capture_output=True, text=True).stdout.split()
            workers = [int(pid) for pid in found]
        assert len(workers) == 2, "the suite's workers did not start"
        time.sleep(1.0)
        os.kill(workers[0], signal.SIGKILL)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 1
    assert err.strip().splitlines() == [
        f"hawks-deap suite: error while running: RuntimeError: a worker process of the suite "
        f"(pid {workers[0]}) died (killed by signal 9 (SIGKILL: often the out-of-memory "
        "killer)); its run is lost and the suite stops: run the same command again to "
        "resume the runs not finished"]
    time.sleep(0.5)  # the other worker stopped with the suite
    assert subprocess.run(["ps", "-p", str(workers[1])], capture_output=True).returncode != 0


def test_a_suite_killed_while_writing_its_first_suite_json_resumes(tmp_path):
    # the folder then holds the lock and the temporary suite.json alone: it was refused
    # as "not a suite directory" for ever
    grid = write_grid(tmp_path)
    out = tmp_path / "s"
    out.mkdir()
    (out / ".suite.lock").write_text("")
    (out / ".suite.json.0123456789abcdef.tmp").write_text('{"cut sh')
    r = cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not list(out.glob(".suite.json.*.tmp")) and (out / "suite.json").is_file()
    # another file beside the lock still marks a folder that is not a suite's
    other = tmp_path / "t"
    other.mkdir()
    (other / ".suite.lock").write_text("")
    (other / ".suite.json.0123456789abcdef.tmp").write_text("{}")
    (other / "mine.txt").write_text("precious")
    r = cli("suite", str(grid), "--out", "t", "--quiet", cwd=tmp_path)
    assert r.returncode == 2 and "is not a suite directory" in r.stderr
    assert (other / "mine.txt").read_text() == "precious"


def test_a_resume_runs_again_a_run_whose_logbook_was_cut_short(tmp_path):
    # the disk lost the end of a file (what was not synced): only the points and genes
    # were checked, so a cut or empty logbook.csv stayed for ever
    import shutil

    grid = write_grid(tmp_path)
    assert cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path).returncode == 0
    reference = tmp_path / "reference"
    shutil.copytree(tmp_path / "s", reference)
    runs = sorted((tmp_path / "s" / "runs").iterdir())
    with open(runs[0] / "logbook.csv", "r+b") as fh:
        fh.truncate(40)
    (runs[1] / "logbook.csv").write_bytes(b"")
    r = cli("suite", str(grid), "--out", "s", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for run in runs[:2]:
        assert (run / "logbook.csv").read_bytes() == (
            reference / "runs" / run.name / "logbook.csv").read_bytes()


def test_a_suite_whose_runs_folder_is_not_writable_is_refused_before_any_run(
        tmp_path, monkeypatch):
    # as another user, the first run was computed and then lost ("Permission denied")
    from hawks_deap.campaign import summary

    (tmp_path / "s" / "runs").mkdir(parents=True)
    real = os.access
    monkeypatch.setattr(summary.os, "access", lambda path, mode: (
        False if Path(path).name == "runs" else real(path, mode)))
    with pytest.raises(ValueError, match=r"runs is not writable; hawks-deap writes the run "
                                         "folders there"):
        summary.check_runs_dir(tmp_path / "s")
