import random

import numpy as np
import pytest
from deap import algorithms, tools

import hawks_deap as hd
from hawks_deap.operators import MEAN_MUTATIONS, record_penalty


def problem(**kw):
    args = dict(n_samples=240, n_clusters=4, n_dims=2, target=0.5,
                constraints=[hd.Overlap(max=0.1)])
    args.update(kw)
    return hd.IndexProblem(**args)


def test_evolve_result_and_logbook():
    r = hd.evolve(problem(), population_size=6, generations=8, seed=0)
    assert len(r.population) == 6 and len(r.logbook) == 9
    row = r.logbook[-1]
    for key in ("gen", "nevals", "fitness_best", "fitness_median", "n_feasible", "index",
                "overlap", "penalty"):
        assert key in row
    assert r.logbook[0]["nevals"] == 6
    assert all(row["nevals"] <= 6 for row in r.logbook[1:])
    # the best is the best feasible individual ever seen
    assert r.best.record["feasible"]
    assert r.best.fitness.values[0] <= min(
        ind.fitness.values[0] for ind in r.population if record_penalty(ind) == 0)
    assert r.best.fitness.values[0] == pytest.approx(abs(0.5 - r.best.record["index"]))
    assert hd.genome.genotype_equal(r.hall_of_fame[0], r.best)
    # fitness of best improves (non-increasing over the run in the hall of fame sense)
    assert r.best.fitness.values[0] <= r.logbook[0]["fitness_best"]


def test_reproducible_byte_identical_and_seed_sensitive():
    texts = []
    for _ in range(2):
        r = hd.evolve(problem(), population_size=6, generations=6, seed=42)
        texts.append(r.best_dataset().to_csv_text())
    assert texts[0] == texts[1]
    other = hd.evolve(problem(), population_size=6, generations=6, seed=43)
    assert other.best_dataset().to_csv_text() != texts[0]
    g = hd.evolve(problem(), population_size=6, generations=6,
                  seed=np.random.SeedSequence(42))
    assert g.best_dataset().to_csv_text() == texts[0]


def test_the_same_seed_object_twice_gives_the_same_run_and_result_seed_repeats_it():
    """A SeedSequence is not advanced by a run (no ``spawn``), and ``result.seed`` (an
    entropy list for a Generator seed) repeats the run."""
    def text(seed):
        r = hd.evolve(problem(), population_size=4, generations=2, seed=seed)
        return r, r.best_dataset().to_csv_text()

    ss = np.random.SeedSequence(42)
    assert text(ss)[1] == text(ss)[1] == text(42)[1]
    assert ss.n_children_spawned == 0
    spawned = np.random.SeedSequence(5).spawn(2)[1]  # a spawn key: the caller's to keep
    assert text(spawned)[1] == text(spawned)[1] != text(5)[1]
    r, first = text(np.random.default_rng(3))
    assert isinstance(r.seed, list) and text(r.seed)[1] == first
    with pytest.raises(TypeError, match="list of non-negative ints"):
        hd.evolve(problem(), seed=[1, -2])


def test_evolve_with_user_map_is_identical():
    a = hd.evolve(problem(), population_size=6, generations=5, seed=3)
    calls = []

    def counting_map(func, items):
        calls.append(len(items))
        return map(func, items)

    b = hd.evolve(problem(), population_size=6, generations=5, seed=3, map=counting_map)
    assert a.best_dataset().to_csv_text() == b.best_dataset().to_csv_text()
    assert calls == [row["nevals"] for row in b.logbook if row["nevals"]]
    # nothing changes (no crossover, no mutation): only the first population is mapped
    calls.clear()
    c = hd.evolve(problem(), population_size=6, generations=3, seed=3, map=counting_map,
                  p_crossover=0.0, p_mean=0.0, p_cov=0.0)
    assert calls == [6] and [row["nevals"] for row in c.logbook] == [6, 0, 0, 0]


def test_callbacks_can_stop_and_see_state():
    seen = []

    def cb(state):
        seen.append(state.generation)
        return state.generation >= 3

    r = hd.evolve(problem(), population_size=4, generations=50, seed=0, callbacks=[cb])
    assert seen == [1, 2, 3] and len(r.logbook) == 4 and r.generations_run == 3


def test_best_falls_back_to_smallest_penalty_when_never_feasible():
    p = problem(constraints=[hd.Overlap(min=0.99)])  # unreachable
    r = hd.evolve(p, population_size=4, generations=3, seed=0)
    assert len(r.hall_of_fame) == 0
    assert r.best.record["penalty"] > 0
    assert r.best.record["penalty"] <= min(record_penalty(i) for i in r.population)


def test_select_best_rule():
    def ind(fit, pen):
        i = hd.genome.Genotype([], hd.genome.IndexFitness())
        i.fitness.values = hd.genome.Evaluation((fit,), {"penalty": pen})
        return i

    a, b, c = ind(0.5, 0.0), ind(0.01, 2.0), ind(0.2, 0.0)
    assert hd.algorithms.select_best([a, b, c]) is c
    d, e = ind(0.01, 2.0), ind(0.3, 1.0)
    assert hd.algorithms.select_best([d, e]) is e
    assert hd.algorithms.select_best([]) is None


@pytest.mark.parametrize("op", list(MEAN_MUTATIONS))
def test_toolbox_runs_under_eamupluslambda(op):
    p = problem()
    toolbox = hd.make_toolbox(p, seed=1, mean_mutation=op)
    random.seed(1)
    pop = toolbox.population(n=6)
    for ind in pop:  # pso-informed needs an index value: evaluate the first population
        ind.fitness.values = toolbox.evaluate(ind)
    hof = tools.HallOfFame(3, similar=hd.genome.genotype_equal)
    pop, log = algorithms.eaMuPlusLambda(pop, toolbox, mu=6, lambda_=8, cxpb=0.4,
                                         mutpb=0.5, ngen=4, halloffame=hof, verbose=False)
    assert len(pop) == 6 and len(hof) >= 1
    assert all(ind.fitness.valid and "index" in ind.record for ind in pop)


def test_toolbox_registrations():
    toolbox = hd.make_toolbox(problem(), seed=0)
    for name in ("individual", "population", "evaluate", "mate", "mutate", "select",
                 "parent_select", "clone", "map"):
        assert hasattr(toolbox, name)
    a, b = toolbox.population(n=2)
    c = toolbox.clone(a)
    assert c is not a and hd.genome.genotype_equal(a, c)


def load_example(name):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parent.parent / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_nsga2_on_two_objective_form():
    example = load_example("toolbox_composition")
    front = example.run_nsga2(seed=0, generations=3, population_size=8, n_samples=200)
    assert len(front) >= 1
    for a in front:
        for b in front:
            assert not a.fitness.dominates(b.fitness)


@pytest.mark.parametrize("kwargs, match", [
    (dict(population_size=1), "population_size"),
    (dict(generations=0), "generations"),
    (dict(p_crossover=1.5), "p_crossover"),
    (dict(p_f=-0.1), "p_f"),
    (dict(mean_mutation="levy"), "'pso-informed'"),
    (dict(n_jobs=0), "n_jobs"),
    (dict(n_jobs=-1), r"n_jobs must be an integer in \[1, 1024\], got -1 \(a number of "
                      r"processes: -1 for every core is scikit-learn's convention"),
    (dict(p_mean=2.0), "p_mean"),
])
def test_evolve_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        hd.evolve(problem(), **kwargs)


def test_evolve_seed_type_error():
    with pytest.raises(TypeError, match="seed"):
        hd.evolve(problem(), seed="zero")


def test_serial_loop_holds_the_problems_loop_context():
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads():
        return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    seen = []
    problem = hd.IndexProblem(60, 3, 2, target=0.5)
    with threadpool_limits(limits=2, user_api="blas"):
        assert blas_threads() == {2}
        hd.evolve(problem, generations=2, seed=0,
                  callbacks=[lambda state: seen.append(blas_threads())])
        assert blas_threads() == {2}  # restored after the run
    assert seen == [{1}, {1}]


def test_serial_loop_prefetches_each_batch_and_a_user_map_does_not(batch_sizes):
    batches = batch_sizes(hd.IndexProblem, "prefetch")
    result = hd.evolve(problem(), population_size=6, generations=3, seed=3)
    assert batches == [row["nevals"] for row in result.logbook if row["nevals"]]
    assert batches[0] == 6
    batches.clear()
    hd.evolve(problem(), population_size=6, generations=3, seed=3, map=map)
    assert batches == []  # a user's map may evaluate elsewhere




def test_api_misuse_gets_named_errors_before_any_work():
    problem = hd.IndexProblem(100, 3, 2, target=0.5)
    with pytest.raises(TypeError, match="problem must be a hawks_deap Problem.*'abc'"):
        hd.evolve("abc")
    with pytest.raises(TypeError, match="problem must be"):
        hd.make_toolbox("abc")
    with pytest.raises(TypeError, match=r"callbacks must be an iterable of callables"):
        hd.evolve(problem, generations=1, callbacks=lambda state: None)

    def short_map(func, items):
        return list(map(func, list(items)[:-1]))

    with pytest.raises(ValueError, match="map returned 3 results for 4 individuals"):
        hd.evolve(problem, population_size=4, generations=1, map=short_map, seed=0)


def test_a_problem_reused_by_another_run_keeps_each_results_datasets():
    """Each run prepares the problem anew; a result keeps its own run's layout."""
    shared = problem()
    first, _ = (hd.evolve(shared, population_size=4, generations=2, seed=s) for s in (0, 1))
    alone = hd.evolve(problem(), population_size=4, generations=2, seed=0)
    assert first.best_dataset().to_csv_text() == alone.best_dataset().to_csv_text()
    with pytest.raises(ValueError, match="evaluated on another layout"):
        hd.Dataset.from_individual(shared, first.best)  # the shared problem's is run 1's


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(algorithm="nsga3", nsga3_divisions=0), ValueError, "nsga3_divisions must be >= 1"),
    (dict(algorithm="nsga3", nsga3_divisions=-2), ValueError, "nsga3_divisions must be >= 1"),
    (dict(population_size=0), ValueError, "population_size must be >= 2"),
    (dict(map=3), TypeError, "map must be a callable"),
])
def test_make_toolbox_checks_what_evolve_checks(kwargs, error, match):
    p = problem()
    if kwargs.get("algorithm") == "nsga3":
        p = p.as_multiobjective()
    with pytest.raises(error, match=match):
        hd.make_toolbox(p, **kwargs)


def own_mutation(individual, cluster, rng):
    return (individual,)


def test_a_checkpoint_needs_picklable_settings_before_the_run(tmp_path):
    path = tmp_path / "run.ckpt"
    with pytest.raises(TypeError, match="checkpoint= needs a problem and mean_mutation that "
                                        "pickle"):
        hd.evolve(problem(), mean_mutation=lambda i, c, r: (i,), checkpoint=path,
                  generations=2, population_size=2, seed=0)
    assert not path.exists()
    hd.evolve(problem(), mean_mutation=own_mutation, checkpoint=path, generations=2,
              population_size=2, seed=0)  # a module-level function pickles
    assert path.exists()
