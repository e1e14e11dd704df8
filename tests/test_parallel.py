"""One parallel path: a pool's ``map`` as ``toolbox.map``; the same results from any map."""

import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import multiprocess
import numpy as np
import pytest

import hawks_deap as hd

TIMEOUT = 120


def prepared_problem():
    import numpy as np

    p = hd.IndexProblem(200, 3, 2, target=0.5, constraints=[hd.Overlap(max=0.1)])
    p.prepare(np.random.default_rng(0))
    return p


def evaluate_in(problem, population):
    return [problem.evaluate(ind) for ind in population]


def test_individuals_and_problems_pickle():
    import numpy as np

    p = prepared_problem()
    ind = p.random_individual(np.random.default_rng(1))
    ind.fitness.values = p.evaluate(ind)
    back = pickle.loads(pickle.dumps(ind))
    assert back.fitness.values == ind.fitness.values and back.record == ind.record
    q = pickle.loads(pickle.dumps(p))
    assert q.evaluate(ind) == p.evaluate(ind)
    assert q.evaluate(ind).record == p.evaluate(ind).record


def run_with_timeout(fn, *args):
    with ThreadPoolExecutor(1) as ex:
        return ex.submit(fn, *args).result(timeout=TIMEOUT)


def _pool_evaluate(pool_module):
    import numpy as np

    p = prepared_problem()
    rng = np.random.default_rng(2)
    pop = [p.random_individual(rng) for _ in range(6)]
    toolbox = hd.make_toolbox(p, seed=0)
    ctx = pool_module.get_context("spawn")
    with ctx.Pool(2) as pool:
        toolbox.register("map", pool.map)
        fits = list(toolbox.map(toolbox.evaluate, pop))
    serial = [toolbox.evaluate(ind) for ind in pop]
    return fits, serial


@pytest.mark.parametrize("pool_module", [multiprocessing, multiprocess],
                         ids=["multiprocessing", "multiprocess"])
def test_population_evaluates_in_spawn_pool(pool_module):
    fits, serial = run_with_timeout(_pool_evaluate, pool_module)
    assert [tuple(f) for f in fits] == [tuple(s) for s in serial]
    assert [f.record for f in fits] == [s.record for s in serial]


def test_evolve_n_jobs_identical_to_serial(pool_always):
    def both():
        a = hd.evolve(hd.IndexProblem(200, 3, 2, 0.5, constraints=[hd.Overlap(max=0.1)]),
                      population_size=4, generations=3, seed=9)
        b = hd.evolve(hd.IndexProblem(200, 3, 2, 0.5, constraints=[hd.Overlap(max=0.1)]),
                      population_size=4, generations=3, seed=9, n_jobs=2)
        c = hd.evolve(hd.IndexProblem(200, 3, 2, 0.5, constraints=[hd.Overlap(max=0.1)]),
                      population_size=5, generations=3, seed=9, n_jobs=3)
        d = hd.evolve(hd.IndexProblem(200, 3, 2, 0.5, constraints=[hd.Overlap(max=0.1)]),
                      population_size=5, generations=3, seed=9)
        return [r.best_dataset().to_csv_text() for r in (a, b, c, d)] + [
            [ind.key for ind in r.population] for r in (c, d)]

    a, b, c, d, pop_c, pop_d = run_with_timeout(both)
    assert a == b and c == d and pop_c == pop_d


class _Marked(hd.IndexProblem):
    """Fails (``ValueError``) or kills its process for individuals marked by a huge mean."""

    def evaluate(self, individual, eval_seed=None):
        import os
        import signal

        first = float(individual[0].mean[0])
        if first == 1e9:
            raise ValueError("a marked individual")
        if first == 2e9:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().evaluate(individual, eval_seed)


def _population(problem, n, seed=5):
    rng = np.random.default_rng(seed)
    return [problem.random_individual(rng) for _ in range(n)]


def _marked(n, value):
    """A prepared `_Marked` problem, ``n`` random individuals, the first one marked."""
    p = _Marked(200, 3, 2, target=0.5, constraints=[hd.Overlap(max=0.1)])
    p.prepare(np.random.default_rng(0))
    pop = _population(p, n)
    genes = list(pop[0])
    genes[0] = hd.genome.Cluster(np.r_[value, genes[0].mean[1:]], genes[0].variances,
                          genes[0].rotation)
    return p, pop, hd.genome.Genotype(genes, type(pop[0].fitness)())


def _run_csv(**kwargs):
    problem = hd.IndexProblem(300, 4, 2, 0.5, constraints=[hd.Overlap(max=0.1)])
    result = hd.evolve(problem, population_size=6, generations=3, seed=4, **kwargs)
    return result.best_dataset().to_csv_text(), [ind.key for ind in result.population]


@pytest.fixture
def pool_always(monkeypatch):
    """Start a pool for ``n_jobs > 1`` whatever the run's size (these runs are tiny)."""
    from hawks_deap.algorithms import pool

    monkeypatch.setattr(pool, "POOL_MIN_WORK", 0)


def test_n_jobs_registers_the_pool_map_and_ships_individuals(monkeypatch, pool_always):
    from hawks_deap.algorithms.pool import EvaluateTask, ProblemPool

    calls = []
    real = ProblemPool.map

    def spy(self, func, iterable):
        items = list(iterable)
        calls.append((type(func), len(items)))
        return real(self, func, items)

    monkeypatch.setattr(ProblemPool, "map", spy)
    assert run_with_timeout(lambda: _run_csv(n_jobs=2)) == _run_csv()
    assert calls and all(kind is EvaluateTask for kind, _ in calls)
    assert calls[0][1] == 6  # the initial population in one call


def _multiprocess_map():
    with multiprocess.get_context("spawn").Pool(2) as pool:
        return _run_csv(map=pool.map)


def _futures_map():
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:
        return _run_csv(map=ex.map)


def _dask_map():
    from dask.distributed import Client

    with Client(processes=False, n_workers=1, threads_per_worker=2,
                dashboard_address=None) as client:
        return _run_csv(map=lambda f, items: client.gather(client.map(f, list(items),
                                                                      pure=False)))


@pytest.mark.parametrize("make", [_multiprocess_map, _futures_map, _dask_map],
                         ids=["multiprocess", "concurrent.futures", "dask"])
def test_a_users_map_gives_the_serial_results(make):
    assert run_with_timeout(make) == _run_csv()


@pytest.mark.parametrize("start_method", ["fork", "spawn", "forkserver"])
def test_pool_map_of_deap_style_evaluate_in_every_start_method(start_method):
    from hawks_deap.algorithms.pool import ProblemPool

    p = prepared_problem()
    pop = _population(p, 5)
    toolbox = hd.make_toolbox(p, seed=0)
    p.evaluate(pop[0])  # the parent has evaluated before the pool starts

    def run():
        with ProblemPool(p, 2, start_method=start_method) as pool:
            assert pool.start_method == start_method
            return pool.map(toolbox.evaluate, pop)  # DEAP's own call

    results = run_with_timeout(run)
    assert [r.record for r in results] == [p.evaluate(ind).record for ind in pop]


def test_task_errors_are_raised_and_the_pool_goes_on():
    from hawks_deap.algorithms.pool import ProblemPool

    p, pop, marked = _marked(3, 1e9)

    def run():
        with ProblemPool(p, 2) as pool:
            with pytest.raises(ValueError, match="a marked individual"):
                pool.evaluate([(pop[1], 0), (marked, 1)])
            return pool.evaluate([(ind, i) for i, ind in enumerate(pop)])

    results = run_with_timeout(run)
    assert [r.record for r in results] == [p.evaluate(ind, i).record
                                           for i, ind in enumerate(pop)]


class _NeedsTwo(Exception):
    """An exception pickle cannot rebuild (its ``__init__`` takes two arguments)."""

    def __init__(self, a, b):
        super().__init__(f"{a} and {b}")


def _raise_needs_two(x):
    raise _NeedsTwo(x, "more")


def _fail_on_two(x):
    if x == 2:
        raise KeyError(f"item {x}")
    return x * 10


def test_a_task_error_carries_the_workers_traceback_and_the_first_one_is_raised():
    from hawks_deap.algorithms.pool import ProblemPool, WorkerTraceback

    def run():
        with ProblemPool(None, 2) as pool:
            with pytest.raises(KeyError, match="item 2") as raised:
                pool.map(_fail_on_two, range(6))
            cause = raised.value.__cause__
            assert isinstance(cause, WorkerTraceback)
            assert "_fail_on_two" in str(cause) and "raise KeyError" in str(cause)
            # rebuilt where the pickling in use can (tblib's, once dask is imported), else
            # a RuntimeError that says so
            with pytest.raises((RuntimeError, _NeedsTwo)) as unloadable:
                pool.map(_raise_needs_two, [1])
            assert isinstance(unloadable.value, _NeedsTwo) or "could not be rebuilt here" \
                in str(unloadable.value)
            return pool.map(_fail_on_two, [0, 1, 3])  # every pipe still in step

    assert run_with_timeout(run) == [0, 10, 30]


def test_threads_sharing_a_pool_each_get_their_own_results():
    from hawks_deap.algorithms.pool import ProblemPool

    def run():
        with ProblemPool(None, 2) as pool, ThreadPoolExecutor(4) as threads:
            calls = [threads.submit(pool.map, abs, range(-k * 10, -k * 10 + 7))
                     for k in range(8)]
            return [call.result(timeout=TIMEOUT) for call in calls]

    assert run_with_timeout(run) == [[abs(x) for x in range(-k * 10, -k * 10 + 7)]
                                     for k in range(8)]


def test_an_idle_worker_that_died_is_reported_by_the_next_call_and_the_pool_closes():
    import signal

    from hawks_deap.algorithms.pool import ProblemPool

    def run():
        pool = ProblemPool(None, 2)
        assert pool.map(abs, [-1, -2]) == [1, 2]
        os.kill(pool._workers[1].pid, signal.SIGKILL)
        pool._workers[1].join(timeout=10)
        with pytest.raises(RuntimeError, match=r"\(pid \d+\) died \(killed by signal 9"):
            pool.map(abs, [-3, -4, -5])
        with pytest.raises(RuntimeError, match="died"):  # the pool takes no more work
            pool.map(abs, [-6])
        pool.close()
        assert all(w.exitcode is not None for w in pool._workers)

    run_with_timeout(run)


def test_an_interrupted_call_leaves_a_pool_that_refuses_more_work(monkeypatch):
    """A Ctrl-C while tasks run: their answers would reach the next call, so none comes."""
    import multiprocess.connection as connection

    from hawks_deap.algorithms.pool import ProblemPool

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    def run():
        with ProblemPool(None, 2) as pool:
            monkeypatch.setattr(connection, "wait", interrupted)
            with pytest.raises(KeyboardInterrupt):
                pool.map(abs, [-1, -2, -3])
            monkeypatch.undo()
            with pytest.raises(RuntimeError, match="interrupted"):
                pool.map(abs, [-1])

    run_with_timeout(run)


def test_the_workers_of_a_parent_that_died_end():
    """A parent killed with its pool open (no close, no atexit) leaves no worker behind:
    each sees its pipe closed."""
    code = textwrap.dedent("""
        import os
        from hawks_deap.algorithms.pool import ProblemPool
        pool = ProblemPool(None, 2)
        assert pool.map(abs, [-1, -2]) == [1, 2]
        print(" ".join(str(w.pid) for w in pool._workers), flush=True)
        os._exit(0)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    pids = [int(pid) for pid in done.stdout.split()]
    assert len(pids) == 2
    import time

    deadline = time.monotonic() + 20
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in pids if _running(pid)]
        time.sleep(0.05)
    assert not alive


def _running(pid):
    """Whether process ``pid`` exists and is not a zombie."""
    if not os.path.isdir("/proc"):  # no /proc here: ask the kernel (a zombie counts)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_killed_worker_is_reported_not_waited_for():
    from hawks_deap.algorithms.pool import ProblemPool

    p, pop, doomed = _marked(2, 2e9)

    def run():
        with ProblemPool(p, 1) as pool:
            with pytest.raises(RuntimeError, match=r"worker process .*pid \d+.*died \(killed "
                                                   r"by signal 9"):
                pool.evaluate([(doomed, 0), (pop[1], 1)])
        with pytest.raises(RuntimeError, match="closed"):
            pool.evaluate([(pop[1], 1)])

    run_with_timeout(run)


def test_pool_carries_individuals_of_a_local_fitness_class():
    from hawks_deap.algorithms.pool import ProblemPool

    class LocalFitness(hd.genome.IndexFitness):  # a class of a function: dill carries it
        pass

    p = prepared_problem()
    ind = p.random_individual(np.random.default_rng(4))
    local = hd.genome.Genotype(list(ind), LocalFitness())

    def run():
        with ProblemPool(p, 2) as pool:
            return pool.evaluate([(local, 0), (ind, 1), (ind, 2)])

    results = run_with_timeout(run)
    assert [r.record for r in results] == [p.evaluate(ind).record] * 3


def test_a_pool_made_before_the_problem_is_prepared_again_evaluates_the_new_layout():
    """evolve prepares the problem anew; the copy the workers hold has the old layout."""
    from hawks_deap.algorithms.pool import ProblemPool

    def fitnesses(result):
        return [ind.fitness.values for ind in result.population]

    problem = hd.IndexProblem(80, 3, 2, target=0.5)
    problem.prepare(np.random.default_rng(9))
    with ProblemPool(problem, 2) as pool:
        pooled = hd.evolve(problem, seed=0, generations=2, population_size=4, map=pool.map)
    serial = hd.evolve(hd.IndexProblem(80, 3, 2, target=0.5), seed=0, generations=2,
                       population_size=4)
    assert fitnesses(pooled) == fitnesses(serial)


# ----------------------------------------------------------------- when a pool cannot pay


def test_serial_reason_by_hand():
    from hawks_deap.algorithms.pool import POOL_MIN_WORK, serial_reason

    least = POOL_MIN_WORK  # one bound, with or without the C kernels
    small = hd.IndexProblem(2000, 5, 2, target=0.5)
    small.prepare(np.random.default_rng(0))
    reason = serial_reason(small, 10)
    # 10 x 2000 x (5 + 2) = 140,000, config a of benchmarks/bench_index.py
    assert reason is not None and "= 140,000 <" in reason and "serially" in reason
    assert f"< {least:,} (POOL_MIN_WORK)" in reason
    # the same layout with enough individuals crosses the bound exactly where it says
    just = -(-least // (2000 * 7))
    assert serial_reason(small, just) is None
    assert serial_reason(small, just - 1) is not None
    big = hd.IndexProblem(100_000, 20, 2, target=0.5)
    big.prepare(np.random.default_rng(0))
    assert serial_reason(big, 10) is None  # 22,000,000: the scale config
    # measured faster with a pool (BENCHMARKS, "Where the pool starts to pay", "A pool's
    # messages"), and c not
    for n, k, d, pooled in [(10_000, 20, 2, True), (20_000, 20, 2, True),
                            (50_000, 20, 2, True), (7_000, 10, 20, True),
                            (2_000, 30, 50, False)]:
        problem = hd.IndexProblem(n, k, d, target=0.5)
        problem.prepare(np.random.default_rng(0))
        assert (serial_reason(problem, 10) is None) is pooled, (n, k, d)


def test_serial_reason_never_refuses_versus_or_unknown_costs():
    from hawks_deap.algorithms.pool import serial_reason

    versus = hd.VersusProblem("kmeans++", "single-linkage", n_samples=60, n_clusters=2,
                              n_dims=2)
    versus.prepare(np.random.default_rng(0))
    assert serial_reason(versus, 2) is None  # clustering calls: always worth a pool

    class Opaque:  # a user's problem whose layout says nothing of N and D
        parallel_by_default = False
        layout = object()
        n_clusters = 3

    assert serial_reason(Opaque(), 2) is None


def test_evaluation_work_by_hand():
    from hawks_deap.algorithms.pool import ITEM_MIN_WORK, evaluation_work

    problem = hd.IndexProblem(2000, 5, 2, target=0.5)
    assert evaluation_work(problem) is None  # not prepared: no layout yet
    problem.prepare(np.random.default_rng(0))
    assert evaluation_work(problem) == 2000 * (5 + 2)
    big = hd.IndexProblem(100_000, 20, 2, target=0.5)
    big.prepare(np.random.default_rng(0))
    assert evaluation_work(big) == 2_200_000 >= ITEM_MIN_WORK  # the scale config

    class Opaque:  # a user's problem whose layout says nothing of N and D
        layout = object()
        n_clusters = 3

    assert evaluation_work(Opaque()) is None


@pytest.mark.parametrize("offset, per_item", [(0, True), (1, False)])
def test_heavy_index_evaluations_go_one_per_task(monkeypatch, offset, per_item):
    """At ITEM_MIN_WORK and above a pool sends one evaluation per task; the map's result,
    and a run's, do not depend on it."""
    from hawks_deap.algorithms import pool as pool_module

    problem = hd.IndexProblem(300, 4, 2, 0.5, constraints=[hd.Overlap(max=0.1)])
    problem.prepare(np.random.default_rng(0))
    monkeypatch.setattr(pool_module, "ITEM_MIN_WORK", 300 * (4 + 2) + offset)
    rng = np.random.default_rng(1)
    individuals = [problem.random_individual(rng) for _ in range(5)]
    sent = []
    real = pool_module.ProblemPool._run

    def spy(self, func, items):
        sent.append(len(items))
        return real(self, func, items)

    monkeypatch.setattr(pool_module.ProblemPool, "_run", spy)

    def evaluate():
        with pool_module.ProblemPool(problem, 2, start_method="spawn") as pool:
            assert pool.per_item is per_item
            return pool.map(problem.evaluate, individuals)

    values = run_with_timeout(evaluate)
    assert sent == [5 if per_item else 2]  # tasks: one per individual, or per worker
    assert [tuple(v) for v in values] == [tuple(problem.evaluate(i)) for i in individuals]


def test_a_run_is_the_same_with_batches_or_single_tasks(monkeypatch, pool_always):
    from hawks_deap.algorithms import pool as pool_module

    serial = _run_csv()
    monkeypatch.setattr(pool_module, "ITEM_MIN_WORK", 0)
    assert run_with_timeout(lambda: _run_csv(n_jobs=2)) == serial
    monkeypatch.setattr(pool_module, "ITEM_MIN_WORK", 1 << 62)
    assert run_with_timeout(lambda: _run_csv(n_jobs=2)) == serial


def test_a_cheap_run_with_n_jobs_evaluates_serially_and_says_why(monkeypatch, caplog):
    import logging

    from hawks_deap.algorithms.pool import ProblemPool

    started = []
    monkeypatch.setattr(ProblemPool, "__init__",
                        lambda self, *a, **k: started.append(a) or 1 / 0)
    with caplog.at_level(logging.INFO, logger="hawks_deap.algorithms.loop"):
        two = _run_csv(n_jobs=2)
    assert not started  # no pool was even built
    assert two == _run_csv()
    lines = [r.getMessage() for r in caplog.records
             if r.name == "hawks_deap.algorithms.loop"]
    assert len(lines) == 1
    assert lines[0].startswith("n_jobs=2: P x N x (K + D) = 6 x 300 x (4 + 2) = 10,800")


def test_genotypes_travel_as_plain_pickle_and_results_come_back(monkeypatch):
    """The pool writes batches with the C pickler, not dill (BENCHMARKS: 25x sooner)."""
    from hawks_deap.algorithms import pool as pool_module

    wired = []
    real = pool_module._wire

    def spy(value, plain=True):
        out = real(value, plain)
        wired.append(out[:1])
        return out

    monkeypatch.setattr(pool_module, "_wire", spy)  # parent side only (fork copies it)
    p = prepared_problem()
    pop = _population(p, 4)

    def run():
        with pool_module.ProblemPool(p, 2, start_method="spawn") as pool:
            return pool.evaluate([(ind, i) for i, ind in enumerate(pop)])

    results = run_with_timeout(run)
    assert wired == [b"P", b"P"]  # one batch per worker, each by the C pickler
    assert [r.record for r in results] == [p.evaluate(ind, i).record
                                           for i, ind in enumerate(pop)]
    assert [tuple(r) for r in results] == [tuple(p.evaluate(ind, i))
                                           for i, ind in enumerate(pop)]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity masks here")
def test_usable_cores_are_the_affinity_masks_not_the_machines():
    """A batch job or taskset gives a process fewer cores than the machine has: Versus
    mode's default processes and the threads per worker count those it may use."""
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from hawks_deap._util.workers import usable_cores, default_threads_per_worker; "
            "import hawks_deap as hd; from hawks_deap.algorithms.loop import _default_n_jobs; "
            "p = hd.VersusProblem('kmeans++', 'single-linkage', n_samples=60, n_clusters=2, "
            "n_dims=2); print(usable_cores(), default_threads_per_worker(1), "
            "_default_n_jobs(p, None, 10))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    assert out == ["1", "1", "1"]
    from hawks_deap._util.workers import usable_cores

    assert usable_cores() == len(os.sched_getaffinity(0)) <= (os.cpu_count() or 1)


def test_a_pool_whose_idle_workers_were_killed_closes():
    """A SIGTERM to the process group (a batch scheduler's) kills idle workers, one of
    which holds the task queue's read lock while it waits: closing the pool used to wait
    for that lock forever."""
    code = textwrap.dedent("""
        import os, signal, time
        import numpy as np
        import hawks_deap as hd
        from hawks_deap.algorithms.pool import ProblemPool
        problem = hd.IndexProblem(60, 2, 2, target=0.5)
        problem.prepare(np.random.default_rng(0))
        pool = ProblemPool(problem, 2)
        pool.map(problem.evaluate,
                 [problem.random_individual(np.random.default_rng(i)) for i in range(4)])
        time.sleep(0.5)  # idle: a worker waits for a task, holding the read lock
        for worker in pool._workers:
            os.kill(worker.pid, signal.SIGTERM)
        time.sleep(0.5)
        pool.close()
        print("closed")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "closed", done.stderr


def test_a_pool_call_longer_than_its_timeout_raises_naming_it():
    import time as time_module

    from hawks_deap.algorithms.pool import ProblemPool

    with ProblemPool(None, 2, timeout=0.5) as pool:
        start = time_module.monotonic()
        with pytest.raises(TimeoutError, match=r"^1 tasks of the evaluation pool took more "
                                               r"than 0\.5 s$"):
            pool.map(time_module.sleep, [5.0])
        assert time_module.monotonic() - start < 3.0
