"""Cost linear in findings and lines, shown by counting work rather than timing it (the
figures are in bench/scale.py)."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import Any

import pytest

import seedlint.fixes.transform as transform
from seedlint.config import Settings
from seedlint.engine.fix import edits_for
from seedlint.fixes.text import LineMap, minimal_edits

CALLS = 60
MANY = "import torch\nfrom torch.utils.data import DataLoader\n\n" + "".join(
    f"l{i} = DataLoader(range({i}), shuffle=True)\n\n" for i in range(CALLS)
)


def test_json_edits_do_not_print_the_module_once_per_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = transform.apply_changes

    def counting(*args: Any, **kwargs: Any) -> str:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(transform, "apply_changes", counting)
    found = edits_for(MANY.encode(), "a.py", Settings(root=tmp_path))
    assert len(found) == CALLS
    assert len(calls) <= 1, f"the whole module was printed {len(calls)} times"
    for edits in found.values():
        [edit] = edits
        assert edit.content.startswith(", generator=") and edit.row == edit.end_row


def test_line_maps_and_edits_never_run_difflib_on_a_whole_repetitive_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sizes: list[int] = []
    real = difflib.SequenceMatcher

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, isjunk: Any = None, a: Any = "", b: Any = "", autojunk: bool = True):
            sizes.append(len(a) * len(b))
            super().__init__(isjunk, a, b, autojunk)

    monkeypatch.setattr(difflib, "SequenceMatcher", Counting)
    old = "x = 1\n\n" * 5_000
    new = old.replace("x = 1\n", "x = 2\n")
    line_map = LineMap(old, new)
    assert line_map.old_row(9_999) == 9_999
    edits = minimal_edits(old, new)
    assert len(edits) == 5_000 and all(e.content == "2" for e in edits)
    assert max(sizes, default=0) <= 250_000, max(sizes)


def _work(text: str, settings: Settings, edits: bool = False) -> int:
    """The function calls (Python and C) a check of ``text`` makes (with ``edits``: the json
    output's fix edits), a count of work that no machine load changes."""
    from seedlint.engine.check import check_text

    count = [0]

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            count[0] += 1

    sys.setprofile(hook)
    try:
        if edits:
            edits_for(text.encode(), "a.py", settings)
        else:
            check_text(text, "a.py", settings)
    finally:
        sys.setprofile(None)
    return count[0]


def _loaders(count: int, argument: str = "shuffle=True") -> str:
    return "import torch\nfrom torch.utils.data import DataLoader\n\n" + "".join(
        f"loader_{i} = DataLoader(range({i}), {argument})\n\n" for i in range(count)
    )


def test_a_check_does_work_linear_in_its_findings(tmp_path: Path) -> None:
    """Four times the findings, at most about four times the work. Each finding's fix title
    once asked the whole module again (its calls, its bindings: 2,500 findings took 17.8 s
    where 625 took 1.3 s); that made the ratio here above 5."""
    settings = Settings(root=tmp_path)
    small, large = _work(_loaders(100), settings), _work(_loaders(400), settings)
    assert large / small < 4.5, (small, large, large / small)


@pytest.mark.parametrize("edits", [False, True], ids=["check", "json edits"])
def test_fixes_that_insert_code_do_work_linear_in_their_findings(
    tmp_path: Path, edits: bool
) -> None:
    """RNG002's fix inserts a shared `seed_worker` function and `import random`: each finding
    once looked through the whole module for its statement, for a reusable function and
    for guarded imports (2,500 findings: check 4.3 s, json 132 s, where 625 took 0.5 s and
    11 s); now linear."""
    settings = Settings(root=tmp_path)
    small = _work(_loaders(50, "num_workers=2"), settings, edits)
    large = _work(_loaders(200, "num_workers=2"), settings, edits)
    assert large / small < 4.5, (small, large, large / small)


def _program(blocks: int) -> str:
    """A training module as bench/run.py generates them, in small: seeding helpers and loader
    builders, a finding or two at each builder."""
    head = "import random\n\nimport torch\nfrom torch.utils.data import DataLoader\n"
    return head + "".join(
        f"\n\ndef seed_everything_{i}(seed={i}):\n    random.seed(seed)\n"
        f"    torch.manual_seed(seed)\n\n\ndef make_loader_{i}(dataset):\n"
        f"    return DataLoader(dataset, shuffle=True, num_workers=2)\n"
        for i in range(blocks)
    )


def test_a_module_of_many_functions_is_checked_in_linear_work(tmp_path: Path) -> None:
    """Each finding's fix once went through every seeding call and every function of the
    module (a generated 100,000-line module: 13.5 CPU-seconds where 25,000 lines took 2)."""
    settings = Settings(root=tmp_path)
    small, large = _work(_program(50), settings), _work(_program(200), settings)
    assert large / small < 4.5, (small, large, large / small)
