"""Problem definitions: Index mode (and, later, Versus mode)."""

from hawks_deap.problems.base import DatasetProblem, Problem
from hawks_deap.problems.index import IndexProblem
from hawks_deap.problems.multiobjective import MultiObjectiveProblem

__all__ = ["DatasetProblem", "IndexProblem", "MultiObjectiveProblem", "Problem"]
