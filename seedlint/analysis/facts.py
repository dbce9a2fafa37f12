"""Module facts, computed once per file and shared by every rule.

Each fact is computed lazily, so a rule that never asks for capture regions costs nothing there.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional, TypeVar, Union

from seedlint.analysis.calls import DATALOADER, CallBinder, Signature
from seedlint.analysis.configs import ConfigSource
from seedlint.analysis.flow import never_run
from seedlint.analysis.guards import not_none_at
from seedlint.analysis.libraries import checked_loader_classes, worker_seeding_loaders
from seedlint.analysis.names import (
    PARTIAL,
    FunctionNode,
    Meaning,
    NameResolver,
    Scope,
    ScopeBuilder,
    assignment_statements,
    canonical,
    lookup,
    passed_argument,
)
from seedlint.analysis.regions import (
    DEFAULT_CAPTURE_CONTEXTS,
    Region,
    RegionFinder,
    region_calls,
)
from seedlint.analysis.seeding import (
    DEFAULT_SEED_FUNCTIONS,
    DEVICE_SEEDING,
    Seeding,
    SeedingClassifier,
)
from seedlint.analysis.values import Value, ValueEvaluator, function_returns, without_none

T = TypeVar("T")

# torch's DataLoader and the library loader classes with its semantics (the library table).
DATALOADER_CLASSES: tuple[str, ...] = ("torch.utils.data.DataLoader", *checked_loader_classes())


@dataclass(frozen=True)
class AnalysisOptions:
    """The configuration that changes what names mean (all additive to the built-in lists)."""

    dataloader_classes: tuple[str, ...] = ()
    capture_contexts: tuple[str, ...] = ()
    seed_functions: tuple[str, ...] = ()
    set_epoch_wrappers: tuple[str, ...] = ()
    worker_seeding_loaders: tuple[str, ...] = ()  # loader classes installing worker seeding

    @property
    def all_worker_seeding_loaders(self) -> frozenset[str]:
        return frozenset(
            canonical(c) for c in (*worker_seeding_loaders(), *self.worker_seeding_loaders)
        )

    @property
    def all_dataloader_classes(self) -> frozenset[str]:
        return frozenset(canonical(c) for c in (*DATALOADER_CLASSES, *self.dataloader_classes))

    @property
    def all_capture_contexts(self) -> frozenset[str]:
        return frozenset((*DEFAULT_CAPTURE_CONTEXTS, *self.capture_contexts))

    @property
    def all_seed_functions(self) -> frozenset[str]:
        return frozenset((*DEFAULT_SEED_FUNCTIONS, *self.seed_functions))


@dataclass(frozen=True)
class LoaderCall:
    """A call that constructs a torch DataLoader (or a subclass), with its bound arguments."""

    call: ast.Call
    scope: Scope
    args: dict[str, Value]
    custom_init: bool  # a subclass of this module with its own __init__: positions unknown
    # ``make = functools.partial(DataLoader, ...)``: the partial, whose arguments come first
    partial: Optional[ast.Call] = None
    # a loader class of another module of the project (its ``__init__``'s signature), or
    # DataLoader reached through a star import: the signature the call binds to, else None
    signature: Optional[Signature] = None
    name: str = ""  # that class's name (the messages name its `__init__`)

    @property
    def bound(self) -> ast.Call:
        """The call as the loader class receives it (a partial's arguments first)."""
        if self.partial is None:
            return self.call
        return ast.Call(
            func=self.partial.args[0],
            args=[*self.partial.args[1:], *self.call.args],
            keywords=[*self.partial.keywords, *self.call.keywords],
        )

    @property
    def dataset(self) -> Optional[ast.expr]:
        """The dataset argument: the first positional one, or ``dataset=``."""
        call = self.bound
        for keyword in call.keywords:
            if keyword.arg == "dataset":
                return keyword.value
        if self.signature is not None and self.signature.positional[:1] != ("dataset",):
            return None
        first = call.args[0] if call.args else None
        return None if isinstance(first, ast.Starred) else first

    def argument(self, name: str) -> Optional[ast.expr]:
        """The expression passed explicitly for the DataLoader parameter ``name`` (positions
        count only where they are the DataLoader's: not for a subclass with its own
        ``__init__``)."""
        if self.signature is not None:
            return self.signature.argument(self.bound, name)
        return DATALOADER.argument(self.bound, name, positions=not self.custom_init)


@dataclass(frozen=True)
class BoundCall:
    """A call to one of several torch APIs (or a subclass of this module), with its arguments
    bound to that API's signature."""

    call: ast.Call
    scope: Scope
    target: str  # the API's qualified name it resolves to (or a class of this module derives)
    signature: Signature
    args: dict[str, Value]
    custom_init: bool  # a subclass of this module with its own __init__: positions unknown
    accepts: bool  # that __init__ may take the keyword (a parameter of that name, or **kwargs)

    def argument(self, name: str) -> Optional[ast.expr]:
        """The expression passed explicitly for parameter ``name``."""
        return self.signature.argument(self.call, name, positions=not self.custom_init)

    def position(self, name: str) -> Optional[int]:
        """Where ``name`` sits among the positional parameters (None for a subclass with an
        ``__init__`` of its own, or a keyword-only parameter)."""
        if self.custom_init or name not in self.signature.positional:
            return None
        return self.signature.positional.index(name)


@dataclass(frozen=True)
class SeedCall:
    call: ast.Call
    scope: Scope
    kind: Seeding


@dataclass
class ModuleFacts:
    tree: ast.Module
    options: AnalysisOptions = field(default_factory=AnalysisOptions)
    text: str = ""  # the source the tree was parsed from (fixes quote expressions from it)
    path: str = ""  # the file's name as displayed (its module in the project)
    # The project's index (a ``seedlint.project.index.ProjectIndex``, which sits above this
    # layer): rules that decide per program read it; None outside a project.
    project: object = None
    # Where the config files the module loads are read (a ``ConfigSource``: the project
    # layer's ``ConfigFiles``, which records what it read); None: configs are not followed.
    configs: Optional[ConfigSource] = None

    @cached_property
    def builder(self) -> ScopeBuilder:
        builder = ScopeBuilder(self.tree)
        star_bindings = getattr(self.project, "star_bindings", None)
        if builder.star_imports and self.path and callable(star_bindings):
            builder.star_names = dict(star_bindings(os.path.abspath(self.path)))
        return builder

    def release(self) -> None:
        """Drop everything computed, breaking the reference cycles between scopes and their
        bindings, so that reference counting frees the tree at once (the runner checks files
        with the cyclic garbage collector paused). The facts are unusable afterwards."""
        builder = self.__dict__.get("builder")
        if isinstance(builder, ScopeBuilder):
            for scope in builder.scope_of.values():
                scope.bindings.clear()
                scope.parent = None
        self.__dict__.clear()

    @cached_property
    def memo(self) -> dict[str, object]:
        """Per-module results of the layers above, computed once for every rule (the project's
        answers for this module)."""
        return {}

    def once(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, computed once per module and kept in :attr:`memo` (what each finding
        asks of its whole module: asking it again per finding makes a check quadratic)."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]  # type: ignore[return-value]

    @cached_property
    def never_run(self) -> list[tuple[int, int]]:
        """Row ranges of statements no path runs (behind a constant ``if``/``while`` test)."""
        return never_run(self.tree)

    def runs(self, node: ast.AST) -> bool:
        """Whether some path may run ``node`` (it is not behind a constant false test)."""
        row = getattr(node, "lineno", 0)
        return not any(first <= row <= last for first, last in self.never_run)

    @cached_property
    def resolver(self) -> NameResolver:
        return NameResolver(self.builder)

    @cached_property
    def values(self) -> ValueEvaluator:
        arguments = getattr(self.project, "argparse_value", None)
        asked = self._project_argument if callable(arguments) and self.path else None
        return ValueEvaluator(self.resolver, self.tree, self.configs, asked)

    def _project_argument(self, dest: str) -> Optional[Value]:
        """The project's argparse defaults of ``dest`` (``ProjectIndex.argparse_value``)."""
        found = self.project.argparse_value(os.path.abspath(self.path), dest)  # type: ignore[attr-defined]
        return found if isinstance(found, Value) else None

    @cached_property
    def binder(self) -> CallBinder:
        binder = CallBinder(self.values)
        # `**f()` with `f` of another module of the project: the dict the index records
        returned_dict = getattr(self.project, "returned_dict", None)
        if self.path and callable(returned_dict):
            binder.elsewhere = lambda call, scope: returned_dict(self, call)
        return binder

    @cached_property
    def seeding(self) -> SeedingClassifier:
        return SeedingClassifier(self.resolver, self.values, self.options.all_seed_functions)

    @cached_property
    def call_scopes(self) -> dict[int, Scope]:
        return {id(call): scope for call, scope in self.builder.calls}

    def calls_spelled(self, last_names: frozenset[str]) -> Iterator[tuple[ast.Call, Scope]]:
        """The calls whose name can mean something ending in ``last_names``."""
        return self._calls_spelled(last_names)

    def _calls_spelled(self, last_names: frozenset[str]) -> Iterator[tuple[ast.Call, Scope]]:
        """The calls whose name can mean something ending in ``last_names`` (aliases included):
        the cheap gate before resolving a call."""
        spellings = self.resolver.spellings(last_names)
        for call, scope in self.builder.calls:
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name is not None and name in spellings:
                yield call, scope

    # -- DataLoaders ---------------------------------------------------------------------------
    @cached_property
    def dataloader_calls(self) -> list[LoaderCall]:
        """The module's DataLoader calls, their arguments evaluated with the project's argparse
        defaults in view (:meth:`ValueEvaluator.recording`; the dests asked:
        :attr:`argparse_asks`)."""
        with self.values.recording() as asked:
            found = self._dataloader_calls()
        self.__dict__["_argparse_asks"] = frozenset(asked)
        return found

    @property
    def argparse_asks(self) -> frozenset[str]:
        """The argparse dests the module's DataLoader calls ask of the project (an attribute
        ``args.num_workers`` of an object the module does not know, no argparse argument of
        the module defining it): the project's answers for them decide those values."""
        if "_argparse_asks" not in self.__dict__:
            _ = self.dataloader_calls  # computes them
        found = self.__dict__.get("_argparse_asks", frozenset())
        assert isinstance(found, frozenset)
        return found

    def _dataloader_calls(self) -> list[LoaderCall]:
        targets = self.options.all_dataloader_classes
        result: list[LoaderCall] = []
        for call, scope in self._calls_spelled(frozenset(t.rsplit(".", 1)[-1] for t in targets)):
            meanings = self.resolver.meanings(call.func, scope)
            loader = [m for m in meanings if self.resolver.is_subclass(m, targets)]
            if not loader:
                continue
            custom = all(_has_custom_init(m) for m in loader)
            partial = self.partial_of(call, scope)
            bound = call
            if partial is not None:
                bound = LoaderCall(call, scope, {}, custom, partial).bound
            if custom:  # only keywords can be read as the DataLoader's
                bare = ast.Call(func=call.func, args=[], keywords=bound.keywords)
                args = self.binder.bind(bare, DATALOADER, scope)
            else:
                args = self.binder.bind(bound, DATALOADER, scope)
                if partial is None:
                    args = self._narrowed_samplers(call, scope, args)
            result.append(LoaderCall(call, scope, args, custom, partial))
        return result

    def _narrowed_samplers(
        self, call: ast.Call, scope: Scope, args: dict[str, Value]
    ) -> dict[str, Value]:
        """``sampler=`` (or ``batch_sampler=``) that the tests on the way to the loader show is
        not None there: PyTorch's DataLoader raises when it is given with ``shuffle=True``, so
        this loader cannot shuffle."""
        for name in ("sampler", "batch_sampler"):
            if not args[name].may(_is_none):
                continue
            expr = DATALOADER.argument(call, name)
            if isinstance(expr, (ast.Name, ast.Attribute)) and self._guarded(expr, scope):
                args = {**args, name: without_none(args[name])}
        return args

    def not_none_here(self, expr: ast.expr, scope: Scope) -> bool:
        """The tests on every path to ``expr`` (a name or attributes on one, read in ``scope``'s
        own statements) show it is not None where it is read."""
        return isinstance(expr, (ast.Name, ast.Attribute)) and self._guarded(expr, scope)

    def _guarded(self, expr: ast.expr, scope: Scope) -> bool:
        """The tests on every path to ``expr`` (in its function's or module's own statements)
        show it is not None."""
        root = scope.node
        if not isinstance(root, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            return False  # a lambda runs later; a comprehension or class body: not followed
        return not_none_at(expr, root, self._local_name(expr, scope))

    def _local_name(self, expr: ast.expr, scope: Scope) -> bool:
        """``expr`` is a name local to ``scope``'s function that no other scope rebinds
        (``nonlocal``): no call can change it."""
        if not isinstance(expr, ast.Name) or isinstance(scope.node, ast.Module):
            return False
        if expr.id in scope.global_names or expr.id not in scope.bindings:
            return False
        return expr.id not in self.once("facts.nonlocal_names", self._nonlocal_names)

    def _nonlocal_names(self) -> frozenset[str]:
        """The names some scope of the module declares ``nonlocal`` (looked for once)."""
        return frozenset(
            name
            for scope in self.builder.scope_of.values()
            for name, bindings in scope.bindings.items()
            if any(isinstance(binding.node, ast.Nonlocal) for binding in bindings)
        )

    def partial_of(self, call: ast.Call, scope: Scope) -> Optional[ast.Call]:
        """The ``functools.partial(Class, ...)`` that ``call``'s callee is on every path (its
        arguments are the call's first ones), else None."""
        if isinstance(call.func, ast.Name):
            found = self.assigned_expressions(call.func, scope)
        else:
            found = [(call.func, scope)]
        if not found or len(found) != 1:
            return None
        node, node_scope = found[0]
        if (
            isinstance(node, ast.Call)
            and node.args
            and not isinstance(node.args[0], ast.Starred)
            and PARTIAL in self.resolver.qualnames(node.func, node_scope)
        ):
            return node
        return None

    @cached_property
    def _bound_calls(self) -> dict[tuple[tuple[str, ...], str], list[BoundCall]]:
        return {}

    def calls_to(self, apis: dict[str, Signature], keyword: str = "") -> list[BoundCall]:
        """The calls to any of ``apis`` (qualified name -> signature; a class of this module
        deriving from one counts), aliases and module aliases included, with bound arguments.
        ``keyword``: the parameter a subclass's own ``__init__`` is asked about (``accepts``)."""
        key = (tuple(sorted(apis)), keyword)
        cache = self._bound_calls
        if key in cache:
            return list(cache[key])
        targets = frozenset(apis)
        result: list[BoundCall] = []
        for call, scope in self._calls_spelled(frozenset(t.rsplit(".", 1)[-1] for t in targets)):
            meanings = self.resolver.meanings(call.func, scope)
            matched = sorted(
                t for m in meanings for t in targets if self.resolver.is_subclass(m, frozenset({t}))
            )
            if not matched:
                continue
            signature = apis[matched[0]]
            hits = [m for m in meanings if self.resolver.is_subclass(m, targets)]
            custom = all(_has_custom_init(m) for m in hits)
            bare = ast.Call(func=call.func, args=[], keywords=call.keywords)
            args = self.binder.bind(bare if custom else call, signature, scope)
            accepts = not custom or any(_init_accepts(m, keyword) for m in hits)
            result.append(BoundCall(call, scope, matched[0], signature, args, custom, accepts))
        cache[key] = result
        return list(result)

    @cached_property
    def loaders_by_call(self) -> dict[int, LoaderCall]:
        """:attr:`dataloader_calls` by ``id`` of their call (a fix looks its loader up)."""
        return {id(loader.call): loader for loader in self.dataloader_calls}

    @cached_property
    def alias_candidates(self) -> dict[str, list[str]]:
        """Module-level names bound to each module, filled by the fixes' name choice (once per
        module name, not once per fix)."""
        return {}

    @cached_property
    def calls_by_scope(self) -> dict[int, list[ast.Call]]:
        grouped: dict[int, list[ast.Call]] = {}
        for call, scope in self.builder.calls:
            grouped.setdefault(id(scope), []).append(call)
        return grouped

    def call_to(
        self, expr: ast.expr, scope: Scope, qualnames: frozenset[str]
    ) -> Optional[ast.Call]:
        """``expr`` if it calls one of ``qualnames``, or the call a name is bound to once."""
        for node, node_scope in self.assigned_expressions(expr, scope) or ():
            if isinstance(node, ast.Call) and self.resolver.qualnames(node.func, node_scope) & (
                qualnames
            ):
                return node
        return None

    def keyword_true(self, call: ast.Call, name: str, scope: Scope) -> bool:
        """``call`` passes ``name=`` a value that is ``True`` on every path."""
        for keyword in call.keywords:
            if keyword.arg == name:
                value = self.values.evaluate(keyword.value, scope)
                return value.options is not None and all(o is True for o in value.options)
        return False

    def instance_classes(self, expr: ast.expr, scope: Scope) -> Optional[frozenset[Meaning]]:
        """The classes ``expr`` may be an instance of, when every path builds one by a call."""
        value_nodes = self.assigned_expressions(expr, scope)
        if value_nodes is None:
            return None
        classes: set[Meaning] = set()
        for node, node_scope in value_nodes:
            if not isinstance(node, ast.Call):
                return None
            meanings = self.resolver.meanings(node.func, node_scope)
            if not meanings:
                return None
            classes |= meanings
        return frozenset(classes)

    def dataset_classes(self, expr: ast.expr, scope: Scope) -> Optional[frozenset[Meaning]]:
        """The classes ``expr`` may be an instance of, as :meth:`instance_classes` gives them,
        with a call of a function of this module replaced by the classes its return values
        may be instances of (``def omniglot(): return Omniglot(...)``), transitively; a value
        it returns that is built otherwise (a parameter, an attribute) adds nothing."""
        classes = self.instance_classes(expr, scope)
        if classes is None:
            return None
        return frozenset(self._through_returns(classes, set()))

    def _through_returns(self, meanings: frozenset[Meaning], active: set[int]) -> set[Meaning]:
        found: set[Meaning] = set()
        for meaning in meanings:
            if not isinstance(meaning, ast.FunctionDef) or meaning.decorator_list:
                found.add(meaning)  # a class, a name of another module, a wrapped function
                continue
            returns = function_returns(meaning)
            if returns is None or id(meaning) in active or len(active) > 10:
                continue  # a generator function; a recursion
            scope = self.resolver.scope_of(meaning)
            active.add(id(meaning))
            for value in returns:
                inner = None if value is None else self.instance_classes(value, scope)
                if inner:
                    found |= self._through_returns(inner, active)
            active.discard(id(meaning))
        return found

    def assigned_expressions(
        self, expr: ast.expr, scope: Scope, depth: int = 0
    ) -> Optional[list[tuple[ast.expr, Scope]]]:
        if depth > 10:
            return None
        if isinstance(expr, ast.Name):
            bindings = lookup(expr.id, scope)
            if not bindings:
                return None
            result: list[tuple[ast.expr, Scope]] = []
            for binding in bindings:
                if binding.kind != "assign" or binding.value is None:
                    return None
                inner = self.assigned_expressions(binding.value, binding.scope, depth + 1)
                if inner is None:
                    return None
                result.extend(inner)
            return result
        if isinstance(expr, ast.IfExp):
            left = self.assigned_expressions(expr.body, scope, depth + 1)
            right = self.assigned_expressions(expr.orelse, scope, depth + 1)
            return None if left is None or right is None else left + right
        return [(expr, scope)]

    # -- seeding -------------------------------------------------------------------------------
    @cached_property
    def seed_calls(self) -> list[SeedCall]:
        result: list[SeedCall] = []
        for call, scope in self._calls_spelled(self.seeding.last_names):
            kind = self.seeding.classify(call, scope)
            if kind is not None:
                result.append(SeedCall(call, scope, kind))
        return result

    @cached_property
    def seed_call_by_node(self) -> dict[int, SeedCall]:
        return {id(s.call): s for s in self.seed_calls}

    @cached_property
    def seeding_functions(self) -> dict[int, ast.Call]:
        """Functions of this module whose body seeds a device generator, directly or through
        another such function: ``id(def node) -> the first seeding call in its body``."""
        functions = [node for node, _ in self.builder.functions]
        direct: dict[int, ast.Call] = {}
        calls_of: dict[int, list[ast.Call]] = {}
        for function in functions:
            calls = list(region_calls(tuple(function.body)))
            calls_of[id(function)] = calls
            for call in calls:
                seed = self.seed_call_by_node.get(id(call))
                if seed is not None and seed.kind in DEVICE_SEEDING:
                    direct[id(function)] = call
                    break
        changed = True
        while changed:
            changed = False
            for function in functions:
                if id(function) in direct:
                    continue
                for call in calls_of[id(function)]:
                    target = self.local_function(call)
                    if target is not None and id(target) in direct:
                        direct[id(function)] = call
                        changed = True
                        break
        return direct

    def local_function(self, call: ast.Call) -> Optional[FunctionNode]:
        scope = self.call_scopes.get(id(call))
        if scope is None:
            return None
        for meaning in self.resolver.meanings(call.func, scope):
            if isinstance(meaning, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return meaning
        return None

    # -- capture regions -----------------------------------------------------------------------
    @cached_property
    def capture_regions(self) -> list[Region]:
        finder = RegionFinder(
            self.tree,
            self.resolver,
            self.builder.withs,
            self.builder.calls,
            self.options.all_capture_contexts,
        )
        return finder.regions()

    # -- RNG objects copied into DataLoader workers ----------------------------------------------
    @cached_property
    def copied_rngs(self) -> list[CopiedRng]:
        """RNG objects that dataset-like classes of this module hold from before the workers
        start: ``self.x = np.random.default_rng(...)`` in the methods its construction runs
        (:meth:`init_rngs`), or a module-level RNG object used in their methods."""
        module_rngs: dict[str, tuple[str, ast.AST, ast.Call]] = {}
        for name, bindings in self.builder.module_scope.bindings.items():
            for binding in bindings:
                factory = self._rng_factory(binding.value, binding.scope)
                if binding.kind == "assign" and factory:
                    assert isinstance(binding.value, ast.Call)
                    module_rngs[name] = (factory, binding.node, binding.value)
        found: list[CopiedRng] = []
        for node, _ in self.builder.classes:
            if not self._dataset_like(node):
                continue
            found.extend(self.init_rngs.get(id(node), ()))
            if not module_rngs:
                continue  # no module-level RNG object for its methods to use
            for method in node.body:
                if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                method_scope = self.resolver.scope_of(method)
                for stmt in ast.walk(method):
                    if isinstance(stmt, ast.Name) and stmt.id in module_rngs:
                        bindings = lookup(stmt.id, method_scope) or []
                        if any(b.scope is self.builder.module_scope for b in bindings):
                            factory, origin, call = module_rngs[stmt.id]
                            found.append(
                                CopiedRng(node, stmt.id, factory, "module level", origin, call)
                            )
        unique: dict[tuple[int, str], CopiedRng] = {}
        for item in found:
            unique.setdefault((id(item.holder), item.name), item)
        return list(unique.values())

    @cached_property
    def init_rngs(self) -> dict[int, list[CopiedRng]]:
        """By ``id`` of each class of this module (dataset-like or not): the RNG objects its
        construction stores on ``self`` (``self.x = np.random.RandomState(...)``) in the
        methods :meth:`init_methods` gives (``__init__`` and what it calls on ``self``)."""
        found: dict[int, list[CopiedRng]] = {}
        if not self.may_make_rng:
            return found
        for node, _ in self.builder.classes:
            rngs: list[CopiedRng] = []
            for method in self.init_methods(node):
                method_scope = self.resolver.scope_of(method)
                for stmt in assignment_statements(method):
                    factory = self._rng_factory(stmt.value, method_scope)
                    if not factory:
                        continue
                    assert isinstance(stmt.value, ast.Call)
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    for target in targets:
                        if _is_self_attribute(target):
                            assert isinstance(target, ast.Attribute)
                            where = f"{node.name}.{method.name}"
                            name = f"self.{target.attr}"
                            rngs.append(CopiedRng(node, name, factory, where, stmt, stmt.value))
            if rngs:
                found[id(node)] = rngs
        return found

    def init_methods(self, node: ast.ClassDef) -> list[FunctionNode]:
        """The methods that building an instance of ``node`` runs: its ``__init__`` (looked
        up through its bases of this module) and the methods that one calls on ``self``
        (``self.seed()``), transitively, each looked up the same way. A base of another
        module is the index's to follow."""
        return self._self_closure(node, ("__init__",))

    def item_attributes(self, node: ast.ClassDef) -> frozenset[str]:
        """The attributes ``self.x`` that fetching an item of the dataset ``node`` reads (in
        the workers): in ``__getitem__``, ``__getitems__`` or ``__iter__`` and the methods
        they call on ``self``, transitively."""
        found: set[str] = set()
        for method in self._self_closure(node, ITEM_METHODS):
            for attribute in ast.walk(method):
                if isinstance(attribute, ast.Attribute) and _is_self_attribute(attribute):
                    found.add(attribute.attr)
        return frozenset(found)

    def held_objects(
        self, node: ast.ClassDef, construction: Optional[tuple[ast.Call, Scope]] = None
    ) -> list[tuple[str, Meaning, int]]:
        """The objects an instance of the dataset ``node`` holds and uses when fetching an item
        (:meth:`item_attributes`), as (attribute, its class, row): ``self.a = K(...)`` in the
        methods its construction runs, or ``self.a = p`` for a parameter ``p`` of ``__init__``
        that ``construction`` (the call building the instance) passes ``K(...)``."""
        used = self.item_attributes(node)
        if not used:
            return []
        start = self.class_method(node, "__init__")
        found: list[tuple[str, Meaning, int]] = []
        for method in self.init_methods(node):
            scope = self.resolver.scope_of(method)
            for stmt in assignment_statements(method):
                if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                    continue
                target = stmt.targets[0]
                if not _is_self_attribute(target):
                    continue
                assert isinstance(target, ast.Attribute)
                if target.attr not in used:
                    continue
                value, value_scope = stmt.value, scope
                if method is start and construction is not None:
                    passed = _argument_for(method, stmt.value, construction[0])
                    if passed is not None:
                        value, value_scope = passed, construction[1]
                for meaning in self.dataset_classes(value, value_scope) or ():
                    found.append((target.attr, meaning, stmt.lineno))
        return found

    def _self_closure(self, node: ast.ClassDef, names: tuple[str, ...]) -> list[FunctionNode]:
        """The methods ``names`` of ``node`` and those they call on ``self``, transitively
        (found once per class and names)."""
        return self.once(
            f"facts.closure:{id(node)}:{','.join(names)}",
            lambda: self._compute_closure(node, names),
        )

    def _compute_closure(self, node: ast.ClassDef, names: tuple[str, ...]) -> list[FunctionNode]:
        found: list[FunctionNode] = []
        for name in names:
            method = self.class_method(node, name)
            if method is not None and method not in found:
                found.append(method)
        seen = {id(method) for method in found}
        index = 0
        while index < len(found):
            method = found[index]
            index += 1
            for call in ast.walk(method):
                if not isinstance(call, ast.Call) or not _is_self_attribute(call.func):
                    continue
                assert isinstance(call.func, ast.Attribute)
                called = self.class_method(node, call.func.attr)
                if called is not None and id(called) not in seen:
                    seen.add(id(called))
                    found.append(called)
        return found

    def class_method(self, node: ast.ClassDef, name: str) -> Optional[FunctionNode]:
        """The method ``name`` an instance of ``node`` runs, as far as this module shows: the
        class's own, else that of the nearest base of this module defining it (bases of
        other modules are not read here); None when none does."""
        seen: set[int] = set()
        stack: list[Meaning] = [node]
        while stack:
            current = stack.pop(0)
            if not isinstance(current, ast.ClassDef) or id(current) in seen:
                continue
            seen.add(id(current))
            for item in current.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                    return item
            stack.extend(sorted(self.resolver.class_bases(current), key=_meaning_order))
        return None

    @cached_property
    def may_make_rng(self) -> bool:
        """Whether the module may call an RNG object factory (:data:`RNG_OBJECT_FACTORIES`):
        its text spells one's last name (an alias of one is spelled where it is made), or the
        module has a star import, or no text to read."""
        if not self.text or self.builder.star_imports:
            return True
        return any(word in self.text for word in _FACTORY_WORDS)

    def _rng_factory(self, expr: Optional[ast.expr], scope: Scope) -> Optional[str]:
        if not isinstance(expr, ast.Call):
            return None
        names = self.resolver.qualnames(expr.func, scope) & RNG_OBJECT_FACTORIES
        return min(names) if names else None

    def _dataset_like(self, node: ast.ClassDef) -> bool:
        if self.resolver.is_subclass(node, DATASET_BASES):
            return True
        return any(
            isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and s.name in ("__getitem__", "__iter__", "__getitems__")
            for s in node.body
        )

    def holders(self, meaning: Meaning) -> list[CopiedRng]:
        """The copied RNG objects an instance of ``meaning`` carries (its bases' too)."""
        result: list[CopiedRng] = []
        seen: set[int] = set()
        stack = [meaning]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.ClassDef) and id(current) not in seen:
                seen.add(id(current))
                result.extend(c for c in self.copied_rngs if c.holder is current)
                stack.extend(self.resolver.class_bases(current))
        return result

    def seeded_just_before(self, call: ast.Call, scope: Scope) -> bool:
        """Whether the statement making ``call`` comes right after one that seeds torch with a
        seed written in it (``pl.seed_everything(42)``, ``torch.manual_seed(seed)``; not a
        seed a call computes), in the same block: the call draws from a generator just seeded,
        whatever was drawn before."""
        owner = self.enclosing_function(scope)
        block: list[ast.stmt] = owner.body
        while True:
            index = next((i for i, s in enumerate(block) if _spans(s, call)), None)
            if index is None:
                return False
            statement = block[index]
            inner = next((b for b in _blocks(statement) if any(_spans(s, call) for s in b)), None)
            if inner is None:
                break
            block = inner
        if index == 0:
            return False
        before = block[index - 1]
        if not isinstance(before, ast.Expr) or not isinstance(before.value, ast.Call):
            return False
        seeding = self.seed_call_by_node.get(id(before.value))
        if seeding is None or seeding.kind not in (Seeding.TORCH, Seeding.HELPER):
            return False
        given = [
            *before.value.args[:1],
            *(k.value for k in before.value.keywords if k.arg == "seed"),
        ]
        return bool(given) and not any(isinstance(n, ast.Call) for n in ast.walk(given[0]))

    def enclosing_function(self, scope: Scope) -> Union[FunctionNode, ast.Module]:
        """The function (or the module) whose body a scope's code runs in."""
        current: Optional[Scope] = scope
        while current is not None:
            if isinstance(current.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                return current.node
            current = current.parent
        return self.tree


def _spans(statement: ast.stmt, node: ast.AST) -> bool:
    """Whether ``node`` lies within ``statement``'s lines and columns."""
    start = (statement.lineno, statement.col_offset)
    end = (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
    here = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    return start <= here < end or here == start


def _blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists directly inside a compound statement (not a function or class)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    found: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        value = getattr(statement, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            found.append(value)
    for handler in getattr(statement, "handlers", ()):
        found.append(handler.body)
    for case in getattr(statement, "cases", ()):
        found.append(case.body)
    return found


def _argument_for(method: FunctionNode, value: ast.expr, call: ast.Call) -> Optional[ast.expr]:
    """What ``call`` (building the class) passes for the parameter of ``method`` (its
    ``__init__``) that ``value`` names; None when ``value`` is no such parameter or the call
    does not show it (a ``*args``, a ``**kwargs``)."""
    if not isinstance(value, ast.Name):
        return None
    args = method.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)][1:]  # `self` left out
    return passed_argument(call, positional, value.id)


def _meaning_order(meaning: Meaning) -> tuple[int, str]:
    """Bases in a fixed order: the module's classes by line, then names."""
    if isinstance(meaning, str):
        return (1 << 30, meaning)
    return (getattr(meaning, "lineno", 0), "")


def _is_none(option: object) -> bool:
    return option is None


def _is_self_attribute(target: ast.expr) -> bool:
    return (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    )


def _has_custom_init(meaning: Meaning) -> bool:
    if not isinstance(meaning, ast.ClassDef):
        return False
    for stmt in meaning.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__init__":
            args = stmt.args
            passthrough = len(args.args) == 1 and args.vararg is not None and args.kwarg is not None
            return not passthrough
    return False


def _init_accepts(meaning: Meaning, name: str) -> bool:
    """A class's own ``__init__`` has a parameter ``name`` or takes ``**kwargs``."""
    if not isinstance(meaning, ast.ClassDef):
        return True
    for stmt in meaning.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__init__":
            args = stmt.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
            return args.kwarg is not None or any(a.arg == name for a in every)
    return True


# Constructors of RNG objects that carry their own state (pytorch-rng.md 3.3-3.4): a copy made
# before the workers start is duplicated in every worker and not reseeded by PyTorch.
RNG_OBJECT_FACTORIES: frozenset[str] = frozenset(
    {
        "numpy.random.default_rng",
        "numpy.random.RandomState",
        "numpy.random.Generator",
        "random.Random",
        "torch.Generator",
    }
)
_FACTORY_WORDS = tuple(sorted({name.rsplit(".", 1)[-1] for name in RNG_OBJECT_FACTORIES}))
# The methods a DataLoader worker calls on the dataset to fetch items.
ITEM_METHODS = ("__getitem__", "__getitems__", "__iter__")
DATASET_BASES: frozenset[str] = frozenset(
    {"torch.utils.data.Dataset", "torch.utils.data.IterableDataset"}
)


@dataclass(frozen=True)
class CopiedRng:
    """An RNG object a dataset holds from before the workers start."""

    holder: ast.ClassDef  # the dataset class
    name: str  # "self.rng" or the module-level name
    factory: str  # e.g. "numpy.random.default_rng"
    where: str  # "NoisyDataset.__init__" or "module level"
    node: ast.AST
    call: ast.Call  # the call that creates the object
