"""``--add-noqa`` on notebooks: the directive goes on the flagged line inside its cell.

``tests/fixtures/add_noqa/before.ipynb`` holds a markdown cell, magics and a shell escape, a
line with a ``# noqa: E501`` already, a multi-line call, a non-ASCII comment, list and string
sources, and a CRLF cell; ``after.ipynb`` is what ``--add-noqa`` must leave (only four
``"source"`` lines differ).
"""

from __future__ import annotations

import codecs
import json
import shutil
from dataclasses import replace
from pathlib import Path

from seedlint.config import Settings
from seedlint.core import Finding
from seedlint.engine.add_noqa import add_noqa_bytes
from seedlint.engine.check import check_bytes
from tests.support import run_seedlint

CASE = Path(__file__).resolve().parent / "fixtures" / "add_noqa"
BEFORE = (CASE / "before.ipynb").read_bytes()
AFTER = (CASE / "after.ipynb").read_bytes()


def test_the_fixture_pair_differs_in_four_source_lines_only() -> None:
    before, after = BEFORE.decode().splitlines(), AFTER.decode().splitlines()
    assert len(before) == len(after)
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(changed) == 4
    assert all(b.startswith(a.rstrip('",').rstrip("\\r\\n")) for a, b in changed)
    assert all("# noqa: " in b for _, b in changed)


def test_add_noqa_writes_into_the_cells(tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    shutil.copyfile(CASE / "before.ipynb", path)
    assert run_seedlint("check", "--no-cache", "nb.ipynb", cwd=tmp_path).returncode == 1
    result = run_seedlint("check", "--no-cache", "--add-noqa", "nb.ipynb", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Added 4 noqa directives." in result.stderr
    assert path.read_bytes() == AFTER
    assert run_seedlint("check", "--no-cache", "nb.ipynb", cwd=tmp_path).returncode == 0
    again = run_seedlint("check", "--no-cache", "--add-noqa", "nb.ipynb", cwd=tmp_path)
    assert "Added 0 noqa directives." in again.stderr and path.read_bytes() == AFTER


def test_the_cells_keep_their_line_endings_and_the_rest_its_values() -> None:
    new, changed = add_noqa_bytes(BEFORE, "nb.ipynb", _findings(BEFORE))
    assert changed == 4 and new == AFTER
    old_cells, new_cells = json.loads(BEFORE)["cells"], json.loads(new)["cells"]
    crlf = "".join(new_cells[3]["source"])
    assert crlf.count("\r\n") == 2 and "\n" not in crlf.replace("\r\n", "")
    for old, cell in zip(old_cells, new_cells):
        assert {k: v for k, v in old.items() if k != "source"} == {
            k: v for k, v in cell.items() if k != "source"
        }
    assert "%matplotlib inline\n" in new_cells[1]["source"]
    assert "!pip list\n" in new_cells[1]["source"]


def test_a_byte_order_mark_stays() -> None:
    raw = codecs.BOM_UTF8 + BEFORE
    new, changed = add_noqa_bytes(raw, "nb.ipynb", _findings(raw))
    assert changed == 4 and new == codecs.BOM_UTF8 + AFTER


def test_findings_of_another_file_or_cell_change_nothing() -> None:
    findings = _findings(BEFORE)
    stray = [replace(f, cell=99) for f in findings]
    assert add_noqa_bytes(BEFORE, "nb.ipynb", stray) == (BEFORE, 0)
    assert add_noqa_bytes(b"{not json", "nb.ipynb", findings) == (b"{not json", 0)


def _findings(raw: bytes) -> list[Finding]:
    found = check_bytes(raw, "nb.ipynb", Settings()).release()
    assert len(found) == 4 and all(f.cell is not None for f in found)
    return found
