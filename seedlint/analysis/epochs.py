"""DistributedSampler epochs: which loaders a sampler goes to, whether a loader is used inside an
epoch loop, and whether anything calls ``set_epoch`` on the sampler (plain ``ast``; RNG008 and
its fix).

Values are followed by name resolution: a plain name refers to a call when one of its bindings
in the scope where it is read is that call (or a branch of a conditional expression holding it);
an attribute chain (``self.loader``) refers to it when the call is assigned to that chain
anywhere in the module."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Optional, Union

from seedlint.analysis.facts import BoundCall, ModuleFacts
from seedlint.analysis.names import (
    STATEMENT_FIELDS,
    FunctionNode,
    Scope,
    assignment_statements,
    dotted_name,
    lookup,
)

Loop = Union[ast.For, ast.AsyncFor, ast.While]

# Callables (and classes whose methods) call ``set_epoch`` on the samplers of the loaders handed
# to them: Lightning's Trainer, accelerate's prepare, composer's Trainer, torchdata's
# SamplerWrapper. The `set-epoch-wrappers` setting adds to them.
DEFAULT_SET_EPOCH_WRAPPERS: tuple[str, ...] = (
    "lightning.Trainer",
    "lightning.pytorch.Trainer",
    "pytorch_lightning.Trainer",
    "accelerate.Accelerator",
    "accelerate.accelerator.Accelerator",
    "accelerate.data_loader.prepare_data_loader",
    "accelerate.utils.prepare_data_loader",
    "composer.Trainer",
    "composer.trainer.Trainer",
    "torchdata.nodes.SamplerWrapper",
    "torchdata.nodes.adapters.SamplerWrapper",
)


@dataclass
class Refs:
    """Calls whose results are followed, and the attribute chains they are stored under."""

    calls: list[ast.Call] = field(default_factory=list)
    chains: set[str] = field(default_factory=set)
    # names bound by unpacking a followed tuple at the followed value's place
    # (``train_loader, valset = prepare()`` where `prepare` returns ``loader, dataset``)
    unpacked: set[int] = field(default_factory=set)
    # parameters of the module's functions that a followed value is passed to (``ast.arg`` ids)
    params: set[int] = field(default_factory=set)

    def add(self, facts: ModuleFacts, call: ast.Call) -> None:
        self.calls.append(call)
        self.chains |= {c for c in _stored_chains(facts, call) if "." in c or "[" in c}

    def holds(self, chain: str) -> bool:
        """``chain`` holds a followed value, or is a container one is kept in
        (``loaders`` of ``loaders['train']``)."""
        return chain in self.chains or any(c.startswith(chain + "[") for c in self.chains)


@dataclass
class SamplerUse:
    """A DistributedSampler call and what the module does with it."""

    sampler: BoundCall
    samplers: Refs = field(default_factory=Refs)
    loaders: Refs = field(default_factory=Refs)  # loader calls it goes to (or calls returning one)
    loops: list[tuple[Loop, Scope]] = field(default_factory=list)  # epoch loops using a loader


def _is_value_of(node: ast.AST, value: ast.expr) -> bool:
    if value is node:
        return True
    if isinstance(value, ast.IfExp):
        return _is_value_of(node, value.body) or _is_value_of(node, value.orelse)
    return False


def chain_of(expr: ast.expr) -> Optional[str]:
    """``a.b['train'].c`` for a chain of attributes and literal subscripts on a name, else
    None."""
    if isinstance(expr, ast.Subscript):
        key = expr.slice
        if not isinstance(key, ast.Constant) or type(key.value) not in (str, int):
            return None
        base = chain_of(expr.value)
        return None if base is None else f"{base}[{key.value!r}]"
    if isinstance(expr, ast.Attribute):
        base = chain_of(expr.value)
        return None if base is None else f"{base}.{expr.attr}"
    if isinstance(expr, ast.Name):
        return expr.id
    return None


def _stored_chains(facts: ModuleFacts, call: ast.Call) -> set[str]:
    """The chains ``call`` is stored under: assigned to them (``self.loader = ...``,
    ``sampler['train'] = ...``) or kept at a literal key of a dict display assigned to them
    (``loaders = {'train': DataLoader(...)}``)."""
    result: set[str] = set()
    for stmt in _assignments(facts):
        value = stmt.value
        if value is None:
            continue
        keys: list[str] = []
        if _is_value_of(call, value):
            keys.append("")
        elif isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values):
                if (
                    isinstance(key, ast.Constant)
                    and type(key.value) in (str, int)
                    and _is_value_of(call, item)
                ):
                    keys.append(f"[{key.value!r}]")
        if not keys:
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            name = chain_of(target)
            if name is not None:
                result.update(name + key for key in keys)
    return result


def _assignments(facts: ModuleFacts) -> list[Union[ast.Assign, ast.AnnAssign]]:
    cached = facts.__dict__.get("_epoch_assignments")
    if cached is None:
        cached = assignment_statements(facts.tree)
        facts.__dict__["_epoch_assignments"] = cached
    return list(cached)


def refers(expr: ast.AST, scope: Scope, refs: Refs) -> bool:
    """``expr`` holds one of ``refs.calls``, a name bound to one, or a chain they are stored
    under (or an attribute of one: ``loader.sampler``)."""
    for inner in ast.walk(expr):
        if any(inner is call for call in refs.calls):
            return True
        if isinstance(inner, ast.Name):
            for binding in lookup(inner.id, scope) or []:
                if binding.kind == "other" and id(binding.node) in refs.unpacked:
                    return True
                if binding.kind == "param" and id(binding.node) in refs.params:
                    return True
                value = binding.value
                if (
                    binding.kind == "assign"
                    and value is not None
                    and any(_is_value_of(call, value) for call in refs.calls)
                ):
                    return True
        elif isinstance(inner, (ast.Attribute, ast.Subscript)):
            name = chain_of(inner)
            if name is not None and any(
                name == c or name.startswith((c + ".", c + "[")) for c in refs.chains
            ):
                return True
    return False


def sampler_uses(facts: ModuleFacts, samplers: list[BoundCall]) -> list[SamplerUse]:
    result = []
    for sampler in samplers:
        use = SamplerUse(sampler)
        use.samplers.add(facts, sampler.call)
        for call, positions in _calls_returning(facts, sampler.call):
            if not positions:  # `sampler=make_sampler(...)`: a module function returns it
                use.samplers.add(facts, call)
        for loader in facts.dataloader_calls:
            for name in ("sampler", "batch_sampler"):
                expr = loader.argument(name)
                if expr is not None and refers(expr, loader.scope, use.samplers):
                    use.loaders.add(facts, loader.call)
        for loader_call in list(use.loaders.calls):
            for call, positions in _calls_returning(facts, loader_call):
                use.loaders.add(facts, call)
                if positions:
                    _unpacked_at(facts, call, positions, use.loaders)
        _into_callees(facts, use.loaders)
        use.loops = _epoch_loops(facts, use)
        result.append(use)
    return result


def _into_callees(facts: ModuleFacts, refs: Refs) -> None:
    """Follow what ``refs`` holds into the parameters of this module's functions it is passed
    to (by position or by keyword; ``self.f(x)`` skips the method's first parameter), then
    from those to the functions they are passed on to: ``train(loader)`` iterates it in
    ``train``'s loops."""
    changed = bool(refs.calls or refs.chains)
    while changed:
        changed = False
        for call, scope in facts.builder.calls:
            arguments = [*call.args, *(k.value for k in call.keywords if k.arg is not None)]
            if not any(_passes(a, scope, refs) for a in arguments):
                continue
            for function in _callees(facts, call, scope):
                if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for param in _parameters_given(function, call, scope, refs):
                        if id(param) not in refs.params:
                            refs.params.add(id(param))
                            changed = True


def _callees(facts: ModuleFacts, call: ast.Call, scope: Scope) -> list[object]:
    """What ``call`` calls: the meanings of its function, or for ``self.method(...)`` in a
    method, the class's own method of that name."""
    meanings: list[object] = list(facts.resolver.meanings(call.func, scope))
    func = call.func
    if meanings or not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
        return meanings
    owner = scope.parent
    if func.value.id != "self" or owner is None or not isinstance(owner.node, ast.ClassDef):
        return meanings
    return [
        item
        for item in owner.node.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == func.attr
    ]


def _parameters_given(
    function: Union[ast.FunctionDef, ast.AsyncFunctionDef], call: ast.Call, scope: Scope, refs: Refs
) -> list[ast.arg]:
    """The parameters of ``function`` that ``call`` passes a followed value to."""
    positional = [*function.args.posonlyargs, *function.args.args]
    bound_method = isinstance(call.func, ast.Attribute) and bool(positional)
    if bound_method and positional[0].arg in ("self", "cls"):
        positional = positional[1:]
    found: list[ast.arg] = []
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred) or index >= len(positional):
            break
        if _passes(argument, scope, refs):
            found.append(positional[index])
    by_name = {a.arg: a for a in (*positional, *function.args.kwonlyargs)}
    for keyword in call.keywords:
        param = by_name.get(keyword.arg or "")
        if param is not None and _passes(keyword.value, scope, refs):
            found.append(param)
    return found


def _passes(argument: ast.expr, scope: Scope, refs: Refs) -> bool:
    """The argument is a followed value: one of the calls itself, or a name or chain holding
    one (not a larger expression that mentions it)."""
    return any(argument is call for call in refs.calls) or _is_reference(argument, scope, refs)


def _calls_returning(
    facts: ModuleFacts, loader_call: ast.Call
) -> list[tuple[ast.Call, frozenset[int]]]:
    """Calls to a module function that returns the loader (or the sampler: any call given),
    or a name holding it: ``train_loader = build_loader(...)``; with the positions of a
    returned tuple that hold it (``return train_loader, valset``: {0}), empty when it is
    returned alone."""
    result: list[tuple[ast.Call, frozenset[int]]] = []
    single = Refs([loader_call])
    for function, scope, returned in _returns(facts):
        returns = [r for r in returned if r.value is not None and refers(r.value, scope, single)]
        if not returns:
            continue
        positions: set[int] = set()
        for r in returns:
            if isinstance(r.value, ast.Tuple):
                positions.update(
                    i for i, element in enumerate(r.value.elts) if refers(element, scope, single)
                )
        for other, other_scope in facts.builder.calls:
            if function in facts.resolver.meanings(other.func, other_scope):
                result.append((other, frozenset(positions)))
    return result


def _returns(facts: ModuleFacts) -> list[tuple[FunctionNode, Scope, list[ast.Return]]]:
    """The module's functions that return a value, with their scope and those ``return``
    statements (nested functions' included), found once per module: each loader and sampler
    asks."""

    def compute() -> list[tuple[FunctionNode, Scope, list[ast.Return]]]:
        # One walk of the statements (a `return` is one), each `return` given to every
        # function around it: walking each function's whole tree read nested ones again.
        returned: dict[int, list[ast.Return]] = {}
        stack: list[tuple[ast.AST, tuple[FunctionNode, ...]]] = [(facts.tree, ())]
        while stack:
            node, around = stack.pop()
            if isinstance(node, ast.Return) and node.value is not None:
                for function in around:
                    returned.setdefault(id(function), []).append(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                around = (*around, node)
            for name in STATEMENT_FIELDS:
                stack.extend((child, around) for child in getattr(node, name, ()))
        found: list[tuple[FunctionNode, Scope, list[ast.Return]]] = []
        for function, _ in facts.builder.functions:
            returns = returned.get(id(function))
            if returns:
                found.append((function, facts.resolver.scope_of(function), returns))
        return found

    return facts.once("epochs.returns", compute)


def _unpacked_at(facts: ModuleFacts, call: ast.Call, positions: frozenset[int], refs: Refs) -> None:
    """The names ``a, b = call`` binds at ``positions`` hold what is followed."""
    for node in ast.walk(facts.tree):
        if not isinstance(node, ast.Assign) or node.value is not call:
            continue
        for target in node.targets:
            if not isinstance(target, (ast.Tuple, ast.List)):
                continue
            for i, element in enumerate(target.elts):
                if i not in positions:
                    continue
                if isinstance(element, ast.Name):
                    refs.unpacked.add(id(element))
                else:
                    chain = dotted_name(element)
                    if chain is not None:
                        refs.chains.add(chain)


def _epoch_loops(facts: ModuleFacts, use: SamplerUse) -> list[tuple[Loop, Scope]]:
    """Loops whose body (not only their iterable) uses one of the sampler's loaders: the loader
    is iterated again at every turn."""
    result: list[tuple[Loop, Scope]] = []
    if not use.loaders.calls and not use.loaders.chains:
        return result  # no loader to be iterated again
    for node, scope in _loops(facts):
        if any(refers(stmt, scope, use.loaders) for stmt in node.body):
            result.append((node, scope))
    return result


def _loops(facts: ModuleFacts) -> list[tuple[Loop, Scope]]:
    """The module's loops, each with the scope whose body holds it, found once per module."""

    def compute() -> list[tuple[Loop, Scope]]:
        return [
            (node, _scope_of_statement(facts, node))
            for node in ast.walk(facts.tree)
            if isinstance(node, (ast.For, ast.AsyncFor, ast.While))
        ]

    return facts.once("epochs.loops", compute)


def _scope_of_statement(facts: ModuleFacts, stmt: ast.stmt) -> Scope:
    """The innermost function (or the module) scope whose body holds ``stmt``."""
    best = facts.builder.module_scope
    best_start = (0, 0)
    here = (stmt.lineno, stmt.col_offset)
    stop = (stmt.end_lineno or 0, stmt.end_col_offset or 0)
    for function, _ in facts.builder.functions:
        start = (function.lineno, function.col_offset)
        end = (function.end_lineno or 0, function.end_col_offset or 0)
        if start < here and stop <= end and start >= best_start:
            best, best_start = facts.resolver.scope_of(function), start
    return best


def sets_epoch(facts: ModuleFacts, use: SamplerUse) -> bool:
    """Some ``set_epoch`` call may reach the sampler: on the sampler or through one of its
    loaders (``loader.sampler.set_epoch(epoch)``); on a receiver this module cannot follow (not a
    plain dotted name, or one rooted in a parameter or an unbound name) that names a sampler; or
    a module helper called ``set_epoch``."""
    for call, scope in facts.builder.calls:
        func = call.func
        if isinstance(func, ast.Name) and func.id == "set_epoch":
            return True
        if not (isinstance(func, ast.Attribute) and func.attr == "set_epoch"):
            continue
        if refers(func.value, scope, use.samplers) or refers(func.value, scope, use.loaders):
            return True
        receiver = chain_of(func.value)
        if receiver is None:
            return True
        root = re.split(r"[.\[]", receiver, maxsplit=1)[0]
        if "sampler" in receiver.lower() and _unresolved(root, scope):
            return True
    return False


def _unresolved(name: str, scope: Scope) -> bool:
    bindings = lookup(name, scope)
    return not bindings or any(b.kind != "assign" for b in bindings)


# Calls that take a sampler without keeping it: handing a sampler to them is not an escape.
_INSPECTING = frozenset({"isinstance", "hasattr", "getattr", "len", "print", "repr", "str", "type"})
_SAMPLER_HOLDERS = frozenset({"torch.utils.data.BatchSampler"})


def sampler_escapes(facts: ModuleFacts, use: SamplerUse) -> bool:
    """The sampler itself is handed to a call other than a loader or a ``BatchSampler``
    (``train(..., sampler=train_sampler)``): the callee, maybe in another module, may call
    ``set_epoch`` on it."""
    loaders = {id(loader.call) for loader in facts.dataloader_calls}
    for call, scope in facts.builder.calls:
        if id(call) in loaders or call is use.sampler.call:
            continue
        func = call.func
        if isinstance(func, ast.Name) and func.id in _INSPECTING:
            continue
        if facts.resolver.qualnames(func, scope) & _SAMPLER_HOLDERS:
            continue
        arguments = [*call.args, *(k.value for k in call.keywords)]
        if any(_is_reference(a, scope, use.samplers) for a in arguments):
            return True
    return False


def _is_reference(expr: ast.expr, scope: Scope, refs: Refs) -> bool:
    """``expr`` is the followed value itself (a name or chain holding it), not a larger
    expression that merely mentions it (``len(sampler)``, ``sampler.num_samples``)."""
    if isinstance(expr, ast.Starred):
        expr = expr.value
    if isinstance(expr, ast.Name):
        return refers(expr, scope, refs) or refs.holds(expr.id)
    if isinstance(expr, (ast.Attribute, ast.Subscript)):
        name = chain_of(expr)
        return name is not None and refs.holds(name)
    return False


def handed_to_wrapper(facts: ModuleFacts, use: SamplerUse, wrappers: frozenset[str]) -> bool:
    """The sampler or one of its loaders is passed to a callable that sets epochs itself, or to
    a method of an instance of such a class (``accelerator.prepare(loader)``)."""
    for call, scope in facts.builder.calls:
        arguments = [*call.args, *(k.value for k in call.keywords)]
        if not any(
            refers(a, scope, use.samplers)
            or refers(a, scope, use.loaders)
            or _is_reference(a, scope, use.samplers)
            or _is_reference(a, scope, use.loaders)
            for a in arguments
        ):
            continue
        if facts.resolver.qualnames(call.func, scope) & wrappers:
            return True
        func = call.func
        if isinstance(func, ast.Attribute) and facts.call_to(func.value, scope, wrappers):
            return True
    return False
