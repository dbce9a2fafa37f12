"""The fix loop: rounds of fixes until nothing changes, with a parse check after each.

One round: the round's check (the first one is the file's own check, so a file is analysed
once per round), ask each applicable finding's rule for its change (:meth:`Rule.fix`, libcst),
keep the changes that do not touch the same code (the others are computed again next round, on
the new text, which is how two fixes of one call combine), apply them in one pass, and check
that the result still compiles. Rounds repeat until a round changes nothing, at most
:data:`MAX_ROUNDS` times. A round whose result does not compile leaves the file as it was and
names the rules whose fixes broke it.

libcst is imported only here and in the codemods, never on the plain ``check`` path.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Optional

from seedlint.config import Settings
from seedlint.core import Edit, Finding
from seedlint.documents import Document, DocumentError, NotebookDocument, Source, read_document
from seedlint.documents.notebook import split, to_cell
from seedlint.engine.cells import cell_findings, parsable
from seedlint.engine.check import REPORT, Checked, Flagged, check_bytes, check_text, invalid
from seedlint.engine.deep import deeply, in_deep_thread
from seedlint.engine.grammar import parse_lowered
from seedlint.engine.parse import kept_parse
from seedlint.engine.selection import selection
from seedlint.engine.splice import Spliced, splice
from seedlint.fixes import window as windows
from seedlint.fixes.depth import DEEP_FROM, FIX_DEPTH, fixer_depth
from seedlint.fixes.text import LineMap, kept_endings, lines, minimal_edits

if TYPE_CHECKING:
    from seedlint.fixes.context import Change, FixContext

MAX_ROUNDS = 10

# One round's result: the new text, the findings fixed, an error, and the new text's tree
# when the round made it (joined from the old one, :mod:`seedlint.engine.splice`).
_Round = tuple[str, list[Finding], Optional[str], Optional[ast.Module]]


def applies(finding: Finding, unsafe: bool) -> bool:
    """Whether ``--fix`` applies this finding's fix (with ``--unsafe-fixes`` when ``unsafe``)."""
    fix = finding.fix
    return fix is not None and (fix.safe or unsafe)


@dataclass
class Fixed:
    """What fixing one file did: the one result type of the fix stage.

    ``new_raw`` is the input itself when nothing changed. ``fixed``: rows of the original file;
    ``remaining``: rows of the new one. ``errors``: one line each (the file is then unchanged).
    """

    new_raw: bytes
    fixed: list[Finding] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class TextFixed:
    new_text: str
    fixed: list[Finding]  # rows as in the text that was given
    remaining: list[Finding]  # rows as in ``new_text``
    error: Optional[str] = None  # set: nothing was changed (``new_text`` is the text given)
    warnings: list[str] = field(default_factory=list)


def fix_text(
    text: str,
    display: str,
    settings: Settings,
    unsafe: bool,
    first: Optional[Checked] = None,
    window_lines: Optional[int] = None,
    keep_first: bool = False,
) -> TextFixed:
    """Fix decoded Python text in memory; ``first``: the text's check, when already done
    (``keep_first``: its tree is someone else's, not to be spliced into the fixed text's);
    ``window_lines``: fix a module of at least that many lines through a window of the
    statements the fixes change (default :data:`~seedlint.fixes.window.WINDOW_LINES`)."""
    checked = first if first is not None else check_text(text, display, settings)
    original = checked.findings
    current = text
    fixed: list[Finding] = []
    maps: list[LineMap] = []
    notes: list[str] = []
    for _ in range(MAX_ROUNDS):
        candidates = [item for item in checked.flagged if applies(item.finding, unsafe)]
        if not candidates:
            break
        spliceable = not (keep_first and checked is first)
        new_text, applied, error, new_tree = _round(
            current, display, checked, candidates, settings, window_lines, spliceable
        )
        if error is not None:
            return TextFixed(text, [], original, error)
        if new_text == current:
            break
        fixed.extend(_back(finding, maps) for finding in applied)
        maps.append(LineMap(current, new_text))
        current = new_text
        checked = check_text(current, display, settings, tree=new_tree)
    else:
        left = sorted({f.finding.code for f in checked.flagged if applies(f.finding, unsafe)})
        if left:
            notes.append(
                f"fixes did not converge after {MAX_ROUNDS} rounds (still fixable: "
                f"{', '.join(left)}); please report this at the seedlint issue tracker"
            )
    return TextFixed(current, fixed, checked.findings, None, notes)


def _back(finding: Finding, maps: list[LineMap]) -> Finding:
    """A finding of a later round with its rows in the text the fixer started from."""
    row, end_row = finding.row, finding.end_row
    for line_map in reversed(maps):
        row, end_row = line_map.old_row(row), line_map.old_row(end_row)
    return replace(finding, row=row, end_row=max(end_row, row))


def _context(
    text: str,
    checked: Checked,
    settings: Settings,
    rows: Optional[Collection[int]] = None,
    window_lines: Optional[int] = None,
    inner: bool = False,
) -> FixContext:
    """The fix context of ``text``; with ``rows``, through a window that keeps the top-level
    statements at those rows when the module is very large (:mod:`seedlint.fixes.window`;
    ``window_lines``: at least that many lines; ``inner``: and, inside them, only the
    statements at those rows)."""
    from seedlint.fixes.context import FixContext
    from seedlint.fixes.window import make_window

    assert checked.facts is not None and checked.source is not None
    tree = checked.facts.tree
    window = make_window(text, tree, rows, window_lines, inner) if rows is not None else None
    options = selection(settings).fix_options
    if window is None:
        return FixContext(text, checked.source, checked.facts, options)
    return FixContext(window.text, checked.source, checked.facts, options, window=window)


def _rows(flagged: Iterable[Flagged]) -> set[int]:
    """The rows of these findings (the statements a window keeps)."""
    return {row for item in flagged for row in range(item.finding.row, item.finding.end_row + 1)}


def _round(
    text: str,
    display: str,
    checked: Checked,
    candidates: Sequence[Flagged],
    settings: Settings,
    window_lines: Optional[int] = None,
    spliceable: bool = True,
) -> _Round:
    """One round over ``text``: (new text, the findings fixed, an error). A very large module
    is fixed through a window first, and whole when the window cannot serve. ``spliceable``:
    the new text's tree may be made from ``checked``'s (:func:`_spliced`)."""
    from seedlint.fixes.window import OutsideWindow

    try:
        rows = _rows(candidates)
        return _round_in(
            text, display, checked, candidates, settings, rows, window_lines, spliceable
        )
    except OutsideWindow:
        return _round_in(text, display, checked, candidates, settings, None, None, spliceable)


def _round_in(
    text: str,
    display: str,
    checked: Checked,
    candidates: Sequence[Flagged],
    settings: Settings,
    rows: Optional[Collection[int]],
    window_lines: Optional[int] = None,
    spliceable: bool = True,
) -> _Round:
    import libcst as cst

    from seedlint.fixes.transform import ConflictIndex, apply_changes, change_place, same_change
    from seedlint.fixes.window import OutsideWindow

    try:
        ctx = _context(text, checked, settings, rows, window_lines, inner=True)
    except cst.ParserSyntaxError as error:
        if rows is not None:  # perhaps the window's text only: try the whole module
            raise OutsideWindow("libcst cannot parse the window") from error
        return text, [], f"cannot fix: libcst cannot parse the file ({error.message})", None
    if ctx.code != ctx.text:  # libcst would rewrite more than the fix (a form feed, say)
        if ctx.window is not None:
            raise OutsideWindow("libcst does not reproduce the window")
        return (
            text,
            [],
            "cannot fix: libcst does not reproduce this file exactly; left unchanged",
            None,
        )
    window = ctx.window

    def applied_text(changes: Sequence[Change]) -> str:
        new = apply_changes(ctx.module, changes, ctx.positions)
        return kept_endings(text, new if window is None else window.restore(new))

    accepted: list[Change] = []
    applied: list[Flagged] = []
    duplicates: list[Flagged] = []  # findings whose fix is exactly an accepted change
    index = ConflictIndex(ctx.positions)
    by_place: dict[tuple[object, ...], list[Change]] = {}  # accepted changes by where they act
    for item in sorted(candidates, key=lambda item: item.finding.sort_key):
        try:
            change = item.rule.fix(ctx, item.violation)
        except OutsideWindow:
            raise
        except Exception as error:  # a bug in a codemod: leave the file alone
            message = (
                f"the {item.rule.code} fix failed ({type(error).__name__}: {error}); the file "
                "was left unchanged; please report this at the seedlint issue tracker"
            )
            return text, [], message, None
        if change is None or change.empty:
            continue
        place = change_place(change)
        if any(same_change(change, other) for other in by_place.get(place, ())):
            duplicates.append(item)
            continue
        if index.conflicts(change):
            continue
        index.add(change)
        by_place.setdefault(place, []).append(change)
        accepted.append(change)
        applied.append(item)
    if not accepted:
        return text, [], None, None
    new_text = applied_text(accepted)
    spliced = _spliced(text, checked, new_text, display, window_lines) if spliceable else None
    if spliced is not None:
        valid = spliced.valid
    else:
        # (what compiles is valid either way: the text before is compiled only if not)
        valid = _compiles(new_text, display) or (
            not _compiles(text, display) and _valid(new_text, display, False)
        )
    if not valid:
        strict = _compiles(text, display)
        broken = sorted(
            {
                item.rule.code
                for item, change in zip(applied, accepted)
                if not _valid(applied_text([change]), display, strict)
            }
            or {item.rule.code for item in applied}
        )
        message = (
            f"the fix for {', '.join(broken)} produced code that does not compile; the file "
            "was left unchanged; please report this at the seedlint issue tracker"
        )
        return text, [], message, None
    tree = spliced.tree if spliced is not None else None
    return new_text, [item.finding for item in (*applied, *duplicates)], None, tree


def _spliced(
    text: str, checked: Checked, new_text: str, display: str, window_lines: Optional[int]
) -> Optional[Spliced]:
    """The new text's tree from the old one, parsing only the statements the round changed
    (:mod:`seedlint.engine.splice`), for a module of at least ``window_lines`` lines (as for
    the window); None: compile and parse the whole new text."""
    least = windows.WINDOW_LINES if window_lines is None else window_lines
    if checked.facts is None or text.count("\n") + 1 < least:
        return None
    return splice(text, checked.facts.tree, new_text, display)


def _compiles(text: str, display: str) -> bool:
    try:
        with warnings.catch_warnings():  # the user's `x is 1` is not ours to warn about
            warnings.simplefilter("ignore")
            compile(text, display, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _valid(text: str, display: str, strict: bool) -> bool:
    """The fixed text compiles (or, when the original did not, at least parses)."""
    if strict:
        return _compiles(text, display)
    try:
        ast.parse(text, filename=display)
    except SyntaxError:  # perhaps code for a newer Python, as the file was
        return parse_lowered(text, display) is not None
    except ValueError:
        return False
    return True


# -- one file's bytes ------------------------------------------------------------------------
def fix_bytes(
    raw: bytes,
    display: str,
    settings: Settings,
    unsafe: bool,
    window_lines: Optional[int] = None,
    first: Optional[Checked] = None,
) -> Fixed:
    """Fix one file's bytes in memory (the encoding, BOM and newlines stay the file's); never
    raises: a file the fixer fails on is left as it is, with one error line for it.
    ``window_lines``: see :func:`fix_text` (the language server's fix-all: libcst parses only
    the statements the fixes change, whatever the module's size). ``first``: the check of a
    Python file's ``raw`` with ``settings`` (its findings with their fixes), when already made
    (the language server's kept check); it is not released."""
    try:
        return _fix_bytes(raw, display, settings, unsafe, window_lines, first)
    except (RecursionError, MemoryError) as error:
        if isinstance(error, RecursionError) and not in_deep_thread():
            return deeply(lambda: fix_bytes(raw, display, settings, unsafe))  # a larger stack
        message = (
            f"cannot fix: the file is nested too deeply ({type(error).__name__}); "
            "it was left unchanged"
        )
    except Exception as error:  # a bug in the fixer
        message = (
            f"the fixer failed ({type(error).__name__}: {error}); the file was left unchanged; "
            "please report this at the seedlint issue tracker"
        )
    checked = check_bytes(raw, display, settings)
    return Fixed(raw, [], checked.release(), [message])


def _fix_bytes(
    raw: bytes,
    display: str,
    settings: Settings,
    unsafe: bool,
    window_lines: Optional[int],
    given: Optional[Checked] = None,
) -> Fixed:
    chosen = selection(settings)
    if not chosen.may_fire(raw, display):
        return Fixed(raw)
    try:
        document = read_document(raw, display)
    except DocumentError as error:
        return Fixed(raw, remaining=invalid(display, error.message, chosen, error.row, error.col))
    if not document.checkable:
        return Fixed(raw)
    tree, left_out = None, []  # a notebook: its cells that do not parse are left out
    if isinstance(document, NotebookDocument):
        parsed = parsable(document)
        document, tree = parsed.document, parsed.tree
        left_out = cell_findings(parsed, chosen)
    if given is not None and not isinstance(document, NotebookDocument):
        first = given
    else:
        if tree is None:  # the project's index may have parsed it just before
            tree = kept_parse(document.text)
        first = check_text(document.text, display, settings, document.source, tree=tree)

    def done() -> list[Finding]:
        return first.findings if first is given else first.release()

    if not any(applies(item.finding, unsafe) for item in first.flagged):
        return Fixed(raw, remaining=_located(document, done(), left_out))
    depth = _depth(first)
    if depth > FIX_DEPTH:  # libcst's parser would overflow the stack (SIGSEGV): no fix
        message = (
            f"cannot fix: the file is nested too deeply for the fixer (about {depth} levels, "
            f"at most {FIX_DEPTH}); it was left unchanged"
        )
        return Fixed(raw, [], _located(document, done(), left_out), [message])
    if depth > DEEP_FROM and not in_deep_thread():
        result = deeply(
            lambda: fix_text(
                document.text, display, settings, unsafe, first, window_lines, first is given
            )
        )
    else:
        keep = first is given
        result = fix_text(document.text, display, settings, unsafe, first, window_lines, keep)
    errors = ([result.error] if result.error else []) + result.warnings
    if result.error is not None or result.new_text == document.text:
        return Fixed(raw, [], _located(document, result.remaining, left_out), errors)
    try:
        new_raw = document.to_bytes(result.new_text)
    except UnicodeEncodeError as error:
        checked = check_text(document.text, display, settings, document.source)
        remaining = _located(document, checked.findings, left_out)
        return Fixed(raw, [], remaining, [f"cannot encode the fixed file: {error}"])
    if new_raw is None:  # a notebook the fix cannot be written back into
        checked = check_text(document.text, display, settings, document.source)
        remaining = _located(document, checked.findings, left_out)
        return Fixed(raw, [], remaining, errors)
    fixed = [document.locate(f) for f in result.fixed]
    remaining = [document.locate(f, result.new_text) for f in result.remaining]
    return Fixed(new_raw, _sorted(fixed), _sorted([*remaining, *left_out]), errors)


def _located(
    document: Document, findings: list[Finding], left_out: Sequence[Finding] = ()
) -> list[Finding]:
    """The findings in the rows the user counts, with the RNG000 of each cell left out."""
    return _sorted([*(document.locate(f) for f in findings), *left_out])


def _sorted(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: f.sort_key)


# -- edits for the json output ---------------------------------------------------------------
Identity = tuple[str, int, int, int, int]


def identity(finding: Finding) -> Identity:
    return (finding.code, finding.row, finding.col, finding.end_row, finding.end_col)


def edits_for(
    raw: bytes,
    display: str,
    settings: Settings,
    only: Optional[Collection[Identity]] = None,
    window_lines: Optional[int] = None,
) -> dict[Identity, tuple[Edit, ...]]:
    """Each fix's edits, each fix computed alone on the file's bytes (for the json output);
    ``only``: just these findings' (the language server's quick fixes at the cursor).

    A notebook finding's edits count rows in its cell, as the finding does; a fix that also
    changes another cell (a new ``import torch`` goes to the first code cell) or a line with
    masked IPython syntax gets no edits (one finding has one ``cell``), and ``--fix`` still
    applies it. ``window_lines``: as for :func:`fix_text` (the language server's quick fix:
    libcst parses the statement of the finding, the imports and the first statement)."""
    from seedlint.fixes.window import OutsideWindow

    try:
        document = read_document(raw, display)
    except DocumentError:
        return {}
    cells: Optional[_CellRows] = None
    tree = None
    if isinstance(document, NotebookDocument):
        if not document.checkable:
            return {}
        parsed = parsable(document)  # the cells that do not parse are left out
        document, tree = parsed.document, parsed.tree
        cells = _CellRows(document)
    else:  # the check pass may have parsed it just before
        tree = kept_parse(document.text)
    checked = check_text(document.text, display, settings, document.source, tree=tree)
    if checked.facts is None:
        return {}
    wanted = [
        item
        for item in checked.flagged
        if item.finding.fix is not None and (only is None or identity(item.finding) in only)
    ]
    if not wanted:
        return {}
    depth = _depth(checked)
    if depth > FIX_DEPTH:  # libcst's parser would overflow the stack: no edits shown
        return {}

    def computed() -> dict[Identity, tuple[Edit, ...]]:
        try:
            return _edits_in(
                document, cells, checked, settings, wanted, _rows(wanted), window_lines=window_lines
            )
        except OutsideWindow:  # a fix needs more of a very large module than its window
            return _edits_in(document, cells, checked, settings, wanted, None)

    return deeply(computed) if depth > DEEP_FROM and not in_deep_thread() else computed()


def _depth(checked: Checked) -> int:
    """libcst's nesting of the checked module, estimated (:mod:`seedlint.fixes.depth`)."""
    if checked.facts is None:
        return 0
    text = checked.text
    source = checked.source if checked.source is not None else Source(text, "utf-8")
    if source.text != text:
        source = Source(text, "utf-8")
    return fixer_depth(checked.facts.tree, text, source.line_starts)


def edits_of(
    raw: bytes,
    display: str,
    settings: Settings,
    checked: Checked,
    wanted: Sequence[Flagged],
    window_lines: Optional[int] = None,
) -> dict[Identity, tuple[Edit, ...]]:
    """:func:`edits_for` of a Python file already checked (``checked``: its facts kept), for
    the findings ``wanted`` (each with its fix): the language server's quick fix, which must
    not check the buffer again."""
    from seedlint.fixes.window import OutsideWindow

    if checked.facts is None or checked.source is None:
        return {}
    try:
        document = read_document(raw, display)
    except DocumentError:
        return {}
    if isinstance(document, NotebookDocument):
        return edits_for(raw, display, settings, window_lines=window_lines)
    wanted = [item for item in wanted if item.finding.fix is not None]
    try:
        return _edits_in(document, None, checked, settings, wanted, _rows(wanted), window_lines)
    except OutsideWindow:
        return _edits_in(document, None, checked, settings, wanted, None)


def _edits_in(
    document: Document,
    cells: Optional[_CellRows],
    checked: Checked,
    settings: Settings,
    wanted: Sequence[Flagged],
    rows: Optional[Collection[int]],
    window_lines: Optional[int] = None,
) -> dict[Identity, tuple[Edit, ...]]:
    from seedlint.fixes.edits import line_starts, local_edits
    from seedlint.fixes.spliced import TopLevel
    from seedlint.fixes.transform import apply_changes
    from seedlint.fixes.window import OutsideWindow

    try:
        ctx = _context(document.text, checked, settings, rows, window_lines, inner=True)
    except Exception as error:  # libcst cannot parse it, or it is nested too deeply
        if rows is not None:  # perhaps the window's text only: try the whole module
            raise OutsideWindow("libcst cannot parse the window") from error
        return {}
    window = ctx.window
    if window is not None and ctx.code != ctx.text:
        raise OutsideWindow("libcst does not reproduce the window")
    found: dict[Identity, tuple[Edit, ...]] = {}
    text_lines = lines(document.text)
    starts = line_starts(text_lines)
    tops: Optional[TopLevel] = None  # made at the first fix that needs it
    for item in wanted:
        try:
            change = item.rule.fix(ctx, item.violation)
            if change is None or change.empty:
                continue
            # A replacement costs the size of its nodes; anything else, the module's.
            edits = local_edits(ctx.module, ctx.positions, change, document.text, starts)
            if edits is None and window is None:  # an insertion: its top-level statements
                tops = tops or TopLevel(ctx.module, ctx.positions)
                edits = tops.edits(change, document.text, text_lines, starts)
            if edits is None:  # imports: applied to the whole module (or the window)
                new_text = apply_changes(ctx.module, [change], ctx.positions)
                if window is not None:
                    new_text = window.restore(new_text)
                edits = minimal_edits(document.text, kept_endings(document.text, new_text))
        except OutsideWindow:
            raise
        except Exception:  # a broken codemod: no edits shown, and --fix reports it
            continue
        if cells is None:
            found[identity(item.finding)] = edits
            continue
        located = to_cell(item.finding, cells.rows, cells.margins)
        in_cell = cells.edits(edits, located.cell)
        if in_cell is not None:
            found[identity(located)] = in_cell
    return found


class _CellRows:
    """Program rows of a notebook, for moving a fix's edits into its finding's cell."""

    def __init__(self, document: NotebookDocument) -> None:
        program = split(document.text, document.notebook.tag)
        self.rows = program.rows
        self.margins = document.notebook.margins
        self.lines = [line.rstrip("\r\n") for line in document.text.splitlines()]
        self.real: dict[int, list[str]] = {
            cell.index: [line.rstrip("\r\n") for line in cell.source.splitlines()]
            for cell in document.notebook.cells
        }

    def _row(self, row: int, cell: Optional[int]) -> Optional[int]:
        """The row in ``cell`` of program row ``row``, when that line is the cell's own (not a
        boundary, not masked IPython syntax)."""
        if cell is None or not 1 <= row < len(self.rows) or row > len(self.lines):
            return None
        owner, in_cell = self.rows[row]
        real = self.real.get(owner, [])
        if owner != cell or not 1 <= in_cell <= len(real):
            return None
        return in_cell if real[in_cell - 1] == self.lines[row - 1] else None

    def edits(self, edits: Sequence[Edit], cell: Optional[int]) -> Optional[tuple[Edit, ...]]:
        moved = []
        for edit in edits:
            start = self._row(edit.row, cell)
            inner = [self._row(r, cell) for r in range(edit.row + 1, edit.end_row)]
            if edit.end_row > edit.row and edit.end_col == 0:
                before = self._row(edit.end_row - 1, cell)  # the end of the line above
                end = before + 1 if before is not None else None
            else:
                end = self._row(edit.end_row, cell)
            if start is None or end is None or None in inner:
                return None
            moved.append(replace(edit, row=start, end_row=end))
        return tuple(moved)


__all__ = ["REPORT", "Fixed", "TextFixed", "applies", "edits_for", "fix_bytes", "fix_text"]
