"""The clustering-benchmarks format, both ways, checked against its reference package.

The oracle is ``clustbench`` (the clustering-benchmarks package): its ``load_dataset``
reads what we write, its ``save_data``/``save_labels`` write what we read, its
``get_dataset_names``/``get_battery_names`` list batteries, and its ``get_score``
scores partitions of datasets with noise. Every battery is small and written here.
"""

import json

import numpy as np
import pytest
from sklearn.cluster import AgglomerativeClustering
from sklearn.metrics import adjusted_rand_score

import hawks_deap as hd
from hawks_deap import cli
from hawks_deap.analysis.features import (
    FEATURE_NAMES,
    features_table,
    performance_table,
    problem_features,
)
from hawks_deap.campaign import suite as hs
from hawks_deap.io import batteries
from hawks_deap.io import dataset as dataset_module
from hawks_deap.io.batteries import (
    NOISE_LABEL,
    battery_dataset_names,
    is_battery_dir,
    read_battery,
    read_battery_dataset,
    write_battery,
)

clustbench = pytest.importorskip("clustbench")


def main(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def awkward_X(rng, n, d):
    """Floats that %g or a short repr would not give back: tiny, huge, negative, 1/3."""
    X = rng.normal(size=(n, d)) * 10.0 ** rng.integers(-12, 12, size=(n, d))
    X[0, 0], X[1 % n, 0] = 1.0 / 3.0, -0.0
    return X


def evolved(seed, n=120, k=3, d=2):
    problem = hd.IndexProblem(n, k, d, target=0.5)
    return hd.evolve(problem, population_size=4, generations=2, seed=seed).best_dataset()


def reference_battery(root, name="ref"):
    """A battery written by clustbench's own writers, with noise and two label vectors."""
    rng = np.random.default_rng(0)
    folder = root / name
    folder.mkdir(parents=True)
    X = np.vstack([rng.normal(0, 1, (30, 2)), rng.normal(8, 1, (30, 2)),
                   rng.uniform(-20, 20, (6, 2))])
    labels0 = np.repeat([1, 2, 0], [30, 30, 6])           # 6 noise points
    labels1 = np.repeat([1, 1, 2], [30, 30, 6])           # another reading, no noise
    order = rng.permutation(X.shape[0])                   # noise among the other points
    X, labels0, labels1 = X[order], labels0[order], labels1[order]
    clustbench.save_data(str(folder / "blobs.data.gz"), X, fmt="%.17g")
    clustbench.save_labels(str(folder / "blobs.labels0.gz"), labels0)
    clustbench.save_labels(str(folder / "blobs.labels1.gz"), labels1)
    (folder / "blobs.txt").write_text("two blobs and some noise\n")
    for i, dim in ((2, 1), (10, 3)):  # natural order: line2 before line10; 1-D data
        clustbench.save_data(str(folder / f"line{i}.data.gz"), rng.normal(size=(12, dim)),
                             fmt="%.17g")
        clustbench.save_labels(str(folder / f"line{i}.labels0.gz"), np.repeat([1, 2], 6))
        (folder / f"line{i}.txt").write_text("")
    (folder / ".hidden.data.gz").write_bytes(b"")
    (folder / "README.txt").write_text("a reference battery\n")
    return folder


# --------------------------------------------------------------------------- writing


def test_written_battery_reads_back_exactly_with_clustbench(tmp_path):
    rng = np.random.default_rng(1)
    datasets = [hd.Dataset(awkward_X(rng, 40, d), rng.integers(0, 4, 40)) for d in (1, 2, 5)]
    datasets.append(evolved(seed=3))
    names = ["d10", "d2", "d1", "evolved"]
    folder = write_battery(datasets, tmp_path, battery="mine", names=names)
    assert folder == tmp_path / "mine"
    assert clustbench.get_battery_names(str(tmp_path)) == ["mine"]
    assert clustbench.get_dataset_names("mine", str(tmp_path)) == battery_dataset_names(folder)
    assert battery_dataset_names(folder) == ["d1", "d2", "d10", "evolved"]
    for name, ds in zip(names, datasets, strict=True):
        ref = clustbench.load_dataset("mine", name, path=str(tmp_path), preprocess=False)
        assert ref.data.dtype == np.float64 and np.array_equal(ref.data, ds.X)
        assert np.array_equal(np.signbit(ref.data), np.signbit(ds.X))  # -0.0 kept
        assert len(ref.labels) == 1 and np.array_equal(ref.labels[0], ds.y + 1)
        assert ref.n_clusters.tolist() == [len(np.unique(ds.y))]
    text = (folder / "evolved.txt").read_text()
    meta = datasets[3].metadata
    assert text.startswith("Written by hawks-deap ") and "seed 3" in text
    recorded = json.loads(text[text.index("\n{") + 1:])  # the whole metadata, verbatim
    assert recorded["problem"] == meta["problem"] and recorded["seed"] == 3
    # ...and our reader gives back the same datasets
    for ds, back in zip(datasets, read_battery(folder, names=names), strict=True):
        assert np.array_equal(back.X, ds.X) and np.array_equal(back.y, ds.y)
        assert back.genotype is None


def test_writes_are_reproducible_and_checked_before_anything_is_written(tmp_path):
    ds = hd.Dataset(np.arange(12.0).reshape(6, 2), [0, 0, 1, 1, 2, 2])
    write_battery([ds], tmp_path / "a", battery="b", names=["x"])
    write_battery([ds], tmp_path / "c", battery="b", names=["x"])
    for f in ("x.data.gz", "x.labels0.gz", "x.txt", "README.txt"):
        assert (tmp_path / "a/b" / f).read_bytes() == (tmp_path / "c/b" / f).read_bytes()
    with pytest.raises(ValueError, match="finite"):  # refused when made, so ...
        hd.Dataset(np.array([[0.0], [np.inf]]), [0, 1])
    bad = hd.Dataset(np.array([[0.0], [1.0]]), [0, 1])
    bad.X[1, 0] = np.inf  # ... changed afterwards: write_battery checks again
    cases = [
        (dict(datasets=[ds, ds], names=["x", "x"]), ValueError, "repeated: x"),
        (dict(datasets=[ds], names=[".x"]), ValueError, "does not start with a dot"),
        (dict(datasets=[ds], names=["a/b"]), ValueError, "without spaces or slashes"),
        (dict(datasets=[ds], names=["x", "y"]), ValueError, "one entry per dataset"),
        (dict(datasets=[ds, bad], names=["x", "y"]), ValueError, "'y': X must contain only "
                                                                 "finite"),
        (dict(datasets=[(ds.X, ds.y)], names=["x"]), TypeError, "Dataset objects"),
        (dict(datasets=[], names=[]), ValueError, "at least one dataset"),
    ]
    for kwargs, exc, match in cases:
        with pytest.raises(exc, match=match):
            write_battery(kwargs["datasets"], tmp_path / "n", battery="b",
                          names=kwargs["names"])
        assert not (tmp_path / "n").exists()
    with pytest.raises(ValueError, match="battery must be a file name"):
        write_battery([ds], tmp_path / "n", battery="")


def test_overwrite_only_replaces_what_hawks_deap_wrote(tmp_path, monkeypatch):
    ds = hd.Dataset(np.arange(12.0).reshape(6, 2), [0, 0, 1, 1, 2, 2])
    folder = write_battery([ds], tmp_path, battery="b", names=["x"])
    with pytest.raises(FileExistsError, match="dataset x exists"):
        write_battery([ds], tmp_path, battery="b", names=["x"])
    other = hd.Dataset(ds.X + 1, ds.y)
    write_battery([other], tmp_path, battery="b", names=["x"], overwrite=True)
    assert np.array_equal(read_battery_dataset(folder, "x").X, other.X)
    # a dataset of someone else's (its description is not ours) is never replaced
    (folder / "theirs.data.gz").write_bytes(b"")
    (folder / "theirs.txt").write_text("from the literature\n")
    with pytest.raises(ValueError, match="not written by hawks-deap"):
        write_battery([ds], tmp_path, battery="b", names=["theirs"], overwrite=True)
    assert (folder / "theirs.txt").read_text() == "from the literature\n"
    (folder / "x.labels1.gz").write_bytes(b"")
    with pytest.raises(ValueError, match="x.labels1.gz, which hawks-deap did not write"):
        write_battery([ds], tmp_path, battery="b", names=["x"], overwrite=True)
    # symbolic links (found from outside: an overwrite replaced a user's link, and wrote
    # through a linked battery folder) are neither replaced nor written through
    write_battery([ds], tmp_path, battery="b", names=["w"])
    (tmp_path / "elsewhere").mkdir()
    moved = tmp_path / "elsewhere" / "w.data.gz"
    (folder / "w.data.gz").rename(moved)
    (folder / "w.data.gz").symlink_to(moved)
    with pytest.raises(ValueError, match=r"symbolic links \(w.data.gz\)"):
        write_battery([ds], tmp_path, battery="b", names=["w"], overwrite=True)
    assert (folder / "w.data.gz").is_symlink()
    (tmp_path / "linked").symlink_to(folder)
    with pytest.raises(ValueError, match="linked is a symbolic link"):
        write_battery([ds], tmp_path, battery="linked", names=["v"])
    assert not (folder / "v.txt").exists()
    # a battery's own README is kept
    (folder / "README.txt").write_text("mine\n")
    write_battery([ds], tmp_path, battery="b", names=["y"])
    assert (folder / "README.txt").read_text() == "mine\n"
    # a failed write removes the files it created, and only those
    real = dataset_module.write_file_atomic
    calls = []

    def failing(path, data, **options):
        calls.append(path)
        if len(calls) == 5:
            raise OSError(28, "No space left on device")
        return real(path, data, **options)

    before = sorted(p.name for p in folder.iterdir())
    monkeypatch.setattr(dataset_module, "write_file_atomic", failing)
    with pytest.raises(OSError, match="No space"):
        write_battery([ds, ds], tmp_path, battery="b", names=["z1", "z2"])
    assert sorted(p.name for p in folder.iterdir()) == before


# --------------------------------------------------------------------------- reading


def test_reads_what_clustbench_reads(tmp_path):
    folder = reference_battery(tmp_path)
    assert is_battery_dir(folder) and not is_battery_dir(tmp_path)
    names = clustbench.get_dataset_names("ref", str(tmp_path))
    assert battery_dataset_names(folder) == names == ["blobs", "line2", "line10"]
    datasets = read_battery(folder)
    ref_blobs = clustbench.load_dataset("ref", "blobs", path=str(tmp_path), preprocess=False)
    assert [d.metadata["name"] for d in datasets] == ["ref/blobs", "ref/line2", "ref/line10"]
    for name, ds in zip(names, datasets, strict=True):
        ref = clustbench.load_dataset("ref", name, path=str(tmp_path), preprocess=False)
        assert np.array_equal(ds.X, ref.data)
        truth = ref.labels[0]
        assert np.array_equal(ds.y, np.where(truth > 0, truth - 1, NOISE_LABEL))
        info = ds.metadata["clustbench"]
        assert info["description"] == ref.description
        assert info["n_label_vectors"] == len(ref.labels)
    assert datasets[0].metadata["clustbench"]["n_noise"] == 6
    assert datasets[1].X.shape == (12, 1)
    second = read_battery_dataset(folder, "blobs", labels=1)
    assert np.array_equal(second.y, ref_blobs.labels[1] - 1)
    # a dataset read from a battery is written back as it was (noise as 0)
    write_battery([datasets[0]], tmp_path / "copy", battery="ref")
    again = clustbench.load_dataset("ref", "blobs", path=str(tmp_path / "copy"),
                                    preprocess=False)
    assert np.array_equal(again.labels[0], ref_blobs.labels[0])
    assert (ref_blobs.labels[0] == 0).sum() == 6


def test_non_consecutive_labels_are_ranked(tmp_path):
    folder = tmp_path / "b"
    folder.mkdir()
    clustbench.save_data(str(folder / "x.data.gz"), np.arange(8.0).reshape(4, 2))
    np.savetxt(folder / "x.labels0.gz", [3, 1, 3, 0], fmt="%d")  # K = 2 clusters, 1 noise
    assert read_battery_dataset(folder, "x").y.tolist() == [1, 0, 1, NOISE_LABEL]


@pytest.mark.parametrize("data, labels, match", [
    ("1 2\n3\n", "1\n2\n", "not readable as points"),
    ("1 2\nnan 3\n", "1\n2\n", "row 2 holds a non-finite coordinate"),
    ("", "", "holds no points"),
    ("1 2\n3 4\n", "1\n", "one label a row for the 2 points"),
    ("1 2\n3 4\n", "1\n1.5\n", "row 2 has label 1.5"),
    ("1 2\n3 4\n", "1\n-1\n", "labels must be integers >= 0"),
    ("1 2\n3 4\n", "0\n0\n", "every point is noise"),
    ("1 2\n3 4\n", "a\nb\n", "not readable as labels"),
])
def test_bad_battery_files_are_refused_naming_the_file(tmp_path, data, labels, match):
    import gzip

    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "x.data.gz").write_bytes(gzip.compress(data.encode()))
    (folder / "x.labels0.gz").write_bytes(gzip.compress(labels.encode()))
    with pytest.raises(ValueError, match=match) as info:
        read_battery(folder)
    assert "x." in str(info.value)


def test_missing_label_vector_names_those_there_are(tmp_path):
    folder = reference_battery(tmp_path)
    with pytest.raises(ValueError, match=r"no label vector 1 for dataset ref/line2 \(it has: "
                                         r"labels0\)"):
        read_battery(folder, labels=1)
    with pytest.raises(ValueError, match="no such dataset"):
        read_battery(folder, names=["nope"])
    with pytest.raises(ValueError, match="labels must be >= 0"):
        read_battery(folder, labels=-1)
    with pytest.raises(ValueError, match="not a battery"):
        read_battery(tmp_path)


# --------------------------------------------------------------------------- noise


def test_noise_is_clustered_but_not_scored_as_clustbench_does(tmp_path):
    folder = reference_battery(tmp_path)
    ds = read_battery_dataset(folder, "blobs")
    ref = clustbench.load_dataset("ref", "blobs", path=str(tmp_path), preprocess=False)
    k = int(ref.n_clusters[0])  # 2: noise is no cluster
    table = performance_table([ds], ["single-linkage", "average-linkage"])
    for column, linkage in (("single-linkage", "single"), ("average-linkage", "average")):
        pred = AgglomerativeClustering(n_clusters=k, linkage=linkage).fit_predict(ref.data)
        expected = clustbench.get_score(ref.labels[0], {k: pred + 1},
                                        metric=adjusted_rand_score)
        assert table.column(column)[0] == pytest.approx(expected, abs=1e-12)
    # the features are those of the clusters: the non-noise points
    feats = features_table([ds]).records()[0]
    kept = ref.labels[0] > 0
    expected = problem_features(ref.data[kept], ref.labels[0][kept])
    assert feats == pytest.approx({k: float(v) for k, v in expected.items()})
    assert feats["n_clusters"] == 2


# --------------------------------------------------------------------------- command line


def test_cli_features_and_plot_read_batteries(tmp_path, capsys):
    folder = reference_battery(tmp_path)
    code, out, err = main(capsys, "features", folder, "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert [r["dataset"] for r in rows] == ["ref/blobs", "ref/line2", "ref/line10"]
    assert set(rows[0]) == {"dataset", *FEATURE_NAMES}
    # one dataset by its data file, another label vector, and the root of batteries
    code, out, err = main(capsys, "features", folder / "blobs.data.gz", "--labels", "1",
                          "--format", "json", "--algorithms", "kmeans++")
    assert code == 0, err
    assert json.loads(out)[0]["n_clusters"] == 2 and "ari_kmeans++" in json.loads(out)[0]
    code, out, err = main(capsys, "features", tmp_path, "--format", "csv")
    assert code == 0 and len(out.splitlines()) == 4
    code, _, err = main(capsys, "features", folder, "--labels", "1")
    assert code == 2 and "no label vector 1 for dataset ref/line2" in err
    code, _, err = main(capsys, "plot", folder / "blobs.data.gz")
    assert code == 2 and "--out DIR is required to plot a battery's dataset" in err
    code, _, err = main(capsys, "plot", folder, "--out", tmp_path / "figs")
    assert code == 0, err
    assert (tmp_path / "figs" / "instance_space.png").stat().st_size > 2000
    code, _, err = main(capsys, "plot", folder / "blobs.data.gz", "--out", tmp_path / "one")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == ["dataset.png"]


def test_cli_export_of_a_suite_and_of_a_folder_of_datasets(tmp_path, capsys):
    grid = tmp_path / "grid.toml"
    grid.write_text('[suite]\nruns = 2\nseed = 5\nmode = "index"\n[dataset]\n'
                    "n_samples = 60\nn_clusters = 3\n[ga]\ngenerations = 2\n"
                    "population_size = 4\n")
    code, _, err = main(capsys, "suite", grid, "--out", tmp_path / "s", "--quiet")
    assert code == 0, err
    code, out, err = main(capsys, "export", tmp_path / "s", "--format", "clustbench",
                          "--battery", "hawks", "--out", tmp_path / "root")
    assert code == 0, err
    rows = hs.summary_rows(tmp_path / "s")
    names = [row["path"].split("/")[-1] for row in rows]
    assert clustbench.get_dataset_names("hawks", str(tmp_path / "root")) == names
    for row, name in zip(rows, names, strict=True):
        ds = hd.Dataset.load(tmp_path / "s" / row["path"])
        ref = clustbench.load_dataset("hawks", name, path=str(tmp_path / "root"),
                                      preprocess=False)
        assert np.array_equal(ref.data, ds.X) and np.array_equal(ref.labels[0], ds.y + 1)
        assert f"seed {row['seed']}" in ref.description
        assert '"config_id": "c000"' in ref.description
    # again: refused, nothing changed; with --overwrite: replaced
    before = (tmp_path / "root/hawks" / f"{names[0]}.data.gz").stat().st_mtime_ns
    code, _, err = main(capsys, "export", tmp_path / "s", "--battery", "hawks", "--out",
                        tmp_path / "root")
    assert code == 2 and "exists" in err and "--overwrite" in err
    assert (tmp_path / "root/hawks" / f"{names[0]}.data.gz").stat().st_mtime_ns == before
    code, _, err = main(capsys, "export", tmp_path / "s", "--battery", "hawks", "--out",
                        tmp_path / "root", "--overwrite")
    assert code == 0, err
    # a folder of datasets in both formats
    evolved(seed=1).save(tmp_path / "coll" / "csv-one")
    evolved(seed=2).save(tmp_path / "coll" / "npz-one", format="npz")
    code, _, err = main(capsys, "export", tmp_path / "coll", "--battery", "two", "--out",
                        tmp_path / "root")
    assert code == 0, err
    assert clustbench.get_dataset_names("two", str(tmp_path / "root")) == ["csv-one",
                                                                           "npz-one"]
    code, _, err = main(capsys, "export", tmp_path / "coll", "--out", tmp_path / "r2")
    assert code == 2 and "--battery" in err
    code, _, err = main(capsys, "export", tmp_path / "coll", "--battery", "x", "--format",
                        "arff", "--out", tmp_path / "r2")
    assert code == 2 and ("argument --format: must be one of 'clustbench', 'isa', "
                          "'clustbench-results', got 'arff'") in err
    assert not (tmp_path / "r2").exists()


def test_cli_export_checks_and_computes_each_thing_once(tmp_path, capsys, monkeypatch):
    """The output is checked once and each dataset's labels are computed once; a dataset
    that is all noise is refused before any file is written (exit 2, naming it)."""
    evolved(seed=1).save(tmp_path / "coll" / "a")
    evolved(seed=2).save(tmp_path / "coll" / "b")
    calls = {"check_battery_output": 0, "_battery_labels": 0}
    for name in calls:
        real = getattr(batteries, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(batteries, name, counted)
    code, _, err = main(capsys, "export", tmp_path / "coll", "--battery", "x", "--out",
                        tmp_path / "root")
    assert code == 0, err
    assert calls == {"check_battery_output": 1, "_battery_labels": 2}
    assert battery_dataset_names(tmp_path / "root" / "x") == ["a", "b"]
    monkeypatch.undo()
    hd.Dataset(np.arange(6.0).reshape(3, 2), [-1, -1, -1],
               metadata={"noise_label": -1}).save(tmp_path / "coll" / "c")
    code, _, err = main(capsys, "export", tmp_path / "coll", "--battery", "x", "--out",
                        tmp_path / "r2")
    assert code == 2 and "dataset 'c': a dataset's points are all noise" in err
    assert "Traceback" not in err and not (tmp_path / "r2").exists()


def test_export_has_help(capsys):
    code, out, _ = main(capsys, "export", "--help")
    assert code == 0 and "usage: hawks-deap export" in out and "--battery NAME" in out


def test_a_dataset_with_noise_saves_and_loads(tmp_path):
    X = np.arange(12, dtype=float).reshape(6, 2)
    y = np.array([0, 0, -1, 1, 1, -1])
    ds = hd.Dataset(X, y, metadata={"noise_label": -1})
    np.testing.assert_array_equal(ds.sizes, [2, 2])  # noise is no cluster
    for fmt in ("csv", "npz"):
        ds.save(tmp_path / fmt, format=fmt)
        back = hd.Dataset.load(tmp_path / fmt)
        np.testing.assert_array_equal(back.X, X)
        np.testing.assert_array_equal(back.y, y)


def test_a_corrupted_gzip_is_refused_naming_the_file(tmp_path):
    import gzip

    from hawks_deap.io.batteries import read_battery

    good = gzip.compress(b"0 0\n1 1\n2 2\n")
    (tmp_path / "a.data.gz").write_bytes(good[:12] + b"\x00" * 8 + good[20:])
    (tmp_path / "a.labels0.gz").write_bytes(gzip.compress(b"1\n1\n2\n"))
    (tmp_path / "a.txt").write_text("a")
    with pytest.raises(ValueError, match="a.data.gz: not readable as"):
        read_battery(tmp_path)


def test_noise_is_the_metadata_noise_label_everywhere():
    X = np.arange(12, dtype=float).reshape(6, 2)
    y = np.array([0, 0, -1, 1, 1, -1])
    np.testing.assert_array_equal(hd.Dataset(X, y, metadata={"noise_label": -1}).noise_mask,
                                  y == -1)
    assert not hd.Dataset(X, np.array([0, 0, 1, 1, 2, 2])).noise_mask.any()


def test_prepare_battery_writes_nothing_until_write_and_then_what_write_battery_writes(
        tmp_path):
    from hawks_deap.io.batteries import prepare_battery

    rng = np.random.default_rng(4)
    datasets = [hd.Dataset(awkward_X(rng, 30, 2), rng.integers(0, 3, 30)) for _ in range(2)]
    export = prepare_battery(datasets, tmp_path / "a", battery="b", names=["x", "y"])
    assert not (tmp_path / "a").exists()  # checked, nothing written
    with pytest.raises(ValueError, match="names must have one entry per dataset"):
        prepare_battery(datasets, tmp_path / "a", battery="b", names=["x"])
    folder = export.write()
    ref = write_battery(datasets, tmp_path / "c", battery="b", names=["x", "y"])
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in ref.iterdir())
    for path in ref.iterdir():
        assert (folder / path.name).read_bytes() == path.read_bytes()
