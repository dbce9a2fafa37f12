"""`seedlint server` end to end: a real LSP client (pytest-lsp) drives the server over stdio."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

pytest.importorskip("pytest_lsp")

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from seedlint.config import Settings
from seedlint.engine.check import check_bytes
from seedlint.report import rule_url
from seedlint.rules import RULES
from seedlint.server import FIX_ALL
from tests.support import UNSEEDED_SCRIPT, run_seedlint

ROOT = Path(__file__).resolve().parent.parent
SERVER_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")},
    "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
}
TWO_LOADERS = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "a = DataLoader(range(8), shuffle=True)  # the first\n"
    "b = DataLoader(range(8), batch_size=2, shuffle=True)\n"
)


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "seedlint", "server"], server_env=SERVER_ENV
    )
)
async def client(lsp_client: LanguageClient, tmp_path: Path):  # type: ignore[no-untyped-def]
    registrations: list[types.Registration] = []
    lsp_client.registrations = registrations  # type: ignore[attr-defined]

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:  # what VS Code answers
        registrations.extend(params.registrations)

    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=tmp_path.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="project")],
        initialization_options={"debounce": 20},
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


# -- helpers -----------------------------------------------------------------------------------
async def published(
    client: LanguageClient, uri: str, timeout: float = 30
) -> list[types.Diagnostic]:
    """The next diagnostics published for ``uri`` (call ``client.diagnostics.pop(uri)`` before
    the notification that triggers them)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while uri not in client.diagnostics:
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no diagnostics for {uri} within {timeout} s")
        await asyncio.sleep(0.01)
    return list(client.diagnostics[uri])


async def open_file(
    client: LanguageClient, path: Path, text: str, write: bool = True
) -> list[types.Diagnostic]:
    if write:
        path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
    )
    return await published(client, uri)


async def change(
    client: LanguageClient, path: Path, text: str, version: int
) -> list[types.Diagnostic]:
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    return await published(client, uri)


async def actions(
    client: LanguageClient,
    path: Path,
    line: int,
    diagnostics: Sequence[types.Diagnostic] = (),
    only: Sequence[str] | None = None,
) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(path.as_uri()),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=list(diagnostics), only=only),
        )
    )
    assert result is not None
    found = [a for a in result if isinstance(a, types.CodeAction)]
    # The client (VS Code's capabilities) resolves edits: every fix comes without its edit,
    # which `codeAction/resolve` gives, as an editor asks for the action the user picks.
    assert all(a.edit is None for a in found if not (a.title or "").startswith("Disable"))
    return [await resolved(client, a) for a in found]


async def resolved(client: LanguageClient, action: types.CodeAction) -> types.CodeAction:
    if action.edit is not None:
        return action
    return await client.code_action_resolve_async(action)


def offset(text: str, position: types.Position) -> int:
    """A UTF-16 position (what the test client negotiates) as an index into ``text``."""
    lines = text.splitlines(keepends=True)
    start = sum(len(line) for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(line.rstrip("\r\n")) if units >= position.character else start


def apply(text: str, action: types.CodeAction, uri: str) -> str:
    assert action.edit is not None and action.edit.changes is not None
    assert set(action.edit.changes) == {uri}
    edits = sorted(
        action.edit.changes[uri],
        key=lambda e: (e.range.start.line, e.range.start.character),
        reverse=True,
    )
    for edit in edits:
        start, end = offset(text, edit.range.start), offset(text, edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


def engine_findings(text: str, path: Path):  # type: ignore[no-untyped-def]
    return check_bytes(text.encode(), str(path), Settings(root=path.parent)).findings


# -- diagnostics -------------------------------------------------------------------------------
async def test_open_publishes_the_engines_findings(client: LanguageClient, tmp_path: Path):
    path = tmp_path / "train.py"
    diagnostics = await open_file(client, path, UNSEEDED_SCRIPT)
    findings = engine_findings(UNSEEDED_SCRIPT, path)
    assert findings, "the sample must have a finding"
    assert [d.code for d in diagnostics] == [f.code for f in findings]
    line = UNSEEDED_SCRIPT.splitlines().index(
        next(x for x in UNSEEDED_SCRIPT.splitlines() if "DataLoader(" in x and "=" in x)
    )
    first = diagnostics[0]
    assert first.range.start == types.Position(line, UNSEEDED_SCRIPT.splitlines()[line].index("D"))
    assert first.range.end == types.Position(line, len(UNSEEDED_SCRIPT.splitlines()[line]))
    assert first.message == findings[0].message
    assert first.source == "seedlint"
    assert first.severity == types.DiagnosticSeverity.Warning
    assert first.code_description is not None
    assert first.code_description.href == rule_url(first.code)


async def test_columns_are_utf16_code_units(client: LanguageClient, tmp_path: Path):
    prefix = 'label = "😀é"; '
    text = UNSEEDED_SCRIPT.replace("loader = ", prefix + "loader = ")
    line = next(i for i, x in enumerate(text.splitlines()) if "DataLoader(" in x and "=" in x)
    diagnostics = await open_file(client, tmp_path / "emoji.py", text)
    assert [d.code for d in diagnostics] == ["RNG001"]
    # 😀 is two UTF-16 code units: the column is one more than the character count.
    characters = text.splitlines()[line].index("DataLoader")
    assert diagnostics[0].range.start == types.Position(line, characters + 1)


async def test_changes_update_the_diagnostics(client: LanguageClient, tmp_path: Path):
    path = tmp_path / "train.py"
    assert [d.code for d in await open_file(client, path, UNSEEDED_SCRIPT)] == ["RNG001"]
    clean = UNSEEDED_SCRIPT.replace("shuffle=True", "shuffle=False")
    assert await change(client, path, clean, 2) == []
    two = await change(client, path, TWO_LOADERS, 3)  # the buffer, not the file on disk
    assert [(d.code, d.range.start.line) for d in two] == [("RNG001", 3), ("RNG001", 4)]


async def test_several_quick_changes_give_the_last_buffers_diagnostics(
    client: LanguageClient, tmp_path: Path
):
    path = tmp_path / "train.py"
    await open_file(client, path, UNSEEDED_SCRIPT)
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    for version, text in enumerate([TWO_LOADERS, UNSEEDED_SCRIPT, TWO_LOADERS], start=2):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
    assert len(await published(client, uri)) == 2


async def test_save_checks_again(client: LanguageClient, tmp_path: Path):
    path = tmp_path / "train.py"
    await open_file(client, path, UNSEEDED_SCRIPT)
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri))
    )
    assert [d.code for d in await published(client, uri)] == ["RNG001"]


async def test_a_buffer_that_does_not_parse_gives_rng000(client: LanguageClient, tmp_path: Path):
    # (a file without any of the rules' words is not parsed at all, as in `seedlint check`)
    text = UNSEEDED_SCRIPT.replace("\n\n", "\n\ndef broken(:\n    pass\n")
    diagnostics = await open_file(client, tmp_path / "broken.py", text)
    assert [d.code for d in diagnostics] == ["RNG000"]
    assert diagnostics[0].range.start.line == text.splitlines().index("def broken(:")
    # The server is still there.
    assert [d.code for d in await open_file(client, tmp_path / "ok.py", UNSEEDED_SCRIPT)] == [
        "RNG001"
    ]


async def test_project_settings_apply_to_the_buffer(client: LanguageClient, tmp_path: Path):
    sub = tmp_path / "quiet"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[tool.seedlint]\nignore = ["RNG001"]\n')
    assert await open_file(client, sub / "train.py", UNSEEDED_SCRIPT) == []
    assert len(await open_file(client, tmp_path / "train.py", UNSEEDED_SCRIPT)) == 1


async def test_a_bad_configuration_is_one_diagnostic_and_a_message(
    client: LanguageClient, tmp_path: Path
):
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.seedlint]\nselect = ["BOGUS1"]\n')
    path = tmp_path / "train.py"
    diagnostics = await open_file(client, path, UNSEEDED_SCRIPT)
    assert [d.code for d in diagnostics] == ["RNG000"]
    assert "BOGUS1" in diagnostics[0].message
    assert any("BOGUS1" in m.message for m in client.messages)
    # Fixing the file (the client watches it) brings the findings back.
    config.write_text('[tool.seedlint]\nselect = ["RNG001"]\n')
    client.diagnostics.pop(path.as_uri(), None)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(config.as_uri(), types.FileChangeType.Changed)]
        )
    )
    assert [d.code for d in await published(client, path.as_uri())] == ["RNG001"]


async def test_closing_clears_the_diagnostics(client: LanguageClient, tmp_path: Path):
    path = tmp_path / "train.py"
    await open_file(client, path, UNSEEDED_SCRIPT)
    client.diagnostics.pop(path.as_uri(), None)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(path.as_uri()))
    )
    assert await published(client, path.as_uri()) == []


# -- code actions ------------------------------------------------------------------------------
FIXED_EXAMPLES = [
    pytest.param(rule.code, example, id=f"{rule.code}-{index}")
    for rule in RULES
    for index, example in enumerate(rule.invalid)
    if example.fixed is not None and example.count == 1
]


@pytest.mark.parametrize(("code", "example"), FIXED_EXAMPLES)
async def test_the_quick_fix_gives_the_rules_fixed_example(
    client: LanguageClient, tmp_path: Path, code: str, example
):
    path = tmp_path / "example.py"
    diagnostics = [d for d in await open_file(client, path, example.code) if d.code == code]
    assert len(diagnostics) == 1
    found = await actions(client, path, diagnostics[0].range.start.line, diagnostics)
    fixes = [
        a
        for a in found
        if a.kind == types.CodeActionKind.QuickFix
        and not a.title.startswith("Disable")
        and a.diagnostics
        and a.diagnostics[0].code == code
    ]
    assert len(fixes) == 1
    fix = fixes[0]
    assert bool(fix.is_preferred) is not example.unsafe
    assert ("unsafe" in fix.title) is example.unsafe
    assert apply(example.code, fix, path.as_uri()) == example.fixed


async def test_fix_all_does_what_the_cli_fix_does(client: LanguageClient, tmp_path: Path):
    path = tmp_path / "train.py"
    diagnostics = await open_file(client, path, TWO_LOADERS)
    assert len(diagnostics) == 2
    found = await actions(client, path, 0, only=["source.fixAll"])
    assert [a.kind for a in found] == ["source.fixAll.seedlint"]
    fixed = apply(TWO_LOADERS, found[0], path.as_uri())
    run_seedlint("check", "--fix", "--no-cache", str(path), cwd=tmp_path)
    assert fixed == path.read_text(encoding="utf-8") != TWO_LOADERS
    # Asking for quick fixes only leaves fix-all out, and the reverse.
    assert all(a.kind == "quickfix" for a in await actions(client, path, 3, only=["quickfix"]))


async def test_disable_for_this_line_adds_a_noqa(client: LanguageClient, tmp_path: Path):
    path = tmp_path / "train.py"
    diagnostics = await open_file(client, path, TWO_LOADERS)
    uri = path.as_uri()
    text = TWO_LOADERS
    for version, line in enumerate((3, 4), start=2):
        found = await actions(client, path, line, diagnostics)
        noqa = [a for a in found if a.title == "Disable RNG001 for this line"]
        assert len(noqa) == 1 and noqa[0].is_preferred is not True
        text = apply(text, noqa[0], uri)
        diagnostics = await change(client, path, text, version)
    lines = text.splitlines()
    assert lines[3] == "a = DataLoader(range(8), shuffle=True)  # the first  # noqa: RNG001"
    assert lines[4] == "b = DataLoader(range(8), batch_size=2, shuffle=True)  # noqa: RNG001"
    assert diagnostics == []


async def test_disable_keeps_the_codes_already_there(client: LanguageClient, tmp_path: Path):
    text = UNSEEDED_SCRIPT.replace("shuffle=True)\n", "shuffle=True)  # noqa: E501\n")
    path = tmp_path / "train.py"
    diagnostics = await open_file(client, path, text)
    line = diagnostics[0].range.start.line
    found = await actions(client, path, line, diagnostics)
    noqa = next(a for a in found if a.title.startswith("Disable"))
    new = apply(text, noqa, path.as_uri())
    assert new.splitlines()[line].endswith("shuffle=True)  # noqa: E501, RNG001")
    assert engine_findings(new, path) == []


def test_without_pygls_the_command_says_so(monkeypatch, capsys):
    import seedlint
    from seedlint import cli

    # `from seedlint import server` finds the package's attribute first, once an earlier test
    # imported the server: both must go for the import to run again.
    monkeypatch.delitem(sys.modules, "seedlint.server", raising=False)
    monkeypatch.delattr(seedlint, "server", raising=False)
    monkeypatch.setitem(sys.modules, "pygls", None)
    monkeypatch.setitem(sys.modules, "pygls.lsp.server", None)
    assert cli.main(["server"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pygls" in err[0] and "seedlint[server]" in err[0]


async def test_the_server_watches_the_configuration_files(client: LanguageClient):
    from seedlint.config import CONFIG_FILES

    registrations = client.registrations  # type: ignore[attr-defined]
    for _ in range(500):
        if registrations:
            break
        await asyncio.sleep(0.01)
    (registration,) = registrations
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    patterns = [w["globPattern"] for w in registration.register_options["watchers"]]
    names = (*CONFIG_FILES, "ruff.toml", ".ruff.toml", "*.py")
    assert sorted(patterns) == sorted(f"**/{name}" for name in set(names))


# -- the project index: what other modules of the project decide ------------------------------
PROJECTS = ROOT / "tests" / "fixtures" / "projects"


def _rows(diagnostics: Sequence[types.Diagnostic]) -> list[tuple[int, str]]:
    return sorted((d.range.start.line + 1, str(d.code)) for d in diagnostics)


async def test_callers_in_other_modules_decide_the_buffers_findings(
    client: LanguageClient, tmp_path: Path
):
    """`data.py`'s builders take `shuffle` from their callers in `train.py`: the server reads
    the project as `seedlint check` does, and a caller changed on disk counts once saved."""
    import shutil

    from tests.fixtures_support import expected_findings

    for name in ("data.py", "train.py"):
        shutil.copy(PROJECTS / "builders" / name, tmp_path / name)
    (tmp_path / "pyproject.toml").write_text("")
    data = tmp_path / "data.py"
    text = data.read_text()
    expected = [e for e in expected_findings(text) if e[1] in ("RNG001", "RNG002")]
    cli = run_seedlint("check", "--no-cache", "--output-format", "concise", "data.py", cwd=tmp_path)
    assert [(r, c) for r, c in expected if f"data.py:{r}:" in cli.stdout] == expected
    found = await open_file(client, data, text, write=False)
    assert _rows(found) == expected
    # A quick fix for a finding the project decides (row 12: `make_loader(shuffle=True)`).
    twelve = [d for d in found if d.range.start.line == 11 and d.code == "RNG001"]
    fixes = await actions(client, data, 11, twelve, only=[types.CodeActionKind.QuickFix])
    assert any("generator" in a.title for a in fixes), [a.title for a in fixes]
    # The caller stops shuffling on disk (saved elsewhere): data.py's row-12 finding goes.
    train = tmp_path / "train.py"
    train.write_text(train.read_text().replace("shuffle=True, workers=4", "workers=0"))
    client.diagnostics.pop(data.as_uri(), None)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(train.as_uri(), types.FileChangeType.Changed)]
        )
    )
    again = await change(client, data, text + "\n", 2)
    assert (12, "RNG001") not in _rows(again) and (12, "RNG002") not in _rows(again)


async def test_a_helper_in_another_module_completes_the_seeding(
    client: LanguageClient, tmp_path: Path
):
    """RNG004 per program: `train_clean.py` seeds torch through a helper of the package."""
    import shutil

    root = tmp_path / "helpers"
    shutil.copytree(PROJECTS / "helpers", root)
    (root / "pyproject.toml").write_text("")
    clean = root / "train_clean.py"
    assert [d for d in await open_file(client, clean, clean.read_text(), write=False)] == []
    bad = root / "train_bad.py"
    found = await open_file(client, bad, bad.read_text(), write=False)
    assert ("RNG004" in {str(d.code) for d in found}) and _rows(found) == [(11, "RNG004")]


async def test_loader_classes_named_without_a_loader_word(client: LanguageClient, tmp_path: Path):
    """`train.py` holds no `DataLoader`: it calls the project's `AudioLoader`, `Feeder` (a
    renamed re-export) and `Bins`. The server finds the project's loader names as `seedlint
    check` does, and offers the fix (the `generator` the CLI's `--fix` passes)."""
    import shutil

    from tests.fixtures_support import expected_findings

    root = tmp_path / "loader_names"
    shutil.copytree(PROJECTS / "loader_names", root)
    (root / "pyproject.toml").write_text("")
    train = root / "train.py"
    text = train.read_text()
    expected = sorted(e for e in expected_findings(text) if e[1] in ("RNG001", "RNG002"))
    found = await open_file(client, train, text, write=False)
    assert _rows(found) == expected
    audio = [d for d in found if d.range.start.line == 7 and d.code == "RNG001"]
    fixes = await actions(client, train, 7, audio, only=[types.CodeActionKind.QuickFix])
    assert any("generator" in a.title for a in fixes), [a.title for a in fixes]


def test_the_noqa_goes_where_a_comment_can_go(tmp_path: Path):
    from seedlint.server import noqa_edit, noqa_row

    text = (
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "\n"
        'loader = DataLoader(range(8), shuffle=True, collate_fn=make("""\n'
        "text\n"
        '"""))\n'
    )
    path = tmp_path / "train.py"
    (finding,) = engine_findings(text, path)
    lines = text.splitlines()
    row = noqa_row(text, lines, finding)
    assert row == 6  # the first row ends inside the string: a comment there would be text
    edit = noqa_edit(lines[row - 1], row, finding.code)
    new_lines = list(lines)
    new_lines[row - 1] = lines[row - 1][: edit.col] + edit.content + lines[row - 1][edit.end_col :]
    new = "\n".join(new_lines) + "\n"
    assert new_lines[row - 1] == '"""))  # noqa: RNG001'
    assert engine_findings(new, path) == []
    # A line continued with a backslash cannot take a comment at all.
    continued = text.replace('make("""\ntext\n"""))', "make(\\\n  1))")
    (finding,) = engine_findings(continued, path)
    assert noqa_row(continued, continued.splitlines(), finding) == finding.end_row


# -- notebooks: LSP 3.17 notebook document sync ----------------------------------------------
async def test_a_notebooks_cells_are_checked_as_one_program(client: LanguageClient, tmp_path: Path):
    """Cell 1 imports, cell 3 (after a markdown cell) makes the loader: the finding is on cell
    3's line, as `seedlint check` reports it; its quick fix edits that cell."""
    path = tmp_path / "explore.ipynb"
    nb_uri = path.as_uri()
    sources = [
        "import torch\nfrom torch.utils.data import DataLoader\n",
        "# Loading\n",
        "data = range(8)\nloader = DataLoader(data, batch_size=2, shuffle=True)\n",
    ]
    code, markup = types.NotebookCellKind.Code, types.NotebookCellKind.Markup
    kinds = [code, markup, code]
    cells = [f"vscode-notebook-cell:{path}#cell{i}" for i in range(3)]
    for uri in cells:
        client.diagnostics.pop(uri, None)
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=nb_uri,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[types.NotebookCell(kind, uri) for kind, uri in zip(kinds, cells)],
            ),
            cell_text_documents=[
                types.TextDocumentItem(uri, "python" if i != 1 else "markdown", 1, text)
                for i, (uri, text) in enumerate(zip(cells, sources))
            ],
        )
    )
    found = await published(client, cells[2])
    assert [(d.code, d.range.start.line, d.range.start.character) for d in found] == [
        ("RNG001", 1, 9)
    ]
    assert await published(client, cells[0]) == []
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(cells[2]),
            range=found[0].range,
            context=types.CodeActionContext(diagnostics=found),
        )
    )
    assert result is not None
    (fix,) = [a for a in result if isinstance(a, types.CodeAction) and a.is_preferred]
    assert not any(isinstance(a, types.CodeAction) and a.kind == FIX_ALL for a in result)
    fixed = apply(sources[2], await resolved(client, fix), cells[2])
    assert fixed.startswith("data = range(8)\nloader = DataLoader(\n")
    assert "    generator=torch.Generator().manual_seed(0),\n" in fixed


MANY_BLOCKS = (
    "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader, Dataset\n"
    + "".join(
        f"\n\nclass Noisy{n}(Dataset):\n"
        "    def __init__(self, items):\n"
        "        self.items = list(items)\n"
        "        self.rng = np.random.default_rng()\n"
        "\n"
        "    def __len__(self):\n"
        "        return len(self.items)\n"
        f"\n\ndef make_{n}(train, batch_size=32):\n"
        f'    """Block {n}."""\n'
        "    generator = torch.Generator()\n"
        "    loader = DataLoader(train, batch_size=batch_size, shuffle=True, drop_last=True)\n"
        f"    noisy = DataLoader(Noisy{n}(range(10)), batch_size=batch_size, num_workers=2)\n"
        "    return loader, noisy, generator\n"
        for n in range(4)
    )
)


async def test_fix_all_asked_again_gives_the_same_edit(client: LanguageClient, tmp_path: Path):
    """Fix-all starts from the buffer's kept check (no check again) and must leave it as it
    was: asked twice, and a quick fix after it, on one version, each gives what the CLI does
    (the fixer once moved the kept tree's statements into the fixed text's)."""
    path = tmp_path / "train.py"
    diagnostics = await open_file(client, path, MANY_BLOCKS)
    assert len(diagnostics) == 12
    run_seedlint("check", "--fix", "--no-cache", str(path), cwd=tmp_path)
    expected = path.read_text(encoding="utf-8")
    path.write_text(MANY_BLOCKS, encoding="utf-8")
    assert expected != MANY_BLOCKS and expected.count("generator=") == 4
    for _ in range(2):
        found = await actions(client, path, 0, only=["source.fixAll"])
        assert [a.kind for a in found] == ["source.fixAll.seedlint"]
        assert apply(MANY_BLOCKS, found[0], path.as_uri()) == expected
    last = next(d for d in reversed(diagnostics) if d.code == "RNG001")
    quick = [
        a
        for a in await actions(client, path, last.range.start.line, [last])
        if a.kind == types.CodeActionKind.QuickFix and a.is_preferred
    ]
    assert len(quick) == 1
    fixed = apply(MANY_BLOCKS, quick[0], path.as_uri())
    row = last.range.start.line
    assert fixed.count("generator=") == 1
    assert fixed.splitlines()[:row] == MANY_BLOCKS.splitlines()[:row]
