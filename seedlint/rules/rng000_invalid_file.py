"""RNG000: a file seedlint could not check (unreadable, undecodable, unparsable, or an
internal error). It is reported like any finding so that one bad file never stops a run."""

from __future__ import annotations

from collections.abc import Iterator

from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
from seedlint.rules.base import Rule, Violation

SYNTAX_ERROR = "syntax-error"
READ_ERROR = "read-error"
INTERNAL_ERROR = "internal-error"


class InvalidFile(Rule):
    code = "RNG000"
    name = "invalid-file"
    summary = "A file that cannot be read, decoded or parsed"
    doc = """
## What it does
Reports a file that seedlint could not check, with the reason and position:

- `syntax-error`: the file does not parse as Python (for notebooks: the JSON does not load);
- `read-error`: the file cannot be read (permissions, a dangling or looping link)
  or decoded (invalid UTF-8 without a coding cookie, an unknown encoding, a NUL byte);
- `internal-error`: seedlint itself failed on this file. Please report it, with the file if you
  can.

The rest of the run goes on: every other file is still checked. A folder named like a
source file (`x.py`) is walked like any folder.

seedlint decodes and parses only the files that one of the selected rules could fire on: files
that contain the rule's names (`DataLoader`, `seed`, a capture region, ...) and, for RNG003 and
RNG004, an expression that could mean `torch.cuda.graph` or a `random`, `numpy.random` or
`torch.cuda` seeding function (`self.seed(...)` cannot). A file ruled out cannot have a
finding, so a syntax or encoding error in it is not reported: that is the Python compiler's (or
ruff's) job. A file that cannot be read at all is always reported.

## Why is this bad?
A file that is not checked may hide any of the other findings.

## Example
```python
def train(:
    ...
```

Use instead: code that parses with the Python that runs it.

## Options
Select or ignore it like any rule (`--ignore RNG000`).

## References
- ruff's `invalid-syntax` diagnostic, which this mirrors.
"""

    def triggers(self, options: AnalysisOptions) -> tuple[tuple[str, ...], ...]:
        return ((),)  # never fires from detection: the runner reports it

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        return iter(())
