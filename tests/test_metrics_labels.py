"""Label encoding (hawks_deap._util.labels) and the contingency table built on it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics.cluster import contingency_matrix

from hawks_deap._util.labels import as_label_array, encode_labels
from hawks_deap.metrics._common import contingency


def unique_codes(labels) -> tuple[list[int], int]:
    values, codes = np.unique(labels, return_inverse=True)
    return codes.reshape(-1).tolist(), len(values)


@pytest.mark.parametrize("labels", [
    [0, 1, 2, 1, 0],            # already codes: the one-pass path
    [2, 0, 2],                  # a gap: 1 is missing
    [5, 3, 5, 9],               # no 0
    [-1, 4, -1],                # negative
    np.array([2**63 + 5, 7], dtype=np.uint64),
    [1.5, -2.0, 1.5],
    ["b", "a", "c", "a"],
    [True, False, True],
    np.array([0, 1, 1], dtype=np.int8),
])
def test_codes_are_numpy_unique_inverse(labels) -> None:
    codes, k = encode_labels(labels)
    assert codes.dtype == np.intp and codes.shape == (len(labels),)
    assert (codes.tolist(), k) == unique_codes(labels)


@given(st.lists(st.integers(-3, 12), min_size=1, max_size=40))
def test_codes_match_numpy_unique_for_any_integers(labels: list[int]) -> None:
    codes, k = encode_labels(np.array(labels))
    assert (codes.tolist(), k) == unique_codes(labels)


def test_unsortable_labels_are_coded_by_first_appearance() -> None:
    codes, k = encode_labels(np.array(["x", 1, "x", 2.5, 1], dtype=object))
    assert codes.tolist() == [0, 1, 0, 2, 1] and k == 3


def test_tuples_are_labels() -> None:
    codes, k = encode_labels([(1, "a"), (0, "b"), (1, "a")])
    assert codes.tolist() == [1, 0, 1] and k == 2
    assert as_label_array([(1, 2), (3, 4)]).shape == (2,)


def test_codes_are_a_new_array() -> None:
    labels = np.array([0, 1, 1], dtype=np.intp)
    codes, _ = encode_labels(labels)
    codes[0] = 5
    assert labels.tolist() == [0, 1, 1]


def test_empty_labels() -> None:
    codes, k = encode_labels([])
    assert codes.shape == (0,) and codes.dtype == np.intp and k == 0


def test_errors_name_the_parameter_the_value_and_what_is_allowed() -> None:
    with pytest.raises(ValueError, match=r"^labels must be a 1-D array of length 5 \(the number "
                       r"of rows of X\), got shape \(4,\)$"):
        encode_labels([0, 1, 0, 1], n_samples=5)
    with pytest.raises(ValueError, match=r"y must be a 1-D array of length 2 .*got shape "
                       r"\(2, 1\)"):
        encode_labels(np.zeros((2, 1)), n_samples=2, name="y")
    with pytest.raises(ValueError, match=r"^y must be a 1-D array of labels, got shape \(2, 2\)$"):
        encode_labels(np.zeros((2, 2)), name="y")
    with pytest.raises(ValueError, match="labels must be a 1-D sequence of hashable labels"):
        encode_labels([[0, 1], [1]])


@pytest.mark.parametrize("n_pred", [3, 5000])  # dense counting, then distinct pairs
def test_contingency_equals_scikit_learn(n_pred: int) -> None:
    rng = np.random.default_rng(n_pred)
    true = rng.integers(0, 40, 3000)
    pred = rng.integers(0, n_pred, 3000) * 7 - 11
    table = contingency(true, pred)
    expected = contingency_matrix(true, pred, sparse=True).tocoo()
    assert table.table.shape == expected.shape
    assert (table.table != expected.tocsr()).nnz == 0
    assert table.values.dtype == np.int64
    order = np.lexsort((expected.col, expected.row))  # row-major
    assert table.rows.tolist() == expected.row[order].tolist()
    assert table.cols.tolist() == expected.col[order].tolist()
    assert table.values.tolist() == expected.data[order].tolist()
    assert table.true_sizes.tolist() == np.bincount(np.unique(true, return_inverse=True)[1]
                                                    .reshape(-1)).tolist()
    assert table.n_samples == 3000
