"""Selection: stochastic ranking (environmental) and rank tournaments (parents), paper III-F."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hawks_deap._util.validation import check_int, check_probability
from hawks_deap.operators._rng import numpy_rng

__all__ = [
    "check_evaluated",
    "check_same_layout",
    "record_penalty",
    "sel_hawks",
    "sel_nsga3",
    "sel_stochastic_ranking",
    "sel_tournament_crowded",
    "sel_tournament_rank",
]


def record_penalty(individual: Any) -> float:
    """The constraint penalty stored in an individual's evaluation record (0 if none).

    Parameters
    ----------
    individual : Genotype
        Any object with a ``fitness``; nothing is changed.

    Returns
    -------
    float
        The record's ``"penalty"``; 0.0 when the record has none, or when the fitness
        is invalid (its record is then empty).

    Raises
    ------
    TypeError
        If the fitness keeps no record (not a `hawks_deap.genome.genotype.RecordFitness`).
    ValueError
        If the fitness has values but no record: an ``evaluate`` that returns plain
        floats drops the constraint values, and selection would take every penalty as
        0 without a word.
    """
    fitness = individual.fitness
    record = getattr(fitness, "record", None)
    if record is None:
        raise TypeError(f"{type(fitness).__name__} keeps no evaluation record: give "
                        "individuals a hawks_deap.genome.genotype.RecordFitness subclass (e.g. "
                        "the problem's IndexFitness, or creator.create(..., "
                        "hawks_deap.genome.genotype.RecordFitness, ...))")
    if not record and fitness.valid:
        raise ValueError("an individual has fitness values but no evaluation record "
                         "(constraint values, penalty): register the problem's evaluate, "
                         "which returns a hawks_deap.genome.genotype.Evaluation, or return "
                         "hawks_deap.genome.genotype.Evaluation(values, record) from your own")
    return float(record.get("penalty", 0.0))


def check_same_layout(individuals: Sequence[Any], layout_key: str | None = None) -> None:
    """Refuse to compare individuals whose fitness was measured on different layouts.

    A layout (the cluster sizes and every slot's fixed draws) decides which dataset a
    genotype is: two fitness values measured on different layouts belong to different
    datasets. That happens when a population saved without its toolbox is resumed
    with a toolbox made anew that drew another layout, or when individuals move between
    toolboxes made with different seeds (islands).

    Parameters
    ----------
    individuals : iterable
        Individuals with a ``fitness``; those whose fitness carries no ``layout_key``
        (never evaluated) are not compared. An invalidated fitness keeps its key and is.
    layout_key : str, optional
        The key of the layout they must have been evaluated on, if known (`mutate`
        passes its layout's: an individual of a toolbox made anew is refused there too).

    Raises
    ------
    ValueError
        If two of the known layout keys differ.
    """
    keys = {getattr(ind.fitness, "layout_key", None) for ind in individuals}
    keys.discard(None)
    if keys and layout_key is not None:
        keys.add(layout_key)
    if len(keys) > 1:
        raise ValueError(
            "individuals evaluated on different layouts (different datasets) meet here: "
            "each toolbox draws its own layout from its seed, and a problem holds the layout "
            "of the last toolbox made from it: register and call toolbox.problem's methods "
            "(toolbox.evaluate), not those of a problem another make_toolbox prepared again "
            "since. To resume a saved population, "
            "make the toolbox as the saved run did: with seed=None after the same "
            "random.seed(...) (and save random.getstate() with the population: DEAP's "
            "checkpoint recipe), or with the same int seed and the toolbox itself saved with "
            "the population (docs/guide/deap_toolbox.md, \"DEAP recipes\"). An individual "
            "that moves between toolboxes of different seeds (islands) must be evaluated "
            "again by the one it "
            "joins: ind.fitness.values = toolbox.evaluate(ind)")


def check_evaluated(individuals: Sequence[Any]) -> None:
    """Refuse a pool with an individual that has no valid fitness (never evaluated).

    Ranking it would take its penalty as 0 and compare its empty values: a loop that
    forgot an evaluation would select silently on nothing.

    Parameters
    ----------
    individuals : sequence
        Individuals with a ``fitness``; not changed.

    Raises
    ------
    ValueError
        Naming the positions of the unevaluated individuals.
    """
    missing = [i for i, ind in enumerate(individuals) if not ind.fitness.valid]
    if missing:
        shown = ", ".join(map(str, missing[:10])) + (", ..." if len(missing) > 10 else "")
        raise ValueError(
            f"individuals must be evaluated before selection: {len(missing)} of "
            f"{len(individuals)} have no valid fitness (positions {shown}); evaluate them "
            "first: ind.fitness.values = toolbox.evaluate(ind)")


def sel_stochastic_ranking(individuals: Sequence[Any], k: int, rng: Any = None, *,
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
    rng : numpy.random.Generator, random.Random or None
        Random source; None (the default) draws from Python's ``random``, DEAP's source.
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
    check_same_layout(individuals)
    check_evaluated(individuals)
    rng = numpy_rng(rng)  # after the checks: it may draw from Python's random
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


def sel_hawks(individuals: Sequence[Any], k: int, rng: Any = None, *,
              p_f: float = 0.5, tournsize: int = 3) -> list[Any]:
    """HAWKS selection for any DEAP algorithm: survivors or parents, by what is asked.

    DEAP's algorithms call ``toolbox.select`` for two different things:
    ``eaMuPlusLambda`` and ``eaMuCommaLambda`` choose the ``k`` survivors of a larger
    pool (``k < len(individuals)``), ``eaSimple`` chooses the parents of a whole new
    generation (``k == len(population)``). The HAWKS loop (paper III-F) does both with
    stochastic ranking: survivors are the first ``k`` of the ranked pool; parents come
    from ``k`` rank tournaments on the ranked pool. So for ``k < len(individuals)`` this
    is `sel_stochastic_ranking`; otherwise the pool is ranked (all of it) and
    `sel_tournament_rank` picks ``k`` parents, with replacement: a stochastic ranking
    that kept everyone would only reorder the population, and eaSimple would apply no
    selection pressure at all. The parents' tournaments hold ``tournsize=3`` by default,
    DEAP's customary eaSimple selection (``tools.selTournament(tournsize=3)``), where
    the HAWKS loop uses 2: eaSimple replaces the whole population by its offspring,
    without the elitist survivor step that gives the HAWKS loop the rest of its
    pressure (``tests/test_deap_recipes.py`` measures the effect). The call of
    ``eaMuCommaLambda`` with ``lambda_ == mu`` looks like eaSimple's and gets the
    tournaments; to keep every offspring there instead, register
    `sel_stochastic_ranking` as ``select``.

    Returns references, as DEAP's selections do: clone before varying.

    Parameters
    ----------
    individuals : sequence
        The pool; each needs a valid fitness and a `hawks_deap.genome.genotype.RecordFitness` record
        (`record_penalty`), all measured on the same layout. Not changed.
    k : int
        How many to select, an integer >= 0 (> 0 needs a non-empty pool). Above
        ``len(individuals)``, parents drawn with replacement, like ``k == len(individuals)``.
    rng : numpy.random.Generator, random.Random, numpy.random.RandomState or None
        Random source; None (the default) and Python's ``random`` module draw from
        ``random``, DEAP's source, and ``numpy.random`` from numpy's global state (each
        seeds a new Generator from one draw per call). A plain int seed is refused.
    p_f : float
        `sel_stochastic_ranking`'s probability, in [0, 1] (default 0.5).
    tournsize : int
        Positions per parent tournament, an integer >= 1 (default 3); used only when
        ``k >= len(individuals)``.

    Returns
    -------
    list
        ``k`` individuals (references): the ranked survivors, best first, or the
        tournaments' winners in draw order.
    """
    k = check_int("k", k, minimum=0)
    p_f = check_probability("p_f", p_f)
    tournsize = check_int("tournsize", tournsize, minimum=1)
    if k and not individuals:
        raise ValueError(f"individuals must not be empty when k > 0, got k={k}")
    rng = numpy_rng(rng)  # after the checks: it may draw from Python's random
    if k < len(individuals) or not individuals:
        return sel_stochastic_ranking(individuals, k, rng, p_f=p_f)
    ranked = sel_stochastic_ranking(individuals, len(individuals), rng, p_f=p_f)
    return sel_tournament_rank(ranked, k, rng, tournsize=tournsize)


def sel_tournament_rank(individuals: Sequence[Any], k: int, rng: Any = None, *,
                        tournsize: int = 2) -> list[Any]:
    """Tournaments decided by rank, the rank being the position in ``individuals``.

    ``individuals`` must be sorted best first (as `sel_stochastic_ranking` returns
    them). Each of the ``k`` tournaments draws ``tournsize`` positions uniformly with
    replacement (as ``deap.tools.selTournament``) and keeps the best-ranked one.
    Returns references: clone before varying.

    Parameters
    ----------
    individuals : sequence
        The ranked pool, best first; must not be empty (ValueError). Not changed.
    k : int
        Number of tournaments (and of individuals returned), an integer >= 0.
    rng : numpy.random.Generator, random.Random, numpy.random.RandomState or None
        Random source; None (the default) and Python's ``random`` module draw from
        ``random``, DEAP's source, and ``numpy.random`` from numpy's global state (each
        seeds a new Generator from one draw per call). A plain int seed is refused.
    tournsize : int
        Positions per tournament, an integer >= 1 (default 2).

    Returns
    -------
    list
        The ``k`` winners, in draw order (an individual may appear more than once).
    """
    k = check_int("k", k, minimum=0)
    tournsize = check_int("tournsize", tournsize, minimum=1)
    if not individuals:
        raise ValueError("individuals must not be empty")
    rng = numpy_rng(rng)
    picks = rng.integers(len(individuals), size=(k, tournsize)).min(axis=1)
    return [individuals[i] for i in picks]


def sel_nsga3(individuals: Sequence[Any], k: int, rng: Any = None, *,
              ref_points: np.ndarray, nd: str = "log") -> list[Any]:
    """NSGA-III environmental selection (Deb & Jain, 2014) with an explicit generator.

    The same steps as ``deap.tools.selNSGA3`` (non-dominated sorting, ideal point,
    extreme points and intercepts, association to reference points, niching), built on
    DEAP's own helpers; only the random tie-breaking of the niching step draws from
    ``rng`` instead of numpy's global state, so runs are reproducible from their seed.

    Parameters
    ----------
    individuals : sequence
        The pool, each with a valid (multi-objective) fitness. Not changed.
    k : int
        How many to keep, an integer from 0 to ``len(individuals)`` (0: an empty list).
    rng : numpy.random.Generator, random.Random, numpy.random.RandomState or None
        Random source; None (the default) and Python's ``random`` module draw from
        ``random``, DEAP's source, and ``numpy.random`` from numpy's global state (each
        seeds a new Generator from one draw per call). A plain int seed is refused.
    ref_points : array-like of shape (n_points, n_objectives)
        The reference points (a numpy array, list or tuple): finite and non-empty, one
        column per objective, e.g. ``deap.tools.uniform_reference_points(n_obj, p)``.
    nd : {"log", "standard"}
        Non-dominated sorting: ``deap.tools.sortLogNondominated`` or
        ``sortNondominated`` (default ``"log"``).

    Returns
    -------
    list
        The ``k`` selected individuals (references), the whole fronts first.
    """
    from itertools import chain

    from deap.tools import emo

    k = check_int("k", k, minimum=0, maximum=len(individuals))
    if nd not in ("log", "standard"):
        raise ValueError(f"nd must be 'log' or 'standard', got {nd!r}")
    sort = emo.sortLogNondominated if nd == "log" else emo.sortNondominated
    n_obj = len(individuals[0].fitness.wvalues) if len(individuals) else 0
    ref_points = np.asarray(ref_points, dtype=float) if isinstance(
        ref_points, (np.ndarray, list, tuple)) else None
    if ref_points is None or ref_points.ndim != 2 or len(ref_points) == 0 or (
            n_obj and ref_points.shape[1] != n_obj) or not np.isfinite(ref_points).all():
        raise ValueError(f"ref_points must be a finite 2-D array with one column per "
                         f"objective ({n_obj}), e.g. deap.tools.uniform_reference_points"
                         f"({n_obj}, p)")
    check_evaluated(individuals)
    rng = numpy_rng(rng)  # after the checks: it may draw from Python's random
    if k == 0:  # nothing to choose (the niching below needs a front)
        return []
    fronts = sort(list(individuals), k)
    fitnesses = -np.array([ind.fitness.wvalues for front in fronts for ind in front])
    best_point = fitnesses.min(axis=0)
    worst_point = fitnesses.max(axis=0)
    extreme = emo.find_extreme_points(fitnesses, best_point)
    front_worst = fitnesses[: sum(len(f) for f in fronts)].max(axis=0)
    intercepts = emo.find_intercepts(extreme, best_point, worst_point, front_worst)
    niches, dist = emo.associate_to_niche(fitnesses, ref_points, best_point,
                                          intercepts)
    counts = np.zeros(len(ref_points), dtype=np.int64)
    n_before = len(fitnesses) - len(fronts[-1])
    idx, cnt = np.unique(niches[:n_before], return_counts=True)
    counts[idx] = cnt
    chosen = list(chain(*fronts[:-1]))
    last = fronts[-1]
    last_niches, last_dist = niches[n_before:], dist[n_before:]
    available = np.ones(len(last), dtype=bool)
    while len(chosen) < k:
        live = np.zeros(len(counts), dtype=bool)
        live[np.unique(last_niches[available])] = True
        least = counts[live].min()
        candidates = np.flatnonzero(live & (counts == least))
        candidates = rng.permutation(candidates)[: k - len(chosen)]
        for niche in candidates:
            members = rng.permutation(np.flatnonzero((last_niches == niche) & available))
            pick = members[np.argmin(last_dist[members])] if counts[niche] == 0 else members[0]
            available[pick] = False
            counts[niche] += 1
            chosen.append(last[pick])
    return chosen


def sel_tournament_crowded(individuals: Sequence[Any], k: int,
                           rng: Any = None) -> list[Any]:
    """Binary tournaments on NSGA-II's crowded comparison (front rank, then crowding).

    The lower non-domination rank wins; between equal ranks, the larger crowding
    distance (``fitness.crowding_dist``, set by ``deap.tools.selNSGA2``; 0 if absent).
    Unlike ``deap.tools.selTournamentDCD`` it accepts any ``k`` and draws from ``rng``.

    Parameters
    ----------
    individuals : sequence
        The pool, each with a valid fitness; must not be empty (ValueError). Not
        changed.
    k : int
        Number of tournaments (and of individuals returned), an integer >= 0.
    rng : numpy.random.Generator, random.Random, numpy.random.RandomState or None
        Random source; None (the default) and Python's ``random`` module draw from
        ``random``, DEAP's source, and ``numpy.random`` from numpy's global state (each
        seeds a new Generator from one draw per call). A plain int seed is refused.

    Returns
    -------
    list
        The ``k`` winners (references), in draw order; ties go to the first drawn.
    """
    from deap.tools import sortNondominated

    k = check_int("k", k, minimum=0)
    if not individuals:
        raise ValueError("individuals must not be empty")
    check_evaluated(individuals)
    rng = numpy_rng(rng)  # after the checks: it may draw from Python's random
    pool = list(individuals)
    rank = {}
    for r, front in enumerate(sortNondominated(pool, len(pool))):
        for ind in front:
            rank[id(ind)] = r
    pairs = rng.integers(len(pool), size=(k, 2))
    out = []
    for a, b in pairs:
        x, y = pool[a], pool[b]
        kx = (rank[id(x)], -getattr(x.fitness, "crowding_dist", 0.0))
        ky = (rank[id(y)], -getattr(y.fitness, "crowding_dist", 0.0))
        out.append(y if ky < kx else x)
    return out
