"""Names a fix writes: the module's own name for ``torch``/``random``/``numpy``, or a free one.

Pure ``ast`` over the module facts. A module is written under a name the module already binds
to it where that name is visible at the fix location (``import numpy as np`` gives ``np``);
otherwise the fix imports it at module level under its own name when that name is free, or under
a free variant (``import torch as torch_``) when the module uses the name for something else.
A name is free when binding it at module level changes no existing use: it is not a builtin, no
scope binds it where the fix looks it up, the module does not bind it, and no code of the module
reads it without a binding (a star import or a builtin might provide it).
"""

from __future__ import annotations

import ast
import builtins
import keyword
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Optional

from seedlint.analysis.facts import ModuleFacts
from seedlint.analysis.names import Scope, lookup
from seedlint.fixes.seeds import Position, bound_before

RESERVED: frozenset[str] = frozenset(dir(builtins)) | frozenset(keyword.kwlist)


@dataclass(frozen=True)
class ImportNeed:
    """``import module`` (or ``import module as asname``) at the top of the module."""

    module: str
    asname: Optional[str] = None

    @property
    def name(self) -> str:
        return self.asname or self.module.split(".")[0]


class Names:
    """Name choices for one version of one module's text."""

    def __init__(self, facts: ModuleFacts) -> None:
        self.facts = facts
        self._unresolved: Optional[frozenset[str]] = None

    @property
    def unresolved(self) -> frozenset[str]:
        """Names the module reads somewhere without any binding that covers the read."""
        if self._unresolved is None:
            self._unresolved = frozenset(_unresolved_reads(self.facts))
        return self._unresolved

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
            if (
                bindings
                and all(b.kind == "import" and b.qualname == qualname for b in bindings)
                and any(bound_before(b, at, scope) for b in bindings)
            ):
                return name
        return None

    def is_free(self, name: str, scope: Scope, taken: Collection[str] = ()) -> bool:
        """Whether a new module-level ``name`` is seen in ``scope`` and changes no other use."""
        return (
            name.isidentifier()
            and name not in RESERVED
            and name not in taken
            and name not in self.facts.builder.module_scope.bindings
            and lookup(name, scope) is None
            and name not in self.unresolved
        )

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
        name = self.free(base, scope, taken)
        return name, ImportNeed(qualname, None if name == base else name)


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
