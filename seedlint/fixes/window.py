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
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Optional

from seedlint.fixes.text import lines, opcodes

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
                continue
            if i1 < i2:  # lines replaced or deleted: none may be a placeholder's
                if any(self.covers(row) for row in self._hole_rows(i1 + 1, i2)):
                    raise OutsideWindow("a change touches a placeholder")
            elif self.covers(i1) and self.covers(i1 + 1):
                raise OutsideWindow("an insertion inside a placeholder")
            out.extend(new[j1:j2])
        return "".join(out)

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
    text: str, tree: ast.Module, keep_rows: Collection[int], min_lines: Optional[int] = None
) -> Optional[Window]:
    """The window of ``text`` (whose ``ast`` is ``tree``) that keeps the top-level statements
    holding a row of ``keep_rows``, those that import and the ``__main__`` blocks; None when a
    window would not help or cannot be made safely (see the module's text), or for a module of
    fewer than ``min_lines`` lines (default :data:`WINDOW_LINES`)."""
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
    new_lines = list(text_lines)
    for first, last in holes:
        for row in range(first, last + 1):
            line = text_lines[row - 1]
            ending = line[len(line.rstrip("\r\n")) :]
            if first == last:
                body = "()"
            elif row == first:
                body = '"""'  # a string: one token, however many lines (blank lines in
            elif row == last:  # brackets would be a node each)
                body = '"""'
            else:
                body = ""
            new_lines[row - 1] = body + ending
    if not holes:
        return None
    return Window("".join(new_lines), holes, text_lines)


def _decorators(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return statement.decorator_list
    return []
