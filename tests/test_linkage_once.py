"""Each linkage paid once per dataset (issue 34, item 3): the tree shared by a linkage and
its ``-2k`` variant in `performance_table` gives the labels of each algorithm run alone,
on random data and on data with ties, for every registered linkage, at K and 2K."""

import numpy as np
import pytest
from sklearn.cluster import AgglomerativeClustering

import hawks_deap as hd
from hawks_deap._util.validation import as_seed_sequence
from hawks_deap.analysis.features import clustering_seed, performance_table
from hawks_deap.clustering import LibraryCall, _library, available_algorithms, get_algorithm
from hawks_deap.metrics import adjusted_rand_index

#: The registered algorithms that cut a tree (a linkage and its -2k variant).
LINKAGES = [name for name in available_algorithms()
            if isinstance(get_algorithm(name).func, LibraryCall)
            and get_algorithm(name).func.tree is not None]


def _datasets() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(34)
    grid = np.stack(np.meshgrid(np.arange(6.0), np.arange(5.0)), -1).reshape(-1, 2)
    return {
        "random": rng.normal(size=(45, 3)),
        # duplicated points: zero distances tie, and so do merges of copies
        "duplicates": np.repeat(rng.normal(size=(12, 2)), 4, axis=0),
        # a regular grid: many equal distances at every level
        "grid": grid,
        # a line of equally spaced points with repeats: ties everywhere, integer data
        "line": np.repeat(np.arange(10), 3).reshape(-1, 1) * np.array([[2, 0]]),
        "two points": np.array([[0.0, 1.0], [0.0, 1.0]]),
    }


DATASETS = _datasets()


def count_tree_builds(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the trees built from now on: scipy linkages and scikit-learn tree fits."""
    builds = {"scipy": 0, "sklearn": 0}
    linkage, fit = _library.linkage, AgglomerativeClustering.fit

    def counted_linkage(*args, **kwargs):
        builds["scipy"] += 1
        return linkage(*args, **kwargs)

    def counted_fit(self, *args, **kwargs):
        builds["sklearn"] += 1
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(_library, "linkage", counted_linkage)
    monkeypatch.setattr(AgglomerativeClustering, "fit", counted_fit)
    return builds


def test_the_registered_linkages() -> None:
    assert sorted(LINKAGES) == sorted([
        "average-linkage", "average-linkage-2k", "single-linkage", "single-linkage-2k",
        "complete-linkage", "complete-linkage-2k", "ward-linkage"])


@pytest.mark.parametrize("data", list(DATASETS))
def test_a_shared_tree_gives_the_labels_of_each_algorithm_alone(data: str) -> None:
    X = DATASETS[data]
    n = X.shape[0]
    algorithms = [get_algorithm(name) for name in LINKAGES]
    trees: dict = {}
    for k in range(1, n + 1):  # every K, hence every 2K
        for algorithm in algorithms:
            if k * algorithm.k_multiplier > n:
                continue
            shared = algorithm(X, k, 0, trees=trees)
            alone = algorithm(X, k, 0)
            np.testing.assert_array_equal(shared, alone, err_msg=f"{algorithm.name}, K={k}")
            assert shared.dtype == alone.dtype
    # one tree per distinct call (single, average, complete, Ward), whatever was asked
    assert len(trees) == 4


def test_the_single_linkage_cut_numbers_clusters_as_scikit_learn() -> None:
    for X in DATASETS.values():
        cut = _library.agglomerative_tree(X, linkage="single")
        for k in range(1, X.shape[0] + 1):
            expected = AgglomerativeClustering(n_clusters=k, linkage="single").fit_predict(X)
            np.testing.assert_array_equal(cut(k), expected)


def _alone_table(datasets: list, algorithms: list[str], seed: int) -> np.ndarray:
    """`performance_table`'s values by one call of each algorithm alone (same seeds)."""
    runners = [get_algorithm(name) for name in algorithms]
    ss = as_seed_sequence(seed)
    rows = []
    for item in datasets:
        X, y = (item.X, item.y) if isinstance(item, hd.Dataset) else item
        scored = np.ones(len(y), dtype=bool)
        if isinstance(item, hd.Dataset):
            scored = ~item.noise_mask
        k = len(np.unique(y[scored]))
        rows.append([adjusted_rand_index(y[scored],
                                         r(X, k, clustering_seed(ss, X, r.name))[scored])
                     for r in runners])
    return np.array(rows)


def test_performance_table_is_each_algorithm_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    blobs = np.concatenate([rng.normal(c, 0.4, size=(15, 2)) for c in (0, 3, 6)])
    labels = np.repeat(np.arange(3), 15)
    tied = np.repeat(DATASETS["grid"], 2, axis=0)
    noisy_y = labels.copy()
    noisy_y[::9] = -1  # noise points: clustered, not scored
    datasets = [(blobs, labels), (tied, np.arange(tied.shape[0]) % 4),
                hd.Dataset(blobs, noisy_y, metadata={"noise_label": -1}),
                (DATASETS["line"], np.arange(30) // 10)]
    algorithms = ["kmeans++", "gmm", *LINKAGES]
    builds = count_tree_builds(monkeypatch)
    table = performance_table(datasets, algorithms, seed=11)
    # average, complete and Ward: one scipy linkage each; single: one scikit-learn tree
    assert builds == {"scipy": 3 * len(datasets), "sklearn": len(datasets)}
    expected = _alone_table(datasets, algorithms, seed=11)
    assert table.columns == tuple(algorithms)
    np.testing.assert_array_equal(table.values, expected)  # bit for bit
    monkeypatch.undo()
    # worker processes build their trees too: the same table for any n_jobs
    np.testing.assert_array_equal(
        performance_table(datasets, algorithms, seed=11, n_jobs=2).values, expected)


@pytest.mark.parametrize(("winner", "loser"), [("average-linkage", "average-linkage-2k"),
                                                ("single-linkage-2k", "single-linkage")])
def test_versus_builds_one_tree_for_a_linkage_and_its_2k_variant(
        monkeypatch: pytest.MonkeyPatch, winner: str, loser: str) -> None:
    problem = hd.VersusProblem(winner, loser, n_samples=90, n_clusters=3, n_dims=2)
    run = hd.evolve(problem, population_size=4, generations=2, seed=5, n_jobs=1)
    best = run.best
    builds = count_tree_builds(monkeypatch)
    again = problem.evaluate(best, 123)
    assert sum(builds.values()) == 1  # one tree, cut for K and for 2K
    winner_labels, loser_labels = problem.partitions(best, seeds=(1, 2))
    assert sum(builds.values()) == 2
    monkeypatch.undo()
    # the labels and the scores of each algorithm alone
    X = problem.evaluator.points(best)
    np.testing.assert_array_equal(winner_labels, get_algorithm(winner)(X, 3, 1))
    np.testing.assert_array_equal(loser_labels, get_algorithm(loser)(X, 3, 2))
    y = problem.require_layout().labels
    w, lo = (adjusted_rand_index(y, get_algorithm(a)(X, 3, None)) for a in (winner, loser))
    assert again.record["winner_score"] == w and again.record["loser_score"] == lo
