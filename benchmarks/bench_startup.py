"""The command line's whole cost: ``hawks-deap generate`` of config a, start-up included.

Config a (N=2000, K=5, D=2, s_t=0.5, the command's other defaults) as a user types it,
timed from outside the process (wall and CPU of the child), side by side with another
checkout's ``hawks_deap`` (e.g. a ``git worktree`` of an earlier commit): the two runs of
each seed back to back, ``--repeats`` times, so that the machine's drift affects the ratio
little. Each child runs in a fresh temporary folder: ``python -m`` puts the working folder
first on ``sys.path``, so a run started inside a checkout would import that checkout
whatever ``PYTHONPATH`` says. The two sides must write the same dataset (checked).
Both checkouts are byte-compiled first, as ``pip install .`` does: a checkout on
``PYTHONPATH`` under ``PYTHONDONTWRITEBYTECODE=1`` (set on some machines) would otherwise
compile every module of the package from source in every run (about 0.12 s here).

    python benchmarks/bench_startup.py --baseline OTHER_CHECKOUT [--seeds 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
CONFIG_A = ["--n-samples", "2000", "--n-clusters", "5", "--n-dims", "2", "--target", "0.5"]


def run_cli(checkout: Path, seed: int) -> tuple[float, float, str]:
    """(wall s, CPU s, sha256 of the dataset) of one ``generate`` of config a."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "hawks_deap.cli", "generate", "--seed", str(seed),
                        *CONFIG_A, "--out", "run", "--quiet"], cwd=tmp, env=env, check=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        digest = hashlib.sha256((Path(tmp) / "run" / "data.csv").read_bytes()).hexdigest()
    return wall, cpu, digest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True,
                        help="another checkout (its folder holds hawks_deap/)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not (args.baseline / "hawks_deap").is_dir():
        parser.error(f"--baseline {args.baseline}: no hawks_deap/ folder there")
    sides = {"baseline": args.baseline.resolve(), "this tree": HERE}
    for path in sides.values():
        compileall.compile_dir(path / "hawks_deap", quiet=1)
    times: dict[str, list[tuple[float, float]]] = {side: [] for side in sides}
    ratios = []
    for seed in range(args.seeds):
        for _ in range(args.repeats):
            got = {side: run_cli(path, seed) for side, path in sides.items()}
            if got["baseline"][2] != got["this tree"][2]:
                sys.exit(f"seed {seed}: the two checkouts wrote different datasets")
            for side in sides:
                times[side].append(got[side][:2])
            ratios.append(got["baseline"][0] / got["this tree"][0])
    print(f"hawks-deap generate, config a, seeds 0-{args.seeds - 1} x {args.repeats} "
          f"(same datasets on both sides)\n")
    print("| side | wall s, median [min, max] | CPU s, median |")
    print("|---|---|---|")
    for side, values in times.items():
        walls = [w for w, _ in values]
        print(f"| {side} ({sides[side]}) | {statistics.median(walls):.2f} "
              f"[{min(walls):.2f}, {max(walls):.2f}] "
              f"| {statistics.median(c for _, c in values):.2f} |")
    print(f"\nbaseline / this tree, per pair: median {statistics.median(ratios):.2f}x "
          f"[{min(ratios):.2f}, {max(ratios):.2f}]")


if __name__ == "__main__":
    main()
