"""Crossover: HAWKS' uniform crossover of cluster means and covariances (paper III-E1)."""

from __future__ import annotations

from typing import Any

from hawks_deap._util.validation import check_probability
from hawks_deap.genome.genotype import Genotype
from hawks_deap.operators._rng import numpy_rng

__all__ = ["cx_uniform"]


def cx_uniform(ind1: Genotype, ind2: Genotype, rng: Any = None, *,
               p_mean: float = 0.5, p_cov: float = 0.5) -> tuple[Genotype, Genotype]:
    """Swap means and covariances between two individuals, cluster by cluster.

    For each cluster slot k, the means of the two parents are swapped with probability
    ``p_mean`` and, independently, their covariances (variances and rotation) with
    probability ``p_cov`` (HAWKS paper, Fig. 1a; 0.2.0's "dv" scheme).

    Works in place and returns both children, as DEAP crossovers do:
    ``o1, o2 = toolbox.mate(o1, o2)``. Fitness invalidation is left to the algorithm.
    The multiset of means and the multiset of covariances over both children equal
    those of the parents.

    Parameters
    ----------
    ind1, ind2 : Genotype
        The parents, changed in place into the children (genes are replaced, never
        modified). Both must have the same number of genes (``ValueError`` otherwise).
    rng : numpy.random.Generator, random.Random, numpy.random.RandomState or None
        Random source; None (the default) and Python's ``random`` module draw from
        ``random``, DEAP's source, and ``numpy.random`` from numpy's global state (each
        seeds a new Generator from one draw per call). A plain int seed is refused.
    p_mean, p_cov : float
        Per-slot probabilities of swapping the means / the covariances, each a finite
        number in [0, 1] (default 0.5).

    Returns
    -------
    tuple of Genotype
        ``(ind1, ind2)``, the same objects, as DEAP's crossovers return.
    """
    check_probability("p_mean", p_mean)
    check_probability("p_cov", p_cov)
    if len(ind1) != len(ind2):
        raise ValueError(f"individuals must have the same number of genes, got {len(ind1)} "
                         f"and {len(ind2)}")
    rng = numpy_rng(rng)  # after the checks: it may draw from Python's random
    draws = rng.random((len(ind1), 2))
    for k, (u_mean, u_cov) in enumerate(draws):
        swap_mean, swap_cov = u_mean < p_mean, u_cov < p_cov
        if not (swap_mean or swap_cov):
            continue
        a, b = ind1[k], ind2[k]
        if swap_mean and swap_cov:
            ind1[k], ind2[k] = b, a
        elif swap_mean:
            ind1[k], ind2[k] = a.with_mean_of(b), b.with_mean_of(a)
        else:
            ind1[k], ind2[k] = b.with_mean_of(a), a.with_mean_of(b)
    return ind1, ind2
