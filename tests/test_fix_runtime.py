"""What the fixes do at run time, with real PyTorch (CPU; the CUDA graph test needs a GPU).

Each script in ``tests/fixtures/runtime/`` runs in fresh processes before and after
``seedlint check --fix`` on a copy: the fixes must turn runs that differ into runs that repeat.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import run_seedlint

torch = pytest.importorskip(
    "torch", reason="the runtime tests run the fixed scripts with PyTorch (pip install torch)"
)

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = Path(__file__).parent / "fixtures" / "runtime"
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}


def run_scripts(*paths: Path) -> list[str]:
    """Run scripts side by side, each in a fresh process; their stdout."""
    processes = [
        subprocess.Popen(
            [sys.executable, str(path)],
            cwd=path.parent,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        for path in paths
    ]
    outputs = []
    for path, process in zip(paths, processes):
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, f"{path.name} failed:\n{err}"
        outputs.append(out.strip())
    return outputs


def seedlint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_seedlint("check", "--isolated", "--no-cache", *args, cwd=cwd, env=ENV)


def copy(tmp_path: Path, *names: str) -> list[Path]:
    paths = []
    for name in names:
        shutil.copy(SCRIPTS / name, tmp_path / name)
        paths.append(tmp_path / name)
    return paths


def test_fix_makes_a_training_run_repeatable(tmp_path: Path) -> None:
    """Seeded with random/numpy only, shuffled loader with 2 workers that draw from `random`."""
    (script,) = copy(tmp_path, "train_random_numpy.py")
    first, second = run_scripts(script, script)
    assert first != second  # torch is unseeded: model init, order and worker seeds vary
    result = seedlint("--fix", script.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    first, second = run_scripts(script, script)
    assert first == second
    assert len(json.loads(first)) == 8  # 2 epochs of 4 batches


def test_fix_decouples_the_order_from_earlier_draws(tmp_path: Path) -> None:
    """Two scripts that differ by one `torch.rand(1)` before the loader."""
    a, b = copy(tmp_path, "coupling_a.py", "coupling_b.py")
    order_a, order_b = run_scripts(a, b)
    assert order_a != order_b
    assert sorted(json.loads(order_a)) == list(range(32))
    result = seedlint("--fix", a.name, b.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    order_a, order_b = run_scripts(a, b)
    assert order_a == order_b


def test_a_seeded_script_is_clean_and_left_alone(tmp_path: Path) -> None:
    (script,) = copy(tmp_path, "clean.py")
    before = script.read_bytes()
    result = seedlint(script.name, cwd=tmp_path)
    assert result.returncode == 0 and "All checks passed!" in result.stdout, result.stdout
    result = seedlint("--fix", "--unsafe-fixes", script.name, cwd=tmp_path)
    assert result.returncode == 0
    assert script.read_bytes() == before


def test_fix_reseeds_rng_objects_in_workers(tmp_path: Path) -> None:
    """`np.random.default_rng()` made in `__init__`: both workers draw the same numbers."""
    (script,) = copy(tmp_path, "worker_rng.py")
    (before,) = run_scripts(script)
    by_worker = json.loads(before)
    assert sorted(by_worker) == ["0", "1"]
    assert by_worker["0"] == by_worker["1"]  # duplicated across workers
    result = seedlint("--fix", script.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    first, second = run_scripts(script, script)
    assert first == second  # identical across runs
    by_worker = json.loads(first)
    assert by_worker["0"] != by_worker["1"]  # different per worker


@pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="CUDA graph capture needs a CUDA device (torch.cuda.is_available() is False)",
)
def test_moving_the_seed_out_of_capture(tmp_path: Path) -> None:
    (script,) = copy(tmp_path, "cuda_graph.py")
    process = subprocess.run(
        [sys.executable, script.name], cwd=tmp_path, capture_output=True, text=True, env=ENV
    )
    assert process.returncode != 0
    assert "CUDAGeneratorImpl" in process.stderr  # raised during capture
    assert seedlint("--fix", script.name, cwd=tmp_path).returncode == 1  # an unsafe fix
    result = seedlint("--fix", "--unsafe-fixes", script.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    first, second = run_scripts(script, script)
    assert first == second and len(json.loads(first)) == 4


def test_fix_makes_an_unseeded_generator_follow_the_seed(tmp_path: Path) -> None:
    """A fresh `torch.Generator()` starts at a fixed seed: `--seed 1` and `--seed 2` draw the
    same split and order. Seeded where it is made, they follow the program's seed."""
    one, two = copy(tmp_path, "unseeded_generator_1.py", "unseeded_generator_2.py")
    before_one, before_two = run_scripts(one, two)
    assert before_one == before_two  # the program's seed changes nothing
    result = seedlint("--fix", one.name, two.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "manual_seed(args.seed)" in one.read_text()
    after_one, after_two, again = run_scripts(one, two, one)
    assert after_one != after_two  # each seed its own split and order
    assert after_one == again  # and each repeats
    assert len(json.loads(after_one)["order"]) == 24  # the training part, every batch
