"""The scheduling model of benchmarks/predict_scaling.py, against bounds and brute force."""

from __future__ import annotations

import importlib.util
import itertools
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _load():
    spec = importlib.util.spec_from_file_location("predict_scaling",
                                                  BENCH / "predict_scaling.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ps = _load()


def brute_force(durations, workers):
    """Tasks in order, each to a free worker with the earliest free time: simulated
    tick by tick over the task list with an explicit scan (no heap)."""
    free = [0.0] * workers
    for d in durations:
        k = min(range(workers), key=lambda w: (free[w], w))
        free[k] += d
    return max(free) if durations else 0.0


durations = st.lists(st.floats(min_value=0.0, max_value=10.0, allow_nan=False), max_size=30)


@settings(max_examples=200, deadline=None)
@given(durations, st.integers(min_value=1, max_value=20))
def test_makespan_is_list_scheduling_within_grahams_bound(ds, workers):
    m = ps.makespan(ds, workers)
    assert m == pytest.approx(brute_force(ds, workers), abs=1e-9)
    if ds:
        total, longest = sum(ds), max(ds)
        assert m >= max(total / workers, longest) - 1e-9  # no schedule is shorter
        assert m <= total / workers + (1 - 1 / workers) * longest + 1e-9  # Graham (1966)


def test_makespan_cases_by_hand():
    assert ps.makespan([3.0, 1.0, 1.0, 1.0], 2) == 3.0
    assert ps.makespan([1.0, 1.0, 3.0], 2) == 4.0  # in order: the long one goes last
    assert ps.makespan([2.0] * 7, 3) == 2.0 * math.ceil(7 / 3)
    assert ps.makespan([1.0, 2.0], 1) == 3.0
    assert ps.makespan([1.0, 2.0], 16, start=0.5) == 2.5
    assert ps.makespan([], 4, start=0.25) == 0.25
    with pytest.raises(ValueError, match="workers must be at least 1, got 0"):
        ps.makespan([1.0], 0)


def test_optimal_order_matches_the_best_of_all_orders_for_two_workers():
    # the model keeps the backend's order; for a small case check it against every order
    ds = [5.0, 4.0, 3.0, 3.0, 3.0]
    best = min(ps.makespan(list(p), 2) for p in itertools.permutations(ds))
    assert best == 9.0
    assert ps.makespan(ds, 2) == 10.0  # longest first is not optimal here (LPT's 7/6)


def test_fit_overhead_finds_the_cost_that_gives_the_measurement():
    tasks = [0.5, 0.2, 0.7, 0.1, 0.4]

    def model(c):
        return ps.makespan([d + c for d in tasks], 2, 0.05)

    measured = model(0.013)
    c = ps.fit_overhead(model, measured)
    assert model(c) == pytest.approx(measured, abs=1e-9)
    assert ps.fit_overhead(model, model(0.0) - 0.1) == 0.0  # already slower: no cost
    assert ps.fit_overhead(lambda c: c, 5.0) == pytest.approx(5.0, abs=1e-9)  # widens


def test_break_even_slowdown_gives_the_target_speed_up():
    # 3 generations of 10 evaluations; the serial run is the parent plus their sum
    trace = {"parent": 0.1, "pool_start": 0.05,
             "warm": [[0.02 + 0.001 * i for i in range(10)] for _ in range(3)]}
    base = ps.versus_model(trace, 1, 0.0, "warm")
    assert base == pytest.approx(0.1 + 3 * sum(0.02 + 0.001 * i for i in range(10)))
    slow = ps.break_even_slowdown(trace, 10, 0.001, 4.0, "warm")
    assert base / ps.versus_model(trace, 10, 0.001, "warm", slow) == pytest.approx(4.0)
    # by hand: on 10 workers a generation takes the slowest evaluation, 0.029 s
    assert ps.versus_model(trace, 10, 0.0, "warm", 2.0) == pytest.approx(
        0.15 + 3 * 2.0 * 0.029)
    # the same evaluations in two halves each, every first half first: the serial run is
    # the same; on 10 workers, by hand, the first halves end at 0.010, 0.0105, ...,
    # 0.0145 s, and the worker free i-th takes the i-th second half: the last ends at
    # 0.0145 + 0.0145 = 0.029 s
    trace["parts"] = [[d / 2 for d in g] + [d / 2 for d in g] for g in trace["warm"]]
    assert ps.versus_model(trace, 1, 0.0, "parts") == pytest.approx(base)
    assert ps.versus_model(trace, 10, 0.0, "parts") == pytest.approx(0.15 + 3 * 0.029)
    slow = ps.break_even_slowdown(trace, 10, 0.001, 4.0)
    assert base / ps.versus_model(trace, 10, 0.001, "parts", slow) == pytest.approx(4.0)


@pytest.mark.parametrize(("what", "extra"), [("versus", ["--contention", "1.1"]),
                                             ("suite", [])])
def test_quick_runs_print_the_tables(what, extra, tmp_path):
    r = subprocess.run([sys.executable, str(BENCH / "predict_scaling.py"), what, "--quick",
                        *extra], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "| 16 workers |" in r.stdout or "| 16 jobs |" in r.stdout
    assert "fitted cost per" in r.stdout
    if extra:
        assert "| busy |" in r.stdout and "jobs holds while busy cores" in r.stdout
