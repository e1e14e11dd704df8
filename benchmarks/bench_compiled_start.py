"""When does a single run pay for loading the compiled kernels? Fresh processes, side by side.

Loading numba's kernels (`hawks_deap.evaluation._compiled`) costs a fixed time per
process; the kernels save time per evaluation. A process loads them when a run announces
`PLAN_WORK` point-evaluations (evaluations times N, `Problem.expect`), or once its numpy
path has tested `SWITCH_WORK` candidate points. This script measures one
``evolve`` per fresh child process (``hawks_deap`` imported before the clock, numba not),
P=10, PSO-random, p_c=0.7, P_f=0.5, overlap <= 0.1, one BLAS thread, for each arm:

- ``numpy``: ``HAWKS_DEAP_COMPILED=0`` (never loads numba);
- ``compiled``: ``HAWKS_DEAP_COMPILED=1`` (loads numba at the first evaluation: its import
  and the first call of each cached kernel fall inside the clock);
- ``default``: the package's rule (`_compiled.plan`: from `PLAN_WORK` point-evaluations
  announced by ``evolve`` the kernels load at the start; else the `SWITCH_WORK` count);
- ``switch=W``: no announcement, the count alone with ``SWITCH_WORK = W``.

The arms of a seed run back to back, ``--repeats`` times; the table gives the medians and
each arm's ratio to ``numpy`` (median of the per-pair ratios). Every arm must give the
same dataset (checked): the paths are exact.

    python benchmarks/bench_compiled_start.py [--configs a g1000 q500] [--seeds 3]
        [--repeats 2] [--switch-work 1500000]

Needs numba (``pip install -e ".[fast]"``) and its on-disk cache filled (any earlier run
of the compiled path; the first compile takes seconds and is not what is measured, so one
untimed warm-up child runs first).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time

#: config: (N, K, D, target, generations)
CONFIGS = {
    "a": (2000, 5, 2, 0.5, 100),          # the paper's config a
    "g1000": (1000, 5, 2, 0.5, 100),      # `hawks-deap generate`'s default problem
    "q500": (500, 4, 2, 0.6, 30),         # the README's quickstart
    "m5k": (5000, 10, 2, 0.5, 100),
    "g1000h": (1000, 5, 2, 0.5, 50),
    "a30": (2000, 5, 2, 0.5, 30),
    "d3": (2000, 5, 3, 0.5, 100),
    "scale": (100_000, 20, 2, 0.5, 100),
    "d5": (2000, 5, 5, 0.5, 100),
}


def child(spec: dict) -> dict:
    """One timed run in this (fresh) process."""
    import hawks_deap as hd
    from hawks_deap.evaluation import _compiled

    if spec["switch"] is not None:
        _compiled.SWITCH_WORK = spec["switch"]
        _compiled.PLAN_WORK = 2**62
    n, k, d, target, generations = CONFIGS[spec["config"]]
    problem = hd.IndexProblem(n_samples=n, n_clusters=k, n_dims=d, target=target,
                              constraints=[hd.Overlap(max=0.1)])
    t0, c0 = time.perf_counter(), time.process_time()
    result = hd.evolve(problem, population_size=10, generations=generations,
                       p_crossover=0.7, p_f=0.5, mean_mutation="pso", seed=spec["seed"])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    X, y = problem.sample(result.best)
    return {"wall": wall, "cpu": cpu, "loaded": _compiled._state["kernels"] is not None,
            "dataset": hashlib.sha256(X.tobytes() + y.tobytes()).hexdigest()[:16]}


def run_child(config: str, seed: int, arm: str) -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    switch = None
    env.pop("HAWKS_DEAP_COMPILED", None)
    if arm in ("numpy", "compiled"):
        env["HAWKS_DEAP_COMPILED"] = "0" if arm == "numpy" else "1"
    elif arm != "default":
        switch = int(arm.split("=")[1])
    spec = {"config": config, "seed": seed, "switch": switch}
    out = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], env=env,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=["a", "g1000", "q500"],
                        choices=list(CONFIGS))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--switch-work", type=int, nargs="*", default=[])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    arms = ["numpy", "compiled", "default", *(f"switch={w}" for w in args.switch_work)]
    run_child(args.configs[0], 0, "compiled")  # fills numba's cache if it is empty
    print(f"| config | {' | '.join(arms)} | ratios to numpy | same result | default "
          "loaded the kernels |")
    print(f"|---|{'---|' * len(arms)}---|---|---|")
    for config in args.configs:
        walls: dict[str, list[float]] = {arm: [] for arm in arms}
        ratios: dict[str, list[float]] = {arm: [] for arm in arms[1:]}
        same, loaded = True, 0
        for seed in range(args.seeds):
            for _ in range(args.repeats):
                got = {arm: run_child(config, seed, arm) for arm in arms}
                same &= len({g["dataset"] for g in got.values()}) == 1
                loaded += got["default"]["loaded"]
                for arm, g in got.items():
                    walls[arm].append(g["wall"])
                for arm in arms[1:]:
                    ratios[arm].append(got["numpy"]["wall"] / got[arm]["wall"])
        cells = " | ".join(f"{statistics.median(walls[arm]):.3f} s" for arm in arms)
        ratio = ", ".join(f"{arm} {statistics.median(r):.2f}x [{min(r):.2f}, {max(r):.2f}]"
                          for arm, r in ratios.items())
        print(f"| {config} | {cells} | {ratio} | {'yes' if same else 'NO'} | "
              f"{loaded}/{args.seeds * args.repeats} |", flush=True)


if __name__ == "__main__":
    main()
