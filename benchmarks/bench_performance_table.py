"""performance_table: one clustering call per (dataset, algorithm) against the table, which
builds each linkage tree once per dataset and cuts it at K and 2K.

    python benchmarks/bench_performance_table.py [--datasets 20] [--n 2000] [--repeats 3]
    python benchmarks/bench_performance_table.py --battery ../shared/data/clustering-data-v1/sipu
    python benchmarks/bench_performance_table.py --commands ../shared/data/clustering-data-v1/sipu \
        [--busy 1] [--repeats 3]
    python benchmarks/bench_performance_table.py --battery ../shared/data/clustering-data-v1/sipu \
        --baseline OTHER_CHECKOUT [--repeats 3]

The paper's six algorithms on ``--datasets`` HAWKS datasets of N points (D=2, K=5..9,
`hawks_deap.make_hawks` with 5 generations), or on the datasets of a clustering-benchmarks
battery (``--battery``, read with `hawks_deap.io.batteries.read_battery`; those of more than
``--max-points`` points left out, as in benchmarks/fidelity_sources.py: the linkages cannot
hold their distances). The two ways alternate ``--repeats`` times in one process: on the
HAWKS datasets "one call each" is a loop of separate calls; on a battery it is
`performance_table` itself with every algorithm run alone (no shared tree), so noise
points are scored as the table scores them. Prints the wall and CPU medians, their ratio,
and whether the two tables are identical. Set OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 to
measure as a worker of ``performance_table(n_jobs > 1)`` runs (one BLAS/OpenMP thread).

``--commands BATTERY`` times the command ``hawks-deap features FILES --algorithms paper``
(FILES: the battery's NAME.data.gz of at most ``--max-points`` points, as above), each
run a fresh process, the variants interleaved ``--repeats`` times (issue 37, item 2):

(a) on a busy machine (``--busy`` processes spinning on a core each, started here for
    this part only): the thread caps (``n_threads=1``, the default) against the same
    command under OMP_NUM_THREADS=1, and the code without caps ("before":
    `performance_table` and `features_table` with ``n_threads=None``, patched in by this
    script's ``--as-cli uncapped`` entry);
(b) on the idle machine: ``--n-jobs 2`` against ``--n-jobs 1``, with and without caps.

``--baseline OTHER_CHECKOUT`` (with ``--battery``) times ``performance_table(datasets,
seed=0)`` of this tree against another checkout's (e.g. the code before issue 34), each
call in a fresh child process importing that tree (``PYTHONPATH``), the two alternated
``--repeats`` times; wall time is the call's, CPU time the child's (its threads
included); the tables must be equal bit for bit.

``--commands`` prints each variant's median wall and CPU times (with the load average around each
part: the machine may be shared), the ratios the acceptance asks for, and whether
every variant printed the same table.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

import hawks_deap as hd
from hawks_deap._util.validation import as_seed_sequence, int_seed
from hawks_deap.analysis.features import performance_table
from hawks_deap.clustering import PAPER_ALGORITHMS, get_algorithm
from hawks_deap.metrics import adjusted_rand_index


def separate(datasets: list[tuple[np.ndarray, np.ndarray]], seed: int = 0) -> np.ndarray:
    """The table as one call per (dataset, algorithm), each linkage built by its own call,
    with the seeds `performance_table` gives (spawned by position)."""
    runners = [get_algorithm(name) for name in PAPER_ALGORITHMS]
    ss = as_seed_sequence(seed)
    rows = []
    for i, (X, y) in enumerate(datasets):
        k = len(np.unique(y))
        rows.append([adjusted_rand_index(y, r(X, k, int_seed(ss, i, j)))
                     for j, r in enumerate(runners)])
    return np.array(rows)


class _Alone:
    """A runner that ignores ``trees``: every linkage built by its own call."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner

    def __call__(self, X: np.ndarray, k: int, seed: int | None, *, trees: Any = None
                 ) -> np.ndarray:
        return self.runner(X, k, seed)


@contextlib.contextmanager
def unshared_trees() -> Iterator[None]:
    """`performance_table` (with ``n_jobs=1``) with each algorithm run alone."""
    from hawks_deap.analysis import features

    row = features._performance_row

    def alone_row(task: tuple) -> list[float]:
        X, codes, k, scored, runners, seeds = task
        return row((X, codes, k, scored, [_Alone(r) for r in runners], seeds))

    features._performance_row = alone_row
    try:
        yield
    finally:
        features._performance_row = row


def alone_table(datasets: list[Any]) -> np.ndarray:
    with unshared_trees():
        return performance_table(datasets, seed=0).values


# --------------------------------------------------------------------------- --commands


def as_cli(mode: str, argv: list[str]) -> int:
    """``hawks-deap ARGV``, with the thread caps (``capped``) or without (``uncapped``).

    ``uncapped`` is the code before the caps: `performance_table` and `features_table`
    called with ``n_threads=None`` (their workers then get the pool's default, one thread
    under fork, as before).
    """
    from hawks_deap.analysis import features
    from hawks_deap.cli.app import main as cli_main

    if mode == "uncapped":  # the command imports them from the module when it runs
        features.performance_table = functools.partial(features.performance_table,
                                                       n_threads=None)
        features.features_table = functools.partial(features.features_table, n_threads=None)
    elif mode != "capped":
        raise ValueError(f"--as-cli must be 'capped' or 'uncapped', got {mode!r}")
    return cli_main(argv)


def battery_files(battery: str, max_points: int) -> list[Path]:
    """The battery's NAME.data.gz of at most ``max_points`` points (the linkages' bound)."""
    from hawks_deap.io.batteries import read_battery

    folder = Path(battery)
    return [folder / f"{d.metadata['name'].split('/')[-1]}.data.gz"
            for d in read_battery(battery) if d.n_samples <= max_points]


Times = dict[str, dict[str, list[float]]]  # {"wall" or "CPU": {variant: seconds}}


def _children_cpu() -> float:
    """User + system time of the waited-for children (a command and its workers)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_variants(variants: dict[str, tuple[str, list[str], dict[str, str]]],
                  repeats: int) -> tuple[Times, set[str]]:
    """Wall and CPU times of each variant (interleaved ``repeats`` times), outputs seen.

    CPU time counts the spinning of OpenMP threads that wait for a descheduled team
    member, and is less disturbed than wall time by other load on a shared machine.
    """
    times: Times = {"wall": {name: [] for name in variants},
                    "CPU": {name: [] for name in variants}}
    outputs = set()
    print(f"  load average before: {os.getloadavg()[0]:.2f}")
    for _ in range(repeats):
        for name, (mode, argv, env) in variants.items():
            cmd = [sys.executable, __file__, "--as-cli", mode, *argv]
            t0, c0 = time.perf_counter(), _children_cpu()
            out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                                 env={**os.environ, **env})
            times["wall"][name].append(time.perf_counter() - t0)
            times["CPU"][name].append(_children_cpu() - c0)
            outputs.add(out.stdout)
    print(f"  load average after: {os.getloadavg()[0]:.2f}")
    return times, outputs


def report(times: Times, ratios: list[tuple[str, str, str]]) -> None:
    """Each variant's medians (and runs), then ``a / b`` for the pairs asked."""
    for kind, by_name in times.items():
        med = {name: statistics.median(ts) for name, ts in by_name.items()}
        for name, ts in by_name.items():
            print(f"  {kind:4s} {name:30s} median {med[name]:7.2f} s  ("
                  + ", ".join(f"{t:.2f}" for t in ts) + ")")
        for label, a, b in ratios:  # the acceptance is on wall time
            shown = label if kind == "wall" else label.split(" (acceptance")[0]
            print(f"  {kind:4s} {shown}: {med[a] / med[b]:.3f}")


def commands(args: argparse.Namespace) -> None:
    """Part (a), busy, then part (b), idle (see the module docstring)."""
    files = [str(f) for f in battery_files(args.commands, args.max_points)]
    print(f"{len(files)} datasets: {', '.join(Path(f).name for f in files)}; "
          f"{os.cpu_count()} cores")
    base = ["features", *files, "--algorithms", "paper", "--format", "csv"]
    one = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    busy = {"after: caps (n_threads=1)": ("capped", base, {}),
            "OMP_NUM_THREADS=1": ("capped", base, one),
            "before: no caps": ("uncapped", base, {})}
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(args.busy)]
    print(f"(a) busy machine ({args.busy} spinning process(es)), medians of {args.repeats}:")
    try:
        busy_times, busy_out = time_variants(busy, args.repeats)
    finally:
        for p in spinners:  # only the processes started here
            p.kill()
            p.wait()
    names = list(busy)
    report(busy_times, [("after / OMP_NUM_THREADS=1 (acceptance <= 1.10)", names[0],
                         names[1]),
                        ("before / OMP_NUM_THREADS=1", names[2], names[1]),
                        ("before / after", names[2], names[0])])
    idle = {"after: --n-jobs 1": ("capped", [*base, "--n-jobs", "1"], {}),
            "after: --n-jobs 2": ("capped", [*base, "--n-jobs", "2"], {}),
            "before: --n-jobs 1": ("uncapped", [*base, "--n-jobs", "1"], {}),
            "before: --n-jobs 2": ("uncapped", [*base, "--n-jobs", "2"], {})}
    print(f"(b) idle machine, medians of {args.repeats}:")
    idle_times, idle_out = time_variants(idle, args.repeats)
    names = list(idle)
    report(idle_times, [("after: n-jobs 1 / n-jobs 2 (acceptance > 1)", names[0], names[1]),
                        ("before: n-jobs 1 / n-jobs 2", names[2], names[3])])
    print(f"identical tables: {len(busy_out | idle_out) == 1}")


_TABLE_CHILD = """
import json, hashlib, sys, time
try:
    from hawks_deap.analysis.features import performance_table
    from hawks_deap.io.batteries import read_battery
except ImportError:  # a checkout from before the layered package (issue 32)
    from hawks_deap.features import performance_table
    from hawks_deap.batteries import read_battery
data = [d for d in read_battery(sys.argv[1]) if d.n_samples <= int(sys.argv[2])]
t0 = time.perf_counter()
table = performance_table(data, seed=0)
wall = time.perf_counter() - t0
values = table.values
fixed = [j for j, name in enumerate(table.columns) if "linkage" in name]  # no seed
print(json.dumps({"wall": wall, "table": hashlib.sha256(values.tobytes()).hexdigest(),
                  "linkages": hashlib.sha256(values[:, fixed].tobytes()).hexdigest()}))
"""


def against_baseline(args: argparse.Namespace) -> None:
    """``performance_table`` on the battery, this tree against ``--baseline``."""
    trees = {"baseline": str(Path(args.baseline).resolve()),
             "this tree": str(Path(__file__).resolve().parents[1])}
    wall: dict[str, list[float]] = {name: [] for name in trees}
    cpu: dict[str, list[float]] = {name: [] for name in trees}
    tables, linkages = set(), set()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for _ in range(args.repeats):
        for name, tree in trees.items():
            c0 = _children_cpu()
            out = subprocess.run([sys.executable, "-c", _TABLE_CHILD, args.battery,
                                  str(args.max_points)], capture_output=True, text=True,
                                 check=True, cwd=tempfile.gettempdir(),
                                 env={**os.environ, "PYTHONPATH": tree})
            cpu[name].append(_children_cpu() - c0)
            row = json.loads(out.stdout)
            wall[name].append(row["wall"])
            tables.add(row["table"])
            linkages.add(row["linkages"])
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    for label, times in (("wall (the call)", wall), ("CPU (the child)", cpu)):
        for name, ts in times.items():
            print(f"{label} {name:10s} median {statistics.median(ts):7.2f} s  ("
                  + ", ".join(f"{t:.2f}" for t in ts) + ")")
        old, new = (statistics.median(times[name]) for name in trees)
        print(f"{label} baseline / this tree: {old / new:.2f}x")
    print(f"identical tables: {len(tables) == 1}")
    # (a baseline from before 2026-12-06 seeds kmeans++ and gmm by the dataset's position,
    # this tree by its data: those two columns then differ, the linkages' must not)
    print(f"identical linkage columns: {len(linkages) == 1}")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--as-cli":  # one timed command (--commands)
        raise SystemExit(as_cli(sys.argv[2], sys.argv[3:]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=20)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--battery", help="a battery folder, e.g. clustering-data-v1/sipu")
    parser.add_argument("--max-points", type=int, default=20_000)
    parser.add_argument("--commands", metavar="BATTERY",
                        help="time the features command on a battery folder (see above)")
    parser.add_argument("--busy", type=int, default=1,
                        help="spinning processes during part (a) of --commands")
    parser.add_argument("--baseline", metavar="OTHER_CHECKOUT",
                        help="with --battery: this tree's performance_table against that "
                             "checkout's (see above)")
    args = parser.parse_args()
    if args.commands:
        commands(args)
        return
    if args.baseline:
        if not args.battery:
            parser.error("--baseline needs --battery")
        against_baseline(args)
        return
    if args.battery:
        from hawks_deap.io.batteries import read_battery

        data = [d for d in read_battery(args.battery) if d.n_samples <= args.max_points]
        print(f"{len(data)} datasets: "
              + ", ".join(f"{d.metadata['name']} ({d.n_samples})" for d in data))
        ways = {"one call each": lambda: alone_table(data),
                "performance_table": lambda: performance_table(data, seed=0).values}
    else:
        data = [hd.make_hawks(args.n, 2, 5 + i % 5, generations=5, random_state=i)
                for i in range(args.datasets)]
        ways = {"one call each": lambda: separate(data),
                "performance_table": lambda: performance_table(data, seed=0).values}
    wall: dict[str, list[float]] = {name: [] for name in ways}
    cpu: dict[str, list[float]] = {name: [] for name in ways}
    tables = {}
    for _ in range(args.repeats):
        for name, run in ways.items():
            t0, c0 = time.perf_counter(), time.process_time()
            tables[name] = run()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    for label, times in (("wall", wall), ("CPU", cpu)):
        for name, ts in times.items():
            print(f"{label} {name:18s} median {statistics.median(ts):7.3f} s  ("
                  + ", ".join(f"{t:.3f}" for t in ts) + ")")
        old, new = (statistics.median(ts) for ts in times.values())
        print(f"{label} one call each / performance_table: {old / new:.2f}x")
    first, second = tables.values()
    print(f"identical tables: {np.array_equal(first, second)}")


if __name__ == "__main__":
    main()
