"""Problem features against brute-force oracles; instance space; performance table;
Dataset.regenerate (sampling from the genes)."""

import csv
import io
import math

import numpy as np
import pytest
from scipy.cluster.hierarchy import linkage
from sklearn.cluster import AgglomerativeClustering
from sklearn.decomposition import PCA
from sklearn.metrics import adjusted_rand_score

import hawks_deap as hd
from hawks_deap.analysis.features import (
    FEATURE_NAMES,
    InstanceSpace,
    Table,
    average_eccentricity,
    best_algorithms,
    connectivity,
    features_table,
    performance_table,
    problem_features,
    size_entropy,
)
from hawks_deap.clustering import PAPER_ALGORITHMS, available_algorithms, get_algorithm
from hawks_deap.genome.initialization import haar_rotation

# --------------------------------------------------------------------------- oracles


def brute_connectivity(X, y, L=10):
    n = len(X)
    total = 0.0
    for i in range(n):
        dists = []
        for j in range(n):
            if j != i:
                dists.append((sum((X[i, d] - X[j, d]) ** 2 for d in range(X.shape[1])), j))
        dists.sort()
        for rank, (_, j) in enumerate(dists[:L], start=1):
            if y[j] != y[i]:
                total += 1.0 / rank
    return total / n


def brute_eccentricity(X, y, kept=0.95):
    ratios = []
    for label in sorted(set(y.tolist())):
        pts = X[y == label]
        n, d = pts.shape
        if n < 2:
            ratios.append(1.0)
            continue
        mean = [sum(pts[i, a] for i in range(n)) / n for a in range(d)]
        cov = np.zeros((d, d))
        for i in range(n):
            for a in range(d):
                for b in range(d):
                    cov[a, b] += (pts[i, a] - mean[a]) * (pts[i, b] - mean[b])
        cov /= n - 1
        eig = sorted(np.linalg.eigvalsh(cov), reverse=True)
        total = sum(eig)
        acc, m = 0.0, 0
        for value in eig:
            acc += value
            m += 1
            if acc >= kept * total:
                break
        ratios.append(eig[0] / eig[m - 1])
    return sum(ratios) / len(ratios)


def brute_entropy(y):
    counts = {}
    for label in y.tolist():
        counts[label] = counts.get(label, 0) + 1
    k = len(counts)
    if k == 1:
        return 1.0
    n = len(y)
    return -sum(c / n * math.log(c / n, k) for c in counts.values())


def brute_silhouette(X, y, metric):
    n = len(X)
    widths = []
    for i in range(n):
        sums, counts = {}, {}
        for j in range(n):
            if j == i:
                continue
            sq = sum((X[i, d] - X[j, d]) ** 2 for d in range(X.shape[1]))
            dist = sq if metric == "sqeuclidean" else math.sqrt(sq)
            sums[y[j]] = sums.get(y[j], 0.0) + dist
            counts[y[j]] = counts.get(y[j], 0) + 1
        if y[i] not in counts:  # singleton
            widths.append(0.0)
            continue
        a = sums[y[i]] / counts[y[i]]
        b = min(sums[c] / counts[c] for c in sums if c != y[i])
        widths.append((b - a) / max(a, b))
    mean = sum(widths) / n
    std = math.sqrt(sum((w - mean) ** 2 for w in widths) / n)
    return mean, std


def random_labelled(seed, n=70, d=3, k=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)  # every label present
    centres = rng.normal(scale=2.0, size=(k, d))
    scales = rng.uniform(0.2, 2.0, size=(k, d))
    X = centres[y] + rng.normal(size=(n, d)) * scales[y]
    return X, y


@pytest.mark.parametrize("seed,d,k", [(0, 2, 3), (1, 3, 4), (2, 1, 2), (3, 5, 5), (4, 2, 6)])
@pytest.mark.parametrize("metric", ["sqeuclidean", "euclidean"])
def test_features_match_brute_force(seed, d, k, metric):
    X, y = random_labelled(seed, d=d, k=k)
    labels = np.array([f"c{v}" for v in y])  # any label values
    f = problem_features(X, labels, metric=metric)
    assert list(f) == list(FEATURE_NAMES)
    assert f["connectivity"] == pytest.approx(brute_connectivity(X, y), rel=1e-9, abs=1e-12)
    assert f["dimensionality"] == d and f["n_clusters"] == k
    assert f["eccentricity"] == pytest.approx(brute_eccentricity(X, y), rel=1e-9)
    assert f["entropy"] == pytest.approx(brute_entropy(y), rel=1e-9)
    mean, std = brute_silhouette(X, y, metric)
    assert f["silhouette"] == pytest.approx(mean, rel=1e-9, abs=1e-12)
    assert f["silhouette_std"] == pytest.approx(std, rel=1e-9, abs=1e-12)


def test_connectivity_unnormalised_and_other_L():
    X, y = random_labelled(7, n=40)
    assert connectivity(X, y, 5, normalize=False) == pytest.approx(
        40 * brute_connectivity(X, y, L=5), rel=1e-9)
    with pytest.raises(ValueError, match="n_neighbors must be <= n_samples - 1 = 39"):
        connectivity(X, y, 40)


def test_connectivity_of_separated_clusters_is_zero_and_upper_bound():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + 100])
    y = np.repeat([0, 1], 30)
    assert connectivity(X, y) == 0.0
    # alternate labels on a line: every neighbour is "wrong" at odd distances
    alternating = np.arange(200) % 2
    value = connectivity(rng.normal(size=(200, 2)), rng.permutation(alternating))
    assert 0 < value <= sum(1 / j for j in range(1, 11))


def test_eccentricity_keeps_95_percent_of_the_eigenvalues():
    # covariance diag(8/3, 2/3): the largest eigenvalue is 80% of the total, so both are
    # kept and the ratio is 4
    X = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    assert average_eccentricity(X, np.zeros(4)) == pytest.approx(4.0, rel=1e-12)
    # a near-degenerate direction (< 5% of the total) is dropped: ratio 1, not ~1e8
    line = np.array([[-3.0, 1e-4], [-1.0, -1e-4], [1.0, 1e-4], [3.0, -1e-4]])
    assert average_eccentricity(line, np.zeros(4)) == 1.0
    # mean over clusters; singletons count as 1
    X2 = np.concatenate([X, line, [[9.0, 9.0]]])
    y2 = np.array([0] * 4 + [1] * 4 + [2])
    assert average_eccentricity(X2, y2) == pytest.approx((4.0 + 1.0 + 1.0) / 3)
    with pytest.raises(ValueError, match="variance_kept"):
        average_eccentricity(X, np.zeros(4), variance_kept=0.0)


def test_entropy_definition():
    assert size_entropy([0] * 5 + [1] * 5 + [2] * 5) == pytest.approx(1.0)
    assert size_entropy([7] * 10) == 1.0  # K = 1: defined as 1
    skewed = size_entropy([0] * 998 + [1, 2])
    assert 0 < skewed < 0.02
    p = np.array([0.5, 0.25, 0.25])
    assert size_entropy([0, 0, 1, 2]) == pytest.approx(-(p * np.log(p) / np.log(3)).sum())


def test_single_cluster_features_are_defined_or_nan():
    X = np.random.default_rng(0).normal(size=(30, 2))
    f = problem_features(X, np.zeros(30))
    assert f["entropy"] == 1.0 and f["connectivity"] == 0.0 and f["n_clusters"] == 1
    assert math.isnan(f["silhouette"]) and math.isnan(f["silhouette_std"])


def test_problem_features_validation():
    with pytest.raises(ValueError, match=r"y must be a 1-D array of length 5 \(the number of "
                       r"rows of X\), got shape \(2,\)"):
        problem_features(np.zeros((5, 2)), [0, 1])
    with pytest.raises(ValueError, match="labels must be a 1-D array of length 5"):
        average_eccentricity(np.zeros((5, 2)), np.zeros((5, 1)))
    with pytest.raises(ValueError, match="labels must not be empty"):
        size_entropy([])
    with pytest.raises(ValueError, match="metric"):
        problem_features(np.zeros((5, 2)), [0, 1, 0, 1, 0], metric="cosine")
    with pytest.raises(ValueError, match="finite"):
        problem_features(np.full((5, 2), np.nan), [0, 1, 0, 1, 0])


def test_silhouette_feature_is_the_index_that_index_mode_targets(small_problem):
    r = hd.evolve(small_problem, population_size=4, generations=2, seed=3)
    ds = r.best_dataset()
    assert problem_features(ds.X, ds.y)["silhouette"] == pytest.approx(
        r.best.record["index"], rel=1e-12)


# --------------------------------------------------------------------------- tables


def test_features_table_and_csv():
    data = [random_labelled(s, n=40) for s in range(3)]
    table = features_table(data, names=["a", "b,c", "d"])
    assert table.columns == FEATURE_NAMES and table.index == ("a", "b,c", "d")
    assert table.records()[1] == pytest.approx(problem_features(*data[1]))
    lines = table.to_csv().splitlines()
    assert lines[0] == "dataset," + ",".join(FEATURE_NAMES)
    assert lines[2].startswith('"b,c",')
    back = [float(v) for v in lines[1].split(",")[1:]]
    assert back == table.values[0].tolist()  # 17 significant digits: exact
    assert "silhouette_std" in table.to_text()
    # every name is quoted where needed: csv reads back the same fields (an oracle)
    odd = Table(("r,1", 'q"2'), ('a,b', "c"), [[1.0, 2.0], [3.0, 4.0]])
    rows = list(csv.reader(io.StringIO(odd.to_csv(index_name="d,s"))))
    assert rows == [["d,s", "a,b", "c"], ["r,1", "1", "2"], ['q"2', "3", "4"]]
    with pytest.raises(ValueError, match="names must have one entry per dataset"):
        features_table(data, names=["x"])


def test_performance_table_paper_algorithms_with_ari_oracle():
    rng = np.random.default_rng(1)
    k = 3
    y = np.repeat(np.arange(k), 25)
    separated = rng.normal(size=(75, 2)) * 0.3 + np.array([[0, 0], [10, 0], [0, 10]])[y]
    noisy = rng.normal(size=(75, 2)) * 2.0 + np.array([[0, 0], [1, 0], [0, 1]])[y]
    datasets = [hd.Dataset(separated, y), (noisy, y)]
    table = performance_table(datasets, seed=5)
    # the default is the paper's six, whatever else the registry holds
    assert table.columns == PAPER_ALGORITHMS
    assert set(PAPER_ALGORITHMS) < set(available_algorithms())
    assert {"average-linkage-2k", "single-linkage-2k"} <= set(table.columns)
    # deterministic algorithms: the ARI of a direct call
    for name in ("average-linkage", "single-linkage", "average-linkage-2k",
                 "single-linkage-2k"):
        labels = get_algorithm(name)(noisy, k, seed=0)
        assert table.column(name)[1] == pytest.approx(adjusted_rand_score(y, labels),
                                                      rel=1e-12)
    for name in ("kmeans++", "gmm", "average-linkage", "single-linkage"):
        assert table.column(name)[0] == pytest.approx(1.0)
    assert np.all(table.values <= 1.0) and np.all(table.values >= -1.0)
    again = performance_table(datasets, seed=5)
    np.testing.assert_array_equal(again.values, table.values)
    sub = performance_table(datasets, ["gmm", "kmeans++"], seed=5)
    assert sub.columns == ("gmm", "kmeans++")
    with pytest.raises(ValueError, match="unknown algorithm"):
        performance_table(datasets, ["kmeans"])
    with pytest.raises(ValueError, match="n_jobs"):
        performance_table(datasets, n_jobs=0)


def test_performance_table_builds_each_linkage_once_per_dataset(monkeypatch):
    from hawks_deap.clustering import _library

    built = []

    def counted_linkage(*args, **kwargs):
        built.append(kwargs["method"])
        return linkage(*args, **kwargs)

    rng = np.random.default_rng(4)
    y = np.repeat(np.arange(3), 30)
    datasets = [(rng.normal(size=(90, 2)) * s + np.array([[0, 0], [3, 0], [0, 3]])[y], y)
                for s in (0.5, 1.5)]
    names = ["average-linkage", "single-linkage", "average-linkage-2k", "single-linkage-2k",
             "complete-linkage", "complete-linkage-2k", "ward-linkage"]
    monkeypatch.setattr(_library, "linkage", counted_linkage)
    table = performance_table(datasets, names, seed=0)
    assert sorted(built) == ["average", "average", "complete", "complete", "ward", "ward"]
    for i, (X, y) in enumerate(datasets):
        for name in names:  # the ARI of separate calls, to the last bit
            assert table.column(name)[i] == adjusted_rand_score(y, get_algorithm(name)(X, 3))
        for method in ("average", "single"):  # scikit-learn's partitions at K and 2K
            for column, k in ((f"{method}-linkage", 3), (f"{method}-linkage-2k", 6)):
                sk = AgglomerativeClustering(n_clusters=k, linkage=method).fit_predict(X)
                assert table.column(column)[i] == adjusted_rand_score(y, sk)


def test_performance_table_same_with_two_workers():
    rng = np.random.default_rng(2)
    y = np.repeat(np.arange(3), 20)
    datasets = [(rng.normal(size=(60, 2)) * s + np.array([[0, 0], [3, 0], [0, 3]])[y], y)
                for s in (0.3, 1.0, 2.0)]

    def noisy_kmeans(X, n_clusters, seed):  # a user callable travels to the workers too
        return get_algorithm("kmeans++")(X + 1e-3 * np.random.default_rng(seed).normal(
            size=X.shape), n_clusters, seed)

    algorithms = ["gmm", "kmeans++", "single-linkage", noisy_kmeans]
    one = performance_table(datasets, algorithms, seed=3)
    two = performance_table(datasets, algorithms, seed=3, n_jobs=2)
    assert one.columns == two.columns
    np.testing.assert_array_equal(one.values, two.values)


def test_tables_name_the_dataset_that_is_too_small(monkeypatch):
    rng = np.random.default_rng(3)
    fine = (rng.normal(size=(40, 2)), np.repeat([0, 1], 20))
    tiny = (rng.normal(size=(5, 2)), [0, 0, 1, 1, 2])
    with pytest.raises(ValueError, match=r"dataset 'tiny' \(row 1\): n_neighbors must be "
                                         r"<= n_samples - 1 = 4"):
        features_table([fine, tiny], names=["fine", "tiny"])
    assert performance_table([tiny], ["kmeans++", "single-linkage"]).values.shape == (1, 2)
    runs = []
    monkeypatch.setattr(hd.analysis.features, "_performance_row", lambda task: runs.append(task))
    with pytest.raises(ValueError, match=r"dataset 'tiny' \(row 1\) has 5 points, too few "
                                         r"for 'average-linkage-2k': it asks for 3 \* 2"):
        performance_table([fine, tiny], names=["fine", "tiny"])
    assert runs == []  # refused before any clustering ran


def test_best_algorithms_with_ties():
    table = Table(("a", "b", "c"), ("x", "y", "z"),
                  np.array([[0.1, 0.9, 0.2], [1.0, 1.0, 0.5], [0.5, 0.49, 0.0]]))
    assert best_algorithms(table) == ["y", "tied", "x"]
    assert best_algorithms(table, tol=0.02) == ["y", "tied", "tied"]


# --------------------------------------------------------------------------- instance space


def _feature_rows(n=25, seed=0):
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(n, 7)) @ rng.normal(size=(7, 7))
    rows[:, 1] = 2.0  # a constant feature (e.g. every dataset is 2-D)
    return rows


def test_instance_space_matches_standardised_pca():
    A = _feature_rows()
    space = InstanceSpace().fit(A)
    coords = space.transform(A)
    mean, std = A.mean(axis=0), A.std(axis=0)
    std[std == 0] = 1.0
    Z = (A - mean) / std
    pca = PCA(n_components=2, svd_solver="full").fit(Z)
    np.testing.assert_allclose(np.abs(coords), np.abs(pca.transform(Z)), atol=1e-10)
    np.testing.assert_allclose(space.explained_variance_ratio_,
                               pca.explained_variance_ratio_, rtol=1e-10)
    # signs: largest loading positive
    for row in space.components_:
        assert row[np.argmax(np.abs(row))] > 0
    assert space.axis_labels()[0].startswith("PC1 (")
    assert set(space.loadings()) == set(FEATURE_NAMES)


def test_instance_space_fit_on_one_collection_transform_another():
    A, B = _feature_rows(seed=0), _feature_rows(n=6, seed=1)
    space = InstanceSpace().fit(A)
    expected = (B - space.mean_) / space.scale_ @ space.components_.T
    np.testing.assert_allclose(space.transform(B), expected, rtol=1e-12)
    # dicts and Tables give the same result as arrays
    dicts = [dict(zip(FEATURE_NAMES, row)) for row in B]
    np.testing.assert_allclose(space.transform(dicts), expected, rtol=1e-12)
    table = Table(tuple(map(str, range(len(B)))), FEATURE_NAMES, B)
    np.testing.assert_allclose(space.transform(table), expected, rtol=1e-12)
    np.testing.assert_allclose(InstanceSpace().fit_transform(A), space.transform(A))


def test_instance_space_validation():
    with pytest.raises(RuntimeError, match="not fitted"):
        InstanceSpace().transform(_feature_rows())
    with pytest.raises(ValueError, match="at least 2 datasets"):
        InstanceSpace().fit(_feature_rows(n=1))
    bad = _feature_rows()
    bad[0, 5] = np.nan
    with pytest.raises(ValueError, match="silhouette"):
        InstanceSpace().fit(bad)
    space = InstanceSpace().fit(_feature_rows())
    with pytest.raises(ValueError, match="7 names for 3 columns"):
        space.transform(np.zeros((2, 3)))


# --------------------------------------------------------------------------- regenerate


def _gene(rng, d, scale):
    return hd.genome.Cluster(rng.normal(scale=5.0, size=d), rng.uniform(0.1, 1.0, size=d) * scale,
                      haar_rotation(d, rng))


def test_regenerate_matches_the_genes_within_sampling_tolerance():
    rng = np.random.default_rng(0)
    d = 3
    genes = [_gene(rng, d, s) for s in (0.5, 1.0, 3.0)]
    sizes = [50, 150, 300]
    X = np.concatenate([g.sample(rng.standard_normal((m, d))) for g, m in zip(genes, sizes)])
    ds = hd.Dataset(X, np.repeat(np.arange(3), sizes), genes, {"seed": 1})
    big = ds.regenerate(100_000, seed=42)
    assert big.X.shape == (100_000, d) and big.n_samples == 100_000
    counts = np.bincount(big.y)
    assert counts.sum() == 100_000
    np.testing.assert_allclose(counts / 100_000, np.array(sizes) / 500, atol=1e-4)
    for k, gene in enumerate(genes):
        pts = big.X[big.y == k]
        n_k = len(pts)
        cov = gene.covariance
        se_mean = np.sqrt(np.diag(cov) / n_k)
        assert np.all(np.abs(pts.mean(axis=0) - gene.mean) < 5 * se_mean)
        se_cov = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / n_k)
        assert np.all(np.abs(np.cov(pts, rowvar=False) - cov) < 5 * se_cov)
    assert big.metadata["regenerated"] == {"n_samples": 100_000, "seed": 42,
                                           "sizes": counts.tolist()}
    assert big.metadata["seed"] == 1
    assert hd.genome.genotype_equal(big.genotype, ds.genotype)


def test_regenerate_is_reproducible_and_fresh(small_problem):
    ds = hd.evolve(small_problem, population_size=4, generations=2, seed=0).best_dataset()
    a, b = ds.regenerate(seed=3), ds.regenerate(seed=3)
    np.testing.assert_array_equal(a.X, b.X)
    assert a.n_samples == ds.n_samples
    np.testing.assert_array_equal(np.bincount(a.y), np.bincount(ds.y))  # same sizes
    assert not np.array_equal(a.X, ds.X)  # fresh draws
    assert not np.array_equal(ds.regenerate(seed=4).X, a.X)
    small = ds.regenerate(4, seed=0)
    assert np.bincount(small.y).tolist() == [1, 1, 1, 1]  # no empty cluster
    with pytest.raises(ValueError, match="n_samples must be >= 4"):
        ds.regenerate(3)
    with pytest.raises(ValueError, match="needs the generating genes"):
        hd.Dataset(ds.X, ds.y).regenerate(10)
    with pytest.raises(TypeError, match="n_samples"):
        ds.regenerate(10.5)


def test_a_score_depends_on_the_data_and_the_algorithm_not_on_the_rest_of_the_table():
    # a dataset's row was once seeded by its position: adding or reordering datasets or
    # algorithms changed the scores of the stochastic ones
    from hawks_deap.analysis.features import clustering_seed, performance_table

    rng = np.random.default_rng(7)
    y = np.repeat(np.arange(3), 40)
    data = [(rng.normal(size=(120, 2)) * s + np.array([[0, 0], [3, 0], [0, 3]])[y], y)
            for s in (0.8, 1.2, 1.6)]
    algorithms = ["kmeans++", "gmm"]
    full = performance_table(data, algorithms, seed=5)
    alone = performance_table(data[2:], algorithms[::-1], seed=5)
    assert alone.values[0].tolist() == full.values[2, ::-1].tolist()
    swapped = performance_table(data[::-1], algorithms, seed=5)
    assert swapped.values.tolist() == full.values[::-1].tolist()
    assert performance_table(data, algorithms, seed=6).values.tolist() != full.values.tolist()
    # the seed is the documented function of the seed, the data and the name
    seed = clustering_seed(5, data[0][0], "gmm")
    assert seed == clustering_seed(np.random.SeedSequence(5), data[0][0].copy(order="F"),
                                   "gmm")
    assert 0 <= seed < 2**32 and seed != clustering_seed(5, data[0][0], "kmeans++")
    assert seed != clustering_seed(5, data[1][0], "gmm")
