"""Mutation: cluster means (supplement S-II, Eqs. S-1 to S-5) and covariances (III-E2, S-I.B).

Every operator follows DEAP's convention: it changes the individual in place (here by
replacing genes, which are immutable) and returns a one-element tuple,
``o, = toolbox.mutate(o)``. Fitness invalidation is left to the algorithm. Randomness
comes only from the ``rng`` passed in (a ``numpy.random.Generator``; by default None,
Python's ``random``, DEAP's source). `mutate_many`,
for loops that mutate a whole generation, changes each individual of a sequence in place
and returns them in a new list: the result of `mutate` on each in turn, bit for bit (with a
Generator: a legacy source such as ``random`` seeds one Generator per call, see below).

Mean operators act on one cluster slot ``cluster`` (index i) of the individual; the
draws are made in the order documented on each operator, so hand-computed cases can be
checked with a generator of known output.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from hawks_deap._util.threads import blas_thread_limit
from hawks_deap._util.validation import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_probability,
)
from hawks_deap.genome.genotype import Genotype, Layout
from hawks_deap.genome.initialization import haar_from_normals, rotation_powers, rotation_product
from hawks_deap.genome.products import libm_elementwise
from hawks_deap.operators._rng import numpy_rng
from hawks_deap.operators.selection import check_same_layout

__all__ = [
    "MEAN_CONTEXT",
    "MEAN_MUTATIONS",
    "mean_needs",
    "check_mutation_options",
    "mean_context",
    "resolve_mean_mutation",
    "mut_mean_gaussian",
    "mut_mean_rails",
    "mut_mean_pso",
    "mut_mean_pso_informed",
    "mut_mean_de",
    "mut_cov_haar",
    "mutate",
    "mutate_many",
]


def _check_weights(low: float = 0.0, high: float = 1.0) -> None:
    check_float("low", low)
    check_float("high", high)
    if low > high:
        raise ValueError(f"low must be <= high, got low={low:g}, high={high:g}")


def _check_cluster(individual: Genotype, cluster: object, min_clusters: int = 1,
                   who: str = "this mean mutation") -> int:
    """``cluster`` as an index into ``individual`` (a negative one would wrap silently).

    Every operator checks its arguments before `numpy_rng`, which may draw from Python's
    ``random``: a refused call leaves the caller's stream as it was.
    """
    if len(individual) < min_clusters:
        raise ValueError(f"{who} needs at least {min_clusters} clusters, got {len(individual)}")
    return check_int("cluster", cluster, minimum=0, maximum=len(individual) - 1)


def _other_cluster(individual: Genotype, cluster: int, rng: np.random.Generator) -> int:
    """A cluster index drawn uniformly from {0..K-1} minus {cluster} (K >= 2 checked)."""
    n = len(individual)
    j = int(rng.integers(n - 1))
    return j + (j >= cluster)


def _set_mean(individual: Genotype, cluster: int, mean: np.ndarray) -> tuple[Genotype]:
    individual[cluster] = individual[cluster].with_mean(mean)
    return (individual,)


def mut_mean_gaussian(individual: Genotype, cluster: int, rng: Any = None, *,
                      scale: float = 1.0, dims: str = "all") -> tuple[Genotype]:
    """The original HAWKS operator: ``mu' ~ N(mu, s)`` (Eq. S-1).

    Parameters
    ----------
    individual : Genotype
        The individual, changed in place.
    cluster : int
        Slot i of the cluster to move.
    rng : numpy.random.Generator, random.Random or None
        Random source; None (the default) draws from Python's ``random``, DEAP's source.
    scale : float
        Standard deviation of the step in each moved coordinate (HAWKS 0.2.0's ``scale``,
        default 1.0).
    dims : {"all", "each", "one"}
        Which coordinates move, each by an independent normal step. ``"all"``: every
        coordinate, as Eq. S-1 is written (one draw of ``normal(mean, scale)``).
        ``"each"``: each coordinate with probability 1/D, as HAWKS 0.2.0 runs it by default
        (``mut_args_mean.random.dims = "each"``; neither TEVC config uses this operator; one
        coordinate on average, none in about a third of the calls when D is large); the
        draws go coordinate by coordinate, ``random()`` then, when it is below 1/D,
        ``normal``, in HAWKS' order. ``"one"``: exactly one coordinate, drawn uniformly.
        The default is the equation's: in 50-D, ``"each"`` moves a mean about sqrt(50)
        times less per call, which is what the supplement's "the original operator is
        slow in 50-D" (Fig. S-4c) measures (BENCHMARKS.md, the operator study).
    """
    cluster = _check_cluster(individual, cluster)
    _gaussian_options(scale=scale, dims=dims)
    rng = numpy_rng(rng)  # after the checks: it may draw from Python's random
    mean = individual[cluster].mean
    if dims == "all":
        new = rng.normal(mean, scale)
    elif dims == "each":
        new = mean.copy()
        p = 1.0 / mean.shape[0]
        for d in range(mean.shape[0]):
            if rng.random() < p:
                new[d] = float(rng.normal(mean[d], scale))
    else:
        new = mean.copy()
        d = int(rng.integers(mean.shape[0]))
        new[d] = rng.normal(mean[d], scale)
    return _set_mean(individual, cluster, new)


def _gaussian_options(*, scale: float = 1.0, dims: str = "all") -> None:
    check_float("scale", scale, low=0.0)
    check_choice("dims", dims, ("all", "each", "one"))


def mut_mean_rails(individual: Genotype, cluster: int, rng: Any = None, *,
                   low: float = 0.0, high: float = 1.0) -> tuple[Genotype]:
    """Move along the line to another cluster ("rails", Eq. S-2).

    ``mu' = mu_i + w (mu_n - mu_i)`` if ``p <= 0.5`` else ``mu_i - w (mu_n - mu_i)``, with
    n uniform over the other clusters, ``w ~ U(low, high)`` and ``p ~ U(0, 1)``, drawn in
    the order n, w, p.

    Parameters
    ----------
    individual : Genotype
        Changed in place: gene ``cluster`` is replaced by a new one.
    cluster : int
        Slot i of the cluster to move: an integer in [0, K - 1] (negatives are
        refused). Needs K >= 2 (ValueError otherwise).
    rng : numpy.random.Generator, random.Random, numpy.random.RandomState or None
        Random source; None (the default) and Python's ``random`` module draw from
        ``random``, DEAP's source, and ``numpy.random`` from numpy's global state (each
        seeds a new Generator from one draw per call). A plain int seed is refused.
    low, high : float
        Bounds of the uniform weights (default 0 and 1): finite, with ``low <= high``.

    Returns
    -------
    tuple of Genotype
        ``(individual,)``, as DEAP's mutations return.
    """
    cluster = _check_cluster(individual, cluster, 2)
    _check_weights(low, high)
    rng = numpy_rng(rng)
    n = _other_cluster(individual, cluster, rng)
    w = rng.uniform(low, high)
    p = rng.random()
    mu = individual[cluster].mean
    step = w * (individual[n].mean - mu)
    return _set_mean(individual, cluster, mu + step if p <= 0.5 else mu - step)


def _check_pso(individual: Genotype, cluster: object, global_mean: object, low: float,
               high: float) -> tuple[int, np.ndarray]:
    """The checked cluster and ``global_mean`` of the two PSO operators."""
    cluster = _check_cluster(individual, cluster, 2)
    _check_weights(low, high)
    global_mean = np.asarray(global_mean, dtype=float)
    if global_mean.shape != individual[cluster].mean.shape:
        raise ValueError(f"global_mean must have shape {individual[cluster].mean.shape}, "
                         f"got {global_mean.shape}")
    return cluster, global_mean


def _pso_step(individual: Genotype, cluster: int, rng: np.random.Generator,
              global_mean: np.ndarray, low: float, high: float) -> np.ndarray:
    # (arguments checked by the two public PSO operators that call it: `_check_pso`)
    mu = individual[cluster].mean
    n = _other_cluster(individual, cluster, rng)
    w1, w2 = rng.uniform(low, high, size=2)
    return w1 * (individual[n].mean - mu) + w2 * (global_mean - mu)


def mut_mean_pso(individual: Genotype, cluster: int, rng: Any = None, *,
                 global_mean: np.ndarray, low: float = 0.0,
                 high: float = 1.0) -> tuple[Genotype]:
    """PSO-random mean mutation (Eq. S-3, paper Eq. 7).

    ``step = w1 (mu_n - mu_i) + w2 (mu_bar - mu_i)``; ``mu' = mu_i + step`` if
    ``p <= 0.5`` else ``mu_i - step``. ``mu_bar`` is the mean of all data points of the
    individual (not of the cluster means; see `hawks_deap.genome.genotype.Layout.data_mean`), n is
    uniform over the other clusters, ``w1, w2 ~ U(low, high)``, ``p ~ U(0, 1)``; drawn in
    the order n, (w1, w2), p.

    Parameters
    ----------
    individual : Genotype
        Changed in place: gene ``cluster`` is replaced by a new one.
    cluster : int
        Slot i of the cluster to move: an integer in [0, K - 1] (negatives are
        refused). Needs K >= 2 (ValueError otherwise).
    rng : numpy.random.Generator, random.Random, numpy.random.RandomState or None
        Random source; None (the default) and Python's ``random`` module draw from
        ``random``, DEAP's source, and ``numpy.random`` from numpy's global state (each
        seeds a new Generator from one draw per call). A plain int seed is refused.
    global_mean : array-like of shape (D,)
        ``mu_bar``, required (`mutate` supplies it from its ``layout``).
    low, high : float
        Bounds of the uniform weights (default 0 and 1): finite, with ``low <= high``.

    Returns
    -------
    tuple of Genotype
        ``(individual,)``, as DEAP's mutations return.
    """
    cluster, global_mean = _check_pso(individual, cluster, global_mean, low, high)
    rng = numpy_rng(rng)
    step = _pso_step(individual, cluster, rng, global_mean, low, high)
    p = rng.random()
    mu = individual[cluster].mean
    return _set_mean(individual, cluster, mu + step if p <= 0.5 else mu - step)


def mut_mean_pso_informed(individual: Genotype, cluster: int, rng: Any = None, *,
                          global_mean: np.ndarray, index_value: float, target: float,
                          higher_is_better: bool = True, low: float = 0.0,
                          high: float = 1.0) -> tuple[Genotype]:
    """PSO-informed mean mutation (Eq. S-4).

    As `mut_mean_pso`, but the direction comes from the individual's current index
    value: towards the others (``mu_i + step``) when the clusters are better separated
    than the target asks, away (``mu_i - step``) otherwise. For the silhouette (and
    any index where higher is better) that is Eq. S-4 as written: towards when
    ``s_all > s_t``, away when ``s_all <= s_t``. For an index where lower is better
    (Davies-Bouldin, beta_CV, connectivity) the comparison is reversed: towards when
    ``s_all < s_t``, away when ``s_all >= s_t`` (Eq. S-4 read literally would move such
    an index away from its target). Draws: n, (w1, w2).

    Parameters
    ----------
    individual : Genotype
        Changed in place: gene ``cluster`` is replaced by a new one.
    cluster : int
        Slot i of the cluster to move: an integer in [0, K - 1] (negatives are
        refused). Needs K >= 2 (ValueError otherwise).
    rng : numpy.random.Generator, random.Random, numpy.random.RandomState or None
        Random source; None (the default) and Python's ``random`` module draw from
        ``random``, DEAP's source, and ``numpy.random`` from numpy's global state (each
        seeds a new Generator from one draw per call). A plain int seed is refused.
    global_mean : array-like of shape (D,)
        ``mu_bar``, as in `mut_mean_pso` (required).
    index_value, target : float
        ``s_all`` and ``s_t``, finite, required (`mutate` supplies them: the
        individual's last index value, and its ``target`` argument).
    higher_is_better : bool
        Whether a higher value of the index means better separated clusters (default
        True, the silhouette; `mutate` supplies its own argument, which a problem sets
        from its index's `hawks_deap.metrics.MetricInfo`).
    low, high : float
        Bounds of the uniform weights (default 0 and 1): finite, with ``low <= high``.

    Returns
    -------
    tuple of Genotype
        ``(individual,)``, as DEAP's mutations return.
    """
    check_float("index_value", index_value)
    check_float("target", target)
    check_bool("higher_is_better", higher_is_better)
    cluster, global_mean = _check_pso(individual, cluster, global_mean, low, high)
    rng = numpy_rng(rng)
    step = _pso_step(individual, cluster, rng, global_mean, low, high)
    mu = individual[cluster].mean
    separated = index_value > target if higher_is_better else index_value < target
    return _set_mean(individual, cluster, mu + step if separated else mu - step)


def mut_mean_de(individual: Genotype, cluster: int, rng: Any = None, *,
                F: float = 1.0) -> tuple[Genotype]:  # noqa: N803 - the DE literature's name
    """DE-inspired mean mutation (Eq. S-5): ``mu' = mu_i + F (mu_r1 - mu_r2)``.

    i, r1, r2 are distinct (needs K >= 3); (r1, r2) is an ordered pair drawn uniformly
    without replacement from the other clusters. The supplement uses F = 1.

    Parameters
    ----------
    individual : Genotype
        Changed in place: gene ``cluster`` is replaced by a new one.
    cluster : int
        Slot i of the cluster to move: an integer in [0, K - 1] (negatives are
        refused). Needs K >= 3 (ValueError otherwise).
    rng : numpy.random.Generator, random.Random, numpy.random.RandomState or None
        Random source; None (the default) and Python's ``random`` module draw from
        ``random``, DEAP's source, and ``numpy.random`` from numpy's global state (each
        seeds a new Generator from one draw per call). A plain int seed is refused.
    F : float
        Differential weight in [0, 2] (default 1.0, the supplement's): the range of
        classical DE (Storn and Price). The supplement calls F "a constant factor in
        the range [0, ...]"; our copy of its text lost the upper digit.

    Returns
    -------
    tuple of Genotype
        ``(individual,)``, as DEAP's mutations return.
    """
    cluster = _check_cluster(individual, cluster, _DE_MIN_CLUSTERS, who="mut_mean_de")
    _de_options(F=F)
    rng = numpy_rng(rng)
    k = len(individual)
    others = np.delete(np.arange(k), cluster)
    r1, r2 = rng.choice(others, size=2, replace=False)
    mu = individual[cluster].mean
    return _set_mean(individual, cluster, mu + F * (individual[r1].mean - individual[r2].mean))


def _de_options(*, F: float = 1.0) -> None:  # noqa: N803
    check_float("F", F, low=0.0, high=2.0)


def mut_cov_haar(individual: Genotype, cluster: int, rng: Any = None, *,
                 power: float = 0.3, alpha: float = 3.0) -> tuple[Genotype]:
    """Rotate and rescale a cluster's covariance, keeping its determinant (III-E2, S-I.B).

    The rotation becomes ``Q^power R`` with Q drawn from the Haar measure on SO(D) and
    raised to the fractional ``power`` (`hawks_deap.genome.initialization.rotation_power`: the
    result is a proper rotation). The variances are scaled by ``exp(x_i - 1/D)`` with
    ``x ~ Dirichlet(alpha, ..., alpha)``; since ``sum x_i = 1`` the product of the factors
    is 1 and the determinant is preserved. Draws: Q, then x.

    Parameters
    ----------
    individual : Genotype
        Changed in place: gene ``cluster`` is replaced by a new one.
    cluster : int
        Slot i of the cluster to reshape: an integer in [0, K - 1] (negatives are
        refused).
    rng : numpy.random.Generator, random.Random, numpy.random.RandomState or None
        Random source; None (the default) and Python's ``random`` module draw from
        ``random``, DEAP's source, and ``numpy.random`` from numpy's global state (each
        seeds a new Generator from one draw per call). A plain int seed is refused.
    power : float
        Exponent of the Haar draw (``Q^power``), finite and >= 0 (default 0.3).
    alpha : float
        Dirichlet concentration, finite and > 0 (default 3.0); larger values keep the
        variances closer to their current ratios.

    Returns
    -------
    tuple of Genotype
        ``(individual,)``, as DEAP's mutations return.
    """
    cluster = _check_cluster(individual, cluster)
    power, alpha = _cov_options(power=power, alpha=alpha)
    rng = numpy_rng(rng)
    _apply_cov([_draw_cov(individual, cluster, rng, alpha)], power)
    return (individual,)


def _cov_options(*, power: float = 0.3, alpha: float = 3.0) -> tuple[float, float]:
    """`mut_cov_haar`'s options, validated (unknown names raise TypeError)."""
    check_float("power", power, low=0.0)
    check_float("alpha", alpha, low=0.0, low_open=True)
    return power, alpha


class _CovDraw(NamedTuple):
    """The draws of one covariance mutation, applied later by `_apply_cov`."""

    individual: Genotype
    cluster: int
    gene: Any
    normals: np.ndarray  # G of the Haar draw (nothing is drawn in one dimension)
    x: np.ndarray  # the Dirichlet draw


def _draw_cov(individual: Genotype, cluster: int, rng: np.random.Generator,
              alpha: float) -> _CovDraw:
    """The draws of `mut_cov_haar` (Q's normals, then x), in its order."""
    gene = individual[cluster]
    d = gene.n_dims
    normals = rng.normal(size=(d, d)) if d > 1 else np.ones((1, 1))
    return _CovDraw(individual, cluster, gene, normals, rng.dirichlet(np.full(d, alpha)))


def _apply_cov(draws: Sequence[_CovDraw], power: float) -> None:
    """Finish covariance mutations from their draws, in the order given.

    The rotations of each dimension come from one stacked computation, with the bits of
    one-by-one `mut_cov_haar` calls.
    """
    by_dims: dict[int, list[_CovDraw]] = {}
    for draw in draws:
        by_dims.setdefault(draw.gene.n_dims, []).append(draw)
    with blas_thread_limit(1):  # small matrices: threads only cost
        for d, group in by_dims.items():
            q = rotation_powers(haar_from_normals(np.stack([g.normals for g in group])),
                                power)
            for qi, (individual, cluster, gene, _, x) in zip(q, group, strict=True):
                variances = gene.variances * libm_elementwise(math.exp, x - 1.0 / d)
                rotation = rotation_product(qi, gene.rotation)  # BLAS-free in 2-D
                individual[cluster] = gene.with_shape(variances, rotation)


# What a mean operator needs of the layout, declared on the operator (read by `mean_needs`:
# the toolbox and the run settings check it before any work): the least K, and why.
_DE_MIN_CLUSTERS = 3
mut_mean_de.min_clusters = _DE_MIN_CLUSTERS  # type: ignore[attr-defined]
mut_mean_de.min_clusters_reason = "it combines three other clusters' means"  # type: ignore[attr-defined]

#: Mean operators by name, for `mutate` and ``make_toolbox(mean_mutation=...)``.
MEAN_MUTATIONS: Mapping[str, Callable[..., tuple[Genotype]]] = {
    "gaussian": mut_mean_gaussian,
    "rails": mut_mean_rails,
    "pso": mut_mean_pso,
    "pso-informed": mut_mean_pso_informed,
    "de": mut_mean_de,
}

#: Keywords a mean operator may declare, that the mutation supplies from its context:
#: the mean of all data points, and the individual's index value with its target and
#: the index's direction.
MEAN_CONTEXT = ("global_mean", "index_value", "target", "higher_is_better")


#: The checks of the built-in mean operators' options, with the operators' defaults
#: (each operator runs its own check at every call).
_OPTION_CHECKS: tuple[tuple[Callable[..., Any], Callable[..., None]], ...] = (
    (mut_mean_gaussian, _gaussian_options), (mut_mean_rails, _check_weights),
    (mut_mean_pso, _check_weights), (mut_mean_pso_informed, _check_weights),
    (mut_mean_de, _de_options))


def _check_not_supplied(mean_kwargs: Mapping[str, Any]) -> None:
    supplied = sorted(set(mean_kwargs) & set(MEAN_CONTEXT))
    if supplied:
        raise ValueError(f"mean_kwargs may not set {', '.join(map(repr, supplied))}: the "
                         "mutation passes it to the operator")


def _check_options_once(mean_mutation: str | Callable[..., Any],
                        mean_kwargs: Mapping[str, Any]) -> None:
    """`check_mutation_options` of ``mean_kwargs``, memoised by operator and options.

    DEAP's loops call `mutate` once per individual, and the full check (the operator's
    signature bound to the options) costs more than a mutation; options that cannot be
    hashed (arrays) are checked at every call (as `mean_context` does).
    """
    if not isinstance(mean_kwargs, Mapping):
        check_mutation_options(mean_mutation, mean_kwargs)  # (raises its TypeError)
    options = tuple(sorted(mean_kwargs.items()))
    try:
        _checked_options(mean_mutation, options)
    except TypeError:  # unhashable (or refused: the same error again)
        _checked_options.__wrapped__(mean_mutation, options)


@lru_cache(maxsize=256)
def _checked_options(mean_mutation: str | Callable[..., Any],
                     options: tuple[tuple[str, Any], ...]) -> None:
    check_mutation_options(mean_mutation, dict(options))


def check_mutation_options(mean_mutation: str | Callable[..., Any],
                           mean_kwargs: Mapping[str, Any] | None = None,
                           cov_kwargs: Mapping[str, Any] | None = None) -> None:
    """Refuse, before any work, options the operators would refuse at their first call.

    ``mean_kwargs`` must be keywords the mean operator takes, other than those the
    mutation supplies (`MEAN_CONTEXT`); a built-in operator's values are checked with
    its defaults for the rest (e.g. ``low <= high``). ``cov_kwargs`` are
    `mut_cov_haar`'s ``power`` and ``alpha``.

    Parameters
    ----------
    mean_mutation : str or callable
        The mean operator, as `resolve_mean_mutation` accepts it.
    mean_kwargs : mapping, optional
        Options of the mean operator (None: none).
    cov_kwargs : mapping, optional
        Options of `mut_cov_haar`: ``power`` and/or ``alpha`` (None: none).

    Raises
    ------
    TypeError, ValueError
        Naming ``mean_kwargs`` or ``cov_kwargs``, the operator and the option.
    """
    op = resolve_mean_mutation(mean_mutation)
    for label, given in (("mean_kwargs", mean_kwargs), ("cov_kwargs", cov_kwargs)):
        if given is not None and not isinstance(given, Mapping):
            raise TypeError(f"{label} must be a mapping of option names to values, or None, "
                            f"got {given!r}")
    options = dict(mean_kwargs or {})
    name = mean_mutation if isinstance(mean_mutation, str) else getattr(op, "__name__", op)
    _check_not_supplied(options)
    try:
        signature = inspect.signature(op)
    except ValueError:  # no signature (a builtin): trust it
        signature = None
    try:
        if signature is not None:
            signature.bind_partial(None, 0, None, **options)
        check = next((c for o, c in _OPTION_CHECKS if o is op), None)
        if check is not None:
            check(**options)
    except (TypeError, ValueError) as error:
        raise type(error)(f"mean_kwargs {options} for mean_mutation {name!r}: "
                          f"{error}") from None
    try:
        _cov_options(**dict(cov_kwargs or {}))
    except (TypeError, ValueError) as error:
        raise type(error)(f"cov_kwargs {dict(cov_kwargs or {})} (mut_cov_haar's power, "
                          f"alpha): {error}") from None


def resolve_mean_mutation(mean_mutation: str | Callable[..., Any]) -> Callable[..., Any]:
    """The mean operator named ``mean_mutation`` (see `MEAN_MUTATIONS`), or a callable.

    A callable is a researcher's own operator with the signature of the ``mut_mean_*``
    building blocks: ``op(individual, cluster, rng, **options) -> (individual,)``,
    replacing the mean of gene ``cluster``; if it declares any of `MEAN_CONTEXT` as
    keyword parameters, the mutation passes them (``global_mean``: the mean of all data
    points, which needs the layout; ``index_value`` and ``target``: the individual's
    last index value and the problem's target, Index mode only).

    Parameters
    ----------
    mean_mutation : {"gaussian", "rails", "pso", "pso-informed", "de"} or callable
        A name of `MEAN_MUTATIONS`, or an operator that accepts
        ``(individual, cluster, rng)`` positionally.

    Returns
    -------
    callable
        The operator (a callable is returned as it is).

    Raises
    ------
    ValueError
        For an unknown name.
    TypeError
        For anything else that is not callable, or a callable that cannot take
        ``(individual, cluster, rng)``.
    """
    if isinstance(mean_mutation, str):
        return MEAN_MUTATIONS[check_choice("mean_mutation", mean_mutation, MEAN_MUTATIONS)]
    if not callable(mean_mutation):
        raise TypeError(f"mean_mutation must be one of {', '.join(map(repr, MEAN_MUTATIONS))}"
                        f" or a callable op(individual, cluster, rng, **options), got "
                        f"{mean_mutation!r}")
    try:
        inspect.signature(mean_mutation).bind_partial(None, 0, None)
    except TypeError as error:
        raise TypeError(f"mean_mutation {mean_mutation!r} must accept (individual, cluster, "
                        f"rng): {error}") from None
    except ValueError:  # no signature (a builtin): trust it
        pass
    return mean_mutation


def mean_needs(mean_mutation: str | Callable[..., Any]) -> tuple[bool, int, str]:
    """What a mean operator needs: a target (Index mode), and at least how many clusters.

    The one statement of these rules: `hawks_deap.make_toolbox` and the run settings
    (`hawks_deap.settings.model.RunSettings`) both ask it. An operator needs a target
    when it declares ``index_value`` or ``target`` (`mean_context`), and at least K
    clusters when it has a ``min_clusters`` attribute (with ``min_clusters_reason``).

    Parameters
    ----------
    mean_mutation : str or callable
        A name of `MEAN_MUTATIONS` or a mean operator.

    Returns
    -------
    tuple of (bool, int, str)
        Whether it needs a target, the least K (1 when it declares none), and why
        (empty when it says nothing).

    Examples
    --------
    >>> mean_needs("de")
    (False, 3, "it combines three other clusters' means")
    >>> mean_needs("pso-informed")[0]
    True
    """
    op = resolve_mean_mutation(mean_mutation)
    needs_target = bool(mean_context(op) & {"index_value", "target"})
    return (needs_target, int(getattr(op, "min_clusters", 1)),
            str(getattr(op, "min_clusters_reason", "")))


def mean_context(op: Callable[..., Any]) -> frozenset[str]:
    """Which of `MEAN_CONTEXT` a mean operator declares.

    Memoised by operator (DEAP's loops call `mutate` once per individual); an operator
    that cannot be hashed is inspected at each call.

    Parameters
    ----------
    op : callable
        A mean operator (`resolve_mean_mutation`'s result).

    Returns
    -------
    frozenset of str
        The names of `MEAN_CONTEXT` among ``op``'s parameters (empty when its signature
        cannot be read).
    """
    try:
        return _declared_context(op)
    except TypeError:  # an unhashable callable
        return _declared_context.__wrapped__(op)


@lru_cache(maxsize=256)
def _declared_context(op: Callable[..., Any]) -> frozenset[str]:
    try:
        params = inspect.signature(op).parameters
    except ValueError:
        return frozenset()
    return frozenset(name for name in MEAN_CONTEXT if name in params)


def _index_value(individual: Genotype, mean_mutation: object) -> float:
    """The individual's index value: from its record, or the last one it had."""
    fitness = individual.fitness
    if not hasattr(fitness, "record"):  # a plain deap.base.Fitness: refused by name
        cls = type(fitness).__name__
        raise TypeError(
            f"mean_mutation={getattr(mean_mutation, '__name__', mean_mutation)!r} reads the "
            f"individual's evaluation record (its index value), which {cls} (a plain "
            "deap.base.Fitness) does not keep: use hawks_deap.genome.genotype.IndexFitness (the "
            f"problem's fitness class), or creator.create({cls!r}, "
            "hawks_deap.genome.genotype.RecordFitness, weights=(-1.0,))")
    for record in (fitness.record, getattr(fitness, "last_record", {})):
        if "index" in record:
            return record["index"]
    raise ValueError("this mean mutation needs the individual's index value, but it has "
                     "never been evaluated: evaluate the population (toolbox.evaluate) "
                     "before the first mutation")


def mutate(individual: Genotype, rng: Any = None, *,
           mean_mutation: str | Callable[..., Any] = "pso",
           p_mean: float | None = None, p_cov: float | None = None,
           layout: Layout | None = None, target: float | None = None,
           higher_is_better: bool = True,
           mean_kwargs: Mapping[str, Any] | None = None,
           cov_kwargs: Mapping[str, Any] | None = None) -> tuple[Genotype]:
    """HAWKS mutation: each cluster's mean and covariance mutated independently.

    Parameters
    ----------
    individual : Genotype
        Changed in place; returned as ``(individual,)``.
    rng : numpy.random.Generator, random.Random, the random module or None
        Random source; None (the default) and Python's ``random`` seed a Generator with
        bits drawn from ``random`` (DEAP's source) at each call.
    mean_mutation : {"gaussian", "rails", "pso", "pso-informed", "de"} or callable
        The mean operator (see `MEAN_MUTATIONS`), or a researcher's own operator with
        the signature of the ``mut_mean_*`` building blocks (`resolve_mean_mutation`).
    p_mean, p_cov : float, optional
        Per-cluster probabilities of a mean / covariance mutation (default 1/K each).
    layout : Layout, optional
        Needed by "pso" and "pso-informed" for the mean of all data points, computed
        once from the individual as it was before this mutation.
    target : float, optional
        Needed by "pso-informed", with the individual's index value read from its
        evaluation record (``individual.record["index"]``; after DEAP's ``varAnd`` has
        deleted a crossed child's fitness, from the record it had,
        ``individual.fitness.last_record``).
    higher_is_better : bool
        For "pso-informed": whether a higher value of the target's index means better
        separated clusters (default True: the silhouette; False for Davies-Bouldin,
        beta_CV and connectivity, as `hawks_deap.metrics.get(name).higher_is_better`
        says). A toolbox from `hawks_deap.make_toolbox` sets it from its problem.
    mean_kwargs, cov_kwargs : mapping, optional
        Extra keyword arguments of the mean operator and of `mut_cov_haar`.

    Notes
    -----
    Draws, for each cluster i in order: whether to move its mean and whether to
    reshape it (one ``rng.random((K, 2))`` call first), then the mean operator's draws,
    then `mut_cov_haar`'s.
    """
    mutate_many([individual], rng, mean_mutation=mean_mutation, p_mean=p_mean,
                p_cov=p_cov, layout=layout, target=target, higher_is_better=higher_is_better,
                mean_kwargs=mean_kwargs, cov_kwargs=cov_kwargs)
    return (individual,)


def mutate_many(individuals: Sequence[Genotype], rng: Any = None, *,
                mean_mutation: str | Callable[..., Any] = "pso", p_mean: float | None = None,
                p_cov: float | None = None, layout: Layout | None = None,
                target: float | None = None, higher_is_better: bool = True,
                mean_kwargs: Mapping[str, Any] | None = None,
                cov_kwargs: Mapping[str, Any] | None = None) -> list[Genotype]:
    """`mutate` each individual in turn: the same draws and the same genes, faster.

    The result is that of ``for ind in individuals: mutate(ind, rng, ...)``, bit for bit
    (tested) when ``rng`` is a numpy Generator; a legacy source (``random``,
    ``RandomState``) seeds one Generator per call, here once for the batch, so the draws
    then differ from the loop's. It is faster because the covariance mutations' linear
    algebra (QR, determinant and symmetric eigendecomposition of small D x D matrices,
    mostly call overhead) runs once for the whole batch, stacked: no draw depends on a
    rotation, so the rotations can wait until every draw is made.

    Parameters
    ----------
    individuals : sequence of Genotype
        Each changed in place, in order (one may appear more than once: its earlier
        mutations are finished before the next starts). On an error, those before the
        failing one are fully mutated. A one-shot iterator (e.g. ``map(toolbox.clone,
        pop)``) is mutated but the returned list is then empty: pass a list.
    rng : numpy.random.Generator, random.Random, numpy.random.RandomState or None
        Random source; None (the default) and Python's ``random`` module draw from
        ``random``, DEAP's source, and ``numpy.random`` from numpy's global state (each
        seeds a new Generator from one draw per call). A plain int seed is refused.
    mean_mutation : {"gaussian", "rails", "pso", "pso-informed", "de"} or callable
        As in `mutate` (default ``"pso"``).
    p_mean, p_cov : float, optional
        Per-cluster probabilities in [0, 1] (default 1/K, K the individual's).
    layout : Layout, optional
        Required when the mean operator takes ``global_mean`` ("pso", "pso-informed").
    target : float, optional
        Required when it takes ``index_value`` or ``target`` ("pso-informed").
    higher_is_better : bool
        As in `mutate` (default True).
    mean_kwargs, cov_kwargs : mapping, optional
        As in `mutate`; ``cov_kwargs`` may hold only ``power`` and ``alpha``.

    Returns
    -------
    list of Genotype
        A new list of the same individuals, changed in place.
    """
    op = resolve_mean_mutation(mean_mutation)
    context = mean_context(op)
    if mean_kwargs:  # all of them, before any draw: an operator may not run on every call
        _check_options_once(mean_mutation, mean_kwargs)
    higher_is_better = check_bool("higher_is_better", higher_is_better)
    p_mean = None if p_mean is None else check_probability("p_mean", p_mean)
    p_cov = None if p_cov is None else check_probability("p_cov", p_cov)
    power, alpha = _cov_options(**(cov_kwargs or {}))
    if "global_mean" in context and layout is None:
        raise ValueError(f"mean_mutation={mean_mutation!r} needs the run's layout "
                         "(layout=...) for the mean of all data points")
    if {"index_value", "target"} & context and target is None:
        raise ValueError(f"mean_mutation={mean_mutation!r} needs target=... (the problem's "
                         "target index value: Index mode)")
    rng = numpy_rng(rng)  # after the checks: it may draw from Python's random
    pending: list[_CovDraw] = []
    seen: set[int] = set()
    try:
        for individual in individuals:
            if id(individual) in seen:  # mutated again: its earlier changes come first
                _apply_cov(pending, power)
                pending, seen = [], set()
            seen.add(id(individual))
            if layout is not None:  # a fitness of another layout: its toolbox was made anew
                check_same_layout([individual], layout.key)
            k, kwargs = len(individual), dict(mean_kwargs or {})
            if "global_mean" in context:
                assert layout is not None  # checked above
                kwargs["global_mean"] = layout.data_mean(individual)
            if "index_value" in context:
                kwargs["index_value"] = _index_value(individual, mean_mutation)
            if "target" in context:
                kwargs["target"] = target
            if "higher_is_better" in context:
                kwargs["higher_is_better"] = higher_is_better
            pm = 1.0 / k if p_mean is None else p_mean
            pc = 1.0 / k if p_cov is None else p_cov
            draws = rng.random((k, 2))
            for i in range(k):
                if draws[i, 0] < pm:
                    op(individual, i, rng, **kwargs)
                if draws[i, 1] < pc:
                    pending.append(_draw_cov(individual, i, rng, alpha))
    finally:  # on an error too: the individuals before it are mutated in full
        _apply_cov(pending, power)
    return list(individuals)
