"""Registry of validity indices by name: kind, range, direction and aliases.

``get(name)`` resolves a canonical name or an alias (case-insensitive; ``-`` and spaces
read as ``_``) to a `MetricInfo`. Internal indices are called ``f(X, labels)`` and
external ones ``f(labels_true, labels_pred)``, options keyword-only. ``IndexProblem``
takes any internal index by name and ``VersusProblem`` any external one. Users add their
own indices with `register`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from hawks_deap._util.validation import check_bool, check_choice
from hawks_deap.metrics import external, internal, pairs

__all__ = ["KINDS", "MetricInfo", "available", "get", "register"]

KINDS = ("external", "internal")


@dataclass(frozen=True)
class MetricInfo:
    """A validity index and what is known about it.

    Attributes
    ----------
    name : str
        Canonical name (the function's name for built-in indices).
    function : callable
        ``f(labels_true, labels_pred) -> float`` (external) or ``f(X, labels) -> float``
        (internal), options keyword-only.
    kind : {"external", "internal"}
        External indices compare two labellings; internal ones score a labelling of data.
    bounds : tuple of float
        ``(low, high)``, the range of the index with its default options (``-inf`` /
        ``inf`` when unbounded). ``nan`` (undefined) values lie outside any range.
    higher_is_better : bool
        Direction of optimisation.
    aliases : tuple of str
        Other names `get` accepts.
    symmetric : bool
        For external indices, whether ``f(a, b) == f(b, a)``.
    description : str
        One line.
    """

    name: str
    function: Callable[..., float]
    kind: str
    bounds: tuple[float, float]
    higher_is_better: bool
    aliases: tuple[str, ...] = ()
    symmetric: bool = False
    description: str = ""

    def __call__(self, *args: object, **kwargs: object) -> float:
        """Call the index function."""
        return self.function(*args, **kwargs)

    @property
    def best(self) -> float:
        """The best value in range (``high`` if higher is better, else ``low``)."""
        return self.bounds[1] if self.higher_is_better else self.bounds[0]

    def in_bounds(self, value: float) -> bool:
        """Whether ``value`` lies in ``bounds`` (closed, up to rounding); ``False`` for nan.

        A finite bound is widened by 4 units in the last place of ``max(1, |bound|)``:
        an index computed as scikit-learn computes it may round past its bound (the
        normalised mutual information of two identical partitions is ``1 + 2.2e-16``
        there, and so here, which returns scikit-learn's values).

        Parameters
        ----------
        value : float
            A value of the index.

        Returns
        -------
        bool
            ``low - tol <= value <= high + tol``.
        """
        low, high = (b - s * 4 * math.ulp(max(1.0, abs(b))) if math.isfinite(b) else b
                     for b, s in zip(self.bounds, (1, -1), strict=True))
        return bool(low <= value <= high)


def _normalise(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


_METRICS: dict[str, MetricInfo] = {}


def _lookup() -> dict[str, str]:
    """Map of every accepted name (canonical and alias) to its canonical name."""
    table: dict[str, str] = {}
    for info in _METRICS.values():
        table[info.name] = info.name
        for alias in info.aliases:
            table[alias] = info.name
    return table


def register(name: str, function: Callable[..., float], *, kind: str,
             bounds: tuple[float, float], higher_is_better: bool,
             aliases: tuple[str, ...] | list[str] = (), symmetric: bool = False,
             description: str = "", overwrite: bool = False) -> MetricInfo:
    """Add a validity index to the registry and return its `MetricInfo`.

    Parameters
    ----------
    name : str
        Canonical name; stored lower-case with ``-`` and spaces as ``_``.
    function : callable
        ``f(labels_true, labels_pred) -> float`` (external) or ``f(X, labels) -> float``
        (internal).
    kind : {"external", "internal"}
        The calling convention.
    bounds : tuple of float
        ``(low, high)`` with ``low <= high``; use ``-inf`` / ``inf`` when unbounded.
    higher_is_better : bool
        Direction of optimisation.
    aliases : sequence of str
        Other names.
    symmetric : bool
        For external indices, whether swapping the labellings leaves the value unchanged.
    description : str
        One line; default the first line of the function's docstring.
    overwrite : bool
        Replace an index of the same canonical name (its names may then be reused).

    Returns
    -------
    MetricInfo
        The registered entry.

    Raises
    ------
    ValueError
        If ``kind`` is unknown, the bounds are not ordered, or a name or alias is
        already taken (without ``overwrite``).
    TypeError
        If ``function`` is not callable or ``higher_is_better`` is not a bool.
    """
    if not isinstance(name, str) or not _normalise(name):
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    key = _normalise(name)
    if not callable(function):
        raise TypeError(f"function must be callable, got {function!r}")
    check_choice("kind", kind, KINDS)
    higher_is_better = check_bool("higher_is_better", higher_is_better)
    overwrite = check_bool("overwrite", overwrite)
    symmetric = check_bool("symmetric", symmetric)
    if not isinstance(bounds, tuple | list) or len(bounds) != 2:
        raise ValueError(f"bounds must be a pair (low, high), got {bounds!r}")
    try:
        low, high = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be two real numbers, got {bounds!r}") from None
    if not low <= high:  # also rejects nan
        raise ValueError(f"bounds must satisfy low <= high, got {bounds!r}")
    if isinstance(aliases, str) or not all(isinstance(a, str) for a in aliases):
        raise TypeError(f"aliases must be a sequence of names, got {aliases!r}")
    alias_keys = tuple(dict.fromkeys(_normalise(a) for a in aliases if _normalise(a) != key))
    taken = _lookup()
    if overwrite and key in _METRICS:
        taken = {n: c for n, c in taken.items() if c != key}
    for candidate in (key, *alias_keys):
        if candidate in taken:
            raise ValueError(
                f"metric name {candidate!r} is already used by {taken[candidate]!r}; pass "
                "overwrite=True to replace an index of the same name"
            )
    if not description:
        doc = (getattr(function, "__doc__", None) or "").strip()
        description = doc.splitlines()[0] if doc else ""
    info = MetricInfo(name=key, function=function, kind=kind, bounds=(low, high),
                      higher_is_better=higher_is_better, aliases=alias_keys,
                      symmetric=bool(symmetric), description=description)
    _METRICS[key] = info
    return info


def get(name: str) -> MetricInfo:
    """The `MetricInfo` of an index by canonical name or alias.

    Parameters
    ----------
    name : str
        A canonical name or an alias, case-insensitive; ``-`` and spaces read as ``_``
        (surrounding whitespace ignored).

    Returns
    -------
    MetricInfo
        The registered entry.

    Raises
    ------
    ValueError
        For an unknown name, listing the valid names and suggesting the closest.
    TypeError
        If ``name`` is not a string.
    """
    if not isinstance(name, str):
        raise TypeError(f"metric name must be a string, got {name!r} ({type(name).__name__})")
    table = _lookup()
    key = _normalise(name)
    if key not in table:
        check_choice("metric", key, sorted(table))
    return _METRICS[table[key]]


def available(kind: str | None = None) -> list[str]:
    """Sorted canonical names of the registered indices, optionally of one ``kind``.

    Parameters
    ----------
    kind : {"external", "internal"} or None
        Only the indices of this kind; None (default) for all.

    Returns
    -------
    list of str
        The canonical names, sorted.

    Raises
    ------
    ValueError
        If ``kind`` is neither None nor a known kind.
    """
    if kind is not None:
        check_choice("kind", kind, KINDS)
    return sorted(n for n, info in _METRICS.items() if kind is None or info.kind == kind)


_INF = math.inf
_UNIT = (0.0, 1.0)
_EXTERNAL: list[tuple[Callable[..., float], tuple[float, float], bool, bool, tuple[str, ...]]] = [
    # function, bounds, higher_is_better, symmetric, aliases
    (external.purity, _UNIT, True, False, ()),
    (external.maximum_matching, _UNIT, True, True, ("matching", "max_matching")),
    (external.f_measure, _UNIT, True, False, ("fmeasure", "f_score")),
    (external.normalized_clustering_accuracy, (-1.0, 1.0), True, False,
     ("nca", "normalised_clustering_accuracy")),
    (external.conditional_entropy, (0.0, _INF), False, False, ("ce", "h_t_given_c")),
    (external.mutual_information, (0.0, _INF), True, True, ("mi", "mutual_info")),
    (external.normalized_mutual_information, _UNIT, True, True,
     ("nmi", "normalised_mutual_information")),
    (external.variation_of_information, (0.0, _INF), False, True, ("vi",)),
    (external.adjusted_mutual_information, (-1.0, 1.0), True, True,
     ("ami", "adjusted_mutual_info")),
    (external.homogeneity, _UNIT, True, False, ("homogeneity_score",)),
    (external.completeness, _UNIT, True, False, ("completeness_score",)),
    (external.v_measure, _UNIT, True, True, ("v", "v_measure_score")),
    (pairs.jaccard, _UNIT, True, True, ("jc", "jaccard_index")),
    (pairs.rand_index, _UNIT, True, True, ("rand", "ri")),
    (pairs.adjusted_rand_index, (-0.5, 1.0), True, True, ("ari", "adjusted_rand")),
    (pairs.fowlkes_mallows, _UNIT, True, True, ("fmi", "fm", "fowlkes_mallows_index")),
    (pairs.hubert_gamma, _UNIT, True, True, ("gamma", "hubert")),
    (pairs.normalized_hubert_gamma, (-1.0, 1.0), True, True,
     ("gamma_n", "normalized_hubert", "normalised_hubert_gamma")),
    (pairs.pair_sensitivity, _UNIT, True, False, ("csens", "sensitivity")),
    (pairs.pair_specificity, _UNIT, True, False, ("cspec", "specificity")),
    (pairs.pair_ppv, _UNIT, True, False, ("cppv", "ppv")),
    (pairs.pair_npv, _UNIT, True, False, ("cnpv", "npv")),
]
_HARMONIC_10 = sum(1.0 / j for j in range(1, 11))
_INTERNAL: list[tuple[Callable[..., float], tuple[float, float], bool, tuple[str, ...]]] = [
    (internal.silhouette, (-1.0, 1.0), True, ("sil", "silhouette_score")),
    (internal.davies_bouldin, (0.0, _INF), False, ("db", "dbi")),
    (internal.dunn, (0.0, _INF), True, ("di", "dunn_index")),
    (internal.beta_cv, (0.0, _INF), False, ("betacv",)),
    (internal.calinski_harabasz, (0.0, _INF), True, ("ch", "vrc", "variance_ratio")),
    (internal.connectivity, (0.0, _HARMONIC_10), False, ("conn",)),
]

for _f, _bounds, _higher, _symmetric, _aliases in _EXTERNAL:
    register(_f.__name__, _f, kind="external", bounds=_bounds, higher_is_better=_higher,
             aliases=_aliases, symmetric=_symmetric)
for _f, _bounds, _higher, _aliases in _INTERNAL:
    register(_f.__name__, _f, kind="internal", bounds=_bounds, higher_is_better=_higher,
             aliases=_aliases)
