"""Where a fix's seed comes from: a seed the program has where the fix goes, else
``torch.initial_seed()``, else (in scripts only) ``fix-seed``.

Pure ``ast`` over the module facts (no libcst). A seed expression is used only when it is in
scope where the fix goes and bound there when that code runs, in this order of preference:

1. the argument of an earlier seeding call in the same function: ``torch.manual_seed(X)``,
   ``random.seed(X)``, ``np.random.seed(X)``, ``torch.cuda.manual_seed[_all](X)``, a seeding
   helper (``seed_everything(X)``, or any call whose name says seeding, ``set_seed(X)``), a
   seeded generator (``torch.Generator().manual_seed(X)``, ``np.random.default_rng(X)``,
   ``np.random.RandomState(X)``, ``random.Random(X)``), when every name in ``X`` means the
   same at the fix location and ``X`` has no call in it;
2. a parameter or variable named like a seed (``seed``, ``SEED``, ``random_seed``,
   ``*_seed``) visible at the fix location;
3. in a method, ``self.<seed>`` set in ``__init__``, ``self.hparams.<seed>`` for an
   ``__init__`` parameter saved by ``save_hyperparameters()``, or ``self.<x>.<seed>`` /
   ``self.<x>["<seed>"]`` that the class reads, with ``self.<x>`` set in ``__init__``;
4. ``<ns>.<seed>`` / ``<ns>["<seed>"]`` for a namespace ``<ns>`` visible at the fix location
   (a parameter, a local, or a module global): the module's argparse defines the seed option and
   ``<ns>`` holds the parsed arguments (or is a parameter named ``args``, ``opt``, ``cfg``...),
   or the module reads ``<ns>.<seed>`` of that same binding elsewhere;
5. the argument of a module-level seeding call (as in 1).

A module global created only under ``if __name__ == "__main__":`` is never used by code inside
a function: it does not exist when the module is imported. A candidate whose value is known to be
``None`` (``manual_seed(None)`` raises), a string or a bool is skipped.

When the program names no seed: ``torch.initial_seed()``, which follows the run's
``torch.manual_seed`` (not the number of draws before the fix) and stays random in an unseeded
run; a literal (``fix-seed``) only in a script (a module with a ``__main__`` guard or code at
its top level): when the user set ``fix-seed``, or in the script's entry-point code (its top
level, or a function it calls from there) when the module seeds nothing at all. Never a literal
in library code.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Optional, Union

from seedlint.analysis.facts import ModuleFacts, SeedCall
from seedlint.analysis.names import Binding, Scope, lookup
from seedlint.analysis.seeding import Seeding
from seedlint.analysis.values import without_none
from seedlint.fixes.options import FixOptions

Position = tuple[int, int]  # (1-based line, 0-based ast column)
Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]

SEEDING_WITH_VALUE = frozenset(
    {
        Seeding.TORCH,
        Seeding.CUDA_CURRENT,
        Seeding.CUDA_ALL,
        Seeding.OTHER_DEVICE,
        Seeding.RANDOM,
        Seeding.NUMPY,
        Seeding.HELPER,
        Seeding.GENERATOR_MANUAL_SEED,
    }
)
_GLOBAL_SEEDING = SEEDING_WITH_VALUE - {Seeding.GENERATOR_MANUAL_SEED}
# Constructors of RNG objects whose first argument is their seed.
SEEDED_FACTORIES = frozenset(
    {"numpy.random.default_rng", "numpy.random.RandomState", "random.Random"}
)
_FACTORY_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in SEEDED_FACTORIES)
_SEED_NAME = re.compile(r"^(?:seed|random_seed|rng_seed|seed_value|[a-z0-9_]*_seed)$", re.I)
_PREFERRED = ("seed", "SEED", "random_seed", "RANDOM_SEED")
# Names of a seeding helper of the project (`set_seed(x)`, `init_seeds(x)`, `seed_all(x)`).
_SEEDING_HELPER = re.compile(r"(?:^|_)seed(?:s|_all|_everything|_torch)?$|^seed_", re.I)
_NOT_SEEDING = frozenset({"initial_seed", "seed", "manual_seed", "get_seed", "reseed"})
# Names that hold parsed command-line options or a configuration.
NAMESPACE_NAMES = (
    "args", "opt", "opts", "options", "cfg", "config", "conf", "hparams", "hp", "params",
    "flags", "FLAGS", "hyperparams",
)  # fmt: skip
ARGS_NAMES = NAMESPACE_NAMES
# Expressions that evaluate to something new each time (or have effects): never duplicated.
_UNSAFE_NODES = (
    ast.Call,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
    ast.NamedExpr,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.Starred,
)


@dataclass(frozen=True)
class Seed:
    """The seed a fix writes: a program expression, ``torch.initial_seed()``, a literal, or a
    new module constant (``SEED``, which the fix defines where the program starts)."""

    expression: Optional[str]  # None: ``torch.initial_seed()``
    origin: str  # "program", "initial_seed", "fix-seed" or "new-constant"
    constant: Optional[str] = None  # "SEED = 0": the statement a "new-constant" seed needs

    def text(self, torch: str) -> str:
        """The seed's source text, ``torch`` being the name the fix writes for the module."""
        return self.expression if self.expression is not None else f"{torch}.initial_seed()"


NEW_SEED_NAME = "SEED"


def choose_seed(
    facts: ModuleFacts,
    at: Position,
    scope: Scope,
    options: FixOptions,
    new_constant: bool = False,
) -> Seed:
    """The seed to write at ``at`` (evaluated in ``scope``): what the program has there, else
    in a script's code the ``fix-seed`` literal, else ``torch.initial_seed()``. With
    ``new_constant`` (a fix that can define it), a script that seeds nothing at all gets a new
    ``SEED = <fix-seed>`` constant instead: ``torch.initial_seed()`` is random there (nothing
    seeds torch), so a fix seeding from it would leave the run random."""
    found = program_seed(facts, facts.text, at, scope)
    if found is not None:
        return Seed(found, "program")
    if literal_allowed(facts, scope, options):
        return Seed(str(options.fix_seed), "fix-seed")
    if new_constant and unseeded_script(facts) and _free_at_module(facts, NEW_SEED_NAME):
        return Seed(NEW_SEED_NAME, "new-constant", f"{NEW_SEED_NAME} = {options.fix_seed}")
    return Seed(None, "initial_seed")


def unseeded_script(facts: ModuleFacts) -> bool:
    """A script (see :func:`is_script`) that seeds nothing anywhere: no seeding call, no call
    of a seeding helper, no seed read from its arguments or configuration."""
    return (
        facts.once("fixes.is_script", lambda: is_script(facts.tree))
        and not seeds_anything(facts)
        and not facts.once("fixes.seed_reads", lambda: bool(_seed_reads(facts)))
    )


def _free_at_module(facts: ModuleFacts, name: str) -> bool:
    """No scope of the module binds ``name`` (a new global of that name shadows nothing)."""
    return all(name not in scope.bindings for scope in facts.builder.scope_of.values())


def constant_place(tree: ast.Module) -> Optional[ast.stmt]:
    """The module-level statement a new constant goes before: the first after the module's
    docstring and leading imports (None: the module has nothing else)."""
    for index, statement in enumerate(tree.body):
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            continue
        docstring = (
            index == 0
            and isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str)
        )
        if not docstring:
            return statement
    return None


def program_seed(facts: ModuleFacts, text: str, at: Position, scope: Scope) -> Optional[str]:
    """A seed expression of the program, usable at ``at`` in ``scope`` (None: none). One that
    the module tests against ``None`` (``if args.seed is not None:``) may be None: skipped."""
    found = _program_seed(facts, text, at, scope)
    if found is None or found in _none_tested(facts):
        return None
    return found


def _none_tested(facts: ModuleFacts) -> frozenset[str]:
    """Expressions the module compares with ``is None`` / ``is not None`` / ``== None`` (found
    once per module: each finding's fix title asks)."""

    def find() -> frozenset[str]:
        tested: set[str] = set()
        for node in _walk_rows(facts, _NONE_ROWS):
            if isinstance(node, ast.Compare) and len(node.ops) == 1:
                right = node.comparators[0]
                if isinstance(right, ast.Constant) and right.value is None:
                    tested.add(ast.unparse(node.left))
        return frozenset(tested)

    return facts.once("fixes.none_tested", find)


def _program_seed(facts: ModuleFacts, text: str, at: Position, scope: Scope) -> Optional[str]:
    here = facts.enclosing_function(scope)
    module_level: list[tuple[Scope, ast.expr]] = []
    for seed_scope, value in _earlier_seeds(facts, at, here):
        if facts.enclosing_function(seed_scope) is not here:
            module_level.append((seed_scope, value))  # tried after the names
        elif _reusable_at(facts, value, seed_scope, scope):
            return expression_text(text, value)
    for name in _seed_names(scope):
        if _usable_name(facts, name, at, scope):
            return name
    for candidate in (_attribute_seed(facts, at, scope), _namespace_seed(facts, at, scope)):
        if candidate is not None:
            return candidate
    for seed_scope, value in module_level:
        if _reusable_at(facts, value, seed_scope, scope):
            return expression_text(text, value)
    return None


def seed_argument(call: ast.Call) -> Optional[ast.expr]:
    """The seed a seeding call passes: its first positional argument or ``seed=``/``a=``."""
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    for keyword in call.keywords:
        if keyword.arg in ("seed", "a"):
            return keyword.value
    return None


def earlier_seed_calls(facts: ModuleFacts, at: Position, scope: Scope) -> Iterator[SeedCall]:
    """Seeding calls before ``at``: the same function's (latest first), then the module's."""
    here = facts.enclosing_function(scope)
    before = [
        s
        for s in facts.seed_calls
        if s.kind in SEEDING_WITH_VALUE and (s.call.lineno, s.call.col_offset) < at
    ]
    before.sort(key=lambda s: (s.call.lineno, s.call.col_offset), reverse=True)
    yield from (s for s in before if facts.enclosing_function(s.scope) is here)
    if not isinstance(here, ast.Module):
        yield from (s for s in before if isinstance(facts.enclosing_function(s.scope), ast.Module))


def _earlier_seeds(
    facts: ModuleFacts, at: Position, here: Union[Function, ast.Module]
) -> Iterator[tuple[Scope, ast.expr]]:
    """(scope, seed argument) of the seeding calls and seeded RNG constructors of the same
    function before ``at`` (latest first), then those of the module level (for a function:
    wherever they are, since module-level code runs before the function is called)."""
    by_owner = _seeds_by_owner(facts)
    positions, own = by_owner.get(id(here), ([], []))
    found = own[: bisect.bisect_left(positions, at)]
    if not isinstance(here, ast.Module):
        found = found + by_owner.get(id(facts.tree), ([], []))[1]
    found.sort(key=lambda item: item[0], reverse=True)
    for _, scope, value in found:
        yield scope, value


_Seeds = list[tuple[Position, Scope, ast.expr]]


def _seeds_by_owner(facts: ModuleFacts) -> dict[int, tuple[list[Position], _Seeds]]:
    """The seeding calls with a seed argument, by the function (or module) they are in, in
    source order; found once per module (each finding's fix asks: a module with thousands of
    both was quadratic)."""

    def find() -> dict[int, tuple[list[Position], _Seeds]]:
        lists: dict[int, _Seeds] = {}
        for call, scope in seeding_calls(facts):
            value = seed_argument(call)
            if value is None:
                continue
            owner = id(facts.enclosing_function(scope))
            lists.setdefault(owner, []).append(((call.lineno, call.col_offset), scope, value))
        for items in lists.values():
            items.sort(key=lambda item: item[0])
        return {owner: ([item[0] for item in items], items) for owner, items in lists.items()}

    return facts.once("fixes.seeds_by_owner", find)


def seeding_calls(facts: ModuleFacts) -> list[tuple[ast.Call, Scope]]:
    """Calls that seed a stream with a value: the seeding calls the analysis knows, seeded RNG
    constructors, and calls of a function whose name says seeding (``set_seed(x)``); found
    once per module (kept with the facts)."""
    cached: Optional[list[tuple[ast.Call, Scope]]] = facts.__dict__.get("_fixes_seeding_calls")
    if cached is not None:
        return cached
    known = {id(s.call) for s in facts.seed_calls if s.kind in SEEDING_WITH_VALUE}
    ignored = {id(s.call) for s in facts.seed_calls if s.kind not in SEEDING_WITH_VALUE}
    # Only a call spelled like a factory (its name, an alias of one) is resolved: resolving
    # every call of a large module took most of a fix title's time.
    factories = facts.resolver.spellings(_FACTORY_NAMES)
    result: list[tuple[ast.Call, Scope]] = []
    for call, scope in facts.builder.calls:
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if id(call) in known or (
            id(call) not in ignored
            and (
                (
                    name in factories
                    and bool(facts.resolver.qualnames(func, scope) & SEEDED_FACTORIES)
                )
                or _helper_name(func)
            )
        ):
            result.append((call, scope))
    facts.__dict__["_fixes_seeding_calls"] = result
    return result


def _helper_name(func: ast.expr) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return (
        isinstance(name, str)
        and name not in _NOT_SEEDING
        and not name.startswith("get")
        and "worker" not in name
        and _SEEDING_HELPER.search(name) is not None
    )


def reusable(
    facts: ModuleFacts, expr: ast.expr, origin: Scope, target: Scope, beside: bool = False
) -> bool:
    """``expr`` (written in ``origin``) can be written again in ``target`` with the same meaning:
    no calls or other effects, every name bound the same way, and never known to be None.
    ``beside``: it is written again right after its own statement, so the tests on the way to
    it count (``if seed is not None: random.seed(seed)``: not None there)."""
    for node in ast.walk(expr):
        if isinstance(node, _UNSAFE_NODES):
            return False
        if isinstance(node, ast.Name) and lookup(node.id, origin) is not lookup(node.id, target):
            return False
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, int) and not isinstance(expr.value, bool)
    value = facts.values.evaluate(expr, origin)
    if beside and facts.not_none_here(expr, origin):
        value = without_none(value)
    return not value.known_may(_not_a_seed)


def _reusable_at(facts: ModuleFacts, expr: ast.expr, origin: Scope, target: Scope) -> bool:
    return reusable(facts, expr, origin, target) and all(
        exists_when_run(facts, node.id, target)
        for node in ast.walk(expr)
        if isinstance(node, ast.Name)
    )


def _not_a_seed(option: object) -> bool:
    return option is None or isinstance(option, (bool, str, bytes, float))


def expression_text(text: str, expr: ast.expr) -> str:
    """The expression as the program writes it (normalised when it spans lines)."""
    row, end_row = expr.lineno, getattr(expr, "end_lineno", None)
    end_col = getattr(expr, "end_col_offset", None)
    text_lines = _source_lines(text)
    if row != end_row or end_col is None or not 1 <= row <= len(text_lines):
        return ast.unparse(expr)
    # What ``ast.get_source_segment`` gives, without splitting the whole text at every call
    # (a fix-all of a long file asks once per finding): columns are UTF-8 byte offsets.
    return text_lines[row - 1].encode()[expr.col_offset : end_col].decode()


@functools.lru_cache(maxsize=4)
def _source_lines(text: str) -> list[str]:
    """``text``'s lines as ``ast`` counts them (``\\r\\n``, ``\\n`` and ``\\r`` only)."""
    return re.split(r"(?<=\r\n)|(?<=\n)|(?<=\r)(?!\n)", text)


def bound_before(binding: Binding, at: Position, scope: Scope) -> bool:
    """Whether ``binding`` already holds when code at ``at`` in ``scope`` runs.

    A binding in the scope of the fix location must come first in the text; one in an enclosing
    scope (the module, for code in a function) is taken to be set before the function runs.
    """
    if binding.scope is not scope:
        return True
    if binding.kind == "param":
        return True
    node = binding.node
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) < at


# -- where the code is -------------------------------------------------------------------------
def main_guards(tree: ast.Module) -> list[ast.If]:
    """The module's ``if __name__ == "__main__":`` statements."""
    return [s for s in tree.body if isinstance(s, ast.If) and _is_main_test(s.test)]


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def _inside(node: ast.AST, outer: ast.stmt) -> bool:
    start = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    end = (outer.end_lineno or outer.lineno, outer.end_col_offset or 0)
    return (outer.lineno, outer.col_offset) <= start <= end


def exists_when_run(facts: ModuleFacts, name: str, target: Scope) -> bool:
    """Whether ``name``, read by code in ``target``, is bound when that code runs: a module
    global read in a function must be bound outside the ``__main__`` guard (else importing the
    module and calling the function raises NameError)."""
    bindings = lookup(name, target)
    if bindings is None:
        return True  # a builtin (or nothing: the caller checked the meaning)
    if isinstance(facts.enclosing_function(target), ast.Module):
        return True
    guards = main_guards(facts.tree)
    return any(
        not isinstance(b.scope.node, ast.Module) or not any(_inside(b.node, g) for g in guards)
        for b in bindings
    )


def is_script(tree: ast.Module) -> bool:
    """A module run as a program: it has a ``__main__`` guard or does work at its top level
    (a call statement, a loop, a ``with``)."""
    for statement in tree.body:
        if isinstance(statement, ast.If) and _is_main_test(statement.test):
            return True
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            return True
        if isinstance(statement, (ast.For, ast.While, ast.With, ast.AsyncWith)):
            return True
    return False


def entry_point(facts: ModuleFacts, scope: Scope) -> bool:
    """Whether code in ``scope`` is a script's entry-point code: its top level, or a module-level
    function that the top level (or the ``__main__`` guard) calls."""
    here = facts.enclosing_function(scope)
    if isinstance(here, ast.Module):
        return True
    outer: Optional[Scope] = scope
    top: Optional[ast.AST] = None
    while outer is not None and outer.parent is not None:
        top, outer = outer.node, outer.parent
    if not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return top.name in _called_at_top_level(facts)


def _called_at_top_level(facts: ModuleFacts) -> frozenset[str]:
    """The names the module's top level calls (``main()``), found once per module: each
    finding's fix asks."""
    module = facts.builder.module_scope
    return facts.once(
        "fixes.top_level_calls",
        lambda: frozenset(
            call.func.id
            for call, call_scope in facts.builder.calls
            if call_scope is module and isinstance(call.func, ast.Name)
        ),
    )


def seeds_anything(facts: ModuleFacts) -> bool:
    """Whether the module seeds a global stream somewhere (or calls a seeding helper); found
    once per module."""
    return facts.once(
        "fixes.seeds_anything",
        lambda: (
            any(s.kind in _GLOBAL_SEEDING for s in facts.seed_calls)
            or any(_helper_name(call.func) for call, _ in facts.builder.calls)
        ),
    )


def literal_allowed(facts: ModuleFacts, scope: Scope, options: FixOptions) -> bool:
    """Whether a fix at code in ``scope`` that finds no seed may write ``fix-seed``."""
    top_level = isinstance(facts.enclosing_function(scope), ast.Module)
    if not top_level and not facts.once("fixes.is_script", lambda: is_script(facts.tree)):
        return False  # library code: the order must follow the run's seed
    if options.fix_seed_set:
        return True
    return entry_point(facts, scope) and not seeds_anything(facts)


# -- seeds named by the program ------------------------------------------------------------------
def _seed_names(scope: Scope) -> Iterator[str]:
    """Names that look like a seed, bound in ``scope`` or an enclosing one, nearest first."""
    seen: set[str] = set()
    current: Optional[Scope] = scope
    first = True
    while current is not None:
        if first or not current.is_class:
            names = [n for n in _seed_like(current) if n not in seen]
            seen.update(names)
            yield from names
        first = False
        current = current.parent


def _seed_like(scope: Scope) -> list[str]:
    """The names bound in ``scope`` that look like a seed, preferred first (found once per
    scope: each finding's fix asks, and a module scope may bind thousands of names)."""
    found = scope.__dict__.get("_fixes_seed_like")
    if not isinstance(found, list):
        names = sorted(n for n in scope.bindings if _SEED_NAME.match(n))
        names.sort(key=lambda n: _PREFERRED.index(n) if n in _PREFERRED else len(_PREFERRED))
        found = scope.__dict__["_fixes_seed_like"] = names
    return found


def _usable_name(facts: ModuleFacts, name: str, at: Position, scope: Scope) -> bool:
    bindings = lookup(name, scope)
    if not bindings:
        return False
    for binding in bindings:
        if binding.kind not in ("param", "assign", "other"):
            return False  # `from random import seed`, `def seed(...)`: not a seed value
        if binding.kind == "assign" and isinstance(binding.value, ast.Lambda):
            return False
    if not any(bound_before(b, at, scope) for b in bindings):
        return False
    if not exists_when_run(facts, name, scope):
        return False
    probe = ast.Name(id=name, ctx=ast.Load())
    return not facts.values.evaluate(probe, scope).known_may(_not_a_seed)


# -- self.seed, self.hparams.seed, self.cfg.seed ------------------------------------------------
def _method(scope: Scope) -> Optional[tuple[Function, str, ast.ClassDef]]:
    """The method (and its ``self`` name and class) whose code runs in ``scope``."""
    current: Optional[Scope] = scope
    while current is not None and current.parent is not None:
        node, parent = current.node, current.parent
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(
            parent.node, ast.ClassDef
        ):
            decorators = {getattr(d, "id", None) for d in node.decorator_list}
            params = [*node.args.posonlyargs, *node.args.args]
            if decorators & {"staticmethod", "classmethod"} or not params:
                return None
            return node, params[0].arg, parent.node
        current = parent
    return None


def _attribute_seed(facts: ModuleFacts, at: Position, scope: Scope) -> Optional[str]:
    found = _method(scope)
    if found is None:
        return None
    method, self_name, cls = found
    bindings = lookup(self_name, scope)
    if not bindings or any(b.kind != "param" or b.scope.node is not method for b in bindings):
        return None  # `self` rebound (or shadowed) where the fix goes
    init = next(
        (
            s
            for s in cls.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"
        ),
        None,
    )
    if init is None or not [*init.args.posonlyargs, *init.args.args]:
        return None
    init_self = [*init.args.posonlyargs, *init.args.args][0].arg
    init_scope = facts.resolver.scope_of(init)
    assigned: dict[str, ast.expr] = {}
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and (method is not init or (node.lineno, 0) < at):
            for target in node.targets:
                if _self_attribute(target, init_self):
                    assert isinstance(target, ast.Attribute)
                    assigned.setdefault(target.attr, node.value)
    for attr in sorted(assigned, key=_seed_rank):
        if _SEED_NAME.match(attr) and not facts.values.evaluate(
            assigned[attr], init_scope
        ).known_may(_not_a_seed):
            return f"{self_name}.{attr}"
    if "hparams" not in assigned and _saves_hyperparameters(init, init_self, bare=True):
        for arg in sorted(_params(init), key=lambda a: _seed_rank(a.arg)):
            if _SEED_NAME.match(arg.arg) and not _param_may_be_none(facts, arg.arg, init_scope):
                return f"{self_name}.hparams.{arg.arg}"
    saves = _saves_hyperparameters(init, init_self, bare=False)
    for holder, key, subscript in _class_reads(cls):
        known = holder in assigned or (holder == "hparams" and saves)
        if known and _SEED_NAME.match(key):
            return f'{self_name}.{holder}["{key}"]' if subscript else f"{self_name}.{holder}.{key}"
    return None


def _seed_rank(name: str) -> tuple[int, str]:
    return (_PREFERRED.index(name) if name in _PREFERRED else len(_PREFERRED), name)


def _self_attribute(target: ast.expr, self_name: str) -> bool:
    return (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == self_name
    )


def _params(function: Function) -> list[ast.arg]:
    args = function.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs][1:]


def _param_may_be_none(facts: ModuleFacts, name: str, scope: Scope) -> bool:
    probe = ast.Name(id=name, ctx=ast.Load())
    return facts.values.evaluate(probe, scope).known_may(_not_a_seed)


def _saves_hyperparameters(init: Function, self_name: str, bare: bool) -> bool:
    """``__init__`` calls ``self.save_hyperparameters()`` (``bare``: with no arguments, so that
    every ``__init__`` parameter lands in ``self.hparams``)."""
    for node in ast.walk(init):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "save_hyperparameters"
            and _self_attribute(node.func, self_name)
            and not (bare and (node.args or node.keywords))
        ):
            return True
    return False


def _class_reads(cls: ast.ClassDef) -> Iterator[tuple[str, str, bool]]:
    """``(x, key, subscript)`` for each ``self.x.key`` / ``self.x["key"]`` the class reads."""
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            inner = node.value
            if (
                isinstance(inner, ast.Attribute)
                and isinstance(inner.value, ast.Name)
                and inner.value.id == "self"
            ):
                yield inner.attr, node.attr, False
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            inner = node.value
            key = node.slice
            if (
                isinstance(inner, ast.Attribute)
                and isinstance(inner.value, ast.Name)
                and inner.value.id == "self"
                and isinstance(key, ast.Constant)
                and isinstance(key.value, str)
                and key.value.isidentifier()
            ):
                yield inner.attr, key.value, True


# -- args.seed, opt.seed, config["seed"] --------------------------------------------------------
def _namespace_seed(facts: ModuleFacts, at: Position, scope: Scope) -> Optional[str]:
    candidates: list[str] = []
    defaults = facts.values.argparse_defaults
    dests = ["seed"] if "seed" in defaults else sorted(d for d in defaults if _SEED_NAME.match(d))
    for dest in dests:
        if defaults[dest].known_may(_not_a_seed):
            continue  # `default=None`: `manual_seed(None)` would raise
        for name in _namespace_names(facts, scope):
            candidates.append(f"{name}.{dest}")
    for name, key, subscript, read in _module_reads(facts, scope):
        if not facts.values.evaluate(read, scope).known_may(_not_a_seed):
            candidates.append(f'{name}["{key}"]' if subscript else f"{name}.{key}")
    for candidate in candidates:
        name = candidate.split(".")[0].split("[")[0]
        bindings = lookup(name, scope) or []
        if any(bound_before(b, at, scope) for b in bindings) and exists_when_run(
            facts, name, scope
        ):
            return candidate
    return None


def _namespace_names(facts: ModuleFacts, scope: Scope) -> list[str]:
    """Names visible in ``scope`` that hold the parsed command line."""
    names: list[str] = []
    current: Optional[Scope] = scope
    while current is not None:
        for name, bindings in current.bindings.items():
            if name in names or lookup(name, scope) is not bindings:
                continue
            if all(_parsed_arguments(b) for b in bindings):
                names.append(name)
        current = current.parent
    for name in ARGS_NAMES:
        bindings = lookup(name, scope) or []
        if name not in names and bindings and all(b.kind == "param" for b in bindings):
            names.append(name)
    return names


def _parsed_arguments(binding: Binding) -> bool:
    value = binding.value
    return (
        binding.kind == "assign"
        and isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "parse_args"
    )


def _module_reads(facts: ModuleFacts, target: Scope) -> Iterator[tuple[str, str, bool, ast.expr]]:
    """``(name, key, subscript)`` for each ``name.key`` / ``name["key"]`` (key seed-like) the
    module reads where ``name`` means what it means in ``target``."""
    seen: set[tuple[str, str, bool]] = set()
    for read, child, scope in _seed_reads(facts):
        if read in seen:
            continue
        bindings = lookup(read[0], target)
        if (
            bindings is not None
            and lookup(read[0], scope) is bindings
            and all(b.kind in ("param", "assign", "other") for b in bindings)
        ):
            seen.add(read)
            yield (*read, child)


_SeedRead = tuple[tuple[str, str, bool], ast.expr, Scope]


def _seed_reads(facts: ModuleFacts) -> list[_SeedRead]:
    """Every seed-like ``name.key`` / ``name["key"]`` read of the module, with its scope, in
    the order :func:`_module_reads` visits them: the module is walked once (kept with the
    facts; a fix title per finding must not walk the whole module each)."""
    cached: Optional[list[_SeedRead]] = facts.__dict__.get("_fixes_seed_reads")
    if cached is not None:
        return cached
    found: list[_SeedRead] = []
    stack: list[tuple[ast.AST, Scope]] = [(facts.tree, facts.builder.module_scope)]
    scope_of = facts.builder.scope_of
    rows = _rows(facts, _SEED_ROWS)
    while stack:
        node, scope = stack.pop()
        for child in ast.iter_child_nodes(node):
            if rows is not None and isinstance(child, ast.stmt) and not _on_rows(child, rows):
                continue  # no seed-like name on its rows: no read in it
            inner = scope_of.get(id(child))
            if inner is not None:
                stack.append((child, inner))
                continue
            called = isinstance(node, ast.Call) and child is node.func  # `cfg.get_seed()`
            read = None if called else _seed_read(child)
            if read is not None:
                assert isinstance(child, ast.expr)
                found.append((read, child, scope))
            stack.append((child, scope))
    facts.__dict__["_fixes_seed_reads"] = found
    return found


# Rows of the text a module-wide walk needs (a statement on no such row holds nothing it
# looks for, and is skipped whole): a seed-like name (every ``_SEED_NAME`` holds `seed`),
# a comparison with None.
_SEED_ROWS = re.compile(r"seed", re.I)
_NONE_ROWS = re.compile(r"None")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as the parser counts rows


def _rows(facts: ModuleFacts, pattern: re.Pattern[str]) -> Optional[list[int]]:
    """The rows (sorted) of the module's text where ``pattern`` matches; None without the
    text (then nothing is skipped)."""

    def find() -> Optional[list[int]]:
        text = facts.text
        if not text:
            return None
        matches = [match.start() for match in pattern.finditer(text)]
        if not matches:
            return []
        starts = [0, *(match.end() for match in _LINE_BREAK.finditer(text))]
        return sorted({bisect.bisect_right(starts, at) for at in matches})

    return facts.once(f"fixes.rows.{pattern.pattern}", find)


def _on_rows(statement: ast.stmt, rows: list[int]) -> bool:
    """Whether the statement (with its decorators) spans one of ``rows``."""
    first = statement.lineno
    for decorator in getattr(statement, "decorator_list", ()):
        first = min(first, decorator.lineno)
    index = bisect.bisect_left(rows, first)
    return index < len(rows) and rows[index] <= (statement.end_lineno or statement.lineno)


def _walk_rows(facts: ModuleFacts, pattern: re.Pattern[str]) -> Iterator[ast.AST]:
    """Every node of the module, but for the statements on no row matching ``pattern``."""
    rows = _rows(facts, pattern)
    stack: list[ast.AST] = [facts.tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if rows is None or not isinstance(child, ast.stmt) or _on_rows(child, rows):
                stack.append(child)


def _seed_read(node: ast.AST) -> Optional[tuple[str, str, bool]]:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name)
        and _SEED_NAME.match(node.attr)
    ):
        return node.value.id, node.attr, False
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name)
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
        and _SEED_NAME.match(node.slice.value)
    ):
        return node.value.id, node.slice.value, True
    return None
