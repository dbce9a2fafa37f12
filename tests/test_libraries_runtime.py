"""Issue 29's fixes at run time, with real PyTorch (CPU) and Lightning where it is installed:
each fixed script runs twice, in fresh processes, and the runs must repeat."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.test_fix_runtime import run_scripts, seedlint

torch = pytest.importorskip("torch", reason="the runtime tests need PyTorch (pip install torch)")

SCRIPTS = Path(__file__).parent / "fixtures" / "runtime"


def copy(tmp_path: Path, *names: str) -> list[Path]:
    for name in names:
        shutil.copy(SCRIPTS / name, tmp_path / name)
    return [tmp_path / name for name in names]


@pytest.mark.parametrize(
    ("name", "draws"),
    [
        ("unseeded_class_loader.py", 2),  # RNG001: a shuffling loader, two epochs
        ("unseeded_class_split.py", 1),  # RNG006, RNG007: random_split, samplers, a Generator()
    ],
)
def test_a_program_with_no_seed_is_fixed_only_by_an_unsafe_fix_that_adds_one(
    tmp_path: Path, name: str, draws: int
) -> None:
    (script,) = copy(tmp_path, name)
    before = script.read_bytes()
    first, second = run_scripts(script, script)
    assert first != second  # nothing seeds torch: the order differs from run to run
    result = seedlint("--fix", script.name, cwd=tmp_path)
    assert result.returncode == 1  # the finding stays: the run is still random
    assert "--unsafe-fixes" in result.stdout + result.stderr
    assert script.read_bytes() == before  # no fix that seeds from torch.initial_seed()
    result = seedlint("--fix", "--unsafe-fixes", script.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    text = script.read_text()
    assert "SEED = 0" in text and "manual_seed(SEED)" in text
    first, second = run_scripts(script, script)
    assert first == second
    assert sorted(i for batch in json.loads(first) for i in batch) == sorted(
        list(range(16)) * draws
    )


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("unseeded_script_workers.py", True),  # the script's entry point: the fix-seed literal
        ("unseeded_class_workers.py", False),  # in a class: a new SEED constant, unsafe
    ],
)
def test_the_rng002_fix_in_a_program_with_no_seed_seeds_the_workers(
    tmp_path: Path, name: str, safe: bool
) -> None:
    """Nothing seeds torch: a ``worker_init_fn`` alone would reseed each worker from a random
    base seed. The fix also passes a seeded ``generator=`` (the fix-seed literal where the script
    makes the loader, else a new ``SEED`` constant: unsafe), and the runs repeat."""
    (script,) = copy(tmp_path, name)
    before = script.read_bytes()
    first, second = run_scripts(script, script)
    assert first != second  # every worker's base seed is drawn from the unseeded generator
    result = seedlint("--fix", "--select", "RNG002", script.name, cwd=tmp_path)
    if not safe:
        assert result.returncode == 1  # never "fixed" while the workers stay random
        assert "--unsafe-fixes" in result.stdout + result.stderr
        assert script.read_bytes() == before
        result = seedlint(
            "--fix", "--unsafe-fixes", "--select", "RNG002", script.name, cwd=tmp_path
        )
    assert result.returncode == 0, result.stdout + result.stderr
    text = script.read_text()
    seed = "0" if safe else "SEED"
    assert f"generator=torch.Generator().manual_seed({seed})" in text
    assert "worker_init_fn=seed_worker" in text
    assert ("SEED = 0" in text) is not safe
    first, second = run_scripts(script, script)
    assert first == second
    assert len(json.loads(first)) == 4


def test_the_rng002_fix_makes_the_workers_follow_the_program_s_seed(tmp_path: Path) -> None:
    a, b = copy(tmp_path, "worker_base_seed_a.py", "worker_base_seed_b.py")
    draws_a, draws_b = run_scripts(a, b)
    assert draws_a != draws_b  # one more global draw moves every worker's base seed
    result = seedlint("--fix", "--select", "RNG002", a.name, b.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "generator=torch.Generator().manual_seed(args.seed)" in a.read_text()
    assert "worker_init_fn=seed_worker" in a.read_text()
    draws_a, draws_b = run_scripts(a, b)
    assert draws_a == draws_b


def test_lightning_seeds_the_workers_after_the_fix(tmp_path: Path) -> None:
    pytest.importorskip("lightning", reason="the Lightning case needs lightning installed")
    (script,) = copy(tmp_path, "lightning_workers.py")
    result = seedlint("--fix", "--select", "RNG002", script.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    text = script.read_text()
    assert "seed_everything(7, verbose=False, workers=True)" in text
    assert "worker_init_fn=" not in text  # Lightning's own worker seeding, never replaced
    first, second = run_scripts(script, script)
    assert first == second
    assert json.loads(first)["worker_init_fn"] == "pl_worker_init_function"


def test_lightning_decides_by_the_program_across_modules(tmp_path: Path) -> None:
    """data.py's loader, built in a DataModule hook, is judged by the program that builds it:
    train.py's `seed_everything(7)` (no `workers=True`) leaves the workers to PyTorch alone, and
    RNG002 names that call (no fix: it is another module's); with `workers=True` there,
    Lightning installs its worker seeding, the runs repeat, and RNG002 is silent; with no
    `seed_everything` at all, Lightning installs nothing and the finding is a plain one."""
    pytest.importorskip("lightning", reason="the Lightning case needs lightning installed")
    folder = tmp_path / "split"
    shutil.copytree(SCRIPTS / "lightning_split", folder)
    train = folder / "train.py"
    original = train.read_text()

    def rng002() -> list[str]:
        result = seedlint("--select", "RNG002", "--output-format", "concise", ".", cwd=folder)
        return [line for line in result.stdout.splitlines() if "RNG002" in line]

    def worker_init_fn() -> object:
        (out,) = run_scripts(train)
        return json.loads(out)["worker_init_fn"]

    (finding,) = rng002()
    assert finding.startswith("data.py:21:")
    assert "no `workers=True` at `train.py:26`" in finding and "[*]" not in finding
    assert worker_init_fn() is None  # the finding is true: Lightning installed nothing
    train.write_text(original.replace("verbose=False)", "verbose=False, workers=True)"))
    assert rng002() == []
    first, second = run_scripts(train, train)
    assert first == second
    assert json.loads(first)["worker_init_fn"] == "pl_worker_init_function"
    train.write_text(original.replace("    L.seed_everything(7, verbose=False)\n", ""))
    (finding,) = rng002()
    assert "only `random`, `torch` and `np.random` are reseeded" in finding
    assert worker_init_fn() is None
