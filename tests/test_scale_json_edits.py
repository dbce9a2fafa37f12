"""The json output's edits of insertion fixes (RNG002's ``worker_init_fn``, RNG004's seeding
lines, RNG005's ``seed_worker``) are computed on the top-level statements the fix touches, not
on the whole module (``seedlint.fixes.spliced``; the imports a fix needs once per file): each
finding's edits, applied to the file, give what applying its fix to the whole module gives,
and the whole module is not printed once per finding (quadratic in findings)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from seedlint.config import Settings
from seedlint.core import Edit
from seedlint.documents import read_document
from seedlint.engine.fix import edits_for
from seedlint.fixes import spliced, transform
from seedlint.fixes.text import lines, minimal_edits
from tests.fixtures_support import FIXTURES, fixture_settings

SOURCES = sorted(FIXTURES.glob("RNG*/*.py")) + sorted(FIXTURES.glob("fixes/*/before.py"))


def whole_module_edits(raw: bytes, display: str, settings: Settings) -> dict[object, object]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spliced.TopLevel, "edits", lambda *args: None)
        return dict(edits_for(raw, display, settings))


def applied(text: str, edits: tuple[Edit, ...]) -> str:
    text_lines = lines(text)
    starts = [0]
    for line in text_lines:
        starts.append(starts[-1] + len(line))
    for edit in sorted(edits, key=lambda e: (e.row, e.col), reverse=True):
        begin = starts[edit.row - 1] + edit.col
        end = starts[edit.end_row - 1] + edit.end_col
        text = text[:begin] + edit.content + text[end:]
    return text


def assert_same_fixes(raw: bytes, display: str, settings: Settings) -> int:
    """Each finding's edits give the text its fix alone gives on the whole module; returns how
    many findings got edits."""
    text = read_document(raw, display).text
    got = edits_for(raw, display, settings)
    whole = whole_module_edits(raw, display, settings)
    assert got.keys() == whole.keys()
    for key, edits in got.items():
        assert applied(text, edits) == applied(text, whole[key]), key  # type: ignore[arg-type]
    return len(got)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_same_fixes_as_on_the_whole_module(path: Path) -> None:
    raw = path.read_bytes()
    settings = fixture_settings(raw.decode("utf-8", "replace"), path.parent)
    assert_same_fixes(raw, path.name, settings)


def loaders(count: int, seed: int) -> str:
    """A module of RNG002/RNG004/RNG001 findings among functions, classes and comments."""
    chooser = random.Random(seed)
    parts = ["import random\nimport torch\nfrom torch.utils.data import DataLoader\n\n"]
    for i in range(count):
        parts.append(
            chooser.choice(
                [
                    f"loader_{i} = DataLoader(range({i}), num_workers=2)\n",
                    f"\n\ndef make_{i}(data):\n    # build it\n"
                    f"    return DataLoader(data, num_workers={i % 4 + 1})\n\n\n",
                    f"class Holder{i}:\n    def __init__(self):\n"
                    f"        self.loader = DataLoader(range(3), num_workers=3, shuffle=True)\n",
                    f"random.seed({i})\ntorch.manual_seed({i})\n",
                    f"if flag_{i}:\n    loader = DataLoader(range(2), num_workers=1)\nelse:\n"
                    "    pass\n",
                    "# a comment between statements\n\n",
                ]
            )
        )
    return "".join(parts)


@pytest.mark.parametrize("seed", range(6))
def test_generated_modules_get_the_same_edits(seed: int) -> None:
    text = loaders(25, seed)
    for newline in ("\n", "\r\n"):
        raw = text.replace("\n", newline).encode()
        assert assert_same_fixes(raw, "m.py", Settings()) > 10


def test_insertion_fixes_never_print_the_whole_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each finding's fix is applied to at most its own top-level statement and the one before:
    the cost per finding does not grow with the file."""
    sizes: list[int] = []
    real = transform.apply_changes

    def spy(module, changes, ranges):  # type: ignore[no-untyped-def]
        sizes.append(len(module.body))
        return real(module, changes, ranges)

    monkeypatch.setattr(spliced, "apply_changes", spy)
    monkeypatch.setattr(transform, "apply_changes", spy)
    head = "import torch\nfrom torch.utils.data import DataLoader\n\nprint(1)\n"
    text = head + "".join(
        f"loader_{i} = DataLoader(range({i}), num_workers=2)\n" for i in range(60)
    )
    edits = edits_for(text.encode(), "m.py", Settings())
    assert len(edits) == 60
    # The import (`import random`) and the shared `seed_worker` are added to the whole module
    # once, and so are the fixes next to them; every other fix is applied to two statements.
    whole = [size for size in sizes if size > 2]
    assert len(whole) <= 4 and len(sizes) - len(whole) >= 56, sizes


def test_spliced_edits_equal_minimal_edits_of_the_whole_texts() -> None:
    chooser = random.Random(4)
    pool = ["a\n", "b\n", "\n", "c = 1\n", "a\n", "    x\n"]
    for _ in range(400):
        old = [chooser.choice(pool) for _ in range(chooser.randint(1, 12))]
        first = chooser.randint(0, len(old))
        last = chooser.randint(first, len(old))
        middle = [chooser.choice(pool) for _ in range(chooser.randint(0, 5))]
        text = "".join(old)
        new = "".join(old[:first] + middle + old[last:])
        text_lines = lines(text)
        starts = [0]
        for line in text_lines:
            starts.append(starts[-1] + len(line))
        got = spliced.spliced_edits(text, text_lines, starts, first, last, middle)
        assert got == minimal_edits(text, new), (old, first, last, middle)
