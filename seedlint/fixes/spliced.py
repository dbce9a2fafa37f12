"""One fix's edits from the top-level statements it touches, not the whole module: for the json
output, which shows every fix's edits computed alone (N fixes in a file of L lines then cost
about N times the size of their statements, not N times L).

:class:`TopLevel` is made once per file: where each top-level statement's code starts (the
module's code is its header, then each statement's code, then its footer). For a change,
:meth:`TopLevel.edits` applies its replacements, removals and insertions to a module made of
just the touched top-level statements (and the one before them, so that an insertion before
the first of them is placed as in the whole module), checks that their code is exactly the
file's text at their lines, and diffs that stretch of lines only. The imports a change needs
are added to the whole module once per file and set of imports (where they go depends on the
module's first statements and on what it imports anywhere), and their edits are shared by every
fix that needs them. The result applied to the file gives the text that applying the change to
the whole module gives. Anything it cannot vouch for returns None (the caller then applies the
change to the whole module): a fix next to where imports go, a fix that adds an import statement
itself, a stretch whose code is not the file's text.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from typing import Optional, Union, overload

import libcst as cst
from libcst.metadata import CodeRange

from seedlint.core import Edit
from seedlint.fixes.context import Change
from seedlint.fixes.imports import ImportNeed
from seedlint.fixes.text import (
    _EXACT_PAIRS,
    Opcode,
    _common_prefix,
    _common_suffix,
    _merged,
    _row_col,
    _walk,
    lines,
    minimal_edits,
)
from seedlint.fixes.transform import apply_changes

_IMPORT = re.compile(r"\bimport\b")


class TopLevel:
    """The top-level statements of a module and the rows their code starts on."""

    def __init__(self, module: cst.Module, ranges: Mapping[cst.CSTNode, CodeRange]) -> None:
        self.module = module
        self.ranges = ranges
        header = len(module.header)  # one line each
        self.first_rows: list[int] = []  # 1-based row where each statement's code starts
        row = header + 1
        for statement in module.body:
            self.first_rows.append(row)
            row += len(lines(module.code_for_node(statement)))
        self._imports: dict[tuple[ImportNeed, ...], Optional[tuple[Edit, ...]]] = {}
        self._shared: dict[object, Optional[tuple[Edit, ...]]] = {}

    def _import_edits(self, needs: tuple[ImportNeed, ...], text: str) -> Optional[tuple[Edit, ...]]:
        """The edits that add ``needs`` to the whole module (once per set of needs)."""
        if needs not in self._imports:
            try:
                new_text = apply_changes(self.module, [Change(imports=list(needs))], self.ranges)
                self._imports[needs] = minimal_edits(text, new_text)
            except Exception:  # as a failing fix: no fast path
                self._imports[needs] = None
        return self._imports[needs]

    def _index(self, node: cst.CSTNode) -> Optional[int]:
        where = self.ranges.get(node)
        if where is None:
            return None
        index = bisect_right(self.first_rows, where.start.line) - 1
        if index < 0:
            return None
        after = self.first_rows[index + 1] if index + 1 < len(self.first_rows) else float("inf")
        return index if where.end.line < after else None

    def edits(
        self, change: Change, text: str, text_lines: Sequence[str], starts: list[int]
    ) -> Optional[tuple[Edit, ...]]:
        """The edits of ``change`` alone; applied to the text they give what the change
        applied to the whole module gives. None when that cannot be vouched for."""
        news = [new for _, new in change.replacements]
        news += [s for insertion in change.insertions for s in insertion.statements]
        if change.imports and any(_IMPORT.search(self.module.code_for_node(node)) for node in news):
            return None  # it adds an import statement itself: the imports may interact
        # The change's parts by the top-level statement they touch, in runs of statements.
        parts: list[tuple[Optional[int], Change]] = []
        for old, new in change.replacements:
            parts.append((self._index(old), Change(replacements=[(old, new)])))
        for node in change.removals:
            parts.append((self._index(node), Change(removals=[node])))
        for insertion in change.insertions:
            parts.append((self._index(insertion.anchor), Change(insertions=[insertion])))
        placed = [(index, part) for index, part in parts if index is not None]
        if not placed or len(placed) < len(parts):
            return None
        placed.sort(key=lambda part: part[0])
        runs: list[tuple[int, int, Change]] = []  # first and last statement, the changes
        for index, part in placed:
            if runs and index <= runs[-1][1] + 2:  # stretches would touch: one run
                low, _, merged = runs[-1]
                merged.replacements += part.replacements
                merged.removals += part.removals
                merged.insertions += part.insertions
                runs[-1] = (low, max(index, runs[-1][1]), merged)
            else:
                runs.append((index, index, part))
        head: tuple[Edit, ...] = ()
        if change.imports:
            imports = self._import_edits(tuple(change.imports), text)
            if imports is None:
                return None
            near = max(edit.end_row for edit in imports) + 2  # 1-based rows
            # Runs that start near the imports are applied with them to the whole module
            # (once per file for the same parts: a shared `seed_worker` and its import).
            close = [self.first_rows[max(run[0] - 1, 0)] <= near for run in runs]
            together = [run for run, near_it in zip(runs, close) if near_it]
            runs = [run for run, near_it in zip(runs, close) if not near_it]
            joined = Change(imports=list(change.imports))
            for _, _, part in together:
                joined.replacements += part.replacements
                joined.removals += part.removals
                joined.insertions += part.insertions
            found = self._whole(joined, text)
            if found is None:
                return None
            head = found
        out = list(head)
        for low, high, part in runs:
            own = self._stretch(part, low, high, text, text_lines, starts)
            if own is None:
                return None
            if head and max(edit.end_row for edit in head) + 1 >= self.first_rows[max(low - 1, 0)]:
                return None  # the shared edits reach the stretch
            out.extend(own)
        return tuple(sorted(out, key=lambda edit: (edit.row, edit.col)))

    def _whole(self, change: Change, text: str) -> Optional[tuple[Edit, ...]]:
        """``change`` applied to the whole module, cached by what it does."""
        key = (
            tuple(change.imports),
            tuple((id(o), self.module.code_for_node(n)) for o, n in change.replacements),
            tuple(id(node) for node in change.removals),
            tuple(
                (
                    id(i.anchor),
                    i.before,
                    i.key,
                    tuple(self.module.code_for_node(s) for s in i.statements),
                )
                for i in change.insertions
            ),
        )
        if key not in self._shared:
            try:
                new_text = apply_changes(self.module, [change], self.ranges)
                self._shared[key] = minimal_edits(text, new_text)
            except Exception:  # as a failing fix: no fast path
                self._shared[key] = None
        return self._shared[key]

    def _stretch(
        self,
        change: Change,
        low: int,
        high: int,
        text: str,
        text_lines: Sequence[str],
        starts: list[int],
    ) -> Optional[tuple[Edit, ...]]:
        """``change`` (no imports) applied to the statements ``low`` to ``high`` and the one
        before them."""
        low = max(low - 1, 0)
        part = self.module.with_changes(body=self.module.body[low : high + 1], header=(), footer=())
        old_part = lines(part.code)
        first = self.first_rows[low] - 1  # 0-based
        last = first + len(old_part)
        if last > len(text_lines) or list(text_lines[first:last]) != old_part:
            return None  # not exactly the file's text there: the whole module, then
        new_code = apply_changes(part, [change], self.ranges)
        if last < len(text_lines) and (
            not new_code.endswith(("\n", "\r"))
            or (new_code.endswith("\r") and text_lines[last].startswith("\n"))
        ):
            return None  # the lines would not split as in the whole text
        if first > 0 and text_lines[first - 1].endswith("\r") and new_code.startswith("\n"):
            return None
        return spliced_edits(text, text_lines, starts, first, last, lines(new_code))


class _Spliced(Sequence[str]):
    """``a[:first] + middle + a[last:]`` without copying ``a``."""

    def __init__(self, a: Sequence[str], first: int, last: int, middle: list[str]) -> None:
        self.a, self.first, self.last, self.middle = a, first, last, middle
        self.size = first + len(middle) + len(a) - last

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[str, list[str]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.size))]
        if index < 0:
            index += self.size
        if index < self.first:
            return self.a[index]
        if index < self.first + len(self.middle):
            return self.middle[index - self.first]
        return self.a[index - self.first - len(self.middle) + self.last]


def spliced_edits(
    text: str,
    text_lines: Sequence[str],
    starts: list[int],
    first: int,
    last: int,
    middle: list[str],
) -> tuple[Edit, ...]:
    """``minimal_edits(text, new)`` where ``new`` is ``text`` with its lines ``first:last``
    (0-based) replaced by ``middle``, in time proportional to what changes."""
    new = _Spliced(text_lines, first, last, middle)
    edits: list[Edit] = []
    for tag, i1, i2, j1, j2 in _opcodes(text_lines, new, first, len(text_lines) - last):
        if tag == "equal":
            continue
        before = "".join(text_lines[i1:i2])
        after = "".join(new[j1:j2])
        prefix = _common_prefix(before, after)
        suffix = _common_suffix(before[prefix:], after[prefix:])
        start = starts[i1] + prefix
        end = starts[i1] + len(before) - suffix
        content = after[prefix : len(after) - suffix]
        row, col = _row_col(text, starts, start)
        end_row, end_col = _row_col(text, starts, end)
        edits.append(Edit(content, row, col, end_row, end_col))
    return tuple(edits)


def _opcodes(a: Sequence[str], b: Sequence[str], head: int, tail: int) -> list[Opcode]:
    """:func:`seedlint.fixes.text.opcodes`, knowing that the first ``head`` and the last
    ``tail`` lines of ``a`` and ``b`` are equal (the same result, without reading them)."""
    n, m = len(a), len(b)
    lo = head
    while lo < n and lo < m and a[lo] == b[lo]:
        lo += 1
    hi = min(tail, n - lo, m - lo)
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
