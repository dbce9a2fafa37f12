"""What a value may be: the one value policy every rule shares.

An expression evaluates to a :class:`Value`:

* *known*: a set of possible values (literals, :data:`OBJECT` for "some non-None object",
  :data:`ABSENT` for "the argument is not passed"). A literal; a name bound (once or several
  times) to known values in its scope or at module level; an argparse attribute whose
  ``add_argument(..., default=...)`` is in the module (in a DataLoader's arguments, one of
  another module of the project too: :attr:`ValueEvaluator.project_arguments`); a parameter
  with a default (its default); a conditional expression (either branch).
* *unknowable*: a parameter without a default, ``*args``/``**kwargs`` received from a caller.
  Rules never report on it.
* *anything*: every other expression. It may take any value, so a rule treats it as possibly
  hazardous. Where some paths give known values and others anything (``g if a else None`` with
  ``g`` of another module), the known ones are kept beside it (:attr:`Value.seen`): a hazardous
  value on one path is a finding, the unknown part alone is none.
"""

from __future__ import annotations

import ast
import functools
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import product
from typing import Callable, Optional, Union

from seedlint.analysis.configs import (
    UNKNOWN,
    UNKNOWN_MAP,
    ConfigSource,
    Entry,
    compose,
    hydra_main,
    load_call,
    merge,
    open_path,
)
from seedlint.analysis.configs import lookup as config_lookup
from seedlint.analysis.flow import ReachingDefinitions, flow_scope
from seedlint.analysis.names import Binding, NameResolver, Scope, lookup, passed_argument
from seedlint.core import Origin

# What the rules that judge a DataLoader's arguments say of this model, in their pages.
VALUES_DOC = """\
Argument values are judged as the program computes them (the bindings that reach the call, `self`
and class attributes, dataclass/attrs/pydantic defaults, argparse defaults and `set_defaults`
(those of another module of the project too: `args.num_workers` read where `args` is a parameter
is every default the project's parsers give `--num_workers`, named in the message:
`(num_workers=4: argparse default, opts.py:12)`), keyword dicts and their updates, what a
function of the module returns, the keyword dict a function of another module of the project
returns): see [docs/values.md](../values.md) for what is followed and where it stops."""


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


OBJECT = _Marker("OBJECT")  # a non-None object whose value is not known
ABSENT = _Marker("ABSENT")  # the argument is not passed: the parameter's default applies
# A number no greater than 0 whose value is not known (``min(os.cpu_count(), 0)``): never
# None, may be true (a negative number), never a count of workers (DataLoader raises for a
# negative ``num_workers``).
AT_MOST_ZERO = _Marker("AT_MOST_ZERO")


@dataclass(frozen=True)
class Where:
    """Where a value is set: a few words with the line (``argparse default, line 12``), and
    the line and file apart for the reports' structured field."""

    text: str
    row: int = 0
    path: str = ""  # another file (a config), from the project's root; "": this module


@dataclass(frozen=True)
class Value:
    options: Optional[frozenset[object]]  # None: may be anything
    unknowable: bool = False
    # Where known options come from when that is not the expression itself: (option, where).
    # Not part of the value's identity.
    origins: tuple[tuple[object, Where], ...] = field(default=(), compare=False)
    # With ``options`` None (may be anything): the known options some paths give beside it.
    seen: frozenset[object] = frozenset()
    # With ``options`` known: some other path gives a value only a caller knows (unknowable),
    # so no option is certain to be the value on every path.
    partial: bool = False

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
        """Whether a *known* option satisfies ``predicate``: one of the options, or of those
        seen on some paths beside anything (anything and unknowable alone: no)."""
        options = self.seen if self.options is None else self.options
        return any(predicate(o) for o in options)

    def always(self, predicate: Callable[[object], bool]) -> bool:
        """Whether every path certainly gives a value satisfying ``predicate``: known options
        only, all satisfying it (anything, unknowable, a caller's value on some path: no)."""
        return (
            bool(self.options)
            and not self.unknowable
            and not self.partial
            and all(predicate(o) for o in self.options or ())
        )

    def known(self) -> frozenset[object]:
        return self.options or frozenset()

    def origin(self, predicate: Callable[[object], bool]) -> Optional[tuple[object, Where]]:
        """A known option satisfying ``predicate`` and where it comes from, when recorded."""
        for option, where in self.origins:
            if predicate(option):
                return option, where
        return None


def describe_origin(
    name: str, value: Value, predicate: Callable[[object], bool]
) -> Optional[Origin]:
    """``num_workers=4: argparse default, line 12``: a known option of ``value`` satisfying
    ``predicate`` and where it comes from; None when the value is written where it is used (or
    may be anything)."""
    found = value.origin(predicate)
    if found is None:
        return None
    option, where = found
    shown = repr(option)
    if len(shown) > 20:
        return None
    return Origin(name, shown, where.text, where.row, where.path)


def with_origin(value: Value, text: str, row: int = 0, path: str = "") -> Value:
    """``value`` with where it is set (``text``: a few words with the line; ``row`` and
    ``path`` apart) recorded for its known options that have no origin yet."""
    options = value.seen if value.options is None else value.options
    if not options:
        return value
    where = Where(text, row, path)
    recorded = {id(option) for option, _ in value.origins}
    missing = tuple(
        (option, where)
        for option in options
        if id(option) not in recorded and not isinstance(option, _Marker)
    )
    if not missing:
        return value
    return Value(
        value.options, value.unknowable, value.origins + missing, value.seen, value.partial
    )


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
    """Either of several values: a known path stays visible beside an unknowable one (the
    result is then :attr:`~Value.partial`) and beside one that may be anything (the result
    may be anything, with the known options :attr:`~Value.seen`)."""
    collected: set[object] = set()
    origins: list[tuple[object, Where]] = []
    any_known = anything = partial = False
    for value in values:
        if value.unknowable:
            partial = True
            continue
        if value.options is None:
            anything = True
            collected |= value.seen
        else:
            any_known = True
            partial = partial or value.partial
            collected |= value.options
        origins.extend(value.origins)
    if anything:
        if not collected:
            return ANYTHING
        return Value(None, origins=tuple(origins), seen=frozenset(collected))
    if not any_known:
        return UNKNOWABLE
    return Value(frozenset(collected), origins=tuple(origins), partial=partial)


def without_none(value: Value) -> Value:
    """``value`` where a test on the way has shown it is not None: its other options (some
    object, when it may be anything or was only ever None)."""
    if value.options is None:
        return known(OBJECT)
    rest = value.options - {None}
    if not rest:
        return known(OBJECT)
    origins = tuple((option, where) for option, where in value.origins if option is not None)
    return Value(rest, value.unknowable, origins, partial=value.partial)


def is_truthy(option: object) -> bool:
    """Whether a known option may be true (ABSENT is never; OBJECT may be)."""
    if option is ABSENT:
        return False
    if option is OBJECT or option is AT_MOST_ZERO:
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
# Builtins evaluated over the known options of their arguments (when the name is the builtin).
_BUILTIN_FUNCTIONS: dict[str, Callable[..., object]] = {
    "int": int,
    "float": float,
    "bool": bool,
    "round": round,
    "abs": abs,
    "len": len,
    "min": min,
    "max": max,
}
_KEEP_SIGN = frozenset({"int", "float", "round"})  # of a number <= 0: a number <= 0
_PLAIN = (bool, int, float, str, bytes, type(None))
_MAX_COMBINATIONS = 64


def _at_most_zero(option: object) -> bool:
    """A number no greater than 0 (``False`` is 0)."""
    if option is AT_MOST_ZERO:
        return True
    return isinstance(option, (int, float)) and option <= 0


# A part of a loaded config: (the whole config, the entry at hand).
ConfigPart = tuple[Entry, Entry]


class ValueEvaluator:
    def __init__(
        self,
        resolver: NameResolver,
        module: ast.Module,
        configs: Optional[ConfigSource] = None,
        project_arguments: Optional[Callable[[str], Optional[Value]]] = None,
    ) -> None:
        self.resolver = resolver
        self.configs = configs
        # The project's argparse defaults of a dest (the arguments other modules define, with
        # their origins), None where no module does: asked only while :meth:`recording`.
        self.project_arguments = project_arguments
        self._asks: Optional[set[str]] = None
        self.used_project = False  # some value came from another module's argparse
        self._config_active: set[int] = set()
        self._function_calls: Optional[dict[int, list[tuple[ast.Call, Scope]]]] = None
        self.builder = resolver.builder
        self._active: set[int] = set()
        self._argparse: Optional[dict[str, Value]] = None
        self._entries: Optional[dict[str, list[tuple[Value, int, bool]]]] = None
        self._module = module
        self._flows: dict[int, ReachingDefinitions] = {}
        self._bound: dict[int, Value] = {}  # id(parameter) -> what one known call passes
        self._members_active: set[tuple[int, str, int]] = set()
        self._calls_active: set[int] = set()
        self._construction_memo: dict[int, list[tuple[ast.Call, Scope]]] = {}
        self._self_memo: dict[int, _SelfAssignments] = {}
        self._uncalled: Optional[frozenset[str]] = None

    # -- flow ----------------------------------------------------------------------------------
    def reaching(self, read: ast.Name, scope: Scope, bindings: list[Binding]) -> list[Binding]:
        """The bindings of ``read`` (looked up from ``scope``) that may reach it: all of them
        unless the read is in the same statement flow as the bindings (not in a nested
        function or class, which runs after any of them)."""
        owner = bindings[0].scope
        if len(bindings) < 2 or flow_scope(scope) is not owner:
            return bindings
        flow = self._flows.get(id(owner))
        if flow is None:
            flow = self._flows[id(owner)] = ReachingDefinitions(owner)
        return flow.reaching(read, bindings)

    # -- argparse ------------------------------------------------------------------------------
    @property
    def argparse_defaults(self) -> dict[str, Value]:
        if self._argparse is None:
            self._argparse = self._collect_argparse()
        return self._argparse

    def _collect_argparse(self) -> dict[str, Value]:
        found: dict[str, list[Value]] = {}
        for dest, entries in self.argparse_entries().items():
            for value, row, overrides in entries:
                kind = "`set_defaults`" if overrides else "argparse default"
                found.setdefault(dest, []).append(with_origin(value, f"{kind}, line {row}", row))
        return {dest: union(values) for dest, values in found.items()}

    def argparse_entries(self) -> dict[str, list[tuple[Value, int, bool]]]:
        """The module's argparse defaults by dest: (value, line, set by ``set_defaults``);
        a dest that ``parser.set_defaults(...)`` sets has those values only (parser-level
        defaults override the arguments' own, as argparse documents)."""
        if self._entries is not None:
            return self._entries
        found: dict[str, list[tuple[Value, int, bool]]] = {}
        overridden: dict[str, list[tuple[Value, int, bool]]] = {}
        for call, scope in self.builder.calls:
            func = call.func
            if not isinstance(func, ast.Attribute):
                continue
            if func.attr == "set_defaults":
                for keyword in call.keywords:
                    if keyword.arg is not None:
                        value = self.evaluate(keyword.value, scope)
                        overridden.setdefault(keyword.arg, []).append((value, call.lineno, True))
                continue
            if func.attr != "add_argument":
                continue
            dest = _argparse_dest(call)
            if dest is None:
                continue
            default = self._argparse_default(call, scope)
            found.setdefault(dest, []).append((default, call.lineno, False))
        found.update(overridden)
        self._entries = found
        return found

    @contextmanager
    def recording(self) -> Iterator[set[str]]:
        """Evaluate with the project's argparse defaults in view (for a DataLoader's
        arguments): the set yielded receives the dests asked of the project, an attribute
        ``x.dest`` of an object the model does not know (``args.num_workers`` with ``args`` a
        parameter, ``self.opt.nThreads``) that no argparse argument of this module defines."""
        outer = self._asks
        asked: set[str] = set()
        self._asks = asked
        try:
            yield asked
        finally:
            self._asks = outer
            if outer is not None:
                outer.update(asked)

    def _project_argument(self, base: ast.expr, attr: str, scope: Scope) -> Value:
        """What another module's argparse says of ``base.attr`` (see :meth:`recording`):
        anything where no module of the project defines ``attr``, or ``base`` is a module,
        class or function (``np.float32``)."""
        asks = self._asks
        if asks is None:
            return ANYTHING
        if isinstance(base, ast.Name):
            bindings = lookup(base.id, scope)
            if bindings and all(b.kind in ("import", "def", "class") for b in bindings):
                return ANYTHING
        asks.add(attr)
        if self.project_arguments is None:
            return ANYTHING
        found = self.project_arguments(attr)
        if found is None:
            return ANYTHING
        self.used_project = True
        return found

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
            negated = {not is_truthy(o) for o in inner.options}
            if AT_MOST_ZERO in inner.options:
                negated.add(True)  # it may be 0
            return Value(frozenset(negated), partial=inner.partial)
        if isinstance(expr, ast.BoolOp):
            return self._bool_op(expr, scope)
        if isinstance(expr, ast.Name):
            if expr.id in _BUILTIN_CONSTANTS:  # Python 2 style names in odd code
                return known(_BUILTIN_CONSTANTS[expr.id])
            bindings = lookup(expr.id, scope)
            if bindings is None:
                return ANYTHING
            bindings = self.reaching(expr, scope, bindings)
            return union(self._binding_value(b) for b in bindings)
        if isinstance(expr, (ast.Attribute, ast.Subscript)) and self.configs is not None:
            read = self.config_read(expr, scope)
            if read is not None:
                return read
        if isinstance(expr, ast.Attribute):
            return self._attribute(expr, scope)
        if isinstance(expr, ast.IfExp):
            return union([self.evaluate(expr.body, scope), self.evaluate(expr.orelse, scope)])
        if isinstance(expr, ast.NamedExpr):
            return self.evaluate(expr.value, scope)
        if isinstance(expr, _OBJECT_EXPRESSIONS):
            return known(OBJECT)
        if isinstance(expr, ast.Call):
            func = expr.func
            if (
                isinstance(func, ast.Name)
                and func.id in _BUILTIN_FUNCTIONS
                and self._is_builtin(func, scope)
            ):
                return self._builtin_call(expr, func.id, scope)
            if self.configs is not None and _is_get(expr):
                read = self.config_read(expr, scope)
                if read is not None:
                    return read
            if _is_get(expr):
                passed = self._keyword_get(expr, scope)
                if passed is not None:
                    return passed
            if self.constructs_object(expr, scope):
                return known(OBJECT)
            return self._returned(expr, scope)
        return ANYTHING

    # -- builtins -------------------------------------------------------------------------------
    def _is_builtin(self, name: ast.Name, scope: Scope) -> bool:
        """Whether ``name`` means Python's builtin: nothing in the module binds it (in any
        scope the read sees), and no star import may bind it."""
        if lookup(name.id, scope) is not None:
            return False
        builder = self.builder
        if not builder.star_imports:
            return True
        names = builder.star_names
        return bool(names) and "*" not in names and name.id not in names

    def _builtin_call(self, call: ast.Call, name: str, scope: Scope) -> Value:
        """``int(x)``, ``float``, ``bool``, ``round``, ``abs``, ``len``, ``min``, ``max`` of
        known values: the builtin applied to each combination of its arguments' options. A
        combination with an option not known (some object, a conversion that raises) gives
        anything on that path; an argument that may be anything makes the result anything,
        one only a caller knows makes it unknowable, except that ``min`` with an argument that
        is a number no greater than 0 on every path is such a number (:data:`AT_MOST_ZERO`)."""
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            return ANYTHING  # `int(x, base=2)`, `min(xs, key=f)`, `min(*xs)`
        args: list[ast.expr] = list(call.args)
        if name in ("min", "max") and len(args) == 1:
            items = args[0]
            if not isinstance(items, (ast.List, ast.Tuple, ast.Set)) or not items.elts:
                return ANYTHING  # an iterable the model does not follow
            if any(isinstance(e, ast.Starred) for e in items.elts):
                return ANYTHING
            args = list(items.elts)
        values = [self.evaluate(arg, scope) for arg in args]
        if name == "min" and any(v.always(_at_most_zero) for v in values):
            exact = self._apply_builtin(name, values)
            if exact.options is not None and not exact.unknowable:
                return exact
            return known(AT_MOST_ZERO)
        if any(v.options is None and not v.unknowable for v in values):
            return ANYTHING
        if any(v.unknowable for v in values):
            return UNKNOWABLE
        return self._apply_builtin(name, values)

    def _apply_builtin(self, name: str, values: list[Value]) -> Value:
        """The builtin ``name`` over every combination of the known ``values``' options."""
        function = _BUILTIN_FUNCTIONS[name]
        combinations = 1
        for value in values:
            if value.options is None or value.unknowable:
                return ANYTHING
            combinations *= len(value.options)
        if combinations > _MAX_COMBINATIONS:
            return ANYTHING
        where = {id(option): found for v in values for option, found in v.origins}
        results: set[object] = set()
        origins: list[tuple[object, Where]] = []
        unknown = False
        for combination in product(*(sorted(v.known(), key=repr) for v in values)):
            if len(combination) == 1 and combination[0] is AT_MOST_ZERO and name in _KEEP_SIGN:
                results.add(AT_MOST_ZERO)  # int, float or round of a number <= 0 is one
                continue
            if not all(isinstance(o, _PLAIN) for o in combination):
                unknown = True  # some object, or an argument not passed
                continue
            try:
                result = function(*combination)
            except (TypeError, ValueError, OverflowError, ZeroDivisionError, MemoryError):
                unknown = True  # raises on this path: not a value the model knows
                continue
            if not isinstance(result, _PLAIN):  # pragma: no cover - the builtins give plain
                unknown = True
                continue
            results.add(result)
            found = next((where[id(o)] for o in combination if id(o) in where), None)
            if found is not None:
                origins.append((result, found))
        partial = any(v.partial for v in values)
        if unknown:
            return Value(None, origins=tuple(origins), seen=frozenset(results))
        return Value(frozenset(results), origins=tuple(origins), partial=partial)

    def _keyword_get(self, call: ast.Call, scope: Scope) -> Optional[Value]:
        """``kwargs.get("key", default)`` on a function's ``**kwargs``: what this module's calls
        of the function (its constructions, for an ``__init__``) pass as ``key=``, else the
        default; None when ``kwargs`` is no such parameter or nothing here calls the function
        (a caller elsewhere decides: may be anything)."""
        func = call.func
        assert isinstance(func, ast.Attribute)
        if not isinstance(func.value, ast.Name):
            return None
        bindings = lookup(func.value.id, scope) or []
        if len(bindings) != 1 or bindings[0].kind != "vararg":
            return None
        function = bindings[0].scope.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        if function.args.kwarg is not bindings[0].node:
            return None  # `*args`: a tuple, no `get`
        first = call.args[0]
        assert isinstance(first, ast.Constant)
        key = first.value
        parent = bindings[0].scope.parent
        method = parent is not None and isinstance(parent.node, ast.ClassDef)
        if method and function.name == "__init__":
            assert parent is not None and isinstance(parent.node, ast.ClassDef)
            calls, called = self._constructions(parent.node), f"`{parent.node.name}(...)`"
        else:
            calls, called = self._calls_of(function), f"`{function.name}(...)`"
        if not calls:
            return None
        default = known(None) if len(call.args) < 2 else self.evaluate(call.args[1], scope)
        named = {a.arg for a in (*function.args.posonlyargs, *function.args.args)}
        named |= {a.arg for a in function.args.kwonlyargs}
        values: list[Value] = []
        for caller, caller_scope in calls:
            if any(k.arg is None for k in caller.keywords):
                return ANYTHING  # `**spread`: any key may come through
            given = next((k.value for k in caller.keywords if k.arg == key), None)
            if given is None or key in named:  # a named parameter's keyword never reaches it
                values.append(default)
            else:
                where = f"{called}, line {caller.lineno}"
                values.append(with_origin(self.evaluate(given, caller_scope), where, caller.lineno))
        return union(values)

    # -- config files --------------------------------------------------------------------------
    def config_read(self, expr: ast.expr, scope: Scope) -> Optional[Value]:
        """What a read of a loaded config gives (``cfg.data.workers``, ``cfg["shuffle"]``,
        ``cfg.get("shuffle", True)``); None when ``expr`` is no read of a config the model
        follows."""
        keys: list[str] = []
        default: Optional[ast.expr] = None
        getter = False
        node = expr
        if isinstance(node, ast.Call) and _is_get(node):
            assert isinstance(node.func, ast.Attribute)
            getter = True
            first = node.args[0]
            assert isinstance(first, ast.Constant)
            keys.append(str(first.value))
            rest = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "default")]
            default = rest[0] if rest else None
            node = node.func.value
        path = _key_path(node)
        if path is None:
            return None
        base, more = path
        keys = [*more, *reversed(keys)]
        if not keys:
            return None
        parts = self._config_parts(base, scope)
        if parts is None:
            return None
        values: list[Value] = []
        for root, start in parts:
            found = config_lookup(root, start, keys)
            if found is None and getter:
                values.append(known(None) if default is None else self.evaluate(default, scope))
            elif found is None or found is UNKNOWN or not isinstance(found, Entry):
                values.append(ANYTHING)  # a key the config does not set: unknown
            else:
                values.append(_entry_value(found))
        return union(values)

    def config_mapping(self, expr: ast.expr, scope: Scope) -> Optional[list[dict[str, Value]]]:
        """The keyword dicts a config mapping spread with ``**`` gives (one per config it may
        be); None when ``expr`` is no part of a config the model follows."""
        if self.configs is None:
            return None
        parts = self._config_parts(expr, scope)
        if parts is None:
            return None
        found: list[dict[str, Value]] = []
        for root, entry in parts:
            if not isinstance(entry.value, dict) or entry.value is UNKNOWN_MAP:
                return None
            values: dict[str, Value] = {}
            for key in entry.value:
                item = config_lookup(root, entry, [key])
                values[key] = _entry_value(item) if isinstance(item, Entry) else ANYTHING
            found.append(values)
        return found

    def instances_of(
        self, name: ast.Name, scope: Scope
    ) -> Optional[list[tuple[ast.ClassDef, Optional[tuple[ast.Call, Scope]]]]]:
        """The classes of this module ``name`` is an instance of (see :meth:`_instances`)."""
        return self._instances(name, scope)

    def self_assigned(self, cls: ast.ClassDef, attr: str) -> list[tuple[Optional[ast.expr], Scope]]:
        """What the methods of ``cls`` assign to ``self.attr`` (None: not a plain value)."""
        return [(value, scope) for value, scope, _ in self._self_assignments(cls).get(attr, ())]

    def _config_parts(self, expr: ast.expr, scope: Scope) -> Optional[list[ConfigPart]]:
        """The config parts ``expr`` may be, when every path gives one; else None."""
        key = id(expr)
        if key in self._config_active:
            return None
        self._config_active.add(key)
        try:
            return self._config_parts_of(expr, scope)
        finally:
            self._config_active.discard(key)

    def _config_parts_of(self, expr: ast.expr, scope: Scope) -> Optional[list[ConfigPart]]:
        assert self.configs is not None
        if isinstance(expr, ast.Name):
            bindings = lookup(expr.id, scope)
            if not bindings:
                return None
            found: list[ConfigPart] = []
            for binding in self.reaching(expr, scope, bindings):
                parts = self._binding_parts(binding)
                if parts is None:
                    return None
                found.extend(parts)
            return found or None
        if isinstance(expr, ast.Call):
            return self._loaded(expr, scope)
        path = _key_path(expr)
        if path is None or not path[1]:
            return None
        parts = self._config_parts(path[0], scope)
        if parts is None:
            return None
        below: list[ConfigPart] = []
        for root, start in parts:
            entry = config_lookup(root, start, path[1])
            if not isinstance(entry, Entry):
                return None
            below.append((root, entry))
        return below

    def _binding_parts(self, binding: Binding) -> Optional[list[ConfigPart]]:
        if binding.kind == "assign" and binding.value is not None:
            return self._config_parts(binding.value, binding.scope)
        if binding.kind != "param" or not isinstance(binding.node, ast.arg):
            return None
        function = binding.scope.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        positional = [*function.args.posonlyargs, *function.args.args]
        hydra = hydra_main(function)
        if hydra is not None:
            if not positional or positional[0] is not binding.node:
                return None
            return self._hydra(hydra, binding.scope.parent or binding.scope)
        # A parameter of a function this module calls with a config, on every call.
        calls = self._calls_of(function)
        if not calls:
            return None
        found: list[ConfigPart] = []
        name = binding.node.arg
        names = [a.arg for a in positional]
        for call, call_scope in calls:
            passed = passed_argument(call, names, name)
            parts = self._config_parts(passed, call_scope) if passed is not None else None
            if parts is None:
                return None
            found.extend(parts)
        return found

    def _hydra(self, hydra: tuple[ast.expr, ast.expr], scope: Scope) -> Optional[list[ConfigPart]]:
        assert self.configs is not None
        config_path = self._strings(hydra[0], scope)
        config_name = self._strings(hydra[1], scope)
        if not config_path or not config_name:
            return None
        found: list[ConfigPart] = []
        for folder in config_path:
            for name in config_name:
                composed = compose(self.configs, folder, name)
                if composed is None:
                    return None
                found.append((composed, composed))
        return found

    def _loaded(self, call: ast.Call, scope: Scope) -> Optional[list[ConfigPart]]:
        """The files a loading call reads, parsed: ``OmegaConf.load(path)``,
        ``yaml.safe_load(open(path))``, ``json.load(f)`` of ``with open(path) as f``,
        ``OmegaConf.merge(a, b)`` of loaded configs."""
        assert self.configs is not None
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "merge"
            and getattr(func.value, "id", "") == "OmegaConf"
            and call.args
            and not call.keywords
        ):
            merged: Optional[ConfigPart] = None
            for arg in call.args:
                parts = self._config_parts(arg, scope)
                if parts is None or len(parts) != 1:
                    return None
                part = parts[0][1]
                merged = (part, part) if merged is None else _merged(merged[1], part)
            return [merged] if merged is not None else None
        loading = load_call(call)
        if loading is None:
            return None
        kind, argument = loading
        path_expr: Optional[ast.expr] = argument
        if kind == "stream":
            path_expr = open_path(argument) or self._with_opened(argument, scope)
        if path_expr is None:
            return None
        paths = self._strings(path_expr, scope)
        if not paths:
            return None
        found: list[ConfigPart] = []
        for path in paths:
            read = self.configs.read(path)
            if read is None:
                return None
            found.append((read.root, read.root))
        return found

    def _with_opened(self, expr: ast.expr, scope: Scope) -> Optional[ast.expr]:
        """The path of ``open(path)`` that ``with ... as expr:`` bound ``expr`` to."""
        if not isinstance(expr, ast.Name):
            return None
        bindings = lookup(expr.id, scope)
        if not bindings or len(bindings) != 1:
            return None
        node = bindings[0].node
        for statement, _ in self.builder.withs:
            for item in statement.items:
                if item.optional_vars is node:
                    return open_path(item.context_expr)
        return None

    def _strings(self, expr: ast.expr, scope: Scope) -> Optional[list[str]]:
        """The strings ``expr`` may be (``os.path.join`` of known strings too); None when it
        may be anything else."""
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and expr.func.attr == "join"
            and expr.args
            and not expr.keywords
        ):
            pieces = [self._strings(arg, scope) for arg in expr.args]
            if any(not p or len(p) != 1 for p in pieces):
                return None
            import posixpath

            return [posixpath.join(*(p[0] for p in pieces if p))]
        value = self.evaluate(expr, scope)
        if value.options is None or value.unknowable or not value.options:
            return None
        strings = [o for o in value.options if isinstance(o, str)]
        return strings if len(strings) == len(value.options) else None

    def _calls_of(
        self, function: Union[ast.FunctionDef, ast.AsyncFunctionDef]
    ) -> list[tuple[ast.Call, Scope]]:
        """The calls of this module that call ``function`` (by a name meaning it)."""
        if self._function_calls is None:
            self._function_calls = {}
            names = {node.name for node, _ in self.builder.functions}
            for call, scope in self.builder.calls:
                func = call.func
                last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if last not in names:
                    continue
                for meaning in self.resolver.meanings(func, scope):
                    if isinstance(meaning, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self._function_calls.setdefault(id(meaning), []).append((call, scope))
        return self._function_calls.get(id(function), [])

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
            value = self.evaluate(binding.value, binding.scope)
            return with_origin(
                value, f"assigned at line {binding.value.lineno}", binding.value.lineno
            )
        if binding.kind == "param":
            return self._parameter(binding)
        if binding.kind == "vararg":
            return UNKNOWABLE
        if binding.kind in ("import", "def", "class"):
            return known(OBJECT)
        return ANYTHING

    def _default(self, binding: Binding) -> Value:
        if binding.value is None:
            return UNKNOWABLE
        parent = binding.scope.parent or binding.scope
        name = getattr(binding.node, "arg", "")
        where = f"default of `{name}`, line {binding.value.lineno}"
        return with_origin(self.evaluate(binding.value, parent), where, binding.value.lineno)

    def _parameter(self, binding: Binding) -> Value:
        """A parameter's default, or what the constructor calls of this module pass for it when
        it is a parameter of a class's ``__init__`` (the instance's attributes come from them)."""
        bound = self._bound.get(id(binding.node))
        if bound is not None:  # evaluating for one known call
            return _replace_absent(bound, lambda: self._default(binding))
        default = self._default(binding)
        function = binding.scope.node
        parent = binding.scope.parent
        if (
            not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
            or function.name != "__init__"
            or parent is None
            or not isinstance(parent.node, ast.ClassDef)
        ):
            return default
        assert isinstance(binding.node, ast.arg)
        passed = [
            with_origin(
                self._argument_for(call, call_scope, function, binding.node.arg, skip_self=True),
                f"`{parent.node.name}(...)`, line {call.lineno}",
                call.lineno,
            )
            for call, call_scope in self._constructions(parent.node)
        ]
        if not passed:
            # Built only in other modules (or by a framework): what they pass is not followed
            # yet, so the parameter may be anything, as before.
            # A `None` default stays visible (a fix must not take `self.seed = seed` for one).
            if default.options is None or None in default.options:
                return default
            return ANYTHING
        return union(_replace_absent(value, lambda: default) for value in passed)

    # -- instances and their attributes ---------------------------------------------------------
    def _attribute(self, expr: ast.Attribute, scope: Scope) -> Value:
        base = expr.value
        if _self_attribute(base):
            # `self.args.num_workers`: the parsed arguments held by the instance (set from a
            # parameter of `__init__` that other modules pass), when the model knows no value
            own = self.argparse_defaults.get(expr.attr)
            if own is None and self._asks is None:
                return ANYTHING
            held = self.evaluate(base, scope)
            if held.options is not None and not held.unknowable:
                return ANYTHING
            return own if own is not None else self._project_argument(base, expr.attr, scope)
        if not isinstance(base, ast.Name):
            return ANYTHING
        instances = self._instances(base, scope)
        if instances is not None:
            return union(self._member(cls, expr.attr, call) for cls, call in instances)
        if expr.attr in self.argparse_defaults:
            return self.argparse_defaults[expr.attr]
        return self._project_argument(base, expr.attr, scope)

    def _instances(
        self, name: ast.Name, scope: Scope
    ) -> Optional[list[tuple[ast.ClassDef, Optional[tuple[ast.Call, Scope]]]]]:
        """The classes of this module ``name`` is an instance of, each with the call that built
        it when one is known (``self`` in a method; a name bound to ``Cls(...)``; a parameter
        annotated ``Cls``); None when some binding may be anything else."""
        bindings = lookup(name.id, scope)
        if not bindings:
            return None
        bindings = self.reaching(name, scope, bindings)
        found: list[tuple[ast.ClassDef, Optional[tuple[ast.Call, Scope]]]] = []
        for binding in bindings:
            if binding.kind == "param":
                owner = _method_class(binding)
                if owner is not None:
                    found.append((owner, None))
                    continue
                annotation = getattr(binding.node, "annotation", None)
                cls = self._local_class(annotation, binding.scope.parent or binding.scope)
                if cls is None:
                    return None
                found.append((cls, None))
            elif binding.kind == "assign" and isinstance(binding.value, ast.Call):
                cls = self._local_class(binding.value.func, binding.scope)
                if cls is None:
                    return None
                found.append((cls, (binding.value, binding.scope)))
            else:
                return None
        return found

    def _local_class(self, expr: Optional[ast.expr], scope: Scope) -> Optional[ast.ClassDef]:
        if expr is None:
            return None
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):  # "Cls" annotation
            bindings = lookup(expr.value, scope)
            nodes = [b.node for b in bindings or () if b.kind == "class"]
            return nodes[0] if len(nodes) == 1 and isinstance(nodes[0], ast.ClassDef) else None
        meanings = self.resolver.meanings(expr, scope)
        if len(meanings) != 1:
            return None
        (meaning,) = meanings
        return meaning if isinstance(meaning, ast.ClassDef) else None

    def _member(
        self, cls: ast.ClassDef, attr: str, call: Optional[tuple[ast.Call, Scope]]
    ) -> Value:
        """What ``instance.attr`` may be for an instance of ``cls`` (built by ``call``)."""
        key = (id(cls), attr, id(call[0]) if call else 0)
        if key in self._members_active:
            return ANYTHING
        self._members_active.add(key)
        try:
            return self._member_value(cls, attr, call)
        finally:
            self._members_active.discard(key)

    def _member_value(
        self, cls: ast.ClassDef, attr: str, call: Optional[tuple[ast.Call, Scope]]
    ) -> Value:
        fields = _record_fields(cls)
        if fields is not None and attr in fields:
            default = self._field_default(cls, attr)
            if call is None:
                passed = [
                    with_origin(
                        self._field_argument(c, s, fields, attr),
                        f"`{cls.name}(...)`, line {c.lineno}",
                        c.lineno,
                    )
                    for c, s in self._constructions(cls)
                ]
                return union([default, *(_replace_absent(v, lambda: default) for v in passed)])
            where = f"`{cls.name}(...)`, line {call[0].lineno}"
            passed_here = with_origin(
                self._field_argument(*call, fields, attr), where, call[0].lineno
            )
            return _replace_absent(passed_here, lambda: default)
        values: list[Value] = []
        found = False
        for klass in self._class_chain(cls):
            if klass is None:
                if not found:
                    return ANYTHING  # a base outside this module may set it
                continue
            class_scope = self.builder.scope_of[id(klass)]
            for binding in class_scope.bindings.get(attr, ()):
                found = True
                row = getattr(binding.node, "lineno", 0)
                where = f"`{klass.name}.{attr}`, line {row}"
                values.append(with_origin(self._class_binding(binding), where, row))
            for value, method_scope, method in self._self_assignments(klass).get(attr, ()):
                found = True
                if value is None:
                    values.append(ANYTHING)
                    continue
                if call is not None and method.name == "__init__":
                    got = self._with_call(method, call, value, method_scope)
                else:
                    got = self.evaluate(value, method_scope)
                values.append(with_origin(got, f"`self.{attr}`, line {value.lineno}", value.lineno))
        return union(values) if found else ANYTHING

    def _self_assignments(self, cls: ast.ClassDef) -> _SelfAssignments:
        memo = self._self_memo.get(id(cls))
        if memo is None:
            memo = self._self_memo[id(cls)] = _self_assignments(cls, self.builder.scope_of)
        return memo

    def _class_chain(self, cls: ast.ClassDef) -> list[Optional[ast.ClassDef]]:
        """``cls`` and its bases of this module, in order; None for a base from elsewhere."""
        chain: list[Optional[ast.ClassDef]] = []
        seen: set[int] = set()
        stack: list[ast.ClassDef] = [cls]
        while stack:
            current = stack.pop(0)
            if id(current) in seen:
                continue
            seen.add(id(current))
            chain.append(current)
            for base in self.resolver.class_bases(current):
                if isinstance(base, ast.ClassDef):
                    stack.append(base)
                elif base not in _NEUTRAL_BASES:
                    chain.append(None)
        return chain

    def _class_binding(self, binding: Binding) -> Value:
        if binding.kind == "assign" and binding.value is not None:
            return self._field_value(binding.value, binding.scope)
        return ANYTHING  # a method, a property, a nested class...

    def _field_value(self, expr: ast.expr, scope: Scope) -> Value:
        """A class-body value; ``field(default=...)``, ``attr.ib(default=...)`` and pydantic's
        ``Field(default)`` give their default."""
        if isinstance(expr, ast.Call):
            func = expr.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _FIELD_FUNCTIONS:
                for keyword in expr.keywords:
                    if keyword.arg == "default":
                        return self.evaluate(keyword.value, scope)
                if name == "Field" and expr.args:
                    return self.evaluate(expr.args[0], scope)
                return ANYTHING  # a default_factory, or required
        return self.evaluate(expr, scope)

    def _field_default(self, cls: ast.ClassDef, attr: str) -> Value:
        for klass in self._class_chain(cls):
            if klass is None:
                return ANYTHING
            for binding in self.builder.scope_of[id(klass)].bindings.get(attr, ()):
                if binding.kind == "assign" and binding.value is not None:
                    where = f"default of `{klass.name}.{attr}`, line {binding.value.lineno}"
                    return with_origin(
                        self._field_value(binding.value, binding.scope), where, binding.value.lineno
                    )
        return UNKNOWABLE  # a required field: its value comes from the constructor's caller

    def _field_argument(self, call: ast.Call, scope: Scope, fields: list[str], attr: str) -> Value:
        for keyword in call.keywords:
            if keyword.arg == attr:
                return self.evaluate(keyword.value, scope)
            if keyword.arg is None:
                return ANYTHING
        index = fields.index(attr)
        for position, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                return ANYTHING
            if position == index:
                return self.evaluate(arg, scope)
        return known(ABSENT)

    def _constructions(self, cls: ast.ClassDef) -> list[tuple[ast.Call, Scope]]:
        """The calls of this module that build ``cls`` (by its name or an alias)."""
        memo = self._construction_memo.get(id(cls))
        if memo is not None:
            return memo
        names = self.resolver.spellings(frozenset((cls.name,)))
        found: list[tuple[ast.Call, Scope]] = []
        for call, scope in self.builder.calls:
            func = call.func
            last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if last in names and cls in self.resolver.meanings(func, scope):
                found.append((call, scope))
        self._construction_memo[id(cls)] = found
        return found

    def from_callers(
        self, function: Union[ast.FunctionDef, ast.AsyncFunctionDef], names: Iterable[str]
    ) -> Optional[list[tuple[dict[str, Value], Scope]]]:
        """What each of this module's calls of ``function`` passes for its parameters
        ``names`` (the default where the call leaves one out), one dict per call, with the
        scope the call is in: calls by the
        function's name and, for a plain method, ``self.method(...)`` in the methods of its
        class. None where not every call can be seen here: the function is decorated, its name
        is used other than called (a callback, a ``functools.partial``), or nothing here calls
        it."""
        scope = self.builder.scope_of.get(id(function))
        if scope is None or function.decorator_list:
            return None
        if function.name in self._names_not_called():
            return None
        parent = scope.parent
        method = parent is not None and isinstance(parent.node, ast.ClassDef)
        calls = list(self._calls_of(function))
        if parent is not None and isinstance(parent.node, ast.ClassDef):
            calls.extend(self._self_calls(parent.node, function.name))
        parameters: dict[str, Binding] = {}
        for name in names:
            binding = next((b for b in scope.bindings.get(name, ()) if b.kind == "param"), None)
            if binding is None:
                return None
            parameters[name] = binding
        if not calls:
            return None
        found: list[tuple[dict[str, Value], Scope]] = []
        for call, call_scope in calls:
            where = f"`{function.name}(...)`, line {call.lineno}"
            values: dict[str, Value] = {}
            for name, binding in parameters.items():
                passed = self._argument_for(call, call_scope, function, name, skip_self=method)
                default = functools.partial(self._default, binding)
                values[name] = _replace_absent(with_origin(passed, where, call.lineno), default)
            found.append((values, call_scope))
        return found

    def _names_not_called(self) -> frozenset[str]:
        """The names (and attribute names) the module reads other than as a call's callee."""
        if self._uncalled is None:
            called: set[int] = set()
            found: set[str] = set()
            for node in ast.walk(self._module):  # a call before its callee
                if isinstance(node, ast.Call):
                    called.add(id(node.func))
                elif id(node) in called or not isinstance(getattr(node, "ctx", None), ast.Load):
                    continue
                elif isinstance(node, ast.Name):
                    found.add(node.id)
                elif isinstance(node, ast.Attribute):
                    found.add(node.attr)
            self._uncalled = frozenset(found)
        return self._uncalled

    def _self_calls(self, cls: ast.ClassDef, name: str) -> list[tuple[ast.Call, Scope]]:
        """``self.name(...)`` in the plain methods of ``cls`` (``self`` their first
        parameter)."""
        found: list[tuple[ast.Call, Scope]] = []
        for call, scope in self.builder.calls:
            func = call.func
            if not (
                isinstance(func, ast.Attribute)
                and func.attr == name
                and isinstance(func.value, ast.Name)
            ):
                continue
            bindings = lookup(func.value.id, scope) or []
            if len(bindings) == 1 and _method_class(bindings[0]) is cls:
                found.append((call, scope))
        return found

    def through_callers(self, expr: ast.expr, scope: Scope) -> Value:
        """``expr``'s value, where it is a parameter that nothing else tells (no default): what
        this module's calls of its function pass for it (the default where a call passes
        nothing). Unchanged where the function is called nowhere in this module (a caller
        elsewhere decides: may be anything) or ``expr`` is not a plain parameter."""
        value = self.evaluate(expr, scope)
        if not value.unknowable or not isinstance(expr, ast.Name):
            return value
        bindings = lookup(expr.id, scope) or []
        if len(bindings) != 1 or bindings[0].kind != "param":
            return value
        binding = bindings[0]
        function = binding.scope.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return value
        assert isinstance(binding.node, ast.arg)
        name = binding.node.arg
        method = binding.scope.parent is not None and binding.scope.parent.is_class
        passed = [
            with_origin(
                self._argument_for(call, call_scope, function, name, skip_self=method),
                f"`{function.name}(...)`, line {call.lineno}",
                call.lineno,
            )
            for call, call_scope in self._calls_of(function)
        ]
        if not passed:
            return value
        return union(_replace_absent(v, lambda: self._default(binding)) for v in passed)

    def _argument_for(
        self,
        call: ast.Call,
        scope: Scope,
        function: Union[ast.FunctionDef, ast.AsyncFunctionDef],
        name: str,
        skip_self: bool,
    ) -> Value:
        """What ``call`` passes for ``function``'s parameter ``name`` (ABSENT: not passed)."""
        args = function.args
        positional = [a.arg for a in [*args.posonlyargs, *args.args]]
        if skip_self:
            positional = positional[1:]
        for keyword in call.keywords:
            if keyword.arg == name:
                return self.evaluate(keyword.value, scope)
            if keyword.arg is None:
                return ANYTHING
        if name in positional:
            index = positional.index(name)
            for position, arg in enumerate(call.args):
                if isinstance(arg, ast.Starred):
                    return ANYTHING
                if position == index:
                    return self.evaluate(arg, scope)
        return known(ABSENT)

    def _with_call(
        self,
        method: Union[ast.FunctionDef, ast.AsyncFunctionDef],
        call: tuple[ast.Call, Scope],
        value: ast.expr,
        method_scope: Scope,
    ) -> Value:
        """``value`` (in ``__init__``) evaluated with the parameters ``call`` passes."""
        saved = dict(self._bound)
        try:
            owner = method_scope.parent.node if method_scope.parent else None
            where = f"`{getattr(owner, 'name', '')}(...)`, line {call[0].lineno}"
            for binding_list in method_scope.bindings.values():
                for binding in binding_list:
                    if binding.kind == "param" and isinstance(binding.node, ast.arg):
                        passed = self._argument_for(
                            call[0], call[1], method, binding.node.arg, skip_self=True
                        )
                        self._bound[id(binding.node)] = with_origin(passed, where, call[0].lineno)
            return self.evaluate(value, method_scope)
        finally:
            self._bound = saved

    # -- calls of the module's functions -------------------------------------------------------
    def _returned(self, call: ast.Call, scope: Scope) -> Value:
        """What a call of a function of this module may return: its ``return`` values (``None``
        where it can end without one); anything for other calls."""
        meanings = self.resolver.meanings(call.func, scope)
        if len(meanings) != 1:
            return ANYTHING
        (function,) = meanings
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return ANYTHING
        if isinstance(function, ast.AsyncFunctionDef) or function.decorator_list:
            return ANYTHING  # a coroutine, or a wrapper that may return anything
        key = id(function)
        if key in self._calls_active:
            return ANYTHING
        self._calls_active.add(key)
        try:
            return self._return_value(function)
        finally:
            self._calls_active.discard(key)

    def returned_expressions(
        self, call: ast.Call, scope: Scope
    ) -> Optional[list[tuple[ast.expr, Scope]]]:
        """The expressions a call of a function of this module may return, each with the
        scope it is evaluated in; None where that is not known: another callee, a decorated,
        async or generator function, or one that may end without returning a value."""
        meanings = self.resolver.meanings(call.func, scope)
        if len(meanings) != 1:
            return None
        (function,) = meanings
        if not isinstance(function, ast.FunctionDef) or function.decorator_list:
            return None
        returns = function_returns(function)
        if not returns or None in returns or _may_end(function.body):
            return None
        function_scope = self.builder.scope_of[id(function)]
        return [(value, function_scope) for value in returns if value is not None]

    def _return_value(self, function: ast.FunctionDef) -> Value:
        returns = function_returns(function)
        if returns is None:
            return ANYTHING  # a generator function: its call is a generator object
        function_scope = self.builder.scope_of[id(function)]
        values = [
            known(None) if value is None else self.evaluate(value, function_scope)
            for value in returns
        ]
        if _may_end(function.body):
            values.append(known(None))
        return with_origin(union(values), f"returned by `{function.name}()`", function.lineno)

    def constructs_object(self, call: ast.Call, scope: Scope) -> bool:
        """A call that builds an instance: of a class of this module, or a CapWords name."""
        for meaning in self.resolver.meanings(call.func, scope):
            if isinstance(meaning, ast.ClassDef):
                return True
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return bool(name) and name[0].isupper() and not name.isupper()


def _is_get(call: ast.Call) -> bool:
    """``x.get("key")`` or ``x.get("key", default)``."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "get"
        and 1 <= len(call.args) <= 2
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    )


def _key_path(expr: ast.expr) -> Optional[tuple[ast.expr, list[str]]]:
    """``cfg.data["workers"]`` -> (``cfg``, ["data", "workers"]); the base is a name, a call or
    any expression the chain of attributes and constant subscripts starts from."""
    keys: list[str] = []
    node = expr
    while True:
        if isinstance(node, ast.Attribute):
            keys.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            index = node.slice
            if not isinstance(index, ast.Constant) or not isinstance(index.value, (str, int)):
                return None
            keys.append(str(index.value))
            node = node.value
        elif isinstance(node, ast.Call) and _is_get(node):
            first = node.args[0]
            assert isinstance(first, ast.Constant)
            keys.append(str(first.value))
            assert isinstance(node.func, ast.Attribute)
            node = node.func.value
        else:
            break
    if not isinstance(node, (ast.Name, ast.Call)):
        return None
    keys.reverse()
    return node, keys


def _merged(base: Entry, top: Entry) -> tuple[Entry, Entry]:
    merged = merge(base, top)
    return merged, merged


def _entry_value(entry: Entry) -> Value:
    """A config entry's value: its scalar, or some object (a mapping, a list)."""
    if isinstance(entry.value, (dict, tuple)):
        return known(OBJECT)
    where = f"set in {entry.file}:{entry.row}" if entry.row else f"set in {entry.file}"
    return with_origin(Value(frozenset((entry.value,))), where, entry.row, entry.path or entry.file)


def _self_attribute(expr: ast.expr) -> bool:
    """``self.name`` (or ``cls.name``)."""
    return (
        isinstance(expr, ast.Attribute)
        and isinstance(expr.value, ast.Name)
        and expr.value.id in ("self", "cls")
    )


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


# Class bases that set no attribute a rule asks about (a class deriving only from them has
# every attribute in its own body).
_NEUTRAL_BASES = frozenset({"object", "typing.NamedTuple", "typing.Generic", "abc.ABC"})
_FIELD_FUNCTIONS = frozenset({"field", "ib", "attrib", "Field"})
_RECORD_DECORATORS = frozenset({"dataclass", "define", "frozen", "mutable", "attrs", "s"})
_RECORD_BASES = frozenset({"BaseModel", "BaseSettings", "NamedTuple"})


def _replace_absent(value: Value, default: Callable[[], Value]) -> Value:
    """``value`` with its ABSENT option (the argument not passed) replaced by the default."""
    if value.options is None or ABSENT not in value.options:
        return value
    rest = (
        Value(value.options - {ABSENT}, partial=value.partial) if len(value.options) > 1 else None
    )
    return union([default()] if rest is None else [rest, default()])


def _method_class(binding: Binding) -> Optional[ast.ClassDef]:
    """The class whose instance ``binding`` is, when it is ``self``: the first parameter of a
    plain method (not a static or class method)."""
    function = binding.scope.node
    parent = binding.scope.parent
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or parent is None:
        return None
    if not isinstance(parent.node, ast.ClassDef):
        return None
    positional = [*function.args.posonlyargs, *function.args.args]
    if not positional or positional[0] is not binding.node:
        return None
    for decorator in function.decorator_list:
        name = decorator.id if isinstance(decorator, ast.Name) else getattr(decorator, "attr", "")
        if name in ("staticmethod", "classmethod"):
            return None
    return parent.node


def _decorator_name(decorator: ast.expr) -> str:
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    if isinstance(decorator, ast.Attribute):
        return decorator.attr
    return decorator.id if isinstance(decorator, ast.Name) else ""


def _record_fields(cls: ast.ClassDef) -> Optional[list[str]]:
    """The fields of a dataclass, attrs or pydantic class (its constructor's parameters, in
    order); None for another class."""
    record = any(_decorator_name(d) in _RECORD_DECORATORS for d in cls.decorator_list) or any(
        (b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")) in _RECORD_BASES
        for b in cls.bases
    )
    if not record:
        return None
    return [
        statement.target.id
        for statement in cls.body
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
    ]


_SelfAssignments = dict[
    str, list[tuple[Optional[ast.expr], Scope, Union[ast.FunctionDef, ast.AsyncFunctionDef]]]
]


def _self_assignments(cls: ast.ClassDef, scope_of: dict[int, Scope]) -> _SelfAssignments:
    """``self.attr = value`` in the methods of ``cls``: per attribute, each value (None for an
    augmented or unpacked assignment) with its method's scope."""
    found: _SelfAssignments = {}
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        positional = [*method.args.posonlyargs, *method.args.args]
        method_scope = scope_of.get(id(method))
        if not positional or method_scope is None:
            continue
        self_name = positional[0].arg
        for node in _statements(method):
            targets: list[tuple[ast.expr, Optional[ast.expr]]] = []
            if isinstance(node, ast.Assign):
                targets.extend((target, node.value) for target in node.targets)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets.append((node.target, node.value))
            elif isinstance(node, ast.AugAssign):
                targets.append((node.target, None))
            for target, value in targets:
                pairs: list[tuple[ast.expr, Optional[ast.expr]]] = (
                    [(element, None) for element in target.elts]
                    if isinstance(target, (ast.Tuple, ast.List))
                    else [(target, value)]
                )
                for element, element_value in pairs:
                    if _is_self_attribute(element, self_name):
                        assert isinstance(element, ast.Attribute)
                        found.setdefault(element.attr, []).append(
                            (element_value, method_scope, method)
                        )
    return found


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(node: ast.AST) -> Iterator[ast.AST]:
    """The statements inside ``node`` at any depth (nested functions and classes included):
    what ``ast.walk`` yields that can assign, in its order, without the expressions."""
    todo = deque([node])
    while todo:
        current = todo.popleft()
        for name in current._fields:
            if name in _STATEMENT_LISTS:
                todo.extend(getattr(current, name))
        yield current


def _is_self_attribute(target: ast.expr, self_name: str) -> bool:
    return (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == self_name
    )


def function_returns(function: ast.FunctionDef) -> Optional[list[Optional[ast.expr]]]:
    """The values a function's ``return`` statements give (None for a bare ``return``); None
    for a generator function."""
    found: list[Optional[ast.expr]] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(node, ast.Return):
            found.append(node.value)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _may_end(body: list[ast.stmt]) -> bool:
    """Whether running ``body`` may reach its end (no ``return`` or ``raise`` on some path)."""
    if not body:
        return True
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return False
    if isinstance(last, ast.If):
        return _may_end(last.body) or _may_end(last.orelse)
    if isinstance(last, ast.Try):
        return (_may_end(last.body) and _may_end(last.orelse)) or any(
            _may_end(h.body) for h in last.handlers
        )
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _may_end(last.body)
    return True
