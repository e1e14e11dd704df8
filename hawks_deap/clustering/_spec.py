"""Algorithms named by text: import paths and installed plugins.

A researcher's own algorithm is named by one string everywhere a registered name is
accepted (the command line, TOML, suite grids, Python):

``"package.module:attr"``
    ``attr`` (dotted for a nested attribute) of an importable module.
``"path/to/file.py:attr"``
    ``attr`` of a Python file, loaded by its path (relative to the working directory
    where it is first resolved; the resolved algorithm carries the absolute path, so
    worker processes find the same file).
a plugin's name
    An entry point of the ``hawks_deap.algorithms`` group of an installed distribution,
    e.g. in its ``pyproject.toml``: ``[project.entry-points."hawks_deap.algorithms"]``
    ``my-algo = "my_pkg.algo:MyAlgo"``.

The object named may be a `ClusteringAlgorithm`; an estimator class with
``fit_predict`` (instantiated without arguments); an estimator instance; a factory (a
callable taking no argument) that returns one of these or a function; or a function
``func(X, n_clusters, seed) -> labels``. The algorithm is named by the text itself and
pickles as that text (`ClusteringAlgorithm.spec`): worker processes and dask workers
resolve it as the main process did, so results do not depend on where a task runs.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

from hawks_deap.clustering._core import (
    SPEC_RESOLVER,
    ClusteringAlgorithm,
    as_algorithm,
    is_estimator,
)

__all__ = ["ENTRY_POINT_GROUP", "file_spec", "is_import_spec", "plugin_names", "resolve_spec",
           "source_version"]

#: The entry-point group of installed clustering-algorithm plugins.
ENTRY_POINT_GROUP = "hawks_deap.algorithms"

#: What a spec names, resolved once per process (a factory is called once).
_RESOLVED: dict[tuple[str, str], ClusteringAlgorithm] = {}

_FORMS = ("'package.module:attr', 'path/to/file.py:attr', a registered name or an "
          f"installed plugin ({ENTRY_POINT_GROUP!r} entry point)")


class SpecError(ValueError):
    """A spec that names no usable algorithm (the message names the spec and why)."""


def is_import_spec(text: str) -> bool:
    """Whether ``text`` has the form of an import path (``module:attr``).

    Parameters
    ----------
    text : str
        An algorithm's name or spec.

    Returns
    -------
    bool
        True when it holds a colon (no registered name does).
    """
    return ":" in text


def file_spec(text: object) -> tuple[Path, str] | None:
    """``(file, attr)`` of a spec naming a file (``path/to/file.py:attr``), else None.

    The path as written (relative ones are not resolved).

    Parameters
    ----------
    text : object
        An algorithm's name or spec (anything else: None).

    Returns
    -------
    tuple of (pathlib.Path, str) or None
    """
    if not isinstance(text, str):
        return None
    module_name, _, attr = text.rpartition(":")  # rpartition: a drive letter's colon
    return (Path(module_name), attr) if module_name.endswith(".py") and attr else None


def plugin_names() -> list[str]:
    """The names of the installed plugins (entry points of `ENTRY_POINT_GROUP`)."""
    return [ep.name for ep in _plugins()]


@functools.lru_cache(maxsize=1)
def _plugins() -> tuple[Any, ...]:
    from importlib.metadata import entry_points

    return tuple(entry_points(group=ENTRY_POINT_GROUP))


def resolve_spec(spec: str, name: str | None = None) -> ClusteringAlgorithm:
    """The algorithm an import path or a plugin's name names, resolved once per process.

    Parameters
    ----------
    spec : str
        ``"package.module:attr"``, ``"path/to/file.py:attr"`` or a plugin's name.
    name : str, optional
        The algorithm's name (default: ``spec``); how a pickled algorithm whose file
        spec was made absolute keeps the name it was given.

    Returns
    -------
    ClusteringAlgorithm
        Named ``spec``; it pickles as its spec.

    Raises
    ------
    ValueError
        Naming the spec and the reason: a module that cannot be imported (or raises
        when imported), a missing attribute, an object that is no algorithm, a class or
        factory that fails when called without arguments, an unknown plugin.
    """
    key = (spec, name or spec)
    cached = _RESOLVED.get(key)
    if cached is not None:
        return cached
    if is_import_spec(spec):
        target, obj = _import_target(spec)
    else:
        matches = [ep for ep in _plugins() if ep.name == spec]
        if not matches:
            raise SpecError(f"algorithm {spec!r} is not registered, not an import path and "
                            f"no installed plugin; expected {_FORMS}")
        target, obj = spec, _call(spec, matches[0].load, "loading its entry point")
    algorithm = _from_object(name or spec, target, obj)
    _RESOLVED[key] = algorithm
    return algorithm


SPEC_RESOLVER.append(resolve_spec)


def _import_target(spec: str) -> tuple[str, Any]:
    """``(canonical spec, object)``; a file's spec is made absolute."""
    module_name, _, attr = spec.rpartition(":")  # rpartition: a drive letter's colon
    if not module_name or not attr or not all(p.isidentifier() for p in attr.split(".")):
        raise SpecError(f"algorithm {spec!r} is not an import path: expected {_FORMS}")
    if file_spec(spec) is not None:
        path = Path(module_name).expanduser().resolve()
        if not path.is_file():
            raise SpecError(f"algorithm {spec!r}: no file {path}")
        module = _call(spec, lambda: _load_file(path), f"loading {path}")
        target = f"{path}:{attr}"
    else:
        module = _call(spec, lambda: importlib.import_module(module_name),
                       f"importing {module_name!r}")
        target = spec
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise SpecError(f"algorithm {spec!r}: {module_name!r} has no attribute "
                            f"{attr!r}")
        obj = getattr(obj, part)
    return target, obj


def _load_file(path: Path) -> Any:
    """Import a file under a module name of its own (one per path, kept in sys.modules)."""
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    name = f"_hawks_deap_user_{path.stem.replace('-', '_')}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(f"{path} is not a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # before running it: its classes name their module
    try:
        module_spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _call(spec: str, func: Any, doing: str) -> Any:
    """``func()``, its failure (a user's code raising anything) told as a SpecError."""
    try:
        return func()
    except Exception as error:
        raise SpecError(f"algorithm {spec!r}: {doing} failed: {type(error).__name__}: "
                        f"{error}") from error


def _takes_no_arguments(obj: Any) -> bool:
    try:
        inspect.signature(obj).bind()
    except (TypeError, ValueError):
        return False
    return True


def _from_object(name: str, spec: str, obj: Any) -> ClusteringAlgorithm:
    """Wrap what a spec names (see the module's docstring for what it may be)."""
    if isinstance(obj, type):
        if not callable(getattr(obj, "fit_predict", None)):
            raise SpecError(f"algorithm {name!r}: the class {obj.__qualname__} has no "
                            "fit_predict; name an estimator class, an instance, a factory "
                            "or a function func(X, n_clusters, seed)")
        obj = _call(name, obj, f"creating {obj.__qualname__}() without arguments")
    elif (callable(obj) and not is_estimator(obj)
          and not isinstance(obj, ClusteringAlgorithm) and _takes_no_arguments(obj)):
        obj = _call(name, obj, "calling the factory")  # a factory: its product is used
        if isinstance(obj, type) or (callable(obj) and not is_estimator(obj)
                                     and not isinstance(obj, ClusteringAlgorithm)
                                     and _takes_no_arguments(obj)):
            raise SpecError(f"algorithm {name!r}: the factory returned {obj!r}, not an "
                            "estimator instance, a ClusteringAlgorithm or a function")
    k_multiplier = 1
    if isinstance(obj, ClusteringAlgorithm):
        func, k_multiplier = obj.func, obj.k_multiplier
    else:
        try:
            func = as_algorithm(obj).func
        except TypeError as error:
            raise SpecError(f"algorithm {name!r}: {error}") from None
    return ClusteringAlgorithm(name, func, k_multiplier=k_multiplier, spec=spec)


def source_version(module: str) -> str | None:
    """The installed version of the distribution that provides ``module``, if known.

    Parameters
    ----------
    module : str
        A module's dotted name; its top-level package is looked up among installed
        distributions, then its ``__version__``.

    Returns
    -------
    str or None
    """
    top = module.split(".")[0]
    names = _distributions().get(top, [])
    if names:
        from importlib.metadata import version

        try:
            return version(names[0])
        except Exception:  # a broken installation: say nothing rather than fail a run
            pass
    found = getattr(sys.modules.get(top), "__version__", None)
    return found if isinstance(found, str) else None


@functools.lru_cache(maxsize=1)
def _distributions() -> dict[str, list[str]]:
    from importlib.metadata import packages_distributions

    return dict(packages_distributions())
