"""Configuration, every spelling a table of ``seedlint/config.py`` holds (issue 31): each boolean
word of the environment, each output format, each config file name and their order, each key
kind with a value of the wrong type, each pattern kind of ``exclude`` and ``per-file-ignores``,
the seed's bounds and the formatter's line length. Each runs the real command line (in this
process: ``cli.main``), in a folder of its own.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from seedlint import cli
from seedlint.config import _FALSE, _TRUE, OUTPUT_FORMATS, SEED_MAX, SEED_MIN, Settings

SHUFFLED = (
    "import torch\nfrom torch.utils.data import DataLoader\n\n"
    "loader = DataLoader(range(8), shuffle=True)\n"
)


def seedlint(
    args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    code = cli.main(args)
    out, err = capsys.readouterr()
    return code, out, err


def found(
    args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> list[tuple[str, str]]:
    """The (file, code) of each finding of a json check."""
    code, out, err = seedlint(
        ["check", "--no-cache", "--output-format", "json", *args], cwd, monkeypatch, capsys
    )
    assert code in (0, 1), err
    return sorted((Path(f["filename"]).name, f["code"]) for f in json.loads(out))


def settings_shown(
    args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> dict[str, tuple[Any, str]]:
    """``--show-settings``: each key's value and where it comes from."""
    code, out, err = seedlint(["check", "--show-settings", *args], cwd, monkeypatch, capsys)
    assert code == 0, err
    shown: dict[str, tuple[Any, str]] = {}
    for line in out.splitlines():
        if " = " in line:
            key, rest = line.split(" = ", 1)
            value, where = rest.rsplit("  # ", 1)
            shown[key] = (json.loads(value), where)
    return shown


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SEEDLINT_OUTPUT_FORMAT", "SEEDLINT_NO_CACHE", "SEEDLINT_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)


# -- the environment -------------------------------------------------------------------------
@pytest.mark.parametrize("word", [*sorted(_TRUE), "", *sorted(_FALSE)])
@pytest.mark.parametrize("case", [str.lower, str.upper], ids=["lower", "upper"])
def test_every_boolean_word_of_seedlint_no_cache(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    word: str,
    case: Any,
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    monkeypatch.setenv("SEEDLINT_NO_CACHE", f" {case(word)} ")
    code, _, err = seedlint(["check", "-q", "a.py"], tmp_path, monkeypatch, capsys)
    assert code == 1, err
    assert (tmp_path / ".seedlint_cache").exists() is (word not in _TRUE)


@pytest.mark.parametrize("word", ["2", "maybe", "tru", "of"])
def test_a_word_that_is_no_boolean_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], word: str
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    monkeypatch.setenv("SEEDLINT_NO_CACHE", word)
    code, out, err = seedlint(["check", "a.py"], tmp_path, monkeypatch, capsys)
    assert code == 2 and out == ""
    assert err == (
        f"seedlint: error: SEEDLINT_NO_CACHE={word!r}: expected a boolean "
        "(true/false, 1/0, yes/no, on/off)\n"
    )


@pytest.mark.parametrize("name", OUTPUT_FORMATS)
def test_every_output_format_of_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    monkeypatch.setenv("SEEDLINT_OUTPUT_FORMAT", name)
    code, from_env, _ = seedlint(["check", "--no-cache", "a.py"], tmp_path, monkeypatch, capsys)
    assert code == 1
    monkeypatch.delenv("SEEDLINT_OUTPUT_FORMAT")
    _, from_option, _ = seedlint(
        ["check", "--no-cache", "--output-format", name, "a.py"], tmp_path, monkeypatch, capsys
    )
    assert from_env == from_option and "RNG001" in from_env
    monkeypatch.setenv("SEEDLINT_OUTPUT_FORMAT", name)
    assert settings_shown(["a.py"], tmp_path, monkeypatch, capsys)["output-format"] == (
        name,
        "environment (SEEDLINT_OUTPUT_FORMAT)",
    )


@pytest.mark.parametrize(
    ("value", "hint"),
    [("jsn", " (did you mean `json`?)"), ("xml", f" (one of {', '.join(OUTPUT_FORMATS)})")],
)
def test_an_unknown_output_format_of_the_environment(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    value: str,
    hint: str,
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    monkeypatch.setenv("SEEDLINT_OUTPUT_FORMAT", value)
    code, _, err = seedlint(["check", "a.py"], tmp_path, monkeypatch, capsys)
    assert (code, err) == (
        2,
        f"seedlint: error: SEEDLINT_OUTPUT_FORMAT={value!r}: unknown value{hint}\n",
    )


# -- the configuration files -----------------------------------------------------------------
TABLES = {
    ".seedlint.toml": 'ignore = ["RNG001"]\n',
    "seedlint.toml": 'ignore = ["RNG001"]\n',
    "pyproject.toml": '[tool.seedlint]\nignore = ["RNG001"]\n',
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_config_file_name_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(SHUFFLED)
    assert found(["pkg"], tmp_path, monkeypatch, capsys) == [("a.py", "RNG001")]
    (tmp_path / name).write_text(TABLES[name])
    assert found(["pkg"], tmp_path, monkeypatch, capsys) == []
    shown = settings_shown(["pkg"], tmp_path, monkeypatch, capsys)
    assert shown["ignore"] == (["RNG001"], str(tmp_path / name))


@pytest.mark.parametrize(
    ("present", "winner"),
    [
        ((".seedlint.toml", "seedlint.toml", "pyproject.toml"), ".seedlint.toml"),
        (("seedlint.toml", "pyproject.toml"), "seedlint.toml"),
        ((".seedlint.toml", "pyproject.toml"), ".seedlint.toml"),
    ],
)
def test_the_config_files_order_in_one_folder(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    present: tuple[str, ...],
    winner: str,
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    for name in present:
        body = "fix-seed = 5\n" if name == winner else "fix-seed = 9\n"
        (tmp_path / name).write_text(
            ("[tool.seedlint]\n" if name == "pyproject.toml" else "") + body
        )
    shown = settings_shown(["a.py"], tmp_path, monkeypatch, capsys)
    assert shown["fix-seed"] == (5, str(tmp_path / winner))


def test_a_pyproject_without_a_seedlint_table_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The closest file that configures seedlint wins: the parent's, not an inner
    pyproject.toml that only configures other tools."""
    (tmp_path / "seedlint.toml").write_text("fix-seed = 3\n")
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    (inner / "a.py").write_text(SHUFFLED)
    shown = settings_shown(["inner/a.py"], tmp_path, monkeypatch, capsys)
    assert shown["fix-seed"] == (3, str(tmp_path / "seedlint.toml"))
    (inner / "pyproject.toml").write_text("[tool.seedlint]\nfix-seed = 4\n")
    shown = settings_shown(["inner/a.py"], tmp_path, monkeypatch, capsys)
    assert shown["fix-seed"] == (4, str(inner / "pyproject.toml"))


LIST_KEYS = [
    "select",
    "extend-select",
    "ignore",
    "extend-ignore",
    "exclude",
    "extend-exclude",
    "include",
    "extend-include",
    "dataloader-classes",
    "capture-contexts",
    "seed-functions",
    "set-epoch-wrappers",
    "fixable",
    "unfixable",
]
WRONG_TYPES = (
    [(key, "1", "must be a list of strings") for key in LIST_KEYS]
    + [(key, "[1]", "must be a list of strings") for key in LIST_KEYS]
    + [
        (key, '"yes"', "must be true or false")
        for key in ("respect-gitignore", "force-exclude", "unsafe-fixes")
    ]
    + [("fix-seed", "true", "must be an integer"), ("fix-seed", '"7"', "must be an integer")]
    + [(key, "3", "must be a string") for key in ("output-format", "cache-dir")]
    + [
        ("output-format", '"jsn"', f"must be one of {', '.join(OUTPUT_FORMATS)} "),
        ("per-file-ignores", '["a"]', "must be a table of glob = [codes]"),
        ("per-file-ignores", '{"a.py" = "RNG001"}', ": `a.py` must be a list of codes"),
        ("per-file-ignores", '{"a.py" = [1]}', ": `a.py` must be a list of codes"),
        ("fix-seed", str(SEED_MAX + 1), "must be a seed torch.manual_seed accepts"),
        ("fix-seed", str(SEED_MIN - 1), "must be a seed torch.manual_seed accepts"),
    ]
)


@pytest.mark.parametrize(("key", "value", "message"), WRONG_TYPES)
def test_every_key_kind_refuses_a_wrong_value(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    key: str,
    value: str,
    message: str,
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    (tmp_path / "seedlint.toml").write_text(f"{key} = {value}\n")
    code, out, err = seedlint(["check", "a.py"], tmp_path, monkeypatch, capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"seedlint: error: {tmp_path / 'seedlint.toml'}: `{key}`"), err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        *[(key, '["RNG001"]', ["RNG001"]) for key in LIST_KEYS],
        *[(key, "false", False) for key in ("respect-gitignore", "force-exclude")],
        ("unsafe-fixes", "true", True),
        ("fix-seed", str(SEED_MAX), SEED_MAX),
        ("fix-seed", str(SEED_MIN), SEED_MIN),
        ("fix-seed", "0", 0),
        *[("output-format", f'"{name}"', name) for name in OUTPUT_FORMATS],
        ("cache-dir", '"elsewhere"', "elsewhere"),
        ("per-file-ignores", '{"a.py" = ["RNG001"]}', [["a.py", ["RNG001"]]]),
    ],
)
def test_every_key_kind_takes_a_right_value(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    key: str,
    value: str,
    shown: Any,
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    (tmp_path / "seedlint.toml").write_text(f"{key} = {value}\n")
    assert settings_shown(["a.py"], tmp_path, monkeypatch, capsys)[key] == (
        shown,
        str(tmp_path / "seedlint.toml"),
    )


@pytest.mark.parametrize(
    "key", ["select", "extend-select", "ignore", "extend-ignore", "fixable", "unfixable"]
)
def test_every_rule_selector_key_names_the_file_of_an_unknown_selector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    (tmp_path / "seedlint.toml").write_text(f'{key} = ["RNG01"]\n')
    code, out, err = seedlint(["check", "a.py"], tmp_path, monkeypatch, capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"seedlint: error: {tmp_path / 'seedlint.toml'}: Unknown rule selector `RNG01` in "
        f"`{key}` (did you mean `RNG001`?)\n"
    )


def test_an_unknown_key_names_the_closest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    (tmp_path / "seedlint.toml").write_text('extend-ignores = ["RNG001"]\n')
    code, _, err = seedlint(["check", "a.py"], tmp_path, monkeypatch, capsys)
    assert code == 2
    assert err == (
        f"seedlint: error: {tmp_path / 'seedlint.toml'}: unknown key `extend-ignores` in the "
        "seedlint configuration (did you mean `extend-ignore`?)\n"
    )


@pytest.mark.parametrize(
    "content",
    ["[tool]\nseedlint = 3\n", '[tool.seedlint]\nselect = ["RNG"\n'],
    ids=["not-a-table", "invalid-toml"],
)
def test_a_broken_pyproject_is_one_error_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    content: str,
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    (tmp_path / "pyproject.toml").write_text(content)
    code, _, err = seedlint(["check", "a.py"], tmp_path, monkeypatch, capsys)
    assert code == 2 and err.count("\n") == 1
    assert f"{tmp_path / 'pyproject.toml'}: " in err
    assert ("must be a table" if "= 3" in content else "invalid TOML") in err


@pytest.mark.parametrize("where", ["file", "option"])
@pytest.mark.parametrize("value", [SEED_MIN - 1, SEED_MAX + 1, SEED_MIN, SEED_MAX])
def test_the_seeds_bounds(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    where: str,
    value: int,
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    args = ["check", "--no-cache", "a.py"]
    if where == "file":
        (tmp_path / "seedlint.toml").write_text(f"fix-seed = {value}\n")
    else:
        args.insert(1, f"--fix-seed={value}")
    code, _, err = seedlint(args, tmp_path, monkeypatch, capsys)
    if SEED_MIN <= value <= SEED_MAX:
        assert code == 1, err
    else:
        assert code == 2
        assert f"(from {SEED_MIN:#x} to {SEED_MAX:#x}), not {value}" in err


# -- patterns: exclude and per-file-ignores --------------------------------------------------
def _tree(root: Path) -> None:
    for name in ("a.py", "pkg/b.py", "pkg/sub/c.py", "other/pkg/d.py", "gen/e.py"):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SHUFFLED)


ALL_FILES = ["a.py", "b.py", "c.py", "d.py", "e.py"]
# (pattern, the files an exclude leaves, the files whose finding per-file-ignores leaves). A
# folder is excluded by its own name during the walk, but per-file-ignores matches the file's
# path only (as ruff does): a bare name there is the file's name.
PATTERNS = [
    ("pkg", ["a.py", "e.py"], ALL_FILES),  # a bare name
    ("b.py", ["a.py", "c.py", "d.py", "e.py"], ["a.py", "c.py", "d.py", "e.py"]),
    ("p?g", ["a.py", "e.py"], ALL_FILES),  # a bare glob
    ("[ab].py", ["c.py", "d.py", "e.py"], ["c.py", "d.py", "e.py"]),
    ("pkg/", ["a.py", "d.py", "e.py"], ["a.py", "d.py", "e.py"]),  # a slash: from the root
    ("pkg/sub", ["a.py", "b.py", "d.py", "e.py"], ["a.py", "b.py", "d.py", "e.py"]),
    ("pkg/*.py", ["a.py", "d.py", "e.py"], ["a.py", "d.py", "e.py"]),  # * crosses slashes
    ("*/pkg", ["a.py", "e.py"], ["a.py", "b.py", "c.py", "e.py"]),  # also the absolute path
    ("gen/e.py", ["a.py", "b.py", "c.py", "d.py"], ["a.py", "b.py", "c.py", "d.py"]),
]


@pytest.mark.parametrize(("pattern", "left"), [p[:2] for p in PATTERNS])
def test_every_exclude_pattern_kind(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    pattern: str,
    left: list[str],
) -> None:
    _tree(tmp_path)
    (tmp_path / "seedlint.toml").write_text(f"extend-exclude = [{json.dumps(pattern)}]\n")
    assert [name for name, _ in found(["."], tmp_path, monkeypatch, capsys)] == left
    # The same pattern on the command line, and as an absolute path where it has a slash.
    (tmp_path / "seedlint.toml").unlink()
    if "/" in pattern and not pattern.startswith("*"):
        pattern = f"{tmp_path.as_posix()}/{pattern}"
    assert [
        name for name, _ in found(["--extend-exclude", pattern, "."], tmp_path, monkeypatch, capsys)
    ] == left


@pytest.mark.parametrize(("pattern", "left"), [(p[0], p[2]) for p in PATTERNS])
def test_every_per_file_ignores_pattern_kind(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    pattern: str,
    left: list[str],
) -> None:
    _tree(tmp_path)
    table = f'[per-file-ignores]\n{json.dumps(pattern)} = ["RNG001"]\n'
    (tmp_path / "seedlint.toml").write_text(table)
    assert [name for name, _ in found(["."], tmp_path, monkeypatch, capsys)] == left
    (tmp_path / "seedlint.toml").unlink()
    option = ["--per-file-ignores", f"{pattern}:RNG001"]
    assert [name for name, _ in found([*option, "."], tmp_path, monkeypatch, capsys)] == left
    negated = ["--per-file-ignores", f"!{pattern}:RNG001"]
    ignored = sorted(set(ALL_FILES) - set(left))
    assert [name for name, _ in found([*negated, "."], tmp_path, monkeypatch, capsys)] == ignored


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("a.py", "--per-file-ignores: expected PATTERN:CODES, got `a.py`"),
        (":RNG001", "--per-file-ignores: expected PATTERN:CODES, got `:RNG001`"),
    ],
)
def test_a_per_file_ignores_option_without_its_parts(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    item: str,
    message: str,
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    code, _, err = seedlint(
        ["check", "--per-file-ignores", item, "a.py"], tmp_path, monkeypatch, capsys
    )
    assert (code, err) == (2, f"seedlint: error: {message}\n")


def test_per_file_ignores_option_codes_and_colons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last colon splits the pattern from the codes; empty codes between commas drop."""
    (tmp_path / "a.py").write_text(SHUFFLED)
    option = ["--per-file-ignores", "a.py:RNG002,,RNG001,"]
    assert found([*option, "a.py"], tmp_path, monkeypatch, capsys) == []
    option = ["--per-file-ignores", "a.py:RNG002,"]
    assert found([*option, "a.py"], tmp_path, monkeypatch, capsys) == [("a.py", "RNG001")]


# -- where each setting comes from, and the formatter's line length --------------------------
def test_show_settings_names_every_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    (tmp_path / "seedlint.toml").write_text('ignore = ["RNG002"]\nfix-seed = 2\n')
    monkeypatch.setenv("SEEDLINT_OUTPUT_FORMAT", "concise")
    shown = settings_shown(["--fix-seed", "3", "a.py"], tmp_path, monkeypatch, capsys)
    assert shown["fix-seed"] == (3, "command line")
    assert shown["ignore"] == (["RNG002"], str(tmp_path / "seedlint.toml"))
    assert shown["output-format"] == ("concise", "environment (SEEDLINT_OUTPUT_FORMAT)")
    assert shown["unfixable"] == ([], "default")
    assert "root" not in shown and "config-file" not in shown


@pytest.mark.parametrize(
    ("files", "length"),
    [
        ({"ruff.toml": "line-length = 120\n"}, 120),
        ({".ruff.toml": "line-length = 99\n"}, 99),
        ({"ruff.toml": "[lint]\nselect = []\n"}, 88),  # a ruff config: its default
        ({"ruff.toml": 'line-length = "x"\n'}, 88),
        ({"ruff.toml": "line-length = true\n"}, 88),
        ({"pyproject.toml": "[tool.ruff]\nline-length = 101\n"}, 101),
        ({"pyproject.toml": "[tool.ruff]\nfix = true\n"}, 88),
        ({"pyproject.toml": "[tool.black]\nline-length = 79\n"}, 79),
        ({"pyproject.toml": "[tool.black]\ntarget-version = ['py39']\n"}, 88),
        (
            {"pyproject.toml": "[tool.ruff]\nline-length = 100\n[tool.black]\nline-length = 70\n"},
            100,
        ),
        ({"pyproject.toml": "[tool.isort]\nline_length = 70\n"}, 88),
        ({"pyproject.toml": "tool = 3\n"}, 88),
        ({".ruff.toml": "line-length = 90\n", "ruff.toml": "line-length = 91\n"}, 90),
        (
            {
                "ruff.toml": "line-length = 91\n",
                "pyproject.toml": "[tool.ruff]\nline-length = 92\n",
            },
            91,
        ),
    ],
)
def test_the_formatters_line_length(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    length: int | None,
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(SHUFFLED)
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    shown = settings_shown(["pkg/a.py"], tmp_path, monkeypatch, capsys)
    assert shown["line-length"][0] == length
    # ... found from a folder below, and --isolated reads none of it (the default: unset or 88).
    isolated = settings_shown(["--isolated", "pkg/a.py"], tmp_path, monkeypatch, capsys)
    assert isolated["line-length"][0] in (None, 88)


def test_a_line_length_option_wins_over_the_formatter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    (tmp_path / "ruff.toml").write_text("line-length = 120\n")
    (tmp_path / "seedlint.toml").write_text("")
    shown = settings_shown(["a.py"], tmp_path, monkeypatch, capsys)
    assert shown["line-length"][0] == 120


# -- the cache key ---------------------------------------------------------------------------
CHANGES: dict[str, Any] = {
    "select": ("RNG001",),
    "extend_select": ("RNG002",),
    "ignore": ("RNG001",),
    "extend_ignore": ("RNG001",),
    "per_file_ignores": (("a.py", ("RNG001",)),),
    "exclude": (),
    "extend_exclude": ("x",),
    "include": ("*.py",),
    "extend_include": ("*.pyx",),
    "respect_gitignore": False,
    "force_exclude": True,
    "dataloader_classes": ("L",),
    "capture_contexts": ("c",),
    "seed_functions": ("s",),
    "set_epoch_wrappers": ("w",),
    "fix_seed": 1,
    "line_length": 80,
    "unsafe_fixes": True,
    "fixable": ("RNG001",),
    "unfixable": ("RNG001",),
    "root": Path("/elsewhere"),
}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_every_setting_that_changes_findings_changes_the_fingerprint(name: str) -> None:
    base = Settings(root=Path("/project"))
    changed = Settings(**{"root": Path("/project"), name: CHANGES[name]})
    assert changed.fingerprint() != base.fingerprint()
    assert (
        changed.fingerprint()
        == Settings(**{"root": Path("/project"), name: CHANGES[name]}).fingerprint()
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [("output_format", "json"), ("cache_dir", "c"), ("config_file", Path("/x/seedlint.toml"))],
)
def test_what_changes_no_finding_keeps_the_fingerprint(name: str, value: Any) -> None:
    base = Settings(root=Path("/project"))
    assert Settings(**{"root": Path("/project"), name: value}).fingerprint() == base.fingerprint()


LONG_LOADER = (
    "import torch\nfrom torch.utils.data import DataLoader\n\n"
    "training_loader = DataLoader(list(range(100)), batch_size=8, shuffle=True)\n"
)


def test_standard_input_with_a_config_file_takes_the_formatters_line_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--config FILE`` and standard input without ``--stdin-filename``: the settings are
    the file's, with the line length of the working folder's ruff configuration (120): the
    fixed call fits on its line of 118 characters (88 would wrap it)."""
    (tmp_path / "ruff.toml").write_text("line-length = 120\n")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "seedlint.toml").write_text("fix-seed = 3\n")
    config = ["--config", "conf/seedlint.toml"]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    shown = settings_shown([*config, "-"], tmp_path, monkeypatch, capsys)
    assert shown["line-length"][0] == 120
    assert shown["fix-seed"][0] == 3
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(LONG_LOADER.encode())))
    code, out, err = seedlint(
        ["check", "--no-cache", "--fix", *config, "-"], tmp_path, monkeypatch, capsys
    )
    fixed = LONG_LOADER.replace(
        "shuffle=True)", "shuffle=True, generator=torch.Generator().manual_seed(3))"
    )
    assert (code, out) == (0, fixed), err
    assert len(fixed.splitlines()[-1]) == 118
