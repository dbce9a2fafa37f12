"""The library table (``seedlint/analysis/libraries.py``): every entry cites its source, and each
one changes what RNG002 and RNG004 say as the library's code does."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedlint.analysis.libraries import (
    ACCELERATOR_SEEDERS,
    LOADER_CLASSES,
    SEEDERS,
    WORKER_SEEDING_CLASSES,
    WORKER_SEEDING_ENVIRONMENT,
    WORKER_SEEDING_METHODS,
    Seeder,
)
from seedlint.config import Settings, SettingsResolver
from seedlint.engine.check import check_text
from seedlint.engine.fix import fix_bytes

RNG002 = Settings(select=("RNG002",))
RNG004 = Settings(select=("RNG004",))


def _codes(text: str, settings: Settings) -> list[tuple[int, str]]:
    return [(f.row, f.code) for f in check_text(text, "x.py", settings).findings]


def _import(qualname: str) -> tuple[str, str]:
    """``from a.b import c`` and the name to call, for a qualified name."""
    module, _, name = qualname.rpartition(".")
    return f"from {module} import {name}\n", name


ENTRIES = [
    *SEEDERS,
    *ACCELERATOR_SEEDERS,
    *LOADER_CLASSES,
    *WORKER_SEEDING_CLASSES,
    *WORKER_SEEDING_METHODS,
]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: type(e).__name__ + ":" + _first(e))
def test_every_entry_cites_a_file_and_a_version(entry: object) -> None:
    source = getattr(entry, "source", "")
    assert ".py" in source, source  # the file read
    assert any(ch.isdigit() for ch in source.split(":", 1)[0]), source  # its version or commit


def _first(entry: object) -> str:
    names = getattr(entry, "names", None) or getattr(entry, "factories", ())
    return str(names[0])


# -- seeders: a program that calls one seeds torch (RNG004 stays silent) ---------------------
SEEDING_NAMES = [(s, name) for s in SEEDERS for name in s.names]


@pytest.mark.parametrize(
    ("seeder", "qualname"), SEEDING_NAMES, ids=[name for _, name in SEEDING_NAMES]
)
def test_a_seeder_seeds_torch(seeder: Seeder, qualname: str) -> None:
    line, name = _import(qualname)
    body = (
        "import random\n\nimport torch\n" + line + "\n\ndef main():\n    random.seed(0)\n"
        "    {call}\n    return torch.nn.Linear(2, 2)\n\n\nif __name__ == '__main__':\n"
        "    main()\n"
    )
    argument = "open('hparams.yaml')" if not seeder.seed_argument else "0"
    assert _codes(body.format(call=f"{name}({argument})"), RNG004) == []
    # Without it the program seeds `random` only: the finding the seeder silences.
    assert _codes(body.format(call="pass"), RNG004) == [(8, "RNG004")]


def test_a_configuration_seeder_is_never_a_fix_s_seed() -> None:
    text = (
        "import random\n\nimport torch\nfrom hyperpyyaml import load_hyperpyyaml\n"
        "from torch.utils.data import DataLoader\n\n\ndef main(path):\n"
        "    hparams = load_hyperpyyaml(path)\n"
        "    return DataLoader(range(8), shuffle=True)\n"
    )
    fixed = fix_bytes(text.encode(), "x.py", Settings(select=("RNG001",)), False)
    assert b"manual_seed(path)" not in fixed.new_raw


# -- classes whose construction seeds: transformers' Trainer ---------------------------------
TRAINER = (
    "import random\n\nimport torch\nfrom transformers import Trainer\n\n{classes}\n"
    "def main(model, args):\n    random.seed(0)\n    trainer = {call}\n"
    "    return trainer, torch.nn.Linear(2, 2)\n\n\nif __name__ == '__main__':\n"
    "    main(None, None)\n"
)


@pytest.mark.parametrize(
    "call", ["Trainer(model=model, args=args)", "Trainer(args=args, model=model)", "Trainer()"]
)
def test_a_trainer_seeds_whatever_its_arguments(call: str) -> None:
    # Its seed is `args.seed` (42 by default), never an argument of the call.
    assert _codes(TRAINER.format(classes="", call=call), RNG004) == []


def test_a_trainer_s_arguments_are_never_a_fix_s_seed() -> None:
    text = (
        "import torch\nfrom torch.utils.data import DataLoader\nfrom transformers import "
        "Trainer\n\n\ndef main(model):\n    trainer = Trainer(model)\n"
        "    return DataLoader(range(8), shuffle=True)\n"
    )
    fixed = fix_bytes(text.encode(), "x.py", Settings(select=("RNG001",)), False)
    assert b"manual_seed(model)" not in fixed.new_raw


@pytest.mark.parametrize(
    "classes",
    [
        "class MyTrainer(Trainer):\n    pass\n\n",
        "class MyTrainer(Trainer):\n    def __init__(self, **kw):\n"
        "        super().__init__(**kw)\n\n",
        "class Base(Trainer):\n    pass\n\n\nclass MyTrainer(Base):\n    pass\n\n",
    ],
)
def test_constructing_a_subclass_of_trainer_seeds(classes: str) -> None:
    text = TRAINER.format(classes=classes, call="MyTrainer(model=model, args=args)")
    assert _codes(text, RNG004) == []
    # A class of the same name that derives from no seeding class seeds nothing.
    plain = text.replace("(Trainer)", "(object)")
    row = text.splitlines().index("    random.seed(0)") + 1
    assert _codes(plain, RNG004) == [(row, "RNG004")]


def test_accelerate_s_accelerator_seeds_nothing() -> None:
    text = TRAINER.replace("from transformers import Trainer", "from accelerate import Accelerator")
    assert _codes(text.format(classes="", call="Accelerator()"), RNG004) == [(8, "RNG004")]


# -- DeepSpeed's accelerator: CUDA only on a GPU machine ---------------------------------------
@pytest.mark.parametrize("method", ["manual_seed", "manual_seed_all"])
def test_accelerator_seeding_leaves_the_cpu_generator_unseeded(method: str) -> None:
    text = (
        "import random\n\nimport torch\nfrom deepspeed.accelerator import get_accelerator\n\n\n"
        f"def main():\n    random.seed(1)\n    get_accelerator().{method}(1)\n"
        "    return torch.nn.Linear(2, 2)\n\n\nif __name__ == '__main__':\n    main()\n"
    )
    (finding,) = check_text(text, "x.py", RNG004).findings
    assert finding.row == 9
    assert f"`get_accelerator().{method}`" in finding.message
    assert "(CUDA only)" in finding.message and len(finding.message) <= 100
    fixed = fix_bytes(text.encode(), "x.py", RNG004, False).new_raw.decode()
    assert f"get_accelerator().{method}(1)\n    torch.manual_seed(1)\n" in fixed


def test_accelerator_seeding_beside_torch_manual_seed_is_complete() -> None:
    text = (
        "import torch\nfrom deepspeed.accelerator import get_accelerator\n\n"
        "torch.manual_seed(1)\nget_accelerator().manual_seed_all(1)\n"
        "model = torch.nn.Linear(2, 2)\n"
    )
    assert _codes(text, RNG004) == []


# -- loader classes ----------------------------------------------------------------------------
WORKER_SEEDING = [n for e in LOADER_CLASSES if e.worker_seeding for n in e.names]
CHECKED_PLAIN = [n for e in LOADER_CLASSES if e.checked and not e.worker_seeding for n in e.names]
NOT_CHECKED = [n for e in LOADER_CLASSES if not e.checked for n in e.names]


def _loader(qualname: str, arguments: str = "num_workers=4") -> str:
    line, name = _import(qualname)
    return f"import torch\n{line}\ntorch.manual_seed(0)\nloader = {name}(range(8), {arguments})\n"


@pytest.mark.parametrize("qualname", WORKER_SEEDING)
def test_a_loader_class_that_installs_worker_seeding_is_not_reported(qualname: str) -> None:
    assert _codes(_loader(qualname), RNG002) == []
    # An explicit `worker_init_fn=None` replaces the class's own: reported.
    assert _codes(_loader(qualname, "num_workers=4, worker_init_fn=None"), RNG002) == [
        (5, "RNG002")
    ]


@pytest.mark.parametrize("qualname", CHECKED_PLAIN)
def test_a_loader_class_with_torch_s_semantics_is_checked(qualname: str) -> None:
    assert _codes(_loader(qualname), RNG002) == [(5, "RNG002")]
    shuffled = check_text(_loader(qualname, "shuffle=True"), "x.py", Settings(select=("RNG001",)))
    assert [f.code for f in shuffled.findings] == ["RNG001"]


@pytest.mark.parametrize("qualname", NOT_CHECKED)
def test_a_loader_class_that_seeds_its_own_order_is_not_checked(qualname: str) -> None:
    text = _loader(qualname, "num_workers=4, shuffle=True")
    assert _codes(text, Settings(select=("RNG001", "RNG002"))) == []


def test_users_add_worker_seeding_loaders(tmp_path: Path) -> None:
    text = (
        "import torch\nfrom mylib.data import FastLoader\n\ntorch.manual_seed(0)\n"
        "loader = FastLoader(range(8), num_workers=4)\n"
    )
    classes = ("mylib.data.FastLoader",)
    assert _codes(text, Settings(select=("RNG002",), dataloader_classes=classes)) == [(5, "RNG002")]
    both = Settings(select=("RNG002",), dataloader_classes=classes, worker_seeding_loaders=classes)
    assert _codes(text, both) == []
    (tmp_path / "pyproject.toml").write_text(
        '[tool.seedlint]\ndataloader-classes = ["mylib.data.FastLoader"]\n'
        'worker-seeding-loaders = ["mylib.data.FastLoader"]\n'
    )
    settings = SettingsResolver({}).for_path(tmp_path / "x.py")
    assert settings.worker_seeding_loaders == classes


# -- Lightning: `seed_everything(..., workers=True)` installs the worker seeding ---------------
LIGHTNING = "import lightning as L\nfrom torch.utils.data import DataLoader\n\n"


def test_seed_everything_with_workers_silences_rng002() -> None:
    text = (
        LIGHTNING
        + "L.seed_everything(42, workers=True)\nloader = DataLoader(range(8), num_workers=4)\n"
    )
    assert _codes(text, RNG002) == []


def test_seed_everything_without_workers_is_fixed_by_the_framework_s_option() -> None:
    text = LIGHTNING + "L.seed_everything(42)\nloader = DataLoader(range(8), num_workers=4)\n"
    (finding,) = check_text(text, "x.py", RNG002).findings
    assert "workers=True" in finding.message
    fixed = fix_bytes(text.encode(), "x.py", RNG002, False)
    assert fixed.new_raw.decode() == text.replace("(42)", "(42, workers=True)")
    assert b"worker_init_fn" not in fixed.new_raw  # Lightning's own seeding is never replaced


def test_an_explicit_workers_false_is_the_user_s_choice() -> None:
    text = LIGHTNING + "L.seed_everything(42, workers=False)\nDataLoader(range(8), num_workers=4)\n"
    (finding,) = check_text(text, "x.py", RNG002).findings
    assert finding.fix is None


def test_a_lightning_data_hook_is_left_to_the_framework() -> None:
    text = (
        "from torch.utils.data import DataLoader\nfrom base import DataModule\n\n\n"
        "class Data(DataModule):\n    def train_dataloader(self):\n"
        "        return self._loader()\n\n"
        "    def _loader(self):\n        return DataLoader(range(8), num_workers=4)\n"
    )
    assert _codes(text, RNG002) == []
    plain = text.replace("train_dataloader", "loaders")
    assert _codes(plain, RNG002) == [(10, "RNG002")]


def test_a_callable_worker_init_object_runs_in_the_workers() -> None:
    text = (
        "import random\n\nimport numpy as np\nimport torch\n\n\nclass WorkerInitObj:\n"
        "    def __init__(self, seed):\n        self.seed = seed\n\n"
        "    def __call__(self, id):\n        np.random.seed(self.seed + id)\n"
        "        random.seed(self.seed + id)\n"
    )
    assert _codes(text, RNG004) == []


# -- what else makes Lightning seed the workers: LightningCLI, Fabric.seed_everything and
# PL_SEED_WORKERS (each entry as RNG002 reads it, and against the installed Lightning) ---------
CLI_NAMES = [(entry, name) for entry in WORKER_SEEDING_CLASSES for name in entry.names]
HOOK = (
    "from torch.utils.data import DataLoader\n\n\n"
    "class Data(L.LightningDataModule):\n    def train_dataloader(self):\n"
    "        return DataLoader(range(8), num_workers=4)\n\n\n"
)


@pytest.mark.parametrize(("entry", "qualname"), CLI_NAMES, ids=[n for _, n in CLI_NAMES])
def test_a_cli_that_seeds_silences_rng002(entry: object, qualname: str) -> None:
    line, name = _import(qualname)
    text = (
        "import lightning as L\n" + line + HOOK + f"def main():\n    cli = {name}(run=False)\n"
        "    cli.trainer.fit(cli.model, Data())\n"
    )
    assert _codes(text, RNG002) == []
    off = text.replace("(run=False)", f"(run=False, {getattr(entry, 'off')}=False)")
    assert _codes(off, RNG002) == [(8, "RNG002")]


METHOD_NAMES = [(entry, name) for entry in WORKER_SEEDING_METHODS for name in entry.names]


@pytest.mark.parametrize(("entry", "qualname"), METHOD_NAMES, ids=[n for _, n in METHOD_NAMES])
def test_a_seeding_method_silences_rng002(entry: object, qualname: str) -> None:
    owner, _, method = qualname.rpartition(".")
    line, name = _import(owner)
    text = (
        "import lightning as L\n" + line + HOOK + f"{name}.{method}(3)\nL.Trainer().fit("
        "L.LightningModule(), Data())\n"
    )
    assert _codes(text, RNG002) == []
    off = text.replace(f"{method}(3)", f"{method}(3, {getattr(entry, 'workers')}=False)")
    assert _codes(off, RNG002) == [(8, "RNG002")]


def test_the_environment_variable_silences_rng002() -> None:
    for variable in WORKER_SEEDING_ENVIRONMENT:
        text = (
            "import os\n\nimport lightning as L\n" + HOOK + f'os.environ["{variable}"] = "1"\n'
            "L.Trainer().fit(L.LightningModule(), Data())\n"
        )
        assert _codes(text, RNG002) == []
        assert _codes(text.replace('"1"', '"0"'), RNG002) == [(9, "RNG002")]


def test_the_lightning_entries_are_what_the_installed_lightning_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LightningCLI seeds with `workers=True` unless told not to; `Fabric.seed_everything` asks
    for the worker seeding by default; the Trainer's and Fabric's `_auto_add_worker_init_fn`
    installs it exactly while `PL_SEED_WORKERS` is 1."""
    import inspect
    import os

    pytest.importorskip("lightning", reason="the Lightning entries need lightning installed")
    from lightning.fabric import Fabric
    from lightning.fabric.utilities.data import _auto_add_worker_init_fn
    from lightning.pytorch.cli import LightningCLI
    from torch.utils.data import DataLoader

    (cli,) = WORKER_SEEDING_CLASSES
    parameter = inspect.signature(LightningCLI.__init__).parameters[cli.off]
    assert parameter.default is True
    assert "seed_everything(config_seed, workers=True)" in inspect.getsource(LightningCLI._set_seed)
    monkeypatch.delenv("PL_SEED_WORKERS", raising=False)
    Fabric.seed_everything(3, verbose=False)
    assert os.environ["PL_SEED_WORKERS"] == "1"
    Fabric.seed_everything(3, workers=False, verbose=False)
    assert os.environ["PL_SEED_WORKERS"] == "0"
    for value, installed in (("0", False), ("1", True)):
        monkeypatch.setenv("PL_SEED_WORKERS", value)
        loader = DataLoader(range(8), num_workers=2)
        _auto_add_worker_init_fn(loader, 0)
        assert (loader.worker_init_fn is not None) is installed
