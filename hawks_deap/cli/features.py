"""``hawks-deap features PATH...``: the problem features of saved datasets."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hawks_deap.cli.common import (
    EXIT_OK,
    UsageError,
    check_out_file,
    check_unused,
    collection_input,
    references,
)


def prepare(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``features``'s arguments; returns the function that does the work."""
    out, fmt = (Path(args.out) if args.out else None), args.format
    if out is None:
        check_unused(args, "features", ("overwrite",), "--out FILE")
    else:
        check_out_file(out, args.overwrite)
        fmt = "json" if out.suffix.lower() == ".json" else "csv"
        if args.format not in ("table", fmt):  # "table" is the default: not a choice
            raise UsageError(f"--format {args.format} disagrees with --out {out}, written "
                             f"as {fmt} (.json: JSON, otherwise CSV)")
    items, datasets, algorithms = collection_input(args, "features")

    def run() -> int:
        import numpy as np

        from hawks_deap.analysis.features import Table, features_table, performance_table

        names = [item.name for item in items]
        table = features_table(datasets, names=names, metric=args.metric)
        if algorithms:
            perf = performance_table(datasets, algorithms, seed=args.seed, names=names,
                                     preset=args.preset, n_jobs=args.n_jobs,
                                     score=args.score, references=references(args))
            columns = tuple(f"{args.score}_{c}" for c in perf.columns)
            table = Table(table.index, table.columns + columns,
                          np.hstack([table.values, perf.values]))
        text = _table_text(table, fmt)
        if out is None:
            sys.stdout.write(text)
        else:
            from hawks_deap._util.writes import write_file_atomic

            # without --overwrite, a file that appeared meanwhile is never replaced
            write_file_atomic(out, text.encode("utf-8"), replace=args.overwrite)
            rows = f"{len(table)} dataset{'s' if len(table) != 1 else ''}"
            print(f"wrote {out}: {rows}, each with its name and {len(table.columns)} values")
        return EXIT_OK

    return run


def _table_text(table: Any, fmt: str) -> str:
    """A features table as JSON (non-finite values are null), CSV or aligned text."""
    if fmt == "json":
        rows = [{"dataset": name, **{k: (v if math.isfinite(v) else None)
                                     for k, v in row.items()}}
                for name, row in zip(table.index, table.records(), strict=True)]
        return json.dumps(rows, indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        return table.to_csv()
    return table.to_text()
