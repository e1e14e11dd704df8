"""Does each of the evaluator's optional mechanisms pay? Serial runs with it and without.

Every mechanism below only chooses how an exact result is computed, so both arms give
the same datasets (checked). For configs a, b, c of ``bench_index.py`` (P=10, G=100,
PSO-random, overlap <= 0.1) and seeds 0..2, one run with the mechanism off and one with
the default are timed back to back, each in a fresh child process; the table gives the
medians and the ratio (off / on: above 1.05 the mechanism pays its keep).

    python benchmarks/bench_switches.py [--configs a b c] [--seeds 3] [--switches ...]
    python benchmarks/bench_switches.py --switches grid_pass --grid-dims 3 --configs 3a 3b 3c 3d

Switches: ``prefetch`` (a generation's missing overlap pairs computed together),
``reach_bound`` (genes whose pairs are provably empty skip their thresholds),
``z_certificates`` (2-D shape certificates from the slot's neighbour tables),
``direct_silhouette`` (the whole K x N centroid block at small N K D), ``grid_pass``
(at D = 2, one compiled pass over the whole dataset instead of cached pairs of genes;
both arms then run the compiled kernels from the start, loaded before the clock starts,
as in a process that has switched to them: a suite's worker), ``compiled_silhouette``
(at D = 2 and N K up to 2^18, the squared-Euclidean silhouette by one compiled pass; also
on the compiled path; config 2m: N = 20,000, K = 10). ``--grid-dims D`` measures
the grid pass where it is not the default: its "on" arm sets ``_compiled.GRID_DIMS = D``
(configs 3a-3d have D = 3).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import subprocess
import sys
import time

CONFIGS = {
    "a": dict(n_samples=2000, n_clusters=5, n_dims=2, target=0.5),
    "b": dict(n_samples=1000, n_clusters=10, n_dims=20, target=0.9),
    "c": dict(n_samples=2000, n_clusters=30, n_dims=50, target=0.2),
    # three dimensions, for ``grid_pass --grid-dims 3``
    "3a": dict(n_samples=2000, n_clusters=5, n_dims=3, target=0.5),
    "3b": dict(n_samples=2000, n_clusters=30, n_dims=3, target=0.5),
    "3c": dict(n_samples=5000, n_clusters=10, n_dims=3, target=0.5),
    "3d": dict(n_samples=20_000, n_clusters=10, n_dims=3, target=0.5),
    # two dimensions, N K at the numpy silhouette's whole-block limit (2^18)
    "2m": dict(n_samples=20_000, n_clusters=10, n_dims=2, target=0.5),
}
SWITCHES = ("prefetch", "reach_bound", "z_certificates", "direct_silhouette", "grid_pass",
            "compiled_silhouette")
#: Switches measured on the compiled path (both arms).
COMPILED = ("grid_pass", "compiled_silhouette")


def _switch_off(name: str):
    """The problem factory's keyword arguments and patches that turn ``name`` off."""
    import hawks_deap as hd
    from hawks_deap.evaluation import Tuning, _compiled, _overlap, _thresholds

    if name == "prefetch":
        hd.problems.base.DatasetProblem.prefetch = lambda self, individuals: None
    elif name == "reach_bound":
        _overlap.reach_bound = lambda store, slot, gene, entry: math.inf
    elif name == "z_certificates":
        _thresholds._Z_LEVELS = -1
    elif name == "direct_silhouette":
        return Tuning(direct_silhouette=0)
    elif name == "grid_pass":
        _compiled.GRID_DIMS = -1
    elif name == "compiled_silhouette":  # the silhouette alone sees the numpy path
        from types import SimpleNamespace

        from hawks_deap.evaluation import _silhouette

        _silhouette._compiled = SimpleNamespace(available=lambda work=0: False)
    return None


def run_child(spec: dict) -> dict:
    import hawks_deap as hd
    from hawks_deap.evaluation import Evaluator, _compiled

    if spec["compiled"]:
        _compiled.set_compiled(True)
        _compiled.available()  # numba imported and the kernels loaded before the clock
    if spec.get("grid_dims") is not None and not spec["off"]:
        _compiled.GRID_DIMS = spec["grid_dims"]
    tuning = _switch_off(spec["off"]) if spec["off"] else None
    problem = hd.IndexProblem(**CONFIGS[spec["config"]], constraints=[hd.Overlap(max=0.1)])
    if tuning is not None:  # the problem's evaluator, with these path sizes
        problem._on_new_layout = lambda: setattr(problem, "evaluator", Evaluator(
            problem.layout, cache_bytes=problem.cache_bytes, tuning=tuning))
    start = time.perf_counter()
    result = hd.evolve(problem, population_size=10, generations=100, seed=spec["seed"])
    wall = time.perf_counter() - start
    data = result.best_dataset()
    return {"wall": wall, "digest": hashlib.sha256(data.X.tobytes()).hexdigest()}


def child(spec: dict) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--switches", nargs="+", default=list(SWITCHES), choices=SWITCHES)
    parser.add_argument("--grid-dims", type=int,
                        help="grid_pass: the dimension of its 'on' arm (default: the package's)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_child(json.loads(args.child))))
        return
    if args.grid_dims is not None and args.grid_dims < 1:
        parser.error(f"--grid-dims must be at least 1, got {args.grid_dims}")
    on = f"on (GRID_DIMS = {args.grid_dims})" if args.grid_dims is not None else "on (default)"
    print(f"| switch | config | off: wall s (median) | {on} | off / on | same result |")
    print("|---|---|---|---|---|---|")
    for switch in args.switches:
        for config in args.configs:
            off, on, same = [], [], True
            for seed in range(args.seeds):
                spec = {"config": config, "seed": seed, "compiled": switch in COMPILED,
                        "grid_dims": args.grid_dims if switch == "grid_pass" else None}
                a = child({**spec, "off": switch})
                b = child({**spec, "off": None})
                off.append(a["wall"])
                on.append(b["wall"])
                same &= a["digest"] == b["digest"]
            m_off, m_on = statistics.median(off), statistics.median(on)
            print(f"| {switch} | {config} | {m_off:.2f} | {m_on:.2f} | {m_off / m_on:.2f}x | "
                  f"{'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
