"""Clustering algorithms by name, for Versus mode and performance tables.

Versus mode (HAWKS paper, Eq. (4); algorithms in Section IV-C) scores a dataset by the
difference in performance between a "winner" and a "loser" clustering algorithm, each
given the true number of clusters K. This package is the registry of those algorithms.
Every algorithm is a :class:`ClusteringAlgorithm`: a small picklable callable
``algorithm(X, n_clusters, seed) -> labels`` that validates its input and its output,
and describes its library call as JSON-able :attr:`ClusteringAlgorithm.settings`.

Registered names, the paper's (Section IV-C) first:

``"kmeans++"``
    :class:`sklearn.cluster.KMeans` with k-means++ seeding and ``n_init="auto"`` (the
    scikit-learn default since 1.4: a single k-means++ initialisation), passed
    explicitly so that every supported scikit-learn version behaves alike.
``"gmm"``
    :class:`sklearn.mixture.GaussianMixture` with full covariances and ``n_init=1``
    (scikit-learn defaults otherwise: one k-means initialisation, 100 EM iterations);
    the hard assignment is ``fit(X).predict(X)``, each point to its most probable
    component.
``"single-linkage"``
    :class:`sklearn.cluster.AgglomerativeClustering` with ``linkage="single"``: an exact
    O(N^2)-time, O(N)-memory minimum-spanning-tree algorithm on the Euclidean distances,
    cut at exactly K clusters. In 1 to 3 dimensions, from N = 100 / 1000 / 8000 points,
    the same labels are cut from the Euclidean minimum spanning tree of a Delaunay
    triangulation (near O(N log N)), with scikit-learn's tree as the fallback wherever
    ties would make the two differ.
``"average-linkage"``
    :func:`scipy.cluster.hierarchy.linkage` with ``method="average"`` on the condensed
    Euclidean distances (the O(N^2) nearest-neighbour-chain algorithm), cut at exactly K
    clusters by undoing the last K - 1 merges (:func:`cut_linkage`).
``"single-linkage-2k"``, ``"average-linkage-2k"``
    The paper's doubled-K variants: the same algorithms with ``k_multiplier=2``, i.e.
    asked for 2K clusters (to be scored against the K true clusters), because linkage
    methods are easily side-tracked by singleton clusters.

Further algorithms people compare (issue 21):

``"ward-linkage"``, ``"complete-linkage"``, ``"complete-linkage-2k"``
    :func:`scipy.cluster.hierarchy.linkage` with ``method="ward"`` / ``"complete"`` on
    the condensed Euclidean distances (nearest-neighbour chain, O(N^2)), cut exactly
    like average linkage; the ``-2k`` variant asks for 2K clusters.
``"spectral"``
    :class:`sklearn.cluster.SpectralClustering` with ``affinity="nearest_neighbors"``
    (``n_neighbors=10``, ``assign_labels="kmeans"``): the graph of the 10 nearest
    neighbours is scale-free, whereas the default ``"rbf"`` affinity needs a ``gamma``
    tuned to the scale of the data, which HAWKS changes as it evolves. Needs N >= 10.
``"birch"``
    :class:`sklearn.cluster.Birch` with ``n_clusters=K`` and its defaults
    (``threshold=0.5``, ``branching_factor=50``; global step: Ward agglomeration of the
    subclusters). The threshold is a radius in data units: when it leaves fewer than K
    subclusters (data small against it; scikit-learn would warn and return fewer than K
    clusters) it is halved until the tree has K or more (at most 40 times).
``"genie"``
    :class:`genieclust.Genie` with ``n_clusters=K`` and its default
    ``gini_threshold=0.3`` (Gagolewski et al. 2016: single linkage on the minimum
    spanning tree, corrected so that the Gini index of the cluster sizes stays below
    the threshold). Needs the optional extra: ``pip install "hawks-deap[genie]"``;
    without it, naming ``"genie"`` raises an ImportError that says so.

Each linkage uses whichever library was faster for it: scikit-learn's minimum spanning
tree for single linkage (a Delaunay triangulation's in low dimensions, as above),
scipy's nearest-neighbour chain for average, complete and Ward linkage (where
scikit-learn calls the same scipy routine after extra input checks, so the two tie, and
scipy gives direct control of the cut). None is ever an O(N^3) algorithm; the timings of
single and average linkage are in BENCHMARKS.md. Average, complete and Ward linkage hold
all N (N - 1) / 2 distances at once: they declare it
(:attr:`ClusteringAlgorithm.pairwise`, :meth:`ClusteringAlgorithm.memory_bytes`), and
the command line refuses them up front on data whose distances cannot fit in memory.
Birch and Genie are deterministic; K-Means, the GMM and spectral clustering get
``random_state`` from the seed.

Exact cuts: :func:`scipy.cluster.hierarchy.fcluster` with ``criterion="maxclust"`` cuts
the dendrogram at a distance threshold, so when several merges share the same distance
(ties, e.g. points on a regular grid or duplicated points) it can return fewer than K
clusters. The linkage algorithms here always return exactly K clusters (as
scikit-learn's ``AgglomerativeClustering(n_clusters=K)`` does): tied merges are undone in
reverse order of the linkage matrix.

Presets: :data:`ALGORITHM_PRESETS` holds named sets of settings for registered
algorithms. ``"hawks-tevc"`` is the setting of the original HAWKS analysis (HAWKS
0.2.0): K-Means++ with ``n_init=10`` and the GMM with ``n_init=3``. A preset keeps the
registered name (``get_algorithm("kmeans++", preset="hawks-tevc").name == "kmeans++"``)
and changes the settings; estimators and callables are never changed by a preset.

Besides registered names, anywhere an algorithm is named also accepts

- a scikit-learn-style estimator with ``fit_predict`` (cloned for every call; its
  ``n_clusters``, or else its ``n_components``, is set to the requested number of
  clusters, and its ``random_state`` is set from the seed when it has these parameters);
- a callable ``func(X, n_clusters, seed) -> labels``.

Users' own algorithms can be added with :func:`register_algorithm` (in this process), or
named by text anywhere a registered name is accepted (the command line, TOML, suite grids,
Python), which every process resolves alike:

- an import path ``"package.module:attr"`` or ``"path/to/file.py:attr"``, ``attr`` an
  estimator class (instantiated without arguments), an estimator instance, a factory
  (called without arguments) or a function ``func(X, n_clusters, seed)``;
- an installed plugin: an entry point of the ``hawks_deap.algorithms`` group, e.g. in
  ``pyproject.toml``, ``[project.entry-points."hawks_deap.algorithms"]`` ``my-algo =
  "my_pkg.algo:MyAlgo"``.

`algorithm_identity` says what an algorithm is (where it comes from, the version of the
library that provides it, its settings); runs record it in their metadata.

Seeds: ``seed`` is an int or None (a :class:`numpy.random.SeedSequence` or
:class:`numpy.random.Generator` is first turned into an int). Stochastic estimators get
``random_state = random_state_from_seed(seed)``, a deterministic hash of the seed
(:class:`numpy.random.SeedSequence`); ``seed=None`` draws the seed from Python's
``random`` (DEAP's convention: ``random.seed(...)`` repeats it).
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
>>> get_algorithm("kmeans++", preset="hawks-tevc").settings["n_init"]
10
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, overload

from hawks_deap._util.validation import check_bool, check_choice, check_int
from hawks_deap.clustering import _library as lib
from hawks_deap.clustering._core import (
    AlgorithmSpec,
    ClusterFunction,
    ClusteringAlgorithm,
    EstimatorRunner,
    LibraryCall,
    as_algorithm,
    random_state_from_seed,
)
from hawks_deap.clustering._library import cut_linkage
from hawks_deap.clustering._spec import (
    ENTRY_POINT_GROUP,
    is_import_spec,
    plugin_names,
    resolve_spec,
    source_version,
)
from hawks_deap.presets import ALGORITHM_PRESETS, check_preset

# Pickles (checkpoints hold problems, which hold algorithms) name a class by its
# __module__: this package, whichever private module defines it.
for _class in (ClusteringAlgorithm, EstimatorRunner, LibraryCall):
    _class.__module__ = __name__
del _class
resolve_spec.__module__ = __name__

__all__ = [
    "ALGORITHM_PRESETS",
    "AlgorithmSpec",
    "ENTRY_POINT_GROUP",
    "algorithm_identity",
    "is_import_spec",
    "check_algorithm_spec",
    "ClusteringAlgorithm",
    "available_algorithms",
    "PAPER_ALGORITHMS",
    "check_preset",
    "cut_linkage",
    "get_algorithm",
    "random_state_from_seed",
    "register_algorithm",
    "resolve_spec",
    "install_algorithms",
    "user_algorithms",
    "BUILTIN_ALGORITHMS",
]


# --------------------------------------------------------------------------- registry


_REGISTRY: dict[str, ClusteringAlgorithm] = {}


def _register(algorithm: ClusteringAlgorithm) -> ClusteringAlgorithm:
    _REGISTRY[algorithm.name] = algorithm
    return algorithm


_register(ClusteringAlgorithm("kmeans++", lib.KMEANS_PLUS_PLUS))
_register(ClusteringAlgorithm("gmm", lib.GMM))
_register(ClusteringAlgorithm("average-linkage", lib.AVERAGE_LINKAGE))
_register(ClusteringAlgorithm("single-linkage", lib.SINGLE_LINKAGE))
_register(ClusteringAlgorithm("average-linkage-2k", lib.AVERAGE_LINKAGE, k_multiplier=2))
_register(ClusteringAlgorithm("single-linkage-2k", lib.SINGLE_LINKAGE, k_multiplier=2))
_register(ClusteringAlgorithm("ward-linkage", lib.WARD_LINKAGE))
_register(ClusteringAlgorithm("complete-linkage", lib.COMPLETE_LINKAGE))
_register(ClusteringAlgorithm("complete-linkage-2k", lib.COMPLETE_LINKAGE, k_multiplier=2))
_register(ClusteringAlgorithm("spectral", lib.SPECTRAL))
_register(ClusteringAlgorithm("birch", lib.BIRCH))
_register(ClusteringAlgorithm("genie", lib.GENIE))

#: The algorithms the package registers itself (the others are a user's `register_algorithm`).
BUILTIN_ALGORITHMS: frozenset[str] = frozenset(_REGISTRY)


def user_algorithms(names: Iterable[object]) -> dict[str, ClusteringAlgorithm]:
    """The algorithms among ``names`` that were registered in this process by a user.

    A suite sends them with its tasks, and the process that runs a task installs them
    (`install_algorithms`): a name registered with `register_algorithm` is then a valid
    winner or loser in a suite's worker processes and dask workers too, which start
    with the built-in registry only.

    Parameters
    ----------
    names : iterable
        Algorithm names (anything else, and built-in or unknown names, are skipped).

    Returns
    -------
    dict of str to ClusteringAlgorithm
    """
    return {n: _REGISTRY[n] for n in names
            if isinstance(n, str) and n in _REGISTRY and n not in BUILTIN_ALGORITHMS}


def install_algorithms(algorithms: Mapping[str, ClusteringAlgorithm]) -> None:
    """Register a user's algorithms (`user_algorithms`) in this process, by their names.

    Parameters
    ----------
    algorithms : mapping of str to ClusteringAlgorithm
        As `user_algorithms` returns them; built-in names are never replaced.
    """
    for name, algorithm in algorithms.items():
        if name not in BUILTIN_ALGORITHMS:
            _REGISTRY[name] = algorithm


#: The HAWKS paper's six (section IV-C, Table I, Figs. 3-5): the default of
#: `hawks_deap.analysis.features.performance_table` and ``--algorithms paper``, so that tables
#: stay those of the paper as algorithms are added to the registry.
PAPER_ALGORITHMS: tuple[str, ...] = ("kmeans++", "gmm", "average-linkage", "single-linkage",
                                     "average-linkage-2k", "single-linkage-2k")


def _with_preset(algorithm: ClusteringAlgorithm, preset: str | None) -> ClusteringAlgorithm:
    """A registered algorithm with the settings of ``preset`` (checked) for its name."""
    overrides = ALGORITHM_PRESETS[preset].get(algorithm.name) if preset else None
    if not overrides:
        return algorithm
    if not isinstance(algorithm.func, LibraryCall):
        raise ValueError(f"preset {preset!r} sets {overrides} of {algorithm.name!r}, which "
                         f"is registered as {algorithm.func!r}, a function without settings")
    return ClusteringAlgorithm(algorithm.name, algorithm.func.with_params(**overrides),
                               k_multiplier=algorithm.k_multiplier)


@overload
def available_algorithms(*, preset: str | None = None,
                         settings: Literal[False] = False) -> list[str]: ...


@overload
def available_algorithms(*, preset: str | None = None,
                         settings: Literal[True]) -> dict[str, dict[str, Any]]: ...


def available_algorithms(*, preset: str | None = None,
                         settings: bool = False) -> list[str] | dict[str, dict[str, Any]]:
    """Return the registered algorithm names, built-ins first, in registration order.

    Installed plugins (entry points of the ``hawks_deap.algorithms`` group) follow, by
    name (they are not loaded).

    Parameters
    ----------
    preset : str or None, default=None
        A key of :data:`ALGORITHM_PRESETS` (checked): the settings given with
        ``settings=True`` are the preset's. None: the registry's own.
    settings : bool, default=False
        Return a dict ``name -> ClusteringAlgorithm.settings`` instead of the names.

    Returns
    -------
    list of str, or dict of str to dict
        Names accepted by :func:`get_algorithm` (a new list), or their settings.

    Examples
    --------
    >>> available_algorithms()  # doctest: +NORMALIZE_WHITESPACE
    ['kmeans++', 'gmm', 'average-linkage', 'single-linkage', 'average-linkage-2k',
     'single-linkage-2k', 'ward-linkage', 'complete-linkage', 'complete-linkage-2k',
     'spectral', 'birch', 'genie']
    >>> available_algorithms(settings=True)["complete-linkage-2k"]  # doctest: +NORMALIZE_WHITESPACE
    {'function': 'scipy.cluster.hierarchy.linkage', 'method': 'complete',
     'metric': 'euclidean', 'cut': 'hawks_deap.clustering.cut_linkage', 'k_multiplier': 2}
    >>> available_algorithms(preset="hawks-tevc", settings=True)["gmm"]["n_init"]
    3
    """
    preset = check_preset(preset)
    if not check_bool("settings", settings):
        return [*_REGISTRY, *(n for n in plugin_names() if n not in _REGISTRY)]
    return {name: _with_preset(algorithm, preset).settings
            for name, algorithm in _REGISTRY.items()}


def get_algorithm(spec: AlgorithmSpec, *, preset: str | None = None) -> ClusteringAlgorithm:
    """Return the clustering algorithm described by ``spec``.

    Parameters
    ----------
    spec : str, ClusteringAlgorithm, estimator or callable
        A registered name (see :func:`available_algorithms`); an import path
        ``"package.module:attr"`` or ``"path/to/file.py:attr"``, or the name of an
        installed plugin (an entry point of the ``hawks_deap.algorithms`` group), whose
        ``attr`` is an estimator class (instantiated without arguments), an estimator
        instance, a factory (called without arguments) or a function (named by the text
        itself; it pickles as that text and worker processes resolve it the same way);
        a :class:`ClusteringAlgorithm` (returned unchanged); a scikit-learn-style estimator
        instance with ``fit_predict`` (cloned for every call, with ``n_clusters`` or else
        ``n_components`` and ``random_state`` set when it has them; named after its
        class); or a callable ``func(X, n_clusters, seed) -> labels`` (named after its
        ``__qualname__``).
    preset : str or None, default=None
        A key of :data:`ALGORITHM_PRESETS`: a registered name gets the preset's settings
        (under the same name); anything else is unaffected. None: the registry's own
        settings.

    Returns
    -------
    ClusteringAlgorithm
        A picklable callable ``algorithm(X, n_clusters, seed) -> labels``.

    Raises
    ------
    ValueError
        For an unknown name or preset, listing the valid ones; for an import path or
        plugin that cannot be resolved, naming it and the reason.
    TypeError
        For anything that is neither a name, an estimator nor a callable, or a preset
        that is not a string.
    ImportError
        For a registered algorithm whose optional dependency is missing, naming the
        extra to install.

    Examples
    --------
    >>> from sklearn.cluster import KMeans
    >>> get_algorithm("gmm").name
    'gmm'
    >>> get_algorithm("gmm", preset="hawks-tevc")  # doctest: +NORMALIZE_WHITESPACE
    ClusteringAlgorithm('gmm', settings={'estimator': 'sklearn.mixture.GaussianMixture',
                                         'covariance_type': 'full', 'n_init': 3})
    >>> get_algorithm(KMeans(n_init=3)).name
    'KMeans'
    """
    preset = check_preset(preset)
    if isinstance(spec, ClusteringAlgorithm):
        return spec
    if isinstance(spec, str):
        if spec in _REGISTRY:
            algorithm = _REGISTRY[spec]
            if isinstance(algorithm.func, LibraryCall):
                algorithm.func.check_available(algorithm.name)
            return _with_preset(algorithm, preset)
        if is_import_spec(spec) or spec in plugin_names():
            return resolve_spec(spec)
        try:
            check_choice("algorithm", spec, available_algorithms())
        except ValueError as error:  # it is not among them: say what else is accepted
            raise ValueError(f"{error}; or an import path 'package.module:attr' or "
                             "'path/to/file.py:attr'") from None
    return as_algorithm(spec)


def register_algorithm(name: str, func: ClusterFunction | Any, *, k_multiplier: int = 1,
                       overwrite: bool = False) -> ClusteringAlgorithm:
    """Register a clustering algorithm under ``name``.

    The registry lives in the calling process. Its pools carry the algorithm itself:
    ``evolve(n_jobs=...)`` ships the problem, and a suite (``run_suite``, worker processes
    or dask workers) ships a user's algorithms that a task names with the task
    (`user_algorithms`, `install_algorithms`); either way ``func`` must pickle (defined
    at module level, or a picklable estimator). A suite grid names it by its name (or
    takes the returned object, for its name). Processes that do not share this registry
    (the command line, another script) name the algorithm by an import path
    (``"my_pkg.algo:MyAlgo"``, see :func:`get_algorithm`) or a plugin instead: no
    registration is needed then.

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
    overwrite = check_bool("overwrite", overwrite)
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"an algorithm named {name!r} is already registered; pass "
                         "overwrite=True to replace it")
    k_multiplier = check_int("k_multiplier", k_multiplier, minimum=1)
    if isinstance(func, str) or isinstance(func, ClusteringAlgorithm):
        raise TypeError(f"func must be a callable or an estimator, got {func!r}")
    wrapped = as_algorithm(func)
    return _register(ClusteringAlgorithm(name, wrapped.func, k_multiplier=k_multiplier))


def check_algorithm_spec(name: str, value: object) -> str:
    """Check, by resolving it, that a string names a clustering algorithm; return it.

    The one check of every place that takes an algorithm's name as text (TOML,
    suite grids, the command line), before any work starts.

    Parameters
    ----------
    name : str
        The parameter, for messages (e.g. ``"winner"``).
    value : object
        A registered name, an import path or a plugin's name.

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    TypeError
        If ``value`` is not a string.
    ValueError
        Naming ``name``, the value and the reason it cannot be resolved.
    ImportError
        For a registered algorithm whose optional dependency is missing.
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a clustering algorithm's name or import path "
                        f"(a string), got {value!r} ({type(value).__name__})")
    try:
        get_algorithm(value)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
    return value


def algorithm_identity(algorithm: AlgorithmSpec) -> dict[str, Any]:
    """What a clustering algorithm is: its source, spec, library version and settings.

    Parameters
    ----------
    algorithm : str, ClusteringAlgorithm, estimator or callable
        Anything :func:`get_algorithm` accepts.

    Returns
    -------
    dict
        ``name``; ``source``: ``"builtin"`` (registered by hawks-deap), ``"registered"``
        (`register_algorithm` in this process), ``"import"`` (an import path),
        ``"plugin"`` (an entry point) or ``"object"`` (an estimator or callable passed
        in); ``spec``: the text that names it (None for an object); ``module``: the
        top-level package of the code that clusters; ``version``: that package's
        installed version (None when unknown); ``settings``
        (`ClusteringAlgorithm.settings`). JSON-able.

    Examples
    --------
    >>> identity = algorithm_identity("kmeans++")
    >>> identity["source"], identity["module"]
    ('builtin', 'sklearn')
    """
    algo = get_algorithm(algorithm)
    if algo.spec is not None:
        source, spec = ("import" if is_import_spec(algo.spec) else "plugin"), algo.spec
    elif _REGISTRY.get(algo.name) is not None and _REGISTRY[algo.name].func == algo.func:
        source = "builtin" if algo.name in BUILTIN_ALGORITHMS else "registered"
        spec = algo.name
    elif isinstance(algo.func, LibraryCall) and algo.name in BUILTIN_ALGORITHMS:
        source, spec = "builtin", algo.name  # a preset's settings of a built-in
    else:
        source, spec = "object", None
    func = algo.func
    if isinstance(func, LibraryCall):
        module = func.target
    elif isinstance(func, EstimatorRunner):
        module = type(func.estimator).__module__
    else:
        module = getattr(func, "__module__", None) or type(func).__module__
    top = module.split(".")[0]
    return {"name": algo.name, "source": source, "spec": spec, "module": top,
            "version": source_version(top), "settings": algo.settings}
