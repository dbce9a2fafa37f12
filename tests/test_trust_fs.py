"""Issue 34, part A: what a hostile repository or a careless user does to the file system side
of seedlint (FIFOs, broken configuration, deep paths, walks that leave the project, the cache
folder, the records of whole runs, linked files). Each test is one numbered case of the issue,
run through the real command line."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from seedlint.run.cache import Cache
from tests.support import UNSEEDED_SCRIPT, run_seedlint

FLAGGED = "RNG001"
HANG = 20  # seconds: a run that takes longer waits on a FIFO (each run here takes about 1 s)

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The key folder in the test's own folder (nothing written to the real home)."""
    return {"XDG_CACHE_HOME": str(tmp_path / "xdg"), **extra}


def _check(cwd: Path, *args: str, env: dict[str, str], timeout: float = HANG) -> Any:
    return run_seedlint(
        "check", "--output-format", "concise", *args, cwd=cwd, env=env, timeout=timeout,
        clean_env=True,
    )


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("seedlint: warning:")]


# -- case 1: a FIFO named x.py ------------------------------------------------------------------
@needs_fifo
@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("--no-cache", "."), id="check"),
        pytest.param((".",), id="check-cached"),
        pytest.param(("--no-cache", "a.py"), id="check-one-file"),
        pytest.param(("--fix", "."), id="fix"),
        pytest.param(("--diff", "."), id="diff"),
        pytest.param(("--no-cache", "x.py", "a.py"), id="named"),
    ],
)
def test_case_1_a_fifo_is_skipped_with_one_warning(tmp_path: Path, args: tuple[str, ...]) -> None:
    """A FIFO named like a source file (or ``.gitignore``, ``pyproject.toml``) is never opened
    for reading: one warning names it, every other file is checked."""
    root = tmp_path / "p"
    root.mkdir()
    (root / "a.py").write_text(UNSEEDED_SCRIPT)
    os.mkfifo(root / "x.py")
    (root / "sub").mkdir()
    os.mkfifo(root / "sub" / ".gitignore")
    os.mkfifo(root / "sub" / "pyproject.toml")
    (root / "sub" / "b.py").write_text(UNSEEDED_SCRIPT)
    proc = _check(root, *args, env=_env(tmp_path))
    assert "internal error" not in proc.stderr
    about_x = [line for line in _warnings(proc.stderr) if "x.py" in line]
    assert len(about_x) == 1 and "FIFO" in about_x[0], proc.stderr
    if "--fix" in args:
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "generator=" in (root / "a.py").read_text()
        assert "generator=" in (root / "sub" / "b.py").read_text()
    else:
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "a.py:4:10: RNG001" in proc.stdout or "a.py" in proc.stdout
    if args[-1] == ".":
        gitignore = [line for line in _warnings(proc.stderr) if ".gitignore" in line]
        assert len(gitignore) == 1, proc.stderr
        if "--fix" not in args and "--diff" not in args:
            assert "sub/b.py:4:10: RNG001" in proc.stdout, proc.stdout


# -- case 2: a formatter configuration that is not UTF-8, or nested too deeply -------------------
@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        pytest.param("ruff.toml", b'line-length = "\xff\xfe"\n', "not UTF-8", id="not-utf8"),
        pytest.param(
            ".ruff.toml", b"a = " + b"[" * 50_000 + b"]" * 50_000 + b"\n", "nested", id="nested"
        ),
    ],
)
def test_case_2_an_unreadable_configuration_is_one_line_and_exit_2(
    tmp_path: Path, name: str, content: bytes, reason: str
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "a.py").write_text(UNSEEDED_SCRIPT)
    (root / name).write_bytes(content)
    for args in (("--no-cache", "."), ("--fix", "a.py")):
        proc = _check(root, *args, env=_env(tmp_path))
        assert proc.returncode == 2, proc.stdout + proc.stderr
        lines = proc.stderr.splitlines()
        assert len(lines) == 1, proc.stderr
        assert "internal error" not in lines[0]
        assert lines[0].startswith(f"seedlint: error: {root / name}: ") and reason in lines[0]
    assert (root / "a.py").read_text() == UNSEEDED_SCRIPT


# -- case 4: no walk leaves the project (a loose file, files from unrelated trees) ---------------
@needs_fifo
def test_case_4_no_walk_of_the_home_folder_or_above(tmp_path: Path) -> None:
    """Files with no root marker above them: the project index walks no folder that holds
    the user's home (a FIFO there would hang the run), and the root search stops below the
    home, even when the home is a git repository (dotfiles)."""
    home = tmp_path / "home"
    for folder in ("a", "b", "c"):
        (home / folder).mkdir(parents=True)
    (home / "a" / "x.py").write_text(UNSEEDED_SCRIPT)
    (home / "b" / "y.py").write_text(UNSEEDED_SCRIPT)
    os.mkfifo(home / "c" / "z.py")  # read by any walk of the home folder
    env = _env(tmp_path, HOME=str(home))
    proc = _check(tmp_path, "--no-cache", "home/a/x.py", "home/b/y.py", env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.count(FLAGGED) == 2
    assert "z.py" not in proc.stderr, proc.stderr  # never walked, not even to skip it
    (home / ".git").mkdir()  # a home folder kept in git: still no project
    proc = _check(home / "a", "--no-cache", "x.py", env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "z.py" not in proc.stderr, proc.stderr


# -- case 11: a path a thousand folders deep ------------------------------------------------------
def test_case_11_a_path_a_thousand_folders_deep(tmp_path: Path) -> None:
    folder = tmp_path
    os.chdir(tmp_path)
    try:
        for _ in range(1000):  # one folder at a time: os.makedirs recurses
            os.mkdir("d")
            os.chdir("d")
        Path("a.py").write_text(UNSEEDED_SCRIPT)
    finally:
        os.chdir(Path(__file__).parent)
    deep = "/".join(["d"] * 1000) + "/a.py"
    for args in (("--no-cache", deep), (deep,), ("--no-cache", ".")):
        proc = _check(folder, *args, env=_env(tmp_path))
        assert proc.returncode == 1, proc.stderr[-500:]
        assert "internal error" not in proc.stderr
        assert proc.stdout.count(FLAGGED) == 1


__all__ = ["Cache", "json", "sys"]
