"""The clustering-algorithm object, its seeds and the wrappers behind it.

`ClusteringAlgorithm` is what every name, estimator or callable resolves to. Its
``func`` is one of

- a `LibraryCall`: a registered algorithm's library call with its keyword arguments
  (the settings a preset may override);
- an `EstimatorRunner`: a user's scikit-learn-style estimator, cloned for every call;
- a user's callable ``func(X, n_clusters, seed) -> labels``.

Each of them describes itself as JSON-able settings (`ClusteringAlgorithm.settings`).
"""

from __future__ import annotations

import copy
import importlib
import json
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from hawks_deap._util.names import qualified_name
from hawks_deap._util.validation import check_int, int_seed, seed_words

__all__ = [
    "BUILTIN_CALLS",
    "SPEC_RESOLVER",
    "AlgorithmSpec",
    "ClusterFunction",
    "ClusteringAlgorithm",
    "EstimatorRunner",
    "LibraryCall",
    "as_algorithm",
    "import_optional",
    "is_estimator",
    "normalize_seed",
    "random_state_from_seed",
]

ClusterFunction = Callable[[np.ndarray, int, "int | None"], Any]
"""Signature of an algorithm function: ``func(X, n_clusters, seed) -> labels``."""


# --------------------------------------------------------------------------- seeds


def normalize_seed(seed: object) -> int | None:
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
        A non-negative integer of any size, or None for a seed drawn from Python's
        ``random`` (as DEAP: ``random.seed(...)`` repeats it; never the global numpy
        random state).

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
    return int_seed(normalize_seed(seed))


# --------------------------------------------------------------------------- settings


def _is_json_value(value: object) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


# --------------------------------------------------------------------------- library calls


@dataclass(frozen=True)
class LibraryCall:
    """A registered algorithm: ``run(X, n_clusters, seed, **params)``, described.

    Parameters
    ----------
    run : callable
        A module-level function (so the call pickles by reference) that makes the
        library call with ``params`` as keyword arguments.
    target : str
        The library entry point, e.g. ``"sklearn.cluster.KMeans"``.
    params : mapping or tuple of (str, value) pairs
        The keyword arguments: JSON-able values, stored as a tuple of pairs so that the
        call is hashable and compares by value. A preset overrides only these.
    kind : {"estimator", "function"}
        Whether ``target`` is an estimator class or a function (the key of ``target`` in
        `settings`).
    notes : mapping or tuple of (str, value) pairs
        Further fixed, JSON-able facts of the call (not keyword arguments), e.g. how a
        linkage matrix is cut.
    requires : (module, extra) or None
        An optional dependency: the module to import and the extra that installs it.
    pairwise : bool
        The call holds every pairwise distance of ``X`` at once (scipy's condensed
        matrix, N (N - 1) / 2 float64). Kept by `with_params`: presets tune a call, they
        do not make it another algorithm.
    tree : callable or None
        For a call that cuts a hierarchy: ``tree(X, **params) -> cut``, the hierarchy
        built once, where ``cut(n_clusters)`` gives the labels of ``run(X, n_clusters,
        seed, **params)`` (the same array), so that a tree is cut at K and 2K without
        building it twice.
    """

    run: Callable[..., Any]
    target: str
    params: Any = ()
    kind: str = "estimator"
    notes: Any = ()
    requires: tuple[str, str] | None = field(default=None, compare=False)
    pairwise: bool = field(default=False, compare=False)
    tree: Callable[..., Callable[[int], Any]] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        for name in ("params", "notes"):
            value = getattr(self, name)
            items = tuple(value.items() if isinstance(value, Mapping) else value)
            object.__setattr__(self, name, tuple((str(k), v) for k, v in items))

    def __call__(self, X: np.ndarray, n_clusters: int, seed: int | None) -> Any:
        return self.run(X, n_clusters, seed, **dict(self.params))

    @property
    def settings(self) -> dict[str, Any]:
        """``{kind: target, **params, **notes}``, a new dict."""
        return {self.kind: self.target, **dict(self.params), **dict(self.notes)}

    def with_params(self, **overrides: Any) -> LibraryCall:
        """The same call with some of its keyword arguments replaced.

        Raises
        ------
        ValueError
            For a keyword that is not one of ``params`` (listing them).
        """
        params = dict(self.params)
        unknown = sorted(set(overrides) - set(params))
        if unknown:
            raise ValueError(f"{self.target} settings {unknown} cannot be overridden; valid: "
                             + ", ".join(repr(p) for p in params))
        return replace(self, params={**params, **overrides})

    @classmethod
    def builtin(cls, target: str, params: Any) -> LibraryCall:
        """The registered algorithms' call of ``target`` with keyword arguments ``params``.

        How a registered algorithm's call is unpickled (see `__reduce__`).

        Raises
        ------
        KeyError
            For a target that no registered algorithm calls.
        ValueError
            For a keyword argument that the call does not take.
        """
        return BUILTIN_CALLS[target].with_params(**dict(params))

    def __reduce__(self) -> tuple[Any, ...]:
        # A registered algorithm's call pickles as its library entry point and keyword
        # arguments, not as the private functions that make it: pickles name no private
        # module, and load with the facts (tree, pairwise) of the version that reads them.
        try:
            if LibraryCall.builtin(self.target, self.params) == self:
                return (LibraryCall.builtin, (self.target, dict(self.params)))
        except (KeyError, ValueError):
            pass
        return (LibraryCall, tuple(getattr(self, f.name) for f in fields(self)))

    def check_available(self, name: str) -> None:
        """Raise an ImportError naming the extra when the optional dependency is missing."""
        if self.requires is not None:
            import_optional(*self.requires, name)


def import_optional(module: str, extra: str, algorithm: str) -> Any:
    """Import an optional dependency, or raise an ImportError naming its extra."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"clustering algorithm {algorithm!r} needs {module}, which is not installed: "
            f'install the {extra} extra, pip install "hawks-deap[{extra}]"'
        ) from error


# --------------------------------------------------------------------------- estimators


#: The parameters an estimator may have that every call sets.
_PER_CALL = ("n_clusters", "n_components", "random_state")


class EstimatorRunner:
    """Run a scikit-learn-style estimator as ``func(X, n_clusters, seed)``.

    The estimator is cloned for every call (``sklearn.base.clone``, or a deep copy for
    objects without ``get_params``), so the template is never fitted or changed. Its
    ``n_clusters`` (or else ``n_components``) is set to the requested number of
    clusters and its ``random_state`` from the seed, when it has these parameters.
    """

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator

    def _identity(self) -> tuple[Any, ...]:
        """The estimator's class and constructor parameters (what a call depends on)."""
        estimator = self.estimator
        if not hasattr(estimator, "get_params"):
            return (id(estimator),)
        params = estimator.get_params(deep=False)
        return (type(estimator), tuple(sorted((k, repr(v)) for k, v in params.items())))

    def __eq__(self, other: object) -> bool:
        # two instances of one class with the same parameters cluster alike
        return (isinstance(other, EstimatorRunner)
                and self._identity() == other._identity())

    def __hash__(self) -> int:
        return hash(self._identity())

    @staticmethod
    def _set_per_call(estimator: Any) -> list[str]:
        """The parameters every call sets (the number of clusters, the random state).

        Those of ``get_params``, or for an object without it, its attributes.
        """
        if hasattr(estimator, "get_params"):
            params = set(estimator.get_params(deep=False))
        else:
            params = {p for p in _PER_CALL if hasattr(estimator, p)}
        size = [p for p in ("n_clusters", "n_components") if p in params][:1]
        return size + (["random_state"] if "random_state" in params else [])

    @property
    def size_parameter(self) -> str | None:
        """The parameter set to the number of clusters, or None if there is none.

        ``"n_clusters"``, else ``"n_components"``; an estimator with neither (DBSCAN)
        runs as it is.
        """
        size = [p for p in self._set_per_call(self.estimator) if p != "random_state"]
        return size[0] if size else None

    def __call__(self, X: np.ndarray, n_clusters: int, seed: int | None) -> Any:
        template = self.estimator
        if hasattr(template, "get_params"):
            from sklearn.base import clone

            estimator = clone(template)
        else:
            estimator = copy.deepcopy(template)
        updates = {p: (random_state_from_seed(seed) if p == "random_state" else n_clusters)
                   for p in self._set_per_call(estimator)}
        if hasattr(estimator, "set_params"):
            estimator.set_params(**updates)
        else:
            for key, value in updates.items():
                setattr(estimator, key, value)
        return estimator.fit_predict(X)

    @property
    def settings(self) -> dict[str, Any]:
        """The estimator's class and its JSON-able parameters, less those set per call."""
        out: dict[str, Any] = {"estimator": qualified_name(type(self.estimator))}
        get_params = getattr(self.estimator, "get_params", None)
        if get_params is not None:
            params = get_params(deep=False)
            per_call = set(self._set_per_call(self.estimator))
            out.update({k: v for k, v in sorted(params.items())
                        if k not in per_call and _is_json_value(v)})
        return out

    def __repr__(self) -> str:
        return f"EstimatorRunner({self.estimator!r})"


def is_estimator(obj: object) -> bool:
    """Whether ``obj`` is an estimator instance (not a class) with ``fit_predict``."""
    return not isinstance(obj, type) and callable(getattr(obj, "fit_predict", None))


# --------------------------------------------------------------------------- algorithm


@dataclass(frozen=True, repr=False)
class ClusteringAlgorithm:
    """A named clustering algorithm: ``algorithm(X, n_clusters, seed) -> labels``.

    Picklable when ``func`` is (module-level functions and estimators are): the object
    carries the function itself, not only its name, so an algorithm registered in the
    main process also works in ``multiprocess`` spawn workers as long as its function is
    importable there. Two algorithms are equal when their names, functions (for
    registered ones: library calls and their settings) and multipliers are. Pickles
    name only public paths (``hawks_deap.clustering.ClusteringAlgorithm``; a registered
    call by its library entry point and settings).

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
    spec : str or None, default=None
        The text this algorithm was resolved from when it came from an import path
        (``"package.module:attr"``) or an installed plugin (its entry-point name): it
        pickles as that text and is resolved again where it is unpickled (a worker
        process, a dask worker, a checkpoint read later), the way the main process
        resolved it. None for registered algorithms and objects passed in.
    """

    name: str
    func: ClusterFunction
    k_multiplier: int = 1
    spec: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"name must be a non-empty string, got {self.name!r}")
        if not callable(self.func):
            raise TypeError(f"func must be callable, got {self.func!r} "
                            f"({type(self.func).__name__})")
        object.__setattr__(self, "k_multiplier",
                           check_int("k_multiplier", self.k_multiplier, minimum=1))

    @property
    def settings(self) -> dict[str, Any]:
        """A JSON-able description of the call (a new dict on every access).

        Registered algorithms: the library entry point (``"estimator"`` or
        ``"function"``) and its keyword arguments, e.g. ``{"estimator":
        "sklearn.cluster.KMeans", "init": "k-means++", "n_init": "auto"}``. A user's
        estimator: its class and its JSON-able parameters (less ``n_clusters`` /
        ``n_components`` and ``random_state``, set per call). A user's callable:
        ``{"callable": "module.qualname"}``. ``"k_multiplier"`` is added when it is not 1.
        """
        func = self.func
        if isinstance(func, (LibraryCall, EstimatorRunner)):
            out = func.settings
        else:
            out = {"callable": qualified_name(func)}
        if self.k_multiplier != 1:
            out["k_multiplier"] = self.k_multiplier
        return out

    @property
    def pairwise(self) -> bool:
        """Whether a call holds every pairwise distance of ``X`` at once.

        Declared by the registered algorithms (average, complete and Ward linkage and
        their ``-2k`` variants: scipy's linkage of the condensed distance matrix); False
        for single linkage (a minimum spanning tree in O(N) memory), the others, and
        users' estimators and callables, whose needs are not declared.
        """
        return isinstance(self.func, LibraryCall) and self.func.pairwise

    def memory_bytes(self, n_samples: int) -> int:
        """A lower bound on the memory one call on ``n_samples`` points needs besides X.

        ``8 N (N - 1)`` bytes for a `pairwise` algorithm: two condensed distance
        matrices of ``N (N - 1) / 2`` doubles, ``pdist``'s and the working copy scipy's
        ``linkage`` makes of it (its peak, measured at N = 12,000 for average, complete,
        weighted and Ward linkage: 2.00 matrices). Else 0 (no declared need).

        Parameters
        ----------
        n_samples : int
            N, the number of points, >= 0.

        Returns
        -------
        int
            The bytes.

        Raises
        ------
        TypeError
            If ``n_samples`` is not an integer.
        ValueError
            If ``n_samples`` is negative.

        Examples
        --------
        >>> from hawks_deap.clustering import get_algorithm
        >>> get_algorithm("ward-linkage").memory_bytes(100_000)
        79999200000
        >>> get_algorithm("single-linkage").memory_bytes(100_000)
        0
        """
        n = check_int("n_samples", n_samples, minimum=0)
        return 8 * n * (n - 1) if self.pairwise else 0

    def check_memory(self, n_samples: int, parameters: Mapping[str, Any],
                     label: str | None = None) -> None:
        """Refuse a call on ``n_samples`` points whose `memory_bytes` exceed this machine's.

        The one check of every place that clusters data it has not seen yet (the
        ``features`` and ``plot`` commands, Versus problems), before any work.

        Parameters
        ----------
        n_samples : int
            N, the number of points, >= 0.
        parameters : mapping of str to object
            What the message names as the cause (e.g. ``{"n_samples": N}``).
        label : str, optional
            How the message names the algorithm (default: its name).

        Raises
        ------
        ValueError
            Naming ``parameters``, the algorithm, its N (N - 1) / 2 distances and the
            bytes they need against the machine's memory.
        """
        from hawks_deap._util.memory import check_fits

        n = check_int("n_samples", n_samples, minimum=0)
        check_fits(f"{label or self.name} (all {n * (n - 1) // 2:,} pairwise distances)",
                   self.memory_bytes(n), dict(parameters))

    @property
    def takes_n_clusters(self) -> bool:
        """Whether the number of clusters asked for reaches the algorithm.

        True for registered algorithms and callables (they receive it) and for
        estimators with an ``n_clusters`` or ``n_components`` parameter; False for an
        estimator with neither (e.g. DBSCAN), which runs as it is whatever is asked.
        """
        return not isinstance(self.func, EstimatorRunner) or self.func.size_parameter is not None

    @property
    def tree_source(self) -> LibraryCall | None:
        """The call whose tree this algorithm cuts (None: it builds no tree).

        Two algorithms with the same source (a linkage and its ``-2k`` variant) cut one
        tree when they are given one ``trees`` dict: what `__call__` keys its trees by.
        """
        func = self.func
        return func if isinstance(func, LibraryCall) and func.tree is not None else None

    def __repr__(self) -> str:
        return f"ClusteringAlgorithm({self.name!r}, settings={self.settings!r})"

    def __reduce_ex__(self, protocol: Any) -> Any:
        # An algorithm named by an import path or a plugin travels as its text: every
        # process resolves it the same way (a class defined in a file loaded by path
        # could not be pickled by reference at all). Others pickle as before.
        if self.spec is not None and SPEC_RESOLVER:
            return (SPEC_RESOLVER[0], (self.spec, self.name))
        return super().__reduce_ex__(protocol)

    def __call__(self, X: np.ndarray, n_clusters: int, seed: int | None = None, *,
                 trees: dict[Any, Any] | None = None) -> np.ndarray:
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
            into an int); None draws one from Python's ``random``.
        trees : dict or None, default=None
            Hierarchies shared by calls on the same ``X`` (the same array object, not
            changed in between): the linkage algorithms (single, average, complete and
            Ward and their ``-2k`` variants) build their tree into it once per ``X`` and
            cut it at each number of clusters asked. Pass an empty dict to the first
            call. The labels are those of a call without it. Other algorithms ignore
            it.

        Returns
        -------
        ndarray of shape (N,)
            Integer (``np.intp``) cluster labels.

        Raises
        ------
        ValueError, TypeError
            If ``X``, ``n_clusters`` or ``seed`` is invalid (before the algorithm runs):
            ``X`` must be a 2-D array of real numbers with at least one row, all finite
            (no NaN or inf).
        RuntimeError
            Naming the algorithm, if it raises or returns anything other than N integer
            labels.
        """
        X = _check_X(X)
        n_samples = X.shape[0]
        n_clusters = check_int("n_clusters", n_clusters, minimum=1)
        k = n_clusters * self.k_multiplier
        if k > n_samples:
            raise ValueError(
                f"n_clusters * k_multiplier must be <= the number of samples {n_samples} "
                f"for algorithm {self.name!r}, got {n_clusters} * {self.k_multiplier} = {k}"
            )
        seed = normalize_seed(seed)
        if trees is not None and not isinstance(trees, dict):
            raise TypeError(f"trees must be a dict or None, got {type(trees).__name__}")
        try:
            result = self._run(X, k, seed, trees)
        except Exception as error:
            raise RuntimeError(
                f"clustering algorithm {self.name!r} failed on X of shape {X.shape} with "
                f"{k} clusters: {type(error).__name__}: {error}"
            ) from error
        return self._check_labels(result, n_samples)

    def _run(self, X: np.ndarray, k: int, seed: int | None, trees: dict[Any, Any] | None
             ) -> Any:
        func = self.func
        if not isinstance(func, LibraryCall):
            # code from outside the package gets its own copy: one that wrote into X
            # would change the data of every algorithm and evaluation after it
            return func(np.array(X, copy=True), k, seed)
        tree = func.tree
        if trees is None or tree is None:
            return func(X, k, seed)
        key = (self.tree_source, id(X))  # the algorithms that share a tree: `tree_source`
        if key not in trees:  # X is kept with its tree, so its id is not reused meanwhile
            trees[key] = (X, tree(X, **dict(func.params)))
        return trees[key][1](k)

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


def _check_X(X: object) -> np.ndarray:
    """``X`` as an array (its dtype kept), if it is 2-D, non-empty, real and finite.

    Libraries fail on NaN or inf with messages of their own, or not at all (a user's
    callable): every algorithm gets the same refusal, before it runs.
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] < 1:
        raise ValueError(f"X must be a 2-D array with at least one row, got shape "
                         f"{X.shape}")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"X must hold real numbers (a bool, integer or float array), got "
                        f"dtype {X.dtype}")
    if X.dtype.kind == "f":
        bad = ~np.isfinite(X)
        if bad.any():
            row, column = np.argwhere(bad)[0]
            raise ValueError(
                f"X must hold finite numbers only (no NaN or inf), got {int(bad.sum())} "
                f"non-finite value(s), the first X[{row}, {column}] = {X[row, column]}"
            )
    return X


AlgorithmSpec = str | ClusteringAlgorithm | ClusterFunction | Any
"""A registered name, a :class:`ClusteringAlgorithm`, an estimator or a callable."""


def as_algorithm(spec: object) -> ClusteringAlgorithm:
    """Wrap an estimator or a callable; raise TypeError for anything else."""
    if isinstance(spec, type):
        raise TypeError(
            f"algorithm must be a registered name, an estimator instance or a callable "
            f"func(X, n_clusters, seed); got the class {spec.__name__}: pass an instance, "
            f"e.g. {spec.__name__}()"
        )
    if is_estimator(spec):
        return ClusteringAlgorithm(type(spec).__name__, EstimatorRunner(spec))
    if callable(spec):
        name = getattr(spec, "__qualname__", None) or getattr(spec, "__name__", None)
        _check_signature(spec, name or type(spec).__name__)
        return ClusteringAlgorithm(name or type(spec).__name__, spec)
    raise TypeError(
        "algorithm must be a registered name, a ClusteringAlgorithm, an estimator with "
        f"fit_predict or a callable func(X, n_clusters, seed); got {spec!r} "
        f"({type(spec).__name__})"
    )


def _check_signature(func: Callable[..., Any], name: str) -> None:
    """Refuse, before any work, a callable that cannot be called as func(X, n_clusters, seed)."""
    import inspect

    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):  # (no signature to read, e.g. some builtins: tried)
        return
    try:
        signature.bind(None, 1, None)
    except TypeError:
        raise TypeError(f"algorithm {name} must be callable as func(X, n_clusters, seed), "
                        f"got a callable with signature {signature}") from None


#: How an algorithm named by its spec is resolved again when unpickled
#: (`hawks_deap.clustering.resolve_spec`), set by the module that defines it, which the
#: package imports before anything can be pickled.
SPEC_RESOLVER: list[Callable[[str, str], ClusteringAlgorithm]] = []


#: The registered algorithms' call of each library entry point, by target (scipy's
#: linkage: one call, its method a keyword argument), for `LibraryCall.builtin`; filled by
#: `hawks_deap.clustering._library`, which the package imports before anything can be
#: unpickled.
BUILTIN_CALLS: dict[str, LibraryCall] = {}
