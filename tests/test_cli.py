"""The real CLI in a subprocess: exit codes, output formats, configuration, suppression."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from seedlint.run import pool
from tests.support import run_seedlint

UNSEEDED = """\
from torch.utils.data import DataLoader

loader = DataLoader([1, 2, 3], shuffle=True)
"""
CLEAN = """\
import torch
from torch.utils.data import DataLoader

loader = DataLoader([1, 2, 3], shuffle=True, generator=torch.Generator().manual_seed(0))
"""


def run(
    args: list[str], cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_seedlint(*args, cwd=cwd, stdin=stdin, env=env)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(UNSEEDED)
    (tmp_path / "ok.py").write_text(CLEAN)
    return tmp_path


def test_exit_codes(project: Path) -> None:
    assert run(["check", "--no-cache", "ok.py"], project).returncode == 0
    result = run(["check", "--no-cache", "train.py"], project)
    assert result.returncode == 1
    assert "RNG001" in result.stdout
    assert run(["check", "--no-cache", "--exit-zero", "train.py"], project).returncode == 0
    missing = run(["check", "nope.py"], project)
    assert missing.returncode == 2
    assert "nope.py" in missing.stderr and "Traceback" not in missing.stderr
    bad_option = run(["check", "--output-format", "xml"], project)
    assert bad_option.returncode == 2 and "Traceback" not in bad_option.stderr


def test_bare_command_is_check(project: Path) -> None:
    result = run(["--no-cache", "train.py"], project)
    assert result.returncode == 1
    assert (
        "train.py:3:10: RNG001" in run(["--output-format", "concise", "train.py"], project).stdout
    )
    assert run(["--version"], project).stdout.startswith("seedlint ")


def test_concise_and_full(project: Path) -> None:
    concise = run(["--no-cache", "--output-format", "concise", "."], project).stdout
    lines = concise.splitlines()
    assert lines[0].startswith("train.py:3:10: RNG001 ")
    assert "Found 1 finding." in lines
    assert lines[-1] == "[*] 1 fixable with the `--fix` option."
    full = run(["--no-cache", "train.py"], project).stdout
    assert "--> train.py:3:10" in full
    assert "3 | loader = DataLoader([1, 2, 3], shuffle=True)" in full
    caret_line = next(line for line in full.splitlines() if "^" in line)
    assert caret_line.index("^") == full.splitlines()[
        full.splitlines().index(caret_line) - 1
    ].index("DataLoader")
    assert "Found 1 finding." in full
    quiet = run(["--no-cache", "-q", "--output-format", "concise", "train.py"], project).stdout
    assert "Found" not in quiet and "RNG001" in quiet


def test_json_and_json_lines(project: Path) -> None:
    result = run(["--no-cache", "--output-format", "json", "."], project)
    items = json.loads(result.stdout)
    assert len(items) == 1
    item = items[0]
    for key in (
        "code",
        "message",
        "filename",
        "location",
        "end_location",
        "fix",
        "url",
        "noqa_row",
    ):
        assert key in item
    assert item["code"] == "RNG001"
    assert item["location"] == {"row": 3, "column": 10}
    assert item["end_location"] == {"row": 3, "column": 45}
    assert os.path.isabs(item["filename"])
    assert item["url"].endswith("RNG001.md")
    lines = run(["--no-cache", "--output-format", "json-lines", "."], project).stdout.splitlines()
    assert [json.loads(line)["code"] for line in lines] == ["RNG001"]


def test_github_escaping(tmp_path: Path) -> None:
    folder = tmp_path / "a,b:c%"
    folder.mkdir()
    (folder / "t.py").write_text(UNSEEDED)
    out = run(["--no-cache", "--output-format", "github", "."], tmp_path).stdout
    line = out.strip()
    assert line.startswith("::error title=seedlint (RNG001),file=a%2Cb%3Ac%25/t.py,line=3,col=10,")
    assert "endLine=3,endColumn=45::" in line
    message = line.split("::", 2)[2]
    assert message.startswith("a,b:c%25/t.py:3:10: RNG001 ")


def test_sarif(project: Path) -> None:
    data = json.loads(run(["--no-cache", "--output-format", "sarif", "."], project).stdout)
    assert data["version"] == "2.1.0"
    assert "sarif" in data["$schema"]
    driver = data["runs"][0]["tool"]["driver"]
    assert driver["name"] == "seedlint"
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == sorted(ids) and "RNG001" in ids
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"]
    (result,) = data["runs"][0]["results"]
    assert result["ruleId"] == "RNG001"
    assert result["message"]["text"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "train.py"
    assert location["region"] == {"startLine": 3, "startColumn": 10, "endLine": 3, "endColumn": 45}


def test_statistics(project: Path) -> None:
    out = run(["--no-cache", "--statistics", "."], project).stdout
    assert "1\tRNG001\t" in out and "dataloader-shuffle-without-generator" in out


def test_select_and_ignore(project: Path) -> None:
    assert run(["--no-cache", "--select", "RNG002", "train.py"], project).returncode == 0
    assert run(["--no-cache", "--ignore", "RNG001", "train.py"], project).returncode == 0
    assert run(["--no-cache", "--ignore", "RNG", "train.py"], project).returncode == 0
    assert run(["--no-cache", "--select", "RNG00", "train.py"], project).returncode == 1
    assert run(["--no-cache", "--select", "ALL", "train.py"], project).returncode == 1
    assert (
        run(["--no-cache", "--select", "RNG002", "--extend-select", "RNG001", "train.py"], project)
    ).returncode == 1
    unknown = run(["--select", "XYZ999", "train.py"], project)
    assert unknown.returncode == 2
    assert "XYZ999" in unknown.stderr and "Traceback" not in unknown.stderr


def test_per_file_ignores_cli(project: Path) -> None:
    args = ["--no-cache", "--per-file-ignores", "train.py:RNG001", "."]
    assert run(args, project).returncode == 0
    args = ["--no-cache", "--per-file-ignores", "!ok.py:RNG001", "."]
    assert run(args, project).returncode == 0


def test_pyproject_config(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.seedlint]\nignore = ["RNG001"]\n')
    assert run(["--no-cache", "."], project).returncode == 0
    assert run(["--no-cache", "--isolated", "."], project).returncode == 1
    # A pyproject.toml without [tool.seedlint] is skipped; the nearest seedlint config wins.
    sub = project / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (sub / "train.py").write_text(UNSEEDED)
    assert run(["--no-cache", "sub"], project).returncode == 0
    (sub / ".seedlint.toml").write_text('select = ["RNG001"]\n')
    result = run(["--no-cache", "--output-format", "concise", "."], project)
    assert result.returncode == 1
    assert result.stdout.startswith("sub/train.py:3:10: RNG001")


def test_per_file_ignores_config(project: Path) -> None:
    (project / "seedlint.toml").write_text('[per-file-ignores]\n"train.py" = ["RNG001"]\n')
    assert run(["--no-cache", "."], project).returncode == 0


def test_explicit_config_file(project: Path) -> None:
    config = project / "custom.toml"
    config.write_text('extend-ignore = ["RNG001"]\n')
    assert run(["--no-cache", "--config", "custom.toml", "."], project).returncode == 0


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("[tool.seedlint]\nunknown-key = 1\n", "unknown-key"),
        ('[tool.seedlint]\nselect = "RNG001"\n', "select"),
        ("[tool.seedlint]\nrespect-gitignore = 1\n", "respect-gitignore"),
        ('[tool.seedlint]\nignore = ["NOPE1"]\n', "NOPE1"),
        ("[tool.seedlint\n", "invalid TOML"),
    ],
)
def test_config_errors(project: Path, content: str, needle: str) -> None:
    (project / "pyproject.toml").write_text(content)
    result = run(["--no-cache", "."], project)
    assert result.returncode == 2
    assert needle in result.stderr and "pyproject.toml" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_noqa(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        UNSEEDED.replace("shuffle=True)", "shuffle=True)  # noqa: RNG001")
    )
    (tmp_path / "b.py").write_text(UNSEEDED.replace("shuffle=True)", "shuffle=True)  # noqa"))
    (tmp_path / "c.py").write_text("# seedlint: noqa\n" + UNSEEDED)
    (tmp_path / "d.py").write_text(UNSEEDED + "# flake8: noqa\n")
    (tmp_path / "e.py").write_text("# seedlint: noqa: RNG001\n" + UNSEEDED)
    (tmp_path / "f.py").write_text("# seedlint: noqa: RNG002\n" + UNSEEDED)
    (tmp_path / "g.py").write_text(
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(\n    [1, 2],\n    shuffle=True,\n)  # noqa: RNG001\n"
    )
    out = run(["--no-cache", "--output-format", "concise", "."], tmp_path).stdout
    flagged = {line.split(":")[0] for line in out.splitlines() if "RNG001" in line}
    assert flagged == {"f.py"}


def test_stdin(tmp_path: Path) -> None:
    result = run(["check", "--no-cache", "--output-format", "concise", "-"], tmp_path, UNSEEDED)
    assert result.returncode == 1
    assert result.stdout.startswith("-:3:10: RNG001")
    named = run(
        ["--output-format", "concise", "--stdin-filename", "pkg/train.py", "-"], tmp_path, UNSEEDED
    )
    assert named.stdout.startswith("pkg/train.py:3:10: RNG001")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.seedlint.per-file-ignores]\n"pkg/*" = ["RNG001"]\n'
    )
    ignored = run(["--stdin-filename", "pkg/train.py", "-"], tmp_path, UNSEEDED)
    assert ignored.returncode == 0


def test_excludes_and_gitignore(tmp_path: Path) -> None:
    for folder in ("src", "build", ".venv", "generated", "vendor"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "train.py").write_text(UNSEEDED)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("generated/\n")
    out = run(["--no-cache", "--output-format", "concise", "."], tmp_path).stdout
    assert {line.split("/")[0] for line in out.splitlines() if "RNG001" in line} == {
        "src",
        "vendor",
    }
    out = run(
        ["--no-cache", "--output-format", "concise", "--extend-exclude", "vendor", "."], tmp_path
    ).stdout
    assert {line.split("/")[0] for line in out.splitlines() if "RNG001" in line} == {"src"}
    out = run(
        ["--no-cache", "--output-format", "concise", "--no-respect-gitignore", "."], tmp_path
    ).stdout
    assert "generated/train.py" in out
    # A file named explicitly is always checked, unless --force-exclude.
    assert run(["--no-cache", "build/train.py"], tmp_path).returncode == 1
    assert run(["--no-cache", "generated/train.py"], tmp_path).returncode == 1
    assert run(["--no-cache", "--force-exclude", "build/train.py"], tmp_path).returncode == 0
    assert run(["--no-cache", "--force-exclude", "generated/train.py"], tmp_path).returncode == 0


def test_settings_and_ignores_of_folders_deep_in_the_walk(tmp_path: Path) -> None:
    """The walk reads a folder's settings and ignore files only where it holds one; below
    it, folders without any keep them (two levels down here)."""
    deep = {
        "pkg/sub/skip_me.py": UNSEEDED,  # ignored by pkg/sub/.gitignore
        "pkg/sub/inner/also_skipped.py": UNSEEDED,  # in a folder pkg/sub/.gitignore ignores
        "pkg/sub/inner/kept.py": UNSEEDED,
        "pkg/other/deep/deeper/train.py": UNSEEDED,  # under pkg/other/pyproject.toml
        "pkg/other/deep/deeper/excluded.py": UNSEEDED,
        "top.py": UNSEEDED,
    }
    for name, text in deep.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "pkg/sub/.gitignore").write_text("skip_me.py\ninner/also_skipped.py\n")
    (tmp_path / "pkg/other/pyproject.toml").write_text(
        '[tool.seedlint]\nextend-exclude = ["excluded.py"]\nignore = ["RNG001"]\n'
    )
    files = run(["--no-cache", "--show-files", "."], tmp_path).stdout.split()
    assert sorted(files) == [
        "pkg/other/deep/deeper/train.py",
        "pkg/sub/inner/kept.py",
        "top.py",
    ]
    out = run(["--no-cache", "--output-format", "concise", "."], tmp_path).stdout
    flagged = sorted(line.split(":")[0] for line in out.splitlines() if "RNG001" in line)
    assert flagged == ["pkg/sub/inner/kept.py", "top.py"]  # pkg/other ignores RNG001


def test_broken_file_beside_good_ones(project: Path) -> None:
    (project / "broken.py").write_text(
        "from torch.utils.data import DataLoader\ndef train(:\n    pass\n"
    )
    result = run(["--no-cache", "--output-format", "concise", "."], project)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert any(line.startswith("broken.py:2:11: RNG000 SyntaxError") for line in lines)
    assert any(line.startswith("train.py:3:10: RNG001") for line in lines)
    assert "Traceback" not in result.stderr


def test_cache_round_trip(project: Path) -> None:
    cache = project / "cache"
    first = run(["--cache-dir", str(cache), "--output-format", "json", "."], project)
    assert (cache / "CACHEDIR.TAG").is_file()
    assert list(cache.glob("*/*.json"))
    second = run(["--cache-dir", str(cache), "--output-format", "json", "."], project)
    assert json.loads(first.stdout) == json.loads(second.stdout)
    (project / "train.py").write_text(CLEAN)
    third = run(["--cache-dir", str(cache), "--output-format", "json", "."], project)
    assert json.loads(third.stdout) == []


def test_jobs_give_identical_findings(tmp_path: Path) -> None:
    """Enough files and bytes to cross both of the pool's thresholds (a comment pads each
    file: cheap to parse), so that `-j 2` really forks."""
    count = pool.MIN_ITEMS + 2
    padding = "# " + "x" * 78 + "\n"
    lines = pool.MIN_BYTES // count // len(padding) + 1
    for index in range(count):
        (tmp_path / f"m{index}.py").write_text(UNSEEDED + padding * lines)
    one = run(["--no-cache", "--jobs", "1", "--output-format", "concise", "."], tmp_path).stdout
    many = run(["--no-cache", "--jobs", "2", "--output-format", "concise", "."], tmp_path).stdout
    assert one == many and one.count("RNG001") == count


def test_rule_and_rules(tmp_path: Path) -> None:
    doc = run(["rule", "RNG001"], tmp_path)
    assert doc.returncode == 0
    assert doc.stdout.startswith("# dataloader-shuffle-without-generator (RNG001)")
    assert "## Why is this bad?" in doc.stdout
    listing = run(["rules"], tmp_path).stdout
    assert "RNG004" in listing and "torch-unseeded-in-seeded-program" in listing
    data = json.loads(run(["rule", "--all", "--output-format", "json"], tmp_path).stdout)
    assert [item["code"] for item in data] == [*(f"RNG00{n}" for n in range(9)), "RNG100"]
    assert run(["rule", "RNG999"], tmp_path).returncode == 2


def test_show_files(project: Path) -> None:
    out = run(["--show-files", "."], project).stdout.split()
    assert sorted(out) == ["ok.py", "train.py"]


def test_cache_sees_same_size_edits(project: Path) -> None:
    """An edit that keeps the size and even the modification time is never served from cache."""
    cache = project / "cache"
    target = project / "train.py"
    os.utime(target, (1_000_000_000, 1_000_000_000))
    first = run(["--cache-dir", str(cache), "--output-format", "json", "train.py"], project)
    assert [item["code"] for item in json.loads(first.stdout)] == ["RNG001"]
    edited = UNSEEDED.replace("shuffle=True)", "shuffle=None)")
    assert len(edited) == len(UNSEEDED)
    target.write_text(edited)
    os.utime(target, (1_000_000_000, 1_000_000_000))  # same size, same mtime: ctime moved
    second = run(["--cache-dir", str(cache), "--output-format", "json", "train.py"], project)
    assert json.loads(second.stdout) == []
    target.write_text(UNSEEDED)  # just written: its stat key is too recent to be trusted
    third = run(["--cache-dir", str(cache), "--output-format", "json", "train.py"], project)
    assert [item["code"] for item in json.loads(third.stdout)] == ["RNG001"]


def test_force_exclude_applies_to_stdin_filename(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.seedlint]\nextend-exclude = ["vendor"]\n')
    args = ["--force-exclude", "--stdin-filename", "vendor/train.py", "-"]
    assert run(args, tmp_path, UNSEEDED).returncode == 0
    fixed = run(["--fix", *args], tmp_path, UNSEEDED)
    assert fixed.returncode == 0 and fixed.stdout == UNSEEDED
    assert run(["--stdin-filename", "vendor/train.py", "-"], tmp_path, UNSEEDED).returncode == 1
    checked = ["--force-exclude", "--stdin-filename", "src/train.py", "-"]
    assert run(checked, tmp_path, UNSEEDED).returncode == 1


def test_a_check_pauses_the_cyclic_collector_and_a_fix_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A check runs with the cyclic collector paused (its main process keeps or frees by
    reference counting everything it allocates) and turns it back on after; a fix keeps it
    on (libcst leaves reference cycles behind, which only the collector frees)."""
    import gc

    from seedlint import cli
    from seedlint.run import files

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a.py").write_text(UNSEEDED)
    seen: list[bool] = []
    check_files, fix_files = files.check_files, files.fix_files

    def spy_check(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return check_files(*args, **kwargs)  # type: ignore[arg-type]

    def spy_fix(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return fix_files(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cli, "check_files", spy_check)
    monkeypatch.setattr(cli, "fix_files", spy_fix)
    assert gc.isenabled()
    cli.main(["check", "--no-cache", "--exit-zero", str(tmp_path)])
    assert seen == [False] and gc.isenabled()
    cli.main(["check", "--no-cache", "--exit-zero", "--fix", str(tmp_path)])
    assert seen == [False, True] and gc.isenabled()
    capsys.readouterr()
