"""The cache: findings per file, keyed by content and settings, so that a warm run reads
nothing it need not.

A cache folder is untrusted input like the rest of a repository: it may have been committed,
tarred, or be a symbolic link someone else prepared. So:

* every table carries a MAC made with a secret key that lives outside any repository (under
  the user's cache folder, ``$XDG_CACHE_HOME/seedlint/cache-key``, created ``0600``): a table
  seedlint did not write on this machine, for this user, is ignored and rewritten;
* every entry is validated before use (known rule codes, integer rows, no control characters
  or workflow commands in messages; the path is never stored: a finding gets the path of the
  file being checked), and an entry that fails is ignored, never printed;
* nothing is written through a link seedlint did not create: a cache folder that is a
  symbolic link, or not the user's own, is refused with one warning and the run goes on without
  the cache; files are created with ``O_EXCL | O_NOFOLLOW`` and tables replaced by rename.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

from seedlint import __version__
from seedlint.config import Settings
from seedlint.core import Applicability, Finding, Fix, Origin
from seedlint.project.configs import unchanged as configs_unchanged
from seedlint.rules import BY_CODE
from seedlint.run.notices import warn

# Bumped whenever what a cache entry holds changes, so that old entries are never read.
CACHE_FORMAT = 6

StatKey = tuple[int, int, int, int]
# A file modified this recently may change again within the file system's timestamp
# granularity without its stat key changing ("racy git"): its stat key is not trusted.
_RACY_NS = 2_000_000_000

# The digests of config files taken in this run (cleared when a run starts: see
# :func:`new_run`), so that many entries naming one config read it once.
CONFIG_DIGESTS: dict[str, str] = {}


def new_run() -> None:
    """Forget the config digests taken so far (a config may have changed since)."""
    CONFIG_DIGESTS.clear()


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_KEY_NAME = "cache-key"
_KEY_BYTES = 32


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of seedlint's own source files (their names, sizes and modification times), so
    that an edited checkout of the same version never reads findings an older build wrote.
    Their stats, not their bytes: a saved edit changes the time, and reading the ~80 files
    took 6 ms of a one-file run's 0.25 s (their stats: under 1 ms)."""
    return source_digest(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def source_digest(root: str) -> str:
    """The digest of the ``.py`` files under ``root`` by :func:`code_digest`."""
    digest_ = hashlib.blake2b(digest_size=8)
    for folder, folders, names in os.walk(root):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                info = os.stat(path)
                relative = os.path.relpath(path, root).replace(os.sep, "/")
                digest_.update(f"{relative}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest_.hexdigest()


def grammar() -> str:
    """The interpreter's grammar version: a SyntaxError under 3.11 is valid code under 3.12."""
    return f"py{sys.version_info[0]}{sys.version_info[1]}"


def stat_key(path: Path) -> Optional[StatKey]:
    """Inode, size, modification and change time: any write to the file changes the change
    time, which no tool can set back, so an equal key means equal content."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def key_folder() -> Path:
    """Where the secret key lives: the user's cache folder, never a repository."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "seedlint"


def _owned_by_user(info: os.stat_result) -> bool:
    getuid = getattr(os, "getuid", None)
    return getuid is None or info.st_uid == getuid()


def secret_key() -> tuple[Optional[bytes], Optional[str]]:
    """This user's key on this machine (created on first use), or None and why not."""
    folder = key_folder()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            return None, f"{folder} is not a folder"
        if not _owned_by_user(info):
            return None, f"{folder} is not yours"
        path = folder / _KEY_NAME
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as handle:
                handle.write(secrets.token_bytes(_KEY_BYTES))
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            key = handle.read(_KEY_BYTES + 1)
    except (OSError, ValueError) as error:
        return None, f"cannot use the key in {folder}: {getattr(error, 'strerror', None) or error}"
    if not _owned_by_user(info) or info.st_mode & 0o077 or len(key) != _KEY_BYTES:
        return None, f"{folder / _KEY_NAME} is not a private key of yours"
    return key, None


def _folder_problem(path: Path) -> Optional[str]:
    """Why seedlint must not use ``path`` as (part of) its cache folder; None when it may (or
    when it does not exist yet)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        return str(getattr(error, "strerror", None) or error)
    if stat.S_ISLNK(info.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a folder"
    if not _owned_by_user(info):
        return "it is not yours"
    return None


# What seedlint writes at the top of its cache folder: nothing else may be there.
_OWN_ENTRIES = frozenset({"CACHEDIR.TAG", ".gitignore"})
_VERSION_FOLDER = re.compile(r"[0-9][0-9A-Za-z.+!_]*-[0-9a-f]{16}-py[0-9]+")
DEFAULT_FOLDER = ".seedlint_cache"


def cache_folder(
    given: Optional[Path], settings: Settings, project: Iterable[Path]
) -> tuple[Path, Optional[str]]:
    """The cache folder a run uses, and why it is refused (None: it is not; the run then goes
    on without a cache): ``given`` (``--cache-dir``, ``SEEDLINT_CACHE_DIR``: the user's own
    choice), else the configuration's ``cache-dir`` (relative to the configuration file's
    folder, as ruff reads it), else ``.seedlint_cache``. ``project``: the folders and files
    the run checks.

    seedlint writes a ``.gitignore`` holding ``*`` in its cache folder, so the folder must
    never hold what it checks: it must not be (or lie above) the working folder, a checked
    path or the configuration's folder; a ``cache-dir`` from a configuration file (which an
    untrusted repository writes) must lie inside that file's folder; and a folder that
    exists must hold only what seedlint writes there (``cache-dir = "src"`` is refused)."""
    inside: Optional[str] = None
    if given is not None:
        folder = given
    elif settings.cache_dir and settings.config_file is not None:
        base = settings.config_file.parent
        folder = base / settings.cache_dir
        inside = os.path.realpath(base)
    else:
        folder = Path(settings.cache_dir or DEFAULT_FOLDER)
    if "\0" in str(folder):
        return folder, "its name holds a NUL character"
    real = os.path.realpath(folder)
    # The working folder and the configuration's folder, their real paths; the checked paths
    # as named (thousands for pre-commit: no system call each; a folder that holds them holds
    # files seedlint did not write, refused below).
    held = [(Path.cwd(), True), *((path, False) for path in project)]
    if settings.config_file is not None:
        held.append((settings.config_file.parent, True))
    absolute = os.path.abspath(folder)
    for path, resolve in held:
        mine = real if resolve else absolute
        other = os.path.realpath(path) if resolve else os.path.abspath(path)
        if other == mine or other.startswith(mine.rstrip(os.sep) + os.sep):
            return folder, f"it holds the project ({path})"
    if inside is not None and not real.startswith(inside.rstrip(os.sep) + os.sep):
        where = f"`cache-dir` in {settings.config_file}"
        return folder, f"it lies outside the project ({inside}), as {where}"
    try:
        names = [entry.name for entry in os.scandir(folder)]
    except (OSError, ValueError):
        names = []  # none yet (or not a folder: refused when it is made)
    foreign = sorted(n for n in names if n not in _OWN_ENTRIES and not _VERSION_FOLDER.fullmatch(n))
    if foreign:
        return folder, f"it holds files seedlint did not write there (`{foreign[0]}`)"
    return folder, None


class Cache:
    """Findings per file, for seedlint's version, the interpreter's grammar and the settings.

    An entry holds the file's content hash and its stat key. A file whose stat key is unchanged
    is not even read; otherwise an unchanged content hash still reuses the findings (a fresh CI
    checkout changes every modification time, not the contents). Files that cannot contain a
    finding are remembered too (no hash, no findings), so a warm run reads nothing.
    Entries are keyed by the file's absolute path, so the working folder does not matter.
    One file per settings digest under ``<cache-dir>/<version>-<code digest>-<grammar>/``,
    written atomically, with a MAC (see the module's documentation).
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._folder = directory / f"{__version__}-{code_digest()}-{grammar()}"
        self._tables: dict[str, dict[str, Any]] = {}
        self._dirty: set[str] = set()
        self._hit_configs: dict[str, dict[str, str]] = {}  # path -> an entry's config files
        self._key: Optional[bytes] = None
        self.disabled: Optional[str] = None  # why the cache is not used
        # Added to every table's key: what else every file's findings depend on (the project's
        # loader names that no loader word finds, see ``run.loader_names``).
        self.salt = ""
        problem = _folder_problem(directory) or _folder_problem(self._folder)
        if problem is not None:
            self._disable(f"the cache folder {directory} is not used: {problem}")
            return
        self._key, why = secret_key()
        if self._key is None:
            self._disable(f"the cache is not used: {why}")

    def _disable(self, message: str) -> None:
        if self.disabled is None:
            self.disabled = message
            warn(message)

    # -- reading -----------------------------------------------------------------------------
    def _mac(self, name: str, body: bytes) -> str:
        assert self._key is not None
        message = f"seedlint-cache\0{getattr(os, 'getuid', lambda: -1)()}\0{name}\0".encode()
        return hmac.new(self._key, message + body, hashlib.sha256).hexdigest()

    def _table(self, key: str) -> dict[str, Any]:
        table = self._tables.get(key)
        if table is None:
            table = self._read_table(key)
            self._tables[key] = table
        return table

    def _read_table(self, key: str) -> dict[str, Any]:
        """``path -> entry``: each entry kept as its line until it is asked for (a run that
        names one file decodes one entry, and writes the others back as they were read)."""
        body = self.read_signed(_table_name(key))
        if body is None:
            return {}
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return {}
        table: dict[str, Any] = {}
        for line in text.split("\n"):
            tab = line.find("\t")
            quoted = line[:tab]
            if tab < 2 or quoted[0] != '"' or quoted[-1] != '"':
                continue
            if "\\" in quoted:  # an escape: a quote, a control or a non-ASCII character
                try:
                    path = json.loads(quoted)
                except ValueError:
                    continue
                if not isinstance(path, str):
                    continue
            else:
                path = quoted[1:-1]
            table[path] = line
        return table

    def read_signed(self, name: str) -> Optional[bytes]:
        """The body of the cache file ``name``, or None when it is absent, not a regular file,
        or not written by seedlint for this user on this machine (its MAC does not match)."""
        if self.disabled is not None:
            return None
        try:
            fd = os.open(self._folder / name, os.O_RDONLY | _NOFOLLOW)
            with os.fdopen(fd, "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    return None
                data = handle.read()
        except (OSError, ValueError):
            return None
        mac, _, body = data.partition(b"\n")
        if not hmac.compare_digest(mac, self._mac(name, body).encode()):
            return None
        return body

    def load(self, settings: Settings) -> None:
        """Read the settings' table now (before the pool forks, so that workers share it)."""
        self._table(self._table_key(settings))

    def _table_key(self, settings: Settings) -> str:
        key = settings.fingerprint()
        return f"{key}-{self.salt}" if self.salt else key

    def _entry(self, settings: Settings, path: str) -> Any:
        table = self._table(self._table_key(settings))
        key = key_of(path)
        entry = table.get(key)
        if type(entry) is str:  # its line, as read: decoded once
            entry = table[key] = _decode_line(entry)
        return entry

    def configs_of(self, path: str) -> dict[str, str]:
        """The config files the entry found for ``path`` in this run was read with."""
        return self._hit_configs.get(path, {})

    def _hit(self, path: str, entry: dict[str, Any]) -> None:
        configs = entry.get("configs")
        if isinstance(configs, list):
            self._hit_configs[path] = {str(p): str(d) for p, d in configs}

    def by_stat(
        self, settings: Settings, path: str, key: Optional[StatKey]
    ) -> Optional[tuple[list[Finding], str]]:
        """The findings stored for ``path`` and what else they depend on (``extra``: the digest
        of the project answers the file consulted, "" for none), when its stat key is
        unchanged."""
        entry = self._entry(settings, path)
        if key is None or not isinstance(entry, dict) or entry.get("stat") != list(key):
            return None
        found = _with_extra(entry, path, key[1])
        if found is not None:
            self._hit(path, entry)
        return found

    def by_content(
        self, settings: Settings, path: str, digest: str, size: Optional[int] = None
    ) -> Optional[tuple[list[Finding], str]]:
        """As :meth:`by_stat`, for an unchanged content hash (``size``: the file's, in bytes,
        which bounds every row and column an entry may hold)."""
        entry = self._entry(settings, path)
        if not isinstance(entry, dict) or entry.get("digest") != digest:
            return None
        found = _with_extra(entry, path, size)
        if found is not None:
            self._hit(path, entry)
        return found

    def get(
        self, settings: Settings, path: str, digest: str, extra: str = ""
    ) -> Optional[list[Finding]]:
        """The findings stored for this content and ``extra``."""
        found = self.by_content(settings, path, digest)
        return found[0] if found is not None and found[1] == extra else None

    # -- writing -----------------------------------------------------------------------------
    def put(
        self,
        settings: Settings,
        path: str,
        digest: Optional[str],
        findings: list[Finding],
        key: Optional[StatKey] = None,
        extra: str = "",
        configs: Optional[dict[str, str]] = None,
    ) -> None:
        if self.disabled is not None or any(f.path != path for f in findings):
            return
        table_key = self._table_key(settings)
        entry: dict[str, Any] = {
            "stat": list(key) if key is not None else None,
            "digest": digest,
            "findings": [_finding_to_json(f) for f in findings],
        }
        if extra:
            entry["extra"] = extra
        if configs:
            entry["configs"] = sorted(configs.items())
        self._table(table_key)[key_of(path)] = entry
        self._dirty.add(table_key)

    # -- a whole run -------------------------------------------------------------------------
    def run_findings(self, name: str, state: str, sizes: dict[str, int]) -> Optional[list[Finding]]:
        """The findings the run record ``name`` keeps for ``state`` (None: no such record,
        another state, or anything in it not as seedlint writes it). Checked entry by entry as
        a table's entries are: each path must be one of the run's files (``sizes``: each
        file's size in bytes, which bounds its rows and columns), each finding valid."""
        body = self.read_signed(name)
        if body is None:
            return None
        try:
            data = json.loads(body)
            if not isinstance(data, dict) or data.get("state") != state:
                return None
            if not configs_unchanged(data.get("configs", []), CONFIG_DIGESTS):
                return None  # a config file some finding was read with changed
            files = data["files"]
            if not isinstance(files, list):
                return None
            findings: list[Finding] = []
            for path, items in files:
                size = sizes.get(path) if isinstance(path, str) else None
                found = _findings(items, path, size) if size is not None else None
                if found is None:
                    return None
                findings.extend(found)
            return findings
        except (ValueError, KeyError, TypeError):
            return None

    def keep_run(
        self,
        name: str,
        state: str,
        findings: list[Finding],
        configs: Optional[dict[str, str]] = None,
    ) -> None:
        """Keep a run's findings (in their order) as the record ``name`` for ``state``
        (``configs``: the config files they were read with, and their digests)."""
        files: list[list[Any]] = []
        for finding in findings:
            if not files or files[-1][0] != finding.path:
                files.append([finding.path, []])
            files[-1][1].append(_finding_to_json(finding))
        record: dict[str, Any] = {"state": state, "files": files}
        if configs:
            record["configs"] = sorted(configs.items())
        body = json.dumps(record, separators=(",", ":"))
        self.write_signed(name, body.encode())

    def save(self) -> None:
        if not self._dirty or self.disabled is not None:
            return
        for key in self._dirty:
            # One line per file, its path and its entry as JSON: the lines read and not asked
            # for are written back as they were (a run that names one file encodes one).
            lines: list[str] = []
            for path, entry in self._tables[key].items():
                if type(entry) is str:
                    lines.append(entry)
                elif isinstance(entry, dict):
                    value = json.dumps(entry, separators=(",", ":"), check_circular=False)
                    lines.append(f"{json.dumps(path)}\t{value}")
            if not self.write_signed(_table_name(key), "\n".join(lines).encode("utf-8")):
                return

    def write_signed(self, name: str, body: bytes) -> bool:
        """Write the cache file ``name`` (``body`` under this user's MAC), atomically and never
        through a link; False (after one warning) when it cannot be written."""
        if self.disabled is not None:
            return False
        try:
            created = _make_folder(self.directory)
            if created is not None:
                self._disable(f"the cache folder {self.directory} is not used: {created}")
                return False
            _create_new(self.directory / ".gitignore", "# Automatically created by seedlint.\n*\n")
            _create_new(
                self.directory / "CACHEDIR.TAG",
                "Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by seedlint.\n",
            )
            folder = self._folder
            problem = _make_folder(folder)
            if problem is not None:
                self._disable(f"the cache folder {folder} is not used: {problem}")
                return False
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(self._mac(name, body).encode() + b"\n" + body)
                os.replace(tmp, folder / name)  # replaces a link itself, never its target
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except (OSError, ValueError) as error:  # a read-only tree: the run still succeeds
            reason = getattr(error, "strerror", None) or error
            # Said once for the folder, whichever of its files (the findings, the project's
            # summaries and loader names, the run's record) met it first.
            where = os.path.abspath(self.directory)
            warn(f"cannot write the cache: {reason}", key=f"cannot write the cache in {where}")
            self.disabled = f"cannot write the cache: {reason}"
            return False
        return True


def _make_folder(path: Path) -> Optional[str]:
    """Create ``path`` (parents too) unless it exists; why it must not be used, or None."""
    with contextlib.suppress(FileExistsError):
        os.makedirs(path, mode=0o755, exist_ok=True)
    return _folder_problem(path)


def _create_new(path: Path, text: str) -> None:
    """Write a new file; never through a link, never over an existing file."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
    except FileExistsError:
        return  # never overwrite a file seedlint did not write (nor follow a link)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)


def _table_name(key: str) -> str:
    return f"{key}-{CACHE_FORMAT}.jsonl"


def _decode_line(line: str) -> Optional[dict[str, Any]]:
    """A table line's entry (None: not as seedlint writes it)."""
    try:
        entry = json.loads(line[line.index("\t") + 1 :])
    except ValueError:
        return None
    return entry if isinstance(entry, dict) else None


def key_of(path: str) -> str:
    """The absolute path a file's entries are kept under (asked several times per file in a
    run: remembered, per working folder)."""
    return _absolute(os.getcwd(), path)


def keys_of(paths: Iterable[str]) -> list[str]:
    """:func:`key_of` of each of ``paths``, the working folder asked once (a run's thousands
    of files: one system call each otherwise)."""
    folder = os.getcwd()
    return [_absolute(folder, path) for path in paths]


@functools.lru_cache(maxsize=1 << 16)
def _absolute(folder: str, path: str) -> str:
    return os.path.normpath(os.path.join(folder, path))


# -- entries ---------------------------------------------------------------------------------
def _finding_to_json(finding: Finding) -> dict[str, Any]:
    data: dict[str, Any] = {
        "code": finding.code,
        "message": finding.message,
        "row": finding.row,
        "col": finding.col,
        "end_row": finding.end_row,
        "end_col": finding.end_col,
        "noqa_rows": list(finding.noqa_rows),
        "cell": finding.cell,
        "fixable": finding.fixable,
    }
    if finding.fix is not None:
        data["fix"] = [finding.fix.applicability.value, finding.fix.message]
    origin = finding.origin
    if origin is not None:
        elsewhere = origin.path if origin.path != finding.path else ""  # a config file's
        data["origin"] = [origin.name, origin.value, origin.source, origin.row, elsewhere]
    return data


class _Invalid(Exception):
    pass


def _with_extra(
    entry: dict[str, Any], path: str, size: Optional[int]
) -> Optional[tuple[list[Finding], str]]:
    configs = entry.get("configs")
    if configs is not None and not configs_unchanged(configs, CONFIG_DIGESTS):
        return None  # a config file the findings were read with changed
    findings = _findings(entry.get("findings"), path, size)
    extra = entry.get("extra", "")
    if findings is None or not isinstance(extra, str):
        return None
    return findings, extra


def _findings(items: Any, path: str, size: Optional[int] = None) -> Optional[list[Finding]]:
    """An entry's findings for ``path`` from their JSON, or None when anything in them is not
    as seedlint writes it (then the file is checked again). ``size``: the file's size in
    bytes; no row, column or cell of a file of ``size`` bytes lies beyond ``size + 1`` (a
    column of 10**12 would make a caret line of as many spaces)."""
    if not isinstance(items, list):
        return None
    most = _MOST if size is None else min(size + 1, _MOST)
    try:
        return [_finding_from_json(item, path, most) for item in items]
    except _Invalid:
        return None


# The most any row or column may be when the file's size is not known: a file this large is
# not one seedlint reads.
_MOST = 1 << 40


def _int(value: Any, least: int, most: int) -> int:
    if type(value) is not int or not least <= value <= most:
        raise _Invalid
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.isprintable() or "::" in value:
        raise _Invalid  # control characters, newlines or workflow commands: never printed
    return value


def _finding_from_json(data: Any, path: str, most: int = _MOST) -> Finding:
    if not isinstance(data, dict):
        raise _Invalid
    code = data.get("code")
    rule = BY_CODE.get(code) if isinstance(code, str) else None
    if rule is None:
        raise _Invalid
    row = _int(data.get("row"), 1, most)
    end_row = _int(data.get("end_row"), row, most)
    noqa = data.get("noqa_rows")
    if not isinstance(noqa, list):
        raise _Invalid
    cell = data.get("cell")
    fixable = data.get("fixable")
    if not isinstance(fixable, bool):
        raise _Invalid
    fix = None
    raw_fix = data.get("fix")
    if raw_fix is not None:
        if not isinstance(raw_fix, list) or len(raw_fix) != 2:
            raise _Invalid
        try:
            applicability = Applicability(raw_fix[0])
        except ValueError:
            raise _Invalid from None
        fix = Fix(applicability, _text(raw_fix[1]))
    origin = None
    raw_origin = data.get("origin")
    if raw_origin is not None:
        if not isinstance(raw_origin, list) or len(raw_origin) != 5:
            raise _Invalid
        name, value, source, origin_row, elsewhere = raw_origin
        origin = Origin(
            _text(name), _text(value), _text(source), _int(origin_row, 0, _MOST), _text(elsewhere)
        )
        if not origin.path:
            origin = replace(origin, path=path)
    return Finding(
        rule.code,
        rule.name,
        _text(data.get("message")),
        path,
        row,
        _int(data.get("col"), 0, most),
        end_row,
        _int(data.get("end_col"), 0, most),
        fix=fix,
        noqa_rows=tuple(_int(r, 1, most) for r in noqa),
        cell=None if cell is None else _int(cell, 1, most),
        fixable=fixable,
        origin=origin,
    )


def digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()
