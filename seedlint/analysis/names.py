"""What a name means: scopes, bindings and qualified names.

One walk over a module's stdlib ``ast`` builds the scopes (module, class, function, lambda,
comprehension) and every binding in them. Rules never look at imports themselves: they ask
:meth:`NameResolver.meanings` what an expression may denote and get qualified names
(``"torch.utils.data.DataLoader"``) or the module's own class and function definitions.

Resolution is flow-insensitive on purpose: a name bound several times in one scope may mean any
of its bindings, which is exactly the "may take the hazardous value on some path" policy.
"""

from __future__ import annotations

import ast
import collections
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from seedlint.analysis.compact import COMPACT

# Public modules whose names are re-exported by a shorter, canonical path.
_CANONICAL_PREFIXES: tuple[tuple[str, str], ...] = (
    ("torch.utils.data.dataloader.", "torch.utils.data."),
    ("torch.utils.data.sampler.", "torch.utils.data."),
    ("torch.utils.data.dataset.", "torch.utils.data."),
    ("torch.utils.data.distributed.", "torch.utils.data."),
    ("torch.cuda.random.", "torch.cuda."),
    ("torch.cuda.graphs.", "torch.cuda."),
    ("torch.xpu.random.", "torch.xpu."),
    ("torch.xpu.graphs.", "torch.xpu."),
    ("torch.random.", "torch."),
    ("torch._C.", "torch."),
    ("numpy.random.mtrand.", "numpy.random."),
)


_CANONICAL_FIRSTS = tuple(prefix for prefix, _ in _CANONICAL_PREFIXES)


def canonical(qualname: str) -> str:
    """Map a qualified name to the public spelling that rules compare against."""
    if not qualname.startswith(_CANONICAL_FIRSTS):
        return qualname  # one test for the names no prefix can match (most of them)
    for prefix, replacement in _CANONICAL_PREFIXES:
        if qualname.startswith(prefix):
            return replacement + qualname[len(prefix) :]
    return qualname


def module_spellings(module: str) -> frozenset[str]:
    """The last names a module path can end with before an attribute, for every spelling that
    :func:`canonical` maps to ``module`` (``numpy.random`` is also ``numpy.random.mtrand``)."""
    names = {module.rsplit(".", 1)[-1]}
    for prefix, replacement in _CANONICAL_PREFIXES:
        if replacement == module + ".":
            names.add(prefix.rstrip(".").rsplit(".", 1)[-1])
    return frozenset(names)


# The fields of a node that hold statements (or handlers and cases, which hold them): a walk
# of these alone meets every statement, and no expression.
STATEMENT_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def assignment_statements(node: ast.AST) -> list[Union[ast.Assign, ast.AnnAssign]]:
    """Every ``=`` and annotated assignment statement under ``node`` (nested bodies included),
    in ``ast.walk``'s order: only statements are walked (an expression holds none)."""
    found: list[Union[ast.Assign, ast.AnnAssign]] = []
    queue: collections.deque[ast.AST] = collections.deque([node])
    while queue:
        current = queue.popleft()
        if isinstance(current, (ast.Assign, ast.AnnAssign)):
            found.append(current)
        for name in STATEMENT_FIELDS:
            queue.extend(getattr(current, name, ()))
    return found


ScopeNode = Union[
    ast.Module,
    ast.ClassDef,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
]
# What an expression may denote: an external qualified name, or a definition in this module.
Meaning = Union[str, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef]


def passed_argument(call: ast.Call, positional: Sequence[str], name: str) -> Optional[ast.expr]:
    """The expression ``call`` passes explicitly for the parameter ``name``: its keyword, or the
    positional argument at its place in ``positional`` when no ``*args`` comes first; None when
    it is not passed that way."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if name not in positional:
        return None
    index = list(positional).index(name)
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if position == index:
            return arg
    return None


@dataclass(eq=False)
class Binding:
    """One place where a name gets a value."""

    kind: str  # "import", "assign", "param", "vararg", "def", "class", "other"
    scope: Scope
    node: ast.AST
    value: Optional[ast.expr] = None  # "assign": the assigned expression; "param": its default
    qualname: Optional[str] = None  # "import": what the name is bound to
    conditional: bool = False  # inside if/for/while/try/match in its scope


@dataclass(eq=False)
class Scope:
    node: ScopeNode
    parent: Optional[Scope]
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    global_names: set[str] = field(default_factory=set)

    @property
    def is_class(self) -> bool:
        return isinstance(self.node, ast.ClassDef)

    @property
    def module(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def add(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)


@dataclass(eq=False)
class DictMutation:
    """``kw.update(...)``, ``kw |= {...}``, ``kw["key"] = value``, ``kw.pop("key")`` and the
    like."""

    scope: Scope
    name: str
    node: ast.AST
    conditional: bool
    kind: str = "call"  # "call", "store" (value is the stored expression or None), "del"
    value: Optional[ast.expr] = None


class ScopeBuilder(ast.NodeVisitor):
    """Builds scopes and bindings, and records every call and ``with`` with its scope."""

    def __init__(self, module: ast.Module) -> None:
        self.module_scope = Scope(module, None)
        self.scope = self.module_scope
        self.calls: list[tuple[ast.Call, Scope]] = []
        self.withs: list[tuple[Union[ast.With, ast.AsyncWith], Scope]] = []
        self.functions: list[tuple[FunctionNode, Scope]] = []
        self.classes: list[tuple[ast.ClassDef, Scope]] = []
        self.dict_mutations: list[DictMutation] = []
        self.star_imports: list[str] = []
        # What the star imports bind, when the project knows (name -> qualified name: the
        # imports and definitions of the star-imported project modules); set by the facts.
        self.star_names: dict[str, str] = {}
        self.scope_of: dict[int, Scope] = {}  # id(scope node) -> scope
        # ``a, b = value``: id(the name ``b``) -> (``value``, 1), for a flat target list of
        # names with no starred one (what the name holds is that element of ``value``)
        self.unpacked: dict[int, tuple[ast.expr, int]] = {}
        self._depth = 0  # conditional nesting inside the current scope
        # id(function) -> the values of its own `return` statements (None: a bare `return`),
        # and the functions that yield (generators): what `function_returns` finds, in one walk
        self.returns: dict[int, list[Optional[ast.expr]]] = {}
        self.generators: set[int] = set()
        self.scope_of[id(module)] = self.module_scope
        self.generic_visit(module)

    # -- traversal -----------------------------------------------------------------------------
    # The stdlib NodeVisitor looks a method up by name for every node, contexts and operators
    # included; this walk dispatches on the type and skips the leaves no binding or call hides in.
    # The hottest loop of a check: it reads only the fields that can hold a node, and tests
    # types by identity.
    def visit(self, node: ast.AST) -> None:
        method = _DISPATCH.get(node.__class__)
        if method is None:
            self.generic_visit(node)
        else:
            method(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        kind = node.__class__
        fields = _CHILD_FIELDS.get(kind)
        if fields is None:
            fields = _CHILD_FIELDS[kind] = _child_fields(kind)
        dispatch = _DISPATCH
        leaves = _LEAF_TYPES
        for field_name in fields:
            value = getattr(node, field_name, None)
            if value.__class__ is list:
                for item in value:
                    item_kind = item.__class__
                    if item_kind in leaves:
                        continue
                    method = dispatch.get(item_kind)
                    if method is None:
                        self.generic_visit(item)
                    else:
                        method(self, item)
            elif value is not None and value.__class__ not in leaves:
                self.visit(value)

    # -- helpers -------------------------------------------------------------------------------
    def _bind(self, name: str, kind: str, node: ast.AST, **kw: object) -> None:
        scope = self.scope
        if name in scope.global_names:
            scope = self.module_scope
        binding = Binding(kind, scope, node, conditional=self._depth > 0, **kw)  # type: ignore[arg-type]
        scope.add(name, binding)

    def _bind_target(self, target: ast.expr, value: Optional[ast.expr]) -> None:
        if isinstance(target, ast.Name):
            if value is not None:
                self._bind(target.id, "assign", target, value=value)
            else:
                self._bind(target.id, "other", target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            flat = value is not None and not any(isinstance(e, ast.Starred) for e in target.elts)
            for position, element in enumerate(target.elts):
                if flat and isinstance(element, ast.Name):
                    assert value is not None
                    self.unpacked[id(element)] = (value, position)
                self._bind_target(element, None)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, None)
        elif isinstance(target, ast.Subscript):
            self._record_subscript(target, "store", value)

    def _record_subscript(
        self, target: ast.Subscript, kind: str, value: Optional[ast.expr]
    ) -> None:
        if isinstance(target.value, ast.Name):
            self.dict_mutations.append(
                DictMutation(self.scope, target.value.id, target, self._depth > 0, kind, value)
            )

    def _enter(self, node: ScopeNode) -> Scope:
        scope = Scope(node, self.scope)
        self.scope_of[id(node)] = scope
        return scope

    def _visit_in(self, scope: Scope, nodes: list[ast.AST]) -> None:
        saved, saved_depth = self.scope, self._depth
        self.scope, self._depth = scope, 0
        for node in nodes:
            self.visit(node)
        self.scope, self._depth = saved, saved_depth

    def _conditional(self, node: ast.AST) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    # -- bindings ------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self._bind(alias.asname, "import", node, qualname=alias.name)
            else:
                top = alias.name.split(".")[0]
                self._bind(top, "import", node, qualname=top)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = "." * node.level + (node.module or "")
        for alias in node.names:
            if alias.name == "*":
                self.star_imports.append(module)
                continue
            qualname = (
                f"{module}.{alias.name}"
                if module and not module.endswith(".")
                else (module + alias.name)
            )
            self._bind(alias.asname or alias.name, "import", node, qualname=qualname)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self._bind_target(target, node.value)
            if not isinstance(target, ast.Name):
                self.visit(target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.annotation)
        self._bind_target(node.target, node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self._bind(node.target.id, "other", node)
            if isinstance(node.op, ast.BitOr):  # `kw |= {...}`: a dict updated in place
                self.dict_mutations.append(
                    DictMutation(self.scope, node.target.id, node, self._depth > 0)
                )
        else:
            if isinstance(node.target, ast.Subscript):
                self._record_subscript(node.target, "store", None)
            self.visit(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        scope = self.scope
        while isinstance(scope.node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            assert scope.parent is not None
            scope = scope.parent
        saved, self.scope = self.scope, scope
        self._bind(node.target.id, "assign", node.target, value=node.value)
        self.scope = saved

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.global_names.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        for name in node.names:
            self._bind(name, "other", node)

    def visit_For(self, node: Union[ast.For, ast.AsyncFor]) -> None:
        self.visit(node.iter)
        self._bind_target(node.target, None)
        self._depth += 1
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)
        self._depth -= 1

    def visit_AsyncFor(self, node: ast.AsyncFor) -> None:
        self.visit_For(node)

    def visit_With(self, node: Union[ast.With, ast.AsyncWith]) -> None:
        self.withs.append((node, self.scope))
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self._bind_target(item.optional_vars, None)
        for stmt in node.body:
            self.visit(stmt)

    def visit_AsyncWith(self, node: ast.AsyncWith) -> None:
        self.visit_With(node)

    def visit_If(self, node: ast.If) -> None:
        self._conditional(node)

    def visit_While(self, node: ast.While) -> None:
        self._conditional(node)

    def visit_Try(self, node: ast.Try) -> None:
        self._conditional(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._bind(node.name, "other", node)
        self.generic_visit(node)

    def visit_Match(self, node: ast.AST) -> None:
        self._conditional(node)

    def visit_MatchAs(self, node: ast.AST) -> None:
        name = getattr(node, "name", None)
        if name:
            self._bind(name, "other", node)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.AST) -> None:
        self.visit_MatchAs(node)

    def visit_MatchMapping(self, node: ast.AST) -> None:
        rest = getattr(node, "rest", None)
        if rest:
            self._bind(rest, "other", node)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.calls.append((node, self.scope))
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.attr in ("update", "setdefault", "pop", "clear")
        ):
            self.dict_mutations.append(
                DictMutation(self.scope, func.value.id, node, self._depth > 0)
            )
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                self._record_subscript(target, "del", None)
        self.generic_visit(node)

    # -- scopes --------------------------------------------------------------------------------
    def _function(self, node: FunctionNode) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        args = node.args
        for default in [*args.defaults, *args.kw_defaults]:
            if default is not None:
                self.visit(default)
        if node.returns is not None:
            self.visit(node.returns)
        self._bind(node.name, "def", node)
        self.functions.append((node, self.scope))
        scope = self._enter(node)
        self._bind_params(scope, args)
        self._visit_in(scope, list(node.body))

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def _bind_params(self, scope: Scope, args: ast.arguments) -> None:
        positional = [*args.posonlyargs, *args.args]
        defaults: list[Optional[ast.expr]] = [None] * (len(positional) - len(args.defaults))
        defaults.extend(args.defaults)
        pairs = list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
        for arg, default in pairs:
            scope.add(arg.arg, Binding("param", scope, arg, value=default))
        for star in (args.vararg, args.kwarg):
            if star is not None:
                scope.add(star.arg, Binding("vararg", scope, star))

    def visit_Return(self, node: ast.Return) -> None:
        self.returns.setdefault(id(self.scope.node), []).append(node.value)
        if node.value is not None:
            self.visit(node.value)

    def visit_Yield(self, node: ast.Yield) -> None:
        self.generators.add(id(self.scope.node))
        if node.value is not None:
            self.visit(node.value)

    def visit_YieldFrom(self, node: ast.YieldFrom) -> None:
        self.generators.add(id(self.scope.node))
        self.visit(node.value)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        scope = self._enter(node)
        self._bind_params(scope, node.args)
        self._visit_in(scope, [node.body])

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        self._bind(node.name, "class", node)
        self.classes.append((node, self.scope))
        scope = self._enter(node)
        self._visit_in(scope, list(node.body))

    def _comprehension(
        self, node: Union[ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp]
    ) -> None:
        generators = node.generators
        self.visit(generators[0].iter)
        scope = self._enter(node)
        saved, self.scope = self.scope, scope
        for index, comp in enumerate(generators):
            if index:
                self.visit(comp.iter)
            self._bind_target(comp.target, None)
            for condition in comp.ifs:
                self.visit(condition)
        if isinstance(node, ast.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)
        self.scope = saved

    visit_ListComp = _comprehension
    visit_SetComp = _comprehension
    visit_DictComp = _comprehension
    visit_GeneratorExp = _comprehension


def _last_name(expr: ast.expr) -> Optional[str]:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return None


def _mentions(expr: Optional[ast.expr], names: set[str]) -> bool:
    if expr is None:
        return False
    if isinstance(expr, ast.IfExp):
        return _mentions(expr.body, names) or _mentions(expr.orelse, names)
    if isinstance(expr, ast.NamedExpr):
        return _mentions(expr.value, names)
    if isinstance(expr, ast.Call) and expr.args and _spelled_partial(expr.func):
        return _mentions(expr.args[0], names)
    return _last_name(expr) in names


PARTIAL = "functools.partial"
# Methods that add to a list or dict in place (the dict ones are among the dict mutations too).
_ADDING = frozenset({"append", "extend", "insert", "update", "setdefault", "__setitem__"})


def _spelled_partial(func: ast.expr) -> bool:
    """A call spelled like ``functools.partial`` (the resolver then checks what it means)."""
    return _last_name(func) == "partial"


def _binding_mentions(binding: Binding, names: set[str]) -> bool:
    if binding.kind == "import" and binding.qualname is not None:
        return binding.qualname.rsplit(".", 1)[-1] in names
    if binding.kind == "assign":
        return _mentions(binding.value, names)
    if binding.kind == "class" and isinstance(binding.node, ast.ClassDef):
        return any(_mentions(base, names) for base in binding.node.bases)
    return False


_LEAVES = (
    ast.expr_context,
    ast.operator,
    ast.cmpop,
    ast.boolop,
    ast.unaryop,
    ast.Constant,
    ast.Name,
    ast.alias,
    ast.Pass,
    ast.Break,
    ast.Continue,
)
# Fields that never hold a node that can bind a name or make a call: names, operators,
# contexts, aliases, constants' values, and scalar fields.
_SCALAR_FIELDS = frozenset(
    {
        "ctx", "op", "ops", "id", "attr", "name", "names", "arg", "kind", "type_comment",
        "level", "module", "is_async", "conversion", "asname", "n", "s", "tag",
    }
)  # fmt: skip
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(kind: type) -> tuple[str, ...]:
    return tuple(f for f in getattr(kind, "_fields", ()) if f not in _SCALAR_FIELDS)


# The leaf node types, by identity (their subclasses are the same classes in `ast`).
_LEAF_TYPES: frozenset[type] = frozenset(
    cls
    for cls in vars(ast).values()
    if isinstance(cls, type) and issubclass(cls, _LEAVES) and cls is not ast.AST
) | frozenset({str, int, float, complex, bytes, bool, type(None), type(...)})

_DISPATCH: dict[type, Callable[[ScopeBuilder, Any], None]] = {
    getattr(ast, name[len("visit_") :]): method
    for name, method in vars(ScopeBuilder).items()
    if name.startswith("visit_") and hasattr(ast, name[len("visit_") :])
}
# The compact classes of a very large module's tree (seedlint.analysis.compact) are the same
# kinds of node: the same methods and the same leaves.
_DISPATCH.update({COMPACT[kind]: m for kind, m in list(_DISPATCH.items()) if kind in COMPACT})
_LEAF_TYPES |= frozenset(COMPACT[kind] for kind in _LEAF_TYPES if kind in COMPACT)


def lookup(name: str, scope: Scope) -> Optional[list[Binding]]:
    """The bindings a use of ``name`` in ``scope`` may refer to (Python's LEGB rule)."""
    current: Optional[Scope] = scope
    first = True
    while current is not None:
        if name in current.global_names:
            current = current.module
        if (first or not current.is_class) and name in current.bindings:
            return current.bindings[name]
        first = False
        current = current.parent
    return None


def dotted_name(expr: ast.expr) -> Optional[str]:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
        return ".".join(reversed(parts))
    return None


class NameResolver:
    """Answers "what may this expression denote?" for one module."""

    def __init__(self, builder: ScopeBuilder) -> None:
        self.builder = builder
        self._active: set[int] = set()
        # Answers to questions asked with nothing else in progress (complete: no name was cut
        # short as defined in terms of itself), by expression and scope: the summary and the
        # rules ask about the same calls.
        # (The expression and scope are kept with the answer: their ids are not reused.)
        self._known: dict[tuple[int, int], tuple[ast.expr, Scope, frozenset[Meaning]]] = {}

    def meanings(self, expr: ast.expr, scope: Scope) -> frozenset[Meaning]:
        key = id(expr)
        if key in self._active:  # a name defined in terms of itself
            return frozenset()
        outermost = not self._active
        if outermost:
            found = self._known.get((key, id(scope)))
            if found is not None and found[0] is expr and found[1] is scope:
                return found[2]
        self._active.add(key)
        try:
            result = frozenset(self._meanings(expr, scope))
        finally:
            self._active.discard(key)
        if outermost:
            self._known[(key, id(scope))] = (expr, scope, result)
        return result

    def _meanings(self, expr: ast.expr, scope: Scope) -> Iterator[Meaning]:
        if isinstance(expr, ast.Name):
            bindings = lookup(expr.id, scope)
            if bindings is None:
                star_names = self.builder.star_names
                bound = star_names.get(expr.id)
                if bound is not None:  # `random` bound by `from train import *`
                    yield canonical(bound)
                    return
                if star_names and "*" not in star_names:
                    return  # the star imports bind no such name: a builtin (`print`, `len`)
                for module in self.builder.star_imports:
                    yield canonical(f"{module}.{expr.id}")
                return
            for binding in bindings:
                yield from self._binding_meanings(binding)
        elif isinstance(expr, ast.Attribute):
            for base in self.meanings(expr.value, scope):
                if isinstance(base, str):
                    yield canonical(f"{base}.{expr.attr}")
        elif isinstance(expr, ast.IfExp):
            yield from self.meanings(expr.body, scope)
            yield from self.meanings(expr.orelse, scope)
        elif isinstance(expr, ast.NamedExpr):
            yield from self.meanings(expr.value, scope)
        elif isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
            yield from self._item_meanings(expr.value, scope)
        elif (
            isinstance(expr, ast.Call)
            and expr.args
            and _spelled_partial(expr.func)
            and PARTIAL in self.qualnames(expr.func, scope)
        ):
            yield from self.meanings(expr.args[0], scope)  # what partial(f, ...) calls is f

    def _item_meanings(self, container: ast.Name, scope: Scope) -> Iterator[Meaning]:
        """What an item of a dict, list or tuple may be: any of its values
        (``DATASETS[name]`` with ``DATASETS = {"a": A, "b": B}``, or
        ``{c.__name__: c for c in [A, B]}``), when every binding of the name is such a display,
        nothing changes it in place, and each value means something; else nothing."""
        items = self._items(container, scope, 0)
        if items is None:
            return
        found: list[Meaning] = []
        for item, item_scope in items:
            meanings = self.meanings(item, item_scope)
            if not meanings:
                return  # one value unknown: the item may be anything
            found.extend(meanings)
        yield from found

    def _items(
        self, container: ast.Name, scope: Scope, depth: int
    ) -> Optional[list[tuple[ast.expr, Scope]]]:
        """The values written in the displays a name is bound to (a comprehension yielding its
        first loop's name: those of the display that loop runs over); None when they are not all
        written there."""
        bindings = lookup(container.id, scope)
        if not bindings or depth > 2 or self._mutated(container.id):
            return None
        found: list[tuple[ast.expr, Scope]] = []
        for binding in bindings:
            value = binding.value if binding.kind == "assign" else None
            items = self._display(value, binding.scope, depth)
            if items is None:
                return None
            found.extend(items)
        return found

    def _display(
        self, value: Optional[ast.expr], scope: Scope, depth: int
    ) -> Optional[list[tuple[ast.expr, Scope]]]:
        if isinstance(value, ast.Dict):
            return None if None in value.keys else [(v, scope) for v in value.values]
        if isinstance(value, (ast.List, ast.Tuple)):
            if any(isinstance(e, ast.Starred) for e in value.elts):
                return None
            return [(e, scope) for e in value.elts]
        if isinstance(value, (ast.DictComp, ast.ListComp)):
            loop = value.generators[0]  # its values are among the first loop's (later ones repeat)
            element = value.value if isinstance(value, ast.DictComp) else value.elt
            if not (
                isinstance(loop.target, ast.Name)
                and isinstance(element, ast.Name)
                and element.id == loop.target.id
            ):
                return None
            if isinstance(loop.iter, ast.Name):
                return self._items(loop.iter, scope, depth + 1)
            return self._display(loop.iter, scope, depth + 1)
        return None

    def _mutated(self, name: str) -> bool:
        """Whether some code may add to a container of this name in place (``d[k] = v``,
        ``d.update(...)``, ``items.append(...)``, in any scope)."""
        memo: dict[str, bool] = self.__dict__.setdefault("_mutated_memo", {})
        found = memo.get(name)
        if found is None:
            found = memo[name] = any(m.name == name for m in self.builder.dict_mutations) or any(
                isinstance(call.func, ast.Attribute)
                and call.func.attr in _ADDING
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id == name
                for call, _ in self.builder.calls
            )
        return found

    def _binding_meanings(self, binding: Binding) -> Iterator[Meaning]:
        if binding.kind == "import" and binding.qualname is not None:
            yield canonical(binding.qualname)
        elif binding.kind == "assign" and binding.value is not None:
            yield from self.meanings(binding.value, binding.scope)
        elif binding.kind == "class":
            assert isinstance(binding.node, ast.ClassDef)
            yield binding.node
        elif binding.kind == "def":
            assert isinstance(binding.node, (ast.FunctionDef, ast.AsyncFunctionDef))
            yield binding.node

    def qualnames(self, expr: ast.expr, scope: Scope) -> frozenset[str]:
        return frozenset(m for m in self.meanings(expr, scope) if isinstance(m, str))

    def class_bases(self, node: ast.ClassDef) -> frozenset[Meaning]:
        scope = self.builder.scope_of[id(node)].parent
        assert scope is not None
        result: set[Meaning] = set()
        for base in node.bases:
            result |= self.meanings(base, scope)
        return frozenset(result)

    def is_subclass(self, meaning: Meaning, targets: frozenset[str]) -> bool:
        """Whether ``meaning`` is one of ``targets`` or a class of this module deriving from one."""
        seen: set[int] = set()
        stack = [meaning]
        while stack:
            current = stack.pop()
            if isinstance(current, str):
                if current in targets:
                    return True
            elif isinstance(current, ast.ClassDef) and id(current) not in seen:
                seen.add(id(current))
                stack.extend(self.class_bases(current))
        return False

    def scope_of(self, node: ScopeNode) -> Scope:
        return self.builder.scope_of[id(node)]

    def spellings(self, last_names: frozenset[str]) -> frozenset[str]:
        """Names a call can use to reach something whose name ends in one of ``last_names``:
        the names themselves, import aliases, assigned aliases and subclasses, to a fixpoint.

        A cheap gate before resolution: a call whose last name is not in this set cannot mean
        any of them, so rules skip resolving it. (Computed once per set of names: the rules
        and the summary ask for the same ones.)
        """
        memo: dict[frozenset[str], frozenset[str]] = self.__dict__.setdefault("_spelling_memo", {})
        known = memo.get(last_names)
        if known is None:
            known = memo[last_names] = self._spellings(last_names)
        return known

    def _spellings(self, last_names: frozenset[str]) -> frozenset[str]:
        found = set(last_names)
        bindings = [
            (name, binding)
            for scope in self.builder.scope_of.values()
            for name, items in scope.bindings.items()
            for binding in items
        ]
        changed = True
        while changed:
            changed = False
            for name, binding in bindings:
                if name in found:
                    continue
                if _binding_mentions(binding, found):
                    found.add(name)
                    changed = True
        return frozenset(found)

    def imports_module(self, prefix: str) -> bool:
        """Whether the module imports ``prefix`` or anything below it, in any scope."""
        memo: dict[str, bool] = self.__dict__.setdefault("_imports_memo", {})
        found = memo.get(prefix)
        if found is None:  # once per prefix: a finding each must not cost the module
            found = memo[prefix] = self._imports_module(prefix)
        return found

    def imports_any(self, prefixes: tuple[str, ...]) -> bool:
        """Whether the module imports one of the top-level modules ``prefixes`` (or anything
        below one), in any scope: one pass over its imports for them all (remembered)."""
        memo: dict[tuple[str, ...], bool] = self.__dict__.setdefault("_imports_any_memo", {})
        found = memo.get(prefixes)
        if found is None:
            roots = set(prefixes)
            names = [
                binding.qualname
                for scope in self.builder.scope_of.values()
                for bindings in scope.bindings.values()
                for binding in bindings
                if binding.kind == "import" and binding.qualname is not None
            ]
            names.extend(self.builder.star_names.values())
            names.extend(self.builder.star_imports)
            found = memo[prefixes] = any(name.split(".", 1)[0] in roots for name in names)
        return found

    def _imports_module(self, prefix: str) -> bool:
        for scope in self.builder.scope_of.values():
            for bindings in scope.bindings.values():
                for binding in bindings:
                    name = binding.qualname
                    if (
                        binding.kind == "import"
                        and name is not None
                        and (name == prefix or name.startswith(prefix + "."))
                    ):
                        return True
        star_names = self.builder.star_names.values()
        if any(n == prefix or n.startswith(prefix + ".") for n in star_names):
            return True
        return any(m == prefix or m.startswith(prefix + ".") for m in self.builder.star_imports)
