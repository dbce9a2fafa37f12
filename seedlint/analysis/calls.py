"""Call arguments bound to a signature, the way Python binds them.

Keyword and positional arguments are matched to parameter names; ``*args`` in a call makes the
positions after it unknowable; ``**kw`` is looked through when ``kw`` is a dict built in the same
function from literals (``dict(...)``, ``{...}``, ``kw.update(...)``, ``kw |= {...}``,
``kw["key"] = value``), from the bindings of ``kw`` that reach the call.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from seedlint.analysis.names import Binding, DictMutation, Scope, lookup, passed_argument
from seedlint.analysis.values import (
    ABSENT,
    ANYTHING,
    UNKNOWABLE,
    Value,
    ValueEvaluator,
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
            if binding.kind != "assign" or binding.value is None:
                return DictValue({}, open=True)
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
