"""What RNG001, RNG002 and RNG005 take from the project: loader calls the module's own names cannot
show (a DataLoader subclass of another module, DataLoader reached through a star import) and
the values a builder's parameters take at its callers.

Every answer comes from index queries that :meth:`ProjectIndex.answers` includes, so a file's
findings stay a function of its text and of those answers. Without a project, a one-module
index stands in (same-module builders and callers still count).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, replace
from typing import Optional, Union

from seedlint.analysis.calls import DATALOADER, Signature
from seedlint.analysis.facts import LoaderCall, ModuleFacts
from seedlint.analysis.forwarding import Level, Outcome, Test, follow
from seedlint.analysis.names import FunctionNode, Scope
from seedlint.analysis.values import ABSENT, UNKNOWABLE, Value, known
from seedlint.analysis.workers import may_have_workers
from seedlint.project.index import ProjectIndex, Site, single
from seedlint.project.summary import (
    SPREAD,
    TOP_LEVEL,
    Init,
    builder_parameters,
    decode,
    module_keys,
    summarize,
)

# What DataLoader gives an argument a call leaves out (the ones a builder's callers may pass).
_LOADER_DEFAULTS: dict[str, object] = {
    "shuffle": None,
    "num_workers": 0,
    "generator": None,
    "worker_init_fn": None,
    "sampler": None,
    "batch_sampler": None,
}


def project_index(facts: ModuleFacts) -> ProjectIndex:
    """The run's index with this file's summary as its text is now; a one-module index outside
    a project."""
    summary = summarize(facts)
    path = facts.path or "<module>"
    project = facts.project
    if not isinstance(project, ProjectIndex):
        return single(path, summary)
    if project.summary(path) != summary:
        return project.overlay(path, summary)
    return project


@dataclass(frozen=True)
class Binding:
    """A builder's loader arguments as one of its callers sets them."""

    where: str  # "train.py:12"
    values: dict[str, Value]  # DataLoader parameter -> its value at that caller
    shown: dict[str, str]  # DataLoader parameter -> how the message shows it ("shuffle=True")
    spread: frozenset[str] = frozenset()  # those the caller passes through `**kwargs`

    def describe(self, trigger: str, missing: str) -> str:
        """The caller as a message names it: ``shuffle=True from `train.py:12```; when the
        missing argument is a named parameter of the builder too (the fix belongs at the
        caller), ```train.py:12` passes shuffle=True, no `generator```."""
        shown = self.shown.get(trigger, "")
        if missing in self.values and missing not in self.spread:
            return f"`{self.where}` passes {shown + ', ' if shown else ''}no `{missing}`"
        return f"{shown} from `{self.where}`" if shown else f"set by `{self.where}`"


class ProjectLoaders:
    """The project's answers for one module, computed on first use."""

    def __init__(self, facts: ModuleFacts) -> None:
        self.facts = facts
        self._index: Optional[ProjectIndex] = None
        self._keys: Optional[dict[int, str]] = None
        self._calls: Optional[list[LoaderCall]] = None
        self._qualnames: dict[int, str] = {}  # id(call) -> the loader class's name it calls

    @staticmethod
    def of(facts: ModuleFacts) -> ProjectLoaders:
        found = facts.memo.get("project-loaders")
        if not isinstance(found, ProjectLoaders):
            found = ProjectLoaders(facts)
            facts.memo["project-loaders"] = found
        return found

    def find(self, node: ast.AST) -> Optional[LoaderCall]:
        """The loader call of ``node``: the module's own, or one the project shows."""
        own = self.facts.loaders_by_call.get(id(node))
        if own is not None and own.call is node:
            return own
        return next((c for c in self.loader_calls() if c.call is node), None)

    @property
    def index(self) -> ProjectIndex:
        if self._index is None:
            self._index = project_index(self.facts)
        return self._index

    # -- builders ----------------------------------------------------------------------------
    def bindings(self, loader: LoaderCall) -> list[Binding]:
        """For a loader whose arguments are its function's parameters, their values at every
        call of that function in the project (none: no caller found, nothing is known)."""
        parameters = builder_parameters(self.facts, loader)
        if not parameters:
            return []
        owner = self.facts.enclosing_function(loader.scope)
        if isinstance(owner, ast.Module):
            return []
        if self._keys is None:
            self._keys = module_keys(self.facts)
        key = self._keys.get(id(owner))
        if key is None:
            return []
        path = self.facts.path or "<module>"
        found: list[Binding] = []
        for site in self.index.builder_sites(path, key):
            values: dict[str, Value] = {}
            shown: dict[str, str] = {}
            for name, parameter in parameters.items():
                value, text = self._bound(owner, parameter, site)
                values[name] = value
                shown[name] = f"{name}={text}" if text else name
            spread = frozenset(n for n, p in parameters.items() if p.startswith(SPREAD))
            found.append(Binding(site.where, values, shown, spread))
        return found

    def as_called(self, loader: LoaderCall) -> list[LoaderCall]:
        """The loader as each call of its function binds the arguments that are the function's
        parameters, where every call of the function in the project is in this module and can
        be seen (:meth:`ValueEvaluator.from_callers`): what the call passes, the default only
        where it leaves the parameter out. Otherwise (no call in the project, a call in another
        module, a callback) the loader as it is, each parameter its default: ``[loader]``."""
        parameters = builder_parameters(self.facts, loader)
        if not parameters:
            return [loader]
        owner = self.facts.enclosing_function(loader.scope)
        if isinstance(owner, ast.Module):
            return [loader]
        if self._keys is None:
            self._keys = module_keys(self.facts)
        key = self._keys.get(id(owner))
        if key is None:
            return [loader]
        path = os.path.abspath(self.facts.path or "<module>")
        callers = self.index.callers((path, key))
        if not callers or any(caller[0] != path for caller in callers):
            return [loader]
        calls = self.facts.values.from_callers(owner, parameters.values())
        if calls is None:
            return [loader]
        seen = set()
        for _, scope in calls:
            caller = self.facts.enclosing_function(scope)
            seen.add(TOP_LEVEL if isinstance(caller, ast.Module) else self._keys.get(id(caller)))
        if seen != {caller[1] for caller in callers}:
            return [loader]  # a caller whose call the module's own names do not show
        return [
            replace(loader, args={**loader.args, **{n: c[p] for n, p in parameters.items()}})
            for c, _ in calls
        ]

    def with_workers(self, loader: LoaderCall) -> list[LoaderCall]:
        """The loader as each path that may give it workers binds it: itself, when its own
        arguments may; else as each caller of its builder that may binds the builder's
        parameters. Empty: no path the project shows gives it workers."""
        if may_have_workers(loader):
            return [loader]
        found: list[LoaderCall] = []
        for binding in self.bindings(loader):
            bound = replace(loader, args={**loader.args, **binding.values})
            if may_have_workers(bound):
                found.append(bound)
        return found

    def _bound(self, function: FunctionNode, parameter: str, site: Site) -> tuple[Value, str]:
        """The value ``parameter`` of ``function`` takes at ``site``, and its literal text."""
        args = function.args
        if parameter.startswith(SPREAD):  # a keyword the call passes into `**kwargs`
            wanted = parameter[len(SPREAD) :]
            for name, text in site.keywords:
                if name == wanted:
                    return _with_text(text)
            if any(name == "**" for name, _ in site.keywords):
                return UNKNOWABLE, ""
            return known(_LOADER_DEFAULTS.get(wanted)), ""  # not passed: DataLoader's default
        positional = [a.arg for a in [*args.posonlyargs, *args.args]]
        decorators = _decorators(function)
        if "classmethod" in decorators or (site.bound and "staticmethod" not in decorators):
            positional = positional[1:]  # `self` or `cls` is not among the call's arguments
        for name, text in site.keywords:
            if name == parameter:
                return _with_text(text)
        if parameter in positional:
            index = positional.index(parameter)
            for position, text in enumerate(site.args):
                if text == "*":
                    return UNKNOWABLE, ""
                if position == index:
                    return _with_text(text)
        if any(name == "**" for name, _ in site.keywords) or "*" in site.args:
            return UNKNOWABLE, ""
        default = _default(function, parameter)
        if default is None:
            return UNKNOWABLE, ""
        scope = self.facts.resolver.scope_of(function).parent
        if scope is None:
            return UNKNOWABLE, ""
        return self.facts.values.evaluate(default, scope), ""

    # -- loader classes with an `__init__` of their own ----------------------------------------
    def routes(self, loader: LoaderCall) -> Optional[list[Outcome]]:
        """The DataLoader's arguments on each path the call may take through the ``__init__``
        of its project loader class and of the bases between it and the library's loader
        (:mod:`seedlint.analysis.forwarding`): the call bound to the class's signature, its
        defaults included. None: no such class, or its ``__init__`` is not followed."""
        if not loader.custom_init or loader.partial is not None:
            return None
        path = self.facts.path or "<module>"
        qualname = self._qualnames.get(id(loader.call))
        key = ""
        if qualname is None:
            qualname = ""
            classes = [
                m
                for m in self.facts.resolver.meanings(loader.call.func, loader.scope)
                if isinstance(m, ast.ClassDef)
            ]
            if len(classes) != 1:
                return None
            if self._keys is None:
                self._keys = module_keys(self.facts)
            key = self._keys.get(id(classes[0]), "")
            if not key:
                return None
        chain = self.index.loader_levels(path, qualname, key)
        if not chain:
            return None
        levels: list[Level] = []
        for _, class_key, init in chain:
            assert init.forwarding is not None
            name = class_key.rsplit(".", 1)[-1]
            levels.append(
                Level(name, init.positional, init.keyword_only, init.kwargs, init.forwarding)
            )
        first = levels[0]
        signature = Signature(first.positional, first.keyword_only)
        call = loader.call
        if any(isinstance(arg, ast.Starred) for arg in call.args) or len(call.args) > len(
            first.positional
        ):
            return None
        passed = self.facts.binder.bind(call, signature, loader.scope)
        extras: dict[str, Value] = {}
        for keyword in call.keywords:
            if keyword.arg is None:
                if not first.kwargs:
                    continue
                spread = self.facts.binder.dict_value(keyword.value, loader.scope)
                if spread.open:
                    return None
                for name, value in spread.entries.items():
                    if name not in signature.names:
                        extras[name] = value
            elif keyword.arg not in signature.names and first.kwargs:
                extras[keyword.arg] = self.facts.values.evaluate(keyword.value, loader.scope)

        def decide(level: int, test: Test, source: Optional[str]) -> Optional[bool]:
            if source is None:
                return None
            expr = signature.argument(call, source)
            if expr is None:
                return None
            classes = self.facts.instance_classes(expr, loader.scope)
            if not classes:
                return None
            verdicts = {
                self.index.derives_from(path, self._reference(c), chain[level][0], test.classes)
                for c in classes
            }
            return verdicts.pop() if len(verdicts) == 1 else None

        return follow(levels, passed, extras, decide)

    def _reference(self, meaning: object) -> str:
        """A class as the module's summary refers to it."""
        if isinstance(meaning, str):
            return "=" + meaning
        if self._keys is None:
            self._keys = module_keys(self.facts)
        key = self._keys.get(id(meaning))
        return "?" if key is None else "@" + key

    # -- loader classes of other modules, DataLoader through star imports -------------------
    def loader_calls(self) -> list[LoaderCall]:
        """Calls of a loader class of another module of the project, or of a DataLoader class
        bound through a star import of a project module (none outside a project)."""
        if self._calls is None:
            self._calls = self._loader_calls()
        return self._calls

    def _loader_calls(self) -> list[LoaderCall]:
        facts = self.facts
        project = facts.project
        if not isinstance(project, ProjectIndex):
            return []
        targets = facts.options.all_dataloader_classes
        names = set(project.loader_names())
        if facts.builder.star_imports:
            names |= {t.rsplit(".", 1)[-1] for t in targets}
        if not names or not any(True for _ in facts.calls_spelled(frozenset(names))):
            return []
        known_calls = facts.loaders_by_call
        path = facts.path or "<module>"
        result: list[LoaderCall] = []
        for call, scope in facts.calls_spelled(frozenset(names)):
            if id(call) in known_calls:
                continue
            for qualname in sorted(facts.resolver.qualnames(call.func, scope)):
                info = self.index.loader_class(path, qualname)
                if info is None or not (info.loader or info.external in targets):
                    continue
                result.append(self._loader(call, scope, info.name, info.init))
                self._qualnames[id(call)] = qualname
                break
        return result

    def _loader(self, call: ast.Call, scope: Scope, name: str, init: Optional[Init]) -> LoaderCall:
        facts = self.facts
        partial = facts.partial_of(call, scope)
        bound = LoaderCall(call, scope, {}, False, partial).bound
        signature = DATALOADER
        custom = init is not None
        if init is not None:
            taken = set(init.positional) | set(init.keyword_only)
            extra = tuple(n for n in DATALOADER.names if n not in taken) if init.kwargs else ()
            signature = Signature(init.positional, (*init.keyword_only, *extra))
        args = facts.binder.bind(bound, signature, scope)
        values = {n: args.get(n, known(ABSENT)) for n in DATALOADER.names}
        return LoaderCall(call, scope, values, custom, partial, signature, name)


def _with_text(text: str) -> tuple[Value, str]:
    value = decode(text)
    options = value.options
    if options is not None and len(options) == 1 and not value.unknowable:
        (only,) = options
        if only is None or isinstance(only, (bool, int, float)):
            return value, repr(only)
    return value, ""


def _default(function: FunctionNode, parameter: str) -> Optional[ast.expr]:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[Union[ast.expr, None]] = [None] * (len(positional) - len(args.defaults))
    defaults.extend(args.defaults)
    for arg, default in zip(positional, defaults):
        if arg.arg == parameter:
            return default
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults):
        if arg.arg == parameter:
            return kw_default
    return None


def _decorators(function: FunctionNode) -> set[str]:
    return {d.id for d in function.decorator_list if isinstance(d, ast.Name)}
