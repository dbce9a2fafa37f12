"""The import graph of seedlint's own modules has no cycle, counting every import: at module
level, under ``if TYPE_CHECKING:`` and inside functions (import-linter checks the layers)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "seedlint"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The seedlint modules ``path`` imports anywhere in its code."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), name, package, known)


def imports_in(source: str, name: str, package: str, known: set[str]) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, base] if base else parent)
            # `from seedlint.x import y` imports the module seedlint.x.y when there is one.
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), or a module that
    imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_imports_are_read_everywhere() -> None:
    """Imports inside functions, under TYPE_CHECKING and relative ones count."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from seedlint.core import Finding\n"
        "def f():\n    from seedlint.engine import check\n    import seedlint.run.cache\n"
        "from . import base\n"
    )
    known = set(modules())
    found = imports_in(source, "seedlint.rules.x", "seedlint.rules", known)
    assert found == {
        "seedlint.core",
        "seedlint.engine.check",
        "seedlint.run.cache",
        "seedlint.rules.base",
    }


def test_no_import_cycle() -> None:
    known = modules()
    graph = {name: imports_of(path, set(known)) for name, path in known.items()}
    assert sum(len(targets) for targets in graph.values()) > 50  # the graph was really read
    assert cycles(graph) == []
