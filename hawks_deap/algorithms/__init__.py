"""Running a problem: its DEAP toolbox, the HAWKS loop, the result, checkpoints, the pool.

- `toolbox`: `make_toolbox` (the HAWKS operators of a problem in a ``deap.base.Toolbox``);
- `loop`: `evolve` (the HAWKS loop, or NSGA-II / NSGA-III) and `resume`;
- `result`: `Result`, `FeasibleHallOfFame`, `GenerationState`, `select_best`, `final_fittest`;
- `checkpoints`: the checkpoint format `evolve` writes and `resume` reads;
- `pool`: `ProblemPool`, the pool whose ``map`` ``n_jobs > 1`` registers.
"""

from hawks_deap.algorithms.loop import ALGORITHMS, evolve, resume
from hawks_deap.algorithms.pool import EvaluateTask, ProblemPool
from hawks_deap.algorithms.result import (
    RETURNS,
    FeasibleHallOfFame,
    GenerationState,
    Result,
    final_fittest,
    final_top_ranked,
    select_best,
)
from hawks_deap.algorithms.toolbox import make_toolbox

__all__ = ["ALGORITHMS", "RETURNS", "EvaluateTask", "FeasibleHallOfFame", "GenerationState",
           "ProblemPool", "Result", "evolve", "final_fittest", "final_top_ranked", "make_toolbox",
           "resume", "select_best"]
