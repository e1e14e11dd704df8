"""``hawks-deap plot PATH...``: figures of a saved dataset, run or collection."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hawks_deap.campaign import runs
from hawks_deap.cli.common import (
    EXIT_OK,
    UsageError,
    check_out_file,
    collection_input,
    references,
)
from hawks_deap.io.collection import CollectionItem
from hawks_deap.io.dataset import CreatedFiles


def prepare(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``plot``'s arguments; returns the function that does the work."""
    items, datasets, algorithms = collection_input(args, "plot")
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
        check_out_file(out / name, args.overwrite, option="figure")
    files = CreatedFiles()
    save = _figure_writer(out, args.dpi, files)  # ImportError naming the extra, before any work

    def run() -> int:
        with files.removed_on(KeyboardInterrupt):  # an interrupted command leaves no new figure
            written = (_plot_single(datasets[0], logbook, partitions, save) if single
                       else _plot_collection(datasets, items, algorithms, args.seed, save,
                                             args.preset, args.n_jobs, args.score,
                                             references(args)))
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
                     preset: str | None = None, n_jobs: int = 1, score: str = "ari",
                     references: str | None = None) -> list[Path]:
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
                                 preset=preset, n_jobs=n_jobs, score=score,
                                 references=references)
        several = len(set(sources)) > 1
        # colour = best algorithm (its fixed colour, as in every figure), and with
        # several sources the marker tells the source
        fig = plot_instance_space(coords, best_algorithms(perf), space=space,
                                  legend_title=f"best {score.upper()}",
                                  title="best algorithm",
                                  colours="algorithms",
                                  markers=sources if several else None)
        written.append(save(fig, "instance_space_best.png"))
        fig = plot_performance(perf, groups=sources if several else None, ylabel=score.upper())
        written.append(save(fig, "performance.png"))
    return written
