"""Findings and fixes: the data every part of seedlint passes along."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class Edit:
    """Replace the text from (row, col) to (end_row, end_col) with ``content``.

    Rows are 1-based, columns are 0-based character offsets; reports show columns 1-based.
    """

    content: str
    row: int
    col: int
    end_row: int
    end_col: int


@dataclass(frozen=True)
class Fix:
    applicability: str  # "safe" or "unsafe"
    message: str
    edits: tuple[Edit, ...] = ()


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    message: str
    path: str
    row: int  # 1-based
    col: int  # 0-based, in characters
    end_row: int
    end_col: int
    fix: Optional[Fix] = None
    noqa_rows: tuple[int, ...] = ()  # lines whose noqa comment silences this finding
    cell: Optional[int] = None  # notebooks: the 1-based cell the row belongs to
    fixable: bool = field(default=False, compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, int, str]:
        # Notebook rows count from their cell's start: order by cell first.
        return (self.path, self.cell or 0, self.row, self.col, self.code)
