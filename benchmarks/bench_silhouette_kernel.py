"""The silhouette's compiled blocks above two dimensions (`_compiled.silhouette_genes`) alone.

Config c's sizes: K = 30 genes of 2000 points in all, D = 50, with a third of the
gene-centroid rows stale (what a c evaluation measures on average: 285 of 870 rows).
Each checkout (its extension built in place; first on ``PYTHONPATH``) times ``--calls``
calls in a fresh child, ``--repeats`` times interleaved with the others; the table gives
the median time per call, and every checkout must give the same values (a hash of the
blocks and s(i)).

    python benchmarks/bench_silhouette_kernel.py CHECKOUT [CHECKOUT ...] [--repeats 7]

To compare the kernel's loops, build variants of one checkout: e.g. the scalar loop with
``CFLAGS=-DHAWKS_DEAP_NO_SSE2 python setup.py build_ext --inplace`` in a copy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

K, N, DIMS, STALE = 30, 2000, 50, 285 / 870


def child(calls: int) -> None:
    """Time the kernel in this process (the checkout comes first on sys.path)."""
    import hashlib
    import time

    import numpy as np

    from hawks_deap.evaluation import _compiled

    _compiled.set_compiled(None)
    if not _compiled.native():
        raise SystemExit("this checkout has no built C kernels")
    rng = np.random.default_rng(0)
    sizes = rng.multinomial(N - K, np.ones(K) / K) + 1
    points_t = [np.ascontiguousarray(rng.normal(size=(n, DIMS)).T) for n in sizes]
    ctx = [np.empty((K, n)) for n in sizes]
    own = [np.empty(n) for n in sizes]
    centroids = rng.normal(size=(K, DIMS))
    scatter, counts = rng.uniform(1.0, 2.0, K), sizes.astype(float)
    _compiled.silhouette_genes(points_t, ctx, own, np.ones((K, K), np.uint8), centroids,
                               scatter, counts)
    stale = (rng.random((K, K)) < STALE).astype(np.uint8)
    np.fill_diagonal(stale, 0)
    start = time.perf_counter()
    for _ in range(calls):
        s = _compiled.silhouette_genes(points_t, ctx, own, stale, centroids, scatter, counts)
    elapsed = (time.perf_counter() - start) / calls
    digest = hashlib.sha256(s.tobytes() + b"".join(c.tobytes() for c in ctx)).hexdigest()
    print(json.dumps({"us": elapsed * 1e6, "rows": int(stale.sum()), "hash": digest}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.calls)
        return
    times: dict[str, list[float]] = {c: [] for c in args.checkouts}
    hashes: dict[str, set[str]] = {c: set() for c in args.checkouts}
    rows = 0
    for _ in range(args.repeats):
        for checkout in args.checkouts:
            out = subprocess.run([sys.executable, __file__, "--child", "--calls",
                                  str(args.calls), checkout], check=True,
                                 capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": checkout}).stdout
            result = json.loads(out.strip().splitlines()[-1])
            times[checkout].append(result["us"])
            hashes[checkout].add(result["hash"])
            rows = result["rows"]
    same = len(set().union(*hashes.values())) == 1
    print(f"K = {K}, N = {N}, D = {DIMS}, {rows} stale rows of {K * K - K}; "
          f"{args.calls} calls x {args.repeats} repeats, interleaved")
    print("| checkout | us per call (median) | spread | same values |")
    print("|---|---|---|---|")
    for checkout, ts in times.items():
        print(f"| {checkout} | {statistics.median(ts):.1f} | {min(ts):.1f}-{max(ts):.1f} | "
              f"{'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()
