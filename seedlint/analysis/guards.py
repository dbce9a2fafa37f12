"""What the tests on the way to a read say of it: the read is not None there.

::

    def split_validation(self):
        if self.valid_sampler is None:
            return None
        return DataLoader(sampler=self.valid_sampler, **self.init_kwargs)  # not None here

:func:`not_none_at` walks the statements of the read's function (or module) from the top down to
the read's own statement, with one bit: whether a test that passed on every path to here says
that the read's expression (a name, or attributes on a name: ``self.valid_sampler``) is not
None, and nothing since may have changed it.

What sets it:

* the read is in the body of ``if T:`` where T true means not None, or in its ``else`` where T
  false does;
* an earlier statement ``if T:`` whose body ends in ``return``, ``raise``, ``continue`` or
  ``break``: after it, T was false (its ``else``, if any, ran); or whose ``else`` ends so, and
  T was true.

The tests understood: ``x is None``, ``x is not None``, ``x`` (true: not None), ``not T``,
``T and U``, ``T or U``. An ``assert`` is no guard (``python -O`` drops it).

What clears it: between the test and the read, a statement or test that assigns or deletes
the expression (for an attribute, any attribute of that name, on whatever object, or any
``__dict__``; or the name it hangs on) and, unless the expression is a local name of the
function, any call, ``yield`` or ``await`` (other code may run there and set the attribute); a
loop between the test and the read counts as a whole (its earlier
iterations), and so do the headers of a ``with``; a read in a ``try``'s handlers, ``else`` or
``finally``, or in a ``match`` case, keeps nothing from above. What the read's own statement
does before the read is not looked at.
"""

from __future__ import annotations

import ast
from typing import Optional, cast

from seedlint.analysis.names import dotted_name

_ENDS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_WITHS = (ast.With, ast.AsyncWith)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Where other code may run and set an attribute: a call, and a generator or coroutine giving way.
_RUNS_OTHER_CODE = (ast.Call, ast.Yield, ast.YieldFrom, ast.Await)


def not_none_at(read: ast.expr, root: ast.AST, local: bool) -> bool:
    """Whether the tests on every path from the top of ``root`` (a function or module) to
    ``read`` show that ``read`` is not None. ``local``: ``read`` is a name local to the
    function (a call cannot rebind it)."""
    target = dotted_name(read)
    if target is None:
        return False
    return _Guard(target, local).holds(read, getattr(root, "body", []))


class _Guard:
    def __init__(self, target: str, local: bool) -> None:
        self.target = target
        parts = target.split(".")
        self.base = parts[0]
        self.attrs = frozenset(parts[1:])
        self.calls = not local

    def holds(self, read: ast.expr, statements: list[ast.stmt]) -> bool:
        holds = False
        while True:
            index = _containing(statements, read)
            if index is None:
                return False
            for earlier in statements[:index]:
                holds = self._after(earlier, holds)
            statement = statements[index]
            if isinstance(statement, _NESTED):
                return False  # a decorator, a default, a base: not this walk's business
            inner = _branch(statement, read)
            if inner is None:
                return holds  # the read's own statement
            in_body = inner is getattr(statement, "body", None)
            if isinstance(statement, ast.If):
                if self._kills(statement.test):
                    holds = False
                elif in_body:
                    holds = holds or self._implies(statement.test, True)
                else:
                    holds = holds or self._implies(statement.test, False)
            elif isinstance(statement, _LOOPS):
                holds = holds and not self._kills(statement)
            elif isinstance(statement, _WITHS):
                holds = holds and not any(self._kills(item) for item in statement.items)
            elif not in_body:
                holds = False  # a handler, `else` or `finally` of a `try`; a `match` case
            statements = inner

    def _after(self, node: ast.stmt, holds: bool) -> bool:
        """Whether the bit holds after ``node`` ran, given whether it held before."""
        if isinstance(node, ast.If) and not self._kills(node.test):
            if _ends(node.body):  # past it, the test was false
                return (holds or self._implies(node.test, False)) and not self._kills_all(
                    node.orelse
                )
            if _ends(node.orelse):  # past it, the test was true
                return (holds or self._implies(node.test, True)) and not self._kills_all(node.body)
        return holds and not self._kills(node)

    def _implies(self, test: ast.expr, truth: bool) -> bool:
        """Whether ``test`` coming out ``truth`` means the target is not None."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._implies(test.operand, not truth)
        if isinstance(test, ast.BoolOp):
            if truth == isinstance(test.op, ast.And):  # every operand came out `truth`
                return any(self._implies(v, truth) for v in test.values)
            return all(self._implies(v, truth) for v in test.values)  # one of them did
        if dotted_name(test) == self.target:
            return truth
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            [op], [right] = test.ops, test.comparators
            if (
                isinstance(op, (ast.Is, ast.IsNot))
                and isinstance(right, ast.Constant)
                and right.value is None
                and dotted_name(test.left) == self.target
            ):
                return truth == isinstance(op, ast.IsNot)
        return False

    def _kills_all(self, nodes: list[ast.stmt]) -> bool:
        return any(self._kills(node) for node in nodes)

    def _kills(self, node: ast.AST) -> bool:
        """Whether running ``node`` may change what the target is."""
        for sub in ast.walk(node):
            if isinstance(sub, _RUNS_OTHER_CODE):
                if self.calls:
                    return True
            elif isinstance(sub, ast.Name):
                if sub.id == self.base and not isinstance(sub.ctx, ast.Load):
                    return True
            elif isinstance(sub, ast.Attribute):
                if sub.attr == "__dict__" and self.attrs:
                    return True  # `self.__dict__["x"] = None`
                if sub.attr in self.attrs and not isinstance(sub.ctx, ast.Load):
                    return True
            elif _binds(sub, self.base):
                return True
        return False


def _binds(node: ast.AST, name: str) -> bool:
    """A binding of ``name`` other than by an assignment to it (``import``, ``def``, ``class``,
    ``except ... as``, a ``match`` capture, ``global``/``nonlocal``)."""
    if isinstance(node, ast.alias):
        return (node.asname or node.name.split(".")[0]) == name
    if isinstance(node, (*_NESTED, ast.ExceptHandler)):
        return node.name == name
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return name in node.names
    return getattr(node, "name", None) == name  # MatchAs, MatchStar


def _ends(body: list[ast.stmt]) -> bool:
    """Whether ``body`` always ends the path through it (its last statement leaves)."""
    return bool(body) and isinstance(body[-1], _ENDS)


def _containing(statements: list[ast.stmt], read: ast.expr) -> Optional[int]:
    """The index of the statement of ``statements`` that holds ``read`` (by position)."""
    start = (read.lineno, read.col_offset)
    for index, statement in enumerate(statements):
        end = (cast(int, statement.end_lineno), cast(int, statement.end_col_offset))
        if (statement.lineno, statement.col_offset) <= start < end:
            return index
    return None


def _branch(statement: ast.stmt, read: ast.expr) -> Optional[list[ast.stmt]]:
    """The statement list of ``statement`` that holds ``read``; None when ``read`` is in the
    statement itself (an expression, a test, a header)."""
    lists: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        found = getattr(statement, name, None)
        if isinstance(found, list):
            lists.append(found)
    for part in [*getattr(statement, "handlers", []), *getattr(statement, "cases", [])]:
        lists.append(part.body)
    for statements in lists:
        if _containing(statements, read) is not None:
            return statements
    return None
