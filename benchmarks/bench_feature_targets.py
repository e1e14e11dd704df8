"""Feature targets against Index mode on config a (issue 35, item 1, acceptance).

Config a: N=2000, K=5, D=2, P=10, G=100, p_c=0.7, P_f=0.5, PSO-random mean mutation,
overlap <= 0.1, s_t = 0.5. For each seed, ``IndexProblem(target=0.5)`` and
``FeatureTargetProblem(targets={"silhouette": 0.5})`` run back to back (interleaved, each
in a fresh interpreter, BLAS at 1 thread), so that the machine's drift affects the ratio
little. Reported: wall time per generation, the ratio (feature targets over Index mode)
per seed and of the medians, the final ``|s_t - s|``, and whether the two runs returned
the same dataset (they should: the fitness is the same float). ``--extra`` also times a
run targeting silhouette, connectivity and eccentricity (what the points cost).

    python benchmarks/bench_feature_targets.py [--seeds 3] [--generations 100] [--extra]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time

N, K, D = 2000, 5, 2  # config a
TARGET = 0.5
EXTRA_TARGETS = {"silhouette": 0.5, "connectivity": 0.5, "eccentricity": 2.0}


def run_one(kind: str, seed: int, generations: int) -> dict:
    """One seeded run of ``kind`` ("index", "feature" or "extra") in this process."""
    import hawks_deap as hd
    from hawks_deap.problems import FeatureTargetProblem

    constraints = [hd.Overlap(max=0.1)]
    problem: hd.IndexProblem | FeatureTargetProblem
    if kind == "index":
        problem = hd.IndexProblem(N, K, D, target=TARGET, constraints=constraints)
    else:
        targets = {"silhouette": TARGET} if kind == "feature" else EXTRA_TARGETS
        problem = FeatureTargetProblem(N, K, D, targets=targets, constraints=constraints)
    t0 = time.perf_counter()
    result = hd.evolve(problem, population_size=10, generations=generations,
                       p_crossover=0.7, p_f=0.5, mean_mutation="pso", seed=seed, n_jobs=1)
    wall = time.perf_counter() - t0
    X, y = problem.sample(result.best)
    record = result.best.record
    silhouette = float(record["index"])  # the silhouette in both problems' records
    return {"kind": kind, "seed": seed, "per_gen": wall / generations,
            "error": abs(TARGET - silhouette), "fitness": result.best.fitness.values[0],
            "feasible": bool(record.get("feasible")),
            "dataset": hashlib.sha256(X.tobytes() + y.tobytes()).hexdigest()[:16]}


def run_child(kind: str, seed: int, generations: int) -> dict:
    """``run_one`` in a fresh interpreter (its own JIT warm-up and caches)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, "--one", kind, str(seed),
                          str(generations)], env=env, check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--generations", type=int, default=100)
    parser.add_argument("--extra", action="store_true")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        kind, seed, generations = args.one
        print(json.dumps(run_one(kind, int(seed), int(generations))))
        return
    kinds = ["index", "feature"] + (["extra"] if args.extra else [])
    runs: dict[str, list[dict]] = {k: [] for k in kinds}
    print(f"load average before: {os.getloadavg()}")
    for seed in range(args.seeds):
        for kind in kinds:
            row = run_child(kind, seed, args.generations)
            runs[kind].append(row)
            print(json.dumps(row), flush=True)
        ratio = runs["feature"][-1]["per_gen"] / runs["index"][-1]["per_gen"]
        same = runs["feature"][-1]["dataset"] == runs["index"][-1]["dataset"]
        print(f"seed {seed}: feature/index per generation {ratio:.3f}, same dataset {same}")
    medians = {k: statistics.median(r["per_gen"] for r in rows) for k, rows in runs.items()}
    for kind, median in medians.items():
        print(f"{kind}: median {1000 * median:.2f} ms per generation, ratio to index "
              f"{median / medians['index']:.3f}, max |s_t - s| "
              f"{max(r['error'] for r in runs[kind]):.2e}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
