"""Filling an instance space: coverage, gaps, the generator's reach, Feature-target mode
(settings, command line, suites) and ``hawks-deap fill`` (plan, resume, workers)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.spatial import Delaunay

from hawks_deap.analysis.features import FEATURE_NAMES, InstanceSpace, features_table
from hawks_deap.analysis.gaps import CoverageGrid, Reach, find_gaps, plan_gaps
from hawks_deap.campaign import fill as fill_module
from hawks_deap.campaign import suite as hs
from hawks_deap.problems.features import (
    TARGETABLE_FEATURES,
    FeatureTargetProblem,
    SpaceTargetProblem,
)
from hawks_deap.settings.model import RunSettings, parse_assignments, parse_point

# ------------------------------------------------------------------------ coverage grid


def test_coverage_counts_region_cells_holding_a_point_by_hand():
    # the unit square's corners: with cell 0.5 the region is the 2 x 2 cells of [0, 1]^2
    # (plus the boundary row and column, whose centres lie outside the hull)
    corners = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    grid = CoverageGrid.from_region(corners, cell=0.5)
    assert grid.shape == (3, 3)
    assert grid.inside.sum() == 4 and grid.inside[:2, :2].all()
    # (0, 0) sits in cell (0, 0); the other corners in the boundary cells
    assert grid.coverage(corners) == 0.25
    assert grid.coverage(np.vstack([corners, [[0.75, 0.25], [0.7, 0.3]]])) == 0.5


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.1, 0.25, 0.4]))
def test_coverage_matches_brute_force(seed, cell):
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(30, 2))
    grid = CoverageGrid.from_region(points, cell=cell)
    hull = Delaunay(points)
    centres = grid.centres()
    inside = hull.find_simplex(centres) >= 0
    # a point's cell: the one whose square holds it, found by comparing with each centre
    half = cell / 2
    occupied = np.zeros(len(centres), dtype=bool)
    for p in points:
        occupied |= np.all(np.abs(centres - p) <= half + 1e-12, axis=1) & np.all(
            p - (centres - half) >= -1e-12, axis=1)
    expected = (occupied & inside).sum() / inside.sum()
    assert grid.coverage(points) == pytest.approx(expected)
    assert np.array_equal(grid.inside.ravel(), inside)


def test_find_gaps_is_greedy_maximin_and_deterministic():
    rng = np.random.default_rng(1)
    points = rng.uniform(-2, 2, size=(25, 2))
    gaps = find_gaps(points, 5, cell=0.25)
    assert np.array_equal(gaps, find_gaps(points, 5, cell=0.25))
    grid = CoverageGrid.from_region(points, cell=0.25)
    empty = (grid.inside & ~grid.occupied(points)).ravel()
    candidates = grid.centres()[empty]
    # the first gap is the empty cell farthest from every point (brute force)
    far = np.linalg.norm(candidates[:, None] - points[None], axis=2).min(axis=1)
    assert np.allclose(gaps[0], candidates[np.argmax(far)])
    # the second is farthest from the points and the first gap
    both = np.vstack([points, gaps[:1]])
    far2 = np.linalg.norm(candidates[:, None] - both[None], axis=2).min(axis=1)
    assert np.allclose(gaps[1], candidates[np.argmax(far2)])
    # every gap is an empty cell of the region, none twice
    assert len({tuple(g) for g in gaps}) == 5
    assert not grid.occupied(gaps).ravel()[~empty].any()


def test_bad_input_is_named():
    points = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="cell"):
        CoverageGrid.from_region(points, cell=0)
    with pytest.raises(ValueError, match="no volume"):
        CoverageGrid.from_region(np.c_[np.arange(5.0), np.arange(5.0)], cell=0.5)
    with pytest.raises(ValueError, match="empty cells"):
        find_gaps(points, 10_000, cell=0.5)
    with pytest.raises(ValueError, match="finite"):
        CoverageGrid.from_region(np.array([[0, 0], [1, np.nan], [0, 1.0]]))


# ----------------------------------------------------------------------------- the reach


def _space_and_table(seed=0, n=40):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n, len(FEATURE_NAMES)))
    values[:, FEATURE_NAMES.index("n_clusters")] = rng.integers(2, 12, n)
    values[:, FEATURE_NAMES.index("dimensionality")] = rng.integers(2, 12, n)
    values[:, FEATURE_NAMES.index("entropy")] = rng.uniform(0.7, 1.0, n)
    space = InstanceSpace().fit(values, FEATURE_NAMES)
    return space, values


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reach_margin_equals_a_linear_programme(seed):
    space, values = _space_and_table(seed)
    reach = Reach.from_collection(space, values, n_clusters=[2, 5], n_dims=[2, 7],
                                  n_samples=200)
    rng = np.random.default_rng(seed + 10)
    points = rng.normal(scale=1.5, size=(6, 2))
    margins = reach.margins(points)
    names = list(space.feature_names)
    columns = space.components_[:, [names.index(n) for n in TARGETABLE_FEATURES]]
    for p, point in enumerate(points):
        for m, offset in enumerate(reach.offsets):
            # maximise t: columns @ z = point - offset, low + t <= z <= high - t
            c = np.zeros(5)
            c[-1] = -1.0
            a_eq = np.hstack([columns, np.zeros((2, 1))])
            a_ub = np.vstack([np.hstack([np.eye(4), np.ones((4, 1))]),
                              np.hstack([-np.eye(4), np.ones((4, 1))])])
            b_ub = np.concatenate([reach.high[m], -reach.low[m]])
            result = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=point - offset,
                             bounds=[(None, None)] * 5, method="highs")
            assert result.status == 0
            # less two standard deviations of the layout's entropy, in free-feature units
            entropy = 2 * reach.spread[m] / np.linalg.svd(columns, compute_uv=False)[-1]
            assert margins[p, m] == pytest.approx(-result.fun - entropy, abs=1e-9)


def test_reach_boxes_come_from_the_nearest_generated_k_and_d():
    space, values = _space_and_table(8, n=60)
    k = values[:, FEATURE_NAMES.index("n_clusters")]
    d = values[:, FEATURE_NAMES.index("dimensionality")]
    values[:, FEATURE_NAMES.index("n_clusters")] = np.where(k < 7, 3, 10)
    values[:, FEATURE_NAMES.index("dimensionality")] = np.where(d < 7, 2, 40)
    space = InstanceSpace().fit(values, FEATURE_NAMES)
    reach = Reach.from_collection(space, values, n_clusters=[2, 3, 30], n_dims=[3, 20, 50],
                                  n_samples=500)
    z = space.standardise(values)[:, [FEATURE_NAMES.index(n) for n in TARGETABLE_FEATURES]]
    kk, dd = values[:, FEATURE_NAMES.index("n_clusters")], values[:, FEATURE_NAMES.index(
        "dimensionality")]
    for (k_, d_), low, high in zip(reach.settings, reach.low, reach.high, strict=True):
        # nearest in (log K, log D) among (3, 2), (3, 40), (10, 2), (10, 40)
        groups = [(3, 2), (3, 40), (10, 2), (10, 40)]
        g = min(groups, key=lambda kd: np.hypot(np.log(k_ / kd[0]), np.log(d_ / kd[1])))
        rows = (kk == g[0]) & (dd == g[1])
        assert np.array_equal(low, z[rows].min(axis=0))
        assert np.array_equal(high, z[rows].max(axis=0))
    # a small K's layouts spread their entropy most: its runs land least surely
    spread = {int(k_): s_ for (k_, _), s_ in zip(reach.settings, reach.spread, strict=True)}
    assert spread[2] > spread[3] > spread[30] > 0


def test_reach_offsets_place_k_and_d_as_the_space_does():
    from hawks_deap.analysis.gaps import _layout_entropy

    space, values = _space_and_table(3)
    reach = Reach.from_collection(space, values, n_clusters=[3], n_dims=[4], n_samples=300)
    # the offset: (K, D, the layouts' expected entropy) with every free feature at the
    # collection's mean (standardised 0), projected by InstanceSpace.transform
    row = {n: float(space.mean_[space.feature_names.index(n)]) for n in TARGETABLE_FEATURES}
    row.update(n_clusters=3.0, dimensionality=4.0, entropy=_layout_entropy(300, 3, 10)[0])
    assert np.allclose(reach.offsets[0], space.transform([row])[0])


def test_plan_gaps_targets_are_reachable_empty_cells():
    space, values = _space_and_table(4, n=60)
    points = space.transform(values)
    reach = Reach.from_collection(space, values, n_clusters=range(2, 12),
                                  n_dims=range(2, 12), n_samples=300)
    # (random features: little is reachable, so a low bound; the rule is what is tested)
    plan = plan_gaps(points, reach, 4, cell=0.3, min_margin=-1.0)
    assert plan.targets.shape == (4, 2)
    margins = reach.margins(plan.targets)
    for i in range(4):
        row = np.flatnonzero((reach.settings == [plan.n_clusters[i], plan.n_dims[i]]).all(1))
        assert margins[i, row[0]] == pytest.approx(plan.margins[i]) and plan.margins[i] >= -1.0
        # the cheapest (K + D) within 0.1 of the best margin
        near = (margins[i] >= margins[i].max() - 0.1) & (margins[i] >= -1.0)
        assert plan.n_clusters[i] + plan.n_dims[i] == reach.settings[near].sum(axis=1).min()
    assert not plan.grid.occupied(points).ravel()[
        plan.grid.occupied(plan.targets).ravel()].any()


# -------------------------------------------------------------------- saved spaces, settings


def test_instance_space_saves_and_loads_exactly(tmp_path):
    space, values = _space_and_table(5)
    space.save(tmp_path / "space.json")
    loaded = InstanceSpace.load(tmp_path / "space.json")
    assert loaded.feature_names == space.feature_names
    for name in ("mean_", "scale_", "components_", "explained_variance_ratio_"):
        assert np.array_equal(getattr(loaded, name), getattr(space, name))
    assert np.array_equal(loaded.transform(values), space.transform(values))
    data = json.loads((tmp_path / "space.json").read_text())
    (tmp_path / "bad.json").write_text(json.dumps({**data, "mean": data["mean"][:3]}))
    with pytest.raises(ValueError, match="bad.json.*mean"):
        InstanceSpace.load(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text("{}")
    with pytest.raises(ValueError, match="not a saved instance space"):
        InstanceSpace.load(tmp_path / "other.json")


def test_assignment_and_point_texts():
    assert parse_assignments("silhouette=0.3, connectivity = 1e-1") == {
        "silhouette": 0.3, "connectivity": 0.1}
    assert parse_point("0.5,-1.25") == (0.5, -1.25)
    for bad, match in (("silhouette", "name=value"), ("a=1,a=2", "twice"),
                       ("a=x", "not a number"), ("a=inf", "finite")):
        with pytest.raises(ValueError, match=match):
            parse_assignments(bad)
    with pytest.raises(ValueError, match="comma-separated"):
        parse_point("1;2")


def test_target_settings_build_the_problems(tmp_path):
    problem = RunSettings.from_values("target", {
        "targets": "silhouette=0.3,connectivity=0.5", "weights": "silhouette=2",
        "n_samples": 200, "n_clusters": 3}).problem()
    assert isinstance(problem, FeatureTargetProblem)
    assert problem.targets == {"silhouette": 0.3, "connectivity": 0.5}
    assert problem.weights == {"silhouette": 2.0, "connectivity": 1.0}
    space, _ = _space_and_table(6)
    space.save(tmp_path / "space.json")
    problem = RunSettings.from_values("target", {
        "space": str(tmp_path / "space.json"), "point": "0.5,-0.5"}).problem()
    assert isinstance(problem, SpaceTargetProblem)
    assert problem.point.tolist() == [0.5, -0.5]
    for values, match in (({}, "needs --targets"),
                          ({"space": "s.json"}, "--point missing"),
                          ({"targets": "silhouette=0.3", "point": "0,0"}, "not both"),
                          ({"space": "s.json", "point": "0,0", "weights": "a=1"}, "weighs"),
                          ({"targets": "modularity=0.3"}, "modularity")):
        with pytest.raises(ValueError, match=match):
            RunSettings.from_values("target", values)


def _hawks_deap(*args, cwd):
    return subprocess.run([sys.executable, "-m", "hawks_deap.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_target_command_reaches_features_and_repeats(tmp_path):
    common = ["target", "--targets", "silhouette=0.4,eccentricity=3", "--n-samples", "150",
              "--n-clusters", "3", "--generations", "15", "--seed", "3", "--quiet"]
    for name in ("a", "b"):
        done = _hawks_deap(*common, "--out", name, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "a" / "data.csv").read_bytes() == (tmp_path / "b" / "data.csv").read_bytes()
    meta = json.loads((tmp_path / "a" / "metadata.json").read_text())
    assert meta["problem"]["mode"] == "feature-target"
    assert meta["command"]["name"] == "target"
    # the saved dataset's features are what the run's record says
    from hawks_deap.io import Dataset
    from hawks_deap.metrics.features import problem_features

    dataset = Dataset.load(tmp_path / "a")
    measured = problem_features(dataset.X, dataset.y)
    assert measured["eccentricity"] == pytest.approx(meta["record"]["feature_eccentricity"])
    bad = _hawks_deap("target", "--space", "x.json", "--out", "c", cwd=tmp_path)
    assert bad.returncode == 2 and "--point missing" in bad.stderr
    assert not (tmp_path / "c").exists()


def test_a_target_suite_reads_its_space_beside_the_grid_and_moves(tmp_path):
    space, _ = _space_and_table(7)
    folder = tmp_path / "study"
    folder.mkdir()
    space.save(folder / "space.json")
    (folder / "grid.toml").write_text(
        '[suite]\nruns = 1\nseed = 4\nmode = "target"\n'
        '[dataset]\nn_samples = 120\nn_clusters = [2, 3]\n'
        '[objective]\nspace = "space.json"\npoint = "0.0,0.5"\n'
        '[ga]\ngenerations = 3\n')
    suite = hs.load_suite(folder / "grid.toml")
    assert all(c["space"] == str((folder / "space.json").resolve())
               for c in suite.configurations)
    seeds = [t.seed for t in suite.tasks()]
    moved = tmp_path / "moved"
    shutil.copytree(folder, moved)
    assert [t.seed for t in hs.load_suite(moved / "grid.toml").tasks()] == seeds
    hs.run_suite(suite, folder / "out")
    rows = hs.summary_rows(folder / "out")
    assert len(rows) == 2 and all("space_0" in r for r in rows)
    # verify finds the space again once the study folder moved (it records an absolute
    # path), but only the very space the run used; without it, exit 2 in one line
    from hawks_deap.campaign import provenance

    shutil.rmtree(moved)
    shutil.move(folder, moved)
    run = moved / "out" / "runs" / "c000-r00"
    assert provenance.verify(run).identical
    other, _ = _space_and_table(8)
    other.save(moved / "space.json")  # a different space of the same name: not taken
    with pytest.raises(ValueError, match=r"instance space .*space\.json is gone"):
        provenance.verify(run)
    (moved / "space.json").unlink()
    done = _hawks_deap("verify", str(run), cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "is gone" in done.stderr
    # a copy of the study, while the recorded path now holds another study's space: the
    # copy's own space.json is the one (the recorded file is checked, not trusted)
    space.save(moved / "space.json")
    copy = tmp_path / "copy"
    shutil.copytree(moved, copy)
    shutil.move(moved, folder)
    other.save(folder / "space.json")
    assert provenance.verify(copy / "out" / "runs" / "c000-r00").identical
    (copy / "space.json").unlink()
    with pytest.raises(ValueError, match=r"instance space .*space\.json holds another space"):
        provenance.verify(copy / "out" / "runs" / "c000-r00")


# ------------------------------------------------------------------------------ the fill


@pytest.fixture(scope="module")
def small_collection(tmp_path_factory):
    """A generated suite (12 runs) and a folder of 10 real-looking datasets."""
    root = tmp_path_factory.mktemp("collection")
    (root / "grid.toml").write_text(
        '[suite]\nruns = 2\nseed = 0\n[dataset]\nn_samples = 120\n'
        'n_clusters = [2, 4]\nn_dims = [2, 3]\n[objective]\ntarget = [0.3, 0.7]\n'
        '[ga]\ngenerations = 5\n')
    hs.run_suite(hs.load_suite(root / "grid.toml"), root / "suite", workers=2)
    from sklearn.datasets import make_blobs

    from hawks_deap.io import Dataset

    rng = np.random.default_rng(0)
    for i in range(10):
        X, y = make_blobs(n_samples=100 + 10 * i, centers=int(rng.integers(2, 6)),
                          n_features=int(rng.integers(2, 5)), cluster_std=1 + i / 5,
                          random_state=i)
        Dataset(X, y).save(root / "real" / f"blobs{i}")
    return [root / "suite", root / "real"]


QUICK = {"dataset": {"n_samples": 120}, "ga": {"generations": 4}}


def test_fill_plans_runs_and_reports(small_collection, tmp_path):
    report = fill_module.run_fill(small_collection, tmp_path / "fill", n=3, cell=0.5,
                                  min_margin=-2.0, settings=QUICK, seed=1)
    out = tmp_path / "fill"
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == sorted(
        ["space.json", "targets.csv", "suite", "fill.json", "fill.png"])
    assert report == json.loads((out / "fill.json").read_text())
    assert report["runs"] == {"planned": 3, "done": 3,
                              "settings": {"generations": 4, "n_samples": 120}}
    # the reached points are the saved datasets' features, projected
    space = InstanceSpace.load(out / "space.json")
    import csv

    from hawks_deap.io import Dataset

    rows = list(csv.DictReader((out / "targets.csv").open()))
    for row in rows:
        dataset = Dataset.load(out / row["run"])
        table = features_table([dataset])
        point = space.transform(table)[0]
        assert float(row["reached_x"]) == pytest.approx(point[0], abs=1e-9)
        assert float(row["distance"]) == pytest.approx(
            np.hypot(point[0] - float(row["x"]), point[1] - float(row["y"])), abs=1e-9)
        assert int(row["n_clusters"]) == len(np.unique(dataset.y))
        assert dataset.X.shape == (120, int(row["n_dims"]))
    # coverage before and after, recomputed from the files
    plan = fill_module.plan_fill(small_collection, 3, cell=0.5, min_margin=-2.0,
                                 settings=QUICK)
    reached = np.array([[float(r["reached_x"]), float(r["reached_y"])] for r in rows])
    grid = plan.plan.grid
    assert report["coverage"]["before"] == grid.coverage(plan.points)
    assert report["coverage"]["after"] == grid.coverage(np.vstack([plan.points, reached]))


def test_fill_resumes_and_repeats_on_any_workers(small_collection, tmp_path):
    one = tmp_path / "one"
    fill_module.run_fill(small_collection, one, n=2, cell=0.5, min_margin=-2.0,
                         settings=QUICK, seed=2)
    two = tmp_path / "two"
    fill_module.run_fill(small_collection, two, n=2, cell=0.5, min_margin=-2.0,
                         settings=QUICK, seed=2, workers=2)
    runs = sorted(p.relative_to(one) for p in (one / "suite" / "runs").rglob("data.csv"))
    assert len(runs) == 2
    for run in runs:
        assert (one / run).read_bytes() == (two / run).read_bytes()
    # resume after losing a run: only it is redone, with the same bytes
    first = (one / runs[0]).read_bytes()
    shutil.rmtree((one / runs[0]).parent)
    fill_module.run_fill(small_collection, one, n=2, cell=0.5, min_margin=-2.0,
                         settings=QUICK, seed=2)
    assert (one / runs[0]).read_bytes() == first
    # a user's own file in a fill's folder does not stop its resume, and is kept
    (one / "notes.txt").write_text("mine")
    fill_module.run_fill(small_collection, one, n=2, cell=0.5, min_margin=-2.0,
                         settings=QUICK, seed=2)
    assert (one / "notes.txt").read_text() == "mine"
    # another plan in the same folder is refused, and nothing of it is written
    before = (one / "space.json").read_bytes()
    with pytest.raises(ValueError, match="different suite"):
        fill_module.run_fill(small_collection, one, n=2, cell=0.5, min_margin=-2.0,
                             settings=QUICK, seed=3)
    assert (one / "space.json").read_bytes() == before


def test_fill_refuses_foreign_folders_and_planned_settings(small_collection, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(ValueError, match="not a fill's folder.*notes.txt"):
        fill_module.run_fill(small_collection, tmp_path / "mine", n=1, settings=QUICK)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
    # a folder holding a user's own space.json, and no fill's lock, is not a fill's:
    # the fill would replace that file
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "space.json").write_text("{}")
    with pytest.raises(ValueError, match="not a fill's folder.*space.json"):
        fill_module.run_fill(small_collection, tmp_path / "theirs", n=1, settings=QUICK)
    assert (tmp_path / "theirs" / "space.json").read_text() == "{}"
    with pytest.raises(ValueError, match="n_clusters.*set by the fill"):
        fill_module.run_fill(small_collection, tmp_path / "x",
                             settings={"dataset": {"n_clusters": 3}})
    (tmp_path / "link").symlink_to(tmp_path / "mine")
    with pytest.raises(ValueError, match="link"):
        fill_module.run_fill(small_collection, tmp_path / "link", n=1, settings=QUICK)
    assert not (tmp_path / "x").exists()


def test_fill_command_line(small_collection, tmp_path):
    (tmp_path / "quick.toml").write_text("[dataset]\nn_samples = 120\n[ga]\ngenerations = 3\n")
    done = _hawks_deap("fill", *map(str, small_collection), "--n", "2", "--cell", "0.5",
                       "--min-margin", "-2", "--config", "quick.toml", "--out", "f",
                       cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "2 of 2 gaps run; coverage" in done.stdout
    # another plan in that folder: refused once the targets are known, as the command
    # line refuses a folder (exit 2, one line; found from outside: exit 1), untouched
    before = sorted((p, p.read_bytes()) for p in (tmp_path / "f").rglob("*") if p.is_file())
    again = _hawks_deap("fill", *map(str, small_collection), "--n", "3", "--cell", "0.5",
                        "--min-margin", "-2", "--config", "quick.toml", "--out", "f",
                        cwd=tmp_path)
    assert again.returncode == 2 and "holds a different suite" in again.stderr, again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    assert sorted((p, p.read_bytes()) for p in (tmp_path / "f").rglob("*")
                  if p.is_file()) == before
    bad = _hawks_deap("fill", str(small_collection[0]), "--n", "0", "--out", "g",
                      cwd=tmp_path)
    assert bad.returncode == 2 and "--n" in bad.stderr
    assert not (tmp_path / "g").exists()
    # refused in one line before any work (exit 2): no collection, --labels without a
    # battery, settings no run could take
    (tmp_path / "notcoll").mkdir()
    (tmp_path / "notcoll" / "x.txt").write_text("x")
    (tmp_path / "tiny.toml").write_text("[dataset]\nn_samples = 5\n")
    for args, says in ((["notcoll"], "notcoll"),
                       ([str(small_collection[0]), "--labels", "3"], "--labels 3"),
                       ([str(small_collection[0]), "--config", "tiny.toml"], "n_samples")):
        bad = _hawks_deap("fill", *args, "--n", "1", "--out", "h", cwd=tmp_path)
        assert bad.returncode == 2 and says in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1 and not (tmp_path / "h").exists()
    # a cell larger than the region: found once the space is fitted, said plainly
    bad = _hawks_deap("fill", *map(str, small_collection), "--n", "1", "--cell", "1e6",
                      "--out", "h", cwd=tmp_path)
    assert bad.returncode == 1 and "ask a smaller cell" in bad.stderr, bad.stderr


def test_the_guide_page_runs_as_written(tmp_path, monkeypatch):
    import re

    text = (Path(__file__).parent.parent / "docs" / "guide" / "feature_targets.md").read_text()
    python = re.findall(r"```python\n(.*?)```", text, re.S)
    toml = re.findall(r"```toml\n(.*?)```", text, re.S)
    assert len(python) == 1 and len(toml) == 1
    monkeypatch.chdir(tmp_path)
    exec(compile(python[0], "feature_targets.md", "exec"), {})
    assert InstanceSpace.load(tmp_path / "space.json").components_.shape == (2, 7)
    (tmp_path / "grid.toml").write_text(toml[0])
    suite = hs.load_suite(tmp_path / "grid.toml")
    assert suite.mode == "target" and len(suite.configurations) == 4
    assert {c["point"] for c in suite.configurations} == {"0.5,-0.5", "-1.0,0.25"}


def test_the_benchmark_suite_is_the_papers_grid_with_two_runs(tmp_path):
    root = Path(__file__).parent.parent
    suite = hs.load_suite(root / "benchmarks" / "fill_paper_suite.toml")
    assert len(suite.configurations) == 64 and suite.runs == 2
    sys.path.insert(0, str(root / "examples"))
    try:
        from paper_index_suite import FULL, GRID
    finally:
        sys.path.remove(str(root / "examples"))
    (tmp_path / "paper.toml").write_text(GRID.format(**{**FULL, "runs": 2}))
    paper = hs.load_suite(tmp_path / "paper.toml")
    assert [t.seed for t in paper.tasks()] == [t.seed for t in suite.tasks()]


def test_fill_on_an_unreachable_scheduler_is_a_usage_error_and_writes_nothing(tmp_path):
    # the suite's rule (tests/test_suite.py), through the one backend helper both share
    from hawks_deap.io import Dataset

    rng = np.random.default_rng(0)
    Dataset(rng.normal(size=(40, 2)), np.repeat([0, 1], 20)).save(tmp_path / "collection")
    r = _hawks_deap("fill", "collection", "--n", "2", "--out", "fill", "--backend", "dask",
                    "--scheduler", "tcp://127.0.0.1:1", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "tcp://127.0.0.1:1" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "fill").exists()


def test_cell_index_brackets_each_point_and_agrees_with_occupied():
    rng = np.random.default_rng(5)
    grid = CoverageGrid.from_region(rng.normal(size=(30, 2)), cell=0.25)
    points = rng.normal(scale=2.0, size=(200, 2))  # many outside the box
    index = grid.cell_index(points)
    low = grid.origin + index * grid.cell
    assert np.all(low <= points) and np.all(points < low + grid.cell)
    by_hand = np.zeros(grid.shape, dtype=bool)
    for row in index:  # brute force: the cells of the points inside the box
        if all(0 <= k < s for k, s in zip(row, grid.shape, strict=True)):
            by_hand[tuple(row)] = True
    assert np.array_equal(grid.occupied(points), by_hand)
    with pytest.raises(ValueError, match="points"):
        grid.cell_index(np.zeros((3, 3)))
