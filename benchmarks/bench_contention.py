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
each child times its own run (wall and CPU, from inside), and all three runs of a seed
must give the same dataset (checked).

    python benchmarks/bench_contention.py [--workloads a c versus scale] [--seeds 3]
                                          [--repeats 1] [--generations G]

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


def _run(workload: str, seed: int, generations: int) -> str:
    """One serial run, as ``bench_versus.py --speedup`` or ``bench_index.py`` runs it; the
    sha256 of its best dataset."""
    if workload == "versus":
        import hashlib

        import bench_versus

        args = argparse.Namespace(n_samples=2000, overlap=0.1, population=10,
                                  generations=generations)
        problem = bench_versus.make_problem("gmm", "single-linkage", args)
        result, _ = bench_versus.evolve(problem, seed, 1, args)
        return hashlib.sha256(result.best_dataset().X.tobytes()).hexdigest()
    from bench_index import run_one

    return run_one({"cfg": CONFIGS[workload], "metric": "sqeuclidean", "evaluator": "fast",
                    "generations": generations, "seed": seed})["dataset"]


def child(workload: str, seed: int, generations: int) -> None:
    """Warm up, say ready, wait for the go, run, print wall and CPU as JSON."""
    _run(workload, seed + 1000, 3)  # imports, kernels, clustering libraries
    print("ready", flush=True)
    sys.stdin.readline()
    t0, c0 = time.perf_counter(), time.process_time()
    digest = _run(workload, seed, generations)
    print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                      "dataset": digest}), flush=True)


def timed(workload: str, seed: int, generations: int, copies: int) -> list[dict]:
    """Start ``copies`` children, release them together, return their reports."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(HERE.parent), env.get("PYTHONPATH")) if p)
    procs = [subprocess.Popen([sys.executable, __file__, "--child", workload, str(seed),
                               str(generations)], stdin=subprocess.PIPE,
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
    parser.add_argument("--child", nargs=3, metavar=("WORKLOAD", "SEED", "G"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    for name in ("seeds", "repeats", "generations"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name} must be at least 1, got {value}")
    if args.child:
        child(args.child[0], int(args.child[1]), int(args.child[2]))
        return
    print(f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; one BLAS "
          "thread per run; medians over seeds x repeats")
    print("| workload | G | alone wall s | pair wall s (each) | slowdown (wall) | "
          "slowdown (CPU) | two-process ceiling |")
    print("|---|---|---|---|---|---|---|")
    for workload in args.workloads:
        generations = args.generations or DEFAULT_GENERATIONS[workload]
        alone, pair, wall_ratio, cpu_ratio = [], [], [], []
        for repeat in range(args.repeats):
            for seed in range(args.seeds):
                runs = {}
                # alternate which arm goes first, against the machine's drift
                for copies in ((1, 2) if (seed + repeat) % 2 == 0 else (2, 1)):
                    runs[copies] = timed(workload, seed, generations, copies)
                one, two = runs[1][0], runs[2]
                if any(r["dataset"] != one["dataset"] for r in two):
                    raise AssertionError(f"{workload}, seed {seed}: the runs side by side "
                                         "gave another dataset than the run alone")
                alone.append(one["wall"])
                pair.extend(r["wall"] for r in two)
                wall_ratio.extend(r["wall"] / one["wall"] for r in two)
                cpu_ratio.extend(r["cpu"] / one["cpu"] for r in two)
        slow = statistics.median(wall_ratio)
        print(f"| {workload} | {generations} | {statistics.median(alone):.3f} | "
              f"{statistics.median(pair):.3f} | {slow:.3f}x "
              f"({min(wall_ratio):.2f}-{max(wall_ratio):.2f}) | "
              f"{statistics.median(cpu_ratio):.3f}x | {2 / slow:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
