"""``hawks-deap export PATH... --out DIR``: a clustering-benchmarks battery or ISA metadata.

``--format clustbench --battery NAME`` writes the battery DIR/NAME; ``--format isa``
writes DIR/metadata.csv (DIR/NAME/metadata.csv with ``--battery NAME``), the input of
Instance Space Analysis (MATILDA, ``instancespace``, ``pyispace``): each dataset's
problem features and, with ``--algorithms``, each algorithm's ARI. ``--format
clustbench-results --algorithms NAMES`` writes the algorithms' partitions in
clustbench's results layout, DIR/GROUP/BATTERY/NAME.resultK.gz (``--method-group
GROUP``), one K per reference labelling of each dataset, which
``clustbench.load_results`` reads and ``clustbench.get_score`` scores.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from hawks_deap.cli.common import (
    EXIT_OK,
    UsageError,
    check_out_file,
    check_unused,
    collection_input,
)


def prepare(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``export``; the returned function writes the battery or the ISA file."""
    fmt = getattr(args, "format", "clustbench")
    if fmt != "clustbench-results":
        check_unused(args, "export", ("method_group",), "--format clustbench-results")
    if fmt != "isa":  # (clustbench-results clusters each dataset in this process)
        check_unused(args, "export", ("n_jobs",), "--format isa")
    if getattr(args, "format", "clustbench") == "isa":
        return _prepare_isa(args)
    if args.format == "clustbench-results":
        return _prepare_results(args)
    if getattr(args, "battery", None) is None:
        raise UsageError("--format clustbench needs --battery NAME (the battery is DIR/NAME)")
    if getattr(args, "algorithms", None) is not None:
        raise UsageError("--algorithms is for --format isa or clustbench-results (a battery "
                         "holds no ARI)")
    from hawks_deap.io.batteries import battery_file_names, prepare_battery

    items, datasets, _ = collection_input(args, "export")
    # the collection's names as file names: a battery's dataset keeps its own name
    names = battery_file_names([item.name for item in items])
    try:
        export = prepare_battery(datasets, args.out, battery=args.battery, names=names,
                                 overwrite=args.overwrite)
    except FileExistsError as error:
        raise UsageError(str(error)) from None

    several = [f"{item.name}: {source['n_label_vectors']}"
               for item, dataset in zip(items, datasets, strict=True)
               if int((source := (dataset.metadata or {}).get("clustbench") or {})
                      .get("n_label_vectors", 1)) > 1]
    if several:  # the copies score differently (their NAME.txt says so too)
        print(f"hawks-deap export: note: {len(several)} battery datasets have several "
              f"reference labellings ({', '.join(several)}); each copy holds the one read "
              "(--labels K) as labels0, and clustbench scores it against that one alone",
              file=sys.stderr)

    def run() -> int:
        folder = export.write()
        print(f"wrote {folder}: {len(datasets)} datasets (NAME.data.gz, NAME.labels0.gz, "
              "NAME.txt)")
        return EXIT_OK

    return run


def _isa_file(args: argparse.Namespace) -> Path:
    """DIR/metadata.csv, or DIR/NAME/metadata.csv with ``--battery NAME``."""
    from hawks_deap.analysis.isa import METADATA_FILE

    folder = Path(args.out)
    name = getattr(args, "battery", None)
    if name is not None:
        if not name or name in (".", "..") or Path(name).name != name or "\\" in name:
            raise UsageError(f"--battery {name!r} must be a plain folder name")
        folder = folder / name
    return folder / METADATA_FILE


def _prepare_isa(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``export --format isa``; the returned function measures and writes."""
    out = _isa_file(args)
    check_out_file(out, args.overwrite)
    items, datasets, algorithms = collection_input(args, "export")
    names = [item.name for item in items]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise UsageError(f"PATH names {', '.join(repeated)} more than once")
    from hawks_deap.analysis.features import check_feature_inputs

    check_feature_inputs(datasets, names=names)  # e.g. a dataset too small, before work
    metric = getattr(args, "metric", None) or "sqeuclidean"

    def run() -> int:
        from hawks_deap.analysis.features import features_table, performance_table
        from hawks_deap.analysis.isa import write_isa_metadata

        features = features_table(datasets, names=names, metric=metric)
        performance = (performance_table(datasets, algorithms, seed=getattr(args, "seed", 0),
                                         names=names, preset=getattr(args, "preset", None),
                                         n_jobs=getattr(args, "n_jobs", 1))
                       if algorithms else None)
        write_isa_metadata(out, features, performance, [item.group for item in items],
                           overwrite=args.overwrite)
        n_algos = 0 if performance is None else len(performance.columns)
        print(f"wrote {out}: {len(datasets)} instances x {len(features.columns)} features, "
              f"{n_algos} algorithms (Instance Space Analysis metadata)")
        return EXIT_OK

    return run


def _results_targets(args: argparse.Namespace, items: list, datasets: list
                     ) -> list[tuple[str, str]]:
    """(battery, dataset name) of each dataset's results files, checked."""
    from hawks_deap.io.batteries import battery_file_names

    files = battery_file_names([item.name for item in items])
    targets = []
    for item, dataset, name in zip(items, datasets, files, strict=True):
        source = (getattr(dataset, "metadata", None) or {}).get("clustbench") or {}
        battery = args.battery or source.get("battery")
        if battery is None:
            raise UsageError(f"{item.name} is not a battery dataset: give --battery NAME (the "
                             "battery of its results)")
        targets.append((battery, source.get("dataset", name)))
    repeated = sorted({f"{b}/{n}" for b, n in targets if targets.count((b, n)) > 1})
    if repeated:
        raise UsageError(f"PATH names {', '.join(repeated)} more than once")
    return targets


def _prepare_results(args: argparse.Namespace) -> Callable[[], int]:
    """Validate ``export --format clustbench-results``; the function clusters and writes."""
    if getattr(args, "algorithms", None) is None:
        raise UsageError("--format clustbench-results needs --algorithms NAMES (whose "
                         "partitions to write)")
    items, datasets, algorithms = collection_input(args, "export")
    targets = _results_targets(args, items, datasets)
    group = args.method_group
    from hawks_deap.io.batteries import (
        RESULT_FILE,
        check_results_folder,
        check_results_present,
    )

    for battery, name in targets:  # names, folders and existing files, before clustering
        for part, kind in ((group, "--method-group"), (battery, "--battery")):
            if not part or part.startswith(".") or Path(part).name != part or any(
                    c.isspace() or c == "\\" for c in part):
                raise UsageError(f"{kind} {part!r} must be a plain folder name")
        folder = check_results_folder(args.out, group, battery)  # (ValueError: exit 2)
        pattern = re.escape(RESULT_FILE.format(dataset=name, k="@")).replace("@", r"\d+")
        present = sorted(p for p in folder.iterdir() if re.fullmatch(pattern, p.name)
                         ) if folder.is_dir() else []
        try:
            check_results_present(present, args.overwrite, "--overwrite")
        except FileExistsError as error:
            raise UsageError(str(error)) from None

    def run() -> int:
        from hawks_deap.analysis.features import clustering_results
        from hawks_deap.io.batteries import write_results

        results = clustering_results(datasets, algorithms, seed=getattr(args, "seed", 0),
                                     preset=getattr(args, "preset", None), references="all")
        n_files = 0
        for (battery, name), found in zip(targets, results, strict=True):
            n_files += len(write_results(found, args.out, method_group=group,
                                         battery=battery, dataset=name,
                                         overwrite=args.overwrite))
        print(f"wrote {n_files} results files to {Path(args.out) / group}: "
              f"{len(datasets)} datasets x {len(algorithms)} algorithms "
              "(NAME.resultK.gz, clustbench's results layout)")
        return EXIT_OK

    return run
