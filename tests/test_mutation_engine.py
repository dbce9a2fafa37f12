"""The engine, every spelling its tables hold (issue 31): each form of a line ``# noqa`` and of a
file's ``# seedlint: noqa`` / ``# flake8: noqa``, in each case, spacing and place, each checked
on a real file by the command line (in this process) and by ``check_text``.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from seedlint import cli
from seedlint.config import Settings
from seedlint.engine.check import check_text

LOADER = "loader = DataLoader(range(8), shuffle=True)"
SHUFFLED = f"import torch\nfrom torch.utils.data import DataLoader\n\n{LOADER}\n"

# (comment, suppresses RNG001): every form ruff and flake8 read.
LINE_FORMS = [
    ("# noqa", True),
    ("#noqa", True),
    ("#  noqa", True),
    ("# NOQA", True),
    ("# NoQa", True),
    ("# noqa: RNG001", True),
    ("# noqa:RNG001", True),
    ("# noqa:  RNG001", True),
    ("# NOQA: RNG001", True),
    ("# noqa: rng001", True),  # codes in any case, as flake8 reads them
    ("# noqa: RNG002, RNG001", True),
    ("# noqa: RNG002,RNG001", True),
    ("# noqa: RNG002 RNG001", True),
    ("# noqa: RNG002 , RNG001", True),
    ("# noqa: RNG0", True),  # a prefix
    ("# noqa: RNG00", True),
    ("# noqa: E501, RNG00", True),
    ("# noqa: RNG", True),  # no digits: not a code list, so the bare form (every code)
    ("# type: ignore  # noqa: RNG001", True),
    ("# noqa: RNG002", False),
    ("# noqa: RNG01", False),  # not a prefix of RNG001
    ("# noqa: RNG0011", False),
    ("# noqa: RNG1", False),
    ("# noqa: E501", False),
    ("# noqa: E501, F401", False),
    ("# NOQA: RNG003 RNG004", False),
    ("# noqa: rng002", False),
]


@pytest.mark.parametrize(("comment", "suppressed"), LINE_FORMS)
def test_every_line_noqa_form(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    comment: str,
    suppressed: bool,
) -> None:
    text = SHUFFLED.replace(LOADER, f"{LOADER}  {comment}")
    expected = [] if suppressed else ["RNG001"]
    assert [f.code for f in check_text(text, "train.py", Settings()).findings] == expected
    (tmp_path / "train.py").write_text(text)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = cli.main(["check", "--isolated", "--no-cache", "--output-format", "json", "train.py"])
    assert [f["code"] for f in json.loads(capsys.readouterr().out)] == expected
    assert code == (0 if suppressed else 1)


MULTI_LINE = (
    "import torch\nfrom torch.utils.data import DataLoader\n\n"
    "loader = DataLoader(\n    range(8),\n    shuffle=True,\n){}\n"
)


@pytest.mark.parametrize(("comment", "suppressed"), LINE_FORMS[:6] + LINE_FORMS[-3:])
def test_noqa_on_the_last_line_of_a_multi_line_call(comment: str, suppressed: bool) -> None:
    text = MULTI_LINE.format(f"  {comment}")
    found = [f.code for f in check_text(text, "train.py", Settings()).findings]
    assert found == ([] if suppressed else ["RNG001"])


# (header, the lines before it, suppresses RNG001)
FILE_FORMS = [
    ("# seedlint: noqa", True),
    ("# seedlint:noqa", True),
    ("#seedlint: noqa", True),
    ("# seedlint = noqa", True),
    ("# seedlint=noqa", True),
    ("# SEEDLINT: NOQA", True),
    ("# Seedlint: NoQa", True),  # mixed case: read, as flake8 reads it
    ("# flake8: NoQA", True),
    ("# seedlint: nOqA: RNG001", True),
    ("    # seedlint: noqa", True),  # indented, alone on its line
    ("\t# seedlint: noqa", True),
    ("# seedlint: noqa: RNG001", True),
    ("# seedlint: noqa: rng001", True),
    ("# seedlint: noqa:RNG001", True),
    ("# seedlint: noqa: RNG002, RNG001", True),
    ("# seedlint: noqa: RNG002 RNG001", True),
    ("# seedlint: noqa: RNG", True),  # no digits: the bare form
    ("# flake8: noqa", True),
    ("# FLAKE8: NOQA", True),
    ("# flake8: noqa: RNG002", False),  # ruff's meaning: that code in the whole file
    ("# flake8: noqa: RNG001", True),
    ("# flake8: noqa: C901", False),  # a comment for another checker hides no finding
    ("# flake8=noqa", True),
    ("# seedlint: noqa: RNG002", False),
    ("# seedlint: noqa: RNG002, RNG003", False),
    ("# seedlint: noqa: RNG0", False),  # no prefixes for a file (ruff's meaning)
    ("x = 1  # seedlint: noqa", False),  # not alone on its line
    ("x = 1  # flake8: noqa", False),
    ("# ruff: noqa", False),  # another tool's
    ("# pylint: noqa", False),
]


@pytest.mark.parametrize("place", ["first", "last", "middle"])
@pytest.mark.parametrize(("header", "suppressed"), FILE_FORMS)
def test_every_file_noqa_form(header: str, suppressed: bool, place: str) -> None:
    lines = SHUFFLED.splitlines()
    at = {"first": 0, "last": len(lines), "middle": 2}[place]
    text = "\n".join([*lines[:at], header, *lines[at:]]) + "\n"
    found = [f.code for f in check_text(text, "train.py", Settings()).findings]
    assert found == ([] if suppressed else ["RNG001"])


@pytest.mark.parametrize(("header", "suppressed"), FILE_FORMS)
def test_every_file_noqa_form_through_the_command_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    header: str,
    suppressed: bool,
) -> None:
    (tmp_path / "train.py").write_text(SHUFFLED + header + "\n")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = cli.main(["check", "--isolated", "--no-cache", "--output-format", "json", "train.py"])
    assert [f["code"] for f in json.loads(capsys.readouterr().out)] == (
        [] if suppressed else ["RNG001"]
    )
    assert code == (0 if suppressed else 1)


def test_a_file_noqa_for_one_code_leaves_the_others() -> None:
    two = SHUFFLED + "loader2 = DataLoader(range(8), num_workers=2)\n"
    settings = Settings()
    assert sorted(f.code for f in check_text(two, "t.py", settings).findings) == [
        "RNG001",
        "RNG002",
    ]
    for header, left in [
        ("# seedlint: noqa: RNG001", ["RNG002"]),
        ("# seedlint: noqa: RNG002", ["RNG001"]),
        ("# seedlint: noqa: RNG001\n# seedlint: noqa: RNG002", []),
        ("# seedlint: noqa: RNG001, RNG002", []),
    ]:
        found = sorted(f.code for f in check_text(header + "\n" + two, "t.py", settings).findings)
        assert found == left, header


# -- a large module, parsed in pieces --------------------------------------------------------
def _program(newline: str) -> str:
    parts = []
    for index in range(12):
        parts.append(f"def f{index}(x):\n    return x + {index}\n\n")
        parts.append(f"loader{index} = DataLoader(range(8), shuffle=True)\n")
    text = "import torch\nfrom torch.utils.data import DataLoader\n\n" + "".join(parts)
    return text.replace("\n", newline)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_a_module_parsed_in_pieces_is_the_whole_module(
    monkeypatch: pytest.MonkeyPatch, newline: str
) -> None:
    """The pieces' statements keep the whole text's rows and columns (a piece is preceded by
    as many empty lines as come before it), whatever the line breaks."""
    import ast

    from seedlint.engine import parse
    from tests.support import plain_dump

    text = _program(newline)
    whole = check_text(text, "train.py", Settings()).findings
    assert [f.row for f in whole] == [4 + 4 * index + 3 for index in range(12)]
    expected = ast.dump(ast.parse(text), include_attributes=True)
    monkeypatch.setattr(parse, "LARGE", 100)
    monkeypatch.setattr(parse, "PIECE", 60)
    assert plain_dump(parse.parse_module(text, "train.py", hollow=False)) == expected
    assert check_text(text, "train.py", Settings()).findings == whole


# -- --add-noqa: the comment goes where a comment can go -------------------------------------
@pytest.mark.parametrize(
    ("after", "expected"),
    [
        ('doc = """one\ntwo"""\n', '{line}  # noqa: RNG001\ndoc = """one\ntwo"""\n'),
        ('x = 1; doc = """one\ntwo"""\n', '{line}  # noqa: RNG001\nx = 1; doc = """one\ntwo"""\n'),
        # the next line's own noqa covers that line only: the flagged line gets its comment
        ("x = 1  # noqa\n", "{line}  # noqa: RNG001\nx = 1  # noqa\n"),
        ("x = 1  # noqa: RNG001\n", "{line}  # noqa: RNG001\nx = 1  # noqa: RNG001\n"),
    ],
)
def test_add_noqa_beside_a_multi_line_string(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    after: str,
    expected: str,
) -> None:
    """A string that spans lines closes the rows it spans but its last, never the row before
    it: the flagged line just above gets its comment."""
    text = SHUFFLED + after
    (tmp_path / "train.py").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--isolated", "--no-cache", "--add-noqa", "train.py"]) == 0
    head = SHUFFLED.replace(LOADER + "\n", "")
    assert (tmp_path / "train.py").read_text() == head + expected.format(line=LOADER)
    assert check_text((tmp_path / "train.py").read_text(), "train.py", Settings()).findings == []


def test_add_noqa_inside_a_multi_line_call_with_a_string(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        'loader = DataLoader(range(8), shuffle=True, collate_fn=eval("""\nlambda b: b"""))\n'
    )
    (tmp_path / "train.py").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--isolated", "--no-cache", "--add-noqa", "train.py"]) == 0
    new = (tmp_path / "train.py").read_text()
    assert new == text.replace('b"""))\n', 'b"""))  # noqa: RNG001\n')
    assert check_text(new, "train.py", Settings()).findings == []


@pytest.mark.parametrize(
    "value",
    ["(flag := True)", "lambda: (flag := True)", "[flag := True for _ in range(1)]", "other"],
)
def test_a_large_modules_hollowed_values_keep_what_a_read_sees(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """A very large module's assignment whose target nothing reads is hollowed only when its
    value binds nothing: `x = (flag := True)` keeps its `:=`, whose binding the loader's
    `shuffle=flag` may read, as in the module parsed whole."""
    from seedlint.engine import parse

    filler = "".join(f"v{index} = {index} * 2\n" for index in range(20))
    text = (
        "import torch\nfrom torch.utils.data import DataLoader\n\nflag = False\nother = True\n"
        f"{filler}unique_name = {value}\nloader = DataLoader(range(8), shuffle=flag)\n"
    )
    whole = [(f.row, f.code) for f in check_text(text, "train.py", Settings()).findings]
    monkeypatch.setattr(parse, "LARGE", 100)
    monkeypatch.setattr(parse, "PIECE", 60)
    assert [(f.row, f.code) for f in check_text(text, "train.py", Settings()).findings] == whole
    assert whole == ([(27, "RNG001")] if value[0] in "([" else [])  # a lambda's := is its own


@pytest.mark.parametrize("before", [True, False], ids=["enabled", "disabled"])
def test_a_check_leaves_the_garbage_collector_as_it_found_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    before: bool,
) -> None:
    """The check pauses the cyclic collector while it works (collector_paused), and puts it
    back as it was: on after a run that found it on, off after one that found it off."""
    import gc

    (tmp_path / "train.py").write_text(SHUFFLED)
    monkeypatch.chdir(tmp_path)
    (gc.enable if before else gc.disable)()
    try:
        assert cli.main(["check", "--isolated", "--no-cache", "-q", "train.py"]) == 1
        assert gc.isenabled() is before
    finally:
        gc.enable()


@pytest.mark.parametrize("head", ["", "# a comment\n"], ids=["first-line", "later"])
def test_a_large_module_that_defines_a_builtins_name_keeps_its_calls(
    monkeypatch: pytest.MonkeyPatch, head: str
) -> None:
    """A module that defines its own `len` (here at the very start of the file, where only a
    few characters come before `def`): a value calling it is no builtin's call and is kept,
    with the seeding it does, as in the module parsed whole."""
    from seedlint.engine import parse

    filler = "".join(f"v{index} = {index} * 2\n" for index in range(20))
    text = (
        f"{head}def len(x):\n    random.seed(x)\n    return 0\n\n\n"
        "import random\n\nimport torch\n\n"
        f"{filler}unique_name = len(1)\nmodel = torch.nn.Linear(2, 2)\n"
    )
    whole = [(f.row, f.code) for f in check_text(text, "train.py", Settings()).findings]
    assert [code for _, code in whole] == ["RNG004"]
    monkeypatch.setattr(parse, "LARGE", 100)
    monkeypatch.setattr(parse, "PIECE", 60)
    assert [(f.row, f.code) for f in check_text(text, "train.py", Settings()).findings] == whole


# -- the fix loop's compile check where no splice vouches for the fixed text ----------------
TOP_LEVEL_RETURN = "return 5\n"  # parses, does not compile (outside a function)


@pytest.mark.parametrize(
    ("before", "broken", "kept"),
    [
        ("", "return DataLoader(range(8), shuffle=True)\n", False),  # compiled, compiles no more
        ("", "loader = DataLoader(range(8), shuffle=True, generator=(\n", False),  # no parse
        (TOP_LEVEL_RETURN, "loader = DataLoader(range(8), shuffle=True) or 1\n", True),
        (TOP_LEVEL_RETURN, "loader = DataLoader(range(8), shuffle=True, generator=(\n", False),
    ],
    ids=["compile-error", "syntax-error", "was-broken-still-parses", "was-broken-no-parse"],
)
def test_the_whole_texts_compile_check_without_a_splice(
    monkeypatch: pytest.MonkeyPatch, before: str, broken: str, kept: bool
) -> None:
    """The fixed text compiles: kept. It does not: kept only if the text before did not
    compile either and the fixed text still parses; otherwise the file is left as it was,
    with an error naming the rule."""
    from seedlint.engine import fix as fix_loop
    from seedlint.engine.fix import fix_text
    from seedlint.fixes import transform

    text = SHUFFLED.replace(LOADER, before + LOADER)

    def bad_codemod(module: object, changes: object, positions: object) -> str:
        return str(getattr(module, "code")).replace(LOADER + "\n", broken)

    monkeypatch.setattr(transform, "apply_changes", bad_codemod)
    monkeypatch.setattr(fix_loop, "_spliced", lambda *args: None)
    result = fix_text(text, "train.py", Settings(), unsafe=True)
    if kept:
        assert result.error is None and result.new_text == text.replace(LOADER + "\n", broken)
    else:
        assert result.new_text == text and result.fixed == []
        assert result.error is not None and "does not compile" in result.error
        assert "RNG001" in result.error


def test_the_language_servers_quick_fix_carries_the_fixs_edit(tmp_path: Path) -> None:
    """A code action request for a finding's line (the kept facts, no second check): the
    quick fix's edit is the fix `--fix` writes, for each of the line's fixable findings."""
    pytest.importorskip("pygls")
    from lsprotocol import types

    from tests.test_editor_server import Harness

    harness = Harness(tmp_path)
    text = (
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "loader = DataLoader(range(8), shuffle=True)\n"
    )
    uri = harness.open("train.py", text)
    actions = harness.actions(uri, 3, [types.CodeActionKind.QuickFix])
    fixes = [a for a in actions if a.title.startswith("Pass `generator=")]
    assert len(fixes) == 1 and fixes[0].edit is not None and fixes[0].edit.changes
    edits = fixes[0].edit.changes[uri]
    assert [e.new_text for e in edits] == [", generator=torch.Generator().manual_seed(0)"], edits


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_with_no_rule_word_that_calls_a_project_loader_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    """A file whose words pass no rule's pre-filter but that calls a loader class of the
    project under a name of its own (``Feeder``): the loader rules check it all the same."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "loaders.py").write_text(
        "from torch.utils.data import DataLoader\n\n\nclass Feeder(DataLoader):\n    pass\n"
    )
    (tmp_path / "train.py").write_text(
        "from pkg.loaders import Feeder\n\nfed = Feeder(list(range(10)), num_workers=2)\n"
    )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = cli.main(["check", "--no-cache", "--jobs", jobs, "--output-format", "json", "."])
    found = [
        (f["filename"], f["location"]["row"], f["code"])
        for f in json.loads(capsys.readouterr().out)
    ]
    assert [(Path(name).name, row, c) for name, row, c in found] == [("train.py", 3, "RNG002")]
    assert code == 1


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ('select = ["", "RNG002"]', ["RNG002"]),
        ('ignore = ["", "RNG002"]', ["RNG001"]),
        ('select = ["RNG001"]\nextend-select = [" ", "RNG002"]', ["RNG001", "RNG002"]),
    ],
)
def test_an_empty_selector_in_a_list_is_skipped_not_the_end_of_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    option: str,
    expected: list[str],
) -> None:
    """An empty (or blank) selector in a configured list selects nothing, and the selectors
    after it still count."""
    (tmp_path / "pyproject.toml").write_text(f"[tool.seedlint]\n{option}\n")
    (tmp_path / "train.py").write_text(SHUFFLED + "loader2 = DataLoader(range(8), num_workers=2)\n")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--no-cache", "--output-format", "json", "train.py"])
    assert sorted(f["code"] for f in json.loads(capsys.readouterr().out)) == expected


@pytest.mark.parametrize("name", ["json", "json-lines"])
def test_the_json_output_has_the_edits_of_every_fix_of_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Three fixable findings in one file: each one's fix comes with its own edit (each fix
    computed alone, on the file as it is)."""
    (tmp_path / "train.py").write_text(
        SHUFFLED + "second = DataLoader(range(4), shuffle=True)\n"
        "third = DataLoader(range(2), shuffle=True)\n"
    )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--isolated", "--no-cache", "--output-format", name, "train.py"])
    out = capsys.readouterr().out
    items = json.loads(out) if name == "json" else [json.loads(line) for line in out.splitlines()]
    generator = ", generator=torch.Generator().manual_seed(0)"
    assert [
        [(e["content"], e["location"]["row"], e["location"]["column"]) for e in f["fix"]["edits"]]
        for f in items
    ] == [[(generator, 4, 43)], [(generator, 5, 43)], [(generator, 6, 42)]]


DEEP = (  # 3,200 `and` operands: libcst would nest 3,200 levels, over the fixer's limit
    "import torch\nfrom torch.utils.data import DataLoader\n\n"
    f"flag = {' and '.join(['x'] * 3200)}\n"
    "loader = DataLoader(range(8), shuffle=True)\n"
)


def test_a_module_nested_too_deeply_for_the_fixer_is_left_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over the fixer's depth (3,000), --fix refuses with one error line and leaves the file,
    and the json output shows the fix without edits."""
    (tmp_path / "train.py").write_text(DEEP)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["check", "--isolated", "--no-cache", "--fix", "train.py"]) == 1
    err = capsys.readouterr().err
    assert (
        "train.py: cannot fix: the file is nested too deeply for the fixer (about 3202 levels, "
        "at most 3000); it was left unchanged\n"
    ) in err
    assert (tmp_path / "train.py").read_text() == DEEP
    cli.main(["check", "--isolated", "--no-cache", "--output-format", "json", "train.py"])
    (finding,) = json.loads(capsys.readouterr().out)
    assert finding["fix"]["edits"] == []


NOTEBOOK_CELLS = [
    ["import torch\n", "from torch.utils.data import DataLoader"],
    ["loader = DataLoader(range(8), shuffle=True)"],
    [
        "g = torch.cuda.CUDAGraph()\n",
        'x = torch.zeros(2, device="cuda")\n',
        "with torch.cuda.graph(g):\n",
        "    torch.manual_seed(0)\n",
        "    out = x * 2",
    ],
]


def test_a_notebooks_json_edits_count_rows_in_their_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each fix's edits in a notebook count rows in the finding's cell: the call's rewrite on
    row 1 of cell 2; in cell 3, the seeding moved from row 4 to before the capture region on
    row 3 (a line inserted at row 3, the line of row 4 removed up to row 5's start)."""
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": s,
            }
            for s in NOTEBOOK_CELLS
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook, indent=1) + "\n")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--isolated", "--no-cache", "--output-format", "json", "nb.ipynb"])
    found = [
        (
            f["code"],
            f["cell"],
            [
                (
                    e["content"],
                    (e["location"]["row"], e["location"]["column"]),
                    (e["end_location"]["row"], e["end_location"]["column"]),
                )
                for e in f["fix"]["edits"]
            ],
        )
        for f in json.loads(capsys.readouterr().out)
    ]
    generator = "generator=torch.Generator().manual_seed(torch.initial_seed())"
    assert found == [
        (
            "RNG001",
            2,
            [(f"\n    range(8),\n    shuffle=True,\n    {generator},\n", (1, 21), (1, 43))],
        ),
        ("RNG003", 3, [("torch.manual_seed(0)\n", (3, 1), (3, 1)), ("", (4, 1), (5, 1))]),
    ]


SPLICE_HEAD = "import torch\nfrom torch.utils.data import DataLoader\n\n"
SPLICE_BODY = "A = 1\n\nB = [\n    1,\n]\nC = 3\n"


@pytest.mark.parametrize(
    ("block", "joined"),
    [
        ("if A:\n    global A\n", False),  # in the module's own scope: decided whole
        ("for _ in range(2):\n    global A\n", False),
        ("try:\n    pass\nexcept OSError:\n    global A\n", False),
        ("def f():\n    global A\n    A = 2\n", True),  # a function's own: joined
        ("class K:\n    global A\n", True),
    ],
    ids=["if", "for", "handler", "function", "class"],
)
def test_a_global_statement_in_the_modules_own_scope_leaves_the_fix_check_to_the_whole_text(
    block: str, joined: bool
) -> None:
    """The fix loop's check of a fixed module joins the changed statements' tree to the old
    one, except where a `global` stands in the module's own scope (in a block of it too): what
    compiles there depends on the whole text. One in a function or a class is its own."""
    from seedlint.engine.parse import parse_module
    from seedlint.engine.splice import splice

    old = SPLICE_HEAD + block + SPLICE_BODY
    new = old.replace("B = [", "B = (").replace("]\nC", ")\nC")
    found = splice(old, parse_module(old, "m.py"), new, "m.py")
    assert (found is not None) is joined
    if found is not None:
        assert found.valid
        assert ast.dump(found.tree, include_attributes=True) == ast.dump(
            ast.parse(new), include_attributes=True
        )


@pytest.mark.parametrize(
    "text",
    [
        SHUFFLED,  # a safe fix: applied
        # an unsafe fix only, not asked for: nothing to apply
        "import torch\n\ng = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n"
        "    torch.manual_seed(0)\n",
        "x = 1\n",  # nothing found
    ],
    ids=["fixed", "unsafe-only", "clean"],
)
def test_fix_bytes_never_releases_the_check_it_is_given(text: str) -> None:
    """The language server hands its kept check of the buffer to ``fix_bytes``: whatever the
    fix does, that check keeps its facts (its quick fixes need them) and its findings."""
    from seedlint.engine.fix import fix_bytes

    settings = Settings()
    checked = check_text(text, "t.py", settings)
    findings = list(checked.findings)
    fix_bytes(text.encode(), "t.py", settings, False, first=checked)
    assert checked.facts is not None
    assert checked.findings == findings
