"""The fix toolkit, at the edges the machine-made mutants found untested (issue 31): the json
edits of a fix (``minimal_edits``), exact for each kind of change and line ending, at the start
and at the end of a text with or without its last newline; and many random texts, each of
whose edits, applied, give exactly the new text.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from seedlint.core import Edit
from seedlint.fixes.text import lines, minimal_edits


def apply(old: str, edits: tuple[Edit, ...]) -> str:
    """Rows are 1-based, columns 0-based offsets into their line of ``old`` (the row after the
    last line break, column 0, is the end of a text that ends with one)."""
    starts = [0]
    for line in lines(old):
        starts.append(starts[-1] + len(line))

    def offset(row: int, col: int) -> int:
        assert 1 <= row <= len(starts), (row, col)
        line_length = starts[row] - starts[row - 1] if row < len(starts) else 0
        assert 0 <= col <= line_length, (row, col, line_length)
        return starts[row - 1] + col

    text = old
    for edit in sorted(edits, key=lambda e: (e.row, e.col), reverse=True):
        start, end = offset(edit.row, edit.col), offset(edit.end_row, edit.end_col)
        assert start <= end
        text = text[:start] + edit.content + text[end:]
    return text


# (old, new, the edits as (content, row, col, end_row, end_col))
CASES = [
    ("a = 1\n", "a = 12\n", [("2", 1, 5, 1, 5)]),  # an insertion
    ("a = 12\n", "a = 1\n", [("", 1, 5, 1, 6)]),  # a deletion
    ("a = 1\nb = 2\n", "a = 1\nb = 3\n", [("3", 2, 4, 2, 5)]),  # a replacement
    ("x = f(a)\n", "x = f(a, b)\n", [(", b", 1, 7, 1, 7)]),  # prefix and suffix shared
    ("x = 1\ny = 2", "x = 1\ny = 23", [("3", 2, 5, 2, 5)]),  # the end, no last newline
    ("x = 1\ny = 2", "x = 1\ny = 2\n", [("\n", 2, 5, 2, 5)]),
    ("x = 1", "x = 1\nz = 3", [("\nz = 3", 1, 5, 1, 5)]),
    ("x = 1\n", "import torch\nx = 1\n", [("import torch\n", 1, 0, 1, 0)]),  # the start
    ("a\r\nb\r\n", "a\r\nc\r\nb\r\n", [("c\r\n", 2, 0, 2, 0)]),  # CRLF
    ("a\rb\r", "a\rbc\r", [("c", 2, 1, 2, 1)]),  # CR
    ("é = 1\n", "é = 2\n", [("2", 1, 4, 1, 5)]),  # columns count characters
    ("a\nb\nc\nd\n", "a\nB\nc\nD\n", [("B", 2, 0, 2, 1), ("D", 4, 0, 4, 1)]),  # two hunks
    ("", "x = 1\n", [("x = 1\n", 1, 0, 1, 0)]),
    ("x = 1\n", "", [("", 1, 0, 2, 0)]),
]


@pytest.mark.parametrize(("old", "new", "expected"), CASES)
def test_minimal_edits_of_each_kind(
    old: str, new: str, expected: list[tuple[str, int, int, int, int]]
) -> None:
    edits = minimal_edits(old, new)
    assert [(e.content, e.row, e.col, e.end_row, e.end_col) for e in edits] == expected
    assert apply(old, edits) == new


def test_minimal_edits_of_random_texts_give_the_new_text() -> None:
    rng = random.Random(31)
    pieces = ["a", "b", "é", " ", "\n", "\r\n", "\r", "x = 1", "(", ")"]
    for _ in range(400):
        old = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        new_pieces = list(old)
        for _ in range(rng.randint(1, 3)):
            at = rng.randint(0, len(new_pieces))
            if rng.random() < 0.5 and at < len(new_pieces):
                del new_pieces[at]
            else:
                new_pieces.insert(at, rng.choice(pieces))
        new = "".join(new_pieces)
        edits = minimal_edits(old, new)
        assert apply(old, edits) == new, (old, new, edits)
        assert (edits == ()) is (old == new)


# -- an import guard: every handler spelling that catches a failed import ---------------------
GUARDED = (
    "try:\n    from torch.utils.data import DataLoader\nexcept {handler}:\n    DataLoader = None\n"
    "\n\ndef build(dataset, seed):\n    return DataLoader(dataset, shuffle=True)\n"
)
FIXED_CALL = (
    "    return DataLoader(\n        dataset,\n        shuffle=True,\n"
    "        generator=torch.Generator().manual_seed(seed),\n    )\n"
)


@pytest.mark.parametrize(
    ("handler", "guarded"),
    [
        ("ImportError", True),
        ("ModuleNotFoundError", True),
        ("Exception", True),
        ("BaseException", True),
        ("(ImportError, OSError)", True),
        ("(OSError, ModuleNotFoundError) as error", True),
        ("builtins.ImportError", False),  # an attribute, not a name of the table
        ("OSError", False),
        ("(OSError, ValueError)", False),
    ],
)
def test_the_new_import_goes_inside_every_kind_of_import_guard(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    handler: str,
    guarded: bool,
) -> None:
    from seedlint import cli

    before = GUARDED.format(handler=handler)
    (tmp_path / "train.py").write_text(before)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--isolated", "--no-cache", "--fix", "-q", "train.py"]) == 0
    after = before.replace("    return DataLoader(dataset, shuffle=True)\n", FIXED_CALL)
    if guarded:
        after = after.replace("try:\n", "try:\n    import torch\n")
    else:
        after = "import torch\n\n" + after
    assert (tmp_path / "train.py").read_text() == after


def test_a_bare_except_is_an_import_guard_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from seedlint import cli

    before = GUARDED.replace("except {handler}:", "except:")
    (tmp_path / "train.py").write_text(before)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--isolated", "--no-cache", "--fix", "-q", "train.py"]) == 0
    after = before.replace("    return DataLoader(dataset, shuffle=True)\n", FIXED_CALL)
    assert (tmp_path / "train.py").read_text() == after.replace(
        "try:\n", "try:\n    import torch\n"
    )


def _changed_lines(rng: random.Random, old: list[str]) -> list[str]:
    new: list[str] = []
    for line in old:
        roll = rng.random()
        if roll < 0.1:
            continue  # deleted
        if roll < 0.2:
            new.append(f"new {rng.randrange(40)}\n")  # replaced
            continue
        new.append(line)
        if roll > 0.9:
            new.append(f"added {rng.randrange(40)}\n")  # inserted
    return ["first changed\n", *new, "last changed\n"]


@pytest.mark.parametrize("seed", range(3))
def test_the_opcodes_of_long_differing_texts_cover_both(seed: int) -> None:
    """Past the exact matcher's size (the lines that differ, paired, over ``_EXACT_PAIRS``), the
    opcodes come from the walk: they still cover both texts in order, every ``equal`` block
    equal; and the json edits' splice computes the same opcodes (``spliced._opcodes``)."""
    from seedlint.fixes import spliced, text

    rng = random.Random(seed)
    old = [f"line {rng.randrange(40)}\n" for _ in range(700)]
    new = _changed_lines(rng, old)
    assert len(old) * len(new) > text._EXACT_PAIRS
    codes = text.opcodes(old, new)
    i = j = 0
    rebuilt: list[str] = []
    for tag, i1, i2, j1, j2 in codes:
        assert (i1, j1) == (i, j), codes
        assert i1 <= i2 and j1 <= j2
        if tag == "equal":
            assert old[i1:i2] == new[j1:j2]
        rebuilt += new[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(old), len(new))
    assert rebuilt == new
    assert spliced._opcodes(old, new, 0, 0) == codes


def test_a_long_stretch_of_repeated_lines_is_matched_line_by_line() -> None:
    """A changed stretch of 200 lines or more (difflib's threshold for its "popular" lines)
    whose lines in common are all repeated (a blank line and `pass` 100 times each, as in a run
    of empty classes): difflib's automatic junk would match none of them and make the stretch
    one replacement; the opcodes, and the json edits' splice, match them (two one-line edits)."""
    from seedlint.fixes import spliced, text

    body = ["\n", "    pass\n"] * 100
    old = ["class First:\n", *body, "LAST = 1\n"]
    new = ["class Renamed:\n", *body, "LAST = 2\n"]
    expected = [
        ("replace", 0, 1, 0, 1),
        ("equal", 1, 201, 1, 201),
        ("replace", 201, 202, 201, 202),
    ]
    assert text.opcodes(old, new) == expected
    assert spliced._opcodes(old, new, 0, 0) == expected
    old_text = "".join(old)
    starts = [0]
    for line in old:
        starts.append(starts[-1] + len(line))
    edits = spliced.spliced_edits(old_text, old, starts, 0, len(old), new)
    assert edits == minimal_edits(old_text, "".join(new))
    assert edits == (Edit("Renamed", 1, 6, 1, 11), Edit("2", 202, 7, 202, 8))


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (0, [("insert", 0, 0, 0, 30), ("equal", 0, 470, 30, 500), ("delete", 470, 500, 500, 500)]),
        (1, [("replace", 0, 500, 0, 501)]),
    ],
    ids=["exactly-the-exact-matchers-size", "one-line-more"],
)
def test_the_exact_matcher_runs_up_to_its_size_and_no_further(
    extra: int, expected: list[tuple[str, int, int, int, int]]
) -> None:
    """Lines that differ, paired, exactly ``_EXACT_PAIRS`` (500 by 500): difflib's exact
    matching finds the 470 lines moved by 30 (past the walk's window); one line more, the walk
    resynchronises on nothing and replaces the whole stretch. The splice's own threshold is the
    same."""
    from seedlint.fixes import spliced, text

    assert text._EXACT_PAIRS == 500 * 500
    old = [f"old {i}\n" for i in range(500)]
    new = [f"new {i}\n" for i in range(30)] + old[: 470 + extra]
    assert text.opcodes(old, new) == expected
    assert spliced._opcodes(old, new, 0, 0) == expected


@pytest.mark.parametrize(
    ("old", "new", "rows"),
    [
        ("a\nb\nc\n", "a\nX\nb\nc\n", [1, 2, 2, 3]),  # an inserted row: the old row after it
        ("a\nb\n", "a\nb\nX\n", [1, 2, 2]),  # inserted at the end: the last old row
        ("a\nb\nc\n", "a\nY\nc\n", [1, 2, 3]),  # a replaced row: its own
        ("a\nb\nc\n", "a\nc\n", [1, 3]),  # a deleted row: the next keeps its old row
    ],
)
def test_a_new_rows_old_row(old: str, new: str, rows: list[int]) -> None:
    from seedlint.fixes.text import LineMap

    line_map = LineMap(old, new)
    assert [line_map.old_row(row) for row in range(1, len(rows) + 1)] == rows


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("x = 1\n", "t = 0\nx = 1\n"),  # the new text sorts before the old one
        ("a = 1\n", "a = 1\nb = 2\n"),  # and after it
    ],
)
def test_a_unified_diff_whatever_order_the_texts_sort_in(old: str, new: str) -> None:
    from seedlint.fixes.text import unified_diff

    diff = unified_diff(old, new, "f.py")
    assert diff.startswith("--- f.py\n+++ f.py\n@@ ")
    assert unified_diff(old, old, "f.py") == ""


def test_the_fix_is_the_same_where_libcsts_code_generation_gives_no_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the positions come without the printed code (a libcst whose provider differs),
    the module's code is printed on demand: the same fixed text as with it."""
    from seedlint.config import Settings
    from seedlint.engine.fix import fix_text
    from seedlint.fixes import context

    text = (
        "import torch\nfrom torch.utils.data import DataLoader\n\ntorch.manual_seed(0)\n"
        "loader = DataLoader(range(8), shuffle=True)  # keep me\n"
    )
    expected = fix_text(text, "train.py", Settings(), unsafe=True)
    assert expected.error is None and expected.new_text != text
    real = context.positions
    monkeypatch.setattr(context, "positions", lambda module: (real(module)[0], None))
    fixed = fix_text(text, "train.py", Settings(), unsafe=True)
    assert (fixed.new_text, fixed.error) == (expected.new_text, None)


# -- two fixes replacing the same call differently are two changes, not one ----------------------
SHUFFLED_WORKERS = (
    "import random\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n\n"
    "def seed_worker(worker_id):\n    random.seed(torch.initial_seed() % 2**32)\n\n\n"
    "loader = DataLoader(range(8), shuffle=True, num_workers=4)\n"
)


def test_two_fixes_of_one_call_are_counted_once_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """RNG001 and RNG002 at one call both replace the call (the module's `seed_worker` is
    there to pass): the second waits for the next round, and each finding is fixed once."""
    from seedlint import cli

    (tmp_path / "train.py").write_text(SHUFFLED_WORKERS)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = cli.main(["check", "--isolated", "--no-cache", "--fix", "train.py"])
    assert capsys.readouterr().out.splitlines() == ["Found 2 findings (2 fixed, 0 remaining)."]
    assert code == 0
    assert (
        (tmp_path / "train.py")
        .read_text()
        .endswith(
            "loader = DataLoader(\n    range(8),\n    shuffle=True,\n    num_workers=4,\n"
            "    generator=torch.Generator().manual_seed(torch.initial_seed()),\n"
            "    worker_init_fn=seed_worker,\n)\n"
        )
    )


# -- the window of a large module: statements after two on one line, a change at a placeholder ---
WINDOWED = (
    '"""Doc."""\n'
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "A = 1\n"
    "loader = DataLoader(range(8), shuffle=True)\n"
    "C = 2; D = 3\n"
    "E = 4\n"
    "F = [\n"
    "    5,\n"
    "]\n"
)


def test_a_window_leaves_out_the_statements_after_two_on_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ast

    from seedlint.fixes import window
    from seedlint.fixes.window import OutsideWindow, make_window

    monkeypatch.setattr(window, "WINDOW_LINES", 0)
    made = make_window(WINDOWED, ast.parse(WINDOWED), {6})
    assert made is not None
    assert made.holes == [(5, 5), (7, 11)]  # A; `C = 2; D = 3` to F as one placeholder
    assert made.text.splitlines()[4] == "()"
    assert made.text.splitlines()[6:] == ['"""', "", "", "", '"""']
    # A change of a placeholder's lines (a replacement, a deletion) cannot be carried back.
    for changed in (
        made.text.replace("()\n", "x = 1\n"),
        made.text.replace("()\n", ""),
        made.text.replace('"""\n\n\n\n"""\n', '"""\n\n\n\n"""\nG = 6\n'),
    ):
        if changed.endswith("G = 6\n"):  # an insertion after the module's last placeholder
            assert made.restore(changed) == WINDOWED + "G = 6\n"
            continue
        with pytest.raises(OutsideWindow):
            made.restore(changed)


# -- a loader class of another module of the project, with an __init__ of its own -------------
SEEDED_LOADER = (
    "from torch.utils.data import DataLoader\n\n\nclass SeededLoader(DataLoader):\n"
    "    def __init__(self, dataset, shuffle=False, generator=None, num_workers=0,"
    " worker_init_fn=None):\n"
    "        super().__init__(\n            dataset, shuffle=shuffle, generator=generator,"
    " num_workers=num_workers,\n            worker_init_fn=worker_init_fn,\n        )\n"
)
GENERATOR = "torch.Generator().manual_seed(0)"


@pytest.mark.parametrize(
    ("rule", "call", "fixed"),
    [
        (
            "RNG001",
            "SeededLoader(dataset, True, None, 2, None)",
            f"SeededLoader(dataset, True, {GENERATOR}, 2, None)",
        ),
        (
            "RNG001",
            "SeededLoader(dataset, True, generator=None, num_workers=2)",
            f"SeededLoader(dataset, True, generator={GENERATOR}, num_workers=2)",
        ),
        (
            "RNG001",
            "SeededLoader(dataset, True, num_workers=2)",
            f"SeededLoader(dataset, True, num_workers=2, generator={GENERATOR})",
        ),
        (  # (a script that seeds nothing: the workers' base seed needs the generator too)
            "RNG002",
            "SeededLoader(dataset, True, None, 2, None)",
            f"SeededLoader(dataset, True, {GENERATOR}, 2, seed_worker)",
        ),
        (
            "RNG002",
            "SeededLoader(dataset, True, num_workers=2, worker_init_fn=None)",
            "SeededLoader(dataset, True, num_workers=2, worker_init_fn=seed_worker,"
            f" generator={GENERATOR})",
        ),
        (
            "RNG002",
            "SeededLoader(dataset, True, num_workers=2)",
            "SeededLoader(dataset, True, num_workers=2, worker_init_fn=seed_worker,"
            f" generator={GENERATOR})",
        ),
    ],
    ids=[f"{r}-{w}" for r in ("RNG001", "RNG002") for w in ("position", "keyword", "absent")],
)
def test_a_project_loader_class_takes_the_fixed_argument_at_its_own_position(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rule: str,
    call: str,
    fixed: str,
) -> None:
    """The class's own ``__init__`` (in another module) takes the generator and the workers'
    function by position: passed there as None, the fix replaces that value in place; passed
    by keyword, that keyword's; not passed, it is added by keyword (unsafe: an ``__init__`` of
    its own). The script seeds nothing: RNG002's fix passes a seeded generator too."""
    from seedlint import cli

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "loaders.py").write_text(SEEDED_LOADER)
    train = tmp_path / "train.py"
    train.write_text(f"from pkg.loaders import SeededLoader\n\ndataset = list(range(10))\n{call}\n")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    options = ["--no-cache", "--select", rule, "--fix", "--unsafe-fixes", "-q"]
    assert cli.main(["check", *options, "train.py"]) == 0
    written = train.read_text().split("dataset = list(range(10))\n")[1]  # maybe split in lines
    assert "".join(written.split()).replace(",)", ")") == "".join(fixed.split())


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs chown")
def test_root_replaces_another_users_file_with_a_new_one_of_the_same_owner(tmp_path: Path) -> None:
    """Root can give a new file any owner: another user's file is fixed by an atomic
    replace (a new inode), with its owner, group and mode (another user rewrites a file it
    could not give back in place)."""
    from seedlint.fixes.write import write_fixed

    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    os.chown(path, 65534, 65534)
    os.chmod(path, 0o640)
    inode = path.stat().st_ino
    assert write_fixed(path, b"x = 1\n", b"x = 2\n") is None
    info = path.stat()
    assert info.st_ino != inode
    assert (info.st_uid, info.st_gid, info.st_mode & 0o7777) == (65534, 65534, 0o640)
    assert path.read_bytes() == b"x = 2\n"


CAPTURED_LAST_SEED = (
    "import torch\n\ntorch.cuda.manual_seed(1)\ng = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g): torch.cuda.manual_seed_all(1)\n"
    "model = torch.nn.Linear(2, 2).cuda()\n"
)


def test_an_insertion_at_a_statement_a_later_fix_replaces_waits_for_the_next_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """RNG004 (row 3) adds `torch.manual_seed(1)` after the last seeding call, in the capture
    region's one-line suite; RNG003 (row 5) replaces that suite to move the call out: it
    conflicts with the insertion and waits, so the insertion is not lost (and RNG004 fixed
    twice). Three rounds: RNG004, then each RNG003 of the suite."""
    from seedlint import cli

    (tmp_path / "train.py").write_text(CAPTURED_LAST_SEED)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = cli.main(
        ["check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "--show-fixes", "train.py"]
    )
    assert capsys.readouterr().out.splitlines() == [
        "",
        "Fixed 3 findings:",
        "- train.py:",
        "    2 × RNG003 (seed-in-graph-capture)",
        "    1 × RNG004 (torch-unseeded-in-seeded-program)",
        "",
        "Found 3 findings (3 fixed, 0 remaining).",
    ]
    assert code == 0
    assert (tmp_path / "train.py").read_text() == (
        "import torch\n\ntorch.cuda.manual_seed(1)\ng = torch.cuda.CUDAGraph()\n"
        "torch.cuda.manual_seed_all(1)\ntorch.manual_seed(1)\n"
        "with torch.cuda.graph(g): pass\nmodel = torch.nn.Linear(2, 2).cuda()\n"
    )


def test_a_hollowed_value_nested_too_deeply_for_the_fixer_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A very large module's value that nothing reads is hollowed to a constant (here: the
    module counts as large from 100 characters), but the fixer's depth still counts the
    operators of its text (from the value's first column: not the target's `=`, nor the lines
    above): 3,199 `and` are over libcst's limit, and the fix is refused."""
    from seedlint import cli
    from seedlint.engine import parse

    monkeypatch.setattr(parse, "LARGE", 100)
    monkeypatch.setattr(parse, "PIECE", 60)
    text = (
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        f"unique_name = {' and '.join(['1'] * 3200)}\n"
        "loader = DataLoader(range(8), shuffle=True)\n"
    )
    (tmp_path / "train.py").write_text(text)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = cli.main(["check", "--isolated", "--no-cache", "--fix", "train.py"])
    err = capsys.readouterr().err
    assert (  # 3,199 `and` of the value's own text, below the assignment below the module
        "train.py: cannot fix: the file is nested too deeply for the fixer (about 3201 levels, "
        "at most 3000); it was left unchanged\n"
    ) in err
    assert code == 1
    assert (tmp_path / "train.py").read_text() == text


DECORATED_METHODS = (
    "import functools\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n\n"
    "class Data:\n"
    "    def loader(self):\n"
    "        return DataLoader(range(8), shuffle=True)\n"
    "\n"
    "    @property\n"
    "    def size(self):\n"
    "        return 8\n"
    "\n"
    "    @functools.lru_cache(maxsize=None)\n"
    "    def items(self):\n"
    "        return list(range(8))\n"
)


def test_a_windows_inner_placeholder_starts_at_the_first_decorator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Inside a kept class, the decorated methods that hold no finding's row are left out from
    their first decorator's `@` (the column of the line's indentation) to their end: one
    placeholder of rows 11 to 17."""
    import ast

    from seedlint.fixes import window

    monkeypatch.setattr(window, "WINDOW_LINES", 0)
    made = window.make_window(DECORATED_METHODS, ast.parse(DECORATED_METHODS), {9}, inner=True)
    assert made is not None
    assert made.holes == [(11, 17)]
    kept = made.text.splitlines()
    assert kept[:10] == DECORATED_METHODS.splitlines()[:10]
    assert kept[10] == '    """' and kept[16].endswith('"""')
    assert len(kept[16]) == len("        return list(range(8))")


def test_a_file_being_written_is_read_once_two_reads_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """What an editor wrote into the old file is put back once it stops changing: the reads
    go on (a millisecond apart) until two in a row agree, and that is the content."""
    from seedlint.fixes import write

    reads = iter([b"a", b"ab", b"abc", b"abc", b"abcd"])
    monkeypatch.setattr(write, "_read_all", lambda fd: next(reads))
    monkeypatch.setattr(write.time, "sleep", lambda seconds: None)
    assert write._settled(0) == b"abc"
    assert next(reads) == b"abcd"  # no read after the two that agree


def test_the_walk_of_long_texts_resynchronises_after_an_insertion() -> None:
    """Texts too long for difflib (600 differing lines each side) are walked: a line inserted
    at the head is an insertion, the 599 lines after it equal, the changed last line a
    replacement (not 600 lines replaced)."""
    from seedlint.fixes.text import opcodes

    old = [f"line {index}\n" for index in range(600)]
    new = ["new\n", *old[:-1], "changed\n"]
    assert opcodes(old, new) == [
        ("insert", 0, 0, 0, 1),
        ("equal", 0, 599, 1, 600),
        ("replace", 599, 600, 600, 601),
    ]
