"""The ``seed_worker`` fix shared by RNG002 and RNG005: pass ``worker_init_fn=seed_worker`` to a
loader and define the function once per module (or reuse one that does the job)."""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from seedlint.analysis.facts import CopiedRng, LoaderCall, ModuleFacts
from seedlint.analysis.workers import reusable_function
from seedlint.fixes.calls import fit_line, set_argument, set_loader_argument
from seedlint.fixes.context import Change, FixContext, parse_expression, parse_statement
from seedlint.fixes.locate import positional_index, start, top_statement

_TEMPLATE_LOCALS = frozenset({"worker_id", "worker_seed", "dataset", "name", "value"})
_REBUILT = frozenset({"numpy.random.default_rng", "numpy.random.Generator"})
_TORCH = frozenset({"torch.Generator"})


def add_seed_worker(
    ctx: FixContext,
    change: Change,
    loader: LoaderCall,
    copied: list[CopiedRng],
    seeded_generator: bool = False,
) -> bool:
    """Record in ``change`` that ``loader`` passes ``worker_init_fn=`` a module-level function
    that reseeds each worker's streams (and ``copied``): an existing one that does, else a new
    ``seed_worker``; with ``seeded_generator``, also ``generator=`` a generator seeded from the
    program's seed (it decides the workers' base seed), or in a script that seeds nothing from
    the ``fix-seed`` literal or a new ``SEED`` constant (False: none can be written here)."""
    top = top_statement(ctx.facts.tree, loader.call)
    if top is None:
        return False
    existing = reusable_function(ctx.facts, loader, copied, top)
    if existing is not None:
        name = existing.name
    else:
        anchor = definition_place(ctx.facts.tree, top)
        target = ctx.statement(anchor)
        if target is None:
            return False
        name = ctx.names.free("seed_worker", loader.scope)
        code = seed_worker_code(ctx, change, name, anchor)
        change.insert_before(target, [parse_statement(code)], key=f"def {name}")
    at = start(loader.call)
    if not seeded_generator:
        return set_loader_argument(ctx, change, loader, "worker_init_fn", name)
    # The program's seed; in a script that seeds nothing, the `fix-seed` literal or a new
    # `SEED` constant (``change`` defines it where the program starts).
    seed = ctx.seed(at, loader.scope, change)
    if seed.origin == "initial_seed":
        return False  # the generator would follow an unseeded global generator: no fix
    torch = ctx.module_name(change, "torch", loader.scope, at)
    generator = f"{torch}.Generator().manual_seed({seed.text(torch)})"
    arguments = (("worker_init_fn", name), ("generator", generator))
    return set_loader_arguments(ctx, change, loader, arguments)


def set_loader_arguments(
    ctx: FixContext, change: Change, loader: LoaderCall, arguments: tuple[tuple[str, str], ...]
) -> bool:
    """Record in ``change`` that the loader call passes each ``name=value`` of ``arguments``
    (one replacement of the call, so that the arguments do not clash)."""
    node = ctx.node(loader.call, cst.Call)
    if not isinstance(node, cst.Call):
        return False
    new = node
    for name, value in arguments:
        new = set_argument(new, name, parse_expression(value), positional_index(loader, name))
    change.replace(node, fit_line(ctx, node, new))
    return True


def definition_place(tree: ast.Module, top: ast.stmt) -> ast.stmt:
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


def seed_worker_code(ctx: FixContext, change: Change, name: str, anchor: ast.stmt) -> str:
    """The ``seed_worker`` function, written with the module's own names for its modules: the
    PyTorch recipe (``random`` and ``numpy`` from ``torch.initial_seed()``), plus, where the
    module's datasets hold RNG objects, the lines that reseed them."""
    facts = ctx.facts
    scope = facts.builder.module_scope
    at = start(anchor)
    torch = ctx.module_name(change, "torch", scope, at)
    rand = ctx.module_name(change, "random", scope, at)
    numpy: Optional[str] = (
        ctx.module_name(change, "numpy", scope, at)
        if facts.resolver.imports_module("numpy")
        else None
    )
    lines = [
        f"def {name}(worker_id):",
        '    """Seed this DataLoader worker\'s random streams (added by seedlint)."""',
        f"    worker_seed = {torch}.initial_seed() % 2**32",
        f"    {rand}.seed(worker_seed)",
    ]
    if numpy:
        lines.append(f"    {numpy}.random.seed(worker_seed)")
    if not facts.copied_rngs:
        return "\n".join(lines) + "\n"
    in_place = f"({rand}.Random, {numpy}.random.RandomState)" if numpy else f"{rand}.Random"
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
    for rng, factory in _module_level_rngs(facts):
        if factory in _REBUILT and numpy:
            lines += [f"    global {rng}", f"    {rng} = {numpy}.random.default_rng(worker_seed)"]
        elif factory in _TORCH:
            lines.append(f"    {rng}.manual_seed(worker_seed)")
        elif factory not in _REBUILT:
            lines.append(f"    {rng}.seed(worker_seed)")
    return "\n".join(lines) + "\n"
