"""``hawks-deap suite GRID``: a parameter-grid campaign, resumable."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from hawks_deap.cli.common import EXIT_OK, check_dask_options, hawks_notes, suite_backend


def prepare(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``suite``'s arguments; returns the function that does the work."""
    from hawks_deap.campaign import suite as suite_module

    check_dask_options(args, "the suite")
    from hawks_deap.campaign import hawks_json

    if hawks_json.is_hawks_json(args.grid):
        hawks = hawks_json.load_hawks_config(args.grid)
        grid = hawks_json.hawks_suite(hawks, preset=args.preset)
        hawks_notes("hawks-deap suite", hawks)
    else:
        grid = suite_module.load_suite(args.grid, preset=args.preset)
    total = len(grid.configurations) * grid.runs
    if total > suite_module.LONG_SUITE_RUNS:  # said even with --quiet
        print(f"hawks-deap suite: warning: {total:,} runs ({len(grid.configurations):,} "
              f"configurations x {grid.runs:,} runs); a long campaign", file=sys.stderr)
    out = Path(args.out)
    suite_module.check_output(out, grid)
    suite_module.check_memory(out, grid, args.workers)

    def run() -> int:
        progress = not args.quiet and sys.stderr.isatty()
        # a LocalCluster of no more workers than runs left to do (read from out only then)
        left = (max(1, len(suite_module.runs_to_do(out, grid))) if args.backend == "dask"
                else total)
        with suite_backend(args, left) as backend:
            path = suite_module.run_suite(grid, out, progress=progress, **backend)
        if not args.quiet:
            n = len(suite_module.read_summary(out))
            print(f"wrote {path}: {n} runs ({len(grid.configurations)} configurations x "
                  f"{grid.runs} runs)")
        return EXIT_OK

    return run
