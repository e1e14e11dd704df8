"""The command-line arguments sphinx-gallery gives each gallery script (``reset_argv``).

A module of its own, named in ``conf.py`` by its qualified name, so that Sphinx can
cache the configuration (a function object in ``conf.py`` cannot be pickled).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

#: The scratch folders this build made (`remove_scratch` deletes them, and only them).
_SCRATCH: list[Path] = []


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
    _SCRATCH.append(scratch)
    if '"--out"' in text:  # a folder inside the scratch one: what a script writes
        out = scratch / "out"  # beside its --out (a grid file) is deleted with it
        out.mkdir()
        argv += ["--out", str(out)]
    if '"--plot"' in text:  # (a file, written in the current folder by default)
        argv += ["--plot", str(scratch / f"{src.stem}.png")]
    if '"--workers"' in text:
        argv += ["--workers", "1"]
    return argv


def remove_scratch(app: Any, exception: BaseException | None) -> None:
    """At the end of the build, delete the scratch folders `example_argv` made.

    Only the folders this process created (``mkdtemp`` names them uniquely), each
    checked again right before: still a real directory, not a link.
    """
    while _SCRATCH:
        folder = _SCRATCH.pop()
        if folder.is_dir() and not folder.is_symlink():
            shutil.rmtree(folder)
