"""Names a fix writes: the module's own name for ``torch``/``random``/``numpy``, or a free one.

Pure ``ast`` over the module facts. A module is written under a name the module already binds
to it where that name is visible at the fix location (``import numpy as np`` gives ``np``);
otherwise the fix imports it at module level under its own name when that name is free, or under
a free variant (``import torch as torch_``) when the module uses the name for something else.
A name is free when binding it at module level changes no existing use: it is not a builtin, no
scope binds it where the fix looks it up, the module does not bind it, and no code of the module
reads it without a binding (a star import or a builtin might provide it).

Imports must hold at run time: a name imported only under ``if TYPE_CHECKING:`` gets a runtime
import of its own; a module that guards its imports of a package
(``try: import torch`` / ``except ImportError:``) gets the new import of that package inside the
same guard, right before the guarded import, and a name the guard binds (``torch``, or ``None`` in
the handler) is used as it is.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Optional

from seedlint.analysis.facts import ModuleFacts
from seedlint.analysis.names import Scope, lookup
from seedlint.fixes.seeds import Position, bound_before

_UNRESOLVED = "_fixes_unresolved_reads"  # the cache's key in the facts' __dict__
RESERVED: frozenset[str] = frozenset(dir(builtins)) | frozenset(keyword.kwlist)


@dataclass(frozen=True)
class ImportNeed:
    """``import module`` (or ``import module as asname``) at the top of the module, or right
    after the statement ``after`` (a guarded import of the same package)."""

    module: str
    asname: Optional[str] = None
    after: Optional[ast.stmt] = None

    @property
    def name(self) -> str:
        return self.asname or self.module.split(".")[0]


class Names:
    """Name choices for one version of one module's text."""

    def __init__(self, facts: ModuleFacts) -> None:
        self.facts = facts

    @property
    def unresolved(self) -> frozenset[str]:
        """Names the module reads somewhere without any binding that covers the read.

        Kept with the facts (which ``release`` clears): each finding's fix title makes its own
        ``Names``, and walking the whole tree for each made checking quadratic in findings.
        """
        found: Optional[frozenset[str]] = self.facts.__dict__.get(_UNRESOLVED)
        if found is None:
            found = self.facts.__dict__[_UNRESOLVED] = frozenset(_unresolved_reads(self.facts))
        return found

    def alias(self, qualname: str, scope: Scope, at: Position) -> Optional[str]:
        """A name visible in ``scope`` at ``at`` that means exactly the module ``qualname``."""
        candidates = self.facts.alias_candidates.get(qualname)
        if candidates is None:  # once per module name: a fix each must not cost the module
            base = qualname.split(".")[-1]
            candidates = [base]
            for name, module_bindings in sorted(self.facts.builder.module_scope.bindings.items()):
                if name != base and any(b.qualname == qualname for b in module_bindings):
                    candidates.append(name)
            self.facts.alias_candidates[qualname] = candidates
        for name in candidates:
            bindings = lookup(name, scope)
            if not bindings or any(self._type_checking(b.node) for b in bindings):
                continue
            imports = [b for b in bindings if b.kind == "import"]
            if (
                imports
                and all(b.qualname == qualname for b in imports)
                and all(b in imports or self._in_handler(b.node) for b in bindings)
                and any(bound_before(b, at, scope) for b in imports)
            ):
                return name
        return None

    # -- guards ----------------------------------------------------------------------------------
    def _type_checking(self, node: ast.AST) -> bool:
        """Inside a module-level ``if TYPE_CHECKING:`` block (no binding at run time)."""
        tree = self.facts.tree
        blocks = self.facts.once("fixes.type_checking", lambda: _type_checking_blocks(tree))
        return any(_within(node, block) for block in blocks)

    def _in_handler(self, node: ast.AST) -> bool:
        """Inside the ``except ImportError:`` handler of a module-level import guard."""
        return any(_within(node, handler) for guard in self._guards() for handler in guard.handlers)

    def _guards(self) -> list[ast.Try]:
        """The module's import guards, found once per module (each finding's fix asks)."""
        tree = self.facts.tree
        return self.facts.once("fixes.import_guards", lambda: _import_guards(tree))

    def guarded_import(self, package: str) -> Optional[ast.stmt]:
        """The last module-level import of ``package`` inside an import guard's ``try`` body,
        when the module imports ``package`` nowhere outside such guards."""
        tree = self.facts.tree
        imports = self.facts.once(  # walked once per module: each finding's fix asks
            "fixes.imports",
            lambda: [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))],
        )
        found: Optional[ast.stmt] = None
        for node in imports:
            if _imports_package(node, package):
                guard = next(
                    (g for g in self._guards() if any(_within(node, s) for s in g.body)),
                    None,
                )
                if guard is None:
                    return None
                if node in guard.body:
                    found = node
        return found

    def is_free(self, name: str, scope: Scope, taken: Collection[str] = ()) -> bool:
        """Whether a new module-level ``name`` is seen in ``scope`` and changes no other use."""
        return (
            name.isidentifier()
            and name not in RESERVED
            and name not in taken
            and name not in self.facts.builder.module_scope.bindings
            and lookup(name, scope) is None
            and not self._read_unbound(name)
        )

    def _read_unbound(self, name: str) -> bool:
        """Whether the module reads ``name`` where no binding covers it. A name its (ASCII)
        text does not spell is read nowhere: the walk of the whole tree that finds the others
        is not needed for it (most of a fix title's time in a large module)."""
        text = self.facts.text
        if text and text.isascii() and not _spells(text, name, self.facts):
            return False
        return name in self.unresolved

    def free(self, base: str, scope: Scope, taken: Collection[str] = ()) -> str:
        """``base``, else ``base_``, ``base_1``, ``base_2``, ...: the first free one."""
        candidate, number = base, 0
        while not self.is_free(candidate, scope, taken):
            number += 1
            candidate = base + "_" if number == 1 else f"{base}_{number - 1}"
        return candidate

    def module(
        self, qualname: str, scope: Scope, at: Position, taken: Collection[str] = ()
    ) -> tuple[str, Optional[ImportNeed]]:
        """The name to write for module ``qualname`` at ``at``, and the import it needs."""
        alias = self.alias(qualname, scope, at)
        if alias is not None:
            return alias, None
        base = qualname.split(".")[0]
        bindings = self.facts.builder.module_scope.bindings.get(base, [])
        if (
            bindings
            and lookup(base, scope) is bindings
            and base not in taken
            and all(
                b.kind == "import" and b.qualname == qualname and self._type_checking(b.node)
                for b in bindings
            )
        ):
            return base, ImportNeed(qualname)  # imported for type checkers only: import it
        name = self.free(base, scope, taken)
        after = self.guarded_import(base)
        return name, ImportNeed(qualname, None if name == base else name, after)


def _within(node: ast.AST, outer: ast.AST) -> bool:
    start = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    first = (getattr(outer, "lineno", 0), getattr(outer, "col_offset", 0))
    last = (getattr(outer, "end_lineno", 0) or 0, getattr(outer, "end_col_offset", 0) or 0)
    return first <= start <= last


def _type_checking_blocks(tree: ast.Module) -> list[ast.stmt]:
    """The bodies' statements of the module-level ``if TYPE_CHECKING:`` blocks."""
    found: list[ast.stmt] = []
    for statement in tree.body:
        if isinstance(statement, ast.If):
            test = statement.test
            name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", None)
            if name == "TYPE_CHECKING":
                found.extend(statement.body)
    return found


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _import_guards(tree: ast.Module) -> list[ast.Try]:
    """Module-level ``try:`` statements whose handlers catch a failed import."""
    guards = []
    for statement in tree.body:
        if isinstance(statement, ast.Try) and any(
            handler.type is None
            or any(
                isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS for n in ast.walk(handler.type)
            )
            for handler in statement.handlers
        ):
            guards.append(statement)
    return guards


def _imports_package(node: ast.Import | ast.ImportFrom, package: str) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == package for alias in node.names)
    return node.level == 0 and (node.module or "").split(".")[0] == package


def _spells(text: str, name: str, facts: Optional[ModuleFacts] = None) -> bool:
    """Whether ``text`` holds ``name`` as a whole word (not inside a longer name); with
    ``facts`` (``text`` is theirs), from the set of the text's words, made once per module
    (a fix-all asks for every fix's names: one search of the whole text each)."""
    if facts is not None and _WORD.fullmatch(name):
        return name in facts.once("fixes.words", lambda: frozenset(_WORD.findall(text)))
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


_WORD = re.compile(r"\w+")


def _unresolved_reads(facts: ModuleFacts) -> Iterator[str]:
    scope_of = facts.builder.scope_of
    stack: list[tuple[ast.AST, Scope]] = [(facts.tree, facts.builder.module_scope)]
    while stack:
        node, scope = stack.pop()
        for child in ast.iter_child_nodes(node):
            inner = scope_of.get(id(child))
            if inner is not None:
                stack.append((child, inner))
                continue
            if isinstance(child, ast.Name) and lookup(child.id, scope) is None:
                yield child.id
            stack.append((child, scope))
