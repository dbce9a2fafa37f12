"""Call arguments bound to a signature, the way Python binds them.

Keyword and positional arguments are matched to parameter names; ``*args`` in a call makes the
positions after it unknowable; ``**kw`` is looked through when ``kw`` is a dict built in the same
function from literals (``dict(...)``, ``{...}``, ``kw.update(...)``, ``kw |= {...}``,
``kw["key"] = value``), from the bindings of ``kw`` that reach the call, a dict a function of
the module returns (unpacked from a returned tuple too) and a comprehension's copy of one.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from seedlint.analysis.names import (
    Binding,
    DictMutation,
    Scope,
    dotted_name,
    lookup,
    passed_argument,
)
from seedlint.analysis.values import (
    ABSENT,
    ANYTHING,
    UNKNOWABLE,
    Value,
    ValueEvaluator,
    _may_end,
    function_returns,
    known,
    union,
    with_origin,
)


@dataclass(frozen=True)
class Signature:
    positional: tuple[str, ...]
    keyword_only: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return self.positional + self.keyword_only

    def argument(self, call: ast.Call, name: str, positions: bool = True) -> Optional[ast.expr]:
        """The expression ``call`` passes explicitly for ``name``: its keyword, or (with
        ``positions``) the positional argument at its place when no ``*args`` comes first."""
        return passed_argument(call, self.positional if positions else (), name)


# torch.utils.data.DataLoader.__init__ in torch 2.13 (``self`` left out).
DATALOADER = Signature(
    positional=(
        "dataset",
        "batch_size",
        "shuffle",
        "sampler",
        "batch_sampler",
        "num_workers",
        "collate_fn",
        "pin_memory",
        "drop_last",
        "timeout",
        "worker_init_fn",
        "multiprocessing_context",
        "generator",
    ),
    keyword_only=("prefetch_factor", "persistent_workers", "pin_memory_device", "in_order"),
)


# torch.utils.data.random_split and the samplers' __init__ in torch 2.13 (``self`` left out).
RANDOM_SPLIT = Signature(positional=("dataset", "lengths", "generator"))
RANDOM_SAMPLER = Signature(positional=("data_source", "replacement", "num_samples", "generator"))
SUBSET_RANDOM_SAMPLER = Signature(positional=("indices", "generator"))
WEIGHTED_RANDOM_SAMPLER = Signature(
    positional=("weights", "num_samples", "replacement", "generator")
)
DISTRIBUTED_SAMPLER = Signature(
    positional=("dataset", "num_replicas", "rank", "shuffle", "seed", "drop_last")
)


@dataclass
class DictValue:
    """A dict literal followed through its mutations: a Value per key, and whether it is open."""

    entries: dict[str, Value]
    open: bool  # some key could be anything we did not see


class CallBinder:
    def __init__(self, evaluator: ValueEvaluator) -> None:
        self.evaluator = evaluator
        self.builder = evaluator.builder
        self._active: set[tuple[int, str]] = set()
        self._self_active: set[tuple[int, str]] = set()  # `self.kw` dicts being followed
        self._calls_active: set[int] = set()  # functions whose returned dicts are being followed
        # The dict a call of a function of another module of the project returns, where the
        # project's index knows it (set by the facts from the index; None: open, as before).
        self.elsewhere: Optional[Callable[[ast.Call, Scope], Optional[DictValue]]] = None

    def bind(self, call: ast.Call, signature: Signature, scope: Scope) -> dict[str, Value]:
        """A Value for every parameter; ABSENT among its options where it may not be passed."""
        result: dict[str, Value] = {}
        star_seen = False
        for index, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                star_seen = True
            if index >= len(signature.positional):
                break
            name = signature.positional[index]
            result[name] = UNKNOWABLE if star_seen else self.evaluator.evaluate(arg, scope)
        if star_seen:
            for name in signature.positional[len(call.args) - 1 :]:
                result.setdefault(name, UNKNOWABLE)
        spread: list[DictValue] = []
        for keyword in call.keywords:
            if keyword.arg is None:
                spread.append(self.dict_value(keyword.value, scope))
            elif keyword.arg in signature.names:
                result[keyword.arg] = self.evaluator.evaluate(keyword.value, scope)
        for name in signature.names:
            if name in result:
                continue
            values: list[Value] = []
            for dict_value in spread:
                if name in dict_value.entries:
                    values.append(dict_value.entries[name])
                elif dict_value.open:
                    values.append(UNKNOWABLE)
            result[name] = _combine_spread(values)
        return result

    def dict_value(self, expr: ast.expr, scope: Scope) -> DictValue:
        if isinstance(expr, ast.Dict):
            return self._dict_literal(expr, scope)
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Name)
            and expr.func.id == "dict"
        ):
            return self._dict_call(expr, scope)
        if isinstance(expr, ast.Name):
            return self._dict_name(expr, scope)
        if isinstance(expr, ast.DictComp):
            return self._dict_comprehension(expr, scope)
        if isinstance(expr, ast.Call):
            returned = self._returned_dict(expr, scope, None)
            if returned is None and self.elsewhere is not None:
                returned = self.elsewhere(expr, scope)
            if returned is not None:
                return returned
        if isinstance(expr, ast.IfExp):  # `{...} if use_cuda else {}`: either dict
            left = self.dict_value(expr.body, scope)
            result = DictValue(dict(left.entries), open=left.open)
            _merge(result, self.dict_value(expr.orelse, scope), definite=False)
            return result
        mappings = self.evaluator.config_mapping(expr, scope)  # `**cfg["loader"]["args"]`
        options = (
            [DictValue(dict(m), open=False) for m in mappings]
            if mappings is not None
            else self._self_dicts(expr, scope)
        )
        if options is not None and options:
            combined = options[0]
            for other in options[1:]:
                combined = DictValue(dict(combined.entries), open=combined.open)
                _merge(combined, other, definite=False)
            return combined
        return DictValue({}, open=True)

    def _self_dicts(self, expr: ast.expr, scope: Scope) -> Optional[list[DictValue]]:
        """``self.kwargs`` of a class of this module: each dict its methods assign to it
        (``self.kwargs = {...}`` in ``__init__``); None when something else may set or change
        it (an assignment of another kind, a subscript store, a method call on it)."""
        if not isinstance(expr, ast.Attribute) or not isinstance(expr.value, ast.Name):
            return None
        instances = self.evaluator.instances_of(expr.value, scope)
        if not instances:
            return None
        found: list[DictValue] = []
        for cls, _ in instances:
            key = (id(cls), expr.attr)
            assigned = self.evaluator.self_assigned(cls, expr.attr)
            if key in self._self_active or not assigned or _changed_in_place(cls, expr.attr):
                return None  # `self.kw = {**self.kw, ...}` too: not followed
            self._self_active.add(key)
            try:
                for value, method_scope in assigned:
                    if value is None:
                        return None
                    found.append(self.dict_value(value, method_scope))
            finally:
                self._self_active.discard(key)
        return found

    def _dict_literal(self, expr: ast.Dict, scope: Scope) -> DictValue:
        result = DictValue({}, open=False)
        for key, value in zip(expr.keys, expr.values):
            if key is None:
                _merge(result, self.dict_value(value, scope), definite=True)
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                result.entries[key.value] = _set_at(self.evaluator.evaluate(value, scope), value)
            else:
                result.open = True
        return result

    def _dict_call(self, expr: ast.Call, scope: Scope) -> DictValue:
        result = DictValue({}, open=False)
        for arg in expr.args:
            _merge(result, self.dict_value(arg, scope), definite=True)
        for keyword in expr.keywords:
            if keyword.arg is None:
                _merge(result, self.dict_value(keyword.value, scope), definite=True)
            else:
                value = self.evaluator.evaluate(keyword.value, scope)
                result.entries[keyword.arg] = _set_at(value, keyword.value)
        return result

    def _dict_name(self, read: ast.Name, scope: Scope) -> DictValue:
        name = read.id
        bindings = lookup(name, scope)
        if not bindings:
            return DictValue({}, open=True)
        bindings = self.evaluator.reaching(read, scope, bindings)
        owner = bindings[0].scope
        key = (id(owner), name)
        if key in self._active:
            return DictValue({}, open=True)
        self._active.add(key)
        try:
            return self._dict_from_bindings(name, owner, bindings)
        finally:
            self._active.discard(key)

    def _dict_from_bindings(self, name: str, owner: Scope, bindings: list[Binding]) -> DictValue:
        result: Optional[DictValue] = None
        for binding in bindings:
            if _updates_in_place(binding):
                continue  # `kw |= {...}`: applied below, with the other mutations
            if binding.kind == "vararg" and isinstance(binding.node, ast.arg):
                return DictValue({}, open=True)  # **kwargs from a caller: unknowable
            unpacked = self.builder.unpacked.get(id(binding.node))
            if binding.kind == "other" and unpacked is not None:
                value = self._element(*unpacked, binding.scope)  # `train_kw, test_kw = make()`
            elif binding.kind != "assign" or binding.value is None:
                return DictValue({}, open=True)
            else:
                value = self.dict_value(binding.value, binding.scope)
            if result is None:
                result = value
            else:  # two bindings: either dict may be the one passed
                _merge(result, value, definite=False)
        if result is None:
            return DictValue({}, open=True)
        for mutation in self.builder.dict_mutations:
            if mutation.name == name and mutation.scope is owner:
                self._apply_mutation(result, mutation, owner)
        return result

    def _element(self, value: ast.expr, position: int, scope: Scope) -> DictValue:
        """The dict at ``position`` of what ``value`` gives to ``a, b = value``: an element
        of a tuple display, or of each tuple a function of this module returns."""
        if isinstance(value, (ast.Tuple, ast.List)):
            return _element_of(value, position, lambda e: self.dict_value(e, scope))
        if isinstance(value, ast.Call):
            returned = self._returned_dict(value, scope, position)
            if returned is not None:
                return returned
        return DictValue({}, open=True)

    def _returned_dict(
        self, call: ast.Call, scope: Scope, position: Optional[int]
    ) -> Optional[DictValue]:
        """The dict a call of a function of this module returns (``position``: the element of
        the tuple it returns), either of its returns when it has several; None when the
        function is not known (:meth:`ValueEvaluator.returned_expressions`)."""
        returned = self.evaluator.returned_expressions(call, scope)
        if returned is None:
            return None
        function_scope = returned[0][1]
        key = id(function_scope)
        if key in self._calls_active:
            return DictValue({}, open=True)  # a recursive function: not followed
        self._calls_active.add(key)
        try:
            options: list[DictValue] = []
            for value, inner in returned:
                if position is None:
                    options.append(self.dict_value(value, inner))
                else:
                    options.append(self._element(value, position, inner))
        finally:
            self._calls_active.discard(key)
        return _either(options)

    def returned_dict_of(self, function: ast.FunctionDef) -> Optional[DictValue]:
        """The closed dict every ``return`` of ``function`` gives (either of them), its
        parameters taken as anything (the callers' arguments are not followed); None where
        some return is not such a dict, or the function may end without one (as
        :meth:`ValueEvaluator.returned_expressions`)."""
        if function.decorator_list:
            return None
        returns = function_returns(function)
        if not returns or None in returns or _may_end(function.body):
            return None
        function_scope = self.builder.scope_of.get(id(function))
        if function_scope is None:
            return None
        evaluator = self.evaluator
        saved = dict(evaluator._bound)
        key = id(function_scope)
        self._calls_active.add(key)
        try:
            for bindings in function_scope.bindings.values():
                for binding in bindings:
                    if binding.kind == "param" and isinstance(binding.node, ast.arg):
                        evaluator._bound[id(binding.node)] = ANYTHING
            options: list[DictValue] = []
            for value in returns:
                assert value is not None
                found = self.dict_value(value, function_scope)
                if found.open:
                    return None
                options.append(found)
        finally:
            evaluator._bound = saved
            self._calls_active.discard(key)
        return _either(options)

    def _dict_comprehension(self, expr: ast.DictComp, scope: Scope) -> DictValue:
        """``{k: source[k] for k in source}`` (or ``for k, v in source.items()``, value
        ``v``): a copy of ``source``, each key only maybe there when an ``if`` filters them;
        another value: the same keys with values not followed; any other shape: open."""
        if len(expr.generators) != 1:
            return DictValue({}, open=True)
        loop = expr.generators[0]
        key_name, value_name, source = _comprehension_source(loop)
        if (
            source is None
            or loop.is_async
            or not isinstance(expr.key, ast.Name)
            or expr.key.id != key_name
        ):
            return DictValue({}, open=True)
        copied = self.dict_value(source, scope)  # the first loop's source: read outside
        value = expr.value
        same = (isinstance(value, ast.Name) and value.id == value_name) or (
            isinstance(value, ast.Subscript)
            and isinstance(value.slice, ast.Name)
            and value.slice.id == key_name
            and dotted_name(value.value) is not None  # not ast.dump: it leaves a cycle
            and dotted_name(value.value) == dotted_name(source)
        )
        result = DictValue({}, open=copied.open)
        for key, entry in copied.entries.items():
            if not same:
                entry = ANYTHING
            kept = _kept_by(loop.ifs, key_name, key, scope)
            if kept is not False:
                _set(result, key, entry, conditional=kept is None)
        return result

    def _apply_mutation(self, result: DictValue, mutation: DictMutation, scope: Scope) -> None:
        node, conditional = mutation.node, mutation.conditional
        if isinstance(node, ast.Subscript):
            key = node.slice
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                result.open = result.open or mutation.kind == "store"
            elif mutation.kind == "del":
                _set(result, key.value, known(ABSENT), conditional)
            elif mutation.value is None:  # augmented or unpacked: a value we cannot follow
                _set(result, key.value, ANYTHING, conditional)
            else:
                value = _set_at(self.evaluator.evaluate(mutation.value, scope), mutation.value)
                _set(result, key.value, value, conditional)
        elif isinstance(node, ast.AugAssign):
            _merge(result, self.dict_value(node.value, scope), definite=not conditional)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if method == "update":
                for arg in node.args:
                    _merge(result, self.dict_value(arg, scope), definite=not conditional)
                for keyword in node.keywords:
                    if keyword.arg is None:
                        _merge(
                            result, self.dict_value(keyword.value, scope), definite=not conditional
                        )
                    else:
                        value = _set_at(
                            self.evaluator.evaluate(keyword.value, scope), keyword.value
                        )
                        _set(result, keyword.arg, value, conditional)
            elif method in ("pop", "setdefault") and node.args:
                key = node.args[0]
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    result.open = True
                elif method == "pop":
                    _set(result, key.value, known(ABSENT), conditional=True)
                elif len(node.args) > 1:
                    value = self.evaluator.evaluate(node.args[1], scope)
                    _set(result, key.value, value, conditional=True)
            elif method == "clear":
                for key_name in list(result.entries):
                    _set(result, key_name, known(ABSENT), conditional=True)


def _element_of(
    value: ast.expr, position: int, follow: Callable[[ast.expr], DictValue]
) -> DictValue:
    """The dict at ``position`` of a tuple (or list) display: open for another expression,
    a starred element or a position it does not have."""
    if not isinstance(value, (ast.Tuple, ast.List)) or position >= len(value.elts):
        return DictValue({}, open=True)
    if any(isinstance(e, ast.Starred) for e in value.elts):
        return DictValue({}, open=True)
    return follow(value.elts[position])


def _either(options: list[DictValue]) -> DictValue:
    """One of several dicts (the returns of a function)."""
    combined = DictValue(dict(options[0].entries), open=options[0].open)
    for other in options[1:]:
        _merge(combined, other, definite=False)
    return combined


def _comprehension_source(
    loop: ast.comprehension,
) -> tuple[str, str, Optional[ast.expr]]:
    """``(key name, value name, source)`` of ``for k in source`` (``for k in
    source.keys()``; no value name) or ``for k, v in source.items()``; no source for another
    loop."""
    target, iterated = loop.target, loop.iter
    method = ""
    if (
        isinstance(iterated, ast.Call)
        and isinstance(iterated.func, ast.Attribute)
        and not iterated.args
        and not iterated.keywords
    ):
        method, iterated = iterated.func.attr, iterated.func.value
    if isinstance(target, ast.Name) and method in ("", "keys"):
        return target.id, "", iterated
    if (
        method == "items"
        and isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and all(isinstance(e, ast.Name) for e in target.elts)
    ):
        key, value = target.elts
        assert isinstance(key, ast.Name) and isinstance(value, ast.Name)
        return key.id, value.id, iterated
    return "", "", None


def _changed_in_place(cls: ast.ClassDef, attr: str) -> bool:
    """Whether a method of ``cls`` changes ``self.attr`` in place (``self.attr[k] = v``,
    ``self.attr.update(...)``, ``del self.attr[k]``, ``self.attr |= ...``)."""
    for node in ast.walk(cls):
        base: Optional[ast.expr] = None
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            base = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("update", "pop", "setdefault", "clear", "popitem"):
                base = node.func.value
        elif isinstance(node, ast.AugAssign):
            base = node.target
        if isinstance(base, ast.Attribute) and base.attr == attr:
            return True
    return False


def _set_at(value: Value, expr: ast.expr) -> Value:
    """A keyword dict's entry: where it was set is its origin (the call shows only `**kw`)."""
    return with_origin(value, f"set in a dict at line {expr.lineno}", expr.lineno)


def _updates_in_place(binding: Binding) -> bool:
    node = binding.node
    return isinstance(node, ast.AugAssign) and isinstance(node.op, ast.BitOr)


def _kept_by(tests: list[ast.expr], name: str, key: str, scope: Scope) -> Optional[bool]:
    """Whether a comprehension's ``if`` tests keep ``key`` (bound to ``name``): each test
    ``name in (...)``, ``name not in (...)`` (a literal of strings, or a name assigned only
    one), ``name == "..."`` or ``name != "..."``; None when a test cannot be decided."""
    for test in tests:
        if not (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.left, ast.Name)
            and test.left.id == name
        ):
            return None
        op, right = test.ops[0], test.comparators[0]
        if isinstance(op, (ast.Eq, ast.NotEq)):
            if not (isinstance(right, ast.Constant) and isinstance(right.value, str)):
                return None
            if (key == right.value) is isinstance(op, ast.NotEq):
                return False
        elif isinstance(op, (ast.In, ast.NotIn)):
            members = _string_literal(right, scope)
            if members is None:
                return None
            if (key in members) is isinstance(op, ast.NotIn):
                return False
        else:
            return None
    return True


def _string_literal(expr: ast.expr, scope: Scope) -> Optional[frozenset[str]]:
    """The strings of a list, tuple or set literal of strings, or of a name assigned only
    one such literal in its scope."""
    if isinstance(expr, ast.Name):
        bindings = lookup(expr.id, scope)
        if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
            return None
        value = bindings[0].value
        if value is None:
            return None
        expr = value
    if not isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        return None
    found: set[str] = set()
    for element in expr.elts:
        if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
            return None
        found.add(element.value)
    return frozenset(found)


def _set(result: DictValue, key: str, value: Value, conditional: bool) -> None:
    if conditional:
        previous = result.entries.get(key, known(ABSENT))
        result.entries[key] = union([previous, value])
    else:
        result.entries[key] = value


def _merge(result: DictValue, other: DictValue, definite: bool) -> None:
    for key, value in other.entries.items():
        _set(result, key, value, conditional=not definite)
    if other.open:
        result.open = True
    if not definite:
        for key in result.entries:
            if key not in other.entries:
                result.entries[key] = union([result.entries[key], known(ABSENT)])


def _combine_spread(values: list[Value]) -> Value:
    if not values:
        return known(ABSENT)
    combined = union(values)
    if combined is ANYTHING:
        return ANYTHING
    return combined
