"""``hawks-deap generate``: evolve an Index-mode dataset and save it."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from hawks_deap.cli.common import prepare_run


def summary(values: Mapping[str, Any], result: Any) -> str:
    """The line printed after a run: the index reached, the fitness, the penalty."""
    rec = result.best.record
    return (f"{values['index']} {rec['index']:.6f} (target {values['target']}), "
            f"|target - {values['index']}| = {result.best.fitness.values[0]:.3g}, "
            f"penalty {rec['penalty']:.3g}, "
            f"{result.generations_run} generations")


#: Validate ``generate``'s arguments; returns the function that evolves, saves, reports.
prepare = functools.partial(prepare_run, command="generate", summary=summary)
