"""HAWKS variation and selection operators, in DEAP's calling conventions."""

from hawks_deap.genome.genotype import clone
from hawks_deap.operators.crossover import cx_uniform
from hawks_deap.operators.mutation import (
    MEAN_CONTEXT,
    MEAN_MUTATIONS,
    check_mutation_options,
    mean_context,
    mean_needs,
    mut_cov_haar,
    mut_mean_de,
    mut_mean_gaussian,
    mut_mean_pso,
    mut_mean_pso_informed,
    mut_mean_rails,
    mutate,
    mutate_many,
    resolve_mean_mutation,
)
from hawks_deap.operators.selection import (
    record_penalty,
    sel_hawks,
    sel_nsga3,
    sel_stochastic_ranking,
    sel_tournament_crowded,
    sel_tournament_rank,
)

__all__ = [
    "MEAN_CONTEXT",
    "MEAN_MUTATIONS",
    "clone",
    "cx_uniform",
    "check_mutation_options",
    "mean_context",
    "mean_needs",
    "mut_cov_haar",
    "mut_mean_de",
    "mut_mean_gaussian",
    "mut_mean_pso",
    "mut_mean_pso_informed",
    "mut_mean_rails",
    "mutate",
    "mutate_many",
    "record_penalty",
    "resolve_mean_mutation",
    "sel_hawks",
    "sel_nsga3",
    "sel_stochastic_ranking",
    "sel_tournament_crowded",
    "sel_tournament_rank",
]
