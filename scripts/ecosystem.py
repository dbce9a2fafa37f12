#!/usr/bin/env python3
"""The ecosystem check: seedlint on the pinned real-world corpus, against a committed list.

Like ruff's ecosystem check, it runs seedlint on a large body of real code and shows what a
change to seedlint changed there:

1. **Findings.** It checks the corpus (``bench/corpus``, built by
   ``python bench/build_corpus.py``) and compares the findings (code, path, row, message) with
   ``tests/ecosystem/expected.jsonl``, printing the added and removed findings per rule.
   ``--update`` rewrites the list: a deliberate rule change updates it in the same commit, and
   every finding in it has been read and judged (``docs/ecosystem.md``).
2. **Fixes.** It copies the corpus, runs ``--fix`` on the copy and checks that every changed file
   still parses and compiles, that only files with a fixable finding changed (the rest of the
   corpus is byte-identical), that no fixable finding is left, and that a second ``--fix``
   changes nothing.

Usage::

    python scripts/ecosystem.py                 # compare; exit code 1 on any difference
    python scripts/ecosystem.py --update        # accept the current findings
    python scripts/ecosystem.py --no-fix-check  # findings only (faster)

seedlint runs as ``python -I -m seedlint`` with ``--isolated``, so neither the corpus nor any
configuration file around it changes what it does.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT / "bench" / "corpus"
DEFAULT_EXPECTED = ROOT / "tests" / "ecosystem" / "expected.jsonl"
SHOWN_PER_RULE = 50  # like ruff's ecosystem report


@dataclass(frozen=True, order=True)
class Item:
    """One finding, as the expected list stores it."""

    path: str
    row: int
    code: str
    message: str

    def to_json(self) -> str:
        data = {"code": self.code, "path": self.path, "row": self.row, "message": self.message}
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str) -> Item:
        data = json.loads(line)
        return cls(data["path"], int(data["row"]), data["code"], data["message"])

    def __str__(self) -> str:
        return f"{self.path}:{self.row}: {self.code} {self.message}"


@dataclass
class Checked:
    items: list[Item]
    fixable: Counter[str]  # path -> findings that --fix applies to
    stderr: str


def seedlint(corpus: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")}
    command = [sys.executable, "-I", "-m", "seedlint", "check", "--isolated", "--no-cache"]
    command += ["--no-respect-gitignore", *args, "."]
    return subprocess.run(command, cwd=corpus, capture_output=True, text=True, env=env)


def check(corpus: Path, unsafe: bool = False) -> Checked:
    """The corpus' findings, with paths relative to the corpus."""
    args = ["--exit-zero", "--output-format", "json-lines"]
    if unsafe:
        args.append("--unsafe-fixes")
    proc = seedlint(corpus, *args)
    if proc.returncode != 0:
        raise SystemExit(f"seedlint failed (exit code {proc.returncode}):\n{proc.stderr}")
    items: list[Item] = []
    fixable: Counter[str] = Counter()
    root = os.path.realpath(corpus)
    for line in proc.stdout.splitlines():
        data: dict[str, Any] = json.loads(line)
        path = Path(os.path.relpath(os.path.realpath(data["filename"]), root)).as_posix()
        if data.get("cell") is not None:
            path = f"{path}:cell {data['cell']}"
        items.append(Item(path, int(data["location"]["row"]), data["code"], data["message"]))
        fix = data.get("fix")
        if fix and (fix.get("applicability") == "safe" or unsafe):
            fixable[path.split(":cell ")[0]] += 1
    return Checked(sorted(items), fixable, proc.stderr)


def read_expected(path: Path) -> list[Item]:
    if not path.exists():
        return []
    return sorted(Item.from_json(line) for line in path.read_text().splitlines() if line.strip())


def write_expected(path: Path, items: Iterable[Item]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(item.to_json() + "\n" for item in sorted(items)))


def compare(expected: Sequence[Item], current: Sequence[Item]) -> tuple[list[Item], list[Item]]:
    """(added, removed), as multisets."""
    want, have = Counter(expected), Counter(current)
    added = sorted((have - want).elements())
    removed = sorted((want - have).elements())
    return added, removed


def report_findings(expected: Sequence[Item], current: Sequence[Item]) -> bool:
    added, removed = compare(expected, current)
    codes = sorted({i.code for i in expected} | {i.code for i in current})
    print("findings per rule (expected -> now):")
    for code in codes:
        before = sum(1 for i in expected if i.code == code)
        now = sum(1 for i in current if i.code == code)
        plus = [i for i in added if i.code == code]
        minus = [i for i in removed if i.code == code]
        print(f"  {code}: {before} -> {now} (+{len(plus)} -{len(minus)})")
        for sign, group in (("+", plus), ("-", minus)):
            for item in group[:SHOWN_PER_RULE]:
                print(f"    {sign} {item}")
            if len(group) > SHOWN_PER_RULE:
                print(f"    {sign} ... and {len(group) - SHOWN_PER_RULE} more")
    if not codes:
        print("  (no findings)")
    return not added and not removed


# -- the fix check ---------------------------------------------------------------------------
def snapshot(root: Path) -> dict[str, str]:
    """A digest of every file under ``root``."""
    return {
        path.relative_to(root).as_posix(): hashlib.blake2b(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def parses(data: bytes, name: str) -> Optional[str]:
    """None when ``data`` parses and compiles as Python, else why not."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(data, filename=name)
            compile(data, name, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        return f"{type(error).__name__}: {error}"
    return None


def fix_check(corpus: Path, checked: Checked, unsafe: bool) -> bool:
    """Fix a copy of the corpus; True when every fix check holds."""
    ok = True
    with tempfile.TemporaryDirectory(prefix="seedlint-ecosystem-") as temporary:
        copy = Path(temporary) / "corpus"
        shutil.copytree(corpus, copy, symlinks=True)
        original = snapshot(copy)
        fix_args = ["--fix", "--exit-zero", "--output-format", "concise"]
        if unsafe:
            fix_args.append("--unsafe-fixes")
        first = seedlint(copy, *fix_args)
        fixed = snapshot(copy)
        changed = sorted(name for name in original if fixed.get(name) != original[name])
        added = sorted(set(fixed) - set(original))
        print(f"--fix{' --unsafe-fixes' if unsafe else ''} on a copy of the corpus:")
        print(f"  files with a fixable finding: {len(checked.fixable)}")
        print(f"  files changed: {len(changed)}")
        errors = [line for line in first.stderr.splitlines() if line.strip()]
        for line in errors:
            print(f"  seedlint said: {line}")
        if first.returncode != 0:
            print(f"  FAIL: --fix exited with {first.returncode}")
            ok = False
        if added:
            ok = False
            print(f"  FAIL: --fix created {len(added)} files: {added[:5]}")
        for name in changed:
            problem = parses((copy / name).read_bytes(), name)
            if problem is not None:
                ok = False
                print(f"  FAIL: {name} does not parse after --fix: {problem}")
        unexpected = [name for name in changed if name not in checked.fixable]
        for name in unexpected:
            ok = False
            print(f"  FAIL: {name} changed, but it has no fixable finding")
        unchanged = len(original) - len(changed)
        print(f"  files byte-identical: {unchanged} of {len(original)}")
        not_fixed = sorted(set(checked.fixable) - set(changed))
        for name in not_fixed:
            print(f"  note: {name} has a fixable finding but was not changed")
        after = check(copy, unsafe)
        left = sum(after.fixable.values())
        print(f"  fixable findings left after --fix: {left}")
        if left:
            ok = False
            for path, count in sorted(after.fixable.items()):
                print(f"  FAIL: {path}: {count} fixable findings left")
        seedlint(copy, *fix_args)
        again = snapshot(copy)
        twice = sorted(name for name in fixed if again.get(name) != fixed[name])
        print(f"  files changed by a second --fix: {len(twice)}")
        if twice:
            ok = False
            for name in twice[:SHOWN_PER_RULE]:
                print(f"  FAIL: a second --fix changed {name}")
    return ok


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--expected", type=Path, default=DEFAULT_EXPECTED)
    parser.add_argument("--update", action="store_true", help="rewrite the expected list")
    parser.add_argument("--no-fix-check", action="store_true", help="skip the --fix checks")
    parser.add_argument(
        "--unsafe-fixes", action="store_true", help="also apply unsafe fixes in the fix check"
    )
    args = parser.parse_args(argv)
    corpus: Path = args.corpus
    if not corpus.is_dir():
        print(
            f"{corpus} does not exist: build it with `python bench/build_corpus.py`",
            file=sys.stderr,
        )
        return 2
    started = time.monotonic()
    checked = check(corpus, args.unsafe_fixes)
    files = sum(1 for _ in corpus.rglob("*.py"))
    print(f"seedlint on {corpus} ({files} Python files): {len(checked.items)} findings")
    expected = read_expected(args.expected)
    same = report_findings(expected, checked.items)
    if args.update:
        write_expected(args.expected, checked.items)
        print(f"wrote {args.expected} ({len(checked.items)} findings)")
        same = True
    elif not same:
        print("the findings differ from the expected list: read every added and removed finding,")
        print("then accept them with --update (and update docs/ecosystem.md)")
    fixes_ok = True
    if not args.no_fix_check:
        fixes_ok = fix_check(corpus, checked, args.unsafe_fixes)
    print(f"time: {time.monotonic() - started:.0f} s")
    return 0 if same and fixes_ok else 1


if __name__ == "__main__":
    sys.exit(main())
