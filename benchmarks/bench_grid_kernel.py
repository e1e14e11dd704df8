"""The two-dimensional overlap pass alone: this tree's C kernel against a baseline's.

The datasets are those a config-a run (N=2000, K=5, D=2, s_t=0.5, P=10, G=100, PSO
mean mutation) evaluates: every third overlap evaluation of seeds 0-2, recorded from
this tree. Each side times one pass over all of them in a fresh child (warmed by a first
pass: numba's import and compilation are not counted, nor the extension's import),
``--repeats`` times interleaved; the table gives the median time per dataset, and both
sides must give the same flags (a hash of all of them).

    python benchmarks/bench_grid_kernel.py --baseline CHECKOUT [--baseline-kernel c]
                                           [--repeats 7]

The baseline's kernel is ``hawks_deap.evaluation._numba_kernels.grid_flags`` (numba, the
default: commits before the C kernels, e.g. dd92010) or, with ``--baseline-kernel c``, its
own ``_compiled.grid_overlap_flags``; this tree's is ``_compiled.grid_overlap_flags``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def record(path: str) -> int:
    """Save the datasets of config-a runs (every third overlap evaluation) to ``path``."""
    import numpy as np

    import hawks_deap as hd
    from hawks_deap.evaluation import _compiled

    sets: list = []
    real = _compiled.grid_overlap_flags
    calls = [0]

    def spy(X, codes):
        calls[0] += 1
        if calls[0] % 3 == 0:
            sets.append((np.array(X), np.array(codes, dtype=np.int64)))
        return real(X, codes)

    _compiled.grid_overlap_flags = spy
    for seed in (0, 1, 2):
        problem = hd.IndexProblem(n_samples=2000, n_clusters=5, n_dims=2, target=0.5,
                                  constraints=[hd.Overlap(max=0.1)])
        hd.evolve(problem, population_size=10, generations=100, p_crossover=0.7, p_f=0.5,
                  mean_mutation="pso", seed=seed)
    _compiled.grid_overlap_flags = real
    np.savez(path, **{f"X{i}": X for i, (X, _) in enumerate(sets)},
             **{f"c{i}": c for i, (_, c) in enumerate(sets)})
    return len(sets)


def child(path: str, side: str) -> None:
    """Time one pass over the saved datasets (after a warming pass); print JSON."""
    import numpy as np

    data = np.load(path)
    sets = [(data[f"X{i}"], data[f"c{i}"]) for i in range(len(data.files) // 2)]
    if side == "numba":
        from hawks_deap.evaluation._numba_kernels import grid_flags

        def kernel(X, codes):
            return grid_flags(X, codes.astype(np.intp))[0]
    else:
        from hawks_deap.evaluation import _compiled

        assert _compiled.native(), "this tree's C kernels are not built"
        kernel = _compiled.grid_overlap_flags
    digest = hashlib.sha256()
    for X, codes in sets:
        digest.update(np.asarray(kernel(X, codes), dtype=bool).tobytes())
    t0 = time.perf_counter()
    for X, codes in sets:
        kernel(X, codes)
    per = (time.perf_counter() - t0) / len(sets)
    print(json.dumps({"ms": per * 1e3, "flags": digest.hexdigest()[:16]}))


def run_child(path: str, side: str, checkout: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run([sys.executable, __file__, "--child", path, side], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--baseline-kernel", choices=["numba", "c"], default="numba")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--child", nargs=2, metavar=("PATH", "SIDE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    if args.baseline is None:
        parser.error("--baseline is required")
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "sets.npz")
        n = record(path)
        times: dict[str, list[float]] = {"baseline": [], "this": []}
        flags: dict[str, set[str]] = {"baseline": set(), "this": set()}
        for _ in range(args.repeats):
            for side, kernel, checkout in (("baseline", args.baseline_kernel, args.baseline),
                                           ("this", "c", HERE)):
                out = run_child(path, kernel, checkout)
                times[side].append(out["ms"])
                flags[side].add(out["flags"])
    same = len(flags["baseline"] | flags["this"]) == 1
    base, this = statistics.median(times["baseline"]), statistics.median(times["this"])
    print(f"{n} config-a datasets (N = 2000, K = 5, D = 2), {args.repeats} interleaved repeats")
    print("| kernel | ms a dataset (median) | [min, max] |")
    print("|---|---|---|")
    print(f"| {args.baseline_kernel} ({args.baseline}) | {base:.3f} | "
          f"[{min(times['baseline']):.3f}, {max(times['baseline']):.3f}] |")
    print(f"| C (this tree) | {this:.3f} | [{min(times['this']):.3f}, "
          f"{max(times['this']):.3f}] |")
    print(f"baseline / this: {base / this:.2f}x; same flags: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
