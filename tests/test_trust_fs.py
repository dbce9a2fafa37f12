"""Issue 34, part A: what a hostile repository or a careless user does to the file system side
of seedlint (FIFOs, broken configuration, deep paths, walks that leave the project, the cache
folder, the records of whole runs, linked files). Each test is one numbered case of the issue,
run through the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
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
        "check",
        "--output-format",
        "concise",
        *args,
        cwd=cwd,
        env=env,
        timeout=timeout,
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
        pytest.param(("--no-cache", "a.py"), id="check-one-file"),
        pytest.param(("--fix", "."), id="fix"),
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
    try:
        for args in ((deep,), ("--no-cache", ".")):
            proc = _check(folder, *args, env=_env(tmp_path))
            assert proc.returncode == 1, proc.stderr[-500:]
            assert "internal error" not in proc.stderr
            assert proc.stdout.count(FLAGGED) == 1
    finally:
        # Removed here: pytest's later clean-up of old temporary folders (shutil.rmtree)
        # recurses once per level and would end a later session with a RecursionError.
        subprocess.run(["rm", "-rf", str(folder / "d")], check=False)


# -- cases 3 and 13: the record of a whole run ----------------------------------------------------
MANY = 70  # more files than a run that keeps no record of itself (`run.files._RUN_FILES`)
LOADERS = "from torch.utils.data import DataLoader\n\n\nclass FastLoader(DataLoader):\n    pass\n"
USES = "from inner.loaders import FastLoader\n\nb = FastLoader(range(8), shuffle=True)\n"
USES_FINDING = "uses.py:3:5: RNG001"


def _project(tmp_path: Path) -> Path:
    """``outer/inner``: many modules, one that makes a ``FastLoader`` of ``inner.loaders``,
    an import that reaches it only from a root above ``inner``."""
    inner = tmp_path / "outer" / "inner"
    inner.mkdir(parents=True)
    for index in range(MANY):
        (inner / f"m{index:02d}.py").write_text(f"x = {index}\n")
    (inner / "loaders.py").write_text(LOADERS)
    (inner / "uses.py").write_text(USES)
    return inner


def _age(root: Path) -> None:
    """The modification time of every file written just now 10 s back: stat keys a run
    trusts (and records) at once; the others are left alone (their stat keys unchanged, as
    a run record holds them)."""
    for path in root.rglob("*.py"):
        info = path.stat()
        if info.st_mtime_ns > time.time_ns() - 5 * 10**9:
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns - 10**10))


def _twice(inner: Path, env: dict[str, str]) -> str:
    """The output of a warm run that reads the run's record (the run before it keeps it)."""
    _age(inner.parent)
    first = _check(inner, ".", env=env).stdout
    assert sorted(inner.glob(".seedlint_cache/*/run-*.json")), "no record of the run kept"
    second = _check(inner, ".", env=env).stdout
    assert first == second, (first, second)
    return second


def test_case_3_every_input_of_a_run_record_changes_its_verdict(tmp_path: Path) -> None:
    """The record of a whole run is kept for the root, the settings and every file that
    decides a finding: each change gives the verdict a run without any cache gives."""
    inner = _project(tmp_path)
    env = _env(tmp_path)
    marker = inner.parent / "pyproject.toml"
    marker.write_text("[project]\nname = 'outer'\n")  # the root: `outer`
    assert USES_FINDING in _twice(inner, env)
    marker.unlink()  # the root: `inner`, where `inner.loaders` is no module
    assert "All checks passed!" in _twice(inner, env)
    marker.write_text("[project]\nname = 'outer'\n")  # and back
    assert USES_FINDING in _twice(inner, env)
    # The project index's inputs: the module the loader class comes from.
    (inner / "loaders.py").write_text("class FastLoader:\n    pass\n")
    assert "All checks passed!" in _twice(inner, env)
    # The settings: the class named a loader class.
    (inner / ".seedlint.toml").write_text("dataloader-classes = ['inner.loaders.FastLoader']\n")
    assert USES_FINDING in _twice(inner, env)


def test_case_13_a_signed_run_record_is_checked_entry_by_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run record signed with this user's key (by an older build, say) is checked as a
    table's entries are: every path one of the run's files, every row and column within the
    file. A record that fails is ignored whole and the files are checked again."""
    inner = _project(tmp_path)
    (inner.parent / "pyproject.toml").write_text("")
    env = _env(tmp_path)
    honest = _twice(inner, env)
    assert USES_FINDING in honest
    [record] = inner.glob(".seedlint_cache/*/run-*.json")
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    signer = Cache(inner / ".seedlint_cache")
    data = json.loads(record.read_bytes().partition(b"\n")[2])
    [[path, [finding]]] = data["files"]
    assert path == "uses.py"
    forgeries: list[list[Any]] = [
        [["uses.py", [{**finding, "col": 10**12, "end_col": 10**12}]]],
        [["uses.py", [{**finding, "row": 10**9, "end_row": 10**9}]]],
        [["uses.py", [finding]], ["forged.py", [finding]]],
        [["nl\n::error file=x::FORGED.py", [finding]]],
    ]
    for files in forgeries:
        body = json.dumps({**data, "files": files}).encode()
        record.write_bytes(signer._mac(record.name, body).encode() + b"\n" + body)
        proc = _check(inner, ".", env=env)
        assert proc.stdout == honest, proc.stdout[-500:] + proc.stderr[-500:]
        assert "internal error" not in proc.stderr


# -- cases 8 and 9: the cache folder lies inside the project and never holds it ------------------
@pytest.mark.parametrize(
    ("config", "args"),
    [
        pytest.param('cache-dir = "."', (), id="config-dot"),
        pytest.param('cache-dir = "src"', (), id="config-source-folder"),
        pytest.param("", ("--cache-dir", "."), id="command-line-dot"),
        pytest.param("", ("--cache-dir", ".."), id="command-line-parent"),
    ],
)
def test_case_8_a_cache_folder_that_holds_the_project_is_refused(
    tmp_path: Path, config: str, args: tuple[str, ...]
) -> None:
    """seedlint's `.gitignore` holds `*`: written into a folder that holds the project, the
    next run would skip every file ("All checks passed!") and git would stop seeing them."""
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text(UNSEEDED_SCRIPT)
    (root / "pyproject.toml").write_text(f"[tool.seedlint]\n{config}\n")
    runs = [_check(root, *args, ".", env=_env(tmp_path)) for _ in range(2)]
    for proc in runs:
        assert proc.returncode == 1 and "src/a.py:4:10: RNG001" in proc.stdout, proc.stdout
    for folder in (tmp_path, root, root / "src"):
        assert not (folder / ".gitignore").exists() and not (folder / "CACHEDIR.TAG").exists()
    for proc in runs:
        [warning] = _warnings(proc.stderr)
        assert "cache folder" in warning and "not used" in warning, proc.stderr


@pytest.mark.parametrize("value", ["..", "../elsewhere", "ABSOLUTE"])
def test_case_9_an_untrusted_cache_dir_writes_nothing_outside_the_checkout(
    tmp_path: Path, value: str
) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "a.py").write_text(UNSEEDED_SCRIPT)
    value = value.replace("ABSOLUTE", str(tmp_path / "elsewhere"))  # outside, absolute
    (checkout / "pyproject.toml").write_text(f'[tool.seedlint]\ncache-dir = "{value}"\n')
    before = sorted(tmp_path.iterdir())
    proc = _check(checkout, ".", env=_env(tmp_path))
    assert proc.returncode == 1 and "a.py:4:10: RNG001" in proc.stdout, proc.stdout
    assert sorted(tmp_path.iterdir()) == before  # nothing above the checkout
    assert sorted(p.name for p in checkout.iterdir()) == ["a.py", "pyproject.toml"]
    [warning] = _warnings(proc.stderr)
    assert ("not used" in warning and "pyproject.toml" in warning) or "holds" in warning
    # Inside the checkout, a `cache-dir` is used as before.
    (checkout / "pyproject.toml").write_text('[tool.seedlint]\ncache-dir = ".cache/seedlint"\n')
    proc = _check(checkout, ".", env=_env(tmp_path))
    assert proc.returncode == 1 and not _warnings(proc.stderr), proc.stderr
    assert (checkout / ".cache" / "seedlint" / "CACHEDIR.TAG").is_file()


# -- case 14: two links in the tree to one file --------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_case_14_a_file_with_two_names_is_fixed_once_and_reported_once(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "a.py").write_text(UNSEEDED_SCRIPT)
    for name in ("l1.py", "l2.py"):
        (root / name).symlink_to("a.py")
    proc = _check(root, "--fix", ".", env=_env(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "changed on disk" not in proc.stderr and not proc.stderr, proc.stderr
    assert "Found 1 finding (1 fixed, 0 remaining)." in proc.stdout, proc.stdout
    assert "generator=" in (root / "a.py").read_text()
    assert (root / "l1.py").is_symlink() and (root / "l2.py").is_symlink()
    (root / "a.py").write_text(UNSEEDED_SCRIPT)
    proc = _check(root, "--diff", ".", env=_env(tmp_path))
    assert proc.stdout.count("+++ ") == 1, proc.stdout + proc.stderr
    assert proc.stderr == "Would fix 1 finding.\n", proc.stderr  # ruff's --diff summary


# -- case 16: a cache that cannot be written is said once ----------------------------------------
@pytest.mark.skipif(sys.platform != "linux", reason="needs /proc (root writes a read-only folder)")
def test_case_16_cannot_write_the_cache_is_said_once(tmp_path: Path) -> None:
    """A project folder that cannot be written (read-only for a user; for root, who writes
    any folder, a cache folder under /proc): the findings' table, the project's summaries,
    its loader names and the run's record each fail to be written, and one line says so."""
    inner = _project(tmp_path)
    (inner.parent / "pyproject.toml").write_text("")  # the root: `outer`
    _age(inner.parent)
    if os.geteuid() == 0:
        args: tuple[str, ...] = ("--cache-dir", "/proc/seedlint-case-16/cache")
    else:
        inner.chmod(0o555)
        args = ()
    try:
        proc = _check(inner, *args, ".", env=_env(tmp_path))
    finally:
        inner.chmod(0o755)
    assert proc.returncode == 1 and USES_FINDING in proc.stdout, proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "cannot write the cache" in line]
    assert len(lines) == 1, proc.stderr
    assert proc.stderr.splitlines() == lines, proc.stderr
