"""Where a project starts, what each of its files is called, and what an import reaches.

The root is the nearest folder upwards holding ``pyproject.toml``, ``setup.py``, ``setup.cfg``
or ``.git`` (looked for below the user's home and within one file system only). An import is
resolved the way Python would find it in a checkout: relative imports from the importing file's
package; absolute ones from the importing file's own folder (a script's ``sys.path[0]``), each
folder above it up to the root, and the root's ``src/``, so that packages, ``src/`` layouts,
namespace packages (no ``__init__.py``) and script folders all work.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Optional

ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def find_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding a root marker (``start``'s own folder
    when none does: see :func:`project_root`)."""
    start = Path(os.path.abspath(start))
    folder = start if start.is_dir() else start.parent
    found = project_root(folder)
    return folder if found is None else found


def project_root(start: Path) -> Optional[Path]:
    """The nearest folder at or above ``start`` holding a root marker, or None. The search is
    bounded: it stops at the first marker, below the user's home (a home folder kept in git
    is no project: its files are not one program) and at a file system boundary (a mounted
    folder's parent is another tree), and it lists no folder, it only looks for the markers."""
    start = Path(os.path.abspath(start))
    folder = start if start.is_dir() else start.parent
    home = _home()
    try:
        device: Optional[int] = os.stat(folder).st_dev
    except OSError:
        device = None
    while True:
        if home is not None and folder == home:
            return None
        if any((folder / marker).exists() for marker in ROOT_MARKERS):
            return folder
        parent = folder.parent
        if parent == folder:
            return None
        try:
            above = os.stat(parent).st_dev
        except OSError:
            return None
        if device is not None and above != device:
            return None
        folder = parent


def may_walk(root: Path) -> bool:
    """Whether the project index may walk ``root`` for the project's files (a folder nobody
    named): a folder holding a root marker may be walked; one without is not walked when it
    is a file system's root (``/``) or holds the user's home (a loose file's folder, or the
    common folder of files from unrelated trees, is no project to walk)."""
    root = Path(os.path.abspath(root))
    if any((root / marker).exists() for marker in ROOT_MARKERS):
        return True
    if root.parent == root or os.path.ismount(root):
        return False
    home = _home()
    return home is None or not (home == root or root in home.parents)


def _home() -> Optional[Path]:
    home = os.path.expanduser("~")
    return Path(os.path.abspath(home)) if os.path.isabs(home) else None


def module_name(path: Path, root: Path) -> str:
    """The dotted name of ``path`` relative to ``root`` (``src/`` dropped, ``__init__``
    meaning the package itself); the file's stem when it lies outside the root."""
    try:
        parts = list(Path(os.path.abspath(path)).relative_to(root).with_suffix("").parts)
    except ValueError:
        return Path(path).stem
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or root.name


class Layout:
    """The project's Python files, and what an import in one of them reaches."""

    def __init__(self, root: Path, paths: Iterable[str]) -> None:
        self.root = Path(os.path.abspath(root))
        self.paths: set[str] = set()
        # "folder/sub/name" (no suffix; packages as "folder/pkg/__init__") -> the file's path.
        self._files: dict[str, str] = {}
        for path in paths:
            self.add(path)
        # (importer or its folder, dotted name) -> what the import reaches
        self._memo: dict[tuple[str, str], Optional[tuple[str, tuple[str, ...]]]] = {}
        self._folders: dict[str, str] = {}  # importer -> its absolute folder

    def add(self, path: str) -> None:
        absolute = os.path.abspath(path)
        self.paths.add(absolute)
        stem, suffix = os.path.splitext(absolute)
        if suffix in (".py", ".pyi") and (suffix == ".py" or stem not in self._files):
            self._files[stem] = absolute

    def name(self, path: str) -> str:
        return module_name(Path(path), self.root)

    def resolve(self, importer: str, dotted: str) -> Optional[tuple[str, tuple[str, ...]]]:
        """The file an import of ``dotted`` (leading dots: relative) from ``importer`` reaches,
        with the attribute names after the module: ``("/p/utils/seed.py", ("set_seed",))``."""
        key = (importer, dotted)
        if key in self._memo:
            return self._memo[key]
        folder = self._folders.get(importer)
        if folder is None:
            folder = self._folders[importer] = os.path.dirname(os.path.abspath(importer))
        in_folder = (folder, dotted)
        if in_folder in self._memo:
            found = self._memo[in_folder]
        else:
            found = self._memo[in_folder] = self._resolve(folder, dotted)
        self._memo[key] = found
        return found

    def _resolve(self, folder: str, dotted: str) -> Optional[tuple[str, tuple[str, ...]]]:
        level = len(dotted) - len(dotted.lstrip("."))
        parts = tuple(p for p in dotted[level:].split(".") if p)
        if level:
            base = folder
            for _ in range(level - 1):
                base = os.path.dirname(base)
            return self._module_in(base, parts, 0)
        if not parts:
            return None
        for base in self._search_roots(folder):
            found = self._module_in(base, parts, 1)
            if found is not None:
                return found
        return None

    def _search_roots(self, folder: str) -> list[str]:
        roots: list[str] = []
        current = folder
        root = str(self.root)
        while True:
            roots.append(current)
            if current == root or len(current) <= len(root):
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        source = os.path.join(root, "src")
        if source not in roots:
            roots.append(source)
        return roots

    def _module_in(
        self, base: str, parts: tuple[str, ...], least: int
    ) -> Optional[tuple[str, tuple[str, ...]]]:
        """The longest prefix of ``parts`` (at least ``least`` names) that is a module under
        ``base``, and the names after it."""
        files = self._files
        prefix = base if base.endswith(os.sep) else base + os.sep
        for count in range(len(parts), least - 1, -1):
            stem = prefix + os.sep.join(parts[:count]) if count else base
            if count:
                path = files.get(stem)
                if path is not None:
                    return path, parts[count:]
            path = files.get(stem + os.sep + "__init__" if count else prefix + "__init__")
            if path is not None:
                return path, parts[count:]
        return None
