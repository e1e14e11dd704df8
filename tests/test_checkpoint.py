import pickle

import pytest

import hawks_deap as hd


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
