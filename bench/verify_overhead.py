"""The tracer's overhead: one traced run of each example against one plain run of it.

``seedlint verify`` runs the program N times with its tracer preloaded; the target is that a
traced run costs at most 10% more than a plain run of the same program. This script runs each
example under ``examples/verify/`` (and ``examples/train.py``) alternately plain and traced,
``--repeat`` times each, whole (no ``--steps``), and prints the median wall and CPU seconds
(user + system of the process and its DataLoader workers, from ``os.wait4``) and their ratio.
It is a benchmark, not a test: timings on a shared machine vary, so it is run by hand
(``python bench/verify_overhead.py``) and its numbers go in docs/verify.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from seedlint.verify import runner, tracer  # noqa: E402

EXAMPLES = [
    "examples/verify/unseeded.py",
    "examples/verify/seeded.py",
    "examples/verify/dataset_rng.py",
    "examples/verify/workers.py",
    "examples/train.py",
]


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    start = time.perf_counter()
    process = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {process.stderr.read().decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each kind per example")
    parser.add_argument("examples", nargs="*", default=EXAMPLES)
    args = parser.parse_args()
    plain_env = {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_VERIFY")}
    print(
        f"| example | plain wall s | traced wall s | wall ratio | plain CPU s | traced CPU s "
        f"| CPU ratio |  (median of {args.repeat})"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="seedlint-verify-bench-") as temp:
        boot = Path(temp) / "boot"
        boot.mkdir()
        runner.make_bootstrap(boot)
        for example in args.examples:
            argv = [sys.executable, example]
            plain: list[tuple[float, float]] = []
            traced: list[tuple[float, float]] = []
            for repeat in range(args.repeat):
                folder = Path(temp) / f"{Path(example).stem}-{repeat}"
                folder.mkdir()
                env = dict(plain_env)
                env["PYTHONPATH"] = os.pathsep.join(
                    p for p in (str(boot), plain_env.get("PYTHONPATH", "")) if p
                )
                env[tracer.DIR_ENV] = str(folder)
                plain.append(timed(argv, plain_env))
                traced.append(timed(argv, env))
                if not (folder / "main.json").is_file():
                    raise SystemExit(f"{example}: the traced run wrote no record")
            pw = statistics.median(w for w, _ in plain)
            tw = statistics.median(w for w, _ in traced)
            pc = statistics.median(c for _, c in plain)
            tc = statistics.median(c for _, c in traced)
            worst = max(worst, tc / pc)
            print(
                f"| {example} | {pw:.2f} | {tw:.2f} | {tw / pw:.3f} | {pc:.2f} | {tc:.2f} "
                f"| {tc / pc:.3f} |"
            )
    print(f"worst CPU ratio {worst:.3f} (target <= 1.10)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
