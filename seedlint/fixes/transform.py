"""Applying changes to a libcst tree: one pass for every accepted change, then the imports.

Only the nodes a change names are rebuilt; everything else is printed from the original tree,
byte for byte. Statements are inserted and removed by the block that holds them, so that blank
lines go where they belong: a statement moved or inserted before another takes over the blank
lines above it (comments stay with their statement), a module-level function gets two blank
lines on each side, and a block left empty by a removal gets ``pass``.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Mapping, Sequence
from typing import Optional, Union

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import CodeRange

from seedlint.fixes.context import Change, Insertion, Statement
from seedlint.fixes.imports import ImportNeed

Body = list[Statement]
# The nodes the walk of :class:`_Apply` may leave out: statements (and their blocks' clauses).
_STATEMENTS = (cst.BaseStatement, cst.BaseSmallStatement)


def conflicts(
    change: Change, accepted: Sequence[Change], ranges: Mapping[cst.CSTNode, CodeRange]
) -> bool:
    """Whether ``change`` touches code another accepted change rebuilds (then it waits for the
    next round, when it is computed again on the new text).

    A replaced or removed node may not overlap another change's replaced or removed node, nor
    contain another change's insertion anchor; insertions next to one statement combine.
    """
    mine_strict = [ranges[n] for n in _strict(change)]
    mine_anchors = [ranges[i.anchor] for i in change.insertions]
    for other in accepted:
        theirs_strict = [ranges[n] for n in _strict(other)]
        theirs_anchors = [ranges[i.anchor] for i in other.insertions]
        if any(_overlap(a, b) for a in mine_strict for b in theirs_strict):
            return True
        if any(_contains(a, b) for a in mine_strict for b in theirs_anchors):
            return True
        if any(_contains(b, a) for a in mine_anchors for b in theirs_strict):
            return True
    return False


def change_place(change: Change) -> tuple[object, ...]:
    """Where a change acts (the nodes it replaces, removes or inserts at): only changes of one
    place can be the same change (:func:`same_change`)."""
    return (
        tuple(id(old) for old, _ in change.replacements),
        tuple(id(node) for node in change.removals),
        tuple((id(i.anchor), i.before, i.key) for i in change.insertions),
    )


def same_change(change: Change, other: Change) -> bool:
    """Whether two changes make exactly the same edit (two findings with one fix: a second
    RNG005 object reseeded by the same ``seed_worker``); the fixer applies it once and counts
    both findings fixed."""
    if len(change.replacements) != len(other.replacements) or len(change.insertions) != len(
        other.insertions
    ):
        return False
    for (old, new), (other_old, other_new) in zip(change.replacements, other.replacements):
        if old is not other_old or not new.deep_equals(other_new):
            return False
    if len(change.removals) != len(other.removals) or any(
        a is not b for a, b in zip(change.removals, other.removals)
    ):
        return False
    for mine, theirs in zip(change.insertions, other.insertions):
        if (
            mine.anchor is not theirs.anchor
            or mine.before != theirs.before
            or mine.key != theirs.key
            or len(mine.statements) != len(theirs.statements)
            or not all(a.deep_equals(b) for a, b in zip(mine.statements, theirs.statements))
        ):
            return False
    return change.imports == other.imports


class ConflictIndex:
    """:func:`conflicts` against every accepted change, by line: each check costs the lines the
    change spans and the changes on them, not every change accepted before (a file with 10,000
    fixes must not take 10,000² comparisons)."""

    def __init__(self, ranges: Mapping[cst.CSTNode, CodeRange]) -> None:
        self.ranges = ranges
        self._strict: dict[int, list[_Span]] = {}  # every line a replaced/removed node spans
        self._anchors: dict[int, list[_Span]] = {}  # the line an insertion anchor starts on

    def conflicts(self, change: Change) -> bool:
        for mine in (_key(self.ranges[n]) for n in _strict(change)):
            for line in range(mine[0][0], mine[1][0] + 1):
                if any(_overlap_keys(mine, theirs) for theirs in self._strict.get(line, ())):
                    return True
                if any(_contains_keys(mine, theirs) for theirs in self._anchors.get(line, ())):
                    return True
        for anchor in (_key(self.ranges[i.anchor]) for i in change.insertions):
            if any(_contains_keys(theirs, anchor) for theirs in self._strict.get(anchor[0][0], ())):
                return True
        return False

    def add(self, change: Change) -> None:
        for span in (_key(self.ranges[n]) for n in _strict(change)):
            for line in range(span[0][0], span[1][0] + 1):
                self._strict.setdefault(line, []).append(span)
        for anchor in (_key(self.ranges[i.anchor]) for i in change.insertions):
            self._anchors.setdefault(anchor[0][0], []).append(anchor)


_Span = tuple[tuple[int, int], tuple[int, int]]


def _overlap_keys(a: _Span, b: _Span) -> bool:
    return (a[0] < b[1] and b[0] < a[1]) or a == b


def _contains_keys(outer: _Span, inner: _Span) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _strict(change: Change) -> list[cst.CSTNode]:
    return [old for old, _ in change.replacements] + list(change.removals)


def _key(where: CodeRange) -> tuple[tuple[int, int], tuple[int, int]]:
    return (where.start.line, where.start.column), (where.end.line, where.end.column)


def _overlap(a: CodeRange, b: CodeRange) -> bool:
    (a0, a1), (b0, b1) = _key(a), _key(b)
    return (a0 < b1 and b0 < a1) or (a0, a1) == (b0, b1)


def _contains(outer: CodeRange, inner: CodeRange) -> bool:
    (o0, o1), (i0, i1) = _key(outer), _key(inner)
    return o0 <= i0 and i1 <= o1


def apply_changes(
    module: cst.Module, changes: Sequence[Change], ranges: Mapping[cst.CSTNode, CodeRange]
) -> str:
    """The module's code with every change applied (the changes must not conflict)."""
    insertions: list[Insertion] = []
    seen_keys: dict[str, int] = {}
    for change in changes:
        for insertion in change.insertions:
            if insertion.key is None:
                insertions.append(insertion)
                continue
            where = _key(ranges[insertion.anchor])
            index = seen_keys.get(insertion.key)
            if index is None:
                seen_keys[insertion.key] = len(insertions)
                insertions.append(insertion)
            elif where < _key(ranges[insertions[index].anchor]):
                insertions[index] = insertion  # the earliest place serves every user
    transformer = _Apply(changes, insertions, _target_rows(changes, insertions, ranges), ranges)
    new_module = module.visit(transformer)
    needs: list[ImportNeed] = []
    for change in changes:
        needs.extend(n for n in change.imports if n not in needs and n.after is None)
    for need in needs:
        placed = place_import(new_module, need)
        if placed is None:  # no import block to join: libcst puts it at the top
            context = CodemodContext()
            AddImportsVisitor.add_needed_import(context, need.module, asname=need.asname)
            placed = AddImportsVisitor(context).transform_module(new_module)
        new_module = placed
    return new_module.code


# -- where a new import goes ----------------------------------------------------------------------
# Top-level packages that are third party for sure (isort cannot tell without the environment).
THIRD_PARTY = frozenset(
    {
        "torch", "numpy", "scipy", "pandas", "sklearn", "matplotlib", "tqdm", "transformers",
        "datasets", "accelerate", "lightning", "pytorch_lightning", "lightning_fabric",
        "torchvision", "torchaudio", "torchtext", "timm", "PIL", "cv2", "yaml", "hydra",
        "omegaconf", "wandb", "einops", "requests", "jax", "tensorflow", "h5py", "tensorboard",
        "tensorboardX", "deepspeed", "apex", "huggingface_hub", "safetensors", "tokenizers",
        "peft", "diffusers", "fairseq", "mmcv", "detectron2", "albumentations", "skimage",
        "seaborn", "networkx", "sentencepiece", "onnx", "triton", "xformers", "ray", "mlflow",
        "pytest", "absl", "gym", "gymnasium", "dgl", "torch_geometric", "monai", "kornia",
    }
)  # fmt: skip
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


def section(module: str, relative: bool = False) -> str:
    """isort's section of an imported module: future, stdlib, third, first (or unknown)."""
    top = module.split(".")[0]
    if relative:
        return "first"
    if top == "__future__":
        return "future"
    if top in _STDLIB:
        return "stdlib"
    if top in THIRD_PARTY:
        return "third"
    return "unknown"


def _import_of(statement: cst.CSTNode) -> Optional[tuple[str, bool, str]]:
    """(section, is a ``from`` import, module name) of a one-import statement line."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if isinstance(small, cst.Import):
        name = _dotted(small.names[0].name)
        return section(name), False, name
    if isinstance(small, cst.ImportFrom):
        name = _dotted(small.module) if small.module is not None else ""
        return section(name, relative=bool(small.relative)), True, name
    return None


def _dotted(node: Union[cst.Attribute, cst.Name]) -> str:
    if isinstance(node, cst.Name):
        return node.value
    value = node.value
    assert isinstance(value, (cst.Attribute, cst.Name))
    return f"{_dotted(value)}.{node.attr.value}"


_ORDER = ("future", "stdlib", "third", "first")


def place_import(module: cst.Module, need: ImportNeed) -> Optional[cst.Module]:
    """``module`` with ``import <need>`` placed in the import block at the top, in its section
    (standard library, third party, first party: isort's and ruff's default order, plain
    imports before ``from`` imports, alphabetical), or in a new section of its own between the
    others. None: the module has no import block at its top."""
    body = list(module.body)
    start = 0
    if body and _is_docstring(body[0]):
        start = 1
    end = start
    while end < len(body) and _import_of(body[end]) is not None:
        end += 1
    if end == start:
        return None
    mine = section(need.module)
    new_key = (False, need.module.lower())
    code = f"import {need.module}" + (f" as {need.asname}" if need.asname else "")
    new = cst.parse_statement(code)
    groups: list[list[int]] = []
    for index in range(start, end):
        blank, _ = _split_leading(body[index].leading_lines)
        if not groups or blank:
            groups.append([])
        groups[-1].append(index)
    kinds = [_group_kind(body, group) for group in groups]
    target = next((g for g, k in zip(groups, kinds) if k == mine), None)
    if target is not None:  # alphabetically in its section's group
        at = next((i for i in target if _sort_key(body, i) > new_key), None)
        return module.with_changes(body=_insert(body, target, at, new))
    rank = _rank(mine)
    mixed = next((g for g, k in zip(groups, kinds) if k == "mixed"), None)
    if mixed is not None:
        # One block mixing sections (`from __future__`, standard library and third party
        # with no blank line between them): the new import goes in it, in section order.
        at = next(
            (
                i
                for i in mixed
                if _rank(_section_of(body, i)) > rank
                or (_section_of(body, i) == mine and _sort_key(body, i) > new_key)
            ),
            None,
        )
        return module.with_changes(body=_insert(body, mixed, at, new))
    # a new section: before the first group of a later section
    rank = _ORDER.index(mine) if mine in _ORDER else len(_ORDER)
    later = next(
        (g for g, k in zip(groups, kinds) if (_ORDER.index(k) if k in _ORDER else 2.5) > rank),
        None,
    )
    if later is None:
        body.insert(end, new.with_changes(leading_lines=[cst.EmptyLine()]))
    else:
        first = later[0]
        blank, comments = _split_leading(body[first].leading_lines)
        body[first] = body[first].with_changes(leading_lines=[cst.EmptyLine(), *comments])
        body.insert(first, new.with_changes(leading_lines=blank))
    return module.with_changes(body=body)


def _insert(
    body: list[Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]],
    group: list[int],
    at: Optional[int],
    new: Union[cst.SimpleStatementLine, cst.BaseCompoundStatement],
) -> list[Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]]:
    """``new`` inserted in ``group`` before the statement ``at`` (taking over the blank lines
    above it), or after the group's last statement."""
    if at is None:
        body.insert(group[-1] + 1, new)
    else:
        blank, comments = _split_leading(body[at].leading_lines)
        body[at] = body[at].with_changes(leading_lines=comments)
        body.insert(at, new.with_changes(leading_lines=blank))
    return body


def _rank(kind: str) -> float:
    """A section's place in isort's order (an unknown module: after third party)."""
    return _ORDER.index(kind) if kind in _ORDER else 2.5


def _is_docstring(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _sort_key(body: Sequence[cst.CSTNode], index: int) -> tuple[bool, str]:
    found = _import_of(body[index])
    assert found is not None
    return found[1], found[2].lower()


def _group_kind(body: Sequence[cst.CSTNode], group: list[int]) -> str:
    """A group's section: its known members' (unknown members follow them); a group of
    unknown modules only is first party when it follows a third-party group, else unknown."""
    known = {s for i in group if (s := _section_of(body, i)) != "unknown"}
    if len(known) == 1:
        return known.pop()
    return "unknown" if not known else "mixed"


def _section_of(body: Sequence[cst.CSTNode], index: int) -> str:
    found = _import_of(body[index])
    return found[0] if found is not None else "unknown"


def _target_rows(
    changes: Sequence[Change],
    insertions: Sequence[Insertion],
    ranges: Mapping[cst.CSTNode, CodeRange],
) -> Optional[list[int]]:
    """The first rows of the nodes the changes act on (replaced, removed, inserted at), sorted;
    None when one has no position (then every statement is visited)."""
    nodes = [old for change in changes for old, _ in change.replacements]
    nodes += [node for change in changes for node in change.removals]
    nodes += [insertion.anchor for insertion in insertions]
    rows = []
    for node in nodes:
        where = ranges.get(node)
        if where is None:
            return None
        rows.append(where.start.line)
    return sorted(rows)


class _Apply(cst.CSTTransformer):
    """The changes applied in one pass; with ``rows`` (:func:`_target_rows`), a statement none
    of those rows is in is not walked (a node a change acts on starts within the rows of every
    statement that holds it: a fix-all of a large module walks only the statements it changes,
    not each of the module's nodes)."""

    def __init__(
        self,
        changes: Sequence[Change],
        insertions: Sequence[Insertion],
        rows: Optional[list[int]] = None,
        ranges: Optional[Mapping[cst.CSTNode, CodeRange]] = None,
    ) -> None:
        super().__init__()
        self.rows = rows
        self.ranges = ranges
        self.replacements: dict[int, cst.CSTNode] = {}
        self.removals: set[int] = set()
        self.before: dict[int, Body] = {}
        self.after: dict[int, Body] = {}
        for change in changes:
            for old, new in change.replacements:
                self.replacements[id(old)] = new
            self.removals.update(id(node) for node in change.removals)
        for insertion in insertions:
            target = self.before if insertion.before else self.after
            target.setdefault(id(insertion.anchor), []).extend(insertion.statements)

    def on_visit(self, node: cst.CSTNode) -> bool:
        rows, ranges = self.rows, self.ranges
        if rows is None or ranges is None or not isinstance(node, _STATEMENTS):
            return True
        where = ranges.get(node)
        if where is None:
            return True
        first = where.start.line
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.decorators:
            first = min([first, *(ranges[d].start.line for d in node.decorators if d in ranges)])
        index = bisect.bisect_left(rows, first)
        return index < len(rows) and rows[index] <= where.end.line

    def on_leave(  # type: ignore[override]
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> Union[cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel[cst.CSTNode]]:
        replacement = self.replacements.get(id(original_node))
        if replacement is not None:
            return replacement
        if isinstance(original_node, cst.Module) and isinstance(updated_node, cst.Module):
            body = self._arrange(original_node.body, updated_node.body, top_level=True)
            return updated_node.with_changes(body=body)
        if isinstance(original_node, cst.IndentedBlock) and isinstance(
            updated_node, cst.IndentedBlock
        ):
            body = self._arrange(original_node.body, updated_node.body, top_level=False)
            return updated_node.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])])
        if isinstance(original_node, cst.SimpleStatementSuite) and isinstance(
            updated_node, cst.SimpleStatementSuite
        ):
            small = self._arrange(original_node.body, updated_node.body, top_level=False)
            return updated_node.with_changes(body=small or [cst.Pass()])
        return updated_node

    def _arrange(
        self, original: Sequence[Statement], updated: Sequence[Statement], top_level: bool
    ) -> Body:
        out: Body = []
        for index, (old, new) in enumerate(zip(original, updated)):
            before = self.before.get(id(old))
            if before:
                new = _place_before(out, before, new, top_level, at_start=index == 0)
            if id(old) not in self.removals:
                out.append(new)
            for statement in self.after.get(id(old), ()):
                out.append(_with_leading(statement, []))
        return out


def _blank(count: int) -> list[cst.EmptyLine]:
    return [cst.EmptyLine() for _ in range(count)]


def _split_leading(
    lines: Sequence[cst.EmptyLine],
) -> tuple[list[cst.EmptyLine], list[cst.EmptyLine]]:
    """The blank lines at the top of a statement's leading lines, and the rest (comments)."""
    index = 0
    while index < len(lines) and lines[index].comment is None:
        index += 1
    return list(lines[:index]), list(lines[index:])


def _with_leading(statement: Statement, lines: list[cst.EmptyLine]) -> Statement:
    """``statement`` with ``lines`` above it instead of its own blank lines (comments kept)."""
    if isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        _, comments = _split_leading(statement.leading_lines)
        return statement.with_changes(leading_lines=[*lines, *comments])
    return statement


def _place_before(
    out: Body, inserted: Body, anchor: Statement, top_level: bool, at_start: bool
) -> Statement:
    """Append ``inserted`` to ``out`` and return ``anchor`` with its blank lines rearranged."""
    if not isinstance(anchor, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        out.extend(inserted)  # small statements in a one-line suite
        return anchor
    around_def = 2 if top_level else 1
    blank, comments = _split_leading(anchor.leading_lines)
    previous_def = False
    for position, statement in enumerate(inserted):
        is_def = isinstance(statement, (cst.FunctionDef, cst.ClassDef))
        if position == 0:
            lines = blank if at_start or not is_def else _blank(max(around_def, len(blank)))
            if not is_def and top_level and isinstance(anchor, (cst.FunctionDef, cst.ClassDef)):
                lines = lines[:1]  # a statement after the imports: one blank line (isort)
        elif is_def or previous_def:
            lines = _blank(around_def)
        else:
            lines = []
        out.append(_with_leading(statement, lines))
        previous_def = is_def
    if previous_def or (inserted and isinstance(anchor, (cst.FunctionDef, cst.ClassDef))):
        # a definition keeps its blank lines above it (`SEED = 0` added before a class)
        return anchor.with_changes(leading_lines=[*_blank(around_def), *comments])
    return anchor.with_changes(leading_lines=comments)
