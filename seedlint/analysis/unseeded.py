"""A ``torch.Generator()`` that nothing seeds: the same stream in every run, whatever the seed.

A fresh ``torch.Generator()`` starts from the fixed ``default_rng_seed_val`` (67280421310721, on
CPU and CUDA alike: ``c10/core/GeneratorImpl.h``), not from the global generator. A loader,
sampler or ``random_split`` given one draws the same order in every run, and
``torch.manual_seed``/``--seed`` never change it: every unseeded generator of the program gives
the very same stream. RNG001, RNG006 and RNG007 ask :func:`unseeded_generator` about the
``generator=`` they are given.

A generator counts as seeded when the module calls ``manual_seed``, ``seed``, ``set_state`` (or
``graphsafe_set_state``) on the name it is bound to, anywhere, or when the name goes anywhere but
a ``generator=`` argument (a helper may seed it): only a generator whose every use is visible and
unseeded is reported.
"""

from __future__ import annotations

import ast
from typing import Optional

from seedlint.analysis.names import NameResolver, Scope, lookup

GENERATOR = frozenset({"torch.Generator"})
_SEEDING_METHODS = frozenset({"manual_seed", "seed", "set_state", "graphsafe_set_state"})


def unseeded_generator(
    resolver: NameResolver, expr: Optional[ast.expr], scope: Scope
) -> Optional[tuple[ast.Call, Scope]]:
    """The ``torch.Generator(...)`` call (and its scope) that ``expr`` is on every path, when
    nothing seeds the generator it makes; None otherwise."""
    if expr is None:
        return None
    if isinstance(expr, ast.Call):
        return (expr, scope) if _constructs(resolver, expr, scope) else None
    if not isinstance(expr, ast.Name):
        return None
    bindings = lookup(expr.id, scope)
    if not bindings:
        return None
    found: Optional[tuple[ast.Call, Scope]] = None
    for binding in bindings:
        value = binding.value
        if binding.kind != "assign" or not isinstance(value, ast.Call):
            return None
        if not _constructs(resolver, value, binding.scope):
            return None
        if found is not None:
            return None  # two constructions: the fix could not name one
        found = (value, binding.scope)
    if found is None or not _only_passed(expr.id, found[1]):
        return None
    return found


def _constructs(resolver: NameResolver, call: ast.Call, scope: Scope) -> bool:
    """``call`` is ``torch.Generator(...)`` (any spelling), not seeded by a method chained on it."""
    return bool(resolver.qualnames(call.func, scope) & GENERATOR)


def _only_passed(name: str, scope: Scope) -> bool:
    """Every use of ``name`` in ``scope`` (and the scopes inside it) is a ``generator=`` argument
    or the base of an attribute that seeds nothing; no seeding method is called on it."""
    node = scope.node
    for current in ast.walk(node):
        if isinstance(current, ast.Call):
            func = current.func
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == name
                and func.attr in _SEEDING_METHODS
            ):
                return False
            for position, arg in enumerate(current.args):
                if _is(arg, name) and not _generator_position(current, position):
                    return False  # passed positionally to something: it may seed it
            for keyword in current.keywords:
                if _is(keyword.value, name) and keyword.arg != "generator":
                    return False
        elif isinstance(current, (ast.Return, ast.Yield, ast.Assign, ast.AnnAssign)):
            # `self.g = g`, `return g`, `pair = (g, x)`: it escapes where it may be seeded (a
            # use inside a call is judged at the call)
            value = current.value
            if value is not None and _held(value, name):
                return False
        elif isinstance(current, (ast.Global, ast.Nonlocal)) and name in current.names:
            return False
    return True


def _generator_position(call: ast.Call, position: int) -> bool:
    """A positional argument that is the callee's generator: ``random_split(ds, lengths, g)``,
    ``RandomSampler(ds, False, None, g)`` and the like are left to the rules' binding; a plain
    positional use elsewhere is an escape."""
    func = call.func
    last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return (last, position) in _GENERATOR_POSITIONS


_GENERATOR_POSITIONS = frozenset(
    {
        ("random_split", 2),
        ("RandomSampler", 3),
        ("SubsetRandomSampler", 1),
        ("WeightedRandomSampler", 3),
        ("DataLoader", 12),
    }
)


def _is(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.id == name


def _held(expr: ast.expr, name: str) -> bool:
    """``expr`` is the name itself, or a container or conditional that holds it."""
    if _is(expr, name):
        return True
    if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
        return any(_held(element, name) for element in expr.elts)
    if isinstance(expr, ast.Starred):
        return _held(expr.value, name)
    if isinstance(expr, ast.Dict):
        return any(_held(value, name) for value in expr.values)
    if isinstance(expr, ast.IfExp):
        return _held(expr.body, name) or _held(expr.orelse, name)
    if isinstance(expr, (ast.BoolOp, ast.NamedExpr)):
        values = expr.values if isinstance(expr, ast.BoolOp) else [expr.value]
        return any(_held(value, name) for value in values)
    return False
