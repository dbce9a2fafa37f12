"""Every pre-filter word of every rule, alone: a word the pre-filter needs but a finding can do
without hides that finding, and a word dropped from a group hides the findings that only that
word let through. So, from each rule's own ``triggers()`` (a new rule or word is covered
without editing this file):

- each word of each group has a program (``tests/fixtures/prefilter_words/``, the rule
  fixtures, the rules' examples) on which the rule fires with that word as the only word of
  its group in the file;
- on every one of those programs, the pre-filter lets through exactly what running every rule
  finds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import pytest

from seedlint.config import Settings
from seedlint.engine.check import check_text
from seedlint.engine.selection import analysis_options, selection
from seedlint.prefilter.words import essential
from seedlint.rules import RULES
from tests.fixtures_support import FIXTURES, fixture_settings, rule_fixtures

WORD_PROGRAMS = FIXTURES / "prefilter_words"


@dataclass(frozen=True)
class Program:
    name: str
    text: str  # a `# fixture-config:` line blanked: its words are not the program's
    settings: Settings

    def fires(self) -> frozenset[str]:
        """The rules that fire on it when every rule runs (no pre-filter)."""
        found = check_text(self.text, self.name, self.settings, prefilter=False).findings
        return frozenset(f.code for f in found)


def _program(name: str, text: str) -> Program:
    settings = fixture_settings(text, FIXTURES)
    if text.startswith("# fixture-config:"):
        text = "\n" + text.split("\n", 1)[1]
    return Program(name, text, settings)


@cache
def programs() -> tuple[Program, ...]:
    found = [
        _program(f"{p.parent.name}/{p.name}", p.read_text(encoding="utf-8"))
        for p in sorted(WORD_PROGRAMS.glob("*.py")) + rule_fixtures()
    ]
    for rule in RULES:
        for index, example in enumerate(rule.invalid):
            found.append(_program(f"{rule.code}.invalid[{index}]", example.code))
    return tuple(found)


def groups(rule_code: str, settings: Settings) -> list[tuple[str, ...]]:
    """The rule's word groups as the pre-filter looks them up (each word's shorter words
    dropped: `set_seed` is there whenever `seed` is)."""
    rule = next(r for r in RULES if r.code == rule_code)()
    return [essential(group) for group in rule.triggers(analysis_options(settings))]


def wanted() -> list[tuple[str, int, str]]:
    """(rule, group index, word) for every word of every group, under the default settings
    and under each program's configuration (which adds words)."""
    settings = [Settings(root=FIXTURES), *{p.settings for p in programs()}]
    words = set()
    for rule in RULES:
        for chosen in settings:
            for index, group in enumerate(groups(rule.code, chosen)):
                words.update((rule.code, index, word) for word in group)
    return sorted(words)


def alone(program: Program, rule_code: str, index: int, word: str) -> bool:
    """The word is in the program, and no other word of its group."""
    group = groups(rule_code, program.settings)[index]
    raw = program.text.encode("utf-8")
    return word.encode() in raw and not any(
        other.encode() in raw for other in group if other != word
    )


def test_every_rule_has_pre_filter_words() -> None:
    for rule in RULES:
        if rule.code != "RNG000":
            assert any(groups(rule.code, Settings())), f"{rule.code} has no pre-filter words"


@pytest.mark.parametrize(("code", "index", "word"), wanted(), ids=lambda v: str(v))
def test_each_pre_filter_word_alone_lets_the_finding_through(
    code: str, index: int, word: str
) -> None:
    proofs = [p for p in programs() if alone(p, code, index, word) and code in p.fires()]
    assert proofs, (
        f"no program on which {code} fires with `{word}` as the only word of its pre-filter "
        f"group {index}: add one to {WORD_PROGRAMS.relative_to(FIXTURES.parent.parent)}"
    )
    for program in proofs:
        firing = {r.code for r in selection(program.settings).firing(program.text.encode())}
        assert code in firing, f"the pre-filter hides {code} in {program.name}"
        checked = check_text(program.text, program.name, program.settings).findings
        assert code in {f.code for f in checked}, program.name


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_pre_filter_never_hides_a_finding_of_any_program(program: Program) -> None:
    every_rule = check_text(program.text, program.name, program.settings, prefilter=False)
    firing = {r.code for r in selection(program.settings).firing(program.text.encode())}
    detected = {f.code for f in every_rule.findings} - {"RNG000"}  # not a pre-filtered rule
    assert detected <= firing
    filtered = check_text(program.text, program.name, program.settings).findings
    assert filtered == every_rule.findings


def test_word_programs_each_prove_a_word() -> None:
    """Every program in the folder fires, and is the only proof of at least one word (no
    dead weight in the folder)."""
    keys = wanted()
    for program in programs():
        if not program.name.startswith(WORD_PROGRAMS.name + "/"):
            continue
        fired = program.fires()
        assert fired, f"{program.name}: no rule fires on it"
        assert any(
            code in fired and alone(program, code, index, word) for code, index, word in keys
        ), f"{program.name} proves no pre-filter word alone"
