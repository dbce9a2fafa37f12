"""Imports a fix adds hold at run time and sit where isort/ruff put them (issue 13)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAIRS = Path(__file__).parent / "fixtures" / "fixes"
CASES = sorted(p.name for p in PAIRS.iterdir() if (p / "before.py").is_file())


def test_new_imports_keep_a_sorted_import_block_sorted(tmp_path: Path) -> None:
    """ruff's I001 (isort) is clean on every fixed file whose original was clean."""
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    checked = 0
    for case in CASES:
        before = PAIRS / case / "before.py"
        after = PAIRS / case / "after.py"
        args = [ruff, "check", "--isolated", "--select", "I001", "--quiet"]
        if subprocess.run([*args, str(before)], capture_output=True).returncode != 0:
            continue  # not sorted to begin with
        result = subprocess.run([*args, str(after)], capture_output=True, text=True)
        assert result.returncode == 0, f"{case}: {result.stdout}"
        checked += 1
    assert checked > 10


DRIVER = r"""
import importlib.util, sys
which, path = sys.argv[1], sys.argv[2]
if which == "no-torch":
    sys.modules["torch"] = None  # `import torch` raises ImportError
spec = importlib.util.spec_from_file_location("subject", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
if which == "torch":
    loader = module.build(range(8), 3)
    print(sorted(int(x) for batch in loader for x in batch))
else:
    print("imported")
"""


@pytest.mark.parametrize(
    ("case", "which", "expected"),
    [
        ("imports_type_checking", "torch", "[0, 1, 2, 3, 4, 5, 6, 7]"),
        ("imports_guarded", "no-torch", "imported"),  # the new import is inside the guard
        ("imports_guarded_alias", "no-torch", "imported"),
    ],
)
def test_fixed_modules_import(tmp_path: Path, case: str, which: str, expected: str) -> None:
    if which == "torch":
        pytest.importorskip("torch", reason="calls the fixed function with PyTorch")
    path = tmp_path / "subject.py"
    path.write_bytes((PAIRS / case / "after.py").read_bytes())
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, "-c", DRIVER, which, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


@pytest.mark.parametrize(
    ("source", "free", "walked"),
    [
        ("import torch\n\ndef f():\n    return generator\n", False, True),  # read, unbound
        ("import torch\n\ndef f(generator):\n    return generator\n", True, True),  # a parameter
        ("import torch\nx = my_generator + generator_state\n", True, False),  # longer names only
        ("import torch\nx = generator.seed\n", False, True),
        ("import torch\n# generator\n", True, True),  # spelled, but no read
        # Not ASCII: `\uff47enerator` (a full-width g) is the name `generator` (NFKC).
        ("import torch\n\ndef f():\n    return \uff47enerator\n", False, True),
    ],
)
def test_a_new_name_is_free_unless_the_module_reads_it_unbound(
    source: str, free: bool, walked: bool
) -> None:
    """A fix's new module-level name must change no other use: a name the module reads where
    nothing binds it is taken. The whole tree is walked for such reads only when the text
    spells the name as a whole word, or is not ASCII (an identifier is read in NFKC form)."""
    import ast

    from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
    from seedlint.fixes.imports import _UNRESOLVED, Names

    facts = ModuleFacts(ast.parse(source), AnalysisOptions(), source, "m.py")
    names = Names(facts)
    assert names.is_free("generator", facts.builder.module_scope) is free
    assert (_UNRESOLVED in facts.__dict__) is walked
