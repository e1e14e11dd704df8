import hashlib
import pickle
from pathlib import Path

import numpy as np
import pytest
from sklearn.cluster import KMeans

import hawks_deap as hd
from hawks_deap._checkpoints import read_checkpoint


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


# A checkpoint written before hawks_deap/clustering.py became a package (commit 6091fdd),
# by this script run there (git worktree add /tmp/old-hawks 6091fdd; PYTHONPATH=that):
#
#     from sklearn.cluster import KMeans
#     import hawks_deap as hd
#     from hawks_deap.problems.versus import MultiVersusProblem
#
#     def problem():
#         return MultiVersusProblem("single-linkage-2k", ["gmm", KMeans(n_init=1)],
#                                   others=["average-linkage-2k", "kmeans++"],
#                                   n_samples=40, n_clusters=2, n_dims=2)
#
#     hd.evolve(problem(), population_size=4, generations=2, seed=7, algorithm="nsga2",
#               checkpoint="checkpoint_6091fdd.pkl")
#     full = hd.evolve(problem(), population_size=4, generations=4, seed=7,
#                      algorithm="nsga2")
#     print(sorted(i.fitness.values for i in full.pareto_front))
#     print(hashlib.sha256(full.best_dataset().to_csv_text().encode()).hexdigest())
#
# It names hawks_deap.clustering._single_linkage, _gmm, _average_linkage,
# _kmeans_plus_plus and _EstimatorRunner; the printed figures are the oracle below.
OLD_CHECKPOINT = Path(__file__).parent / "data" / "checkpoint_6091fdd.pkl"

OLD_FULL_RUN_FRONT = [
    (-0.08478107124508019, -0.0400829424634038, 0.0660041013724138),
    *[(-0.08099959801688328, -0.08099959801688328, 0.1992293186849225)] * 5,
    (-0.06809710889493303, -0.06809710889493303, 0.18316017947920565),
    (0.454735756762781, 0.454735756762781, 0.04406732796151447),
]
OLD_FULL_RUN_BEST_CSV_SHA256 = "54a4fe1dcfaacc286049382111d9b46cf72662756ab6ea407bf5a30fa19645de"
# The resumed run's best dataset (X, y), saved from a resume whose CSV had exactly that
# hash (OpenBLAS Haswell kernels). Other BLAS kernels round the points' last bits
# differently (README, "Reproducibility"): compared to the contract's tolerance.
OLD_FULL_RUN_BEST = Path(__file__).parent / "data" / "checkpoint_6091fdd_best.npz"


def test_a_checkpoint_of_the_single_module_clustering_resumes_as_the_old_run(tmp_path):
    from hawks_deap.clustering import get_algorithm

    assert {"hawks_deap.clustering._single_linkage", "hawks_deap.clustering._gmm",
            "hawks_deap.clustering._average_linkage", "hawks_deap.clustering._kmeans_plus_plus",
            "hawks_deap.clustering._EstimatorRunner"} <= pickled_names(OLD_CHECKPOINT)
    problem = read_checkpoint(OLD_CHECKPOINT)["problem"]
    # the old functions load as today's registered calls
    assert problem.winner == get_algorithm("single-linkage-2k")
    assert problem.losers[0] == get_algorithm("gmm")
    assert problem.others == (get_algorithm("average-linkage-2k"), get_algorithm("kmeans++"))
    assert problem.losers[1].settings == get_algorithm(KMeans(n_init=1)).settings
    resumed = hd.resume(OLD_CHECKPOINT, generations=4, save_to=tmp_path / "resumed.pkl")
    front = sorted(i.fitness.values for i in resumed.pareto_front)
    np.testing.assert_allclose(front, OLD_FULL_RUN_FRONT, rtol=1e-9, atol=1e-12)
    best = resumed.best_dataset()
    with np.load(OLD_FULL_RUN_BEST) as old:
        np.testing.assert_array_equal(best.y, old["y"])
        np.testing.assert_allclose(best.X, old["X"], rtol=1e-9, atol=1e-12)
        if best.X.tobytes() == old["X"].tobytes():  # the recording's kernels: same bytes
            csv = best.to_csv_text().encode()
            assert hashlib.sha256(csv).hexdigest() == OLD_FULL_RUN_BEST_CSV_SHA256


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


def test_algorithms_pickled_by_their_private_modules_load_with_todays_facts():
    """``algorithms_684d289.pkl`` was written at commit 684d289 (classes and functions
    named by ``hawks_deap.clustering._core`` / ``_library``), run there with
    ``PYTHONPATH=`` that tree::

        objs = [get_algorithm(n) for n in ("average-linkage-2k", "single-linkage",
                                           "ward-linkage", "genie")]
        objs.append(get_algorithm("kmeans++", preset="hawks-tevc"))
        open("algorithms_684d289.pkl", "wb").write(pickle.dumps(objs, protocol=4))
    """
    from hawks_deap.clustering import get_algorithm

    path = Path(__file__).parent / "data" / "algorithms_684d289.pkl"
    assert {"hawks_deap.clustering._core.ClusteringAlgorithm",
            "hawks_deap.clustering._library.linkage_cut"} <= pickled_names(path)
    restored = pickle.loads(path.read_bytes())
    expected = [get_algorithm(n) for n in ("average-linkage-2k", "single-linkage",
                                           "ward-linkage", "genie")]
    expected.append(get_algorithm("kmeans++", preset="hawks-tevc"))
    assert restored == expected
    # declared after they were written, read from the registered calls they equal
    assert [a.pairwise for a in restored] == [True, False, True, False, False]
    assert [a.func.tree for a in restored] == [e.func.tree for e in expected]
    assert restored[1].func.tree is not None
