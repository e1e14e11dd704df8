"""The metrics registry: names, aliases, kinds, ranges, directions, user indices."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import hawks_deap.metrics as hm
from hawks_deap.metrics import registry

EXTERNAL = {
    "purity", "maximum_matching", "f_measure", "conditional_entropy", "mutual_information",
    "normalized_mutual_information", "variation_of_information", "jaccard", "rand_index",
    "adjusted_rand_index", "fowlkes_mallows", "hubert_gamma", "normalized_hubert_gamma",
    "pair_sensitivity", "pair_specificity", "pair_ppv", "pair_npv",
    "adjusted_mutual_information", "homogeneity", "completeness", "v_measure",
    "normalized_clustering_accuracy",
}
INTERNAL = {"silhouette", "davies_bouldin", "dunn", "beta_cv", "calinski_harabasz",
            "connectivity"}


def test_available_lists_every_index_by_kind():
    assert set(hm.available("external")) == EXTERNAL
    assert set(hm.available("internal")) == INTERNAL
    assert hm.available() == sorted(EXTERNAL | INTERNAL)
    for name in hm.available():
        info = hm.get(name)
        assert info.name == name and info.function is getattr(hm, name)


@pytest.mark.parametrize(("alias", "name"), [
    ("ari", "adjusted_rand_index"), ("ARI", "adjusted_rand_index"),
    ("nmi", "normalized_mutual_information"), ("vi", "variation_of_information"),
    ("db", "davies_bouldin"), ("Davies-Bouldin", "davies_bouldin"), ("ch", "calinski_harabasz"),
    ("fmi", "fowlkes_mallows"), ("mi", "mutual_information"), ("ri", "rand_index"),
    ("csens", "pair_sensitivity"), ("CSPEC", "pair_specificity"), ("cppv", "pair_ppv"),
    ("cnpv", "pair_npv"), ("gamma", "hubert_gamma"), ("gamma_n", "normalized_hubert_gamma"),
    ("betacv", "beta_cv"), ("di", "dunn"), ("conn", "connectivity"), ("sil", "silhouette"),
    ("ce", "conditional_entropy"), ("matching", "maximum_matching"), ("jc", "jaccard"),
    ("ami", "adjusted_mutual_information"), ("v_measure_score", "v_measure"),
])
def test_aliases(alias, name):
    assert hm.get(alias).name == name


def test_directions_and_ranges():
    lower_better = {"conditional_entropy", "variation_of_information", "davies_bouldin",
                    "beta_cv", "connectivity"}
    for name in hm.available():
        info = hm.get(name)
        assert info.higher_is_better == (name not in lower_better), name
        low, high = info.bounds
        assert isinstance(low, float) and isinstance(high, float) and low < high
    assert hm.get("ari").bounds == (-0.5, 1.0)
    assert hm.get("silhouette").bounds == (-1.0, 1.0)
    assert hm.get("vi").bounds == (0.0, math.inf)
    assert hm.get("connectivity").bounds[1] == pytest.approx(sum(1 / j for j in range(1, 11)))
    assert hm.get("ari").best == 1.0 and hm.get("db").best == 0.0


def test_perfect_labelling_reaches_the_best_value():
    true = np.repeat(["a", "b", "c"], 4)
    pred = np.repeat([2, 0, 1], 4)
    for name in hm.available("external"):
        info = hm.get(name)
        if name == "hubert_gamma":  # TP / N: at most the fraction of same-class pairs
            assert info(true, pred) == info(true, np.zeros(12)) == pytest.approx(3 * 6 / 66)
        elif math.isfinite(info.best):
            assert info(true, pred) == pytest.approx(info.best, abs=1e-12), name


def test_values_lie_in_the_registered_bounds():
    rng = np.random.default_rng(0)
    for _ in range(40):
        n = int(rng.integers(12, 40))
        X = rng.normal(size=(n, 2))
        true, pred = rng.integers(0, 4, n), rng.integers(0, 5, n)
        for name in hm.available():
            info = hm.get(name)
            value = info(true, pred) if info.kind == "external" else info(X, pred)
            assert math.isnan(value) or info.in_bounds(value), (name, value)


def test_symmetric_flags_are_true():
    rng = np.random.default_rng(1)
    cases = [(rng.integers(0, 3, 15), rng.integers(0, 4, 15)) for _ in range(20)]
    for name in hm.available("external"):
        info = hm.get(name)
        same = all(info(a, b) == pytest.approx(info(b, a), abs=1e-12) for a, b in cases)
        assert same == info.symmetric, name


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown metric 'silhouete' \(did you mean "
                                         r"'silhouette'\?\); valid: .*'ari'"):
        hm.get("silhouete")
    with pytest.raises(ValueError, match="unknown kind 'externa'.*'external', 'internal'"):
        hm.available("externa")
    with pytest.raises(TypeError, match="metric name must be a string"):
        hm.get(3)


def test_metric_info_is_frozen_and_callable():
    info = hm.get("ari")
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.name = "x"
    assert info([0, 0, 1], [1, 1, 0]) == 1.0
    assert "Adjusted Rand" in info.description
    assert not info.in_bounds(math.nan)


@pytest.fixture
def private_registry(monkeypatch):
    monkeypatch.setattr(registry, "_METRICS", dict(registry._METRICS))


def test_register_a_user_index(private_registry):
    def error_rate(labels_true, labels_pred):
        """Fraction of points not matched."""
        return 1.0 - hm.maximum_matching(labels_true, labels_pred)

    info = hm.register("Error-Rate", error_rate, kind="external", bounds=(0, 1),
                       higher_is_better=False, aliases=("err",), symmetric=True)
    assert info.name == "error_rate" and info.bounds == (0.0, 1.0)
    assert hm.get("ERR") is info and "error_rate" in hm.available("external")
    assert info.description == "Fraction of points not matched."
    assert hm.get("err")([0, 0, 1], [0, 1, 1]) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="already used by 'error_rate'"):
        hm.register("err", error_rate, kind="external", bounds=(0, 1), higher_is_better=False)
    replaced = hm.register("error_rate", error_rate, kind="external", bounds=(0, 1),
                           higher_is_better=False, aliases=("err",), overwrite=True)
    assert hm.get("err") is replaced


def test_register_rejects_bad_entries(private_registry):
    def f(X, labels):
        return 0.0

    with pytest.raises(ValueError, match="already used by 'adjusted_rand_index'"):
        hm.register("ari", f, kind="external", bounds=(0, 1), higher_is_better=True)
    with pytest.raises(ValueError, match="unknown kind 'relative'"):
        hm.register("mine", f, kind="relative", bounds=(0, 1), higher_is_better=True)
    with pytest.raises(ValueError, match="low <= high"):
        hm.register("mine", f, kind="internal", bounds=(1, 0), higher_is_better=True)
    with pytest.raises(ValueError, match="two real numbers"):
        hm.register("mine", f, kind="internal", bounds=("a", 1), higher_is_better=True)
    with pytest.raises(TypeError, match="callable"):
        hm.register("mine", 3, kind="internal", bounds=(0, 1), higher_is_better=True)
    with pytest.raises(TypeError, match="higher_is_better must be True or False"):
        hm.register("mine", f, kind="internal", bounds=(0, 1), higher_is_better=1)
    assert "mine" not in hm.available()
    hm.register("mine", f, kind="internal", bounds=(-math.inf, math.inf),
                higher_is_better=True)
    assert hm.get("mine").bounds == (-math.inf, math.inf)


def test_aliases_must_be_a_sequence_of_names():
    """A string would register each of its characters as a name."""
    with pytest.raises(TypeError, match="aliases must be a sequence of names, got 'xyz'"):
        registry.register("mything", lambda t, p: 0.0, kind="external", bounds=(0, 1),
                          higher_is_better=True, aliases="xyz")
    assert "x" not in registry.available()


def test_in_bounds_allows_rounding_past_a_bound_and_no_more():
    """scikit-learn's NMI of identical partitions is 1 + 2.2e-16, returned as is here."""
    from sklearn.metrics import normalized_mutual_info_score

    labels = [0, 0, 1, 1, 2, 2, 2, 3, 3, 3, 3]
    value = hm.normalized_mutual_information(labels, [(v + 1) % 4 for v in labels])
    assert value == normalized_mutual_info_score(labels, [(v + 1) % 4 for v in labels])
    info = hm.get("normalized_mutual_information")
    assert info.in_bounds(value) and info.in_bounds(1.0 + 4 * 2.2e-16)
    assert not info.in_bounds(1.0 + 1e-14) and not info.in_bounds(-1e-14)
    assert not info.in_bounds(math.nan)
    assert hm.get("calinski_harabasz").in_bounds(math.inf)
