"""Internal validity indices and the Hopkins clustering-tendency statistic.

Each index takes ``(X, labels)`` (options keyword-only) and returns a float; labels may
be any hashable values. Distances are Euclidean unless an index says otherwise.
Notation of survey 001 ("internal indices"): for clusters ``C_1..C_k`` with centroids
``mu_i``,

    avg(C)          = 2 / (|C| (|C| - 1)) sum_{i<j} dist(x_i, x_j)   (mean pair distance)
    diam(C)         = max_{i<j} dist(x_i, x_j)
    d_min(C_i, C_j) = min_{x in C_i, y in C_j} dist(x, y)            (single link)
    d_cen(C_i, C_j) = dist(mu_i, mu_j).

An index whose formula is 0/0 (for instance one that needs two clusters, given one)
returns ``nan``; each docstring lists when.

The three indices scikit-learn also computes (silhouette, Calinski-Harabasz,
Davies-Bouldin) follow one policy where scikit-learn raises ``ValueError`` ("Number of
labels is k. Valid values are 2 to n_samples - 1"): a number of clusters k outside
[2, n - 1] (one cluster, every point alone, a single point) gives ``nan``, not an
error. Their callers need a value there: ``IndexProblem`` evaluates the registry's
internal indices on every individual (a layout with ``n_samples == n_clusters`` is all
singletons) and ranks a ``nan`` last, and feature tables over many datasets record
``nan`` for the undefined silhouette (``hawks_deap.analysis.features``) rather than stopping.
Empty data raises, as in scikit-learn. Where the data are degenerate (coincident
centroids, clusters of identical points) the values differ from scikit-learn's as each
docstring says.

Pairwise sums of distances reuse the exact kernels of :mod:`hawks_deap.evaluation`
(closed form for the squared Euclidean distance, row blocks for the Euclidean one), so
no N x N matrix is ever held.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist
from scipy.special import expit, logsumexp

from hawks_deap._util.validation import as_generator, check_choice, check_int
from hawks_deap.evaluation.reference import (
    silhouette_samples,
    silhouette_sums_euclidean,
    silhouette_sums_sqeuclidean,
)
from hawks_deap.metrics._common import SeedLike, check_data, check_X, ratio

__all__ = [
    "DISTANCE_METRICS",
    "beta_cv",
    "calinski_harabasz",
    "connectivity",
    "davies_bouldin",
    "dunn",
    "hopkins",
    "silhouette",
]

DISTANCE_METRICS = ("euclidean", "sqeuclidean")
DB_SCATTERS = ("centroid", "pairwise")

#: Rows of a distance block computed at once (memory ``_BLOCK_ROWS x cluster size``).
_BLOCK_ROWS = 1024


def _centroids(X: np.ndarray, codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Cluster sizes (float) and centroids ``mu_i`` of shape (k, d).

    The centroid of a cluster of identical points is that point exactly: a rounded sum
    over the count ((0.1 + 0.1 + 0.1) / 3 = 0.10000000000000002) would leave a scatter
    of about 1e-17 where the definitions' limits (Calinski-Harabasz inf, Davies-Bouldin
    0) need exactly 0.
    """
    n = codes.shape[0]
    counts = np.bincount(codes, minlength=k).astype(float)
    onehot = sparse.csr_matrix((np.ones(n), (codes, np.arange(n))), shape=(k, n))
    centroids = np.asarray(onehot @ X) / counts[:, np.newaxis]
    first = np.empty(k, dtype=np.intp)
    first[codes[::-1]] = np.arange(n - 1, -1, -1)  # each cluster's first point
    differs = np.any(X != X[first[codes]], axis=1)
    constant = np.bincount(codes, weights=differs, minlength=k) == 0
    centroids[constant] = X[first[constant]]
    return counts, centroids


def _pair_distance_sums(X: np.ndarray, codes: np.ndarray, k: int,
                        metric: str) -> tuple[np.ndarray, float]:
    """Per-cluster sums of within-cluster pair distances and the total over all pairs.

    Each unordered pair is counted once. Uses the evaluator's exact per-point sums of
    distances to every cluster.
    """
    if metric == "sqeuclidean":
        sums = silhouette_sums_sqeuclidean(X, codes, k)
    else:
        sums = silhouette_sums_euclidean(X, codes, k)
    own = sums[np.arange(codes.shape[0]), codes]
    within = np.bincount(codes, weights=own, minlength=k) / 2.0
    return within, float(sums.sum()) / 2.0


def _data_with_valid_k(X: ArrayLike, labels: ArrayLike
                       ) -> tuple[np.ndarray, np.ndarray, int] | None:
    """`check_data`, or ``None`` when the number of clusters k is outside [2, n - 1].

    The policy of the indices scikit-learn also computes (module docstring): where it
    raises on the number of labels, they return ``nan``.
    """
    X, codes, k = check_data(X, labels)
    return (X, codes, k) if 2 <= k <= X.shape[0] - 1 else None


def silhouette(X: ArrayLike, labels: ArrayLike, *, metric: str = "euclidean") -> float:
    """Mean silhouette width (Rousseeuw 1987; HAWKS paper Eq. 1-2).

    ``s(i) = (b(i) - a(i)) / max(a(i), b(i))`` with ``a(i)`` the mean distance from
    point i to the rest of its cluster and ``b(i)`` the smallest mean distance to
    another cluster; ``s(i) = 0`` for a point alone in its cluster. The mean over all
    points, computed by :func:`hawks_deap.evaluation.silhouette_samples` (the fast
    exact evaluator) and equal to ``sklearn.metrics.silhouette_score``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    labels : array-like of shape (n_samples,)
        Cluster labels, any hashable values.
    metric : {"euclidean", "sqeuclidean"}
        ``"euclidean"`` (default, like scikit-learn) is exact in O(N^2 D) time;
        ``"sqeuclidean"`` (HAWKS' choice) uses a closed form in O(N K D), through the
        centroids: its rounding grows with the data's distance from the origin relative
        to the clusters' spread (measured against scikit-learn on a precomputed
        distance matrix: about 1e-10 with 3 clusters of unit spread offset by 1e7,
        2.5e-9 offset by 1e9; below 1e-12 for data near the origin, as evolved
        datasets are). Centre far-off data first if that matters.

    Returns
    -------
    float
        In [-1, 1], higher is better. ``nan`` when the silhouette is undefined, a
        number of clusters k outside [2, n - 1]: a single cluster, every point its own
        cluster, a single point. **This differs from scikit-learn**, which raises
        ``ValueError`` there: callers that score many datasets or individuals need a
        value (see the module docstring).

    Raises
    ------
    ValueError
        If X is empty (as scikit-learn), X and labels have different lengths, or
        ``metric`` is unknown.
    """
    check_choice("metric", metric, DISTANCE_METRICS)
    data = _data_with_valid_k(X, labels)
    if data is None:
        return math.nan
    X, codes, k = data
    return float(np.mean(silhouette_samples(X, codes, metric=metric)))


def davies_bouldin(X: ArrayLike, labels: ArrayLike, *, scatter: str = "centroid") -> float:
    """Davies-Bouldin index ``DB = (1/k) sum_i max_{j != i} (s_i + s_j) / d_cen(C_i, C_j)``.

    Lower is better, in [0, inf). Definitions of the scatter ``s_i`` differ:

    - ``"centroid"`` (default): ``s_i`` is the mean distance of the points of ``C_i`` to
      its centroid, as in Davies and Bouldin (1979) with q = 1 and p = 2; equal to
      ``sklearn.metrics.davies_bouldin_score`` (to 1e-12 when no cluster is a
      singleton: scikit-learn's distance from a singleton to its own centroid is the
      square root of a rounding error, up to ~1e-7, where ours is exactly 0).
    - ``"pairwise"``: ``s_i = avg(C_i)``, the mean pairwise distance within the cluster,
      as written in survey 001 ("DB index"); a singleton has ``avg = 0`` (no spread).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    labels : array-like of shape (n_samples,)
        Cluster labels, any hashable values.
    scatter : {"centroid", "pairwise"}
        The within-cluster scatter ``s_i``.

    Returns
    -------
    float
        Limits, and where they differ from scikit-learn:

        - k outside [2, n - 1] (a single cluster: no ``j != i``; every point alone in
          its cluster: no scatter to compare; a single point): ``nan``, like the
          silhouette and Calinski-Harabasz indices. **scikit-learn raises**
          ``ValueError`` there; callers that score many datasets need a value (see the
          module docstring).
        - Two clusters with positive scatter sharing a centroid (zero centroid
          distance): ``(s_i + s_j) / 0 = inf``, the worst value: the clusters are not
          separated at all. **scikit-learn** treats coincident centroids as infinitely
          far apart, so such a pair counts 0, and returns 0.0 (the best value) when all
          centroids coincide, e.g. for two concentric rings; an index that
          ``IndexProblem`` targets must not call those perfectly separated.
        - Two clusters with zero scatter sharing a centroid (clusters of identical
          points at the same place): 0/0, ``nan``. Centroids are sums over counts,
          except that of a cluster of identical points, which is that point exactly:
          two clusters of different points whose centroids agree only to rounding
          (the same points in another order) give a large finite ratio (about 1e16),
          not ``inf``.
        - Every scatter 0 and the centroids apart: 0.0, as in scikit-learn;
          scikit-learn also returns 0.0 when the scatters are merely close to 0
          (``numpy.isclose``, below about 1e-8), where this is their exact small ratio.

    Raises
    ------
    ValueError
        If X is empty (as scikit-learn), X and labels have different lengths, or
        ``scatter`` is unknown.
    """
    check_choice("scatter", scatter, DB_SCATTERS)
    data = _data_with_valid_k(X, labels)
    if data is None:
        return math.nan
    X, codes, k = data
    counts, centroids = _centroids(X, codes, k)
    if scatter == "centroid":
        to_centroid = np.linalg.norm(X - centroids[codes], axis=1)
        spread = np.bincount(codes, weights=to_centroid, minlength=k) / counts
    else:
        within, _ = _pair_distance_sums(X, codes, k, "euclidean")
        n_pairs = counts * (counts - 1) / 2.0
        spread = np.divide(within, n_pairs, out=np.zeros(k), where=n_pairs > 0)
    separation = cdist(centroids, centroids)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (spread[:, np.newaxis] + spread[np.newaxis, :]) / separation
    np.fill_diagonal(r, -np.inf)
    return float(np.mean(np.max(r, axis=1)))


def _diameter(points: np.ndarray) -> float:
    """Largest pairwise Euclidean distance, exactly, by row blocks (O(m^2 d))."""
    best = 0.0
    for start in range(0, points.shape[0], _BLOCK_ROWS):
        block = cdist(points[start:start + _BLOCK_ROWS], points[start:])
        best = max(best, float(block.max()))
    return best


def dunn(X: ArrayLike, labels: ArrayLike) -> float:
    """Dunn index ``DI = min_{i != j} d_min(C_i, C_j) / max_l diam(C_l)``.

    Survey 001 ("Dunn index"); Dunn (1974). The smallest single-link (nearest-point)
    distance between two clusters over the largest cluster diameter, Euclidean.
    Higher is better, in [0, inf]. Exact: separations come from one KD-tree per cluster
    (O(N K log N)), diameters from row blocks within each cluster (O(sum n_i^2 D)).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data (finite; a scipy sparse matrix is made dense).
    labels : array-like of shape (n_samples,)
        Cluster labels, any hashable values.

    Returns
    -------
    float
        ``nan`` with fewer than 2 clusters (no pair of clusters) or when the numerator
        and the denominator are both 0; ``inf`` when every cluster has diameter 0 (for
        instance all singletons) and the clusters are apart.

    Raises
    ------
    ValueError
        If X and labels are empty or of different lengths.
    """
    X, codes, k = check_data(X, labels)
    if k < 2:
        return math.nan
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=k))])
    members = [X[order[bounds[c]:bounds[c + 1]]] for c in range(k)]
    separation = math.inf
    for c in range(k - 1):
        others = X[order[bounds[c + 1]:]]
        dist, _ = cKDTree(members[c]).query(others, k=1)
        separation = min(separation, float(dist.min()))
    diameter = max(_diameter(points) for points in members)
    return ratio(separation, diameter)


def beta_cv(X: ArrayLike, labels: ArrayLike, *, metric: str = "euclidean") -> float:
    """BetaCV, the mean intra-cluster pair distance over the mean inter-cluster one.

    Survey 001 ("BetaCV"); Zaki and Meira (2014), section 17.2:

        BetaCV = (W_in / N_in) / (W_out / N_out),

    with ``W_in`` the sum of distances over all pairs of points in the same cluster,
    ``N_in = sum_i C(n_i, 2)`` their number, ``W_out`` and ``N_out = sum_{i<j} n_i n_j``
    the same over pairs in different clusters (pooled over all pairs, not a mean of
    per-cluster means). Lower is better, in [0, inf).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    labels : array-like of shape (n_samples,)
        Cluster labels, any hashable values.
    metric : {"euclidean", "sqeuclidean"}
        Pair distance; ``"sqeuclidean"`` is computed in closed form in O(N K D),
        ``"euclidean"`` exactly by row blocks in O(N^2 D).

    Returns
    -------
    float
        ``nan`` (0/0) with a single cluster (no inter-cluster pair), with all
        singletons (no intra-cluster pair), or when all inter-cluster distances are 0
        as well as the intra-cluster ones.

    Raises
    ------
    ValueError
        If X and labels are empty or of different lengths, or ``metric`` is unknown.
    """
    check_choice("metric", metric, DISTANCE_METRICS)
    X, codes, k = check_data(X, labels)
    counts = np.bincount(codes, minlength=k).astype(np.int64)
    n = int(counts.sum())
    n_in = int(np.sum(counts * (counts - 1)) // 2)
    n_out = n * (n - 1) // 2 - n_in
    if n_in == 0 or n_out == 0:
        return math.nan
    within, total = _pair_distance_sums(X, codes, k, metric)
    w_in = float(within.sum())
    return ratio(w_in / n_in, (total - w_in) / n_out)


def calinski_harabasz(X: ArrayLike, labels: ArrayLike) -> float:
    """Calinski-Harabasz variance ratio ``CH = (tr(S_B) / (k - 1)) / (tr(S_W) / (n - k))``.

    Survey 001 ("Calinski-Harabasz", a relative index), Calinski and Harabasz (1974):
    ``tr(S_W) = sum_i sum_{x in C_i} ||x - mu_i||^2`` and
    ``tr(S_B) = sum_i n_i ||mu_i - mu||^2``. Higher is better, in [0, inf); equal to
    ``sklearn.metrics.calinski_harabasz_score`` where defined.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data (finite; a scipy sparse matrix is made dense).
    labels : array-like of shape (n_samples,)
        Cluster labels, any hashable values.

    Returns
    -------
    float
        Limits, and where they differ from scikit-learn:

        - k outside [2, n - 1]: ``nan``, the formula's 0/0 (a single cluster:
          ``k - 1 = 0`` and ``tr(S_B) = 0``; all singletons: ``n - k = 0`` and
          ``tr(S_W) = 0``). **scikit-learn raises** ``ValueError`` there; callers that
          score many datasets need a value (see the module docstring).
        - Every cluster a set of identical points (``tr(S_W) = 0``) and the clusters
          apart: ``inf``, the best value (perfectly compact, separated clusters);
          every point identical: ``nan`` (0/0). **scikit-learn** returns 1.0 whenever
          ``tr(S_W) = 0``, a value that would rank such data below ordinary blobs.

    Raises
    ------
    ValueError
        If X is empty (as scikit-learn) or X and labels have different lengths.
    """
    data = _data_with_valid_k(X, labels)
    if data is None:
        return math.nan
    X, codes, k = data
    n = X.shape[0]
    counts, centroids = _centroids(X, codes, k)
    within = float(np.sum((X - centroids[codes]) ** 2))
    between = float(np.sum(counts * np.sum((centroids - X.mean(axis=0)) ** 2, axis=1)))
    return ratio(between * (n - k), within * (k - 1))


def connectivity(X: ArrayLike, labels: ArrayLike, *, n_neighbors: int = 10) -> float:
    """Connectivity of Handl and Knowles (2007), divided by N.

    ``Conn = (1/N) sum_i sum_{j=1}^{L} x_{i, nn_i(j)}`` with ``nn_i(j)`` the j-th
    nearest neighbour of point i (Euclidean, the point itself excluded) and
    ``x_{i, nn_i(j)} = 1/j`` if that neighbour is in another cluster, else 0. Handl and
    Knowles ("An evolutionary approach to multiobjective clustering", IEEE TEC 2007)
    minimise it with L = 10. Lower is better, in [0, H_L], ``H_L = sum_{j<=L} 1/j``
    (2.929 for L = 10). Exactly tied neighbour distances are ordered by the KD-tree.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    labels : array-like of shape (n_samples,)
        Cluster labels, any hashable values.
    n_neighbors : int
        L, the neighbours examined per point; 1 <= L <= n_samples - 1.

    Raises
    ------
    ValueError
        If X and labels are empty or of different lengths, or ``n_neighbors`` is out of
        range (``n_neighbors >= n_samples`` included).
    """
    X, codes, _ = check_data(X, labels)
    n = X.shape[0]
    n_neighbors = check_int("n_neighbors", n_neighbors, minimum=1)
    if n_neighbors >= n:
        raise ValueError(
            f"n_neighbors must be < n_samples = {n} (a point has n_samples - 1 neighbours), "
            f"got {n_neighbors}"
        )
    _, idx = cKDTree(X).query(X, k=n_neighbors + 1)
    self_at = idx == np.arange(n)[:, np.newaxis]
    # Drop the point itself; if a duplicate displaced it from the list, drop the last.
    self_at[~self_at.any(axis=1), -1] = True
    neighbours = idx[~self_at].reshape(n, n_neighbors)
    other = codes[neighbours] != codes[:, np.newaxis]
    weights = 1.0 / np.arange(1, n_neighbors + 1)
    return float(np.sum(other @ weights)) / n


def _hopkins_from_draws(X: np.ndarray, tree: cKDTree, sample: np.ndarray,
                        uniform: np.ndarray) -> float:
    """One Hopkins statistic ``HS_i`` from its draws (survey 001, clustering tendency).

    ``sample`` indexes the points ``D_i`` drawn from X; ``uniform`` holds the points
    ``R_i``. Sums of distances raised to the dimension d are combined in log space, so
    large d neither overflows nor underflows.
    """
    d = X.shape[1]
    delta_r, _ = tree.query(uniform, k=1)
    delta_d = tree.query(X[sample], k=2)[0][:, 1]  # nearest *other* point
    with np.errstate(divide="ignore"):
        log_r = logsumexp(d * np.log(delta_r))
        log_d = logsumexp(d * np.log(delta_d))
    if np.isneginf(log_r) and np.isneginf(log_d):
        return math.nan
    return float(expit(log_r - log_d))


def hopkins(X: ArrayLike, *, n_samples: int | None = None, n_repeats: int = 1,
            seed: SeedLike = None) -> float:
    """Hopkins statistic of clustering tendency, survey 001 convention.

    Survey 001 ("clustering tendency"), Hopkins and Skellam (1954): draw ``m`` points
    ``D_i`` from X without replacement and ``m`` points ``R_i`` uniformly in the
    bounding box of X (uniform in each dimension over its range); with
    ``delta_min(y)`` the distance from y to its nearest point of X (other than itself),

        HS_i = sum_{y in R_i} delta_min(y)^d
               / (sum_{y in R_i} delta_min(y)^d + sum_{x in D_i} delta_min(x)^d),

    d the dimension. **Convention: values near 1 mean clustered data**, about 0.5
    spatially random (uniform) data, near 0 regularly spaced data. The result is the
    mean of ``HS_i`` over ``n_repeats`` independent draws.

    Definitions differ between packages: some return ``1 - HS`` (near 0 = clustered),
    some raise distances to the power 1 instead of d (then HS is not Beta-distributed
    under the null hypothesis and its value drifts with d), and some sample the
    uniform points in a sphere or the convex hull instead of the bounding box.

    Parameters
    ----------
    X : array-like of shape (n, n_features)
        The data, n >= 2.
    n_samples : int, optional
        ``m``, the points drawn from X and generated uniformly per repeat,
        1 <= m <= n; default ``max(1, n // 10)``.
    n_repeats : int
        ``t``, the number of independent draws averaged.
    seed : int, numpy.random.SeedSequence, numpy.random.Generator or None
        Seed of the draws.

    Returns
    -------
    float
        The mean Hopkins statistic, in [0, 1]; ``nan`` only if every nearest-neighbour
        distance drawn is 0 (0/0).

    Raises
    ------
    ValueError
        If X is not a non-empty finite 2-D array with at least 2 rows, or ``n_samples``
        or ``n_repeats`` is out of range.
    """
    X = check_X(X)
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"X must have at least 2 rows for the Hopkins statistic, got {n}")
    m = max(1, n // 10) if n_samples is None else check_int("n_samples", n_samples,
                                                               minimum=1, maximum=n)
    n_repeats = check_int("n_repeats", n_repeats, minimum=1)
    rng = as_generator(seed)
    low, high = X.min(axis=0), X.max(axis=0)
    tree = cKDTree(X)
    values = [
        _hopkins_from_draws(X, tree, rng.choice(n, size=m, replace=False),
                            rng.uniform(low, high, size=(m, X.shape[1])))
        for _ in range(n_repeats)
    ]
    return float(np.mean(values))
