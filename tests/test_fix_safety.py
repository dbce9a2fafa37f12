"""``--fix`` never corrupts a file: read-only files and files changed on disk are left alone,
an interrupted run leaves every file fully old or fully new, and two runs at once fix each file
once. Files without a fixable finding are never rewritten."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from seedlint import cli
from seedlint.fixes.write import write_fixed
from seedlint.run import files as apply

FIXABLE = '''"""Training module {index}."""
import random

import numpy as np
import torch
from torch.utils.data import DataLoader


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)


def loaders(dataset, seed={index}):
    set_seed(seed)
    return DataLoader(dataset, batch_size={batch}, shuffle=True)
'''

CLEAN = '''"""Evaluation module {index}: nothing to fix."""
import torch
from torch.utils.data import DataLoader


def loader(dataset):
    torch.manual_seed({index})
    return DataLoader(dataset, batch_size=4, shuffle=False)
'''


def filler(lines: int) -> str:
    return "".join(
        f"CONSTANT_{i} = {i} * 3  # padding, so that writes take a while\n" for i in range(lines)
    )


def make_tree(root: Path, fixable: int, clean: int, padding: int = 0) -> dict[str, bytes]:
    """A tree of files with fixable findings and files without; returns the old bytes."""
    files: dict[str, bytes] = {}
    for index in range(fixable):
        files[f"pkg/train_{index:03d}.py"] = (
            FIXABLE.format(index=index, batch=index % 7 + 1) + filler(padding)
        ).encode()
    for index in range(clean):
        files[f"pkg/eval_{index:03d}.py"] = CLEAN.format(index=index).encode()
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return files


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "seedlint", "check", "--isolated", "--no-cache", *args]


def environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")}


def fixed_versions(tmp_path: Path, old: dict[str, bytes]) -> dict[str, bytes]:
    """What an uninterrupted ``--fix`` makes of each file (in a separate copy of the tree)."""
    reference = tmp_path / "reference"
    for name, data in old.items():
        (reference / name).parent.mkdir(parents=True, exist_ok=True)
        (reference / name).write_bytes(data)
    proc = subprocess.run(
        command("--fix", "-j", "1", "."), cwd=reference, capture_output=True, env=environment()
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    new = snapshot(reference)
    assert new.keys() == old.keys()
    return new


def assert_old_or_new(root: Path, old: dict[str, bytes], new: dict[str, bytes]) -> tuple[int, int]:
    """Every file is fully old or fully new (never truncated, never half written); returns
    how many are old and how many new (a file with nothing to fix counts as old)."""
    current = snapshot(root)
    python_files = {name for name in current if name.endswith(".py")}
    assert python_files == set(old), sorted(python_files ^ set(old))
    old_count = new_count = 0
    for name in sorted(old):
        data = current[name]
        if data == old[name]:
            old_count += 1
        elif data == new[name]:
            new_count += 1
        else:
            raise AssertionError(f"{name} is neither the old nor the fixed file: {data[:200]!r}")
        compile(data, name, "exec")
    return old_count, new_count


# -- read-only files and files that change on disk -------------------------------------------
def test_read_only_file_is_reported_and_left(tmp_path: Path) -> None:
    old = make_tree(tmp_path, fixable=2, clean=0)
    locked = tmp_path / "pkg" / "train_000.py"
    locked.chmod(stat.S_IRUSR | stat.S_IRGRP)
    try:
        proc = subprocess.run(
            command("--fix", "--output-format", "concise", "."),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=environment(),
        )
        assert locked.read_bytes() == old["pkg/train_000.py"]
        assert stat.S_IMODE(locked.stat().st_mode) == stat.S_IRUSR | stat.S_IRGRP
    finally:
        locked.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "train_000.py" in line]
    assert len(errors) == 1 and "read-only" in errors[0], proc.stderr
    assert proc.returncode == 1
    # Its findings are still reported; the other file was fixed.
    assert "train_000.py:" in proc.stdout
    assert (tmp_path / "pkg" / "train_001.py").read_bytes() != old["pkg/train_001.py"]
    assert "train_001.py:" not in proc.stdout


def test_file_changed_between_read_and_write_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An editor saves the file while seedlint computes its fix: the editor's bytes win."""
    old = make_tree(tmp_path, fixable=2, clean=0)
    target = tmp_path / "pkg" / "train_000.py"
    edited = old["pkg/train_000.py"] + b"\n# saved by an editor meanwhile\n"
    real_write = apply.write_fixed

    def editor_saves_first(path: Path, expected: bytes, new: bytes) -> object:
        if Path(path).name == "train_000.py":
            target.write_bytes(edited)
        return real_write(path, expected, new)

    monkeypatch.setattr(apply, "write_fixed", editor_saves_first)
    monkeypatch.chdir(tmp_path)
    rc = cli.main(["check", "--isolated", "--no-cache", "-j", "1", "--fix", "."])
    out = capsys.readouterr()
    assert target.read_bytes() == edited
    assert rc == 1
    errors = [line for line in out.err.splitlines() if "train_000.py" in line]
    assert len(errors) == 1 and "changed on disk" in errors[0], out.err
    assert (tmp_path / "pkg" / "train_001.py").read_bytes() != old["pkg/train_001.py"]


def test_write_fixed_compares_content(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    assert write_fixed(path, b"x = 0\n", b"x = 2\n") is not None  # not what was read
    assert path.read_bytes() == b"x = 1\n"
    assert write_fixed(path, b"x = 1\n", b"x = 2\n") is None
    assert path.read_bytes() == b"x = 2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.py"]  # no temporary file left


def test_write_fixed_keeps_the_mode_and_writes_through_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_bytes(b"x = 1\n")
    real.chmod(0o640)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    assert write_fixed(link, b"x = 1\n", b"x = 2\n") is None
    assert link.is_symlink() and real.read_bytes() == b"x = 2\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_file_without_fixable_finding_is_never_rewritten(tmp_path: Path) -> None:
    old = make_tree(tmp_path, fixable=2, clean=3)
    (tmp_path / "pkg" / "noqa.py").write_text(
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader([], shuffle=True)  # noqa: RNG001\n"
    )
    (tmp_path / "pkg" / "other.py").write_text("x = 1\n")
    untouched = [p for p in (tmp_path / "pkg").iterdir() if not p.name.startswith("train_")]
    before = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in untouched}
    time.sleep(0.01)
    proc = subprocess.run(
        command("--fix", "."), cwd=tmp_path, capture_output=True, text=True, env=environment()
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in untouched} == before
    for name, data in old.items():
        changed = (tmp_path / name).read_bytes() != data
        assert changed == name.startswith("pkg/train_"), name


# -- interruption ----------------------------------------------------------------------------
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_interrupted_fix_leaves_every_file_old_or_new(tmp_path: Path, sig: int) -> None:
    """Kill ``--fix`` while it writes a large tree: no file is truncated or half written."""
    old = make_tree(tmp_path / "tree", fixable=30, clean=5, padding=20)
    new = fixed_versions(tmp_path, old)
    tree = tmp_path / "tree"
    first = tree / "pkg" / "train_000.py"
    mixed = False
    for attempt in range(3):
        if attempt:
            for name, data in old.items():
                (tree / name).write_bytes(data)
        proc = subprocess.Popen(
            command("--fix", "-j", "1", "."),
            cwd=tree,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment(),
        )
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if first.read_bytes() != old["pkg/train_000.py"]:
                break  # the writing has begun: interrupt it now
            time.sleep(0.0005)
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=60)
        assert b"Traceback" not in stderr
        if sig == signal.SIGINT and proc.returncode != 0:
            assert proc.returncode == 130 and b"seedlint: interrupted" in stderr
            # Ctrl-C lets the writer clean up: no temporary file is left in the tree.
            assert [p.name for p in tree.rglob("*") if p.suffix == ".tmp"] == []
        old_count, new_count = assert_old_or_new(tree, old, new)
        if old_count > 5 and new_count > 0:  # caught in the middle of writing
            mixed = True
            break
    if not mixed:
        pytest.skip("the run could not be interrupted in the middle of its writes here")


# -- two runs at once ------------------------------------------------------------------------
def test_two_fix_runs_at_once_fix_each_file_once(tmp_path: Path) -> None:
    old = make_tree(tmp_path / "tree", fixable=30, clean=5)
    new = fixed_versions(tmp_path, old)
    tree = tmp_path / "tree"
    runs = [
        subprocess.Popen(
            command("--fix", "-j", "1", "."),
            cwd=tree,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment(),
        )
        for _ in range(2)
    ]
    for proc in runs:
        _, stderr = proc.communicate(timeout=300)
        assert b"Traceback" not in stderr
        assert proc.returncode in (0, 1), stderr
        for line in stderr.decode().splitlines():  # the only complaint allowed: lost the race
            assert "changed on disk" in line, line
    assert snapshot(tree) == new  # every file valid, and fixed exactly once
    again = subprocess.run(
        command("--fix", "--output-format", "concise", "."),
        cwd=tree,
        capture_output=True,
        text=True,
        env=environment(),
    )
    assert again.returncode == 0 and snapshot(tree) == new
