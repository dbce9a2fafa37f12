"""RNG007: a random sampler drawing its order from the global torch generator."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from seedlint.analysis.calls import RANDOM_SAMPLER, SUBSET_RANDOM_SAMPLER, WEIGHTED_RANDOM_SAMPLER
from seedlint.analysis.facts import AnalysisOptions, BoundCall, ModuleFacts
from seedlint.analysis.names import Scope
from seedlint.analysis.unseeded import unseeded_generator
from seedlint.core import FixAvailability
from seedlint.fixes.generators import (
    UNSEEDED_MESSAGE,
    generator_fix,
    lacks_generator,
    passing_title,
    seeding_title,
)
from seedlint.fixes.locate import start
from seedlint.prefilter.words import WordGroups
from seedlint.rules.base import FixInfo, Invalid, Rule, Valid, Violation

if TYPE_CHECKING:
    from seedlint.fixes.context import Change, FixContext
    from seedlint.fixes.options import FixOptions

APIS = {
    "torch.utils.data.RandomSampler": RANDOM_SAMPLER,
    "torch.utils.data.SubsetRandomSampler": SUBSET_RANDOM_SAMPLER,
    "torch.utils.data.WeightedRandomSampler": WEIGHTED_RANDOM_SAMPLER,
}


@dataclass(frozen=True)
class SamplerWithoutGeneratorViolation(Violation):
    node: ast.Call
    sampler: str  # RandomSampler, SubsetRandomSampler or WeightedRandomSampler
    unseeded: Optional[tuple[ast.Call, Scope]] = None  # the generator passed, made unseeded

    @property
    def message(self) -> str:
        if self.unseeded is not None:
            return f"`{self.sampler}` with {UNSEEDED_MESSAGE}"
        return f"`{self.sampler}` without a `generator` draws from the global torch generator"


class SamplerWithoutGenerator(Rule):
    code = "RNG007"
    name = "sampler-without-generator"
    summary = "A random sampler draws its order from the global torch generator"
    fix_availability = FixAvailability.SOMETIMES
    doc = """
## What it does
Checks for `torch.utils.data.RandomSampler`, `SubsetRandomSampler` and `WeightedRandomSampler`
(under any import name or module alias, and subclasses of this module) built with no `generator`:
absent, or `None` by keyword, position or a `**kwargs` dict built in the same function. A sampler
nested in another call counts (`BatchSampler(RandomSampler(dataset), 32, False)`). A subclass
whose own `__init__` takes neither `generator` nor `**kwargs` is not flagged: it decides itself.

It also flags a `generator` that is a `torch.Generator()` nothing seeds: made in this module
(passed directly, or bound once to a name) with no `manual_seed`, `seed` or `set_state` called on
it, and handed nowhere but `generator=` arguments (a helper it is passed to may seed it, so that
is no finding). Every fresh generator starts at the same fixed seed (67280421310721, on CPU and
CUDA: `c10/core/GeneratorImpl.h`), not from the global generator: the draw repeats in every run,
but `torch.manual_seed` and the program's `--seed` never change it, and every such generator
draws the very same stream. Its fix seeds the generator where it is made,
`torch.Generator().manual_seed(SEED)` (`SEED` as below; `Generator.manual_seed` returns the
generator), and is **safe**; in a script that seeds nothing at all, where `SEED` would be
`torch.initial_seed()` (random there), it is **unsafe** and adds `SEED = 0` (below).

## Why is this bad?
With no generator, `RandomSampler` seeds a private generator at every epoch from one draw of the
**global CPU generator**, and `SubsetRandomSampler` (`torch.randperm`) and
`WeightedRandomSampler` (`torch.multinomial`) draw from it directly
(`torch/utils/data/sampler.py`). After `torch.manual_seed(...)` the order repeats from run to
run, but only while every earlier draw from the global generator stays the same: building a
model on the CPU, a dropout, a `random_split`, or iterating another loader in between changes
the order, so a change that looks unrelated changes which batches the model sees. This is the
coupling RNG001 reports for a shuffling `DataLoader`. A `DataLoader`'s own `generator` does not
reach a sampler passed as `sampler=` or inside `batch_sampler=`: the sampler needs its own.

## Fix safety
No fix where the loader already passes `generator` as anything but the literal `None` (or
`torch.default_generator`) that may be None on some path: a name, a parameter, an attribute or a
call (`generator=g` with `g = make_secure() if args.secure else None`) is the program's value on
its other paths, which a fix would replace.

The fix passes `generator=torch.Generator().manual_seed(SEED)` to the sampler: in place of an
explicit `None`, else as a keyword after the existing arguments, in the call's layout, with
`SEED` chosen as for RNG001 (the seed the program names where the fix goes, else `fix-seed`).
It is **safe** for the torch samplers and **unsafe** for a subclass of this module with an
`__init__` of its own. In a script that seeds nothing at all, where the program names no seed
and no literal may go (a call in a class or a helper), `torch.initial_seed()` would be random:
the fix is then **unsafe** and adds `SEED = 0` (the `fix-seed` value) after the module's
imports, seeding from it (the same holds for the fix that seeds an unseeded `torch.Generator()`,
whose fixed stream a random seed would make random); without `--unsafe-fixes` the finding stays
and the run exits 1. It changes the order the sampler draws, which is its purpose. There is no
fix when `generator` may come from `*args` or a `**kwargs` dict.

## Options
- `fix-seed`: the seed a fix uses when the program names none.

## References
- PyTorch source, `torch/utils/data/sampler.py` (`RandomSampler.__iter__`,
  `SubsetRandomSampler.__iter__`, `WeightedRandomSampler.__iter__`).
- PyTorch source, `torch/utils/data/dataloader.py` (the loader's `generator` goes only to the
  `RandomSampler` it builds for `shuffle=True`).
"""

    valid = (
        Valid(
            "import torch\nfrom torch.utils.data import DataLoader, RandomSampler\n\n\n"
            "def make(dataset, seed):\n"
            "    sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(seed))\n"
            "    return DataLoader(dataset, sampler=sampler)\n"
        ),
    )
    invalid = (
        Invalid(
            "import torch\nfrom torch.utils.data import DataLoader, RandomSampler\n\n\n"
            "def make(dataset, seed):\n"
            "    sampler = RandomSampler(dataset)\n"
            "    return DataLoader(dataset, sampler=sampler)\n",
            fixed="import torch\nfrom torch.utils.data import DataLoader, RandomSampler\n\n\n"
            "def make(dataset, seed):\n"
            "    sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(seed))\n"
            "    return DataLoader(dataset, sampler=sampler)\n",
        ),
    )

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        return (("RandomSampler",),)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        for bound in facts.calls_to(APIS, "generator"):
            if not bound.accepts:
                continue
            name = bound.target.rsplit(".", 1)[-1]
            if lacks_generator(facts, bound):
                yield SamplerWithoutGeneratorViolation(bound.call, name)
                continue
            made = unseeded_generator(facts.resolver, bound.argument("generator"), bound.scope)
            if made is not None:
                yield SamplerWithoutGeneratorViolation(bound.call, name, made)

    def fix_info(
        self, facts: ModuleFacts, violation: Violation, options: FixOptions
    ) -> Optional[FixInfo]:
        made = getattr(violation, "unseeded", None)
        if made is not None:
            return FixInfo(*seeding_title(facts, made[0], made[1], options))
        bound = _bound(facts, violation.node)
        applicability = generator_fix(facts, bound) if bound else None
        if bound is None or applicability is None:
            return None
        return FixInfo(
            *passing_title(facts, bound.scope, start(bound.call), options, applicability)
        )

    def fix(self, ctx: FixContext, violation: Violation) -> Optional[Change]:
        from seedlint.fixes.calls import pass_seeded_generator, seed_generator

        made = getattr(violation, "unseeded", None)
        if made is not None:
            return seed_generator(ctx, made[0], made[1])
        bound = _bound(ctx.facts, violation.node)
        return pass_seeded_generator(ctx, bound) if bound else None


def _bound(facts: ModuleFacts, node: ast.AST) -> Optional[BoundCall]:
    return next((b for b in facts.calls_to(APIS, "generator") if b.call is node), None)
