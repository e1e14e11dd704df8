"""Peak memory of one pairwise-linkage call against `ClusteringAlgorithm.memory_bytes`.

The memory checks (`check_memory`, a Versus problem's ``evaluation_bytes``, `evolve`'s
``n_jobs`` and a suite's ``--workers``) count ``memory_bytes(N)`` per process: the
condensed distance matrix ``pdist`` returns and the working copy scipy's ``linkage``
makes of it. Each call here runs in a fresh child (Linux: the peak resident size over the
call, ``VmHWM`` reset through ``/proc/self/clear_refs``, less the resident size before),
the least of three calls, so the figure is the call's own.

    python benchmarks/bench_linkage_memory.py [--sizes 5000 12000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

CHILD = """
import sys
from sklearn.datasets import make_blobs
from hawks_deap.clustering import get_algorithm


def status(key):
    with open("/proc/self/status") as lines:
        return next(1024 * int(line.split()[1]) for line in lines if line.startswith(key))


name, n = sys.argv[1], int(sys.argv[2])
X = make_blobs(n_samples=n, centers=4, random_state=0)[0]
algorithm = get_algorithm(name)
algorithm(X[:50], 3, 0)
peaks = []
for _ in range(3):
    before = status("VmRSS:")
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    algorithm(X, 3, 0)
    peaks.append(status("VmHWM:") - before)
print(min(peaks), algorithm.memory_bytes(n))
"""

ALGORITHMS = ("average-linkage", "complete-linkage", "ward-linkage", "average-linkage-2k",
              "single-linkage")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 12000])
    args = parser.parse_args()
    print("| algorithm | N | one condensed matrix, MB | peak of the call, MB | "
          "memory_bytes, MB | peak / memory_bytes |")
    print("|---|---|---|---|---|---|")
    for n in args.sizes:
        for name in ALGORITHMS:
            out = subprocess.run([sys.executable, "-c", CHILD, name, str(n)], check=True,
                                 capture_output=True, text=True).stdout.split()
            peak, bound = int(out[0]), int(out[1])
            condensed = 8 * n * (n - 1) // 2
            ratio = f"{peak / bound:.4f}" if bound else "(no declared need)"
            print(f"| {name} | {n:,} | {condensed / 1e6:.1f} | {peak / 1e6:.1f} | "
                  f"{bound / 1e6:.1f} | {ratio} |")


if __name__ == "__main__":
    main()
