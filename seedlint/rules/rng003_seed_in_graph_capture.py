"""RNG003: seeding inside a CUDA graph capture region."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
from seedlint.analysis.names import lookup
from seedlint.analysis.regions import GRAPH_CONTEXTS, Region, region_calls
from seedlint.analysis.seeding import DEVICE_SEEDING, Seeding
from seedlint.core import Applicability, FixAvailability
from seedlint.fixes.locate import end, start
from seedlint.prefilter.scan import code_only, may_mean
from seedlint.prefilter.words import WordGroups
from seedlint.project.loaders import project_index
from seedlint.rules.base import FixInfo, Invalid, Rule, Valid, Violation

if TYPE_CHECKING:
    from seedlint.fixes.context import Change, FixContext
    from seedlint.fixes.options import FixOptions


@dataclass(frozen=True)
class SeedInGraphCaptureViolation(Violation):
    node: ast.Call  # the seeding call
    region: Region  # the capture region it sits in
    text: str  # what is wrong

    @property
    def message(self) -> str:
        return self.text


class SeedInGraphCapture(Rule):
    code = "RNG003"
    name = "seed-in-graph-capture"
    summary = "Seeding inside a CUDA graph capture region"
    fix_availability = FixAvailability.SOMETIMES
    fix_always_unsafe = True
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
another such function) is reported at that call. So is a call to a function of another module
of the project (found from its root, through imports, re-exports and helpers calling helpers,
at any depth the project index resolves) that seeds torch or CUDA outside scoped code (state
saved and restored): the message names the seeding line,
`` `seed_everything()` seeds the GPU during capture (`utils/seeding.py:10`) ``. A helper that
seeds only `random` or `np.random` is not reported: no device generator is touched. A method
that is merely named `seed` on an unrelated object is not reported.

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

To restart the random stream for a replay, reseed between replays, outside capture:
`torch.manual_seed(0); g.replay()`.

## Fix safety
When the seeding call is a plain expression statement directly in the region's body (a `with`
block, or the statements between `capture_begin()` and `capture_end()`) and none of its names is
bound inside the region (the `with` statement's own `as` target included), the fix moves the
statement, with its comments, to just before the `with` statement (or the `capture_begin()`
call); a block left empty gets `pass`. The seeding then runs once before capture, where it takes
effect, instead of failing (or doing nothing) during capture.

Moving code changes when it runs, so the fix is **unsafe** and is applied only with
`--unsafe-fixes`. Seeding calls reached through a function, nested in another statement, in a
`make_graphed_callables` callable, or using names bound in the region get no fix.

## Options
- `capture-contexts`: more capture context managers, as qualified names
  (`mylib.capture`) or method names (`record_graph`); `capture_scope` is built in.
- `seed-functions`: more helpers that seed everything.

## References
- PyTorch, CUDA semantics notes, "CUDA Graphs" (constraints, `register_generator_state`).
- PyTorch source, `aten/src/ATen/cuda/CUDAGeneratorImpl.cpp` (`set_current_seed`),
  `torch/cuda/graphs.py` (`graph`, `make_graphed_callables`), pytorch/pytorch#162505.
"""

    valid = (
        Valid(
            "import torch\n\n\ndef capture(model, static_input):\n"
            "    g = torch.cuda.CUDAGraph()\n    torch.manual_seed(0)\n"
            "    with torch.cuda.graph(g):\n        out = model(static_input)\n"
            "    return g, out\n"
        ),
    )
    invalid = (
        Invalid(
            "import torch\n\n\ndef capture(model, static_input):\n"
            "    g = torch.cuda.CUDAGraph()\n    with torch.cuda.graph(g):\n"
            "        torch.manual_seed(0)\n        out = model(static_input)\n"
            "    return g, out\n",
            fixed="import torch\n\n\ndef capture(model, static_input):\n"
            "    g = torch.cuda.CUDAGraph()\n    torch.manual_seed(0)\n"
            "    with torch.cuda.graph(g):\n        out = model(static_input)\n"
            "    return g, out\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\n\ng = torch.cuda.CUDAGraph()\ng.capture_begin()\n"
            "torch.cuda.manual_seed_all(0)\ng.capture_end()\n",
            fixed="import torch\n\ng = torch.cuda.CUDAGraph()\ntorch.cuda.manual_seed_all(0)\n"
            "g.capture_begin()\ng.capture_end()\n",
            unsafe=True,
        ),
    )

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        # A region needs `graph` (`torch.cuda.graph`, `make_graphed_callables`), a
        # `capture_begin()` or a configured context manager; seeding needs a `seed` function,
        # a `Generator` or a seeding helper. `may_fire` then looks closer.
        regions = {"graph", "capture_begin"}
        regions.update(c.rsplit(".", 1)[-1] for c in options.all_capture_contexts)
        seeding = ("seed", "Generator", *_helper_names(options))
        return (seeding, tuple(sorted(regions)))

    def may_fire(self, raw: bytes, options: AnalysisOptions) -> bool:
        # `graph(` is everywhere in torch.fx code: a region needs `torch.cuda.graph` (or
        # `torch.xpu.graph`) itself, `capture_begin()`, `make_graphed_callables` or a
        # configured context manager.
        words = {"capture_begin", "graphed_callables"}
        words.update(c.rsplit(".", 1)[-1] for c in options.all_capture_contexts)
        encoded = [word.encode() for word in words]

        def region(text: bytes) -> bool:
            return any(word in text for word in encoded) or may_mean(text, GRAPH_CONTEXTS)

        # Then again without the strings and comments (a region in a docstring is no code):
        # only for the few files the bytes let through.
        return region(raw) and region(code_only(raw))

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        reported: set[int] = set()
        elsewhere: Optional[dict[tuple[int, int], tuple[str, int]]] = None
        for region in facts.capture_regions:
            for call in region_calls(region.body):
                if id(call) in reported:
                    continue
                message = self._message(facts, call, region)
                if message is None:
                    if elsewhere is None:  # the project's answer, asked once per module
                        elsewhere = _seeding_elsewhere(facts)
                    site = elsewhere.get((call.lineno, call.col_offset))
                    if site is not None:
                        message = _elsewhere_message(call, *site)
                if message is not None:
                    reported.add(id(call))
                    yield SeedInGraphCaptureViolation(call, region, message)

    def fix_info(
        self, facts: ModuleFacts, violation: Violation, options: FixOptions
    ) -> Optional[FixInfo]:
        # Moving code changes when it runs: unsafe.
        if _movable(facts, violation) is None:
            return None
        return FixInfo(Applicability.UNSAFE, FIX_MESSAGE)

    def fix(self, ctx: FixContext, violation: Violation) -> Optional[Change]:
        import libcst as cst

        from seedlint.fixes.context import Change

        found = _movable(ctx.facts, violation)
        if found is None:
            return None
        statement, anchor = found
        target = ctx.statement(anchor)
        small = ctx.node(statement, cst.BaseSmallStatement)
        container = ctx.container(small) if small is not None else None
        if target is None or not isinstance(small, cst.BaseSmallStatement):
            return None
        change = Change()
        if isinstance(container, cst.SimpleStatementLine) and len(container.body) == 1:
            change.remove(container)
            moved = container
        elif isinstance(container, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            rest = [s for s in container.body if s is not small]
            if rest:
                rest[-1] = rest[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            elif isinstance(container, cst.SimpleStatementSuite):
                rest = [cst.Pass()]
            change.replace(container, container.with_changes(body=rest))
            alone = small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            moved = cst.SimpleStatementLine([alone])
        else:
            return None
        change.insert_before(target, [moved])
        return change

    def _message(self, facts: ModuleFacts, call: ast.Call, region: Region) -> str | None:
        # One sentence; the why (PyTorch's errors, per version) is on the rule's page.
        seed = facts.seed_call_by_node.get(id(call))
        where = f"inside {region.label}"
        if seed is not None and seed.kind in DEVICE_SEEDING:
            if seed.kind in (Seeding.RESEED, Seeding.GENERATOR_SEED):
                return f"Random reseeding {where}: PyTorch raises during capture"
            if seed.kind is Seeding.NEW_DEVICE_GENERATOR:
                return f"A device `torch.Generator` is created {where}: PyTorch raises"
            return f"Seeding {where}: may raise at capture, never replayed"
        function = facts.local_function(call)
        if function is not None and id(function) in facts.seeding_functions:
            return f"`{function.name}()` seeds a device generator {where}: may raise at capture"
        return None


def _seeding_elsewhere(facts: ModuleFacts) -> dict[tuple[int, int], tuple[str, int]]:
    """The calls of the module's capture regions that reach device seeding in another module of
    the project, by position: (the seeding call's path, its row)."""
    index = project_index(facts)
    path = facts.path or "<module>"
    return {
        (row, col): (where, seed_row) for row, col, where, seed_row in index.captured_seeding(path)
    }


def _elsewhere_message(call: ast.Call, path: str, row: int) -> str:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "the call")
    where = f" (`{path}:{row}`)" if path else ""
    return f"`{name}()` seeds the GPU during capture{where}: may raise, never replayed"


FIX_MESSAGE = "Move the seeding to just before the capture region"


def _movable(facts: ModuleFacts, violation: Violation) -> Optional[tuple[ast.Expr, ast.stmt]]:
    """(the seeding statement, the statement to put it before) when the seeding call is a plain
    expression statement directly in a ``with`` region's body or between ``capture_begin()``
    and ``capture_end()``, and no name in it is bound inside the region."""
    if not isinstance(violation, SeedInGraphCaptureViolation):
        return None
    region, anchor = violation.region, violation.region.anchor
    if not isinstance(anchor, (ast.With, ast.AsyncWith, ast.Expr)) or not region.body:
        return None
    statement = next(
        (s for s in region.body if isinstance(s, ast.Expr) and s.value is violation.node), None
    )
    scope = facts.call_scopes.get(id(violation.node))
    if statement is None or scope is None:
        return None
    first = start(anchor)
    last = end(anchor if not isinstance(anchor, ast.Expr) else region.body[-1])
    for node in ast.walk(violation.node):
        if isinstance(node, ast.Name):
            for binding in lookup(node.id, scope) or ():
                if first <= start(binding.node) <= last:
                    return None
    return statement, anchor


def _helper_names(options: AnalysisOptions) -> tuple[str, ...]:
    return tuple(sorted({name.rsplit(".", 1)[-1] for name in options.all_seed_functions}))
