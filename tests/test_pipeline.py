"""One pipeline: the CLI, stdin and the flake8 plugin reach the same check, and --fix analyses a
file once per round (the first round's analysis is the file's check)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from seedlint.config import Settings
from seedlint.engine import check, fix
from seedlint.flake8_plugin import SeedlintChecker
from seedlint.run.files import FileTask, check_files, fix_files
from tests.support import UNSEEDED_SCRIPT


def counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = check.check_text

    def counted(text: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(check, "check_text", counted)
    monkeypatch.setattr(fix, "check_text", counted)
    return calls


def test_fix_analyses_once_per_round(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "train.py"
    path.write_text(UNSEEDED_SCRIPT)
    calls = counting(monkeypatch)
    report = fix_files([FileTask(path, "train.py", Settings(root=tmp_path))], 1)
    assert [f.code for f in report.fixed] == ["RNG001"]
    # One round changed the file: its check before, and the check of the result (which finds
    # nothing left to fix, so no further round runs).
    assert len(calls) == 2
    assert calls[0] == UNSEEDED_SCRIPT and calls[1] == path.read_text()


def test_a_file_with_nothing_to_fix_is_analysed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "train.py"
    path.write_text(UNSEEDED_SCRIPT.replace("shuffle=True", "shuffle=True  # noqa: RNG001"))
    calls = counting(monkeypatch)
    report = fix_files([FileTask(path, "train.py", Settings(root=tmp_path))], 1)
    assert report.fixed == [] and len(calls) == 1


def test_cli_stdin_and_flake8_agree(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(UNSEEDED_SCRIPT)
    settings = Settings(root=tmp_path)
    from_file = check_files([FileTask(path, "train.py", settings)], 1, None)
    from_stdin = check_files(
        [FileTask(Path("train.py"), "train.py", settings, UNSEEDED_SCRIPT.encode())], 1, None
    )
    plugin = SeedlintChecker(
        ast.parse(UNSEEDED_SCRIPT), str(path), UNSEEDED_SCRIPT.splitlines(True)
    )
    from_flake8 = [(row, col, message.split(" ", 1)[0]) for row, col, message, _ in plugin.run()]
    assert [(f.code, f.row, f.col) for f in from_file] == [("RNG001", 4, 9)]
    assert from_stdin == from_file
    assert from_flake8 == [(f.row, f.col, f.code) for f in from_file]
