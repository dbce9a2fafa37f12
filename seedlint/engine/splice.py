"""The tree of a fixed module from the tree before the fix: only the changed statements are
parsed (and compiled) again.

A fix round changes a few top-level statements of a module (a call's arguments, an import, a
seed line, a new function), and the fix loop then needs two things of the new text: that it
still compiles, and its check. Both used to start from the whole text: a compile of the module
before and after the fix and a parse of the new text cost more than the check itself in a
module of 62,500 lines. :func:`splice` parses only the *regions* the fix changed and joins
the new statements with the old tree's others, shifted by the lines the fix added or removed.

A region is a run of top-level statements, from the first line of one (its decorators
included; the module's head for the first) to the line before the next one, that the line
diff of the two texts touches (an insertion belongs to the statement above it). Why the join
is the tree ``ast.parse`` makes of the whole new text: the lines before a region end with a
complete top-level statement, the lines after it start with one (both unchanged), and the new
region parses on its own, so it ends with every bracket and string closed, no line
continuation and every block closed; the whole text's tokens are then the three parts' tokens
one after the other (the argument :mod:`seedlint.engine.parse` makes for its pieces). Each
region is parsed after as many empty lines as come before it, so its rows and columns are the
whole text's, with the ``__future__`` features the statements before it import.

Compiling: each region is compiled alone before and after the fix (with those features); the
new text is valid when every region that compiled still compiles, and the others still
parse. What compiling checks beyond parsing is local to a statement (a repeated keyword, a
``return`` outside a function, ``nonlocal`` at the top), except where ``__future__`` imports
may stand (checked over the joined statements) and ``global`` at the module's top level (a
module that has one is not spliced).

:func:`splice` gives None whenever it cannot vouch for its tree: a region that does not parse
alone (the fix broke it, or it holds no whole statements), a tree parsed lowered to this
Python's grammar, a large module's tree that is not compacted, a size crossing the threshold
of the piecewise parse, a ``global`` at the top level, a hollowed value that the new code
could read (:func:`~seedlint.analysis.compact.hollowing_holds`). The caller then compiles
and parses the whole text, as before.
"""

from __future__ import annotations
import __future__

import ast
import bisect
import warnings
from dataclasses import dataclass
from typing import Optional

from seedlint.analysis.compact import ORIGINAL, compact, hollowed_names, hollowing_holds
from seedlint.engine.parse import LARGE, mark_native, native
from seedlint.fixes.text import lines, opcodes


@dataclass
class Spliced:
    tree: ast.Module  # the new text's tree (as parse_module makes it, hollowing aside);
    # when not valid, the old tree, unchanged
    valid: bool  # the new text compiles (or parses, where a region did not compile before)
    parsed_lines: int  # the lines of the new text that were parsed


@dataclass
class _Region:
    first: int  # the old statements body[first:last]
    last: int
    old_rows: tuple[int, int]  # 1-based, inclusive
    new_rows: tuple[int, int]


def splice(old_text: str, old_tree: ast.Module, new_text: str, display: str) -> Optional[Spliced]:
    """The tree of ``new_text`` (``old_text`` with a fix's changes; ``old_tree``: its tree),
    parsing only the top-level statements that changed; None when it cannot vouch for it
    (see the module's text). The old tree's statements move into the new tree (their rows
    shifted in place): when the result is valid, ``old_tree`` no longer fits the old text."""
    body = old_tree.body
    if not body or not native(old_tree) or (len(old_text) > LARGE) != (len(new_text) > LARGE):
        return None
    squeezed = any(type(statement) in ORIGINAL for statement in body[:1])
    if len(old_text) > LARGE and not squeezed:
        return None  # parsed whole (a piece did not parse alone): not worth the care
    if _top_level_global(body):
        return None
    old_lines, new_lines = lines(old_text), lines(new_text)
    regions = _regions(body, old_lines, new_lines)
    if regions is None:
        return None
    if not regions:
        return Spliced(old_tree, True, 0)
    futures = _futures(body)
    hollowed: set[str] = set()
    if squeezed:
        kept = [s for i, s in enumerate(body) if not any(r.first <= i < r.last for r in regions)]
        hollowed = hollowed_names(kept)
    valid = True
    parts: list[list[ast.stmt]] = []  # each region's new statements
    for region in regions:
        flags = _flags(region.first, futures)
        old_chunk = "".join(old_lines[region.old_rows[0] - 1 : region.old_rows[1]])
        new_chunk = "".join(new_lines[region.new_rows[0] - 1 : region.new_rows[1]])
        if new_chunk.rstrip("\r\n").endswith("\\"):
            return None  # a line continued past the region's end
        if squeezed and not hollowing_holds(hollowed, new_chunk):
            return None
        old_parsed = _parse(old_chunk, region.old_rows[0], display, flags)
        statements = _parse(new_chunk, region.new_rows[0], display, flags)
        if old_parsed is None or statements is None:
            return None
        if not squeezed and not _same(old_parsed, body[region.first : region.last]):
            return None  # the old tree is not what this region parses to
        if _top_level_global(statements):
            return None
        if _compiles(old_chunk, region.old_rows[0], display, flags):
            valid = valid and _compiles(new_chunk, region.new_rows[0], display, flags)
        if squeezed:
            statements = compact(ast.Module(body=statements, type_ignores=[])).body
        parts.append(statements)
    parsed = sum(r.new_rows[1] - r.new_rows[0] + 1 for r in regions)
    new_body: list[ast.stmt] = []
    moves: list[tuple[int, int, int]] = []  # new_body[start:end] moves by delta rows
    done = 0  # body[:done] is placed
    delta = 0  # rows added before the current statement
    for region, statements in zip(regions, parts):
        moves.append((len(new_body), len(new_body) + region.first - done, delta))
        new_body.extend(body[done : region.first])
        new_body.extend(statements)
        delta = region.new_rows[1] - region.old_rows[1]
        done = region.last
    moves.append((len(new_body), len(new_body) + len(body) - done, delta))
    new_body.extend(body[done:])
    if not (valid and _futures_first(new_body)):
        return Spliced(old_tree, False, parsed)  # the old tree left as it was
    # From here on the old tree's statements are the new tree's (their rows moved in place).
    for start, end, by in moves:
        _shift(new_body[start:end], by)
    tree = ast.Module(body=new_body, type_ignores=[])
    mark_native(tree)
    return Spliced(tree, True, parsed)


def _regions(
    body: list[ast.stmt], old_lines: list[str], new_lines: list[str]
) -> Optional[list[_Region]]:
    """The changed regions, in order (None: the diff does not line up with the tree)."""
    starts: list[int] = []  # the first row of each top-level span (statements sharing a line
    firsts: list[int] = []  # are one span), and its first statement
    last_row = 0
    for index, statement in enumerate(body):
        decorators = getattr(statement, "decorator_list", [])
        first = min([statement.lineno, *(d.lineno for d in decorators)])
        if starts and first <= last_row:
            last_row = max(last_row, statement.end_lineno or statement.lineno)
            continue
        starts.append(first)
        firsts.append(index)
        last_row = statement.end_lineno or statement.lineno
    count = len(old_lines)
    if last_row > count:
        return None
    starts[0] = 1  # the module's head belongs to the first span
    codes = opcodes(old_lines, new_lines)
    equal = [(i1, i2, j1) for tag, i1, i2, j1, _ in codes if tag == "equal"]
    marked: set[int] = set()
    for tag, i1, i2, _, _ in codes:
        if tag == "equal":
            continue
        low, high = (i1 + 1, i2) if i1 < i2 else (max(i1, 1), max(i1, 1))
        marked.update(range(_span(starts, low), _span(starts, high) + 1))

    def new_row(row: int) -> Optional[int]:  # an unchanged row's row in the new text
        at = bisect.bisect_right(equal, (row - 1, float("inf"), 0)) - 1
        if at < 0 or not equal[at][0] <= row - 1 < equal[at][1]:
            return None
        return row - equal[at][0] + equal[at][2]

    regions: list[_Region] = []
    for span in sorted(marked):
        if regions and regions[-1].last == firsts[span]:  # the next span: one region
            begin = regions.pop()
            span_first, old_first, new_first = begin.first, begin.old_rows[0], begin.new_rows[0]
        else:
            span_first, old_first = firsts[span], starts[span]
            before = new_row(old_first - 1) if old_first > 1 else 0
            if before is None:
                return None
            new_first = before + 1
        old_last = starts[span + 1] - 1 if span + 1 < len(starts) else count
        after = new_row(old_last + 1) if old_last < count else len(new_lines) + 1
        if after is None:
            return None
        last = firsts[span + 1] if span + 1 < len(firsts) else len(body)
        regions.append(_Region(span_first, last, (old_first, old_last), (new_first, after - 1)))
    return regions


def _span(starts: list[int], row: int) -> int:
    return max(bisect.bisect_right(starts, row) - 1, 0)


def _parse(chunk: str, row: int, display: str, flags: int) -> Optional[list[ast.stmt]]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            source = "\n" * (row - 1) + chunk
            module = compile(source, display, "exec", ast.PyCF_ONLY_AST | flags, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    assert isinstance(module, ast.Module)
    return module.body


def _compiles(chunk: str, row: int, display: str, flags: int) -> bool:
    try:
        with warnings.catch_warnings():  # the user's `x is 1` is not ours to warn about
            warnings.simplefilter("ignore")
            compile("\n" * (row - 1) + chunk, display, "exec", flags, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _same(parsed: list[ast.stmt], old: list[ast.stmt]) -> bool:
    if len(parsed) != len(old):
        return False
    return all(
        ast.dump(a, include_attributes=True) == ast.dump(b, include_attributes=True)
        for a, b in zip(parsed, old)
    )


def _is_future(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.ImportFrom) and statement.module == "__future__"


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _futures(body: list[ast.stmt]) -> list[tuple[int, int]]:
    """The module's ``__future__`` imports (they stand at its start): (index, their flags)."""
    found = []
    for index, statement in enumerate(body):
        if _is_future(statement):
            assert isinstance(statement, ast.ImportFrom)
            flags = 0
            for alias in statement.names:
                feature = getattr(__future__, alias.name, None)
                flags |= getattr(feature, "compiler_flag", 0)
            found.append((index, flags))
        elif not (index == 0 and _is_docstring(statement)):
            break
    return found


def _flags(first: int, futures: list[tuple[int, int]]) -> int:
    """The compiler flags of the ``__future__`` imports before statement ``first``."""
    flags = 0
    for index, value in futures:
        if index < first:
            flags |= value
    return flags


def _futures_first(body: list[ast.stmt]) -> bool:
    """Whether every ``__future__`` import stands at the module's start (after a docstring
    and other such imports only), as compiling the whole module requires."""
    start = 0
    while start < len(body) and (
        _is_future(body[start]) or (start == 0 and _is_docstring(body[start]))
    ):
        start += 1
    return not any(_is_future(statement) for statement in body[start:])


def _top_level_global(statements: list[ast.stmt]) -> bool:
    """Whether a ``global`` or ``nonlocal`` statement stands in the module's own scope (its
    top level, or a block of it that is no function or class)."""
    stack = list(statements)
    while stack:
        statement = stack.pop()
        if isinstance(statement, (ast.Global, ast.Nonlocal)):
            return True
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            stack.extend(getattr(statement, name, ()))
        for handler in getattr(statement, "handlers", ()):
            stack.extend(handler.body)
        for case in getattr(statement, "cases", ()):
            stack.extend(case.body)
    return False


def _shift(statements: list[ast.stmt], delta: int) -> None:
    """Move every row of ``statements`` by ``delta`` (in place; one ``int`` per row)."""
    if not delta or not statements:
        return
    memo: dict[int, int] = {}
    stack: list[ast.AST] = list(statements)
    pop, more, children = stack.pop, stack.extend, ast.iter_child_nodes
    while stack:
        node = pop()
        row = getattr(node, "lineno", None)
        if row is not None:
            new = memo.get(row)
            if new is None:
                new = memo[row] = row + delta
            node.lineno = new  # type: ignore[attr-defined]
            end = getattr(node, "end_lineno", None)
            if end is not None:
                new = memo.get(end)
                if new is None:
                    new = memo[end] = end + delta
                node.end_lineno = new  # type: ignore[attr-defined]
        more(children(node))
