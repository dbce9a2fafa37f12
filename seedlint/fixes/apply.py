"""Applying fixes (placeholder until the codemods land)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Optional

from seedlint.config import Settings
from seedlint.diagnostics import Finding, Fix
from seedlint.runner import Job


@dataclass
class FixOutcome:
    remaining: list[Finding] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)
    diff: str = ""
    new_raw: bytes = b""


def describe_fix(finding: Finding, settings: Settings) -> Optional[Fix]:
    return None


def fix_jobs(jobs: Sequence[Job], args: argparse.Namespace, processes: int) -> FixOutcome:
    raise NotImplementedError


def fix_bytes(raw: bytes, display: str, settings: Settings, unsafe: bool) -> FixOutcome:
    raise NotImplementedError
