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
        rows.append(args[-1])  # the rows of the window (None: the whole module)
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
        assert windowed == whole, path
        compared += 1
    assert compared > 150
