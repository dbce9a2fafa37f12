"""Jupyter notebooks: code cells as one program, magics masked, cell positions, in-place fixes."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from seedlint.config import Settings
from seedlint.core import Finding
from seedlint.documents import notebook
from seedlint.documents.notebook import mask_cell, render_source, unmask
from seedlint.engine.check import check_bytes
from seedlint.engine.fix import fix_bytes
from tests.fixtures_support import FIXTURES
from tests.support import run_seedlint

NOTEBOOKS = FIXTURES / "notebooks"


def analyze_notebook(raw: bytes, display: str, settings: Settings) -> Any:
    return check_bytes(raw, display, settings)


def fix_notebook(
    raw: bytes, display: str, settings: Settings, unsafe: bool
) -> tuple[bytes, list[Any], list[Any]]:
    result = fix_bytes(raw, display, settings, unsafe)
    return result.new_raw, result.fixed, result.remaining


def positions(findings: list[Finding]) -> list[tuple[str, int | None, int, int]]:
    return [(f.code, f.cell, f.row, f.col + 1) for f in findings]


def check(name: str, settings: Settings | None = None) -> list[Finding]:
    raw = (NOTEBOOKS / name).read_bytes()
    return check_bytes(raw, name, settings or Settings(root=NOTEBOOKS)).findings


def seedlint(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_seedlint(*args, cwd=cwd)


def make_notebook(cells: list[tuple[str, Any]], indent: int | None = 1, **meta: Any) -> bytes:
    data = {
        "cells": [
            {"cell_type": kind, "metadata": {}, "source": source}
            | ({"execution_count": None, "outputs": []} if kind == "code" else {})
            for kind, source in cells
        ],
        "metadata": meta or {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return (json.dumps(data, indent=indent, ensure_ascii=False) + "\n").encode()


# -- checking --------------------------------------------------------------------------------
def test_findings_carry_the_cell_and_a_row_in_the_cell() -> None:
    # Cell 4 has a magic line right above the finding; cell 5 is a %%bash cell (not Python);
    # cell 6 is a %%time cell (Python after its first line).
    assert positions(check("magics.ipynb")) == [("RNG001", 4, 2, 10), ("RNG001", 6, 2, 8)]


def test_cells_are_one_program_in_order() -> None:
    # The import is in cell 1, the loader in cell 4 (cell 2 is markdown and still counts).
    assert positions(check("two_cells.ipynb")) == [("RNG001", 4, 1, 10)]


def test_a_cell_whose_source_is_a_string() -> None:
    assert positions(check("string_source.ipynb")) == [("RNG001", 3, 1, 10)]


def test_noqa_in_a_cell() -> None:
    assert positions(check("noqa.ipynb")) == [("RNG001", 2, 2, 5)]


def test_nothing_to_report() -> None:
    assert check("clean.ipynb") == []


@pytest.mark.parametrize(
    ("cell", "row"),
    [
        # The expression goes over two lines, so over two JSON strings of the source list: the
        # pre-filter's closer look reads the cells' code, not the JSON around it.
        (
            [
                "import torch\n",
                "import random\n",
                "x = (random\n",
                "     .seed(0))\n",
                "torch.rand(1)\n",
            ],
            3,
        ),
        (
            [
                "import torch\n",
                "import random as r\n",
                "rnd = r\n",
                "rnd.seed(0)\n",
                "torch.rand(1)\n",
            ],
            4,
        ),
    ],
)
def test_the_pre_filter_reads_the_code_of_the_cells(cell: list[str], row: int) -> None:
    raw = make_notebook([("code", cell)])
    findings = check_bytes(raw, "nb.ipynb", Settings()).findings
    assert [(f.code, f.cell, f.row) for f in findings] == [("RNG004", 1, row)]


def test_invalid_json_is_one_syntax_error() -> None:
    (finding,) = check("invalid.ipynb")
    assert (finding.code, finding.name) == ("RNG000", "invalid-file")
    assert finding.message.startswith("invalid notebook JSON: ")
    assert (finding.row, finding.col, finding.cell) == (4, 1, None)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'["DataLoader"]', "not a notebook: the JSON is not an object"),
        (b'{"DataLoader": 1}', "not a notebook: no `cells` list"),
        (b'{"worksheets": [], "x": "DataLoader"}', "not supported: notebook format 3"),
        (
            b'{"cells": [{"cell_type": "code", "source": [1, "DataLoader"]}]}',
            "not a notebook: the source of cell 1 is not text",
        ),
        (b'{"cells": ["DataLoader"]}', "not a notebook: cell 1 is not an object"),
        (b'\xff{"cells": "DataLoader"}', "cannot decode as utf-8"),
    ],
)
def test_malformed_notebooks_are_one_rng000(raw: bytes, message: str) -> None:
    (finding,) = check_bytes(raw, "bad.ipynb", Settings()).findings
    assert finding.code == "RNG000"
    assert finding.message.startswith(message)


def test_a_syntax_error_points_into_its_cell() -> None:
    raw = make_notebook(
        [
            ("code", ["import torch\n"]),
            ("markdown", ["x"]),
            ("code", ["DataLoader(x,\n", "y = (\n"]),
        ]
    )
    (finding,) = check_bytes(raw, "nb.ipynb", Settings()).findings
    assert (finding.code, finding.name, finding.cell) == ("RNG000", "invalid-file", 3)


def test_a_notebook_in_another_language_is_skipped() -> None:
    cells = [("code", ["from torch.utils.data import DataLoader\n", "DataLoader(x, shuffle=True)"])]
    assert len(check_bytes(make_notebook(cells), "py.ipynb", Settings()).findings) == 1
    other = make_notebook(cells, language_info={"name": "R"})
    assert check_bytes(other, "r.ipynb", Settings()).findings == []


def test_empty_and_markdown_only_notebooks() -> None:
    assert analyze_notebook(make_notebook([]), "e.ipynb", Settings()).findings == []
    only_text = make_notebook([("markdown", ["DataLoader(x, shuffle=True)"]), ("code", [])])
    assert analyze_notebook(only_text, "m.ipynb", Settings()).findings == []


def test_compact_json_and_crlf_sources() -> None:
    cells = [
        ("code", ["from torch.utils.data import DataLoader\r\n"]),
        ("code", ["a = 1\r\n", "b = DataLoader(a, shuffle=True)"]),
    ]
    findings = check_bytes(make_notebook(cells, indent=None), "c.ipynb", Settings()).findings
    assert positions(findings) == [("RNG001", 2, 2, 5)]


# -- masking ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "line",
    [
        "%matplotlib inline",
        "!pip install torch",
        "dataset?",
        "dataset??",
        "?dataset",
        "files = !ls",
        "timing = %timeit -o sum(range(10))",
        "%time x = DataLoader(x, shuffle=True)",
    ],
)
def test_magic_lines_are_masked(line: str) -> None:
    masks: list[str] = []
    masked = mask_cell(f"a = 1\n{line}\nb = 2", masks)
    assert masks == [line]
    lines = masked.split("\n")
    assert lines[0] == "a = 1" and lines[2] == "b = 2" and len(lines) == 3
    ast.parse(masked)
    assert unmask(masked, masks) == f"a = 1\n{line}\nb = 2"


def test_masks_keep_indentation_and_rows() -> None:
    source = "for i in range(3):\n    %time f(i)\n    !echo \\\n  continued\nz = 1\n"
    masks: list[str] = []
    masked = mask_cell(source, masks)
    ast.parse(masked)  # a block whose only statements are magics still parses
    assert masked.count("\n") == source.count("\n")
    assert masks == ["    %time f(i)", "    !echo \\", "  continued"]
    assert unmask(masked, masks) == source


def test_python_is_not_masked() -> None:
    source = (
        'text = """\n%d items\n!important\nreally?\n"""\n'
        "x = a % b\n"
        "y = not_equal != 3  # why?\n"
        "z = f'''\n?{x}\n'''\n"
    )
    masks: list[str] = []
    assert mask_cell(source, masks) == source
    assert masks == []


def test_cell_magics() -> None:
    masks: list[str] = []
    bash = "%%bash\nfor f in *; do echo $f; done\n"
    masked = mask_cell(bash, masks)
    ast.parse(masked)
    assert len(masks) == 2 and unmask(masked, masks) == bash
    masks = []
    timed = "%%time\nloader = DataLoader(x, shuffle=True)\n"
    assert mask_cell(timed, masks).endswith("\nloader = DataLoader(x, shuffle=True)\n")
    assert masks == ["%%time"]


# -- discovery and the CLI -------------------------------------------------------------------
def test_the_walk_finds_notebooks_and_reports_cells(tmp_path: Path) -> None:
    shutil.copy(NOTEBOOKS / "magics.ipynb", tmp_path / "train.ipynb")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    shutil.copy(NOTEBOOKS / "magics.ipynb", tmp_path / ".ipynb_checkpoints" / "x.ipynb")
    result = seedlint(tmp_path, "check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 1, result.stderr
    lines = [line for line in result.stdout.splitlines() if "RNG" in line]
    assert [line.split(" RNG")[0] for line in lines] == [
        "train.ipynb:cell 4:2:10:",
        "train.ipynb:cell 6:2:8:",
    ]
    full = seedlint(tmp_path, "check", "--no-cache", ".")
    assert " --> train.ipynb:cell 4:2:10" in full.stdout
    as_json = json.loads(
        seedlint(tmp_path, "check", "--no-cache", "--output-format", "json", ".").stdout
    )
    assert [(i["cell"], i["location"]["row"], i["location"]["column"]) for i in as_json] == [
        (4, 2, 10),
        (6, 2, 8),
    ]


def test_the_cache_keeps_cells(tmp_path: Path) -> None:
    shutil.copy(NOTEBOOKS / "two_cells.ipynb", tmp_path / "a.ipynb")
    first = seedlint(tmp_path, "check", "--output-format", "concise", ".")
    second = seedlint(tmp_path, "check", "--output-format", "concise", ".")
    assert first.stdout == second.stdout
    assert "a.ipynb:cell 4:1:10: RNG001" in second.stdout


# -- fixing: splitting and splicing, with a stand-in fixer -----------------------------------
def fake_fix_text(
    text: str, display: str, settings: Settings, unsafe: bool, first: Any = None, *rest: Any
) -> Any:
    """Adds ``import torch`` at the top and a generator to each shuffling loader."""
    new = text.replace("shuffle=True)", "shuffle=True, generator=torch.Generator().manual_seed(0))")
    if new != text and "import torch\n" not in text:
        first, _, rest = new.partition("\n")
        new = f"{first}\nimport torch\n{rest}"
    return SimpleNamespace(new_text=new, fixed=[], remaining=[], error=None, warnings=[])


@pytest.fixture
def fake_fixer(monkeypatch: pytest.MonkeyPatch) -> None:
    import seedlint.engine.fix as apply

    monkeypatch.setattr(apply, "fix_text", fake_fix_text, raising=False)


def outside_sources(raw: bytes) -> list[str]:
    """The notebook's text with every ``"source"`` value cut out."""
    text = raw.decode("utf-8")
    spans = notebook.source_spans(text)
    pieces, position = [], 0
    for start, end in sorted(spans.values()):
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    return pieces


def cell_sources(raw: bytes) -> list[Any]:
    return [cell["source"] for cell in json.loads(raw)["cells"]]


@pytest.mark.usefixtures("fake_fixer")
def test_fix_rewrites_only_the_changed_cells() -> None:
    raw = (NOTEBOOKS / "two_cells.ipynb").read_bytes()
    new, _, _ = fix_notebook(raw, "two_cells.ipynb", Settings(), False)
    before, after = cell_sources(raw), cell_sources(new)
    assert after[0] == ["import torch\n", "from torch.utils.data import DataLoader"]
    assert after[3] == [
        "loader = DataLoader(dataset, batch_size=2, shuffle=True, "
        "generator=torch.Generator().manual_seed(0))  # ünïcode comment"
    ]
    assert [a == b for a, b in zip(before, after)] == [False, True, True, False, True]
    # Metadata, outputs, ids, indentation, key order, non-ASCII text and the final newline:
    assert outside_sources(new) == outside_sources(raw)
    assert new.endswith(b"}\n") and "ünïcode".encode() in new


@pytest.mark.usefixtures("fake_fixer")
def test_fix_keeps_string_sources_and_indentation() -> None:
    raw = (NOTEBOOKS / "string_source.ipynb").read_bytes()
    new, _, _ = fix_notebook(raw, "s.ipynb", Settings(), False)
    after = cell_sources(new)
    assert isinstance(after[2], str)
    assert "generator=torch.Generator()" in after[2] and not after[2].endswith("\n")
    assert after[1] == cell_sources(raw)[1]  # already imports torch: unchanged
    assert outside_sources(new) == outside_sources(raw)
    assert b'\n  "cells": [\n    {' in new  # indent 2 kept


@pytest.mark.usefixtures("fake_fixer")
def test_fix_keeps_magics() -> None:
    raw = (NOTEBOOKS / "magics.ipynb").read_bytes()
    new, _, _ = fix_notebook(raw, "m.ipynb", Settings(), False)
    before, after = cell_sources(raw), cell_sources(new)
    assert after[3] == [
        "%load_ext autoreload\n",
        "loader = DataLoader(dataset, batch_size=2, shuffle=True, "
        "generator=torch.Generator().manual_seed(0))\n",
        "!ls -la",
    ]
    assert after[1] == before[1]  # `import torch` was already there
    assert after[4] == before[4]  # the %%bash cell is not Python: never touched
    assert after[6] == before[6]
    assert outside_sources(new) == outside_sources(raw)


@pytest.mark.usefixtures("fake_fixer")
def test_nothing_to_fix_returns_the_same_bytes() -> None:
    raw = (NOTEBOOKS / "clean.ipynb").read_bytes()
    new, fixed, remaining = fix_notebook(raw, "clean.ipynb", Settings(), False)
    assert new is raw and fixed == [] and remaining == []


@pytest.mark.usefixtures("fake_fixer")
def test_fix_of_invalid_json_reports_it_and_writes_nothing() -> None:
    raw = (NOTEBOOKS / "invalid.ipynb").read_bytes()
    new, fixed, remaining = fix_notebook(raw, "invalid.ipynb", Settings(), False)
    assert new is raw and fixed == []
    assert [f.code for f in remaining] == ["RNG000"]


@pytest.mark.usefixtures("fake_fixer")
def test_fix_with_compact_json_crlf_and_a_bom() -> None:
    cells = [
        ("code", ["from torch.utils.data import DataLoader\r\n", "x = 1"]),
        ("code", ["DataLoader(x, shuffle=True)\r\n"]),
        ("code", []),
    ]
    raw = b"\xef\xbb\xbf" + make_notebook(cells, indent=None)
    new, _, _ = fix_notebook(raw, "c.ipynb", Settings(), False)
    assert new.startswith(b"\xef\xbb\xbf")
    after = cell_sources(new[3:])
    assert after[0][0] == "import torch\r\n"  # the cell's own line endings
    assert after[1] == [
        "DataLoader(x, shuffle=True, generator=torch.Generator().manual_seed(0))\r\n"
    ]
    assert after[2] == []
    assert outside_sources(new[3:]) == outside_sources(raw[3:])


@pytest.mark.parametrize(
    ("old", "new_source", "is_list", "expected"),
    [
        ('["a\\n", "b"]', "x\ny", True, '["x\\n", "y"]'),
        ('["a"]', "", True, "[]"),
        ('"a"', "é\n", False, '"é\\n"'),
        ('[\n    "a"\n   ]', "x\ny", True, '[\n    "x\\n",\n    "y"\n   ]'),
    ],
)
def test_render_source(old: str, new_source: str, is_list: bool, expected: str) -> None:
    text = '{\n "cells": [{"source": ' + old + "}]}"
    start = text.index(old)
    assert render_source(text, (start, start + len(old)), new_source, is_list) == expected


def test_render_into_an_empty_list_uses_the_files_indentation() -> None:
    raw = make_notebook([("code", [])]).decode()
    start = raw.index('"source": []') + len('"source": ')
    rendered = render_source(raw, (start, start + 2), "a\nb", True)
    assert rendered == '[\n    "a\\n",\n    "b"\n   ]'
    spliced = raw[:start] + rendered + raw[start + 2 :]
    assert spliced == make_notebook([("code", ["a\n", "b"])]).decode()


# -- fixing with the real fixer --------------------------------------------------------------
def test_real_fix_across_two_cells() -> None:
    raw = (NOTEBOOKS / "two_cells.ipynb").read_bytes()
    new, fixed, remaining = fix_notebook(raw, "two_cells.ipynb", Settings(), False)
    after = cell_sources(new)
    # The import goes to the first code cell in isort's order (`import` lines before `from`
    # lines of the section); the cell still ends without a newline.
    assert after[0] == ["import torch\n", "from torch.utils.data import DataLoader"]
    assert "generator=torch.Generator().manual_seed(" in "".join(after[3])
    assert cell_sources(raw)[1:3] == after[1:3] and cell_sources(raw)[4] == after[4]
    assert outside_sources(new) == outside_sources(raw)
    assert positions(fixed) == [("RNG001", 4, 1, 10)]
    assert remaining == []
    # A second run has nothing left to do.
    again, fixed_again, _ = fix_notebook(new, "two_cells.ipynb", Settings(), False)
    assert again is new and fixed_again == []


def test_real_fix_keeps_magics() -> None:
    raw = (NOTEBOOKS / "magics.ipynb").read_bytes()
    new, fixed, remaining = fix_notebook(raw, "magics.ipynb", Settings(), False)
    before, after = cell_sources(raw), cell_sources(new)
    assert after[3][0] == "%load_ext autoreload\n" and after[3][-1] == "!ls -la"
    assert after[4] == before[4] and after[6] == before[6]
    assert [f.cell for f in fixed] == [4, 6]
    assert remaining == []
    assert check_bytes(new, "magics.ipynb", Settings()).findings == []


def test_cli_fix_writes_only_notebooks_that_change(tmp_path: Path) -> None:
    for name in ("two_cells.ipynb", "clean.ipynb"):
        shutil.copy(NOTEBOOKS / name, tmp_path / name)
    clean_stat = os.stat(tmp_path / "clean.ipynb")
    os.utime(tmp_path / "clean.ipynb", ns=(0, 0))
    result = seedlint(tmp_path, "check", "--no-cache", "--fix", ".")
    assert result.returncode == 0, result.stdout + result.stderr
    assert os.stat(tmp_path / "clean.ipynb").st_mtime_ns == 0
    assert (tmp_path / "clean.ipynb").read_bytes() == (NOTEBOOKS / "clean.ipynb").read_bytes()
    assert clean_stat.st_size == os.stat(tmp_path / "clean.ipynb").st_size
    fixed = (tmp_path / "two_cells.ipynb").read_bytes()
    assert "generator=" in "".join(cell_sources(fixed)[3])
    assert outside_sources(fixed) == outside_sources((NOTEBOOKS / "two_cells.ipynb").read_bytes())
    again = seedlint(tmp_path, "check", "--no-cache", ".")
    assert again.returncode == 0, again.stdout
