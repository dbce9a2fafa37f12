"""RNG002: DataLoader workers that start with copies of a dataset's RNG objects."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from seedlint.analysis.facts import AnalysisOptions, CopiedRng, LoaderCall, ModuleFacts
from seedlint.analysis.names import lookup
from seedlint.analysis.values import ABSENT, is_none_or_absent
from seedlint.core import FixAvailability
from seedlint.fixes.imports import Names
from seedlint.fixes.locate import (
    loader_argument_fix,
    loader_call,
    refusal,
    start,
    top_statement,
)
from seedlint.prefilter.words import WordGroups, loader_words
from seedlint.rules.base import FixInfo, Invalid, Rule, Valid, Violation

if TYPE_CHECKING:
    from seedlint.fixes.context import Change, FixContext
    from seedlint.fixes.options import FixOptions


@dataclass(frozen=True)
class WorkersWithoutInitFnViolation(Violation):
    node: ast.Call
    copied: tuple[CopiedRng, ...]  # the RNG objects the workers copy (at least one)
    no_fix: Optional[str] = None  # why no fix is offered, when that is known from the code

    @property
    def message(self) -> str:
        message = _message(self.copied[0])
        return message if self.no_fix is None else f"{message} ({self.no_fix})"


# The rule's example (its doc page shows it, tests/test_examples.py runs it), in pieces.
_IMPORTS = """import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
"""
_DATASET = """class NoisyDataset(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng()

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return self.rng.normal()
"""
_SEED_WORKER = """def seed_worker(worker_id):
    \"\"\"Seed this DataLoader worker's random streams (added by seedlint).\"\"\"
    worker_seed = torch.initial_seed() % 2**32
    random.seed(worker_seed)
    np.random.seed(worker_seed)
    dataset = torch.utils.data.get_worker_info().dataset
    for name, value in list(vars(dataset).items()):
        if isinstance(value, (random.Random, np.random.RandomState)):
            value.seed(worker_seed)
        elif isinstance(value, np.random.Generator):
            setattr(dataset, name, np.random.default_rng(worker_seed))
        elif isinstance(value, torch.Generator):
            value.manual_seed(worker_seed)
"""
_NOISY = f"{_IMPORTS}\n\n{_DATASET}\n\nloader = DataLoader(NoisyDataset(), num_workers=4)\n"
_NOISY_FIXED = (
    f"{_IMPORTS}\n\n{_SEED_WORKER}\n\n{_DATASET}\n\n"
    "loader = DataLoader(NoisyDataset(), num_workers=4, worker_init_fn=seed_worker)\n"
)


class WorkersWithoutInitFn(Rule):
    code = "RNG002"
    name = "dataloader-workers-without-init-fn"
    summary = "DataLoader workers duplicate an RNG object that PyTorch does not reseed"
    fix_availability = FixAvailability.SOMETIMES
    doc = """
## What it does
Checks for a torch `DataLoader` whose `num_workers` may be non-zero, that has no
`worker_init_fn` (absent, or `None`), and whose dataset holds an RNG object created before the
workers start: `self.rng = np.random.default_rng(...)` (or `np.random.RandomState`,
`np.random.Generator`, `random.Random`, `torch.Generator`) in the dataset's `__init__`, or such an
object at module level used in the dataset's methods.

A loader with workers and no `worker_init_fn` is **not** flagged on its own: since PyTorch 1.9
every worker already seeds `random`, `torch` and the legacy `np.random` from the loader's
`base_seed + worker_id`, differently per worker and per epoch, and reproducibly once the run is
seeded (`torch/utils/data/_utils/worker.py`, `_worker_loop`). A `worker_init_fn` that only
reseeds those streams changes nothing.

`num_workers` counts when it is a non-zero value, or an expression that may be non-zero
(`args.workers` with no visible default, `os.cpu_count()`). It does not count when it is absent,
`0`, or a parameter whose caller decides (no default).

## Why is this bad?
PyTorch reseeds only the three global streams in a worker. An RNG *object* that the dataset
created in the main process is copied into every worker with its state (by fork, or by pickling
under spawn and forkserver): every worker draws **the same numbers**, and without
`persistent_workers` they repeat at every epoch. If the object was created unseeded
(`np.random.default_rng()`), the numbers also differ from run to run. Augmentations that look
random are then duplicated across the batch's samples.

Derive the worker's seed from `torch.utils.data.get_worker_info().seed` (or
`torch.initial_seed()` in the worker): it differs per worker and per epoch and follows the run's
seed. numpy needs it reduced to 32 bits (`% 2**32`).

## Fix safety
The fix passes `worker_init_fn=seed_worker` to the loader (in place of an explicit
`worker_init_fn=None`, else as a keyword after the existing arguments, in the call's layout,
split one argument per line past the project's line length) and defines `seed_worker` once per
module, after the imports that precede the loader's statement (the
example above shows it).

It follows the PyTorch reproducibility notes (in a worker, `torch.initial_seed()` is the loader's
`base_seed + worker_id`: it differs per worker and per epoch and follows the run's seed) and
reseeds the RNG objects the worker's copy of the dataset holds. Module-level RNG objects that
dataset code uses are reseeded at the end of the function (`global rng` then
`rng = numpy.random.default_rng(worker_seed)` for a numpy `Generator`, `rng.seed(worker_seed)` or
`rng.manual_seed(worker_seed)` for the others). The numpy lines appear only where the module
imports numpy. `torch`, `random` and `numpy` are written under the module's own names for them
(`np`), imported when missing, and imported under a free name (`random_`) when the name means
something else. It is a module-level function, not a lambda or a nested function, so that it
pickles under the `spawn` start method.

An existing module-level function that already does the job is reused: it calls
`get_worker_info()`, reaches each RNG object the dataset holds (by attribute name, or through
`vars(...)`), and is defined before a module-level loader runs. When `seed_worker` means something
else, the new function gets a free name (`seed_worker_`).

The fix only adds seeding, so it is **safe**; it is **unsafe** for a loader class of this module
with an `__init__` of its own, which may not accept `worker_init_fn`. It changes which numbers the
workers draw, which is its purpose. RNG objects held elsewhere (inside transforms, or in other
libraries) still need your own `worker_init_fn`. There is no fix when `worker_init_fn` may come
from `*args` or a `**kwargs` dict, nor for a loader class of this module whose `__init__` takes
neither `worker_init_fn` nor `**kwargs` (it would raise TypeError): the message then says so.

## Options
- `dataloader-classes`: more loader classes (qualified names) to check.

## References
- PyTorch, Reproducibility notes, "DataLoader" (`seed_worker`, `worker_init_fn`, `generator`).
- PyTorch, `torch.utils.data` documentation, "Randomness in multi-process data loading".
- PyTorch source, `torch/utils/data/_utils/worker.py` (`_worker_loop` seeding); numpy seeding in
  workers since PyTorch 1.9 (pytorch/pytorch#56488).
"""

    valid = (
        Valid(
            "import numpy as np\nfrom torch.utils.data import DataLoader, Dataset\n\n\n"
            "class Squares(Dataset):\n"
            "    def __len__(self):\n        return 8\n\n"
            "    def __getitem__(self, index):\n        return index * index + np.random.rand()\n"
            "\n\nloader = DataLoader(Squares(), num_workers=4)\n"
        ),
    )
    invalid = (
        Invalid(
            _NOISY,
            fixed=_NOISY_FIXED,
        ),
    )

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        return (loader_words(options), ("Random", "rng", "Generator"))

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        if not facts.copied_rngs:
            return
        for loader in facts.dataloader_calls:
            if not loader.args["num_workers"].may(_may_be_nonzero):
                continue
            if not loader.args["worker_init_fn"].known_may(is_none_or_absent):
                continue
            copied = _copied(facts, loader)
            if copied:
                reason = refusal(facts, loader, "worker_init_fn")
                yield WorkersWithoutInitFnViolation(loader.call, tuple(copied), reason)

    def fix_info(
        self, facts: ModuleFacts, violation: Violation, options: FixOptions
    ) -> Optional[FixInfo]:
        assert isinstance(violation, WorkersWithoutInitFnViolation)
        applicability = loader_argument_fix(facts, violation.node, "worker_init_fn")
        loader = loader_call(facts, violation.node)
        top = top_statement(facts.tree, violation.node)
        if applicability is None or loader is None or top is None:
            return None
        existing = _reusable_function(facts, loader, list(violation.copied), top)
        if existing is not None:
            return FixInfo(applicability, f"Pass `worker_init_fn={existing.name}`")
        name = Names(facts).free("seed_worker", loader.scope)
        return FixInfo(
            applicability,
            f"Pass `worker_init_fn={name}`, a new module-level function that reseeds each "
            "worker's `random`, `numpy` and the dataset's RNG objects",
        )

    def fix(self, ctx: FixContext, violation: Violation) -> Optional[Change]:
        from seedlint.fixes.calls import set_loader_argument
        from seedlint.fixes.context import Change, parse_statement

        loader = loader_call(ctx.facts, violation.node)
        top = top_statement(ctx.facts.tree, violation.node)
        if loader is None or top is None:
            return None
        assert isinstance(violation, WorkersWithoutInitFnViolation)
        change = Change()
        existing = _reusable_function(ctx.facts, loader, list(violation.copied), top)
        if existing is not None:
            name = existing.name
        else:
            anchor = _definition_place(ctx.facts.tree, top)
            target = ctx.statement(anchor)
            if target is None:
                return None
            name = ctx.names.free("seed_worker", loader.scope)
            code = _seed_worker_code(ctx, change, name, anchor)
            change.insert_before(target, [parse_statement(code)], key=f"def {name}")
        if not set_loader_argument(ctx, change, loader, "worker_init_fn", name):
            return None
        return change


def _copied(facts: ModuleFacts, loader: LoaderCall) -> list[CopiedRng]:
    """The copied RNG objects the loader's dataset may hold."""
    if loader.dataset is None:
        return list(facts.copied_rngs)
    classes = facts.instance_classes(loader.dataset, loader.scope)
    if classes is None:  # the dataset may be an instance of any of them
        return list(facts.copied_rngs)
    return [c for meaning in classes for c in facts.holders(meaning)]


_TEMPLATE_LOCALS = frozenset({"worker_id", "worker_seed", "dataset", "name", "value"})
_REBUILT = frozenset({"numpy.random.default_rng", "numpy.random.Generator"})
_TORCH = frozenset({"torch.Generator"})


def _definition_place(tree: ast.Module, top: ast.stmt) -> ast.stmt:
    """The module-level statement ``seed_worker`` goes before: the one after the last import
    that precedes ``top`` (the statement holding the loader call), else ``top`` itself."""
    body = tree.body
    index = body.index(top)
    for position in range(index - 1, -1, -1):
        if isinstance(body[position], (ast.Import, ast.ImportFrom)):
            return body[position + 1]
    return top


def _module_level_rngs(facts: ModuleFacts) -> list[tuple[str, str]]:
    """(name, factory) of the module-level RNG objects dataset code uses, by name."""
    found = {c.name: c.factory for c in facts.copied_rngs if not c.name.startswith("self.")}
    return sorted((n, f) for n, f in found.items() if n not in _TEMPLATE_LOCALS)


def _seed_worker_code(ctx: FixContext, change: Change, name: str, anchor: ast.stmt) -> str:
    """The ``seed_worker`` function, written with the module's own names for its modules."""
    scope = ctx.facts.builder.module_scope
    at = start(anchor)
    torch = ctx.module_name(change, "torch", scope, at)
    rand = ctx.module_name(change, "random", scope, at)
    numpy = (
        ctx.module_name(change, "numpy", scope, at)
        if ctx.facts.resolver.imports_module("numpy")
        else None
    )
    in_place = f"({rand}.Random, {numpy}.random.RandomState)" if numpy else f"{rand}.Random"
    lines = [
        f"def {name}(worker_id):",
        '    """Seed this DataLoader worker\'s random streams (added by seedlint)."""',
        f"    worker_seed = {torch}.initial_seed() % 2**32",
        f"    {rand}.seed(worker_seed)",
    ]
    if numpy:
        lines.append(f"    {numpy}.random.seed(worker_seed)")
    lines += [
        f"    dataset = {torch}.utils.data.get_worker_info().dataset",
        "    for name, value in list(vars(dataset).items()):",
        f"        if isinstance(value, {in_place}):",
        "            value.seed(worker_seed)",
    ]
    if numpy:
        lines += [
            f"        elif isinstance(value, {numpy}.random.Generator):",
            f"            setattr(dataset, name, {numpy}.random.default_rng(worker_seed))",
        ]
    lines += [
        f"        elif isinstance(value, {torch}.Generator):",
        "            value.manual_seed(worker_seed)",
    ]
    for rng, factory in _module_level_rngs(ctx.facts):
        if factory in _REBUILT and numpy:
            lines += [f"    global {rng}", f"    {rng} = {numpy}.random.default_rng(worker_seed)"]
        elif factory in _TORCH:
            lines.append(f"    {rng}.manual_seed(worker_seed)")
        elif factory not in _REBUILT:
            lines.append(f"    {rng}.seed(worker_seed)")
    return "\n".join(lines) + "\n"


def _reusable_function(
    facts: ModuleFacts, loader: LoaderCall, copied: list[CopiedRng], top: ast.stmt
) -> Optional[ast.FunctionDef]:
    """A module-level function (``seed_worker`` first) that already reseeds what this loader's
    dataset holds: it calls ``get_worker_info`` and reaches every copied RNG (by attribute
    name, through ``vars(...)``/``__dict__``, or by its module-level name), takes the worker id,
    is what its name means at the loader, and is defined before a module-level loader runs."""
    candidates = [s for s in facts.tree.body if isinstance(s, ast.FunctionDef)]
    candidates.sort(key=lambda f: f.name != "seed_worker")
    runs_at_import = not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    for function in candidates:
        if runs_at_import and function.lineno > top.lineno:
            continue
        args = function.args
        positional = len(args.posonlyargs) + len(args.args)
        if positional - len(args.defaults) > 1 or (positional == 0 and args.vararg is None):
            continue
        bindings = lookup(function.name, loader.scope) or []
        if [b.node for b in bindings] != [function]:
            continue
        if _reseeds(facts, function, copied):
            return function
    return None


def _reseeds(facts: ModuleFacts, function: ast.FunctionDef, copied: list[CopiedRng]) -> bool:
    scope = facts.resolver.scope_of(function)
    worker_info = whole_dict = False
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            qualnames = facts.resolver.qualnames(node.func, scope)
            if "torch.utils.data.get_worker_info" in qualnames:
                worker_info = True
            if isinstance(node.func, ast.Name) and node.func.id == "vars":
                whole_dict = True
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
            whole_dict = whole_dict or node.attr == "__dict__"
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Global):
            names.update(node.names)
    if not worker_info:
        return False
    for rng in copied:
        attribute = rng.name.startswith("self.")
        if attribute and not whole_dict and rng.name[5:] not in names:
            return False
        if not attribute and rng.name not in names:
            return False
    return True


def _may_be_nonzero(option: object) -> bool:
    return option is not ABSENT and option is not None and option != 0


def _message(copied: CopiedRng) -> str:
    return (
        f"DataLoader workers start with copies of `{copied.name}` (a `{copied.factory}` "
        f"created in {copied.where}): PyTorch reseeds only `random`, `torch` and `np.random` "
        "in workers, so every worker draws the same numbers from it, again each epoch; "
        "pass a `worker_init_fn` that reseeds it"
    )
