"""Verify every run of a suite (`hawks_deap.campaign.provenance.verify`) and tally the verdicts.

Made to check the reproducibility contract across BLAS kernels: run a suite under the
machine's default kernel, then verify it under another one, e.g.

    hawks-deap suite benchmarks/kernels_grid.toml --out /tmp/kernels --workers 2
    OPENBLAS_CORETYPE=Sandybridge python benchmarks/verify_suite.py /tmp/kernels

Prints each run that is not within the tolerance, then the counts (identical, within the
tolerance, different path, different values, the contract holds) and the largest share
of the tolerance a run within it used.
"""

from __future__ import annotations

import argparse
import collections
import os
from pathlib import Path

from hawks_deap.campaign.provenance import verify


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path, help="a suite's output folder")
    args = parser.parse_args()
    runs = sorted(p for p in (args.suite / "runs").iterdir() if p.is_dir())
    counts: collections.Counter[str] = collections.Counter()
    worst, worst_run = 0.0, None
    for run in runs:
        outcome = verify(run, n_jobs=1)
        verdict = ("identical" if outcome.identical else "within" if outcome.within_tolerance
                   else "different path" if not outcome.same_path else "different values")
        counts[verdict] += 1
        counts["holds"] += outcome.holds
        if verdict.startswith("different") or not outcome.holds:
            print(outcome.summary(), flush=True)
        if outcome.within_tolerance and outcome.tolerance_used > worst:
            worst, worst_run = outcome.tolerance_used, run.name
    kernel = os.environ.get("OPENBLAS_CORETYPE", "default")
    print(f"{len(runs)} runs under {kernel}: {dict(counts)}; largest share of the tolerance "
          f"within it: {100 * worst:.3g}% ({worst_run})")


if __name__ == "__main__":
    main()
