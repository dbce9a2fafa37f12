"""``--add-noqa``: a ``# noqa: CODE`` comment on the line of every finding (ruff's migration aid).

Existing comments stay: codes are merged into a ``# noqa: CODES`` already on the line (a bare
``# noqa`` already covers everything), other comments are kept and the directive goes after
them. A line whose end lies inside a multi-line string, or that ends with a backslash, cannot
take a comment: the finding's other noqa line (the last line of a multi-line call) is used, or
none. Running it twice changes nothing the second time.

A notebook's directives go on the flagged lines of its cells (:func:`add_noqa_bytes`): the
program of its code cells takes them as a file would, and only the changed cells' ``"source"``
values are written back, as ``--fix`` writes them (the cells' line endings, the JSON's
formatting and everything else kept byte for byte).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from collections.abc import Iterable
from dataclasses import replace

from seedlint.core import Finding
from seedlint.documents import DecodeError, DocumentError, NotebookDocument, read_document
from seedlint.documents.notebook import split
from seedlint.engine.cells import parsable
from seedlint.engine.noqa import LINE_NOQA, line_suppresses

_NEWLINE = re.compile(r"\r\n|\r|\n")


def _closed_rows(text: str) -> set[int]:
    """Rows whose end lies inside a string token or after a line-continuation backslash."""
    closed: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING or token.type == getattr(
                tokenize, "FSTRING_MIDDLE", -1
            ):
                closed.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return closed


def _merge(line: str, codes: set[str]) -> str:
    """``line`` (without its newline) with a noqa directive covering ``codes``."""
    for match in LINE_NOQA.finditer(line):
        if match.group("codes") is None:
            continue  # handled by the caller: a bare noqa covers everything
        have = [c.strip().upper() for c in re.split(r"[\s,]+", match.group("codes")) if c]
        merged = have + sorted(codes - set(have))
        directive = f"# noqa: {', '.join(merged)}"
        return line[: match.start()] + directive + line[match.end() :]
    return f"{line.rstrip()}  # noqa: {', '.join(sorted(codes))}"


def add_noqa(text: str, findings: Iterable[Finding]) -> tuple[str, int]:
    """``text`` with the directives added, and how many lines changed."""
    lines = _NEWLINE.split(text)
    ends = _NEWLINE.findall(text)
    closed = _closed_rows(text)
    wanted: dict[int, set[str]] = {}
    for finding in findings:
        rows = [finding.row, *(r for r in finding.noqa_rows if r != finding.row)]
        for row in rows:
            if 1 <= row <= len(lines) and row not in closed:
                if not line_suppresses(lines[row - 1], finding.code):
                    wanted.setdefault(row, set()).add(finding.code)
                break
    changed = 0
    for row, codes in sorted(wanted.items()):
        line = lines[row - 1].rstrip("\r\n")
        new = _merge(line, codes)
        if new != line:
            lines[row - 1] = new
            changed += 1
    out = "".join(line + end for line, end in zip(lines, [*ends, ""]))
    if changed:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(out)
        except (SyntaxError, ValueError):
            return text, 0  # never leave a file that no longer parses
    return out, changed


def add_noqa_bytes(raw: bytes, display: str, findings: Iterable[Finding]) -> tuple[bytes, int]:
    """The file's bytes with the directives added (its encoding, BOM and newlines kept; a
    notebook's in the cells its findings name), and how many lines changed; ``raw`` and 0 when
    nothing changes or the file cannot be read or written back."""
    try:
        document = read_document(raw, display)
    except (DocumentError, DecodeError):
        return raw, 0
    found = list(findings)
    if isinstance(document, NotebookDocument):
        if document.checkable:
            document = parsable(document).document  # the cells that do not parse: untouched
        found = _in_program(document, found)
    new_text, changed = add_noqa(document.text, found)
    if not changed:
        return raw, 0
    try:
        new_raw = document.to_bytes(new_text)
    except UnicodeEncodeError:
        return raw, 0
    if new_raw is None or new_raw == raw:
        return raw, 0
    return new_raw, changed


def _in_program(document: NotebookDocument, findings: list[Finding]) -> list[Finding]:
    """Notebook findings (a cell and rows in it) with rows of the notebook's program."""
    if not document.checkable:
        return []
    rows: dict[tuple[int, int], int] = {}
    for row, place in enumerate(split(document.program, document.notebook.tag).rows):
        if row and place[0]:
            rows[place] = row  # a cell's boundary line counts as its row 1: the real one wins
    moved = []
    for finding in findings:
        if finding.cell is None or (finding.cell, finding.row) not in rows:
            continue
        noqa_rows = tuple(
            rows[(finding.cell, r)] for r in finding.noqa_rows if (finding.cell, r) in rows
        )
        row = rows[(finding.cell, finding.row)]
        moved.append(replace(finding, row=row, end_row=row, noqa_rows=noqa_rows, cell=None))
    return moved
