"""The shape every rule shares (after Fixit's ``LintRule`` and ruff's ``Violation``).

A rule is one class in one module: its code, kebab-case name, one-line summary, the words a file
must contain for it to fire (the pre-filter), its detection over :class:`ModuleFacts` (yielding
its own typed :class:`Violation`), its fix, its documentation, and its examples. The examples
are the rule's tests (``tests/test_examples.py`` runs every one: detection and fix) and the
Example / Use instead section of its documentation.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Optional

from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
from seedlint.core import Applicability, FixAvailability
from seedlint.prefilter.words import WordGroups

if TYPE_CHECKING:  # libcst stays out of the plain check path
    from seedlint.fixes.context import Change, FixContext
    from seedlint.fixes.options import FixOptions


@dataclass(frozen=True)
class Violation:
    """A finding as a rule reports it: the node it points at. Each rule subclasses it with the
    data it found, and says what is wrong in :attr:`message`."""

    node: ast.AST

    @property
    def message(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class FixInfo:
    """The fix a rule offers for a violation, known before any code is rewritten."""

    applicability: Applicability
    title: str  # what the fix writes, with the real seed expression


@dataclass(frozen=True)
class Valid:
    """Code on which the rule must not fire."""

    code: str


@dataclass(frozen=True)
class Invalid:
    """Code on which the rule fires ``count`` times; ``fixed``: the code after ``--fix`` (with
    ``--unsafe-fixes`` when ``unsafe``), None when there is no fix."""

    code: str
    fixed: Optional[str] = None
    unsafe: bool = False
    count: int = 1


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    fix_availability: ClassVar[FixAvailability] = FixAvailability.NONE
    # Every fix the rule offers is unsafe (``--fix`` alone never applies one): ``seedlint
    # rules`` says "unsafe fix" rather than "fixable".
    fix_always_unsafe: ClassVar[bool] = False
    # The rule's documentation in markdown, from "## What it does" to "## References", without
    # the Example section (rendered from the first invalid and valid examples).
    doc: ClassVar[str]
    valid: ClassVar[tuple[Valid, ...]] = ()
    invalid: ClassVar[tuple[Invalid, ...]] = ()
    # Checks the calls of the project's own loader classes (``ProjectLoaders``): a file that
    # names one of them passes the rule's loader word group (the first) without a loader word.
    project_loaders: ClassVar[bool] = False

    def triggers(self, options: AnalysisOptions) -> WordGroups:
        """Words a file must contain for this rule to fire: every group needs one hit.

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

    def fix_info(
        self, facts: ModuleFacts, violation: Violation, options: FixOptions
    ) -> Optional[FixInfo]:
        """The fix :meth:`fix` makes for ``violation``, or None when it makes none. Decided from
        the ``ast`` facts alone, at detection time (no libcst): it marks findings fixable
        (``[*]``), feeds the summary and the cache, and must agree with :meth:`fix`."""
        return None

    def fix(self, ctx: FixContext, violation: Violation) -> Optional[Change]:
        """The codemod: what to change in the module's libcst tree (``ctx.module``) to fix
        ``violation``; None when there is nothing to do. Called only when fixing, showing a
        diff, or filling the json output's edits."""
        return None

    @classmethod
    def documentation(cls) -> str:
        lines = [f"# {cls.name} ({cls.code})", ""]
        if cls.fix_availability is not FixAvailability.NONE:
            lines += [f"Fix is {cls.fix_availability.value} available.", ""]
        lines.append(_with_examples(cls.doc.strip(), cls._example_section()))
        return "\n".join(lines) + "\n"

    @classmethod
    def _example_section(cls) -> str:
        if not cls.invalid:
            return ""
        first = cls.invalid[0]
        parts = ["## Example", "```python", first.code.strip("\n"), "```", ""]
        if first.fixed is not None:
            parts += ["Use instead (what `--fix` writes):", "```python"]
            parts += [first.fixed.strip("\n"), "```", ""]
        elif cls.valid:
            parts += ["Use instead:", "```python", cls.valid[0].code.strip("\n"), "```", ""]
        return "\n".join(parts)


_AFTER_EXAMPLE = ("## Fix safety", "## Options", "## References")


def _with_examples(doc: str, section: str) -> str:
    """``doc`` with the Example section placed before its fix-safety (or options, or
    references) section."""
    if not section:
        return doc
    for heading in _AFTER_EXAMPLE:
        index = doc.find(heading)
        if index >= 0:
            return doc[:index] + section + "\n" + doc[index:]
    return doc + "\n\n" + section.rstrip("\n")
