"""The per-file pipeline, the process pool and the cache.

bytes -> pre-filter (does the text contain a name a selected rule can fire on?) -> decode ->
``ast.parse`` -> module facts -> rules -> suppression. Any failure in one file becomes that
file's RNG000 finding; the run goes on.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import hashlib
import json
import multiprocessing
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Optional

from seedlint import __version__
from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
from seedlint.config import Settings
from seedlint.diagnostics import Finding, Fix
from seedlint.noqa import file_exemption, line_suppresses
from seedlint.rules import BY_CODE, RULES, Rule
from seedlint.rules.base import Violation
from seedlint.rules.rng000_invalid_file import INTERNAL_ERROR, READ_ERROR, SYNTAX_ERROR
from seedlint.source import DecodeError, Source


@dataclass
class RuleSet:
    """The selected rules for one settings object, with their pre-filter words."""

    rules: list[Rule]
    enabled: frozenset[str]
    options: AnalysisOptions = field(default_factory=AnalysisOptions)
    # Each rule's trigger groups, encoded: a file that misses a group of every rule cannot
    # have a finding.
    any_words: tuple[tuple[tuple[bytes, ...], ...], ...] = field(default=())

    @classmethod
    def build(cls, settings: Settings) -> RuleSet:
        enabled = settings.enabled_codes()
        options = settings.analysis
        rules = [rule() for rule in RULES if rule.code in enabled and rule.code != "RNG000"]
        encoded = tuple(
            tuple(tuple(word.encode() for word in _essential(group)) for group in groups)
            for groups in (rule.triggers(options) for rule in rules)
        )
        return cls(rules, enabled, options, encoded)

    def may_fire(self, raw: bytes, display: str = "") -> bool:
        """Whether some selected rule may fire on the bytes of the file ``display``: it finds
        each of its word groups (each word is looked for once, however many rules share it),
        and its second stage (:meth:`Rule.may_fire`) does not rule the file out. A notebook's
        bytes are JSON, whose strings split the code at every line: only the words are looked
        for there (the second stage runs on the cells' code, in :func:`analyze_text`)."""
        return any(self.firing(raw, display))

    def firing(self, raw: bytes, display: str = "") -> Iterator[Rule]:
        """The selected rules that pass the pre-filter on the bytes, lazily."""
        notebook = display.endswith(".ipynb")
        seen: dict[bytes, bool] = {}

        def has(word: bytes) -> bool:
            found = seen.get(word)
            if found is None:
                found = seen[word] = word in raw
            return found

        for rule, groups in zip(self.rules, self.any_words):
            if all(any(has(word) for word in group) for group in groups) and (
                notebook or rule.may_fire(raw, self.options)
            ):
                yield rule


def _essential(group: tuple[str, ...]) -> tuple[str, ...]:
    """The group without the words that contain another of its words (`set_seed` is found
    whenever `seed` is): one scan of the file fewer each."""
    return tuple(sorted(w for w in set(group) if not any(o != w and o in w for o in group)))


_RULESETS: dict[str, RuleSet] = {}


def ruleset(settings: Settings) -> RuleSet:
    key = settings.fingerprint()
    found = _RULESETS.get(key)
    if found is None:
        found = _RULESETS[key] = RuleSet.build(settings)
    return found


@dataclass
class Analysis:
    """Everything one check of one file produced (the fixer uses the violations)."""

    findings: list[Finding]
    source: Optional[Source] = None
    tree: Optional[ast.Module] = None
    violations: list[tuple[Rule, Violation, Finding]] = field(default_factory=list)
    facts: Optional[ModuleFacts] = None


def invalid(path: str, kind: str, message: str, row: int = 1, col: int = 0) -> Finding:
    return Finding(
        "RNG000", kind, message, path, max(row, 1), max(col, 0), max(row, 1), max(col, 0)
    )


def analyze_text(
    text: str,
    display: str,
    settings: Settings,
    source: Optional[Source] = None,
    tree: Optional[ast.Module] = None,
    suppress: bool = True,
    prefilter: bool = True,
) -> Analysis:
    """Check already-decoded Python text (notebooks and stdin come here too).

    ``tree``: the text's module, already parsed (the flake8 plugin passes flake8's), so that it
    is not parsed again. ``suppress=False`` skips ``# noqa`` comments, file exemptions and
    ``per-file-ignores`` (flake8 does its own suppression and selection). ``prefilter=False``
    runs every selected rule, even those the pre-filter rules out (the tests compare both).
    """
    rules = ruleset(settings)
    source = source or Source(text, "utf-8")
    try:
        if tree is None:
            with warnings.catch_warnings():  # Python 3.12+ warns of `"\d"`: not our business
                warnings.simplefilter("ignore")
                tree = ast.parse(text, filename=display)
    except SyntaxError as error:
        row = error.lineno or 1
        col = max((error.offset or 1) - 1, 0)
        reason = error.msg or "invalid syntax"
        return Analysis([invalid(display, SYNTAX_ERROR, f"SyntaxError: {reason}", row, col)])
    except ValueError as error:  # NUL bytes on some Python versions
        return Analysis([invalid(display, SYNTAX_ERROR, f"SyntaxError: {error}")])
    except (RecursionError, MemoryError) as error:
        message = f"{type(error).__name__}: the file is nested too deeply to parse"
        return Analysis([invalid(display, SYNTAX_ERROR, message)])
    facts = ModuleFacts(tree, settings.analysis)
    analysis = Analysis([], source, tree, facts=facts)
    exemption = file_exemption(text) if suppress else file_exemption("")
    ignored = settings.ignored_for(Path(display)) if suppress else frozenset()
    # Only the rules that pass the pre-filter run: the others cannot fire.
    firing = rules.firing(text.encode("utf-8", "surrogatepass")) if prefilter else rules.rules
    for rule in firing:
        if rule.code in ignored or exemption.covers(rule.code):
            continue
        for violation in rule.check(facts):
            finding = to_finding(rule, violation, display, source)
            if suppress and any(
                line_suppresses(source.line(r), rule.code) for r in finding.noqa_rows
            ):
                continue
            finding = with_fix(finding, rule, violation, facts, settings)
            analysis.findings.append(finding)
            analysis.violations.append((rule, violation, finding))
    analysis.findings.sort(key=lambda f: f.sort_key)
    return analysis


def with_fix(
    finding: Finding, rule: Rule, violation: Violation, facts: ModuleFacts, settings: Settings
) -> Finding:
    """The finding with the fix it offers, known from the ``ast`` facts alone (no libcst; the
    edits are computed when fixing). ``fixable``: ``--fix`` applies it (an unsafe fix only
    with ``--unsafe-fixes``), which the ``[*]`` marker shows."""
    if rule.fix_availability is None or rule.code not in settings.fixable_codes():
        return finding
    info = rule.fix_info(facts, violation)
    if info is None:
        return finding
    applicability, message = info
    fixable = applicability == "safe" or settings.unsafe_fixes
    return replace(finding, fix=Fix(applicability, message), fixable=fixable)


def to_finding(rule: Rule, violation: Violation, display: str, source: Source) -> Finding:
    node = violation.node
    row = getattr(node, "lineno", 1)
    end_row = getattr(node, "end_lineno", None) or row
    col = source.char_col(row, getattr(node, "col_offset", 0))
    end_col = source.char_col(end_row, getattr(node, "end_col_offset", None) or 0)
    noqa_rows = (row, end_row) if end_row != row else (row,)
    return Finding(
        rule.code,
        rule.name,
        violation.message,
        display,
        row,
        col,
        end_row,
        end_col,
        noqa_rows=noqa_rows,
    )


def analyze_bytes(raw: bytes, display: str, settings: Settings) -> Analysis:
    """The whole pipeline for one file's bytes; never raises."""
    try:
        rules = ruleset(settings)
        if not rules.may_fire(raw, display):
            return Analysis([])
        if display.endswith(".ipynb"):
            from seedlint.notebook import analyze_notebook

            return analyze_notebook(raw, display, settings)
        try:
            source = Source.decode(raw)
        except DecodeError as error:
            row, col = _position(raw, error.offset or 0)
            return Analysis([invalid(display, READ_ERROR, f"cannot decode: {error}", row, col)])
        if "\0" in source.text:
            row, col = _position(raw, raw.find(b"\0"))
            message = "cannot check: the file has a NUL byte (is it a binary file?)"
            return Analysis([invalid(display, READ_ERROR, message, row, col)])
        return analyze_text(source.text, display, settings, source)
    except (RecursionError, MemoryError) as error:  # the analysis of a deeply nested file
        message = f"{type(error).__name__}: the file is nested too deeply to check"
        return Analysis([invalid(display, SYNTAX_ERROR, message)])
    except Exception as error:  # a bug in seedlint: one finding, and the run goes on
        message = (
            f"internal error: {type(error).__name__}: {error} "
            "(please report this at the seedlint issue tracker, with the file if you can)"
        )
        return Analysis([invalid(display, INTERNAL_ERROR, message)])


def findings_of(raw: bytes, display: str, settings: Settings) -> list[Finding]:
    """:func:`analyze_bytes` for a caller that keeps only the findings.

    The cyclic garbage collector is paused meanwhile: building a tree allocates millions of
    objects, and each allocation burst would make it rescan everything alive, the tree being
    built included (a third of the whole check's time). The facts are released afterwards,
    which breaks their only reference cycles, so the tree is freed at once all the same.
    """
    with collector_paused():
        return released(analyze_bytes(raw, display, settings))


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block (see :func:`findings_of`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def released(analysis: Analysis) -> list[Finding]:
    """The analysis's findings, its facts released (their cycles broken)."""
    if analysis.facts is not None:
        analysis.facts.release()
    return analysis.findings


def _position(raw: bytes, offset: int) -> tuple[int, int]:
    """The 1-based row and 0-based byte column of a byte offset (for undecodable files)."""
    offset = max(0, min(offset, len(raw)))
    row = raw.count(b"\n", 0, offset) + 1
    return row, offset - (raw.rfind(b"\n", 0, offset) + 1)


def read_file(path: Path) -> tuple[Optional[bytes], Optional[str]]:
    try:
        with open(path, "rb") as handle:
            return handle.read(), None
    except IsADirectoryError:
        return None, "cannot read: it is a folder"
    except OSError as error:
        return None, f"cannot read: {error.strerror or error}"


# -- the cache -------------------------------------------------------------------------------
# Bumped whenever what a cache entry holds changes, so that old entries are never read.
CACHE_FORMAT = 3

StatKey = tuple[int, int, int, int]
# A file modified this recently may change again within the file system's timestamp
# granularity without its stat key changing ("racy git"): its stat key is not trusted.
_RACY_NS = 2_000_000_000


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of seedlint's own source, so that an edited checkout of the same version never
    reads findings an older build wrote (about 2 ms)."""
    root = Path(__file__).resolve().parent
    digest_ = hashlib.blake2b(digest_size=8)
    for path in sorted(root.rglob("*.py")):
        digest_.update(path.relative_to(root).as_posix().encode())
        digest_.update(path.read_bytes())
    return digest_.hexdigest()


def stat_key(path: Path) -> Optional[StatKey]:
    """Inode, size, modification and change time: any write to the file changes the change
    time, which no tool can set back, so an equal key means equal content."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class Cache:
    """Findings per file, for seedlint's version and the settings.

    An entry holds the file's content hash and its stat key. A file whose stat key is unchanged
    is not even read; otherwise an unchanged content hash still reuses the findings (a fresh CI
    checkout changes every modification time, not the contents). Files that cannot contain a
    finding are remembered too (no hash, no findings), so a warm run reads nothing.
    One JSON file per settings digest under ``<cache-dir>/<version>-<code digest>/``, written
    atomically.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._folder = directory / f"{__version__}-{code_digest()}"
        self._tables: dict[str, dict[str, Any]] = {}
        self._dirty: set[str] = set()

    def _table(self, key: str) -> dict[str, Any]:
        table = self._tables.get(key)
        if table is None:
            path = self._folder / f"{key}-{CACHE_FORMAT}.json"
            try:
                table = json.loads(path.read_text())
                if not isinstance(table, dict):
                    table = {}
            except (OSError, ValueError):
                table = {}
            self._tables[key] = table
        return table

    def _findings(self, entry: Any) -> Optional[list[Finding]]:
        try:
            return [_finding_from_json(item) for item in entry["findings"]]
        except (TypeError, KeyError, ValueError):
            return None

    def by_stat(
        self, settings: Settings, path: str, key: Optional[StatKey]
    ) -> Optional[list[Finding]]:
        entry = self._table(settings.fingerprint()).get(path)
        if key is None or not isinstance(entry, dict) or entry.get("stat") != list(key):
            return None
        return self._findings(entry)

    def get(self, settings: Settings, path: str, digest: str) -> Optional[list[Finding]]:
        entry = self._table(settings.fingerprint()).get(path)
        if not isinstance(entry, dict) or entry.get("digest") != digest:
            return None
        return self._findings(entry)

    def put(
        self,
        settings: Settings,
        path: str,
        digest: Optional[str],
        findings: list[Finding],
        key: Optional[StatKey] = None,
    ) -> None:
        table_key = settings.fingerprint()
        self._table(table_key)[path] = {
            "stat": list(key) if key is not None else None,
            "digest": digest,
            "findings": [_finding_to_json(f) for f in findings],
        }
        self._dirty.add(table_key)

    def save(self) -> None:
        if not self._dirty:
            return
        try:
            folder = self._folder
            folder.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():  # never overwrite a .gitignore seedlint did not write
                ignore.write_text("# Automatically created by seedlint.\n*\n")
            tag = self.directory / "CACHEDIR.TAG"
            if not tag.exists():
                tag.write_text(
                    "Signature: 8a477f597d28d172789f06886806bc55\n"
                    "# This file is a cache directory tag created by seedlint.\n"
                )
            for key in self._dirty:
                fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
                with os.fdopen(fd, "w") as handle:
                    json.dump(self._tables[key], handle, separators=(",", ":"))
                os.replace(tmp, folder / f"{key}-{CACHE_FORMAT}.json")
        except OSError as error:  # a read-only tree: the run still succeeds
            print(f"seedlint: warning: cannot write the cache: {error}", file=sys.stderr)


def _finding_to_json(finding: Finding) -> dict[str, Any]:
    data = asdict(finding)
    data["noqa_rows"] = list(finding.noqa_rows)
    return data


def _finding_from_json(data: dict[str, Any]) -> Finding:
    data = dict(data)
    data["noqa_rows"] = tuple(data.get("noqa_rows", ()))
    fix = data.get("fix")
    data["fix"] = Fix(fix["applicability"], fix["message"]) if isinstance(fix, dict) else None
    return Finding(**data)


def digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


# -- running many files ----------------------------------------------------------------------
@dataclass
class Job:
    path: Path
    display: str
    settings: Settings
    raw: bytes
    digest: str = ""


_JOBS: list[Job] = []  # handed to forked workers by inheritance, not by pickling


def _analyze_range(bounds: tuple[int, int]) -> list[list[Finding]]:
    return [findings_of(job.raw, job.display, job.settings) for job in _JOBS[bounds[0] : bounds[1]]]


def analyze_jobs(jobs: Sequence[Job], processes: int) -> list[list[Finding]]:
    """Findings for each job, in a pool of forked processes when that pays."""
    total = sum(len(job.raw) for job in jobs)
    if processes <= 1 or len(jobs) < 8 or total < 2_000_000 or not _can_fork():
        return [findings_of(j.raw, j.display, j.settings) for j in jobs]
    global _JOBS
    _JOBS = list(jobs)
    try:
        chunks = _chunks(jobs, processes * 4)
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(processes, mp_context=context) as pool:
            results: list[list[Finding]] = []
            for part in pool.map(_analyze_range, chunks):
                results.extend(part)
            return results
    finally:
        _JOBS = []


def _chunks(jobs: Sequence[Job], count: int) -> list[tuple[int, int]]:
    return _size_chunks([len(job.raw) for job in jobs], count)


def _can_fork() -> bool:
    return sys.platform != "win32" and "fork" in multiprocessing.get_all_start_methods()


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class FileEntry:
    """A file to check, not read yet."""

    path: Path
    display: str
    settings: Settings


@dataclass
class FileResult:
    findings: list[Finding]
    digest: Optional[str]  # None: not a candidate (or not readable)
    cacheable: bool


_ENTRIES: list[FileEntry] = []  # handed to forked workers by inheritance
_CACHE: Optional[Cache] = None


def _check_entry(entry: FileEntry, cache: Optional[Cache]) -> FileResult:
    raw, problem = read_file(entry.path)
    if raw is None:
        if "RNG000" not in entry.settings.enabled_codes():
            return FileResult([], None, False)
        return FileResult(
            [invalid(entry.display, READ_ERROR, problem or "cannot read")], None, False
        )
    if not ruleset(entry.settings).may_fire(raw, entry.display):
        return FileResult([], None, True)  # cannot have a finding: not parsed, not hashed
    content = digest(raw)
    if cache is not None:
        cached = cache.get(entry.settings, entry.display, content)
        if cached is not None:
            return FileResult(cached, content, True)
    findings = findings_of(raw, entry.display, entry.settings)
    return FileResult(findings, content, not any(f.name == INTERNAL_ERROR for f in findings))


def _check_range(bounds: tuple[int, int]) -> list[FileResult]:
    return [_check_entry(entry, _CACHE) for entry in _ENTRIES[bounds[0] : bounds[1]]]


def check_files(
    entries: Sequence[FileEntry], processes: int, cache: Optional[Cache]
) -> list[Finding]:
    """Findings for every file: each is read, pre-filtered and checked by one worker, in a pool
    of forked processes when the work is large enough to pay for it."""
    findings: list[Finding] = []
    pending: list[FileEntry] = []
    keys: list[Optional[StatKey]] = []
    sizes: list[int] = []
    for entry in entries:
        key = stat_key(entry.path)
        if cache is not None:
            hit = cache.by_stat(entry.settings, entry.display, key)
            if hit is not None:
                findings.extend(hit)
                continue
        pending.append(entry)
        keys.append(key)
        sizes.append(key[1] if key is not None else 0)
    now = time.time_ns()
    results = _run_entries(pending, sizes, processes, cache)
    for entry, key, result in zip(pending, keys, results):
        findings.extend(result.findings)
        if cache is not None and result.cacheable:
            trusted = key if key is not None and now - key[2] > _RACY_NS else None
            cache.put(entry.settings, entry.display, result.digest, result.findings, trusted)
    return findings


def _run_entries(
    entries: list[FileEntry], sizes: list[int], processes: int, cache: Optional[Cache]
) -> list[FileResult]:
    if processes <= 1 or len(entries) < 64 or sum(sizes) < 4_000_000 or not _can_fork():
        return [_check_entry(entry, cache) for entry in entries]
    global _ENTRIES, _CACHE
    _ENTRIES, _CACHE = entries, cache
    if cache is not None:
        for settings in {id(e.settings): e.settings for e in entries}.values():
            cache._table(settings.fingerprint())  # loaded before the fork, read in workers
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(processes, mp_context=context) as pool:
            results: list[FileResult] = []
            for part in pool.map(_check_range, _size_chunks(sizes, processes * 32)):
                results.extend(part)
            return results
    finally:
        _ENTRIES, _CACHE = [], None


def _size_chunks(sizes: Sequence[int], count: int) -> list[tuple[int, int]]:
    """Index ranges of about equal byte size, so that one big file does not stall a worker."""
    target = (sum(sizes) or 1) / count
    bounds: list[tuple[int, int]] = []
    start, size = 0, 0
    for index, item in enumerate(sizes):
        size += item
        if size >= target:
            bounds.append((start, index + 1))
            start, size = index + 1, 0
    if start < len(sizes):
        bounds.append((start, len(sizes)))
    return bounds


def read_candidates(entries: Sequence[FileEntry]) -> tuple[list[Job], list[Finding]]:
    """The files a selected rule may fire on, read (for fixing), and read errors."""
    jobs: list[Job] = []
    errors: list[Finding] = []
    for entry in entries:
        raw, problem = read_file(entry.path)
        if raw is None:
            if "RNG000" in entry.settings.enabled_codes():
                errors.append(invalid(entry.display, READ_ERROR, problem or "cannot read"))
        elif ruleset(entry.settings).may_fire(raw, entry.display):
            jobs.append(Job(entry.path, entry.display, entry.settings, raw))
    return jobs, errors


def check_jobs(jobs: Iterable[Job], processes: int, cache: Optional[Cache]) -> list[Finding]:
    """Findings for every job, through the cache when there is one."""
    findings: list[Finding] = []
    pending: list[Job] = []
    for job in jobs:
        if not ruleset(job.settings).may_fire(job.raw, job.display):
            continue  # cannot have a finding: not parsed, not hashed, not cached
        if cache is not None:
            job.digest = digest(job.raw)
            cached = cache.get(job.settings, job.display, job.digest)
            if cached is not None:
                findings.extend(cached)
                continue
        pending.append(job)
    for job, result in zip(pending, analyze_jobs(pending, processes)):
        findings.extend(result)
        if cache is not None and not any(f.name == INTERNAL_ERROR for f in result):
            cache.put(job.settings, job.display, job.digest, result)
    return findings


def rule_name(code: str) -> str:
    return BY_CODE[code].name
