"""RNG001: a shuffling DataLoader with no generator of its own."""

from __future__ import annotations

from collections.abc import Iterator

from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
from seedlint.analysis.values import OBJECT, Value, is_none_or_absent, is_truthy
from seedlint.rules.base import Rule, Violation

MESSAGE = (
    "DataLoader shuffles without a `generator`: its order is drawn from the global torch "
    "generator, so it changes whenever an earlier draw changes (model init, other loaders, "
    "`random_split`), and on every run if that generator is unseeded"
)


class ShuffleWithoutGenerator(Rule):
    code = "RNG001"
    name = "dataloader-shuffle-without-generator"
    summary = "DataLoader shuffles from the global torch generator"
    fix_availability = "always"
    doc = """
## What it does
Checks for a torch `DataLoader` (or a subclass, or a class listed in `dataloader-classes`) whose
`shuffle` may be true and that has no `generator` (absent, or `None`), while no `sampler` or
`batch_sampler` object replaces the shuffling.

`shuffle` counts when it is `True`, or an expression that may be true on some path
(`shuffle=args.shuffle` with no visible default, `shuffle=(sampler is None)`). It does not count
when it is absent, `False`/`None`, or a parameter whose caller decides (no default).

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

## Example
```python
loader = DataLoader(dataset, batch_size=32, shuffle=True)
```

Use instead:
```python
loader = DataLoader(
    dataset, batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(seed)
)
```

A bare `torch.Generator()` is not enough: every fresh generator starts from the same fixed seed
(67280421310721), so it ignores the run's seed.

## Fix safety
The fix adds `generator=torch.Generator().manual_seed(SEED)` as the last argument, where `SEED`
is the seed the program already uses when one is in scope (a `torch.manual_seed(X)` argument, a
variable or parameter named `seed`, `args.seed` when the module's argparse defines `--seed`), or
the `fix-seed` setting (default 0). It adds `import torch` when the name is not bound. The fix
only adds seeding, so it is safe, but it changes which order the loader draws: that is its
purpose, and results or checkpoints made with the old order will not be reproduced bit for bit.

## Options
- `dataloader-classes`: more loader classes (qualified names) to check.
- `fix-seed`: the seed a fix uses when the program names none.

## References
- PyTorch, Reproducibility notes, "DataLoader": pass `generator` (and `worker_init_fn`) to
  preserve reproducibility.
- PyTorch source, `torch/utils/data/sampler.py` (`RandomSampler.__iter__`) and
  `torch/utils/data/dataloader.py` (`_BaseDataLoaderIter.__init__`, the `base_seed` draw).
"""

    def triggers(self, options: AnalysisOptions) -> tuple[tuple[str, ...], ...]:
        return (loader_triggers(options),)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        for loader in facts.dataloader_calls:
            args = loader.args
            if not args["shuffle"].may(is_truthy):
                continue
            if not args["generator"].known_may(is_none_or_absent):
                continue
            if _replaces_shuffling(args["sampler"]) or _replaces_shuffling(args["batch_sampler"]):
                continue
            yield Violation(loader.call, MESSAGE)


def _replaces_shuffling(value: Value) -> bool:
    """A sampler that is an object on every path (PyTorch then rejects ``shuffle=True``)."""
    if value.unknowable:
        return True
    return not value.may(lambda option: option is not OBJECT and not is_truthy(option))


def loader_triggers(options: AnalysisOptions) -> tuple[str, ...]:
    return tuple(sorted({name.rsplit(".", 1)[-1] for name in options.all_dataloader_classes}))
