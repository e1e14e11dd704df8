import pickle

import pytest
from sklearn.cluster import KMeans

import hawks_deap as hd
from hawks_deap.algorithms.checkpoints import CHECKPOINT_FORMAT, read_checkpoint


def problem():
    return hd.IndexProblem(240, 4, 2, target=0.4, constraints=[hd.Overlap(max=0.1)])


@pytest.mark.parametrize("algorithm", ["hawks", "nsga2", "nsga3"])
def test_resumed_run_is_identical_to_uninterrupted(tmp_path, algorithm):
    full = hd.evolve(problem(), population_size=6, generations=12, seed=7,
                     algorithm=algorithm)
    ck = tmp_path / "run.ckpt"

    def stop_at_5(state):
        return state.generation >= 5

    part = hd.evolve(problem(), population_size=6, generations=12, seed=7, checkpoint=ck,
                     checkpoint_every=2, callbacks=[stop_at_5], algorithm=algorithm)
    assert part.generations_run == 5
    resumed = hd.resume(ck)
    assert resumed.generations_run == 12
    assert resumed.best_dataset().to_csv_text() == full.best_dataset().to_csv_text()
    assert [dict(r) for r in resumed.logbook] == [dict(r) for r in full.logbook]
    assert [i.key for i in resumed.population] == [i.key for i in full.population]
    if algorithm != "hawks":
        assert [i.key for i in resumed.pareto_front] == [i.key for i in full.pareto_front]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_resume_from_periodic_checkpoint_after_crash(tmp_path, n_jobs):
    # n_jobs=2: the crash stops a run that has a helper process, and the resumed run
    # shares its generations with a new one
    full = hd.evolve(problem(), population_size=6, generations=9, seed=3)
    ck = tmp_path / "c.pkl"

    class Crash(Exception):
        pass

    def crash(state):
        if state.generation == 7:
            raise Crash

    with pytest.raises(Crash):
        hd.evolve(problem(), population_size=6, generations=9, seed=3, checkpoint=ck,
                  checkpoint_every=3, callbacks=[crash], n_jobs=n_jobs)
    with open(ck, "rb") as fh:
        assert pickle.load(fh)["generation"] == 6
    resumed = hd.resume(ck, n_jobs=n_jobs)
    assert resumed.best_dataset().to_csv_text() == full.best_dataset().to_csv_text()


def test_resume_can_extend_and_rejects_foreign_files(tmp_path):
    ck = tmp_path / "c.pkl"
    hd.evolve(problem(), population_size=4, generations=3, seed=1, checkpoint=ck)
    longer = hd.resume(ck, generations=5)
    assert longer.generations_run == 5 and len(longer.logbook) == 6
    bad = tmp_path / "bad.pkl"
    bad.write_bytes(pickle.dumps({"hello": 1}))
    with pytest.raises(ValueError, match="not a hawks-deap checkpoint"):
        hd.resume(bad)
    with pytest.raises(ValueError, match="checkpoint_every"):
        hd.evolve(problem(), checkpoint=ck, checkpoint_every=0)


def _checkpoint(tmp_path):
    ck = tmp_path / "run.ckpt"
    hd.evolve(problem(), population_size=4, generations=2, seed=1, checkpoint=ck)
    return ck


@pytest.mark.parametrize("damage", ["truncated", "empty", "garbage", "no-state"])
def test_damaged_checkpoints_get_an_error_naming_the_file(tmp_path, damage):
    """Issue 19, point 6: no raw UnpicklingError / EOFError / KeyError."""
    ck = _checkpoint(tmp_path)
    data = ck.read_bytes()
    if damage == "truncated":
        ck.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        ck.write_bytes(b"")
    elif damage == "garbage":
        ck.write_bytes(b"not a pickle at all")
    else:
        payload = pickle.loads(data)
        del payload["rng_states"]
        ck.write_bytes(pickle.dumps(payload))
    with pytest.raises(ValueError, match=r"checkpoint '.*run\.ckpt'"):
        hd.resume(ck)


def test_a_checkpoint_path_that_cannot_be_written_is_refused_before_any_work(tmp_path):
    ran = []
    with pytest.raises(ValueError, match="is a directory"):
        hd.evolve(problem(), population_size=4, generations=2, seed=1, checkpoint=tmp_path,
                  callbacks=[lambda state: ran.append(state.generation)])
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is not a directory"):
        hd.evolve(problem(), population_size=4, generations=2, seed=1,
                  checkpoint=tmp_path / "file" / "run.ckpt",
                  callbacks=[lambda state: ran.append(state.generation)])
    with pytest.raises(ValueError, match="is a directory"):
        hd.resume(tmp_path)
    assert ran == []


def pickled_names(path):
    """The module.name of every class or function a pickle file names."""
    named = set()

    class Recording(pickle.Unpickler):
        def find_class(self, module, name):
            named.add(f"{module}.{name}")
            return super().find_class(module, name)

    with open(path, "rb") as fh:
        Recording(fh).load()
    return named


def _written_by_format_2(payload):
    """Pickle bytes as the checkpoints of format 2 (before the layered package) were."""
    return pickle.dumps({**payload, "format": "hawks-deap-checkpoint-2"},
                        protocol=pickle.HIGHEST_PROTOCOL)


def test_a_checkpoint_of_an_earlier_format_is_refused_with_a_message_to_rerun(tmp_path):
    ck = _checkpoint(tmp_path)
    payload = pickle.loads(ck.read_bytes())
    assert next(iter(payload)) == "format"  # first: read before anything is loaded
    assert payload["format"] == CHECKPOINT_FORMAT == "hawks-deap-checkpoint-3"
    ck.write_bytes(_written_by_format_2(payload))
    with pytest.raises(ValueError) as refused:
        hd.resume(ck)
    message = str(refused.value)
    assert message == (f"checkpoint {str(ck)!r} was written by an earlier hawks-deap "
                       "(checkpoint format 2, this version reads 3) and cannot be resumed: "
                       "re-run it from the start")
    assert "\n" not in message
    # one of a later version says so
    ck.write_bytes(pickle.dumps({**payload, "format": "hawks-deap-checkpoint-4"}))
    with pytest.raises(ValueError, match="written by a later hawks-deap"):
        read_checkpoint(ck)


def test_an_earlier_checkpoint_naming_what_no_longer_exists_gets_the_same_refusal(
        tmp_path, monkeypatch):
    """Old checkpoints name objects of their day (e.g. the functions of the single-module
    ``hawks_deap.clustering``): the format is read before anything is loaded."""
    import hawks_deap.clustering

    def _single_linkage():  # what a checkpoint of the single-module clustering named
        pass

    _single_linkage.__module__ = "hawks_deap.clustering"
    _single_linkage.__qualname__ = "_single_linkage"
    with monkeypatch.context() as patch:
        patch.setattr(hawks_deap.clustering, "_single_linkage", _single_linkage,
                      raising=False)
        payload = {"format": "hawks-deap-checkpoint-1", "problem": _single_linkage}
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    assert not hasattr(hawks_deap.clustering, "_single_linkage")
    with pytest.raises(AttributeError):
        pickle.loads(data)
    ck = tmp_path / "old.ckpt"
    ck.write_bytes(data)
    with pytest.raises(ValueError, match=r"written by an earlier hawks-deap .* re-run it"):
        hd.resume(ck)
    # the same payload at another protocol, and one with the format later in the dict
    for data in (pickle.dumps({"format": "hawks-deap-checkpoint-1"}, protocol=0),
                 pickle.dumps({"generation": 2, "format": "hawks-deap-checkpoint-1"})):
        ck.write_bytes(data)
        with pytest.raises(ValueError, match="written by an earlier hawks-deap"):
            read_checkpoint(ck)


def test_clustering_objects_pickle_by_public_names_only(tmp_path):
    from hawks_deap.clustering import available_algorithms, get_algorithm

    algorithms = [get_algorithm(name) for name in available_algorithms()]
    algorithms += [get_algorithm(KMeans(n_init=1)), get_algorithm("gmm", preset="hawks-tevc")]
    path = tmp_path / "algorithms.pkl"
    path.write_bytes(pickle.dumps(algorithms))
    named = pickled_names(path)
    restored = pickle.loads(path.read_bytes())
    assert restored[:-2] == algorithms[:-2] and restored[-1] == algorithms[-1]
    assert restored[-2].settings == algorithms[-2].settings  # estimators compare by identity
    assert restored[-1].settings["n_init"] == 3  # a preset's settings travel
    ours = {n for n in named if n.startswith("hawks_deap")}
    assert ours == {"hawks_deap.clustering.ClusteringAlgorithm",
                    "hawks_deap.clustering.LibraryCall",
                    "hawks_deap.clustering.EstimatorRunner"}
    # what the facts of a call are is read again, not pickled
    assert [a.pairwise for a in restored] == [a.pairwise for a in algorithms]
    assert all(r.func.tree is a.func.tree for r, a in zip(restored, algorithms, strict=True)
               if hasattr(a.func, "tree"))


def test_a_checkpoint_never_replaces_a_file_it_did_not_write(tmp_path):
    # a user's file, or a link, at the checkpoint path is refused before any work; a
    # hawks-deap checkpoint there (of this run or an earlier one) is replaced
    mine = tmp_path / "notes.txt"
    mine.write_text("precious\n")
    target = tmp_path / "target.bin"
    target.write_bytes(b"linked\n")
    link = tmp_path / "link.ckpt"
    link.symlink_to(target)
    ran = []

    def run(**kwargs):
        return hd.evolve(problem(), population_size=4, generations=2, seed=1,
                         callbacks=[lambda state: ran.append(state.generation)], **kwargs)

    with pytest.raises(ValueError, match=r"checkpoint '.*notes\.txt' exists and is not a "
                                         r"hawks-deap checkpoint"):
        run(checkpoint=mine)
    with pytest.raises(ValueError, match="symbolic link"):
        run(checkpoint=link)
    assert ran == []
    assert mine.read_text() == "precious\n" and target.read_bytes() == b"linked\n"
    assert link.is_symlink()
    ck = tmp_path / "run.ckpt"
    run(checkpoint=ck)
    first = ck.read_bytes()
    run(checkpoint=ck)  # its own earlier checkpoint: replaced (the same bytes again)
    assert ck.read_bytes() == first
    with pytest.raises(ValueError, match=r"save_to '.*notes\.txt' exists and is not a "
                                         r"hawks-deap checkpoint"):
        hd.resume(ck, generations=3, save_to=mine)
    assert mine.read_text() == "precious\n"
    hd.resume(ck, generations=3)  # continues into its own file


def test_a_file_put_at_the_checkpoint_path_during_a_run_is_not_replaced(tmp_path):
    # checked again right before each write
    ck = tmp_path / "run.ckpt"

    def swap(state):
        if state.generation == 1:
            ck.unlink()
            ck.write_text("a user's file\n")

    with pytest.raises(ValueError, match="not a hawks-deap checkpoint"):
        hd.evolve(problem(), population_size=4, generations=3, seed=1, checkpoint=ck,
                  checkpoint_every=1, callbacks=[swap])
    assert ck.read_text() == "a user's file\n"
