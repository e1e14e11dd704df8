"""Speed of Index mode with the fast evaluator, side by side with a naive evaluator.

P=10, G=100, p_c=0.7, P_f=0.5, PSO-random mean mutation, overlap <= 0.1; configs
a (N=2000, K=5, D=2, s_t=0.5), b (N=1000, K=10, D=20, s_t=0.9), c (N=2000, K=30, D=50,
s_t=0.2), scale (N=100,000, K=20, D=2, s_t=0.5) and m20k (N=20,000, K=10, D=2, s_t=0.5);
seeds 0, 1, 2. Every run is a child
process (clean peak resident memory, measured with ``resource.getrusage``). In the same
run, the same seeds go through ``IndexProblem(evaluator="naive")`` (full
``sklearn.metrics.silhouette_score`` plus a full exact nearest-neighbour pass at every
evaluation): the speed-up is the ratio of median wall times, and the two evaluators must
select the same individuals and return byte-identical datasets. At N=100,000 and 20,000 a
naive run is out of reach (each silhouette is O(N^2)): its time is estimated from one timed naive
evaluation times the median number of evaluations of the fast runs ("est.").

    python benchmarks/bench_index.py [--seeds 3] [--naive-seeds 3] [--configs a b c scale m20k]
                                     [--euclidean] [--blas-threads 1] [--quick]
    python benchmarks/bench_index.py --baseline OTHER_CHECKOUT [--repeats 3]
                                     [--configs a b c [scale m20k]] [--n-jobs 1]
                                     [--baseline-n-jobs 1]
                                     [--baseline-env HAWKS_DEAP_COMPILED=0]

The second form times this tree against another checkout's ``hawks_deap`` (e.g. a
``git worktree`` of an earlier commit), the two runs of each seed back to back, for
ratios that the machine's drift affects little. ``--n-jobs`` runs the fast evaluator in
``evolve(..., n_jobs=...)`` processes (with ``--baseline`` of this very checkout and
``--baseline-n-jobs 1``: serial against parallel, side by side).

HAWKS 0.2.0 on the same kind of machine (anchors/HAWKS-0.2.0.md): a 29.9 s, b 17.0 s,
c 118 s per run (scale: impossible, one N x N matrix per individual).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

CONFIGS = {
    "a": dict(n_samples=2000, n_clusters=5, n_dims=2, target=0.5),
    "b": dict(n_samples=1000, n_clusters=10, n_dims=20, target=0.9),
    "c": dict(n_samples=2000, n_clusters=30, n_dims=50, target=0.2),
    "scale": dict(n_samples=100_000, n_clusters=20, n_dims=2, target=0.5),
    "m20k": dict(n_samples=20_000, n_clusters=10, n_dims=2, target=0.5),
}
#: Configs whose naive runs are out of reach: estimated from timed evaluations.
ESTIMATED = ("scale", "m20k")
QUICK_SCALE = dict(n_samples=5_000, n_clusters=20, n_dims=2, target=0.5)
HAWKS_020 = {"a": 29.9, "b": 17.0, "c": 118.3}
#: Naive evaluations timed (first naive seed) to estimate a naive run out of reach.
NAIVE_SAMPLE_EVALS = 1


def _problem(cfg: dict, metric: str, evaluator: str):
    import hawks_deap as hd

    return hd.IndexProblem(**cfg, metric=metric, evaluator=evaluator,
                           constraints=[hd.Overlap(max=0.1)])


def run_one(spec: dict) -> dict:
    """One seeded run (or, with ``sample``, a few timed naive evaluations)."""
    import hawks_deap as hd

    cfg = spec["cfg"]
    problem = _problem(cfg, spec["metric"], spec["evaluator"])
    if spec.get("sample"):
        import numpy as np

        problem.prepare(np.random.default_rng(spec["seed"]))
        rng = np.random.default_rng(spec["seed"] + 1)
        individuals = [problem.random_individual(rng) for _ in range(spec["sample"])]
        t0 = time.perf_counter()
        for ind in individuals:
            problem.evaluate(ind)
        wall = (time.perf_counter() - t0) / len(individuals)
        return {"per_eval": wall, "rss_mb": _rss_mb()}
    t0, c0 = time.perf_counter(), time.process_time()
    result = hd.evolve(problem, population_size=10, generations=spec["generations"],
                       p_crossover=0.7, p_f=0.5, mean_mutation="pso", seed=spec["seed"],
                       n_jobs=spec.get("n_jobs", 1))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    X, y = problem.sample(result.best)
    return {
        "wall": wall, "cpu": cpu, "rss_mb": _rss_mb(),
        "error": float(result.best.fitness.values[0]),
        "feasible": bool(result.best.record.get("feasible")),
        "nevals": int(sum(row["nevals"] for row in result.logbook)),
        "dataset": hashlib.sha256(X.tobytes() + y.tobytes()).hexdigest()[:16],
        "population": hashlib.sha256("".join(i.key for i in result.population).encode())
        .hexdigest()[:16],
    }


def _rss_mb() -> float:
    """Peak resident memory of this process plus that of its largest finished child.

    With ``n_jobs`` 2 the run's helper process (joined when the run ends) counts too:
    the sum bounds what the two held at any one time.
    """
    peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return peak / 1024.0 if sys.platform != "darwin" else peak / 2**20


def run_child(spec: dict, blas_threads: int | None, in_process: bool,
              pythonpath: str | None = None, extra_env: dict | None = None) -> dict:
    """Run ``spec`` in a fresh interpreter (or here, with ``in_process``).

    ``pythonpath``: a checkout whose ``hawks_deap`` the child imports instead (baseline);
    by default this script's own checkout, so that a run from a clone measures that clone
    and not an editable install elsewhere.
    """
    if in_process:
        return run_one(spec)
    env = dict(os.environ)
    if pythonpath is None:
        pythonpath = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pythonpath, env.get("PYTHONPATH")) if p)
    if blas_threads is not None:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(blas_threads)
    env.update(extra_env or {})
    out = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"child run failed ({spec}):\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench(name: str, cfg: dict, metric: str, seeds: list[int], naive_seeds: list[int],
          generations: int, naive_sample: bool, blas_threads: int | None,
          in_process: bool, n_jobs: int = 1) -> dict:
    base = {"cfg": cfg, "metric": metric, "generations": generations}
    fast = [run_child({**base, "seed": s, "evaluator": "fast", "n_jobs": n_jobs},
                      blas_threads, in_process)
            for s in seeds]
    row = {
        "name": name, "cfg": cfg, "metric": metric,
        "fast_wall": statistics.median(r["wall"] for r in fast),
        "fast_cpu": statistics.median(r["cpu"] for r in fast),
        "fast_walls": [r["wall"] for r in fast],
        "rss": max(r["rss_mb"] for r in fast),
        "error": statistics.median(r["error"] for r in fast),
        "feasible": sum(r["feasible"] for r in fast),
        "seeds": len(seeds),
    }
    if naive_sample:
        samples = [run_child({**base, "seed": s, "evaluator": "naive",
                              "sample": NAIVE_SAMPLE_EVALS}, blas_threads, in_process)
                   for s in naive_seeds[:1]]
        per_eval = statistics.median(r["per_eval"] for r in samples)
        nevals = statistics.median(r["nevals"] for r in fast)
        row.update(naive_wall=per_eval * nevals, naive_est=True, same="n/a")
    else:
        naive = [run_child({**base, "seed": s, "evaluator": "naive"}, blas_threads, in_process)
                 for s in naive_seeds]
        same = all(n["dataset"] == f["dataset"] and n["population"] == f["population"]
                   for n, f in zip(naive, fast, strict=False))
        # the ratio compares the same seeds: fast median over the naive seeds
        fast_same = statistics.median(f["wall"] for f in fast[:len(naive)])
        row.update(naive_wall=statistics.median(r["wall"] for r in naive), naive_est=False,
                   same="yes" if same else "NO", fast_wall_naive_seeds=fast_same)
    return row


def compare(name: str, cfg: dict, metric: str, seeds: list[int], repeats: int,
            baseline: str, blas_threads: int | None, n_jobs: int = 1,
            baseline_n_jobs: int = 1, baseline_env: dict | None = None) -> str:
    """Fast runs of this tree and of a baseline checkout, interleaved run by run.

    ``baseline_env``: extra environment of the baseline's runs (e.g. the same tree with
    ``HAWKS_DEAP_COMPILED=0``). Wall and CPU medians, and the load average meanwhile.
    """
    base = {"cfg": cfg, "metric": metric, "generations": 100, "evaluator": "fast"}
    times: dict[str, list[tuple[float, float]]] = {"baseline": [], "this": []}
    same = True
    load = []
    for _ in range(repeats):
        for seed in seeds:
            old = run_child({**base, "seed": seed, "n_jobs": baseline_n_jobs}, blas_threads,
                            False, baseline, baseline_env)
            new = run_child({**base, "seed": seed, "n_jobs": n_jobs}, blas_threads, False)
            times["baseline"].append((old["wall"], old["cpu"]))
            times["this"].append((new["wall"], new["cpu"]))
            same &= old["dataset"] == new["dataset"] and old["population"] == new["population"]
            load.append(os.getloadavg()[0])
    (b, bc), (t, tc) = ((statistics.median(w for w, _ in times[k]),
                         statistics.median(c for _, c in times[k])) for k in ("baseline", "this"))
    return (f"| {name} | {metric} | {b:.3f} | {t:.3f} | {b / t:.2f}x | {bc:.3f} | {tc:.3f} | "
            f"{bc / tc:.2f}x | {'yes' if same else 'NO'} | {statistics.median(load):.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--naive-seeds", type=int, default=3)
    parser.add_argument("--configs", nargs="+", choices=list(CONFIGS),
                        help="default: all; with --baseline, a b c (scale, m20k only if named)")
    parser.add_argument("--euclidean", action=argparse.BooleanOptionalAction, default=True,
                        help="also config a with the Euclidean silhouette (default: yes)")
    parser.add_argument("--blas-threads", type=int, default=1,
                        help="BLAS threads in each run (0: leave the default)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 1 seed, 2 generations, scale at N=5,000, in process")
    parser.add_argument("--baseline", metavar="DIR",
                        help="instead: time this tree against the hawks_deap of checkout DIR "
                             "(fast evaluator, runs interleaved, --repeats times each seed)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="evaluation processes of the fast runs (evolve's n_jobs)")
    parser.add_argument("--baseline-n-jobs", type=int, default=1,
                        help="n_jobs of the baseline's runs (with --baseline)")
    parser.add_argument("--baseline-env", nargs="+", default=[], metavar="NAME=VALUE",
                        help="environment of the baseline's runs (with --baseline), e.g. "
                             "--baseline . --baseline-env HAWKS_DEAP_COMPILED=0: this tree "
                             "with and without the compiled kernels")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(json.loads(args.child))))
        return
    for flag in ("seeds", "naive_seeds", "repeats", "n_jobs", "baseline_n_jobs"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be at least 1, got "
                         f"{getattr(args, flag)}")
    bad = [kv for kv in args.baseline_env if "=" not in kv or kv.startswith("=")]
    if bad:
        parser.error(f"--baseline-env takes NAME=VALUE pairs, got {bad[0]!r}")
    if args.blas_threads < 0:
        parser.error(f"--blas-threads must be 0 (default) or more, got {args.blas_threads}")
    if args.baseline:
        if not os.path.isfile(os.path.join(args.baseline, "hawks_deap", "__init__.py")):
            parser.error(f"--baseline must be a checkout holding hawks_deap/, got "
                         f"{args.baseline!r}")
        threads = None if args.blas_threads == 0 else args.blas_threads
        print(f"fast evaluator, G=100, seeds 0..{args.seeds - 1} x {args.repeats} repeats, "
              f"interleaved; baseline {args.baseline} (n_jobs {args.baseline_n_jobs}), "
              f"this tree n_jobs {args.n_jobs}; {os.cpu_count()} CPUs")
        print("| config | metric | baseline wall s (median) | this tree (median) | "
              "speed-up | baseline CPU s | this tree CPU s | CPU ratio | same result | "
              "load average |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        baseline_env = dict(kv.split("=", 1) for kv in args.baseline_env)
        jobs = [(name, "sqeuclidean") for name in args.configs or ["a", "b", "c"]]
        if args.euclidean and "a" in (args.configs or ["a"]):
            jobs.insert(1, ("a", "euclidean"))
        for name, metric in jobs:
            print(compare(name, CONFIGS[name], metric, list(range(args.seeds)), args.repeats,
                          args.baseline, threads, args.n_jobs, args.baseline_n_jobs,
                          baseline_env),
                  flush=True)
        return
    args.configs = args.configs or list(CONFIGS)
    seeds = list(range(1 if args.quick else args.seeds))
    naive_seeds = list(range(1 if args.quick else min(args.naive_seeds, args.seeds)))
    generations = 2 if args.quick else 100
    threads = None if args.blas_threads == 0 else args.blas_threads
    jobs = [(name, "sqeuclidean") for name in args.configs]
    if args.euclidean and "a" in args.configs:
        jobs.insert(1, ("a", "euclidean"))
    print(f"P=10, G={generations}, p_c=0.7, P_f=0.5, pso, overlap<=0.1; seeds "
          f"{seeds[0]}..{seeds[-1]} (naive: {naive_seeds[0]}..{naive_seeds[-1]}); "
          f"BLAS threads {threads or 'default'}; fast runs n_jobs {args.n_jobs} (CPU: "
          f"this process only); {os.cpu_count()} CPUs")
    print("| config | N, K, D | metric | fast wall s (median) | fast CPU s | peak RSS MB | "
          "abs(s_t - s) median | feasible | naive wall s (median) | speed-up | same result |"
          " vs HAWKS 0.2.0 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, metric in jobs:
        cfg = dict(CONFIGS[name])
        if args.quick and name == "scale":
            cfg = dict(QUICK_SCALE)
        row = bench(name, cfg, metric, seeds, naive_seeds, generations,
                    naive_sample=name in ESTIMATED, blas_threads=threads,
                    in_process=args.quick, n_jobs=args.n_jobs)
        base_fast = row.get("fast_wall_naive_seeds", row["fast_wall"])
        ratio = row["naive_wall"] / base_fast
        naive = f"{row['naive_wall']:.1f}" + (" (est.)" if row["naive_est"] else "")
        speed = f"{ratio:.1f}x" + (" (est.)" if row["naive_est"] else "")
        hawks = HAWKS_020.get(name) if metric == "sqeuclidean" and not args.quick else None
        vs = f"{hawks / row['fast_wall']:.0f}x" if hawks else "-"
        c = row["cfg"]
        print(f"| {name} | {c['n_samples']}, {c['n_clusters']}, {c['n_dims']} | {metric} | "
              f"{row['fast_wall']:.2f} ({', '.join(f'{w:.2f}' for w in row['fast_walls'])}) | "
              f"{row['fast_cpu']:.2f} | {row['rss']:.0f} | {row['error']:.2e} | "
              f"{row['feasible']}/{row['seeds']} | {naive} | {speed} | {row['same']} | {vs} |",
              flush=True)
    print("speed-up: naive median wall / fast median wall over the same seeds; same result: "
          "identical final population and best dataset bytes for every seed run both ways.")


if __name__ == "__main__":
    main()
