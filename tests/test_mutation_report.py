"""Every output format, byte for byte (issue 31): the machine-made mutants of ``seedlint/report``
changed a plural, a column, an escape, a region, and the tests that only look for a code in the
output let them through.

``tests/fixtures/mutation/report/`` holds a small project (a script with a safe fix, one with
an unsafe one and a multi-line call, a tab and non-ASCII text, a notebook of two cells, a file
with one finding) and, under ``expected/``, what each format prints for it, with the
statistics and the summary lines. After a deliberate change of a format, write them again with
``python -m tests.test_mutation_report`` and read the diff.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from seedlint import cli
from seedlint.config import OUTPUT_FORMATS

FOLDER = Path(__file__).parent / "fixtures" / "mutation" / "report"
PROJECT = FOLDER / "project"
EXPECTED = FOLDER / "expected"

# (name, arguments): each format alone, with --statistics, over one file and over none.
RUNS = [
    *[(name, ["--output-format", name, "."]) for name in OUTPUT_FORMATS],
    *[
        (f"{name}-statistics", ["--output-format", name, "--statistics", "."])
        for name in ("full", "concise", "json", "json-lines")
    ],
    *[(f"{name}-one", ["--output-format", name, "one.py"]) for name in OUTPUT_FORMATS],
    ("full-unsafe", ["--output-format", "full", "--unsafe-fixes", "."]),
    ("full-none", ["--output-format", "full", "--select", "RNG006", "."]),
    ("concise-diff", ["--output-format", "concise", "--fix", "--diff", "."]),
    ("concise-fixed", ["--output-format", "concise", "--fix", "."]),
    ("concise-fixed-one", ["--output-format", "concise", "--fix", "one.py"]),
    ("full-fixed-unsafe", ["--output-format", "full", "--fix", "--unsafe-fixes", "."]),
]


def run(folder: Path, args: list[str]) -> str:
    """What the command prints (stdout, then stderr), with the folder's path as <root>."""
    out, err = io.StringIO(), io.StringIO()
    here = Path.cwd()
    try:
        os.chdir(folder)
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(["check", "--isolated", "--no-cache", *args])
    finally:
        os.chdir(here)
    text = f"exit {code}\n-- stdout\n{out.getvalue()}-- stderr\n{err.getvalue()}"
    return text.replace(str(folder.resolve()), "<root>").replace(str(folder), "<root>")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project (a --fix changes it)."""
    folder = tmp_path / "project"
    shutil.copytree(PROJECT, folder)
    return folder


@pytest.mark.parametrize(("name", "args"), RUNS, ids=[name for name, _ in RUNS])
def test_every_format_byte_for_byte(project: Path, name: str, args: list[str]) -> None:
    expected = (EXPECTED / f"{name}.txt").read_text(encoding="utf-8")
    assert run(project, args) == expected


def test_every_expected_output_is_a_run() -> None:
    assert sorted(p.stem for p in EXPECTED.glob("*.txt")) == sorted(name for name, _ in RUNS)


def main() -> None:  # pragma: no cover - writes the expected outputs again
    import tempfile

    EXPECTED.mkdir(exist_ok=True)
    for name, args in RUNS:
        with tempfile.TemporaryDirectory() as temporary:
            folder = Path(temporary) / "project"
            shutil.copytree(PROJECT, folder)
            (EXPECTED / f"{name}.txt").write_text(run(folder, args), encoding="utf-8")
    print(f"wrote {len(RUNS)} files under {EXPECTED}", file=sys.stderr)


if __name__ == "__main__":
    main()


@pytest.mark.parametrize("count", [1, 2])
def test_the_diff_summary_counts_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], count: int
) -> None:
    loaders = "".join(f"loader{i} = DataLoader(range(8), shuffle=True)\n" for i in range(count))
    (tmp_path / "train.py").write_text(
        "import torch\nfrom torch.utils.data import DataLoader\n\n" + loaders
    )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["check", "--isolated", "--no-cache", "--diff", "train.py"]) == 1
    words = "1 finding" if count == 1 else f"{count} findings"
    assert capsys.readouterr().err == f"Would fix {words}.\n"


@pytest.mark.parametrize("end", ["\n", ""], ids=["line-break", "no-line-break"])
def test_the_preview_of_an_insertion_after_the_last_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], end: str
) -> None:
    """RNG004's seed goes after the program's last line: the full output's preview shows it,
    whether or not the file ends with a line break (the edit is then on the row after it)."""
    (tmp_path / "end.py").write_text(
        "import random\n\nimport torch\n\n\ndef main():\n"
        "    model = torch.nn.Linear(2, 2)\n    random.seed(0)" + end
    )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--isolated", "--no-cache", "--output-format", "full", "end.py"])
    out = capsys.readouterr().out
    assert (
        "  help: Add `torch.manual_seed(0)` after the last seeding call\n  |\n"
        "8 |     random.seed(0)\n9 +     torch.manual_seed(0)\n  |\n"
    ) in out


def test_gitlab_paths_are_relative_to_ci_project_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With ``CI_PROJECT_DIR`` set, the GitLab report's paths are relative to it, not to the
    working directory (here a folder inside the project)."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "train.py").write_text(
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "loader = DataLoader(range(8), shuffle=True)\n"
    )
    monkeypatch.chdir(tmp_path / "sub")
    monkeypatch.setenv("CI_PROJECT_DIR", str(tmp_path))
    capsys.readouterr()
    cli.main(["check", "--isolated", "--no-cache", "--output-format", "gitlab", "train.py"])
    paths = {item["location"]["path"] for item in json.loads(capsys.readouterr().out)}
    assert paths == {"sub/train.py"}


def test_a_notebook_cell_of_one_string_in_the_github_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cell whose ``source`` is one string (not a list of lines) is on one line of the
    ``.ipynb``: a finding on the cell's first row has its exact columns there (the string
    starts at column 14 of line 15, after its quote), one on a later row the cell's line."""
    cells = [
        "import torch\nfrom torch.utils.data import DataLoader",
        "loader = DataLoader(range(8), shuffle=True)",
        "x = 1\nother = DataLoader(range(8), shuffle=True)",
    ]
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": source,
            }
            for source in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook, indent=1) + "\n")
    assert (tmp_path / "nb.ipynb").read_text().splitlines()[14] == (
        '   "source": "loader = DataLoader(range(8), shuffle=True)"'
    )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--isolated", "--no-cache", "--output-format", "github", "nb.ipynb"])
    message = "RNG001 DataLoader shuffles without a `generator`: its order depends on the global "
    message += "torch generator"
    assert capsys.readouterr().out == (
        "::error title=seedlint (RNG001),file=nb.ipynb,line=15,col=24,endLine=15,endColumn=58"
        f"::nb.ipynb:cell 2:1:10: {message}\n"
        "::error title=seedlint (RNG001),file=nb.ipynb,line=22,col=14,endLine=22,endColumn=15"
        f"::nb.ipynb:cell 3:2:9: {message}\n"
    )


TRAIN_WITH_ORIGINS = (
    "import argparse\n\nimport torch\nimport yaml\nfrom torch.utils.data import DataLoader\n\n"
    "parser = argparse.ArgumentParser()\n"
    'parser.add_argument("--workers", type=int, default=4)\n'
    "args = parser.parse_args()\n"
    'with open("config.yaml") as f:\n    cfg = yaml.safe_load(f)\n'
    "torch.manual_seed(0)\n"
    "first = DataLoader(range(8), num_workers=args.workers)\n"
    'second = DataLoader(range(8), num_workers=cfg["data"]["workers"])\n'
)


@pytest.mark.parametrize("name", ["json", "json-lines"])
def test_the_json_origin_names_the_file_that_sets_the_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """A value set in the finding's own file (an argparse default) has that file as its
    origin's filename; one set in another file (a YAML config), that other file."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "config.yaml").write_text("data:\n  workers: 2\n")
    (tmp_path / "train.py").write_text(TRAIN_WITH_ORIGINS)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--no-cache", "--output-format", name, "train.py"])
    out = capsys.readouterr().out
    items = json.loads(out) if name == "json" else [json.loads(line) for line in out.splitlines()]
    train, config = str(tmp_path / "train.py"), str(tmp_path / "config.yaml")
    assert [(item["filename"], item["location"]["row"], item["origin"]) for item in items] == [
        (
            train,
            13,
            {
                "name": "num_workers",
                "value": "4",
                "source": "argparse default, line 8",
                "filename": train,
                "row": 8,
            },
        ),
        (
            train,
            14,
            {
                "name": "num_workers",
                "value": "2",
                "source": "set in config.yaml:2",
                "filename": config,
                "row": 2,
            },
        ),
    ]


@pytest.mark.parametrize("char", ["\ud800", "\udc80", "\udfff", "\x01", "\x1f"])
def test_junit_replaces_what_xml_cannot_hold(char: str) -> None:
    """Every unpaired surrogate (U+D800 to U+DFFF: a file name that is not UTF-8 gives some)
    and every control character but tab and line breaks become U+FFFD in the junit report,
    in its attributes and its text."""
    from seedlint import report
    from seedlint.core.findings import Finding

    finding = Finding("RNG001", "x", f"a{char}b", f"m{char}.py", 1, 0, 1, 1)
    out = report.junit([finding])
    assert char not in out
    assert 'name="m\ufffd.py"' in out and ">line 1, col 1, a\ufffdb</failure>" in out
    out.encode("utf-8")  # no surrogate left to encode
