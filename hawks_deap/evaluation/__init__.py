"""Exact evaluation: silhouette width and nearest-neighbour overlap, plain and incremental.

- `reference`: the exact whole-dataset functions (`silhouette_score`,
  `silhouette_samples`, `nearest_neighbour_overlap`) and `NaiveEvaluator`, the oracles.
  The silhouette's default distance is scikit-learn's (``metric="euclidean"``, the value
  of ``sklearn.metrics.silhouette_score``); HAWKS' own, the squared Euclidean distance
  that Index mode targets by default, is ``metric="sqeuclidean"``;
- `evaluator`: `Evaluator`, the incremental engine for the genotypes of one layout,
  over the internal pieces ``_kernels`` (nearest-neighbour and distance-sum kernels),
  ``_cache`` (gene and shape cache), ``_thresholds`` (own-cluster thresholds),
  ``_silhouette`` and ``_overlap`` (incremental computations), and ``_compiled``, the
  optional compiled kernels: in C at D = 2 (``_native.c``, built at install where a C
  compiler is found), with numba for the low-dimensional overlap's pairs (the extra
  ``hawks-deap[fast]``); the same values, ``HAWKS_DEAP_COMPILED=0`` turns them off.
"""

from hawks_deap.evaluation._cache import ByteLRU, Tuning
from hawks_deap.evaluation.evaluator import EVALUATORS, Evaluator, make_evaluator
from hawks_deap.evaluation.reference import (
    SILHOUETTE_METRICS,
    NaiveEvaluator,
    nearest_neighbour_overlap,
    overlap_flags,
    silhouette_samples,
    silhouette_score,
)

__all__ = [
    "EVALUATORS",
    "SILHOUETTE_METRICS",
    "ByteLRU",
    "Evaluator",
    "NaiveEvaluator",
    "Tuning",
    "make_evaluator",
    "nearest_neighbour_overlap",
    "overlap_flags",
    "silhouette_samples",
    "silhouette_score",
]
