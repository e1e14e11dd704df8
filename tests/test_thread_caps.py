"""Issue 37, item 2: native-thread caps on every clustering path, and ``--n-jobs`` on the
collection commands.

The oracle of a cap is threadpoolctl's own report (`threadpoolctl.threadpool_info`) taken
inside a clustering call; the oracle of "results do not change" is the table computed
without any cap (``n_threads=None``) and with other caps.
"""

import numpy as np
import pytest
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_info, threadpool_limits

import hawks_deap as hd
from hawks_deap import cli
from hawks_deap._util.threads import check_threads, thread_cap
from hawks_deap.analysis.features import features_table, performance_table
from hawks_deap.metrics.stability import stability


def _threads(user_api=None):
    """The largest thread count threadpoolctl reports (of one ``user_api``, or all)."""
    return max(i["num_threads"] for i in threadpool_info()
               if user_api is None or i["user_api"] == user_api)


def _blobs(seed, n=240, k=4, d=3):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-6, 6, size=(k, d))
    y = np.repeat(np.arange(k), n // k)
    return centres[y] + rng.normal(size=(n, d)), y


@pytest.fixture(scope="module")
def collection():
    return [_blobs(seed) for seed in range(3)]


# --------------------------------------------------------------------------- the rule


def test_check_threads_takes_none_or_a_positive_int():
    assert check_threads("n_threads", None) is None
    assert check_threads("n_threads", 3) == 3
    assert check_threads("n_threads", np.int64(2)) == 2
    with pytest.raises(ValueError, match=r"n_threads must be >= 1, got 0"):
        check_threads("n_threads", 0)
    for bad in ("2", 1.0, True):
        with pytest.raises(TypeError, match="n_threads must be an integer"):
            check_threads("n_threads", bad)


def test_thread_cap_caps_blas_and_openmp_or_blas_only_and_restores():
    import sklearn  # noqa: F401 - its OpenMP runtime loaded, so there is one to cap

    with threadpool_limits(limits=2):  # the same start on any machine, even one core
        assert _threads("openmp") == 2 and _threads("blas") == 2
        with thread_cap(1):
            assert _threads() == 1
        with thread_cap(1, openmp=False):
            assert _threads("blas") == 1 and _threads("openmp") == 2
        with thread_cap(None):
            assert _threads("openmp") == 2 and _threads("blas") == 2
        assert _threads("openmp") == 2 and _threads("blas") == 2  # restored


# --------------------------------------------------------------------------- tables


def test_performance_table_caps_each_call_and_leaves_the_table_unchanged(collection):
    seen = []

    def probe(X, n_clusters, seed):  # a clustering call that reports its threads
        seen.append(_threads())
        return KMeans(n_clusters, n_init=1, random_state=seed).fit_predict(X)

    with threadpool_limits(limits=2):
        tables = {cap: performance_table(collection, [*hd.clustering.PAPER_ALGORITHMS, probe],
                                         seed=3, n_threads=cap)
                  for cap in (None, 1, 2)}
        seen_by = {}
        for cap in (None, 1):
            seen.clear()
            performance_table(collection, [probe], seed=3, n_threads=cap)
            seen_by[cap] = list(seen)
    assert seen_by[1] == [1, 1, 1] and seen_by[None] == [2, 2, 2]
    for cap in (1, 2):
        assert tables[cap].columns == tables[None].columns
        np.testing.assert_array_equal(tables[cap].values, tables[None].values)
    assert np.all(tables[None].values > 0.5)  # real partitions, not a degenerate table


def test_performance_table_workers_get_n_threads(collection, monkeypatch):
    from hawks_deap.algorithms import pool

    asked = []

    class Recording(pool.ProblemPool):
        def __init__(self, *args, **kwargs):
            asked.append(kwargs.get("threads_per_worker"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(pool, "ProblemPool", Recording)
    serial = performance_table(collection, ["kmeans++", "gmm"], seed=1)
    two = performance_table(collection, ["kmeans++", "gmm"], seed=1, n_jobs=2)
    uncapped = performance_table(collection, ["kmeans++", "gmm"], seed=1, n_jobs=2,
                                 n_threads=None)
    assert asked == [1, None]  # None: the pool's own default
    np.testing.assert_array_equal(two.values, serial.values)
    np.testing.assert_array_equal(uncapped.values, serial.values)


def test_features_table_caps_blas_and_is_unchanged(collection, monkeypatch):
    from hawks_deap.analysis import features

    seen = []
    measure = features.problem_features

    def probe(X, y, **kwargs):
        seen.append((_threads("blas"), _threads("openmp")))
        return measure(X, y, **kwargs)

    import sklearn  # noqa: F401 - an OpenMP runtime to leave alone

    with threadpool_limits(limits=2):
        uncapped = features_table(collection, n_threads=None)
        monkeypatch.setattr(features, "problem_features", probe)
        capped = features_table(collection)
    assert seen == [(1, 2)] * 3  # BLAS capped; OpenMP (unused by the features) left alone
    np.testing.assert_array_equal(capped.values, uncapped.values)


@pytest.mark.parametrize("call", [
    lambda data: performance_table(data, n_threads=0),
    lambda data: performance_table(data, n_threads="1"),
    lambda data: features_table(data, n_threads=-1),
    lambda data: stability(data[0][0], "kmeans++", [2], n_threads=0),
])
def test_bad_n_threads_is_refused_before_any_work(collection, call):
    with pytest.raises((TypeError, ValueError), match="n_threads must be"):
        call(collection)


def test_stability_caps_each_fit_and_is_unchanged():
    X, _ = _blobs(7, n=120, k=3)
    seen = []

    def probe(X, n_clusters, seed):
        seen.append(_threads())
        return KMeans(n_clusters, n_init=1, random_state=seed).fit_predict(X)

    with threadpool_limits(limits=2):
        results = {cap: stability(X, probe, [2, 3], n_bootstrap=3, seed=5, n_threads=cap)
                   for cap in (None, 1)}
    assert seen == [2] * 6 + [1] * 6
    for k in (2, 3):
        np.testing.assert_array_equal(results[1].values[k], results[None].values[k])
    kmeans = {cap: stability(X, "kmeans++", [2, 3, 4], n_bootstrap=4, seed=5, n_threads=cap)
              for cap in (None, 1, 2)}
    for cap in (1, 2):
        for k in (2, 3, 4):
            np.testing.assert_array_equal(kmeans[cap].values[k], kmeans[None].values[k])


# --------------------------------------------------------------------------- --n-jobs


def _main(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _save(tmp_path, collection):
    paths = []
    for i, (X, y) in enumerate(collection):
        hd.Dataset(X, y, metadata={"name": f"d{i}"}).save(tmp_path / f"d{i}")
        paths.append(tmp_path / f"d{i}")
    return paths


def test_features_n_jobs_2_prints_what_n_jobs_1_prints(tmp_path, capsys, collection):
    paths = _save(tmp_path, collection)
    outputs = {}
    for jobs in ("1", "2"):
        code, out, err = _main(capsys, "features", *paths, "--algorithms", "paper",
                               "--format", "csv", "--n-jobs", jobs)
        assert code == 0, err
        outputs[jobs] = out
    assert outputs["1"] == outputs["2"]
    assert outputs["1"].splitlines()[0].endswith("ari_single-linkage-2k")
    assert len(outputs["1"].splitlines()) == 1 + len(paths)


@pytest.mark.parametrize("command", ["features", "plot", "export"])
@pytest.mark.parametrize("value, message", [
    ("0", "error: argument --n-jobs: must be an integer in [1, 1024], got 0"),
    ("-1", "error: argument --n-jobs: must be an integer in [1, 1024], got -1"),
    ("two", "argument --n-jobs: must be an integer in [1, 1024], got 'two'"),
])
def test_n_jobs_is_validated(tmp_path, capsys, collection, command, value, message):
    paths = _save(tmp_path, collection[:1])
    extra = {"features": [], "plot": ["--out", tmp_path / "figs"],
             "export": ["--format", "isa", "--out", tmp_path / "isa"]}[command]
    code, _, err = _main(capsys, command, *paths, "--algorithms", "paper", *extra,
                         "--n-jobs", value)
    assert code == 2 and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d0"]  # nothing written
