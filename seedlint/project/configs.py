"""The config files a checked module loads, read and parsed (the I/O side of
:mod:`seedlint.analysis.configs`).

A config file is untrusted input like the code: it is parsed with PyYAML's safe loader (JSON
too: YAML reads it), never executed; a file over 1 MB, outside the project's root, a link
leading out of it, or a structure of more than 100,000 nodes (aliases multiplied) is not read.
Each file read (or looked for and missing) is recorded with the digest of its bytes in
:attr:`ConfigFiles.consulted`: the caches keep it beside the findings, and an entry whose
config changed is not used (:func:`unchanged`).
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import Any, Optional

from seedlint.analysis.configs import UNKNOWN_MAP, ConfigFile, ConfigValue, Entry

_MOST_BYTES = 1 << 20
_MOST_NODES = 100_000
_PACKAGE = re.compile(r"^#\s*@package\s+(\S+)", re.MULTILINE)
_ABSENT = ""
# The tags of YAML's own types: a node of another (`!include`, `!!python/object`) is never built.
_PLAIN_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "binary")
)  # the digest recorded for a file looked for and not there

# Parsed files of this process by (path, size, modification time): a config read by many
# modules is parsed once.
_PARSED: dict[tuple[str, int, int, str, str], tuple[str, Optional[ConfigFile]]] = {}


_LOADER_WORDS = ("yaml", "json", "OmegaConf", "hydra")


def may_load_config(text: str) -> bool:
    """Whether a module's text names a config loader (:mod:`seedlint.analysis.configs`
    follows only ``yaml``, ``json``, ``OmegaConf`` and ``hydra`` loads)."""
    return any(word in text for word in _LOADER_WORDS)


class ConfigFiles:
    """The :class:`~seedlint.analysis.configs.ConfigSource` of one checked module."""

    def __init__(self, module: str, root: Optional[str] = None) -> None:
        self.folder = os.path.dirname(os.path.abspath(module)) if module else os.getcwd()
        self._root = os.path.abspath(root) if root else None
        self.consulted: dict[str, str] = {}  # absolute path -> digest ("" missing)

    @property
    def root(self) -> str:
        """The project's root (found at the first read: most modules load no config)."""
        if self._root is None or not _inside(self.folder, self._root):
            self._root = _root_of(self.folder)
        return self._root

    def read(self, written: str, folder: Optional[str] = None) -> Optional[ConfigFile]:
        if not written or "\0" in written or (folder is not None and "\0" in folder):
            return None
        bases = [self.folder, self.root] if folder is None else [os.path.join(self.folder, folder)]
        for base in dict.fromkeys(bases):
            path = os.path.normpath(os.path.join(base, os.path.expanduser(written)))
            found = self._read(path)
            if found is not None:
                return found
        return None

    def _read(self, path: str) -> Optional[ConfigFile]:
        if not _inside(path, self.root):
            return None  # never a file outside the project
        try:
            real = os.path.realpath(path)
            if not _inside(real, os.path.realpath(self.root)):
                return None
            info = os.stat(real)
        except (OSError, ValueError):
            self.consulted.setdefault(path, _ABSENT)
            return None
        if not os.path.isfile(real) or info.st_size > _MOST_BYTES:
            self.consulted.setdefault(path, _ABSENT)
            return None
        key = (real, info.st_size, info.st_mtime_ns, path, self.root)
        cached = _PARSED.get(key)
        if cached is None:
            try:
                with open(real, "rb") as handle:
                    raw = handle.read(_MOST_BYTES + 1)
            except OSError:
                self.consulted.setdefault(path, _ABSENT)
                return None
            shown = os.path.relpath(path, self.root).replace(os.sep, "/")
            cached = (_digest(raw), parse(raw, shown, path))
            _PARSED[key] = cached
        self.consulted[path] = cached[0]
        return cached[1]


_ROOTS: dict[str, str] = {}


def _root_of(folder: str) -> str:
    found = _ROOTS.get(folder)
    if found is None:
        from pathlib import Path

        from seedlint.project.layout import find_root

        found = _ROOTS[folder] = str(find_root(Path(folder)))
    return found


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), root]) == root
    except ValueError:  # another drive
        return False


def _digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=12).hexdigest()


def digest_of(path: str) -> str:
    """The digest :class:`ConfigFiles` records for ``path`` now ("" when it is not there)."""
    try:
        info = os.stat(path)
        if info.st_size > _MOST_BYTES:
            return _ABSENT
        with open(path, "rb") as handle:
            return _digest(handle.read())
    except (OSError, ValueError):
        return _ABSENT


def unchanged(consulted: Any, memo: Optional[dict[str, str]] = None) -> bool:
    """Whether every config file of ``consulted`` (a mapping or pairs of path and digest, as a
    cache keeps them) still has that digest. ``memo``: digests already taken in this run."""
    pairs = consulted.items() if isinstance(consulted, dict) else consulted
    try:
        for path, recorded in pairs:
            if not isinstance(path, str) or not isinstance(recorded, str):
                return False
            now = memo.get(path) if memo is not None else None
            if now is None:
                now = digest_of(path)
                if memo is not None:
                    memo[path] = now
            if now != recorded:
                return False
    except (TypeError, ValueError):
        return False
    return True


def parse(raw: bytes, shown: str, path: str = "") -> Optional[ConfigFile]:
    """A YAML (or JSON) file's content with the row of every entry; None when it does not
    parse as one document or is too large a structure."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is a dependency
        return None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        budget = [_MOST_NODES]
        root = _entry(loader, node, (shown, path), budget, 0)
    except (yaml.YAMLError, RecursionError, ValueError, TypeError, _TooLarge):
        return None
    finally:
        loader.dispose()
    header = _PACKAGE.search(text[:2000])
    return ConfigFile(root, header.group(1) if header else None)


class _TooLarge(Exception):
    pass


def _entry(loader: Any, node: Any, shown: tuple[str, str], budget: list[int], depth: int) -> Entry:
    import yaml

    budget[0] -= 1
    if budget[0] < 0 or depth > 100:
        raise _TooLarge
    row = node.start_mark.line + 1
    value: ConfigValue
    if node.tag not in _PLAIN_TAGS:
        value = UNKNOWN_MAP  # `!include`, `!!python/...`: never built, so never known
    elif isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)  # `<<: *base` merge keys
        mapping: dict[str, Entry] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            mapping[str(key)] = _entry(loader, value_node, shown, budget, depth + 1)
        value = mapping
    elif isinstance(node, yaml.SequenceNode):
        value = tuple(_entry(loader, item, shown, budget, depth + 1) for item in node.value)
    else:
        scalar = loader.construct_object(node, deep=True)
        value = scalar if isinstance(scalar, (bool, int, float, str)) or scalar is None else None
        if value is None and scalar is not None:
            value = str(scalar)  # a date, bytes: some object
    return Entry(value, row, *shown)
