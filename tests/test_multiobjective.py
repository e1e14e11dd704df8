import pickle

import numpy as np
import pytest
from deap import tools

import hawks_deap as hd
from hawks_deap.metrics import adjusted_rand_index
from hawks_deap.operators import sel_nsga3, sel_tournament_crowded


def index_problem(**kw):
    args = dict(n_samples=300, n_clusters=4, n_dims=2, target=0.2,
                constraints=[hd.Overlap(max=0.0)])
    args.update(kw)
    return hd.IndexProblem(**args)


def dominates(a, b):
    wa, wb = np.array(a.fitness.wvalues), np.array(b.fitness.wvalues)
    return bool(np.all(wa >= wb) and np.any(wa > wb))


def test_as_multiobjective_weights_and_values():
    p = index_problem(constraints=[hd.Overlap(max=0.1), hd.Eccentricity(min=3.0)])
    mo = p.as_multiobjective()
    assert mo.weights == (-1.0, -1.0, 1.0)
    assert mo.objective_names == ("fitness", "overlap", "eccentricity")
    assert p.as_multiobjective(["eccentricity"]).weights == (-1.0, 1.0)
    two_sided = index_problem(constraints=[hd.Overlap(min=0.05, max=0.1)]).as_multiobjective()
    assert two_sided.weights == (-1.0, -1.0)
    mo.prepare(np.random.default_rng(0))
    ind = mo.random_individual(np.random.default_rng(1))
    ev = mo.evaluate(ind)
    assert ev[0] == pytest.approx(abs(0.2 - ev.record["index"]))
    assert ev[1] == ev.record["overlap"] and ev[2] == ev.record["eccentricity"]
    ind.fitness.values = ev
    back = pickle.loads(pickle.dumps(ind))
    assert back.fitness.weights == (-1.0, -1.0, 1.0) and back.fitness.values == tuple(ev)
    assert pickle.loads(pickle.dumps(mo)).weights == mo.weights


def test_nsga2_front_is_non_dominated_with_three_distinct_points():
    # s_t = 0.2 needs overlapping clusters; overlap wanted 0: conflicting objectives
    r = hd.evolve(index_problem(), algorithm="nsga2", population_size=12, generations=30,
                  seed=0)
    front = list(r.pareto_front)
    assert len({ind.fitness.values for ind in front}) >= 3
    for a in front:
        for b in front:
            assert not dominates(a, b)
    # every evaluated individual in the final population is dominated by or equal to
    # some front member
    for ind in r.population:
        assert any(dominates(f, ind) or f.fitness.values == ind.fitness.values for f in front)


def test_nsga3_three_objectives_returns_front_and_is_reproducible():
    p = index_problem(constraints=[hd.Overlap(max=0.0), hd.Eccentricity(min=5.0)])
    r1 = hd.evolve(p, algorithm="nsga3", population_size=12, generations=8, seed=4)
    assert len(r1.pareto_front) >= 1 and len(r1.pareto_front[0].fitness.values) == 3
    p2 = index_problem(constraints=[hd.Overlap(max=0.0), hd.Eccentricity(min=5.0)])
    # and with a helper process sharing each generation: the same run
    r2 = hd.evolve(p2, algorithm="nsga3", population_size=12, generations=8, seed=4,
                   n_jobs=2)
    assert [i.fitness.values for i in r1.pareto_front] == [
        i.fitness.values for i in r2.pareto_front]
    assert r1.best_dataset().to_csv_text() == r2.best_dataset().to_csv_text()


def test_sel_nsga3_agrees_with_deap_on_fronts():
    # Without random ties (every chosen niche distinct), the same individuals as DEAP's.
    rng = np.random.default_rng(0)
    pool = []
    for _ in range(40):
        fitness = hd.genome.MultiObjectiveFitness(weights=(-1.0, -1.0, -1.0))
        ind = hd.genome.Genotype([], fitness)
        ind.fitness.values = tuple(rng.random(3))
        pool.append(ind)
    ref = tools.uniform_reference_points(3, 4)
    ours = sel_nsga3(pool, 20, np.random.default_rng(1), ref_points=ref)
    assert len(ours) == 20 and len({id(i) for i in ours}) == 20
    fronts = tools.sortNondominated(pool, 20)
    first_fronts = [i for f in fronts[:-1] for i in f]
    assert all(any(i is o for o in ours) for i in first_fronts)


def test_crowded_tournament_prefers_lower_rank():
    pool = []
    for v in [(0.0, 1.0), (1.0, 0.0), (2.0, 2.0)]:
        ind = hd.genome.Genotype([], hd.genome.MultiObjectiveFitness(weights=(-1.0, -1.0)))
        ind.fitness.values = v
        pool.append(ind)
    picks = sel_tournament_crowded(pool, 3000, np.random.default_rng(0))
    share_dominated = np.mean([p is pool[2] for p in picks])
    assert share_dominated == pytest.approx(1 / 9, abs=0.03)  # only when drawn twice


@pytest.mark.parametrize("kwargs, match", [
    (dict(algorithm="moead"), "'nsga2'"),
    (dict(algorithm="nsga2", problem=dict(constraints=())), "at least 2 objectives"),
    (dict(algorithm="nsga3", problem=dict(constraints=())), "at least 2 objectives"),
])
def test_bad_algorithm_input(kwargs, match):
    p = index_problem(**kwargs.pop("problem", {}))
    with pytest.raises(ValueError, match=match):
        hd.evolve(p, generations=2, **kwargs)


def test_hawks_refuses_multiobjective_and_unknown_objective():
    with pytest.raises(ValueError, match="single-objective"):
        hd.evolve(index_problem().as_multiobjective(), algorithm="hawks", generations=2)
    with pytest.raises(ValueError, match="'overlap'"):
        index_problem().as_multiobjective(["silhouette"])


def test_multi_loser_versus_nsga3_front_and_records():
    p = hd.MultiVersusProblem("gmm", ["single-linkage", "average-linkage", "kmeans++"],
                              n_samples=150, n_clusters=3, n_dims=2,
                              constraints=[hd.Overlap(max=0.1)])
    assert p.objective_names == ("gap_single-linkage", "gap_average-linkage", "gap_kmeans++")
    r = hd.evolve(p, algorithm="nsga3", population_size=8, generations=3, seed=1)
    front = list(r.pareto_front)
    # the constraint is a fourth objective, minimised, as for a single-objective problem
    assert r.problem.objective_names == (*p.objective_names, "overlap")
    assert front and all(i.fitness.weights == (1.0, 1.0, 1.0, -1.0) for i in front)
    for ind in front:
        rec = ind.record
        for j, loser in enumerate(["single-linkage", "average-linkage", "kmeans++"]):
            assert ind.fitness.values[j] == pytest.approx(
                rec["score_gmm"] - rec[f"score_{loser}"])
        assert ind.fitness.values[3] == rec["overlap"]
    for a in front:
        for b in front:
            assert not dominates(a, b)


def test_versus_with_spread_of_others():
    p = hd.MultiVersusProblem("gmm", ["single-linkage"], others=["kmeans++", "average-linkage"],
                              n_samples=120, n_clusters=3, n_dims=2)
    p.prepare(np.random.default_rng(0))
    ind = p.random_individual(np.random.default_rng(1))
    ev = p.evaluate(ind, eval_seed=3)
    rec = ev.record
    assert ev[1] == pytest.approx(np.std([rec["score_kmeans++"], rec["score_average-linkage"]]))
    assert p.evaluate(ind, eval_seed=3) == ev  # same seed, same scores
    # the winner's and the first loser's partitions, exactly the scored ones
    ind.fitness.values = ev
    winner, loser = p.partitions(ind)
    assert adjusted_rand_index(p.layout.labels, winner) == pytest.approx(rec["score_gmm"])
    assert adjusted_rand_index(p.layout.labels, loser) == pytest.approx(
        rec["score_single-linkage"])


@pytest.mark.parametrize("kwargs, match", [
    (dict(losers=["single-linkage"]), "at least 2 objectives"),
    (dict(losers=[]), "at least one"),
    (dict(losers=["single-linkage", "gmm"]), "must all differ"),
    (dict(losers=["single-linkage"], others=["kmeans++"]), "at least two"),
    (dict(losers=["single-linkage", "nope"]), "'kmeans\\+\\+'"),
])
def test_multi_versus_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        hd.MultiVersusProblem("gmm", n_samples=100, n_clusters=3, n_dims=2, **kwargs)


def test_multi_versus_as_multiobjective_adds_constraint_objectives():
    p = hd.MultiVersusProblem("gmm", ["single-linkage", "kmeans++"], n_samples=100,
                              n_clusters=3, n_dims=2, constraints=[hd.Overlap(max=0.1)])
    mo = p.as_multiobjective()
    assert mo.weights == (1.0, 1.0, -1.0)
    assert mo.objective_names == ("gap_single-linkage", "gap_kmeans++", "overlap")


def test_multi_index_nsga3_with_constraint_objective():
    p = hd.MultiIndexProblem(200, 3, 2, {"silhouette": 0.5, "davies_bouldin": 1.2},
                             constraints=[hd.Overlap(max=0.1)])
    assert p.objective_names == ("silhouette", "davies_bouldin")
    mo = p.as_multiobjective()
    assert mo.weights == (-1.0, -1.0, -1.0)
    r = hd.evolve(mo, algorithm="nsga3", population_size=8, generations=4, seed=2)
    front = list(r.pareto_front)
    assert front and all(len(i.fitness.values) == 3 for i in front)
    for ind in front:
        X, y = mo.sample(ind)
        db = hd.metrics.davies_bouldin(X, y)
        assert ind.record["index_davies_bouldin"] == pytest.approx(db, rel=1e-12)
        assert ind.fitness.values[1] == pytest.approx(abs(1.2 - db), rel=1e-9)
        assert ind.fitness.values[0] == pytest.approx(
            abs(0.5 - hd.evaluation.silhouette_score(X, y, metric="sqeuclidean")), abs=1e-12)
    for a in front:
        for b in front:
            assert not dominates(a, b)


@pytest.mark.parametrize("targets, match", [
    ({"silhouette": 0.5}, "at least 2"),
    ({"silhouette": 0.5, "davies_bouldin": -1.0}, r"targets\['davies_bouldin'\] must lie in"),
    ({"silhouette": 0.5, "sil": 0.4}, "same index twice"),
    ({"silhouette": 1.5, "davies_bouldin": 1.0}, r"targets\['silhouette'\] must lie in \[-1, 1\]"),
])
def test_multi_index_bad_targets(targets, match):
    with pytest.raises(ValueError, match=match):
        hd.MultiIndexProblem(100, 3, 2, targets)


def test_multi_index_takes_the_callers_min_size():
    p = hd.MultiIndexProblem(20, 3, 2, {"silhouette": 0.5, "davies_bouldin": 1.2}, min_size=2)
    assert [t for _, _, t in p.indices] == [0.5, 1.2]


def test_a_silhouette_distance_needs_a_silhouette():
    p = hd.MultiIndexProblem(100, 3, 2, {"davies_bouldin": 1.0, "silhouette": 0.5},
                             metric="euclidean")
    assert p.metric == "euclidean" and p.index == "davies_bouldin"
    with pytest.raises(ValueError, match=r"the indices 'davies_bouldin', 'dunn' have none"):
        hd.MultiIndexProblem(100, 3, 2, {"davies_bouldin": 1.0, "dunn": 0.5},
                             metric="euclidean")
    with pytest.raises(ValueError, match=r"the index 'davies_bouldin' has none"):
        hd.IndexProblem(100, 3, 2, 1.0, index="davies_bouldin", metric="euclidean")


def test_constraints_of_a_multi_objective_problem_act_under_nsga():
    """They become objectives (evolve) or are refused unwrapped (make_toolbox): a constraint
    only recorded would leave the run as it is without it."""
    def run(constraints):
        p = hd.MultiIndexProblem(200, 4, 2, {"silhouette": 0.5, "davies_bouldin": 1.2},
                                 constraints=constraints)
        return hd.evolve(p, algorithm="nsga2", population_size=10, generations=6, seed=0)

    free, tight = run([]), run([hd.Overlap(max=0.0)])
    assert len(free.pareto_front[0].fitness.values) == 2
    assert tight.pareto_front[0].fitness.weights == (-1.0, -1.0, -1.0)
    keys = [[tuple(g.key for g in ind) for ind in r.population] for r in (free, tight)]
    assert keys[0] != keys[1]  # the overlap acted on selection
    for ind in tight.pareto_front:
        assert ind.fitness.values[2] == ind.record["overlap"]
    p = hd.MultiIndexProblem(200, 4, 2, {"silhouette": 0.5, "davies_bouldin": 1.2},
                             constraints=[hd.Overlap(max=0.0)])
    with pytest.raises(ValueError, match=r"constraints of this multi-objective problem would "
                                         r"only be recorded\. Pass problem.as_multiobjective"):
        hd.make_toolbox(p, algorithm="nsga2", seed=0)
    toolbox = hd.make_toolbox(p.as_multiobjective(), algorithm="nsga2", seed=0)
    assert len(toolbox.problem.fitness_class().weights) == 3


def test_nsga3_divisions_without_nsga3_are_refused():
    p = hd.IndexProblem(60, 3, 2, target=0.5, constraints=[hd.Overlap(max=0.1)])
    for algorithm in ("nsga2", "hawks"):
        for call in (hd.evolve, hd.make_toolbox):
            wrapped = (algorithm, call) == ("nsga2", hd.make_toolbox)
            problem = p.as_multiobjective() if wrapped else p
            with pytest.raises(ValueError, match=rf"nsga3_divisions=4 sets NSGA-III's reference "
                                                 rf"points; algorithm='{algorithm}' has none"):
                call(problem, algorithm=algorithm, nsga3_divisions=4, seed=0)
    assert p.layout is None  # refused before any work
    hd.make_toolbox(p.as_multiobjective(), algorithm="nsga3", nsga3_divisions=4, seed=0)
