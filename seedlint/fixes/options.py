"""What a fix needs to know of the settings (no libcst here: detection imports it)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_LINE_LENGTH = 88  # black's and ruff's default


@dataclass(frozen=True)
class FixOptions:
    """``fix_seed``: the literal a fix may write in a script that names no seed; ``fix_seed_set``:
    whether the user set it (only then is it written outside a script's unseeded entry point);
    ``line_length``: the project's line length (a longer call is split one argument per line)."""

    fix_seed: int = 0
    fix_seed_set: bool = False
    line_length: int = DEFAULT_LINE_LENGTH
