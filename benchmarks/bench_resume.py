"""Resume time of a finished suite: the checks of every finished run, nothing to run.

A grid of 4 small configurations x ``--runs`` runs (N in {50, 60}, K = 2, target in
{0.3, 0.6}, G = 1, population 2) is run once into ``--out`` (kept, and reused when it
already holds the suite), then run again ``--repeats`` times: each time every run is
finished, so the time is the resume's own (reading the summary, checking each run's
folder, writing the summary back). Prints each time and the median.

    python benchmarks/bench_resume.py [--runs 50] [--repeats 3] [--out DIR] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from hawks_deap.campaign import suite as hs

GRID = """
[suite]
runs = {runs}
seed = 0

[dataset]
n_samples = [50, 60]
n_clusters = 2

[objective]
target = [0.3, 0.6]

[ga]
generations = 1
population_size = 2
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50,
                        help="runs per configuration (4 configurations)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None,
                        help="suite folder, kept (default: a temporary one)")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    runs, repeats = (2, 1) if args.quick else (args.runs, args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "suite"
        grid = Path(tmp) / "grid.toml"
        grid.write_text(GRID.format(runs=runs))
        suite = hs.load_suite(grid)
        t0 = time.perf_counter()
        hs.run_suite(suite, out)
        print(f"{len(suite.tasks())} runs finished in {out} "
              f"({time.perf_counter() - t0:.1f} s, resumed if it held them already)")
        times = []
        for _ in range(repeats):
            redone: list[dict[str, str]] = []
            t0 = time.perf_counter()
            hs.run_suite(suite, out, on_row=redone.append)
            times.append(time.perf_counter() - t0)
            if redone:
                raise SystemExit(f"the resume ran {len(redone)} runs again")
        print("resume times: " + ", ".join(f"{t:.3f} s" for t in times)
              + f"; median {statistics.median(times):.3f} s")


if __name__ == "__main__":
    main()
