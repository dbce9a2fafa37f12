"""Text-level views of a fix: line maps, minimal edits and unified diffs."""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from collections.abc import Sequence

from seedlint.core import Edit
from seedlint.core.printable import printable_code, printable_path

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lines(text: str) -> list[str]:
    """The lines of ``text`` with their endings (``\\n``, ``\\r\\n`` or ``\\r``)."""
    return _LINE.findall(text)


Opcode = tuple[str, int, int, int, int]

# Below this many line pairs, difflib's exact matching (quadratic at worst) runs on what
# differs; above it, a linear resynchronising walk does (see :func:`opcodes`).
_EXACT_PAIRS = 250_000
_WINDOW = 16


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """difflib-style opcodes turning the lines ``a`` into ``b``, in time linear in the lines.

    The common head and tail are matched first; what lies between goes to difflib when it is
    small, else to a walk that matches equal lines and, at a difference, looks up to
    :data:`_WINDOW` lines ahead on each side for two equal lines in a row to resynchronise on.
    (difflib with ``autojunk=False`` is quadratic on files with many equal lines, such as a
    file of 10,000 similar calls separated by blank lines.)
    """
    n, m = len(a), len(b)
    lo = 0
    while lo < n and lo < m and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < n - lo and hi < m - lo and a[n - 1 - hi] == b[m - 1 - hi]:
        hi += 1
    out: list[Opcode] = []
    if lo:
        out.append(("equal", 0, lo, 0, lo))
    i2, j2 = n - hi, m - hi
    if (i2 - lo) * (j2 - lo) <= _EXACT_PAIRS:
        matcher = difflib.SequenceMatcher(None, a[lo:i2], b[lo:j2], autojunk=False)
        for tag, x1, x2, y1, y2 in matcher.get_opcodes():
            out.append((tag, x1 + lo, x2 + lo, y1 + lo, y2 + lo))
    else:
        out.extend(_walk(a, b, lo, i2, lo, j2))
    if hi:
        out.append(("equal", i2, n, j2, m))
    return _merged(out)


def _walk(a: Sequence[str], b: Sequence[str], i: int, i2: int, j: int, j2: int) -> list[Opcode]:
    def synced(x: int, y: int) -> bool:
        return a[x] == b[y] and (x + 1 >= i2 or y + 1 >= j2 or a[x + 1] == b[y + 1])

    out: list[Opcode] = []
    while i < i2 and j < j2:
        if a[i] == b[j]:
            start_i, start_j = i, j
            while i < i2 and j < j2 and a[i] == b[j]:
                i += 1
                j += 1
            out.append(("equal", start_i, i, start_j, j))
            continue
        skip = (1, 1)  # nothing to resynchronise on nearby: one line replaced by one
        for total in range(1, 2 * _WINDOW + 1):
            found = next(
                (
                    (da, total - da)
                    for da in range(max(0, total - _WINDOW), min(total, _WINDOW) + 1)
                    if i + da < i2 and j + total - da < j2 and synced(i + da, j + total - da)
                ),
                None,
            )
            if found is not None:
                skip = found
                break
        da, db = min(skip[0], i2 - i), min(skip[1], j2 - j)
        out.append(("replace", i, i + da, j, j + db))
        i, j = i + da, j + db
    if i < i2 or j < j2:
        out.append(("replace", i, i2, j, j2))
    return out


def _merged(codes: list[Opcode]) -> list[Opcode]:
    """Adjacent opcodes of one kind (equal, or not) joined; each named as difflib names it."""
    out: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if i1 == i2 and j1 == j2:
            continue
        same = "equal" if tag == "equal" else "change"
        if out and ("equal" if out[-1][0] == "equal" else "change") == same:
            i1, j1 = out[-1][1], out[-1][3]
            out.pop()
        if same == "change":
            tag = "replace" if i1 < i2 and j1 < j2 else "delete" if i1 < i2 else "insert"
        out.append((tag, i1, i2, j1, j2))
    return out


class LineMap:
    """Rows of a new text mapped back to the rows of the old text it was made from."""

    def __init__(self, old: str, new: str) -> None:
        old_lines = lines(old)
        codes = opcodes(old_lines, lines(new))
        self._blocks = [(j1, j2, i1, i2, tag) for tag, i1, i2, j1, j2 in codes]
        self._starts = [block[0] for block in self._blocks]
        self._old_count = max(len(old_lines), 1)

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


def mixed_endings(text: str) -> bool:
    """Whether ``text`` ends its lines in more than one way (``\\r\\n``, ``\\r``, ``\\n``)."""
    if "\r" not in text:
        return False
    crlf = text.count("\r\n")
    return crlf != text.count("\r") or crlf != text.count("\n")


def kept_endings(old: str, new: str) -> str:
    """``new`` with every line that a fix did not touch ending as it did in ``old``.

    libcst writes the lines it makes (and the blank lines it moves around a new statement)
    with the module's first line ending; in a file that mixes endings that would change the
    ending of lines the fix never touched. The lines of both texts are matched by their content
    without endings: a matched line keeps its old ending, a new line keeps the one it got."""
    if not mixed_endings(old):
        return new
    old_lines, new_lines = lines(old), lines(new)
    bare_old = [line.rstrip("\r\n") for line in old_lines]
    bare_new = [line.rstrip("\r\n") for line in new_lines]
    out: list[str] = []
    for tag, i1, i2, j1, j2 in opcodes(bare_old, bare_new):
        if tag != "equal":
            out.extend(new_lines[j1:j2])
            continue
        for i, j in zip(range(i1, i2), range(j1, j2)):
            ending = old_lines[i][len(bare_old[i]) :]
            if not ending and j + 1 < len(new_lines):  # the old last line, now followed
                ending = new_lines[j][len(bare_new[j]) :]
            out.append(bare_new[j] + ending)
    return "".join(out)


def minimal_edits(old: str, new: str) -> tuple[Edit, ...]:
    """Replacements that turn ``old`` into ``new``, each trimmed to the characters that change.

    Rows are 1-based and columns 0-based character offsets into ``old``.
    """
    old_lines, new_lines = lines(old), lines(new)
    starts = [0]
    for line in old_lines:
        starts.append(starts[-1] + len(line))
    edits: list[Edit] = []
    for tag, i1, i2, j1, j2 in opcodes(old_lines, new_lines):
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
    """A unified diff of ``old`` to ``new`` for ``display`` (empty when they are equal). The
    name and the lines are shown as :mod:`seedlint.core.printable` makes them: a line holding a
    control character is escaped (that hunk then does not apply as it is)."""
    if old == new:
        return ""
    out = []
    name = printable_path(display)  # the headers stay two lines, whatever the file's name
    for line in difflib.unified_diff(lines(old), lines(new), fromfile=name, tofile=name):
        bare = line.rstrip("\r\n")
        shown = printable_code(bare)  # a control character or a command in the code: escaped
        if len(bare) < len(line):
            out.append(shown + line[len(bare) :])
        else:
            out.append(shown + "\n\\ No newline at end of file\n")
    return "".join(out)
