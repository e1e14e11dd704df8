"""External indices (matching and entropy): scikit-learn and brute-force oracles."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import hawks_deap.metrics as hm
from hawks_deap.metrics import external

# --------------------------------------------------------------------------- partitions


def _relabel(labels: np.ndarray, style: int) -> list:
    """Non-integer label vocabularies of different kinds."""
    vocab = {
        0: lambda v: int(v),
        1: lambda v: f"c{v}",
        2: lambda v: v * 0.5 - 3.25,
        3: lambda v: ("t", int(v)),
        4: lambda v: None if v == 0 else (str(v) if v % 2 else int(v)),  # mixed types
    }[style]
    return [vocab(v) for v in labels]


EDGE_CASES = [
    ([0], [0]),                                   # a single point
    ([0, 0, 0, 0], [0, 0, 0, 0]),                 # one cluster both
    ([0, 0, 0, 0], [0, 1, 2, 3]),                 # one cluster vs all singletons
    ([0, 1, 2, 3], [0, 0, 0, 0]),
    ([0, 1, 2, 3], [3, 2, 1, 0]),                 # all singletons both
    ([0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 1]),     # label sets of different sizes
    (["a", "a", "b", "b", "c"], [1.5, 1.5, 1.5, 2.5, 2.5]),
    ([("x", 1), ("x", 1), ("y", 2)], [None, "q", "q"]),
    ([0, 0, 1, 1], [1, 1, 0, 0]),
    ([0, 0, 1, 1], [0, 1, 0, 1]),
]


def random_cases(seed: int, count: int) -> list[tuple[list, list]]:
    """Random partitions, sizes 1..40, including skewed and trivial ones."""
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(count):
        n = int(rng.integers(1, 41))
        k_true = int(rng.integers(1, n + 1))
        k_pred = int(rng.integers(1, n + 1))
        weights = rng.dirichlet(np.full(k_true, 0.5))
        true = rng.choice(k_true, size=n, p=weights)
        pred = np.where(rng.random(n) < rng.random(), true, rng.integers(0, k_pred, n))
        cases.append((_relabel(true, i % 5), _relabel(pred, (i + 2) % 5)))
    return cases + EDGE_CASES


CASES = random_cases(0, 300)

# --------------------------------------------------------------------- brute-force oracles


def _table(true: list, pred: list) -> tuple[dict, Counter, Counter, int]:
    """Joint counts n_ij keyed (cluster, class), cluster sizes n_i, class sizes m_j."""
    joint = Counter(zip(pred, true, strict=True))
    return joint, Counter(pred), Counter(true), len(true)


def bf_purity(true, pred):
    joint, sizes, _, n = _table(true, pred)
    return sum(max(v for (c, _), v in joint.items() if c == ci) for ci in sizes) / n


def bf_matching(true, pred):
    joint, sizes, classes, n = _table(true, pred)
    clusters, labels = list(sizes), list(classes)
    if len(clusters) > len(labels):
        clusters, labels = labels, clusters
        joint = Counter({(t, c): v for (c, t), v in joint.items()})
    best = max(sum(joint.get((c, t), 0) for c, t in zip(clusters, perm, strict=True))
               for perm in itertools.permutations(labels, len(clusters)))
    return best / n


def bf_f_measure(true, pred):
    joint, sizes, classes, _ = _table(true, pred)
    scores = []
    for ci, n_i in sizes.items():
        row = {t: v for (c, t), v in joint.items() if c == ci}
        top = max(row.values())
        scores.append(max(2 * v / (n_i + classes[t]) for t, v in row.items() if v == top))
    return sum(scores) / len(scores)


def bf_entropy(labels):
    n = len(labels)
    return -sum(c / n * math.log(c / n) for c in Counter(labels).values())


def bf_conditional_entropy(true, pred):
    joint, sizes, _, n = _table(true, pred)
    return -sum(v / n * math.log(v / sizes[c]) for (c, _), v in joint.items())


def bf_mutual_information(true, pred):
    joint, sizes, classes, n = _table(true, pred)
    return sum(v / n * math.log(n * v / (sizes[c] * classes[t])) for (c, t), v in joint.items())


def bf_nmi(true, pred, method):
    h_t, h_c = bf_entropy(true), bf_entropy(pred)
    norm = {"geometric": math.sqrt(h_t * h_c), "arithmetic": (h_t + h_c) / 2,
            "min": min(h_t, h_c), "max": max(h_t, h_c)}[method]
    mi = bf_mutual_information(true, pred)
    if norm < 1e-15:
        assert abs(mi) < 1e-12
        return math.nan
    return mi / norm


def bf_vi(true, pred):
    return bf_entropy(true) + bf_entropy(pred) - 2 * bf_mutual_information(true, pred)


def _close(got: float, want: float, tol: float = 1e-12) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return abs(got - want) <= tol * max(1.0, abs(want))


# ------------------------------------------------------------------------------- oracles


@pytest.mark.parametrize(("func", "oracle"), [
    (hm.purity, bf_purity),
    (hm.f_measure, bf_f_measure),
    (hm.conditional_entropy, bf_conditional_entropy),
    (hm.mutual_information, bf_mutual_information),
    (hm.variation_of_information, bf_vi),
])
def test_against_brute_force(func, oracle):
    for true, pred in CASES:
        got, want = func(true, pred), oracle(true, pred)
        assert _close(got, want), (func.__name__, true, pred, got, want)


def test_maximum_matching_against_enumeration():
    checked = 0
    for true, pred in CASES:
        if min(len(set(map(repr, true))), len(set(map(repr, pred)))) <= 6 and max(
                len(set(map(repr, true))), len(set(map(repr, pred)))) <= 8:
            assert _close(hm.maximum_matching(true, pred), bf_matching(true, pred))
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("method", external.NMI_AVERAGE_METHODS)
def test_nmi_against_brute_force(method):
    for true, pred in CASES:
        got = hm.normalized_mutual_information(true, pred, average_method=method)
        want = bf_nmi(true, pred, method)
        if math.isnan(want):  # 0/0: scikit-learn's limits (1 if neither splits the data)
            want = 1.0 if len(set(true)) == len(set(pred)) == 1 else 0.0
        assert _close(got, want), (true, pred, got)


def _codes(labels: list) -> np.ndarray:
    """Integer codes for scikit-learn, which cannot sort mixed-type labels."""
    lookup: dict = {}
    return np.array([lookup.setdefault(v, len(lookup)) for v in labels])


@pytest.mark.parametrize("method", external.NMI_AVERAGE_METHODS)
def test_entropy_indices_of_any_hashable_labels_agree_with_sklearn(method):
    """NMI, AMI, MI and V-measure of strings, floats, tuples and mixed types, against
    scikit-learn on integer codes."""
    for true, pred in CASES:
        t, p = _codes(true), _codes(pred)
        pairs = [
            (hm.normalized_mutual_information(true, pred, average_method=method),
             skm.normalized_mutual_info_score(t, p, average_method=method)),
            (hm.adjusted_mutual_information(true, pred, average_method=method),
             skm.adjusted_mutual_info_score(t, p, average_method=method)),
        ]
        if method == "arithmetic":
            pairs += [(hm.mutual_information(true, pred), skm.mutual_info_score(t, p)),
                      (hm.v_measure(true, pred), skm.v_measure_score(t, p))]
        for got, want in pairs:
            assert abs(got - want) <= 1e-12, (true, pred, got, want)  # limits included


def test_nmi_default_is_the_survey_geometric_mean():
    true, pred = [0, 0, 0, 1, 1, 2], [0, 0, 1, 1, 2, 2]
    mi = hm.mutual_information(true, pred)
    want = mi / math.sqrt(bf_entropy(true) * bf_entropy(pred))
    assert hm.normalized_mutual_information(true, pred) == pytest.approx(want, abs=1e-15)
    assert hm.normalized_mutual_information(true, pred) != pytest.approx(
        hm.normalized_mutual_information(true, pred, average_method="arithmetic"))


def test_survey_worked_values():
    # Purity counts every cluster inside one class as pure; matching does not.
    assert hm.purity([0, 0, 0, 0], [0, 0, 1, 1]) == 1.0
    assert hm.maximum_matching([0, 0, 0, 0], [0, 0, 1, 1]) == 0.5
    assert hm.purity([0, 0, 1, 1], [0, 0, 0, 0]) == 0.5
    # F_i = 2 n_ij / (n_i + m_j): cluster {0,0,1} -> 2*2/(3+2); cluster {1} -> 2/(1+2).
    assert hm.f_measure([0, 0, 1, 1], [5, 5, 5, 7]) == pytest.approx((4 / 5 + 2 / 3) / 2)
    # Perfect clustering: CE = VI = 0 exactly, purity = matching = F = NMI = 1.
    t, p = ["a", "a", "b", "c"], [2, 2, 0, 1]
    assert hm.conditional_entropy(t, p) == 0.0
    assert hm.variation_of_information(t, p) == 0.0
    for f in (hm.purity, hm.maximum_matching, hm.f_measure):
        assert f(t, p) == 1.0
    assert hm.normalized_mutual_information(t, p) == pytest.approx(1.0, abs=1e-15)
    # Worst case of CE is log k (a cluster spread evenly over k classes).
    assert hm.conditional_entropy([0, 1, 2, 3], [0, 0, 0, 0]) == pytest.approx(math.log(4))


def test_f_measure_ties_use_the_best_class():
    # Cluster 9 holds one point of class 0 (size 1) and one of class 1 (size 3).
    true, pred = [0, 1, 1, 1], [9, 9, 8, 8]
    f9 = 2 * 1 / (2 + 1)
    f8 = 2 * 2 / (2 + 3)
    assert hm.f_measure(true, pred) == pytest.approx((f9 + f8) / 2)


# --------------------------------------------------------------------- large / sparse paths


def test_sparse_matching_paths_agree_with_dense(monkeypatch):
    rng = np.random.default_rng(3)
    cases = []
    for _ in range(60):
        n = int(rng.integers(2, 80))
        true = rng.integers(0, int(rng.integers(1, n + 1)), n)
        pred = np.where(rng.random(n) < 0.6, true, rng.integers(0, int(rng.integers(1, n + 1)), n))
        cases.append((true, pred))
    cases.append((np.arange(40) // 2, np.random.default_rng(1).permutation(np.arange(40) // 2)))
    dense = [hm.maximum_matching(t, p) for t, p in cases]
    for limit in (0, 6):  # 0: every component to the sparse solver; 6: small ones dense
        monkeypatch.setattr(external, "_DENSE_MATCHING_LIMIT", limit)
        assert [hm.maximum_matching(t, p) for t, p in cases] == dense


def test_large_tables_many_clusters():
    n = 200_000
    rng = np.random.default_rng(0)
    singletons = np.arange(n)
    shuffled = rng.permutation(n)
    assert hm.maximum_matching(singletons, shuffled) == 1.0
    assert hm.purity(singletons, shuffled // 4) == 0.25
    assert hm.f_measure(singletons // 2, shuffled // 2) > 0
    assert hm.variation_of_information(singletons, shuffled) == 0.0
    assert hm.normalized_mutual_information(singletons, shuffled) == pytest.approx(1.0)


# ---------------------------------------------------------------------------- properties

FUNCTIONS = [hm.purity, hm.maximum_matching, hm.f_measure, hm.conditional_entropy,
             hm.mutual_information, hm.normalized_mutual_information,
             hm.variation_of_information]
SYMMETRIC = [hm.maximum_matching, hm.mutual_information, hm.normalized_mutual_information,
             hm.variation_of_information]

labellings = st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 5), min_size=n, max_size=n),
    st.lists(st.integers(0, 5), min_size=n, max_size=n),
))


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12 * max(1.0, abs(a))


@settings(max_examples=60, deadline=None)
@given(labellings, st.permutations(range(6)), st.permutations(range(6)))
def test_invariant_to_label_permutation(pair, perm_t, perm_p):
    true, pred = pair
    true2 = [f"L{perm_t[v]}" for v in true]
    pred2 = [perm_p[v] * 10 for v in pred]
    for f in FUNCTIONS:
        assert _same(f(true, pred), f(true2, pred2)), f.__name__


@settings(max_examples=60, deadline=None)
@given(labellings)
def test_symmetry_and_identities(pair):
    true, pred = pair
    for f in SYMMETRIC:
        assert _same(f(true, pred), f(pred, true)), f.__name__
    vi = hm.variation_of_information(true, pred)
    ce = hm.conditional_entropy(true, pred) + hm.conditional_entropy(pred, true)
    assert _same(vi, ce)


@settings(max_examples=60, deadline=None)
@given(labellings)
def test_documented_bounds(pair):
    true, pred = pair
    n, eps = len(true), 1e-12
    for f in (hm.purity, hm.maximum_matching, hm.f_measure):
        assert 0 < f(true, pred) <= 1 + eps
    assert hm.maximum_matching(true, pred) <= hm.purity(true, pred) + eps
    k_true = len(set(true))
    assert -eps <= hm.conditional_entropy(true, pred) <= math.log(k_true) + eps
    mi = hm.mutual_information(true, pred)
    assert -eps <= mi <= min(bf_entropy(true), bf_entropy(pred)) + eps
    for method in external.NMI_AVERAGE_METHODS:
        nmi = hm.normalized_mutual_information(true, pred, average_method=method)
        assert math.isnan(nmi) or -eps <= nmi <= 1 + eps
    assert 0 <= hm.variation_of_information(true, pred) <= math.log(n) + eps


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("func", FUNCTIONS)
def test_bad_input_names_the_parameter(func):
    with pytest.raises(ValueError, match="same length"):
        func([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="same length.*0 and 1"):
        func([], [0])
    with pytest.raises(ValueError, match="labels_pred must be a 1-D"):
        func([0, 1], np.zeros((2, 2)))


def test_unknown_average_method_lists_valid_names():
    with pytest.raises(ValueError, match="average_method.*geometric.*arithmetic"):
        hm.normalized_mutual_information([0, 1], [0, 1], average_method="geometrik")


def test_tuple_labels_are_single_labels():
    true = [(0, "a"), (0, "a"), (1, "b"), (2,)]
    assert hm.purity(true, [1, 1, 2, 3]) == 1.0
    assert hm.maximum_matching(true, [1, 1, 2, 3]) == 1.0


def _sklearn_overflow_case() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's test_int_overflow_mutual_info_fowlkes_mallows_score labellings."""
    sizes = [(52632, 2529), (14660, 793), (3271, 204), (814, 39), (316, 20)]
    x = np.repeat(np.arange(1, 6), [a + b for a, b in sizes])
    y = np.concatenate([np.repeat([0, 1], pair) for pair in sizes])
    return x, y


_rs = np.random.RandomState(0)  # scikit-learn's test_adjusted_rand_score_overflow
_million = np.random.default_rng(2)

SKLEARN_EDGE_CASES = {
    "empty": ([], []),
    "one point": ([0], [0]),
    "one point renamed": ([0], [1]),
    "one cluster": ([0, 0, 0], [0, 0, 0]),
    "two singletons": ([0, 1], [0, 1]),  # scikit-learn issue 30950
    "singletons": ([0, 1, 2], [0, 1, 2]),
    "singletons renamed": ([0, 1, 2], [42, 7, 2]),
    "one vs singletons": ([0, 0, 0], [0, 1, 2]),
    "singletons vs one": ([0, 1, 2], [0, 0, 0]),
    "floats": ([0.0, 1.0, 0.0], [42.0, 7.0, 42.0]),
    "strings": (["a", "a", "b", "b"], ["x", "y", "y", "y"]),
    "string vs int": (["a"] * 6, [1, 1, 0, 0, 1, 1]),  # scikit-learn issue 16355
    "negative": ([-1, -1, 3, 3], [5, 5, -7, -7]),
    "non-consecutive": ([0, 0, 0, 2, 2, 2], [0, 1, 0, 1, 2, 2]),
    "non-consecutive 2": ([10, 10, 30, 30, 20], [1, 1, 1, 9, 9]),
    "random": (np.random.default_rng(0).integers(0, 5, 300),
               np.random.default_rng(1).integers(0, 4, 300)),
    "large": (np.repeat([0, 1], 70_000), np.tile([0, 1, 2, 3], 35_000)),  # 2^32 pairs
    "int overflow": _sklearn_overflow_case(),
    "int8 overflow": (_rs.randint(0, 2, 100_000, dtype=np.int8),
                      _rs.randint(0, 2, 100_000, dtype=np.int8)),
    # pair-count products (tp tn ~ 6e22) far past int64
    "a million": (_million.integers(0, 3, 1_000_000), _million.integers(0, 4, 1_000_000)),
}


def _sklearn_pairs(true, pred):
    """(name, ours, scikit-learn's, exact) for every index scikit-learn computes."""
    h, c, v = skm.homogeneity_completeness_v_measure(true, pred)
    out = [
        ("ari", hm.adjusted_rand_index(true, pred), skm.adjusted_rand_score(true, pred), True),
        ("fmi", hm.fowlkes_mallows(true, pred), skm.fowlkes_mallows_score(true, pred), True),
        ("ri", hm.rand_index(true, pred), skm.rand_score(true, pred), False),
        ("homogeneity", hm.homogeneity(true, pred), h, False),
        ("completeness", hm.completeness(true, pred), c, False),
        ("v", hm.v_measure(true, pred), v, False),
        ("v score", hm.v_measure(true, pred), skm.v_measure_score(true, pred), False),
    ]
    for method in hm.external.NMI_AVERAGE_METHODS:
        out.append((f"nmi {method}",
                    hm.normalized_mutual_information(true, pred, average_method=method),
                    skm.normalized_mutual_info_score(true, pred, average_method=method),
                    False))
        out.append((f"ami {method}",
                    hm.adjusted_mutual_information(true, pred, average_method=method),
                    skm.adjusted_mutual_info_score(true, pred, average_method=method),
                    False))
    if len(true):  # scikit-learn's MI raises for empty labellings (tested below)
        out.append(("mi", hm.mutual_information(true, pred),
                    skm.mutual_info_score(true, pred), False))
    return out


@pytest.mark.parametrize("case", [
    pytest.param(case, marks=pytest.mark.slow) if case == "a million" else case
    for case in SKLEARN_EDGE_CASES])  # a million: 8 s of expected MI, slow
def test_every_sklearn_index_gives_sklearns_values_on_its_edge_cases(case):
    """Issue 21, item 6: ARI, RI, FMI, NMI (each averaging), MI, AMI (each averaging),
    homogeneity, completeness and V-measure on scikit-learn's own edge cases (its
    test_supervised.py: empty, one cluster, singletons, overflow sizes, string,
    negative, float and non-consecutive labels)."""
    true, pred = SKLEARN_EDGE_CASES[case]
    for name, ours, theirs, exact in _sklearn_pairs(true, pred):
        assert isinstance(ours, float), name
        if exact:  # ARI and FMI follow scikit-learn's float expression
            assert ours == theirs, (name, ours, theirs)
        else:
            assert ours == pytest.approx(theirs, abs=1e-12), (name, ours, theirs)
    assert 0.0 <= hm.fowlkes_mallows(true, pred) <= 1.0


def test_counts_past_int64_give_sklearns_values():
    """A million points: pair-count products ~6e22 (exact Python integers here, floats
    in scikit-learn's formulas) give its values; the AMI case runs with -m slow."""
    true, pred = SKLEARN_EDGE_CASES["a million"]
    assert hm.adjusted_rand_index(true, pred) == skm.adjusted_rand_score(true, pred)
    assert hm.fowlkes_mallows(true, pred) == skm.fowlkes_mallows_score(true, pred)
    assert hm.rand_index(true, pred) == pytest.approx(skm.rand_score(true, pred), abs=1e-15)
    assert hm.mutual_information(true, pred) == pytest.approx(
        skm.mutual_info_score(true, pred), abs=1e-12)
    assert hm.normalized_mutual_information(true, pred) == pytest.approx(
        skm.normalized_mutual_info_score(true, pred, average_method="geometric"), abs=1e-12)


def test_empty_labellings():
    """sklearn's values where it gives one (above); the MI, where scikit-learn fails on
    log(0), is the empty sum 0.0; the other indices give their formula's limit."""
    with pytest.raises(ValueError, match="math domain error"):
        skm.mutual_info_score([], [])
    assert hm.mutual_information([], []) == bf_mutual_information([], []) == 0.0
    assert hm.conditional_entropy([], []) == bf_conditional_entropy([], []) == 0.0
    assert hm.variation_of_information([], []) == bf_vi([], []) == 0.0
    for f in (hm.purity, hm.maximum_matching, hm.f_measure):  # 0 points / 0 points
        assert math.isnan(f([], [])), f.__name__
    with pytest.raises(ValueError, match="same length"):
        hm.purity([], [0])


def test_mutual_information_is_never_below_zero():
    """Rounding leaves about -1.6e-16 on independent labellings; clipped, as scikit-learn."""
    t, p = np.repeat([0, 1], 4), np.tile([0, 0, 1, 1], 2)
    assert skm.mutual_info_score(t, p) == 0.0
    for name in ("mi", "homogeneity", "completeness", "v_measure"):
        assert hm.get(name)(t, p) == 0.0, name
        assert hm.get(name).in_bounds(hm.get(name)(t, p))


@pytest.mark.parametrize("labels", [[np.nan, np.nan, 1.0],
                                    np.array([np.nan, np.nan, 1.0], dtype=object)])
def test_nan_labels_are_refused(labels):
    with pytest.raises(ValueError, match="labels_true contains NaN"):
        hm.adjusted_rand_index(labels, [0, 0, 1])
