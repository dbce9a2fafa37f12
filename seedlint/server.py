"""The language server: ``seedlint server`` speaks LSP over standard input and output.

What it offers an editor (any LSP client: Neovim, Helix, Zed, Emacs eglot, VS Code):

* diagnostics for the buffer as it is in the editor, not the file on disk: on open and save at
  once, on change after a short pause (:data:`DEBOUNCE_S`, ``initializationOptions.debounce``
  in milliseconds to change it); with the settings ``seedlint check`` would use for that file
  (the closest ``[tool.seedlint]``; a workspace folder without one is the root of its relative
  patterns); each links to its rule's page;
* code actions: a quick fix per fixable finding (safe ones preferred, unsafe ones offered and
  labelled so), "Disable RNG00N for this line" (adds or extends the line's ``# noqa``) and
  ``source.fixAll.seedlint`` (what ``seedlint check --fix`` would do to the buffer).

Nothing a buffer or a configuration file holds stops the server: a bad configuration becomes a
diagnostic and one message, a bug in seedlint a log message.

Only Python buffers are checked (``.py``, ``.pyi``, or the ``python`` language id); notebooks
are left to ``seedlint check``.
"""

from __future__ import annotations

import asyncio
import io
import logging
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from seedlint import __version__
from seedlint.config import CONFIG_FILES, ConfigError, Settings, SettingsResolver
from seedlint.core import Edit, Finding
from seedlint.documents import DecodeError, Source
from seedlint.engine.check import check_bytes
from seedlint.engine.fix import Identity, edits_for, fix_bytes, identity
from seedlint.engine.noqa import LINE_NOQA
from seedlint.engine.selection import check_selectors
from seedlint.fixes.text import lines as split_lines
from seedlint.fixes.text import minimal_edits
from seedlint.report import rule_url
from seedlint.rules.rng000_invalid_file import InvalidFile
from seedlint.run.discovery import is_excluded

SOURCE = "seedlint"
FIX_ALL = "source.fixAll.seedlint"
DEBOUNCE_S = 0.15
PYTHON_SUFFIXES = (".py", ".pyi")

log = logging.getLogger(__name__)


@dataclass
class Linted:
    """One buffer's check, for the version of the buffer it was made from."""

    uri: str
    version: Optional[int]
    text: str
    raw: bytes
    display: str
    settings: Optional[Settings]  # None: the configuration could not be read
    findings: list[Finding]
    lines: list[str]  # the buffer's lines, without their endings (rows as Python counts them)
    _edits: dict[Identity, tuple[Edit, ...]] = field(default_factory=dict, repr=False)

    def edits(self, findings: Sequence[Finding]) -> dict[Identity, tuple[Edit, ...]]:
        """The fixes' edits of ``findings``, each computed once per version (with libcst, only
        for the findings a client asks about: a long file may have hundreds)."""
        wanted = {identity(f) for f in findings if f.fix is not None} - set(self._edits)
        if wanted and self.settings is not None:
            found = edits_for(self.raw, self.display, self.settings, only=wanted)
            for key in wanted:
                self._edits[key] = found.get(key, ())
        return self._edits


class SeedlintServer(LanguageServer):
    def __init__(self) -> None:
        # Full sync: the client sends the whole buffer, so rows always count lines as Python
        # does (pygls' incremental sync splits at form feeds and other `str.splitlines` breaks).
        super().__init__("seedlint", __version__, types.TextDocumentSyncKind.Full)
        self.debounce = DEBOUNCE_S
        self.resolver = SettingsResolver({}, check=check_selectors)
        self.rooted: dict[tuple[int, str], Settings] = {}
        self.linted: dict[str, Linted] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.shown_errors: set[str] = set()

    # -- settings ------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read every configuration file again (one changed) and check the open buffers."""
        self.resolver = SettingsResolver({}, check=check_selectors)
        self.rooted.clear()
        self.shown_errors.clear()
        for uri in list(self.linted):
            self.lint(uri)

    def folder_of(self, path: Path) -> Optional[Path]:
        """The innermost workspace folder that holds ``path``."""
        best: Optional[Path] = None
        for folder in self.workspace.folders.values():
            folder_path = to_fs_path(folder.uri)
            if folder_path is None:
                continue
            candidate = Path(folder_path)
            if candidate in path.parents and (
                best is None or len(candidate.parts) > len(best.parts)
            ):
                best = candidate
        return best

    def settings_for(self, path: Path) -> Settings:
        settings = self.resolver.for_path(path)
        folder = self.folder_of(path)
        if settings.config_file is not None or folder is None:
            return settings
        # No configuration file: relative patterns start from the workspace folder (the CLI
        # starts them from its working folder, which an editor's server does not have).
        key = (id(settings), str(folder))
        rooted = self.rooted.get(key)
        if rooted is None:
            rooted = self.rooted[key] = replace(settings, root=folder)
        return rooted

    # -- diagnostics ---------------------------------------------------------------------------
    def schedule(self, uri: str) -> None:
        """Check the buffer after the debounce pause (a newer change restarts the pause)."""
        self.cancel(uri)
        if self.debounce <= 0:
            self.lint(uri)
            return
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(self.debounce, self.lint, uri)

    def cancel(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()

    def lint(self, uri: str) -> None:
        """Check the buffer now and publish its diagnostics; never raises."""
        self.pending.pop(uri, None)
        try:
            document = self.workspace.get_text_document(uri)
            if not checkable(document):
                return
            linted = self.check(document)
            self.linted[uri] = linted
            diagnostics = [self.diagnostic(linted, f) for f in linted.findings]
        except Exception as error:  # a bug in seedlint: say so, and keep serving
            log.exception("seedlint failed on %s", uri)
            self.window_log_message(
                types.LogMessageParams(
                    types.MessageType.Error,
                    f"seedlint: internal error on {uri}: {type(error).__name__}: {error}",
                )
            )
            return
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri, diagnostics, document.version)
        )

    def check(self, document: TextDocument) -> Linted:
        text = document.source
        path = document_path(document.uri, self)
        display = str(path)
        raw = encode(text)
        lines = [line.rstrip("\r\n") for line in split_lines(text)]
        linted = Linted(document.uri, document.version, text, raw, display, None, [], lines)
        try:
            settings = self.settings_for(path)
        except ConfigError as error:
            message = f"invalid seedlint configuration: {error}"
            if message not in self.shown_errors:
                self.shown_errors.add(message)
                self.window_show_message(types.ShowMessageParams(types.MessageType.Error, message))
            linted.findings = [InvalidFile.finding(display, message)]
            return linted
        linted.settings = settings
        if settings.force_exclude and is_excluded(path, settings):
            return linted
        linted.findings = check_bytes(raw, display, settings).release()
        return linted

    def position(self, linted: Linted, row: int, col: int) -> types.Position:
        """An LSP position (client units) from a 1-based row and a character column."""
        line = row - 1
        if line >= len(linted.lines):
            return types.Position(max(line, 0), 0)
        text = linted.lines[line][:col]
        return types.Position(line, self.workspace.position_codec.client_num_units(text))

    def range(self, linted: Linted, row: int, col: int, end_row: int, end_col: int) -> types.Range:
        return types.Range(self.position(linted, row, col), self.position(linted, end_row, end_col))

    def diagnostic(self, linted: Linted, finding: Finding) -> types.Diagnostic:
        data: dict[str, Any] = {"noqa_rows": list(finding.noqa_rows)}
        if finding.fix is not None:
            data["fix"] = {"title": finding.fix.message, "safe": finding.fix.safe}
        return types.Diagnostic(
            range=self.range(linted, finding.row, finding.col, finding.end_row, finding.end_col),
            message=finding.message,
            severity=types.DiagnosticSeverity.Warning,
            code=finding.code,
            code_description=types.CodeDescription(href=rule_url(finding.code)),
            source=SOURCE,
            data=data,
        )

    # -- code actions --------------------------------------------------------------------------
    def current(self, uri: str) -> Optional[Linted]:
        """The check of the buffer as it is now (a pending check is done first)."""
        document = self.workspace.get_text_document(uri)
        if not checkable(document):
            return None
        linted = self.linted.get(uri)
        if linted is None or linted.version != document.version or linted.text != document.source:
            self.cancel(uri)
            self.lint(uri)
            linted = self.linted.get(uri)
        return linted

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        linted = self.current(params.text_document.uri)
        if linted is None:
            return []
        only = params.context.only
        first, last = params.range.start.line + 1, params.range.end.line + 1
        here = [f for f in linted.findings if f.row <= last and f.end_row >= first]
        actions: list[types.CodeAction] = []
        if wanted(types.CodeActionKind.QuickFix, only):
            actions.extend(self.quick_fixes(linted, here))
            actions.extend(self.noqa_actions(linted, here))
        if wanted(FIX_ALL, only):
            fix_all = self.fix_all(linted)
            if fix_all is not None:
                actions.append(fix_all)
        return actions

    def workspace_edit(self, linted: Linted, edits: Iterable[Edit]) -> types.WorkspaceEdit:
        text_edits = [
            types.TextEdit(self.range(linted, e.row, e.col, e.end_row, e.end_col), e.content)
            for e in edits
        ]
        return types.WorkspaceEdit(changes={linted.uri: text_edits})

    def quick_fixes(self, linted: Linted, findings: list[Finding]) -> list[types.CodeAction]:
        actions = []
        known = linted.edits(findings)
        for finding in findings:
            if finding.fix is None:
                continue
            edits = known.get(identity(finding))
            if not edits:
                continue
            label = "" if finding.fix.safe else " (unsafe fix: check the result)"
            actions.append(
                types.CodeAction(
                    title=f"{finding.fix.message} ({finding.code}){label}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[self.diagnostic(linted, finding)],
                    is_preferred=finding.fix.safe,
                    edit=self.workspace_edit(linted, edits),
                )
            )
        return actions

    def noqa_actions(self, linted: Linted, findings: list[Finding]) -> list[types.CodeAction]:
        actions = []
        done: set[tuple[str, int]] = set()
        for finding in findings:
            row = noqa_row(linted.text, linted.lines, finding)
            if row is None or (finding.code, row) in done:
                continue
            done.add((finding.code, row))
            edit = noqa_edit(linted.lines[row - 1], row, finding.code)
            actions.append(
                types.CodeAction(
                    title=f"Disable {finding.code} for this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[self.diagnostic(linted, finding)],
                    edit=self.workspace_edit(linted, [edit]),
                )
            )
        return actions

    def fix_all(self, linted: Linted) -> Optional[types.CodeAction]:
        """What ``--fix`` would do to the buffer (with ``--unsafe-fixes`` when the settings say
        ``unsafe-fixes = true``), as the smallest edits."""
        settings = linted.settings
        if settings is None or not any(f.fixable for f in linted.findings):
            return None
        fixed = fix_bytes(linted.raw, linted.display, settings, unsafe=settings.unsafe_fixes)
        for error in fixed.errors:
            self.window_log_message(types.LogMessageParams(types.MessageType.Warning, error))
        if fixed.new_raw == linted.raw:
            return None
        try:
            old, new = Source.decode(linted.raw).text, Source.decode(fixed.new_raw).text
        except DecodeError:
            return None
        if old != linted.text:  # a byte-order mark in the buffer: its columns would be off
            return None
        return types.CodeAction(
            title="Fix all seedlint findings that have a fix",
            kind=FIX_ALL,
            edit=self.workspace_edit(linted, minimal_edits(old, new)),
        )


# -- helpers -----------------------------------------------------------------------------------
def checkable(document: TextDocument) -> bool:
    name = document.uri.rsplit("/", 1)[-1]
    if name.endswith(".ipynb"):
        return False
    return name.endswith(PYTHON_SUFFIXES) or document.language_id == "python"


def document_path(uri: str, server: LanguageServer) -> Path:
    """The file a buffer's findings are reported for (an unsaved buffer: a name in the first
    workspace folder, or the working folder)."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if path is not None:
        return Path(path)
    name = uri.rsplit("/", 1)[-1].rsplit(":", 1)[-1] or "untitled.py"
    for folder in server.workspace.folders.values():
        folder_path = to_fs_path(folder.uri)
        if folder_path is not None:
            return Path(folder_path) / name
    return Path.cwd() / name


def encode(text: str) -> bytes:
    """The bytes the buffer would be saved as: in the encoding its coding cookie names."""
    raw = text.encode("utf-8", "surrogatepass")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError:  # an unknown encoding: the check reports it
        return raw
    if encoding in ("utf-8", "utf-8-sig"):
        return raw
    try:
        return text.encode(encoding)
    except (UnicodeError, LookupError):
        return raw


def wanted(kind: str, only: Optional[Sequence[str]]) -> bool:
    """Whether a client that asked for the kinds ``only`` wants actions of ``kind``."""
    if not only:
        return True
    return any(kind == o or kind.startswith(f"{o}.") for o in only)


def _string_rows(text: str) -> set[int]:
    """Rows a comment cannot be appended to: inside a multi-line string, or continued with a
    backslash (unknown when the text does not tokenize)."""
    rows: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.start[0] < token.end[0] and token.type not in (
                tokenize.NEWLINE,
                tokenize.NL,
                tokenize.COMMENT,
            ):
                rows.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError):
        pass
    return rows


def noqa_row(text: str, lines: list[str], finding: Finding) -> Optional[int]:
    """The row whose ``# noqa`` silences ``finding`` and can take one, if any."""
    candidates = [r for r in (finding.noqa_rows or (finding.row,)) if 1 <= r <= len(lines)]
    if not candidates:
        return None
    blocked = _string_rows(text)
    for row in candidates:
        if row not in blocked and not lines[row - 1].endswith("\\"):
            return row
    return None


def noqa_edit(line: str, row: int, code: str) -> Edit:
    """Add ``code`` to the line's ``# noqa: ...`` codes, or a ``# noqa: CODE`` comment."""
    for match in LINE_NOQA.finditer(line):
        if match.group("codes"):
            end = match.end("codes")
            return Edit(f", {code}", row, end, row, end)
    end = len(line.rstrip())
    return Edit(f"  # noqa: {code}", row, end, row, len(line))


# -- the server and its features ---------------------------------------------------------------
def build() -> SeedlintServer:
    server = SeedlintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: SeedlintServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict) and isinstance(options.get("debounce"), (int, float)):
            ls.debounce = max(float(options["debounce"]), 0.0) / 1000

    @server.feature(types.INITIALIZED)
    def initialized(ls: SeedlintServer, params: types.InitializedParams) -> None:
        capability = ls.client_capabilities.workspace
        watched = capability.did_change_watched_files if capability else None
        if watched is None or not watched.dynamic_registration:
            return
        watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_FILES]
        registration = types.Registration(
            id="seedlint-config-files",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        ls.client_register_capability(types.RegistrationParams([registration]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: SeedlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.lint(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SeedlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: SeedlintServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri.rsplit("/", 1)[-1] in CONFIG_FILES:
            ls.reload()
            return
        ls.cancel(uri)
        ls.lint(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SeedlintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.cancel(uri)
        if ls.linted.pop(uri, None) is not None:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: SeedlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(change.uri.rsplit("/", 1)[-1] in CONFIG_FILES for change in params.changes):
            ls.reload()

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    def code_action(ls: SeedlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        try:
            return ls.code_actions(params)
        except Exception as error:  # a bug in seedlint: no actions, and the server goes on
            log.exception("seedlint code actions failed")
            ls.window_log_message(
                types.LogMessageParams(
                    types.MessageType.Error,
                    f"seedlint: internal error in code actions: {type(error).__name__}: {error}",
                )
            )
            return []

    return server


def main() -> int:
    """Serve over standard input and output until the client says exit."""
    build().start_io()
    return 0


__all__ = ["FIX_ALL", "SeedlintServer", "build", "main"]
