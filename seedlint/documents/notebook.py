"""Jupyter notebooks: the code cells checked (and fixed) as one program, in order.

The program is every code cell's source, each after a boundary comment line of its own
(``# seedlint-cell-boundary N``, N the 1-based index of the cell among *all* cells, markdown
included). Findings are mapped back to ``cell N`` and a row counted from the cell's first line.

IPython syntax that is not Python is masked line by line before parsing, where IPython's
input transformer sees it (:mod:`seedlint.documents.ipython`: a line magic, shell escape, help
or auto-call at the start of a logical line, with its backslash continuations; ``x = !cmd`` /
``x = %magic``; help at the end, ``obj?``), and whole cells whose cell magic does not run Python
(``%%bash``, ``%%writefile``). A masked line becomes ``pass`` at the same indentation (so a block
that holds only a magic still parses) followed by a numbered comment (``pass  # seedlint-magic
3``; a continuation line becomes the comment alone), and no line moves: rows stay the cell's
rows, and columns on every other line are untouched. A cell whose lines all share an indentation
is read without it, as IPython reads it (:attr:`Notebook.margins`; columns are given back in
:func:`to_cell`). A cell that does not parse is masked whole (``Notebook.program(broken)``),
which keeps its rows and leaves none of its code to check or to fix.

``--fix`` fixes the program with the fixers' ``fix_text``, splits the result back at the boundary
comments (a line a fix inserts belongs to the cell where it appears), restores the masked lines,
and splices only the changed cells' ``"source"`` values into the file's text: metadata, outputs,
indentation, key order and the trailing newline stay byte-identical. A notebook with nothing to
fix is returned unchanged.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from functools import cached_property
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any, Optional

from seedlint.core import Finding
from seedlint.core.findings import Problem
from seedlint.documents.errors import DocumentError
from seedlint.documents.ipython import Span, syntax

BOUNDARY = "# seedlint-cell-boundary"
_MASK = "# seedlint-magic"


def _boundary(tag: str) -> str:
    """The boundary comment; ``tag`` (a digest of the notebook's own text) makes it a line no
    user text can hold: a cell cannot contain a digest of the text that contains it."""
    return f"{BOUNDARY}-{tag}" if tag else BOUNDARY


def _mask(tag: str) -> str:
    return f"{_MASK}-{tag}" if tag else _MASK


def _boundary_line(tag: str) -> re.Pattern[str]:
    return re.compile(re.escape(_boundary(tag)) + r" (\d+)")


def _mask_line(tag: str) -> re.Pattern[str]:
    return re.compile(r"([ \t]*)(?:pass  )?" + re.escape(_mask(tag)) + r" (\d+)")


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_WS = re.compile(r"[ \t\n\r]*")
# Cell magics whose body is Python that runs in the kernel: only their first line is masked.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
PYTHON_LANGUAGES = frozenset({"python", "python3", "ipython", "ipython3"})


def _lines(text: str) -> list[str]:
    """Lines with their endings, split on the newlines Python itself knows."""
    return _LINE.findall(text)


def _strip_newline(line: str) -> str:
    return line.rstrip("\r\n")


# -- masking IPython syntax ------------------------------------------------------------------
def mask_cell(source: str, masks: list[str], tag: str = "", whole: bool = False) -> str:
    """``source`` with IPython-only lines masked (every line with ``whole``: a cell that does
    not parse); their text is appended to ``masks``. Which lines are IPython syntax is
    :func:`seedlint.documents.ipython.syntax`'s answer."""
    lines = _lines(source)
    if not lines:
        return source
    heads: set[int] = set()  # a masked line that becomes `pass`
    continuations: set[int] = set()  # the lines it continues to: comments
    if whole:
        heads.update(range(len(lines)))
    else:
        found = syntax(source)
        spans = found.spans
        if found.magic is not None:
            heads.add(found.magic_line)
            if found.magic not in PYTHON_CELL_MAGICS:
                whole = True  # not Python (`%%bash`): every line
                heads.update(range(found.magic_line, len(lines)))
            else:  # the magic runs its body as a cell
                after = found.magic_line + 1
                body = syntax("".join(lines[after:]))
                spans = [Span(s.first + after, s.last + after) for s in body.spans]
        for span in spans:
            heads.add(span.first)
            continuations.update(range(span.first + 1, span.last + 1))
        continuations -= heads
    if not heads:
        return source
    out = []
    for index, line in enumerate(lines):
        if index in heads or index in continuations:
            body_text = _strip_newline(line)
            indent = "" if whole else body_text[: len(body_text) - len(body_text.lstrip())]
            mask = _mask(tag) if index in continuations else f"pass  {_mask(tag)}"
            out.append(f"{indent}{mask} {len(masks)}{line[len(body_text) :]}")
            masks.append(body_text)
        else:
            out.append(line)
    return "".join(out)


def unmask(text: str, masks: list[str], tag: str = "") -> str:
    """Put the masked lines of ``text`` back."""
    if _mask(tag) not in text:
        return text
    mask_line = _mask_line(tag)
    out = []
    for line in _lines(text):
        body = _strip_newline(line)
        match = mask_line.fullmatch(body)
        if match is not None and int(match.group(2)) < len(masks):
            out.append(masks[int(match.group(2))] + line[len(body) :])
        else:
            out.append(line)
    return "".join(out)


# -- reading the notebook --------------------------------------------------------------------
@dataclass
class Cell:
    index: int  # 1-based, counting every cell
    source: str  # the source as the notebook has it
    is_list: bool  # a list of lines (nbformat's way) rather than one string


@dataclass
class Notebook:
    text: str  # the file's text (without a BOM)
    bom: bool
    cells: list[Cell]  # the code cells
    python: bool = True
    masks: list[str] = field(default_factory=list)
    broken: frozenset[int] = frozenset()  # cells left out of the program: they do not parse
    margins: dict[int, str] = field(default_factory=dict)  # indentation IPython takes off

    @cached_property
    def tag(self) -> str:
        """What makes this notebook's marker comments its own (see :func:`_boundary`)."""
        return hashlib.blake2b(
            self.text.encode("utf-8", "surrogatepass"), digest_size=6
        ).hexdigest()

    def program(self, broken: Collection[int] = ()) -> str:
        """The code cells as one program, each after its boundary line, magics masked; the
        cells in ``broken`` (they do not parse) masked whole, so that the program holds none
        of their code and a fix never changes them."""
        self.masks = []
        self.broken = frozenset(broken)
        self.margins = {}
        parts = []
        for cell in self.cells:
            parts.append(f"{_boundary(self.tag)} {cell.index}\n")
            source = self._dedented(cell)
            masked = mask_cell(source, self.masks, self.tag, whole=cell.index in broken)
            if masked and not masked.endswith(("\n", "\r")):
                masked += "\n"
            parts.append(masked)
        return "".join(parts)

    def _dedented(self, cell: Cell) -> str:
        """The cell's source without the indentation all its lines share (IPython takes it
        off before running the cell); the margin is kept in :attr:`margins`."""
        margin = _margin(cell.source)
        if not margin:
            return cell.source
        self.margins[cell.index] = margin
        return dedent_lines(cell.source, margin)

    def cell_programs(self) -> list[tuple[int, str]]:
        """Each code cell alone, its IPython syntax masked: what Jupyter compiles for it."""
        return [
            (cell.index, mask_cell(dedent_lines(cell.source, _margin(cell.source)), [], self.tag))
            for cell in self.cells
        ]


def _margin(source: str) -> str:
    """The indentation that every line of ``source`` with text on it starts with."""
    margin: Optional[str] = None
    for line in _lines(source):
        body = _strip_newline(line)
        if not body.strip():
            continue
        indent = body[: len(body) - len(body.lstrip(" \t"))]
        if margin is None:
            margin = indent
        else:
            common = 0
            while common < min(len(margin), len(indent)) and margin[common] == indent[common]:
                common += 1
            margin = margin[:common]
        if not margin:
            return ""
    return margin or ""


def dedent_lines(source: str, margin: str) -> str:
    """``source`` with ``margin`` taken off each line (a blank line loses its spaces)."""
    if not margin:
        return source
    out = []
    for line in _lines(source):
        body = _strip_newline(line)
        if body.startswith(margin):
            out.append(line[len(margin) :])
        elif not body.strip():
            out.append(line[len(body) :])
        else:
            out.append(line)
    return "".join(out)


def indent_lines(source: str, margin: str) -> str:
    """``source`` with ``margin`` put back before each line with text on it."""
    if not margin:
        return source
    return "".join(margin + line if line.strip() else line for line in _lines(source))


def load(raw: bytes) -> Notebook:
    """The notebook's code cells; DocumentError when the bytes are not a notebook."""
    bom = raw.startswith(codecs.BOM_UTF8)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DocumentError(Problem.READ, f"cannot decode as utf-8: {error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise DocumentError(
            Problem.SYNTAX, f"invalid notebook JSON: {error.msg}", error.lineno, error.colno - 1
        ) from None
    except RecursionError:
        raise DocumentError(Problem.SYNTAX, "invalid notebook JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise DocumentError(Problem.SYNTAX, "not a notebook: the JSON is not an object")
    raw_cells = data.get("cells")
    if raw_cells is None and "worksheets" in data:
        raise DocumentError(Problem.SYNTAX, "not supported: notebook format 3 (nbformat < 4)")
    if not isinstance(raw_cells, list):
        raise DocumentError(Problem.SYNTAX, "not a notebook: no `cells` list")
    cells = []
    for index, cell in enumerate(raw_cells, 1):
        if not isinstance(cell, dict):
            raise DocumentError(Problem.SYNTAX, f"not a notebook: cell {index} is not an object")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            cells.append(Cell(index, "".join(source), True))
        elif isinstance(source, str):
            cells.append(Cell(index, source, False))
        else:
            message = f"not a notebook: the source of cell {index} is not text"
            raise DocumentError(Problem.SYNTAX, message)
    return Notebook(text, bom, cells, _is_python(data.get("metadata")))


def _is_python(metadata: Any) -> bool:
    if not isinstance(metadata, dict):
        return True
    for key, name in (("language_info", "name"), ("kernelspec", "language")):
        table = metadata.get(key)
        if isinstance(table, dict) and isinstance(table.get(name), str):
            return table[name].lower() in PYTHON_LANGUAGES
    return True


# -- mapping program rows to cells -----------------------------------------------------------
@dataclass
class Split:
    """A program cut at its boundary lines."""

    order: list[int]  # cell indexes, in program order
    texts: dict[int, str]  # cell index -> the cell's program text
    rows: list[tuple[int, int]]  # program row (1-based; [0] unused) -> (cell, row in cell)


def split(program: str, tag: str = "") -> Split:
    order: list[int] = []
    parts: dict[int, list[str]] = {}
    rows: list[tuple[int, int]] = [(0, 0)]
    before: list[str] = []  # lines a fix put above the first boundary
    boundary_line = _boundary_line(tag)
    current: Optional[int] = None
    for line in _lines(program):
        match = boundary_line.fullmatch(_strip_newline(line))
        if match is not None:
            current = int(match.group(1))
            order.append(current)
            parts[current] = []
            if before:
                parts[current].extend(before)
                rows[1 : 1 + len(before)] = [(current, n) for n in range(1, len(before) + 1)]
                before = []
            rows.append((current, len(parts[current]) + 1))
            continue
        if current is None:
            before.append(line)
            rows.append((0, len(before)))
            continue
        parts[current].append(line)
        rows.append((current, len(parts[current])))
    return Split(order, {cell: "".join(lines) for cell, lines in parts.items()}, rows)


def to_cell(
    finding: Finding, rows: list[tuple[int, int]], margins: Optional[dict[int, str]] = None
) -> Finding:
    """A program finding as a notebook finding: ``cell`` set, rows counted in the cell, and
    columns counted in the cell's own lines (``margins``: the indentation taken off each
    cell's lines in the program)."""
    last = len(rows) - 1
    if last < 1:
        return replace(finding, cell=None)
    cell, row = rows[min(max(finding.row, 1), last)]
    end_cell, end_row = rows[min(max(finding.end_row, 1), last)]
    shift = len((margins or {}).get(cell, ""))
    col, end_col = finding.col + shift, finding.end_col + shift
    if end_cell != cell:
        end_row, end_col = row, col
    noqa_rows = tuple(
        rows[r][1] for r in finding.noqa_rows if 1 <= r <= last and rows[r][0] == cell
    )
    return replace(
        finding,
        cell=cell or None,
        row=row,
        col=col,
        end_row=end_row,
        end_col=end_col,
        noqa_rows=noqa_rows,
        # The fix's kind and message hold; its edits are in program rows: dropped.
        fix=replace(finding.fix, edits=()) if finding.fix is not None else None,
    )


# -- writing the program back ---------------------------------------------------------------
def render_program(notebook: Notebook, program: str, new_program: str) -> Optional[bytes]:
    """The notebook's bytes with its code cells replaced by those of ``new_program`` (a changed
    version of ``program``), or None when the change cannot be written back (a boundary line was
    moved or lost). Only the ``"source"`` values of changed cells are rewritten; every other
    byte of the file stays as it was."""
    new_split = split(new_program, notebook.tag)
    if new_split.order != [cell.index for cell in notebook.cells]:
        return None  # write nothing rather than misplace code
    sources = _after_magics(
        notebook.cells,
        [
            indent_lines(
                unmask(new_split.texts.get(cell.index, ""), notebook.masks, notebook.tag),
                notebook.margins.get(cell.index, ""),
            )
            for cell in notebook.cells
        ],
        notebook.broken,
    )
    if sources is None:
        return None
    changes: dict[int, tuple[str, bool]] = {}
    for cell, new_source in zip(notebook.cells, sources):
        # The cell ends as it did (nbformat's cells end without a newline; a fix may have
        # added a blank line after an import at the end of the program's cell).
        core = cell.source.rstrip("\r\n")
        new_source = new_source.rstrip("\r\n") + cell.source[len(core) :]
        if "\r\n" in cell.source and "\n" not in cell.source.replace("\r\n", ""):
            new_source = _LONE_LF.sub("\r\n", new_source)  # a CRLF cell stays CRLF
        if new_source != cell.source:
            changes[cell.index] = (new_source, cell.is_list)
    spans = source_spans(notebook.text)
    changes = {index: change for index, change in changes.items() if index in spans}
    if not changes:
        return None
    new_text = splice_sources(notebook.text, changes, spans)
    new_raw = new_text.encode("utf-8")
    if notebook.bom:
        new_raw = codecs.BOM_UTF8 + new_raw
    return new_raw


_LONE_LF = re.compile(r"(?<!\r)\n")


def _cell_magic(source: str) -> tuple[Optional[str], int]:
    """The name of the cell's cell magic (None when it has none) and the line it is on, as
    IPython reads them (after the cell's leading blank lines)."""
    found = syntax(source)
    return found.magic, found.magic_line


def _after_magics(
    cells: list[Cell], sources: list[str], broken: Collection[int] = ()
) -> Optional[list[str]]:
    """The fixed sources with a cell magic back on its cell's first line: IPython refuses a
    cell whose ``%%capture`` is not its first line. A cell that is not Python (``%%bash``) or
    does not parse (``broken``) keeps its source exactly: lines a fix put above it move to the
    top of the next cell, after its magic; None when there is no such cell, or when a fix
    changed such a cell otherwise (the fix cannot be written back)."""
    out = list(sources)
    carried: list[str] = []
    for position, cell in enumerate(cells):
        new_lines = carried + _lines(out[position])
        carried = []
        magic, magic_line = _cell_magic(cell.source)
        if cell.index in broken or (magic is not None and magic not in PYTHON_CELL_MAGICS):
            # Only what a fix inserted above the cell's own lines moves on.
            old_lines = _lines(cell.source)
            kept = new_lines[len(new_lines) - len(old_lines) :] if old_lines else []
            if [_strip_newline(x) for x in kept] != [_strip_newline(x) for x in old_lines]:
                return None
            carried = new_lines[: len(new_lines) - len(old_lines)]
            new_lines = old_lines
        elif magic is not None:
            head = _lines(cell.source)[magic_line]
            if new_lines and new_lines[0] != head:
                stripped = [_strip_newline(line) for line in new_lines]
                if _strip_newline(head) in stripped:
                    at = stripped.index(_strip_newline(head))
                    new_lines = [new_lines[at], *new_lines[:at], *new_lines[at + 1 :]]
                    if not new_lines[0].endswith(("\n", "\r")):
                        new_lines[0] += "\n"
        out[position] = "".join(new_lines)
    return None if carried else out


# -- rewriting "source" values in place ------------------------------------------------------
_DECODER = json.JSONDecoder()


def _skip(text: str, index: int) -> int:
    match = _WS.match(text, index)
    return match.end() if match else index


def _members(text: str, index: int) -> tuple[list[tuple[str, int, int]], int]:
    """The members of the JSON object at ``index`` as (key, value start, value end)."""
    if text[index] != "{":
        raise ValueError("expected an object")
    members: list[tuple[str, int, int]] = []
    index = _skip(text, index + 1)
    if text[index] == "}":
        return members, index + 1
    while True:
        key, index = scanstring(text, index + 1)
        index = _skip(text, index)
        if text[index] != ":":
            raise ValueError("expected ':'")
        start = _skip(text, index + 1)
        _, end = _DECODER.raw_decode(text, start)
        members.append((key, start, end))
        index = _skip(text, end)
        if text[index] == "}":
            return members, index + 1
        if text[index] != ",":
            raise ValueError("expected ','")
        index = _skip(text, index + 1)


def cell_lines_in_file(text: str) -> dict[int, tuple[bool, list[tuple[int, int]]]]:
    """For each cell of the notebook ``text`` (1-based, counting every cell): whether its
    source is a list of lines, and the (1-based line, 0-based column) in the ``.ipynb`` where
    each source line's JSON string starts (one entry when the source is a single string).
    Raises ValueError or IndexError when the text is not a notebook's JSON."""
    result: dict[int, tuple[bool, list[tuple[int, int]]]] = {}
    for cell, (start, end) in source_spans(text).items():
        offsets = [start]
        if text[start] == "[":
            offsets = []
            index = _skip(text, start + 1)
            while index < end and text[index] != "]":
                offsets.append(index)
                _, index = _DECODER.raw_decode(text, index)
                index = _skip(text, index)
                if text[index] == ",":
                    index = _skip(text, index + 1)
        positions = []
        for offset in offsets or [start]:
            line_start = text.rfind("\n", 0, offset) + 1
            positions.append((text.count("\n", 0, offset) + 1, offset - line_start))
        result[cell] = (text[start] == "[" and bool(offsets), positions)
    return result


def file_position(
    cells: dict[int, tuple[bool, list[tuple[int, int]]]], cell: int, row: int, col: int
) -> tuple[int, int]:
    """The 1-based line and column in the ``.ipynb`` of a cell's row and 0-based column (the
    column counts from the start of the line's JSON string, so escapes may shift it)."""
    found = cells.get(cell)
    if not found:
        return 1, 1  # the file, when its cells cannot be found again
    is_list, positions = found
    if not is_list:  # one string: the whole cell is on one line; its first row is exact
        line, start = positions[0]
        return line, start + 2 + (col if row == 1 else -1)
    line, start = positions[min(max(row, 1), len(positions)) - 1]
    return line, start + 2 + col


def source_spans(text: str) -> dict[int, tuple[int, int]]:
    """Cell index (1-based) -> the span of its ``"source"`` value in the notebook's text."""
    top, _ = _members(text, _skip(text, 0))
    cells = [(start, end) for key, start, end in top if key == "cells"]
    if not cells:
        return {}
    index, end_of_cells = cells[-1]
    spans: dict[int, tuple[int, int]] = {}
    index = _skip(text, index + 1)
    number = 0
    while index < end_of_cells and text[index] != "]":
        number += 1
        members, index = _members(text, index)
        for key, start, end in members:
            if key == "source":
                spans[number] = (start, end)
        index = _skip(text, index)
        if text[index] == ",":
            index = _skip(text, index + 1)
    return spans


def _indent_unit(text: str) -> Optional[str]:
    """The notebook's indentation step (nbformat writes one space), None for compact JSON."""
    match = re.match(r"\s*\{\r?\n([ \t]+)\"", text)
    return match.group(1) if match else None


def _line_indent(text: str, index: int) -> str:
    start = text.rfind("\n", 0, index) + 1
    line = text[start:index]
    return line[: len(line) - len(line.lstrip(" \t"))]


def render_source(text: str, span: tuple[int, int], new_source: str, is_list: bool) -> str:
    """The JSON for ``new_source`` in the style of the value it replaces."""
    old = text[span[0] : span[1]]
    ensure_ascii = text.isascii() and "\\u" in text
    if not is_list:
        return json.dumps(new_source, ensure_ascii=ensure_ascii)
    items = [json.dumps(line, ensure_ascii=ensure_ascii) for line in _lines(new_source)]
    if not items:
        return "[]"
    newline = "\r\n" if "\r\n" in old or (old == "[]" and "\r\n" in text) else "\n"
    if "\n" in old:
        inner = old[1:].lstrip("\r\n")
        item_indent = inner[: len(inner) - len(inner.lstrip(" \t"))]
        close_indent = _line_indent(old, len(old) - 1)
    else:
        unit = _indent_unit(text)
        if old != "[]" or unit is None:
            separator = ", " if ", " in old or (old == "[]" and ", " in text) else ","
            return "[" + separator.join(items) + "]"
        close_indent = _line_indent(text, span[0])
        item_indent = close_indent + unit
    body = ("," + newline + item_indent).join(items)
    return "[" + newline + item_indent + body + newline + close_indent + "]"


def splice_sources(
    text: str,
    changes: dict[int, tuple[str, bool]],
    spans: Optional[dict[int, tuple[int, int]]] = None,
) -> str:
    """``text`` with the ``"source"`` of each changed cell replaced, the rest untouched."""
    if spans is None:
        spans = source_spans(text)
    out = []
    position = 0
    for index in sorted(changes, key=lambda i: spans[i][0]):
        new_source, is_list = changes[index]
        start, end = spans[index]
        out.append(text[position:start])
        out.append(render_source(text, (start, end), new_source, is_list))
        position = end
    out.append(text[position:])
    return "".join(out)
