"""RNG006: ``random_split`` drawing the split from the global torch generator."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from seedlint.analysis.calls import RANDOM_SPLIT
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

MESSAGE = "`random_split` without a `generator` draws the split from the global torch generator"
APIS = {"torch.utils.data.random_split": RANDOM_SPLIT}


@dataclass(frozen=True)
class RandomSplitWithoutGeneratorViolation(Violation):
    node: ast.Call
    unseeded: Optional[tuple[ast.Call, Scope]] = None  # the generator passed, made unseeded

    @property
    def message(self) -> str:
        if self.unseeded is not None:
            return f"`random_split` with {UNSEEDED_MESSAGE}"
        return MESSAGE


class RandomSplitWithoutGenerator(Rule):
    code = "RNG006"
    name = "random-split-without-generator"
    summary = "random_split draws the split from the global torch generator"
    fix_availability = FixAvailability.SOMETIMES
    doc = """
## What it does
Checks for `torch.utils.data.random_split(...)` (under any import name or module alias) with no
`generator`: absent, `None` (by keyword, position, or a `**kwargs` dict built in the same
function), or `torch.default_generator`, on some path: `generator = make_rng() if args.secure
else None` is reported (the default run splits from the global generator), a value the analysis
does not know on every path is not. Not where the statement making the split comes right
after one that seeds torch with a seed written in it (`torch.manual_seed(42)`, Lightning's
`seed_everything(42)`; not a seed a call computes), in the same block: the split is then drawn
from a generator just seeded, whatever came before (the Lightning tutorials reseed before each of
two splits on purpose, so that two datasets get the same permutation).

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
`random_split`'s default generator is the **global CPU generator** itself
(`torch/utils/data/dataset.py`): the split is one `randperm` drawn from it. After
`torch.manual_seed(...)` the split repeats from run to run, but only while every earlier draw from
the global generator stays the same. Building a model on the CPU before the split, a changed
augmentation, an extra `torch.rand`, a resumed run, or per-rank seeds in distributed training
(each rank then splits differently) silently change which samples land in training and which in
validation: samples then mix between the two across runs, and validation scores are no longer
comparable. Without any seeding the split differs on every run.

A `generator` of its own, seeded from the run's seed, makes the split depend on that seed only.

## Fix safety
No fix where the loader already passes `generator` as anything but the literal `None` (or
`torch.default_generator`) that may be None on some path: a name, a parameter, an attribute or a
call (`generator=g` with `g = make_secure() if args.secure else None`) is the program's value on
its other paths, which a fix would replace.

The fix passes `generator=torch.Generator().manual_seed(SEED)`: in place of an explicit `None`
(keyword or position) or `torch.default_generator`, else as a keyword after the existing
arguments, in the call's layout. `SEED` is chosen as for RNG001: the seed the program already
names where the fix goes (an earlier `torch.manual_seed(X)` or seeding call, a `seed` variable or
parameter, `args.seed` when argparse defines `--seed`), else the `fix-seed` setting (default 0).
`torch` is written under the module's name for it, and imported when missing.

In a script that seeds nothing at all, where the program names no seed and no literal may go (a
call in a class or a helper), `torch.initial_seed()` would be random: the fix is then **unsafe**
and adds `SEED = 0` (the `fix-seed` value) after the module's imports, seeding from it (the same
holds for the fix that seeds an unseeded `torch.Generator()`, whose fixed stream a random seed
would make random); without `--unsafe-fixes` the finding stays and the run exits 1.

Otherwise the fix is **safe**: it only seeds. It changes the split, which is its purpose: results,
checkpoints or cached splits made with the old split are not reproduced, and a model trained
on the old training set may now see validation samples it was trained on. There is no fix when
`generator` may come from `*args` or a `**kwargs` dict.

## Options
- `fix-seed`: the seed a fix uses when the program names none.

## References
- PyTorch source, `torch/utils/data/dataset.py` (`random_split`, `generator=default_generator`).
- PyTorch, Reproducibility notes (the global generator and dedicated generators).
"""

    valid = (
        Valid(
            "import torch\nfrom torch.utils.data import random_split\n\n\n"
            "def split(dataset, seed):\n"
            "    g = torch.Generator().manual_seed(seed)\n"
            "    return random_split(dataset, [0.8, 0.2], generator=g)\n"
        ),
    )
    invalid = (
        Invalid(
            "import torch\nfrom torch.utils.data import random_split\n\n\n"
            "def split(dataset, seed):\n"
            "    return random_split(dataset, [0.8, 0.2])\n",
            fixed="import torch\nfrom torch.utils.data import random_split\n\n\n"
            "def split(dataset, seed):\n"
            "    return random_split(\n"
            "        dataset,\n"
            "        [0.8, 0.2],\n"
            "        generator=torch.Generator().manual_seed(seed),\n"
            "    )\n",
        ),
    )

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        return (("random_split",),)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        for bound in facts.calls_to(APIS):
            if lacks_generator(facts, bound):
                if not facts.seeded_just_before(bound.call, bound.scope):
                    yield RandomSplitWithoutGeneratorViolation(bound.call)
                continue
            made = unseeded_generator(facts.resolver, bound.argument("generator"), bound.scope)
            if made is not None:
                yield RandomSplitWithoutGeneratorViolation(bound.call, made)

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
    return next((b for b in facts.calls_to(APIS) if b.call is node), None)
