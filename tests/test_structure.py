"""The package's shape: its layers, its import graph, and the size of its code units.

The contract (issue 32) replaces a cap on module lines:

- **Layers.** Every sub-package (and top-level module) has a layer (`LAYERS`, lowest
  first); a module may import, at import time or inside a function, only from its own
  unit or from a lower layer. A reader can understand a layer knowing only those below.
- **No cycle** among the package's modules, deferred (function-level) imports included;
  a package's ``__init__`` re-exporting its own modules is not a dependency.
- **Small units of code:** no function over `FUNCTION_CODE_LINES` code lines, no class
  over `CLASS_CODE_LINES` (code lines: not blank, not a comment, not a docstring).
- No private (underscore) name is imported from another module: shared internals live
  in underscore modules or packages (``_util``) under public names.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hawks_deap"
FUNCTION_CODE_LINES, CLASS_CODE_LINES = 60, 250

#: The layers, lowest first: each unit imports only from its own unit or a lower layer.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("_util",),                         # checks, labels, threads, workers, memory, files
    ("presets", "genome"),              # named settings (data); the individual
    ("operators", "evaluation", "io"),  # variation; the exact engine; datasets on disk
    ("clustering",),                    # the Versus algorithms
    ("metrics",),                       # validity indices (stability runs clustering)
    ("problems",),                      # Index / Versus problems and their constraints
    ("algorithms",),                    # toolbox, loop, result, checkpoints, pool
    ("analysis",),                      # features, statistics, tables, figures
    ("settings",),                      # the option schema, TOML, presets applied
    ("campaign",),                      # runs, suites, provenance, HAWKS JSON
    ("cli",),                           # the command
    ("make",),                          # make_hawks: one dataset in one call
    ("__init__",),                      # the top-level names
)
LAYER = {unit: i for i, units in enumerate(LAYERS) for unit in units}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()
TREES = {name: ast.parse(path.read_text()) for name, path in MODULES.items()}


def _unit(module: str) -> str:
    """The layer unit of a module: its sub-package, its top-level name, or ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _resolve(module: str) -> str:
    while module not in MODULES and "." in module:
        module = module.rsplit(".", 1)[0]
    return module


def imports(name: str) -> list[tuple[str, list[str], bool]]:
    """(imported module, names, deferred) of one module: the package's own, absolute.

    ``import hawks_deap as hd`` counts as the top level. Annotation-only imports
    (``if TYPE_CHECKING:``) do not count.
    """
    out: list[tuple[str, list[str], bool]] = []

    def visit(node: ast.AST, deferred: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                continue
            inner = deferred or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef
                                           | ast.Lambda)
            if isinstance(child, ast.Import):
                out.extend((a.name, [], inner) for a in child.names
                           if a.name.split(".")[0] == "hawks_deap")
            elif isinstance(child, ast.ImportFrom):
                assert not child.level, f"{name}: relative import"
                module = child.module or ""
                if module.split(".")[0] == "hawks_deap":
                    names = [a.name for a in child.names]
                    subs = [n for n in names if f"{module}.{n}" in MODULES]
                    out.extend((f"{module}.{n}", [], inner) for n in subs)
                    if len(subs) < len(names):
                        out.append((module, [n for n in names if n not in subs], inner))
            visit(child, inner)

    visit(TREES[name], False)
    return out


def test_every_unit_has_a_layer():
    units = {_unit(name) for name in MODULES}
    assert units - set(LAYER) == set(), "units without a layer"
    assert set(LAYER) - units == set(), "layers naming no unit"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_down_the_layers(name):
    own = _unit(name)
    wrong = []
    for module, _, deferred in imports(name):
        target = _unit(_resolve(module))
        if target != own and LAYER[target] >= LAYER[own]:
            wrong.append(f"{module} ({target}, layer {LAYER[target]})"
                         + (" inside a function" if deferred else ""))
    assert wrong == [], f"{name} ({own}, layer {LAYER[own]}) imports from above or beside: {wrong}"


def _graph() -> dict[str, set[str]]:
    graph = {}
    for name in MODULES:
        targets = {_resolve(m) for m, _, _ in imports(name)} - {name}
        # a package's __init__ re-exporting its own modules is not a dependency
        graph[name] = {m for m in targets if not m.startswith(name + ".")} \
            if MODULES[name].name == "__init__.py" else targets
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every back edge of a depth-first search, as the cycle it closes."""
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def test_no_import_cycle_deferred_imports_included():
    assert find_cycles(_graph()) == []


def test_the_cycle_finder_finds_a_deferred_cycle():
    graph = _graph()
    graph["hawks_deap._util.validation"] = graph["hawks_deap._util.validation"] | {
        "hawks_deap.campaign.suite"}  # as a deferred import inside a check would
    assert find_cycles(graph)


def _code_lines(path: Path) -> set[int]:
    """Line numbers holding code: not blank, not only a comment, not a docstring."""
    text = path.read_text()
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                          tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        lines.update(range(token.start[0], token.end[0] + 1))
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) \
                and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            lines -= set(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


CODE_LINES = {name: _code_lines(path) for name, path in MODULES.items()}


def code_length(name: str, node: ast.AST) -> int:
    return len(CODE_LINES[name] & set(range(node.lineno, node.end_lineno + 1)))


@pytest.mark.parametrize("name", sorted(MODULES))
def test_sizes(name):
    too_long = []
    for node in ast.walk(TREES[name]):
        if isinstance(node, ast.ClassDef) and code_length(name, node) > CLASS_CODE_LINES:
            too_long.append(f"class {node.name}: {code_length(name, node)} code lines")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) \
                and code_length(name, node) > FUNCTION_CODE_LINES:
            too_long.append(f"function {node.name}: {code_length(name, node)} code lines")
    assert too_long == [], name


def test_code_lines_leave_out_docstrings_comments_and_blanks(tmp_path):
    source = ('def f():\n    """Doc.\n\n    More.\n    """\n    # why\n\n'
              '    x = (1,\n         2)\n    return x\n')
    tree = ast.parse(source)
    path = tmp_path / "probe.py"
    path.write_text(source)
    lines = _code_lines(path)
    assert lines == {1, 8, 9, 10}
    assert len(lines & set(range(tree.body[0].lineno, tree.body[0].end_lineno + 1))) == 4


def test_no_private_name_is_imported_across_modules():
    found = []
    for name in MODULES:
        for module, names, _ in imports(name):
            found += [f"{name}: {module}.{n}" for n in names if n.startswith("_")]
    assert found == []
