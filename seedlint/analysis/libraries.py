"""What libraries seed and install: one table, read by the rules and the fixes alike.

Each entry was checked against the library's own source; ``source`` names the file and the
version read (``pytorch-rng.md`` 5.5 for Lightning and transformers). Streams are those of
:mod:`seedlint.project.summary`: ``random``, ``numpy``, ``torch`` (the CPU generator and every
device), ``cuda`` (the current CUDA device only), ``cuda_all`` (every CUDA device).

Three kinds of entry:

* :class:`Seeder`: a function that seeds global streams (a "seed everything" helper), or a
  class whose construction does (transformers' ``Trainer``; a project's subclass of it counts
  too). With ``workers`` set, the framework installs its own ``worker_init_fn`` in the loaders
  it is given when that keyword is true (Lightning's ``seed_everything(seed, workers=True)``).
* :class:`AcceleratorSeeder`: ``factory().manual_seed(seed)`` on a device abstraction
  (DeepSpeed's ``get_accelerator()``): what each method seeds on a GPU machine.
* :class:`LoaderClass`: a DataLoader class of a library: whether the rules check it as a
  DataLoader, and whether it installs its own ``worker_init_fn`` when none is passed.

Users add their own in ``[tool.seedlint]``: ``seed-functions`` (a :class:`Seeder` of every
stream) and ``worker-seeding-loaders`` (a loader class that installs worker seeding).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

EVERY_STREAM = frozenset({"random", "numpy", "torch"})


@dataclass(frozen=True)
class Seeder:
    names: tuple[str, ...]  # the qualified names it is reached under
    streams: frozenset[str]
    source: str  # library version: file (function)
    workers: Optional[str] = None  # the keyword that makes the framework seed the workers
    framework: str = ""  # the framework that installs the worker seeding (for messages)
    note: str = ""
    # its first argument is the seed (a fix may write it again); False: a configuration that
    # seeds as it says (hyperpyyaml's `!apply:torch.manual_seed`), or a class whose
    # construction seeds with a seed of its own (transformers' `Trainer`: `args.seed`)
    seed_argument: bool = True


@dataclass(frozen=True)
class AcceleratorSeeder:
    factories: tuple[str, ...]  # ``factory()`` returns the device abstraction
    methods: tuple[tuple[str, str], ...]  # (method, the stream it seeds on a CUDA machine)
    source: str
    note: str = ""


@dataclass(frozen=True)
class LoaderClass:
    names: tuple[str, ...]
    checked: bool  # a DataLoader subclass with torch's semantics: the loader rules check it
    worker_seeding: bool  # installs its own worker_init_fn when none is passed
    source: str
    note: str = ""


_LIGHTNING_SEED = (
    "pytorch-lightning 2.6.6: lightning_fabric/utilities/seed.py (seed_everything: "
    "random.seed, np.random.seed, torch.manual_seed; workers=True sets PL_SEED_WORKERS), "
    "lightning_fabric/utilities/data.py (_auto_add_worker_init_fn: the Trainer and "
    "Fabric.setup_dataloaders install pl_worker_init_function, which mixes in the rank, in a "
    "loader whose worker_init_fn is None)"
)

SEEDERS: tuple[Seeder, ...] = (
    Seeder(
        (
            "lightning.seed_everything",
            "lightning.pytorch.seed_everything",
            "lightning.fabric.seed_everything",
            "lightning.fabric.utilities.seed.seed_everything",
            "lightning.pytorch.utilities.seed.seed_everything",
            "lightning_fabric.seed_everything",
            "lightning_fabric.utilities.seed.seed_everything",
            "pytorch_lightning.seed_everything",
            "pytorch_lightning.utilities.seed.seed_everything",
        ),
        EVERY_STREAM,
        _LIGHTNING_SEED,
        workers="workers",
        framework="Lightning",
    ),
    Seeder(
        ("transformers.set_seed", "transformers.trainer_utils.set_seed"),
        EVERY_STREAM,
        "transformers 5.24.0: transformers/trainer_utils.py (set_seed: random, np.random, "
        "torch.manual_seed, torch.cuda.manual_seed_all and the other devices)",
    ),
    Seeder(
        (
            "transformers.enable_full_determinism",
            "transformers.trainer_utils.enable_full_determinism",
        ),
        EVERY_STREAM,
        "transformers 5.24.0: transformers/trainer_utils.py (enable_full_determinism calls "
        "set_seed first)",
    ),
    Seeder(
        ("accelerate.utils.set_seed", "accelerate.utils.random.set_seed"),
        EVERY_STREAM,
        "accelerate 1.15.0: accelerate/utils/random.py (set_seed: random, np.random, "
        "torch.manual_seed, each device's manual_seed_all)",
    ),
    Seeder(
        ("monai.utils.set_determinism", "monai.utils.misc.set_determinism"),
        EVERY_STREAM,
        "MONAI @00069e03: monai/utils/misc.py (set_determinism: torch.manual_seed, "
        "random.seed, np.random.seed; seed=None seeds from the OS)",
    ),
    Seeder(
        ("mmengine.runner.set_random_seed", "mmengine.runner.utils.set_random_seed"),
        EVERY_STREAM,
        "mmengine 0.11.0rc0 @25434293: mmengine/runner/utils.py (set_random_seed: random, "
        "np.random, torch.manual_seed, torch.cuda.manual_seed_all; seed=None syncs a random "
        "one)",
    ),
    Seeder(
        ("ignite.utils.manual_seed",),
        EVERY_STREAM,
        "pytorch-ignite 0.6.0 @de08e799: ignite/utils.py (manual_seed: random.seed, "
        "torch.manual_seed, np.random.seed, XLA)",
    ),
    Seeder(
        ("detectron2.utils.env.seed_all_rng",),
        EVERY_STREAM,
        "detectron2 0.6 @02b5c4e2: detectron2/utils/env.py (seed_all_rng: np.random.seed, "
        "torch.manual_seed, random.seed; seed=None seeds from the clock and the OS)",
    ),
    Seeder(
        ("deepspeed.runtime.utils.set_random_seed",),
        EVERY_STREAM,
        "DeepSpeed 0.19.6 @edaa7221: deepspeed/runtime/utils.py (set_random_seed: random, "
        "numpy, torch.manual_seed)",
    ),
    Seeder(
        ("speechbrain.utils.seed.seed_everything",),
        EVERY_STREAM,
        "speechbrain @2f30cf1a: speechbrain/utils/seed.py (seed_everything: random, np.random, "
        "torch.manual_seed, torch.cuda.manual_seed_all; the seed is offset by the rank)",
    ),
    Seeder(
        ("hyperpyyaml.load_hyperpyyaml", "hyperpyyaml.core.load_hyperpyyaml"),
        EVERY_STREAM,
        "HyperPyYAML 1.2.2 @a230105d: hyperpyyaml/core.py (load_hyperpyyaml runs every "
        "`!apply:` tag; speechbrain recipes seed with `__set_seed: !apply:torch.manual_seed "
        "[!ref <seed>]`)",
        note="the YAML is not Python the linter reads: a program that loads one is taken to "
        "seed as its recipe says (what only the YAML supplies is no finding)",
        seed_argument=False,
    ),
    Seeder(
        ("torch_geometric.seed_everything", "torch_geometric.seed.seed_everything"),
        EVERY_STREAM,
        "torch_geometric 2.9.0 @5c6461b2: torch_geometric/seed.py (seed_everything: "
        "random.seed, np.random.seed, torch.manual_seed, torch.cuda.manual_seed_all; since "
        "2.0.0)",
    ),
    Seeder(
        (
            "transformers.Trainer",
            "transformers.trainer.Trainer",
            "transformers.Seq2SeqTrainer",
            "transformers.trainer_seq2seq.Seq2SeqTrainer",
        ),
        EVERY_STREAM,
        "transformers 5.24.0: transformers/trainer.py (Trainer.__init__ calls "
        "enable_full_determinism(args.seed) if args.full_determinism else set_seed(args.seed), "
        "whatever the arguments), transformers/training_args.py (seed defaults to 42), "
        "transformers/trainer_seq2seq.py (Seq2SeqTrainer.__init__ calls Trainer's first)",
        note="a class: constructing it seeds every stream with `args.seed`, which the linter "
        "does not read (a fix never takes its first argument for a seed); draws before the "
        "construction stay unseeded. accelerate's `Accelerator` seeds nothing (accelerate "
        "1.15.0.dev0 @16cb6eb8: src/accelerate/accelerator.py has no seeding call). Library "
        "subclasses (trl's trainers) are not listed: not checked here",
        seed_argument=False,
    ),
)

ACCELERATOR_SEEDERS: tuple[AcceleratorSeeder, ...] = (
    AcceleratorSeeder(
        (
            "deepspeed.accelerator.get_accelerator",
            "deepspeed.accelerator.real_accelerator.get_accelerator",
            "accelerator.get_accelerator",  # DeepSpeed's own code
            "accelerator.real_accelerator.get_accelerator",
        ),
        (("manual_seed", "cuda"), ("manual_seed_all", "cuda_all")),
        "DeepSpeed 0.19.6 @edaa7221: accelerator/cuda_accelerator.py (manual_seed is "
        "torch.cuda.manual_seed, manual_seed_all torch.cuda.manual_seed_all; the CPU "
        "accelerator's are torch.manual_seed)",
        note="on a CUDA machine the CPU generator stays unseeded",
    ),
)

LOADER_CLASSES: tuple[LoaderClass, ...] = (
    LoaderClass(
        ("monai.data.DataLoader", "monai.data.dataloader.DataLoader"),
        checked=True,
        worker_seeding=True,
        source="MONAI @0dab0945: monai/data/dataloader.py (DataLoader.__init__ sets "
        "worker_init_fn=monai.data.utils.worker_init_fn when none is passed; shuffle as torch)",
    ),
    LoaderClass(
        (
            "torchdata.stateful_dataloader.StatefulDataLoader",
            "torchdata.stateful_dataloader.stateful_dataloader.StatefulDataLoader",
        ),
        checked=True,
        worker_seeding=False,
        source="torchdata 0.12.0a0 @088e4347: torchdata/stateful_dataloader/"
        "stateful_dataloader.py (worker_init_fn defaults to None; shuffle builds "
        "RandomSampler(dataset, generator=generator); base seed as torch)",
    ),
    LoaderClass(
        (
            "torch_geometric.loader.DataLoader",
            "torch_geometric.loader.dataloader.DataLoader",
            "torch_geometric.loader.NeighborLoader",
            "torch_geometric.loader.LinkNeighborLoader",
            "torch_geometric.loader.NodeLoader",
            "torch_geometric.loader.LinkLoader",
        ),
        checked=True,
        worker_seeding=False,
        source="torch_geometric 2.9.0 @5c6461b2: torch_geometric/loader/dataloader.py "
        "(DataLoader passes **kwargs to torch's); loader/mixin.py wraps a worker_init_fn for "
        "CPU affinity and seeds nothing",
    ),
    LoaderClass(
        (
            "torch_geometric.data.DataLoader",
            "torch_geometric.data.DataListLoader",
            "torch_geometric.data.DenseDataLoader",
            "torch_geometric.data.dataloader.DataLoader",
            "torch_geometric.data.dataloader.DataListLoader",
            "torch_geometric.data.dataloader.DenseDataLoader",
            "torch_geometric.loader.DataListLoader",
            "torch_geometric.loader.data_list_loader.DataListLoader",
            "torch_geometric.loader.DenseDataLoader",
            "torch_geometric.loader.dense_data_loader.DenseDataLoader",
        ),
        checked=True,
        worker_seeding=False,
        source="torch_geometric 2.9.0 @5c6461b2: torch_geometric/loader/data_list_loader.py, "
        "loader/dense_data_loader.py (torch.utils.data.DataLoader subclasses: shuffle and "
        "**kwargs passed on, a collate_fn of their own); data/__init__.py (data.DataLoader, "
        "DataListLoader, DenseDataLoader: deprecated() subclasses of the loader/ classes since "
        "2.0.0); 1.7.2: torch_geometric/data/dataloader.py (the three classes themselves)",
    ),
    LoaderClass(
        ("litdata.StreamingDataLoader", "litdata.streaming.dataloader.StreamingDataLoader"),
        checked=False,
        worker_seeding=False,
        source="litdata 0.2.45 @bef28be9: src/litdata/streaming/dataloader.py "
        "(StreamingDataLoader passes shuffle to StreamingDataset.set_shuffle and None to "
        "torch; the order is drawn from the dataset's own seed, 42 by default)",
        note="shuffle is seeded by the dataset, not the global generator: not checked as a "
        "DataLoader",
    ),
)


def seed_function_names() -> tuple[str, ...]:
    """The qualified names of the seeders that seed torch with their first argument."""
    return tuple(
        name
        for entry in SEEDERS
        if "torch" in entry.streams and entry.seed_argument
        for name in entry.names
    )


def config_seeder_names() -> tuple[str, ...]:
    """The qualified names of the seeders whose seed is no argument of the call: configuration
    loaders that may seed every stream, classes whose construction seeds."""
    return tuple(name for entry in SEEDERS if not entry.seed_argument for name in entry.names)


def seeder(qualname: str) -> Optional[Seeder]:
    for entry in SEEDERS:
        if qualname in entry.names:
            return entry
    return None


def accelerator_stream(factory: str, method: str) -> Optional[str]:
    """What ``factory().method(seed)`` seeds on a CUDA machine (None: not in the table)."""
    for entry in ACCELERATOR_SEEDERS:
        if factory in entry.factories:
            return dict(entry.methods).get(method)
    return None


def checked_loader_classes() -> tuple[str, ...]:
    """The library loader classes the loader rules check beside torch's DataLoader."""
    return tuple(name for entry in LOADER_CLASSES if entry.checked for name in entry.names)


def worker_seeding_loaders() -> frozenset[str]:
    """The library loader classes that install their own ``worker_init_fn``."""
    return frozenset(name for e in LOADER_CLASSES if e.worker_seeding for name in e.names)


@dataclass(frozen=True)
class WorkerSeedingClass:
    """A framework class whose construction calls its seeder with worker seeding on, unless
    ``off`` is passed as False (Lightning's ``LightningCLI``)."""

    names: tuple[str, ...]
    off: str  # the keyword that, False, turns the seeding off
    framework: str
    source: str


WORKER_SEEDING_CLASSES: tuple[WorkerSeedingClass, ...] = (
    WorkerSeedingClass(
        ("lightning.pytorch.cli.LightningCLI", "pytorch_lightning.cli.LightningCLI"),
        "seed_everything_default",
        "Lightning",
        "pytorch-lightning 2.6.6: lightning/pytorch/cli.py (LightningCLI.__init__ calls "
        "_set_seed, which calls seed_everything(config_seed, workers=True) unless the "
        "configuration's seed_everything, default seed_everything_default=True, is False)",
    ),
)


@dataclass(frozen=True)
class WorkerSeedingMethod:
    """A framework object's seeding method that seeds the workers unless its ``workers``
    keyword is False (Lightning's ``Fabric.seed_everything``): reached as ``fabric.<method>``
    on an object whose class the module cannot tell, in a module that imports the framework,
    or under one of ``names``."""

    names: tuple[str, ...]
    method: str
    workers: str
    framework: str
    source: str


WORKER_SEEDING_METHODS: tuple[WorkerSeedingMethod, ...] = (
    WorkerSeedingMethod(
        (
            "lightning.Fabric.seed_everything",
            "lightning.fabric.Fabric.seed_everything",
            "lightning_fabric.Fabric.seed_everything",
        ),
        "seed_everything",
        "workers",
        "Lightning",
        "pytorch-lightning 2.6.6: lightning/fabric/fabric.py (Fabric.seed_everything: "
        "workers=None becomes True, then seed_everything(seed, workers=workers))",
    ),
)

# Environment variables that make a framework install its worker seeding when set in code
# (to anything but 0), and the framework: Lightning's Trainer and Fabric read PL_SEED_WORKERS
# when they take a loader (pytorch-lightning 2.6.6: lightning/fabric/utilities/data.py,
# _auto_add_worker_init_fn; seed_everything sets it to 0 or 1 from `workers`).
WORKER_SEEDING_ENVIRONMENT: dict[str, str] = {"PL_SEED_WORKERS": "Lightning"}
