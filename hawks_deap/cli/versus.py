"""``hawks-deap versus WINNER LOSER``: evolve a dataset on which WINNER beats LOSER."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from hawks_deap.cli.common import prepare_run


def summary(values: Mapping[str, Any], result: Any) -> str:
    """The line printed after a run: both scores, the gap, the penalty."""
    rec = result.best.record
    return (f"{values['winner']} {values['score']} {rec['winner_score']:.4f}, "
            f"{values['loser']} {values['score']} {rec['loser_score']:.4f} "
            f"(gap {result.best.fitness.values[0]:.4f}), penalty {rec['penalty']:.3g}, "
            f"{result.generations_run} generations")


#: Validate ``versus``'s arguments; returns the function that evolves, saves, reports.
prepare = functools.partial(prepare_run, command="versus", summary=summary)
