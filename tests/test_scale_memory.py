"""A very large module's tree is compacted and hollowed (``seedlint.analysis.compact``): the
same analysis in far less memory (issue 15: a 1M-line check under 1.5 GB).

Every text goes the large-module way here (``LARGE`` patched), so that ordinary code, the
fixtures included, shows any difference from the plain check.
"""

from __future__ import annotations

import ast
import copy
import gc
import pickle
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from seedlint.analysis.compact import COMPACT, Hollower, compact, plain
from seedlint.analysis.names import ScopeBuilder
from seedlint.config import Settings
from seedlint.engine import parse
from seedlint.engine.check import check_text
from tests.support import plain_dump

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def fixture_texts() -> list[tuple[str, str]]:
    found = []
    for path in sorted(FIXTURES.rglob("*.py")):
        try:
            found.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            continue
    return found


@pytest.fixture
def every_text_large(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse, "LARGE", -1)
    monkeypatch.setattr(parse, "PIECE", 1)


def test_a_compact_tree_is_the_same_tree() -> None:
    for display, text in fixture_texts():
        try:
            tree = ast.parse(text)
            compile(tree, display, "exec")  # a fixture CPython parses but will not compile
        except SyntaxError:  # (`def f() -> (x := 1):`) has no code to compare with
            continue
        small = compact(tree)
        assert plain_dump(small) == ast.dump(tree, include_attributes=True), display
        assert [type(n).__name__ for n in ast.walk(small)] == [
            type(n).__name__ for n in ast.walk(tree)
        ]
        assert all(plain(type(a)) is type(b) for a, b in zip(ast.walk(small), ast.walk(tree)))
        assert ast.unparse(small) == ast.unparse(tree), display
        compile(small, display, "exec")  # CPython takes it as its own tree


def test_copies_of_compact_nodes_are_plain_nodes() -> None:
    tree = compact(ast.parse("x = f(1, y=[2, 3])\n"))
    for twin in (copy.deepcopy(tree), pickle.loads(pickle.dumps(tree))):
        assert all(type(node) not in COMPACT.values() for node in ast.walk(twin))
        assert ast.dump(twin, include_attributes=True) == ast.dump(
            ast.parse("x = f(1, y=[2, 3])\n"), include_attributes=True
        )


def test_the_scope_builder_sees_compact_nodes_as_their_classes() -> None:
    """The builder dispatches on the class by identity: without the compact classes in its
    table it would record no binding and no call of a compact tree."""
    text = "import torch\nx = 1\ndef f(a):\n    return torch.rand(a)\nclass C:\n    y = f(x)\n"
    plain_builder, compact_builder = (
        ScopeBuilder(ast.parse(text)),
        ScopeBuilder(compact(ast.parse(text))),
    )
    assert len(compact_builder.calls) == len(plain_builder.calls) == 2
    assert sorted(compact_builder.module_scope.bindings) == ["C", "f", "torch", "x"]
    assert len(compact_builder.functions) == 1 and len(compact_builder.classes) == 1


def _size(build: object) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = build() if callable(build) else build
        size = tracemalloc.get_traced_memory()[0] - before
        del kept
    finally:
        tracemalloc.stop()
    return size


def test_a_compact_tree_takes_well_under_half_the_memory() -> None:
    text = "".join(f"def f_{i}(a, b=2):\n    return g(a, b * {i}, key='k')\n" for i in range(3000))
    plain_size = _size(lambda: ast.parse(text))
    tree = ast.parse(text)
    compact_size = _size(lambda: compact(tree))
    assert compact_size < 0.5 * plain_size, (compact_size, plain_size)


def _hollowed(text: str) -> list[int]:
    """The rows of the top-level assignments whose value the large-module parse hollows."""
    large, piece = parse.LARGE, parse.PIECE
    parse.LARGE, parse.PIECE = -1, 1
    try:
        tree = parse.parse_module(text, "m.py")
    finally:
        parse.LARGE, parse.PIECE = large, piece
    return [
        s.lineno
        for s in tree.body
        if isinstance(s, ast.Assign)
        and isinstance(s.value, ast.Constant)
        and s.value.value is ...
        and "..." not in ast.get_source_segment(text, s.value)  # type: ignore[operator]
    ]


def test_only_assignments_nothing_can_read_are_hollowed() -> None:
    text = (
        "import torch\n"
        "a = 1 * 2 + len('x')\n"  # 2: hollowed
        "b = [1, 2, (3, {4: 5})]\n"  # 3: hollowed
        "c = 3\n"  # 4: read below
        "use = c\n"  # 5: reads a name
        "d = torch.zeros(2)\n"  # 6: a relevant word
        "e = make()\n"  # 7: a call of a name that is not a safe builtin
        "f = 2; g = f\n"  # 8: f is read on the same line (g reads a name)
        "__all__ = ['c']\n"  # 9: a dunder (a name in its strings would keep it)
        "h = 'é' * 2\n"  # 10: not ASCII
        "i = x.y\n"  # 11: an attribute
        "j = (k := 3)\n"  # 12: `:=` binds
        "seed_value = 5\n"  # 13: a relevant word
        "m = n = 4\n"  # 14: two targets, both unread: hollowed
        "p = [i for i in range(3)]\n"  # 15: a comprehension
    )
    assert _hollowed(text) == [2, 3, 14]


def test_a_builtin_the_module_binds_is_not_safe() -> None:
    base = "v = len('x')\n"
    assert _hollowed(base) == [1]
    for binding in ("def len(x):\n    return 0\n", "len = print\n", "from m import len\n",
                    "from m import *\n", "def f(len):\n    pass\n"):  # fmt: skip
        assert _hollowed(base + binding) == [], binding
    assert Hollower("x = len('a')\nlen = 3\n").safe == frozenset()


@pytest.mark.usefixtures("every_text_large")
def test_hollowing_and_compacting_change_no_finding() -> None:
    """The fixtures' findings and fix titles, as a very large module, are the plain check's."""
    for display, text in fixture_texts():
        large = check_text(text, display, Settings()).findings
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(parse, "LARGE", 10**12)
            whole = check_text(text, display, Settings()).findings
        assert large == whole, display


def test_the_comparison_script_on_the_fixtures_with_fixes() -> None:
    """``scripts/large_check.py --json``: findings and the fixed text, every fixture."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "large_check.py"), "--json", str(FIXTURES)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert ", 0 differ" in result.stdout


CORPUS = ROOT / "bench" / "corpus"


@pytest.mark.skipif(
    not CORPUS.is_dir() or not any(CORPUS.iterdir()),
    reason="bench/corpus is not built (python bench/build_corpus.py)",
)
def test_the_comparison_script_on_the_corpus() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "large_check.py"), str(CORPUS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_checking_a_module_leaves_no_reference_cycle() -> None:
    """The check runs with the cyclic collector paused and frees each module's tree and facts
    by reference counting (``Checked.release``): a cycle left through them (a recursive
    closure over the tree, say) keeps every tree alive until a collection, which then costs
    a traversal of all of them. Nothing the check of a fixture made may need the collector."""
    from seedlint.engine.check import check_bytes, collector_paused
    from seedlint.project.summary import summarize

    settings = Settings()
    checked = 0
    # What the test process holds already (pytest, its plugins, other tests' data) moves to the
    # permanent generation, so each collection below walks only what the check made: a cycle
    # among those objects is found all the same (a reference from a frozen object counts as
    # one from outside). Without it, every collection walks the whole process, minutes in all.
    gc.collect()
    gc.freeze()
    try:
        for path in sorted(FIXTURES.rglob("*.py")):
            raw = path.read_bytes()
            gc.collect()
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                with collector_paused():
                    result = check_bytes(raw, str(path), settings)
                    if result.facts is not None:
                        summarize(result.facts)
                        checked += 1
                    result.release()
                gc.collect()
                left = [type(o).__name__ for o in gc.garbage]
            finally:
                gc.set_debug(0)
                gc.garbage.clear()
            assert not left, (path, sorted(set(left)))
    finally:
        gc.unfreeze()
    assert checked > 20
