"""Every rule's own examples (``Rule.valid`` / ``Rule.invalid``), which its documentation
shows: each valid one stays clean, each invalid one is flagged, and fixed as it says."""

from __future__ import annotations

import pytest

from seedlint.config import Settings
from seedlint.engine.check import check_text
from seedlint.engine.fix import applies, fix_text
from seedlint.rules import RULES
from seedlint.rules.base import Invalid, Rule, Valid

CASES = [
    pytest.param(rule, example, id=f"{rule.code}-{kind}-{index}")
    for rule in RULES
    for kind, examples in (("valid", rule.valid), ("invalid", rule.invalid))
    for index, example in enumerate(examples)
]


def test_every_rule_has_examples() -> None:
    for rule in RULES:
        assert rule.invalid and rule.valid, rule.code


@pytest.mark.parametrize(("rule", "example"), CASES)
def test_example(rule: type[Rule], example: Valid | Invalid) -> None:
    settings = Settings(select=(rule.code,))
    codes = [f.code for f in check_text(example.code, "example.py", settings).findings]
    if isinstance(example, Valid):
        assert codes == []
        return
    assert codes == [rule.code] * example.count
    result = fix_text(example.code, "example.py", settings, unsafe=example.unsafe)
    assert result.error is None
    if example.fixed is None:
        assert result.new_text == example.code
        return
    assert result.new_text == example.fixed
    if example.unsafe:  # without --unsafe-fixes the code is left alone
        assert fix_text(example.code, "example.py", settings, unsafe=False).new_text == (
            example.code
        )
    again = fix_text(example.fixed, "example.py", settings, unsafe=True)
    assert again.new_text == example.fixed
    left = check_text(example.fixed, "example.py", settings).findings
    assert not [f for f in left if applies(f, example.unsafe)]
