#!/usr/bin/env python3
"""Check on real code that the pre-filter never hides a finding.

Every ``.py`` file under the given folders (default: the benchmark corpus, ``bench/corpus``) is
checked twice with the default settings: as ``seedlint check`` does it (the pre-filter decides
which files are parsed and which rules run), and with every rule run on every file. The
findings of the rules must be the same. The only expected difference is RNG000 for a file that
no rule can fire on, which is never parsed (see ``docs/rules/RNG000.md``); those are listed.

Usage::

    python scripts/prefilter_check.py              # the benchmark corpus
    python scripts/prefilter_check.py src/ tests/  # any folders

Exit code 1 when a rule's findings differ. Every file is parsed, so this takes minutes on the
corpus (about 20 seconds on 2 cores).
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from pathlib import Path

from seedlint.config import Settings
from seedlint.documents import DecodeError, Source
from seedlint.engine.check import check_text, findings_of
from seedlint.engine.selection import selection

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = Settings()
Key = tuple[str, str, int, int, str]


def check(path: str) -> tuple[list[Key], list[Key], bool]:
    """The findings with the pre-filter, with every rule, and whether the filter let it in."""
    raw = Path(path).read_bytes()
    filtered = [
        (f.code, path, f.row, f.col, f.message) for f in findings_of(raw, path, SETTINGS).findings
    ]
    try:
        source = Source.decode(raw)
    except DecodeError as error:
        return filtered, [("RNG000", path, 1, 0, str(error))], False
    every = check_text(source.text, path, SETTINGS, source, prefilter=False).findings
    parsed = selection(SETTINGS).may_fire(raw)
    return filtered, [(f.code, path, f.row, f.col, f.message) for f in every], parsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[ROOT / "bench" / "corpus"])
    parser.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
    args = parser.parse_args()
    files = sorted(str(p) for folder in args.folders for p in folder.rglob("*.py") if p.is_file())
    if not files:
        print("no .py files found (build the corpus: python bench/build_corpus.py)")
        return 2
    with multiprocessing.Pool(args.jobs) as pool:
        results = pool.map(check, files, chunksize=16)
    hidden: list[Key] = []
    extra: list[Key] = []
    unparsed_errors: list[Key] = []
    filtered_count = every_count = parsed = 0
    for filtered, every, was_parsed in results:
        parsed += was_parsed
        filtered_count += len(filtered)
        every_count += len(every)
        for key in set(every) - set(filtered):
            if key[0] == "RNG000" and not was_parsed:
                unparsed_errors.append(key)
            else:
                hidden.append(key)
        extra.extend(set(filtered) - set(every))
    print(f"{len(files):,} files; {parsed:,} pass the pre-filter and are parsed")
    print(f"findings: {filtered_count} with the pre-filter, {every_count} with every rule")
    for key in sorted(unparsed_errors):
        print(f"  not parsed (no rule can fire): {key[1]}:{key[2]}: {key[0]} {key[4]}")
    for key in sorted(hidden):
        print(f"  HIDDEN by the pre-filter: {key[1]}:{key[2]}: {key[0]} {key[4]}")
    for key in sorted(extra):
        print(f"  only with the pre-filter: {key[1]}:{key[2]}: {key[0]} {key[4]}")
    same = not hidden and not extra
    print("the rules' findings are identical" if same else "the findings DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
