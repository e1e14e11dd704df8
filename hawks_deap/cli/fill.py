"""``hawks-deap fill PATH... --n 50 --out DIR``: evolve datasets into an instance space's gaps."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from hawks_deap.cli.common import (
    EXIT_OK,
    UsageError,
    check_dask_options,
    checked_items,
    suite_backend,
)


def prepare(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``fill``'s arguments; returns the function that does the work."""
    from hawks_deap.campaign import fill as fill_module
    from hawks_deap.settings import config

    check_dask_options(args, "the fill")
    settings = {}
    if args.config is not None:
        settings = config.load_toml(args.config)
    try:
        fill_module.check_settings(settings)
    except (TypeError, ValueError) as error:  # (the file was read above: name it)
        raise UsageError(f"{error} (settings of {args.config})") from None
    try:
        fill_module.check_fill_dir(Path(args.out))
    except (TypeError, ValueError) as error:
        raise UsageError(str(error)) from None
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise UsageError(f"argument PATH: {missing[0]} does not exist")
    checked_items(args)  # a collection, and --labels a battery's: before any work

    def run() -> int:
        progress = not args.quiet and sys.stderr.isatty()
        with suite_backend(args, args.n) as backend:
            report = fill_module.run_fill(
                args.paths, args.out, n=args.n, cell=args.cell, min_margin=args.min_margin,
                settings=settings, seed=args.seed, labels=args.labels, progress=progress,
                **backend)
        if not args.quiet:
            cov, dist = report["coverage"], report["distance"]
            gain = ("" if cov["relative_gain"] is None  # (no region cell held a dataset)
                    else f" ({100 * cov['relative_gain']:+.1f}%)")
            median = "n/a" if dist["median"] is None else f"{dist['median']:.3g}"
            print(f"wrote {args.out}: {report['runs']['done']} of {report['runs']['planned']} "
                  f"gaps run; coverage {cov['before']:.3f} -> {cov['after']:.3f}{gain}; "
                  f"distance to target: median {median}, {dist['within_0.1']} within 0.1")
        return EXIT_OK

    return run
