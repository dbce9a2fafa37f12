"""RNG002 and RNG005-RNG008 findings say what is wrong in at most 100 characters, and their
fix titles name what the fix writes (the real seed expression)."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedlint.config import Settings
from seedlint.engine.check import check_text
from tests.fixtures_support import FIXTURES, fixture_settings

CODES = ("RNG002", "RNG005", "RNG006", "RNG007", "RNG008")
FILES = sorted(p for code in CODES for p in (FIXTURES / code).glob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_messages_are_short(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    findings = check_text(text, str(path), fixture_settings(text, FIXTURES)).findings
    for finding in findings:
        if finding.code in CODES:
            assert len(finding.message) <= 100, finding.message


def test_a_long_rng_name_keeps_the_message_short() -> None:
    name = "random_number_generator_for_augmentations"
    text = (
        "import numpy as np\nfrom torch.utils.data import DataLoader, Dataset\n\n\n"
        "class D(Dataset):\n"
        f"    def __init__(self):\n        self.{name} = np.random.default_rng()\n\n"
        f"    def __getitem__(self, i):\n        return self.{name}.random()\n\n\n"
        "DataLoader(D(), num_workers=2)\n"
    )
    (finding,) = check_text(text, "x.py", Settings(select=("RNG005",))).findings
    assert finding.row == 7 and len(finding.message) <= 100


@pytest.mark.parametrize(
    ("code", "text", "title"),
    [
        (
            "RNG006",
            "import torch\nfrom torch.utils.data import random_split\n\n"
            "torch.manual_seed(1234)\nx = torch.rand(1)\nparts = random_split(range(8), [4, 4])\n",
            "Pass `generator=torch.Generator().manual_seed(1234)`",
        ),
        (
            "RNG007",
            "import torch as T\nfrom torch.utils.data import RandomSampler\n\n\n"
            "def make(data, seed):\n    return RandomSampler(data)\n",
            "Pass `generator=T.Generator().manual_seed(seed)`",
        ),
        (
            "RNG008",
            "from torch.utils.data import DataLoader, DistributedSampler\n\n\n"
            "def train(data):\n    s = DistributedSampler(data)\n"
            "    loader = DataLoader(data, sampler=s)\n"
            "    for ep in range(3):\n        for batch in loader:\n            pass\n",
            "Call `s.set_epoch(ep)` first in the loop on line 7",
        ),
    ],
)
def test_fix_titles_name_what_is_written(code: str, text: str, title: str) -> None:
    (finding,) = check_text(text, "x.py", Settings(select=(code,))).findings
    assert finding.fix is not None and finding.fix.message == title


@pytest.mark.parametrize(
    ("head", "streams"),
    [
        ("import torch\n", "`random`"),
        ("import numpy as np\nimport torch\n", "`random` and `numpy`"),
    ],
)
def test_rng002_title_names_the_streams_it_reseeds(head: str, streams: str) -> None:
    loader = "DataLoader(range(4), num_workers=2)\n"
    text = head + "from torch.utils.data import DataLoader\n\ntorch.manual_seed(0)\n" + loader
    (finding,) = check_text(text, "x.py", Settings(select=("RNG002",))).findings
    assert finding.fix is not None
    # (the program's seed: the same seeded generator whatever the streams)
    generator = ", with `generator=torch.Generator().manual_seed(0)`"
    assert finding.fix.message.endswith(f"reseeds each worker's {streams}{generator}")
