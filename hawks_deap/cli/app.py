"""The ``hawks-deap`` command.

Commands (each has ``--help``):

``hawks-deap generate``
    Evolve an Index-mode dataset (a target silhouette under overlap / eccentricity
    constraints) and save it: ``data.csv``, ``genes.json``, ``metadata.json`` and the
    run's ``logbook.csv``.
``hawks-deap versus WINNER LOSER``
    Evolve a dataset on which clustering algorithm WINNER beats LOSER (Versus mode);
    also writes ``partitions.csv`` (both algorithms' labels on the saved data).
``hawks-deap features PATH...``
    Print or write the problem features (and optionally the ARI of clustering
    algorithms) of saved datasets.
``hawks-deap plot PATH...``
    Write PNG figures of a saved dataset or run (scatter with covariance ellipses,
    convergence, Versus panels), or of a collection (instance space, ARI boxplots).
``hawks-deap export SRC... --battery NAME --out DIR``
    Write saved datasets (a suite's runs, a folder of datasets) as a battery of the
    clustering-benchmarks format (`hawks_deap.io.batteries`); with ``--format isa``,
    Instance Space Analysis' ``metadata.csv`` (`hawks_deap.analysis.isa`).
``hawks-deap suite GRID.toml``
    Run a parameter-grid campaign (`hawks_deap.campaign.suite`), resumably; ``GRID.json``: a
    HAWKS 0.2.0 config (`hawks_deap.campaign.hawks_json`).

``features``, ``plot`` and ``export`` read collections: dataset directories, folders of them, a
suite's output folder, and clustering-benchmarks batteries (``--labels K`` picks a battery's
reference partition; its noise points are kept but left out of the features and of the ARI).

Every command's options come from one schema (`hawks_deap.settings.config.SCHEMA`). The settings of
``generate`` and ``versus`` are shared with TOML config files (``--config FILE.toml``), or come
from a HAWKS 0.2.0 config (``--config FILE.json``, `hawks_deap.campaign.hawks_json`); options on the
command line override the file. Runs are evolved and saved by
`hawks_deap.campaign.runs`, as in suites.

Everything is validated before anything is written. Exit codes: 0 success; 2 bad input (one line
on stderr naming the option, key or file; nothing written); 1 a missing optional dependency, a
failed write or clustering while running; 130 interrupted. Outputs are written atomically, whole.

The package holds one module per command (`generate`, `versus`, `features`, `plot`,
`export`, `suite`, `verify`), each with a ``prepare(args)`` that validates its input and
returns the function that does the work; `common` holds what they share, and this module
the table of commands (`SUBCOMMANDS`), the parser and `main`.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

from hawks_deap.cli import export, features, fill, generate, plot, suite, target, verify, versus
from hawks_deap.cli.common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Parser,
    UsageError,
)
from hawks_deap.settings import config

__all__ = ["EPILOG", "EXIT_FAILURE", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "SUBCOMMANDS",
           "Subcommand", "UsageError", "build_parser", "main", "main_process"]

class Subcommand(NamedTuple):
    """A command's row: its help line, its description, and its ``prepare(args)``."""

    summary: str                                          # one line in `hawks-deap --help`
    description: str                                      # the top of its own --help
    prepare: Callable[[argparse.Namespace], Callable[[], int]]


#: The subcommands; their options are in `config.SCHEMA`.
SUBCOMMANDS: dict[str, Subcommand] = {
    "generate": Subcommand(
        "evolve an Index-mode dataset and save it",
        "Evolve a dataset whose validity index (--index, the silhouette by default) hits "
        "a target, under overlap / eccentricity constraints, and save it (data.csv, "
        "genes.json, metadata.json, logbook.csv).",
        generate.prepare),
    "versus": Subcommand(
        "evolve a dataset on which WINNER beats LOSER",
        "Versus mode: evolve a dataset that maximises score(WINNER) - score(LOSER) for two "
        "clustering algorithms and save it, with both partitions (partitions.csv).",
        versus.prepare),
    "target": Subcommand(
        "evolve a dataset whose problem features reach chosen values",
        "Feature-target mode: evolve a dataset whose problem features (connectivity, "
        "eccentricity, silhouette, silhouette_std) reach --targets (a weighted, scaled "
        "distance), or whose point in a saved instance space (--space, from hawks-deap "
        "fill or InstanceSpace.save) reaches --point, under the overlap / eccentricity "
        "constraints; K and D are the run's. Saved as generate saves.",
        target.prepare),
    "features": Subcommand(
        "problem features of saved datasets",
        "Compute the 7 problem features of the HAWKS paper (connectivity, dimensionality, "
        "eccentricity, entropy, n_clusters, silhouette, silhouette_std) for saved "
        "datasets, optionally with the ARI of clustering algorithms.",
        features.prepare),
    "plot": Subcommand(
        "PNG figures of a saved dataset, run or collection",
        "For a dataset or run directory: dataset.png (scatter with covariance ellipses of "
        "the genes; PCA when D > 2), convergence.png (if it has logbook.csv), versus.png "
        "(if it has partitions.csv). For several datasets: instance_space.png coloured by "
        "source (parent folder) and, with --algorithms, instance_space_best.png and "
        "performance.png.",
        plot.prepare),
    "export": Subcommand(
        "write datasets as a clustering-benchmarks battery, or ISA's metadata.csv",
        "Write a collection of saved datasets (a suite's runs, a folder of dataset "
        "directories) as a battery of the clustering-benchmarks format: DIR/NAME/"
        "DATASET.data.gz (the points, exact), DATASET.labels0.gz (labels 1..K) and "
        "DATASET.txt (generator, settings and seed), which clustbench.load_dataset(NAME, "
        "DATASET, path=DIR) reads. DATASET is each dataset directory's name. With --format "
        "isa: DIR/metadata.csv, the input of Instance Space Analysis (MATILDA, "
        "instancespace, pyispace): instances, source, feature_* (the 7 problem features) "
        "and, with --algorithms, algo_* (their ARI).",
        export.prepare),
    "suite": Subcommand(
        "run a parameter-grid campaign (resumable)",
        "Run every configuration of a grid file (the [dataset], [objective], "
        "[constraints] and [ga] sections of a run's --config, plus [suite] runs, seed, "
        "mode and format; list values are expanded into their cartesian product), one "
        "dataset directory per run under DIR/runs and one row per finished run in "
        "DIR/summary.csv. Running the same command again resumes: finished runs are "
        "skipped (only [suite] runs may grow; another grid, or files it names that now "
        "hold other contents, are refused). DIR must be new, empty or this suite's. A "
        ".json file is a HAWKS 0.2.0 config: its lists are the grid, as in HAWKS.",
        suite.prepare),
    "fill": Subcommand(
        "evolve datasets into the gaps of a collection's instance space (resumable)",
        "Fit the instance space (PCA of the 7 standardised problem features) on the "
        "collection PATH..., pick --n empty cells of its region (the collection's convex "
        "hull) that the generator can reach (a model fitted on the collection's generated "
        "datasets), and evolve one dataset toward each (Feature-target runs, as a suite in "
        "DIR/suite: parallel, resumable). Writes DIR/space.json, DIR/targets.csv (targets, "
        "their K and D, where each run landed), DIR/fill.json (coverage before and after, "
        "distances to the targets) and DIR/fill.png. Running the same command resumes.",
        fill.prepare),
    "verify": Subcommand(
        "run saved runs again and compare (reproducibility)",
        "Evolve each run directory again from the settings and seed its metadata.json "
        "records (written by generate, versus, target, a suite or a fill; a suite's output "
        "folder stands for every run under its runs/) and compare every "
        "file it wrote: 'identical' (the same bytes), 'same path, values within the "
        "tolerance' (the evolutionary path is the same, the last bits differ: another BLAS "
        "kernel or library version), DIFFERENT or INCOMPLETE; with what differs in the "
        "recorded environment. Exit code 0 when every run is identical, or within the "
        "tolerance in another environment; 1 otherwise. Nothing is written.",
        verify.prepare),
}


EPILOG = """examples:
  hawks-deap generate --seed 0 --out out/example
  hawks-deap generate --config run.toml --generations 50 --out out/run-1
  hawks-deap versus gmm single-linkage --n-jobs 2 --out out/gmm-vs-single
  hawks-deap target --targets silhouette=0.3,connectivity=0.2 --out out/target
  hawks-deap features out/example out/gmm-vs-single
  hawks-deap plot out/example
  hawks-deap features clustering-data-v1/sipu clustering-data-v1/uci --out real.csv
  hawks-deap export out/suite --battery hawks --out benchmarks
  hawks-deap export out/suite --format isa --algorithms paper --out isa
  hawks-deap fill out/suite clustering-data-v1/sipu --n 50 --workers 2 --out out/fill
  hawks-deap verify out/example
"""


def build_parser() -> argparse.ArgumentParser:
    """The ``hawks-deap`` parser: one subparser per row of `SUBCOMMANDS`."""
    from hawks_deap.io.dataset import package_version

    parser = Parser(  # its subcommands' parsers are Parsers too
        prog="hawks-deap",
        description="HAWKS as a DEAP plugin: evolve challenging clustering benchmarks, "
                    "measure their problem features and plot them.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in SUBCOMMANDS.items():
        # no abbreviations: --gen would silently be --generations
        parser_of = sub.add_parser(name, help=command.summary, description=command.description,
                                   allow_abbrev=False)
        config.add_arguments(parser_of, name, config.SCHEMA)
    return parser


def _import_from_working_directory() -> None:
    """Put the working directory on the import path, as ``python -m`` does.

    So that import paths of algorithms (``my_pkg.algo:MyAlgo``) name the working
    directory's modules: a console script's ``sys.path`` does not hold it. Appended,
    not prepended, so that a local folder never shadows an installed package; worker
    processes inherit the path.
    """
    cwd = os.getcwd()
    if "" not in sys.path and cwd not in sys.path:
        sys.path.append(cwd)


def _show_warning(prog: str, message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: Any = None, line: str | None = None) -> None:
    """A warning while a command works, as its errors are printed (no source line)."""
    print(f"{prog}: warning: {message}", file=sys.stderr if file is None else file)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hawks-deap`` command; returns the exit code.

    Every command first validates its input (config file, options, paths, output
    locations) and only then computes and writes.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name (default: ``sys.argv[1:]``).
    """
    _import_from_working_directory()
    parser = build_parser()
    try:
        args, extras = parser.parse_known_args(argv)
    except SystemExit as exit_:  # argparse: --help, --version or a usage error
        code = exit_.code
        return code if isinstance(code, int) else (EXIT_OK if code is None else EXIT_USAGE)
    if extras:  # named with the command, and a did-you-mean (argparse gives neither)
        print(config.unknown_arguments(args.command, extras), file=sys.stderr)
        return EXIT_USAGE
    prog = f"hawks-deap {args.command}"
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    try:
        try:  # the command-line-only options given (as argparse's errors end)
            config.check_command_line(args, args.command, config.SCHEMA)
        except (ValueError, TypeError) as error:
            print(f"{prog}: error: {error}; see {prog} --help", file=sys.stderr)
            return EXIT_USAGE
        try:  # the command's own checks
            run = SUBCOMMANDS[args.command].prepare(args)
        except (ValueError, TypeError) as error:
            print(f"{prog}: error: {error}", file=sys.stderr)
            return EXIT_USAGE
        except ImportError as error:
            print(f"{prog}: error: {error}", file=sys.stderr)
            return EXIT_FAILURE
        try:
            with warnings.catch_warnings():  # one line each, named with the command
                warnings.showwarning = partial(_show_warning, prog)
                return run()
        except UsageError as error:  # refused once the work starts (a lock, a scheduler)
            print(f"{prog}: error: {error}", file=sys.stderr)
            return EXIT_USAGE
        except ImportError as error:  # an extra the work needs (dask) is not installed
            print(f"{prog}: error: {error}", file=sys.stderr)
            return EXIT_FAILURE
        except OSError as error:  # a full disk, a folder that vanished, ...
            where = f" ({error.filename})" if error.filename else ""
            print(f"{prog}: error: cannot write{where}: {error.strerror or error}",
                  file=sys.stderr)
            return EXIT_FAILURE
        except (ValueError, TypeError, RuntimeError) as error:  # e.g. a clustering failure
            print(f"{prog}: error while running: {type(error).__name__}: {error}",
                  file=sys.stderr)
            return EXIT_FAILURE
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM, while validating or running
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


def _terminate(signum: int, frame: Any) -> None:
    """SIGTERM as Ctrl-C: the command stops its workers and keeps no half-written file."""
    raise KeyboardInterrupt


def main_process(argv: Sequence[str] | None = None) -> int:
    """`main` as the command's own process runs it (the entry point, ``python -m``).

    After an interrupt the process is ending and has said why in one line: what
    libraries leave half started is kept quiet (`_quiet_after_interrupt`). In-process
    callers of `main` keep their hooks.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default ``sys.argv[1:]``), as `main` takes them.

    Returns
    -------
    int
        The exit code.
    """
    code = main(argv)
    if code == EXIT_INTERRUPTED:
        _quiet_after_interrupt()
    return code


def _quiet_after_interrupt() -> None:
    """An interrupted command says one line: not what libraries leave half started.

    A SIGTERM while a dask LocalCluster starts leaves it, never returned to us, to
    distributed's exit hook, which fails on it ("Exception ignored in atexit callback"
    and an AssertionError), and its nannies' failed start to asyncio's "Task exception
    was never retrieved" (about 30 lines, found from outside). The process is ending and
    has said why: exceptions that cannot be raised any more, and asyncio's and
    distributed's logs, are dropped from here on.
    """
    sys.unraisablehook = lambda unraisable: None
    for name in ("asyncio", "distributed"):  # (its nannies restarting killed workers)
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
