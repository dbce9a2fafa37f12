"""Settings: defaults, ``[tool.seedlint]`` in ``pyproject.toml`` (or ``seedlint.toml`` /
``.seedlint.toml``), and command-line overrides, as ruff resolves them.

The closest configuration file to each checked file wins (no implicit merging with parents);
``--config FILE`` applies one file to everything; ``--isolated`` ignores every file; options
given on the command line override any file.

Rule selectors are kept as written: this layer knows no rule. What they select is the engine's
business (``seedlint.engine.selection``), which hands a validator to :class:`SettingsResolver`
so that an unknown code is still reported as the configuration file is read.
"""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
import json
import os
import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Optional, TypeVar

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

from seedlint.core.files import NotRegularFile, read_regular

CONFIG_FILES = (".seedlint.toml", "seedlint.toml", "pyproject.toml")

DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".seedlint_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)
DEFAULT_INCLUDE: tuple[str, ...] = ("*.py", "*.pyi", "*.ipynb")


class ConfigError(Exception):
    """Bad configuration: reported on one line, exit code 2."""


def did_you_mean(word: str, choices: Collection[str]) -> str:
    """`` (did you mean `x`?)`` for the closest of ``choices`` to a mistyped ``word``, or ``""``."""
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


# clap's BoolishValueParser, which ruff uses for its boolean environment variables.
_TRUE = frozenset({"y", "yes", "t", "true", "on", "1"})
_FALSE = frozenset({"n", "no", "f", "false", "off", "0"})


def env_bool(name: str) -> bool:
    """A boolean environment variable, read as ruff reads ``RUFF_NO_CACHE``: unset or empty is
    false; ``1``/``true``/``yes``/``on`` (and ``t``, ``y``) true; ``0``/``false``/``no``/``off``
    (and ``f``, ``n``) false, in any case; anything else is a usage error."""
    value = os.environ.get(name, "").strip().lower()
    if not value or value in _FALSE:
        return False
    if value in _TRUE:
        return True
    raise ConfigError(
        f"{name}={os.environ[name]!r}: expected a boolean (true/false, 1/0, yes/no, on/off)"
    )


def env_choice(name: str, choices: Collection[str]) -> Optional[str]:
    """An environment variable that must be one of ``choices``; None when unset or empty."""
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    if value not in choices:
        hint = did_you_mean(value, choices) or f" (one of {', '.join(choices)})"
        raise ConfigError(f"{name}={value!r}: unknown value{hint}")
    return value


@dataclass(frozen=True)
class Settings:
    root: Path = field(default_factory=Path.cwd)  # the folder relative patterns start from
    config_file: Optional[Path] = None
    # Every detection rule (RNG0xx): RNG100, unused-noqa, is off by default, as ruff's RUF100.
    select: tuple[str, ...] = ("RNG0",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDES
    extend_exclude: tuple[str, ...] = ()
    include: tuple[str, ...] = DEFAULT_INCLUDE
    extend_include: tuple[str, ...] = ()
    respect_gitignore: bool = True
    force_exclude: bool = False
    dataloader_classes: tuple[str, ...] = ()
    capture_contexts: tuple[str, ...] = ()
    seed_functions: tuple[str, ...] = ()
    set_epoch_wrappers: tuple[str, ...] = ()
    worker_seeding_loaders: tuple[str, ...] = ()
    fix_seed: Optional[int] = None  # None: not set (a fix then writes no literal outside scripts)
    line_length: Optional[int] = None  # the project's (ruff's, black's); None: 88
    unsafe_fixes: bool = False
    fixable: tuple[str, ...] = ("ALL",)
    unfixable: tuple[str, ...] = ()
    output_format: Optional[str] = None
    cache_dir: Optional[str] = None
    ignore_noqa: bool = False  # --ignore-noqa: no suppression comment counts (no config key)

    def fingerprint(self) -> str:
        """A digest of everything that changes findings (the cache key's settings part)."""
        cached: Optional[str] = self.__dict__.get("_fingerprint")
        if cached is None:
            cached = self._compute_fingerprint()
            object.__setattr__(self, "_fingerprint", cached)  # frozen: computed once
        return cached

    def _compute_fingerprint(self) -> str:
        data = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in ("output_format", "cache_dir", "config_file")
        }
        data["root"] = str(self.root)
        blob = json.dumps(data, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


# Checks a tuple of rule selectors given for an option (raises ConfigError for an unknown one).
SelectorCheck = Callable[[tuple[str, ...], str], None]


def _no_check(selectors: tuple[str, ...], option: str) -> None:
    return None


_GLOB_CHARS = frozenset("*?[")


def path_matches(path: Path, pattern: str, root: Path) -> bool:
    """ruff's exclusion globs: a bare name matches any path component's name; a pattern with a
    slash matches the path relative to ``root`` (or the absolute path)."""
    if "/" not in pattern:
        if _GLOB_CHARS.isdisjoint(pattern):
            return path.name == pattern
        return fnmatch.fnmatchcase(path.name, pattern)
    absolute = path if path.is_absolute() else Path.cwd() / path
    try:
        relative = absolute.relative_to(root).as_posix()
    except ValueError:
        relative = absolute.as_posix()
    pattern = pattern.rstrip("/")
    return (
        fnmatch.fnmatchcase(relative, pattern)
        or fnmatch.fnmatchcase(absolute.as_posix(), pattern)
        or fnmatch.fnmatchcase(relative, pattern + "/*")
    )


# -- reading files ---------------------------------------------------------------------------
_LIST_KEYS = {
    "select",
    "extend-select",
    "ignore",
    "extend-ignore",
    "exclude",
    "extend-exclude",
    "include",
    "extend-include",
    "dataloader-classes",
    "capture-contexts",
    "seed-functions",
    "set-epoch-wrappers",
    "worker-seeding-loaders",
    "fixable",
    "unfixable",
}
_BOOL_KEYS = {"respect-gitignore", "force-exclude", "unsafe-fixes"}
_STR_KEYS = {"output-format", "cache-dir"}
_INT_KEYS = {"fix-seed"}
KNOWN_KEYS = _LIST_KEYS | _BOOL_KEYS | _STR_KEYS | _INT_KEYS | {"per-file-ignores"}
OUTPUT_FORMATS = (
    "full",
    "concise",
    "grouped",
    "json",
    "json-lines",
    "junit",
    "github",
    "gitlab",
    "pylint",
    "rdjson",
    "azure",
    "sarif",
)


# What torch.manual_seed accepts (docs: [-0x8000_0000_0000_0000, 0xffff_ffff_ffff_ffff]).
SEED_MIN, SEED_MAX = -0x8000_0000_0000_0000, 0xFFFF_FFFF_FFFF_FFFF


def check_seed(value: int, where: str) -> None:
    if not SEED_MIN <= value <= SEED_MAX:
        raise ConfigError(
            f"{where} must be a seed torch.manual_seed accepts "
            f"(from {SEED_MIN:#x} to {SEED_MAX:#x}), not {value}"
        )


_LOADED: dict[tuple[Path, int, int], Optional[dict[str, Any]]] = {}


def load_file(path: Path) -> Optional[dict[str, Any]]:
    """The seedlint table of a config file; None for a pyproject.toml without one. Parsed once
    per process while the file is unchanged."""
    try:
        st = path.stat()
        key = (path, st.st_mtime_ns, st.st_size)
    except OSError:
        return _load_file(path)  # reports the error
    if key not in _LOADED:
        _LOADED[key] = _load_file(path)
    return _LOADED[key]


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's data; :class:`ConfigError` (one line naming the file and why) when it
    cannot be read or parsed: not a regular file, not UTF-8, invalid, nested too deeply."""
    try:
        return tomllib.loads(read_regular(path).decode("utf-8"))
    except NotRegularFile as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 ({error.reason})") from None
    except (RecursionError, MemoryError):
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None


def _load_file(path: Path) -> Optional[dict[str, Any]]:
    data = read_toml(path)
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        table = tool.get("seedlint") if isinstance(tool, dict) else None
        if table is None:
            return None
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: `tool.seedlint` must be a table")
        return table
    return data


def apply_table(
    settings: Settings, table: dict[str, Any], path: Path, check: SelectorCheck = _no_check
) -> Settings:
    """Validate a config table and apply it on top of ``settings``."""
    changes: dict[str, Any] = {}
    for key, value in table.items():
        attr = key.replace("-", "_")
        where = f"{path}: `{key}`"
        if key not in KNOWN_KEYS:
            hint = did_you_mean(key, KNOWN_KEYS)
            raise ConfigError(f"{path}: unknown key `{key}` in the seedlint configuration{hint}")
        if key in _LIST_KEYS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where} must be a list of strings")
            changes[attr] = tuple(value)
        elif key in _BOOL_KEYS:
            if not isinstance(value, bool):
                raise ConfigError(f"{where} must be true or false")
            changes[attr] = value
        elif key in _INT_KEYS:
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"{where} must be an integer")
            check_seed(value, where)
            changes[attr] = value
        elif key in _STR_KEYS:
            if not isinstance(value, str):
                raise ConfigError(f"{where} must be a string")
            if key == "output-format" and value not in OUTPUT_FORMATS:
                hint = did_you_mean(value, OUTPUT_FORMATS)
                raise ConfigError(f"{where} must be one of {', '.join(OUTPUT_FORMATS)}{hint}")
            changes[attr] = value
        elif key == "per-file-ignores":
            changes[attr] = _per_file_ignores(value, where, check)
    for key in ("select", "extend-select", "ignore", "extend-ignore", "fixable", "unfixable"):
        if key in table:
            try:
                check(tuple(table[key]), key)
            except ConfigError as error:
                raise ConfigError(f"{path}: {error}") from None
    return replace(settings, **changes)


def _per_file_ignores(
    value: object, where: str, check: SelectorCheck
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of glob = [codes]")
    result = []
    for pattern, codes in value.items():
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{where}: `{pattern}` must be a list of codes")
        try:
            check(tuple(codes), "per-file-ignores")
        except ConfigError as error:
            raise ConfigError(f"{where}: {error}") from None
        result.append((pattern, tuple(codes)))
    return tuple(result)


def parse_per_file_ignores(
    items: list[str], check: SelectorCheck = _no_check
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``--per-file-ignores 'tests/*.py:RNG001,RNG002'`` entries."""
    result = []
    for item in items:
        pattern, sep, codes = item.rpartition(":")
        if not sep or not pattern:
            raise ConfigError(f"--per-file-ignores: expected PATTERN:CODES, got `{item}`")
        parsed = tuple(c for c in codes.split(",") if c.strip())
        check(parsed, "per-file-ignores")
        result.append((pattern, parsed))
    return tuple(result)


def find_config_file(
    directory: Path, memo: Optional[dict[Path, Optional[Path]]] = None
) -> Optional[Path]:
    """The closest config file at or above ``directory`` that configures seedlint; with a
    ``memo``, each folder is looked at once. A loop up the folders, not a recursion: a path
    a thousand folders deep is an ordinary path."""
    return _closest(directory, memo, _config_in)


def _config_in(directory: Path) -> Optional[Path]:
    for name in CONFIG_FILES:
        candidate = directory / name
        if candidate.is_file() and (name != "pyproject.toml" or load_file(candidate) is not None):
            return candidate
    return None


_T = TypeVar("_T")


def _closest(
    directory: Path,
    memo: Optional[dict[Path, Optional[_T]]],
    look: Callable[[Path], Optional[_T]],
) -> Optional[_T]:
    """What ``look`` finds in ``directory`` or the closest folder above it that gives
    something; every folder looked at is remembered in ``memo``."""
    if memo is None:
        memo = {}
    walked: list[Path] = []
    found: Optional[_T] = None
    folder = directory
    while True:
        if folder in memo:
            found = memo[folder]
            break
        walked.append(folder)
        found = look(folder)
        if found is not None or folder.parent == folder:
            break
        folder = folder.parent
    for seen in walked:
        memo[seen] = found
    return found


def describe(
    settings: Settings,
    overrides: dict[str, Any],
    env: dict[str, str],
    line_length_file: Optional[Path] = None,
) -> list[tuple[str, Any, str]]:
    """Each setting of ``settings`` as (key, value, where it comes from): the command line, an
    environment variable, the configuration file, or the default (``--show-settings``).

    ``line-length`` is no ``[tool.seedlint]`` key: it is the project's formatter's, read from
    ``line_length_file`` (ruff's or black's configuration), which its row names."""
    table = (load_file(settings.config_file) or {}) if settings.config_file else {}
    rows = []
    for item in fields(Settings):
        if item.name in ("root", "config_file"):
            continue
        key = item.name.replace("_", "-")
        if item.name == "line_length" and item.name not in overrides:
            value = settings.line_length or 88
            if line_length_file is None:
                where = "default (no ruff or black configuration sets it)"
            else:
                tool = "ruff" if line_length_file.name != "pyproject.toml" else None
                if tool is None:
                    data = _read_toml(line_length_file).get("tool", {})
                    tool = "ruff" if isinstance(data.get("ruff"), dict) else "black"
                where = f"{line_length_file} ({tool}'s line-length; not a [tool.seedlint] key)"
            rows.append((key, value, where))
            continue
        if item.name == "ignore_noqa":  # a command-line option only, as ruff's
            where = "command line" if item.name in overrides else "default"
            rows.append((key, settings.ignore_noqa, f"{where} (--ignore-noqa; no config key)"))
            continue
        if item.name in overrides:
            where = "command line"
        elif key in env:
            where = f"environment ({env[key]})"
        elif key in table:
            where = str(settings.config_file)
        else:
            where = "default"
        rows.append((key, getattr(settings, item.name), where))
    return rows


FORMATTER_FILES = (".ruff.toml", "ruff.toml", "pyproject.toml")
_TOML: dict[tuple[Path, int, int], dict[str, Any]] = {}


def _read_toml(path: Path) -> dict[str, Any]:
    """A formatter configuration file's data (parsed once while it is unchanged); one that
    cannot be read or parsed is a configuration error, as it is to ruff."""
    try:
        st = path.stat()
    except OSError:
        return read_toml(path)  # reports the error
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in _TOML:
        _TOML[key] = read_toml(path)
    return _TOML[key]


def _formatter_line_length(path: Path) -> Optional[int]:
    """The line length a ruff or black config file sets; 88 for a ruff config without one;
    None when the file configures neither."""
    data = _read_toml(path)
    if path.name != "pyproject.toml":
        value = data.get("line-length", 88)
        return value if isinstance(value, int) and not isinstance(value, bool) else 88
    tool = data.get("tool")
    if not isinstance(tool, dict):
        return None
    for name in ("ruff", "black"):
        table = tool.get(name)
        if isinstance(table, dict):
            value = table.get("line-length", 88 if name == "ruff" else None)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return None


def find_line_length_file(directory: Path) -> Optional[Path]:
    """The ruff or black configuration file :func:`find_line_length` takes the line length
    from, or None (``--show-settings`` names it)."""
    for folder in [directory, *directory.parents]:
        for name in FORMATTER_FILES:
            candidate = folder / name
            if candidate.is_file() and _formatter_line_length(candidate) is not None:
                return candidate
    return None


def find_line_length(
    directory: Path, memo: Optional[dict[Path, Optional[int]]] = None
) -> Optional[int]:
    """The line length of the closest ruff (``line-length`` of ``ruff.toml``, ``.ruff.toml``,
    ``[tool.ruff]``) or black (``[tool.black]``) configuration at or above ``directory``."""
    return _closest(directory, memo, _line_length_in)


def _line_length_in(directory: Path) -> Optional[int]:
    for name in FORMATTER_FILES:
        candidate = directory / name
        if candidate.is_file():
            found = _formatter_line_length(candidate)
            if found is not None:
                return found
    return None


class SettingsResolver:
    """Settings for each file: the closest config file's, with CLI overrides on top."""

    def __init__(
        self,
        overrides: dict[str, Any],
        config: Optional[Path] = None,
        isolated: bool = False,
        check: SelectorCheck = _no_check,
    ) -> None:
        self.overrides = overrides
        self.isolated = isolated
        self.check = check
        self._by_file: dict[Optional[Path], Settings] = {}
        self._by_dir: dict[Path, Settings] = {}
        self._found: dict[Path, Optional[Path]] = {}
        self._line_lengths: dict[Path, Optional[int]] = {}
        self.fixed: Optional[Settings] = None
        if isolated:
            self.fixed = self._finish(Settings(root=Path.cwd()))
        elif config is not None:
            self.fixed = self._from_file(config)

    def _from_file(self, path: Optional[Path]) -> Settings:
        if path in self._by_file:
            return self._by_file[path]
        if path is None:
            settings = Settings(root=Path.cwd())
        else:
            path = path.resolve()
            if not path.is_file():
                raise ConfigError(f"{path}: configuration file not found")
            table = load_file(path) or {}
            base = Settings(root=path.parent, config_file=path)
            settings = apply_table(base, table, path, self.check)
        settings = self._finish(settings)
        self._by_file[path] = settings
        return settings

    def _finish(self, settings: Settings) -> Settings:
        return replace(settings, **self.overrides) if self.overrides else settings

    def for_path(self, path: Path) -> Settings:
        """The settings of the file or folder ``path``, with the line length of its closest
        ruff or black configuration (not with ``--isolated``, which reads no file)."""
        if self.isolated and self.fixed is not None:
            return self.fixed
        directory = (path if path.is_dir() else path.parent).absolute()
        cached = self._by_dir.get(directory)
        if cached is None:
            if self.fixed is not None:
                cached = self.fixed
            else:
                cached = self._from_file(find_config_file(directory, self._found))
            length = find_line_length(directory, self._line_lengths)
            if length is not None and "line_length" not in self.overrides:
                cached = replace(cached, line_length=length)
            self._by_dir[directory] = cached
        return cached

    def default(self) -> Settings:
        return self.fixed if self.isolated and self.fixed is not None else self.for_path(Path.cwd())
