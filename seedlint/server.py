"""The language server: ``seedlint server`` speaks LSP over standard input and output.

What it offers an editor (any LSP client: Neovim, Helix, Zed, Emacs eglot, VS Code):

* diagnostics for the buffer as it is in the editor, not the file on disk: on open and save at
  once; on change at once after a pause in typing, else when typing pauses (:data:`DEBOUNCE_S`,
  ``initializationOptions.debounce`` in milliseconds to change it); with the settings
  ``seedlint check`` would use for that file (the closest ``[tool.seedlint]``; a workspace
  folder without one is the root of its relative patterns) and with the project index where
  the buffer's findings depend on other modules (:class:`Projects`); each links to its rule's
  page;
* code actions: a quick fix per fixable finding (safe ones preferred, unsafe ones offered and
  labelled so), "Disable RNG00N for this line" (adds or extends the line's ``# noqa``) and
  ``source.fixAll.seedlint`` (what ``seedlint check --fix`` would do to the buffer).

Nothing a buffer or a configuration file holds stops the server: a bad configuration becomes a
diagnostic and one message, a bug in seedlint a log message.

Diagnostics come first: a check finds the findings only (the check stage, ``ast`` alone); what
each fix is (its title, safe or not) is worked out from the check's facts, kept for the buffer's
current version, when a client asks for code actions, and the fix's edits (libcst) then too,
for the findings at the cursor only. A buffer whose text did not change (a save, a repeated
change) is not checked again.

Python buffers are checked (``.py``, ``.pyi``, or the ``python`` language id), and a notebook
open as its JSON text (``.ipynb``): its code cells as ``seedlint check`` checks them (a cell that
does not parse is one RNG000, the other cells still checked), each diagnostic on the JSON line
that holds its cell's line, its cell first in the message, and only the fix-all action.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import io
import json
import logging
import os
import threading
import time
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
from seedlint.config import (
    CONFIG_FILES,
    FORMATTER_FILES,
    ConfigError,
    Settings,
    SettingsResolver,
    find_line_length_file,
)
from seedlint.core import Edit, Finding, FixAvailability
from seedlint.documents import DecodeError, DocumentError, NotebookDocument, Source, read_document
from seedlint.documents.notebook import cell_lines_in_file, file_position
from seedlint.engine.check import (
    Checked,
    Flagged,
    check_bytes,
    check_text,
    collector_paused,
    with_fix,
)
from seedlint.engine.fix import Identity, edits_for, edits_of, fix_bytes, identity
from seedlint.engine.noqa import LINE_NOQA
from seedlint.engine.selection import check_selectors, selection
from seedlint.fixes.text import lines as split_lines
from seedlint.fixes.text import minimal_edits
from seedlint.prefilter.words import loader_in_code, names_project_loader, project_loaders_set
from seedlint.project.index import ProjectIndex, activated, needs_project, project_decides
from seedlint.project.layout import find_root, project_root
from seedlint.project.summary import ModuleSummary, may_need_project, needs_tree, summarize
from seedlint.report import rule_url
from seedlint.rules.rng000_invalid_file import InvalidFile
from seedlint.run.discovery import is_excluded
from seedlint.run.summaries import ProjectSetup

SOURCE = "seedlint"
FIX_ALL = "source.fixAll.seedlint"
FIX_ALL_TITLE = "Fix all seedlint findings that have a fix"
DEBOUNCE_S = 0.1
KEPT_FACTS = 8  # buffers whose facts stay for their code actions (others: checked again)
PYTHON_SUFFIXES = (".py", ".pyi")
# Notebooks: their Python cells, synced as LSP 3.17 notebook documents (a client that syncs
# notebooks sends their cells this way, never as text documents).
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            cells=[types.NotebookCellLanguage("python")], notebook="jupyter-notebook"
        )
    ],
    save=True,
)
# The files whose change changes a buffer's settings (seedlint's, and the line length the
# fixes read from ruff's or black's configuration).
SETTINGS_FILES = tuple(dict.fromkeys((*CONFIG_FILES, *FORMATTER_FILES)))

log = logging.getLogger(__name__)

# A script with a finding of most rules, checked once when the client is initialized (the
# first buffer's check then imports and compiles nothing of its own).
WARM_SCRIPT = """\
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, random_split


class Data(torch.utils.data.Dataset):
    def __init__(self):
        self.rng = np.random.default_rng()


def main(args):
    train, test = random_split(Data(), [8, 2])
    loader = DataLoader(train, shuffle=True, num_workers=args.workers)
    torch.cuda.manual_seed(random.randint(0, 9))
    return loader


if __name__ == "__main__":
    main(None)
"""


@dataclass
class Linted:
    """One buffer's check, for the version of the buffer it was made from."""

    uri: str
    version: Optional[int]
    text: str
    raw: bytes
    display: str
    settings: Optional[Settings]  # None: the configuration could not be read
    findings: list[Finding]  # without their fixes (see :meth:`fixed`)
    lines: list[str]  # the buffer's lines, without their endings (rows as Python counts them)
    checked: Optional[Checked] = field(default=None, repr=False)  # its facts: for fix infos
    # The project index its findings were checked with (None: the buffer alone decides them).
    index: Optional[ProjectIndex] = field(default=None, repr=False)
    # The project's loader names that no loader word finds, checked with (see run.loader_names).
    loaders: frozenset[str] = field(default=frozenset(), repr=False)
    _flagged: dict[int, Flagged] = field(default_factory=dict, repr=False)  # by id(finding)
    notebook: Optional[str] = None  # a notebook cell's: the notebook's uri
    _fixed: dict[int, Finding] = field(default_factory=dict, repr=False)
    _edits: dict[Identity, tuple[Edit, ...]] = field(default_factory=dict, repr=False)
    _ids: dict[Identity, int] = field(default_factory=dict, repr=False)  # -> _flagged's key
    _cells: Optional[dict[int, tuple[bool, list[tuple[int, int]]]]] = field(
        default=None, repr=False
    )

    @property
    def ipynb_text(self) -> bool:
        """A notebook's JSON, open as text: its findings count rows in their cells (a cell
        synced as a notebook document is not one)."""
        return self.notebook is None and self.display.endswith(".ipynb")

    def file_position(self, cell: int, row: int, col: int) -> tuple[int, int]:
        """A notebook finding's cell row and column as the buffer's 1-based row and 0-based
        column (the line of the JSON that holds the cell's line)."""
        if self._cells is None:
            try:
                self._cells = cell_lines_in_file(self.text)
            except (ValueError, IndexError):
                self._cells = {}
        line, column = file_position(self._cells, cell, row, col)
        return line, column - 1

    def keep(self, checked: Checked, flagged: Optional[dict[int, Flagged]] = None) -> None:
        """Keep the check's facts and violations, for :meth:`fixed` (``flagged``: by the id of
        each finding as the buffer has it, a notebook cell's)."""
        self.checked = checked
        if flagged is None:
            flagged = {id(item.finding): item for item in checked.flagged}
        self._flagged = flagged
        self._ids = {identity(item.finding): key for key, item in flagged.items()}

    @property
    def flagged(self) -> list[Flagged]:
        """The check's violations, one per finding (none once the facts are released)."""
        return list(self._flagged.values())

    @property
    def holds_facts(self) -> bool:
        return self.checked is not None and self.checked.facts is not None

    @property
    def released(self) -> bool:
        """Whether fix infos can no longer be worked out (the facts were released)."""
        return bool(self._flagged) and (self.checked is None or self.checked.facts is None)

    def release(self) -> None:
        """Free the facts (their reference cycles broken)."""
        if self.checked is not None:
            self.checked.release()

    def fixed(self, finding: Finding) -> Finding:
        """``finding`` with its fix (title, safe or not, applied by ``--fix``), as ``seedlint
        check`` reports it; worked out once, from the kept facts."""
        key = id(finding)
        done = self._fixed.get(key)
        if done is None:
            flagged = self._flagged.get(key)
            facts = self.checked.facts if self.checked is not None else None
            if flagged is None or facts is None or self.settings is None:
                done = finding
            else:
                chosen = selection(self.settings)
                done = with_fix(finding, flagged.rule, flagged.violation, facts, chosen)
            self._fixed[key] = done
        return done

    def fixable_check(self) -> Optional[Checked]:
        """The kept check as ``--fix`` makes it (each finding with its fix), for the fixer to
        start from instead of checking the buffer again; None once the facts are released."""
        checked = self.checked
        if checked is None or checked.facts is None or self.settings is None:
            return None
        flagged = [
            Flagged(item.rule, item.violation, self.fixed(finding))
            for finding, item in ((f, self._flagged.get(id(f))) for f in self.findings)
            if item is not None
        ]
        if len(flagged) != len(checked.flagged):
            return None  # findings the buffer has that no violation of the check made
        return replace(checked, findings=[item.finding for item in flagged], flagged=flagged)

    def edits(self, findings: Sequence[Finding]) -> dict[Identity, tuple[Edit, ...]]:
        """The fixes' edits of ``findings``, each computed once per version (with libcst, only
        for the findings a client asks about: a long file may have hundreds)."""
        wanted = {identity(f) for f in findings if f.fix is not None} - set(self._edits)
        if wanted and self.settings is not None and self.notebook is None and self.holds_facts:
            assert self.checked is not None
            chosen = [
                Flagged(flagged.rule, flagged.violation, finding)
                for finding in findings
                if identity(finding) in wanted
                and (flagged := self._flagged.get(self._ids.get(identity(finding), -1))) is not None
            ]
            with activated(self.index), project_loaders_set(self.loaders):
                found = edits_of(
                    self.raw, self.display, self.settings, self.checked, chosen, window_lines=0
                )
            for key in wanted:
                self._edits[key] = found.get(key, ())
        elif wanted and self.settings is not None:
            with activated(self.index), project_loaders_set(self.loaders):
                # A notebook cell's findings count rows in their cell, edits_for's ``only``
                # the program's: a cell's fixes are computed for the whole notebook at once.
                only = None if self.notebook is not None else wanted
                found = edits_for(self.raw, self.display, self.settings, only=only, window_lines=0)
            for key in wanted:
                self._edits[key] = found.get(key, ())
        return self._edits


class Projects:
    """The project index of each open buffer whose findings may depend on its project, built
    as ``seedlint check`` builds it for one file (from the project's root, parsing on demand
    what the buffer's questions need, the buffer's own summary from its text) and kept while
    the buffer's summary and the project's files stay as they were."""

    def __init__(self, resolver: SettingsResolver) -> None:
        self.resolver = resolver
        self.setups: dict[Path, ProjectSetup] = {}
        self.indexes: dict[str, tuple[ModuleSummary, ProjectIndex]] = {}  # by buffer path

    def index_for(self, path: str, settings: Settings, summary: ModuleSummary) -> ProjectIndex:
        kept = self.indexes.get(path)
        if kept is not None and kept[0] == summary:
            return kept[1]
        setup = self._setup(find_root(Path(path)), settings)
        targets = selection(settings).options.all_dataloader_classes
        index = setup.build([path], {path: summary}, [path], targets)
        self.indexes[path] = (summary, index)
        return index

    def hidden_loaders(self, path: str, settings: Settings) -> frozenset[str]:
        """The buffer's project's loader names that no loader word finds (see
        ``run.loader_names``), found once per project (again after a file changed)."""
        return self._setup(find_root(Path(path)), settings).hidden_loaders(path)

    @staticmethod
    def prepare(path: Path, folder: Path) -> None:
        """The project of ``path`` read once ahead (what its files bind, summarised and kept
        in the process by their stat keys), by a setup and settings of its own that are then
        dropped: the first buffer's setup walks the files again and reads only those new or
        changed since, with the configuration as it is then (files and configurations written
        after the server started are seen, as without this)."""
        resolver = SettingsResolver({}, check=check_selectors)
        settings = resolver.for_path(path)
        if settings.config_file is None:
            settings = replace(settings, root=folder)
        ProjectSetup(resolver, settings, None, 1, find_root(path)).hidden_loaders()

    def bound(self, path: str, settings: Settings, summary: ModuleSummary) -> None:
        """What the buffer at ``path`` binds, as its text is now (its project's loader names
        follow it)."""
        self._setup(find_root(Path(path)), settings).bound(os.path.normpath(path), summary)

    def _setup(self, root: Path, settings: Settings) -> ProjectSetup:
        setup = self.setups.get(root)
        if setup is None:
            # No cache folder: an editor's server writes nothing into the project; what it
            # summarised stays in memory for the session.
            setup = self.setups[root] = ProjectSetup(self.resolver, settings, None, 1, root)
        return setup

    def files_changed(self) -> None:
        """A file changed on disk (saved, created, deleted): every index is built again when
        next asked for, and each project's files are looked at again (the summaries stay,
        kept by stat key and content)."""
        self.indexes.clear()
        for setup in self.setups.values():
            setup.forget_files()

    def closed(self, path: str) -> None:
        self.indexes.pop(path, None)


class SeedlintServer(LanguageServer):
    def __init__(self) -> None:
        # Full sync: the client sends the whole buffer, so rows always count lines as Python
        # does (pygls' incremental sync splits at form feeds and other `str.splitlines` breaks).
        super().__init__(
            "seedlint",
            __version__,
            types.TextDocumentSyncKind.Full,
            notebook_document_sync=NOTEBOOK_SYNC,
        )
        self.debounce = DEBOUNCE_S
        self.resolver = SettingsResolver({}, check=check_selectors)
        self.rooted: dict[tuple[int, str], Settings] = {}
        self.detecting: dict[int, tuple[Settings, Settings]] = {}
        self.linted: dict[str, Linted] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.last_change: dict[str, float] = {}
        self.shown_errors: set[str] = set()
        self.projects = Projects(self.resolver)
        # Whether the client resolves a code action's edit (``codeAction/resolve``): then code
        # actions carry no edits, which are computed only for the action the user picks.
        self.lazy_edits = False
        self.warmed = False
        self.settings_stamps: dict[Path, tuple[tuple[str, int, int], ...]] = {}
        self.settings_tops: dict[Path, Optional[Path]] = {}

    # -- settings ------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read every configuration file again (one changed) and check the open buffers."""
        self.resolver = SettingsResolver({}, check=check_selectors)
        self.projects = Projects(self.resolver)
        self.rooted.clear()
        self.detecting.clear()
        self.shown_errors.clear()
        self.settings_stamps.clear()
        self.settings_tops.clear()
        for uri in list(self.linted):
            self.lint(uri, again=True)

    def settings_changed(self, path: Path) -> bool:
        """Whether a settings file (``pyproject.toml``, ``seedlint.toml``, ``ruff.toml``...) in
        the folders above ``path`` changed, appeared or went since the last check of a buffer
        there: the server reads them again by itself, whether or not the client reports file
        changes (Neovim 0.7 and eglot do not watch files). A few ``stat`` calls per check: up
        to the folder of the configuration the settings come from (and of the one the line
        length comes from), above which no file can change them while those stay as they are
        (a change to either reloads the settings, and the folders are found again)."""
        folder = path.parent
        if folder not in self.settings_tops:
            self.settings_tops[folder] = self.settings_top(path)
        top = self.settings_tops[folder]
        stamps = []
        for directory in (folder, *folder.parents):
            for name in SETTINGS_FILES:
                candidate = directory / name
                try:
                    stat = candidate.stat()
                except OSError:
                    continue
                stamps.append((str(candidate), stat.st_mtime_ns, stat.st_size))
            if directory == top:
                break
        stamp = tuple(stamps)
        previous = self.settings_stamps.get(folder)
        self.settings_stamps[folder] = stamp
        return previous is not None and previous != stamp

    def settings_top(self, path: Path) -> Optional[Path]:
        """The highest folder whose settings files the settings of ``path`` come from (its
        seedlint configuration's, its line length's); None when either is found in no file
        (a file may appear in any folder above)."""
        try:
            config = self.resolver.for_path(path).config_file
        except ConfigError:
            return None
        line_length = find_line_length_file(path.parent)
        if config is None or line_length is None:
            return None
        folders = (Path(os.path.abspath(config.parent)), Path(os.path.abspath(line_length.parent)))
        return min(folders, key=lambda folder: len(folder.parts))

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

    def detection(self, settings: Settings) -> Settings:
        """``settings`` with no fixable rule: the check then finds the same findings and
        leaves their fixes to :meth:`Linted.fixed` (half the cost of a check, for every
        finding, when no client asked)."""
        found = self.detecting.get(id(settings))
        if found is None or found[0] is not settings:
            found = self.detecting[id(settings)] = (settings, replace(settings, fixable=()))
        return found[1]

    # -- diagnostics ---------------------------------------------------------------------------
    def schedule(self, uri: str) -> None:
        """Check the buffer for a change: at once when its previous change, or the check made
        at once for it, is at least the debounce pause old (a keystroke after a pause), else
        after the pause (a newer change restarts it: a burst of typing is checked once when it
        stops, however long each check takes)."""
        now = time.monotonic()
        previous = self.last_change.get(uri)
        self.last_change[uri] = now
        self.cancel(uri)
        if self.debounce <= 0 or previous is None or now - previous >= self.debounce:
            self.lint(uri)
            # The changes that came during the check are a burst: the pause counts from now.
            self.last_change[uri] = time.monotonic()
            return
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(self.debounce, self.lint, uri)

    def cancel(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()

    def lint(self, uri: str, again: bool = False) -> None:
        """Check the buffer now and publish its diagnostics; never raises. A buffer whose text
        is the one checked last is not checked again (``again``: it is, the settings changed)."""
        self.pending.pop(uri, None)
        notebook = self.workspace.get_notebook_document(notebook_uri=uri, cell_uri=uri)
        if notebook is not None:  # the notebook itself, or one of its cells
            self.lint_notebook(notebook.uri)
            return
        # The collector paused until the diagnostics are out: the check's tree, kept for the
        # code actions, is young, and the first collections after the check would scan all of
        # it while the diagnostics are converted and sent (they come after them instead).
        with collector_paused():
            self.lint_text(uri, again)

    def lint_text(self, uri: str, again: bool) -> None:
        """:meth:`lint` of a text buffer."""
        done: list[Linted] = []  # checks whose facts are released once the diagnostics are out
        try:
            document = self.workspace.get_text_document(uri)
            if not checkable(document):
                return
            path = document_path(uri, self)
            if path.is_absolute() and self.settings_changed(path):
                self.reload()  # checks the open buffers again, this one among them
                if uri in self.linted:
                    return
            previous = self.linted.get(uri)
            if (
                not again
                and previous is not None
                and not previous.released
                and previous.text == document.source
            ):
                previous.version = document.version
                linted = previous
            else:
                linted = self.check(document)
                if previous is not None:
                    done.append(previous)
                done.extend(self.keep(uri, linted))
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
        for old in done:
            old.release()
        self.warm()

    def prepare_projects(self) -> None:
        """Each workspace folder's project read while the editor opens nothing yet (the
        project's files that may define a loader class, summarised: :meth:`Projects.prepare`),
        which the first buffer's check would otherwise wait for; a folder in no project (no
        root marker at or above it, below the home folder) is not read; never raises."""
        for folder in list(self.workspace.folders.values()):
            folder_path = to_fs_path(folder.uri)
            if folder_path is None or not Path(folder_path).is_dir():
                continue
            if project_root(Path(folder_path)) is None:
                continue  # no project (a home folder, `/`): each buffer's own folder is one
            probe = Path(folder_path) / "__init__.py"  # a file of the folder, for its settings
            try:
                self.projects.prepare(probe, Path(folder_path))
            except Exception:  # a broken configuration, an unreadable folder: said at the check
                log.debug("seedlint could not prepare %s", folder_path, exc_info=True)
        try:  # what a first check imports and compiles once, done on a script of its own
            check_text(WARM_SCRIPT, "warm.py", Settings())
        except Exception:
            log.debug("seedlint could not warm its check", exc_info=True)

    def warm(self) -> None:
        """Once the first diagnostics are out: libcst (the fixes) imported in the background,
        so that the first quick fix costs its edits only (not an import of a second), and the
        first diagnostics do not share the interpreter with that import."""
        if not self.warmed:
            self.warmed = True
            threading.Thread(target=warm_fixes, name="seedlint-warm", daemon=True).start()

    # -- notebooks (LSP 3.17 notebook document sync) --------------------------------------------
    def lint_notebook(self, uri: str) -> None:
        """Check a notebook's code cells as one program (as ``seedlint check`` checks an
        ``.ipynb``) and publish each cell's diagnostics on the cell; never raises."""
        self.pending.pop(uri, None)
        published: list[types.PublishDiagnosticsParams] = []
        try:
            for cell, linted in self.check_notebook(uri):
                self.keep(cell.document, linted)
                diagnostics = [self.diagnostic(linted, f) for f in linted.findings]
                published.append(
                    types.PublishDiagnosticsParams(cell.document, diagnostics, linted.version)
                )
        except Exception as error:  # a bug in seedlint: say so, and keep serving
            log.exception("seedlint failed on %s", uri)
            self.window_log_message(
                types.LogMessageParams(
                    types.MessageType.Error,
                    f"seedlint: internal error on {uri}: {type(error).__name__}: {error}",
                )
            )
            return
        for params in published:
            self.text_document_publish_diagnostics(params)
        self.warm()

    def check_notebook(self, uri: str) -> list[tuple[types.NotebookCell, Linted]]:
        """One :class:`Linted` per cell of the notebook (its findings, rows in the cell), all
        from one check of the notebook's program."""
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is None:
            return []
        cells: list[dict[str, Any]] = []
        documents: list[TextDocument] = []
        for cell in notebook.cells:
            document = self.workspace.get_text_document(cell.document)
            documents.append(document)
            code = cell.kind == types.NotebookCellKind.Code and document.language_id == "python"
            cells.append(
                {
                    "cell_type": "code" if code else "markdown",
                    "metadata": {},
                    "source": document.source,
                    **({"outputs": [], "execution_count": None} if code else {}),
                }
            )
        data = {
            "cells": cells,
            "metadata": {"language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        raw = json.dumps(data).encode("utf-8")
        path = document_path(uri, self)
        display = str(path)
        per_cell: list[tuple[types.NotebookCell, Linted]] = []
        for cell, document in zip(notebook.cells, documents):
            text = document.source
            lines = [line.rstrip("\r\n") for line in split_lines(text)]
            linted = Linted(cell.document, document.version, text, raw, display, None, [], lines)
            linted.notebook = uri
            per_cell.append((cell, linted))
        try:
            settings = self.settings_for(path)
        except ConfigError as error:
            if per_cell:
                message = f"invalid seedlint configuration: {error}"
                per_cell[0][1].findings = [InvalidFile.finding(display, message)]
            return per_cell
        if settings.force_exclude and is_excluded(path, settings):
            return per_cell
        try:
            program = read_document(raw, display)
        except DocumentError:
            return per_cell
        if not isinstance(program, NotebookDocument) or not program.checkable:
            return per_cell
        with collector_paused():
            checked = check_text(program.text, display, self.detection(settings), program.source)
        by_id = {id(item.finding): item for item in checked.flagged}
        found: dict[int, list[tuple[Finding, Optional[Flagged]]]] = {}
        for finding in checked.findings:
            located = program.locate(finding)
            found.setdefault(located.cell or 1, []).append((located, by_id.get(id(finding))))
        for index, (_, linted) in enumerate(per_cell, 1):
            here = found.get(index, [])
            linted.settings = settings
            linted.findings = [located for located, _ in here]
            linted.keep(checked, {id(f): item for f, item in here if item is not None})
        return per_cell

    def notebook_closed(self, notebook: types.NotebookDocumentIdentifier) -> None:
        for uri, linted in list(self.linted.items()):
            if linted.notebook == notebook.uri:
                self.cancel(uri)
                self.linted.pop(uri, None)
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
        self.cancel(notebook.uri)

    def keep(self, uri: str, linted: Linted) -> list[Linted]:
        """Make ``linted`` the buffer's check; returns the checks of the least recently checked
        buffers beyond :data:`KEPT_FACTS`, whose facts are to be released (their code actions
        check them again)."""
        self.linted.pop(uri, None)
        self.linted[uri] = linted  # the dict's order: least recently checked first
        holding = [known for known in self.linted.values() if known.holds_facts]
        return holding[: max(len(holding) - KEPT_FACTS, 0)]

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
        detection = self.detection(settings)
        # A saved file's project is the one above it; an unsaved buffer (`untitled:`) belongs
        # to no project: none is looked for, none walked (its name is made up, in a workspace
        # folder that may be `/`).
        in_project = document.uri.startswith("file:") and Path(display).is_absolute()
        if in_project:
            linted.loaders = self.projects.hidden_loaders(display, settings)
        with project_loaders_set(linted.loaders), collector_paused():
            # (see findings_of: the tree's allocations, scanned for nothing)
            checked = check_bytes(raw, display, detection)
            index = self.project_index(display, raw, settings, checked) if in_project else None
            if index is not None:  # the project changes the buffer's answers: check with it
                checked.release()
                with activated(index):
                    checked = check_bytes(raw, display, detection)
                linted.index = index
        linted.findings = checked.findings
        linted.keep(checked)
        return linted

    def project_index(
        self, display: str, raw: bytes, settings: Settings, checked: Checked
    ) -> Optional[ProjectIndex]:
        """The buffer's project index, when its answers differ from the buffer's own (as
        ``seedlint check`` decides for a file); None when the buffer alone decides."""
        facts = checked.facts
        if facts is None or not Path(display).is_absolute():
            return None
        # A buffer naming a loader class of its project that no loader word finds: its
        # summary from its tree whatever its words, and its project asked.
        named = names_project_loader(raw)
        if named or loader_in_code(raw, facts.options):  # what the buffer binds now
            self.projects.bound(display, settings, summarize(facts))
        if not named and (not needs_tree(raw) or not may_need_project(facts)):
            return None  # no summary to compute at this change: most buffers need none
        summary = summarize(facts)
        if not needs_project(summary) and not named:
            return None
        index = self.projects.index_for(display, settings, summary)
        return index if project_decides(index, display, display, summary) else None

    def position(self, linted: Linted, row: int, col: int) -> types.Position:
        """An LSP position (client units) from a 1-based row and a character column."""
        line = row - 1
        if line >= len(linted.lines):
            return types.Position(max(line, 0), 0)
        text = linted.lines[line][:col]
        if text.isascii():  # one code unit per character in UTF-8, UTF-16 and UTF-32
            return types.Position(line, len(text))
        return types.Position(line, self.workspace.position_codec.client_num_units(text))

    def range(self, linted: Linted, row: int, col: int, end_row: int, end_col: int) -> types.Range:
        return types.Range(self.position(linted, row, col), self.position(linted, end_row, end_col))

    def diagnostic(self, linted: Linted, finding: Finding) -> types.Diagnostic:
        data: dict[str, Any] = {"noqa_rows": list(finding.noqa_rows)}
        where = (finding.row, finding.col, finding.end_row, finding.end_col)
        message = finding.message
        if finding.cell is not None and linted.ipynb_text:  # rows in the JSON that hold the cell
            row, col = linted.file_position(finding.cell, finding.row, finding.col)
            end_row, end_col = linted.file_position(finding.cell, finding.end_row, finding.end_col)
            where = (row, col, end_row, end_col) if end_row == row else (row, col, row, col)
            message = f"cell {finding.cell}:{finding.row}:{finding.col + 1}: {message}"
        return types.Diagnostic(
            range=self.range(linted, *where),
            message=message,
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
        if (
            linted is None
            or linted.version != document.version
            or linted.text != document.source
            or linted.released
        ):
            self.cancel(uri)
            self.lint(uri)
            linted = self.linted.get(uri)
        return linted

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """The actions for the findings in the range. What each fix is (its title) comes from
        the kept facts; its edits are left to :meth:`resolve` when the client resolves them
        (:attr:`lazy_edits`), else computed for these findings only. Fix-all is offered
        without its edits to such a client, and computed for the others only when they ask
        for it by kind (``source.fixAll``), never for the requests an editor sends at every
        cursor move."""
        linted = self.current(params.text_document.uri)
        if linted is None:
            return []
        only = params.context.only
        first, last = params.range.start.line + 1, params.range.end.line + 1
        here = [linted.fixed(f) for f in linted.findings if f.row <= last and f.end_row >= first]
        actions: list[types.CodeAction] = []
        if linted.ipynb_text:  # rows count in cells, not in the JSON: only the whole-file fix
            here = []
        if wanted(types.CodeActionKind.QuickFix, only):
            actions.extend(self.quick_fixes(linted, here))
            actions.extend(self.noqa_actions(linted, here))
        if wanted(FIX_ALL, only) and linted.notebook is None and may_fix(linted):
            if self.lazy_edits:
                actions.append(self.fix_all_action(linted, None))
            elif only:  # asked for by kind: what --fix does, now
                fix_all = self.fix_all(linted)
                if fix_all is not None:
                    actions.append(fix_all)
        return actions

    def resolve(self, action: types.CodeAction) -> types.CodeAction:
        """The edit of a code action offered without one (:meth:`code_actions`), for the
        buffer's version it was offered for; a stale one (the buffer changed since) is
        returned as it came, without an edit."""
        data = action.data
        if action.edit is not None or not isinstance(data, dict):
            return action
        uri = data.get("uri")
        linted = self.current(uri) if isinstance(uri, str) else None
        if linted is None or linted.version != data.get("version"):
            return action
        with collector_paused():  # libcst's many objects: no collection scans them as made
            return self._resolved(action, linted, data)

    def _resolved(
        self, action: types.CodeAction, linted: Linted, data: dict[str, Any]
    ) -> types.CodeAction:
        if data.get("fixAll"):
            fixed = self.fix_all(linted)
            action.edit = fixed.edit if fixed is not None else types.WorkspaceEdit(changes={})
            return action
        key = data.get("fix")
        if not isinstance(key, list):
            return action
        wanted_key = tuple(key)
        for finding in linted.findings:
            if identity(finding) == wanted_key:
                edits = linted.edits([linted.fixed(finding)]).get(identity(finding))
                if edits:
                    action.edit = self.workspace_edit(linted, edits)
                break
        return action

    def workspace_edit(self, linted: Linted, edits: Iterable[Edit]) -> types.WorkspaceEdit:
        text_edits = [
            types.TextEdit(self.range(linted, e.row, e.col, e.end_row, e.end_col), e.content)
            for e in edits
        ]
        return types.WorkspaceEdit(changes={linted.uri: text_edits})

    def quick_fixes(self, linted: Linted, findings: list[Finding]) -> list[types.CodeAction]:
        """One quick fix per finding that has a fix: the preferred action of its diagnostic
        when the fix is safe (an unsafe one is offered, titled so, and never preferred)."""
        actions = []
        known = {} if self.lazy_edits else linted.edits(findings)
        for finding in findings:
            if finding.fix is None:
                continue
            edits = known.get(identity(finding))
            if not self.lazy_edits and not edits:
                continue
            label = "" if finding.fix.safe else " (unsafe fix: check the result)"
            actions.append(
                types.CodeAction(
                    title=f"{finding.fix.message} ({finding.code}){label}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[self.diagnostic(linted, finding)],
                    is_preferred=finding.fix.safe,
                    edit=self.workspace_edit(linted, edits) if edits else None,
                    data={
                        "uri": linted.uri,
                        "version": linted.version,
                        "fix": list(identity(finding)),
                    },
                )
            )
        return actions

    def noqa_actions(self, linted: Linted, findings: list[Finding]) -> list[types.CodeAction]:
        actions = []
        done: set[tuple[str, int]] = set()
        for finding in findings:
            row = noqa_row(linted.text, linted.lines, finding, statement_rows(linted, finding))
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

    def fix_all_action(
        self, linted: Linted, edit: Optional[types.WorkspaceEdit]
    ) -> types.CodeAction:
        return types.CodeAction(
            title=FIX_ALL_TITLE,
            kind=FIX_ALL,
            edit=edit,
            data={"uri": linted.uri, "version": linted.version, "fixAll": True},
        )

    def fix_all(self, linted: Linted) -> Optional[types.CodeAction]:
        """What ``--fix`` would do to the buffer (with ``--unsafe-fixes`` when the settings say
        ``unsafe-fixes = true``), as the smallest edits. libcst parses only the statements the
        fixes change (a window, whatever the buffer's size), the imports and the first one."""
        settings = linted.settings
        if settings is None:
            return None
        # (a notebook's findings are in its cells' rows: its fixes are known by fixing it)
        if not linted.ipynb_text and not any(linted.fixed(f).fixable for f in linted.findings):
            return None
        first = linted.fixable_check() if not linted.ipynb_text else None
        with activated(linted.index), project_loaders_set(linted.loaders):
            fixed = fix_bytes(linted.raw, linted.display, settings, settings.unsafe_fixes, 0, first)
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
        return self.fix_all_action(linted, self.workspace_edit(linted, minimal_edits(old, new)))


# -- helpers -----------------------------------------------------------------------------------
def checkable(document: TextDocument) -> bool:
    name = document.uri.rsplit("/", 1)[-1]
    if name.endswith(".ipynb"):
        return True  # its JSON, open as text: each finding on the line that holds its cell's
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


def may_fix(linted: Linted) -> bool:
    """Whether a finding of the buffer may have a fix that fix-all applies (its rule has fixes
    and is fixable): cheap, so that fix-all can be offered before anything is computed."""
    settings = linted.settings
    if settings is None:
        return False
    fixable = selection(settings).fixable
    return any(
        flagged.rule.code in fixable and flagged.rule.fix_availability is not FixAvailability.NONE
        for flagged in linted.flagged
    )


def warm_fixes() -> None:
    try:
        # libcst, and the fix toolkit (plain imports: the source never imports by a computed name)
        import seedlint.fixes.context
        import seedlint.fixes.edits
        import seedlint.fixes.transform  # noqa: F401
    except Exception:  # nothing depends on it: the fix imports them itself
        log.exception("seedlint: importing the fixes in the background failed")


def resolves_edits(capabilities: types.ClientCapabilities) -> bool:
    """Whether the client resolves a code action's ``edit`` and sends its ``data`` back."""
    text = capabilities.text_document
    action = text.code_action if text is not None else None
    if action is None or not action.data_support or action.resolve_support is None:
        return False
    return "edit" in action.resolve_support.properties


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


def statement_rows(linted: Linted, finding: Finding) -> Optional[set[int]]:
    """:func:`_string_rows` of the top-level statement that holds ``finding`` (a top-level
    statement starts the tokenizer afresh): a code action tokenizes that statement, not the
    whole buffer. None when the tree is gone (the caller tokenizes the buffer)."""
    facts = linted.checked.facts if linted.checked is not None else None
    if facts is None or linted.notebook is not None:
        return None
    body = facts.tree.body
    starts = [min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))]) for s in body]
    index = bisect.bisect_right(starts, finding.row) - 1
    if index < 0:
        return None
    first, last = starts[index], body[index].end_lineno or finding.end_row
    if last < finding.end_row:
        return None
    segment = "".join(split_lines(linted.text)[first - 1 : last])
    return {row + first - 1 for row in _string_rows(segment)}


def noqa_row(
    text: str, lines: list[str], finding: Finding, blocked: Optional[set[int]] = None
) -> Optional[int]:
    """The row whose ``# noqa`` silences ``finding`` and can take one, if any (``blocked``:
    the text's :func:`_string_rows`, when known)."""
    candidates = [r for r in (finding.noqa_rows or (finding.row,)) if 1 <= r <= len(lines)]
    if not candidates:
        return None
    if blocked is None:
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
        ls.lazy_edits = resolves_edits(params.capabilities)

    @server.feature(types.INITIALIZED)
    def initialized(ls: SeedlintServer, params: types.InitializedParams) -> None:
        # once this notification is handled, before any buffer is opened (no loop running: a
        # test calling the handler)
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_soon(ls.prepare_projects)
        capability = ls.client_capabilities.workspace
        watched = capability.did_change_watched_files if capability else None
        if watched is None or not watched.dynamic_registration:
            return
        # Configuration files (settings), and Python files: a helper or a caller changed,
        # created or deleted outside the editor changes the project index's answers.
        names = [*SETTINGS_FILES, "*.py"]
        watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in names]
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
        if uri.rsplit("/", 1)[-1] in SETTINGS_FILES:
            ls.reload()
            return
        ls.projects.files_changed()  # the other buffers' projects may hold this file
        ls.cancel(uri)
        ls.lint(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SeedlintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.cancel(uri)
        ls.last_change.pop(uri, None)
        linted = ls.linted.pop(uri, None)
        if linted is not None:
            ls.projects.closed(linted.display)
            linted.release()
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: SeedlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.lint_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: SeedlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(ls: SeedlintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.cancel(params.notebook_document.uri)
        ls.lint_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: SeedlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.notebook_closed(params.notebook_document)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: SeedlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(change.uri.rsplit("/", 1)[-1] in SETTINGS_FILES for change in params.changes):
            ls.reload()
        elif any(change.uri.endswith(PYTHON_SUFFIXES) for change in params.changes):
            ls.projects.files_changed()

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True
        ),
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

    @server.feature(types.CODE_ACTION_RESOLVE)
    def code_action_resolve(ls: SeedlintServer, params: types.CodeAction) -> types.CodeAction:
        try:
            return ls.resolve(params)
        except Exception as error:  # a bug in seedlint: the action as it came
            log.exception("seedlint code action resolve failed")
            ls.window_log_message(
                types.LogMessageParams(
                    types.MessageType.Error,
                    f"seedlint: internal error resolving a code action: "
                    f"{type(error).__name__}: {error}",
                )
            )
            return params

    return server


def main() -> int:
    """Serve over standard input and output until the client says exit."""
    build().start_io()
    return 0


__all__ = ["FIX_ALL", "SeedlintServer", "build", "main"]
