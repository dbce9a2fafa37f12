"""How seedlint's cost grows: check, json output and --fix at 1x, 4x and 16x.

Not a timed test: run it by hand (``python bench/scale.py``, about a minute at the default
sizes on one core) and read the table. Two series of generated files:

* ``findings``: one file of N ``DataLoader(..., shuffle=True)`` calls (N RNG001 findings, one
  fix each), N = base, 4 x base, 16 x base;
* ``lines``: one finding in a file of N lines of plain code;
* ``files``: N small files with one finding each.

Each command runs in a fresh process (``python -m seedlint check --no-cache -j 1``); its wall
time and peak resident memory (``os.wait4``) are printed. Linear cost means the time of each
column grows about 4x per row, and ``--fix`` stays within 20x of ``check`` on the same input.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAD = "import torch\nfrom torch.utils.data import DataLoader\n\n"


def findings_file(count: int) -> str:
    calls = (
        f"loader_{i} = DataLoader(range({i}), batch_size=2, shuffle=True)\n\n" for i in range(count)
    )
    return HEAD + "".join(calls)


def lines_file(count: int) -> str:
    body = "".join(f"value_{i} = {i} * 2 + len('text')\n" for i in range(count))
    return HEAD + "loader = DataLoader(range(8), shuffle=True)\n" + body


def run(args: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of one seedlint run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")}
    command = [sys.executable, "-m", "seedlint", "check", "--no-cache", "-j", "1", *args]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=out)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read().decode(errors="replace")
    if proc.returncode not in (0, 1) or "internal error" in output or "RNG000" in output:
        raise SystemExit(f"{command}: exit {proc.returncode}: {output[-2000:]}")
    peak = usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / 2**20
    return elapsed, peak


def measure(folder: Path, files: dict[str, str]) -> list[str]:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    lines = sum(text.count("\n") for text in files.values())
    cells = [f"{lines:>9,}", f"{len(files):>6,}"]
    check_time, check_peak = run(["--output-format", "concise", "."], folder)
    json_time, json_peak = run(["--output-format", "json", "."], folder)
    fix_time, fix_peak = run(["--fix", "--output-format", "concise", "."], folder)
    cells += [
        f"{check_time:>7.2f}s {check_peak:>6.0f}M",
        f"{json_time:>7.2f}s {json_peak:>6.0f}M",
        f"{fix_time:>7.2f}s {fix_peak:>6.0f}M",
        f"{fix_time / max(check_time, 1e-9):>6.1f}x",
    ]
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--findings", type=int, default=625, help="1x findings in one file")
    parser.add_argument("--lines", type=int, default=15_625, help="1x lines with one finding")
    parser.add_argument("--files", type=int, default=100, help="1x files, one finding each")
    parser.add_argument("--scales", default="1,4,16")
    parser.add_argument("--series", default="findings,lines,files")
    options = parser.parse_args()
    scales = [int(s) for s in options.scales.split(",")]
    header = f"{'series':<9} {'scale':>5} {'lines':>9} {'files':>6} {'findings':>8}  "
    header += f"{'check':>15}  {'json':>15}  {'--fix':>15}  {'fix/check':>8}"
    print(header)
    with tempfile.TemporaryDirectory(prefix="seedlint-scale-") as temp:
        root = Path(temp)
        for series in options.series.split(","):
            for scale in scales:
                if series == "findings":
                    count = options.findings * scale
                    files, findings = {"many.py": findings_file(count)}, count
                elif series == "lines":
                    files, findings = {"long.py": lines_file(options.lines * scale)}, 1
                else:
                    count = options.files * scale
                    files = {f"f{i}.py": findings_file(1) for i in range(count)}
                    findings = count
                cells = measure(root / f"{series}-{scale}", files)
                print(
                    f"{series:<9} {scale:>4}x {cells[0]} {cells[1]} {findings:>8,}  "
                    + "  ".join(cells[2:]),
                    flush=True,
                )


if __name__ == "__main__":
    main()
