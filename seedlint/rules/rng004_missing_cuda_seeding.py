"""RNG004: torch's generators left unseeded while other streams are seeded."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Union

from seedlint.analysis.facts import AnalysisOptions, ModuleFacts, SeedCall
from seedlint.analysis.seeding import Seeding, qualnames_of
from seedlint.core import Applicability, FixAvailability
from seedlint.fixes.imports import Names
from seedlint.fixes.locate import child_blocks, end, innermost_statement, start
from seedlint.fixes.seeds import expression_text, find_seed, reusable, seed_argument
from seedlint.prefilter.scan import may_mean
from seedlint.prefilter.words import WordGroups
from seedlint.rules.base import FixInfo, Invalid, Rule, Valid, Violation

if TYPE_CHECKING:
    from seedlint.fixes.context import Change, FixContext
    from seedlint.fixes.options import FixOptions

_MULTI_DEVICE_CLASSES = frozenset(
    {
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.data_parallel.DataParallel",
        "torch.nn.parallel.data_parallel",
    }
)
_CUDA_INDEX = re.compile(r"^cuda:[1-9]")
# Only these calls can start a finding: every case needs one of them.
_REPORTED_SEEDING = qualnames_of(
    frozenset({Seeding.RANDOM, Seeding.NUMPY, Seeding.CUDA_CURRENT, Seeding.CUDA_ALL})
)


@dataclass(frozen=True)
class SeedBlock:
    """The seeding calls of one function (or of the module's top level), in source order."""

    owner: Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Module]
    calls: tuple[SeedCall, ...]
    case: str  # "unseeded-torch", "cuda-only", "current-device-only"


@dataclass(frozen=True)
class MissingCudaSeedingViolation(Violation):
    node: ast.Call  # the block's first seeding call
    block: SeedBlock

    @property
    def message(self) -> str:
        return _message(self.block)


class MissingCudaSeeding(Rule):
    code = "RNG004"
    name = "missing-cuda-seeding"
    summary = "torch's CPU and CUDA generators are left unseeded while other streams are seeded"
    fix_availability = FixAvailability.ALWAYS
    doc = """
## What it does
Checks for a module that seeds some random streams but leaves torch's generators unseeded:

- (a) it imports torch and seeds `random` and/or `np.random`, but never seeds torch;
- (b) it seeds torch only through `torch.cuda.manual_seed`/`torch.cuda.manual_seed_all`, never
  `torch.manual_seed`;
- (c) as (b), with `torch.cuda.manual_seed` (the *current* device only) in a module that uses
  several devices in one process (`DataParallel`, `torch.cuda.device_count()`, `"cuda:1"`-style
  devices) and no `manual_seed_all`.

One finding per seed block (the seeding calls of one function, or of the module's top level), at
its first seeding call. For (a), a block counts when it is there to make the run repeatable: at
the module's top level, in `main` or a function whose name says seeding (`set_seed`,
`seed_everything`, `make_deterministic`, ...), or seeding both `random` and `np.random`. A
library function that seeds `random` only for a fixed local sample of its own is not flagged.

It never flags a module that calls `torch.manual_seed`, or a seeding helper from `seed-functions`
(Lightning's `seed_everything`, `transformers.set_seed`, `transformers.enable_full_determinism`,
`accelerate.utils.set_seed`): `torch.manual_seed` already seeds every CUDA device, so a
`torch.cuda.manual_seed_all` after it is redundant, and no fix ever adds one.

## Why is this bad?
`torch.manual_seed(seed)` seeds the CPU generator **and** every CUDA device (and MPS, XPU, MTIA),
lazily if CUDA is not initialised yet (`torch/random.py`, `manual_seed`). Seeding `random` and
`numpy` does not touch torch at all: model initialisation, dropout, `torch.rand*`, shuffling and the
DataLoader's worker seeds still differ on every run.

`torch.cuda.manual_seed*` alone seeds only CUDA: the CPU generator, which initialises models built
on the CPU and draws every DataLoader's order and `base_seed`, stays unseeded. And
`torch.cuda.manual_seed` seeds only the current device; its docstring warns that this is
"insufficient to get determinism" with several GPUs.

## Fix safety
The fix adds `torch.manual_seed(SEED)` right after the statement that makes the seed block's last
seeding call (the `torch.cuda` one in cases (b) and (c): `torch.manual_seed` seeds every CUDA
device, so it covers (c) too, and no `torch.cuda.manual_seed_all` is ever added), or just before
that statement when it returns or raises. `SEED` is that call's own argument when the argument has
no call in it and is not known to be `None`; otherwise the seed the program names there, else the
`fix-seed` setting (the same search as RNG001's fix). `torch` is written under the name the
module binds to it; `import torch` is added when the name is not bound, and
`import torch as torch_` (a free name) when `torch` means something else.

It only adds seeding, so it is **safe**; it changes the random numbers torch draws afterwards,
which is its purpose.

## Options
- `seed-functions`: more helpers that seed everything (qualified names).
- `fix-seed`: the seed a fix uses when the program names none.

## References
- PyTorch, Reproducibility notes: `torch.manual_seed` "to seed the RNG for all devices (both CPU
  and CUDA)".
- PyTorch source, `torch/random.py` (`manual_seed`), `torch/cuda/random.py` (`manual_seed`,
  `manual_seed_all`).
"""

    valid = (
        Valid(
            "import random\n\nimport numpy as np\nimport torch\n\n\ndef set_seed(seed):\n"
            "    random.seed(seed)\n    np.random.seed(seed)\n    torch.manual_seed(seed)\n"
        ),
    )
    invalid = (
        Invalid(
            "import random\n\nimport numpy as np\nimport torch\n\n\ndef set_seed(seed):\n"
            "    random.seed(seed)\n    np.random.seed(seed)\n",
            fixed="import random\n\nimport numpy as np\nimport torch\n\n\n"
            "def set_seed(seed):\n    random.seed(seed)\n    np.random.seed(seed)\n"
            "    torch.manual_seed(seed)\n",
        ),
        Invalid(
            "import torch\n\n\ndef set_seed(seed):\n    torch.cuda.manual_seed_all(seed)\n",
            fixed="import torch\n\n\ndef set_seed(seed):\n    torch.cuda.manual_seed_all(seed)\n"
            "    torch.manual_seed(seed)\n",
        ),
    )

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        # A finding needs torch, and a `random`, `numpy.random` or `torch.cuda` seeding call.
        return (("seed",), ("random", "cuda"), ("torch",))

    def may_fire(self, raw: bytes, options: AnalysisOptions) -> bool:
        # `seed` is in most PyTorch files; a `random`, `numpy.random` or `torch.cuda` seeding
        # call is in few (`self.seed`, `args.seed` and `torch.manual_seed` are not one).
        return may_mean(raw, _REPORTED_SEEDING)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        calls = facts.seed_calls
        kinds = {c.kind for c in calls}
        if Seeding.TORCH in kinds or Seeding.HELPER in kinds:
            return
        if not facts.resolver.imports_module("torch"):
            return
        cuda_kinds = {Seeding.CUDA_CURRENT, Seeding.CUDA_ALL}
        if kinds & cuda_kinds:
            current_only = Seeding.CUDA_ALL not in kinds and _multi_device(facts)
            wanted = cuda_kinds
            case = "current-device-only" if current_only else "cuda-only"
        elif kinds & {Seeding.RANDOM, Seeding.NUMPY}:
            wanted, case = {Seeding.RANDOM, Seeding.NUMPY}, "unseeded-torch"
        else:
            return
        workers = _worker_init_functions(facts)
        for block in _blocks(facts, [c for c in calls if c.kind in wanted], case):
            if case == "unseeded-torch" and not _seeds_the_run(block):
                continue
            if id(block.owner) in workers:
                continue  # runs in a DataLoader worker, where PyTorch has seeded torch
            yield MissingCudaSeedingViolation(block.calls[0].call, block)

    def fix_info(
        self, facts: ModuleFacts, violation: Violation, options: FixOptions
    ) -> Optional[FixInfo]:
        found = _insertion(violation)
        if found is None:
            return None
        last, statement, before = found
        at = start(statement) if before else end(statement)
        torch, _ = Names(facts).module("torch", last.scope, at, set())
        seed = _seed(facts, facts.text, last, at, options.fix_seed)
        where = "before" if before else "after"
        return FixInfo(
            Applicability.SAFE, f"Add `{torch}.manual_seed({seed})` {where} the last seeding call"
        )

    def fix(self, ctx: FixContext, violation: Violation) -> Optional[Change]:
        import libcst as cst

        from seedlint.fixes.context import Change, parse_statement

        found = _insertion(violation)
        if found is None:
            return None
        last, statement, before = found
        target = ctx.statement(statement)
        if target is None:
            return None
        scope = last.scope
        at = start(statement) if before else end(statement)
        change = Change()
        torch = ctx.module_name(change, "torch", scope, at)
        seed = _seed(ctx.facts, ctx.text, last, at, ctx.options.fix_seed)
        line = parse_statement(f"{torch}.manual_seed({seed})\n")
        assert isinstance(line, cst.SimpleStatementLine)
        # In a one-line suite (`if x: random.seed(s)`) the call joins the suite.
        new = line.body[0] if isinstance(target, cst.BaseSmallStatement) else line
        if before:
            change.insert_before(target, [new])
        else:
            change.insert_after(target, [new])
        return change


def _seed(facts: ModuleFacts, text: str, last: SeedCall, at: tuple[int, int], fallback: int) -> str:
    """The last seeding call's own argument when it can be written again, else the seed the
    program names at ``at``, else ``fix-seed``."""
    value = seed_argument(last.call)
    if value is not None and reusable(facts, value, last.scope, last.scope):
        return expression_text(text, value)
    return find_seed(facts, text, at, last.scope, fallback)


def _insertion(violation: Violation) -> Optional[tuple[SeedCall, ast.stmt, bool]]:
    """(the block's last seeding call, the statement to add `torch.manual_seed` next to, whether
    before it): after the statement that makes the call, or before it when that statement
    returns or raises, or is a compound statement with the call in its header."""
    if not isinstance(violation, MissingCudaSeedingViolation):
        return None
    block = violation.block
    last = block.calls[-1]
    if not isinstance(last.scope.node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
        return None  # in a lambda or a comprehension: no statement of its own
    statement = innermost_statement(block.owner.body, last.call)
    if statement is None:
        return None
    compound = any(True for _ in child_blocks(statement)) or isinstance(
        statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    )
    before = compound or isinstance(statement, (ast.Return, ast.Raise))
    return last, statement, before


def _blocks(facts: ModuleFacts, calls: list[SeedCall], case: str) -> Iterator[SeedBlock]:
    grouped: dict[int, list[SeedCall]] = {}
    owners: dict[int, Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Module]] = {}
    for seed in calls:
        owner = facts.enclosing_function(seed.scope)
        grouped.setdefault(id(owner), []).append(seed)
        owners[id(owner)] = owner
    for key, group in grouped.items():
        group.sort(key=lambda s: (s.call.lineno, s.call.col_offset))
        yield SeedBlock(owners[key], tuple(group), case)


_SEEDING_WORDS = ("seed", "determinis", "reproduc")


def _worker_init_functions(facts: ModuleFacts) -> set[int]:
    """Functions of this module passed to a DataLoader as its ``worker_init_fn``."""
    found: set[int] = set()
    for loader in facts.dataloader_calls:
        value = loader.argument("worker_init_fn")
        if value is None:
            continue
        for meaning in facts.resolver.meanings(value, loader.scope):
            if isinstance(meaning, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.add(id(meaning))
    return found


def _seeds_the_run(block: SeedBlock) -> bool:
    """Whether a `random`/`np.random` seed block is there to make the run repeatable, rather than
    to draw a fixed local sample (a library function seeding `random` for its own choice)."""
    owner = block.owner
    if isinstance(owner, ast.Module):
        return True  # a script's top level
    name = owner.name.lower()
    if name == "main" or any(word in name for word in _SEEDING_WORDS):
        return True
    return len({c.kind for c in block.calls}) > 1  # seeds both `random` and `np.random`


def _message(block: SeedBlock) -> str:
    if block.case == "unseeded-torch":
        seeded = sorted({_stream(c.kind) for c in block.calls})
        return (
            f"{' and '.join(seeded)} seeded but torch is not: call `torch.manual_seed` too "
            "(it seeds the CPU and every CUDA device); model init, dropout and DataLoader order "
            "differ on every run"
        )
    text = (
        "torch is seeded only through `torch.cuda`: the CPU generator (CPU model init, "
        "DataLoader order and worker seeds) stays unseeded; use `torch.manual_seed`, which seeds "
        "the CPU and every CUDA device"
    )
    if block.case == "current-device-only":
        text += (
            ", since `torch.cuda.manual_seed` also seeds only the current device and this module "
            "uses several"
        )
    return text


def _stream(kind: Seeding) -> str:
    return "`random`" if kind is Seeding.RANDOM else "`np.random`"


def _multi_device(facts: ModuleFacts) -> bool:
    for call, scope in facts.builder.calls:
        names = facts.resolver.qualnames(call.func, scope)
        if names & _MULTI_DEVICE_CLASSES or "torch.cuda.device_count" in names:
            return True
        if "torch.device" in names and len(call.args) > 1:
            return True
    for node in ast.walk(facts.tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _CUDA_INDEX.match(node.value)
        ):
            return True
    return False
