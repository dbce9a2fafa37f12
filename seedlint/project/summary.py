"""A small, picklable summary of one module: what each function seeds, draws and calls.

Computed from the stdlib ``ast`` facts once per module (and cached by content hash), so that
the index can join modules without parsing them again. Calls are kept as references the index
resolves across the project:

* ``"@key"``: a function or class of this module (``f``, ``C``, ``C.m``, ``f.inner``);
* ``"=name"``: a qualified name as the module spells it (``utils.set_seed``, ``.seed.set_seed``
  with leading dots for a relative import);
* ``"%C.m"``: ``self.m()`` in a method of ``C`` (looked up through ``C``'s bases);
* ``"^C.m"``: ``super().m()`` in a method of ``C`` (looked up from ``C``'s bases);
* ``"&name.m"``: ``x.m()`` on an instance of the class ``name`` (as ``=name.m``, called
  bound).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Optional, Union

from seedlint.analysis.calls import Signature
from seedlint.analysis.facts import DATASET_BASES, LoaderCall, ModuleFacts
from seedlint.analysis.forwarding import Forwarding, Route, Term, Test, forwarding
from seedlint.analysis.names import (
    PARTIAL,
    STATEMENT_FIELDS,
    Binding,
    FunctionNode,
    Scope,
    lookup,
)
from seedlint.analysis.regions import region_calls
from seedlint.analysis.seeding import DEFAULT_SEED_FUNCTIONS, Seeding, qualnames_of
from seedlint.analysis.values import ABSENT, ANYTHING, OBJECT, UNKNOWABLE, Value
from seedlint.analysis.workers import (
    LIGHTNING_MODULES,
    installs_worker_seeding,
    lacks_init_fn,
    may_have_workers,
    worker_seeding_sites,
)
from seedlint.prefilter.scan import may_mean
from seedlint.prefilter.words import WordScan, register

# The streams a seeding call sets: `random`, `np.random`, torch (CPU and every device), CUDA's
# current device, every CUDA device.
RANDOM, NUMPY, TORCH, CUDA, CUDA_ALL = "random", "numpy", "torch", "cuda", "cuda_all"
_STREAM = {
    Seeding.RANDOM: RANDOM,
    Seeding.NUMPY: NUMPY,
    Seeding.TORCH: TORCH,
    Seeding.HELPER: TORCH,  # seed_everything and the like seed torch (and the rest)
    Seeding.CONFIG: TORCH,  # a configuration loader that seeds as its file says
    Seeding.CUDA_CURRENT: CUDA,
    Seeding.CUDA_ALL: CUDA_ALL,
}
TOP_LEVEL = ""  # the key of a module's top-level code (its `__main__` block included)
# Not streams: where a framework is asked to seed the workers of the loaders it is given (its
# seeder with `workers=True`, `LightningCLI`, `PL_SEED_WORKERS` set), or its seeder is called
# without asking (see ``analysis.workers.worker_seeding_sites``).
WORKERS_ON, WORKERS_OFF = "workers-on", "workers-off"

# Calls that draw from torch's default generators (pytorch-rng.md: the CPU generator draws
# module initialisation, `torch.rand*`, dropout masks, random splits and samplers).
_DRAWS = frozenset(
    {
        "torch.rand",
        "torch.randn",
        "torch.randint",
        "torch.randperm",
        "torch.rand_like",
        "torch.randn_like",
        "torch.randint_like",
        "torch.bernoulli",
        "torch.multinomial",
        "torch.normal",
        "torch.poisson",
        "torch.dropout",
        "torch.utils.data.random_split",
        "torch.utils.data.RandomSampler",
        "torch.nn.functional.dropout",
        "torch.nn.functional.dropout1d",
        "torch.nn.functional.dropout2d",
        "torch.nn.functional.dropout3d",
        "torch.nn.functional.alpha_dropout",
        "torch.nn.functional.feature_alpha_dropout",
        "timm.create_model",
    }
)
_NOT_RANDOM_INIT = frozenset({"constant_", "zeros_", "ones_", "eye_", "dirac_", "calculate_gain"})
_NN_CONTAINERS = frozenset(
    {
        "Module",
        "ModuleList",
        "ModuleDict",
        "Sequential",
        "Parameter",
        "ParameterList",
        "ParameterDict",
        "Identity",
        "DataParallel",
        "Flatten",
        "Unflatten",
    }
)
_TENSOR_DRAWS = frozenset(
    {"uniform_", "normal_", "bernoulli_", "random_", "exponential_", "cauchy_", "log_normal_"}
)
_STATE_SAVES = frozenset({"getstate", "get_state", "get_rng_state", "get_rng_state_all"})
_STATE_RESTORES = frozenset({"setstate", "set_state", "set_rng_state", "set_rng_state_all"})
# Seeds read from the clock or the OS: a deliberate fresh start, not a run's seed.
_ENTROPY = frozenset({"time", "time_ns", "perf_counter", "now", "urandom", "getpid", "token_bytes"})
# Modules that are never first-party: calls into them are not kept as references.
_EXTERNAL = frozenset(
    {
        "torch",
        "numpy",
        "random",
        "os",
        "sys",
        "math",
        "time",
        "logging",
        "json",
        "re",
        "argparse",
        "collections",
        "functools",
        "itertools",
        "typing",
        "pathlib",
        "dataclasses",
        "warnings",
        "copy",
        "shutil",
        "subprocess",
        "builtins",
        "abc",
        "enum",
        "inspect",
        "pickle",
        "datetime",
        "contextlib",
    }
)


@dataclass(frozen=True)
class Seed:
    """A deterministic seeding call: the stream it seeds and where (1-based row, 0-based col)."""

    stream: str
    row: int
    col: int
    # `if <guard>:` around it, a parameter of its function whose default is falsy: it runs
    # only when some call passes a true value (the index asks the callers); `position`: the
    # parameter's place among the positional ones, -1 for keyword-only (or a `**` key).
    guard: str = ""
    position: int = -1


@dataclass(frozen=True)
class FunctionSummary:
    row: int
    seeds: tuple[Seed, ...] = ()  # deterministic seeding in its own body, in source order
    scoped: bool = False  # saves and restores RNG state (or forks it): its seeding is temporary
    draws: bool = False  # draws torch randomness in its own body
    cuda_only: bool = False  # every draw of its own body is on a CUDA device it names
    calls: tuple[str, ...] = ()  # references (see the module docstring)
    test: bool = False  # named like a test function (`test_*`, in a module or a `Test*` class)
    worker: bool = False  # passed to a DataLoader as `worker_init_fn`: runs in the workers
    # what its return values may be built by (RNG005: a helper returning the dataset), as
    # references: a class (an instance of it) or a function (what that one returns)
    returns: tuple[str, ...] = ()
    # the closed dict its every `return` gives (`**f()` in another module): (key, encoded
    # value, whether the key may be absent); None: not such a dict
    kwargs: Optional[tuple[tuple[str, str, bool], ...]] = None


@dataclass(frozen=True)
class Init:
    """A class's own ``__init__`` signature (``self`` left out)."""

    positional: tuple[str, ...]
    keyword_only: tuple[str, ...]
    varargs: bool
    kwargs: bool
    # what it passes on to its base's `__init__`, per path (None: not followed); the tests'
    # classes are references
    forwarding: Optional[Forwarding] = None

    @property
    def passthrough(self) -> bool:
        """``__init__(self, *args, **kwargs)``: the base's signature applies."""
        return not self.positional and not self.keyword_only and self.varargs and self.kwargs

    def takes(self, name: str) -> bool:
        return self.kwargs or name in self.positional or name in self.keyword_only


@dataclass(frozen=True)
class ClassSummary:
    bases: tuple[str, ...]  # references, as for calls
    methods: tuple[str, ...]
    loader: bool = False  # this module's names make it a DataLoader subclass
    init: Optional[Init] = None  # its own `__init__`
    # RNG objects a dataset class holds from before the workers start (RNG005): (the name,
    # `self.rng` or a module-level one; its factory; the row of the call that makes it)
    rngs: tuple[tuple[str, str, int], ...] = ()
    # objects it holds and uses to fetch items (RNG005: a transform holding an RNG object):
    # (the attribute, the reference of the object's class, the row storing it)
    holds: tuple[tuple[str, str, int], ...] = ()


@dataclass(frozen=True)
class CallSite:
    """A call to project code with arguments, kept so that a builder's parameters can be bound
    at its callers: what the call may reach, where, and each argument's encoded value
    (:func:`encode`; ``"*"``: a ``*args`` from there on, ``"**"`` keyword: an open dict)."""

    references: tuple[str, ...]
    row: int
    args: tuple[str, ...]
    keywords: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ModuleSummary:
    """``full``: computed from the module's tree; a module without seeding, loader or
    ``__main__`` words is summarised from its bytes alone: ``may_draw`` only, and that is
    None until someone asks (:func:`draws_words` on the file's bytes: a program closure
    reaching the module; most modules are never reached, and the words cost 10 scans)."""

    full: bool
    may_draw: Optional[bool] = False
    functions: Mapping[str, FunctionSummary] = field(default_factory=dict)
    classes: Mapping[str, ClassSummary] = field(default_factory=dict)
    aliases: Mapping[str, str] = field(default_factory=dict)  # module-level imports
    stars: tuple[str, ...] = ()
    imports_torch: bool = False
    main: bool = False  # has an `if __name__ == "__main__":` block
    # functions whose parameters reach a DataLoader's `shuffle`, `num_workers`, `generator`,
    # `worker_init_fn`, `sampler` or `batch_sampler` (their callers decide)
    builders: tuple[str, ...] = ()
    sites: tuple[CallSite, ...] = ()
    # calls made inside a CUDA graph capture region that this module cannot tell seed nothing:
    # (reference, row, col); the index says which reach device seeding (RNG003)
    captured: tuple[tuple[str, int, int], ...] = ()
    # loaders with workers and no `worker_init_fn` over an instance of a class of another
    # module: (the class's reference, row, col); the index says which hold RNG objects (RNG005)
    worker_datasets: tuple[tuple[str, int, int], ...] = ()
    # the config files the summary's values were read from: (absolute path, digest; "" for one
    # looked for and not there); a cached summary holds while they are unchanged
    configs: tuple[tuple[str, str], ...] = ()
    lightning: bool = False  # imports Lightning: its loaders' worker seeding is the program's
    # in a module that imports Lightning, the functions building a loader with workers and no
    # `worker_init_fn` (the index says whether the programs reaching them seed the workers)
    worker_loaders: tuple[str, ...] = ()
    # this module's functions passed by position to a class of another module: (the
    # function's key, the class's reference, the position); the index says which positions
    # are a project loader class's `worker_init_fn` (the function then runs in the workers)
    positional_callables: tuple[tuple[str, str, int], ...] = ()
    # this module's functions that `torch.multiprocessing.spawn` (or `start_processes` with the
    # spawn start method) runs: each is a program of its own, in a fresh interpreter whose
    # torch generator is seeded at random at start-up, whatever its parent seeded
    spawned: tuple[str, ...] = ()
    # functions of other modules whose returned dict a `**` spread takes (`**f()`, or a name
    # bound to `f()`), as references; the index gives each one's dict (``FunctionSummary.kwargs``)
    spreads: tuple[str, ...] = ()
    # its argparse defaults: (dest, encoded value (:func:`encode`), line, set by
    # `set_defaults`); a dest `set_defaults` sets has those only (they override the argument's)
    arguments: tuple[tuple[str, str, int, bool], ...] = ()
    # the dests its DataLoader calls ask of the project's argparse (an attribute `args.dest`
    # of an object the module does not know, that none of its own arguments defines)
    asks: tuple[str, ...] = ()
    # summarised from its bytes, which hold `add_argument` or `set_defaults`: parsed on demand
    # when a module asks for a dest its bytes name
    parser: bool = False


# A call whose name says it seeds (a project helper: `set_seed(`, `init_seeds(`,
# `utils.set_torch_seed(`), a re-export of one, or a script's `__main__` block. Library calls
# that seed are recognised by the resolver's own pre-filter (``may_mean``).
# After a `seed` (in any case): the rest of the name and the call's `(`.
_HELPER_CALL_REST = re.compile(rb"(\w*)\s*\(")
_LIBRARY_CALLS = frozenset(
    {b"manual_seed", b"manual_seed_all", b"seed", b"initial_seed", b"seed_all"}
)
_REEXPORT = re.compile(rb"import[^\n]*[sS][eE][eE][dD]")
_SEEDING = frozenset({*qualnames_of(frozenset(Seeding)), *DEFAULT_SEED_FUNCTIONS})
# What seeds with a seed of its own, which a module may call (or derive from) without the word
# `seed`: the library table's configuration loaders and classes (`Trainer(...)`).
_OWN_SEEDING = qualnames_of(frozenset({Seeding.CONFIG}))
_OWN_SEEDING_WORDS = tuple(sorted({name.rsplit(".", 1)[-1].encode() for name in _OWN_SEEDING}))
_OWN_SEEDING_PACKAGES = tuple(sorted({name.split(".", 1)[0].encode() for name in _OWN_SEEDING}))
# A loader builder, a caller of one (`train_loader = build(...)`), a loader class, a module
# others star-import a loader from.
_LOADER_STEMS = (b"oader", b"shuffle", b"num_workers")
_LOADER_WORDS = (
    b"DataLoader",
    b"Loader(",
    b"Loader)",
    b"shuffle=",
    b"shuffle =",
    b"num_workers",
    b"worker_init_fn",
    b"_loader",
    b"loader =",
)
# A helper returning a loader's keyword dict (`**loader_kwargs()` in another module): its
# keys are DataLoader's (the index records the dict, see ``FunctionSummary.kwargs``).
_LOADER_KEYWORDS = (
    b"persistent_workers",
    b"pin_memory",
    b"multiprocessing_context",
    b"prefetch_factor",
    b"worker_init_fn",
)
# A class holding an RNG object a dataset's workers copy (RNG005 across modules): a dataset,
# a base class of one, an object a dataset holds (a transform); an RNG factory's word.
_PARSER_WORDS = (b"add_argument", b"set_defaults")
_RNG_OBJECT_WORDS = (b"default_rng", b"RandomState", b"Random(", b"Generator(")
_DATASET_WORDS = (b"Dataset", b"__getitem__", b"__iter__")
# What runs a function in processes started with the spawn method (`torch/multiprocessing/
# spawn.py`: `spawn` calls `start_processes(..., start_method="spawn")`).
_SPAWNERS = frozenset(
    {
        "torch.multiprocessing.spawn",
        "torch.multiprocessing.spawn.spawn",
        "torch.multiprocessing.start_processes",
        "torch.multiprocessing.spawn.start_processes",
    }
)
_FRESH_STARTS = ("spawn", "forkserver")  # a new interpreter: nothing of the parent's state
# A star import (`from helpers import *`, `from .loaders import *`): what it binds is known
# only from the tree, and may be a seeding helper or a loader class others import from here.
_STAR_WORDS = (b"import *", b"import*")
register(
    (
        *_LOADER_STEMS,
        *_LOADER_WORDS,
        *_LOADER_KEYWORDS,
        *_PARSER_WORDS,
        *_RNG_OBJECT_WORDS,
        *_DATASET_WORDS,
        *_STAR_WORDS,
        b"__main__",
        *_OWN_SEEDING_WORDS,
        *_OWN_SEEDING_PACKAGES,
        b"add_argument",
        b"set_defaults",
    )
)  # looked up in every module
_DRAW_WORDS = (
    b"nn.",
    b"rand",
    b"ropout",
    b"shuffle",
    b"init.",
    b"create_model",
    b"torchvision.models",
    b"_split",
    b"Linear",
    b"Conv",
)


def needs_tree(raw: bytes, scan: Optional[WordScan] = None) -> bool:
    """Whether the module needs a real summary (the index's pre-filter): one that makes no
    seeding call, calls no seeding helper, re-exports none and is no script seeds nothing a
    program could reach, and is summarised from its bytes alone. ``scan``: the words already
    looked up in ``raw`` (the check's pre-filter shares its lookups)."""
    words = scan if scan is not None and scan.raw is raw else WordScan(raw)
    if words.any(_LOADER_STEMS) and words.any(_LOADER_WORDS):
        return True  # loader builders, their callers, loader classes, star-import targets
    if words.any(_LOADER_KEYWORDS):
        return True  # a helper returning a loader's keyword dict
    if words.any(_RNG_OBJECT_WORDS):
        return True  # a class holding an RNG object: a dataset, its base, a transform it holds
    if words.any(_STAR_WORDS):
        return True  # a re-export of a seeding helper or a loader class may come through it
    if not words.has_folded(b"seed"):  # `seed`, `Seed`, `SEED`, in one scan
        if (
            words.any(_OWN_SEEDING_PACKAGES)  # imported from its library (`from transformers`)
            and words.any(_OWN_SEEDING_WORDS)
            and may_mean(raw, _OWN_SEEDING)
        ):
            return True
        return words.has(b"__main__")
    if words.has(b"__main__") or _REEXPORT.search(raw) is not None:
        return True
    lower = words.lower()
    at = lower.find(b"seed")
    while at >= 0:  # every `seed...(` call, in any case: a literal search, then a match
        match = _HELPER_CALL_REST.match(raw, at + 4)
        if match is not None:
            begin = at
            while begin > 0 and (raw[begin - 1 : begin].isalnum() or raw[begin - 1] == 95):
                begin -= 1  # back to the start of the name (`_` is 95)
            if raw[begin : match.end(1)] not in _LIBRARY_CALLS:
                return True
        at = lower.find(b"seed", at + 4)
    return may_mean(raw, _SEEDING)


# The summary of a module that :func:`needs_tree` rules out: whether it may draw is looked
# up from its bytes only when asked (see :class:`ModuleSummary`).
LIGHT = ModuleSummary(full=False, may_draw=None)
LIGHT_PARSER = ModuleSummary(full=False, may_draw=None, parser=True)  # one that may define args


def may_define_arguments(raw: bytes, scan: Optional[WordScan] = None) -> bool:
    """Whether the module's bytes may define argparse arguments (`add_argument`,
    `set_defaults`)."""
    words = scan if scan is not None and scan.raw is raw else WordScan(raw)
    return words.any(_PARSER_WORDS)


def light_summary(raw: bytes, scan: Optional[WordScan] = None) -> ModuleSummary:
    """The summary of a module :func:`needs_tree` rules out: :data:`LIGHT_PARSER` when its
    bytes may define argparse arguments, else :data:`LIGHT`. ``scan``: the words already
    looked up in ``raw``."""
    words = scan if scan is not None and scan.raw is raw else WordScan(raw)
    return LIGHT_PARSER if words.any(_PARSER_WORDS) else LIGHT


def draws_words(raw: bytes) -> bool:
    """Whether a module summarised from its bytes may draw torch randomness: it has a word
    of module construction, sampling or dropout."""
    return any(word in raw for word in _DRAW_WORDS)


def module_draws(raw: bytes, path: str = "") -> bool:
    """Whether a module summarised from its bytes draws torch randomness: it has a word of
    one (:func:`draws_words`) and, parsed, a function (or its top level) that draws. A word
    alone (`nn.`, `rand` in `operand`) is no draw; a module that does not parse is judged by
    its words."""
    if not draws_words(raw):
        return False
    try:
        tree = ast.parse(raw, filename=path or "<unknown>")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    facts = ModuleFacts(tree, path=path)
    try:
        return any(function.draws for function in summarize(facts).functions.values())
    finally:
        facts.release()


def module_keys(facts: ModuleFacts) -> dict[int, str]:
    """:func:`function_keys` of the module, computed once per facts (the summary, RNG004 and
    the loader builders all ask) from the scopes the name resolver built: each definition's
    key is its enclosing definition's, a dot, and its name."""
    return facts.once("project.function_keys", lambda: _keys_from_scopes(facts))


def _keys_from_scopes(facts: ModuleFacts) -> dict[int, str]:
    builder = facts.builder
    keys: dict[int, str] = {}
    definitions = [*builder.functions, *builder.classes]
    # In the order they start in the text: each after the definition enclosing it.
    definitions.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    for node, scope in definitions:
        parent = scope.node
        if isinstance(parent, ast.Module):
            keys[id(node)] = node.name
            continue
        prefix = keys.get(id(parent))
        if prefix is None:  # not met first (or in an expression's scope): walk the statements
            return function_keys(facts.tree)
        keys[id(node)] = prefix + "." + node.name
    return keys


def function_keys(tree: ast.Module) -> dict[int, str]:
    """``id(def or class node) -> key``: ``f``, ``C``, ``C.m``, ``f.inner`` (statements only
    are walked: expressions hold no definitions)."""
    keys: dict[int, str] = {}
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, prefix = stack.pop()
        for name in STATEMENT_FIELDS:
            for child in getattr(node, name, ()):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    key = prefix + child.name
                    keys.setdefault(id(child), key)
                    stack.append((child, key + "."))
                elif isinstance(child, (ast.stmt, ast.excepthandler)) or hasattr(child, "body"):
                    stack.append((child, prefix))
    return keys


def summarize(facts: ModuleFacts) -> ModuleSummary:
    """The module's summary, computed once per facts (RNG004 and the run both ask). A summary
    is the module's own: where the facts' values took another module's argparse defaults
    (checked with the project), it comes from facts without the project."""
    found = facts.__dict__.get("_project_summary")
    if isinstance(found, ModuleSummary):
        return found
    _ = facts.dataloader_calls
    if facts.values.used_project:
        own = ModuleFacts(facts.tree, facts.options, facts.text, facts.path, None, facts.configs)
        try:
            summary = _Summarizer(own).summary()
        finally:
            own.release()
    else:
        summary = _Summarizer(facts).summary()
    facts.__dict__["_project_summary"] = summary
    return summary


_QUESTION_KINDS = frozenset({Seeding.RANDOM, Seeding.NUMPY, Seeding.CUDA_CURRENT, Seeding.CUDA_ALL})


def may_need_project(facts: ModuleFacts) -> bool:
    """A cheap superset of ``needs_project(summarize(facts))`` (``seedlint.project.index``):
    the module star-imports, imports Lightning, seeds `random`, `np.random` or CUDA, builds a
    loader from its parameters or one with workers and no ``worker_init_fn``, or calls, with
    an argument a loader could take (a literal, a
    ``**`` dict), something that may be the project's (the editor's server asks at every
    change, and most buffers need no summary)."""
    if facts.builder.star_imports:
        return True
    if facts.argparse_asks:
        return True  # its loaders read argparse dests another module may define
    if facts.resolver.imports_any(LIGHTNING_MODULES):
        return True  # its loaders' worker seeding is decided by the programs reaching them
    if any(seed.kind in _QUESTION_KINDS for seed in facts.seed_calls):
        return True
    for loader in facts.dataloader_calls:
        owner = facts.enclosing_function(loader.scope)
        if not isinstance(owner, ast.Module) and builder_parameters(facts, loader):
            return True
        if loader.dataset is not None and may_have_workers(loader) and lacks_init_fn(loader):
            return True  # its dataset may be built by another module (RNG005)
    if spread_calls(facts):
        return True  # `**f()` with `f` of another module: the index knows its dict
    return any(
        _may_decide(call) and _may_be_the_projects(facts, call.func, scope)
        for call, scope in facts.builder.calls
    )


def spread_calls(facts: ModuleFacts) -> dict[int, str]:
    """``id(call) -> reference`` of the calls whose returned dict a ``**`` spread takes
    (``**f()``, or ``**kw`` with ``kw`` bound to ``f()`` in the scope the spread reads) where
    ``f`` may be a function of another module of the project, in a call of a DataLoader class:
    the only calls whose dict the project's index is asked for
    (``ProjectIndex.returned_dict``)."""
    return facts.once("project.spread_calls", lambda: _spread_calls(facts))


def _spread_calls(facts: ModuleFacts) -> dict[int, str]:
    found: dict[int, str] = {}
    resolver = facts.resolver
    loaders = facts.options.all_dataloader_classes
    for call, scope in facts.builder.calls:
        if not any(k.arg is None for k in call.keywords):
            continue
        if not (resolver.qualnames(call.func, scope) & loaders):
            continue  # only a DataLoader's arguments ask for the dict
        for keyword in call.keywords:
            if keyword.arg is not None:
                continue
            spread = keyword.value
            candidates: list[tuple[ast.Call, Scope]] = []
            if isinstance(spread, ast.Call):
                candidates.append((spread, scope))
            elif isinstance(spread, ast.Name):
                bindings = lookup(spread.id, scope) or []
                if bindings:  # those that reach the spread (not `kw = C(**kw)` after it)
                    bindings = facts.values.reaching(spread, scope, bindings)
                for binding in bindings:
                    if binding.kind == "assign" and isinstance(binding.value, ast.Call):
                        candidates.append((binding.value, binding.scope))
            for candidate, where in candidates:
                if id(candidate) in found:
                    continue
                meanings = resolver.meanings(candidate.func, where)
                if len(meanings) != 1:
                    continue
                (meaning,) = meanings
                if isinstance(meaning, str) and not _external(meaning):
                    found[id(candidate)] = "=" + meaning
    return found


def _may_decide(call: ast.Call) -> bool:
    """Whether a call passes something a loader argument could take (a bool, an int, None, a
    ``**`` dict): a call passing only unknown values decides nothing known."""
    if any(k.arg is None for k in call.keywords):
        return True
    values = [*call.args, *(k.value for k in call.keywords if k.arg is not None)]
    return any(map(_literal, values))


def _external(qualname: str) -> bool:
    """A name of a module that is never first-party (its calls are not kept as references)."""
    return qualname.split(".", 1)[0] in _EXTERNAL


def _may_be_the_projects(facts: ModuleFacts, func: ast.expr, scope: Scope) -> bool:
    """Whether a call of ``func`` may get a reference in the module's summary (as
    ``_Summarizer._references`` makes them): it means a definition of this module or a name
    of a module that is not a library's, or it is a method of a class (`self.m`, `C.m`,
    `super().m`)."""
    meanings = facts.resolver.meanings(func, scope)
    for meaning in meanings:
        if not isinstance(meaning, str) or not _external(meaning):
            return True
    if meanings or not isinstance(func, ast.Attribute):
        return False
    base = func.value
    if isinstance(base, ast.Name) and base.id in ("self", "cls"):
        return True
    if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "super":
        return True
    return any(
        isinstance(meaning, ast.ClassDef) for meaning in facts.resolver.meanings(base, scope)
    )


class _Summarizer:
    def __init__(self, facts: ModuleFacts) -> None:
        self.facts = facts
        self.keys = module_keys(facts)
        self.owner_class: dict[int, ast.ClassDef] = {}
        for node, _ in facts.builder.classes:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.owner_class[id(item)] = node

    def summary(self) -> ModuleSummary:
        facts = self.facts
        seeds: dict[str, list[Seed]] = {}
        draws: set[str] = set()
        cpu_draws: set[str] = set()  # a draw not on a CUDA device it names (CPU, or not known)
        calls: dict[str, list[str]] = {}
        # Where each function saves and restores RNG state; `fork_rng` scopes all of it.
        saves: dict[str, list[tuple[int, int]]] = {}
        restores: dict[str, list[tuple[int, int]]] = {}
        forks: set[str] = set()
        seed_nodes = facts.seed_call_by_node
        sites: list[CallSite] = []
        for call, scope in facts.builder.calls:
            owner = facts.enclosing_function(scope)
            key = self._key(owner)
            if key is None:
                continue
            found = seed_nodes.get(id(call))
            if found is not None:
                stream = _STREAM.get(found.kind)
                # a configuration's or a class's seed is none of the call's arguments
                fixed = found.kind is Seeding.CONFIG or _deterministic(facts, call, scope)
                if stream in (RANDOM, NUMPY) and self._in_dataset(owner):
                    continue  # a dataset's own data order (`random.seed(0)` to shuffle files)
                if stream is not None and fixed:
                    guard = self._guard(call, scope, owner)
                    if guard is not None:  # None: behind a test that is never true
                        seeds.setdefault(key, []).append(
                            Seed(stream, call.lineno, call.col_offset, *guard)
                        )
                continue
            func = call.func
            attr = func.attr if isinstance(func, ast.Attribute) else None
            if attr in _STATE_SAVES:
                saves.setdefault(key, []).append((call.lineno, call.col_offset))
            elif attr in _STATE_RESTORES:
                restores.setdefault(key, []).append((call.lineno, call.col_offset))
            elif attr == "fork_rng":
                forks.add(key)
            if attr in _TENSOR_DRAWS:
                draws.add(key)
                cpu_draws.add(key)
            references = self._references(call, scope, owner)
            if not references:  # `store.create_loader(...)`: a method of an instance
                references = self._instance_method(call, scope, owner)
            for reference in references:
                if reference == "!draw":
                    draws.add(key)
                    if not _on_cuda(facts, call, scope):
                        cpu_draws.add(key)
                else:
                    calls.setdefault(key, []).append(reference)
            if references and references != ["!draw"] and (call.args or call.keywords):
                site = self._site(call, scope, references)
                if site is not None:
                    sites.append(site)
        for loader in facts.dataloader_calls:
            if facts.keyword_true(loader.call, "shuffle", loader.scope):
                key = self._key(facts.enclosing_function(loader.scope))
                if key is not None:
                    draws.add(key)
                    cpu_draws.add(key)
        for asked in worker_seeding_sites(facts):
            key = self._key(asked.owner)
            if key is not None:
                row, col = getattr(asked.node, "lineno", 0), getattr(asked.node, "col_offset", 0)
                seeds.setdefault(key, []).append(
                    Seed(WORKERS_ON if asked.on else WORKERS_OFF, row, col)
                )
        workers = self._workers()
        functions: dict[str, FunctionSummary] = {}
        owners: list[tuple[str, int, bool]] = [(TOP_LEVEL, 1, False)]
        returned: dict[str, tuple[str, ...]] = {}
        kwargs: dict[str, tuple[tuple[str, str, bool], ...]] = {}
        for function, _ in facts.builder.functions:
            name = self.keys.get(id(function))
            if name is not None:
                owners.append((name, function.lineno, self._test_like(function)))
                returned[name] = self._returns(function)
                found_kwargs = self._kwargs(function)
                if found_kwargs is not None:
                    kwargs[name] = found_kwargs
        for key, row, test in owners:
            functions[key] = FunctionSummary(
                row=row,
                seeds=tuple(sorted(seeds.get(key, ()), key=lambda s: (s.row, s.col))),
                scoped=key in forks
                or _scoped(saves.get(key, ()), restores.get(key, ()), seeds.get(key, ())),
                draws=key in draws,
                cuda_only=key in draws and key not in cpu_draws,
                calls=tuple(dict.fromkeys(calls.get(key, ()))),
                test=test,
                worker=key in workers,
                returns=returned.get(key, ()),
                kwargs=kwargs.get(key),
            )
        classes: dict[str, ClassSummary] = {}
        for cls, _ in facts.builder.classes:
            class_key = self.keys.get(id(cls))
            if class_key is None:
                continue
            bases: list[str] = []
            for meaning in facts.resolver.class_bases(cls):
                base = self._meaning_reference(meaning)
                if base is not None:
                    bases.append(base)
            methods = tuple(
                item.name
                for item in cls.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            )
            derives = facts.resolver.is_subclass(cls, facts.options.all_dataloader_classes)
            held = [copied for copied in facts.copied_rngs if copied.holder is cls]
            # a class that is no dataset may be a dataset's base of another module
            held.extend(facts.init_rngs.get(id(cls), ()))
            rngs = tuple(
                dict.fromkeys((copied.name, copied.factory, copied.call.lineno) for copied in held)
            )
            holds: dict[tuple[str, str, int], None] = {}
            for attribute, meaning, row in facts.held_objects(cls):
                held_class = self._meaning_reference(meaning)
                if held_class is not None:
                    holds[(attribute, held_class, row)] = None
            classes[class_key] = ClassSummary(
                tuple(sorted(set(bases))),
                methods,
                derives,
                self._init(cls, derives),
                rngs,
                tuple(holds),
            )
        lightning = facts.resolver.imports_any(LIGHTNING_MODULES)
        aliases: dict[str, str] = {}
        for name, bindings in facts.builder.module_scope.bindings.items():
            for binding in bindings:
                if binding.kind == "import" and binding.qualname is not None:
                    aliases.setdefault(name, binding.qualname)
        return ModuleSummary(
            full=True,
            may_draw=bool(draws),
            functions=functions,
            classes=classes,
            aliases=aliases,
            stars=tuple(facts.builder.star_imports),
            imports_torch=facts.resolver.imports_module("torch"),
            main=_has_main(facts.tree),
            builders=self._builders(),
            sites=tuple(sites),
            captured=self._captured(),
            worker_datasets=self._worker_datasets(),
            configs=tuple(sorted(getattr(facts.configs, "consulted", {}).items())),
            lightning=lightning,
            worker_loaders=self._worker_loaders() if lightning else (),
            positional_callables=self._positional_callables(),
            spawned=self._spawned(),
            spreads=tuple(dict.fromkeys(spread_calls(facts).values())),
            arguments=self._arguments(),
            asks=tuple(sorted(facts.argparse_asks)),
        )

    def _arguments(self) -> tuple[tuple[str, str, int, bool], ...]:
        values = self.facts.values
        found: list[tuple[str, str, int, bool]] = []
        for dest, entries in sorted(values.argparse_entries().items()):
            found.extend((dest, encode(value), row, overrides) for value, row, overrides in entries)
        return tuple(found)

    def _init(self, cls: ast.ClassDef, loader: bool) -> Optional[Init]:
        """The class's own ``__init__``, with what it passes on to its base when the class is
        a loader."""
        init = _init_of(cls)
        if init is None or not loader or init.passthrough:
            return init
        function = next(
            item
            for item in cls.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__init__"
        )
        found = forwarding(function, self.facts.values)
        if found is None:
            return init
        routes = tuple(
            Route(
                tuple(
                    (
                        replace(
                            test, classes=tuple(self._class_reference(c) for c in test.classes)
                        ),
                        truth,
                    )
                    for test, truth in route.tests
                ),
                tuple(_plain(term) for term in route.args),
                tuple((name, _plain(term)) for name, term in route.keywords),
            )
            for route in found.routes
        )
        defaults = tuple((name, decode(encode(value))) for name, value in found.defaults)
        return replace(init, forwarding=Forwarding(defaults, routes))

    def _class_reference(self, meaning: object) -> str:
        if isinstance(meaning, str):
            return "=" + meaning
        key = self.keys.get(id(meaning))
        return "?" if key is None else "@" + key

    def _guard(
        self, call: ast.Call, scope: Scope, owner: Union[FunctionNode, ast.Module]
    ) -> Optional[tuple[str, int]]:
        """What the seeding call's run hangs on (only seeding calls are asked): None when an
        ``if`` around it in its function has a test that is never true (a false literal, a
        name bound only to false literals: ``PYTEST = False``), ``(parameter, position)`` for
        ``if pytest:`` on a parameter of the function with a false literal default (what its
        callers pass decides), else ``("", -1)``."""
        guard = ("", -1)
        for test in _if_tests(owner.body, (call.lineno, call.col_offset)):
            if _never_true(test, scope):
                return None
            if not guard[0] and isinstance(test, ast.Name):
                guard = self._parameter(test.id, scope, owner) or guard
        return guard

    def _parameter(
        self, name: str, scope: Scope, owner: Union[FunctionNode, ast.Module]
    ) -> Optional[tuple[str, int]]:
        """``(name, its position)`` when ``name`` read in ``scope`` is only the parameter of
        ``owner`` with a false literal default (never rebound), and ``owner`` is called only
        by its name (:meth:`_only_called`): what its callers pass decides its value."""
        bindings = lookup(name, scope) or []
        if isinstance(owner, ast.Module) or len(bindings) != 1:
            return None
        (binding,) = bindings
        default = binding.value
        if (
            binding.kind != "param"
            or binding.scope.node is not owner
            or not isinstance(default, ast.Constant)
            or default.value
            or not self._only_called(owner)
        ):
            return None
        positional = [a.arg for a in (*owner.args.posonlyargs, *owner.args.args)]
        return name, positional.index(name) if name in positional else -1

    def passed(
        self, key: str, name: str, position: int, entry: str = ""
    ) -> list[tuple[tuple[str, ...], str]]:
        """Each call in the function ``key`` with its references and what it passes for the
        parameter ``name`` (at ``position``, -1: by keyword only) of the function it calls
        (with ``entry``: for the key ``entry`` of the dict it passes there, which the callee
        spreads with ``**``): ``""`` never a true value (not passed, a false literal, a dict
        without the key), ``"?"`` maybe a true one, ``"p:<name>:<position>"`` the caller's
        own parameter (or its ``**`` parameter) that :meth:`_parameter` accepts, passed on,
        ``"p:<name>:<position>:<key>"`` the key of a dict that is the caller's own parameter
        (:meth:`_dict_parameter`)."""
        facts = self.facts
        found: list[tuple[tuple[str, ...], str]] = []
        for call, scope in facts.builder.calls:
            owner = facts.enclosing_function(scope)
            if self._key(owner) != key:
                continue
            references = tuple(self._references(call, scope, owner))
            if references:
                passes = self._passes(call, scope, owner, name, position, entry)
                found.append((references, passes))
        return found

    def _passes(
        self,
        call: ast.Call,
        scope: Scope,
        owner: Union[FunctionNode, ast.Module],
        name: str,
        position: int,
        entry: str = "",
    ) -> str:
        value: Optional[ast.expr] = next((k.value for k in call.keywords if k.arg == name), None)
        for index, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                if value is None and position >= index:
                    return "?"  # `*args` may fill it
                break
            if index == position:
                value = arg
        if value is not None:
            if entry:
                return self._passed_entry(value, scope, owner, entry)
            return self._passed_value(value, scope, owner)
        for keyword in call.keywords:
            if keyword.arg is not None:
                continue
            spread = keyword.value
            if entry:  # the dict itself in a `**` spread: a dict inside a dict, not followed
                keys = _spread_keys(self.facts, spread, scope)
                if keys is None or name in keys:
                    return "?"
                continue
            if isinstance(spread, ast.Name) and not isinstance(owner, ast.Module):
                bindings = lookup(spread.id, scope) or []
                if (
                    [b.node for b in bindings] == [owner.args.kwarg]
                    and not self._mutated(bindings[0])
                    and self._only_called(owner)
                ):
                    return f"p:{name}:-1"  # the caller's own `**kwargs`, passed on
            passed = self._passed_entry(spread, scope, owner, name)
            if passed:
                return passed
        return ""

    def _passed_value(
        self, value: ast.expr, scope: Scope, owner: Union[FunctionNode, ast.Module]
    ) -> str:
        if _never_true(value, scope):
            return ""
        if isinstance(value, ast.Name):
            found = self._parameter(value.id, scope, owner)
            if found is not None:
                return f"p:{found[0]}:{found[1]}"
        return "?"

    def _passed_entry(
        self, value: ast.expr, scope: Scope, owner: Union[FunctionNode, ast.Module], entry: str
    ) -> str:
        """What the dict ``value`` holds at the key ``entry``: ``""`` no such key (a dict
        followed to all its keys: literals, copies, updates, a function's returned dict),
        ``"p:..."`` the caller's own dict parameter decides, else ``"?"`` (a key that is there
        is taken as maybe true: a value the model cannot follow on one path may be lost in
        the union of the paths)."""
        keys = _spread_keys(self.facts, value, scope)
        if keys is not None:
            return "?" if entry in keys else ""
        found = self._dict_parameter(value, scope, owner)
        if found is not None:
            return f"p:{found[0]}:{found[1]}:{entry}"
        return "?"

    def _dict_parameter(
        self, value: ast.expr, scope: Scope, owner: Union[FunctionNode, ast.Module]
    ) -> Optional[tuple[str, int]]:
        """``(name, its position)`` when ``value`` is only the parameter ``name`` of
        ``owner`` (a dict its callers pass: nerf-pytorch's ``render_path(...,
        render_kwargs)``), without a default other than None, changed in place nowhere in
        the module, and ``owner`` is called only by its name."""
        if not isinstance(value, ast.Name) or isinstance(owner, ast.Module):
            return None
        bindings = lookup(value.id, scope) or []
        if len(bindings) != 1:
            return None
        (binding,) = bindings
        default = binding.value
        if (
            binding.kind != "param"
            or binding.scope.node is not owner
            or not (default is None or _is_none(default))
            or self._mutated(binding)
            or not self._only_called(owner)
        ):
            return None
        positional = [a.arg for a in (*owner.args.posonlyargs, *owner.args.args)]
        return value.id, positional.index(value.id) if value.id in positional else -1

    def _mutated(self, binding: Binding) -> bool:
        """Whether the dict a parameter binds is changed in place (``kw["k"] = v``,
        ``kw.update(...)``) where its name reads that parameter."""
        return any(
            binding in (lookup(m.name, m.scope) or ())
            for m in self.facts.builder.dict_mutations
            if m.name == getattr(binding.node, "arg", None)
        )

    def _only_called(self, function: FunctionNode) -> bool:
        """Whether the function's callers are all calls by its name: not a method (called on
        objects the index cannot follow), not decorated, and its name not used otherwise in
        the module (a callback, a ``functools.partial``, which may pass anything)."""
        if id(function) in self.owner_class or function.decorator_list:
            return False
        uses = self.facts.once("project.name_uses", lambda: _name_uses(self.facts.tree))
        return function.name not in uses

    def _worker_loaders(self) -> tuple[str, ...]:
        """The keys of the functions building a loader with workers and no ``worker_init_fn``
        whose class installs none."""
        facts = self.facts
        found: dict[str, None] = {}
        for loader in facts.dataloader_calls:
            if not (may_have_workers(loader) and lacks_init_fn(loader)):
                continue
            if installs_worker_seeding(facts, loader):
                continue
            key = self._key(facts.enclosing_function(loader.scope))
            if key is not None:
                found[key] = None
        return tuple(found)

    def _worker_datasets(self) -> tuple[tuple[str, int, int], ...]:
        """Loaders with workers and no ``worker_init_fn`` whose dataset is built from a class of
        another module (whether it holds an RNG object is that module's to say)."""
        facts = self.facts
        found: dict[tuple[str, int, int], None] = {}
        for loader in facts.dataloader_calls:
            if loader.dataset is None or not (may_have_workers(loader) and lacks_init_fn(loader)):
                continue
            for meaning in facts.dataset_classes(loader.dataset, loader.scope) or ():
                if not isinstance(meaning, str):
                    continue  # a class of this module: RNG005 sees it in the module itself
                reference = self._meaning_reference(meaning)
                if reference is not None and reference.startswith("="):
                    found[(reference, loader.call.lineno, loader.call.col_offset)] = None
        return tuple(found)

    def _returns(self, function: FunctionNode) -> tuple[str, ...]:
        """What the function's return values may be built by, as references (see
        :attr:`FunctionSummary.returns`): the calls that build them, the module's own helpers
        followed (:meth:`ModuleFacts.dataset_classes`)."""
        if not isinstance(function, ast.FunctionDef) or function.decorator_list:
            return ()
        facts = self.facts
        builder = facts.builder
        if id(function) in builder.generators:
            return ()  # as `function_returns`: a generator's values are not followed
        returns = builder.returns.get(id(function))
        if not returns:
            return ()
        scope = facts.resolver.scope_of(function)
        found: dict[str, None] = {}
        for value in returns:
            if value is None or not _may_build(value):
                continue
            for meaning in facts.dataset_classes(value, scope) or ():
                reference = self._meaning_reference(meaning)
                if reference is not None:
                    found[reference] = None
        return tuple(found)

    def _kwargs(self, function: FunctionNode) -> Optional[tuple[tuple[str, str, bool], ...]]:
        """The closed dict the function's every return gives (:attr:`FunctionSummary.kwargs`),
        for a function whose returns are all dict displays, ``dict(...)`` calls, names or
        conditional expressions of them (the cheap gate: any other is not such a dict)."""
        if not isinstance(function, ast.FunctionDef) or function.decorator_list:
            return None
        returns = self.facts.builder.returns.get(id(function))
        if not returns or id(function) in self.facts.builder.generators:
            return None
        scope = self.facts.builder.scope_of.get(id(function))
        if scope is None or not all(
            value is not None and _may_be_dict(value, scope) for value in returns
        ):
            return None
        found = self.facts.binder.returned_dict_of(function)
        if found is None:
            return None
        entries: list[tuple[str, str, bool]] = []
        for key, value in sorted(found.entries.items()):
            options = value.options
            if options is not None and not value.unknowable and options <= {ABSENT}:
                continue  # never there (`kw.pop("generator")`)
            maybe = options is not None and ABSENT in options
            entries.append((key, encode(value), maybe))
        return tuple(entries)

    def _captured(self) -> tuple[tuple[str, int, int], ...]:
        """The calls inside capture regions that reach a function of another module."""
        facts = self.facts
        words = ("graph", "capture", *facts.options.all_capture_contexts)
        if facts.text and not any(word.rsplit(".", 1)[-1] in facts.text for word in words):
            return ()  # no capture region can be spelled here
        found: dict[tuple[str, int, int], None] = {}
        for region in facts.capture_regions:
            for call in region_calls(region.body):
                if id(call) in facts.seed_call_by_node or facts.local_function(call):
                    continue  # RNG003 judges these from the module itself
                scope = facts.call_scopes.get(id(call))
                if scope is None:
                    continue
                owner = facts.enclosing_function(scope)
                for reference in self._references(call, scope, owner):
                    if reference != "!draw" and not reference.startswith("@"):
                        found[(reference, call.lineno, call.col_offset)] = None
        return tuple(found)

    def _builders(self) -> tuple[str, ...]:
        found: dict[str, None] = {}
        for loader in self.facts.dataloader_calls:
            owner = self.facts.enclosing_function(loader.scope)
            if isinstance(owner, ast.Module):
                continue
            key = self.keys.get(id(owner))
            if key is not None and builder_parameters(self.facts, loader):
                found[key] = None
        return tuple(found)

    def _site(self, call: ast.Call, scope: Scope, references: list[str]) -> Optional[CallSite]:
        """The call as a site, when it passes some literal a loader argument could take (a
        bool, an int, None): a caller passing only unknown values decides nothing known."""
        if not _may_decide(call):
            return None  # the cheap gate: no literal a loader argument could take
        evaluate = self.facts.values.evaluate
        args: list[str] = []
        for arg in call.args:
            if isinstance(arg, ast.Starred):
                args.append("*")
                break
            args.append(encode(evaluate(arg, scope)))
        keywords: list[tuple[str, str]] = []
        for keyword in call.keywords:
            if keyword.arg is not None:
                keywords.append((keyword.arg, encode(evaluate(keyword.value, scope))))
                continue
            spread = self.facts.binder.dict_value(keyword.value, scope)
            keywords.extend((name, encode(value)) for name, value in spread.entries.items())
            if spread.open:
                keywords.append(("**", "U"))
        if not any(_decides(text) for text in [*args, *(value for _, value in keywords)]):
            return None
        return CallSite(tuple(references), call.lineno, tuple(args), tuple(keywords))

    def _in_dataset(self, owner: Union[FunctionNode, ast.Module]) -> bool:
        """``owner`` is a method of a class of this module that derives from torch's
        ``Dataset`` or ``IterableDataset``."""
        cls = self.owner_class.get(id(owner))
        return cls is not None and self.facts.resolver.is_subclass(cls, DATASET_BASES)

    def _key(self, owner: Union[FunctionNode, ast.Module]) -> Optional[str]:
        if isinstance(owner, ast.Module):
            return TOP_LEVEL
        return self.keys.get(id(owner))

    def _meaning_reference(self, meaning: object) -> Optional[str]:
        if isinstance(meaning, str):
            if _external(meaning):
                return None
            return "=" + meaning
        key = self.keys.get(id(meaning))
        return None if key is None else "@" + key

    def _references(
        self, call: ast.Call, scope: Scope, owner: Union[FunctionNode, ast.Module]
    ) -> list[str]:
        facts = self.facts
        func = call.func
        meanings = facts.resolver.meanings(func, scope)
        found: list[str] = []
        for meaning in meanings:
            if isinstance(meaning, str) and _draws(meaning):
                return ["!draw"]
            reference = self._meaning_reference(meaning)
            if reference is not None:
                found.append(reference)
        if meanings or not isinstance(func, ast.Attribute):
            return found
        for meaning in facts.resolver.meanings(func.value, scope):
            if isinstance(meaning, ast.ClassDef):  # `Factory.build(...)`: a class's method
                key = self.keys.get(id(meaning))
                if key is not None:
                    found.append(f"@{key}.{func.attr}")
        if found:
            return found
        cls = self.owner_class.get(id(owner))
        if cls is None:
            return found
        class_key = self.keys.get(id(cls))
        if class_key is None:
            return found
        base = func.value
        if isinstance(base, ast.Name) and base.id in ("self", "cls"):
            found.append(f"%{class_key}.{func.attr}")
        elif (
            isinstance(base, ast.Call)
            and isinstance(base.func, ast.Name)
            and base.func.id == "super"
        ):
            found.append(f"^{class_key}.{func.attr}")
        return found

    def _instance_method(
        self, call: ast.Call, scope: Scope, owner: Union[FunctionNode, ast.Module]
    ) -> list[str]:
        """``x.m(...)`` on an instance of a class the module builds or names: ``x`` bound to
        ``C(...)`` on every path, a parameter annotated ``C``, or ``self.x`` that the methods
        of the enclosing class set only to ``C(...)``. References ``%C.m`` (a class of this
        module) or ``&name.m`` (a class as the module spells it)."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return []
        facts = self.facts
        receiver = func.value
        built: list[tuple[ast.expr, Scope]] = []
        if isinstance(receiver, ast.Name):
            bindings = lookup(receiver.id, scope) or []
            if len(bindings) == 1 and bindings[0].kind == "param":
                annotation = getattr(bindings[0].node, "annotation", None)
                parent = bindings[0].scope.parent
                if annotation is None or parent is None:
                    return []
                if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
                    try:
                        annotation = ast.parse(annotation.value, mode="eval").body
                    except SyntaxError:
                        return []
                return self._class_methods(annotation, parent, func.attr)
            found = facts.assigned_expressions(receiver, scope)
            if found is None:
                return []
            built = found
        elif (
            isinstance(receiver, ast.Attribute)
            and isinstance(receiver.value, ast.Name)
            and receiver.value.id == "self"
        ):
            cls = self.owner_class.get(id(owner))
            if cls is None:
                return []
            assigned = facts.values.self_assigned(cls, receiver.attr)
            if not assigned or any(value is None for value, _ in assigned):
                return []
            built = [(value, at) for value, at in assigned if value is not None]
        references: list[str] = []
        for value, at in built:
            if not isinstance(value, ast.Call):
                return []
            found_here = self._class_methods(value.func, at, func.attr)
            if not found_here:
                return []
            references.extend(found_here)
        return list(dict.fromkeys(references))

    def _class_methods(self, expr: ast.expr, scope: Scope, method: str) -> list[str]:
        """References to ``method`` of the class ``expr`` names (none when it may name
        something else)."""
        meanings = self.facts.resolver.meanings(expr, scope)
        found: list[str] = []
        for meaning in meanings:
            if isinstance(meaning, ast.ClassDef):
                key = self.keys.get(id(meaning))
                if key is None:
                    return []
                found.append(f"%{key}.{method}")
            elif isinstance(meaning, str) and not _external(meaning):
                found.append(f"&{meaning}.{method}")
            else:
                return []
        return found

    def _workers(self) -> set[str]:
        """Functions passed as ``worker_init_fn``: to a loader of this module (by position
        too: the DataLoader's, or those of the class's own ``__init__``), or by keyword to any
        call (a loader class of another module, a builder that forwards it). By position to
        a class of another module: :meth:`_positional_callables`, decided by the index."""
        found: set[str] = set()
        passed: list[tuple[ast.expr, Scope]] = []
        for loader in self.facts.dataloader_calls:
            value = loader.argument("worker_init_fn") or self._by_own_position(loader)
            if value is not None:
                passed.append((value, loader.scope))
        for call, scope in self.facts.builder.calls:
            passed.extend((k.value, scope) for k in call.keywords if k.arg == "worker_init_fn")
        passed.extend(self._stored_workers())
        for value, scope in passed:
            for option in self._callables(value, scope):
                for meaning in self.facts.resolver.meanings(option, scope):
                    if isinstance(meaning, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        key = self.keys.get(id(meaning))
                        if key is not None:
                            found.add(key)
        # A callable class in the shape of a worker_init_fn (`WorkerInit(seed)` passed on):
        # `__call__(self, worker_id)`, or a `__call__` of a class named for the workers.
        for cls, _ in self.facts.builder.classes:
            for item in cls.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__call__":
                    params = [a.arg for a in item.args.args[1:]]
                    if params == ["worker_id"] or (
                        len(params) == 1 and "worker" in cls.name.lower()
                    ):
                        key = self.keys.get(id(item))
                        if key is not None:
                            found.add(key)
        return found

    def _by_own_position(self, loader: LoaderCall) -> Optional[ast.expr]:
        """The positional argument a loader class of this module with its own ``__init__``
        takes as its ``worker_init_fn`` parameter (the first class among the call's
        meanings that has one)."""
        if not loader.custom_init or loader.partial is not None:
            return None
        for meaning in self.facts.resolver.meanings(loader.call.func, loader.scope):
            init = _init_of(meaning) if isinstance(meaning, ast.ClassDef) else None
            if init is not None and "worker_init_fn" in init.positional:
                signature = Signature(init.positional)
                return signature.argument(loader.call, "worker_init_fn")
        return None

    def _spawned(self) -> tuple[str, ...]:
        """The module's functions passed as the function of ``torch.multiprocessing.spawn`` or
        of ``start_processes`` with the spawn (its default) or forkserver start method."""
        facts = self.facts
        found: dict[str, None] = {}
        for call, scope in facts.builder.calls:
            if not call.args or not (facts.resolver.qualnames(call.func, scope) & _SPAWNERS):
                continue
            method = next((k.value for k in call.keywords if k.arg == "start_method"), None)
            if len(call.args) > 5 or (
                method is not None
                and not (isinstance(method, ast.Constant) and method.value in _FRESH_STARTS)
            ):
                continue  # fork (or not known): the child shares its parent's seeded state
            for meaning in facts.resolver.meanings(call.args[0], scope):
                if isinstance(meaning, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    key = self.keys.get(id(meaning))
                    if key is not None:
                        found[key] = None
        return tuple(found)

    def _positional_callables(self) -> tuple[tuple[str, str, int], ...]:
        """This module's functions passed by position (before any ``*args``) to a class or
        function of another module (see :attr:`ModuleSummary.positional_callables`)."""
        facts = self.facts
        found: dict[tuple[str, str, int], None] = {}
        names = {function.name for function, _ in facts.builder.functions}
        loaders = facts.loaders_by_call
        for call, scope in facts.builder.calls:
            if id(call) in loaders:
                continue  # a loader class this module knows: :meth:`_workers` reads it
            arguments = []
            for position, arg in enumerate(call.args):
                if isinstance(arg, ast.Starred):
                    break
                if not _may_name(arg, names):
                    continue  # the cheap gate: no name of a function of the module in it
                for option in self._callables(arg, scope):
                    for meaning in facts.resolver.meanings(option, scope):
                        if isinstance(meaning, (ast.FunctionDef, ast.AsyncFunctionDef)):
                            key = self.keys.get(id(meaning))
                            if key is not None:
                                arguments.append((key, position))
            if not arguments:
                continue
            owner = facts.enclosing_function(scope)
            for reference in self._references(call, scope, owner):
                if reference.startswith("="):
                    for key, position in arguments:
                        found[(key, reference, position)] = None
        return tuple(found)

    def _stored_workers(self) -> list[tuple[ast.expr, Scope]]:
        """Values stored as ``kwargs["worker_init_fn"] = ...`` (a keyword dict a loader is
        later given with ``**kwargs``), with the scope they are evaluated in."""
        if "worker_init_fn" not in self.facts.text:
            return []
        found: list[tuple[ast.expr, Scope]] = []
        scopes = self.facts.builder.scope_of
        pending: list[tuple[ast.AST, Scope]] = [(self.facts.tree, scopes[id(self.facts.tree)])]
        while pending:
            node, scope = pending.pop()
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Subscript)
                and isinstance(t.slice, ast.Constant)
                and t.slice.value == "worker_init_fn"
                for t in node.targets
            ):
                found.append((node.value, scope))
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    pending.append((child, scopes.get(id(child), scope)))
        return found

    def _callables(self, value: ast.expr, scope: Scope) -> list[ast.expr]:
        """The callables ``value`` may be: both arms of ``f if c else g``, the function a
        ``functools.partial(f, ...)`` wraps, else ``value`` itself."""
        if isinstance(value, ast.IfExp):
            return self._callables(value.body, scope) + self._callables(value.orelse, scope)
        if (
            isinstance(value, ast.Call)
            and value.args
            and PARTIAL in self.facts.resolver.qualnames(value.func, scope)
        ):
            return self._callables(value.args[0], scope)
        return [value]

    def _test_like(self, node: FunctionNode) -> bool:
        if not node.name.startswith("test"):
            return False
        cls = self.owner_class.get(id(node))
        if cls is not None:
            return cls.name.startswith("Test")
        return self.keys.get(id(node)) == node.name  # a module-level function


# The DataLoader parameters whose value a builder's caller may decide.
LOADER_PARAMETERS = (
    "shuffle",
    "num_workers",
    "generator",
    "worker_init_fn",
    "sampler",
    "batch_sampler",
)


def builder_parameters(facts: ModuleFacts, loader: LoaderCall) -> dict[str, str]:
    """The loader's arguments that are, as written, a parameter of the function the call is
    in: ``{"shuffle": "train"}`` for ``def build(ds, train): DataLoader(ds, shuffle=train)``."""
    owner = facts.enclosing_function(loader.scope)
    if isinstance(owner, ast.Module):
        return {}
    found: dict[str, str] = {}
    for name in LOADER_PARAMETERS:
        expr = loader.argument(name)
        if not isinstance(expr, ast.Name):
            continue
        bindings = lookup(expr.id, loader.scope)
        if (
            bindings
            and len(bindings) == 1
            and bindings[0].kind == "param"
            and bindings[0].scope.node is owner
        ):
            found[name] = expr.id
    spread = owner.args.kwarg
    if spread is not None and _spreads(loader, spread.arg, owner):
        # `def build(ds, **kwargs): DataLoader(ds, **kwargs)`: what the callers pass by
        # keyword (and the function names no parameter for) reaches the loader
        named = {a.arg for a in [*owner.args.posonlyargs, *owner.args.args, *owner.args.kwonlyargs]}
        for name in LOADER_PARAMETERS:
            if name not in found and name not in named and loader.argument(name) is None:
                found[name] = SPREAD + name
    return found


# A loader argument a builder's callers pass through its `**kwargs` (see builder_parameters).
SPREAD = "**"


def _spreads(loader: LoaderCall, name: str, owner: FunctionNode) -> bool:
    """The loader call spreads ``**name``, the ``**`` parameter of ``owner``, unchanged: no
    other ``**`` spread, and the name never assigned or changed in place in ``owner``."""
    spreads = [k.value for k in loader.call.keywords if k.arg is None]
    if len(spreads) != 1 or not (isinstance(spreads[0], ast.Name) and spreads[0].id == name):
        return False
    bindings = lookup(name, loader.scope)
    if not bindings or len(bindings) != 1 or bindings[0].kind != "vararg":
        return False
    if bindings[0].scope.node is not owner:
        return False
    for node in ast.walk(owner):  # `kwargs["shuffle"] = ...`, `kwargs.update(...)`, `pop`
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, (ast.Store, ast.Del))
            and isinstance(node.value, ast.Name)
            and node.value.id == name
        ):
            return False
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
            and node.attr in ("update", "pop", "setdefault", "clear", "popitem")
        ):
            return False
    return True


def _init_of(cls: ast.ClassDef) -> Optional[Init]:
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__init__":
            args = item.args
            positional = [a.arg for a in [*args.posonlyargs, *args.args]][1:]
            return Init(
                tuple(positional),
                tuple(a.arg for a in args.kwonlyargs),
                args.vararg is not None,
                args.kwarg is not None,
            )
    return None


_MARK_OBJECT = {"object": True}


def encode(value: Value) -> str:
    """A Value as text: ``"?"`` anything, ``"U"`` unknowable, else a JSON list of its options
    (``{"object": true}`` for a non-None object whose value is not known)."""
    if value.unknowable:
        return "U"
    if value.options is None:
        return "?"
    options: list[object] = []
    for option in value.options:
        if option is OBJECT:
            options.append(_MARK_OBJECT)
        elif option is ABSENT:
            continue
        elif option is None or isinstance(option, (bool, int, float, str)):
            if isinstance(option, float) and option != option:
                return "?"
            options.append(option)
        else:
            options.append(_MARK_OBJECT)
    return json.dumps(sorted(options, key=repr), separators=(",", ":"))


def _literal(expr: ast.expr) -> bool:
    """``True``, ``4``, ``None``, ``-1`` (not a string)."""
    if isinstance(expr, ast.UnaryOp):
        expr = expr.operand
    return isinstance(expr, ast.Constant) and not isinstance(expr.value, (str, bytes))


def _decides(text: str) -> bool:
    """An encoded value with a bool, int or None among its options."""
    if text[:1] != "[":
        return False
    return any(option is None or isinstance(option, (bool, int)) for option in decode(text).known())


def decode(text: str) -> Value:
    """The Value :func:`encode` wrote (``"?"`` and anything unreadable: anything)."""
    if text == "U":
        return UNKNOWABLE
    if text in ("?", "*"):
        return ANYTHING
    try:
        options = json.loads(text)
    except ValueError:
        return ANYTHING
    if not isinstance(options, list):
        return ANYTHING
    return Value(frozenset(OBJECT if isinstance(o, dict) else o for o in options))


def draws_name(qualname: str) -> bool:
    """Whether calling ``qualname`` draws from torch's default generators."""
    return _draws(qualname)


def _draws(qualname: str) -> bool:
    if qualname in _DRAWS:
        return True
    if qualname.startswith("torch.nn.init."):
        return qualname.rsplit(".", 1)[-1] not in _NOT_RANDOM_INIT
    if qualname.startswith("torchvision.models."):
        return True
    if qualname.startswith("torch.nn.") and qualname.count(".") == 2:
        last = qualname.rsplit(".", 1)[-1]
        return last[:1].isupper() and last not in _NN_CONTAINERS
    return False


def _on_cuda(facts: ModuleFacts, call: ast.Call, scope: Scope) -> bool:
    """Whether a drawing call names a CUDA device, so that it draws from that device's
    generator, not the CPU's: ``device="cuda"`` (``"cuda:1"``), ``device=torch.device("cuda")``,
    ``device=torch.cuda.current_device()``. Only what is written at the call: a device read
    from elsewhere (an argument, the command line) may be the CPU."""
    for keyword in call.keywords:
        if keyword.arg != "device":
            continue
        device = keyword.value
        if isinstance(device, ast.Call):
            names = facts.resolver.qualnames(device.func, scope)
            if "torch.cuda.current_device" in names:
                return True
            if "torch.device" not in names or not device.args:
                return False
            device = device.args[0]
        return isinstance(device, ast.Constant) and str(device.value).startswith("cuda")
    return False


def _deterministic(facts: ModuleFacts, call: ast.Call, scope: Scope) -> bool:
    """Whether a seeding call sets a fixed seed: not argument-less (``random.seed()`` reseeds
    from the OS), not ``None``, not read from the clock or the OS."""
    argument: Optional[ast.expr] = call.args[0] if call.args else None
    for keyword in call.keywords:
        if keyword.arg in ("seed", "a"):
            argument = keyword.value
    if argument is None:
        return not call.keywords and _helper_call(facts, call, scope)
    if isinstance(argument, ast.Constant) and argument.value is None:
        return False
    values = [argument]
    # `seed = default_generator.seed()` just before (also under a conversion: `str(seed)`)
    for used in [n for n in ast.walk(argument) if isinstance(n, ast.Name)][:4]:
        bindings = lookup(used.id, scope) or []
        values.extend(b.value for b in bindings if b.kind == "assign" and b.value is not None)
    for value in values:
        for node in ast.walk(value):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in _ENTROPY:
                    return False
                if name == "seed" and isinstance(func, ast.Attribute) and not node.args:
                    return False  # `generator.seed()`: a non-deterministic seed, fresh each run
    return True


def _helper_call(facts: ModuleFacts, call: ast.Call, scope: Scope) -> bool:
    """An argument-less call to a seed-everything helper counts (it has its own default)."""
    found = facts.seed_call_by_node.get(id(call))
    return found is not None and found.kind is Seeding.HELPER


def _never_true(test: ast.expr, scope: Scope) -> bool:
    """A false literal, or a name bound only to false literals (``PYTEST = False``)."""
    if isinstance(test, ast.Constant):
        return not test.value
    if not isinstance(test, ast.Name):
        return False
    bindings = lookup(test.id, scope) or []
    return bool(bindings) and all(
        b.kind == "assign" and isinstance(b.value, ast.Constant) and not b.value.value
        for b in bindings
    )


def _may_name(expr: ast.expr, names: set[str]) -> bool:
    """Whether ``expr`` may be one of the functions named ``names`` as
    :meth:`_Summarizer._callables` reads it: the name, an arm of a conditional, or the first
    argument of a call (``functools.partial(f, ...)``)."""
    if isinstance(expr, ast.Name):
        return expr.id in names
    if isinstance(expr, ast.IfExp):
        return _may_name(expr.body, names) or _may_name(expr.orelse, names)
    if isinstance(expr, ast.Call) and expr.args:
        return _may_name(expr.args[0], names)
    return False


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _spread_keys(facts: ModuleFacts, expr: ast.expr, scope: Scope) -> Optional[frozenset[str]]:
    """The keys a ``**`` spread may hold when all are known, else None."""
    spread = facts.binder.dict_value(expr, scope)
    return None if spread.open else frozenset(spread.entries)


def passed_to(
    raw: bytes, key: str, name: str, position: int, entry: str = ""
) -> list[tuple[tuple[str, ...], str]]:
    """:meth:`_Summarizer.passed` for the module in ``raw`` (parsed on demand: only for a
    seeding call behind a parameter); none when it does not parse. Config files are not
    followed (a dict read from one is open: its keys may be anything)."""
    try:
        tree = ast.parse(raw)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    facts = ModuleFacts(tree)
    try:
        return _Summarizer(facts).passed(key, name, position, entry)
    finally:
        facts.release()


def _if_tests(body: list[ast.stmt], at: tuple[int, int]) -> list[ast.expr]:
    """The tests of the ``if`` statements whose body (not ``else``) holds the position ``at``,
    outermost first, in the statements ``body`` of the function whose code it is (no nested
    function's body holds it; a class body in it runs in its flow)."""
    tests: list[ast.expr] = []
    statements: list[Any] = list(body)
    while statements:
        node = next((n for n in statements if _holds(n, at)), None)
        if node is None:
            break
        if isinstance(node, ast.If) and any(_holds(n, at) for n in node.body):
            tests.append(node.test)
        statements = []
        for name in STATEMENT_FIELDS:
            for child in getattr(node, name, ()):
                statements.extend(child.body if isinstance(child, _MATCH_CASE) else [child])
    return tests


# A `match` statement's case (Python 3.10): Python 3.9's `ast` has none, and no statement of its
# trees is one.
_MATCH_CASE: Any = getattr(ast, "match_case", ())


def _holds(node: Any, at: tuple[int, int]) -> bool:
    """Whether a statement (of a parsed tree: its end is known) holds the position ``at``."""
    return (node.lineno, node.col_offset) <= at < (node.end_lineno, node.end_col_offset)


def _name_uses(tree: ast.Module) -> set[str]:
    """The names used other than as the function of a call."""
    called: set[int] = set()  # a call is walked before its function (breadth first)
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called.add(id(node.func))
        elif isinstance(node, ast.Name) and id(node) not in called:
            used.add(node.id)
    return used


def _scoped(
    saves: Sequence[tuple[int, int]], restores: Sequence[tuple[int, int]], seeds: Sequence[Seed]
) -> bool:
    """Whether a function's seeding is temporary: it saves the state before its first seeding
    call and restores it after (a function that seeds nothing itself: a save before a
    restore, around what it calls). A function that seeds and then saves the seeded state, to
    restore it on later calls, seeds for good."""
    if not saves or not restores:
        return False
    first = min((seed.row, seed.col) for seed in seeds) if seeds else max(restores)
    return min(saves) < first <= max(restores)


def _has_main(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            names = [node.test.left, *node.test.comparators]
            if any(isinstance(n, ast.Name) and n.id == "__name__" for n in names):
                return True
    return False


# -- JSON (the summary cache; never pickle: a cache folder may come with a checkout) ---------
def to_json(summary: ModuleSummary) -> dict[str, Any]:
    if not summary.full:
        return {"full": False, "may_draw": summary.may_draw, "parser": summary.parser}
    return {
        "full": True,
        "may_draw": summary.may_draw,
        "functions": {
            key: [
                f.row,
                [[s.stream, s.row, s.col, s.guard, s.position] for s in f.seeds],
                f.scoped,
                f.draws,
                f.cuda_only,
                list(f.calls),
                f.test,
                f.worker,
                list(f.returns),
                None if f.kwargs is None else [list(entry) for entry in f.kwargs],
            ]
            for key, f in summary.functions.items()
        },
        "classes": {
            key: [
                list(c.bases),
                list(c.methods),
                c.loader,
                _init_json(c.init),
                [list(rng) for rng in c.rngs],
                [list(held) for held in c.holds],
            ]
            for key, c in summary.classes.items()
        },
        "aliases": dict(summary.aliases),
        "stars": list(summary.stars),
        "imports_torch": summary.imports_torch,
        "main": summary.main,
        "builders": list(summary.builders),
        "sites": [
            [list(site.references), site.row, list(site.args), [list(k) for k in site.keywords]]
            for site in summary.sites
        ],
        "captured": [list(entry) for entry in summary.captured],
        "worker_datasets": [list(entry) for entry in summary.worker_datasets],
        "configs": [list(entry) for entry in summary.configs],
        "lightning": summary.lightning,
        "worker_loaders": list(summary.worker_loaders),
        "positional_callables": [list(entry) for entry in summary.positional_callables],
        "spawned": list(summary.spawned),
        "spreads": list(summary.spreads),
        "arguments": [list(entry) for entry in summary.arguments],
        "asks": list(summary.asks),
    }


def _may_build(value: ast.expr) -> bool:
    """A returned value that may be a construction: a call, a name (bound to one), or a
    conditional expression of them (anything else is not followed)."""
    if isinstance(value, ast.IfExp):
        return _may_build(value.body) or _may_build(value.orelse)
    return isinstance(value, (ast.Call, ast.Name))


def _may_be_dict(value: ast.expr, scope: Scope) -> bool:
    """A returned value that may be a dict the value model closes: a dict display, a
    ``dict(...)`` call, a name assigned one (in ``scope``, the function's), or a conditional
    expression of them."""
    if isinstance(value, ast.IfExp):
        return _may_be_dict(value.body, scope) and _may_be_dict(value.orelse, scope)
    if isinstance(value, ast.Name):
        return any(
            binding.kind == "assign" and binding.value is not None and _dict_display(binding.value)
            for binding in scope.bindings.get(value.id, ())
        )
    return _dict_display(value)


def _dict_display(value: ast.expr) -> bool:
    """``{...}`` or ``dict(...)``."""
    if isinstance(value, ast.Call):
        return isinstance(value.func, ast.Name) and value.func.id == "dict"
    return isinstance(value, ast.Dict)


def _init_json(init: Optional[Init]) -> Optional[list[Any]]:
    if init is None:
        return None
    found = init.forwarding
    forwards = None
    if found is not None:
        forwards = [
            [[name, encode(value)] for name, value in found.defaults],
            [
                [
                    [[t.text, t.kind, t.parameter, list(t.classes), truth] for t, truth in r.tests],
                    [_term_json(term) for term in r.args],
                    [[name, _term_json(term)] for name, term in r.keywords],
                ]
                for r in found.routes
            ],
        ]
    return [list(init.positional), list(init.keyword_only), init.varargs, init.kwargs, forwards]


def _plain(term: Term) -> Term:
    """A term as the summary's JSON gives it back (a fresh summary equals a cached one)."""
    return term if isinstance(term, str) else decode(encode(term))


def _term_json(term: Term) -> str:
    return "=" + term if isinstance(term, str) else encode(term)


def _term_from(text: Any) -> Term:
    text = str(text)
    return text[1:] if text.startswith("=") else decode(text)


def _init_from(data: Any) -> Optional[Init]:
    if data is None:
        return None
    positional, keyword_only, varargs, kwargs, forwards = data
    found = None
    if forwards is not None:
        defaults, routes = forwards
        found = Forwarding(
            tuple((str(name), decode(value)) for name, value in defaults),
            tuple(
                Route(
                    tuple(
                        (Test(str(text), str(kind), str(name), tuple(map(str, classes))), bool(t))
                        for text, kind, name, classes, t in tests
                    ),
                    tuple(_term_from(term) for term in args),
                    tuple((str(name), _term_from(term)) for name, term in keywords),
                )
                for tests, args, keywords in routes
            ),
        )
    return Init(
        tuple(map(str, positional)),
        tuple(map(str, keyword_only)),
        bool(varargs),
        bool(kwargs),
        found,
    )


def from_json(data: Any) -> ModuleSummary:
    """The summary :func:`to_json` wrote; ValueError for anything else."""
    try:
        if not data["full"]:
            may_draw = data["may_draw"]
            return ModuleSummary(
                full=False,
                may_draw=None if may_draw is None else bool(may_draw),
                parser=bool(data["parser"]),
            )
        functions = {
            str(key): FunctionSummary(
                int(row),
                tuple(Seed(str(s), int(r), int(c), str(g), int(p)) for s, r, c, g, p in seeds)
                if seeds
                else (),
                bool(scoped),
                bool(draws),
                bool(cuda_only),
                tuple(map(str, calls)),
                bool(test),
                bool(worker),
                tuple(map(str, returns)),
                None
                if kwargs is None
                else tuple((str(name), str(value), bool(maybe)) for name, value, maybe in kwargs),
            )
            for key, (
                row,
                seeds,
                scoped,
                draws,
                cuda_only,
                calls,
                test,
                worker,
                returns,
                kwargs,
            ) in data["functions"].items()
        }
        classes = {
            str(key): ClassSummary(
                tuple(map(str, bases)),
                tuple(map(str, methods)),
                bool(loader),
                _init_from(init),
                tuple((str(name), str(factory), int(row)) for name, factory, row in rngs),
                tuple((str(name), str(held), int(row)) for name, held, row in holds),
            )
            for key, (bases, methods, loader, init, rngs, holds) in data["classes"].items()
        }
        sites = tuple(
            CallSite(
                tuple(map(str, references)),
                int(row),
                tuple(map(str, args)),
                tuple((str(name), str(value)) for name, value in keywords),
            )
            for references, row, args, keywords in data["sites"]
        )
        captured = tuple(
            (str(reference), int(row), int(col)) for reference, row, col in data["captured"]
        )
        worker_datasets = tuple(
            (str(reference), int(row), int(col)) for reference, row, col in data["worker_datasets"]
        )
        return ModuleSummary(
            full=True,
            may_draw=bool(data["may_draw"]),
            functions=functions,
            classes=classes,
            aliases={str(k): str(v) for k, v in data["aliases"].items()},
            stars=tuple(map(str, data["stars"])),
            imports_torch=bool(data["imports_torch"]),
            main=bool(data["main"]),
            builders=tuple(map(str, data["builders"])),
            sites=sites,
            captured=captured,
            worker_datasets=worker_datasets,
            configs=tuple((str(path), str(digest)) for path, digest in data["configs"]),
            lightning=bool(data["lightning"]),
            worker_loaders=tuple(map(str, data["worker_loaders"])),
            positional_callables=tuple(
                (str(key), str(reference), int(position))
                for key, reference, position in data["positional_callables"]
            ),
            spawned=tuple(map(str, data["spawned"])),
            spreads=tuple(map(str, data["spreads"])),
            arguments=tuple(
                (str(dest), str(value), int(row), bool(overrides))
                for dest, value, row, overrides in data["arguments"]
            ),
            asks=tuple(map(str, data["asks"])),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ValueError(f"not a module summary: {error}") from error
