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
from seedlint.fixes.locate import DEFAULT_GENERATOR, argument_settable
from seedlint.fixes.options import FixOptions
from seedlint.fixes.seeds import Position, choose_seed


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


def passing_title(
    facts: ModuleFacts,
    scope: Scope,
    at: Position,
    options: FixOptions,
    applicability: Applicability,
) -> tuple[Applicability, str]:
    """The applicability and title of the fix that passes a seeded ``generator=`` at ``at``. In
    a script that seeds nothing at all the fix also adds ``SEED = <fix-seed>`` where the program
    starts (``torch.initial_seed()`` would be random there): unsafe, and the title says so."""
    torch, _ = Names(facts).module("torch", scope, at, set())
    seed = choose_seed(facts, at, scope, options, new_constant=True)
    title = f"Pass `generator={torch}.Generator().manual_seed({seed.text(torch)})`"
    if seed.constant is not None:
        return Applicability.UNSAFE, (
            f"{title} and add `{seed.constant}` where the program starts (it seeds nothing)"
        )
    return applicability, title


UNSEEDED_MESSAGE = "an unseeded `torch.Generator()`: fixed seed, ignores the run's seed"


def seeding_title(
    facts: ModuleFacts, construction: ast.Call, scope: Scope, options: FixOptions
) -> tuple[Applicability, str]:
    """The applicability and title of the fix that seeds a ``torch.Generator(...)`` where it is
    made: safe, or unsafe where it also adds ``SEED = <fix-seed>`` (a script that seeds nothing,
    where ``torch.initial_seed()`` would turn the generator's fixed stream into a random one)."""
    at = (construction.lineno, construction.col_offset)
    torch, _ = Names(facts).module("torch", scope, at, set())
    seed = choose_seed(facts, at, scope, options, new_constant=True)
    title = f"Seed the generator where it is made: `.manual_seed({seed.text(torch)})`"
    if seed.constant is not None:
        return Applicability.UNSAFE, (
            f"{title} and add `{seed.constant}` where the program starts (it seeds nothing)"
        )
    return Applicability.SAFE, title
