"""``hawks-deap verify RUN...``: run saved runs again and compare.

A RUN is a run directory, or a folder of them: a suite's output folder stands for every
run under its ``runs/`` (as ``features``, ``plot`` and ``export`` read it).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from hawks_deap.cli.common import EXIT_FAILURE, EXIT_OK


def prepare(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``verify``; the returned function re-runs each run and compares."""
    from hawks_deap.campaign import provenance

    paths = _run_dirs([Path(p) for p in args.runs])
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


def _run_dirs(paths: list[Path]) -> list[Path]:
    """Each path a run directory as it is, or the run directories a folder holds, in order.

    A folder (a suite's output folder: its ``runs/``) is read as a collection
    (`hawks_deap.io.collection.collection_items`); a battery in it is refused, since no
    run wrote it. What is neither stays as given, for `check_verifiable` to name.
    """
    from hawks_deap.io.collection import collection_items
    from hawks_deap.io.dataset import DATA_FILE, DATA_NPZ, is_dataset_dir

    out: list[Path] = []
    for path in paths:
        if is_dataset_dir(path) or not path.is_dir():
            out.append(path)
            continue
        try:
            items = collection_items(path)
        except ValueError:
            raise ValueError(f"RUN {path} is neither a run directory (no {DATA_FILE} or "
                             f"{DATA_NPZ}) nor a folder of them (a suite's output "
                             f"folder)") from None
        for item in items:
            if item.dataset is not None:
                raise ValueError(f"RUN {path} holds the battery {item.path}, whose datasets "
                                 f"no run wrote: name its run directories instead")
            out.append(item.path)
    return out


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
