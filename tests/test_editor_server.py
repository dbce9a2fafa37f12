"""The language server's cost per change, in process: what a change does and does not compute.

No timings here (``bench/lsp_latency.py`` measures them): each test counts the work done, so
that a change that brings back a cost fails.
"""

from __future__ import annotations

import asyncio
import gc
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

from lsprotocol import types
from pygls.workspace import Workspace

import seedlint.server as server_module
from seedlint.config import Settings
from seedlint.core import Finding
from seedlint.engine.check import check_bytes
from seedlint.rules import BY_CODE
from seedlint.server import FIX_ALL, SeedlintServer, build

BENCH = Path(__file__).resolve().parent.parent / "bench" / "lsp_latency.py"


def _generate(lines: int) -> str:
    """The benchmark's generated training module (findings in every block)."""
    spec = importlib.util.spec_from_file_location("lsp_latency", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text: str = module.generate(lines)
    return text


TEXT = _generate(300)
KEPT_FACTS: int = getattr(server_module, "KEPT_FACTS", 8)


class Harness:
    """A server with a workspace and no client: what it publishes is collected."""

    def __init__(self, folder: Path, debounce: float = 0.0) -> None:
        self.folder = folder
        self.server: SeedlintServer = build()
        self.server.debounce = debounce
        uri = folder.as_uri()
        self.server.protocol._workspace = Workspace(  # what `initialize` makes
            uri,
            types.TextDocumentSyncKind.Full,
            [types.WorkspaceFolder(uri, "project")],
            types.PositionEncodingKind.Utf16,
        )
        self.published: list[types.PublishDiagnosticsParams] = []
        self.server.text_document_publish_diagnostics = self.published.append  # type: ignore[method-assign]
        self.server.window_log_message = lambda params: None  # type: ignore[method-assign]

    def open(self, name: str, text: str, version: int = 1) -> str:
        path = self.folder / name
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        self.server.workspace.put_text_document(
            types.TextDocumentItem(uri, "python", version, text)
        )
        self.server.lint(uri)
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        self.server.workspace.put_text_document(
            types.TextDocumentItem(uri, "python", version, text)
        )
        self.server.schedule(uri)

    def actions(self, uri: str, line: int, only: list[str]) -> list[types.CodeAction]:
        params = types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(line, 0), types.Position(line, 0)),
            types.CodeActionContext(diagnostics=[], only=only),
        )
        return self.server.code_actions(params)


@pytest.fixture
def fix_infos(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The codes of every rule ``fix_info`` call (what a fix is: the expensive half of a check
    of a file with many findings)."""
    calls: list[str] = []
    for code, rule in BY_CODE.items():
        original = rule.fix_info

        def counted(self: Any, *args: Any, _original: Any = original, _code: str = code) -> Any:
            calls.append(_code)
            return _original(self, *args)

        monkeypatch.setattr(rule, "fix_info", counted)
    yield calls


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the server checks."""
    calls: list[str] = []
    original = server_module.check_bytes

    def counted(raw: bytes, display: str, settings: Settings) -> Any:
        calls.append(display)
        return original(raw, display, settings)

    monkeypatch.setattr(server_module, "check_bytes", counted)
    return calls


def test_diagnostics_do_not_work_out_the_fixes(tmp_path: Path, fix_infos: list[str]) -> None:
    harness = Harness(tmp_path)
    harness.open("train.py", TEXT)
    assert len(harness.published[-1].diagnostics) > 20
    assert fix_infos == []


def test_a_quick_fix_works_out_the_fixes_at_the_cursor_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixed: list[str] = []
    original = server_module.with_fix

    def counted(finding: Finding, *args: Any) -> Finding:
        fixed.append(finding.code)
        return original(finding, *args)

    monkeypatch.setattr(server_module, "with_fix", counted)
    harness = Harness(tmp_path)
    uri = harness.open("train.py", TEXT)
    diagnostics = harness.published[-1].diagnostics
    first = next(d for d in diagnostics if d.code == "RNG001")
    line = first.range.start.line
    at_line = [d for d in diagnostics if d.range.start.line <= line <= d.range.end.line]
    actions = harness.actions(uri, line, [types.CodeActionKind.QuickFix])
    assert any(a.title.endswith("(RNG001)") for a in actions)
    assert len(fixed) == len(at_line) < len(diagnostics)
    harness.actions(uri, line, [types.CodeActionKind.QuickFix])
    assert len(fixed) == len(at_line)  # once per version


def test_the_lazy_fixes_are_the_clis(tmp_path: Path) -> None:
    """Findings, fixes and all, as ``seedlint check`` finds them (nothing changes but when)."""
    harness = Harness(tmp_path)
    uri = harness.open("train.py", TEXT)
    linted = harness.server.linted[uri]
    cli = check_bytes(TEXT.encode(), str(tmp_path / "train.py"), linted.settings or Settings())
    assert [linted.fixed(f) for f in linted.findings] == cli.findings
    assert any(f.fix is not None for f in cli.findings)


def test_an_unchanged_buffer_is_not_checked_again(tmp_path: Path, checks: list[str]) -> None:
    harness = Harness(tmp_path)
    uri = harness.open("train.py", TEXT)
    harness.server.lint(uri)  # a save after the change that was checked
    harness.change(uri, TEXT, 2)  # a change that changes nothing
    assert len(checks) == 1
    assert [p.version for p in harness.published] == [1, 1, 2]
    assert harness.published[0].diagnostics == harness.published[-1].diagnostics
    harness.change(uri, TEXT.replace("# value 0", "# value 00"), 3)
    assert len(checks) == 2


def test_a_change_after_a_pause_is_checked_at_once_and_a_burst_once(tmp_path: Path) -> None:
    async def scenario() -> None:
        harness = Harness(tmp_path, debounce=60.0)  # a pause no test waits for
        uri = harness.open("train.py", TEXT)
        harness.change(uri, TEXT + "\n# one\n", 2)  # the first change: checked at once
        assert [p.version for p in harness.published] == [1, 2]
        harness.change(uri, TEXT + "\n# two\n", 3)  # typing on: waits for the pause
        harness.change(uri, TEXT + "\n# three\n", 4)
        assert [p.version for p in harness.published] == [1, 2]
        assert list(harness.server.pending) == [uri]
        harness.server.pending[uri]._run()  # the pause is over  # type: ignore[attr-defined]
        assert [p.version for p in harness.published] == [1, 2, 4]

    asyncio.run(scenario())


def test_a_buffer_whose_facts_were_released_still_gets_its_quick_fixes(
    tmp_path: Path, checks: list[str]
) -> None:
    harness = Harness(tmp_path)
    first = harness.open("first.py", TEXT)
    for n in range(KEPT_FACTS):
        harness.open(f"other_{n}.py", TEXT)
    assert harness.server.linted[first].released
    assert sum(known.holds_facts for known in harness.server.linted.values()) == KEPT_FACTS
    line = next(d for d in harness.published[0].diagnostics if d.code == "RNG001").range.start.line
    assert harness.actions(first, line, [types.CodeActionKind.QuickFix])
    assert len(checks) == KEPT_FACTS + 2  # the released one was checked again, once


def test_closing_releases_the_facts(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    uri = harness.open("train.py", TEXT)
    linted = harness.server.linted[uri]
    assert linted.holds_facts
    close = harness.server.protocol.fm.features[types.TEXT_DOCUMENT_DID_CLOSE]
    close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert not linted.holds_facts
    assert uri not in harness.server.linted


def test_the_collector_is_paused_during_a_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A check builds a tree of many objects: the cyclic collector would scan them again and
    again while they are made (the CLI's ``findings_of`` pauses it too)."""
    enabled: list[bool] = []
    original = server_module.check_bytes

    def watched(raw: bytes, display: str, settings: Settings) -> Any:
        enabled.append(gc.isenabled())
        return original(raw, display, settings)

    monkeypatch.setattr(server_module, "check_bytes", watched)
    assert gc.isenabled()
    Harness(tmp_path).open("train.py", TEXT)
    assert enabled == [False]
    assert gc.isenabled()


def test_the_default_debounce_is_short() -> None:
    """Typing waits the debounce and a check: 100 ms at most, so that the diagnostics of a
    burst's last change come within about 100 ms plus one check."""
    assert 0 < server_module.DEBOUNCE_S <= 0.1


def test_changes_that_came_during_a_slow_check_wait_for_the_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a busy machine a check can take longer than the pause: the changes typed meanwhile
    are still a burst (each checked at once, the server would fall further behind)."""
    clock = [1000.0]
    monkeypatch.setattr(server_module.time, "monotonic", lambda: clock[0])
    original = server_module.check_bytes

    def slow(raw: bytes, display: str, settings: Settings) -> Any:
        clock[0] += 0.5  # the check takes five pauses
        return original(raw, display, settings)

    monkeypatch.setattr(server_module, "check_bytes", slow)

    async def scenario() -> None:
        harness = Harness(tmp_path, debounce=0.1)
        uri = harness.open("train.py", TEXT)
        harness.change(uri, TEXT + "\n# a\n", 2)  # after a pause: at once
        clock[0] += 0.01  # the next keystroke, read once the check is done
        harness.change(uri, TEXT + "\n# ab\n", 3)
        assert [p.version for p in harness.published] == [1, 2]
        assert list(harness.server.pending) == [uri]
        harness.server.cancel(uri)

    asyncio.run(scenario())


# -- code actions: what a request computes ------------------------------------------------------
@pytest.fixture
def fixers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each libcst fix the server computes: ``edits`` (quick fixes), ``fix-all``."""
    calls: list[str] = []
    edits_for, edits_of = server_module.edits_for, server_module.edits_of
    fix_bytes = server_module.fix_bytes

    def counted_edits(*args: Any, **kwargs: Any) -> Any:
        calls.append("edits")
        return edits_for(*args, **kwargs)

    def counted_edits_of(*args: Any, **kwargs: Any) -> Any:
        calls.append("edits")
        return edits_of(*args, **kwargs)

    def counted_fix_all(*args: Any, **kwargs: Any) -> Any:
        calls.append("fix-all")
        return fix_bytes(*args, **kwargs)

    monkeypatch.setattr(server_module, "edits_for", counted_edits)
    monkeypatch.setattr(server_module, "edits_of", counted_edits_of)
    monkeypatch.setattr(server_module, "fix_bytes", counted_fix_all)
    return calls


def _first_rng001(harness: Harness) -> int:
    diagnostics = harness.published[-1].diagnostics
    return next(d for d in diagnostics if d.code == "RNG001").range.start.line


def test_a_resolving_client_gets_actions_without_edits(tmp_path: Path, fixers: list[str]) -> None:
    """What VS Code sends at every cursor move (no ``only``): titles from the kept facts, no
    libcst; the edit of the action picked comes from ``codeAction/resolve``, the same edit a
    client that does not resolve gets at once."""
    harness = Harness(tmp_path)
    harness.server.lazy_edits = True
    uri = harness.open("train.py", TEXT)
    line = _first_rng001(harness)
    lazy = harness.actions(uri, line, [])
    assert fixers == []
    fixes = [a for a in lazy if a.kind == types.CodeActionKind.QuickFix and a.data]
    assert fixes and all(a.edit is None for a in fixes)
    assert [a.kind for a in lazy if a.kind == FIX_ALL] == [FIX_ALL]
    resolved = harness.server.resolve(fixes[0])
    assert fixers == ["edits"] and resolved.edit is not None
    harness.server.lazy_edits = False
    eager = harness.actions(uri, line, [types.CodeActionKind.QuickFix])
    assert next(a for a in eager if a.title == fixes[0].title).edit == resolved.edit
    fix_all = next(a for a in lazy if a.kind == FIX_ALL)
    assert harness.server.resolve(fix_all).edit is not None
    assert fixers.count("fix-all") == 1


def test_a_client_that_does_not_resolve_gets_fix_all_only_when_it_asks(
    tmp_path: Path, fixers: list[str]
) -> None:
    harness = Harness(tmp_path)
    uri = harness.open("train.py", TEXT)
    line = _first_rng001(harness)
    assert not any(a.kind == FIX_ALL for a in harness.actions(uri, line, []))
    assert "fix-all" not in fixers
    (fix_all,) = harness.actions(uri, line, ["source.fixAll"])
    assert fix_all.edit is not None and fixers.count("fix-all") == 1


def test_one_preferred_action_per_diagnostic(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    uri = harness.open("train.py", TEXT)
    line = _first_rng001(harness)
    actions = harness.actions(uri, line, [types.CodeActionKind.QuickFix])
    here = {
        (d.code, d.range.start.line, d.range.start.character)
        for d in harness.published[-1].diagnostics
        if d.range.start.line <= line <= d.range.end.line
    }
    preferred: dict[tuple[Any, int, int], int] = {}
    for action in actions:
        assert action.diagnostics is not None and len(action.diagnostics) == 1
        d = action.diagnostics[0]
        key = (d.code, d.range.start.line, d.range.start.character)
        preferred[key] = preferred.get(key, 0) + bool(action.is_preferred)
    assert set(preferred) == here and all(count == 1 for count in preferred.values())


def test_a_stale_action_resolves_to_no_edit(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    harness.server.lazy_edits = True
    uri = harness.open("train.py", TEXT)
    line = _first_rng001(harness)
    fix = next(a for a in harness.actions(uri, line, []) if a.data and a.title.endswith(")"))
    harness.change(uri, TEXT.replace("# value 0", "# value 00"), 2)
    assert harness.server.resolve(fix).edit is None


def test_a_changed_pyproject_is_read_again_without_the_client(tmp_path: Path) -> None:
    """Neovim 0.7 and eglot report no file changes: the next check sees the new settings."""
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.seedlint]\n")
    harness = Harness(tmp_path)
    uri = harness.open("train.py", TEXT)
    assert any(d.code == "RNG001" for d in harness.published[-1].diagnostics)
    config.write_text('[tool.seedlint]\nignore = ["RNG001"]\n')
    harness.change(uri, TEXT + "\n", 2)
    assert harness.published[-1].version == 2
    assert harness.published[-1].diagnostics
    assert not any(d.code == "RNG001" for d in harness.published[-1].diagnostics)


LOADER_CLASS = "from torch.utils.data import DataLoader\n\n\nclass {}(DataLoader):\n    pass\n"


def _loader_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files read for their loader classes, as they are read."""
    from seedlint.run.loader_names import LoaderNames

    read: list[str] = []
    original = LoaderNames.from_files

    def counted(self: LoaderNames, paths: list[str], *args: Any) -> Any:
        read.extend(Path(path).name for path in paths)
        return original(self, paths, *args)

    monkeypatch.setattr(LoaderNames, "from_files", counted)
    return read


def test_the_workspace_folders_project_is_read_before_a_buffer_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once initialized, the server reads its workspace folder's files for their loader
    classes before any buffer opens: the first buffer's check reads only the files written since
    (none read twice, and not the buffer's own file), and knows the loader classes of both,
    whose names have no loader word."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "feeders.py").write_text(LOADER_CLASS.format("Feeder"), encoding="utf-8")
    read = _loader_reads(monkeypatch)
    harness = Harness(tmp_path)
    harness.server.prepare_projects()
    assert read == ["feeders.py"]
    (tmp_path / "pumps.py").write_text(LOADER_CLASS.format("Pump"), encoding="utf-8")
    uri = harness.open(
        "train.py",
        "from feeders import Feeder\nfrom pumps import Pump\n\n"
        "feed = Feeder(range(8), shuffle=True)\npump = Pump(range(8), shuffle=True)\n",
    )
    # feeders.py once; train.py not at all (the buffer's text tells what it binds)
    assert sorted(read) == ["feeders.py", "pumps.py"]
    rows = [(d.range.start.line, d.code) for d in harness.published[-1].diagnostics]
    assert harness.published[-1].uri == uri and rows == [(3, "RNG001"), (4, "RNG001")]


def test_a_workspace_folder_in_no_project_is_not_read_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A workspace folder with no root marker at or above it (a home folder, say) is no
    project: nothing is read before a buffer opens (its files are not one program, and
    reading them all could take long)."""
    from seedlint.project import layout

    monkeypatch.setattr(layout, "_home", lambda: tmp_path.parent)  # the search stops there
    (tmp_path / "feeders.py").write_text(LOADER_CLASS.format("Feeder"), encoding="utf-8")
    read = _loader_reads(monkeypatch)
    harness = Harness(tmp_path)
    harness.server.prepare_projects()
    assert read == []
    (tmp_path / ".git").mkdir()  # now a project: read ahead
    harness.server.prepare_projects()
    assert read == ["feeders.py"]


def test_settings_files_are_looked_for_up_to_the_configuration_in_use(tmp_path: Path) -> None:
    """The server notices a settings file that changed, appeared or went between the buffer
    and the configuration its settings come from (and the one its line length comes from),
    and stops looking above both: a file above them cannot change the settings while they
    stay as they are. Where a file gives neither, it looks up to `/`."""
    project = tmp_path / "project"
    package = project / "pkg"
    package.mkdir(parents=True)
    config = project / "pyproject.toml"
    config.write_text('[tool.seedlint]\nignore = ["RNG002"]\n\n[tool.ruff]\nline-length = 99\n')
    buffer = package / "train.py"
    harness = Harness(tmp_path)
    server = harness.server
    assert server.settings_changed(buffer) is False  # the first look
    assert server.settings_tops[package] == project
    (tmp_path / "ruff.toml").write_text("line-length = 80\n")  # above the project's: no matter
    assert server.settings_changed(buffer) is False
    (package / "seedlint.toml").write_text("ignore = []\n")  # below it: the settings change
    assert server.settings_changed(buffer) is True
    bare = tmp_path / "bare"
    bare.mkdir()
    assert server.settings_changed(bare / "x.py") is False
    assert server.settings_tops[bare] is None  # no configuration: every folder up to `/`
