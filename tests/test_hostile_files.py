"""Hostile files (issue 30, "Nothing lost, round 2", items 5, 6, 9, 10, 11, 15, 18, 20).

Each test builds the hostile file, calls the real entry point (`hawks_deap.cli.main` or
the Python API) and checks the rule: exit 2 with one line naming the file, key or
option (in the API: a ``ValueError`` naming it), never a traceback or an exhausted
machine.
"""

import io
import json
import os
import pickle
import signal
import struct
import warnings
import zipfile

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap._util.files import CONFIG_MAX_BYTES, nesting_depth, read_json
from hawks_deap.campaign import runs
from hawks_deap.campaign import suite as hs
from hawks_deap.cli import main

DEEP = 200_000  # levels of nesting: far past any recursion limit
DEEP_JSON = "[" * DEEP + "]" * DEEP


def cli(capsys, *args):
    """Exit code and stderr of the command, checked to be one line when it fails."""
    code = main([str(a) for a in args])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code:
        assert err.strip() and "\n" not in err.strip(), err
    return code, err


@pytest.fixture
def dataset():
    rng = np.random.default_rng(0)
    return hd.Dataset(rng.normal(size=(300, 2)), np.repeat([0, 1, 2], 100))


def refused(path, match):
    """The one-line ValueError of `Dataset.load`, checked to name ``match``."""
    with pytest.raises(ValueError) as info:
        hd.Dataset.load(path)
    message = str(info.value)
    assert match in message and "\n" not in message, message
    return message


# ----------------------------------------------------------------------- 5: deep nesting


@pytest.mark.parametrize("name", ["metadata.json", "genes.json"])
def test_deeply_nested_dataset_json_is_named(tmp_path, capsys, dataset, name):
    folder = dataset.save(tmp_path / "d")
    (folder / name).write_text(DEEP_JSON)
    message = refused(folder, str(folder / name))
    assert "nests too deeply" in message
    code, err = cli(capsys, "features", folder)
    assert code == 2 and str(folder / name) in err


@pytest.mark.parametrize("suffix, text", [
    (".toml", "a = " + "[" * DEEP + "]" * DEEP + "\n"),
    (".json", DEEP_JSON),  # a HAWKS JSON config
    (".json", '{"ga": ' * 100 + "1" + "}" * 100),  # parses, but no config nests that deep
    (".toml", "a = " + "[" * 100 + "]" * 100 + "\n"),
])
def test_deeply_nested_config_exits_2_naming_it(tmp_path, capsys, suffix, text):
    path = tmp_path / f"deep{suffix}"
    path.write_text(text)
    code, err = cli(capsys, "generate", "--config", path, "--out", tmp_path / "out")
    assert code == 2 and f"config file {path}" in err
    assert not (tmp_path / "out").exists()


GRID = """
[suite]
runs = 1
seed = 3
mode = "index"

[dataset]
n_samples = 60
n_clusters = 3

[objective]
target = [0.3, 0.6]

[ga]
generations = 2
population_size = 4
"""


@pytest.fixture
def finished_suite(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID)
    suite, out = hs.load_suite(grid), tmp_path / "out"
    hs.run_suite(suite, out)
    return grid, suite, out


def test_deeply_nested_suite_json_is_named(capsys, finished_suite):
    grid, suite, out = finished_suite
    (out / "suite.json").write_text(DEEP_JSON)
    with pytest.raises(ValueError, match=r"suite\.json cannot be read \(it is not valid JSON: "
                                         "it nests too deeply"):
        hs.run_suite(suite, out)
    code, err = cli(capsys, "suite", grid, "--out", out, "--quiet")
    assert code == 2 and str(out / "suite.json") in err


def test_deeply_nested_run_metadata_on_resume_is_set_aside_and_redone(finished_suite):
    _, suite, out = finished_suite
    run = sorted((out / "runs").iterdir())[0]
    before = (run / "data.csv").read_bytes()
    (run / "metadata.json").write_text(DEEP_JSON)
    redone = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hs.run_suite(suite, out, on_row=redone.append)
    assert len(redone) == 1  # not finished: redone, the other run kept
    assert (run / "data.csv").read_bytes() == before  # (the same seed: the same run)
    assert json.loads((run / "metadata.json").read_text())["package"] == "hawks-deap"
    set_aside = [p for p in (out / "set-aside").iterdir()]
    assert len(set_aside) == 1 and (set_aside[0] / "metadata.json").read_text() == DEEP_JSON
    assert any("set-aside" in str(w.message) for w in caught)


def test_nesting_depth_is_iterative():
    assert nesting_depth(1) == 0 and nesting_depth([]) == 1
    assert nesting_depth({"a": [1, {"b": []}]}) == 4
    deep: list = []
    for _ in range(DEEP):
        deep = [deep]
    assert nesting_depth(deep) == DEEP + 1


# ------------------------------------------------------------------ 6: npz header bomb


def _npz_claiming(path, shape, version=(1, 0)):
    from numpy.lib import format as npf

    path.parent.mkdir(parents=True, exist_ok=True)
    header = io.BytesIO()
    write = npf.write_array_header_1_0 if version == (1, 0) else npf.write_array_header_2_0
    write(header, {"descr": "<f8", "fortran_order": False, "shape": shape})
    data = bytearray(header.getvalue())
    data[6] = version[0]  # (3.0: 2.0's layout)
    labels = io.BytesIO()
    np.save(labels, np.zeros(3))
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("X.npy", bytes(data))
        archive.writestr("y.npy", labels.getvalue())


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_npz_header_claiming_terabytes_is_refused_before_allocating(tmp_path, capsys,
                                                                     version):
    _npz_claiming(tmp_path / "d" / "data.npz", (10**7, 10**5), version)
    assert (tmp_path / "d" / "data.npz").stat().st_size < 1000
    message = refused(tmp_path / "d", str(tmp_path / "d" / "data.npz"))
    assert "(10000000, 100000)" in message and "more than this machine's memory" in message
    code, err = cli(capsys, "features", tmp_path / "d")
    assert code == 2 and "data.npz" in err


def test_npz_member_that_is_not_an_array_is_refused_unread(tmp_path):
    (tmp_path / "d").mkdir()
    with zipfile.ZipFile(tmp_path / "d" / "data.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("X.npy", b"\0" * 10**6)  # np.load would read it whole as bytes
        archive.writestr("y.npy", b"")
    refused(tmp_path / "d", "magic string")
    (tmp_path / "d" / "data.npz").write_bytes(b"\x93NUMPY\x01\x00" + b"v" * 100)  # no zip
    refused(tmp_path / "d", "not a dataset (an npz file with arrays X and y)")


def test_a_real_npz_still_loads(tmp_path, dataset):
    folder = dataset.save(tmp_path / "d", format="npz")
    loaded = hd.Dataset.load(folder)
    np.testing.assert_array_equal(loaded.X, dataset.X)
    np.testing.assert_array_equal(loaded.y, dataset.y)


# ---------------------------------------------------------------- 9 and 18: logbook.csv


@pytest.mark.parametrize("content, match", [
    (b"gen,fitness_best\n0," + b"1" * 200_000 + b"\n", "field larger than field limit"),
    (b"gen,fitness_best\n0,\xff\n", "is not UTF-8 text"),
])
def test_hostile_logbook_is_named(tmp_path, capsys, dataset, content, match):
    folder = dataset.save(tmp_path / "d")
    (folder / runs.LOGBOOK_FILE).write_bytes(content)
    with pytest.raises(ValueError, match=match) as info:
        runs.read_logbook_csv(folder / runs.LOGBOOK_FILE)
    assert str(folder / runs.LOGBOOK_FILE) in str(info.value)
    code, err = cli(capsys, "plot", folder)
    assert code == 2 and str(folder / runs.LOGBOOK_FILE) in err and match in err


def test_logbook_rows_longer_than_the_header_are_read(tmp_path):
    path = tmp_path / runs.LOGBOOK_FILE
    path.write_text("gen,fitness_best\n0,0.5,7,8\n1\n")
    rows = runs.read_logbook_csv(path)
    assert rows[0] == {"gen": 0.0, "fitness_best": 0.5} and np.isnan(rows[1]["fitness_best"])


# ---------------------------------------------------------------- 10: checkpoint lengths


def _checkpoint(tmp_path):
    path = tmp_path / "c.pkl"
    problem = hd.IndexProblem(n_samples=30, n_clusters=2, n_dims=2, target=0.5)
    hd.evolve(problem, population_size=4, generations=1, seed=1, checkpoint=path)
    return path


@pytest.mark.parametrize("damage", ["frame length", "bytes8 length", "unicode8 length",
                                    "bytearray8 length"])
def test_checkpoint_with_a_damaged_length_field_is_named(tmp_path, damage):
    path = _checkpoint(tmp_path)
    data = path.read_bytes()
    if damage == "frame length":  # a real checkpoint's first frame claims a terabyte
        assert data[2:3] == pickle.FRAME[:1]
        path.write_bytes(data[:3] + struct.pack("<Q", 2**40) + data[11:])
    else:  # MemoryError (bytes8, bytearray8) or OverflowError (unicode8) from a file
        opcode = {"bytes8": b"\x8e", "unicode8": b"\x8d", "bytearray8": b"\x96"}[
            damage.split()[0]]
        size = 2**63 + 5 if damage.startswith("unicode8") else 2**62
        path.write_bytes(b"\x80\x05" + opcode + struct.pack("<Q", size) + b"abc")
    with pytest.raises(ValueError, match="cannot be read") as info:
        hd.resume(path)
    assert f"checkpoint {str(path)!r}" in str(info.value) and "\n" not in str(info.value)


def test_checkpoint_that_is_not_a_regular_file_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"checkpoint '/dev/zero' is a character device"):
        hd.resume("/dev/zero")
    with pytest.raises(ValueError, match="cannot read checkpoint .*No such file"):
        hd.resume(tmp_path / "missing.pkl")


# ------------------------------------------------------- 11: configs that are not files


class _Hung(Exception):
    pass


def _alarm(signum, frame):
    raise _Hung


@pytest.mark.parametrize("command", ["generate", "suite"])
def test_config_that_is_not_a_regular_file_exits_2(tmp_path, capsys, command):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(20)  # a FIFO would block a plain open(): must not
    try:
        for config in ("/dev/zero", fifo, tmp_path):
            args = ["--config", config] if command == "generate" else [config]
            code, err = cli(capsys, command, *args, "--out", tmp_path / "out")
            assert code == 2 and f"config file {config} is " in err and "not a regular file" \
                in err
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_config_over_the_size_cap_exits_2(tmp_path, capsys):
    for name in ("big.toml", "big.json"):
        path = tmp_path / name
        with open(path, "wb") as fh:
            fh.truncate(CONFIG_MAX_BYTES + 1)  # (sparse: no disk used)
        code, err = cli(capsys, "generate", "--config", path, "--out", tmp_path / "out")
        assert code == 2 and f"config file {path} is larger than" in err


def test_read_json_names_what_it_refuses(tmp_path):
    with pytest.raises(ValueError, match="x is a directory, not a regular file"):
        read_json(tmp_path, "x")
    path = tmp_path / "a.json"
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(ValueError, match=r"a\.json is not UTF-8 text"):
        read_json(path)


# ------------------------------------------------------------ 15: a "#" row in data.csv


def test_a_data_row_starting_with_hash_is_refused_not_dropped(tmp_path, dataset):
    folder = dataset.save(tmp_path / "d")
    (folder / "genes.json").unlink()
    lines = (folder / "data.csv").read_text().splitlines(keepends=True)
    lines[5] = "#" + lines[5]
    (folder / "data.csv").write_text("".join(lines))
    refused(folder, str(folder / "data.csv"))


# -------------------------------------------------------- 18: noise_label, HAWKS values


@pytest.mark.parametrize("label", [[1, 2], True, "noise", 1.5, {"a": 1}])
def test_a_noise_label_that_is_not_one_integer_is_named(tmp_path, capsys, dataset, label):
    folder = dataset.save(tmp_path / "d")
    metadata = json.loads((folder / "metadata.json").read_text())
    (folder / "metadata.json").write_text(json.dumps({**metadata, "noise_label": label}))
    message = refused(folder, f"{folder / 'metadata.json'}: noise_label must be one integer")
    assert "broadcast" not in message
    code, err = cli(capsys, "features", folder)
    assert code == 2 and "noise_label" in err
    with pytest.raises(ValueError, match="metadata noise_label must be one integer label"):
        hd.Dataset(dataset.X, dataset.y, metadata={"noise_label": label})


def test_integer_noise_labels_still_work(dataset):
    y = dataset.y.copy()
    y[:5] = -1
    for label in (-1, np.int64(-1)):
        assert hd.Dataset(dataset.X, y, metadata={"noise_label": label}).noise_mask.sum() == 5


@pytest.mark.parametrize("key, value", [
    ("ga.mut_method_mean", [[1]]),
    ("ga.num_gens", [[5], 6]),
    ("dataset.num_clusters", [{"a": 1}]),
])
def test_hawks_json_nested_list_values_name_the_key(tmp_path, capsys, key, value):
    section, name = key.split(".")
    path = tmp_path / "h.json"
    path.write_text(json.dumps({section: {name: value}}))
    code, err = cli(capsys, "generate", "--config", path, "--out", tmp_path / "out")
    assert code == 2 and key in err and str(path) in err and "unhashable" not in err


# ------------------------------------------------------- 20: which file is truncated


def test_a_truncated_data_file_is_the_one_named_short(tmp_path, capsys, dataset):
    folder = dataset.save(tmp_path / "d")
    lines = (folder / "data.csv").read_text().splitlines(keepends=True)
    (folder / "data.csv").write_text("".join(lines[:300]))  # the header and 299 rows
    message = refused(folder, f"{folder / 'data.csv'} holds 299 points")
    assert f"{folder / 'data.csv'} is truncated" in message and "genes.json" in message
    code, err = cli(capsys, "features", folder)
    assert code == 2 and f"{folder / 'data.csv'} is truncated" in err
