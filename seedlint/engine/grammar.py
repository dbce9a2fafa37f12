"""Code for a newer Python than the one running seedlint, checked all the same.

``ast.parse`` reads only its own Python's grammar: under 3.11, ``class Box[T]:`` is a syntax
error, and so the whole file would be one RNG000 with none of its loaders checked. libcst
reads every grammar up to 3.12+, so when ``ast.parse`` fails on a text that spells newer
syntax, :func:`lowered` asks libcst where the constructs this Python lacks are and writes the
text again without them, in place: every other character keeps its row and its UTF-8 byte
column, so the ``ast`` of the lowered text has the original's positions, and detection runs
on the standard ``ast`` as always (the analysis never sees libcst). What is lowered:

- type parameters (``class Box[T]``, ``def f[T]()``; Python 3.12) become blanks;
- ``type X[T] = value`` (3.12) becomes ``X = value`` (the name where ``type`` was);
- ``except*`` (3.11) becomes ``except``;
- an f-string this Python cannot read (quotes reused inside it, 3.12) becomes an empty string
  of the same shape (its expressions are not checked).

A blank that spans lines ends each of them with a backslash, so that the lines stay joined.
A text that still does not parse raises the original ``SyntaxError`` (the file's RNG000, as
before). libcst's parser runs in the large-stack thread (:mod:`seedlint.engine.deep`): a text
nested deeply enough to overflow it is refused before (:data:`_LONGEST_LINE`).
"""

from __future__ import annotations

import ast
import re
import sys
import warnings
from typing import Optional

from seedlint.engine.deep import deeply, in_deep_thread

# Words a newer construct needs: texts without them are not given to libcst.
_NEWER = re.compile(
    r"^[ \t]*(?:async[ \t]+)?(?:class|def)[ \t]+\w+[ \t]*\[|^[ \t]*type[ \t]+\w+|except[ \t]*\*"
    r"|f['\"]",
    re.MULTILINE,
)
# A line longer than this (a chain of thousands of operators) is not given to libcst's parser,
# which recurses once per operator.
_LONGEST_LINE = 20_000


def lowered(text: str) -> Optional[str]:
    """``text`` without the constructs this Python's parser lacks (see above), or None when it
    has none that libcst finds or libcst cannot parse it."""
    if _NEWER.search(text) is None:
        return None
    if any(len(line) > _LONGEST_LINE for line in text.splitlines()):
        return None
    if in_deep_thread():
        return _lowered(text)
    return deeply(lambda: _lowered(text))


def parse_lowered(text: str, display: str) -> Optional[ast.Module]:
    """The ``ast`` of :func:`lowered` text, or None when there is none or it does not parse."""
    try:
        new = lowered(text)
    except (RecursionError, MemoryError):
        return None
    if new is None or new == text:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(new, filename=display)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _lowered(text: str) -> Optional[str]:
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
    except Exception:  # libcst cannot parse it either: the file's own syntax error stands
        return None
    lines = text.splitlines(keepends=True)
    edits: list[tuple[int, int, int, int, str]] = []  # rows 1-based, columns 0-based chars

    def span(node: cst.CSTNode) -> tuple[int, int, int, int]:
        where = positions[node]
        return where.start.line, where.start.column, where.end.line, where.end.column

    f_strings = sys.version_info < (3, 12)
    for node in _walk(wrapper.module):
        if isinstance(node, (cst.ClassDef, cst.FunctionDef)) and node.type_parameters:
            edits.append((*span(node.type_parameters), ""))
        elif isinstance(node, cst.TypeAlias):
            row, col, _, _ = span(node)
            end = node.type_parameters if node.type_parameters is not None else node.name
            _, _, end_row, end_col = span(end)
            edits.append((row, col, end_row, end_col, node.name.value))
        elif isinstance(node, cst.ExceptStarHandler) and sys.version_info < (3, 11):
            row, col, _, _ = span(node)
            star = col + len("except") + len(node.whitespace_after_except.value)
            edits.append((row, star, row, star + 1, ""))
        elif f_strings and isinstance(node, cst.FormattedString):
            code = wrapper.module.code_for_node(node)
            if not _parses_alone(code):
                edits.append((*span(node), '""'))
    if not edits:
        return None
    for row, col, end_row, end_col, keep in sorted(edits, reverse=True):
        _blank(lines, row, col, end_row, end_col, keep)
    return "".join(lines)


def _walk(module: object) -> list[object]:
    """Every node of a libcst module, without recursion (an f-string's parts included)."""
    import libcst as cst

    out: list[object] = []
    stack: list[cst.CSTNode] = [module]  # type: ignore[list-item]
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, cst.FormattedString):
            continue  # blanked whole or not at all
        stack.extend(reversed(node.children))
    return out


def _parses_alone(code: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(f"(\n{code}\n)", mode="eval")
    except (SyntaxError, ValueError):
        return False
    return True


def _blank(lines: list[str], row: int, col: int, end_row: int, end_col: int, keep: str) -> None:
    """Rows ``row:col`` to ``end_row:end_col`` of ``lines`` blanked in place (``keep`` first),
    each character becoming as many spaces as its UTF-8 bytes, each line it spans ending with
    a backslash."""
    for at in range(row, end_row + 1):
        line = lines[at - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        start = col if at == row else 0
        stop = end_col if at == end_row else len(body)
        width = len(body[start:stop].encode("utf-8"))
        if at == row and keep:
            filler = keep + " " * max(width - len(keep.encode("utf-8")), 0)
        else:
            filler = " " * width
        if at < end_row:  # the lines the blank spans stay joined
            filler = filler[:-1] + "\\" if filler.endswith(" ") else filler + "\\"
        lines[at - 1] = body[:start] + filler + body[stop:] + ending
