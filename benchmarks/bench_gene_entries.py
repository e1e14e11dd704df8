"""Building genes' entries (points, centroid, scatter, radius): this tree against a baseline.

A pool's workers each build the entry of every gene they meet (BENCHMARKS.md, "Gene
entries, and where a pool at N = 100,000 loses"), so its cost weighs on Index mode at
N = 100,000. Each side builds the entries of 20 random individuals of the scale
problem (N = 100,000, K = 20, D = 2: 400 entries of 5,000 points) in a fresh child,
``--repeats`` times interleaved, and must build the same points and centroids (a hash).

    python benchmarks/bench_gene_entries.py --baseline OTHER_CHECKOUT [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def child() -> dict:
    """Build the entries once, in this process; their time per entry and a hash."""
    import hashlib

    import numpy as np

    import hawks_deap as hd

    problem = hd.IndexProblem(n_samples=100_000, n_clusters=20, n_dims=2, target=0.5,
                              constraints=[hd.Overlap(max=0.1)])
    problem.prepare(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    genes = [(j, g) for _ in range(20)
             for j, g in enumerate(problem.random_individual(rng))]
    store = problem.evaluator.store
    t0 = time.perf_counter()
    entries = [store.gene(j, g) for j, g in genes]
    per_entry = (time.perf_counter() - t0) / len(genes)
    digest = hashlib.sha256()
    for e in entries:
        digest.update(e.points.tobytes() + e.centroid.tobytes())
    return {"us": per_entry * 1e6, "hash": digest.hexdigest()[:16]}


def run(checkout: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout), OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child"],
                         env=env, cwd="/" if os.name != "nt" else None, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout's root")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child()))
        return
    sides = {"this tree": HERE} | ({"baseline": args.baseline} if args.baseline else {})
    times: dict[str, list[float]] = {name: [] for name in sides}
    hashes = set()
    for _ in range(args.repeats):
        for name, root in sides.items():
            result = run(root)
            times[name].append(result["us"])
            hashes.add(result["hash"])
    print(f"400 entries of 5,000 points, {args.repeats} fresh processes per side, interleaved")
    for name, values in times.items():
        print(f"{name}: {statistics.median(values):.0f} us an entry (median; "
              f"{', '.join(f'{v:.0f}' for v in values)})")
    if args.baseline:
        ratio = statistics.median(times["baseline"]) / statistics.median(times["this tree"])
        print(f"speed-up: {ratio:.2f}x")
    print("same points and centroids:", "yes" if len(hashes) == 1 else "NO")


if __name__ == "__main__":
    main()
