"""DEAP users' own conventions, written as DEAP's documentation writes them (issue 31).

1. Seeding: ``random.seed(...)`` (and ``numpy.random.seed``), then a toolbox made with no
   seed and ``eaMuPlusLambda``, twice: the same run (``seed=None`` draws from ``random``).
2. DEAP's checkpoint tutorial (population, generation, hall of fame, logbook,
   ``random.getstate()``, ``numpy.random.get_state()``), stopped at generation 3 and
   resumed in a NEW process with a toolbox made again the same way: the logbook and the
   final population are those of an uninterrupted run.
3. One problem, several toolboxes (islands): each toolbox keeps its own layout, so an
   island gives what it gives alone, genotypes and fitness values.
4. A plain ``base.Fitness`` with an operator that reads the evaluation record
   (``pso-informed``): a TypeError naming the fitness class and the one to use.
"""

import pickle
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from deap import algorithms, base, creator, tools

import hawks_deap as hd


def index_problem():
    return hd.IndexProblem(120, 3, 2, target=0.5, constraints=[hd.Overlap(max=0.2)])


def statistics():
    stats = tools.Statistics(lambda ind: ind.fitness.values)
    stats.register("avg", np.mean)
    stats.register("min", np.min)
    return stats


def snapshot(population, logbook=None):
    """What two runs must share: genotypes, fitness values and the logbook."""
    return ([ind.key for ind in population], [ind.fitness.values for ind in population],
            None if logbook is None else [dict(row) for row in logbook])


# -- 1. DEAP's seeding convention ---------------------------------------------------------

def _seeded_deap_run(seed, mean_mutation="pso-informed"):
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 - DEAP users' convention, reproduced
    toolbox = hd.make_toolbox(index_problem(), mean_mutation=mean_mutation)  # no seed
    population = toolbox.population(n=6)
    population, logbook = algorithms.eaMuPlusLambda(
        population, toolbox, mu=6, lambda_=6, cxpb=0.5, mutpb=0.5, ngen=3,
        stats=statistics(), verbose=False)
    return snapshot(population, logbook)


@pytest.mark.parametrize("mean_mutation", ["pso-informed", "rails"])
def test_random_seed_repeats_a_toolbox_made_without_a_seed(mean_mutation):
    first = _seeded_deap_run(0, mean_mutation)
    assert _seeded_deap_run(0, mean_mutation) == first
    assert _seeded_deap_run(1, mean_mutation)[0] != first[0]  # the seed matters


def test_a_toolbox_made_before_random_seed_warns_as_deaps_examples_lay_it_out():
    # DEAP's onemax.py: the toolbox at import, random.seed(64) in main(); without a seed
    # the layout came from the unseeded `random`, so each run differed, silently
    script = textwrap.dedent("""
        import random, warnings
        import hawks_deap as hd
        toolbox = hd.make_toolbox(hd.IndexProblem(120, 3, 2, target=0.5))
        def main():
            random.seed(64)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                population = toolbox.population(n=4)
                toolbox.population(n=4)  # once only
            print(len(caught), caught[0].category.__name__ if caught else "")
            print(caught[0].message if caught else "")
            print(toolbox.problem.layout.key)  # (sizes and draws: the data)
        main()
    """)
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           timeout=300) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
        count, message, _ = run.stdout.splitlines()
        assert count == "1 RuntimeWarning"
        assert "before random.seed(...) was called again" in message
    assert runs[0].stdout.splitlines()[2] != runs[1].stdout.splitlines()[2]  # the harm
    # seeded first (DEAP's convention as this package documents it), or other draws
    # between the toolbox and its population: no warning
    import warnings

    for between in (lambda: None, lambda: random.random(), lambda: random.setstate(
            random.getstate())):
        random.seed(3)
        toolbox = hd.make_toolbox(index_problem())
        between()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            toolbox.population(n=2)
    # seeded before the toolbox and again in main(), as DEAP's examples do when they also
    # seed at the top: the layout repeats, so no warning (it once warned)
    random.seed(64)
    toolbox = hd.make_toolbox(index_problem())
    random.seed(64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        toolbox.population(n=2)


def test_random_seed_repeats_evolve_make_hawks_and_the_operators_without_a_seed():
    def run():
        return hd.evolve(index_problem(), population_size=4, generations=2)

    random.seed(5)
    first = run()
    random.seed(5)
    again = run()
    assert first.best_dataset().to_csv_text() == again.best_dataset().to_csv_text()
    assert first.logbook == again.logbook
    # the seed drawn from `random` is recorded: it repeats the run without random.seed
    replay = hd.evolve(index_problem(), population_size=4, generations=2, seed=first.seed)
    assert replay.best_dataset().to_csv_text() == first.best_dataset().to_csv_text()

    datasets = []
    for _ in range(2):
        random.seed(6)
        datasets.append(hd.make_hawks(n_samples=90, n_clusters=3, generations=2,
                                      population_size=4))
    assert all(np.array_equal(a, b) for a, b in zip(*datasets, strict=True))

    toolbox = hd.make_toolbox(index_problem(), seed=0)
    parent = toolbox.individual()
    children = []
    for _ in range(2):  # DEAP's habit: the operators' own default draws from `random`
        random.seed(7)
        a, b = toolbox.clone(parent), toolbox.clone(parent)
        hd.operators.cx_uniform(a, b)
        hd.operators.mutate(a, layout=toolbox.problem.layout, mean_mutation="rails")
        children.append((a.key, b.key))
    assert children[0] == children[1]


def test_an_int_seed_does_not_depend_on_random():
    runs = []
    for state in (0, 1):
        random.seed(state)
        toolbox = hd.make_toolbox(index_problem(), seed=3)
        population = toolbox.population(n=6)
        random.seed(0)  # DEAP's algorithm draws the same; the toolbox draws its own
        population, _ = algorithms.eaMuPlusLambda(population, toolbox, mu=6, lambda_=6,
                                                  cxpb=0.5, mutpb=0.5, ngen=2, verbose=False)
        runs.append(snapshot(population))
    assert runs[0] == runs[1]


# -- 2. DEAP's checkpoint tutorial, resumed in a new process --------------------------------

TUTORIAL = '''
"""DEAP's checkpoint tutorial (doc/tutorials/advanced/checkpoint.rst), hawks-deap toolbox."""
import pickle
import random
import sys

import numpy
from deap import algorithms, creator, tools

import hawks_deap as hd

random.seed(64)
numpy.random.seed(64)
creator.create("FitnessMin", hd.genome.RecordFitness, weights=(-1.0,))
creator.create("Individual", hd.genome.Genotype, fitness=creator.FitnessMin)

problem = hd.IndexProblem(120, 3, 2, target=0.5, constraints=[hd.Overlap(max=0.2)])
toolbox = hd.make_toolbox(problem)
toolbox.register("individual", tools.initIterate, creator.Individual, toolbox.individual)
toolbox.register("population", tools.initRepeat, list, toolbox.individual)

NGEN, FREQ, CXPB, MUTPB = int(sys.argv[1]), 1, 0.5, 0.5


def main(checkpoint=None):
    if checkpoint:
        # A file name has been given, then load the data from the file
        with open(checkpoint, "rb") as cp_file:
            cp = pickle.load(cp_file)
        population = cp["population"]
        start_gen = cp["generation"]
        halloffame = cp["halloffame"]
        logbook = cp["logbook"]
        random.setstate(cp["rndstate"])
        numpy.random.set_state(cp["np_rndstate"])
    else:
        # Start a new evolution
        population = toolbox.population(n=6)
        start_gen = 0
        halloffame = tools.HallOfFame(maxsize=1)
        logbook = tools.Logbook()

    stats = tools.Statistics(lambda ind: ind.fitness.values)
    stats.register("avg", numpy.mean)
    stats.register("max", numpy.max)

    for gen in range(start_gen, NGEN):
        population = algorithms.varAnd(population, toolbox, cxpb=CXPB, mutpb=MUTPB)

        # Evaluate the individuals with an invalid fitness
        invalid_ind = [ind for ind in population if not ind.fitness.valid]
        fitnesses = toolbox.map(toolbox.evaluate, invalid_ind)
        for ind, fit in zip(invalid_ind, fitnesses):
            ind.fitness.values = fit

        halloffame.update(population)
        record = stats.compile(population)
        logbook.record(gen=gen, evals=len(invalid_ind), **record)

        population = toolbox.select(population, k=len(population))

        if gen % FREQ == 0:
            # the generation to start from: the tutorial's ``generation=gen`` would redo gen
            cp = dict(population=population, generation=gen + 1, halloffame=halloffame,
                      logbook=logbook, rndstate=random.getstate(),
                      np_rndstate=numpy.random.get_state())
            with open("checkpoint_name.pkl", "wb") as cp_file:
                pickle.dump(cp, cp_file)
    return population, logbook, halloffame


population, logbook, halloffame = main(sys.argv[3] if len(sys.argv) > 3 else None)
with open(sys.argv[2], "wb") as fh:
    pickle.dump({"population": [(ind.key, ind.fitness.values) for ind in population],
                 "logbook": [dict(row) for row in logbook],
                 "halloffame": [(ind.key, ind.fitness.values) for ind in halloffame],
                 "layout": problem.layout.key}, fh)
'''


def _run_script(directory, *args):
    script = directory / "tutorial.py"
    script.write_text(textwrap.dedent(TUTORIAL))
    done = subprocess.run([sys.executable, str(script), *map(str, args)], cwd=directory,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with open(directory / args[1], "rb") as fh:
        return pickle.load(fh)


def test_deap_checkpoint_tutorial_resumes_exactly_in_a_new_process(tmp_path):
    straight_dir, stopped_dir = tmp_path / "straight", tmp_path / "stopped"
    straight_dir.mkdir()
    stopped_dir.mkdir()
    straight = _run_script(straight_dir, 6, "out.pkl")
    stopped = _run_script(stopped_dir, 4, "out.pkl")  # generations 0-3, then it stops
    assert stopped["logbook"] == straight["logbook"][:4]
    resumed = _run_script(stopped_dir, 6, "resumed.pkl", "checkpoint_name.pkl")
    assert [row["gen"] for row in resumed["logbook"]] == list(range(6))
    assert resumed["logbook"] == straight["logbook"]
    assert resumed["population"] == straight["population"]
    assert resumed["halloffame"] == straight["halloffame"]
    assert resumed["layout"] == straight["layout"]


def test_a_checkpoint_resumed_with_a_toolbox_of_another_layout_is_refused(tmp_path):
    """Without the same random.seed before make_toolbox, the layout differs: refused."""
    random.seed(0)
    toolbox = hd.make_toolbox(index_problem())
    population = toolbox.population(n=6)
    population, logbook = algorithms.eaMuPlusLambda(population, toolbox, mu=6, lambda_=6,
                                                    cxpb=0.5, mutpb=0.5, ngen=2,
                                                    verbose=False)
    path = tmp_path / "checkpoint.pkl"
    with open(path, "wb") as fh:
        pickle.dump(dict(population=population, generation=2, logbook=logbook,
                         rndstate=random.getstate()), fh)
    random.seed(999)  # another session, seeded otherwise before its toolbox
    again = hd.make_toolbox(index_problem())
    with open(path, "rb") as fh:
        cp = pickle.load(fh)
    random.setstate(cp["rndstate"])
    message = r"different layouts.*random\.seed.*random\.getstate"
    with pytest.raises(ValueError, match=message):  # select: saved and new values mixed
        algorithms.eaMuPlusLambda(cp["population"], again, mu=6, lambda_=6, cxpb=0.5,
                                  mutpb=0.5, ngen=1, verbose=False)
    with pytest.raises(ValueError, match=message):  # mutate: every saved one mutated first
        algorithms.varAnd(cp["population"], again, cxpb=0.0, mutpb=1.0)


# -- 3. one problem, several toolboxes (islands) --------------------------------------------

def _island_run(toolbox, ngen=3):
    random.seed(0)
    population = toolbox.population(n=6)
    population, logbook = algorithms.eaMuPlusLambda(population, toolbox, mu=6, lambda_=6,
                                                    cxpb=0.5, mutpb=0.5, ngen=ngen,
                                                    stats=statistics(), verbose=False)
    return population, logbook


def test_toolboxes_made_from_one_problem_are_independent_islands():
    problem = index_problem()
    islands = [hd.make_toolbox(problem, seed=s, mean_mutation="pso-informed")
               for s in range(3)]
    for seed, toolbox in enumerate(islands):
        alone = hd.make_toolbox(index_problem(), seed=seed, mean_mutation="pso-informed")
        population, logbook = _island_run(toolbox)
        expected = _island_run(alone)
        assert snapshot(population, logbook) == snapshot(*expected)
        assert toolbox.problem.layout.key == alone.problem.layout.key
        assert {ind.fitness.layout_key for ind in population} == {toolbox.problem.layout.key}
        # the island's datasets come from its own problem
        assert hd.Dataset.from_individual(toolbox.problem, population[0]).X.shape == (120, 2)
    assert len({tb.problem.layout.key for tb in islands}) == 3
    assert problem.layout.key == islands[-1].problem.layout.key  # the last one made


def test_island_migration_asks_for_migrants_to_be_evaluated_again():
    problem = index_problem()
    islands = [hd.make_toolbox(problem, seed=s) for s in range(2)]
    demes = [_island_run(toolbox, ngen=1)[0] for toolbox in islands]
    tools.migRing(demes, 1, tools.selBest)
    with pytest.raises(ValueError, match=r"different layouts.*toolbox\.evaluate\(ind\)"):
        islands[0].select(demes[0], 3)
    for deme, toolbox in zip(demes, islands, strict=True):  # what the message says
        for ind in deme:
            ind.fitness.values = toolbox.evaluate(ind)
    assert len(islands[0].select(demes[0], 3)) == 3


def test_multiobjective_toolboxes_of_one_problem_are_independent():
    problem = index_problem().as_multiobjective()
    first = hd.make_toolbox(problem, seed=0, algorithm="nsga2")
    key = first.problem.layout.key
    hd.make_toolbox(problem, seed=1, algorithm="nsga2")
    assert first.problem.layout.key == key != problem.layout.key
    individual = first.individual()
    assert first.evaluate(individual).layout_key == key


# -- 4. a plain DEAP fitness with an operator that reads the record -------------------------

def _plain_fitness_classes():
    if not hasattr(creator, "FitnessMinR2"):
        creator.create("FitnessMinR2", base.Fitness, weights=(-1.0,))
        creator.create("IndividualR2", hd.genome.Genotype, fitness=creator.FitnessMinR2)
    return creator.FitnessMinR2, creator.IndividualR2


def test_a_plain_deap_fitness_is_refused_by_name_by_pso_informed():
    _, individual_class = _plain_fitness_classes()
    random.seed(0)
    toolbox = hd.make_toolbox(index_problem(), mean_mutation="pso-informed")
    toolbox.register("individual", tools.initIterate, individual_class, toolbox.individual)
    toolbox.register("population", tools.initRepeat, list, toolbox.individual)
    population = toolbox.population(n=6)
    for ind, fit in zip(population, toolbox.map(toolbox.evaluate, population), strict=True):
        ind.fitness.values = fit
    message = r"FitnessMinR2 \(a plain deap\.base\.Fitness\).*genotype\.IndexFitness.*RecordFitness"
    with pytest.raises(TypeError, match=message):
        toolbox.mutate(population[0])
    with pytest.raises(TypeError, match="FitnessMinR2 keeps no evaluation record.*RecordFitness"):
        toolbox.select(population, 3)
    with pytest.raises(TypeError, match="FitnessMinR2"):  # under a DEAP algorithm too
        algorithms.eaMuPlusLambda(population, toolbox, mu=6, lambda_=6, cxpb=0.0, mutpb=1.0,
                                  ngen=1, verbose=False)


def test_an_invalid_fitness_reads_as_deaps_does_and_selection_refuses_it():
    """``ind.fitness.values`` of a fitness never evaluated, or deleted by ``varAnd``, is
    ``()`` as DEAP's own ``base.Fitness`` gives (the oracle); our selections refuse such
    individuals instead of ranking them on nothing."""
    creator.create("ConventionsFitnessMin", base.Fitness, weights=(-1.0,))
    try:
        oracle = creator.ConventionsFitnessMin()
        toolbox = hd.make_toolbox(index_problem(), seed=0)
        population = toolbox.population(n=4)
        assert population[0].fitness.values == oracle.values == ()
        population[0].fitness.values = toolbox.evaluate(population[0])
        oracle.values = population[0].fitness.values
        offspring = algorithms.varAnd([toolbox.clone(population[0])], toolbox, 1.0, 1.0)
        del oracle.values
        assert offspring[0].fitness.values == oracle.values == ()
        assert not offspring[0].fitness.valid
        for select in (toolbox.select, toolbox.rank):
            with pytest.raises(ValueError, match=r"3 of 4 have no valid fitness "
                                                 r"\(positions 1, 2, 3\)"):
                select(population, 2)
        for ind in population[1:]:
            ind.fitness.values = toolbox.evaluate(ind)
        assert len(toolbox.select(population, 2)) == 2
    finally:
        del creator.ConventionsFitnessMin
