"""performance_table: one clustering call per (dataset, algorithm) against the table, which
builds each linkage tree once per dataset and cuts it at K and 2K.

    python benchmarks/bench_performance_table.py [--datasets 20] [--n 2000] [--repeats 3]

The paper's six algorithms on ``--datasets`` HAWKS datasets of N points (D=2, K=5..9,
`hawks_deap.make_hawks` with 5 generations); the two ways alternate ``--repeats`` times in
one process. Prints the wall and CPU medians, their ratio, and whether the two tables are
identical. Set OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 to measure as a worker of
``performance_table(n_jobs > 1)`` runs (one BLAS/OpenMP thread).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import hawks_deap as hd
from hawks_deap._util.validation import as_seed_sequence, int_seed
from hawks_deap.analysis.features import performance_table
from hawks_deap.clustering import PAPER_ALGORITHMS, get_algorithm
from hawks_deap.metrics import adjusted_rand_index


def separate(datasets: list[tuple[np.ndarray, np.ndarray]], seed: int = 0) -> np.ndarray:
    """The table as one call per (dataset, algorithm), each linkage built by its own call,
    with the seeds `performance_table` gives (spawned by position)."""
    runners = [get_algorithm(name) for name in PAPER_ALGORITHMS]
    ss = as_seed_sequence(seed)
    rows = []
    for i, (X, y) in enumerate(datasets):
        k = len(np.unique(y))
        rows.append([adjusted_rand_index(y, r(X, k, int_seed(ss, i, j)))
                     for j, r in enumerate(runners)])
    return np.array(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=20)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    data = [hd.make_hawks(args.n, 2, 5 + i % 5, generations=5, random_state=i)
            for i in range(args.datasets)]
    ways = {"one call each": lambda: separate(data),
            "performance_table": lambda: performance_table(data, seed=0).values}
    wall: dict[str, list[float]] = {name: [] for name in ways}
    cpu: dict[str, list[float]] = {name: [] for name in ways}
    tables = {}
    for _ in range(args.repeats):
        for name, run in ways.items():
            t0, c0 = time.perf_counter(), time.process_time()
            tables[name] = run()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    for label, times in (("wall", wall), ("CPU", cpu)):
        for name, ts in times.items():
            print(f"{label} {name:18s} median {statistics.median(ts):7.3f} s  ("
                  + ", ".join(f"{t:.3f}" for t in ts) + ")")
        old, new = (statistics.median(ts) for ts in times.values())
        print(f"{label} one call each / performance_table: {old / new:.2f}x")
    first, second = tables.values()
    print(f"identical tables: {np.array_equal(first, second)}")


if __name__ == "__main__":
    main()
