"""The shape every rule shares (after Fixit's ``LintRule`` and ruff's ``Violation``).

A rule is one class in one module: its code, kebab-case name, one-line summary, the names a file
must contain for it to fire (the pre-filter), its detection over :class:`ModuleFacts`, and its
documentation (the text of ``docs/rules/<CODE>.md`` and of ``seedlint rule <CODE>``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Optional

from seedlint.analysis.facts import AnalysisOptions, ModuleFacts

if TYPE_CHECKING:  # libcst stays out of the plain check path
    from seedlint.fixes.context import Change, FixContext


@dataclass(frozen=True)
class Violation:
    """A finding as a rule reports it: the node it points at and what is wrong."""

    node: ast.AST
    message: str
    # Data a fix needs (for example the capture region a seeding call sits in).
    context: Optional[object] = None


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    # "Fix is always available." / "Fix is sometimes available." / no fix
    fix_availability: ClassVar[Optional[str]] = None
    # The rule's documentation in markdown, from "## What it does" to "## References".
    doc: ClassVar[str]

    def triggers(self, options: AnalysisOptions) -> tuple[tuple[str, ...], ...]:
        """Substrings a file must contain for this rule to fire: every group needs one hit.

        The pre-filter reads these, so they must cover every spelling the rule resolves.
        """
        raise NotImplementedError

    def may_fire(self, raw: bytes, options: AnalysisOptions) -> bool:
        """The pre-filter's second, finer stage, asked only of a file that holds the rule's
        words: False only when the rule cannot fire on the file (it must never hide a finding;
        every fixture tests that). Most rules need no second stage."""
        return True

    def check(self, facts: ModuleFacts) -> Iterator[Violation]:
        raise NotImplementedError

    def fix_info(self, facts: ModuleFacts, violation: Violation) -> Optional[tuple[str, str]]:
        """``(applicability, message)`` of the fix :meth:`fix` makes for ``violation``, or None
        when it makes none. Decided from the ``ast`` facts alone, at detection time (no libcst):
        it marks findings fixable (``[*]``), feeds the summary and the cache, and must agree with
        :meth:`fix`. ``applicability`` is ``"safe"`` or ``"unsafe"``."""
        return None

    def fix(self, ctx: FixContext, violation: Violation) -> Optional[Change]:
        """The codemod: what to change in the module's libcst tree (``ctx.module``) to fix
        ``violation``; None when there is nothing to do. Called only when fixing, showing a
        diff, or filling the json output's edits."""
        return None

    @classmethod
    def documentation(cls) -> str:
        lines = [f"# {cls.name} ({cls.code})", ""]
        if cls.fix_availability:
            lines += [f"Fix is {cls.fix_availability} available.", ""]
        lines.append(cls.doc.strip())
        return "\n".join(lines) + "\n"
