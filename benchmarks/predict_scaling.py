"""Many-core scaling predicted from per-task costs measured on this machine (issue 34).

No many-core machine is lent to this project, so the issue's 16-core figures are
predicted, not measured: each task's duration is measured here, serially, and a model of
how the backend hands tasks to W workers gives the wall time on W idle cores. The model's
one free constant, the transport cost per task, is fitted to a real 2-worker run on this
machine, so the model reproduces what it can be checked against; what it leaves out is
said with the results (memory bandwidth and frequency on a loaded many-core machine).

``versus``: one Versus run (default GMM vs single-linkage, P = 10, G = 30, the settings
of ``bench_versus.py --speedup``) evaluated through a timing ``map`` (so the run is
serial and the parent's own work is measured as the pool's parent does it: no batched
overlap prefetch). Per generation: the parent's time between two maps, each
evaluation's duration, its loser's clustering's and its constraints'. The pool
(`ProblemPool`) sends each individual's evaluation as three parts
(`VersusProblem.evaluate_part`): the winner's clustering, the loser's and the
constraints, each task to the first free worker, every individual's part of the kind
that took longest in all in the map before first, then the next (from the third map on;
until then the winner's, the loser's, the constraints): "parts", a
generation ``parent + makespan(p_i + c)``; ``c`` is fitted to a real ``n_jobs=2`` run of
the same seed, and the pool's start is measured. One task per individual (the pool
before the parts): "warm", with the serial run's own evaluation times (its caches hold
every earlier gene), and "cold", each individual evaluated again by a fresh copy of the
problem whose caches are empty (a worker that never saw its parents); "fixed", the
parts always in the problem's order (the pool before the order by time); a what-if, not
built: "ordered", each generation's whole evaluations longest first (a perfect cost
estimate). "bound": the parts with no cost per task and idle cores, what the
generational loop allows this pool (a generation waits for its slowest part, and
evaluates only its changed individuals). With ``--contention S``
(two busy cores' slowdown, from ``bench_contention.py``) the 2-worker run's excess is
split into that slowdown and a smaller cost per task: "idle" predicts with the smaller
cost alone, "busy" with each evaluation S times as long on any core count, and the
slowdown at which ``--target`` on ``--target-jobs`` still holds is printed. With
``--task-cost MS`` (what ``bench_pool_messages.py`` measures a task's messages at) the row
"measured" predicts the parts with that cost instead of a fitted one, which absorbs any
drift of the machine's speed between the traced run and the measured one.

``suite``: the grid of ``bench_suite.py`` (12 configurations, N = 1000, G = 100) with
``--runs`` runs each, run with 1 worker in this process to time each run (after a
warm-up run, so imports are not counted), then with 2 workers. The suite's own order
(longest estimate first) is kept, and each run goes to the first free worker
(``imap_unordered``); worker start-up is measured (a spawned worker, its imports and a
tiny run), ``c`` fitted to the 2-worker wall time. 192 runs (16 per configuration) are
predicted by drawing each configuration's durations from its measured ones (bootstrap,
``--draws`` times; median and 5-95% range).

    python benchmarks/predict_scaling.py versus [--generations 30] [--seeds 3]
                                               [--contention S]
    python benchmarks/predict_scaling.py suite [--runs 4] [--draws 200] [--repeats 3]
    python benchmarks/predict_scaling.py {versus,suite} --quick      # smoke runs
"""

from __future__ import annotations

import argparse
import heapq
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

WORKERS = (1, 2, 4, 5, 8, 10, 16)
#: The Versus rows: the pool's tasks (each individual's three parts, the kind that took
#: longest in the map before first); the parts always in the problem's order (the pool
#: before 2026-12-07's fifteenth session); one task per individual with the serial run's
#: evaluation times, with a cold cache's, and longest first (not built).
KINDS = ("parts", "fixed", "warm", "cold", "ordered")


def makespan(durations: Sequence[float], workers: int, start: float = 0.0) -> float:
    """Wall time of tasks taken in order, each by the first free worker (a pool's queue).

    Every worker is ready at ``start``; ties go to any free worker (the makespan is the
    same).
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    free = [start] * min(workers, max(len(durations), 1))
    heapq.heapify(free)
    for d in durations:
        heapq.heappush(free, heapq.heappop(free) + d)
    return max(free)


def fit_overhead(model: Callable[[float], float], measured: float, high: float = 1.0) -> float:
    """The per-task cost ``c >= 0`` with ``model(c) == measured`` (bisection; model rises
    with c); 0 if the model without any cost is already as slow as the measurement."""
    if model(0.0) >= measured:
        return 0.0
    low = 0.0
    while model(high) < measured:
        high *= 2
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if model(mid) < measured else (low, mid)
    return (low + high) / 2


# -- Versus ---------------------------------------------------------------------------

class TimingMap:
    """A serial ``map`` for `evolve` that records each call's start and end and each
    evaluation's duration; optionally each individual's duration in a cold copy too."""

    def __init__(self, cold: bool) -> None:
        self.cold = cold
        # (start, end, warm durations, cold durations, seconds spent on the cold ones)
        self.calls: list[tuple[float, float, list[float], list[float], float]] = []
        self._payload: bytes | None = None

    def __call__(self, func: Any, items: Sequence[Any]) -> list:
        import dill

        start = time.perf_counter()
        out, warm = [], []
        for item in items:
            t = time.perf_counter()
            out.append(func(item))
            warm.append(time.perf_counter() - t)
        end = time.perf_counter()
        cold: list[float] = []
        if self.cold:
            if self._payload is None:  # the problem as the pool ships it: no evaluation yet
                raise RuntimeError("TimingMap(cold=True).prime(problem) first")
            for individual, eval_seed in items:
                fresh = dill.loads(self._payload)
                t = time.perf_counter()
                fresh.evaluate(individual, eval_seed)
                cold.append(time.perf_counter() - t)
        self.calls.append((start, end, warm, cold, time.perf_counter() - end))
        return out

    def prime(self, problem: Any) -> None:
        import dill

        self._payload = dill.dumps(problem, protocol=dill.HIGHEST_PROTOCOL)


class TimedAlgorithm:
    """A problem's winner or loser with each call's seconds appended to ``log``."""

    def __init__(self, algorithm: Any, log: list[float]) -> None:
        self.algorithm, self.log = algorithm, log

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return self.algorithm(*args, **kwargs)
        finally:
            self.log.append(time.perf_counter() - t)

    def __getattr__(self, name: str) -> Any:
        if name == "algorithm":  # (not set yet while unpickling)
            raise AttributeError(name)
        return getattr(self.algorithm, name)


def versus_trace(args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """Serial timing trace, the measured serial and 2-worker walls, the pool's start."""
    import hawks_deap as hd
    from hawks_deap.algorithms.pool import ProblemPool
    from hawks_deap.problems.versus import VersusProblem

    winner, loser = args.pair.split(":")

    def problem() -> VersusProblem:
        return VersusProblem(winner, loser, n_samples=args.n_samples, n_clusters=5,
                             n_dims=2, score="ari",
                             constraints=[hd.Overlap(max=args.overlap)],
                             initial_mean_upper=10.0)

    settings = dict(population_size=args.population, generations=args.generations,
                    p_crossover=0.7, p_f=0.75, mean_mutation="pso", seed=seed)
    if seed == 0:  # imports and first calls (scikit-learn's, the pool's) before timing
        for n_jobs in (1, 2):
            hd.evolve(problem(), n_jobs=n_jobs, **{**settings, "generations": 1})
    walls = {}
    for n_jobs in (1, 2) if seed % 2 == 0 else (2, 1):  # alternate which goes first
        t = time.perf_counter()
        result = hd.evolve(problem(), n_jobs=n_jobs, **settings)
        walls[n_jobs] = time.perf_counter() - t
        best = result.best_dataset().X.tobytes()
        walls.setdefault("best", best)
        if walls["best"] != best:
            raise AssertionError("n_jobs=1 and n_jobs=2 gave different datasets")
    timing = TimingMap(cold=args.cold)
    p = problem()
    clustering: dict[str, list[float]] = {"winner": [], "loser": []}
    p.winner = TimedAlgorithm(p.winner, clustering["winner"])  # type: ignore[assignment]
    p.loser = TimedAlgorithm(p.loser, clustering["loser"])  # type: ignore[assignment]
    constraints: list[float] = []  # each evaluation's constraint record, timed
    p.constraint_record = TimedAlgorithm(p.constraint_record,  # type: ignore[method-assign]
                                         constraints)
    original_prepare = p.prepare

    def prepare(*a: Any, **k: Any) -> Any:  # capture the prepared problem, caches empty
        out = original_prepare(*a, **k)
        if args.cold:
            timing.prime(p)
        return out

    p.prepare = prepare  # type: ignore[method-assign]
    t = time.perf_counter()
    hd.evolve(p, map=timing, **settings)
    traced = time.perf_counter() - t
    started = time.perf_counter()
    with ProblemPool(p, 2):
        pass
    pool_start = time.perf_counter() - started
    gaps, previous = [], t
    for start, end, _, _, aside in timing.calls:  # (not the cold evaluations' time)
        gaps.append(start - previous)
        previous = end + aside
    tail = t + traced - previous
    traced -= sum(call[4] for call in timing.calls)
    # the pool's parts: the winner's clustering (the rest of the evaluation: points,
    # clustering, score), the loser's, the constraints (the overlap); every individual's
    # longest part first (by the last map's sums, from the third map on), then ...
    n_warm = sum(len(c[2]) for c in timing.calls)
    if not len(clustering["winner"]) == len(clustering["loser"]) == len(constraints) == n_warm:
        raise RuntimeError("not one winner, loser and constraint call per evaluation")
    loses, checks, parts, fixed = iter(clustering["loser"]), iter(constraints), [], []
    last: list[float] = []
    for k, call in enumerate(timing.calls):
        second = [next(loses) for _ in call[2]]
        third = [next(checks) for _ in call[2]]
        blocks = [[d - lo - co for d, lo, co in zip(call[2], second, third, strict=True)],
                  second, third]
        order = sorted(range(3), key=lambda b: -last[b]) if last else range(3)
        parts.append([d for b in order for d in blocks[b]])
        fixed.append([d for block in blocks for d in block])
        if k >= 1:  # the pool times its maps from the second on
            last = [sum(block) for block in blocks]
    # what if each generation's evaluations went longest first (a perfect cost estimate)
    ordered = [sorted(c[2], reverse=True) for c in timing.calls]
    return {"walls": walls, "traced": traced, "parts": parts, "fixed": fixed,
            "ordered": ordered,
            "pool_start": pool_start,
            "parent": sum(gaps) + tail,
            "warm": [c[2] for c in timing.calls], "cold": [c[3] for c in timing.calls]}


def versus_model(trace: dict[str, Any], workers: int, c: float, which: str,
                 slow: float = 1.0) -> float:
    """Predicted wall time on ``workers`` cores (serial: the traced run's own).

    ``slow``: each evaluation's duration on busy cores over its duration alone (1: idle
    cores that cost each other nothing; `bench_contention.py` measures it for two).
    """
    generations = trace[which]
    if workers == 1:
        return trace["parent"] + sum(sum(g) for g in generations)
    return (trace["pool_start"] + trace["parent"]
            + sum(makespan([slow * d + c for d in g], workers) for g in generations))


def break_even_slowdown(trace: dict[str, Any], workers: int, c: float,
                        speedup: float, which: str = "parts") -> float:
    """The busy cores' slowdown at which the ``which`` prediction on ``workers`` is
    ``speedup`` (bisection; the prediction falls as the slowdown rises); below 1: not even
    idle cores reach it."""
    base = versus_model(trace, 1, 0.0, which)
    low, high = 0.5, 4.0
    for _ in range(60):
        mid = (low + high) / 2
        faster = base / versus_model(trace, workers, c, which, mid) > speedup
        low, high = (mid, high) if faster else (low, mid)
    return (low + high) / 2


def run_versus(args: argparse.Namespace) -> None:
    print(f"# Versus {args.pair}, P = {args.population}, G = {args.generations}, N = "
          f"{args.n_samples}, overlap <= {args.overlap}; seeds 0..{args.seeds - 1}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}", flush=True)
    rows = []
    for seed in range(args.seeds):
        trace = versus_trace(args, seed)
        serial = trace["walls"][1]
        c = fit_overhead(lambda c, trace=trace: versus_model(trace, 2, c, "parts"),
                         trace["walls"][2])
        evals = [d for g in trace["warm"] for d in g]
        # a generation on >= P workers waits for its slowest evaluation
        slowest = statistics.median(max(g) / statistics.fmean(g) for g in trace["warm"] if g)
        row = {"seed": seed, "serial": serial, "pool2": trace["walls"][2],
               "traced": trace["traced"], "parent": trace["parent"],
               "pool_start": trace["pool_start"], "c": c, "evals": len(evals),
               "eval_median": statistics.median(evals)}
        base = versus_model(trace, 1, 0.0, "warm")
        for which in [k for k in KINDS if args.cold or k != "cold"]:
            for w in WORKERS[1:]:
                row[f"{which}{w}"] = base / versus_model(trace, w, c, which)
        for w in WORKERS[1:]:  # the generational loop's own bound: no cost, idle cores
            row[f"bound{w}"] = base / versus_model(trace, w, 0.0, "parts")
        if args.task_cost is not None:  # a measured cost per task instead of a fitted one
            for w in WORKERS[1:]:
                row[f"measured{w}"] = base / versus_model(trace, w, args.task_cost / 1e3,
                                                          "parts")
        if args.contention is not None:
            # the 2-worker run's excess split: the measured slowdown of two busy cores,
            # and what is left as the cost per task
            s2 = args.contention
            c_s = fit_overhead(
                lambda c, trace=trace, s2=s2: versus_model(trace, 2, c, "parts", s2),
                trace["walls"][2])
            row["c_s"] = c_s
            for w in WORKERS[1:]:
                row[f"idle{w}"] = base / versus_model(trace, w, c_s, "parts")
                row[f"busy{w}"] = base / versus_model(trace, w, c_s, "parts", s2)
            row["even"] = break_even_slowdown(trace, args.target_jobs, c_s, args.target)
        rows.append(row)
        print(f"seed {seed}: serial {serial:.2f} s, n_jobs=2 {trace['walls'][2]:.2f} s "
              f"(measured x{serial / trace['walls'][2]:.2f}); traced {trace['traced']:.2f} s, "
              f"parent {trace['parent']:.2f} s, {len(evals)} evaluations in "
              f"{len(trace['warm'])} maps (median "
              f"{1e3 * row['eval_median']:.1f} ms; a generation's slowest over its mean: "
              f"median {slowest:.2f}), pool start "
              f"{1e3 * trace['pool_start']:.0f} ms, fitted cost per task "
              f"{1e3 * c:.2f} ms", flush=True)
    print()
    print("| evaluation times | " + " | ".join(f"{w} jobs" for w in WORKERS[1:]) + " |")
    print("|---|" + "---|" * (len(WORKERS) - 1))
    kinds = [*(k for k in KINDS if args.cold or k != "cold"), "bound"]
    if args.contention is not None:
        kinds += ["idle", "busy"]
    if args.task_cost is not None:
        kinds += ["measured"]
    for which in kinds:
        cells = [statistics.median(r[f"{which}{w}"] for r in rows) for w in WORKERS[1:]]
        spread = [(min(r[f"{which}{w}"] for r in rows), max(r[f"{which}{w}"] for r in rows))
                  for w in WORKERS[1:]]
        print(f"| {which} | " + " | ".join(f"{m:.2f}x ({lo:.2f}-{hi:.2f})"
                                           for m, (lo, hi) in zip(cells, spread, strict=True))
              + " |")
    measured = [r["serial"] / r["pool2"] for r in rows]
    print(f"\nmeasured n_jobs=2 here: median x{statistics.median(measured):.2f} "
          f"({', '.join(f'{m:.2f}' for m in measured)}); predicted speed-ups are of the "
          f"serial run's modelled wall time, median over seeds (min-max)")
    if args.contention is not None:
        costs = ", ".join(f"{1e3 * r['c_s']:.2f}" for r in rows)
        evens = ", ".join(f"{r['even']:.3f}" for r in rows)
        print(f"with two busy cores {args.contention:.3f}x as slow as one "
              f"(`bench_contention.py`): cost per task "
              f"{costs} ms; 'idle': busy cores "
              f"cost each other nothing, 'busy': each evaluation {args.contention:.3f}x as "
              f"long on every core count; x{args.target:g} on {args.target_jobs} jobs holds "
              f"while busy cores are at most "
              f"{statistics.median(r['even'] for r in rows):.3f}x as slow "
              f"({evens})")


# -- suites ---------------------------------------------------------------------------

def warm_tasks(tmp: Path, count: int) -> list[tuple[Any, str]]:
    """``count`` tiny suite runs (N = 100, G = 2): imports and first-call costs."""
    from hawks_deap.campaign import suite as hs

    tmp.mkdir(parents=True, exist_ok=True)
    grid = tmp / "warm.toml"
    grid.write_text(_grid(runs=count, n=100, g=2))
    tasks = hs.load_suite(grid).tasks()[:count]
    return [(task, str(tmp / f"warm-{i}")) for i, task in enumerate(tasks)]


def _grid(runs: int, n: int, g: int) -> str:
    from bench_suite import GRID  # the grid bench_suite.py measures

    return GRID.format(runs=runs, n=n, g=g)


def worker_start(workers: int, tmp: Path) -> float:
    """Seconds from creating a suite's spawn pool to every worker having done a tiny run."""
    import multiprocess

    from hawks_deap._util.workers import main_not_reimported, suite_worker
    from hawks_deap.campaign.suite import _run_task_star

    context = multiprocess.get_context("spawn")
    tasks = warm_tasks(tmp / f"start-{workers}", workers)
    t = time.perf_counter()
    with main_not_reimported():
        pool = context.Pool(workers, initializer=suite_worker, initargs=(os.getpid(),))
    with pool:
        pool.map(_run_task_star, tasks, chunksize=1)
    return time.perf_counter() - t


def suite_order(runs: int, n: int, g: int, tmp: Path) -> list[str]:
    """The configuration ids of a suite of ``runs`` runs each, in the order it runs them."""
    from hawks_deap.campaign import suite as hs

    grid = tmp / f"order-{runs}.toml"
    grid.write_text(_grid(runs, n, g))
    tasks = sorted(hs.load_suite(grid).tasks(), key=lambda t: (-hs.cost_estimate(t), t.run))
    return [t.config_id for t in tasks]


def measure_suite(args: argparse.Namespace, n: int, g: int, tmp: Path) -> dict[str, Any]:
    """One round: each run's duration with 1 worker, the 2-worker wall, workers' start."""
    from hawks_deap.campaign import suite as hs

    for task, out in warm_tasks(tmp / "warm", 1):  # this process's imports first
        hs.run_task(task, out)
    grid = tmp / "grid.toml"
    grid.write_text(_grid(args.runs, n, g))
    suite = hs.load_suite(grid)
    stamps: list[tuple[str, float]] = []
    t0 = time.perf_counter()
    hs.run_suite(suite, tmp / "one", workers=1,
                 on_row=lambda row: stamps.append((row["config_id"], time.perf_counter())))
    serial = time.perf_counter() - t0
    durations, previous = [], t0
    for config, t in stamps:
        durations.append((config, t - previous))
        previous = t
    start2 = worker_start(2, tmp)
    t = time.perf_counter()
    hs.run_suite(suite, tmp / "two", workers=2)
    wall2 = time.perf_counter() - t
    runs = [d for _, d in durations]
    c = fit_overhead(lambda c: makespan([d + c for d in runs], 2, start2), wall2)
    return {"durations": durations, "serial": serial, "wall2": wall2, "start2": start2,
            "c": c}


def predict_suite(m: dict[str, Any], durations: list[float], workers: int) -> float:
    """The runs' summed durations over their modelled wall time on ``workers`` cores."""
    start = m["start2"] if workers > 1 else 0.0
    return sum(durations) / makespan([d + m["c"] for d in durations], workers, start)


def run_suite_model(args: argparse.Namespace) -> None:
    n, g = (200, 3) if args.quick else (1000, 100)
    rng = np.random.default_rng(0)
    rounds = []
    print(f"# suites (bench_suite.py grid, N = {n}, G = {g}, {args.runs} runs a "
          f"configuration); {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
          flush=True)
    rows: dict[str, list[list[float]]] = {}  # row label -> per round, one value a W
    with tempfile.TemporaryDirectory() as tmp_name:
        for r in range(args.repeats):
            tmp = Path(tmp_name) / f"round-{r}"
            tmp.mkdir()
            m = measure_suite(args, n, g, tmp)
            rounds.append(m)
            runs = [d for _, d in m["durations"]]
            print(f"round {r}: 1 worker {m['serial']:.1f} s (runs {min(runs):.2f}-"
                  f"{max(runs):.2f} s), 2 workers {m['wall2']:.1f} s (measured "
                  f"x{m['serial'] / m['wall2']:.2f}); worker start with a first run "
                  f"{m['start2']:.2f} s; fitted cost per run {1e3 * m['c']:.1f} ms",
                  flush=True)
            label = f"{len(runs)} (measured durations, the suite's order)"
            rows.setdefault(label, []).append([predict_suite(m, runs, w)
                                               for w in WORKERS[1:]])
            # the suite orders by an estimate; what the true longest-first order gives
            label = f"{len(runs)}, true longest first (a perfect estimate)"
            lpt = sorted(runs, reverse=True)
            rows.setdefault(label, []).append([predict_suite(m, lpt, w)
                                               for w in WORKERS[1:]])
            # more runs: each configuration's durations drawn from its measured ones, in
            # the order the larger suite runs them
            by_config: dict[str, list[float]] = {}
            for config, d in m["durations"]:
                by_config.setdefault(config, []).append(d)
            for factor in args.scale:
                order = suite_order(args.runs * factor, n, g, tmp)
                draws = [[predict_suite(m, [float(rng.choice(by_config[c])) for c in order],
                                        w) for w in WORKERS[1:]]
                         for _ in range(args.draws)]
                label = f"{len(order)} (durations drawn, median of {args.draws} draws)"
                rows.setdefault(label, []).append(list(np.median(draws, axis=0)))
    print("\n| runs | " + " | ".join(f"{w} workers" for w in WORKERS[1:]) + " |")
    print("|---|" + "---|" * (len(WORKERS) - 1))
    for label, values in rows.items():
        per_w = np.array(values)
        cells = [f"{np.median(v):.2f}x ({v.min():.2f}-{v.max():.2f})" for v in per_w.T]
        print(f"| {label} | " + " | ".join(cells) + " |")
    measured = [m["serial"] / m["wall2"] for m in rounds]
    print(f"\nmeasured 2 workers here: median x{statistics.median(measured):.2f} "
          f"({', '.join(f'{x:.2f}' for x in measured)}); speed-up: the runs' summed "
          f"durations over the modelled wall time on idle cores (worker start and per-run "
          f"cost included), median over {args.repeats} rounds (min-max)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("versus", "suite"))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--generations", type=int, default=30)
    parser.add_argument("--population", type=int, default=10)
    parser.add_argument("--n-samples", type=int, default=2000)
    parser.add_argument("--overlap", type=float, default=0.1)
    parser.add_argument("--pair", default="gmm:single-linkage")
    parser.add_argument("--no-cold", dest="cold", action="store_false",
                        help="skip the cold-cache evaluations")
    parser.add_argument("--contention", type=float, default=None,
                        help="versus: two busy cores' slowdown (bench_contention.py); "
                             "adds the rows that separate it from the cost per task")
    parser.add_argument("--task-cost", type=float, default=None, metavar="MS",
                        help="versus: a cost per task measured apart (bench_pool_messages.py's "
                             "'a worker's ms a task'); adds the row 'measured', the parts with "
                             "it on idle cores")
    parser.add_argument("--target", type=float, default=7.0,
                        help="versus, with --contention: the speed-up whose break-even "
                             "slowdown is printed (default 7, the issue's)")
    parser.add_argument("--target-jobs", type=int, default=10)
    parser.add_argument("--runs", type=int, default=4, help="suite: runs per configuration")
    parser.add_argument("--scale", type=int, nargs="*", default=[4],
                        help="suite: also predict this many times the runs (drawn)")
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3,
                        help="suite: rounds of measurement (medians over them)")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.contention is not None and not args.contention > 0:
        parser.error(f"--contention must be a positive slowdown, got {args.contention}")
    if not args.target > 1 or args.target_jobs < 2:
        parser.error(f"--target must exceed 1 and --target-jobs be at least 2, got "
                     f"{args.target} and {args.target_jobs}")
    if args.quick:
        args.seeds, args.generations, args.n_samples = 1, 2, 300
        args.runs, args.draws, args.repeats = 1, 5, 1
    if args.what == "versus":
        run_versus(args)
    else:
        run_suite_model(args)


if __name__ == "__main__":
    main()
