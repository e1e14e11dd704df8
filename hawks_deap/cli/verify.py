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
        try:
            provenance.check_verifiable(path)  # (a ValueError: exit 2, one line)
        except ValueError as error:
            raise ValueError(f"{error}{_python_run_hint(path)}") from None

    def run() -> int:
        outcomes = [provenance.verify(path, n_jobs=args.n_jobs) for path in paths]
        for outcome in outcomes:
            print(outcome.summary())
        return EXIT_OK if all(o.holds for o in outcomes) else EXIT_FAILURE

    return run


def _python_run_hint(path: Path) -> str:
    """What to do with a run saved from Python (`hawks_deap.Result.save`), else nothing.

    Its metadata holds the problem's parameters but not the settings a command builds
    a problem from (a Python problem may hold any constraint, algorithm or callable),
    so only the program that made it can repeat it.
    """
    from hawks_deap._util.files import read_json
    from hawks_deap.io.dataset import METADATA_FILE

    try:
        meta = read_json(path / METADATA_FILE)
    except ValueError:
        return ""
    if not isinstance(meta, dict) or "command" in meta or "evolve" not in meta:
        return ""
    seed = repr(meta.get("seed"))
    if meta.get("seed_spawn_key"):  # a spawned SeedSequence: its entropy alone is another
        seed = (f"numpy.random.SeedSequence({seed}, spawn_key="
                f"{tuple(meta['seed_spawn_key'])!r})")
    return ("; this run was saved from Python (Result.save or Dataset.save): repeat it with "
            f"hawks_deap.evolve(problem, seed={seed}, ...) and compare")
