"""Problems: Index mode and Versus mode, their multi-objective forms, and constraints.

- `base`: `Problem` (what a loop or a pool may ask of a problem) and `DatasetProblem`;
- `index`: `IndexProblem`, `MultiIndexProblem`; `features`: `FeatureTargetProblem`
  (Index mode targeting several problem features), `SpaceTargetProblem` (a point of an
  instance space); `versus`: `VersusProblem`,
  `MultiVersusProblem`; `multiobjective`: `MultiObjectiveProblem`;
- `constraints`: `Constraint`, `Overlap`, `Eccentricity`, the penalty.
"""

from hawks_deap.problems.base import DatasetProblem, Problem
from hawks_deap.problems.constraints import Constraint, Eccentricity, Overlap
from hawks_deap.problems.features import FeatureTargetProblem, SpaceTargetProblem
from hawks_deap.problems.index import IndexProblem, MultiIndexProblem
from hawks_deap.problems.multiobjective import MultiObjectiveProblem
from hawks_deap.problems.versus import MultiVersusProblem, VersusProblem

__all__ = ["Constraint", "DatasetProblem", "Eccentricity", "FeatureTargetProblem",
           "IndexProblem", "MultiIndexProblem", "MultiObjectiveProblem", "MultiVersusProblem",
           "Overlap", "Problem", "SpaceTargetProblem", "VersusProblem"]
