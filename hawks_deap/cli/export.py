"""``hawks-deap export PATH... --battery NAME --out DIR``: a clustering-benchmarks battery."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from hawks_deap.cli.common import EXIT_OK, UsageError, collection_input


def prepare(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``export``; the returned function writes the battery."""
    from hawks_deap.io.batteries import prepare_battery

    items, datasets, _ = collection_input(args, "export")
    names = [item.short_name for item in items]
    try:
        export = prepare_battery(datasets, args.out, battery=args.battery, names=names,
                                 overwrite=args.overwrite)
    except FileExistsError as error:
        raise UsageError(str(error)) from None

    def run() -> int:
        folder = export.write()
        print(f"wrote {folder}: {len(datasets)} datasets (NAME.data.gz, NAME.labels0.gz, "
              "NAME.txt)")
        return EXIT_OK

    return run
