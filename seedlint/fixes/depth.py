"""How deeply libcst would nest a module, from its ``ast``: the fixer's guard against a crash.

libcst's native parser recurses once per level of its own tree, in C stack, and a module
nested deeper than the stack holds kills the process with SIGSEGV (no exception to catch).
Its tree nests where ``ast``'s is flat: ``a and b and ... `` (a ``BoolOp`` of N values) is N
nested ``BooleanOperation`` nodes, ``a < b < ...`` N ``Comparison`` targets, and implicitly
concatenated strings one ``ConcatenatedString`` per part. :func:`fixer_depth` estimates that
depth; the fix loop refuses a module over :data:`FIX_DEPTH` (one error line, the file left as
it is) and runs libcst in a thread with a large stack (:mod:`seedlint.engine.deep`) over
:data:`DEEP_FROM`. Measured with libcst 1.9: every shape above, ``+`` chains, attribute, call,
subscript and unary chains and ``elif`` chains parse at 3,000 levels in an 8 MB stack, and at
6,000 in the large one; 10,000 ``and`` operands crash in an 8 MB stack.

The walk is cheap: a level of libcst's tree needs at least one character of the text, so a
node whose text is shorter than what is left below the limit is not looked into; a module of
short statements costs one look at each top-level statement.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Sequence

FIX_DEPTH = 3_000
DEEP_FROM = 500


def fixer_depth(tree: ast.Module, text: str, starts: Sequence[int], limit: int = FIX_DEPTH) -> int:
    """An upper estimate of libcst's nesting of the module ``tree`` (parsed from ``text``,
    whose 0-based line start offsets are ``starts``), exact enough up to ``limit``: above it,
    some value over ``limit``."""
    deepest = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if node is not tree and depth + _span(node, starts) <= max(limit, deepest):
            continue  # too short to go deeper than the limit
        if isinstance(node, ast.BoolOp):
            step = len(node.values)
        elif isinstance(node, ast.Compare):
            step = len(node.ops) + 1
        elif isinstance(node, (ast.Constant, ast.JoinedStr)):
            deepest = max(deepest, depth + _parts(node, text, starts))
            if isinstance(node, ast.Constant):
                continue
            step = 1
        else:
            step = 1
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.expr_context, ast.boolop, ast.cmpop, ast.operator)):
                stack.append((child, depth + step))
    return deepest


def _span(node: ast.AST, starts: Sequence[int]) -> int:
    """An upper bound of the characters of ``node``'s text (its UTF-8 columns count bytes)."""
    row = getattr(node, "lineno", None)
    end_row = getattr(node, "end_lineno", None)
    if row is None or end_row is None:
        return 1 << 30  # no position: look into it
    if not 1 <= row <= end_row <= len(starts):
        return 1 << 30
    end_col: int = getattr(node, "end_col_offset", 0) or 0
    return int(starts[end_row - 1] + end_col - starts[row - 1] + 1)


def _parts(node: ast.AST, text: str, starts: Sequence[int]) -> int:
    """libcst's levels in a long constant's text: the string literals it is concatenated from,
    or, for a constant that stands for a hollowed value (``seedlint.analysis.compact``), the
    operators in it (1 for a short constant)."""
    row = getattr(node, "lineno", 1)
    end_row = getattr(node, "end_lineno", row)
    if end_row is None or not 1 <= row <= end_row <= len(starts):
        return 1
    first = starts[row - 1] + getattr(node, "col_offset", 0)
    last = starts[end_row] if end_row < len(starts) else len(text)
    segment = text[first:last]
    strings = isinstance(node, ast.JoinedStr) or isinstance(getattr(node, "value", None), str)
    if strings and segment.count("'") + segment.count('"') < 2 * DEEP_FROM:
        return 1
    if not strings and len(segment) < DEEP_FROM:
        return 1
    count = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(segment).readline):
            if strings:
                count += token.type == tokenize.STRING
            elif token.type == tokenize.OP:
                count += token.string not in _FLAT
            elif token.type == tokenize.NAME:
                count += token.string in _WORDS
    except (tokenize.TokenError, SyntaxError):
        pass
    return max(count, 1)


_FLAT = frozenset(",:;()[]{}")  # a list of a million numbers is one level
_WORDS = frozenset({"and", "or", "not", "if", "else", "is", "in", "lambda", "await"})
