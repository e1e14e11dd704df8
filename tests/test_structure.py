"""The package's shape: sizes of modules, classes and functions, and its import graph.

Limits (issue 17): no module over 700 lines, no class over 300 lines, no function over
80 lines (docstrings not counted); no import cycle among the package's modules; the
low-level modules (genotype, initialization, operators) never import the evaluation
engine; no private name is imported from another module (shared internals live in
underscore modules under public names).
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hawks_deap"
MODULE_LINES, CLASS_LINES, FUNCTION_LINES = 700, 300, 80
LOW_LEVEL = ("hawks_deap.genotype", "hawks_deap.initialization", "hawks_deap.operators")


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _docstring_lines(node: ast.AST) -> int:
    body = getattr(node, "body", None)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[0].end_lineno - body[0].lineno + 1
    return 0


def _length(node: ast.AST) -> int:
    """Lines of a definition without its own docstring and its nested docstrings."""
    lines = node.end_lineno - node.lineno + 1
    for sub in ast.walk(node):
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            lines -= _docstring_lines(sub)
    return lines


def _imports(name: str, tree: ast.Module, *, top_level: bool) -> list[tuple[str, list[str]]]:
    """(imported module, names) pairs, absolute, of the package's own modules."""
    out = []
    nodes = tree.body if top_level else list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names if a.name.startswith("hawks_deap"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                is_pkg = MODULES[name].name == "__init__.py"
                base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if not module.startswith("hawks_deap"):
                continue
            names = [a.name for a in node.names]
            submodules = [n for n in names if f"{module}.{n}" in MODULES]
            out.extend((f"{module}.{n}", []) for n in submodules)
            out.append((module, [n for n in names if n not in submodules]))
    return out


TREES = {name: ast.parse(path.read_text()) for name, path in MODULES.items()}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_sizes(name):
    path, tree = MODULES[name], TREES[name]
    lines = len(path.read_text().splitlines())
    assert lines <= MODULE_LINES, f"module {name}: {lines} lines"
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            assert _length(node) <= CLASS_LINES, f"class {name}.{node.name}: {_length(node)}"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert _length(node) <= FUNCTION_LINES, (
                f"function {name}.{node.name}: {_length(node)} lines")


def _resolve(module: str) -> str:
    while module not in MODULES and "." in module:
        module = module.rsplit(".", 1)[0]
    return module


def test_no_import_cycles():
    graph = {name: {_resolve(m) for m, _ in _imports(name, tree, top_level=True)} - {name}
             for name, tree in TREES.items()}
    # a package's __init__ re-exporting its own submodules is not a cycle of dependencies
    for name in graph:
        graph[name] = {m for m in graph[name] if not name.startswith(m + ".")}
    state: dict[str, int] = {}
    cycles = []

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_low_level_modules_do_not_import_the_evaluation_engine():
    for name, tree in TREES.items():
        if name.startswith(LOW_LEVEL):
            imported = [m for m, _ in _imports(name, tree, top_level=False)]
            assert not [m for m in imported if m.startswith("hawks_deap.evaluation")], name


def test_no_private_name_is_imported_across_modules():
    found = []
    for name, tree in TREES.items():
        for module, names in _imports(name, tree, top_level=False):
            found += [f"{name}: {module}.{n}" for n in names if n.startswith("_")]
    assert found == []
