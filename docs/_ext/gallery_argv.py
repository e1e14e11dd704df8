"""The command-line arguments sphinx-gallery gives each gallery script (``reset_argv``).

A module of its own, named in ``conf.py`` by its qualified name, so that Sphinx can
cache the configuration (a function object in ``conf.py`` cannot be pickled).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any


def example_argv(gallery_conf: dict[str, Any], script_vars: dict[str, Any]) -> list[str]:
    """``examples/`` scripts run ``--quick``, writing into a scratch folder, one worker.

    Nothing is written beside the scripts (sphinx-gallery runs them in their folder).
    """
    src = Path(script_vars["src_file"])
    if src.parent.name != "examples":
        return []
    argv = ["--quick"]
    text = src.read_text()
    scratch = Path(tempfile.mkdtemp(prefix=f"hawks-deap-docs-{src.stem}-"))
    if '"--out"' in text:
        argv += ["--out", str(scratch)]
    if '"--plot"' in text:  # (a file, written in the current folder by default)
        argv += ["--plot", str(scratch / f"{src.stem}.png")]
    if '"--workers"' in text:
        argv += ["--workers", "1"]
    return argv
