"""Input checks and the contingency table shared by every metric.

Every index of ``hawks_deap.metrics`` checks its input through these functions, which
build on the package-wide checks (`hawks_deap._util.labels` for labellings,
`hawks_deap._util.validation` for data), so indices, features and Versus scores accept the
same input and raise the same messages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy import sparse

from hawks_deap._util.labels import as_label_array, encode_labels
from hawks_deap._util.validation import SeedLike, check_X

__all__ = ["Contingency", "SeedLike", "as_labels", "check_X", "check_data", "contingency",
           "ratio"]


def as_labels(name: str, labels: object) -> np.ndarray:
    """Return ``labels`` as a non-empty 1-D array, or raise naming ``name``.

    Any hashable values are accepted (`hawks_deap._util.labels.as_label_array`). Used by the
    internal indices, whose data must not be empty; the external indices accept empty
    labellings (`contingency`).
    """
    arr = as_label_array(labels, name=name)
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must not be empty, got 0 labels")
    return arr


@dataclass(frozen=True)
class Contingency:
    """Sparse contingency table of two labellings and its margins.

    ``table[j, i]`` counts the points of true class ``j`` in predicted cluster ``i``
    (scikit-learn's orientation: rows are ``labels_true``). The survey (section
    "external indices") writes the transpose, ``n_ij = |C_i & T_j|`` with ``C_i`` the
    predicted clusters; ``pred_sizes`` are its ``n_i`` and ``true_sizes`` its ``m_j``.

    Attributes
    ----------
    rows, cols, values : numpy.ndarray
        The non-zero entries in row-major order: ``table[rows[e], cols[e]] == values[e]``.
    true_sizes, pred_sizes : numpy.ndarray of int64
        Class sizes ``m_j`` (row sums) and cluster sizes ``n_i`` (column sums).
    n_samples : int
        Number of labelled points ``n``.
    """

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    true_sizes: np.ndarray
    pred_sizes: np.ndarray
    n_samples: int

    @cached_property
    def table(self) -> sparse.csr_matrix:
        """The table as a CSR matrix of int64, shape (n_classes, n_clusters).

        Built on first use: the pair-counting indices need only the entries.
        """
        shape = (self.true_sizes.shape[0], self.pred_sizes.shape[0])
        return sparse.csr_matrix((self.values, (self.rows, self.cols)), shape=shape)


def contingency(labels_true: object, labels_pred: object) -> Contingency:
    """Validate two labellings and build their sparse contingency table.

    Classes and clusters are numbered by `hawks_deap._util.labels.encode_labels` (sorted
    order, as in scikit-learn's ``contingency_matrix``), and the entries are listed in
    row-major order, so sums over them add up in the same order as with scikit-learn's
    table. The table is counted densely with ``numpy.bincount`` when it is small (the
    usual case: a few classes and clusters), through the distinct (class, cluster)
    pairs otherwise.

    Two empty labellings give an empty table (``n_samples = 0``, no classes, no
    clusters): scikit-learn's external indices return values for them (ARI, NMI,
    homogeneity ... 1.0, FMI 0.0), so the indices here decide their own limit.

    Raises
    ------
    ValueError
        If either labelling is not 1-D, or their lengths differ.
    """
    true = as_label_array(labels_true, name="labels_true")
    pred = as_label_array(labels_pred, name="labels_pred")
    if true.shape[0] != pred.shape[0]:
        raise ValueError(
            "labels_true and labels_pred must have the same length, got "
            f"{true.shape[0]} and {pred.shape[0]}"
        )
    n = true.shape[0]
    true_codes, n_true = encode_labels(true)
    pred_codes, n_pred = encode_labels(pred)
    cells = true_codes * n_pred + pred_codes
    if n_true * n_pred <= max(4 * n, 4096):  # a dense table no larger than the labels
        counts = np.bincount(cells, minlength=n_true * n_pred)
        (nonzero,) = np.nonzero(counts)
        values = counts[nonzero]
    else:
        nonzero, values = np.unique(cells, return_counts=True)
    values = values.astype(np.int64, copy=False)
    rows, cols = np.divmod(nonzero.astype(np.intp, copy=False), n_pred)
    return Contingency(
        rows=rows,
        cols=cols,
        values=values,
        true_sizes=np.bincount(true_codes, minlength=n_true).astype(np.int64),
        pred_sizes=np.bincount(pred_codes, minlength=n_pred).astype(np.int64),
        n_samples=int(n),
    )


def check_data(X: Any, labels: object) -> tuple[np.ndarray, np.ndarray, int]:
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

    Notes
    -----
    A scipy sparse X is accepted and made dense: the internal indices measure distances
    between all points, which a sparse layout does not make cheaper.
    """
    from scipy import sparse

    if sparse.issparse(X):
        X = X.toarray()
    X = check_X(X)
    arr = as_labels("labels", labels)
    if arr.shape[0] != X.shape[0]:
        raise ValueError(
            f"X and labels must have the same length, got {X.shape[0]} rows in X and "
            f"{arr.shape[0]} labels"
        )
    codes, k = encode_labels(arr)
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
