"""The cache: findings per file, keyed by content and settings, so that a warm run reads
nothing it need not."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any, Optional

from seedlint import __version__
from seedlint.config import Settings
from seedlint.core import Applicability, Finding, Fix

# Bumped whenever what a cache entry holds changes, so that old entries are never read.
CACHE_FORMAT = 3

StatKey = tuple[int, int, int, int]
# A file modified this recently may change again within the file system's timestamp
# granularity without its stat key changing ("racy git"): its stat key is not trusted.
_RACY_NS = 2_000_000_000


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of seedlint's own source, so that an edited checkout of the same version never
    reads findings an older build wrote (about 2 ms)."""
    root = Path(__file__).resolve().parent.parent
    digest_ = hashlib.blake2b(digest_size=8)
    for path in sorted(root.rglob("*.py")):
        digest_.update(path.relative_to(root).as_posix().encode())
        digest_.update(path.read_bytes())
    return digest_.hexdigest()


def stat_key(path: Path) -> Optional[StatKey]:
    """Inode, size, modification and change time: any write to the file changes the change
    time, which no tool can set back, so an equal key means equal content."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class Cache:
    """Findings per file, for seedlint's version and the settings.

    An entry holds the file's content hash and its stat key. A file whose stat key is unchanged
    is not even read; otherwise an unchanged content hash still reuses the findings (a fresh CI
    checkout changes every modification time, not the contents). Files that cannot contain a
    finding are remembered too (no hash, no findings), so a warm run reads nothing.
    One JSON file per settings digest under ``<cache-dir>/<version>-<code digest>/``, written
    atomically.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._folder = directory / f"{__version__}-{code_digest()}"
        self._tables: dict[str, dict[str, Any]] = {}
        self._dirty: set[str] = set()

    def _table(self, key: str) -> dict[str, Any]:
        table = self._tables.get(key)
        if table is None:
            path = self._folder / f"{key}-{CACHE_FORMAT}.json"
            try:
                table = json.loads(path.read_text())
                if not isinstance(table, dict):
                    table = {}
            except (OSError, ValueError):
                table = {}
            self._tables[key] = table
        return table

    def load(self, settings: Settings) -> None:
        """Read the settings' table now (before the pool forks, so that workers share it)."""
        self._table(settings.fingerprint())

    def _findings(self, entry: Any) -> Optional[list[Finding]]:
        try:
            return [_finding_from_json(item) for item in entry["findings"]]
        except (TypeError, KeyError, ValueError):
            return None

    def by_stat(
        self, settings: Settings, path: str, key: Optional[StatKey], extra: str = ""
    ) -> Optional[list[Finding]]:
        """``extra``: what else the findings depend on (the project summaries the file
        consulted); an entry written with another one is not used."""
        entry = self._table(settings.fingerprint()).get(path)
        if key is None or not isinstance(entry, dict) or entry.get("stat") != list(key):
            return None
        if entry.get("extra", "") != extra:
            return None
        return self._findings(entry)

    def get(
        self, settings: Settings, path: str, digest: str, extra: str = ""
    ) -> Optional[list[Finding]]:
        entry = self._table(settings.fingerprint()).get(path)
        if not isinstance(entry, dict) or entry.get("digest") != digest:
            return None
        if entry.get("extra", "") != extra:
            return None
        return self._findings(entry)

    def put(
        self,
        settings: Settings,
        path: str,
        digest: Optional[str],
        findings: list[Finding],
        key: Optional[StatKey] = None,
        extra: str = "",
    ) -> None:
        table_key = settings.fingerprint()
        entry: dict[str, Any] = {
            "stat": list(key) if key is not None else None,
            "digest": digest,
            "findings": [_finding_to_json(f) for f in findings],
        }
        if extra:
            entry["extra"] = extra
        self._table(table_key)[path] = entry
        self._dirty.add(table_key)

    def save(self) -> None:
        if not self._dirty:
            return
        try:
            folder = self._folder
            folder.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():  # never overwrite a .gitignore seedlint did not write
                ignore.write_text("# Automatically created by seedlint.\n*\n")
            tag = self.directory / "CACHEDIR.TAG"
            if not tag.exists():
                tag.write_text(
                    "Signature: 8a477f597d28d172789f06886806bc55\n"
                    "# This file is a cache directory tag created by seedlint.\n"
                )
            for key in self._dirty:
                fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
                with os.fdopen(fd, "w") as handle:
                    json.dump(self._tables[key], handle, separators=(",", ":"))
                os.replace(tmp, folder / f"{key}-{CACHE_FORMAT}.json")
        except OSError as error:  # a read-only tree: the run still succeeds
            print(f"seedlint: warning: cannot write the cache: {error}", file=sys.stderr)


def _finding_to_json(finding: Finding) -> dict[str, Any]:
    data = asdict(finding)
    data["noqa_rows"] = list(finding.noqa_rows)
    if finding.fix is not None:
        data["fix"]["applicability"] = finding.fix.applicability.value
    return data


def _finding_from_json(data: dict[str, Any]) -> Finding:
    data = dict(data)
    data["noqa_rows"] = tuple(data.get("noqa_rows", ()))
    fix = data.get("fix")
    data["fix"] = (
        Fix(Applicability(fix["applicability"]), fix["message"]) if isinstance(fix, dict) else None
    )
    return Finding(**data)


def digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()
