"""Pair-counting indices: enumerated pairs, scikit-learn, and the model level (seed 003)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.metrics.cluster import pair_confusion_matrix

import hawks_deap.metrics as hm


def partitions(seed: int, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Random labellings (sizes 1..45) plus the trivial edge cases."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(1, 46))
        true = rng.integers(0, int(rng.integers(1, n + 1)), n)
        noise = rng.integers(0, int(rng.integers(1, n + 1)), n)
        out.append((true, np.where(rng.random(n) < rng.random(), true, noise)))
    one, singles = np.zeros(6, int), np.arange(6)
    out += [(one, one), (one, singles), (singles, one), (singles, singles[::-1]),
            (np.array([0]), np.array([0])), (np.array([0, 0]), np.array([0, 1])),
            (np.array([], dtype=int), np.array([], dtype=int))]
    return out


CASES = partitions(1, 300)


def enumerate_pairs(true, pred) -> tuple[np.ndarray, np.ndarray]:
    """Indicator vectors t (same class) and c (same cluster) over all i < j."""
    i, j = np.triu_indices(len(true), k=1)
    true, pred = np.asarray(true), np.asarray(pred)
    return (true[i] == true[j]).astype(int), (pred[i] == pred[j]).astype(int)


def bf_counts(true, pred) -> tuple[int, int, int, int]:
    t, c = enumerate_pairs(true, pred)
    return (int(np.sum(t & c)), int(np.sum(c & (1 - t))), int(np.sum(t & (1 - c))),
            int(np.sum((1 - t) & (1 - c))))


def div(a: float, b: float) -> float:
    return math.nan if b == 0 else a / b


def bf_index(name: str, true, pred) -> float:
    tp, fp, fn, tn = bf_counts(true, pred)
    n_pairs = tp + fp + fn + tn
    t, c = enumerate_pairs(true, pred)
    if name == "normalized_hubert_gamma":
        if n_pairs == 0 or t.std() == 0 or c.std() == 0:
            return math.nan
        return float(np.corrcoef(t, c)[0, 1])
    return {
        "jaccard": div(tp, tp + fp + fn),
        "rand_index": div(tp + tn, n_pairs),
        "fowlkes_mallows": div(tp, math.sqrt((tp + fp) * (tp + fn))),
        "hubert_gamma": div(float(t @ c), n_pairs),
        "pair_sensitivity": div(tp, tp + fn),
        "pair_specificity": div(tn, tn + fp),
        "pair_ppv": div(tp, tp + fp),
        "pair_npv": div(tn, tn + fn),
        # identical partitions agree on every pair: 1.0, as in scikit-learn, also where
        # the formula is 0/0 (a trivial partition, one point)
        "adjusted_rand_index": 1.0 if fp == fn == 0 else div(
            tp - (tp + fp) * (tp + fn) / n_pairs,
            ((tp + fp) + (tp + fn)) / 2 - (tp + fp) * (tp + fn) / n_pairs),
    }[name]


PAIR_INDICES = ["jaccard", "rand_index", "fowlkes_mallows", "hubert_gamma",
                "normalized_hubert_gamma", "pair_sensitivity", "pair_specificity",
                "pair_ppv", "pair_npv", "adjusted_rand_index"]


def test_pair_confusion_against_enumeration_and_sklearn():
    for true, pred in CASES:
        counts = hm.pair_confusion(true, pred)
        assert tuple(counts) == bf_counts(true, pred)
        assert counts.n_pairs == len(true) * (len(true) - 1) // 2
        (tn2, fp2), (fn2, tp2) = pair_confusion_matrix(true, pred)
        assert (2 * counts.tp, 2 * counts.fp, 2 * counts.fn, 2 * counts.tn) == (tp2, fp2, fn2, tn2)
        assert all(isinstance(v, int) for v in counts)


@pytest.mark.parametrize("name", PAIR_INDICES)
def test_against_enumerated_pairs(name):
    func = getattr(hm, name)
    for true, pred in CASES:
        got, want = func(true, pred), bf_index(name, true, pred)
        if math.isnan(want) and name in LIMITS:  # 0/0: scikit-learn's convention
            assert got == LIMITS[name], (name, true, pred, got)
        elif math.isnan(want):
            assert math.isnan(got), (name, true, pred, got)
        else:
            assert abs(got - want) <= 1e-12, (name, true, pred, got, want)


#: The value scikit-learn gives where the pair formula is 0/0 (no pair at all, or none
#: put together): the Rand index agrees on every (no) pair, FMI has no pair to agree on.
LIMITS = {"rand_index": 1.0, "fowlkes_mallows": 0.0}


@pytest.mark.parametrize(("name", "sk"), [
    ("adjusted_rand_index", skm.adjusted_rand_score),
    ("rand_index", skm.rand_score),
    ("fowlkes_mallows", skm.fowlkes_mallows_score),
])
def test_agree_with_sklearn(name, sk):
    func = getattr(hm, name)
    for true, pred in CASES:
        got, want = func(true, pred), sk(true, pred)
        if name == "rand_index":
            assert abs(got - want) <= 1e-15, (true, pred, got, want)
        else:
            assert got == want, (true, pred, got, want)  # to the last bit


def test_ari_is_one_for_identical_trivial_partitions_as_in_sklearn():
    for true, pred in [([0, 0, 0], [1, 1, 1]), ([0, 1, 2], [2, 0, 1]), ([7], [3])]:
        assert hm.adjusted_rand_index(true, pred) == 1.0 == skm.adjusted_rand_score(true, pred)
    assert hm.adjusted_rand_index([0, 0, 1], [0, 0, 1]) == 1.0
    assert hm.adjusted_rand_index([0, 0, 0], [0, 1, 2]) == 0.0
    assert hm.adjusted_rand_index([0, 0, 1, 1], [0, 1, 0, 1]) == -0.5


def test_hubert_gamma_is_tp_over_n():
    true, pred = [0, 0, 0, 1, 1], [0, 0, 1, 1, 1]
    tp = hm.pair_confusion(true, pred).tp
    assert hm.hubert_gamma(true, pred) == tp / 10


def test_counts_are_exact_for_large_n():
    n = 1_000_000
    one = np.zeros(n, dtype=np.int8)
    counts = hm.pair_confusion(one, one)
    assert counts == (n * (n - 1) // 2, 0, 0, 0)
    rng = np.random.default_rng(0)
    true, pred = rng.integers(0, 30, n), rng.integers(0, 30, n)
    assert hm.adjusted_rand_index(true, pred) == skm.adjusted_rand_score(true, pred)


# ---------------------------------------------------------------------------- properties

labellings = st.integers(1, 25).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 4), min_size=n, max_size=n),
    st.lists(st.integers(0, 4), min_size=n, max_size=n),
))
SYMMETRIC = ["jaccard", "rand_index", "fowlkes_mallows", "hubert_gamma",
             "normalized_hubert_gamma", "adjusted_rand_index"]
BOUNDS = {"normalized_hubert_gamma": (-1.0, 1.0), "adjusted_rand_index": (-0.5, 1.0)}


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12


@settings(max_examples=80, deadline=None)
@given(labellings, st.permutations(range(5)))
def test_properties(pair, perm):
    true, pred = pair
    relabelled = [("k", perm[v]) for v in pred]
    for name in PAIR_INDICES:
        f = getattr(hm, name)
        value = f(true, pred)
        assert _same(value, f(true, relabelled)), name
        low, high = BOUNDS.get(name, (0.0, 1.0))
        assert math.isnan(value) or low - 1e-12 <= value <= high + 1e-12, (name, value)
        if name in SYMMETRIC:
            assert _same(value, f(pred, true)), name
    assert _same(hm.pair_sensitivity(true, pred), hm.pair_ppv(pred, true))
    assert _same(hm.pair_specificity(true, pred), hm.pair_npv(pred, true))


# --------------------------------------------------------------------------- model level


def test_model_known_values():
    # Perfect assignment: every index 1.
    perfect = hm.pair_indices_from_model([0.2, 0.3, 0.5], np.eye(3))
    assert perfect.sensitivity == perfect.specificity == perfect.ppv == perfect.npv == 1.0
    assert perfect.gamma2 == perfect.gamma3 == 0.0
    # Assignment independent of the group: CSENS = P(g1 = g2) = ssq(q), CPPV = ssq(pi).
    pi, q = np.array([0.5, 0.5]), np.array([0.7, 0.2, 0.1])
    model = hm.pair_indices_from_model(pi, np.tile(q, (2, 1)))
    assert model.sensitivity == pytest.approx(q @ q)
    assert model.ppv == pytest.approx(pi @ pi)
    assert model.specificity == pytest.approx(1 - q @ q)
    assert sum(model[:4]) == pytest.approx(1.0)
    # A single group: CSPEC conditions on an impossible event.
    single = hm.pair_indices_from_model([1.0], [[0.5, 0.5]])
    assert math.isnan(single.specificity) and single.sensitivity == pytest.approx(0.5)
    # Everything in one cluster: CNPV undefined, CSENS = 1.
    lump = hm.pair_indices_from_model([0.5, 0.5], [[1.0], [1.0]])
    assert math.isnan(lump.npv) and lump.sensitivity == 1.0


def test_model_formula_matches_direct_probabilities():
    rng = np.random.default_rng(5)
    for _ in range(20):
        g, k = rng.integers(1, 5, size=2)
        pi = rng.dirichlet(np.ones(g))
        B = rng.dirichlet(np.ones(k), size=g)
        model = hm.pair_indices_from_model(pi, B)
        # P(A1=a, A2=b, g1=i, g2=j) = pi_a pi_b B[a,i] B[b,j], summed by brute force.
        joint = np.einsum("a,b,ai,bj->abij", pi, pi, B, B)
        same_a = np.eye(g, dtype=bool)[:, :, None, None]
        same_g = np.eye(k, dtype=bool)[None, None, :, :]
        assert model.gamma4 == pytest.approx(joint[same_a & same_g].sum(), abs=1e-14)
        assert model.gamma2 == pytest.approx(joint[~same_a & same_g].sum(), abs=1e-14)
        assert model.gamma3 == pytest.approx(joint[same_a & ~same_g].sum(), abs=1e-14)
        assert model.gamma1 == pytest.approx(joint[~same_a & ~same_g].sum(), abs=1e-14)


def _simulate(pi, B, n, rng):
    groups = rng.choice(len(pi), size=n, p=pi)
    cum = np.cumsum(B, axis=1)[groups]
    clusters = (rng.random(n)[:, None] > cum).sum(axis=1)
    return groups, np.minimum(clusters, B.shape[1] - 1)


def test_empirical_indices_converge_to_the_model():
    pi = np.array([0.5, 0.3, 0.2])
    B = np.array([[0.8, 0.15, 0.05, 0.0], [0.1, 0.7, 0.1, 0.1], [0.05, 0.05, 0.3, 0.6]])
    model = hm.pair_indices_from_model(pi, B)
    rng = np.random.default_rng(2024)
    errors = {}
    for n in (300, 3000, 300_000):
        worst = []
        for _ in range(5):
            groups, clusters = _simulate(pi, B, n, rng)
            empirical = [hm.pair_sensitivity(groups, clusters),
                         hm.pair_specificity(groups, clusters),
                         hm.pair_ppv(groups, clusters), hm.pair_npv(groups, clusters)]
            want = [model.sensitivity, model.specificity, model.ppv, model.npv]
            worst.append(np.max(np.abs(np.array(empirical) - want)))
        errors[n] = float(np.mean(worst))
    assert errors[300_000] < 0.005
    assert errors[300_000] < errors[3000] < errors[300]


def test_model_validation():
    with pytest.raises(ValueError, match="pi must sum to 1"):
        hm.pair_indices_from_model([0.5, 0.4], np.eye(2))
    with pytest.raises(ValueError, match="row 1 sums"):
        hm.pair_indices_from_model([0.5, 0.5], [[1.0, 0.0], [0.5, 0.4]])
    with pytest.raises(ValueError, match="B must be a 2-D array of shape"):
        hm.pair_indices_from_model([0.5, 0.5], [1.0, 0.0])
    with pytest.raises(ValueError, match="non-negative"):
        hm.pair_indices_from_model([1.5, -0.5], np.eye(2))


@pytest.mark.parametrize("name", PAIR_INDICES + ["pair_confusion"])
def test_bad_input(name):
    f = getattr(hm, name)
    with pytest.raises(ValueError, match="labels_true and labels_pred.*same length.*3 and 2"):
        f([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="labels_pred must be a 1-D array"):
        f([0, 1], np.zeros((2, 2)))


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(st.integers(0, 6), min_size=3, max_size=40))
def test_normalized_hubert_gamma_of_identical_partitions_is_exactly_one(labels):
    """The documented range holds to the last bit (two rounded square roots left 1 + 2e-16
    for a fifth of random labellings)."""
    relabelled = [(7 * v + 3) % 11 for v in labels]  # the same partition, other names
    value = hm.normalized_hubert_gamma(labels, relabelled)
    assert math.isnan(value) or value == 1.0
    info = hm.get("normalized_hubert_gamma")
    assert math.isnan(value) or info.in_bounds(value)
