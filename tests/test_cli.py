import csv
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap import cli
from hawks_deap.analysis.features import FEATURE_NAMES, problem_features

PNG = b"\x89PNG\r\n\x1a\n"


def run_cli(*args, cwd=None):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "hawks_deap.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300, env=env)


def main(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_png(path):
    data = path.read_bytes()
    assert data[:8] == PNG and len(data) > 2000, path


def test_generate_writes_dataset_and_logbook(tmp_path):
    out = tmp_path / "run"
    r = run_cli("generate", "--n-samples", "200", "--n-clusters", "3", "--generations", "4",
                "--seed", "1", "--out", str(out))
    assert r.returncode == 0, r.stderr
    ds = hd.Dataset.load(out)
    assert ds.X.shape == (200, 2) and len(np.unique(ds.y)) == 3
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["seed"] == 1
    log = (out / "logbook.csv").read_text().splitlines()
    assert log[0].startswith("gen,nevals") and len(log) == 6
    # two processes (a helper evaluates part of each generation): the same data
    r = run_cli("generate", "--n-samples", "200", "--n-clusters", "3", "--generations", "4",
                "--seed", "1", "--n-jobs", "2", "--out", str(tmp_path / "two"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "two" / "data.csv").read_bytes() == (out / "data.csv").read_bytes()


def test_generate_bad_input_exit_2_and_nothing_written(tmp_path):
    out = tmp_path / "bad"
    r = run_cli("generate", "--target", "3", "--out", str(out))
    assert r.returncode == 2 and "target" in r.stderr
    assert not out.exists()
    r = run_cli("generate", "--mean-mutation", "levy", "--out", str(out))
    assert r.returncode == 2 and "mean-mutation" in r.stderr
    assert not out.exists()


def test_end_to_end_config_generate_load_features_plot(tmp_path):
    """Subprocesses in a fresh directory: generate (config + override), load, features,
    plot."""
    cfg = tmp_path / "run.toml"
    cfg.write_text("[dataset]\nn_samples = 240\nn_clusters = 3\nn_dims = 3\n\n"
                   "[objective]\ntarget = 0.6\n\n[constraints]\nmax_overlap = 0.2\n\n"
                   "[ga]\ngenerations = 3\npopulation_size = 4\nseed = 5\n")
    r = run_cli("generate", "--config", "run.toml", "--seed", "8", "--out", "run",
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # stderr is not a terminal: no progress bar
    assert "wrote run" in r.stdout
    run = tmp_path / "run"
    assert sorted(p.name for p in run.iterdir()) == ["data.csv", "genes.json", "logbook.csv",
                                                     "metadata.json"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    umask = os.umask(0)
    os.umask(umask)
    assert run.stat().st_mode & 0o777 == 0o777 & ~umask  # a normal folder, not 0700
    ds = hd.Dataset.load(run)
    assert ds.X.shape == (240, 3) and len(ds.genotype) == 3
    meta = json.loads((run / "metadata.json").read_text())
    assert meta["seed"] == 8                       # the command line overrides the file
    assert meta["problem"]["target"] == 0.6        # the file overrides the default
    assert meta["problem"]["constraints"] == [{"type": "Overlap", "min": None, "max": 0.2}]
    assert meta["command"]["settings"]["generations"] == 3
    assert meta["command"]["config_file"] == "run.toml"
    assert len((run / "logbook.csv").read_text().splitlines()) == 5

    r = run_cli("features", "run", "--out", "features.csv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO((tmp_path / "features.csv").read_text())))
    assert len(rows) == 1 and rows[0]["dataset"] == "run"
    expected = problem_features(ds.X, ds.y)
    for name in FEATURE_NAMES:
        assert float(rows[0][name]) == pytest.approx(expected[name], rel=1e-12)

    r = run_cli("plot", "run", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert_png(run / "dataset.png")
    assert_png(run / "convergence.png")
    assert (run / "dataset.png").stat().st_mode & 0o777 == 0o666 & ~umask


def test_bad_inputs_exit_2_name_the_problem_and_write_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    cases = [
        (["--n-samples", "0"], "--n-samples"),
        (["--n-clusters", "x"], "--n-clusters"),
        (["--max-overlap", "1.5"], "--max-overlap"),
        (["--metric", "cosine"], "--metric"),
        (["--n-samples", "20", "--n-clusters", "5"], "n_samples"),
        (["--mean-mutation", "de", "--n-clusters", "2"], "--mean-mutation de"),
        (["--config", tmp_path / "missing.toml"], "missing.toml"),
        (["--target", "1.5"], "target must lie in [-1, 1]"),  # the silhouette's range
        (["--index", "davies_bouldin", "--target", "-0.5"], "target must lie in [0, inf)"),
    ]
    for extra, needle in cases:
        code, _, err = main(capsys, "generate", *extra, "--out", out)
        assert code == 2, (extra, err)
        assert needle in err, (extra, err)
        assert not out.exists()
    bad_key = tmp_path / "bad.toml"
    bad_key.write_text("[ga]\npopulation = 4\n")
    code, _, err = main(capsys, "generate", "--config", bad_key, "--out", out)
    assert code == 2 and "[ga] population" in err and "population_size" in err
    bad_type = tmp_path / "type.toml"
    bad_type.write_text('[dataset]\nn_dims = "two"\n')
    code, _, err = main(capsys, "generate", "--config", bad_type, "--out", out)
    assert code == 2 and "[dataset] n_dims" in err and "integer >= 1" in err
    wrong_command = tmp_path / "versus.toml"
    wrong_command.write_text('[objective]\nwinner = "gmm"\n')
    code, _, err = main(capsys, "generate", "--config", wrong_command, "--out", out)
    assert code == 2 and "[objective] winner" in err
    code, _, err = main(capsys, "generate", "--n-samples", "100")
    assert code == 2 and "--out" in err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        "bad.toml", "type.toml", "versus.toml"]


def test_out_must_not_exist_unless_overwrite(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["generate", "--n-samples", "150", "--n-clusters", "3", "--generations", "2",
            "--population-size", "4", "--quiet", "--out", out]
    code, stdout, _ = main(capsys, *args)
    assert code == 0 and stdout == ""  # --quiet: no summary
    before = (out / "data.csv").read_text()
    code, _, err = main(capsys, *args)
    assert code == 2 and "already exists" in err and "--overwrite" in err
    code, _, err = main(capsys, *args[:-2], "--seed", "7", "--overwrite", "--out", out)
    assert code == 0, err
    assert (out / "data.csv").read_text() != before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no leftovers
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    code, _, err = main(capsys, *args[:-2], "--overwrite", "--out", other)
    assert code == 2 and "not a hawks-deap output" in err
    assert (other / "keep.txt").read_text() == "mine"


def test_progress_bar_only_on_a_terminal_and_not_quiet(tmp_path, capsys, monkeypatch):
    seen = []
    real = hd.evolve

    def spy(*args, **kwargs):
        seen.append(kwargs["progress"])
        return real(*args, **kwargs)

    monkeypatch.setattr(hd.algorithms.loop, "evolve", spy)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    base = ["generate", "--n-samples", "150", "--n-clusters", "3", "--generations", "2",
            "--population-size", "4"]
    assert main(capsys, *base, "--out", tmp_path / "a")[0] == 0
    assert main(capsys, *base, "--quiet", "--out", tmp_path / "b")[0] == 0
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert main(capsys, *base, "--out", tmp_path / "c")[0] == 0
    assert seen == [True, False, False]


def test_n_jobs_above_one_says_when_the_run_evaluates_in_this_process(tmp_path, capsys):
    import logging

    base = ["generate", "--n-samples", "150", "--n-clusters", "3", "--generations", "2",
            "--population-size", "4", "--seed", "0"]
    code, _, err = main(capsys, *base, "--n-jobs", "2", "--out", tmp_path / "a")
    assert code == 0
    assert "hawks-deap generate: note: n_jobs=2: P x N x (K + D) = 4 x 150 x (3 + 2)" in err
    assert "evaluates serially" in err
    for extra, name in ((["--n-jobs", "2", "--quiet"], "b"), (["--n-jobs", "1"], "c")):
        code, _, err = main(capsys, *base, *extra, "--out", tmp_path / name)
        assert code == 0 and "note:" not in err
    assert (tmp_path / "a" / "data.csv").read_bytes() == (tmp_path / "c" / "data.csv").read_bytes()
    logger = logging.getLogger("hawks_deap.algorithms.loop")
    assert logger.handlers == [] and logger.level == logging.NOTSET  # left as it was


@pytest.mark.parametrize("command", [[], ["generate"], ["versus"], ["features"], ["plot"],
                                     ["suite"]])
def test_help_everywhere(capsys, command):
    code, out, _ = main(capsys, *command, "--help")
    assert code == 0 and "usage: hawks-deap" in out


def test_features_and_plot_of_a_collection(tmp_path, capsys):
    for i, target in enumerate((0.3, 0.7)):
        for seed in (0, 1):
            problem = hd.IndexProblem(120, 3, 2, target=target)
            ds = hd.evolve(problem, population_size=4, generations=2, seed=seed).best_dataset()
            ds.save(tmp_path / "coll" / f"t{i}" / f"run{seed}")
    code, out, err = main(capsys, "features", tmp_path / "coll" / "t0",
                          tmp_path / "coll" / "t1", "--format", "json",
                          "--algorithms", "kmeans++,single-linkage-2k")
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 4
    assert set(rows[0]) == {"dataset", *FEATURE_NAMES, "ari_kmeans++",
                            "ari_single-linkage-2k"}
    code, out, err = main(capsys, "features", tmp_path / "coll" / "t0", "--format", "csv")
    assert code == 0 and out.splitlines()[0] == "dataset," + ",".join(FEATURE_NAMES)

    figs = tmp_path / "figs"
    code, _, err = main(capsys, "plot", tmp_path / "coll" / "t0", tmp_path / "coll" / "t1")
    assert code == 2 and "--out DIR is required" in err
    code, out, err = main(capsys, "plot", tmp_path / "coll" / "t0", tmp_path / "coll" / "t1",
                          "--out", figs, "--algorithms", "kmeans++,gmm")
    assert code == 0, err
    for name in ("instance_space.png", "instance_space_best.png", "performance.png"):
        assert_png(figs / name)
    code, _, err = main(capsys, "plot", tmp_path / "coll" / "t0", tmp_path / "coll" / "t1",
                        "--out", figs)
    assert code == 2 and "instance_space.png already exists" in err


def test_features_and_plot_bad_paths(tmp_path, capsys):
    code, _, err = main(capsys, "features", tmp_path / "nothing")
    assert code == 2 and "nothing does not exist" in err
    (tmp_path / "empty").mkdir()
    code, _, err = main(capsys, "plot", tmp_path / "empty")
    assert code == 2 and "neither a dataset directory" in err
    ds = hd.Dataset(np.zeros((4, 2)), [0, 0, 1, 1])
    ds.save(tmp_path / "d")
    code, _, err = main(capsys, "features", tmp_path / "d", "--algorithms", "kmeans")
    assert code == 2 and "did you mean 'kmeans++'" in err
    (tmp_path / "t.csv").write_text("x")
    code, _, err = main(capsys, "features", tmp_path / "d", "--out", tmp_path / "t.csv")
    assert code == 2 and "already exists" in err
    assert (tmp_path / "t.csv").read_text() == "x"
    # a link at --out: even with --overwrite, neither deleted nor written through
    (tmp_path / "link.csv").symlink_to(tmp_path / "t.csv")
    code, _, err = main(capsys, "features", tmp_path / "d", "--out", tmp_path / "link.csv",
                        "--overwrite")
    assert code == 2 and "link.csv is a symbolic link" in err
    assert (tmp_path / "link.csv").is_symlink() and (tmp_path / "t.csv").read_text() == "x"
    # --format and the file's suffix disagree: refused, not written silently as the suffix
    code, _, err = main(capsys, "features", tmp_path / "d", "--format", "json",
                        "--out", tmp_path / "f.csv")
    assert code == 2 and "--format json disagrees with --out" in err
    assert not (tmp_path / "f.csv").exists()
    big = hd.Dataset(np.random.default_rng(0).normal(size=(40, 2)), [0, 1] * 20)
    big.save(tmp_path / "big")
    code, _, err = main(capsys, "features", tmp_path / "big", "--format", "csv",
                        "--out", tmp_path / "f.csv")
    assert code == 0 and (tmp_path / "f.csv").read_text().startswith("dataset,")
    # an --out that can never be written is refused before the features are computed
    code, _, err = main(capsys, "features", tmp_path / "big", "--out", tmp_path / "t.csv" / "f")
    assert code == 2 and f"{tmp_path / 't.csv'} is not a directory" in err
    code, _, err = main(capsys, "plot", tmp_path / "big", "--out", tmp_path / "t.csv" / "figs")
    assert code == 2 and f"{tmp_path / 't.csv'} is not a directory" in err
    # a dataset directory has one partition: --labels 1 would be silently ignored
    code, _, err = main(capsys, "features", tmp_path / "d", "--labels", "1")
    assert code == 2 and "--labels 1 chooses a battery dataset's partition" in err


def test_pairwise_algorithms_are_refused_on_data_too_large_for_their_distances(
        tmp_path, capsys, monkeypatch):
    """Those that declare every pairwise distance (checked by tracemalloc in
    test_clustering_library) are refused up front; the others run."""
    from hawks_deap._util import memory as _memory
    from hawks_deap.clustering import available_algorithms, get_algorithm

    n = 60
    hd.Dataset(np.random.default_rng(0).normal(size=(n, 2)), np.arange(n) % 2).save(
        tmp_path / "d")
    # room for the data, not for two copies of 60 * 59 / 2 distances of 8 bytes
    monkeypatch.setattr(_memory, "total_memory", lambda: 8 * n * (n - 1) - 1)
    algorithms = {}
    for name in available_algorithms():
        try:
            algorithms[name] = get_algorithm(name)
        except ImportError:  # an optional extra not installed
            continue
    pairwise = [a for a, algorithm in algorithms.items() if algorithm.pairwise]
    assert {"average-linkage", "average-linkage-2k", "complete-linkage",
            "complete-linkage-2k", "ward-linkage"} == set(pairwise)
    for name in pairwise:
        code, _, err = main(capsys, "features", tmp_path / "d", "--algorithms",
                            f"kmeans++,{name}")
        assert code == 2, err
        assert f"{name} (all 1,770 pairwise distances) needs at least 28.3 kB" in err
        assert f"leave {name} out or this dataset" in err
    others = [a for a in algorithms if a not in pairwise]
    code, out, err = main(capsys, "features", tmp_path / "d", "--algorithms",
                          ",".join(others), "--format", "csv")
    assert code == 0, err
    assert all(f"ari_{a}" in out.splitlines()[0] for a in others)
    # the one check behind both: 60 * 59 / 2 = 1,770 distances of 8 bytes, twice (pdist's
    # matrix and linkage's copy) = 28,320 bytes
    with pytest.raises(ValueError, match=r"n_samples=60: ward-linkage \(all 1,770 pairwise "
                                         r"distances\) needs at least 28.3 kB"):
        get_algorithm("ward-linkage").check_memory(n, {"n_samples": n})
    get_algorithm("single-linkage").check_memory(n, {"n_samples": n})  # declares no need
    monkeypatch.setattr(_memory, "total_memory", lambda: 8 * n * (n - 1))  # exactly enough
    get_algorithm("ward-linkage").check_memory(n, {"n_samples": n})
    monkeypatch.setattr(_memory, "total_memory", lambda: 8 * n * (n - 1) - 1)
    # Versus problems check it when built: the versus command, suites and the API
    code, _, err = main(capsys, "versus", "gmm", "average-linkage", "--n-samples", n,
                        "--n-clusters", 2, "--out", tmp_path / "v")
    assert code == 2 and "loser 'average-linkage' (all 1,770 pairwise distances)" in err
    assert not (tmp_path / "v").exists()
    with pytest.raises(ValueError, match="other 'ward-linkage' .* needs at least 28.3 kB"):
        hd.MultiVersusProblem("gmm", ["kmeans++"], others=["single-linkage", "ward-linkage"],
                              n_samples=n, n_clusters=2, n_dims=2)
    hd.VersusProblem("gmm", "single-linkage", n_samples=n, n_clusters=2, n_dims=2)


def test_versus_needs_winner_and_loser(tmp_path, capsys):
    code, _, err = main(capsys, "versus", "--out", tmp_path / "v")
    assert code == 2 and "versus needs WINNER and LOSER" in err
    code, _, err = main(capsys, "versus", "gmn", "kmeans++", "--out", tmp_path / "v")
    assert code == 2 and "WINNER" in err and "did you mean 'gmm'" in err
    assert not (tmp_path / "v").exists()


@pytest.mark.parametrize("command, given, expected", [
    (["versus", "kmeans++", "single-linkage"], [], 3),  # hd.evolve's: one per core
    (["versus", "kmeans++", "single-linkage"], ["--n-jobs", "1"], 1),
    (["generate"], [], 1)])
def test_the_commands_take_evolves_default_processes(tmp_path, capsys, monkeypatch, command,
                                                     given, expected):
    """Without --n-jobs a command runs as `hd.evolve` does: Versus mode one process per core
    (at most one per individual), Index mode one; --n-jobs overrides it."""
    from hawks_deap.algorithms import loop

    monkeypatch.setattr(loop, "usable_cores", lambda: 3)
    seen = []
    execute = loop._Run.execute

    def spy(self, *, n_jobs, **kwargs):
        seen.append(n_jobs)
        return execute(self, n_jobs=n_jobs, **kwargs)

    monkeypatch.setattr(loop._Run, "execute", spy)
    code, _, err = main(capsys, *command, "--n-samples", 60, "--n-clusters", 2,
                        "--generations", 1, "--population-size", 4, *given,
                        "--out", tmp_path / "v", "--quiet")
    assert code == 0, err
    assert seen == [expected]


def test_versus_end_to_end(tmp_path):
    cfg = tmp_path / "vs.toml"
    cfg.write_text('[objective]\nwinner = "gmm"\nloser = "single-linkage"\n'
                   "[dataset]\nn_samples = 150\nn_clusters = 3\n"
                   "[ga]\ngenerations = 2\npopulation_size = 4\n")
    r = run_cli("versus", "--config", "vs.toml", "--out", "vs", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "vs"
    ds = hd.Dataset.load(out)
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["problem"]["winner"] == "gmm" and meta["problem"]["loser"] == "single-linkage"
    assert meta["command"]["settings"]["p_f"] == 0.75
    lines = (out / "partitions.csv").read_text().splitlines()
    assert lines[0] == "winner,loser" and len(lines) == 151
    from sklearn.metrics import adjusted_rand_score

    winner = np.array([int(line.split(",")[0]) for line in lines[1:]])
    assert adjusted_rand_score(ds.y, winner) == pytest.approx(meta["record"]["winner_score"])
    r = run_cli("plot", "vs", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name in ("dataset.png", "convergence.png", "versus.png"):
        assert_png(out / name)


def test_options_of_features_plot_and_suite_exit_2_with_their_messages(tmp_path, capsys):
    hd.Dataset(np.zeros((4, 2)), [0, 0, 1, 1]).save(tmp_path / "d")
    grid = tmp_path / "g.toml"
    grid.write_text("[dataset]\nn_samples = 100\n")
    cases = [
        (["features", tmp_path / "d", "--seed", "-1"],
         "error: argument --seed: must be an integer >= 0, got -1; see hawks-deap "
         "features --help"),
        (["features", tmp_path / "d", "--seed", "x"],
         "argument --seed: must be an integer >= 0, got 'x'"),
        (["features", tmp_path / "d", "--format", "xml"],
         "argument --format: must be one of 'table', 'csv', 'json', got 'xml'"),
        (["features", tmp_path / "d", "--metric", "cosine"],
         "argument --metric: must be one of 'sqeuclidean', 'euclidean', got 'cosine'"),
        (["plot", tmp_path / "d", "--dpi", "5"],
         "error: argument --dpi: must be an integer in [10, 1200], got 5"),
        (["suite", grid, "--out", tmp_path / "s", "--workers", "0"],
         "error: argument --workers: must be an integer in [1, 1024], got 0"),
        (["suite", grid, "--out", tmp_path / "s", "--backend", "mpi"],
         "argument --backend: must be one of 'processes', 'dask', got 'mpi'"),
        (["suite", grid, "--out", tmp_path / "s", "--scheduler", "tcp://h:1"],
         "error: --scheduler needs --backend dask"),
        (["suite", grid], "error: --out is required; see hawks-deap suite --help"),
    ]
    for argv, needle in cases:
        code, _, err = main(capsys, *argv)
        assert code == 2 and needle in err, (argv, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "g.toml"]
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == [
        "data.csv", "genes.json", "metadata.json"]


def test_overwrite_keeps_a_users_folder_with_a_data_csv(tmp_path, capsys):
    """Issue 19, point 1: --overwrite only replaces what hawks-deap wrote."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "data.csv").write_text("a,b\n")
    (proj / "thesis.tex").write_text("x\n")
    (proj / "chapters").mkdir()
    code, _, err = main(capsys, "generate", "--n-samples", "150", "--n-clusters", "3",
                        "--generations", "2", "--population-size", "4", "--quiet",
                        "--out", proj, "--overwrite")
    assert code == 2 and "not a hawks-deap output directory" in err
    assert (proj / "thesis.tex").read_text() == "x\n" and (proj / "chapters").is_dir()
    assert (proj / "data.csv").read_text() == "a,b\n"


@pytest.mark.parametrize("option, value", [("--n-samples", "100000000000"),
                                           ("--n-samples", "2000000000"),
                                           ("--n-dims", "100000")])
def test_sizes_that_cannot_fit_are_refused_up_front(tmp_path, capsys, option, value):
    """Issue 19, point 5: an error with the figure, not a numpy MemoryError traceback."""
    code, _, err = main(capsys, "generate", option, value, "--out", tmp_path / "run")
    assert code == 2 and "more than this machine's memory" in err and value in err
    assert not (tmp_path / "run").exists()


SMALL = ["--n-samples", "150", "--n-clusters", "3", "--generations", "2",
         "--population-size", "4", "--quiet"]


def test_a_full_disk_gets_one_line_not_a_traceback(tmp_path, capsys, monkeypatch):
    """Issue 19, point 7."""
    def full(self, path, **kwargs):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(hd.Dataset, "save", full)
    code, _, err = main(capsys, "generate", *SMALL, "--out", tmp_path / "run")
    assert code == 1 and "Traceback" not in err
    assert err.strip() == (f"hawks-deap generate: error: cannot write ({tmp_path / 'run'}): "
                           "No space left on device")


def test_a_failure_while_running_gets_one_line_and_exit_1(tmp_path, capsys, monkeypatch):
    def fails(*args, **kwargs):
        raise RuntimeError("score 'ari' returned nan")

    monkeypatch.setattr(hd.algorithms.loop, "evolve", fails)
    code, _, err = main(capsys, "generate", *SMALL, "--out", tmp_path / "run")
    assert code == 1 and "Traceback" not in err
    assert err.strip() == ("hawks-deap generate: error while running: RuntimeError: score "
                           "'ari' returned nan")
    assert not (tmp_path / "run").exists()


def test_ctrl_c_while_validating_a_grid_exits_130_quietly(tmp_path, capsys, monkeypatch):
    from hawks_deap.campaign import suite

    def interrupted(path, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(suite, "load_suite", interrupted)
    (tmp_path / "grid.toml").write_text("[suite]\nruns = 1\n")
    code, _, err = main(capsys, "suite", tmp_path / "grid.toml", "--out", tmp_path / "out")
    assert code == 130 and err.strip() == "hawks-deap suite: interrupted"


def test_an_interrupted_plot_leaves_no_new_figure(tmp_path, capsys, monkeypatch):
    from hawks_deap.analysis import plotting

    code, _, err = main(capsys, "generate", *SMALL, "--out", tmp_path / "run")
    assert code == 0, err

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(plotting, "plot_convergence", interrupted)  # after dataset.png
    code, _, err = main(capsys, "plot", tmp_path / "run")
    assert code == 130 and "interrupted" in err
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "data.csv", "genes.json", "logbook.csv", "metadata.json"]


def _proc_stat(pid):
    """(parent pid, CPU seconds) of a process from Linux /proc, or None if gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _descendants(pid):
    """CPU seconds of every live descendant of ``pid`` (Linux /proc)."""
    stats = {int(e): _proc_stat(e) for e in os.listdir("/proc") if e.isdigit()}
    found, todo = {}, [pid]
    while todo:
        parent = todo.pop()
        for child, stat in stats.items():
            if stat is not None and stat[0] == parent and child not in found:
                found[child] = stat[1]
                todo.append(child)
    return found


def _wait_until(proc, ready, what):
    """Poll ``ready()`` until true; the process must still run (no fixed sleep: a loaded
    machine may take many seconds to import the package and start the workers)."""
    import time

    deadline = time.monotonic() + 300
    while not ready():
        assert proc.poll() is None, f"the command ended before {what}"
        assert time.monotonic() < deadline, f"no {what} within 300 s"
        time.sleep(0.01)


def _signal_when_working(args, sig, delay, cwd, workers=2):
    """Start the command and signal it once its ``workers`` processes are computing.

    On Linux the signal waits until ``workers`` descendants have each used 3 s of CPU
    (past a spawned worker's imports: the run is under way, whatever the load),
    elsewhere ``delay`` seconds.
    """
    import signal
    import time

    # Ctrl-C as a terminal delivers it: a test run started in the background by a shell
    # without job control inherits SIGINT ignored, and so would the command
    restore = None if os.name == "nt" else (
        lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    proc = subprocess.Popen([sys.executable, "-m", "hawks_deap.cli", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=restore)
    try:
        if os.path.exists(f"/proc/{proc.pid}/stat"):
            _wait_until(proc, lambda: sum(cpu >= 3.0 for cpu in _descendants(
                proc.pid).values()) >= workers, f"{workers} busy workers")
        else:
            time.sleep(delay)
        proc.send_signal(getattr(signal, sig))
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err


def test_ctrl_c_on_a_parallel_versus_run_prints_one_line(tmp_path):
    code, err = _signal_when_working(["versus", "gmm", "single-linkage", "--n-jobs", "2",
                                      "--n-samples", "600", "--generations", "500",
                                      "--quiet", "--out", "v"], "SIGINT", 6.0, tmp_path)
    assert code == 130 and "Traceback" not in err, err
    assert err.strip().splitlines() == ["hawks-deap versus: interrupted"]
    assert not (tmp_path / "v").exists()


def test_sigterm_of_a_suite_stops_its_workers_without_tracebacks(tmp_path):
    (tmp_path / "grid.toml").write_text(
        "[suite]\nruns = 6\n[dataset]\nn_samples = 2000\n[ga]\ngenerations = 300\n")
    code, err = _signal_when_working(["suite", "grid.toml", "--out", "s", "--workers", "2",
                                      "--quiet"], "SIGTERM", 8.0, tmp_path)
    assert code == 130 and "Traceback" not in err and "BrokenPipeError" not in err, err


def test_ctrl_c_while_the_command_imports_the_package_exits_130_quietly(tmp_path):
    """Issue 19, point 7: the installed command, interrupted within its imports."""
    import signal
    import time

    script = os.path.join(os.path.dirname(sys.executable), "hawks-deap")
    assert os.path.exists(script)  # installed with the package
    # early and later in the imports: once numpy's core, then once scipy's KD-tree is
    # loaded (Linux /proc; elsewhere fixed delays, which a loaded machine may defeat)
    for delay, library in ((0.3, "_multiarray_umath"), (0.8, "_ckdtree")):
        proc = subprocess.Popen([script, "generate", "--out", str(tmp_path / "x")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        maps = f"/proc/{proc.pid}/maps"
        if os.path.exists(maps):
            def loaded(maps=maps, library=library):
                try:
                    with open(maps) as fh:
                        return library in fh.read()
                except OSError:
                    return False

            _wait_until(proc, loaded, f"{library} loaded")
        else:
            time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130 and "Traceback" not in err, err
        assert not (tmp_path / "x").exists()


def test_generate_and_features_with_npz(tmp_path, capsys):
    """Issue 21, item 5: --format npz writes data.npz; every command reads it."""
    code, _, err = main(capsys, "generate", *SMALL, "--format", "npz", "--out", tmp_path / "n")
    assert code == 0, err
    code, _, err = main(capsys, "generate", *SMALL, "--out", tmp_path / "c")
    assert code == 0, err
    assert (tmp_path / "n" / "data.npz").is_file() and not (tmp_path / "n" / "data.csv").exists()
    npz, csv_ = hd.Dataset.load(tmp_path / "n"), hd.Dataset.load(tmp_path / "c")
    assert npz.X.tobytes() == csv_.X.tobytes()
    assert json.loads((tmp_path / "n" / "metadata.json").read_text()) == json.loads(
        (tmp_path / "c" / "metadata.json").read_text())  # the format is no setting
    code, out, err = main(capsys, "features", tmp_path / "n", tmp_path / "c")
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.strip()]
    assert len(rows) >= 3 and rows[-1].split(",")[1:] == rows[-2].split(",")[1:]


def test_unknown_options_name_the_command_and_a_close_option(tmp_path, capsys):
    out = str(tmp_path / "x")
    cases = [(("generate", "--n-sampels", "100"), "--n-sampels: did you mean --n-samples?"),
             (("generate", "--max_overlap", "0.1"), "--max_overlap: did you mean --max-overlap?"),
             (("generate", "--gen", "1"), "--gen: did you mean --generations?")]  # no abbrev
    for args, hint in cases:
        code, _, err = main(capsys, *args, "--out", out)
        assert code == 2 and not (tmp_path / "x").exists()
        assert err.startswith("hawks-deap generate: error: unrecognized arguments:"), err
        assert hint in err and "see hawks-deap generate --help" in err


@pytest.mark.parametrize("command", ["generate", "versus", "features", "plot", "export",
                                     "suite"])
def test_every_option_of_the_help_is_one_the_hints_know(capsys, command):
    """The hints come from the schema; every option --help shows is among them."""
    import re

    from hawks_deap.settings import config

    _, out, _ = main(capsys, command, "--help")
    flags = set(re.findall(r"^  (?:-\w, )?(--[a-z][a-z0-9-]*)", out, re.M))  # option rows
    assert len(flags) >= 3
    for flag in flags:
        assert f"did you mean {flag}?" in config.unknown_arguments(command, [flag + "x"])


def test_repeated_algorithms_are_refused_before_any_work(tmp_path, capsys):
    X = np.random.default_rng(0).normal(size=(30, 2))
    for name in ("a", "b"):
        hd.Dataset(X, np.repeat([0, 1, 2], 10)).save(tmp_path / name)
    code, _, err = main(capsys, "plot", str(tmp_path / "a"), str(tmp_path / "b"), "--out",
                        str(tmp_path / "figures"), "--algorithms", "gmm,gmm")
    assert code == 2 and "--algorithms names gmm more than once" in err
    assert not (tmp_path / "figures").exists()


@pytest.mark.parametrize("argv, flag", [
    (["features", "{d}", "--seed", "3"], "--seed 3"),
    (["features", "{d}", "--n-jobs", "2"], "--n-jobs 2"),
    (["features", "{d}", "--score", "nca"], "--score nca"),
    (["plot", "{d}", "{d}2", "--score", "nca", "--out", "{d}p"], "--score nca"),
    (["export", "{d}", "--out", "{d}e", "--format", "isa", "--n-jobs", "2"], "--n-jobs 2"),
    (["export", "{d}", "--out", "{d}e", "--format", "isa", "--seed", "4"], "--seed 4"),
])
def test_options_that_act_only_through_algorithms_are_refused_without_them(
        tmp_path, capsys, argv, flag):
    """Silently ignored, they would suggest a setting the output does not have."""
    for name in ("d", "d2"):
        hd.Dataset(np.random.default_rng(0).normal(size=(60, 2)), np.arange(60) % 2).save(
            tmp_path / name)
    code, _, err = main(capsys, *[a.format(d=tmp_path / "d") for a in argv])
    assert code == 2 and f"{flag} acts only with --algorithms" in err, err
    assert not any(tmp_path.glob("d[pe]"))
    # the default value, given or not, changes nothing: accepted
    code, _, err = main(capsys, "features", tmp_path / "d", "--seed", "0", "--n-jobs", "1")
    assert code == 0, err


@pytest.mark.parametrize("argv, message", [
    (["features", "{d}", "--overwrite"], "--overwrite acts only with --out FILE"),
    (["export", "{d}", "--out", "{d}e", "--battery", "b", "--method-group", "g"],
     "--method-group g acts only with --format clustbench-results"),
    (["export", "{d}", "--out", "{d}e", "--format", "clustbench-results", "--algorithms",
      "gmm", "--battery", "b", "--n-jobs", "2"], "--n-jobs 2 acts only with --format isa"),
    (["generate", "--out", ""], "--out must not be empty; see hawks-deap generate --help"),
    (["generate", "--ouput", "{d}x"], "unrecognized arguments: --ouput {d}x (--ouput: did "
                                      "you mean --out?)"),
    (["verify", "{d}", "--n-jobs", "0"], 'argument --n-jobs: must be an integer in [1, 1024] '
                                         'or "none", got 0'),
])
def test_options_that_would_be_ignored_or_mistyped_are_named(tmp_path, capsys, argv,
                                                              message):
    hd.Dataset(np.random.default_rng(0).normal(size=(60, 2)), np.arange(60) % 2).save(
        tmp_path / "d")
    code, _, err = main(capsys, *[a.format(d=tmp_path / "d") for a in argv])
    assert code == 2 and message.format(d=tmp_path / "d") in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_verify_takes_n_jobs_none(tmp_path, capsys):
    code, _, err = main(capsys, "generate", "--n-samples", "100", "--generations", "2",
                        "--out", tmp_path / "r", "--quiet")
    assert code == 0, err
    code, out, err = main(capsys, "verify", tmp_path / "r", "--n-jobs", "none")
    assert code == 0 and "identical" in out, (out, err)


def test_an_infeasible_dataset_is_said_even_quietly(tmp_path, capsys):
    code, out, err = main(capsys, "generate", "--n-samples", "200", "--n-clusters", "10",
                          "--max-overlap", "0", "--generations", "2", "--out", tmp_path / "r",
                          "--quiet")
    record = json.loads((tmp_path / "r" / "metadata.json").read_text())["record"]
    assert code == 0 and out == "" and record["feasible"] is False
    assert err == ("hawks-deap generate: warning: the dataset saved is infeasible (penalty "
                   f"{record['penalty']:.3g}): no individual met the constraints\n")


def test_errors_of_a_fill_config_and_a_grid_mode_name_their_file(tmp_path, capsys):
    hd.Dataset(np.random.default_rng(0).normal(size=(60, 2)), np.arange(60) % 2).save(
        tmp_path / "d")
    (tmp_path / "f.toml").write_text("[ga]\nseed = 3\n")
    code, _, err = main(capsys, "fill", tmp_path / "d", "--config", tmp_path / "f.toml",
                        "--out", tmp_path / "fo")
    assert code == 2 and err.strip().endswith(
        f"[ga] seed is set by the fill for each run (settings of {tmp_path / 'f.toml'})")
    (tmp_path / "g.toml").write_text('[suite]\nmode = "indx"\n[dataset]\nn_samples = 100\n')
    code, _, err = main(capsys, "suite", tmp_path / "g.toml", "--out", tmp_path / "so")
    assert code == 2 and "unknown [suite] mode 'indx' (did you mean 'index'?)" in err
    assert err.strip().endswith(f"({tmp_path / 'g.toml'})")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "f.toml", "g.toml"]


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)")
def test_ctrl_c_while_a_suites_workers_start_prints_one_line(tmp_path):
    """Ctrl-C (here to the process group, as a terminal or ``timeout`` sends it) while the
    spawned workers still import: found from outside, a worker printed its own
    KeyboardInterrupt traceback in 2 of 3 tries, since it handles the signal until its
    initializer ignores it. They now ignore it from their first instruction."""
    import signal
    import time

    (tmp_path / "grid.toml").write_text(
        "[suite]\nruns = 6\n[dataset]\nn_samples = 2000\n[ga]\ngenerations = 300\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "hawks_deap.cli", "suite", "grid.toml", "--out", "s",
         "--workers", "2", "--quiet"], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def ignores_sigint(pid: str) -> bool:
        with open(f"/proc/{pid}/status") as status:
            line = next(row for row in status if row.startswith("SigIgn:"))
        return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))

    try:
        deadline, workers = time.monotonic() + 120, []
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
            workers = subprocess.run(["pgrep", "-P", str(process.pid), "-f", "spawn_main"],
                                     capture_output=True, text=True).stdout.split()
        assert len(workers) == 2, "the suite's workers did not start"
        assert all(ignores_sigint(pid) for pid in workers)  # still importing, already deaf
        # the suite ignores Ctrl-C while it starts them, until a moment after they exist
        # (`interrupts_ignored_by_workers`): a Ctrl-C from then on must reach it
        hears = time.monotonic() + 10
        while ignores_sigint(str(process.pid)) and time.monotonic() < hears:
            time.sleep(0.001)
        assert not ignores_sigint(str(process.pid))  # the suite itself hears it
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=90)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130
    assert err.splitlines() == ["hawks-deap suite: interrupted"], err


def test_an_interrupted_command_process_says_one_line_and_nothing_after(monkeypatch,
                                                                         capsys):
    """After its "interrupted" line the command's own process drops what libraries leave
    half started (found from outside: a SIGTERM while a dask LocalCluster started printed
    distributed's failed atexit hook and asyncio's "Task exception was never retrieved",
    about 30 lines); an in-process `main` leaves the caller's hooks alone."""
    import logging

    from hawks_deap.cli import app

    def interrupted(args):
        def run():
            raise KeyboardInterrupt
        return run

    monkeypatch.setitem(app.SUBCOMMANDS, "verify",
                        app.SUBCOMMANDS["verify"]._replace(prepare=interrupted))
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # restored after
    loggers = [logging.getLogger(name) for name in ("asyncio", "distributed")]
    levels = [logger.level for logger in loggers]
    try:
        _interrupted_process_checks(app, loggers, capsys)
    finally:  # (setLevel: it clears the loggers' caches)
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _interrupted_process_checks(app, loggers, capsys):
    import logging
    from types import SimpleNamespace

    hook = sys.unraisablehook
    assert app.main(["verify", "somewhere"]) == app.EXIT_INTERRUPTED
    assert sys.unraisablehook is hook and capsys.readouterr().err == (
        "hawks-deap verify: interrupted\n")

    assert all(logger.isEnabledFor(logging.ERROR) for logger in loggers)
    assert app.main_process(["verify", "somewhere"]) == app.EXIT_INTERRUPTED
    assert sys.unraisablehook is not hook
    assert not any(logger.isEnabledFor(logging.CRITICAL) for logger in loggers)
    sys.unraisablehook(SimpleNamespace(  # (an atexit hook's failure: dropped)
        exc_type=RuntimeError, exc_value=RuntimeError("half started"), exc_traceback=None,
        err_msg="Exception ignored in atexit callback", object=None))
    assert capsys.readouterr().err == "hawks-deap verify: interrupted\n"
