"""The pre-commit hooks, run by the real ``pre-commit`` on a temporary project.

pre-commit builds the hook's environment with ``pip install .`` of this repository, which needs
the build backend and seedlint's dependencies from a package index (or a wheel folder). Where
none is reachable the environment tests are skipped with that reason; CI runs them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import UNSEEDED_SCRIPT

pytest.importorskip("pre_commit", reason="pre-commit is not installed")
if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)
yaml = pytest.importorskip("yaml")  # pre-commit depends on PyYAML

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / ".pre-commit-hooks.yaml"
NOTEBOOKS = REPO / "tests" / "fixtures" / "notebooks"

UNSEEDED = UNSEEDED_SCRIPT


def _pre_commit() -> list[str]:
    return [sys.executable, "-m", "pre_commit"]


def _run(
    cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=seedlint tests",
            "-c",
            "user.email=tests@localhost",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=60,
    )


def _index_reachable(tmp: Path) -> str | None:
    """None when pip can get what the hook's environment needs; else the reason it cannot."""
    try:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--quiet",
                "--dest",
                str(tmp),
                "--timeout",
                "15",
                "--retries",
                "1",
                "setuptools>=77",
                "libcst>=1.1",
                "pathspec>=0.11",
            ],
            capture_output=True,
            text=True,
            timeout=90,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"no package index reachable to build the hook's environment ({error})"
    if result.returncode != 0:
        tail = (result.stderr.strip().splitlines() or ["pip download failed"])[-1]
        return f"no package index reachable to build the hook's environment: {tail}"
    return None


def test_manifest_is_valid() -> None:
    result = subprocess.run(
        [*_pre_commit(), "validate-manifest", str(MANIFEST)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_manifest_hooks() -> None:
    hooks = {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text())}
    assert set(hooks) == {"seedlint", "seedlint-fix"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "pyi", "jupyter"]
        assert hook["require_serial"] is True
        assert hook["minimum_pre_commit_version"] == "2.9.2"
        assert "--force-exclude" in hook["entry"].split()
        assert hook["entry"].startswith("seedlint check")
    assert "--fix" in hooks["seedlint-fix"]["entry"].split()
    assert "--fix" not in hooks["seedlint"]["entry"].split()


def test_the_documented_config_is_valid(tmp_path: Path) -> None:
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(_docs_snippet("yaml", ".pre-commit-config.yaml"))
    result = subprocess.run(
        [*_pre_commit(), "validate-config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    hooks = {hook["id"] for hook in yaml.safe_load(MANIFEST.read_text())}
    (repo,) = yaml.safe_load(config.read_text())["repos"]
    assert {hook["id"] for hook in repo["hooks"]} <= hooks


# -- the real thing --------------------------------------------------------------------------
def _copy_checkout(destination: Path) -> str:
    """This checkout's files (tracked ones and new ones git does not ignore, as they are in the
    working tree) committed in a fresh repository; returns the commit. pre-commit installs hooks
    from commits, and new files here are not committed yet."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=60,
    ).stdout.decode()
    destination.mkdir(parents=True)
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if not source.is_file():
            continue  # deleted in the working tree
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    _git(destination, "init", "-q")
    _git(destination, "add", "-A")
    _git(destination, "commit", "-q", "-m", "seedlint under test")
    return subprocess.run(
        ["git", "rev-parse", "HEAD"],
        cwd=destination,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()


class Sandbox:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.hooks = root / "seedlint-hooks"
        self.rev = _copy_checkout(self.hooks)
        self.env = dict(os.environ)
        self.env["PRE_COMMIT_HOME"] = str(root / "pre-commit-home")
        self.env.pop("PRE_COMMIT", None)
        self.env["SEEDLINT_NO_CACHE"] = "1"

    def project(self, name: str) -> Path:
        project = self.root / name
        project.mkdir()
        _git(project, "init", "-q")
        (project / "train.py").write_text(UNSEEDED)
        shutil.copy(NOTEBOOKS / "two_cells.ipynb", project / "explore.ipynb")
        (project / "notes.txt").write_text("DataLoader(x, shuffle=True)\n")
        _git(project, "add", "-A")
        _git(project, "commit", "-q", "-m", "start")
        return project

    def try_repo(self, project: Path, hook: str) -> subprocess.CompletedProcess[str]:
        return _run(
            [*_pre_commit(), "try-repo", str(self.hooks), hook, "--all-files", "--color=never"],
            project,
            self.env,
        )


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    root = tmp_path_factory.mktemp("precommit")
    reason = _index_reachable(root / "probe")
    if reason is not None:
        pytest.skip(reason)
    yield Sandbox(root)


def test_try_repo_check_hook(sandbox: Sandbox) -> None:
    project = sandbox.project("project")
    check = sandbox.try_repo(project, "seedlint")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "Failed" in check.stdout
    assert "RNG001" in check.stdout
    assert "train.py:4:10" in check.stdout
    assert "explore.ipynb:cell 4:1:10" in check.stdout
    assert "notes.txt" not in check.stdout


def test_try_repo_fix_hook(sandbox: Sandbox) -> None:
    project = sandbox.project("fixing")
    fix = sandbox.try_repo(project, "seedlint-fix")
    # pre-commit fails a hook that changed files, as it does for formatters.
    assert fix.returncode == 1, fix.stdout + fix.stderr
    fixed = (project / "train.py").read_text()
    assert "generator=torch.Generator().manual_seed(" in fixed
    assert "generator=" in (project / "explore.ipynb").read_text()

    again = sandbox.try_repo(project, "seedlint-fix")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Passed" in again.stdout
    clean = sandbox.try_repo(project, "seedlint")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout


def test_force_exclude_applies_to_the_files_pre_commit_passes(sandbox: Sandbox) -> None:
    project = sandbox.project("excluding")
    (project / "pyproject.toml").write_text('[tool.seedlint]\nextend-exclude = ["train.py"]\n')
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "exclude")
    result = sandbox.try_repo(project, "seedlint")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "train.py" not in result.stdout
    assert "explore.ipynb:cell 4:1:10" in result.stdout


def test_the_documented_config_snippet_runs(sandbox: Sandbox) -> None:
    """docs/integrations.md's .pre-commit-config.yaml, pointed at the copy of this checkout."""
    snippet = _docs_snippet("yaml", ".pre-commit-config.yaml")
    config = yaml.safe_load(snippet)
    (repo,) = config["repos"]
    assert {hook["id"] for hook in repo["hooks"]} <= {"seedlint", "seedlint-fix"}
    repo["repo"] = str(sandbox.hooks)
    repo["rev"] = sandbox.rev
    project = sandbox.project("documented")
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "config")
    result = _run([*_pre_commit(), "run", "--all-files", "--color=never"], project, sandbox.env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "RNG001" in result.stdout


def _docs_snippet(language: str, marker: str) -> str:
    text = (REPO / "docs" / "integrations.md").read_text()
    for match in re.finditer(rf"```{language}\n(.*?)```", text, re.DOTALL):
        if marker in match.group(1).splitlines()[0]:
            return match.group(1)
    raise AssertionError(f"no ```{language} block starting with a `{marker}` comment")
