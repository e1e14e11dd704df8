"""docs/ARCHITECTURE.md stays true: its module table, the Problem protocol, its recipes.

- The module table's "imports from the package" column lists, row by row, exactly the
  package modules the row's modules import (parsed with `ast`): those imported when the
  module is imported, then, after ``when called:``, those imported only inside functions.
  Sub-packages (``evaluation/``, ``operators/``, ...) count as one module; parenthesised
  text is a note; annotation-only imports (``if TYPE_CHECKING:``) do not count.
- The protocol members the page lists are the ones `Problem` declares, and a loop asks
  nothing else of a problem.
- The mean-operator and validity-index recipes: a name added to `MEAN_MUTATIONS` or to the
  metrics registry is found by everything the page says, with no other edit.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap.problems import Problem
from hawks_deap.settings import config

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "hawks_deap"
ENTRY = ROOT / "hawks_deap_entry.py"
DOC = ROOT / "docs" / "ARCHITECTURE.md"
TABLE_HEADER = "| module | what it holds | imports from the package |"

# ---------------------------------------------------------------------- the import table

#: The package's modules as the table counts them: top-level modules and sub-packages.
UNITS = frozenset({p.stem for p in PACKAGE.glob("*.py")}
                  | {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()})


def _init_names() -> dict[str, str]:
    """The names ``hawks_deap/__init__.py`` takes from its modules: name -> module."""
    names = {}
    for node in ast.parse((PACKAGE / "__init__.py").read_text()).body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hawks_deap."):
            for alias in node.names:
                names[alias.asname or alias.name] = node.module.split(".")[1]
    return names


INIT_NAMES = _init_names()


def _target(module: str, name: str | None) -> str:
    """The unit ``from MODULE import NAME`` (or ``import MODULE``) imports."""
    parts = module.split(".")
    if len(parts) > 1:
        return parts[1]
    if name in UNITS:
        return name
    return INIT_NAMES.get(name, "__init__")


def _type_checking(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _attribute_units(tree: ast.AST, alias: str) -> set[str]:
    """What ``import hawks_deap as ALIAS`` is used for: ``ALIAS.NAME`` mapped to modules."""
    used = {_target("hawks_deap", node.attr) for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == alias}
    return used or {"__init__"}


def package_imports(path: Path) -> tuple[set[str], set[str]]:
    """(imported at import time, imported only when called) units of one file."""
    tree = ast.parse(path.read_text())
    top: set[str] = set()
    called: set[str] = set()

    def visit(node: ast.AST, deferred: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                continue  # annotations only
            inner = deferred or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef
                                           | ast.Lambda)
            found: set[str] = set()
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name == "hawks_deap":
                        found |= _attribute_units(tree, alias.asname or alias.name)
                    elif alias.name.startswith("hawks_deap."):
                        found.add(_target(alias.name, None))
            elif isinstance(child, ast.ImportFrom):
                assert not child.level, f"{path}: a relative import, which this test cannot map"
                module = child.module or ""
                if module == "hawks_deap" or module.startswith("hawks_deap."):
                    found |= {_target(module, alias.name) for alias in child.names}
            (called if inner else top).update(found)
            visit(child, inner)

    visit(tree, False)
    own = path.stem if path.parent == PACKAGE else path.relative_to(PACKAGE).parts[0] \
        if PACKAGE in path.parents else None
    top.discard(own)
    called.discard(own)
    return top, called - top


def _row_files(cell: str) -> dict[str, list[Path]]:
    """The files of a table row's first cell, by the name the cell gives them."""
    files = {}
    for name in re.findall(r"`([^`]+)`", cell):
        if name == "../hawks_deap_entry.py":
            files[name] = [ENTRY]
        elif name.endswith("/"):
            files[name] = sorted((PACKAGE / name).rglob("*.py"))
        else:
            files[name] = [PACKAGE / name]
        assert all(f.is_file() for f in files[name]), f"the table names {name!r}: no such file"
    return files


def _claims(cell: str) -> tuple[set[str], set[str]]:
    """(imported at import time, imported when called) as a row's last cell says."""
    text = re.sub(r"\([^()]*\)", "", cell).strip()  # notes
    if text == "none":
        return set(), set()
    now, _, later = text.partition("when called:")
    return ({n.split(".")[0] for n in re.findall(r"`([^`]+)`", now)},
            {n.split(".")[0] for n in re.findall(r"`([^`]+)`", later)})


def module_table() -> list[list[str]]:
    """The rows of the page's module table, three cells each."""
    lines = DOC.read_text().splitlines()
    start = lines.index(TABLE_HEADER)
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        assert len(cells) == 3, f"a row of the module table without 3 cells: {line}"
        rows.append(cells)
    return rows


def test_the_module_table_lists_what_each_module_imports():
    rows = module_table()
    covered: dict[Path, str] = {}
    wrong = []
    for first, _, last in rows:
        top_claimed, called_claimed = _claims(last)
        unknown = (top_claimed | called_claimed) - UNITS
        assert not unknown, f"row {first}: {sorted(unknown)} are not modules of the package"
        top: set[str] = set()
        called: set[str] = set()
        for files in _row_files(first).values():
            for path in files:
                assert path not in covered, f"{path.name} is in rows {covered[path]} and {first}"
                covered[path] = first
                now, later = package_imports(path)
                top |= now
                called |= later
        called -= top
        if (top, called) != (top_claimed, called_claimed):
            wrong.append(f"row {first}: the code imports {sorted(top)}, when called "
                         f"{sorted(called)}; the table says {sorted(top_claimed)}, when "
                         f"called {sorted(called_claimed)}")
    assert not wrong, "docs/ARCHITECTURE.md's module table is wrong:\n" + "\n".join(wrong)
    missing = sorted(str(p.relative_to(ROOT)) for p in [*PACKAGE.rglob("*.py"), ENTRY]
                     if p not in covered)
    assert not missing, f"modules without a row in docs/ARCHITECTURE.md: {missing}"


def test_the_import_parser_sees_every_kind_of_import(tmp_path):
    path = tmp_path / "sample.py"
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "import hawks_deap.genome.genotype\n"
        "from hawks_deap import presets, evolve\n"
        "from hawks_deap.operators.mutation import mutate\n"
        "if TYPE_CHECKING:\n"
        "    from hawks_deap.io.dataset import Dataset\n"
        "def f():\n"
        "    import hawks_deap as hd\n"
        "    from hawks_deap._util.files import read_json\n"
        "    from hawks_deap.genome import genotype\n"
        "    from hawks_deap import io\n"
        "    return hd.IndexProblem, hd.metrics\n")
    assert package_imports(path) == ({"genome", "presets", "algorithms", "operators"},
                                     {"problems", "metrics", "_util", "io"})


# ---------------------------------------------------------------------- the protocol

#: What `Problem` declares: its public methods and attributes.
PROTOCOL = frozenset({n for n in vars(Problem) if not n.startswith("_")}
                     | set(Problem.__annotations__))


def test_the_page_lists_the_protocol_members_problem_declares():
    text = " ".join(DOC.read_text().split())
    listed = set(re.findall(r"`([a-z_]+)`", text.split("(`Problem`):", 1)[1]
                            .split("Nothing else", 1)[0]))
    assert PROTOCOL <= listed, f"not on the page: {sorted(PROTOCOL - listed)}"
    problem = hd.IndexProblem(n_samples=60, n_clusters=3, n_dims=2, target=0.5)
    others = {name for name in listed - PROTOCOL if hasattr(problem, name)}
    assert not others, f"the page lists {sorted(others)}, which Problem does not declare"


def _only_declared(base: Problem) -> Problem:
    """A problem that forwards the protocol to ``base`` and refuses anything else."""

    def forward(name):
        if name == "snapshot":
            return lambda self: cls(self._base.snapshot())
        if name == "as_multiobjective":  # the NSGA loops then run on a restricted problem too
            return lambda self, *a, **k: cls(self._base.as_multiobjective(*a, **k))
        if callable(getattr(Problem, name, None)):
            return lambda self, *a, **k: getattr(self._base, name)(*a, **k)
        return property(lambda self: getattr(self._base, name))

    def __init__(self, base):  # noqa: N807
        object.__setattr__(self, "_base", base)

    def __getattribute__(self, name):  # noqa: N807
        if name.startswith("__") or name == "_base" or name in PROTOCOL:
            return object.__getattribute__(self, name)
        raise AssertionError(f"a loop asked for {name!r}, which Problem does not declare")

    namespace = {name: forward(name) for name in PROTOCOL}
    namespace.update(__init__=__init__, __getattribute__=__getattribute__)
    cls = type("OnlyDeclared", (Problem,), namespace)
    return cls(base)


def test_a_loop_asks_a_problem_only_what_the_protocol_declares():
    base = hd.IndexProblem(n_samples=60, n_clusters=3, n_dims=2, target=0.5,
                           constraints=[hd.Overlap(max=0.2)])
    problem = _only_declared(base)
    for mean in ("gaussian", "de", "pso-informed"):
        result = hd.evolve(problem, population_size=6, generations=2, mean_mutation=mean,
                           seed=1)
        assert len(result.logbook) == 3
    toolbox = hd.make_toolbox(problem, seed=0)
    population = toolbox.population(4)
    assert len(population) == 4 and not any(ind.fitness.valid for ind in population)
    nsga = hd.evolve(problem, algorithm="nsga2", population_size=6, generations=2, seed=1)
    assert len(nsga.best.fitness.values) == 2  # as_multiobjective, called by the loop


def test_a_problem_without_a_multiobjective_form_is_refused_by_nsga():
    base = hd.IndexProblem(n_samples=60, n_clusters=3, n_dims=2, target=0.5,
                           constraints=[hd.Overlap(max=0.2)])

    class Plain(Problem):
        fitness_class = base.fitness_class
        n_clusters = 3

        def prepare(self, rng):
            self.layout = base.prepare(rng)
            return self.layout

        def random_individual(self, rng):
            return base.random_individual(rng)

        def evaluate(self, individual, eval_seed=None):
            return base.evaluate(individual, eval_seed)

        def parameters(self):
            return {}

    with pytest.raises(NotImplementedError, match="Plain has no multi-objective form"):
        Plain().as_multiobjective()
    with pytest.raises(ValueError, match="needs a multi-objective problem"):
        hd.evolve(Plain(), algorithm="nsga2", population_size=6, generations=1, seed=0)
    assert len(hd.evolve(Plain(), population_size=6, generations=1, seed=0).logbook) == 2
    mo = base.as_multiobjective()
    assert mo.as_multiobjective(["overlap"]).objective_names == mo.objective_names


# ---------------------------------------------------------------------- the recipes


def mut_mean_stay(individual, cluster, rng, *, step=0.0):
    """A mean operator for the recipe's test: moves gene ``cluster``'s mean by ``step``."""
    gene = individual[cluster]
    individual[cluster] = gene.with_mean(gene.mean + step)
    return (individual,)


def _command_parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"hawks-deap {command}", exit_on_error=False)
    config.add_arguments(parser, command)  # the settings: --index, --mean-mutation, ...
    return parser


def _operator_study():
    path = ROOT / "examples" / "operator_study.py"
    spec = importlib.util.spec_from_file_location("operator_study_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_mean_operator_added_to_the_table_is_found_everywhere(monkeypatch, tmp_path,
                                                                capsys):
    from hawks_deap.operators import mutation

    study = _operator_study()
    assert study.table_operators() == study.PAPER_OPERATORS  # the study as published
    monkeypatch.setitem(mutation.MEAN_MUTATIONS, "stay", mut_mean_stay)
    problem = hd.IndexProblem(n_samples=60, n_clusters=3, n_dims=2, target=0.5)
    toolbox = hd.make_toolbox(problem, mean_mutation="stay", p_mean=1.0, p_cov=0.0,
                              mean_kwargs={"step": 1.0}, seed=0)
    individual = toolbox.individual()
    before = [g.mean.copy() for g in individual]
    (after,) = toolbox.mutate(toolbox.clone(individual))
    assert any(np.array_equal(b + 1.0, g.mean) for b, g in zip(before, after, strict=True))
    result = hd.evolve(problem, population_size=6, generations=2, mean_mutation="stay",
                       seed=0)
    assert len(result.logbook) == 3
    assert "stay" in config.find_option("ga", "mean_mutation").allowed_choices()
    assert _command_parser("generate").parse_args(["--mean-mutation", "stay"]) \
        .mean_mutation == "stay"
    assert study.table_operators() == (*study.PAPER_OPERATORS, "stay")
    monkeypatch.setattr(sys, "argv", ["operator_study.py", "--quick", "--workers", "1",
                                      "--dims", "2", "--inits", "overlapping",
                                      "--out", str(tmp_path / "study")])
    study.main()
    out = capsys.readouterr().out
    assert "| 2 | overlapping | 0.2 | stay |" in out and "| 2 | overlapping | 0.9 | de |" in out


@pytest.mark.parametrize("given, message", [
    (["--n-clusters", "2"], "operator 'de', D = 2: mean_mutation='de' needs n_clusters >= 3"),
    (["--max-overlap", "1.5"], "Overlap(max) must lie in [0, 1], got 1.5")])
def test_the_operator_study_refuses_its_settings_before_any_run(monkeypatch, tmp_path,
                                                                 capsys, given, message):
    """Before writing study.json, which would then refuse the corrected setting."""
    study = _operator_study()
    monkeypatch.setattr(sys, "argv", ["operator_study.py", "--quick", "--workers", "1",
                                      *given, "--out", str(tmp_path / "study")])
    with pytest.raises(SystemExit) as stop:
        study.main()
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "study").exists()


def spread(X, labels):
    """Mean distance of the points to their cluster's mean (an index for the test)."""
    X, labels = np.asarray(X), np.asarray(labels)
    centres = np.stack([X[labels == k].mean(axis=0) for k in np.unique(labels)])
    return float(np.linalg.norm(X - centres[np.searchsorted(np.unique(labels), labels)],
                                axis=1).mean())


def test_a_registered_index_is_found_by_name(monkeypatch):
    from hawks_deap.metrics import registry

    monkeypatch.setattr(registry, "_METRICS", dict(registry._METRICS))  # cleaned up after
    hd.metrics.register("spread", spread, kind="internal", bounds=(0.0, math.inf),
                        higher_is_better=False, aliases=("mean_spread",))
    problem = hd.IndexProblem(n_samples=60, n_clusters=3, n_dims=2, target=0.3,
                              index="mean_spread")
    result = hd.evolve(problem, population_size=6, generations=2, seed=0)
    X, y = problem.sample(result.best)
    assert result.best.fitness.record["index"] == pytest.approx(spread(X, y))
    assert "spread" in config.find_option("objective", "index").allowed_choices()
    assert _command_parser("generate").parse_args(["--index", "spread"]).index == "spread"
    with pytest.raises(argparse.ArgumentError):
        _command_parser("generate").parse_args(["--index", "no_such_index"])


# ---------------------------------------------------------------------- the command recipe


def test_a_command_added_by_the_recipe_is_a_command(monkeypatch, capsys):
    """The command recipe: its options in the schema (a command-line-only option naming
    the command), its module's ``prepare`` that validates and returns the work, and its
    row in ``SUBCOMMANDS``; the parser, --help, the usage errors and the exit codes
    follow."""
    from hawks_deap.cli import app

    def prepare_hello(args):
        if args.times > 3:
            raise app.UsageError("--times: at most 3")

        def run():
            print("hello " * args.times)
            return app.EXIT_OK

        return run

    times = config.Option(None, "times", "int", 1, "how many times", low=1,
                          commands=("hello",))
    monkeypatch.setattr(config, "SCHEMA", (*config.SCHEMA, times))
    monkeypatch.setitem(app.SUBCOMMANDS, "hello", app.Subcommand(
        "say hello", "Say hello a few times.", prepare_hello))
    assert app.main(["hello", "--times", "2"]) == 0
    assert capsys.readouterr().out.split() == ["hello", "hello"]
    assert app.main(["hello", "--times", "0"]) == 2  # the schema's bound, one line
    assert "argument --times: must be an integer >= 1, got 0" in capsys.readouterr().err
    assert app.main(["hello", "--times", "4"]) == 2  # the prepare function's check
    assert app.main(["--help"]) == 0
    assert "say hello" in capsys.readouterr().out
