"""Constraints (HAWKS paper III-D): validation, violations, penalty and the two measures.

Oracles: an explicit O(N^2) nearest-neighbour loop over ``scipy.spatial.distance.cdist``
values for the overlap (Eq. 5, with the duplicate and tie rules documented by
``hawks_deap.evaluation.nearest_neighbour_overlap``), ``numpy.linalg.eigvalsh`` of each gene's
covariance for the eccentricity (Eq. 6), and the sum of squared violations written out
for the penalty (HAWKS 0.2.0).
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.spatial.distance import cdist
from sklearn.neighbors import NearestNeighbors

import hawks_deap as hd
from hawks_deap.genome.genotype import Cluster
from hawks_deap.genome.initialization import haar_rotation
from hawks_deap.problems.constraints import (
    Constraint,
    Eccentricity,
    Overlap,
    check_constraints,
    penalty,
)

# ---------------------------------------------------------------------------------------
# Oracles
# ---------------------------------------------------------------------------------------


def brute_overlap(X: np.ndarray, labels: np.ndarray) -> float:
    """Eq. 5 by an explicit loop: share of points whose nearest neighbour is foreign.

    The neighbour of a point is its nearest point at a positive (cdist "sqeuclidean")
    distance; under an exact tie the point overlaps when any tied point is foreign; a
    point with no point at positive distance does not overlap but stays in the count N.
    """
    X = np.asarray(X, dtype=float)
    d = cdist(X, X, "sqeuclidean")
    n = X.shape[0]
    overlapping = 0
    for i in range(n):
        best = math.inf
        foreign = False
        for j in range(n):
            if j == i or d[i, j] <= 0.0:
                continue
            if d[i, j] < best:
                best = d[i, j]
                foreign = labels[j] != labels[i]
            elif d[i, j] == best:
                foreign = foreign or labels[j] != labels[i]
        overlapping += foreign
    return overlapping / n


def eigen_ratio(gene: Cluster) -> float:
    """lambda_max / lambda_min of the gene's covariance, by eigendecomposition."""
    eig = np.linalg.eigvalsh(gene.covariance)
    return float(eig.max() / eig.min())


def random_genes(rng: np.random.Generator, k: int, d: int) -> list[Cluster]:
    """Genes with variances in [0.1, 10] (ratios <= 100: eigvalsh is accurate to 1e-12)."""
    return [Cluster(rng.normal(size=d), 10.0 ** rng.uniform(-1.0, 1.0, size=d),
                    haar_rotation(d, rng)) for _ in range(k)]


# ---------------------------------------------------------------------------------------
# Construction and validation
# ---------------------------------------------------------------------------------------


def test_public_names_are_the_module_classes():
    assert hd.Overlap is Overlap
    assert hd.Eccentricity is Eccentricity
    assert hd.problems.constraints.Constraint is Constraint
    assert issubclass(Overlap, Constraint) and issubclass(Eccentricity, Constraint)


@pytest.mark.parametrize("cls", [Overlap, Eccentricity])
def test_a_bound_is_required(cls):
    with pytest.raises(ValueError, match=rf"{cls.__name__} needs min=\.\.\. and/or max="):
        cls()


@pytest.mark.parametrize("cls", [Overlap, Eccentricity])
def test_bounds_are_keyword_only(cls):
    with pytest.raises(TypeError):
        cls(0.1)


@pytest.mark.parametrize(
    ("cls", "kwargs", "pattern"),
    [
        (Overlap, {"min": -0.01}, r"Overlap\(min\) must lie in \[0, 1\], got -0\.01"),
        (Overlap, {"max": 1.5}, r"Overlap\(max\) must lie in \[0, 1\], got 1\.5"),
        (Overlap, {"max": math.inf}, r"Overlap\(max\) must be finite, got inf"),
        (Overlap, {"min": math.nan}, r"Overlap\(min\) must be finite, got nan"),
        (Eccentricity, {"min": 0.5}, r"Eccentricity\(min\) must lie in \[1, inf\), got 0\.5"),
        (Eccentricity, {"max": 0.0}, r"Eccentricity\(max\) must lie in \[1, inf\), got 0"),
        (Eccentricity, {"max": -math.inf}, r"Eccentricity\(max\) must be finite"),
    ],
)
def test_out_of_range_bounds_are_named(cls, kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        cls(**kwargs)


@pytest.mark.parametrize(
    ("cls", "kwargs", "pattern"),
    [
        (Overlap, {"max": "0.1"}, r"Overlap\(max\) must be a real number, got '0\.1' \(str\)"),
        (Overlap, {"min": True}, r"Overlap\(min\) must be a real number, got True \(bool\)"),
        (Eccentricity, {"min": [2.0]}, r"Eccentricity\(min\) must be a real number"),
        (Eccentricity, {"max": 3 + 0j}, r"Eccentricity\(max\) must be a real number"),
    ],
)
def test_non_numeric_bounds_are_type_errors(cls, kwargs, pattern):
    with pytest.raises(TypeError, match=pattern):
        cls(**kwargs)


@pytest.mark.parametrize(
    ("cls", "low", "high", "pattern"),
    [
        (Overlap, 0.3, 0.2, r"Overlap: min \(0\.3\) must be <= max \(0\.2\)"),
        (Eccentricity, 5.0, 2.0, r"Eccentricity: min \(5\) must be <= max \(2\)"),
    ],
)
def test_min_above_max_is_rejected(cls, low, high, pattern):
    with pytest.raises(ValueError, match=pattern):
        cls(min=low, max=high)


def test_admissible_edges_are_accepted_and_stored_as_floats():
    assert (Overlap(min=0).min, Overlap(max=1).max) == (0.0, 1.0)
    assert isinstance(Overlap(max=1).max, float)
    e = Eccentricity(min=1, max=1e6)
    assert (e.min, e.max) == (1.0, 1e6) and isinstance(e.min, float)
    both = Overlap(min=0.2, max=0.2)  # min == max is a point interval, not an error
    assert both.violation(0.2) == 0.0
    assert Overlap(max=np.float32(0.5)).max == 0.5
    assert Eccentricity(min=np.int64(3)).min == 3.0


@pytest.mark.parametrize(
    ("aggregate", "pattern"),
    [
        ("mean", r"unknown aggregate 'mean'; valid: 'max', 'min'"),
        ("Max", r"unknown aggregate 'Max' \(did you mean 'max'\?\); valid: 'max', 'min'"),
        ("mn", r"did you mean 'min'\?"),
    ],
)
def test_unknown_aggregate_lists_the_valid_ones(aggregate, pattern):
    with pytest.raises(ValueError, match=pattern):
        Eccentricity(min=2.0, aggregate=aggregate)


def test_non_string_aggregate_is_rejected():
    with pytest.raises(ValueError, match=r"unknown aggregate None; valid: 'max', 'min'"):
        Eccentricity(min=2.0, aggregate=None)


def test_names_are_the_record_keys():
    assert Overlap(max=0.1).name == Overlap.measure == "overlap"
    assert Eccentricity(min=2).name == Eccentricity.measure == "eccentricity"
    assert Eccentricity(min=2).aggregate == "max"  # Eq. 6


# ---------------------------------------------------------------------------------------
# violation and penalty
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.0, 0.0), (0.05, 0.0), (0.1, 0.0), (0.35, 0.25), (1.0, 0.9)],
)
def test_violation_of_an_upper_bound(value, expected):
    assert Overlap(max=0.1).violation(value) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1.0, 2.0), (2.5, 0.5), (3.0, 0.0), (3.0000001, 0.0), (1e9, 0.0)],
)
def test_violation_of_a_lower_bound(value, expected):
    assert Eccentricity(min=3.0).violation(value) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.0, 0.1), (0.1, 0.0), (0.2, 0.0), (0.3, 0.0), (0.5, 0.2), (1.0, 0.7)],
)
def test_violation_of_both_bounds(value, expected):
    c = Overlap(min=0.1, max=0.3)
    assert c.violation(value) == pytest.approx(expected, abs=1e-15)
    assert isinstance(c.violation(value), float)


bound = st.floats(0.0, 1.0, allow_nan=False)
milli = st.integers(0, 1000).map(lambda v: v / 1000)  # squares of violations do not underflow


@settings(max_examples=80, deadline=None)
@given(a=st.one_of(st.none(), bound), b=st.one_of(st.none(), bound),
       value=st.floats(-10.0, 10.0, allow_nan=False))
def test_violation_is_the_distance_to_the_interval(a, b, value):
    if a is None and b is None:
        return
    low, high = (a, b) if a is None or b is None else (min(a, b), max(a, b))
    c = Overlap(min=low, max=high)
    lo = -math.inf if low is None else low
    hi = math.inf if high is None else high
    expected = max(lo - value, value - hi, 0.0)
    assert c.violation(value) == expected
    assert (c.violation(value) == 0.0) == (lo <= value <= hi)


def test_penalty_is_the_sum_of_squared_violations():
    cons = [Overlap(max=0.1), Eccentricity(min=4.0, max=10.0)]
    assert penalty(cons, {"overlap": 0.05, "eccentricity": 5.0}) == 0.0
    assert penalty(cons, {"overlap": 0.3, "eccentricity": 5.0}) == pytest.approx(0.2**2)
    assert penalty(cons, {"overlap": 0.3, "eccentricity": 1.0}) == pytest.approx(0.04 + 9.0)
    assert penalty(cons, {"overlap": 0.1, "eccentricity": 12.5}) == pytest.approx(6.25)
    # values of measures without a constraint are ignored
    assert penalty([Overlap(max=0.1)], {"overlap": 0.2, "eccentricity": 99.0}) == (
        pytest.approx(0.01))
    assert penalty([], {"overlap": 1.0}) == 0.0
    assert isinstance(penalty(cons, {"overlap": 0.0, "eccentricity": 4.0}), float)


def test_penalty_accepts_any_iterable_of_constraints():
    cons = (c for c in [Overlap(max=0.1), Eccentricity(min=2.0)])
    assert penalty(cons, {"overlap": 0.6, "eccentricity": 1.0}) == pytest.approx(0.25 + 1.0)


@settings(max_examples=80, deadline=None)
@given(o_lo=milli, o_hi=milli, e_lo=st.floats(1.0, 50.0), e_span=st.floats(0.0, 50.0),
       overlap=milli, ecc=st.floats(1.0, 200.0))
def test_penalty_property(o_lo, o_hi, e_lo, e_span, overlap, ecc):
    o_lo, o_hi = min(o_lo, o_hi), max(o_lo, o_hi)
    cons = [Overlap(min=o_lo, max=o_hi), Eccentricity(min=e_lo, max=e_lo + e_span)]
    values = {"overlap": overlap, "eccentricity": ecc}
    v_o = max(o_lo - overlap, overlap - o_hi, 0.0)
    v_e = max(e_lo - ecc, ecc - (e_lo + e_span), 0.0)
    p = penalty(cons, values)
    assert p == pytest.approx(v_o**2 + v_e**2, rel=1e-12, abs=1e-300)
    assert p >= 0.0
    assert (p == 0.0) == (v_o == 0.0 and v_e == 0.0)


# ---------------------------------------------------------------------------------------
# check_constraints
# ---------------------------------------------------------------------------------------


def test_check_constraints_returns_a_tuple_in_order():
    o, e = Overlap(max=0.1), Eccentricity(min=2.0)
    assert check_constraints([o, e]) == (o, e)
    assert check_constraints([e, o]) == (e, o)
    assert check_constraints(iter([o])) == (o,)
    assert check_constraints(o) == (o,)  # a single constraint is accepted on its own
    assert check_constraints(()) == ()


def test_check_constraints_rejects_two_on_one_measure():
    with pytest.raises(ValueError, match=r"two constraints on 'overlap'.*both min= and max="):
        check_constraints([Overlap(max=0.1), Overlap(min=0.01)])
    with pytest.raises(ValueError, match=r"two constraints on 'eccentricity'"):
        check_constraints([Eccentricity(min=2.0), Overlap(max=0.1),
                           Eccentricity(max=9.0, aggregate="min")])


@pytest.mark.parametrize("bad", ["overlap", 0.1, {"type": "Overlap", "max": 0.1}, None, Overlap])
def test_check_constraints_rejects_non_constraints(bad):
    with pytest.raises(TypeError, match=r"constraints must be Constraint objects \(Overlap, "
                                        r"Eccentricity\), got " + re.escape(repr(bad))):
        check_constraints([Overlap(max=0.1), bad])


def test_problems_validate_their_constraints():
    with pytest.raises(ValueError, match="two constraints on 'overlap'"):
        hd.IndexProblem(n_samples=100, n_clusters=2, n_dims=2, target=0.5,
                        constraints=[hd.Overlap(max=0.1), hd.Overlap(min=0.01)])
    with pytest.raises(TypeError, match="constraints must be Constraint objects"):
        hd.IndexProblem(n_samples=100, n_clusters=2, n_dims=2, target=0.5,
                        constraints=["overlap"])


def test_a_user_constraint_plugs_in():
    class Spread(Constraint):
        measure = "spread"

        def compute(self, genotype, X, labels):
            return float(np.asarray(X).std())

    c = Spread(max=2.0)
    assert c.name == "spread"
    assert check_constraints([Overlap(max=0.1), c]) == (Overlap(max=0.1), c)
    X = np.array([[0.0], [10.0]])
    assert c.compute(None, X, np.array([0, 1])) == 5.0
    assert penalty([c], {"spread": 5.0}) == 9.0
    with pytest.raises(NotImplementedError):
        Constraint(max=0.5).compute([], X, np.array([0, 1]))


# ---------------------------------------------------------------------------------------
# Description, equality, hashing
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("constraint", "expected"),
    [
        (Overlap(max=0.1), {"type": "Overlap", "min": None, "max": 0.1}),
        (Overlap(min=0.01, max=0.2), {"type": "Overlap", "min": 0.01, "max": 0.2}),
        (Eccentricity(min=2), {"type": "Eccentricity", "min": 2.0, "max": None,
                               "aggregate": "max"}),
        (Eccentricity(max=8, aggregate="min"),
         {"type": "Eccentricity", "min": None, "max": 8.0, "aggregate": "min"}),
    ],
)
def test_to_dict_is_json_ready_and_rebuilds_an_equal_constraint(constraint, expected):
    d = constraint.to_dict()
    assert d == expected
    loaded = json.loads(json.dumps(d))
    kwargs = {k: v for k, v in loaded.items() if k != "type"}
    rebuilt = getattr(hd, loaded["type"])(**kwargs)
    assert rebuilt == constraint and hash(rebuilt) == hash(constraint)
    assert rebuilt.to_dict() == d


def test_equality_and_hash():
    assert Overlap(max=0.1) == Overlap(max=0.1)
    assert len({Overlap(max=0.1), Overlap(max=0.1), Overlap(max=0.2)}) == 2
    assert Overlap(max=0.1) != Overlap(min=0.1)
    assert Overlap(max=0.1) != Overlap(min=0.0, max=0.1)
    assert Eccentricity(min=2.0) != Eccentricity(min=2.0, aggregate="min")
    assert Overlap(min=1.0) != Eccentricity(min=1.0)
    assert Overlap(max=0.1) != {"type": "Overlap", "min": None, "max": 0.1}


def test_repr():
    assert repr(Overlap(max=0.1)) == "Overlap(max=0.1)"
    assert repr(Overlap(min=0.05, max=0.2)) == "Overlap(min=0.05, max=0.2)"
    assert repr(Eccentricity(min=2)) == "Eccentricity(min=2.0)"


# ---------------------------------------------------------------------------------------
# Overlap.compute (Eq. 5) against the brute-force loop
# ---------------------------------------------------------------------------------------


def test_overlap_hand_examples():
    o = Overlap(max=0.1)
    # two well-separated pairs: every neighbour is in the own cluster
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    assert o.compute([], X, np.array([0, 0, 1, 1])) == 0.0
    # interleaved labels: every nearest neighbour is foreign
    assert o.compute([], X, np.array([0, 1, 0, 1])) == 1.0
    # exact tie: the middle point's two neighbours (own and foreign) are at distance 1
    X = np.array([[0.0], [1.0], [2.0], [10.0], [10.5]])
    y = np.array([0, 0, 1, 1, 1])
    # point 0 -> 1 (own); 1 -> tie {0 own, 2 foreign}: overlaps; 2 -> 1 foreign;
    # 3 -> 4 own; 4 -> 3 own
    assert o.compute([], X, y) == pytest.approx(2 / 5)
    assert brute_overlap(X, y) == pytest.approx(2 / 5)


def test_overlap_duplicates_are_not_neighbours():
    o = Overlap(max=0.1)
    # a foreign duplicate at distance 0 is ignored: the own point at distance 1 is nearest
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [9.0, 9.0], [9.0, 10.0]])
    y = np.array([0, 1, 0, 1, 1])
    # 0 -> 2 own; 1 -> 2 foreign (overlaps); 2 -> {0, 1} tie, 1 foreign (overlaps); 3, 4 own
    assert o.compute([], X, y) == pytest.approx(2 / 5)
    assert brute_overlap(X, y) == pytest.approx(2 / 5)
    # points with no neighbour at a positive distance do not count, but stay in N
    assert o.compute([], np.zeros((6, 3)), np.array([0, 1, 2, 0, 1, 2])) == 0.0
    assert o.compute([], np.ones((1, 2)), np.array([0])) == 0.0
    X = np.array([[0.0], [0.0], [0.0], [4.0], [5.0]])
    y = np.array([0, 1, 0, 1, 0])
    # 0, 1, 2 -> 3 at distance 16: 0 and 2 overlap, 1 does not; 3 -> 4 foreign; 4 -> 3
    assert o.compute([], X, y) == pytest.approx(4 / 5)
    assert brute_overlap(X, y) == pytest.approx(4 / 5)


def _dataset(draw, values):
    n = draw(st.integers(1, 30))
    d = draw(st.integers(1, 11))  # KD-tree path (D <= 8) and blocked brute force (D > 8)
    X = draw(hnp.arrays(np.float64, (n, d), elements=values))
    y = draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, 3)))
    return X, y


@st.composite
def grid_datasets(draw):
    """Small integer grids: many duplicates and exact ties."""
    return _dataset(draw, st.integers(-2, 2).map(float))


@st.composite
def decimal_datasets(draw):
    """Multiples of 0.1: near-ties decided on the rounded cdist values."""
    return _dataset(draw, st.integers(-20, 20).map(lambda v: v * 0.1))


@st.composite
def float_datasets(draw):
    return _dataset(draw, st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False))


@settings(max_examples=100, deadline=None)
@given(data=st.one_of(grid_datasets(), decimal_datasets(), float_datasets()))
def test_overlap_equals_brute_force(data):
    X, y = data
    assert Overlap(max=0.1).compute([], X, y) == brute_overlap(X, y)


@pytest.mark.parametrize(("n", "d", "k"), [(300, 2, 3), (200, 5, 4), (150, 12, 3)])
def test_overlap_of_gaussian_clusters_equals_brute_force_and_sklearn(n, d, k):
    rng = np.random.default_rng(n + d)
    y = rng.integers(0, k, size=n)
    X = rng.normal(size=(n, d)) + 1.5 * y[:, None]
    value = Overlap(max=0.1).compute([], X, y)
    assert value == brute_overlap(X, y)
    # no ties or duplicates in continuous data: the first neighbour other than the point
    nn = NearestNeighbors(n_neighbors=2).fit(X)
    _, idx = nn.kneighbors(X)
    assert value == pytest.approx(np.mean(y[idx[:, 1]] != y))
    assert 0.0 < value < 1.0


@settings(max_examples=30, deadline=None)
@given(data=grid_datasets(), seed=st.integers(0, 2**32 - 1))
def test_overlap_is_invariant_to_relabelling_and_row_order(data, seed):
    X, y = data
    rng = np.random.default_rng(seed)
    value = Overlap(max=0.1).compute([], X, y)
    names = np.array(["a", "b", "c", "d"])[rng.permutation(4)]
    assert Overlap(max=0.1).compute([], X, names[y]) == value  # any label values
    assert Overlap(max=0.1).compute([], X, 100 * y + 7) == value
    perm = rng.permutation(len(y))
    assert Overlap(max=0.1).compute([], X[perm], y[perm]) == value


def test_overlap_on_a_problem_dataset_matches_the_record():
    problem = hd.IndexProblem(n_samples=240, n_clusters=4, n_dims=3, target=0.5,
                              constraints=[hd.Overlap(max=0.05), hd.Eccentricity(min=3.0)])
    toolbox = hd.make_toolbox(problem, seed=11)
    for ind in toolbox.population(n=4):
        record = toolbox.evaluate(ind).record
        X, y = problem.sample(ind)
        overlap = brute_overlap(X, y)
        ecc = max(eigen_ratio(g) for g in ind)
        assert record["overlap"] == overlap
        assert record["eccentricity"] == pytest.approx(ecc, rel=1e-9)
        expected = (max(overlap - 0.05, 0.0) ** 2 + max(3.0 - record["eccentricity"], 0.0) ** 2)
        assert record["penalty"] == pytest.approx(expected, rel=1e-12, abs=0.0)
        assert record["feasible"] == (expected == 0.0)


def test_overlap_input_errors_are_named():
    o = Overlap(max=0.1)
    with pytest.raises(ValueError, match=r"labels must be a 1-D array of length 3"):
        o.compute([], np.zeros((3, 2)), np.array([0, 1]))
    with pytest.raises(ValueError, match=r"X must be a non-empty 2-D array"):
        o.compute([], np.zeros(3), np.array([0, 1, 2]))
    with pytest.raises(ValueError, match=r"X must contain only finite values"):
        o.compute([], np.array([[0.0], [np.nan]]), np.array([0, 1]))


# ---------------------------------------------------------------------------------------
# Eccentricity.compute (Eq. 6) against eigendecomposition
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 2, 3, 6])
@pytest.mark.parametrize("k", [1, 2, 5])
def test_eccentricity_equals_eigenvalue_ratio(k, d):
    rng = np.random.default_rng(100 * k + d)
    genes = random_genes(rng, k, d)
    ratios = [eigen_ratio(g) for g in genes]
    assert Eccentricity(min=2.0).compute(genes) == pytest.approx(max(ratios), rel=1e-10)
    assert Eccentricity(min=2.0, aggregate="min").compute(genes) == pytest.approx(
        min(ratios), rel=1e-10)
    X = np.zeros((k, d))
    assert Eccentricity(max=9.0).compute(genes, X, np.arange(k)) == pytest.approx(
        max(ratios), rel=1e-10)
    for g, r in zip(genes, ratios):
        assert g.eccentricity == pytest.approx(r, rel=1e-10)


def test_eccentricity_hand_values():
    eye = np.eye(2)
    round_ = Cluster([0.0, 0.0], [0.5, 0.5], eye)
    long_ = Cluster([1.0, 1.0], [0.1, 0.4], haar_rotation(2, np.random.default_rng(0)))
    flat = Cluster([2.0, 2.0], [3.0, 0.5], eye)
    assert Eccentricity(min=1.0).compute([round_]) == 1.0
    assert Eccentricity(min=1.0).compute([round_, long_, flat]) == pytest.approx(6.0)
    assert Eccentricity(min=1.0, aggregate="min").compute([round_, long_, flat]) == 1.0
    assert Eccentricity(min=1.0, aggregate="min").compute([long_, flat]) == pytest.approx(4.0)
    # one dimension: a single eigenvalue, ratio 1
    assert Eccentricity(min=1.0).compute([Cluster([0.0], [7.0], [[1.0]])]) == 1.0


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), d=st.integers(1, 5),
       scale=st.floats(1e-3, 1e3))
def test_eccentricity_is_invariant_to_rotation_and_scale(seed, k, d, scale):
    rng = np.random.default_rng(seed)
    genes = random_genes(rng, k, d)
    moved = [Cluster(g.mean + 3.0, g.variances * scale, haar_rotation(d, rng)) for g in genes]
    for aggregate in ("max", "min"):
        c = Eccentricity(min=1.0, aggregate=aggregate)
        assert c.compute(moved) == pytest.approx(c.compute(genes), rel=1e-12)
        assert c.compute(genes) >= 1.0
    assert (Eccentricity(min=1.0).compute(genes)
            >= Eccentricity(min=1.0, aggregate="min").compute(genes))


def test_constraints_from_settings_follow_the_registry_order():
    from hawks_deap.problems.constraints import CONSTRAINTS, from_settings

    built = from_settings({"min_eccentricity": 2.0, "max_overlap": 0.1, "n_samples": 10,
                           "max_eccentricity": None})
    assert [c.measure for c in built] == ["overlap", "eccentricity"] == list(CONSTRAINTS)
    assert (built[0].min, built[0].max) == (None, 0.1)
    assert (built[1].min, built[1].max) == (2.0, None)
    both = from_settings({"min_overlap": 0.05, "max_overlap": 0.2})
    assert len(both) == 1 and (both[0].min, both[0].max) == (0.05, 0.2)
    assert from_settings({"max_overlap": None}) == []
    with pytest.raises(ValueError, match="Overlap"):
        from_settings({"min_overlap": 0.3, "max_overlap": 0.2})
    # eccentricity_of aggregates a bound's ratios: set without one it would do nothing
    assert from_settings({"eccentricity_of": "any"}) == []
    with pytest.raises(ValueError, match="eccentricity_of = 'all' needs an eccentricity bound"):
        from_settings({"eccentricity_of": "all", "max_overlap": 0.1})


def test_equal_sizes_must_be_a_bool():
    with pytest.raises(TypeError, match="equal_sizes must be True or False, got 'no'"):
        hd.IndexProblem(100, 3, 2, 0.5, equal_sizes="no")
