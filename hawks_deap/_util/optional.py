"""Optional dependencies, imported when a feature that needs them is used."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["optional_module"]


def optional_module(module: str, who: str, install: str) -> Any:
    """Import ``module``, or raise an ImportError saying who needs it and how to install it.

    Parameters
    ----------
    module : str
        The module to import, e.g. ``"pandas"``.
    who : str
        What needs it, e.g. ``"Table.to_pandas"``.
    install : str
        How to install it, e.g. ``"pip install pandas"``.

    Returns
    -------
    module
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{who} needs {module}: {install}") from None
