"""External indices based on matching and on entropy.

Each function takes ``(labels_true, labels_pred)`` like scikit-learn, accepts any
hashable labels and works from the sparse contingency table (scikit-learn's
``contingency_matrix(..., sparse=True)``), in O(n + nnz) time plus the table's
construction; nothing is quadratic in n. The pair-counting indices are in
:mod:`hawks_deap.metrics.pairs`.

Notation (survey 001, "external indices"): ``C = {C_1..C_r}`` is the predicted
clustering, ``T = {T_1..T_k}`` the ground-truth partition, ``n_ij = |C_i & T_j|``,
``n_i = |C_i|``, ``m_j = |T_j|``, ``n`` the number of points, ``p_ij = n_ij / n``,
``p_Ci = n_i / n``, ``p_Tj = m_j / n``. Logarithms are natural (nats).

Limit cases (empty labellings, a single cluster, all singletons) are listed in each
docstring. An index scikit-learn also computes (MI, NMI with each averaging, AMI,
homogeneity, completeness, V-measure) gives scikit-learn's value there, with one
exception: the MI of two empty labellings is 0.0 (an empty sum) where scikit-learn
raises ``ValueError: math domain error`` (from ``log(0)``). The other indices give their
formula's value: ``nan`` for 0/0, 0.0 for an empty sum.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from scipy.sparse.csgraph import (
    connected_components,
    maximum_bipartite_matching,
    min_weight_full_bipartite_matching,
)

from hawks_deap._util.validation import check_choice
from hawks_deap.metrics._common import Contingency, contingency, ratio

__all__ = [
    "NMI_AVERAGE_METHODS",
    "adjusted_mutual_information",
    "completeness",
    "conditional_entropy",
    "f_measure",
    "maximum_matching",
    "mutual_information",
    "normalized_clustering_accuracy",
    "normalized_mutual_information",
    "homogeneity",
    "purity",
    "v_measure",
    "variation_of_information",
]

NMI_AVERAGE_METHODS = ("geometric", "arithmetic", "min", "max")

#: Largest ``rows x cols`` solved as one dense assignment problem by `maximum_matching`.
_DENSE_MATCHING_LIMIT = 4_000_000


# ----------------------------------------------------------------------------- matching


def purity(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Purity of the predicted clusters, ``(1/n) sum_i max_j n_ij``.

    Survey, "purity": cluster ``C_i`` has purity ``max_j n_ij / n_i`` and the clustering
    the size-weighted mean. In (0, 1], higher is better. Not symmetric: 1 whenever every
    predicted cluster lies inside one class (all singletons give 1); it cannot be 1 with
    fewer clusters than classes. ``nan`` (0/0) for empty labellings.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        The purity, in (0, 1]; ``nan`` for empty labellings.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    table = contingency(labels_true, labels_pred)
    if table.n_samples == 0:
        return math.nan
    column_max = table.table.max(axis=0).toarray().ravel()
    return float(column_max.sum()) / table.n_samples


def _matching_weight_dense(block: np.ndarray) -> int:
    # imported on first use: importing scipy.optimize is slow and few indices need it
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(block, maximize=True)
    return int(block[rows, cols].sum())


def _sparse_assignment(block: sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of a maximum-weight matching of a sparse bipartite graph (LAPJVsp).

    scipy's solver needs a *full* matching of the smaller side and non-zero weights: each
    row gets a private dummy column of weight 1 and every real edge weight ``w + 1``
    (the weights are >= 0). Any full matching uses exactly ``rows`` edges, so its weight
    is ``rows`` plus the weight of the real edges it uses, and the optimum gives the
    maximum matching. Only the real edges are returned, in the block's orientation.
    """
    transposed = block.shape[0] > block.shape[1]
    if transposed:
        block = block.T.tocsr()
    n_rows, n_cols = block.shape
    coo = block.tocoo()
    augmented = sparse.csr_matrix(
        (np.concatenate([coo.data + 1.0, np.ones(n_rows)]),
         (np.concatenate([coo.row, np.arange(n_rows)]),
          np.concatenate([coo.col, n_cols + np.arange(n_rows)]))),
        shape=(n_rows, n_cols + n_rows),
    )
    rows, cols = min_weight_full_bipartite_matching(augmented, maximize=True)
    real = cols < n_cols
    rows, cols = rows[real], cols[real]
    return (cols, rows) if transposed else (rows, cols)


def _matching_weight_sparse(block: sparse.csr_matrix) -> int:
    """Maximum-weight matching of a large sparse bipartite graph (`_sparse_assignment`)."""
    rows, cols = _sparse_assignment(block)
    return int(np.asarray(block[rows, cols]).sum())


def _max_matching_weight(table: Contingency) -> int:
    """Weight of a maximum-weight matching of the contingency table's bipartite graph.

    Small tables are solved densely by ``linear_sum_assignment``. Large ones are split
    into the connected components of the bipartite graph (a maximum matching is the
    union of maximum matchings of the components): a component with a single class or
    a single cluster (a star, e.g. every singleton) contributes its heaviest edge; a
    component whose edges all weigh the same w contributes w times its maximum
    cardinality matching (Hopcroft-Karp, all such components at once); the others are
    solved densely when small and by the sparse solver otherwise.
    """
    n_true, n_pred = table.table.shape
    if n_true * n_pred <= _DENSE_MATCHING_LIMIT:
        return _matching_weight_dense(table.table.toarray())
    graph = sparse.coo_matrix(
        (np.ones(table.values.size), (table.rows, n_true + table.cols)),
        shape=(n_true + n_pred, n_true + n_pred),
    )
    n_comp, comp = connected_components(graph, directed=False)
    row_comp, col_comp = comp[:n_true], comp[n_true:]
    rows_in = np.bincount(row_comp, minlength=n_comp)
    cols_in = np.bincount(col_comp, minlength=n_comp)
    edge_comp = row_comp[table.rows]
    heaviest = np.zeros(n_comp, dtype=np.int64)
    np.maximum.at(heaviest, edge_comp, table.values)
    lightest = np.full(n_comp, np.iinfo(np.int64).max)
    np.minimum.at(lightest, edge_comp, table.values)
    star = (rows_in == 1) | (cols_in == 1)
    uniform = ~star & (lightest == heaviest)
    total = int(heaviest[star].sum())
    if uniform.any():
        keep = uniform[edge_comp]
        unit = sparse.csr_matrix(
            (np.ones(int(keep.sum())), (table.rows[keep], table.cols[keep])),
            shape=(n_true, n_pred),
        )
        matched = np.flatnonzero(maximum_bipartite_matching(unit, perm_type="column") >= 0)
        total += int(heaviest[row_comp[matched]].sum())
    rest = np.flatnonzero(~star & ~uniform)
    if rest.size == 0:
        return total
    row_order = np.argsort(row_comp, kind="stable")
    col_order = np.argsort(col_comp, kind="stable")
    row_start = np.concatenate([[0], np.cumsum(rows_in)])
    col_start = np.concatenate([[0], np.cumsum(cols_in)])
    for c in rest:
        r_idx = row_order[row_start[c]:row_start[c + 1]]
        c_idx = col_order[col_start[c]:col_start[c + 1]]
        block = table.table[r_idx][:, c_idx]
        if r_idx.size * c_idx.size <= _DENSE_MATCHING_LIMIT:
            total += _matching_weight_dense(block.toarray())
        else:
            total += _matching_weight_sparse(sparse.csr_matrix(block))
    return total


def maximum_matching(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Maximum matching, ``max_M w(M) / n`` over one-to-one cluster-class matchings.

    Survey, "maximum matching": the contingency table is a complete weighted bipartite
    graph with edge weights ``n_ij``; ``M`` is a matching (no two edges share a cluster
    or a class) and ``w(M)`` its total weight, so each class is matched to at most one
    cluster, unlike `purity`. Solved exactly with scipy's ``linear_sum_assignment``
    (and, for huge tables, per connected component, with the sparse LAPJVsp solver).
    Symmetric, in (0, 1], 1 exactly for identical partitions, ``nan`` (0/0) for empty
    labellings. Also called the clustering accuracy.

    Tables up to 4e6 cells are solved densely. Larger ones are split into connected
    components: stars (e.g. all singletons) cost linear time; equal-weight components
    go to scipy's Hopcroft-Karp and the others to LAPJVsp, both slow on a giant
    component (a known slow case, measured in BENCHMARKS.md).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        The matched fraction of points, in (0, 1]; ``nan`` for empty labellings.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    table = contingency(labels_true, labels_pred)
    if table.n_samples == 0:
        return math.nan
    return _max_matching_weight(table) / table.n_samples


def _recall_matching(table: Contingency) -> float:
    """Largest sum over one-to-one class-cluster matchings of the recalls ``n_ij / m_j``.

    A class left unmatched (fewer clusters than classes) adds 0, as a column of zeros
    would. Small tables are solved densely by ``linear_sum_assignment``. For large ones,
    only each class's ``k`` heaviest entries (``k`` classes) are kept: if an optimum
    matched class j to a lighter cluster, one of those ``k`` clusters would be free (the
    other ``k - 1`` classes use at most ``k - 1``), and moving j there loses nothing.
    The kept entries (at most ``k^2``, at most nnz) are solved densely when their columns
    are few and by the sparse solver otherwise.
    """
    from scipy.optimize import linear_sum_assignment

    n_true, n_pred = table.table.shape
    recall = table.values / table.true_sizes[table.rows].astype(float)
    rows, cols = table.rows, table.cols
    if n_true * n_pred > _DENSE_MATCHING_LIMIT:
        order = np.lexsort((-recall, rows))  # by class, heaviest first
        start = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n_true))])
        rank = np.arange(order.size) - start[rows[order]]
        kept = order[rank < n_true]
        rows, cols, recall = rows[kept], cols[kept], recall[kept]
        used, cols = np.unique(cols, return_inverse=True)
        n_pred = used.size
    if n_true * n_pred <= _DENSE_MATCHING_LIMIT:
        dense = np.zeros((n_true, n_pred))
        dense[rows, cols] = recall
        matched_rows, matched_cols = linear_sum_assignment(dense, maximize=True)
        return float(dense[matched_rows, matched_cols].sum())
    block = sparse.csr_matrix((recall, (rows, cols)), shape=(n_true, n_pred))
    matched_rows, matched_cols = _sparse_assignment(block)
    return float(np.asarray(block[matched_rows, matched_cols]).sum())


def normalized_clustering_accuracy(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Normalised clustering accuracy (NCA; Gagolewski 2025), asymmetric.

    ``NCA = max_s (1/k) sum_j (r_{j,s(j)} - 1/k) / (1 - 1/k) = (max_s sum_j r_{j,s(j)} - 1)
    / (k - 1)``, where ``r_ji = n_ij / m_j`` is the share of true class ``T_j`` found in
    predicted cluster ``C_i`` (its recall), ``k`` the number of classes and ``s`` a
    one-to-one matching of the classes to the clusters (the maximal linear sum
    assignment of the recalls, not of the counts). It is the mean over the classes of
    the matched recall, rescaled so that 0 is what a uniform spread of every class over
    ``k`` clusters gives and 1 a perfect recovery: every class weighs the same whatever
    its size. The default score of the clustering benchmark framework
    (``clustbench.get_score``), equal to
    ``genieclust.compare_partitions.normalized_clustering_accuracy`` for labels
    ``1..k`` in both vectors (to 1e-12).

    Fewer clusters than classes: the unmatched classes add recall 0 (genieclust's
    stated rule, a confusion matrix padded with columns of zeros; genieclust 1.3 itself
    refuses a label range of another size). More clusters than classes: only ``k`` of
    them are matched, and the value may be negative, down to ``-1 / (k - 1)``. With
    ``k`` clusters it lies in [0, 1]. Not symmetric: the first argument is the truth.
    Labels are compared as values, and ``k`` counts the classes present (genieclust
    counts every integer between the smallest and the largest label).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster
        (leave noise points out first, as ``clustbench.get_score`` does).

    Returns
    -------
    float
        The NCA, in [-1, 1] (in [0, 1] when there are at most ``k`` clusters); ``nan``
        for a single class (``k - 1 = 0``: nothing to normalise by, as genieclust's
        0/0) and for empty labellings.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.

    Examples
    --------
    Class sizes 4 and 2; the second class is split in half, so its recall is 1/2:
    ``((1 + 1/2) - 1) / (2 - 1) = 0.5``, whereas the plain accuracy is 5/6.

    >>> normalized_clustering_accuracy([0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 1, 2])
    0.5
    """
    table = contingency(labels_true, labels_pred)
    n_classes = len(table.true_sizes)
    if n_classes < 2:
        return math.nan
    return (_recall_matching(table) - 1.0) / (n_classes - 1)


def f_measure(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Cluster-matching F-measure of the survey, ``F = (1/r) sum_i 2 n_ij_i / (n_i + m_j_i)``.

    Survey, "F-measure": for predicted cluster ``C_i``, ``j_i`` is its majority class;
    ``prec_i = n_ij_i / n_i`` (its purity), ``recall_i = n_ij_i / m_j_i`` and ``F_i``
    their harmonic mean, ``2 n_ij_i / (n_i + m_j_i)``; F is the unweighted mean over the
    r predicted clusters. When several classes tie for the majority, ``j_i`` is the one
    giving the largest ``F_i`` (the smallest class), so the value does not depend on
    label order. In (0, 1], 1 exactly for identical partitions; higher is better.
    ``nan`` for empty labellings (a mean over no cluster).

    Definitions differ between sources: the classification-style F of Larsen and Aone
    (1999) averages over classes, weighted by size, the best F over clusters,
    ``sum_j (m_j / n) max_i F(i, j)``; the pair-counting F (clusim's ``fmeasure``) is
    the harmonic mean of pair precision and recall. Neither is this index.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        The F-measure, in (0, 1]; ``nan`` for empty labellings.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    table = contingency(labels_true, labels_pred)
    if table.n_samples == 0:
        return math.nan
    column_max = table.table.max(axis=0).toarray().ravel()
    majority = table.values == column_max[table.cols]
    cols = table.cols[majority]
    values = table.values[majority].astype(float)
    f_values = 2.0 * values / (table.pred_sizes[cols] + table.true_sizes[table.rows[majority]])
    best = np.zeros(table.pred_sizes.size)
    np.maximum.at(best, cols, f_values)
    return float(best.mean())


# ------------------------------------------------------------------------------ entropy


def _entropy(sizes: np.ndarray, n: int) -> float:
    """``-sum (c/n) log(c/n)`` over positive counts ``c``; exactly 0 for one block or none."""
    if n == 0:
        return 0.0
    counts = sizes[sizes > 0].astype(float)
    return float(-np.sum(counts / n * (np.log(counts) - math.log(n))))


def _mutual_information(table: Contingency) -> float:
    """``I(C, T) = sum_ij p_ij log(n n_ij / (n_i m_j))``; exactly 0 if either is trivial.

    Trivial: a single block, or none (empty labellings, an empty sum).
    """
    if table.true_sizes.size <= 1 or table.pred_sizes.size <= 1:
        return 0.0
    n = table.n_samples
    values = table.values.astype(float)
    log_ratio = (np.log(values) - np.log(table.pred_sizes[table.cols].astype(float))) + (
        math.log(n) - np.log(table.true_sizes[table.rows].astype(float)))
    # >= 0 in exact arithmetic; rounding can leave -1e-16, clipped as scikit-learn does
    return max(0.0, float(np.sum(values / n * log_ratio)))


def _conditional_entropy(table: Contingency, *, given: str) -> float:
    """``H(T|C)`` (``given="pred"``) or ``H(C|T)`` (``given="true"``), a sum of terms >= 0.

    Each term is written ``p_ij (log n_. - log n_ij)``, the exact negation of
    ``p_ij log(n_ij / n_.)``, so a sum of zeros is +0.0, not -0.0.
    """
    sizes = table.pred_sizes[table.cols] if given == "pred" else table.true_sizes[table.rows]
    values = table.values.astype(float)
    return float(np.sum(values / table.n_samples * (np.log(sizes) - np.log(values))))


def conditional_entropy(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Conditional entropy of the truth given the clustering, ``H(T|C)`` (nats).

    Survey, "conditional entropy":
    ``H(T|C) = sum_i (n_i/n) H(T|C_i) = -sum_ij p_ij log(p_ij / p_Ci)``, the entropy of
    the classes left inside each predicted cluster. 0 for a perfect clustering (and for
    any clustering that only splits classes, and for empty labellings: an empty sum), at
    most ``log k``; lower is better. Not symmetric: ``conditional_entropy(p, t)`` is
    ``H(C|T)``.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        ``H(T|C)`` in nats, >= 0; 0.0 for empty labellings.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    return _conditional_entropy(contingency(labels_true, labels_pred), given="pred")


def mutual_information(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Mutual information ``I(C, T) = sum_ij p_ij log(p_ij / (p_Ci p_Tj))`` (nats).

    Survey, "normalised mutual information"; equal to ``sklearn.metrics.mutual_info_score``.
    Symmetric, in [0, min(H(C), H(T))], 0 for independent labellings; higher is better.
    Limits: exactly 0.0 when either labelling is a single cluster (scikit-learn's value),
    and 0.0 for empty labellings, an empty sum, where scikit-learn raises
    ``ValueError: math domain error`` (its ``log`` of 0 samples); a number keeps it in
    line with the indices built on it (NMI, homogeneity ...), which scikit-learn does
    define there.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        ``I(C, T)`` in nats, >= 0; 0.0 for empty labellings.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    return _mutual_information(contingency(labels_true, labels_pred))


def _averaged_table(labels_true: ArrayLike, labels_pred: ArrayLike,
                    average_method: str) -> Contingency:
    """Check ``average_method`` (NMI and AMI), then the labellings, and build the table."""
    check_choice("average_method", average_method, NMI_AVERAGE_METHODS)
    return contingency(labels_true, labels_pred)


def normalized_mutual_information(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                                  average_method: str = "geometric") -> float:
    """Normalised mutual information ``NMI = I(C, T) / mean(H(C), H(T))``.

    The survey's NMI (section "normalised mutual information") is the geometric mean
    normalisation, ``I / sqrt(H(C) H(T))``, the default here (Strehl and Ghosh 2002).
    Sources differ: scikit-learn's default is ``"arithmetic"`` (I / ((H(C) + H(T)) / 2),
    which equals the V-measure); ``"min"`` and ``"max"`` are also in use (Vinh, Epps
    and Bailey 2010). With the same ``average_method`` this equals
    ``sklearn.metrics.normalized_mutual_info_score`` wherever the ratio is defined.

    Symmetric, in [0, 1], 1 for identical partitions; higher is better. Limit cases as
    scikit-learn, for every ``average_method``: 1.0 when both labellings have a single
    cluster (the data is not split: they agree) and for empty labellings, and 0.0
    whenever ``I = 0`` otherwise (a normaliser of 0 then only means one labelling is a
    single cluster), so the index is always defined. All singletons against all
    singletons is 1.0 (``I = H``), a single point 1.0.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        Any hashable labels.
    average_method : {"geometric", "arithmetic", "min", "max"}
        How ``H(C)`` and ``H(T)`` are averaged in the denominator.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths, or ``average_method`` is
        unknown.
    """
    table = _averaged_table(labels_true, labels_pred, average_method)
    if max(len(table.true_sizes), len(table.pred_sizes)) <= 1:  # one cluster each, or none
        return 1.0
    mi = _mutual_information(table)
    if mi == 0.0:
        return 0.0
    h_true = _entropy(table.true_sizes, table.n_samples)
    h_pred = _entropy(table.pred_sizes, table.n_samples)
    if average_method == "geometric":
        normaliser = math.sqrt(h_true * h_pred)
    elif average_method == "arithmetic":
        normaliser = (h_true + h_pred) / 2.0
    elif average_method == "min":
        normaliser = min(h_true, h_pred)
    else:
        normaliser = max(h_true, h_pred)
    return ratio(mi, normaliser)


def _homogeneity_completeness(labels_true: ArrayLike, labels_pred: ArrayLike
                              ) -> tuple[float, float]:
    """``(I / H(T), I / H(C))``, each 1.0 where its entropy is 0 (scikit-learn's limits)."""
    table = contingency(labels_true, labels_pred)
    mi = _mutual_information(table)
    h_true = _entropy(table.true_sizes, table.n_samples)
    h_pred = _entropy(table.pred_sizes, table.n_samples)
    return (mi / h_true if h_true else 1.0), (mi / h_pred if h_pred else 1.0)


def homogeneity(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Homogeneity (Rosenberg and Hirschberg 2007): each cluster holds one class.

    ``h = 1 - H(T | C) / H(T) = I(T, C) / H(T)``, in [0, 1], higher is better; 1.0 when
    ``H(T) = 0`` (a single class, or empty labellings), as
    ``sklearn.metrics.homogeneity_score``, which it equals (to 1e-12). All singletons
    predicted: 1.0. Not symmetric: ``homogeneity(t, c) = completeness(c, t)``.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        The homogeneity, in [0, 1]; 1.0 when ``H(T) = 0``.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    return _homogeneity_completeness(labels_true, labels_pred)[0]


def completeness(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Completeness (Rosenberg and Hirschberg 2007): each class lies in one cluster.

    ``c = I(T, C) / H(C)``, in [0, 1], higher is better; 1.0 when ``H(C) = 0`` (a single
    cluster, or empty labellings), as ``sklearn.metrics.completeness_score``, which it
    equals (to 1e-12). All singletons as the truth: 1.0.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        The completeness, in [0, 1]; 1.0 when ``H(C) = 0``.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    return _homogeneity_completeness(labels_true, labels_pred)[1]


def v_measure(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """V-measure, the harmonic mean of homogeneity and completeness (beta = 1).

    ``v = 2 h c / (h + c)`` with ``h = I / H(T)`` and ``c = I / H(C)`` simplifies to
    ``I / ((H(T) + H(C)) / 2)``, the NMI with arithmetic averaging (as scikit-learn
    documents for ``v_measure_score``), and is computed as that. In [0, 1], symmetric,
    equal to ``sklearn.metrics.v_measure_score`` everywhere (to 1e-12). Limits as scikit-learn,
    and the NMI's: 1.0 for two single-cluster labellings and for empty ones (h = c = 1),
    0.0 for a single cluster against any split (h or c is 0, and ``I = 0``).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        The V-measure, in [0, 1].

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    return normalized_mutual_information(labels_true, labels_pred, average_method="arithmetic")


def adjusted_mutual_information(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                                average_method: str = "arithmetic") -> float:
    """Adjusted mutual information (Vinh, Epps and Bailey 2010).

    ``AMI = (I - E[I]) / (mean(H(T), H(C)) - E[I])``, with ``E[I]`` the expected mutual
    information under the permutation model (hypergeometric). Computed by
    ``sklearn.metrics.adjusted_mutual_info_score`` (its exact expected-MI kernel), on
    labels checked and encoded here, so the value and the limits are scikit-learn's,
    for every ``average_method``: 1.0 for identical labellings, for two single-cluster
    labellings and for empty ones; 0.0 for a single cluster against any split (``I``
    and ``E[I]`` are both 0). At most 1, about 0 for independent labellings, may be
    negative; symmetric.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        Any hashable labels.
    average_method : {"arithmetic", "geometric", "min", "max"}
        How the two entropies are averaged (scikit-learn's default: arithmetic).

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths, or ``average_method`` is
        unknown.
    """
    from sklearn.metrics import adjusted_mutual_info_score

    table = _averaged_table(labels_true, labels_pred, average_method)
    # scikit-learn gets one (class, cluster) code pair per point, rebuilt from the table:
    # the points in another order, whatever hashables the labels are (tuples, mixed
    # types). AMI is a function of the contingency table (scikit-learn computes it from
    # the table and the margins), and the table is the same, codes and counts alike.
    true = np.repeat(table.rows, table.values)
    pred = np.repeat(table.cols, table.values)
    return float(adjusted_mutual_info_score(true, pred, average_method=average_method))


def variation_of_information(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Variation of information ``VI = H(T) + H(C) - 2 I(C, T)`` (nats; Meila 2007).

    Survey, "variation of information". Computed as ``H(T|C) + H(C|T)``, a sum of
    non-negative terms, so it is never negative through rounding and is exactly 0 for
    identical partitions (and for empty labellings, an empty sum). A metric on
    partitions: symmetric, in [0, log n]; lower is better.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        VI in nats, >= 0; 0.0 for identical partitions and empty labellings.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    table = contingency(labels_true, labels_pred)
    return (_conditional_entropy(table, given="pred")
            + _conditional_entropy(table, given="true"))
