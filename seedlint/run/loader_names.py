"""The project's loader names that no loader word finds: a DataLoader subclass of the project
named ``AudioLoader``, a re-export ``from .loaders import AudioLoader as Feeder``. A file that
calls one of them holds no rule's loader word, so the pre-filter alone would skip it.

Every module that binds a loader name holds one in its code (a class statement names its base,
an import names what it imports): the names are found from the loader classes outwards, to a
fixpoint. Round 0 parses the modules whose code holds a loader word (the check pass parses them
anyway); each later round looks, in the other modules' code, for the new names that hold no
loader word (:func:`~seedlint.prefilter.words.hidden_loader_names`) as whole names, and parses
the modules naming one. Most projects name their loader subclasses ``...DataLoader``: they have
no such name, and nothing more is read.

What each module binds (its *links*, :func:`~seedlint.project.hints.loader_links`) is kept per
module in a small signed record in the cache folder (``loaders-<digest>-<format>.json``), so
that a run that checks a few files (pre-commit, the flake8 plugin, the editor) knows the names
the rest of the project binds without reading it. Without a record, such a run finds them from
the project's files itself. A module a run does not check keeps the links it had when a run
last checked it.
"""

from __future__ import annotations

import ast
import json
import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Optional

from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
from seedlint.documents import DecodeError, Source
from seedlint.engine.check import collector_paused
from seedlint.engine.parse import parse_module
from seedlint.prefilter.scan import in_code, names_in_code
from seedlint.prefilter.words import hidden_loader_names, loader_words
from seedlint.project.configs import ConfigFiles, may_load_config
from seedlint.project.hints import Link, loader_closure, loader_links
from seedlint.project.summary import LIGHT, ModuleSummary, summarize
from seedlint.run.cache import Cache, digest, stat_key
from seedlint.run.pool import pool_map

RECORD_FORMAT = 1

# What the pool's workers look for (set before the fork): the words, whether as whole names,
# and the options to summarise with.
_SCAN: list[tuple[tuple[bytes, ...], bool, AnalysisOptions, frozenset[str]]] = [
    ((), True, AnalysisOptions(), frozenset())
]


def full_summary(raw: bytes, path: str, options: AnalysisOptions) -> ModuleSummary:
    """The module's summary from its tree, whatever its words (:data:`LIGHT` when it does not
    parse: it then binds nothing)."""
    try:
        # The collector paused for the parse too: its millions of new objects would make it
        # scan everything alive (in a run's main process, the whole project's summaries).
        with collector_paused():
            tree = _tree(raw, path)
            configs = ConfigFiles(path) if may_load_config(raw.decode("latin-1")) else None
            facts = ModuleFacts(tree, options, "", path, configs=configs)
            try:
                return summarize(facts)
            finally:
                facts.release()
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return LIGHT


def _tree(raw: bytes, path: str) -> ast.Module:
    """The module's tree as the check parses it (a large module in pieces, compacted and
    hollowed: :func:`~seedlint.engine.parse.parse_module`), never lowered to this Python's
    grammar; kept for the next stage of the run while
    :func:`~seedlint.engine.parse.keep_parses` is on."""
    try:
        text = Source.decode(raw).text
    except DecodeError:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(raw, filename=path)
    return parse_module(text, path, lower=False)


def _scan_one(path: str) -> Optional[tuple[str, Optional[ModuleSummary]]]:
    words, whole, options, parsed = _SCAN[0]
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    if not (names_in_code(raw, words) if whole else in_code(raw, words)):
        return None
    if path in parsed:
        return digest(raw), None  # its summary is the caller's
    return digest(raw), full_summary(raw, path, options)


def naming(
    paths: Sequence[str],
    words: Iterable[str],
    options: AnalysisOptions,
    processes: int,
    whole: bool = True,
    parsed: Optional[dict[str, ModuleSummary]] = None,
) -> dict[str, tuple[str, ModuleSummary]]:
    """The files of ``paths`` whose code holds one of ``words`` (as whole names, or anywhere
    with ``whole=False``), each with its content hash and its summary (parsed, unless
    ``parsed`` holds it already)."""
    chosen = tuple(sorted({word.encode() for word in words if word}))
    if not chosen or not paths:
        return {}
    known = parsed or {}
    _SCAN[0] = (chosen, whole, options, frozenset(known))
    sizes = [key[1] if (key := stat_key(Path(p))) is not None else 0 for p in paths]
    found: dict[str, tuple[str, ModuleSummary]] = {}
    for path, result in zip(paths, pool_map(_scan_one, paths, sizes, processes)):
        if result is not None:
            summary = result[1] if result[1] is not None else known[path]
            found[path] = (result[0], summary)
    return found


class LoaderNames:
    """The links of the project's modules (those binding a name to something), and the loader
    names they give: read from the record, updated by the run, written back."""

    def __init__(self, store: Optional[Cache], root: str, options: AnalysisOptions) -> None:
        self.store = store
        self.options = options
        self.roots = frozenset(loader_words(options))
        key = digest(f"{root}\0{options!r}".encode("utf-8", "surrogatepass"))[:12]
        self.name = f"loaders-{key}-{RECORD_FORMAT}.json"
        self.modules: dict[str, tuple[Link, ...]] = {}
        self.found = False  # the record was read
        self.dirty = False
        self.searched: set[str] = set()  # the hidden names the run has looked for
        self._names: Optional[tuple[frozenset[str], frozenset[str]]] = None  # (all, hidden)
        body = store.read_signed(self.name) if store is not None else None
        if body is None:
            return
        try:
            data = json.loads(body)
            modules = {
                str(path): tuple((str(n), tuple(str(v) for v in via)) for n, via in links)
                for path, links in data["modules"].items()
            }
        except (ValueError, KeyError, TypeError, AttributeError):
            return
        self.modules = {path: links for path, links in modules.items() if os.path.exists(path)}
        self.dirty = len(self.modules) != len(modules)
        self.found = True

    def update(self, path: str, summary: Optional[ModuleSummary]) -> None:
        """What the module at ``path`` binds now (``summary`` None or not full: nothing)."""
        links = () if summary is None or not summary.full else loader_links(summary, True)
        self.bind(path, links)

    def bind(self, path: str, links: tuple[Link, ...]) -> None:
        """What the module at ``path`` binds: ``links`` (none: nothing)."""
        if links:
            if self.modules.get(path) != links:
                self.modules[path] = links
                self.dirty = True
                self._names = None
        elif path in self.modules:
            del self.modules[path]
            self.dirty = True
            self._names = None

    def names(self) -> frozenset[str]:
        """Every name the project binds to a loader class (by name, to a fixpoint)."""
        if self._names is None:
            links = (link for links in self.modules.values() for link in links)
            found = loader_closure(links, self.roots)
            self._names = (found, hidden_loader_names(found, self.options))
        return self._names[0]

    def hidden(self) -> frozenset[str]:
        """The project's loader names that hold no loader word."""
        self.names()
        assert self._names is not None
        return self._names[1]

    def pending(self) -> bool:
        """Whether :meth:`complete` has work: no record was read, or a hidden name is not
        looked for yet."""
        return not self.found or bool(self.hidden() - self.searched)

    def linked(self) -> frozenset[str]:
        """The modules that bind a loader name, or may (the index parses them when it looks
        into them, whatever their words)."""
        names = self.names() | self.roots
        return frozenset(
            path for path, links in self.modules.items() if any(name in names for name, _ in links)
        )

    def complete(
        self,
        paths: Callable[[], Sequence[str]],
        processes: int,
        parsed: Callable[[], dict[str, ModuleSummary]],
    ) -> dict[str, tuple[str, ModuleSummary]]:
        """Look, in the code of ``paths``, for the hidden names not looked for yet, to a
        fixpoint; the modules naming one are parsed (``parsed``: summaries the run has already:
        not parsed again). Returns each module found, with its content hash and summary.
        ``paths`` and ``parsed`` are asked for only when there is a name to look for."""
        found: dict[str, tuple[str, ModuleSummary]] = {}
        while True:
            new = self.hidden() - self.searched
            if not new:
                return found
            self.searched |= new
            rest = [path for path in paths() if path not in found]
            hits = naming(rest, new, self.options, processes, parsed=parsed())
            for path, (content, summary) in hits.items():
                found[path] = (content, summary)
                self.update(path, summary)

    def from_files(self, paths: Sequence[str], processes: int) -> dict[str, ModuleSummary]:
        """Round 0 over ``paths`` from their bytes (no record): the links of the modules whose
        code holds a loader word (:meth:`complete` does the later rounds). Returns the
        summaries it parsed (from their trees, whatever their words)."""
        words = loader_words(self.options)
        parsed: dict[str, ModuleSummary] = {}
        for path, (_, summary) in naming(paths, words, self.options, processes, False).items():
            self.update(path, summary)
            parsed[path] = summary
        return parsed

    def save(self) -> None:
        if self.store is None or not self.dirty:
            return
        modules = {
            path: [[n, list(via)] for n, via in links] for path, links in self.modules.items()
        }
        body = json.dumps({"modules": modules}, sort_keys=True, separators=(",", ":")).encode()
        if self.store.write_signed(self.name, body):
            self.dirty = False


__all__ = ["LoaderNames", "full_summary", "naming"]
