"""What the commands share: exit codes, usage errors, a run's settings, collections."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from hawks_deap._util.validation import check_parent_dir
from hawks_deap._util.writes import check_not_link
from hawks_deap.campaign import runs
from hawks_deap.io.collection import CollectionItem, collection_items, load_items
from hawks_deap.settings import config

if TYPE_CHECKING:  # annotations only: each command imports what it runs
    from hawks_deap.clustering import ClusteringAlgorithm

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(ValueError):
    """Bad input on the command line (exit code 2)."""


class Parser(argparse.ArgumentParser):
    """argparse's parser, but a usage error is one line, not its usage block."""

    def error(self, message: str) -> NoReturn:
        """Exit 2 with ``message`` on one line."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}; see {self.prog} --help\n")


def run_settings(args: argparse.Namespace, command: str
                 ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The resolved settings, and where they came from when not from TOML or options."""
    from hawks_deap.campaign import hawks_json

    if args.config and hawks_json.is_hawks_json(args.config):
        hawks = hawks_json.load_hawks_config(args.config)
        values = hawks_json.run_settings(hawks, command, config.cli_values(args, command))
        hawks_notes(f"hawks-deap {command}", hawks)
        return values, hawks.settings_source()
    file_values = config.load_config(args.config, command=command) if args.config else {}
    return config.resolve(command, file_values, config.cli_values(args, command)), None


def note(prog: str, line: str) -> None:
    """One note on stderr: ``PROG: note: LINE``."""
    print(f"{prog}: note: {line}", file=sys.stderr)


def hawks_notes(prog: str, hawks: Any) -> None:
    """What a HAWKS config holds that is not used, on stderr (even with --quiet)."""
    for line in hawks.messages():
        note(prog, line)


class _NoteHandler(logging.Handler):
    """Log records as `note` lines of ``prog``."""

    def __init__(self, prog: str) -> None:
        super().__init__(logging.INFO)
        self.prog = prog

    def emit(self, record: logging.LogRecord) -> None:
        note(self.prog, record.getMessage())


def checked_items(args: argparse.Namespace) -> list[CollectionItem]:
    """The collection ``args.paths`` names (`collection_items`), with ``--labels`` checked."""
    items = collection_items(args.paths)
    if args.labels and all(item.dataset is None for item in items):
        raise UsageError(f"--labels {args.labels} chooses a battery dataset's partition; "
                         "no PATH is a battery (a dataset directory has one partition)")
    return items


def check_unused(args: argparse.Namespace, command: str, keys: Sequence[str],
                  needed: str) -> None:
    """Refuse an option of ``keys`` given a value other than its default without ``needed``.

    Such an option only acts through ``needed``: silently ignored, it would suggest a
    setting that the output does not have.
    """
    for opt in config.options_for(command, config.COMMAND_LINE_OPTIONS):
        value = getattr(args, opt.key, None)
        if opt.key in keys and value is not None and value != opt.default_for(command):
            given = opt.flag if opt.kind == "bool" else f"{opt.flag} {value}"
            raise UsageError(f"{given} acts only with {needed}; give {needed} too, or "
                             f"leave {opt.flag} out")


def references(args: argparse.Namespace) -> str | None:
    """`performance_table`'s ``references`` from ``--references``: None or ``"all"``."""
    return "all" if getattr(args, "references", "labels") == "all" else None


def collection_input(args: argparse.Namespace, command: str
                     ) -> tuple[list[CollectionItem], list[Any], list[str]]:
    """The datasets (loaded and checked) and clustering algorithms a command names."""
    items = checked_items(args)
    algorithms = algorithm_list(getattr(args, "algorithms", None))
    preset = getattr(args, "preset", None)
    if preset is not None and not algorithms:
        raise UsageError(f"--preset {preset} sets the settings of --algorithms; give "
                         "--algorithms too")
    if not algorithms:
        check_unused(args, command, ("seed", "score", "n_jobs", "references"),
                      "--algorithms")
    from hawks_deap.clustering import get_algorithm

    # an ImportError naming a missing extra, before any work
    resolved = [get_algorithm(name, preset=preset) for name in algorithms]
    datasets = load_items(items, args.labels)
    if command == "features" or (command == "plot" and len(items) > 1):  # features needed
        from hawks_deap.analysis.features import check_feature_inputs  # e.g. a dataset too small

        # (plot's instance space needs every feature finite: 2 clusters at least)
        check_feature_inputs(datasets, names=[item.name for item in items],
                             min_clusters=2 if command == "plot" else 1)
    check_pairwise_memory(items, datasets, resolved)
    return items, datasets, algorithms


def check_pairwise_memory(items: Sequence[CollectionItem], datasets: Sequence[Any],
                           algorithms: Sequence[ClusteringAlgorithm]) -> None:
    """Refuse, before any work, a dataset too large for a `pairwise` algorithm here.

    Those (average, complete, Ward linkage) hold every distance: sipu/birch1's 100,000
    points need 40 GB, which would fail (or swap) after minutes of other work.
    """
    used = [a for a in algorithms if a.pairwise]
    for item, dataset in zip(items, datasets, strict=True) if used else ():
        n = dataset.n_samples
        try:
            used[0].check_memory(n, {"dataset": item.name, "n_samples": n})
        except ValueError as error:
            raise UsageError(f"--algorithms: {error}; leave "
                             f"{', '.join(a.name for a in used)} out or this dataset"
                             ) from None


def algorithm_list(text: str | None) -> list[str]:
    """The algorithms ``--algorithms`` names: 'all', 'paper' or comma-separated, checked.

    An entry is a registered name, an import path (``package.module:attr``,
    ``path/to/file.py:attr``) or an installed plugin; each is resolved here, so one that
    cannot be is refused (exit 2) before any work, naming it and the reason.
    """
    if text is None:
        return []
    from hawks_deap.clustering import PAPER_ALGORITHMS, available_algorithms, get_algorithm

    if text.strip() == "paper":
        return list(PAPER_ALGORITHMS)
    if text.strip() == "all":  # all that run here: a missing optional extra is noted
        names = []
        for name in available_algorithms():
            try:
                get_algorithm(name)
            except ImportError as error:
                print(f"note: --algorithms all leaves out {name!r}: {error}", file=sys.stderr)
            else:
                names.append(name)
        return names
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise UsageError("--algorithms needs 'all', 'paper' or comma-separated names or "
                         "import paths; registered: " + ", ".join(available_algorithms()))
    expanded: list[str] = []
    for name in names:  # 'paper' may stand among others: "paper,my_pkg.algo:MyAlgo"
        expanded.extend(PAPER_ALGORITHMS if name == "paper" else [name])
    for name in expanded:
        try:
            get_algorithm(name)
        except ValueError as error:
            raise UsageError(f"--algorithms entry {name!r}: {error}") from None
    repeated = sorted({n for n in expanded if expanded.count(n) > 1})
    if repeated:  # performance_table would refuse them, after the features' work
        raise UsageError(f"--algorithms names {', '.join(repeated)} more than once")
    return expanded


def check_out_file(path: Path, overwrite: bool, option: str = "--out") -> None:
    """Refuse, before any work, an output file that exists (without ``--overwrite``)."""
    if (path.exists() or path.is_symlink()) and not overwrite:  # (a dangling link too)
        raise UsageError(f"{option} {path} already exists; pass --overwrite to replace it")
    try:
        check_not_link(path)  # the rule `write_file_atomic` applies, before the work
    except ValueError as error:
        raise UsageError(f"{option} {error}: give the file's own path or another name"
                         ) from None
    if path.exists() and path.is_dir():
        raise UsageError(f"{option} {path} is a directory")
    check_parent_dir(path, f"{option} {path}")  # before the work, not when writing it


def prepare_run(args: argparse.Namespace, command: str,
                 summary: Callable[[Mapping[str, Any], Any], str]) -> Callable[[], int]:
    """Validate a run command; the returned function evolves, saves and reports."""
    values, source = run_settings(args, command)
    # files as the run reads them: `verify` repeats the run from any folder
    values = {key: runs.absolute_file(key, value, Path.cwd())[0]
              for key, value in values.items()}
    if command == "versus":
        missing = [k for k in ("winner", "loser") if values[k] is None]
        if missing:
            raise UsageError(f"versus needs WINNER and LOSER ({' and '.join(missing)} "
                             "missing): give them as arguments, e.g. `hawks-deap versus gmm "
                             "single-linkage --out DIR`, or as [objective] winner / loser "
                             "in --config")
    out = Path(args.out)
    runs.check_run_dir(out, args.overwrite)
    from hawks_deap.algorithms.toolbox import check_population

    try:
        problem = runs.build_problem(command, values)
        check_population(problem, values["population_size"])  # with K and D: exit 2, not 1
    except (TypeError, ValueError) as error:
        if args.config is None:
            raise
        # settings checked together, e.g. n_samples against n_clusters * min_size: say
        # where they came from (a suite names the configuration and its file)
        raise type(error)(f"{error} (settings of {args.config} and the command line)"
                          ) from None
    if values.get("n_jobs") is not None:  # (the default fits by construction)
        from hawks_deap.algorithms.loop import check_evaluation_memory

        check_evaluation_memory(problem, None, min(values["n_jobs"], values["population_size"]))
    metadata = {"command": {"name": command, "settings": dict(values),
                            "config_file": None if args.config is None else str(args.config)}}
    if source is not None:
        metadata["settings_source"] = source

    def run() -> int:
        progress = not args.quiet and sys.stderr.isatty()
        with loop_notes(command, quiet=args.quiet):
            done = runs.run_configuration(problem, values, seed=values["seed"],
                                          progress=progress, metadata=metadata)
        # checked before the run: what appeared at --out meanwhile is left as it is, and
        # the finished run kept beside it (OUT.kept-HEX), never thrown away
        done.save(out, overwrite=args.overwrite, format=args.format, keep_if_taken=True)
        if not args.quiet:
            print(f"wrote {out}: {summary(values, done.result)}")
        record = done.result.best.record
        if record.get("feasible") is False:  # said even with --quiet, as a warning
            print(f"hawks-deap {command}: warning: the dataset saved is infeasible (penalty "
                  f"{record['penalty']:.3g}): no individual met the constraints",
                  file=sys.stderr)
        return EXIT_OK

    return run


@contextlib.contextmanager
def loop_notes(command: str, *, quiet: bool) -> Iterator[None]:
    """The run loop's notes on stderr while a run goes on (none with ``--quiet``).

    The loop logs at level INFO what the user should know of how the run is evaluated,
    e.g. that ``--n-jobs`` above 1 evaluates in this process because a pool would be
    slower (`hawks_deap.algorithms.pool.serial_reason`); a library leaves such records
    to the caller's logging, the command line shows them.
    """
    if quiet:
        yield
        return
    from hawks_deap.algorithms import loop

    logger = logging.getLogger(loop.__name__)
    handler = _NoteHandler(f"hawks-deap {command}")
    level = logger.level
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def check_dask_options(args: argparse.Namespace, work: str) -> None:
    """Refuse ``--scheduler`` without ``--backend dask`` or with ``--workers``.

    The scheduler's own workers run ``work`` (e.g. ``"the suite"``, named in the error).
    """
    if args.scheduler is not None and args.backend != "dask":
        raise UsageError("--scheduler needs --backend dask")
    if args.scheduler is not None and args.workers != 1:
        raise UsageError(f"--workers {args.workers} starts a LocalCluster of that many "
                         f"workers; with --scheduler the scheduler's workers run {work}")


@contextlib.contextmanager
def suite_backend(args: argparse.Namespace, tasks: int) -> Iterator[dict[str, Any]]:
    """The keyword arguments ``workers``, ``backend``, ``client`` of a suite-like run.

    For `run_suite` and `run_fill`. ``client`` is None except with ``--backend dask``: then
    a client of ``--scheduler`` or of a LocalCluster of ``min(--workers, tasks)`` workers,
    connected when the work starts (not while the arguments are checked) and closed
    after it, however it ends. An unreachable
    ``--scheduler``, and another run holding the output folder's lock, are found only once
    the work starts: they become a `UsageError` (exit code 2), as if the command line had
    been refused.
    """
    from hawks_deap.campaign import suite as suite_module

    client = None
    if args.backend == "dask":
        try:
            client = suite_module.connect_dask(min(args.workers, tasks), args.scheduler)
        except ValueError as error:  # an unreachable --scheduler: the command line's fault
            raise UsageError(str(error)) from None
    abandon = True  # (unless the work ends: a Ctrl-C or an error leaves runs not wanted)
    try:
        # With a client its workers run the tasks (--workers sized its LocalCluster), so the
        # parent runs one task stream.
        yield {"workers": 1 if client else args.workers, "backend": args.backend,
               "client": client}
        abandon = False
    except (suite_module.SuiteBusy, suite_module.OutputRefused) as error:
        raise UsageError(str(error)) from None
    finally:
        if client is not None:
            suite_module.close_dask(client, abandon=abandon)
