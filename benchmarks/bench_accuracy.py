"""Accuracy of Index mode with the paper's settings (core issue acceptance).

P=10, G=100, p_c=0.7, p_m=1/K, P_f=0.5, PSO-random mean mutation, overlap <= 0.1.
Configs: a (N=2000, K=5, D=2, s_t=0.5), b (N=1000, K=10, D=20, s_t=0.9),
c (N=2000, K=30, D=50, s_t=0.2). Prints, per config, |s_t - s| of the best individual for
each seed, the median, the overlap of the best and the wall time.

    python benchmarks/bench_accuracy.py [--seeds 5] [--configs a b c] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

import hawks_deap as hd

CONFIGS = {
    "a": dict(n_samples=2000, n_clusters=5, n_dims=2, target=0.5),
    "b": dict(n_samples=1000, n_clusters=10, n_dims=20, target=0.9),
    "c": dict(n_samples=2000, n_clusters=30, n_dims=50, target=0.2),
}


def run(name: str, seeds: int, generations: int) -> dict:
    cfg = CONFIGS[name]
    errors, overlaps, times, feasible = [], [], [], []
    for seed in range(seeds):
        problem = hd.IndexProblem(**cfg, constraints=[hd.Overlap(max=0.1)])
        t0 = time.perf_counter()
        result = hd.evolve(problem, population_size=10, generations=generations,
                           p_crossover=0.7, p_f=0.5, mean_mutation="pso", seed=seed)
        times.append(time.perf_counter() - t0)
        errors.append(result.best.fitness.values[0])
        overlaps.append(result.best.record["overlap"])
        feasible.append(result.best.record["feasible"])
    return dict(errors=errors, overlaps=overlaps, times=times, feasible=feasible)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--quick", action="store_true", help="2 seeds, 5 generations")
    args = parser.parse_args()
    seeds, generations = (2, 5) if args.quick else (args.seeds, 100)
    print(f"seeds 0..{seeds - 1}, G={generations}, P=10, p_c=0.7, P_f=0.5, pso, overlap<=0.1")
    print("| config | N, K, D | s_t | abs(s_t - s) per seed | median | all feasible | "
          "median wall s |")
    print("|---|---|---|---|---|---|---|")
    for name in args.configs:
        r = run(name, seeds, generations)
        cfg = CONFIGS[name]
        per_seed = ", ".join(f"{e:.1e}" for e in r["errors"])
        print(f"| {name} | {cfg['n_samples']}, {cfg['n_clusters']}, {cfg['n_dims']} | "
              f"{cfg['target']} | {per_seed} | {statistics.median(r['errors']):.2e} | "
              f"{all(r['feasible'])} | {statistics.median(r['times']):.1f} |", flush=True)


if __name__ == "__main__":
    main()
