"""The C kernels (`_native.c`): the same values as the numpy path and brute force.

Oracles: ``scipy.spatial.distance.cdist(..., "sqeuclidean")`` over the full block, the
exact KD-tree reference (`overlap_flags`), the numpy silhouette path and scikit-learn's
silhouette; ties and duplicates come from integer grids. The extension is built at
install wherever a C compiler is found: a machine with one and no extension fails here
(the build broke), a machine without one skips.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import types

import numpy as np
import pytest
from conftest import filter_points
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

import hawks_deap as hd
from hawks_deap.evaluation import _compiled, _kernels, _overlap
from hawks_deap.evaluation._cache import GeneEntry, Shape
from hawks_deap.evaluation.reference import overlap_flags
from hawks_deap.genome.products import shape_points


def _compiler_found() -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None or sys.platform == "win32"


try:
    from hawks_deap.evaluation import _native  # noqa: F401
except ImportError:
    if _compiler_found():
        raise  # a compiler was there at install: the extension should have been built
    pytest.skip("no C compiler: the C kernels were not built", allow_module_level=True)


@pytest.fixture(autouse=True)
def native_on():
    _compiled.set_compiled(None)
    assert _compiled.native()
    yield
    _compiled.set_compiled(None)


def grid_points(rng, n, d, grid, scale=1.0, shift=0.0):
    """Points on a coarse integer grid (ties and duplicates), scaled and shifted."""
    return rng.integers(0, grid, size=(n, d)).astype(float) * scale + shift


def brute_flags(X: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Overlap flags from the full block: a foreign point at the smallest positive s."""
    block = cdist(X, X, "sqeuclidean")
    block[block <= 0.0] = np.inf
    nearest = block == block.min(axis=1, keepdims=True)
    foreign = codes[None, :] != codes[:, None]
    return (nearest & foreign & np.isfinite(block)).any(axis=1)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 5),
       st.sampled_from(["random", "grid", "grid-shifted", "line", "clumps"]))
def test_grid_pass_equals_brute_force_and_kd_tree(seed, d, k, kind):
    """The whole-dataset grid pass: ties, duplicates, flat and clumped data (any D)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 250))
    if kind == "random":
        X = rng.normal(size=(n, d)) * rng.uniform(0.01, 100, size=d)
    elif kind == "line":  # zero extent on every axis but one
        X = np.zeros((n, d))
        X[:, -1] = rng.integers(0, 9, n) * 0.3
    elif kind == "clumps":  # a few dense clumps far apart: crowded cells, refined once
        X = rng.normal(size=(3, d))[rng.integers(0, 3, n)] * 1e4 + rng.normal(size=(n, d))
    else:
        X = grid_points(rng, n, d, 5, 0.1, 1e3 if kind == "grid-shifted" else 0.0)
    codes = rng.integers(0, k, n).astype(np.intp)
    got = _compiled.grid_overlap_flags(X, codes)
    np.testing.assert_array_equal(got, brute_flags(X, codes))
    np.testing.assert_array_equal(got, overlap_flags(X, codes))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("spread", [0.3, 1.0, 3.0])
def test_grid_pass_on_touching_clusters(seed, spread):
    """Gaussian clusters that touch, as evolved datasets do: most points are decided by
    their own block of cells alone (`pure_block_clear`), the rest by the ring scan."""
    rng = np.random.default_rng(seed)
    k = 6
    sizes = rng.integers(50, 700, k)
    X = np.concatenate([rng.normal(size=(m, 2)) * rng.uniform(0.2, 1.5, 2) * spread
                        + rng.uniform(-4, 4, 2) for m in sizes])
    if seed % 2:
        X = np.round(X, 2)  # ties and duplicates
    codes = np.repeat(np.arange(k), sizes)
    np.testing.assert_array_equal(_compiled.grid_overlap_flags(X, codes),
                                  overlap_flags(X, codes))


@pytest.mark.parametrize("base", [0, 2**53 - 3, 2**62, -(2**62)])
def test_grid_pass_labels_of_any_size(base):
    """Two-dimensional rows are tested two at a time with their labels as doubles; labels
    beyond 2^53 (no exact double) take the one-by-one test, the same flags."""
    rng = np.random.default_rng(11)
    X = np.round(rng.normal(size=(400, 2)), 1)  # crowded cells, ties and duplicates
    codes = (base + rng.integers(0, 4, 400)).astype(np.int64)
    np.testing.assert_array_equal(_compiled.grid_overlap_flags(X, codes),
                                  brute_flags(X, codes))


def test_grid_pass_of_degenerate_data():
    codes = np.array([0, 1, 1])
    assert _compiled.grid_overlap_flags(np.zeros((0, 2)), codes[:0]).shape == (0,)
    np.testing.assert_array_equal(_compiled.grid_overlap_flags(np.ones((3, 2)), codes),
                                  [False] * 3)  # no positive distance at all
    # a duplicate pair of two clusters (s = 0 ignored), and a tie own / foreign at 25
    X = np.array([[0.0, 0.0], [0.0, 0.0], [3.0, 4.0]])
    np.testing.assert_array_equal(_compiled.grid_overlap_flags(X, codes), [True, False, True])
    np.testing.assert_array_equal(overlap_flags(X, codes), [True, False, True])
    huge = np.array([[-1e308, 0.0], [1e308, 1.0], [0.0, 2.0]])  # extent overflows
    assert _compiled.grid_overlap_flags(huge, codes) is None
    for bad in (np.nan, np.inf):  # a coordinate that is not finite: another path
        assert _compiled.grid_overlap_flags(np.array([[0.0, 0.0], [bad, 1.0], [2.0, 2.0]]),
                                            codes) is None
    # a view in another order and other dtypes are taken as their C-ordered float64 copy
    Y = np.asfortranarray(np.array([[0, 0], [1, 0], [5, 5]]))
    np.testing.assert_array_equal(_compiled.grid_overlap_flags(Y, codes.astype(np.int32)),
                                  overlap_flags(Y.astype(float), codes))


def test_threads_evaluating_at_once_get_their_own_scratch():
    """The kernels keep scratch arrays between calls, one set per thread: threads that
    run them at once (they release the GIL) each get the values of a call alone."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(3)
    cases = []
    for i in range(24):
        n = int(rng.integers(200, 3000))
        X = rng.normal(size=(n, 2)) * rng.uniform(0.5, 3.0) + rng.integers(0, 3, (n, 1))
        cases.append((X, rng.integers(0, 1 + i % 5, n)))
    want = [overlap_flags(X, codes) for X, codes in cases]
    with ThreadPoolExecutor(4) as ex:
        for _ in range(3):
            got = list(ex.map(lambda c: _compiled.grid_overlap_flags(*c), cases))
            assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_the_extension_checks_its_buffers():
    """Called directly with wrong sizes, the kernels refuse instead of reading past."""
    X, codes, out = np.zeros((4, 2)), np.zeros(4, dtype=np.int64), np.zeros(4, dtype=bool)
    with pytest.raises(ValueError, match="X: 64 bytes, expected 80"):
        _native.grid_flags(X, codes, out, 5, 2)
    with pytest.raises(ValueError, match="offs: not non-decreasing"):
        _native.silhouette_2d(X, np.array([0, 3, 2], dtype=np.int64), np.zeros((2, 2)),
                              np.ones(2), np.ones(2), np.ones(2), np.empty(4), 4, 2)
    with pytest.raises(TypeError):
        _native.grid_flags(X, codes, b"read-only out", 4, 2)


def _overlap_pairs_cached(store) -> int:
    """How many overlap pair entries the store's gene entries hold."""
    return sum(len(e.partners) for e in store.cache._data.values() if isinstance(e, GeneEntry))


def test_two_dimensions_take_the_grid_pass_and_cache_no_pairs():
    problem = hd.IndexProblem(n_samples=600, n_clusters=4, n_dims=2, target=0.5,
                              constraints=[hd.Overlap(max=0.1)])
    hd.evolve(problem, population_size=6, generations=3, seed=1)
    assert _overlap_pairs_cached(problem.evaluator.store) == 0
    _compiled.set_compiled(False)
    problem = hd.IndexProblem(n_samples=600, n_clusters=4, n_dims=2, target=0.5,
                              constraints=[hd.Overlap(max=0.1)])
    hd.evolve(problem, population_size=6, generations=3, seed=1)
    assert _overlap_pairs_cached(problem.evaluator.store) > 0


@pytest.mark.parametrize("cfg", [dict(n_samples=700, n_clusters=5, n_dims=2, target=0.5),
                                 dict(n_samples=300, n_clusters=3, n_dims=2, target=0.9)])
def test_runs_are_identical_with_and_without_the_extension(cfg, monkeypatch):
    """A build without a compiler (the extension missing) takes the numpy path at D = 2
    (the cached pairs, and numba's sweeps where installed): the same run, byte for byte."""
    def run():
        problem = hd.IndexProblem(**cfg, constraints=[hd.Overlap(max=0.1)])
        result = hd.evolve(problem, population_size=8, generations=12, seed=5)
        return ([i.fitness.values for i in result.population],
                result.best_dataset().X.tobytes())

    with_c = run()
    monkeypatch.setitem(_compiled._state, "native", False)
    assert not _compiled.native()
    assert run() == with_c


def test_forcing_the_compiled_path_without_the_extension_is_an_error(monkeypatch):
    monkeypatch.setitem(_compiled._state, "native", False)
    _compiled.set_compiled(True)
    with pytest.raises(ImportError, match="the C kernels were not built at install"):
        _compiled.native()


def test_a_two_dimensional_run_never_imports_numba():
    """The C kernels take every evaluation at D = 2: numba's 0.4 s load is not paid, even
    by a run long enough to announce it (`PLAN_WORK`)."""
    code = ("import sys, hawks_deap as hd; p = hd.IndexProblem(2000, 5, 2, target=0.5, "
            "constraints=[hd.Overlap(max=0.1)]); hd.evolve(p, population_size=10, "
            "generations=40, seed=0); print('numba' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != _compiled.ENV}
    assert 10 * 41 * 2000 >= _compiled.PLAN_WORK
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out == "False\n"


def _two_dim_genotype(rng, k: int, grid: bool):
    """K two-dimensional genes: rotated Gaussians, or unit genes at integer means (ties)."""
    from hawks_deap.genome.genotype import Cluster, Genotype

    genes = []
    for _ in range(k):
        if grid:
            genes.append(Cluster(rng.integers(0, 4, 2).astype(float), np.ones(2), np.eye(2)))
            continue
        t = rng.uniform(0, np.pi)
        rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        genes.append(Cluster(rng.normal(size=2) * 3.0, rng.uniform(0.05, 2.0, 2), rot))
    return Genotype(genes)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(0, 1 << 40), (1 << 40, 1 << 40), (0, 0)]),
       st.booleans())
def test_silhouette_in_two_dimensions_has_the_numpy_paths_bits(seed, sizes, grid):
    """The compiled per-point silhouette, at every size (the numpy path takes one block
    per call, or cached blocks reduced together or slot by slot): the same bits,
    singletons and ties included, and scikit-learn's value."""
    import sklearn.metrics

    from hawks_deap.evaluation import Evaluator, Tuning
    from hawks_deap.genome.genotype import Layout

    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 40, size=int(rng.integers(2, 7))).tolist()
    if grid:  # points on an integer grid: many equal distances and duplicates
        layout = Layout(counts, 2, z=[grid_points(rng, n, 2, 3) for n in counts])
    else:
        layout = Layout(counts, 2, rng=rng)
    g = _two_dim_genotype(rng, len(counts), grid)
    tuning = Tuning(direct_silhouette=sizes[0], slotwise_silhouette=sizes[1])
    _compiled.set_compiled(None)  # each example (the fixture runs once per test)
    calls = []
    real = _compiled.silhouette_points
    _compiled.silhouette_points = lambda *a: calls.append(1) or real(*a)
    try:
        got = Evaluator(layout, tuning=tuning).silhouette(g)
    finally:
        _compiled.silhouette_points = real
    assert calls
    _compiled.set_compiled(False)
    want = Evaluator(layout, tuning=tuning).silhouette(g)
    assert got == want
    X, y = layout.sample(g)
    if len(np.unique(y)) > 1:
        ref = sklearn.metrics.silhouette_score(X, y, metric="sqeuclidean")
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-12)


def _genes_above_two(rng, k: int, d: int, grid: bool) -> list:
    """K genes in D > 2: rotated Gaussians, or unit genes at integer means (ties)."""
    from hawks_deap.genome.genotype import Cluster
    from hawks_deap.genome.initialization import haar_rotation

    if grid:
        return [Cluster(rng.integers(0, 3, d).astype(float), np.ones(d), np.eye(d))
                for _ in range(k)]
    return [Cluster(rng.normal(size=d) * 2.0, rng.uniform(0.05, 2.0, d), haar_rotation(d, rng))
            for _ in range(k)]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 21), st.booleans(), st.booleans())
def test_cached_silhouette_above_two_dimensions_has_the_numpy_paths_bits(seed, d, slotwise,
                                                                        grid):
    """The compiled silhouette from the genes' cached blocks (`silhouette_genes`): along
    one history of genotypes (two parents' genes, mixed, mutated, revisited), each
    value has the bits of the numpy path's, singletons, duplicates and ties included, and
    scikit-learn's value. Sizes around the kernel's eight lanes and its scalar tail."""
    import sklearn.metrics

    from hawks_deap.evaluation import Evaluator, Tuning
    from hawks_deap.genome.genotype import Genotype, Layout

    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    counts = [int(c) for c in rng.choice([1, 2, 7, 8, 9, 16, 17, 30], size=k)]
    if grid:
        layout = Layout(counts, d, z=[grid_points(rng, n, d, 3) for n in counts])
    else:
        layout = Layout(counts, d, rng=rng)
    first = _genes_above_two(rng, k, d, grid)
    second = _genes_above_two(rng, k, d, grid)
    mixed = [first[j] if rng.random() < 0.5 else second[j] for j in range(k)]
    moved = list(mixed)
    moved[0] = moved[0].with_mean(moved[0].mean + 1.0)
    history = [Genotype(g) for g in (first, second, mixed, moved, first, mixed)]
    tuning = Tuning(direct_silhouette=0, slotwise_silhouette=0 if slotwise else 1 << 40)
    _compiled.set_compiled(None)  # each example (the fixture runs once per test)
    calls = []
    real = _compiled.silhouette_genes
    _compiled.silhouette_genes = lambda *a: calls.append(1) or real(*a)
    try:
        compiled = Evaluator(layout, tuning=tuning)
        got = [compiled.silhouette(g) for g in history]
    finally:
        _compiled.silhouette_genes = real
    assert len(calls) == len(history)
    _compiled.set_compiled(False)
    numpy_path = Evaluator(layout, tuning=tuning)
    assert got == [numpy_path.silhouette(g) for g in history]
    X, y = layout.sample(history[2])
    if 1 < len(np.unique(y)) < len(y):  # scikit-learn's domain
        ref = sklearn.metrics.silhouette_score(X, y, metric="sqeuclidean")
        assert got[2] == pytest.approx(ref, rel=1e-12, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 20_000), st.integers(1, 12),
       st.sampled_from(["plain", "negzero", "inf", "nan", "huge", "fortran"]))
def test_column_means_have_numpys_bits(seed, n, d, kind):
    """A gene's centroid (`Shape.c0`): `col_means` in C, numpy's ``mean(axis=0)`` bits."""
    rng = np.random.default_rng(seed)
    P = rng.normal(size=(n, d)) * 10.0 ** rng.integers(-8, 8, size=d)
    if kind == "negzero":
        P[:, 0] = -0.0
    elif kind == "inf":
        P[rng.integers(0, n), 0] = np.inf
    elif kind == "nan":
        P[rng.integers(0, n), -1] = np.nan
    elif kind == "huge":
        P[:, -1] = 1e308  # the sum overflows
    elif kind == "fortran":
        P = np.asfortranarray(P)
    with np.errstate(over="ignore"):  # (numpy's fallback, one column, warns too)
        expected = P.mean(axis=0)
        got = _compiled.col_means(P)
    assert got.tobytes() == expected.tobytes()


def test_column_means_check_numpys_order_once():
    assert _compiled.col_means(np.ones((3, 2))).tolist() == [1.0, 1.0]
    assert _compiled._state["rows_in_order"] is True  # this numpy: rows in order, from 0.0


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3000),
       st.sampled_from(["plain", "zeros", "negzero", "tiny", "huge", "zero-variance",
                        "fortran"]))
def test_a_new_shape_in_one_call_has_the_numpy_paths_bits(seed, n, kind):
    """`Shape.of_gene` in two dimensions (`shape_2d` in C): p0, c0, scatter and radius of
    `shape_points` and `Shape`'s numpy arithmetic, bit for bit."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 2))
    variances = np.abs(rng.normal(size=2)) * 10.0 ** rng.integers(-8, 8, size=2)
    rotation = np.linalg.qr(rng.normal(size=(2, 2)))[0]
    if kind == "zeros":
        z[rng.random((n, 2)) < 0.3] = 0.0
    elif kind == "negzero":
        z[rng.random((n, 2)) < 0.3] = -0.0
        rotation[rng.random((2, 2)) < 0.5] = -0.0
    elif kind == "tiny":
        z *= 1e-160  # products underflow to subnormals and zeros
    elif kind == "huge":
        z *= 1e150  # squared distances overflow
    elif kind == "zero-variance":
        variances[rng.integers(0, 2)] = 0.0
    elif kind == "fortran":
        z, rotation = np.asfortranarray(z), np.asfortranarray(rotation)
    with np.errstate(over="ignore", invalid="ignore"):
        got = Shape.of_gene(z, variances, rotation)
        want = Shape(shape_points(z, variances, rotation))
    assert got.p0.tobytes() == want.p0.tobytes()
    assert got.c0.tobytes() == want.c0.tobytes()
    assert np.array_equal([got.scatter, got.radius], [want.scatter, want.radius],
                          equal_nan=True)
    assert np.copysign(1.0, got.scatter) == np.copysign(1.0, want.scatter)
    assert not got.p0.flags.writeable


def test_a_new_shape_takes_numpy_where_the_call_does_not_apply():
    """One row or more, two dimensions, the C kernels: otherwise `shape_2d` declines."""
    z = np.random.default_rng(0).normal(size=(5, 3))
    assert _compiled.shape_2d(z, np.ones(3), np.eye(3)) is None
    assert _compiled.shape_2d(np.empty((0, 2)), np.ones(2), np.eye(2)) is None
    assert _compiled.shape_2d(z[:, :2], np.ones(2), np.eye(2)) is not None
    _compiled.set_compiled(False)
    assert _compiled.shape_2d(z[:, :2], np.ones(2), np.eye(2)) is None
    with pytest.raises(ValueError, match="z: 64 bytes, expected 80"):
        _native.shape_2d(np.zeros((4, 2)), np.ones(2), np.eye(2), np.empty((5, 2)),
                         np.empty(2), np.empty(5), 5)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.sampled_from([3, 9, 50]),
       kind=st.sampled_from(["normal", "grid", "far", "tiny", "mixed"]),
       block=st.sampled_from([1, 7, 1 << 21]))
def test_pivot_passes_equal_brute_force(seed, d, kind, block):
    """An overlap pass's exact test of its candidates, pivot by pivot: the compiled call
    (`_compiled.pivot_hits`, its products through BLAS from C) and the numpy loop
    (`_overlap._dense_side_hits`) both give brute force's answer, for any set of pairs
    and candidates, thresholds equal to exact distances, duplicates, and blocks of any
    size."""
    rng = np.random.default_rng(seed)
    n_genes = int(rng.integers(2, 9))
    sizes = rng.integers(1, 15, size=n_genes)
    offs = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    n = int(offs[-1])
    X = filter_points(rng, n, d, kind)
    gene = np.repeat(np.arange(n_genes), sizes)
    s = cdist(X, X, "sqeuclidean")  # sequential sums: the exact s
    o = s[np.arange(n), rng.integers(0, n, size=n)] * rng.choice([1.0, 1.0, 0.5, 2.0], size=n)
    o[rng.random(n) < 0.05] = np.inf
    all_pairs = [(j, m) for j in range(n_genes) for m in range(j + 1, n_genes)]
    chosen = [p for p in all_pairs if rng.random() < 0.7] or all_pairs[:1]
    order = rng.permutation(len(chosen))  # pairs in any order, either gene first
    pairs = [chosen[i][::-1] if rng.random() < 0.5 else chosen[i] for i in order]
    J = np.array([j for j, _ in pairs], dtype=np.intp)
    M = np.array([m for _, m in pairs], dtype=np.intp)
    pair_c, q_c, point = [], [], []
    for p, (j, m) in enumerate(pairs):
        for q in (j, m):
            rows = np.arange(offs[q], offs[q + 1])
            for r in rows[rng.random(rows.size) < 0.6]:
                pair_c.append(p)
                q_c.append(q)
                point.append(r)
    pair_c, q_c, point = (np.array(v, dtype=np.intp) for v in (pair_c, q_c, point))
    target = np.where(q_c == J[pair_c], M[pair_c], J[pair_c])
    within = (s > 0) & (s <= o[:, None])
    expected = np.array([within[x, gene == t].any() for x, t in zip(point, target)],
                        dtype=bool)
    Q, qn = _kernels.dense_operands(X)
    assert Q.dtype == np.float32
    got = _compiled.pivot_hits(Q, qn, X, o, offs, J, M, pair_c, q_c, point,
                               _kernels.limit_terms32(d), block)
    assert got is not None  # scipy ships the capsule
    np.testing.assert_array_equal(got, expected)
    table = types.SimpleNamespace(X=X, offs_arr=offs, sizes_arr=sizes, entries=[None] * n_genes)
    _compiled.set_compiled(False)
    try:
        loop = _overlap._dense_side_hits(None, table, J, M, np.arange(J.size), q_c, pair_c,
                                         point, o)
    finally:
        _compiled.set_compiled(None)
    np.testing.assert_array_equal(loop, expected)


def test_pivot_hits_rejects_bad_indices():
    """The compiled call checks every index before it reads memory."""
    X = np.zeros((4, 3))
    Q, qn = _kernels.dense_operands(X)
    offs = np.array([0, 2, 4])
    J, M = np.array([0]), np.array([1])
    o = np.ones(4)
    terms = _kernels.limit_terms32(3)
    with pytest.raises(ValueError, match="candidate outside"):
        _compiled.pivot_hits(Q, qn, X, o, offs, J, M, np.array([0]), np.array([0]),
                             np.array([3]), terms, 64)  # row 3 is gene 1's
    with pytest.raises(ValueError, match="pair of one gene"):
        _compiled.pivot_hits(Q, qn, X, o, offs, J, J, np.array([0]), np.array([0]),
                             np.array([0]), terms, 64)
    with pytest.raises(TypeError, match="single precision"):
        _compiled.pivot_hits(X, qn, X, o, offs, J, M, np.array([0]), np.array([0]),
                             np.array([0]), terms, 64)  # double operands: not this kernel's
    with pytest.raises(ValueError, match="offs"):
        _compiled.pivot_hits(Q, qn, X, o, np.array([0, 3, 2]), J, M, np.array([0]),
                             np.array([0]), np.array([0]), terms, 64)


def test_runs_without_the_blas_capsule_take_the_same_path(monkeypatch):
    """Where scipy exports no ``sgemm``, the overlap's pivots fall back to numpy's products
    with `dense_scan`; without the extension, to numpy alone: the same run either way."""

    def run():
        problem = hd.IndexProblem(n_samples=400, n_clusters=6, n_dims=12, target=0.4,
                                  constraints=[hd.Overlap(max=0.1)])
        result = hd.evolve(problem, population_size=6, generations=8, seed=7)
        X, y = problem.sample(result.best)
        return X.tobytes(), y.tobytes(), [ind.key for ind in result.population]

    calls = []
    real = _compiled.pivot_hits
    monkeypatch.setattr(_compiled, "pivot_hits", lambda *a: calls.append(1) or real(*a))
    with_capsule = run()
    assert calls  # the compiled pivots ran
    monkeypatch.setitem(_compiled._state, "sgemm", None)
    assert run() == with_capsule
    _compiled.set_compiled(False)
    assert run() == with_capsule
