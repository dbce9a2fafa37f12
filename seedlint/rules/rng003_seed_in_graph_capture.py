"""RNG003: seeding inside a CUDA graph capture region."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
from seedlint.analysis.regions import Region, region_calls
from seedlint.analysis.seeding import DEVICE_SEEDING, Seeding
from seedlint.rules.base import Rule, Violation

_RAISES_ALWAYS = (
    "PyTorch raises during capture ('Cannot call CUDAGeneratorImpl::seed during CUDA graph "
    "capture'), since the new seed is random"
)
_RAISES_SEED = (
    "PyTorch raises during capture ('Cannot call CUDAGeneratorImpl::set_current_seed during "
    "CUDA graph capture' up to 2.9; from 2.10 whenever the seed differs from the current one, "
    "else it is a no-op), and a seed set during capture is never replayed"
)
_RAISES_NEW = (
    "PyTorch raises during capture ('Cannot construct a new CUDAGeneratorImpl during CUDA "
    "graph capture')"
)


@dataclass(frozen=True)
class CaptureContext:
    """What a fix needs: the region, and the statement the seeding call is."""

    region: Region
    call: ast.Call


class SeedInGraphCapture(Rule):
    code = "RNG003"
    name = "seed-in-graph-capture"
    summary = "Seeding inside a CUDA graph capture region"
    fix_availability = "sometimes"
    doc = """
## What it does
Checks for a call that seeds a device generator inside a CUDA graph capture region:

- seeding calls: `torch.manual_seed` (also `torch.random.manual_seed`), `torch.cuda.manual_seed`,
  `torch.cuda.manual_seed_all`, `torch.seed`, `torch.cuda.seed`, `torch.cuda.seed_all` (and the
  `torch.xpu` ones), a seeding helper (`seed-functions`), any `.manual_seed(...)` method call,
  `.seed()` on a `torch.Generator`, and `torch.Generator(device="cuda")`;
- regions: the body of `with torch.cuda.graph(...)` (any alias, and `torch.xpu.graph`); the
  statements between `g.capture_begin()` and `g.capture_end()` in one block; the body of a
  function of the same module passed to `torch.cuda.make_graphed_callables` (or the `forward` of
  a module of this file passed to it); and `with X.capture_scope(...)`-style blocks, the context
  managers named in `capture-contexts`.

A call inside a region to a function of the same module whose body seeds (directly or through
another such function) is reported at that call. A method that is merely named `seed` on an
unrelated object is not reported.

## Why is this bad?
During capture, kernels are recorded, not run; host code in the region runs once, at capture,
and never on replay. Each replay reads the generator's *current* seed and offset
(Note [CUDA Graph-safe RNG states] in `ATen/cuda/CUDAGeneratorImpl.h`). So:

- up to PyTorch 2.9, `manual_seed` during capture raises
  `Cannot call CUDAGeneratorImpl::set_current_seed during CUDA graph capture` for any seed;
- from 2.10 (pytorch/pytorch#162505) it raises `CUDAGeneratorImpl::set_current_seed can be called
  during stream capture only if new seed is the same as the original seed.`, and when the seed
  is the same it is a silent no-op that does not rewind the stream;
- `torch.seed()`, `torch.cuda.seed()` and `seed_all()` always raise during capture, and so does
  constructing `torch.Generator(device="cuda")`;
- in every version, a seed set in the region is never replayed: every replay continues the
  generator's stream instead of restarting it.

The same hazard exists in other frameworks' graph capture (burn's capture client panics with
"seeding is not supported during graph capture"), which is why `capture_scope`-style blocks are
checked too.

## Example
```python
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    torch.manual_seed(0)
    out = model(static_input)
```

Use instead:
```python
g = torch.cuda.CUDAGraph()
torch.manual_seed(0)
with torch.cuda.graph(g):
    out = model(static_input)
```

To restart the random stream for a replay, reseed between replays, outside capture:
`torch.manual_seed(0); g.replay()`.

## Fix safety
When the seeding call is a plain statement of the region's own body whose arguments use no name
bound inside the region, the fix moves it to just before the `with` statement (or the
`capture_begin()` call). Moving code changes when it runs, so the fix is **unsafe** and is applied
only with `--unsafe-fixes`. Seeding calls reached through a function, nested deeper, or in a
`make_graphed_callables` callable get no fix.

## Options
- `capture-contexts`: more capture context managers, as qualified names
  (`mylib.capture`) or method names (`record_graph`); `capture_scope` is built in.
- `seed-functions`: more helpers that seed everything.

## References
- PyTorch, CUDA semantics notes, "CUDA Graphs" (constraints, `register_generator_state`).
- PyTorch source, `aten/src/ATen/cuda/CUDAGeneratorImpl.cpp` (`set_current_seed`),
  `torch/cuda/graphs.py` (`graph`, `make_graphed_callables`), pytorch/pytorch#162505.
"""

    def triggers(self, options: AnalysisOptions) -> tuple[tuple[str, ...], ...]:
        # A region needs a call of `graph` (any alias imports the name `graph` first), a
        # `capture_begin()`, a `make_graphed_callables` or a configured context manager.
        regions = {"graph(", "graph (", "graph as", "graph,", "graph\n", "graph\r", "graph)"}
        regions.update(("capture_begin", "graphed_callables"))
        regions.update(c.rsplit(".", 1)[-1] for c in options.all_capture_contexts)
        seeding = ("seed", "Generator(", "Generator as", *_helper_names(options))
        return (tuple(sorted(regions)), seeding)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        reported: set[int] = set()
        for region in facts.capture_regions:
            for call in region_calls(region.body):
                if id(call) in reported:
                    continue
                message = self._message(facts, call, region)
                if message is not None:
                    reported.add(id(call))
                    yield Violation(call, message, context=CaptureContext(region, call))

    def _message(self, facts: ModuleFacts, call: ast.Call, region: Region) -> str | None:
        seed = facts.seed_call_by_node.get(id(call))
        where = f"inside {region.label}"
        if seed is not None and seed.kind in DEVICE_SEEDING:
            if seed.kind in (Seeding.RESEED, Seeding.GENERATOR_SEED):
                return f"Non-deterministic reseeding {where}: {_RAISES_ALWAYS}"
            if seed.kind is Seeding.NEW_DEVICE_GENERATOR:
                return f"A device `torch.Generator` is created {where}: {_RAISES_NEW}"
            return f"Seeding {where}: {_RAISES_SEED}"
        function = facts.local_function(call)
        if function is not None and id(function) in facts.seeding_functions:
            return f"`{function.name}()` seeds a device generator and is called {where}: " + (
                _RAISES_SEED
            )
        return None


def _helper_names(options: AnalysisOptions) -> tuple[str, ...]:
    return tuple(sorted({name.rsplit(".", 1)[-1] for name in options.all_seed_functions}))
