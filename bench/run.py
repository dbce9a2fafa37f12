"""Speed benchmark of seedlint against ruff, flake8, TorchFix and the I/O and parsing floors.

Standard library only: every tool is run as a child process, timed with ``time.perf_counter``
and measured with ``os.wait4`` (user+sys CPU seconds of the child and its reaped descendants,
and ``ru_maxrss``, the peak resident set of the largest single process in that tree).

After a warm-up run of every command, the commands run in rounds: each round runs every
command once (the order rotated from round to round), so slow drifts of the machine hit all
tools alike.  Medians over the rounds are reported.

All tools lint private hard-linked (or copied) views of the corpus in a temporary folder, made
before any timing, so that no tool picks up this repository's configuration or ``.gitignore``
and the slices are never copied while a clock runs.

Usage::

    python bench/build_corpus.py        # once: fetch the pinned wheels, unpack, verify
    python bench/run.py                 # full run, writes docs/performance.md
    python bench/run.py --quick --rounds 1

Executables can be overridden with environment variables, each a command line split like a
shell would: ``SEEDLINT_BENCH_SEEDLINT`` (e.g. ``"python -m seedlint"``), ``SEEDLINT_BENCH_RUFF``,
``SEEDLINT_BENCH_TORCHFIX``, and ``SEEDLINT_BENCH_FLAKE8_PYTHON`` (the interpreter that has
flake8, and seedlint's and TorchFix's plugins, installed).  A tool that cannot be found is
reported as "not installed"; the harness never fails for that.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import datetime as dt
import fnmatch
import hashlib
import importlib.util
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
DEFAULT_CORPUS = BENCH_DIR / "corpus"
DEFAULT_OUTPUT = REPO_DIR / "docs" / "performance.md"
RESULTS_DIR = BENCH_DIR / "results"
FLAKE8_SHIM = BENCH_DIR / "flake8_shim.py"

START_MARKER = "<!-- bench:start -->"
END_MARKER = "<!-- bench:end -->"

SLICE_STEP = 50  # the TorchFix slice: every 50th file of the sorted corpus (2 %)
GROWTH_STEPS = (8, 4, 2)  # seedlint cold on every 8th / 4th / 2nd file, then the whole corpus
GENERATED_LINES = 50_000
RSS_LIMIT_MB = 200.0
# The pre-commit-style run: one changed file of the corpus named, the cache (and so the project
# index's summaries) filled by an earlier run over the whole tree. This file has an RNG001
# finding and takes part in the project index.
ONE_FILE = "accelerate/accelerate/test_utils/scripts/external_deps/test_checkpointing.py"
ONE_FILE_LIMIT_S = 0.3
_EDIT_PREFIX = b"# bench: edit "

#: ``path:line:col: ...``: what counts as a finding line when outputs are compared.
FINDING_RE = re.compile(r"^\S.*?:\d+:\d+:? ")

READ_FLOOR = """
import os, sys
files = size = 0
for root, dirs, names in os.walk(sys.argv[1]):
    dirs.sort()
    for name in sorted(names):
        if name.endswith(".py"):
            with open(os.path.join(root, name), "rb") as handle:
                size += len(handle.read())
            files += 1
print(f"read {files} files, {size} bytes")
"""

AST_FLOOR = """
import ast, os, sys
files = errors = 0
for root, dirs, names in os.walk(sys.argv[1]):
    dirs.sort()
    for name in sorted(names):
        if name.endswith(".py"):
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                source = handle.read()
            files += 1
            try:
                ast.parse(source, path)
            except (SyntaxError, ValueError):
                errors += 1
print(f"parsed {files} files, {errors} syntax errors")
"""


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Inputs


@dataclass
class Tree:
    """A folder of ``.py`` files that tools are pointed at: ``parent / name``."""

    label: str
    parent: Path
    name: str
    files: int
    lines: int
    size: int

    @property
    def path(self) -> Path:
        return self.parent / self.name


def list_py_files(root: Path) -> list[str]:
    """Every ``.py`` file under ``root``, relative POSIX paths sorted by bytes (``LC_ALL=C``)."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for filename in filenames:
            if filename.endswith(".py"):
                found.append((Path(dirpath) / filename).relative_to(root).as_posix())
    return sorted(found, key=lambda p: p.encode("utf-8", "surrogateescape"))


def count_lines(root: Path, files: Sequence[str]) -> tuple[int, int]:
    lines = size = 0
    for rel in files:
        data = (root / rel).read_bytes()
        lines += data.count(b"\n")
        size += len(data)
    return lines, size


def link_or_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def ordinal(number: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10 if number % 100 not in (11, 12, 13) else 0)
    return f"{number}{suffix or 'th'}"


def make_tree(
    label: str, corpus: Path, files: Sequence[str], workdir: Path, folder: str, name: str
) -> Tree:
    parent = workdir / folder
    for rel in files:
        link_or_copy(corpus / rel, parent / name / rel)
    lines, size = count_lines(corpus, files)
    return Tree(label, parent, name, len(files), lines, size)


def generate_module(target_lines: int = GENERATED_LINES) -> str:
    """A realistic, valid module of exactly ``target_lines`` lines.

    It has many functions and classes, DataLoaders with and without seeded generators,
    seeding calls, and the stdlib / NumPy / torch random calls a training script makes.
    """
    header = [
        '"""Generated by bench/run.py: a large training module for the speed benchmark."""',
        "",
        "from __future__ import annotations",
        "",
        "import random",
        "",
        "import numpy as np",
        "import torch",
        "from torch import nn",
        "from torch.utils.data import DataLoader, Dataset, RandomSampler",
    ]

    def loader(i: int) -> list[str]:
        return [
            f"def make_loader_{i}(dataset: Dataset, batch_size: int = {16 + i % 48})"
            " -> DataLoader:",
            f'    """Build training loader number {i}."""',
            "    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=2)",
            "    return loader",
        ]

    def seeded_loader(i: int) -> list[str]:
        return [
            f"def make_seeded_loader_{i}(dataset: Dataset, seed: int = {i}) -> DataLoader:",
            "    generator = torch.Generator()",
            "    generator.manual_seed(seed)",
            "    return DataLoader(dataset, batch_size=32, shuffle=True, generator=generator)",
        ]

    def seed_everything(i: int) -> list[str]:
        return [
            f"def seed_everything_{i}(seed: int = {i}) -> None:",
            "    random.seed(seed)",
            "    np.random.seed(seed)",
            "    torch.manual_seed(seed)",
            "    torch.cuda.manual_seed_all(seed)",
        ]

    def block(i: int) -> list[str]:
        return [
            f"class Block{i}(nn.Module):",
            f"    def __init__(self, width: int = {32 + i % 96}) -> None:",
            "        super().__init__()",
            "        self.linear = nn.Linear(width, width)",
            "        self.dropout = nn.Dropout(p=0.1)",
            "",
            "    def forward(self, x: torch.Tensor) -> torch.Tensor:",
            "        noise = torch.randn_like(x) * 0.01",
            "        return self.dropout(self.linear(x + noise))",
        ]

    def augment(i: int) -> list[str]:
        return [
            f"def augment_{i}(batch: torch.Tensor) -> torch.Tensor:",
            "    if random.random() < 0.5:",
            "        batch = batch.flip(-1)",
            "    perm = torch.randperm(batch.shape[0])",
            "    index = np.random.randint(0, batch.shape[0])",
            "    return batch[perm] + batch[index]",
        ]

    def train(i: int) -> list[str]:
        return [
            f"def train_epoch_{i}(model: nn.Module, loader: DataLoader, opt: torch.optim.Optimizer)"
            " -> float:",
            "    total = 0.0",
            "    steps = 0",
            "    for inputs, targets in loader:",
            "        opt.zero_grad()",
            "        loss = nn.functional.cross_entropy(model(inputs), targets)",
            "        loss.backward()",
            "        opt.step()",
            "        total += float(loss)",
            "        steps += 1",
            "    return total / max(steps, 1)",
        ]

    def sampler(i: int) -> list[str]:
        return [
            f"def make_sampler_{i}(dataset: Dataset) -> RandomSampler:",
            f"    generator = torch.Generator().manual_seed({i})",
            "    return RandomSampler(dataset, generator=generator)",
        ]

    templates: list[Callable[[int], list[str]]] = [
        loader,
        block,
        seed_everything,
        augment,
        train,
        seeded_loader,
        sampler,
    ]
    lines = list(header)
    index = 0
    while True:
        chunk = ["", "", *templates[index % len(templates)](index)]
        if len(lines) + len(chunk) > target_lines:
            break
        lines.extend(chunk)
        index += 1
    while len(lines) < target_lines:
        lines.append(f"# padding line {len(lines) + 1}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Tools


@dataclass
class Tool:
    """How to start one tool, or why it cannot be started."""

    name: str
    argv: list[str] | None
    version: str = ""
    missing: str = ""  # why it is not available ("not installed", ...)
    help_text: str = ""


def env_command(variable: str) -> list[str] | None:
    value = os.environ.get(variable, "").strip()
    return shlex.split(value) if value else None


def probe(argv: Sequence[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    try:
        result = subprocess.run(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return 127, str(error)
    return result.returncode, result.stdout.decode("utf-8", "replace")


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def find_module_tool(name: str, variable: str, module: str | None = None) -> list[str] | None:
    """The override from ``variable``, else the executable on PATH, else ``python -m``."""
    override = env_command(variable)
    if override:
        return override
    exe = shutil.which(name)
    if exe:
        return [exe]
    if module and importlib.util.find_spec(module) is not None:
        return [sys.executable, "-m", module]
    return None


def find_seedlint() -> Tool:
    argv = find_module_tool("seedlint", "SEEDLINT_BENCH_SEEDLINT", "seedlint")
    if argv is None:
        return Tool("seedlint", None, missing="not installed")
    code, text = probe([*argv, "check", "--help"])
    if code != 0:
        return Tool("seedlint", None, missing=f"not installed (`check --help` failed: {code})")
    tool = Tool("seedlint", argv, help_text=text)
    code, version = probe([*argv, "--version"])
    tool.version = first_line(version) if code == 0 else "unknown"
    return tool


def find_ruff() -> Tool:
    argv = find_module_tool("ruff", "SEEDLINT_BENCH_RUFF", "ruff")
    if argv is None:
        return Tool("ruff", None, missing="not installed")
    code, version = probe([*argv, "--version"])
    if code != 0:
        return Tool("ruff", None, missing=f"not installed (`ruff --version` failed: {code})")
    return Tool("ruff", argv, version=first_line(version))


def find_torchfix() -> Tool:
    argv = find_module_tool("torchfix", "SEEDLINT_BENCH_TORCHFIX", "torchfix")
    if argv is None:
        return Tool("torchfix", None, missing="not installed")
    code, version = probe([*argv, "--version"])
    if code != 0:
        return Tool("torchfix", None, missing=f"not installed (`--version` failed: {code})")
    return Tool("torchfix", argv, version=first_line(version))


def shebang_python(script: str) -> str | None:
    try:
        with open(script, "rb") as handle:
            head = handle.readline().decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not head.startswith("#!"):
        return None
    parts = shlex.split(head[2:])
    if parts and os.path.basename(parts[0]) == "env":
        parts = parts[1:]
    return parts[0] if parts else None


def find_flake8_python() -> str | None:
    override = os.environ.get("SEEDLINT_BENCH_FLAKE8_PYTHON", "").strip()
    if override:
        return override
    if importlib.util.find_spec("flake8") is not None:
        return sys.executable
    exe = shutil.which("flake8")
    return shebang_python(exe) if exe else None


def find_flake8(plugins: str, package: str) -> Tool:
    """flake8 through the shim, with flake8's own plugins plus ``plugins`` (entry points).

    ``package`` is the distribution that must show up in ``--version`` (empty: none).
    """
    python = find_flake8_python()
    name = f"flake8[{plugins}]" if plugins else "flake8"
    if python is None:
        return Tool(name, None, missing="not installed")
    env = dict(os.environ, SEEDLINT_BENCH_FLAKE8_PLUGINS=plugins)
    argv = [python, str(FLAKE8_SHIM)]
    code, text = probe([*argv, "--version"], env)
    version = " ".join(text.split())
    if code != 0:
        return Tool(name, None, missing=f"not installed (`flake8 --version` failed: {code})")
    if package and package.lower() not in version.lower():
        return Tool(name, None, missing=f"not installed ({package} plugin `{plugins}` not found)")
    return Tool(name, argv, version=version)


# --------------------------------------------------------------------------------------------
# Measuring


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mb: float
    returncode: int
    output_lines: int
    other_cpu: float | None = None  # CPU seconds other processes used during the run


@dataclass
class Bench:
    """One command on one input, and what was measured."""

    key: str
    label: str
    group: str  # corpus | slice | growth | floor
    tree: Tree | None
    tool: Tool
    args: list[str] = field(default_factory=list)
    env: dict[str, str] | None = None
    ok_codes: tuple[int, ...] = (0,)
    baseline: str = ""  # key of the seedlint bench the ratio is taken against
    compare_findings: bool = False  # part of the "findings identical" check
    prepare: Callable[[Bench], None] | None = None
    before_each: Callable[[], None] | None = None  # before every run (untimed)
    shown: str = ""  # command as shown in the table
    samples: list[Sample] = field(default_factory=list)
    findings: list[list[str]] = field(default_factory=list)
    error: str = ""

    @property
    def argv(self) -> list[str]:
        assert self.tool.argv is not None
        return [*self.tool.argv, *self.args]

    @property
    def status(self) -> str:
        if self.tool.argv is None:
            return self.tool.missing or "not installed"
        return self.error

    def median(self, attribute: str) -> float:
        return float(statistics.median(getattr(s, attribute) for s in self.samples))


def rss_mb(maxrss: int) -> float:
    # ru_maxrss is in kilobytes on Linux and in bytes on macOS.
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


def finding_lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    findings = [line for line in lines if FINDING_RE.match(line)]
    return sorted(findings)


def busy_cpu_seconds() -> float | None:
    """CPU seconds the whole machine has been busy (Linux ``/proc/stat``), else None."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = [int(x) for x in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    if len(fields) < 5:
        return None
    busy = sum(fields[:8]) - fields[3] - fields[4]  # everything but idle and iowait
    return busy / os.sysconf("SC_CLK_TCK")


def kill_group(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)


def raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def run_once(bench: Bench, scratch: Path, timeout: float) -> tuple[Sample, str, str]:
    assert bench.tree is not None
    out_path = scratch / f"{bench.key}.out"
    err_path = scratch / f"{bench.key}.err"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        busy_before = busy_cpu_seconds()
        start = time.perf_counter()
        proc = subprocess.Popen(
            bench.argv,
            cwd=bench.tree.parent,
            env=bench.env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,  # its own process group, so that worker pools die with it
        )
        timed_out = threading.Event()

        def kill() -> None:
            timed_out.set()
            kill_group(proc.pid)

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _pid, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            kill_group(proc.pid)
            proc.wait()
            raise
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        busy_after = busy_cpu_seconds()
        proc.returncode = os.waitstatus_to_exitcode(status)
    stdout = out_path.read_bytes().decode("utf-8", "replace")
    stderr = err_path.read_bytes().decode("utf-8", "replace")
    sample = Sample(
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        rss_mb=rss_mb(usage.ru_maxrss),
        returncode=proc.returncode,
        output_lines=len(stdout.splitlines()),
    )
    if busy_before is not None and busy_after is not None:
        # What the machine did besides this child (and the harness, which sleeps in wait4).
        sample.other_cpu = max(0.0, busy_after - busy_before - sample.cpu)
    if timed_out.is_set():
        sample.returncode = -9
    return sample, stdout, stderr


def execute(bench: Bench, scratch: Path, timeout: float, record: bool) -> None:
    if bench.status:
        return
    if bench.before_each is not None:
        bench.before_each()
    try:
        sample, stdout, stderr = run_once(bench, scratch, timeout)
    except OSError as error:
        bench.error = f"failed to start: {error}"
        log(f"{bench.key}: {bench.error}")
        return
    if sample.returncode not in bench.ok_codes:
        tail = first_line("\n".join(reversed(stderr.splitlines()))) or first_line(stdout)
        reason = "timed out" if sample.returncode == -9 else f"exit code {sample.returncode}"
        bench.error = f"failed ({reason})" + (f": {tail[:160]}" if tail else "")
        log(f"{bench.key}: {bench.error}")
        return
    log(
        f"{bench.key:<22} {'' if record else '(warm-up) '}{sample.wall:8.3f} s wall "
        f"{sample.cpu:8.3f} s cpu {sample.rss_mb:7.1f} MB"
    )
    if record:
        bench.samples.append(sample)
        if bench.compare_findings:
            bench.findings.append(finding_lines(stdout))


# --------------------------------------------------------------------------------------------
# The plan


@dataclass
class Plan:
    benches: list[Bench]
    trees: dict[str, Tree]
    tools: dict[str, Tool]
    corpus_tree: Tree


def shown_command(name: str, args: Sequence[str]) -> str:
    return " ".join([name, *(a if a == "<tmp>" else shlex.quote(a) for a in args)])


def prepare_trees(args: argparse.Namespace, corpus: Path, workdir: Path) -> dict[str, Tree]:
    """Hard-link (or copy) every input into ``workdir`` before any clock runs."""
    files = list_py_files(corpus)
    if not files:
        raise SystemExit(f"bench: no .py files under {corpus}")
    name = corpus.name
    log(f"preparing inputs in {workdir}")
    trees = {"corpus": make_tree("whole corpus", corpus, files, workdir, "all", name)}
    if ONE_FILE in files:
        label = "whole corpus, one file changed"
        trees["one"] = make_tree(label, corpus, files, workdir, "one", name)
        # The file the one-file runs edit is a copy, not a hard link: replacing a link changes
        # its inode's change time, which the other trees' links share (their stat keys would
        # change under the warm runs).
        edited = workdir / "one" / name / ONE_FILE
        edited.unlink()
        shutil.copy2(corpus / ONE_FILE, edited)
    if args.quick:
        return trees
    trees["slice"] = make_tree(
        f"2% slice (every {SLICE_STEP}th file)", corpus, files[::SLICE_STEP], workdir, "slice", name
    )
    for step in GROWTH_STEPS:
        trees[f"1/{step}"] = make_tree(
            f"1/{step} (every {ordinal(step)} file)",
            corpus,
            files[::step],
            workdir,
            f"g{step}",
            name,
        )
    generated = workdir / "generated"
    generated.mkdir()
    module = generate_module()
    (generated / "big_module.py").write_text(module, encoding="utf-8")
    trees["generated"] = Tree(
        f"generated {GENERATED_LINES:,}-line module",
        workdir,
        "generated",
        1,
        module.count("\n"),
        len(module.encode()),
    )
    return trees


def find_tools() -> dict[str, Tool]:
    tools = {
        "seedlint": find_seedlint(),
        "ruff": find_ruff(),
        "flake8": find_flake8("", ""),
        "flake8-rng": find_flake8("RNG", "seedlint"),
        "flake8-tor": find_flake8("TOR", "TorchFix"),
        "torchfix": find_torchfix(),
        "python": Tool("python", [sys.executable], version=platform.python_version()),
    }
    for tool in tools.values():
        state = tool.version if tool.argv else tool.missing
        log(f"tool {tool.name}: {' '.join(tool.argv) if tool.argv else '-'} [{state}]")
    return tools


def build_plan(args: argparse.Namespace, corpus: Path, workdir: Path) -> Plan:
    trees = prepare_trees(args, corpus, workdir)
    tools = find_tools()
    seedlint = tools["seedlint"]
    benches: list[Bench] = []

    cold = ["check", "--no-cache", "--exit-zero", "--output-format", "concise"]
    warm = ["check", "--exit-zero", "--output-format", "concise", "--cache-dir"]
    ruff = ["check", "--no-cache", "--isolated", "--exit-zero", "--output-format", "concise"]

    def add(
        key: str, label: str, group: str, tree: Tree, tool: Tool, argv: list[str], **kw: Any
    ) -> None:
        # Every tool gets the input folder's name as its last argument, run from its parent.
        shown = kw.pop("shown", None) or shown_command(tool.name.split("[")[0], argv)
        base = "seedlint-cold-slice" if group == "slice" else "seedlint-cold"
        bench = Bench(
            key,
            label,
            group,
            tree,
            tool,
            [*argv, tree.name],
            shown=shown + " " + tree.name,
            baseline=base,
            **kw,
        )
        benches.append(bench)

    def flake8(key: str, label: str, group: str, tree: Tree, plugins: str, tool: Tool) -> None:
        select = ",".join(["E999", *([plugins] if plugins else [])])
        env = dict(os.environ, SEEDLINT_BENCH_FLAKE8_PLUGINS=plugins)
        argv = ["--isolated", "--exit-zero", f"--select={select}"]
        add(key, label, group, tree, tool, argv, env=env, shown=shown_command("flake8", argv))

    def fill_cache(bench: Bench) -> None:
        if not bench.status:
            log("filling seedlint's cache for the warm runs")
            execute(bench, workdir, args.timeout, record=False)

    t = trees["corpus"]
    jobs = seedlint
    if seedlint.argv is not None and "--jobs" not in seedlint.help_text:
        jobs = Tool(seedlint.name, None, missing="not available (no --jobs option)")
    cache = str(workdir / "seedlint-cache")
    add("seedlint-cold", "seedlint, cold", "corpus", t, seedlint, cold, compare_findings=True)
    add(
        "seedlint-warm",
        "seedlint, warm cache",
        "corpus",
        t,
        seedlint,
        [*warm, cache],
        shown=shown_command("seedlint", [*warm, "<tmp>"]),
        compare_findings=True,
        prepare=fill_cache,
    )
    add(
        "seedlint-jobs1",
        "seedlint, cold, --jobs 1",
        "corpus",
        t,
        jobs,
        [*cold, "--jobs", "1"],
        compare_findings=True,
    )
    add(
        "ruff-npy002",
        "ruff, NPY002 only",
        "corpus",
        t,
        tools["ruff"],
        [*ruff, "--select", "NPY002"],
    )
    add("ruff-default", "ruff, default rules", "corpus", t, tools["ruff"], ruff)
    if "one" in trees:
        add_one_file(benches, trees["one"], seedlint, workdir, args.timeout)
    flake8("flake8-alone", "flake8 alone", "corpus", t, "", tools["flake8"])
    flake8("flake8-rng", "flake8 + seedlint plugin (RNG)", "corpus", t, "RNG", tools["flake8-rng"])
    python = tools["python"]
    read, parse = ["-c", READ_FLOOR], ["-c", AST_FLOOR]
    add("floor-read", "read every file", "floor", t, python, read, shown="python -c <read>")
    add(
        "floor-ast",
        "ast.parse every file",
        "floor",
        t,
        python,
        parse,
        shown="python -c <ast.parse>",
    )

    if not args.quick:
        s = trees["slice"]
        add("seedlint-cold-slice", "seedlint, cold", "slice", s, seedlint, cold)
        add("torchfix-slice", "TorchFix CLI", "slice", s, tools["torchfix"], [], ok_codes=(0, 1))
        flake8("flake8-alone-slice", "flake8 alone", "slice", s, "", tools["flake8"])
        tor = tools["flake8-tor"]
        flake8("flake8-tor-slice", "flake8 + TorchFix plugin (TOR)", "slice", s, "TOR", tor)
        rng = tools["flake8-rng"]
        flake8("flake8-rng-slice", "flake8 + seedlint plugin (RNG)", "slice", s, "RNG", rng)
        for key in [*(f"1/{step}" for step in GROWTH_STEPS), "generated"]:
            g = trees[key]
            add(f"growth-{key.replace('/', 'of')}", g.label, "growth", g, seedlint, cold)

    if args.only:
        patterns = [p.strip() for p in args.only.split(",") if p.strip()]
        benches = [b for b in benches if any(fnmatch.fnmatch(b.key, p) for p in patterns)]
    return Plan(benches, trees, tools, trees["corpus"])


_EDITS = [0]


def edit_one_file(tree: Tree) -> None:
    """Change ONE_FILE as a commit would (a trailing comment, new at every run, so that no
    earlier run's cache entry matches its content); the file is replaced by a rename, never
    written through its hard link to the corpus."""
    path = tree.parent / tree.name / ONE_FILE
    data = path.read_bytes()
    mark = data.rfind(_EDIT_PREFIX)
    if mark >= 0:
        data = data[:mark]
    _EDITS[0] += 1
    data += _EDIT_PREFIX + str(_EDITS[0]).encode() + b"\n"
    fresh = path.with_name(path.name + ".bench-tmp")
    fresh.write_bytes(data)
    os.replace(fresh, path)


def add_one_file(
    benches: list[Bench], tree: Tree, seedlint: Tool, workdir: Path, timeout: float
) -> None:
    """The pre-commit-style run: ``seedlint check`` naming one changed file, with the cache of
    a run over the whole tree (findings and the project's summaries) in place."""
    cache = str(workdir / "seedlint-cache-one")
    argv = ["check", "--exit-zero", "--output-format", "concise", "--cache-dir", cache]
    target = f"{tree.name}/{ONE_FILE}"
    whole = Bench("seedlint-one-fill", "", "corpus", tree, seedlint, [*argv, tree.name])

    def fill(bench: Bench) -> None:
        if not bench.status:
            log("filling seedlint's cache for the one-file runs")
            execute(whole, workdir, timeout, record=False)

    benches.append(
        Bench(
            "seedlint-one-file",
            "seedlint, one changed file, cache filled",
            "corpus",
            tree,
            seedlint,
            [*argv, target],
            shown=shown_command("seedlint", [*argv[:-1], "<tmp>", target]),
            baseline="seedlint-cold",
            prepare=fill,
            before_each=lambda: edit_one_file(tree),
        )
    )


def run_plan(plan: Plan, args: argparse.Namespace, scratch: Path) -> None:
    benches = plan.benches
    for bench in benches:
        if bench.prepare is not None:
            bench.prepare(bench)
    for warm in range(args.warmup):
        log(f"warm-up {warm + 1}/{args.warmup}")
        for bench in benches:
            execute(bench, scratch, args.timeout, record=False)
    for number in range(args.rounds):
        log(f"round {number + 1}/{args.rounds}")
        shift = number % len(benches) if benches else 0
        for bench in benches[shift:] + benches[:shift]:
            execute(bench, scratch, args.timeout, record=True)


# --------------------------------------------------------------------------------------------
# Reporting


@dataclass
class Target:
    name: str
    measured: str
    goal: str
    result: str  # PASS | FAIL | n/a


def by_key(plan: Plan) -> dict[str, Bench]:
    return {bench.key: bench for bench in plan.benches}


def wall(benches: dict[str, Bench], key: str) -> float | None:
    bench = benches.get(key)
    if bench is None or bench.status or not bench.samples:
        return None
    return bench.median("wall")


def why_missing(benches: dict[str, Bench], *keys: str) -> str:
    for key in keys:
        bench = benches.get(key)
        if bench is None:
            return f"n/a ({key} not run)"
        if bench.status:
            return f"n/a ({key}: {bench.status})"
    return "n/a"


def ratio_target(
    benches: dict[str, Bench], name: str, num: str, den: str, limit: float, at_least: bool
) -> Target:
    a, b = wall(benches, num), wall(benches, den)
    goal = f"{'≥' if at_least else '≤'} {limit:g}×"
    if a is None or b is None or b <= 0:
        return Target(name, "–", goal, why_missing(benches, num, den))
    value = a / b
    passed = value >= limit if at_least else value <= limit
    return Target(name, f"{value:.2f}×", goal, "PASS" if passed else "FAIL")


def compute_targets(plan: Plan) -> tuple[list[Target], dict[str, Any]]:
    benches = by_key(plan)
    targets = [
        ratio_target(
            benches,
            "seedlint cold vs `ruff --select NPY002` (wall)",
            "seedlint-cold",
            "ruff-npy002",
            1.5,
            False,
        ),
        ratio_target(
            benches,
            "seedlint warm vs `ruff --select NPY002` (wall)",
            "seedlint-warm",
            "ruff-npy002",
            0.3,  # issue 11's (the first benchmark's goal was 0.5)
            False,
        ),
        ratio_target(
            benches,
            "flake8 + seedlint plugin vs flake8 alone (wall)",
            "flake8-rng",
            "flake8-alone",
            1.05,
            False,
        ),
        ratio_target(
            benches,
            "TorchFix vs seedlint cold on the 2% slice (wall)",
            "torchfix-slice",
            "seedlint-cold-slice",
            50,
            True,
        ),
    ]
    one = wall(benches, "seedlint-one-file")
    name = "seedlint naming one changed file, cache filled (wall)"
    goal = f"≤ {ONE_FILE_LIMIT_S:g} s"
    if one is None:
        targets.append(Target(name, "–", goal, why_missing(benches, "seedlint-one-file")))
    else:
        passed = "PASS" if one <= ONE_FILE_LIMIT_S else "FAIL"
        targets.append(Target(name, f"{one:.2f} s", goal, passed))
    seedlint_runs = [
        b
        for b in plan.benches
        if b.tool.name == "seedlint" and b.group == "corpus" and not b.status and b.samples
    ]
    if seedlint_runs:
        peak = max(max(s.rss_mb for s in b.samples) for b in seedlint_runs)
        targets.append(
            Target(
                "seedlint peak RSS (largest process, whole-corpus runs)",
                f"{peak:.0f} MB",
                f"< {RSS_LIMIT_MB:.0f} MB",
                "PASS" if peak < RSS_LIMIT_MB else "FAIL",
            )
        )
    else:
        targets.append(
            Target(
                "seedlint peak RSS",
                "–",
                f"< {RSS_LIMIT_MB:.0f} MB",
                why_missing(benches, "seedlint-cold"),
            )
        )
    findings, detail = compare_findings(plan)
    targets.append(findings)
    return targets, detail


def compare_findings(plan: Plan) -> tuple[Target, dict[str, Any]]:
    runs = [b for b in plan.benches if b.compare_findings and not b.status and b.findings]
    name = "findings identical: cold, warm, --jobs 1, default jobs"
    goal = "identical"
    if not runs:
        return Target(name, "–", goal, why_missing(by_key(plan), "seedlint-cold")), {}
    reference = runs[0].findings[0]
    detail: dict[str, Any] = {"reference": runs[0].key, "findings": len(reference)}
    differences: list[str] = []
    examples: list[dict[str, Any]] = []
    for bench in runs:
        for number, findings in enumerate(bench.findings, start=1):
            if findings != reference:
                missing = sorted(set(reference) - set(findings))
                extra = sorted(set(findings) - set(reference))
                differences.append(f"{bench.key} round {number}: -{len(missing)} +{len(extra)}")
                examples.append(
                    {
                        "run": f"{bench.key} round {number}",
                        "missing": missing[:5],
                        "extra": extra[:5],
                    }
                )
    detail["differences"] = differences
    detail["examples"] = examples
    compared = ", ".join(b.key for b in runs)
    if differences:
        measured = f"differ ({'; '.join(differences[:3])})"
        return Target(name, measured, goal, "FAIL"), detail
    measured = f"{len(reference)} findings in every run of {compared}"
    if len(runs) < 3:
        return Target(name, measured, goal, "PASS (partial)"), detail
    return Target(name, measured, goal, "PASS"), detail


def fmt(value: float, digits: int = 2) -> str:
    return f"{value:,.{digits}f}"


def bench_row(bench: Bench, benches: dict[str, Bench]) -> list[str]:
    tree = bench.tree
    assert tree is not None
    cells = [bench.label, f"`{bench.shown}`", f"{tree.files:,}"]
    if bench.status:
        return [*cells, bench.status, "", "", "", "", ""]
    if not bench.samples:
        return [*cells, "not run", "", "", "", "", ""]
    median_wall = bench.median("wall")
    base = wall(benches, bench.baseline)
    ratio = f"{median_wall / base:.2f}×" if base else "n/a"
    return [
        *cells,
        fmt(median_wall),
        fmt(bench.median("cpu")),
        fmt(tree.files / median_wall, 0) if median_wall > 0 else "–",
        fmt(max(s.rss_mb for s in bench.samples), 0),
        f"{bench.samples[-1].output_lines:,}",
        ratio,
    ]


def growth_row(bench: Bench) -> list[str]:
    tree = bench.tree
    assert tree is not None
    cells = [bench.label, f"{tree.files:,}", f"{tree.lines:,}"]
    if bench.status:
        return [*cells, bench.status, "", "", "", ""]
    if not bench.samples:
        return [*cells, "not run", "", "", "", ""]
    median_wall = bench.median("wall")
    return [
        *cells,
        fmt(median_wall),
        fmt(bench.median("cpu")),
        fmt(1000 * median_wall / tree.files, 2),
        fmt(tree.lines / median_wall / 1000, 0) if median_wall > 0 else "–",
        fmt(max(s.rss_mb for s in bench.samples), 0),
    ]


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    return [line(header), "| " + " | ".join("---" for _ in header) + " |", *map(line, rows)]


def interference(plan: Plan) -> str:
    """How much CPU other processes took while the timed runs ran."""
    timed = [x for b in plan.benches for x in b.samples]
    samples = [x for x in timed if x.other_cpu is not None]
    if not samples:
        return "unknown (no timed runs)." if not timed else "unknown (no /proc/stat)."
    other = sum(x.other_cpu or 0.0 for x in samples)
    capacity = sum(x.wall for x in samples) * (os.cpu_count() or 1)
    share = 100 * other / capacity if capacity else 0.0
    verdict = "quiet" if share < 5 else "busy: the timings are noisy"
    return (
        f"other processes used {other:,.1f} CPU-seconds during the timed runs, "
        f"{share:.1f} % of the machine's capacity ({verdict})."
    )


def seedlint_fingerprint() -> str | None:
    """A digest of the importable seedlint package's sources, to notice edits during a run."""
    try:
        spec = importlib.util.find_spec("seedlint")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    digest = hashlib.sha256()
    for location in spec.submodule_search_locations:
        root = Path(location)
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            with contextlib.suppress(OSError):
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def compile_seedlint() -> str:
    """Write the bytecode of the importable seedlint package, as `pip install` does.

    An install from a wheel or an sdist byte-compiles the package, so a user's every run reads
    bytecode. An editable install compiles nothing, and where `PYTHONDONTWRITEBYTECODE` is set
    no run writes it either: each would then compile seedlint's ~80 modules anew (about 0.2 s),
    which a user never pays. `compileall` writes the bytecode whatever that variable says.
    """
    try:
        spec = importlib.util.find_spec("seedlint")
    except (ImportError, ValueError):
        return "seedlint not importable"
    if spec is None or not spec.submodule_search_locations:
        return "seedlint not importable"
    ok = all(
        compileall.compile_dir(location, quiet=1) for location in spec.submodule_search_locations
    )
    return "byte-compiled before timing, as `pip install` does" if ok else "byte-compile failed"


def loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def machine_info() -> dict[str, Any]:
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        model = platform.processor()
    return {
        "load_average": loadavg(),
        "cores": os.cpu_count(),
        "cpu": model,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
    }


def invocation() -> str:
    script = Path(sys.argv[0])
    try:
        shown = script.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        shown = str(script)
    return shlex.join(["python", shown, *sys.argv[1:]])


def clean_version(tool: Tool) -> str:
    """``ruff 0.17.6`` -> ``0.17.6``; flake8's ``--version`` without the interpreter part."""
    text = re.split(r"\s(?:CPython|PyPy)\s", tool.version)[0].strip()
    prefix = tool.name.split("[")[0] + " "
    return text[len(prefix) :] if text.lower().startswith(prefix.lower()) else text


def plugin_version(tool: Tool, package: str) -> str:
    match = re.search(rf"{re.escape(package)}: ([^,)\s]+)", tool.version, re.IGNORECASE)
    return f"{package} {match.group(1)}" if match else package


def source_note(source: dict[str, str | None]) -> list[str]:
    if source["start"] == source["end"]:
        return []
    return [
        "- **Warning:** seedlint's source files changed while the benchmark ran "
        f"({source['start']} → {source['end']}); its rows mix versions.",
    ]


def describe_tools(tools: dict[str, Tool]) -> str:
    def show(key: str, text: str) -> str:
        tool = tools[key]
        return text if tool.argv else f"{text.split(' ')[0]} {tool.missing}"

    parts = [
        show("seedlint", f"seedlint {clean_version(tools['seedlint'])}"),
        show("ruff", f"ruff {clean_version(tools['ruff'])}"),
        show("flake8", f"flake8 {clean_version(tools['flake8'])}"),
        show(
            "flake8-rng", f"flake8 plugin RNG = {plugin_version(tools['flake8-rng'], 'seedlint')}"
        ),
        show(
            "flake8-tor", f"flake8 plugin TOR = {plugin_version(tools['flake8-tor'], 'TorchFix')}"
        ),
        show("torchfix", f"TorchFix {clean_version(tools['torchfix'])} (CLI)"),
    ]
    return "; ".join(parts)


def render(plan: Plan, report: dict[str, Any], targets: Sequence[Target]) -> str:
    benches = by_key(plan)
    machine = report["machine"]
    tree = plan.corpus_tree
    rounds = report["rounds"]
    versions = describe_tools(plan.tools)
    out = [
        START_MARKER,
        "",
        f"Generated by `{report['command']}` on {report['date']}.",
        "",
        f"- Machine: {machine['cores']} cores ({machine['cpu'] or 'unknown CPU'}), "
        f"{machine['platform']}, Python {machine['python']}.",
        f"- Other load: {report['interference']}",
        *source_note(report["seedlint_source"]),
        f"- Corpus: {tree.files:,} files, {tree.lines:,} lines, {tree.size / 1e6:.1f} MB "
        f"(`{report['corpus']}`).",
        f"- Method: {report['warmup']} warm-up run(s), then {rounds} round(s) with the tools "
        "alternating; medians of wall and CPU (user+sys of the process tree) seconds; peak RSS "
        "is the largest single process (`ru_maxrss`), the maximum over the rounds; seedlint "
        f"{report.get('seedlint_bytecode', 'bytecode as found')}.",
        f"- Tools: {versions}.",
        "",
        "### Targets",
        "",
        *table(
            ["target", "measured", "goal", "result"],
            [[t.name, t.measured, t.goal, t.result] for t in targets],
        ),
    ]
    header = [
        "tool",
        "command",
        "files",
        "wall s",
        "CPU s",
        "files/s",
        "peak RSS MB",
        "output lines",
        "× seedlint cold",
    ]
    for group, title in (
        ("corpus", "### Whole corpus"),
        ("floor", "### Floors (one process, whole corpus)"),
        ("slice", "### The 2% slice (every 50th file), for TorchFix"),
    ):
        rows = [bench_row(b, benches) for b in plan.benches if b.group == group]
        if rows:
            out += ["", title, "", *table(header, rows)]
    growth = [b for b in plan.benches if b.group == "growth"]
    if growth:
        rows = [growth_row(b) for b in growth]
        cold = benches.get("seedlint-cold")
        if cold is not None:
            whole = growth_row(cold)
            whole[0] = "whole corpus"
            rows.insert(len(GROWTH_STEPS), whole)
        out += [
            "",
            "### Growth (seedlint, cold, default jobs)",
            "",
            *table(
                [
                    "input",
                    "files",
                    "lines",
                    "wall s",
                    "CPU s",
                    "ms/file",
                    "k lines/s",
                    "peak RSS MB",
                ],
                rows,
            ),
        ]
    out += ["", END_MARKER]
    return "\n".join(out) + "\n"


def write_markdown(path: Path, block: str) -> None:
    if path.exists():
        text = path.read_text(encoding="utf-8")
        start, end = text.find(START_MARKER), text.find(END_MARKER)
        if start != -1 and end > start:
            text = text[:start] + block.rstrip("\n") + text[end + len(END_MARKER) :]
        else:
            text = text.rstrip("\n") + "\n\n" + block
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "# seedlint performance\n\n" + block
    path.write_text(text, encoding="utf-8")


def bench_json(bench: Bench, benches: dict[str, Bench]) -> dict[str, Any]:
    tree = bench.tree
    assert tree is not None
    data: dict[str, Any] = {
        "key": bench.key,
        "label": bench.label,
        "group": bench.group,
        "tool": bench.tool.name,
        "command": bench.shown,
        "argv": bench.argv if bench.tool.argv else None,
        "input": {"label": tree.label, "files": tree.files, "lines": tree.lines},
        "status": bench.status or "ok",
        "samples": [vars(s) for s in bench.samples],
    }
    if bench.samples and not bench.status:
        median_wall = bench.median("wall")
        base = wall(benches, bench.baseline)
        data.update(
            wall_median=median_wall,
            cpu_median=bench.median("cpu"),
            rss_mb_max=max(s.rss_mb for s in bench.samples),
            files_per_s=tree.files / median_wall if median_wall > 0 else None,
            ratio_to=bench.baseline,
            ratio=median_wall / base if base else None,
        )
    return data


# --------------------------------------------------------------------------------------------
# Main


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time seedlint against ruff, flake8, TorchFix and the I/O and parse floors."
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of .py files")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (default 3)")
    parser.add_argument("--warmup", type=int, default=1, help="warm-up rounds (default 1)")
    parser.add_argument("--quick", action="store_true", help="skip TorchFix and growth")
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help="markdown file to fill in"
    )
    parser.add_argument("--json", type=Path, default=None, help="raw results (default: results/)")
    parser.add_argument(
        "--only", default="", help="comma-separated bench keys / glob patterns to run"
    )
    parser.add_argument(
        "--timeout", type=float, default=3600.0, help="seconds before a run is killed"
    )
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.warmup < 0:
        parser.error("--rounds must be at least 1 and --warmup at least 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    corpus: Path = args.corpus.resolve()
    if not corpus.is_dir():
        log(f"no corpus at {corpus}; build it with: python bench/build_corpus.py")
        return 2
    signal.signal(signal.SIGTERM, raise_interrupt)  # clean up the temporary folder
    started = dt.datetime.now(dt.timezone.utc)
    fingerprint = seedlint_fingerprint()
    bytecode = compile_seedlint()
    machine = machine_info()
    cores = machine["cores"] or 1
    if machine["load_average"] and machine["load_average"][0] > 0.5 * cores:
        load1 = machine["load_average"][0]
        log(f"warning: load average {load1} on {cores} cores: timings will be noisy")
    try:
        with tempfile.TemporaryDirectory(prefix="seedlint-bench-") as tmp:
            workdir = Path(tmp)
            plan = build_plan(args, corpus, workdir)
            scratch = workdir / "scratch"
            scratch.mkdir()
            run_plan(plan, args, scratch)
    except KeyboardInterrupt:
        log("interrupted; nothing written")
        return 130
    fingerprint_end = seedlint_fingerprint()
    if fingerprint != fingerprint_end:
        log("warning: seedlint's source files changed during the run")
    targets, findings = compute_targets(plan)
    try:
        shown_corpus = corpus.relative_to(REPO_DIR).as_posix()
    except ValueError:
        shown_corpus = str(corpus)
    benches = by_key(plan)
    report: dict[str, Any] = {
        "command": invocation(),
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "started": started.isoformat(),
        "machine": machine,
        "load_average_end": loadavg(),
        "interference": interference(plan),
        "seedlint_source": {"start": fingerprint, "end": fingerprint_end},
        "seedlint_bytecode": bytecode,
        "corpus": shown_corpus,
        "rounds": args.rounds,
        "warmup": args.warmup,
        "quick": args.quick,
        "tools": {
            name: {
                "argv": tool.argv,
                "version": tool.version,
                "missing": tool.missing or None,
            }
            for name, tool in plan.tools.items()
        },
        "inputs": {
            key: {"label": t.label, "files": t.files, "lines": t.lines, "bytes": t.size}
            for key, t in plan.trees.items()
        },
        "benches": [bench_json(b, benches) for b in plan.benches],
        "targets": [vars(t) for t in targets],
        "findings_check": findings,
    }
    block = render(plan, report, targets)
    output: Path = args.output
    write_markdown(output, block)
    log(f"wrote {output}")
    json_path: Path = args.json or RESULTS_DIR / f"{started.strftime('%Y%m%dT%H%M%SZ')}.json"
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", "utf-8")
    log(f"wrote {json_path}")
    print(block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
