"""Why a file's bytes are not a document seedlint can read."""

from __future__ import annotations

from seedlint.core import Problem


class DocumentError(Exception):
    """The bytes are not a document seedlint can read: reported as one RNG000."""

    def __init__(self, kind: Problem, message: str, row: int = 1, col: int = 0) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.row = row
        self.col = col
