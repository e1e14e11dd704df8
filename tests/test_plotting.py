"""Figures: content checks (artists, labels, titles), not pixels. Agg backend."""

import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Ellipse  # noqa: E402

import hawks_deap as hd  # noqa: E402
from hawks_deap.analysis import plotting  # noqa: E402
from hawks_deap.analysis.features import InstanceSpace, Table  # noqa: E402
from hawks_deap.genome.initialization import haar_rotation  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def make_dataset(d=2, k=3, seed=0, n_per=40):
    rng = np.random.default_rng(seed)
    genes = [hd.genome.Cluster(rng.normal(scale=6, size=d), rng.uniform(0.2, 2.0, size=d),
                        haar_rotation(d, rng)) for _ in range(k)]
    X = np.concatenate([g.sample(rng.standard_normal((n_per, d))) for g in genes])
    y = np.repeat(np.arange(k), n_per)
    return hd.Dataset(X, y, genes, {"record": {"index": 0.4321}})


def ellipses(ax):
    return [p for p in ax.patches if isinstance(p, Ellipse)]


def test_dataset_scatter_with_gene_ellipses():
    ds = make_dataset()
    fig = plotting.plot_dataset(ds, n_std=2.0)
    ax = fig.axes[0]
    assert len(ax.collections) == 3  # one scatter per cluster
    found = ellipses(ax)
    assert len(found) == 3
    for e, gene in zip(found, ds.genotype):
        np.testing.assert_allclose(e.center, gene.mean)
        eig = np.sort(np.linalg.eigvalsh(gene.covariance))[::-1]
        assert e.width == pytest.approx(4 * np.sqrt(eig[0]))
        assert e.height == pytest.approx(4 * np.sqrt(eig[1]))
    assert ax.get_xlabel() == "x0" and ax.get_ylabel() == "x1"
    assert ax.get_title() == "N=120, K=3, D=2, silhouette 0.432"


def test_dataset_projects_high_dimensions_with_pca():
    ds = make_dataset(d=5, k=4)
    fig = plotting.plot_dataset(ds)
    ax = fig.axes[0]
    assert ax.get_xlabel().startswith("PC1") and ax.get_ylabel().startswith("PC2")
    found = ellipses(ax)
    assert len(found) == 4
    centre = ds.X.mean(axis=0)
    _, _, vt = np.linalg.svd(ds.X - centre, full_matrices=False)
    for e, gene in zip(found, ds.genotype):
        expected = (gene.mean - centre) @ vt[:2].T
        np.testing.assert_allclose(np.abs(e.center), np.abs(expected), rtol=1e-9)
        projected = vt[:2] @ gene.covariance @ vt[:2].T
        eig = np.sort(np.linalg.eigvalsh(projected))[::-1]
        assert e.width == pytest.approx(4 * np.sqrt(eig[0]))


def test_dataset_without_genes_uses_sample_covariances_and_given_ax():
    ds = make_dataset()
    fig, axes = plt.subplots(1, 2)
    out = plotting.plot_dataset(ds.X, ds.y, ax=axes[1], title="mine")
    assert out is fig
    found = ellipses(axes[1])
    assert len(found) == 3 and not axes[0].patches
    np.testing.assert_allclose(found[0].center, ds.X[ds.y == 0].mean(axis=0))
    assert axes[1].get_title() == "mine"
    no = plotting.plot_dataset(ds, ellipses=False)
    assert not ellipses(no.axes[0])


def test_dataset_one_dimension():
    ds = make_dataset(d=1, k=2)
    ax = plotting.plot_dataset(ds).axes[0]
    assert not ellipses(ax) and ax.get_xlabel() == "x0" and ax.get_ylabel() == "cluster"


def _battery_dataset_with_noise(tmp_path, d=2):
    """A dataset read from a clustering-benchmarks battery: 3 clusters, 15 noise points."""
    from hawks_deap.io.batteries import NOISE_LABEL, read_battery_dataset, write_battery

    ds = make_dataset(d=d)
    rng = np.random.default_rng(4)
    X = np.concatenate([ds.X, rng.uniform(-20, 20, size=(15, d))])
    y = np.concatenate([ds.y, np.full(15, NOISE_LABEL)])
    noisy = hd.Dataset(X, y, metadata={"noise_label": NOISE_LABEL})
    folder = write_battery([noisy], tmp_path, battery="b", names=["noisy"])
    return read_battery_dataset(folder, "noisy")


def test_noise_points_are_small_grey_and_no_cluster(tmp_path):
    from matplotlib.colors import to_rgba

    ds = _battery_dataset_with_noise(tmp_path)
    noise = ds.noise_mask
    assert noise.sum() == 15
    ax = plotting.plot_dataset(ds).axes[0]
    first, *clusters = ax.collections
    assert first.get_label() == "noise"
    np.testing.assert_array_equal(first.get_offsets(), ds.X[noise])
    np.testing.assert_allclose(first.get_facecolors()[0][:3], to_rgba("0.6")[:3])
    assert [c.get_label() for c in clusters] == ["0", "1", "2"]
    for c, collection in enumerate(clusters):
        np.testing.assert_array_equal(collection.get_offsets(), ds.X[ds.y == c])
        assert first.get_sizes()[0] < collection.get_sizes()[0]
        grey = np.allclose(collection.get_facecolors()[0][:3], to_rgba("0.6")[:3])
        assert not grey
    found = ellipses(ax)  # one per cluster, of its own points (no genes read)
    assert len(found) == 3
    for c, e in enumerate(found):
        np.testing.assert_allclose(e.center, ds.X[ds.y == c].mean(axis=0))
    assert ax.get_title() == f"N={len(ds.X)}, K=3, D=2"
    # labels given apart from the dataset carry no noise mark: -1 is a cluster then
    ax = plotting.plot_dataset(ds.X, ds.y).axes[0]
    assert [c.get_label() for c in ax.collections] == ["-1", "0", "1", "2"]


def test_noise_points_of_one_dimension_have_their_own_row(tmp_path):
    ds = _battery_dataset_with_noise(tmp_path, d=1)
    ax = plotting.plot_dataset(ds).axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["noise", "0", "1", "2"]
    assert ax.get_yticks().tolist() == [-1, 0, 1, 2]
    np.testing.assert_array_equal(ax.collections[0].get_offsets()[:, 1], -1)


def test_convergence_from_a_real_logbook(small_problem):
    result = hd.evolve(small_problem, population_size=4, generations=5, seed=0)
    fig = plotting.plot_convergence(result.logbook, target=0.5)
    ax, twin = fig.axes
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["best fitness", "median fitness", "index value (best)", "target 0.5"]
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), np.arange(6))
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(),
                               result.logbook.select("fitness_best"))
    assert twin.get_ylabel() == "penalty" and len(twin.get_lines()) == 1
    assert ax.get_xlabel() == "generation"
    assert len(ax.get_legend().get_texts()) == 5


def test_convergence_versus_columns_and_errors():
    rows = [{"gen": g, "fitness_best": 0.1 * g, "fitness_median": 0.05 * g,
             "winner_score": 0.5 + 0.05 * g, "loser_score": 0.5 - 0.05 * g}
            for g in range(4)]
    fig = plotting.plot_convergence(rows)
    assert len(fig.axes) == 1  # no penalty column: no twin axis
    labels = [x.get_label() for x in fig.axes[0].get_lines()]
    assert labels[-2:] == ["winner score", "loser score"]
    with pytest.raises(ValueError, match="fitness_best"):
        plotting.plot_convergence([{"gen": 0}])


def test_versus_panels_titles_and_colour_matching():
    ds = make_dataset(k=3)
    permuted = np.array([2, 0, 1])[ds.y]  # same partition, other label values
    noisy = ds.y.copy()
    noisy[:10] = 1
    fig = plotting.plot_versus(ds.X, ds.y, permuted, noisy, winner="gmm",
                               loser="single-linkage", winner_score=1.0, loser_score=0.25)
    axes = fig.axes
    assert len(axes) == 3
    assert [a.get_title() for a in axes] == ["truth", "winner: gmm  (ARI 1.000)",
                                             "loser: single-linkage  (ARI 0.250)"]
    # a relabelled copy of the truth is drawn in the truth's colours
    truth_colours = [tuple(c.get_facecolor()[0]) for c in axes[0].collections]
    winner_colours = [tuple(c.get_facecolor()[0]) for c in axes[1].collections]
    assert truth_colours == winner_colours
    np.testing.assert_array_equal(plotting._match_colours(ds.y, permuted), ds.y)
    with pytest.raises(ValueError, match="winner_labels"):
        plotting.plot_versus(ds.X, ds.y, ds.y[:5], ds.y)


def test_instance_space_by_source_and_best_algorithm():
    rng = np.random.default_rng(0)
    feats = rng.normal(size=(12, 7))
    space = InstanceSpace().fit(feats)
    coords = space.transform(feats)
    groups = ["HAWKS"] * 6 + ["HK"] * 4 + ["QJ"] * 2
    fig = plotting.plot_instance_space(coords, groups, space=space, legend_title="source")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["HAWKS", "HK", "QJ"]
    assert ax.get_legend().get_title().get_text() == "source"
    assert ax.get_xlabel().startswith("PC1 (") and len(ax.collections) == 3
    assert sum(len(c.get_offsets()) for c in ax.collections) == 12
    with pytest.raises(ValueError, match="one label per dataset"):
        plotting.plot_instance_space(coords, groups[:3])


def test_performance_boxplots_per_algorithm_and_group():
    table = Table(tuple("abcdef"), ("kmeans++", "gmm", "single-linkage"),
                  np.random.default_rng(0).uniform(size=(6, 3)))
    ax = plotting.plot_performance(table).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["kmeans++", "gmm",
                                                            "single-linkage"]
    assert len(ax.patches) == 3 and ax.get_ylabel() == "ARI"
    ax = plotting.plot_performance(table, groups=["x", "y"] * 3).axes[0]
    assert len(ax.get_legend().get_texts()) == 2
    boxes = [p for p in ax.patches if type(p).__name__ == "PathPatch"]
    assert len(boxes) == 6  # 3 algorithms x 2 groups


def test_save_figure_is_atomic_png(tmp_path):
    fig = plotting.plot_dataset(make_dataset())
    path = plotting.save_figure(fig, tmp_path / "sub" / "d.png", dpi=50)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["d.png"]
    assert plotting.figure_bytes(fig, "d.png", dpi=50) == data  # the same file, in memory
    assert plotting.figure_bytes(fig, "d.svg").startswith(b"<?xml")


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"hawks-deap\[plot\]"):
        plotting.plot_dataset(make_dataset())


# --------------------------------------------------------------------------- issue 37, item 6


def _hex(colour):
    return matplotlib.colors.to_hex(colour)


def _scatter_colours(ax):
    """``{legend label: colour}`` of the scatters of an instance space without markers."""
    return {c.get_label(): _hex(c.get_facecolor()[0]) for c in ax.collections}


def test_an_algorithm_keeps_its_colour_across_figures():
    from hawks_deap.clustering import available_algorithms

    coords = np.random.default_rng(1).normal(size=(6, 2))
    first = plotting.plot_instance_space(coords, ["gmm", "kmeans++"] * 3).axes[0]
    second = plotting.plot_instance_space(
        coords, ["birch", "gmm", "tied", "single-linkage", "gmm", "birch"]).axes[0]
    one, two = _scatter_colours(first), _scatter_colours(second)
    assert one["gmm"] == two["gmm"] == plotting.algorithm_colours(["gmm"])["gmm"]
    assert two["tied"] == "#7f7f7f"  # best_algorithms' ties: grey, no algorithm's colour
    # the built-ins: distinct colours by their place in the registry (gmm is second: C1)
    builtins = plotting.algorithm_colours(available_algorithms())
    assert len(set(builtins.values())) == len(builtins) and one["gmm"] == _hex("C1")
    # another name: the same colour whatever the others, none of a built-in's
    mine = plotting.algorithm_colours(["my-algorithm"])["my-algorithm"]
    assert plotting.algorithm_colours(["gmm", "x", "my-algorithm"])["my-algorithm"] == mine
    assert mine not in builtins.values()
    # boxplots and CD diagrams use the same colours
    table = Table(tuple("abcd"), ("single-linkage", "gmm"),
                  np.random.default_rng(2).uniform(size=(4, 2)))
    ax = plotting.plot_performance(table).axes[0]
    faces = [_hex(p.get_facecolor()) for p in ax.patches if type(p).__name__ == "PathPatch"]
    assert faces[1] == one["gmm"] and faces[0] == two["single-linkage"]
    ticks = {t.get_text(): _hex(t.get_color()) for t in ax.get_xticklabels()}
    assert ticks["gmm"] == one["gmm"]
    from hawks_deap.analysis.stats import friedman_nemenyi

    r = friedman_nemenyi(np.random.default_rng(3).uniform(size=(5, 3)),
                         ["birch", "gmm", "kmeans++"])
    ax = plotting.plot_critical_difference(r).axes[0]
    label_lines = [line for line in ax.lines if len(line.get_xdata()) == 3]
    assert {_hex(line.get_color()) for line in label_lines} == {
        two["birch"], one["gmm"], one["kmeans++"]}
    with pytest.raises(TypeError, match="not one string"):
        plotting.algorithm_colours("gmm")


def test_colour_by_best_algorithm_and_marker_by_source():
    coords = np.random.default_rng(4).normal(size=(9, 2))
    best = ["gmm", "kmeans++", "gmm", "tied", "gmm", "kmeans++", "birch", "gmm", "gmm"]
    sources = ["HAWKS"] * 4 + ["SIPU"] * 3 + ["UCI"] * 2
    fig = plotting.plot_instance_space(coords, best, markers=sources, legend_title="best",
                                       colours="algorithms")
    ax = fig.axes[0]
    by_source = {}
    for c in ax.collections:
        source = c.get_gid().removeprefix("marker:")
        by_source.setdefault(source, []).append(c)
    assert sorted(by_source) == ["HAWKS", "SIPU", "UCI"]
    # one marker shape per source, shared by its scatters, another for each source
    shapes = {}
    for source, collections in by_source.items():
        paths = {c.get_paths()[0].vertices.tobytes() for c in collections}
        assert len(paths) == 1, source
        shapes[source] = paths.pop()
    assert len(set(shapes.values())) == 3
    # every point drawn once, in its best algorithm's colour, with its source's shape
    colours = plotting.algorithm_colours(["gmm", "kmeans++", "birch"])
    seen = []
    for c in ax.collections:
        for xy in c.get_offsets():
            i = int(np.flatnonzero(np.all(coords == np.asarray(xy), axis=1))[0])
            seen.append(i)
            assert c.get_gid() == f"marker:{sources[i]}"
            expected = "#7f7f7f" if best[i] == "tied" else colours[best[i]]
            assert _hex(c.get_facecolor()[0]) == expected
    assert sorted(seen) == list(range(9))
    legend = ax.get_legend()  # the colours' legend; the markers' is an extra artist
    assert [t.get_text() for t in legend.get_texts()] == ["birch", "gmm", "kmeans++", "tied"]
    others = [a for a in ax.artists if isinstance(a, matplotlib.legend.Legend)]
    assert [t.get_text() for t in others[0].get_texts()] == ["HAWKS", "SIPU", "UCI"]
    with pytest.raises(ValueError, match="markers must have one label per dataset"):
        plotting.plot_instance_space(coords, best, markers=sources[:3])
    with pytest.raises(ValueError, match="unknown colours 'rainbow'"):
        plotting.plot_instance_space(coords, best, colours="rainbow")
    with pytest.raises(ValueError, match="colours misses the groups"):
        plotting.plot_instance_space(coords, best, colours={"gmm": "red"})


def test_control_diagrams_mark_the_control_and_its_cd_or_holm_group():
    from hawks_deap.analysis.stats import friedman_control

    ranks = np.array([[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 4, 3], [2, 1, 3, 4],
                      [3, 1, 2, 4], [1, 4, 3, 2]])  # average ranks 1.5, 2, 3, 3.5
    names = ["mine", "gmm", "kmeans++", "birch"]
    dunn = friedman_control(5.0 - ranks, "mine", names, method="bonferroni-dunn")
    ax = plotting.plot_critical_difference(dunn).axes[0]
    (cd,) = [line for line in ax.lines if line.get_gid() == "critical-difference"]
    np.testing.assert_allclose(cd.get_xdata(), [1.5 - dunn.critical_difference,
                                                1.5 + dunn.critical_difference])
    (mark,) = [line for line in ax.lines if line.get_gid() == "control"]
    assert list(mark.get_xdata()) == [1.5]
    # birch (3.5) differs, kmeans++ (3.0) and gmm (2.0) do not: one bar from 1.5 to 3.0
    (bar,) = [line for line in ax.lines if line.get_gid() == "not-different"]
    np.testing.assert_allclose(bar.get_xdata(), [1.5 - 0.03, 3.0 + 0.03])
    bold = [t.get_text() for t in ax.texts if t.get_fontweight() == "bold"]
    assert bold == ["mine (1.50)"]
    assert ax.get_title().startswith("Bonferroni-Dunn against mine")
    holm = friedman_control(5.0 - ranks, "mine", names)
    ax = plotting.plot_critical_difference(holm).axes[0]
    assert not [line for line in ax.lines if line.get_gid() == "critical-difference"]
    (bar,) = [line for line in ax.lines if line.get_gid() == "not-different"]
    np.testing.assert_allclose(bar.get_xdata(), [1.5 - 0.03, 3.0 + 0.03])
    assert ax.get_title().startswith("Holm against mine")


def test_plot_command_draws_best_algorithm_by_source(tmp_path):
    from pathlib import Path

    from hawks_deap.cli.plot import _plot_collection
    from hawks_deap.io.collection import CollectionItem

    datasets = [make_dataset(seed=s, n_per=15) for s in range(6)]
    items = [CollectionItem(Path(f"d{s}"), f"d{s}", "HAWKS" if s < 4 else "SIPU")
             for s in range(6)]
    figures = {}

    def save(fig, name):
        figures[name] = fig
        return tmp_path / name

    written = _plot_collection(datasets, items, ["kmeans++", "single-linkage"], 0, save)
    assert [p.name for p in written] == ["instance_space.png", "instance_space_best.png",
                                         "performance.png"]
    ax = figures["instance_space_best.png"].axes[0]
    assert {c.get_gid() for c in ax.collections} == {"marker:HAWKS", "marker:SIPU"}
    assert sum(len(c.get_offsets()) for c in ax.collections) == 6
    # one source: no markers' legend, the shapes follow the groups as before
    one = [item._replace(group="HAWKS") for item in items]
    figures.clear()
    _plot_collection(datasets, one, ["kmeans++", "single-linkage"], 0, save)
    ax = figures["instance_space_best.png"].axes[0]
    assert {c.get_gid() for c in ax.collections} == {None}


def test_cluster_colours_are_never_the_noises_grey_and_a_legend_names_them():
    """12 clusters and noise: 12 colours, none grey (tab10's grey was cluster 7's, next
    to the noise's), the same in the Versus truth panel; a legend, noise first."""
    from matplotlib.colors import to_hex

    rng = np.random.default_rng(0)
    k = 12
    X = rng.normal(size=(k * 10 + 5, 2)) + np.repeat(np.arange(k + 1),
                                                     [10] * k + [5])[:, None]
    y = np.concatenate([np.repeat(np.arange(k), 10), np.full(5, -1)])
    fig = plotting.plot_dataset(hd.Dataset(X, y, metadata={"noise_label": -1}),
                                ellipses=False)
    ax = fig.axes[0]
    colours = {c.get_label(): to_hex(c.get_facecolor()[0]) for c in ax.collections}
    clusters = {colours[str(c)] for c in range(k)}
    assert len(clusters) == k and to_hex("0.6") == colours["noise"]
    assert not any(h[1:3] == h[3:5] == h[5:7] for h in clusters)  # no grey
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["noise", *map(str, range(k))]
    fig = plotting.plot_versus(X[:-5], y[:-5], y[:-5], y[:-5])
    truth = {to_hex(c.get_facecolor()[0]) for c in fig.axes[0].collections}
    assert truth == clusters
    plt.close("all")
