"""RNG008: a shuffling DistributedSampler whose epoch is never set."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from seedlint.analysis.calls import DISTRIBUTED_SAMPLER
from seedlint.analysis.epochs import (
    DEFAULT_SET_EPOCH_WRAPPERS,
    Loop,
    SamplerUse,
    handed_to_wrapper,
    sampler_escapes,
    sampler_uses,
    sets_epoch,
)
from seedlint.analysis.facts import AnalysisOptions, BoundCall, ModuleFacts
from seedlint.analysis.names import Scope, lookup
from seedlint.analysis.values import ABSENT, Value, is_truthy
from seedlint.core import Applicability, FixAvailability
from seedlint.prefilter.words import WordGroups
from seedlint.rules.base import FixInfo, Invalid, Rule, Valid, Violation

if TYPE_CHECKING:
    from seedlint.fixes.context import Change, FixContext
    from seedlint.fixes.options import FixOptions

MESSAGE = (
    "`DistributedSampler` shuffles but `set_epoch` is never called: every epoch has the same order"
)
APIS = {"torch.utils.data.DistributedSampler": DISTRIBUTED_SAMPLER}


@dataclass(frozen=True)
class DistributedSamplerWithoutSetEpochViolation(Violation):
    node: ast.Call

    @property
    def message(self) -> str:
        return MESSAGE


_TRAIN = """from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, epochs):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for epoch in range(epochs):
{first}        for batch in loader:
            model(batch)
"""


class DistributedSamplerWithoutSetEpoch(Rule):
    code = "RNG008"
    name = "distributed-sampler-without-set-epoch"
    summary = "A shuffling DistributedSampler never gets set_epoch"
    fix_availability = FixAvailability.SOMETIMES
    fix_always_unsafe = True
    doc = """
## What it does
Checks for a `torch.utils.data.DistributedSampler` (under any import name or module alias, or a
subclass of this module) that shuffles (`shuffle` absent, or a value that may be true), whose
`DataLoader` (the sampler passed as `sampler=`, or inside `batch_sampler=`) is used inside a loop
of the module, an epoch loop, while nothing in the module calls `set_epoch(...)` on it: on a
name the sampler is stored under, through the loader (`loader.sampler.set_epoch(epoch)`), on
a receiver this module cannot follow (a parameter's attribute, say) that names a sampler, or
through a helper called `set_epoch`. It is reported at the `DistributedSampler(...)` call.

A loader kept by name (`loader = DataLoader(...)`, `self.loader = ...`, at a literal key of a
dict, `loaders = {"train": DataLoader(...)}` or `loaders["train"] = ...`, or the result of a
module function that returns it) is followed to its loops (`for batch in loaders["train"]`); a
sampler kept at a dict's key (`samplers["train"] = DistributedSampler(...)`) likewise. Chains of
attributes and literal keys are matched by their text in the whole module. A loader is followed
into the parameters of the module's functions (and of the class's own methods,
`self.train(loader)`) it is handed to, to their loops in turn (`train(loader)` whose `while
True: for batch in loader` iterates it again). A sampler a module function returns
(`sampler=data_sampler(...)`) is followed like one made in place; its `shuffle`, when a
parameter of that function with no default, is what the module's calls of the function pass. It
is not flagged when the sampler or its loader is handed to something that calls `set_epoch`
itself (the `set-epoch-wrappers` setting): Lightning's `Trainer`, accelerate's `Accelerator`
(`prepare`) and `prepare_data_loader`, composer's `Trainer`, torchdata's `SamplerWrapper`. Nor
when the sampler itself is handed to another call (`train(..., sampler=train_sampler)`): the
callee, perhaps in another module, may set its epoch. A `set_epoch` call made in another module
through the *loader* is not seen: there, ignore the finding with `# noqa: RNG008`. A sampler
that reaches the loader through a `**kwargs` dict is not followed (no finding).

## Why is this bad?
`DistributedSampler.__iter__` seeds a fresh generator with `seed + epoch`
(`torch/utils/data/distributed.py`). Its epoch stays 0 until `set_epoch` is called, so **every
epoch sees the same permutation** on every rank: the shuffle is done once and then repeated, and
the `torch.manual_seed` of the run has no effect on it. The PyTorch docstring says to call
`set_epoch` at the start of each epoch, before the loader's iterator is created.

## Fix safety
The fix inserts `sampler.set_epoch(epoch)` as the first statement of the epoch loop, when the
sampler is a plain name bound only to the `DistributedSampler(...)` call before the loop in the
same function, and the loop is a `for` over `range(...)` (or one whose variable is named like an
epoch) with a plain name as its variable. The fix is **unsafe**: it changes the order of every
epoch after the first, which is its purpose, and whether the loop variable counts epochs from 0
is not checked.

## Options
- `set-epoch-wrappers`: more callables (qualified names) that call `set_epoch` on the samplers
  of loaders handed to them, or classes whose methods do.

## References
- PyTorch source, `torch/utils/data/distributed.py` (`DistributedSampler.__iter__`,
  `set_epoch`, and its docstring's example).
"""

    valid = (Valid(_TRAIN.format(first="        sampler.set_epoch(epoch)\n")),)
    invalid = (
        Invalid(
            _TRAIN.format(first=""),
            fixed=_TRAIN.format(first="        sampler.set_epoch(epoch)\n"),
            unsafe=True,
        ),
    )

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        return (("DistributedSampler",),)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        for use in _flagged(facts):
            yield DistributedSamplerWithoutSetEpochViolation(use.sampler.call)

    def fix_info(
        self, facts: ModuleFacts, violation: Violation, options: FixOptions
    ) -> Optional[FixInfo]:
        place = _fix_place(facts, violation.node)
        if place is None:
            return None
        name, loop, epoch = place
        return FixInfo(
            Applicability.UNSAFE,
            f"Call `{name}.set_epoch({epoch})` first in the loop on line {loop.lineno}",
        )

    def fix(self, ctx: FixContext, violation: Violation) -> Optional[Change]:
        from seedlint.fixes.context import Change, parse_statement

        place = _fix_place(ctx.facts, violation.node)
        if place is None:
            return None
        name, loop, epoch = place
        first = ctx.statement(loop.body[0])
        if first is None:
            return None
        change = Change()
        statement = parse_statement(f"{name}.set_epoch({epoch})\n")
        change.insert_before(first, [statement])
        return change


def _flagged(facts: ModuleFacts) -> list[SamplerUse]:
    samplers = [
        s
        for s in facts.calls_to(APIS, "shuffle")
        if _shuffle(facts, s).may(lambda o: o is ABSENT or is_truthy(o))
    ]
    if not samplers:
        return []
    wrappers = frozenset((*DEFAULT_SET_EPOCH_WRAPPERS, *facts.options.set_epoch_wrappers))
    return [
        use
        for use in sampler_uses(facts, samplers)
        if use.loops
        and not sets_epoch(facts, use)
        and not sampler_escapes(facts, use)
        and not handed_to_wrapper(facts, use, wrappers)
    ]


def _shuffle(facts: ModuleFacts, sampler: BoundCall) -> Value:
    """The sampler's ``shuffle``: a parameter of the function that makes it (``shuffle=shuffle``)
    takes what this module's calls of that function pass."""
    value = sampler.args["shuffle"]
    expr = sampler.argument("shuffle")
    if value.unknowable and expr is not None:
        return facts.values.through_callers(expr, sampler.scope)
    return value


def _fix_place(facts: ModuleFacts, node: ast.AST) -> Optional[tuple[str, Loop, str]]:
    """(sampler name, epoch loop, epoch variable) where the fix can call ``set_epoch``."""
    use = next((u for u in _flagged(facts) if u.sampler.call is node), None)
    if use is None:
        return None
    for loop, scope in use.loops:
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.target, ast.Name):
            continue
        epoch = loop.target.id
        over_range = (
            isinstance(loop.iter, ast.Call)
            and isinstance(loop.iter.func, ast.Name)
            and loop.iter.func.id == "range"
        )
        if not (over_range or "epoch" in epoch.lower()):
            continue
        for name in sorted(_names_bound_to(use.sampler.call, scope)):
            bindings = lookup(name, scope) or []
            if (
                bindings
                and all(b.value is use.sampler.call and b.scope is scope for b in bindings)
                and all(getattr(b.node, "lineno", loop.lineno) < loop.lineno for b in bindings)
                and not any(b.conditional for b in bindings)
            ):
                return name, loop, epoch
    return None


def _names_bound_to(call: ast.Call, scope: Scope) -> set[str]:
    return {
        name for name, bindings in scope.bindings.items() if any(b.value is call for b in bindings)
    }
