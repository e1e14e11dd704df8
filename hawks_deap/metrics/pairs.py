"""Pair-counting external indices, empirical and model-level.

Every point pair ``{x, y}`` (unordered, ``x != y``) is classified by whether the true
labelling T and the predicted clustering C put its two points together:

    ours   survey (a, b, c, d)   seed 003      the pair's two points are
    tp     a = #SS                N gamma_4     together in C and in T
    fp     b = #SD                N gamma_2     together in C only
    fn     c = #DS                N gamma_3     together in T only
    tn     d = #DD                N gamma_1     apart in both

(the survey's "SD" is same-in-C, different-in-reference). The counts come from the
contingency table in O(n + nnz), never by enumerating the ``N = n(n-1)/2`` pairs:

    tp = sum_ij C(n_ij, 2),   tp + fp = sum_i C(n_i, 2),   tp + fn = sum_j C(m_j, 2),
    tn = N - tp - fp - fn,

with ``n_i`` the cluster sizes and ``m_j`` the class sizes. The counts are exact Python
integers and every ratio is a correctly rounded division of integers (the ARI follows
scikit-learn's float expression instead, to equal it bit for bit). An index whose
formula is 0/0 for the given labellings returns ``nan`` (listed in each docstring),
except the three scikit-learn also computes, which give its values there: the ARI and
the Rand index 1.0, the Fowlkes-Mallows index 0.0. Empty labellings are accepted, as
scikit-learn accepts them: like a single point, they have no pair at all.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from hawks_deap.metrics._common import contingency, ratio

__all__ = [
    "ModelPairIndices",
    "PairCounts",
    "adjusted_rand_index",
    "fowlkes_mallows",
    "hubert_gamma",
    "jaccard",
    "normalized_hubert_gamma",
    "pair_confusion",
    "pair_indices_from_model",
    "pair_npv",
    "pair_ppv",
    "pair_sensitivity",
    "pair_specificity",
    "rand_index",
]


class PairCounts(NamedTuple):
    """Unordered pair counts of two labellings (exact Python integers).

    ``tp``: together in both; ``fp``: together in the prediction only; ``fn``: together
    in the truth only; ``tn``: apart in both. ``sklearn.metrics.pair_confusion_matrix``
    counts ordered pairs, ``[[2 tn, 2 fp], [2 fn, 2 tp]]``.
    """

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def n_pairs(self) -> int:
        """Number of unordered pairs ``N = n (n - 1) / 2``."""
        return self.tp + self.fp + self.fn + self.tn


def _choose2_sum(counts: np.ndarray) -> int:
    """``sum_c C(c, 2)`` as an exact Python integer."""
    counts = counts.astype(np.int64, copy=False)
    return int(np.sum(counts * (counts - 1)) // 2)


def pair_confusion(labels_true: ArrayLike, labels_pred: ArrayLike) -> PairCounts:
    """Count the unordered point pairs by agreement of two labellings.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        Any hashable labels.

    Returns
    -------
    PairCounts
        ``(tp, fp, fn, tn)``: the survey's ``(a, b, c, d)`` = (#SS, #SD, #DS, #DD) of
        the section on pairwise measures, seed 003's
        ``(gamma_4, gamma_2, gamma_3, gamma_1)`` times ``N``. Half of scikit-learn's
        ordered-pair ``pair_confusion_matrix``.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    table = contingency(labels_true, labels_pred)
    n = table.n_samples
    tp = _choose2_sum(table.values)
    together_pred = _choose2_sum(table.pred_sizes)
    together_true = _choose2_sum(table.true_sizes)
    fp = together_pred - tp
    fn = together_true - tp
    tn = n * (n - 1) // 2 - tp - fp - fn
    return PairCounts(tp, fp, fn, tn)


def jaccard(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Jaccard coefficient of the pairs put together, ``JC = a / (a + b + c)``.

    Survey, pairwise measures: ``tp / (tp + fp + fn)``, in [0, 1], 1 for identical
    partitions. Symmetric. ``nan`` (0/0) when both labellings are all singletons (a
    single point and empty labellings included).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        JC in [0, 1]; ``nan`` when no pair is together in either labelling.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    c = pair_confusion(labels_true, labels_pred)
    return ratio(c.tp, c.tp + c.fp + c.fn)


def rand_index(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Rand index, ``RI = 2 (a + d) / (n (n - 1))``, the fraction of agreeing pairs.

    Survey, pairwise measures; equal to ``sklearn.metrics.rand_score``. In [0, 1],
    symmetric. Limits as scikit-learn: a single point or empty labellings have no pair,
    1.0 (the two labellings disagree on no pair); two identical trivial partitions (one
    cluster, all singletons) 1.0; a single cluster against all singletons 0.0.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        RI in [0, 1]; 1.0 when there is no pair.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    c = pair_confusion(labels_true, labels_pred)
    if c.n_pairs == 0:
        return 1.0
    return ratio(c.tp + c.tn, c.n_pairs)


def adjusted_rand_index(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Adjusted Rand index of Hubert and Arabie (1985).

    ``ARI = (RI - E[RI]) / (max RI - E[RI])`` under the permutation model, in pair
    counts

        ARI = 2 (tp tn - fn fp) / ((tp + fn)(fn + tn) + (tp + fp)(fp + tn)).

    Symmetric; in [-1/2, 1] (the minimum -1/2 is reached for n = 3 and 4, Chacon and
    Rastrojo 2023). This is the paper's ``phi`` of Versus mode.

    The denominator vanishes only when ``fp = fn = 0`` and ``tp tn = 0``: the two
    labellings are the same partition and it is trivial (one cluster, or all
    singletons, or n = 1, or n = 0: empty labellings). The index is then 0/0; like
    scikit-learn, this function returns 1.0 (the partitions agree on every pair), so
    the index is always a finite number, as Versus mode requires of a score. A single
    cluster against all singletons is 0.0 (``tp = tn = 0``), as in scikit-learn.

    The final division is scikit-learn's floating-point expression (on the exact
    integer counts), so the value equals ``sklearn.metrics.adjusted_rand_score`` to the
    last bit, for any n: Versus runs recorded with either give the same fitnesses.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        ARI in [-1/2, 1], always finite (1.0 where it is 0/0).

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.

    Examples
    --------
    >>> adjusted_rand_index([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> adjusted_rand_index([0, 0, 1, 1], [0, 1, 0, 1])
    -0.5
    >>> adjusted_rand_index([0, 0, 0], [1, 1, 1])
    1.0
    """
    c = pair_confusion(labels_true, labels_pred)
    if c.fn == 0 and c.fp == 0:
        return 1.0
    # Counts of unordered pairs: scikit-learn's ordered counts are twice these, so its
    # numerator and denominator are 4 times ours, a power of two that the rounding of
    # both to float leaves exact. Same float operations, same result.
    numerator = c.tp * c.tn - c.fn * c.fp
    denominator = (c.tp + c.fn) * (c.fn + c.tn) + (c.tp + c.fp) * (c.fp + c.tn)
    return 2.0 * numerator / denominator


def fowlkes_mallows(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Fowlkes-Mallows index, ``FMI = sqrt(a / (a + b) * a / (a + c))``.

    Survey, pairwise measures: the geometric mean of pair precision and pair recall,
    ``tp / sqrt((tp + fp)(tp + fn))``. Symmetric, in [0, 1]. Computed as scikit-learn
    does, ``sqrt(tp / (tp + fp)) * sqrt(tp / (tp + fn))``: both factors are at most 1
    after rounding, so the value never exceeds 1 (the other order of operations gave
    1.0000000000000002 for two identical one-cluster labellings of 3 points), and it
    equals ``sklearn.metrics.fowlkes_mallows_score`` to the last bit. No pair put
    together by both (``tp = 0``, e.g. all singletons, a single point or empty
    labellings): 0.0, as scikit-learn returns; two single-cluster labellings: 1.0.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        FMI in [0, 1]; 0.0 when ``tp = 0``.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    c = pair_confusion(labels_true, labels_pred)
    if c.tp == 0:
        return 0.0
    return math.sqrt(c.tp / (c.tp + c.fp)) * math.sqrt(c.tp / (c.tp + c.fn))


def hubert_gamma(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Discrete Hubert statistic ``Gamma = t^T c / N = TP / N``.

    Survey, correlation measures ("discrete Hubert statistic"): the mean product of the
    two pair-indicator vectors (``t`` = same true class, ``c`` = same cluster), i.e. the
    fraction of pairs together in both labellings. Symmetric, in [0, 1]; higher means
    more co-membership shared. For a given truth its maximum is ``(tp + fn) / N``, the
    fraction of same-class pairs, reached by the true partition and equally by any
    clustering that only merges classes (a single cluster included): compare
    clusterings with `normalized_hubert_gamma` instead. ``nan`` (0/0) for a single
    point or empty labellings (no pair).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        Gamma in [0, 1]; ``nan`` when there is no pair.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    c = pair_confusion(labels_true, labels_pred)
    return ratio(c.tp, c.n_pairs)


def normalized_hubert_gamma(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Normalised discrete Hubert statistic: the correlation of the pair indicators.

    Survey, "normalised discrete Hubert statistic", ``Gamma_n = z_t^T z_c /
    (||z_t|| ||z_c||)`` with centred indicator vectors; in pair counts (the phi
    coefficient of the 2 x 2 pair table)

        Gamma_n = (N tp - (tp + fn)(tp + fp)) / sqrt((tp + fn)(fp + tn)(tp + fp)(fn + tn)).

    Symmetric, in [-1, 1]. ``nan`` (0/0) when either indicator vector is constant, i.e.
    when either labelling is a single cluster or all singletons (n < 2 and empty
    labellings included). clusim's
    ``pearson_correlation`` omits the square root; this is the correct statistic.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        Gamma_n in [-1, 1]; ``nan`` when either indicator vector is constant.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    c = pair_confusion(labels_true, labels_pred)
    together_true = c.tp + c.fn
    together_pred = c.tp + c.fp
    numerator = c.n_pairs * c.tp - together_true * together_pred
    product = together_true * (c.fp + c.tn) * together_pred * (c.fn + c.tn)
    root = math.isqrt(product)
    # an exact root where there is one (identical partitions: numerator == root, so
    # exactly 1, where two rounded square roots gave 1 +- 2e-16)
    gamma = ratio(numerator, root if root * root == product else math.sqrt(product))
    return gamma if math.isnan(gamma) else max(-1.0, min(1.0, gamma))  # (in [-1, 1])


def pair_sensitivity(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Clustering sensitivity CSENS ``= P(g_i = g_j | A_i = A_j) = tp / (tp + fn)``.

    Seed 003 (kappa_1), empirical version: of the pairs in the same true class, the
    fraction put in the same cluster (pair recall). Not symmetric:
    ``pair_sensitivity(t, p) == pair_ppv(p, t)``. In [0, 1]. ``nan`` (0/0) when the
    true labelling is all singletons (or has no pair: n < 2, empty).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        CSENS in [0, 1]; ``nan`` when no pair shares a true class.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    c = pair_confusion(labels_true, labels_pred)
    return ratio(c.tp, c.tp + c.fn)


def pair_specificity(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Clustering specificity CSPEC ``= P(g_i != g_j | A_i != A_j) = tn / (tn + fp)``.

    Seed 003 (kappa_2), empirical version: of the pairs in different true classes, the
    fraction put in different clusters. ``pair_specificity(t, p) == pair_npv(p, t)``.
    In [0, 1]. ``nan`` (0/0) when the true labelling is a single class (or has no
    pair: n < 2, empty).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        CSPEC in [0, 1]; ``nan`` when no pair is split by the truth.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    c = pair_confusion(labels_true, labels_pred)
    return ratio(c.tn, c.tn + c.fp)


def pair_ppv(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Clustering positive predictive value CPPV ``= P(A_i = A_j | g_i = g_j)``.

    Seed 003 (kappa_3), empirical version ``tp / (tp + fp)``: of the pairs put in the
    same cluster, the fraction in the same true class (pair precision). In [0, 1].
    ``nan`` (0/0) when the prediction is all singletons (or has no pair: n < 2,
    empty).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        CPPV in [0, 1]; ``nan`` when no pair shares a predicted cluster.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    c = pair_confusion(labels_true, labels_pred)
    return ratio(c.tp, c.tp + c.fp)


def pair_npv(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Clustering negative predictive value CNPV ``= P(A_i != A_j | g_i != g_j)``.

    Seed 003 (kappa_4), empirical version ``tn / (tn + fn)``: of the pairs put in
    different clusters, the fraction in different true classes. In [0, 1]. ``nan``
    (0/0) when the prediction is a single cluster (or has no pair: n < 2, empty).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        The classes and the predicted clusters, of the same length (empty allowed): any
        hashable labels, NaN refused. No value means noise: ``-1`` is one more cluster.

    Returns
    -------
    float
        CNPV in [0, 1]; ``nan`` when no pair is split by the prediction.

    Raises
    ------
    ValueError
        If the labellings are not 1-D or of different lengths.
    """
    c = pair_confusion(labels_true, labels_pred)
    return ratio(c.tn, c.tn + c.fn)


class ModelPairIndices(NamedTuple):
    """Model-level pair probabilities and indices (seed 003, Table 5.3).

    ``gamma1 = P(g1 != g2, A1 != A2)``, ``gamma2 = P(g1 = g2, A1 != A2)``,
    ``gamma3 = P(g1 != g2, A1 = A2)``, ``gamma4 = P(g1 = g2, A1 = A2)`` for two
    independent observations; ``sensitivity`` .. ``npv`` are kappa_1 .. kappa_4.
    """

    gamma1: float
    gamma2: float
    gamma3: float
    gamma4: float
    sensitivity: float
    specificity: float
    ppv: float
    npv: float


_SUM_TOL = 1e-9

#: A model probability at most this is an impossible event up to rounding.
_ZERO_PROBABILITY = 1e-12


def _conditional(joint: float, marginal: float) -> float:
    """``P(X | Y) = joint / marginal``, ``nan`` when ``P(Y)`` is 0 up to rounding."""
    return joint / marginal if marginal > _ZERO_PROBABILITY else math.nan


def _check_model(pi: ArrayLike, B: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Validate mixing proportions and an assignment-probability matrix."""
    p = np.asarray(pi, dtype=float)
    b = np.asarray(B, dtype=float)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"pi must be a non-empty 1-D array of proportions, got shape {p.shape}")
    if b.ndim != 2 or b.shape[0] != p.size or b.shape[1] == 0:
        raise ValueError(
            f"B must be a 2-D array of shape (G, K) with G = len(pi) = {p.size}, got shape "
            f"{b.shape}"
        )
    for name, arr in (("pi", p), ("B", b)):
        if not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(f"{name} must contain finite non-negative probabilities")
    if abs(p.sum() - 1.0) > _SUM_TOL:
        raise ValueError(f"pi must sum to 1, got {p.sum():.12g}")
    row_sums = b.sum(axis=1)
    bad = np.flatnonzero(np.abs(row_sums - 1.0) > _SUM_TOL)
    if bad.size:
        raise ValueError(
            f"each row of B must sum to 1 (b_gj = P(cluster j | group g)); row {bad[0]} "
            f"sums to {row_sums[bad[0]]:.12g}"
        )
    return p, b


def pair_indices_from_model(pi: ArrayLike, B: ArrayLike) -> ModelPairIndices:
    """Model-level CSENS, CSPEC, CPPV and CNPV from a mixture and a clustering rule.

    Seed 003 ("general expressions for the indices"). With ``pi_g = P(A = g)`` and
    ``b_gj = P(g_hat = j | A = g)`` (rows of B sum to 1), for two independent
    observations::

        P(A1 = A2) = ssq(pi) = pi^T pi,
        P(g1 = g2) = ssq(B^T pi),
        gamma_4 = P(g1 = g2, A1 = A2) = sum_g pi_g^2 sum_j b_gj^2 = trace(C^T C),
                  C = diag(pi) B,
        gamma_2 = ssq(B^T pi) - gamma_4,    gamma_3 = ssq(pi) - gamma_4,
        gamma_1 = 1 - ssq(pi) - ssq(B^T pi) + gamma_4,

    and ``kappa_1 = gamma_4 / (gamma_3 + gamma_4)`` (CSENS),
    ``kappa_2 = gamma_1 / (gamma_1 + gamma_2)`` (CSPEC),
    ``kappa_3 = gamma_4 / (gamma_2 + gamma_4)`` (CPPV),
    ``kappa_4 = gamma_1 / (gamma_1 + gamma_3)`` (CNPV).
    The empirical indices (`pair_sensitivity` ...) of n points drawn from the model
    converge to these as n grows. An index conditioned on an impossible event (a
    denominator of at most 1e-12, i.e. 0 up to rounding) is ``nan``: CSENS when no two
    observations can share a group, CSPEC with a single group (G = 1), CPPV when no two
    observations can share a cluster, CNPV when every observation goes to one cluster.

    Parameters
    ----------
    pi : array-like of shape (G,)
        Mixing proportions, non-negative, summing to 1 (within 1e-9).
    B : array-like of shape (G, K)
        Assignment probabilities; row g is the distribution of the cluster id of an
        observation of group g.

    Returns
    -------
    ModelPairIndices
        The four gamma probabilities and the four indices.

    Raises
    ------
    ValueError
        If pi or B is not a probability vector / row-stochastic matrix of matching size.
    """
    p, b = _check_model(pi, B)
    ssq_pi = float(p @ p)
    q = b.T @ p
    ssq_q = float(q @ q)
    c = p[:, np.newaxis] * b
    gamma4 = float(np.sum(c * c))
    gamma2 = ssq_q - gamma4
    gamma3 = ssq_pi - gamma4
    gamma1 = 1.0 - ssq_pi - ssq_q + gamma4
    return ModelPairIndices(
        gamma1=gamma1,
        gamma2=gamma2,
        gamma3=gamma3,
        gamma4=gamma4,
        sensitivity=_conditional(gamma4, ssq_pi),  # gamma3 + gamma4 = P(A1 = A2)
        specificity=_conditional(gamma1, 1.0 - ssq_pi),  # gamma1 + gamma2 = P(A1 != A2)
        ppv=_conditional(gamma4, ssq_q),  # gamma2 + gamma4 = P(g1 = g2)
        npv=_conditional(gamma1, 1.0 - ssq_q),  # gamma1 + gamma3 = P(g1 != g2)
    )
