"""The ``hawks-deap`` command.

``hawks-deap generate`` runs an Index-mode generation and writes the best dataset
(CSV, genes JSON, metadata JSON) and the run's logbook (CSV). Exit code 2 on bad input,
with nothing written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["main"]


def _logbook_csv(logbook) -> str:
    keys: list[str] = []
    for row in logbook:
        for k in row:
            if k not in keys:
                keys.append(k)
    lines = [",".join(keys)]
    for row in logbook:
        lines.append(",".join("" if row.get(k) is None else repr(row.get(k)) for k in keys))
    return "\n".join(lines) + "\n"


def _build_parser() -> argparse.ArgumentParser:
    from hawks_deap.operators import MEAN_MUTATIONS

    parser = argparse.ArgumentParser(
        prog="hawks-deap",
        description="HAWKS as a DEAP plugin: evolve challenging clustering benchmarks.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="evolve an Index-mode dataset and save it",
                         description="Evolve a dataset whose silhouette hits a target, "
                                     "under overlap / eccentricity constraints, and save it.")
    gen.add_argument("--n-samples", type=int, default=1000, help="N (default 1000)")
    gen.add_argument("--n-clusters", type=int, default=5, help="K (default 5)")
    gen.add_argument("--n-dims", type=int, default=2, help="D (default 2)")
    gen.add_argument("--target", type=float, default=0.5, help="target silhouette (default 0.5)")
    gen.add_argument("--metric", default="sqeuclidean", choices=["sqeuclidean", "euclidean"],
                     help="silhouette distance (default sqeuclidean, HAWKS' choice)")
    gen.add_argument("--max-overlap", type=float, default=0.1,
                     help="overlap constraint; negative to disable (default 0.1)")
    gen.add_argument("--min-eccentricity", type=float, default=None,
                     help="eccentricity constraint (eigenvalue ratio >= this)")
    gen.add_argument("--generations", type=int, default=100, help="G (default 100)")
    gen.add_argument("--population-size", type=int, default=10, help="P (default 10)")
    gen.add_argument("--mean-mutation", default="pso", choices=list(MEAN_MUTATIONS),
                     help="mean mutation operator (default pso)")
    gen.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    gen.add_argument("--out", required=True, help="output dataset directory")
    gen.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _generate(args: argparse.Namespace) -> int:
    import hawks_deap as hd
    from hawks_deap.dataset import write_text_atomic

    out = Path(args.out)
    if out.exists():
        raise ValueError(f"--out {out} exists; choose a new directory")
    constraints = []
    if args.max_overlap is not None and args.max_overlap >= 0:
        constraints.append(hd.Overlap(max=args.max_overlap))
    if args.min_eccentricity is not None:
        constraints.append(hd.Eccentricity(min=args.min_eccentricity))
    problem = hd.IndexProblem(args.n_samples, args.n_clusters, args.n_dims, args.target,
                              metric=args.metric, constraints=constraints)
    progress = not args.quiet and sys.stderr.isatty()
    result = hd.evolve(problem, population_size=args.population_size,
                       generations=args.generations, mean_mutation=args.mean_mutation,
                       seed=args.seed, progress=progress)
    dataset = result.best_dataset()
    dataset.save(out)
    write_text_atomic(out / "logbook.csv", _logbook_csv(result.logbook))
    rec = result.best.record
    if not args.quiet:
        print(f"wrote {out}: silhouette {rec['index']:.6f} (target {args.target}), "
              f"|s_t - s| = {result.best.fitness.values[0]:.3g}, penalty {rec['penalty']:.3g}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hawks-deap`` command; returns the exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "generate":
            return _generate(args)
    except (ValueError, TypeError) as exc:
        print(f"hawks-deap {args.command}: error: {exc}", file=sys.stderr)
        return 2
    parser.error(f"unknown command {args.command!r}")
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
