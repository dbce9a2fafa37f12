"""Where a fix's seed comes from: the seed the program already names, else ``fix-seed``.

Pure ``ast`` over the module facts (no libcst), in this order of preference:

1. the argument of an earlier seeding call (``torch.manual_seed(X)``, ``random.seed(X)``,
   ``np.random.seed(X)``, ``torch.cuda.manual_seed[_all](X)`` or a seeding helper such as
   ``seed_everything(X)``) in the same function, then at module level, when every name in ``X``
   means the same at the fix location and ``X`` has no call in it;
2. a variable or parameter named ``seed`` (or ``SEED``) visible at the fix location;
3. ``<args>.seed`` when the module's argparse defines ``--seed`` and ``<args>`` (a name bound to
   ``parser.parse_args()``, or a parameter named ``args``) is visible at the fix location;
4. the ``fix-seed`` setting.

A candidate whose value is known to be ``None`` on some path is skipped: ``manual_seed(None)``
raises.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Optional

from seedlint.analysis.facts import ModuleFacts, SeedCall
from seedlint.analysis.names import Binding, Scope, lookup
from seedlint.analysis.seeding import Seeding

Position = tuple[int, int]  # (1-based line, 0-based ast column)

SEEDING_WITH_VALUE = frozenset(
    {
        Seeding.TORCH,
        Seeding.CUDA_CURRENT,
        Seeding.CUDA_ALL,
        Seeding.OTHER_DEVICE,
        Seeding.RANDOM,
        Seeding.NUMPY,
        Seeding.HELPER,
    }
)
SEED_NAMES = ("seed", "SEED")
ARGS_NAMES = ("args",)
# Expressions that evaluate to something new each time (or have effects): never duplicated.
_UNSAFE_NODES = (
    ast.Call,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
    ast.NamedExpr,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.Starred,
)


def find_seed(facts: ModuleFacts, text: str, at: Position, scope: Scope, fallback: int) -> str:
    """Source text of the seed expression to use at ``at`` (evaluated in ``scope``)."""
    for seed in earlier_seed_calls(facts, at, scope):
        value = seed_argument(seed.call)
        if value is not None and reusable(facts, value, seed.scope, scope):
            return expression_text(text, value)
    for name in SEED_NAMES:
        if _usable_name(facts, name, at, scope):
            return name
    attribute = _argparse_seed(facts, at, scope)
    if attribute is not None:
        return attribute
    return str(fallback)


def seed_argument(call: ast.Call) -> Optional[ast.expr]:
    """The seed a seeding call passes: its first positional argument or ``seed=``/``a=``."""
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    for keyword in call.keywords:
        if keyword.arg in ("seed", "a"):
            return keyword.value
    return None


def earlier_seed_calls(facts: ModuleFacts, at: Position, scope: Scope) -> Iterator[SeedCall]:
    """Seeding calls before ``at``: the same function's (latest first), then the module's."""
    here = facts.enclosing_function(scope)
    before = [
        s
        for s in facts.seed_calls
        if s.kind in SEEDING_WITH_VALUE and (s.call.lineno, s.call.col_offset) < at
    ]
    before.sort(key=lambda s: (s.call.lineno, s.call.col_offset), reverse=True)
    yield from (s for s in before if facts.enclosing_function(s.scope) is here)
    if not isinstance(here, ast.Module):
        yield from (s for s in before if isinstance(facts.enclosing_function(s.scope), ast.Module))


def reusable(facts: ModuleFacts, expr: ast.expr, origin: Scope, target: Scope) -> bool:
    """``expr`` (written in ``origin``) can be written again in ``target`` with the same meaning:
    no calls or other effects, every name bound the same way, and never known to be None."""
    for node in ast.walk(expr):
        if isinstance(node, _UNSAFE_NODES):
            return False
        if isinstance(node, ast.Name) and lookup(node.id, origin) is not lookup(node.id, target):
            return False
    if isinstance(expr, ast.Constant):
        return expr.value is not None and not isinstance(expr.value, (str, bytes))
    return not facts.values.evaluate(expr, origin).known_may(lambda option: option is None)


def expression_text(text: str, expr: ast.expr) -> str:
    """The expression as the program writes it (normalised when it spans lines)."""
    segment = ast.get_source_segment(text, expr)
    if segment is None or "\n" in segment or "\r" in segment:
        return ast.unparse(expr)
    return segment


def bound_before(binding: Binding, at: Position, scope: Scope) -> bool:
    """Whether ``binding`` already holds when code at ``at`` in ``scope`` runs.

    A binding in the scope of the fix location must come first in the text; one in an enclosing
    scope (the module, for code in a function) is taken to be set before the function runs.
    """
    if binding.scope is not scope:
        return True
    if binding.kind == "param":
        return True
    node = binding.node
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) < at


def _usable_name(facts: ModuleFacts, name: str, at: Position, scope: Scope) -> bool:
    bindings = lookup(name, scope)
    if not bindings:
        return False
    for binding in bindings:
        if binding.kind not in ("param", "assign", "other"):
            return False  # `from random import seed`, `def seed(...)`: not a seed value
        if binding.kind == "assign" and isinstance(binding.value, ast.Lambda):
            return False
    if not any(bound_before(b, at, scope) for b in bindings):
        return False
    probe = ast.Name(id=name, ctx=ast.Load())
    return not facts.values.evaluate(probe, scope).known_may(lambda option: option is None)


def _argparse_seed(facts: ModuleFacts, at: Position, scope: Scope) -> Optional[str]:
    defaults = facts.values.argparse_defaults
    dests = ["seed"] if "seed" in defaults else sorted(d for d in defaults if "seed" in d)
    for dest in dests:
        if defaults[dest].known_may(lambda option: option is None):
            continue  # `default=None`: `manual_seed(None)` would raise
        for name in _namespace_names(facts, scope):
            bindings = lookup(name, scope) or []
            if any(bound_before(b, at, scope) for b in bindings):
                return f"{name}.{dest}"
    return None


def _namespace_names(facts: ModuleFacts, scope: Scope) -> list[str]:
    """Names visible in ``scope`` that hold the parsed command line."""
    names: list[str] = []
    current: Optional[Scope] = scope
    while current is not None:
        for name, bindings in current.bindings.items():
            if name in names or lookup(name, scope) is not bindings:
                continue
            if all(_parsed_arguments(b) for b in bindings):
                names.append(name)
        current = current.parent
    for name in ARGS_NAMES:
        bindings = lookup(name, scope) or []
        if name not in names and bindings and all(b.kind == "param" for b in bindings):
            names.append(name)
    return names


def _parsed_arguments(binding: Binding) -> bool:
    value = binding.value
    return (
        binding.kind == "assign"
        and isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "parse_args"
    )
