"""``ast.parse`` of a large module, a piece at a time, for a lower peak of memory.

``ast.parse`` builds the whole module twice at its peak: CPython's own tree (and the tokens)
in C memory, then the tree of Python objects made from it. For a module of 250,000 lines that
transient doubled the peak (about 1.6 GB where the Python tree alone is 1 GB). :func:`parse_module`
parses a large text in pieces of consecutive top-level statements, so that only one piece's C
tree exists at a time, and joins their statements into one ``ast.Module``: the same tree, node
for node, as ``ast.parse`` of the whole text.

Why the join is the same tree: a piece starts where a line begins with a character that can
start a statement at column 0 (never a space, a tab, a form feed, a comment, a closing bracket,
a backslash or ``else``/``elif``/``except``/``finally``), and it is kept only if it parses on
its own. A piece that parses ends with every bracket closed, no line continuation, no open
string and every block closed by the next column-0 line; so the whole text's tokens are the
pieces' tokens one after the other, and its statements the pieces' statements. Each piece is
preceded by as many empty lines as come before it, so that rows and columns are the whole
text's. Whenever a piece does not parse (a column-0 line inside a string, an ``else``-like line,
a syntax error), the piece is retried longer, and if the text's end is reached without a piece
that parses, the whole text is parsed at once, so that a syntax error is reported exactly as
``ast.parse`` reports it.

Each piece's tree is then made smaller before the next piece is parsed
(:mod:`seedlint.analysis.compact`): the values of top-level assignments that nothing can read
are hollowed (:class:`~seedlint.analysis.compact.Hollower`), and the nodes are copied into
compact nodes of the same classes (a third of the memory). A module of a million lines is then
checked in about 1 to 1.4 GB where its plain tree alone took 2.7 to 4.3 GB (``bench/scale.py
--million``). Both happen only to texts over :data:`LARGE` characters.
"""

from __future__ import annotations

import ast
import re
import warnings
import weakref
from typing import Optional

from seedlint.analysis.compact import Hollower, compact
from seedlint.engine.grammar import parse_lowered

# Texts up to this many characters are parsed at once; longer ones in pieces of about
# PIECE characters.
LARGE = 2_000_000
PIECE = 1_000_000

_STARTS = re.compile(r"^(?![ \t\f#\r\n)\]}\\]|(?:else|elif|except|finally)\b)", re.MULTILINE)


def parse_module(text: str, display: str, hollow: bool = True, lower: bool = True) -> ast.Module:
    """``ast.parse(text, filename=display)``, in pieces when the text is large (see above).

    A large text's tree is also compacted, and with ``hollow`` the values no analysis reads
    are hollowed (:mod:`seedlint.analysis.compact`). With ``lower``, a text for a newer
    Python is parsed lowered to this one's grammar (:mod:`seedlint.engine.grammar`).

    Raises what ``ast.parse`` of the whole text raises. Python 3.12+ warnings of the text
    (invalid escapes) are silenced, as the check does. While :func:`keep_parses` is on, the
    tree of a text parsed without lowering is kept for :func:`kept_parse` (the last one only).
    """
    with warnings.catch_warnings():  # Python 3.12+ warns of `"\d"`: not our business
        warnings.simplefilter("ignore")
        if len(text) <= LARGE:
            tree, as_is = _whole(text, display, lower)
        else:
            body = _pieces(text, display, Hollower(text) if hollow else None)
            if body is None:
                tree, as_is = _whole(text, display, lower)
            else:
                tree, as_is = ast.Module(body=body, type_ignores=[]), True
    if as_is:
        _NATIVE.add(tree)
        if _KEEP[0] and hollow:
            _KEPT[:] = [(text, tree)]
    return tree


# The trees parse_module made without lowering the text (seedlint.engine.splice joins only
# such trees: a lowered one may read its unchanged statements otherwise than a parse would).
_NATIVE: weakref.WeakSet[ast.Module] = weakref.WeakSet()


def native(tree: ast.Module) -> bool:
    """Whether ``tree`` is :func:`parse_module`'s of a text it did not lower (or was marked
    so by :func:`mark_native`)."""
    return tree in _NATIVE


def mark_native(tree: ast.Module) -> None:
    """Count ``tree`` as the tree of a text parsed without lowering."""
    _NATIVE.add(tree)


def _whole(text: str, display: str, lower: bool) -> tuple[ast.Module, bool]:
    """``ast.parse`` of the whole text, and whether it parsed as it is; a text for a newer
    Python than this one is parsed lowered to this one's grammar (with ``lower``)."""
    try:
        return ast.parse(text, filename=display), True
    except SyntaxError:
        tree = parse_lowered(text, display) if lower else None
        if tree is None:
            raise
        return tree, False


# -- one parse handed from a stage of a run to the next ----------------------------------
# A fix run parses each fixed file for the project's index, then again for its check; a json
# run parses it for the check, then again for the fix edits. While keeping is on, the last
# tree parse_module made is kept with its text, and the next stage takes it (one tree at most:
# the next parse replaces it).
_KEEP = [False]
_KEPT: list[tuple[str, ast.Module]] = []


def keep_parses(on: bool) -> None:
    """Keep the last tree :func:`parse_module` makes (``on``), or stop and drop it."""
    _KEEP[0] = on
    if not on:
        _KEPT.clear()


def kept_parse(text: str) -> Optional[ast.Module]:
    """The kept tree of ``text`` (taken: a second call gives None), or None."""
    if _KEPT and _KEPT[0][0] == text:
        return _KEPT.pop()[1]
    return None


def _lines(text: str, start: int, end: int) -> int:
    """Line breaks in ``text[start:end]`` as Python counts them (``\\r\\n``, ``\\r``, ``\\n``)."""
    return (
        text.count("\n", start, end) + text.count("\r", start, end) - text.count("\r\n", start, end)
    )


def _pieces(text: str, display: str, hollower: Optional[Hollower]) -> list[ast.stmt] | None:
    """The statements of ``text``, parsed piece by piece; None when no piece up to the end of
    the text parses (the caller then parses the whole text, for its exact error)."""
    body: list[ast.stmt] = []
    start, row = 0, 1  # the current piece: its first character and its first row
    want = PIECE
    for match in _STARTS.finditer(text):
        end = match.start()
        if end - start < want:
            continue
        piece = _parse_piece(text, start, end, row, display, hollower)
        if piece is None:
            want *= 2  # a longer piece next time: never quadratic in retries
            continue
        body.extend(piece)
        row += _lines(text, start, end)
        start, want = end, PIECE
    if start < len(text):
        last = _parse_piece(text, start, len(text), row, display, hollower)
        if last is None:
            return None
        body.extend(last)
    return body


def _parse_piece(
    text: str, start: int, end: int, row: int, display: str, hollower: Optional[Hollower]
) -> list[ast.stmt] | None:
    """The statements of ``text[start:end]`` (which starts on line ``row``), hollowed and
    compacted (:mod:`seedlint.analysis.compact`); None when the piece does not parse."""
    chunk = text[start:end]
    try:
        module = ast.parse("\n" * (row - 1) + chunk, filename=display)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # parsed again longer, or with the whole text for its exact error
    if hollower is not None:
        hollower.hollow(module.body, chunk, row)
    return compact(module).body
