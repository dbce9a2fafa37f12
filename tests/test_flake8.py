"""The flake8 plugin: the CLI's findings, flake8's positions, flake8's selection and noqa."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from seedlint import cli, flake8_plugin
from seedlint.flake8_plugin import SeedlintChecker
from tests.fixtures_support import FIXTURES, rule_fixtures
from tests.support import WORKERS_SCRIPT, run_seedlint

# Small cases of our own, next to the lead's rule fixtures.
OWN_CASES = {
    "shuffle.py": (
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "\n"
        "loader = DataLoader(range(8), batch_size=2, shuffle=True)\n"
    ),
    "unicode_columns.py": (
        "from torch.utils.data import DataLoader\n"
        "données = [1, 2]; chargé = DataLoader(données, shuffle=True)\n"
        "x = {'é': DataLoader(données, shuffle=True)}\n"
    ),
    "multiline.py": (
        "from torch.utils import data\n"
        "\n"
        "def make(ds):\n"
        "    return data.DataLoader(\n"
        "        ds,\n"
        "        shuffle=True,\n"
        "    )\n"
    ),
    "clean.py": "import os\n\nprint(os.getcwd())\n",
    "cuda_no_seed.py": (
        "import torch\n\ntorch.manual_seed(0)\nx = torch.randn(3, device='cuda')\n"
    ),
}

FIXTURE_FILES = rule_fixtures()
_NOQA = re.compile("noqa", re.IGNORECASE)
_CONFIG = re.compile(r"#\s*fixture-config:\s*(?P<json>\{.*\})")

flake8_missing = pytest.mark.skipif(
    importlib.util.find_spec("flake8") is None, reason="flake8 is not installed"
)


def _toml_table(text: str) -> str:
    """A ``[tool.seedlint]`` table for a fixture's ``# fixture-config:`` line."""
    first = text.splitlines()[0] if text else ""
    match = _CONFIG.search(first)
    lines = ["[tool.seedlint]"]
    if match:
        for key, value in json.loads(match.group("json")).items():
            lines.append(f"{key.replace('_', '-')} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def _selected(text: str) -> tuple[str, ...]:
    """The codes a fixture's ``# fixture-config:`` selects for ``seedlint check`` (all: ``RNG``).
    flake8 selects for itself: the plugin's findings of other codes are left out of a
    comparison with the CLI's."""
    first = text.splitlines()[0] if text else ""
    match = _CONFIG.search(first)
    select = json.loads(match.group("json")).get("select") if match else None
    return tuple(select) if select else ("RNG",)


def _prepare(tmp_path: Path, name: str, text: str) -> Path:
    """The file in a folder of its own with its configuration; ``noqa`` comments neutralised
    (same length) so that both sides see every finding: flake8 applies noqa, not the plugin."""
    folder = tmp_path / Path(name).stem
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(_toml_table(text))
    path = folder / Path(name).name
    path.write_text(_NOQA.sub("nqqa", text), encoding="utf-8")
    return path


def _cli_findings(paths: list[Path], capsys: pytest.CaptureFixture[str]) -> set[tuple]:
    capsys.readouterr()
    cli.main(["check", "--no-cache", "--output-format", "json", *map(str, paths)])
    items = json.loads(capsys.readouterr().out)
    return {
        (
            Path(i["filename"]).resolve(),
            i["code"],
            i["location"]["row"],
            i["location"]["column"],
            i["message"],
        )
        for i in items
    }


def _plugin_findings(path: Path) -> set[tuple]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()  # flake8 reports E999 and runs no tree plugin
    results = list(SeedlintChecker(tree, str(path), lines).run())
    found = set()
    for row, col, message, kind in results:
        assert kind is SeedlintChecker
        assert isinstance(row, int) and isinstance(col, int) and row >= 1 and col >= 0
        code, _, text_part = message.partition(" ")
        found.add((path.resolve(), code, row, col + 1, text_part))
    return found


CASES = [
    pytest.param(p.read_text(encoding="utf-8"), p.name, id=f"{p.parent.name}/{p.name}")
    for p in FIXTURE_FILES
]
CASES += [pytest.param(text, name, id=f"own/{name}") for name, text in OWN_CASES.items()]


@pytest.mark.parametrize(("text", "name"), CASES)
def test_plugin_findings_equal_the_clis(
    text: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _prepare(tmp_path, name, text)
    expected = _cli_findings([path], capsys)
    selected = _selected(text)
    assert {f for f in _plugin_findings(path) if f[1].startswith(selected)} == expected


def test_rule_fixtures_exist() -> None:
    # The comparison above is only as good as the fixtures it runs on.
    assert FIXTURE_FILES, f"no rule fixtures under {FIXTURES}"


def test_own_cases_have_findings(tmp_path: Path) -> None:
    path = _prepare(tmp_path, "shuffle.py", OWN_CASES["shuffle.py"])
    (found,) = _plugin_findings(path)
    assert found[1:4] == ("RNG001", 4, 10)
    path = _prepare(tmp_path, "unicode_columns.py", OWN_CASES["unicode_columns.py"])
    # Columns count characters, not UTF-8 bytes: editors underline the right character.
    assert sorted((f[2], f[3]) for f in _plugin_findings(path)) == [(2, 28), (3, 11)]


def test_a_file_without_trigger_words_costs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> object:
        raise AssertionError("analysed a file that cannot have a finding")

    monkeypatch.setattr(flake8_plugin, "check_text", fail)
    text = "import os\n\nprint(os.getcwd())\n"
    checker = SeedlintChecker(ast.parse(text), "clean.py", text.splitlines(True))
    assert list(checker.run()) == []


def test_the_tree_flake8_parsed_is_reused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The file lies in a project whose index the plugin builds (its builder is called with
    # shuffle=True from another module): its own summary comes from flake8's tree, never from
    # parsing it again; the project's other modules may be parsed.
    text = (
        "from torch.utils.data import DataLoader\n\n\n"
        "def build(ds, shuffle):\n    return DataLoader(ds, shuffle=shuffle)\n"
    )
    path = tmp_path / "loaders.py"
    path.write_text(text)
    (tmp_path / "train.py").write_text(
        "from loaders import build\n\nloader = build([1, 2], shuffle=True)\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SEEDLINT_NO_CACHE", "1")
    tree = ast.parse(text)
    real_parse = ast.parse
    parsed: list[bool] = []

    def parse(source: object, *args: object, **kwargs: object) -> object:
        parsed.append(source in (text, text.encode()))
        return real_parse(source, *args, **kwargs)  # type: ignore[call-overload]

    with monkeypatch.context() as patched:
        patched.setattr(ast, "parse", parse)
        results = list(SeedlintChecker(tree, str(path), text.splitlines(True)).run())
    assert True not in parsed, "parsed the file again"
    assert [(r[0], r[2].split()[0]) for r in results] == [(5, "RNG001")]
    assert "from `train.py:3`" in results[0][2]


def test_plugin_reads_rule_options_from_tool_seedlint(tmp_path: Path) -> None:
    text = "from mylib import FastLoader\n\nloader = FastLoader(range(4), shuffle=True)\n"
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "train.py").write_text(text)
    configured = tmp_path / "configured"
    (configured / "pkg").mkdir(parents=True)
    (configured / "pyproject.toml").write_text(
        '[tool.seedlint]\ndataloader-classes = ["mylib.FastLoader"]\n'
    )
    (configured / "pkg" / "train.py").write_text(text)
    for path, expected in ((plain / "train.py", 0), (configured / "pkg" / "train.py", 1)):
        results = list(SeedlintChecker(ast.parse(text), str(path), text.splitlines(True)).run())
        assert len(results) == expected, path


def test_flake8_selects_not_seedlint(tmp_path: Path) -> None:
    # seedlint's select/ignore/per-file-ignores are for `seedlint check`; flake8 selects itself.
    (tmp_path / "pyproject.toml").write_text(
        '[tool.seedlint]\nignore = ["RNG001"]\nper-file-ignores = { "*.py" = ["RNG"] }\n'
    )
    text = OWN_CASES["shuffle.py"] + "y = DataLoader([1], shuffle=True)  # noqa: RNG001\n"
    path = tmp_path / "train.py"
    results = list(SeedlintChecker(ast.parse(text), str(path), text.splitlines(True)).run())
    assert [(r[0], r[2].split()[0]) for r in results] == [(4, "RNG001"), (5, "RNG001")]


def test_a_bad_configuration_is_one_finding(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.seedlint]\nselect = "RNG001"\n')
    text = OWN_CASES["shuffle.py"]
    path = tmp_path / "train.py"
    results = list(SeedlintChecker(ast.parse(text), str(path), text.splitlines(True)).run())
    assert len(results) == 1
    assert results[0][:2] == (1, 0)
    assert results[0][2].startswith("RNG000 invalid seedlint configuration")


# -- the real flake8 -------------------------------------------------------------------------
def _flake8(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def small_tree(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "\n"
        "loader = DataLoader(range(8), shuffle=True)\n"
        "quiet = DataLoader(range(8), shuffle=True)  # noqa: RNG001\n"
    )
    (tmp_path / "workers.py").write_text(WORKERS_SCRIPT)
    (tmp_path / "clean.py").write_text("import os\n\nprint(os.getcwd())\n")
    return tmp_path


@flake8_missing
def test_real_flake8_reports_rng_codes_and_honours_noqa(small_tree: Path) -> None:
    result = _flake8(small_tree, "--isolated", ".")
    assert result.returncode == 1, result.stderr
    rng = sorted(line for line in result.stdout.splitlines() if ": RNG" in line)
    assert [line.split(" ", 2)[:2] for line in rng] == [
        ["./train.py:4:10:", "RNG001"],
        ["./workers.py:16:10:", "RNG002"],
    ]
    # The same positions and messages as `seedlint check`:
    ours = run_seedlint(
        "check", "--no-cache", "--output-format", "concise", "--quiet", ".", cwd=small_tree
    )
    # (flake8 has no fix marker: the CLI's `[*] ` aside, the lines are the same)
    ours_lines = [line.replace(" [*] ", " ", 1) for line in ours.stdout.splitlines()]
    assert sorted(ours_lines) == sorted(line.removeprefix("./") for line in rng)


@flake8_missing
def test_real_flake8_config_extend_ignore(small_tree: Path) -> None:
    (small_tree / ".flake8").write_text("[flake8]\nextend-ignore = RNG002\n")
    result = _flake8(small_tree, "--select=RNG", ".")
    assert result.returncode == 1, result.stderr
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["RNG001"]


@flake8_missing
def test_real_flake8_select_drops_plugins_unless_extend_select(small_tree: Path) -> None:
    only_e = _flake8(small_tree, "--isolated", "--select=E9", ".")
    assert only_e.returncode == 0 and "RNG" not in only_e.stdout
    both = _flake8(small_tree, "--isolated", "--select=E9", "--extend-select=RNG", ".")
    assert both.returncode == 1
    assert sorted(line.split()[1] for line in both.stdout.splitlines()) == ["RNG001", "RNG002"]


@flake8_missing
def test_real_flake8_lists_the_plugin(tmp_path: Path) -> None:
    result = _flake8(tmp_path, "--version")
    assert result.returncode == 0
    assert "seedlint:" in result.stdout


@flake8_missing
def test_real_flake8_stdin_display_name(small_tree: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "flake8",
            "--isolated",
            "--select=RNG",
            "--stdin-display-name=pkg/train.py",
            "-",
        ],
        input=(small_tree / "train.py").read_text(),
        cwd=small_tree,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.splitlines() == [
        line.replace("./train.py", "pkg/train.py")
        for line in _flake8(
            small_tree, "--isolated", "--select=RNG", "./train.py"
        ).stdout.splitlines()
    ]
    assert result.stdout.startswith("pkg/train.py:4:10: RNG001 ")


@flake8_missing
def test_real_flake8_on_every_rule_fixture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One flake8 run over all rule fixtures gives the CLI's findings (code, row, col, text)."""
    paths = []
    selected: dict[Path, tuple[str, ...]] = {}
    for index, fixture in enumerate(FIXTURE_FILES):
        text = fixture.read_text(encoding="utf-8")
        paths.append(_prepare(tmp_path, f"{index:03d}_{fixture.parent.name}_{fixture.name}", text))
        selected[paths[-1].resolve()] = _selected(text)
    # One CLI run over the fixtures' folders takes one project root for all of them, where
    # flake8 (a file at a time) takes each folder's: a caller's `file.py:12` in a message keeps
    # its file name only, on both sides.
    expected = {_file_names(f) for f in _cli_findings(paths, capsys) if f[1] != "RNG000"}
    result = _flake8(
        tmp_path,
        "--isolated",
        "--select=RNG",
        "--format=%(path)s|%(row)d|%(col)d|%(code)s|%(text)s",
        ".",
    )
    assert result.returncode in (0, 1), result.stderr
    found = set()
    for line in result.stdout.splitlines():
        path, row, col, code, message = line.split("|", 4)
        resolved = (tmp_path / path).resolve()
        if code.startswith(selected.get(resolved, ("RNG",))):
            found.add(_file_names((resolved, code, int(row), int(col), message)))
    assert found == expected


def _file_names(finding: tuple[Path, str, int, int, str]) -> tuple[Path, str, int, int, str]:
    """The finding with each `folder/file.py:12` of its message as `file.py:12`."""
    path, code, row, col, message = finding
    return path, code, row, col, re.sub(r"`(?:[^`/]+/)+([^`/]+:\d+)`", r"`\1`", message)
