"""What counts as seeding: every call that sets or resets a random stream.

See ``shared/reference/pytorch-rng.md`` section 1: ``torch.manual_seed`` (also spelled
``torch.random.manual_seed``) seeds the CPU generator and every CUDA, MPS, XPU and MTIA device;
``torch.cuda.manual_seed`` seeds the current CUDA device only, ``manual_seed_all`` every CUDA
device;
``torch.seed``/``torch.cuda.seed``/``seed_all`` reseed non-deterministically.
"""

from __future__ import annotations

import ast
import enum
from typing import Optional

from seedlint.analysis.libraries import (
    accelerator_stream,
    config_seeder_names,
    seed_function_names,
)
from seedlint.analysis.names import NameResolver, Scope, lookup
from seedlint.analysis.values import ValueEvaluator, is_none_or_absent


class Seeding(enum.Enum):
    TORCH = "torch.manual_seed"  # CPU + every device
    CUDA_CURRENT = "torch.cuda.manual_seed"  # the current CUDA device only
    CUDA_ALL = "torch.cuda.manual_seed_all"
    OTHER_DEVICE = "device seeding"  # torch.xpu / torch.mps / torch.mtia seeding
    RANDOM = "random.seed"
    NUMPY = "np.random.seed"
    HELPER = "seeding helper"  # seeds everything: seed_everything, set_seed, ...
    RESEED = "non-deterministic reseed"  # torch.seed, torch.cuda.seed, torch.cuda.seed_all
    GENERATOR_MANUAL_SEED = "Generator.manual_seed"
    GENERATOR_SEED = "Generator.seed"
    NEW_DEVICE_GENERATOR = "torch.Generator(device=...)"
    # hyperpyyaml's loader (the YAML's `!apply:` seeds), transformers' Trainer (`args.seed`)
    CONFIG = "configuration that seeds"


_BY_QUALNAME: dict[str, Seeding] = {
    "torch.manual_seed": Seeding.TORCH,
    "torch.default_generator.manual_seed": Seeding.TORCH,  # the CPU generator itself
    "torch.default_generator.seed": Seeding.RESEED,
    "torch.cuda.manual_seed": Seeding.CUDA_CURRENT,
    "torch.cuda.manual_seed_all": Seeding.CUDA_ALL,
    "torch.xpu.manual_seed": Seeding.OTHER_DEVICE,
    "torch.xpu.manual_seed_all": Seeding.OTHER_DEVICE,
    "torch.mps.manual_seed": Seeding.OTHER_DEVICE,
    "torch.mtia.manual_seed": Seeding.OTHER_DEVICE,
    "torch.mtia.manual_seed_all": Seeding.OTHER_DEVICE,
    "random.seed": Seeding.RANDOM,
    "numpy.random.seed": Seeding.NUMPY,
    "torch.seed": Seeding.RESEED,
    "torch.cuda.seed": Seeding.RESEED,
    "torch.cuda.seed_all": Seeding.RESEED,
    "torch.xpu.seed": Seeding.RESEED,
    "torch.xpu.seed_all": Seeding.RESEED,
    "torch.mps.seed": Seeding.RESEED,
    **{name: Seeding.CONFIG for name in config_seeder_names()},
}

# Helpers that seed random, numpy and torch (and so every CUDA device) in one call: the
# library table's seeders (``seedlint.analysis.libraries``).
DEFAULT_SEED_FUNCTIONS: tuple[str, ...] = seed_function_names()


def qualnames_of(kinds: frozenset[Seeding]) -> frozenset[str]:
    """The qualified names of the functions that seed in one of these ways."""
    return frozenset(qualname for qualname, kind in _BY_QUALNAME.items() if kind in kinds)


_ACCELERATOR_KINDS = {"cuda": Seeding.CUDA_CURRENT, "cuda_all": Seeding.CUDA_ALL}
TORCH_GENERATOR = "torch.Generator"
# Seeding that touches a CUDA/XPU generator: what a graph capture cannot take.
DEVICE_SEEDING = frozenset(
    {
        Seeding.TORCH,
        Seeding.CUDA_CURRENT,
        Seeding.CUDA_ALL,
        Seeding.OTHER_DEVICE,
        Seeding.HELPER,
        Seeding.RESEED,
        Seeding.GENERATOR_MANUAL_SEED,
        Seeding.GENERATOR_SEED,
        Seeding.NEW_DEVICE_GENERATOR,
    }
)


class SeedingClassifier:
    def __init__(
        self, resolver: NameResolver, evaluator: ValueEvaluator, seed_functions: frozenset[str]
    ) -> None:
        self.resolver = resolver
        self.evaluator = evaluator
        self.seed_functions = seed_functions

    @property
    def last_names(self) -> frozenset[str]:
        """The last name of every callable :meth:`classify` can recognise."""
        names = {q.rsplit(".", 1)[-1] for q in (*_BY_QUALNAME, *self.seed_functions)}
        return frozenset({*names, "manual_seed", "seed", "Generator"})

    def classify(self, call: ast.Call, scope: Scope) -> Optional[Seeding]:
        func = call.func
        attr = func.attr if isinstance(func, ast.Attribute) else None
        if attr is None and not isinstance(func, ast.Name):
            return None
        qualnames = self.resolver.qualnames(func, scope)
        for qualname in qualnames:
            if qualname in _BY_QUALNAME:
                return _BY_QUALNAME[qualname]
            if qualname in self.seed_functions:
                return Seeding.HELPER
            if qualname == TORCH_GENERATOR and self._device_generator(call, scope):
                return Seeding.NEW_DEVICE_GENERATOR
        if qualnames:
            return None  # a known function that is not seeding
        accelerator = self._accelerator(func, scope)
        if accelerator is not None:
            return accelerator
        if attr == "manual_seed":
            return Seeding.GENERATOR_MANUAL_SEED
        if (
            attr == "seed"
            and isinstance(func, ast.Attribute)
            and self._is_torch_generator(func.value, scope)
        ):
            return Seeding.GENERATOR_SEED
        return None

    def _accelerator(self, func: ast.expr, scope: Scope) -> Optional[Seeding]:
        """``get_accelerator().manual_seed(...)``: what a device abstraction of the library
        table seeds on a CUDA machine."""
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Call):
            return None
        for factory in self.resolver.qualnames(func.value.func, scope):
            stream = accelerator_stream(factory, func.attr)
            if stream is not None:
                return _ACCELERATOR_KINDS[stream]
        return None

    def _is_torch_generator(self, expr: ast.expr, scope: Scope) -> bool:
        """``expr`` is ``torch.Generator(...)``, or a name bound to one."""
        if isinstance(expr, ast.Call):
            return TORCH_GENERATOR in self.resolver.qualnames(expr.func, scope)
        if isinstance(expr, ast.Name):
            for binding in lookup(expr.id, scope) or ():
                value = binding.value
                if (
                    binding.kind == "assign"
                    and value is not None
                    and self._is_torch_generator(value, binding.scope)
                ):
                    return True
        return False

    def _device_generator(self, call: ast.Call, scope: Scope) -> bool:
        device: Optional[ast.expr] = call.args[0] if call.args else None
        for keyword in call.keywords:
            if keyword.arg == "device":
                device = keyword.value
        if device is None:
            return False
        value = self.evaluator.evaluate(device, scope)
        return value.may(lambda o: not is_none_or_absent(o) and not _is_cpu(o))


def _is_cpu(option: object) -> bool:
    return isinstance(option, str) and option.split(":")[0] in ("cpu", "meta")
