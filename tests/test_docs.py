"""The documentation's sources cover the public API and the command line (no Sphinx build).

Every name in ``hawks_deap.__all__`` and in the ``__all__`` of every documented public
module must appear in that module's page of the API reference (``docs/api/``): a new
public name without a docs entry fails here. The command-line reference is generated
(``docs/_ext/cli_reference.py``); its text must name every command and option.
"""

from __future__ import annotations

import importlib
import re
import sys
import types
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
API = DOCS / "api"

#: The public modules the API reference documents (each has docs/api/<module>.rst).
DOCUMENTED = (
    "hawks_deap",
    "hawks_deap.genome",
    "hawks_deap.operators",
    "hawks_deap.evaluation",
    "hawks_deap.clustering",
    "hawks_deap.metrics",
    "hawks_deap.problems",
    "hawks_deap.algorithms",
    "hawks_deap.io",
    "hawks_deap.io.batteries",
    "hawks_deap.io.collection",
    "hawks_deap.analysis",
    "hawks_deap.analysis.features",
    "hawks_deap.analysis.stats",
    "hawks_deap.analysis.plotting",
    "hawks_deap.analysis.isa",
    "hawks_deap.analysis.gaps",
    "hawks_deap.presets",
    "hawks_deap.settings",
    "hawks_deap.settings.model",
    "hawks_deap.settings.config",
    "hawks_deap.campaign",
    "hawks_deap.campaign.runs",
    "hawks_deap.campaign.suite",
    "hawks_deap.campaign.fill",
    "hawks_deap.campaign.seed_keys",
    "hawks_deap.campaign.provenance",
    "hawks_deap.campaign.hawks_json",
)


def _page(module: str) -> str:
    path = API / f"{module}.rst"
    assert path.is_file(), f"no API page for {module}: add docs/api/{module}.rst"
    return path.read_text(encoding="utf-8")


def _autosummary_names(text: str) -> set[str]:
    """Names listed in the page's autosummary tables (three-space indented entries)."""
    names: set[str] = set()
    for block in re.split(r"^\.\. autosummary::", text, flags=re.M)[1:]:
        for line in block.splitlines()[1:]:
            if line and not line.startswith("   "):
                break
            entry = line.strip()
            if entry and not entry.startswith(":"):
                names.add(entry.lstrip("~").rsplit(".", 1)[-1])
    return names


def _linked_modules(text: str) -> set[str]:
    return set(re.findall(r":doc:`[^`<]*<([\w.]+)>`", text))


@pytest.mark.parametrize("module", DOCUMENTED)
def test_every_public_name_has_an_api_entry(module):
    mod = importlib.import_module(module)
    text = _page(module)
    assert re.search(rf"^\.\. automodule:: {re.escape(module)}$", text, re.M), module
    documented = _autosummary_names(text)
    linked = _linked_modules(text)
    missing = []
    for name in getattr(mod, "__all__", ()):
        if isinstance(getattr(mod, name), types.ModuleType):
            if f"{module}.{name}" not in linked:
                missing.append(f"{name} (sub-module: link docs/api/{module}.{name}.rst)")
        elif name not in documented:
            missing.append(name)
    assert not missing, f"public names of {module} missing from docs/api/{module}.rst: " \
                        f"{missing}"


def test_every_public_sub_package_is_documented():
    import hawks_deap

    subpackages = {f"hawks_deap.{name}" for name in hawks_deap.__all__
                   if isinstance(getattr(hawks_deap, name), types.ModuleType)}
    assert subpackages <= set(DOCUMENTED)
    for module in ("hawks_deap.settings", "hawks_deap.campaign"):
        children = {m for m in DOCUMENTED if m.startswith(module + ".")}
        assert children <= _linked_modules(_page(module))


def test_api_pages_are_in_the_api_toctree():
    index = (API / "index.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   (hawks_deap[\w.]*)$", index, re.M))
    assert listed == set(DOCUMENTED)
    assert {p.stem for p in API.glob("*.rst")} - {"index"} == set(DOCUMENTED)


def test_cli_reference_names_every_command_and_option():
    from hawks_deap.cli.app import SUBCOMMANDS
    from hawks_deap.settings.config import SCHEMA, options_for

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        cli_reference = importlib.import_module("cli_reference")
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    text = cli_reference.render()
    for command, row in SUBCOMMANDS.items():
        section = text.split(f"``hawks-deap {command}``\n", 1)
        assert len(section) == 2, f"no section for {command}"
        body = section[1].split("\n.. _cli-", 1)[0]
        assert " ".join(row.description.split()) in " ".join(body.replace("\\", "").split())
        for opt in options_for(command, SCHEMA):
            shown = (opt.metavar or opt.key.upper()) if opt.positional else opt.flag
            assert f"``{shown}" in body, f"{command}: {shown} missing"
            if opt.section is not None:
                assert f"``{opt.qualified}``" in body, f"{command}: {opt.qualified} missing"
