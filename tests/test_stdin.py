"""Editors: ``seedlint check -`` reads the buffer from stdin, named by ``--stdin-filename``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.fixtures_support import FIXTURES
from tests.support import run_seedlint

SOURCE = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "loader = DataLoader(range(8), batch_size=2, shuffle=True)\n"
)


def seedlint(
    cwd: Path, *args: str, stdin: str | bytes = SOURCE
) -> subprocess.CompletedProcess[str]:
    result = run_seedlint(*args, cwd=cwd, stdin=stdin, text=False)
    return subprocess.CompletedProcess(
        result.args, result.returncode, result.stdout.decode(), result.stderr.decode()
    )


def test_stdin_findings_use_the_stdin_filename(tmp_path: Path) -> None:
    result = seedlint(
        tmp_path, "check", "--output-format", "concise", "--stdin-filename", "pkg/train.py", "-"
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("pkg/train.py:4:10: RNG001 ")
    assert "Found 1 finding" in result.stdout


def test_stdin_json_names_the_buffer(tmp_path: Path) -> None:
    result = seedlint(
        tmp_path, "check", "--output-format", "json", "--stdin-filename", "train.py", "-"
    )
    (item,) = json.loads(result.stdout)
    assert item["code"] == "RNG001"
    assert Path(item["filename"]) == (tmp_path / "train.py").absolute()
    assert item["location"] == {"row": 4, "column": 10}


def test_stdin_without_a_name(tmp_path: Path) -> None:
    result = seedlint(tmp_path, "check", "--output-format", "concise", "-")
    assert result.returncode == 1
    assert result.stdout.startswith("-:4:10: RNG001 ")


def test_clean_stdin_exits_zero(tmp_path: Path) -> None:
    result = seedlint(tmp_path, "check", "--stdin-filename", "ok.py", "-", stdin="x = 1\n")
    assert result.returncode == 0, result.stdout + result.stderr


def test_per_file_ignores_apply_to_the_stdin_filename(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.seedlint]\nper-file-ignores = { "scripts/*.py" = ["RNG001"] }\n'
    )
    (tmp_path / "scripts").mkdir()
    ignored = seedlint(tmp_path, "check", "--stdin-filename", "scripts/train.py", "-")
    assert ignored.returncode == 0, ignored.stdout
    reported = seedlint(
        tmp_path, "check", "--output-format", "concise", "--stdin-filename", "src/train.py", "-"
    )
    assert reported.returncode == 1
    assert reported.stdout.startswith("src/train.py:4:10: RNG001 ")


def test_the_closest_config_to_the_stdin_filename_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.seedlint]\n")
    sub = tmp_path / "legacy"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[tool.seedlint]\nignore = ["RNG001"]\n')
    assert seedlint(tmp_path, "check", "--stdin-filename", "legacy/train.py", "-").returncode == 0
    assert seedlint(tmp_path, "check", "--stdin-filename", "new/train.py", "-").returncode == 1


def test_stdin_noqa_is_honoured(tmp_path: Path) -> None:
    text = SOURCE.replace("shuffle=True)", "shuffle=True)  # noqa: RNG001")
    result = seedlint(tmp_path, "check", "--stdin-filename", "train.py", "-", stdin=text)
    assert result.returncode == 0, result.stdout


def test_stdin_syntax_error_is_rng000(tmp_path: Path) -> None:
    result = seedlint(
        tmp_path,
        "check",
        "--output-format",
        "concise",
        "--stdin-filename",
        "broken.py",
        "-",
        stdin="import torch\nDataLoader(\n",
    )
    assert result.returncode == 1
    assert ": RNG000 " in result.stdout


def test_stdin_notebook(tmp_path: Path) -> None:
    raw = (FIXTURES / "notebooks" / "two_cells.ipynb").read_bytes()
    result = seedlint(
        tmp_path,
        "check",
        "--output-format",
        "concise",
        "--stdin-filename",
        "analysis.ipynb",
        "-",
        stdin=raw,
    )
    assert result.returncode == 1
    assert result.stdout.startswith("analysis.ipynb:cell 4:1:10: RNG001 ")


def test_stdin_fix_prints_the_fixed_source(tmp_path: Path) -> None:
    result = seedlint(tmp_path, "check", "--fix", "--stdin-filename", "train.py", "-")
    assert result.returncode == 0, result.stderr
    assert "generator=torch.Generator().manual_seed(" in result.stdout
    assert result.stdout.startswith("import torch\n")
    # Nothing but the fixed source goes to stdout: it must parse.
    compile(result.stdout, "train.py", "exec")
    # and nothing was written anywhere
    assert list(tmp_path.iterdir()) == []


def test_stdin_fix_of_clean_code_echoes_it(tmp_path: Path) -> None:
    text = "x = 1  # unchanged\n"
    result = seedlint(tmp_path, "check", "--fix", "--stdin-filename", "ok.py", "-", stdin=text)
    assert result.returncode == 0
    assert result.stdout == text


def test_stdin_fix_of_a_notebook_prints_the_fixed_notebook(tmp_path: Path) -> None:
    raw = (FIXTURES / "notebooks" / "two_cells.ipynb").read_bytes()
    result = seedlint(tmp_path, "check", "--fix", "--stdin-filename", "nb.ipynb", "-", stdin=raw)
    assert result.returncode == 0, result.stderr
    fixed = json.loads(result.stdout)
    assert "generator=" in "".join(fixed["cells"][3]["source"])


def test_stdin_finds_a_loader_class_of_another_module(tmp_path: Path) -> None:
    """The buffer calls `MyLoader`, a DataLoader subclass of another module of the project: no
    loader word names it, so the project's loader names are found before the buffer is
    checked (as on disk and as `--fix` of standard input find it)."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "pyproject.toml").write_text("")
    (tmp_path / "proj" / "loaders.py").write_text(
        "from torch.utils.data import DataLoader\n\n\nclass MyLoader(DataLoader):\n    pass\n"
    )
    buffer = "import torch\n\nfrom loaders import MyLoader\n\n"
    buffer += "loader = MyLoader(range(8), shuffle=True)\n"
    for cwd, name in ((tmp_path, "proj/train.py"), (tmp_path / "proj", "train.py")):
        result = seedlint(
            cwd, "check", "--no-cache", "--output-format", "concise", "--stdin-filename", name,
            "-", stdin=buffer,
        )  # fmt: skip
        assert result.returncode == 1, result.stdout + result.stderr
        assert result.stdout.startswith(f"{name}:5:10: RNG001 "), result.stdout
