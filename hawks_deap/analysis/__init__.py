"""Measuring and comparing datasets: problem features, statistics, tables and figures.

- `features`: the paper's problem features, performance tables, the instance space;
- `stats`: the Friedman test, Nemenyi critical differences (all pairs) and Holm /
  Bonferroni-Dunn tests against a control; the paper's Fig. 2 loadings;
- `table`: `Table`, the labelled table of floats they exchange;
- `plotting` (matplotlib, the ``plot`` extra): datasets, instance spaces, CD diagrams;
- `isa`: Instance Space Analysis' ``metadata.csv`` (MATILDA, instancespace, pyispace).
"""

from hawks_deap.analysis import features, stats
from hawks_deap.analysis.features import (
    InstanceSpace,
    features_table,
    performance_table,
    problem_features,
)
from hawks_deap.analysis.stats import friedman_control, friedman_nemenyi
from hawks_deap.analysis.table import Table

__all__ = ["InstanceSpace", "Table", "features", "features_table", "friedman_control",
           "friedman_nemenyi", "performance_table", "problem_features", "stats"]
