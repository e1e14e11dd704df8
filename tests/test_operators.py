import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hawks_deap as hd
from hawks_deap.genome.initialization import (
    haar_from_normals,
    haar_rotation,
    random_cluster,
    rotation_power,
    rotation_powers,
)
from hawks_deap.operators import (
    check_mutation_options,
    cx_uniform,
    mut_cov_haar,
    mut_mean_de,
    mut_mean_gaussian,
    mut_mean_pso,
    mut_mean_pso_informed,
    mut_mean_rails,
    mutate,
    mutate_many,
    sel_stochastic_ranking,
    sel_tournament_rank,
)


def genotype(seed, k=4, d=3):
    rng = np.random.default_rng(seed)
    return hd.genome.Genotype([random_cluster(d, rng) for _ in range(k)],
                                hd.genome.IndexFitness())


def fixed_genotype():
    means = [[0.0, 0.0], [2.0, 0.0], [0.0, 4.0], [1.0, 1.0]]
    return hd.genome.Genotype([hd.genome.Cluster(m, [1.0, 1.0], np.eye(2)) for m in means])


class ScriptedRng:
    """A stand-in Generator that returns scripted values, to check formulas by hand."""

    def __init__(self, integers=(), uniform=(), random=(), choice=None, normal=None):
        self._integers = list(integers)
        self._uniform = list(uniform)
        self._random = list(random)
        self._choice = choice
        self._normal = normal

    def integers(self, n):
        return self._integers.pop(0)

    def uniform(self, low, high, size=None):
        if size is None:
            return self._uniform.pop(0)
        return np.array([self._uniform.pop(0) for _ in range(size)])

    def random(self):
        return self._random.pop(0)

    def choice(self, a, size, replace):
        return np.array(self._choice)

    def normal(self, loc, scale):
        return np.asarray(loc) + scale * np.asarray(self._normal)


def test_rails_hand_computed():
    ind = fixed_genotype()
    # n drawn from {0,2,3} via integers(3) -> 0 maps to cluster 0; w = 0.25; p = 0.3 -> towards
    mut_mean_rails(ind, 1, ScriptedRng(integers=[0], uniform=[0.25], random=[0.3]))
    np.testing.assert_allclose(ind[1].mean, [2.0 + 0.25 * (0 - 2.0), 0.0])
    ind = fixed_genotype()
    # integers(3) -> 1 maps to cluster 2 (skips 1); p = 0.7 -> away
    mut_mean_rails(ind, 1, ScriptedRng(integers=[1], uniform=[0.5], random=[0.7]))
    np.testing.assert_allclose(ind[1].mean, [2.0 - 0.5 * (0 - 2.0), 0.0 - 0.5 * 4.0])


def test_pso_hand_computed():
    ind = fixed_genotype()
    gm = np.array([1.0, 2.0])
    mut_mean_pso(ind, 0, ScriptedRng(integers=[2], uniform=[0.5, 0.25], random=[0.2]),
                 global_mean=gm)
    # n = 3 (integers(3) -> 2 maps to 3), step = 0.5*(1,1) + 0.25*(1,2) = (0.75, 1.0), towards
    np.testing.assert_allclose(ind[0].mean, [0.75, 1.0])
    ind = fixed_genotype()
    mut_mean_pso(ind, 0, ScriptedRng(integers=[2], uniform=[0.5, 0.25], random=[0.9]),
                 global_mean=gm)
    np.testing.assert_allclose(ind[0].mean, [-0.75, -1.0])


def test_pso_informed_direction_follows_sign():
    gm = np.array([1.0, 2.0])
    for s_all, expected in [(0.8, [0.75, 1.0]), (0.2, [-0.75, -1.0]), (0.5, [-0.75, -1.0])]:
        ind = fixed_genotype()
        mut_mean_pso_informed(ind, 0, ScriptedRng(integers=[2], uniform=[0.5, 0.25]),
                              global_mean=gm, index_value=s_all, target=0.5)
        np.testing.assert_allclose(ind[0].mean, expected)


def test_pso_informed_direction_for_an_index_where_lower_is_better():
    """Towards the others when the clusters are better separated than the target asks:
    for Davies-Bouldin (lower: better separated) when its value is below the target."""
    gm = np.array([1.0, 2.0])
    for s_all, expected in [(0.2, [0.75, 1.0]), (0.8, [-0.75, -1.0]), (0.5, [-0.75, -1.0])]:
        ind = fixed_genotype()
        mut_mean_pso_informed(ind, 0, ScriptedRng(integers=[2], uniform=[0.5, 0.25]),
                              global_mean=gm, index_value=s_all, target=0.5,
                              higher_is_better=False)
        np.testing.assert_allclose(ind[0].mean, expected)
    with pytest.raises(TypeError, match="higher_is_better"):
        mut_mean_pso_informed(fixed_genotype(), 0, np.random.default_rng(0), global_mean=gm,
                              index_value=0.2, target=0.5, higher_is_better="no")


def test_pso_informed_moves_every_internal_index_towards_its_target():
    """Oracle: the index itself. From one random layout, a run's single steps bring the
    index closer to its target far more often than not, whichever its direction."""
    from hawks_deap import metrics

    for index in ("silhouette", "davies_bouldin"):
        problem = hd.IndexProblem(200, 4, 2, target=0.5 if index == "silhouette" else 0.3,
                                  index=index)
        assert problem.mutation_context()["higher_is_better"] is (
            metrics.get(index).higher_is_better)
        result = hd.evolve(problem, population_size=10, generations=15, seed=0,
                           mean_mutation="pso-informed")
        assert result.best.fitness.values[0] < 0.05, (index, result.best.fitness.values)


def test_de_hand_computed():
    ind = fixed_genotype()
    mut_mean_de(ind, 3, ScriptedRng(choice=[2, 1]), F=0.5)
    np.testing.assert_allclose(ind[3].mean, [1.0 + 0.5 * (0 - 2.0), 1.0 + 0.5 * 4.0])


def test_gaussian_hand_computed():
    ind = fixed_genotype()
    mut_mean_gaussian(ind, 2, ScriptedRng(normal=[0.1, -0.2]), scale=2.0)
    np.testing.assert_allclose(ind[2].mean, [0.2, 3.6])
    ind = fixed_genotype()
    mut_mean_gaussian(ind, 2, np.random.default_rng(0), dims="one")
    assert np.sum(ind[2].mean != np.array([0.0, 4.0])) == 1
    # HAWKS 0.2.0's "each": per coordinate, random() < 1/D, then normal for that one
    ind = fixed_genotype()
    mut_mean_gaussian(ind, 2, ScriptedRng(random=[0.3, 0.7], normal=0.5), dims="each")
    np.testing.assert_allclose(ind[2].mean, [0.5, 4.0])
    ind = fixed_genotype()
    mut_mean_gaussian(ind, 2, ScriptedRng(random=[0.9, 0.1], normal=-1.0), dims="each",
                      scale=2.0)
    np.testing.assert_allclose(ind[2].mean, [0.0, 2.0])


def test_gaussian_each_moves_one_coordinate_in_d_on_average():
    from hawks_deap.genome.genotype import Cluster, Genotype

    rng = np.random.default_rng(1)
    d = 50
    moved = []
    for _ in range(2000):
        ind = Genotype([Cluster(np.zeros(d), np.ones(d), np.eye(d)),
                        Cluster(np.ones(d), np.ones(d), np.eye(d))])
        mut_mean_gaussian(ind, 0, rng, dims="each")
        moved.append(int(np.sum(ind[0].mean != 0.0)))
    moved = np.array(moved)
    # Binomial(50, 1/50): mean 1, P(0) = 0.98^50 = 0.364
    assert abs(moved.mean() - 1.0) < 0.1
    assert abs(np.mean(moved == 0) - 0.98 ** 50) < 0.04


def test_de_draws_distinct_clusters():
    rng = np.random.default_rng(0)
    for _ in range(200):
        ind = fixed_genotype()
        before = ind.means
        mut_mean_de(ind, 0, rng, F=1.0)
        delta = ind[0].mean - before[0]
        diffs = [before[a] - before[b] for a in (1, 2, 3) for b in (1, 2, 3) if a != b]
        assert any(np.allclose(delta, d) for d in diffs)


def test_pso_global_mean_is_data_mean_not_cluster_mean_average():
    rng = np.random.default_rng(1)
    layout = hd.genome.Layout([10, 200], 2, rng=rng)
    ind = genotype(2, k=2, d=2)
    X, _ = layout.sample(ind)
    np.testing.assert_allclose(layout.data_mean(ind), X.mean(axis=0), atol=1e-12)
    assert not np.allclose(layout.data_mean(ind), ind.means.mean(axis=0))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 8), steps=st.integers(1, 25),
       power=st.floats(0.0, 1.0), alpha=st.floats(0.5, 10.0))
def test_cov_mutation_keeps_spd_determinant_and_rotation(seed, d, steps, power, alpha):
    rng = np.random.default_rng(seed)
    ind = genotype(seed, k=2, d=d)
    det0 = np.prod(ind[0].variances)
    for _ in range(steps):
        before = np.prod(ind[0].variances)
        mut_cov_haar(ind, 0, rng, power=power, alpha=alpha)
        np.testing.assert_allclose(np.prod(ind[0].variances), before, rtol=1e-9)
    g = ind[0]
    np.testing.assert_allclose(np.prod(g.variances), det0, rtol=1e-9)
    r = g.rotation
    np.testing.assert_allclose(r @ r.T, np.eye(d), atol=1e-9)
    assert np.linalg.det(r) == pytest.approx(1.0, abs=1e-9)
    cov = g.covariance
    np.testing.assert_array_equal(cov, cov.T)
    assert np.all(np.linalg.eigvalsh(cov) > 0)
    np.testing.assert_allclose(np.linalg.det(cov), det0, rtol=1e-6)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), op=st.sampled_from(["gaussian", "rails", "pso",
                                                             "pso-informed", "de"]),
       steps=st.integers(1, 10))
def test_any_mutation_sequence_keeps_covariances_spd(seed, op, steps):
    rng = np.random.default_rng(seed)
    layout = hd.genome.Layout([5, 5, 5, 5], 3, rng=rng)
    ind = genotype(seed, k=4, d=3)
    ind.fitness.values = hd.genome.Evaluation((0.1,), {"index": 0.4, "penalty": 0.0})
    for _ in range(steps):
        mutate(ind, rng, mean_mutation=op, p_mean=1.0, p_cov=1.0, layout=layout, target=0.5)
    for g in ind:
        assert np.all(np.linalg.eigvalsh(g.covariance) > 0)
        np.testing.assert_allclose(g.rotation @ g.rotation.T, np.eye(3), atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), p_mean=st.floats(0, 1),
       p_cov=st.floats(0, 1))
def test_crossover_keeps_multisets_of_means_and_covariances(seed, k, p_mean, p_cov):
    a, b = genotype(seed, k=k), genotype(seed + 1, k=k)
    means_before = sorted(g.mean.tobytes() for g in (*a, *b))
    shapes_before = sorted(g.shape_key for g in (*a, *b))
    o1, o2 = cx_uniform(a, b, np.random.default_rng(seed), p_mean=p_mean, p_cov=p_cov)
    assert o1 is a and o2 is b
    assert sorted(g.mean.tobytes() for g in (*o1, *o2)) == means_before
    assert sorted(g.shape_key for g in (*o1, *o2)) == shapes_before


def test_crossover_swaps_everything_with_probability_one():
    a, b = genotype(1), genotype(2)
    a0, b0 = list(a), list(b)
    cx_uniform(a, b, np.random.default_rng(0), p_mean=1.0, p_cov=1.0)
    assert all(x is y for x, y in zip(a, b0)) and all(x is y for x, y in zip(b, a0))
    a, b = genotype(1), genotype(2)
    cx_uniform(a, b, np.random.default_rng(0), p_mean=1.0, p_cov=0.0)
    for i in range(len(a)):
        np.testing.assert_array_equal(a[i].mean, b0[i].mean)
        assert a[i].shape_key == a0[i].shape_key


def test_mutate_probability_defaults_to_one_over_k():
    rng = np.random.default_rng(0)
    layout = hd.genome.Layout([5] * 10, 2, rng=rng)
    changed_means = 0
    trials = 400
    for t in range(trials):
        ind = genotype(t, k=10, d=2)
        before = [g.mean.tobytes() for g in ind]
        mutate(ind, rng, mean_mutation="pso", layout=layout)
        changed_means += sum(g.mean.tobytes() != m for g, m in zip(ind, before))
    rate = changed_means / (trials * 10)
    assert abs(rate - 0.1) < 0.02


def genes_bits(individuals):
    return [[(g.mean.tobytes(), g.variances.tobytes(), g.rotation.tobytes()) for g in ind]
            for ind in individuals]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), op=st.sampled_from(["gaussian", "rails", "pso",
                                                             "pso-informed", "de"]),
       d=st.sampled_from([1, 2, 3, 5, 20]), k=st.integers(3, 6), n=st.integers(1, 8),
       p=st.sampled_from([None, 0.5, 1.0]), repeat=st.booleans())
def test_mutate_many_equals_mutate_one_by_one(seed, op, d, k, n, p, repeat):
    """Same draws, same genes, bit for bit (the rotations are computed stacked), also
    with an individual listed twice (its second mutation sees the first in full)."""
    layout = hd.genome.Layout([4] * k, d, rng=np.random.default_rng(seed))

    def population():
        out = [genotype(seed + i, k=k, d=d) for i in range(n)]
        for ind in out:
            ind.fitness.values = hd.genome.Evaluation((0.1,), {"index": 0.4, "penalty": 0.0})
        return out + ([out[0]] if repeat else [])

    options = dict(mean_mutation=op, p_mean=p, p_cov=p, layout=layout, target=0.5,
                   cov_kwargs={"power": 0.4})
    one, many = population(), population()
    rng_one, rng_many = np.random.default_rng(seed), np.random.default_rng(seed)
    for ind in one:
        assert mutate(ind, rng_one, **options) == (ind,)
    assert mutate_many(many, rng_many, **options) == many
    assert genes_bits(one) == genes_bits(many)
    assert rng_one.bit_generator.state == rng_many.bit_generator.state


def test_stacked_rotations_have_the_bits_of_single_ones():
    rng = np.random.default_rng(5)
    for d in (1, 2, 3, 7, 20):
        normals = rng.normal(size=(6, d, d))
        stack = haar_from_normals(normals.copy())
        for i in range(6):
            single = haar_rotation(d, _Replay(normals[i]))
            np.testing.assert_array_equal(stack[i], single)
        if d >= 2:  # an exact half turn in the stack goes through the Schur form
            stack[2] = np.diag([-1.0, -1.0] + [1.0] * (d - 2))
        powers = rotation_powers(stack, 0.3)
        for i in range(6):
            np.testing.assert_array_equal(powers[i], rotation_power(stack[i], 0.3))
        np.testing.assert_allclose(powers @ powers.transpose(0, 2, 1),
                                   np.broadcast_to(np.eye(d), powers.shape), atol=1e-12)


def test_stacked_rotation_functions_check_their_input():
    with pytest.raises(ValueError, match=r"normals must be a stack of square matrices.*\(3, 3\)"):
        haar_from_normals(np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"rotations must be.*\(2, 3, 4\)"):
        rotation_powers(np.zeros((2, 3, 4)), 0.5)
    with pytest.raises(ValueError, match="normals must be finite"):
        haar_from_normals(np.full((2, 3, 3), np.nan))
    with pytest.raises(ValueError, match="rotations must be finite"):
        rotation_powers(np.stack([np.eye(3), np.full((3, 3), np.inf)]), 0.5)
    with pytest.raises(TypeError, match="power must be a real number"):
        rotation_powers(np.eye(3)[None], "half")
    with pytest.raises(ValueError, match="power must be finite"):
        rotation_power(np.eye(3), np.nan)


class _Replay:
    """A generator stand-in whose ``normal`` returns given draws."""

    def __init__(self, values):
        self.values = values

    def normal(self, size):
        return self.values.reshape(size).copy()


def test_mutate_many_error_leaves_earlier_individuals_mutated_in_full():
    k, d = 4, 3
    layout = hd.genome.Layout([4] * k, d, rng=np.random.default_rng(0))
    inds = [genotype(i, k=k, d=d) for i in range(3)]
    for ind in inds[:2]:
        ind.fitness.values = hd.genome.Evaluation((0.1,), {"index": 0.4, "penalty": 0.0})
    ref = [genotype(i, k=k, d=d) for i in range(2)]
    for ind in ref:
        ind.fitness.values = hd.genome.Evaluation((0.1,), {"index": 0.4, "penalty": 0.0})
    rng, rng_ref = np.random.default_rng(1), np.random.default_rng(1)
    options = dict(mean_mutation="pso-informed", p_mean=1.0, p_cov=1.0, layout=layout,
                   target=0.5)
    with pytest.raises(ValueError, match="never been evaluated"):
        mutate_many(inds, rng, **options)  # the third was never evaluated
    for ind in ref:
        mutate(ind, rng_ref, **options)
    assert genes_bits(inds[:2]) == genes_bits(ref)


def test_mutate_checks_every_option_before_any_draw():
    """Whether or not the operator runs (p_mean), and before the rng draws anything."""
    import random

    layout = hd.genome.Layout([3] * 4, 3, rng=np.random.default_rng(0))
    for p_mean in (0.0, 1.0):
        ind = genotype(0)
        before, state = genes_bits([ind]), random.getstate()
        with pytest.raises(ValueError, match=r"mean_kwargs .* for mean_mutation 'rails'"):
            mutate(ind, None, mean_mutation="rails", p_mean=p_mean, layout=layout,
                   mean_kwargs={"low": 0.9, "high": 0.1})
        assert genes_bits([ind]) == before and random.getstate() == state
    for options in ({"scale": -1.0}, {"dims": "x"}):  # the building block alone, too
        state = random.getstate()
        with pytest.raises(ValueError):
            mut_mean_gaussian(genotype(0), 0, None, **options)
        assert random.getstate() == state
    with pytest.raises(ValueError, match=r"F must lie in \[0, 2\], got 2.5"):
        mut_mean_de(genotype(0), 0, np.random.default_rng(0), F=2.5)
    mut_mean_de(genotype(0), 0, np.random.default_rng(0), F=2.0)


def test_mutate_errors():
    ind = genotype(0)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="'gaussian'"):
        mutate(ind, rng, mean_mutation="levy")
    with pytest.raises(ValueError, match="layout"):
        mutate(ind, rng, mean_mutation="pso", p_mean=1.0)
    layout = hd.genome.Layout([3] * 4, 3, rng=rng)
    with pytest.raises(ValueError, match="evaluate"):
        mutate(ind, rng, mean_mutation="pso-informed", layout=layout, target=0.5)
    with pytest.raises(ValueError, match="p_mean"):
        mutate(ind, rng, p_mean=1.5, layout=layout)
    with pytest.raises(ValueError, match="3 clusters"):
        mut_mean_de(genotype(0, k=2), 0, rng)
    with pytest.raises(TypeError, match="angle"):  # unknown options, before any draw
        mutate_many([ind], rng, layout=layout, cov_kwargs={"angle": 1.0})
    with pytest.raises(ValueError, match="alpha"):
        mutate_many([ind], rng, layout=layout, cov_kwargs={"alpha": 0.0})


@pytest.mark.parametrize("op, mean_kwargs, cov_kwargs, error, match", [
    ("rails", {"scale": 1.0}, None, TypeError,
     r"mean_kwargs \{'scale': 1.0\} for mean_mutation 'rails': .*'scale'"),
    ("pso", {"low": 2.0}, None, ValueError, r"low must be <= high, got low=2, high=1"),
    ("pso", {"high": -0.5}, None, ValueError, r"got low=0, high=-0.5"),
    ("pso", {"global_mean": [0.0]}, None, ValueError, r"may not set 'global_mean'"),
    ("gaussian", {"dims": "some"}, None, ValueError, r"'gaussian': unknown dims 'some'"),
    ("de", {"F": -1.0}, None, ValueError, r"'de': F must"),
    ("gaussian", None, {"angle": 1.0}, TypeError, r"cov_kwargs \{'angle': 1.0\}"),
    ("gaussian", None, {"power": -1.0}, ValueError, r"cov_kwargs .*power"),
])
def test_mutation_options_are_refused_before_any_work(op, mean_kwargs, cov_kwargs, error,
                                                       match):
    with pytest.raises(error, match=match):
        check_mutation_options(op, mean_kwargs, cov_kwargs)
    problem = hd.IndexProblem(60, 3, 2, target=0.5)
    with pytest.raises(error, match=match):  # before the first evaluation
        hd.evolve(problem, mean_mutation=op, mean_kwargs=mean_kwargs, cov_kwargs=cov_kwargs,
                  generations=1, population_size=2, seed=0)
    assert problem.layout is None
    with pytest.raises(error, match=match):
        hd.make_toolbox(problem, mean_mutation=op, mean_kwargs=mean_kwargs,
                        cov_kwargs=cov_kwargs)


def test_mutation_options_that_fit_pass():
    check_mutation_options("pso", {"low": 0.2, "high": 0.4}, {"power": 0.1, "alpha": 2.0})
    check_mutation_options("gaussian", {"scale": 0.5, "dims": "each"})

    def own(individual, cluster, rng, **options):  # a researcher's operator takes anything
        return (individual,)

    check_mutation_options(own, {"step": 3})


class Ind:
    """A minimal individual for selection tests."""

    def __init__(self, fit, pen, name):
        self.fitness = hd.genome.IndexFitness()
        self.fitness.values = hd.genome.Evaluation((fit,), {"penalty": pen})
        self.name = name


def test_stochastic_ranking_pf_one_sorts_by_fitness_and_zero_by_penalty():
    rng = np.random.default_rng(0)
    pool = [Ind(f, p, i) for i, (f, p) in enumerate([(0.5, 0.0), (0.1, 3.0), (0.3, 1.0),
                                                       (0.2, 0.0), (0.9, 2.0)])]
    by_fit = sel_stochastic_ranking(pool, 5, rng, p_f=1.0)
    assert [i.name for i in by_fit] == [1, 3, 2, 0, 4]
    by_pen = sel_stochastic_ranking(pool, 5, rng, p_f=0.0)
    # feasible pairs are compared on fitness, the rest on penalty
    assert [i.name for i in by_pen] == [3, 0, 2, 4, 1]
    assert len(sel_stochastic_ranking(pool, 2, rng)) == 2


def test_stochastic_ranking_feasible_before_infeasible_when_pf_zero():
    rng = np.random.default_rng(1)
    pool = [Ind(rng.random(), float(rng.random() < 0.5) * rng.random(), i) for i in range(20)]
    ranked = sel_stochastic_ranking(pool, 20, rng, p_f=0.0, n_sweeps=100)
    pens = [i.fitness.record["penalty"] for i in ranked]
    assert pens == sorted(pens)


def test_tournament_rank_prefers_top_ranks_and_returns_references():
    rng = np.random.default_rng(0)
    pool = [object() for _ in range(10)]
    picks = sel_tournament_rank(pool, 5000, rng)
    idx = np.array([pool.index(p) for p in picks])
    counts = np.bincount(idx, minlength=10) / 5000
    # P(rank r wins) = ((10 - r)^2 - (9 - r)^2) / 100 for a binary tournament with replacement
    expected = np.array([((10 - r) ** 2 - (9 - r) ** 2) / 100 for r in range(10)])
    np.testing.assert_allclose(counts, expected, atol=0.02)
    assert all(any(p is q for q in pool) for p in picks[:10])
