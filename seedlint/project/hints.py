"""What a module's bytes say about its classes before it is parsed: enough for the project
index to tell that a name of a module it has not parsed cannot be a loader class.

A check run parses a module it did not check only when an answer looks into it (see
``run.summaries``). Most such looks ask whether a name a checked file calls (``ir.Layout``,
``utils.cache_on_self``) is a DataLoader class of the project; in a large project that parsed
its biggest modules to learn that they hold no loader. The hint answers the question from the
bytes instead, and errs only towards "may be one" (then the module is parsed, as before):

* a class can derive from a loader only if it names, among its bases, a loader class, a name
  that stands for one (an ``as`` import of one), or a class of its own module that derives from
  one; the names of every class that may, across the project, are found to a fixpoint
  (:func:`possible_loader_names`), from the parsed modules' summaries and the others' hints;
* a base the hint cannot read (a call, a ``*`` list, a string or a comment in the list, a name
  its module binds otherwise than by ``class`` or ``import``, such as ``Base = tud.DataLoader``)
  makes its class a possible loader;
* a name its module imports may re-export anything (a library's name reaches the rules through
  the index): the hint never rules it out, nor any name of a module with a star import;
* text the hint cannot read as Python (a class name that is not ASCII, a ``class`` statement
  continued with a backslash, an import list with a non-ASCII name) gives no hint at all.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Optional

from seedlint.prefilter.scan import assigns, import_lists
from seedlint.project.summary import ModuleSummary

_CLASS = re.compile(rb"class[ \t\f]+")  # a literal first: searched fast
_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")  # an ASCII name (a non-ASCII one: no hint)
_RENAMED = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)(?:\s|\\)+as(?:\s|\\)+([A-Za-z_][A-Za-z0-9_]*)")
_AS = re.compile(rb"(?:\s|\\)as(?:\s|\\)+([A-Za-z_][A-Za-z0-9_]*)")
_CONTINUED_CLASS = re.compile(rb"class\\(?:\r\n|\r|\n)")
_KEYWORD = re.compile(rb"\s*[A-Za-z_][A-Za-z0-9_]*\s*=(?!=)")
_DOTTED = re.compile(rb"\s*([A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*")
_SPACES = b" \t\f"
# Builtin bases that are no loader (unless the module rebinds the name: then not read).
_BUILTINS = frozenset(
    {"object", "Exception", "BaseException", "type", "dict", "list", "tuple", "set", "str", "int"}
)


@dataclass(frozen=True)
class ClassHint:
    """``classes``: each class name the bytes may define, with the last names of its bases
    (None: a base the hint cannot read); ``renamed``: ``(name, alias)`` of each
    ``import name as alias``; ``star``: a star import."""

    classes: Mapping[str, Optional[frozenset[str]]]
    renamed: tuple[tuple[str, str], ...]
    star: bool

    def may_hold_loader(self, rest: tuple[str, ...], loaders: frozenset[str]) -> bool:
        """Whether ``module.<rest>`` may be (or re-export) a loader class, given the names
        that may be one anywhere in the project (:func:`possible_loader_names`): a name
        among them, or any name of a module with a star import."""
        if self.star or not all(map(str.isascii, rest)):
            return True  # a star import may bind anything; a non-ASCII name is not read
        return any(name in loaders for name in rest)


def hint_to_json(hint: Optional[ClassHint]) -> Optional[list[object]]:
    """The hint as JSON (the summary table keeps the hints of modules it did not parse)."""
    if hint is None:
        return None
    classes = {
        name: None if bases is None else sorted(bases) for name, bases in hint.classes.items()
    }
    return [classes, [list(pair) for pair in hint.renamed], hint.star]


def hint_from_json(data: object) -> Optional[ClassHint]:
    """A hint as :func:`hint_to_json` wrote it (``ValueError`` for anything else)."""
    if data is None:
        return None
    if not isinstance(data, list) or len(data) != 3:
        raise ValueError("a class hint")
    classes, renamed, star = data
    if not isinstance(classes, dict) or not isinstance(renamed, list) or type(star) is not bool:
        raise ValueError("a class hint")
    read: dict[str, Optional[frozenset[str]]] = {}
    for name, bases in classes.items():
        if bases is not None and not (
            isinstance(bases, list) and all(isinstance(b, str) for b in bases)
        ):
            raise ValueError("a class hint's bases")
        read[str(name)] = None if bases is None else frozenset(bases)
    pairs: list[tuple[str, str]] = []
    for pair in renamed:
        if not isinstance(pair, list) or [type(x) for x in pair] != [str, str]:
            raise ValueError("a class hint's renamed import")
        pairs.append((pair[0], pair[1]))
    return ClassHint(read, tuple(pairs), star)


def class_hint(raw: bytes) -> Optional[ClassHint]:
    """The hint of a module's bytes, or None when they cannot be read this way."""
    renamed: list[tuple[str, str]] = []
    star = False
    suspects: set[str] = set()
    lists = import_lists(raw)
    bound = _Bound(lists)
    for listed in lists:
        star = star or b"*" in listed
        if b"as" in listed:
            renamed.extend((a.decode(), b.decode()) for a, b in _RENAMED.findall(listed))
            if not listed.isascii():  # `import Ñ as B`: B may stand for anything
                suspects.update(b.decode() for b in _AS.findall(listed))
    if _CONTINUED_CLASS.search(raw) is not None:
        return None  # `class\` and the name on the next line: not read here
    statements: list[tuple[str, Optional[list[bytes]]]] = []
    for match in _CLASS.finditer(raw):
        start = match.start()
        if start and (
            raw[start - 1] >= 0x80 or raw[start - 1 : start].isalnum() or raw[start - 1] == 95
        ):
            continue  # part of a longer name (`subclass`)
        line_start = max(raw.rfind(b"\n", 0, start), raw.rfind(b"\r", 0, start)) + 1
        if raw[line_start:start].strip(_SPACES):
            continue  # something before it on the line: not a class statement
        named = _NAME.match(raw, match.end())
        if named is None:
            if raw[match.end() : match.end() + 1] in (b"\\", b"") or raw[match.end()] >= 0x80:
                return None  # a continued statement, or a name that is not ASCII
            continue
        after = named.end()
        if after < len(raw) and raw[after] >= 0x80:
            return None  # a name that goes on in non-ASCII characters
        while after < len(raw) and raw[after] in _SPACES:
            after += 1
        char = raw[after : after + 1]
        if char == b"\\":
            return None
        if char == b"[":  # type parameters (Python 3.12)
            closing = _closing(raw, after, b"[", b"]")
            if closing is None:
                statements.append((named.group().decode(), None))
                continue
            after = closing + 1
            while after < len(raw) and raw[after] in _SPACES:
                after += 1
            char = raw[after : after + 1]
        if char == b":":
            statements.append((named.group().decode(), []))
        elif char == b"(":
            closing = _closing(raw, after, b"(", b")")
            inside = None if closing is None else raw[after + 1 : closing]
            statements.append((named.group().decode(), None if inside is None else [inside]))
        # anything else: not a class statement (`class of ...` in a docstring)
    defined = {name for name, _ in statements}
    classes: dict[str, Optional[frozenset[str]]] = {}
    assigned: dict[str, bool] = {}
    for name, inside_list in statements:
        bases = (
            None
            if inside_list is None
            else _bases(inside_list[0] if inside_list else b"", defined, bound, raw, assigned)
        )
        if name in classes:
            earlier = classes[name]
            bases = None if bases is None or earlier is None else earlier | bases
        classes[name] = bases
    for name in suspects:
        classes[name] = None  # stands for a name not read here: may be a loader class
    return ClassHint(classes, tuple(renamed), star)


def _closing(raw: bytes, opening: int, open_char: bytes, close_char: bytes) -> Optional[int]:
    """The index of the bracket closing the one at ``opening``; None when a string or a
    comment is inside (not read here) or it is not closed within 4,000 characters."""
    depth = 0
    for index in range(opening, min(len(raw), opening + 4000)):
        char = raw[index : index + 1]
        if char in (b'"', b"'", b"#"):
            return None
        if char in (b"(", b"["):
            depth += 1
        elif char in (b")", b"]"):
            depth -= 1
            if depth == 0:
                return index if char == close_char else None
    return None


class _Bound:
    """The names a module's imports may bind (every word of every import list), read from
    the lists only when a base needs them."""

    def __init__(self, lists: tuple[bytes, ...]) -> None:
        self._lists = lists
        self._names: Optional[set[str]] = None

    def __contains__(self, name: str) -> bool:
        if self._names is None:
            self._names = {w.decode() for listed in self._lists for w in _NAME.findall(listed)}
            self._names.discard("as")
        return name in self._names


def _bases(
    listed: bytes, defined: set[str], bound: _Bound, raw: bytes, assigned: dict[str, bool]
) -> Optional[frozenset[str]]:
    """The last names of the bases in a class statement's parentheses; None when one cannot
    be read (a call, ``*bases``, a name the module assigns, or binds otherwise than by a
    ``class`` or an import)."""
    names: set[str] = set()
    for part in _split(listed):
        if not part.strip(b" \t\f\r\n\\"):
            continue
        if _KEYWORD.match(part):
            continue  # `metaclass=...`
        # continued lines (any line ending)
        joined = part.replace(b"\\\r\n", b" ").replace(b"\\\n", b" ").replace(b"\\\r", b" ")
        dotted = _DOTTED.match(joined)
        if dotted is None:
            return None
        tail = joined[dotted.end() :]
        if tail and not tail.startswith(b"["):
            return None  # a call, an operator: not read
        spelled = [p.strip() for p in dotted.group(1).split(b".")]
        last = spelled[-1].decode()
        if len(spelled) == 1:
            if last not in assigned:
                assigned[last] = assigns(raw, last)
            if assigned[last]:
                return None  # `Base = tud.DataLoader`: a name bound by an assignment
            if last not in defined and last not in bound:
                if last not in _BUILTINS:
                    return None  # a parameter, a loop variable, a star import's: not read
                continue
        names.add(last)
    return frozenset(names)


def _split(listed: bytes) -> list[bytes]:
    """A base list split at its top-level commas."""
    parts: list[bytes] = []
    depth = 0
    start = 0
    for index, char in enumerate(listed):
        if char in b"([{":
            depth += 1
        elif char in b")]}":
            depth -= 1
        elif char == 44 and depth == 0:  # `,`
            parts.append(listed[start:index])
            start = index + 1
    parts.append(listed[start:])
    return parts


# A link: a name, and the names it stands for or derives from (``LOADER``: a class the module's
# own names make a loader class). A name is bound to a loader class when one of its names is.
Link = tuple[str, tuple[str, ...]]
LOADER = ""


def loader_links(summary: ModuleSummary, renamed_only: bool = False) -> tuple[Link, ...]:
    """The links of a parsed module: each class to its bases' last names (or to ``LOADER``),
    each import to the last name it imports. ``renamed_only``: leave out the imports under
    their own name (they bind no name that is not bound already: enough to find the names)."""
    if not summary.full:
        return ()
    links: list[Link] = []
    for key, info in summary.classes.items():
        last = key.rsplit(".", 1)[-1]
        if info.loader:
            links.append((last, (LOADER,)))
        elif info.bases:
            links.append(
                (last, tuple(sorted({base[1:].rsplit(".", 1)[-1] for base in info.bases})))
            )
    for name, target in summary.aliases.items():
        imported = target.rsplit(".", 1)[-1]
        if not renamed_only or imported != name:
            links.append((name, (imported,)))
    return tuple(links)


def loader_closure(links: Iterable[Link], roots: Iterable[str]) -> frozenset[str]:
    """The names the links bind to a loader class, to a fixpoint: a link's name when one of its
    names is a root (a DataLoader class's last name), ``LOADER``, or a name bound so."""
    bound: set[str] = set()
    _grow({*roots, LOADER}, list(links), bound)
    return frozenset(bound)


def _grow(names: set[str], links: Sequence[tuple[str, Collection[str]]], bound: set[str]) -> None:
    """Add to ``names`` and ``bound`` each link's name not in ``bound`` whose names meet
    ``names``, to a fixpoint (``bound`` may be ``names`` itself)."""
    changed = True
    while changed:
        changed = False
        for name, via in links:
            if name not in bound and not names.isdisjoint(via):
                names.add(name)
                bound.add(name)
                changed = True


def possible_loader_names(
    summaries: Mapping[str, ModuleSummary],
    hints: Iterable[ClassHint],
    targets: Iterable[str],
) -> frozenset[str]:
    """The last names of every class that may be a loader class anywhere in the project, and
    of every name that may stand for one (an ``as`` import): from the loader classes
    (``targets``), the parsed modules' classes and imports, and the hints of the others, to a
    fixpoint. A superset of what the index finds once every module is parsed."""
    # Its own links, not loader_links': hints make it hot (a cold run asks it of hundreds of
    # classes), and names known at once need no link here.
    names = {target.rsplit(".", 1)[-1] for target in targets}
    links: list[tuple[str, frozenset[str]]] = []
    for summary in summaries.values():
        if not summary.full:
            continue
        for key, info in summary.classes.items():
            last = key.rsplit(".", 1)[-1]
            if info.loader:
                names.add(last)
            links.append((last, frozenset(base[1:].rsplit(".", 1)[-1] for base in info.bases)))
        for name, target in summary.aliases.items():
            links.append((name, frozenset({target.rsplit(".", 1)[-1]})))
    for hint in hints:
        for name, bases in hint.classes.items():
            if bases is None:
                names.add(name)
            else:
                links.append((name, bases))
        for original, alias in hint.renamed:
            links.append((alias, frozenset({original})))
    _grow(names, links, names)
    return frozenset(names)
