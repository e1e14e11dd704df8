from __future__ import annotations

import itertools
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import dill
import numpy as np
import pytest
from sklearn.cluster import AgglomerativeClustering, KMeans
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.mixture import GaussianMixture

import hawks_deap as hd
from hawks_deap.algorithms import pool as _parallel
from hawks_deap.algorithms.pool import ProblemPool
from hawks_deap.clustering import ClusteringAlgorithm, get_algorithm, random_state_from_seed
from hawks_deap.problems import versus as versus_module
from hawks_deap.problems.versus import (
    MultiVersusProblem,
    VersusProblem,
    adjusted_rand_index,
    role_seeds,
)

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- helpers
# Module-level functions: importable, hence picklable into spawn workers.


def failing_algorithm(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    raise ValueError("boom")


def short_labels_algorithm(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    return np.zeros(X.shape[0] - 1, dtype=int)


def suicidal_algorithm(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    os.kill(os.getpid(), signal.SIGKILL)  # what the out-of-memory killer does
    return np.zeros(X.shape[0], dtype=int)  # pragma: no cover


def sleepy_algorithm(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    time.sleep(5.0)
    return np.zeros(X.shape[0], dtype=int)


SEEN_SEEDS: list[int | None] = []


def recording_algorithm(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    """Records its seed; labels by a random projection drawn from it."""
    SEEN_SEEDS.append(seed)
    rng = np.random.default_rng(seed)
    z = X @ rng.normal(size=X.shape[1])
    return np.searchsorted(np.quantile(z, np.linspace(0, 1, n_clusters + 1)[1:-1]), z)


def openmp_threads_algorithm(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    from threadpoolctl import threadpool_info

    SEEN_SEEDS.append(max(info["num_threads"] for info in threadpool_info()))
    return np.zeros(X.shape[0], dtype=int)


def worker_thread_counts(_: object) -> list[int]:
    from threadpoolctl import threadpool_info

    return [info["num_threads"] for info in threadpool_info()]


def nan_score(labels_true: np.ndarray, labels_pred: np.ndarray) -> float:
    return float("nan")


class _Unloadable:
    """Pickles fine, fails when unpickled (as a missing module would in a worker)."""

    def __reduce__(self):
        return (_refuse, ())


def _refuse():
    raise ImportError("no module named 'not_installed_here'")


def call_with_timeout(func, timeout: float):
    """Run ``func()`` in a thread; fail the test if it has not finished in ``timeout`` s."""
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = func()
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        pytest.fail(f"did not finish within {timeout} s (hung pool?)")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome.get("value")


def small_problem(winner="gmm", loser="single-linkage", **kwargs) -> VersusProblem:
    options = {"n_samples": 240, "n_clusters": 3, "n_dims": 2,
               "constraints": [hd.Overlap(max=0.1)]}
    options.update(kwargs)
    return VersusProblem(winner, loser, **options)


def prepared(problem: VersusProblem, seed: int = 0):
    rng = np.random.default_rng(seed)
    problem.prepare(rng)
    return problem, problem.random_individual(rng)


# --------------------------------------------------------------------------- ARI


@pytest.mark.parametrize("case", range(40))
def test_adjusted_rand_index_equals_scikit_learn_bit_for_bit(case: int) -> None:
    rng = np.random.default_rng(case)
    n = int(rng.integers(1, 400))
    a = rng.integers(0, int(rng.integers(1, 8)), size=n)
    b = rng.integers(0, int(rng.integers(1, 12)), size=n)
    if case % 4 == 1:
        b = b - 3  # negative labels
    elif case % 4 == 2:
        b = b * 1_000_003 + 7  # sparse label values
    elif case % 4 == 3:
        b = a.copy()  # identical partitions
    assert adjusted_rand_index(a, b) == adjusted_rand_score(a, b)


def test_versus_ari_is_the_metrics_ari() -> None:
    assert adjusted_rand_index is hd.metrics.adjusted_rand_index
    assert versus_module.resolve_score("ari")[1] is hd.metrics.adjusted_rand_index
    assert versus_module.resolve_score("ARI")[1] is hd.metrics.get("ari").function


def test_adjusted_rand_index_special_cases() -> None:
    assert adjusted_rand_index(np.zeros(5, int), np.zeros(5, int)) == 1.0
    assert adjusted_rand_index(np.arange(5), np.arange(5)) == 1.0
    assert adjusted_rand_index(["a", "b", "b"], [1.5, 2.5, 2.5]) == 1.0
    assert adjusted_rand_index(np.zeros(6, int), np.arange(6)) == adjusted_rand_score(
        np.zeros(6, int), np.arange(6))
    with pytest.raises(ValueError, match="same length"):
        adjusted_rand_index([0, 1], [0, 1, 1])


# --------------------------------------------------------------------------- evaluation


def _direct_labels(name: str, X: np.ndarray, k: int, seed: int) -> np.ndarray:
    """The algorithms of the paper called directly in scikit-learn."""
    state = random_state_from_seed(seed)
    if name == "gmm":
        return GaussianMixture(n_components=k, covariance_type="full",
                               random_state=state).fit(X).predict(X)
    if name == "kmeans++":
        return KMeans(n_clusters=k, init="k-means++", n_init="auto",
                      random_state=state).fit_predict(X)
    linkage = name.removesuffix("-2k").removesuffix("-linkage")
    k = 2 * k if name.endswith("-2k") else k
    return AgglomerativeClustering(n_clusters=k, linkage=linkage).fit_predict(X)


@pytest.mark.parametrize(("winner", "loser"), [
    ("gmm", "single-linkage"),
    ("kmeans++", "average-linkage"),
    ("average-linkage-2k", "gmm"),
    ("single-linkage-2k", "kmeans++"),
])
def test_evaluation_equals_direct_scikit_learn_calls(winner: str, loser: str) -> None:
    problem, individual = prepared(small_problem(winner, loser))
    evaluation = problem.evaluate(individual, eval_seed=12345)
    X, y = problem.sample(individual)
    winner_seed, loser_seed = role_seeds(12345)
    expected_w = adjusted_rand_score(y, _direct_labels(winner, X, 3, winner_seed))
    expected_l = adjusted_rand_score(y, _direct_labels(loser, X, 3, loser_seed))
    record = evaluation.record
    assert record["winner_score"] == pytest.approx(expected_w, abs=1e-12)
    assert record["loser_score"] == pytest.approx(expected_l, abs=1e-12)
    assert evaluation[0] == record["winner_score"] - record["loser_score"]
    assert record["overlap"] == hd.evaluation.nearest_neighbour_overlap(X, y)
    assert record["penalty"] == max(0.0, record["overlap"] - 0.1) ** 2
    assert record["feasible"] == (record["penalty"] == 0.0)
    assert record["seeds"] == {"winner": winner_seed, "loser": loser_seed}


def test_evaluation_record_and_fitness_class() -> None:
    problem, individual = prepared(small_problem())
    individual.fitness.values = problem.evaluate(individual, 3)
    assert isinstance(individual.fitness, hd.genome.VersusFitness)
    assert individual.fitness.weights == (1.0,)
    assert set(individual.record) == {"winner_score", "loser_score", "overlap", "penalty",
                                      "feasible", "seeds"}
    winner_labels, loser_labels = problem.partitions(individual)  # the scored partitions
    y = problem.layout.labels
    assert adjusted_rand_score(y, winner_labels) == individual.record["winner_score"]
    assert adjusted_rand_score(y, loser_labels) == individual.record["loser_score"]


def test_each_evaluation_gets_fresh_independent_seeds() -> None:
    SEEN_SEEDS.clear()
    problem = small_problem(ClusteringAlgorithm("recorder", recording_algorithm), "gmm")
    result = hd.evolve(problem, population_size=6, generations=3, seed=1, n_jobs=1)
    n_evals = sum(row["nevals"] for row in result.logbook)
    assert len(SEEN_SEEDS) == n_evals
    assert len(set(SEEN_SEEDS)) == n_evals  # a new seed at every evaluation
    seeds = [role_seeds(s) for s in (1, 2)]
    assert seeds[0] != seeds[1] and seeds[0][0] != seeds[0][1]  # roles are independent


def test_same_eval_seed_same_result_and_genotype_seed_without_one() -> None:
    problem, individual = prepared(small_problem("kmeans++", "gmm"))
    a = problem.evaluate(individual, 5)
    assert a.record == problem.evaluate(individual, 5).record
    # Without a seed (e.g. DEAP calling toolbox.evaluate): derived from the genotype key.
    b = problem.evaluate(individual)
    assert b.record == problem.evaluate(individual.clone()).record
    assert b.record["seeds"] == dict(zip(("winner", "loser"), role_seeds(
        int(individual.key, 16)), strict=True))


def test_clustering_runs_with_one_thread_by_default() -> None:
    SEEN_SEEDS.clear()
    problem, individual = prepared(
        small_problem(ClusteringAlgorithm("threads", openmp_threads_algorithm), "gmm"))
    problem.evaluate(individual, 0)
    assert SEEN_SEEDS == [1]


def test_score_callable_and_lower_is_better_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    problem, individual = prepared(small_problem(score=normalized_mutual_info_score))
    evaluation = problem.evaluate(individual, 0)
    assert problem.score_name == "normalized_mutual_info_score"
    winner_labels, loser_labels = problem.partitions(individual, (
        evaluation.record["seeds"]["winner"], evaluation.record["seeds"]["loser"]))
    y = problem.layout.labels
    assert evaluation.record["winner_score"] == normalized_mutual_info_score(y, winner_labels)
    assert evaluation.record["loser_score"] == normalized_mutual_info_score(y, loser_labels)

    def one_minus_ari(a, b):
        return 1.0 - adjusted_rand_score(a, b)

    infos = {
        "distance": SimpleNamespace(name="distance", function=one_minus_ari, kind="external",
                                    bounds=(0, 2), higher_is_better=False, aliases=()),
        "silhouette": SimpleNamespace(name="silhouette", function=None, kind="internal",
                                      bounds=(-1, 1), higher_is_better=True, aliases=()),
    }

    def get(name: str):
        if name not in infos:
            raise ValueError(f"unknown metric {name!r}")
        return infos[name]

    fake = SimpleNamespace(get=get, available=lambda kind=None: [
        n for n, i in infos.items() if kind is None or i.kind == kind])
    monkeypatch.setattr(versus_module, "metrics", fake)
    problem, individual = prepared(small_problem(score="distance"))
    evaluation = problem.evaluate(individual, 0)
    record = evaluation.record
    assert evaluation[0] == record["loser_score"] - record["winner_score"]  # still maximised
    with pytest.raises(ValueError, match="internal index.*'distance'"):
        small_problem(score="silhouette")
    with pytest.raises(ValueError, match="unknown score 'nope'; valid: 'ari', 'distance'"):
        small_problem(score="nope")


def test_non_finite_score_is_an_error_naming_it() -> None:
    problem, individual = prepared(small_problem(score=nan_score))
    with pytest.raises(RuntimeError, match="score 'nan_score' returned nan.*'gmm'"):
        problem.evaluate(individual, 0)

    def text_score(labels_true, labels_pred):
        return "x"

    problem, individual = prepared(small_problem(score=text_score))
    with pytest.raises(RuntimeError, match=r"text_score' returned 'x' for .*finite number"):
        problem.evaluate(individual, 0)


# --------------------------------------------------------------------------- validation


def test_bad_input_raises_value_errors_with_the_choices() -> None:
    with pytest.raises(ValueError, match="winner and loser must be different.*'gmm'"):
        small_problem("gmm", "gmm")
    with pytest.raises(ValueError, match="different"):
        small_problem(get_algorithm("kmeans++"), "kmeans++")
    with pytest.raises(ValueError, match=r"winner: unknown algorithm 'dbscan'"
                       r".*valid: 'kmeans\+\+'"):
        small_problem("dbscan", "gmm")
    with pytest.raises(ValueError, match="loser: unknown algorithm 'single'.*did you mean"):
        small_problem("gmm", "single")
    with pytest.raises(ValueError, match="unknown score 'no-such-index'; valid: 'ari', "):
        small_problem(score="no-such-index")
    with pytest.raises(ValueError, match="'silhouette' is an internal index.*'ari'"):
        small_problem(score="silhouette")
    problem = small_problem(score="nmi")  # any external index of the registry, by alias
    assert problem.score_name == "normalized_mutual_information"
    with pytest.raises(TypeError, match="score must be"):
        small_problem(score=3)
    with pytest.raises(ValueError, match="n_threads must be >= 1"):
        small_problem(n_threads=0)
    with pytest.raises(ValueError, match="asks for 80 clusters"):
        VersusProblem("gmm", "single-linkage-2k", n_samples=50, n_clusters=40, n_dims=2,
                      min_size=1)
    problem = small_problem()
    with pytest.raises(ValueError, match="n_jobs must be >= 1, got 0"):
        hd.evolve(problem, generations=1, n_jobs=0)
    with pytest.raises(ValueError, match="n_jobs must be >= 1"):
        ProblemPool(problem, 0)
    with pytest.raises(ValueError, match="unknown start_method 'thread'"):
        ProblemPool(problem, 1, start_method="thread")


def test_parameters_and_repr() -> None:
    problem = small_problem("average-linkage-2k", "kmeans++")
    params = problem.parameters()
    assert params["mode"] == "versus"
    assert (params["winner"], params["loser"], params["score"]) == (
        "average-linkage-2k", "kmeans++", "ari")
    assert params["winner_k_multiplier"] == 2
    assert params["initial_mean_upper"] == 10.0  # the paper's Versus setting
    assert "average-linkage-2k" in repr(problem)


def test_pickle_round_trip_evaluates_identically() -> None:
    problem, individual = prepared(small_problem())
    problem.evaluate(individual, 1)  # creates the thread controller and fills the cache
    for module in (pickle, dill):
        copy = module.loads(module.dumps(problem))
        assert copy.evaluate(individual, 1).record == problem.evaluate(individual, 1).record


# --------------------------------------------------------------------------- parts


def same_evaluation(a, b) -> bool:
    """Equal values, weights and layout, and the same record, key order included."""
    return (tuple(a) == tuple(b) and a.record == b.record
            and list(a.record) == list(b.record) and a.layout_key == b.layout_key)


@pytest.mark.parametrize("make, plan", [
    # each algorithm, then the constraints (a part of their own)
    (lambda: small_problem(), [((0,), False), ((1,), False), ((), True)]),
    # without constraints, their (empty) record comes with the first part
    (lambda: small_problem(constraints=[]), [((0,), True), ((1,), False)]),
    # a linkage and its 2K variant cut one tree: one part, the tree built once
    (lambda: small_problem("average-linkage", "average-linkage-2k"),
     [((0, 1), False), ((), True)]),
    (lambda: MultiVersusProblem("gmm", ["single-linkage", "average-linkage"],
                                others=["kmeans++", "average-linkage-2k"], n_samples=240,
                                n_clusters=3, n_dims=2, constraints=[hd.Overlap(max=0.1)]),
     [((0,), False), ((1,), False), ((2, 4), False), ((3,), False), ((), True)]),
    # NSGA's form: the base's parts, the constraint objectives added at the join
    (lambda: small_problem().as_multiobjective(),
     [((0,), False), ((1,), False), ((), True)]),
])
def test_the_parts_of_an_evaluation_join_to_the_evaluation(make, plan) -> None:
    problem, individual = prepared(make())
    base = getattr(problem, "base", problem)
    parts = len(plan)
    assert base._part_plan() == plan and problem.evaluation_parts() == parts
    for seed in (5, None):
        whole = problem.evaluate(individual, seed)
        results = [problem.evaluate_part(individual, seed, k) for k in range(parts)]
        assert [("constraints" in r, sorted(r["scores"])) for r in results] == [
            (with_constraints, list(indices)) for indices, with_constraints in plan]
        for order in itertools.permutations(results):
            assert same_evaluation(problem.join_parts(individual, seed, order), whole)
    with pytest.raises(ValueError, match=f"part must be <= {parts - 1}"):
        problem.evaluate_part(individual, 5, parts)
    with pytest.raises(TypeError, match="part must be an integer"):
        problem.evaluate_part(individual, 5, 0.0)
    results = [problem.evaluate_part(individual, 5, k) for k in range(parts)]
    for k in range(parts):  # each part twice: the scores, or the constraints
        with pytest.raises(ValueError, match="parts must hold each part once"):
            problem.join_parts(individual, 5, [*results, results[k]])
    with pytest.raises(ValueError, match="parts must be evaluated with the seed given here, 6"):
        problem.join_parts(individual, 6, results)
    with pytest.raises(TypeError, match="parts must hold results of evaluate_part, got int"):
        problem.join_parts(individual, 5, [*results[:-1], 3])
    with pytest.raises(TypeError, match="eval_seed must be an integer, got 1.5"):
        problem.evaluate_part(individual, 1.5, 0)
    for k in range(parts):  # any part missing
        with pytest.raises(ValueError, match="parts must hold the results of all"):
            problem.join_parts(individual, 5, results[:k] + results[k + 1:])


def test_a_problem_of_one_part_evaluates_it_whole() -> None:
    problem = hd.IndexProblem(n_samples=60, n_clusters=3, n_dims=2, target=0.5)
    problem, individual = prepared(problem)
    whole = problem.evaluate(individual)
    assert problem.evaluation_parts() == 1
    part = problem.evaluate_part(individual, None, 0)
    assert same_evaluation(problem.join_parts(individual, None, [part]), whole)
    with pytest.raises(ValueError, match="part must be 0: IndexProblem"):
        problem.evaluate_part(individual, None, 1)
    with pytest.raises(TypeError, match="part must be an integer, got 0.0"):
        problem.evaluate_part(individual, None, 0.0)
    with pytest.raises(ValueError, match="the one part of IndexProblem"):
        problem.join_parts(individual, None, [part, part])


def test_a_pool_of_two_sends_each_part_as_a_task_and_joins_them(monkeypatch) -> None:
    problem, _ = prepared(small_problem())
    individuals = [problem.random_individual(np.random.default_rng(i)) for i in range(5)]
    items = [(ind, 100 + i) for i, ind in enumerate(individuals)]
    serial = [problem.evaluate(ind, seed) for ind, seed in items]
    tasks: list[int] = []
    run = ProblemPool._run
    monkeypatch.setattr(ProblemPool, "_run",
                        lambda self, func, messages: tasks.append(len(messages))
                        or run(self, func, messages))
    for n_jobs, sent in ((2, 15), (1, 5)):  # one worker: whole evaluations
        tasks.clear()
        with ProblemPool(problem, n_jobs) as pool:
            pooled = call_with_timeout(lambda pool=pool: pool.evaluate(items), 120)
        assert tasks == [sent]
        assert all(same_evaluation(a, b) for a, b in zip(pooled, serial, strict=True))


def slow_kmeans(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    """K-means after a pause: a clustering that takes longer than single linkage."""
    from sklearn.cluster import KMeans

    time.sleep(0.03)
    return KMeans(n_clusters, n_init=1, random_state=seed).fit_predict(X)


def test_a_pool_sends_the_part_that_took_longest_first(monkeypatch) -> None:
    """The loser's clustering is the slow one: once a map has been timed after the first
    (the workers' start), every individual's loser part goes first; the evaluations are
    `evaluate`'s."""
    from hawks_deap.algorithms.pool import _unwire

    problem, _ = prepared(small_problem("single-linkage", slow_kmeans))
    items = [(problem.random_individual(np.random.default_rng(i)), 100 + i)
             for i in range(4)]
    serial = [problem.evaluate(ind, seed) for ind, seed in items]
    sent: list[list[int]] = []
    run = ProblemPool._run
    monkeypatch.setattr(ProblemPool, "_run", lambda self, func, messages: sent.append(
        [_unwire(m)[0] for m in messages]) or run(self, func, messages))
    with ProblemPool(problem, 2) as pool:
        for _ in range(3):
            pooled = call_with_timeout(lambda: pool.evaluate(items), 120)
            assert all(same_evaluation(a, b) for a, b in zip(pooled, serial, strict=True))
    assert sent[0] == sent[1] == [0] * 4 + [1] * 4 + [2] * 4
    # then the loser's first; the two short parts, each in a block, in either order
    second, rest = sent[2][:4], sent[2][4:]
    assert second == [1] * 4 and sorted(rest) == [0] * 4 + [2] * 4
    assert len(set(rest[:4])) == 1 and len(set(rest[4:])) == 1


# --------------------------------------------------------------------------- runs


def run_csv(problem: VersusProblem, **kwargs) -> tuple[str, list]:
    result = hd.evolve(problem, population_size=6, generations=4, p_f=0.75, seed=7, **kwargs)
    return result.best_dataset().to_csv_text(), [dict(row) for row in result.logbook]


def test_a_deap_script_with_the_pool_as_its_map_takes_the_fast_path(monkeypatch) -> None:
    """DEAP's eaSimple with `ProblemPool(problem, 2).map` as ``toolbox.map``: the toolbox
    evaluates through its snapshot of the problem, which the pool recognises (individuals
    alone, in parts), with the serial results; a snapshot changed since is sent whole."""
    import random

    from deap import algorithms, tools

    def run(pool=None):
        problem = small_problem()
        random.seed(3)
        toolbox = hd.make_toolbox(problem, seed=None)
        if pool is not None:
            toolbox.register("map", pool(problem).map)
        population = toolbox.population(6)
        stats = tools.Statistics(lambda ind: ind.fitness.values[0])
        stats.register("max", max)
        population, logbook = algorithms.eaSimple(population, toolbox, cxpb=0.7, mutpb=0.5,
                                                  ngen=2, stats=stats, verbose=False)
        return [ind.fitness.values for ind in population], list(logbook)

    serial = run()
    sent: list[tuple[bool, int]] = []
    real = ProblemPool._run
    monkeypatch.setattr(ProblemPool, "_run", lambda self, func, items: sent.append(
        (func is None, len(items))) or real(self, func, items))
    pools: list[ProblemPool] = []

    def make_pool(problem):
        pools.append(ProblemPool(problem, 2))
        return pools[-1]

    try:
        parallel = call_with_timeout(lambda: run(make_pool), 120)
    finally:
        for pool in pools:
            pool.close()
    assert parallel == serial
    assert sent[0] == (True, 18)  # the 6 initial individuals, three parts each
    assert all(parts for parts, _ in sent)
    problem = small_problem()
    toolbox = hd.make_toolbox(problem, seed=0)
    toolbox.problem.loser = get_algorithm("kmeans++")  # no longer the installed problem
    individual = toolbox.population(1)[0]
    sent.clear()
    with ProblemPool(problem, 2) as pool:
        assert (pool.map(toolbox.evaluate, [individual])[0].record
                == toolbox.evaluate(individual).record)
    assert sent == [(False, 1)]


@pytest.mark.parametrize("n_jobs, started", [(20, 12), (5, 5), (None, 3)])
def test_a_versus_run_starts_a_process_per_part_at_most(monkeypatch, n_jobs,
                                                        started) -> None:
    """P = 4 individuals, three parts each (two clusterings, the constraints): 12 tasks a
    generation at most; the default is one process per usable core (3 here). Index mode:
    one per individual."""
    from hawks_deap.algorithms import loop

    monkeypatch.setattr(loop, "usable_cores", lambda: 3)
    seen = []
    monkeypatch.setattr(loop._Run, "execute", lambda self, *, n_jobs, **k: seen.append(n_jobs))
    hd.evolve(small_problem(), population_size=4, generations=1, seed=0, n_jobs=n_jobs)
    hd.evolve(hd.IndexProblem(60, 2, 2, target=0.5), population_size=4, generations=1,
              seed=0, n_jobs=20)
    assert seen == [started, 4]


def test_n_jobs_1_and_2_give_identical_results() -> None:
    serial = run_csv(small_problem(), n_jobs=1)
    parallel = call_with_timeout(lambda: run_csv(small_problem(), n_jobs=2), 120)
    assert serial == parallel
    assert {"winner_score", "loser_score", "overlap", "penalty"} <= set(serial[1][-1])


def test_spawn_workers_give_identical_results(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocess

    serial = run_csv(small_problem(), n_jobs=1)
    monkeypatch.setattr(_parallel, "DEFAULT_START_METHOD", "spawn")
    assert call_with_timeout(lambda: run_csv(small_problem(), n_jobs=2), 180) == serial
    # A user's own spawn pool through map= (DEAP style).
    with multiprocess.get_context("spawn").Pool(2) as pool:
        assert call_with_timeout(lambda: run_csv(small_problem(), map=pool.map), 180) == serial


def test_failing_algorithm_in_a_pool_stops_the_run_naming_it() -> None:
    problem = small_problem("gmm", ClusteringAlgorithm("exploding", failing_algorithm))
    with pytest.raises(RuntimeError, match="'exploding' failed.*ValueError: boom"):
        call_with_timeout(lambda: hd.evolve(problem, population_size=4, generations=2,
                                            seed=0, n_jobs=2), 60)
    problem = small_problem(ClusteringAlgorithm("short", short_labels_algorithm), "gmm")
    with pytest.raises(RuntimeError, match="'short' returned labels of shape"):
        call_with_timeout(lambda: hd.evolve(problem, population_size=4, generations=2,
                                            seed=0, n_jobs=2), 60)


def test_killed_worker_is_reported_not_waited_for() -> None:
    problem, individual = prepared(
        small_problem("gmm", ClusteringAlgorithm("suicidal", suicidal_algorithm)))
    pool = ProblemPool(problem, 2)
    try:
        with pytest.raises(RuntimeError, match=r"died \(killed by signal 9"):
            call_with_timeout(lambda: pool.evaluate([(individual, 0), (individual, 1)]), 60)
    finally:
        pool.close()


def test_pool_timeout_and_unloadable_problem() -> None:
    problem, individual = prepared(
        small_problem("gmm", ClusteringAlgorithm("sleepy", sleepy_algorithm)))
    with ProblemPool(problem, 1, timeout=0.5) as pool:
        start = time.monotonic()
        with pytest.raises(TimeoutError, match="more than 0.5 s"):
            pool.evaluate([(individual, 0)])
        assert time.monotonic() - start < 5.0
    problem, individual = prepared(small_problem())
    problem.extra = _Unloadable()
    with ProblemPool(problem, 1) as pool:
        with pytest.raises(RuntimeError, match="could not be rebuilt in a worker process: "
                           "ImportError: no module named 'not_installed_here'"):
            call_with_timeout(lambda: pool.evaluate([(individual, 0)]), 60)
    with pytest.raises(RuntimeError, match="closed"):
        pool.evaluate([(individual, 0)])


def test_pool_workers_cap_their_threads_and_match_serial_results() -> None:
    problem, individual = prepared(small_problem("kmeans++", "gmm"))
    with ProblemPool(problem, 2, threads_per_worker=1) as pool:
        counts = pool.map(worker_thread_counts, range(2))
        results = pool.evaluate([(individual, s) for s in range(4)])
    assert all(n == 1 for worker in counts for n in worker)
    assert [r.record for r in results] == [problem.evaluate(individual, s).record
                                          for s in range(4)]


def test_fork_pool_after_parent_openmp_does_not_deadlock() -> None:
    from threadpoolctl import threadpool_limits

    X = np.random.default_rng(0).normal(size=(5000, 2))
    with threadpool_limits(limits=2):  # the parent runs a 2-thread OpenMP team first
        KMeans(n_clusters=5, n_init=1, random_state=0).fit(X)
    problem, individual = prepared(small_problem("gmm", "kmeans++", n_threads=None))
    with ProblemPool(problem, 2, timeout=60) as pool:
        if pool.start_method == "fork":
            assert pool.threads_per_worker == 1
        results = call_with_timeout(
            lambda: pool.evaluate([(individual, s) for s in range(4)]), 90)
    assert len(results) == 4


def test_multithreaded_workers_are_never_forked() -> None:
    problem, _ = prepared(small_problem())
    with ProblemPool(problem, 1, threads_per_worker=2) as pool:
        assert pool.start_method != "fork"
    problem, _ = prepared(small_problem(n_threads=2))
    with ProblemPool(problem, 1) as pool:
        assert pool.start_method != "fork"


def test_nsga2_versus_runs_and_is_identical_across_n_jobs() -> None:
    def run(n_jobs: int):
        result = hd.evolve(small_problem(), population_size=8, generations=2, seed=1,
                           algorithm="nsga2", n_jobs=n_jobs)
        front = [tuple(ind.fitness.values) for ind in result.pareto_front]
        return result.best_dataset().to_csv_text(), front

    serial = run(1)
    assert serial == call_with_timeout(lambda: run(2), 120)
    assert all(len(values) == 2 for values in serial[1])  # gap and overlap


def test_deap_algorithms_can_evaluate_without_seeds() -> None:
    import random

    from deap import algorithms

    problem = small_problem("kmeans++", "single-linkage")
    toolbox = hd.make_toolbox(problem, seed=0, p_f=0.75)
    random.seed(0)
    population = toolbox.population(n=6)
    population, logbook = algorithms.eaMuPlusLambda(
        population, toolbox, mu=6, lambda_=6, cxpb=0.5, mutpb=0.5, ngen=2, verbose=False)
    assert all(ind.fitness.valid and "winner_score" in ind.record for ind in population)


def test_example_runs_quickly(tmp_path: Path) -> None:
    figure = tmp_path / "versus.png"
    completed = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "versus.py"), "--quick", "--plot",
         str(figure), "--save", str(tmp_path / "dataset")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "MPLBACKEND": "Agg"})
    assert completed.returncode == 0, completed.stderr
    assert "gmm vs. single-linkage" in completed.stdout
    assert (tmp_path / "dataset" / "data.csv").exists()
    pytest.importorskip("matplotlib")
    assert figure.stat().st_size > 0


@pytest.mark.slow
def test_gmm_beats_single_linkage_by_at_least_0_9() -> None:
    """The issue's acceptance run: median gap over 5 seeds, paper settings, G=100."""
    gaps = []
    for seed in range(5):
        problem = VersusProblem("gmm", "single-linkage", n_samples=2000, n_clusters=5,
                                n_dims=2, constraints=[hd.Overlap(max=0.1)])
        result = hd.evolve(problem, generations=100, p_f=0.75, seed=seed, n_jobs=2)
        gaps.append(result.best.fitness.values[0])
    assert np.median(gaps) >= 0.9


def test_the_same_algorithm_under_two_names_and_spectral_below_its_neighbours_are_refused():
    from sklearn.cluster import KMeans

    for winner, loser in ((KMeans(), KMeans()),
                          ("sklearn.cluster:KMeans", "sklearn.cluster._kmeans:KMeans")):
        with pytest.raises(ValueError, match="must be different algorithms"):
            hd.VersusProblem(winner, loser, n_samples=100, n_clusters=2, n_dims=2)
    hd.VersusProblem(KMeans(), KMeans(n_init=3), n_samples=100, n_clusters=2, n_dims=2)
    with pytest.raises(ValueError, match="'spectral' needs n_samples >= n_neighbors = 10"):
        hd.VersusProblem("gmm", "spectral", n_samples=8, n_clusters=2, n_dims=2, min_size=1)
