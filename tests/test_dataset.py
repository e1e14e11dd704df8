import json

import numpy as np
import pytest

import hawks_deap as hd


def test_save_load_round_trip(tmp_path, small_problem):
    r = hd.evolve(small_problem, population_size=4, generations=3, seed=5)
    ds = r.best_dataset()
    out = ds.save(tmp_path / "run")
    assert sorted(p.name for p in out.iterdir()) == ["data.csv", "genes.json", "metadata.json"]
    back = hd.Dataset.load(out)
    np.testing.assert_array_equal(back.X, ds.X)  # 17 significant digits: bit for bit
    np.testing.assert_array_equal(back.y, ds.y)
    assert hd.genotype_equal(back.genotype, ds.genotype)
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["seed"] == 5 and meta["problem"]["target"] == 0.5
    assert meta["record"]["index"] == pytest.approx(0.5, abs=0.5)
    assert meta["fitness"] == list(r.best.fitness.values)
    assert meta["version"]
    genes = json.loads((out / "genes.json").read_text())
    assert genes["sizes"] == np.bincount(ds.y).tolist()
    cov = np.array(genes["clusters"][0]["covariance"])
    np.testing.assert_allclose(cov, ds.genotype[0].covariance)
    # the silhouette recorded is the one of the saved data
    assert hd.silhouette_score(back.X, back.y) == pytest.approx(meta["record"]["index"],
                                                                rel=1e-12)
    header = (out / "data.csv").read_text().splitlines()[0]
    assert header == "x0,x1,label"


def test_save_refuses_to_overwrite_and_overwrites_atomically(tmp_path):
    ds = hd.Dataset(np.zeros((3, 2)), [0, 1, 1])
    ds.save(tmp_path / "d")
    with pytest.raises(FileExistsError):
        ds.save(tmp_path / "d")
    ds2 = hd.Dataset(np.ones((3, 2)), [1, 0, 0])
    ds2.save(tmp_path / "d", overwrite=True)
    np.testing.assert_array_equal(hd.Dataset.load(tmp_path / "d").X, np.ones((3, 2)))
    assert [p.name for p in tmp_path.iterdir()] == ["d"]  # no temporary leftovers


def test_dataset_validation():
    with pytest.raises(ValueError, match="y must have shape"):
        hd.Dataset(np.zeros((3, 2)), [0, 1])
    with pytest.raises(FileNotFoundError):
        hd.Dataset.load("/nonexistent/dir")
