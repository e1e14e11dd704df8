"""Selection: stochastic ranking (environmental) and rank tournaments (parents), paper III-F."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hawks_deap._validation import check_int, check_probability

__all__ = ["record_penalty", "sel_stochastic_ranking", "sel_tournament_rank"]


def record_penalty(individual: Any) -> float:
    """The constraint penalty stored in an individual's evaluation record (0 if none)."""
    return float(individual.fitness.record.get("penalty", 0.0))


def sel_stochastic_ranking(individuals: Sequence[Any], k: int, rng: np.random.Generator, *,
                           p_f: float = 0.5, n_sweeps: int | None = None,
                           penalty: Callable[[Any], float] = record_penalty) -> list[Any]:
    """Stochastic ranking (Runarsson & Yao, 2000), as used by HAWKS.

    A bubble sort over the pool with at most ``n_sweeps`` sweeps (default
    ``2 * k``), stopping early after a sweep with no swap. Each adjacent pair is compared
    on fitness (DEAP's comparison of ``wvalues``, so minimisation and maximisation both
    work) when both have zero penalty or when ``u < p_f`` with ``u ~ U(0, 1)``, and on
    penalty (smaller is better) otherwise. One u is drawn per adjacent pair per sweep.

    Parameters
    ----------
    individuals : sequence
        The pool (parents and offspring); each needs a valid fitness.
    k : int
        How many to keep.
    rng : numpy.random.Generator
        Random source.
    p_f : float
        Probability of comparing on fitness regardless of feasibility.
    n_sweeps : int, optional
        Maximum number of sweeps.
    penalty : callable
        Penalty of an individual (default: its evaluation record's ``"penalty"``).

    Returns
    -------
    list
        The first ``k`` of the ranked pool, best first (references, as DEAP's selections
        return; clone before varying).
    """
    p_f = check_probability("p_f", p_f)
    k = check_int("k", k, minimum=0, maximum=len(individuals))
    ranked = list(individuals)
    n = len(ranked)
    n_sweeps = 2 * k if n_sweeps is None else check_int("n_sweeps", n_sweeps, minimum=0)
    pens = [penalty(ind) for ind in ranked]
    for _ in range(n_sweeps):
        u = rng.random(max(n - 1, 0))
        swapped = False
        for j in range(n - 1):
            a, b = ranked[j], ranked[j + 1]
            if (pens[j] == 0 and pens[j + 1] == 0) or u[j] < p_f:
                swap = a.fitness < b.fitness
            else:
                swap = pens[j] > pens[j + 1]
            if swap:
                ranked[j], ranked[j + 1] = b, a
                pens[j], pens[j + 1] = pens[j + 1], pens[j]
                swapped = True
        if not swapped:
            break
    return ranked[:k]


def sel_tournament_rank(individuals: Sequence[Any], k: int, rng: np.random.Generator, *,
                        tournsize: int = 2) -> list[Any]:
    """Tournaments decided by rank, the rank being the position in ``individuals``.

    ``individuals`` must be sorted best first (as `sel_stochastic_ranking` returns
    them). Each of the ``k`` tournaments draws ``tournsize`` positions uniformly with
    replacement (as ``deap.tools.selTournament``) and keeps the best-ranked one.
    Returns references: clone before varying.
    """
    k = check_int("k", k, minimum=0)
    tournsize = check_int("tournsize", tournsize, minimum=1)
    if not individuals:
        raise ValueError("individuals must not be empty")
    picks = rng.integers(len(individuals), size=(k, tournsize)).min(axis=1)
    return [individuals[i] for i in picks]
