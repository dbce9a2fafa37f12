"""``seedlint verify``: run the user's program twice (or more) and show which random stream made
the runs differ.

This is the one part of seedlint that runs the user's code, and only when asked. The checker
never imports torch; the program does, with a small tracer preloaded (``tracer.py``, which
imports nothing of seedlint). Exit codes: 0 every random stream matches, 1 one differs, 2 the
program failed (its stderr is shown) or bad usage.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from typing import Any, Optional

from seedlint.verify.compare import Finding, Result, compare
from seedlint.verify.runner import ProgramError, run_all

FORMATS = ("full", "concise", "json")
DETERMINISM = (
    "`torch.use_deterministic_algorithms(True)`, `CUBLAS_WORKSPACE_CONFIG=:4096:8` (CUDA), "
    "`torch.backends.cudnn.benchmark = False`, and fixed thread counts "
    "(`torch.set_num_threads`, `num_workers`)"
)


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        raise _UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="seedlint verify",
        description=(
            "Run a program N times, each with a tracer that records every random stream, and "
            "show the first draw at which a stream differs. This RUNS the program: only use it "
            "on code you would run yourself."
        ),
        usage="seedlint verify [options] -- python train.py ARGS... | -- -m module ARGS...",
    )
    parser.add_argument(
        "--runs", type=int, default=2, metavar="N", help="how many runs to compare (>= 2)"
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        metavar="K",
        help="stop each run after K batches from its loaders",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        metavar="S",
        help="seconds each run may take (default 600)",
    )
    parser.add_argument("--output-format", choices=FORMATS, default="full", help="report format")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if "--" in args_list:
        split = args_list.index("--")
        options, program = args_list[:split], args_list[split + 1 :]
    else:
        options, program = args_list, []
    try:
        args = build_parser().parse_args(options)
        if not program:
            raise _UsageError("give the program after `--`: seedlint verify -- python train.py")
        if args.runs < 2:
            raise _UsageError("--runs must be at least 2")
        if args.steps is not None and args.steps < 1:
            raise _UsageError("--steps must be at least 1")
        if args.timeout <= 0:
            raise _UsageError("--timeout must be positive")
    except _UsageError as error:
        print(f"seedlint: error: {error}", file=sys.stderr)
        return 2
    try:
        runs = run_all(program, args.runs, args.steps, args.timeout)
    except ProgramError as error:
        print(f"seedlint: error: {error}", file=sys.stderr)
        if error.stderr.strip():
            print(error.stderr.rstrip("\n")[-8000:], file=sys.stderr)
        return 2
    result = compare(runs, static_check)
    text = render(result, args.output_format, args.steps)
    sys.stdout.write(text)
    return 0 if result.streams_match else 1


def static_check(codes: list[str], paths: list[str]) -> set[tuple[str, str]]:
    """The (code, path) pairs that ``seedlint check`` reports for these files (in a separate
    process, the way a user runs it, with the user's configuration)."""
    command = [sys.executable, "-m", "seedlint", "check", "--no-cache", "--exit-zero"]
    command += ["--output-format", "json", "--select", ",".join(codes), *paths]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        reported = json.loads(done.stdout or "[]")
    except (OSError, ValueError, subprocess.SubprocessError):
        return set()
    by_path = {os.path.abspath(path): path for path in paths}
    found = set()
    for item in reported:
        path = by_path.get(os.path.abspath(str(item.get("filename", ""))))
        if path is not None:
            found.add((str(item.get("code")), path))
    return found


def _line(finding: Finding, with_fix: bool) -> str:
    where = f"{finding.path}:{finding.line}" if finding.line else (finding.path or "?")
    text = f"{finding.code or '-'} {where}: {finding.message}"
    return f"{text}; {finding.fix}" if with_fix else text


def _stream_count(result: Result) -> int:
    return len({key for run in result.runs for key in run.streams})


def render(result: Result, output_format: str, steps: Optional[int]) -> str:
    if output_format == "json":
        return json.dumps(as_json(result, steps), indent=2) + "\n"
    lines: list[str] = []
    for finding in result.findings:
        lines.append(_line(finding, output_format == "concise"))
        if output_format == "full":
            lines.append(f"  stream: {_describe(finding)}")
            here = f"{finding.path}:{finding.line}"
            if finding.site and finding.site not in (finding.created, here):
                lines.append(f"  first differing draw: step {finding.step} at {finding.site}")
            lines.append(f"  help: {finding.fix}")
    runs = len(result.runs)
    traced = _stream_count(result)
    if result.findings:
        n = len(result.findings)
        streams, verb = ("stream", "differs") if n == 1 else ("streams", "differ")
        lines.append(
            f"Found {n} random {streams} that {verb} between the {runs} runs ({traced} traced)."
        )
    else:
        streams = "stream" if traced == 1 else "streams"
        lines.append(f"The {runs} runs match: {traced} random {streams} traced, none differs.")
        if not result.outputs_match:
            lines.append(
                f"note: but what the program computes differs: {result.output_difference}. "
                "That does not come from seeding but from nondeterministic kernels, thread "
                "scheduling or inputs other than random streams (the time, files); the switches "
                f"for the first two: {DETERMINISM}."
            )
    if steps is not None and any(run.stopped for run in result.runs):
        lines.append(f"(each run was stopped after {steps} batches: --steps {steps})")
    return "\n".join(lines) + "\n"


NAMES = {
    "torch": "torch's global CPU generator",
    "random": "Python's `random`",
    "np.random": "`np.random` (the legacy global generator)",
    "cuda": "a CUDA generator",
}


def _describe(finding: Finding) -> str:
    text = NAMES.get(finding.stream, finding.stream)
    if finding.created:
        text += f" created at {finding.created}"
    if finding.workers:
        ids = " and ".join(str(i) for i in finding.workers)
        text += f", in DataLoader worker{'s' if len(finding.workers) > 1 else ''} {ids}"
    return text


def as_json(result: Result, steps: Optional[int]) -> dict[str, Any]:
    streams = []
    keys = sorted({key for run in result.runs for key in run.streams})
    differing = {f.stream_type for f in result.findings}
    for key in keys:
        meta = next(run.streams[key] for run in result.runs if key in run.streams)
        streams.append(
            {
                "stream": key,
                "type": meta.get("type"),
                "created": meta.get("created"),
                "worker": meta.get("worker"),
            }
        )
    return {
        "runs": len(result.runs),
        "steps": steps,
        "stopped": any(run.stopped for run in result.runs),
        "match": result.streams_match,
        "findings": [
            {
                "code": f.code,
                "stream": f.stream,
                "filename": f.path,
                "line": f.line,
                "created": f.created,
                "step": f.step,
                "site": f.site,
                "run": f.run,
                "worker": f.worker,
                "workers": f.workers,
                "message": f.message,
                "fix": f.fix,
            }
            for f in result.findings
        ],
        "streams": streams,
        "differing_types": sorted(differing),
        "outputs_match": result.outputs_match,
        "output_difference": result.output_difference,
        "tracer_seedlint_modules": sorted({m for run in result.runs for m in run.seedlint_modules}),
    }
