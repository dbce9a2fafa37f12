"""``scripts/ecosystem.py``: the comparison with the expected list, ``--update`` and the fix
check, on a small corpus made here; and, where the real corpus has been built
(``python bench/build_corpus.py``), the committed list against it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from seedlint.rules import BY_CODE

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "ecosystem.py"
EXPECTED = ROOT / "tests" / "ecosystem" / "expected.jsonl"
CORPUS = ROOT / "bench" / "corpus"

SHUFFLED = (
    "from torch.utils.data import DataLoader\n\nloader = DataLoader(range(8), shuffle=True)\n"
)
SEEDED_RANDOM_ONLY = (
    "import random\n\nimport torch\n\n\ndef set_seed(seed):\n    random.seed(seed)\n"
)
CLEAN = "import torch\n\ntorch.manual_seed(0)\n"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")}
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=900
    )


def small_corpus(root: Path) -> Path:
    corpus = root / "corpus"
    for name, text in {
        "proj/train.py": SHUFFLED,
        "proj/seeding.py": SEEDED_RANDOM_ONLY,
        "proj/clean.py": CLEAN,
        "other/lib.py": "x = 1\n",
    }.items():
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_text(text)
    return corpus


def test_update_then_compare_then_detect_changes(tmp_path: Path) -> None:
    corpus = small_corpus(tmp_path)
    expected = tmp_path / "expected.jsonl"
    args = ["--corpus", str(corpus), "--expected", str(expected), "--no-fix-check"]
    first = run(*args)
    assert first.returncode == 1 and "+ proj/train.py:3: RNG001" in first.stdout
    assert run(*args, "--update").returncode == 0
    items = [json.loads(line) for line in expected.read_text().splitlines()]
    assert [(i["code"], i["path"], i["row"]) for i in items] == [
        ("RNG004", "proj/seeding.py", 7),
        ("RNG001", "proj/train.py", 3),
    ]
    assert all(list(item) == ["code", "path", "row", "message"] for item in items)
    same = run(*args)
    assert same.returncode == 0, same.stdout
    assert "RNG001: 1 -> 1 (+0 -0)" in same.stdout
    # A new finding and a lost one are both shown, per rule, and fail the check.
    (corpus / "proj" / "train.py").write_text(CLEAN)
    (corpus / "other" / "lib.py").write_text("x = 1\n" + SHUFFLED)
    changed = run(*args)
    assert changed.returncode == 1
    assert "RNG001: 1 -> 1 (+1 -1)" in changed.stdout
    assert "+ other/lib.py:4: RNG001" in changed.stdout
    assert "- proj/train.py:3: RNG001" in changed.stdout
    assert "RNG004: 1 -> 1 (+0 -0)" in changed.stdout


def test_fix_check(tmp_path: Path) -> None:
    corpus = small_corpus(tmp_path)
    before = {p: p.read_bytes() for p in corpus.rglob("*.py")}
    expected = tmp_path / "expected.jsonl"
    proc = run("--corpus", str(corpus), "--expected", str(expected), "--update")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "files with a fixable finding: 2" in proc.stdout
    assert "files changed: 2" in proc.stdout
    assert "files byte-identical: 2 of 4" in proc.stdout
    assert "fixable findings left after --fix: 0" in proc.stdout
    assert "files changed by a second --fix: 0" in proc.stdout
    assert "FAIL" not in proc.stdout
    assert {p: p.read_bytes() for p in corpus.rglob("*.py")} == before  # a copy was fixed


def test_missing_corpus(tmp_path: Path) -> None:
    proc = run("--corpus", str(tmp_path / "nowhere"), "--no-fix-check")
    assert proc.returncode == 2
    assert "python bench/build_corpus.py" in proc.stderr


def test_committed_list_is_well_formed() -> None:
    lines = EXPECTED.read_text().splitlines()
    items = [json.loads(line) for line in lines]
    assert items, "the expected list is empty"
    for item in items:
        assert list(item) == ["code", "path", "row", "message"]
        assert item["code"] in BY_CODE and item["row"] >= 1 and item["message"]
        assert not item["path"].startswith("/")
    keys = [(i["path"], i["row"], i["code"], i["message"]) for i in items]
    assert keys == sorted(keys)


@pytest.mark.skipif(
    not CORPUS.is_dir() and not os.environ.get("CI"),  # CI builds it: there it must run
    reason="bench/corpus not built (python bench/build_corpus.py)",
)
def test_corpus_findings_match_the_committed_list() -> None:
    """The ecosystem check itself, where the corpus exists: a rule change that moves a finding
    must update tests/ecosystem/expected.jsonl (and docs/ecosystem.md) in the same commit."""
    proc = run("--no-fix-check")
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr
