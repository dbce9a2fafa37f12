"""Paths given with ``..`` are normalised before exclusion globs see them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support import UNSEEDED_SCRIPT, run_seedlint


def _tree(tmp_path: Path, exclude: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f'[tool.seedlint]\nextend-exclude = ["{exclude}"]\n')
    for name in ("tests", "src"):
        (tmp_path / name).mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(UNSEEDED_SCRIPT)
    (tmp_path / "src" / "train.py").write_text(UNSEEDED_SCRIPT)


def _reported(proc: object) -> set[str]:
    out: str = proc.stdout  # type: ignore[attr-defined]
    return {line.split(":")[0] for line in out.splitlines() if ":" in line}


def test_excludes_apply_to_a_walk_of_a_parent_folder(tmp_path: Path) -> None:
    _tree(tmp_path, "tests/*")
    proc = run_seedlint(
        "check",
        "--no-cache",
        "--output-format",
        "concise",
        "..",
        cwd=tmp_path / "tests",
        clean_env=True,
    )
    assert proc.returncode == 1, proc.stderr
    assert _reported(proc) == {"../src/train.py"}


def test_force_exclude_with_dotdot_excludes_only_what_matches(tmp_path: Path) -> None:
    _tree(tmp_path, "tests/*")
    args = ("check", "--no-cache", "--force-exclude", "--output-format", "concise")
    kept = run_seedlint(*args, "../src/train.py", cwd=tmp_path / "tests", clean_env=True)
    assert kept.returncode == 1 and _reported(kept) == {"../src/train.py"}, kept.stdout
    dropped = run_seedlint(*args, "../tests/test_a.py", cwd=tmp_path / "src", clean_env=True)
    assert dropped.returncode == 0 and _reported(dropped) == set(), dropped.stdout


@pytest.mark.parametrize("top", [".", "pkg", "./pkg", "../project/pkg"])
def test_walked_paths_are_the_names_the_folder_listing_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, top: str
) -> None:
    """The walk makes each file's path from its folder's without parsing it again (where
    pathlib can): the same paths as ``Path(os.path.join(folder, name))``."""
    from seedlint.config import SettingsResolver
    from seedlint.run.discovery import discover

    project = tmp_path / "project"
    for name in ("pkg/a.py", "pkg/sub/b.py", "pkg/sub/deeper/c.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x = 1\n")
    monkeypatch.chdir(project)
    found = [c.path for c in discover([Path(top)], SettingsResolver({}))]
    expected = sorted(
        Path(os.path.join(folder, name))
        for folder, _, names in os.walk(top)
        for name in names
        if name.endswith(".py")
    )
    assert sorted(found) == expected
    assert sorted(map(str, found)) == sorted(map(str, expected))
