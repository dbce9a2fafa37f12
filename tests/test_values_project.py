"""The value model and RNG003 across a project, through the real CLI and its cache."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support import run_seedlint

PROJECT = Path(__file__).parent / "fixtures" / "projects" / "capture_helper"


def test_a_helper_that_seeds_inside_capture_is_reported_and_the_cache_follows_it(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text("[tool.seedlint]\n")

    def check() -> str:
        result = run_seedlint("check", "--output-format", "concise", "capture.py", cwd=root)
        return result.stdout

    first = check()
    assert "capture.py:10:9: RNG003 `seed_everything()` seeds the GPU during capture" in first
    assert "(`utils/seeding.py:10`)" in first
    assert "capture.py:19:5: RNG003 `reseed()`" in first
    assert check() == first  # from the cache
    helper = root / "utils" / "seeding.py"
    helper.write_text(helper.read_text().replace("    torch.manual_seed(seed)\n", "    pass\n", 1))
    second = check()
    assert "RNG003" not in second, second  # the helper no longer seeds: the cache must not say so
