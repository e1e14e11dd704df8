"""What a run ran on: the environment every run records.

`environment` is what every run records (``metadata.json``'s ``"environment"``, and
``suite.json``'s): the versions of hawks-deap, Python and the numerical libraries, the
platform, and the native BLAS/OpenMP kernels they picked; `environment_differences`
names what changed between two records. The reproducibility contract that reads them is
`hawks_deap.campaign.provenance`.
"""

from __future__ import annotations

import ctypes
import functools
import importlib
import json
import os
import platform
from collections.abc import Mapping
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

__all__ = ["LIBRARIES", "environment", "environment_differences", "numpy_dispatch"]


#: The distributions whose versions a run records (import name -> distribution name).
LIBRARIES: dict[str, str] = {
    "hawks_deap": "hawks-deap",
    "numpy": "numpy",
    "scipy": "scipy",
    "sklearn": "scikit-learn",
    "deap": "deap",
    "multiprocess": "multiprocess",
    "threadpoolctl": "threadpoolctl",
}



# The native libraries that compute for hawks-deap: those shipped in (or next to) these
# packages' folders. Other packages a user imported may load their own OpenMP or BLAS;
# they would make the record depend on the process, so they are left out.
_OWNERS = ("numpy", "scipy", "scikit_learn", "sklearn")


def _version(distribution: str) -> str | None:
    try:
        return importlib_metadata.version(distribution)
    except importlib_metadata.PackageNotFoundError:
        return None


def _owner(filepath: str) -> str | None:
    """The package folder a native library belongs to (``numpy.libs``), or None."""
    for part in Path(filepath).parts:
        if part.split(".")[0].split("-")[0] in _OWNERS:
            return part
    return None


#: File names of the OpenMP runtime a scikit-learn wheel ships (Linux, macOS, Windows).
_OPENMP_RUNTIMES = ("libgomp", "libomp", "libiomp5", "vcomp")


def _load_sklearn_openmp() -> bool:
    """Load the OpenMP runtime scikit-learn's wheel ships, without importing scikit-learn.

    Importing ``sklearn.cluster`` only to load it costs about 1 s (scipy.stats, pandas),
    most of a short ``generate``'s start-up; an Index run never needs scikit-learn. False
    when no such file is listed (a conda or system build links a shared runtime): the
    caller then imports scikit-learn.
    """
    try:
        files = importlib_metadata.files("scikit-learn") or []
    except importlib_metadata.PackageNotFoundError:
        return False
    for file in files:
        name = file.name.lower()
        if name.startswith(_OPENMP_RUNTIMES) and (".so" in name
                                                  or name.endswith((".dylib", ".dll"))):
            try:
                ctypes.CDLL(str(file.locate()))
            except OSError:
                return False
            return True
    return False


def _native_libraries() -> list[dict[str, Any]]:
    # load the libraries hawks-deap computes with before listing them, so that the list
    # does not depend on what the process happened to import first
    # (tests/test_provenance.py: a fresh process records what one that clustered does)
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    if not _load_sklearn_openmp():
        import sklearn.cluster  # noqa: F401

    found = []
    for info in threadpool_info():
        owner = _owner(info.get("filepath") or "")
        # a BLAS outside the packages (a system or conda BLAS) is the one numpy uses
        if owner is None and info.get("user_api") != "blas":
            continue
        found.append({
            "owner": owner,
            "user_api": info.get("user_api"),
            "internal_api": info.get("internal_api"),
            "version": info.get("version"),
            "architecture": info.get("architecture"),
            "threading_layer": info.get("threading_layer"),
            "file": Path(info.get("filepath") or "").name,
        })
    return sorted(found, key=lambda lib: (str(lib["owner"]), str(lib["file"])))


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def numpy_dispatch() -> list[str] | None:
    """The SIMD dispatch targets of numpy that this CPU enables (e.g. ``["X86_V3"]``: AVX2), sorted.

    numpy picks some kernels by CPU (its AVX-512 ``exp`` rounds otherwise than the C
    library): part of the environment. None where numpy does not say (its attributes are
    private; they are read defensively).
    """
    try:
        umath = importlib.import_module("numpy._core._multiarray_umath")
        dispatch, features = umath.__cpu_dispatch__, umath.__cpu_features__
    except (ImportError, AttributeError):  # pragma: no cover - another numpy layout
        return None
    return sorted(f for f in dispatch if features.get(f))


@functools.lru_cache(maxsize=1)
def _environment_json() -> str:
    record = {
        "python": f"{platform.python_version()} ({platform.python_implementation()})",
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": _cpu(),
        "libraries": {dist: _version(dist) for dist in LIBRARIES.values()},
        "native": _native_libraries(),
        "numpy_simd": numpy_dispatch(),
        # OpenBLAS picks its kernel from the CPU unless this is set
        "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
    }
    return json.dumps(record, sort_keys=True)


def environment() -> dict[str, Any]:
    """The environment of this process, as runs record it.

    Returns
    -------
    dict
        ``python`` (version and implementation), ``platform``, ``machine``, ``cpu``
        (model name), ``libraries`` (the versions of hawks-deap, numpy, scipy,
        scikit-learn, DEAP, multiprocess and threadpoolctl), ``native`` (the BLAS and
        OpenMP libraries of numpy, scipy and scikit-learn, as threadpoolctl lists them:
        library, version, the kernel architecture it picked, threading layer; thread
        counts are left out: hawks-deap's results do not depend on them),
        ``numpy_simd`` (numpy's SIMD dispatch targets on this CPU, `numpy_dispatch`) and
        ``openblas_coretype`` (the variable that forces OpenBLAS' kernel, or None).
        The same within one process (computed once); a new dict each call.

    Examples
    --------
    >>> import hawks_deap.campaign.provenance as hp
    >>> hp.environment()["libraries"]["hawks-deap"] is not None
    True
    """
    return json.loads(_environment_json())


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key in sorted(value):
            out.update(_flatten(value[key], f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        out = {}
        for i, item in enumerate(value):
            name = item.get("owner") or item.get("file") or str(i)
            out.update(_flatten({k: v for k, v in item.items() if k != "owner"},
                                f"{prefix}[{name}]"))
        return out
    return {prefix: value}


def environment_differences(recorded: Any, current: Mapping[str, Any] | None = None
                            ) -> list[str]:
    """What differs between a recorded environment and another (default: this one).

    Parameters
    ----------
    recorded : dict or None
        An ``"environment"`` entry of a ``metadata.json`` (None or a non-mapping: a run
        written before environments were recorded).
    current : mapping, optional
        The environment to compare with (default: `environment`).

    Returns
    -------
    list of str
        One ``"key: recorded -> current"`` line per difference (e.g.
        ``"native[numpy.libs].architecture: SkylakeX -> Haswell"``); empty when equal.
        A run without a record gives ``["no environment recorded"]``.
    """
    if not isinstance(recorded, Mapping):
        return ["no environment recorded (its metadata.json has no environment entry)"]
    before, after = _flatten(recorded), _flatten(environment() if current is None
                                                 else current)
    return [f"{key}: {before.get(key)} -> {after.get(key)}"
            for key in sorted(set(before) | set(after)) if before.get(key) != after.get(key)]
