"""Smoke test of the speed-benchmark harness (bench/run.py) on a tiny generated corpus.

The benchmark itself is not a test and does not run in CI; this only checks that the harness
runs end to end and writes its markdown table.  Tools that are absent (ruff, flake8, TorchFix)
must show up as "not installed" rows rather than break the run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
HARNESS = REPO / "bench" / "run.py"

FILES = {
    "pkg/__init__.py": "import torch\n\nx = torch.rand(3)\n",
    "pkg/data.py": (
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "\n"
        "\n"
        "def make(ds):\n"
        "    return DataLoader(ds, batch_size=4, shuffle=True)\n"
        "\n"
        "\n"
        "def make_seeded(ds):\n"
        "    g = torch.Generator()\n"
        "    g.manual_seed(0)\n"
        "    return DataLoader(ds, batch_size=4, shuffle=True, generator=g)\n"
    ),
    "pkg/seeding.py": (
        "import random\n"
        "\n"
        "import numpy as np\n"
        "import torch\n"
        "\n"
        "\n"
        "def seed_all(seed: int) -> None:\n"
        "    random.seed(seed)\n"
        "    np.random.seed(seed)\n"
        "    torch.manual_seed(seed)\n"
    ),
    "other/broken.py": "def f(:\n",
}


def test_harness_writes_a_table_with_a_seedlint_row(tmp_path: Path) -> None:
    pytest.importorskip("seedlint", reason="the seedlint package is not importable yet")
    corpus = tmp_path / "corpus"
    for rel, text in FILES.items():
        path = corpus / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    output = tmp_path / "performance.md"
    output.write_text(
        "# Performance\n\nProse before.\n\n<!-- bench:start -->\nold\n"
        "<!-- bench:end -->\n\nProse after.\n",
        encoding="utf-8",
    )
    results = tmp_path / "results.json"

    command = [
        sys.executable,
        str(HARNESS),
        "--corpus",
        str(corpus),
        "--rounds",
        "1",
        "--quick",
        "--output",
        str(output),
        "--json",
        str(results),
    ]
    done = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-4000:]

    text = output.read_text(encoding="utf-8")
    assert text.startswith("# Performance\n\nProse before.\n")
    assert text.rstrip().endswith("Prose after.")
    assert "\nold\n" not in text
    block = text[text.index("<!-- bench:start -->") : text.index("<!-- bench:end -->")]
    assert "| tool | command | files | wall s |" in block
    seedlint_rows = [line for line in block.splitlines() if line.startswith("| seedlint, cold |")]
    assert seedlint_rows, block
    assert "not installed" not in seedlint_rows[0], seedlint_rows[0]
    assert "| 4 |" in seedlint_rows[0]  # the four generated files

    report = json.loads(results.read_text(encoding="utf-8"))
    cold = next(b for b in report["benches"] if b["key"] == "seedlint-cold")
    assert cold["status"] == "ok"
    assert len(cold["samples"]) == 1
    assert cold["wall_median"] > 0
