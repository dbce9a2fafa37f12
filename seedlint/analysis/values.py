"""What a value may be: the one value policy every rule shares.

An expression evaluates to a :class:`Value`:

* *known*: a set of possible values (literals, :data:`OBJECT` for "some non-None object",
  :data:`ABSENT` for "the argument is not passed"). A literal; a name bound (once or several
  times) to known values in its scope or at module level; an argparse attribute whose
  ``add_argument(..., default=...)`` is in the module; a parameter with a default (its default);
  a conditional expression (either branch).
* *unknowable*: a parameter without a default, ``*args``/``**kwargs`` received from a caller.
  Rules never report on it.
* *anything*: every other expression. It may take any value, so a rule treats it as possibly
  hazardous.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Callable, Optional

from seedlint.analysis.names import Binding, NameResolver, Scope, lookup


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


OBJECT = _Marker("OBJECT")  # a non-None object whose value is not known
ABSENT = _Marker("ABSENT")  # the argument is not passed: the parameter's default applies


@dataclass(frozen=True)
class Value:
    options: Optional[frozenset[object]]  # None: may be anything
    unknowable: bool = False

    @property
    def is_anything(self) -> bool:
        return self.options is None and not self.unknowable

    def may(self, predicate: Callable[[object], bool]) -> bool:
        """Whether some path gives a value satisfying ``predicate`` (anything: yes)."""
        if self.unknowable:
            return False
        if self.options is None:
            return True
        return any(predicate(option) for option in self.options)

    def known_may(self, predicate: Callable[[object], bool]) -> bool:
        """Whether a *known* option satisfies ``predicate`` (anything and unknowable: no)."""
        return self.options is not None and any(predicate(o) for o in self.options)

    def known(self) -> frozenset[object]:
        return self.options or frozenset()


ANYTHING = Value(None)
UNKNOWABLE = Value(frozenset(), unknowable=True)


# The values of one option that most arguments have, made once (a value is immutable): a large
# module binds hundreds of thousands of absent arguments.
_SHARED: dict[int, tuple[object, Value]] = {
    id(option): (option, Value(frozenset((option,))))
    for option in (None, True, False, ABSENT, OBJECT)
}


def known(*options: object) -> Value:
    if len(options) == 1:
        shared = _SHARED.get(id(options[0]))
        if shared is not None and shared[0] is options[0]:
            return shared[1]
    return Value(frozenset(options))


def union(values: Iterable[Value]) -> Value:
    """Either of several values: a known path stays visible beside an unknowable one."""
    collected: set[object] = set()
    any_known = False
    for value in values:
        if value.is_anything:
            return ANYTHING
        if not value.unknowable:
            any_known = True
            collected |= value.known()
    return Value(frozenset(collected)) if any_known else UNKNOWABLE


def is_truthy(option: object) -> bool:
    """Whether a known option may be true (ABSENT is never; OBJECT may be)."""
    if option is ABSENT:
        return False
    if option is OBJECT:
        return True
    try:
        return bool(option)
    except Exception:  # pragma: no cover - literals always have a truth value
        return True


def is_none_or_absent(option: object) -> bool:
    return option is None or option is ABSENT


_OBJECT_EXPRESSIONS = (
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.JoinedStr,
)
_BUILTIN_CONSTANTS = {"True": True, "False": False, "None": None}


class ValueEvaluator:
    def __init__(self, resolver: NameResolver, module: ast.Module) -> None:
        self.resolver = resolver
        self.builder = resolver.builder
        self._active: set[int] = set()
        self._argparse: Optional[dict[str, Value]] = None
        self._module = module

    # -- argparse ------------------------------------------------------------------------------
    @property
    def argparse_defaults(self) -> dict[str, Value]:
        if self._argparse is None:
            self._argparse = self._collect_argparse()
        return self._argparse

    def _collect_argparse(self) -> dict[str, Value]:
        found: dict[str, list[Value]] = {}
        for call, scope in self.builder.calls:
            func = call.func
            if not (isinstance(func, ast.Attribute) and func.attr == "add_argument"):
                continue
            dest = _argparse_dest(call)
            if dest is None:
                continue
            found.setdefault(dest, []).append(self._argparse_default(call, scope))
        return {dest: union(values) for dest, values in found.items()}

    def _argparse_default(self, call: ast.Call, scope: Scope) -> Value:
        keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
        if any(k.arg is None for k in call.keywords):
            return ANYTHING
        if "default" in keywords:
            return self.evaluate(keywords["default"], scope)
        action = keywords.get("action")
        if isinstance(action, ast.Constant):
            if action.value == "store_true":
                return known(False)
            if action.value == "store_false":
                return known(True)
        required = keywords.get("required")
        if isinstance(required, ast.Constant) and required.value is True:
            return UNKNOWABLE
        return ANYTHING  # implicitly None: the value comes from the command line

    # -- evaluation ----------------------------------------------------------------------------
    def evaluate(self, expr: ast.expr, scope: Scope) -> Value:
        key = id(expr)
        if key in self._active:
            return ANYTHING
        self._active.add(key)
        try:
            return self._evaluate(expr, scope)
        finally:
            self._active.discard(key)

    def _evaluate(self, expr: ast.expr, scope: Scope) -> Value:
        if isinstance(expr, ast.Constant):
            return known(expr.value)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.operand, ast.Constant):
            operand = expr.operand.value
            if isinstance(expr.op, ast.USub) and isinstance(operand, (int, float)):
                return known(-operand)
            if isinstance(expr.op, ast.Not):
                return known(not operand)
            return ANYTHING
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            inner = self.evaluate(expr.operand, scope)
            if inner.options is None or inner.unknowable:
                return ANYTHING
            return Value(frozenset(not is_truthy(o) for o in inner.options))
        if isinstance(expr, ast.BoolOp):
            return self._bool_op(expr, scope)
        if isinstance(expr, ast.Name):
            if expr.id in _BUILTIN_CONSTANTS:  # Python 2 style names in odd code
                return known(_BUILTIN_CONSTANTS[expr.id])
            bindings = lookup(expr.id, scope)
            if bindings is None:
                return ANYTHING
            return union(self._binding_value(b) for b in bindings)
        if isinstance(expr, ast.Attribute):
            if isinstance(expr.value, ast.Name) and expr.attr in self.argparse_defaults:
                return self.argparse_defaults[expr.attr]
            return ANYTHING
        if isinstance(expr, ast.IfExp):
            return union([self.evaluate(expr.body, scope), self.evaluate(expr.orelse, scope)])
        if isinstance(expr, ast.NamedExpr):
            return self.evaluate(expr.value, scope)
        if isinstance(expr, _OBJECT_EXPRESSIONS):
            return known(OBJECT)
        if isinstance(expr, ast.Call) and self.constructs_object(expr, scope):
            return known(OBJECT)
        return ANYTHING

    def _bool_op(self, expr: ast.BoolOp, scope: Scope) -> Value:
        """``a and b`` is false on every path where some operand always is (``or``: true)."""
        want_truthy = isinstance(expr.op, ast.Or)
        for operand in expr.values:
            value = self.evaluate(operand, scope)
            options = value.options
            if options and all(is_truthy(o) == want_truthy for o in options):
                return known(want_truthy)
        return ANYTHING

    def _binding_value(self, binding: Binding) -> Value:
        if binding.kind == "assign" and binding.value is not None:
            return self.evaluate(binding.value, binding.scope)
        if binding.kind == "param":
            if binding.value is None:
                return UNKNOWABLE
            parent = binding.scope.parent or binding.scope
            return self.evaluate(binding.value, parent)
        if binding.kind == "vararg":
            return UNKNOWABLE
        if binding.kind in ("import", "def", "class"):
            return known(OBJECT)
        return ANYTHING

    def constructs_object(self, call: ast.Call, scope: Scope) -> bool:
        """A call that builds an instance: of a class of this module, or a CapWords name."""
        for meaning in self.resolver.meanings(call.func, scope):
            if isinstance(meaning, ast.ClassDef):
                return True
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return bool(name) and name[0].isupper() and not name.isupper()


def _argparse_dest(call: ast.Call) -> Optional[str]:
    for keyword in call.keywords:
        if keyword.arg == "dest" and isinstance(keyword.value, ast.Constant):
            value = keyword.value.value
            return value if isinstance(value, str) else None
    flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not flags:
        return None
    for flag in flags:
        if flag.startswith("--"):
            return flag[2:].replace("-", "_")
    first = flags[0]
    if first.startswith("-"):
        return first.lstrip("-").replace("-", "_")
    return None  # a positional argument: required, so there is no default to read
