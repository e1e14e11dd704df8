"""Input checks and the contingency table shared by every metric.

All validation of labellings and data for ``hawks_deap.metrics`` lives here, so each
index checks its input the same way and raises the same messages.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from scipy import sparse

SeedLike: TypeAlias = "int | np.random.SeedSequence | np.random.Generator | None"
"""What every random function accepts as ``seed``."""


def as_labels(name: str, labels: object) -> np.ndarray:
    """Return ``labels`` as a non-empty 1-D array, or raise naming ``name``.

    Any hashable values are accepted. A sequence holding tuples (which numpy would turn
    into a 2-D array) becomes a 1-D object array, one label per element; a sequence of
    lists or arrays is rejected.
    """
    if isinstance(labels, np.ndarray):
        arr = labels
    else:
        try:
            arr = np.asarray(labels)
            nested = arr.ndim > 1
        except ValueError:  # ragged nested sequences
            nested = True
        if nested:
            seq = list(labels)  # type: ignore[call-overload]
            if not all(isinstance(value, Hashable) for value in seq):
                raise ValueError(f"{name} must be a 1-D sequence of hashable labels, got a "
                                 "nested sequence")
            arr = np.empty(len(seq), dtype=object)
            for i, value in enumerate(seq):
                arr[i] = value
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of labels, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must not be empty, got 0 labels")
    return arr


def encode(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer codes ``0..k-1`` of a 1-D label array and the number ``k`` of labels.

    Orderable labels are coded in sorted order (``numpy.unique``); labels numpy cannot
    sort (mixed types, arbitrary hashables) in order of first appearance. Every index is
    invariant to the coding, so the order does not matter.
    """
    try:
        _, codes = np.unique(labels, return_inverse=True)
    except TypeError:
        lookup: dict[object, int] = {}
        codes = np.fromiter((lookup.setdefault(v, len(lookup)) for v in labels.tolist()),
                            dtype=np.intp, count=labels.shape[0])
    codes = codes.reshape(-1).astype(np.intp, copy=False)
    return codes, int(codes.max()) + 1


def _sortable(labels: np.ndarray) -> np.ndarray:
    """``labels`` itself when numpy can sort it; its integer codes otherwise."""
    if labels.dtype != object:
        return labels
    return encode(labels)[0]


@dataclass(frozen=True)
class Contingency:
    """Sparse contingency table of two labellings and its margins.

    ``table[j, i]`` counts the points of true class ``j`` in predicted cluster ``i``
    (scikit-learn's orientation: rows are ``labels_true``). The survey (section
    "external indices") writes the transpose, ``n_ij = |C_i & T_j|`` with ``C_i`` the
    predicted clusters; ``pred_sizes`` are its ``n_i`` and ``true_sizes`` its ``m_j``.

    Attributes
    ----------
    table : scipy.sparse.csr_matrix of int64, shape (n_classes, n_clusters)
        The contingency table (scikit-learn's ``contingency_matrix(..., sparse=True)``).
    rows, cols, values : numpy.ndarray
        The non-zero entries: ``table[rows[e], cols[e]] == values[e]``.
    true_sizes, pred_sizes : numpy.ndarray of int64
        Class sizes ``m_j`` (row sums) and cluster sizes ``n_i`` (column sums).
    n_samples : int
        Number of labelled points ``n``.
    """

    table: sparse.csr_matrix
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    true_sizes: np.ndarray
    pred_sizes: np.ndarray
    n_samples: int


def contingency(labels_true: object, labels_pred: object) -> Contingency:
    """Validate two labellings and build their sparse contingency table.

    Raises
    ------
    ValueError
        If either labelling is empty or not 1-D, or their lengths differ.
    """
    true = as_labels("labels_true", labels_true)
    pred = as_labels("labels_pred", labels_pred)
    if true.shape[0] != pred.shape[0]:
        raise ValueError(
            "labels_true and labels_pred must have the same length, got "
            f"{true.shape[0]} and {pred.shape[0]}"
        )
    from sklearn.metrics.cluster import contingency_matrix  # lazy: importing sklearn costs ~0.5 s

    table = contingency_matrix(_sortable(true), _sortable(pred), sparse=True, dtype=np.int64)
    table = sparse.csr_matrix(table)
    coo = table.tocoo()
    return Contingency(
        table=table,
        rows=coo.row.astype(np.intp, copy=False),
        cols=coo.col.astype(np.intp, copy=False),
        values=coo.data.astype(np.int64, copy=False),
        true_sizes=np.asarray(table.sum(axis=1), dtype=np.int64).ravel(),
        pred_sizes=np.asarray(table.sum(axis=0), dtype=np.int64).ravel(),
        n_samples=int(true.shape[0]),
    )


def check_X(X: object) -> np.ndarray:
    """Return ``X`` as a finite float array of shape (n_samples, n_features), or raise."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"X must be a non-empty 2-D array (n_samples, n_features), got shape {X.shape}"
        )
    if not np.all(np.isfinite(X)):
        raise ValueError("X must contain only finite values")
    return X


def check_data(X: object, labels: object) -> tuple[np.ndarray, np.ndarray, int]:
    """Validate data and labels of an internal index.

    Returns
    -------
    X : numpy.ndarray of float, shape (n_samples, n_features)
        The data.
    codes : numpy.ndarray of intp, shape (n_samples,)
        Integer cluster codes ``0..k-1``.
    k : int
        Number of clusters.

    Raises
    ------
    ValueError
        If X is not a non-empty finite 2-D array, labels are not 1-D, or their lengths
        differ.
    """
    X = check_X(X)
    arr = as_labels("labels", labels)
    if arr.shape[0] != X.shape[0]:
        raise ValueError(
            f"X and labels must have the same length, got {X.shape[0]} rows in X and "
            f"{arr.shape[0]} labels"
        )
    codes, k = encode(arr)
    return X, codes, k


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` with ``0/0 = nan`` and ``x/0 = +-inf``, never raising.

    Python integers are divided exactly (correctly rounded), so pair-count formulas lose
    no precision however large the counts.
    """
    if denominator == 0:
        if numerator == 0 or math.isnan(numerator):
            return math.nan
        return math.copysign(math.inf, numerator)
    return float(numerator / denominator)
