"""Problem definitions: Index mode (and, later, Versus mode)."""

from hawks_deap.problems.base import DatasetProblem, Problem
from hawks_deap.problems.index import IndexProblem

__all__ = ["DatasetProblem", "IndexProblem", "Problem"]
