"""Passing a seeded ``generator=`` to a torch call (RNG006, RNG007), or seeding a
``torch.Generator()`` that nothing seeds (RNG001, RNG006, RNG007), in ``ast`` terms: whether a
fix can, and the expression it writes (the libcst side: ``fixes.calls.pass_seeded_generator``
and ``fixes.calls.seed_generator``)."""

from __future__ import annotations

import ast
from typing import Optional

from seedlint.analysis.facts import BoundCall, ModuleFacts
from seedlint.analysis.names import Scope, lookup
from seedlint.analysis.values import is_none_or_absent
from seedlint.core import Applicability
from seedlint.fixes.imports import Names
from seedlint.fixes.locate import argument_settable
from seedlint.fixes.options import FixOptions
from seedlint.fixes.seeds import Position, choose_seed

# The global CPU generator object itself (``random_split``'s default).
DEFAULT_GENERATOR = frozenset({"torch.default_generator"})


def lacks_generator(facts: ModuleFacts, bound: BoundCall) -> bool:
    """``generator`` is absent or ``None`` on some known path, or is the global generator. A
    parameter passed through (``generator=generator``) is the caller's choice: not flagged."""
    expr = bound.argument("generator")
    if isinstance(expr, ast.Name):
        bindings = lookup(expr.id, bound.scope) or []
        if bindings and all(b.kind == "param" for b in bindings):
            return False
    if bound.args["generator"].known_may(is_none_or_absent):
        return True
    return expr is not None and bool(
        facts.resolver.qualnames(expr, bound.scope) & DEFAULT_GENERATOR
    )


def generator_fix(facts: ModuleFacts, bound: BoundCall) -> Optional[Applicability]:
    """Whether a fix can pass ``generator=`` to the call: safe, or unsafe for a subclass of this
    module with an ``__init__`` of its own; None: no fix (it may come from ``*args`` or
    ``**kwargs``)."""
    if not argument_settable(
        facts, bound.call, bound.scope, "generator", bound.position("generator")
    ):
        return None
    return Applicability.UNSAFE if bound.custom_init else Applicability.SAFE


def seeded_generator(facts: ModuleFacts, scope: Scope, at: Position, options: FixOptions) -> str:
    """``torch.Generator().manual_seed(SEED)`` as a fix writes it at ``at`` (the title names it):
    the module's name for torch and the program's seed (see :mod:`seedlint.fixes.seeds`)."""
    torch, _ = Names(facts).module("torch", scope, at, set())
    return f"{torch}.Generator().manual_seed({choose_seed(facts, at, scope, options).text(torch)})"


UNSEEDED_MESSAGE = "an unseeded `torch.Generator()`: fixed seed, ignores the run's seed"


def seeding_title(
    facts: ModuleFacts, construction: ast.Call, scope: Scope, options: FixOptions
) -> str:
    """The title of the fix that seeds a ``torch.Generator(...)`` where it is made."""
    at = (construction.lineno, construction.col_offset)
    torch, _ = Names(facts).module("torch", scope, at, set())
    seed = choose_seed(facts, at, scope, options).text(torch)
    return f"Seed the generator where it is made: `.manual_seed({seed})`"
