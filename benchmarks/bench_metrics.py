"""Speed of the validity indices, side by side with scikit-learn (metrics issue acceptance).

External indices on 10^6 labels with 30 clusters in each labelling (acceptance: each
under 1 s on the 2-core machine), plus the large-table edge cases (10^6 singletons);
internal indices on N=2000, K=5, D=2 (HAWKS' default size). Each time is the median of
``--repeats`` runs; where scikit-learn has the same index, its median is printed next to
ours with the ratio ours / scikit-learn (< 1: ours is faster).

    python benchmarks/bench_metrics.py [--n 1000000] [--clusters 30] [--repeats 3] [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np
import scipy
import sklearn
from sklearn import metrics as skm
from sklearn.metrics.cluster import pair_confusion_matrix

import hawks_deap.metrics as hm

SKLEARN_EXTERNAL: dict[str, Callable] = {
    "adjusted_rand_index": skm.adjusted_rand_score,
    "rand_index": skm.rand_score,
    "fowlkes_mallows": skm.fowlkes_mallows_score,
    "mutual_information": skm.mutual_info_score,
    "normalized_mutual_information": lambda t, p: skm.normalized_mutual_info_score(
        t, p, average_method="geometric"),
    "pair_confusion": pair_confusion_matrix,
}
SKLEARN_INTERNAL: dict[str, Callable] = {
    "silhouette": skm.silhouette_score,
    "davies_bouldin": skm.davies_bouldin_score,
    "calinski_harabasz": skm.calinski_harabasz_score,
}


def median_time(func: Callable, args: tuple, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def row(name: str, ours: float, theirs: float | None, limit: float | None) -> str:
    sk = "-" if theirs is None else f"{theirs:.4f}"
    ratio = "-" if theirs is None else f"{ours / theirs:.2f}"
    verdict = "" if limit is None else (" | yes" if ours < limit else " | **NO**")
    return f"| {name} | {ours:.4f} | {sk} | {ratio}{verdict} |"


def bench_external(n: int, k: int, repeats: int) -> None:
    rng = np.random.default_rng(0)
    true = rng.integers(0, k, n)
    pred = np.where(rng.random(n) < 0.5, true, rng.integers(0, k, n))
    print(f"\n### External indices: n = {n:,} labels, {k} clusters in each labelling\n")
    print("| index | ours s (median) | scikit-learn s | ours / sklearn | under 1 s |")
    print("|---|---|---|---|---|")
    names = [*hm.available("external"), "pair_confusion"]
    worst = 0.0
    for name in names:
        ours = median_time(getattr(hm, name), (true, pred), repeats)
        worst = max(worst, ours)
        sk = SKLEARN_EXTERNAL.get(name)
        theirs = None if sk is None else median_time(sk, (true, pred), repeats)
        print(row(name, ours, theirs, 1.0))
    print(f"\nslowest external index: {worst:.3f} s")

    singletons = np.arange(n)
    shuffled = rng.permutation(n)
    print(f"\n### Large tables: n = {n:,} singletons against a permutation of themselves\n")
    print("| index | ours s (median) | scikit-learn s | ours / sklearn |")
    print("|---|---|---|---|")
    for name in ("maximum_matching", "f_measure", "purity", "adjusted_rand_index",
                 "normalized_mutual_information"):
        ours = median_time(getattr(hm, name), (singletons, shuffled), repeats)
        sk = SKLEARN_EXTERNAL.get(name)
        theirs = None if sk is None else median_time(sk, (singletons, shuffled), repeats)
        print(row(name, ours, theirs, None))


def bench_internal(n: int, k: int, d: int, repeats: int) -> None:
    rng = np.random.default_rng(1)
    labels = rng.integers(0, k, n)
    X = rng.normal(scale=3.0, size=(k, d))[labels] + rng.normal(size=(n, d))
    print(f"\n### Internal indices: N = {n}, K = {k}, D = {d}\n")
    print("| index | ours s (median) | scikit-learn s | ours / sklearn |")
    print("|---|---|---|---|")
    calls: list[tuple[str, Callable]] = [(name, getattr(hm, name))
                                         for name in hm.available("internal")]
    calls += [("silhouette, metric='sqeuclidean'",
               lambda X, y: hm.silhouette(X, y, metric="sqeuclidean")),
              ("davies_bouldin, scatter='pairwise'",
               lambda X, y: hm.davies_bouldin(X, y, scatter="pairwise")),
              ("hopkins (n_samples = N/10)", lambda X, y: hm.hopkins(X, seed=0))]
    for name, func in calls:
        ours = median_time(func, (X, labels), repeats)
        sk = SKLEARN_INTERNAL.get(name)
        theirs = None if sk is None else median_time(sk, (X, labels), repeats)
        print(row(name, ours, theirs, None))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--clusters", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="n = 10^4, 1 repeat")
    args = parser.parse_args()
    n, repeats = (10_000, 1) if args.quick else (args.n, args.repeats)
    print(f"Python {platform.python_version()}, numpy {np.__version__}, scipy "
          f"{scipy.__version__}, scikit-learn {sklearn.__version__}, {os.cpu_count()} CPUs; "
          f"median of {repeats} run(s)")
    bench_external(n, args.clusters, repeats)
    bench_internal(2000, 5, 2, repeats)


if __name__ == "__main__":
    main()
