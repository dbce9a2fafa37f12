"""A notebook's cells that do not parse: each is one RNG000, and the other cells are checked.

Jupyter compiles each cell on its own: a cell with a syntax error (an exercise stub such as
``criterion = # TODO``) fails alone, and the other cells run. :func:`parsable` does the same to
a notebook's program: when the program does not parse, each cell is parsed alone (its IPython
syntax masked, as in the program), and the cells that fail are masked whole in a new program
(their rows kept, none of their code left), which is then parsed. Names that only such a cell
defines are unknown to the analysis, as they are to the kernel. Should the new program still
fail (cells that parse alone but not together), the cell holding the error is left out too,
until it parses or the error lies outside every cell (then the notebook is one RNG000, as a
file is).

Every face comes here: the check (:func:`seedlint.engine.check.check_document`), ``--fix``,
the json output's edits and ``--add-noqa``; a fix never changes a cell left out (see
:meth:`seedlint.documents.NotebookDocument.without`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Optional

from seedlint.core import Finding
from seedlint.documents import NotebookDocument
from seedlint.documents.ipython import cell_lines
from seedlint.documents.notebook import split
from seedlint.engine.noqa import file_exemption, line_suppresses
from seedlint.engine.parse import parse_module
from seedlint.engine.selection import INVALID_FILE, Selection
from seedlint.rules.rng000_invalid_file import InvalidFile


@dataclass(frozen=True)
class CellError:
    """Why a cell does not parse: the message, and the row (in the cell) and column."""

    message: str
    row: int
    col: int


@dataclass
class Parsable:
    """A notebook whose program parses: ``tree`` is its module (None when even leaving cells
    out does not make it parse), ``broken`` the cells left out."""

    document: NotebookDocument
    tree: Optional[ast.Module]
    broken: dict[int, CellError] = field(default_factory=dict)


def syntax_error(error: Exception) -> tuple[str, int, int]:
    """(message, row, column) of a parse error, as RNG000 reports it."""
    if isinstance(error, SyntaxError):
        col = max((error.offset or 1) - 1, 0)
        return f"SyntaxError: {error.msg or 'invalid syntax'}", error.lineno or 1, col
    return f"SyntaxError: {error}", 1, 0  # a ValueError: NUL bytes on some Python versions


def parsable(document: NotebookDocument) -> Parsable:
    """The notebook with the cells that do not parse left out of its program (see above)."""
    # Not the file's own name: CPython reads a syntax error's line from the file it names
    # (the notebook's JSON), which puts the column off.
    display = f"<{document.display}>"
    try:
        return Parsable(document, parse_module(document.text, display))
    except (SyntaxError, ValueError):
        pass
    broken: dict[int, CellError] = {}
    for index, text in document.notebook.cell_programs():
        try:
            parse_module(text, display, hollow=False)
        except (SyntaxError, ValueError) as error:
            message, row, col = syntax_error(error)
            broken[index] = CellError(message, row, col)
    cells = {cell.index: cell for cell in document.notebook.cells}
    for _ in range(len(cells) + 1):
        candidate = document.without(broken) if broken else document
        try:
            return Parsable(candidate, parse_module(candidate.text, display), broken)
        except (SyntaxError, ValueError) as error:
            message, row, col = syntax_error(error)
            rows = split(candidate.text, document.notebook.tag).rows
            cell, in_cell = rows[min(max(row, 1), len(rows) - 1)] if len(rows) > 1 else (0, 0)
            if cell not in cells or cell in broken:
                break  # the error is not a cell's own: the notebook is one RNG000
            broken[cell] = CellError(message, in_cell, col)
    return Parsable(document, None)


def _strip(line: str) -> str:
    return line.rstrip("\r\n")


def cell_findings(parsed: Parsable, chosen: Selection, suppress: bool = True) -> list[Finding]:
    """One RNG000 per cell left out, in the cell's rows, unless selection, per-file ignores
    or a ``# noqa`` on the cell's line (or a file exemption in the notebook) silence it."""
    document = parsed.document
    if not parsed.broken or (suppress and not chosen.reports(INVALID_FILE, document.display)):
        return []
    if suppress and file_exemption(document.text).covers(INVALID_FILE):
        return []
    sources = {cell.index: cell.source for cell in document.notebook.cells}
    found = []
    for index, error in sorted(parsed.broken.items()):
        lines = [_strip(line) for line in cell_lines(sources.get(index, ""))] or [""]
        row = min(max(error.row, 1), len(lines))
        col = error.col if row == error.row else 0
        margin = document.notebook.margins.get(index, "")
        if lines[row - 1].startswith(margin):
            col += len(margin)  # the cell was parsed without the indentation all its lines share
        if suppress and line_suppresses(lines[row - 1], INVALID_FILE):
            continue
        finding = InvalidFile.finding(document.display, error.message, row, col)
        found.append(replace(finding, cell=index))
    return found
