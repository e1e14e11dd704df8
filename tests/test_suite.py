"""Suites: grid parsing, determinism across backends and workers, kill-and-resume."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import hawks_deap as hd
from hawks_deap.campaign import suite as hs
from hawks_deap.io.dataset import METADATA_FILE
from hawks_deap.settings import config

GRID = """
[suite]
runs = {runs}
seed = 3
mode = "index"

[dataset]
n_samples = [120, 160]
n_clusters = 3

[objective]
target = [0.3, 0.6]

[ga]
generations = {generations}
population_size = 6
"""


def write_grid(tmp_path, runs=1, generations=4, text=None):
    path = tmp_path / "grid.toml"
    path.write_text(text if text is not None else GRID.format(runs=runs,
                                                              generations=generations))
    return path


def cli(*args, cwd=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "hawks_deap.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)


def snapshot(out: Path) -> dict[str, bytes]:
    files = {"summary.csv": (out / "summary.csv").read_bytes()}
    for path in sorted((out / "runs").rglob("*")):
        if path.is_file():
            files[str(path.relative_to(out))] = path.read_bytes()
    return files


def test_grid_expands_to_cartesian_product_with_stable_seeds(tmp_path):
    suite = hs.load_suite(write_grid(tmp_path, runs=2))
    tasks = suite.tasks()
    assert len(suite.configurations) == 4 and len(tasks) == 8
    combos = {(c["n_samples"], c["target"]) for c in suite.configurations}
    assert combos == {(120, 0.3), (120, 0.6), (160, 0.3), (160, 0.6)}
    assert len({t.seed for t in tasks}) == 8
    # adding a value to the grid does not change the seeds of existing configurations
    bigger = hs.load_suite(write_grid(tmp_path, text=GRID.format(runs=2, generations=4)
                                      .replace("[120, 160]", "[120, 140, 160]")))
    old = {(t.values["n_samples"], t.values["target"], t.run): t.seed for t in tasks}
    new = {(t.values["n_samples"], t.values["target"], t.run): t.seed for t in bigger.tasks()}
    assert all(new[k] == v for k, v in old.items())


@pytest.mark.parametrize("text, exc, match", [
    (GRID.replace("n_clusters = 3", "n_cluster = 3"), ValueError, "n_clusters"),
    (GRID.replace("[120, 160]", "[]"), ValueError, "empty"),
    (GRID.replace("population_size = 6", "population_size = 6\nseed = 1"), ValueError,
     r"\[ga\] seed"),
    (GRID.replace('mode = "index"', 'mode = "idx"'), ValueError, "'index'"),
    (GRID.replace("runs = {runs}", "runs = [1, 2]").replace("{generations}", "2"), TypeError,
     "single value"),
    (GRID.replace("n_samples = [120, 160]", "n_samples = [120, 20]"), ValueError,
     r"configuration 2 \(n_samples=20"),
])
def test_bad_grids(tmp_path, text, exc, match):
    path = write_grid(tmp_path, text=text.format(runs=1, generations=2)
                      if "{runs}" in text else text)
    with pytest.raises(exc, match=match):
        hs.load_suite(path)


def test_bad_grid_cli_exit_2_writes_nothing(tmp_path):
    path = write_grid(tmp_path, text=GRID.format(runs=1, generations=2)
                      .replace("n_clusters = 3", "n_clustrs = 3"))
    r = cli("suite", str(path), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "n_clustrs" in r.stderr and "n_clusters" in r.stderr
    assert not (tmp_path / "out").exists()


def test_unreachable_scheduler_exit_2_within_timeout(tmp_path):
    path = write_grid(tmp_path)
    t0 = time.monotonic()
    r = cli("suite", str(path), "--out", str(tmp_path / "out"), "--backend", "dask",
            "--scheduler", "tcp://127.0.0.1:1", timeout=120)
    assert r.returncode == 2 and "tcp://127.0.0.1:1" in r.stderr
    assert time.monotonic() - t0 < 60
    assert not (tmp_path / "out").exists()


def test_the_readmes_dask_command_runs_and_scheduler_takes_no_workers(tmp_path):
    path = write_grid(tmp_path)
    r = cli("suite", str(path), "--out", str(tmp_path / "dask"), "--backend", "dask",
            "--workers", "2", "--quiet")
    assert r.returncode == 0, r.stderr
    hs.run_suite(hs.load_suite(path), tmp_path / "one")
    assert snapshot(tmp_path / "dask") == snapshot(tmp_path / "one")
    r = cli("suite", str(path), "--out", str(tmp_path / "out"), "--backend", "dask",
            "--scheduler", "tcp://127.0.0.1:1", "--workers", "2")
    assert r.returncode == 2 and "with --scheduler the scheduler's workers" in r.stderr


def test_workers_and_backends_give_identical_results(tmp_path):
    suite = hs.load_suite(write_grid(tmp_path))
    hs.run_suite(suite, tmp_path / "one", workers=1)
    hs.run_suite(suite, tmp_path / "two", workers=2)
    hs.run_suite(suite, tmp_path / "dask", workers=2, backend="dask")
    ref = snapshot(tmp_path / "one")
    assert len([k for k in ref if k.endswith("data.csv")]) == 4
    assert snapshot(tmp_path / "two") == ref
    assert snapshot(tmp_path / "dask") == ref
    rows = hs.summary_rows(tmp_path / "one")
    assert [r["config_id"] for r in rows] == ["c000", "c001", "c002", "c003"]
    assert {"fitness", "index_value", "overlap", "feature_silhouette", "path"} <= set(rows[0])
    assert rows[0]["index"] == "silhouette"


VERSUS_GRID = """
[suite]
runs = 1
seed = 5
mode = "versus"

[dataset]
n_samples = [80, 100]
n_clusters = 3

[objective]
winner = "kmeans++"
loser = "single-linkage"

[ga]
generations = 2
population_size = 4
"""


def test_duplicate_grid_values_are_refused(tmp_path):
    """Issue 19, point 9: n_samples = [300, 300] would make two identical configurations."""
    grid = write_grid(tmp_path, text=GRID.format(runs=1, generations=2).replace(
        "n_samples = [120, 160]", "n_samples = [300, 300]"))
    with pytest.raises(ValueError, match=r"\[dataset\] n_samples lists 300 twice"):
        hs.load_suite(grid)
    r = cli("suite", str(grid), "--out", str(tmp_path / "out"), "--quiet")
    assert r.returncode == 2 and "n_samples lists 300 twice" in r.stderr
    assert not (tmp_path / "out").exists()


def test_versus_suite_runs_evaluate_serially_and_give_the_same_bytes(tmp_path, monkeypatch):
    """A Versus run defaults to a pool of its own; in a suite, whose workers are the
    parallelism, it evaluates serially, in the suite's own process too."""
    import hawks_deap.algorithms.pool

    def no_pool(*args, **kwargs):
        raise AssertionError("a suite run started a pool of its own")

    suite = hs.load_suite(write_grid(tmp_path, text=VERSUS_GRID))
    with monkeypatch.context() as patch:
        patch.setattr(hawks_deap.algorithms.pool, "ProblemPool", no_pool)
        hs.run_suite(suite, tmp_path / "one", workers=1)
    hs.run_suite(suite, tmp_path / "two", workers=2)
    ref = snapshot(tmp_path / "one")
    assert len([k for k in ref if k.endswith("data.csv")]) == 2
    # a Versus run of a suite holds its partitions, as one of `hawks-deap versus` does
    assert len([k for k in ref if k.endswith("partitions.csv")]) == 2
    assert snapshot(tmp_path / "two") == ref
    redone = []
    hs.run_suite(suite, tmp_path / "two", on_row=redone.append)
    assert redone == []  # a Versus run's folder checks out on resume


def test_a_client_or_scheduler_needs_dask_and_its_own_workers(tmp_path):
    suite = hs.load_suite(write_grid(tmp_path))
    with pytest.raises(ValueError, match="client needs backend='dask'"):
        hs.run_suite(suite, tmp_path / "out", client=object())
    with pytest.raises(ValueError, match="workers=2 starts a LocalCluster"):
        hs.run_suite(suite, tmp_path / "out", backend="dask", scheduler="tcp://nowhere:1",
                     workers=2)
    assert not (tmp_path / "out").exists()


def test_a_damaged_run_folder_is_set_aside_and_the_run_redone(tmp_path):
    suite = hs.load_suite(write_grid(tmp_path))
    out = tmp_path / "out"
    hs.run_suite(suite, out)
    ref = snapshot(out)
    folder = out / "runs" / "c000-r00"
    (folder / METADATA_FILE).write_text("{")  # unreadable: not known to be hawks-deap's
    redone = []
    with pytest.warns(RuntimeWarning, match=r"moved to .*set-aside.c000-r00-1 and the run "
                                            r"is redone"):
        hs.run_suite(suite, out, on_row=redone.append)
    assert [(r["config_id"], r["run"]) for r in redone] == [("c000", "0")]
    assert snapshot(out) == ref  # the same bytes again, at the run's path
    assert (out / "set-aside" / "c000-r00-1" / METADATA_FILE).read_text() == "{"


def test_resume_skips_finished_runs_and_refuses_other_grids(tmp_path):
    suite = hs.load_suite(write_grid(tmp_path))
    out = tmp_path / "out"
    hs.run_suite(suite, out)
    seen = []
    hs.run_suite(suite, out, on_row=seen.append)
    assert seen == []
    other = hs.load_suite(write_grid(tmp_path, generations=3))
    with pytest.raises(ValueError, match="different suite") as refused:
        hs.run_suite(other, out)
    # the refusal says what changed, so the user need not diff the two grids
    assert "generations" in str(refused.value) and "-> 3" in str(refused.value)


def test_raising_runs_adds_runs_and_keeps_the_finished_ones(tmp_path):
    """Growing [suite] runs resumes into the same folder: the finished runs are not redone
    or rewritten, and the folder ends as a suite run with the larger count from scratch."""
    out = tmp_path / "grown"
    hs.run_suite(hs.load_suite(write_grid(tmp_path, runs=1)), out)
    first = snapshot(out)
    added = []
    grown = hs.load_suite(write_grid(tmp_path, runs=2))
    hs.run_suite(grown, out, on_row=added.append)
    assert sorted((r["config_id"], r["run"]) for r in added) == [
        (c, "1") for c in ("c000", "c001", "c002", "c003")]
    after = snapshot(out)
    assert all(after[k] == v for k, v in first.items() if k != "summary.csv")
    hs.run_suite(grown, tmp_path / "fresh")
    assert snapshot(tmp_path / "fresh") == after
    with pytest.raises(ValueError, match=r"different suite .*only \[suite\] runs may grow"):
        hs.run_suite(hs.load_suite(write_grid(tmp_path, runs=1)), out)


def test_sigkill_then_resume_gives_identical_results(tmp_path):
    grid = write_grid(tmp_path, runs=3, generations=6)
    ref = tmp_path / "ref"
    r = cli("suite", str(grid), "--out", str(ref), "--quiet")
    assert r.returncode == 0, r.stderr
    out = tmp_path / "killed"
    interrupted = []
    for wait_rows in (2, 7):  # kill twice, at different moments
        proc = subprocess.Popen([sys.executable, "-m", "hawks_deap.cli", "suite", str(grid),
                                 "--out", str(out), "--quiet"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            summary = out / "summary.csv"
            if summary.exists() and len(summary.read_text().splitlines()) - 1 >= wait_rows:
                break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        interrupted.append(len(hs.read_summary(out)))
    assert interrupted[0] < 12  # the first kill stopped an unfinished suite
    r = cli("suite", str(grid), "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    assert snapshot(out) == snapshot(ref)
    assert not [p for p in (out / "runs").iterdir() if p.name.startswith(".")]


def test_longest_runs_start_first_and_order_changes_nothing(tmp_path):
    suite = hs.load_suite(write_grid(tmp_path, runs=2, generations=2))
    costs = {t.config_id: hs.cost_estimate(t) for t in suite.tasks()}
    big = {t.config_id for t in suite.tasks() if t.values["n_samples"] == 160}
    assert min(costs[c] for c in big) > max(c for k, c in costs.items() if k not in big)
    seen = []
    hs.run_suite(suite, tmp_path / "out",
                 on_row=lambda row: seen.append((row["config_id"], int(row["run"]))))
    # N = 160 configurations first; among equal costs run 0 of each, then run 1, so a
    # suite stopped part way holds as many runs of each configuration
    small = sorted(set(costs) - big)
    assert seen == ([(c, 0) for c in sorted(big)] + [(c, 1) for c in sorted(big)]
                    + [(c, 0) for c in small] + [(c, 1) for c in small])
    rows = hs.summary_rows(tmp_path / "out")
    assert [(r["config_id"], int(r["run"])) for r in rows] == sorted(seen)  # summary sorted


@pytest.mark.parametrize("line, message", [
    ("runs = 1000000000000", r"runs = 1,000,000,000,000.*at most 10,000,000"),
    ("runs = 1\n[objective]\ntarget = [" + ", ".join(f"0.{i:06d}" for i in range(1, 400))
     + "]\n[dataset]\nn_clusters = [" + ", ".join(str(k) for k in range(2, 302)) + "]",
     r"expands to 119,700 configurations; at most 100,000"),
])
def test_suites_too_large_are_refused_before_any_work(tmp_path, line, message):
    """Issue 19, point 5: no validation of a million configurations, no 10^12 runs."""
    text = f"[suite]\nmode = \"index\"\n{line}\n[ga]\ngenerations = 2\n"
    grid = write_grid(tmp_path, text=text)
    with pytest.raises(ValueError, match=message):
        hs.load_suite(grid)


def test_long_suites_are_announced_even_when_quiet(tmp_path):
    grid = write_grid(tmp_path, text="[suite]\nruns = 20000\n[ga]\ngenerations = 1\n"
                                     "population_size = 2\n[dataset]\nn_samples = 50\n"
                                     "n_clusters = 2\n")
    (tmp_path / "out").write_text("not a suite folder: the command stops after the warning")
    r = cli("suite", str(grid), "--out", str(tmp_path / "out"), "--quiet")
    assert r.returncode == 2 and "warning: 20,000 runs" in r.stderr


def _damage(out, how):
    summary = out / "summary.csv"
    text = summary.read_text()
    lines = text.splitlines(keepends=True)
    first, second = sorted((out / "runs").iterdir())[:2]
    if how == "cut mid-row":
        summary.write_text(text[: len(text) - len(lines[-1]) // 2])
    elif how == "garbage header":
        summary.write_text("what,is,this\n" + "".join(lines[1:]))
    elif how == "non-integer run":
        cells = lines[2].split(",")
        cells[1] = "one"
        summary.write_text("".join([*lines[:2], ",".join(cells), *lines[3:]]))
    elif how == "deleted run folder":
        import shutil

        shutil.rmtree(first)
    elif how == "swapped run folders":  # each folder is whole, but another run's
        first.rename(out / "runs" / "swap")
        second.rename(first)
        (out / "runs" / "swap").rename(second)
    elif how.startswith("cut "):  # as a disk that lost what it had not synced
        file = first / how.removeprefix("cut ")
        data = file.read_bytes()
        file.write_bytes(data[: len(data) // 2])
    elif how == "emptied data.csv":
        (first / "data.csv").write_bytes(b"")


@pytest.mark.parametrize("how", ["cut mid-row", "garbage header", "non-integer run",
                                 "deleted run folder", "swapped run folders", "cut data.csv",
                                 "cut genes.json", "emptied data.csv"])
def test_resume_redoes_runs_whose_row_and_folder_do_not_agree(tmp_path, how):
    """Issue 19, point 3: resume trusts a run only when its summary row and folder agree:
    the folder is the run's own and no file was cut short."""
    suite = hs.load_suite(write_grid(tmp_path))
    hs.run_suite(suite, tmp_path / "ref")
    out = tmp_path / "out"
    hs.run_suite(suite, out)
    _damage(out, how)
    redone = []
    # a folder at a redone run's path that is not that run, whole, is set aside (kept)
    moved = {"swapped run folders": 2, "cut data.csv": 1, "cut genes.json": 1,
             "emptied data.csv": 1}.get(how, 0)
    with (pytest.warns(RuntimeWarning, match="does not hold run") if moved
          else contextlib.nullcontext()):
        hs.run_suite(suite, out, on_row=redone.append)
    assert len(list((out / "set-aside").glob("*"))) == moved
    assert redone  # something was run again
    assert len(redone) == {"garbage header": 4, "swapped run folders": 2}.get(how, 1)
    assert snapshot(out) == snapshot(tmp_path / "ref")


def test_a_corrupt_suite_json_is_named(tmp_path):
    suite = hs.load_suite(write_grid(tmp_path))
    out = tmp_path / "out"
    hs.run_suite(suite, out)
    (out / "suite.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"suite\.json cannot be read"):
        hs.run_suite(suite, out)


def test_a_second_suite_on_the_same_folder_is_refused_while_the_first_runs(tmp_path):
    suite = hs.load_suite(write_grid(tmp_path))
    out = tmp_path / "out"
    with hs.suite_lock(out):  # as if another process were running the suite
        with pytest.raises(ValueError, match=r"another hawks-deap suite is running there "
                                             rf"\(pid {os.getpid()}\)"):
            hs.run_suite(suite, out)
    hs.run_suite(suite, out)  # the lock is free again


def test_two_suite_processes_on_one_folder_never_crash_nor_change_the_results(tmp_path):
    """Issue 19, point 2: real processes started together, 10 times."""
    grid = write_grid(tmp_path, text=GRID.format(runs=1, generations=2).replace(
        "target = [0.3, 0.6]", "target = 0.3"))
    ref = tmp_path / "ref"
    assert cli("suite", str(grid), "--out", str(ref), "--quiet").returncode == 0
    expected = snapshot(ref)
    for i in range(10):
        out = tmp_path / f"out{i}"
        cmd = [sys.executable, "-m", "hawks_deap.cli", "suite", str(grid), "--out", str(out),
               "--quiet"]
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(2)]
        results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
        for p in procs:
            p.stdout.close()
            p.stderr.close()
        codes = sorted(code for code, _ in results)
        assert codes in ([0, 0], [0, 2]), results
        for code, err in results:
            assert "Traceback" not in err
            if code == 2:
                assert "another hawks-deap suite is running there" in err
        assert snapshot(out) == expected


def test_an_npz_suite_has_the_csv_suites_results(tmp_path):
    csv_suite = hs.load_suite(write_grid(tmp_path))
    text = GRID.format(runs=1, generations=4).replace('mode = "index"',
                                                      'mode = "index"\nformat = "npz"')
    npz_suite = hs.load_suite(write_grid(tmp_path, text=text))
    hs.run_suite(csv_suite, tmp_path / "csv")
    hs.run_suite(npz_suite, tmp_path / "npz")
    assert (tmp_path / "csv" / "summary.csv").read_bytes() == \
        (tmp_path / "npz" / "summary.csv").read_bytes()  # same seeds, same datasets
    for run in (tmp_path / "npz" / "runs").iterdir():
        assert (run / "data.npz").is_file() and not (run / "data.csv").exists()
        other = hd.Dataset.load(tmp_path / "csv" / "runs" / run.name)
        assert hd.Dataset.load(run).X.tobytes() == other.X.tobytes()
    redone = []
    hs.run_suite(npz_suite, tmp_path / "npz", on_row=redone.append)
    assert redone == []  # resumes: every run checks out
    before = snapshot(tmp_path / "npz")
    npz = sorted((tmp_path / "npz" / "runs").iterdir())[0] / "data.npz"
    npz.write_bytes(npz.read_bytes()[:-100])  # cut short: the zip's directory is lost
    with pytest.warns(RuntimeWarning, match="does not hold run"):  # set aside, redone
        hs.run_suite(npz_suite, tmp_path / "npz", on_row=redone.append)
    assert len(redone) == 1 and snapshot(tmp_path / "npz") == before


def test_suite_preset_option_sets_every_configuration_over_the_grid(tmp_path):
    grid = write_grid(tmp_path, text=VERSUS_GRID.replace("[ga]", '[ga]\nreturns = "final-fittest"'))
    plain = hs.load_suite(grid)
    tevc = hs.load_suite(grid, preset="hawks-tevc")
    assert [c["preset"] for c in plain.configurations] == [None, None]
    assert [c["preset"] for c in tevc.configurations] == ["hawks-tevc", "hawks-tevc"]
    assert tevc.describe() != plain.describe()  # another suite: it does not resume plain's
    assert {t.seed for t in tevc.tasks()}.isdisjoint(t.seed for t in plain.tasks())
    with_preset = write_grid(tmp_path, text=VERSUS_GRID.replace("[ga]", '[ga]\npreset = "x"'))
    with pytest.raises(ValueError, match=r"\[ga\] preset in .* must be one of 'hawks-tevc'"):
        hs.load_suite(with_preset)
    assert hs.load_suite(with_preset, preset="hawks-tevc").describe()["grid"]["ga"][
        "preset"] == "hawks-tevc"  # the command line's preset wins over the file's
    out = tmp_path / "out"
    r = cli("suite", str(grid), "--preset", "hawks-tevc", "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    meta = json.loads((out / "runs" / "c000-r00" / "metadata.json").read_text())
    assert meta["problem"]["winner_settings"]["n_init"] == 10
    r = cli("suite", str(grid), "--preset", "paper", "--out", str(out))
    assert r.returncode == 2 and "--preset: must be one of 'hawks-tevc', got 'paper'" in r.stderr


def test_shared_grid_checks_accept_what_they_should_and_name_what_they_refuse():
    """The checks `load_suite` and HAWKS configs share, one by one at their boundaries."""
    hs.check_distinct("[dataset] n_samples", [300, 400, 300.5], "")
    hs.check_distinct("x", [1, 1.0, True], "")  # equal values of different types differ
    with pytest.raises(ValueError, match=r"^x lists 'a' twice: each value makes its own "
                                         r"configurations; fix it$"):
        hs.check_distinct("x", ["a", "b", "a"], "; fix it")
    hs.check_size(hs.MAX_CONFIGURATIONS, hs.MAX_RUNS // hs.MAX_CONFIGURATIONS, runs_name="r")
    with pytest.raises(ValueError, match="expands to 100,001 configurations; at most 100,000"):
        hs.check_size(hs.MAX_CONFIGURATIONS + 1, 1, runs_name="r")
    with pytest.raises(ValueError, match=r"^\[suite\] runs = 101 in g.toml: 100,000 "
                                         r"configurations x 101 runs = 10,100,000 runs"):
        hs.check_size(hs.MAX_CONFIGURATIONS, 101, runs_name="[suite] runs", where=" in g.toml")
    values = hs.checked_configuration("versus", {"objective": {"winner": "gmm",
                                                               "loser": "kmeans++"},
                                                 "ga": {"seed": 7, "n_jobs": 2}},
                                      {"min_size": 5}, 0, "first")
    assert "seed" not in values and "n_jobs" not in values  # derived per run / per worker
    assert (values["winner"], values["loser"], values["min_size"]) == ("gmm", "kmeans++", 5)
    expected = config.resolve("versus", {"objective": {"winner": "gmm", "loser": "kmeans++"}})
    del expected["seed"], expected["n_jobs"]
    assert values == {**expected, "min_size": 5}
    with pytest.raises(ValueError, match=r"^configuration 3 \(n=5\) in g.toml: "):
        hs.checked_configuration("generate", {"dataset": {"n_samples": 5, "n_clusters": 4}},
                                 {"min_size": 2}, 3, "n=5", " in g.toml")


def test_differences_names_each_changed_place_up_to_the_limit():
    differences = config.differences
    before = {"runs": 2, "grid": {"ga": {"generations": 4, "pop": 10}}, "k": [1, 2], "x": [1]}
    after = {"runs": 2, "grid": {"ga": {"generations": 3}}, "k": [1, 5], "x": [1, 2],
             "new": "a"}
    assert differences(before, after, limit=10) == [
        "grid.ga.generations: 4 -> 3", 'grid.ga.pop: 10 -> "(absent)"', "k[1]: 2 -> 5",
        'new: "(absent)" -> "a"', "x: [1] -> [1, 2]"]
    assert differences(before, after) == differences(before, after, limit=10)[:3]
    assert differences(before, json.loads(json.dumps(before))) == []
    assert differences(1, "1") == ["(whole): 1 -> \"1\""]
