"""RNG000: a file seedlint could not check (unreadable, undecodable, unparsable, or an
internal error). It is reported like any finding so that one bad file never stops a run."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Optional

from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
from seedlint.core import Finding
from seedlint.prefilter.words import WordGroups
from seedlint.rules.base import Invalid, Rule, Valid, Violation

# The grammar a syntax error comes from: the Python that runs seedlint (`ast.parse`), so a file
# using newer syntax (`match`, PEP 695 `type X = ...`) is RNG000 on an older interpreter.
GRAMMAR = f"parsed with Python {sys.version_info[0]}.{sys.version_info[1]}'s grammar"

# Syntax a later Python reads and an earlier one rejects, with the version that added it: a
# syntax error on a line holding one of these may be read by that Python (and only then does
# the message say so).
NEWER_SYNTAX: tuple[tuple[tuple[int, int], re.Pattern[str]], ...] = (
    ((3, 10), re.compile(r"^\s*(?:match|case)\b.*:\s*(?:#.*)?$")),  # match statements
    ((3, 10), re.compile(r"^\s*(?:async\s+)?with\s*\(")),  # parenthesized context managers
    ((3, 11), re.compile(r"^\s*except\s*\*")),  # except*
    ((3, 11), re.compile(r"\[\s*\*")),  # a starred subscript: a[*b]
    ((3, 12), re.compile(r"^\s*type\s+\w+")),  # type statements (PEP 695)
    ((3, 12), re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+\w+\s*\[")),  # def f[T]
    ((3, 12), re.compile(r"(?<![\w\\])[rRbB]?[fF][rR]?['\"]")),  # f-strings (PEP 701)
    ((3, 13), re.compile(r"^\s*(?:(?:async\s+)?(?:def|class)|type)\s+\w+\s*\[[^\]]*=")),
    ((3, 14), re.compile(r"^\s*except\s+[^(:\s][^:]*,")),  # except A, B: (PEP 758)
    ((3, 14), re.compile(r"(?<![\w\\])[rR]?[tT][rR]?['\"]")),  # template strings (PEP 750)
    ((3, 15), re.compile(r"^\s*lazy\s+(?:import|from)\b")),  # lazy imports (PEP 810)
)


def newer_python_for(line: str) -> Optional[tuple[int, int]]:
    """The earliest Python newer than the running one whose grammar adds
    syntax that ``line`` holds, or None (no newer grammar would read the line otherwise)."""
    found = [
        version
        for version, pattern in NEWER_SYNTAX
        if version > sys.version_info[:2] and pattern.search(line)
    ]
    return min(found) if found else None


class InvalidFile(Rule):
    code = "RNG000"
    name = "invalid-file"
    summary = "A file that cannot be read, decoded or parsed"
    valid = (Valid("def train(model):\n    ...\n"),)
    invalid = (Invalid("def train(:\n    ...\n"),)
    doc = """
## What it does
Reports a file that seedlint could not check, with the reason and position:

- `syntax-error`: the file does not parse as Python; the message names the Python whose
  grammar parsed it. For a notebook: the JSON does not load (one finding for the file), or a
  code cell does not parse (one finding for that cell, `nb.ipynb:cell 5:3:14`): every other
  cell is still checked, as Jupyter runs them, and `--fix` never changes that cell;
- `read-error`: the file cannot be read (permissions, a dangling or looping link)
  or decoded (invalid UTF-8 without a coding cookie, an unknown encoding, a NUL byte). A
  cookie naming a codec this Python does not have, one a package registers when the program
  runs (`# -*- coding: future_fstrings -*-`), is no error when the bytes are UTF-8: such a
  codec rewrites UTF-8 source, so the file is checked as UTF-8 (and fixed as UTF-8, the cookie
  kept);
- `internal-error`: seedlint itself failed on this file. Please report it, with the file if you
  can.

The rest of the run goes on: every other file is still checked. A folder named like a
source file (`x.py`) is walked like any folder.

seedlint decodes and parses only the files that one of the selected rules could fire on: files
that contain the rule's names (`DataLoader`, `seed`, a capture region, ...) and, for RNG003 and
RNG004, an expression that could mean `torch.cuda.graph` or a `random`, `numpy.random` or
`torch.cuda` seeding function (`self.seed(...)` cannot). A file ruled out cannot have a
finding, so a syntax or encoding error in it is not reported: that is the Python compiler's (or
ruff's) job. A file that cannot be read at all is always reported, and so is a file named on the
command line that does not decode or parse (a file you name is always parsed).

seedlint parses with the grammar of the Python that runs it (`ast.parse`): a file that uses newer
syntax (a `match` statement on Python 3.9, a PEP 695 `type X = ...` or `def f[T]()` before 3.12)
is reported as `SyntaxError: ... (parsed with Python 3.9's grammar; a newer Python may read
it)`. That hint is given only when the line of the error holds syntax that a Python newer than
the running one added (`match`/`case`, `except*`, `type`, type parameters, f-strings, `except
A, B:`, template strings, `lazy import`); any other syntax error is reported as Python reports
it. Run seedlint with the newest Python your code targets (with pipx or uv:
`pipx install --python python3.13 git+https://github.com/seedlint/seedlint`,
`uv tool install --python 3.13 git+https://github.com/seedlint/seedlint`).

## Why is this bad?
A file that is not checked may hide any of the other findings.

## Options
Select or ignore it like any rule: `--ignore RNG000`, `per-file-ignores`, and a `# noqa: RNG000`
on the line it points at (a file that cannot be decoded has no comment to read).

## References
- ruff's `invalid-syntax` diagnostic, which this mirrors.
"""

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        return ((),)  # never fires from detection: the engine reports it (see `finding`)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        return iter(())

    @classmethod
    def finding(
        cls, path: str, message: str, row: int = 1, col: int = 0, line: Optional[str] = None
    ) -> Finding:
        """The finding for a file that could not be checked; the message says why (what kind
        of :class:`~seedlint.core.Problem` it is shows in its first words). ``line``: the
        line a syntax error is on; the message names the grammar only when that line holds
        syntax a newer Python reads (:func:`newer_python_for`)."""
        row, col = max(row, 1), max(col, 0)
        if (
            message.startswith("SyntaxError: ")
            and "nested too deeply" not in message
            and line is not None
            and newer_python_for(line) is not None
        ):
            hint = f" ({GRAMMAR}; a newer Python may read it)"
            if len(message) + len(hint) > 120:  # Python's first sentence says what is wrong
                message = message.split(". ", 1)[0]
            message += hint
        return Finding(cls.code, cls.name, message, path, row, col, row, col, noqa_rows=(row,))
