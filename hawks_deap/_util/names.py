"""The name a record gives a Python object: ``module.qualname``."""

from __future__ import annotations

import sys

__all__ = ["qualified_name"]


def qualified_name(obj: object) -> str:
    """``module.qualname`` of a class or function, by its shortest public module path.

    scikit-learn defines ``KMeans`` in ``sklearn.cluster._kmeans`` and exports it from
    ``sklearn.cluster``: the name people import is the one recorded. A callable instance
    is named by its class.
    """
    if not hasattr(obj, "__qualname__"):  # a callable instance: name its class
        obj = type(obj)
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    module = getattr(obj, "__module__", None) or ""
    parts = module.split(".")
    for i in range(1, len(parts)):
        parent = sys.modules.get(".".join(parts[:i]))
        if parent is not None and getattr(parent, qualname, None) is obj:
            return f"{'.'.join(parts[:i])}.{qualname}"
    return f"{module}.{qualname}" if module else qualname
