"""Comparing the runs: the first draw at which each random stream differs, and what it means.

Each stream is compared draw by draw with the first run (the digest of its state before the
draw, and the code that drew). A stream differs from the first draw whose digest or call site is
not the same. Each differing stream becomes a finding: the stream, where it was created, the
step where it first differs, and the seedlint rule and fix that apply (or, where no rule does,
what to change). When every stream matches, what the program computed (the batches its loaders
returned, its printed output) is compared too: a difference there comes from something other
than seeding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from seedlint.verify.runner import Run

FIX = "run `seedlint check --fix`"
WORKER_SEEDED = ("torch", "random", "np.random")  # what a DataLoader worker seeds itself


# codes and paths -> the (code, path) pairs `seedlint check` reports
StaticCheck = Callable[[list[str], list[str]], "set[tuple[str, str]]"]


@dataclass(frozen=True)
class Divergence:
    stream: str
    step: int  # the index of the first differing draw (or batch, or epoch) of the stream
    order: tuple[int, int, int]
    kind: str
    site: Optional[str]  # where the differing draw was made (in the run that made it)
    other_site: Optional[str]
    run: int  # the run that differs from the first
    reason: str  # "digest", "site" or "count"


@dataclass
class Finding:
    code: Optional[str]
    stream: str
    stream_type: str
    path: Optional[str]
    line: Optional[int]
    step: int
    message: str
    fix: str
    created: Optional[str]
    site: Optional[str]
    run: int
    worker: Optional[dict[str, Any]] = None
    workers: list[Any] = field(default_factory=list)  # the worker ids a copied stream differs in


@dataclass
class Result:
    runs: list[Run]
    findings: list[Finding] = field(default_factory=list)
    outputs_match: bool = True
    output_difference: Optional[str] = None

    @property
    def streams_match(self) -> bool:
        return not self.findings


def _by_stream(run: Run) -> dict[str, list[tuple[Any, ...]]]:
    out: dict[str, list[tuple[Any, ...]]] = {}
    for event in run.events:
        out.setdefault(event[1], []).append(event)
    return out


def divergences(runs: Sequence[Run]) -> list[Divergence]:
    """Each stream's first difference from the first run (the earliest over the other runs)."""
    first = _by_stream(runs[0])
    stopped = any(run.stopped for run in runs)
    found: dict[str, Divergence] = {}
    for other in runs[1:]:
        theirs = _by_stream(other)
        for key in sorted(set(first) | set(theirs)):
            mine, yours = first.get(key, []), theirs.get(key, [])
            meta = runs[0].streams.get(key) or other.streams.get(key) or {}
            found_here = _first_difference(key, mine, yours, other.number)
            if found_here is None:
                continue
            if found_here.reason == "count" and stopped and "worker" in meta:
                continue  # a stopped run's workers were cut off at any point of their prefetch
            best = found.get(key)
            if best is None or (found_here.step, found_here.run) < (best.step, best.run):
                found[key] = found_here
    return sorted(found.values(), key=lambda d: d.order)


def _first_difference(
    key: str, mine: list[tuple[Any, ...]], yours: list[tuple[Any, ...]], run: int
) -> Optional[Divergence]:
    for step, (a, b) in enumerate(zip(mine, yours)):
        if a[2:] != b[2:]:
            reason = "digest" if a[2:4] == b[2:4] else "site"
            return Divergence(key, step, a[0], a[2], a[3], b[3], run, reason)
    if len(mine) == len(yours):
        return None
    step = min(len(mine), len(yours))
    longer = mine if len(mine) > len(yours) else yours
    event = longer[step]
    return Divergence(key, step, event[0], event[2], event[3], None, run, "count")


# -- what a difference means -------------------------------------------------------------------
def _split(site: Optional[str]) -> tuple[Optional[str], Optional[int]]:
    if not site:
        return None, None
    path, _, line = site.rpartition(":")
    return (path, int(line)) if line.isdigit() else (site, None)


def _seeds(runs: Sequence[Run], kind: str) -> list[str]:
    meta = runs[0].streams.get(kind, {})
    return list(meta.get("seeded", []))


def _step_words(d: Divergence) -> str:
    if d.reason == "count":
        return f"run {d.run} draws from it a different number of times (from draw {d.step})"
    return f"it differs from draw {d.step}"


def _global_torch(runs: Sequence[Run], d: Divergence) -> tuple[Optional[str], str, str]:
    """What a difference in torch's global generator means."""
    torch_seeds = _seeds(runs, "torch")
    others = [name for name in ("np.random", "random") if _seeds(runs, name)]
    if d.kind == "seed" and d.reason == "digest":
        return (
            None,
            (f"torch's global generator is reseeded from the OS by `torch.seed()` at {d.site}"),
            "remove the `torch.seed()` call, or log and reuse the seed it returns",
        )
    if d.kind == "manual_seed" and d.reason == "digest":
        return (
            None,
            (f"torch's global generator is seeded with a different value in each run at {d.site}"),
            "seed it with a fixed value (a `--seed` argument)",
        )
    if not torch_seeds:
        if others:
            named = " and ".join(f"`{name}`" for name in sorted(others))
            return (
                "RNG004",
                (
                    f"torch's global generator differs from draw {d.step}: this program seeds "
                    f"{named} but never torch"
                ),
                f"add `torch.manual_seed`; {FIX}",
            )
        return (
            None,
            (f"torch's global generator differs from draw {d.step}: this program never seeds it"),
            "call `torch.manual_seed(seed)` before its first draw",
        )
    return (
        None,
        (
            f"torch's global generator, seeded at {torch_seeds[0]}, {_step_words(d)} ({d.site}): "
            "something before that draw differs between the runs"
        ),
        "look at what runs before that draw (a different number of draws, or other arguments)",
    )


def _plain_global(
    runs: Sequence[Run], d: Divergence, name: str, seed_call: str
) -> tuple[Optional[str], str, str]:
    seeds = _seeds(runs, name)
    if d.kind == "seed" and d.reason == "digest":
        return (
            None,
            (f"`{name}` is seeded with a different value in each run at {d.site}"),
            "seed it with a fixed value",
        )
    if not seeds:
        return (
            None,
            (f"`{name}` differs from draw {d.step}: this program never seeds it"),
            f"call `{seed_call}(seed)` before its first draw",
        )
    return (
        None,
        (
            f"`{name}`, seeded at {seeds[0]}, {_step_words(d)} ({d.site}): something before that "
            "draw differs between the runs"
        ),
        "look at what runs before that draw",
    )


def _loader_cause(runs: Sequence[Run], meta: dict[str, Any]) -> tuple[Optional[str], str]:
    """Where a loader's draws come from, and why that differs: (rule, "drawn from ...")."""
    generator = meta.get("generator")
    if generator not in (None, "torch", "untraced"):
        created = runs[0].streams.get(generator, {}).get("created")
        return None, f"drawn from its generator (created at {created}), which differs"
    if not _seeds(runs, "torch"):
        others = [name for name in ("np.random", "random") if _seeds(runs, name)]
        if others:
            named = " and ".join(f"`{n}`" for n in sorted(others))
            return "RNG004", (
                f"drawn from torch's global generator, which this program never seeds (it seeds "
                f"{named})"
            )
        return None, "drawn from torch's global generator, which this program never seeds"
    return None, "drawn from torch's global generator, which differs before it"


def _loader(runs: Sequence[Run], d: Divergence, meta: dict[str, Any]) -> tuple[Any, str, str]:
    code, cause = _loader_cause(runs, meta)
    if meta.get("sampler_random") and meta.get("sampler_generator") in ("torch", None):
        if meta.get("shuffle") and meta.get("generator") in ("torch", None):
            return (
                "RNG001",
                (
                    f"the batch order differs from step {d.step}: DataLoader without a seeded "
                    "generator"
                ),
                FIX,
            )
        return (
            "RNG007",
            (
                f"the batch order differs from step {d.step}: its `{meta.get('sampler')}` has no "
                "generator"
            ),
            FIX,
        )
    fix = f"add `torch.manual_seed`; {FIX}" if code else "seed the generator it draws from"
    return code, f"the batch order differs from step {d.step}: it is {cause}", fix


def _workers(runs: Sequence[Run], d: Divergence, meta: dict[str, Any]) -> tuple[Any, str, str]:
    loader = runs[0].streams.get(meta.get("loader", ""), {})
    code, cause = _loader_cause(runs, loader)
    message = (
        f"the workers' seeds differ from epoch {d.step}: each worker seeds `random`, `torch` and "
        f"`np.random` from the loader's base seed, {cause}"
    )
    if loader.get("generator") in ("torch", None):
        fix = "call `torch.manual_seed(seed)` first, or pass the loader a seeded `generator`"
        if code:
            fix = f"add `torch.manual_seed`; {FIX}"
    else:
        fix = "seed its generator with a fixed value"
    return code, message, fix


def _np_generator(d: Divergence, meta: dict[str, Any]) -> tuple[Any, str, str]:
    owner = meta.get("owner")
    where = " in the DataLoader's workers" if "worker" in meta else ""
    if not meta.get("seeded"):
        if owner:
            return (
                "RNG005",
                (
                    f"`np.random.default_rng()` without a seed, held by dataset `{owner}`, differs "
                    f"from its first draws{where}: every worker gets a copy of it"
                ),
                FIX,
            )
        return (
            None,
            (f"`np.random.default_rng()` without a seed differs from its first draws{where}"),
            "pass it a seed",
        )
    return (
        None,
        (
            f"this `np.random.Generator` {_step_words(d)}{where}: its seed or what drew from it "
            "before differs"
        ),
        "seed it with a fixed value",
    )


def _torch_generator(d: Divergence, meta: dict[str, Any]) -> tuple[Any, str, str]:
    if d.kind in ("seed", "manual_seed", "set_state") and d.reason == "digest":
        if d.kind == "seed":
            text = f"this `torch.Generator` is reseeded from the OS by `.seed()` at {d.site}"
        else:
            text = f"this `torch.Generator` is seeded differently in each run at {d.site}"
        return None, text, "seed it with a fixed value (`.manual_seed(seed)`)"
    return (
        None,
        (f"this `torch.Generator` {_step_words(d)} ({d.site}): what drew from it before differs"),
        "look at what draws from it before",
    )


def explain(runs: Sequence[Run], d: Divergence) -> Optional[Finding]:
    meta = dict(runs[0].streams.get(d.stream) or {})
    for run in runs[1:]:
        meta = meta or dict(run.streams.get(d.stream) or {})
    kind = meta.get("type", "")
    if kind == "torch":
        code, message, fix = _global_torch(runs, d)
        name = "torch"
    elif kind in ("random", "np.random"):
        call = "random.seed" if kind == "random" else "np.random.seed"
        code, message, fix = _plain_global(runs, d, kind, call)
        name = kind
    elif kind == "cuda":
        device = meta.get("base", d.stream)
        message = f"the CUDA generator of `{device}` differs from draw {d.step}"
        code, fix = None, "call `torch.manual_seed(seed)` first (it seeds every CUDA device)"
        name = "cuda"
    elif kind == "DataLoader":
        code, message, fix = _loader(runs, d, meta)
        name = "DataLoader"
    elif kind == "DataLoader workers":
        code, message, fix = _workers(runs, d, meta)
        name = "DataLoader workers"
    elif kind == "np.random.Generator":
        code, message, fix = _np_generator(d, meta)
        name = "np.random.Generator"
    elif kind == "torch.Generator":
        code, message, fix = _torch_generator(d, meta)
        name = "torch.Generator"
    else:
        return None
    worker = meta.get("worker")
    if worker is not None and kind in ("torch", "random", "np.random"):
        message += " (in the DataLoader's workers)"
    created = meta.get("created")
    if kind == "DataLoader workers":
        created = (runs[0].streams.get(meta.get("loader", "")) or {}).get("created")
    path, line = _split(created or d.site)
    return Finding(
        code=code,
        stream=name,
        stream_type=kind,
        path=path,
        line=line,
        step=d.step,
        message=message,
        fix=fix,
        created=created,
        site=d.site,
        run=d.run,
        worker=worker,
    )


def _explained_by_workers(runs: Sequence[Run], found: list[Divergence], d: Divergence) -> bool:
    """A worker's own `random`/`torch`/`np.random` differ because its seed does."""
    meta = runs[0].streams.get(d.stream) or {}
    worker = meta.get("worker")
    if worker is None or meta.get("base") not in WORKER_SEEDED:
        return False
    return any(other.stream == f"{worker['loader']} workers" for other in found)


def compare(runs: Sequence[Run], flagged: Optional[StaticCheck] = None) -> Result:
    """The findings (one per differing stream; a stream copied into several workers once),
    each rule checked against what ``seedlint check`` reports in that file (``flagged``)."""
    result = Result(list(runs))
    found = divergences(runs)
    seen: dict[tuple[Any, ...], Finding] = {}
    for d in found:
        if _explained_by_workers(runs, found, d):
            continue
        finding = explain(runs, d)
        if finding is None:
            continue
        same = (finding.code, finding.stream_type, finding.created, finding.message)
        if finding.worker is not None and same in seen:
            first = seen[same]
            if first.worker is not None:
                first.workers.append(finding.worker.get("id"))
            continue
        seen[same] = finding
        if finding.worker is not None:
            finding.workers.append(finding.worker.get("id"))
        result.findings.append(finding)
    if flagged is not None:
        codes = {f.code for f in result.findings if f.code and f.path}
        paths = sorted({f.path for f in result.findings if f.code and f.path})
        static = flagged(sorted(codes), paths) if codes else set()
        for finding in result.findings:
            if finding.code and (finding.code, finding.path) not in static:
                finding.fix = _unflagged_fix(finding)
                finding.code = None
    if not result.findings:
        result.output_difference = _outputs(runs)
        result.outputs_match = result.output_difference is None
    return result


def _unflagged_fix(finding: Finding) -> str:
    """The fix to make by hand where `seedlint check` does not flag the line itself."""
    manual = {
        "RNG001": "pass the loader `generator=torch.Generator().manual_seed(seed)`",
        "RNG004": "call `torch.manual_seed(seed)` at the start",
        "RNG005": "make the RNG in each worker from `get_worker_info().seed` (a `worker_init_fn`)",
        "RNG007": "pass the sampler `generator=torch.Generator().manual_seed(seed)`",
    }
    text = manual.get(finding.code or "", finding.fix.replace(f"; {FIX}", ""))
    return f"{text} (`seedlint check` does not flag this file for {finding.code})"


def _outputs(runs: Sequence[Run]) -> Optional[str]:
    first = runs[0]
    for other in runs[1:]:
        loaders = sorted(k for k in set(first.outputs) | set(other.outputs) if k in first.streams)
        for key in loaders:
            mine, yours = first.outputs.get(key, []), other.outputs.get(key, [])
            for step, (a, b) in enumerate(zip(mine, yours)):
                if a != b:
                    created = (first.streams.get(key) or {}).get("created")
                    return (
                        f"the batches the DataLoader created at {created} returns differ from "
                        f"step {step} (run {other.number})"
                    )
        for key in first.outputs:  # modules, in the order they were created
            if key.startswith("module ") and first.outputs[key] != other.outputs.get(key):
                name, _, site = key[len("module ") :].partition("@")
                return (
                    f"the parameters of the `{name}` created at {site.rpartition('#')[0]} differ "
                    f"at the end of run {other.number}"
                )
        mine_lines, your_lines = first.stdout.splitlines(), other.stdout.splitlines()
        for number, (a, b) in enumerate(zip(mine_lines, your_lines), 1):
            if a != b:
                return f"the printed output differs from line {number}: {a!r} / {b!r}"
        if len(mine_lines) != len(your_lines):
            return f"run {other.number} prints {len(your_lines)} lines, run 1 {len(mine_lines)}"
    return None
