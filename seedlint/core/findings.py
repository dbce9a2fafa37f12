"""Findings and fixes: the data every layer of seedlint passes along (imports nothing of ours)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional


class Applicability(str, enum.Enum):
    """How sure a fix is (ruff's ``Applicability``): ``--fix`` applies safe fixes, unsafe ones
    only with ``--unsafe-fixes``. The value is what the json output and the cache write."""

    SAFE = "safe"
    UNSAFE = "unsafe"


class FixAvailability(str, enum.Enum):
    """Whether a rule's findings come with a fix (ruff's ``FixAvailability``)."""

    NONE = "none"
    SOMETIMES = "sometimes"
    ALWAYS = "always"


class Problem(str, enum.Enum):
    """Why a file could not be checked (RNG000 reports it; ``internal-error`` is never cached)."""

    SYNTAX = "syntax-error"
    READ = "read-error"
    INTERNAL = "internal-error"


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
    applicability: Applicability
    message: str  # the fix title: what the fix writes
    edits: tuple[Edit, ...] = ()

    @property
    def safe(self) -> bool:
        return self.applicability is Applicability.SAFE


@dataclass(frozen=True)
class Origin:
    """Where a finding's hazardous value comes from, when it is not written at the call:
    ``num_workers=4: argparse default, line 12``."""

    name: str  # the argument: ``num_workers``
    value: str  # the value, as Python writes it: ``4``
    source: str  # a few words: ``argparse default, line 12``, ``set in conf/data.yaml:3``
    row: int = 0  # the line it is set on (0: none to name)
    path: str = ""  # the file it is set in, from the project's root ("": the finding's own)

    def __str__(self) -> str:
        return f"{self.name}={self.value}: {self.source}"


@dataclass(frozen=True)
class Finding:
    code: str
    name: str  # the rule's kebab-case name
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
    origin: Optional[Origin] = field(default=None, compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, int, str]:
        # Notebook rows count from their cell's start: order by cell first.
        return (self.path, self.cell or 0, self.row, self.col, self.code)
