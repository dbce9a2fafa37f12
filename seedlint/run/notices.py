"""Warnings on stderr, each said once per process: the walk of the checked files and the walks
of the project index see the same FIFO, and the findings' cache and the project's records meet
the same unwritable folder."""

from __future__ import annotations

import sys
from typing import Optional

_SHOWN: set[str] = set()


def warn(message: str, key: Optional[str] = None) -> None:
    """Print ``seedlint: warning: message`` unless a warning of the same ``key`` (the message
    itself by default) was printed already."""
    seen = message if key is None else key
    if seen in _SHOWN:
        return
    _SHOWN.add(seen)
    print(f"seedlint: warning: {message}", file=sys.stderr)


def shown(key: str) -> bool:
    """Whether a warning of ``key`` was printed."""
    return key in _SHOWN
