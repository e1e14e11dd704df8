"""The Examples sections of the package's docstrings run and print what they show."""

import doctest
import importlib
import pkgutil

import pytest

import hawks_deap

MODULES = sorted(m.name for m in pkgutil.walk_packages(hawks_deap.__path__, "hawks_deap."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # an example that writes files writes them here
    module = importlib.import_module(name)
    results = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                              verbose=False, report=True)
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples failed"


def test_the_examples_are_found():
    finder = doctest.DocTestFinder()
    with_examples = [t.name for n in MODULES
                     for t in finder.find(importlib.import_module(n)) if t.examples]
    assert len(with_examples) >= 15, with_examples  # the finder sees the Examples at all
