"""Release basics (issue 33, item 3 and 4): one source for the version, a citation file
that names the HAWKS paper, a changelog, PEP 561 types, and extras that say what they
hold (no AGPL-3.0 package in `all`)."""

import importlib.metadata
import sys
from pathlib import Path

import pytest

import hawks_deap as hd

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
#: Distributions under the GNU AGPL-3.0 that an extra may pull.
AGPL = {"genieclust", "clustering-benchmarks"}


def test_the_version_has_one_source():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "hawks_deap.__version__"}
    assert importlib.metadata.version("hawks-deap") == hd.__version__


def test_citation_names_this_software_and_the_paper():
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and str(cff["version"]) == hd.__version__
    paper = cff["preferred-citation"]
    assert paper["title"] == "HAWKS: Evolving Challenging Benchmark Sets for Cluster Analysis"
    assert [a["family-names"] for a in paper["authors"]] == [
        "Shand", "Allmendinger", "Handl", "Webb", "Keane"]
    assert paper["journal"] == "IEEE Transactions on Evolutionary Computation"


def test_the_changelog_lists_this_version():
    assert f"## {hd.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_the_package_says_it_is_typed():
    assert (Path(hd.__file__).parent / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["hawks_deap"]


def _requirements(extra: str) -> set[str]:
    """The distribution names an extra pulls, its own extras followed."""
    out = set()
    for requirement in PYPROJECT["project"]["optional-dependencies"][extra]:
        name = requirement.split(";")[0].split("[")[0].split(">")[0].split("=")[0].strip()
        if name == "hawks-deap":
            for inner in requirement.split("[")[1].split("]")[0].split(","):
                out |= _requirements(inner.strip())
        else:
            out.add(name)
    return out


def test_all_holds_every_runtime_feature_and_no_agpl_package():
    extras = PYPROJECT["project"]["optional-dependencies"]
    runtime = {"plot", "distributed", "fast"}
    assert _requirements("all") == set().union(*(_requirements(e) for e in runtime))
    assert not _requirements("all") & AGPL
    assert _requirements("genie") == {"genieclust"}  # the AGPL extra, named in the README
    assert {"pytest", "ruff", "mypy"} <= _requirements("dev")
    assert not {"pytest", "ruff", "mypy"} & _requirements("all")
    assert set(extras) >= {"plot", "distributed", "fast", "genie", "all", "dev"}
