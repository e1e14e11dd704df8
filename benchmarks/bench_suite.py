"""Suite throughput: the same grid with 1 and 2 workers (and the dask backend), side by side.

A grid of 12 configurations x ``--runs`` runs (default 1; N=1000, K in {5, 10}, D in {2, 10, 20},
target in {0.45, 0.9}, overlap <= 0.1, G=100), run with backend "processes" and 1
worker, then 2 workers, then "dask" with 2 workers, into fresh directories; repeated
``--repeats`` times. Prints each wall time, the medians, the speed-up of 2 workers over
1 and whether the summaries and datasets are byte-identical.

    python benchmarks/bench_suite.py [--repeats 3] [--runs 1] [--quick]
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
n_samples = {n}
n_clusters = [5, 10]
n_dims = [2, 10, 20]

[objective]
target = [0.45, 0.9]

[constraints]
max_overlap = 0.1

[ga]
generations = {g}
"""


def snapshot(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != "suite.json"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--runs", type=int, default=1,
                        help="runs per configuration (12 configurations)")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, g, repeats = (200, 3, 1) if args.quick else (1000, 100, args.repeats)
    setups = [("processes", 1), ("processes", 2), ("dask", 2)]
    times: dict[tuple[str, int], list[float]] = {s: [] for s in setups}
    identical = True
    with tempfile.TemporaryDirectory() as tmp:
        grid = Path(tmp) / "grid.toml"
        grid.write_text(GRID.format(n=n, g=g, runs=args.runs))
        suite = hs.load_suite(grid)
        print(f"{len(suite.tasks())} runs per suite, N={n}, G={g}")
        for rep in range(repeats):
            ref = None
            for backend, workers in setups:
                out = Path(tmp) / f"{backend}-{workers}-{rep}"
                t0 = time.perf_counter()
                hs.run_suite(suite, out, workers=workers, backend=backend)
                times[(backend, workers)].append(time.perf_counter() - t0)
                snap = snapshot(out)
                ref = snap if ref is None else ref
                identical &= snap == ref
            print(f"repeat {rep}: " + ", ".join(
                f"{b} x{w} {times[(b, w)][-1]:.1f} s" for b, w in setups), flush=True)
    med = {s: statistics.median(t) for s, t in times.items()}
    print("| backend | workers | median wall s | speed-up vs 1 worker |")
    print("|---|---|---|---|")
    base = med[("processes", 1)]
    for (b, w), m in med.items():
        print(f"| {b} | {w} | {m:.1f} | {base / m:.2f}x |")
    ratios = [a / b for a, b in zip(times[("processes", 1)], times[("processes", 2)],
                                    strict=True)]
    print("per-repeat speed-up of 2 processes over 1: "
          + ", ".join(f"{r:.2f}" for r in ratios) + f" (median {statistics.median(ratios):.2f})")
    print(f"summaries and datasets byte-identical across setups: {identical}")


if __name__ == "__main__":
    main()
