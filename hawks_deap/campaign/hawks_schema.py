"""HAWKS' JSON config format, as data: its defaults, its keys and how ours name them.

Read by `hawks_deap.campaign.hawks_json`, which translates a config with these tables.
"""

from __future__ import annotations

from typing import Any

#: HAWKS 0.2.0's ``defaults.json``: the values of the keys a config leaves out.
HAWKS_DEFAULTS: dict[str, Any] = {
    "hawks": {"folder_name": None, "mode": "single", "n_objectives": 1, "num_runs": 1,
              "seed_num": None, "comparison": "fitness", "save_best_data": False,
              "save_stats": False, "save_config": False},
    "objectives": {"silhouette": {"target": 0.8}},
    "dataset": {"num_examples": 1000, "num_clusters": 10, "num_dims": 2,
                "equal_clusters": False, "min_clust_size": 5},
    "ga": {"num_gens": 50, "num_indivs": 10, "mut_method_mean": "random",
           "mut_args_mean": {"random": {"scale": 1.0, "dims": "each"}},
           "mut_method_cov": "haar", "mut_args_cov": {"haar": {"power": 0.3}},
           "mut_prob_mean": "length", "mut_prob_cov": "length", "mate_scheme": "dv",
           "mate_prob": 0.7, "prob_fitness": 0.5, "elites": 0, "initial_mean_upper": 1.0,
           "initial_cov_upper": 0.5, "environ_selection": "sr",
           "parent_selection": "tournament"},
    "constraints": {"overlap": {"threshold": 0.0, "limit": "upper"},
                    "eigenval_ratio": {"threshold": 20, "limit": "upper"}},
}

_WEIGHTS = {"scalar_lower": "low", "scalar_higher": "high"}
_ALGORITHM = dict.fromkeys(("algorithm", "kwargs", "k_multiplier"))
_BOUND = dict.fromkeys(("threshold", "limit"))
#: The arguments of each HAWKS mean mutation and their names in hawks-deap.
MEAN_ARGS = {"random": {"scale": "scale", "dims": "dims"}, "rails": _WEIGHTS,
              "pso": _WEIGHTS, "pso_informed": _WEIGHTS, "pso_full": _WEIGHTS,
              "de": {"F": "F"}}
#: HAWKS mean mutations with a counterpart (``pso_full`` has none).
MEAN_MUTATION_NAMES = {"random": "gaussian", "rails": "rails", "pso": "pso",
                   "pso_informed": "pso-informed", "de": "de"}
DIMS = ("all", "each")  # the same meaning as ours
#: ``hawks.comparison`` -> ``[ga] returns``: the final population's best fitness
#: (HAWKS' default, the paper's "highest fitness"), or the first of the final, ranked
#: population (HAWKS' ``_best_in_pop``: ``pop[0]``; set by the authors' Index script).
COMPARISONS = {"fitness": "final-fittest", "ranking": "final-top-ranked"}
#: HAWKS clustering names (normalised as HAWKS' ``translate_method`` does) -> ours.
ALGORITHM_NAMES = {"kmeans": "kmeans++", "kmeans++": "kmeans++", "gmm": "gmm",
               "singlelinkage": "single-linkage", "averagelinkage": "average-linkage"}

#: Every key a HAWKS config may have (leaves are None): 0.2.0's and the TEVC configs'.
KNOWN_KEYS: dict[str, Any] = {
    "hawks": dict.fromkeys(HAWKS_DEFAULTS["hawks"]),
    "objectives": {"silhouette": {"target": None, "method": None}, "winner": _ALGORITHM,
                   "loser": _ALGORITHM, "scoring_method": None},
    "dataset": dict.fromkeys(HAWKS_DEFAULTS["dataset"]),
    "ga": {**dict.fromkeys(HAWKS_DEFAULTS["ga"]),
           "mut_args_mean": {m: dict.fromkeys(a) for m, a in MEAN_ARGS.items()},
           "mut_args_cov": {"haar": {"power": None}}},
    "constraints": {"overlap": _BOUND, "eigenval_ratio": _BOUND},
}

#: Why the keys without a counterpart have none.
UNMAPPED = {
    "hawks.folder_name": "the output folder: give --out",
    "hawks.save_best_data": "every run saves its best dataset (data.csv, genes.json)",
    "hawks.save_stats": "every run saves its logbook (logbook.csv; a suite also summary.csv)",
    "hawks.save_config": "every run records its settings in metadata.json",
    "objectives.silhouette.method": "HAWKS' choice of code for the same silhouette value",
}
UNSELECTED = "arguments of a mean mutation that is not selected (unused in HAWKS too)"
