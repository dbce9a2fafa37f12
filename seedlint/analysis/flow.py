"""Which bindings of a name reach a read of it: reaching definitions inside one scope.

:mod:`seedlint.analysis.names` binds names flow-insensitively: a name assigned twice in a
function may mean either value. That is right for a read in a nested function (which runs
later, after any of them), and wrong for a read in the same body::

    nw = 4
    nw = 0
    DataLoader(ds, num_workers=nw)   # only `nw = 0` reaches this read

:class:`ReachingDefinitions` walks one scope's statements in execution order (branches merged,
loop bodies walked until their state repeats, ``try`` handlers entered from any point of their
body, ``return``/``raise``/``break``/``continue`` ending a path) and records, for every read of a
name the scope binds, the bindings that may reach it. It is a *may* analysis: every binding that
reaches on some path is kept, so a hazardous value assigned on one branch still counts.

What it cannot order stays as it was: a binding made from another scope (``global`` in a
function, ``nonlocal``) or inside an expression (``:=``) may reach every read; a read it never
walked (dead code) or one before any binding falls back to every binding of the name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import Optional, Union

from seedlint.analysis.names import Binding, Scope

State = dict[str, frozenset[int]]  # name -> ids of the binding nodes that may be its value

_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOP_PASSES = 3  # a loop body's state grows monotonically: a few passes reach its fixpoint


def _merge(states: Iterable[Optional[State]]) -> Optional[State]:
    live = [state for state in states if state is not None]
    if not live:
        return None
    if len(live) == 1:
        return live[0]
    merged: State = dict(live[0])
    for state in live[1:]:
        for name, ids in state.items():
            previous = merged.get(name)
            merged[name] = ids if previous is None else previous | ids
    return merged


class ReachingDefinitions:
    """The bindings of ``scope`` that may reach each read of a name in its own statements."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.tracked = {
            name
            for name, bindings in scope.bindings.items()
            if name not in scope.global_names
            and not any(isinstance(b.node, ast.Nonlocal) for b in bindings)
        }
        self.reads: dict[int, frozenset[int]] = {}  # id(Name node) -> ids of binding nodes
        self._read_names: dict[int, str] = {}  # id(Name node) -> the name it reads
        self._defined: set[int] = set()
        self._loops: list[tuple[list[State], list[State]]] = []  # (breaks, continues)
        node = scope.node
        state: State = {}
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for name in self.tracked:
                params = [b for b in scope.bindings[name] if b.kind in ("param", "vararg")]
                if params:
                    state[name] = frozenset(id(b.node) for b in params)
                    self._defined.update(id(b.node) for b in params)
        if isinstance(node, ast.Lambda):
            self._expr(node.body, state)
        else:
            body = getattr(node, "body", [])
            self._block(body, state)
        # Bindings made where this walk cannot order them (`global` assignments in functions)
        # may reach any read.
        foreign: dict[str, frozenset[int]] = {}
        for name in self.tracked:
            ids = frozenset(id(b.node) for b in scope.bindings[name]) - self._defined
            if ids:
                foreign[name] = ids
        if foreign:
            for read, name in self._read_names.items():
                extra = foreign.get(name)
                if extra:
                    self.reads[read] = self.reads.get(read, frozenset()) | extra

    def reaching(self, read: ast.Name, bindings: list[Binding]) -> list[Binding]:
        """The bindings among ``bindings`` that may reach ``read`` (all of them when unknown)."""
        ids = self.reads.get(id(read))
        if ids is None:
            return bindings
        kept = [binding for binding in bindings if id(binding.node) in ids]
        return kept or bindings

    # -- statements ----------------------------------------------------------------------------
    def _block(self, statements: list[ast.stmt], state: Optional[State]) -> Optional[State]:
        for statement in statements:
            if state is None:
                return None  # unreachable: its reads are left unrecorded (every binding)
            state = self._statement(statement, state)
        return state

    def _statement(self, node: ast.stmt, state: State) -> Optional[State]:
        if isinstance(node, ast.Assign):
            self._expr(node.value, state)
            for target in node.targets:
                self._target_reads(target, state)
            for target in node.targets:
                state = self._define_target(target, state)
            return state
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                return state  # `x: int` binds nothing at run time
            self._expr(node.value, state)
            self._target_reads(node.target, state)
            return self._define_target(node.target, state)
        if isinstance(node, ast.AugAssign):
            self._expr(node.value, state)
            self._expr(node.target, state)
            if isinstance(node.target, ast.Name):  # its value derives from the one before
                return self._define(node.target.id, node, state, keep=True)
            return state
        if isinstance(node, (ast.Return, ast.Raise)):
            for child in ast.iter_child_nodes(node):
                self._expr(child, state)
            return None
        if isinstance(node, ast.Break):
            if self._loops:
                self._loops[-1][0].append(state)
            return None
        if isinstance(node, ast.Continue):
            if self._loops:
                self._loops[-1][1].append(state)
            return None
        if isinstance(node, ast.If):
            self._expr(node.test, state)
            return _merge([self._block(node.body, state), self._block(node.orelse, state)])
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self._expr(node.iter, state)
            return self._loop(node, state, node.target)
        if isinstance(node, ast.While):
            self._expr(node.test, state)
            return self._loop(node, state, None)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self._expr(item.context_expr, state)
                if item.optional_vars is not None:
                    self._target_reads(item.optional_vars, state)
                    state = self._define_target(item.optional_vars, state)
            return self._block(node.body, state)
        if isinstance(node, ast.Try) or node.__class__.__name__ == "TryStar":
            return self._try(node, state)
        if node.__class__.__name__ == "Match":
            return self._match(node, state)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for child in self._definition_reads(node):
                self._expr(child, state)
            return self._define(node.name, node, state)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    continue
                if alias.asname:
                    name = alias.asname
                elif isinstance(node, ast.Import):
                    name = alias.name.split(".")[0]
                else:
                    name = alias.name
                state = self._define(name, node, state)
            return state
        for child in ast.iter_child_nodes(node):  # Expr, Assert, Delete, Global, Pass, ...
            if isinstance(child, ast.expr):
                self._expr(child, state)
        return state

    def _loop(
        self,
        node: Union[ast.For, ast.AsyncFor, ast.While],
        entry: State,
        target: Optional[ast.expr],
    ) -> Optional[State]:
        head: State = entry
        breaks: list[State] = []
        for _ in range(_LOOP_PASSES):
            self._loops.append(([], []))
            start = head
            if target is not None:
                self._target_reads(target, start)
                start = self._define_target(target, start)
            out = self._block(node.body, start)
            breaks, continues = self._loops.pop()
            new_head = _merge([entry, out, *continues])
            assert new_head is not None
            if isinstance(node, ast.While):
                self._expr(node.test, new_head)
            if new_head == head:
                break
            head = new_head
        if isinstance(node, ast.While) and _always_true(node.test):
            return _merge(breaks)  # `while True:` ends only by `break`
        after_else = self._block(node.orelse, head)
        return _merge([after_else, *breaks])

    def _try(self, node: ast.stmt, state: State) -> Optional[State]:
        body: list[ast.stmt] = getattr(node, "body", [])
        seen: list[Optional[State]] = [state]
        current: Optional[State] = state
        for statement in body:
            if current is None:
                break
            current = self._statement(statement, current)
            seen.append(current)
        handler_entry = _merge(seen)
        outs: list[Optional[State]] = [self._block(getattr(node, "orelse", []), current)]
        for handler in getattr(node, "handlers", []):
            entry = handler_entry
            if entry is None:
                continue
            if handler.type is not None:
                self._expr(handler.type, entry)
            if handler.name:
                entry = self._define(handler.name, handler, entry)
            outs.append(self._block(handler.body, entry))
        after = _merge(outs)
        finalbody: list[ast.stmt] = getattr(node, "finalbody", [])
        if not finalbody:
            return after
        final = self._block(finalbody, _merge([after, handler_entry]))
        return final if after is not None else None

    def _match(self, node: ast.stmt, state: State) -> Optional[State]:
        self._expr(getattr(node, "subject"), state)  # noqa: B009 - Match is 3.10+
        outs: list[Optional[State]] = [state]
        for case in getattr(node, "cases", []):
            entry = state
            for pattern_node in ast.walk(case.pattern):
                name = getattr(pattern_node, "name", None) or getattr(pattern_node, "rest", None)
                if isinstance(name, str):
                    entry = self._define(name, pattern_node, entry)
                for child in ast.iter_child_nodes(pattern_node):
                    if isinstance(child, ast.expr):
                        self._expr(child, entry)
            if case.guard is not None:
                self._expr(case.guard, entry)
            outs.append(self._block(case.body, entry))
        return _merge(outs)

    # -- bindings ------------------------------------------------------------------------------
    def _define(self, name: str, node: ast.AST, state: State, keep: bool = False) -> State:
        if name not in self.tracked:
            return state
        self._defined.add(id(node))
        new = dict(state)
        new[name] = (state.get(name, frozenset()) if keep else frozenset()) | {id(node)}
        return new

    def _define_target(self, target: ast.expr, state: State) -> State:
        if isinstance(target, ast.Name):
            return self._define(target.id, target, state)
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                state = self._define_target(element, state)
            return state
        if isinstance(target, ast.Starred):
            return self._define_target(target.value, state)
        return state

    def _target_reads(self, target: ast.expr, state: State) -> None:
        """The reads a store target makes: ``x`` in ``x.attr = v`` and ``x[key] = v``."""
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            self._expr(target, state)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target_reads(element, state)
        elif isinstance(target, ast.Starred):
            self._target_reads(target.value, state)

    @staticmethod
    def _definition_reads(node: ast.stmt) -> list[ast.expr]:
        reads: list[ast.expr] = list(getattr(node, "decorator_list", []))
        if isinstance(node, ast.ClassDef):
            reads.extend(node.bases)
            reads.extend(keyword.value for keyword in node.keywords)
        else:
            args = node.args  # type: ignore[attr-defined]
            reads.extend(args.defaults)
            reads.extend(d for d in args.kw_defaults if d is not None)
        return reads

    # -- expressions ---------------------------------------------------------------------------
    def _expr(self, node: ast.AST, state: State) -> None:
        stack = [node]
        tracked = self.tracked
        while stack:
            current = stack.pop()
            if isinstance(current, ast.Name):
                if current.id in tracked and isinstance(current.ctx, ast.Load):
                    ids = state.get(current.id, frozenset())
                    key = id(current)
                    previous = self.reads.get(key)
                    self.reads[key] = ids if previous is None else previous | ids
                    self._read_names[key] = current.id
                continue
            if isinstance(current, ast.NamedExpr):
                # Its binding is left unordered (it may reach every read of the name): it may
                # run on some paths of the expression only.
                stack.append(current.value)
                continue
            if isinstance(current, ast.Lambda):
                stack.extend(current.args.defaults)
                stack.extend(d for d in current.args.kw_defaults if d is not None)
                continue  # its body runs later, in its own scope
            if isinstance(current, _SCOPE_NODES):
                continue
            stack.extend(ast.iter_child_nodes(current))


def _always_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value)


def flow_scope(scope: Scope) -> Scope:
    """The scope whose statement flow a read in ``scope`` follows: a comprehension runs inline,
    in the flow of the function (or module) around it."""
    while isinstance(scope.node, _COMPREHENSIONS) and scope.parent is not None:
        scope = scope.parent
    return scope


# Where statements hold statements: suites, clauses, ``except`` handlers, ``match`` cases.
_SUITES = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """Every statement of ``tree`` (and the handlers and cases that hold statements), without
    walking an expression: no statement is inside one (a check of a large module asks)."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        for name in _SUITES:
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                stack.extend(inner)


def never_run(tree: ast.Module) -> list[tuple[int, int]]:
    """The row ranges of statements that never run because a test is a constant: the ``else``
    of ``if True:`` (or ``if 1:``), the body of ``if False:`` and of ``while False:``. Code
    disabled this way (``if True:  # args.distributed``) is no program path."""
    ranges: list[tuple[int, int]] = []
    for node in _statements(tree):
        if not isinstance(node, (ast.If, ast.While)):
            continue
        test = node.test
        if not isinstance(test, ast.Constant) or not isinstance(test.value, (bool, int)):
            continue
        dead = node.orelse if test.value else node.body
        if isinstance(node, ast.While) and test.value:
            continue  # `while True:`: its body runs, its `else` only after a false test
        if dead:
            ranges.append((dead[0].lineno, dead[-1].end_lineno or dead[-1].lineno))
    return ranges
