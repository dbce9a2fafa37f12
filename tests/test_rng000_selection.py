"""RNG000 is a rule like any other: --select, --ignore, per-file-ignores and noqa apply to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import run_seedlint

BROKEN = "from torch.utils.data import DataLoader\nloader = DataLoader(range(8), shuffle=True\n"
UNDECODABLE = b"# no coding cookie\nfrom torch.utils.data import DataLoader\nx = '\xff'\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "broken.py").write_text(BROKEN)
    (tmp_path / "latin.py").write_bytes(UNDECODABLE)
    return tmp_path


def codes(tree: Path, *args: str) -> tuple[int, list[str]]:
    run = run_seedlint(
        "check", "--isolated", "--no-cache", "--output-format", "concise", *args, ".", cwd=tree
    )
    assert "Traceback" not in run.stderr
    lines = [line for line in run.stdout.splitlines() if ": RNG" in line]
    return run.returncode, sorted(f"{line.split(':')[0]} {line.split()[1]}" for line in lines)


def test_reported_by_default(tree: Path) -> None:
    assert codes(tree) == (1, ["broken.py RNG000", "latin.py RNG000"])


@pytest.mark.parametrize(
    "args",
    [("--ignore", "RNG000"), ("--select", "RNG001"), ("--extend-ignore", "RNG0")],
)
def test_selection_applies(tree: Path, args: tuple[str, ...]) -> None:
    assert codes(tree, *args) == (0, [])


def test_per_file_ignores_apply(tree: Path) -> None:
    assert codes(tree, "--per-file-ignores", "broken.py:RNG000") == (1, ["latin.py RNG000"])


def test_noqa_on_the_line_applies(tree: Path) -> None:
    (tree / "broken.py").write_text(
        BROKEN.replace("shuffle=True\n", "shuffle=True  # noqa: RNG000\n")
    )
    (tree / "latin.py").unlink()
    assert codes(tree) == (0, [])


def test_noqa_of_another_code_does_not(tree: Path) -> None:
    (tree / "broken.py").write_text(
        BROKEN.replace("shuffle=True\n", "shuffle=True  # noqa: RNG001\n")
    )
    (tree / "latin.py").unlink()
    assert codes(tree) == (1, ["broken.py RNG000"])


def test_file_exemption_applies(tree: Path) -> None:
    (tree / "broken.py").write_text("# seedlint: noqa: RNG000\n" + BROKEN)
    (tree / "latin.py").unlink()
    assert codes(tree) == (0, [])


def test_config_file_ignore_applies(tree: Path) -> None:
    (tree / "pyproject.toml").write_text('[tool.seedlint]\nignore = ["RNG000"]\n')
    run = run_seedlint("check", "--no-cache", "--output-format", "concise", ".", cwd=tree)
    assert run.returncode == 0, run.stdout + run.stderr
