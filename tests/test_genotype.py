import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hawks_deap as hd
from hawks_deap.genome.initialization import cluster_sizes, haar_rotation, random_cluster


def make_gene(rng, d=3):
    return random_cluster(d, rng, initial_mean_upper=2.0, initial_cov_upper=0.5)


def test_cluster_is_immutable_and_covariance_spd():
    rng = np.random.default_rng(0)
    g = make_gene(rng, 4)
    with pytest.raises(AttributeError):
        g.mean = np.zeros(4)
    with pytest.raises(ValueError):
        g.mean[0] = 1.0  # read-only array
    cov = g.covariance
    np.testing.assert_allclose(cov, cov.T)
    assert np.all(np.linalg.eigvalsh(cov) > 0)
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(cov)), np.sort(g.variances),
                               rtol=1e-10)
    assert g.eccentricity == pytest.approx(g.variances.max() / g.variances.min())


def test_cluster_key_is_content_based_and_stable_across_pickle():
    rng = np.random.default_rng(1)
    g = make_gene(rng)
    same = hd.genome.Cluster(g.mean.copy(), g.variances.copy(), g.rotation.copy())
    assert same.key == g.key and same == g
    moved = g.with_mean(g.mean + 1e-12)
    assert moved.key != g.key
    assert pickle.loads(pickle.dumps(g)).key == g.key
    # the key does not depend on the process: it is a digest of the bytes
    import hashlib

    h = hashlib.blake2b(digest_size=16)
    for a in (g.variances, g.rotation):
        h.update(a.tobytes())
    k = hashlib.blake2b(digest_size=16)
    k.update(g.mean.tobytes())
    k.update(h.hexdigest().encode())
    assert g.shape_key == h.hexdigest() and g.key == k.hexdigest()
    assert moved.shape_key == g.shape_key


@pytest.mark.parametrize("d", [1, 2, 5])
@pytest.mark.parametrize("keys_known", [False, True])
def test_a_pickled_cluster_comes_back_equal_read_only_and_with_its_keys(d, keys_known):
    g = make_gene(np.random.default_rng(d), d)
    if keys_known:
        g.key  # noqa: B018 - computed (and cached) before pickling
    back = pickle.loads(pickle.dumps(g, protocol=pickle.HIGHEST_PROTOCOL))
    assert back._key == g._key and back._shape_key == g._shape_key  # carried as they were
    for name in ("mean", "variances", "rotation"):
        ours, theirs = getattr(back, name), getattr(g, name)
        assert theirs.shape == ours.shape and np.array_equal(theirs, ours)
        assert ours.dtype == np.float64 and ours.dtype.isnative
        assert not ours.flags.writeable
        with pytest.raises(ValueError):
            ours[0] = 1.0
    assert back.key == g.key and back.shape_key == g.shape_key
    assert back.with_mean(g.mean + 1.0).key == g.with_mean(g.mean + 1.0).key
    # a gene pickled as earlier versions did (the checked constructor) still loads

    class AsBefore:
        def __reduce__(self):
            return (hd.genome.Cluster, (g.mean, g.variances, g.rotation))

    old = pickle.loads(pickle.dumps(AsBefore()))
    assert type(old) is hd.genome.Cluster and old._key is None and old.key == g.key


def test_cluster_rejects_bad_arrays():
    with pytest.raises(ValueError, match="variances"):
        hd.genome.Cluster([0.0, 0.0], [1.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match="rotation"):
        hd.genome.Cluster([0.0, 0.0], [1.0, 1.0], np.eye(3))


def test_new_shapes_and_swapped_means_are_checked_genes_of_the_same_keys():
    """`with_shape` checks as the constructor does; `with_mean_of` is `with_mean` of the
    other gene's mean (crossover's swap), without a copy, read-only."""
    rng = np.random.default_rng(5)
    a, b = make_gene(rng, 2), make_gene(rng, 2)
    swapped = a.with_mean_of(b)
    assert swapped.key == a.with_mean(b.mean).key == hd.genome.Cluster(
        b.mean, a.variances, a.rotation).key
    assert swapped.shape_key == a.shape_key and not swapped.mean.flags.writeable
    reshaped = a.with_shape(b.variances * 2.0, b.rotation)
    assert reshaped.key == hd.genome.Cluster(a.mean, b.variances * 2.0, b.rotation).key
    assert not reshaped.variances.flags.writeable and not reshaped.rotation.flags.writeable
    with pytest.raises(ValueError, match="variances must be > 0"):
        a.with_shape([1.0, -1.0], np.eye(2))
    with pytest.raises(ValueError, match="rotation must be finite"):
        a.with_shape([1.0, 1.0], [[1.0, np.nan], [0.0, 1.0]])
    with pytest.raises(ValueError, match="other must be a gene of dimension 2, got one of "
                       "dimension 3"):
        a.with_mean_of(hd.genome.Cluster([0.0, 0.0, 0.0], [1.0] * 3, np.eye(3)))
    with pytest.raises(TypeError, match="other must be a Cluster, got ndarray"):
        a.with_mean_of(b.mean)


def test_clone_shares_genes_and_copies_fitness():
    rng = np.random.default_rng(2)
    ind = hd.genome.Genotype([make_gene(rng) for _ in range(3)], hd.genome.IndexFitness())
    ind.fitness.values = hd.genome.Evaluation((0.25,), {"index": 0.3, "penalty": 0.0})
    c = ind.clone()
    assert c is not ind and all(a is b for a, b in zip(c, ind))
    assert c.fitness is not ind.fitness and c.fitness.values == (0.25,)
    assert c.record == {"index": 0.3, "penalty": 0.0}
    d = copy.deepcopy(ind)
    assert all(a is b for a, b in zip(d, ind)) and d.record == ind.record
    c[0] = c[0].with_mean(np.zeros(3))
    assert ind[0] is not c[0]
    del c.fitness.values
    assert not c.fitness.valid and c.record == {} and ind.fitness.valid


def test_genotype_pickles_with_fitness_and_record():
    rng = np.random.default_rng(3)
    ind = hd.genome.Genotype([make_gene(rng) for _ in range(2)], hd.genome.VersusFitness())
    ind.fitness.values = hd.genome.Evaluation((0.7,), {"winner_score": 0.9})
    back = pickle.loads(pickle.dumps(ind))
    assert isinstance(back, hd.genome.Genotype)
    assert isinstance(back.fitness, hd.genome.VersusFitness)
    assert back.fitness.values == (0.7,) and back.record == {"winner_score": 0.9}
    assert hd.genome.genotype_equal(back, ind)


def test_layout_sampling_matches_gene_formula():
    rng = np.random.default_rng(4)
    layout = hd.genome.Layout([5, 7, 9], 3, rng=rng)
    ind = hd.genome.Genotype([make_gene(rng) for _ in range(3)])
    X, y = layout.sample(ind)
    assert X.shape == (21, 3) and np.array_equal(y, np.repeat([0, 1, 2], [5, 7, 9]))
    for k, g in enumerate(ind):
        pts = X[y == k]
        expected = g.mean + layout.z[k] @ np.diag(np.sqrt(g.variances)) @ g.rotation.T
        np.testing.assert_allclose(pts, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(layout.data_mean(ind), X.mean(axis=0), atol=1e-12)


def test_sampled_covariance_converges_to_gene():
    rng = np.random.default_rng(5)
    g = make_gene(rng, 3)
    layout = hd.genome.Layout([200_000], 3, rng=rng)
    pts = layout.cluster_points([g], 0)
    np.testing.assert_allclose(pts.mean(axis=0), g.mean, atol=0.01)
    np.testing.assert_allclose(np.cov(pts.T), g.covariance, atol=0.01)


@pytest.mark.parametrize("d", [1, 2, 5, 30])
def test_haar_rotation_is_proper(d):
    r = haar_rotation(d, np.random.default_rng(d))
    np.testing.assert_allclose(r @ r.T, np.eye(d), atol=1e-12)
    assert np.linalg.det(r) == pytest.approx(1.0)


def test_cluster_sizes_equal_and_random():
    rng = np.random.default_rng(6)
    assert cluster_sizes(10, 3, rng, equal=True).tolist() == [4, 3, 3]
    s = cluster_sizes(2000, 30, rng, min_size=10)
    assert s.sum() == 2000 and s.min() >= 10
    with pytest.raises(ValueError, match="n_samples"):
        cluster_sizes(50, 10, rng, min_size=10)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 40), min_size=st.integers(1, 50),
       extra=st.integers(0, 5000), equal=st.booleans())
def test_sizes_sum_to_n_and_respect_minimum(seed, k, min_size, extra, equal):
    n = k * min_size + extra
    s = cluster_sizes(n, k, np.random.default_rng(seed), equal=equal, min_size=min_size)
    assert s.shape == (k,) and s.sum() == n
    if equal:
        assert s.max() - s.min() <= 1
    else:
        assert s.min() >= min_size


def test_multiobjective_fitness_class_with_weights_is_a_cached_picklable_class():
    import copy
    import pickle

    cls = hd.genome.MultiObjectiveFitness.with_weights((-1, 1.0))
    assert cls is hd.genome.MultiObjectiveFitness.with_weights([-1.0, 1.0])  # one class per tuple
    assert issubclass(cls, hd.genome.MultiObjectiveFitness) and cls.weights == (-1.0, 1.0)
    fit = cls()
    assert not fit.valid and fit.weights == (-1.0, 1.0)
    fit.values = hd.genome.Evaluation((0.25, 3.0), {"penalty": 0.0})
    for other in (copy.deepcopy(fit), pickle.loads(pickle.dumps(fit))):
        assert other.values == (0.25, 3.0) and other.weights == (-1.0, 1.0)
        assert other.record == {"penalty": 0.0}
    problem = hd.IndexProblem(100, 3, 2, 0.5, constraints=[hd.Overlap(max=0.1)])
    assert problem.as_multiobjective().fitness_class is cls.with_weights((-1.0, -1.0))


def test_a_creator_subclass_of_the_multi_objective_fitness_keeps_its_class_when_pickled():
    import pickle

    from deap import creator

    from hawks_deap.genome.genotype import MultiObjectiveFitness

    name = "FitnessMultiPickleTest"
    if not hasattr(creator, name):
        creator.create(name, MultiObjectiveFitness, weights=(-1.0, -1.0))
    cls = getattr(creator, name)
    fit = cls()
    fit.values = (0.5, 2.0)
    back = pickle.loads(pickle.dumps(fit))
    # (DEAP's creator makes its class again when it unpickles one: compare by name)
    assert (type(back).__module__, type(back).__qualname__) == ("deap.creator", name)
    assert isinstance(back, MultiObjectiveFitness)
    assert back.values == (0.5, 2.0) and back.weights == (-1.0, -1.0)
    # a class made at run time unpickles as the module-level class, weights kept
    made = MultiObjectiveFitness.with_weights((1.0, -1.0))()
    made.values = (1.0, 3.0)
    back = pickle.loads(pickle.dumps(made))
    assert type(back) is MultiObjectiveFitness and back.weights == (1.0, -1.0)
    assert back.values == (1.0, 3.0)


def test_a_fitness_that_would_optimise_the_other_way_refuses_the_values():
    import pickle

    from hawks_deap.genome.genotype import Evaluation, IndexFitness, RecordFitness

    class Minimise(RecordFitness):
        weights = (-1.0,)

    meant = Evaluation((0.4,), {"penalty": 0.0}, "key", weights=(1.0,))  # Versus: maximise
    fit = Minimise()
    with pytest.raises(ValueError, match=r"Minimise has weights \(-1\.0,\), but the problem "
                                         r"that evaluated these values means \(1\.0,\)"):
        fit.values = meant
    assert not fit.valid
    IndexFitness().values = Evaluation((0.4,), {}, "key", weights=(-2.0,))  # same direction
    Minimise().values = Evaluation((0.4,), {}, "key")  # a user's problem: unknown, accepted
    back = pickle.loads(pickle.dumps(meant))
    assert back.weights == (1.0,) and back.layout_key == "key" and back == meant
