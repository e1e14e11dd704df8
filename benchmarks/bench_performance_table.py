"""performance_table: one clustering call per (dataset, algorithm) against the table, which
builds each linkage tree once per dataset and cuts it at K and 2K.

    python benchmarks/bench_performance_table.py [--datasets 20] [--n 2000] [--repeats 3]
    python benchmarks/bench_performance_table.py --battery ../shared/data/clustering-data-v1/sipu

The paper's six algorithms on ``--datasets`` HAWKS datasets of N points (D=2, K=5..9,
`hawks_deap.make_hawks` with 5 generations), or on the datasets of a clustering-benchmarks
battery (``--battery``, read with `hawks_deap.io.batteries.read_battery`; those of more than
``--max-points`` points left out, as in benchmarks/fidelity_sources.py: the linkages cannot
hold their distances). The two ways alternate ``--repeats`` times in one process: on the
HAWKS datasets "one call each" is a loop of separate calls; on a battery it is
`performance_table` itself with every algorithm run alone (no shared tree), so noise
points are scored as the table scores them. Prints the wall and CPU medians, their ratio,
and whether the two tables are identical. Set OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 to
measure as a worker of ``performance_table(n_jobs > 1)`` runs (one BLAS/OpenMP thread).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Iterator
from typing import Any

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


class _Alone:
    """A runner that ignores ``trees``: every linkage built by its own call."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner

    def __call__(self, X: np.ndarray, k: int, seed: int | None, *, trees: Any = None
                 ) -> np.ndarray:
        return self.runner(X, k, seed)


@contextlib.contextmanager
def unshared_trees() -> Iterator[None]:
    """`performance_table` (with ``n_jobs=1``) with each algorithm run alone."""
    from hawks_deap.analysis import features

    row = features._performance_row

    def alone_row(task: tuple) -> list[float]:
        X, codes, k, scored, runners, seeds = task
        return row((X, codes, k, scored, [_Alone(r) for r in runners], seeds))

    features._performance_row = alone_row
    try:
        yield
    finally:
        features._performance_row = row


def alone_table(datasets: list[Any]) -> np.ndarray:
    with unshared_trees():
        return performance_table(datasets, seed=0).values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=20)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--battery", help="a battery folder, e.g. clustering-data-v1/sipu")
    parser.add_argument("--max-points", type=int, default=20_000)
    args = parser.parse_args()
    if args.battery:
        from hawks_deap.io.batteries import read_battery

        data = [d for d in read_battery(args.battery) if d.n_samples <= args.max_points]
        print(f"{len(data)} datasets: "
              + ", ".join(f"{d.metadata['name']} ({d.n_samples})" for d in data))
        ways = {"one call each": lambda: alone_table(data),
                "performance_table": lambda: performance_table(data, seed=0).values}
    else:
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
