"""What the evaluation pool costs and gives in Index mode, measured on a shared machine.

Each seed runs three ways back to back in fresh interpreters: serially (``n_jobs=1``), with
the pool forced (``n_jobs=2``, ``POOL_MIN_WORK = 0``), and as
``evolve(n_jobs=2)`` decides (`hawks_deap.algorithms.pool.serial_reason`). Wall times are
reported, but on a machine that other work loads they say little about a second core; so
each pooled run also
reports its critical path on idle cores: the parent's CPU time plus the busiest share of
the workers' CPU time (the parent waits while they evaluate), and the serial run's CPU
time over it is the speed-up that ``n_jobs`` idle cores would give.

The pool's fixed costs are timed in the parent: starting the pool (until both workers
answer), and the round trip of a generation's messages (a map of ten cached evaluations:
what the workers cannot share), against the same evaluations serially. With them, the
16-core prediction: ``serial CPU / (parent CPU + workers' CPU / min(16, P))`` (P=10
individuals keep at most 10 workers busy), the workers' CPU as measured with 2 of them:
more workers split the caches further and send more messages, so it is an upper bound.

    python benchmarks/bench_pool.py --configs a b c --seeds 3
    python benchmarks/bench_pool.py --configs scale --seeds 1
    python benchmarks/bench_pool.py --items --configs n20k n50k scale --seeds 3
    python benchmarks/bench_pool.py --affinity --configs scale --seeds 3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CONFIGS = {
    "a": dict(n_samples=2000, n_clusters=5, n_dims=2, target=0.5),
    "b": dict(n_samples=1000, n_clusters=10, n_dims=20, target=0.9),
    "c": dict(n_samples=2000, n_clusters=30, n_dims=50, target=0.2),
    "scale": dict(n_samples=100_000, n_clusters=20, n_dims=2, target=0.5),
    # between c and scale, for where a pool's tasks become single evaluations (--items)
    "n20k": dict(n_samples=20_000, n_clusters=20, n_dims=2, target=0.5),
    "n50k": dict(n_samples=50_000, n_clusters=20, n_dims=2, target=0.5),
    # near POOL_MIN_WORK: P N (K + D) of 2,200,000 (low and high dimension) and 4,400,000
    "n10k": dict(n_samples=10_000, n_clusters=20, n_dims=2, target=0.5),
    "b7k": dict(n_samples=7_000, n_clusters=10, n_dims=20, target=0.9),
}
GENERATIONS = 100
POPULATION = 10


def _problem(cfg: dict) -> Any:
    import hawks_deap as hd

    return hd.IndexProblem(**cfg, constraints=[hd.Overlap(max=0.1)])


class AffinityMap:
    """What-if (not built): each individual to the worker that has evaluated most of its
    genes, as many to each as balance allows (one single-process pool per worker, so a
    task can be addressed to one); one batch per worker per generation."""

    def __init__(self, workers: int, dynamic: bool = False) -> None:
        self.workers, self.pools, self.dynamic = workers, None, dynamic
        self.seen: list[set] = [set() for _ in range(workers)]

    def __call__(self, func: Any, items: Any) -> list:
        import math

        import dill
        import multiprocess

        from hawks_deap.algorithms import pool

        items = list(items)
        if self.pools is None:  # the problem is prepared by the first call
            payload = dill.dumps(func.problem, protocol=dill.HIGHEST_PROTOCOL)
            ctx = multiprocess.get_context("fork")
            self.pools = [ctx.Pool(1, initializer=pool._install, initargs=(payload, 1))
                          for _ in range(self.workers)]
        if self.dynamic:
            return self._dynamic(items, pool)
        cap = math.ceil(len(items) / self.workers)
        batches: list[list] = [[] for _ in range(self.workers)]
        where = []
        for individual, seed in items:
            keys = {gene.key for gene in individual}
            w = max((w for w in range(self.workers) if len(batches[w]) < cap),
                    key=lambda w: (len(keys & self.seen[w]), -len(batches[w])))
            batches[w].append((individual, seed))
            where.append((w, len(batches[w]) - 1))
            self.seen[w] |= keys
        pending = [self.pools[w].apply_async(pool._evaluate_batch, (pool._wire(b),))
                   if b else None for w, b in enumerate(batches)]
        values = [pool._unwire(r.get()) if r is not None else [] for r in pending]
        return [values[w][i] for w, i in where]

    def _dynamic(self, items: list, pool: Any) -> list:
        """A free worker takes the waiting individual that shares most genes with what it
        has evaluated (balance of single tasks, and warm caches where possible)."""
        assert self.pools is not None
        keys = [{gene.key for gene in individual} for individual, _ in items]
        waiting, running, free = list(range(len(items))), {}, list(range(self.workers))
        results: list = [None] * len(items)
        while waiting or running:
            while free and waiting:
                w = free.pop(0)
                i = max(waiting, key=lambda i: (len(keys[i] & self.seen[w]), -i))
                waiting.remove(i)
                self.seen[w] |= keys[i]
                running[w] = (self.pools[w].apply_async(
                    pool._evaluate_batch, (pool._wire([items[i]]),)), i)
            done = [w for w, (r, _) in running.items() if r.ready()]
            if not done:
                time.sleep(0.0005)
                continue
            for w in done:
                r, i = running.pop(w)
                results[i] = pool._unwire(r.get())[0]
                free.append(w)
        return results

    def close(self) -> None:
        for p in self.pools or []:
            p.close()
            p.join()


def run_one(spec: dict) -> dict:
    """One seeded run; ``mode``: serial, pool (forced) or auto (evolve decides)."""
    import hawks_deap as hd
    from hawks_deap.algorithms import pool

    if spec["mode"] in ("pool", "batch", "item"):
        pool.POOL_MIN_WORK = 0
    if spec["mode"] == "batch":  # one batch per worker at any size
        pool.ITEM_MIN_WORK = 1 << 62
    elif spec["mode"] == "item":  # one evaluation per task at any size
        pool.ITEM_MIN_WORK = 0
    n_jobs = 1 if spec["mode"] == "serial" else 2
    problem = _problem(spec["cfg"])
    affinity = (AffinityMap(2, dynamic=spec["mode"] == "dynamic")
                if spec["mode"] in ("affinity", "dynamic") else None)
    t0, c0 = time.perf_counter(), time.process_time()
    result = hd.evolve(problem, population_size=POPULATION, generations=GENERATIONS,
                       seed=spec["seed"], **({"map": affinity} if affinity else
                                             {"n_jobs": n_jobs}))
    if affinity is not None:
        affinity.close()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall": wall, "cpu": cpu, "workers_cpu": children.ru_utime + children.ru_stime,
            "population": "".join(i.key for i in result.population)}


def fixed_costs(cfg: dict) -> dict:
    """Pool start and a generation's message round trip, in this process."""
    import numpy as np

    from hawks_deap.algorithms.pool import EvaluateTask, ProblemPool

    problem = _problem(cfg)
    problem.prepare(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    pairs = [(problem.random_individual(rng), i) for i in range(POPULATION)]
    for individual, seed in pairs:  # cached in the parent, and in the workers below
        problem.evaluate(individual, seed)
    t0 = time.perf_counter()
    with ProblemPool(problem, 2) as pool:
        pool.map(abs, [1, 2])
        start = time.perf_counter() - t0
        task = EvaluateTask(problem)
        pool.map(task, pairs)
        trips = []
        for _ in range(10):
            t = time.perf_counter()
            pool.map(task, pairs)
            trips.append(time.perf_counter() - t)
    serial = []
    for _ in range(10):
        t = time.perf_counter()
        for individual, seed in pairs:
            problem.evaluate(individual, seed)
        serial.append(time.perf_counter() - t)
    return {"start": start, "trip": statistics.median(trips),
            "serial_cached": statistics.median(serial)}


def run_child(spec: dict) -> dict:
    """``spec`` in a fresh interpreter with one BLAS thread, importing this checkout."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    out = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"child run failed ({spec}):\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def interleaved(name: str, seeds: int, modes: tuple[str, ...]) -> tuple[dict, bool]:
    """Child runs of config ``name`` in each mode, seed by seed, and whether they agree.

    Each seed's wall times go to stderr as they come (the table on stdout stays whole).
    """
    runs: dict[str, list[dict]] = {mode: [] for mode in modes}
    for seed in range(seeds):
        for mode in runs:
            runs[mode].append(run_child({"cfg": CONFIGS[name], "seed": seed, "mode": mode}))
        print(f"{name} seed {seed}: wall s " + ", ".join(
            f"{mode} {runs[mode][seed]['wall']:.2f}" for mode in runs), file=sys.stderr)
    same = all(len({runs[m][s]["population"] for m in runs}) == 1 for s in range(seeds))
    return runs, same


def measure(name: str, seeds: int) -> str:
    """One table row: medians over the seeds of the three ways, interleaved."""
    runs, same = interleaved(name, seeds, ("serial", "pool", "auto"))
    fixed = json.loads(subprocess.run(
        [sys.executable, __file__, "--fixed", name], capture_output=True, text=True,
        check=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"}).stdout.splitlines()[-1])

    def med(mode: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[mode])

    serial_cpu = med("serial", "cpu")
    parent, workers = med("pool", "cpu"), med("pool", "workers_cpu")
    idle2 = serial_cpu / (parent + workers / 2)
    evaluations = max(serial_cpu - parent, 1e-9)  # the evaluations the parent hands over
    dup = max(workers / evaluations - 1.0, 0.0)
    idle16 = serial_cpu / (parent + workers / min(16, POPULATION))
    return (f"| {name} | {med('serial', 'wall'):.2f} | {med('pool', 'wall'):.2f} | "
            f"{med('auto', 'wall'):.2f} | {serial_cpu:.2f} | {parent:.2f} + {workers:.2f} | "
            f"{idle2:.2f}x | {dup:+.0%} | {idle16:.2f}x | {fixed['start'] * 1e3:.0f} | "
            f"{fixed['trip'] * 1e3:.1f} / {fixed['serial_cached'] * 1e3:.1f} | "
            f"{'yes' if same else 'NO'} |")


def measure_affinity(name: str, seeds: int) -> str:
    """What n_jobs=2 does against the affinity what-if, interleaved per seed."""
    runs, same = interleaved(name, seeds, ("auto", "affinity", "dynamic"))
    walls = {m: ", ".join(f"{r['wall']:.2f}" for r in runs[m]) for m in runs}

    def versus(mode: str) -> str:
        ratios = [a["wall"] / b["wall"] for a, b in zip(runs["auto"], runs[mode],
                                                         strict=True)]
        return (f"{statistics.median(ratios):.2f}x "
                f"({', '.join(f'{r:.2f}' for r in ratios)})")

    return (f"| {name} | {walls['auto']} | {walls['affinity']} | {walls['dynamic']} | "
            f"{versus('affinity')} | {versus('dynamic')} | {'yes' if same else 'NO'} |")


def measure_items(name: str, seeds: int) -> str:
    """A pool's batches against single-evaluation tasks (both forced), and serial."""
    from hawks_deap.algorithms.pool import ITEM_MIN_WORK

    runs, same = interleaved(name, seeds, ("serial", "batch", "item"))
    wall = {m: statistics.median(r["wall"] for r in runs[m]) for m in runs}
    ratios = [b["wall"] / i["wall"] for b, i in zip(runs["batch"], runs["item"], strict=True)]
    import numpy as np

    from hawks_deap.algorithms.pool import evaluation_work

    problem = _problem(CONFIGS[name])
    problem.prepare(np.random.default_rng(0))
    work = evaluation_work(problem)  # the pool's own N (K + D)
    assert work is not None
    side = "item" if work >= ITEM_MIN_WORK else "batch"
    return (f"| {name} | {work:,} | {wall['serial']:.2f} | {wall['batch']:.2f} | "
            f"{wall['item']:.2f} | {statistics.median(ratios):.2f}x ("
            f"{', '.join(f'{r:.2f}' for r in ratios)}) | "
            f"{wall['serial'] / wall[side]:.2f}x ({side}) | {'yes' if same else 'NO'} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=["a", "b", "c"],
                        choices=list(CONFIGS))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--items", action="store_true",
                        help="instead: batches against one evaluation per task")
    parser.add_argument("--affinity", action="store_true",
                        help="instead: n_jobs=2 against the affinity what-if")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--fixed", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(json.loads(args.child))))
        return
    if args.fixed:
        print(json.dumps(fixed_costs(CONFIGS[args.fixed])))
        return
    if args.seeds < 1:
        parser.error(f"--seeds must be at least 1, got {args.seeds}")
    seeds = f"P={POPULATION}, G={GENERATIONS}, seeds 0..{args.seeds - 1}"
    experiments = {  # what the flags choose: (first line, table header, one row per config)
        "affinity": (f"{seeds}: n_jobs=2 as evolve does it, against each individual sent "
                     f"to the worker that saw most of its genes (AffinityMap: balanced by "
                     f"count, or dynamic: a free worker takes the best waiting one)",
                     "| config | n_jobs=2 wall s per seed | affinity wall s per seed | "
                     "dynamic affinity wall s per seed | n_jobs=2 / affinity | "
                     "n_jobs=2 / dynamic | same result |", measure_affinity),
        "items": (f"{seeds}, serial / pool of 2 with one batch per worker / pool of 2 with "
                  f"one evaluation per task, interleaved",
                  "| config | N (K + D) | serial wall s | batches wall s | items wall s | "
                  "batches / items, per seed | serial / what n_jobs=2 now does | "
                  "same result |", measure_items),
        "pools": (f"{seeds}, serial / pool (n_jobs=2 forced) / auto (n_jobs=2, evolve "
                  f"decides) interleaved",
                  "| config | serial wall s | pool wall s | auto wall s | serial CPU s | "
                  "pool CPU s (parent + workers) | idle 2 cores | workers' extra CPU | "
                  "idle 16 cores | pool start ms | round trip / serial, 10 cached evals, "
                  "ms | same result |", measure),
    }
    first, header, row = experiments["affinity" if args.affinity else
                                     "items" if args.items else "pools"]
    print(f"{first}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")
    print(header)
    print("|" + "---|" * header.count(" | ") + "---|")
    for name in args.configs:
        print(row(name, args.seeds), flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
