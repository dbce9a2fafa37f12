"""Every rule fixture: the findings are exactly the ones written beside the code."""

from __future__ import annotations

from dataclasses import replace
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
    """Each rule that finds something when every rule runs (no pre-filter) passes the
    pre-filter (both stages), and the pre-filtered check finds exactly the same."""
    text = path.read_text(encoding="utf-8")
    settings = fixture_settings(text, FIXTURES)
    every_rule = check_text(text, str(path), settings, prefilter=False).findings
    firing = {rule.code for rule in selection(settings).firing(text.encode())}
    assert {f.code for f in every_rule} <= firing
    assert check_text(text, str(path), settings).findings == every_rule


def test_every_rule_has_fixtures() -> None:
    folders = {p.parent.name for p in rule_fixtures()}
    for rule in RULES:
        if rule.code != "RNG000":
            assert rule.code in folders, f"{rule.code} has no fixtures"


def test_every_rule_fires_in_its_fixtures() -> None:
    """Each rule, run alone on its own fixtures, finds something (the comments are checked
    against the findings by test_fixture_findings)."""
    fired: set[str] = set()
    for path in rule_fixtures():
        text = path.read_text(encoding="utf-8")
        code = path.parent.name
        settings = replace(fixture_settings(text, FIXTURES), select=(code,))
        found = check_text(text, str(path), settings, prefilter=False).findings
        fired.update(f.code for f in found if f.code == code)
    assert {r.code for r in RULES if r.code != "RNG000"} <= fired


def test_assignment_statements_are_those_a_full_walk_finds() -> None:
    """RNG008 follows where a sampler is stored through the module's assignment statements,
    and RNG005 the RNG objects a dataset's methods store, found by a walk of the statements
    only: the same ones as a walk of every node, of the module and of each function."""
    import ast
    import warnings

    from seedlint.analysis.names import assignment_statements

    compared = 0
    for path in sorted((Path(__file__).parent / "fixtures").rglob("*.py")):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue
        walked = [n for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign))]
        assert {id(n) for n in assignment_statements(tree)} == {id(n) for n in walked}, path
        for function in ast.walk(tree):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inside = [
                    n for n in ast.walk(function) if isinstance(n, (ast.Assign, ast.AnnAssign))
                ]
                assert [id(n) for n in assignment_statements(function)] == [id(n) for n in inside]
        compared += 1
    assert compared > 50
