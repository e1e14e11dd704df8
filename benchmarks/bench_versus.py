"""Versus mode on the paper's head-to-heads (HAWKS paper, section IV-C4, Fig. 5).

All 12 ordered pairs of {average-linkage, gmm, kmeans++, single-linkage}, the paper's
Versus settings (N=2000, K=5, D=2, P=10, G=100, p_c=0.7, P_f=0.75, PSO-random mean
mutation, initial means in U(0, 10)) with an overlap constraint (default overlap <= 0.1),
several seeds per pair. For every run it records the best individual's winner and loser
ARI, and, as in the paper's Fig. 5b, the median ARI of the stochastic algorithms re-run on
that dataset with 10 other seeds.

For the first seed of every pair it also runs the same evolution serially (n_jobs=1) right
before the parallel one, checks that both give the same dataset byte for byte, and times
the clustering calls of the serial run: the profile line is the share of the run spent
outside them (variation, selection, overlap, scores, bookkeeping).

    python benchmarks/bench_versus.py --json versus.json        # the full benchmark
    python benchmarks/bench_versus.py --quick                    # a smoke run
    python benchmarks/bench_versus.py --speedup 6 --generations 30   # n_jobs 1 vs 2 only
    python benchmarks/bench_versus.py --speedup 6 --baseline OTHER_CHECKOUT  # pool vs pool
    python benchmarks/bench_versus.py --threads 5                # thread caps on / off
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import time
from typing import Any

import numpy as np

import hawks_deap as hd
from hawks_deap.clustering import ClusteringAlgorithm, get_algorithm
from hawks_deap.problems.versus import VersusProblem, adjusted_rand_index

ALGORITHMS = ("average-linkage", "gmm", "kmeans++", "single-linkage")
STOCHASTIC = ("gmm", "kmeans++")


class Timed:
    """Wraps an algorithm function and adds its wall time to a shared counter."""

    seconds = 0.0
    calls = 0

    def __init__(self, func: Any) -> None:
        self.func = func

    def __call__(self, X: np.ndarray, n_clusters: int, seed: int | None) -> Any:
        start = time.perf_counter()
        try:
            return self.func(X, n_clusters, seed)
        finally:
            Timed.seconds += time.perf_counter() - start
            Timed.calls += 1


def timed(name: str) -> ClusteringAlgorithm:
    algorithm = get_algorithm(name)
    return ClusteringAlgorithm(algorithm.name, Timed(algorithm.func), algorithm.k_multiplier)


def make_problem(winner: Any, loser: Any, args: argparse.Namespace) -> VersusProblem:
    return VersusProblem(winner, loser, n_samples=args.n_samples, n_clusters=5, n_dims=2,
                         score="ari", constraints=[hd.Overlap(max=args.overlap)],
                         initial_mean_upper=10.0)


def evolve(problem: VersusProblem, seed: int, n_jobs: int, args: argparse.Namespace):
    start = time.perf_counter()
    result = hd.evolve(problem, population_size=args.population,
                       generations=args.generations, p_crossover=0.7, p_f=0.75,
                       mean_mutation="pso", seed=seed, n_jobs=n_jobs)
    return result, time.perf_counter() - start


def rerun_scores(problem: VersusProblem, result, n_seeds: int = 10) -> tuple[float, float]:
    """Median ARI of winner and loser on the best dataset over fresh seeds (Fig. 5b)."""
    y = problem.layout.labels
    seeds = np.random.SeedSequence(2024).generate_state(2 * n_seeds, np.uint32)
    scores = {"winner": [], "loser": []}
    for i in range(n_seeds):
        winner_labels, loser_labels = problem.partitions(
            result.best, (int(seeds[2 * i]), int(seeds[2 * i + 1])))
        scores["winner"].append(adjusted_rand_index(y, winner_labels))
        scores["loser"].append(adjusted_rand_index(y, loser_labels))
    return statistics.median(scores["winner"]), statistics.median(scores["loser"])


def run_record(winner: str, loser: str, seed: int, n_jobs: int, result, wall: float,
               problem: VersusProblem) -> dict[str, Any]:
    record = result.best.record
    rerun_w, rerun_l = rerun_scores(problem, result)
    return {
        "winner": winner, "loser": loser, "seed": seed, "n_jobs": n_jobs,
        "wall_seconds": wall,
        "gap": result.best.fitness.values[0],
        "winner_ari": record["winner_score"], "loser_ari": record["loser_score"],
        "winner_ari_rerun": rerun_w, "loser_ari_rerun": rerun_l,
        "overlap": record["overlap"], "feasible": bool(record["feasible"]),
        "evaluations": int(sum(row["nevals"] for row in result.logbook)),
    }


def speedup_experiment(args: argparse.Namespace, repeats: int) -> None:
    """n_jobs=1 and n_jobs=2 side by side, alternating, on one clustering-bound pair."""
    winner, loser = args.speedup_pair.split(":")
    print(f"# speedup: {winner} vs {loser}, G={args.generations}, {repeats} alternating "
          f"repeats, load average {os.getloadavg()[0]:.2f}", flush=True)
    import resource

    def children_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    # the first evaluation of a process imports the clustering libraries (about a second):
    # paid here, so that neither side of the first repeat carries it
    warm = make_problem(winner, loser, args)
    warm.prepare(np.random.default_rng(0))
    warm.evaluate(warm.random_individual(np.random.default_rng(0)))
    ratios, estimates = [], []
    for repeat in range(repeats):
        walls, cpu = {}, {}
        order = (1, args.n_jobs) if repeat % 2 == 0 else (args.n_jobs, 1)
        for n_jobs in order:
            parent0, children0 = time.process_time(), children_cpu()
            _, walls[n_jobs] = evolve(make_problem(winner, loser, args), repeat, n_jobs, args)
            cpu[n_jobs] = (time.process_time() - parent0, children_cpu() - children0)
        ratios.append(walls[1] / walls[args.n_jobs])
        # CPU-time estimate of the speedup on idle cores: the serial run's CPU time over
        # the parent's CPU time plus an equal share of the workers' CPU time.
        parent, workers = cpu[args.n_jobs]
        estimates.append(cpu[1][0] / (parent + workers / args.n_jobs))
        print(f"repeat {repeat} (seed {repeat}): n_jobs=1 {walls[1]:.1f} s, "
              f"n_jobs={args.n_jobs} {walls[args.n_jobs]:.1f} s, x{ratios[-1]:.2f}; CPU s: "
              f"serial {cpu[1][0]:.1f}, parallel parent {parent:.1f} + workers {workers:.1f}"
              f" (idle-core estimate x{estimates[-1]:.2f}); load average "
              f"{os.getloadavg()[0]:.2f}", flush=True)
    print(f"median wall-clock speedup x{statistics.median(ratios):.2f} (min {min(ratios):.2f}, "
          f"max {max(ratios):.2f}); median CPU-time estimate for idle cores "
          f"x{statistics.median(estimates):.2f}")


def child_run(args: argparse.Namespace) -> None:
    """One timed run in this process (after a one-generation warm-up), as a JSON line:
    wall, the workers' CPU (children), the parent's CPU, the best dataset's digest."""
    import hashlib
    import resource

    winner, loser = args.speedup_pair.split(":")
    evolve(make_problem(winner, loser, args), args.child_run, args.n_jobs,
           argparse.Namespace(**{**vars(args), "generations": 1}))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    parent = time.process_time()
    result, wall = evolve(make_problem(winner, loser, args), args.child_run, args.n_jobs, args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    print(json.dumps({"wall": wall, "workers": workers, "parent": time.process_time() - parent,
                      "digest": hashlib.sha256(result.best_dataset().X.tobytes()).hexdigest()}))


def baseline_experiment(args: argparse.Namespace, repeats: int) -> None:
    """This tree's ``n_jobs`` runs side by side with a baseline checkout's, alternating.

    Each run is a fresh process (`child_run`) importing one tree's ``hawks_deap``; both
    must give the same dataset. "busy": the workers' CPU over ``n_jobs`` times the wall
    time, the share of the run the workers computed (a machine whose speed moves scales
    both alike).
    """
    import subprocess
    import sys

    trees = {"baseline": os.path.abspath(args.baseline),
             "this": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    print(f"# {args.speedup_pair}, G={args.generations}, n_jobs={args.n_jobs}, this tree "
          f"against {trees['baseline']}, {repeats} alternating seeds, load average "
          f"{os.getloadavg()[0]:.2f}", flush=True)
    command = [sys.executable, os.path.abspath(__file__), "--child-run", "SEED",
               "--n-jobs", str(args.n_jobs), "--generations", str(args.generations),
               "--population", str(args.population), "--n-samples", str(args.n_samples),
               "--overlap", str(args.overlap), "--speedup-pair", args.speedup_pair]
    runs: dict[str, list[dict[str, Any]]] = {"baseline": [], "this": []}
    for seed in range(repeats):
        for name in ("baseline", "this") if seed % 2 == 0 else ("this", "baseline"):
            env = {**os.environ, "PYTHONPATH": trees[name]}
            out = subprocess.run([str(seed) if c == "SEED" else c for c in command],
                                 env=env, capture_output=True, text=True, check=True)
            runs[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
        old, new = runs["baseline"][-1], runs["this"][-1]
        if old["digest"] != new["digest"]:
            raise AssertionError(f"seed {seed}: the two trees gave different datasets")
        print(f"seed {seed}: baseline {old['wall']:.2f} s, this {new['wall']:.2f} s, "
              f"x{old['wall'] / new['wall']:.3f}; workers busy {busy(old, args):.3f} / "
              f"{busy(new, args):.3f}; parent CPU {old['parent']:.2f} / {new['parent']:.2f} s",
              flush=True)
    ratios = [o["wall"] / n["wall"] for o, n in zip(runs["baseline"], runs["this"],
                                                     strict=True)]
    print(f"median x{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}), "
          f"{sum(r > 1 for r in ratios)} of {len(ratios)} faster; median walls baseline "
          f"{statistics.median(r['wall'] for r in runs['baseline']):.2f} s, this "
          f"{statistics.median(r['wall'] for r in runs['this']):.2f} s; workers busy "
          f"{statistics.median(busy(r, args) for r in runs['baseline']):.3f} / "
          f"{statistics.median(busy(r, args) for r in runs['this']):.3f}; same datasets")


def busy(run: dict[str, Any], args: argparse.Namespace) -> float:
    return run["workers"] / (args.n_jobs * run["wall"])


def threads_experiment(args: argparse.Namespace, repeats: int) -> None:
    """Evaluation pool with thread caps (the default) against uncapped BLAS/OpenMP."""
    from hawks_deap.algorithms.pool import ProblemPool

    winner, loser = args.speedup_pair.split(":")
    rng = np.random.default_rng(0)
    results = {}
    for capped in (True, False):
        problem = VersusProblem(winner, loser, n_samples=args.n_samples, n_clusters=5,
                                n_dims=2, constraints=[hd.Overlap(max=args.overlap)],
                                n_threads=1 if capped else None)
        problem.prepare(np.random.default_rng(1))
        batch = [(problem.random_individual(rng), i) for i in range(4 * args.population)]
        threads = 1 if capped else os.cpu_count()
        with ProblemPool(problem, args.n_jobs, threads_per_worker=threads) as pool:
            pool.evaluate(batch[:2])  # warm up
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                pool.evaluate(batch)
                times.append(time.perf_counter() - start)
        results[capped] = statistics.median(times)
        print(f"# threads: {'capped to 1' if capped else 'uncapped'} per worker, "
              f"{args.n_jobs} workers: {len(batch)} evaluations in "
              f"{results[capped]:.2f} s (median of {repeats})", flush=True)
    print(f"uncapped / capped: x{results[False] / results[True]:.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--generations", type=int, default=100)
    parser.add_argument("--population", type=int, default=10)
    parser.add_argument("--n-samples", type=int, default=2000)
    parser.add_argument("--overlap", type=float, default=0.1)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--pairs", default="all",
                        help="'all' or comma-separated winner:loser pairs")
    parser.add_argument("--no-serial", action="store_true",
                        help="skip the serial (n_jobs=1) timing and profile runs")
    parser.add_argument("--json", default="", help="write every run to this JSON file")
    parser.add_argument("--speedup", type=int, default=0, metavar="REPEATS",
                        help="only run n_jobs=1 against n_jobs=2, alternating, REPEATS times")
    parser.add_argument("--threads", type=int, default=0, metavar="REPEATS",
                        help="only time a pool with and without thread caps")
    parser.add_argument("--speedup-pair", default="gmm:single-linkage")
    parser.add_argument("--baseline", metavar="DIR",
                        help="with --speedup: n_jobs runs of this tree against those of "
                             "another checkout, instead of n_jobs=1 against n_jobs")
    parser.add_argument("--child-run", type=int, metavar="SEED", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.child_run is not None:
        child_run(args)
        return
    if args.speedup or args.threads:
        if args.speedup and args.baseline:
            baseline_experiment(args, args.speedup)
        elif args.speedup:
            speedup_experiment(args, args.speedup)
        if args.threads:
            threads_experiment(args, args.threads)
        return
    if args.quick:
        args.seeds, args.generations, args.n_samples = 2, 5, 400
        if args.pairs == "all":
            args.pairs = "gmm:single-linkage,kmeans++:gmm"
    if args.pairs == "all":
        pairs = list(itertools.permutations(ALGORITHMS, 2))
    else:
        pairs = [tuple(p.split(":")) for p in args.pairs.split(",")]

    print(f"# bench_versus: {platform.python_version()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}; N={args.n_samples}, K=5, D=2, "
          f"P={args.population}, G={args.generations}, P_f=0.75, overlap <= {args.overlap}, "
          f"seeds 0..{args.seeds - 1}, n_jobs={args.n_jobs}", flush=True)
    runs: list[dict[str, Any]] = []
    serial: list[dict[str, Any]] = []
    started = time.perf_counter()
    for winner, loser in pairs:
        for seed in range(args.seeds):
            if seed == 0 and not args.no_serial:
                Timed.seconds, Timed.calls = 0.0, 0
                problem = make_problem(timed(winner), timed(loser), args)
                result1, wall1 = evolve(problem, seed, 1, args)
                csv1 = result1.best_dataset().to_csv_text()
                clustering = Timed.seconds
            problem = make_problem(winner, loser, args)
            result, wall = evolve(problem, seed, args.n_jobs, args)
            row = run_record(winner, loser, seed, args.n_jobs, result, wall, problem)
            runs.append(row)
            line = (f"{winner:>15} vs {loser:<15} seed {seed}: gap {row['gap']:.3f} "
                    f"(ARI {row['winner_ari']:.3f} - {row['loser_ari']:.3f}; re-run "
                    f"{row['winner_ari_rerun']:.3f} - {row['loser_ari_rerun']:.3f}) "
                    f"overlap {row['overlap']:.3f} {wall:6.1f} s")
            if seed == 0 and not args.no_serial:
                identical = csv1 == result.best_dataset().to_csv_text()
                serial.append({"winner": winner, "loser": loser, "seed": seed,
                               "wall_1": wall1, "wall_n": wall, "speedup": wall1 / wall,
                               "clustering_seconds": clustering,
                               "outside_share": (wall1 - clustering) / wall1,
                               "identical": identical})
                line += (f" | n_jobs=1 {wall1:6.1f} s, x{wall1 / wall:.2f}, outside "
                         f"clustering {(wall1 - clustering) / wall1:.1%}, identical "
                         f"{identical}")
            print(line, flush=True)
            if args.json:
                with open(args.json + ".tmp", "w") as fh:
                    json.dump({"args": vars(args), "runs": runs, "serial": serial}, fh,
                              indent=1)
                os.replace(args.json + ".tmp", args.json)

    print(f"\n# total {time.perf_counter() - started:.0f} s, load average now "
          f"{os.getloadavg()[0]:.2f}\n")
    print("| winner vs loser | median ARI winner | median ARI loser | median gap | "
          "min gap | re-run ARI winner | re-run ARI loser | feasible | median wall s "
          f"(n_jobs={args.n_jobs}) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for winner, loser in pairs:
        rows = [r for r in runs if (r["winner"], r["loser"]) == (winner, loser)]

        def med(key: str, rows=rows) -> float:
            return statistics.median(r[key] for r in rows)

        print(f"| {winner} vs {loser} | {med('winner_ari'):.3f} | {med('loser_ari'):.3f} | "
              f"{med('gap'):.3f} | {min(r['gap'] for r in rows):.3f} | "
              f"{med('winner_ari_rerun'):.3f} | {med('loser_ari_rerun'):.3f} | "
              f"{sum(r['feasible'] for r in rows)}/{len(rows)} | {med('wall_seconds'):.1f} |")
    for name in ALGORITHMS:
        as_w = [r["winner_ari"] for r in runs if r["winner"] == name]
        as_l = [r["loser_ari"] for r in runs if r["loser"] == name]
        if as_w and as_l:
            print(f"{name}: mean ARI as winner {np.mean(as_w):.3f} (sd {np.std(as_w):.3f}), "
                  f"as loser {np.mean(as_l):.3f} (sd {np.std(as_l):.3f})")
    if serial:
        print(f"\n| winner vs loser (seed 0) | n_jobs=1 s | n_jobs={args.n_jobs} s | speedup | "
              "clustering s (n_jobs=1) | outside clustering | identical |")
        print("|---|---|---|---|---|---|---|")
        for s in serial:
            print(f"| {s['winner']} vs {s['loser']} | {s['wall_1']:.1f} | {s['wall_n']:.1f} | "
                  f"{s['speedup']:.2f} | {s['clustering_seconds']:.1f} | "
                  f"{s['outside_share']:.1%} | {s['identical']} |")
        total_1 = sum(s["wall_1"] for s in serial)
        total_n = sum(s["wall_n"] for s in serial)
        total_c = sum(s["clustering_seconds"] for s in serial)
        print(f"\nspeedup over all pairs: {total_1:.0f} s / {total_n:.0f} s = "
              f"x{total_1 / total_n:.2f}; median speedup "
              f"x{statistics.median(s['speedup'] for s in serial):.2f}")
        print(f"profile: {1 - total_c / total_1:.1%} of the serial runs' time is spent outside "
              f"the clustering calls (median over pairs "
              f"{statistics.median(s['outside_share'] for s in serial):.1%}); all identical: "
              f"{all(s['identical'] for s in serial)}")


if __name__ == "__main__":
    main()
