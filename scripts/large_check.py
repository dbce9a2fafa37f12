"""Check and fix files as if each were a very large module, and compare with the plain way.

A text over ``seedlint.engine.parse.LARGE`` characters is parsed in pieces, hollowed and
compacted (:mod:`seedlint.analysis.compact`), and a module of ``WINDOW_LINES`` lines or more is
fixed through a window (:mod:`seedlint.fixes.window`). This script lowers both thresholds to 0
(and the pieces to a line) so that every file takes those paths, and compares each file's
findings, fix titles included, with the plain check's: any difference is printed and the exit
status is 1. With ``--json`` the fixed text (``--fix --unsafe-fixes``) is compared too.

    python scripts/large_check.py tests/fixtures bench/corpus
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from seedlint.config import Settings
from seedlint.engine import parse
from seedlint.engine.check import check_text
from seedlint.engine.selection import selection
from seedlint.fixes import window


def python_files(roots: list[Path]) -> Iterator[Path]:
    for root in roots:
        yield from sorted(root.rglob("*.py")) if root.is_dir() else [root]


def outcome(text: str, display: str, edits: bool) -> list[tuple[object, ...]]:
    checked = check_text(text, display, Settings())
    rows: list[tuple[object, ...]] = []
    for finding in checked.findings:
        rows.append((finding.code, finding.row, finding.col, finding.end_row, finding.end_col,
                     finding.message, finding.fix))  # fmt: skip
    if edits and checked.flagged:
        from seedlint.engine.fix import fix_text

        fixed = fix_text(text, display, Settings(unsafe_fixes=True), unsafe=True, first=checked)
        rows.append(("fixed", fixed.new_text, fixed.error))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--json", action="store_true", help="compare the fixes' results too")
    args = parser.parse_args()
    compared = differ = parsed = 0
    chosen = selection(Settings())
    for path in python_files(args.roots):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        display = str(path)
        if not chosen.firing(text.encode("utf-8", "surrogatepass"), display, notebook=False):
            continue  # no rule runs on it (the pre-filter): nothing to compare
        plain = outcome(text, display, args.json)
        large, piece, lines = parse.LARGE, parse.PIECE, window.WINDOW_LINES
        parse.LARGE, parse.PIECE, window.WINDOW_LINES = -1, 1, 0
        try:
            pieces = outcome(text, display, args.json)
        finally:
            parse.LARGE, parse.PIECE, window.WINDOW_LINES = large, piece, lines
        compared += 1
        parsed += bool(plain)
        if plain != pieces:
            differ += 1
            print(f"{display}: differs\n  plain:  {plain}\n  pieces: {pieces}", flush=True)
    print(f"{compared} files compared ({parsed} with findings), {differ} differ")
    print("(files no rule runs on were left out: the pre-filter rules every rule out)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
