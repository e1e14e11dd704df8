"""The evaluation engine: exactness against naive references, caches, determinism."""

import itertools
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics
from conftest import filter_points, needs_scipy_qr_haar
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist
from scipy.stats import special_ortho_group

import hawks_deap as hd
from hawks_deap.evaluation import (
    ByteLRU,
    Evaluator,
    NaiveEvaluator,
    Tuning,
    _compiled,
    _kernels,
    _overlap,
    _thresholds,
    make_evaluator,
    nearest_neighbour_overlap,
)
from hawks_deap.evaluation._cache import GeneEntry, nbytes_of
from hawks_deap.genome.genotype import Cluster, Genotype, Layout
from hawks_deap.genome.initialization import _rotation_power_schur, haar_rotation, rotation_power

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True, scope="module", params=["numpy", "compiled"])
def engine_path(request):
    """Every test on both paths: the numpy kernels and the optional compiled ones."""
    if request.param == "compiled":
        pytest.importorskip("numba")
    _compiled.set_compiled(request.param == "compiled")
    yield request.param
    _compiled.set_compiled(None)


def brute_overlap(X: np.ndarray, y: np.ndarray) -> float:
    """The definition, from the full matrix of sequential squared distances."""
    d = cdist(X, X, "sqeuclidean")
    d[d == 0] = np.inf  # the point itself and duplicates are ignored
    nearest = d.min(axis=1)
    tie_foreign = (d == nearest[:, None]) & (y[None, :] != y[:, None])
    return float(np.mean(np.isfinite(nearest) & tie_foreign.any(axis=1)))


def oracle_silhouette(X: np.ndarray, y: np.ndarray, metric: str) -> float:
    """Mean silhouette with long-double distances (an oracle independent of both paths)."""
    Xl = X.astype(np.longdouble)
    diff = Xl[:, None, :] - Xl[None, :, :]
    sq = np.einsum("ijk,ijk->ij", diff, diff)
    dist = sq if metric == "sqeuclidean" else np.sqrt(sq)
    labels = np.unique(y)
    sums = np.stack([dist[:, y == c].sum(axis=1) for c in labels], axis=1)
    counts = np.array([np.sum(y == c) for c in labels], dtype=np.longdouble)
    own = np.searchsorted(labels, y)
    rows = np.arange(len(y))
    with np.errstate(divide="ignore", invalid="ignore"):
        a = sums[rows, own] / (counts[own] - 1)
        means = sums / counts
    means[rows, own] = np.inf
    b = means.min(axis=1)
    s = np.where(counts[own] > 1, (b - a) / np.maximum(a, b), 0)
    return float(np.mean(s))


def random_genes(rng: np.random.Generator, k: int, d: int, spread: float) -> list[Cluster]:
    genes = []
    for _ in range(k):
        mean = rng.uniform(-spread, spread, d)
        variances = 10.0 ** rng.uniform(-3, 0.5, d)
        genes.append(Cluster(mean, variances, haar_rotation(d, rng)))
    return genes


def variants(rng: np.random.Generator, genes: list[Cluster]) -> list[list[Cluster]]:
    """A genotype and relatives sharing most genes (exercises every cache path)."""
    k = len(genes)
    out = [list(genes)]
    moved = list(genes)
    moved[0] = moved[0].with_mean(moved[0].mean + rng.normal(0, 0.3, moved[0].n_dims))
    out.append(moved)
    reshaped = list(moved)
    j = k - 1
    reshaped[j] = reshaped[j].with_shape(reshaped[j].variances[::-1].copy(),
                                         haar_rotation(reshaped[j].n_dims, rng))
    out.append(reshaped)
    out.append(list(genes))  # back to the first: everything cached
    swapped = list(genes)
    swapped[0], swapped[-1] = genes[-1].with_mean(genes[0].mean), genes[0].with_mean(
        genes[-1].mean)
    out.append(swapped)
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 6),
       d=st.sampled_from([1, 2, 3, 5, 8, 9, 16]), spread=st.sampled_from([0.3, 2.0, 20.0]),
       small=st.booleans())
def test_fast_equals_naive_on_random_genotypes(seed, k, d, spread, small):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1 if small else 5, 8 if small else 60, size=k)
    layout = Layout(sizes, d, rng=rng)
    fast_sq = Evaluator(layout)
    fast_eu = Evaluator(layout, metric="euclidean")
    naive = NaiveEvaluator(layout)
    y = layout.labels
    for genes in variants(rng, random_genes(rng, k, d, spread)):
        g = Genotype(genes)
        X, _ = layout.sample(g)
        np.testing.assert_array_equal(fast_sq.points(g), X)
        # overlap: exactly the definition (ties, duplicates), fast and naive alike
        expected = brute_overlap(X, y)
        assert fast_sq.overlap(g) == expected
        assert fast_eu.overlap(g) == expected
        assert naive.overlap(g) == expected
        if len(np.unique(y)) < 2 or X.shape[0] <= k:
            continue
        for fast, metric in ((fast_sq, "sqeuclidean"), (fast_eu, "euclidean")):
            value = fast.silhouette(g)
            assert value == pytest.approx(oracle_silhouette(X, y, metric), rel=1e-12,
                                          abs=1e-14)
            # scikit-learn's Euclidean distances come from |x|^2 + |y|^2 - 2 x.y, whose
            # cancellation costs it up to ~1e-12 here; its squared Euclidean ones are exact
            tol = 1e-12 if metric == "sqeuclidean" else 1e-10
            ref = sklearn.metrics.silhouette_score(X, y, metric=metric)
            assert value == pytest.approx(ref, rel=tol, abs=1e-14)


@pytest.mark.parametrize("d, tree_min_size", [(2, 400), (6, 0), (6, 10**9), (12, 400)])
def test_fast_overlap_on_converged_like_genotypes(d, tree_min_size):
    """Separated and crowded clusters; KD-trees or matrix products at D=6."""
    rng = np.random.default_rng(d)
    layout = Layout(rng.integers(30, 120, size=8), d, rng=rng)
    fast = Evaluator(layout, tuning=Tuning(tree_min_size=tree_min_size))
    for spread in (30.0, 3.0, 0.2):
        genes = random_genes(rng, 8, d, spread)
        for genes_v in variants(rng, genes):
            g = Genotype(genes_v)
            X, y = layout.sample(g)
            assert fast.overlap(g) == brute_overlap(X, y)
            ref = sklearn.metrics.silhouette_score(X, y, metric="sqeuclidean")
            assert fast.silhouette(g) == pytest.approx(ref, rel=1e-12)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 6),
       d=st.sampled_from([1, 2, 3, 8, 16]), spread=st.sampled_from([0.3, 2.0, 20.0]),
       cap=st.sampled_from([None, 300]))
def test_prefetched_batch_gives_the_same_overlaps(seed, k, d, spread, cap):
    """A batch's missing pairs computed together: the same values, nothing left to do.

    With a small cap on a batch's points, the genotypes go in several batches or alone.
    """
    rng = np.random.default_rng(seed)
    layout = Layout(rng.integers(5, 80, size=k), d, rng=rng)
    batch = [Genotype(v) for v in variants(rng, random_genes(rng, k, d, spread))]
    batch += [Genotype(v) for v in variants(rng, random_genes(rng, k, d, spread))]
    # offspring-like recombinations of the two families (new pairs of known genes)
    batch += [Genotype([batch[i][j] if rng.random() < 0.5 else batch[5 + i][j]
                        for j in range(k)]) for i in range(5)]
    tuning = Tuning() if cap is None else Tuning(prefetch_points=cap)
    fast, plain = Evaluator(layout, tuning=tuning), Evaluator(layout)
    fast.prefetch_overlap(batch)
    if cap is None and not _overlap.grid_pass(fast.store):
        # the prefetch measured every genotype's overlap (its evaluation reads it)
        assert {keys for keys, (_, value) in fast.store.prefetched.items()
                if value is not None} == {tuple(g.key for g in gt) for gt in batch}
    computed = []
    real = _overlap.overlap_pairs

    def counting(store, table, missing):
        if store is fast.store:
            computed.append(missing)
        return real(store, table, missing)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_overlap, "overlap_pairs", counting)
        for g in batch:
            X, y = layout.sample(g)
            assert fast.overlap(g) == plain.overlap(g) == brute_overlap(X, y)
    if cap is None:
        assert computed == []  # every pair came from the batch
    assert pickle.loads(pickle.dumps(fast.store)).prefetched == {}  # not shipped to workers


@pytest.mark.parametrize("global_cost", [0.0, 1e9])
def test_whole_dataset_pass_and_pairwise_path_agree(global_cost):
    """Low dimension: 0 forces the whole-dataset pass, 1e9 the pair-by-pair path."""
    rng = np.random.default_rng(5)
    layout = Layout(rng.integers(10, 60, size=12), 2, rng=rng)
    fast = Evaluator(layout, tuning=Tuning(global_cost=global_cost))
    for spread in (0.5, 5.0):
        for genes in variants(rng, random_genes(rng, 12, 2, spread)):
            g = Genotype(genes)
            X, y = layout.sample(g)
            assert fast.overlap(g) == brute_overlap(X, y)


@pytest.mark.parametrize("direct, slotwise", [(0, 0), (0, 1 << 40), (1 << 40, 0)])
def test_silhouette_reductions_agree_with_sklearn(direct, slotwise):
    """The closed form from per-gene blocks reduced slot by slot (large N K) or all at
    once (small N K), or from one block measured at every call (small N K D)."""
    rng = np.random.default_rng(8)
    layout = Layout([1, 40, 25, 60], 3, rng=rng)  # with a singleton
    fast = Evaluator(layout, tuning=Tuning(direct_silhouette=direct,
                                           slotwise_silhouette=slotwise))
    for genes in variants(rng, random_genes(rng, 4, 3, 2.0)):
        g = Genotype(genes)
        X, y = layout.sample(g)
        ref = sklearn.metrics.silhouette_score(X, y, metric="sqeuclidean")
        assert fast.silhouette(g) == pytest.approx(ref, rel=1e-12)


def _grid_layout(z_rows: list[list[list[float]]]) -> Layout:
    z = [np.array(rows, dtype=float) for rows in z_rows]
    return Layout([len(r) for r in z_rows], z[0].shape[1], z=z)


def _unit_gene(mean) -> Cluster:
    mean = np.asarray(mean, dtype=float)
    return Cluster(mean, np.ones(mean.size), np.eye(mean.size))


@pytest.mark.parametrize("evaluator", ["fast", "naive"])
def test_ties_count_as_overlap_and_duplicates_are_ignored(evaluator):
    # cluster 0: (0,0), (2,0), (0,0) duplicated; cluster 1: (0,2), (0,5)
    # (0,0): nearest positive distance 4, reached by (2,0) (own) and (0,2) (foreign): tie
    layout = _grid_layout([[[0, 0], [2, 0], [0, 0]], [[0, 2], [0, 5]]])
    g = Genotype([_unit_gene([0, 0]), _unit_gene([0, 0])])
    X, y = layout.sample(g)
    e = make_evaluator(evaluator, layout)
    expected = brute_overlap(X, y)
    # flags: (0,0) x2 tie -> True; (2,0): nearest (0,0) own -> False;
    # (0,2): nearest (0,0) foreign at 4 -> True; (0,5): nearest (0,2) own -> False
    assert expected == pytest.approx(3 / 5)
    assert e.overlap(g) == expected
    assert nearest_neighbour_overlap(X, y) == expected


@pytest.mark.parametrize("d", [2, 10])
def test_duplicate_points_across_clusters_and_singletons(d):
    rng = np.random.default_rng(0)
    z0 = rng.standard_normal((6, d))
    z1 = np.vstack([z0[:2], rng.standard_normal((3, d))])  # two points duplicated
    z2 = rng.standard_normal((1, d))  # a singleton
    layout = Layout([6, 5, 1], d, z=[z0, z1, z2])
    gene = Cluster(np.zeros(d), np.full(d, 0.5), haar_rotation(d, rng))
    g = Genotype([gene, gene, Cluster(np.full(d, 0.1), np.ones(d), np.eye(d))])
    X, y = layout.sample(g)
    fast = Evaluator(layout)
    assert fast.overlap(g) == brute_overlap(X, y)
    assert fast.silhouette(g) == pytest.approx(
        sklearn.metrics.silhouette_score(X, y, metric="sqeuclidean"), rel=1e-12)


@pytest.mark.parametrize("d, small_cluster", [(2, None), (12, None), (12, 0)])
def test_own_thresholds_of_translated_shapes_are_exact(d, small_cluster):
    """o(i) from the shape's nearest neighbour where the translation margin allows it,
    measured otherwise: far translations (rounding merges points), grid ties, duplicates,
    one tie among many certified points; KD-tree certificates at D=2, at D=12 whole
    distance blocks or (``small_cluster=0``) matrix-product candidates."""
    rng = np.random.default_rng(11)
    grid = np.array(list(itertools.product(range(5), repeat=2)), dtype=float)
    z_tie = np.hstack([grid, np.zeros((25, d - 2))])
    z_tie = np.vstack([z_tie, z_tie[:3]])  # three duplicated points
    apex = np.full(d, 9.0)
    step = np.eye(d)[0] * 0.01
    z_apex = np.vstack([apex, apex + step, apex - step])  # the apex has two nearest points
    z = [np.vstack([rng.standard_normal((150, d)), z_apex]), z_tie,
         rng.standard_normal((2, d))]
    layout = Layout([len(zk) for zk in z], d, z=z)
    fast = Evaluator(layout, tuning=Tuning() if small_cluster is None
                     else Tuning(small_cluster=small_cluster))
    store = fast.store
    base = [Cluster(np.zeros(d), 10.0 ** rng.uniform(-2, 0, d), haar_rotation(d, rng)),
            Cluster(np.zeros(d), np.full(d, 0.01), np.eye(d)),
            Cluster(np.zeros(d), np.ones(d), haar_rotation(d, rng))]
    certified = []
    for shift in (0.0, 0.7, 1e3, 1e9):
        g = Genotype([gene.with_mean(gene.mean + shift * (1 + slot))
                      for slot, gene in enumerate(base)])
        X, y = layout.sample(g)
        for slot, gene in enumerate(g):
            entry = store.gene(slot, gene)
            got = _thresholds.own_thresholds(store, slot, gene, entry)
            block = cdist(X[y == slot], X[y == slot], "sqeuclidean")
            block[block <= 0] = np.inf
            np.testing.assert_array_equal(got, block.min(axis=1))
            assert _thresholds.reach_bound(store, slot, gene, entry) >= got.max()
            if store.low_dims and _compiled.available():
                continue  # the compiled sweep needs no shape certificate
            margin = store.shape(slot, gene).own_margin
            slack = _kernels.abs_slack(d, max(entry.maxabs, store.shape(slot, gene).maxabs))
            certified.append(float(np.mean(margin > slack)))
        assert fast.overlap(g) == brute_overlap(X, y)
    if certified:
        # both paths ran: most points certified near the origin, few after a 1e9 shift
        assert max(certified) > 0.9 and min(certified) < 0.1


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), d=st.integers(1, 24),
       log_var=st.floats(-30, 6), shift=st.sampled_from([0.0, 1.0, 1e6, 1e12]))
def test_reach_bound_is_an_upper_bound_on_own_thresholds(seed, n, d, log_var, shift):
    """`_reach_bound` bounds max o(i) from above (inf if it cannot), for any scale or
    translation (tiny variances far from the origin merge points in floating point)."""
    rng = np.random.default_rng(seed)
    layout = Layout([n, 3], d, rng=rng)
    fast = Evaluator(layout)
    variances = 10.0 ** (log_var + rng.uniform(-2, 2, d))
    gene = Cluster(np.full(d, shift) + rng.normal(size=d), variances, haar_rotation(d, rng))
    entry = fast.store.gene(0, gene)
    bound = _thresholds.reach_bound(fast.store, 0, gene, entry)
    P = entry.points
    block = cdist(P, P, "sqeuclidean")
    block[block <= 0] = np.inf
    own = block.min(axis=1)
    assert bound >= own.max()
    assert np.array_equal(_thresholds.own_thresholds(fast.store, 0, gene, entry), own)


def test_far_apart_genes_need_no_own_thresholds():
    """Pairs proven empty by the bound leave the genes' nearest-neighbour passes undone;
    the overlap is still the definition's."""
    rng = np.random.default_rng(3)
    d = 10
    layout = Layout([40, 50, 30], d, rng=rng)
    fast = Evaluator(layout)
    genes = [Cluster(np.full(d, 100.0 * k), np.full(d, 0.5), haar_rotation(d, rng))
             for k in range(3)]
    g = Genotype(genes)
    X, y = layout.sample(g)
    assert fast.overlap(g) == brute_overlap(X, y) == 0.0
    assert all(fast.store.gene(k, gene).own_nn is None for k, gene in enumerate(genes))
    crowded = Genotype([genes[0], genes[1].with_mean(genes[0].mean + 0.1), genes[2]])
    X, y = layout.sample(crowded)
    assert fast.overlap(crowded) == brute_overlap(X, y) > 0.0
    assert fast.store.gene(0, genes[0]).own_nn is not None


def test_euclidean_block_sums_are_cdist_sums():
    """Distances as square roots of sequential squared distances (cdist's own bits); a
    row's (column's) sum has the same bits whichever rows (columns) are measured with it,
    and either way."""
    rng = np.random.default_rng(4)
    P = rng.normal(size=(150, 3)) * [5.0, 0.1, 1.0] + 1e3
    Q = rng.normal(size=(90, 3)) + 1e3
    d = cdist(P, Q, "euclidean")
    np.testing.assert_array_equal(_kernels.euclidean_rows(P, Q), d.sum(axis=1))
    np.testing.assert_array_equal(_kernels.euclidean_rows(P[[5, 70, 149]], Q),
                                  d[[5, 70, 149]].sum(axis=1))
    both = _kernels.euclidean_block_sums(P, Q)
    np.testing.assert_array_equal(both[0], _kernels.euclidean_rows(P, Q))
    np.testing.assert_array_equal(both[1], _kernels.euclidean_cols(P, Q))
    np.testing.assert_array_equal(_kernels.euclidean_cols(P, Q[[3, 4, 88]]), both[1][[3, 4, 88]])
    np.testing.assert_allclose(both[1], d.sum(axis=0), rtol=1e-14)
    for R in (P, rng.normal(size=(600, 3)) + 50.0):  # one block; 12 blocks of rows
        np.testing.assert_allclose(_kernels.euclidean_intra_sums(R),
                                   cdist(R, R, "euclidean").sum(axis=1), rtol=1e-14)


def test_results_do_not_depend_on_cache_history_or_budget():
    rng = np.random.default_rng(3)
    layout = Layout(rng.integers(20, 80, size=6), 2, rng=rng)
    genotypes = [Genotype(v) for v in variants(rng, random_genes(rng, 6, 2, 2.0))]
    genotypes += [Genotype(random_genes(rng, 6, 2, 2.0)) for _ in range(4)]
    for metric in ("sqeuclidean", "euclidean"):
        cold = [(Evaluator(layout, metric=metric).silhouette(g),
                 Evaluator(layout, metric=metric).overlap(g)) for g in genotypes]
        warm_eval = Evaluator(layout, metric=metric)
        warm = [(warm_eval.silhouette(g), warm_eval.overlap(g)) for g in genotypes]
        tiny_eval = Evaluator(layout, metric=metric, cache_bytes=20_000)
        tiny = [(tiny_eval.silhouette(g), tiny_eval.overlap(g)) for g in reversed(genotypes)]
        assert cold == warm == tiny[::-1]  # bit for bit
        assert tiny_eval.cache.nbytes <= 20_000 and tiny_eval.cache.evictions > 0


@pytest.mark.parametrize("metric, d", [("sqeuclidean", 3), ("euclidean", 2)])
def test_pair_entries_live_on_gene_entries_and_count_in_the_budget(metric, d):
    """Overlap pairs (D = 3) and Euclidean sums (D = 2) are held by the lower slot's gene
    entry under its partner's uid: charged to that entry, and measured again under new
    uids once the entries are gone, with the same values."""
    rng = np.random.default_rng(8)
    layout = Layout(rng.integers(20, 60, size=5), d, rng=rng)
    genotypes = [Genotype(v) for v in variants(rng, random_genes(rng, 5, d, 1.0))]
    ev = Evaluator(layout, metric=metric)
    first = [(ev.silhouette(g), ev.overlap(g)) for g in genotypes]
    entries = {key: e for key, e in ev.cache._data.items() if isinstance(e, GeneEntry)}
    table = "partners" if metric == "sqeuclidean" else "eu_partners"
    assert sum(len(getattr(e, table)) for e in entries.values()) > 0
    for key, e in entries.items():
        held = [*e.partners.values(), *e.eu_partners.values()]
        assert e.partner_bytes == sum(nbytes_of(v) + GeneEntry.PAIR_OVERHEAD for v in held)
        assert ev.cache._sizes[key] == e.nbytes + ev.cache.OVERHEAD  # put again as it grew
    assert sum(ev.cache._sizes.values()) == ev.cache.nbytes
    uids = [e.uid for e in entries.values()]
    assert len(set(uids)) == len(uids)
    issued = ev.store._uids
    ev.cache.clear()
    assert [(ev.silhouette(g), ev.overlap(g)) for g in genotypes] == first
    assert min(e.uid for e in ev.cache._data.values() if isinstance(e, GeneEntry)) >= issued


@pytest.mark.parametrize("slotwise", [0, 1 << 40])
def test_cached_silhouette_of_recombined_genes_is_history_free(slotwise):
    """Genes last evaluated in different genotypes (offspring of two parents) bring
    different stale columns; the values are those of fresh evaluators, bit for bit."""
    rng = np.random.default_rng(11)
    k, d = 7, 5
    layout = Layout(rng.integers(10, 40, size=k), d, rng=rng)
    tuning = Tuning(direct_silhouette=0, slotwise_silhouette=slotwise)
    first = [Genotype(v) for v in variants(rng, random_genes(rng, k, d, 2.0))]
    second = [Genotype(v) for v in variants(rng, random_genes(rng, k, d, 2.0))]
    mixed = [Genotype([a[j] if rng.random() < 0.5 else b[j] for j in range(k)])
             for a, b in zip(first, second, strict=False)]
    genotypes = first + second + mixed + mixed[::-1]
    cold = [Evaluator(layout, tuning=tuning).silhouette(g) for g in genotypes]
    warm_eval = Evaluator(layout, tuning=tuning)
    warm = [warm_eval.silhouette(g) for g in genotypes]
    back_eval = Evaluator(layout, tuning=tuning)
    back = [back_eval.silhouette(g) for g in reversed(genotypes)]
    assert cold == warm == back[::-1]
    X, y = layout.sample(mixed[0])
    ref = sklearn.metrics.silhouette_score(X, y, metric="sqeuclidean")
    assert cold[len(first) + len(second)] == pytest.approx(ref, rel=1e-12)


def test_byte_lru_respects_budget_and_evicts_least_recent():
    over = ByteLRU.OVERHEAD
    cache = ByteLRU(1000 + 2 * over)
    a, b, c = np.zeros(50), np.zeros(50), np.zeros(50)  # 400 bytes each
    cache.put("a", a)
    cache.put("b", b)
    assert cache.get("a") is a  # a is now the most recent
    cache.put("c", c)  # 1200 + 3 overheads > budget: evicts b, the least recently used
    assert "b" not in cache and "a" in cache and "c" in cache
    assert cache.nbytes == 800 + 2 * over and cache.evictions == 1
    cache.put("big", np.zeros(200))  # larger than the budget: not stored
    assert "big" not in cache and cache.nbytes == 800 + 2 * over
    cache.put("a", np.zeros(10))  # re-put re-measures
    assert cache.nbytes == 480 + 2 * over
    assert cache.get_many(["a", "zzz", "c"])[1] is None
    stats = cache.stats()
    assert stats["entries"] == 2 and stats["max_bytes"] == 1000 + 2 * over
    before = cache.stats()
    assert cache.absent(["a", "zzz", "c", "b"]) == ["zzz", "b"]
    assert cache.stats() == before  # absent touches nothing and counts nothing
    cache.clear()
    assert len(cache) == 0 and cache.nbytes == 0
    # put_many is puts in order: the same entries, bytes and evictions
    values = [("x", np.zeros(40)), ("y", np.zeros(60)), ("x", np.zeros(5)),
              ("z", np.zeros(70)), ("w", (np.zeros(3), np.zeros(4)))]
    one, many = ByteLRU(1100 + 2 * over), ByteLRU(1100 + 2 * over)
    for key, value in values:
        one.put(key, value)
    many.put_many([k for k, _ in values], [v for _, v in values])
    assert list(one._data) == list(many._data) and one.stats() == many.stats()
    # get_many is gets in order: the same values, recency order and counts (duplicates too)
    lookups = ["z", "nope", "x", "w", "z", "x", "nope"]
    single = [one.get(k) for k in lookups]
    assert [v is w for v, w in zip(many.get_many(lookups), single, strict=True)] == [True] * 7
    assert list(one._data) == list(many._data) and one.stats() == many.stats()
    state = (list(many._data), many.stats())
    with pytest.raises(ValueError, match="same length"):  # keys and values must pair up
        many.put_many(["q", "r"], [np.zeros(3)])
    assert (list(many._data), many.stats()) == state  # nothing stored: nbytes stays true
    with pytest.raises(TypeError, match="cache_bytes must be an integer"):
        ByteLRU(1.5)
    with pytest.raises(ValueError, match="cache_bytes must be >= 0"):
        ByteLRU(-1)


def test_evaluator_cache_fills_past_small_budget_and_stays_bounded():
    budget = 150_000
    p = hd.IndexProblem(600, 5, 3, 0.5, constraints=[hd.Overlap(max=0.1)], cache_bytes=budget)
    r = hd.evolve(p, population_size=6, generations=8, seed=4)
    cache = p.evaluator.cache
    assert cache.nbytes <= budget and cache.evictions > 0
    assert sum(cache._sizes.values()) == cache.nbytes  # the accounting is exact
    big = hd.IndexProblem(600, 5, 3, 0.5, constraints=[hd.Overlap(max=0.1)])
    r_big = hd.evolve(big, population_size=6, generations=8, seed=4)
    assert [i.key for i in r.population] == [i.key for i in r_big.population]


@pytest.mark.parametrize("n, k, d, metric", [
    (300, 4, 2, "sqeuclidean"),
    (240, 5, 12, "sqeuclidean"),
    (200, 3, 2, "euclidean"),
])
def test_seeded_run_fast_and_naive_agree(n, k, d, metric):
    runs = {}
    for name in ("fast", "naive"):
        p = hd.IndexProblem(n, k, d, 0.5, metric=metric, evaluator=name,
                            constraints=[hd.Overlap(max=0.1)])
        runs[name] = (p, hd.evolve(p, population_size=6, generations=12, seed=11))
    (pf, rf), (pn, rn) = runs["fast"], runs["naive"]
    # same selection at every step: same final population, same best, same datasets
    assert [i.key for i in rf.population] == [i.key for i in rn.population]
    assert rf.best.key == rn.best.key
    Xf, yf = pf.sample(rf.best)
    Xn, yn = pn.sample(rn.best)
    assert Xf.tobytes() == Xn.tobytes() and yf.tobytes() == yn.tobytes()
    assert rf.best.record["overlap"] == rn.best.record["overlap"]
    assert rf.best.fitness.values[0] == pytest.approx(rn.best.fitness.values[0], rel=1e-12,
                                                      abs=1e-15)
    assert [row["n_feasible"] for row in rf.logbook] == [row["n_feasible"] for row in rn.logbook]


def test_evaluator_accepts_data_arrays_and_pickles_without_cache():
    p = hd.IndexProblem(300, 3, 2, 0.5, constraints=[hd.Overlap(max=0.1)])
    p.prepare(np.random.default_rng(2))
    ind = p.random_individual(np.random.default_rng(3))
    ev = p.evaluator
    X = ev.points(ind)
    assert ev.overlap(X) == ev.overlap(ind)
    assert ev.silhouette(X) == pytest.approx(ev.silhouette(ind), rel=1e-12)
    clone = pickle.loads(pickle.dumps(ev))
    assert len(clone.cache) == 0 and clone.cache.max_bytes == ev.cache.max_bytes
    assert clone.overlap(ind) == ev.overlap(ind)
    assert clone.silhouette(ind) == ev.silhouette(ind)


@pytest.mark.parametrize("n_dims", [2, 3])
def test_the_overlap_of_a_data_array_is_the_exact_reference_ties_included(n_dims):
    """What a Versus evaluation measures (its data built for the clustering calls) is
    the reference's count, bit for bit: in 2-D through the compiled grid pass where it
    was built; data on a coarse lattice make ties and duplicate points."""
    from hawks_deap.evaluation.reference import overlap_flags

    p = hd.IndexProblem(400, 4, n_dims, 0.5, constraints=[hd.Overlap(max=0.1)])
    p.prepare(np.random.default_rng(4))
    ev = p.evaluator
    rng = np.random.default_rng(5)
    for step in range(12):
        X = ev.points(p.random_individual(rng))
        if step % 2:
            X = np.round(X * 2.0) / 2.0  # a lattice: equal distances, repeated points
        assert ev.overlap(X) == float(np.mean(overlap_flags(X, ev.store.codes)))


def test_evaluator_choice_is_validated():
    with pytest.raises(ValueError, match="unknown evaluator 'slow'.*'fast', 'naive'"):
        hd.IndexProblem(100, 3, 2, 0.5, evaluator="slow")
    with pytest.raises(ValueError, match="unknown evaluator"):
        make_evaluator("fastest", Layout([5, 5], 2, rng=np.random.default_rng(0)))
    with pytest.raises(TypeError, match="cache_bytes"):
        hd.IndexProblem(100, 3, 2, 0.5, cache_bytes="1GB")


def test_sequential_rows_match_cdist_bitwise():
    # the one-call reduction (two rows or more) and the loop (one row) alike; dimensions
    # around numpy's 8-way unrolling, where a pairwise sum would differ
    rng = np.random.default_rng(0)
    for d in (1, 2, 7, 8, 9, 16, 20, 50, 130):
        for m in (1, 2, 3, 17, 200):
            a = rng.standard_normal((m, d)) * rng.uniform(0.01, 100, d) + 3.0
            b = rng.standard_normal((m, d)) + 3.0
            full = cdist(a, b, "sqeuclidean")
            rows = _kernels.sqdist_rows(a, b)
            np.testing.assert_array_equal(rows, np.diagonal(full))
            np.testing.assert_array_equal(rows, _kernels.sqdist_sequential(a, b))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(2, 30), power=st.floats(0.0, 1.5))
def test_rotation_power_matches_schur_form_and_stays_a_rotation(seed, d, power):
    q = haar_rotation(d, np.random.default_rng(seed))
    r = rotation_power(q, power)
    np.testing.assert_allclose(r, _rotation_power_schur(q, power), atol=1e-10)
    np.testing.assert_allclose(r @ r.T, np.eye(d), atol=1e-13)
    assert np.linalg.det(r) == pytest.approx(1.0, abs=1e-12)


def test_rotation_power_half_turns():
    half = np.diag([-1.0, -1.0, 1.0])  # exact half turn: through the Schur form
    r = rotation_power(half, 0.5)
    np.testing.assert_allclose(r @ r, half, atol=1e-12)
    np.testing.assert_allclose(rotation_power(np.eye(4), 0.3), np.eye(4))

@needs_scipy_qr_haar
def test_haar_draw_is_scipys():
    for d in (2, 5, 20):
        a = haar_rotation(d, np.random.default_rng(d))
        b = special_ortho_group.rvs(d, random_state=np.random.default_rng(d))
        np.testing.assert_array_equal(a, b)  # the same draw as scipy's


def test_benchmark_quick_runs():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_index.py"),
                          "--quick"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "speed-up" in out.stdout and "| a |" in out.stdout


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 300),
       d=st.sampled_from([1, 2, 4, 9, 12]), grid=st.sampled_from([2, 4, 50, 0]))
def test_plain_overlap_pass_matches_brute_force_with_ties(seed, n, d, grid):
    # integer grids make exact ties and duplicates common; grid 0: continuous data;
    # D <= 8 takes the KD-tree pass, D = 9 and 12 the blocked matrix-product pass
    rng = np.random.default_rng(seed)
    X = rng.integers(0, grid, size=(n, d)).astype(float) if grid else rng.normal(size=(n, d))
    y = rng.integers(0, 3, size=n)
    assert nearest_neighbour_overlap(X, y) == brute_overlap(X, y)


def test_thread_limits_are_reentrant_and_restore():
    from threadpoolctl import threadpool_info, threadpool_limits

    from hawks_deap._util.threads import blas_thread_limit, native_thread_limit

    def threads(api):
        return [i["num_threads"] for i in threadpool_info() if i["user_api"] == api]

    with threadpool_limits(limits=2):
        before = {api: threads(api) for api in ("blas", "openmp")}
        assert before["blas"] and all(n == 2 for n in before["blas"])  # something to cap
        with native_thread_limit(1):
            assert all(n == 1 for n in threads("blas") + threads("openmp"))
            with native_thread_limit(1), blas_thread_limit(1):
                assert all(n == 1 for n in threads("blas") + threads("openmp"))
            assert all(n == 1 for n in threads("blas") + threads("openmp"))
        assert {api: threads(api) for api in ("blas", "openmp")} == before
        with blas_thread_limit(1):
            assert all(n == 1 for n in threads("blas"))
            assert threads("openmp") == before["openmp"]
        assert {api: threads(api) for api in ("blas", "openmp")} == before


def _brute_hits(X, rows, cols, o_r, oc, seg, n_seg):
    s = cdist(X[rows], X[cols], "sqeuclidean")  # sequential sums: the exact s
    rows_hit = np.zeros((rows.size, n_seg), dtype=bool)
    within = (s > 0) & (s <= o_r[:, None])
    for t in range(n_seg):
        rows_hit[:, t] = within[:, seg == t].any(axis=1)
    cols_hit = ((s > 0) & (s <= oc[None, :])).any(axis=0)
    return rows_hit, cols_hit


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.sampled_from([3, 9, 16, 50]),
       kind=st.sampled_from(["normal", "grid", "far", "tiny", "huge", "mixed"]),
       test_rows=st.booleans())
def test_dense_hits_equal_brute_force(seed, d, kind, test_rows):
    """The matrix-product filter (single precision where it is safe, `dense_operands`)
    never loses a capture: thresholds set to exact distances (s == o), duplicates
    (s == 0), data far from the origin, tiny or too large for single precision."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 120))
    X = filter_points(rng, n, d, kind)  # huge: double operands
    Q, qn = _kernels.dense_operands(X)
    assert Q.dtype == (np.float64 if kind == "huge" else np.float32)
    perm = rng.permutation(n)
    a = int(rng.integers(1, n))
    rows, cols = np.sort(perm[:a]), perm[a:]
    if cols.size == 0:
        return
    n_seg = int(rng.integers(1, 4))
    seg = np.sort(rng.integers(0, n_seg, size=cols.size))
    s = cdist(X, X, "sqeuclidean")
    # thresholds: the exact distance to a random point (ties with s), scaled, or inf
    o = s[np.arange(n), rng.integers(0, n, size=n)] * rng.choice([1.0, 1.0, 0.5, 2.0], size=n)
    o[rng.random(n) < 0.05] = np.inf
    expected = _brute_hits(X, rows, cols, o[rows], o[cols], seg, n_seg)
    got = _kernels.dense_hits(Q, qn, X, rows, cols, o[rows] if test_rows else None, o[cols],
                              seg, n_seg)
    if test_rows:
        np.testing.assert_array_equal(got[0], expected[0])
    else:
        assert not got[0].any()
    np.testing.assert_array_equal(got[1], expected[1])
