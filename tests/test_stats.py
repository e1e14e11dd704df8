"""Friedman / Nemenyi comparison (hawks_deap.analysis.stats): a hand-computed case, scipy as the
oracle of the statistic, Demšar's table of q_alpha, brute-force cliques, properties, and
the CD diagram and Fig. 3 boxplots drawn (artist contents, Agg backend)."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from hawks_deap.analysis.features import FEATURE_NAMES, InstanceSpace, Table
from hawks_deap.analysis.stats import (
    PAPER_FIG2_LOADINGS,
    friedman_nemenyi,
    join_tables,
    loadings_beside_paper,
    nemenyi_critical_value,
    split_table,
)

# 4 datasets x 3 algorithms (higher is better), one tie on dataset 2.
HAND = np.array([[0.9, 0.8, 0.7],    # ranks 1    2    3
                 [0.9, 0.9, 0.5],    #       1.5  1.5  3   (tie: t = 2)
                 [0.6, 0.8, 0.7],    #       3    1    2
                 [1.0, 0.7, 0.4]])   #       1    2    3
# rank sums R = (6.5, 6.5, 11), average ranks (1.625, 1.625, 2.75), N = 4, k = 3:
#   12 / (N k (k+1)) sum R^2 - 3 N (k+1) = 12/48 * (42.25 + 42.25 + 121) - 48 = 3.375
#   tie correction C = 1 - (2^3 - 2) / (N k (k^2 - 1)) = 1 - 6/96 = 0.9375
#   chi2 = 3.375 / 0.9375 = 3.6; df = 2, so p = exp(-3.6 / 2) = exp(-1.8)
#   Iman-Davenport F = (N-1) chi2 / (N (k-1) - chi2) = 10.8 / 4.4, df (2, 6)
#   CD = q_0.05(k=3) sqrt(k (k+1) / (6 N)) = 2.3437 * sqrt(0.5) = 1.657
#   every rank gap (at most 1.125) < CD: one clique {A, B, C}
HAND_RANK_SUMS = np.array([6.5, 6.5, 11.0])


def test_hand_computed_case():
    r = friedman_nemenyi(HAND, ["A", "B", "C"])
    np.testing.assert_allclose(r.average_ranks, [1.625, 1.625, 2.75])
    assert r.statistic == pytest.approx(3.6, abs=1e-12)
    assert r.pvalue == pytest.approx(math.exp(-1.8), rel=1e-12)
    assert r.iman_davenport == pytest.approx(10.8 / 4.4, rel=1e-12)
    assert r.iman_davenport_pvalue == pytest.approx(sps.f.sf(10.8 / 4.4, 2, 6))
    assert r.critical_difference == pytest.approx(2.343 * math.sqrt(0.5), abs=1e-3)
    assert r.cliques == (("A", "B", "C"),)
    assert not r.rejected and not r.differs("A", "C")
    assert r.ranking() == [("A", 1.625), ("B", 1.625), ("C", 2.75)]
    assert (r.n_datasets, r.n_algorithms) == (4, 3)
    # lower is better: the same as ranking the negated scores
    low = friedman_nemenyi(-HAND, ["A", "B", "C"], higher_is_better=False)
    np.testing.assert_allclose(low.average_ranks, r.average_ranks)
    text = str(r)
    assert "chi-square = 3.600 (df 2)" in text and "{A, B, C}" in text
    assert "not rejected" in text and "CD = 1.657" in text


def test_perfect_agreement_gives_three_cliques_by_hand():
    # every dataset ranks A > B > C > D: average ranks 1, 2, 3, 4, chi2 = N (k - 1) = 18;
    # CD = 2.569 * sqrt(20 / 36) = 1.915, so only neighbours (gap 1) are not different
    r = friedman_nemenyi(np.tile([4.0, 3.0, 2.0, 1.0], (6, 1)), list("ABCD"))
    np.testing.assert_allclose(r.average_ranks, [1, 2, 3, 4])
    assert r.statistic == pytest.approx(18.0)
    assert r.pvalue == pytest.approx(sps.chi2.sf(18.0, 3))
    assert r.iman_davenport == math.inf and r.iman_davenport_pvalue == 0.0
    assert r.critical_difference == pytest.approx(2.569 * math.sqrt(20 / 36), abs=1e-3)
    assert r.cliques == (("A", "B"), ("B", "C"), ("C", "D"))
    assert r.rejected and r.differs("A", "C") and not r.differs("B", "C")
    assert (r.nemenyi_pvalues < r.alpha)[0, 2] and (r.nemenyi_pvalues >= r.alpha)[0, 1]


def test_rows_with_all_equal_scores():
    everywhere = friedman_nemenyi(np.full((5, 4), 0.3))
    np.testing.assert_allclose(everywhere.average_ranks, 2.5)
    assert (everywhere.statistic, everywhere.pvalue) == (0.0, 1.0)
    assert (everywhere.iman_davenport, everywhere.iman_davenport_pvalue) == (0.0, 1.0)
    assert everywhere.cliques == (("0", "1", "2", "3"),)
    # a fully tied row adds (k+1)/2 to every rank and nothing to the corrected statistic
    with_tie = friedman_nemenyi(np.vstack([HAND, [1.0, 1.0, 1.0]]))
    assert with_tie.statistic == pytest.approx(3.6)
    np.testing.assert_allclose(with_tie.average_ranks, (HAND_RANK_SUMS + 2) / 5)
    scipy = sps.friedmanchisquare(*np.vstack([HAND, [1.0, 1.0, 1.0]]).T)
    assert with_tie.statistic == pytest.approx(scipy.statistic, rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_statistic_and_pvalue_agree_with_scipy(seed):
    rng = np.random.default_rng(seed)
    n, k = rng.integers(3, 30), rng.integers(3, 8)
    scores = np.round(rng.uniform(size=(n, k)), 1)  # coarse: many ties
    r = friedman_nemenyi(scores)
    expected = sps.friedmanchisquare(*scores.T)
    assert r.statistic == pytest.approx(expected.statistic, rel=1e-10)
    assert r.pvalue == pytest.approx(expected.pvalue, rel=1e-8, abs=1e-300)
    ranks = sps.rankdata(-scores, axis=1)
    np.testing.assert_allclose(r.average_ranks, ranks.mean(axis=0))


def test_two_algorithms_equal_the_uncorrected_hand_formula():
    # scipy's friedmanchisquare needs k >= 3; with k = 2 and no ties Demšar's formula is
    # chi2 = 12 N / (k (k+1)) [sum R_j^2 - k (k+1)^2 / 4]
    scores = np.array([[1.0, 2.0], [3.0, 1.0], [2.0, 5.0], [0.0, 4.0], [6.0, 1.0]])
    r = friedman_nemenyi(scores, ["x", "y"])
    ranks = np.array([2.0, 1.0]) + (scores[:, 0] > scores[:, 1])[:, None] * [-1, 1]
    avg = ranks.mean(axis=0)
    hand = 12 * 5 / 6 * (np.sum(avg**2) - 2 * 9 / 4)
    assert r.statistic == pytest.approx(hand)
    assert r.q_alpha == pytest.approx(1.960, abs=1e-3)


DEMSAR_Q_005 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
DEMSAR_Q_010 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


@pytest.mark.parametrize("k", range(2, 11))
def test_critical_values_match_demsar_table_5a(k):
    # Demšar (2006), Table 5(a); his values are rounded to three decimals
    assert nemenyi_critical_value(k, 0.05) == pytest.approx(DEMSAR_Q_005[k - 2], abs=1e-3)
    assert nemenyi_critical_value(k, 0.10) == pytest.approx(DEMSAR_Q_010[k - 2], abs=1e-3)


def brute_force_cliques(ranks, cd):
    """Maximal (by inclusion) sets of >= 2 indices whose ranks span less than cd."""
    k = len(ranks)
    sets = [set(s) for m in range(2, k + 1) for s in itertools.combinations(range(k), m)
            if max(ranks[i] for i in s) - min(ranks[i] for i in s) < cd]
    return {frozenset(s) for s in sets if not any(s < other for other in sets)}


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.integers(2, 6), st.integers(0, 2**32 - 1),
       st.sampled_from([1, 2, 4, 10]))
def test_properties_and_brute_force_cliques(n, k, seed, levels):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels, size=(n, k)).astype(float)
    r = friedman_nemenyi(scores)
    assert r.average_ranks.sum() == pytest.approx(k * (k + 1) / 2)
    assert 0.0 <= r.statistic <= n * (k - 1) + 1e-9 and 0.0 <= r.pvalue <= 1.0
    cliques = {frozenset(int(a) for a in c) for c in r.cliques}
    assert cliques == brute_force_cliques(r.average_ranks, r.critical_difference)
    gaps = np.abs(r.average_ranks[:, None] - r.average_ranks[None, :])
    far = gaps >= r.critical_difference + 1e-9
    near = gaps <= r.critical_difference - 1e-9
    assert np.all(r.nemenyi_pvalues[far] < r.alpha + 1e-9)
    assert np.all(r.nemenyi_pvalues[near] > r.alpha - 1e-9)
    # the order of the datasets does not matter; permuting algorithms permutes ranks
    perm = rng.permutation(k)
    moved = friedman_nemenyi(scores[rng.permutation(n)][:, perm])
    np.testing.assert_allclose(moved.average_ranks, r.average_ranks[perm])
    assert moved.statistic == pytest.approx(r.statistic, abs=1e-9)


def test_tables_and_errors():
    table = Table(("d0", "d1", "d2", "d3"), ("A", "B", "C"), HAND)
    r = friedman_nemenyi(table)
    assert r.algorithms == ("A", "B", "C") and r.statistic == pytest.approx(3.6)
    with pytest.raises(ValueError, match="do not match"):
        friedman_nemenyi(table, ["x", "y", "z"])
    bad = HAND.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"nan.*dataset '2', algorithm 'B'"):
        friedman_nemenyi(bad, ["A", "B", "C"])
    with pytest.raises(ValueError, match="at least 2 datasets and 2 algorithms"):
        friedman_nemenyi(HAND[:, :1])
    with pytest.raises(ValueError, match="at least 2 datasets and 2 algorithms"):
        friedman_nemenyi(HAND[:1])
    with pytest.raises(ValueError, match="must be 2-D"):
        friedman_nemenyi([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="distinct"):
        friedman_nemenyi(HAND, ["A", "A", "C"])
    with pytest.raises(ValueError, match="name the 3 columns"):
        friedman_nemenyi(HAND, ["A", "B"])
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\)"):
        friedman_nemenyi(HAND, alpha=1.0)
    with pytest.raises(TypeError, match="higher_is_better"):
        friedman_nemenyi(HAND, higher_is_better="yes")
    with pytest.raises(ValueError, match="n_algorithms"):
        nemenyi_critical_value(1)
    with pytest.raises(ValueError, match="'Z'"):
        r.differs("A", "Z")


def test_split_and_join_tables():
    table = Table(tuple("abcdef"), ("x", "y"), np.arange(12.0).reshape(6, 2))
    parts = split_table(table, ["UCI", "HAWKS", "UCI", "HK", "HAWKS", "UCI"])
    assert list(parts) == ["HAWKS", "HK", "UCI"]
    assert parts["UCI"].index == ("a", "c", "f")
    np.testing.assert_array_equal(parts["HAWKS"].values, [[2, 3], [8, 9]])
    joined, groups = join_tables(parts)
    assert groups == ["HAWKS"] * 2 + ["HK"] + ["UCI"] * 3
    assert sorted(joined.records(), key=str) == sorted(table.records(), key=str)
    with pytest.raises(ValueError, match="one label per row"):
        split_table(table, ["a"])
    with pytest.raises(ValueError, match="same columns"):
        join_tables({"p": table, "q": Table(("a",), ("x", "z"), [[0.0, 1.0]])})


def test_loadings_beside_the_paper():
    space = InstanceSpace().fit(np.random.default_rng(0).normal(size=(30, 7)))
    # known axes, with the signs opposite to the paper's: PC1 = -eccentricity (the
    # paper's loading is +0.519), PC2 = +silhouette (the paper's is -0.555)
    space.components_ = np.zeros((2, 7))
    space.components_[0, FEATURE_NAMES.index("eccentricity")] = -1.0
    space.components_[1, FEATURE_NAMES.index("silhouette")] = 1.0
    text = loadings_beside_paper(space)
    lines = text.splitlines()
    assert lines[0].split() == ["feature", "ours", "PC1", "paper", "PC1", "ours", "PC2",
                                "paper", "PC2"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:8]}
    assert list(rows) == list(FEATURE_NAMES)
    assert rows["eccentricity"] == ["1.000", "0.519", "0.000", "-?"]
    assert rows["silhouette"] == ["0.000", "-0.256", "-1.000", "-0.555"]
    assert rows["connectivity"][1::2] == ["-0.029", "+?"]
    assert "PC1 sign flipped" in text and "PC2 sign flipped" in text
    assert "of the variance" in text
    assert set(PAPER_FIG2_LOADINGS) == set(FEATURE_NAMES)
    with pytest.raises(ValueError, match="fitted"):
        loadings_beside_paper(InstanceSpace())


# --------------------------------------------------------------------------- figures

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


@pytest.fixture
def plt():
    import matplotlib.pyplot as pyplot

    yield pyplot
    pyplot.close("all")


def test_critical_difference_diagram(plt):
    from hawks_deap.analysis.plotting import plot_critical_difference

    r = friedman_nemenyi(np.tile([4.0, 3.0, 2.0, 1.0, 0.0], (8, 1)) +
                         np.array([[0, 0, 0, 0, 0]] * 7 + [[0, 3.5, 0, 0, 0]]),
                         ["km", "gmm", "avg", "single", "avg-2k"])
    fig = plot_critical_difference(r, title="HAWKS")
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    for name, rank in r.ranking():
        assert f"{name} ({rank:.2f})" in texts
    assert f"CD = {r.critical_difference:.2f}" in texts
    assert [str(i) for i in range(1, 6)] == [t for t in texts if t.isdigit()]
    bars = [line for line in ax.lines if line.get_gid() == "clique"]
    assert len(bars) == len(r.cliques) >= 2
    rank_of = dict(r.ranking())
    for bar, clique in zip(bars, r.cliques):
        xs = bar.get_xdata()
        assert min(xs) == pytest.approx(min(rank_of[a] for a in clique) - 0.03)
        assert max(xs) == pytest.approx(max(rank_of[a] for a in clique) + 0.03)
    (cd,) = [line for line in ax.lines if line.get_gid() == "critical-difference"]
    assert np.ptp(cd.get_xdata()) == pytest.approx(r.critical_difference)
    assert ax.get_title() == "HAWKS"
    with pytest.raises(TypeError, match="FriedmanNemenyi"):
        plot_critical_difference({"not": "a result"})


def test_ari_boxplots_per_source(plt):
    from hawks_deap.analysis.plotting import plot_performance

    rng = np.random.default_rng(0)
    algorithms = ("kmeans++", "gmm", "single-linkage")
    tables = {source: Table(tuple(f"{source}{i}" for i in range(n)), algorithms,
                            rng.uniform(size=(n, 3)))
              for source, n in (("UCI", 4), ("HAWKS", 6), ("SIPU", 3))}
    _, ax = plt.subplots()
    fig = plot_performance(tables, ax=ax)
    assert fig is ax.figure
    boxes = [p for p in ax.patches if type(p).__name__ == "PathPatch"]
    assert len(boxes) == 9  # 3 algorithms x 3 sources
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["UCI", "HAWKS", "SIPU"]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(algorithms)
    # each box spans the quartiles of one (source, algorithm) column
    ys = [b.get_path().vertices[:, 1] for b in boxes]
    spans = sorted((round(float(y.min()), 9), round(float(y.max()), 9)) for y in ys)
    expected = sorted(tuple(round(float(q), 9) for q in np.percentile(t.values[:, j],
                                                                      [25, 75]))
                      for t in tables.values() for j in range(3))
    assert spans == expected
    with pytest.raises(ValueError, match="groups must be left out"):
        plot_performance(tables, groups=["x"])


def test_digits_are_checked():
    from hawks_deap.analysis.stats import friedman_nemenyi

    result = friedman_nemenyi(np.array([[0.9, 0.5, 0.1], [0.8, 0.6, 0.2]]), ["a", "b", "c"])
    with pytest.raises(ValueError, match="digits must be >= 0"):
        result.to_text(digits=-1)
