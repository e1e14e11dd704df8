"""Does the overlap bound explain the operator study's S-1b? Paired runs, two settings.

Reads two folders of `examples/operator_study.py` (the same seeds: a run's seed depends on
its operator, target, initialisation, dimension and run index, not on K or the bound) and
compares, per operator, the final silhouette of the best individual of each run in one
scenario (default: D = 2, clusters initialised apart, s_t = 0.2, the paper's Fig. S-1b),
by a two-sided Wilcoxon signed-rank test over the runs both folders hold:

    python examples/operator_study.py --n-clusters 10 --max-overlap 0 --out os-k10-o0
    python examples/operator_study.py --n-clusters 10 --max-overlap 0.1 --dims 2 \\
        --inits apart --targets 0.2 --runs 10 --out os-k10-o0.1
    python benchmarks/operator_bound.py os-k10-o0 os-k10-o0.1
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.stats import wilcoxon


def finals(folder: Path, target: float, init: str, dims: int) -> dict[tuple[str, int], float]:
    """(operator, run) -> the final silhouette of the run's best individual."""
    out = {}
    for line in (folder / "runs.jsonl").read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:  # a torn last line of a study still running
            continue
        op, t, i, d, run = row["task"][:5]
        if (t, i, d) == (target, init, dims):
            out[(op, run)] = row["index"][-1]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--target", type=float, default=0.2)
    parser.add_argument("--init", default="apart")
    parser.add_argument("--dims", type=int, default=2)
    args = parser.parse_args()
    settings = [json.loads((f / "study.json").read_text()) for f in (args.first, args.second)]
    a = finals(args.first, args.target, args.init, args.dims)
    b = finals(args.second, args.target, args.init, args.dims)
    print(f"D = {args.dims}, {args.init}, s_t = {args.target}: final silhouette, "
          f"{args.first} ({settings[0]}) against {args.second} ({settings[1]})")
    print("| operator | runs | first: median (min-max) | second: median (min-max) | "
          "reach s_t +- 0.01 | Wilcoxon p |")
    print("|---|---|---|---|---|---|")
    for op in sorted({op for op, _ in a}, key=list(dict.fromkeys(op for op, _ in a)).index):
        runs = sorted(r for o, r in a if o == op and (o, r) in b)
        if not runs:
            continue
        x = np.array([a[(op, r)] for r in runs])
        y = np.array([b[(op, r)] for r in runs])
        p = wilcoxon(x, y).pvalue if len(runs) > 1 and np.any(x != y) else float("nan")
        reach = (f"{int(np.sum(np.abs(x - args.target) <= 0.01))} / "
                 f"{int(np.sum(np.abs(y - args.target) <= 0.01))}")
        print(f"| {op} | {len(runs)} | {np.median(x):.3f} ({x.min():.3f}-{x.max():.3f}) | "
              f"{np.median(y):.3f} ({y.min():.3f}-{y.max():.3f}) | {reach} | {p:.2g} |")


if __name__ == "__main__":
    main()
