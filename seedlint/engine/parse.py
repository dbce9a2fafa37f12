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
from typing import Optional

from seedlint.analysis.compact import Hollower, compact
from seedlint.engine.grammar import parse_lowered

# Texts up to this many characters are parsed at once; longer ones in pieces of about
# PIECE characters.
LARGE = 2_000_000
PIECE = 1_000_000

_STARTS = re.compile(r"^(?![ \t\f#\r\n)\]}\\]|(?:else|elif|except|finally)\b)", re.MULTILINE)


def parse_module(text: str, display: str, hollow: bool = True) -> ast.Module:
    """``ast.parse(text, filename=display)``, in pieces when the text is large (see above).

    A large text's tree is also compacted, and with ``hollow`` the values no analysis reads
    are hollowed (:mod:`seedlint.analysis.compact`).

    Raises what ``ast.parse`` of the whole text raises. Python 3.12+ warnings of the text
    (invalid escapes) are silenced, as the check does.
    """
    with warnings.catch_warnings():  # Python 3.12+ warns of `"\d"`: not our business
        warnings.simplefilter("ignore")
        if len(text) <= LARGE:
            return _whole(text, display)
        body = _pieces(text, display, Hollower(text) if hollow else None)
        if body is None:
            return _whole(text, display)
        return ast.Module(body=body, type_ignores=[])


def _whole(text: str, display: str) -> ast.Module:
    """``ast.parse`` of the whole text; a text for a newer Python than this one is parsed
    lowered to this one's grammar (:mod:`seedlint.engine.grammar`)."""
    try:
        return ast.parse(text, filename=display)
    except SyntaxError:
        tree = parse_lowered(text, display)
        if tree is None:
            raise
        return tree


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
