"""Text-level views of a fix: line maps, minimal edits and unified diffs."""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right

from seedlint.core import Edit

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lines(text: str) -> list[str]:
    """The lines of ``text`` with their endings (``\\n``, ``\\r\\n`` or ``\\r``)."""
    return _LINE.findall(text)


class LineMap:
    """Rows of a new text mapped back to the rows of the old text it was made from."""

    def __init__(self, old: str, new: str) -> None:
        matcher = difflib.SequenceMatcher(None, lines(old), lines(new), autojunk=False)
        self._blocks = [(j1, j2, i1, i2, tag) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
        self._starts = [block[0] for block in self._blocks]
        self._old_count = max(len(lines(old)), 1)

    def old_row(self, row: int) -> int:
        """The 1-based old row a 1-based new row comes from (an inserted row: the old row the
        insertion is next to)."""
        index = bisect_right(self._starts, row - 1) - 1
        if index < 0:
            return 1
        j1, _, i1, i2, tag = self._blocks[index]
        if tag == "equal":
            return i1 + (row - 1 - j1) + 1
        if i2 > i1:
            return min(i1 + (row - 1 - j1), i2 - 1) + 1
        return min(i1, self._old_count - 1) + 1


def minimal_edits(old: str, new: str) -> tuple[Edit, ...]:
    """Replacements that turn ``old`` into ``new``, each trimmed to the characters that change.

    Rows are 1-based and columns 0-based character offsets into ``old``.
    """
    old_lines, new_lines = lines(old), lines(new)
    starts = [0]
    for line in old_lines:
        starts.append(starts[-1] + len(line))
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    edits: list[Edit] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        before = "".join(old_lines[i1:i2])
        after = "".join(new_lines[j1:j2])
        prefix = _common_prefix(before, after)
        suffix = _common_suffix(before[prefix:], after[prefix:])
        start = starts[i1] + prefix
        end = starts[i1] + len(before) - suffix
        content = after[prefix : len(after) - suffix]
        row, col = _row_col(old, starts, start)
        end_row, end_col = _row_col(old, starts, end)
        edits.append(Edit(content, row, col, end_row, end_col))
    return tuple(edits)


def _common_prefix(a: str, b: str) -> int:
    size = 0
    for x, y in zip(a, b):
        if x != y:
            break
        size += 1
    return size


def _common_suffix(a: str, b: str) -> int:
    size = 0
    for x, y in zip(reversed(a), reversed(b)):
        if x != y:
            break
        size += 1
    return size


def _row_col(text: str, starts: list[int], offset: int) -> tuple[int, int]:
    row = bisect_right(starts, offset) - 1
    if row >= len(starts) - 1 and offset == len(text) and not text.endswith(("\n", "\r")):
        row = max(len(starts) - 2, 0)  # the end of a last line without a newline
    return row + 1, offset - starts[row]


def unified_diff(old: str, new: str, display: str) -> str:
    """A unified diff of ``old`` to ``new`` for ``display`` (empty when they are equal)."""
    if old == new:
        return ""
    out = []
    for line in difflib.unified_diff(lines(old), lines(new), fromfile=display, tofile=display):
        if line.endswith(("\n", "\r")):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)
