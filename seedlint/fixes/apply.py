"""The fixer: rounds of fixes until nothing changes, the parse check, writing, diffs, edits.

One round: check the text (``ast``), ask each applicable finding's rule for its change
(:meth:`seedlint.rules.base.Rule.fix`, libcst), keep the changes that do not touch the same code
(the others are computed again next round, on the new text, which is how two fixes of one call
combine), apply them in one pass, and check that the result still compiles. Rounds repeat until a
round changes nothing, at most :data:`MAX_ROUNDS` times. A round whose result does not compile
leaves the file as it was and names the rules whose fixes broke it.

libcst is imported only here and in the codemods, never on the plain ``check`` path.
"""

from __future__ import annotations

import argparse
import ast
import multiprocessing
import sys
import warnings
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Optional

from seedlint.config import Settings
from seedlint.diagnostics import Edit, Finding
from seedlint.fixes.text import LineMap, minimal_edits, unified_diff
from seedlint.fixes.write import write_fixed
from seedlint.rules.base import Rule, Violation
from seedlint.runner import Analysis, Job, analyze_jobs, analyze_text, findings_of, ruleset
from seedlint.source import DecodeError, Source

if TYPE_CHECKING:
    from seedlint.fixes.context import Change

MAX_ROUNDS = 10


@dataclass
class FixOutcome:
    """What fixing a set of files did (the CLI reports it)."""

    remaining: list[Finding] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)
    diff: str = ""
    new_raw: bytes = b""  # stdin: the fixed bytes
    errors: list[str] = field(default_factory=list)  # one line each, "path: what went wrong"
    # The final bytes and settings of every file fixed or checked (for json fix edits).
    sources: dict[str, tuple[bytes, Settings]] = field(default_factory=dict)


@dataclass
class TextFixResult:
    new_text: str
    fixed: list[Finding]  # rows as in the text that was given
    remaining: list[Finding]  # rows as in ``new_text``
    error: Optional[str] = None  # set: nothing was changed (``new_text`` is the text given)
    warnings: list[str] = field(default_factory=list)


def applies(finding: Finding, unsafe: bool) -> bool:
    """Whether ``--fix`` applies this finding's fix (with ``--unsafe-fixes`` when ``unsafe``)."""
    fix = finding.fix
    return fix is not None and (fix.applicability == "safe" or unsafe)


# -- one text --------------------------------------------------------------------------------
def fix_text(text: str, display: str, settings: Settings, unsafe: bool) -> TextFixResult:
    """Fix decoded Python text in memory (files, stdin and notebooks all come here)."""
    analysis = analyze_text(text, display, settings)
    original = analysis.findings
    current = text
    fixed: list[Finding] = []
    maps: list[LineMap] = []
    warnings: list[str] = []
    for _ in range(MAX_ROUNDS):
        candidates = [item for item in analysis.violations if applies(item[2], unsafe)]
        if not candidates:
            break
        new_text, applied, error = _round(current, display, analysis, candidates, settings)
        if error is not None:
            return TextFixResult(text, [], original, error)
        if new_text == current:
            break
        fixed.extend(_back(finding, maps) for finding in applied)
        maps.append(LineMap(current, new_text))
        current = new_text
        analysis = analyze_text(current, display, settings)
    else:
        left = sorted({f.code for _, _, f in analysis.violations if applies(f, unsafe)})
        if left:
            warnings.append(
                f"fixes did not converge after {MAX_ROUNDS} rounds (still fixable: "
                f"{', '.join(left)}); please report this at the seedlint issue tracker"
            )
    return TextFixResult(current, fixed, analysis.findings, None, warnings)


def _back(finding: Finding, maps: list[LineMap]) -> Finding:
    """A finding of a later round with its rows in the text the fixer started from."""
    row, end_row = finding.row, finding.end_row
    for line_map in reversed(maps):
        row, end_row = line_map.old_row(row), line_map.old_row(end_row)
    return replace(finding, row=row, end_row=max(end_row, row))


def _round(
    text: str,
    display: str,
    analysis: Analysis,
    candidates: Sequence[tuple[Rule, Violation, Finding]],
    settings: Settings,
) -> tuple[str, list[Finding], Optional[str]]:
    """One round over ``text``: (new text, the findings fixed, an error)."""
    import libcst as cst

    from seedlint.fixes.context import FixContext
    from seedlint.fixes.transform import apply_changes, conflicts

    assert analysis.facts is not None and analysis.source is not None
    try:
        ctx = FixContext(text, analysis.source, analysis.facts, settings)
    except cst.ParserSyntaxError as error:
        return text, [], f"cannot fix: libcst cannot parse the file ({error.message})"
    if ctx.module.code != text:  # libcst would rewrite more than the fix (a form feed, say)
        return text, [], "cannot fix: libcst does not reproduce this file exactly; left unchanged"
    accepted: list[Change] = []
    applied: list[tuple[Rule, Finding]] = []
    for rule, violation, finding in sorted(candidates, key=lambda item: item[2].sort_key):
        try:
            change = rule.fix(ctx, violation)
        except Exception as error:  # a bug in a codemod: leave the file alone
            return (
                text,
                [],
                (
                    f"the {rule.code} fix failed ({type(error).__name__}: {error}); the file was "
                    "left unchanged; please report this at the seedlint issue tracker"
                ),
            )
        if change is None or change.empty or conflicts(change, accepted, ctx.positions):
            continue
        accepted.append(change)
        applied.append((rule, finding))
    if not accepted:
        return text, [], None
    new_text = apply_changes(ctx.module, accepted, ctx.positions)
    strict = _compiles(text, display)
    if not _valid(new_text, display, strict):
        broken = sorted(
            {
                rule.code
                for (rule, _), change in zip(applied, accepted)
                if not _valid(apply_changes(ctx.module, [change], ctx.positions), display, strict)
            }
            or {rule.code for rule, _ in applied}
        )
        return (
            text,
            [],
            (
                f"the fix for {', '.join(broken)} produced code that does not compile; the file "
                "was left unchanged; please report this at the seedlint issue tracker"
            ),
        )
    return new_text, [finding for _, finding in applied], None


def _compiles(text: str, display: str) -> bool:
    try:
        with warnings.catch_warnings():  # the user's `x is 1` is not ours to warn about
            warnings.simplefilter("ignore")
            compile(text, display, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _valid(text: str, display: str, strict: bool) -> bool:
    """The fixed text compiles (or, when the original did not, at least parses)."""
    if strict:
        return _compiles(text, display)
    try:
        ast.parse(text, filename=display)
    except (SyntaxError, ValueError):
        return False
    return True


# -- files -----------------------------------------------------------------------------------
@dataclass
class _FileResult:
    new_raw: bytes
    fixed: list[Finding]
    remaining: list[Finding]
    error: Optional[str] = None
    warnings: list[str] = field(default_factory=list)


def fix_raw(raw: bytes, display: str, settings: Settings, unsafe: bool) -> _FileResult:
    """Fix one file's bytes in memory; never raises: a file the fixer fails on is left as it
    is, with one error line for it, and the other files are still fixed."""
    try:
        return _fix_raw(raw, display, settings, unsafe)
    except (RecursionError, MemoryError) as error:
        message = (
            f"cannot fix: the file is nested too deeply ({type(error).__name__}); "
            "it was left unchanged"
        )
    except Exception as error:  # a bug in the fixer
        message = (
            f"the fixer failed ({type(error).__name__}: {error}); the file was left unchanged; "
            "please report this at the seedlint issue tracker"
        )
    return _FileResult(raw, [], findings_of(raw, display, settings), message)


def _fix_raw(raw: bytes, display: str, settings: Settings, unsafe: bool) -> _FileResult:
    """Fix one file's bytes in memory; the encoding, BOM and newlines stay the file's."""
    if display.endswith(".ipynb"):
        try:
            from seedlint.notebook import fix_notebook
        except ImportError:
            return _FileResult(raw, [], findings_of(raw, display, settings))
        new_raw, fixed, remaining = fix_notebook(raw, display, settings, unsafe)
        return _FileResult(new_raw, fixed, remaining)
    try:
        source = Source.decode(raw)
    except DecodeError:
        return _FileResult(raw, [], findings_of(raw, display, settings))
    result = fix_text(source.text, display, settings, unsafe)
    if result.error is not None or result.new_text == source.text:
        return _FileResult(raw, [], result.remaining, result.error, result.warnings)
    try:
        new_raw = source.encode(result.new_text)
    except UnicodeEncodeError as error:
        remaining = analyze_text(source.text, display, settings, source).findings
        return _FileResult(raw, [], remaining, f"cannot encode the fixed file: {error}")
    return _FileResult(new_raw, result.fixed, result.remaining, None, result.warnings)


def fix_bytes(raw: bytes, display: str, settings: Settings, unsafe: bool) -> FixOutcome:
    """Fix standard input: the fixed bytes (``raw`` itself when nothing changed)."""
    result = fix_raw(raw, display, settings, unsafe)
    outcome = FixOutcome(result.remaining, result.fixed, new_raw=result.new_raw)
    outcome.errors.extend(f"{display}: {message}" for message in _messages(result))
    outcome.sources[display] = (result.new_raw, settings)
    return outcome


def _messages(result: _FileResult) -> list[str]:
    return ([result.error] if result.error else []) + result.warnings


_PENDING: list[Job] = []  # handed to forked workers by inheritance, not by pickling


def _fix_index(index: int) -> _FileResult:
    job = _PENDING[index]
    return fix_raw(job.raw, job.display, job.settings, job.settings.unsafe_fixes)


def fix_jobs(jobs: Sequence[Job], args: argparse.Namespace, processes: int) -> FixOutcome:
    """Fix every job's file: write it (or, with ``--diff``, print what would change)."""
    outcome = FixOutcome()
    checkable = [job for job in jobs if ruleset(job.settings).may_fire(job.raw, job.display)]
    pending: list[Job] = []
    for job, findings in zip(checkable, analyze_jobs(checkable, processes)):
        if any(applies(f, job.settings.unsafe_fixes) for f in findings):
            pending.append(job)
        else:
            outcome.remaining.extend(findings)
            outcome.sources[job.display] = (job.raw, job.settings)
    for job, result in zip(pending, _fix_pending(pending, processes)):
        outcome.errors.extend(f"{job.display}: {message}" for message in _messages(result))
        if result.new_raw == job.raw:
            outcome.remaining.extend(result.remaining)
            outcome.sources[job.display] = (job.raw, job.settings)
            continue
        if args.diff:
            outcome.diff += _diff(job, result.new_raw)
            outcome.fixed.extend(result.fixed)
            outcome.remaining.extend(result.remaining)
            outcome.sources[job.display] = (result.new_raw, job.settings)
            continue
        problem = write_fixed(job.path, job.raw, result.new_raw)
        if problem is not None:
            outcome.errors.append(f"{job.display}: not fixed: {problem}")
            outcome.remaining.extend(findings_of(job.raw, job.display, job.settings))
            outcome.sources[job.display] = (job.raw, job.settings)
            continue
        outcome.fixed.extend(result.fixed)
        outcome.remaining.extend(result.remaining)
        outcome.sources[job.display] = (result.new_raw, job.settings)
    return outcome


def _fix_pending(pending: Sequence[Job], processes: int) -> list[_FileResult]:
    if processes <= 1 or len(pending) < 4 or not _can_fork():
        return [fix_raw(j.raw, j.display, j.settings, j.settings.unsafe_fixes) for j in pending]
    global _PENDING
    _PENDING = list(pending)
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(min(processes, len(pending)), mp_context=context) as pool:
            return list(pool.map(_fix_index, range(len(pending)), chunksize=1))
    finally:
        _PENDING = []


def _can_fork() -> bool:
    return sys.platform != "win32" and "fork" in multiprocessing.get_all_start_methods()


def _diff(job: Job, new_raw: bytes) -> str:
    def text_of(raw: bytes) -> str:
        try:
            return Source.decode(raw).text
        except DecodeError:
            return raw.decode("utf-8", errors="replace")

    return unified_diff(text_of(job.raw), text_of(new_raw), job.display)


# -- edits for the json output ---------------------------------------------------------------
def attach_edits(
    findings: list[Finding], sources: dict[str, tuple[bytes, Settings]]
) -> list[Finding]:
    """``findings`` with each fix's edits filled in (each fix computed alone, in memory, on the
    file as given in ``sources``), for the ``json`` and ``json-lines`` output."""
    wanted: dict[str, list[int]] = {}
    for index, finding in enumerate(findings):
        fix = finding.fix
        # Notebook findings count rows in their cell: their edits are not filled here.
        if fix is not None and not fix.edits and finding.cell is None and finding.path in sources:
            wanted.setdefault(finding.path, []).append(index)
    result = list(findings)
    for path, indexes in wanted.items():
        raw, settings = sources[path]
        try:
            edits = _edits_for_file(raw, path, settings)
        except Exception:  # too deeply nested for libcst, or a bug: no edits shown
            edits = {}
        for index in indexes:
            finding = result[index]
            found = edits.get(_identity(finding))
            if found and finding.fix is not None:
                result[index] = replace(finding, fix=replace(finding.fix, edits=found))
    return result


def _identity(finding: Finding) -> tuple[str, int, int, int, int]:
    return (finding.code, finding.row, finding.col, finding.end_row, finding.end_col)


def _edits_for_file(
    raw: bytes, display: str, settings: Settings
) -> dict[tuple[str, int, int, int, int], tuple[Edit, ...]]:
    import libcst as cst

    from seedlint.fixes.context import FixContext
    from seedlint.fixes.transform import apply_changes

    try:
        source = Source.decode(raw)
    except DecodeError:
        return {}
    analysis = analyze_text(source.text, display, settings, source)
    if analysis.facts is None:
        return {}
    try:
        ctx = FixContext(source.text, source, analysis.facts, settings)
    except cst.ParserSyntaxError:
        return {}
    found: dict[tuple[str, int, int, int, int], tuple[Edit, ...]] = {}
    for rule, violation, finding in analysis.violations:
        if finding.fix is None:
            continue
        try:
            change = rule.fix(ctx, violation)
            if change is None or change.empty:
                continue
            new_text = apply_changes(ctx.module, [change], ctx.positions)
        except Exception:  # a broken codemod: no edits shown, and --fix reports it
            continue
        found[_identity(finding)] = minimal_edits(source.text, new_text)
    return found
