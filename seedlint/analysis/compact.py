"""A smaller ``ast`` tree for a very large module: the same nodes in a third of the memory.

An ``ast`` node keeps its fields and positions in a ``__dict__`` of its own (about 300 bytes a
node on CPython 3.11, with a separate ``int`` object for each line number above 256): the tree
of a module of a million lines of code takes 2 to 4 GB. :func:`compact` copies a tree into
nodes of subclasses that keep the same fields in ``__slots__`` (their ``__dict__`` is never
made unless someone sets another attribute) and share one ``int`` object per line number:
about 105 bytes a node.

The copy is the same tree for everything seedlint does with it: each compact class is a
subclass of its ``ast`` class with the same name, fields and attributes, so ``isinstance``,
``ast.walk``, ``ast.NodeVisitor`` (which dispatches on the class's name), ``ast.unparse`` and
``ast.dump`` see what they saw. Code that looks a node's class up in a table keyed by ``ast``
classes asks :func:`plain` first (or registers the compact classes too, as the name
resolver's dispatch does). Nodes with no fields and no positions (``Load``, ``Add``, ...) are
shared singletons in CPython and are kept as they are.

Only the piecewise parse of a very large module uses it (``seedlint.engine.parse``): smaller
modules keep the parser's own tree.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Optional, TypeVar, cast

Node = TypeVar("Node", bound=ast.AST)

# Classes the parser never makes (deprecated aliases kept for old code).
_NEVER_PARSED = frozenset(
    {"Num", "Str", "Bytes", "NameConstant", "Ellipsis", "Index", "ExtSlice", "Suite", "Param"}
    | {"AugLoad", "AugStore", "slice"}
)


def _concrete_classes() -> list[type[ast.AST]]:
    found = []
    for name, cls in vars(ast).items():
        if not isinstance(cls, type) or not issubclass(cls, ast.AST) or cls is ast.AST:
            continue
        if name in _NEVER_PARSED or (cls.__subclasses__() and name != "Constant"):
            continue  # abstract (`expr`, `stmt`) or deprecated
        if getattr(cls, "_fields", ()) or getattr(cls, "_attributes", ()):
            found.append(cls)
    return found


def _compact_class(cls: type[ast.AST]) -> type[ast.AST]:
    slots = tuple(dict.fromkeys((*cls._fields, *getattr(cls, "_attributes", ()))))
    namespace: dict[str, Any] = {
        "__slots__": slots,
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        # A copy (``copy.copy``, pickling) is made as the ``ast`` class it stands for.
        "__reduce__": lambda self: _rebuild(cls, self),
    }
    return type(cls.__name__, (cls,), namespace)


def _rebuild(cls: type[ast.AST], node: ast.AST) -> tuple[Any, ...]:
    state = {name: getattr(node, name) for name in _FIELDS[type(node)] if hasattr(node, name)}
    return (_plain_node, (cls, state))


def _plain_node(cls: type[ast.AST], state: dict[str, Any]) -> ast.AST:
    node = cls()
    for name, value in state.items():
        setattr(node, name, value)
    return node


COMPACT: dict[type, type] = {cls: _compact_class(cls) for cls in _concrete_classes()}
ORIGINAL: dict[type, type] = {compact: cls for cls, compact in COMPACT.items()}
_FIELDS: dict[type, tuple[str, ...]] = {
    compact: tuple(vars(compact)["__slots__"]) for compact in ORIGINAL
}


# Strings up to this long are shared (a generated module repeats the same constants).
_SHORT = 40


def plain(cls: type) -> type:
    """The ``ast`` class a compact class stands for (any other class: itself)."""
    return ORIGINAL.get(cls, cls)


def compact(tree: Node) -> Node:
    """A copy of ``tree`` made of compact nodes (see the module's text). Iterative: a tree
    nested as deeply as the parser allows is copied without recursion."""
    shared: dict[object, object] = {}  # one object for equal line numbers and short strings
    share = shared.setdefault
    new = ast.AST.__new__
    kinds = COMPACT
    fields_of = _FIELDS
    root = _shell(tree)
    stack: list[tuple[ast.AST, ast.AST]] = [(tree, root)]
    pop, push = stack.pop, stack.append
    while stack:
        old, copy = pop()
        values = old.__dict__
        for name in fields_of[copy.__class__]:
            if name not in values:
                continue
            value = values[name]
            kind = value.__class__
            if kind is int or (kind is str and len(value) <= _SHORT):
                value = share(value, value)
            elif kind is list:
                items = value.copy()  # exactly as long (an appended list has room to spare)
                for index, item in enumerate(value):
                    compact_kind = kinds.get(item.__class__)
                    if compact_kind is not None:
                        shell: ast.AST = new(compact_kind)
                        push((item, shell))
                        items[index] = shell
                value = items
            else:
                compact_kind = kinds.get(kind)
                if compact_kind is not None:
                    shell = new(compact_kind)
                    push((value, shell))
                    value = shell
            setattr(copy, name, value)
    return cast(Node, root)


def _shell(node: ast.AST) -> ast.AST:
    kind = COMPACT.get(node.__class__)
    if kind is None:
        raise TypeError(f"cannot compact a {type(node).__name__} node")
    shell: ast.AST = ast.AST.__new__(kind)
    return shell


# -- hollowing: the values of a very large module that no analysis reads --------------------------

# Builtins a hollowed value may call: pure functions of their arguments, which no rule, fix or
# summary looks at (when the module never binds the name: see ``Hollower``).
_SAFE_CALLS = frozenset(
    {
        "len", "int", "float", "str", "bool", "bytes", "tuple", "list", "dict", "set",
        "frozenset", "range", "abs", "min", "max", "sum", "round", "sorted", "reversed",
        "ord", "chr", "hex", "oct", "bin", "repr", "format", "divmod", "pow", "complex",
    }
)  # fmt: skip
_WORD = re.compile(r"[A-Za-z_]\w*")
# Words of what the rules, fixes and project summaries look at (seeds, random streams, loaders,
# samplers, workers, epochs, CUDA graphs, argument parsers, dunders): a statement holding one
# keeps its value. Deliberately broad.
_RELEVANT = re.compile(
    r"seed|rand|torch|numpy|np\b|oader|enerator|worker|shuffle|ampler|epoch|split|cuda|graph"
    r"|capture|arg|pars|config|__",
    re.IGNORECASE,
)
_STAR_IMPORT = re.compile(r"\bimport[ \t\\\r\n(]*\*")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Hollower:
    """Replaces the value of a very large module's top-level assignments that nothing can read
    by a constant at the same place (``value_17 = 17 * 2 + len("x")`` keeps its target and
    binding: only the value's nodes go), so that a generated module of a million lines of
    such statements does not hold a million values' trees.

    A value is hollowed only when all of these hold, each one sound on its own:

    * the statement is an ``Assign`` to plain ASCII names (its words are counted in its exact
      text: another statement on the same line counts as elsewhere), none of them a dunder
      (``__all__`` says what a star import exports);
    * no target name occurs anywhere else in the module's text, as a word (in code, a string
      or a comment): nothing in the module reads it, ``global`` names it or re-binds it;
    * its text holds none of the words the rules, the fixes and the project summaries look for
      (:data:`_RELEVANT`);
    * its value holds only literals, operators, containers, subscripts, conditional expressions,
      f-strings and calls of a few pure builtins (:data:`_SAFE_CALLS`), each of which the
      module never binds (every one of its words in the text is a call, not after ``def`` or
      ``class``) and no star import may bind: so the value makes no call the analysis records,
      reads no name and draws nothing.

    Another module cannot see the difference either: the project summary of a module keeps no
    module-level values, only its functions, classes, imports and calls to project code.
    """

    def __init__(self, text: str) -> None:
        self.counts = counts = _word_counts(text)
        safe: set[str] = set()
        if _STAR_IMPORT.search(text) is None:
            for name in _SAFE_CALLS:
                if counts.get(name) and _only_called(text, name):
                    safe.add(name)
        self.safe = frozenset(safe)
        self.hollowed = 0

    def hollow(self, body: list[ast.stmt], chunk: str, row: int) -> None:
        """Hollow the statements of ``body`` (a piece of the module whose text is ``chunk``,
        starting on line ``row``) that qualify, in place."""
        lines: Optional[list[str]] = None
        for statement in body:
            if not (
                isinstance(statement, ast.Assign)
                and statement.type_comment is None
                and all(
                    isinstance(t, ast.Name) and not t.id.startswith("__") and t.id.isascii()
                    for t in statement.targets
                )
                and statement.end_lineno is not None
                and statement.end_col_offset is not None
            ):
                continue
            if lines is None:
                lines = _LINE_BREAK.split(chunk)
            first, last = statement.lineno - row, statement.end_lineno - row
            if not 0 <= first <= last < len(lines):
                continue
            span = lines[first : last + 1]
            if not all(line.isascii() for line in span):
                continue  # columns are UTF-8 offsets: only ASCII lines are sliced by them
            span[-1] = span[-1][: statement.end_col_offset]
            span[0] = span[0][statement.col_offset :]
            segment = "\n".join(span)
            if _RELEVANT.search(segment) is not None:
                continue
            own = _word_counts(segment)
            names = {t.id for t in statement.targets if isinstance(t, ast.Name)}
            if any(self.counts.get(name, 0) != own.get(name) for name in names):
                continue
            if not self._inert(statement.value):
                continue
            value = statement.value
            placeholder = ast.Constant(value=..., kind=None)
            placeholder.lineno, placeholder.col_offset = value.lineno, value.col_offset
            placeholder.end_lineno = value.end_lineno
            placeholder.end_col_offset = value.end_col_offset
            statement.value = placeholder
            self.hollowed += 1

    def _inert(self, value: ast.expr) -> bool:
        """Whether ``value`` holds only literals, operators, containers, subscripts, conditional
        expressions, f-strings and calls of safe builtins (a walk by the parser's own classes:
        the tree is not compacted yet)."""
        safe = self.safe
        stack: list[ast.AST] = [value]
        pop, push, more = stack.pop, stack.append, stack.extend
        while stack:
            node = pop()
            kind = node.__class__
            if kind is ast.Constant:
                continue
            if kind is ast.BinOp:
                push(node.left)  # type: ignore[attr-defined]
                push(node.right)  # type: ignore[attr-defined]
            elif kind is ast.Call:
                func = node.func  # type: ignore[attr-defined]
                if func.__class__ is not ast.Name or func.id not in safe:
                    return False
                more(node.args)  # type: ignore[attr-defined]
                more(k.value for k in node.keywords)  # type: ignore[attr-defined]
            elif kind is ast.Tuple or kind is ast.List or kind is ast.Set:
                more(node.elts)  # type: ignore[attr-defined]
            elif kind is ast.Dict:
                if None in node.keys:  # type: ignore[attr-defined]
                    return False  # `**spread`
                more(node.keys)  # type: ignore[attr-defined]
                more(node.values)  # type: ignore[attr-defined]
            elif kind is ast.UnaryOp:
                push(node.operand)  # type: ignore[attr-defined]
            elif kind is ast.BoolOp or kind is ast.JoinedStr:
                more(node.values)  # type: ignore[attr-defined]
            elif kind is ast.Compare:
                push(node.left)  # type: ignore[attr-defined]
                more(node.comparators)  # type: ignore[attr-defined]
            elif kind is ast.IfExp:
                more((node.test, node.body, node.orelse))  # type: ignore[attr-defined]
            elif kind is ast.Subscript:
                more((node.value, node.slice))  # type: ignore[attr-defined]
            elif kind is ast.Slice or kind is ast.FormattedValue or kind is ast.Starred:
                more(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr))
            else:
                return False  # a name read, an attribute, a lambda, a comprehension, `:=`, ...
        return True


def _word_counts(text: str) -> dict[str, int]:
    """How many times each identifier-like word occurs in ``text``."""
    counts: dict[str, int] = {}
    for match in _WORD.finditer(text):
        word = match.group()
        counts[word] = counts.get(word, 0) + 1
    return counts


def _only_called(text: str, name: str) -> bool:
    """Whether every use of the word ``name`` in ``text`` is a call of it (``name(``), never
    after ``def`` or ``class``: the module never binds it. Attributes (``x.name``) do not
    count, they are not the name."""
    for match in re.finditer(r"(?<![\w.])" + name + r"\b", text):
        if re.match(r"[ \t]*\(", text[match.end() : match.end() + 64]) is None:
            return False
        before = text[max(match.start() - 16, 0) : match.start()]
        if re.search(r"\b(?:def|class)\s*$", before) is not None:
            return False
    return True


def hollowed_names(body: list[ast.stmt]) -> set[str]:
    """The target names of the statements of ``body`` whose value may have been hollowed (an
    ``Assign`` of a constant ``...``: a hollowed one, or one written so)."""
    names: set[str] = set()
    for statement in body:
        if (
            isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.Constant)
            and statement.value.value is ...
        ):
            names.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    return names


def hollowing_holds(hollowed: set[str], added: str) -> bool:
    """Whether the statements hollowed with these target names would still be hollowed once
    ``added`` (new code) replaces code that named none of them: the new code names none of
    them either, has no star import, and calls each pure builtin it names (so the builtins
    their values call stay unbound)."""
    if _STAR_IMPORT.search(added) is not None:
        return False
    words = set(_word_counts(added))
    if words & hollowed:
        return False
    return all(_only_called(added, name) for name in words & _SAFE_CALLS)
