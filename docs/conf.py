"""Sphinx configuration of the hawks-deap documentation.

Build (from the repository root)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(ROOT))

import hawks_deap  # noqa: E402

# the gallery scripts draw figures without a display
os.environ.setdefault("MPLBACKEND", "Agg")

project = "hawks-deap"
author = "hawks-deap contributors"
copyright = "hawks-deap contributors"  # noqa: A001
version = hawks_deap.__version__
release = hawks_deap.__version__

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx_copybutton",
    "sphinx_gallery.gen_gallery",
    "cli_reference",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "_templates",
    "_ext",
    "gallery_src",      # sphinx-gallery's sources; its output is gallery/
    "Thumbs.db",
    ".DS_Store",
    "ARCHITECTURE.md",  # included by architecture.md
]
# docs/paper_differences.md is written separately: the About toctree of index.md lists it
# only when it exists (see setup), so the build neither fails nor warns without it
PAPER_DIFFERENCES = HERE / "paper_differences.md"

# -- Markdown (MyST) ---------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# BENCHMARKS.md and ARCHITECTURE.md link to files of the repository (scripts, tests)
# that are not documentation pages; MyST would report each as a missing cross-reference
myst_url_schemes = ["http", "https", "mailto"]

# -- API reference (autodoc, autosummary, numpydoc) ---------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"          # numpydoc's Parameters sections carry the types
autodoc_member_order = "bysource"
autodoc_default_options = {"show-inheritance": True}


def _api_entries() -> dict[str, list[str]]:
    """``{module: [names]}`` of the autosummary tables of ``api/*.rst``."""
    import re

    entries: dict[str, list[str]] = {}
    for page in sorted((HERE / "api").glob("*.rst")):
        text = page.read_text(encoding="utf-8")
        module = re.search(r"^\.\. currentmodule:: (\S+)", text, re.M)
        if module is None:
            continue
        names = re.findall(r"^   ([A-Za-z_][\w]*)$", text, re.M)
        entries[module.group(1)] = names
    return entries


def _duplicate_classes() -> list[str]:
    """Documented names of classes documented under another name too, but one.

    A class exported by several documented modules (``hawks_deap.Dataset`` and
    ``hawks_deap.io.Dataset``) gets one page under each name; autodoc records each under
    the class's defining name, which Sphinx reports as a duplicate. The top-level name
    (else the one nearest the defining module) is indexed, the others get ``:no-index:``.
    """
    import importlib

    by_class: dict[str, list[str]] = {}
    for module, names in _api_entries().items():
        mod = importlib.import_module(module)
        for name in names:
            obj = getattr(mod, name, None)
            if isinstance(obj, type):
                by_class.setdefault(f"{obj.__module__}.{obj.__qualname__}", []).append(
                    f"{module}.{name}")
    noindex = []
    for canonical, names in by_class.items():
        if len(names) < 2:
            continue

        def rank(name: str, canonical: str = canonical) -> tuple[int, int]:
            top = name.count(".") == 1
            common = len(os.path.commonprefix([name, canonical]))
            return (0 if top else 1, -common)

        noindex += sorted(names, key=rank)[1:]
    return sorted(noindex)


autosummary_context = {"noindex": _duplicate_classes()}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
default_role = "py:obj"

# -- HTML ----------------------------------------------------------------------------
html_theme = "furo"
html_title = f"hawks-deap {release}"
html_static_path: list[str] = []
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True

# -- Gallery -------------------------------------------------------------------------
sphinx_gallery_conf = {
    # the small gallery scripts, then the longer studies of examples/ (run --quick)
    "examples_dirs": ["gallery_src", "../examples"],
    "gallery_dirs": ["gallery", "examples_gallery"],
    "filename_pattern": r"/plot_|/examples/",
    "reset_argv": "gallery_argv.example_argv",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "show_memory": False,
    "min_reported_time": 0,
}


def _toctree_paper_differences(app, docname, source):
    """``source-read``: put ``paper_differences`` in index.md's About toctree if it exists."""
    if docname == "index" and PAPER_DIFFERENCES.exists():
        source[0] = source[0].replace("benchmarks\nreferences\n",
                                      "benchmarks\npaper_differences\nreferences\n")


def _data_docstring(app, what, name, obj, options, lines):
    """``autodoc-process-docstring``: the ``#:`` comment of a re-exported constant.

    autodoc finds a constant's ``#:`` comment only in the module it is documented under;
    for a constant re-exported by a package (``hawks_deap.evaluation.EVALUATORS``, defined
    in ``hawks_deap.evaluation.evaluator``) it falls back to the docstring of the value's
    type (``tuple``, ``str``). Take the comment from the module that defines it instead,
    or show nothing.
    """
    if what not in ("data", "attribute") or "." not in name:
        return
    type_doc = getattr(type(obj), "__doc__", None)
    type_doc = type_doc.strip().splitlines() if isinstance(type_doc, str) else []
    if not lines or not type_doc or lines[0].strip() != type_doc[0].strip():
        return
    from sphinx.pycode import ModuleAnalyzer

    modname, attr = name.rsplit(".", 1)
    package = modname.split(".", 1)[0]
    # the documented module first, then its sub-modules, then the rest of the package
    candidates = sorted((m for m in list(sys.modules)
                         if m == package or m.startswith(package + ".")),
                        key=lambda m: (m != modname, not m.startswith(modname + "."), m))
    found: list[str] = []
    for candidate in candidates:
        if getattr(sys.modules[candidate], attr, None) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(candidate).find_attr_docs()
        except Exception:  # noqa: BLE001 - no source: keep looking
            continue
        if ("", attr) in docs:
            found = list(docs[("", attr)])
            break
    lines[:] = found


def setup(app):
    """Connect the handlers above."""
    import gallery_argv

    app.connect("source-read", _toctree_paper_differences)
    app.connect("build-finished", gallery_argv.remove_scratch)
    # before numpydoc's handler, which would otherwise parse the type's docstring
    app.connect("autodoc-process-docstring", _data_docstring, priority=100)
