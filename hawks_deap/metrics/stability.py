"""Bootstrap cluster stability for choosing the number of clusters (survey 001).

Survey 001, "cluster stability": draw t bootstrap samples ``D_1..D_t`` of size n from
the data (with replacement), cluster each with every candidate k, compare every pair of
clusterings ``C_k(D_a)``, ``C_k(D_b)`` with an external index, and take for each k the
expected pairwise value; the most stable k is the best choice.

Two bootstrap samples hold different points, so the pair is compared on the points they
share (each original point once, with the label of its first copy in each sample). The
default comparison is the adjusted Rand index: it is 0 in expectation for unrelated
partitions whatever k, so values are comparable across k, whereas the Rand, Jaccard or
Fowlkes-Mallows indices drift with the number of clusters and favour large or small k.
Any external index of the registry can be used instead (for instance the survey's
suggestion of a distance such as ``"vi"``; then lower is more stable).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from hawks_deap._util.threads import check_threads, thread_cap
from hawks_deap._util.validation import (
    as_seed_sequence,
    check_choice,
    check_int,
    child_sequence,
    int_seed,
)
from hawks_deap.metrics import registry
from hawks_deap.metrics._common import SeedLike, check_X

__all__ = ["StabilityResult", "stability"]

Clusterer = Callable[[np.ndarray, int, int], Any]
"""``algorithm(X, n_clusters, seed) -> labels`` (the clustering registry's signature)."""


@dataclass(frozen=True)
class StabilityResult:
    """Pairwise agreement of bootstrap clusterings, per number of clusters.

    Attributes
    ----------
    k_values : tuple of int
        The numbers of clusters tried, ascending.
    score : str
        Canonical name of the external index used to compare two clusterings.
    higher_is_better : bool
        Whether a higher ``score`` means more stable (False for distances such as VI).
    values : dict of int to numpy.ndarray
        For each k, the score of every pair of bootstrap clusterings
        (``t (t - 1) / 2`` values, pairs in lexicographic order).
    """

    k_values: tuple[int, ...]
    score: str
    higher_is_better: bool
    values: dict[int, np.ndarray]

    @property
    def mean(self) -> dict[int, float]:
        """Expected pairwise score per k (``nan`` if any pair is undefined)."""
        return {k: float(np.mean(v)) for k, v in self.values.items()}

    @property
    def std(self) -> dict[int, float]:
        """Standard deviation of the pairwise scores per k."""
        return {k: float(np.std(v)) for k, v in self.values.items()}

    @property
    def best_k(self) -> int:
        """The most stable k (smallest k among ties; undefined means are skipped)."""
        means = np.array([self.mean[k] for k in self.k_values])
        if np.all(np.isnan(means)):
            raise ValueError("no k has a defined stability score")
        pick = np.nanargmax(means) if self.higher_is_better else np.nanargmin(means)
        return self.k_values[int(pick)]


def _check_k_values(k_values: Iterable[int], n: int) -> tuple[int, ...]:
    try:
        values = list(k_values)
    except TypeError:
        raise TypeError(f"k_values must be an iterable of integers, got {k_values!r}") from None
    if not values:
        raise ValueError("k_values must not be empty")
    return tuple(sorted({check_int("k_values", k, minimum=2, maximum=n - 1) for k in values}))


def stability(X: ArrayLike, algorithm: object, k_values: Iterable[int], *,
              n_bootstrap: int = 20, score: str = "ari", seed: SeedLike = None,
              n_threads: int | None = 1) -> StabilityResult:
    """Bootstrap stability of a clustering algorithm for each candidate k.

    Survey 001, "cluster stability" (see the module docstring): ``n_bootstrap`` samples
    of size n drawn with replacement are clustered with every k; each pair of
    clusterings with the same k is scored on the points the two samples share, and
    ``result.mean[k]`` is the expected pairwise score.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    algorithm : str, ClusteringAlgorithm, callable or estimator
        Anything `hawks_deap.clustering.get_algorithm` takes: a registered name (e.g.
        ``"kmeans++"``), ``algorithm(X, n_clusters, seed) -> labels``, or a
        scikit-learn-style estimator with ``fit_predict`` and an ``n_clusters`` (or
        ``n_components``) parameter, cloned for every fit, with ``random_state`` set
        from the seed when it has one.
    k_values : iterable of int
        Numbers of clusters to try, each in [2, n_samples - 1].
    n_bootstrap : int
        t, the number of bootstrap samples (>= 2).
    score : str
        Name or alias of an external index of the registry used to compare two
        clusterings; default ``"ari"`` (chance-corrected, so comparable across k).
    seed : int, numpy.random.SeedSequence, numpy.random.Generator or None
        Seeds the resampling and, independently, the algorithm: the fit of sample b
        with k clusters gets a seed derived from (seed, b, k), so ``result.values[k]``
        does not depend on which other k are tried.
    n_threads : int or None
        BLAS/OpenMP threads of each clustering call, as Versus mode's ``n_threads``
        (default 1: the fits are many and small, and on a busy machine more threads
        only wait for each other). None leaves the libraries' own settings, and a
        stochastic algorithm's partition may then depend on the thread count.

    Returns
    -------
    StabilityResult
        Pairwise scores per k, with ``mean``, ``std`` and ``best_k``.

    Raises
    ------
    ValueError
        If X is empty, a k is out of range, ``n_bootstrap < 2``, or ``score`` is unknown
        or not external.
    RuntimeError
        If the algorithm returns labels of the wrong length (as everywhere algorithms
        run, `hawks_deap.clustering`).
    TypeError
        If ``algorithm`` is neither a callable nor a suitable estimator.
    """
    X = check_X(X)
    n = X.shape[0]
    ks = _check_k_values(k_values, n)
    n_bootstrap = check_int("n_bootstrap", n_bootstrap, minimum=2)
    n_threads = check_threads("n_threads", n_threads)
    external = registry.available("external")
    try:
        info = registry.get(score)
    except ValueError:  # the registry's message lists every index, internal ones too
        check_choice("score", score, external)  # raises, naming the external ones
        raise
    if info.kind != "external":
        raise ValueError(f"score must be an external index, got {score!r} ({info.kind}); "
                         "valid: " + ", ".join(map(repr, external)))
    from hawks_deap.clustering import get_algorithm

    # one way to run an algorithm: the Versus registry's (names, estimators, callables;
    # outputs checked)
    cluster = get_algorithm(algorithm)
    if not cluster.takes_n_clusters:  # the registry runs it as it is; stability sets k
        raise TypeError(f"algorithm {cluster.name} has no n_clusters (or n_components) "
                        "parameter, so stability cannot set the number of clusters; give "
                        "a registered name, a callable func(X, n_clusters, seed) or an "
                        "estimator with one of these parameters")
    if cluster.k_multiplier != 1:  # it would cluster into a multiple of the k reported
        raise ValueError(f"algorithm {cluster.name} clusters into {cluster.k_multiplier} k "
                         "clusters; stability compares partitions into k: give the "
                         "algorithm without the multiplier")
    seq = as_seed_sequence(seed)  # (addressed: a caller's SeedSequence is not advanced)
    resample_seq, algorithm_seq = child_sequence(seq, 0), child_sequence(seq, 1)
    rng = np.random.default_rng(resample_seq)
    samples = [rng.integers(0, n, size=n) for _ in range(n_bootstrap)]
    firsts = [np.unique(sample, return_index=True) for sample in samples]
    shared = {}
    for a in range(n_bootstrap):
        for b in range(a + 1, n_bootstrap):
            _, pos_a, pos_b = np.intersect1d(firsts[a][0], firsts[b][0], assume_unique=True,
                                             return_indices=True)
            shared[a, b] = (firsts[a][1][pos_a], firsts[b][1][pos_b])
    values = {}
    for k in ks:
        labels = []
        for b, sample in enumerate(samples):
            with thread_cap(n_threads):  # per fit: a library loaded by the first is capped
                labels.append(cluster(X[sample], k, int_seed(algorithm_seq, b, k)))
        values[k] = np.array([info.function(labels[a][ia], labels[b][ib])
                              for (a, b), (ia, ib) in shared.items()])
    return StabilityResult(k_values=ks, score=info.name,
                           higher_is_better=info.higher_is_better, values=values)
