"""Issue 30, items 7, 8, 12, 16 and 17: limits refused up front, in one line.

Each case is its reproduction: the real command (``hawks_deap.cli.main(argv)`` or a
subprocess) exits 2 with exactly one line on stderr naming the option, key or file, and
the Python API raises ValueError / TypeError naming the parameter, the value and what is
allowed, before any work.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap import cli
from hawks_deap._util import memory as _memory
from hawks_deap._util.validation import MAX_SCALE, check_X
from hawks_deap.analysis.features import check_feature_inputs, features_table, problem_features


def run_main(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err):
    """The single line of a refusal (asserting that there is only one)."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "usage:" not in err, err
    return lines[0]


def run_cli(*args, cwd=None):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "hawks_deap.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300, env=env)


def write_dataset(path, X, y):
    """A dataset directory written by hand (Dataset itself refuses what is tested here)."""
    path.mkdir()
    rows = ["x0,x1,label", *(f"{float(a)!r},{float(b)!r},{int(c)}" for (a, b), c in zip(X, y))]
    (path / "data.csv").write_text("\n".join(rows) + "\n")
    (path / "metadata.json").write_text(json.dumps({"package": "hawks-deap"}))
    return path


@pytest.fixture
def blobs(tmp_path):
    """A plain 60-point, 3-cluster dataset directory."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2)) + np.repeat([[0, 0], [6, 0], [0, 6]], 20, axis=0)
    hd.Dataset(X, np.repeat([0, 1, 2], 20)).save(tmp_path / "blobs")
    return tmp_path / "blobs"


# --------------------------------------------------------------------------- 7: --dpi


def test_plot_dpi_too_large_exit_2_one_line(blobs, tmp_path, capsys):
    out = tmp_path / "figures"
    code, _, err = run_main(capsys, "plot", blobs, "--dpi", "100000", "--out", out)
    assert code == 2
    line = one_line(err)
    assert line == ("hawks-deap plot: error: argument --dpi: must be an integer in [10, 1200], "
                    "got 100000; see hawks-deap plot --help")
    assert not out.exists()


def test_plot_dpi_subprocess(blobs, tmp_path):
    r = run_cli("plot", blobs, "--dpi", "100000", "--out", tmp_path / "figures")
    assert r.returncode == 2 and "--dpi" in one_line(r.stderr)


def test_plot_dpi_bound_is_one_place():
    from hawks_deap.analysis import plotting
    from hawks_deap.settings import config

    dpi = next(o for o in config.COMMAND_LINE_OPTIONS if o.key == "dpi")
    assert (dpi.low, dpi.high) == plotting.DPI_RANGE


def test_plotting_api_refuses_dpi_and_huge_figures(tmp_path):
    from hawks_deap.analysis import plotting

    plt = plotting.pyplot()
    fig = plotting.plot_dataset(np.random.default_rng(0).normal(size=(30, 2)), np.arange(30) % 2)
    with pytest.raises(ValueError, match=r"^dpi must be <= 1200, got 100000$"):
        plotting.figure_bytes(fig, "d.png", dpi=100000)
    with pytest.raises(ValueError, match=r"^dpi must be >= 10, got 0$"):
        plotting.save_figure(fig, tmp_path / "sub" / "d.png", dpi=0)
    with pytest.raises(TypeError, match="dpi must be an integer"):
        plotting.figure_bytes(fig, "d.png", dpi=150.5)
    assert not (tmp_path / "sub").exists()
    plt.close(fig)
    big, _ = plt.subplots(figsize=(100, 100))  # in range, but 1.4e10 pixels at 1200 dpi
    with pytest.raises(ValueError, match=r"dpi=1200: the figure would be .* pixels, more "
                                         r"than 100,000,000"):
        plotting.save_figure(big, tmp_path / "big.png", dpi=1200)
    assert not (tmp_path / "big.png").exists()
    plt.close(big)


# --------------------------------------------------------------------------- 8: overflow


def test_features_of_overflowing_coordinates_exit_2(tmp_path, capsys):
    rng = np.random.default_rng(0)
    path = write_dataset(tmp_path / "huge", rng.normal(size=(60, 2)) * 1e155,
                         np.repeat([0, 1, 2], 20))
    code, out, err = run_main(capsys, "features", path)
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith(f"hawks-deap features: error: PATH {path} is not a readable dataset")
    assert "squared distances overflow" in line and "max |x| * sqrt(N * D)" in line
    code, _, err = run_main(capsys, "plot", path, "--out", tmp_path / "fig")
    assert code == 2 and f"PATH {path}" in one_line(err)


def test_check_X_bounds_squared_distances():
    X = np.ones((60, 2))
    big = X * 1e155
    with pytest.raises(ValueError, match=r"^data holds values up to 1e\+155 in magnitude, "
                                         r"with which squared distances overflow"):
        check_X(big, "data")
    for call in (lambda: problem_features(big, np.arange(60) % 3),
                 lambda: hd.Dataset(big, np.arange(60) % 3)):
        with pytest.raises(ValueError, match="squared distances overflow"):
            call()
    with pytest.raises(ValueError, match=r"dataset 'huge' \(row 1\): X holds values"):
        features_table([(X, np.arange(60) % 3), (-big, np.arange(60) % 3)],
                       names=["fine", "huge"])


def test_values_at_the_bound_give_finite_features():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 3))
    y = np.repeat([0, 1, 2], 30)
    scale = 0.999 * MAX_SCALE / np.sqrt(X.size) / np.abs(X).max()
    with np.errstate(all="raise"):
        for metric in ("sqeuclidean", "euclidean"):
            at_bound = problem_features(X * scale, y, metric=metric)
            plain = problem_features(X, y, metric=metric)
            for name, value in plain.items():
                assert at_bound[name] == pytest.approx(value, rel=1e-9), name


# --------------------------------------------------------------------------- 12: population


@pytest.fixture
def memory_of_16_gb(monkeypatch):
    monkeypatch.setattr(_memory, "total_memory", lambda: 16 * 10**9)


def test_population_size_flag_refused_up_front(tmp_path, capsys, memory_of_16_gb):
    out = tmp_path / "run"
    code, _, err = run_main(capsys, "generate", "--population-size", "1000000000000",
                            "--out", out)
    assert code == 2 and not out.exists()
    line = one_line(err)
    assert line.startswith("hawks-deap generate: error: argument --population-size: a "
                           "population of 1000000000000 individuals")
    assert "needs at least 1.35 PB, more than this machine's memory (16 GB)" in line


def test_population_size_subprocess(tmp_path):
    r = run_cli("generate", "--population-size", "1000000000000", "--out", tmp_path / "run")
    assert r.returncode == 2 and "--population-size" in one_line(r.stderr)
    assert not (tmp_path / "run").exists()


def test_population_size_in_toml_and_hawks_json(tmp_path, capsys, memory_of_16_gb):
    toml = tmp_path / "run.toml"
    toml.write_text("[ga]\npopulation_size = 1000000000000\n")
    code, _, err = run_main(capsys, "generate", "--config", toml, "--out", tmp_path / "a")
    assert code == 2
    assert one_line(err).startswith(f"hawks-deap generate: error: [ga] population_size in "
                                    f"{toml}: a population of 1000000000000 individuals")
    hawks = tmp_path / "hawks.json"
    hawks.write_text('{"ga": {"num_indivs": 1000000000000000000000000000000}}')
    code, _, err = run_main(capsys, "generate", "--config", hawks, "--out", tmp_path / "b")
    assert code == 2
    line = [ln for ln in err.splitlines() if ": note: " not in ln]  # HAWKS notes come first
    assert len(line) == 1 and line[0].startswith(
        f"hawks-deap generate: error: ga.num_indivs (-> [ga] population_size) in {hawks}: a "
        "population of 1000000000000000000000000000000 individuals")
    hawks.write_text('{"ga": {"num_indivs": 1e30}}')  # a JSON float: not an integer
    code, _, err = run_main(capsys, "generate", "--config", hawks, "--out", tmp_path / "c")
    assert code == 2 and "ga.num_indivs" in one_line(err)
    assert not any((tmp_path / n).exists() for n in "abc")


def test_population_size_in_a_grid(memory_of_16_gb):
    from hawks_deap.settings import config

    with pytest.raises(ValueError, match=r"^\[ga\] population_size in grid.toml: a population "
                                         r"of 1000000000000 individuals"):
        config.validate_config({"ga": {"population_size": [10, 10**12]}}, allow_lists=True,
                               source="grid.toml")


def test_population_of_the_problems_genes_refused_before_the_run(tmp_path, capsys,
                                                                  memory_of_16_gb):
    # each size fits alone; 10^5 individuals of 100 genes in 1000 dimensions do not
    code, _, err = run_main(capsys, "generate", "--n-samples", "1000", "--n-clusters", "100",
                            "--n-dims", "1000", "--population-size", "100000",
                            "--out", tmp_path / "run")
    assert code == 2
    assert one_line(err) == (
        "hawks-deap generate: error: population_size=100000, n_clusters=100, n_dims=1000: a "
        "population (parents and offspring) needs at least 80.2 TB, more than this machine's "
        "memory (16 GB)")


def test_evolve_and_make_toolbox_refuse_a_population_too_large(memory_of_16_gb):
    problem = hd.IndexProblem(60, 3, 2, target=0.5)
    for call in (hd.evolve, hd.make_toolbox):
        with pytest.raises(ValueError, match=r"^population_size=1000000000000, n_clusters=3, "
                                             r"n_dims=2: a population \(parents and "
                                             r"offspring\) needs at least"):
            call(problem, population_size=10**12)
    assert problem.layout is None  # refused before the layout was drawn


def test_population_bound_is_a_lower_bound():
    import tracemalloc

    from hawks_deap.genome.genotype import IndexFitness
    from hawks_deap.genome.initialization import random_genotype

    rng = np.random.default_rng(0)
    for k, d in ((2, 1), (5, 2), (3, 20)):
        genotype = random_genotype(k, d, rng, fitness_class=IndexFitness)
        arrays = sum(a.nbytes + sys.getsizeof(np.empty(0)) for gene in genotype
                     for a in (gene.mean, gene.variances, gene.rotation))
        assert _memory.population_bytes(1, k, d) > arrays  # the objects around them too
        # what a population holds (a bound 2.4x too low once let 10**7 individuals pass)
        toolbox = hd.make_toolbox(hd.IndexProblem(100, k, d, 0.5), seed=0)
        tracemalloc.start()
        population = toolbox.population(n=500)
        held = tracemalloc.get_traced_memory()[0] / len(population)
        tracemalloc.stop()
        assert _memory.population_bytes(1, k, d) <= held <= 1.35 * _memory.population_bytes(
            1, k, d)  # (Python 3.10's objects are the smallest: its 1.01-1.25)


# --------------------------------------------------------------------------- 16: one line


@pytest.mark.parametrize(("args", "expected"), [
    (["generate", "--n-samples", "abc", "--out", "x"],
     "hawks-deap generate: error: argument --n-samples: must be an integer >= 1, got 'abc'; "
     "see hawks-deap generate --help"),
    (["features"], "hawks-deap features: error: the following arguments are required: PATH; "
                   "see hawks-deap features --help"),
    (["plot", "d", "--dpi-x"], "hawks-deap plot: error: unrecognized arguments: --dpi-x "
                               "(--dpi-x: did you mean --dpi?); see hawks-deap plot --help"),
    ([], "hawks-deap: error: the following arguments are required: COMMAND; see hawks-deap "
         "--help"),
    (["generat"], "hawks-deap: error: argument COMMAND: invalid choice: 'generat'"),
    (["features", "d", "--format", "xml"], "hawks-deap features: error: argument --format: "
                                           "must be one of 'table', 'csv', 'json', got 'xml'"),
])
def test_argument_errors_are_one_line(capsys, args, expected):
    code, out, err = run_main(capsys, *args)
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith(expected) and line.endswith("--help")


def test_argument_error_subprocess_keeps_the_hint(tmp_path):
    r = run_cli("generate", "--generatons", "5", "--out", tmp_path / "run")
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert "--generatons: did you mean --generations?" in line
    assert line.endswith("see hawks-deap generate --help")
    r = run_cli("generate", "--seed", "x", "--out", tmp_path / "run")
    assert r.returncode == 2 and one_line(r.stderr).startswith(
        "hawks-deap generate: error: argument --seed:")


# --------------------------------------------------------------------------- 17: too small


def test_features_of_a_5_point_dataset_exit_2(tmp_path, blobs, capsys):
    rng = np.random.default_rng(0)
    small = tmp_path / "five"
    hd.Dataset(rng.normal(size=(5, 2)), [0, 0, 1, 1, 1]).save(small)
    expected = ("hawks-deap features: error: dataset 'five' (row 0): n_neighbors must "
                "be <= n_samples - 1 = 4, got 10: the features need at least 11 points "
                "(each point's 10 nearest neighbours)")
    code, out, err = run_main(capsys, "features", small)
    assert code == 2 and out == "" and one_line(err) == expected
    code, _, err = run_main(capsys, "features", blobs, small, "--out", tmp_path / "f.csv")
    assert code == 2 and "dataset 'five' (row 1)" in one_line(err)
    assert not (tmp_path / "f.csv").exists()
    code, _, err = run_main(capsys, "plot", blobs, small, "--out", tmp_path / "figs")
    assert code == 2 and "at least 11 points" in one_line(err)
    assert not (tmp_path / "figs").exists()
    r = run_cli("features", small)
    assert r.returncode == 2 and one_line(r.stderr) == expected


def test_an_instance_space_of_a_one_cluster_dataset_is_refused_before_any_work(
        tmp_path, blobs, capsys):
    """Its silhouette is undefined: plot's instance space failed after measuring every
    dataset (exit 1); features prints its nan."""
    one = tmp_path / "one"
    hd.Dataset(np.random.default_rng(0).normal(size=(30, 2)), np.zeros(30, int)).save(one)
    code, _, err = run_main(capsys, "plot", blobs, one, "--out", tmp_path / "figs")
    assert code == 2 and one_line(err) == (
        "hawks-deap plot: error: dataset 'one' (row 1): has 1 cluster(s); at least 2 are "
        "needed (a single cluster has no silhouette, and an instance space needs every "
        "feature finite)")
    assert not (tmp_path / "figs").exists()
    code, out, err = run_main(capsys, "features", one, "--format", "csv")
    assert code == 0 and "nan" in out, err


def test_check_feature_inputs_checks_every_dataset_first():
    rng = np.random.default_rng(0)
    fine = (rng.normal(size=(40, 2)), np.repeat([0, 1], 20))
    with pytest.raises(ValueError, match=r"dataset 'bad' \(row 1\): X must contain only "
                                         r"finite values"):
        check_feature_inputs([fine, (np.full((40, 2), np.nan), fine[1])],
                             names=["fine", "bad"])
    with pytest.raises(ValueError, match=r"dataset '1' \(row 1\): n_neighbors must be <= "
                                         r"n_samples - 1 = 10, got 11: the features need "
                                         r"at least 12 points"):
        check_feature_inputs([fine, (fine[0][:11], fine[1][:11])], n_neighbors=11)
    (X, y), = check_feature_inputs([fine])
    assert X.shape == (40, 2) and y.shape == (40,)


# ----------------------------------------------------- pairwise distances held at once


def _room_for(monkeypatch, evaluations: float, n: int) -> int:
    """Memory for ``evaluations`` average-linkage calls on ``n`` points at once."""
    from hawks_deap.clustering import get_algorithm

    per = get_algorithm("average-linkage").memory_bytes(n)
    monkeypatch.setattr(_memory, "total_memory", lambda: int(evaluations * per))
    return per


def test_versus_processes_whose_distances_cannot_fit_are_refused(tmp_path, capsys,
                                                                 monkeypatch):
    """One evaluation fits, two at once do not: an explicit n_jobs of 2 is refused before
    any work (naming how many fit), the default runs one process, resume is checked too."""
    from hawks_deap.algorithms import loop

    n = 200
    per = _room_for(monkeypatch, 1.5, n)
    problem = hd.VersusProblem("kmeans++", "average-linkage", n_samples=n, n_clusters=3,
                               n_dims=2)
    assert problem.evaluation_bytes == per == 8 * n * (n - 1)
    with pytest.raises(ValueError, match=r"^n_jobs=2: 2 evaluations .* at once, 318 kB each, "
                                         r"need at least 637 kB, more than this machine's "
                                         r"memory \(478 kB\); at most 1 fit, give n_jobs=1$"):
        hd.evolve(problem, population_size=4, generations=1, n_jobs=2, seed=0)
    assert problem.layout is None  # refused before the layout was drawn
    assert problem.as_multiobjective().evaluation_bytes == per
    monkeypatch.setattr(loop, "usable_cores", lambda: 8)
    assert loop._default_n_jobs(problem, None, 10) == 1
    monkeypatch.setattr(_memory, "total_memory", lambda: 3 * per)
    assert loop._default_n_jobs(problem, None, 10) == 3
    assert loop._default_n_jobs(problem, None, 1) == 2  # one individual: its two clusterings
    # the command line: exit 2, one line, no folder
    code, _, err = run_main(capsys, "versus", "kmeans++", "average-linkage", "--n-samples", n,
                            "--n-clusters", 3, "--n-jobs", 4, "--out", tmp_path / "v")
    assert code == 2 and "n_jobs=4: 4 evaluations" in one_line(err), err
    assert not (tmp_path / "v").exists()
    # resume: the same check
    checkpoint = tmp_path / "run.pkl"
    hd.evolve(problem, population_size=4, generations=1, seed=0, n_jobs=1,
              checkpoint=checkpoint)
    with pytest.raises(ValueError, match=r"^n_jobs=8: 8 evaluations"):
        hd.resume(checkpoint, generations=2, n_jobs=9)  # 4 individuals: 8 clusterings
    # problems that declare nothing are not bounded
    index = hd.IndexProblem(n, 3, 2, target=0.5)
    assert index.evaluation_bytes == 0
    assert hd.VersusProblem("kmeans++", "single-linkage", n_samples=n, n_clusters=3,
                            n_dims=2).evaluation_bytes == 0


def test_a_suite_whose_first_runs_cannot_fit_at_once_is_refused(tmp_path, capsys, monkeypatch):
    """Two workers start the two longest runs together: 2 x 250 points' distances."""
    from hawks_deap.campaign import suite as hs

    grid = tmp_path / "grid.toml"
    grid.write_text('[suite]\nruns = 2\nseed = 5\nmode = "versus"\n\n[dataset]\n'
                    'n_samples = [150, 250]\nn_clusters = 3\n\n[objective]\n'
                    'winner = "kmeans++"\nloser = "average-linkage"\n\n'
                    '[ga]\ngenerations = 1\npopulation_size = 4\n')
    per = _room_for(monkeypatch, 1.5, 250)
    suite = hs.load_suite(grid)
    with pytest.raises(ValueError, match=r"^workers=2: the first 2 runs at once .* needs at "
                                         r"least 996 kB, more than this machine's memory"):
        hs.run_suite(suite, tmp_path / "out", workers=2)
    assert not (tmp_path / "out").exists()  # refused before the folder
    assert per == 498_000
    code, _, err = run_main(capsys, "suite", grid, "--out", tmp_path / "out", "--workers", 2)
    assert code == 2 and "workers=2: the first 2 runs at once" in one_line(err)
    # one worker: the runs one after another (each problem's own check passed)
    hs.run_suite(suite, tmp_path / "out", workers=1)
    assert len(hs.read_summary(tmp_path / "out")) == 4


def test_performance_table_refuses_distances_that_cannot_fit_before_clustering(monkeypatch):
    from hawks_deap.analysis.features import performance_table

    calls = []
    monkeypatch.setattr(hd.clustering.ClusteringAlgorithm, "__call__",
                        lambda self, *a: calls.append(self.name))
    _room_for(monkeypatch, 1.5, 200)  # 200 points fit, 250 do not
    rng = np.random.default_rng(0)
    small, large = ((rng.normal(size=(n, 2)), np.arange(n) % 3) for n in (200, 250))
    with pytest.raises(ValueError, match=r"^dataset=big, n_samples=250: average-linkage "
                                         r"\(all 31,125 pairwise distances\) needs at least"):
        performance_table([small, large], ["kmeans++", "average-linkage"],
                          names=["small", "big"])
    assert calls == []  # nothing clustered
