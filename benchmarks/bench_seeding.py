"""What DEAP's seeding convention costs: a toolbox made with ``seed=None`` against one
made with an int seed, under DEAP's ``eaMuPlusLambda``.

With ``seed=None`` the toolbox's operators draw from Python's ``random`` (``rng=None``):
each call seeds a numpy Generator from it, so that ``random.seed`` repeats the run and
``random.getstate()`` checkpoints it. With an int seed the toolbox keeps its own numpy
Generators. The two are timed interleaved (CPU seconds of the process, median of
``--repeats``), with the ratio None / int, and the per-call cost of the operators.

    python benchmarks/bench_seeding.py [--repeats 7] [--generations 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np
from deap import algorithms, tools

import hawks_deap as hd


def run_once(seed: int | None, generations: int) -> float:
    random.seed(0)
    problem = hd.IndexProblem(500, 4, 2, target=0.5, constraints=[hd.Overlap(max=0.1)])
    toolbox = hd.make_toolbox(problem, seed=seed)
    population = toolbox.population(n=10)
    start = time.process_time()
    algorithms.eaMuPlusLambda(population, toolbox, mu=10, lambda_=10, cxpb=0.5, mutpb=0.5,
                              ngen=generations, halloffame=tools.HallOfFame(1),
                              verbose=False)
    return time.process_time() - start


def per_call(rng: object, repeats: int = 2000) -> float:
    """Microseconds per `mutate` call of a made toolbox's operator with this rng."""
    problem = hd.IndexProblem(500, 4, 2, target=0.5)
    toolbox = hd.make_toolbox(problem, seed=1)
    individual = toolbox.individual()
    start = time.perf_counter()
    for _ in range(repeats):
        hd.operators.mutate(individual, rng=rng, mean_mutation="gaussian",
                            layout=toolbox.problem.layout)
    return (time.perf_counter() - start) / repeats * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--generations", type=int, default=20)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"int": [], "None": []}
    run_once(0, 2)  # warm the imports and caches
    for _ in range(args.repeats):
        times["int"].append(run_once(0, args.generations))
        times["None"].append(run_once(None, args.generations))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"eaMuPlusLambda, N=500 K=4 D=2, mu=lambda=10, {args.generations} generations, "
          f"CPU s, median of {args.repeats} interleaved:")
    print(f"  seed=0    {med['int']:.3f}")
    print(f"  seed=None {med['None']:.3f}  (ratio {med['None'] / med['int']:.3f})")
    gen = np.random.default_rng(0)
    print(f"mutate per call: rng=Generator {per_call(gen):.0f} us, "
          f"rng=None (Python's random) {per_call(None):.0f} us")


if __name__ == "__main__":
    main()
