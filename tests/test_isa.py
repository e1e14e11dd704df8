"""Instance Space Analysis interop (issue 35, item 4): ``metadata.csv`` for MATILDA.

`hawks_deap.analysis.isa` writes and reads it; ``hawks-deap export --format isa`` writes
it from saved datasets."""

import argparse
import csv
import math

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap import cli
from hawks_deap.analysis.features import FEATURE_NAMES, features_table, performance_table
from hawks_deap.analysis.isa import (
    METADATA_FILE,
    isa_metadata_text,
    read_isa_metadata,
    write_isa_metadata,
)
from hawks_deap.analysis.table import Table
from hawks_deap.cli import export


def main(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def tables():
    """Awkward values (subnormal, -0.0, 1/3, inf, NaN) and awkward names."""
    names = ("a", "b,with comma", 'c "quoted"', "d/e")
    feats = np.array([[1 / 3, 5e-324, -0.0], [np.nan, 1e300, 0.1 + 0.2],
                      [np.inf, -np.inf, np.nan], [-1.5, 2.0 ** -1074 * 3, 123456789.123456789]])
    perf = np.array([[1.0, np.nan], [-0.5, 0.9999999999999999], [np.nan, np.nan], [0.0, 1e-17]])
    return (Table(names, ("silhouette", "overlap", "size,entropy"), feats),
            Table(names, ("kmeans++", "single-linkage"), perf),
            ["hawks", "sipu", "uci, again", "hawks"])


def same_bits(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    nan = np.isnan(a)
    return (a.shape == b.shape and np.array_equal(nan, np.isnan(b))
            and np.array_equal(a[~nan].view(np.uint64), b[~nan].view(np.uint64)))


def test_write_then_read_gives_back_every_name_source_and_bit(tmp_path):
    features, performance, sources = tables()
    path = write_isa_metadata(tmp_path / METADATA_FILE, features, performance, sources)
    f2, p2, s2 = read_isa_metadata(path)
    assert f2.index == features.index and p2.index == features.index
    assert f2.columns == features.columns and p2.columns == performance.columns
    assert s2 == sources
    assert same_bits(f2.values, features.values) and same_bits(p2.values, performance.values)
    assert np.signbit(f2.values[0, 2])  # -0.0 stays -0.0


def test_header_order_and_nan_as_empty_fields(tmp_path):
    features, performance, sources = tables()
    path = write_isa_metadata(tmp_path / METADATA_FILE, features, performance, sources)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["instances", "source", "feature_silhouette", "feature_overlap",
                       "feature_size,entropy", "algo_kmeans++", "algo_single-linkage"]
    assert [r[0] for r in rows[1:]] == list(features.index)
    assert rows[3][4:] == ["", "", ""] and rows[3][2:4] == ["Inf", "-Inf"]
    assert rows[1][2] == repr(1 / 3)  # the shortest text that reads back exactly


def test_without_performance_or_sources(tmp_path):
    features, _, _ = tables()
    text = isa_metadata_text(features)
    assert text.splitlines()[0] == ("instances,feature_silhouette,feature_overlap,"
                                    '"feature_size,entropy"')
    path = write_isa_metadata(tmp_path / "m.csv", features, None, None)
    f2, p2, s2 = read_isa_metadata(path)
    assert s2 is None and p2.columns == () and p2.index == features.index
    assert same_bits(f2.values, features.values)


def test_an_existing_file_is_replaced_only_with_overwrite(tmp_path):
    features, performance, sources = tables()
    path = tmp_path / METADATA_FILE
    path.write_text("mine\n")
    with pytest.raises(FileExistsError, match="overwrite"):
        write_isa_metadata(path, features, performance, sources)
    assert path.read_text() == "mine\n"
    write_isa_metadata(path, features, performance, sources, overwrite=True)
    assert read_isa_metadata(path)[2] == sources
    assert [p.name for p in tmp_path.iterdir()] == [METADATA_FILE]  # no temporary left


def test_inputs_are_checked_before_anything_is_written(tmp_path):
    features, performance, sources = tables()
    path = tmp_path / METADATA_FILE
    other = Table(features.index[::-1], performance.columns, performance.values)
    cases = [((features, other, sources), "same order"),
             ((features, performance, sources[:2]), "one string per instance"),
             ((Table(("x", "x"), ("f",), [[1.0], [2.0]]), None, None), "repeat"),
             ((Table(("x", " "), ("f",), [[1.0], [2.0]]), None, None), "empty"),
             ((Table((), ("f",), np.empty((0, 1))), None, None), "no instance")]
    for args, message in cases:
        with pytest.raises(ValueError, match=message):
            write_isa_metadata(path, *args)
    with pytest.raises(TypeError, match="Table"):
        write_isa_metadata(path, features.values, None, None)
    assert not path.exists()


def test_read_is_as_lenient_as_matilda_and_names_bad_values(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("instances,notes,SOURCE,Feature_a,algo_x\n"
                    "i1,anything,s,NaN,0.5\n"
                    "i2,,s,1e-3,\n")
    features, performance, sources = read_isa_metadata(path)
    assert features.index == ("i1", "i2") and features.columns == ("a",)
    assert performance.columns == ("x",) and sources == ["s", "s"]
    assert math.isnan(features.values[0, 0]) and features.values[1, 0] == 1e-3
    assert math.isnan(performance.values[1, 0])
    path.write_text("instances,feature_a\ni1,zero\n")
    with pytest.raises(ValueError, match="line 2, feature_a: 'zero' is not a number"):
        read_isa_metadata(path)
    path.write_text("name,feature_a\ni1,0\n")
    with pytest.raises(ValueError, match="one .instances. column"):
        read_isa_metadata(path)
    path.write_text("instances,feature_a\ni1,0,1\n")
    with pytest.raises(ValueError, match="3 fields"):
        read_isa_metadata(path)


def test_pandas_reads_what_matilda_reads(tmp_path):
    """pandas' read_csv is the reader of the Python ports (instancespace, pyispace)."""
    pd = pytest.importorskip("pandas")
    features, performance, sources = tables()
    path = write_isa_metadata(tmp_path / METADATA_FILE, features, performance, sources)
    # (pandas 2's default parser can miss the last bit: its exact one, as the guide says)
    exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    frame = pd.read_csv(path, index_col="instances", **exact)
    assert tuple(frame.index) == features.index and list(frame["source"]) == sources
    assert same_bits(frame.filter(regex="^feature_").to_numpy(), features.values)
    assert same_bits(frame.filter(regex="^algo_").to_numpy(), performance.values)


# -- the command ------------------------------------------------------------------------

def blobs(seed):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(loc=(4.0 * k, 0.0), size=(15, 2)) for k in range(3)])
    return hd.Dataset(X, np.repeat([0, 1, 2], 15))


@pytest.fixture
def collection(tmp_path):
    for i, name in enumerate(("one", "two")):
        blobs(i).save(tmp_path / "coll" / name)
    return tmp_path / "coll"


def test_export_isa_end_to_end(tmp_path, capsys, collection):
    code, out, err = main(capsys, "export", collection, "--format", "isa", "--battery",
                          "exp", "--out", tmp_path / "root")
    assert code == 0, err
    path = tmp_path / "root" / "exp" / METADATA_FILE
    assert f"wrote {path}" in out
    features, performance, sources = read_isa_metadata(path)
    names = ["one", "two"]  # a dataset directory is named by its folder
    assert list(features.index) == names and sources == ["coll", "coll"]
    assert features.columns == FEATURE_NAMES and performance.columns == ()
    expected = features_table([hd.Dataset.load(collection / n) for n in names], names=names)
    assert same_bits(features.values, expected.values)
    # again: refused (exit 2), the file untouched; with --overwrite: replaced
    before = path.read_bytes(), path.stat().st_mtime_ns
    code, _, err = main(capsys, "export", collection, "--format", "isa", "--battery",
                        "exp", "--out", tmp_path / "root")
    assert code == 2 and "already exists" in err and "--overwrite" in err
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    code, _, err = main(capsys, "export", collection, "--format", "isa", "--battery",
                        "exp", "--out", tmp_path / "root", "--overwrite")
    assert code == 0, err
    assert path.read_bytes() == before[0] and path.stat().st_mtime_ns >= before[1]


def test_export_isa_refuses_bad_input_before_any_work(tmp_path, capsys, collection):
    hd.Dataset(np.zeros((4, 2)), [0, 0, 1, 1]).save(collection / "tiny")
    code, _, err = main(capsys, "export", collection, "--format", "isa", "--battery", "x",
                        "--out", tmp_path / "root")
    assert code == 2 and "tiny" in err and "Traceback" not in err
    code, _, err = main(capsys, "export", collection / "one", "--format", "isa",
                        "--battery", "../up", "--out", tmp_path / "root")
    assert code == 2 and "plain folder name" in err
    assert not (tmp_path / "root").exists()


def isa_args(paths, out, **options):
    values = {"paths": [str(p) for p in paths], "labels": 0, "format": "isa",
              "battery": None, "out": str(out), "overwrite": False, "algorithms": None,
              "preset": None, "seed": 0}
    return argparse.Namespace(**{**values, **options})


def test_export_isa_with_algorithms_writes_their_ari(tmp_path, capsys, collection):
    """Through ``prepare`` (the command's options may not offer --algorithms yet)."""
    paths = [collection / "one", collection / "two"]
    run = export.prepare(isa_args(paths, tmp_path / "isa", algorithms="kmeans++,gmm",
                                  seed=3))
    assert run() == 0 and "2 algorithms" in capsys.readouterr().out
    features, performance, sources = read_isa_metadata(tmp_path / "isa" / METADATA_FILE)
    names = [p.name for p in paths]
    expected = performance_table([hd.Dataset.load(p) for p in paths], ["kmeans++", "gmm"],
                                 seed=3, names=names)
    assert performance.columns == ("kmeans++", "gmm") and list(performance.index) == names
    assert same_bits(performance.values, expected.values)
    with open(tmp_path / "isa" / METADATA_FILE, encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split(",")
    assert header == ["instances", "source", *(f"feature_{c}" for c in FEATURE_NAMES),
                      "algo_kmeans++", "algo_gmm"]
    with pytest.raises(ValueError, match="already exists"):
        export.prepare(isa_args(paths, tmp_path / "isa"))


def _option_required(name):
    from hawks_deap.settings import config

    return any(o.key == name and o.required and "export" in o.commands
               for o in config.SCHEMA)


@pytest.mark.skipif(_option_required("battery"),
                    reason="export's --battery is still required by the option schema")
def test_export_isa_writes_into_out_without_battery(tmp_path, capsys, collection):
    code, _, err = main(capsys, "export", collection, "--format", "isa", "--out",
                        tmp_path / "root")
    assert code == 0, err
    assert read_isa_metadata(tmp_path / "root" / METADATA_FILE)[2] == ["coll", "coll"]
    code, _, err = main(capsys, "export", collection, "--out", tmp_path / "r2")
    assert code == 2 and "--battery" in err  # clustbench still needs it


def test_pyispace_selects_the_columns(tmp_path, collection):
    """pyispace's documented API, ``train_is(metadata, opts)``, takes a DataFrame and keeps
    the columns that match its prefixes; skipped without pyispace (0.3.7 does not even
    import on Python 3.11: a dataclass with a numpy default)."""
    pd = pytest.importorskip("pandas")
    try:
        from pyispace import train
    except (ImportError, ValueError) as error:
        pytest.skip(f"pyispace is not importable here: {error}")
    run = export.prepare(isa_args([collection], tmp_path, algorithms="kmeans++,gmm"))
    assert run() == 0
    frame = pd.read_csv(tmp_path / METADATA_FILE, index_col="instances")
    feats = frame.filter(regex=f"^{train._feature_prefix}")
    algos = frame.filter(regex=f"^{train._algo_prefix}")
    assert feats.shape == (2, len(FEATURE_NAMES)) and algos.shape == (2, 2)
