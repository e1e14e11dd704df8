"""Friedman test against a control (Holm, Bonferroni-Dunn; Demšar 2006, 3.2.2) by hand,
Demšar's Table 5b as the oracle of q_alpha, and labelled scores (DataFrame, mapping,
Table) keeping the algorithms' and datasets' names (issue 37, item 5)."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from hawks_deap.analysis import Table, friedman_control, friedman_nemenyi
from hawks_deap.analysis.stats import (
    CONTROL_METHODS,
    FriedmanControl,
    bonferroni_dunn_critical_value,
)

# 6 datasets x 4 algorithms, the ranks of each dataset (1 = best); scores = 5 - rank.
RANKS = np.array([[1, 2, 3, 4],
                  [1, 2, 3, 4],
                  [1, 2, 4, 3],
                  [2, 1, 3, 4],
                  [3, 1, 2, 4],
                  [1, 4, 3, 2]])
SCORES = 5.0 - RANKS
NAMES = ["A", "B", "C", "D"]
# rank sums (9, 12, 18, 21): average ranks R = (1.5, 2.0, 3.0, 3.5); N = 6, k = 4
#   SE = sqrt(k (k + 1) / (6 N)) = sqrt(20 / 36) = sqrt(5) / 3 = 0.745356
# control A (R = 1.5):
#   z_B = 0.5 / SE = 0.670820, z_C = 1.5 / SE = 2.012461, z_D = 2.0 / SE = 2.683282
#   p = 2 (1 - Phi(z)) = erfc(z / sqrt 2): p_B = 0.502335, p_C = 0.044171, p_D = 0.007290
# Holm (k - 1 = 3 comparisons, smallest p first: D, C, B):
#   D: min(1, 3 p_D) = 0.021871                 <= 0.05: rejected
#   C: max(0.021871, 2 p_C = 0.088343) = 0.088343 > 0.05: not rejected (though p_C < 0.05)
#   B: max(0.088343, 1 p_B = 0.502335) = 0.502335 > 0.05: not rejected
# Bonferroni-Dunn: 3 p = (1.507, 0.132513, 0.021871), capped at 1: (1, 0.132513, 0.021871);
#   q_0.05 = 2.394 (Demšar's Table 5b, k = 4), CD = 2.394 SE = 1.784: only D's gap (2.0)
#   reaches it.
SE = math.sqrt(5.0) / 3.0
HAND_P = {name: math.erfc(gap / SE / math.sqrt(2.0))
          for name, gap in (("B", 0.5), ("C", 1.5), ("D", 2.0))}


def test_holm_against_a_control_by_hand():
    r = friedman_control(SCORES, "A", NAMES)
    assert isinstance(r, FriedmanControl) and r.method == "holm" == CONTROL_METHODS[0]
    np.testing.assert_allclose(r.average_ranks, [1.5, 2.0, 3.0, 3.5])
    assert r.control == "A" and r.control_rank == 1.5
    np.testing.assert_allclose(r.z[1:], [0.670820, 2.012461, 2.683282], atol=1e-6)
    np.testing.assert_allclose(r.pvalues[1:], [HAND_P["B"], HAND_P["C"], HAND_P["D"]],
                               rtol=1e-12)
    np.testing.assert_allclose(r.pvalues[1:], [0.502335, 0.044171, 0.007290], atol=1e-6)
    np.testing.assert_allclose(
        r.adjusted_pvalues[1:],
        [HAND_P["B"], 2 * HAND_P["C"], 3 * HAND_P["D"]], rtol=1e-12)
    np.testing.assert_allclose(r.adjusted_pvalues[1:], [0.502335, 0.088343, 0.021871],
                               atol=1e-6)
    assert r.rejected.tolist() == [False, False, False, True]
    assert np.isnan(r.z[0]) and np.isnan(r.adjusted_pvalues[0])
    assert [c[0] for c in r.comparisons()] == ["D", "C", "B"]
    assert r.differs("D") and not r.differs("C") and not r.differs("B")
    assert r.not_different() == ("A", "B", "C")
    # the Friedman part is friedman_nemenyi's: scipy as the oracle (no ties here)
    assert r.statistic == pytest.approx(sps.friedmanchisquare(*SCORES.T).statistic)
    assert r.statistic == pytest.approx(friedman_nemenyi(SCORES, NAMES).statistic)
    text = str(r)
    assert "Holm against the control A" in text and "D: z = 2.683" in text
    assert "adjusted p = 0.0219 (differs)" in text
    with pytest.raises(ValueError, match="unknown algorithm 'A'"):
        r.differs("A")  # the control is not compared with itself
    for array in (r.z, r.pvalues, r.adjusted_pvalues, r.rejected):
        assert not array.flags.writeable


def test_bonferroni_dunn_against_the_same_control_by_hand():
    r = friedman_control(SCORES, "A", NAMES, method="bonferroni-dunn")
    np.testing.assert_allclose(r.pvalues[1:], [HAND_P["B"], HAND_P["C"], HAND_P["D"]],
                               rtol=1e-12)
    np.testing.assert_allclose(r.adjusted_pvalues[1:],
                               [1.0, 3 * HAND_P["C"], 3 * HAND_P["D"]], rtol=1e-12)
    assert r.q_alpha == pytest.approx(2.394, abs=5e-4)  # Demšar's Table 5b, k = 4
    assert r.critical_difference == pytest.approx(2.394 * SE, abs=1e-3)
    assert r.critical_difference == pytest.approx(1.784, abs=1e-3)
    assert r.rejected.tolist() == [False, False, False, True]
    # rejected exactly when the rank gap reaches the CD
    gaps = np.abs(r.average_ranks - r.control_rank)
    assert (gaps[1:] >= r.critical_difference).tolist() == r.rejected[1:].tolist()
    assert "Bonferroni-Dunn against the control A" in r.to_text()
    assert "Bonferroni-Dunn" in r._repr_html_() and "<td>D</td>" in r._repr_html_()


def test_holm_keeps_the_adjusted_p_values_monotone():
    # 2 datasets ranking A > B > C alike, control B: z_A = -1, z_C = +1
    # (SE = sqrt(3 * 4 / 12) = 1), p_A = p_C = erfc(1 / sqrt 2) = 0.317311.
    # Holm: A first (a tie in p keeps column order): 2 p = 0.634621; C: max(0.634621,
    # 1 p) = 0.634621, not p = 0.317311: the step-down's max.
    r = friedman_control([[3.0, 2.0, 1.0], [3.0, 2.0, 1.0]], "B", ["A", "B", "C"])
    p = math.erfc(1.0 / math.sqrt(2.0))
    np.testing.assert_allclose(r.z[[0, 2]], [-1.0, 1.0])
    np.testing.assert_allclose(r.pvalues[[0, 2]], [p, p])
    np.testing.assert_allclose(r.adjusted_pvalues[[0, 2]], [2 * p, 2 * p], rtol=1e-12)
    assert r.adjusted_pvalues[2] == pytest.approx(0.634621, abs=1e-6)


def test_a_lower_is_better_control_and_other_controls():
    low = friedman_control(RANKS.astype(float), "A", NAMES, higher_is_better=False)
    high = friedman_control(SCORES, "A", NAMES)
    np.testing.assert_allclose(low.adjusted_pvalues[1:], high.adjusted_pvalues[1:])
    # control D (R = 3.5): gaps -3.0/... mirror control A's by sign
    d = friedman_control(SCORES, "D", NAMES)
    np.testing.assert_allclose(d.z[:3], np.array([-2.0, -1.5, -0.5]) / SE)
    assert d.rejected.tolist() == [True, False, False, False]


# k = 9 is not checked: the value our copy of the table gives (2.724) is not the
# quantile 1 - 0.05 / 16 (2.734), a misprint of the table or of our copy.
@pytest.mark.parametrize("k, q", [(2, 1.960), (3, 2.241), (4, 2.394), (5, 2.498),
                                  (6, 2.576), (7, 2.638), (8, 2.690), (10, 2.773)])
def test_bonferroni_dunn_critical_values_are_demsars_table_5b(k, q):
    assert bonferroni_dunn_critical_value(k) == pytest.approx(q, abs=1.5e-3)


def test_control_errors_name_the_parameter():
    with pytest.raises(ValueError, match="unknown control 'E'.*'A', 'B', 'C', 'D'"):
        friedman_control(SCORES, "E", NAMES)
    with pytest.raises(TypeError, match="control must be an algorithm's name"):
        friedman_control(SCORES, 0, NAMES)
    with pytest.raises(ValueError, match="unknown method 'hochberg'.*'holm'"):
        friedman_control(SCORES, "A", NAMES, method="hochberg")
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\)"):
        friedman_control(SCORES, "A", NAMES, alpha=0.0)
    with pytest.raises(ValueError, match="n_algorithms"):
        bonferroni_dunn_critical_value(1)


# --------------------------------------------------------------------------- labelled scores


def test_names_are_kept_from_a_dataframe_a_mapping_and_a_table():
    pd = pytest.importorskip("pandas")
    columns = ["kmeans++", "gmm", "mine", "single-linkage"]
    frame = pd.DataFrame(SCORES, columns=columns, index=[f"d{i}" for i in range(6)])
    by_frame = friedman_nemenyi(frame)
    assert by_frame.algorithms == tuple(frame.columns)
    assert [name for name, _ in by_frame.ranking()] == columns  # R = 1.5, 2, 3, 3.5
    by_mapping = friedman_nemenyi({c: SCORES[:, j] for j, c in enumerate(columns)})
    by_table = friedman_nemenyi(Table.from_labelled(frame))
    for r in (by_mapping, by_table):
        assert r.algorithms == tuple(columns)
        np.testing.assert_array_equal(r.average_ranks, by_frame.average_ranks)
    control = friedman_control(frame, "mine")
    assert control.algorithms == tuple(columns) and control.control == "mine"
    # R_mine = 3: gaps 1.5 (kmeans++), 1.0 (gmm), 0.5 (single-linkage), smallest p first
    assert [c[0] for c in control.comparisons()] == ["kmeans++", "gmm", "single-linkage"]


def test_algorithms_select_and_order_the_columns_of_labelled_scores():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(SCORES, columns=NAMES)
    picked = friedman_nemenyi(frame, ["D", "A"])
    assert picked.algorithms == ("D", "A")
    expected = friedman_nemenyi(SCORES[:, [3, 0]], ["D", "A"])
    np.testing.assert_array_equal(picked.average_ranks, expected.average_ranks)
    assert picked.statistic == pytest.approx(expected.statistic)
    with pytest.raises(ValueError, match=r"\['A', 'X'\] do not match the columns "
                                         r"\['A', 'B', 'C', 'D'\].*\['X'\]"):
        friedman_control(frame, "A", ["A", "X"])
    with pytest.raises(ValueError, match="distinct"):
        friedman_nemenyi(frame, ["A", "A"])
    with pytest.raises(ValueError, match="unknown control 'C'"):
        friedman_control(frame, "C", ["A", "B"])  # not among the selected columns


def test_mapping_scores_are_checked():
    with pytest.raises(ValueError, match="scores: .*one length"):
        friedman_nemenyi({"a": [1.0, 2.0], "b": [1.0]})
    with pytest.raises(TypeError, match=r"scores: data\['b'\] must hold numbers"):
        friedman_nemenyi({"a": [1.0, 2.0], "b": ["x", "y"]})
    bad = {"a": [1.0, np.nan, 3.0], "b": [1.0, 2.0, 3.0]}
    with pytest.raises(ValueError, match="dataset '1', algorithm 'a'"):
        friedman_control(bad, "a")


def test_table_from_labelled_input_and_records_with_row_names():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 4.0]}, index=["r0", "r1"])
    table = Table.from_labelled(frame)
    assert (table.index, table.columns) == (("r0", "r1"), ("x", "y"))
    np.testing.assert_array_equal(table.values, frame.to_numpy())
    assert Table.from_labelled(table) is table
    assert Table.from_labelled(table, index=["a", "b"]).index == ("a", "b")
    mapped = Table.from_labelled({"x": [1, 2], "y": (3, 4)}, index=["r0", "r1"])
    np.testing.assert_array_equal(mapped.values, table.values)
    assert mapped.index == table.index and mapped.columns == table.columns
    assert Table.from_labelled({"x": [1.0, 2.0]}).index == ("0", "1")
    # records: unchanged without a key; with one, the row name first
    assert table.records() == [{"x": 1.0, "y": 3.0}, {"x": 2.0, "y": 4.0}]
    assert table.records(index_name="dataset") == [
        {"dataset": "r0", "x": 1.0, "y": 3.0}, {"dataset": "r1", "x": 2.0, "y": 4.0}]
    assert list(table.records("dataset")[0]) == ["dataset", "x", "y"]
    assert Table.is_labelled(frame) and Table.is_labelled({}) and Table.is_labelled(table)
    assert not Table.is_labelled(SCORES) and not Table.is_labelled([[1.0]])
    with pytest.raises(ValueError, match="index_name 'x' is a column's name"):
        table.records(index_name="x")
    with pytest.raises(TypeError, match="index_name must be a string"):
        table.records(index_name=1)
    with pytest.raises(ValueError, match="index must name the 2 rows, got 3"):
        Table.from_labelled(frame, index=["a", "b", "c"])
    with pytest.raises(TypeError, match="data must be a Table, a pandas DataFrame"):
        Table.from_labelled(SCORES)
    with pytest.raises(ValueError, match="empty mapping"):
        Table.from_labelled({})
