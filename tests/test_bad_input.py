"""Bad input is refused up front, naming the parameter: flags that are not bools (a
string such as "no" is truthy), seeds where an operator needs a generator, cluster
indices out of range, a grid path where a Suite is needed."""

import re

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap import clustering, metrics, operators
from hawks_deap.analysis import features
from hawks_deap.campaign import suite as hs
from hawks_deap.io import batteries


@pytest.fixture
def dataset():
    rng = np.random.default_rng(0)
    return hd.Dataset(rng.normal(size=(30, 2)), np.repeat([0, 1, 2], 10))


def test_string_flags_are_refused_before_anything_is_written(dataset, tmp_path):
    folder = dataset.save(tmp_path / "run")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    with pytest.raises(TypeError, match="overwrite must be True or False, got 'no'"):
        dataset.save(folder, overwrite="no")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # untouched
    batteries.write_battery([dataset], tmp_path / "out", battery="b", names=["d"])
    written = {p.name: p.read_bytes() for p in (tmp_path / "out" / "b").iterdir()}
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        batteries.write_battery([dataset], tmp_path / "out", battery="b", names=["d"],
                                overwrite="no")
    assert {p.name: p.read_bytes() for p in (tmp_path / "out" / "b").iterdir()} == written
    with pytest.raises(TypeError, match="not one string"):
        batteries.write_battery([dataset], tmp_path / "out2", battery="b", names="d")
    with pytest.raises(TypeError, match="not one string"):
        batteries.read_battery(tmp_path / "out" / "b", names="d")
    with pytest.raises(TypeError, match="normalize must be True or False"):
        features.connectivity(dataset.X, dataset.y, 5, normalize="no")
    with pytest.raises(TypeError, match="settings must be True or False"):
        clustering.available_algorithms(settings="yes")
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        metrics.register("silhouette", lambda X, y: 0.0, kind="internal", bounds=(-1, 1),
                         higher_is_better=True, overwrite="no")
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        clustering.register_algorithm("never-registered", lambda X, k, s: [0] * len(X),
                                      overwrite="no")
    with pytest.raises(TypeError, match="symmetric must be True or False"):
        metrics.register("my-score", lambda a, b: 0.0, kind="external", bounds=(0, 1),
                         higher_is_better=True, symmetric="no")
    problem = hd.IndexProblem(30, 3, 2, target=0.5)
    with pytest.raises(TypeError, match="progress must be True or False"):
        hd.evolve(problem, generations=1, progress="no")


def test_numpy_bools_are_bools(dataset, tmp_path):
    assert features.connectivity(dataset.X, dataset.y, 5, normalize=np.True_) == \
        features.connectivity(dataset.X, dataset.y, 5)
    assert dataset.save(tmp_path / "a", overwrite=np.False_).is_dir()
    assert clustering.available_algorithms(settings=np.False_) == \
        clustering.available_algorithms()


def _individual(k=3):
    problem = hd.IndexProblem(60, k, 2, target=0.5)
    toolbox = hd.make_toolbox(problem, seed=0)
    return toolbox.individual()


def test_operators_refuse_a_seed_for_rng_and_a_cluster_out_of_range():
    ind = _individual()
    rng = np.random.default_rng(1)
    for bad in (0, np.int64(1), "x"):  # (None is Python's random: tests/test_deap_conventions)
        with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
            operators.mut_mean_gaussian(ind, 0, bad)
        with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
            operators.cx_uniform(ind, _individual(), bad)
    for bad, error in ((-1, ValueError), (3, ValueError), (True, TypeError),
                       (2.5, TypeError)):
        centre = np.zeros(2)
        for op, kwargs in ((operators.mut_mean_gaussian, {}), (operators.mut_mean_rails, {}),
                           (operators.mut_mean_pso, {"global_mean": centre}),
                           (operators.mut_mean_pso_informed, {
                               "global_mean": centre, "index_value": 0.3, "target": 0.5}),
                           (operators.mut_mean_de, {}), (operators.mut_cov_haar, {})):
            with pytest.raises(error, match="cluster"):
                op(ind, bad, rng, **kwargs)
    before = [g.key for g in ind]
    operators.mut_mean_gaussian(ind, 2, rng)  # the last cluster, by its own index
    after = [g.key for g in ind]
    assert after[:2] == before[:2] and after[2] != before[2]


def test_a_refused_call_does_not_draw_from_random_and_legacy_numpy_sources_work():
    import random

    ind = _individual()
    random.seed(5)
    state = random.getstate()
    with pytest.raises(ValueError, match="cluster"):
        operators.mut_mean_gaussian(ind, 7, random)
    with pytest.raises(TypeError, match="k must be an integer"):
        operators.sel_hawks([ind], None, random)
    refused = [
        (ValueError, "p_f", lambda: operators.sel_hawks([ind], 1, random, p_f=2.0)),
        (TypeError, "tournsize", lambda: operators.sel_hawks([ind], 1, random, tournsize=0.5)),
        (ValueError, "p_mean", lambda: operators.cx_uniform(ind, ind.clone(), random,
                                                             p_mean=1.5)),
        (ValueError, "same number of genes", lambda: operators.cx_uniform(
            ind, _individual(4), random)),
        (ValueError, "must not be empty", lambda: operators.sel_tournament_crowded(
            [], 1, random)),
        (ValueError, "ref_points", lambda: operators.sel_nsga3([ind], 1, random,
                                                               ref_points=None)),
        (ValueError, r"must be evaluated before selection: 1 of 1 .*positions 0\)",
         lambda: operators.sel_stochastic_ranking([ind], 1, random)),
        (ValueError, "must be evaluated before selection", lambda: operators.sel_nsga3(
            [ind], 1, random, ref_points=[[1.0]])),
        (ValueError, "must be evaluated before selection",
         lambda: operators.sel_tournament_crowded([ind], 1, random)),
        (ValueError, "p_cov", lambda: operators.mutate(ind, random, p_cov=-1.0)),
        (ValueError, "low must be <= high", lambda: operators.mut_mean_rails(
            ind, 0, random, low=1.0, high=0.0)),
        (ValueError, "global_mean must have shape", lambda: operators.mut_mean_pso(
            ind, 0, random, global_mean=[0.0])),
        (ValueError, "global_mean must have shape", lambda: operators.mut_mean_pso_informed(
            ind, 0, random, global_mean=[0.0], index_value=0.5, target=0.2)),
        (ValueError, "F must lie in", lambda: operators.mut_mean_de(ind, 0, random, F=-1.0)),
        (ValueError, "mut_mean_de needs at least 3 clusters", lambda: operators.mut_mean_de(
            _individual(2), 0, random)),
        (ValueError, "power", lambda: operators.mut_cov_haar(ind, 0, random, power=-1.0)),
        (ValueError, "may not set 'target'", lambda: operators.mutate(
            ind, random, mean_mutation="gaussian", mean_kwargs={"target": 0.5})),
    ]
    for error, match, call in refused:
        with pytest.raises(error, match=match):
            call()
    assert random.getstate() == state  # refused before numpy_rng drew from random
    for legacy in (np.random.RandomState(0), np.random):
        child, other = operators.cx_uniform(ind.clone(), _individual(), legacy)
        assert len(child) == 3
        operators.mut_cov_haar(child, 0, legacy)
        for evaluated in (child, other):
            evaluated.fitness.values = hd.genome.Evaluation((0.1,), {"penalty": 0.0})
        assert len(operators.sel_stochastic_ranking([child, other], 1, legacy)) == 1


def test_run_suite_wants_a_suite_and_a_callable_on_row(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text('[dataset]\nn_samples = 40\nn_clusters = 2\n[ga]\ngenerations = 1\n'
                    'population_size = 2\n[suite]\nruns = 1\n')
    with pytest.raises(TypeError, match="suite must be a Suite .*load_suite"):
        hs.run_suite(str(grid), tmp_path / "out")
    with pytest.raises(TypeError, match="on_row must be callable"):
        hs.run_suite(hs.load_suite(grid), tmp_path / "out", on_row=5)
    assert not (tmp_path / "out").exists()  # refused before any run


def test_plot_dataset_refuses_non_finite_points_and_bad_options(dataset):
    pytest.importorskip("matplotlib")
    from hawks_deap.analysis.plotting import plot_dataset

    X = dataset.X.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        plot_dataset(X, dataset.y)
    with pytest.raises(TypeError, match="ellipses must be True or False"):
        plot_dataset(dataset, ellipses="no")
    with pytest.raises(ValueError, match="n_std"):
        plot_dataset(dataset, n_std=-1)
    with pytest.raises(ValueError, match="point_size"):
        plot_dataset(dataset, point_size=-5)
    from hawks_deap.analysis.plotting import plot_versus

    with pytest.raises(ValueError, match="non-empty 2-D"):
        plot_versus(dataset.X[:, 0], dataset.y, dataset.y, dataset.y)


def test_dataset_refuses_what_load_would_refuse(tmp_path):
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(6, 2)), [0, 0, 1, 1, 2, 2]
    gene = hd.genome.Cluster([0.0, 0.0], [1.0, 1.0], np.eye(2))
    with pytest.raises(ValueError, match="finite"):
        hd.Dataset(np.where(np.eye(6, 2) > 0, np.nan, X), y)
    with pytest.raises(ValueError, match="non-empty 2-D"):
        hd.Dataset(np.zeros((0, 2)), [])
    with pytest.raises(TypeError, match="cluster 0 must be a hawks_deap.genome.Cluster gene"):
        hd.Dataset(X, y, genotype=[1, 2, 3])
    with pytest.raises(ValueError, match="genotype: cluster 1 has 3 dimensions, the data 2"):
        hd.Dataset(X, y, genotype=[gene, hd.genome.Cluster([0.0] * 3, [1.0] * 3, np.eye(3)),
                                   gene])
    with pytest.raises(ValueError, match="not a proper rotation"):
        flat = hd.genome.Cluster([0.0, 0.0], [1.0, 1.0], np.zeros((2, 2)))
        hd.Dataset(X, y, genotype=[gene, flat, gene])
    with pytest.raises(ValueError, match="label 2, but the genotype has 2 genes"):
        hd.Dataset(X, y, genotype=[gene, gene])
    assert hd.Dataset(X, y, genotype=[]).genotype is None  # as load reads empty genes
    good = hd.Dataset(X, y, genotype=(gene, gene, gene))
    back = hd.Dataset.load(good.save(tmp_path / "d"))
    assert back.genotype is not None and len(back.genotype) == 3


def test_layout_refuses_what_it_would_truncate():
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="n_dims must be an integer"):
        hd.genome.Layout([5, 5], 2.5, rng=rng)
    with pytest.raises(TypeError, match="n_dims must be an integer"):
        hd.genome.Layout([5, 5], True, rng=rng)
    with pytest.raises(TypeError, match="sizes must be a non-empty sequence of integers"):
        hd.genome.Layout([2.7, 3.2], 2, rng=rng)
    for sizes in ([5, -1], [5, 0]):
        with pytest.raises(ValueError, match="sizes must be >= 1"):
            hd.genome.Layout(sizes, 2, rng=rng)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        hd.genome.Layout([5, 5], 2, rng=0)
    assert hd.genome.Layout(np.array([5, 5], dtype=np.int32), np.int64(2), rng=rng).n_dims == 2
    # numpy makes [uint64, int] a float array: each entry is an integer all the same
    assert hd.genome.Layout([np.uint64(5), 5, 1], 2, rng=rng).sizes.tolist() == [5, 5, 1]


def test_evaluator_arrays_and_best_algorithms_refuse_non_finite_values():
    layout = hd.genome.Layout([10, 10], 2, rng=np.random.default_rng(0))
    evaluator = hd.evaluation.Evaluator(layout)
    with pytest.raises(ValueError, match="data must contain only finite values"):
        evaluator.silhouette(np.full((20, 2), np.nan))
    with pytest.raises(ValueError, match=r"layout's shape \(20, 2\), got \(3, 2\)"):
        evaluator.overlap(np.zeros((3, 2)))
    table = features.Table(("a", "b"), ("x", "y"), np.array([[0.5, np.nan], [1.0, 0.2]]))
    with pytest.raises(ValueError, match=r"non-finite scores in rows \['a'\]"):
        features.best_algorithms(table)
    with pytest.raises(TypeError, match="table must be a hawks_deap.analysis.features.Table"):
        features.best_algorithms(np.zeros((2, 2)))


def test_more_arguments_named_when_wrong(tmp_path):
    from hawks_deap.analysis import stats
    from hawks_deap.genome.genotype import MultiObjectiveFitness

    with pytest.raises(TypeError, match=r"constraints must be an iterable .*\(\) for none"):
        hd.IndexProblem(60, 3, 2, target=0.5, constraints=None)
    problem = hd.IndexProblem(60, 3, 2, target=0.5)
    with pytest.raises(TypeError, match="mean_kwargs must be a mapping"):
        hd.evolve(problem, generations=1, mean_kwargs=[1])
    with pytest.raises(TypeError, match="cov_kwargs must be a mapping"):
        hd.make_toolbox(problem, seed=0, cov_kwargs=(("power", 0.3),))
    with pytest.raises(TypeError, match="checkpoint must be a file path"):
        hd.evolve(problem, generations=1, checkpoint=5)
    scores = np.random.default_rng(0).random((5, 3))
    with pytest.raises(TypeError, match="not one string"):
        stats.friedman_nemenyi(scores, "abc")
    with pytest.raises(TypeError, match="k must be an integer"):
        operators.sel_hawks([_individual()], None, np.random.default_rng(0))
    for weights in ((), (np.nan, 1.0)):
        with pytest.raises(ValueError, match="weights must be one finite number"):
            MultiObjectiveFitness.with_weights(weights)
    with pytest.raises(ValueError, match="weights must be one finite number per objective"):
        MultiObjectiveFitness(weights=(np.nan, 1.0))


def test_wrappers_name_a_wrong_type():
    with pytest.raises(TypeError, match="base must be a Problem"):
        hd.MultiObjectiveProblem("x")
    result = hd.evolve(hd.IndexProblem(60, 3, 2, target=0.5), generations=1, n_jobs=1, seed=0)
    with pytest.raises(TypeError, match="individual must be a Genotype"):
        result.dataset(None)


def test_helpers_of_the_public_api_name_a_wrong_type(dataset):
    """Each used to fail inside with an AttributeError on the wrong object."""
    from deap import tools

    with pytest.raises(TypeError, match="problem must be a prepared hawks-deap problem or "
                                        "None, got str"):
        hd.algorithms.ProblemPool("x", 2)
    with pytest.raises(TypeError, match="individual must be a hawks_deap Genotype, got str"):
        hd.genome.clone("x")
    with pytest.raises(TypeError, match="individuals must hold hawks_deap individuals"):
        hd.algorithms.select_best(["x"])
    with pytest.raises(TypeError, match="individuals must be an iterable"):
        hd.algorithms.select_best(None)
    with pytest.raises(TypeError, match="population must hold hawks_deap individuals"):
        hd.algorithms.final_fittest([1])
    with pytest.raises(TypeError, match="dataset must be a hawks_deap.Dataset"):
        batteries.battery_description("x", "a", "b")
    with pytest.raises(ValueError, match="battery must be a file name"):
        batteries.battery_description(dataset, "a", "b/c")
    rng = np.random.default_rng(0)
    population = []
    for _ in range(10):
        ind = hd.genome.Genotype([], hd.genome.MultiObjectiveFitness(weights=(-1.0, -1.0)))
        ind.fitness.values = tuple(rng.random(2))
        population.append(ind)
    n_obj = 2
    for bad in (None, np.ones(n_obj), np.ones((3, n_obj + 1)), np.full((3, n_obj), np.nan)):
        with pytest.raises(ValueError, match=f"ref_points must be a finite 2-D array with one "
                                             f"column per objective \\({n_obj}\\)"):
            operators.sel_nsga3(population, 4, np.random.default_rng(0), ref_points=bad)
    chosen = operators.sel_nsga3(population, 4, np.random.default_rng(0),
                                 ref_points=tools.uniform_reference_points(n_obj, 4))
    assert len(chosen) == 4
    problem = hd.IndexProblem(60, 3, 2, target=0.5, constraints=[hd.Overlap(max=0.1)])
    with pytest.raises(RuntimeError, match="has no layout yet"):
        problem.prefetch([])  # was an AttributeError on the missing evaluator
    # one objective given as a string is that objective, not its letters
    assert problem.as_multiobjective("overlap").objective_names == ("fitness", "overlap")
    with hd.algorithms.ProblemPool(None, 1) as pool:
        with pytest.raises(RuntimeError, match="no problem installed"):
            pool.evaluate([])
    from hawks_deap.genome.initialization import haar_rotation

    with pytest.raises(ValueError, match="n_dims must be >= 1, got 0"):
        haar_rotation(0, np.random.default_rng(0))  # was a shape error from the draws
    # nothing to choose is an empty choice, not a numpy error from the niching
    assert operators.sel_nsga3(population, 0, np.random.default_rng(0),
                               ref_points=tools.uniform_reference_points(n_obj, 4)) == []
    assert operators.sel_hawks([], 0, np.random.default_rng(0)) == []
    with pytest.raises(ValueError, match="individuals must not be empty when k > 0"):
        operators.sel_hawks([], 2, np.random.default_rng(0))


@pytest.mark.parametrize("kwargs, message", [
    # every cluster a single point: no index is defined (it once scored a perfect 0)
    ({"n_samples": 4, "n_clusters": 4, "target": 0.0, "equal_sizes": True},
     "n_samples must exceed n_clusters = 4"),
    # the connectivity's 10 neighbours need 11 points (once an error mid-run)
    ({"n_samples": 10, "n_clusters": 2, "target": 0.5, "index": "connectivity",
      "min_size": 1}, "n_samples must be > 10, got 10"),
    # data that would overflow the squared distances (once NaN data, refused at the end)
    ({"n_samples": 200, "n_clusters": 3, "target": 0.5, "initial_mean_upper": 1e300},
     "initial_mean_upper must lie in (0, "),
    ({"n_samples": 200, "n_clusters": 3, "target": 0.5, "initial_cov_upper": 1e300},
     "initial_cov_upper must lie in (0, "),
    # a one-dimensional cluster's eccentricity is 1 (once a run that was never feasible)
    ({"n_samples": 200, "n_clusters": 3, "n_dims": 1, "target": 0.5,
      "constraints": [hd.Eccentricity(min=2)]}, "cannot be met with n_dims = 1"),
])
def test_problems_nothing_can_meet_are_refused_when_built(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        hd.IndexProblem(**{"n_dims": 2, **kwargs})


def test_multi_index_problem_checks_the_connectivity_size_too():
    with pytest.raises(ValueError, match="n_samples must be > 10"):
        hd.MultiIndexProblem(10, 2, 2, {"silhouette": 0.5, "connectivity": 0.5}, min_size=1)
    hd.MultiIndexProblem(11, 2, 2, {"silhouette": 0.5, "connectivity": 0.5}, min_size=1)
    hd.IndexProblem(200, 3, 1, 0.5, constraints=[hd.Eccentricity(min=1)])  # 1 is met


def test_range_errors_keep_every_digit_of_the_value():
    with pytest.raises(ValueError, match=r"got 1\.0000001$"):
        hd.Overlap(max=1.0000001)


def test_config_files_with_a_byte_order_mark_or_a_key_outside_sections(tmp_path):
    from hawks_deap.settings import config

    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf[ga]\ngenerations = 3\n")
    assert config.load_config(bom, command="generate") == {"ga": {"generations": 3}}
    loose = tmp_path / "loose.toml"
    loose.write_text("generations = 3\n")
    with pytest.raises(ValueError, match=re.escape(
            f"key generations in {loose} is outside any section; did you mean "
            "[ga] generations?")):
        config.load_config(loose, command="generate")
