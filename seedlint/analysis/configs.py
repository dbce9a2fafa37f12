"""Config files as sources of values: the YAML or JSON a program loads by a path its code names.

What is followed (``docs/values.md`` says it for users):

* ``OmegaConf.load("conf/train.yaml")``; ``yaml.safe_load(open(path))`` (also ``yaml.load``,
  ``yaml.full_load``, ``json.load``), directly or through ``with open(path) as f:``; the path
  is any value the model knows (a literal, an argparse default, a constant);
* Hydra's ``@hydra.main(config_path=..., config_name=...)``: the decorated function's first
  parameter is the composed config: the primary file, its ``defaults`` list (config groups,
  ``_self_``, ``override``, ``optional``, ``group@package``, ``# @package`` headers), merged
  as Hydra merges them;
* reads of the loaded config: ``cfg.data.num_workers``, ``cfg["data"]["num_workers"]``,
  ``cfg.get("shuffle", True)``, through names bound to a part of it and through the
  parameters of the module's functions that the module calls with it;
* ``${data.workers}`` interpolations of another key of the same config.

A key the config does not set, Hydra's ``???`` and other interpolations are unknown (may be
anything). This module is pure: a :class:`ConfigSource` reads and parses the files (the project
layer's, which records each file it read, so that a changed config invalidates the cache).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional, Protocol, Union

# A config's scalar, or its structure: a mapping of keys to entries, a list of entries.
ConfigValue = Union[None, bool, int, float, str, dict[str, "Entry"], tuple["Entry", ...]]


@dataclass(frozen=True)
class Entry:
    value: ConfigValue
    row: int  # 1-based; 0 when the parser gave none
    file: str  # the file as shown (from the project's root)
    path: str = ""  # the file's absolute path


@dataclass(frozen=True)
class ConfigFile:
    root: Entry
    package: Optional[str] = None  # a Hydra `# @package X` header's X


class ConfigSource(Protocol):
    def read(self, written: str, folder: Optional[str] = None) -> Optional[ConfigFile]:
        """The file ``written`` names, parsed: relative to the module's folder (or the
        project's root) when ``folder`` is None, else relative to ``folder`` (itself relative
        to the module's folder, as Hydra's ``config_path`` is). None: no such readable file in
        the project."""


# Calls that return a file's parsed content: (module, function) by their last names.
_FILE_LOADERS = frozenset({"load"})  # OmegaConf.load(path)
_STREAM_LOADERS = frozenset({"safe_load", "load", "full_load", "unsafe_load"})  # yaml, json
_LOADER_MODULES = frozenset({"yaml", "json", "ruamel", "OmegaConf"})
_MAX_DEFAULTS_DEPTH = 8


def load_call(call: ast.Call) -> Optional[tuple[str, ast.expr]]:
    """``("file", path)`` for ``OmegaConf.load(path)``; ``("stream", stream)`` for
    ``yaml.safe_load(stream)`` (and ``json.load``); None for any other call."""
    func = call.func
    if not isinstance(func, ast.Attribute) or not call.args:
        return None
    owner = func.value
    owner_name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
    if owner_name not in _LOADER_MODULES:
        return None
    if owner_name == "OmegaConf":
        return ("file", call.args[0]) if func.attr in _FILE_LOADERS else None
    if func.attr in _STREAM_LOADERS:
        return "stream", call.args[0]
    return None


def open_path(expr: ast.expr) -> Optional[ast.expr]:
    """The path of ``open(path)`` (or ``io.open``, ``Path(path).open()``), else None."""
    if not isinstance(expr, ast.Call):
        return None
    func = expr.func
    if isinstance(func, ast.Name) and func.id == "open" and expr.args:
        return expr.args[0]
    if isinstance(func, ast.Attribute) and func.attr == "open":
        base = func.value
        if isinstance(base, ast.Name) and base.id == "io" and expr.args:
            return expr.args[0]
        if isinstance(base, ast.Call) and getattr(base.func, "id", "") == "Path" and base.args:
            return base.args[0]
    return None


def hydra_main(function: ast.AST) -> Optional[tuple[ast.expr, ast.expr]]:
    """``(config_path, config_name)`` of a ``@hydra.main(...)`` decorator (either may be a
    ``None`` constant), else None."""
    for decorator in getattr(function, "decorator_list", ()):
        if not isinstance(decorator, ast.Call):
            continue
        func = decorator.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        owner = getattr(func.value, "id", "") if isinstance(func, ast.Attribute) else "hydra"
        if name != "main" or owner != "hydra":
            continue
        keywords = {k.arg: k.value for k in decorator.keywords if k.arg is not None}
        none = ast.Constant(value=None)
        path = keywords.get("config_path", decorator.args[0] if decorator.args else none)
        name_expr = keywords.get(
            "config_name", decorator.args[1] if len(decorator.args) > 1 else none
        )
        return path, name_expr
    return None


# -- Hydra's composition ------------------------------------------------------------------------
def compose(source: ConfigSource, config_path: str, config_name: str) -> Optional[Entry]:
    """The config Hydra composes from ``config_name`` in ``config_path`` (its defaults list
    applied), or None when the primary file is not in the project."""
    primary = source.read(_with_suffix(config_name), folder=config_path)
    if primary is None:
        return None
    overrides = _overrides(primary.root)
    composed = _compose(source, config_path, "", "", primary, overrides, 0)
    return composed if isinstance(composed.value, dict) else None


def _with_suffix(name: str) -> str:
    return name if name.endswith((".yaml", ".yml")) else name + ".yaml"


def _overrides(root: Entry) -> dict[str, Optional[str]]:
    """The primary config's ``override group: option`` entries (they replace the choice of
    that group wherever a defaults list makes it)."""
    found: dict[str, Optional[str]] = {}
    for key, option in _defaults(root):
        if key is not None and key.startswith("override "):
            found[_group_of(key[len("override ") :])[0].strip("/")] = option
    return found


def _defaults(root: Entry) -> list[tuple[Optional[str], Optional[str]]]:
    """A config's defaults list: (key, option) per entry; key None for a plain name."""
    if not isinstance(root.value, dict) or "defaults" not in root.value:
        return []
    listed = root.value["defaults"].value
    if not isinstance(listed, tuple):
        return []
    found: list[tuple[Optional[str], Optional[str]]] = []
    for item in listed:
        if isinstance(item.value, str):
            found.append((None, item.value))
        elif isinstance(item.value, dict) and len(item.value) == 1:
            ((key, option),) = item.value.items()
            choice = option.value
            found.append((key, choice if isinstance(choice, str) or choice is None else "???"))
    return found


def _group_of(key: str) -> tuple[str, Optional[str]]:
    """``group@package`` -> (group, package)."""
    group, _, package = key.partition("@")
    return group.strip(), (package.strip() or None)


def _compose(
    source: ConfigSource,
    folder: str,
    group: str,
    package: str,
    config: ConfigFile,
    overrides: dict[str, Optional[str]],
    depth: int,
) -> Entry:
    """``config`` (of ``group``, placed at ``package``) with its defaults list merged in: the
    whole config's part it makes, from the root."""
    root = config.root
    if not isinstance(root.value, dict):
        return _nest(root, package)
    own = Entry({k: v for k, v in root.value.items() if k != "defaults"}, root.row, root.file)
    listed = _defaults(root)
    if not any(key is None and option == "_self_" for key, option in listed):
        listed.append((None, "_self_"))  # Hydra 1.1 and later: the config's own keys last
    merged = Entry({}, root.row, root.file)
    for key, option in listed:
        if key is None and option == "_self_":
            merged = merge(merged, _nest(own, package))
            continue
        if depth >= _MAX_DEFAULTS_DEPTH:
            continue
        if key is not None and key.startswith("override "):
            continue  # applied where the group is chosen
        optional = False
        if key is not None and key.startswith("optional "):
            key, optional = key[len("optional ") :], True
        placed: Optional[str] = None
        if key is None:  # a config (`base`, `db/mysql`, `/db/mysql`), at its group's package
            assert option is not None
            written, _, name = option.rpartition("/")
            child_group = written.strip("/") if option.startswith("/") else _join(group, written)
        else:
            written, placed = _group_of(key)
            child_group = written.strip("/") if written.startswith("/") else _join(group, written)
            chosen = overrides.get(child_group, option)
            if chosen is None:
                continue  # `group: null`: nothing chosen
            if chosen == "???" or "${" in chosen:
                return Entry(UNKNOWN_MAP, root.row, root.file)  # chosen on the command line
            name = chosen
        path = f"{child_group}/{_with_suffix(name)}" if child_group else _with_suffix(name)
        child = source.read(path, folder=folder)
        if child is None:
            if optional:
                continue
            return Entry(UNKNOWN_MAP, root.row, root.file)  # a file we cannot see
        placed = placed or child.package
        if placed is None:
            at = child_group.replace("/", ".")
        elif placed == "_global_":
            at = ""
        elif placed == "_here_":
            at = package
        else:
            at = _join_package(package if key is not None else "", placed)
        body = _compose(source, folder, child_group, at, child, overrides, depth + 1)
        merged = merge(merged, body)
    return merged


def _join_package(base: str, package: str) -> str:
    return ".".join(part for part in (base, package) if part)


# A part of a config that cannot be known (by identity): composed from what cannot be seen, a
# value of a tag no safe loader builds.
UNKNOWN_MAP: dict[str, Entry] = {}


def _join(group: str, child: str) -> str:
    return "/".join(part for part in (group, child) if part)


def _nest(entry: Entry, package: str) -> Entry:
    for key in reversed([p for p in package.split(".") if p]):
        entry = Entry({key: entry}, entry.row, entry.file)
    return entry


def merge(base: Entry, top: Entry) -> Entry:
    """``top`` merged over ``base`` as OmegaConf merges: mappings key by key, else ``top``."""
    if base.value is UNKNOWN_MAP or top.value is UNKNOWN_MAP:
        return Entry(UNKNOWN_MAP, top.row, top.file)
    if isinstance(base.value, dict) and isinstance(top.value, dict):
        merged = dict(base.value)
        for key, entry in top.value.items():
            merged[key] = merge(merged[key], entry) if key in merged else entry
        return Entry(merged, top.row, top.file)
    return top


# -- reads of a config --------------------------------------------------------------------------
class Unknown:
    """The answer for a key whose value the config does not give (absent, ``???``, an
    interpolation that cannot be followed, a part composed from what cannot be seen)."""


UNKNOWN = Unknown()


def lookup(
    root: Entry, start: Entry, keys: list[str], hops: int = 8
) -> Union[Entry, Unknown, None]:
    """The entry at ``keys`` below ``start`` (a part of the config ``root``): None when the
    config does not set a key on the way, :data:`UNKNOWN` when it cannot be told. ``hops``:
    how many interpolations may still be followed (``a: ${b}``, ``b: ${a}`` ends)."""
    entry = start
    for key in keys:
        entry_or = _resolved(root, entry, hops)
        if not isinstance(entry_or, Entry):
            return entry_or
        entry = entry_or
        if entry.value is UNKNOWN_MAP:
            return UNKNOWN
        if isinstance(entry.value, dict):
            if key not in entry.value:
                return None
            entry = entry.value[key]
        elif isinstance(entry.value, tuple) and key.lstrip("-").isdigit():
            index = int(key)
            if not -len(entry.value) <= index < len(entry.value):
                return None
            entry = entry.value[index]
        else:
            return None
    found = _resolved(root, entry, hops)
    if isinstance(found, Entry) and found.value is UNKNOWN_MAP:
        return UNKNOWN
    return found


def _resolved(root: Entry, entry: Entry, hops: int) -> Union[Entry, Unknown, None]:
    """``entry``, or the entry its ``${a.b}`` interpolation names; ``???`` is unknown."""
    while hops > 0:
        hops -= 1
        value = entry.value
        if not isinstance(value, str):
            return entry
        if value == "???":
            return UNKNOWN
        if "${" not in value:
            return entry
        if not (value.startswith("${") and value.endswith("}") and value.count("${") == 1):
            return UNKNOWN  # a string made of parts, or a resolver (`${oc.env:...}`)
        target = value[2:-1].strip()
        if not target or ":" in target or target.startswith("."):
            return UNKNOWN
        found = lookup(root, root, target.split("."), hops)
        if not isinstance(found, Entry):
            return UNKNOWN
        entry = found
    return UNKNOWN
