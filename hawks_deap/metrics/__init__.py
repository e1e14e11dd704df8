"""Cluster validity indices: external, internal, pair-counting and stability.

Formulas follow the validity survey (seed 001) and, for CSENS / CSPEC / CPPV / CNPV,
seed 003; each function's docstring gives its formula, source and where definitions
differ between sources. External indices are called ``f(labels_true, labels_pred)``,
internal ones ``f(X, labels)``; options are keyword-only. Undefined values (0/0) are
``nan``, never an exception.

>>> import hawks_deap.metrics as hm
>>> hm.adjusted_rand_index([0, 0, 1, 1], ["b", "b", "a", "a"])
1.0
>>> info = hm.get("db")
>>> info.name, info.kind, info.higher_is_better
('davies_bouldin', 'internal', False)
"""

from __future__ import annotations

from hawks_deap.metrics.external import (
    adjusted_mutual_information,
    completeness,
    conditional_entropy,
    f_measure,
    homogeneity,
    maximum_matching,
    mutual_information,
    normalized_clustering_accuracy,
    normalized_mutual_information,
    purity,
    v_measure,
    variation_of_information,
)
from hawks_deap.metrics.internal import (
    beta_cv,
    calinski_harabasz,
    connectivity,
    davies_bouldin,
    dunn,
    hopkins,
    silhouette,
)
from hawks_deap.metrics.pairs import (
    ModelPairIndices,
    PairCounts,
    adjusted_rand_index,
    fowlkes_mallows,
    hubert_gamma,
    jaccard,
    normalized_hubert_gamma,
    pair_confusion,
    pair_indices_from_model,
    pair_npv,
    pair_ppv,
    pair_sensitivity,
    pair_specificity,
    rand_index,
)
from hawks_deap.metrics.registry import MetricInfo, available, get, register
from hawks_deap.metrics.stability import StabilityResult, stability

__all__ = [
    "MetricInfo",
    "ModelPairIndices",
    "PairCounts",
    "StabilityResult",
    "adjusted_mutual_information",
    "adjusted_rand_index",
    "available",
    "beta_cv",
    "calinski_harabasz",
    "completeness",
    "conditional_entropy",
    "connectivity",
    "davies_bouldin",
    "dunn",
    "f_measure",
    "fowlkes_mallows",
    "get",
    "homogeneity",
    "hopkins",
    "hubert_gamma",
    "jaccard",
    "maximum_matching",
    "mutual_information",
    "normalized_clustering_accuracy",
    "normalized_hubert_gamma",
    "normalized_mutual_information",
    "pair_confusion",
    "pair_indices_from_model",
    "pair_npv",
    "pair_ppv",
    "pair_sensitivity",
    "pair_specificity",
    "purity",
    "rand_index",
    "register",
    "silhouette",
    "stability",
    "v_measure",
    "variation_of_information",
]
