"""Added code respects the project's line length (issue 13): ``[tool.ruff] line-length``
(or ``ruff.toml``), else ``[tool.black] line-length``, else 88; a longer call is split one
argument per line with a trailing comma, as black and ruff format write it."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedlint.config import SettingsResolver, find_line_length
from tests.support import run_seedlint

ROOT = Path(__file__).resolve().parent.parent
BEFORE = """\
import torch
from torch.utils.data import DataLoader


def build(dataset, seed):
    if dataset:
        return DataLoader(dataset, batch_size=8, shuffle=True), len(dataset)
"""
ONE_LINE = (
    "        return DataLoader(dataset, batch_size=8, shuffle=True, "
    "generator=torch.Generator().manual_seed(seed)), len(dataset)\n"
)
SPLIT = """\
        return DataLoader(
            dataset,
            batch_size=8,
            shuffle=True,
            generator=torch.Generator().manual_seed(seed),
        ), len(dataset)
"""


@pytest.mark.parametrize(
    ("config", "name", "expected"),
    [
        ("", None, SPLIT),  # no configuration: 88
        ("[tool.ruff]\nline-length = 130\n", "pyproject.toml", ONE_LINE),
        ("[tool.ruff]\n", "pyproject.toml", SPLIT),  # ruff's default, 88
        ("[tool.black]\nline-length = 130\n", "pyproject.toml", ONE_LINE),
        (
            "[tool.ruff]\nline-length = 100\n[tool.black]\nline-length = 130\n",
            "pyproject.toml",
            SPLIT,
        ),
        ("line-length = 130\n", "ruff.toml", ONE_LINE),
    ],
)
def test_line_length(tmp_path: Path, config: str, name: str | None, expected: str) -> None:
    if name:
        (tmp_path / name).write_text(config)
    package = tmp_path / "src"
    package.mkdir()
    (package / "train.py").write_text(BEFORE)
    result = run_seedlint(
        "check", "--no-cache", "--fix", "src", cwd=tmp_path, env={"PYTHONPATH": str(ROOT)}
    )
    assert result.returncode in (0, 1), result.stderr
    after = (package / "train.py").read_text()
    assert after.endswith(expected), after
    assert max(len(line) for line in after.splitlines()) <= (130 if expected == ONE_LINE else 88)
    compile(after, "train.py", "exec")


def test_nearest_configuration_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 79\n")
    inner = tmp_path / "sub"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # neither ruff nor black
    assert find_line_length(inner) == 79
    (inner / ".ruff.toml").write_text("line-length = 110\n")
    assert find_line_length(inner) == 110
    assert SettingsResolver({}).for_path(inner / "x.py").line_length == 110
    assert SettingsResolver({}, isolated=True).for_path(inner / "x.py").line_length is None
