"""What a fix needs to know of the settings (no libcst here: detection imports it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FixOptions:
    """The seed to write when the code names none (``fix-seed``)."""

    fix_seed: int = 0
