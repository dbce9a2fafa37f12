"""Which lines of a notebook cell are IPython syntax, decided where IPython decides it.

IPython turns a cell into Python with the input transformer of
``IPython.core.inputtransformer2`` (``TransformerManager.transform_cell``): it drops the cell's
leading blank lines and common indentation, makes a cell whose first line starts with ``%%`` one
cell-magic call, then rewrites one piece of special syntax at a time, tokenizing the cell
again after each, always the earliest piece first:

* an escaped command: a *logical* line whose first token is ``%``, ``!``, ``?``, ``,``, ``;``
  or ``/`` (a line magic, a shell escape, help, or an auto-call), with the physical lines its
  backslash continuations add;
* ``x = %magic`` and ``x = !cmd``: an ``=`` outside brackets followed by ``%name`` or ``!``;
* help at the end, ``obj?`` / ``obj??``: a logical line whose last token is ``?``, when what is
  before it is a dotted name (else IPython leaves the line, and the cell does not compile).

So a line inside brackets, inside a string, or after a backslash continuation of a Python line
is never a magic: ``print('%d' \\`` followed by ``% (epoch))`` is Python.

:func:`ipython_syntax` answers with IPython's own transformer when IPython can be imported
(wherever notebooks run), and :func:`own_syntax` (the same rules, on the standard library's
``tokenize``) when it cannot; ``tests/test_notebook_ipython.py`` checks that both agree on
generated cells. Both answer in the cell's own lines: which lines a piece of syntax takes
(:class:`Span`), and the name of a cell magic when the cell is one.
"""

from __future__ import annotations

import re
import sys
import textwrap
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, cast

ESCAPES = frozenset({"%", "!", "?", ",", ";", "/"})
LOOP_LIMIT = 500  # IPython's TRANSFORM_LOOP_LIMIT
_HELP_END = re.compile(r"(%{0,2}(?!\d)[\w*]+(\.(?!\d)[\w*]+|\[-?[0-9]+\])*)(\?\??)$")
_CELL_MAGIC_HELP = re.compile(r"%%\w+\?")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
# The tokenizer errors IPython reads past (IPython.utils.tokenutil), and "expected EOF".
_CAUGHT = (
    "unterminated string literal",
    "invalid non-printable character",
    "after line continuation character",
    "invalid decimal literal",
    "invalid binary literal",
    "invalid octal literal",
    "invalid hexadecimal literal",
    "in binary literal",
    "in octal literal",
    "expected EOF",
)


@dataclass(frozen=True)
class Span:
    """Lines ``first`` to ``last`` (0-based, of the cell) are one piece of IPython syntax."""

    first: int
    last: int


@dataclass
class Syntax:
    """The IPython syntax of one cell."""

    magic: Optional[str] = None  # the cell magic's name when the cell is one (``%%bash``)
    magic_line: int = 0  # the line of the ``%%`` (leading blank lines come before it)
    spans: list[Span] = field(default_factory=list)

    def lines(self) -> set[int]:
        """Every line that is IPython syntax (the cell-magic line included)."""
        found = {line for span in self.spans for line in range(span.first, span.last + 1)}
        if self.magic is not None:
            found.add(self.magic_line)
        return found


def cell_lines(source: str) -> list[str]:
    """The cell's lines with their endings, split where Python splits lines."""
    return _LINE.findall(source)


# -- the loop both answers share --------------------------------------------------------------
Transform = Callable[[list[str]], Optional[list[str]]]


def _cleaned(lines: list[str], dedent: Callable[[list[str]], list[str]]) -> tuple[list[str], int]:
    """IPython's first steps: leading blank lines dropped, then the common indentation; the
    lines and how many were dropped (0-based index of the first line kept)."""
    dropped = 0
    while dropped < len(lines) and not lines[dropped].strip():
        dropped += 1
    if dropped == len(lines):
        return lines, 0  # IPython keeps a cell of blank lines as it is
    kept = lines[dropped:]
    dedented = dedent(kept)
    return (dedented if len(dedented) == len(kept) else kept), dropped


def _magic_name(first: str) -> Optional[str]:
    """The cell magic named on a cell's first line, as IPython's ``cell_magic`` reads it."""
    if not first.startswith("%%") or _CELL_MAGIC_HELP.match(first):
        return None
    return first[2:].rstrip().partition(" ")[0]


def _run(lines: list[str], step: Callable[[list[str]], Optional[list[str]]]) -> list[Span]:
    """Apply ``step`` (one transformation, None when there is none left) until it stops, and
    say which of the original ``lines`` each transformed line came from."""
    origin: list[tuple[int, int]] = [(i, i) for i in range(len(lines))]
    spans: list[Span] = []
    for _ in range(LOOP_LIMIT):
        new = step(lines)
        if new is None or new == lines:
            break
        prefix = 0
        limit = min(len(lines), len(new))
        while prefix < limit and lines[prefix] == new[prefix]:
            prefix += 1
        suffix = 0
        while (
            suffix < limit - prefix and lines[len(lines) - 1 - suffix] == new[len(new) - 1 - suffix]
        ):
            suffix += 1
        old_end, new_end = len(lines) - suffix, len(new) - suffix
        if old_end <= prefix:  # only lines were added: nothing of the cell is syntax
            break
        first, last = origin[prefix][0], origin[old_end - 1][1]
        merged = [(first, last)] * (new_end - prefix)
        origin = origin[:prefix] + merged + origin[old_end:]
        spans = [span for span in spans if span.last < first or span.first > last]
        spans.append(Span(first, last))
        lines = new
    return sorted(spans, key=lambda span: span.first)


def _syntax(
    source: str,
    dedent: Callable[[list[str]], list[str]],
    step: Callable[[list[str]], Optional[list[str]]],
) -> Syntax:
    lines = cell_lines(source)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"  # IPython's transform_cell ends the cell with a newline
    cleaned, dropped = _cleaned(lines, dedent)
    if not cleaned:
        return Syntax()
    magic = _magic_name(cleaned[0])
    if magic is not None:
        return Syntax(magic, dropped)
    spans = _run(cleaned, step)
    return Syntax(spans=[Span(s.first + dropped, s.last + dropped) for s in spans])


# -- IPython's own transformer ----------------------------------------------------------------
_IPYTHON: Optional[Any] = None  # the module, once imported; False when it cannot be


def ipython_module() -> Optional[Any]:
    """``IPython.core.inputtransformer2``, or None when IPython is not installed."""
    global _IPYTHON
    if _IPYTHON is None:
        try:
            from IPython.core import inputtransformer2  # type: ignore[import-not-found,unused-ignore]
        except Exception:  # not installed, or broken: our own rules answer
            _IPYTHON = False
        else:
            _IPYTHON = cast(Any, inputtransformer2)
    return _IPYTHON or None


def ipython_syntax(source: str) -> Optional[Syntax]:
    """The cell's IPython syntax as IPython's transformer finds it; None without IPython (or
    when it fails on the cell)."""
    module = ipython_module()
    if module is None:
        return None
    manager = module.TransformerManager()

    def dedent(lines: list[str]) -> list[str]:
        for cleanup in manager.cleanup_transforms[1:]:  # the first drops blank lines: done
            lines = cleanup(lines)
        return list(lines)

    def step(lines: list[str]) -> Optional[list[str]]:
        changed, new = manager.do_one_token_transform(lines)
        return list(new) if changed else None

    try:
        return _syntax(source, dedent, step)
    except Exception:  # IPython's own error on this cell: our rules answer
        return None


# -- our own rules, when IPython is not installed ----------------------------------------------
def _tokens(lines: Sequence[str]) -> Iterator[tokenize.TokenInfo]:
    """The tokens of ``lines``, reading past the errors IPython reads past."""
    readline = iter(lines).__next__
    last: Optional[tokenize.TokenInfo] = None
    try:
        for token in tokenize.generate_tokens(readline):
            last = token
            yield token
    except tokenize.TokenError as error:
        message = str(error.args[0]) if error.args else ""
        if any(caught in message for caught in _CAUGHT):
            start = (last.start[0], last.end[0]) if last is not None else (1, 0)
            yield tokenize.TokenInfo(tokenize.ERRORTOKEN, "", start, start, "")
        # else: the cell ends inside a string or brackets; the tokens so far stand
    except SyntaxError:  # an inconsistent dedent: the tokens so far stand
        return


def logical_lines(lines: Sequence[str]) -> list[list[tokenize.TokenInfo]]:
    """The tokens grouped by logical line: a bracketed expression over several lines is one
    (as IPython's ``make_tokens_by_line`` groups them)."""
    groups: list[list[tokenize.TokenInfo]] = [[]]
    depth = 0
    for token in _tokens(lines):
        groups[-1].append(token)
        if token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth <= 0):
            groups.append([])
        elif token.type == tokenize.OP and token.string in ("(", "[", "{"):
            depth += 1
        elif token.type == tokenize.OP and token.string in (")", "]", "}") and depth > 0:
            depth -= 1
    if not groups[-1]:
        groups.pop()
    return groups


def _assign_at(line: list[tokenize.TokenInfo]) -> Optional[int]:
    depth = 0
    for index, token in enumerate(line):
        if token.string == "=" and depth == 0:
            return index
        if token.string in ("(", "[", "{"):
            depth += 1
        elif token.string in (")", "]", "}") and depth > 0:
            depth -= 1
    return None


def _continued_to(lines: Sequence[str], start: int) -> int:
    """The last line of the backslash continuation that starts at ``start``."""
    end = start
    while end < len(lines) and lines[end].endswith("\\\n"):
        end += 1
    return min(end, len(lines) - 1)


_PRE_312 = sys.version_info < (3, 12)


def _find_magic_assign(groups: list[list[tokenize.TokenInfo]]) -> Optional[tuple[int, int]]:
    for line in groups:
        at = _assign_at(line)
        if (
            at is not None
            and len(line) >= at + 3
            and line[at + 1].string == "%"
            and line[at + 2].type == tokenize.NAME
        ):
            return line[at + 1].start
    return None


def _find_system_assign(groups: list[list[tokenize.TokenInfo]]) -> Optional[tuple[int, int]]:
    for line in groups:
        at = _assign_at(line)
        if at is None or line[at].line.strip().startswith("=") or len(line) < at + 2:
            continue
        if _PRE_312:
            index = at + 1
            while index < len(line) and line[index].type == tokenize.ERRORTOKEN:
                if line[index].string == "!":
                    return line[index].start
                if not line[index].string.isspace():
                    break
                index += 1
        elif line[at + 1].type == tokenize.OP and line[at + 1].string == "!":
            return line[at + 1].start
    return None


def _first_token(line: list[tokenize.TokenInfo]) -> Optional[tokenize.TokenInfo]:
    for token in line:
        if token.type not in (tokenize.INDENT, tokenize.DEDENT):
            return token
    return None


def _find_escaped(groups: list[list[tokenize.TokenInfo]]) -> Optional[tuple[int, int]]:
    for line in groups:
        first = _first_token(line)
        if first is not None and first.string in ESCAPES:
            return first.start
    return None


def _find_help_end(
    groups: list[list[tokenize.TokenInfo]],
) -> Optional[tuple[tuple[int, int], tuple[int, int]]]:
    for line in groups:
        if len(line) > 2 and line[-2].string == "?":
            first = _first_token(line)
            if first is not None:
                return first.start, line[-2].start
    return None


def _replace(lines: list[str], first: int, last: int, head: str) -> list[str]:
    """``lines`` with ``first``..``last`` made one line that stands for a Python call."""
    return [*lines[:first], head + "_ipython_()\n", *lines[last + 1 :]]


def _own_step(lines: list[str]) -> Optional[list[str]]:
    """One transformation, as IPython's ``do_one_token_transform`` makes it: the earliest
    piece of syntax that can be rewritten (help at the end before an escape at the same
    place)."""
    groups = logical_lines(lines)
    candidates: list[tuple[int, int, int, Transform]] = []

    def assign(at: tuple[int, int]) -> Transform:
        row, col = at[0] - 1, at[1]
        return lambda ls: _replace(ls, row, _continued_to(ls, row), ls[row][:col])

    def escaped(at: tuple[int, int]) -> Transform:
        row, col = at[0] - 1, at[1]

        def apply(ls: list[str]) -> Optional[list[str]]:
            end = _continued_to(ls, row)
            if ls[row][col:].startswith("/") and _joined(ls, row, col, end)[1:2] in ("", " "):
                return None  # `/` needs a callable after it: IPython raises and goes on
            return _replace(ls, row, end, ls[row][:col])

        return apply

    def help_end(at: tuple[int, int], question: tuple[int, int]) -> Transform:
        row, col, q_row = at[0] - 1, at[1], question[0] - 1

        def apply(ls: list[str]) -> Optional[list[str]]:
            content = "".join(ls[row : q_row + 1])[col:]
            if not _HELP_END.search(content):
                return None  # not a name before the `?`: IPython leaves it
            return _replace(ls, row, q_row, ls[row][:col])

        return apply

    found = _find_magic_assign(groups)
    if found is not None:
        candidates.append((found[0], found[1], 10, assign(found)))
    found = _find_system_assign(groups)
    if found is not None:
        candidates.append((found[0], found[1], 10, assign(found)))
    found = _find_escaped(groups)
    if found is not None:
        candidates.append((found[0], found[1], 10, escaped(found)))
    help_found = _find_help_end(groups)
    if help_found is not None:
        at, question = help_found
        candidates.append((at[0], at[1], 5, help_end(at, question)))
    for _, _, _, transform in sorted(candidates, key=lambda c: c[:3]):
        new = transform(lines)
        if new is not None:
            return new
    return None


def _joined(lines: Sequence[str], row: int, col: int, end: int) -> str:
    parts = [lines[row][col:], *lines[row + 1 : end + 1]]
    return " ".join([p.rstrip()[:-1] for p in parts[:-1]] + [parts[-1].rstrip()])


def _own_dedent(lines: list[str]) -> list[str]:
    return textwrap.dedent("".join(lines)).splitlines(keepends=True)


def own_syntax(source: str) -> Syntax:
    """The cell's IPython syntax by our own rules (the same as IPython's, see the module)."""
    return _syntax(source, _own_dedent, _own_step)


# What every piece of IPython syntax needs (a cell with none of it has none): an escape at
# the start of a physical line (a logical line starts there), a `?`, or `=` then `%` or `!`.
_MAY_HAVE_SYNTAX = re.compile(
    r"(?:^|\r)[ \t\f]*[%!?,;/]|\?|=(?:[ \t\f]|\\(?:\r\n|\r|\n))*[%!]", re.MULTILINE
)


def syntax(source: str) -> Syntax:
    """The cell's IPython syntax: IPython's answer where it is installed, else ours."""
    if not _MAY_HAVE_SYNTAX.search(source):
        return Syntax()  # most cells: nothing to tokenize
    found = ipython_syntax(source)
    return found if found is not None else own_syntax(source)
