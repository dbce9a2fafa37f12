"""DataLoader workers: which RNG objects a loader's workers copy, and which ``worker_init_fn``
reseeds them (plain ``ast``, shared by RNG002 and RNG005 and their fixes)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional, Union

from seedlint.analysis.facts import CopiedRng, LoaderCall, ModuleFacts
from seedlint.analysis.libraries import (
    WORKER_SEEDING_CLASSES,
    WORKER_SEEDING_ENVIRONMENT,
    WORKER_SEEDING_METHODS,
    Seeder,
    WorkerSeedingClass,
    seeder,
)
from seedlint.analysis.names import STATEMENT_FIELDS, FunctionNode, Scope, lookup
from seedlint.analysis.values import ABSENT, AT_MOST_ZERO, describe_origin, is_none_or_absent
from seedlint.core import Origin

WorkerFunction = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]


def may_have_workers(loader: LoaderCall) -> bool:
    """``num_workers`` may be non-zero: a known non-zero value or an expression that may be
    anything (not absent, ``0``/``None``, or a caller's parameter without a default)."""
    return loader.args["num_workers"].may(_may_be_nonzero)


def _may_be_nonzero(option: object) -> bool:
    """A count of workers: not absent, None or 0, nor a number no greater than 0 (PyTorch's
    DataLoader raises ``ValueError`` for a negative ``num_workers``)."""
    return (
        option is not ABSENT and option is not None and option != 0 and option is not AT_MOST_ZERO
    )


def workers_origin(loader: LoaderCall) -> Optional[Origin]:
    """Where the loader's non-zero ``num_workers`` (or its missing ``worker_init_fn``) comes
    from, when not written at the call: ``num_workers=4: argparse default, line 12``."""
    return describe_origin(
        "num_workers", loader.args["num_workers"], _may_be_nonzero
    ) or describe_origin("worker_init_fn", loader.args["worker_init_fn"], is_none_or_absent)


def lacks_init_fn(loader: LoaderCall) -> bool:
    """``worker_init_fn`` is absent or ``None`` on some path."""
    return loader.args["worker_init_fn"].known_may(is_none_or_absent)


def copied_by(facts: ModuleFacts, loader: LoaderCall) -> list[CopiedRng]:
    """The RNG objects (created before the workers start) that the loader's dataset may hold:
    every one of the module's when the dataset is not known to be built from its classes."""
    if loader.dataset is None:
        return list(facts.copied_rngs)
    classes = facts.dataset_classes(loader.dataset, loader.scope)
    if classes is None:  # the dataset may be an instance of any of them
        return list(facts.copied_rngs)
    return [c for meaning in classes for c in facts.holders(meaning)]


def held_by(facts: ModuleFacts, loader: LoaderCall) -> list[tuple[ast.ClassDef, str, CopiedRng]]:
    """The RNG objects the loader's dataset reaches through an object it holds and uses to
    fetch items (a transform: ``self.transform = Splitter(...)``, or ``self.transform =
    transform`` with ``Dataset(Splitter())`` at the loader, where ``Splitter``'s construction
    makes ``self.np_random``): (the dataset class, its attribute, the object's RNG). Classes
    of this module only; made in the main process, so copied into every worker."""
    if loader.dataset is None:
        return []
    found: dict[tuple[int, str, int], tuple[ast.ClassDef, str, CopiedRng]] = {}
    for node, scope in facts.assigned_expressions(loader.dataset, loader.scope) or ():
        if not isinstance(node, ast.Call):
            continue
        direct = facts.resolver.meanings(node.func, scope)
        for meaning in facts.dataset_classes(node, scope) or ():
            if not isinstance(meaning, ast.ClassDef):
                continue
            construction = (node, scope) if meaning in direct else None
            for attribute, held, _ in facts.held_objects(meaning, construction):
                if not isinstance(held, ast.ClassDef):
                    continue  # a class of another module: not followed here
                for copied in facts.init_rngs.get(id(held), ()):
                    key = (id(meaning), attribute, id(copied.call))
                    found.setdefault(key, (meaning, attribute, copied))
    return list(found.values())


def init_functions(facts: ModuleFacts, loader: LoaderCall) -> Optional[list[WorkerFunction]]:
    """The functions of this module the loader's ``worker_init_fn`` may be (a lambda, or a name
    bound only to functions of the module); None when it may be anything else."""
    expr = loader.argument("worker_init_fn")
    if expr is None:
        return None
    if isinstance(expr, ast.Lambda):
        return [expr]
    meanings = facts.resolver.meanings(expr, loader.scope)
    if not meanings:
        return None
    functions: list[WorkerFunction] = []
    for meaning in meanings:
        if not isinstance(meaning, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return None
        functions.append(meaning)
    return functions


def reseeds(facts: ModuleFacts, function: WorkerFunction, copied: list[CopiedRng]) -> bool:
    """Whether ``function`` (a worker_init_fn) reseeds every one of ``copied``: it calls
    ``get_worker_info`` and reaches each object by attribute name, through ``vars(...)`` or
    ``__dict__``, or by its module-level name. With nothing copied: it seeds something."""
    scope = facts.resolver.scope_of(function)
    worker_info = whole_dict = seeds = False
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            qualnames = facts.resolver.qualnames(node.func, scope)
            if "torch.utils.data.get_worker_info" in qualnames:
                worker_info = True
            if isinstance(node.func, ast.Name) and node.func.id == "vars":
                whole_dict = True
            func = node.func
            last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            seeds = seeds or "seed" in last.lower()
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
            whole_dict = whole_dict or node.attr == "__dict__"
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Global):
            names.update(node.names)
    if not copied:
        return seeds
    if not worker_info:
        return False
    for rng in copied:
        attribute = rng.name.startswith("self.")
        if attribute and not whole_dict and rng.name[5:] not in names:
            return False
        if not attribute and rng.name not in names:
            return False
    return True


def reusable_function(
    facts: ModuleFacts, loader: LoaderCall, copied: list[CopiedRng], top: ast.stmt
) -> Optional[ast.FunctionDef]:
    """A module-level function (``seed_worker`` first) that already does a fix's job for this
    loader: it reseeds what the loader's dataset holds (see :func:`reseeds`), takes the worker
    id, is what its name means at the loader, and is defined before a module-level loader
    runs."""
    every, named = facts.once("workers.module_functions", lambda: _module_functions(facts))
    # A dataset without RNG objects: only a worker_init_fn by its usual names is reused (a
    # module may define thousands of functions, and have a finding at each loader).
    candidates = every if copied else named
    runs_at_import = not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    for function in candidates:
        if runs_at_import and function.lineno > top.lineno:
            continue
        if not copied and function.name not in WORKER_INIT_NAMES:
            continue
        args = function.args
        positional = len(args.posonlyargs) + len(args.args)
        if positional - len(args.defaults) > 1 or (positional == 0 and args.vararg is None):
            continue
        bindings = lookup(function.name, loader.scope) or []
        if [b.node for b in bindings] != [function]:
            continue
        if reseeds(facts, function, copied):
            return function
    return None


def _module_functions(
    facts: ModuleFacts,
) -> tuple[list[ast.FunctionDef], list[ast.FunctionDef]]:
    """The module-level functions (``seed_worker`` first), and those named like a
    ``worker_init_fn``."""
    every = [s for s in facts.tree.body if isinstance(s, ast.FunctionDef)]
    every.sort(key=lambda f: f.name != "seed_worker")
    return every, [f for f in every if f.name in WORKER_INIT_NAMES]


# Names under which a module's own worker_init_fn is reused when the dataset holds no RNG object.
WORKER_INIT_NAMES = frozenset({"seed_worker", "worker_init_fn", "seed_worker_", "worker_init"})


# -- what loader classes and frameworks install (the library table) --------------------------
def installs_worker_seeding(facts: ModuleFacts, loader: LoaderCall) -> bool:
    """The loader's class installs its own ``worker_init_fn`` when none is passed (MONAI's
    ``DataLoader``, a class listed in ``worker-seeding-loaders``)."""
    if loader.argument("worker_init_fn") is not None:
        return False  # an explicit `worker_init_fn=None` replaces the class's own
    names = facts.resolver.qualnames(loader.bound.func, loader.scope)
    return bool(names & facts.options.all_worker_seeding_loaders)


@dataclass(frozen=True)
class FrameworkSeeding:
    """A framework seeder the module calls (Lightning's ``seed_everything``): whether it asks
    the framework to seed the workers of the loaders it is given."""

    call: ast.Call
    scope: Scope
    seeder: Seeder
    workers: bool  # the worker keyword is true on every path


def framework_seeding(facts: ModuleFacts) -> list[FrameworkSeeding]:
    """The module's calls of seeders that can seed the workers (found once per module)."""
    return facts.once("workers.framework_seeding", lambda: _framework_seeding(facts))


def _framework_seeding(facts: ModuleFacts) -> list[FrameworkSeeding]:
    found: list[FrameworkSeeding] = []
    for seed in facts.seed_calls:
        for qualname in sorted(facts.resolver.qualnames(seed.call.func, seed.scope)):
            entry = seeder(qualname)
            if entry is None or entry.workers is None:
                continue
            on = facts.keyword_true(seed.call, entry.workers, seed.scope)
            if not on and len(seed.call.args) > 1:
                on = _true(facts, seed.call.args[1], seed.scope)
            found.append(FrameworkSeeding(seed.call, seed.scope, entry, on))
            break
    return found


@dataclass(frozen=True)
class WorkerSeedingSite:
    """Where the module decides whether a framework seeds its loaders' workers: a seeder call
    (``on`` as its worker keyword), a class that seeds them when built (``LightningCLI``), or
    the framework's environment variable set in code (``PL_SEED_WORKERS``)."""

    node: ast.AST
    owner: Union[FunctionNode, ast.Module]  # the function (or the module) it runs in
    on: bool


def worker_seeding_sites(facts: ModuleFacts) -> list[WorkerSeedingSite]:
    """The module's :class:`WorkerSeedingSite` s, in source order (found once per module; the
    classes, methods and the variable only in a module that imports Lightning, and where its
    text, when known, names them)."""
    return facts.once("workers.seeding_sites", lambda: _worker_seeding_sites(facts))


def _worker_seeding_sites(facts: ModuleFacts) -> list[WorkerSeedingSite]:
    found = [
        WorkerSeedingSite(s.call, facts.enclosing_function(s.scope), s.workers)
        for s in framework_seeding(facts)
    ]
    if not facts.resolver.imports_any(LIGHTNING_MODULES):
        return found  # the rest is looked for only where Lightning is imported (few modules)
    text = facts.text
    if not text or "LightningCLI" in text:
        for call, scope in facts.builder.calls:
            entry = _seeding_class(facts, call.func, scope)
            if entry is None:
                continue
            off = any(
                k.arg == entry.off and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in call.keywords
            )
            if not off:
                found.append(WorkerSeedingSite(call, facts.enclosing_function(scope), True))
    methods = [m for m in WORKER_SEEDING_METHODS if not text or m.method in text]
    for method in methods:
        for call, scope in facts.builder.calls:
            func = call.func
            if not isinstance(func, ast.Attribute) or func.attr != method.method:
                continue
            names = facts.resolver.qualnames(func, scope)
            if names and not names & set(method.names):
                continue  # a function the module knows, not the framework object's method
            on = _true(facts, call.args[1], scope) if len(call.args) > 1 else True
            if any(k.arg == method.workers for k in call.keywords):
                on = facts.keyword_true(call, method.workers, scope)
            found.append(WorkerSeedingSite(call, facts.enclosing_function(scope), on))
    if not text or any(name in text for name in WORKER_SEEDING_ENVIRONMENT):
        found.extend(_environment_sites(facts))
    found.sort(
        key=lambda site: (getattr(site.node, "lineno", 0), getattr(site.node, "col_offset", 0))
    )
    return found


def _seeding_class(
    facts: ModuleFacts, func: ast.expr, scope: Scope
) -> Optional[WorkerSeedingClass]:
    """The library table's entry of the class ``func`` builds (``LightningCLI``, or a class of
    this module deriving from it), or None."""
    meanings = facts.resolver.meanings(func, scope)
    for entry in WORKER_SEEDING_CLASSES:
        names = frozenset(entry.names)
        if any(facts.resolver.is_subclass(meaning, names) for meaning in meanings):
            return entry
    return None


def _environment_sites(facts: ModuleFacts) -> list[WorkerSeedingSite]:
    """``os.environ["PL_SEED_WORKERS"] = "1"`` and ``os.environ.setdefault("PL_SEED_WORKERS",
    "1")``, unless the value is ``"0"`` (the environment takes strings only): Lightning then
    installs nothing, as where the variable is never set. Only statements are walked for the
    assignments (an expression holds none), and the module's calls are known already."""
    found: list[tuple[ast.AST, Union[FunctionNode, ast.Module], ast.expr]] = []
    stack: list[tuple[ast.AST, Union[FunctionNode, ast.Module]]] = [(facts.tree, facts.tree)]
    while stack:
        node, owner = stack.pop()
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and _names_variable(target.slice):
                    found.append((node, owner, node.value))
        inner = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else owner
        for name in STATEMENT_FIELDS:
            stack.extend((child, inner) for child in getattr(node, name, ()))
    for call, scope in facts.builder.calls:
        func = call.func
        setter = isinstance(func, ast.Attribute) and func.attr in ("setdefault", "putenv")
        if setter and len(call.args) == 2 and _names_variable(call.args[0]):
            found.append((call, facts.enclosing_function(scope), call.args[1]))
    return [
        WorkerSeedingSite(node, owner, True)
        for node, owner, value in found
        if not (isinstance(value, ast.Constant) and value.value == "0")
    ]


def _names_variable(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in WORKER_SEEDING_ENVIRONMENT


def _true(facts: ModuleFacts, expr: ast.expr, scope: Scope) -> bool:
    """``expr`` is True on every path."""
    value = facts.values.evaluate(expr, scope)
    return value.options is not None and all(o is True for o in value.options)


def uses_framework(facts: ModuleFacts, seeding: list[FrameworkSeeding]) -> Optional[str]:
    """The framework whose worker seeding a fix must not replace: one whose seeder the module
    calls, or Lightning when the module imports it (its Trainer installs a worker seeding in
    a loader whose ``worker_init_fn`` is None, under ``seed_everything(..., workers=True)``
    called anywhere in the program)."""
    if seeding:
        return seeding[0].seeder.framework
    if facts.resolver.imports_any(LIGHTNING_MODULES):
        return "Lightning"
    return None


def handed_to_lightning(facts: ModuleFacts, loader: LoaderCall) -> bool:
    """The loader is built in a method of a subclass with Lightning's data hooks
    (``train_dataloader``, ...): the Trainer (or Fabric) takes it, and installs its own worker
    seeding in it under ``seed_everything(..., workers=True)``; ``Fabric.seed_everything``
    asks for it by default (pytorch-lightning 2.6.6, ``lightning_fabric/fabric.py``). RNG002
    asks only when no program of the project reaches the loader (the programs decide)."""
    owner = facts.enclosing_function(loader.scope)
    if isinstance(owner, ast.Module):
        return False
    parent = facts.resolver.scope_of(owner).parent
    if parent is None or not isinstance(parent.node, ast.ClassDef) or not parent.node.bases:
        return False  # Lightning's hooks are methods of a subclass (of a LightningDataModule)
    return any(
        isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in LIGHTNING_HOOKS
        for item in parent.node.body
    )


LIGHTNING_MODULES = ("lightning", "pytorch_lightning", "lightning_fabric")
LIGHTNING_HOOKS = frozenset(
    {"train_dataloader", "val_dataloader", "test_dataloader", "predict_dataloader"}
)
