"""Every rule fixture: the findings are exactly the ones written beside the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedlint.engine.check import check_text
from seedlint.engine.selection import selection
from seedlint.rules import RULES
from tests.fixtures_support import FIXTURES, expected_findings, fixture_settings, rule_fixtures


@pytest.mark.parametrize("path", rule_fixtures(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_findings(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    settings = fixture_settings(text, FIXTURES)
    analysis = check_text(text, str(path), settings)
    found = sorted((f.row, f.code) for f in analysis.findings)
    assert found == expected_findings(text)


@pytest.mark.parametrize("path", rule_fixtures(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_prefilter_never_hides_a_finding(path: Path) -> None:
    """Each rule with a finding in the file passes the pre-filter (both stages), and running
    every rule whatever the pre-filter says finds exactly the same."""
    text = path.read_text(encoding="utf-8")
    settings = fixture_settings(text, FIXTURES)
    firing = {rule.code for rule in selection(settings).firing(text.encode())}
    analysis = check_text(text, str(path), settings)
    assert {f.code for f in analysis.findings} <= firing
    assert analysis.findings == check_text(text, str(path), settings, prefilter=False).findings


def test_every_rule_has_fixtures() -> None:
    folders = {p.parent.name for p in rule_fixtures()}
    for rule in RULES:
        if rule.code != "RNG000":
            assert rule.code in folders, f"{rule.code} has no fixtures"


def test_every_rule_fires_in_its_fixtures() -> None:
    fired: set[str] = set()
    for path in rule_fixtures():
        fired.update(code for _, code in expected_findings(path.read_text(encoding="utf-8")))
    assert {r.code for r in RULES if r.code != "RNG000"} <= fired
