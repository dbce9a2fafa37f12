"""The documentation agrees with the code: rule pages, the rule table, the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from seedlint.core import FixAvailability
from seedlint.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## References")


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_page_is_generated_from_the_rule(rule: type) -> None:
    page = ROOT / "docs" / "rules" / f"{rule.code}.md"
    assert page.read_text(encoding="utf-8") == rule.documentation(), (
        f"regenerate with: python -m seedlint rule {rule.code} > docs/rules/{rule.code}.md"
    )


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_page_sections(rule: type) -> None:
    doc = rule.documentation()
    positions = [doc.index(section) for section in SECTIONS]
    assert positions == sorted(positions)
    if rule.fix_availability is not FixAvailability.NONE:
        assert "## Fix safety" in doc
        assert "Use instead (what `--fix` writes):" in doc


@pytest.mark.parametrize("name", ["README.md", "docs/index.md"])
def test_rule_tables_list_every_rule(name: str) -> None:
    text = (ROOT / name).read_text(encoding="utf-8")
    for rule in RULES:
        assert re.search(rf"\|\s*\[?`?{rule.code}`?", text), f"{rule.code} missing in {name}"
        assert rule.name in text


def test_no_false_premise_in_docs() -> None:
    """torch.manual_seed seeds every CUDA device; workers already seed random/torch/np.random."""
    texts = [r.documentation() for r in RULES]
    texts.append((ROOT / "README.md").read_text(encoding="utf-8"))
    for text in texts:
        assert "add `torch.cuda.manual_seed_all`" not in text
        assert not re.search(r"workers? (are|is) (not|never) seeded", text, re.IGNORECASE)
