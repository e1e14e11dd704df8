"""``hawks-deap verify RUN...``: run saved runs again and compare."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from hawks_deap.cli.common import EXIT_FAILURE, EXIT_OK


def prepare(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``verify``; the returned function re-runs each run and compares."""
    from hawks_deap.campaign import provenance

    paths = [Path(p) for p in args.runs]
    for path in paths:
        provenance.check_verifiable(path)  # (a ValueError: exit 2, one line)

    def run() -> int:
        outcomes = [provenance.verify(path, n_jobs=args.n_jobs) for path in paths]
        for outcome in outcomes:
            print(outcome.summary())
        return EXIT_OK if all(o.within_tolerance for o in outcomes) else EXIT_FAILURE

    return run
