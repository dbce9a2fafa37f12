"""A user's mistake is one clear line and exit 2, never an "internal error" or a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import UNSEEDED_SCRIPT, run_seedlint

BAD_CONFIGS = {
    "not-utf8": b'[tool.seedlint]\nselect = ["RNG"]\n# caf\xe9\n',
    "nested": ("[tool.seedlint]\nx = " + "[" * 5000 + "]" * 5000 + "\n").encode(),
}


def _clean(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr[-2000:]
    assert "internal error" not in proc.stdout + proc.stderr, proc.stderr


@pytest.mark.parametrize("name", sorted(BAD_CONFIGS))
def test_an_unreadable_pyproject_is_a_configuration_error(tmp_path: Path, name: str) -> None:
    (tmp_path / "pyproject.toml").write_bytes(BAD_CONFIGS[name])
    (tmp_path / "a.py").write_text(UNSEEDED_SCRIPT)
    proc = run_seedlint("check", "a.py", cwd=tmp_path, clean_env=True)
    _clean(proc)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "pyproject.toml" in proc.stderr and "invalid TOML" in proc.stderr
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--select=RNG", "a.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    _clean(flake8)
    assert "RNG000 invalid seedlint configuration" in flake8.stdout, flake8.stdout


def test_closed_stdin_is_one_error_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from seedlint.cli import main; sys.stdin = None; "
            "raise SystemExit(main(['check', '-']))",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    _clean(proc)
    assert proc.returncode == 2 and "standard input" in proc.stderr
    shell = subprocess.run(
        f"{sys.executable} -m seedlint check - <&-",
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    _clean(shell)
    assert shell.returncode == 2 and shell.stderr.count("\n") == 1, shell.stderr


def test_stdin_twice_is_an_error(tmp_path: Path) -> None:
    proc = run_seedlint("check", "-", "-", cwd=tmp_path, stdin=UNSEEDED_SCRIPT)
    _clean(proc)
    assert proc.returncode == 2 and "standard input" in proc.stderr


@pytest.mark.parametrize("seed", [str(2**64), str(-(2**63) - 1)])
def test_a_fix_seed_torch_refuses_is_refused(tmp_path: Path, seed: str) -> None:
    (tmp_path / "a.py").write_text(UNSEEDED_SCRIPT)
    proc = run_seedlint("check", "--fix", f"--fix-seed={seed}", "a.py", cwd=tmp_path)
    _clean(proc)
    assert proc.returncode == 2 and "--fix-seed" in proc.stderr
    assert (tmp_path / "a.py").read_text() == UNSEEDED_SCRIPT
    (tmp_path / "pyproject.toml").write_text(f"[tool.seedlint]\nfix-seed = {seed}\n")
    proc = run_seedlint("check", "--fix", "a.py", cwd=tmp_path, clean_env=True)
    _clean(proc)
    assert proc.returncode == 2 and "fix-seed" in proc.stderr


@pytest.mark.parametrize("seed", [str(2**64 - 1), str(-(2**63))])
def test_the_ends_of_torchs_range_are_accepted(tmp_path: Path, seed: str) -> None:
    (tmp_path / "a.py").write_text(UNSEEDED_SCRIPT)
    proc = run_seedlint("check", "--fix", f"--fix-seed={seed}", "a.py", cwd=tmp_path)
    _clean(proc)
    assert proc.returncode == 0 and f"manual_seed({seed})" in (tmp_path / "a.py").read_text()
