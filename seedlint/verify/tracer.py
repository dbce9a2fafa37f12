"""The tracer that ``seedlint verify`` preloads into the user's program (one run of it).

This file runs inside the user's Python, not seedlint's: ``seedlint verify`` copies it into a
temporary folder as ``_seedlint_tracer.py`` beside a ``sitecustomize.py`` that calls
:func:`start`, and puts that folder in front of the child's ``PYTHONPATH``. So it imports nothing
of seedlint (nothing of the linter is loaded into the user's program), only the standard
library, and torch and numpy when the program imports them; it must run on every Python seedlint
supports (3.9 and newer).

What it records, per random stream, is a list of events ``[seq, stream, kind, site, digest]``:
a digest of the stream's state *before* each draw (equal digests and equal call sites mean equal
draws), and of its state *after* each seeding call, each with the ``file:line`` of the user's
code that made it. The streams:

- ``torch``: torch's global CPU generator, at the random functions (``torch.rand*``,
  ``randperm``, ``normal``, ``bernoulli``, ``multinomial``, ...), the in-place random methods of
  tensors (``uniform_``, ``normal_``, ``random_``, ...; ``nn.init`` and so module init go
  through them), dropout in train mode, and ``random_split``;
- each ``torch.Generator`` the user's code creates (``torch.Generator`` is replaced by a
  subclass that remembers where each was created; ``isinstance`` still holds for the others),
  and ``cuda:N``, the default CUDA generators, when a draw is made on a CUDA device;
- Python's ``random`` and the legacy ``np.random``, at their module functions;
- each ``np.random.Generator`` made by ``np.random.default_rng``: its draws cannot be hooked (C
  methods), so its state is compared at each batch the program takes from a DataLoader (and at
  exit); an event is recorded only when it changed, i.e. when it was drawn from;
- each DataLoader: the indices of every batch (the order), and per epoch the seeds of its
  workers (``base_seed + worker_id``, what ``get_worker_info().seed`` returns in each worker).

In DataLoader workers (forked, or spawned) the same streams are traced per worker and written,
one JSON line per batch, to the run's folder. The main process writes its record at exit. With
``SEEDLINT_VERIFY_STEPS`` set, the program is stopped (``SystemExit(0)``) when it asks a
DataLoader for one batch more than that.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import json
import os
import sys
from typing import Any, Callable, Optional

DIR_ENV = "SEEDLINT_VERIFY_DIR"
STEPS_ENV = "SEEDLINT_VERIFY_STEPS"
STREAM_CAP = 20000  # events kept per stream; beyond that a stream counts its draws only

_state: dict[str, Any] = {
    "on": False,  # recording in this process
    "pid": None,  # the process whose record this is (a fork of it records nothing)
    "dir": None,
    "role": None,  # None in the main process; the worker's identity in a DataLoader worker
    "prefix": "",  # stream key prefix in a worker
    "steps": None,
    "batches": 0,
    "stopped": False,
    "busy": False,  # inside the tracer: draws made by it are not the program's
}
_events: list[list[Any]] = []
_streams: dict[str, dict[str, Any]] = {}
_counts: dict[str, int] = {}
_site_counts: dict[str, int] = {}
_outputs: dict[str, list[str]] = {}
_np_generators: list[list[Any]] = []  # [key, generator, last digest]
_seq = [0]
_new_streams: list[str] = []  # in a worker: stream metadata not yet written
_worker_file: list[Any] = [None]
_worker_loop: list[Any] = [None]  # torch's DataLoader worker loop, before the tracer wraps it
_library: list[str] = []
_stdlib: list[str] = [os.path.dirname(os.__file__) + os.sep]
_rel_cache: dict[str, str] = {}
_torch: list[Any] = [None]
_np: list[Any] = [None]
_installed: set[str] = set()


# -- where: the first frame of the user's code --------------------------------------------------
def _is_library(filename: str) -> bool:
    if filename.startswith("<") or any(filename.startswith(p) for p in _library):
        return True
    return any(filename.startswith(p) for p in _stdlib) and "-packages" not in filename


def _rel(filename: str) -> str:
    known = _rel_cache.get(filename)
    if known is None:
        known = filename
        cwd = os.getcwd() + os.sep
        if filename.startswith(cwd):
            known = filename[len(cwd) :]
        _rel_cache[filename] = known
    return known


def _where(frame: Any) -> str:
    return f"{_rel(frame.f_code.co_filename)}:{frame.f_lineno}"


def _user_frame() -> Any:
    """The innermost frame of the user's code (past torch, numpy, the standard library, us)."""
    frame: Any = sys._getframe(1)
    while frame is not None and _is_library(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def _site() -> Optional[str]:
    frame = _user_frame()
    return None if frame is None else _where(frame)


def _seed_site() -> Optional[str]:
    """Where the user's code seeded (past torch's wrappers, such as the one ``import
    torch._dynamo`` puts around ``torch.manual_seed``), or None for a seeding torch does itself
    (a DataLoader worker seeds ``random``, ``torch`` and ``np.random`` in ``_worker_loop``)."""
    frame: Any = sys._getframe(1)
    while frame is not None and _is_library(frame.f_code.co_filename):
        if frame.f_code.co_name == "_worker_loop":
            return None
        frame = frame.f_back
    return None if frame is None else _where(frame)


def _caller_site(depth: int) -> Optional[str]:
    """The site of the frame ``depth`` levels up, when it is the user's code (else None: a
    library's own seeding, such as a DataLoader worker's, is a consequence, not a cause)."""
    frame: Any = sys._getframe(depth + 1)
    if frame is None or _is_library(frame.f_code.co_filename):
        return None
    return _where(frame)


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=8).hexdigest()


# -- recording ----------------------------------------------------------------------------------
def _never() -> bool:
    return False


_compiling: list[Callable[[], bool]] = [_never]  # torch.compiler.is_compiling, once torch is in


def _recording() -> bool:
    if _compiling[0]():  # inside torch.compile's tracing: call through, record nothing
        return False
    return bool(_state["on"]) and not _state["busy"] and os.getpid() == _state["pid"]


def _stream(key: str, meta: dict[str, Any]) -> str:
    full: str = _state["prefix"] + key
    if full not in _streams:
        meta = dict(meta)
        if _state["role"] is not None:
            meta["worker"] = _state["role"]
            meta["base"] = key
        _streams[full] = meta
        _new_streams.append(full)
    return full


def _event(key: str, kind: str, site: Optional[str], digest: str) -> None:
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    _seq[0] += 1
    if count < STREAM_CAP:
        _events.append([_seq[0], key, kind, site, digest])


def _seeded_at(key: str, site: str) -> None:
    sites = _streams[key].setdefault("seeded", [])
    if site not in sites and len(sites) < 100:
        sites.append(site)


def _new_key(kind: str, site: Optional[str]) -> str:
    base = f"{kind}@{site}"
    n = _site_counts.get(base, 0)
    _site_counts[base] = n + 1
    return f"{base}#{n}"


# -- digests of each kind of stream --------------------------------------------------------------
def _tensor_bytes(tensor: Any) -> bytes:
    torch = _torch[0]
    flat = tensor.detach().cpu().contiguous().reshape(-1)
    if flat.dtype == torch.bool:
        flat = flat.to(torch.uint8)
    raw = flat.view(torch.uint8)
    try:
        return bytes(raw.numpy().tobytes())
    except Exception:  # torch without numpy
        return bytes(raw.tolist())


def _torch_state(gen: Any) -> str:
    return _digest(_tensor_bytes(gen.get_state()))


def _cuda_state(index: int) -> str:
    return _digest(_tensor_bytes(_torch[0].cuda.get_rng_state(index)))


def _random_state() -> str:
    import random

    return _digest(repr(random.getstate()).encode())


def _np_legacy_state() -> str:
    state = _np[0].random.get_state()
    return _digest(state[1].tobytes() + repr(state[2:]).encode())


def _np_generator_state(gen: Any) -> str:
    return _digest(repr(gen.bit_generator.state).encode())


# -- torch ----------------------------------------------------------------------------------------
def _torch_target(generator: Any, device: Any) -> Optional[tuple[str, Callable[[], str]]]:
    """The stream a torch draw uses, and how to digest it (None: not one the tracer follows)."""
    torch = _torch[0]
    if generator is not None and generator is not torch.default_generator:
        key = getattr(generator, "_seedlint_key", None)
        if key is None:
            return None
        return key, functools.partial(_torch_state, generator)
    kind = None if device is None else getattr(device, "type", str(device).split(":")[0])
    if kind not in (None, "cpu", "cuda"):
        return None  # MPS, XPU, ...: their generators are not traced
    if kind == "cuda":
        index = getattr(device, "index", None)
        if index is None:
            index = torch.cuda.current_device()
        key = _stream(f"cuda:{index}", {"type": "cuda", "created": None})
        return key, functools.partial(_cuda_state, index)
    key = _stream("torch", {"type": "torch", "created": None})
    return key, functools.partial(_torch_state, torch.default_generator)


def _device_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    device = kwargs.get("device")
    if device is not None:
        return _torch[0].device(device) if isinstance(device, str) else device
    for value in args[:1]:
        if hasattr(value, "device") and hasattr(value, "is_cuda"):
            return value.device
    return None


def _draw(target: Optional[tuple[str, Callable[[], str]]], kind: str) -> None:
    if target is None:
        return
    _state["busy"] = True
    try:
        _event(target[0], kind, _site(), target[1]())
    finally:
        _state["busy"] = False


def _wrap_torch_draw(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    def draw(*args: Any, **kwargs: Any) -> Any:
        if _recording():
            _draw(_torch_target(kwargs.get("generator"), _device_of(args, kwargs)), name)
        return fn(*args, **kwargs)

    return draw


def _wrap_dropout(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    def dropout(*args: Any, **kwargs: Any) -> Any:
        if _recording():
            training = kwargs.get("training", args[2] if len(args) > 2 else True)
            p = kwargs.get("p", args[1] if len(args) > 1 else 0.5)
            if training and p:
                _draw(_torch_target(None, _device_of(args, kwargs)), name)
        return fn(*args, **kwargs)

    return dropout


def _wrap_seed(
    fn: Callable[..., Any], key_of: Callable[[], Optional[tuple[str, Callable[[], str]]]], kind: str
) -> Callable[..., Any]:
    """A seeding function: the event's digest is the state after it (so it holds the seed)."""

    @functools.wraps(fn)
    def seed(*args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        if _recording():
            site = _seed_site()
            target = key_of() if site is not None else None  # the user's, not a library's
            if site is not None and target is not None:
                _state["busy"] = True
                try:
                    _event(target[0], kind, site, target[1]())
                    _seeded_at(target[0], site)
                finally:
                    _state["busy"] = False
        return result

    return seed


TORCH_DRAWS = (
    "rand",
    "randn",
    "randint",
    "randperm",
    "rand_like",
    "randn_like",
    "randint_like",
    "normal",
    "bernoulli",
    "multinomial",
    "poisson",
)
TENSOR_DRAWS = (
    "uniform_",
    "normal_",
    "random_",
    "bernoulli_",
    "exponential_",
    "geometric_",
    "cauchy_",
    "log_normal_",
    "bernoulli",
    "multinomial",
)
DROPOUTS = ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout")


def _same(fn: Any) -> Any:
    return fn


def _jit_builtins(torch: Any) -> dict[int, str]:
    """TorchScript's table of builtin functions (id -> op), built before the tracer replaces
    any (so that it holds torch's own), or an empty dict where it cannot be had."""
    try:
        table: dict[int, str] = torch.jit._builtins._get_builtin_table()
        return table
    except Exception:
        return {}


def _install_torch(torch: Any) -> None:
    if "torch" in _installed:
        return
    _installed.add("torch")
    _torch[0] = torch
    _library.append(os.path.dirname(torch.__file__) + os.sep)
    compiler = getattr(torch, "compiler", None)
    _compiling[0] = getattr(compiler, "is_compiling", None) or _never
    builtins = _jit_builtins(torch)
    for name in TORCH_DRAWS:
        fn = getattr(torch, name, None)
        if fn is not None:
            wrapper = _wrap_torch_draw(fn, name)
            setattr(torch, name, wrapper)
            op = builtins.get(id(fn))
            if op is not None:  # TorchScript still compiles `torch.rand(...)` to its op
                builtins[id(wrapper)] = op
    for name in TENSOR_DRAWS:
        fn = getattr(torch.Tensor, name, None)
        if fn is not None:
            setattr(torch.Tensor, name, _wrap_torch_draw(fn, name))
    functional = torch.nn.functional
    for name in DROPOUTS:
        fn = getattr(functional, name, None)
        if fn is not None:
            wrapper = _wrap_dropout(fn, name)
            wrapper.__prepare_scriptable__ = functools.partial(_same, fn)  # type: ignore[attr-defined]
            setattr(functional, name, wrapper)

    def global_torch() -> tuple[str, Callable[[], str]]:
        key = _stream("torch", {"type": "torch", "created": None})
        return key, functools.partial(_torch_state, torch.default_generator)

    manual_seed = _wrap_seed(torch.manual_seed, global_torch, "manual_seed")
    torch.manual_seed = manual_seed
    torch.random.manual_seed = manual_seed
    reseed = _wrap_seed(torch.seed, global_torch, "seed")
    torch.seed = reseed
    torch.random.seed = reseed
    _install_generator(torch)
    _install_data(torch)
    _install_modules(torch)


def _install_generator(torch: Any) -> None:
    base = torch.Generator

    class _Meta(type(base)):  # type: ignore[misc]
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, base)

        def __subclasscheck__(cls, sub: Any) -> bool:
            return issubclass(sub, base)

    class Generator(base, metaclass=_Meta):  # type: ignore[misc, valid-type]
        """torch.Generator, remembering where the user's code created it (seedlint verify)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            key = None
            if _state["on"] and os.getpid() == _state["pid"]:
                site = _caller_site(1)
                if site is not None:  # one the user made, not torch's own (a sampler's)
                    key = _stream(
                        _new_key("torch.Generator", site),
                        {"type": "torch.Generator", "created": site},
                    )
            self._seedlint_key = key

        def _seeded(self, kind: str) -> None:
            key = getattr(self, "_seedlint_key", None)
            site = _caller_site(2)
            if key is None or site is None or not _recording():
                return
            _state["busy"] = True
            try:
                _event(key, kind, site, _torch_state(self))
                _seeded_at(key, site)
            finally:
                _state["busy"] = False

        def __reduce__(self) -> Any:
            # pickled (a checkpoint, a spawned worker's dataset) as a plain torch.Generator, so
            # that what the program writes never refers to the tracer
            return (base, *super().__reduce__()[1:])

        def manual_seed(self, seed: Any) -> Any:
            result = super().manual_seed(seed)
            self._seeded("manual_seed")
            return result

        def seed(self) -> Any:
            result = super().seed()
            self._seeded("seed")
            return result

        def set_state(self, new_state: Any) -> Any:
            result = super().set_state(new_state)
            self._seeded("set_state")
            return result

    Generator.__module__ = __name__
    Generator.__qualname__ = "Generator"
    globals()["Generator"] = Generator  # picklable by reference (spawned workers)
    torch.Generator = Generator


# -- modules: their parameters at exit (what the program computed) ------------------------------
MODULE_CAP = 1000
_modules: list[tuple[str, Any]] = []  # (key, weak reference) of each module the user's code made


def _install_modules(torch: Any) -> None:
    import weakref

    global _seen_modules
    _seen_modules = weakref.WeakSet()
    module_init = torch.nn.Module.__init__

    @functools.wraps(module_init)
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        module_init(self, *args, **kwargs)
        if len(_modules) >= MODULE_CAP or not _recording() or self in _seen_modules:
            return
        _seen_modules.add(self)
        site = _loader_site(self)  # past the __init__ of its own subclasses
        if site is not None:
            key = _new_key(f"{type(self).__name__}", site)
            _modules.append((key, weakref.ref(self)))

    torch.nn.Module.__init__ = init


_seen_modules: Any = None  # a WeakSet, made when torch is imported


def _module_digests() -> None:
    for key, ref in _modules:
        module = ref()
        if module is None:
            continue
        try:
            parts = [_tensor_bytes(p) for p in module.parameters(recurse=False)]
        except Exception:  # a module in an odd state at exit: nothing to compare
            continue
        if parts:
            _outputs.setdefault("module " + key, []).append(_digest(b"\0".join(parts)))


# -- DataLoader ----------------------------------------------------------------------------------
def _loader_site(loader: Any) -> Optional[str]:
    """Where the user's code made the loader: past the __init__ of its own subclasses."""
    frame: Any = sys._getframe(1)
    while frame is not None and (
        _is_library(frame.f_code.co_filename) or frame.f_locals.get("self") is loader
    ):
        frame = frame.f_back
    return None if frame is None else _where(frame)


def _generator_name(torch: Any, generator: Any) -> Optional[str]:
    if generator is None or generator is torch.default_generator:
        return "torch"
    return getattr(generator, "_seedlint_key", None) or "untraced"


def _loader_meta(torch: Any, loader: Any, site: Optional[str], shuffle: Any) -> dict[str, Any]:
    data = torch.utils.data
    sampler = loader.sampler
    batch_sampler = getattr(loader, "batch_sampler", None)
    if batch_sampler is not None and not isinstance(batch_sampler, data.BatchSampler):
        sampler = batch_sampler
    sampler_generator = getattr(sampler, "generator", None)
    random_samplers = (data.RandomSampler, data.SubsetRandomSampler, data.WeightedRandomSampler)
    return {
        "type": "DataLoader",
        "created": site,
        "generator": _generator_name(torch, loader.generator),
        "sampler": type(sampler).__name__,
        "sampler_random": isinstance(sampler, random_samplers),
        "sampler_generator": _generator_name(torch, sampler_generator),
        "shuffle": bool(shuffle),
        "num_workers": loader.num_workers,
        "persistent_workers": bool(getattr(loader, "persistent_workers", False)),
    }


def _batch_digest(batch: Any) -> str:
    torch = _torch[0]
    parts: list[bytes] = []

    def walk(value: Any) -> None:
        if isinstance(value, torch.Tensor):
            parts.append(_tensor_bytes(value))
        elif isinstance(value, dict):
            for k in sorted(value, key=repr):
                parts.append(repr(k).encode())
                walk(value[k])
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        else:
            parts.append(repr(value).encode())

    walk(batch)
    return _digest(b"\0".join(parts))


def _install_data(torch: Any) -> None:
    import inspect

    data = torch.utils.data
    dataloader: Any = sys.modules["torch.utils.data.dataloader"]
    worker: Any = sys.modules["torch.utils.data._utils.worker"]
    fetch: Any = sys.modules["torch.utils.data._utils.fetch"]
    dataset_module: Any = sys.modules["torch.utils.data.dataset"]
    _worker_loop[0] = worker._worker_loop  # the one to run in a worker (fork or spawn)
    loader_init = data.DataLoader.__init__
    signature = inspect.signature(loader_init)

    @functools.wraps(loader_init)
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        loader_init(self, *args, **kwargs)
        if not _recording() or "_seedlint_key" in self.__dict__:
            return
        site = _loader_site(self)
        try:
            shuffle = signature.bind(self, *args, **kwargs).arguments.get("shuffle")
        except TypeError:
            shuffle = None
        key = _stream(_new_key("DataLoader", site), _loader_meta(torch, self, site, shuffle))
        self.__dict__["_seedlint_key"] = key
        self.__dict__["_seedlint_epochs"] = 0

    data.DataLoader.__init__ = init

    base = dataloader._BaseDataLoaderIter
    base_init = base.__init__

    @functools.wraps(base_init)
    def iter_init(self: Any, loader: Any) -> None:
        base_init(self, loader)
        key = loader.__dict__.get("_seedlint_key")
        if not _recording() or key is None:
            return
        epoch = loader.__dict__["_seedlint_epochs"]
        loader.__dict__["_seedlint_epochs"] = epoch + 1
        self._seedlint_key = key
        if loader.num_workers > 0:
            seeds = [self._base_seed + i for i in range(loader.num_workers)]
            workers = _stream(key + " workers", {"type": "DataLoader workers", "loader": key})
            _event(workers, "worker seeds", _site(), _digest(repr(seeds).encode()))
        identity = _state.get("identity")
        if identity is not None:  # the workers, started next, come after these draws
            identity["seq"] = _seq[0]

    base.__init__ = iter_init

    next_index = base._next_index

    @functools.wraps(next_index)
    def next_index_(self: Any) -> Any:
        index = next_index(self)
        key = getattr(self, "_seedlint_key", None)
        if key is not None and _recording():
            _event(key, "order", None, _digest(repr(index).encode()))
        return index

    base._next_index = next_index_

    next_batch = base.__next__

    @functools.wraps(next_batch)
    def next_(self: Any) -> Any:
        key = getattr(self, "_seedlint_key", None)
        if key is None or not _recording():
            return next_batch(self)
        steps = _state["steps"]
        if steps is not None and _state["batches"] >= steps:
            _state["stopped"] = True
            raise SystemExit(0)
        _state["batches"] += 1
        _checkpoint(_site())
        batch = next_batch(self)
        _state["busy"] = True
        try:
            _outputs.setdefault(key, []).append(_batch_digest(batch))
        finally:
            _state["busy"] = False
        return batch

    base.__next__ = next_

    multi = dataloader._MultiProcessingDataLoaderIter
    multi_init = multi.__init__

    @functools.wraps(multi_init)
    def multi_init_(self: Any, loader: Any) -> None:
        key = loader.__dict__.get("_seedlint_key")
        if not _recording() or key is None:
            multi_init(self, loader)
            return
        identity = {
            "dir": _state["dir"],
            "loader": key,
            "epoch": loader.__dict__["_seedlint_epochs"],
            "seq": _seq[0],
        }
        original = worker._worker_loop
        worker._worker_loop = functools.partial(_worker_main, identity)  # picklable (spawn)
        _state["identity"] = identity
        try:
            multi_init(self, loader)
        finally:
            worker._worker_loop = original
            _state["identity"] = None

    multi.__init__ = multi_init_

    for fetcher in (fetch._MapDatasetFetcher, fetch._IterableDatasetFetcher):
        fetcher.fetch = _wrap_fetch(fetcher.fetch)

    split = data.random_split

    @functools.wraps(split)
    def random_split(dataset: Any, lengths: Any, generator: Any = None, **kwargs: Any) -> Any:
        if generator is None:
            generator = torch.default_generator
        if _recording():
            _draw(_torch_target(generator, None), "random_split")
        _state["busy"] = True
        try:
            return split(dataset, lengths, generator=generator, **kwargs)
        finally:
            _state["busy"] = False

    data.random_split = random_split
    dataset_module.random_split = random_split


def _wrap_fetch(fetch: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fetch)
    def fetch_(self: Any, index: Any) -> Any:
        result = fetch(self, index)
        if _recording() and _state["role"] is not None:
            _checkpoint(None)
            _flush_worker()
        return result

    return fetch_


def _checkpoint(site: Optional[str]) -> None:
    """Compare the streams whose draws cannot be hooked with their last state."""
    _state["busy"] = True
    try:
        for entry in _np_generators:
            now = _np_generator_state(entry[1])
            if now != entry[2]:
                key = _stream(entry[0], entry[3])
                _event(key, "draws", site, entry[2])
                entry[2] = now
        torch = _torch[0]
        if torch is not None and _state["role"] is None and torch.cuda.is_initialized():
            for index in range(torch.cuda.device_count()):
                key = _stream(f"cuda:{index}", {"type": "cuda", "created": None})
                _event(key, "state", site, _cuda_state(index))
    finally:
        _state["busy"] = False


# -- workers ------------------------------------------------------------------------------------
def _worker_main(identity: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
    """The DataLoader worker's loop, with this worker's streams traced (one file per worker)."""
    worker_id = kwargs.get("worker_id", args[10] if len(args) > 10 else None)
    if not _state["on"]:  # a spawned worker: a fresh interpreter
        _start(identity["dir"], None)
    role = {"loader": identity["loader"], "epoch": identity["epoch"], "id": worker_id}
    _state.update(pid=os.getpid(), role=role, prefix=f"{identity['loader']}/{identity['epoch']}/")
    _state["prefix"] += f"{worker_id}:"
    _events.clear()
    _streams.clear()
    _counts.clear()
    _new_streams.clear()
    _seq[0] = 0
    name = f"worker-{os.getpid()}.jsonl"
    _worker_file[0] = open(os.path.join(identity["dir"], name), "a", encoding="utf-8")  # noqa: SIM115
    _worker_file[0].write(json.dumps({"worker": role, "seq": identity["seq"]}) + "\n")
    _worker_file[0].flush()
    return _worker_loop[0](*args, **kwargs)


def _flush_worker() -> None:
    out = _worker_file[0]
    if out is None or not (_events or _new_streams):
        return
    record = {"streams": {k: _streams[k] for k in _new_streams}, "events": list(_events)}
    _new_streams.clear()
    _events.clear()
    out.write(json.dumps(record) + "\n")
    out.flush()


# -- numpy and random ---------------------------------------------------------------------------
NP_DRAWS = (
    "rand",
    "randn",
    "randint",
    "random",
    "random_sample",
    "ranf",
    "sample",
    "choice",
    "shuffle",
    "permutation",
    "normal",
    "uniform",
    "standard_normal",
    "binomial",
    "poisson",
    "beta",
    "gamma",
    "exponential",
    "laplace",
    "lognormal",
    "bytes",
    "multivariate_normal",
)
RANDOM_DRAWS = (
    "random",
    "uniform",
    "randint",
    "randrange",
    "choice",
    "choices",
    "shuffle",
    "sample",
    "gauss",
    "normalvariate",
    "getrandbits",
    "triangular",
    "betavariate",
    "expovariate",
    "gammavariate",
    "lognormvariate",
    "vonmisesvariate",
    "paretovariate",
    "weibullvariate",
    "binomialvariate",
    "randbytes",
)


def _wrap_plain_draw(fn: Callable[..., Any], key: str, state: Callable[[], str]) -> Any:
    meta = {"type": key, "created": None}

    @functools.wraps(fn)
    def draw(*args: Any, **kwargs: Any) -> Any:
        if _recording():
            _draw((_stream(key, meta), state), fn.__name__)
        return fn(*args, **kwargs)

    return draw


def _install_random() -> None:
    import random

    if "random" in _installed:
        return
    _installed.add("random")
    _library.append(os.path.abspath(random.__file__))
    for name in RANDOM_DRAWS:
        fn = getattr(random, name, None)
        if fn is not None:
            setattr(random, name, _wrap_plain_draw(fn, "random", _random_state))
    meta = {"type": "random", "created": None}
    random.seed = _wrap_seed(random.seed, lambda: (_stream("random", meta), _random_state), "seed")


def _install_numpy(np: Any) -> None:
    if "numpy" in _installed:
        return
    _installed.add("numpy")
    _np[0] = np
    _library.append(os.path.dirname(np.__file__) + os.sep)
    module = np.random
    for name in NP_DRAWS:
        fn = getattr(module, name, None)
        if fn is not None:
            setattr(module, name, _wrap_plain_draw(fn, "np.random", _np_legacy_state))
    meta = {"type": "np.random", "created": None}
    module.seed = _wrap_seed(
        module.seed, lambda: (_stream("np.random", meta), _np_legacy_state), "seed"
    )
    default_rng = module.default_rng

    @functools.wraps(default_rng)
    def traced_default_rng(seed: Any = None) -> Any:
        gen = default_rng(seed)
        if _state["on"] and os.getpid() == _state["pid"] and not _state["busy"]:
            frame = _user_frame()
            if frame is not None:
                site = _where(frame)
                owner = frame.f_locals.get("self")
                torch = _torch[0]
                dataset = torch is not None and isinstance(owner, torch.utils.data.Dataset)
                meta = {
                    "type": "np.random.Generator",
                    "created": site,
                    "seeded": [site] if seed is not None else [],
                    "owner": type(owner).__name__ if dataset else None,
                }
                key = _new_key("np.random.Generator", site)
                _np_generators.append([key, gen, _np_generator_state(gen), meta])
        return gen

    module.default_rng = traced_default_rng


# -- start and exit -----------------------------------------------------------------------------
class _PostImport:
    """A meta path finder that patches torch and numpy once they are imported."""

    def __init__(self) -> None:
        self.hooks: dict[str, Callable[[Any], None]] = {
            "torch": _install_torch,
            "numpy": _install_numpy,
        }
        self.busy: set[str] = set()

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in self.hooks or name in self.busy:
            return None
        import importlib.util

        self.busy.add(name)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy.discard(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _Loader(spec.loader, self.hooks[name])  # type: ignore[assignment]
        return spec


class _Loader:
    def __init__(self, loader: Any, hook: Callable[[Any], None]) -> None:
        self.loader = loader
        self.hook = hook

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)
        self.hook(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)


def _start(folder: str, steps: Optional[int]) -> None:
    _state.update(on=True, pid=os.getpid(), dir=folder, steps=steps)
    _library.append(os.path.dirname(os.path.abspath(__file__)) + os.sep)
    _install_random()
    if "numpy" in sys.modules:
        _install_numpy(sys.modules["numpy"])
    if "torch" in sys.modules:
        _install_torch(sys.modules["torch"])
    if not any(isinstance(f, _PostImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _PostImport())


def start() -> None:
    """Trace this process if ``seedlint verify`` started it (else do nothing)."""
    folder = os.environ.pop(DIR_ENV, None)
    steps = os.environ.pop(STEPS_ENV, None)
    if not folder:
        return
    _start(folder, int(steps) if steps else None)
    atexit.register(_write_main)


def _write_main() -> None:
    if not _state["on"] or os.getpid() != _state["pid"] or _state["role"] is not None:
        return
    _checkpoint("exit")
    _state["busy"] = True
    if _torch[0] is not None:
        _module_digests()
    record = {
        "version": 1,
        "pid": os.getpid(),
        "batches": _state["batches"],
        "stopped": _state["stopped"],
        "streams": _streams,
        "events": _events,
        "counts": _counts,
        "outputs": _outputs,
        "seedlint_modules": sorted(m for m in sys.modules if m.split(".")[0] == "seedlint"),
    }
    path = os.path.join(_state["dir"], "main.json")
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        json.dump(record, out)
    os.replace(path + ".tmp", path)
