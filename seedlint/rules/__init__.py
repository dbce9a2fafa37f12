"""The rule registry: adding a rule is one line here (plus its module, fixtures and doc page)."""

from __future__ import annotations

from seedlint.rules.base import Rule
from seedlint.rules.rng000_invalid_file import InvalidFile
from seedlint.rules.rng001_shuffle_without_generator import ShuffleWithoutGenerator
from seedlint.rules.rng002_workers_without_init_fn import WorkersWithoutInitFn
from seedlint.rules.rng003_seed_in_graph_capture import SeedInGraphCapture
from seedlint.rules.rng004_missing_cuda_seeding import MissingCudaSeeding
from seedlint.rules.rng005_dataset_rng_shared_by_workers import DatasetRngSharedByWorkers
from seedlint.rules.rng006_random_split_without_generator import RandomSplitWithoutGenerator
from seedlint.rules.rng007_sampler_without_generator import SamplerWithoutGenerator
from seedlint.rules.rng008_distributed_sampler_without_set_epoch import (
    DistributedSamplerWithoutSetEpoch,
)
from seedlint.rules.rng100_unused_noqa import UnusedNoqa

RULES: tuple[type[Rule], ...] = (
    InvalidFile,
    ShuffleWithoutGenerator,
    WorkersWithoutInitFn,
    SeedInGraphCapture,
    MissingCudaSeeding,
    DatasetRngSharedByWorkers,
    RandomSplitWithoutGenerator,
    SamplerWithoutGenerator,
    DistributedSamplerWithoutSetEpoch,
    UnusedNoqa,
)

BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in RULES}

__all__ = ["BY_CODE", "RULES", "Rule"]
