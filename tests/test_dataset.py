import json
import re

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
    assert hd.genome.genotype_equal(back.genotype, ds.genotype)
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
    assert hd.evaluation.silhouette_score(back.X, back.y, metric="sqeuclidean") == \
        pytest.approx(meta["record"]["index"], rel=1e-12)
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


def _saved(tmp_path, name="d"):
    ds = hd.Dataset(np.zeros((3, 2)), [0, 1, 1])
    return ds, ds.save(tmp_path / name)


def test_overwrite_never_deletes_files_hawks_deap_did_not_write(tmp_path):
    """Issue 19, point 1: a folder with a data.csv and a user's files is not replaced."""
    ds, _ = _saved(tmp_path)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "data.csv").write_text("a,b\n")
    (proj / "thesis.tex").write_text("mine")
    (proj / "figures").mkdir()
    with pytest.raises(ValueError, match="not a hawks-deap output directory"):
        ds.save(proj, overwrite=True)
    assert (proj / "thesis.tex").read_text() == "mine" and (proj / "figures").is_dir()
    # a real output with a user's file added: refused, naming the file
    own = tmp_path / "d"
    (own / "notes.txt").write_text("mine too")
    with pytest.raises(ValueError, match=r"did not write \(notes.txt\)"):
        ds.save(own, overwrite=True)
    assert (own / "notes.txt").read_text() == "mine too"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "proj"]  # nothing left over


def test_overwrite_replaces_a_previous_output_with_its_logbook_and_figures(tmp_path):
    import matplotlib.pyplot as plt

    from hawks_deap.analysis.plotting import figure_bytes

    ds, path = _saved(tmp_path)
    fig = plt.figure()
    (path / "dataset.png").write_bytes(figure_bytes(fig, "dataset.png"))  # plot's own
    plt.close(fig)
    hd.Dataset(np.ones((3, 2)), [1, 0, 0]).save(path, overwrite=True,
                                                 extra_files={"logbook.csv": "gen\n0\n"})
    assert sorted(p.name for p in path.iterdir()) == ["data.csv", "genes.json", "logbook.csv",
                                                      "metadata.json"]
    np.testing.assert_array_equal(hd.Dataset.load(path).X, np.ones((3, 2)))


@pytest.mark.parametrize("name, content", [
    ("data.npz", None),  # a CSV run writes data.csv only: this one is the user's
    ("partitions.csv", "cluster,size\n0,3\n"),
    ("logbook.csv", "epoch,loss\n0,1.0\n"),
    ("versus.png", b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + bytes(17)),  # not plot's
    ("dataset.png", b"fake"),
])
def test_overwrite_keeps_a_users_file_under_one_of_hawks_deaps_names(tmp_path, name, content):
    """A file named as hawks-deap names its own, holding what hawks-deap does not write
    there (found from outside: a user's data.npz beside a CSV run, their own
    partitions.csv or figure), keeps its folder from an overwrite."""
    ds, path = _saved(tmp_path)
    if content is None:
        np.savez(path / name, X=np.arange(6.0).reshape(3, 2))
    elif isinstance(content, str):
        (path / name).write_text(content)
    else:
        (path / name).write_bytes(content)
    before = sorted((p.name, p.read_bytes()) for p in path.iterdir())
    with pytest.raises(ValueError, match=rf"did not write \([^)]*{re.escape(name)}"):
        ds.save(path, overwrite=True)
    assert sorted((p.name, p.read_bytes()) for p in path.iterdir()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]  # nothing left over


@pytest.mark.parametrize("swap", [True, False])
def test_a_failed_replacement_puts_the_previous_output_back(tmp_path, monkeypatch, swap):
    # swap: the system swaps the two folders in one step (and fails); else the old one
    # is moved aside first and the new one's rename fails
    from hawks_deap._util import writes as _writes

    ds, path = _saved(tmp_path)
    before = {p.name: p.read_bytes() for p in path.iterdir()}
    real, calls = _writes.rename_no_replace, []

    def failing(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:  # the new directory into place (the first moves the old aside)
            raise OSError(28, "No space left on device")
        return real(src, dst)

    def failing_exchange(a, b):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_writes, "rename_no_replace", failing)
    monkeypatch.setattr(_writes, "exchange", failing_exchange if swap else lambda a, b: False)
    with pytest.raises(OSError, match="No space left"):
        hd.Dataset(np.ones((3, 2)), [1, 0, 0]).save(path, overwrite=True)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in path.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]  # no hidden leftovers


def _generated(tmp_path):
    problem = hd.IndexProblem(200, 4, 2, target=0.5)
    result = hd.evolve(problem, population_size=4, generations=2, seed=0)
    return result.best_dataset().save(tmp_path / "run")


def _edit_json(path, change):
    import json

    data = json.loads(path.read_text())
    path.write_text(json.dumps(change(data)))


def _write(name, text):
    return lambda path: (path / name).write_text(text)


def _edit_clusters(path, change):
    _edit_json(path / "genes.json",
               lambda g: {**g, "clusters": [change(c) for c in g["clusters"]]})


DAMAGES = {
    "truncated data": (lambda p: (p / "data.csv").write_text(
        "".join((p / "data.csv").read_text().splitlines(keepends=True)[:100])),
        r"data\.csv holds 99 points in clusters, but the sizes in \S+genes\.json sum to "
        r"200: \S+data\.csv is truncated"),
    "empty data": (_write("data.csv", ""), "header must be"),
    "one column": (_write("data.csv", "label\n0\n1\n"), "header must be"),
    "header only": (_write("data.csv", "x0,x1,label\n"), "no points"),
    "ragged row": (_write("data.csv", "x0,x1,label\n1,2,0\n3,0\n"),
                   r"rows must hold 3 numbers each \(line 3 holds 2 values, the header 3\)$"),
    "text cell": (_write("data.csv", "x0,x1,label\n1,2,0\n3,abc,1\n"),
                  r"rows must hold 3 numbers each \(line 3, column x1: 'abc' is not a "
                  r"number\)$"),  # (the file's lines, as below; not numpy's count from 0)
    "nan cell": (_write("data.csv", "x0,x1,label\n1,nan,0\n3,4,1\n"),
                 "line 2 holds a non-finite coordinate"),
    "inf cell": (_write("data.csv", "x0,x1,label\n1,2,0\n3,inf,1\n"),
                 "line 3 holds a non-finite coordinate"),
    "nan label": (_write("data.csv", "x0,x1,label\n1,2,nan\n3,4,1\n"),
                  "line 2 has label nan; labels must be integers"),
    "fractional label": (_write("data.csv", "x0,x1,label\n1,2,1.7\n"),
                         "labels must be integers"),
    "genes a list": (_write("genes.json", "[1, 2]"),
                     "must hold a JSON object"),
    "genes not json": (_write("genes.json", "{oops"), "not valid JSON"),
    "clusters ints": (lambda p: _edit_json(p / "genes.json",
                                           lambda g: {**g, "clusters": [1, 2, 3, 4]}),
                      "clusters must be a list of objects"),
    "extra size": (lambda p: _edit_json(p / "genes.json",
                                        lambda g: {**g, "sizes": g["sizes"] + [0]}),
                   "do not match"),
    "wrong dimension": (lambda p: _edit_clusters(p, lambda c: {
        **c, "mean": c["mean"] + [0.0], "variances": c["variances"] + [1.0],
        "rotation": np.eye(3).tolist()}), "has 3 dimensions"),
    "not a rotation": (lambda p: _edit_clusters(p, lambda c: {
        **c, "rotation": [[1.0, 0.5], [0.0, 1.0]]}), "not a proper rotation"),
    "metadata a list": (_write("metadata.json", "[]"),
                        "must hold a JSON object"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_load_checks_every_file_and_names_it(tmp_path, damage):
    """Issue 19, point 4: damaged files give one clear error naming the file."""
    path = _generated(tmp_path)
    hd.Dataset.load(path)  # intact: loads
    change, message = DAMAGES[damage]
    change(path)
    with pytest.raises(ValueError, match=message) as info:
        hd.Dataset.load(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("fmt", ["csv", "npz"])
def test_files_are_whole_finds_files_cut_short(tmp_path, fmt):
    """Prefixes of the points' file and of genes.json are found: cut after every line
    end and brace (where a cut file could look ended), in its last 100 bytes and at
    every 13th byte."""
    from hawks_deap.io.dataset import files_are_whole

    path = hd.Dataset.load(_generated(tmp_path)).save(tmp_path / fmt, format=fmt)
    assert files_are_whole(path, 200)
    if fmt == "csv":
        assert not files_are_whole(path, 199)  # a row more than the metadata's sizes
    for name in (f"data.{fmt}", "genes.json"):
        whole = (path / name).read_bytes()
        cuts = {i + 1 for i, byte in enumerate(whole) if byte in b"\n}"}
        cuts |= {*range(0, len(whole), 13), *range(max(0, len(whole) - 100), len(whole))}
        for length in sorted(cuts - {len(whole)}):
            (path / name).write_bytes(whole[:length])
            assert not files_are_whole(path, 200), (name, length)
        (path / name).write_bytes(whole)
    assert files_are_whole(path, 200)
    data = path / f"data.{fmt}"
    other = path / ("data.npz" if fmt == "csv" else "data.csv")
    other.write_bytes(data.read_bytes())
    assert not files_are_whole(path, 200)  # both points' files
    other.unlink()
    data.unlink()
    assert not files_are_whole(path, 200)  # neither


def test_regenerating_more_than_memory_holds_is_refused(tmp_path):
    dataset = hd.Dataset.load(_generated(tmp_path))
    with pytest.raises(ValueError, match=r"n_samples=1000000000000.*more than this machine"):
        dataset.regenerate(10**12, seed=0)


def test_npz_round_trip_is_exact(tmp_path):
    """Issue 21, item 5: data.npz (compressed) reads back the same bits as data.csv."""
    path = _generated(tmp_path)
    csv_dataset = hd.Dataset.load(path)
    npz_path = csv_dataset.save(tmp_path / "npz", format="npz")
    assert sorted(p.name for p in npz_path.iterdir()) == ["data.npz", "genes.json",
                                                          "metadata.json"]
    back = hd.Dataset.load(npz_path)
    assert back.X.tobytes() == csv_dataset.X.tobytes()
    assert back.y.tolist() == csv_dataset.y.tolist() and back.y.dtype == np.int64
    assert [g.key for g in back.genotype] == [g.key for g in csv_dataset.genotype]
    assert (npz_path / "data.npz").stat().st_size < (path / "data.csv").stat().st_size
    back.save(npz_path, overwrite=True, format="csv")  # and back to text
    assert hd.Dataset.load(npz_path).X.tobytes() == csv_dataset.X.tobytes()


def test_npz_files_are_checked_and_named(tmp_path):
    path = _generated(tmp_path)
    npz = hd.Dataset.load(path).save(tmp_path / "npz", format="npz")
    data = (npz / "data.npz").read_bytes()
    (npz / "data.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"data\.npz: not a dataset"):
        hd.Dataset.load(npz)
    buffer = __import__("io").BytesIO()
    np.savez(buffer, X=np.array([[1.0, np.nan]]), y=np.array([0]))
    (npz / "data.npz").write_bytes(buffer.getvalue())
    with pytest.raises(ValueError, match=r"data\.npz: row 0 holds a non-finite"):
        hd.Dataset.load(npz)
    (path / "data.npz").write_bytes(buffer.getvalue())
    with pytest.raises(ValueError, match="holds both data.csv and data.npz"):
        hd.Dataset.load(path)
    with pytest.raises(ValueError, match="format"):
        hd.Dataset(np.zeros((2, 2)), [0, 1]).save(tmp_path / "x", format="parquet")
    with pytest.raises(ValueError, match="integer cluster labels"):  # before any format
        hd.Dataset(np.zeros((2, 2)), ["a", "b"])
    assert not (tmp_path / "x").exists()


def test_created_files_removes_only_the_files_it_created(tmp_path):
    from hawks_deap.io.dataset import CreatedFiles

    old = tmp_path / "old.txt"
    old.write_bytes(b"theirs")
    files = CreatedFiles()
    with pytest.raises(KeyboardInterrupt), files.removed_on(KeyboardInterrupt):
        files.write(tmp_path / "new.txt", b"ours")
        files.write(old, b"replaced")
        assert (tmp_path / "new.txt").read_bytes() == b"ours"
        raise KeyboardInterrupt
    assert not (tmp_path / "new.txt").exists()
    assert old.read_bytes() == b"replaced"  # existed before: replaced, never removed
    with files.removed_on(KeyboardInterrupt):  # a block that finishes keeps its files
        files.write(tmp_path / "kept.txt", b"x")
    assert (tmp_path / "kept.txt").exists()


def test_labels_are_integers_that_save_and_load_back(tmp_path):
    X = np.zeros((3, 2))
    assert hd.Dataset(X, [True, False, True]).y.tolist() == [1, 0, 1]
    assert hd.Dataset(X, [0.0, 1.0, 1.0]).y.dtype == np.int64
    with pytest.raises(ValueError, match="y must hold integer cluster labels"):
        hd.Dataset(X, [0.5, 1.5, 1.5])
    with pytest.raises(ValueError, match="y must hold integer cluster labels"):
        hd.Dataset(X, ["a", "b", "a"])
    with pytest.raises(ValueError, match=r"negative label -1; .*metadata\['noise_label'\]"):
        hd.Dataset(X, [-1, 0, 0])
    noisy = hd.Dataset(X, [-1, 0, 0], metadata={"noise_label": -1})
    noisy.save(tmp_path / "d")
    assert hd.Dataset.load(tmp_path / "d").y.tolist() == [-1, 0, 0]


def test_files_are_whole_is_false_for_an_npz_that_zipfile_refuses(tmp_path):
    """A damaged archive is a damaged run (redone on resume), whatever zipfile raises:
    here an unknown compression method in the central directory (NotImplementedError)."""
    import struct

    from hawks_deap.io.dataset import files_are_whole

    path = hd.Dataset.load(_generated(tmp_path)).save(tmp_path / "npz", format="npz")
    raw = bytearray((path / "data.npz").read_bytes())
    at = raw.find(b"PK\x01\x02")  # the first central-directory entry
    raw[at + 10:at + 12] = struct.pack("<H", 99)  # its compression method
    (path / "data.npz").write_bytes(bytes(raw))
    assert not files_are_whole(path, 200)


def test_bad_genotype_metadata_path_and_extra_files_are_named_before_any_write(tmp_path):
    X, y = np.zeros((4, 2)), [0, 0, 1, 1]
    with pytest.raises(TypeError, match="genotype must be a sequence of Cluster genes"):
        hd.Dataset(X, y, genotype=3)
    with pytest.raises(TypeError, match="metadata must be a dict"):
        hd.Dataset(X, y, metadata=3)
    with pytest.raises(TypeError, match=r"metadata\['a'\]\['b'\]\[1\] is not JSON-ready: "
                                        r"a object"):
        hd.Dataset(X, y, metadata={"a": {"b": [1, object()]}})
    with pytest.raises(TypeError, match=r"metadata\['a'\] has the key \(1, 2\), a tuple"):
        hd.Dataset(X, y, metadata={"a": {(1, 2): 0}})
    ds = hd.Dataset(X, y, metadata={"n": np.int64(3), "v": np.arange(2), "ok": None})
    with pytest.raises(TypeError, match="path must be a str or os.PathLike"):
        ds.save(3)
    for name in ("", ".", "..", "a/b", "data.csv", "metadata.json"):
        with pytest.raises(ValueError, match="extra_files: invalid file name"):
            ds.save(tmp_path / "d", extra_files={name: "x"})
    with pytest.raises(TypeError, match=r"extra_files\['notes.txt'\] must be a str"):
        ds.save(tmp_path / "d", extra_files={"notes.txt": b"x"})
    assert not any(tmp_path.iterdir())  # nothing written, no temporary folder
    ds.save(tmp_path / "d", extra_files={"notes.txt": "x"})
    assert (tmp_path / "d" / "notes.txt").read_text() == "x"
    assert hd.Dataset.load(tmp_path / "d").metadata["n"] == 3


def test_what_the_files_hold_together_is_refused_naming_the_data_file(tmp_path):
    """A negative label without a noise label, out-of-scale values: found by the
    constructor, named with the file as every other load error."""
    folder = tmp_path / "neg"
    folder.mkdir()
    (folder / "data.csv").write_text("x0,x1,label\n0.0,1.0,0\n1.0,0.0,-1\n")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(folder / 'data.csv'))}: y has "
                                         r"the negative label -1"):
        hd.Dataset.load(folder)


def test_labels_are_cluster_indices_of_the_points():
    X = np.zeros((3, 2))
    for y in ([0, 2**40, 1], np.array([0, 2**63, 1], dtype=np.uint64)):
        with pytest.raises(ValueError, match=r"y has the label \d+, not a cluster index of 3 "
                                             r"points"):
            hd.Dataset(X, y)
    with pytest.raises(ValueError, match="y must hold integer cluster labels"):
        hd.Dataset(X, [0.0, 1e20, 1.0])  # (cast to int64 it became a negative label)
    assert hd.Dataset(X, [0, 2, 1]).sizes.tolist() == [1, 1, 1]


def test_metadata_save_could_not_write_is_refused_at_construction():
    X, y = np.zeros((2, 1)), [0, 1]
    with pytest.raises(TypeError, match=r"metadata mixes keys of kinds that cannot be sorted "
                                        r"together \(int, str\)"):
        hd.Dataset(X, y, metadata={1: "a", "b": 2})
    with pytest.raises(TypeError, match=r"metadata\['a'\] is not JSON-ready: an array of "
                                        r"complex128"):
        hd.Dataset(X, y, metadata={"a": np.array([0 + 1j])})
    hd.Dataset(X, y, metadata={"a": np.array([[1, 2]]), "b": {1: 2, 3: 4}})  # fine


def test_a_users_package_entry_cannot_hide_the_mark_overwrite_reads(tmp_path):
    ds = hd.Dataset(np.zeros((2, 1)), [0, 1], metadata={"package": "my-study"})
    with pytest.raises(ValueError, match=r"metadata\['package'\] = 'my-study': that entry "
                                         r"marks the folders hawks-deap writes"):
        ds.save(tmp_path / "d")
    assert not (tmp_path / "d").exists()


def test_the_repr_counts_clusters_without_the_noise():
    ds = hd.Dataset(np.zeros((4, 2)), [0, 1, 1, -1], metadata={"noise_label": -1})
    assert repr(ds) == "Dataset(n_samples=4, n_dims=2, n_clusters=2)"
    html = ds._repr_html_()
    assert "noise points" in html and "-1" not in html.split("sizes")[1].split("</tr>")[0]


@pytest.mark.parametrize("rows, message", [
    ("0,0,0\n\n\n1,1,1\nnan,2,1\n", "line 6 holds a non-finite coordinate"),
    ("0,0,0\n\n1,1,1\n\n2,2,2.5\n", "line 6 has label 2.5"),
    ("1_000,0,0\n1,1,1\n", "line 2, column x0: '1_000' is not a number")])
def test_data_csv_errors_count_the_files_lines_blank_ones_too(tmp_path, rows, message):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "data.csv").write_text("x0,x1,label\n" + rows)
    with pytest.raises(ValueError, match=re.escape(message)):
        hd.Dataset.load(folder)
