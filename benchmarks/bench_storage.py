"""Disk size of the paper's Index suite in each data format (csv, npz).

The paper's suite (`examples/paper_index_suite.py`) holds 448 run folders, 56 for each
(N, D, K) in {500, 2500} x {2, 50} x {5, 30}. This script evolves one dataset per
(N, D, K) (s_t = 0.45, overlap <= 0.1, P=10, G=20, seed 0), saves its run folder (data,
genes, metadata, logbook) in each format, and scales the sizes by 56: an estimate of the
whole suite, checked against its measured CSV size (BENCHMARKS.md).

    python benchmarks/bench_storage.py
"""

from __future__ import annotations

import os
import tempfile

import hawks_deap as hd
from hawks_deap.campaign.runs import logbook_csv

FORMATS = ("csv", "npz")


def folder_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))


def main() -> None:
    total = dict.fromkeys(FORMATS, 0)
    data = dict.fromkeys(FORMATS, 0)
    print("| N | D | K | data.csv B | data.npz B | npz / csv |")
    print("|---|---|---|---|---|---|")
    for n in (500, 2500):
        for d in (2, 50):
            for k in (5, 30):
                problem = hd.IndexProblem(n, k, d, 0.45, constraints=[hd.Overlap(max=0.1)])
                result = hd.evolve(problem, population_size=10, generations=20, seed=0)
                dataset = result.best_dataset()
                sizes = {}
                with tempfile.TemporaryDirectory() as tmp:
                    for fmt in FORMATS:
                        path = dataset.save(os.path.join(tmp, fmt), format=fmt, extra_files={
                            "logbook.csv": logbook_csv(result.logbook)})
                        sizes[fmt] = os.path.getsize(os.path.join(path, f"data.{fmt}"))
                        total[fmt] += 56 * folder_bytes(path)
                        data[fmt] += 56 * sizes[fmt]
                print(f"| {n} | {d} | {k} | {sizes['csv']} | {sizes['npz']} | "
                      f"{sizes['npz'] / sizes['csv']:.3f} |")
    for fmt in FORMATS:
        print(f"448 run folders, {fmt}: {total[fmt] / 1e6:.0f} MB in all, "
              f"{data[fmt] / 1e6:.0f} MB of data files")


if __name__ == "__main__":
    main()
