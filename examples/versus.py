"""Versus mode: evolve a dataset on which GMM beats single-linkage (HAWKS paper, Fig. 6a).
=======================================================================================

Maximises ARI(winner) - ARI(loser) under an overlap constraint, with the paper's Versus
N, K, D, P, G, P_f and initial means (N=2000, K=5, D=2, P=10, G=100, P_f=0.75, U(0, 10)) and
overlap <= 0.1 (the paper's script: <= 0, eigenvalue ratio <= 20 and clusters of >= 5
points; `hawks-deap versus --preset hawks-tevc` sets them), evaluating
in a pool of processes. With matplotlib (the ``plot`` extra) it draws the paper's Fig. 6
panel: the ground truth, the winner's and the loser's partitions with their ARIs.

    python examples/versus.py                      # the paper's settings (~1-2 min)
    python examples/versus.py --quick              # a few seconds
    python examples/versus.py --winner kmeans++ --loser gmm --plot kmeans-vs-gmm.png
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import hawks_deap as hd
from hawks_deap.clustering import available_algorithms
from hawks_deap.problems.versus import VersusProblem


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--winner", default="gmm", help="a registered name (" + ", ".join(
        available_algorithms()) + ") or an import path package.module:attr")
    parser.add_argument("--loser", default="single-linkage", help="as --winner")
    parser.add_argument("--generations", type=int, default=100)
    parser.add_argument("--n-samples", type=int, default=2000)
    parser.add_argument("--overlap", type=float, default=0.1,
                        help="upper bound of the overlap constraint (default 0.1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--plot", default="versus.png",
                        help="figure file ('' for none); needs matplotlib")
    parser.add_argument("--save", default="",
                        help="directory to save the run in (as hawks-deap versus does)")
    parser.add_argument("--quick", action="store_true",
                        help="N=400 and 8 generations: a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.n_samples, args.generations = 400, 8
    return args


def matched(y: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Rename predicted clusters after the true clusters they overlap most (Hungarian)."""
    from scipy.optimize import linear_sum_assignment

    true_ids, t = np.unique(y, return_inverse=True)
    pred_ids, p = np.unique(labels, return_inverse=True)
    table = np.zeros((true_ids.size, pred_ids.size), dtype=np.int64)
    np.add.at(table, (t, p), 1)
    rows, cols = linear_sum_assignment(-table)
    new = np.full(pred_ids.size, -1)
    new[cols] = rows
    spare = iter(range(true_ids.size, true_ids.size + pred_ids.size))
    new[new < 0] = [next(spare) for _ in range(int((new < 0).sum()))]
    return new[p]


def draw(path: str, dataset: hd.Dataset, problem: VersusProblem, winner_labels,
         loser_labels, record: dict) -> bool:
    """The paper's Fig. 6 panel; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(1, 3, figsize=(12, 4), sharex=True, sharey=True)
    panels = [
        ("Ground truth", dataset.y),
        (f"{problem.winner.name}\nARI: {record['winner_score']:.3f}",
         matched(dataset.y, winner_labels)),
        (f"{problem.loser.name}\nARI: {record['loser_score']:.3f}",
         matched(dataset.y, loser_labels)),
    ]
    for ax, (title, labels) in zip(axes, panels, strict=True):
        ax.scatter(dataset.X[:, 0], dataset.X[:, 1], c=labels % 10, s=4, cmap="tab10",
                   vmin=0, vmax=9, linewidths=0)
        ax.set_title(title)
        ax.set_aspect("equal", adjustable="box")
    fig.suptitle(f"{problem.winner.name} vs. {problem.loser.name}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    problem = VersusProblem(args.winner, args.loser, n_samples=args.n_samples, n_clusters=5,
                            n_dims=2, score="ari", constraints=[hd.Overlap(max=args.overlap)])
    start = time.perf_counter()
    result = hd.evolve(problem, population_size=10, generations=args.generations,
                       p_crossover=0.7, p_f=0.75, seed=args.seed, n_jobs=args.n_jobs)
    elapsed = time.perf_counter() - start
    best = result.best
    record = best.record
    print(f"{problem.winner.name} vs. {problem.loser.name}: {args.generations} generations "
          f"in {elapsed:.1f} s (n_jobs={args.n_jobs})")
    print(f"  gap {best.fitness.values[0]:.3f} = ARI {record['winner_score']:.3f} "
          f"- ARI {record['loser_score']:.3f}; overlap {record['overlap']:.3f}, "
          f"feasible {record['feasible']}")
    for row in result.logbook[:: max(1, args.generations // 5)]:
        print(f"  gen {row['gen']:3d}: best gap {row['fitness_best']:.3f}, "
              f"median {row['fitness_median']:.3f}, feasible {row['n_feasible']}")

    dataset = result.best_dataset()
    winner_labels, loser_labels = problem.partitions(best)  # the scored partitions
    if args.save:
        # as `hawks-deap versus` saves a run: `hawks-deap plot DIR` draws it
        print(f"  run saved in {result.save(args.save, overwrite=True)}")
    if args.plot:
        if draw(args.plot, dataset, problem, winner_labels, loser_labels, record):
            print(f"  figure written to {args.plot}")
        else:
            print("  (install matplotlib, the 'plot' extra, to draw the figure)")


if __name__ == "__main__":
    main()
