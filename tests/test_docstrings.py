"""The package's docstrings: their Examples run and print what they show, and every
parameter of the public API is documented (numpy style)."""

import doctest
import importlib
import inspect
import pkgutil
import re

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


def public_callables():
    """(qualified name, function, docstring owner) of every public function and method:
    the ``__all__`` of each public module, and the public methods of its classes (a
    class's ``__init__`` is documented in the class docstring)."""
    public = ["hawks_deap", *(n for n in MODULES
                              if not any(p.startswith("_") for p in n.split(".")[1:]))]
    seen = {}
    for module_name in public:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            where = f"{module_name}.{name}"
            if inspect.isfunction(obj):
                seen.setdefault(obj, (where, obj, obj))
            elif inspect.isclass(obj) and obj.__module__.startswith("hawks_deap"):
                if inspect.isfunction(vars(obj).get("__init__")):
                    seen.setdefault(obj.__init__, (where, obj.__init__, obj))
                for key, value in vars(obj).items():
                    value = getattr(value, "__func__", value)  # static and class methods
                    if inspect.isfunction(value) and not key.startswith("_"):
                        seen.setdefault(value, (f"{where}.{key}", value, value))
    return list(seen.values())


def documented_parameters(doc):
    """The names a numpy-style Parameters (or, for a dataclass, Attributes) section lists;
    None without such a section."""
    section = re.search(r"^(?:Parameters|Attributes)\n-+\n(.*?)(?:\n\n\w[\w ]*\n-+\n|\Z)",
                        doc, re.S | re.M)
    if section is None:
        return None
    names = set()
    for line in section.group(1).splitlines():
        if line and not line[0].isspace():  # "name : type" or "a, b : type"
            names.update(n.strip().lstrip("*") for n in line.split(" : ")[0].split(","))
    return names


def test_every_parameter_of_the_public_api_is_documented():
    missing = []
    for where, function, owner in public_callables():
        parameters = [p.name for p in inspect.signature(function).parameters.values()
                      if p.name not in ("self", "cls")
                      and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        names = documented_parameters(inspect.getdoc(owner) or "")
        if parameters and names is None:
            missing.append(f"{where}: no Parameters section ({', '.join(parameters)})")
        elif parameters:
            undocumented = [p for p in parameters if p not in names]
            if undocumented:
                missing.append(f"{where}: {', '.join(undocumented)} not documented")
    assert not missing, "\n".join(missing)


def test_the_parameters_check_can_fail():
    def documented(a, b):
        """Summary.

        Parameters
        ----------
        a, b : int
            Two numbers.
        """

    def half(a, b):
        """Summary.

        Parameters
        ----------
        a : int
            A number.
        """

    assert documented_parameters(inspect.getdoc(documented)) == {"a", "b"}
    assert documented_parameters(inspect.getdoc(half)) == {"a"}
    assert documented_parameters("Summary.") is None
