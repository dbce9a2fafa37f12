"""Which files to check: the walk, ruff's default excludes, ``.gitignore``, explicit paths.

A file named on the command line is always checked (unless ``--force-exclude``); directories
are walked for ``include`` globs, skipping ``exclude``/``extend-exclude`` and, by default, what
``.gitignore``, ``.ignore`` and ``.git/info/exclude`` ignore. Symbolic links to folders are not
followed, and a linked file whose target lies outside the folder being walked is skipped, so a
walk never leaves the tree it was given.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    import pathspec

from seedlint.config import (
    CONFIG_FILES,
    FORMATTER_FILES,
    ConfigError,
    Settings,
    SettingsResolver,
    path_matches,
)
from seedlint.core.files import NotRegularFile, not_regular, read_regular
from seedlint.run.notices import warn

# A folder holding one of these may change the settings or the ignores of what it holds.
_FOLDER_MARKERS = frozenset({*CONFIG_FILES, *FORMATTER_FILES, ".gitignore", ".ignore", ".git"})


@dataclass(frozen=True)
class Candidate:
    path: Path
    settings: Settings
    problem: Optional[str] = None  # a file that cannot be read: reported as RNG000


class _Ignores:
    """The ignore files that apply to one folder, from the walk's root down."""

    def __init__(self, specs: tuple[tuple[Path, pathspec.PathSpec[Any]], ...] = ()) -> None:
        self.specs = specs

    def child(self, directory: Path) -> _Ignores:
        lines: list[str] = []
        for name in (".gitignore", ".ignore"):
            lines.extend(_ignore_lines(directory / name))
        if (directory / ".git").is_dir():
            lines.extend(_ignore_lines(directory / ".git" / "info" / "exclude"))
        if not lines:
            return self
        import pathspec  # only where an ignore file is found (most walks of a tree find few)

        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        return _Ignores((*self.specs, (directory, spec)))

    def ignored(self, path: Path, is_dir: bool) -> bool:
        for base, spec in self.specs:
            try:
                relative = path.relative_to(base).as_posix()
            except ValueError:
                continue
            if spec.match_file(relative + "/" if is_dir else relative):
                return True
        return False


def _ignore_lines(path: Path) -> list[str]:
    """The lines of an ignore file; none when it is absent or not a regular file (a FIFO named
    ``.gitignore`` is never opened for reading: that would wait for a writer forever)."""
    try:
        raw = read_regular(path)
    except NotRegularFile as error:
        warn(f"{path}: {error.strerror}; not read", key=os.path.abspath(path))
        return []
    except OSError:
        return []
    return raw.decode("utf-8", errors="replace").splitlines()


def _special(path: Path, mode: int, skipped: Skipped) -> None:
    """A FIFO, socket or device where a file to check was expected: skipped, one warning."""
    reason = not_regular(mode)
    warn(f"{path}: {reason}; skipped", key=os.path.abspath(path))
    skipped(path, reason)


@dataclass(frozen=True)
class _Patterns:
    """A settings object's globs, split so that the common cases cost a set lookup."""

    names: frozenset[str]  # exclude: literal names
    name_globs: tuple[str, ...]  # exclude: globs on the name
    path_globs: tuple[str, ...]  # exclude: globs with a slash
    include_suffixes: frozenset[str]  # include: "*.py" style patterns
    include_globs: tuple[str, ...]


_PATTERNS: dict[int, tuple[Settings, _Patterns]] = {}


def _patterns(settings: Settings) -> _Patterns:
    found = _PATTERNS.get(id(settings))
    if found is None or found[0] is not settings:
        exclude = (*settings.exclude, *settings.extend_exclude)
        bare = [p for p in exclude if "/" not in p]
        include = (*settings.include, *settings.extend_include)
        suffix = {p[1:] for p in include if p.startswith("*.") and _GLOB.isdisjoint(p[1:])}
        patterns = _Patterns(
            frozenset(p for p in bare if _GLOB.isdisjoint(p)),
            tuple(p for p in bare if not _GLOB.isdisjoint(p)),
            tuple(p for p in exclude if "/" in p),
            frozenset(suffix),
            tuple(p for p in include if p[1:] not in suffix),
        )
        found = _PATTERNS[id(settings)] = (settings, patterns)
    return found[1]


_GLOB = frozenset("*?[")


def _excluded(path: Path, settings: Settings) -> bool:
    return _excluded_entry(path.parent, path.name, settings)


def _excluded_entry(folder: Path, name: str, settings: Settings) -> bool:
    """Whether the entry ``name`` of ``folder`` is excluded (its path is made only when a
    glob with a slash needs it)."""
    patterns = _patterns(settings)
    if name in patterns.names:
        return True
    if any(fnmatch.fnmatchcase(name, p) for p in patterns.name_globs):
        return True
    if not patterns.path_globs:
        return False
    full = folder / name
    return any(path_matches(full, p, settings.root) for p in patterns.path_globs)


def _included(name: str, settings: Settings) -> bool:
    patterns = _patterns(settings)
    dot = name.rfind(".")
    if dot >= 0 and name[dot:] in patterns.include_suffixes:
        return True
    return any(fnmatch.fnmatchcase(name, p) for p in patterns.include_globs)


def _git_ignores_above(directory: Path) -> _Ignores:
    """Ignore files of the enclosing repository, from its root down to ``directory``."""
    chain = [directory, *directory.parents]
    root = next((d for d in chain if (d / ".git").exists()), None)
    if root is None:
        return _Ignores()
    ignores = _Ignores()
    for folder in reversed(chain[: chain.index(root) + 1]):
        if folder != directory:
            ignores = ignores.child(folder)
    return ignores


# Told of each path the walk skips, and why (``seedlint check -v``).
Skipped = Callable[[Path, str], None]


def _nothing(path: Path, reason: str) -> None:
    return None


# Told of a folder whose configuration file is invalid, when the walk leaves it out instead
# of failing (the project index's walk of folders nobody named).
BadConfig = Callable[[ConfigError], None]


def discover(
    paths: list[Path],
    resolver: SettingsResolver,
    skipped: Skipped = _nothing,
    bad_config: Optional[BadConfig] = None,
) -> Iterator[Candidate]:
    """The files to check under ``paths``. A configuration error in a folder of a walk stops
    it (as it stops ruff), unless ``bad_config`` is given: then that folder is left out and
    ``bad_config`` told."""
    for given in paths:
        try:
            mode: Optional[int] = os.stat(given).st_mode
        except (OSError, ValueError):
            mode = None  # a dangling link, say: reported as RNG000
        if mode is not None and stat.S_ISDIR(mode):  # a folder (or a link to one): walk it
            yield from _walk(given, resolver, skipped, bad_config)
        elif mode is not None and not stat.S_ISREG(mode):
            _special(given, mode, skipped)  # a FIFO named x.py: never opened
        else:
            settings = resolver.for_path(_absolute(given))
            if settings.force_exclude and is_excluded(given, settings):
                skipped(given, "excluded (--force-exclude)")
                continue
            yield Candidate(given, settings)


def is_excluded(path: Path, settings: Settings) -> bool:
    """Whether a path named explicitly falls under the excludes or ``.gitignore`` (for
    ``--force-exclude``, which pre-commit and editors use)."""
    absolute = _absolute(path)
    for part in [absolute, *absolute.parents]:
        if _excluded(part, settings):
            return True
    if settings.respect_gitignore:
        ignores = _git_ignores_above(absolute.parent).child(absolute.parent)
        return ignores.ignored(absolute, is_dir=False)
    return False


def _walk(
    top: Path, resolver: SettingsResolver, skipped: Skipped, bad_config: Optional[BadConfig]
) -> Iterator[Candidate]:
    absolute_top = _absolute(top)
    root_settings = resolver.for_path(absolute_top)
    real_top = os.path.realpath(absolute_top)
    ignores = _Ignores()
    if root_settings.respect_gitignore:
        ignores = _git_ignores_above(absolute_top)
        if ignores.ignored(absolute_top, is_dir=True):  # a folder named explicitly is walked
            ignores = _Ignores()
    # (folder, its absolute path, the ignore files above it, its parent's settings)
    stack: list[tuple[Path, Path, _Ignores, Optional[Settings]]] = [
        (top, absolute_top, ignores, None)
    ]
    while stack:
        directory, absolute_dir, ignores, inherited = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as error:
            settings = inherited or resolver.for_path(absolute_dir)
            yield Candidate(directory, settings, f"cannot list folder: {error.strerror}")
            continue
        if inherited is None or any(e.name in _FOLDER_MARKERS for e in entries):
            try:
                settings = resolver.for_path(absolute_dir)
            except ConfigError as error:
                if bad_config is None:
                    raise
                bad_config(error)
                continue
            if settings.respect_gitignore:
                ignores = ignores.child(absolute_dir)
        else:  # no configuration or ignore file here: the parent's settings and ignores hold
            settings = inherited
        subdirs: list[tuple[Path, Path, _Ignores, Optional[Settings]]] = []
        # A child path without parsing it again (pathlib's own way, where it has one: Python
        # 3.13 has not): thousands of files per walk.
        child: Optional[Callable[[str], Path]] = getattr(directory, "_make_child_relpath", None)
        for entry in entries:
            name = entry.name
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if _excluded_entry(absolute_dir, name, settings):
                skipped(Path(entry.path), "excluded (`exclude` / `extend-exclude`)")
                continue
            if not is_dir and not _included(name, settings):
                continue
            path = child(name) if child is not None else Path(entry.path)
            if is_dir:
                absolute = absolute_dir / name
                if settings.respect_gitignore and ignores.ignored(absolute, is_dir=True):
                    skipped(path, "gitignored")
                    continue
                subdirs.append((path, absolute, ignores, settings))
                continue
            gitignored = settings.respect_gitignore and ignores.specs
            if gitignored and ignores.ignored(absolute_dir / name, is_dir=False):
                skipped(path, "gitignored")
                continue
            if is_link:
                problem = _link_problem(path, real_top)
                if problem == "outside":
                    skipped(path, "a link to a file outside the folder checked")
                    continue
                if problem is not None:
                    yield Candidate(path, settings, problem)
                    continue
                try:
                    mode = os.stat(path).st_mode
                except OSError:
                    continue
                if stat.S_ISDIR(mode):
                    skipped(path, "a link to a folder (never followed)")
                    continue
                if not stat.S_ISREG(mode):
                    _special(path, mode, skipped)
                    continue
            elif not entry.is_file(follow_symlinks=False):  # its type from the listing
                with contextlib.suppress(OSError):  # (gone since the listing: skipped)
                    _special(path, entry.stat(follow_symlinks=False).st_mode, skipped)
                continue
            yield Candidate(path, settings)
        stack.extend(reversed(subdirs))


def _absolute(path: Path) -> Path:
    """``path`` made absolute with ``..`` and ``.`` resolved (as the names the user sees are), so
    that exclusion globs relative to the settings' root match ``cd tests && seedlint check ..``."""
    return Path(os.path.abspath(path))


def _link_problem(path: Path, real_top: str) -> Optional[str]:
    try:
        target = os.path.realpath(path, strict=True)
    except OSError as error:
        if error.errno is not None and error.errno == 40:  # ELOOP
            return "symbolic link loop"
        return "dangling symbolic link"
    except RuntimeError:  # pragma: no cover - older Pythons report loops this way
        return "symbolic link loop"
    if not (target == real_top or target.startswith(real_top.rstrip(os.sep) + os.sep)):
        return "outside"
    return None
