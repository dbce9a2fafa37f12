"""RNG004: a program seeds `random`/`np.random` (or only `torch.cuda`) but never torch.

Decided per program through the project's index: an entry point (a script's top level, its
``__main__`` block, a test function) with everything it calls, across modules.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Union

from seedlint.analysis.facts import AnalysisOptions, ModuleFacts, SeedCall
from seedlint.analysis.seeding import Seeding, qualnames_of
from seedlint.core import Applicability, FixAvailability
from seedlint.fixes.imports import Names
from seedlint.fixes.locate import child_blocks, end, innermost_statement, start
from seedlint.fixes.seeds import (
    expression_text,
    literal_allowed,
    program_seed,
    reusable,
    seed_argument,
)
from seedlint.prefilter.scan import code_only, may_mean
from seedlint.prefilter.words import WordGroups
from seedlint.project.index import ProjectIndex, Verdict, single
from seedlint.project.summary import module_keys, summarize
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
    library: bool = False  # a seeding helper no program reaches
    completed: bool = False  # some program reaching it seeds torch elsewhere: the fix is unsafe
    entry: str = ""  # the program flagged ("module:function")
    through: str = ""  # a device abstraction's seeding call (`get_accelerator().manual_seed`)
    draw: str = ""  # where the flagged program first draws from torch


@dataclass(frozen=True)
class MissingCudaSeedingViolation(Violation):
    node: ast.Call  # the block's first seeding call
    block: SeedBlock

    @property
    def message(self) -> str:
        return _message(self.block)


class MissingCudaSeeding(Rule):
    code = "RNG004"
    name = "torch-unseeded-in-seeded-program"
    summary = "a program seeds `random`/`np.random` (or only `torch.cuda`) but never seeds torch"
    fix_availability = FixAvailability.ALWAYS
    doc = """
## What it does
Checks for a *program* that seeds some random streams but leaves torch's generators unseeded. A
program is an entry point (a script's top-level code and its `__main__` block, or a test
function in a test file, or a function that `torch.multiprocessing.spawn` runs, in a new process
whose torch generator is seeded at random at start-up whatever its parent seeded) with
everything it calls in the project, across modules: seeding helpers in other files
(`utils.set_seed(seed)`, `init_seeds()` calling `torch_utils.init_seeds()`), base classes
reached through `super().__init__()`, re-exports and star imports all count (a class of a
module with no seeding, drawing or loader word of its own, summarised from its bytes, is read
from its tree when a program reaches it: its inherited `__init__` may seed). It flags:

- (a) a program that seeds `random` and/or `np.random` and draws torch randomness (builds a
  module, calls `torch.rand*` or dropout, shuffles a DataLoader), but never seeds torch;
- (b) a program that seeds torch only through `torch.cuda.manual_seed`/`manual_seed_all`
  and may draw from the CPU generator (a draw on a CUDA device named at the call,
  `torch.randn(n, device="cuda")`, `nn.Linear(4, 4, device="cuda")`, uses the seeded CUDA
  generator; a device held in a variable may be the CPU);
- (c) as (b), with `torch.cuda.manual_seed` (the *current* device only) in a module that uses
  several devices (`DataParallel`, `torch.cuda.device_count()`, `"cuda:1"`) and no
  `manual_seed_all`.

In library code that no program of the project reaches, it flags only a seeding helper (it
seeds two or more streams, or its name says it seeds: `set_seed`, `make_deterministic`, ...)
that leaves torch out and that its callers in the project do not complete.

One finding per seed block (the seeding calls of one function, or of a module's top level), at
its first seeding call. Never flagged: scoped seeding (the state saved before the seeding call
and restored after it, `torch.random.fork_rng`, a context manager that saves, seeds, yields and
restores, a CUDA RNG-state tracker; a helper that seeds and then saves the seeded state, to
restore it on later calls, does seed), seeding inside a DataLoader's `worker_init_fn` (passed by
keyword, or by position at its place: the DataLoader's for a loader class without an `__init__`
of its own, else that `__init__`'s `worker_init_fn` parameter's), seeds read from the clock or
the OS (`np.random.seed(int(time.time()))`, `random.seed()`), `random` or `np.random` seeded in
a method of a dataset class of the module (one deriving from `torch.utils.data.Dataset` or
`IterableDataset`: `random.seed(0)` before shuffling its file list fixes the dataset's data
order; it is no seed block of the program's), seeding behind a test that is never true (`if
False:`, a name bound only to false literals such as `PYTEST = False`, a parameter with a false
literal default that no call in the project may set true: each call's argument is followed,
through a caller passing on its own parameter, `**kwargs` or dict parameter, and a dict spread
without the key, the dict followed through a function returning it, a comprehension copying it
and its updates), and programs that draw no torch randomness.
A program that calls `torch.manual_seed` or a seeding helper anywhere is complete:
`torch.manual_seed` already seeds every CUDA device. The helpers are those of the library table
(`seedlint/analysis/libraries.py`, each checked against the library's source: Lightning's
`seed_everything`, transformers' `set_seed` and `enable_full_determinism`, accelerate's
`set_seed`, MONAI's `set_determinism`, mmengine's `set_random_seed`, ignite's `manual_seed`,
detectron2's `seed_all_rng`, DeepSpeed's `set_random_seed`, speechbrain's `seed_everything`, PyG's
`seed_everything`, and hyperpyyaml's `load_hyperpyyaml`, whose recipes seed with
`!apply:torch.manual_seed`) and those listed in `seed-functions`. Constructing transformers'
`Trainer` or `Seq2SeqTrainer` seeds every stream too (its `__init__` calls `set_seed(args.seed)`,
42 by default, or `enable_full_determinism`), and so does constructing a subclass of them in the
project; accelerate's `Accelerator` seeds nothing. DeepSpeed's `get_accelerator().manual_seed`
and `manual_seed_all` are `torch.cuda.manual_seed[_all]` on a CUDA machine: they count as CUDA
seeding (case b), and the message names them.

A program draws torch randomness when its own code or a function it reaches does (a call of
`torch.rand*`, dropout, a module built with random init, `random_split`, a sampler, a shuffling
loader, `.normal_()` and the like). A module of the project that the index read only from its
bytes is parsed when a program reaches it and its words suggest a draw: it draws only if one of
its functions does (importing torch, or a word like `nn.` or `rand`, is no draw). The message
names the first draw found (`(it draws in `Trainer.__init__`)`) when it fits.

## Why is this bad?
`torch.manual_seed(seed)` seeds the CPU generator **and** every CUDA device (and MPS, XPU, MTIA),
lazily if CUDA is not initialised yet (`torch/random.py`, `manual_seed`). Seeding `random` and
`numpy` does not touch torch at all: model initialisation, dropout, `torch.rand*`, shuffling and
the DataLoader's worker seeds still differ on every run.

`torch.cuda.manual_seed*` alone seeds only CUDA: the CPU generator, which initialises models
built on the CPU and draws every DataLoader's order and `base_seed`, stays unseeded. And
`torch.cuda.manual_seed` seeds only the current device; its docstring warns that this is
"insufficient to get determinism" with several GPUs.

## Fix safety
The fix adds `torch.manual_seed(SEED)` right after the statement that makes the seed block's last
seeding call (or just before it when that statement returns or raises). `SEED` is that call's
own argument when it has no call in it and is not known to be `None`; otherwise the seed the
program names there, else the `fix-seed` literal in a script's code (or anywhere when you set
`fix-seed`); in library code with no seed in reach no fix is offered, since a literal there would
fix the order for every user of the library. `torch` is written under the name the module binds
to it; `import torch` is added when the name is not bound.

It only adds seeding, so it is **safe**; it changes the random numbers torch draws afterwards,
which is its purpose. It is **unsafe** when another program that reaches the same block already
seeds torch elsewhere: the added call reseeds torch for that program too. It is also **unsafe**
when the block may run more than once in a run: in a function the module calls in a loop or a
comprehension (or from a function that is so called), a method, or a function handed on
uncalled (a callback), unless it is a seeding helper (its name says `seed`, `determinis...` or
`reproduc...`). A per-step function that reseeds `np.random` (`if test_mode:
np.random.seed(0)`) would then reset torch's generator at every call, and every later torch draw
(a batch order, a dropout mask) would repeat from step to step; the fix's title says so.

## Options
- `seed-functions`: more helpers that seed everything (qualified names), besides the library
  table's.
- `fix-seed`: the literal seed a fix writes when the program names none (scripts only, unless set).

## References
- PyTorch, Reproducibility notes: `torch.manual_seed` "to seed the RNG for all devices (both CPU
  and CUDA)".
- PyTorch source, `torch/random.py` (`manual_seed`), `torch/cuda/random.py` (`manual_seed`,
  `manual_seed_all`), `torch/random.py` (`fork_rng`).
"""

    valid = (
        Valid(
            "import random\n\nimport numpy as np\nimport torch\n\n\ndef set_seed(seed):\n"
            "    random.seed(seed)\n    np.random.seed(seed)\n    torch.manual_seed(seed)\n"
        ),
        # The program draws no torch randomness: torch only saves a tensor.
        Valid(
            "import numpy as np\nimport torch\n\nnp.random.seed(0)\n"
            "torch.save(torch.tensor(np.random.rand(3)), 'x.pt')\n"
        ),
        # Scoped seeding: the state is saved and restored.
        Valid(
            "import contextlib\n\nimport numpy as np\nimport torch\n\n\n"
            "@contextlib.contextmanager\ndef temp_seed(seed):\n    state = np.random.get_state()\n"
            "    np.random.seed(seed)\n    try:\n        yield\n    finally:\n"
            "        np.random.set_state(state)\n"
        ),
        # A deliberate time-based reseed in a program that seeds torch.
        Valid(
            "import time\n\nimport numpy as np\nimport torch\n\ntorch.manual_seed(0)\n"
            "model = torch.nn.Linear(2, 2)\nnp.random.seed(int(time.time()))\n"
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
        Invalid(
            "import numpy as np\nimport torch\n\n\ndef main():\n    np.random.seed(0)\n"
            "    return torch.nn.Linear(4, 2)\n\n\nif __name__ == '__main__':\n    main()\n",
            fixed="import numpy as np\nimport torch\n\n\ndef main():\n    np.random.seed(0)\n"
            "    torch.manual_seed(0)\n    return torch.nn.Linear(4, 2)\n\n\n"
            "if __name__ == '__main__':\n    main()\n",
        ),
    )

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        # A finding needs a `random`, `numpy.random` or `torch.cuda` seeding call in the file.
        return (("seed",), ("random", "cuda"))

    def may_fire(self, raw: bytes, options: AnalysisOptions) -> bool:
        # `seed` is in most PyTorch files; a `random`, `numpy.random` or `torch.cuda` seeding
        # call is in few (`self.seed`, `args.seed` and `torch.manual_seed` are not one).
        # Then again without the strings and comments (a seeding call in a docstring is no
        # code): only for the few files the bytes let through.
        return may_mean(raw, _REPORTED_SEEDING) and may_mean(code_only(raw), _REPORTED_SEEDING)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        index = _index(facts)
        path = facts.path or "<module>"
        verdicts = index.unseeded_torch(path)
        if not verdicts:
            return
        owners = _owners(facts)
        for verdict in verdicts:
            owner = owners.get(verdict.key)
            if owner is None:
                continue
            block = _block(facts, owner, verdict, index, os.path.abspath(path))
            if block is not None:
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
        seed = _seed(facts, facts.text, last, at, options)
        if seed is None:
            return None
        where = "before" if before else "after"
        assert isinstance(violation, MissingCudaSeedingViolation)
        title = f"Add `{torch}.manual_seed({seed})` {where} the last seeding call"
        owner = violation.block.owner
        if _may_repeat(facts, owner):
            assert not isinstance(owner, ast.Module)
            title += f" (`{owner.name}` may run more than once: torch is reseeded at each call)"
            return FixInfo(Applicability.UNSAFE, title)
        safety = Applicability.UNSAFE if violation.block.completed else Applicability.SAFE
        return FixInfo(safety, title)

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
        seed = _seed(ctx.facts, ctx.text, last, at, ctx.options)
        if seed is None:
            return None
        line = parse_statement(f"{torch}.manual_seed({seed})\n")
        assert isinstance(line, cst.SimpleStatementLine)
        # In a one-line suite (`if x: random.seed(s)`) the call joins the suite.
        new = line.body[0] if isinstance(target, cst.BaseSmallStatement) else line
        if before:
            change.insert_before(target, [new])
        else:
            change.insert_after(target, [new])
        return change


def _seed(
    facts: ModuleFacts, text: str, last: SeedCall, at: tuple[int, int], options: FixOptions
) -> Optional[str]:
    """The last seeding call's own argument when it can be written again, else the seed the
    program names at ``at``, else ``fix-seed`` where a literal may go (a script, or the user
    set it); None: no fix (never a literal in library code)."""
    value = seed_argument(last.call)
    if value is not None and reusable(facts, value, last.scope, last.scope, beside=True):
        return expression_text(text, value)
    found = program_seed(facts, text, at, last.scope)
    if found is not None:
        return found
    return str(options.fix_seed) if literal_allowed(facts, last.scope, options) else None


_SEEDING_NAMES = ("seed", "determinis", "reproduc")
_LOOPS = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _may_repeat(
    facts: ModuleFacts, owner: Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Module]
) -> bool:
    """Whether the seed block may run more than once in a run, where a ``torch.manual_seed``
    would reset torch's generator at every call (a per-step ``if test_mode:
    np.random.seed(0)``): its function is called in a loop of this module, or by a function
    that is (to a fixpoint), or is a method, or is used otherwise than called (a callback).
    Not a seeding helper (its name says so) nor the module's top level."""
    if isinstance(owner, ast.Module) or any(w in owner.name.lower() for w in _SEEDING_NAMES):
        return False
    return owner in facts.once("rng004.repeating", lambda: _repeating(facts))


def _repeating(facts: ModuleFacts) -> frozenset[ast.AST]:
    functions = [f for f, _ in facts.builder.functions]
    methods = {
        id(item)
        for cls, _ in facts.builder.classes
        for item in cls.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    repeating: set[ast.AST] = {f for f in functions if id(f) in methods}
    called: dict[int, list[ast.AST]] = {}  # a function: the functions (or module) calling it
    in_loop: set[int] = set()
    for function in [facts.tree, *functions]:
        for node, looped in _calls_in(function):
            for meaning in facts.resolver.meanings(node.func, facts.call_scopes[id(node)]):
                if isinstance(meaning, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    called.setdefault(id(meaning), []).append(function)
                    if looped:
                        in_loop.add(id(meaning))
    uncalled = _read_uncalled(facts)
    repeating |= {f for f in functions if id(f) in in_loop or f.name in uncalled}
    changed = True
    while changed:
        changed = False
        for function in functions:
            if function not in repeating and any(
                caller in repeating for caller in called.get(id(function), ())
            ):
                repeating.add(function)
                changed = True
    return frozenset(repeating)


def _calls_in(function: ast.AST) -> Iterator[tuple[ast.Call, bool]]:
    """The calls of ``function``'s own body (not of nested functions or classes), each with
    whether it sits in a loop or a comprehension there."""
    stack: list[tuple[ast.AST, bool]] = [(child, False) for child in ast.iter_child_nodes(function)]
    while stack:
        node, looped = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call):
            yield node, looped
        inner = looped or isinstance(node, _LOOPS)
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def _read_uncalled(facts: ModuleFacts) -> frozenset[str]:
    """The names the module reads other than as the callee of a call (a function handed on as
    a callback, or stored: it may be called any number of times)."""
    callees = {id(call.func) for call, _ in facts.builder.calls}
    return frozenset(
        node.id
        for node in ast.walk(facts.tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in callees
    )


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


def _index(facts: ModuleFacts) -> ProjectIndex:
    """The run's index with this file's summary as its text is now (a file being fixed, or
    standard input, may differ from what the index was built from); a one-module index outside
    a project."""
    summary = summarize(facts)
    path = facts.path or "<module>"
    project = facts.project
    if not isinstance(project, ProjectIndex):
        return single(path, summary)
    if project.summary(path) != summary:
        return project.overlay(path, summary)
    return project


def _owners(
    facts: ModuleFacts,
) -> dict[str, Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Module]]:
    owners: dict[str, Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Module]] = {"": facts.tree}
    keys = module_keys(facts)
    for node, _ in facts.builder.functions:
        key = keys.get(id(node))
        if key is not None:
            owners[key] = node
    return owners


_CUDA_KINDS = frozenset({Seeding.CUDA_CURRENT, Seeding.CUDA_ALL})


def _block(
    facts: ModuleFacts,
    owner: Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Module],
    verdict: Verdict,
    index: ProjectIndex,
    path: str,
) -> Optional[SeedBlock]:
    """The owner's seeding calls the verdict is about (those that may run), in source order."""
    summary = summarize(facts)
    function = summary.functions.get(verdict.key)
    if function is None:
        return None
    seeds = index.live_seeds((path, verdict.key), function)
    positions = {(seed.row, seed.col) for seed in seeds}
    wanted = _CUDA_KINDS if verdict.case == "cuda-only" else {Seeding.RANDOM, Seeding.NUMPY}
    calls = [
        c
        for c in facts.seed_calls
        if c.kind in wanted
        and (c.call.lineno, c.call.col_offset) in positions
        and facts.enclosing_function(c.scope) is owner
    ]
    if not calls:
        return None
    calls.sort(key=lambda c: (c.call.lineno, c.call.col_offset))
    case = verdict.case
    if case == "cuda-only":
        kinds = {c.kind for c in calls}
        if Seeding.CUDA_ALL not in kinds and _multi_device(facts):
            case = "current-device-only"
        elif not verdict.cpu:
            return None  # every draw is on a CUDA device, which the CUDA seeding covers
    through = next((_accelerator_text(c.call) for c in calls if _accelerator_text(c.call)), "")
    return SeedBlock(
        owner,
        tuple(calls),
        case,
        verdict.library,
        verdict.completed,
        verdict.entry,
        through,
        verdict.draw,
    )


def _accelerator_text(call: ast.Call) -> str:
    """``get_accelerator().manual_seed`` for a device abstraction's seeding call (the library
    table's accelerators), else ``""``."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        inner = func.value.func
        name = inner.attr if isinstance(inner, ast.Attribute) else getattr(inner, "id", "")
        return f"{name}().{func.attr}"
    return ""


def _message(block: SeedBlock) -> str:
    if block.case == "unseeded-torch":
        seeded = " and ".join(sorted({_stream(c.kind) for c in block.calls}))
        if block.library:
            return f"Seeding helper seeds {seeded} but not torch: add `torch.manual_seed`"
        base = f"This program seeds {seeded} but never torch"
        where = _short_draw(block.draw)
        if where:
            named = f"{base} (it draws in `{where}`): add `torch.manual_seed`"
            if len(named) <= 100:
                return named
        return f"{base}: add `torch.manual_seed`"
    if block.case == "current-device-only":
        return (
            "`torch.cuda.manual_seed` seeds one GPU of several and not the CPU: "
            "use `torch.manual_seed`"
        )
    if block.through:  # `torch.cuda.manual_seed[_all]` on a CUDA machine (the library table)
        return f"torch seeded only through `{block.through}` (CUDA only): use `torch.manual_seed`"
    return "torch seeded only through `torch.cuda` (not the CPU generator): use `torch.manual_seed`"


def _short_draw(draw: str) -> str:
    """The first draw as a message names it: the function (``Trainer.__init__``), or the
    module's last name for a module's top level or one read from its bytes."""
    text = draw.split("`")[1] if draw.count("`") >= 2 else ""
    module, _, key = text.partition(":")
    if key and key != "<module>":
        return key
    return module.rsplit(".", 1)[-1]


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
