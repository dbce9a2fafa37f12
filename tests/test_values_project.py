"""The value model and RNG003 across a project, through the real CLI and its cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from seedlint.config import Settings
from seedlint.engine.check import check_text
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


ORIGINS = [
    (
        "import argparse\nimport torch\nfrom torch.utils.data import DataLoader\n"
        "p = argparse.ArgumentParser()\np.add_argument('--workers', type=int, default=4)\n"
        "args = p.parse_args()\nDataLoader(range(4), num_workers=args.workers)\n",
        "(num_workers=4: argparse default, line 5)",
    ),
    (
        "from dataclasses import dataclass\nfrom torch.utils.data import DataLoader\n\n"
        "@dataclass\nclass Cfg:\n    shuffle: bool = True\n\n"
        "def f(cfg: Cfg):\n    return DataLoader(range(4), shuffle=cfg.shuffle)\n",
        "(shuffle=True: default of `Cfg.shuffle`, line 6)",
    ),
    (
        "from torch.utils.data import DataLoader\n\nclass DM:\n"
        "    def __init__(self, workers=0):\n        self.workers = workers\n\n"
        "    def loader(self):\n        return DataLoader(range(4), num_workers=self.workers)\n\n"
        "dm = DM(workers=8)\n",
        "(num_workers=8: `DM(...)`, line 10)",
    ),
    (
        "from torch.utils.data import DataLoader\n\ndef init(ds):\n    return None\n\n"
        "DataLoader(range(4), num_workers=2, worker_init_fn=init(None))\n",
        "(worker_init_fn=None: returned by `init()`)",
    ),
    (
        "from torch.utils.data import DataLoader\nkw = dict(batch_size=2)\n"
        "kw |= {'shuffle': True}\nDataLoader(range(4), **kw)\n",
        "(shuffle=True: set in a dict at line 3)",
    ),
]


@pytest.mark.parametrize(("code", "origin"), ORIGINS, ids=range(len(ORIGINS)))
def test_a_finding_names_where_its_value_comes_from(code: str, origin: str) -> None:
    findings = check_text(code, "x.py", Settings(select=("RNG001", "RNG002"))).findings
    assert [f for f in findings if origin in f.message], [f.message for f in findings]
    assert all(len(f.message) <= 100 for f in findings)


def test_a_value_written_at_the_call_needs_no_origin() -> None:
    code = "from torch.utils.data import DataLoader\nDataLoader(range(4), num_workers=4)\n"
    (finding,) = check_text(code, "x.py", Settings(select=("RNG002",))).findings
    assert "(" not in finding.message.split("`worker_init_fn`", 1)[1]
