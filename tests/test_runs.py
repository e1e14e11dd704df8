"""Running and saving one configuration: the files, their readers, and one code path for
commands and suites."""

import math

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap import cli
from hawks_deap.campaign import runs
from hawks_deap.campaign import suite as hs
from hawks_deap.settings import config

SMALL = {"n_samples": 120, "n_clusters": 3, "generations": 3, "population_size": 4}


def small_values(command="generate", **extra):
    return config.resolve(command, cli_values={**SMALL, **extra})


def test_format_value_one_text_per_value():
    cases = [(None, ""), (True, "True"), (np.bool_(False), "False"), (0.1, "0.1"),
             (np.float32(0.5), "0.5"), (np.float64(1 / 3), repr(1 / 3)), (3, "3"),
             (np.int64(-7), "-7"), ("pso", "pso")]
    for value, text in cases:
        assert runs.format_value(value) == text, value
    x = 0.1 + 0.2
    assert float(runs.format_value(x)) == x  # floats read back exactly


def test_logbook_round_trip_and_bad_files(tmp_path):
    logbook = [{"gen": 0, "nevals": 4, "fitness_best": 0.25},
               {"gen": 1, "nevals": 2, "fitness_best": 0.125, "penalty": np.float64(0.5)}]
    text = runs.logbook_csv(logbook)
    assert text.splitlines() == ["gen,nevals,fitness_best,penalty", "0,4,0.25,",
                                 "1,2,0.125,0.5"]
    path = tmp_path / runs.LOGBOOK_FILE
    path.write_text(text)
    rows = runs.read_logbook_csv(path)
    assert rows[1] == {"gen": 1.0, "nevals": 2.0, "fitness_best": 0.125, "penalty": 0.5}
    assert math.isnan(rows[0]["penalty"])
    path.write_text("gen,nevals\n0,4\n")
    with pytest.raises(ValueError, match="not a hawks-deap logbook"):
        runs.read_logbook_csv(path)


def test_partitions_round_trip_and_shape_check(tmp_path):
    path = tmp_path / runs.PARTITIONS_FILE
    path.write_text(runs.partitions_csv(np.array([0, 1, 1]), [2, 2, 0]))
    parts = runs.read_partitions_csv(path, 3)
    assert parts["winner"].tolist() == [0, 1, 1] and parts["loser"].tolist() == [2, 2, 0]
    with pytest.raises(ValueError, match="must have 4 rows"):
        runs.read_partitions_csv(path, 4)
    path.write_text("winner,loser\n0,x\n")
    with pytest.raises(ValueError, match="not a partitions file"):
        runs.read_partitions_csv(path, 1)


def test_check_run_dir(tmp_path):
    runs.check_run_dir(tmp_path / "new" / "run", overwrite=False)
    hd.Dataset(np.zeros((3, 2)), [0, 1, 1]).save(tmp_path / "run")
    with pytest.raises(ValueError, match="already exists.*--overwrite"):
        runs.check_run_dir(tmp_path / "run", overwrite=False)
    runs.check_run_dir(tmp_path / "run", overwrite=True)
    (tmp_path / "foreign").mkdir()  # a data.csv hawks-deap did not write (issue 19)
    (tmp_path / "foreign" / "data.csv").write_text("x")
    with pytest.raises(ValueError, match="not a hawks-deap output directory"):
        runs.check_run_dir(tmp_path / "foreign", overwrite=True)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "keep.txt").write_text("mine")
    with pytest.raises(ValueError, match="not a hawks-deap output directory"):
        runs.check_run_dir(tmp_path / "notes", overwrite=True)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is not a directory"):
        runs.check_run_dir(tmp_path / "file" / "run", overwrite=False)


def test_build_problem_and_evolve_options():
    values = small_values(target=0.4, max_overlap=None)
    problem = runs.build_problem("generate", values)
    assert isinstance(problem, hd.IndexProblem)
    assert runs.evolve_options(values) == {"population_size": 4, "generations": 3,
                                           "p_crossover": 0.7, "p_f": 0.5,
                                           "mean_mutation": "pso", "n_jobs": None,
                                           "returns": "best-feasible"}
    with pytest.raises(ValueError, match="--mean-mutation de .* needs --n-clusters >= 3"):
        runs.build_problem("generate", small_values(mean_mutation="de", n_clusters=2))
    with pytest.raises(ValueError, match="needs a winner and a loser"):
        runs.build_problem("versus", small_values("versus"))
    with pytest.raises(ValueError, match="unknown command 'plot'"):
        runs.build_problem("plot", values)


def test_run_is_deterministic_and_saves_every_file(tmp_path):
    values = small_values(seed=4)
    saved = []
    for name in ("a", "b"):
        problem = runs.build_problem("generate", values)
        run = runs.run_configuration(problem, values, seed=4, metadata={"note": {"x": 1}})
        saved.append(run.save(tmp_path / name))
    a, b = saved
    assert sorted(p.name for p in a.iterdir()) == ["data.csv", "genes.json", "logbook.csv",
                                                   "metadata.json"]
    for name in ("data.csv", "genes.json", "logbook.csv", "metadata.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "logbook.csv").read_text() == runs.logbook_csv(run.result.logbook)
    assert hd.Dataset.load(a).metadata["note"] == {"x": 1}


def test_a_suite_run_is_the_generate_command_with_its_seed(tmp_path, capsys):
    grid = tmp_path / "grid.toml"
    grid.write_text("[suite]\nruns = 1\nseed = 2\n[dataset]\nn_samples = 120\n"
                    "n_clusters = 3\n[ga]\ngenerations = 3\npopulation_size = 4\n")
    task = hs.load_suite(grid).tasks()[0]
    hs.run_task(task, tmp_path / "suite")
    flag = {o.key: o.flag for o in config.OPTIONS}
    flags = [a for k, v in task.values.items() if v is not None for a in (flag[k], str(v))]
    code = cli.main(["generate", *flags, "--seed", str(task.seed), "--quiet",
                     "--out", str(tmp_path / "cli")])
    assert code == 0, capsys.readouterr().err
    suite_run = tmp_path / "suite" / "runs" / task.name
    for name in ("data.csv", "genes.json", "logbook.csv"):
        assert (suite_run / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()

