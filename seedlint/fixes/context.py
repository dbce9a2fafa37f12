"""What a rule's codemod gets (:class:`FixContext`) and gives back (:class:`Change`).

A codemod reads the module's ``ast`` facts (the same ones detection used), finds the libcst nodes
of the code it changes by position (:meth:`FixContext.node`, :meth:`FixContext.statement`), and
records what to do with them in a :class:`Change`: replace a node, remove a statement, insert
statements before or after one, import a module. Nodes are the libcst tree's own, compared by
identity; nothing is changed until the fixer applies every accepted change in one pass.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional, Union, cast

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from seedlint.analysis.compact import plain
from seedlint.analysis.facts import ModuleFacts
from seedlint.analysis.names import Scope
from seedlint.documents.source import Source
from seedlint.fixes.imports import ImportNeed, Names
from seedlint.fixes.options import FixOptions
from seedlint.fixes.seeds import Position, Seed, choose_seed, constant_place
from seedlint.fixes.window import OutsideWindow, Window

Statement = Union[cst.BaseStatement, cst.BaseSmallStatement]

_SIMPLE_STATEMENTS = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Return,
    ast.Raise,
    ast.Pass,
    ast.Break,
    ast.Continue,
    ast.Delete,
    ast.Import,
    ast.ImportFrom,
    ast.Global,
    ast.Nonlocal,
    ast.Assert,
)
_COMPOUND: dict[type[ast.stmt], type[cst.CSTNode]] = {
    ast.If: cst.If,
    ast.For: cst.For,
    ast.AsyncFor: cst.For,
    ast.While: cst.While,
    ast.Try: cst.Try,
    ast.With: cst.With,
    ast.AsyncWith: cst.With,
    ast.FunctionDef: cst.FunctionDef,
    ast.AsyncFunctionDef: cst.FunctionDef,
    ast.ClassDef: cst.ClassDef,
}

# Where a statement holds statements: a compound statement's suites (``body``), the clauses
# after it (``orelse``: an ``elif``'s ``If`` or an ``Else``; ``handlers``, ``finalbody``, a
# ``match``'s ``cases``), and a suite's or a module's own ``body``.
_BLOCKS = ("body", "orelse", "handlers", "finalbody", "cases")


@dataclass
class Insertion:
    anchor: cst.CSTNode
    statements: list[Statement]
    before: bool
    key: Optional[str] = None  # insertions with one key are made once (the earliest anchor)


@dataclass
class Change:
    """What one fix does to the module."""

    replacements: list[tuple[cst.CSTNode, cst.CSTNode]] = field(default_factory=list)
    removals: list[cst.CSTNode] = field(default_factory=list)
    insertions: list[Insertion] = field(default_factory=list)
    imports: list[ImportNeed] = field(default_factory=list)

    def replace(self, old: cst.CSTNode, new: cst.CSTNode) -> None:
        self.replacements.append((old, new))

    def remove(self, statement: cst.CSTNode) -> None:
        self.removals.append(statement)

    def insert_before(
        self, anchor: cst.CSTNode, statements: Sequence[Statement], key: Optional[str] = None
    ) -> None:
        self.insertions.append(Insertion(anchor, list(statements), True, key))

    def insert_after(self, anchor: cst.CSTNode, statements: Sequence[Statement]) -> None:
        self.insertions.append(Insertion(anchor, list(statements), False))

    def add_import(self, need: Optional[ImportNeed]) -> None:
        if need is not None and need not in self.imports:
            self.imports.append(need)

    @property
    def empty(self) -> bool:
        return not (self.replacements or self.removals or self.insertions or self.imports)


class FixContext:
    """One version of one module's text, seen by ``ast`` (facts) and libcst (the tree)."""

    def __init__(
        self,
        text: str,
        source: Source,
        facts: ModuleFacts,
        options: FixOptions,
        module: Optional[cst.Module] = None,
        window: Optional[Window] = None,
    ) -> None:
        self.text = text  # with ``window``: the window's text (the module's rows and columns)
        self.source = source
        self.facts = facts
        self.options = options
        self.window = window
        self.module = module if module is not None else cst.parse_module(text)
        self.positions, self._code = positions(self.module)
        self._containers: Optional[dict[int, cst.CSTNode]] = None
        self.names = Names(facts)
        self._by_start: Optional[dict[tuple[int, int], list[cst.CSTNode]]] = None
        self._lines: Optional[list[str]] = None

    @property
    def code(self) -> str:
        """The module's code as libcst prints it (printed once)."""
        if self._code is None:
            self._code = self.module.code
        return self._code

    @property
    def lines(self) -> list[str]:
        """The text's lines (``str.splitlines``), split once: each fix of a call asks."""
        if self._lines is None:
            self._lines = self.text.splitlines()
        return self._lines

    # -- positions -----------------------------------------------------------------------------
    def span(self, node: ast.AST) -> tuple[tuple[int, int], tuple[int, int]]:
        """An ``ast`` node's start and end as (line, character column)."""
        row = getattr(node, "lineno", 1)
        end_row = getattr(node, "end_lineno", None) or row
        col = self.source.char_col(row, getattr(node, "col_offset", 0))
        end_col = self.source.char_col(end_row, getattr(node, "end_col_offset", None) or 0)
        return (row, col), (end_row, end_col)

    def node(
        self, node: ast.AST, kind: Union[type[cst.CSTNode], tuple[type[cst.CSTNode], ...]]
    ) -> Optional[cst.CSTNode]:
        """The libcst node of type ``kind`` that spans exactly what ``node`` spans (raises
        :class:`~seedlint.fixes.window.OutsideWindow` for a node the window left out)."""
        if self._by_start is None:
            self._by_start = {}
            for candidate, where in self.positions.items():
                key = (where.start.line, where.start.column)
                self._by_start.setdefault(key, []).append(candidate)
        start, end = self.span(node)
        if self.window is not None and self.window.covers(start[0]):
            raise OutsideWindow(f"row {start[0]} is outside the window")
        for candidate in self._by_start.get(start, ()):
            where = self.positions[candidate]
            if isinstance(candidate, kind) and (where.end.line, where.end.column) == end:
                return candidate
        return None

    def container(self, small: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The line (``SimpleStatementLine``) or one-line suite (``SimpleStatementSuite``) that
        holds the small statement ``small``; None for any other node. The map is made once,
        from the statements alone (libcst's ``ParentNodeProvider`` visits every node of the
        module: half of a fix-all's time in a large one)."""
        if self._containers is None:
            self._containers = {}
            stack: list[cst.CSTNode] = [self.module]
            while stack:
                node = stack.pop()
                if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                    for inner in node.body:
                        self._containers[id(inner)] = node
                    continue
                for attribute in _BLOCKS:
                    value = getattr(node, attribute, None)
                    if isinstance(value, cst.CSTNode):
                        stack.append(value)
                    elif isinstance(value, (list, tuple)):
                        stack.extend(v for v in value if isinstance(v, cst.CSTNode))
        return self._containers.get(id(small))

    def statement(self, stmt: ast.stmt) -> Optional[Statement]:
        """The libcst statement to insert around or remove for an ``ast`` statement: its line
        (a ``SimpleStatementLine``), the small statement itself inside a one-line suite
        (``if x: a; b``), or the compound statement."""
        if isinstance(stmt, _SIMPLE_STATEMENTS):
            small = self.node(stmt, cst.BaseSmallStatement)
            if small is None:
                return None
            parent = self.container(small)
            if isinstance(parent, cst.SimpleStatementLine):
                return parent
            assert isinstance(small, cst.BaseSmallStatement)
            return small
        kind = _COMPOUND.get(plain(type(stmt)))
        found = self.node(stmt, kind) if kind is not None else None
        return found if isinstance(found, cst.BaseStatement) else None

    # -- what a fix writes ---------------------------------------------------------------------
    def seed(self, at: Position, scope: Scope, change: Optional[Change] = None) -> Seed:
        """The seed to write at ``at`` (an ``ast`` position) in ``scope``. With ``change``, a
        script that seeds nothing gets a new ``SEED`` constant, defined by ``change`` where the
        program starts (see :func:`~seedlint.fixes.seeds.choose_seed`)."""
        seed = choose_seed(self.facts, at, scope, self.options, new_constant=change is not None)
        if seed.constant is None or change is None:
            return seed
        place = constant_place(self.facts.tree)
        anchor = self.statement(place) if place is not None else None
        if anchor is None:
            return choose_seed(self.facts, at, scope, self.options)
        statement = parse_statement(seed.constant + "\n")
        change.insert_before(anchor, [statement], key=seed.constant)
        return seed

    def module_name(self, change: Change, qualname: str, scope: Scope, at: Position) -> str:
        """The name to write for module ``qualname`` at ``at``; ``change`` imports it if needed."""
        for existing in change.imports:
            if existing.module == qualname:
                return existing.name
        taken = {need.name for need in change.imports}
        name, need = self.names.module(qualname, scope, at, taken)
        if need is not None and need.after is not None:
            anchor = self.statement(need.after)
            if anchor is not None:  # inside the module's import guard, before its import
                alias = f" as {need.asname}" if need.asname else ""
                statement = parse_statement(f"import {need.module}{alias}\n")
                key = f"import {need.module}{alias}"
                change.insertions.append(Insertion(anchor, [statement], True, key))
                change.imports.append(need)  # remembered for the names, placed already
                return name
            need = ImportNeed(need.module, need.asname)
        change.add_import(need)
        return name


def positions(module: cst.Module) -> tuple[Mapping[cst.CSTNode, CodeRange], Optional[str]]:
    """libcst's ``PositionProvider`` of ``module``, and the code its one pass printed (None
    when not known), computed by the provider's own code generation: resolving it through
    ``MetadataWrapper.resolve`` also walks every node with an empty batch of other providers
    (a third of the time, in a large module), and ``module.code`` would print it all again.
    Through ``resolve`` if that fails (a libcst whose provider differs)."""
    try:
        from libcst.metadata.position_provider import PositionProvidingCodegenState

        provider = PositionProvider()
        state = PositionProvidingCodegenState(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            provider=provider,
        )
        module._codegen(state)
        found = cast("Mapping[cst.CSTNode, CodeRange]", dict(provider._computed))
        return found, "".join(state.tokens)
    except (ImportError, AttributeError, TypeError):
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        return wrapper.resolve(PositionProvider), None


@lru_cache(maxsize=256)
def parse_statement(code: str) -> cst.BaseStatement:
    """A statement from text written with four-space indents and ``\\n``: it takes the module's
    own indentation and newline when the module is printed. Parsed once per text (a fix-all
    writes one helper for each of its loaders; libcst's nodes are immutable: they can be
    shared)."""
    return cst.parse_statement(code)


def parse_expression(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)
