"""Checking one document: decode -> ``ast.parse`` -> module facts -> selected rules -> noqa.

Every face (the CLI, standard input, the flake8 plugin, the language server) comes here: the
CLI and stdin through :func:`check_bytes`, the flake8 plugin through :func:`check_text` with
flake8's own tree. Any failure becomes the file's RNG000 finding, selected, ignored and
suppressed like any other rule's; the run goes on.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Optional

from seedlint.analysis.facts import ModuleFacts
from seedlint.config import Settings
from seedlint.core import Finding, Fix, Origin
from seedlint.documents import Document, DocumentError, NotebookDocument, Source, read_document
from seedlint.engine.cells import cell_findings, parsable
from seedlint.engine.deep import deeply, in_deep_thread
from seedlint.engine.noqa import FileExemption, directives, file_exemption, line_suppresses
from seedlint.engine.parse import parse_module
from seedlint.engine.selection import INVALID_FILE, Selection, selection
from seedlint.project.configs import ConfigFiles, may_load_config
from seedlint.project.index import active as active_index
from seedlint.rules import BY_CODE, Rule
from seedlint.rules.base import Violation
from seedlint.rules.rng000_invalid_file import InvalidFile
from seedlint.rules.rng100_unused_noqa import UnusedNoqa

UNUSED_NOQA = UnusedNoqa.code

REPORT = "(please report this at the seedlint issue tracker, with the file if you can)"


@dataclass
class Flagged:
    """One rule's violation and the finding made of it (rows of the checked text)."""

    rule: Rule
    violation: Violation
    finding: Finding


@dataclass
class Checked:
    """What checking one document produced: the one result type of the check stage.

    ``findings``: what is reported, rows as the user counts them (a notebook's cells);
    ``flagged``: the fixable side, rows of ``text`` (the fix loop works on them);
    ``cacheable``: False after an internal error (the next run tries again).
    """

    findings: list[Finding]
    text: str = ""
    source: Optional[Source] = None
    facts: Optional[ModuleFacts] = None
    flagged: list[Flagged] = field(default_factory=list)
    cacheable: bool = True
    # The config files the check read (absolute path -> digest, "" for one looked for and not
    # there): the findings hold while they are unchanged.
    configs: dict[str, str] = field(default_factory=dict)

    def release(self) -> list[Finding]:
        """The findings, the facts released (their reference cycles broken)."""
        if self.facts is not None:
            self.facts.release()
            self.facts = None
        return self.findings


def invalid(
    display: str,
    message: str,
    chosen: Selection,
    row: int = 1,
    col: int = 0,
    text: Optional[str] = None,
) -> list[Finding]:
    """The RNG000 finding for ``display``, unless selection, per-file ignores or a noqa
    comment (when the text could be read) silence it."""
    if not chosen.reports(INVALID_FILE, display):
        return []
    source = Source(text, "utf-8") if text is not None else None
    line = source.line(row) if source is not None else None
    finding = InvalidFile.finding(display, message, row, col, line)
    ignore_noqa = chosen.settings.ignore_noqa
    if (
        text is not None
        and source is not None
        and not ignore_noqa
        and _suppressed(finding, text, source)
    ):
        return []
    return [finding]


def _suppressed(finding: Finding, text: str, source: Source) -> bool:
    if file_exemption(text).covers(finding.code):
        return True
    return any(line_suppresses(source.line(r), finding.code) for r in finding.noqa_rows)


def check_text(
    text: str,
    display: str,
    settings: Settings,
    source: Optional[Source] = None,
    tree: Optional[ast.Module] = None,
    suppress: bool = True,
    prefilter: bool = True,
) -> Checked:
    """Check already-decoded Python text (a notebook's program and flake8's text come here).

    ``tree``: the text's module, already parsed (the flake8 plugin passes flake8's), so that it
    is not parsed again. ``suppress=False`` skips ``# noqa`` comments, file exemptions and
    ``per-file-ignores`` (flake8 does its own suppression and selection). ``prefilter=False``
    runs every selected rule, even those the pre-filter rules out (the tests compare both).
    """
    chosen = selection(settings)
    source = source or Source(text, "utf-8")
    problem = None
    try:
        if tree is None:
            tree = parse_module(text, display)  # a large text in pieces: a lower peak
    except SyntaxError as error:
        problem = (f"SyntaxError: {error.msg or 'invalid syntax'}", error.lineno or 1)
        col = max((error.offset or 1) - 1, 0)
    except ValueError as error:  # NUL bytes on some Python versions
        problem, col = (f"SyntaxError: {error}", 1), 0
    except (RecursionError, MemoryError) as error:
        problem = (f"{type(error).__name__}: the file is nested too deeply to parse", 1)
        col = 0
    if problem is not None or tree is None:
        message, row = problem or ("SyntaxError: invalid syntax", 1)
        if not suppress:
            line = source.line(row)
            return Checked([InvalidFile.finding(display, message, row, col, line)], text, source)
        return Checked(invalid(display, message, chosen, row, col, text), text, source)
    # Only a module that names a config loader can read a config (most do not: the value
    # model then asks nothing of configs).
    configs = ConfigFiles(display) if may_load_config(text) else None
    facts = ModuleFacts(tree, chosen.options, text, display, active_index(), configs)
    read = configs.consulted if configs is not None else {}
    checked = Checked([], text, source, facts, configs=read)
    noqa = suppress and not chosen.settings.ignore_noqa  # --ignore-noqa: no comment counts
    exemption = file_exemption(text) if noqa else FileExemption(False, frozenset())
    ignored = chosen.ignored_for(display) if suppress else frozenset()
    used: dict[int, set[str]] = {}  # row -> the codes its noqa comment suppressed
    # Only the rules that pass the pre-filter run: the others cannot fire.
    firing = (
        chosen.firing(text.encode("utf-8", "surrogatepass"), display, notebook=False)
        if prefilter
        else chosen.rules
    )
    for rule in firing:
        if rule.code in ignored or exemption.covers(rule.code):
            continue
        for violation in rule.check(facts):
            if not facts.runs(violation.node):
                continue  # disabled code (`if True: ... else:` with the finding in the else)
            finding = to_finding(rule, violation, display, source)
            if noqa:
                hits = [r for r in finding.noqa_rows if line_suppresses(source.line(r), rule.code)]
                for row in hits:
                    used.setdefault(row, set()).add(rule.code)
                if hits:
                    continue
            finding = with_fix(finding, rule, violation, facts, chosen)
            checked.findings.append(finding)
            checked.flagged.append(Flagged(rule, violation, finding))
    unused = noqa and any(rule.code == UNUSED_NOQA for rule in firing)
    if unused and UNUSED_NOQA not in ignored and not exemption.covers(UNUSED_NOQA):
        checked.findings.extend(unused_noqa(text, display, chosen, used, exemption))
    checked.findings.sort(key=lambda f: f.sort_key)
    return checked


def unused_noqa(
    text: str,
    display: str,
    chosen: Selection,
    used: dict[int, set[str]],
    exemption: FileExemption,
) -> list[Finding]:
    """RNG100 (ruff's RUF100, for seedlint's codes): each ``# noqa`` comment naming ``RNG``
    codes that suppressed nothing on its line (``used``: the codes each row's comment did
    suppress), with each code's reason: unused, non-enabled, duplicated or unknown. A blanket
    ``# noqa`` and other tools' codes are left alone, and so is a comment naming RNG100."""
    found = []
    for directive in directives(text):
        ours = [code for code in directive.codes if code.startswith("RNG")]
        if not ours or UNUSED_NOQA in ours:
            continue
        hits = used.get(directive.row, set())
        reasons: dict[str, list[str]] = {"unused": [], "disabled": [], "dup": [], "unknown": []}
        seen: set[str] = set()
        for code in ours:
            if code in seen:
                reasons["dup"].append(code)
                continue
            seen.add(code)
            known = [rule for rule in BY_CODE if rule.startswith(code)]
            if not known:
                reasons["unknown"].append(code)
            elif any(hit.startswith(code) for hit in hits):
                continue
            elif any(chosen.reports(k, display) and not exemption.covers(k) for k in known):
                reasons["unused"].append(code)
            else:
                reasons["disabled"].append(code)
        if any(reasons.values()):
            found.append(
                UnusedNoqa.finding(
                    display,
                    directive.row,
                    directive.col,
                    directive.end_col,
                    reasons["unused"],
                    reasons["disabled"],
                    reasons["dup"],
                    reasons["unknown"],
                )
            )
    return found


def with_fix(
    finding: Finding, rule: Rule, violation: Violation, facts: ModuleFacts, chosen: Selection
) -> Finding:
    """The finding with the fix it offers, known from the ``ast`` facts alone (no libcst; the
    edits are computed when fixing). ``fixable``: ``--fix`` applies it (an unsafe fix only
    with ``--unsafe-fixes``), which the ``[*]`` marker shows."""
    if rule.code not in chosen.fixable:
        return finding
    info = rule.fix_info(facts, violation, chosen.fix_options)
    if info is None:
        return finding
    fix = Fix(info.applicability, info.title)
    return replace(finding, fix=fix, fixable=fix.safe or chosen.settings.unsafe_fixes)


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
        origin=_origin(violation, display),
    )


def _origin(violation: Violation, display: str) -> Optional[Origin]:
    """The violation's origin, its file named (the finding's own, when in the module)."""
    origin = getattr(violation, "origin", None)
    if not isinstance(origin, Origin):
        return None
    if origin.path:
        return origin
    return replace(origin, path=display.replace(os.sep, "/"))


def check_document(document: Document, settings: Settings) -> Checked:
    """Check a document: a notebook's findings carry their cell and the rows in it, and a cell
    that does not parse is one RNG000 while the other cells are checked (:mod:`.cells`)."""
    if not document.checkable:
        return Checked([], document.text)
    if not isinstance(document, NotebookDocument):
        checked = check_text(document.text, document.display, settings, document.source)
        return checked
    parsed = parsable(document)
    document = parsed.document
    checked = check_text(
        document.text, document.display, settings, document.source, tree=parsed.tree
    )
    located = [document.locate(f) for f in checked.findings]
    located.extend(cell_findings(parsed, selection(settings)))
    checked.findings = sorted(located, key=lambda f: f.sort_key)
    return checked


def check_bytes(raw: bytes, display: str, settings: Settings) -> Checked:
    """The whole pipeline for one file's bytes; never raises."""
    chosen = selection(settings)
    try:
        if not chosen.may_fire(raw, display):
            return Checked([])
        try:
            document = read_document(raw, display)
        except DocumentError as error:
            return Checked(invalid(display, error.message, chosen, error.row, error.col))
        return check_document(document, settings)
    except (RecursionError, MemoryError) as error:  # the analysis of a deeply nested file
        if isinstance(error, RecursionError) and not in_deep_thread():
            return deeply(lambda: check_bytes(raw, display, settings))  # with a larger stack
        message = f"{type(error).__name__}: the file is nested too deeply to check"
        return Checked(invalid(display, message, chosen))
    except Exception as error:  # a bug in seedlint: one finding, and the run goes on
        message = f"internal error: {type(error).__name__}: {error} {REPORT}"
        return Checked(invalid(display, message, chosen), cacheable=False)


def check_named(raw: bytes, display: str, settings: Settings) -> list[Finding]:
    """The RNG000 finding of a file named on the command line that the pre-filter rules out
    (no selected rule can fire on it, so :func:`check_bytes` never parses it): a file the user
    names is worth parsing, to say that it does not parse (or decode). Only RNG000 can come of
    it: the rules still pass the pre-filter first."""
    chosen = selection(settings)
    if not chosen.reports(INVALID_FILE, display):
        return []
    try:
        try:
            document = read_document(raw, display)
        except DocumentError as error:
            return invalid(display, error.message, chosen, error.row, error.col)
        with collector_paused():
            return check_document(document, settings).release()
    except (RecursionError, MemoryError) as error:
        message = f"{type(error).__name__}: the file is nested too deeply to check"
        return invalid(display, message, chosen)


def findings_of(raw: bytes, display: str, settings: Settings) -> Checked:
    """:func:`check_bytes` with the facts released.

    The cyclic garbage collector is paused meanwhile: building a tree allocates millions of
    objects, and each allocation burst would make it rescan everything alive, the tree being
    built included (a third of the whole check's time). The facts are released afterwards,
    which breaks their only reference cycles, so the tree is freed at once all the same.
    """
    with collector_paused():
        checked = check_bytes(raw, display, settings)
        checked.release()
        return checked


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
