"""Statistical comparison of clustering algorithms over datasets (HAWKS paper, section V).

The paper compares algorithms on each source of datasets (HAWKS, HK, QJ, SIPU, UCI, UKC)
as Demšar (2006, JMLR 7:1-30) recommends: the scores (ARI) of the k algorithms are
ranked on each of the N datasets, a Friedman test asks whether the average ranks
differ, and the two-tailed Nemenyi post-hoc test gives the *critical difference* that
two average ranks must reach to differ significantly (Fig. 4: CD diagrams, algorithms
joined by a bar when their average ranks differ by less than the CD).

- `friedman_nemenyi`: average ranks, the Friedman chi-square and its p-value, the
  Iman-Davenport F variant, Nemenyi's CD, pairwise p-values and the groups of
  algorithms not significantly different; a `FriedmanNemenyi` result.
- `friedman_control`: the same Friedman test, then every algorithm against a control
  (a new algorithm against the standard ones), Holm's or Bonferroni-Dunn's procedure;
  a `FriedmanControl` result.
- `nemenyi_critical_value`, `bonferroni_dunn_critical_value`: q_alpha of Demšar's
  Table 5a and 5b.
- `split_table`, `join_tables`: the rows of a performance table per source (one test
  per source) and back.
- `PAPER_FIG2_LOADINGS` and `loadings_beside_paper`: our instance space's PCA loadings
  printed beside those of the paper's Fig. 2 caption.

Ranks (Demšar, section 3.2.2): on each dataset the best score gets rank 1; tied scores
share the average of the ranks they span (1.5, 1.5 for two best). With average ranks
``R_j`` over N datasets and k algorithms, Friedman's statistic is

    chi2_F = 12 N / (k (k + 1)) [sum_j R_j^2 - k (k + 1)^2 / 4] / C,

    C = 1 - sum over datasets and groups of tied scores (t^3 - t) / (N k (k^2 - 1)),

chi-square with k - 1 degrees of freedom. C = 1 without ties (Demšar's formula); with
ties it is the usual correction (Hollander and Wolfe; `scipy.stats.friedmanchisquare`
computes the same value). Iman and Davenport's F = (N - 1) chi2_F / (N (k - 1) - chi2_F)
has an F(k - 1, (k - 1)(N - 1)) distribution. Nemenyi's critical difference is

    CD = q_alpha sqrt(k (k + 1) / (6 N)),   q_alpha = q_{1 - alpha}(k, inf) / sqrt(2),

q the studentized range distribution (`scipy.stats.studentized_range`).

Against a control c (Demšar, section 3.2.2), each other algorithm i has

    z_i = (R_i - R_c) / sqrt(k (k + 1) / (6 N)),   p_i = 2 (1 - Phi(abs(z_i))),

and the k - 1 p-values are adjusted: Holm's step-down procedure, with
p_(1) <= ... <= p_(k-1), gives p_(i) the adjusted value max_{j <= i} min(1, (k - j) p_(j))
(it rejects while p_(j) <= alpha / (k - j)); Bonferroni-Dunn's is min(1, (k - 1) p_i),
the same as comparing abs(R_i - R_c) with CD = q_alpha sqrt(k (k + 1) / (6 N)),
q_alpha = Phi^{-1}(1 - alpha / (2 (k - 1))).

Scores come as a `Table` or a pandas DataFrame (index: datasets, columns: algorithms),
a mapping ``{algorithm: scores}``, or a 2-D array with ``algorithms=``; names are kept.
With labelled scores, ``algorithms=`` selects and orders the columns compared.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hawks_deap._util.html import html_table
from hawks_deap._util.validation import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_names,
)
from hawks_deap.analysis.features import FEATURE_NAMES
from hawks_deap.analysis.table import Table

__all__ = [
    "CONTROL_METHODS",
    "PAPER_FIG2_LOADINGS",
    "FriedmanControl",
    "FriedmanNemenyi",
    "bonferroni_dunn_critical_value",
    "friedman_control",
    "friedman_nemenyi",
    "join_tables",
    "loadings_beside_paper",
    "nemenyi_critical_value",
    "split_table",
]


# --------------------------------------------------------------------------- the tests


def _friedman_lines(result: Any, digits: int, tail: str) -> list[str]:
    """The first lines of a report: the Friedman test's size, statistic and p-value."""
    k, n = result.n_algorithms, result.n_datasets
    best = "highest" if result.higher_is_better else "lowest"
    return [f"Friedman test over N = {n} datasets, k = {k} algorithms (rank 1 = {best} "
            "score)",
            f"  chi-square = {result.statistic:.{digits}f} (df {k - 1}), "
            f"p = {result.pvalue:.{digits}g}{tail}"]


def nemenyi_critical_value(n_algorithms: int, alpha: float = 0.05) -> float:
    """q_alpha of the two-tailed Nemenyi test (Demšar 2006, Table 5a).

    Parameters
    ----------
    n_algorithms : int
        k >= 2, the number of algorithms compared.
    alpha : float
        Significance level in (0, 1).

    Returns
    -------
    float
        ``studentized_range.ppf(1 - alpha, k, inf) / sqrt(2)``: 1.960, 2.344, 2.569 ...
        for k = 2, 3, 4 ... at alpha = 0.05 (Demsar's Table 5 truncates: 2.343).
    """
    from scipy.stats import studentized_range

    if isinstance(n_algorithms, bool) or not isinstance(n_algorithms, (int, np.integer)) \
            or n_algorithms < 2:
        raise ValueError(f"n_algorithms must be an integer >= 2, got {n_algorithms!r}")
    alpha = check_float("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    return float(studentized_range.ppf(1.0 - alpha, int(n_algorithms), np.inf)
                 / math.sqrt(2.0))


@dataclass(frozen=True, eq=False)
class FriedmanNemenyi:
    """Result of `friedman_nemenyi` (read-only arrays).

    Attributes
    ----------
    algorithms : tuple of str
        The compared algorithms, in the order of the table's columns.
    average_ranks : numpy.ndarray of shape (k,)
        Mean rank of each algorithm over the datasets (1 = best).
    n_datasets : int
        N.
    statistic, pvalue : float
        Friedman's chi-square (tie-corrected) and its p-value (k - 1 degrees of freedom).
    iman_davenport, iman_davenport_pvalue : float
        Iman and Davenport's F and its p-value (F(k - 1, (k - 1)(N - 1))); F is inf
        when every dataset ranks the algorithms alike (p = 0).
    alpha : float
        Significance level of the Nemenyi test (and of `rejected`).
    q_alpha, critical_difference : float
        Nemenyi's critical value and CD (in average ranks).
    nemenyi_pvalues : numpy.ndarray of shape (k, k)
        Pairwise two-tailed Nemenyi p-values (1 on the diagonal); at most ``alpha``
        exactly when the two average ranks differ by at least the CD (`differs`).
    cliques : tuple of tuple of str
        Maximal groups of two or more algorithms whose average ranks lie within less
        than the CD of each other (the bars of a CD diagram), best group first, members
        by rank.
    higher_is_better : bool
        Whether the best score was the highest.
    """

    algorithms: tuple[str, ...]
    average_ranks: np.ndarray
    n_datasets: int
    statistic: float
    pvalue: float
    iman_davenport: float
    iman_davenport_pvalue: float
    alpha: float
    q_alpha: float
    critical_difference: float
    nemenyi_pvalues: np.ndarray
    cliques: tuple[tuple[str, ...], ...]
    higher_is_better: bool = True

    @property
    def n_algorithms(self) -> int:
        """The number of algorithms, k."""
        return len(self.algorithms)

    @property
    def rejected(self) -> bool:
        """Whether the Friedman test rejects equal ranks at ``alpha``."""
        return bool(self.pvalue < self.alpha)

    def _repr_html_(self) -> str:
        test = (f"Friedman chi2 = {self.statistic:.4g}, p = {self.pvalue:.3g} "
                f"({'rejected' if self.rejected else 'not rejected'} at alpha = "
                f"{self.alpha:g}); N = {self.n_datasets} datasets, k = {self.n_algorithms}; "
                f"Nemenyi CD = {self.critical_difference:.4g}")
        group: dict[str, int] = {}  # the first (best) clique each algorithm is in
        for i, clique in enumerate(self.cliques):
            for name in clique:
                group.setdefault(name, i + 1)
        rows = ([name, f"{rank:.4g}", str(group.get(name, "-"))]
                for name, rank in self.ranking())
        return html_table(["algorithm", "average rank", "first clique"], rows,
                          n_rows=self.n_algorithms, caption=test)

    def ranking(self) -> list[tuple[str, float]]:
        """``(algorithm, average rank)`` pairs, best first (ties in column order)."""
        order = np.argsort(self.average_ranks, kind="stable")
        return [(self.algorithms[i], float(self.average_ranks[i])) for i in order]

    def differs(self, a: str, b: str) -> bool:
        """Whether algorithms ``a`` and ``b`` differ significantly (Nemenyi, ``alpha``).

        Parameters
        ----------
        a, b : str
            Names of two of the `algorithms`.

        Returns
        -------
        bool
            Whether their average ranks differ by at least the critical difference.

        Raises
        ------
        ValueError
            If ``a`` or ``b`` is not one of the `algorithms`.
        """
        i = self.algorithms.index(check_choice("a", a, self.algorithms))
        j = self.algorithms.index(check_choice("b", b, self.algorithms))
        return bool(abs(self.average_ranks[i] - self.average_ranks[j])
                    >= self.critical_difference)

    def to_text(self, digits: int = 3) -> str:
        """A plain-text report: the tests, the ranking and the cliques.

        Parameters
        ----------
        digits : int
            Digits of the numbers (decimals of the statistics, ranks and CD; significant
            digits of the p-values), >= 0.

        Returns
        -------
        str
            The report, one item per line, ending with a newline (`str` gives it with
            ``digits=3``).

        Raises
        ------
        TypeError
            If ``digits`` is not an integer.
        ValueError
            If ``digits`` is negative.
        """
        digits = check_int("digits", digits, minimum=0)
        k, n = self.n_algorithms, self.n_datasets
        verdict = ("rejected: the algorithms' ranks differ" if self.rejected
                   else "not rejected: no evidence that the algorithms' ranks differ")
        lines = [
            *_friedman_lines(self, digits, ""),
            f"  Iman-Davenport F = {self.iman_davenport:.{digits}f} (df {k - 1}, "
            f"{(k - 1) * (n - 1)}), p = {self.iman_davenport_pvalue:.{digits}g}",
            f"  at alpha = {self.alpha:g}, equal ranks {verdict}",
            f"Nemenyi: q_alpha = {self.q_alpha:.{digits}f}, critical difference "
            f"CD = {self.critical_difference:.{digits}f}",
        ]
        lines += [f"  {rank:.{digits}f}  {name}" for name, rank in self.ranking()]
        if self.cliques:
            lines += ["  not significantly different: "
                      + "; ".join("{" + ", ".join(c) + "}" for c in self.cliques)]
        else:
            lines += ["  every pair differs significantly"]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()


def _labelled(scores: Any) -> Table | None:
    """``scores`` as a Table when it carries names (Table, DataFrame, mapping), else None."""
    if Table.is_labelled(scores):
        try:
            return Table.from_labelled(scores)
        except (TypeError, ValueError) as error:  # from_labelled calls it "data"
            raise type(error)(f"scores: {error}") from None
    return None


def _select(table: Table, algorithms: Sequence[str] | None) -> Table:
    """The columns ``algorithms`` of a labelled table, in that order (all by default)."""
    if algorithms is None:
        return table
    wanted = [str(a) for a in check_names("algorithms", algorithms)]
    unknown = [a for a in wanted if a not in table.columns]
    if unknown:
        raise ValueError(f"algorithms {wanted} do not match the columns "
                         f"{list(table.columns)} of scores: {unknown} not among them")
    if len(set(wanted)) != len(wanted):
        raise ValueError(f"algorithms must be distinct, got {wanted}")
    columns = [table.columns.index(a) for a in wanted]
    return Table(table.index, tuple(wanted), table.values[:, columns])


def _as_scores(scores: Any, algorithms: Sequence[str] | None
               ) -> tuple[np.ndarray, tuple[str, ...]]:
    """The score matrix (N, k) and the algorithm names, checked."""
    table = _labelled(scores)
    if table is not None:
        table = _select(table, algorithms)
        values, names, rows = table.values, table.columns, table.index
    else:
        try:
            values = np.asarray(scores, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"scores must be a Table, a pandas DataFrame, a mapping of "
                            f"algorithm to scores or a 2-D array of numbers, got "
                            f"{type(scores).__name__}") from None
        if values.ndim != 2:
            raise ValueError(f"scores must be 2-D (n_datasets, n_algorithms), got shape "
                             f"{values.shape}")
        names = (tuple(str(j) for j in range(values.shape[1])) if algorithms is None
                 else tuple(str(a) for a in check_names("algorithms", algorithms)))
        if len(names) != values.shape[1]:
            raise ValueError(f"algorithms must name the {values.shape[1]} columns, got "
                             f"{len(names)} names")
        rows = tuple(str(i) for i in range(values.shape[0]))
    if len(set(names)) != len(names):
        raise ValueError(f"algorithms must be distinct, got {list(names)}")
    n, k = values.shape
    if n < 2 or k < 2:
        raise ValueError(f"scores need at least 2 datasets and 2 algorithms, got {n} "
                         f"datasets x {k} algorithms")
    bad = np.argwhere(np.isnan(values))
    if bad.shape[0]:
        where = ", ".join(f"(dataset {rows[i]!r}, algorithm {names[j]!r})"
                          for i, j in bad[:5])
        raise ValueError(f"scores must not be nan; {bad.shape[0]} nan value(s) at {where}"
                         + (", ..." if bad.shape[0] > 5 else ""))
    return values, names


def _cliques(ranks: np.ndarray, cd: float) -> list[list[int]]:
    """Maximal runs (in rank order) of >= 2 algorithms with rank range < cd."""
    order = np.argsort(ranks, kind="stable")
    sorted_ranks = ranks[order]
    runs: list[tuple[int, int]] = []
    for i in range(order.shape[0]):
        j = i
        while j + 1 < order.shape[0] and sorted_ranks[j + 1] - sorted_ranks[i] < cd:
            j += 1
        if j > i and not (runs and runs[-1][1] >= j):  # not inside the previous run
            runs.append((i, j))
    return [[int(order[m]) for m in range(i, j + 1)] for i, j in runs]


def friedman_nemenyi(scores: Any, algorithms: Sequence[str] | None = None, *,
                     alpha: float = 0.05, higher_is_better: bool = True
                     ) -> FriedmanNemenyi:
    """Friedman test and Nemenyi critical difference over datasets (Demšar 2006).

    Parameters
    ----------
    scores : Table, pandas.DataFrame, mapping or array of shape (N, k)
        One row per dataset, one column per algorithm, e.g. the ARIs of
        `hawks_deap.analysis.features.performance_table` (one source's rows: `split_table`):
        a Table or a DataFrame (index = datasets, columns = algorithms; pandas is not
        imported for this), ``{algorithm: scores}`` (columns in the mapping's order), or
        an array with ``algorithms``. nan is refused (an algorithm that failed on a
        dataset needs a score decided by the caller); inf ranks as usual.
    algorithms : sequence of str, optional
        Column names of an array (default ``"0"``, ``"1"``, ...). With labelled scores,
        the columns to compare, in this order (default: all of them, in their order); a
        name not among the columns is a ValueError naming both.
    alpha : float
        Significance level in (0, 1) (0.05 in the paper).
    higher_is_better : bool
        The highest score gets rank 1 (ARI); False for losses.

    Returns
    -------
    FriedmanNemenyi
        Average ranks, the Friedman and Iman-Davenport tests, Nemenyi's CD, pairwise
        p-values and cliques (formulas in the module documentation).

    Notes
    -----
    A dataset on which every algorithm scores the same gives every algorithm the
    middle rank (k + 1) / 2; it counts in N (hence in the average ranks and the CD) and,
    by the tie correction, leaves the Friedman statistic as it is without it. When every
    dataset is such a tie, nothing separates the algorithms: chi-square = F = 0, p = 1.
    Demšar applies the post-hoc test only when the Friedman test rejects; the result
    gives it in any case, and `FriedmanNemenyi.rejected` says which case holds.

    Examples
    --------
    >>> r = friedman_nemenyi([[0.9, 0.8, 0.7], [0.9, 0.9, 0.5], [0.6, 0.8, 0.7],
    ...                       [1.0, 0.7, 0.4]], ["A", "B", "C"])
    >>> r.average_ranks.tolist(), round(r.statistic, 6)
    ([1.625, 1.625, 2.75], 3.6)
    """
    from scipy.stats import studentized_range

    values, names = _as_scores(scores, algorithms)
    alpha = check_float("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    higher_is_better = check_bool("higher_is_better", higher_is_better)
    friedman = _friedman(values, higher_is_better)
    n, k = values.shape
    average = friedman.average_ranks
    q_alpha = nemenyi_critical_value(k, alpha)
    scale = math.sqrt(k * (k + 1) / (6.0 * n))
    cd = q_alpha * scale
    gaps = np.abs(average[:, None] - average[None, :])
    pvalues = np.asarray(studentized_range.sf(gaps / scale * math.sqrt(2.0), k, np.inf),
                         dtype=float)
    np.fill_diagonal(pvalues, 1.0)
    pvalues.setflags(write=False)
    return FriedmanNemenyi(
        algorithms=names, average_ranks=average, n_datasets=n,
        statistic=friedman.statistic, pvalue=friedman.pvalue,
        iman_davenport=friedman.iman_davenport,
        iman_davenport_pvalue=friedman.iman_davenport_pvalue, alpha=alpha,
        q_alpha=q_alpha, critical_difference=cd, nemenyi_pvalues=pvalues,
        cliques=tuple(tuple(names[i] for i in c) for c in _cliques(average, cd)),
        higher_is_better=bool(higher_is_better))


@dataclass(frozen=True)
class _Friedman:
    """The Friedman test of a checked score matrix (shared by both post-hoc tests)."""

    average_ranks: np.ndarray
    statistic: float
    pvalue: float
    iman_davenport: float
    iman_davenport_pvalue: float


def _friedman(values: np.ndarray, higher_is_better: bool) -> _Friedman:
    """Average ranks, tie-corrected chi-square and Iman-Davenport F (module docs)."""
    from scipy.stats import chi2, f, rankdata

    n, k = values.shape
    ranks = rankdata(-values if higher_is_better else values, method="average", axis=1)
    average = ranks.mean(axis=0)
    ties = sum(float(((t**3) - t).sum()) for t in
               (np.unique(row, return_counts=True)[1] for row in values))
    correction = 1.0 - ties / (n * k * (k * k - 1))
    spread = 12.0 * n / (k * (k + 1)) * (float((average**2).sum()) - k * (k + 1) ** 2 / 4)
    # correction == 0 only when every row is one tie; then spread == 0 too (0/0)
    statistic = max(spread / correction, 0.0) if correction > 1e-12 else 0.0
    df1, df2 = k - 1, (k - 1) * (n - 1)
    ceiling = n * (k - 1.0)  # chi2_F at perfect agreement of every dataset
    if statistic >= ceiling * (1 - 1e-12):
        f_value, f_p = math.inf, 0.0
    else:
        f_value = (n - 1) * statistic / (ceiling - statistic)
        f_p = float(f.sf(f_value, df1, df2))
    average.setflags(write=False)
    return _Friedman(average, statistic, float(chi2.sf(statistic, df1)), f_value, f_p)


#: The post-hoc procedures of `friedman_control` (Demšar 2006, section 3.2.2).
CONTROL_METHODS: tuple[str, ...] = ("holm", "bonferroni-dunn")


def bonferroni_dunn_critical_value(n_algorithms: int, alpha: float = 0.05) -> float:
    """q_alpha of the two-tailed Bonferroni-Dunn test (Demšar 2006, Table 5b).

    Parameters
    ----------
    n_algorithms : int
        k >= 2, the number of algorithms, the control included (k - 1 comparisons).
    alpha : float
        Significance level in (0, 1).

    Returns
    -------
    float
        The normal quantile ``norm.ppf(1 - alpha / (2 (k - 1)))``: 1.960, 2.241, 2.394
        ... for k = 2, 3, 4 ... at alpha = 0.05.
    """
    from scipy.stats import norm

    if isinstance(n_algorithms, bool) or not isinstance(n_algorithms, (int, np.integer)) \
            or n_algorithms < 2:
        raise ValueError(f"n_algorithms must be an integer >= 2, got {n_algorithms!r}")
    alpha = check_float("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    return float(norm.isf(alpha / (2.0 * (int(n_algorithms) - 1))))


@dataclass(frozen=True, eq=False)
class FriedmanControl:
    """Result of `friedman_control`: every algorithm against a control (read-only arrays).

    The per-algorithm arrays follow `algorithms`; at the control they hold nan (``z``
    and the p-values) and False (``rejected``).

    Attributes
    ----------
    algorithms : tuple of str
        The compared algorithms, the control among them, in the order of the columns.
    average_ranks : numpy.ndarray of shape (k,)
        Mean rank of each algorithm over the datasets (1 = best).
    n_datasets : int
        N.
    statistic, pvalue : float
        Friedman's chi-square (tie-corrected) and its p-value, as `FriedmanNemenyi`.
    iman_davenport, iman_davenport_pvalue : float
        Iman and Davenport's F and its p-value.
    control : str
        The algorithm the others are compared with.
    method : str
        ``"holm"`` or ``"bonferroni-dunn"``: how the p-values were adjusted.
    alpha : float
        Significance level of the post-hoc test (and of `friedman_rejected`).
    z : numpy.ndarray of shape (k,)
        ``(R_i - R_control) / sqrt(k (k + 1) / (6 N))``: positive when the algorithm
        ranks worse than the control.
    pvalues : numpy.ndarray of shape (k,)
        Two-sided normal p-values of ``z``, unadjusted.
    adjusted_pvalues : numpy.ndarray of shape (k,)
        Holm's step-down or Bonferroni-Dunn's adjustment of `pvalues` (capped at 1).
    rejected : numpy.ndarray of bool, shape (k,)
        ``adjusted_pvalues <= alpha``: the algorithm differs significantly from the
        control. For Bonferroni-Dunn, the same as ``|R_i - R_control| >= CD``.
    q_alpha, critical_difference : float
        The Bonferroni-Dunn critical value and CD (in average ranks), given for both
        methods (Holm's test has no single CD).
    higher_is_better : bool
        Whether the best score was the highest.
    """

    algorithms: tuple[str, ...]
    average_ranks: np.ndarray
    n_datasets: int
    statistic: float
    pvalue: float
    iman_davenport: float
    iman_davenport_pvalue: float
    control: str
    method: str
    alpha: float
    z: np.ndarray
    pvalues: np.ndarray
    adjusted_pvalues: np.ndarray
    rejected: np.ndarray
    q_alpha: float
    critical_difference: float
    higher_is_better: bool = True

    @property
    def n_algorithms(self) -> int:
        """The number of algorithms, k (the control included)."""
        return len(self.algorithms)

    @property
    def friedman_rejected(self) -> bool:
        """Whether the Friedman test rejects equal ranks at ``alpha``."""
        return bool(self.pvalue < self.alpha)

    @property
    def control_rank(self) -> float:
        """The control's average rank."""
        return float(self.average_ranks[self.algorithms.index(self.control)])

    def ranking(self) -> list[tuple[str, float]]:
        """``(algorithm, average rank)`` pairs, best first (ties in column order)."""
        order = np.argsort(self.average_ranks, kind="stable")
        return [(self.algorithms[i], float(self.average_ranks[i])) for i in order]

    def comparisons(self) -> list[tuple[str, float, float, float, float, bool]]:
        """The k - 1 comparisons in Holm's order (smallest p-value first).

        Returns
        -------
        list of tuple
            ``(algorithm, average rank, z, p, adjusted p, rejected)``, ties in p in
            column order.
        """
        others = [i for i, name in enumerate(self.algorithms) if name != self.control]
        others.sort(key=lambda i: self.pvalues[i])  # stable: ties in column order
        return [(self.algorithms[i], float(self.average_ranks[i]), float(self.z[i]),
                 float(self.pvalues[i]), float(self.adjusted_pvalues[i]),
                 bool(self.rejected[i])) for i in others]

    def not_different(self) -> tuple[str, ...]:
        """The control and the algorithms not significantly different from it, by rank.

        These are the algorithms a control diagram joins to the control; by Holm's and
        Bonferroni-Dunn's monotony in ``|z|`` they lie in one interval of ranks.
        """
        keep = {self.control} | {self.algorithms[i] for i in range(self.n_algorithms)
                                  if self.algorithms[i] != self.control
                                  and not self.rejected[i]}
        return tuple(name for name, _ in self.ranking() if name in keep)

    def differs(self, algorithm: str) -> bool:
        """Whether ``algorithm`` differs significantly from the control (``alpha``).

        Parameters
        ----------
        algorithm : str
            One of the `algorithms` other than the control.

        Returns
        -------
        bool

        Raises
        ------
        ValueError
            If ``algorithm`` is not one of the other algorithms.
        """
        others = [a for a in self.algorithms if a != self.control]
        return bool(self.rejected[self.algorithms.index(
            check_choice("algorithm", algorithm, others))])

    def _method_name(self) -> str:
        return "Holm" if self.method == "holm" else "Bonferroni-Dunn"

    def _repr_html_(self) -> str:
        caption = (f"Friedman chi2 = {self.statistic:.4g}, p = {self.pvalue:.3g}; "
                   f"{self._method_name()} against {self.control} (rank "
                   f"{self.control_rank:.4g}) at alpha = {self.alpha:g}; N = "
                   f"{self.n_datasets}, k = {self.n_algorithms}; Bonferroni-Dunn CD = "
                   f"{self.critical_difference:.4g}")
        rows = ([name, f"{rank:.4g}", f"{z:.4g}", f"{p:.3g}", f"{adj:.3g}",
                 "yes" if rej else "no"]
                for name, rank, z, p, adj, rej in self.comparisons())
        return html_table(["algorithm", "average rank", "z", "p", "adjusted p",
                           "differs"], rows, n_rows=self.n_algorithms - 1,
                          caption=caption)

    def to_text(self, digits: int = 3) -> str:
        """A plain-text report: the Friedman test and each comparison with the control.

        Parameters
        ----------
        digits : int
            Digits of the numbers (decimals of the statistics, ranks, z and CD;
            significant digits of the p-values), >= 0.

        Returns
        -------
        str
            The report, one item per line, ending with a newline (`str` gives it with
            ``digits=3``).

        Raises
        ------
        TypeError
            If ``digits`` is not an integer.
        ValueError
            If ``digits`` is negative.
        """
        digits = check_int("digits", digits, minimum=0)
        verdict = "rejected" if self.friedman_rejected else "not rejected"
        lines = [
            *_friedman_lines(self, digits, f"; at alpha = {self.alpha:g}, equal ranks "
                                           f"{verdict}"),
            f"{self._method_name()} against the control {self.control} (average rank "
            f"{self.control_rank:.{digits}f}); Bonferroni-Dunn CD = "
            f"{self.critical_difference:.{digits}f}",
        ]
        for name, rank, z, p, adj, rej in self.comparisons():
            lines.append(f"  {rank:.{digits}f}  {name}: z = {z:.{digits}f}, p = "
                         f"{p:.{digits}g}, adjusted p = {adj:.{digits}g}"
                         + (" (differs)" if rej else ""))
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()


def _holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values of m comparisons (any order in, same out).

    With p_(1) <= ... <= p_(m): adjusted p_(i) = max_{j <= i} min(1, (m - j + 1) p_(j));
    m = k - 1, so the factor of the j-th smallest is k - j (Demšar's alpha / (k - j)).
    """
    m = pvalues.shape[0]
    order = np.argsort(pvalues, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * pvalues[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def friedman_control(scores: Any, control: str, algorithms: Sequence[str] | None = None,
                     *, method: str = "holm", alpha: float = 0.05,
                     higher_is_better: bool = True) -> FriedmanControl:
    """Friedman test and every algorithm against a control (Demšar 2006, 3.2.2).

    For a new algorithm benchmarked against the standard ones: Friedman's average
    ranks, then ``z = (R_i - R_control) / sqrt(k (k + 1) / (6 N))`` for each other
    algorithm, its two-sided normal p-value, and the p-values adjusted for the k - 1
    comparisons by Holm's step-down procedure (more powerful; the default) or by
    Bonferroni-Dunn (``min(1, (k - 1) p)``; the same as comparing rank gaps with the
    critical difference ``CD = q_alpha sqrt(k (k + 1) / (6 N))``,
    `bonferroni_dunn_critical_value`).

    Parameters
    ----------
    scores : Table, pandas.DataFrame, mapping or array of shape (N, k)
        One row per dataset, one column per algorithm, as `friedman_nemenyi`: a Table
        or a DataFrame (columns = algorithms), ``{algorithm: scores}``, or an array
        with ``algorithms``. nan is refused.
    control : str
        The algorithm compared with every other, one of the algorithms.
    algorithms : sequence of str, optional
        Column names of an array (default ``"0"``, ``"1"``, ...). With labelled scores,
        the columns to compare, in this order (default: all); a name not among the
        columns is a ValueError naming both.
    method : {"holm", "bonferroni-dunn"}
        The adjustment (`CONTROL_METHODS`).
    alpha : float
        Significance level in (0, 1).
    higher_is_better : bool
        The highest score gets rank 1 (ARI); False for losses.

    Returns
    -------
    FriedmanControl
        The Friedman test, and z, p, adjusted p and the verdict of each algorithm.

    Raises
    ------
    ValueError
        If ``control`` is not one of the algorithms, ``method`` is unknown, or the
        scores are refused as by `friedman_nemenyi`.

    Examples
    --------
    >>> r = friedman_control({"new": [0.9, 0.8, 0.9, 0.7], "kmeans++": [0.5, 0.6, 0.4, 0.6],
    ...                       "gmm": [0.6, 0.7, 0.8, 0.5]}, "new", method="bonferroni-dunn")
    >>> r.average_ranks.tolist(), [round(float(z), 4) for z in r.z[1:]]
    ([1.0, 2.75, 2.25], [2.4749, 1.7678])
    """
    from scipy.stats import norm

    values, names = _as_scores(scores, algorithms)
    if not isinstance(control, str):
        raise TypeError(f"control must be an algorithm's name (str), got "
                        f"{type(control).__name__}")
    control = check_choice("control", control, names)
    method = check_choice("method", method, CONTROL_METHODS)
    alpha = check_float("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    higher_is_better = check_bool("higher_is_better", higher_is_better)
    friedman = _friedman(values, higher_is_better)
    n, k = values.shape
    c = names.index(control)
    others = np.array([j for j in range(k) if j != c])
    scale = math.sqrt(k * (k + 1) / (6.0 * n))
    z = np.full(k, np.nan)
    z[others] = (friedman.average_ranks[others] - friedman.average_ranks[c]) / scale
    pvalues = np.full(k, np.nan)
    pvalues[others] = np.minimum(1.0, 2.0 * norm.sf(np.abs(z[others])))
    adjusted = np.full(k, np.nan)
    adjusted[others] = (_holm(pvalues[others]) if method == "holm"
                        else np.minimum(1.0, (k - 1) * pvalues[others]))
    rejected = np.zeros(k, dtype=bool)
    rejected[others] = adjusted[others] <= alpha
    for array in (z, pvalues, adjusted, rejected):
        array.setflags(write=False)
    q_alpha = bonferroni_dunn_critical_value(k, alpha)
    return FriedmanControl(
        algorithms=names, average_ranks=friedman.average_ranks, n_datasets=n,
        statistic=friedman.statistic, pvalue=friedman.pvalue,
        iman_davenport=friedman.iman_davenport,
        iman_davenport_pvalue=friedman.iman_davenport_pvalue, control=control,
        method=method, alpha=alpha, z=z, pvalues=pvalues, adjusted_pvalues=adjusted,
        rejected=rejected, q_alpha=q_alpha, critical_difference=q_alpha * scale,
        higher_is_better=bool(higher_is_better))


def split_table(table: Table, groups: Sequence[str]) -> dict[str, Table]:
    """The rows of a table per group (e.g. per data source), groups in sorted order.

    Parameters
    ----------
    table : Table
        E.g. a `hawks_deap.analysis.features.performance_table`.
    groups : sequence of str
        One label per row.

    Returns
    -------
    dict of str to Table
        ``{group: the rows of that group, in table order}``; e.g.
        ``{s: friedman_nemenyi(t) for s, t in split_table(ari, sources).items()}``.
    """
    if not isinstance(table, Table):
        raise TypeError(f"table must be a hawks_deap.analysis.features.Table, got "
                        f"{type(table).__name__}")
    labels = [str(g) for g in groups]
    if len(labels) != len(table):
        raise ValueError(f"groups must have one label per row ({len(table)}), got "
                         f"{len(labels)}")
    out = {}
    for name in sorted(set(labels)):
        rows = [i for i, g in enumerate(labels) if g == name]
        out[name] = Table(tuple(table.index[i] for i in rows), table.columns,
                          table.values[rows])
    return out


# --------------------------------------------------------------------------- Fig. 2 loadings


#: The PCA loadings of the paper's Fig. 2 caption, as far as the seed text kept them:
#: seeds/000_7ab7d5d8e5b60aca.txt, lines 106-112 (the caption's 2 x 7 matrix, read row
#: by row: PC1 then PC2, columns in `FEATURE_NAMES` order, as the caption lists them).
#: The text extraction lost most digits; what survived is kept verbatim: "-0.029" is a
#: full value, "+?" / "-?" a value of which only the sign survived ("+?" for
#: connectivity on PC2 is presumed: its token is a bare "."). The raw tokens are
#: "-.029 0.208 0.519 0.308 0. -.256 0. | . -. -. -. -. -.555 0.". The reading as rows =
#: components (not rows = features) fits the text: the high-dimensional G2 sets lie at
#: the bottom of the space (dimensionality negative on PC2). The caption's share of
#: variance explained is lost too.
PAPER_FIG2_LOADINGS: dict[str, tuple[str, str]] = {
    "connectivity": ("-0.029", "+?"),
    "dimensionality": ("0.208", "-?"),
    "eccentricity": ("0.519", "-?"),
    "entropy": ("0.308", "-?"),
    "n_clusters": ("+?", "-?"),
    "silhouette": ("-0.256", "-0.555"),
    "silhouette_std": ("+?", "+?"),
}


def _paper_sign(text: str) -> float:
    return -1.0 if text.startswith("-") else 1.0


def loadings_beside_paper(space: Any, digits: int = 3) -> str:
    """Our instance space's PCA loadings beside the paper's (Fig. 2 caption), as text.

    Parameters
    ----------
    space : InstanceSpace
        A fitted `hawks_deap.analysis.features.InstanceSpace` (its ``components_``: unit
        principal axes over the standardised features).
    digits : int
        Decimals of our loadings.

    Returns
    -------
    str
        One line per feature: our loading on PC1 and PC2 and the paper's
        (`PAPER_FIG2_LOADINGS`; ``?`` where the seed text lost the digits). The sign of
        a principal axis is arbitrary, so each of our axes is flipped, when that agrees
        better with the paper's signs (``sum paper_sign * ours`` over the features),
        and the flip is said in the header.
    """
    components = getattr(space, "components_", None)
    if components is None:
        raise ValueError("space must be a fitted InstanceSpace (call fit first)")
    names = list(space.feature_names)
    n_axes = min(2, components.shape[0])
    ours = np.array(components[:n_axes], dtype=float)
    flipped = []
    for a in range(n_axes):
        signs = np.array([_paper_sign(PAPER_FIG2_LOADINGS[c][a]) if c in
                          PAPER_FIG2_LOADINGS else 0.0 for c in names])
        flip = float(signs @ ours[a]) < 0
        ours[a] = (-ours[a] if flip else ours[a]) + 0.0  # + 0.0: no "-0.000"
        flipped.append(flip)
    width = max(len(c) for c in [*names, "feature"])
    head = f"{'feature':<{width}}" + "".join(
        f"  {'ours PC' + str(a + 1):>10}  {'paper PC' + str(a + 1):>10}"
        for a in range(n_axes))
    lines = [head]
    for j, name in enumerate(names):
        paper = PAPER_FIG2_LOADINGS.get(name, ("n/a", "n/a"))
        lines.append(f"{name:<{width}}" + "".join(
            f"  {ours[a, j]:>10.{digits}f}  {paper[a]:>10}" for a in range(n_axes)))
    notes = [f"PC{a + 1} sign flipped to match the paper" for a in range(n_axes)
             if flipped[a]]
    ratio = getattr(space, "explained_variance_ratio_", None)
    if ratio is not None:
        notes.append("ours explain " + " + ".join(f"{100 * r:.1f}%" for r in
                                                   ratio[:n_axes])
                     + " of the variance (the paper's share was lost from the text)")
    missing = [c for c in FEATURE_NAMES if c not in names]
    if missing:
        notes.append(f"features not in this space: {', '.join(missing)}")
    return "\n".join([*lines, *(f"({n})" for n in notes)]) + "\n"


def join_tables(tables: Mapping[str, Table]) -> tuple[Table, list[str]]:
    """One table of the rows of several (the inverse of `split_table`), and their groups.

    Parameters
    ----------
    tables : mapping of str to Table
        ``{source: table}``, every table with the same columns (e.g. performance tables
        of the same algorithms on each data source).

    Returns
    -------
    (Table, list of str)
        The rows of every table, in the mapping's order, and the source of each row.
    """
    if not isinstance(tables, Mapping) or not tables:
        raise ValueError(f"tables must be a non-empty mapping of source to Table, got "
                         f"{type(tables).__name__}")
    columns = None
    for source, table in tables.items():
        if not isinstance(table, Table):
            raise TypeError(f"tables[{source!r}] must be a hawks_deap.analysis.features.Table, got "
                            f"{type(table).__name__}")
        if columns is not None and table.columns != columns:
            raise ValueError(f"every table needs the same columns; tables[{source!r}] has "
                             f"{list(table.columns)}, not {list(columns)}")
        columns = table.columns
    assert columns is not None  # tables is not empty
    joined = Table(tuple(i for t in tables.values() for i in t.index), columns,
                   np.concatenate([t.values for t in tables.values()]))
    return joined, [str(s) for s, t in tables.items() for _ in range(len(t))]
