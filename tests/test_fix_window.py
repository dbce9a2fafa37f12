"""A very large module is fixed through a window (``seedlint.fixes.window``): libcst parses the
top-level statements the fixes touch, the rest stands as placeholders of the same lines. The
result must be exactly the whole module's: these tests force the window on small files."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from seedlint.config import Settings
from seedlint.engine import fix as fixing
from seedlint.engine.fix import edits_for, fix_text
from seedlint.engine.selection import selection
from seedlint.fixes import window
from seedlint.fixes.text import lines
from seedlint.fixes.window import OutsideWindow, make_window

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SETTINGS = Settings(unsafe_fixes=True)


@pytest.fixture
def always(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(window, "WINDOW_LINES", 0)


MODULE = (
    '"""Doc."""\n'
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "# a comment before a left-out statement\n"
    "A = 1\n"
    "\n"
    "def helper(x):\n"
    "    return x + 1\n"
    "\n"
    "B = [\n"
    "    1,\n"
    "]\n"
    "loader = DataLoader(range(8), shuffle=True)\n"
    "C = 2; D = 3\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    print(loader)\n"
)


@pytest.mark.usefixtures("always")
def test_a_window_keeps_what_fixes_touch_and_leaves_out_the_rest() -> None:
    made = make_window(MODULE, ast.parse(MODULE), {14})
    assert made is not None
    kept = made.text.splitlines()
    original = MODULE.splitlines()
    assert len(kept) == len(original)
    assert made.holes == [(6, 13), (15, 15)]  # A..B as one placeholder; `C = 2; D = 3`
    for row, (line, was) in enumerate(zip(kept, original), start=1):
        if not made.covers(row):
            assert line == was  # the docstring, imports, the comment, the loader, __main__
    assert kept[5] == '"""' and kept[12] == '"""' and kept[14] == "()"
    ast.parse(made.text)


@pytest.mark.usefixtures("always")
def test_restore_carries_changes_back_and_refuses_a_placeholder() -> None:
    made = make_window(MODULE, ast.parse(MODULE), {14})
    assert made is not None
    changed = made.text.replace("shuffle=True)", "shuffle=True, generator=g)")
    assert made.restore(changed) == MODULE.replace("shuffle=True)", "shuffle=True, generator=g)")
    inserted = made.text.replace("loader = ", "g = 1\nloader = ")
    assert made.restore(inserted) == MODULE.replace("loader = ", "g = 1\nloader = ")
    with pytest.raises(OutsideWindow):
        made.restore(made.text.replace('"""\n\n', '"""\nx = 1\n', 1))


def test_small_modules_and_indented_trailing_comments_get_no_window() -> None:
    assert make_window(MODULE, ast.parse(MODULE), {14}) is None  # under WINDOW_LINES
    tricky = "def f():\n    pass\n    # belongs to f's block\nx = 1\n"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(window, "WINDOW_LINES", 0)
        assert make_window(tricky, ast.parse(tricky), {4}) is None


@pytest.mark.usefixtures("always")
def test_when_the_window_cannot_serve_the_whole_module_is_fixed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fix that needs a left-out statement (or a change touching one) raises OutsideWindow:
    the fixer and the json edits start again with the whole module, with the same result."""
    text = (
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "def build():\n    return DataLoader(range(8), num_workers=2)\n\n"
        "X = 1\n\nloader = DataLoader(range(8), shuffle=True)\n"
    )
    whole = _outcome(text, "m.py")
    rows: list[object] = []
    real = fixing._round_in

    def spy(*args: object, **options: object) -> object:
        rows.append(args[5])  # the rows of the window (None: the whole module)
        return real(*args, **options)  # type: ignore[arg-type]

    def refuse(self: window.Window, new_text: str) -> str:
        raise OutsideWindow("refused")

    monkeypatch.setattr(fixing, "_round_in", spy)
    monkeypatch.setattr(window.Window, "restore", refuse)
    assert _outcome(text, "m.py") == whole
    assert whole[0] != text and whole[2]
    assert isinstance(rows[0], set) and rows[1] is None  # the window, then the whole module


def _outcome(text: str, display: str) -> tuple[object, ...]:
    fixed = fix_text(text, display, SETTINGS, True)
    return (fixed.new_text, fixed.error, edits_for(text.encode(), display, SETTINGS))


def test_every_fixture_is_fixed_the_same_through_a_window() -> None:
    """``--fix`` and the json edits of every fixture that a rule runs on, with the window
    forced and with the whole module: identical (this failed while the window left out a
    module's docstring: imports went above it)."""
    chosen = selection(SETTINGS)
    compared = 0
    for path in sorted(FIXTURES.rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if not chosen.firing(text.encode("utf-8", "surrogatepass"), str(path), notebook=False):
            continue
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(window, "WINDOW_LINES", 10**9)
            whole = _outcome(text, str(path))
            patch.setattr(window, "WINDOW_LINES", 0)
            windowed = _outcome(text, str(path))
        assert windowed[:2] == whole[:2], path
        # Each fix's edits give the same text (an insertion among blank lines may be placed
        # at either end of them: the whole module's edits come from its top-level statements)
        assert _applied(text, windowed[2]) == _applied(text, whole[2]), path
        compared += 1
    assert compared > 150


def _applied(text: str, edits: object) -> dict[object, str]:
    """Each finding's fixed text, from its edits."""
    assert isinstance(edits, dict)
    found: dict[object, str] = {}
    starts = [0]
    for line in lines(text):  # the rows the edits count
        starts.append(starts[-1] + len(line))
    for key, each in edits.items():
        out = text
        for edit in sorted(each, key=lambda e: (e.row, e.col), reverse=True):
            begin = starts[edit.row - 1] + edit.col
            end = starts[edit.end_row - 1] + edit.end_col
            out = out[:begin] + edit.content + out[end:]
        found[key] = out
    return found


NESTED = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "\n"
    "class Data:\n"
    "    def __init__(self):\n"
    "        self.items = list(range(8))\n"
    "        self.size = 8\n"
    "\n"
    "    def __len__(self):\n"
    "        return self.size\n"
    "\n"
    "\n"
    "def build(train):\n"
    '    """Two loaders."""\n'
    "    generator = torch.Generator()\n"
    "    first = DataLoader(train, shuffle=True)\n"
    "    second = DataLoader(train, generator=generator)\n"
    "    for item in first:\n"
    "        print(item)\n"
    "        # the loop's own comment\n"
    "    return first, second\n"
)


@pytest.mark.usefixtures("always")
def test_inner_placeholders_keep_the_rows_and_ends_of_what_holds_them() -> None:
    """With ``inner``, the statements inside a kept one that hold no finding's row become
    placeholders too, each ending at the column its code ended at (a block's end, by which
    the fixes find it, is unchanged); a block followed by a comment stays."""
    made = make_window(NESTED, ast.parse(NESTED), {17}, inner=True)
    assert made is not None
    kept = made.text.splitlines()
    original = NESTED.splitlines()
    assert made.holes == [(5, 11), (15, 16), (18, 18), (22, 22)]  # the class: top-level
    for _, last in made.holes[1:]:  # an inner one ends where its code ended
        assert len(kept[last - 1]) == len(original[last - 1])
    assert kept[14] == '    """' and kept[15].endswith('"""') and kept[17].strip()[0] == "("
    assert kept[16] == original[16]  # the finding's statement
    assert kept[18:21] == original[18:21]  # the loop: a comment follows its block
    top_level = make_window(NESTED, ast.parse(NESTED), {17})
    assert top_level is not None and top_level.holes == [(5, 11)]
    tree = ast.parse(made.text)
    build = tree.body[-1]
    assert isinstance(build, ast.FunctionDef)
    assert (build.end_lineno, build.end_col_offset) == (22, len(original[21]))


@pytest.mark.usefixtures("always")
def test_a_rewritten_statement_beside_an_inner_placeholder_is_carried_back() -> None:
    made = make_window(NESTED, ast.parse(NESTED), {17, 19}, inner=True)
    assert made is not None
    new = made.text.replace(
        "    first = DataLoader(train, shuffle=True)\n",
        "    first = DataLoader(\n        train,\n        shuffle=True,\n    )\n",
    ).replace("    for item in first:\n", "    for item in first:  # x\n")
    expected = NESTED.replace(
        "    first = DataLoader(train, shuffle=True)\n",
        "    first = DataLoader(\n        train,\n        shuffle=True,\n    )\n",
    ).replace("    for item in first:\n", "    for item in first:  # x\n")
    assert made.restore(new) == expected
    with pytest.raises(OutsideWindow):
        made.restore(new.replace(made.text.splitlines()[17], "    second = 1"))


def test_the_fix_of_a_module_with_inner_placeholders_is_the_whole_modules() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(window, "WINDOW_LINES", 10**9)
        whole = fix_text(NESTED, "m.py", SETTINGS, True)
        patch.setattr(window, "WINDOW_LINES", 0)
        windowed = fix_text(NESTED, "m.py", SETTINGS, True)
    assert windowed.new_text == whole.new_text != NESTED
    assert "generator=" in windowed.new_text.split("first = DataLoader(")[1].split(")")[0]


@pytest.mark.usefixtures("always")
def test_a_window_that_serves_is_not_dropped_for_the_whole_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where libcst reproduces the window, the fixer and the json edits keep it: neither
    starts again with the whole module (the other side of the test above)."""
    rows: dict[str, list[object]] = {"_round_in": [], "_edits_in": []}
    for name in rows:
        real = getattr(fixing, name)

        def spy(
            *args: object, _real: object = real, _name: str = name, **options: object
        ) -> object:
            rows[_name].append(args[5])  # the rows of the window (None: the whole module)
            return _real(*args, **options)  # type: ignore[operator]

        monkeypatch.setattr(fixing, name, spy)
    fixed, error, edits = _outcome(MODULE, "m.py")
    assert error is None and fixed != MODULE and edits
    assert rows["_round_in"] and all(isinstance(r, set) for r in rows["_round_in"])
    assert rows["_edits_in"] and all(isinstance(r, set) for r in rows["_edits_in"])


# A class whose methods import and read `__name__` (as a large trainer class does): no import
# guard of the module, nor a `__main__` block.
TRAINER = (
    "import logging\n"
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "class Trainer:\n"
    "    def name(self):\n"
    "        return type(self).__name__\n"
    "\n"
    "    def helper(self):\n"
    "        import json\n"
    "        return json.dumps({})\n"
    "\n"
    "    def other(self):\n"
    "        value = 1\n"
    "        return value\n"
    "\n"
    "    def loader(self, data):\n"
    "        return DataLoader(data, shuffle=True)\n"
    "\n"
    "def main():\n"
    "    import os\n"
    "    print(__name__, os.sep)\n"
    "    return Trainer().loader(range(4))\n"
)


@pytest.mark.usefixtures("always")
def test_a_class_that_imports_and_reads_its_name_gets_inner_placeholders() -> None:
    """The methods that hold no finding stand as placeholders, except the one that imports
    (kept as it is); the fix is the whole module's."""
    made = make_window(TRAINER, ast.parse(TRAINER), {18}, inner=True)
    assert made is not None
    # not `helper`: it imports; `main` is kept (it imports) and its statements after the
    # import stand out
    assert made.holes == [(6, 7), (13, 15), (22, 23)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(window, "WINDOW_LINES", 10**9)
        whole = fix_text(TRAINER, "m.py", SETTINGS, True)
    windowed = fix_text(TRAINER, "m.py", SETTINGS, True)
    assert windowed.error is None and windowed.new_text == whole.new_text != TRAINER


GUARDS = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "for epoch in range(2):\n"
    "    value = epoch\n"
    "    loader = DataLoader(range(4), shuffle=True)\n"
    "    print(value)\n"
    "\n"
    "try:\n"
    "    import numpy\n"
    "    count = 1\n"
    "except ImportError:\n"
    "    numpy = None\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    value = 1\n"
    "    print(value)\n"
)


@pytest.mark.usefixtures("always")
def test_an_import_guard_and_the_main_block_keep_their_statements() -> None:
    """Inside a kept statement that is no definition, placeholders only where it neither
    imports (an import guard, where a new import may go) nor reads `__name__` (the
    `__main__` block, where a seed may go): the loop's other statements stand out."""
    made = make_window(GUARDS, ast.parse(GUARDS), {6}, inner=True)
    assert made is not None
    assert made.holes == [(5, 5), (7, 7)]


@pytest.mark.usefixtures("always")
def test_the_json_edits_use_inner_placeholders_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A quick fix in a large class parses the finding's method, not the whole class: each
    fix's edits go through the window with inner placeholders, and give the whole module's
    fixed text."""
    made: list[object] = []
    real = window.make_window

    def spy(*args: object, **options: object) -> object:
        found = real(*args, **options)  # type: ignore[arg-type]
        made.append(found)
        return found

    monkeypatch.setattr(window, "make_window", spy)
    edits = edits_for(TRAINER.encode(), "m.py", SETTINGS)
    assert edits and made
    holes = [found.holes for found in made if isinstance(found, window.Window)]
    assert holes and all((13, 15) in each for each in holes)  # `other`, inside the class
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(window, "WINDOW_LINES", 10**9)
        whole = edits_for(TRAINER.encode(), "m.py", SETTINGS)
    assert _applied(TRAINER, edits) == _applied(TRAINER, whole)
