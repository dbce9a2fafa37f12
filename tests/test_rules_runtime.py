"""The claims of RNG005-RNG008 run with real PyTorch (CPU): each program is fixed by seedlint's
own ``--fix`` and both versions run in a fresh interpreter.

* RNG006 / RNG007: one extra ``torch.rand(1)`` before ``random_split`` (a sampler's order)
  changes the split (order); after the fix it does not.
* RNG008: without ``set_epoch`` every epoch of a DistributedSampler has the same order; after
  the fix the epochs differ.
* RNG005: DataLoader workers draw identical numbers from a dataset's RNG object; after the fix
  they draw distinct numbers, the same in two runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from seedlint.config import Settings
from seedlint.engine.fix import fix_text

pytest.importorskip("torch")
pytest.importorskip("numpy")


def fixed(code: str, rule: str) -> str:
    result = fix_text(code, "train.py", Settings(select=(rule,)), unsafe=True)
    assert result.error is None
    assert result.new_text != code, "the fix changed nothing"
    return result.new_text


def run(tmp_path: Path, code: str, extra: bool = False) -> object:
    script = tmp_path / "train.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "EXTRA_DRAW": "1" if extra else ""}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


SPLIT = """\
import json
import os

import torch
from torch.utils.data import random_split

torch.manual_seed(0)
if os.environ.get("EXTRA_DRAW"):
    torch.rand(1)  # e.g. a model built on the CPU before the split
train, valid = random_split(range(20), [10, 10])
print(json.dumps(sorted(train.indices)))
"""

SAMPLER = """\
import json
import os

import torch
from torch.utils.data import RandomSampler

torch.manual_seed(0)
if os.environ.get("EXTRA_DRAW"):
    torch.rand(1)
sampler = RandomSampler(range(20))
print(json.dumps(list(sampler)))
"""

EPOCHS = """\
import json

import torch
from torch.utils.data import DataLoader, DistributedSampler


def train(dataset, epochs):
    orders = []
    sampler = DistributedSampler(dataset, num_replicas=1, rank=0)
    loader = DataLoader(dataset, batch_size=20, sampler=sampler)
    for epoch in range(epochs):
        for batch in loader:
            orders.append(batch.tolist())
    return orders


print(json.dumps(train(list(range(20)), 3)))
"""

WORKERS = """\
import json

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng()

    def __len__(self):
        return 4

    def __getitem__(self, index):
        return torch.utils.data.get_worker_info().id, float(self.rng.random())


torch.manual_seed(0)
loader = DataLoader(Noisy(), batch_size=None, num_workers=2)

if __name__ == "__main__":
    draws = {}
    for worker, value in loader:
        draws.setdefault(str(int(worker)), []).append(value)
    print(json.dumps(draws))
"""


def test_rng006_split_follows_earlier_draws_until_fixed(tmp_path: Path) -> None:
    assert run(tmp_path, SPLIT) != run(tmp_path, SPLIT, extra=True)
    after = fixed(SPLIT, "RNG006")
    assert "generator=torch.Generator().manual_seed(0)" in after
    assert run(tmp_path, after) == run(tmp_path, after, extra=True)


def test_rng007_sampler_order_follows_earlier_draws_until_fixed(tmp_path: Path) -> None:
    assert run(tmp_path, SAMPLER) != run(tmp_path, SAMPLER, extra=True)
    after = fixed(SAMPLER, "RNG007")
    assert run(tmp_path, after) == run(tmp_path, after, extra=True)


def test_rng008_epochs_repeat_until_fixed(tmp_path: Path) -> None:
    before = run(tmp_path, EPOCHS)
    assert isinstance(before, list) and len(before) == 3
    assert before[0] == before[1] == before[2]
    after = fixed(EPOCHS, "RNG008")
    assert "sampler.set_epoch(epoch)" in after
    orders = run(tmp_path, after)
    assert isinstance(orders, list) and len({json.dumps(o) for o in orders}) == 3


def test_rng005_workers_share_draws_until_fixed(tmp_path: Path) -> None:
    before = run(tmp_path, WORKERS)
    assert isinstance(before, dict) and sorted(before) == ["0", "1"]
    assert before["0"] == before["1"]  # both workers copied the same generator
    after = fixed(WORKERS, "RNG005")
    assert "worker_init_fn=seed_worker" in after
    first, second = run(tmp_path, after), run(tmp_path, after)
    assert isinstance(first, dict) and first["0"] != first["1"]
    assert first == second  # repeatable: derived from the run's torch seed
