"""Reading rule fixtures: the expected findings are written next to the code.

A line ending in ``# error: RNG001`` (or ``# error: RNG001, RNG004``) expects those findings to
start on that line. A first line ``# fixture-config: {json}`` sets Settings fields for the file.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from dataclasses import replace
from pathlib import Path

from seedlint.config import Settings

FIXTURES = Path(__file__).parent / "fixtures"
_EXPECT = re.compile(r"#\s*error:\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")
_CONFIG = re.compile(r"#\s*fixture-config:\s*(?P<json>\{.*\})")


def rule_fixtures() -> list[Path]:
    return sorted(FIXTURES.glob("RNG*/*.py"))


def expected_findings(text: str) -> list[tuple[int, str]]:
    expected = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            match = _EXPECT.search(token.string)
            if match:
                for code in match.group("codes").split(","):
                    expected.append((token.start[0], code.strip()))
    return sorted(expected)


def fixture_settings(text: str, root: Path) -> Settings:
    settings = Settings(root=root)
    first = text.splitlines()[0] if text else ""
    match = _CONFIG.search(first)
    if match:
        data = json.loads(match.group("json"))
        settings = replace(
            settings, **{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        )
    return settings
