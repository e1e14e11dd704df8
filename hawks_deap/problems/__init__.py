"""Problem definitions: Index mode and Versus mode."""

from hawks_deap.problems.base import DatasetProblem, Problem
from hawks_deap.problems.index import IndexProblem, MultiIndexProblem
from hawks_deap.problems.multiobjective import MultiObjectiveProblem
from hawks_deap.problems.versus import MultiVersusProblem, VersusProblem

__all__ = ["DatasetProblem", "IndexProblem", "MultiIndexProblem", "MultiObjectiveProblem",
           "MultiVersusProblem",
           "Problem", "VersusProblem"]
