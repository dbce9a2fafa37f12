"""Jupyter notebooks: code cells checked as one program (placeholder)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from seedlint.config import Settings

if TYPE_CHECKING:
    from seedlint.runner import Analysis


def analyze_notebook(raw: bytes, display: str, settings: Settings) -> Analysis:
    raise NotImplementedError("notebooks are not supported yet")
