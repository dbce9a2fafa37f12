"""Suppression comments, as ruff and flake8 read them.

* ``# noqa`` (every code) or ``# noqa: RNG001, RNG002`` on the line a finding points at, or on the
  last line of a multi-line flagged call;
* ``# seedlint: noqa`` on its own line anywhere in a file: the whole file; ``# seedlint: noqa:
  RNG001`` on its own line: that code in the whole file (ruff's ``# ruff: noqa: CODE``);
* flake8's ``# flake8: noqa`` on its own line: the whole file; ``# flake8: noqa: C901``: those
  codes in the whole file, as ruff reads it (flake8 itself skips the whole file whatever codes
  follow: a comment meant for another checker would hide every finding).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Optional

_CODES = r"[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*"
LINE_NOQA = re.compile(rf"#\s*noqa(?::\s*(?P<codes>{_CODES}))?", re.IGNORECASE)
FILE_NOQA = re.compile(
    rf"^[ \t\f]*#\s*(?P<tool>seedlint|flake8)\s*[:=]\s*noqa(?::\s*(?P<codes>{_CODES}))?",
    re.IGNORECASE | re.MULTILINE,
)
_SPLIT = re.compile(r"[\s,]+")


def _codes(text: Optional[str]) -> Optional[frozenset[str]]:
    if not text:
        return None
    return frozenset(c.upper() for c in _SPLIT.split(text.strip()) if c)


@dataclass(frozen=True)
class FileExemption:
    all_codes: bool
    codes: frozenset[str]

    def covers(self, code: str) -> bool:
        return self.all_codes or code in self.codes


def file_exemption(text: str) -> FileExemption:
    all_codes = False
    codes: set[str] = set()
    # Any case, as FILE_NOQA reads it (``# Seedlint: NoQa``); lower() of an ASCII text (the
    # common case) costs less than the two searches for ``noqa`` and ``NOQA`` it replaces.
    if "noqa" not in text.lower():
        return FileExemption(False, frozenset())
    for match in FILE_NOQA.finditer(text):
        parsed = _codes(match.group("codes"))
        if parsed is None:
            all_codes = True
        else:
            codes |= parsed
    return FileExemption(all_codes, frozenset(codes))


def line_suppresses(line: str, code: str) -> bool:
    """Whether a physical line's ``# noqa`` covers ``code``."""
    if "#" not in line:
        return False
    for match in LINE_NOQA.finditer(line):
        codes = _codes(match.group("codes"))
        if codes is None or code in codes or any(code.startswith(c) for c in codes):
            return True
    return False


@dataclass(frozen=True)
class Directive:
    """A ``# noqa`` in a comment: its row, its columns (characters), the codes it names (upper
    case, as written; empty for a blanket ``# noqa``)."""

    row: int
    col: int
    end_col: int
    codes: tuple[str, ...]


def directives(text: str) -> list[Directive]:
    """The ``# noqa`` directives of the text's comments (a string that holds one is no
    directive): what the unused-noqa rule judges."""
    if "noqa" not in text.lower():
        return []
    found: list[Directive] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.COMMENT:
                continue
            row, col = token.start
            for match in LINE_NOQA.finditer(token.string):
                listed = match.group("codes")
                codes = (
                    tuple(c.upper() for c in _SPLIT.split(listed.strip()) if c) if listed else ()
                )
                found.append(Directive(row, col + match.start(), col + match.end(), codes))
    except (tokenize.TokenError, SyntaxError):
        pass  # the directives found so far (the text parsed: this does not happen)
    return found
