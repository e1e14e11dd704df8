"""What a pool's messages cost, beside the work: maps of evaluations that do nothing.

Each checkout runs in a fresh interpreter: a Versus problem (GMM vs single-linkage,
N = 2000, K = 5, D = 2, as ``bench_versus.py``) whose ``evaluate`` returns one evaluation
made beforehand (and whose evaluation parts do nothing), so that a map of P individuals
through ``ProblemPool(problem, 2)`` costs only what the pool adds: writing the individuals,
sending them, rebuilding them in a worker, and the evaluations' way back. Reported per map
(median of the rounds): the wall time (and a task's share of a worker's time, 2 x wall /
tasks: a task per individual, or per part of its evaluation), the parent's CPU time (all
its threads) and that of its calling thread; and a
genotype's ``pickle.dumps`` and ``pickle.loads``. Checkouts alternate round by round.

    python benchmarks/bench_pool_messages.py [--baseline <checkout>] [--rounds 5]
                                             [--maps 200] [--population 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, pickle, sys, time
import numpy as np
import hawks_deap as hd
from hawks_deap.algorithms.pool import EvaluateTask, ProblemPool

maps, population = int(sys.argv[1]), int(sys.argv[2])
problem = hd.VersusProblem("gmm", "single-linkage", n_samples=2000, n_clusters=5,
                           n_dims=2, score="ari", constraints=[hd.Overlap(max=0.1)],
                           initial_mean_upper=10.0)
problem.prepare(np.random.default_rng(0))
rng = np.random.default_rng(1)
individuals = [problem.random_individual(rng) for _ in range(population)]
done = problem.evaluate(individuals[0], 1)
type(problem).evaluate = lambda self, individual, eval_seed=None: done  # before the fork
# a pool that sends an evaluation in parts (since c1f8c76: one task per clustering) sends
# parts that do nothing either, and joins them into the same evaluation
type(problem).evaluate_part = lambda self, individual, eval_seed=None, part=0: None
type(problem).join_parts = lambda self, individual, eval_seed, parts: done
parts = problem.evaluation_parts() if hasattr(problem, "evaluation_parts") else 1
out = {"file": hd.__file__, "tasks": population * parts}
with ProblemPool(problem, 2) as pool:
    task = EvaluateTask(problem)
    pool.map(task, [(ind, 0) for ind in individuals])
    cpu, thread, wall = time.process_time(), time.thread_time(), time.perf_counter()
    for generation in range(maps):
        pool.map(task, [(ind, generation) for ind in individuals])
    out["wall"] = (time.perf_counter() - wall) / maps
    out["cpu"] = (time.process_time() - cpu) / maps
    out["thread"] = (time.thread_time() - thread) / maps
data = pickle.dumps(individuals[0], protocol=pickle.HIGHEST_PROTOCOL)
t = time.perf_counter()
for _ in range(1000):
    pickle.dumps(individuals[0], protocol=pickle.HIGHEST_PROTOCOL)
out["dumps"] = (time.perf_counter() - t) / 1000
t = time.perf_counter()
for _ in range(1000):
    pickle.loads(data)
out["loads"] = (time.perf_counter() - t) / 1000
print(json.dumps(out))
"""


def run(checkout: str, maps: int, population: int) -> dict:
    env = dict(os.environ, PYTHONPATH=checkout, OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", CHILD, str(maps), str(population)],
                          env=env, capture_output=True, text=True, cwd="/", check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{checkout}:\n{done.stderr}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    if not out["file"].startswith(str(Path(checkout).resolve())):
        raise RuntimeError(f"{checkout} imported hawks_deap from {out['file']}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="another checkout, measured alternately")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--maps", type=int, default=200)
    parser.add_argument("--population", type=int, default=10)
    args = parser.parse_args()
    trees = {"this tree": str(Path(__file__).resolve().parents[1])}
    if args.baseline:
        if not (Path(args.baseline) / "hawks_deap").is_dir():
            parser.error(f"--baseline {args.baseline!r} has no hawks_deap/ folder")
        trees["baseline"] = str(Path(args.baseline).resolve())
    for name in ("rounds", "maps", "population"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    rows: dict[str, list[dict]] = {name: [] for name in trees}
    for round_ in range(args.rounds):
        for name in (trees if round_ % 2 == 0 else reversed(list(trees))):
            rows[name].append(run(trees[name], args.maps, args.population))
    print(f"# ProblemPool(problem, 2): {args.maps} maps of {args.population} evaluations "
          f"that do nothing, {args.rounds} rounds alternating; {os.cpu_count()} CPUs")
    print("| checkout | tasks a map | wall ms a map | a worker's ms a task | parent CPU ms a map | "
          "calling thread ms a map | genotype dumps us | genotype loads us |")
    print("|---|---|---|---|---|---|---|---|")
    for name, runs in rows.items():
        def med(key: str, scale: float, runs: list[dict] = runs) -> str:
            values = [r[key] * scale for r in runs]
            return (f"{statistics.median(values):.2f} "
                    f"({min(values):.2f}-{max(values):.2f})")

        tasks = runs[0].get("tasks", args.population)  # (an older checkout: one each)
        print(f"| {name} | {tasks} | {med('wall', 1e3)} | {med('wall', 2e3 / tasks)} | "
              f"{med('cpu', 1e3)} | {med('thread', 1e3)} | "
              f"{med('dumps', 1e6)} | {med('loads', 1e6)} |")


if __name__ == "__main__":
    main()
