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

The options of ``generate`` and ``versus`` come from one schema
(`hawks_deap.config.OPTIONS`) shared with TOML config files (``--config FILE.toml``);
options on the command line override the file.

Everything is validated before anything is written. Exit codes: 0 success; 2 bad input
(message on stderr naming the option or key; nothing written); 1 a missing optional
dependency; 130 interrupted (nothing written). Output directories and files are
written atomically.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hawks_deap import config

__all__ = ["main"]

LOGBOOK_FILE = "logbook.csv"
PARTITIONS_FILE = "partitions.csv"
DATA_FILE = "data.csv"

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(ValueError):
    """Bad input on the command line (exit code 2)."""


# --------------------------------------------------------------------------- helpers


def _csv_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return repr(float(value))
    try:
        import numpy as np

        if isinstance(value, np.floating):
            return repr(float(value))
        if isinstance(value, np.integer):
            return str(int(value))
    except ImportError:  # pragma: no cover
        pass
    return str(value)


def _logbook_csv(logbook: Sequence[dict[str, Any]]) -> str:
    """A logbook (list of dict rows) as CSV text; columns in order of first appearance."""
    keys: list[str] = []
    for row in logbook:
        for k in row:
            if k not in keys:
                keys.append(k)
    lines = [",".join(keys)]
    for row in logbook:
        lines.append(",".join(_csv_value(row.get(k)) for k in keys))
    return "\n".join(lines) + "\n"


def _read_logbook_csv(path: Path) -> list[dict[str, float]]:
    """Rows of a ``logbook.csv`` with numeric values (empty cells are NaN)."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = []
        for row in reader:
            parsed: dict[str, float] = {}
            for k, v in row.items():
                try:
                    parsed[k] = float(v) if v not in ("", None) else math.nan
                except ValueError:
                    continue
            rows.append(parsed)
    if not rows or "fitness_best" not in rows[0]:
        raise UsageError(f"{path} is not a hawks-deap logbook (no rows or no fitness_best "
                         "column)")
    return rows


def _check_out_dir(out: Path, overwrite: bool) -> None:
    """Refuse an existing --out unless --overwrite and it is a hawks-deap output."""
    if out.exists() or out.is_symlink():
        if not overwrite:
            raise UsageError(f"--out {out} already exists; choose a new directory or pass "
                             "--overwrite")
        if not out.is_dir() or (any(out.iterdir()) and not (out / DATA_FILE).is_file()):
            raise UsageError(f"--out {out} exists and is not a hawks-deap output directory; "
                             "--overwrite only replaces those")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"--out {out}: {parent} is not a directory")
            break


def _write_run(out: Path, dataset: Any, files: dict[str, str], overwrite: bool) -> Path:
    """Write the dataset and extra text files as one directory, atomically."""
    return dataset.save(out, overwrite=overwrite, extra_files=files)


def _dataset_dirs(paths: Sequence[str]) -> list[Path]:
    """Dataset directories named by PATHs: a dataset directory, or a folder of them."""
    out: list[Path] = []
    for text in paths:
        path = Path(text)
        if (path / DATA_FILE).is_file():
            out.append(path)
            continue
        if not path.exists():
            raise UsageError(f"PATH {path} does not exist")
        children = (sorted(p for p in path.iterdir() if (p / DATA_FILE).is_file())
                    if path.is_dir() else [])
        if not children:
            raise UsageError(f"PATH {path} is neither a dataset directory (no {DATA_FILE}) "
                             "nor a folder of dataset directories")
        out.extend(children)
    return out


def _load_datasets(dirs: Sequence[Path]) -> list[Any]:
    from hawks_deap.dataset import Dataset

    datasets = []
    for d in dirs:
        try:
            datasets.append(Dataset.load(d))
        except (ValueError, KeyError, json.JSONDecodeError) as error:
            raise UsageError(f"PATH {d} is not a readable dataset: {error}") from None
    return datasets


def _algorithm_list(text: str | None) -> list[str]:
    if text is None:
        return []
    from hawks_deap._validation import check_choice
    from hawks_deap.clustering import available_algorithms

    valid = available_algorithms()
    if text.strip() == "all":
        return valid
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise UsageError("--algorithms needs 'all' or comma-separated names; valid: "
                         + ", ".join(valid))
    for name in names:
        try:
            check_choice("--algorithms entry", name, valid)
        except ValueError as error:
            raise UsageError(str(error)) from None
    return names


def _check_out_file(path: Path, overwrite: bool, option: str = "--out") -> None:
    if path.exists() and not overwrite:
        raise UsageError(f"{option} {path} already exists; pass --overwrite to replace it")
    if path.exists() and path.is_dir():
        raise UsageError(f"{option} {path} is a directory")


# --------------------------------------------------------------------------- parser


_EPILOG = """examples:
  hawks-deap generate --seed 0 --out out/example
  hawks-deap generate --config run.toml --generations 50 --out out/run-1
  hawks-deap versus gmm single-linkage --n-jobs 2 --out out/gmm-vs-single
  hawks-deap features out/example out/gmm-vs-single
  hawks-deap plot out/example
"""


def _add_run_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("run options")
    group.add_argument("--config", metavar="FILE.toml",
                       help="TOML file with [dataset], [objective], [constraints], [ga] "
                            "sections (keys: the long options with underscores); options "
                            "given here override it")
    group.add_argument("--out", required=True, metavar="DIR",
                       help="output directory (must not exist, unless --overwrite)")
    group.add_argument("--overwrite", action="store_true",
                       help="replace an existing hawks-deap output directory")
    group.add_argument("--quiet", action="store_true",
                       help="no progress bar and no summary (the bar is also off when "
                            "stderr is not a terminal)")


def _build_parser() -> argparse.ArgumentParser:
    from hawks_deap.dataset import package_version
    from hawks_deap.evaluation import SILHOUETTE_METRICS

    parser = argparse.ArgumentParser(
        prog="hawks-deap",
        description="HAWKS as a DEAP plugin: evolve challenging clustering benchmarks, "
                    "measure their problem features and plot them.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    gen = sub.add_parser(
        "generate", help="evolve an Index-mode dataset and save it",
        description="Evolve a dataset whose silhouette hits a target, under overlap / "
                    "eccentricity constraints, and save it (data.csv, genes.json, "
                    "metadata.json, logbook.csv).")
    config.add_arguments(gen, "generate")
    _add_run_arguments(gen)

    ver = sub.add_parser(
        "versus", help="evolve a dataset on which WINNER beats LOSER",
        description="Versus mode: evolve a dataset that maximises score(WINNER) - "
                    "score(LOSER) for two clustering algorithms and save it, with both "
                    "partitions (partitions.csv).")
    config.add_arguments(ver, "versus")
    _add_run_arguments(ver)

    feat = sub.add_parser(
        "features", help="problem features of saved datasets",
        description="Compute the 7 problem features of the HAWKS paper (connectivity, "
                    "dimensionality, eccentricity, entropy, n_clusters, silhouette, "
                    "silhouette_std) for saved datasets, optionally with the ARI of "
                    "clustering algorithms.")
    feat.add_argument("paths", nargs="+", metavar="PATH",
                      help="a dataset directory, or a folder of dataset directories")
    feat.add_argument("--metric", default="sqeuclidean", choices=list(SILHOUETTE_METRICS),
                      help="distance of the silhouette features (default sqeuclidean, "
                           "HAWKS' choice)")
    feat.add_argument("--algorithms", metavar="NAMES",
                      help="also give the ARI of these clustering algorithms: 'all' or "
                           "comma-separated names")
    feat.add_argument("--seed", type=int, default=0,
                      help="seed of stochastic clustering algorithms (default 0)")
    feat.add_argument("--format", choices=["table", "csv", "json"], default="table",
                      help="printed format (default table)")
    feat.add_argument("--out", metavar="FILE",
                      help="write the table to FILE (.json: JSON, otherwise CSV) instead "
                           "of printing it")
    feat.add_argument("--overwrite", action="store_true", help="replace an existing FILE")

    plot = sub.add_parser(
        "plot", help="PNG figures of a saved dataset, run or collection",
        description="For a dataset or run directory: dataset.png (scatter with covariance "
                    "ellipses of the genes; PCA when D > 2), convergence.png (if it has "
                    "logbook.csv), versus.png (if it has partitions.csv). For several "
                    "datasets: instance_space.png coloured by source (parent folder) and, "
                    "with --algorithms, instance_space_best.png and performance.png.")
    plot.add_argument("paths", nargs="+", metavar="PATH",
                      help="a dataset or run directory, or a folder of them")
    plot.add_argument("--out", metavar="DIR",
                      help="folder for the figures (default: the dataset directory; "
                           "required for several datasets)")
    plot.add_argument("--algorithms", metavar="NAMES",
                      help="for collections: ARI of these algorithms ('all' or "
                           "comma-separated names)")
    plot.add_argument("--seed", type=int, default=0,
                      help="seed of stochastic clustering algorithms (default 0)")
    plot.add_argument("--dpi", type=int, default=150, help="resolution (default 150)")
    plot.add_argument("--overwrite", action="store_true",
                      help="replace existing figures")

    suite = sub.add_parser(
        "suite", help="run a parameter-grid campaign (resumable)",
        description="Run every configuration of a grid file (the sections of --config "
                    "plus [suite] runs, seed, mode; list values are expanded into their "
                    "cartesian product), one dataset directory per run under DIR/runs and "
                    "one row per finished run in DIR/summary.csv. Running the same "
                    "command again resumes: finished runs are skipped.")
    suite.add_argument("grid", metavar="GRID.toml", help="the grid file")
    suite.add_argument("--out", required=True, metavar="DIR", help="output directory")
    suite.add_argument("--workers", type=int, default=1,
                       help="runs at once: local processes or dask workers (default 1)")
    suite.add_argument("--backend", choices=["processes", "dask"], default="processes",
                       help="local processes (default) or dask.distributed")
    suite.add_argument("--scheduler", metavar="ADDRESS",
                       help="an existing dask scheduler, e.g. tcp://host:8786 (default: a "
                            "local cluster of --workers workers)")
    suite.add_argument("--quiet", action="store_true", help="no progress bar or messages")
    return parser


# --------------------------------------------------------------------------- commands


def _settings(args: argparse.Namespace, command: str) -> dict[str, Any]:
    file_values = config.load_config(args.config, command=command) if args.config else {}
    return config.resolve(command, file_values, config.cli_values(args, command))


def _command_metadata(command: str, args: argparse.Namespace, values: dict[str, Any]
                      ) -> dict[str, Any]:
    return {"name": command, "settings": dict(values),
            "config_file": None if args.config is None else str(args.config)}


def _prepare_generate(args: argparse.Namespace) -> Callable[[], int]:
    import hawks_deap as hd

    values = _settings(args, "generate")
    out = Path(args.out)
    _check_out_dir(out, args.overwrite)
    problem = config.build_problem("generate", values)

    def run() -> int:
        progress = not args.quiet and sys.stderr.isatty()
        result = hd.evolve(problem, seed=values["seed"], progress=progress,
                           **config.evolve_options(values))
        dataset = result.best_dataset()
        dataset.metadata["command"] = _command_metadata("generate", args, values)
        _write_run(out, dataset, {LOGBOOK_FILE: _logbook_csv(result.logbook)},
                   args.overwrite)
        if not args.quiet:
            rec = result.best.record
            print(f"wrote {out}: {values['index']} {rec['index']:.6f} (target "
                  f"{values['target']}), |s_t - s| = {result.best.fitness.values[0]:.3g}, "
                  f"penalty {rec['penalty']:.3g}, {result.generations_run} generations")
        return EXIT_OK

    return run


def _prepare_versus(args: argparse.Namespace) -> Callable[[], int]:
    import hawks_deap as hd

    values = _settings(args, "versus")
    missing = [k for k in ("winner", "loser") if values[k] is None]
    if missing:
        raise UsageError(f"versus needs WINNER and LOSER ({' and '.join(missing)} missing): "
                         "give them as arguments, e.g. `hawks-deap versus gmm "
                         "single-linkage --out DIR`, or as [objective] winner / loser in "
                         "--config")
    out = Path(args.out)
    _check_out_dir(out, args.overwrite)
    problem = config.build_problem("versus", values)

    def run() -> int:
        progress = not args.quiet and sys.stderr.isatty()
        result = hd.evolve(problem, seed=values["seed"], progress=progress,
                           **config.evolve_options(values))
        dataset = result.best_dataset()
        dataset.metadata["command"] = _command_metadata("versus", args, values)
        winner_labels, loser_labels = problem.partitions(result.best)
        partitions = "winner,loser\n" + "".join(
            f"{int(a)},{int(b)}\n" for a, b in zip(winner_labels, loser_labels, strict=True))
        _write_run(out, dataset, {LOGBOOK_FILE: _logbook_csv(result.logbook),
                                  PARTITIONS_FILE: partitions}, args.overwrite)
        if not args.quiet:
            rec = result.best.record
            print(f"wrote {out}: {values['winner']} {values['score']} "
                  f"{rec['winner_score']:.4f}, {values['loser']} {values['score']} "
                  f"{rec['loser_score']:.4f} (gap {result.best.fitness.values[0]:.4f}), "
                  f"penalty {rec['penalty']:.3g}, {result.generations_run} generations")
        return EXIT_OK

    return run


def _prepare_features(args: argparse.Namespace) -> Callable[[], int]:
    dirs = _dataset_dirs(args.paths)
    algorithms = _algorithm_list(args.algorithms)
    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    out = Path(args.out) if args.out else None
    if out is not None:
        _check_out_file(out, args.overwrite)
    datasets = _load_datasets(dirs)

    def run() -> int:
        import numpy as np

        from hawks_deap.features import Table, features_table, performance_table

        names = [str(d) for d in dirs]
        table = features_table(datasets, names=names, metric=args.metric)
        if algorithms:
            perf = performance_table(datasets, algorithms, seed=args.seed, names=names)
            table = Table(table.index, table.columns + tuple(f"ari_{c}" for c in perf.columns),
                          np.hstack([table.values, perf.values]))
        fmt = args.format
        if out is not None:
            fmt = "json" if out.suffix.lower() == ".json" else "csv"
        if fmt == "json":
            rows = [{"dataset": name, **{k: (v if math.isfinite(v) else None)
                                         for k, v in row.items()}}
                    for name, row in zip(table.index, table.records(), strict=True)]
            text = json.dumps(rows, indent=2, allow_nan=False) + "\n"
        elif fmt == "csv":
            text = table.to_csv()
        else:
            text = table.to_text()
        if out is None:
            sys.stdout.write(text)
        else:
            from hawks_deap.dataset import write_text_atomic

            write_text_atomic(out, text)
            print(f"wrote {out}: {len(table)} datasets x {len(table.columns)} columns")
        return EXIT_OK

    return run


def _prepare_plot(args: argparse.Namespace) -> Callable[[], int]:
    from hawks_deap.plotting import _pyplot

    dirs = _dataset_dirs(args.paths)
    algorithms = _algorithm_list(args.algorithms)
    if args.dpi < 10:
        raise UsageError(f"--dpi must be >= 10, got {args.dpi}")
    single = len(dirs) == 1
    if args.out is not None:
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {out} is not a directory")
    elif single:
        out = dirs[0]
    else:
        raise UsageError(f"--out DIR is required to plot several datasets ({len(dirs)} "
                         "found)")
    if single and algorithms:
        raise UsageError("--algorithms is for collections (several datasets)")
    datasets = _load_datasets(dirs)
    figures: list[str] = []
    logbook = partitions = None
    if single:
        figures.append("dataset.png")
        if (dirs[0] / LOGBOOK_FILE).is_file():
            logbook = _read_logbook_csv(dirs[0] / LOGBOOK_FILE)
            figures.append("convergence.png")
        if (dirs[0] / PARTITIONS_FILE).is_file():
            partitions = _read_partitions(dirs[0] / PARTITIONS_FILE, datasets[0].n_samples)
            figures.append("versus.png")
    else:
        figures.append("instance_space.png")
        if algorithms:
            figures += ["instance_space_best.png", "performance.png"]
    for name in figures:
        _check_out_file(out / name, args.overwrite, option="figure")
    _pyplot()  # ImportError naming the extra, before any work

    def run() -> int:
        written = (_plot_single(datasets[0], logbook, partitions, out, args.dpi) if single
                   else _plot_collection(datasets, dirs, algorithms, args.seed, out,
                                         args.dpi))
        for path in written:
            print(f"wrote {path}")
        return EXIT_OK

    return run


def _read_partitions(path: Path, n_samples: int) -> dict[str, Any]:
    import numpy as np

    try:
        raw = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2, dtype=np.int64)
    except ValueError as error:
        raise UsageError(f"{path} is not a partitions file: {error}") from None
    if raw.shape != (n_samples, 2):
        raise UsageError(f"{path} must have {n_samples} rows of winner,loser labels, got "
                         f"shape {raw.shape}")
    return {"winner": raw[:, 0], "loser": raw[:, 1]}


def _plot_single(dataset: Any, logbook: Any, partitions: Any, out: Path, dpi: int
                 ) -> list[Path]:
    from hawks_deap.plotting import (
        _pyplot,
        plot_convergence,
        plot_dataset,
        plot_versus,
        save_figure,
    )

    plt = _pyplot()
    written = []
    fig = plot_dataset(dataset)
    written.append(save_figure(fig, out / "dataset.png", dpi=dpi))
    plt.close(fig)
    problem = dataset.metadata.get("problem") or {}
    if logbook is not None:
        target = problem.get("target") if problem.get("mode") == "index" else None
        fig = plot_convergence(logbook, target=target)
        written.append(save_figure(fig, out / "convergence.png", dpi=dpi))
        plt.close(fig)
    if partitions is not None:
        record = dataset.metadata.get("record") or {}
        fig = plot_versus(dataset.X, dataset.y, partitions["winner"], partitions["loser"],
                          winner=str(problem.get("winner", "winner")),
                          loser=str(problem.get("loser", "loser")),
                          winner_score=record.get("winner_score"),
                          loser_score=record.get("loser_score"),
                          score_name=str(problem.get("score", "score")).upper())
        written.append(save_figure(fig, out / "versus.png", dpi=dpi))
        plt.close(fig)
    return written


def _plot_collection(datasets: Sequence[Any], dirs: Sequence[Path], algorithms: list[str],
                     seed: int, out: Path, dpi: int) -> list[Path]:
    from hawks_deap.features import (
        InstanceSpace,
        best_algorithms,
        features_table,
        performance_table,
    )
    from hawks_deap.plotting import (
        _pyplot,
        plot_instance_space,
        plot_performance,
        save_figure,
    )

    plt = _pyplot()
    names = [str(d) for d in dirs]
    sources = [d.resolve().parent.name or "." for d in dirs]
    table = features_table(datasets, names=names)
    space = InstanceSpace().fit(table)
    coords = space.transform(table)
    written = []
    fig = plot_instance_space(coords, sources, space=space, legend_title="source")
    written.append(save_figure(fig, out / "instance_space.png", dpi=dpi))
    plt.close(fig)
    if algorithms:
        perf = performance_table(datasets, algorithms, seed=seed, names=names)
        fig = plot_instance_space(coords, best_algorithms(perf), space=space,
                                  legend_title="best ARI", title="best algorithm")
        written.append(save_figure(fig, out / "instance_space_best.png", dpi=dpi))
        plt.close(fig)
        fig = plot_performance(perf, groups=sources if len(set(sources)) > 1 else None)
        written.append(save_figure(fig, out / "performance.png", dpi=dpi))
        plt.close(fig)
    return written


def _prepare_suite(args: argparse.Namespace) -> Callable[[], int]:
    from hawks_deap import suite as suite_module

    if args.workers < 1:
        raise UsageError(f"--workers must be >= 1, got {args.workers}")
    if args.scheduler is not None and args.backend != "dask":
        raise UsageError("--scheduler needs --backend dask")
    grid = suite_module.load_suite(args.grid)
    out = Path(args.out)
    suite_module.check_output(out, grid)
    client = None
    if args.backend == "dask":
        client = suite_module.connect_dask(args.workers, args.scheduler)

    def run() -> int:
        progress = not args.quiet and sys.stderr.isatty()
        try:
            path = suite_module.run_suite(grid, out, workers=args.workers,
                                          backend=args.backend, progress=progress,
                                          client=client)
        finally:
            if client is not None:
                cluster = getattr(client, "cluster", None)
                client.close()
                if cluster is not None:
                    cluster.close()
        if not args.quiet:
            n = len(suite_module.read_summary(out))
            print(f"wrote {path}: {n} runs ({len(grid.configurations)} configurations x "
                  f"{grid.runs} runs)")
        return EXIT_OK

    return run


_PREPARE = {
    "generate": _prepare_generate,
    "versus": _prepare_versus,
    "features": _prepare_features,
    "plot": _prepare_plot,
    "suite": _prepare_suite,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hawks-deap`` command; returns the exit code.

    Every command first validates its input (config file, options, paths, output
    locations) and only then computes and writes.
    """
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse: --help, --version or a usage error
        code = exit_.code
        return code if isinstance(code, int) else (EXIT_OK if code is None else EXIT_USAGE)
    prog = f"hawks-deap {args.command}"
    try:
        run = _PREPARE[args.command](args)
    except (ValueError, TypeError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return EXIT_FAILURE
    try:
        return run()
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
