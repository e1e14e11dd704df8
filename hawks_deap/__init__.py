"""hawks-deap: HAWKS, the evolutionary generator of clustering benchmarks, as a DEAP plugin.

>>> import hawks_deap as hd
>>> problem = hd.IndexProblem(n_samples=200, n_clusters=3, n_dims=2, target=0.5,
...                           constraints=[hd.Overlap(max=0.1)])
>>> result = hd.evolve(problem, population_size=6, generations=3, seed=0)
>>> result.best_dataset().X.shape
(200, 2)
"""

from hawks_deap import batteries, features, metrics, operators, presets, stats
from hawks_deap._parallel import ProblemPool
from hawks_deap.algorithms import (
    ALGORITHMS,
    GenerationState,
    Result,
    evolve,
    final_fittest,
    make_toolbox,
    resume,
    select_best,
)
from hawks_deap.constraints import Constraint, Eccentricity, Overlap
from hawks_deap.dataset import Dataset
from hawks_deap.evaluation import (
    Evaluator,
    nearest_neighbour_overlap,
    silhouette_samples,
    silhouette_score,
)
from hawks_deap.features import InstanceSpace, performance_table, problem_features
from hawks_deap.genotype import (
    Cluster,
    Evaluation,
    Genotype,
    IndexFitness,
    Layout,
    MultiObjectiveFitness,
    RecordFitness,
    VersusFitness,
    clone,
    genotype_equal,
)
from hawks_deap.make import make_hawks
from hawks_deap.problems import (
    IndexProblem,
    MultiIndexProblem,
    MultiObjectiveProblem,
    MultiVersusProblem,
    Problem,
    VersusProblem,
)
from hawks_deap.stats import friedman_nemenyi

__version__ = "0.1.0"

__all__ = [
    "ALGORITHMS",
    "Cluster",
    "Constraint",
    "Dataset",
    "Eccentricity",
    "Evaluation",
    "Evaluator",
    "GenerationState",
    "Genotype",
    "IndexFitness",
    "IndexProblem",
    "InstanceSpace",
    "Layout",
    "MultiIndexProblem",
    "MultiObjectiveFitness",
    "MultiObjectiveProblem",
    "MultiVersusProblem",
    "Overlap",
    "Problem",
    "ProblemPool",
    "RecordFitness",
    "Result",
    "VersusFitness",
    "VersusProblem",
    "clone",
    "evolve",
    "batteries",
    "features",
    "friedman_nemenyi",
    "genotype_equal",
    "make_hawks",
    "make_toolbox",
    "metrics",
    "nearest_neighbour_overlap",
    "operators",
    "performance_table",
    "problem_features",
    "resume",
    "select_best",
    "final_fittest",
    "silhouette_samples",
    "silhouette_score",
    "presets",
    "stats",
]
