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
    clustering-benchmarks format (`hawks_deap.io.batteries`).
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

This module is one part per command: each ``_prepare_<command>`` validates its input
and returns the function that does the work.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

from hawks_deap._util.validation import check_choice, check_parent_dir
from hawks_deap.campaign import runs
from hawks_deap.io.collection import CollectionItem, collection_items, load_items
from hawks_deap.io.dataset import CreatedFiles
from hawks_deap.settings import config

if TYPE_CHECKING:  # annotations only: each command imports what it runs
    from hawks_deap.clustering import ClusteringAlgorithm

__all__ = ["main"]

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(ValueError):
    """Bad input on the command line (exit code 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, but a usage error is one line, not its usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}; see {self.prog} --help\n")


# ------------------------------------------------------------ generate, versus


def _settings(args: argparse.Namespace, command: str
              ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The resolved settings, and where they came from when not from TOML or options."""
    from hawks_deap.campaign import hawks_json

    if args.config and hawks_json.is_hawks_json(args.config):
        hawks = hawks_json.load_hawks_config(args.config)
        values = hawks_json.run_settings(hawks, command, config.cli_values(args, command))
        _hawks_notes(f"hawks-deap {command}", hawks)
        return values, hawks.settings_source()
    file_values = config.load_config(args.config, command=command) if args.config else {}
    return config.resolve(command, file_values, config.cli_values(args, command)), None


def _hawks_notes(prog: str, hawks: Any) -> None:
    """What a HAWKS config holds that is not used, on stderr (even with --quiet)."""
    for line in hawks.messages():
        print(f"{prog}: note: {line}", file=sys.stderr)


def _prepare_run(args: argparse.Namespace, command: str,
                 summary: Callable[[Mapping[str, Any], Any], str]) -> Callable[[], int]:
    """Validate a run command; the returned function evolves, saves and reports."""
    values, source = _settings(args, command)
    if command == "versus":
        missing = [k for k in ("winner", "loser") if values[k] is None]
        if missing:
            raise UsageError(f"versus needs WINNER and LOSER ({' and '.join(missing)} "
                             "missing): give them as arguments, e.g. `hawks-deap versus gmm "
                             "single-linkage --out DIR`, or as [objective] winner / loser "
                             "in --config")
    out = Path(args.out)
    runs.check_run_dir(out, args.overwrite)
    problem = runs.build_problem(command, values)
    from hawks_deap.algorithms.toolbox import check_population

    check_population(problem, values["population_size"])  # with K and D: exit 2, not 1
    metadata = {"command": {"name": command, "settings": dict(values),
                            "config_file": None if args.config is None else str(args.config)}}
    if source is not None:
        metadata["settings_source"] = source

    def run() -> int:
        progress = not args.quiet and sys.stderr.isatty()
        done = runs.run_configuration(problem, values, seed=values["seed"],
                                      progress=progress, metadata=metadata)
        done.save(out, overwrite=args.overwrite, partitions=command == "versus",
                  format=args.format)
        if not args.quiet:
            print(f"wrote {out}: {summary(values, done.result)}")
        return EXIT_OK

    return run


def _generate_summary(values: Mapping[str, Any], result: Any) -> str:
    rec = result.best.record
    return (f"{values['index']} {rec['index']:.6f} (target {values['target']}), "
            f"|s_t - s| = {result.best.fitness.values[0]:.3g}, penalty {rec['penalty']:.3g}, "
            f"{result.generations_run} generations")


def _versus_summary(values: Mapping[str, Any], result: Any) -> str:
    rec = result.best.record
    return (f"{values['winner']} {values['score']} {rec['winner_score']:.4f}, "
            f"{values['loser']} {values['score']} {rec['loser_score']:.4f} "
            f"(gap {result.best.fitness.values[0]:.4f}), penalty {rec['penalty']:.3g}, "
            f"{result.generations_run} generations")


_prepare_generate = functools.partial(_prepare_run, command="generate",
                                      summary=_generate_summary)
_prepare_versus = functools.partial(_prepare_run, command="versus", summary=_versus_summary)


# ------------------------------------------------------------ collections (features, plot, export)


def _collection_input(args: argparse.Namespace, command: str
                      ) -> tuple[list[CollectionItem], list[Any], list[str]]:
    """The datasets (loaded and checked) and clustering algorithms a command names."""
    config.check_command_line(args, command)
    items = collection_items(args.paths)
    if args.labels and all(item.dataset is None for item in items):
        raise UsageError(f"--labels {args.labels} chooses a battery dataset's partition; "
                         "no PATH is a battery (a dataset directory has one partition)")
    algorithms = _algorithm_list(getattr(args, "algorithms", None))
    preset = getattr(args, "preset", None)
    if preset is not None and not algorithms:
        raise UsageError(f"--preset {preset} sets the settings of --algorithms; give "
                         "--algorithms too")
    from hawks_deap.clustering import get_algorithm

    # an ImportError naming a missing extra, before any work
    resolved = [get_algorithm(name, preset=preset) for name in algorithms]
    datasets = load_items(items, args.labels)
    if command == "features" or (command == "plot" and len(items) > 1):  # features needed
        from hawks_deap.analysis.features import check_feature_inputs  # e.g. a dataset too small

        check_feature_inputs(datasets, names=[item.name for item in items])
    _check_pairwise_memory(items, datasets, resolved)
    return items, datasets, algorithms


def _check_pairwise_memory(items: Sequence[CollectionItem], datasets: Sequence[Any],
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


def _algorithm_list(text: str | None) -> list[str]:
    if text is None:
        return []
    from hawks_deap.clustering import PAPER_ALGORITHMS, available_algorithms, get_algorithm

    valid = available_algorithms()
    if text.strip() == "paper":
        return list(PAPER_ALGORITHMS)
    if text.strip() == "all":  # all that run here: a missing optional extra is noted
        names = []
        for name in valid:
            try:
                get_algorithm(name)
            except ImportError as error:
                print(f"note: --algorithms all leaves out {name!r}: {error}", file=sys.stderr)
            else:
                names.append(name)
        return names
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise UsageError("--algorithms needs 'all', 'paper' or comma-separated names; valid: "
                         + ", ".join(valid))
    for name in names:
        check_choice("--algorithms entry", name, valid)  # a ValueError: exit 2, as usage
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:  # performance_table would refuse them, after the features' work
        raise UsageError(f"--algorithms names {', '.join(repeated)} more than once")
    return names


def _check_out_file(path: Path, overwrite: bool, option: str = "--out") -> None:
    if (path.exists() or path.is_symlink()) and not overwrite:  # (a dangling link too)
        raise UsageError(f"{option} {path} already exists; pass --overwrite to replace it")
    if path.exists() and path.is_dir():
        raise UsageError(f"{option} {path} is a directory")
    check_parent_dir(path, f"{option} {path}")  # before the work, not when writing it


# --------------------------------------------------------------------------- features


def _prepare_features(args: argparse.Namespace) -> Callable[[], int]:
    out, fmt = (Path(args.out) if args.out else None), args.format
    if out is not None:
        _check_out_file(out, args.overwrite)
        fmt = "json" if out.suffix.lower() == ".json" else "csv"
        if args.format not in ("table", fmt):  # "table" is the default: not a choice
            raise UsageError(f"--format {args.format} disagrees with --out {out}, written "
                             f"as {fmt} (.json: JSON, otherwise CSV)")
    items, datasets, algorithms = _collection_input(args, "features")

    def run() -> int:
        import numpy as np

        from hawks_deap.analysis.features import Table, features_table, performance_table

        names = [item.name for item in items]
        table = features_table(datasets, names=names, metric=args.metric)
        if algorithms:
            perf = performance_table(datasets, algorithms, seed=args.seed, names=names,
                                     preset=args.preset)
            table = Table(table.index, table.columns + tuple(f"ari_{c}" for c in perf.columns),
                          np.hstack([table.values, perf.values]))
        text = _table_text(table, fmt)
        if out is None:
            sys.stdout.write(text)
        else:
            from hawks_deap._util.writes import write_file_atomic

            # without --overwrite, a file that appeared meanwhile is never replaced
            write_file_atomic(out, text.encode("utf-8"), replace=args.overwrite)
            print(f"wrote {out}: {len(table)} datasets x {len(table.columns)} columns")
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


# --------------------------------------------------------------------------- plot


def _prepare_plot(args: argparse.Namespace) -> Callable[[], int]:
    items, datasets, algorithms = _collection_input(args, "plot")
    single = len(items) == 1
    if args.out is not None:
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {out} is not a directory")
    elif single and items[0].dataset is None:
        out = items[0].path
    elif single:
        raise UsageError("--out DIR is required to plot a battery's dataset (the battery "
                         "folder is not hawks-deap's to write in)")
    else:
        raise UsageError(f"--out DIR is required to plot several datasets ({len(items)} "
                         "found)")
    if single and algorithms:
        raise UsageError("--algorithms is for collections (several datasets)")
    figures = (["dataset.png"] if single else
               ["instance_space.png", *(["instance_space_best.png", "performance.png"]
                                        if algorithms else [])])
    logbook = partitions = None
    # a run's directory may hold its logbook and partitions (a battery's dataset does not)
    run_dir = items[0].path if single and items[0].dataset is None else None
    if run_dir is not None and (run_dir / runs.LOGBOOK_FILE).is_file():
        logbook = runs.read_logbook_csv(run_dir / runs.LOGBOOK_FILE)
        figures.append("convergence.png")
    if run_dir is not None and (run_dir / runs.PARTITIONS_FILE).is_file():
        partitions = runs.read_partitions_csv(run_dir / runs.PARTITIONS_FILE,
                                              datasets[0].n_samples)
        figures.append("versus.png")
    for name in figures:
        _check_out_file(out / name, args.overwrite, option="figure")
    files = CreatedFiles()
    save = _figure_writer(out, args.dpi, files)  # ImportError naming the extra, before any work

    def run() -> int:
        with files.removed_on(KeyboardInterrupt):  # an interrupted command leaves no new figure
            written = (_plot_single(datasets[0], logbook, partitions, save) if single
                       else _plot_collection(datasets, items, algorithms, args.seed, save,
                                             args.preset))
        for path in written:
            print(f"wrote {path}")
        return EXIT_OK

    return run


def _figure_writer(out: Path, dpi: int, files: CreatedFiles) -> Callable[[Any, str], Path]:
    """``save(fig, name)``: write ``out/name`` (`CreatedFiles.write`), close the figure.

    Figures are closed as they are saved: open ones add up.
    """
    from hawks_deap.analysis.plotting import figure_bytes, pyplot

    plt = pyplot()

    def save(fig: Any, name: str) -> Path:
        path = files.write(out / name, figure_bytes(fig, name, dpi=dpi))
        plt.close(fig)
        return path

    return save


def _plot_single(dataset: Any, logbook: Any, partitions: Any,
                 save: Callable[[Any, str], Path]) -> list[Path]:
    from hawks_deap.analysis.plotting import plot_convergence, plot_dataset, plot_versus

    written = [save(plot_dataset(dataset), "dataset.png")]
    problem = dataset.metadata.get("problem") or {}
    if logbook is not None:
        target = problem.get("target") if problem.get("mode") == "index" else None
        written.append(save(plot_convergence(logbook, target=target), "convergence.png"))
    if partitions is not None:
        record = dataset.metadata.get("record") or {}
        fig = plot_versus(dataset.X, dataset.y, partitions["winner"], partitions["loser"],
                          winner=str(problem.get("winner", "winner")),
                          loser=str(problem.get("loser", "loser")),
                          winner_score=record.get("winner_score"),
                          loser_score=record.get("loser_score"),
                          score_name=str(problem.get("score", "score")).upper())
        written.append(save(fig, "versus.png"))
    return written


def _plot_collection(datasets: Sequence[Any], items: Sequence[CollectionItem],
                     algorithms: list[str], seed: int, save: Callable[[Any, str], Path],
                     preset: str | None = None) -> list[Path]:
    from hawks_deap.analysis.features import (
        InstanceSpace,
        best_algorithms,
        features_table,
        performance_table,
    )
    from hawks_deap.analysis.plotting import plot_instance_space, plot_performance

    names = [item.name for item in items]
    sources = [item.group for item in items]
    table = features_table(datasets, names=names)
    space = InstanceSpace().fit(table)
    coords = space.transform(table)
    fig = plot_instance_space(coords, sources, space=space, legend_title="source")
    written = [save(fig, "instance_space.png")]
    if algorithms:
        perf = performance_table(datasets, algorithms, seed=seed, names=names,
                                 preset=preset)
        fig = plot_instance_space(coords, best_algorithms(perf), space=space,
                                  legend_title="best ARI", title="best algorithm")
        written.append(save(fig, "instance_space_best.png"))
        fig = plot_performance(perf, groups=sources if len(set(sources)) > 1 else None)
        written.append(save(fig, "performance.png"))
    return written


# --------------------------------------------------------------------------- export


def _prepare_export(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``export``; the returned function writes the battery."""
    from hawks_deap.io.batteries import prepare_battery

    items, datasets, _ = _collection_input(args, "export")
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


# --------------------------------------------------------------------------- verify


def _prepare_verify(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``verify``; the returned function re-runs each run and compares."""
    from hawks_deap.campaign import provenance

    config.check_command_line(args, "verify")
    paths = [Path(p) for p in args.runs]
    for path in paths:
        provenance.check_verifiable(path)  # (a ValueError: exit 2, one line)

    def run() -> int:
        outcomes = [provenance.verify(path, n_jobs=args.n_jobs) for path in paths]
        for outcome in outcomes:
            print(outcome.summary())
        return EXIT_OK if all(o.within_tolerance for o in outcomes) else EXIT_FAILURE

    return run


# --------------------------------------------------------------------------- suite


def _prepare_suite(args: argparse.Namespace) -> Callable[[], int]:
    from hawks_deap.campaign import suite as suite_module

    config.check_command_line(args, "suite")
    if args.scheduler is not None and args.backend != "dask":
        raise UsageError("--scheduler needs --backend dask")
    if args.scheduler is not None and args.workers != 1:
        raise UsageError(f"--workers {args.workers} starts a LocalCluster of that many "
                         "workers; with --scheduler the scheduler's workers run the suite")
    from hawks_deap.campaign import hawks_json

    if hawks_json.is_hawks_json(args.grid):
        hawks = hawks_json.load_hawks_config(args.grid)
        grid = hawks_json.hawks_suite(hawks, preset=args.preset)
        _hawks_notes("hawks-deap suite", hawks)
    else:
        grid = suite_module.load_suite(args.grid, preset=args.preset)
    total = len(grid.configurations) * grid.runs
    if total > suite_module.LONG_SUITE_RUNS:  # said even with --quiet
        print(f"hawks-deap suite: warning: {total:,} runs ({len(grid.configurations):,} "
              f"configurations x {grid.runs:,} runs); a long campaign", file=sys.stderr)
    out = Path(args.out)
    suite_module.check_output(out, grid)
    client = None
    if args.backend == "dask":
        client = suite_module.connect_dask(min(args.workers, total), args.scheduler)

    def run() -> int:
        progress = not args.quiet and sys.stderr.isatty()
        try:
            # (the client's workers run the suite: --workers made its LocalCluster)
            path = suite_module.run_suite(grid, out, workers=1 if client else args.workers,
                                          backend=args.backend, progress=progress,
                                          client=client)
        except suite_module.SuiteBusy as error:  # found only once the run starts
            print(f"hawks-deap suite: error: {error}", file=sys.stderr)
            return EXIT_USAGE
        finally:
            if client is not None:
                suite_module.close_dask(client)
        if not args.quiet:
            n = len(suite_module.read_summary(out))
            print(f"wrote {path}: {n} runs ({len(grid.configurations)} configurations x "
                  f"{grid.runs} runs)")
        return EXIT_OK

    return run


# --------------------------------------------------------------------------- the command


class _Command(NamedTuple):
    summary: str                                          # one line in `hawks-deap --help`
    description: str                                      # the top of its own --help
    prepare: Callable[[argparse.Namespace], Callable[[], int]]


#: The subcommands; their options are in `config.SCHEMA`.
_COMMANDS: dict[str, _Command] = {
    "generate": _Command(
        "evolve an Index-mode dataset and save it",
        "Evolve a dataset whose silhouette hits a target, under overlap / eccentricity "
        "constraints, and save it (data.csv, genes.json, metadata.json, logbook.csv).",
        _prepare_generate),
    "versus": _Command(
        "evolve a dataset on which WINNER beats LOSER",
        "Versus mode: evolve a dataset that maximises score(WINNER) - score(LOSER) for two "
        "clustering algorithms and save it, with both partitions (partitions.csv).",
        _prepare_versus),
    "features": _Command(
        "problem features of saved datasets",
        "Compute the 7 problem features of the HAWKS paper (connectivity, dimensionality, "
        "eccentricity, entropy, n_clusters, silhouette, silhouette_std) for saved "
        "datasets, optionally with the ARI of clustering algorithms.",
        _prepare_features),
    "plot": _Command(
        "PNG figures of a saved dataset, run or collection",
        "For a dataset or run directory: dataset.png (scatter with covariance ellipses of "
        "the genes; PCA when D > 2), convergence.png (if it has logbook.csv), versus.png "
        "(if it has partitions.csv). For several datasets: instance_space.png coloured by "
        "source (parent folder) and, with --algorithms, instance_space_best.png and "
        "performance.png.",
        _prepare_plot),
    "export": _Command(
        "write datasets as a clustering-benchmarks battery",
        "Write a collection of saved datasets (a suite's runs, a folder of dataset "
        "directories) as a battery of the clustering-benchmarks format: DIR/NAME/"
        "DATASET.data.gz (the points, exact), DATASET.labels0.gz (labels 1..K) and "
        "DATASET.txt (generator, settings and seed), which clustbench.load_dataset(NAME, "
        "DATASET, path=DIR) reads. DATASET is each dataset directory's name.",
        _prepare_export),
    "suite": _Command(
        "run a parameter-grid campaign (resumable)",
        "Run every configuration of a grid file (the sections of --config plus [suite] "
        "runs, seed, mode; list values are expanded into their cartesian product), one "
        "dataset directory per run under DIR/runs and one row per finished run in "
        "DIR/summary.csv. Running the same command again resumes: finished runs are "
        "skipped. A .json file is a HAWKS 0.2.0 config: its lists are the grid, as in HAWKS.",
        _prepare_suite),
    "verify": _Command(
        "run saved runs again and compare (reproducibility)",
        "Evolve each run directory again from the settings and seed its metadata.json "
        "records (written by generate, versus or a suite) and compare: 'identical' (the "
        "same bytes), 'same path, values within the tolerance' (the evolutionary path is "
        "the same, the last bits differ: another BLAS kernel or library version), or "
        "DIFFERENT; with what differs in the recorded environment. Exit code 0 when every "
        "run is identical or within the tolerance, 1 otherwise. Nothing is written.",
        _prepare_verify),
}


_EPILOG = """examples:
  hawks-deap generate --seed 0 --out out/example
  hawks-deap generate --config run.toml --generations 50 --out out/run-1
  hawks-deap versus gmm single-linkage --n-jobs 2 --out out/gmm-vs-single
  hawks-deap features out/example out/gmm-vs-single
  hawks-deap plot out/example
  hawks-deap features clustering-data-v1/sipu clustering-data-v1/uci --out real.csv
  hawks-deap export out/suite --battery hawks --out benchmarks
  hawks-deap verify out/example
"""


def _build_parser() -> argparse.ArgumentParser:
    from hawks_deap.io.dataset import package_version

    parser = _Parser(  # its subcommands' parsers are _Parsers too
        prog="hawks-deap",
        description="HAWKS as a DEAP plugin: evolve challenging clustering benchmarks, "
                    "measure their problem features and plot them.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in _COMMANDS.items():
        # no abbreviations: --gen would silently be --generations
        parser_of = sub.add_parser(name, help=command.summary, description=command.description,
                                   allow_abbrev=False)
        config.add_arguments(parser_of, name, config.SCHEMA)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hawks-deap`` command; returns the exit code.

    Every command first validates its input (config file, options, paths, output
    locations) and only then computes and writes.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name (default: ``sys.argv[1:]``).
    """
    parser = _build_parser()
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
        try:
            run = _COMMANDS[args.command].prepare(args)
        except (ValueError, TypeError) as error:
            print(f"{prog}: error: {error}", file=sys.stderr)
            return EXIT_USAGE
        except ImportError as error:
            print(f"{prog}: error: {error}", file=sys.stderr)
            return EXIT_FAILURE
        try:
            return run()
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

