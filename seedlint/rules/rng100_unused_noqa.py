"""RNG100: a ``# noqa`` naming seedlint codes that suppress nothing (ruff's RUF100, for the
``RNG`` codes only). The engine reports it, after every other rule has run on the file: only
then is it known which directives suppressed a finding."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
from seedlint.core import Finding
from seedlint.prefilter.words import WordGroups
from seedlint.rules.base import Invalid, Rule, Valid, Violation


class UnusedNoqa(Rule):
    code = "RNG100"
    name = "unused-noqa"
    summary = "A `# noqa` naming seedlint codes that suppress nothing"
    valid = (
        Valid(
            "import torch\nfrom torch.utils.data import DataLoader\n\n"
            "g = torch.Generator().manual_seed(0)\n"
            "loader = DataLoader(range(8), shuffle=True, generator=g)  # noqa: E501\n"
        ),
        Valid("import os  # noqa\n"),
    )
    invalid = (
        Invalid(
            "import torch\nfrom torch.utils.data import DataLoader\n\n"
            "g = torch.Generator().manual_seed(0)\n"
            "loader = DataLoader(range(8), shuffle=True, generator=g)  # noqa: RNG001\n"
        ),
        Invalid("x = 1  # noqa: RNG001, RNG001, RNG009, E501\n"),
    )
    doc = """
## What it does
Checks for `# noqa` comments naming seedlint's codes (`RNG...`) that suppress nothing on their
line, as ruff's `RUF100` does for ruff's codes. The message sorts the codes by reason:

- `unused`: the rule runs on the file, and finds nothing there;
- `non-enabled`: the rule does not run on the file (`select`, `ignore`, `per-file-ignores`,
  a `# seedlint: noqa: CODE` comment);
- `duplicated`: the code is named twice in the comment;
- `unknown`: no seedlint rule has this code (a typo, or a rule that was removed), as ruff's
  `RUF100` reported unknown codes before ruff moved them to `RUF102`.

Only `RNG` codes are judged: the other codes of a comment (`E501`, `F401`) and a blanket
`# noqa` belong to other tools, which seedlint cannot see run. A `# noqa` that names `RNG100`
itself is left alone.

## Why is this bad?
A `# noqa` that no longer suppresses anything was left behind (the code it silenced was fixed
or moved), or never worked (a mistyped code): it hides nothing today and will hide a real
finding tomorrow.

## Options
Like ruff's `RUF100`, this rule is off by default: the default `select` is `["RNG0"]` (every
detection rule). Turn it on with `extend-select = ["RNG100"]` (or `--extend-select RNG100`),
or `select = ["ALL"]` / `["RNG"]`. `--ignore-noqa` reads no suppression comment at all, so
this rule reports nothing then. seedlint does not remove the comment for you (ruff's `--fix`
does for `RUF100`): edit the line. The flake8 plugin never reports it (flake8 does its own
suppression).

## References
- ruff's [`unused-noqa` (RUF100)](https://docs.astral.sh/ruff/rules/unused-noqa/), which this
  mirrors, and [error suppression](https://docs.astral.sh/ruff/linter/#error-suppression).
"""

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        return (("noqa", "NOQA", "NoQA", "Noqa"),)

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        return iter(())  # the engine reports it (see `finding`)

    @classmethod
    def finding(
        cls,
        path: str,
        row: int,
        col: int,
        end_col: int,
        unmatched: Sequence[str] = (),
        disabled: Sequence[str] = (),
        duplicated: Sequence[str] = (),
        unknown: Sequence[str] = (),
    ) -> Finding:
        """The finding for the ``# noqa`` directive at (row, col..end_col), in ruff's
        words: ``Unused `noqa` directive (unused: `RNG001`; non-enabled: ...)``."""
        reasons = [
            f"{reason}: {', '.join(f'`{code}`' for code in codes)}"
            for reason, codes in (
                ("unused", unmatched),
                ("non-enabled", disabled),
                ("duplicated", duplicated),
                ("unknown", unknown),
            )
            if codes
        ]
        message = "Unused `noqa` directive"
        if reasons:
            message += f" ({'; '.join(reasons)})"
        return Finding(cls.code, cls.name, message, path, row, col, row, end_col)
