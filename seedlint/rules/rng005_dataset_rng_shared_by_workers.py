"""RNG005: an RNG object a dataset holds from before the DataLoader workers start."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from seedlint.analysis.facts import AnalysisOptions, CopiedRng, LoaderCall, ModuleFacts
from seedlint.analysis.workers import (
    copied_by,
    held_by,
    init_functions,
    lacks_init_fn,
    reseeds,
    reusable_function,
)
from seedlint.core import Applicability, FixAvailability
from seedlint.fixes.imports import Names
from seedlint.fixes.locate import loader_argument_fix, loader_call, top_statement
from seedlint.prefilter.words import WordGroups, loader_in_code, loader_words
from seedlint.project.loaders import ProjectLoaders, project_index
from seedlint.project.summary import builder_parameters
from seedlint.rules.base import FixInfo, Invalid, Rule, Valid, Violation

if TYPE_CHECKING:
    from seedlint.fixes.context import Change, FixContext
    from seedlint.fixes.options import FixOptions


@dataclass(frozen=True)
class SharedDatasetRngViolation(Violation):
    node: ast.Call  # the call that creates the RNG object
    copied: CopiedRng
    loaders: tuple[ast.Call, ...]  # loaders with workers and no worker_init_fn (fixable ones)

    @property
    def message(self) -> str:
        name = f"`{self.copied.name}`" if len(self.copied.name) <= 20 else "This RNG object"
        return f"{name} is copied into every DataLoader worker: workers draw the same numbers"


@dataclass(frozen=True)
class ImportedDatasetRngViolation(Violation):
    """At a loader of this module: its dataset class, of another module, holds the object;
    or the dataset holds an object that holds it (``holder``: ``TaskDataset.transform``)."""

    node: ast.Call  # the loader call
    holder: str  # the dataset class, or the chain of holders: `TaskDataset.transform`
    name: str  # `self.rng`
    where: str  # "data.py:12" (or "line 12" in this module), the call that makes it

    @property
    def message(self) -> str:
        name = f"`{self.name}`" if len(self.name) <= 20 else "an RNG object"
        holder = f"`{self.holder}`" if len(self.holder) <= 40 else "the dataset"
        for message in (
            f"{holder} holds {name} (`{self.where}`), copied into every worker: same draws",
            f"{holder} holds {name} (`{self.where}`): same draws in every worker",
            f"{holder} holds {name}, copied into every worker: workers draw the same numbers",
        ):
            if len(message) <= 100:
                return message
        return f"{holder} holds {name}: same draws in every worker"


_NOISY = """import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class NoisyDataset(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng()

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return self.rng.normal()
"""
_SEED_WORKER = """

def seed_worker(worker_id):
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
_LAZY = """import numpy as np
from torch.utils.data import DataLoader, Dataset, get_worker_info


class NoisyDataset(Dataset):
    def __init__(self):
        self.rng = None

    def __len__(self):
        return 8

    def __getitem__(self, index):
        if self.rng is None:  # made in the worker, from its own seed
            self.rng = np.random.default_rng(get_worker_info().seed)
        return self.rng.normal()


loader = DataLoader(NoisyDataset(), num_workers=4)
"""


class DatasetRngSharedByWorkers(Rule):
    code = "RNG005"
    name = "dataset-rng-shared-by-workers"
    summary = "DataLoader workers copy a dataset's RNG object that nothing reseeds"
    fix_availability = FixAvailability.SOMETIMES
    doc = """
## What it does
Checks for an RNG object created before the DataLoader workers start and held by a dataset:
`self.rng = np.random.default_rng(...)` (or `np.random.RandomState`, `np.random.Generator`,
`random.Random`, `torch.Generator`) in the dataset's `__init__` or in a method it calls on
`self` (`self.seed()`, transitively, through the module's base classes), or such an object at
module level used in the dataset's methods, when a `DataLoader` of the module whose
`num_workers` may be non-zero iterates that dataset (or a dataset it cannot tell apart) and no
`worker_init_fn` of that loader reseeds the object. When the loader's own arguments give it no
workers and it is built in
a function whose `num_workers` is one of its parameters, the project's calls of that function
decide (`def make_loader(ds, num_threads=0)` called with `num_threads=4`; its `worker_init_fn`
too, when that is a parameter). A dataset class taken from a dict, list or tuple of classes
(`DATASETS[config.dataset](...)`, with `DATASETS = {c.__name__: c for c in ALL_DATASETS}`) may
be any of them. A dataset a helper function returns (`ds = omniglot(...)` with `def omniglot():
return Omniglot(...)`, through chains of helpers, in this module or another) is the instance of
what the helper builds; a helper that builds it from a parameter (`klass(...)`) is not followed.

It is reported at the call that creates the object: that is where the problem lies. It fires also
when the loader's `worker_init_fn` is the PyTorch recipe's `seed_worker`, which reseeds only
`random` and `np.random`. A `worker_init_fn` counts as reseeding the object when it calls
`get_worker_info()` and reaches the object (by its attribute name, through `vars(...)` or
`__dict__`, or by its module-level name). A `worker_init_fn` imported from elsewhere, or any other
expression, is given the benefit of the doubt.

An object created lazily inside the worker (from `get_worker_info()`), or a dataset used only with
`num_workers=0`, is not flagged.

When the dataset class is defined in another module of the project (or derives from one that
holds the object, in any module: one with no loader, RNG or seeding word, summarised from its
bytes, is read from its tree when the loader's dataset is followed into it), the finding is
reported at the loader, with workers and no `worker_init_fn`, that iterates an instance of it,
and names where the object is made:
`` `NoisyDataset` holds `self.rng` (`data/datasets.py:8`), copied into every worker: same draws ``.
That finding has no fix: the reseeding belongs in a `worker_init_fn` that rebuilds the object from
`get_worker_info()` (see below), which this loader's module cannot see into.

When the RNG object lives in an object the dataset holds and uses to fetch items (a transform:
`self.transform = Splitter(...)` in the dataset's construction, or `self.transform = transform`
with `Dataset(Splitter())` at the loader, whose class makes `self.np_random`), the finding is at
the loader, with workers and no `worker_init_fn`, and names the holder:
`` `Dataset.transform` holds `self.np_random` (line 7), copied into every worker: same draws ``.
It has no fix (the `seed_worker` below reseeds what the dataset holds, not what its objects
hold). An object passed at a construction is followed in the loader's module only.

## Why is this bad?
PyTorch reseeds only the three global streams in a worker (`random`, `torch`, legacy
`np.random`; `torch/utils/data/_utils/worker.py`). An RNG *object* that the dataset created in the
main process is copied into every worker with its state (by fork, or by pickling under spawn and
forkserver): every worker draws **the same numbers**, and without `persistent_workers` they repeat
at every epoch. If the object was created unseeded (`np.random.default_rng()`), the numbers also
differ from run to run. Augmentations that look random are then duplicated across the batch's
samples.

Derive the worker's seed from `torch.utils.data.get_worker_info().seed` (or
`torch.initial_seed()` in the worker): it differs per worker and per epoch and follows the run's
seed. numpy needs it reduced to 32 bits (`% 2**32`).

## Fix safety
Where the loader has no `worker_init_fn`, the fix passes `worker_init_fn=seed_worker` to it and
defines this function once per module, after the imports that precede the loader's statement:

```python
def seed_worker(worker_id):
    \"\"\"Seed this DataLoader worker's random streams (added by seedlint).\"\"\"
    worker_seed = torch.initial_seed() % 2**32
    random.seed(worker_seed)
    numpy.random.seed(worker_seed)
    dataset = torch.utils.data.get_worker_info().dataset
    for name, value in list(vars(dataset).items()):
        if isinstance(value, (random.Random, numpy.random.RandomState)):
            value.seed(worker_seed)
        elif isinstance(value, numpy.random.Generator):
            setattr(dataset, name, numpy.random.default_rng(worker_seed))
        elif isinstance(value, torch.Generator):
            value.manual_seed(worker_seed)
```

It reseeds the RNG objects the worker's copy of the dataset holds. Module-level RNG objects that
dataset code uses are reseeded at the end of the function (`global rng` then
`rng = numpy.random.default_rng(worker_seed)` for a numpy `Generator`, `rng.seed(worker_seed)` or
`rng.manual_seed(worker_seed)` for the others). An existing module-level function that already
does the job is reused. Names are written as RNG002's fix writes them (the same function serves
both rules).

The fix only adds seeding, so it is **safe**; it is **unsafe** for a loader class of this module
with an `__init__` of its own. It changes which numbers the workers draw, which is its purpose.
There is no fix when the loader already has a `worker_init_fn` (extend it to reseed the object),
or when `worker_init_fn` may come from `*args` or a `**kwargs` dict.

## Options
- `dataloader-classes`: more loader classes (qualified names) to check.

## References
- PyTorch, `torch.utils.data` documentation, "Randomness in multi-process data loading".
- PyTorch, Reproducibility notes, "DataLoader" (`seed_worker` reseeds `random` and `numpy` only).
- PyTorch source, `torch/utils/data/_utils/worker.py` (`_worker_loop` seeding).
"""

    valid = (Valid(_LAZY),)
    invalid = (
        Invalid(
            _NOISY + "\n\nloader = DataLoader(NoisyDataset(), num_workers=4)\n",
            fixed=_NOISY.replace("\n\nclass NoisyDataset", _SEED_WORKER + "\n\nclass NoisyDataset")
            + "\n\nloader = DataLoader(NoisyDataset(), num_workers=4, "
            "worker_init_fn=seed_worker)\n",
        ),
    )

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        # The loader's words alone: the dataset, and its RNG object, may be in another module.
        return (loader_words(options),)

    def may_fire(self, raw: bytes, options: AnalysisOptions) -> bool:
        # A loader class named only in docstrings and comments is never called.
        return loader_in_code(raw, options)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        yield from self._imported(facts)
        yield from self._held(facts)
        if not facts.copied_rngs:
            return
        # the object -> (it, the loaders a fix passes a worker_init_fn, those it cannot fix)
        flagged: dict[int, tuple[CopiedRng, list[ast.Call], list[ast.Call]]] = {}
        project = ProjectLoaders.of(facts)
        for each in facts.dataloader_calls:
            bound = project.with_workers(each)  # a builder's: as its callers bind it
            if not bound:
                continue
            loader = next((b for b in bound if lacks_init_fn(b)), bound[0])
            missing = lacks_init_fn(loader)
            # The builder's callers pass the worker_init_fn: a fix belongs there, not here.
            fix_here = loader is each or "worker_init_fn" not in builder_parameters(facts, each)
            functions = None if missing else init_functions(facts, loader)
            if not missing and functions is None:
                continue  # a worker_init_fn this module cannot read: it may reseed
            for copied in copied_by(facts, loader):
                if functions is not None and all(reseeds(facts, f, [copied]) for f in functions):
                    continue
                entry = flagged.setdefault(id(copied.call), (copied, [], []))
                if missing and fix_here:
                    entry[1].append(loader.call)
                else:
                    # a worker_init_fn that does not reseed it, or one the builder's callers pass
                    entry[2].append(loader.call)
        for copied, loaders, other in sorted(flagged.values(), key=lambda e: _start(e[0].call)):
            fixable = () if other else tuple(loaders)  # the fix alone would not be enough
            yield SharedDatasetRngViolation(copied.call, copied, fixable)

    @staticmethod
    def _imported(facts: ModuleFacts) -> Iterator[Violation]:
        """Loaders of this module over a dataset class of another module that holds an RNG
        object (the project index answers; no fix: the dataset's module is not this one)."""
        if not facts.dataloader_calls:
            return
        index = project_index(facts)
        found = index.worker_dataset_rngs(facts.path or "<module>")
        if not found:
            return
        by_position = {(row, col): rest for row, col, *rest in found}
        for loader in facts.dataloader_calls:
            held = by_position.get((loader.call.lineno, loader.call.col_offset))
            if held is not None:
                where, holder, name, row = held
                yield ImportedDatasetRngViolation(
                    loader.call, str(holder), str(name), f"{where}:{row}"
                )

    @staticmethod
    def _held(facts: ModuleFacts) -> Iterator[Violation]:
        """Loaders with workers and no ``worker_init_fn`` whose dataset holds an object (a
        transform) that holds an RNG object, classes of this module (no fix: the recipe's
        ``seed_worker`` reseeds what the dataset holds itself, not what its objects hold)."""
        if not facts.dataloader_calls or not facts.init_rngs:
            return
        project = ProjectLoaders.of(facts)
        for each in facts.dataloader_calls:
            bound = [b for b in project.with_workers(each) if lacks_init_fn(b)]
            if not bound:
                continue
            for holder, attribute, copied in held_by(facts, bound[0]):
                yield ImportedDatasetRngViolation(
                    each.call,
                    f"{holder.name}.{attribute}",
                    copied.name,
                    f"line {_start(copied.call)[0]}",
                )

    def fix_info(
        self, facts: ModuleFacts, violation: Violation, options: FixOptions
    ) -> Optional[FixInfo]:
        if not isinstance(violation, SharedDatasetRngViolation):
            return None
        loaders = _fixable(facts, violation)
        if not loaders:
            return None
        unsafe = any(a is Applicability.UNSAFE for _, a in loaders)
        applicability = Applicability.UNSAFE if unsafe else Applicability.SAFE
        loader = loaders[0][0]
        top = top_statement(facts.tree, loader.call)
        assert top is not None
        existing = reusable_function(facts, loader, copied_by(facts, loader), top)
        if existing is not None:
            return FixInfo(applicability, f"Pass `worker_init_fn={existing.name}` to the loader")
        name = Names(facts).free("seed_worker", loader.scope)
        return FixInfo(
            applicability,
            f"Pass `worker_init_fn={name}` to the loader, a new module-level function that "
            f"reseeds `{violation.copied.name}` in each worker",
        )

    def fix(self, ctx: FixContext, violation: Violation) -> Optional[Change]:
        from seedlint.fixes.context import Change
        from seedlint.fixes.workers import add_seed_worker

        if not isinstance(violation, SharedDatasetRngViolation):
            return None
        loaders = _fixable(ctx.facts, violation)
        if not loaders:
            return None
        change = Change()
        for loader, _ in loaders:
            if not add_seed_worker(ctx, change, loader, copied_by(ctx.facts, loader)):
                return None
        return change


def _fixable(
    facts: ModuleFacts, violation: SharedDatasetRngViolation
) -> list[tuple[LoaderCall, Applicability]]:
    """The loaders the fix passes ``worker_init_fn`` to; empty when any of them cannot take it."""
    result: list[tuple[LoaderCall, Applicability]] = []
    for call in violation.loaders:
        applicability = loader_argument_fix(facts, call, "worker_init_fn")
        loader = loader_call(facts, call)
        if applicability is None or loader is None or top_statement(facts.tree, call) is None:
            return []
        result.append((loader, applicability))
    return result


def _start(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
