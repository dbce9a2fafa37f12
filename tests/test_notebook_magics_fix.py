"""Fixes never put code above a cell magic: IPython requires ``%%magic`` on a cell's first line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import run_seedlint

LOADER = ["from torch.utils.data import DataLoader\n", "loader = DataLoader([], shuffle=True)"]


def notebook(*cells: list[str]) -> str:
    return json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "metadata": {},
                    "source": c,
                    "outputs": [],
                    "execution_count": None,
                }
                for c in cells
            ],
            "metadata": {"language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


def fixed_sources(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "n.ipynb"
    path.write_text(text)
    proc = run_seedlint("check", "--no-cache", "--fix", "n.ipynb", cwd=tmp_path)
    assert "internal error" not in proc.stderr, proc.stderr
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]


@pytest.mark.parametrize("magic", ["%%capture", "%%time"])
def test_an_import_goes_after_a_leading_python_cell_magic(tmp_path: Path, magic: str) -> None:
    [source] = fixed_sources(tmp_path, notebook([f"{magic}\n", *LOADER]))
    assert source.startswith(magic + "\n"), source
    assert "import torch" in source and "generator=torch.Generator()" in source
    body = source.split("\n", 1)[1]
    compile(body, "cell", "exec")


def test_an_import_never_goes_into_a_bash_cell(tmp_path: Path) -> None:
    bash = ["%%bash\n", "echo hi\n"]
    first, second = fixed_sources(tmp_path, notebook(bash, LOADER))
    assert first == "".join(bash)
    assert "import torch" in second and second.index("import torch") < second.index("DataLoader(")


def test_a_crlf_cell_keeps_crlf_line_endings(tmp_path: Path) -> None:
    cell = "from torch.utils.data import DataLoader\r\nloader = DataLoader([], shuffle=True)\r\n"
    [source] = fixed_sources(tmp_path, notebook([cell]))
    assert "import torch" in source and "generator=" in source
    assert source.count("\n") == source.count("\r\n"), repr(source)


def test_user_comments_that_look_like_markers_stay_as_they_are(tmp_path: Path) -> None:
    """Comments that spell seedlint's old marker comments are the user's text, untouched."""
    first = ["%time x = 1\n", *LOADER]
    second = ["# seedlint-magic 0\n", "y = 2\n"]
    sources = fixed_sources(tmp_path, notebook(first, second))
    assert "generator=" in sources[0]
    assert sources[1] == "".join(second)


def test_a_comment_like_a_cell_boundary_does_not_move_findings(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    path.write_text(notebook(["# seedlint-cell-boundary 9\n", *LOADER]))
    proc = run_seedlint(
        "check", "--no-cache", "--output-format", "concise", "n.ipynb", cwd=tmp_path
    )
    assert proc.returncode == 1 and "cell 1:3:" in proc.stdout, proc.stdout
