"""Issue 14's polish: short messages, the defects a new user hit, and the adoption tools
(``--add-noqa``, ``gitlab`` output, ``--show-settings``, ``-v``)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

from seedlint.cli import build_parser
from seedlint.config import ConfigError, Settings, env_bool
from seedlint.engine.add_noqa import add_noqa
from seedlint.engine.check import check_bytes
from seedlint.rules import BY_CODE, RULES
from seedlint.rules.rng001_shuffle_without_generator import MESSAGE
from tests.fixtures_support import FIXTURES, fixture_settings
from tests.support import run_seedlint

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"

SHUFFLED = (
    "from torch.utils.data import DataLoader\n\nloader = DataLoader(range(8), shuffle=True)\n"
)


# -- short messages ---------------------------------------------------------------------------
def _fixture_messages() -> dict[str, list[tuple[str, str]]]:
    """Every finding's message on every fixture (rule fixtures, notebooks, broken files), by
    rule code: (fixture, message)."""
    found: dict[str, list[tuple[str, str]]] = {code: [] for code in BY_CODE}
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix not in (".py", ".ipynb") or not path.is_file():
            continue
        raw = path.read_bytes()
        text = raw.decode("utf-8", "replace")
        settings = fixture_settings(text, path.parent) if path.suffix == ".py" else Settings()
        for finding in check_bytes(raw, str(path), settings).findings:
            found[finding.code].append((str(path.relative_to(FIXTURES)), finding.message))
    return found


_MESSAGES: dict[str, list[tuple[str, str]]] = {}


@pytest.mark.parametrize("code", [rule.code for rule in RULES])
def test_every_message_on_every_fixture_is_short(code: str) -> None:
    if not _MESSAGES:
        _MESSAGES.update(_fixture_messages())
    long = [(name, len(msg), msg) for name, msg in _MESSAGES[code] if len(msg) > 120]
    assert not long, long


@pytest.mark.parametrize("code", ["RNG001", "RNG003"])
def test_messages_are_one_sentence_of_about_100_characters(code: str) -> None:
    if not _MESSAGES:
        _MESSAGES.update(_fixture_messages())
    messages = {msg for _, msg in _MESSAGES[code]}
    assert messages, f"no fixture makes {code} fire"
    for message in messages:
        assert len(message) <= 100, message
        assert "PyTorch 2." not in message and "CUDAGeneratorImpl" not in message  # the why
        assert not re.search(r"\.\s+[A-Z]", message) and not message.endswith(".")


def test_readme_sample_output_is_the_real_output(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("$ seedlint check --output-format concise examples/\n", 1)[1]
    shown = block.split("```", 1)[0].splitlines()
    real = run_seedlint(
        "check", "--no-cache", "--output-format", "concise", "examples/", cwd=ROOT
    ).stdout.splitlines()
    assert len(shown) == len(real)
    for line, actual in zip(shown, real):
        if line.endswith(" (...)"):  # a cut: only while that rule's message is long
            assert actual.startswith(line[: -len(" (...)")]), (line, actual)
            message = actual.split(": ", 1)[1]
            assert len(message) > 120, f"no cut needed any more: {actual}"
        else:
            assert line == actual


def test_readme_links_are_absolute() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)]+)\)", readme)
    assert links
    relative = [link for link in links if not link.startswith(("https://", "http://", "#"))]
    assert not relative, relative


def test_help_line_names_the_real_seed_expression() -> None:
    result = run_seedlint("check", "--no-cache", "examples/train.py", cwd=ROOT)
    helps = [line for line in result.stdout.splitlines() if line.startswith("  help: ")]
    assert helps and not any("SEED" in line for line in helps)
    assert any("manual_seed(args.seed)" in line for line in helps)


def test_every_check_option_has_help_text() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    check = sub.choices["check"]  # type: ignore[attr-defined]
    missing = [a.option_strings or a.dest for a in check._actions if not a.help]
    assert not missing, missing


# -- 1. environment variables -----------------------------------------------------------------
def test_bogus_output_format_in_the_environment_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text(SHUFFLED)
    result = subprocess.run(
        [sys.executable, "-m", "seedlint", "check", "t.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**_env(), "SEEDLINT_OUTPUT_FORMAT": "jsno"},
        timeout=60,
    )
    assert result.returncode == 2
    assert "internal error" not in result.stderr
    assert result.stderr.count("\n") == 1
    assert "SEEDLINT_OUTPUT_FORMAT" in result.stderr and "did you mean `json`" in result.stderr
    ok = subprocess.run(
        [sys.executable, "-m", "seedlint", "check", "--no-cache", "t.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**_env(), "SEEDLINT_OUTPUT_FORMAT": "json"},
        timeout=60,
    )
    assert json.loads(ok.stdout)[0]["code"] == "RNG001"


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")}


@pytest.mark.parametrize(
    ("value", "cached"),
    [("false", True), ("0", True), ("off", True), ("", True), ("true", False), ("1", False)],
)
def test_no_cache_environment_variable_is_a_boolean(
    tmp_path: Path, value: str, cached: bool
) -> None:
    (tmp_path / "t.py").write_text(SHUFFLED)
    result = run_seedlint(
        "check", "t.py", cwd=tmp_path, env={"SEEDLINT_NO_CACHE": value}, clean_env=True
    )
    assert result.returncode == 1
    assert (tmp_path / ".seedlint_cache").exists() is cached


def test_env_bool_reads_like_ruff(monkeypatch: pytest.MonkeyPatch) -> None:
    for value, expected in [("YES", True), ("On", True), ("t", True), ("N", False), ("no", False)]:
        monkeypatch.setenv("SEEDLINT_X", value)
        assert env_bool("SEEDLINT_X") is expected
    monkeypatch.setenv("SEEDLINT_X", "maybe")
    with pytest.raises(ConfigError, match="expected a boolean"):
        env_bool("SEEDLINT_X")
    monkeypatch.delenv("SEEDLINT_X")
    assert env_bool("SEEDLINT_X") is False


# -- 2. flake8 and the CLI agree on noqa at the end of a multi-line call ----------------------
MULTILINE = (
    "from torch.utils.data import DataLoader\n"
    "\n"
    "a = DataLoader(\n"
    "    range(8),\n"
    "    shuffle=True,\n"
    "){noqa}\n"
)


@pytest.mark.parametrize(
    ("noqa", "reported"),
    [("", True), ("  # noqa: RNG001", False), ("  # noqa", False), ("  # noqa: RNG002", True)],
)
def test_flake8_and_cli_honour_noqa_on_the_last_line(
    tmp_path: Path, noqa: str, reported: bool
) -> None:
    (tmp_path / "t.py").write_text(MULTILINE.format(noqa=noqa))
    cli = run_seedlint(
        "check",
        "--isolated",
        "--no-cache",
        "--output-format",
        "concise",
        "-q",
        "t.py",
        cwd=tmp_path,
    )
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=RNG", "t.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    cli_lines = [line for line in cli.stdout.splitlines() if " RNG" in line]
    flake8_lines = flake8.stdout.splitlines()
    assert bool(cli_lines) is reported and bool(flake8_lines) is reported
    assert [re.sub(r" \[\*\]", "", line) for line in cli_lines] == flake8_lines


# -- 3. --statistics ----------------------------------------------------------------------------
def test_statistics_prints_only_the_table(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text(SHUFFLED)
    result = run_seedlint("check", "--no-cache", "--statistics", "t.py", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"\s+1\tRNG001\t\[\*\] dataloader-shuffle-without-generator", lines[0])
    assert not any("t.py" in line or line.startswith("Found") for line in lines)
    as_json = run_seedlint(
        "check", "--no-cache", "--statistics", "--output-format", "json", "t.py", cwd=tmp_path
    )
    assert json.loads(as_json.stdout) == [
        {
            "code": "RNG001",
            "name": "dataloader-shuffle-without-generator",
            "count": 1,
            "fixable": True,
        }
    ]
    sarif = run_seedlint(
        "check", "--no-cache", "--statistics", "--output-format", "sarif", "t.py", cwd=tmp_path
    )
    assert sarif.returncode == 2 and "--statistics" in sarif.stderr


# -- 4. notebooks in github, sarif and gitlab output ------------------------------------------
def _notebook(tmp_path: Path) -> tuple[Path, int]:
    """A notebook whose finding is in cell 3 row 2; and the .ipynb line holding that row."""
    cells = [
        {"cell_type": "code", "metadata": {}, "source": ["import torch\n"], "outputs": []},
        {"cell_type": "markdown", "metadata": {}, "source": ["# Data"]},
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": None,
            "outputs": [],
            "source": [
                "from torch.utils.data import DataLoader\n",
                "loader = DataLoader(range(8), shuffle=True)",
            ],
        },
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(notebook, indent=1) + "\n"
    path = tmp_path / "nb.ipynb"
    path.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "loader = DataLoader" in t)
    return path, line


def test_notebook_finding_in_github_output(tmp_path: Path) -> None:
    _, line = _notebook(tmp_path)
    result = run_seedlint("check", "--no-cache", "--output-format", "github", ".", cwd=tmp_path)
    (annotation,) = result.stdout.splitlines()
    column = (tmp_path / "nb.ipynb").read_text().splitlines()[line - 1].index('"') + 2 + 9
    assert f"file=nb.ipynb,line={line},col={column}," in annotation
    assert annotation.split("::", 2)[2].startswith("nb.ipynb:cell 3:2:10: RNG001 ")


def test_notebook_finding_in_sarif_output(tmp_path: Path) -> None:
    _, line = _notebook(tmp_path)
    result = run_seedlint("check", "--no-cache", "--output-format", "sarif", ".", cwd=tmp_path)
    (item,) = json.loads(result.stdout)["runs"][0]["results"]
    location = item["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "nb.ipynb"
    assert location["physicalLocation"]["region"]["startLine"] == line
    assert location["logicalLocations"] == [{"name": "cell 3", "kind": "module"}]
    assert item["properties"]["cell"] == 3
    assert item["properties"]["cellRegion"]["startLine"] == 2
    assert item["properties"]["cellRegion"]["startColumn"] == 10


def test_vscode_problem_matchers_read_notebook_lines(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    block = text.split("// .vscode/tasks.json\n", 1)[1].split("```", 1)[0]
    block = re.sub(r"^\s*//.*$", "", block, flags=re.MULTILINE)
    (task,) = json.loads(block)["tasks"]
    _notebook(tmp_path)
    (tmp_path / "t.py").write_text(SHUFFLED)
    lines = run_seedlint(*task["command"].split()[1:], cwd=tmp_path).stdout.splitlines()
    matched: dict[str, tuple[str, ...]] = {}
    for matcher in task["problemMatcher"]:
        pattern = matcher["pattern"]
        for line in lines:
            match = re.match(pattern["regexp"], line)
            if match:
                assert line not in matched, "two matchers read one line"
                keys = [k for k in ("file", "line", "column", "code", "message") if k in pattern]
                matched[line] = tuple(match.group(pattern[k]) for k in keys)
    assert len(matched) == len(lines) == 2
    notebook = next(v for k, v in matched.items() if k.startswith("nb.ipynb"))
    assert notebook[0] == "nb.ipynb" and notebook[1] == "RNG001"
    assert notebook[2].startswith("cell 3:2:10: RNG001 ")


# -- 5. github paths relative to the repository's root ----------------------------------------
def test_github_paths_are_relative_to_the_workspace(tmp_path: Path) -> None:
    sub = tmp_path / "pkg"
    sub.mkdir()
    (sub / "t.py").write_text(SHUFFLED)
    args = ("check", "--no-cache", "--output-format", "github", "t.py")
    inside = run_seedlint(*args, cwd=sub, env={"GITHUB_WORKSPACE": str(tmp_path)})
    assert "file=pkg/t.py,line=3," in inside.stdout
    assert inside.stdout.split("::", 2)[2].startswith("pkg/t.py:3:10: RNG001")
    plain = run_seedlint(*args, cwd=sub, clean_env=True, env={"GITHUB_WORKSPACE": ""})
    assert "file=t.py,line=3," in plain.stdout


# -- 6. release hygiene -----------------------------------------------------------------------
def test_package_metadata() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    assert project["license-files"] == ["LICENSE"]
    assert {"Homepage", "Repository", "Issues"} <= set(project["urls"])
    classifiers = set(project["classifiers"])
    assert "Typing :: Typed" in classifiers
    low = int(project["requires-python"].removeprefix(">=3."))
    for minor in range(low, 14):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # PEP 639: the expression


def test_sdist_holds_no_tests(tmp_path: Path) -> None:
    """Built with the installed setuptools (no network): the package, README and LICENSE."""
    import shutil

    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "seedlint", source / "seedlint")
    shutil.copytree(ROOT / "tests", source / "tests")
    code = "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))"
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "dist")],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0 and "setuptools" in result.stderr and "77" in result.stderr:
        pytest.skip("the installed setuptools predates PEP 639")
    assert result.returncode == 0, result.stderr[-2000:]
    name = result.stdout.strip().splitlines()[-1]
    with tarfile.open(tmp_path / "dist" / name) as archive:
        names = [n.split("/", 1)[1] for n in archive.getnames() if "/" in n]
    assert "LICENSE" in names and "seedlint/cli.py" in names and "seedlint/py.typed" in names
    assert not any(n.startswith("tests") for n in names), names


# -- 7. did you mean --------------------------------------------------------------------------
def test_unknown_config_key_and_code_get_a_suggestion(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text(SHUFFLED)
    (tmp_path / "seedlint.toml").write_text('selct = ["RNG001"]\n')
    result = run_seedlint("check", "t.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "unknown key `selct`" in result.stderr and "did you mean `select`?" in result.stderr
    (tmp_path / "seedlint.toml").write_text('ignore = ["RNG01"]\n')
    result = run_seedlint("check", "t.py", cwd=tmp_path)
    assert result.returncode == 2 and "did you mean `RNG001`?" in result.stderr
    result = run_seedlint("rule", "RNG0001", cwd=tmp_path)
    assert result.returncode == 2 and "did you mean `RNG001`?" in result.stderr
    result = run_seedlint("check", "--isolated", "--select", "XYZ", "t.py", cwd=tmp_path)
    assert result.returncode == 2 and "did you mean" not in result.stderr  # nothing close


# -- 8. newer syntax ----------------------------------------------------------------------------
def test_syntax_error_names_the_grammar(tmp_path: Path) -> None:
    if sys.version_info >= (3, 14):
        pytest.skip("the hint needs syntax newer than this Python's")
    # A t-string (3.14); a type alias (3.12) is read under older Pythons too (engine/grammar.py).
    newer = 'greeting = t"hello"\n'
    (tmp_path / "t.py").write_text(SHUFFLED + newer)
    result = run_seedlint(
        "check", "--no-cache", "--output-format", "concise", "-q", "t.py", cwd=tmp_path
    )
    (line,) = result.stdout.splitlines()
    assert "RNG000 SyntaxError: " in line
    assert f"(parsed with Python {PYTHON}'s grammar; a newer Python may read it)" in line
    assert len(line.split(": RNG000 ", 1)[1]) <= 120
    docs = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    assert "## Which Python to run seedlint with" in docs


def test_cache_is_kept_per_python(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text(SHUFFLED)
    run_seedlint("check", "t.py", cwd=tmp_path, clean_env=True)
    (folder,) = [p for p in (tmp_path / ".seedlint_cache").iterdir() if p.is_dir()]
    assert folder.name.endswith(f"-py{sys.version_info[0]}{sys.version_info[1]}")


# -- --add-noqa ---------------------------------------------------------------------------------
ADD_NOQA = (
    "from torch.utils.data import DataLoader\n"
    "\n"
    "a = DataLoader(range(3), shuffle=True)  # keep this\n"
    "b = DataLoader(range(3), shuffle=True)  # noqa: E501 reason\n"
    "c = DataLoader(\n"
    "    range(3),\n"
    "    shuffle=True,\n"
    ")\n"
    'd = DataLoader(range(3), shuffle=True, collate_fn=lambda x: """\n'
    'text"""\n'
    ")\n"
    "e = DataLoader(range(3), shuffle=True)  # noqa\n"
)


def test_add_noqa(tmp_path: Path) -> None:
    path = tmp_path / "t.py"
    path.write_bytes(ADD_NOQA.replace("\n", "\r\n").encode())
    result = run_seedlint("check", "--no-cache", "--add-noqa", "t.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Added 4 noqa directives." in result.stderr
    raw = path.read_bytes()
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")  # line endings kept
    lines = raw.decode().splitlines()
    assert lines[2] == "a = DataLoader(range(3), shuffle=True)  # keep this  # noqa: RNG001"
    assert lines[3] == "b = DataLoader(range(3), shuffle=True)  # noqa: E501, RNG001 reason"
    assert lines[4] == "c = DataLoader(  # noqa: RNG001"  # the line the finding points at
    assert lines[9] == 'text"""'  # inside a string: the call's last line instead
    assert lines[10] == ")  # noqa: RNG001"
    assert lines[11].endswith("# noqa")  # already covered
    ast.parse(raw.decode())
    assert run_seedlint("check", "--no-cache", "t.py", cwd=tmp_path).returncode == 0
    again = run_seedlint("check", "--no-cache", "--add-noqa", "t.py", cwd=tmp_path)
    assert "Added 0 noqa directives." in again.stderr and path.read_bytes() == raw


def test_add_noqa_text_function_is_idempotent() -> None:
    from seedlint.core import Finding

    finding = Finding("RNG001", "x", "m", "t.py", 1, 0, 1, 5, noqa_rows=(1,))
    once, changed = add_noqa("x = f()  # noqa:RNG002\n", [finding])
    assert changed == 1 and once == "x = f()  # noqa: RNG002, RNG001\n"
    assert add_noqa(once, [finding]) == (once, 0)


def test_add_noqa_refuses_fix_and_stdin(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text(SHUFFLED)
    assert run_seedlint("check", "--add-noqa", "--fix", "t.py", cwd=tmp_path).returncode == 2
    result = run_seedlint("check", "--add-noqa", "-", cwd=tmp_path, stdin=SHUFFLED)
    assert result.returncode == 2


# -- gitlab --------------------------------------------------------------------------------------
def test_gitlab_code_quality_report(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "t.py").write_text(SHUFFLED + SHUFFLED.splitlines()[-1] + "\n")
    args = ("check", "--no-cache", "--output-format", "gitlab", "src")
    result = run_seedlint(*args, cwd=tmp_path, env={"CI_PROJECT_DIR": str(tmp_path)})
    assert result.returncode == 1
    items = json.loads(result.stdout)
    assert [item["location"] for item in items] == [
        {"path": "src/t.py", "lines": {"begin": 3, "end": 3}},
        {"path": "src/t.py", "lines": {"begin": 4, "end": 4}},
    ]
    for item in items:
        assert set(item) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert item["check_name"] == "RNG001" and item["severity"] == "major"
        assert item["description"] == MESSAGE
    fingerprints = [item["fingerprint"] for item in items]
    assert len(set(fingerprints)) == 2  # identical findings told apart
    # Stable: the same after code above the findings moves them down.
    (tmp_path / "src" / "t.py").write_text(
        "# a comment\n" + (tmp_path / "src" / "t.py").read_text()
    )
    moved = json.loads(
        run_seedlint(*args, cwd=tmp_path, env={"CI_PROJECT_DIR": str(tmp_path)}).stdout
    )
    assert [item["fingerprint"] for item in moved] == fingerprints
    assert moved[0]["location"]["lines"]["begin"] == 4
    assert all(re.fullmatch(r"[0-9a-f]{64}", f) for f in fingerprints)


# -- --show-settings and -v -------------------------------------------------------------------
def test_show_settings_says_where_each_value_comes_from(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "t.py").write_text(SHUFFLED)
    (tmp_path / "pyproject.toml").write_text('[tool.seedlint]\nignore = ["RNG003"]\n')
    result = run_seedlint(
        "check", "--show-settings", "--fix-seed", "7", "pkg", cwd=tmp_path, clean_env=True
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Resolved settings for: pkg/t.py" in out
    assert f"Configuration file: {(tmp_path / 'pyproject.toml').resolve()}" in out
    assert f'ignore = ["RNG003"]  # {(tmp_path / "pyproject.toml").resolve()}' in out
    assert "fix-seed = 7  # command line" in out
    assert 'select = ["RNG0"]  # default' in out
    env = run_seedlint(
        "check",
        "--show-settings",
        "pkg",
        cwd=tmp_path,
        clean_env=True,
        env={"SEEDLINT_CACHE_DIR": "/tmp/x"},
    )
    assert 'cache-dir = "/tmp/x"  # environment (SEEDLINT_CACHE_DIR)' in env.stdout


def test_verbose_says_what_was_skipped_and_why(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("ignored.py\n")
    (tmp_path / "ignored.py").write_text(SHUFFLED)
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "x.py").write_text(SHUFFLED)
    (tmp_path / "plain.py").write_text("x = 1\n")
    (tmp_path / "t.py").write_text(SHUFFLED)
    result = run_seedlint("check", "--no-cache", "-v", ".", cwd=tmp_path)
    assert result.returncode == 1
    err = result.stderr
    assert "skipped ignored.py: gitignored" in err
    assert "skipped build: excluded" in err
    assert "skipped plain.py: no selected rule can fire on it" in err
    assert "skipped t.py" not in err
    quiet = run_seedlint("check", "--no-cache", ".", cwd=tmp_path)
    assert "skipped" not in quiet.stderr


# -- json edits for notebook fixes -------------------------------------------------------------
def _apply(text: str, edits: list[dict[str, Any]]) -> str:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    for edit in sorted(edits, key=lambda e: (e["location"]["row"], e["location"]["column"]))[::-1]:
        begin = starts[edit["location"]["row"] - 1] + edit["location"]["column"] - 1
        end = starts[edit["end_location"]["row"] - 1] + edit["end_location"]["column"] - 1
        text = text[:begin] + str(edit["content"]) + text[end:]
    return text


def test_notebook_fix_edits_count_rows_in_the_cell(tmp_path: Path) -> None:
    path, _ = _notebook(tmp_path)
    data = json.loads(path.read_text())
    data["cells"][0]["source"] = ["import torch\n", "%matplotlib inline\n"]
    path.write_text(json.dumps(data, indent=1) + "\n")
    result = run_seedlint("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path)
    (item,) = json.loads(result.stdout)
    assert item["cell"] == 3 and item["location"] == {"row": 2, "column": 10}
    edits = item["fix"]["edits"]
    assert edits and all(e["location"]["row"] == 2 for e in edits)
    cell = "".join(data["cells"][2]["source"])
    assert run_seedlint("check", "--no-cache", "--fix", ".", cwd=tmp_path).returncode == 0
    fixed = "".join(json.loads(path.read_text())["cells"][2]["source"])
    assert _apply(cell, edits) == fixed


def test_notebook_fix_touching_another_cell_has_no_edits(tmp_path: Path) -> None:
    _notebook(tmp_path)  # `import torch` is in cell 1 ... but the fix is in cell 3 only
    path = tmp_path / "nb.ipynb"
    data = json.loads(path.read_text())
    data["cells"][0]["source"] = ["x = 1\n"]  # the fix must now add `import torch` to cell 1
    path.write_text(json.dumps(data, indent=1) + "\n")
    result = run_seedlint("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path)
    (item,) = json.loads(result.stdout)
    assert item["fix"]["message"].startswith("Pass `generator=")
    assert item["fix"]["edits"] == []
