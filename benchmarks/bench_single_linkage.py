"""Single linkage: scikit-learn's O(N^2) tree against the Euclidean MST of a Delaunay triangulation.

``"single-linkage"`` is ``AgglomerativeClustering(linkage="single")`` (an O(N^2)-time
Prim's algorithm on the Euclidean distances). In 1 to 3 dimensions its labels can be
cut from the Euclidean minimum spanning tree of a Delaunay triangulation
(``hawks_deap.clustering._library``, switch ``MST_SINGLE_LINKAGE``): the same label
arrays, byte for byte, with scikit-learn's tree as the fallback on ties. This script
times, on the same data (a HAWKS-like mixture of K = 5 Gaussians), interleaved, the
median of ``--repeats`` runs of:

- ``sklearn``: today's path without the switch, ``AgglomerativeClustering(n_clusters=5,
  linkage="single").fit_predict(X)``;
- ``scipy``: ``linkage(pdist(X), "single")`` cut exactly (``cut_linkage``), for
  reference (the O(N^2) distances held at once);
- ``mst``: the MST path (Delaunay triangulation, MST, exact cut at K = 5);

checks that the three give the same partition (``sklearn`` and ``mst`` the same bytes),
and prints the smallest N from which the MST path wins at every larger N (the crossover
behind ``MST_MIN_SAMPLES``). ``--versus`` times Versus runs (gmm and kmeans++ against
single-linkage, N = 1000 and 2000, K = 5, D = 2, P = 10, G = 20, serial) with the switch
off and on: the share of the run's wall time spent in the clustering calls and the ratio
of the run times.

    python benchmarks/bench_single_linkage.py                 # the table
    python benchmarks/bench_single_linkage.py --versus        # and the Versus runs
    python benchmarks/bench_single_linkage.py --sizes 200 500 --dims 1 2 --repeats 7
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.cluster.hierarchy import linkage
from scipy.spatial.distance import pdist
from sklearn.cluster import AgglomerativeClustering

import hawks_deap as hd
from hawks_deap.clustering import ClusteringAlgorithm, cut_linkage, get_algorithm
from hawks_deap.clustering import _library as library
from hawks_deap.problems.versus import VersusProblem

K = 5
PARAMS = {"linkage": "single"}


def mixture(n: int, d: int, seed: int) -> np.ndarray:
    """N points from K Gaussians, means in U(0, 10)^D, variances in U(0, 0.5) (HAWKS's start)."""
    rng = np.random.default_rng(seed)
    sizes = np.full(K, n // K)
    sizes[: n % K] += 1
    blocks = [rng.uniform(0, 10, d) + rng.normal(size=(size, d)) * np.sqrt(rng.uniform(0, 0.5, d))
              for size in sizes]
    return np.vstack(blocks)


def paths() -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    return {
        "sklearn": lambda X: AgglomerativeClustering(n_clusters=K, **PARAMS).fit_predict(X),
        "scipy": lambda X: cut_linkage(linkage(pdist(X), method="single"), K),
        "mst": lambda X: library._emst_tree(X, PARAMS)(K),
    }


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two label arrays group the points alike (any numbering)."""
    pairs = np.unique(np.stack([a, b]), axis=1)
    return pairs.shape[1] == len(np.unique(a)) == len(np.unique(b))


def time_sizes(dims: list[int], sizes: list[int], repeats: int) -> dict[int, dict[int, Any]]:
    """Median seconds of each path per (D, N), the paths' order rotated at every repeat."""
    funcs = paths()
    names = list(funcs)
    table: dict[int, dict[int, Any]] = {}
    for d in dims:
        table[d] = {}
        for n in sizes:
            X = mixture(n, d, seed=1000 * d + n)
            times: dict[str, list[float]] = {name: [] for name in names}
            labels: dict[str, np.ndarray] = {}
            for repeat in range(repeats):
                for name in names[repeat % 3:] + names[: repeat % 3]:
                    start = time.perf_counter()
                    labels[name] = funcs[name](X)
                    times[name].append(time.perf_counter() - start)
            tree = library._emst_tree(X, PARAMS)
            exact = isinstance(tree, library._EmstTree) and tree.exact(K) is not None
            table[d][n] = {
                "median": {name: statistics.median(times[name]) for name in names},
                "identical": bool(labels["mst"].dtype == labels["sklearn"].dtype
                                  and np.array_equal(labels["mst"], labels["sklearn"])),
                "same_as_scipy": same_partition(labels["scipy"], labels["sklearn"]),
                "exact": exact,
            }
    return table


def print_table(table: dict[int, dict[int, Any]]) -> None:
    print(f"{'D':>2} {'N':>6} {'sklearn ms':>11} {'scipy ms':>10} {'mst ms':>9} "
          f"{'sklearn/mst':>12} {'identical':>10} {'no fallback':>12}")
    for d, rows in table.items():
        for n, row in rows.items():
            med = row["median"]
            print(f"{d:>2} {n:>6} {1e3 * med['sklearn']:>11.2f} {1e3 * med['scipy']:>10.2f} "
                  f"{1e3 * med['mst']:>9.2f} {med['sklearn'] / med['mst']:>12.2f} "
                  f"{str(row['identical'] and row['same_as_scipy']):>10} "
                  f"{str(row['exact']):>12}")
    for d, rows in table.items():
        wins = [n for n, row in rows.items() if row["median"]["mst"] < row["median"]["sklearn"]]
        sizes = list(rows)
        crossover = next((n for i, n in enumerate(sizes) if all(
            rows[m]["median"]["mst"] < rows[m]["median"]["sklearn"] for m in sizes[i:])), None)
        print(f"D={d}: the MST path wins at N = {wins}; crossover (wins from here on): "
              f"{crossover}; in use from N = {library.MST_MIN_SAMPLES.get(d)}")


class Clock:
    """Wraps an algorithm's library call and adds its wall time to ``seconds``."""

    def __init__(self, func: Any) -> None:
        self.func = func
        self.seconds = 0.0

    def __call__(self, X: np.ndarray, n_clusters: int, seed: int | None) -> Any:
        start = time.perf_counter()
        try:
            return self.func(X, n_clusters, seed)
        finally:
            self.seconds += time.perf_counter() - start


def versus_run(winner: str, n: int, generations: int, population: int,
               seed: int) -> tuple[float, float, float]:
    """Wall seconds of one serial Versus run and of its winner's and loser's calls."""
    clocks = [Clock(get_algorithm(name).func) for name in (winner, "single-linkage")]
    algorithms = [ClusteringAlgorithm(name, clock) for name, clock
                  in zip((winner, "single-linkage"), clocks, strict=True)]
    problem = VersusProblem(algorithms[0], algorithms[1], n_samples=n, n_clusters=K,
                            n_dims=2, score="ari", initial_mean_upper=10.0)
    start = time.perf_counter()
    hd.evolve(problem, population_size=population, generations=generations,
              p_crossover=0.7, p_f=0.75, mean_mutation="pso", seed=seed, n_jobs=1)
    return time.perf_counter() - start, clocks[0].seconds, clocks[1].seconds


def time_versus(repeats: int, generations: int, population: int) -> None:
    """Clustering's share of Versus runs with the MST path off and on, interleaved."""
    print(f"\nVersus runs: K={K}, D=2, P={population}, G={generations}, serial, "
          f"median of {repeats} (switch off/on interleaved, same seeds)")
    print(f"{'winner':>9} {'N':>5} {'MST':>4} {'run s':>7} {'winner s':>9} {'single s':>9} "
          f"{'clustering %':>13} {'single %':>9}")
    for winner in ("gmm", "kmeans++"):
        for n in (1000, 2000):
            runs: dict[bool, list[tuple[float, float, float]]] = {False: [], True: []}
            for repeat in range(repeats):
                for switch in ((False, True) if repeat % 2 == 0 else (True, False)):
                    library.MST_SINGLE_LINKAGE = switch
                    runs[switch].append(versus_run(winner, n, generations, population, repeat))
            library.MST_SINGLE_LINKAGE = True
            medians = {}
            for switch in (False, True):
                wall, win, lose = (statistics.median(column)
                                   for column in zip(*runs[switch], strict=True))
                medians[switch] = wall
                print(f"{winner:>9} {n:>5} {'on' if switch else 'off':>4} {wall:>7.2f} "
                      f"{win:>9.2f} {lose:>9.2f} {100 * (win + lose) / wall:>12.1f}% "
                      f"{100 * lose / wall:>8.1f}%")
            print(f"{'':>9} {n:>5} run time on/off: {medians[True] / medians[False]:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 5000, 10000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--versus", action="store_true", help="also time Versus runs")
    parser.add_argument("--versus-only", action="store_true", help="only the Versus runs")
    parser.add_argument("--generations", type=int, default=20)
    parser.add_argument("--population", type=int, default=10)
    args = parser.parse_args()
    if not args.versus_only:
        print(f"Single linkage at K={K}: median ms of {args.repeats} interleaved runs")
        print_table(time_sizes(args.dims, args.sizes, args.repeats))
    if args.versus or args.versus_only:
        time_versus(args.repeats, args.generations, args.population)


if __name__ == "__main__":
    main()
