"""The fix loop's check of a fixed module parses only the statements the fix changed
(``seedlint.engine.splice``), and a fix run parses a module once (issue 34, case 7).

The joined tree must be the tree ``ast.parse`` makes of the new text, and the fix must be the
one the whole-module path makes: these tests force the join on small files and compare. The
cost is counted, never timed: the characters handed to ``compile`` (which ``ast.parse`` calls
too) in a one-finding ``--fix`` and json run of a large module.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path
from typing import Any

import pytest

from seedlint import cli
from seedlint.config import Settings
from seedlint.engine import fix as fixing
from seedlint.engine.fix import fix_text
from seedlint.engine.parse import parse_module
from seedlint.engine.selection import selection
from seedlint.engine.splice import splice
from seedlint.fixes import window

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SETTINGS = Settings(unsafe_fixes=True)


def _joined(old: str, new: str) -> Any:
    return splice(old, parse_module(old, "m.py"), new, "m.py")


def _dump(tree: ast.AST) -> str:
    return ast.dump(tree, include_attributes=True)


HEAD = "import torch\nfrom torch.utils.data import DataLoader\n\n"
BODY = "A = 1\n\n@decorate\ndef f():\n    return 2\n\nB = [\n    1,\n]\nC = 3; D = 4\n"


@pytest.mark.parametrize(
    "old, new",
    [
        (HEAD + BODY, HEAD + BODY.replace("A = 1", "A = 1 + 1")),
        (HEAD + BODY, "import random\n" + HEAD + BODY),  # an insertion at the head
        (HEAD + BODY, HEAD + BODY.replace("def f():\n", "def f():\n    x = 1\n")),
        (HEAD + BODY, HEAD + BODY.replace("@decorate\n", "@decorate\n@other\n")),
        (HEAD + BODY, HEAD + BODY.replace("    1,\n", "    1,\n    2,\n    3,\n")),
        (HEAD + BODY, HEAD + BODY.replace("C = 3; D = 4", "C = 3; D = 5")),
        (HEAD + BODY, HEAD + BODY + "seed = 0\n"),  # at the end
        (HEAD + BODY, HEAD + BODY.replace("A = 1\n\n", "")),  # a statement removed
        (
            '"""Doc."""\nfrom __future__ import annotations\n' + BODY,
            '"""Doc."""\nfrom __future__ import annotations\nimport torch\n' + BODY,
        ),
        ("# coding: utf-8\n" + BODY, "# coding: utf-8\nimport os\n" + BODY + "E = f()\n"),
    ],
)
def test_the_joined_tree_is_the_parse_of_the_new_text(old: str, new: str) -> None:
    joined = _joined(old, new)
    assert joined is not None and joined.valid
    assert _dump(joined.tree) == _dump(ast.parse(new))
    assert joined.parsed_lines < len(new.splitlines())


@pytest.mark.parametrize(
    "old, new",
    [
        (HEAD + BODY, HEAD + BODY.replace("A = 1", "A = (1")),  # broken: decided whole
        (HEAD + "global A\n" + BODY, HEAD + "global A\n" + BODY.replace("B = [", "B = (")),
        (HEAD + BODY, HEAD + BODY.replace("A = 1\n", 'A = """\n')),  # a string left open
        (HEAD + BODY, HEAD + BODY.replace("A = 1\n", "A = 1 \\\n")),  # a continued line
    ],
)
def test_what_cannot_be_vouched_for_is_left_to_the_whole_text(old: str, new: str) -> None:
    assert _joined(old, new) is None


def test_what_compiles_no_more_is_invalid_and_the_old_tree_stays() -> None:
    old = HEAD + BODY
    tree = parse_module(old, "m.py")
    before = _dump(tree)
    for new in (
        old.replace("A = 1", "A = f(x=1, x=2)"),  # parses, does not compile
        old.replace("A = 1", "return 1"),
        old + "from __future__ import annotations\n",
    ):
        joined = splice(old, tree, new, "m.py")
        assert joined is not None and not joined.valid, new
        assert _dump(tree) == before


def test_a_module_that_does_not_compile_elsewhere_is_still_fixed() -> None:
    old = HEAD + "return 5\n" + BODY  # a top-level return: parses, does not compile
    joined = _joined(old, old.replace("A = 1", "A = 2"))
    assert joined is not None and joined.valid


def _result(text: str, display: str) -> tuple[object, ...]:
    fixed = fix_text(text, display, SETTINGS, True)
    return (fixed.new_text, fixed.error, fixed.fixed, fixed.remaining, fixed.warnings)


def test_every_fixture_is_fixed_the_same_with_the_join() -> None:
    """Every fixture a rule runs on, fixed with the join forced (and the window) and with the
    whole text parsed and compiled: the same text, findings fixed and findings left; and each
    round's joined tree is the parse of its new text."""
    chosen = selection(SETTINGS)
    trees: list[str] = []
    real = fixing._spliced

    def spy(*args: Any, **options: Any) -> Any:
        joined = real(*args, **options)
        if joined is not None and joined.valid:  # (the next round moves its statements)
            assert _dump(joined.tree) == _dump(ast.parse(args[2])), args[3]
            trees.append(args[3])
        return joined

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
            whole = _result(text, str(path))
            patch.setattr(window, "WINDOW_LINES", 0)
            patch.setattr(fixing, "_spliced", spy)
            joined = _result(text, str(path))
        assert joined == whole, path
        compared += 1
    assert compared > 150
    assert len(trees) > 100


# -- case 7: one finding's fix in a large module costs about one parse of it ---------------
def _large(lines: int) -> str:
    body = "".join(f"value_{i} = {i} * 2 + len('text')\n" for i in range(lines))
    return HEAD + "loader = DataLoader(range(8), shuffle=True)\n" + body


def _compiled(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text handed to ``compile`` (``ast.parse`` included) from now on."""
    sizes: list[int] = []
    real = builtins.compile

    def counting(source: Any, filename: Any, *args: Any, **options: Any) -> Any:
        if isinstance(source, (str, bytes)) and str(filename).endswith("long.py"):
            sizes.append(len(source))
        return real(source, filename, *args, **options)

    monkeypatch.setattr(builtins, "compile", counting)
    return sizes


@pytest.mark.parametrize("lines", [6_000, 60_000])
@pytest.mark.parametrize("output", ["--fix", "json"])
def test_case_7_one_finding_in_a_large_module_is_parsed_about_once(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: int,
    output: str,
) -> None:
    """``--fix`` of one finding in a module of 6,000 and of 60,000 lines (over the piecewise
    parse's threshold) hands to ``compile`` about the module's size once: it used to be six
    times (the project index's two parses, the check's, the compile of the module before and
    after the fix, and the check of the fixed text), and twice for the json edits (the
    check's parse, then the edits' check's parse); the check of the fixed text parses only
    the changed statement. What libcst gets is the window (one statement and the imports)."""
    text = _large(lines)
    module = tmp_path / "long.py"
    module.write_text(text)
    (tmp_path / "pyproject.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    given: list[int] = []
    real_window = window.make_window

    def windowed(*args: Any, **options: Any) -> Any:
        made = real_window(*args, **options)
        if made is not None:
            given.append(len(made.text) - sum(b - a + 1 for a, b in made.holes))
        return made

    monkeypatch.setattr(window, "make_window", windowed)
    sizes = _compiled(monkeypatch)
    args = (
        ["--fix", "--output-format", "concise"]
        if output == "--fix"
        else ["--output-format", "json"]
    )
    cli.main(["check", "--no-cache", "-j", "1", *args, "."])
    out = capsys.readouterr().out
    if output == "--fix":
        assert "1 fixed" in out
        assert module.read_text() == text.replace(
            "shuffle=True)", "shuffle=True, generator=torch.Generator().manual_seed(0))"
        )
    else:
        assert '"content": ", generator=torch.Generator().manual_seed(0)"' in out
    assert sum(sizes) < 1.2 * len(text), sorted(sizes)[-8:]
    assert given and max(given) < 2_000  # libcst: a few lines and the placeholders' marks
