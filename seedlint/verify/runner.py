"""Running the user's program N times, each with the tracer preloaded, and reading what it wrote.

The tracer goes in through a temporary folder put in front of the child's ``PYTHONPATH``: a
``sitecustomize.py`` that starts it (and then runs the user's own ``sitecustomize``, if any) and
a copy of :mod:`seedlint.verify.tracer`. Nothing of the user's files changes, and nothing of
seedlint is imported into the program.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from seedlint.verify import tracer

BOOTSTRAP = '''"""seedlint verify's bootstrap: trace this run, then run any other sitecustomize."""
import os
import sys

import _seedlint_tracer

_seedlint_tracer.start()

_here = os.path.dirname(os.path.abspath(__file__))
_others = [p for p in sys.path if os.path.abspath(p or ".") != _here]
try:
    import importlib.machinery
    import importlib.util

    _spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _others)
    if _spec is not None and _spec.loader is not None:
        _module = importlib.util.module_from_spec(_spec)
        sys.modules["sitecustomize"] = _module
        _spec.loader.exec_module(_module)
except ImportError:
    pass
'''


class ProgramError(Exception):
    """The program could not be run, failed, or ran past the timeout (exit 2)."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


@dataclass
class Run:
    """One run's record: the main process's streams and events, and each worker's."""

    number: int
    streams: dict[str, dict[str, Any]] = field(default_factory=dict)
    # (order key, stream, kind, site, digest); the order key sorts events in run order
    events: list[tuple[tuple[int, int, int], str, str, Optional[str], str]] = field(
        default_factory=list
    )
    outputs: dict[str, list[str]] = field(default_factory=dict)
    stdout: str = ""
    batches: int = 0
    stopped: bool = False
    seedlint_modules: list[str] = field(default_factory=list)


def command_line(program: Sequence[str]) -> list[str]:
    """The command to run: ``-m module ...`` and ``script.py ...`` run with this Python."""
    if not program:
        raise ProgramError("no program given: seedlint verify -- python train.py ARGS...")
    first = program[0]
    if first == "-m" or first.endswith(".py"):
        return [sys.executable, *program]
    return list(program)


def make_bootstrap(folder: Path) -> None:
    (folder / "sitecustomize.py").write_text(BOOTSTRAP, encoding="utf-8")
    shutil.copyfile(tracer.__file__, folder / "_seedlint_tracer.py")


def run_all(
    program: Sequence[str], runs: int, steps: Optional[int], timeout: Optional[float]
) -> list[Run]:
    argv = command_line(program)
    with tempfile.TemporaryDirectory(prefix="seedlint-verify-") as temp:
        root = Path(temp)
        boot = root / "boot"
        boot.mkdir()
        make_bootstrap(boot)
        records = []
        for number in range(1, runs + 1):
            folder = root / f"run-{number}"
            folder.mkdir()
            records.append(run_once(argv, number, boot, folder, steps, timeout))
        return records


def run_once(
    argv: list[str],
    number: int,
    boot: Path,
    folder: Path,
    steps: Optional[int],
    timeout: Optional[float],
) -> Run:
    env = dict(os.environ)
    paths = [str(boot)]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env[tracer.DIR_ENV] = str(folder)
    env.pop(tracer.STEPS_ENV, None)
    if steps is not None:
        env[tracer.STEPS_ENV] = str(steps)
    try:
        process = subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
        )
    except OSError as error:
        raise ProgramError(f"cannot run `{argv[0]}`: {error.strerror or error}") from error
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        stdout, stderr = process.communicate()
        raise ProgramError(
            f"run {number} did not finish within {timeout:g} s (--timeout); "
            "--steps K stops it after K batches",
            stderr,
        ) from None
    except KeyboardInterrupt:
        _kill(process)
        raise
    if process.returncode != 0:
        raise ProgramError(
            f"run {number} of the program failed (exit code {process.returncode})", stderr
        )
    return read_run(number, folder, stdout, stderr)


def _kill(process: subprocess.Popen[str]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        process.kill()


def read_run(number: int, folder: Path, stdout: str, stderr: str) -> Run:
    main = folder / "main.json"
    if not main.is_file():
        raise ProgramError(
            f"run {number} ended without the tracer's record: the program skipped "
            "`sitecustomize` (python -S, -I or -E), ignored PYTHONPATH, or left through os._exit",
            stderr,
        )
    data = json.loads(main.read_text(encoding="utf-8"))
    run = Run(
        number=number,
        streams=dict(data["streams"]),
        outputs={k: list(v) for k, v in data["outputs"].items()},
        stdout=stdout,
        batches=int(data["batches"]),
        stopped=bool(data["stopped"]),
        seedlint_modules=list(data.get("seedlint_modules", [])),
    )
    for seq, key, kind, site, digest in data["events"]:
        run.events.append(((seq, -1, 0), key, kind, site, digest))
    for path in sorted(folder.glob("worker-*.jsonl")):
        _read_worker(run, path)
    run.events.sort(key=lambda event: event[0])
    return run


def _read_worker(run: Run, path: Path) -> None:
    order = (0, 0)
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:  # a worker stopped in the middle of a line
            break
        if "worker" in record:
            worker = record["worker"]
            order = (int(record["seq"]), int(worker["id"] or 0))
            continue
        run.streams.update(record["streams"])
        for seq, key, kind, site, digest in record["events"]:
            run.events.append(((order[0], order[1], seq), key, kind, site, digest))
