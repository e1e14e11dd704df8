"""`Result.save` writes what ``hawks-deap generate`` / ``versus`` write (issue 37, item 4).

Oracles: the in-memory result (its dataset, logbook and the Versus problem's partitions,
recomputed), the command line's own run directory (the same files), and ``hawks-deap
plot`` drawing the convergence and Versus figures of a directory saved from Python.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap import cli
from hawks_deap.io import (
    LOGBOOK_FILE,
    PARTITIONS_FILE,
    read_logbook_csv,
    read_partitions_csv,
)
from hawks_deap.problems.versus import VersusProblem

PNG = b"\x89PNG\r\n\x1a\n"


def main(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def index_result(seed=3):
    problem = hd.IndexProblem(60, 3, 2, target=0.5)
    return hd.evolve(problem, population_size=4, generations=2, seed=seed)


def versus_result(seed=1):
    problem = VersusProblem("gmm", "single-linkage", n_samples=60, n_clusters=3, n_dims=2)
    return hd.evolve(problem, population_size=4, generations=2, seed=seed)


def same_logbook(read, logbook):
    """Every numeric value of every generation read back exactly (NaN for a missing one)."""
    assert len(read) == len(logbook)
    for row, mem in zip(read, logbook, strict=True):
        numbers = {k: v for k, v in dict(mem).items()
                   if isinstance(v, int | float | np.number) and not isinstance(v, bool)}
        for key, value in numbers.items():
            assert (math.isnan(row[key]) and math.isnan(value)) or row[key] == float(value), key


def test_index_result_saves_dataset_genes_metadata_and_logbook(tmp_path):
    result = index_result()
    out = result.save(tmp_path / "run", metadata={"note": "mine"})
    assert out == tmp_path / "run"
    assert sorted(p.name for p in out.iterdir()) == ["data.csv", "genes.json", LOGBOOK_FILE,
                                                     "metadata.json"]
    saved, expected = hd.Dataset.load(out), result.best_dataset()
    assert saved.X.tobytes() == expected.X.tobytes()  # 17 digits: bit for bit
    assert np.array_equal(saved.y, expected.y)
    for a, b in zip(saved.genotype, expected.genotype, strict=True):
        assert np.array_equal(a.mean, b.mean) and np.array_equal(a.rotation, b.rotation)
    assert saved.metadata["seed"] == result.seed and saved.metadata["note"] == "mine"
    assert saved.metadata["fitness"] == list(result.best.fitness.values)
    same_logbook(read_logbook_csv(out / LOGBOOK_FILE), result.logbook)
    assert [p.name for p in tmp_path.iterdir()] == ["run"]  # no temporary left behind


def test_versus_result_saves_the_partitions_of_its_best(tmp_path):
    result = versus_result()
    out = result.save(tmp_path / "v", format="npz")
    assert sorted(p.name for p in out.iterdir()) == ["data.npz", "genes.json", LOGBOOK_FILE,
                                                     "metadata.json", PARTITIONS_FILE]
    saved = hd.Dataset.load(out)
    parts = read_partitions_csv(out / PARTITIONS_FILE, saved.n_samples)
    winner, loser = result.problem.partitions(result.best)  # the oracle: recomputed
    assert np.array_equal(parts["winner"], winner) and np.array_equal(parts["loser"], loser)
    same_logbook(read_logbook_csv(out / LOGBOOK_FILE), result.logbook)
    # the recorded scores are those of these partitions (adjusted Rand, sklearn's)
    from sklearn.metrics import adjusted_rand_score

    record = saved.metadata["record"]
    assert record["winner_score"] == pytest.approx(adjusted_rand_score(saved.y, winner))
    assert record["loser_score"] == pytest.approx(adjusted_rand_score(saved.y, loser))
    # partitions=False leaves them out
    out2 = result.save(tmp_path / "v2", partitions=False)
    assert not (out2 / PARTITIONS_FILE).exists()


def test_the_same_files_as_the_command_line(tmp_path, capsys):
    code, _, err = main(capsys, "generate", "--n-samples", "60", "--n-clusters", "3",
                        "--generations", "2", "--population-size", "4", "--seed", "7",
                        "--quiet", "--out", tmp_path / "cli")
    assert code == 0, err
    settings = json.loads((tmp_path / "cli" / "metadata.json").read_text())["command"]
    from hawks_deap.campaign import runs

    problem = runs.build_problem("generate", settings["settings"])
    result = hd.evolve(problem, seed=7, **runs.evolve_options(settings["settings"]))
    result.save(tmp_path / "py")
    for name in ("data.csv", "genes.json", LOGBOOK_FILE):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()


def test_plot_draws_convergence_and_versus_of_a_python_run(tmp_path, capsys):
    out = versus_result().save(tmp_path / "v")
    code, _, err = main(capsys, "plot", out)
    assert code == 0, err
    for name in ("dataset.png", "convergence.png", "versus.png"):
        data = (out / name).read_bytes()
        assert data[:8] == PNG and len(data) > 2000, name


def test_existing_folders_are_refused_before_any_work(tmp_path, monkeypatch):
    result = versus_result()
    out = result.save(tmp_path / "v")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    calls = []
    monkeypatch.setattr(VersusProblem, "partitions",
                        lambda self, ind: calls.append(ind) or (_ for _ in ()).throw(
                            AssertionError("clustered before the check")))
    with pytest.raises(FileExistsError, match="overwrite=True"):
        result.save(out)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with pytest.raises(ValueError, match="not a hawks-deap output directory"):
        result.save(tmp_path / "mine", overwrite=True)
    assert calls == [] and {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"
    monkeypatch.undo()
    result.save(out, overwrite=True, partitions=False)  # replaced: its own files only
    assert not (out / PARTITIONS_FILE).exists()


def test_bad_arguments_name_the_parameter(tmp_path):
    result = index_result()
    with pytest.raises(ValueError, match="partitions=True needs a Versus problem"):
        result.save(tmp_path / "a", partitions=True)
    with pytest.raises(ValueError, match="format"):
        result.save(tmp_path / "a", format="parquet")
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        result.save(tmp_path / "a", overwrite="yes")
    with pytest.raises(TypeError, match="metadata must be a mapping"):
        result.save(tmp_path / "a", metadata=[("a", 1)])
    with pytest.raises(TypeError, match="out must be a path"):
        result.save(3)
    assert not (tmp_path / "a").exists()


def test_verify_refuses_a_python_run_in_one_line(tmp_path, capsys):
    """A Python run records no command settings: verify cannot rebuild its problem."""
    out = index_result().save(tmp_path / "run")
    code, _, err = main(capsys, "verify", out)
    assert code == 2 and "does not record a run's command, settings and seed" in err
    assert "saved from Python (Result.save or Dataset.save)" in err
    assert "Traceback" not in err
