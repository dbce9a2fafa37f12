"""What a file's bytes can say before it is parsed: the sound second stage of the pre-filter.

The first stage asks whether a rule's words occur at all. Some words are everywhere in PyTorch
code (``seed``, ``random``, ``graph``), so a rule can also ask the finer question this module
answers: can any ``X.attr`` in the text mean ``module.attr`` for one of a few modules?

The answer mirrors what :class:`seedlint.analysis.names.NameResolver` can resolve, and errs only
towards "yes". A qualified name is built from an import and the attribute names after it, so an
expression meaning ``random.seed`` is spelled in one of these ways:

* ``<base>.seed`` whose last name before ``.seed`` is one of the module's last names
  (``random`` in ``random.seed``, ``np.random.seed`` or ``torch.cuda.random.seed``);
* ``name.seed`` where ``name`` may denote the module: it is imported ``as name`` from such a
  last name (``import numpy.random as npr``), or assigned an expression that may (``r = random``,
  ``r = npr``, ``r = a if c else b``, ``r = (...)``);
* ``(...).seed``, unless the parentheses are a call's (``torch.Generator().seed``);
* a bare ``seed``, which only an import or a star import can tie to ``random.seed``.

Anything this scan cannot read (a comment between the name and the dot, a non-ASCII name)
counts as a possible hit.
"""

from __future__ import annotations

import functools
import keyword
import re
import sys
from collections.abc import Iterable, Iterator

from seedlint.analysis.names import module_spellings

_SPACE = b" \t\f\r\n\\"
# An import's name list: `import a, b as c`, `from m import (a,\n b)`, with `\`-continuations.
_COMMENT = re.compile(rb"#[^\r\n]*")
_IMPORT = re.compile(
    rb"import\b[ \t]*"
    rb"(?:\(((?:[^)#]|#[^\r\n]*(?![^\r\n]))*)\)"  # a parenthesised list, comments and all
    rb"|((?:[^\r\n\\;#]|\\(?:\r\n|.))*))",  # to the end of the logical line
    re.S,
)


@functools.cache
def _attribute_pattern(attrs: frozenset[str]) -> re.Pattern[bytes]:
    words = b"|".join(re.escape(a.encode()) for a in sorted(attrs))
    return re.compile(rb"\.(?:[ \t\f\r\n\\]|#[^\r\n]*(?![^\r\n]))*(?:" + words + rb")\b")


@functools.cache
def _words_pattern(words: frozenset[str]) -> re.Pattern[bytes]:
    return re.compile(rb"\b(?:" + b"|".join(re.escape(w.encode()) for w in sorted(words)) + rb")\b")


# What follows a name it assigns: ``name =``, ``name: T =``, ``name :=``, ``(name) =``.
_ASSIGNMENT_TAIL = re.compile(rb"[ \t\f)\\]*(?::[^=\r\n]*)?:?=(?!=)")
_SHORT = 2  # the longest name searched for by a pattern of its own


@functools.lru_cache(maxsize=256)
def _short_assignment(name: bytes) -> re.Pattern[bytes]:
    """``name`` followed by :data:`_ASSIGNMENT_TAIL`, as one pattern."""
    return re.compile(re.escape(name) + _ASSIGNMENT_TAIL.pattern)


def _assignments_of(raw: bytes, name: bytes) -> Iterator[tuple[int, int]]:
    """Where the text assigns ``name``: the start and end of each ``name`` followed by
    :data:`_ASSIGNMENT_TAIL`, found left to right without overlapping (as a regex of the two
    would find them), that starts the name itself (not a longer name ending in it, nor an
    attribute). A literal search and one shared pattern (no pattern is compiled per name),
    but for a name of one or two characters (``n``, ``gm``): the literal search would stop
    at every one of its letters, and one pattern per such name (few) scans in C."""
    size = len(name)
    if size <= _SHORT:
        for match in _short_assignment(name).finditer(raw):
            at = match.start()
            if not at or not (_is_word(raw[at - 1]) or raw[at - 1] == 46):  # `.`
                yield at, match.end()
        return
    at = raw.find(name)
    while at >= 0:
        tail = _ASSIGNMENT_TAIL.match(raw, at + size)
        if tail is None:
            at = raw.find(name, at + 1)
            continue
        if not at or not (_is_word(raw[at - 1]) or raw[at - 1] == 46):  # `.`
            yield at, tail.end()
        at = raw.find(name, tail.end())


# After `name =`: a dotted name, possibly `a if c else b`, to the end of the statement.
_DOTTED_RHS = re.compile(rb"[ \t\f]*([\w. \t\f]*)")
_DOTTED = re.compile(rb"[A-Za-z_]\w*(?:\.\w+)*")
_DOT_SPACES = re.compile(rb"\s*\.\s*")
_IF = re.compile(rb"\bif\b")
_ELSE = re.compile(rb"\belse\b")
_STATEMENT_END = (b"", b"\r", b"\n", b"#", b";", b")", b",")
_KEYWORDS = frozenset(
    kw.encode() for kw in keyword.kwlist if kw not in ("None", "True", "False")
) | frozenset({b"print", b"exec", b"match", b"case"})
# Words that no assignment or import binds (a syntax error): never a module's name.
_UNBINDABLE = frozenset(kw.encode() for kw in keyword.kwlist)


def _name_may_denote(raw: bytes, name: bytes, modules: frozenset[str], seen: set[bytes]) -> bool:
    """Whether the bare name ``name`` may denote a module whose last name is in ``modules``:
    it is one of them, it is imported ``as name`` from one, or it is assigned an expression
    that may denote one. (``from m import name`` binds ``m.name``, ``import name.x`` binds
    ``name``: both end in ``name`` itself.)"""
    if name.decode() in modules:
        return True
    if name in seen or name in _UNBINDABLE:
        return False  # `None`, `from` (`from .graph import g`): no name binds them
    seen.add(name)
    if b"import" in raw:
        listed = _joined_imports(raw)
        if name in listed:
            for match in _import_alias_pattern(name).finditer(listed):
                if match.group(1).decode() in modules:
                    return True
    for start, end in _assignments_of(raw, name):
        found = raw[start:end]
        if found.count(b'"') % 2 or found.count(b"'") % 2:
            return True  # `name: "a=b" = ...`: the `=` found is in a string of the annotation
        if _value_may_denote(raw, end, modules, seen):
            return True
    return False


@functools.lru_cache(maxsize=1024)
def _import_alias_pattern(name: bytes) -> re.Pattern[bytes]:
    """``x.last as name`` in an import list: group 1 is ``last``."""
    return re.compile(rb"(\w+)(?:\s|\\)+as(?:\s|\\)+" + re.escape(name) + rb"\b")


def _value_may_denote(raw: bytes, position: int, modules: frozenset[str], seen: set[bytes]) -> bool:
    """Whether the value assigned at ``position`` may denote such a module."""
    rhs = _DOTTED_RHS.match(raw, position)
    assert rhs is not None
    value = rhs.group(1)
    following = raw[rhs.end() : rhs.end() + 1]
    if following == b"\\" or following[:1] >= b"\x80":
        return True  # `name = \`, a non-ASCII name: not read here
    if following == b"(" and not value.strip():
        inner = _parenthesized(raw, rhs.end())
        return inner is None or _expression_may_denote(raw, inner, True, modules, seen)
    return _expression_may_denote(raw, value, following in _STATEMENT_END, modules, seen)


def _expression_may_denote(
    raw: bytes, value: bytes, complete: bool, modules: frozenset[str], seen: set[bytes]
) -> bool:
    """``value``: the text of an expression (``complete``) or of its start, up to the first
    character that cannot be part of a dotted name or of ``a if c else b``."""
    if b":=" in value or any(char >= 0x80 for char in value):
        return True  # `(x := m)`, a non-ASCII name: not read here
    conditional = _IF.search(value)
    if conditional is not None:
        if _expression_may_denote(raw, value[: conditional.start()], True, modules, seen):
            return True
        rest = value[conditional.end() :]
        otherwise = _ELSE.search(rest)
        if not complete or otherwise is None:
            return True  # the `else` branch is not all here: not read
        return _expression_may_denote(raw, rest[otherwise.end() :], True, modules, seen)
    if not complete:
        return False  # a call, a subscript, an operation or a literal follows
    value = _DOT_SPACES.sub(b".", value.strip())
    if not _DOTTED.fullmatch(value):
        return False
    first, _, last = value.rpartition(b".")
    if first:  # `a.b.last` means whatever `a.b` means, then `.last`
        return last.decode() in modules
    return _name_may_denote(raw, last, modules, seen)


def _parenthesized(raw: bytes, opening: int) -> bytes | None:
    """The text inside the ``(`` at ``opening``, or None when the scan cannot tell (a string
    or a comment inside, or too long)."""
    depth = 0
    limit = min(len(raw), opening + 4000)
    for index in range(opening, limit):
        char = raw[index]
        if char in b"\"'#":
            return None
        if char == 40:  # (
            depth += 1
        elif char == 41:  # )
            depth -= 1
            if depth == 0:
                return raw[opening + 1 : index]
    return None


def _is_word(char: int) -> bool:
    return char >= 0x80 or chr(char).isalnum() or char == 95  # `_`


def _call_before(raw: bytes, close: int) -> bool:
    """Whether the ``)`` at ``close`` ends a call (``f(...)``, ``g()(...)``) rather than a
    parenthesised expression; False when the scan cannot tell."""
    depth = 0
    index = close
    limit = max(0, close - 4000)
    while index >= limit:
        char = raw[index]
        if char in b"\"'":  # skip a one-line string backwards, to its opening quote
            opening = index
            while True:
                opening = raw.rfind(raw[index : index + 1], limit, opening)
                if opening < 0 or b"\n" in raw[opening:index]:
                    return False  # a string over several lines: not read here
                if raw[opening - 1 : opening] != b"\\":
                    break
            index = opening - 1
            continue
        if char == ord("#"):
            return False  # a comment inside: not read here
        if char == ord(")"):
            depth += 1
        elif char == ord("("):
            depth -= 1
            if depth == 0:
                break
        index -= 1
    else:
        return False
    index -= 1
    while index >= 0 and raw[index] in b" \t\f":
        index -= 1
    if index < 0:
        return False
    char = raw[index]
    if char in b")]":
        return True
    if not (chr(char).isalnum() or char == ord("_")):
        return False
    end = index + 1
    while index >= 0 and (chr(raw[index]).isalnum() or raw[index] == ord("_")):
        index -= 1
    if index >= 0 and raw[index] >= 0x80:
        return False
    return raw[index + 1 : end] not in _KEYWORDS


def _base_before(raw: bytes, dot: int) -> tuple[bytes, bool] | None:
    """The last name before the ``.`` at ``dot`` (``b")"`` for a parenthesised base, ``b""``
    for something that is not a name), and whether it is itself an attribute (``a.name``);
    None when the scan cannot tell."""
    index = _skip_back(raw, dot - 1)
    if index is None:
        return None
    if index < 0:
        return b"", False
    char = raw[index]
    if char == ord(")"):
        return b")", False
    if char >= 0x80:
        return None  # a non-ASCII name
    end = index + 1
    while index >= 0 and (chr(raw[index]).isalnum() or raw[index] == 95):
        index -= 1
    if index >= 0 and raw[index] >= 0x80:
        return None
    name = raw[index + 1 : end]
    before = _skip_back(raw, index)
    return name, before is not None and before >= 0 and raw[before] == ord(".")


def _skip_back(raw: bytes, index: int) -> int | None:
    """The last index at or before ``index`` that is not a space or a line continuation;
    None when a comment may sit in between (``(random  # ...`` on the line before)."""
    crossed = False
    while index >= 0 and raw[index] in _SPACE:
        crossed = crossed or raw[index] in b"\r\n"
        index -= 1
    if crossed and index >= 0:
        line_start = raw.rfind(b"\n", 0, index) + 1
        if b"#" in raw[line_start : index + 1]:
            return None
    return index


def _close_before(raw: bytes, dot: int) -> int:
    index = dot - 1
    while raw[index] in _SPACE:
        index -= 1
    return index


@functools.lru_cache(maxsize=8)
def import_lists(raw: bytes) -> tuple[bytes, ...]:
    """What follows each ``import`` keyword: the imported names, to the statement's end."""
    lists: list[bytes] = []
    for match in _IMPORT.finditer(raw):
        start = match.start()
        if start and _is_word(raw[start - 1]):
            continue  # `reimport`, `_import`
        listed = match.group(1)
        lists.append(match.group(2) if listed is None else _COMMENT.sub(b" ", listed))
    return tuple(lists)


def assigns(raw: bytes, name: str) -> bool:
    """Whether the text may assign ``name`` (``name =``, ``name: T =``, ``name :=``, in a
    tuple of targets) anywhere; an annotation (``x: name = ...``) is no assignment of it."""
    for start, _ in _assignments_of(raw, name.encode()):
        before = start - 1
        while before >= 0 and raw[before] in b" \t\f":
            before -= 1
        if before >= 0 and raw[before] in b":|":
            continue  # `x: name = ...`, `x: A | name = ...`: an annotation
        return True
    return False


@functools.lru_cache(maxsize=8)
def _joined_imports(raw: bytes) -> bytes:
    """Every import list of the text in one (``;`` between them: no match spans two)."""
    return b";".join(import_lists(raw))


def imports_any(raw: bytes, names: Iterable[str]) -> bool:
    """Whether some import statement imports one of ``names`` or everything (``*``)."""
    if b"import" not in raw:
        return False
    pattern = _words_pattern(frozenset(names))
    return any(b"*" in listed or pattern.search(listed) for listed in import_lists(raw))


# How many closer looks (a new name, a parenthesised base) a file may need before the scan
# gives up and says "may": each look is cheap, but a generated file can need thousands.
_BUDGET = 256


_ASCII_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@functools.lru_cache(maxsize=64)
def _anchors(attrs: frozenset[str]) -> tuple[tuple[bytes, ...], frozenset[bytes]]:
    """The attribute names that hold no other one (each name holds one of them: a literal
    search for them finds every name), and the names, encoded."""
    encoded = frozenset(a.encode() for a in attrs)
    anchors = tuple(sorted(a for a in encoded if not any(o != a and o in a for o in encoded)))
    return anchors, encoded


def _attribute_dots(raw: bytes, attrs: frozenset[str]) -> list[int] | None:
    """The positions of the ``.`` of every ``.attr`` in the text, as the ``_attribute_pattern``
    regex finds them, by literal searches for the names (many times faster than the regex,
    which tries every ``.``); None when a comment may stand between a ``.`` and a name."""
    anchors, names = _anchors(attrs)
    dots: set[int] = set()
    size = len(raw)
    for anchor in anchors:
        at = raw.find(anchor)
        while at >= 0:
            start = at
            while start > 0 and raw[start - 1] in _ASCII_WORD:
                start -= 1
            end = at + len(anchor)
            while end < size and raw[end] in _ASCII_WORD:
                end += 1
            if raw[start:end] in names:
                index = start - 1
                crossed = False
                while index >= 0 and raw[index] in _SPACE:
                    crossed = crossed or raw[index] in b"\r\n"
                    index -= 1
                if index >= 0 and crossed:
                    line_start = raw.rfind(b"\n", 0, index) + 1
                    if b"#" in raw[line_start : index + 1]:
                        return None
                if index >= 0 and raw[index] == 46:  # `.`
                    dots.add(index)
            at = raw.find(anchor, end)
    return sorted(dots)


def may_reach(raw: bytes, attrs: frozenset[str], modules: frozenset[str]) -> bool:
    """Whether the text may hold an expression meaning ``<module>.<attr>``, where ``modules``
    are the last names of the modules and ``attrs`` the attribute names (see the module's
    documentation for what counts). False only when no such expression can be resolved."""
    checked: dict[bytes, bool] = {}
    budget = _BUDGET
    dots = _attribute_dots(raw, attrs)
    if dots is None:  # a comment may stand between a `.` and the name: the regex reads it
        dots = [match.start() for match in _attribute_pattern(attrs).finditer(raw)]
    for dot in dots:
        found = _base_before(raw, dot)
        if found is None:
            return True
        base, is_attribute = found
        if base == b")" or (base and not is_attribute and base not in checked):
            budget -= 1
            if budget < 0:
                return True  # a file made of such attributes is parsed rather than scanned on
        if base == b")":
            # `f(...).seed` is an attribute of a call's result: never resolved.
            if _call_before(raw, _close_before(raw, dot)):
                continue
            return True
        if not base or base[:1].isdigit():
            continue
        if is_attribute:  # `x.base.seed`: `base` must be the module's own last name
            if base.decode() in modules:
                return True
            continue
        denotes = checked.get(base)
        if denotes is None:
            denotes = checked[base] = _name_may_denote(raw, base, modules, set())
        if denotes:
            return True
    return imports_any(raw, attrs)


def may_mean(raw: bytes, qualnames: Iterable[str]) -> bool:
    """Whether the text may hold an expression that resolves to one of ``qualnames`` (dotted
    names of module attributes, such as ``random.seed``), by :func:`may_reach`."""
    return may_reach(raw, *_attrs_and_modules(frozenset(qualnames)))


@functools.lru_cache(maxsize=64)
def _attrs_and_modules(qualnames: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    attrs: set[str] = set()
    modules: set[str] = set()
    for qualname in qualnames:
        module, _, attr = qualname.rpartition(".")
        attrs.add(attr)
        modules |= module_spellings(module)
    return frozenset(attrs), frozenset(modules)


# Comments and string literals, as Python 3.11's tokenizer ends them (a prefix changes no
# string's extent; in a raw string a backslash still keeps the quote after it in): the
# unrolled loops run in C over the runs of ordinary characters.
_IGNORED = re.compile(
    rb"#[^\r\n]*"
    rb'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    rb"|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    rb'|"[^"\r\n\\]*(?:\\.[^"\r\n\\]*)*"'
    rb"|'[^'\r\n\\]*(?:\\.[^'\r\n\\]*)*'",
    re.S,
)
# An f-string: from Python 3.12 its fields may hold strings in its own quotes, which the
# scan above would end it at.
_F_STRING = re.compile(rb"(?<![A-Za-z0-9_])[rRbB]?[fF][rRbB]?['\"]")
_NESTED_QUOTES = sys.version_info >= (3, 12)


@functools.lru_cache(maxsize=4)  # the loader rules ask the same of one file
def in_code(raw: bytes, words: tuple[bytes, ...]) -> bool:
    """Whether one of ``words`` occurs in the text outside comments and string literals (a
    name in docstrings and comments only cannot be called). Errs only towards yes: text that
    is not a complete string (an unclosed quote) counts as code, and so does every word of a
    file with f-strings where their fields may nest quotes (Python 3.12 and later)."""
    return _any_in_code(raw, sorted(at for word in words if word for at in _positions(raw, word)))


def names_in_code(raw: bytes, names: tuple[bytes, ...]) -> bool:
    """Whether one of ``names`` occurs as a whole name (not inside a longer one) outside
    comments and string literals; erring towards yes as :func:`in_code` does."""
    spots = sorted(
        at
        for name in names
        if name
        for at in _positions(raw, name)
        if not _name_byte(raw, at - 1) and not _name_byte(raw, at + len(name))
    )
    return _any_in_code(raw, spots)


def _name_byte(raw: bytes, at: int) -> bool:
    """Whether the byte at ``at`` may be part of a name (a letter, a digit, ``_``, or a byte of
    a non-ASCII character); False outside the text."""
    if at < 0 or at >= len(raw):
        return False
    byte = raw[at]
    return byte >= 0x80 or byte == 95 or 48 <= byte <= 57 or 65 <= byte <= 90 or 97 <= byte <= 122


def _any_in_code(raw: bytes, spots: list[int]) -> bool:
    """Whether one of the (sorted) positions lies outside comments and string literals."""
    if not spots:
        return False
    if not _lexable(raw):
        return True
    ignored = _IGNORED.finditer(raw)
    span: re.Match[bytes] | None = None
    for at in spots:
        while span is None or span.end() <= at:
            span = next(ignored, None)
            if span is None:
                return True  # after the last comment or string: code
        if span.start() > at:
            return True  # between two comments or strings: code
    return False


def _lexable(raw: bytes) -> bool:
    """Whether the scan of comments and strings reads the text as Python does: UTF-8 text
    (a file that is not, with a NUL byte or another encoding, is checked, and reported, whole)
    with no f-string whose fields may nest its own quotes."""
    if b"\0" in raw:
        return False
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return False
    return not (_NESTED_QUOTES and _F_STRING.search(raw) is not None)


def _positions(raw: bytes, word: bytes) -> Iterator[int]:
    at = raw.find(word)
    while at >= 0:
        yield at
        at = raw.find(word, at + 1)


_BLANK = bytes(byte if byte in b"\r\n" else 32 for byte in range(256))


@functools.lru_cache(maxsize=4)
def code_only(raw: bytes) -> bytes:
    """The text with every comment and string literal blanked (spaces, its line breaks kept):
    what a second stage reads when only code can hold what it looks for (an ``X.seed`` in a
    docstring is never called). The text itself where f-string fields may nest quotes."""
    if not _lexable(raw):
        return raw
    return _IGNORED.sub(lambda match: match.group().translate(_BLANK), raw)
