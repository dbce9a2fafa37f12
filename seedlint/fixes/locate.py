"""Where a fix goes, in ``ast`` terms (no libcst): statements around a node, loader arguments."""

from __future__ import annotations

import ast
import bisect
import weakref
from collections.abc import Iterator
from typing import Optional

from seedlint.analysis.calls import DATALOADER
from seedlint.analysis.facts import LoaderCall, ModuleFacts
from seedlint.analysis.names import Scope, lookup
from seedlint.core import Applicability

_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def start(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 1), getattr(node, "col_offset", 0)


def end(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "end_lineno", 1) or 1, getattr(node, "end_col_offset", 0) or 0


def contains(outer: ast.AST, inner: ast.AST) -> bool:
    return start(outer) <= start(inner) and end(inner) <= end(outer)


def child_blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists directly inside a compound statement (not inside nested scopes)."""
    if isinstance(stmt, _NESTED_SCOPES):
        return
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    for case in getattr(stmt, "cases", ()):
        yield case.body


def innermost_statement(body: list[ast.stmt], node: ast.AST) -> Optional[ast.stmt]:
    """The deepest statement of ``body`` (or of blocks inside it, not nested functions or
    classes) that contains ``node``."""
    found: Optional[ast.stmt] = None
    block: Optional[list[ast.stmt]] = body
    while block is not None:
        current = next((s for s in block if contains(s, node)), None)
        if current is None:
            break
        found, block = current, None
        for inner in child_blocks(current):
            if any(contains(s, node) for s in inner):
                block = inner
                break
    return found


# A module's top-level statements' starts, in order (found once per tree: each finding's fix
# asks where its statement is, and a module may have thousands).
_STARTS: weakref.WeakKeyDictionary[ast.Module, list[tuple[int, int]]] = weakref.WeakKeyDictionary()


def top_statement(tree: ast.Module, node: ast.AST) -> Optional[ast.stmt]:
    """The module-level statement that contains ``node`` (statements do not overlap: the
    last one starting at or before ``node`` is the only candidate)."""
    starts = _STARTS.get(tree)
    if starts is None or len(starts) != len(tree.body):
        starts = _STARTS[tree] = [start(s) for s in tree.body]
    index = bisect.bisect_right(starts, start(node)) - 1
    if index < 0:
        return None
    statement = tree.body[index]
    return statement if contains(statement, node) else None


def loader_call(facts: ModuleFacts, node: ast.AST) -> Optional[LoaderCall]:
    loader = facts.loaders_by_call.get(id(node))
    return loader if loader is not None and loader.call is node else None


def positional_index(loader: LoaderCall, name: str) -> Optional[int]:
    """Where ``name`` sits among the loader's positional parameters (None for a subclass with
    an ``__init__`` of its own: its positions are not the DataLoader's; for a loader class of
    another module of the project, its ``__init__``'s positions; after a partial's own
    positional arguments)."""
    signature = loader.signature or DATALOADER
    if (loader.custom_init and loader.signature is None) or name not in signature.positional:
        return None
    index = signature.positional.index(name)
    if loader.partial is not None:
        index -= len(loader.partial.args) - 1
    return index


def settable(facts: ModuleFacts, loader: LoaderCall, name: str) -> bool:
    """Whether a fix can pass ``name=`` to the loader call: it is passed as an explicit keyword
    or position, or not at all (not through ``*args``, nor a ``**kwargs`` that may hold it)."""
    position = positional_index(loader, name)
    if position is not None and position < 0:
        return False  # the partial passes it by position: a keyword would clash
    if loader.partial is not None and not argument_settable(
        facts, loader.partial, loader.scope, name, None
    ):
        return False
    return argument_settable(facts, loader.call, loader.scope, name, position)


# The global generator, passed as a generator (`generator=torch.default_generator`).
DEFAULT_GENERATOR = frozenset({"torch.default_generator"})


def _none_only(facts: ModuleFacts, expr: ast.expr, scope: Scope) -> bool:
    """The argument passed is None on every path the module shows: a fix may replace it. One
    that may be something else on some path (a secure generator under a flag), or that a
    parameter or an attribute carries (what a caller or another method sets), is the
    program's: replacing it would change what that path does."""
    if isinstance(expr, ast.Constant):
        return expr.value is None
    if facts.resolver.qualnames(expr, scope) & DEFAULT_GENERATOR:
        return True  # the global generator itself: what the finding asks to replace
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute):
            return False
        if isinstance(node, ast.Name):
            bindings = lookup(node.id, scope)
            if not bindings or any(b.kind in ("param", "vararg") for b in bindings):
                return False
    value = facts.values.evaluate(expr, scope)
    if value.options is None or value.unknowable or value.partial:
        return False
    return all(option is None for option in value.options)


def argument_settable(
    facts: ModuleFacts, call: ast.Call, scope: Scope, name: str, position: Optional[int]
) -> bool:
    """Whether a fix can pass ``name=`` to ``call`` (``position``: where ``name`` sits among the
    callee's positional parameters, None when unknown): it is passed as an explicit keyword or
    position, or not at all (not through ``*args``, nor a ``**kwargs`` that may hold it)."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return _none_only(facts, keyword.value, scope)
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return position is None  # the star may fill that position
        if index == position:
            return _none_only(facts, arg, scope)
    for keyword in call.keywords:
        if keyword.arg is None:
            spread = facts.binder.dict_value(keyword.value, scope)
            if spread.open or name in spread.entries:
                return False
    return True


def refusal(facts: ModuleFacts, loader: LoaderCall, name: str) -> Optional[str]:
    """Why no fix can pass ``name=`` to the loader: its class (of this module) has an
    ``__init__`` (its own or a base's of this module) that neither takes ``name`` nor
    ``**kwargs``, so the call would raise TypeError. None: nothing stands in the way."""
    if any(keyword.arg == name for keyword in loader.call.keywords):
        return None  # passed already (`generator=None`): the fix replaces the value
    if loader.signature is not None:  # a loader class of another module of the project
        if loader.custom_init and name not in loader.signature.names:
            return f"no fix: `{loader.name}.__init__` does not take it"
        return None
    for meaning in facts.resolver.meanings(loader.call.func, loader.scope):
        init = _init_of(facts, meaning) if isinstance(meaning, ast.ClassDef) else None
        if init is None:
            continue
        args = init[1].args
        if args.kwarg is None and name not in {a.arg for a in [*args.args, *args.kwonlyargs]}:
            return f"no fix: `{init[0].name}.__init__` takes no `{name}`"
    return None


def _init_of(
    facts: ModuleFacts, cls: ast.ClassDef
) -> Optional[tuple[ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """The ``__init__`` the class runs, when a class of this module defines it."""
    seen: set[int] = set()
    stack = [cls]
    while stack:
        current = stack.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        for statement in current.body:
            if (
                isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                and statement.name == "__init__"
            ):
                return current, statement
        stack.extend(b for b in facts.resolver.class_bases(current) if isinstance(b, ast.ClassDef))
    return None


def loader_argument_fix(
    facts: ModuleFacts, node: ast.AST, argument: str, loader: Optional[LoaderCall] = None
) -> Optional[Applicability]:
    """Whether a fix can add ``argument`` to a flagged DataLoader call: safe, or unsafe for a
    subclass with an ``__init__`` of its own (it may not take the argument); None: no fix (also
    when the subclass's ``__init__`` cannot take it, see :func:`refusal`). ``loader``: the
    call, when the module's own facts do not know it (a loader class of another module)."""
    loader = loader or loader_call(facts, node)
    if loader is None or not settable(facts, loader, argument):
        return None
    if refusal(facts, loader, argument) is not None:
        return None
    return Applicability.UNSAFE if loader.custom_init else Applicability.SAFE
