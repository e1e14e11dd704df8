"""The seven problem features of a labelled dataset (HAWKS paper, section IV-A).

The pure functions, below the problems so that an Index-mode problem can target them
(`hawks_deap.problems.features.FeatureTargetProblem`); `hawks_deap.analysis.features`
re-exports them under the same names with the tables and the instance space built on
them, and documents them.

Features of a labelled dataset (X of shape (N, D), labels y with K distinct values):

``connectivity``
    Handl and Knowles' connectivity with L = 10 neighbours, divided by N:
    ``(1 / N) sum_i sum_{j=1..L} [y_i != y_{nn_i(j)}] / j`` where ``nn_i(j)`` is the
    j-th nearest neighbour of point i (Euclidean, the point itself excluded). 0 when
    every point's 10 nearest neighbours share its cluster; at most
    ``H_10 = 1 + 1/2 + ... + 1/10 ~ 2.93``.
``dimensionality``
    D.
``eccentricity``
    Average eccentricity (paper IV-A1 and supplement S-I.C): for each cluster, the
    eigenvalues of the sample covariance of its points (squared singular values of the
    centred points over ``n_k - 1``), sorted in decreasing order; the largest ones that
    together reach 95% of their sum are kept, and the cluster's eccentricity is the
    largest kept eigenvalue over the smallest kept one. The feature is the mean over
    the clusters. A cluster with fewer than 2 points, or whose points are all equal,
    has no measurable elongation and counts as 1 (round).
``entropy``
    Entropy of the cluster sizes in base K (paper Eq. 8): ``H = -sum_k (n_k / N) log_K
    (n_k / N)``: 1 for equal sizes, towards 0 when one cluster holds almost every point;
    for K = 1 the sizes are trivially equal and H is defined as 1.
``n_clusters``
    K, the number of distinct labels.
``silhouette``, ``silhouette_std``
    Mean and (population, ddof = 0) standard deviation over all points of the
    silhouette width ``s(i) = (b(i) - a(i)) / max(a(i), b(i))`` (paper Eq. 1). The
    distance is the **squared Euclidean** distance by default, as in HAWKS (the index
    that Index mode targets, ``evaluation.silhouette_samples(..., metric="sqeuclidean")``);
    ``metric="euclidean"`` gives scikit-learn's. Both are NaN when K = 1 or K = N.

The paper gives no tie rule for nearest neighbours; with ties (duplicate points, equal
distances) tied neighbours come in scipy's KD-tree order (`hawks_deap.metrics.connectivity`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hawks_deap._util.labels import encode_labels
from hawks_deap._util.validation import check_bool, check_choice, check_float, check_int, check_X
from hawks_deap.metrics.internal import connectivity as normalised_connectivity

__all__ = [
    "FEATURE_NAMES",
    "average_eccentricity",
    "check_labelled_data",
    "connectivity",
    "problem_features",
    "size_entropy",
]

FEATURE_NAMES: tuple[str, ...] = (
    "connectivity",
    "dimensionality",
    "eccentricity",
    "entropy",
    "n_clusters",
    "silhouette",
    "silhouette_std",
)


# --------------------------------------------------------------------------- inputs


def check_labelled_data(X: Any, y: Any, name: str = "y") -> tuple[np.ndarray, np.ndarray, int]:
    """X as a finite 2-D float array, the labels ``y`` as codes 0..K-1, and K.

    Parameters
    ----------
    X : array of shape (N, D)
        The data (`hawks_deap._util.validation.check_X`: finite, not too large).
    y : array of shape (N,)
        The labels.
    name : str
        The labels' parameter name in error messages.

    Returns
    -------
    tuple
        X (float array), the codes 0..K-1 of the labels, and K.
    """
    X = check_X(X)
    codes, k = encode_labels(y, n_samples=X.shape[0], name=name)
    return X, codes, k


# --------------------------------------------------------------------------- features


def connectivity(X: Any, labels: Any, n_neighbors: int = 10, *,
                 normalize: bool = True) -> float:
    """Connectivity of a partition (Handl and Knowles; HAWKS paper IV-A2).

    Parameters
    ----------
    X : array of shape (N, D)
        The data.
    labels : array of shape (N,)
        Cluster labels.
    n_neighbors : int
        L, the number of nearest neighbours (10 in the paper); at most N - 1.
    normalize : bool
        Divide by N (the problem feature); False gives the original sum.

    Returns
    -------
    float
        ``sum_i sum_{j=1..L} [y_i != y_{nn_i(j)}] / j``, divided by N if ``normalize``.
        Lower is better (0: neighbours always share the cluster).
    """
    X, codes, _ = check_labelled_data(X, labels, "labels")
    n = X.shape[0]
    n_neighbors = check_int("n_neighbors", n_neighbors, minimum=1)
    normalize = check_bool("normalize", normalize)
    if n_neighbors > n - 1:
        raise ValueError(f"n_neighbors must be <= n_samples - 1 = {n - 1}, got {n_neighbors}")
    value = normalised_connectivity(X, codes, n_neighbors=n_neighbors)
    return value if normalize else value * n


def _cluster_eccentricity(points: np.ndarray, variance_kept: float) -> float:
    if points.shape[0] < 2:
        return 1.0
    centred = points - points.mean(axis=0)
    singular = np.linalg.svd(centred, compute_uv=False)
    eigenvalues = singular**2 / (points.shape[0] - 1)  # descending
    total = float(eigenvalues.sum())
    if not total > 0.0:
        return 1.0
    cumulative = np.cumsum(eigenvalues)
    n_kept = int(np.searchsorted(cumulative, variance_kept * total, side="left")) + 1
    n_kept = min(n_kept, eigenvalues.shape[0])
    return float(eigenvalues[0] / eigenvalues[n_kept - 1])


def average_eccentricity(X: Any, labels: Any, *, variance_kept: float = 0.95) -> float:
    """Average cluster eccentricity (HAWKS paper IV-A1, supplement S-I.C).

    Parameters
    ----------
    X : array of shape (N, D)
        The data.
    labels : array of shape (N,)
        Cluster labels.
    variance_kept : float
        Share of the total of the eigenvalues that the kept (largest) eigenvalues reach,
        in (0, 1]; 0.95 in the paper.

    Returns
    -------
    float
        Mean over clusters of ``lambda_1 / lambda_m``, where ``lambda_1 >= lambda_2 >=
        ...`` are the eigenvalues of the cluster's sample covariance (from an SVD of its
        centred points) and m is the smallest number with
        ``lambda_1 + ... + lambda_m >= variance_kept * sum(lambda)``. Clusters with
        fewer than 2 points, or with all points equal, count as 1.
    """
    X, codes, k = check_labelled_data(X, labels, "labels")
    variance_kept = check_float("variance_kept", variance_kept, low=0.0, high=1.0,
                                low_open=True)
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=k))])
    ratios = [_cluster_eccentricity(X[order[bounds[c]:bounds[c + 1]]], variance_kept)
              for c in range(k)]
    return float(np.mean(ratios))


def size_entropy(labels: Any) -> float:
    """Entropy of the cluster sizes in base K (HAWKS paper Eq. 8).

    Parameters
    ----------
    labels : array of shape (N,)
        Cluster labels; K is the number of distinct values.

    Returns
    -------
    float
        ``-sum_k p_k log(p_k) / log(K)`` with ``p_k = n_k / N``: 1 for equal sizes,
        towards 0 as one cluster takes almost all points; 1 when K = 1 (a single
        cluster's sizes are trivially equal).
    """
    codes, k = encode_labels(labels)
    if k == 0:
        raise ValueError("labels must not be empty, got 0 labels")
    counts = np.bincount(codes, minlength=k)
    if k == 1:
        return 1.0
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum() / math.log(k))


def problem_features(X: Any, y: Any, *, metric: str = "sqeuclidean", n_neighbors: int = 10,
                     variance_kept: float = 0.95) -> dict[str, float]:
    """The 7 problem features of a labelled dataset (HAWKS paper, section IV-A).

    Parameters
    ----------
    X : array of shape (N, D)
        The data.
    y : array of shape (N,)
        The true cluster labels.
    metric : {"sqeuclidean", "euclidean"}
        Distance of the silhouette features; ``"sqeuclidean"`` is HAWKS' own choice and
        the index Index mode targets.
    n_neighbors : int
        L of the connectivity (10 in the paper).
    variance_kept : float
        Share of the eigenvalue total kept by the eccentricity feature (0.95).

    Returns
    -------
    dict
        Keys `FEATURE_NAMES`: ``connectivity`` (divided by N), ``dimensionality`` (D,
        an int), ``eccentricity``, ``entropy``, ``n_clusters`` (K, an int),
        ``silhouette`` and ``silhouette_std`` (NaN when K = 1 or K = N); see the module
        documentation for the formulas.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 0.0], [5.0, 1.0]])
    >>> f = problem_features(X, [0, 0, 1, 1], n_neighbors=1)
    >>> f["connectivity"], f["entropy"], f["n_clusters"]
    (0.0, 1.0, 2)
    """
    from hawks_deap.evaluation import SILHOUETTE_METRICS, silhouette_samples

    check_choice("metric", metric, SILHOUETTE_METRICS)
    X, codes, k = check_labelled_data(X, y)
    n = X.shape[0]
    if 2 <= k <= n - 1:
        widths = silhouette_samples(X, codes, metric=metric)
        silhouette, silhouette_std = float(widths.mean()), float(widths.std())
    else:
        silhouette = silhouette_std = math.nan
    return {
        "connectivity": connectivity(X, codes, n_neighbors),
        "dimensionality": int(X.shape[1]),
        "eccentricity": average_eccentricity(X, codes, variance_kept=variance_kept),
        "entropy": size_entropy(codes),
        "n_clusters": k,
        "silhouette": silhouette,
        "silhouette_std": silhouette_std,
    }
