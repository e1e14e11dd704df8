"""DEAP conformance: the toolbox of `make_toolbox` used the way a DEAP user writes it.

DEAP's own algorithms (eaSimple, eaMuPlusLambda, eaMuCommaLambda, a hand-written varAnd
loop) with every mean mutation, in Index and Versus mode; selection pressure under
eaSimple; pools of every start method after the parent has evaluated; DEAP's checkpoint
recipe; ``creator`` subclasses; a researcher's own mean operator; evaluations that lose
their record.
"""

import copy
import multiprocessing
import pickle
import random
import statistics
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from deap import algorithms, creator, tools

import hawks_deap as hd
from hawks_deap.operators import MEAN_MUTATIONS

TIMEOUT = 120


def run_with_timeout(fn, *args):
    with ThreadPoolExecutor(1) as ex:
        return ex.submit(fn, *args).result(timeout=TIMEOUT)


def index_problem(n_samples=120, n_clusters=3):
    return hd.IndexProblem(n_samples, n_clusters, 2, target=0.5,
                           constraints=[hd.Overlap(max=0.2)])


def versus_problem():
    return hd.VersusProblem(winner="kmeans++", loser="single-linkage", n_samples=90,
                            n_clusters=3, n_dims=2, constraints=[hd.Overlap(max=0.3)])


def evaluate_all(toolbox, population):
    invalid = [ind for ind in population if not ind.fitness.valid]
    for ind, fit in zip(invalid, toolbox.map(toolbox.evaluate, invalid), strict=True):
        ind.fitness.values = fit


def varand_loop(population, toolbox, ngen):
    """The loop of DEAP's tutorials, written out: select, varAnd, evaluate, replace."""
    evaluate_all(toolbox, population)
    for _ in range(ngen):
        offspring = algorithms.varAnd(toolbox.select(population, len(population)), toolbox,
                                      cxpb=0.7, mutpb=1.0)
        evaluate_all(toolbox, offspring)
        population[:] = toolbox.select(population + offspring, len(population))
    return population


RUNNERS = {
    "eaSimple": lambda pop, tb: algorithms.eaSimple(pop, tb, cxpb=0.7, mutpb=1.0, ngen=3,
                                                    verbose=False)[0],
    "eaMuPlusLambda": lambda pop, tb: algorithms.eaMuPlusLambda(
        pop, tb, mu=len(pop), lambda_=len(pop), cxpb=0.5, mutpb=0.5, ngen=3,
        verbose=False)[0],
    "eaMuCommaLambda": lambda pop, tb: algorithms.eaMuCommaLambda(
        pop, tb, mu=len(pop), lambda_=2 * len(pop), cxpb=0.5, mutpb=0.5, ngen=3,
        verbose=False)[0],
    "varAnd loop": lambda pop, tb: varand_loop(pop, tb, 3),
}


def _run_recipe(problem, mean, runner, seed=0):
    random.seed(seed)
    toolbox = hd.make_toolbox(problem, seed=seed, mean_mutation=mean)
    population = toolbox.population(n=6)
    initial = {ind.key for ind in population}
    final = RUNNERS[runner](population, toolbox)
    return initial, final


@pytest.mark.parametrize("runner", list(RUNNERS))
@pytest.mark.parametrize("mean", list(MEAN_MUTATIONS))
@pytest.mark.parametrize("mode", ["index", "versus"])
def test_every_mean_mutation_under_every_deap_algorithm(mode, mean, runner):
    problem = index_problem() if mode == "index" else versus_problem()
    if mode == "versus" and mean == "pso-informed":
        with pytest.raises(ValueError, match="pso-informed.*Index mode"):
            hd.make_toolbox(problem, seed=0, mean_mutation=mean)
        return
    initial, final = _run_recipe(problem, mean, runner)
    assert len(final) == 6
    assert all(ind.fitness.valid and "penalty" in ind.record for ind in final)
    assert {ind.key for ind in final} != initial  # the population evolved
    # the same seeds give the same run
    again = _run_recipe(problem, mean, runner)[1]
    assert [ind.key for ind in again] == [ind.key for ind in final]


def test_eaSimple_with_the_toolboxs_select_applies_selection_pressure():
    """Acceptance: mean error at most half of the initial in 15 generations (median of 3
    seeds, rails, N=500, K=4)."""
    ratios = []
    for seed in range(3):
        random.seed(seed)
        problem = hd.IndexProblem(500, 4, 2, target=0.5, constraints=[hd.Overlap(max=0.1)])
        toolbox = hd.make_toolbox(problem, seed=seed, mean_mutation="rails")
        population = toolbox.population(n=10)
        evaluate_all(toolbox, population)
        first = np.mean([ind.fitness.values[0] for ind in population])
        population, _ = algorithms.eaSimple(population, toolbox, cxpb=0.7, mutpb=1.0,
                                            ngen=15, verbose=False)
        ratios.append(np.mean([ind.fitness.values[0] for ind in population]) / first)
    assert statistics.median(ratios) <= 0.5, ratios


def test_select_keeps_survivors_or_draws_parents():
    problem = index_problem()
    toolbox = hd.make_toolbox(problem, seed=1)
    population = toolbox.population(n=8)
    evaluate_all(toolbox, population)
    survivors = toolbox.select(population, 4)
    assert len({id(i) for i in survivors}) == 4  # truncation: no repeats
    parents = toolbox.select(population, 8)
    assert len(parents) == 8 and len({id(i) for i in parents}) < 8  # tournaments repeat


def _pool_map_after_parent_evaluation(start_method):
    problem = versus_problem()
    toolbox = hd.make_toolbox(problem, seed=0)
    population = toolbox.population(n=4)
    serial = [toolbox.evaluate(ind) for ind in population]  # the parent evaluates first
    with multiprocessing.get_context(start_method).Pool(2) as pool:
        toolbox.register("map", pool.map)
        pooled = toolbox.map(toolbox.evaluate, population)
    return serial, pooled


@pytest.mark.parametrize("start_method", ["fork", "spawn", "forkserver"])
def test_versus_in_pools_of_every_start_method_after_a_parent_evaluation(start_method):
    serial, pooled = run_with_timeout(_pool_map_after_parent_evaluation, start_method)
    assert [p.record for p in pooled] == [s.record for s in serial]


def _checkpoint_loop(toolbox, population, start, stop, hof, logbook, path=None,
                     save_at=None):
    for gen in range(start, stop):
        offspring = algorithms.varAnd(toolbox.select(population, len(population)), toolbox,
                                      cxpb=0.7, mutpb=1.0)
        evaluate_all(toolbox, offspring)
        population[:] = toolbox.select(population + offspring, len(population))
        hof.update(population)
        logbook.record(gen=gen, best=min(i.fitness.values[0] for i in population))
        if gen + 1 == save_at:
            with open(path, "wb") as fh:  # DEAP's recipe, with the toolbox in it
                pickle.dump(dict(population=population, generation=gen + 1, halloffame=hof,
                                 logbook=logbook, rndstate=random.getstate(),
                                 toolbox=toolbox), fh)
    return population


def test_deap_checkpoint_recipe_with_the_toolbox_resumes_exactly(tmp_path):
    def fresh():
        random.seed(3)
        toolbox = hd.make_toolbox(index_problem(), seed=3, mean_mutation="pso-informed")
        population = toolbox.population(n=6)
        evaluate_all(toolbox, population)
        return toolbox, population, tools.HallOfFame(3, similar=hd.genome.genotype_equal), \
            tools.Logbook()

    toolbox, population, hof, logbook = fresh()
    straight = _checkpoint_loop(toolbox, population, 0, 6, hof, logbook)
    toolbox, population, hof, logbook = fresh()
    path = tmp_path / "checkpoint.pkl"
    _checkpoint_loop(toolbox, population, 0, 3, hof, logbook, path, save_at=3)
    random.seed(999)  # a new session: nothing survives but the file
    with open(path, "rb") as fh:
        cp = pickle.load(fh)
    random.setstate(cp["rndstate"])
    resumed = _checkpoint_loop(cp["toolbox"], cp["population"], cp["generation"], 6,
                               cp["halloffame"], cp["logbook"])
    assert [i.key for i in resumed] == [i.key for i in straight]
    assert [i.fitness.values for i in resumed] == [i.fitness.values for i in straight]


def _creator_classes():
    if not hasattr(creator, "HawksTestFitness"):
        creator.create("HawksTestFitness", hd.genome.RecordFitness, weights=(-1.0,))
        creator.create("HawksTestIndividual", hd.genome.Genotype,
                       fitness=creator.HawksTestFitness, origin="random")
    return creator.HawksTestFitness, creator.HawksTestIndividual


def test_creator_subclasses_keep_class_fitness_and_attributes():
    fitness_class, individual_class = _creator_classes()
    problem = index_problem()
    toolbox = hd.make_toolbox(problem, seed=0)
    individual = individual_class(toolbox.individual())
    assert type(individual.fitness) is fitness_class  # the declared fitness is kept
    individual.origin = "seeded"
    individual.fitness.values = problem.evaluate(individual)
    copies = [toolbox.clone(individual), copy.deepcopy(individual)]
    for other in copies:
        assert type(other) is individual_class and type(other.fitness) is fitness_class
    # DEAP pickles creator classes by value and re-creates them in deap.creator when
    # unpickling (so that spawned workers have them): compare by name after a pickle
    copies.append(pickle.loads(pickle.dumps(individual)))
    for other in copies:
        assert type(other).__name__ == "HawksTestIndividual"
        assert type(other.fitness).__name__ == "HawksTestFitness"
        assert other.origin == "seeded" and other.key == individual.key
        assert other.fitness.values == individual.fitness.values
        assert other.record == individual.record and other.fitness is not individual.fitness
    # a mutable attribute is the copy's own, as with DEAP's deepcopy of any individual
    individual.history = ["seeded"]
    for other in (toolbox.clone(individual), copy.deepcopy(individual)):
        other.history.append("mutated")
        assert other[0] is individual[0]  # the (immutable) genes are shared
    assert individual.history == ["seeded"]


def mut_mean_towards_centre(individual, cluster, rng, *, global_mean, shrink=0.5):
    """A researcher's operator: move the mean part of the way to the data's mean."""
    mu = individual[cluster].mean
    step = shrink * rng.uniform() * (global_mean - mu)
    individual[cluster] = individual[cluster].with_mean(mu + step)
    return (individual,)


def test_a_custom_mean_operator_plugs_in_everywhere(tmp_path):
    problem = index_problem(n_clusters=4)
    result = hd.evolve(problem, population_size=6, generations=4, seed=5,
                       mean_mutation=mut_mean_towards_centre, mean_kwargs={"shrink": 0.8})
    again = hd.evolve(index_problem(n_clusters=4), population_size=6, generations=4, seed=5,
                      mean_mutation=mut_mean_towards_centre, mean_kwargs={"shrink": 0.8})
    assert result.best_dataset().to_csv_text() == again.best_dataset().to_csv_text()
    assert result.settings["mean_mutation"] is mut_mean_towards_centre
    # the run saves, its metadata naming the operator (it once failed: a function in JSON)
    result.save(tmp_path / "run")
    saved = hd.Dataset.load(tmp_path / "run").metadata["evolve"]["mean_mutation"]
    assert saved == f"{__name__}.mut_mean_towards_centre"
    # under DEAP: mutate with the operator moves means towards the data's mean
    toolbox = hd.make_toolbox(problem, seed=0, mean_mutation=mut_mean_towards_centre,
                              p_mean=1.0, p_cov=0.0)
    individual = toolbox.individual()
    centre = problem.layout.data_mean(individual)
    before = np.linalg.norm(individual.means - centre, axis=1)
    toolbox.mutate(individual)
    assert np.all(np.linalg.norm(individual.means - centre, axis=1) <= before)


def test_bad_custom_mean_operators_are_refused_up_front():
    with pytest.raises(TypeError, match="mean_mutation"):
        hd.make_toolbox(index_problem(), mean_mutation=lambda individual: individual)
    with pytest.raises(TypeError, match="mean_mutation"):
        hd.make_toolbox(index_problem(), mean_mutation=42)

    def informed(individual, cluster, rng, *, index_value, target):
        return (individual,)

    with pytest.raises(ValueError, match="Index mode"):
        hd.make_toolbox(versus_problem(), mean_mutation=informed)


def test_the_algorithm_and_the_number_of_objectives_must_agree():
    """sel_hawks would compare several objectives lexicographically; NSGA needs several."""
    multi = index_problem().as_multiobjective()
    with pytest.raises(ValueError, match="algorithm='hawks' needs a single-objective problem, "
                                         "got 2 objectives"):
        hd.make_toolbox(multi, seed=0)
    with pytest.raises(ValueError, match="algorithm='nsga2' needs a multi-objective problem"):
        hd.make_toolbox(index_problem(), seed=0, algorithm="nsga2")
    assert hd.make_toolbox(multi, seed=0, algorithm="nsga2").select.func is tools.selNSGA2


def test_python_random_as_rng_is_accepted_and_reproducible():
    problem = index_problem()
    toolbox = hd.make_toolbox(problem, seed=0)
    toolbox.register("mutate", hd.operators.mutate, rng=random, layout=problem.layout,
                     mean_mutation="rails")
    toolbox.register("mate", hd.operators.cx_uniform, rng=random)
    runs = []
    parent = toolbox.individual()
    for _ in range(2):
        random.seed(11)
        a, b = toolbox.clone(parent), toolbox.clone(parent)
        toolbox.mate(a, b)
        toolbox.mutate(a)
        runs.append((a.key, b.key))
    assert runs[0] == runs[1]


def test_pso_informed_under_varand_uses_the_childs_last_index_value():
    problem = index_problem()
    toolbox = hd.make_toolbox(problem, seed=2, mean_mutation="pso-informed")
    population = toolbox.population(n=4)
    evaluate_all(toolbox, population)
    offspring = algorithms.varAnd(population, toolbox, cxpb=1.0, mutpb=1.0)
    assert all(not ind.fitness.valid for ind in offspring)
    assert all("index" in ind.fitness.last_record for ind in offspring)


def test_an_evaluate_that_drops_the_record_fails_with_a_clear_error():
    problem = index_problem()
    toolbox = hd.make_toolbox(problem, seed=0)
    toolbox.register("evaluate", lambda ind: (problem.evaluate(ind)[0],))
    population = toolbox.population(n=6)
    with pytest.raises(ValueError, match="no evaluation record"):
        algorithms.eaSimple(population, toolbox, cxpb=0.7, mutpb=1.0, ngen=1, verbose=False)
    toolbox.register("evaluate", lambda ind: problem.evaluate(ind)[0])  # a bare float
    population = toolbox.population(n=6)
    with pytest.raises(TypeError, match=r"sequence of 1 number.*\(value,\)"):
        algorithms.eaSimple(population, toolbox, cxpb=0.7, mutpb=1.0, ngen=1, verbose=False)


def test_a_population_resumed_with_a_toolbox_made_anew_is_refused():
    """Without its toolbox, a saved population meets a new layout: selection says so."""
    random.seed(0)
    toolbox = hd.make_toolbox(index_problem(), seed=None)
    population = toolbox.population(n=6)
    evaluate_all(toolbox, population)
    saved = pickle.loads(pickle.dumps(population))  # the population alone
    fresh = hd.make_toolbox(index_problem(), seed=None)  # another layout
    with pytest.raises(ValueError, match="different layouts"):
        algorithms.eaMuPlusLambda(saved, fresh, mu=6, lambda_=6, cxpb=0.5, mutpb=0.5, ngen=1,
                                  verbose=False)
    # with its own toolbox (pickled with it), the same population goes on
    algorithms.eaMuPlusLambda(saved, toolbox, mu=6, lambda_=6, cxpb=0.5, mutpb=0.5, ngen=1,
                              verbose=False)


def test_evaluations_carry_the_layout_key_through_pools_and_copies():
    problem = index_problem()
    toolbox = hd.make_toolbox(problem, seed=0)
    individual = toolbox.individual()
    individual.fitness.values = toolbox.evaluate(individual)
    assert individual.fitness.layout_key == problem.layout.key
    again = pickle.loads(pickle.dumps(individual))
    assert again.fitness.layout_key == problem.layout.key
    assert copy.deepcopy(individual).fitness.layout_key == problem.layout.key
    assert pickle.loads(pickle.dumps(problem)).layout.key == problem.layout.key


def test_the_feasible_hall_of_fame_keeps_the_best_individuals_that_meet_the_constraints():
    # The guide's first recipe (eaMuPlusLambda, overlap <= 0.1): DEAP's HallOfFame compares
    # fitness only, so it fills with infeasible individuals; FeasibleHallOfFame holds the
    # best feasible ones of everything it was shown (the brute-force oracle below).
    seen = []

    class Recorder(hd.algorithms.FeasibleHallOfFame):
        def update(self, population):
            seen.extend(population)
            super().update(population)

    problem = hd.IndexProblem(300, 4, 2, target=0.5, constraints=[hd.Overlap(max=0.1)])
    infeasible_in_plain = 0
    for seed in range(2):
        seen.clear()
        toolbox = hd.make_toolbox(problem, seed=seed, mean_mutation="rails")
        random.seed(seed)
        population = toolbox.population(n=10)
        hof, plain = Recorder(5), tools.HallOfFame(5)
        algorithms.eaMuPlusLambda(population, toolbox, mu=10, lambda_=10, cxpb=0.5,
                                  mutpb=0.5, ngen=10, halloffame=_Both(hof, plain),
                                  verbose=False)
        feasible = {}
        for ind in seen:
            if hd.operators.record_penalty(ind) == 0.0:
                feasible.setdefault(ind.key, ind.fitness.values[0])
        expected = sorted(feasible.values())[:5]
        assert [ind.fitness.values[0] for ind in hof] == expected
        assert all(hd.operators.record_penalty(ind) == 0.0 for ind in hof)
        infeasible_in_plain += sum(hd.operators.record_penalty(ind) > 0.0 for ind in plain)
    assert infeasible_in_plain > 0  # the case the class exists for


class _Both:
    """A halloffame argument that updates two halls of fame (eaMuPlusLambda calls update)."""

    def __init__(self, *halls):
        self.halls = halls

    def update(self, population):
        for hall in self.halls:
            hall.update(population)


def test_a_feasible_hall_of_fame_refuses_a_bad_size_or_similar():
    for size in (0, -1, 2.5, True, "5"):
        with pytest.raises((TypeError, ValueError), match="maxsize"):
            hd.algorithms.FeasibleHallOfFame(size)
    with pytest.raises(TypeError, match="similar must be a callable"):
        hd.algorithms.FeasibleHallOfFame(3, similar=1)


def test_a_plain_hall_of_fame_from_an_old_checkpoint_is_adopted():
    problem = index_problem()
    toolbox = hd.make_toolbox(problem, seed=1)
    population = toolbox.population(n=4)
    evaluate_all(toolbox, population)
    plain = tools.HallOfFame(3, similar=hd.genome.genotype.genotype_equal)
    plain.update([ind for ind in population if hd.operators.record_penalty(ind) == 0.0])
    assert len(plain) > 0
    adopted = hd.algorithms.FeasibleHallOfFame.adopt(pickle.loads(pickle.dumps(plain)))
    assert isinstance(adopted, hd.algorithms.FeasibleHallOfFame)
    assert [ind.key for ind in adopted] == [ind.key for ind in plain]
    assert hd.algorithms.FeasibleHallOfFame.adopt(adopted) is adopted
