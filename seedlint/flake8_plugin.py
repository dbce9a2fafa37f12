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

Cost: a file that contains none of the words a rule needs is skipped before any work, and the
detection runs on the tree flake8 has already parsed (the file is never parsed twice).

RNG004 is decided per program, across the project's modules: the plugin builds the same project
index as the CLI, once per flake8 process and project root, from the same summary cache
(``SEEDLINT_CACHE_DIR``, the ``cache-dir`` setting, else ``.seedlint_cache``;
``SEEDLINT_NO_CACHE`` turns it off), so its findings equal the CLI's.
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
from seedlint.engine.check import REPORT, check_text, collector_paused
from seedlint.engine.deep import deeply
from seedlint.engine.noqa import line_suppresses
from seedlint.engine.selection import check_selectors, selection
from seedlint.project.index import ProjectIndex, activate
from seedlint.project.layout import find_root
from seedlint.project.summary import needs_tree
from seedlint.rules import BY_CODE
from seedlint.run.summaries import build_index

# flake8 reads stdin under one of these names unless --stdin-display-name gives a real one.
_STDIN_NAMES = frozenset({"-", "stdin", "<stdin>"})

Result = tuple[int, int, str, type[Any]]


class _Context:
    """Settings per folder, kept for the whole run."""

    def __init__(self) -> None:
        self.resolver: Optional[SettingsResolver] = None
        self.adapted: dict[int, tuple[Settings, Settings]] = {}
        self.indexes: dict[Path, Optional[ProjectIndex]] = {}

    def index_for(self, filename: str, settings: Settings) -> Optional[ProjectIndex]:
        """The project index of the file's project, built once per flake8 process."""
        path = Path.cwd() if filename in _STDIN_NAMES else Path(filename)
        root = find_root(path)
        if root not in self.indexes:
            assert self.resolver is not None
            cache_dir: Optional[Path] = None
            if not os.environ.get("SEEDLINT_NO_CACHE"):
                folder = os.environ.get("SEEDLINT_CACHE_DIR") or settings.cache_dir
                cache_dir = Path(folder or ".seedlint_cache")
            self.indexes[root] = build_index([], self.resolver, settings, cache_dir, 1, root, True)
        return self.indexes[root]

    def settings_for(self, filename: str) -> Settings:
        if self.resolver is None:
            self.resolver = SettingsResolver({}, check=check_selectors)
        path = Path.cwd() if filename in _STDIN_NAMES else Path(filename)
        settings = self.resolver.for_path(path)  # one object per configuration file
        found = self.adapted.get(id(settings))
        if found is None:
            # flake8 selects and suppresses; seedlint only contributes its rule options.
            flake8_settings = replace(
                settings,
                select=("ALL",),
                extend_select=(),
                ignore=(),
                extend_ignore=(),
                per_file_ignores=(),
            )
            found = self.adapted[id(settings)] = (settings, flake8_settings)
        return found[1]


_CONTEXT = _Context()
_PROGRAM_RULE = BY_CODE["RNG004"]()


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
        # The engine's pre-filter (Selection.may_fire), on the text flake8 has already decoded.
        raw = text.encode("utf-8", "surrogatepass")
        if not selection(settings).may_fire(raw):
            return  # cannot have a finding: nothing else is done for this file
        tree = self.tree if isinstance(self.tree, ast.Module) else None
        try:
            # RNG004 and the loader rules consult the project: the index is built when one of
            # them may fire here (once per run and root).
            needed = _PROGRAM_RULE.may_fire(raw, selection(settings).options) or needs_tree(raw)
            activate(_CONTEXT.index_for(self.filename, settings) if needed else None)
            with collector_paused():  # as in the CLI: flake8's heap is large
                try:
                    checked = check_text(text, self.filename, settings, tree=tree, suppress=False)
                except RecursionError:  # deep code flake8 compiled: a larger stack
                    checked = deeply(
                        lambda: check_text(text, self.filename, settings, tree=tree, suppress=False)
                    )
                findings = checked.release()
        except Exception as error:  # a bug in seedlint: one finding, flake8 goes on
            message = f"RNG000 internal error: {type(error).__name__}: {error} {REPORT}"
            yield 1, 0, message, type(self)
            return
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
