"""The cost of saving a dataset folder (files synced, renamed into place, the rename synced).

Saves one dataset (N points in 2 dimensions, 5 clusters) ``--saves`` times into fresh
folders of ``--dir`` (the disk to measure: a temporary folder there), in a child process
per checkout, this tree and ``--baseline`` alternating ``--repeats`` times; prints the
median milliseconds per save of each.

    python benchmarks/bench_save.py --baseline OTHER_CHECKOUT [--dir /tmp] [--n 2000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

CHILD = """
import sys, tempfile, time
import numpy as np
import hawks_deap as hd
n, saves, where = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
ds = hd.Dataset(np.random.default_rng(0).normal(size=(n, 2)), np.arange(n) % 5)
with tempfile.TemporaryDirectory(dir=where) as folder:
    start = time.perf_counter()
    for i in range(saves):
        ds.save(f"{folder}/r{i}")
    print((time.perf_counter() - start) / saves * 1e3)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--dir", default="/tmp", help="folder on the disk to measure")
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--saves", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sides = {"baseline": args.baseline.resolve(), "this tree": HERE}
    times: dict[str, list[float]] = {side: [] for side in sides}
    for _ in range(args.repeats):
        for side, tree in sides.items():
            out = subprocess.run([sys.executable, "-c", CHILD, str(args.n), str(args.saves),
                                  args.dir], capture_output=True, text=True, check=True,
                                 cwd=args.dir, env={**os.environ, "PYTHONPATH": str(tree)})
            times[side].append(float(out.stdout))
    for side, values in times.items():
        print(f"{side:10s} {statistics.median(values):6.2f} ms a save (median of "
              f"{args.repeats}: " + ", ".join(f"{v:.2f}" for v in values) + ")")


if __name__ == "__main__":
    main()
