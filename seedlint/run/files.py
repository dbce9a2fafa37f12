"""Checking and fixing many files: read, pre-filter, check (or fix) in one pass per file, in the
one process pool, through the cache. Standard input is a file like any other (its bytes given).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from seedlint.config import Settings
from seedlint.core import Edit, Finding
from seedlint.core.files import NotRegularFile, read_regular
from seedlint.documents import (
    DecodeError,
    DocumentError,
    NotebookDocument,
    Source,
    is_notebook,
    read_document,
)
from seedlint.engine.check import Checked, check_bytes, collector_paused, findings_of, invalid
from seedlint.engine.fix import Fixed, Identity, applies, edits_for, fix_bytes, identity
from seedlint.engine.parse import keep_parses
from seedlint.engine.selection import selection
from seedlint.fixes.text import unified_diff
from seedlint.fixes.write import write_fixed
from seedlint.prefilter.words import (
    WordScan,
    loader_in_code,
    names_project_loader,
    project_loaders_set,
)
from seedlint.project.hints import ClassHint, class_hint
from seedlint.project.index import activated, answers_digest, needs_project, single
from seedlint.project.summary import (
    ModuleSummary,
    light_summary,
    may_define_arguments,
    needs_tree,
    summarize,
)
from seedlint.run.cache import (
    _RACY_NS,
    Cache,
    StatKey,
    digest,
    key_of,
    keys_of,
    new_run,
    stat_key,
)
from seedlint.run.pool import close_kept, pool_map
from seedlint.run.summaries import ProjectSetup


@dataclass(frozen=True)
class FileTask:
    """A file to check or fix: read from ``path`` unless its bytes are given (stdin)."""

    path: Path
    display: str
    settings: Settings
    raw: Optional[bytes] = None


def read_file(path: Path) -> tuple[Optional[bytes], Optional[str]]:
    """The file's bytes (read with two system calls for most files: no file object is made
    for each of a corpus's thousands of files), or why they cannot be read. Only a regular
    file is read: a FIFO, a socket or a device is refused before any byte is read."""
    try:
        return read_regular(path), None
    except IsADirectoryError:
        return None, "cannot read: it is a folder"
    except NotRegularFile as error:
        return None, f"cannot read: {error.strerror}"
    except OSError as error:
        return None, f"cannot read: {error.strerror or error}"


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
    summary: Optional[ModuleSummary] = None  # the module's, for the project index (.py only)
    extra: Optional[str] = None  # a cache hit's: the project answers its findings took
    deferred: Optional[str] = None  # the content hash of a module the index may parse later
    hint: Optional[ClassHint] = None  # and what its bytes say of its classes (if readable)
    named: bool = False  # its code names one of the project's loader names (hidden ones)
    parser: bool = True  # a deferred module's bytes may define argparse arguments
    configs: dict[str, str] = field(default_factory=dict)  # config files read: path -> digest


def _summary(
    task: FileTask,
    raw: bytes,
    checked: Optional[Checked],
    scan: Optional[WordScan] = None,
    force: bool = False,
) -> Optional[ModuleSummary]:
    """The file's summary for the project index, from the check's facts when it parsed the
    file (``None`` for a notebook or a file that is not Python source). ``scan``: the words
    the pre-filter looked up; ``force``: from its tree whatever its words (it may bind or
    call a loader class of the project)."""
    if task.path.suffix != ".py":
        return None
    if not force and not needs_tree(raw, scan):
        return light_summary(raw, scan)
    if checked is not None and checked.facts is not None:
        return summarize(checked.facts)
    return None  # a module the check did not parse: the project parses it if it must


def _check_one(task: FileTask, cache: Optional[Cache], project: bool) -> _Checked:
    """Read, pre-filter and check one file (without the project: see :func:`check_files`);
    with ``project``, its summary too."""
    raw, errors = _read(task)
    if raw is None:
        return _Checked(errors, None, False)
    scan = WordScan(raw)
    chosen = selection(task.settings)
    if not chosen.may_fire(raw, task.display, scan):
        if not project:
            return _Checked([], None, True)  # cannot have a finding: not hashed
        summary = _summary(task, raw, None, scan)
        if summary is None and task.path.suffix == ".py":  # parsed later if an answer needs it
            return _Checked(
                [],
                None,
                True,
                None,
                deferred=digest(raw),
                hint=class_hint(raw),
                parser=may_define_arguments(raw, scan),
            )
        return _Checked([], None, True, summary)
    content = digest(raw)
    # A module that names a loader class of the project, or may bind one (a loader word in
    # its code): summarised from its tree, and checked with the project in view.
    named = project and names_project_loader(raw)
    force = named or (project and not needs_tree(raw, scan) and loader_in_code(raw, chosen.options))
    if cache is not None:
        found = cache.by_content(task.settings, task.display, content, len(raw))
        if found is not None:
            summary = _summary(task, raw, None, force=force) if project and found[1] else None
            read = cache.configs_of(task.display)
            return _Checked(found[0], content, True, summary, found[1], configs=read)
    with collector_paused():
        checked = check_bytes(raw, task.display, task.settings)
        summary = _summary(task, raw, checked, force=force) if project else None
        checked.release()
    return _Checked(
        checked.findings, content, checked.cacheable, summary, named=named, configs=checked.configs
    )


_CACHE: list[Optional[Cache]] = [None]  # the cache the pool's workers read (set before forking)
_PROJECT = [False]  # whether the workers summarise the files for the project index


def _check_task(task: FileTask) -> _Checked:
    return _check_one(task, _CACHE[0], _PROJECT[0])


def _recheck_task(task: FileTask) -> _Checked:
    """A file checked again with the project index active (set before the fork)."""
    raw, errors = _read(task)
    if raw is None:
        return _Checked(errors, None, False)
    checked = findings_of(raw, task.display, task.settings)
    return _Checked(checked.findings, digest(raw), checked.cacheable, configs=checked.configs)


def check_files(
    tasks: Sequence[FileTask],
    processes: int,
    cache: Optional[Cache],
    project: Optional[ProjectSetup] = None,
) -> list[Finding]:
    """Findings for every file: each is read, pre-filtered and checked by one worker, in the
    pool when the work is large enough to pay for it.

    Every file is first checked without the project. A file whose findings may depend on the
    project (its summary says so: :func:`~seedlint.project.index.needs_project`, or it names a
    loader class of the project that no loader word finds: ``run.loader_names``) is then
    looked at again once the project index is built, which happens only when there is such a
    file: its findings stand when the project's answers for it equal its one-module index's,
    and it is checked again with the index otherwise. The cache keys such a file's findings by
    its content and the digest of the project's answers, and every file's by the project's
    loader names that no loader word finds (a new one may change any file's findings).
    """
    hidden: frozenset[str] = frozenset()
    if project is not None and _checks_loaders(tasks):
        names = project.loader_names([str(t.path) for t in tasks if t.raw is None])
        given = [os.path.abspath(t.path) for t in tasks if t.raw is not None and str(t.path) != "-"]
        if given and names.pending():
            # Standard input: its text is nowhere on disk for the pass after the check to
            # find a loader name in, so the project's names are found first (its other files
            # read, as `--fix` of standard input reads them).
            project.complete_loaders(lambda: [], {}, exclude=given[0])
        hidden = names.hidden()
        names.searched |= hidden  # the check pass looks for them
    with project_loaders_set(hidden):
        try:
            return _check_files(tasks, processes, cache, project, hidden)
        finally:
            close_kept()  # the check pass's workers, kept for the index


def _checks_loaders(tasks: Sequence[FileTask]) -> bool:
    """Whether a selected rule checks the project's own loader classes (RNG001, RNG002)."""
    chosen = {id(t.settings): t.settings for t in tasks}.values()
    return any(rule.project_loaders for s in chosen for rule in selection(s).rules)


def _check_files(
    tasks: Sequence[FileTask],
    processes: int,
    cache: Optional[Cache],
    project: Optional[ProjectSetup],
    hidden: frozenset[str],
) -> list[Finding]:
    new_run()  # config files may have changed since this process last looked
    findings: dict[int, list[Finding]] = {}
    configs: dict[int, dict[str, str]] = {}  # the config files each check read
    pending: list[int] = []
    keys: list[Optional[StatKey]] = [None] * len(tasks)
    extras: dict[int, str] = {}  # cached findings that hold for these project answers only
    # The project's loader names are followed (a loader rule is selected: see check_files).
    loaders = project if project is not None and project.has_loader_names() else None
    bound = loaders.loader_names().modules if loaders is not None else {}
    if cache is not None:
        cache.salt = loader_salt(hidden)
    now = time.time_ns()
    for i, task in enumerate(tasks):
        keys[i] = stat_key(task.path) if task.raw is None else None
    where = keys_of([task.display for task in tasks])  # absolute (a file's display: its path)
    record = _run_record(tasks, keys, now, where) if cache is not None else None
    root = ""  # the project's root: it decides what an import reaches
    if record is not None and project is not None:
        root = str(project.root_of([str(t.path) for t in tasks]))
    if record is not None:
        assert cache is not None
        bounds = {task.display: key[1] for task, key in zip(tasks, keys) if key is not None}
        kept = cache.run_findings(record[0], _run_state(record[1], cache.salt, root), bounds)
        if kept is not None:
            return kept  # every file, the settings and the loader names as in the last run
    for i, task in enumerate(tasks):
        key = keys[i]
        if cache is not None and key is not None:
            hit = cache.by_stat(task.settings, task.display, key)
            if hit is not None:
                findings[i] = hit[0]
                if hit[1]:
                    extras[i] = hit[1]
                continue
        pending.append(i)
    if cache is not None:
        for settings in {id(tasks[i].settings): tasks[i].settings for i in pending}.values():
            cache.load(settings)  # before the fork: workers read it
    _CACHE[0], _PROJECT[0] = cache, project is not None
    try:
        sizes = [_size_of(tasks[i], keys[i]) for i in pending]
        # The pool stays for the project index, whose parses on demand its idle workers take.
        checked = [tasks[i] for i in pending]
        results = pool_map(_check_task, checked, sizes, processes, keep=project is not None)
    finally:
        _CACHE[0], _PROJECT[0] = None, False
    trusted = [k if k is not None and now - k[2] > _RACY_NS else None for k in keys]
    known: dict[str, ModuleSummary] = {}
    local: dict[int, ModuleSummary] = {}  # files checked just now whose project may matter
    digests: dict[int, Optional[str]] = {}
    for i, result in zip(pending, results):
        task = tasks[i]
        findings[i] = result.findings
        digests[i] = result.digest
        if result.configs:
            configs[i] = result.configs
        summary = result.summary
        if summary is not None:
            known[where[i]] = summary
            if project is not None and task.raw is None and result.digest is not None:
                project.remember(str(task.path), trusted[i], result.digest, summary)
        elif result.deferred is not None and project is not None and task.raw is None:
            project.defer(str(task.path), trusted[i], result.deferred, result.hint, result.parser)
        if loaders is not None and task.raw is None and (summary is not None or not result.digest):
            # What the module binds: its summary tells, or no rule's words are in it (a file
            # found in the cache by its content keeps what it bound). Most bind nothing, as
            # before: only the others are looked at.
            path = where[i]
            if (summary is not None and summary.full) or path in bound:
                loaders.bound(path, summary)
        if result.extra:
            extras[i] = result.extra
        elif (
            project is not None
            and (needs_project(summary) or result.named)
            and summary is not None
            and summary.full
        ):
            local[i] = summary
    fresh: set[int] = set()  # checked again with the index, whatever its answers
    if loaders is not None and loaders.loader_names().pending():
        # Loader names found just now that no loader word finds: the files naming one.
        at: dict[str, int] = {}

        def absolute() -> list[str]:
            if not at:
                at.update(
                    (os.path.abspath(t.path), i) for i, t in enumerate(tasks) if t.raw is None
                )
            return list(at)

        for path, (content, summary) in loaders.complete_loaders(absolute, known).items():
            known[key_of(path)] = summary
            i = at.get(path, -1)
            if i >= 0 and summary.full:
                local[i] = summary
                digests[i] = content
                if extras.pop(i, None) is not None:
                    fresh.add(i)  # cached findings taken with an index without the name
    if loaders is not None:
        hidden = loaders.loader_names().hidden()
    if cache is not None:
        cache.salt = loader_salt(hidden)
        for i, result in zip(pending, results):
            task = tasks[i]
            if i not in local and i not in extras and task.raw is None and result.cacheable:
                cache.put(
                    task.settings,
                    task.display,
                    result.digest,
                    result.findings,
                    trusted[i],
                    configs=result.configs,
                )
    # Whether the findings depend on no file but the checked ones: no file asked the project,
    # or its index held the checked files only (a run of part of a project may depend on
    # files it does not check: it keeps no record of the whole run).
    whole = True
    if project is not None and (local or extras):
        project.note_stats({where[i]: keys[i] for i, t in enumerate(tasks) if t.raw is None})
        with project_loaders_set(hidden):
            whole = _with_project(
                tasks,
                project,
                processes,
                cache,
                findings,
                known,
                local,
                extras,
                digests,
                trusted,
                where,
                fresh,
                configs,
            )
    if project is not None:
        project.save()
    found = [f for i in range(len(tasks)) for f in findings.get(i, ())]
    if record is not None and cache is not None and whole and all(r.cacheable for r in results):
        read: dict[str, str] = {}
        for consulted in configs.values():
            read.update(consulted)
        for i, task in enumerate(tasks):
            if i not in configs:
                read.update(cache.configs_of(task.display))  # of a cached entry
        cache.keep_run(record[0], _run_state(record[1], cache.salt, root), found, read)
    return found


# A run of many files whose every file has the stat key it had in the last such run (and the
# same settings and project loader names) has its findings: one signed record per set of
# files, so that a warm whole-project run reads one file instead of an entry per file.
_RUN_FILES = 64  # a run naming fewer files (pre-commit, an editor) keeps no record


def _run_record(
    tasks: Sequence[FileTask], keys: list[Optional[StatKey]], now: int, where: list[str]
) -> Optional[tuple[str, str]]:
    """The name of the run's record and the digest of its files' stat keys; None for a run of
    few files, or with standard input, a file that cannot be read or one written too
    recently for its stat key to be trusted."""
    if len(tasks) <= _RUN_FILES:
        return None
    names: list[str] = []
    stats: list[str] = []
    for task, key, path in zip(tasks, keys, where):
        if task.raw is not None or key is None or now - key[2] <= _RACY_NS:
            return None
        names.append(f"{path}\0{task.display}\0{task.settings.fingerprint()}")
        stats.append(f"{key[0]},{key[1]},{key[2]},{key[3]}")
    name = digest("\n".join(names).encode("utf-8", "surrogatepass"))[:16]
    return f"run-{name}.json", digest("\n".join(stats).encode())


def _run_state(stats: str, salt: str, root: str) -> str:
    """What a run record holds for: its files' stat keys, the project's loader names and the
    project's root (a ``pyproject.toml`` added above the files changes what imports reach)."""
    return f"{stats}-{salt}-{digest(root.encode('utf-8', 'surrogatepass'))[:16]}"


def loader_salt(hidden: frozenset[str]) -> str:
    """The cache's salt for the project's hidden loader names ("" for none)."""
    if not hidden:
        return ""
    return digest("\0".join(sorted(hidden)).encode())[:12]


def _with_project(
    tasks: Sequence[FileTask],
    project: ProjectSetup,
    processes: int,
    cache: Optional[Cache],
    findings: dict[int, list[Finding]],
    known: dict[str, ModuleSummary],
    local: dict[int, ModuleSummary],
    extras: dict[int, str],
    digests: dict[int, Optional[str]],
    trusted: list[Optional[StatKey]],
    where: list[str],
    fresh: frozenset[int] | set[int] = frozenset(),
    configs: Optional[dict[int, dict[str, str]]] = None,
) -> bool:
    """The files whose findings may depend on the project, once its index is built: findings
    checked without it stand where the project's answers equal the one-module index's, cached
    ones where the answers' digest is the one they were stored with; the others (and those of
    ``fresh``) are checked again with the index. True when the answers come from the checked
    files alone (the index held no other file). ``where``: each file's absolute path."""
    state = _state(tasks, trusted, project, where) if cache is not None else None
    if not local and cache is not None and state is not None:
        stored = _stored_answers(cache, project, state)
        if stored is not None and all(
            stored.get(os.path.abspath(tasks[i].path)) == extras[i] for i in extras
        ):
            return True  # nothing changed since these answers (of these files) were taken
    asked = [os.path.abspath(tasks[i].path) for i in sorted({*local, *extras})]
    settings = {t.settings.fingerprint(): t.settings for t in tasks}.values()
    targets = frozenset().union(*(selection(s).options.all_dataloader_classes for s in settings))
    index = project.build([str(t.path) for t in tasks], known, asked, targets)
    again: list[int] = []
    answered: dict[int, str] = {}
    for i in sorted({*local, *extras}):
        task = tasks[i]
        answers = index.answers(os.path.abspath(task.path))
        answered[i] = answers_digest(answers)
        if i in fresh:
            again.append(i)
        elif i in extras:
            if extras[i] != answered[i]:
                again.append(i)
        elif answers != single(task.display, local[i]).answers(task.display):
            again.append(i)
    if again:
        with activated(index):
            sizes = [_size_of(tasks[i], stat_key(tasks[i].path)) for i in again]
            rechecked = pool_map(_recheck_task, [tasks[i] for i in again], sizes, processes)
        for i, result in zip(again, rechecked):
            findings[i] = result.findings
            digests[i] = result.digest
            if configs is not None:
                configs[i] = result.configs
    whole = set(index.layout.paths) == set(where)
    if cache is None:
        return whole
    if state is not None and whole:
        _store_answers(cache, project, state, answered, tasks)
    for i, extra in answered.items():
        task = tasks[i]
        if task.raw is not None or (i in extras and extras[i] == extra):
            continue  # standard input, or an entry that holds
        if digests.get(i) is not None:
            read = configs.get(i) if configs is not None else None
            cache.put(task.settings, task.display, digests[i], findings[i], trusted[i], extra, read)
    return whole


# A warm run whose every file is unchanged skips the project index: the answers of the last
# run that built it are kept (signed, in the cache folder) with a digest of the project's
# state then (every file's stat key, the settings and the root); equal state, equal answers.
# Only a run over the whole project records them (a file outside the checked ones may change
# unseen).
def _state(
    tasks: Sequence[FileTask],
    trusted: list[Optional[StatKey]],
    project: ProjectSetup,
    where: list[str],
) -> Optional[str]:
    """The digest of the checked files' stat keys, the settings and the project's root; None
    when a file is standard input or was written too recently for its stat key to be
    trusted."""
    root = str(project.root_of([str(t.path) for t in tasks if t.raw is None]))
    rows: list[str] = [project.settings.fingerprint(), root]
    for task, key, path in zip(tasks, trusted, where):
        if task.raw is not None or key is None:
            return None
        rows.append(f"{path}\0{key}")
    rows[2:] = sorted(rows[2:])
    return digest("\n".join(rows).encode("utf-8", "surrogatepass"))


def _answers_name(project: ProjectSetup) -> str:
    root = str(project.root) if project.root is not None else os.getcwd()
    return f"answers-{digest(root.encode('utf-8', 'surrogatepass'))[:12]}.json"


def _stored_answers(cache: Cache, project: ProjectSetup, state: str) -> Optional[dict[str, str]]:
    body = cache.read_signed(_answers_name(project))
    if body is None:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("state") != state:
        return None
    answers = data.get("answers")
    if not isinstance(answers, dict):
        return None
    return {str(k): str(v) for k, v in answers.items()}


def _store_answers(
    cache: Cache,
    project: ProjectSetup,
    state: str,
    answered: dict[int, str],
    tasks: Sequence[FileTask],
) -> None:
    answers = {os.path.abspath(tasks[i].path): extra for i, extra in answered.items()}
    body = json.dumps({"state": state, "answers": answers}, sort_keys=True).encode()
    cache.write_signed(_answers_name(project), body)


def _size_of(task: FileTask, key: Optional[StatKey]) -> int:
    return len(task.raw) if task.raw is not None else key[1] if key else 0


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
    """Fix every file: write it (with ``write``), or else collect the diff. A file the tasks
    name twice (two links to it in the tree, or a link and the file) is fixed once, under its
    first name; its other names get the findings left in it, and no error: fixing it under
    each name would find it changed on disk by the first fix."""
    unique, aliases = _one_name_each(tasks)
    try:
        report = _fix_files(unique, processes, write)
    finally:
        keep_parses(False)  # the tree the project's index left for the first fix, if unused
    if aliases:
        left: dict[str, list[Finding]] = {}
        for finding in report.remaining:
            left.setdefault(finding.path, []).append(finding)
        for alias, first in aliases:
            report.remaining.extend(replace(f, path=alias.display) for f in left.get(first, ()))
            if first in report.final:
                report.final[alias.display] = report.final[first]
    return report


def _one_name_each(tasks: Sequence[FileTask]) -> tuple[list[FileTask], list[tuple[FileTask, str]]]:
    """The tasks with one name per file on disk, and each other name with its file's first."""
    seen: dict[tuple[int, int], str] = {}
    unique: list[FileTask] = []
    aliases: list[tuple[FileTask, str]] = []
    for task in tasks:
        if task.raw is None:
            try:
                info = os.stat(task.path)
            except (OSError, ValueError):
                info = None
            if info is not None:
                first = seen.setdefault((info.st_dev, info.st_ino), task.display)
                if first != task.display:
                    aliases.append((task, first))
                    continue
        unique.append(task)
    return unique, aliases


def _fix_files(tasks: Sequence[FileTask], processes: int, write: bool) -> FixReport:
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
    if is_notebook(display):
        cells = notebook_diff(display, old, new)
        if cells is not None:
            return cells

    def text_of(raw: bytes) -> str:
        try:
            return Source.decode(raw).text
        except DecodeError:
            return raw.decode("utf-8", errors="replace")

    return unified_diff(text_of(old), text_of(new), display)


def notebook_diff(display: str, old: bytes, new: bytes) -> Optional[str]:
    """A notebook's diff as ruff prints it: one unified diff per changed code cell, headed
    ``--- path:cell N`` (N counting every cell); None when either side is not a notebook."""
    try:
        before, after = read_document(old, display), read_document(new, display)
    except DocumentError:
        return None
    if not isinstance(before, NotebookDocument) or not isinstance(after, NotebookDocument):
        return None
    sources = {cell.index: cell.source for cell in before.notebook.cells}
    parts = [
        unified_diff(sources[cell.index], cell.source, f"{display}:cell {cell.index}")
        for cell in after.notebook.cells
        if cell.index in sources
    ]
    return "".join(parts)


# -- json edits ------------------------------------------------------------------------------
def _edits_task(item: tuple[str, bytes, Settings]) -> dict[Identity, tuple[Edit, ...]]:
    path, raw, settings = item
    try:
        with collector_paused():  # as when fixing: libcst's allocations
            return edits_for(raw, path, settings)
    except Exception:  # too deeply nested for libcst, or a bug: no edits shown
        return {}


def attach_edits(
    findings: list[Finding], files: dict[str, tuple[bytes, Settings]], processes: int = 1
) -> list[Finding]:
    """``findings`` with each fix's edits filled in (each fix computed alone, in memory, on the
    bytes in ``files``), for the ``json`` and ``json-lines`` output: one file per task of the
    pool (libcst takes about 0.1 s a file: the pool pays from two files on)."""
    wanted: dict[str, list[int]] = {}
    for index, finding in enumerate(findings):
        fix = finding.fix
        if fix is not None and not fix.edits and finding.path in files:
            wanted.setdefault(finding.path, []).append(index)
    result = list(findings)
    items = [(path, *files[path]) for path in wanted]
    sizes = [len(item[1]) for item in items]
    computed = pool_map(_edits_task, items, sizes, processes, min_items=2, min_bytes=0)
    for indexes, edits in zip(wanted.values(), computed):
        for index in indexes:
            finding = result[index]
            found = edits.get(identity(finding))
            if found and finding.fix is not None:
                result[index] = replace(finding, fix=replace(finding.fix, edits=found))
    return result


__all__ = ["FileTask", "FixReport", "applies", "attach_edits", "check_files", "fix_files"]
