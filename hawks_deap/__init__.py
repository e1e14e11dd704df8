"""hawks-deap: HAWKS, the evolutionary generator of clustering benchmarks, as a DEAP plugin.

The top level holds what a run needs: `make_hawks` (one dataset, scikit-learn style),
the problems, the constraints, `evolve` / `resume` / `make_toolbox`, `Result` and
`Dataset`. Everything else lives in its sub-package:

- `genome`: the DEAP individual (`Genotype`, `Cluster`, `Layout`), the fitness classes
  (`IndexFitness`, `VersusFitness`, `RecordFitness`, `MultiObjectiveFitness`),
  `Evaluation`, `clone`, `genotype_equal`; random genes and genotypes;
- `operators`: crossover, the mean and covariance mutations, the selections;
- `evaluation`: the exact engine (`Evaluator`, `silhouette_score`, `silhouette_samples`,
  `nearest_neighbour_overlap`);
- `clustering`: the Versus algorithms; `metrics`: validity indices;
- `problems`: `Problem` (the protocol), the problems, the constraints (`Constraint`);
- `algorithms`: `make_toolbox`, `evolve`, `resume`, `ProblemPool`, `GenerationState`,
  `select_best`, `final_fittest`;
- `io`: `Dataset`, clustering-benchmarks batteries, collections of datasets;
- `analysis`: problem features, the instance space, statistics, figures;
- `presets`: named settings of published studies; and, for the command line and suites,
  `settings` (the option schema), `campaign` (runs, suites, provenance), `cli`.

>>> import hawks_deap as hd
>>> problem = hd.IndexProblem(n_samples=200, n_clusters=3, n_dims=2, target=0.5,
...                           constraints=[hd.Overlap(max=0.1)])
>>> result = hd.evolve(problem, population_size=6, generations=3, seed=0)
>>> result.best_dataset().X.shape
(200, 2)
"""

from hawks_deap import (
    algorithms,
    analysis,
    clustering,
    evaluation,
    genome,
    io,
    metrics,
    operators,
    presets,
    problems,
)
from hawks_deap.algorithms import Result, evolve, make_toolbox, resume
from hawks_deap.io.dataset import Dataset
from hawks_deap.make import make_hawks
from hawks_deap.problems import (
    Eccentricity,
    IndexProblem,
    MultiIndexProblem,
    MultiObjectiveProblem,
    MultiVersusProblem,
    Overlap,
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
    "analysis",
    "clustering",
    "evaluation",
    "genome",
    "io",
    "metrics",
    "operators",
    "presets",
    "problems",
]
