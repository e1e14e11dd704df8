"""Collections in Python, one naming rule, and the paper's citation (issue 37, items 3, 7).

Oracles: a suite's own ``summary.csv`` (its run names and paths), the folders written
here (their names and parents), clustering-benchmarks' ``get_dataset_names`` (the
exported battery), scikit-learn-free hand-made names, and the project's ``CITATION.cff``
and ``README.md``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap import cli
from hawks_deap.analysis.features import features_table
from hawks_deap.campaign import suite as hs
from hawks_deap.io import load_collection
from hawks_deap.io.batteries import CITATION, battery_file_names, write_battery
from hawks_deap.io.collection import collection_items, collection_names

ROOT = Path(__file__).resolve().parents[1]
GRID = ('[suite]\nruns = 2\nseed = 5\nmode = "index"\n[dataset]\nn_samples = 40\n'
        "n_clusters = 2\n[ga]\ngenerations = 1\npopulation_size = 4\n")


def main(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def blobs(seed, n=30):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(0, 1, (n // 2, 2)), rng.normal(6, 1, (n - n // 2, 2))])
    return hd.Dataset(X, np.repeat([0, 1], [n // 2, n - n // 2]))


@pytest.fixture(scope="module")
def suites(tmp_path_factory):
    """Two suites of two runs each: the same run names (c000-r00, c000-r01)."""
    root = tmp_path_factory.mktemp("suites")
    (root / "grid.toml").write_text(GRID)
    for name in ("s1", "s2"):
        hs.run_suite(hs.load_suite(root / "grid.toml"), root / name)
    return root


def test_a_suite_is_named_as_its_summary_names_its_runs(suites):
    rows = hs.summary_rows(suites / "s1")
    datasets = load_collection(suites / "s1")
    assert [d.name for d in datasets] == [r["name"] for r in rows] == [
        r["path"].split("/")[-1] for r in rows] == ["c000-r00", "c000-r01"]
    items = collection_items([suites / "s1"])
    assert [i.group for i in items] == ["s1", "s1"]  # the suite, not its runs/ folder
    # a table is named by the datasets' names, without names=
    table = features_table(datasets)
    assert list(table.index) == ["c000-r00", "c000-r01"]
    # one run given alone: its folder's name; its source: its suite
    (item,) = collection_items([suites / "s2" / "runs" / "c000-r01"])
    assert (item.name, item.group) == ("c000-r01", "s2")


def test_two_suites_are_two_sources_and_their_runs_are_qualified(suites, tmp_path, capsys):
    items = collection_items([suites / "s1", suites / "s2"])
    assert [i.name for i in items] == ["s1/c000-r00", "s1/c000-r01", "s2/c000-r00",
                                       "s2/c000-r01"]
    assert [i.group for i in items] == ["s1", "s1", "s2", "s2"]
    code, out, err = main(capsys, "features", suites / "s1", suites / "s2", "--format", "csv")
    assert code == 0, err
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == [i.name for i in items]
    # exported: each last part collides, so the whole name is the file name
    code, _, err = main(capsys, "export", suites / "s1", suites / "s2", "--battery", "b",
                        "--out", tmp_path)
    assert code == 0, err
    clustbench = pytest.importorskip("clustbench")
    assert clustbench.get_dataset_names("b", str(tmp_path)) == [
        "s1-c000-r00", "s1-c000-r01", "s2-c000-r00", "s2-c000-r01"]
    # one suite exported: the summary's names
    code, _, err = main(capsys, "export", suites / "s1", "--battery", "one", "--out", tmp_path)
    assert code == 0, err
    assert clustbench.get_dataset_names("one", str(tmp_path)) == ["c000-r00", "c000-r01"]


def test_folders_battery_and_collisions(tmp_path):
    for group in ("t0", "t1"):
        for name in ("run0", "run1"):
            blobs(len(name)).save(tmp_path / "coll" / group / name)
    blobs(9).save(tmp_path / "coll" / "t1" / "only")
    write_battery([blobs(1), blobs(2)], tmp_path / "bat", battery="ref", names=["a", "b"])
    paths = [tmp_path / "coll" / "t0", tmp_path / "coll" / "t1", tmp_path / "bat" / "ref"]
    datasets = load_collection(paths)
    # only the colliding names are qualified by their source
    assert [d.name for d in datasets] == ["t0/run0", "t0/run1", "only", "t1/run0",
                                          "t1/run1", "ref/a", "ref/b"]
    assert [i.group for i in collection_items(paths)] == ["t0"] * 2 + ["t1"] * 3 + ["ref"] * 2
    assert list(features_table(datasets).index) == [d.name for d in datasets]
    # one run of each folder: unique names stay short
    assert [d.name for d in load_collection([tmp_path / "coll" / "t0" / "run0",
                                             tmp_path / "coll" / "t1" / "only"])] == [
        "run0", "only"]
    # the same source name twice: the paths as given
    blobs(3).save(tmp_path / "a" / "s" / "r")
    blobs(4).save(tmp_path / "b" / "s" / "r")
    given = [tmp_path / "a" / "s" / "r", tmp_path / "b" / "s" / "r"]
    assert collection_names(collection_items(given)) == [str(p) for p in given]
    # battery files: the last part, unless it collides
    assert battery_file_names(["ref/a", "c000-r00", "s1/x", "s2/x"]) == [
        "a", "c000-r00", "s1-x", "s2-x"]


def test_load_collection_checks_its_arguments_first(tmp_path):
    blobs(0).save(tmp_path / "d")
    assert [d.name for d in load_collection(str(tmp_path / "d"))] == ["d"]  # one path
    with pytest.raises(TypeError, match="paths must hold paths"):
        load_collection([tmp_path / "d", 3])
    with pytest.raises(TypeError, match="paths must be a path or a sequence"):
        load_collection(3)
    with pytest.raises(ValueError, match="labels must be >= 0, got -1"):
        load_collection([tmp_path / "d"], labels=-1)
    with pytest.raises(ValueError, match="does not exist"):
        load_collection([tmp_path / "nothing"])


def test_a_dataset_name_is_kept_by_save_and_load(tmp_path):
    ds = blobs(0)
    assert ds.name is None
    ds.name = "mine"
    ds.save(tmp_path / "d")
    assert hd.Dataset.load(tmp_path / "d").name == "mine"
    ds.name = None
    assert "name" not in ds.metadata
    with pytest.raises(TypeError, match="name must be a non-empty str"):
        ds.name = 3


def _cff_field(text: str, key: str) -> str:
    """A value of the ``preferred-citation`` block of CITATION.cff (two-space indented)."""
    block = text.split("preferred-citation:", 1)[1]
    match = re.search(rf"^  {key}: \"?([^\"\n]+)\"?$", block, re.M)
    assert match, key
    return match.group(1).strip()


def test_the_citation_is_that_of_citation_cff_and_the_readme():
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    title, journal = _cff_field(cff, "title"), _cff_field(cff, "journal")
    year = _cff_field(cff, "year")
    block = cff.split("preferred-citation:", 1)[1]
    families = re.findall(r"family-names: (\S+)", block)
    assert families == ["Shand", "Allmendinger", "Handl", "Webb", "Keane"]
    assert f'"{title}"' in CITATION and journal in CITATION and CITATION.endswith(year)
    assert [name for name in families if name in CITATION] == families
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert title in readme.replace("> ", "") and journal in readme.replace("*", "")


def test_the_exported_battery_cites_the_paper(tmp_path):
    folder = write_battery([blobs(0)], tmp_path, battery="b", names=["x"])
    readme = (folder / "README.txt").read_text(encoding="utf-8")
    assert CITATION in readme
    assert "Evolving controllably difficult" not in readme  # the GECCO 2019 title
