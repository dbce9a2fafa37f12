"""RNG001: a shuffling DataLoader with no generator of its own."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from seedlint.analysis.facts import AnalysisOptions, LoaderCall, ModuleFacts
from seedlint.analysis.names import Scope
from seedlint.analysis.unseeded import unseeded_generator
from seedlint.analysis.values import (
    OBJECT,
    VALUES_DOC,
    Value,
    describe_origin,
    is_none_or_absent,
    is_truthy,
)
from seedlint.core import Applicability, FixAvailability, Origin
from seedlint.fixes.generators import UNSEEDED_MESSAGE, seeding_title
from seedlint.fixes.imports import Names
from seedlint.fixes.locate import loader_argument_fix, refusal, start
from seedlint.fixes.seeds import Seed, choose_seed
from seedlint.prefilter.words import WordGroups, loader_in_code, loader_words
from seedlint.project.loaders import ProjectLoaders
from seedlint.project.summary import builder_parameters
from seedlint.rules.base import FixInfo, Invalid, Rule, Valid, Violation

if TYPE_CHECKING:
    from seedlint.fixes.context import Change, FixContext
    from seedlint.fixes.options import FixOptions

MESSAGE = (
    "DataLoader shuffles without a `generator`: its order depends on the global torch generator"
)


@dataclass(frozen=True)
class ShuffleWithoutGeneratorViolation(Violation):
    node: ast.Call
    no_fix: Optional[str] = None  # why no fix is offered, when that is known from the code
    caller: Optional[str] = None  # the project's call that makes `shuffle` true
    unseeded: Optional[tuple[ast.Call, Scope]] = None  # the generator passed, made unseeded
    origin: Optional[Origin] = None  # where the hazardous value comes from, when not at the call
    # the tests in the loader class's `__init__` on the way to the shuffling path, when the
    # call does not decide them ("unless `isinstance(dataset, C)`")
    when: Optional[str] = None

    @property
    def message(self) -> str:
        if self.unseeded is not None:
            return f"DataLoader shuffles with {UNSEEDED_MESSAGE}"
        origin = str(self.origin) if self.origin is not None else None
        message = MESSAGE
        candidates = [
            (self.caller, self.when, origin, self.no_fix),
            (self.caller, self.when, self.no_fix),
        ]
        if self.when:  # the path's test says more than why no fix is offered
            candidates.append((self.caller, self.when, None))
        for parts in candidates:
            shown = [part for part in parts if part]
            if not shown:
                return MESSAGE
            message = f"DataLoader shuffles without a `generator` ({'; '.join(shown)})"
            if len(message) <= 100 or not (self.origin or self.when):
                return message
        return message
        return message


class ShuffleWithoutGenerator(Rule):
    code = "RNG001"
    name = "dataloader-shuffle-without-generator"
    project_loaders = True
    summary = "DataLoader shuffles from the global torch generator"
    fix_availability = FixAvailability.SOMETIMES
    doc = (
        """
## What it does
Checks for a torch `DataLoader` (or a subclass, or a class listed in `dataloader-classes`) whose
`shuffle` may be true and that has no `generator` (absent, or `None`), while no `sampler` or
`batch_sampler` object replaces the shuffling. PyTorch raises when one is given with
`shuffle=True`, so a sampler that is an object on every path, or a name or attribute that the
tests on the way to the loader show is not None (`if self.valid_sampler is None: return`, then
`DataLoader(sampler=self.valid_sampler, **kwargs)`), means no shuffling there.

It does not flag a loader over an `IterableDataset` class of the module (PyTorch raises for
`shuffle=True` there), nor one that the same function hands to Hugging Face accelerate with
`use_seedable_sampler=True` (`prepare_data_loader(...)`, or `Accelerator.prepare` with such a
`DataLoaderConfiguration`), which replaces its sampler by one seeded from the run's seed and the
epoch.

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

`shuffle` counts when it is `True`, or an expression that may be true on some path
(`shuffle=args.shuffle` with no visible default, `shuffle=(sampler is None)`). It does not count
when it is absent or `False`/`None`.

"""
        + VALUES_DOC
        + """

Library loader classes that pass `shuffle` and `generator` on to torch's are checked as
DataLoaders (the library table, `seedlint/analysis/libraries.py`, which cites each library's
source): PyG's `DataLoader`, `DataListLoader`, `DenseDataLoader`, `NeighborLoader` and the like
(also under their deprecated `torch_geometric.data.` names), torchdata's `StatefulDataLoader`,
MONAI's `DataLoader`; litdata's `StreamingDataLoader` is not (its dataset seeds its order).

Across functions and modules of the project (the files found from its root, whether or not they
are named on the command line), it also checks:

- a loader class held in a variable: `loader_class = DataLoader`, a conditional expression
  (`FastLoader if fast else DataLoader`), or `functools.partial(DataLoader, ...)`, whose
  arguments count as the call's, with a `**kwargs` dict built in the same function;
- a DataLoader subclass defined in another module (`class AudioDataLoader(DataLoader)` in
  `loaders.py`, called in `train.py`), whatever its name (`class AudioLoader(DataLoader)`,
  a subclass of it), and the names the project imports it under (a renamed re-export,
  `from .loaders import AudioLoader as Feeder`), even in a file that never names
  `DataLoader`: positional arguments bind to its own `__init__`'s parameters (a
  `*args, **kwargs` pass-through keeps the DataLoader's);
- a loader subclass of the project (of this module or another) with an `__init__` of its own:
  the call is bound to that signature, **its defaults included** (torchmeta's
  `MetaDataLoader(dataset)` shuffles: its `shuffle` defaults to True), and the body is followed
  to the base's `__init__` call (`super().__init__(...)`, `DataLoader.__init__(self, ...)`),
  through each class of the chain down to the library's loader: on each path, what reaches
  `shuffle`, `sampler` and `generator` (a parameter passed on, a literal, a constructed object,
  its `**kwargs`). The tests on the way (`isinstance(p, C)`, `p is None`, `p`, with `and`,
  `or`, `not`) are decided from the call where it can: `isinstance(dataset, C)` when the
  dataset is built by `D(...)` of a project class whose chain of bases is read (through
  re-exports). A path that may shuffle without a generator is a finding; when it depends on a
  test the call does not decide, the message names it (``(unless `isinstance(dataset,
  CombinationMetaDataset)`)``). A path where the class replaces shuffling by a sampler of its
  own and passes `shuffle=False` on is none: the order then comes from that sampler (torchmeta's
  `CombinationRandomSampler` draws from python `random`), and no torch generator is involved.
  Where it stops (the plain binding applies): `*args` in the signature or passed on, a `**`
  dict other than the `__init__`'s own `**kwargs`, the base call in a loop, `try` or `with`,
  more than 16 paths, a class with two project bases. A dataset returned by a function is not
  followed (its class is not known: both branches count);
- `DataLoader` or `torch` bound only through a star import of a project module, or
  `DataLoader` re-exported by one (`from pkg.common import DataLoader`);
- a builder whose `shuffle` (or `generator`, `sampler`) is one of its parameters
  (`def build(ds, train): return DataLoader(ds, shuffle=train)`), or reaches the loader through
  its `**kwargs` (`def build(ds, **kw): return DataLoader(ds, **kw)`, `kw` not changed before;
  what a call does not pass is DataLoader's default; no fix there): the project's calls of the
  builder bind it (by keyword or position, the builder's defaults where a call leaves it out):
  calls of a function (through re-exports too, one in a module with no loader or seeding word
  included: it is read from its tree then; not yet: a call in such a module),
  `self.create_loader(...)`, and a method called on an instance whose
  class the calling module names (`store = RolloutStorage()`, `self.store` that the class's
  methods set only to `RolloutStorage(...)`, a parameter annotated `pipeline: PromptPipeline`;
  not an instance returned by a function),
  and a call that makes the loader shuffle without a generator is reported at the DataLoader
  call, the message naming it: `(shuffle=True from `train.py:12`)`. A parameter's default is
  what a call leaving the parameter out gets. When every call of the builder in the project is
  in the builder's own module and seen there (by its name, or `self.build(...)` in its class's
  methods; the builder not decorated, its name not used other than called), the loader is judged
  as each call binds it: a `generator=None` default that every call replaces by a generator is
  no finding. A builder that nothing in the project calls (a library's API), or that is called
  from another module or used as a callback, is judged by its defaults too: a default that
  shuffles with no generator is reported (`(shuffle=True: default of `shuffle`, line 4)`), as
  every caller taking the default gets that order. A parameter without a default that no call of
  the project passes a known value for (a library's API, a caller passing its own parameter on)
  is not reported: what cannot be known is no finding.

## Why is this bad?
With `shuffle=True` and no `generator`, the loader's `RandomSampler` seeds itself at every epoch
from one draw of the **global CPU generator**, and every iterator also draws its `base_seed` from
that generator, even with `num_workers=0` (PyTorch's `dataloader.py`, `_BaseDataLoaderIter`).

After `torch.manual_seed(...)` the order does repeat from run to run, but only while every earlier
draw from the global generator stays the same. Building a model on the CPU, a dropout, a
`random_split`, a sampler without a generator, or iterating another loader (even an unshuffled
evaluation loader) in between changes the order. So does toggling `persistent_workers`. A change
that looks unrelated then silently changes which batches the model sees. Without any
`torch.manual_seed`, the order differs on every run.

A `generator` of the loader's own, seeded from the run's seed, decouples the order (and the
workers' `base_seed`) from everything else: the global generator is not touched at all.

A bare `torch.Generator()` is not enough: every fresh generator starts from the same fixed seed
(67280421310721), so it ignores the run's seed.

## Fix safety
No fix where the loader already passes `generator` as anything but the literal `None` (or
`torch.default_generator`) that may be None on some path: a name, a parameter, an attribute or a
call (`generator=g` with `g = make_secure() if args.secure else None`) is the program's value on
its other paths, which a fix would replace.

The fix passes `generator=torch.Generator().manual_seed(SEED)` to the loader: in place of an
explicit `generator=None`, else as a keyword after the existing arguments, in the call's own
layout (one argument per line stays one per line, a trailing comma is kept); a call that would
then exceed the project's line length (`line-length` of ruff, else of black, else 88) is split
one argument per line with a trailing comma, as black and ruff format write it.
`SEED` is a seed the program already has where the fix goes, bound there when that code runs,
in this order: the argument of an earlier seeding call in the same function
(`torch.manual_seed(X)`, `random.seed(X)`, `np.random.seed(X)`, a seeding helper such as
`set_seed(X)`) or of a seeded generator (`torch.Generator().manual_seed(X)`,
`np.random.default_rng(X)`), when every name in `X` means the same at the fix and `X` has no
call in it; a parameter or variable named like a seed (`seed`, `random_seed`, `*_seed`); in a
method, `self.seed` set in `__init__`, `self.hparams.seed` (saved by `save_hyperparameters()`) or
`self.cfg.seed`-style attributes the class reads; `args.seed`, `opt.seed`, `config["seed"]` for a
parameter, local or global that holds the parsed arguments (the module's argparse defines
`--seed`) or whose seed the module reads elsewhere; the argument of a module-level seeding call. A
global created only under `if __name__ == "__main__":` is never read from a function (it does not
exist when the module is imported), and a value known to be `None` is never used
(`manual_seed(None)` raises).

Otherwise `SEED` is `torch.initial_seed()`: it follows the run's `torch.manual_seed` (not the
number of draws before the loader) and stays random in an unseeded run. A literal (the `fix-seed`
setting, default 0) is written only in a script (a module with a `__main__` guard or code at its
top level): when `fix-seed` is set, or in the entry-point code of a script that seeds nothing at
all. Library code never gets a literal: every user of the library would get one fixed order.
Elsewhere in a script that seeds nothing at all (a loader built in a class or a helper), where
`torch.initial_seed()` would be random, the fix is **unsafe**: it adds `SEED = 0` (the
`fix-seed` value) after the module's imports and passes
`generator=torch.Generator().manual_seed(SEED)`; without `--unsafe-fixes` the finding stays and
the run exits 1. `torch` is written under the name the module binds to it; `import torch` is
added when the name is not bound, and `import torch as torch_` (a free name) when `torch` means
something else.

The fix only adds seeding, so it is **safe**; it is **unsafe** for a loader class of this module
with an `__init__` of its own, which may not accept `generator`. It changes which order the loader
draws, which is its purpose: results or checkpoints made with the old order are not reproduced bit
for bit. There is no fix when `generator` may come from `*args` or a `**kwargs` dict, nor for a
loader class of this module whose `__init__` takes neither `generator` nor `**kwargs` (it would
raise TypeError): the message then says so.

For a loader class of another module of the project the same holds: safe when its `__init__`
passes `*args, **kwargs` on, unsafe when it has a signature of its own that takes `generator` or
`**kwargs`, no fix when it takes neither. For a builder whose callers make it shuffle, the fix is
the one above, at the loader call (the seed in reach there, `torch.initial_seed()` in library
code); when the builder takes `generator` as a parameter itself, its caller should pass one, and
there is no fix at the loader (the message names the caller).

## Options
- `dataloader-classes`: more loader classes (qualified names) to check.
- `fix-seed`: the literal seed a fix writes in a script that names no seed.

## References
- PyTorch, Reproducibility notes, "DataLoader": pass `generator` (and `worker_init_fn`) to
  preserve reproducibility.
- PyTorch source, `torch/utils/data/sampler.py` (`RandomSampler.__iter__`) and
  `torch/utils/data/dataloader.py` (`_BaseDataLoaderIter.__init__`, the `base_seed` draw).
"""
    )

    valid = (
        Valid(
            "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
            "def make(dataset, seed):\n"
            "    g = torch.Generator().manual_seed(seed)\n"
            "    return DataLoader(dataset, shuffle=True, generator=g)\n"
        ),
        Valid("from torch.utils.data import DataLoader\n\nloader = DataLoader(range(8))\n"),
    )
    invalid = (
        Invalid(
            "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
            "def make(dataset, seed):\n"
            "    return DataLoader(dataset, batch_size=32, shuffle=True)\n",
            fixed="import torch\nfrom torch.utils.data import DataLoader\n\n\n"
            "def make(dataset, seed):\n"
            "    return DataLoader(\n"
            "        dataset,\n"
            "        batch_size=32,\n"
            "        shuffle=True,\n"
            "        generator=torch.Generator().manual_seed(seed),\n"
            "    )\n",
        ),
        Invalid(
            "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
            "def make(dataset, seed):\n"
            "    g = torch.Generator()\n"
            "    return DataLoader(dataset, shuffle=True, generator=g)\n",
            fixed="import torch\nfrom torch.utils.data import DataLoader\n\n\n"
            "def make(dataset, seed):\n"
            "    g = torch.Generator().manual_seed(seed)\n"
            "    return DataLoader(dataset, shuffle=True, generator=g)\n",
        ),
    )

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        return (loader_words(options),)

    def may_fire(self, raw: bytes, options: AnalysisOptions) -> bool:
        # A loader class named only in docstrings and comments is never called.
        return loader_in_code(raw, options)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        project = ProjectLoaders.of(facts)
        for loader in [*facts.dataloader_calls, *project.loader_calls()]:
            routes = project.routes(loader)
            if routes is not None:  # the class's `__init__` decides what DataLoader gets
                found = next((r for r in routes if _shuffles_unseeded(r.args)), None)
                if found is not None:
                    if _iterable_dataset(facts, loader) or reseeded_by_accelerate(facts, loader):
                        continue
                    origin = describe_origin("shuffle", found.args["shuffle"], is_truthy)
                    no_fix = refusal(facts, loader, "generator")
                    when = " and ".join(found.undecided) or None
                    yield ShuffleWithoutGeneratorViolation(
                        loader.call, no_fix, origin=origin, when=when
                    )
                    continue
            # A builder's defaults count where one of its calls leaves the parameter out (when
            # every call is seen; else they count).
            elif _shuffles_unseeded(loader.args) and any(
                _shuffles_unseeded(called.args) for called in project.as_called(loader)
            ):
                if _iterable_dataset(facts, loader) or reseeded_by_accelerate(facts, loader):
                    continue  # PyTorch raises / accelerate swaps in a seeded sampler
                origin = describe_origin("shuffle", loader.args["shuffle"], is_truthy)
                yield ShuffleWithoutGeneratorViolation(
                    loader.call, refusal(facts, loader, "generator"), origin=origin
                )
                continue
            made = _unseeded(facts, loader)
            if made is not None:
                yield ShuffleWithoutGeneratorViolation(loader.call, unseeded=made)
                continue
            for binding in project.bindings(loader):  # a builder: its callers decide
                if not _shuffles_unseeded({**loader.args, **binding.values}):
                    continue
                if _iterable_dataset(facts, loader) or reseeded_by_accelerate(facts, loader):
                    break
                no_fix = refusal(facts, loader, "generator")
                caller = binding.describe("shuffle", "generator")
                yield ShuffleWithoutGeneratorViolation(loader.call, no_fix, caller)
                break

    def fix_info(
        self, facts: ModuleFacts, violation: Violation, options: FixOptions
    ) -> Optional[FixInfo]:
        made = getattr(violation, "unseeded", None)
        if made is not None:
            return FixInfo(*seeding_title(facts, made[0], made[1], options))
        loader = ProjectLoaders.of(facts).find(violation.node)
        if loader is None:
            return None
        if (
            isinstance(violation, ShuffleWithoutGeneratorViolation)
            and violation.caller is not None
            and "generator" in builder_parameters(facts, loader)
        ):
            return None  # the builder's caller passes the generator: the fix belongs there
        applicability = loader_argument_fix(facts, violation.node, "generator", loader)
        if applicability is None:
            return None
        value, seed = _generator(facts, loader.scope, start(loader.call), options)
        if seed.constant is not None:  # the program seeds nothing: its run stays random
            return FixInfo(
                Applicability.UNSAFE,
                f"Pass `generator={value}` and add `{seed.constant}` where the program starts "
                "(it seeds nothing)",
            )
        return FixInfo(applicability, f"Pass `generator={value}`")

    def fix(self, ctx: FixContext, violation: Violation) -> Optional[Change]:
        from seedlint.fixes.calls import seed_generator, set_loader_argument
        from seedlint.fixes.context import Change

        made = getattr(violation, "unseeded", None)
        if made is not None:
            return seed_generator(ctx, made[0], made[1])
        loader = ProjectLoaders.of(ctx.facts).find(violation.node)
        if loader is None:
            return None
        change = Change()
        at = start(loader.call)
        torch = ctx.module_name(change, "torch", loader.scope, at)
        seed = ctx.seed(at, loader.scope, change).text(torch)
        value = f"{torch}.Generator().manual_seed({seed})"
        return change if set_loader_argument(ctx, change, loader, "generator", value) else None


def _shuffles_unseeded(args: dict[str, Value]) -> bool:
    """``shuffle`` may be true, ``generator`` absent or None, and no sampler replaces it."""
    if not args["shuffle"].may(is_truthy):
        return False
    if not args["generator"].known_may(is_none_or_absent):
        return False
    return not (_replaces_shuffling(args["sampler"]) or _replaces_shuffling(args["batch_sampler"]))


def _unseeded(facts: ModuleFacts, loader: LoaderCall) -> Optional[tuple[ast.Call, Scope]]:
    """The ``torch.Generator()`` a shuffling loader is given, when nothing seeds it."""
    args = loader.args
    if not args["shuffle"].may(is_truthy):
        return None
    if _replaces_shuffling(args["sampler"]) or _replaces_shuffling(args["batch_sampler"]):
        return None
    if _iterable_dataset(facts, loader):
        return None
    return unseeded_generator(facts.resolver, loader.argument("generator"), loader.scope)


def _replaces_shuffling(value: Value) -> bool:
    """A sampler that is an object on every path (PyTorch then rejects ``shuffle=True``)."""
    if value.unknowable:
        return True
    return not value.may(lambda option: option is not OBJECT and not is_truthy(option))


def _generator(
    facts: ModuleFacts, scope: Scope, at: tuple[int, int], options: FixOptions
) -> tuple[str, Seed]:
    """The generator expression the fix writes (the title names it), and its seed."""
    torch, _ = Names(facts).module("torch", scope, at, set())
    seed = choose_seed(facts, at, scope, options, new_constant=True)
    return f"{torch}.Generator().manual_seed({seed.text(torch)})", seed


def _iterable_dataset(facts: ModuleFacts, loader: LoaderCall) -> bool:
    """The dataset is, on every path, an instance of an IterableDataset class of this module."""
    if loader.dataset is None:
        return False
    classes = facts.instance_classes(loader.dataset, loader.scope)
    return bool(classes) and all(
        facts.resolver.is_subclass(c, ITERABLE_DATASETS) for c in classes or ()
    )


ITERABLE_DATASETS = frozenset({"torch.utils.data.IterableDataset"})


ACCELERATE_PREPARE = frozenset(
    {"accelerate.data_loader.prepare_data_loader", "accelerate.utils.prepare_data_loader"}
)
ACCELERATOR = frozenset({"accelerate.Accelerator", "accelerate.accelerator.Accelerator"})
DATALOADER_CONFIGURATION = frozenset(
    {
        "accelerate.DataLoaderConfiguration",
        "accelerate.utils.DataLoaderConfiguration",
        "accelerate.utils.dataclasses.DataLoaderConfiguration",
    }
)


def reseeded_by_accelerate(facts: ModuleFacts, loader: LoaderCall) -> bool:
    """The loader is handed, in the same function, to Hugging Face accelerate with
    ``use_seedable_sampler=True``, which replaces its RandomSampler by a
    ``SeedableRandomSampler`` seeded from the run's seed and the epoch."""
    if not facts.resolver.imports_module("accelerate"):
        return False
    names = {
        name
        for name, bindings in loader.scope.bindings.items()
        for binding in bindings
        if binding.kind == "assign" and binding.value is loader.call
    }
    if not names:
        return False
    scope = loader.scope
    for call in facts.calls_by_scope.get(id(scope), ()):
        if not any(
            isinstance(arg, ast.Name) and arg.id in names
            for arg in [*call.args, *(k.value for k in call.keywords)]
        ):
            continue
        if facts.resolver.qualnames(call.func, scope) & ACCELERATE_PREPARE and facts.keyword_true(
            call, "use_seedable_sampler", scope
        ):
            return True
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "prepare":
            accelerator = facts.call_to(func.value, scope, ACCELERATOR)
            if accelerator is None:
                continue
            for keyword in accelerator.keywords:
                if keyword.arg == "dataloader_config":
                    config = facts.call_to(keyword.value, scope, DATALOADER_CONFIGURATION)
                    if config and facts.keyword_true(config, "use_seedable_sampler", scope):
                        return True
    return False
