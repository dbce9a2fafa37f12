"""The flake8 plugin: seedlint's rules as flake8 ``RNG`` codes, for editors that run flake8.

Registered under the ``flake8.extension`` entry-point group with the prefix ``RNG`` (see
``pyproject.toml``), so installing seedlint installs the plugin, and flake8 turns it on by
default (users who pass ``--select`` add ``--extend-select=RNG``).

The findings, positions and messages are the ones ``seedlint check`` reports for the same file
and the same ``[tool.seedlint]`` rule options (``dataloader-classes``, ``capture-contexts``,
``seed-functions``), found from the file's folder as the CLI finds them. Selection, ``# noqa``
and per-file ignores are flake8's business here, so seedlint's own are not applied, with one
exception: flake8 reads ``# noqa`` only on the line it reports, while ``seedlint check`` also
honours it on the last line of a multi-line flagged call. The plugin drops such a finding itself,
so both report the same findings.

Cost: a file that contains none of the words a rule needs (nor a name its project binds to one
of its loader classes, see ``run.loader_names``) is skipped before any work, and the
detection runs on the tree flake8 has already parsed (the file is never parsed twice).

RNG004 and the loader rules are decided across the project's modules, as the CLI decides them:
the file is checked on its own first; only when its findings may depend on the project (its
summary says so) is the project index built, from the same summary cache as the CLI's
(``SEEDLINT_CACHE_DIR``, the ``cache-dir`` setting, else ``.seedlint_cache``;
``SEEDLINT_NO_CACHE`` turns it off), with this file's summary taken from the tree flake8
parsed; and the file is checked again with it only when the project's answers differ from its
own. Its findings equal the CLI's.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

from seedlint import __version__
from seedlint.config import ConfigError, Settings, SettingsResolver
from seedlint.core import Finding
from seedlint.documents.notebook import cell_lines_in_file, file_position
from seedlint.engine.check import REPORT, Checked, check_bytes, check_text, collector_paused
from seedlint.engine.deep import deeply
from seedlint.engine.noqa import line_suppresses
from seedlint.engine.selection import check_selectors, selection
from seedlint.prefilter.words import loader_in_code, names_project_loader, set_project_loaders
from seedlint.project.index import activate, needs_project, project_decides
from seedlint.project.layout import find_root
from seedlint.project.summary import needs_tree, summarize
from seedlint.run.cache import cache_folder
from seedlint.run.notices import warn
from seedlint.run.summaries import ProjectSetup

# flake8 reads stdin under one of these names unless --stdin-display-name gives a real one.
_STDIN_NAMES = frozenset({"-", "stdin", "<stdin>"})

Result = tuple[int, int, str, type[Any]]


class _Context:
    """Settings per folder, kept for the whole run."""

    def __init__(self) -> None:
        self.resolver: Optional[SettingsResolver] = None
        self.adapted: dict[int, tuple[Settings, Settings]] = {}
        self.setups: dict[Path, ProjectSetup] = {}
        self.roots: dict[str, Path] = {}  # a file's folder -> its project's root

    def setup_for(self, filename: str, settings: Settings) -> ProjectSetup:
        """The file's project (its root, summary cache and walk), kept for the flake8 process."""
        stdin = filename in _STDIN_NAMES
        where = os.getcwd() if stdin else os.path.dirname(os.path.abspath(filename))
        root = self.roots.get(where)
        if root is None:  # found once per folder (a stat per marker and folder above it)
            root = self.roots[where] = find_root(Path(where))
        if root not in self.setups:
            assert self.resolver is not None
            cache_dir: Optional[Path] = None
            if not os.environ.get("SEEDLINT_NO_CACHE"):
                chosen = os.environ.get("SEEDLINT_CACHE_DIR")
                folder, refused = cache_folder(Path(chosen) if chosen else None, settings, [root])
                if refused is None:
                    cache_dir = folder
                else:  # it must never hold the project (its .gitignore holds `*`)
                    warn(f"the cache folder {folder} is not used: {refused}")
            setup = ProjectSetup(self.resolver, settings, cache_dir, 1, root, shared=True)
            self.setups[root] = setup
        return self.setups[root]

    def settings_for(self, filename: str) -> Settings:
        if self.resolver is None:
            self.resolver = SettingsResolver({}, check=check_selectors)
        path = Path.cwd() if filename in _STDIN_NAMES else Path(filename)
        settings = self.resolver.for_path(path)  # one object per configuration file
        found = self.adapted.get(id(settings))
        if found is None:
            # flake8 selects and suppresses; seedlint only contributes its rule options.
            # Every detection rule: RNG100 judges seedlint's own suppression, which flake8's
            # replaces (its pre-filter word, `noqa`, would only make more files parse).
            flake8_settings = replace(
                settings,
                select=("RNG0",),
                extend_select=(),
                ignore=(),
                extend_ignore=(),
                per_file_ignores=(),
            )
            found = self.adapted[id(settings)] = (settings, flake8_settings)
        return found[1]


_CONTEXT = _Context()


class SeedlintChecker:
    """A flake8 tree plugin; flake8 passes ``tree``, ``filename`` and ``lines`` by name."""

    name = "seedlint"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str, lines: Sequence[str]) -> None:
        self.tree = tree
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[Result]:
        try:
            settings = _CONTEXT.settings_for(self.filename)
        except ConfigError as error:
            yield 1, 0, f"RNG000 invalid seedlint configuration: {error}", type(self)
            return
        except (OSError, ValueError, RecursionError) as error:  # a config file we cannot read
            message = f"RNG000 invalid seedlint configuration: {type(error).__name__}: {error}"
            yield 1, 0, message, type(self)
            return
        text = "".join(self.lines)
        if self.filename.endswith(".ipynb"):
            yield from self._notebook(text, settings)
            return
        # The engine's pre-filter (Selection.may_fire), on the text flake8 has already decoded,
        # with the project's loader names that no loader word finds (as the CLI's run).
        raw = text.encode("utf-8", "surrogatepass")
        tree = self.tree if isinstance(self.tree, ast.Module) else None
        try:
            set_project_loaders(self._hidden_loaders(settings))
            if not selection(settings).may_fire(raw):
                return  # cannot have a finding: nothing else is done for this file
            findings = self._findings(text, raw, settings, tree)
        except Exception as error:  # a bug in seedlint: one finding, flake8 goes on
            message = f"RNG000 internal error: {type(error).__name__}: {error} {REPORT}"
            yield 1, 0, message, type(self)
            return
        finally:
            activate(None)
            set_project_loaders(())
        for finding in findings:
            if any(
                row != finding.row
                and 1 <= row <= len(self.lines)
                and line_suppresses(self.lines[row - 1], finding.code)
                for row in finding.noqa_rows
            ):
                continue  # silenced on the last line of a multi-line call, as the CLI reads it
            # flake8: row 1-based, column 0-based (it prints column + 1), in characters.
            yield finding.row, finding.col, f"{finding.code} {finding.message}", type(self)

    def _notebook(self, text: str, settings: Settings) -> Iterator[Result]:
        """A notebook flake8 was given as it is (``--filename '*.ipynb'``): its code cells are
        checked as ``seedlint check`` checks them (a cell that does not parse is one RNG000
        and the other cells are still checked), each finding reported at the line of the
        ``.ipynb`` that holds its cell's line, its cell and position in the cell first in the
        message (where flake8 reads ``# noqa`` too)."""
        raw = text.encode("utf-8", "surrogatepass")
        with collector_paused():
            findings = check_bytes(raw, self.filename, settings).release()
        try:
            places = cell_lines_in_file(text)
        except (ValueError, IndexError):
            places = {}
        for finding in findings:
            row, col = finding.row, finding.col
            where = ""
            if finding.cell is not None:
                row, column = file_position(places, finding.cell, finding.row, finding.col)
                col = column - 1
                where = f"cell {finding.cell}:{finding.row}:{finding.col + 1}: "
            yield row, col, f"{finding.code} {where}{finding.message}", type(self)

    def _hidden_loaders(self, settings: Settings) -> frozenset[str]:
        """The project's loader names that no loader word finds (none for standard input)."""
        if self.filename in _STDIN_NAMES:
            return frozenset()
        return _CONTEXT.setup_for(self.filename, settings).hidden_loaders(self.filename)

    def _check(self, text: str, settings: Settings, tree: Optional[ast.Module]) -> Checked:
        with collector_paused():  # as in the CLI: flake8's heap is large
            try:
                return check_text(text, self.filename, settings, tree=tree, suppress=False)
            except RecursionError:  # deep code flake8 compiled: a larger stack
                return deeply(
                    lambda: check_text(text, self.filename, settings, tree=tree, suppress=False)
                )

    def _findings(
        self, text: str, raw: bytes, settings: Settings, tree: Optional[ast.Module]
    ) -> list[Finding]:
        """The file's findings: checked on its own, then with the project index where the
        project's answers for it differ from its own (as ``run.files.check_files`` does)."""
        activate(None)
        checked = self._check(text, settings, tree)
        facts = checked.facts
        # As the CLI summarises a module: from its bytes when it needs no tree (no answer of
        # it can then depend on the project).
        named = names_project_loader(raw)
        force = named or loader_in_code(raw, selection(settings).options)
        summary = summarize(facts) if facts is not None and (force or needs_tree(raw)) else None
        findings = checked.release()
        path = os.path.abspath(self.filename)
        setup = _CONTEXT.setup_for(self.filename, settings)
        if summary is not None and summary.full:
            setup.bound(path, summary)  # what it binds (flake8's text of it)
        if summary is None or not (needs_project(summary) or (named and summary.full)):
            setup.save()
            return findings
        # This file's summary comes from flake8's tree: the project never parses it again.
        targets = selection(settings).options.all_dataloader_classes
        index = setup.build([path], {path: summary}, [path], targets)
        setup.save()
        if not project_decides(index, path, self.filename, summary):
            return findings
        activate(index)
        return self._check(text, settings, tree).release()
