"""Scores comparable with clustbench's: NCA, the best over reference labellings, results.

Oracles: ``genieclust.compare_partitions.normalized_clustering_accuracy`` and
``clustbench.get_score`` (whose default metric it is), brute force over matchings, hand
computations, and ``clustbench.load_results`` for the results layout.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math

import numpy as np
import pytest
from sklearn.cluster import AgglomerativeClustering
from sklearn.metrics import adjusted_rand_score

import hawks_deap.metrics as hm
from hawks_deap.analysis.features import clustering_results, performance_table
from hawks_deap.io.batteries import (
    read_battery_dataset,
    read_battery_labels,
    write_results,
)
from hawks_deap.metrics import external, normalized_clustering_accuracy

clustbench = pytest.importorskip("clustbench")
genieclust = pytest.importorskip("genieclust")
genie_nca = genieclust.compare_partitions.normalized_clustering_accuracy


def brute_force_nca(true, pred) -> float:
    """NCA by trying every one-to-one matching of the classes to the (padded) clusters."""
    classes, clusters = sorted(set(true)), sorted(set(pred))
    k = len(classes)
    recall = np.zeros((k, max(k, len(clusters))))
    for t, p in zip(true, pred, strict=True):
        recall[classes.index(t), clusters.index(p)] += 1
    recall /= recall.sum(axis=1, keepdims=True)
    best = max(sum(recall[i, c] for i, c in enumerate(cols))
               for cols in itertools.permutations(range(recall.shape[1]), k))
    return (best - 1) / (k - 1)


def random_pair(rng, k, n, n_noise=0):
    """Labels 1..k, each present among the non-noise points, plus ``n_noise`` noise (0)."""
    true = np.concatenate([np.arange(1, k + 1), rng.integers(1, k + 1, n - k)])
    pred = np.concatenate([rng.permutation(np.arange(1, k + 1)), rng.integers(1, k + 1, n - k)])
    order = rng.permutation(n + n_noise)
    true = np.concatenate([true, np.zeros(n_noise, dtype=int)])[order]
    pred = np.concatenate([pred, rng.integers(1, k + 1, n_noise)])[order]
    return true, pred


# --------------------------------------------------------------------------- NCA


def test_nca_equals_genieclust_on_random_partitions():
    rng = np.random.default_rng(0)
    for _ in range(200):
        k = int(rng.integers(2, 9))
        true, pred = random_pair(rng, k, int(rng.integers(k, 120)))
        assert normalized_clustering_accuracy(true, pred) == pytest.approx(
            genie_nca(true, pred), abs=1e-12)
        # any label values: NCA depends on the partitions only
        assert normalized_clustering_accuracy([f"c{t}" for t in true], pred * 7 - 3) == (
            pytest.approx(genie_nca(true, pred), abs=1e-12))


def test_nca_with_noise_equals_clustbench_get_score():
    rng = np.random.default_rng(1)
    for _ in range(100):
        k = int(rng.integers(2, 7))
        true, pred = random_pair(rng, k, int(rng.integers(k, 80)), int(rng.integers(1, 20)))
        scored = true > 0
        expected = clustbench.get_score(true, {k: pred})  # its default metric is NCA
        assert normalized_clustering_accuracy(true[scored], pred[scored]) == pytest.approx(
            expected, abs=1e-12)
        assert normalized_clustering_accuracy(true, pred) != pytest.approx(expected)


def test_nca_with_unequal_numbers_of_clusters():
    rng = np.random.default_rng(2)
    for _ in range(150):
        k, m = int(rng.integers(2, 6)), int(rng.integers(1, 7))
        n = int(rng.integers(max(k, m), 40))
        true = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
        pred = np.concatenate([np.arange(m), rng.integers(0, m, n - m)])
        value = normalized_clustering_accuracy(true, pred)
        assert value == pytest.approx(brute_force_nca(true, pred), abs=1e-12)
        assert -1 / (k - 1) - 1e-12 <= value <= 1 + 1e-12
        if m < k:  # genieclust's rule: the missing clusters are columns of zeros
            table = np.zeros((k, k), dtype=int)
            np.add.at(table, (true, pred), 1)
            assert value == pytest.approx(genie_nca(table), abs=1e-12)
            assert value >= -1e-12


@pytest.mark.parametrize(("true", "pred", "expected"), [
    # recalls 1 and 1/2 (class 1 split): ((1 + 1/2) - 1) / (2 - 1)
    ([0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 1, 2], 0.5),
    # 2 clusters for 3 classes: two classes matched, recall 1 each: (2 - 1) / 2
    ([0, 0, 0, 1, 1, 1, 2, 2, 2], [0, 0, 0, 1, 1, 1, 1, 1, 1], 0.5),
    # each class halved over 4 clusters: recalls 1/2 + 1/2 = 1, i.e. no better than chance
    ([0, 0, 1, 1], [0, 1, 2, 3], 0.0),
    # each class spread evenly over the same 4 clusters: 1/4 + 1/4 = 1/2, below chance
    ([0, 0, 0, 0, 1, 1, 1, 1], [0, 1, 2, 3, 0, 1, 2, 3], -0.5),
    # the matching maximises the recalls, not the counts: class b (2 points) takes
    # cluster 1 (recall 1) although class a has 3 points there (recall 3/5)
    (list("aaaaabb"), [0, 0, 1, 1, 1, 1, 1], (2 / 5 + 1 - 1) / 1),
    ([0, 1, 2], [0, 1, 2], 1.0),
])
def test_nca_hand_computed(true, pred, expected):
    assert normalized_clustering_accuracy(true, pred) == pytest.approx(expected, abs=1e-15)


def test_nca_limits_asymmetry_and_registry():
    assert math.isnan(normalized_clustering_accuracy([1, 1, 1], [0, 1, 2]))  # k - 1 = 0
    assert math.isnan(normalized_clustering_accuracy([], []))
    # not symmetric: recalls 3/4 and 1 one way, 1 and 2/3 the other
    true, pred = [0, 0, 0, 0, 1, 1], [0, 0, 0, 1, 1, 1]
    assert normalized_clustering_accuracy(true, pred) == pytest.approx(0.75, abs=1e-15)
    assert normalized_clustering_accuracy(pred, true) == pytest.approx(2 / 3, abs=1e-15)
    info = hm.get("nca")
    assert info.function is normalized_clustering_accuracy
    assert hm.get("normalised-clustering-accuracy") is info
    assert info.kind == "external" and info.higher_is_better and not info.symmetric
    assert info.bounds == (-1.0, 1.0)
    with pytest.raises(ValueError, match="same length|length"):
        normalized_clustering_accuracy([0, 1], [0, 1, 1])


def test_nca_is_a_versus_score():
    from hawks_deap.problems.versus import resolve_score

    name, function, higher = resolve_score("nca")
    assert function([0, 0, 1, 1], [1, 1, 0, 0]) == 1.0 and higher


def test_nca_of_large_tables_equals_the_dense_solution(monkeypatch):
    rng = np.random.default_rng(3)
    cases = [(rng.integers(0, int(rng.integers(2, 7)), n), rng.integers(0, m, n))
             for n, m in zip(rng.integers(5, 70, 60), rng.integers(1, 15, 60), strict=True)]
    dense = [normalized_clustering_accuracy(t, p) for t, p in cases]
    for limit in (0, 3, 12):  # every path: column reduction, then dense or sparse
        monkeypatch.setattr(external, "_DENSE_MATCHING_LIMIT", limit)
        for (t, p), expected in zip(cases, dense, strict=True):
            value = normalized_clustering_accuracy(t, p)
            assert value == pytest.approx(expected, abs=1e-12) or (
                math.isnan(value) and math.isnan(expected))
    # all singletons predicted: each class's matched recall is 1 / its size (hand
    # computed), through the reduction to each class's 3 heaviest clusters
    monkeypatch.setattr(external, "_DENSE_MATCHING_LIMIT", 1000)
    true = rng.integers(0, 3, 5000)
    assert normalized_clustering_accuracy(true, np.arange(5000)) == pytest.approx(
        (np.sum(1 / np.bincount(true)) - 1) / 2, abs=1e-15)


# --------------------------------------------------------------------------- tables


def two_labelling_battery(root):
    """A battery (clustbench's writers): labels0 has 3 clusters and noise, labels1 2.

    Blobs A and B overlap and C is far: labels1 (A and B as one cluster, with the
    noise points, which lie beside A and B) is the easier reading.
    """
    rng = np.random.default_rng(4)
    folder = root / "ref"
    folder.mkdir(parents=True)
    X = np.vstack([rng.normal(0, 1, (25, 2)), rng.normal((2.5, 0), 1, (25, 2)),
                   rng.normal((3, 12), 1, (25, 2)), rng.normal((1.25, 2), 0.5, (8, 2))])
    labels0 = np.repeat([1, 2, 3, 0], [25, 25, 25, 8])
    labels1 = np.repeat([1, 1, 2, 1], [25, 25, 25, 8])  # another reading: K = 2, no noise
    order = rng.permutation(X.shape[0])
    clustbench.save_data(str(folder / "tri.data.gz"), X[order], fmt="%.17g")
    clustbench.save_labels(str(folder / "tri.labels0.gz"), labels0[order])
    clustbench.save_labels(str(folder / "tri.labels1.gz"), labels1[order])
    (folder / "tri.txt").write_text("three blobs, noise; read as two clusters too\n")
    return folder


@pytest.mark.parametrize(("score", "metric"), [
    ("nca", genie_nca), ("ari", adjusted_rand_score)])
def test_the_best_over_labellings_equals_clustbench_get_score(tmp_path, score, metric):
    folder = two_labelling_battery(tmp_path)
    ds = read_battery_dataset(folder, "tri")
    ref = clustbench.load_dataset("ref", "tri", path=str(tmp_path), preprocess=False)
    assert list(ref.n_clusters) == [3, 2]
    table = performance_table([ds], ["single-linkage", "average-linkage"], score=score,
                              references="all")
    for linkage in ("single", "average"):
        results = {k: AgglomerativeClustering(n_clusters=k, linkage=linkage)
                   .fit_predict(ref.data) + 1 for k in (2, 3)}
        expected = clustbench.get_score(ref.labels, results, metric=metric)
        each = clustbench.get_score(ref.labels, results, metric=metric, compute_max=False)
        assert table.column(f"{linkage}-linkage")[0] == pytest.approx(expected, abs=1e-12)
        assert max(each) == expected and each[0] != pytest.approx(each[1])
    # the default (labels0 only, ARI) is unchanged by the new options
    default = performance_table([ds], ["single-linkage", "average-linkage"])
    only0 = performance_table([ds], ["single-linkage", "average-linkage"], score="ari",
                              references=None)
    np.testing.assert_array_equal(default.values, only0.values)
    labels0 = performance_table([ds], ["single-linkage", "average-linkage"], score=score)
    assert (table.values >= labels0.values).all() and (table.values > labels0.values).any()


def test_clustering_results_round_trip_through_clustbench(tmp_path):
    folder = two_labelling_battery(tmp_path / "data")
    ds = read_battery_dataset(folder, "tri")
    ref = clustbench.load_dataset("ref", "tri", path=str(tmp_path / "data"),
                                  preprocess=False)
    algorithms = ["kmeans++", "average-linkage", "average-linkage-2k"]
    [results] = clustering_results([ds], algorithms, seed=5, references="all")
    assert sorted(results["kmeans++"]) == [2, 3] and sorted(results["average-linkage-2k"]) == [4, 6]
    written = {}
    for name in algorithms:
        written[name] = write_results({name: results[name]}, tmp_path / "results",
                                      method_group="hawks", battery="ref", dataset="tri",
                                      overwrite=True)
    # one file per K, one column per method that has a partition into K clusters
    write_results(results, tmp_path / "all", method_group="hawks", battery="ref",
                  dataset="tri")
    loaded = clustbench.load_results("hawks", "ref", "tri", [2, 3, 4, 6],
                                     path=str(tmp_path / "all"))
    assert set(loaded) == set(algorithms)
    for name in algorithms:
        assert sorted(loaded[name]) == sorted(results[name])
        for k, labels in results[name].items():
            np.testing.assert_array_equal(loaded[name][k], labels)
    table = performance_table([ds], algorithms[:2], seed=5, score="nca", references="all")
    for name in algorithms[:2]:
        assert table.column(name)[0] == pytest.approx(
            clustbench.get_score(ref.labels, loaded[name]), abs=1e-12)
    with gzip.open(tmp_path / "all" / "hawks" / "ref" / "tri.result3.gz", "rt") as fh:
        assert fh.readline() == "kmeans++,average-linkage\n"


def test_references_given_as_label_vectors_and_lower_is_better(tmp_path):
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(7, 1, (20, 2))])
    y = np.repeat([0, 1], 20)
    other = np.repeat([0, 1, 2], [10, 10, 20])
    pred = {k: AgglomerativeClustering(n_clusters=k, linkage="average").fit_predict(X)
            for k in (2, 3)}
    table = performance_table([(X, y)], ["average-linkage"], score="vi",
                              references=[[y, other]])
    expected = min(hm.variation_of_information(y, pred[2]),
                   hm.variation_of_information(other, pred[3]))
    assert table.values[0, 0] == pytest.approx(expected, abs=1e-12)
    best = performance_table([(X, y)], ["average-linkage"], score="nca",
                             references=[[y, other]])
    assert best.values[0, 0] == pytest.approx(max(genie_nca(y + 1, pred[2] + 1),
                                                  genie_nca(other + 1, pred[3] + 1)))


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"score": "silhouette"}, ValueError, "external index.*'silhouette', an internal"),
    ({"score": "nope"}, ValueError, "unknown score 'nope'; valid \\(external indices\\)"),
    ({"score": len}, TypeError, "score must be the name of an external index"),
    ({"references": "some"}, ValueError, "references must be None, 'all' or"),
    ({"references": [[np.zeros(40)], [np.zeros(40)]]}, ValueError, "one entry per dataset"),
    ({"references": [[np.zeros(39)]]}, ValueError, r"one label per point \(40\)"),
    ({"references": [[]]}, ValueError, "holds no labelling"),
])
def test_bad_scores_and_references_are_refused_before_any_clustering(kwargs, error, match,
                                                                    monkeypatch):
    X = np.random.default_rng(7).normal(size=(40, 2))

    def never(*args, **kwargs):
        raise AssertionError("clustered before the arguments were checked")

    monkeypatch.setattr("hawks_deap.analysis.features._task_partitions", never)
    with pytest.raises(error, match=match):
        performance_table([(X, np.repeat([0, 1], 20))], ["kmeans++"], **kwargs)


# --------------------------------------------------------------------------- files


def test_read_battery_labels_reads_every_vector(tmp_path):
    folder = two_labelling_battery(tmp_path)
    ref = clustbench.load_dataset("ref", "tri", path=str(tmp_path), preprocess=False)
    vectors = read_battery_labels(folder, "tri")
    assert len(vectors) == 2
    for ours, theirs in zip(vectors, ref.labels, strict=True):
        np.testing.assert_array_equal(ours, np.where(theirs > 0, theirs - 1, -1))
    with pytest.raises(ValueError, match=r"tri.labels0.gz: must hold one label a row for "
                                         r"the 5 points"):
        read_battery_labels(folder, "tri", n_samples=5)
    with pytest.raises(ValueError, match="dataset ref/none has no label vector"):
        read_battery_labels(folder, "none")


def test_write_results_checks_everything_before_writing(tmp_path):
    good = {"a": [0, 0, 1, 1], "b": ["x", "y", "y", "z"]}
    with pytest.raises(ValueError, match="method_group must be a file name"):
        write_results(good, tmp_path, method_group="a/b", battery="t", dataset="d")
    with pytest.raises(ValueError, match=r"partitions\['b'\].*4"):
        write_results({"a": [0, 1, 1, 0], "b": [0, 1]}, tmp_path, method_group="g",
                      battery="t", dataset="d")
    with pytest.raises(ValueError, match="non-empty mapping"):
        write_results({}, tmp_path, method_group="g", battery="t", dataset="d")
    with pytest.raises(ValueError, match="method names"):
        write_results({"a\nb": [0, 1]}, tmp_path, method_group="g", battery="t", dataset="d")
    assert not any(tmp_path.iterdir())
    paths = write_results(good, tmp_path, method_group="g", battery="t", dataset="d")
    assert [p.name for p in paths] == ["d.result2.gz", "d.result3.gz"]
    first = [p.read_bytes() for p in paths]
    with pytest.raises(FileExistsError, match="d.result2.gz, d.result3.gz exist"):
        write_results(good, tmp_path, method_group="g", battery="t", dataset="d")
    write_results(good, tmp_path, method_group="g", battery="t", dataset="d", overwrite=True)
    assert [p.read_bytes() for p in paths] == first  # reproducible bytes
    loaded = clustbench.load_results("g", "t", "d", [2, 3], path=str(tmp_path))
    np.testing.assert_array_equal(loaded["a"][2], [1, 1, 2, 2])
    np.testing.assert_array_equal(loaded["b"][3], [1, 2, 2, 3])


# --------------------------------------------------------------------------- command line


def test_cli_export_of_clustbench_results(tmp_path, capsys):
    from hawks_deap import cli

    two_labelling_battery(tmp_path / "data")
    ref = clustbench.load_dataset("ref", "tri", path=str(tmp_path / "data"),
                                  preprocess=False)
    args = ["export", str(tmp_path / "data" / "ref"), "--format", "clustbench-results",
            "--algorithms", "average-linkage,kmeans++", "--out", str(tmp_path / "res")]
    assert cli.main(args) == 0
    assert "wrote 2 results files" in capsys.readouterr().out
    loaded = clustbench.load_results("hawks-deap", "ref", "tri", [2, 3],
                                      path=str(tmp_path / "res"))
    table = performance_table([read_battery_dataset(tmp_path / "data" / "ref", "tri")],
                              ["average-linkage", "kmeans++"], score="nca",
                              references="all")
    for name in ("average-linkage", "kmeans++"):
        assert table.column(name)[0] == pytest.approx(
            clustbench.get_score(ref.labels, loaded[name]), abs=1e-12)
    # existing files are refused before any clustering; --overwrite replaces them
    assert cli.main(args) == 2
    assert "tri.result2.gz, tri.result3.gz exist" in capsys.readouterr().err
    assert cli.main([*args, "--overwrite", "--method-group", "g2"]) == 0
    assert cli.main(args[:-4] + ["--out", str(tmp_path / "res")]) == 2  # no --algorithms
    assert "needs --algorithms" in capsys.readouterr().err


def test_cli_results_export_refuses_an_unwritable_out_and_foreign_files_before_clustering(
        tmp_path, capsys, monkeypatch):
    from hawks_deap import cli
    from hawks_deap.analysis import features

    two_labelling_battery(tmp_path / "data")
    clustered = []
    real = features.clustering_results
    monkeypatch.setattr(features, "clustering_results",
                        lambda *a, **k: clustered.append(1) or real(*a, **k))
    base = ["export", str(tmp_path / "data" / "ref"), "--format", "clustbench-results",
            "--algorithms", "kmeans++"]
    (tmp_path / "afile").write_text("x")
    assert cli.main([*base, "--out", str(tmp_path / "afile")]) == 2
    assert "afile exists and is not a directory" in capsys.readouterr().err
    (tmp_path / "res" / "hawks-deap").mkdir(parents=True)
    (tmp_path / "res" / "hawks-deap" / "ref").write_text("a file where the battery goes")
    assert cli.main([*base, "--out", str(tmp_path / "res")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    # a results file of the user's own in the method group: kept, --overwrite or not
    mine = tmp_path / "res2" / "mygroup" / "ref" / "tri.result3.gz"
    mine.parent.mkdir(parents=True)
    with gzip.open(mine, "wt") as fh:
        fh.write("mine\n1\n2\n3\n")
    before = mine.read_bytes()
    group = [*base, "--out", str(tmp_path / "res2"), "--method-group", "mygroup"]
    assert cli.main([*group, "--overwrite"]) == 2
    assert "tri.result3.gz were not written by hawks-deap" in capsys.readouterr().err
    assert mine.read_bytes() == before
    assert clustered == []  # every refusal came before any clustering
    mine.unlink()
    assert cli.main(group) == 0  # its own files, then, it replaces
    assert cli.main([*group, "--overwrite"]) == 0
    assert len(clustered) == 2


def test_features_scores_with_score_and_refuses_an_internal_index(tmp_path, capsys):
    from hawks_deap import cli

    folder = two_labelling_battery(tmp_path / "data")
    args = ["features", str(folder), "--algorithms", "kmeans++,gmm", "--format", "csv"]
    assert cli.main([*args, "--score", "nca"]) == 0
    header, row = capsys.readouterr().out.splitlines()[:2]
    columns = header.split(",")
    assert columns[-2:] == ["nca_kmeans++", "nca_gmm"]
    table = performance_table([read_battery_dataset(folder, "tri")], ["kmeans++", "gmm"],
                              score="nca")
    assert [float(v) for v in row.split(",")[-2:]] == list(table.values[0])
    assert cli.main([*args, "--score", "silhouette"]) == 2
    assert "--score: 'silhouette' is an internal index" in capsys.readouterr().err


def test_the_features_command_scores_every_labelling_with_references_all(tmp_path, capsys):
    """`features --score nca --references all` is clustbench.get_score (the default,
    the --labels K labelling alone, is not: the table says which it is)."""
    from hawks_deap import cli

    folder = two_labelling_battery(tmp_path)
    ds = read_battery_dataset(folder, "tri")
    algorithms = ["single-linkage", "average-linkage"]
    rows = {}
    for given in ([], ["--references", "all"]):
        code = cli.main(["features", str(folder), "--algorithms", ",".join(algorithms),
                         "--score", "nca", "--format", "json", *given])
        out, err = capsys.readouterr()
        assert code == 0, err
        rows[bool(given)] = json.loads(out)[0]
    for references, key in ((None, False), ("all", True)):
        table = performance_table([ds], algorithms, score="nca", references=references)
        assert [rows[key][f"nca_{a}"] for a in algorithms] == table.values[0].tolist()
    assert rows[True]["nca_single-linkage"] > rows[False]["nca_single-linkage"]


def test_exporting_a_dataset_of_several_labellings_says_what_the_copy_holds(tmp_path,
                                                                            capsys):
    """The copy holds the labelling read; its NAME.txt and a note on stderr say so,
    since clustbench then scores it against that labelling alone."""
    from hawks_deap import cli

    folder = two_labelling_battery(tmp_path / "data")
    code = cli.main(["export", str(folder / "tri.data.gz"), "--labels", "1", "--out",
                     str(tmp_path / "out"), "--battery", "copy"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert ("note: 1 battery datasets have several reference labellings (ref/tri: 2); each "
            "copy holds the one read (--labels K) as labels0") in err
    text = (tmp_path / "out" / "copy" / "tri.txt").read_text()
    assert ("Copied from dataset tri of battery ref: `labels0` here is its `labels1`, one of "
            "its 2 reference labellings") in text
    copy = clustbench.load_dataset("copy", "tri", path=str(tmp_path / "out"),
                                   preprocess=False)
    ref = clustbench.load_dataset("ref", "tri", path=str(tmp_path / "data"), preprocess=False)
    assert len(copy.labels) == 1
    np.testing.assert_array_equal(copy.labels[0], ref.labels[1])
