"""No fix that cannot work (issue 13): a loader class of this module whose ``__init__`` takes
neither the argument nor ``**kwargs`` gets no fix, and the finding says why."""

from __future__ import annotations

from dataclasses import replace

from seedlint.config import Settings
from seedlint.engine.check import check_text
from seedlint.engine.fix import fix_text

STRICT = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng()

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return self.rng.normal()


class Base(DataLoader):
    def __init__(self, dataset, shuffle=True, num_workers=2):
        super().__init__(dataset, shuffle=shuffle, num_workers=num_workers)


class Strict(Base):
    pass


loader = Strict(Noisy(), shuffle=True, num_workers=2)
"""


def test_no_fix_and_the_reason() -> None:
    settings = replace(Settings(), unsafe_fixes=True)
    findings = [
        f for f in check_text(STRICT, "x.py", settings).findings if f.code in ("RNG001", "RNG002")
    ]
    assert sorted(f.code for f in findings) == ["RNG001", "RNG002"]
    for finding in findings:
        argument = "generator" if finding.code == "RNG001" else "worker_init_fn"
        assert finding.fix is None
        assert f"(no fix: `Base.__init__` takes no `{argument}`)" in finding.message
    assert fix_text(STRICT, "x.py", settings, unsafe=True).new_text == STRICT


def test_kwargs_or_the_parameter_keep_the_fix() -> None:
    settings = replace(Settings(), unsafe_fixes=True)
    for init in ("dataset, **kwargs", "dataset, shuffle=True, num_workers=2, generator=None"):
        text = STRICT.replace("dataset, shuffle=True, num_workers=2", init, 1)
        rng001 = [f for f in check_text(text, "x.py", settings).findings if f.code == "RNG001"]
        assert rng001 and rng001[0].fix is not None
        assert "no fix" not in rng001[0].message
