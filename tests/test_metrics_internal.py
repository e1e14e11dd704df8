"""Internal indices, Hopkins and stability: scikit-learn and brute-force oracles."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.cluster.vq import kmeans2
from scipy.spatial.distance import cdist
from sklearn import metrics as skm
from sklearn.cluster import DBSCAN, KMeans
from sklearn.mixture import GaussianMixture

import hawks_deap.metrics as hm


def datasets(seed: int, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Random data (continuous, so no ties) with random labellings of 2..n-1 clusters."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(rng.integers(3, 50))
        d = int(rng.integers(1, 5))
        k = int(rng.integers(2, n if i % 3 == 0 else max(3, n // 3)))
        labels = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
        rng.shuffle(labels)
        centres = rng.normal(scale=3, size=(k, d))
        X = centres[labels] + rng.normal(size=(n, d))
        out.append((X, labels))
    return out


CASES = datasets(0, 150)


def rel_close(got: float, want: float, tol: float = 1e-12) -> bool:
    if math.isnan(want) or math.isinf(want):
        return (math.isnan(got) and math.isnan(want)) or got == want
    return abs(got - want) <= tol * max(1.0, abs(want))


# ----------------------------------------------------------------------- scikit-learn


@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean"])
def test_silhouette_agrees_with_sklearn(metric):
    for X, labels in CASES:
        got = hm.silhouette(X, labels, metric=metric)
        assert rel_close(got, skm.silhouette_score(X, labels, metric=metric))


def test_silhouette_default_metric_is_euclidean():
    X, labels = CASES[0]
    assert hm.silhouette(X, labels) == hm.silhouette(X, labels, metric="euclidean")


def test_calinski_harabasz_agrees_with_sklearn():
    for X, labels in CASES:
        assert rel_close(hm.calinski_harabasz(X, labels), skm.calinski_harabasz_score(X, labels))


def test_davies_bouldin_agrees_with_sklearn():
    compared = 0
    for X, labels in CASES:
        got, want = hm.davies_bouldin(X, labels), skm.davies_bouldin_score(X, labels)
        if np.bincount(labels).min() > 1:
            assert rel_close(got, want), labels
            compared += 1
        else:
            # scikit-learn's distance to the centroid of a singleton is sqrt(rounding
            # error of ||x||^2 - 2 x.c + ||c||^2), up to ~1e-7 instead of 0; ours is exact
            # (checked against the brute-force definition below).
            assert abs(got - want) < 1e-6
    assert compared > 75


# ------------------------------------------------------------------------ brute force


def bf_dunn(X, labels):
    D = cdist(X, X)
    same = labels[:, None] == labels[None, :]
    return D[~same].min() / D[same].max()


def bf_beta_cv(X, labels, metric):
    D = cdist(X, X, metric)
    i, j = np.triu_indices(len(X), k=1)
    same = labels[i] == labels[j]
    return D[i, j][same].mean() / D[i, j][~same].mean()


def bf_db(X, labels, scatter):
    ks = np.unique(labels)
    mu = np.array([X[labels == k].mean(axis=0) for k in ks])
    spread = []
    for k, centre in zip(ks, mu, strict=True):
        P = X[labels == k]
        i, j = np.triu_indices(len(P), k=1)
        if scatter == "centroid":
            spread.append(np.mean([math.dist(p, centre) for p in P]))
        else:
            spread.append(cdist(P, P)[i, j].mean() if len(P) > 1 else 0.0)
    scores = [max((spread[a] + spread[b]) / math.dist(mu[a], mu[b])
                  for b in range(len(ks)) if b != a) for a in range(len(ks))]
    return float(np.mean(scores))


def bf_connectivity(X, labels, L):
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    total = 0.0
    for i in range(len(X)):
        for rank, j in enumerate(np.argsort(D[i], kind="stable")[:L], start=1):
            total += (labels[j] != labels[i]) / rank
    return total / len(X)


def test_dunn_against_brute_force():
    for X, labels in CASES:
        assert rel_close(hm.dunn(X, labels), bf_dunn(X, labels))


@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean"])
def test_beta_cv_against_brute_force(metric):
    for X, labels in CASES:
        want = bf_beta_cv(X, labels, metric) if len(set(labels)) < len(labels) else math.nan
        assert rel_close(hm.beta_cv(X, labels, metric=metric), want, 1e-10)


@pytest.mark.parametrize("scatter", ["centroid", "pairwise"])
def test_davies_bouldin_against_brute_force(scatter):
    for X, labels in CASES:
        assert rel_close(hm.davies_bouldin(X, labels, scatter=scatter),
                         bf_db(X, labels, scatter), 1e-12)


@pytest.mark.parametrize("L", [1, 3, 10])
def test_connectivity_against_brute_force(L):
    for X, labels in CASES:
        if L < len(X):
            assert rel_close(hm.connectivity(X, labels, n_neighbors=L),
                             bf_connectivity(X, labels, L))


def test_connectivity_with_duplicates_excludes_only_the_point_itself():
    X = np.array([[0.0], [0.0], [3.0], [3.5]])
    # Points 0 and 1 coincide: each one's nearest *other* point is the other one.
    assert hm.connectivity(X, [0, 1, 1, 1], n_neighbors=1) == 0.5
    many = np.zeros((6, 1))
    assert hm.connectivity(many, [0, 0, 0, 0, 0, 0], n_neighbors=5) == 0.0


# ------------------------------------------------------------------------- edge cases


def test_undefined_values_are_nan_or_inf_never_errors():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6, 2))
    one, singles = np.zeros(6), np.arange(6)
    for f in (hm.silhouette, hm.davies_bouldin, hm.dunn, hm.beta_cv, hm.calinski_harabasz):
        assert math.isnan(f(X, one)), f.__name__
    assert math.isnan(hm.silhouette(X, singles))
    assert math.isnan(hm.davies_bouldin(X, singles))  # undefined, as the silhouette and CH
    assert hm.dunn(X, singles) == math.inf  # every diameter is 0
    assert math.isnan(hm.beta_cv(X, singles))  # no intra-cluster pair
    assert math.isnan(hm.calinski_harabasz(X, singles))  # 0 (n - k) / (0 (k - 1))
    assert hm.connectivity(X, one, n_neighbors=5) == 0.0
    assert hm.connectivity(X, singles, n_neighbors=2) == pytest.approx(1.5)
    # Clusters of identical points, at different places.
    Y = np.repeat([[0.0, 0.0], [3.0, 4.0]], 3, axis=0)
    two = np.repeat([0, 1], 3)
    assert hm.calinski_harabasz(Y, two) == math.inf
    assert hm.beta_cv(Y, two) == 0.0
    assert hm.dunn(Y, two) == math.inf
    assert hm.davies_bouldin(Y, two) == 0.0
    # Two clusters sharing a centroid.
    Z = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, -2.0], [0.0, 2.0]])
    assert hm.davies_bouldin(Z, [0, 0, 1, 1]) == math.inf


def test_non_integer_labels():
    X, labels = next((X, y) for X, y in CASES if len(X) > 20)
    names = np.array([f"cluster-{v}" for v in labels], dtype=object)
    mixed = [None if v == 0 else (v, "x") for v in labels]
    for f in (hm.silhouette, hm.davies_bouldin, hm.dunn, hm.beta_cv, hm.calinski_harabasz,
              hm.connectivity):
        value = f(X, labels)  # equal up to the summation order of the clusters
        assert rel_close(f(X, names), value) and rel_close(f(X, mixed), value), f.__name__


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.permutations(range(6)))
def test_invariant_to_label_permutation_and_bounded(seed, perm):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 30))
    X = rng.normal(size=(n, 2))
    labels = rng.integers(0, 6, n)
    relabelled = np.array([perm[v] for v in labels]) * 7 - 3
    options = {"connectivity": {"n_neighbors": min(10, n - 1)}}
    for name in ("silhouette", "davies_bouldin", "dunn", "beta_cv", "calinski_harabasz",
                 "connectivity"):
        f = getattr(hm, name)
        a, b = f(X, labels, **options.get(name, {})), f(X, relabelled, **options.get(name, {}))
        assert rel_close(a, b, 1e-10), name
        assert math.isnan(a) or hm.get(name).in_bounds(a), (name, a)


# ------------------------------------------------------------------------------ Hopkins


def test_hopkins_matches_brute_force_on_its_draws():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 3))
    m, seed = 9, 42
    draws = np.random.default_rng(seed)
    sample = draws.choice(60, size=m, replace=False)
    uniform = draws.uniform(X.min(axis=0), X.max(axis=0), size=(m, 3))
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    delta_x = D[sample].min(axis=1)
    delta_y = cdist(uniform, X).min(axis=1)
    want = np.sum(delta_y**3) / (np.sum(delta_y**3) + np.sum(delta_x**3))
    assert hm.hopkins(X, n_samples=m, seed=seed) == pytest.approx(want, rel=1e-12)


def test_hopkins_convention_near_one_means_clustered():
    rng = np.random.default_rng(12345)
    uniform = rng.random((1000, 2))
    blobs = np.concatenate([rng.normal(c, 0.05, size=(200, 2)) for c in rng.random((5, 2))])
    grid = np.stack(np.meshgrid(np.arange(30.0), np.arange(30.0)), -1).reshape(-1, 2)
    assert hm.hopkins(blobs, seed=0, n_repeats=3) > 0.9
    assert 0.4 < hm.hopkins(uniform, seed=0, n_repeats=5) < 0.6
    assert hm.hopkins(grid, seed=0, n_repeats=3) < 0.3


def test_hopkins_determinism_and_high_dimension():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 400))  # distances^400 would overflow without log space
    value = hm.hopkins(X, seed=5)
    assert 0.0 <= value <= 1.0 and value == hm.hopkins(X, seed=5)
    assert hm.hopkins(X[:, :3], seed=1) != hm.hopkins(X[:, :3], seed=2)
    assert math.isnan(hm.hopkins(np.zeros((5, 2)), seed=0))  # every distance is 0


def test_hopkins_bad_input():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="n_samples must be <= 20"):
        hm.hopkins(X, n_samples=21)
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        hm.hopkins(X, n_samples=0)
    with pytest.raises(ValueError, match="at least 2 rows"):
        hm.hopkins(X[:1])
    with pytest.raises(ValueError, match="X must be a non-empty 2-D array"):
        hm.hopkins(np.empty((0, 2)))
    with pytest.raises(TypeError, match="seed"):
        hm.hopkins(X, seed="zero")


# ---------------------------------------------------------------------------- bad input

INTERNAL = [hm.silhouette, hm.davies_bouldin, hm.dunn, hm.beta_cv, hm.calinski_harabasz,
            hm.connectivity]


@pytest.mark.parametrize("func", INTERNAL)
def test_bad_input_names_the_parameter(func):
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match="X and labels must have the same length"):
        func(X, [0, 1, 0])
    with pytest.raises(ValueError, match="X must be a non-empty 2-D array"):
        func(np.empty((0, 2)), [])
    with pytest.raises(ValueError, match="labels must not be empty"):
        func(X, [])


def test_options_are_validated():
    X = np.random.default_rng(0).normal(size=(5, 2))
    labels = [0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match="n_neighbors must be < n_samples = 5"):
        hm.connectivity(X, labels, n_neighbors=5)
    with pytest.raises(ValueError, match="n_neighbors must be >= 1"):
        hm.connectivity(X, labels, n_neighbors=0)
    with pytest.raises(TypeError, match="n_neighbors must be an integer"):
        hm.connectivity(X, labels, n_neighbors=2.5)
    with pytest.raises(ValueError, match="unknown metric 'cosine'.*'euclidean'"):
        hm.silhouette(X, labels, metric="cosine")
    with pytest.raises(ValueError, match="unknown scatter 'centroids'.*did you mean"):
        hm.davies_bouldin(X, labels, scatter="centroids")
    with pytest.raises(ValueError, match="only finite"):
        hm.dunn(np.array([[0.0], [np.nan]]), [0, 1])
    with pytest.raises(TypeError):
        hm.connectivity(X, labels, 3)  # options are keyword-only


# ---------------------------------------------------------------------------- stability


def kmeans(X, n_clusters, seed):
    _, labels = kmeans2(X, n_clusters, seed=seed, minit="++")
    return labels


def three_blobs(n=150, seed=0):
    rng = np.random.default_rng(seed)
    corners = np.array([[0.0, 0.0], [10.0, 0.0], [5.0, 8.66]])  # equilateral: k=2 ambiguous
    return corners[np.arange(n) % 3] + rng.normal(size=(n, 2))


def test_stability_finds_three_blobs():
    result = hm.stability(three_blobs(), kmeans, [2, 3, 4, 5], n_bootstrap=8, seed=0)
    assert result.best_k == 3
    assert result.score == "adjusted_rand_index" and result.higher_is_better
    assert result.mean[3] > 0.95
    assert set(result.values) == {2, 3, 4, 5}
    assert all(v.shape == (28,) for v in result.values.values())
    assert result.std[3] < result.std[2]


def test_stability_with_a_distance_prefers_low_values():
    result = hm.stability(three_blobs(), kmeans, [2, 3, 4], n_bootstrap=6, seed=1,
                          score="vi")
    assert not result.higher_is_better and result.best_k == 3


def test_stability_is_reproducible_and_per_k_independent():
    X = three_blobs(90, seed=2)
    a = hm.stability(X, kmeans, [3, 2, 3], n_bootstrap=4, seed=11)
    b = hm.stability(X, kmeans, [3], n_bootstrap=4, seed=11)
    assert a.k_values == (2, 3)
    np.testing.assert_array_equal(a.values[3], b.values[3])
    c = hm.stability(X, kmeans, [3], n_bootstrap=4, seed=12)
    assert c.values[3].shape == (6,)


def test_stability_accepts_sklearn_estimators():
    X = three_blobs(90, seed=3)
    km = hm.stability(X, KMeans(n_init=1), [3], n_bootstrap=3, seed=0)
    assert km.mean[3] > 0.9
    assert np.array_equal(km.values[3],
                          hm.stability(X, KMeans(n_init=1), [3], n_bootstrap=3, seed=0).values[3])
    gm = hm.stability(X, GaussianMixture(), [3], n_bootstrap=3, seed=0)
    assert gm.mean[3] > 0.9


def test_stability_bad_input():
    X = three_blobs(30)
    with pytest.raises(TypeError, match="pass an instance"):
        hm.stability(X, KMeans, [2])
    with pytest.raises(TypeError, match="algorithm must be a registered name"):
        hm.stability(X, 3, [2])
    with pytest.raises(ValueError, match="k_values must be >= 2"):
        hm.stability(X, kmeans, [1, 2])
    with pytest.raises(ValueError, match="k_values must not be empty"):
        hm.stability(X, kmeans, [])
    with pytest.raises(ValueError, match="n_bootstrap must be >= 2"):
        hm.stability(X, kmeans, [2], n_bootstrap=1)
    with pytest.raises(ValueError, match="score must be an external index"):
        hm.stability(X, kmeans, [2], score="silhouette")
    with pytest.raises(ValueError, match="unknown score 'rand_indx' \\(did you mean 'rand_index'"):
        hm.stability(X, kmeans, [2], score="rand_indx")
    try:  # the valid names offered are the external indices only
        hm.stability(X, kmeans, [2], score="x")
    except ValueError as error:
        assert "'adjusted_rand_index'" in str(error) and "'silhouette'" not in str(error)
    with pytest.raises(RuntimeError, match="labels of shape"):
        hm.stability(X, lambda X, k, s: np.zeros(3), [2], n_bootstrap=2)
    with pytest.raises(TypeError, match="_NoSize has no n_clusters"):
        hm.stability(X, _NoSize(), [2])
    with pytest.raises(TypeError, match="DBSCAN has no n_clusters"):
        hm.stability(X, DBSCAN(), [2])
    with pytest.raises(TypeError, match="_PlainNoSize has no n_clusters"):
        hm.stability(X, _PlainNoSize(), [2])


def test_stability_sets_the_size_of_an_estimator_without_get_params():
    X = three_blobs(60, seed=4)
    _PlainKMeans.asked = []
    km = hm.stability(X, _PlainKMeans(), [2, 3], n_bootstrap=3, seed=0)
    assert sorted(set(_PlainKMeans.asked)) == [2, 3]
    # the same clusterings as scikit-learn's KMeans given the same k and seeds
    oracle = hm.stability(X, KMeans(n_init=1), [2, 3], n_bootstrap=3, seed=0)
    for k in (2, 3):
        np.testing.assert_array_equal(km.values[k], oracle.values[k])


class _PlainNoSize:
    def fit_predict(self, X):
        return np.zeros(len(X), dtype=int)


class _PlainKMeans:
    """K-Means without get_params: a call sets its n_clusters and random_state attributes."""

    asked: list[int] = []  # of the class: each call fits a deep copy

    def __init__(self):
        self.n_clusters = 0
        self.random_state = None

    def fit_predict(self, X):
        self.asked.append(self.n_clusters)
        return KMeans(n_clusters=self.n_clusters, n_init=1,
                      random_state=self.random_state).fit_predict(X)


class _NoSize:
    def get_params(self, deep=False):
        return {"eps": 0.5}

    def fit_predict(self, X):
        return np.zeros(len(X), dtype=int)


def test_internal_indices_take_sparse_x_and_agree_on_singletons():
    """Issue 21, item 6 (internal part): sparse X is accepted (made dense); with every
    point alone, Davies-Bouldin is undefined like the silhouette and Calinski-Harabasz."""
    import math

    from scipy import sparse

    X = np.random.default_rng(0).normal(size=(8, 3))
    y = [0, 0, 0, 1, 1, 2, 2, 2]
    for index in (hm.silhouette, hm.calinski_harabasz, hm.davies_bouldin, hm.dunn):
        assert index(sparse.csr_matrix(X), y) == index(X, y)
    singletons = list(range(8))
    for index in (hm.silhouette, hm.calinski_harabasz, hm.davies_bouldin):
        assert math.isnan(index(X, singletons)), index


SKLEARN_INTERNAL = [(hm.silhouette, skm.silhouette_score),
                    (hm.calinski_harabasz, skm.calinski_harabasz_score),
                    (hm.davies_bouldin, skm.davies_bouldin_score)]
_X6 = np.random.default_rng(3).normal(size=(6, 2))


@pytest.mark.parametrize(("X", "labels"), [
    (_X6, np.zeros(6, int)), (_X6, np.arange(6)), (_X6, ["b", "a", "c", "e", "d", "f"]),
    (_X6[:1], [0]), (_X6[:2], [0, 1]), (_X6[:2], [0, 0]),
], ids=["one cluster", "singletons", "singletons (strings)", "one point", "two points",
        "two points together"])
def test_nan_where_sklearn_raises_on_the_number_of_labels(X, labels):
    """Issue 21, item 6: k outside [2, n - 1] is nan here (documented policy: callers
    score many datasets), a ValueError in scikit-learn."""
    for ours, theirs in SKLEARN_INTERNAL:
        with pytest.raises(ValueError, match="Number of labels is"):
            theirs(X, labels)
        assert math.isnan(ours(X, labels)), ours.__name__


@pytest.mark.parametrize("labels", [[0, 0, 1, 1, 1, 1], [0, 0, 1, 2, 3, 4],
                                    [-5, -5, 7, 9, 11, 13], ["x", "y", "y", "z", "w", "v"]],
                         ids=["k = 2", "k = n - 1", "negative", "strings"])
def test_values_at_the_valid_limits_are_sklearns(labels):
    for ours, theirs in SKLEARN_INTERNAL:
        # a singleton's distance to its centroid is sqrt(rounding error) in scikit-learn
        tol = 1e-6 if ours is hm.davies_bouldin else 1e-12
        assert ours(_X6, labels) == pytest.approx(theirs(_X6, labels), rel=tol, abs=tol)


def test_empty_data_raises_as_in_sklearn():
    for ours, theirs in SKLEARN_INTERNAL:
        for f in (ours, theirs):
            with pytest.raises(ValueError, match="non-empty|0 sample"):
                f(np.empty((0, 2)), np.array([], dtype=int))


def test_degenerate_data_differs_from_sklearn_as_documented():
    """Coincident centroids: DB is (s_i + s_j) / 0 = inf, as the formula evaluated with
    IEEE division; scikit-learn drops such pairs (0.0 for two concentric rings, the
    best value). Identical points per cluster: CH is b / 0 = inf, scikit-learn 1.0."""
    ring = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    rings, two = np.vstack([ring, 2 * ring]), np.repeat([0, 1], 4)
    with np.errstate(divide="ignore"):
        formula = np.float64(1.0 + 2.0) / np.float64(0.0)  # s_0 = 1, s_1 = 2, d = 0
    assert hm.davies_bouldin(rings, two) == formula == math.inf
    assert skm.davies_bouldin_score(rings, two) == 0.0
    third = np.vstack([rings, ring + [10.0, 0.0]])
    three = np.repeat([0, 1, 2], 4)
    assert hm.davies_bouldin(third, three) == math.inf
    assert math.isfinite(skm.davies_bouldin_score(third, three))
    # zero scatters sharing a centroid: 0/0; scikit-learn: 0.0 (all scatters are 0)
    same, labels = np.repeat([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]], 2, axis=0), [0, 0, 1, 1, 2, 2]
    assert math.isnan(hm.davies_bouldin(same, labels))
    assert skm.davies_bouldin_score(same, labels) == 0.0
    blocks, halves = np.repeat([[0.0, 0.0], [3.0, 4.0]], 3, axis=0), np.repeat([0, 1], 3)
    assert hm.calinski_harabasz(blocks, halves) == math.inf
    assert skm.calinski_harabasz_score(blocks, halves) == 1.0


@pytest.mark.parametrize("index", ["silhouette", "davies_bouldin", "calinski_harabasz"])
def test_index_mode_refuses_a_layout_of_singletons(index):
    """n_samples == n_clusters leaves every index undefined, whatever the genes: refused
    when built (the silhouette once scored it a perfect 0, the others ranked it last)."""
    import hawks_deap as hd

    with pytest.raises(ValueError, match="n_samples must exceed n_clusters = 3"):
        hd.IndexProblem(n_samples=3, n_clusters=3, n_dims=2, target=1.0, index=index,
                        equal_sizes=True)


def test_stability_refuses_an_algorithm_with_a_k_multiplier():
    """A `-2k` algorithm would cluster into 2k while the result is keyed by k."""
    with pytest.raises(ValueError, match=r"single-linkage-2k clusters into 2 k clusters"):
        hm.stability(three_blobs(), "single-linkage-2k", [2, 3], n_bootstrap=2, seed=0)


@pytest.mark.parametrize("X", [[[1j, 2.0], [3.0, 4.0]], [["a", "b"], ["c", "d"]]])
def test_data_that_is_not_real_numbers_is_refused_by_name(X):
    with pytest.raises(TypeError, match="X must hold real numbers"):
        hm.silhouette(X, [0, 1])


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(-1000, 1000), min_size=2, max_size=5, unique=True),
       scale=st.sampled_from([0.1, 0.3, 1.0, 1e-5, 7e3]),
       sizes=st.lists(st.integers(2, 7), min_size=5, max_size=5), d=st.integers(1, 3))
def test_clusters_of_identical_points_reach_the_definitions_limits(values, scale, sizes, d):
    """Oracle: the definitions. Every cluster a point repeated (tr(S_W) = 0 exactly, not
    the rounding of a centroid computed as sum / count: (0.1 + 0.1 + 0.1) / 3 is not 0.1)
    and the clusters apart: Calinski-Harabasz inf, Davies-Bouldin 0."""
    X = np.concatenate([np.full((n, d), v * scale)
                        for v, n in zip(values, sizes, strict=False)])
    y = np.repeat(np.arange(len(values)), sizes[:len(values)])
    assert hm.calinski_harabasz(X, y) == math.inf
    assert hm.davies_bouldin(X, y) == 0.0
    # one cluster no longer a single point (its centroid still apart): finite, positive
    X[0, 0] += scale / 4
    assert 0 < hm.calinski_harabasz(X, y) < math.inf and hm.davies_bouldin(X, y) > 0
