"""Notebooks as Jupyter runs them: IPython syntax only where IPython sees it, and a cell that
does not parse is one RNG000 while every other cell is checked and fixed.

The fixtures in ``tests/fixtures/notebooks/cells/`` carry their expected findings next to the
code: a cell line ending in ``# error: RNG001`` expects that finding on that line of that cell.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seedlint import report
from seedlint.config import Settings
from seedlint.documents import ipython
from seedlint.documents.notebook import source_spans
from seedlint.engine.check import check_bytes
from seedlint.engine.fix import fix_bytes
from tests.fixtures_support import FIXTURES
from tests.support import run_seedlint

CELLS = FIXTURES / "notebooks" / "cells"
NOTEBOOKS = sorted(CELLS.glob("*.ipynb"))
BROKEN = sorted(CELLS.glob("broken_*.ipynb"))
_EXPECT = re.compile(r"#\s*error:\s*([A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")


def cells(raw: bytes) -> list[dict[str, Any]]:
    cells: list[dict[str, Any]] = json.loads(raw)["cells"]
    return cells


def source(cell: dict[str, Any]) -> str:
    value = cell["source"]
    return "".join(value) if isinstance(value, list) else str(value)


def expected(path: Path) -> list[tuple[str, int, int]]:
    """(code, cell, row) of each ``# error:`` comment in the notebook's code cells."""
    found = []
    for number, cell in enumerate(cells(path.read_bytes()), 1):
        if cell["cell_type"] != "code":
            continue
        for row, line in enumerate(source(cell).splitlines(), 1):
            match = _EXPECT.search(line)
            if match:
                found.extend((code.strip(), number, row) for code in match.group(1).split(","))
    return sorted(found)


def got(findings: list[Any]) -> list[tuple[str, int, int]]:
    return sorted((f.code, f.cell, f.row) for f in findings)


@pytest.fixture(params=["ipython", "own"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """IPython's answer to which lines are IPython syntax, then our own rules'."""
    if request.param == "own":
        monkeypatch.setattr(ipython, "_IPYTHON", False)
    elif ipython.ipython_module() is None:
        pytest.skip("IPython is not installed")
    yield request.param


def test_the_fixtures_expect_every_kind() -> None:
    names = {path.name for path in NOTEBOOKS}
    assert {"percent_lines.ipynb", "help_and_backslash.ipynb"} <= names
    assert {f"broken_{where}.ipynb" for where in ("first", "middle", "last")} <= names
    for path in NOTEBOOKS:
        assert expected(path), path


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_findings_are_the_expected_ones(backend: str, path: Path) -> None:
    findings = check_bytes(path.read_bytes(), path.name, Settings(root=CELLS)).findings
    assert got(findings) == expected(path)


def test_a_broken_cell_is_one_finding_that_points_into_it() -> None:
    path = CELLS / "broken_middle.ipynb"
    findings = check_bytes(path.read_bytes(), path.name, Settings(root=CELLS)).findings
    (broken,) = [f for f in findings if f.code == "RNG000"]
    assert (broken.cell, broken.row, broken.col + 1) == (5, 3, 14)
    assert broken.message.startswith("SyntaxError: invalid syntax")
    line = source(cells(path.read_bytes())[4]).splitlines()[2]
    assert line.startswith("criterion =")


def test_the_cli_reports_the_cells_in_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path in NOTEBOOKS:
        shutil.copy(path, tmp_path / path.name)
    want = {(path.name, *e) for path in NOTEBOOKS for e in expected(path)}
    proc = run_seedlint("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    items = json.loads(proc.stdout)
    assert {
        (Path(i["filename"]).name, i["code"], i["cell"], i["location"]["row"]) for i in items
    } == want
    concise = run_seedlint(
        "check", "--no-cache", "--output-format", "concise", "broken_last.ipynb", cwd=tmp_path
    ).stdout
    assert "broken_last.ipynb:cell 4:4:19: RNG000 SyntaxError: '(' was never closed" in concise
    assert "broken_last.ipynb:cell 3:1:10: RNG001" in concise
    # The other formats, from the same findings (each format's own tests run the CLI).
    monkeypatch.chdir(tmp_path)
    raw = (tmp_path / "broken_last.ipynb").read_bytes()
    findings = check_bytes(raw, "broken_last.ipynb", Settings(root=tmp_path)).findings
    assert " --> broken_last.ipynb:cell 4:4:19" in report.full(findings, {})
    lines = report.json_lines(findings).splitlines()
    assert {(json.loads(x)["cell"], json.loads(x)["code"]) for x in lines} == {
        (4, "RNG000"),
        (3, "RNG001"),
    }
    # The CI formats point at the .ipynb line that holds the cell's line.
    json_line = next(
        n for n, text in enumerate(raw.decode().splitlines(), 1) if '"results = evaluate(' in text
    )
    github = report.github(findings)
    assert any(
        "RNG000" in x and f"line={json_line}," in x and "cell 4" in x for x in github.splitlines()
    ), github
    sarif = json.loads(report.sarif(findings))
    (result,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "RNG000"]
    assert result["properties"]["cell"] == 4
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == json_line
    gitlab = json.loads(report.gitlab(findings))
    (issue,) = [i for i in gitlab if i["check_name"] == "RNG000"]
    assert issue["location"]["lines"]["begin"] == json_line and "cell 4" in issue["description"]


def test_a_broken_cells_finding_is_selected_and_suppressed_like_any() -> None:
    path = CELLS / "broken_middle.ipynb"
    ignored = check_bytes(path.read_bytes(), path.name, Settings(ignore=("RNG000",))).findings
    assert [f.code for f in ignored] == ["RNG001", "RNG001"]  # the other cells still count
    text = path.read_text().replace("criterion =  # error: RNG000", "criterion =  # noqa: RNG000")
    silenced = check_bytes(text.encode(), path.name, Settings()).findings
    assert [f.code for f in silenced] == ["RNG001", "RNG001"]


def outside_sources(raw: bytes) -> list[str]:
    """The notebook's text with every ``"source"`` value cut out."""
    text = raw.decode("utf-8")
    pieces, position = [], 0
    for start, end in sorted(source_spans(text).values()):
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    return pieces


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.name)
def test_fix_never_touches_a_broken_cell(tmp_path: Path, path: Path) -> None:
    target = tmp_path / path.name
    shutil.copy(path, target)
    before = path.read_bytes()
    proc = run_seedlint("check", "--no-cache", "--fix", path.name, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the RNG000 remains
    assert "internal error" not in proc.stdout + proc.stderr
    after = target.read_bytes()
    assert after != before
    old, new = cells(before), cells(after)
    for a, b in zip(old, new):
        if "# error: RNG000" in source(a):
            assert a == b  # the broken cell, byte for byte its JSON value
        elif "# error: RNG001" in source(a):
            assert "generator=torch.Generator().manual_seed(" in source(b)
    # Metadata, outputs, ids and layout: byte for byte outside the changed sources.
    assert outside_sources(after) == outside_sources(before)
    remaining = check_bytes(after, path.name, Settings()).findings
    assert [f.code for f in remaining] == ["RNG000"]
    again = fix_bytes(after, path.name, Settings(root=tmp_path), unsafe=False)
    assert again.new_raw is after and again.fixed == []  # a second --fix: nothing


def test_an_import_a_fix_puts_above_a_broken_first_cell_goes_to_the_next_cell() -> None:
    def notebook(*sources: str) -> bytes:
        data = {
            "cells": [
                {"cell_type": "code", "metadata": {}, "outputs": [], "source": s} for s in sources
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        return json.dumps(data, indent=1).encode()

    raw = notebook(
        "x = (", "from torch.utils.data import DataLoader\nloader = DataLoader([1], shuffle=True)"
    )
    fixed = fix_bytes(raw, "n.ipynb", Settings(), unsafe=False)
    first, second = (source(c) for c in cells(fixed.new_raw))
    assert first == "x = ("
    assert second.startswith("import torch\n") and "generator=torch.Generator()" in second
    assert [f.code for f in fixed.remaining] == ["RNG000"]


def test_a_uniformly_indented_cell_runs_as_ipython_runs_it() -> None:
    # IPython takes off the indentation all of a cell's lines share.
    raw = json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "metadata": {},
                    "outputs": [],
                    "source": [
                        "  from torch.utils.data import DataLoader\n",
                        "  loader = DataLoader([1], shuffle=True)",
                    ],
                }
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    ).encode()
    (finding,) = check_bytes(raw, "n.ipynb", Settings()).findings
    assert (finding.code, finding.cell, finding.row, finding.col) == ("RNG001", 1, 2, 11)
    fixed = fix_bytes(raw, "n.ipynb", Settings(), unsafe=False)
    lines = source(cells(fixed.new_raw)[0]).splitlines()
    assert lines[0] == "  import torch" and all(x.startswith("  ") for x in lines if x)


@pytest.mark.skipif(shutil.which("flake8") is None, reason="flake8 is not installed")
def test_flake8_given_a_notebook_reports_its_cells(tmp_path: Path) -> None:
    shutil.copy(CELLS / "broken_middle.ipynb", tmp_path / "nb.ipynb")
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "RNG", "--filename", "*.ipynb", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    lines = proc.stdout.splitlines()
    text = (tmp_path / "nb.ipynb").read_text().splitlines()
    got = []
    for line in lines:
        _, row, col, rest = line.split(":", 3)
        code, where = rest.split()[:2]
        got.append((code, where))
        if code == "RNG001":  # the .ipynb line that holds the cell's line, at the call
            assert text[int(row) - 1][int(col) - 1 :].startswith("DataLoader"), line
    assert got == [("RNG001", "cell"), ("RNG000", "cell"), ("RNG001", "cell")], proc.stdout
    assert [line.split(" cell ")[1].split(":")[0] for line in lines] == ["3", "5", "7"]
    (broken,) = [line for line in lines if "RNG000" in line]
    row = int(broken.split(":")[1])
    assert '"criterion =' in text[row - 1]
