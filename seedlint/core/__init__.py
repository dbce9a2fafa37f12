"""The bottom layer: findings, fixes, edits and their enums. Imports nothing of seedlint's."""

from seedlint.core.findings import (
    Applicability,
    Edit,
    Finding,
    Fix,
    FixAvailability,
    Origin,
    Problem,
)

__all__ = ["Applicability", "Edit", "Finding", "Fix", "FixAvailability", "Origin", "Problem"]
