"""The optional numba overlap kernels (D <= 8): the same decisions as the numpy path.

Oracles: ``scipy.spatial.distance.cdist(..., "sqeuclidean")`` (the sequential squared
distance every decision is taken on) over the full block, and the numpy kernels
(`tree_hits`, `own_nn_dense`) themselves; ties and duplicates come from integer grids,
where many distances are equal and the thresholds are hit exactly.
"""

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

import hawks_deap as hd
from hawks_deap.evaluation import _compiled, _kernels

numba = pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def compiled_on():
    _compiled.set_compiled(True)
    assert _compiled.available()
    yield
    _compiled.set_compiled(None)


def brute_own(P: np.ndarray) -> np.ndarray:
    block = cdist(P, P, "sqeuclidean")
    block[block <= 0.0] = np.inf
    return block.min(axis=1) if P.shape[0] else np.zeros(0)


def brute_hits(Q: np.ndarray, o: np.ndarray, P: np.ndarray) -> np.ndarray:
    block = cdist(Q, P, "sqeuclidean")
    return ((block > 0.0) & (block <= o[:, None])).any(axis=1)


def grid_points(rng, n, d, grid, scale=1.0, shift=0.0):
    """Points on a coarse integer grid (ties and duplicates), scaled and shifted."""
    return rng.integers(0, grid, size=(n, d)).astype(float) * scale + shift


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("d", [1, 2, 3, 5])
@pytest.mark.parametrize("kind", ["random", "grid", "grid-shifted"])
def test_own_thresholds_equal_brute_force_and_numpy_path(seed, d, kind):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 300))
    if kind == "random":
        P = rng.normal(size=(n, d)) * rng.uniform(0.01, 100, size=d)
    else:
        # a shift that does not round-trip: distances tie or differ by a rounding only
        P = grid_points(rng, n, d, 6, 0.1, 1e3 if kind == "grid-shifted" else 0.0)
    got = _compiled.own_nn_sweep(P)
    np.testing.assert_array_equal(got, brute_own(P))
    np.testing.assert_array_equal(got, _kernels.own_nn_dense(P, small_cluster=0))


def test_own_thresholds_of_degenerate_clusters():
    assert _compiled.own_nn_sweep(np.zeros((0, 2))).shape == (0,)
    np.testing.assert_array_equal(_compiled.own_nn_sweep(np.ones((1, 2))), [np.inf])
    np.testing.assert_array_equal(_compiled.own_nn_sweep(np.ones((4, 3))), [np.inf] * 4)
    P = np.array([[0.0, 0.0], [0.0, 0.0], [3.0, 4.0]])
    np.testing.assert_array_equal(_compiled.own_nn_sweep(P), [25.0, 25.0, 25.0])


def _numpy_hits(Q, o, P):
    mean = P.mean(axis=0)
    P0 = P - mean
    Pr = mean + P0  # the target as the engine holds it: fl(mean + p0)
    mag = max(float(np.abs(P0).max()), float(np.abs(Pr).max()), float(np.abs(Q).max()))
    return Pr, _kernels.tree_hits(Q, o, Pr, mean, cKDTree(P0),
                                  _kernels.abs_slack(P.shape[1], mag))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("d", [1, 2, 4])
def test_capture_test_equals_brute_force_and_kd_tree(seed, d):
    rng = np.random.default_rng(seed)
    n_t, n_q = int(rng.integers(1, 200)), int(rng.integers(1, 300))
    P = grid_points(rng, n_t, d, 8, 0.25, 7.0)
    Q = grid_points(rng, n_q, d, 8, 0.25, 7.0)
    # thresholds that are exactly some distance of the block (ties at the boundary),
    # zero, or larger than every distance
    block = cdist(Q, P, "sqeuclidean")
    o = block[np.arange(n_q), rng.integers(0, n_t, n_q)]
    o[rng.random(n_q) < 0.1] = 0.0
    o[rng.random(n_q) < 0.05] = np.inf
    Pr, want = _numpy_hits(Q, o, P)
    X = np.concatenate([Pr, Q])
    offs = np.array([0, n_t, n_t + n_q])
    got = _compiled.sweep_hits(X, offs, np.arange(n_q) + n_t, o, np.zeros(n_q, np.intp))
    np.testing.assert_array_equal(got, brute_hits(Q, o, Pr))
    np.testing.assert_array_equal(got, want)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 5), st.integers(2, 40))
def test_capture_test_over_several_targets(seed, d, n_genes, grid):
    """Candidates of several query genes against several targets in one call."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 40, n_genes)  # empty genes too
    X = grid_points(rng, int(sizes.sum()), d, grid, 1.0 / grid)
    offs = np.concatenate([[0], np.cumsum(sizes)])
    m = int(rng.integers(0, 60))
    if X.shape[0] == 0 or m == 0:
        return
    point = rng.integers(0, X.shape[0], m)
    tgt = rng.integers(0, n_genes, m)
    o = rng.choice([0.0, 1.0 / grid**2, 2.0 / grid**2, 0.05, np.inf], m)
    got = _compiled.sweep_hits(X, offs, point, o, tgt)
    want = np.array([brute_hits(X[point[c]][None], o[c:c + 1],
                                X[offs[tgt[c]]:offs[tgt[c] + 1]])[0]
                     if sizes[tgt[c]] else False for c in range(m)])
    np.testing.assert_array_equal(got, want)


def test_squared_distance_bits_are_the_sequential_sum():
    """No fused multiply-add: every distance has the bits of cdist's sequential sum."""
    from hawks_deap.evaluation import _numba_kernels as nk

    rng = np.random.default_rng(5)
    for d in (2, 3, 8):
        P = rng.normal(size=(400, d)) * 1e4 + rng.normal(size=d) * 1e7
        q = P[0] + rng.normal(size=d) * 1e-3
        got = np.array([nk.sq(P, k, q) for k in range(P.shape[0])])
        want = cdist(P, q[None], "sqeuclidean")[:, 0]
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got, _kernels.sqdist_rows(P, np.tile(q, (400, 1))))


@pytest.mark.parametrize("cfg", [dict(n_samples=600, n_clusters=4, n_dims=2),
                                 dict(n_samples=500, n_clusters=6, n_dims=3),
                                 dict(n_samples=900, n_clusters=3, n_dims=6)])
def test_evolved_runs_are_identical_on_both_paths(cfg):
    out = []
    for flag in (False, True):
        _compiled.set_compiled(flag)
        problem = hd.IndexProblem(**cfg, target=0.5, constraints=[hd.Overlap(max=0.1)])
        result = hd.evolve(problem, population_size=8, generations=15, seed=3)
        out.append(([ind.fitness.values for ind in result.population],
                    result.best_dataset().X.tobytes()))
    assert out[0] == out[1]


def test_switch_is_validated():
    with pytest.raises(TypeError, match="flag must be True, False or None, got 'yes'"):
        _compiled.set_compiled("yes")  # type: ignore[arg-type]
    _compiled.set_compiled(None)
    old = os.environ.get(_compiled.ENV)
    os.environ[_compiled.ENV] = "fast"
    try:
        with pytest.raises(ValueError, match="HAWKS_DEAP_COMPILED must be 0, 1 or unset, "
                                             "got 'fast'"):
            _compiled.available()
    finally:
        if old is None:
            del os.environ[_compiled.ENV]
        else:
            os.environ[_compiled.ENV] = old


def _modules_after(code: str, env_value: str) -> str:
    env = dict(os.environ, **{_compiled.ENV: env_value})
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True).stdout


def test_numba_is_imported_only_by_an_evaluation_that_uses_it():
    check = "import sys; print('numba' in sys.modules)"
    assert _modules_after("import hawks_deap; " + check, "") == "False\n"
    # three dimensions: at D = 2 the C kernels take every evaluation (test_native.py)
    run = ("import hawks_deap as hd; p = hd.IndexProblem(200, 3, 3, target=0.5, "
           "constraints=[hd.Overlap(max=0.1)]); hd.evolve(p, population_size=10, "
           "generations=2, seed=0); ")
    assert _modules_after(run + check, "0") == "False\n"
    # a short run stays below the switch (`SWITCH_WORK` candidates): no import
    assert _modules_after(run + check, "") == "False\n"
    assert _modules_after(run + check, "1") == "True\n"


def test_a_process_switches_after_enough_work_with_the_same_results(monkeypatch):
    """Unforced, the numpy path runs until `SWITCH_WORK` candidates, then the compiled one."""
    cfg = dict(n_samples=800, n_clusters=5, n_dims=3, target=0.5,
               constraints=[hd.Overlap(max=0.1)])
    _compiled.set_compiled(False)
    want = hd.evolve(hd.IndexProblem(**cfg), population_size=8, generations=20, seed=4)
    _compiled.set_compiled(None)
    monkeypatch.setattr(_compiled, "SWITCH_WORK", 2000)
    monkeypatch.setitem(_compiled._state, "tried", False)
    monkeypatch.setitem(_compiled._state, "kernels", None)
    seen = []
    real = _compiled.sweep_hits
    monkeypatch.setattr(_compiled, "sweep_hits", lambda *a: seen.append(1) or real(*a))
    got = hd.evolve(hd.IndexProblem(**cfg), population_size=8, generations=20, seed=4)
    assert _compiled._state["work"] >= 2000 and seen  # switched mid-run
    assert [i.fitness.values for i in got.population] == \
        [i.fitness.values for i in want.population]
    assert got.best_dataset().X.tobytes() == want.best_dataset().X.tobytes()


def test_a_run_that_announces_enough_work_uses_the_kernels_from_its_start(monkeypatch):
    """`evolve` announces P (G + 1) evaluations (`Problem.expect`); from `PLAN_WORK`
    point-evaluations every evaluation takes the compiled path, with the same results."""
    cfg = dict(n_samples=300, n_clusters=4, n_dims=3, target=0.5,
               constraints=[hd.Overlap(max=0.1)])
    _compiled.set_compiled(False)
    want = hd.evolve(hd.IndexProblem(**cfg), population_size=6, generations=8, seed=2)
    real = _compiled.sweep_hits
    _compiled.set_compiled(True)
    forced: list[int] = []
    monkeypatch.setattr(_compiled, "sweep_hits",
                        lambda *a: forced.append(1) or real(*a))
    hd.evolve(hd.IndexProblem(**cfg), population_size=6, generations=8, seed=2)
    _compiled.set_compiled(None)
    planned = 6 * 9 * 300
    for plan_work, loads in ((planned + 1, False), (planned, True)):
        monkeypatch.setattr(_compiled, "PLAN_WORK", plan_work)
        monkeypatch.setattr(_compiled, "SWITCH_WORK", 10**12)
        monkeypatch.setitem(_compiled._state, "tried", False)
        monkeypatch.setitem(_compiled._state, "kernels", None)
        monkeypatch.setitem(_compiled._state, "work", 0)
        passes: list[int] = []
        monkeypatch.setattr(_compiled, "sweep_hits",
                            lambda *a, passes=passes: passes.append(1) or real(*a))
        got = hd.evolve(hd.IndexProblem(**cfg), population_size=6, generations=8, seed=2)
        # loaded: every capture test is compiled, as when forced from the start
        assert len(passes) == (len(forced) if loads else 0) and forced
        assert [i.fitness.values for i in got.population] == \
            [i.fitness.values for i in want.population]
        assert got.best_dataset().X.tobytes() == want.best_dataset().X.tobytes()


def test_expect_is_validated_and_needs_a_layout():
    problem = hd.IndexProblem(100, 2, 2, target=0.5, constraints=[hd.Overlap(max=0.1)])
    with pytest.raises(RuntimeError, match="has no layout yet"):
        problem.expect(10)
    problem.prepare(np.random.default_rng(0))
    with pytest.raises(ValueError, match="evaluations must be"):
        problem.expect(-1)
    with pytest.raises(TypeError, match="evaluations"):
        problem.expect(2.5)  # type: ignore[arg-type]


def test_an_interrupt_inside_a_kernel_is_an_interrupt(monkeypatch):
    """A signal caught while compiled code runs comes out as a SystemError caused by the
    KeyboardInterrupt; the kernels' caller raises the KeyboardInterrupt itself."""
    def interrupted(*args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as error:
            raise SystemError("returned a result with an exception set") from error

    def broken(*args):
        raise SystemError("something else")

    monkeypatch.setitem(_compiled._state, "kernels", {"own": interrupted})
    with pytest.raises(KeyboardInterrupt):
        _compiled.own_nn_sweep(np.arange(6.0).reshape(3, 2))
    monkeypatch.setitem(_compiled._state, "kernels", {"own": broken})
    with pytest.raises(SystemError, match="something else"):
        _compiled.own_nn_sweep(np.arange(6.0).reshape(3, 2))


@pytest.mark.slow  # (a fresh environment compiles the kernels first: 10-20 s)
def test_ctrl_c_during_a_compiled_run_exits_130_in_one_line(tmp_path):
    import signal
    import time

    pytest.importorskip("numba")
    env = dict(os.environ, **{_compiled.ENV: "1"})
    # numba's on-disk cache filled first: the interrupt is to land in a running kernel
    subprocess.run([sys.executable, "-m", "hawks_deap.cli", "generate", "--n-samples", "200",
                    "--n-dims", "3", "--generations", "2", "--seed", "1", "--out", "warm",
                    "--quiet"],
                   cwd=tmp_path, env=env, check=True, capture_output=True, timeout=600)
    # Ctrl-C as a terminal delivers it: a test run started in the background by a shell
    # without job control inherits SIGINT ignored, and so would the command (as in
    # test_cli's _signal_when_working)
    process = subprocess.Popen(
        [sys.executable, "-m", "hawks_deap.cli", "generate", "--n-samples", "20000",
         "--n-dims", "3", "--n-clusters", "5", "--generations", "5000", "--seed", "1",
         "--out", "x"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(6)  # the kernels loaded, the loop well under way
    process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    assert process.returncode == 130 and "Traceback" not in err, err
    assert not (tmp_path / "x").exists()


def test_no_place_to_cache_the_kernels_keeps_the_numpy_path(monkeypatch):
    # a read-only install with no writable home: numba refuses cache=True at import, and
    # the command failed ("cannot cache function 'lower': no locator available")
    def refuse() -> None:
        raise RuntimeError("cannot cache function 'lower': no locator available for file "
                           "'/ro/hawks_deap/evaluation/_numba_kernels.py'")

    monkeypatch.setattr(_compiled, "_build", refuse)
    monkeypatch.setattr(_compiled, "_state", {**_compiled._state, "forced": None,
                                              "kernels": None, "tried": False, "why": ""})
    monkeypatch.delenv(_compiled.ENV, raising=False)
    _compiled.plan(10**9)
    assert _compiled.available(10**9) is False
    _compiled._state["forced"] = True
    with pytest.raises(ImportError, match="numba cannot cache compiled code here"):
        _compiled.available()
