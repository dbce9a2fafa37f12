"""Call arguments in the call's own layout: set a keyword, or append one after the others.

One argument per line stays one per line (with the trailing comma, when there is one, and any
comment after the last argument kept on its line); arguments on one line stay on one line, unless
the line would then exceed the project's line length: the call is then split one argument per
line with a trailing comma, as black and ruff format write it.
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from seedlint.analysis.facts import BoundCall, LoaderCall
from seedlint.analysis.names import Scope
from seedlint.fixes.context import Change, FixContext, parse_expression
from seedlint.fixes.locate import positional_index

Whitespace = cst.BaseParenthesizableWhitespace


def set_loader_argument(
    ctx: FixContext, change: Change, loader: LoaderCall, name: str, value: str
) -> bool:
    """Record in ``change`` that the loader call passes ``name=value``."""
    return set_call_argument(ctx, change, loader.call, name, value, positional_index(loader, name))


def set_call_argument(
    ctx: FixContext,
    change: Change,
    call: ast.Call,
    name: str,
    value: str,
    position: Optional[int] = None,
) -> bool:
    """Record in ``change`` that ``call`` passes ``name=value`` (``position``: where ``name``
    sits among the callee's positional parameters, None when it is passed by keyword only)."""
    node = ctx.node(call, cst.Call)
    if not isinstance(node, cst.Call):
        return False
    new = set_argument(node, name, parse_expression(value), position)
    change.replace(node, fit_line(ctx, node, new))
    return True


def fit_line(ctx: FixContext, old: cst.Call, new: cst.Call) -> cst.Call:
    """``new`` (replacing ``old``), split one argument per line when the one-line call would
    make its line longer than ``line-length``. A call on several lines whose new layout still
    has a line over ``line-length`` (a hanging indent aligned under the opening parenthesis) is
    split one argument per line, as black writes it, when that fits and the call holds no
    comment to keep."""
    laid = _fit_line(ctx, old, new)
    longest = _longest(ctx, old, laid)
    if not new.args or longest is None or longest <= ctx.options.line_length:
        return laid
    first = ctx.lines[ctx.positions[old].start.line - 1]
    split = one_per_line(new, first[: len(first) - len(first.lstrip())])
    if _comments(split) != _comments(new):
        return laid  # a comment one per line cannot keep in its place
    longest = _longest(ctx, old, split)
    return split if longest is not None and longest <= ctx.options.line_length else laid


def _comments(call: cst.Call) -> list[str]:
    """The comments of the call, in order."""
    found: list[str] = []

    class Comments(cst.CSTVisitor):
        def visit_Comment(self, node: cst.Comment) -> None:
            found.append(node.value)

    call.visit(Comments())
    return found


def _longest(ctx: FixContext, old: cst.Call, new: cst.Call) -> Optional[int]:
    """The longest line the call's lines would have with ``new`` in place of ``old``."""
    where = ctx.positions[old]
    if where.end.line > len(ctx.lines):
        return None
    first, last = ctx.lines[where.start.line - 1], ctx.lines[where.end.line - 1]
    code = cst.Module([]).code_for_node(new)
    candidate = (first[: where.start.column] + code + last[where.end.column :]).splitlines()
    return max((len(line) for line in candidate), default=0)


def _fit_line(ctx: FixContext, old: cst.Call, new: cst.Call) -> cst.Call:
    where = ctx.positions[old]
    lines = ctx.lines
    if where.end.line > len(lines) or not new.args:
        return new
    first, last = lines[where.start.line - 1], lines[where.end.line - 1]
    code = cst.Module([]).code_for_node(new)
    candidate = (first[: where.start.column] + code + last[where.end.column :]).splitlines()
    limit = ctx.options.line_length
    if max(len(line) for line in candidate) <= limit:
        return new
    if where.start.line == where.end.line and len(candidate) == 1:
        indent = first[: len(first) - len(first.lstrip())]
        return one_per_line(new, indent)
    if len(new.args) != len(old.args) + 1 or not old.args:
        return new  # an argument replaced in place
    opening, closing = ctx.positions[old.args[0]], ctx.positions[old.args[-1]]
    if (
        isinstance(old.whitespace_before_args, cst.ParenthesizedWhitespace)
        and opening.start.line == closing.end.line
    ):  # black's "arguments on one indented line": one per line, as black writes it
        indent = first[: len(first) - len(first.lstrip())]
        return one_per_line(new, indent)
    # a call on several lines: the new argument goes on a line of its own, indented as the
    # line that holds the argument before it
    previous = ctx.positions[old.args[-1]]
    line = lines[previous.start.line - 1]
    indent = line[: len(line) - len(line.lstrip())]
    args = list(new.args)
    comma = args[-2].comma
    if not isinstance(comma, cst.Comma) or isinstance(
        comma.whitespace_after, cst.ParenthesizedWhitespace
    ):
        return new  # already on a line of its own
    broken = cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(),
        empty_lines=[],
        indent=False,
        last_line=cst.SimpleWhitespace(indent),
    )
    args[-2] = args[-2].with_changes(comma=comma.with_changes(whitespace_after=broken))
    return new.with_changes(args=args)


def one_per_line(call: cst.Call, indent: str) -> cst.Call:
    """``call`` with each argument on a line of its own (indented four spaces more than
    ``indent``), a trailing comma, and the closing parenthesis on a line at ``indent``. A
    comment after an argument (or after the opening parenthesis) stays after it, and a comment
    on a line of its own stays before the argument it came before."""

    def break_to(spaces: str, *kept: Whitespace) -> cst.ParenthesizedWhitespace:
        first, empty = cst.TrailingWhitespace(), []
        for old in kept:
            if isinstance(old, cst.ParenthesizedWhitespace):
                if old.first_line.comment is not None and first.comment is None:
                    first = old.first_line
                empty += [  # an own-line comment indented as the line it stands above
                    line.with_changes(
                        indent=False,
                        whitespace=cst.SimpleWhitespace(spaces if line.comment else ""),
                    )
                    for line in old.empty_lines
                ]
        return cst.ParenthesizedWhitespace(
            first_line=first,
            empty_lines=empty,
            indent=False,
            last_line=cst.SimpleWhitespace(spaces),
        )

    inner = indent + "    "
    args = []
    for index, arg in enumerate(call.args):
        last = index == len(call.args) - 1
        kept = [arg.whitespace_after_arg]
        if isinstance(arg.comma, cst.Comma):
            kept.append(arg.comma.whitespace_after)
        after = break_to(indent if last else inner, *kept)
        args.append(
            arg.with_changes(
                comma=cst.Comma(whitespace_after=after),
                whitespace_after_arg=cst.SimpleWhitespace(""),
            )
        )
    return call.with_changes(
        args=args, whitespace_before_args=break_to(inner, call.whitespace_before_args)
    )


def set_argument(
    call: cst.Call, name: str, value: cst.BaseExpression, position: Optional[int] = None
) -> cst.Call:
    """``call`` passing ``value`` as parameter ``name``: an explicit ``name=`` argument (or the
    positional argument at ``position``) gets the new value; otherwise ``name=value`` is
    appended after the last argument."""
    args = list(call.args)
    positional = [i for i, a in enumerate(args) if a.keyword is None and not a.star]
    for index, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == name:
            args[index] = arg.with_changes(value=value)
            return call.with_changes(args=args)
    if position is not None and position < len(positional):
        index = positional[position]
        args[index] = args[index].with_changes(value=value)
        return call.with_changes(args=args)
    return append_keyword(call, name, value)


def append_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    no_space = cst.SimpleWhitespace("")
    new = cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=no_space, whitespace_after=no_space),
    )
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    separator = _separator(call, args)
    if isinstance(last.comma, cst.Comma):  # a trailing comma: the new argument keeps one
        closing: Whitespace = last.comma.whitespace_after
        if isinstance(closing, cst.ParenthesizedWhitespace) and isinstance(
            separator, cst.ParenthesizedWhitespace
        ):
            between: Whitespace = _line_break(closing.first_line, separator)
            closing = closing.with_changes(first_line=cst.TrailingWhitespace())
        else:
            between = separator
        new = new.with_changes(comma=last.comma.with_changes(whitespace_after=closing))
        args[-1] = last.with_changes(comma=last.comma.with_changes(whitespace_after=between))
    else:
        closing = last.whitespace_after_arg
        if isinstance(closing, cst.ParenthesizedWhitespace) and isinstance(
            separator, cst.ParenthesizedWhitespace
        ):
            between = _line_break(closing.first_line, separator)
            closing = closing.with_changes(first_line=cst.TrailingWhitespace())
        else:
            between = separator
        new = new.with_changes(whitespace_after_arg=closing)
        args[-1] = last.with_changes(
            comma=cst.Comma(whitespace_after=between), whitespace_after_arg=no_space
        )
    args.append(new)
    return call.with_changes(args=args)


def _separator(call: cst.Call, args: list[cst.Arg]) -> Whitespace:
    """What follows a comma between two arguments in this call: the whitespace after its
    next-to-last argument's comma; for a single argument, the line break after ``(`` when the
    call breaks there, else one space."""
    if len(args) >= 2 and isinstance(args[-2].comma, cst.Comma):
        return args[-2].comma.whitespace_after
    opening = call.whitespace_before_args
    if isinstance(opening, cst.ParenthesizedWhitespace):
        return opening
    return cst.SimpleWhitespace(" ")


def _line_break(
    first_line: cst.TrailingWhitespace, separator: cst.ParenthesizedWhitespace
) -> cst.ParenthesizedWhitespace:
    """A line break that keeps ``first_line`` (a comment after the last argument) and indents
    the next argument as ``separator`` does."""
    return cst.ParenthesizedWhitespace(
        first_line=first_line,
        empty_lines=[],
        indent=separator.indent,
        last_line=separator.last_line,
    )


def pass_seeded_generator(ctx: FixContext, bound: BoundCall) -> Optional[Change]:
    """The change that makes ``bound`` pass ``generator=torch.Generator().manual_seed(SEED)``."""
    change = Change()
    at = (bound.call.lineno, bound.call.col_offset)
    torch = ctx.module_name(change, "torch", bound.scope, at)
    value = f"{torch}.Generator().manual_seed({ctx.seed(at, bound.scope, change).text(torch)})"
    position = bound.position("generator")
    return (
        change if set_call_argument(ctx, change, bound.call, "generator", value, position) else None
    )


def seed_generator(ctx: FixContext, construction: ast.Call, scope: Scope) -> Optional[Change]:
    """The change that turns ``torch.Generator(...)`` where it is made into
    ``torch.Generator(...).manual_seed(SEED)`` (``Generator.manual_seed`` returns the
    generator)."""
    node = ctx.node(construction, cst.Call)
    if not isinstance(node, cst.Call):
        return None
    change = Change()
    at = (construction.lineno, construction.col_offset)
    torch = ctx.module_name(change, "torch", scope, at)
    seed = parse_expression(ctx.seed(at, scope, change).text(torch))
    seeded = cst.Call(
        func=cst.Attribute(value=node, attr=cst.Name("manual_seed")), args=[cst.Arg(seed)]
    )
    change.replace(node, seeded)
    return change
