"""Nothing lost (issue 30, items 1, 4, 19 and the symbolic links): a final rename never
replaces what it did not check, the loser of a race keeps its work under a visible name,
and nothing hawks-deap deletes is reached through a symbolic link."""

import os
import shutil
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap import cli
from hawks_deap._util import writes as _writes
from hawks_deap._util.writes import NotReplacedError, rename_no_replace
from hawks_deap.io import batteries
from hawks_deap.io import dataset as dataset_module

SMALL = ["generate", "--n-samples", "60", "--n-clusters", "2", "--generations", "1",
         "--population-size", "2", "--quiet"]
GENERATE = [*SMALL, "--seed", "3"]


def main(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _dataset(value=0.0, n=6):
    return hd.Dataset(np.full((n, 2), value), [0, 1] * (n // 2))


def _tree(path):
    """Every entry under ``path`` (links not followed) with file contents."""
    out = {}
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            full = os.path.join(root, name)
            rel = os.path.relpath(full, path)
            if os.path.islink(full):
                out[rel] = ("link", os.readlink(full))
            elif os.path.isfile(full):
                with open(full, "rb") as fh:
                    out[rel] = fh.read()
            else:
                out[rel] = "dir"
    return out


def _user_folder(path):
    path.mkdir()
    (path / "thesis.tex").write_text("x\n")
    return _tree(path)


# ------------------------------------------------------------------ rename_no_replace


@pytest.mark.parametrize("renameat2", [True, False], ids=["renameat2", "fallback"])
def test_rename_no_replace_never_replaces_anything(tmp_path, monkeypatch, renameat2):
    if not renameat2:
        monkeypatch.setattr(_writes, "_RENAMEAT2", None)
    (tmp_path / "f").write_text("new")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x").write_text("new")
    targets = {"file": lambda p: p.write_text("mine"), "empty": lambda p: p.mkdir(),
               "full": lambda p: (p.mkdir(), (p / "thesis.tex").write_text("mine")),
               "link": lambda p: p.symlink_to(tmp_path / "nowhere")}
    for kind, make in targets.items():
        dst = tmp_path / f"dst-{kind}"
        make(dst)
        before = _tree(tmp_path)
        for src in ("f", "d"):
            with pytest.raises(FileExistsError) as error:
                rename_no_replace(tmp_path / src, dst)
            if renameat2:  # named by what the user asked for, not the hidden source
                assert error.value.filename == str(dst)
        assert _tree(tmp_path) == before, kind
    rename_no_replace(tmp_path / "d", tmp_path / "new-d")
    rename_no_replace(tmp_path / "f", tmp_path / "new-f")
    assert (tmp_path / "new-d" / "x").read_text() == "new"
    assert (tmp_path / "new-f").read_text() == "new"


# ------------------------------------------------------------------ item 1: races


def test_a_folder_made_at_out_during_generate_is_kept(tmp_path, monkeypatch, capsys):
    """Item 1's reproduction: once ``.race.*.tmp`` appears, ``mkdir race; echo x >
    race/thesis.tex``. The folder is left alone; exit 1 naming where the run was kept."""
    monkeypatch.chdir(tmp_path)
    real = dataset_module.temp_dir

    def temp_dir_then_user(parent, prefix, suffix):
        tmp = real(parent, prefix, suffix)
        if prefix == ".race.":  # the .race.*.tmp folder exists: the user makes race
            _user_folder(tmp_path / "race")
        return tmp

    monkeypatch.setattr(dataset_module, "temp_dir", temp_dir_then_user)
    code, _, err = main(capsys, *GENERATE, "--out", "race")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "race" in err and "left as it is" in err
    kept = [p.name for p in tmp_path.iterdir() if p.name.startswith("race.kept-")]
    assert len(kept) == 1 and kept[0] in err
    assert (tmp_path / "race" / "thesis.tex").read_text() == "x\n"
    assert sorted(p.name for p in (tmp_path / "race").iterdir()) == ["thesis.tex"]
    assert hd.Dataset.load(tmp_path / kept[0]).n_samples == 60  # the finished work
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no hidden leftovers


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_folder_appearing_during_a_save_is_never_deleted_20_times(tmp_path, monkeypatch,
                                                                    overwrite):
    """The race of item 1, 20 times, the folder appearing at each moment of the save:
    while the files are written, and just before the final rename."""
    real_temp_dir = dataset_module.temp_dir
    when = {"moment": None}

    def temp_dir_hook(parent, prefix, suffix):
        tmp = real_temp_dir(parent, prefix, suffix)
        if when["moment"] == "writing":
            _user_folder(when["target"])
        return tmp

    def rename_hook(tmp, target):
        if when["moment"] == "renaming":
            _user_folder(when["target"])

    monkeypatch.setattr(dataset_module, "temp_dir", temp_dir_hook)
    monkeypatch.setattr(_writes, "before_final_rename", rename_hook)
    for i in range(20):
        folder = tmp_path / str(i)
        folder.mkdir()
        target = folder / "race"
        when.update(moment=("writing", "renaming")[i % 2], target=target)
        with pytest.raises(FileExistsError, match="left as it is|not a hawks-deap") as info:
            _dataset(i).save(target, overwrite=overwrite)
        assert isinstance(info.value, NotReplacedError)
        assert _tree(target) == {"thesis.tex": b"x\n"}
        kept = [p for p in folder.iterdir() if p.name != "race"]
        assert len(kept) == 1 and kept[0].name.startswith("race.kept-")
        assert str(kept[0]) in str(info.value)
        assert hd.Dataset.load(kept[0]).X[0, 0] == i


def test_concurrent_writers_of_one_out_20_times(tmp_path, monkeypatch):
    """Two writers reach the final rename together: one dataset, one clear error, the
    loser's dataset kept beside it, nothing else left."""
    barrier = threading.Barrier(2)
    monkeypatch.setattr(_writes, "before_final_rename",
                        lambda tmp, target: barrier.wait(timeout=10))
    for i in range(20):
        target = tmp_path / str(i) / "out"
        outcomes = {}

        def write(value, target=target, outcomes=outcomes):
            try:
                _dataset(value).save(target)
                outcomes[value] = "saved"
            except FileExistsError as error:
                outcomes[value] = error

        threads = [threading.Thread(target=write, args=(v,)) for v in (1.0, 2.0)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        winners = [v for v, o in outcomes.items() if o == "saved"]
        losers = [o for o in outcomes.values() if o != "saved"]
        assert len(winners) == 1 and len(losers) == 1, outcomes
        assert isinstance(losers[0], NotReplacedError)
        assert hd.Dataset.load(target).X[0, 0] == winners[0]
        (kept,) = [p for p in target.parent.iterdir() if p.name != "out"]
        assert kept.name.startswith("out.kept-") and str(kept) in str(losers[0])
        assert hd.Dataset.load(kept).X[0, 0] == 3.0 - winners[0]


def test_concurrent_generate_commands_one_dataset_and_one_error(tmp_path, monkeypatch,
                                                                capsys):
    """Two ``generate --out same`` commands finishing together: one exits 0, the other 1
    with one line naming where its dataset was kept."""
    barrier = threading.Barrier(2)
    monkeypatch.setattr(_writes, "before_final_rename",
                        lambda tmp, target: barrier.wait(timeout=60))
    codes = []
    threads = [threading.Thread(target=lambda s=s: codes.append(
        cli.main([*SMALL, "--seed", str(s), "--out", str(tmp_path / "same")])))
        for s in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert sorted(codes) == [0, 1] and len(errors) == 1, err
    assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["same", "same.kept"]
    kept = next(p for p in tmp_path.iterdir() if p.name != "same")
    assert kept.name in err
    hd.Dataset.load(tmp_path / "same")
    hd.Dataset.load(kept)


@pytest.mark.slow
def test_item_1_reproduction_with_two_real_processes(tmp_path):
    """The command line of item 1, as given: a real run, a real folder made meanwhile."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.Popen([sys.executable, "-m", "hawks_deap.cli", "generate",
                             "--n-samples", "100000", "--generations", "2",
                             "--population-size", "2", "--out", "race", "--quiet"],
                            cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not list(tmp_path.glob(".race.*.tmp")) and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    made = proc.poll() is None
    if made:
        (tmp_path / "race").mkdir()
        (tmp_path / "race" / "thesis.tex").write_text("x\n")
    _, err = proc.communicate(timeout=300)
    # writing 100,000 rows takes far longer than the 5 ms poll: the race is always set up
    assert made, "the run finished before its .tmp folder was seen"
    assert proc.returncode == 1 and "race.kept-" in err, err
    assert (tmp_path / "race" / "thesis.tex").read_text() == "x\n"


# ------------------------------------------------------------------ item 4


@pytest.mark.parametrize("out", ["../D", "."])
def test_overwrite_from_inside_the_dataset_folder_is_refused(tmp_path, monkeypatch, capsys,
                                                             out):
    """Item 4: ``cd D && hawks-deap generate --out ../D --overwrite`` (and ``--out .``)."""
    _dataset().save(tmp_path / "D")
    before = _tree(tmp_path)
    monkeypatch.chdir(tmp_path / "D")
    code, _, err = main(capsys, *GENERATE, "--out", out, "--overwrite")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "working directory" in err
    assert _tree(tmp_path) == before  # nothing moved, nothing hidden left behind
    with pytest.raises(ValueError, match="working directory"):
        _dataset(1.0).save(out, overwrite=True)
    assert _tree(tmp_path) == before


def test_save_handles_a_working_directory_entered_during_the_save(tmp_path, monkeypatch):
    """A working directory that is inside the folder only when the save renames: the
    folder is put back, the new dataset kept visibly, the working directory still valid."""
    _dataset().save(tmp_path / "D")
    before = _tree(tmp_path / "D")
    real = dataset_module.temp_dir

    def enter_then_temp_dir(parent, prefix, suffix):
        os.chdir(tmp_path / "D")
        return real(parent, prefix, suffix)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(dataset_module, "temp_dir", enter_then_temp_dir)
    with pytest.raises(FileExistsError, match="working directory.*D.kept-"):
        _dataset(1.0).save(tmp_path / "D", overwrite=True)
    assert os.getcwd() == str(tmp_path / "D") and _tree(tmp_path / "D") == before
    assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["D", "D.kept"]


# ------------------------------------------------------------------ item 19


def test_overwrite_of_a_read_only_folder_is_refused_before_the_run(tmp_path, monkeypatch,
                                                                   capsys):
    """Item 19: exit 2 with one line naming the folder, and no evolution run."""
    path = tmp_path / "D"
    _dataset().save(path)
    if os.geteuid() == 0:  # root may write anywhere: check what a user would be told
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda p, mode, **kw: real_access(p, mode, **kw)
                            and not (mode & os.W_OK and not os.stat(p).st_mode & 0o200))

    def no_run(*args, **kwargs):
        raise AssertionError("the evolution ran")

    monkeypatch.setattr(hd.algorithms.loop, "evolve", no_run)
    path.chmod(0o555)
    try:
        before = _tree(tmp_path)
        code, _, err = main(capsys, *GENERATE, "--out", path, "--overwrite")
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert str(path) in err and "not writable" in err
        assert _tree(tmp_path) == before
    finally:
        path.chmod(0o755)


# ------------------------------------------------------------------ symbolic links


def test_overwrite_never_replaces_or_deletes_through_a_link(tmp_path, capsys):
    theirs = tmp_path / "theirs"
    _dataset().save(theirs)
    (tmp_path / "link").symlink_to(theirs)
    folder = tmp_path / "with-link"
    _dataset().save(folder)
    (folder / "logbook.csv").symlink_to(theirs / "data.csv")  # an own name, but a link
    before = _tree(tmp_path)
    for out in ("link", "with-link"):
        code, _, err = main(capsys, *GENERATE, "--out", tmp_path / out, "--overwrite")
        assert code == 2, err
        with pytest.raises(ValueError):
            _dataset(1.0).save(tmp_path / out, overwrite=True)
    assert _tree(tmp_path) == before


def test_overwrite_of_a_folder_swapped_for_a_link_before_the_move(tmp_path, monkeypatch):
    """The folder checked before the run becomes a link to the user's folder: what is
    moved aside is checked again, refused and put back; nothing reached through it."""
    path, theirs = tmp_path / "D", tmp_path / "theirs"
    _dataset().save(path)
    _dataset(5.0).save(theirs)
    (theirs / "thesis.tex").write_text("mine")
    real_rename, real_exchange = _writes.rename_no_replace, _writes.exchange

    def to_link():
        if not (tmp_path / "moved").exists():  # once
            path.rename(tmp_path / "moved")
            path.symlink_to(theirs)

    def swap_first(src, dst):  # (where the system cannot swap: moved aside)
        if str(src) == str(path):
            to_link()
        return real_rename(src, dst)

    def exchange_first(a, b):  # (swapped with the new output in one step)
        if str(b) == str(path):
            to_link()
        return real_exchange(a, b)

    monkeypatch.setattr(_writes, "rename_no_replace", swap_first)
    monkeypatch.setattr(_writes, "exchange", exchange_first)
    before = _tree(theirs)
    with pytest.raises(FileExistsError, match="D.kept-"):
        _dataset(1.0).save(path, overwrite=True)
    assert path.is_symlink() and _tree(theirs) == before
    assert path.resolve() == theirs.resolve()


def test_plot_clean_up_never_reaches_through_a_link(tmp_path, monkeypatch, capsys):
    """A plot stopped part way removes the figures it wrote, and only those: not a
    user's file of the same name that a link now leads to."""
    run = tmp_path / "run"
    assert main(capsys, *GENERATE, "--out", run)[0] == 0
    figs, theirs = tmp_path / "figs", tmp_path / "theirs"
    figs.mkdir()
    theirs.mkdir()
    (theirs / "dataset.png").write_bytes(b"mine")
    from hawks_deap.analysis import plotting

    def swap_then_stop(*args, **kwargs):
        figs.rename(tmp_path / "figs-moved")
        figs.symlink_to(theirs)
        raise KeyboardInterrupt

    monkeypatch.setattr(plotting, "plot_convergence", swap_then_stop)
    code, _, _ = main(capsys, "plot", run, "--out", figs)
    assert code == 130
    assert (theirs / "dataset.png").read_bytes() == b"mine"
    # without the swap, what it wrote is removed
    monkeypatch.setattr(plotting, "plot_convergence",
                        lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))
    (tmp_path / "figs2").mkdir()
    assert main(capsys, "plot", run, "--out", tmp_path / "figs2")[0] == 130
    assert list((tmp_path / "figs2").iterdir()) == []


def test_export_clean_up_never_reaches_through_a_link(tmp_path, monkeypatch):
    """An export that fails part way removes the files it wrote, and only those."""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    for name in ("README.txt", "a.txt", "a.labels0.gz", "a.data.gz"):
        (theirs / name).write_text("mine")
    before = _tree(theirs)
    folder = tmp_path / "root" / "bat"
    real, calls = batteries._data_lines, []

    def swap_then_fail(X, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            folder.rename(tmp_path / "moved")
            folder.symlink_to(theirs)
            raise RuntimeError("disk on fire")
        return real(X, *args, **kwargs)

    monkeypatch.setattr(batteries, "_data_lines", swap_then_fail)
    with pytest.raises(RuntimeError, match="disk on fire"):
        batteries.write_battery([_dataset(), _dataset(1.0)], tmp_path / "root", battery="bat",
                                names=["a", "b"])
    assert _tree(theirs) == before
    # an overwrite refuses a dataset with a link among its files (as a run's folder with
    # a link in it is refused): neither the link nor the file it leads to is replaced
    folder.unlink()
    shutil.rmtree(tmp_path / "moved")
    monkeypatch.setattr(batteries, "_data_lines", real)
    batteries.write_battery([_dataset()], tmp_path / "root", battery="bat", names=["a"])
    (folder / "a.labels0.gz").unlink()
    (folder / "a.labels0.gz").symlink_to(theirs / "a.labels0.gz")
    with pytest.raises(ValueError, match=r"symbolic links \(a.labels0.gz\)"):
        batteries.write_battery([_dataset()], tmp_path / "root", battery="bat", names=["a"],
                                overwrite=True)
    assert _tree(theirs) == before and (folder / "a.labels0.gz").is_symlink()


def test_a_file_appearing_at_features_out_during_the_run_is_kept(tmp_path, monkeypatch,
                                                                  capsys):
    # the item-1 race for `features --out FILE`: a file the user makes at FILE while the
    # features are computed is never replaced (without --overwrite); the command fails
    assert main(capsys, *GENERATE, "--out", tmp_path / "d")[0] == 0
    table = tmp_path / "t.csv"
    from hawks_deap.analysis import features

    real = features.features_table

    def slow_table(*args, **kwargs):
        result = real(*args, **kwargs)
        table.write_text("mine\n")  # appears after the checks, before the write
        return result

    monkeypatch.setattr(features, "features_table", slow_table)
    code, _, err = main(capsys, "features", tmp_path / "d", "--out", table)
    assert code == 1 and "File exists" in err and len(err.strip().splitlines()) == 1
    assert table.read_text() == "mine\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".t.csv")]


def test_rename_no_replace_without_hard_links_still_refuses_and_atomic_replace_spares_links(
        tmp_path, monkeypatch):
    # the last fallback (no renameat2, a file system without hard links): check, then rename
    monkeypatch.setattr(_writes, "_RENAMEAT2", None)

    def no_links(*args, **kwargs):
        raise PermissionError(1, "hard links not supported")

    monkeypatch.setattr(_writes.os, "link", no_links)
    (tmp_path / "f").write_text("new")
    (tmp_path / "mine").write_text("mine")
    with pytest.raises(FileExistsError):
        rename_no_replace(tmp_path / "f", tmp_path / "mine")
    assert (tmp_path / "mine").read_text() == "mine" and (tmp_path / "f").exists()
    rename_no_replace(tmp_path / "f", tmp_path / "free")
    assert (tmp_path / "free").read_text() == "new" and not (tmp_path / "f").exists()
    # a replacing write (an --overwrite) over a link refuses: it neither writes through
    # the link nor deletes it (the link is the user's name, not one hawks-deap created)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "fig.png").symlink_to(victim)
    with pytest.raises(ValueError, match="fig.png is a symbolic link"):
        _writes.write_file_atomic(tmp_path / "fig.png", b"figure", replace=True)
    assert victim.read_text() == "precious"
    assert (tmp_path / "fig.png").is_symlink()
    assert not list(tmp_path.glob(".fig.png.*"))  # refused before any temporary file


def test_a_link_that_appears_while_a_file_is_written_is_not_replaced(tmp_path, monkeypatch):
    """The link check runs again right before the rename."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    real_fsync = _writes.os.fsync

    def link_meanwhile(fd):
        real_fsync(fd)
        if not (tmp_path / "out.csv").is_symlink():
            (tmp_path / "out.csv").symlink_to(victim)

    monkeypatch.setattr(_writes.os, "fsync", link_meanwhile)
    with pytest.raises(ValueError, match="out.csv is a symbolic link"):
        _writes.write_file_atomic(tmp_path / "out.csv", b"table", replace=True)
    assert (tmp_path / "out.csv").is_symlink() and victim.read_text() == "precious"
    assert not list(tmp_path.glob(".out.csv.*"))  # its temporary file removed


def test_an_overwrite_never_leaves_its_path_empty(tmp_path, monkeypatch):
    """The old folder and the new one change places in one step, so a process killed at
    any moment leaves a whole dataset at the path: while the old one is checked and
    deleted, the new one is already there."""
    path = tmp_path / "D"
    _dataset(1.0).save(path)
    seen = []
    real_check, real_remove = dataset_module.check_replaceable, _writes.remove_tree

    def check(folder, **kwargs):
        seen.append(("check", hd.Dataset.load(path).X[0, 0]))
        return real_check(folder, **kwargs)

    def remove(folder, **kwargs):
        seen.append(("remove", hd.Dataset.load(path).X[0, 0]))
        return real_remove(folder, **kwargs)

    monkeypatch.setattr(dataset_module, "check_replaceable", check)
    monkeypatch.setattr(_writes, "remove_tree", remove)
    _dataset(2.0).save(path, overwrite=True)
    assert seen[-2:] == [("check", 2.0), ("remove", 2.0)]
    assert hd.Dataset.load(path).X[0, 0] == 2.0
    assert [p.name for p in tmp_path.iterdir()] == ["D"]  # nothing left beside it


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_run_whose_output_was_taken_meanwhile_is_kept_beside_it(tmp_path, overwrite):
    # the command line checks --out before the run; what appears there meanwhile (a user's
    # folder) is left as it is, and the finished dataset kept: it was thrown away
    from hawks_deap._util.writes import NotReplacedError

    ds = hd.Dataset(np.random.default_rng(0).normal(size=(20, 2)), np.arange(20) % 2)
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("precious")
    with pytest.raises(FileExistsError if not overwrite else ValueError):
        ds.save(out, overwrite=overwrite)  # the default: refused before writing
    with pytest.raises(NotReplacedError) as error:
        ds.save(out, overwrite=overwrite, keep_if_taken=True)
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("out.kept-")]
    assert len(kept) == 1 and kept[0].name in str(error.value)
    assert np.array_equal(hd.Dataset.load(kept[0]).X, ds.X)
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]
    assert (out / "mine.txt").read_text() == "precious"


def test_a_saved_folder_is_synced_before_and_after_its_rename(tmp_path, monkeypatch):
    # nothing was synced: after a power loss the renamed folder could hold empty files
    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    ds = hd.Dataset(np.random.default_rng(0).normal(size=(20, 2)), np.arange(20) % 2)
    ds.save(tmp_path / "d", extra_files={"logbook.csv": "gen\n0\n"})
    names = [os.path.basename(p) for p in synced]
    files = sorted(p.name for p in (tmp_path / "d").iterdir())
    assert sorted(names[:len(files)]) == files  # each file, in the temporary folder
    assert synced[len(files)].startswith(str(tmp_path / ".d."))  # that folder
    assert synced[-1] == str(tmp_path)  # and the rename, in its parent
