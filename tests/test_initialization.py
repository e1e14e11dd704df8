"""Initialisation (HAWKS paper III-B, supplement S-I.A): sizes, genes, populations.

Oracles: the documented distributions checked with scipy.stats (Kolmogorov-Smirnov on
fixed seeds), ``scipy.stats.special_ortho_group`` for the Haar rotations (documented as
bit-identical), ``numpy.linalg.matrix_power`` and ``scipy.linalg.fractional_matrix_power``
for rotation powers, and determinism (same seed, same bytes).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import needs_scipy_qr_haar
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.linalg import fractional_matrix_power

import hawks_deap as hd
from hawks_deap.genome.genotype import Cluster, Genotype, IndexFitness, VersusFitness
from hawks_deap.genome.initialization import (
    cluster_sizes,
    haar_from_normals,
    haar_rotation,
    random_cluster,
    random_genotype,
    rotation_power,
    rotation_powers,
)


def gene_bytes(genes) -> bytes:
    return b"".join(g.mean.tobytes() + g.variances.tobytes() + g.rotation.tobytes()
                    for g in genes)


def assert_proper_rotation(r: np.ndarray, atol: float = 1e-12) -> None:
    d = r.shape[0]
    assert r.shape == (d, d)
    np.testing.assert_allclose(r @ r.T, np.eye(d), atol=atol)
    np.testing.assert_allclose(r.T @ r, np.eye(d), atol=atol)
    assert np.linalg.det(r) == pytest.approx(1.0, abs=1e-10)


class BoundedRng:
    """A Generator proxy that refuses to draw more than ``limit`` times (no hangs)."""

    def __init__(self, seed: int, limit: int = 1000) -> None:
        self._rng = np.random.default_rng(seed)
        self.limit = limit
        self.calls = 0

    def __getattr__(self, name):
        attr = getattr(self._rng, name)
        if not callable(attr):
            return attr

        def draw(*args, **kwargs):
            self.calls += 1
            if self.calls > self.limit:
                raise RuntimeError(f"more than {self.limit} draws: the caller does not stop")
            return attr(*args, **kwargs)

        return draw


# ---------------------------------------------------------------------------------------
# cluster_sizes
# ---------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 30), min_size=st.integers(1, 40),
       extra=st.integers(0, 3000))
def test_random_sizes_sum_to_n_and_respect_the_minimum(seed, k, min_size, extra):
    n = k * min_size + extra
    sizes = cluster_sizes(n, k, np.random.default_rng(seed), min_size=min_size)
    assert sizes.shape == (k,) and sizes.dtype == np.int64
    assert int(sizes.sum()) == n
    assert sizes.min() >= min_size
    # seed determinism: same seed, same bytes
    again = cluster_sizes(n, k, np.random.default_rng(seed), min_size=min_size)
    assert sizes.tobytes() == again.tobytes()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 5000), k=st.integers(1, 50))
def test_equal_sizes(n, k):
    if n < k:
        with pytest.raises(ValueError, match=rf"n_samples={n} is too small for n_clusters={k}"):
            cluster_sizes(n, k, np.random.default_rng(0), equal=True)
        return
    sizes = cluster_sizes(n, k, np.random.default_rng(0), equal=True)
    expected = [n // k + (i < n % k) for i in range(k)]  # remainder to the first slots
    assert sizes.tolist() == expected
    assert sizes.dtype == np.int64


def test_equal_sizes_examples_and_rng_unused():
    rng = np.random.default_rng(1)
    state = rng.bit_generator.state
    assert cluster_sizes(10, 3, rng, equal=True).tolist() == [4, 3, 3]
    assert cluster_sizes(12, 4, rng, equal=True).tolist() == [3, 3, 3, 3]
    # min_size applies to random sizes only
    assert cluster_sizes(20, 4, rng, equal=True, min_size=50).tolist() == [5, 5, 5, 5]
    assert rng.bit_generator.state == state  # "unused when equal"


def test_random_sizes_edge_cases():
    rng = np.random.default_rng(2)
    assert cluster_sizes(30, 3, rng, min_size=10).tolist() == [10, 10, 10]  # no spare
    assert cluster_sizes(77, 1, rng, min_size=5).tolist() == [77]
    assert cluster_sizes(3, 3, rng, min_size=1).tolist() == [1, 1, 1]


def test_random_sizes_differ_between_seeds_and_consume_the_rng():
    a = cluster_sizes(10_000, 6, np.random.default_rng(0))
    b = cluster_sizes(10_000, 6, np.random.default_rng(1))
    assert a.tolist() != b.tolist()
    rng = np.random.default_rng(0)
    first, second = cluster_sizes(10_000, 6, rng), cluster_sizes(10_000, 6, rng)
    assert first.tolist() == a.tolist() and second.tolist() != first.tolist()


@pytest.mark.parametrize("k", [2, 4])
def test_random_sizes_follow_the_dirichlet_rule(k):
    """S-I.A: |C_i| = C_min + w_i (N - K C_min), w ~ Dir(1, ..., 1).

    Each w_i of a flat Dirichlet is Beta(1, K - 1); with N - K C_min = 100 000 the
    rounding (below one point) is invisible to the test.
    """
    min_size, spare = 25, 100_000
    n = k * min_size + spare
    rng = np.random.default_rng(1234 + k)
    draws = np.array([cluster_sizes(n, k, rng, min_size=min_size) for _ in range(1500)])
    w = (draws - min_size) / spare
    for i in range(k):
        assert stats.kstest(w[:, i], stats.beta(1, k - 1).cdf).pvalue > 1e-3
    # every slot is exchangeable: the mean share of each is 1/K
    np.testing.assert_allclose(w.mean(axis=0), 1.0 / k, atol=0.03)


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "pattern"),
    [
        ((50, 10), {"min_size": 10}, ValueError,
         r"n_samples must be >= n_clusters \* min_size = 100, got 50"),
        ((0, 2), {}, ValueError, r"n_samples must be >= 1, got 0"),
        ((100, 0), {}, ValueError, r"n_clusters must be >= 1, got 0"),
        ((100, -3), {"equal": True}, ValueError, r"n_clusters must be >= 1, got -3"),
        ((100, 2), {"min_size": 0}, ValueError, r"min_size must be >= 1, got 0"),
        ((100.0, 2), {}, TypeError, r"n_samples must be an integer, got 100\.0 \(float\)"),
        ((100, "2"), {}, TypeError, r"n_clusters must be an integer, got '2' \(str\)"),
        ((100, 2), {"min_size": True}, TypeError,
         r"min_size must be an integer, got True \(bool\)"),
    ],
)
def test_cluster_sizes_errors_name_the_parameter(args, kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        cluster_sizes(*args, np.random.default_rng(0), **kwargs)


def test_numpy_integers_are_accepted():
    sizes = cluster_sizes(np.int64(100), np.int32(4), np.random.default_rng(0),
                          min_size=np.int16(5))
    assert int(sizes.sum()) == 100 and sizes.min() >= 5


# ---------------------------------------------------------------------------------------
# Haar rotations
# ---------------------------------------------------------------------------------------


@needs_scipy_qr_haar
@pytest.mark.parametrize("d", [1, 2, 3, 4, 7, 12])
def test_haar_rotation_is_bit_identical_to_scipy(d):
    for seed in range(4):
        ours = haar_rotation(d, np.random.default_rng(seed))
        ref = stats.special_ortho_group.rvs(d, random_state=np.random.default_rng(seed))
        assert ours.tobytes() == np.asarray(ref, dtype=np.float64).reshape(d, d).tobytes()
        assert_proper_rotation(ours)


def test_haar_rotation_is_haar_distributed():
    """Entries of a Haar rotation of SO(D): R_ij^2 ~ Beta(1/2, (D - 1)/2)."""
    rng = np.random.default_rng(7)
    d = 4
    rs = np.array([haar_rotation(d, rng) for _ in range(1500)])
    for i, j in [(0, 0), (1, 3), (3, 2)]:
        assert stats.kstest(rs[:, i, j] ** 2, stats.beta(0.5, (d - 1) / 2).cdf).pvalue > 1e-3
    # sign symmetry: the mean rotation is 0
    np.testing.assert_allclose(rs.mean(axis=0), 0.0, atol=0.08)


def test_haar_from_normals_matches_haar_rotation_bit_for_bit():
    for d in (1, 2, 3, 6):
        rng = np.random.default_rng(d)
        normals = rng.normal(size=(5, d, d))
        stacked = haar_from_normals(normals)
        assert stacked.shape == (5, d, d)
        for i in range(5):
            one = haar_from_normals(normals[i:i + 1])[0]
            assert one.tobytes() == stacked[i].tobytes()
            assert_proper_rotation(stacked[i])
        if d > 1:  # haar_rotation draws one (1, D, D) normal block
            seed = 40 + d
            block = np.random.default_rng(seed).normal(size=(1, d, d))
            assert (haar_from_normals(block)[0].tobytes()
                    == haar_rotation(d, np.random.default_rng(seed)).tobytes())


@pytest.mark.parametrize(
    ("normals", "pattern"),
    [
        (np.zeros((2, 3)), r"normals must be a stack of square matrices.*got shape \(2, 3\)"),
        (np.zeros((1, 2, 3)), r"got shape \(1, 2, 3\)"),
        (np.zeros((1, 0, 0)), r"D >= 1, got shape \(1, 0, 0\)"),
        (np.full((1, 2, 2), np.nan), r"normals must be finite"),
    ],
)
def test_haar_from_normals_rejects_bad_input(normals, pattern):
    with pytest.raises(ValueError, match=pattern):
        haar_from_normals(normals)


# ---------------------------------------------------------------------------------------
# Rotation powers
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [2, 3, 5])
def test_rotation_power_integer_and_fractional(d):
    rng = np.random.default_rng(50 + d)
    for _ in range(2):
        r = haar_rotation(d, rng)
        np.testing.assert_allclose(rotation_power(r, 0.0), np.eye(d), atol=1e-12)
        np.testing.assert_allclose(rotation_power(r, 1.0), r, atol=1e-12)
        for p in (2, 3, -1):
            np.testing.assert_allclose(rotation_power(r, float(p)),
                                       np.linalg.matrix_power(r, p), atol=1e-10)
        for p in (0.5, 0.25, -0.7, 1.3):
            got = rotation_power(r, p)
            ref = fractional_matrix_power(r, p)
            np.testing.assert_allclose(got, np.real(ref), atol=1e-8)
            assert_proper_rotation(got, atol=1e-12)
        half = rotation_power(r, 0.5)
        np.testing.assert_allclose(half @ half, r, atol=1e-10)


def test_rotation_powers_stack_matches_one_by_one():
    rng = np.random.default_rng(9)
    rs = np.array([haar_rotation(4, rng) for _ in range(6)])
    stacked = rotation_powers(rs, 0.37)
    for i in range(6):
        assert stacked[i].tobytes() == rotation_power(rs[i], 0.37).tobytes()


def test_rotation_power_of_a_half_turn_stays_proper():
    r = np.diag([-1.0, -1.0, 1.0])  # a rotation by pi: the Schur path
    half = rotation_power(r, 0.5)
    assert_proper_rotation(half)
    np.testing.assert_allclose(half @ half, r, atol=1e-12)


def test_rotation_power_errors():
    with pytest.raises(TypeError, match=r"power must be a real number, got 'x' \(str\)"):
        rotation_power(np.eye(3), "x")
    with pytest.raises(ValueError, match=r"power must be finite"):
        rotation_power(np.eye(3), float("nan"))
    with pytest.raises(ValueError, match=r"rotations must be a stack of square matrices"):
        rotation_power(np.zeros((2, 3)), 0.5)
    with pytest.raises(ValueError, match=r"rotations must be finite"):
        rotation_powers(np.full((1, 3, 3), np.inf), 0.5)


# ---------------------------------------------------------------------------------------
# Random genes and genotypes
# ---------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), d=st.integers(1, 6),
       mean_upper=st.floats(1e-3, 1e3), cov_upper=st.floats(1e-3, 1e3))
def test_random_genotype_shapes_and_ranges(seed, k, d, mean_upper, cov_upper):
    ind = random_genotype(k, d, np.random.default_rng(seed), fitness_class=IndexFitness,
                          initial_mean_upper=mean_upper, initial_cov_upper=cov_upper)
    assert isinstance(ind, Genotype) and len(ind) == k
    assert type(ind.fitness) is IndexFitness and not ind.fitness.valid
    for gene in ind:
        assert isinstance(gene, Cluster) and gene.n_dims == d
        assert gene.mean.shape == (d,) and gene.variances.shape == (d,)
        assert np.all(gene.mean >= 0.0) and np.all(gene.mean < mean_upper)
        assert np.all(gene.variances > 0.0) and np.all(gene.variances <= cov_upper)
        assert_proper_rotation(gene.rotation)
        np.testing.assert_allclose(np.linalg.eigvalsh(gene.covariance),
                                   np.sort(gene.variances), rtol=1e-9,
                                   atol=1e-12 * cov_upper)
    again = random_genotype(k, d, np.random.default_rng(seed), fitness_class=IndexFitness,
                            initial_mean_upper=mean_upper, initial_cov_upper=cov_upper)
    assert gene_bytes(ind) == gene_bytes(again)
    assert ind.key == again.key


def test_random_genotype_fitness_class_and_independent_genes():
    rng = np.random.default_rng(3)
    ind = random_genotype(4, 3, rng, fitness_class=VersusFitness)
    assert type(ind.fitness) is VersusFitness
    assert len({g.key for g in ind}) == 4  # distinct genes
    other = random_genotype(4, 3, rng, fitness_class=VersusFitness)
    assert gene_bytes(other) != gene_bytes(ind)  # the generator moves on
    assert gene_bytes(random_genotype(4, 3, np.random.default_rng(4),
                                      fitness_class=VersusFitness)) != gene_bytes(ind)


def test_random_genes_survive_to_dict_round_trip():
    for gene in random_genotype(3, 4, np.random.default_rng(5), fitness_class=IndexFitness):
        back = Cluster.from_dict(gene.to_dict())
        assert back.key == gene.key and back == gene
        np.testing.assert_allclose(gene.to_dict()["covariance"], gene.covariance)


def test_random_cluster_defaults_follow_the_paper():
    """III-B with the TEVC defaults: mu ~ U(0, 2)^D, lambda ~ U(0, 0.5)^D, Haar R."""
    rng = np.random.default_rng(21)
    d = 3
    genes = [random_cluster(d, rng) for _ in range(600)]
    means = np.concatenate([g.mean for g in genes])
    variances = np.concatenate([g.variances for g in genes])
    assert stats.kstest(means, stats.uniform(0.0, 2.0).cdf).pvalue > 1e-3
    assert stats.kstest(variances, stats.uniform(0.0, 0.5).cdf).pvalue > 1e-3
    first_rows = np.array([g.rotation[0, 0] for g in genes])  # Archimedes: U(-1, 1) in 3-D
    assert stats.kstest(first_rows, stats.uniform(-1.0, 2.0).cdf).pvalue > 1e-3
    for g in genes[:20]:
        assert_proper_rotation(g.rotation)


def test_random_cluster_one_dimension():
    g = random_cluster(1, np.random.default_rng(0), initial_mean_upper=3.0,
                       initial_cov_upper=0.1)
    assert g.rotation.tolist() == [[1.0]]
    assert 0.0 <= g.mean[0] < 3.0 and 0.0 < g.variances[0] <= 0.1
    assert g.eccentricity == 1.0


@pytest.mark.parametrize(
    ("kwargs", "exc", "pattern"),
    [
        ({"initial_mean_upper": 0.0}, ValueError,
         r"initial_mean_upper must lie in \(0, inf\), got 0"),
        ({"initial_mean_upper": -1.0}, ValueError, r"initial_mean_upper must lie in \(0, inf\)"),
        ({"initial_cov_upper": 0.0}, ValueError,
         r"initial_cov_upper must lie in \(0, inf\), got 0"),
        ({"initial_cov_upper": float("inf")}, ValueError,
         r"initial_cov_upper must be finite, got inf"),
        ({"initial_cov_upper": "0.5"}, TypeError,
         r"initial_cov_upper must be a real number, got '0\.5' \(str\)"),
    ],
)
def test_random_genotype_rejects_bad_uppers(kwargs, exc, pattern):
    rng = BoundedRng(0)
    with pytest.raises(exc, match=pattern):
        random_genotype(3, 2, rng, fitness_class=IndexFitness, **kwargs)
    assert rng.calls == 0  # validated before any draw


@pytest.mark.parametrize(("k", "d", "name"), [(0, 2, "n_clusters"), (-1, 2, "n_clusters"),
                                              (2, 0, "n_dims")])
def test_random_genotype_validates_k_and_d(k, d, name):
    with pytest.raises(ValueError, match=name):
        random_genotype(k, d, np.random.default_rng(0), fitness_class=IndexFitness)


@pytest.mark.parametrize("upper", [0.0, -0.5])
def test_random_cluster_rejects_non_positive_cov_upper(upper):
    with pytest.raises(ValueError, match="initial_cov_upper"):
        random_cluster(2, BoundedRng(0, limit=1000), initial_cov_upper=upper)


# ---------------------------------------------------------------------------------------
# Populations through the public toolbox
# ---------------------------------------------------------------------------------------


def make_problem(**kwargs):
    options = {"n_samples": 300, "n_clusters": 4, "n_dims": 3, "target": 0.5}
    options.update(kwargs)
    return hd.IndexProblem(**options)


def test_population_of_the_toolbox():
    problem = make_problem(initial_mean_upper=5.0, initial_cov_upper=0.2, min_size=20)
    toolbox = hd.make_toolbox(problem, seed=0)
    pop = toolbox.population(n=7)
    assert len(pop) == 7
    sizes = problem.layout.sizes
    assert int(sizes.sum()) == 300 and sizes.min() >= 20 and sizes.shape == (4,)
    for ind in pop:
        assert isinstance(ind, hd.genome.Genotype) and len(ind) == 4
        assert isinstance(ind.fitness, problem.fitness_class) and not ind.fitness.valid
        for gene in ind:
            assert gene.n_dims == 3
            assert np.all((gene.mean >= 0.0) & (gene.mean < 5.0))
            assert np.all((gene.variances > 0.0) & (gene.variances <= 0.2))
            assert_proper_rotation(gene.rotation)
        X, y = problem.sample(ind)
        assert X.shape == (300, 3) and np.bincount(y).tolist() == sizes.tolist()
    assert len({ind.key for ind in pop}) == 7  # distinct individuals


def test_population_is_determined_by_the_seed():
    def draw(seed, **kwargs):
        problem = make_problem(**kwargs)
        toolbox = hd.make_toolbox(problem, seed=seed)
        pop = toolbox.population(n=5)
        return problem.layout.sizes.tobytes() + b"".join(gene_bytes(ind) for ind in pop)

    assert draw(3) == draw(3)
    assert draw(3) != draw(4)
    assert draw(np.random.SeedSequence(8)) == draw(np.random.SeedSequence(8))
    assert draw(3, equal_sizes=True) == draw(3, equal_sizes=True)


def test_equal_sizes_problem_layout():
    problem = make_problem(n_samples=302, equal_sizes=True)
    hd.make_toolbox(problem, seed=1)
    assert problem.layout.sizes.tolist() == [76, 76, 75, 75]


def test_problem_initialisation_errors_name_the_parameter():
    with pytest.raises(ValueError, match=r"n_samples must be >= n_clusters \* min_size = 40"):
        make_problem(n_samples=39, min_size=10)
    with pytest.raises(ValueError, match=r"initial_cov_upper must lie in \(0, \d"):
        make_problem(initial_cov_upper=0.0)
    with pytest.raises(ValueError, match=r"initial_mean_upper must lie in \(0, \d"):
        make_problem(initial_mean_upper=-2.0)
    with pytest.raises(TypeError, match=r"min_size must be an integer"):
        make_problem(min_size=2.5)
