"""The snippets of docs/integrations.md, run with the real tools where they exist here."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import UNSEEDED_SCRIPT, WORKERS_SCRIPT, run_seedlint

yaml = pytest.importorskip("yaml")  # installed with pre-commit

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "integrations.md"
NOTEBOOKS = REPO / "tests" / "fixtures" / "notebooks"

UNSEEDED = UNSEEDED_SCRIPT
WORKERS = WORKERS_SCRIPT


def snippet(language: str, marker: str) -> str:
    """The fenced ``language`` block of the page whose first line names ``marker``."""
    text = DOC.read_text()
    for match in re.finditer(rf"```{language}\n(.*?)```", text, re.DOTALL):
        if marker in match.group(1).splitlines()[0]:
            return match.group(1)
    raise AssertionError(f"docs/integrations.md has no ```{language} block for {marker}")


def jsonc(text: str) -> object:
    return json.loads(
        "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(UNSEEDED)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "workers.py").write_text(WORKERS)
    (tmp_path / "clean.py").write_text("x = 1\n")
    shutil.copy(NOTEBOOKS / "two_cells.ipynb", tmp_path / "explore.ipynb")
    return tmp_path


def run_seedlint_line(
    line: str, cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(line)
    assert argv[0] == "seedlint", line
    return run_seedlint(*argv[1:], cwd=cwd, stdin=stdin, env={"SEEDLINT_NO_CACHE": "1"})


def test_no_snippet_is_left_untested() -> None:
    blocks = re.findall(r"```(\w+)\n(.*?)```", DOC.read_text(), re.DOTALL)
    names = sorted(body.splitlines()[0] for language, body in blocks if language != "text")
    assert names == sorted(
        [
            "# .pre-commit-config.yaml",
            "# .flake8 (or setup.cfg, or tox.ini)",
            "// .vscode/settings.json",
            "// .vscode/tasks.json",
            "# findings for the buffer, one per line: path:row:col: CODE message",
            "# .github/workflows/seedlint.yml",
            "# .gitlab-ci.yml",
            "# pyproject.toml",
            # the language server's (tests/test_server_docs.py)
            "python3 -m pip install 'seedlint[server] @ git+https://github.com/seedlint/seedlint'"
            "     # pygls and lsprotocol",
            # the VS Code extension's build (tests/test_editor_vscode.py)
            "cd editors/vscode && npm install && npm run compile && npm run package"
            "   # seedlint.vsix",
            "-- init.lua",
            "-- init.lua (Neovim 0.11+)",
            "# languages.toml",
            ";; init.el",
        ]
    )


# -- flake8 ----------------------------------------------------------------------------------
flake8_missing = pytest.mark.skipif(
    importlib.util.find_spec("flake8") is None, reason="flake8 is not installed"
)


def flake8(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@flake8_missing
def test_flake8_config_snippet(project: Path) -> None:
    (project / ".flake8").write_text(snippet("ini", ".flake8"))
    result = flake8(project, ".")
    codes = sorted(line.split()[1] for line in result.stdout.splitlines())
    assert codes == ["RNG001"], result.stdout + result.stderr  # RNG002 is extend-ignored
    # Without extend-select, the explicit select drops the plugin's codes.
    (project / ".flake8").write_text(snippet("ini", ".flake8").replace("extend-select = RNG\n", ""))
    assert "RNG" not in flake8(project, ".").stdout


@flake8_missing
def test_vscode_flake8_settings(project: Path) -> None:
    settings = jsonc(snippet("jsonc", ".vscode/settings.json"))
    assert isinstance(settings, dict)
    assert settings["flake8.importStrategy"] == "fromEnvironment"
    # The args make a `select`-ing configuration report the RNG codes again.
    (project / ".flake8").write_text("[flake8]\nselect = E9\n")
    result = flake8(project, *settings["flake8.args"], ".")
    assert sorted(line.split()[1] for line in result.stdout.splitlines()) == ["RNG001", "RNG002"]


# -- VS Code task ----------------------------------------------------------------------------
def test_vscode_task_problem_matcher(project: Path) -> None:
    tasks = jsonc(snippet("jsonc", ".vscode/tasks.json"))
    assert isinstance(tasks, dict)
    (task,) = tasks["tasks"]
    result = run_seedlint_line(task["command"], project)
    assert result.returncode == 1
    matchers = task["problemMatcher"]
    pattern = (matchers[0] if isinstance(matchers, list) else matchers)["pattern"]
    regexp = re.compile(pattern["regexp"])
    matched = []
    for line in result.stdout.splitlines():
        match = regexp.match(line)
        if match:
            matched.append(
                tuple(match.group(pattern[k]) for k in ("file", "line", "column", "code"))
            )
            assert match.group(pattern["message"])
    assert sorted(matched) == [
        ("data/workers.py", "16", "10", "RNG002"),
        ("train.py", "4", "10", "RNG001"),
    ]
    # Notebook findings have a cell in their location: not misread as a file path.
    assert any(":cell 4:" in line for line in result.stdout.splitlines())


# -- stdin -----------------------------------------------------------------------------------
def test_stdin_snippet(project: Path) -> None:
    lines = [
        line
        for line in snippet("sh", "# findings for the buffer").splitlines()
        if line and not line.startswith("#")
    ]
    check, fix = (line.split(" < buffer")[0] for line in lines)
    (project / "src").mkdir()
    result = run_seedlint_line(check, project, stdin=UNSEEDED)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0].startswith("src/train.py:4:10: RNG001 ")
    fixed = run_seedlint_line(fix, project, stdin=UNSEEDED)
    assert fixed.returncode == 0, fixed.stderr
    assert "generator=" in fixed.stdout


# -- GitHub Actions --------------------------------------------------------------------------


def seedlint_steps(commands: list[str]) -> list[str]:
    return [c for c in commands if c.startswith("seedlint ")]


def test_github_workflow(project: Path) -> None:
    workflow = yaml.safe_load(snippet("yaml", ".github/workflows/seedlint.yml"))
    (job,) = workflow["jobs"].values()
    assert job["permissions"]["security-events"] == "write"
    steps = job["steps"]
    runs = [step["run"] for step in steps if "run" in step]
    annotate, sarif_step = seedlint_steps(runs)

    result = run_seedlint_line(annotate, project)
    assert result.returncode == 1  # the job fails on findings
    annotations = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert len(annotations) == 3
    assert any(
        line.startswith("::error title=seedlint (RNG001),file=train.py,line=4,col=10,")
        for line in annotations
    )

    result = run_seedlint_line(sarif_step, project)
    assert result.returncode == 0  # --exit-zero: the upload step still runs
    upload = [
        s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    ]
    (upload_step,) = upload
    assert upload_step["if"] == "always()"
    sarif_file = project / upload_step["with"]["sarif_file"]
    validate_sarif(json.loads(sarif_file.read_text()))


def validate_sarif(log: dict) -> None:
    """What GitHub code scanning requires of a SARIF 2.1.0 upload."""
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json") or "sarif" in log["$schema"]
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "seedlint"
    rule_ids = []
    for rule in driver["rules"]:
        rule_ids.append(rule["id"])
        for key in ("shortDescription", "fullDescription", "help"):
            assert rule[key]["text"], (rule["id"], key)
        assert len(rule["fullDescription"]["text"]) <= 1024
        assert rule["defaultConfiguration"]["level"] in ("note", "warning", "error")
    assert len(set(rule_ids)) == len(rule_ids)
    assert run["results"]
    uris = set()
    for result in run["results"]:
        assert result["ruleId"] in rule_ids
        assert result["message"]["text"]
        assert 1 <= len(result["locations"]) <= 10
        physical = result["locations"][0]["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        assert not uri.startswith(("/", "file:")), uri  # repository-relative
        uris.add(uri)
        region = physical["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert region["endLine"] >= region["startLine"]
    assert {"train.py", "data/workers.py"} <= uris


# -- GitLab ----------------------------------------------------------------------------------
def test_gitlab_job(project: Path) -> None:
    config = yaml.safe_load(snippet("yaml", ".gitlab-ci.yml"))
    (job,) = config.values()
    report_step, check_step = seedlint_steps(job["script"])
    assert run_seedlint_line(report_step, project).returncode == 0
    data = json.loads((project / job["artifacts"]["reports"]["codequality"]).read_text())
    assert {item["check_name"] for item in data} == {"RNG001", "RNG002"}
    for item in data:
        assert item["description"] and item["severity"] and len(item["fingerprint"]) == 64
        assert not item["location"]["path"].startswith("/")
        assert item["location"]["lines"]["begin"] >= 1
    result = run_seedlint_line(check_step, project)
    assert result.returncode == 1
    assert "train.py:4:10: RNG001" in result.stdout


# -- ruff ------------------------------------------------------------------------------------
@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
def test_ruff_external_setting(tmp_path: Path) -> None:
    source = "import os  # noqa: F401, RNG001\nx = 1  # noqa: RNG001\n"
    (tmp_path / "a.py").write_text(source)

    def ruff(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--no-cache", *args, "a.py"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )

    # Without the setting, the unused-noqa fix deletes our code along with F401 ...
    ruff("--isolated", "--select", "RUF100", "--fix")
    assert "RNG001" not in (tmp_path / "a.py").read_text().splitlines()[0]
    # ... and the preview rule RUF102 reports it.
    (tmp_path / "a.py").write_text(source)
    assert ruff("--isolated", "--preview", "--select", "RUF102").returncode == 1

    (tmp_path / "pyproject.toml").write_text(snippet("toml", "pyproject.toml"))
    assert ruff("--preview", "--select", "RUF102").returncode == 0
    ruff("--select", "RUF100", "--fix")
    assert (tmp_path / "a.py").read_text() == "import os  # noqa: RNG001\nx = 1  # noqa: RNG001\n"
