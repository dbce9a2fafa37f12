"""`seedlint server` on a notebook open as its JSON text: the cells' findings, a broken cell's
RNG000, each on the JSON line that holds its cell's line, and only the fix-all action."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pytest_lsp")

from pytest_lsp import LanguageClient

from tests.fixtures_support import FIXTURES
from tests.test_server import actions, apply, client, open_file

__all__ = ["client"]  # the LSP client fixture, shared with tests/test_server.py


@pytest.mark.asyncio
async def test_a_notebook_buffer_gets_its_cells_findings(
    client: LanguageClient, tmp_path: Path
) -> None:
    text = (FIXTURES / "notebooks" / "cells" / "broken_middle.ipynb").read_text()
    path = tmp_path / "nb.ipynb"
    diagnostics = await open_file(client, path, text)
    lines = text.splitlines()
    got = [
        (d.code, d.message.split(":")[0], lines[d.range.start.line][d.range.start.character :])
        for d in diagnostics
    ]
    assert [(code, cell) for code, cell, _ in got] == [
        ("RNG001", "cell 3"),
        ("RNG000", "cell 5"),
        ("RNG001", "cell 7"),
    ]
    assert got[0][2].startswith("DataLoader(data, shuffle=True)")
    assert got[2][2].startswith("DataLoader(data, shuffle=True)")
    broken_line = lines[diagnostics[1].range.start.line]
    assert '"criterion =' in broken_line
    # Quick fixes would count rows in cells: only the fix-all is offered, and it fixes the
    # notebook as `seedlint check --fix` does (the broken cell untouched).
    offered = await actions(client, path, diagnostics[0].range.start.line, diagnostics[:1])
    assert [a.kind for a in offered] == ["source.fixAll.seedlint"]
    fixed = apply(text, offered[0], path.as_uri())
    before, after = json.loads(text)["cells"], json.loads(fixed)["cells"]
    assert before[4] == after[4]
    assert "generator=" in "".join(after[2]["source"])
