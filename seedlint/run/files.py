"""Checking and fixing many files: read, pre-filter, check (or fix) in one pass per file, in the
one process pool, through the cache. Standard input is a file like any other (its bytes given).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from seedlint.config import Settings
from seedlint.core import Finding
from seedlint.documents import DecodeError, Source
from seedlint.engine.check import collector_paused, findings_of, invalid
from seedlint.engine.fix import Fixed, applies, edits_for, fix_bytes, identity
from seedlint.engine.selection import selection
from seedlint.fixes.text import unified_diff
from seedlint.fixes.write import write_fixed
from seedlint.project.index import active
from seedlint.run.cache import _RACY_NS, Cache, StatKey, digest, stat_key
from seedlint.run.pool import pool_map


@dataclass(frozen=True)
class FileTask:
    """A file to check or fix: read from ``path`` unless its bytes are given (stdin)."""

    path: Path
    display: str
    settings: Settings
    raw: Optional[bytes] = None


def read_file(path: Path) -> tuple[Optional[bytes], Optional[str]]:
    try:
        with open(path, "rb") as handle:
            return handle.read(), None
    except IsADirectoryError:
        return None, "cannot read: it is a folder"
    except OSError as error:
        return None, f"cannot read: {error.strerror or error}"


def depends(task: FileTask) -> str:
    """What a file's findings depend on besides its content and settings: for a module the
    project index summarised from its tree (it seeds, builds loaders or is a script), the
    digest of the project's summaries (what its rules may consult); nothing for the others,
    whose rules consult no other module."""
    index = active()
    if index is None:
        return ""
    summary = index.summary(str(task.path))
    return index.digest() if summary is not None and summary.full else ""


def _read(task: FileTask) -> tuple[Optional[bytes], list[Finding]]:
    """The task's bytes, or the RNG000 finding of a file that cannot be read."""
    if task.raw is not None:
        return task.raw, []
    raw, problem = read_file(task.path)
    if raw is None:
        chosen = selection(task.settings)
        return None, invalid(task.display, problem or "cannot read", chosen)
    return raw, []


# -- check -----------------------------------------------------------------------------------
@dataclass
class _Checked:
    findings: list[Finding]
    digest: Optional[str]  # None: not a candidate (or not readable)
    cacheable: bool


def _check_one(task: FileTask, cache: Optional[Cache]) -> _Checked:
    raw, errors = _read(task)
    if raw is None:
        return _Checked(errors, None, False)
    if not selection(task.settings).may_fire(raw, task.display):
        return _Checked([], None, True)  # cannot have a finding: not parsed, not hashed
    content = digest(raw)
    if cache is not None:
        cached = cache.get(task.settings, task.display, content, depends(task))
        if cached is not None:
            return _Checked(cached, content, True)
    checked = findings_of(raw, task.display, task.settings)
    return _Checked(checked.findings, content, checked.cacheable)


_CACHE: list[Optional[Cache]] = [None]  # the cache the pool's workers read (set before forking)


def _check_task(task: FileTask) -> _Checked:
    return _check_one(task, _CACHE[0])


def check_files(tasks: Sequence[FileTask], processes: int, cache: Optional[Cache]) -> list[Finding]:
    """Findings for every file: each is read, pre-filtered and checked by one worker, in the
    pool when the work is large enough to pay for it."""
    findings: list[Finding] = []
    pending: list[FileTask] = []
    keys: list[Optional[StatKey]] = []
    sizes: list[int] = []
    for task in tasks:
        key = stat_key(task.path) if task.raw is None else None
        if cache is not None and key is not None:
            hit = cache.by_stat(task.settings, task.display, key, depends(task))
            if hit is not None:
                findings.extend(hit)
                continue
        pending.append(task)
        keys.append(key)
        sizes.append(len(task.raw) if task.raw is not None else key[1] if key else 0)
    if cache is not None:
        for settings in {id(t.settings): t.settings for t in pending}.values():
            cache.load(settings)  # before the fork: workers read it
    now = time.time_ns()
    _CACHE[0] = cache
    try:
        results = pool_map(_check_task, pending, sizes, processes)
    finally:
        _CACHE[0] = None
    for task, key, result in zip(pending, keys, results):
        findings.extend(result.findings)
        if cache is not None and result.cacheable and task.raw is None:
            trusted = key if key is not None and now - key[2] > _RACY_NS else None
            extra = depends(task)
            cache.put(task.settings, task.display, result.digest, result.findings, trusted, extra)
    return findings


# -- fix -------------------------------------------------------------------------------------
@dataclass
class FixReport:
    """What fixing a set of files did (the CLI reports it)."""

    remaining: list[Finding] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)
    diff: str = ""
    errors: list[str] = field(default_factory=list)  # one line each, "path: what went wrong"
    # The final bytes of every file with a fixable finding left (for the json edits), and of
    # standard input.
    final: dict[str, bytes] = field(default_factory=dict)


@dataclass
class _FileFixed:
    fixed: Fixed
    raw: Optional[bytes]  # the bytes read, when the fix changed them (else not sent back)


def _fix_task(task: FileTask) -> _FileFixed:
    raw, errors = _read(task)
    if raw is None:
        return _FileFixed(Fixed(b"", remaining=errors), None)
    with collector_paused():  # libcst allocates millions of objects: no rescans meanwhile
        result = fix_bytes(raw, task.display, task.settings, task.settings.unsafe_fixes)
    if result.new_raw == raw:
        result.new_raw = b""  # not sent back: the caller knows it is unchanged
        return _FileFixed(result, None)
    return _FileFixed(result, raw)


def fix_files(tasks: Sequence[FileTask], processes: int, write: bool = True) -> FixReport:
    """Fix every file: write it (with ``write``), or else collect the diff."""
    report = FixReport()
    sizes = [len(t.raw) if t.raw is not None else _size(t.path) for t in tasks]
    results = pool_map(_fix_task, tasks, sizes, processes, min_items=8, min_bytes=200_000)
    for task, item in zip(tasks, results):
        result = item.fixed
        report.errors.extend(f"{task.display}: {message}" for message in result.errors)
        if item.raw is None:  # unchanged
            report.remaining.extend(result.remaining)
            if task.raw is not None:
                report.final[task.display] = task.raw
            elif _has_fix(result.remaining, task):
                raw, _ = read_file(task.path)
                if raw is not None:
                    report.final[task.display] = raw
            continue
        if not write:
            report.diff += _diff(task.display, item.raw, result.new_raw)
        elif task.raw is None:
            problem = write_fixed(task.path, item.raw, result.new_raw)
            if problem is not None:
                report.errors.append(f"{task.display}: not fixed: {problem}")
                report.remaining.extend(findings_of(item.raw, task.display, task.settings).findings)
                continue
        report.fixed.extend(result.fixed)
        report.remaining.extend(result.remaining)
        if task.raw is not None or _has_fix(result.remaining, task):
            report.final[task.display] = result.new_raw
    return report


def _has_fix(findings: list[Finding], task: FileTask) -> bool:
    return any(f.fix is not None for f in findings)


def _size(path: Path) -> int:
    key = stat_key(path)
    return key[1] if key is not None else 0


def _diff(display: str, old: bytes, new: bytes) -> str:
    def text_of(raw: bytes) -> str:
        try:
            return Source.decode(raw).text
        except DecodeError:
            return raw.decode("utf-8", errors="replace")

    return unified_diff(text_of(old), text_of(new), display)


# -- json edits ------------------------------------------------------------------------------
def attach_edits(
    findings: list[Finding], files: dict[str, tuple[bytes, Settings]]
) -> list[Finding]:
    """``findings`` with each fix's edits filled in (each fix computed alone, in memory, on the
    bytes in ``files``), for the ``json`` and ``json-lines`` output."""
    wanted: dict[str, list[int]] = {}
    for index, finding in enumerate(findings):
        fix = finding.fix
        if fix is not None and not fix.edits and finding.path in files:
            wanted.setdefault(finding.path, []).append(index)
    result = list(findings)
    for path, indexes in wanted.items():
        raw, settings = files[path]
        try:
            with collector_paused():  # as when fixing: libcst's allocations
                edits = edits_for(raw, path, settings)
        except Exception:  # too deeply nested for libcst, or a bug: no edits shown
            edits = {}
        for index in indexes:
            finding = result[index]
            found = edits.get(identity(finding))
            if found and finding.fix is not None:
                result[index] = replace(finding, fix=replace(finding.fix, edits=found))
    return result


__all__ = ["FileTask", "FixReport", "applies", "attach_edits", "check_files", "fix_files"]
