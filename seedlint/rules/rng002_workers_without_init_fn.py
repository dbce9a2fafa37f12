"""RNG002: DataLoader workers that start with copies of a dataset's RNG objects."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from seedlint.analysis.facts import AnalysisOptions, CopiedRng, LoaderCall, ModuleFacts
from seedlint.analysis.values import ABSENT, is_none_or_absent
from seedlint.rules.base import Rule, Violation
from seedlint.rules.rng001_shuffle_without_generator import loader_triggers


class WorkersWithoutInitFn(Rule):
    code = "RNG002"
    name = "dataloader-workers-without-init-fn"
    summary = "DataLoader workers duplicate an RNG object that PyTorch does not reseed"
    fix_availability = "always"
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

## Example
```python
class NoisyDataset(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng()

    def __getitem__(self, index):
        return self.rng.normal()


loader = DataLoader(NoisyDataset(), num_workers=4)
```

Use instead:
```python
def seed_worker(worker_id):
    info = torch.utils.data.get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed % 2**32)


loader = DataLoader(NoisyDataset(), num_workers=4, worker_init_fn=seed_worker)
```

Derive the worker's seed from `torch.utils.data.get_worker_info().seed` (or
`torch.initial_seed()` in the worker): it differs per worker and per epoch and follows the run's
seed. numpy needs it reduced to 32 bits (`% 2**32`).

## Fix safety
The fix adds `worker_init_fn=seed_worker` to the call and defines `seed_worker` once at module
level (a module-level function, so that it pickles under the `spawn` start method). It follows the
PyTorch reproducibility notes (`worker_seed = torch.initial_seed() % 2**32`, then `random` and,
where numpy is imported, `numpy.random`), and also reseeds every `random.Random`,
`numpy.random.RandomState`/`Generator` and `torch.Generator` the worker's copy of the dataset
holds. An existing module-level `seed_worker` that already does this is reused; a free name is
picked if `seed_worker` means something else. The fix only adds seeding, so it is safe; it changes
which numbers the workers draw, which is its purpose. RNG objects held elsewhere (inside
transforms, or in other libraries) still need your own `worker_init_fn`.

## Options
- `dataloader-classes`: more loader classes (qualified names) to check.

## References
- PyTorch, Reproducibility notes, "DataLoader" (`seed_worker`, `worker_init_fn`, `generator`).
- PyTorch, `torch.utils.data` documentation, "Randomness in multi-process data loading".
- PyTorch source, `torch/utils/data/_utils/worker.py` (`_worker_loop` seeding); numpy seeding in
  workers since PyTorch 1.9 (pytorch/pytorch#56488).
"""

    def triggers(self, options: AnalysisOptions) -> tuple[tuple[str, ...], ...]:
        return (loader_triggers(options), ("Random", "rng", "Generator"))

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
                yield Violation(loader.call, _message(copied[0]), context=copied)


def _copied(facts: ModuleFacts, loader: LoaderCall) -> list[CopiedRng]:
    """The copied RNG objects the loader's dataset may hold."""
    call = loader.call
    dataset = call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else None
    for keyword in call.keywords:
        if keyword.arg == "dataset":
            dataset = keyword.value
    if dataset is None:
        return list(facts.copied_rngs)
    classes = facts.instance_classes(dataset, loader.scope)
    if classes is None:  # the dataset may be an instance of any of them
        return list(facts.copied_rngs)
    return [c for meaning in classes for c in facts.holders(meaning)]


def _may_be_nonzero(option: object) -> bool:
    return option is not ABSENT and option is not None and option != 0


def _message(copied: CopiedRng) -> str:
    return (
        f"DataLoader workers start with copies of `{copied.name}` (a `{copied.factory}` "
        f"created in {copied.where}): PyTorch reseeds only `random`, `torch` and `np.random` "
        "in workers, so every worker draws the same numbers from it, again each epoch; "
        "pass a `worker_init_fn` that reseeds it"
    )
