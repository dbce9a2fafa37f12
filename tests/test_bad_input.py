"""Bad input: each bad file gets one clear RNG000 line, nothing reaches the user as a
traceback, and the good file beside it is still checked.

The committed fixtures are in ``tests/fixtures/bad_input/``; what cannot be committed (binary
files, a 50,000-line file, deeply nested expressions, symbolic links, unreadable files, file names
that are not UTF-8) is generated in ``tmp_path``. Every run goes through the real command line
(``python -m seedlint``), as a user would run it.

seedlint parses only files that contain a word a selected rule can fire on (the pre-filter), so
every bad file here mentions ``DataLoader``: :func:`test_fixtures_pass_the_pre_filter` checks
that they do, so that a change of the pre-filter cannot make these tests vacuous.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from seedlint import cli
from seedlint.analysis.facts import ModuleFacts
from seedlint.config import Settings
from seedlint.engine.selection import selection
from seedlint.rules.base import Violation
from tests.support import run_seedlint

FIXTURES = Path(__file__).parent / "fixtures" / "bad_input"
GOOD = "good.py"
LINE = re.compile(
    r"^(?P<path>.+?):(?:cell (?P<cell>\d+):)?(?P<row>\d+):(?P<col>\d+): "
    r"(?P<code>RNG\d{3}) (?:\[\*\] )?(?P<message>.+)$"
)


@dataclass(frozen=True)
class Line:
    path: str
    cell: Optional[int]
    row: int
    col: int
    code: str
    message: str


@dataclass
class Run:
    rc: int
    stdout: str
    stderr: str
    lines: list[Line]

    def of(self, path: str) -> list[Line]:
        return [line for line in self.lines if line.path == path]


def seedlint(cwd: Path, *args: str) -> Run:
    """Run the command line in ``cwd``; never a traceback, never an unparsed output line."""
    proc = run_seedlint(
        "check", "--isolated", "--no-cache", *args, cwd=cwd, timeout=300, text=False, clean_env=True
    )
    stdout = proc.stdout.decode("utf-8", "surrogateescape")
    stderr = proc.stderr.decode("utf-8", "surrogateescape")
    assert "Traceback" not in stdout + stderr, stdout + stderr
    lines = parse_lines(stdout) if "concise" in args else []
    return Run(proc.returncode, stdout, stderr, lines)


def parse_lines(stdout: str) -> list[Line]:
    """The finding lines of concise output; any other line must be the summary."""
    lines: list[Line] = []
    for text in stdout.splitlines():
        if not text or text.startswith(("Found ", "All checks passed", "[*]")):
            continue
        match = LINE.match(text)
        assert match is not None, f"not a finding line: {text!r}"
        cell = match["cell"]
        lines.append(
            Line(
                match["path"],
                int(cell) if cell else None,
                int(match["row"]),
                int(match["col"]),
                match["code"],
                match["message"],
            )
        )
    return lines


def check(cwd: Path, *paths: str) -> Run:
    return seedlint(cwd, "--output-format", "concise", *(paths or (".",)))


def position_of(text: str, needle: str) -> tuple[int, int]:
    """The 1-based row and character column of the first ``needle`` in ``text``."""
    for row, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        col = line.find(needle)
        if col >= 0:
            return row, col + 1
    raise AssertionError(f"{needle!r} not in the fixture")


def with_good_file(folder: Path) -> tuple[int, int]:
    """Copy the good file into ``folder``; returns where its one finding is."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURES / GOOD, folder / GOOD)
    return position_of((FIXTURES / GOOD).read_text(), "DataLoader(")


def assert_good_file_checked(run: Run, where: tuple[int, int], path: str = GOOD) -> None:
    found = run.of(path)
    assert [(f.code, f.row, f.col) for f in found] == [("RNG001", *where)], run.stdout


def assert_one_invalid(run: Run, path: str, message: str, row: Optional[int] = None) -> Line:
    """Exactly one line for ``path``: an RNG000 whose message matches ``message``."""
    lines = run.of(path)
    assert len(lines) == 1, run.stdout
    line = lines[0]
    assert line.code == "RNG000", line
    assert re.search(message, line.message), line.message
    if row is not None:
        assert line.row == row, line
    assert run.rc == 1
    return line


# -- committed fixtures ----------------------------------------------------------------------
BROKEN_FIXTURES = [
    # name, what the message must say, the row it must point at (from the fixture)
    (
        "syntax_error.py",
        r"^SyntaxError: invalid syntax$",  # no newer grammar reads `def train(:`
        "def train(:",
    ),
    ("python2.py", r"^SyntaxError: Missing parentheses in call to 'print'", 'print "'),
    ("nul_byte.py", r"NUL byte", "seed = 0"),
    (
        "invalid_utf8.py",
        r"^cannot decode: not valid utf-8 \(the file has no coding cookie\)",
        "caf",
    ),
    ("notebook_not_json.ipynb", r"^invalid notebook JSON", None),
]


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_bytes().decode("latin-1")


@pytest.mark.parametrize(("name", "message", "anchor"), BROKEN_FIXTURES)
def test_broken_fixture_is_one_rng000_line(
    tmp_path: Path, name: str, message: str, anchor: Optional[str]
) -> None:
    good = with_good_file(tmp_path)
    shutil.copy(FIXTURES / name, tmp_path / name)
    run = check(tmp_path)
    row = position_of(fixture_text(name), anchor)[0] if anchor else None
    assert_one_invalid(run, name, message, row)
    assert_good_file_checked(run, good)
    assert len(run.lines) == 2


def test_fixtures_pass_the_pre_filter() -> None:
    """Every bad fixture is decoded and parsed, not skipped by the pre-filter (but the empty
    file, and the file whose code is all commented out: nothing in it can be called)."""
    rules = selection(Settings())
    for path in FIXTURES.iterdir():
        if path.suffix in (".py", ".ipynb") and path.name not in ("empty.py", "only_comments.py"):
            assert rules.may_fire(path.read_bytes(), path.name), path.name
    assert not rules.may_fire((FIXTURES / "only_comments.py").read_bytes(), "only_comments.py")


def test_fixture_bytes_are_intact() -> None:
    """git must keep these bytes as committed (see the folder's .gitattributes)."""
    assert b"\r\n" in (FIXTURES / "crlf.py").read_bytes()
    assert b"\n" not in (FIXTURES / "crlf.py").read_bytes().replace(b"\r\n", b"")
    mixed = (FIXTURES / "mixed_newlines.py").read_bytes()
    assert b"\r\n" in mixed and b"\n" in mixed.replace(b"\r\n", b"")
    assert (FIXTURES / "utf8_bom.py").read_bytes().startswith(b"\xef\xbb\xbf")
    assert b"\0" in (FIXTURES / "nul_byte.py").read_bytes()
    assert b"\xe9" in (FIXTURES / "latin1_cookie.py").read_bytes()
    assert b"\x0c" in (FIXTURES / "form_feed.py").read_bytes()
    assert b"\t" in (FIXTURES / "tabs.py").read_bytes()


# Files that are unusual but valid: checked like any other file, findings where the code is.
VALID_FIXTURES = [
    "latin1_cookie.py",
    "utf8_bom.py",
    "crlf.py",
    "mixed_newlines.py",
    "tabs.py",
    "form_feed.py",
]


@pytest.mark.parametrize("name", VALID_FIXTURES)
def test_unusual_but_valid_file_is_checked(tmp_path: Path, name: str) -> None:
    good = with_good_file(tmp_path)
    shutil.copy(FIXTURES / name, tmp_path / name)
    run = check(tmp_path)
    encoding = "latin-1" if "latin" in name else "utf-8-sig"
    text = (FIXTURES / name).read_bytes().decode(encoding)
    row, col = position_of(text, "DataLoader(")
    assert [(f.code, f.row, f.col) for f in run.of(name)] == [("RNG001", row, col)]
    assert_good_file_checked(run, good)


def assert_only_the_call_changed(before: bytes, after: bytes, name: str) -> None:
    """Every line of the file outside the fixed DataLoader call keeps its exact bytes, line
    ending included; lines may only be added (an import) around it."""
    encoding = "latin-1" if "latin" in name else "utf-8-sig"
    bom = b"\xef\xbb\xbf"
    assert before.startswith(bom) == after.startswith(bom)
    before, after = before.removeprefix(bom), after.removeprefix(bom)
    bom = b"\xef\xbb\xbf"
    assert before.startswith(bom) == after.startswith(bom)
    before, after = before.removeprefix(bom), after.removeprefix(bom)
    tree = ast.parse(before.decode(encoding))
    (call,) = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "DataLoader"
    ]
    span = range(call.lineno, (call.end_lineno or call.lineno) + 1)
    old_lines = before.splitlines(keepends=True)
    new_lines = after.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            changed_rows = range(i1 + 1, i2 + 1)
            assert all(row in span for row in changed_rows), (tag, old_lines[i1:i2])


@pytest.mark.parametrize("name", [n for n in VALID_FIXTURES if n != "form_feed.py"])
def test_unusual_but_valid_file_is_fixed_in_its_own_format(tmp_path: Path, name: str) -> None:
    """``--fix`` keeps the encoding, the BOM and the newline style, and the result is clean."""
    shutil.copy(FIXTURES / name, tmp_path / name)
    before = (tmp_path / name).read_bytes()
    run = seedlint(tmp_path, "--fix", "--output-format", "concise", name)
    assert run.rc == 0, run.stdout + run.stderr
    after = (tmp_path / name).read_bytes()
    assert after != before
    if "latin" in name:
        assert after.startswith(b"# -*- coding: latin-1 -*-\n")
        assert b"caf\xe9 = DataLoader(" in after  # still latin-1, not re-encoded as UTF-8
        assert b"\xc3" not in after
        text = after.decode("latin-1")
    else:
        text = after.decode("utf-8-sig")
    assert after.startswith(b"\xef\xbb\xbf") == before.startswith(b"\xef\xbb\xbf")
    if name == "crlf.py":
        assert b"\n" not in after.replace(b"\r\n", b"")  # every new line is CRLF too
    assert "generator=" in text
    assert_only_the_call_changed(before, after, name)
    compile(after, name, "exec")  # the fixed bytes compile, with their own encoding
    # Fixed once: a second run finds nothing and changes nothing.
    again = seedlint(tmp_path, "--fix", "--output-format", "concise", name)
    assert again.rc == 0 and again.lines == []
    assert (tmp_path / name).read_bytes() == after


def test_form_feed_file_is_never_rewritten_around_the_fix(tmp_path: Path) -> None:
    """libcst drops a form feed that starts a line: rather than lose it, the fixer leaves the
    file unchanged, says so in one line, and still fixes the file beside it."""
    with_good_file(tmp_path)
    shutil.copy(FIXTURES / "form_feed.py", tmp_path / "form_feed.py")
    run = seedlint(tmp_path, "--fix", "--output-format", "concise", ".")
    after = (tmp_path / "form_feed.py").read_bytes()
    if after == (FIXTURES / "form_feed.py").read_bytes():
        assert [line.code for line in run.of("form_feed.py")] == ["RNG001"]
        errors = [e for e in run.stderr.splitlines() if "form_feed.py" in e]
        assert len(errors) == 1 and "left unchanged" in errors[0], run.stderr
    else:  # a fixer that keeps form feeds: only the fix changed
        assert after.count(b"\x0c") == 3 and b"generator=" in after
        compile(after, "form_feed.py", "exec")
    assert "generator=" in (tmp_path / GOOD).read_text()


def test_latin1_column_counts_characters(tmp_path: Path) -> None:
    """``café = DataLoader(`` : the column counts characters, not UTF-8 bytes."""
    shutil.copy(FIXTURES / "latin1_cookie.py", tmp_path / "latin1_cookie.py")
    run = check(tmp_path)
    (line,) = run.of("latin1_cookie.py")
    assert line.col == len("café = ") + 1


@pytest.mark.parametrize("name", ["empty.py", "only_comments.py"])
def test_file_without_code_has_no_finding(tmp_path: Path, name: str) -> None:
    good = with_good_file(tmp_path)
    shutil.copy(FIXTURES / name, tmp_path / name)
    run = check(tmp_path)
    assert run.of(name) == []
    assert_good_file_checked(run, good)
    assert run.rc == 1


def test_notebook_with_string_source_is_checked(tmp_path: Path) -> None:
    """nbformat allows a cell's source to be one string instead of a list of lines."""
    name = "notebook_string_source.ipynb"
    good = with_good_file(tmp_path)
    shutil.copy(FIXTURES / name, tmp_path / name)
    run = check(tmp_path)
    (line,) = run.of(name)
    assert (line.code, line.cell, line.row, line.col) == ("RNG001", 1, 3, 10)
    assert_good_file_checked(run, good)


# -- generated bad files ---------------------------------------------------------------------
def _binary_png() -> bytes:
    return b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8 + b"DataLoader"


def _binary_elf() -> bytes:
    return b"\x7fELF\x02\x01\x01" + b"\x00" * 9 + b"DataLoader torch" + bytes(range(1, 128))


def _deep_parentheses() -> bytes:
    depth = 1000  # the stdlib parser's limit is 200
    return b"from torch.utils.data import DataLoader\nx = " + b"(" * depth + b")" * depth + b"\n"


def _deep_unary() -> bytes:
    return b"from torch.utils.data import DataLoader\nx = " + b"-" * 300_000 + b"1\n"


def _deep_for_the_analysis() -> bytes:
    """Nests deeper than CPython compiles (code it compiles is checked: tests/test_deep_code.py)."""
    depth = 20_000
    chain = b"+".join([b"1"] * depth)
    return (
        b"from torch.utils.data import DataLoader\n"
        b"loader = DataLoader(range(4), shuffle=" + chain + b")\n"
    )


GENERATED = [
    # name, bytes, what the message must say
    ("binary_png.py", _binary_png, r"^cannot decode: not valid utf-8"),
    ("binary_elf.py", _binary_elf, r"NUL byte"),
    ("deep_parentheses.py", _deep_parentheses, r"^SyntaxError: too many nested parentheses"),
    ("deep_unary.py", _deep_unary, r"(RecursionError|MemoryError|SyntaxError).*(nested|complex)"),
    ("deep_analysis.py", _deep_for_the_analysis, r"^(RecursionError|MemoryError).*nested too"),
]


@pytest.mark.parametrize(("name", "make", "message"), GENERATED)
def test_generated_bad_file_is_one_rng000_line(
    tmp_path: Path, name: str, make: Callable[[], bytes], message: str
) -> None:
    good = with_good_file(tmp_path)
    (tmp_path / name).write_bytes(make())
    run = check(tmp_path)
    line = assert_one_invalid(run, name, message)
    assert "internal error" not in line.message  # a deep file is not a seedlint bug
    assert_good_file_checked(run, good)


def test_deeply_nested_file_with_a_finding_is_not_fixed_but_others_are(tmp_path: Path) -> None:
    """Deep enough for libcst's code generation to exhaust the stack, not the stdlib parser:
    that file keeps its finding and gets one error line; the other file is fixed."""
    with_good_file(tmp_path)
    depth = 450  # under the analysis' limit, over libcst's
    chain = "+".join(["1"] * depth)
    source = (
        "from torch.utils.data import DataLoader\n"
        f"x = {chain}\n"
        "loader = DataLoader(range(4), shuffle=True)\n"
    )
    (tmp_path / "deep.py").write_text(source)
    # The json output computes each fix's edits with libcst too: still one finding, no crash.
    as_json = seedlint(tmp_path, "--output-format", "json-lines", "deep.py")
    assert as_json.rc == 1 and '"code": "RNG001"' in as_json.stdout
    assert len(as_json.stdout.splitlines()) == 1
    run = seedlint(tmp_path, "--fix", "--output-format", "concise", ".")
    assert "generator=" in (tmp_path / GOOD).read_text()
    deep_after = (tmp_path / "deep.py").read_text()
    if deep_after == source:  # libcst could not: one clear error line, the finding stays
        assert [line.code for line in run.of("deep.py")] == ["RNG001"]
        errors = [e for e in run.stderr.splitlines() if "deep.py" in e]
        assert len(errors) == 1 and "nested too deeply" in errors[0], run.stderr
        assert run.rc == 1
    else:  # a libcst that copes: fixed like any file
        compile(deep_after, "deep.py", "exec")
        assert run.of("deep.py") == []


def test_50000_line_file(tmp_path: Path) -> None:
    good = with_good_file(tmp_path)
    lines = [
        "from torch.utils.data import DataLoader",
        "loader = DataLoader(range(4), shuffle=True)",
    ]
    lines += [f"value_{i} = {i} * 2  # filler" for i in range(50_000 - 3)]
    lines.append("last = DataLoader(range(4), shuffle=True)")
    (tmp_path / "big.py").write_text("\n".join(lines) + "\n")
    run = check(tmp_path)
    assert [(f.code, f.row, f.col) for f in run.of("big.py")] == [
        ("RNG001", 2, 10),
        ("RNG001", 50_000, 8),
    ]
    assert_good_file_checked(run, good)


# -- files that cannot be read ---------------------------------------------------------------
def test_dangling_symlink(tmp_path: Path) -> None:
    good = with_good_file(tmp_path)
    (tmp_path / "dangling.py").symlink_to(tmp_path / "missing.py")
    run = check(tmp_path)
    assert_one_invalid(run, "dangling.py", r"^cannot read: dangling symbolic link$", 1)
    assert_good_file_checked(run, good)


def test_symlink_loop(tmp_path: Path) -> None:
    good = with_good_file(tmp_path)
    (tmp_path / "self.py").symlink_to("self.py")
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    run = check(tmp_path)
    for name in ("self.py", "a.py", "b.py"):
        assert_one_invalid(run, name, r"^cannot read: symbolic link loop$", 1)
    assert_good_file_checked(run, good)


def test_folder_symlink_loop_is_not_followed(tmp_path: Path) -> None:
    good = with_good_file(tmp_path / "pkg")
    (tmp_path / "pkg" / "again").symlink_to(tmp_path)
    run = check(tmp_path)
    assert_good_file_checked(run, good, os.path.join("pkg", GOOD))
    assert len(run.lines) == 1


def test_folder_named_like_a_python_file(tmp_path: Path) -> None:
    """A folder named ``x.py`` is a folder: walked like any other (as ruff does), never read
    as a file; its files are checked, and so is everything beside it."""
    good = with_good_file(tmp_path)
    with_good_file(tmp_path / "x.py")
    run = check(tmp_path)
    assert run.of("x.py") == []
    assert_good_file_checked(run, good)
    assert_good_file_checked(run, good, os.path.join("x.py", GOOD))
    # Named explicitly, it is walked too.
    explicit = check(tmp_path, "x.py")
    assert_good_file_checked(explicit, good, os.path.join("x.py", GOOD))


def test_a_folder_read_as_a_file_is_one_line(tmp_path: Path) -> None:
    """If a file becomes a folder between the walk and the read, the read reports it."""
    from seedlint.run.files import read_file

    (tmp_path / "x.py").mkdir()
    assert read_file(tmp_path / "x.py") == (None, "cannot read: it is a folder")


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="root reads a chmod 000 file anyway; test_unreadable_file_simulated covers it",
)
def test_unreadable_file(tmp_path: Path) -> None:
    good = with_good_file(tmp_path)
    locked = tmp_path / "locked.py"
    locked.write_text("from torch.utils.data import DataLoader\n")
    locked.chmod(0)
    try:
        run = check(tmp_path)
    finally:
        locked.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert_one_invalid(run, "locked.py", r"^cannot read: Permission denied$", 1)
    assert_good_file_checked(run, good)


def test_unreadable_file_simulated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same, in process, with ``open`` refusing the file as the OS would (so that it runs
    as root too)."""
    import builtins

    good = with_good_file(tmp_path)
    locked = tmp_path / "locked.py"
    locked.write_text("from torch.utils.data import DataLoader\nDataLoader([], shuffle=True)\n")
    real_open = builtins.open
    real_os_open = os.open

    def refusing_open(file: object, *args: object, **kwargs: object) -> object:
        if isinstance(file, (str, os.PathLike)) and Path(file).name == "locked.py":
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    def refusing_os_open(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if isinstance(file, (str, os.PathLike)) and Path(file).name == "locked.py":
            raise PermissionError(13, "Permission denied", str(file))
        return real_os_open(file, flags, *args, **kwargs)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(builtins, "open", refusing_open)
    monkeypatch.setattr(os, "open", refusing_os_open)
    rc = cli.main(["check", "--isolated", "--no-cache", "--output-format", "concise", "."])
    monkeypatch.undo()
    out = capsys.readouterr()
    run = Run(rc, out.out, out.err, [])
    run.lines = parse_lines(out.out)
    assert_one_invalid(run, "locked.py", r"^cannot read: Permission denied$", 1)
    assert_good_file_checked(run, good)


def test_unlistable_folder_simulated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    good = with_good_file(tmp_path)
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "a.py").write_text("x = 1\n")
    real_scandir = os.scandir

    def refusing_scandir(path: object = ".") -> object:
        if str(path).endswith("secret"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "scandir", refusing_scandir)
    rc = cli.main(["check", "--isolated", "--no-cache", "--output-format", "concise", "."])
    monkeypatch.undo()
    out = capsys.readouterr()
    assert rc == 1
    secret = [t for t in out.out.splitlines() if t.startswith("secret")]
    assert len(secret) == 1 and "RNG000" in secret[0] and "Permission denied" in secret[0]
    assert any(t.startswith(f"{GOOD}:{good[0]}:{good[1]}: RNG001") for t in out.out.splitlines())


def test_path_that_does_not_exist(tmp_path: Path) -> None:
    with_good_file(tmp_path)
    run = check(tmp_path, GOOD, "missing.py")
    assert run.rc == 2
    assert run.stderr.strip() == "seedlint: error: missing.py: no such file or folder"
    assert run.stdout == ""


def test_non_utf8_file_name(tmp_path: Path) -> None:
    if sys.platform in ("darwin", "win32"):
        pytest.skip("this file system only stores Unicode file names")
    good = with_good_file(tmp_path)
    name = os.fsdecode(b"caf\xe9.py")  # latin-1 bytes: not UTF-8
    (tmp_path / name).write_text(
        "from torch.utils.data import DataLoader\nDataLoader([], shuffle=True)\n"
    )
    run = check(tmp_path)
    assert [(f.code, f.row) for f in run.of(name)] == [("RNG001", 2)]
    assert_good_file_checked(run, good)
    # A terminal that refuses undecodable text, and an output file, still get every line.
    command = ["check", "--isolated", "--no-cache", "--output-format", "concise"]
    env_run = run_seedlint(
        *command, "-o", "out.txt", ".", cwd=tmp_path, env={"PYTHONIOENCODING": "utf-8"}, text=False
    )
    assert b"Traceback" not in env_run.stderr
    written = (tmp_path / "out.txt").read_bytes()
    assert b"caf\xe9.py:2:" in written and b"good.py:" in written
    strict = run_seedlint(
        *command, ".", cwd=tmp_path, env={"PYTHONIOENCODING": "utf-8:strict"}, text=False
    )
    assert strict.returncode == 1 and b"Traceback" not in strict.stderr
    assert b"good.py:" in strict.stdout and b"caf" in strict.stdout


# -- internal errors -------------------------------------------------------------------------
def test_internal_error_is_one_finding_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug in a rule, on one file, is that file's RNG000 with a hint to report it."""
    from seedlint.rules.rng001_shuffle_without_generator import ShuffleWithoutGenerator

    good = with_good_file(tmp_path)
    (tmp_path / "trigger.py").write_text(
        "from torch.utils.data import DataLoader\nx = 'boom'\nDataLoader([], shuffle=True)\n"
    )
    real_check = ShuffleWithoutGenerator.check

    def broken_check(self: ShuffleWithoutGenerator, facts: ModuleFacts) -> Iterator[Violation]:
        if any(getattr(node, "value", None) == "boom" for node in ast.walk(facts.tree)):
            raise KeyError("boom")
        return real_check(self, facts)

    monkeypatch.setattr(ShuffleWithoutGenerator, "check", broken_check)
    monkeypatch.chdir(tmp_path)
    rc = cli.main(
        ["check", "--isolated", "--no-cache", "-j", "1", "--output-format", "concise", "."]
    )
    out = capsys.readouterr()
    assert rc == 1
    assert "Traceback" not in out.out + out.err
    trigger = [t for t in out.out.splitlines() if t.startswith("trigger.py:")]
    assert len(trigger) == 1
    assert "RNG000 internal error: KeyError: 'boom'" in trigger[0]
    assert "please report this" in trigger[0]
    assert any(t.startswith(f"{GOOD}:{good[0]}:{good[1]}: RNG001") for t in out.out.splitlines())


def test_unexpected_error_outside_a_file_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A bug outside the per-file pipeline still ends with one line and exit code 2."""
    from seedlint import report

    with_good_file(tmp_path)
    monkeypatch.chdir(tmp_path)

    def broken(*args: object) -> str:
        raise ValueError("formatter bug")

    monkeypatch.setitem(report.FORMATS, "concise", broken)
    rc = cli.main(["check", "--isolated", "--no-cache", "--output-format", "concise", "."])
    out = capsys.readouterr()
    assert rc == 2
    assert out.err.strip().splitlines() == [
        "seedlint: error: internal error: ValueError: formatter bug (please report this at the "
        "seedlint issue tracker, with the command line)"
    ]


def test_every_bad_file_at_once(tmp_path: Path) -> None:
    """All of the above in one tree: one line per bad file, every good file still checked."""
    good = with_good_file(tmp_path)
    expected_invalid = []
    for name, _, _ in BROKEN_FIXTURES:
        shutil.copy(FIXTURES / name, tmp_path / name)
        expected_invalid.append(name)
    for name, make, _ in GENERATED:
        (tmp_path / name).write_bytes(make())
        expected_invalid.append(name)
    for name in (*VALID_FIXTURES, "empty.py", "only_comments.py"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    (tmp_path / "dangling.py").symlink_to("nowhere.py")
    (tmp_path / "loop.py").symlink_to("loop.py")
    expected_invalid += ["dangling.py", "loop.py"]
    run = check(tmp_path)
    assert run.rc == 1
    invalid = sorted(line.path for line in run.lines if line.code == "RNG000")
    assert invalid == sorted(expected_invalid)
    assert_good_file_checked(run, good)
    for name in VALID_FIXTURES:
        assert [line.code for line in run.of(name)] == ["RNG001"], name


def test_a_broken_config_in_a_folder_nobody_named_does_not_stop_the_run(tmp_path: Path) -> None:
    """The project index walks the whole project: a folder whose configuration file is
    invalid is left out of it with one warning, and the named file is checked and fixed.
    A walk the user asked for (`check .`) still stops on it, as ruff's does."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "train.py").write_text(
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "loader = DataLoader(range(4), shuffle=True)\n"
    )
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "pyproject.toml").write_text("[tool.seedlint\nbroken")
    (tmp_path / "other" / "helpers.py").write_text("import random\nrandom.seed(0)\n")
    checked = run_seedlint("check", "--no-cache", "train.py", cwd=tmp_path)
    assert checked.returncode == 1, checked.stderr
    assert "RNG001" in checked.stdout
    diff = run_seedlint("check", "--no-cache", "--fix", "--diff", "train.py", cwd=tmp_path)
    assert diff.returncode == 1, diff.stderr
    assert "+loader = DataLoader(range(4), shuffle=True, generator=" in diff.stdout
    warnings = [line for line in diff.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "other/pyproject.toml" in warnings[0], diff.stderr
    assert "left out of the project index" in warnings[0]
    walked = run_seedlint("check", "--no-cache", ".", cwd=tmp_path)
    assert walked.returncode == 2 and "other/pyproject.toml" in walked.stderr


def test_a_codec_a_package_registers_is_read_as_utf8(tmp_path: Path) -> None:
    """`# -*- coding: future_fstrings -*-` names a codec the program's requirements install
    (it rewrites UTF-8 source): the file is checked and fixed as UTF-8, its cookie kept; a
    file under such a cookie whose bytes are not UTF-8 is still one RNG000."""
    source = (
        b"# -*- coding: future_fstrings -*-\nfrom torch.utils.data import DataLoader\n"
        b"name = '\xc3\xa9t\xc3\xa9'\nDataLoader(range(4), shuffle=True)\n"
    )
    path = tmp_path / "t.py"
    path.write_bytes(source)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "seedlint",
            "check",
            "--no-cache",
            "--output-format",
            "concise",
            "--fix",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "RNG000" not in run.stdout, run.stdout
    fixed = path.read_bytes()
    assert fixed.startswith(b"# -*- coding: future_fstrings -*-\n")
    assert b"name = '\xc3\xa9t\xc3\xa9'" in fixed and b"generator=" in fixed
    ast.parse(fixed.decode("utf-8"))
    path.write_bytes(source.replace(b"\xc3\xa9", b"\xe9"))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "seedlint",
            "check",
            "--no-cache",
            "--output-format",
            "concise",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "RNG000" in run.stdout and "unknown encoding" in run.stdout, run.stdout
