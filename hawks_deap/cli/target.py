"""``hawks-deap target``: evolve a dataset whose problem features reach chosen values."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from hawks_deap.cli.common import prepare_run


def summary(values: Mapping[str, Any], result: Any) -> str:
    """The line printed after a run: each feature reached (or the point), the distance."""
    rec = result.best.record
    reached = ", ".join(f"{key[len('feature_'):]} {value:.4f}" for key, value in rec.items()
                        if key.startswith("feature_"))
    point = [value for key, value in rec.items() if key.startswith("space_")]
    where = (f"point ({', '.join(f'{c:.4f}' for c in point)}) for ({values['point']}), "
             if point else "")  # (a space target records its coordinates)
    return (f"{where}{reached}; distance {result.best.fitness.values[0]:.3g}, "
            f"penalty {rec['penalty']:.3g}, {result.generations_run} generations")


#: Validate ``target``'s arguments; returns the function that evolves, saves, reports.
prepare = functools.partial(prepare_run, command="target", summary=summary)
