"""What two busy cores cost each other: one serial run alone, then two at once.

A pool of two processes can be at most as fast as two independent serial runs side by
side. On a machine whose cores share caches, memory bandwidth and a power budget, each of
two concurrent runs takes longer than the same run alone; that slowdown bounds every
two-process speed-up here (``n_jobs=2``, a suite on two workers), whatever the pool does:
``ceiling = 2 / slowdown``.

Each run is a fresh child process that imports, warms up (one run of a few generations,
so that imports, compiled kernels and the clustering libraries are loaded), reports ready
and waits; the parent then starts the timed run of one child ("alone") or of two children
at the same instant ("pair", both the same seed). Alone and pair alternate seed by seed;
each child times its own run (wall and CPU, from inside), and every run of a seed must
give the same dataset (checked).

    python benchmarks/bench_contention.py [--workloads a c versus scale] [--seeds 3]
                                          [--repeats 1] [--generations G] [--pool]

With ``--pool`` each seed also runs with ``n_jobs=2`` (a third arm, in a warmed child of
its own; the three arms rotate seed by seed), and the table adds that run's speed-up over
the run alone and its share of the seed's own ceiling, ``2 x alone / the slower of the
pair``: how much of what two independent processes got from the machine in that minute
the pool got too. A share near 1 means the pool loses nothing of its own; what it misses
of 2x is the machine's.

Workloads: Index configs a and c of ``bench_index.py`` (G=100), ``scale`` (N=100,000,
K=20, D=2; G=30 by default here), and ``versus`` (GMM against single-linkage, N=2000,
P=10, G=30, the settings of ``bench_versus.py --speedup``). One BLAS thread per child.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_index import CONFIGS  # noqa: E402 - the configs' one definition

WORKLOADS = ("a", "c", "scale", "versus")
DEFAULT_GENERATIONS = {"a": 100, "c": 100, "scale": 30, "versus": 30}


def _run(workload: str, seed: int, generations: int, n_jobs: int = 1) -> str:
    """One run, as ``bench_versus.py --speedup`` or ``bench_index.py`` runs it (serial
    unless ``n_jobs``; an Index run's pool forced); the sha256 of its best dataset."""
    if workload == "versus":
        import hashlib

        import bench_versus

        args = argparse.Namespace(n_samples=2000, overlap=0.1, population=10,
                                  generations=generations)
        problem = bench_versus.make_problem("gmm", "single-linkage", args)
        result, _ = bench_versus.evolve(problem, seed, n_jobs, args)
        return hashlib.sha256(result.best_dataset().X.tobytes()).hexdigest()
    from bench_index import run_one

    if n_jobs > 1:  # as bench_pool.py's forced arm: configs a and c run serially otherwise
        from hawks_deap.algorithms import pool

        pool.POOL_MIN_WORK = 0
    return run_one({"cfg": CONFIGS[workload], "metric": "sqeuclidean", "evaluator": "fast",
                    "generations": generations, "seed": seed, "n_jobs": n_jobs})["dataset"]


def child(workload: str, seed: int, generations: int, n_jobs: int) -> None:
    """Warm up, say ready, wait for the go, run, print wall and CPU as JSON."""
    _run(workload, seed + 1000, 3)  # imports, kernels, clustering libraries
    print("ready", flush=True)
    sys.stdin.readline()
    t0, c0 = time.perf_counter(), time.process_time()
    digest = _run(workload, seed, generations, n_jobs)
    print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                      "dataset": digest}), flush=True)


def timed(workload: str, seed: int, generations: int, copies: int,
          n_jobs: int = 1) -> list[dict]:
    """Start ``copies`` children, release them together, return their reports."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(HERE.parent), env.get("PYTHONPATH")) if p)
    procs = [subprocess.Popen([sys.executable, __file__, "--child", workload, str(seed),
                               str(generations), str(n_jobs)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(copies)]
    try:
        for proc in procs:
            assert proc.stdout is not None
            line = proc.stdout.readline().strip()
            if line != "ready":
                raise RuntimeError(f"child of {workload} failed before its run: {line!r}")
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        reports = []
        for proc in procs:
            out, _ = proc.communicate()
            if proc.returncode != 0:
                raise RuntimeError(f"child of {workload} failed (exit {proc.returncode})")
            reports.append(json.loads(out.strip().splitlines()[-1]))
        return reports
    finally:
        for proc in procs:  # a child still waiting for its go, after another failed
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=["a", "versus"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--generations", type=int, default=None,
                        help="generations of every workload (default: a, c 100; scale, "
                             "versus 30)")
    parser.add_argument("--pool", action="store_true",
                        help="a third arm per seed: the same run with n_jobs=2")
    parser.add_argument("--child", nargs=4, metavar=("WORKLOAD", "SEED", "G", "N_JOBS"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    for name in ("seeds", "repeats", "generations"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name} must be at least 1, got {value}")
    if args.child:
        child(args.child[0], int(args.child[1]), int(args.child[2]), int(args.child[3]))
        return
    print(f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; one BLAS "
          "thread per run; medians over seeds x repeats")
    pool_head = " pool speed-up | pool / its seed's ceiling |" if args.pool else ""
    print("| workload | G | alone wall s | pair wall s (each) | slowdown (wall) | "
          "slowdown (CPU) | two-process ceiling |" + pool_head)
    print("|---|---|---|---|---|---|---|" + ("---|---|" if args.pool else ""))
    arms = ("alone", "pair", "pool") if args.pool else ("alone", "pair")
    for workload in args.workloads:
        generations = args.generations or DEFAULT_GENERATIONS[workload]
        alone, pair, wall_ratio, cpu_ratio, speedup, share = [], [], [], [], [], []
        for repeat in range(args.repeats):
            for seed in range(args.seeds):
                runs = {}
                # rotate which arm goes first, against the machine's drift
                turn = (seed + repeat) % len(arms)
                for arm in arms[turn:] + arms[:turn]:
                    runs[arm] = timed(workload, seed, generations,
                                      copies=2 if arm == "pair" else 1,
                                      n_jobs=2 if arm == "pool" else 1)
                one, two = runs["alone"][0], runs["pair"]
                if any(r["dataset"] != one["dataset"] for r in two + runs.get("pool", [])):
                    raise AssertionError(f"{workload}, seed {seed}: the runs side by side "
                                         "or the pool gave another dataset than the run "
                                         "alone")
                alone.append(one["wall"])
                pair.extend(r["wall"] for r in two)
                wall_ratio.extend(r["wall"] / one["wall"] for r in two)
                cpu_ratio.extend(r["cpu"] / one["cpu"] for r in two)
                ceiling = 2 * one["wall"] / max(r["wall"] for r in two)  # this seed's
                line = (f"{workload} seed {seed}: alone {one['wall']:.2f} s, pair "
                        f"{two[0]['wall']:.2f} / {two[1]['wall']:.2f} s (ceiling "
                        f"{ceiling:.2f}x)")
                if args.pool:
                    pooled = runs["pool"][0]["wall"]
                    speedup.append(one["wall"] / pooled)
                    share.append(speedup[-1] / ceiling)
                    line += f", pool {pooled:.2f} s (x{speedup[-1]:.2f}, {share[-1]:.2f} " \
                            "of the ceiling)"
                print(line, file=sys.stderr, flush=True)
        slow = statistics.median(wall_ratio)
        tail = (f" {statistics.median(speedup):.2f}x ({min(speedup):.2f}-{max(speedup):.2f}) "
                f"| {statistics.median(share):.2f} ({min(share):.2f}-{max(share):.2f}) |"
                if args.pool else "")
        print(f"| {workload} | {generations} | {statistics.median(alone):.3f} | "
              f"{statistics.median(pair):.3f} | {slow:.3f}x "
              f"({min(wall_ratio):.2f}-{max(wall_ratio):.2f}) | "
              f"{statistics.median(cpu_ratio):.3f}x | {2 / slow:.2f}x |" + tail, flush=True)

if __name__ == "__main__":
    main()
