"""The project index of a run: the summaries of every Python file of the project, cached by
content hash, joined into a :class:`~seedlint.project.index.ProjectIndex` before the pool forks.

The files read are the project's Python files (a walk of its root with the usual excludes and
``.gitignore``) and the files checked, even those the walk leaves out: pre-commit names only the
staged files, and a helper in an unchanged file must still count. A module without seeding,
loader or ``__main__`` words gets a summary from its bytes alone; the others are parsed once.
Summaries live in their own JSON file in the cache folder (``summaries-<digest>-<format>.json``,
never a pickle), keyed by stat and content hash like the findings, apart from the findings'
cache.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Optional

from seedlint.analysis.facts import AnalysisOptions
from seedlint.config import CONFIG_FILES, ConfigError, Settings, SettingsResolver
from seedlint.engine.parse import keep_parses
from seedlint.prefilter.words import WordScan, WordSet, set_project_loaders
from seedlint.project.configs import unchanged as configs_unchanged
from seedlint.project.hints import (
    ClassHint,
    Link,
    class_hint,
    hint_from_json,
    hint_to_json,
    possible_loader_names,
)
from seedlint.project.index import ProjectIndex, caller_words, needs_project
from seedlint.project.layout import Layout, find_root, may_walk
from seedlint.project.summary import (
    LIGHT,
    ModuleSummary,
    from_json,
    light_summary,
    needs_tree,
    to_json,
)
from seedlint.run.cache import Cache, StatKey, digest, keys_of, stat_key
from seedlint.run.discovery import discover
from seedlint.run.loader_names import LoaderNames, full_summary
from seedlint.run.pool import pool_map, submit_kept

SUMMARY_FORMAT = 8
_Entry = tuple[Optional[StatKey], str, Optional[ModuleSummary]]  # None: needs a tree
# A walk of the project: (settings fingerprint, modification time of every folder above a file
# and of every ignore file in them, the files found).
_Walk = tuple[str, dict[str, int], list[str]]
_IGNORE_FILES = (".gitignore", ".ignore")
_OPTIONS: list[AnalysisOptions] = [AnalysisOptions()]  # for the pool's workers
# The digests of the config files the cached summaries were read with, taken once per run.
_CONFIG_DIGESTS: dict[str, str] = {}


def summary_of(raw: bytes, path: str, options: AnalysisOptions) -> ModuleSummary:
    """The summary of one module's bytes (a light one when the words rule a tree out, or the
    file does not parse)."""
    scan = WordScan(raw)
    if not needs_tree(raw, scan):
        return light_summary(raw, scan)
    return full_summary(raw, path, options)


def _compute(
    path: str, full: bool = False, options: Optional[AnalysisOptions] = None
) -> Optional[tuple[str, ModuleSummary]]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    options = _OPTIONS[0] if options is None else options
    if full:
        return digest(raw), full_summary(raw, path, options)
    return digest(raw), summary_of(raw, path, options)


def _compute_with(item: tuple[str, AnalysisOptions]) -> Optional[tuple[str, ModuleSummary]]:
    """:func:`_compute_full` in a worker forked before the options were set: they come with
    the path."""
    return _compute(item[0], True, item[1])


def _compute_full(path: str) -> Optional[tuple[str, ModuleSummary]]:
    """:func:`_compute` from the module's tree whatever its words (a module the index looks
    into needs one: most need it by their words, those binding a loader name by the record)."""
    return _compute(path, True)


def project_files(root: Path, resolver: SettingsResolver) -> list[str]:
    """The project's Python files: its root walked like a check of the root would, except that
    a folder with an invalid configuration file is left out with a warning (the run named
    other files: a broken configuration elsewhere in the project must not stop it)."""
    found: list[str] = []
    warned: set[str] = set()

    def bad_config(error: ConfigError) -> None:
        if str(error) not in warned:
            warned.add(str(error))
            print(
                f"seedlint: warning: {error} (its folder is left out of the project index)",
                file=sys.stderr,
            )

    for candidate in discover([root], resolver, bad_config=bad_config):
        if candidate.problem is None and candidate.path.suffix == ".py":
            found.append(os.path.abspath(candidate.path))
    return found


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def walk_project(
    root: Path,
    resolver: SettingsResolver,
    settings: Settings,
    cache: SummaryCache,
    found_now: Optional[list[str]] = None,
) -> list[str]:
    """:func:`project_files`, reused while no folder holding (or above) a project file and no
    ignore file in them has changed (a file added, removed or renamed changes its folder's
    modification time), or while such a folder that has changed still lists what it listed
    (an editor, git or a formatter that saves a file by renaming a new one over it changes
    the folder's time, not what it holds: :func:`_same_entries`); ``found_now``: the files a
    walk of the root just found (the run's own, when it checks the project's root)."""
    if found_now is None and not may_walk(root):
        return []  # no project to walk: the index holds the checked files alone
    fingerprint = settings.fingerprint()
    found = cache.walks.get(str(root))
    if found_now is None and found is not None and found[0] == fingerprint:
        changed = [path for path, mtime in found[1].items() if _mtime(path) != mtime]
        if not changed or _unchanged(changed, found[1], found[2], settings):
            return found[2]  # the stamps are kept as they were: no table is written
    files = project_files(root, resolver) if found_now is None else found_now
    if cache.store is None and found_now is not None:
        return files  # the run's own walk, and no table written: no later walk would use it
    folders: set[str] = {str(root)}
    top = str(root)
    for path in files:
        folder = os.path.dirname(path)
        while folder not in folders and len(folder) > len(top):
            folders.add(folder)
            folder = os.path.dirname(folder)
    stamps: dict[str, int] = {}
    for folder in folders:
        stamps[folder] = _mtime(folder)
        for name in _IGNORE_FILES:
            ignore = os.path.join(folder, name)
            if os.path.exists(ignore):
                stamps[ignore] = _mtime(ignore)
    cache.walks[str(root)] = (fingerprint, stamps, files)
    cache.dirty = True
    return files


# A folder's entries that change what a walk finds besides its Python files: configuration
# files, ignore files and a repository's marker.
_WALK_MARKERS = frozenset({*CONFIG_FILES, *_IGNORE_FILES, ".git"})
_LOOK = 64  # the entries a look into folders without project files may read (then: walk)


def _unchanged(
    changed: list[str], stamps: dict[str, int], files: list[str], settings: Settings
) -> bool:
    """Whether the folders of ``changed`` (stamped paths whose time is not the recorded one)
    still give the walk that found ``files`` what they gave it (an ignore file changed: no)."""
    names: dict[str, set[str]] = {}
    for path in files:
        folder, _, name = path.rpartition(os.sep)
        names.setdefault(folder, set()).add(name)
    budget = [_LOOK]
    return all(
        os.path.basename(path) not in _IGNORE_FILES
        and _same_entries(path, names.get(path, set()), stamps, settings, budget)
        for path in changed
    )


def _same_entries(
    folder: str, names: set[str], stamps: dict[str, int], settings: Settings, budget: list[int]
) -> bool:
    """Whether ``folder`` lists the Python files ``names`` the walk found in it, and besides
    them only folders the walk found files in (stamped), folders it leaves out by name, and
    folders holding no file it could take; no configuration, ignore or repository marker and
    no link (a new one may change what is walked)."""
    excluded = frozenset((*settings.exclude, *settings.extend_exclude))
    found: set[str] = set()
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name in _WALK_MARKERS or entry.is_symlink():
                    return False
                if entry.is_dir():
                    path = os.path.join(folder, name)
                    if path not in stamps and name not in excluded and _may_hold(path, budget):
                        return False
                elif name.endswith(".py"):
                    found.add(name)
    except OSError:
        return False
    return found == names


def _may_hold(folder: str, budget: list[int]) -> bool:
    """Whether ``folder`` may hold a file a walk takes (``.py``, ``.pyi``, ``.ipynb``), in it or
    below; yes when it cannot be read, holds a link, or would take more than the budget's
    entries to tell (a walk is cheaper then)."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                budget[0] -= 1
                if budget[0] < 0 or entry.is_symlink():
                    return True
                if entry.is_dir():
                    if _may_hold(entry.path, budget):
                        return True
                elif entry.name.endswith((".py", ".pyi", ".ipynb")):
                    return True
    except OSError:
        return True
    return False


class Entries:
    """``path -> (stat key, content hash, summary)``: the summary table's entries, each
    decoded from the table's JSON when first asked for (a run reads the entries of its own
    project only, and a one-file run few of them) and written back as read when unused."""

    def __init__(self, raw: Optional[dict[str, Any]] = None) -> None:
        self._raw: dict[str, Any] = raw or {}
        self._decoded: dict[str, _Entry] = {}

    def get(self, path: str) -> Optional[_Entry]:
        found = self._decoded.get(path)
        if found is None and path in self._raw:
            found = _decode_entry(self._raw.pop(path))
            if found is not None:
                self._decoded[path] = found
        return found

    def __setitem__(self, path: str, entry: _Entry) -> None:
        self._raw.pop(path, None)
        self._decoded[path] = entry

    def __delitem__(self, path: str) -> None:
        self._raw.pop(path, None)
        self._decoded.pop(path, None)

    def __contains__(self, path: object) -> bool:
        return path in self._decoded or path in self._raw

    def paths(self) -> list[str]:
        return [*self._decoded, *self._raw]

    def to_json(self) -> dict[str, Any]:
        data = dict(self._raw)
        for path, (stat, content, summary) in self._decoded.items():
            data[path] = [
                list(stat) if stat else None,
                content,
                None if summary is None else to_json(summary),
            ]
        return data


def _decode_entry(data: Any) -> Optional[_Entry]:
    """An entry as :meth:`Entries.to_json` wrote it; None for anything else (the table is
    signed: only a bug or another format gets here, and the file is then summarised again)."""
    try:
        stat, content, summary = data
        key: Optional[StatKey] = None
        if stat:
            a, b, c, d = (int(part) for part in stat)
            key = (a, b, c, d)
        return key, str(content), None if summary is None else from_json(summary)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


class SummaryCache:
    """``path -> (stat key, content hash, summary)``, and the project walks, in one JSON file
    of the run's cache folder, signed and written like the findings' tables (a summaries file
    seedlint did not write for this user on this machine is ignored)."""

    def __init__(self, directory: Optional[Path], options: AnalysisOptions) -> None:
        self.store: Optional[Cache] = None
        self.name = ""
        self.entries = Entries()
        self.walks: dict[str, _Walk] = {}
        # path -> [content hash, class hint as JSON]: the hints of modules the index did not
        # parse (a run that builds the index without checking them reads them here, not from
        # their bytes).
        self.hints: dict[str, Any] = {}
        self.dirty = False
        self.checked: set[str] = set()  # entries changed by the check pass's own summaries
        if directory is None:
            return
        with contextlib.redirect_stderr(io.StringIO()):  # the findings' cache warns once
            self.store = Cache(directory)
        key = hashlib.blake2b(repr(options).encode(), digest_size=6).hexdigest()
        self.name = f"summaries-{key}-{SUMMARY_FORMAT}.json"
        body = self.store.read_signed(self.name)
        if body is None:
            return
        try:
            loaded = json.loads(body)
            summaries = loaded["summaries"]
            if not isinstance(summaries, dict):
                raise ValueError("summaries")
            self.entries = Entries({str(path): entry for path, entry in summaries.items()})
            self.walks = {
                str(root): (str(fingerprint), dict(stamps), list(files))
                for root, (fingerprint, stamps, files) in loaded["walks"].items()
            }
            hints = loaded.get("hints", {})
            self.hints = dict(hints) if isinstance(hints, dict) else {}
        except (ValueError, KeyError, TypeError, AttributeError):
            self.entries, self.walks, self.hints = Entries(), {}, {}

    def hint(self, path: str, content: str) -> tuple[bool, Optional[ClassHint]]:
        """Whether the table holds the class hint of ``path`` at this content, and the hint."""
        stored = self.hints.get(path)
        if not isinstance(stored, list) or len(stored) != 2 or stored[0] != content:
            return False, None
        try:
            return True, hint_from_json(stored[1])
        except ValueError:
            return False, None

    def keep_hint(self, path: str, content: str, hint: Optional[ClassHint]) -> None:
        if self.store is None:
            return  # a run without a cache folder writes no table
        stored = self.hints.get(path)
        if not isinstance(stored, list) or len(stored) != 2 or stored[0] != content:
            self.hints[path] = [content, hint_to_json(hint)]
            self.dirty = True

    def save(self) -> None:
        if self.store is None or not (self.dirty or self.checked):
            return
        data = {
            "summaries": self.entries.to_json(),
            "walks": {root: list(walk) for root, walk in self.walks.items()},
            "hints": {path: hint for path, hint in self.hints.items() if path in self.entries},
        }
        with contextlib.redirect_stderr(io.StringIO()):  # the findings' cache warns once
            body = json.dumps(data, separators=(",", ":"), check_circular=False)  # plain data
            self.store.write_signed(self.name, body.encode())


_PARSE_ITEMS, _PARSE_BYTES = 4, 400_000  # the least work the pool parses on demand
_FEW = 64  # up to this many files named, their bytes are read before the cache


def _needs_tree(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return needs_tree(handle.read())
    except OSError:
        return False


def _summarize(
    paths: list[str],
    cache: SummaryCache,
    processes: int,
    summaries: dict[str, ModuleSummary],
    keys: dict[str, Optional[StatKey]],
) -> None:
    """Fill ``summaries`` for ``paths``: from the cache when the stat key (or else the content
    hash) is unchanged, computed in the pool otherwise."""
    pending: list[str] = []
    for path in paths:
        if path in summaries:
            continue
        key = stat_key(Path(path))
        keys[path] = key
        entry = cache.entries.get(path)
        if (
            entry is not None
            and key is not None
            and entry[0] == key
            and entry[2] is not None
            and configs_unchanged(entry[2].configs, _CONFIG_DIGESTS)
        ):
            summaries[path] = entry[2]
        else:
            pending.append(path)
    sizes = [k[1] if (k := keys[p]) is not None else 0 for p in pending]
    results = pool_map(_compute, pending, sizes, processes)
    for path, result in zip(pending, results):
        if result is None:
            continue
        content, summary = result
        entry = cache.entries.get(path)
        if (
            entry is not None
            and entry[1] == content
            and entry[2] is not None
            and entry[2].configs == summary.configs
        ):
            summary = entry[2]
        summaries[path] = summary
        cache.entries[path] = (keys[path], content, summary)
        cache.dirty = True


def build_index(
    checked: Iterable[Path],
    resolver: SettingsResolver,
    settings: Settings,
    cache_dir: Optional[Path],
    processes: int,
    root: Optional[Path] = None,
    always: bool = False,
    known: Optional[dict[str, ModuleSummary]] = None,
    files: Optional[list[str]] = None,
) -> Optional[ProjectIndex]:
    """The index over the project's files and the ``checked`` ones (read from disk);
    ``known``: summaries computed already (absolute paths); ``files``: the project's files,
    when the caller has walked it already.

    None when no checked file needs it (``always=False``): the index only serves rules that
    report at a seeding call, and a checked file without one has a summary from its bytes
    (a pre-commit run naming files that seed nothing walks no project).
    """
    checked_paths = [os.path.abspath(p) for p in checked]
    _CONFIG_DIGESTS.clear()  # config files may have changed since the last run of this process
    if root is None:
        first = Path(checked_paths[0]) if checked_paths else Path.cwd()
        root = find_root(first)
    options = AnalysisOptions(
        settings.dataloader_classes, settings.capture_contexts, settings.seed_functions
    )
    _OPTIONS[0] = options
    if not always and len(checked_paths) <= _FEW and not any(map(_needs_tree, checked_paths)):
        return None  # a few files named (pre-commit), none seeding: no cache read, no walk
    cache = SummaryCache(cache_dir, options)
    known = known or {}
    keys: dict[str, Optional[StatKey]] = {path: stat_key(Path(path)) for path in known}
    summaries = {path: known[path] for path in checked_paths if path in known}
    _summarize(checked_paths, cache, processes, summaries, keys)
    if not always and not any(s.full for s in summaries.values()):
        cache.save()
        return None
    walked = walk_project(root, resolver, settings, cache) if files is None else files
    paths = list(dict.fromkeys([*walked, *checked_paths]))
    summaries.update(known)  # from their trees (they bind a loader name, or round 0 read them)
    _summarize(paths, cache, processes, summaries, keys)
    for path in cache.entries.paths():
        if path not in keys and path.startswith(str(root)):
            del cache.entries[path]  # a file gone from the project
            cache.dirty = True
    layout = Layout(root, paths)
    asked = [path for path in checked_paths if needs_project(summaries.get(path))]
    index = _read_unread(layout, summaries, keys, cache, processes, asked, options)
    cache.save()
    return index


def _read_unread(
    layout: Layout,
    summaries: dict[str, ModuleSummary],
    keys: dict[str, Optional[StatKey]],
    cache: SummaryCache,
    processes: int,
    asked: list[str],
    options: AnalysisOptions,
) -> ProjectIndex:
    """The index over ``summaries``, with the modules summarised from their bytes that the
    ``asked`` files' answers look into (:attr:`ProjectIndex.unread`: a base class defined
    there) or that a call by a name whose callers matter goes through (a re-export) parsed,
    in rounds until none is left, each once (one that does not parse stays as it was), and
    those that may define an argparse dest the asked files' loaders ask for: what
    :meth:`ProjectSetup._on_demand` parses of them for a check run."""
    tried: set[str] = set()
    while True:
        index = ProjectIndex(layout, summaries, targets=options.all_dataloader_classes)
        for path in asked:
            index.answers(path)
        looked = index.unread | index.named_through(caller_words(index, asked))
        light = sorted(
            path
            for path in looked - tried
            if (summary := summaries.get(path)) is not None and not summary.full
        )
        tried.update(light)
        light = [path for path in light if _imports_project(path, _raw_of(path, {}), layout)]
        # Those that may define an argparse dest a loader of the asked files asks for, as the
        # check run parses them (:func:`argparse_modules`).
        defining = argparse_modules(asked, summaries, [], lambda path: _raw_of(path, {}))
        light.extend(path for path in defining if path not in tried)
        tried.update(defining)
        if not light:
            return index
        sizes = [key[1] if (key := keys.get(p)) is not None else 0 for p in light]
        parsed = pool_map(_compute_full, light, sizes, processes, _PARSE_ITEMS, _PARSE_BYTES)
        for path, result in zip(light, parsed):
            if result is not None:
                summaries[path] = result[1]
                cache.entries[path] = (keys.get(path), result[0], result[1])
                cache.dirty = True


def argparse_modules(
    asked: Iterable[str],
    summaries: dict[str, ModuleSummary],
    deferred: Iterable[str],
    raw_of: Callable[[str], bytes],
    search: Optional[Callable[[list[str], tuple[str, ...]], Iterable[tuple[str, _Read]]]] = None,
) -> list[str]:
    """The modules not parsed yet (``deferred`` ones, and those summarised from bytes holding
    `add_argument` or `set_defaults`) whose bytes name a dest that the loaders of the
    ``asked`` modules ask of the project's argparse (``--num_workers``, ``--num-workers``,
    ``num_workers=``) beside `add_argument` or `set_defaults`: they may define it.
    ``search``: the whole words each module names (:meth:`_Deferred.read`, by the check's
    idle workers) instead of reading every module here."""
    dests = sorted(
        {dest for path in asked if (s := summaries.get(path)) is not None for dest in s.asks}
    )
    if not dests:
        return []
    spellings = {dest for dest in dests} | {dest.replace("_", "-") for dest in dests}
    names = _names(spellings)
    assert names is not None
    candidates = [*deferred, *(p for p, s in summaries.items() if not s.full and s.parser)]
    found: list[str] = []
    if search is not None:
        words = ("add_argument", "set_defaults", *sorted(spellings))
        for path, read in search(list(dict.fromkeys(candidates)), words):
            named = set(read[0])
            if named & {"add_argument", "set_defaults"} and named & spellings:
                found.append(path)
        return sorted(found)
    for path in dict.fromkeys(candidates):
        raw = raw_of(path)
        if (b"add_argument" in raw or b"set_defaults" in raw) and names.search(raw):
            found.append(path)
    return sorted(found)


def _light(path: str) -> Optional[tuple[str, Optional[ModuleSummary]]]:
    """A module's content hash and its summary from its bytes, or None for its summary when
    it needs a tree (parsed later, on demand); None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    scan = WordScan(raw)
    return digest(raw), (None if needs_tree(raw, scan) else light_summary(raw, scan))


def _raw_of(path: str, raws: dict[str, bytes]) -> bytes:
    if path not in raws:
        try:
            with open(path, "rb") as handle:
                raws[path] = handle.read()
        except OSError:
            raws[path] = b""
    return raws[path]


# A relative import or a star import: the module may reach a name through a module it does
# not name (``from . import main``, a package re-exporting it).
_RELATIVE = re.compile(rb"from[ \t]+\.")  # a literal first (fast); the line start checked
_STAR = re.compile(rb"import[ \t]*\*")
# The module a star import names, at a line's start (``from .modeling_llama import *``).
_STAR_FROM = re.compile(rb"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]*\*", re.MULTILINE)
# The module an absolute `from` import names, at a line's start (``from pkg.sub import f``).
_FROM = re.compile(rb"^[ \t]*from[ \t]+(\w[\w.]*)[ \t]+import\b", re.MULTILINE)
_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([\w. \t,]+)", re.MULTILINE)  # `import a.b, c as d`


class _Deferred:
    """The deferred modules' bytes, read once and searched once per caller word (the words
    grow round by round; :func:`caller_words`)."""

    def __init__(self, processes: int = 1) -> None:
        self.processes = processes  # the check's workers, kept for the search
        self.raws: dict[str, bytes] = {}
        self._found: dict[str, set[str]] = {}  # the words a module names
        self._searched: set[str] = set()  # the words every module was searched for
        self._imports: dict[str, tuple[bool, bool]] = {}  # (relative import, star import)
        # Each star import's module (None: one the line search does not read), per module.
        self._stars: dict[str, Optional[list[bytes]]] = {}
        self._sources: dict[str, list[bytes]] = {}  # the modules of its absolute `from` imports

    def raw(self, path: str) -> bytes:
        return _raw_of(path, self.raws)

    def callers_may_hide(self, paths: list[str], words: dict[str, set[str]]) -> list[str]:
        """The modules of ``paths`` that may hold a caller behind ``words``: they name one of
        them and a module it is reached through (or import relatively, or with a star); or
        they star-import from such a module (a re-export the caller goes through)."""
        new = [word for word in words if word and word not in self._searched]
        self._searched.update(new)
        if new:
            for path, read in self.read(paths, tuple(new)):
                named, imports, stars = read
                if named:
                    self._found.setdefault(path, set()).update(named)
                self._imports.setdefault(path, imports)
                if imports[1]:
                    self._stars.setdefault(path, stars)
        modules = _names(name for via in words.values() for name in via)
        hits: list[str] = []
        for path in paths:
            found = self._found.get(path)
            relative, star = self._imports_of(path)
            if found:
                via = _names(name for word in found for name in words.get(word, ()))
                if relative or star or (via is not None and via.search(self.raw(path))):
                    hits.append(path)
            elif star and modules is not None and self._stars_from(path, modules):
                hits.append(path)
        return hits

    def light_sources(self, paths: list[str], light: set[str], layout: Layout) -> list[str]:
        """The modules of ``light`` (summarised from their bytes) that a module of ``paths``
        naming a caller word (:meth:`callers_may_hide` searched it) imports from by an
        absolute ``from`` import and that name that word too: a re-export the caller may reach
        the function through (``from pkg.lib import build`` in ``pkg/sub.py``), which a
        search by the modules the function is reached through does not find."""
        found: list[str] = []
        for path in paths:
            named = self._found.get(path)
            if not named:
                continue
            if path not in self._sources:
                self._sources[path] = list(dict.fromkeys(_FROM.findall(self.raw(path))))
            for source in self._sources[path]:
                target = layout.resolve(path, source.decode("latin-1"))
                if target is None or target[1] or target[0] not in light:
                    continue
                raw = self.raw(target[0])
                if any(_whole(word).search(raw) is not None for word in named):
                    found.append(target[0])
        return found

    def read(self, paths: list[str], words: tuple[str, ...]) -> Iterable[tuple[str, _Read]]:
        """What each module holds of ``words`` and its imports (:func:`_read_all`): by the
        check's idle workers where there are many modules, this process taking the parts
        they have not started, the last first; here otherwise."""
        if len(paths) < _READ_PARTS_FROM:
            return zip(paths, _read_all(paths, words, self.raw))
        size = -(-len(paths) // _READ_PARTS)
        parts = [paths[at : at + size] for at in range(0, len(paths), size)]
        futures: list[Optional[Future[list[_Read]]]] = []
        for part in parts:
            futures.append(submit_kept(_read_modules, (part, words)))
        found: list[Optional[list[_Read]]] = [None] * len(parts)
        kept = sum(1 for future in futures if future is not None)
        for at in reversed(range(len(parts))):
            future = futures[at]
            if future is not None and kept <= self.processes:
                continue  # the first parts (one a worker) stay the workers'
            if future is None or future.cancel():  # not started by a worker
                kept -= future is not None
                found[at] = _read_all(parts[at], words, self.raw)
        read: list[tuple[str, _Read]] = []
        for at, part in enumerate(parts):
            future = futures[at]
            done = found[at]
            if done is None:
                assert future is not None
                try:
                    done = future.result()
                except Exception:  # a worker that died: read here instead
                    done = _read_all(part, words, self.raw)
            read.extend(zip(part, done))
        return read

    def _stars_from(self, path: str, modules: re.Pattern[bytes]) -> bool:
        """Whether a star import of the module (which has one) may name one of ``modules``:
        the last name of a star import's module is one of them (``from .llama import *``,
        ``from pkg.llama import *``); a star import the line search does not find (``from x
        import \\`` and ``*`` on the next line) or a package's own (``from . import *``) may."""
        if path not in self._stars:
            self._stars[path] = _star_sources(self.raw(path))
        sources = self._stars[path]
        if sources is None:
            return modules.search(self.raw(path)) is not None  # one the line search misses
        for source in sources:
            last = source.rstrip(b".").rsplit(b".", 1)[-1]
            if not last or modules.fullmatch(last) is not None:
                return True
        return False

    def class_hints(
        self,
        paths: list[str],
        summaries: dict[str, ModuleSummary],
        targets: frozenset[str],
        known: dict[str, Optional[ClassHint]],
        cache: SummaryCache,
    ) -> tuple[dict[str, ClassHint], Optional[frozenset[str]]]:
        """The modules' class hints (``known``: those the check's workers computed; then those
        the summary table keeps for the module's content; then from its bytes), and the names
        that may be a loader class anywhere in the project (None when a module's bytes give no
        hint: its classes are unknown)."""
        hints: dict[str, ClassHint] = {}
        for path in paths:
            entry = cache.entries.get(path)
            content = entry[1] if entry is not None else None
            hint = known.get(path)
            if hint is None:
                found, hint = cache.hint(path, content) if content is not None else (False, None)
                if not found:
                    hint = class_hint(self.raw(path))
            if content is not None:
                cache.keep_hint(path, content, hint)
            if hint is None:
                return {}, None
            hints[path] = hint
        parsed = {p: s for p, s in summaries.items() if p not in hints}
        return hints, possible_loader_names(parsed, hints.values(), targets)

    def _imports_of(self, path: str) -> tuple[bool, bool]:
        if path not in self._imports:
            self._imports[path] = _imports(self.raw(path))
        return self._imports[path]


# What a deferred module holds of the caller words searched for (those it names as whole
# words), whether it imports relatively or with a star, and its star imports' modules (None:
# one the line search does not read).
_Read = tuple[list[str], tuple[bool, bool], Optional[list[bytes]]]
_READ_PARTS_FROM = 256  # the fewest modules whose search the check's idle workers share
_READ_PARTS = 8


def _imports(raw: bytes) -> tuple[bool, bool]:
    """Whether the module imports relatively, and with a star."""
    relative = b"from" in raw and _relative(raw)
    return relative, b"*" in raw and _STAR.search(raw) is not None


def _star_sources(raw: bytes) -> Optional[list[bytes]]:
    """The modules the module's star imports name (None: one the line search misses)."""
    found: list[bytes] = _STAR_FROM.findall(raw)
    return found if len(found) == len(_STAR.findall(raw)) else None


def _read_all(
    paths: list[str], words: tuple[str, ...], raw_of: Callable[[str], bytes]
) -> list[_Read]:
    search = WordSet(word.encode() for word in words)
    found: list[_Read] = []
    for path in paths:
        raw = raw_of(path)
        # Substring searches first (one pass for them all): many times faster than a regex
        # over every module.
        named = [
            word.decode()
            for word in search.found(raw)
            if _whole(word.decode()).search(raw) is not None
        ]
        imports = _imports(raw)
        found.append((named, imports, _star_sources(raw) if imports[1] else None))
    return found


def _read_modules(item: tuple[list[str], tuple[str, ...]]) -> list[_Read]:
    """:func:`_read_all` in a worker."""
    return _read_all(item[0], item[1], lambda path: _raw_of(path, {}))


def _relative(raw: bytes) -> bool:
    """Whether a line starts (after its indentation) with ``from .``: a relative import."""
    for match in _RELATIVE.finditer(raw):
        start = match.start()
        if not raw[raw.rfind(b"\n", 0, start) + 1 : start].strip(b" \t"):
            return True
    return False


def _imports_project(path: str, raw: bytes, layout: Layout) -> bool:
    """Whether a module summarised from its bytes imports a module of the project (relatively,
    or by a name the layout resolves): reading its tree can tell the index something only
    then (a project base class, a re-export, an instance of a project class it returns); its
    own classes and functions hold no RNG, seeding or loader word."""
    if b"import" not in raw:
        return False
    if b"from" in raw and _relative(raw):
        return True
    names = [source.decode("latin-1") for source in _FROM.findall(raw)]
    for line in _IMPORT.findall(raw):
        names.extend(part.split()[0].decode("latin-1") for part in line.split(b",") if part.split())
    return any(layout.resolve(path, name) is not None for name in dict.fromkeys(names))


def _whole(word: str) -> re.Pattern[bytes]:
    return re.compile(rb"\b" + re.escape(word.encode()) + rb"\b")


def _names(words: Iterable[str]) -> Optional[re.Pattern[bytes]]:
    """A search for any of ``words`` as a whole name."""
    chosen = sorted({w for w in words if w})
    if not chosen:
        return None
    return re.compile(rb"\b(?:" + b"|".join(re.escape(w.encode()) for w in chosen) + rb")\b")


def _keep(
    cache: SummaryCache,
    path: str,
    key: Optional[StatKey],
    content: str,
    summary: Optional[ModuleSummary],
) -> None:
    """Put a file's summary (one the check pass computed) in the table unless it holds that
    very entry already."""
    entry = cache.entries.get(path)
    if entry is None or entry[0] != key or entry[1] != content:
        cache.entries[path] = (key, content, summary)
        cache.checked.add(path)


_STORES: dict[Path, Cache] = {}
# What each module read for the project's loader names binds (its stat key, its links), for
# the other setups of the process: a folder of scripts is many projects, nested.
_BINDS: dict[str, tuple[Optional[StatKey], tuple[Link, ...]]] = {}
_SUMMARY_CACHES: dict[tuple[Optional[Path], AnalysisOptions], SummaryCache] = {}


def _summary_cache(
    directory: Optional[Path], options: AnalysisOptions, shared: bool
) -> SummaryCache:
    """The summary table of a cache folder; with ``shared``, one per process: the setups of
    many projects (the flake8 plugin's, one per root) share it instead of each reading it."""
    if not shared or directory is None:
        return SummaryCache(directory, options)
    key = (directory, options)
    found = _SUMMARY_CACHES.get(key)
    if found is None:
        found = _SUMMARY_CACHES[key] = SummaryCache(directory, options)
    return found


def _store(directory: Path, shared: bool) -> Cache:
    """The cache folder's signed files; with ``shared``, one reader per folder for the
    process (the flake8 plugin has a setup per project root, and a folder of scripts is many
    projects)."""
    found = _STORES.get(directory) if shared else None
    if found is None:
        with contextlib.redirect_stderr(io.StringIO()):  # the findings' cache warns once
            found = Cache(directory)
        if shared:
            _STORES[directory] = found
    return found


class ProjectSetup:
    """What a check run needs to build its project index late, only when some checked file's
    findings may depend on the project (see ``run.files.check_files``): the summaries the check
    pass computed are reused, and the project's other files are summarised (through the summary
    cache) only then."""

    def __init__(
        self,
        resolver: SettingsResolver,
        settings: Settings,
        cache_dir: Optional[Path],
        processes: int,
        root: Optional[Path] = None,
        shared: bool = False,
    ) -> None:
        """``shared``: the process's other setups share the cache folder's readers and
        summary table (the flake8 plugin makes one setup per project root)."""
        self.resolver = resolver
        self.settings = settings
        self.shared = shared
        self.options = AnalysisOptions(
            settings.dataloader_classes, settings.capture_contexts, settings.seed_functions
        )
        self.cache_dir = cache_dir
        self.processes = processes
        self.root = root
        self._cache: Optional[SummaryCache] = None
        # Stat keys taken by earlier builds of this setup (the flake8 plugin builds once per
        # file that needs the project, in one process; the CLI builds once).
        self._stats: dict[str, Optional[StatKey]] = {}
        # Summaries the check pass computed, kept only if the index is built (a run that
        # builds none neither reads nor writes the summary table: a pre-commit run naming one
        # file must not pay for the whole project's table).
        self._pending: dict[str, tuple[Optional[StatKey], str, ModuleSummary]] = {}
        # The Python files a walk of a folder found (the run's discovery of its one folder
        # argument): the project's walk, when that folder is the project's root.
        self.walked: Optional[tuple[str, list[str]]] = None  # (folder, the files' names)
        # Modules the check pass read but did not parse that need a tree: (stat key, hash).
        self._deferred: dict[str, tuple[Optional[StatKey], str]] = {}
        self._hints: dict[str, Optional[ClassHint]] = {}  # of deferred modules (None: unread)
        self._no_parser: set[str] = set()  # deferred modules whose bytes define no argument
        self._named: set[str] = set()  # the files the run checks (absolute)
        self._loaders: Optional[LoaderNames] = None  # the project's loader names
        self._roots: dict[tuple[str, str], Path] = {}
        self._walks: dict[Path, list[str]] = {}  # this setup's walks (see forget_files)
        self._loaders_root = Path.cwd()
        # The summaries the loader names' round 0 parsed (no record): a fix run's index
        # takes them instead of parsing those modules again.
        self._round0: dict[str, ModuleSummary] = {}

    def _root(self, checked: Iterable[str] = ()) -> Path:
        """The project's root: the setting, else the root above the checked files."""
        if self.root is not None:
            return self.root
        paths = list(checked)
        if not paths:
            return find_root(Path.cwd())
        key = (min(paths), max(paths))
        if self._roots.get(key) is None:
            # The common folder of the least and the greatest name is every name's (a name
            # between two that share a folder shares it): two names instead of thousands.
            try:
                common = os.path.abspath(os.path.commonpath(key))
            except ValueError:  # relative and absolute names mixed
                common = os.path.commonpath([os.path.abspath(path) for path in paths])
            self._roots[key] = find_root(Path(common))
        return self._roots[key]

    def root_of(self, checked: Iterable[str] = ()) -> Path:
        """The project's root for a run that checks ``checked``: it decides what an import
        reaches, so every record of a run's findings is kept for one root."""
        return self._root(checked)

    def loader_names(self, checked: Iterable[str] = ()) -> LoaderNames:
        """The project's loader names, as the record in the cache folder keeps them (see
        ``run.loader_names``); updated by :meth:`bound` and :meth:`complete_loaders`.
        ``checked``: the files the run checks (the project is the one above them)."""
        if self._loaders is None:
            self._loaders_root = self._root(checked)
            store = _store(self.cache_dir, self.shared) if self.cache_dir is not None else None
            self._loaders = LoaderNames(store, str(self._loaders_root), self.options)
        return self._loaders

    def has_loader_names(self) -> bool:
        """Whether the run follows the project's loader names (:meth:`loader_names` was
        asked for: a selected rule checks the project's loader classes)."""
        return self._loaders is not None

    def bound(self, path: str, summary: Optional[ModuleSummary]) -> None:
        """What the checked module at ``path`` (absolute, normalised) binds (a summary not from
        its tree: nothing)."""
        self.loader_names().update(path, summary)

    def complete_loaders(
        self,
        checked: Callable[[], list[str]],
        known: dict[str, ModuleSummary],
        exclude: str = "",
        read: bool = True,
    ) -> dict[str, tuple[str, ModuleSummary]]:
        """The loader names that no loader word finds, to a fixpoint, once the check pass has
        told what its files bind: the modules naming one that the check pass did not look
        for (absolute paths, each with its content hash and summary). Without a record, the
        project's other files are read for what they bind (``exclude``: one not read, the
        caller tells what it binds; ``read``: the check pass read the checked files, else
        they are read too). ``checked``: the checked files (absolute), asked for only when
        needed (most runs have no such name)."""
        names = self.loader_names()
        others: list[str] = []
        if not names.found:
            names.found = names.dirty = True  # written even when nothing binds a name
            root = self._loaders_root
            if not self._checks_root(root) or exclude or not read:
                covered = {*checked(), exclude} if read else set()
                others = [path for path in self._walk(root) if path not in covered]
                unread = self._unsummarised(others, names)
                self._round0.update(names.from_files(unread, self.processes))
                for path in unread:  # what each binds, for the process's other setups
                    _BINDS[path] = (self._stats.get(path), names.modules.get(path, ()))

        @functools.lru_cache(maxsize=1)
        def paths() -> list[str]:
            return [*checked(), *others]

        @functools.lru_cache(maxsize=1)
        def parsed() -> dict[str, ModuleSummary]:
            return {path: s for path, s in known.items() if s.full}  # absolute already

        return names.complete(paths, self.processes, parsed)

    def _unsummarised(self, paths: list[str], names: LoaderNames) -> list[str]:
        """The modules of ``paths`` whose links the summary table cannot tell: the others'
        links are taken from their summaries (unchanged since, by their stat keys). A module
        summarised from its bytes binds no loader name when every loader class's name holds
        `DataLoader` (its bytes would need a tree)."""
        light_binds_none = all("DataLoader" in word for word in names.roots)
        unread: list[str] = []
        for path in paths:
            if path not in self._stats:
                self._stats[path] = stat_key(Path(path))
            key = self._stats[path]
            known = _BINDS.get(path)
            if known is not None and key is not None and known[0] == key:
                names.bind(path, known[1])
                continue
            entry = self.cache.entries.get(path)
            if entry is not None and key is not None and entry[0] == key and entry[2] is not None:
                if entry[2].full:
                    names.update(path, entry[2])
                    continue
                if light_binds_none:
                    continue
            unread.append(path)
        return unread

    @property
    def cache(self) -> SummaryCache:
        if self._cache is None:
            self._cache = _summary_cache(self.cache_dir, self.options, self.shared)
            for path, (key, content, summary) in self._pending.items():
                _keep(self._cache, path, key, content, summary)
            self._pending.clear()
        return self._cache

    def cached_summary(self, path: str, key: Optional[StatKey]) -> Optional[ModuleSummary]:
        """A file's summary from the summary cache, when its stat key is unchanged."""
        entry = self.cache.entries.get(os.path.abspath(path))
        if entry is None or key is None or entry[0] != key:
            return None
        return entry[2]

    def remember(
        self, path: str, key: Optional[StatKey], content: str, summary: ModuleSummary
    ) -> None:
        """Keep a summary the check pass computed from the file on disk (for later runs, when
        this run builds the index)."""
        path = os.path.abspath(path)
        if self._cache is None:
            self._pending[path] = (key, content, summary)
        else:
            _keep(self._cache, path, key, content, summary)

    def note_stats(self, stats: dict[str, Optional[StatKey]]) -> None:
        """The stat keys the check pass read (absolute paths): the build does not stat those
        files again."""
        self._stats.update(stats)

    def forget_files(self) -> None:
        """Look at the project's files again at the next build (one changed on disk: the
        language server's setups live for a session). Its loader names stay: the server
        tells what each buffer it checks binds (:meth:`bound`)."""
        self._stats.clear()
        self._walks.clear()

    def defer(
        self,
        path: str,
        key: Optional[StatKey],
        content: str,
        hint: Optional[ClassHint] = None,
        parser: bool = True,
    ) -> None:
        """A checked file whose summary needs a tree the check pass did not build: parsed
        on demand if the index is built (:meth:`build`). ``hint``: what its bytes say about
        its classes (computed by the check's worker); ``parser``: whether they may define
        argparse arguments (if not, :func:`argparse_modules` does not read them)."""
        absolute = os.path.abspath(path)
        self._deferred[absolute] = (key, content)
        self._hints[absolute] = hint  # this content's (None: read when needed)
        if not parser:
            self._no_parser.add(absolute)
        else:
            self._no_parser.discard(absolute)

    def build(
        self,
        checked: list[str],
        known: dict[str, ModuleSummary],
        asked: Iterable[str],
        targets: frozenset[str] = frozenset(),
    ) -> ProjectIndex:
        """The index over the project's files and the ``checked`` ones, enough to answer for
        the ``asked`` files (absolute paths); ``known``: summaries already computed (standard
        input's from its text); ``targets``: DataLoader classes the checked files' settings
        name besides this setup's (a folder's own configuration may add some).

        A module that needs a tree (:func:`~seedlint.project.summary.needs_tree`) is parsed
        only on demand: when computing the asked files' answers looks into it (a function a
        program calls is there, or a loader class is reached through it), or when it may hold
        a caller that matters (it names a function the asked files' questions are about, or
        one calling such a function, and imports it). The others keep a summary from their
        bytes (:meth:`_on_demand`)."""
        checked_paths = keys_of(checked)  # absolute (each remembered per run)
        self._named.update(checked_paths)
        root = self._root(checked_paths)
        _OPTIONS[0] = self.options
        cache = self.cache
        summaries = dict(known)
        keys: dict[str, Optional[StatKey]] = dict.fromkeys(known)
        walked = self._walk(root)
        paths = list(dict.fromkeys([*walked, *checked_paths]))
        # Modules binding a loader name the record knows of: parsed when an answer looks into
        # them, whatever their words (`from .loaders import AudioLoader as Feeder`).
        linked = self._loaders.linked() if self._loaders is not None else frozenset()
        deferred: list[str] = []
        pending: list[str] = []
        for path in paths:
            if path in summaries:
                continue
            if path in self._deferred:
                key, content = self._deferred[path]
                keys[path] = key
                entry = cache.entries.get(path)
                if entry is not None and entry[1] == content and entry[2] is not None:
                    summaries[path] = entry[2]  # parsed on demand by an earlier run
                    continue
                _keep(cache, path, key, content, None)
                deferred.append(path)
                continue
            if path not in self._stats:
                self._stats[path] = stat_key(Path(path))
            key = keys[path] = self._stats[path]
            entry = cache.entries.get(path)
            if entry is not None and key is not None and entry[0] == key:
                if entry[2] is None or (not entry[2].full and path in linked):
                    deferred.append(path)
                else:
                    summaries[path] = entry[2]
            else:
                pending.append(path)
        sizes = [k[1] if (k := keys[p]) is not None else 0 for p in pending]
        for path, result in zip(pending, pool_map(_light, pending, sizes, self.processes)):
            if result is None:
                continue
            cache.entries[path] = (keys[path], result[0], result[1])
            cache.dirty = True
            if result[1] is None or path in linked:
                deferred.append(path)
            else:
                summaries[path] = result[1]
        layout = Layout(root, paths)
        all_targets = self.options.all_dataloader_classes | targets
        index = self._on_demand(layout, summaries, keys, deferred, asked, all_targets)
        for path in cache.entries.paths():
            if path not in keys and path.startswith(str(root)):
                del cache.entries[path]  # a file gone from the project
                cache.dirty = True
        return index

    def hidden_loaders(self, exclude: str = "") -> frozenset[str]:
        """The project's loader names that no loader word finds, for a face that checks one
        file at a time (the flake8 plugin, the server): from the record, or, without one,
        from the project's files (read once per setup; ``exclude``: the file being checked,
        not read: the face tells what it binds, :meth:`bound`)."""
        names = self.loader_names()
        if not names.found:
            self.complete_loaders(list, {}, os.path.abspath(exclude) if exclude else "")
            names.save()  # the next process reads it
        return names.hidden()

    def fix_index(self, checked: list[Path], always: bool) -> Optional[ProjectIndex]:
        """The index a ``--fix`` run fixes with, built before the per-file work (None: no
        fixed file needs it); the project's loader names that no loader word finds are set
        for the pre-filter (:func:`~seedlint.prefilter.words.set_project_loaders`). With no
        check pass before it, every file of the project is read for those names."""
        paths = [os.path.abspath(path) for path in checked]
        keep_parses(True)  # the last module parsed here is the first the fix checks
        names = self.loader_names(paths)
        found = self.complete_loaders(list, {}, read=False)
        set_project_loaders(names.hidden())
        summaries = {path: summary for path, (_, summary) in found.items()}
        named = always or any(path in summaries for path in paths)
        # The modules round 0 parsed: the same summary the index would compute (one from its
        # tree exactly when its words need a tree), without a second parse.
        for path, summary in self._round0.items():
            if path not in summaries and summary.full and _needs_tree(path):
                summaries[path] = summary
        root = self._loaders_root
        files = self._walk(root)  # walked once (a broken configuration warns once)
        return build_index(
            checked,
            self.resolver,
            self.settings,
            None,
            self.processes,
            root,
            named,
            summaries,
            files,
        )

    def _walk(self, root: Path) -> list[str]:
        """The project's files (the run's own walk when it checks the project's root), walked
        once per setup."""
        if root not in self._walks:
            found_now = None
            if self._checks_root(root):
                assert self.walked is not None
                found_now = keys_of([name for name in self.walked[1] if name.endswith(".py")])
            walk = walk_project(root, self.resolver, self.settings, self.cache, found_now)
            self._walks[root] = walk
        return self._walks[root]

    def _checks_root(self, root: Path) -> bool:
        """Whether the run checks the project's root (its files are the project's)."""
        return self.walked is not None and self.walked[0] == os.path.abspath(root)

    def _on_demand(
        self,
        layout: Layout,
        summaries: dict[str, ModuleSummary],
        keys: dict[str, Optional[StatKey]],
        deferred: list[str],
        asked: Iterable[str],
        targets: frozenset[str],
    ) -> ProjectIndex:
        """Parse the deferred modules the asked files' answers may depend on (see
        :meth:`build`); the rest get a summary from their bytes.

        In rounds, until nothing more is needed: the asked files' answers are computed over
        the summaries so far (each deferred module standing as an opaque one), and the
        deferred modules they looked into (:attr:`ProjectIndex.unread`: a helper a program
        calls, a module a loader class is reached through) are parsed, with those that name
        a function (or class) whose callers matter (:func:`caller_words`: a caller may hide
        there) and those a call by such a name goes through (a re-export).

        The index of the last round is the run's: its answers looked into no module still
        deferred, so what it has computed holds once those get their summaries from their
        bytes (an opaque module's only other property, ``may_draw``, is read only by the
        program closures, which record the modules they look into)."""
        asked = [os.path.abspath(path) for path in asked]
        pending = set(deferred)
        self._parse([path for path in asked if path in pending], summaries, keys, pending)
        modules = _Deferred(self.processes)
        # The modules that may define an argparse dest the asked files' loaders ask for.
        defining = argparse_modules(
            asked,
            summaries,
            sorted(pending - self._no_parser),
            modules.raw,
            search=modules.read,
        )
        if defining:
            self._parse(defining, summaries, keys, pending)
        opaque = ModuleSummary(full=False)
        hints, loaders = modules.class_hints(
            sorted(pending), summaries, targets, self._hints, self.cache
        )
        # The modules summarised from their bytes: parsed too when an answer looks into one
        # (a base class, a re-export) or a caller may hide there, each once (not an asked
        # file: its summary may be a buffer's, not the file's on disk).
        light = {path for path, s in summaries.items() if not s.full} - pending - set(asked)
        while True:
            for path in pending:
                summaries[path] = opaque
            index = ProjectIndex(layout, summaries, hints, loaders, targets, normalized=True)
            for path in asked:
                index.answers(path)
            if not pending and not light:
                return index
            words = caller_words(index, asked)
            order = sorted(pending)
            wanted = index.unread | index.named_through(words)
            reached = sorted(light & wanted)
            light.difference_update(
                path for path in reached if not _imports_project(path, modules.raw(path), layout)
            )
            reached = sorted(light & wanted)
            if not order and not reached:
                return index
            # The modules the answers looked into are parsed at once by the check's idle
            # workers, if they are still there, while this process searches the others for
            # callers (and parses those it finds).
            early = self._submit([*(path for path in order if path in wanted), *reached], keys)
            hits = set(modules.callers_may_hide(order, words))
            hits.update(path for path in order if path in wanted)
            hits.update(reached)
            hits.update(modules.light_sources(order, light, layout))
            if not hits:
                break
            light -= hits
            self._parse(sorted(hits), summaries, keys, pending, early)
        for path in pending:
            summaries[path] = index.summaries[path] = LIGHT
        return index

    def _submit(
        self, paths: list[str], keys: dict[str, Optional[StatKey]]
    ) -> dict[str, Future[Optional[tuple[str, ModuleSummary]]]]:
        """The modules' summaries computed by the kept pool's workers, the largest first."""
        early: dict[str, Future[Optional[tuple[str, ModuleSummary]]]] = {}
        for path in sorted(paths, key=lambda p: -(key[1] if (key := keys.get(p)) else 0)):
            future = submit_kept(_compute_with, (path, self.options))
            if future is None:
                break
            early[path] = future
        return early

    def _parse(
        self,
        paths: list[str],
        summaries: dict[str, ModuleSummary],
        keys: dict[str, Optional[StatKey]],
        pending: set[str],
        early: Optional[dict[str, Future[Optional[tuple[str, ModuleSummary]]]]] = None,
    ) -> None:
        """Parse ``paths`` for their summaries (those of ``early`` as its workers compute
        them, the others here first)."""
        early = dict(early or {})
        if len(paths) > 1:
            # The check's idle workers take them all, the largest first, and this process
            # the ones they have not started, the smallest first.
            early.update(self._submit([path for path in paths if path not in early], keys))
        here = [path for path in paths if path not in early]
        sizes = [key[1] if (key := keys.get(p)) is not None else 0 for p in here]
        # Parsing pays for the pool sooner than the check's pre-filter does (~20 ms a module).
        parsed = pool_map(_compute_full, here, sizes, self.processes, _PARSE_ITEMS, _PARSE_BYTES)
        results = dict(zip(here, parsed))
        # The largest ones (one a worker) stay the workers'; of the others, those no worker
        # has started are parsed here.
        smallest = sorted(early, key=lambda p: key[1] if (key := keys.get(p)) else 0)
        for path in smallest[: max(0, len(smallest) - self.processes)]:
            if early[path].cancel():  # not started by a worker
                results[path] = _compute_full(path)
        for path in paths:
            if path in early and path not in results:
                try:
                    results[path] = early[path].result()
                except Exception:  # a worker that died: parsed here instead
                    results[path] = _compute_full(path)
        for path in paths:
            result = results[path]
            pending.discard(path)
            if result is None:
                summaries.pop(path, None)
                continue
            summaries[path] = result[1]
            self.cache.entries[path] = (keys.get(path), result[0], result[1])
            self.cache.dirty = True

    def save(self) -> None:
        if self._loaders is not None:
            self._loaders.save()
        cache = self._cache
        if cache is None:
            return
        if not cache.dirty and len(cache.checked) <= _FEW and cache.checked <= self._named:
            # Only the summaries of the few files this run named changed (a pre-commit run
            # after an edit): the next run that checks them computes them again, and the
            # table (the whole project's) is not written for so little.
            return
        cache.save()


__all__ = ["ProjectSetup", "build_index", "project_files", "summary_of"]
