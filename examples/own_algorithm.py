"""Benchmark your own clustering algorithm, end to end.
=====================================================

A researcher's algorithm (here Ward linkage, standing for yours) against the paper's
algorithms: a suite of Index-mode datasets (plus, optionally, a battery of real data),
Friedman's test with Holm's and Bonferroni-Dunn's tests against your algorithm as the
control and the all-pairs Nemenyi test, the instance space coloured by the best
algorithm, Versus runs where your algorithm wins and where it loses, an exported
battery, and a table for the paper. Nothing here is private API.

The algorithm is named by its import path, ``"own_algorithm:MyAlgo"`` (this file's
module; ``"my_pkg.algo:MyAlgo"`` for yours, or ``"path/to/file.py:MyAlgo"``), so the
suite's worker processes, the command line (``hawks-deap features DIR --algorithms
paper,my_pkg.algo:MyAlgo``) and TOML grids name it the same way.

    python examples/own_algorithm.py                        # 12 datasets, ~1-2 min
    python examples/own_algorithm.py --quick                # tiny sizes, seconds
    python examples/own_algorithm.py --battery clustering-data-v1/uci --out bench
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from sklearn.cluster import AgglomerativeClustering

import hawks_deap as hd
from hawks_deap.analysis import features_table, friedman_control, friedman_nemenyi
from hawks_deap.analysis.features import InstanceSpace, best_algorithms, performance_table
from hawks_deap.campaign.suite import parse_suite, run_suite
from hawks_deap.io import load_collection
from hawks_deap.io.batteries import write_battery


class MyAlgo(AgglomerativeClustering):
    """Your algorithm: any estimator with ``fit_predict`` and an ``n_clusters``."""

    def __init__(self, n_clusters: int = 2, linkage: str = "ward") -> None:
        super().__init__(n_clusters=n_clusters, linkage=linkage)


#: How every part of hawks-deap (and every worker process) names it: this file's folder is
#: on the import path when it runs as a script, so this module imports as own_algorithm.
MY_ALGO = "own_algorithm:MyAlgo"
OTHERS = ["kmeans++", "gmm", "average-linkage", "single-linkage"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--out", default="own-algorithm", help="output folder")
    parser.add_argument("--battery", default=None,
                        help="a clustering-benchmarks battery folder to add (e.g. uci)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    return parser.parse_args(argv)


def grid(quick: bool) -> dict:
    """12 Index-mode datasets: 3 silhouette targets x 2 numbers of clusters x 2 runs."""
    return {"suite": {"mode": "index", "runs": 2, "seed": 1},
            "dataset": {"n_samples": 120 if quick else 600, "n_clusters": [3, 6]},
            "objective": {"target": [0.2, 0.5, 0.8]},
            "ga": {"population_size": 6 if quick else 10,
                   "generations": 3 if quick else 50}}


def versus(winner: str, loser: str, out: Path, quick: bool) -> float:
    """Evolve a dataset on which ``winner`` beats ``loser``; save it as the CLI does."""
    problem = hd.VersusProblem(winner, loser, n_samples=120 if quick else 500,
                               n_clusters=3, n_dims=2)
    result = hd.evolve(problem, population_size=6 if quick else 10,
                       generations=3 if quick else 30, seed=0)
    result.save(out, overwrite=True)  # `hawks-deap plot OUT` draws it
    return result.best.fitness.values[0]


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    # a script's folder is on the import path when it runs as `python own_algorithm.py`;
    # made sure of for runners that execute it otherwise (the docs' gallery runs the code
    # in the script's folder, without __file__)
    here = str(Path(globals().get("__file__", "own_algorithm.py")).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    out = Path(args.out)
    suite_dir = out / "suite"
    run_suite(parse_suite(grid(args.quick)), suite_dir, workers=args.workers)
    datasets = load_collection([suite_dir, *([args.battery] if args.battery else [])])
    print(f"{len(datasets)} datasets from {sorted({d.source for d in datasets})}")

    # ARI of each algorithm on each dataset (rows named after the datasets)
    scores = performance_table(datasets, [*OTHERS, MY_ALGO], seed=0, n_jobs=args.workers)
    print(friedman_control(scores, control=MY_ALGO, method="holm").to_text())
    nemenyi = friedman_nemenyi(scores)
    print(nemenyi.to_text())

    space = InstanceSpace().fit(features_table(datasets))
    coords = space.transform(features_table(datasets))
    best = best_algorithms(scores)
    if importlib.util.find_spec("matplotlib") is None:
        print("(install matplotlib, the 'plot' extra, for the figures)")
    else:
        from hawks_deap.analysis.plotting import (
            plot_critical_difference,
            plot_instance_space,
            save_figure,
        )

        control = friedman_control(scores, control=MY_ALGO, method="bonferroni-dunn")
        save_figure(plot_critical_difference(control), out / "cd_control.png")
        save_figure(plot_instance_space(coords, best, space=space,
                                        markers=[d.source for d in datasets],
                                        legend_title="best ARI"), out / "space.png")

    wins = versus(MY_ALGO, "kmeans++", out / "my-algo-wins", args.quick)
    loses = versus("kmeans++", MY_ALGO, out / "my-algo-loses", args.quick)
    print(f"Versus: ARI gap {wins:.3f} where MyAlgo wins, {loses:.3f} where it loses")

    write_battery(load_collection(suite_dir), out, battery="hawks-suite", overwrite=True)
    # a table for the paper: mean ARI and Friedman's average rank of each algorithm
    lines = ["| algorithm | mean ARI | average rank |", "|---|---:|---:|"]
    lines += [f"| {name} | {scores.column(name).mean():.3f} | {rank:.2f} |"
              for name, rank in nemenyi.ranking()]
    (out / "table.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out}/: suite/, my-algo-wins/, my-algo-loses/, hawks-suite/, table.md")


if __name__ == "__main__":
    main()
