"""Individuals and problems pickle; populations evaluate in spawn pools without hanging."""

import multiprocessing
import pickle
from concurrent.futures import ThreadPoolExecutor

import multiprocess
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
        return a.best_dataset().to_csv_text(), b.best_dataset().to_csv_text()

    a, b = run_with_timeout(both)
    assert a == b


def test_n_jobs_really_uses_the_process_pool(batch_sizes):
    import hawks_deap._parallel as parallel

    calls = batch_sizes(parallel.ProblemPool, "evaluate")

    def run():
        return hd.evolve(hd.IndexProblem(200, 3, 2, 0.5), population_size=6, generations=2,
                         seed=1, n_jobs=2)

    run_with_timeout(run)
    assert calls and calls[0] == 6


def test_wire_reuses_genes_within_a_byte_budget(monkeypatch):
    import numpy as np

    import hawks_deap._parallel as parallel

    p = prepared_problem()
    rng = np.random.default_rng(3)
    pop = [p.random_individual(rng) for _ in range(4)]
    monkeypatch.setattr(parallel, "_WORKER_GENES", {})
    monkeypatch.setattr(parallel, "_WORKER_GENE_BYTES", 0)
    first = pickle.loads(parallel._to_wire(pop))
    again = pickle.loads(parallel._to_wire(pop))
    for ind, a, b in zip(pop, first, again, strict=True):
        assert type(a) is type(ind) and [g.key for g in a] == [g.key for g in ind]
        assert all(x is y for x, y in zip(a, b, strict=True))  # held genes are reused
        assert all(np.array_equal(x.rotation, y.rotation) for x, y in zip(a, ind, strict=True))
    gene_bytes = sum(g.mean.nbytes + g.variances.nbytes + g.rotation.nbytes for g in pop[0])
    assert parallel._WORKER_GENE_BYTES == 4 * gene_bytes
    # past the budget the worker starts over: it never holds more than the budget
    monkeypatch.setattr(parallel, "WORKER_GENE_BYTES", 2 * gene_bytes)
    monkeypatch.setattr(parallel, "_WORKER_GENES", {})
    monkeypatch.setattr(parallel, "_WORKER_GENE_BYTES", 0)
    pickle.loads(parallel._to_wire(pop))
    assert 0 < parallel._WORKER_GENE_BYTES <= 2 * gene_bytes
    assert len(parallel._WORKER_GENES) == 6 and pop[3][2].key in parallel._WORKER_GENES


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
