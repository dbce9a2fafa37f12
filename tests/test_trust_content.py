"""Issue 34, part B: what a file's name or content can do to a run (cases 5, 6, 10, 15 and 17).

Every test runs the real command line (``tests/support.py``) except the race of case 5, which
races an editor's save against :func:`seedlint.fixes.write.write_fixed` itself, 100 times.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from pathlib import Path

import pytest

from seedlint.fixes.write import write_fixed
from tests.support import run_seedlint

# -- case 15: a file that mixes CRLF and LF ------------------------------------------------------
MIXED = (
    b"import torch\n"
    b"import numpy as np\r\n"
    b"from torch.utils.data import DataLoader\r\n"
    b"\r\n"
    b"x = 1\n"
    b"\n"
    b"\r\n"
    b"class Items(torch.utils.data.Dataset):\r\n"
    b"    def __init__(self):\n"
    b"        self.rng = np.random.default_rng()\r\n"
    b"\n"
    b"    def __getitem__(self, i):\r\n"
    b"        return self.rng.random()\n"
    b"\n"
    b"loader = DataLoader(Items(), num_workers=2)\r\n"
    b"y = 2\n"
)


def test_fix_keeps_the_ending_of_every_line_it_does_not_touch(tmp_path: Path) -> None:
    target = tmp_path / "mixed.py"
    target.write_bytes(MIXED)
    result = run_seedlint("check", "--no-cache", "--fix", "mixed.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    new = target.read_bytes()
    assert b"worker_init_fn=seed_worker" in new and b"def seed_worker" in new
    touched = b"loader = DataLoader("
    new_lines = new.splitlines(keepends=True)
    # Every line of the file but the one the fix rewrites is still there, ending as it did,
    # in the same order.
    kept = [line for line in MIXED.splitlines(keepends=True) if not line.startswith(touched)]
    at = 0
    for line in kept:
        while at < len(new_lines) and new_lines[at] != line:
            at += 1
        assert at < len(new_lines), f"{line!r} lost its ending or its place"
        at += 1
    # A second --fix changes nothing.
    again = run_seedlint("check", "--no-cache", "--fix", "mixed.py", cwd=tmp_path)
    assert again.returncode == 0 and target.read_bytes() == new


# -- case 10: a file's name and content are printed harmless ------------------------------------
HOSTILE_LINE = (
    "loader = DataLoader(range(3), shuffle=True)"
    "  # \x1b[31mred\x1b[0m \u202eevil ##vso[task.complete]"
)
HOSTILE_NAMES = [
    "nl\n::error file=forged.py,line=1::FORGED.py",
    "\x1b[2Jansi.py",
    "::warning::start.py",
    "cr\r##[error]x.py",
]


def _hostile_tree(root: Path) -> None:
    body = "from torch.utils.data import DataLoader\n" + HOSTILE_LINE + "\n"
    for name in HOSTILE_NAMES:
        (root / name).write_text(body, encoding="utf-8")
    (root / "\x1b[1mbroken.py").write_text("def (:\n    DataLoader\n", encoding="utf-8")


def _assert_harmless(output: str) -> None:
    for line in output.split("\n"):
        stripped = line.lstrip()
        assert not stripped.startswith(("::", "##")), f"a workflow command: {line!r}"
        assert "##vso[" not in line.lower(), f"an Azure command: {line!r}"
        for bad in ("\x1b", "\r", "\u202e", "\x00"):
            assert bad not in line, f"{bad!r} printed raw: {line!r}"


def test_names_and_content_are_printed_harmless_in_every_terminal_output(tmp_path: Path) -> None:
    _hostile_tree(tmp_path)
    outputs: list[str] = []
    for args in (
        ["--output-format", "full"],
        ["--output-format", "concise"],
        ["--show-files"],
        ["--diff"],
        ["-v", "--select", "RNG003"],
        ["--statistics"],
    ):
        result = run_seedlint("check", "--no-cache", *args, ".", cwd=tmp_path)
        assert result.returncode in (0, 1), result.stderr
        outputs += [result.stdout, result.stderr]
    full = outputs[0]
    assert "nl\\n::error file=forged.py,line=1::FORGED.py:2:10" in full
    assert "\\x1b[2Jansi.py" in full and "./::warning::start.py" in full
    assert "\\x1b[31mred" in full and "\\u202eevil" in full
    assert "\\x1b[1mbroken.py:1:" in outputs[2]  # its RNG000, in the concise output
    # --fix, with one of them read-only: the error line on stderr is harmless too.
    (tmp_path / HOSTILE_NAMES[0]).chmod(0o444)
    fixing = run_seedlint("check", "--no-cache", "--fix", ".", cwd=tmp_path)
    assert "not fixed: it is read-only" in fixing.stderr
    outputs += [fixing.stdout, fixing.stderr]
    for output in outputs:
        _assert_harmless(output)
    # A CI format still says what it must, in its own escapes.
    github = run_seedlint("check", "--no-cache", "--output-format", "github", ".", cwd=tmp_path)
    for line in github.stdout.splitlines():
        assert line.startswith("::error title=seedlint"), line


# -- case 6: no shape of code kills the process ---------------------------------------------------
LOADER = "from torch.utils.data import DataLoader\nloader = DataLoader(range(3), shuffle=True)\n"
SHAPES = {
    "and": lambda n: "y = " + " and ".join(f"x{i}" for i in range(n)) + "\n",
    "or": lambda n: "y = " + " or ".join(f"x{i}" for i in range(n)) + "\n",
    "compare": lambda n: "y = " + " < ".join(f"x{i}" for i in range(n)) + "\n",
    "plus": lambda n: "y = " + " + ".join(f"x{i}" for i in range(n)) + "\n",
    "strings": lambda n: "y = (" + " ".join(f"'s{i}'" for i in range(n)) + ")\n",
    "elif": lambda n: "if a:\n    pass\n" + "".join(f"elif x{i}:\n    pass\n" for i in range(n)),
    "attribute": lambda n: "y = a" + ".b" * n + "\n",
    "call": lambda n: "y = f" + "()" * n + "\n",
    "not": lambda n: "y = " + "not " * n + "x\n",
    "subscript": lambda n: "y = a" + "[0]" * n + "\n",
}


def test_deep_shapes_never_kill_a_fix_a_diff_or_the_json_output(tmp_path: Path) -> None:
    for name, make in SHAPES.items():
        (tmp_path / f"deep_{name}.py").write_text(LOADER + make(10_000), encoding="utf-8")
    (tmp_path / "shallow_and.py").write_text(LOADER + SHAPES["and"](2_500), encoding="utf-8")
    (tmp_path / "other.py").write_text(LOADER, encoding="utf-8")
    deep = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("deep_"))
    for args in (["--diff"], ["--output-format", "json"]):
        result = run_seedlint("check", "--no-cache", *args, ".", cwd=tmp_path, timeout=300)
        assert result.returncode == 1, (args, result.returncode, result.stderr[-2000:])
        assert "internal error" not in result.stderr
        if args == ["--diff"]:
            assert "+++ other.py" in result.stdout and "+++ shallow_and.py" in result.stdout
            for name in deep:  # left alone, each with one line saying so (or its RNG000)
                assert f"+++ {name}" not in result.stdout
        else:
            items = json.loads(result.stdout)
            by_file = {Path(item["filename"]).name for item in items}
            assert {"other.py", "shallow_and.py", *deep} <= by_file
            edits = {Path(i["filename"]).name for i in items if i["fix"] and i["fix"]["edits"]}
            assert {"other.py", "shallow_and.py"} <= edits
    before = {name: (tmp_path / name).read_bytes() for name in deep}
    fixing = run_seedlint("check", "--no-cache", "--fix", ".", cwd=tmp_path, timeout=300)
    assert fixing.returncode == 1, fixing.stderr[-2000:]
    assert "internal error" not in fixing.stderr
    assert "generator=" in (tmp_path / "other.py").read_text()
    assert "generator=" in (tmp_path / "shallow_and.py").read_text()
    for name in deep:  # unchanged, and still reported
        assert (tmp_path / name).read_bytes() == before[name]
        assert f"{name}:" in fixing.stdout + fixing.stderr


# -- case 5: a --fix never overwrites an editor's save ------------------------------------------
def _editor_save(path: Path, content: bytes, by_rename: bool) -> None:
    if by_rename:  # as editors with "safe write" do: a file of their own renamed over it
        temporary = path.with_name(f".{path.name}.editor")
        temporary.write_bytes(content)
        os.replace(temporary, path)
    else:  # in place, as most editors do
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
        try:
            os.write(fd, content)
        finally:
            os.close(fd)


def _editor_at(delay: float, path: Path, content: bytes, by_rename: bool) -> int:
    """A forked editor process that saves ``content`` after ``delay`` seconds: its pid."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            time.sleep(delay)
            _editor_save(path, content, by_rename)
        finally:
            os._exit(0)
    return pid


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the editor is a forked process")
def test_an_editors_save_racing_the_fix_is_never_lost(tmp_path: Path) -> None:
    """An editor (another process) saves at a random moment while write_fixed writes, 100
    times, by rename and in place: the file ends holding the editor's bytes every time."""
    path = tmp_path / "train.py"
    original = LOADER.encode() * 2_000
    fixed = original.replace(b"shuffle=True)", b"shuffle=True, generator=g)")
    rng = random.Random(34)
    start = time.perf_counter()
    for _ in range(3):  # how long one write takes here
        path.write_bytes(original)
        assert write_fixed(path, original, fixed) is None
    took = (time.perf_counter() - start) / 3
    outcomes = {"fixed first": 0, "editor first": 0}
    for attempt in range(100):
        path.write_bytes(original)
        saved = b"# saved by the editor %d\n" % attempt + original
        pid = _editor_at(rng.uniform(0, took * 1.5), path, saved, attempt % 2 == 0)
        problem = write_fixed(path, original, fixed)
        os.waitpid(pid, 0)
        assert path.read_bytes() == saved, (attempt, problem)
        outcomes["fixed first" if problem is None else "editor first"] += 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]
    assert all(outcomes.values()), outcomes  # both orders happened


def test_a_fix_waits_for_another_fixers_lock(tmp_path: Path) -> None:
    """Two fixers take turns on one file (an advisory lock): the second one finds the file
    changed and leaves it as the first one wrote it."""
    fcntl = pytest.importorskip("fcntl")
    path = tmp_path / "train.py"
    path.write_bytes(b"x = 1\n")
    results: list[object] = []
    with open(path, "rb") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        worker = threading.Thread(
            target=lambda: results.append(write_fixed(path, b"x = 1\n", b"x = 2\n"))
        )
        worker.start()
        time.sleep(0.2)
        assert worker.is_alive() and path.read_bytes() == b"x = 1\n"  # it waits
        path.write_bytes(b"x = 3\n")  # what the lock's holder wrote
    worker.join(10)
    assert results and results[0] is not None and "changed on disk" in str(results[0])
    assert path.read_bytes() == b"x = 3\n"


# -- case 17: code for a newer Python than the one running seedlint ------------------------------
NEWER = """import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Box[T: int](Dataset):
    def __init__(self) -> None:
        self.rng = np.random.default_rng()

    def __getitem__[U](self, i: U) -> float:
        return self.rng.random()


type Pair[K] = tuple[K, K]
label = f"{"nested"}"


def make[
    T,
    U: (int, str),
](x: T) -> DataLoader:
    return DataLoader(Box(), num_workers=2, shuffle=True)
"""


def test_code_for_a_newer_python_is_checked_and_fixed(tmp_path: Path) -> None:
    (tmp_path / "box.py").write_text(NEWER, encoding="utf-8")
    (tmp_path / "broken.py").write_text("class Box[T](Dataset:\n    DataLoader\n", encoding="utf-8")
    result = run_seedlint("check", "--no-cache", "--output-format", "concise", ".", cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert "box.py:8:20: RNG005" in result.stdout, result.stdout
    assert "box.py:22:12: RNG001" in result.stdout and "box.py:22:12: RNG002" in result.stdout
    assert not [line for line in lines if line.startswith("box.py") and "RNG000" in line]
    assert [line for line in lines if line.startswith("broken.py:1:") and "RNG000" in line]
    fixed = run_seedlint("check", "--no-cache", "--fix", "box.py", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    text = (tmp_path / "box.py").read_text(encoding="utf-8")
    assert "class Box[T: int](Dataset):" in text and "type Pair[K] = tuple[K, K]" in text
    assert "worker_init_fn=seed_worker" in text and "generator=" in text
    again = run_seedlint("check", "--no-cache", "--fix", "box.py", cwd=tmp_path)
    assert again.returncode == 0 and (tmp_path / "box.py").read_text(encoding="utf-8") == text
