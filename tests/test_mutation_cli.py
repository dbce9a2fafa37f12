"""The command line's exit codes and what a fix writes, for each combination of options the
machine-made mutants found untested (issue 31): every exit code of check, --fix, --fix-only,
--diff, --exit-zero, --exit-non-zero-on-fix and --unsafe-fixes, on files and on standard
input (where an unsafe fix left unapplied keeps its finding, and the exit code says so), and
``--fix-seed`` never overriding the seed the program names.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from seedlint import cli, report
from tests.support import run_seedlint

SAFE = (  # RNG001: a safe fix
    "import torch\nfrom torch.utils.data import DataLoader\n\n"
    "loader = DataLoader(range(8), shuffle=True)\n"
)
UNSAFE = (  # RNG003: an unsafe fix only
    "import torch\n\ngraph = torch.cuda.CUDAGraph()\ntorch.manual_seed(0)\n"
    "graph.capture_begin()\ntorch.manual_seed(1)\ngraph.capture_end()\n"
)
CLEAN = "x = 1\n"

# (name, file content, options, exit code, whether the file is changed)
RUNS = [
    ("clean", CLEAN, [], 0, False),
    ("finding", SAFE, [], 1, False),
    ("finding-exit-zero", SAFE, ["--exit-zero"], 0, False),
    ("fix-all", SAFE, ["--fix"], 0, True),
    ("fix-all-non-zero", SAFE, ["--fix", "--exit-non-zero-on-fix"], 1, True),
    ("fix-clean-non-zero", CLEAN, ["--fix", "--exit-non-zero-on-fix"], 0, False),
    ("fix-unsafe-left", UNSAFE, ["--fix"], 1, False),
    ("fix-unsafe-left-exit-zero", UNSAFE, ["--fix", "--exit-zero"], 0, False),
    ("fix-unsafe-applied", UNSAFE, ["--fix", "--unsafe-fixes"], 0, True),
    ("fix-only-left", UNSAFE, ["--fix-only"], 0, False),
    ("fix-only-all", SAFE, ["--fix-only"], 0, True),
    ("fix-only-non-zero", SAFE, ["--fix-only", "--exit-non-zero-on-fix"], 1, True),
    ("diff-changes", SAFE, ["--diff"], 1, False),
    ("diff-nothing", CLEAN, ["--diff"], 0, False),
    ("diff-unsafe-only", UNSAFE, ["--diff"], 0, False),
    ("add-noqa", SAFE, ["--add-noqa"], 0, True),
    ("unfixable", SAFE, ["--fix", "--unfixable", "RNG001"], 1, False),
    ("fixable-other", SAFE, ["--fix", "--fixable", "RNG002"], 1, False),
]


@pytest.mark.parametrize(
    ("text", "options", "code", "changed"), [r[1:] for r in RUNS], ids=[r[0] for r in RUNS]
)
def test_every_exit_code_on_a_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    text: str,
    options: list[str],
    code: int,
    changed: bool,
) -> None:
    (tmp_path / "train.py").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--isolated", "--no-cache", *options, "train.py"]) == code
    assert ((tmp_path / "train.py").read_text() != text) is changed
    out, err = capsys.readouterr()
    if "--diff" in options:
        assert ("+++ train.py" in out) is (code == 1)
    assert "Traceback" not in out + err


# (name, content, options, exit code, fixed on stdout, findings left on stderr)
STDIN_RUNS = [
    ("fix-all", SAFE, ["--fix"], 0, True, []),
    ("fix-unsafe-left", UNSAFE, ["--fix"], 1, False, ["RNG003"]),
    ("fix-unsafe-left-exit-zero", UNSAFE, ["--fix", "--exit-zero"], 0, False, ["RNG003"]),
    ("fix-unsafe-applied", UNSAFE, ["--fix", "--unsafe-fixes"], 0, True, []),
    ("fix-clean", CLEAN, ["--fix"], 0, False, []),
    ("check", SAFE, [], 1, False, None),
]


@pytest.mark.parametrize(
    ("text", "options", "code", "fixed", "left"),
    [r[1:] for r in STDIN_RUNS],
    ids=[r[0] for r in STDIN_RUNS],
)
def test_every_exit_code_on_standard_input(
    tmp_path: Path,
    text: str,
    options: list[str],
    code: int,
    fixed: bool,
    left: list[str] | None,
) -> None:
    result = run_seedlint(
        "check", "--isolated", *options, "--stdin-filename", "train.py", "-",
        cwd=tmp_path, stdin=text, clean_env=True,
    )  # fmt: skip
    assert result.returncode == code, result.stderr
    if left is None:  # a check: the findings on stdout
        assert " --> train.py:4:10" in result.stdout
        return
    assert (result.stdout != text) is fixed
    assert result.stdout.startswith(text.splitlines()[0])
    assert [line.split(": ")[1].split()[0] for line in result.stderr.splitlines()] == left


SEED_PARAMETER = (
    "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
    "def train(seed):\n    return DataLoader(range(8), shuffle=True)\n"
)


@pytest.mark.parametrize("options", [[], ["--fix-seed", "7"]], ids=["default", "fix-seed"])
def test_fix_seed_never_overrides_the_programs_seed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
) -> None:
    (tmp_path / "train.py").write_text(SEED_PARAMETER)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--isolated", "--no-cache", "--fix", *options, "train.py"]) == 0
    assert (tmp_path / "train.py").read_text() == SEED_PARAMETER.replace(
        "DataLoader(range(8), shuffle=True)",
        "DataLoader(\n        range(8),\n        shuffle=True,\n"
        "        generator=torch.Generator().manual_seed(seed),\n    )",
    )


@pytest.mark.parametrize(("options", "seed"), [([], "0"), (["--fix-seed", "7"], "7")])
def test_fix_seed_is_the_literal_where_the_program_names_none(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    seed: str,
) -> None:
    (tmp_path / "train.py").write_text(SAFE)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--isolated", "--no-cache", "--output-format", "json", *options, "."])
    [finding] = json.loads(capsys.readouterr().out)
    assert finding["fix"]["message"] == (f"Pass `generator=torch.Generator().manual_seed({seed})`")


@pytest.mark.parametrize(
    ("missing", "message"),
    [
        (
            "pygls",
            "`seedlint server` needs pygls and lsprotocol: python3 -m pip install",
        ),
        ("pygls.lsp.server", "`seedlint server` needs pygls and lsprotocol"),
        ("lsprotocol.types", "`seedlint server` needs pygls and lsprotocol"),
        ("yaml", "internal error: ModuleNotFoundError"),  # not the server's extra: a bug
    ],
)
def test_the_server_without_its_extra(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    missing: str,
    message: str,
) -> None:
    import builtins
    import sys

    import seedlint

    real = builtins.__import__

    def without(name: str, *args: object, **kwargs: object) -> object:
        if name.split(".")[0] in ("pygls", "lsprotocol", "yaml"):
            raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.delitem(sys.modules, "seedlint.server", raising=False)
    monkeypatch.delattr(seedlint, "server", raising=False)
    monkeypatch.setattr(builtins, "__import__", without)
    capsys.readouterr()
    assert cli.main(["server"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"seedlint: error: {message}") and err.count("\n") == 1


# -- the less common options: --show-fixes, --add-noqa's count, a named file that does not
# parse, clean, --show-settings of a file and of standard input -------------------------------
@pytest.mark.parametrize("show", [False, True], ids=["plain", "show-fixes"])
def test_the_fixed_list_only_with_show_fixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], show: bool
) -> None:
    (tmp_path / "train.py").write_text(SAFE)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    options = ["--show-fixes"] if show else []
    assert cli.main(["check", "--isolated", "--no-cache", "--fix", *options, "train.py"]) == 0
    listed = (
        "Fixed 1 finding:\n- train.py:\n    1 × RNG001 (dataloader-shuffle-without-generator)\n"
    )
    out = capsys.readouterr().out
    assert (listed in out) is show
    assert "Found 1 finding (1 fixed, 0 remaining)." in out


def test_add_noqa_counts_what_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "train.py").write_text(SAFE)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["check", "--isolated", "--no-cache", "--add-noqa", "train.py"]) == 0
    assert capsys.readouterr().err == "Added 1 noqa directive.\n"
    assert (tmp_path / "train.py").read_text() == SAFE.replace(
        "shuffle=True)\n", "shuffle=True)  # noqa: RNG001\n"
    )


@pytest.mark.parametrize("text", ["x = (\n", "import torch\nx = (\n"], ids=["no-words", "words"])
def test_a_named_file_that_does_not_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    """A file the user names is parsed even when no rule's words are in it: its syntax error
    is one RNG000 finding, whatever its words."""
    (tmp_path / "bad.py").write_text(text)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = cli.main(["check", "--isolated", "--no-cache", "--output-format", "json", "bad.py"])
    found = [(f["code"], f["message"]) for f in json.loads(capsys.readouterr().out)]
    assert (code, found) == (1, [("RNG000", "SyntaxError: '(' was never closed")])


def test_clean_removes_the_cache_folder_and_keeps_a_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "train.py").write_text(SAFE)
    monkeypatch.chdir(tmp_path)
    cli.main(["check", "--isolated", "train.py"])
    assert (tmp_path / ".seedlint_cache").is_dir()
    assert cli.main(["clean"]) == 0
    assert not (tmp_path / ".seedlint_cache").exists()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "keep.txt").write_text("mine")
    (tmp_path / ".seedlint_cache").symlink_to(tmp_path / "elsewhere")
    capsys.readouterr()
    assert cli.main(["clean"]) == 2
    assert "is a symbolic link, not a seedlint cache folder; kept" in capsys.readouterr().err
    assert (tmp_path / "elsewhere" / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_show_settings_of_the_file_named(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stdin: bool,
) -> None:
    """The settings shown are those of the file named, or of standard input's
    ``--stdin-filename``: a folder's own configuration file."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text("[tool.seedlint]\nfix-seed = 99\n")
    (tmp_path / "sub" / "f.py").write_text(CLEAN)
    monkeypatch.chdir(tmp_path)
    if stdin:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(CLEAN.encode())))
    capsys.readouterr()
    args = ["--stdin-filename", "sub/f.py", "-"] if stdin else ["sub/f.py"]
    assert cli.main(["check", "--show-settings", *args]) == 0
    out = capsys.readouterr().out
    config = tmp_path / "sub" / "pyproject.toml"
    assert f"fix-seed = 99  # {config}\n" in out


@pytest.mark.parametrize(
    ("environment", "options", "shown"),
    [
        (None, [], '"concise"  # {config}'),
        ("json", [], '"json"  # environment (SEEDLINT_OUTPUT_FORMAT)'),
        (None, ["--output-format", "github"], '"github"  # command line'),
        ("json", ["--output-format", "github"], '"github"  # command line'),
    ],
    ids=["configured", "environment", "option", "option-over-environment"],
)
def test_show_settings_shows_the_output_format_from_where_it_comes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    environment: str | None,
    options: list[str],
    shown: str,
) -> None:
    """The output format shown is the command line's, else SEEDLINT_OUTPUT_FORMAT's, else the
    configuration file's."""
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.seedlint]\noutput-format = "concise"\n')
    (tmp_path / "f.py").write_text(CLEAN)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SEEDLINT_OUTPUT_FORMAT", raising=False)
    if environment is not None:
        monkeypatch.setenv("SEEDLINT_OUTPUT_FORMAT", environment)
    capsys.readouterr()
    assert cli.main(["check", "--show-settings", *options, "f.py"]) == 0
    out = capsys.readouterr().out
    assert f"output-format = {shown.format(config=config)}\n" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "--fxi", "."], "unrecognized arguments: --fxi (did you mean `--fix`?)"),
        (["chekc"], "unrecognized subcommand `chekc` (did you mean `check`?)"),
        (["rule", "chekc"], "unknown rule `chekc`"),  # a rule's name, not a subcommand
        (["verify", "chekc"], ""),  # a program's path: verify's own error
        (["check", "--output-format", "jsn", "."], "argument --output-format: invalid choice"),
        (["check", "--jobs"], "argument -j/--jobs: expected one argument\n"),  # no hint
    ],
)
def test_usage_errors_say_what_was_meant(tmp_path: Path, args: list[str], message: str) -> None:
    result = run_seedlint(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert "unrecognized subcommand" not in result.stderr or "chekc" == args[0]
    assert f"seedlint: error: {message}" in result.stderr
    if "jsn" in args:  # a mistyped choice: the closest one
        assert result.stderr.endswith(") (did you mean `json`?)\n")


def test_a_file_name_that_is_not_utf_8_on_a_strict_stdout(tmp_path: Path) -> None:
    """Standard output with strict errors (PYTHONIOENCODING=utf-8) shows a file name that is
    not UTF-8 escaped, rather than failing to write it."""
    (tmp_path / "pyproject.toml").write_text("")
    name = os.fsdecode(b"caf\xe9.py")
    (tmp_path / name).write_text(SAFE)
    result = run_seedlint(
        "check", "--no-cache", "--output-format", "concise", ".",
        cwd=tmp_path, env={"PYTHONIOENCODING": "utf-8"},
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("caf\\udce9.py:4:10: RNG001 ")


def test_the_rules_list_says_which_fixes_are_unsafe(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert cli.main(["rules"]) == 0
    fixable = {
        line.split()[0]: line.split(None, 2)[2] for line in capsys.readouterr().out.splitlines()
    }
    assert fixable == {
        "RNG000": "-",
        "RNG001": "fixable",
        "RNG002": "fixable",
        "RNG003": "unsafe fix (--unsafe-fixes)",
        "RNG004": "fixable",
        "RNG005": "fixable",
        "RNG006": "fixable",
        "RNG007": "fixable",
        "RNG008": "unsafe fix (--unsafe-fixes)",
        "RNG100": "-",
    }


@pytest.mark.parametrize("named", ["empty", "sub"])
def test_show_settings_takes_the_line_length_beside_the_first_file_or_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], named: str
) -> None:
    """The line length shown is that of the formatter configuration nearest the first file to
    check; with no file to check (a folder without Python files), nearest the working folder."""
    (tmp_path / "ruff.toml").write_text("line-length = 120\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "ruff.toml").write_text("line-length = 99\n")
    (tmp_path / "sub" / "f.py").write_text(CLEAN)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["check", "--show-settings", named]) == 0
    out = capsys.readouterr().out
    if named == "empty":
        assert out.startswith("Resolved settings for: (no file)\n")
        where = tmp_path / "ruff.toml"
        assert f"line-length = 120  # {where} (ruff's line-length; " in out
    else:
        assert out.startswith(f"Resolved settings for: {os.path.join('sub', 'f.py')}\n")
        where = tmp_path / "sub" / "ruff.toml"
        assert f"line-length = 99  # {where} (ruff's line-length; " in out


@pytest.mark.parametrize(
    "chosen",
    [["RNG004"], ["rng004"], ["torch-unseeded-in-seeded-program"], ["--all"]],
    ids=["code", "lower-case-code", "name", "all"],
)
def test_rule_as_json_one_object_or_a_list(
    capsys: pytest.CaptureFixture[str], chosen: list[str]
) -> None:
    """``seedlint rule X --output-format json`` prints the rule's object; with ``--all``, the
    list of every rule's."""
    capsys.readouterr()
    assert cli.main(["rule", *chosen, "--output-format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    if chosen == ["--all"]:
        assert isinstance(data, list)
        assert [item["code"] for item in data] == [*(f"RNG00{n}" for n in range(9)), "RNG100"]
        assert data[3]["fix"] == "Fix is sometimes available."
        assert data[0]["fix"] is None
    else:
        assert isinstance(data, dict)
        assert data["code"] == "RNG004"
        assert data["name"] == "torch-unseeded-in-seeded-program"
        assert data["explanation"].startswith("# torch-unseeded-in-seeded-program (RNG004)")


@pytest.mark.parametrize(
    ("options", "summary"),
    [([], "Would fix 1 finding.\n"), (["--quiet"], ""), (["--silent"], "")],
    ids=["plain", "quiet", "silent"],
)
def test_diff_says_what_it_would_fix_on_stderr(
    tmp_path: Path, options: list[str], summary: str
) -> None:
    (tmp_path / "train.py").write_text(SAFE)
    result = run_seedlint(
        "check", "--isolated", "--no-cache", "--diff", *options, "train.py", cwd=tmp_path
    )
    assert result.returncode == 1
    assert result.stdout.startswith("--- train.py\n+++ train.py\n")
    assert result.stderr == summary


@pytest.mark.parametrize("files", [10, 11])
def test_fix_previews_for_at_most_ten_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], files: int
) -> None:
    """The full output previews each fix when at most 10 files have fixes; past that, one
    line says the previews were left out."""
    for index in range(files):
        (tmp_path / f"m{index:02d}.py").write_text(SAFE)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--isolated", "--no-cache", "--output-format", "full", "."])
    out = capsys.readouterr().out
    left_out = (
        "Fix previews left out: 11 files have fixes (more than 10); "
        "`seedlint check --diff` shows every fix.\n"
    )
    assert (left_out in out) is (files == 11)
    assert out.count("generator=torch.Generator().manual_seed(0))\n") == (10 if files == 10 else 0)


@pytest.mark.parametrize("output_format", sorted(report.FORMATS))
def test_statistics_with_each_output_format(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    output_format: str,
) -> None:
    """Every output format reports a finding; ``--statistics`` is a usage error (exit 2) only
    with the formats that cannot show its table (all but the human ones and json)."""
    (tmp_path / "train.py").write_text(SAFE)
    monkeypatch.chdir(tmp_path)
    base = ["check", "--isolated", "--no-cache", "--output-format", output_format, "train.py"]
    capsys.readouterr()
    assert cli.main(base) == 1
    assert capsys.readouterr().out.strip()
    tabled = output_format in (*report.HUMAN, "json", "json-lines")
    assert cli.main([*base, "--statistics"]) == (1 if tabled else 2)
    out, err = capsys.readouterr()
    if tabled:
        assert "RNG001" in out
    else:
        assert "--statistics prints a table" in err


def test_verify_gets_every_argument_after_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """``seedlint verify ...`` hands verify all of its own arguments (only the word ``verify``
    dropped), so the first option is not lost."""
    from seedlint import verify

    seen: list[list[str]] = []
    monkeypatch.setattr(verify, "main", lambda argv: seen.append(list(argv)) or 0)
    assert cli.main(["verify", "--runs", "2", "--", "train.py"]) == 0
    assert seen == [["--runs", "2", "--", "train.py"]]


def test_a_reader_that_stops_early_exits_one_even_with_exit_zero(tmp_path: Path) -> None:
    """Standard output closed by its reader before seedlint is done writing (``| head -1``;
    the report, about 240 kB, is larger than a pipe's buffer): exit code 1, whatever
    ``--exit-zero`` says of the findings (the report did not reach its reader), and no
    traceback."""
    import subprocess
    import sys

    body = "".join(f"loader{i} = DataLoader(range(8), shuffle=True)\n" for i in range(400))
    (tmp_path / "many.py").write_text(
        "import torch\nfrom torch.utils.data import DataLoader\n\n" + body
    )
    command = ["check", "--isolated", "--no-cache", "--exit-zero", "many.py"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "seedlint", *command],
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(1) == b"R"  # the first finding's code, RNG001
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize(("count", "words"), [(1, "1 file"), (2, "2 files"), (3, "3 files")])
def test_verbose_counts_the_files_to_check_in_words(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    count: int,
    words: str,
) -> None:
    """``-v`` says how many files the run checks: "1 file", "2 files"."""
    names = [f"m{index}.py" for index in range(count)]
    for name in names:
        (tmp_path / name).write_text(SAFE)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--isolated", "--no-cache", "-v", *names])
    assert f"seedlint: {words} to check\n" in capsys.readouterr().err


BUILDER = (
    "from torch.utils.data import DataLoader\n\n\n"
    "def build(ds, train):\n    return DataLoader(ds, shuffle=train)\n"
)


@pytest.mark.parametrize(
    ("options", "fixed"), [([], False), (["--project-root", "."], True)], ids=["own", "given"]
)
def test_a_fix_of_standard_input_takes_the_project_of_its_file_name(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    fixed: bool,
) -> None:
    """``--diff --stdin-filename proj/lib.py``: the project is the one of that file
    (``proj/``, which has a root marker), where nothing calls `build` with `train=True`;
    with ``--project-root .`` it is the working folder, where `other/run.py` does."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "pyproject.toml").write_text("")
    (tmp_path / "proj" / "__init__.py").write_text("")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "run.py").write_text(
        "from proj.lib import build\n\nloader = build(range(8), True)\n"
    )
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BUILDER.encode())))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = cli.main(
        ["check", "--no-cache", "--diff", *options, "--stdin-filename", "proj/lib.py", "-"]
    )
    out, err = capsys.readouterr()
    assert code == (1 if fixed else 0)
    assert ("generator=torch.Generator().manual_seed(torch.initial_seed())" in out) is fixed
    assert err == ("Would fix 1 finding.\n" if fixed else "")
