"""RNG002: a DataLoader with workers and no ``worker_init_fn`` (the rule users asked for)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Optional

from seedlint.analysis.facts import AnalysisOptions, LoaderCall, ModuleFacts
from seedlint.analysis.values import VALUES_DOC, is_none_or_absent
from seedlint.analysis.workers import (
    FrameworkSeeding,
    copied_by,
    framework_seeding,
    handed_to_lightning,
    installs_worker_seeding,
    lacks_init_fn,
    may_have_workers,
    reusable_function,
    uses_framework,
    worker_seeding_sites,
    workers_origin,
)
from seedlint.core import Applicability, FixAvailability, Origin
from seedlint.fixes.imports import Names
from seedlint.fixes.locate import loader_argument_fix, refusal, start, top_statement
from seedlint.fixes.seeds import Seed, choose_seed, unseeded_script
from seedlint.prefilter.words import WordGroups, loader_in_code, loader_words
from seedlint.project.loaders import ProjectLoaders
from seedlint.project.summary import builder_parameters, module_keys
from seedlint.rules.base import FixInfo, Invalid, Rule, Valid, Violation

if TYPE_CHECKING:
    from seedlint.fixes.context import Change, FixContext
    from seedlint.fixes.options import FixOptions

PREFIX = "DataLoader with workers and no `worker_init_fn`"
MESSAGE = (
    "DataLoader with workers and no `worker_init_fn`: only `random`, `torch` and `np.random` "
    "are reseeded"
)


@dataclass(frozen=True)
class WorkersWithoutInitFnViolation(Violation):
    node: ast.Call
    no_fix: Optional[str] = None  # why no fix is offered, when that is known from the code
    caller: Optional[str] = None  # the project's call that gives the loader workers
    origin: Optional[Origin] = None  # where the hazardous value comes from, when not at the call
    framework: Optional[str] = None  # its seeder is called without asking for worker seeding
    seeder_at: Optional[str] = None  # where, when in another module: `train.py:9`

    @property
    def message(self) -> str:
        if self.framework is not None:
            message = (
                f"DataLoader with workers and no `worker_init_fn`: {self.framework} seeds workers "
                "only with `workers=True`"
            )
            if not self.seeder_at:
                return message
            # The seeder of another module that lacks it: `train.py:9`, or its file name alone
            for where in (self.seeder_at, self.seeder_at.rsplit("/", 1)[-1]):
                text = f"{PREFIX}: no `workers=True` at `{where}`"
                if len(text) <= 100:
                    return text
            return message
        origin = str(self.origin) if self.origin is not None else None
        for parts in ((self.caller, origin, self.no_fix), (self.caller, self.no_fix)):
            shown = [part for part in parts if part]
            if not shown:
                return MESSAGE
            message = f"DataLoader with workers and no `worker_init_fn` ({'; '.join(shown)})"
            if len(message) <= 100 or not self.origin:
                return message
        return message


class WorkersWithoutInitFn(Rule):
    code = "RNG002"
    name = "dataloader-workers-without-init-fn"
    project_loaders = True
    summary = "DataLoader with workers and no worker_init_fn"
    fix_availability = FixAvailability.SOMETIMES
    doc = (
        """
## What it does
Checks for a torch `DataLoader` (or a subclass, or a class listed in `dataloader-classes`) whose
`num_workers` may be non-zero and that has no `worker_init_fn` (absent, or `None`), whatever its
dataset holds. This is the PyTorch reproducibility recipe: pass `worker_init_fn=seed_worker`
together with `generator=g`.

`num_workers` counts when it is a non-zero value, or an expression that may be non-zero
(`args.workers` with no visible default, `os.cpu_count()`). It does not count when it is absent
or `0`, or certainly no greater than 0 (`min(os.cpu_count(), args.workers)` with `--workers`
defaulting to 0: PyTorch raises for a negative count).

"""
        + VALUES_DOC
        + """

Loader classes are found as RNG001 finds them: in a variable (a conditional expression,
`functools.partial(DataLoader, ...)`), a DataLoader subclass of another module of the project
whatever its name, and under the names the project re-exports it as (its own `__init__` binds
the positions), `DataLoader` or `torch` through a star import of a project module, or
`DataLoader` re-exported by one. A builder whose `num_workers` (or `worker_init_fn`) is one of
its parameters, or reaches the loader through its unchanged `**kwargs` (no fix there), is
reported when a call of it in the project gives the loader workers and no
`worker_init_fn`; the message names that call: `(num_workers=4 from `train.py:12`)`. Its
defaults count as for RNG001: where a call leaves the parameter out, or where the builder's
calls are not all seen in its own module (nothing in the project calls it, a call from another
module, a callback); `workers=4, init_fn=None` that every call of the module replaces
(`init_fn=seed_worker`, or `workers=0`) is no finding. A parameter without a default and no
caller found: no finding.

Never reported where something else already seeds the workers (the library table,
`seedlint/analysis/libraries.py`, which cites each library's source): a loader class that installs
its own `worker_init_fn` when none is passed (MONAI's `DataLoader`, or a class listed in
`worker-seeding-loaders`), and a loader Lightning seeds. Lightning's Trainer and Fabric install
`pl_worker_init_function` (which also mixes in the rank) in every loader they take whose
`worker_init_fn` is None, and only while `PL_SEED_WORKERS` is 1 (Lightning 2.6.6,
`lightning/fabric/utilities/data.py`, `_auto_add_worker_init_fn`). `seed_everything(seed,
workers=True)` sets it to 1, and `seed_everything` without `workers=True` sets it to 0
(`lightning/fabric/utilities/seed.py`); `Fabric.seed_everything` asks for it unless
`workers=False` (`lightning/fabric/fabric.py`); `LightningCLI` calls `seed_everything(seed,
workers=True)` unless `seed_everything_default` (or the configuration's `seed_everything`) is
False (`lightning/pytorch/cli.py`, `_set_seed`).

That is decided per program. A module that asks for it itself (`seed_everything(...,
workers=True)`; where it imports Lightning, `fabric.seed_everything(...)`, a `LightningCLI`, or
`PL_SEED_WORKERS` set in code) has none of its loaders reported. In a module that imports
Lightning, a loader is not reported when a program of the project reaching it asks for it (an
entry point that calls the function building the loader, or builds its class or a subclass: the
Trainer calls a DataModule's hooks on the object), nor when no program of the project reaches
it (a library's DataModule, a class only a configuration names: what only code outside the
project supplies is no finding). Where the programs reaching it call `seed_everything` without
`workers=True` (or its module calls it so itself), it is reported, and the message says that
Lightning seeds the workers only with `workers=True`, or names that call when it is in another
module: ``no `workers=True` at `train.py:9` ``. Where they never ask Lightning to seed the
workers, Lightning installs nothing, and the loader is reported like any other. A loader of a
module that does not import Lightning is judged from its own module. PyG's loaders
(`DataLoader`, `DataListLoader`, `DenseDataLoader`, also under their deprecated
`torch_geometric.data.` names, `NeighborLoader` and the like) and torchdata's
`StatefulDataLoader` are checked as DataLoaders; litdata's `StreamingDataLoader` is not (its
dataset seeds its order).

## Why is this bad?
It is often harmless, and the message says no more than is true: since PyTorch 1.9 every worker
already seeds `random`, `torch` and the legacy `np.random` from the loader's
`base_seed + worker_id`, differently per worker and per epoch, and reproducibly once the run is
seeded (`torch/utils/data/_utils/worker.py`, `_worker_loop`).

Everything else is not reseeded: RNG objects the dataset or its transforms carry into the worker
(`np.random.default_rng()`, `random.Random`, `torch.Generator` made before the workers start are
copied with their state, so every worker draws the same numbers: RNG005 reports those it can
see), other libraries' own generators, and per-rank differences when every rank seeds alike. A
`worker_init_fn` is where all of that is reseeded, and it makes the per-worker seeding explicit,
as the PyTorch notes recommend.

## Fix safety
No fix where the loader already passes `worker_init_fn` as anything but the literal `None` that
may be None on some path: a name, a parameter, an attribute or a call (`worker_init_fn=init_fn`,
a parameter whose default is None) is the program's value on its other paths (what a caller
passes), which a fix would replace.

The fix passes `worker_init_fn=seed_worker` to the loader (in place of an explicit
`worker_init_fn=None`, else as a keyword after the existing arguments, in the call's layout,
split one argument per line past the project's line length) and defines this function once per
module, after the imports that precede the loader's statement:

```python
def seed_worker(worker_id):
    \"\"\"Seed this DataLoader worker's random streams (added by seedlint).\"\"\"
    worker_seed = torch.initial_seed() % 2**32
    random.seed(worker_seed)
    numpy.random.seed(worker_seed)
```

Where the loader has no `generator` and the program names a seed there (`args.seed`, a
`seed` parameter, `self.seed`, an earlier `torch.manual_seed(X)`), the fix also passes
`generator=torch.Generator().manual_seed(SEED)`, the recipe's other half: the generator draws the
workers' base seed (and the order of a shuffling loader), so the workers follow the program's seed
whatever else draws from the global generator before the loader is iterated. With no seed in
reach it passes no generator: `torch.initial_seed()` would give what the global generator already
gives, and a literal would be a seed the program never chose. But in a script that seeds nothing
at all, the global generator is itself unseeded, so a `worker_init_fn` alone would leave every
worker's seed random: there the fix passes a generator seeded from the `fix-seed` literal where
the script's entry point makes the loader, else from a `SEED = <fix-seed>` constant it adds where
the program starts (an **unsafe** fix, and its title says so); where it can do neither (the loader
takes no `generator=`), there is no fix, the finding stays, and its message says why (`no fix:
takes no `generator`, nothing seeded`).

In a module that uses Lightning and calls `seed_everything` without `workers=`, the fix passes
`workers=True` to that call instead (Lightning's own worker seeding, never replaced by a
`worker_init_fn`); an explicit `workers=False` is the user's choice: no fix. When that call is in
another module, there is no fix (a fix edits the module it reports in): the message names the
call to change.

It is the PyTorch reproducibility notes' `seed_worker` (in a worker, `torch.initial_seed()` is
the loader's `base_seed + worker_id`; numpy needs it reduced to 32 bits). Where the module's
datasets hold RNG objects (RNG005), the function also reseeds them from
`torch.utils.data.get_worker_info().dataset`. The numpy line appears only where the module
imports numpy. `torch`, `random` and `numpy` are written under the module's own names for them
(`np`), imported when missing, and imported under a free name (`random_`) when the name means
something else. It is a module-level function, not a lambda or a nested function, so that it
pickles under the `spawn` start method. An existing module-level `seed_worker` (or
`worker_init_fn`) that seeds is reused; when `seed_worker` means something else, the new function
gets a free name (`seed_worker_`).

The fix only adds seeding, so it is **safe**; it is **unsafe** for a loader class of this module
with an `__init__` of its own, which may not accept `worker_init_fn`. Reseeding `random` and
`np.random` from the same value PyTorch derives changes the numpy stream the workers draw (PyTorch
seeds it from a 128-bit state), which is harmless but not bit-identical to before. RNG objects held
elsewhere (in other libraries) still need your own `worker_init_fn`. There is no fix when
`worker_init_fn` may come from `*args` or a `**kwargs` dict, nor for a loader class of this module
whose `__init__` takes neither `worker_init_fn` nor `**kwargs` (it would raise TypeError): the
message then says so. The same holds for a loader class of another module of the project (safe
for a `*args, **kwargs` pass-through, unsafe for a signature of its own). When a builder takes
`worker_init_fn` as a parameter itself, its caller should pass one: no fix at the loader.

## Options
- `dataloader-classes`: more loader classes (qualified names) to check.
- `worker-seeding-loaders`: loader classes that install their own `worker_init_fn`.

## References
- PyTorch, Reproducibility notes, "DataLoader" (`seed_worker`, `worker_init_fn`, `generator`).
- PyTorch, `torch.utils.data` documentation, "Randomness in multi-process data loading".
- PyTorch source, `torch/utils/data/_utils/worker.py` (`_worker_loop` seeding); numpy seeding in
  workers since PyTorch 1.9 (pytorch/pytorch#56488).
- Lightning 2.6.6, `lightning_fabric/utilities/seed.py` (`seed_everything`, `workers`,
  `pl_worker_init_function`), `lightning_fabric/utilities/data.py` (`_auto_add_worker_init_fn`),
  `lightning/fabric/fabric.py` (`Fabric.seed_everything`), `lightning/pytorch/cli.py`
  (`LightningCLI._set_seed`) and `lightning/pytorch/trainer/connectors/data_connector.py`;
  MONAI, `monai/data/dataloader.py` (its `worker_init_fn` default).
"""
    )

    valid = (
        Valid(
            "import random\n\nimport numpy as np\nimport torch\n"
            "from torch.utils.data import DataLoader\n\n\n"
            "def seed_worker(worker_id):\n"
            "    worker_seed = torch.initial_seed() % 2**32\n"
            "    np.random.seed(worker_seed)\n"
            "    random.seed(worker_seed)\n\n\n"
            "loader = DataLoader(range(8), num_workers=4, worker_init_fn=seed_worker)\n"
        ),
        Valid("from torch.utils.data import DataLoader\n\nloader = DataLoader(range(8))\n"),
    )
    invalid = (
        Invalid(
            "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader\n\n"
            "loader = DataLoader(range(8), batch_size=2, num_workers=4)\n",
            fixed="import random\n\n"
            "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader\n\n\n"
            "def seed_worker(worker_id):\n"
            '    """Seed this DataLoader worker\'s random streams (added by seedlint)."""\n'
            "    worker_seed = torch.initial_seed() % 2**32\n"
            "    random.seed(worker_seed)\n"
            "    np.random.seed(worker_seed)\n\n\n"
            "loader = DataLoader(range(8), batch_size=2, num_workers=4, "
            "worker_init_fn=seed_worker)\n",
        ),
    )

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        return (loader_words(options),)

    def may_fire(self, raw: bytes, options: AnalysisOptions) -> bool:
        # A loader class named only in docstrings and comments is never called.
        return loader_in_code(raw, options)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        project = ProjectLoaders.of(facts)
        loaders = [*facts.dataloader_calls, *project.loader_calls()]
        if not loaders:
            return
        if any(site.on for site in worker_seeding_sites(facts)):
            return  # the framework installs its worker seeding in the loaders it is given
        seeding = framework_seeding(facts)
        framework = uses_framework(facts, seeding)
        verdicts = dict(project.index.worker_seeding(facts.path or "<module>"))
        keys = module_keys(facts)
        for loader in loaders:
            if installs_worker_seeding(facts, loader):
                continue  # the loader class installs its own worker_init_fn
            owner = facts.enclosing_function(loader.scope)
            verdict = verdicts.get("" if isinstance(owner, ast.Module) else keys.get(id(owner), ""))
            if verdict == "on":
                continue  # a program reaching it asks Lightning to seed the workers
            off = verdict or ""
            if not (seeding or off) and (framework or handed_to_lightning(facts, loader)):
                continue  # no program of the project reaches it: Lightning's option decides
            # A builder's defaults count where one of its calls leaves the parameter out (when
            # every call is seen; else they count).
            if _unseeded_workers(loader) and any(map(_unseeded_workers, project.as_called(loader))):
                if seeding or off.startswith("off:"):
                    seeder_at = None if seeding else off[len("off:") :]
                    yield WorkersWithoutInitFnViolation(
                        loader.call, framework=framework or "Lightning", seeder_at=seeder_at
                    )
                    continue
                reason = refusal(facts, loader, "worker_init_fn") or _seedless(facts, loader)
                origin = workers_origin(loader)
                yield WorkersWithoutInitFnViolation(loader.call, reason, origin=origin)
                continue
            for binding in project.bindings(loader):  # a builder: its callers decide
                bound = replace(loader, args={**loader.args, **binding.values})
                if not (may_have_workers(bound) and lacks_init_fn(bound)):
                    continue
                no_fix = refusal(facts, loader, "worker_init_fn")
                caller = binding.describe("num_workers", "worker_init_fn")
                yield WorkersWithoutInitFnViolation(loader.call, no_fix, caller)
                break

    def fix_info(
        self, facts: ModuleFacts, violation: Violation, options: FixOptions
    ) -> Optional[FixInfo]:
        loader = ProjectLoaders.of(facts).find(violation.node)
        if loader is None:
            return None
        if isinstance(violation, WorkersWithoutInitFnViolation) and violation.framework:
            seeders = _framework_fixable(facts)
            if not seeders or violation.seeder_at:
                # `workers=` is the user's choice: never replaced; a seeder of another module
                # is not this module's to edit (a fix changes one file)
                return None
            return FixInfo(
                Applicability.SAFE,
                f"Pass `workers=True` to `{_callee(seeders[0].call)}`: {violation.framework} "
                "then seeds each worker (with the rank mixed in)",
            )
        if (
            isinstance(violation, WorkersWithoutInitFnViolation)
            and violation.caller is not None
            and "worker_init_fn" in builder_parameters(facts, loader)
        ):
            return None  # the builder's caller passes the function: the fix belongs there
        applicability = loader_argument_fix(facts, violation.node, "worker_init_fn", loader)
        top = top_statement(facts.tree, violation.node)
        if applicability is None or loader is None or top is None:
            return None
        random_workers, seed = _generator_seed(facts, loader, options)
        if random_workers and seed is None:
            return None  # a worker_init_fn alone: every worker's seed would stay random
        also = ""
        if seed is not None:
            at = start(loader.call)
            torch, _ = Names(facts).module("torch", loader.scope, at, set())
            also = f", with `generator={torch}.Generator().manual_seed({seed.text(torch)})`"
            if seed.constant is not None:
                applicability = Applicability.UNSAFE
                also += f" and add `{seed.constant}` where the program starts (it seeds nothing)"
        existing = reusable_function(facts, loader, copied_by(facts, loader), top)
        if existing is not None:
            return FixInfo(applicability, f"Pass `worker_init_fn={existing.name}`{also}")
        name = Names(facts).free("seed_worker", loader.scope)
        streams = ["`random`"]
        if facts.resolver.imports_module("numpy"):
            streams.append("`numpy`")
        if facts.copied_rngs:
            streams.append("the dataset's RNG objects")
        described = streams[0] if len(streams) == 1 else ", ".join(streams[:-1])
        if len(streams) > 1:
            described += f" and {streams[-1]}"
        return FixInfo(
            applicability,
            f"Pass `worker_init_fn={name}`, a new module-level function that reseeds each "
            f"worker's {described}{also}",
        )

    def fix(self, ctx: FixContext, violation: Violation) -> Optional[Change]:
        from seedlint.fixes.calls import set_call_argument
        from seedlint.fixes.context import Change
        from seedlint.fixes.workers import add_seed_worker

        loader = ProjectLoaders.of(ctx.facts).find(violation.node)
        if loader is None:
            return None
        change = Change()
        if isinstance(violation, WorkersWithoutInitFnViolation) and violation.framework:
            seeders = _framework_fixable(ctx.facts)
            if not seeders or violation.seeder_at:
                return None
            for seeding in seeders:
                if not set_call_argument(ctx, change, seeding.call, "workers", "True"):
                    return None
            return change
        random_workers, seed = _generator_seed(ctx.facts, loader, ctx.options)
        if random_workers and seed is None:
            return None
        seeded = seed is not None
        if not add_seed_worker(ctx, change, loader, copied_by(ctx.facts, loader), seeded):
            return None
        return change


def _seedless(facts: ModuleFacts, loader: LoaderCall) -> Optional[str]:
    """Why no fix, where the loader takes no ``generator=`` in a script that seeds nothing: a
    ``worker_init_fn`` alone would leave every worker's seed random (see ``_generator_seed``)."""
    if not unseeded_script(facts) or loader.argument("generator") is not None:
        return None
    if refusal(facts, loader, "generator") is None:
        return None
    return "no fix: takes no `generator`, nothing seeded"


def _framework_fixable(facts: ModuleFacts) -> list[FrameworkSeeding]:
    """The framework seeders of the module a fix may pass ``workers=True`` to: none when one
    passes ``workers`` already (a value the user chose is never replaced)."""
    seeding = framework_seeding(facts)
    for found in seeding:
        if len(found.call.args) > 1 or any(
            k.arg in (found.seeder.workers, None) for k in found.call.keywords
        ):
            return []
    return seeding


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "the seeder")


def _generator_seed(
    facts: ModuleFacts, loader: LoaderCall, options: FixOptions
) -> tuple[bool, Optional[Seed]]:
    """(whether the workers' base seed stays random unless the fix passes a generator, the seed
    of the ``generator=`` the fix adds beside the ``worker_init_fn``: it decides the workers'
    base seed). A generator is added where the loader has none and the program names a seed
    there; in a script that seeds nothing at all (the global generator is unseeded: the base
    seed is random), from the ``fix-seed`` literal where one may go, else from a new ``SEED``
    constant. No seed otherwise (``torch.initial_seed()`` would add nothing the global
    generator does not already give)."""
    if not loader.args["generator"].known_may(is_none_or_absent):
        return False, None
    passed = loader.argument("generator")
    explicit_none = isinstance(passed, ast.Constant) and passed.value is None
    if (passed is not None and not explicit_none) or "generator" in builder_parameters(
        facts, loader
    ):
        return False, None
    unseeded = unseeded_script(facts)
    if loader_argument_fix(facts, loader.call, "generator", loader) is None:
        return unseeded, None
    at = start(loader.call)
    seed = choose_seed(facts, at, loader.scope, options, new_constant=unseeded)
    if unseeded:
        return True, None if seed.origin == "initial_seed" else seed
    return False, seed if seed.origin == "program" else None


def _unseeded_workers(loader: LoaderCall) -> bool:
    return may_have_workers(loader) and lacks_init_fn(loader)
