"""RNG001/RNG002 across functions and modules (issue 11): builders whose callers decide,
DataLoader subclasses of other modules, DataLoader and torch through star imports.

The fixture projects (``tests/fixtures/projects/{builders,loader_subclass,star_loader}``) write
the expected findings beside the code; each has a clean twin (a ``twin/`` folder, or
``clean.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from seedlint.analysis.facts import AnalysisOptions
from seedlint.config import Settings
from seedlint.engine.check import check_text
from seedlint.project.index import ProjectIndex
from seedlint.project.layout import Layout
from seedlint.project.summary import from_json, to_json
from seedlint.run.summaries import summary_of
from tests.fixtures_support import expected_findings
from tests.support import run_seedlint
from tests.test_projects import PROJECTS, active, index_for

CODES = ("RNG001", "RNG002")
LOADER_PROJECTS = ("builders", "loader_subclass", "star_loader", "helper_kwargs")
SEEDLINT = (sys.executable, "-m", "seedlint", "check", "--output-format", "json")
SEEDLINT += ("--select", "RNG001,RNG002")


def _check(root: Path, path: Path, text: str | None = None) -> list[tuple[int, str, str, str]]:
    source = path.read_text(encoding="utf-8") if text is None else text
    checked = check_text(source, str(path), Settings(root=root))
    rows: list[tuple[int, str, str, str]] = []
    for finding in checked.findings:
        if finding.code in CODES:
            fix = finding.fix.applicability.name if finding.fix is not None else "NONE"
            rows.append((finding.row, finding.code, finding.message, fix))
    return sorted(rows)


def _project(root: Path) -> dict[str, list[tuple[int, str, str, str]]]:
    with active(index_for(root)):
        return {
            str(path.relative_to(root)): _check(root, path) for path in sorted(root.rglob("*.py"))
        }


@pytest.mark.parametrize("name", LOADER_PROJECTS)
def test_expected_findings_beside_the_code(name: str) -> None:
    root = PROJECTS / name
    found = _project(root)
    expected = {
        str(path.relative_to(root)): [
            item for item in expected_findings(path.read_text()) if item[1] in CODES
        ]
        for path in sorted(root.rglob("*.py"))
    }
    assert {path: [(r, c) for r, c, _, _ in rows] for path, rows in found.items()} == expected
    assert any(found.values())
    assert any(not rows for path, rows in found.items() if "twin" in path or "clean" in path)
    for rows in found.values():
        for _, _, message, _ in rows:
            assert len(message) <= 100, message


def test_the_message_names_the_caller_and_the_fix_stays_at_the_loader() -> None:
    found = _project(PROJECTS / "builders")["data.py"]
    by_row = {(row, code): (message, fix) for row, code, message, fix in found}
    # keyword binding in another module
    assert by_row[12, "RNG001"] == (
        "DataLoader shuffles without a `generator` (shuffle=True from `train.py:7`)",
        "SAFE",
    )
    assert by_row[12, "RNG002"][0].endswith("(num_workers=4 from `train.py:7`)")
    # positional binding in the same module
    assert by_row[8, "RNG001"][0].endswith("(shuffle=True from `data.py:37`)")
    # a method called on `self`: its first parameter is not among the arguments
    assert by_row[29, "RNG001"][0].endswith("(shuffle=True from `data.py:32`)")
    # the builder takes `generator` itself: the fix belongs at the caller, none here
    assert by_row[24, "RNG001"] == (
        "DataLoader shuffles without a `generator` (`train.py:11` passes shuffle=True, "
        "no `generator`)",
        "NONE",
    )


def test_without_a_project_same_module_callers_still_count() -> None:
    root = PROJECTS / "builders"
    rows = _check(root, root / "data.py")  # no index active: a one-module index
    assert [(row, code) for row, code, _, _ in rows] == [
        (8, "RNG001"),
        (29, "RNG001"),
        (43, "RNG001"),
        (57, "RNG001"),  # its only caller is in another module: the default counts
    ]


def test_a_caller_edit_changes_the_answers_and_the_finding(tmp_path: Path) -> None:
    root = tmp_path / "builders"
    shutil.copytree(PROJECTS / "builders", root)
    data = root / "data.py"
    before = index_for(root).answers(str(data))
    with active(index_for(root)):
        assert (12, "RNG001") in [(r, c) for r, c, _, _ in _check(root, data)]
    train = root / "train.py"
    train.write_text(train.read_text().replace("shuffle=True, workers=4", "workers=0"))
    after = index_for(root).answers(str(data))
    assert after != before
    with active(index_for(root)):
        rows = [(r, c) for r, c, _, _ in _check(root, data)]
    assert (12, "RNG001") not in rows and (12, "RNG002") not in rows


def test_subclass_positions_follow_its_own_signature() -> None:
    found = _project(PROJECTS / "loader_subclass")["train.py"]
    fixes = {(row, code): fix for row, code, _, fix in found}
    assert fixes[6, "RNG001"] == "SAFE"  # `*args, **kwargs` passes everything on
    assert fixes[7, "RNG001"] == "NONE"  # `__init__` takes neither `generator` nor `**kwargs`
    assert fixes[9, "RNG001"] == "UNSAFE"  # `**kwargs` may reach DataLoader: not sure
    assert fixes[10, "RNG001"] == "SAFE"  # inherits the pass-through `__init__`
    messages = {(row, code): message for row, code, message, _ in found}
    assert "`Buckets.__init__` does not take it" in messages[7, "RNG002"]


def test_summaries_round_trip_through_json() -> None:
    for name in LOADER_PROJECTS:
        for path in sorted((PROJECTS / name).rglob("*.py")):
            summary = summary_of(path.read_bytes(), str(path), AnalysisOptions())
            data = json.loads(json.dumps(to_json(summary)))
            assert from_json(data) == summary
    loaders = PROJECTS / "loader_subclass" / "pkg" / "loaders.py"
    summary = summary_of(loaders.read_bytes(), str(loaders), AnalysisOptions())
    assert summary.classes["AudioDataLoader"].loader
    init = summary.classes["Buckets"].init
    assert init is not None and init.positional[:2] == ("dataset", "shuffle")
    assert not init.takes("generator")


def test_a_helpers_dict_of_another_module_needs_the_project(tmp_path: Path) -> None:
    """`**f()` with `f` of another module: alone the dict is open (silent, as before); the
    index records the dict `f` returns, so the CLI, standard input and `--fix` agree."""
    root = PROJECTS / "helper_kwargs"
    data = root / "pkg" / "data.py"
    assert _check(root, data) == []
    answers = index_for(root).answers(str(data))
    assert any("pinned_kwargs" in str(part) and "pin_memory" in str(part) for part in answers)
    copy = tmp_path / "helper_kwargs"
    shutil.copytree(root, copy)
    (copy / "pyproject.toml").write_text("")

    def rows(*args: str, stdin: str | None = None) -> list[tuple[int, str]]:
        result = run_seedlint(*SEEDLINT[3:], "--no-cache", *args, cwd=copy, stdin=stdin)
        assert result.returncode == 1, result.stderr
        return sorted(
            (int(f["location"]["row"]), str(f["code"]))
            for f in json.loads(result.stdout)
            if str(f["filename"]).endswith("data.py")
        )

    expected = [e for e in expected_findings(data.read_text()) if e[1] in CODES]
    assert rows(".") == expected
    assert rows("pkg/data.py") == expected
    assert rows("--stdin-filename", "pkg/data.py", "-", stdin=data.read_text()) == expected
    fix = ("--no-cache", "--select", "RNG001", "--fix", "--diff", "pkg/data.py")
    diff = run_seedlint("check", *fix, cwd=copy)
    added = [
        line for line in diff.stdout.splitlines() if line.startswith("+") and "generator=" in line
    ]
    assert len(added) == 3, diff.stdout + diff.stderr


def test_star_bound_loader_needs_the_project() -> None:
    root = PROJECTS / "star_loader"
    train = root / "pkg" / "train.py"
    assert _check(root, train) == []  # alone, `DataLoader` could be anything
    index = index_for(root)
    answers = index.answers(str(train))
    assert any(
        isinstance(part, tuple) and any("DataLoader" in str(item) for item in part)
        for part in answers
    )


def test_the_index_reads_summaries_only(tmp_path: Path) -> None:
    """Answers come from summaries (JSON round trip), never from the source."""
    root = tmp_path / "builders"
    shutil.copytree(PROJECTS / "builders", root)
    paths = sorted(str(p) for p in root.rglob("*.py"))
    summaries = {
        p: from_json(to_json(summary_of(Path(p).read_bytes(), p, AnalysisOptions()))) for p in paths
    }
    expected = index_for(root).answers(str(root / "data.py"))
    for p in paths:
        os.remove(p)
    index = ProjectIndex(Layout(root, paths), summaries)
    assert index.answers(str(root / "data.py")) == expected


def test_the_cli_sees_callers_in_files_it_was_not_given(tmp_path: Path) -> None:
    root = tmp_path / "builders"
    shutil.copytree(PROJECTS / "builders", root)
    (root / "pyproject.toml").write_text("")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    result = subprocess.run(
        [*SEEDLINT, "--no-cache", "data.py"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    rows = sorted((int(f["location"]["row"]), str(f["code"])) for f in json.loads(result.stdout))
    expected = [e for e in expected_findings((root / "data.py").read_text()) if e[1] in CODES]
    assert rows == expected


def test_a_warm_run_follows_a_caller_in_another_file(tmp_path: Path) -> None:
    root = tmp_path / "builders"
    shutil.copytree(PROJECTS / "builders", root)
    (root / "pyproject.toml").write_text("")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))

    def rows() -> list[tuple[int, str]]:
        result = subprocess.run(
            [*SEEDLINT, "data.py"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode in (0, 1), result.stderr
        return sorted(
            (int(f["location"]["row"]), str(f["code"])) for f in json.loads(result.stdout)
        )

    train = root / "train.py"
    original = train.read_text()
    assert (12, "RNG001") in rows()
    train.write_text(original.replace("shuffle=True, workers=4", "workers=0"))
    assert (12, "RNG001") not in rows()
    train.write_text(original)
    assert (12, "RNG002") in rows()


@pytest.mark.parametrize("name", LOADER_PROJECTS)
def test_flake8_plugin_equals_the_cli(tmp_path: Path, name: str) -> None:
    """flake8 sees one file at a time; through the plugin's index it sees the callers and the
    loader classes of the other modules as the CLI does."""
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root)
    (root / "setup.cfg").write_text("[flake8]\nselect = RNG\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    env["SEEDLINT_NO_CACHE"] = "1"
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "RNG", "-j", "1", *files],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    flake8 = sorted(
        (os.path.normpath(line.split(":")[0]), int(line.split(":")[1]), line.split()[1])
        for line in result.stdout.splitlines()
        if line.split()[1] in CODES
    )
    expected = sorted(
        (str(path.relative_to(root)), row, code)
        for path in root.rglob("*.py")
        for row, code in expected_findings(path.read_text())
        if code in CODES
    )
    assert flake8 == expected


def test_star_imports_of_absent_modules_are_followed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # torch/cuda/__init__.py as the corpus has it: star imports of submodules the project lacks
    # (`from .memory import *`, `from .random import *`), and calls of names that resolve to the
    # package itself. Following `.memory.<name>` back into the package, again and again, cost
    # 2**13 lookups per name (a 72 s corpus run); each name is now followed once.
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    calls = "\n".join(f"    _utils.helper_{i}(0)" for i in range(20))
    (pkg / "__init__.py").write_text(
        "from torch.utils.data import DataLoader\n"
        "from .memory import *\nfrom .random import *\nfrom .streams import *\n\n\n"
        f"def init():\n{calls}\n    return DataLoader(range(4))\n"
    )
    (pkg / "streams.py").write_text(
        "from torch.utils.data import DataLoader\n\nfrom .events import *\n\n\n"
        "class Stream(DataLoader):\n    pass\n"
    )
    (pkg / "events.py").write_text(
        "from torch.utils.data import DataLoader\n\nfrom .streams import *\n\n\n"
        "class Event(DataLoader):\n    pass\n"
    )
    (pkg / "train.py").write_text(
        "from torch.utils.data import DataLoader\n\nfrom pkg import Stream, init\n\n\n"
        "def main():\n    init()\n    return Stream(range(4), shuffle=True)\n"
    )
    index = index_for(tmp_path)
    assert all(summary.full for summary in index.summaries.values())
    lookups = [0]
    resolve = Layout.resolve

    def counted(self: Layout, importer: str, dotted: str) -> object:
        lookups[0] += 1
        return resolve(self, importer, dotted)

    monkeypatch.setattr(Layout, "resolve", counted)
    for path in sorted(tmp_path.rglob("*.py")):
        index.answers(str(path))
    assert lookups[0] < 500, lookups[0]
    # The project's loader class is still found through the star imports.
    found = index.loader_class(str(pkg / "train.py"), "pkg.Stream")
    assert found is not None and found.name == "Stream"


def test_a_warm_run_over_an_unchanged_project_builds_no_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from seedlint import cli
    from seedlint.run.summaries import ProjectSetup

    root = tmp_path / "builders"
    shutil.copytree(PROJECTS / "builders", root)
    (root / "pyproject.toml").write_text("")
    monkeypatch.chdir(root)
    monkeypatch.setenv("SEEDLINT_CACHE_DIR", str(tmp_path / "cache"))
    past = 1_600_000_000

    def settle() -> None:  # stat keys older than the racy window: trusted by the cache
        for path in root.rglob("*.py"):
            os.utime(path, (past, past))

    def run() -> list[str]:
        cli.main(["check", "--output-format", "concise", "."])
        return sorted(line for line in capsys.readouterr().out.splitlines() if "RNG" in line)

    settle()
    builds = [0]
    build = ProjectSetup.build

    def counted(self: ProjectSetup, *args: Any, **kwargs: Any) -> Any:
        builds[0] += 1
        return build(self, *args, **kwargs)

    monkeypatch.setattr(ProjectSetup, "build", counted)
    first = run()
    assert any("data.py:12:" in line and "RNG001" in line for line in first)
    assert builds[0] == 1
    assert run() == first  # nothing changed: the answers recorded by the first run hold
    assert builds[0] == 1
    train = root / "train.py"
    train.write_text(train.read_text().replace("shuffle=True, workers=4", "workers=0"))
    settle()
    changed = run()  # a caller changed: the index is built again and the finding follows it
    assert builds[0] == 2
    assert not any("data.py:12:" in line and "RNG001" in line for line in changed)
