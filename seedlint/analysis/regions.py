"""CUDA graph capture regions: where host code runs once, at capture, and is never replayed.

See ``shared/reference/pytorch-rng.md`` section 4.4: ``with torch.cuda.graph(g)``, the statements
between ``g.capture_begin()`` and ``g.capture_end()``, callables passed to
``torch.cuda.make_graphed_callables``, ``torch.xpu.graph``, and configured ``capture_scope``-style
context managers.
"""

from __future__ import annotations

import ast
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Optional, Union

from seedlint.analysis.names import FunctionNode, NameResolver, Scope, dotted_name, lookup

GRAPH_CONTEXTS: frozenset[str] = frozenset({"torch.cuda.graph", "torch.xpu.graph"})
GRAPHED_CALLABLES: frozenset[str] = frozenset(
    {"torch.cuda.make_graphed_callables", "torch.xpu.make_graphed_callables"}
)
DEFAULT_CAPTURE_CONTEXTS: tuple[str, ...] = ("capture_scope",)


@dataclass(frozen=True)
class Region:
    label: str  # how a message names it, e.g. "`with torch.cuda.graph(...)`"
    anchor: ast.stmt  # the statement a fix moves seeding in front of
    body: tuple[ast.stmt, ...]


def _statement_lists(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _method_call(stmt: ast.stmt, method: str) -> Optional[Hashable]:
    """The receiver's shape (:func:`_shape`) if ``stmt`` is ``receiver.method()``."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        if isinstance(func, ast.Attribute) and func.attr == method:
            return _shape(func.value)
    return None


def _shape(node: object) -> Hashable:
    """What ``ast.dump`` shows of a tree (its classes and fields), as a value to compare; not
    ``ast.dump`` itself: each of its calls leaves a reference cycle for the collector."""
    if isinstance(node, ast.AST):
        return (type(node).__name__, *(_shape(getattr(node, name, None)) for name in node._fields))
    if isinstance(node, list):
        return tuple(_shape(item) for item in node)
    return node if isinstance(node, Hashable) else repr(node)


class RegionFinder:
    def __init__(
        self,
        tree: ast.Module,
        resolver: NameResolver,
        withs: list[tuple[Union[ast.With, ast.AsyncWith], Scope]],
        calls: list[tuple[ast.Call, Scope]],
        capture_contexts: frozenset[str],
    ) -> None:
        self.tree = tree
        self.resolver = resolver
        self.withs = withs
        self.calls = calls
        self.qualified_contexts = GRAPH_CONTEXTS | {c for c in capture_contexts if "." in c}
        self.method_contexts = frozenset(c for c in capture_contexts if "." not in c)

    def regions(self) -> list[Region]:
        found = list(self._with_regions())
        if any(_attr(call) == "capture_begin" for call, _ in self.calls):
            found.extend(self._begin_end_regions())
        found.extend(self._graphed_callables())
        return found

    def _with_regions(self) -> Iterator[Region]:
        for node, scope in self.withs:
            for item in node.items:
                label = self._context_label(item.context_expr, scope)
                if label:
                    yield Region(f"`with {label}`", node, tuple(node.body))
                    break

    def _context_label(self, expr: ast.expr, scope: Scope) -> Union[str, None]:
        if not isinstance(expr, ast.Call):
            return None
        func = expr.func
        for qualname in self.resolver.qualnames(func, scope):
            if qualname in self.qualified_contexts:
                return f"{qualname}(...)"
        name = func.attr if isinstance(func, ast.Attribute) else None
        if isinstance(func, ast.Name) and lookup(func.id, scope) is None:
            name = func.id
        if name in self.method_contexts:
            return f"{dotted_name(func) or name}(...)"
        return None

    def _begin_end_regions(self) -> Iterator[Region]:
        for block in _statement_lists(self.tree):
            for index, stmt in enumerate(block):
                receiver = _method_call(stmt, "capture_begin")
                if receiver is None:
                    continue
                end = len(block)
                for later in range(index + 1, len(block)):
                    if _method_call(block[later], "capture_end") == receiver:
                        end = later
                        break
                    if _contains_end(block[later], receiver):  # e.g. in a `finally:`
                        end = later + 1
                        break
                assert isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                func = stmt.value.func
                assert isinstance(func, ast.Attribute)
                label = (
                    f"`{dotted_name(func.value) or 'graph'}.capture_begin()` ... `capture_end()`"
                )
                yield Region(label, stmt, tuple(block[index + 1 : end]))

    def _graphed_callables(self) -> Iterator[Region]:
        for call, scope in self.calls:
            if not call.args:
                continue
            if not self.resolver.qualnames(call.func, scope) & GRAPHED_CALLABLES:
                continue
            first = call.args[0]
            items = first.elts if isinstance(first, (ast.Tuple, ast.List)) else [first]
            for item in items:
                for function in self._callable_bodies(item, scope):
                    label = f"`{function.name}`, passed to `make_graphed_callables`"
                    yield Region(label, function, tuple(function.body))

    def _callable_bodies(self, expr: ast.expr, scope: Scope) -> Iterator[FunctionNode]:
        for meaning in self.resolver.meanings(expr, scope):
            if isinstance(meaning, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield meaning
        if isinstance(expr, ast.Name):  # an instance of a module of this file: its forward
            for binding in lookup(expr.id, scope) or ():
                value = binding.value
                if binding.kind == "assign" and isinstance(value, ast.Call):
                    for meaning in self.resolver.meanings(value.func, binding.scope):
                        if isinstance(meaning, ast.ClassDef):
                            yield from _methods(meaning, "forward")


def _contains_end(stmt: ast.stmt, receiver: Hashable) -> bool:
    return any(
        isinstance(node, ast.stmt) and _method_call(node, "capture_end") == receiver
        for node in ast.walk(stmt)
    )


def _methods(node: ast.ClassDef, name: str) -> Iterator[FunctionNode]:
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            yield stmt


def _attr(call: ast.Call) -> Union[str, None]:
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def region_calls(body: tuple[ast.stmt, ...]) -> Iterator[ast.Call]:
    """The calls that run when the region runs: nested def/class/lambda bodies are skipped."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call):
            yield node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
