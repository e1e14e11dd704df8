"""Individuals and problems pickle; populations evaluate in spawn pools without hanging."""

import multiprocessing
import pickle
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


def test_evolve_n_jobs_identical_to_serial():
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


def test_n_jobs_shares_index_batches_with_helper_processes(monkeypatch):
    import hawks_deap._parallel as parallel

    submitted = []
    real = parallel.HelperPool.submit

    def spy(self, helper, items):
        submitted.append((helper, len(items)))
        return real(self, helper, items)

    monkeypatch.setattr(parallel.HelperPool, "submit", spy)

    def run():
        return hd.evolve(hd.IndexProblem(200, 3, 2, 0.5), population_size=6, generations=2,
                         seed=1, n_jobs=3)

    run_with_timeout(run)
    # the first batch (no costs measured yet) is split evenly: 2 each for the 2 helpers
    # (later splits follow measured costs: timing, not tested here)
    assert submitted[:2] == [(0, 2), (1, 2)]


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


def _marked(n, value):
    """A prepared `_Marked` problem, ``n`` random individuals, the first one marked."""
    p = _Marked(200, 3, 2, target=0.5, constraints=[hd.Overlap(max=0.1)])
    p.prepare(np.random.default_rng(0))
    pop = _population(p, n)
    genes = list(pop[0])
    genes[0] = hd.Cluster(np.r_[value, genes[0].mean[1:]], genes[0].variances,
                          genes[0].rotation)
    return p, pop, hd.Genotype(genes, type(pop[0].fitness)())


def _serial_records(problem, pop):
    return [problem.evaluate(ind, i).record for i, ind in enumerate(pop)]


def _split(problem, n_helpers, **kwargs):
    from hawks_deap._parallel import HelperPool, SplitEvaluate

    pool = HelperPool(problem, n_helpers, **kwargs)
    return pool, SplitEvaluate(pool, lambda pair: problem.evaluate(*pair), problem.prefetch)


def _population(problem, n, seed=5):
    rng = np.random.default_rng(seed)
    return [problem.random_individual(rng) for _ in range(n)]


def test_split_evaluate_matches_serial_in_order_whatever_the_split():
    p = prepared_problem()
    pop = _population(p, 7)
    serial = _serial_records(p, pop)

    def run():
        pool, split = _split(p, 2)
        with pool:
            out = [split([(ind, i) for i, ind in enumerate(pop)])]
            split.costs.update(c_var=0.0, c_own=1.0, c_help=1e-9, latency=0.0)
            assert split.shares(7) == [3, 4]  # helpers almost free: they take everything
            out.append(split([(ind, i) for i, ind in enumerate(pop)]))
            split.costs.update(c_own=1e-9, c_help=1.0)
            assert split.shares(7) == [0, 0]  # helpers dear: this process keeps the batch
            out.append(split(((ind, i) for i, ind in enumerate(pop)), 7))
            return out

    for results in run_with_timeout(run):
        assert [r.record for r in results] == serial


def test_helpers_get_held_genes_by_key_within_their_budget(monkeypatch):
    import hawks_deap._parallel as parallel

    p = prepared_problem()
    pop = _population(p, 6)
    gene_bytes = sum(g.mean.nbytes + g.variances.nbytes + g.rotation.nbytes for g in pop[0])
    sizes = []
    real = parallel._encode

    def spy(obj, mirror=None):
        blob = real(obj, mirror)
        if mirror is not None:
            sizes.append(len(blob))
        return blob

    monkeypatch.setattr(parallel, "_encode", spy)

    def run(budget, batches):
        monkeypatch.setattr(parallel, "WORKER_GENE_BYTES", budget)
        pool, split = _split(p, 1)
        out = []
        with pool:
            for batch in batches:
                # the helper takes every individual (costs as if it were free)
                split.costs.update(c_var=0.0, c_own=1.0, c_help=1e-9, latency=0.0)
                out.append(split([(ind, i) for i, ind in enumerate(batch)]))
        return out

    serial = _serial_records(p, pop)
    # the same individuals twice: the second time their genes go as keys
    for results in run_with_timeout(run, 1 << 20, [pop, pop]):
        assert [r.record for r in results] == serial
    assert sizes[1] < sizes[0] / 3
    # a budget of 2 genotypes: the tables start over again and again, in step
    sizes.clear()
    shuffled = [pop[i] for i in (3, 0, 5, 1, 4, 2)]
    batches = [pop, shuffled, pop, shuffled[::-1]]
    for results, batch in zip(run_with_timeout(run, 2 * gene_bytes, batches), batches,
                              strict=True):
        assert [r.record for r in results] == _serial_records(p, batch)


def test_split_shares_balance_finishing_times():
    from hawks_deap._parallel import SplitEvaluate

    class Pool:
        n_helpers = 1

    split = SplitEvaluate(Pool(), lambda pair: None)
    assert split.shares(10) == [5]  # nothing measured: even
    split.costs.update(c_var=0.2, c_own=1.0, c_help=1.3, latency=0.3)
    # helpers finish at w (c_var + c_help) + latency, this process at n c_var + (n - w) c_own
    w = split.shares(10)[0]
    finish = [w * 1.5 + 0.3, 10 * 0.2 + (10 - w) * 1.0]
    for other in (w - 1, w + 1):
        assert max(finish) <= max(other * 1.5 + 0.3, 2.0 + (10 - other) * 1.0)
    Pool.n_helpers = 3
    assert sum(split.shares(10)) <= 10 and len(split.shares(10)) == 3


def test_split_evaluate_sends_a_share_before_the_batch_is_complete():
    p = prepared_problem()
    pop = _population(p, 6)
    made = []

    def pairs():
        for i, ind in enumerate(pop):
            made.append(i)
            yield ind, i

    def run():
        pool, split = _split(p, 1)
        when = []
        real = pool.submit
        pool.submit = lambda helper, items: (when.append(len(made)), real(helper, items))[1]
        with pool:
            return split(pairs(), 6), when

    results, when = run_with_timeout(run)
    assert when == [3]  # the helper's 3 left when 3 of 6 had been made
    assert [r.record for r in results] == _serial_records(p, pop)


def test_helper_errors_are_raised_with_their_traceback_and_the_pool_goes_on():
    p, pop, bad = _marked(4, 1e9)

    def run():
        pool, split = _split(p, 1)
        with pool:
            with pytest.raises(ValueError, match="a marked individual") as info:
                split([(bad, 0), (pop[1], 1), (pop[2], 2), (pop[3], 3)])
            assert "Helper process traceback" in str(info.value.__cause__)
            assert "_Marked" in str(info.value.__cause__) or "evaluate" in str(
                info.value.__cause__)
            # the caller's own failure while a share is out: that share is collected
            def failing():
                yield pop[0], 0
                yield pop[1], 1
                raise KeyError("mutation failed")

            with pytest.raises(KeyError, match="mutation failed"):
                split(failing(), 4)
            return split([(ind, i) for i, ind in enumerate(pop)])

    results = run_with_timeout(run)
    assert [r.record for r in results] == _serial_records(p, pop)


def test_killed_helper_is_reported_not_waited_for():
    p, pop, doomed = _marked(2, 2e9)

    def run():
        pool, split = _split(p, 1)
        with pool:
            with pytest.raises(RuntimeError, match=r"helper process .*died \(killed by "
                                                   r"signal 9"):
                split([(doomed, 0), (pop[1], 1)])
            with pytest.raises(RuntimeError, match="closed"):
                pool.submit(0, [(pop[1], 1)])

    run_with_timeout(run)


def test_helpers_under_spawn_and_with_dill_only_individuals():
    p = prepared_problem()
    pop = _population(p, 4)

    class LocalFitness(hd.IndexFitness):  # plain pickle refuses it: dill carries it
        pass

    local = [hd.Genotype(list(ind), LocalFitness()) for ind in pop]

    def run():
        pool, split = _split(p, 1, start_method="spawn")
        with pool:
            assert pool.start_method == "spawn"
            return split([(ind, i) for i, ind in enumerate(local)])

    results = run_with_timeout(run)
    assert [r.record for r in results] == _serial_records(p, pop)


def test_wire_reuses_genes_within_a_byte_budget(monkeypatch):
    import numpy as np

    import hawks_deap._parallel as parallel

    p = prepared_problem()
    rng = np.random.default_rng(3)
    pop = [p.random_individual(rng) for _ in range(4)]
    monkeypatch.setattr(parallel, "_WORKER_TABLE", None)
    first = pickle.loads(parallel._to_wire(pop))
    again = pickle.loads(parallel._to_wire(pop))
    for ind, a, b in zip(pop, first, again, strict=True):
        assert type(a) is type(ind) and [g.key for g in a] == [g.key for g in ind]
        assert all(x is y for x, y in zip(a, b, strict=True))  # held genes are reused
        assert all(np.array_equal(x.rotation, y.rotation) for x, y in zip(a, ind, strict=True))
        for x in a:  # rebuilt without hashing: the keys are those of their arrays
            fresh = type(x)(x.mean, x.variances, x.rotation)
            assert (x.key, x.shape_key) == (fresh.key, fresh.shape_key)
            assert not any(v.flags.writeable for v in (x.mean, x.variances, x.rotation))
    gene_bytes = sum(g.mean.nbytes + g.variances.nbytes + g.rotation.nbytes for g in pop[0])
    assert parallel._WORKER_TABLE.size == 4 * gene_bytes
    # past the budget the worker starts over: it never holds more than the budget
    monkeypatch.setattr(parallel, "WORKER_GENE_BYTES", 2 * gene_bytes)
    monkeypatch.setattr(parallel, "_WORKER_TABLE", None)  # a new worker, that budget
    pickle.loads(parallel._to_wire(pop))
    table = parallel._WORKER_TABLE
    assert table.budget == 2 * gene_bytes and 0 < table.size <= 2 * gene_bytes
    assert len(table.genes) == 6 and pop[3][2].key in table.genes


def test_pool_sends_what_plain_pickle_cannot_by_dill():
    import numpy as np

    from hawks_deap._parallel import ProblemPool, _to_wire

    class LocalFitness(hd.IndexFitness):  # a class of a function: plain pickle refuses it
        pass

    p = prepared_problem()
    ind = p.random_individual(np.random.default_rng(4))
    local = hd.Genotype(list(ind), LocalFitness())
    assert _to_wire([(local, 0)]) is None

    def both():
        with ProblemPool(p, 2) as pool:
            return pool.evaluate([(local, 0), (ind, 1), (ind, 2)])

    results = run_with_timeout(both)
    assert [r.record for r in results] == [p.evaluate(ind).record] * 3
