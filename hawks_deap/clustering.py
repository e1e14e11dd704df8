"""Clustering algorithms by name, for Versus mode.

Versus mode (HAWKS paper, Eq. (4); algorithms in Section IV-C) scores a dataset by the
difference in performance between a "winner" and a "loser" clustering algorithm, each
given the true number of clusters K. This module is the registry of those algorithms.
Every algorithm is a :class:`ClusteringAlgorithm`: a small picklable callable
``algorithm(X, n_clusters, seed) -> labels`` that validates its input and its output.

Registered names (paper Section IV-C):

``"kmeans++"``
    :class:`sklearn.cluster.KMeans` with k-means++ seeding and ``n_init="auto"`` (the
    scikit-learn default since 1.4: a single k-means++ initialisation), passed
    explicitly so that every supported scikit-learn version behaves alike.
``"gmm"``
    :class:`sklearn.mixture.GaussianMixture` with full covariances (scikit-learn
    defaults otherwise: one k-means initialisation, 100 EM iterations); the hard
    assignment is ``fit(X).predict(X)``, each point to its most probable component.
``"single-linkage"``
    :class:`sklearn.cluster.AgglomerativeClustering` with ``linkage="single"``: an exact
    O(N^2)-time, O(N)-memory minimum-spanning-tree algorithm on the Euclidean distances,
    cut at exactly K clusters.
``"average-linkage"``
    :func:`scipy.cluster.hierarchy.linkage` with ``method="average"`` on the condensed
    Euclidean distances (the O(N^2) nearest-neighbour-chain algorithm), cut at exactly K
    clusters by undoing the last K - 1 merges (:func:`cut_linkage`).
``"single-linkage-2k"``, ``"average-linkage-2k"``
    The paper's doubled-K variants: the same algorithms with ``k_multiplier=2``, i.e.
    asked for 2K clusters (to be scored against the K true clusters), because linkage
    methods are easily side-tracked by singleton clusters.

Each linkage uses whichever library was faster for it: scikit-learn's minimum spanning
tree for single linkage, scipy's nearest-neighbour chain for average linkage (where
scikit-learn calls the same scipy routine after extra input checks, so the two tie, and
scipy gives direct control of the cut). Neither is ever an O(N^3) algorithm; the
timings are in BENCHMARKS.md.

Exact cuts: :func:`scipy.cluster.hierarchy.fcluster` with ``criterion="maxclust"`` cuts
the dendrogram at a distance threshold, so when several merges share the same distance
(ties, e.g. points on a regular grid or duplicated points) it can return fewer than K
clusters. Both linkage algorithms here always return exactly K clusters (as
scikit-learn's ``AgglomerativeClustering(n_clusters=K)`` does): tied merges are undone in
reverse order of the linkage matrix.

Besides registered names, anywhere an algorithm is named also accepts

- a scikit-learn-style estimator with ``fit_predict`` (cloned for every call; its
  ``n_clusters``, or else its ``n_components``, is set to the requested number of
  clusters, and its ``random_state`` is set from the seed when it has these parameters);
- a callable ``func(X, n_clusters, seed) -> labels``.

Users' own algorithms can be added with :func:`register_algorithm`.

Seeds: ``seed`` is an int or None (a :class:`numpy.random.SeedSequence` or
:class:`numpy.random.Generator` is first turned into an int). Stochastic estimators get
``random_state = random_state_from_seed(seed)``, a deterministic hash of the seed
(:class:`numpy.random.SeedSequence`); ``seed=None`` draws fresh operating-system entropy.
The global numpy random state is never used.

Examples
--------
>>> import numpy as np
>>> from hawks_deap.clustering import get_algorithm
>>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
>>> algorithm = get_algorithm("single-linkage")
>>> labels = algorithm(X, 2, seed=0)
>>> bool(labels[0] == labels[1] != labels[2] == labels[3])
True
>>> len(np.unique(get_algorithm("single-linkage-2k")(X, 2, seed=0)))
4
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.cluster.hierarchy import linkage
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial.distance import pdist

from hawks_deap._labels import encode_labels
from hawks_deap._validation import check_choice, check_int, int_seed, seed_words

__all__ = [
    "AlgorithmSpec",
    "ClusteringAlgorithm",
    "available_algorithms",
    "cut_linkage",
    "get_algorithm",
    "random_state_from_seed",
    "register_algorithm",
]

ClusterFunction = Callable[[np.ndarray, int, "int | None"], Any]
"""Signature of an algorithm function: ``func(X, n_clusters, seed) -> labels``."""


# --------------------------------------------------------------------------- seeds


def _normalize_seed(seed: object) -> int | None:
    """Return ``seed`` as a non-negative int or None; SeedSequence/Generator -> int."""
    if seed is None:
        return None
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        return int(seed)
    if isinstance(seed, (np.random.SeedSequence, np.random.Generator)):
        return seed_words(seed, 1, dtype=np.uint64)[0]
    raise TypeError(
        "seed must be an int, None, numpy.random.SeedSequence or numpy.random.Generator, "
        f"got {seed!r} ({type(seed).__name__})"
    )


def random_state_from_seed(seed: int | None) -> int:
    """Derive a scikit-learn ``random_state`` from a seed.

    Parameters
    ----------
    seed : int or None
        A non-negative integer of any size, or None for fresh operating-system entropy
        (never the global numpy random state).

    Returns
    -------
    int
        ``SeedSequence(seed).generate_state(1)[0]``, an integer in [0, 2**32 - 1]: the
        same seed always gives the same value, and nearby seeds give unrelated values.

    Examples
    --------
    >>> random_state_from_seed(0) == random_state_from_seed(0)
    True
    >>> 0 <= random_state_from_seed(2**100) < 2**32
    True
    """
    return int_seed(_normalize_seed(seed))


# --------------------------------------------------------------------------- linkage cut


def cut_linkage(Z: np.ndarray, n_clusters: int) -> np.ndarray:
    """Cut a linkage matrix into exactly ``n_clusters`` flat clusters.

    The partition is the one reached after the first ``N - n_clusters`` merges of ``Z``,
    i.e. the last ``n_clusters - 1`` merges are undone. Unlike
    ``fcluster(Z, n_clusters, criterion="maxclust")``, which cuts at a distance threshold,
    this gives exactly ``n_clusters`` clusters even when merge distances are tied. For a
    monotone linkage (single, average, complete, Ward) without ties both give the same
    partition, as does :func:`scipy.cluster.hierarchy.cut_tree`.

    Parameters
    ----------
    Z : ndarray of shape (N - 1, 4)
        A linkage matrix as returned by :func:`scipy.cluster.hierarchy.linkage`.
    n_clusters : int
        The number of clusters, ``1 <= n_clusters <= N``.

    Returns
    -------
    ndarray of shape (N,)
        Integer labels in ``0 .. n_clusters - 1``, numbered in order of first appearance.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.cluster.hierarchy import fcluster, linkage
    >>> X = np.arange(6.0).reshape(-1, 1)  # a regular grid: all merge distances tie
    >>> Z = linkage(X, method="single")
    >>> len(np.unique(fcluster(Z, 3, criterion="maxclust")))
    1
    >>> len(np.unique(cut_linkage(Z, 3)))
    3
    """
    Z = np.asarray(Z)
    if Z.ndim != 2 or Z.shape[1] != 4:
        raise ValueError(f"Z must be a linkage matrix of shape (N - 1, 4), got shape {Z.shape}")
    n = Z.shape[0] + 1
    n_clusters = check_int("n_clusters", n_clusters, minimum=1, maximum=n)
    n_kept = n - n_clusters
    # Union of the first n_kept merges: node n + i is joined to its two children.
    parents = np.repeat(np.arange(n, n + n_kept), 2)
    children = Z[:n_kept, :2].astype(np.intp).ravel()
    size = 2 * n - 1
    graph = coo_matrix((np.ones(children.size, dtype=np.int8), (parents, children)),
                       shape=(size, size))
    _, component = connected_components(graph, directed=False)
    # connected_components numbers components in order of their smallest node, so the
    # codes of the leaves are already in order of first appearance.
    return encode_labels(component[:n])[0]


# --------------------------------------------------------------------------- built-ins


def _kmeans_plus_plus(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    """K-Means with k-means++ seeding (scikit-learn, ``n_init="auto"``)."""
    from sklearn.cluster import KMeans  # imported on first use: Index mode never needs it

    estimator = KMeans(n_clusters=n_clusters, init="k-means++", n_init="auto",
                       random_state=random_state_from_seed(seed))
    return estimator.fit_predict(X)


def _gmm(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    """Gaussian mixture with full covariances; hard labels by ``fit(X).predict(X)``."""
    from sklearn.mixture import GaussianMixture

    estimator = GaussianMixture(n_components=n_clusters, covariance_type="full",
                                random_state=random_state_from_seed(seed))
    return estimator.fit(X).predict(X)


def _single_linkage(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    """Single linkage by scikit-learn's MST algorithm, exactly ``n_clusters`` clusters."""
    del seed  # deterministic
    if X.shape[0] == 1:
        return np.zeros(1, dtype=np.intp)
    from sklearn.cluster import AgglomerativeClustering

    return AgglomerativeClustering(n_clusters=n_clusters, linkage="single").fit_predict(X)


def _average_linkage(X: np.ndarray, n_clusters: int, seed: int | None) -> np.ndarray:
    """Average linkage by scipy's nearest-neighbour chain, cut exactly by `cut_linkage`."""
    del seed  # deterministic
    if X.shape[0] == 1:
        return np.zeros(1, dtype=np.intp)
    Z = linkage(pdist(np.asarray(X, dtype=np.float64)), method="average")
    return cut_linkage(Z, n_clusters)


# --------------------------------------------------------------------------- estimators


class _EstimatorRunner:
    """Run a scikit-learn-style estimator as ``func(X, n_clusters, seed)``.

    The estimator is cloned for every call (``sklearn.base.clone``, or a deep copy for
    objects without ``get_params``), so the template is never fitted or changed.
    """

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator

    def __call__(self, X: np.ndarray, n_clusters: int, seed: int | None) -> Any:
        template = self.estimator
        if hasattr(template, "get_params"):
            from sklearn.base import clone

            estimator = clone(template)
            params = set(estimator.get_params(deep=False))
        else:
            estimator = copy.deepcopy(template)
            params = {p for p in ("n_clusters", "n_components", "random_state")
                      if hasattr(estimator, p)}
        updates: dict[str, Any] = {}
        if "n_clusters" in params:
            updates["n_clusters"] = n_clusters
        elif "n_components" in params:
            updates["n_components"] = n_clusters
        if "random_state" in params:
            updates["random_state"] = random_state_from_seed(seed)
        if hasattr(estimator, "set_params"):
            estimator.set_params(**updates)
        else:
            for key, value in updates.items():
                setattr(estimator, key, value)
        return estimator.fit_predict(X)

    def __repr__(self) -> str:
        return f"_EstimatorRunner({self.estimator!r})"


def _is_estimator(obj: object) -> bool:
    return not isinstance(obj, type) and callable(getattr(obj, "fit_predict", None))


# --------------------------------------------------------------------------- algorithm


@dataclass(frozen=True)
class ClusteringAlgorithm:
    """A named clustering algorithm: ``algorithm(X, n_clusters, seed) -> labels``.

    Picklable when ``func`` is (module-level functions and estimators are): the object
    carries the function itself, not only its name, so an algorithm registered in the
    main process also works in ``multiprocess`` spawn workers as long as its function is
    importable there.

    Parameters
    ----------
    name : str
        The name used in messages and results (the registry key for registered ones).
    func : callable
        ``func(X, n_clusters, seed) -> labels``; it receives
        ``n_clusters * k_multiplier`` clusters and the seed as an int or None.
    k_multiplier : int, default=1
        How many clusters to ask for per true cluster (2 for the paper's doubled-K
        linkage variants).
    """

    name: str
    func: ClusterFunction
    k_multiplier: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"name must be a non-empty string, got {self.name!r}")
        if not callable(self.func):
            raise TypeError(f"func must be callable, got {self.func!r} "
                            f"({type(self.func).__name__})")
        object.__setattr__(self, "k_multiplier",
                           check_int("k_multiplier", self.k_multiplier, minimum=1))

    def __call__(self, X: np.ndarray, n_clusters: int, seed: int | None = None) -> np.ndarray:
        """Cluster ``X`` and return validated labels.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The data.
        n_clusters : int
            The true number of clusters K; the algorithm is asked for
            ``K * k_multiplier`` clusters.
        seed : int or None, default=None
            Seed for stochastic algorithms (a SeedSequence or Generator is first turned
            into an int); None draws fresh entropy.

        Returns
        -------
        ndarray of shape (N,)
            Integer (``np.intp``) cluster labels.

        Raises
        ------
        ValueError, TypeError
            If ``X``, ``n_clusters`` or ``seed`` is invalid (before the algorithm runs).
        RuntimeError
            Naming the algorithm, if it raises or returns anything other than N integer
            labels.
        """
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[0] < 1:
            raise ValueError(f"X must be a 2-D array with at least one row, got shape "
                             f"{X.shape}")
        n_samples = X.shape[0]
        n_clusters = check_int("n_clusters", n_clusters, minimum=1)
        k = n_clusters * self.k_multiplier
        if k > n_samples:
            raise ValueError(
                f"n_clusters * k_multiplier must be <= the number of samples {n_samples} "
                f"for algorithm {self.name!r}, got {n_clusters} * {self.k_multiplier} = {k}"
            )
        seed = _normalize_seed(seed)
        try:
            result = self.func(X, k, seed)
        except Exception as error:
            raise RuntimeError(
                f"clustering algorithm {self.name!r} failed on X of shape {X.shape} with "
                f"{k} clusters: {type(error).__name__}: {error}"
            ) from error
        return self._check_labels(result, n_samples)

    def _check_labels(self, result: object, n_samples: int) -> np.ndarray:
        try:
            labels = np.asarray(result)
        except Exception as error:
            raise RuntimeError(f"clustering algorithm {self.name!r} returned labels that "
                               f"are not an array: {result!r}") from error
        if labels.shape != (n_samples,):
            raise RuntimeError(
                f"clustering algorithm {self.name!r} returned labels of shape "
                f"{labels.shape}; expected a 1-D array of length {n_samples} (one per row "
                "of X)"
            )
        if np.issubdtype(labels.dtype, np.integer) or labels.dtype == np.bool_:
            return labels.astype(np.intp, copy=False)
        if np.issubdtype(labels.dtype, np.floating):
            if np.all(np.isfinite(labels)):
                as_int = labels.astype(np.intp)
                if np.array_equal(as_int, labels):
                    return as_int
        raise RuntimeError(
            f"clustering algorithm {self.name!r} returned labels of dtype {labels.dtype} "
            "that are not all integers"
        )


AlgorithmSpec = str | ClusteringAlgorithm | ClusterFunction | Any
"""A registered name, a :class:`ClusteringAlgorithm`, an estimator or a callable."""


# --------------------------------------------------------------------------- registry


_REGISTRY: dict[str, ClusteringAlgorithm] = {}


def _register(algorithm: ClusteringAlgorithm) -> ClusteringAlgorithm:
    _REGISTRY[algorithm.name] = algorithm
    return algorithm


_register(ClusteringAlgorithm("kmeans++", _kmeans_plus_plus))
_register(ClusteringAlgorithm("gmm", _gmm))
_register(ClusteringAlgorithm("average-linkage", _average_linkage))
_register(ClusteringAlgorithm("single-linkage", _single_linkage))
_register(ClusteringAlgorithm("average-linkage-2k", _average_linkage, k_multiplier=2))
_register(ClusteringAlgorithm("single-linkage-2k", _single_linkage, k_multiplier=2))


def available_algorithms() -> list[str]:
    """Return the registered algorithm names, built-ins first, in registration order.

    Returns
    -------
    list of str
        Names accepted by :func:`get_algorithm`.

    Examples
    --------
    >>> available_algorithms()[:6]  # doctest: +NORMALIZE_WHITESPACE
    ['kmeans++', 'gmm', 'average-linkage', 'single-linkage', 'average-linkage-2k',
     'single-linkage-2k']
    """
    return list(_REGISTRY)


def _from_callable(spec: object) -> ClusteringAlgorithm:
    """Wrap an estimator or a callable; raise TypeError for anything else."""
    if isinstance(spec, type):
        raise TypeError(
            f"algorithm must be a registered name, an estimator instance or a callable "
            f"func(X, n_clusters, seed); got the class {spec.__name__}: pass an instance, "
            f"e.g. {spec.__name__}()"
        )
    if _is_estimator(spec):
        return ClusteringAlgorithm(type(spec).__name__, _EstimatorRunner(spec))
    if callable(spec):
        name = getattr(spec, "__qualname__", None) or getattr(spec, "__name__", None)
        return ClusteringAlgorithm(name or type(spec).__name__, spec)
    raise TypeError(
        "algorithm must be a registered name, a ClusteringAlgorithm, an estimator with "
        f"fit_predict or a callable func(X, n_clusters, seed); got {spec!r} "
        f"({type(spec).__name__})"
    )


def get_algorithm(spec: AlgorithmSpec) -> ClusteringAlgorithm:
    """Return the clustering algorithm described by ``spec``.

    Parameters
    ----------
    spec : str, ClusteringAlgorithm, estimator or callable
        A registered name (see :func:`available_algorithms`); a
        :class:`ClusteringAlgorithm` (returned unchanged); a scikit-learn-style estimator
        instance with ``fit_predict`` (cloned for every call, with ``n_clusters`` or else
        ``n_components`` and ``random_state`` set when it has them; named after its
        class); or a callable ``func(X, n_clusters, seed) -> labels`` (named after its
        ``__qualname__``).

    Returns
    -------
    ClusteringAlgorithm
        A picklable callable ``algorithm(X, n_clusters, seed) -> labels``.

    Raises
    ------
    ValueError
        For an unknown name, listing the registered ones.
    TypeError
        For anything that is neither a name, an estimator nor a callable.

    Examples
    --------
    >>> from sklearn.cluster import KMeans
    >>> get_algorithm("gmm").name
    'gmm'
    >>> get_algorithm(KMeans(n_init=3)).name
    'KMeans'
    """
    if isinstance(spec, ClusteringAlgorithm):
        return spec
    if isinstance(spec, str):
        return _REGISTRY[check_choice("algorithm", spec, _REGISTRY)]
    return _from_callable(spec)


def register_algorithm(name: str, func: ClusterFunction | Any, *, k_multiplier: int = 1,
                       overwrite: bool = False) -> ClusteringAlgorithm:
    """Register a clustering algorithm under ``name``.

    The registry lives in the calling process only. To use the algorithm in worker
    processes, pass the returned :class:`ClusteringAlgorithm` (or ``func`` itself) rather
    than its name: the object carries ``func`` and pickles when ``func`` is importable
    (defined at module level) or is a picklable estimator.

    Parameters
    ----------
    name : str
        The new name (a non-empty string).
    func : callable or estimator
        ``func(X, n_clusters, seed) -> labels``, or a scikit-learn-style estimator
        instance with ``fit_predict`` (used as in :func:`get_algorithm`).
    k_multiplier : int, default=1
        The algorithm is asked for ``n_clusters * k_multiplier`` clusters.
    overwrite : bool, default=False
        Replace an existing registration (including a built-in) of the same name.

    Returns
    -------
    ClusteringAlgorithm
        The registered algorithm.

    Raises
    ------
    ValueError
        If ``name`` is already registered and ``overwrite`` is False, or
        ``k_multiplier < 1``.
    TypeError
        If ``name`` is not a non-empty string, or ``func`` is neither callable nor an
        estimator.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string, got {name!r}")
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"an algorithm named {name!r} is already registered; pass "
                         "overwrite=True to replace it")
    k_multiplier = check_int("k_multiplier", k_multiplier, minimum=1)
    if isinstance(func, str) or isinstance(func, ClusteringAlgorithm):
        raise TypeError(f"func must be a callable or an estimator, got {func!r}")
    wrapped = _from_callable(func)
    return _register(ClusteringAlgorithm(name, wrapped.func, k_multiplier=k_multiplier))
