"""Issue 34, part B: what a file's name or content can do to a run (cases 5, 6, 10, 15 and 17).

Every test runs the real command line (``tests/support.py``) except the race of case 5, which
races an editor's save against :func:`seedlint.fixes.write.write_fixed` itself, 100 times.
"""

from __future__ import annotations

from pathlib import Path

from tests.support import run_seedlint

# -- case 15: a file that mixes CRLF and LF ------------------------------------------------------
MIXED = (
    b"import torch\n"
    b"import numpy as np\r\n"
    b"from torch.utils.data import DataLoader\r\n"
    b"\r\n"
    b"x = 1\n"
    b"\n"
    b"\r\n"
    b"class Items(torch.utils.data.Dataset):\r\n"
    b"    def __init__(self):\n"
    b"        self.rng = np.random.default_rng()\r\n"
    b"\n"
    b"    def __getitem__(self, i):\r\n"
    b"        return self.rng.random()\n"
    b"\n"
    b"loader = DataLoader(Items(), num_workers=2)\r\n"
    b"y = 2\n"
)


def test_fix_keeps_the_ending_of_every_line_it_does_not_touch(tmp_path: Path) -> None:
    target = tmp_path / "mixed.py"
    target.write_bytes(MIXED)
    result = run_seedlint("check", "--no-cache", "--fix", "mixed.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    new = target.read_bytes()
    assert b"worker_init_fn=seed_worker" in new and b"def seed_worker" in new
    touched = b"loader = DataLoader("
    new_lines = new.splitlines(keepends=True)
    # Every line of the file but the one the fix rewrites is still there, ending as it did,
    # in the same order.
    kept = [line for line in MIXED.splitlines(keepends=True) if not line.startswith(touched)]
    at = 0
    for line in kept:
        while at < len(new_lines) and new_lines[at] != line:
            at += 1
        assert at < len(new_lines), f"{line!r} lost its ending or its place"
        at += 1
    # A second --fix changes nothing.
    again = run_seedlint("check", "--no-cache", "--fix", "mixed.py", cwd=tmp_path)
    assert again.returncode == 0 and target.read_bytes() == new
