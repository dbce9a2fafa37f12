"""Paths given with ``..`` are normalised before exclusion globs see them."""

from __future__ import annotations

from pathlib import Path

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
