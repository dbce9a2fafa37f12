"""One fix's edits without printing the whole module: for the json output, which shows every
fix's edits computed alone.

A change that only replaces nodes is turned into edits from the nodes' own code: the replaced
node's text (which must be exactly the file's text at its position, else None) against the new
node's text. Anything else (insertions, removals, imports, a node whose printed form depends on
the block's indentation) returns None, and the caller applies the change to the whole module.
Cost: the size of the replaced nodes, not of the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Optional

import libcst as cst
from libcst.metadata import CodeRange

from seedlint.core import Edit
from seedlint.fixes.context import Change
from seedlint.fixes.text import minimal_edits


def line_starts(text_lines: Sequence[str]) -> list[int]:
    """The character offset where each line starts (one more: the end of the text)."""
    starts = [0]
    for line in text_lines:
        starts.append(starts[-1] + len(line))
    return starts


def local_edits(
    module: cst.Module,
    ranges: Mapping[cst.CSTNode, CodeRange],
    change: Change,
    text: str,
    starts: Sequence[int],
) -> Optional[tuple[Edit, ...]]:
    """The edits of a replacements-only ``change``, or None when they must be computed on the
    whole module."""
    if change.removals or change.insertions or change.imports or not change.replacements:
        return None
    edits: list[Edit] = []
    previous_end = -1
    for old, new in sorted(
        change.replacements,
        key=lambda pair: (ranges[pair[0]].start.line, ranges[pair[0]].start.column),
    ):
        where = ranges[old]
        if where.start.line > len(starts) - 1 or where.end.line > len(starts) - 1:
            return None
        begin = starts[where.start.line - 1] + where.start.column
        end = starts[where.end.line - 1] + where.end.column
        old_code = module.code_for_node(old)
        if begin < previous_end or text[begin:end] != old_code:
            return None  # printed out of context it differs (indentation): not local
        previous_end = end
        for edit in minimal_edits(old_code, module.code_for_node(new)):
            first = edit.row == 1
            edits.append(
                Edit(
                    edit.content,
                    where.start.line + edit.row - 1,
                    edit.col + (where.start.column if first else 0),
                    where.start.line + edit.end_row - 1,
                    edit.end_col + (where.start.column if edit.end_row == 1 else 0),
                )
            )
    return tuple(edits)
