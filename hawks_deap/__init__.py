"""hawks-deap: HAWKS, the evolutionary generator of clustering benchmarks, as a DEAP plugin.

The top level holds what a run needs: `make_hawks` (one dataset, scikit-learn style),
the problems, the constraints, `evolve` / `resume` / `make_toolbox`, `Result` and
`Dataset`. Everything else lives in its sub-package:

- `genotype`: the DEAP individual (`Genotype`, `Cluster`, `Layout`), the fitness classes
  (`IndexFitness`, `VersusFitness`, `RecordFitness`, `MultiObjectiveFitness`),
  `Evaluation`, `clone`, `genotype_equal`;
- `algorithms`: `ALGORITHMS`, `ProblemPool`, `GenerationState`, `select_best`,
  `final_fittest`;
- `problems`: `Problem` (the protocol) and the problems; `constraints`: `Constraint`;
- `evaluation`: the exact engine (`Evaluator`, `silhouette_score`, `silhouette_samples`,
  `nearest_neighbour_overlap`);
- `metrics`, `features`, `stats`, `operators`, `clustering`, `batteries`, `presets`.

>>> import hawks_deap as hd
>>> problem = hd.IndexProblem(n_samples=200, n_clusters=3, n_dims=2, target=0.5,
...                           constraints=[hd.Overlap(max=0.1)])
>>> result = hd.evolve(problem, population_size=6, generations=3, seed=0)
>>> result.best_dataset().X.shape
(200, 2)
"""

from hawks_deap import (
    algorithms,
    batteries,
    clustering,
    constraints,
    evaluation,
    features,
    genotype,
    metrics,
    operators,
    presets,
    problems,
    stats,
)
from hawks_deap.algorithms import Result, evolve, make_toolbox, resume
from hawks_deap.constraints import Eccentricity, Overlap
from hawks_deap.dataset import Dataset
from hawks_deap.make import make_hawks
from hawks_deap.problems import (
    IndexProblem,
    MultiIndexProblem,
    MultiObjectiveProblem,
    MultiVersusProblem,
    VersusProblem,
)

__version__ = "0.1.0"

__all__ = [
    "Dataset",
    "Eccentricity",
    "IndexProblem",
    "MultiIndexProblem",
    "MultiObjectiveProblem",
    "MultiVersusProblem",
    "Overlap",
    "Result",
    "VersusProblem",
    "evolve",
    "make_hawks",
    "make_toolbox",
    "resume",
    # sub-packages
    "algorithms",
    "batteries",
    "clustering",
    "constraints",
    "evaluation",
    "features",
    "genotype",
    "metrics",
    "operators",
    "presets",
    "problems",
    "stats",
]
