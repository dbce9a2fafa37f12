"""Valid code that CPython compiles, however deeply nested, is checked (not RNG000)."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedlint.config import Settings
from seedlint.engine.check import check_bytes
from seedlint.engine.fix import fix_bytes
from tests.support import run_seedlint

HEAD = (
    "import torch\nfrom torch.utils.data import DataLoader\n"
    "loader = DataLoader([], shuffle=True)\nx = 1\n"
)


def elif_chain(arms: int) -> str:
    body = "".join(f"elif x == {i}:\n    pass\n" for i in range(1, arms))
    return HEAD + "if x == 0:\n    pass\n" + body


def long_sum(terms: int) -> str:
    return HEAD + "y = " + " + ".join(f"x{i}" for i in range(terms)) + "\n"


CASES = {"elif-500": elif_chain(500), "sum-500": long_sum(500), "elif-2000": elif_chain(2000)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_deep_code_that_compiles_is_checked_and_fixed(name: str, tmp_path: Path) -> None:
    text = CASES[name]
    compile(text, name, "exec")  # CPython accepts it
    settings = Settings(root=tmp_path)
    codes = [f.code for f in check_bytes(text.encode(), "a.py", settings).findings]
    assert codes == ["RNG001"]
    fixed = fix_bytes(text.encode(), "a.py", settings, False)
    assert not fixed.errors and [f.code for f in fixed.fixed] == ["RNG001"]
    compile(fixed.new_raw, name, "exec")


def test_the_command_line_checks_a_500_arm_elif_chain(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(elif_chain(500))
    (tmp_path / "b.py").write_text(long_sum(500))
    proc = run_seedlint("check", "--no-cache", "--output-format", "concise", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert "RNG000" not in proc.stdout and proc.stdout.count("RNG001") == 2, proc.stdout


def test_code_nested_beyond_what_cpython_compiles_is_still_rng000(tmp_path: Path) -> None:
    text = long_sum(20_000)
    findings = check_bytes(text.encode(), "a.py", Settings(root=tmp_path)).findings
    assert [f.code for f in findings] == ["RNG000"]
