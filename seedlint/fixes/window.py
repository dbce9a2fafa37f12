"""A fix of a very large module through a window: libcst parses only what the fixes touch.

libcst builds a Python object for every token of a module and resolves positions and parents
over all of them: one finding in a module of 62,500 lines cost over a minute. A fix touches a
few top-level statements, so :func:`make_window` writes a *window* text of the module: every
top-level statement that no finding is in, that imports nothing, that is not the first and
that is no ``__main__`` block is left out: each run of them becomes one placeholder of exactly
their lines (``()`` on one line, else a string of blank lines), everything else is the
module's own text, line for line. libcst parses the window; the
fixes find their nodes in it by the rows and columns of the ``ast`` facts (the whole module's),
which are the same. :meth:`Window.restore` maps the fixed window back: every line outside a
placeholder is the module's, so the changed lines are carried over to the module's text, and a
change that would touch a placeholder raises :class:`OutsideWindow`.

Whenever the window cannot vouch for the result, the caller fixes with the whole module:
a fix that asks for code in a placeholder (:meth:`Window.covers`), a change touching one, a
statement followed by an indented comment (libcst gives such a comment to the block before
it or to the statement after it by its indentation: a placeholder would move it), and lines
that two statements share.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Optional

from seedlint.fixes.text import lines, opcodes

# The largest change (old lines times new lines) matched line by line around a placeholder.
_FINER_CELLS = 40_000
# Modules of fewer lines are fixed whole (a window would save little).
WINDOW_LINES = 5_000

_INDENTED_COMMENT = re.compile(r"[ \t\f]+#")
_IMPORT = re.compile(r"\bimport\b")
_MAIN = re.compile(r"\b__name__\b")


class OutsideWindow(Exception):
    """A fix needs code the window left out: fix with the whole module."""


@dataclass
class Window:
    text: str  # the window's text: the module's, with placeholders
    holes: list[tuple[int, int]]  # 1-based first and last row of each placeholder, in order
    original: list[str]  # the module's lines, with their endings

    def covers(self, row: int) -> bool:
        """Whether ``row`` (1-based) lies in a placeholder."""
        index = bisect.bisect_right(self.holes, (row, float("inf"))) - 1
        return index >= 0 and self.holes[index][0] <= row <= self.holes[index][1]

    def restore(self, new_text: str) -> str:
        """The module's text with the changes that turned the window's text into ``new_text``;
        raises :class:`OutsideWindow` when a change touches a placeholder's lines."""
        old = lines(self.text)
        new = lines(new_text)
        module = self.original
        if len(old) != len(module):
            raise OutsideWindow("the window does not line up with the module")
        out: list[str] = []
        for tag, i1, i2, j1, j2 in opcodes(old, new):
            if tag == "equal":
                out.extend(module[i1:i2])
            elif not self._touches(i1, i2):
                out.extend(new[j1:j2])
            else:  # the placeholder's lines may be among those the new lines keep
                out.extend(self._finer(old, new, i1, i2, j1, j2))
        return "".join(out)

    def _touches(self, i1: int, i2: int) -> bool:
        """Whether replacing the lines ``i1:i2`` (0-based; an insertion when empty) changes a
        placeholder: a line of one replaced or deleted, or lines inserted inside one."""
        if i1 < i2:
            return any(self.covers(row) for row in self._hole_rows(i1 + 1, i2))
        return self.covers(i1) and self.covers(i1 + 1)

    def _finer(
        self, old: list[str], new: list[str], i1: int, i2: int, j1: int, j2: int
    ) -> list[str]:
        """The module's lines for a change of ``old[i1:i2]`` into ``new[j1:j2]`` that keeps
        each placeholder line it meets (matched line by line: a placeholder inside a block
        between two statements a fix rewrote); raises :class:`OutsideWindow` when one
        changes."""
        if (i2 - i1) * (j2 - j1) > _FINER_CELLS:
            raise OutsideWindow("a change touches a placeholder")
        matcher = difflib.SequenceMatcher(None, old[i1:i2], new[j1:j2], autojunk=False)
        out: list[str] = []
        for tag, a1, a2, b1, b2 in matcher.get_opcodes():
            if tag == "equal":
                out.extend(self.original[i1 + a1 : i1 + a2])
                continue
            if self._touches(i1 + a1, i1 + a2):
                raise OutsideWindow("a change touches a placeholder")
            out.extend(new[j1 + b1 : j1 + b2])
        return out

    def _hole_rows(self, first: int, last: int) -> list[int]:
        """The rows of ``first..last`` that may be in a placeholder (each placeholder's rows
        that meet the range, without walking every row of a long range)."""
        rows: list[int] = []
        index = max(bisect.bisect_right(self.holes, (first, float("inf"))) - 1, 0)
        while index < len(self.holes) and self.holes[index][0] <= last:
            low, high = self.holes[index]
            if high >= first:
                rows.append(max(low, first))
            index += 1
        return rows


def make_window(
    text: str,
    tree: ast.Module,
    keep_rows: Collection[int],
    min_lines: Optional[int] = None,
    inner: bool = False,
) -> Optional[Window]:
    """The window of ``text`` (whose ``ast`` is ``tree``) that keeps the top-level statements
    holding a row of ``keep_rows``, those that import and the ``__main__`` blocks; None when a
    window would not help or cannot be made safely (see the module's text), or for a module of
    fewer than ``min_lines`` lines (default :data:`WINDOW_LINES`). With ``inner``, also the
    statements inside the kept ones that hold none of those rows (:func:`_inner_holes`: for
    ``--fix`` and for each fix's edits, the json edits and the quick fixes, which through a
    window come from the restored text, not from the top-level statements' code)."""
    text_lines = lines(text)
    least = WINDOW_LINES if min_lines is None else min_lines
    if len(text_lines) < least or not tree.body:
        return None
    wanted = sorted(set(keep_rows))
    spans: list[tuple[int, int, bool]] = []  # first row, last row, kept
    for statement in tree.body:
        first = min([statement.lineno, *(d.lineno for d in _decorators(statement))])
        last = statement.end_lineno or statement.lineno
        segment = "".join(text_lines[first - 1 : last])
        kept = (
            statement is tree.body[0]  # a docstring, say: where imports go depends on it
            or _IMPORT.search(segment) is not None
            or (isinstance(statement, ast.If) and _MAIN.search(segment) is not None)
            or bisect.bisect_left(wanted, first) < bisect.bisect_right(wanted, last)
        )
        if spans and first <= spans[-1][1]:  # two statements on one line: one span
            low, high, was_kept = spans[-1]
            spans[-1] = (low, max(high, last), was_kept or kept)
            continue
        spans.append((first, last, kept))
    holes: list[tuple[int, int]] = []
    for index, (first, last, kept) in enumerate(spans):
        if kept:
            continue
        after = spans[index + 1][0] - 1 if index + 1 < len(spans) else len(text_lines)
        if any(_INDENTED_COMMENT.match(line) for line in text_lines[last:after]):
            return None  # libcst would give the comment to the block or to the next statement
        if holes and index > 0 and not spans[index - 1][2]:
            holes[-1] = (holes[-1][0], last)  # one placeholder for a run of left-out statements
        else:
            holes.append((first, last))
    inside: list[tuple[int, int, str]] = []
    for owner, (first, last, kept) in zip(_owners(tree, spans), spans):
        if inner and kept and owner is not None and owner is not tree.body[0]:
            segment = "".join(text_lines[first - 1 : last])
            # (a class's or function's own imports are no import guard of the module, nor its
            # `__name__` a `__main__` block: the runs of its statements that import are kept
            # as they are, the others stand for placeholders)
            definition = isinstance(owner, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            if definition or (_IMPORT.search(segment) is None and _MAIN.search(segment) is None):
                _inner_holes(owner, text_lines, wanted, inside)
    if not holes and not inside:
        return None
    new_lines = list(text_lines)
    for first, last, indent in [*((a, b, "") for a, b in holes), *inside]:
        for row in range(first, last + 1):
            line = text_lines[row - 1]
            ending = line[len(line.rstrip("\r\n")) :]
            if first == last:
                body = indent + "()"
            elif row == first:
                body = indent + '"""'  # a string: one token, however many lines (blank
            elif row == last:  # lines in brackets would be a node each)
                body = '"""'
            else:
                body = ""
            if indent and row == last:  # ends where the code it stands for ended, as the
                body = _same_end(body, len(line) - len(ending))  # block holding it does
            new_lines[row - 1] = body + ending
    holes = sorted([*holes, *((first, last) for first, last, _ in inside)])
    return Window("".join(new_lines), holes, text_lines)


def _same_end(body: str, width: int) -> str:
    """A placeholder's last line ``body`` (``()`` after its indentation, or a string's closing
    quotes) widened to ``width`` characters with spaces inside its brackets or its string."""
    if body.endswith("()"):
        return body[:-1] + " " * (width - len(body)) + ")"
    return " " * (width - 3) + '"""'


def _owners(tree: ast.Module, spans: list[tuple[int, int, bool]]) -> list[Optional[ast.stmt]]:
    """The top-level statement of each span (None for a span of two statements on a line)."""
    owners: list[Optional[ast.stmt]] = []
    statements = iter(tree.body)
    for _, last, _ in spans:
        inside = []
        for statement in statements:
            inside.append(statement)
            if (statement.end_lineno or statement.lineno) >= last:
                break
        owners.append(inside[0] if len(inside) == 1 else None)
    return owners


# The statement lists of a compound statement (an ``except`` handler's and a ``match`` case's
# are their ``body``).
_SUITES = ("body", "orelse", "finalbody")


def _inner_holes(
    statement: ast.stmt, text_lines: list[str], wanted: list[int], out: list[tuple[int, int, str]]
) -> None:
    """Placeholders inside a kept compound statement: each run of its statements (at any depth)
    that holds no wanted row and imports nothing becomes one, at the run's indentation (the
    fixes of a large module whose every top-level statement has a finding parse only their
    lines). A run is left as it is wherever a placeholder might not stand for it exactly: a
    statement sharing a line (with another, or with its block's header), and a comment
    between the run and the next statement (libcst gives it by its indentation)."""
    header = statement.lineno
    suites: list[list[ast.stmt]] = []
    for name in _SUITES:
        inner = getattr(statement, name, None)
        if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
            suites.append(inner)
    for clause in [*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())]:
        suites.append(clause.body)
    for suite in suites:
        _suite_holes(suite, header, text_lines, wanted, out)


def _suite_holes(
    suite: list[ast.stmt],
    header: int,
    text_lines: list[str],
    wanted: list[int],
    out: list[tuple[int, int, str]],
) -> None:
    spans: list[tuple[int, int, ast.stmt]] = []
    for statement in suite:
        first = min([statement.lineno, *(d.lineno for d in _decorators(statement))])
        last = statement.end_lineno or statement.lineno
        if first <= header or (spans and first <= spans[-1][1]):
            return  # on its block's header line (`if x: y`), or sharing one (`a; b`)
        spans.append((first, last, statement))
    previous = False  # the statement before was left out: a run goes on
    for first, last, statement in spans:
        line = text_lines[first - 1]
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        held = bisect.bisect_left(wanted, first) < bisect.bisect_right(wanted, last)
        if held:
            _inner_holes(statement, text_lines, wanted, out)
        elif (
            len(indent) == _column(statement)
            and _wide_enough(text_lines, first, last, len(indent))
            and _IMPORT.search("".join(text_lines[first - 1 : last])) is None
            and not (_has_suite(statement) and _comment_follows(text_lines, last))
        ):
            if previous:
                out[-1] = (out[-1][0], last, out[-1][2])
            else:
                out.append((first, last, indent))
            previous = True
            continue
        previous = False


def _wide_enough(text_lines: list[str], first: int, last: int, indent: int) -> bool:
    """Whether a placeholder of rows ``first..last`` can end at the column its last line ends
    at (``()`` after the indentation, or a string's closing quotes)."""
    width = len(text_lines[last - 1].rstrip("\r\n"))
    return width >= (indent + 2 if first == last else 3)


def _column(statement: ast.stmt) -> int:
    """The column its first line starts at (its first decorator's ``@``)."""
    decorators = _decorators(statement)
    return decorators[0].col_offset - 1 if decorators else statement.col_offset


def _has_suite(statement: ast.stmt) -> bool:
    return any(isinstance(getattr(statement, name, None), list) for name in _SUITES)


def _comment_follows(text_lines: list[str], last: int) -> bool:
    """Whether a comment comes after row ``last`` before the next line of code (libcst gives
    it to a block by its indentation: a placeholder for the block might move it)."""
    for line in text_lines[last:]:
        stripped = line.strip()
        if stripped.startswith("#"):
            return True
        if stripped:
            return False
    return False


def _decorators(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return statement.decorator_list
    return []
