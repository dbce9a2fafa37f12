"""The index: every module's summary, joined across imports, and the programs RNG004 decides on.

Built once per run before the per-file work (the pool's workers inherit it). Everything is
computed lazily and remembered: resolving a reference (helper chains through re-exports and
star imports, methods through the subclass closure), a function's callees and callers, and a
program's closure (what it seeds and whether it draws torch randomness).

A *program* is an entry point with everything it calls in the project: a module's top-level
code (its ``__main__`` block included: a script), a module-level ``main`` (console-script
entry points call it), or a test function in a test file.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import os
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from seedlint.analysis.calls import DATALOADER, DictValue
from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
from seedlint.analysis.forwarding import ISINSTANCE
from seedlint.analysis.names import canonical
from seedlint.analysis.seeding import DEFAULT_SEED_FUNCTIONS, Seeding, qualnames_of
from seedlint.analysis.values import ABSENT, Value, known, union, with_origin
from seedlint.project.hints import ClassHint, loader_closure, loader_links, possible_loader_names
from seedlint.project.layout import Layout
from seedlint.project.summary import (
    CUDA,
    CUDA_ALL,
    NUMPY,
    RANDOM,
    TOP_LEVEL,
    TORCH,
    WORKERS_OFF,
    WORKERS_ON,
    FunctionSummary,
    Init,
    ModuleSummary,
    Seed,
    decode,
    draws_name,
    module_draws,
    passed_to,
    spread_calls,
)

Node = tuple[str, str]  # (path, function key); key OPAQUE: a module known from its bytes only
OPAQUE = "?"
# A call that reaches a library function through a project module (a star import, a
# re-export): ("", "!draw") draws torch randomness, ("", "!seed:<stream>") seeds a stream.
DRAW: Node = ("", "!draw")
_EXTERNAL_SEEDS: dict[str, str] = {
    **{q: RANDOM for q in qualnames_of(frozenset({Seeding.RANDOM}))},
    **{q: NUMPY for q in qualnames_of(frozenset({Seeding.NUMPY}))},
    **{q: TORCH for q in qualnames_of(frozenset({Seeding.TORCH}))},
    **{q: CUDA for q in qualnames_of(frozenset({Seeding.CUDA_CURRENT}))},
    **{q: CUDA_ALL for q in qualnames_of(frozenset({Seeding.CUDA_ALL}))},
    **{q: TORCH for q in DEFAULT_SEED_FUNCTIONS},
    **{q: TORCH for q in qualnames_of(frozenset({Seeding.CONFIG}))},
}
_SEEDING_WORDS = ("seed", "determinis", "reproduc")
_DEVICE_STREAMS = frozenset({TORCH, CUDA, CUDA_ALL})
_MAX_DEPTH = 12


@dataclass(frozen=True)
class Closure:
    """What a program (or a function with its callees) does: the streams it seeds (outside
    scoped seeding) and whether it draws torch randomness."""

    seeds: frozenset[str]
    draws: bool
    draw: str = ""  # where the first draw found is
    cpu: bool = False  # some draw may use the CPU generator (not on a CUDA device it names)


@dataclass(frozen=True)
class Verdict:
    """A seed block (a function's own seeding) RNG004 reports.

    ``case``: ``"unseeded-torch"`` or ``"cuda-only"``; ``library``: no program reaches it (a
    seeding helper); ``completed``: some program reaching it seeds torch elsewhere (the fix is
    then unsafe); ``entry``: the program flagged, as ``path:key``.
    """

    key: str
    case: str
    library: bool
    completed: bool
    entry: str
    draw: str = ""  # the first draw the flagged program reaches
    cpu: bool = True  # a program flagged may draw from the CPU generator (else CUDA draws only)


@dataclass(frozen=True)
class Site:
    """A call of a builder function somewhere in the project, with its encoded arguments
    (see :class:`~seedlint.project.summary.CallSite`). ``where``: ``train.py:12`` (the caller's
    path from the project's root); ``bound``: called on an instance, or as the class (its first
    parameter, ``self``, is not among the arguments)."""

    where: str
    bound: bool
    args: tuple[str, ...]
    keywords: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class LoaderClass:
    """What a class name a module calls denotes through the project, when it is a loader:
    ``name`` the class's name; ``external``: a DataLoader class of a library (one of the
    index's targets) reached through a project module (a star import, a re-export), else
    None; ``loader``: a project class deriving from a DataLoader class; ``init``: the
    ``__init__`` it runs (the nearest project class with one of its own, not a ``*args,
    **kwargs`` pass-through), None when it is the library's."""

    name: str
    external: Optional[str]
    loader: bool
    init: Optional[Init]


class _Derived:
    """What the index derives from one module's summary, once per summary object (the
    rounds of a build, and the builds of a session, share most summaries): its call
    references by last name (``(order, function key, reference)``, in the module's order),
    and ``(name, name standing for it)`` for its classes' bases and its imports."""

    __slots__ = ("calls", "standing", "summary")

    def __init__(self, summary: ModuleSummary) -> None:
        self.summary = summary
        self.calls: dict[str, list[tuple[int, str, str]]] = {}
        order = 0
        for key, function in summary.functions.items():
            for reference in function.calls:
                self.calls.setdefault(reference_name(reference), []).append((order, key, reference))
                order += 1
        self.standing: list[tuple[str, str]] = []
        for key, info in summary.classes.items():
            name = key.rsplit(".", 1)[-1]
            self.standing.extend(
                (base, name) for base in sorted({reference_name(b) for b in info.bases})
            )
        for name, target in summary.aliases.items():
            self.standing.append((target.rsplit(".", 1)[-1], name))


_DERIVED: dict[int, _Derived] = {}
_DERIVED_LIMIT = 200_000  # summaries kept derived (a long session's older ones are let go)


def _derived(summary: ModuleSummary) -> _Derived:
    found = _DERIVED.get(id(summary))
    if found is None or found.summary is not summary:
        if len(_DERIVED) >= _DERIVED_LIMIT:
            _DERIVED.clear()
        found = _DERIVED[id(summary)] = _Derived(summary)
    return found


class ProjectIndex:
    def __init__(
        self,
        layout: Layout,
        summaries: Mapping[str, ModuleSummary],
        hints: Optional[Mapping[str, ClassHint]] = None,
        loaders: Optional[frozenset[str]] = None,
        targets: Optional[frozenset[str]] = None,
        normalized: bool = False,
    ) -> None:
        """``targets``: the DataLoader classes (the settings' ``dataloader-classes`` with the
        library's). ``hints``: what the bytes of the modules not parsed yet say about their
        classes, and ``loaders`` the names that may be a loader class anywhere in the project
        (see ``project.hints``): a name of such a module that cannot be a loader class is
        then answered without looking into it. ``normalized``: the summaries' paths are
        absolute and normalised already."""
        self.layout = layout
        self.targets = targets if targets is not None else AnalysisOptions().all_dataloader_classes
        self._hints = hints if loaders is not None else None
        self._loaders = loaders if loaders is not None else frozenset()
        self.summaries: dict[str, ModuleSummary] = (
            dict(summaries) if normalized else {os.path.abspath(p): s for p, s in summaries.items()}
        )
        for path in self.summaries:
            if path not in layout.paths:
                layout.add(path)
        self._refs: dict[tuple[str, str], tuple[Node, ...]] = {}
        self._callers: dict[Node, list[Node]] = {}
        self._full_modules: Optional[list[tuple[str, _Derived]]] = None
        self._by_name: dict[str, list[int]] = {}  # a name -> the modules calling by it
        self._standing: Optional[dict[str, list[tuple[str, str]]]] = None
        self._closures: dict[Node, Closure] = {}
        self._draws: dict[str, bool] = {}  # may_draw of modules known from their bytes
        # What the calls of a function pass for a parameter guarding a seeding call (or for
        # a key of a dict parameter it spreads).
        self._passed: dict[tuple[Node, str, int, str], list[tuple[tuple[str, ...], str]]] = {}
        self._may_pass: dict[tuple[Node, str, str], bool] = {}
        self._sites: Optional[dict[Node, list[Site]]] = None
        self._loader_classes: dict[tuple[str, str], Optional[LoaderClass]] = {}
        # The functions passed by position at a project loader class's `worker_init_fn`.
        self._positional_workers: Optional[frozenset[Node]] = None
        # _denote's results, and the names a star import of a module may bind: star imports
        # fan out (a package re-exporting its modules), so a name is followed once per module.
        self._denoted: dict[tuple[str, str, bool], Optional[tuple[str, str]]] = {}
        self._exports: dict[str, Optional[frozenset[str]]] = {}
        self._stars: dict[str, tuple[tuple[str, str], ...]] = {}  # star_bindings, by path
        self._loader_names: Optional[frozenset[str]] = None
        self._arguments: Optional[dict[str, list[tuple[str, str, int, bool]]]] = None
        # The modules summarised from their bytes (not ``full``) that an answer looked into:
        # reading them could change it (the run parses them on demand, see run.summaries).
        self.unread: set[str] = set()

    # -- modules -----------------------------------------------------------------------------
    def summary(self, path: str) -> Optional[ModuleSummary]:
        return self.summaries.get(os.path.abspath(path))

    def module_name(self, path: str) -> str:
        return self.layout.name(os.path.abspath(path))

    def overlay(self, path: str, summary: ModuleSummary) -> ProjectIndex:
        """This index with ``path``'s summary replaced (a file being fixed, or read from
        standard input, whose text differs from what the index was built from)."""
        summaries = dict(self.summaries)
        summaries[os.path.abspath(path)] = summary
        return ProjectIndex(self.layout, summaries, targets=self.targets)

    # -- resolution --------------------------------------------------------------------------
    def resolve(self, path: str, reference: str) -> tuple[Node, ...]:
        """The functions a reference of ``path``'s summary may call (a class: its
        ``__init__`` through its bases)."""
        key = (path, reference)
        found = self._refs.get(key)
        if found is None:
            self._refs[key] = ()  # a reference resolved in terms of itself reaches nothing
            found = tuple(dict.fromkeys(self._resolve(path, reference, 0)))
            self._refs[key] = found
        return found

    def _resolve(self, path: str, reference: str, depth: int) -> list[Node]:
        summary = self.summaries.get(path)
        if summary is None or depth > _MAX_DEPTH:
            return []
        kind, name = reference[0], reference[1:]
        if kind == "@":
            return self._callable(path, name)
        if kind == "=":
            return self._qualified(path, name, depth)
        if kind in "%^":
            class_key, _, method = name.rpartition(".")
            return self._method(path, class_key, method, skip_self=kind == "^")
        if kind == "&":  # a method called on an instance of a class the module names
            return self._qualified(path, name, depth)
        return []

    def _callable(self, path: str, key: str) -> list[Node]:
        summary = self.summaries[path]
        if key in summary.classes:
            return self._method(path, key, "__init__", skip_self=False)
        if key in summary.functions:
            return [(path, key)]
        return []

    def _qualified(self, path: str, qualname: str, depth: int) -> list[Node]:
        found = self.layout.resolve(path, qualname)
        if found is None:
            if depth == 0:
                return []  # the module's own library call: its summary already judged it
            name = canonical(qualname)
            stream = _EXTERNAL_SEEDS.get(name)
            if stream is not None:
                return [("", "!seed:" + stream)]
            return [DRAW] if draws_name(name) else []
        target, rest = found
        return self._inside(target, rest, depth + 1)

    def _inside(self, target: str, rest: tuple[str, ...], depth: int) -> list[Node]:
        """What ``target``'s name ``rest`` (``("set_seed",)``, ``("C", "m")``) is."""
        summary = self.summaries.get(target)
        if summary is None or not rest or depth > _MAX_DEPTH:
            return []
        if not summary.full:
            return [(target, OPAQUE)]
        key = ".".join(rest)
        if key in summary.functions or key in summary.classes:
            return self._callable(target, key)
        if len(rest) == 2 and rest[0] in summary.classes:
            return self._method(target, rest[0], rest[1], skip_self=False)
        alias = summary.aliases.get(rest[0])
        if alias is not None:
            tail = ".".join(rest[1:])
            return self._qualified(target, f"{alias}.{tail}" if tail else alias, depth)
        for star in summary.stars:
            joined = f"{star}{key}" if star.endswith(".") else f"{star}.{key}"
            found = self._qualified(target, joined, depth)
            if found:
                return found
        return []

    def _method(self, path: str, class_key: str, method: str, skip_self: bool) -> list[Node]:
        """``method`` looked up through the class ``class_key`` of ``path`` and its bases (the
        subclass closure across modules)."""
        seen: set[tuple[str, str]] = set()
        stack = [(path, class_key, skip_self)]
        found: list[Node] = []
        while stack:
            current, key, skip = stack.pop(0)
            if (current, key) in seen and not skip:
                continue
            seen.add((current, key))
            summary = self.summaries.get(current)
            if summary is None:
                continue
            if not summary.full:
                found.append((current, OPAQUE))
                continue
            info = summary.classes.get(key)
            if info is None:
                continue
            if not skip and method in info.methods:
                found.append((current, f"{key}.{method}"))
                continue
            for base in info.bases:
                for base_path, base_key in self._classes(current, base):
                    stack.append((base_path, base_key, False))
                if method == "__init__":
                    found.extend(self._library_init(current, base))
        return found

    def _library_init(self, path: str, base: str) -> list[Node]:
        """What a library base class's ``__init__`` seeds (the library table's classes whose
        construction seeds: a subclass of transformers' ``Trainer``)."""
        if not base.startswith("=") or self.layout.resolve(path, base[1:]) is not None:
            return []
        stream = _EXTERNAL_SEEDS.get(canonical(base[1:]))
        return [] if stream is None else [("", "!seed:" + stream)]

    def _classes(self, path: str, reference: str) -> list[tuple[str, str]]:
        """The classes (path, key) a base-class reference denotes."""
        if reference.startswith("@"):
            return [(path, reference[1:])]
        if not reference.startswith("="):
            return []
        found = self.layout.resolve(path, reference[1:])
        if found is None:
            return []
        target, rest = found
        for _ in range(_MAX_DEPTH):
            summary = self.summaries.get(target)
            if summary is None or not rest:
                return []
            if not summary.full:
                return [(target, OPAQUE)]
            key = ".".join(rest)
            if key in summary.classes:
                return [(target, key)]
            alias = summary.aliases.get(rest[0])
            if alias is None:
                return []
            tail = ".".join(rest[1:])
            found = self.layout.resolve(target, f"{alias}.{tail}" if tail else alias)
            if found is None:
                return []
            target, rest = found
        return []

    def is_subclass(self, path: str, reference: str, bases: frozenset[str]) -> bool:
        """Whether a class reference of ``path`` derives (through the project) from one of the
        qualified names ``bases``."""
        stack = self._classes(path, reference)
        seen: set[tuple[str, str]] = set()
        while stack:
            current, key = stack.pop()
            if (current, key) in seen:
                continue
            seen.add((current, key))
            summary = self.summaries.get(current)
            info = summary.classes.get(key) if summary is not None else None
            if info is None:
                continue
            for base in info.bases:
                if base.startswith("=") and base[1:] in bases:
                    return True
                stack.extend(self._classes(current, base))
        return False

    # -- worker_init_fn ----------------------------------------------------------------------
    def is_worker(self, node: Node, function: FunctionSummary) -> bool:
        """Whether the function runs in a DataLoader's workers: passed as a
        ``worker_init_fn`` its summary sees (by keyword, or to a loader of its module), or
        by position to a loader class of another module of the project, at that class's
        ``worker_init_fn`` place (its own ``__init__``'s, else the DataLoader's)."""
        if function.worker:
            return True
        if self._positional_workers is None:
            self._positional_workers = frozenset(self._find_positional_workers())
        return node in self._positional_workers

    def _find_positional_workers(self) -> Iterator[Node]:
        for path, summary in self.summaries.items():
            if not summary.full:
                continue
            for key, reference, position in summary.positional_callables:
                info = self.loader_class(path, reference[1:])
                if info is None or not (info.loader or info.external in self.targets):
                    continue
                names = DATALOADER.positional if info.init is None else info.init.positional
                if position < len(names) and names[position] == "worker_init_fn":
                    yield (path, key)

    # -- the call graph ----------------------------------------------------------------------
    def function(self, node: Node) -> Optional[FunctionSummary]:
        summary = self.summaries.get(node[0])
        return None if summary is None else summary.functions.get(node[1])

    def callees(self, node: Node) -> list[Node]:
        function = self.function(node)
        if function is None:
            return []
        result: list[Node] = []
        for reference in function.calls:
            result.extend(self.resolve(node[0], reference))
        return result

    def callers(self, node: Node) -> list[Node]:
        """The functions of the project whose calls reach ``node`` directly, once per call
        reference that resolves to it, in the project's order (modules, their functions,
        their calls). Only the references by a name that may stand for ``node`` are
        resolved (:meth:`_names_for`): a reference resolves to a function under its own
        last name, an import alias of it, or (for ``__init__``) a class deriving from its
        class."""
        found = self._callers.get(node)
        if found is None:
            chosen: list[tuple[int, int, Node, str]] = []
            full = self._full()
            for name in self._names_for(node[1]):
                for position in self._calling(name):
                    path, derived = full[position]
                    chosen.extend(
                        (position, order, (path, key), reference)
                        for order, key, reference in derived.calls[name]
                    )
            chosen.sort(key=lambda item: item[:2])
            found = [caller for _, _, caller, ref in chosen if node in self.resolve(caller[0], ref)]
            self._callers[node] = found
        return found

    def _full(self) -> list[tuple[str, _Derived]]:
        """The modules read (full summaries), in the project's order, each with what is
        derived from its summary once (:func:`_derived`)."""
        if self._full_modules is None:
            self._full_modules = [
                (path, _derived(summary))
                for path, summary in self.summaries.items()
                if summary.full
            ]
        return self._full_modules

    def _calling(self, name: str) -> list[int]:
        """The positions (in :meth:`_full`) of the modules with a call reference by ``name``."""
        found = self._by_name.get(name)
        if found is None:
            found = self._by_name[name] = [
                position
                for position, (_, derived) in enumerate(self._full())
                if name in derived.calls
            ]
        return found

    def _names_for(self, key: str) -> set[str]:
        """The last names a call reference may have to resolve to the function ``key``: its
        own (a method's: ``self.m()``, ``super().m()``), its class's for ``__init__`` (``C()``),
        and the names standing for those (:meth:`standing`)."""
        parts = key.rsplit(".", 2)
        names = {parts[-1]}
        if parts[-1] == "__init__" and len(parts) > 1:
            names.add(parts[-2])
        standing = self.standing()
        pending = list(names)
        while pending:
            for name, _ in standing.get(pending.pop(), ()):
                if name and name not in names:
                    names.add(name)
                    pending.append(name)
        return names

    def standing(self) -> dict[str, list[tuple[str, str]]]:
        """``name -> [(name standing for it, module)]`` over the modules read: a class
        deriving from a class by that name (its ``__init__``, its methods), an import or
        alias of it under another name (a re-export)."""
        if self._standing is None:
            standing: dict[str, list[tuple[str, str]]] = {}
            for path, derived in self._full():
                for stood_for, name in derived.standing:
                    standing.setdefault(stood_for, []).append((name, path))
            self._standing = standing
        return self._standing

    def closure(self, start: Node) -> Closure:
        """What ``start`` and everything it calls in the project seed and draw. Seeding inside
        scoped code (state saved and restored, ``fork_rng``), and everything it calls, does not
        count. ``draw``: where the first draw found is (the function that draws, or the module
        read from its bytes, or the library call reached through a project module)."""
        cached = self._closures.get(start)
        if cached is not None:
            return cached
        seeds: set[str] = set()
        draw = ""
        cpu = False
        seen: set[tuple[Node, bool]] = set()
        stack: list[tuple[Node, bool, Node]] = [(start, False, start)]
        while stack:
            node, scoped, caller = stack.pop()
            if (node, scoped) in seen:
                continue
            seen.add((node, scoped))
            if node[1].startswith("!"):
                if node == DRAW:
                    cpu = True
                    draw = draw or self._describe(caller) + " (a library call that draws)"
                if node[1].startswith("!seed:") and not scoped:
                    seeds.add(node[1][len("!seed:") :])
                continue
            if node[1] == OPAQUE:
                self.unread.add(node[0])
                if (not draw or not cpu) and self.may_draw(node[0]):
                    cpu = True
                    draw = draw or f"`{self.module_name(node[0])}` (its words)"
                continue
            function = self.function(node)
            if function is None:
                continue
            if function.draws:
                cpu = cpu or not function.cuda_only
                draw = draw or self._describe(node)
            inner = scoped or function.scoped
            if not inner and not self.is_worker(node, function):
                seeds.update(seed.stream for seed in self.live_seeds(node, function))
            for callee in self.callees(node):
                stack.append((callee, inner, node))
        result = Closure(frozenset(seeds), bool(draw), draw, cpu)
        self._closures[start] = result
        return result

    def live_seeds(self, node: Node, function: FunctionSummary) -> tuple[Seed, ...]:
        """The seeding calls of ``function`` (at ``node``) that may run: those behind
        ``if <parameter>:`` only when some call in the project may pass a true value."""
        if all(not seed.guard for seed in function.seeds):
            return function.seeds
        return tuple(
            seed
            for seed in function.seeds
            if not seed.guard or self._passes_true(node, seed.guard, seed.position, set())
        )

    def _passes_true(
        self,
        node: Node,
        name: str,
        position: int,
        seen: set[tuple[Node, str, str]],
        entry: str = "",
    ) -> bool:
        """Whether some call of ``node`` may pass a true value for its parameter ``name`` (at
        ``position``; with ``entry``: a dict whose key ``entry`` may hold one): yes where
        nothing in the project calls it (other code may) or it is an entry point, or a
        caller's call of it is not found; a caller passing on its own parameter (or its own
        dict parameter's key) is asked in turn."""
        question = (node, name, entry)
        cached = self._may_pass.get(question)
        if cached is not None:
            return cached
        top = not seen
        if question in seen:
            return False  # a call cycle: the other callers decide
        seen.add(question)
        callers = self.callers(node)
        found = (
            not callers
            or self.is_entry(node)
            or any(
                self._caller_passes(node, caller, name, position, seen, entry)
                for caller in dict.fromkeys(callers)
            )
        )
        if top:  # inside a cycle a no is not final: only the first question's answer is
            self._may_pass[question] = found
        return found

    def _caller_passes(
        self,
        node: Node,
        caller: Node,
        name: str,
        position: int,
        seen: set[tuple[Node, str, str]],
        entry: str = "",
    ) -> bool:
        """Whether a call of ``node`` in ``caller`` may pass a true value for ``name`` (yes
        when none is found there)."""
        calls = [
            passed
            for references, passed in self._passed_by(caller, name, position, entry)
            if any(node in self.resolve(caller[0], r) for r in references)
        ]
        return not calls or any(self._may_be_true(caller, passed, seen) for passed in calls)

    def _may_be_true(self, caller: Node, passed: str, seen: set[tuple[Node, str, str]]) -> bool:
        """What a call passes (see :meth:`_Summarizer.passed`) may be true: ``"?"``, or a
        parameter of ``caller`` (a key of its dict parameter) that its callers may make so."""
        if not passed.startswith("p:"):
            return passed == "?"
        parts = passed.split(":", 3)
        entry = parts[3] if len(parts) > 3 else ""
        return self._passes_true(caller, parts[1], int(parts[2]), seen, entry)

    def _passed_by(
        self, caller: Node, name: str, position: int, entry: str = ""
    ) -> list[tuple[tuple[str, ...], str]]:
        key = (caller, name, position, entry)
        found = self._passed.get(key)
        if found is None:
            try:
                with open(caller[0], "rb") as handle:
                    found = passed_to(handle.read(), caller[1], name, position, entry)
            except OSError:
                found = []  # unreadable: no call found, so it may pass anything
            self._passed[key] = found
        return found

    def _describe(self, node: Node) -> str:
        return f"`{self.module_name(node[0])}:{node[1] or '<module>'}`"

    def may_draw(self, path: str) -> bool:
        """Whether a module known from its bytes may draw torch randomness (read from the
        file when its summary leaves it open: see :class:`ModuleSummary`)."""
        summary = self.summaries.get(path)
        if summary is None:
            return False
        if summary.may_draw is not None:
            return summary.may_draw
        found = self._draws.get(path)
        if found is None:
            try:
                with open(path, "rb") as handle:
                    found = module_draws(handle.read(), path)
            except OSError:
                found = False
            self._draws[path] = found
        return found

    def is_entry(self, node: Node) -> bool:
        if node[1] in (TOP_LEVEL, "main"):
            return True  # a module's top level (and `__main__` block), its `main` function
        summary = self.summaries.get(node[0])
        if summary is not None and node[1] in summary.spawned:
            return True  # run by `torch.multiprocessing.spawn`: a process of its own
        function = self.function(node)
        return function is not None and function.test and _test_file(node[0])

    def reached_by(self, node: Node) -> list[Node]:
        """``node`` and every function whose calls reach it in the project."""
        seen = {node}
        order = [node]
        stack = [node]
        while stack:
            for caller in self.callers(stack.pop()):
                if caller not in seen:
                    seen.add(caller)
                    order.append(caller)
                    stack.append(caller)
        return order

    def reaching(self, node: Node) -> tuple[list[Node], list[Node]]:
        """(the entry points whose programs reach ``node``, the functions reaching it that no
        project code calls), ``node`` itself included."""
        reached = self.reached_by(node)
        entries = [current for current in reached if self.is_entry(current)]
        roots = [current for current in reached if not self.callers(current)]
        return entries, roots

    # -- Lightning's worker seeding, decided by the programs (RNG002) ------------------------
    def constructors(self, path: str, class_key: str) -> list[Node]:
        """The functions of the project that build the class ``class_key`` of ``path`` or a
        project subclass of it (a call of the class, whatever ``__init__`` it runs: a
        framework calls its hooks on the object)."""
        found: list[Node] = []
        full = self._full()
        target = (path, class_key)
        for name in sorted(self._names_for(class_key + ".__init__") - {"__init__"}):
            for position in self._calling(name):
                caller, derived = full[position]
                for _, key, reference in derived.calls[name]:
                    if self._derives(self._classes(caller, reference), target):
                        found.append((caller, key))
        return list(dict.fromkeys(found))

    def _derives(self, stack: list[tuple[str, str]], target: tuple[str, str]) -> bool:
        seen: set[tuple[str, str]] = set()
        while stack:
            current = stack.pop()
            if current == target:
                return True
            if current in seen:
                continue
            seen.add(current)
            summary = self.summaries.get(current[0])
            info = summary.classes.get(current[1]) if summary is not None else None
            for base in info.bases if info is not None else ():
                stack.extend(self._classes(current[0], base))
        return False

    def loader_reach(self, path: str, key: str) -> list[Node]:
        """``path``'s function ``key`` and every function reaching it; for a method, also those
        reaching a construction of its class (:meth:`constructors`)."""
        nodes = self.reached_by((path, key))
        class_key = key.rpartition(".")[0]
        summary = self.summaries.get(path)
        if class_key and summary is not None and class_key in summary.classes:
            for node in self.constructors(path, class_key):
                nodes.extend(self.reached_by(node))
        return list(dict.fromkeys(nodes))

    def worker_seeding(self, path: str) -> tuple[tuple[str, str], ...]:
        """For a module that imports Lightning, each function building a loader with workers
        and no ``worker_init_fn`` (its own loaders, and calls of the project's loader
        classes), with what the programs reaching it do (:meth:`_workers_verdict`)."""
        path = os.path.abspath(path)
        summary = self.summaries.get(path)
        if summary is None or not summary.full or not summary.lightning:
            return ()
        keys = dict.fromkeys(summary.worker_loaders)
        for key, function in summary.functions.items():
            for reference in function.calls:
                if reference[:1] == "=" and self._loader_class_of(path, reference[1:]):
                    keys[key] = None
                    break
        return tuple((key, self._workers_verdict(path, key)) for key in keys)

    def _workers_verdict(self, path: str, key: str) -> str:
        """``"on"``: some program reaching ``key`` asks Lightning to seed the workers;
        ``"off:<path>:<row>"``: none does, and one calls its seeder without asking (there);
        ``"none"``: programs reach it, and none seeds the workers through Lightning; ``""``: no
        program of the project reaches it."""
        entries = [node for node in self.loader_reach(path, key) if self.is_entry(node)]
        off = ""
        for entry in sorted(entries):
            seeds = self.closure(entry).seeds
            if WORKERS_ON in seeds:
                return "on"
            if WORKERS_OFF in seeds and not off:
                off = "off:" + self._first_seed(entry, WORKERS_OFF)
        if off or not entries:
            return off
        return "none"

    def _first_seed(self, start: Node, stream: str) -> str:
        """``path:row`` (from the project root) of the first seed of ``stream`` that ``start``
        reaches outside scoped code."""
        seen: set[Node] = set()
        stack: list[Node] = [start]
        while stack:
            node = stack.pop()
            function = self.function(node)
            if (
                node in seen
                or function is None
                or function.scoped
                or self.is_worker(node, function)
            ):
                continue
            seen.add(node)
            for seed in function.seeds:
                if seed.stream == stream:
                    return f"{self._where(node[0])}:{seed.row}"
            stack.extend(reversed(self.callees(node)))
        return ""

    def named_through(self, words: Iterable[str]) -> set[str]:
        """The modules summarised from their bytes that a call (or call site, or base class)
        named by one of ``words`` resolves into: a re-export (a star import, say) that may
        hide a caller of a function whose callers matter."""
        words = set(words)
        found: set[str] = set()
        full = self._full()
        for word in words:  # a call site's references are among its function's calls
            for position in self._calling(word):
                path, derived = full[position]
                for _, _, reference in derived.calls[word]:
                    found.update(n[0] for n in self.resolve(path, reference) if n[1] == OPAQUE)
        for path, derived in full:
            for info in derived.summary.classes.values():
                for base in info.bases:
                    if reference_name(base) in words:
                        found.update(c[0] for c in self._classes(path, base) if c[1] == OPAQUE)
        return found

    # -- what a file's findings take from the project -------------------------------------
    def answers(self, path: str) -> tuple[Hashable, ...]:
        """Everything the rules checking ``path`` may take from the project, as one hashable
        value: a file's findings are a function of its own text and of this. The run checks
        every file without the project first, and checks again with it only the files whose
        answers differ from their one-module index's (:func:`single`); the cache keys a file's
        findings by its content and this value. A rule consults the project only through
        queries whose results are part of it."""
        return (
            tuple(self.unseeded_torch(path)),
            self.builder_answers(path),
            self.loader_class_answers(path),
            self.forwarding_answers(path),
            self.captured_seeding(path),
            self.worker_dataset_rngs(path),
            self.star_bindings(path),
            self.worker_seeding(path),
            self.returned_dicts(path),
            self.argparse_answers(path),
        )

    # -- the dict a function of another module returns, spread into a call ------------------
    def returned_dicts(self, path: str) -> tuple[tuple[str, object], ...]:
        """For each function of another module whose returned dict ``path`` spreads
        (``ModuleSummary.spreads``), that dict as its summary records it (None: not known)."""
        path = os.path.abspath(path)
        summary = self.summaries.get(path)
        if summary is None or not summary.full or not summary.spreads:
            return ()
        return tuple((ref, self._returned_entries(path, ref)) for ref in summary.spreads)

    def _returned_entries(
        self, path: str, reference: str
    ) -> Optional[tuple[tuple[str, str, bool], ...]]:
        nodes = self.resolve(path, reference)
        if len(nodes) != 1:
            return None
        (node,) = nodes
        if node[1] == OPAQUE:
            self.unread.add(node[0])  # parsed by the run, which then asks again
            return None
        function = self.function(node)
        return None if function is None else function.kwargs

    def returned_dict(self, facts: ModuleFacts, call: ast.Call) -> Optional[DictValue]:
        """The dict ``call`` (spread by ``**`` in the module of ``facts``) returns, when it
        calls a function of another module whose every return is a closed dict; None where
        the call is none the summary lists (:func:`spread_calls`) or the dict is not known."""
        reference = spread_calls(facts).get(id(call))
        if reference is None:
            return None
        entries = self._returned_entries(os.path.abspath(facts.path), reference)
        if entries is None:
            return None
        found: dict[str, Value] = {}
        for key, text, maybe in entries:
            value = decode(text)
            found[key] = union([value, known(ABSENT)]) if maybe else value
        return DictValue(found, open=False)

    # -- argparse arguments defined in other modules ------------------------------------------
    def _argument_table(self) -> dict[str, list[tuple[str, str, int, bool]]]:
        """Every argparse default of the project's modules read from their trees, by dest:
        (the module's absolute path, encoded value, line, set by ``set_defaults``)."""
        if self._arguments is None:
            table: dict[str, list[tuple[str, str, int, bool]]] = {}
            for path, summary in self.summaries.items():
                for dest, value, row, overrides in summary.arguments:
                    table.setdefault(dest, []).append((path, value, row, overrides))
            self._arguments = table
        return self._arguments

    def _arguments_for(self, path: str, dest: str) -> list[tuple[str, str, int, bool]]:
        """The argparse defaults of ``dest`` that modules other than ``path`` define."""
        return [entry for entry in self._argument_table().get(dest, ()) if entry[0] != path]

    def argparse_answers(self, path: str) -> tuple[Hashable, ...]:
        """What the project's argparse says of the dests the loaders of ``path`` ask for
        (:attr:`~seedlint.project.summary.ModuleSummary.asks`): each dest some other module
        defines, with its defaults and where they are set."""
        path = os.path.abspath(path)
        summary = self.summaries.get(path)
        if summary is None or not summary.asks:
            return ()
        found: list[tuple[str, tuple[tuple[str, str, int, bool], ...]]] = []
        for dest in summary.asks:
            entries = self._arguments_for(path, dest)
            if entries:
                shown = tuple((self._where(p), value, row, o) for p, value, row, o in entries)
                found.append((dest, tuple(sorted(shown))))
        return tuple(found)

    def argparse_value(self, path: str, dest: str) -> Optional[Value]:
        """The value of ``args.dest`` read in ``path`` as the project's other modules define
        the argument: every default they give (a dest one module sets with ``set_defaults``:
        that module's), each with its file and line; None when no other module defines it."""
        entries = self._arguments_for(os.path.abspath(path), dest)
        if not entries:
            return None
        values: list[Value] = []
        for module, value, row, overrides in sorted(entries):
            kind = "`set_defaults`" if overrides else "argparse default"
            where = f"{kind}, {self._where(module)}:{row}"
            values.append(with_origin(decode(value), where, row, module))
        return union(values)

    # -- what a star import of a project module binds ----------------------------------------
    def star_bindings(self, path: str) -> tuple[tuple[str, str], ...]:
        """The names the star imports of ``path`` bind from project modules, each with what it
        means there: the module's absolute imports (``random``, ``torch``, ``nn`` ->
        ``torch.nn``), its classes and functions (``Net`` -> ``lib.Net``), and what its own
        star imports of project modules bind; names starting with ``_`` are not bound."""
        path = os.path.abspath(path)
        kept = self._stars.get(path)
        if kept is not None:
            return kept
        summary = self.summaries.get(path)
        if summary is None or not summary.full or not summary.stars:
            return ()
        # A star import under `if TYPE_CHECKING:` binds nothing at run time (transformers'
        # `from .models import *` would otherwise read every model's module).
        own = _top_level_names(path)
        running = {s for _, _, s in own if s is not None} if own is not None else None
        found: dict[str, str] = {}
        seen: set[str] = set()
        for star in summary.stars:
            if running is not None and star not in running:
                continue
            module = self.layout.resolve(path, star)
            if module is None or module[1]:
                continue  # a library module, or one the project lacks
            self._star_names(module[0], star, found, seen)
        self._stars[path] = result = tuple(sorted(found.items()))
        return result

    def _star_names(self, target: str, written: str, found: dict[str, str], seen: set[str]) -> None:
        if target in seen:
            return
        if len(seen) >= STAR_MODULES:
            found[INCOMPLETE] = ""  # too many modules to read: what they bind is not known
            return
        seen.add(target)
        prefix = written if written.endswith(".") else written + "."
        names = _top_level_names(target)
        if names is None:
            found[INCOMPLETE] = ""  # a module that cannot be read: what it binds is not known
            return
        for name, qualname, star in names:
            if star is not None:
                module = self.layout.resolve(target, star)
                if module is None or module[1]:
                    found[INCOMPLETE] = ""  # `from torch import *`: a library's names
                else:
                    self._star_names(module[0], star, found, seen)
            elif name and not name.startswith("_"):
                found.setdefault(name, qualname or prefix + name)

    # -- RNG objects a dataset of another module carries into the workers (RNG005) ----------
    def worker_dataset_rngs(self, path: str) -> tuple[tuple[int, int, str, str, str, int], ...]:
        """The loaders of ``path`` with workers and no ``worker_init_fn`` whose dataset class,
        of another module, holds an RNG object made before the workers start: (row, col, that
        module from the project root, the class, the object's name, the row making it)."""
        path = os.path.abspath(path)
        summary = self.summaries.get(path)
        if summary is None or not summary.worker_datasets:
            return ()
        found: list[tuple[int, int, str, str, str, int]] = []
        for reference, row, col in summary.worker_datasets:
            held = self._held_rng(path, reference)
            if held is not None:
                found.append((row, col, *held))
        return tuple(found)

    def _held_rng(
        self, path: str, reference: str, depth: int = 0
    ) -> Optional[tuple[str, str, str, int]]:
        """(module, holder's name, RNG name, row) of an RNG object the class ``reference`` (or
        a base of it in the project) holds, or a class a helper function ``reference`` may
        return an instance of (:meth:`built`), or an object it holds and uses to fetch items
        (a transform, ``ClassSummary.holds``: the holder named ``Dataset.transform``); None
        when it holds none that the project shows."""
        stack = self.built(path, reference)
        seen: set[tuple[str, str]] = set()
        while stack:
            target, key = stack.pop()
            if (target, key) in seen:
                continue
            seen.add((target, key))
            if key == OPAQUE:
                self.unread.add(target)  # parsed by the run, which then asks again
                continue
            info = self.summaries[target].classes.get(key)
            if info is None:
                continue
            if info.rngs:
                name, _, row = info.rngs[0]
                return self._where(target), key.rsplit(".", 1)[-1], name, row
            for attribute, held, _ in info.holds if depth < 2 else ():
                inner = self._held_rng(target, held, depth + 1)
                if inner is not None:  # named by the chain of holders: `Dataset.transform`
                    where, _, name, row = inner
                    return where, f"{key.rsplit('.', 1)[-1]}.{attribute}", name, row
            for base in info.bases:
                stack.extend(self._classes(target, base))
        return None

    def built(self, path: str, reference: str, depth: int = 0) -> list[tuple[str, str]]:
        """The classes (path, key) that calling ``reference`` of ``path`` may give an instance
        of: the class it denotes, or, for a function of the project, those its return values
        may be built by (:attr:`FunctionSummary.returns`), through helper chains."""
        classes = self._classes(path, reference)
        if classes or depth > _MAX_DEPTH:
            return classes
        found: list[tuple[str, str]] = []
        for node in self.resolve(path, reference):
            if node[1] == OPAQUE:
                self.unread.add(node[0])  # parsed by the run, which then asks again
                continue
            function = self.function(node)
            for returned in function.returns if function is not None else ():
                found.extend(self.built(node[0], returned, depth + 1))
        return found

    # -- seeding inside a capture region (RNG003) -------------------------------------------
    def captured_seeding(self, path: str) -> tuple[tuple[int, int, str, int], ...]:
        """The calls inside ``path``'s capture regions that reach device seeding in another
        module: (row, col, the seeding call's path from the project root, its row)."""
        path = os.path.abspath(path)
        summary = self.summaries.get(path)
        if summary is None or not summary.captured:
            return ()
        found: list[tuple[int, int, str, int]] = []
        for reference, row, col in summary.captured:
            for node in self.resolve(path, reference):
                site = self.device_seeding(node)
                if site is not None:
                    where = self._where(site[0]) if site[0] else ""
                    found.append((row, col, where, site[1]))
                    break
        return tuple(found)

    def device_seeding(self, start: Node) -> Optional[tuple[str, int]]:
        """Where ``start`` or a function it calls seeds torch or CUDA (not in scoped code):
        (path, row) of the first seeding call found; for a library seeding function reached
        through a re-export, the path is empty."""
        seen: set[Node] = set()
        stack: list[Node] = [start]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if node[1].startswith("!seed:"):
                if node[1][len("!seed:") :] in _DEVICE_STREAMS:
                    return ("", 0)
                continue
            if node[1] == OPAQUE:
                self.unread.add(node[0])  # parsed by the run, which then asks again
                continue
            if node[1].startswith("!"):
                continue
            function = self.function(node)
            if function is None or function.scoped or self.is_worker(node, function):
                continue
            for seed in function.seeds:
                if seed.stream in _DEVICE_STREAMS:
                    return (node[0], seed.row)
            stack.extend(reversed(self.callees(node)))
        return None

    # -- loaders (RNG001, RNG002) ------------------------------------------------------------
    def builder_sites(self, path: str, key: str) -> tuple[Site, ...]:
        """The project's calls of the function ``key`` of ``path`` (in path and row order)."""
        if self._sites is None:
            sites: dict[Node, list[Site]] = {}
            callers = [(p, s) for p, s in self.summaries.items() if s.full and s.sites]
            for caller, summary in sorted(callers, key=lambda item: item[0]):
                where = self._where(caller)
                for site in summary.sites:
                    targets: dict[Node, bool] = {}
                    for reference in site.references:
                        for node in self.resolve(caller, reference):
                            if node[0] and node[1] != OPAQUE:
                                bound = reference[:1] in "%^&" or (
                                    node[1].endswith(".__init__")
                                    and not reference.endswith("__init__")
                                )
                                targets.setdefault(node, bound)
                    for node, bound in targets.items():
                        sites.setdefault(node, []).append(
                            Site(f"{where}:{site.row}", bound, site.args, site.keywords)
                        )
            self._sites = sites
        return tuple(self._sites.get((os.path.abspath(path), key), ()))

    def _where(self, path: str) -> str:
        try:
            return Path(path).relative_to(self.layout.root).as_posix()
        except ValueError:
            return os.path.basename(path)

    def builder_answers(self, path: str) -> tuple[Hashable, ...]:
        summary = self.summaries.get(os.path.abspath(path))
        if summary is None or not summary.full:
            return ()
        return tuple((key, self.builder_sites(path, key)) for key in summary.builders)

    def loader_class(self, path: str, qualname: str) -> Optional[LoaderClass]:
        """What ``qualname`` (as ``path`` spells it) denotes, when that is a loader class of
        the project, or a library class reached through a project module."""
        return self._loader_class_of(os.path.abspath(path), qualname)

    def _loader_class_of(self, path: str, qualname: str) -> Optional[LoaderClass]:
        if self._hints is not None and qualname.rsplit(".", 1)[-1] not in self._loaders:
            # No class of that name may be a loader anywhere in the project, and no name
            # may stand for one under it (an alias of one is itself among the names).
            return None
        key = (path, qualname)  # ``path`` absolute
        if key not in self._loader_classes:
            self._loader_classes[key] = None  # a name defined in terms of itself: nothing
            self._loader_classes[key] = self._loader_class(key[0], qualname)
        return self._loader_classes[key]

    def _loader_class(self, path: str, qualname: str) -> Optional[LoaderClass]:
        found = self._denote(path, qualname, 0)
        if found is None:
            return None
        target, class_key = found
        if not target:  # a library's name: a loader class only if it is one of the targets
            external = canonical(class_key)
            if external not in self.targets:
                return None
            return LoaderClass(class_key.rsplit(".", 1)[-1], external, False, None)
        loader = False
        init: Optional[Init] = None
        seen: set[tuple[str, str]] = set()
        queue = [(target, class_key)]
        while queue:
            current = queue.pop(0)
            if current in seen:
                continue
            seen.add(current)
            if current[1] == OPAQUE:
                self.unread.add(current[0])
            summary = self.summaries.get(current[0])
            info = summary.classes.get(current[1]) if summary is not None else None
            if info is None:
                continue
            loader = loader or info.loader
            if init is None and info.init is not None and not info.init.passthrough:
                init = info.init
            for base in info.bases:
                queue.extend(self._classes(current[0], base))
        if not loader:
            return None
        return LoaderClass(class_key.rsplit(".", 1)[-1], None, True, init)

    def loader_levels(
        self, path: str, qualname: str = "", key: str = ""
    ) -> Optional[list[tuple[str, str, Init]]]:
        """The classes of a loader class's chain that have an ``__init__`` of their own, from
        the class called down to the library's loader: ``(file, class key, its __init__)``,
        each followed (:mod:`seedlint.analysis.forwarding`). The class is ``qualname`` as
        ``path`` spells it, or ``key`` of ``path``. None where the chain leaves the model (a
        class with more than one project base, one not read, an ``__init__`` not followed)."""
        path = os.path.abspath(path)
        current = self._denote(path, qualname, 0) if qualname else (path, key)
        if current is None or not current[0]:
            return None
        found: list[tuple[str, str, Init]] = []
        for _ in range(_MAX_DEPTH):
            summary = self.summaries.get(current[0])
            info = summary.classes.get(current[1]) if summary is not None else None
            if info is None:
                return None
            if info.init is not None and not info.init.passthrough:
                if info.init.forwarding is None:
                    return None
                found.append((current[0], current[1], info.init))
            bases = [c for base in info.bases for c in self._classes(current[0], base)]
            if not bases:
                return found or None  # the library's loader comes next
            if len(bases) > 1:
                return None
            if bases[0][1] == OPAQUE:
                self.unread.add(bases[0][0])  # parsed by the run, which then asks again
                return None
            current = bases[0]
        return None

    def derives_from(
        self, path: str, reference: str, target_path: str, targets: Iterable[object]
    ) -> Optional[bool]:
        """Whether an instance of the class ``reference`` of ``path`` is an instance of one of
        the classes ``targets`` (references of ``target_path``): None where that is not known
        (a class not of the project, not read, or a target that is not a project class)."""
        wanted: set[tuple[str, str]] = set()
        if not targets:
            return None
        for target in targets:
            classes = self._class_nodes(os.path.abspath(target_path), str(target))
            if not classes:
                return None
            wanted.update(classes)
        stack = self._class_nodes(os.path.abspath(path), reference) or []
        if not stack:
            return None
        seen: set[tuple[str, str]] = set()
        while stack:
            current = stack.pop()
            if current in wanted:
                return True
            if current in seen:
                continue
            seen.add(current)
            summary = self.summaries.get(current[0])
            info = summary.classes.get(current[1]) if summary is not None else None
            if info is None:
                return None  # a name that is no class
            for base in info.bases:
                classes = self._class_nodes(current[0], base)
                if classes is None:
                    return None  # a project name not followed
                stack.extend(classes)
        return False  # the other bases are the libraries': none derives from a project class

    def _class_nodes(self, path: str, reference: str) -> Optional[list[tuple[str, str]]]:
        """The project classes (file, key) a class reference of ``path`` denotes, through
        re-exports, those of a module summarised from its bytes too (read for its top-level
        imports); ``[]`` for a library's name, None where that is not known."""
        if reference.startswith("@"):
            return [(path, reference[1:])]
        if not reference.startswith("="):
            return None
        found = self.layout.resolve(path, reference[1:])
        for _ in range(_MAX_DEPTH):
            if found is None:
                return [] if reference[1:] else None
            target, rest = found
            summary = self.summaries.get(target)
            if summary is None or not rest:
                return None
            key = ".".join(rest)
            tail = ".".join(rest[1:])
            if summary.full:
                if key in summary.classes:
                    return [(target, key)]
                alias = summary.aliases.get(rest[0])
            else:
                self.unread.add(target)  # parsed by the run where it may be, which asks again
                names = _top_level_names(target) or []
                alias = next((q for n, q, _ in names if n == rest[0] and q), None)
            if alias is None:
                return None
            found = self.layout.resolve(target, f"{alias}.{tail}" if tail else alias)
            reference = "=" + alias
        return None

    def _denote(self, path: str, qualname: str, depth: int) -> Optional[tuple[str, str]]:
        """``(file, class key)`` of a project class, ``("", qualified name)`` of a library
        name reached through a project module, or None."""
        if depth > _MAX_DEPTH:
            return None
        key = (path, qualname, depth > 0)
        if key in self._denoted:
            return self._denoted[key]
        self._denoted[key] = None  # a name reached again while it is being followed: nothing
        denoted = self._denote_once(path, qualname, depth)
        self._denoted[key] = denoted
        return denoted

    def _denote_once(self, path: str, qualname: str, depth: int) -> Optional[tuple[str, str]]:
        found = self.layout.resolve(path, qualname)
        if found is None:
            return ("", qualname) if depth else None
        target, rest = found
        summary = self.summaries.get(target)
        if summary is not None and not summary.full:
            if rest and self._may_hold_loader(target, rest):
                self.unread.add(target)
            return None
        if summary is None or not rest:
            return None
        key = ".".join(rest)
        if key in summary.classes:
            return target, key
        alias = summary.aliases.get(rest[0])
        if alias is not None:
            tail = ".".join(rest[1:])
            return self._denote(target, f"{alias}.{tail}" if tail else alias, depth + 1)
        if rest[0] in summary.classes or rest[0] in summary.functions:
            return None
        for star in summary.stars:
            module = self.layout.resolve(target, star)
            if module is not None and module[1]:
                continue  # a module of the package that the project lacks: nothing to follow
            joined = f"{star}{key}" if star.endswith(".") else f"{star}.{key}"
            if module is not None:
                names = self.exported(module[0])
                if (
                    names is not None
                    and rest[0] not in names
                    and self.layout.resolve(target, joined) == (module[0], rest)
                ):
                    continue  # that module binds no such name (nor is it a submodule)
            denoted = self._denote(target, joined, depth + 1)
            if denoted is not None:
                return denoted
        return None

    def _may_hold_loader(self, path: str, rest: tuple[str, ...]) -> bool:
        """Whether the name ``rest`` of a module not parsed yet may be (or re-export) a loader
        class: yes unless its hint rules it out."""
        hint = self._hints.get(path) if self._hints is not None else None
        return hint is None or hint.may_hold_loader(rest, self._loaders)

    def exported(self, path: str) -> Optional[frozenset[str]]:
        """The names a star import of the module at ``path`` may bind, as :meth:`_denote`
        follows them (its classes, its imports, and what its own star imports of project
        modules bind); None when that cannot be bounded (it star-imports a library module)."""
        if path in self._exports:
            return self._exports[path]
        self._exports[path] = frozenset()  # a star import cycle adds nothing
        summary = self.summaries.get(path)
        names: Optional[set[str]] = set()
        if summary is not None and not summary.full:
            self.unread.add(path)
        if summary is not None and summary.full:
            names = {key.split(".", 1)[0] for key in summary.classes} | set(summary.aliases)
            for star in summary.stars:
                found = self.layout.resolve(path, star)
                if found is not None and found[1]:
                    continue  # a module the project lacks (as _denote skips it)
                more = self.exported(found[0]) if found is not None else None
                if more is None:
                    names = None
                    break
                names |= more
        result = frozenset(names) if names is not None else None
        self._exports[path] = result
        return result

    def loader_names(self) -> frozenset[str]:
        """The names the project binds to a loader class, or may (a cheap gate before
        resolving calls): its loader classes and their subclasses, and the names it imports
        them under, re-exports included (``from .loaders import AudioLoader as Feeder``, a
        package importing ``DataLoader`` for others to take), matched by name."""
        if self._loader_names is None:
            roots = {target.rsplit(".", 1)[-1] for target in self.targets}
            links = [link for s in self.summaries.values() if s.full for link in loader_links(s)]
            self._loader_names = loader_closure(links, roots)
        return self._loader_names

    def loader_class_answers(self, path: str) -> tuple[Hashable, ...]:
        return tuple(self._loader_classes_used(path))

    def _loader_classes_used(self, path: str) -> list[tuple[str, LoaderClass]]:
        path = os.path.abspath(path)
        summary = self.summaries.get(path)
        if summary is None or not summary.full:
            return []
        references = {
            reference[1:]
            for function in summary.functions.values()
            for reference in function.calls
            if reference.startswith("=")
        }
        found: list[tuple[str, LoaderClass]] = []
        for qualname in sorted(references):
            info = self._loader_class_of(path, qualname)
            if info is not None:
                found.append((qualname, info))
        return found

    def forwarding_answers(self, path: str) -> tuple[Hashable, ...]:
        """What :meth:`loader_levels` and :meth:`derives_from` answer for the loader classes
        ``path`` calls (with their ``__init__``'s routes) and the classes it builds."""
        path = os.path.abspath(path)
        summary = self.summaries.get(path)
        if summary is None or not summary.full:
            return ()
        starts = [(qualname, "") for qualname, _ in self._loader_classes_used(path)]
        starts.extend(
            ("", key)
            for key, info in sorted(summary.classes.items())
            if info.loader and info.init is not None and info.init.forwarding is not None
        )
        references = sorted(
            {
                reference
                for function in summary.functions.values()
                for reference in function.calls
                if reference[:1] in "=@"
            }
        )
        found: list[Hashable] = []
        for qualname, key in starts:
            levels = self.loader_levels(path, qualname, key)
            if not levels:
                continue
            found.append((qualname, key, tuple(levels)))
            for level_path, _, init in levels:
                assert init.forwarding is not None
                for route in init.forwarding.routes:
                    for test, _ in route.tests:
                        if test.kind != ISINSTANCE:
                            continue
                        for reference in references:
                            verdict = self.derives_from(path, reference, level_path, test.classes)
                            found.append((reference, level_path, test.classes, verdict))
        return tuple(dict.fromkeys(found))

    # -- RNG004 ------------------------------------------------------------------------------
    def unseeded_torch(self, path: str) -> list[Verdict]:
        """The seed blocks of ``path`` whose programs seed other streams (or torch only through
        ``torch.cuda``), draw torch randomness and never seed torch; and, where no program
        reaches a block, the seeding helpers that leave torch out and that no caller
        completes."""
        path = os.path.abspath(path)
        summary = self.summaries.get(path)
        if summary is None or not summary.full:
            return []
        verdicts: list[Verdict] = []
        for key, function in summary.functions.items():
            streams = {seed.stream for seed in self.live_seeds((path, key), function)}
            if not streams & {RANDOM, NUMPY, CUDA, CUDA_ALL} or TORCH in streams:
                continue
            if function.scoped or self.is_worker((path, key), function):
                continue
            verdict = self._verdict(path, key, streams, summary)
            if verdict is not None:
                verdicts.append(verdict)
        return verdicts

    def _verdict(
        self, path: str, key: str, streams: set[str], summary: ModuleSummary
    ) -> Optional[Verdict]:
        node = (path, key)
        entries, roots = self.reaching(node)
        cuda = bool(streams & {CUDA, CUDA_ALL})
        if entries:
            flagged: Optional[tuple[Node, str]] = None
            completed = cpu = False
            for entry in sorted(entries):
                closure = self.closure(entry)
                if TORCH in closure.seeds:
                    completed = True
                    continue
                if not closure.draws:
                    continue  # no torch randomness: nothing for torch's seed to fix
                if not streams & closure.seeds:
                    continue  # it reaches the block only inside scoped seeding
                case = "cuda-only" if closure.seeds & {CUDA, CUDA_ALL} else "unseeded-torch"
                if (case == "cuda-only") != cuda:
                    continue  # reported at the program's other seed block
                cpu = cpu or closure.cpu  # some program reaching it may draw on the CPU
                if flagged is None:
                    flagged = (entry, case)
            if flagged is None:
                return None
            entry, case = flagged
            where = f"{self.module_name(entry[0])}:{entry[1] or '<module>'}"
            return Verdict(key, case, False, completed, where, self.closure(entry).draw, cpu)
        # Library code: only a seeding helper, when its callers do not complete it.
        name = key.rsplit(".", 1)[-1].lower()
        own = self.closure(node)
        # A seeding helper: it seeds two or more streams, its name says it seeds, or it seeds
        # and draws torch randomness itself (a program of its own).
        helper = any(word in name for word in _SEEDING_WORDS) or len(streams) >= 2 or own.draws
        if not helper or not summary.imports_torch or TORCH in own.seeds:
            return None
        others = [root for root in roots if root != node]
        if not others and any(
            any(seed.stream == TORCH for seed in function.seeds)
            for function in summary.functions.values()
        ):
            return None  # called nowhere, beside a module that seeds torch: its API is whole
        if others and all(TORCH in self.closure(root).seeds for root in others):
            return None
        completed = any(TORCH in self.closure(root).seeds for root in others)
        case = "cuda-only" if cuda else "unseeded-torch"
        return Verdict(key, case, True, completed, "", own.draw)


def needs_project(summary: Optional[ModuleSummary]) -> bool:
    """Whether the answers (:meth:`ProjectIndex.answers`) of a module with this summary may
    differ between its one-module index and the project's: only then does the project matter
    to its findings. A module without a function that seeds `random`, `np.random` or CUDA and
    not torch has no RNG004 verdict in any index; one without loader builders, call sites of
    project code with literal arguments and star imports has no loader answer the project can
    change; one without calls inside a capture region, or loaders over a dataset class of
    another module, has no RNG003 or RNG005 answer the project can change; one that does not
    import Lightning has no worker-seeding answer (RNG002); one spreading no call of another
    import Lightning has no worker-seeding answer (RNG002); one whose loaders ask for no
    module (`**f()`) takes no returned dict from the project."""

    if summary is None or not summary.full:
        return False
    return bool(
        questions(summary)
        or summary.asks
        or summary.lightning
        or summary.builders
        or summary.sites
        or summary.stars
        or summary.captured
        or summary.worker_datasets
        or summary.spreads
    )


def caller_words(index: ProjectIndex, paths: Iterable[str]) -> dict[str, set[str]]:
    """The names a module must mention to hold a caller that the answers of ``paths`` depend
    on, each with the names of the modules it is reached through: such a module names the
    function and imports it from one of those modules (by module name, or relatively).

    The names: the function (or, for a method, the class) of every seed block and every
    function reaching one, of every loader builder (its direct callers bind its parameters),
    and the names standing for them in the modules read so far: classes deriving from those
    classes by name (``self.m()`` in a subclass), imports under the same or another name (a
    re-export). A module with a star import of project code may re-export any of them."""
    words: dict[str, set[str]] = {}

    def add(word: str, path: str) -> bool:
        via = words.setdefault(word, set())
        name = _import_name(path)
        if name in via:
            return False
        via.add(name)
        return True

    for path in paths:
        path = os.path.abspath(path)
        summary = index.summaries.get(path)
        if summary is None or not summary.full:
            continue
        nodes = [n for key in questions(summary) for n in index.reached_by((path, key))]
        nodes.extend((path, key) for key in summary.builders)
        for key, _ in index.worker_seeding(path):  # their programs decide Lightning's seeding
            nodes.extend(index.loader_reach(path, key))
        for node_path, key in nodes:
            if key:
                add(key.split(".", 1)[0], node_path)
    # Names standing for one of them: a subclass, an import (a re-export), a star import,
    # followed from each name to the names standing for it (each link once).
    standing = index.standing()  # a name -> (name standing for it, where)
    stars = [path for path, summary in index.summaries.items() if summary.full and summary.stars]
    pending = list(words)
    while pending:
        for name, path in standing.get(pending.pop(), ()):
            if name:
                new = name not in words
                add(name, path)
                if new:
                    pending.append(name)
    for path in stars:  # a star import may re-export any of them (adds no name)
        for word in list(words):
            add(word, path)
    return words


def _import_name(path: str) -> str:
    """The name an import of the module at ``path`` spells last (``pkg`` for a package)."""
    stem, _ = os.path.splitext(os.path.basename(path))
    return os.path.basename(os.path.dirname(path)) if stem == "__init__" else stem


def questions(summary: Optional[ModuleSummary]) -> list[str]:
    """The keys of the functions of a module whose answers the project may change (see
    :func:`needs_project`): the project index needs the summaries of the modules that call
    them, and of those their callers reach (see ``run.summaries.ProjectSetup.build``)."""
    if summary is None or not summary.full:
        return []
    keys: list[str] = []
    for key, function in summary.functions.items():
        streams = {seed.stream for seed in function.seeds}
        if function.scoped or function.worker or TORCH in streams:
            continue
        if streams & {RANDOM, NUMPY, CUDA, CUDA_ALL}:
            keys.append(key)
    return keys


def reference_name(reference: str) -> str:
    """The last name of a summary's call reference (``@C.m`` -> ``m``, ``=utils.seed`` ->
    ``seed``)."""
    return reference[1:].rsplit(".", 1)[-1]


# What a star import binds is listed completely (a name it does not bind is a builtin) unless
# this key is among the names: a star import of a library, or a module that cannot be read.
INCOMPLETE = "*"
# The most modules one file's star imports are followed through (a package's `__init__` that
# star-imports every submodule would otherwise be read whole for one answer).
STAR_MODULES = 64
_TOP_LEVEL: dict[tuple[str, int, int], list[tuple[str, str, Optional[str]]]] = {}


def _top_level_names(path: str) -> Optional[list[tuple[str, str, Optional[str]]]]:
    """What the top level of the module at ``path`` binds (imports, definitions, assigned
    names; in its ``if``/``try`` blocks too): (name, its qualified name ("" for one of the
    module's own), None), or ("", "", module) for a star import of an absolute module. None
    when it cannot be read or parsed."""
    try:
        info = os.stat(path)
        key = (path, info.st_size, info.st_mtime_ns)
        if key in _TOP_LEVEL:
            return _TOP_LEVEL[key]
        if info.st_size > 4 << 20:
            return None
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(), filename=path)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: list[tuple[str, str, Optional[str]]] = []
    statements = list(tree.body)
    while statements:
        node = statements.pop(0)
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            if not (isinstance(node, ast.If) and _type_checking(node.test)):
                statements.extend(node.body)
            statements.extend(getattr(node, "orelse", []))
            for handler in getattr(node, "handlers", []):
                statements.extend(handler.body)
            statements.extend(getattr(node, "finalbody", []))
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for element in ast.walk(target):
                    if isinstance(element, ast.Name):
                        found.append((element.id, "", None))
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found.append((alias.asname, alias.name, None))
                else:
                    first = alias.name.split(".", 1)[0]
                    found.append((first, first, None))
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    found.append(("", "", module))
                elif node.level == 0:
                    found.append((alias.asname or alias.name, f"{module}.{alias.name}", None))
                else:  # a relative import: bound, to something this module names relatively
                    found.append((alias.asname or alias.name, "", None))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, "", None))
    _TOP_LEVEL[key] = found
    return found


def _type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``: a test false at run time."""
    if isinstance(test, ast.Attribute):
        return test.attr == "TYPE_CHECKING"
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"


def answers_digest(answers: tuple[Hashable, ...]) -> str:
    """A short digest of a file's answers (the cache's key beside its content)."""
    return hashlib.blake2b(repr(answers).encode(), digest_size=12).hexdigest()


def _test_file(path: str) -> bool:
    name = os.path.basename(path)
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return True
    parts = os.path.dirname(path).split(os.sep)
    return "tests" in parts or "test" in parts


def project_decides(index: ProjectIndex, path: str, display: str, summary: ModuleSummary) -> bool:
    """Whether the project's answers for the module at ``path`` (shown as ``display``) differ
    from those its own summary gives alone: only then is it checked again with the index."""
    return index.answers(path) != single(display, summary).answers(display)


def single(path: str, summary: ModuleSummary, paths: Iterable[str] = ()) -> ProjectIndex:
    """An index of one module (standard input, or a check without a project)."""
    folder = Path(os.path.dirname(os.path.abspath(path)))
    # Its one module is read: the names that may be a loader class are known.
    targets = AnalysisOptions().all_dataloader_classes
    loaders = possible_loader_names({path: summary}, (), targets)
    return ProjectIndex(Layout(folder, paths), {path: summary}, {}, loaders, targets)


# The index of the run in progress: set by the run layer before the pool forks (and by the
# flake8 plugin), read by the check through ModuleFacts.
_ACTIVE: list[Optional[ProjectIndex]] = [None]


def active() -> Optional[ProjectIndex]:
    return _ACTIVE[0]


def activate(index: Optional[ProjectIndex]) -> None:
    _ACTIVE[0] = index


@contextlib.contextmanager
def activated(index: Optional[ProjectIndex]) -> Iterator[None]:
    """Check (or fix) with ``index`` as the project's, then with none again."""
    activate(index)
    try:
        yield
    finally:
        activate(None)
