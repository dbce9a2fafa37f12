"""How seedlint's cost grows: check, json output and --fix at 1x, 4x and 16x.

Not a timed test: run it by hand (``python bench/scale.py``, about a minute at the default
sizes on one core) and read the table. Two series of generated files:

* ``findings``: one file of N ``DataLoader(..., shuffle=True)`` calls (N RNG001 findings, one
  fix each), N = base, 4 x base, 16 x base;
* ``inserts``: the same with ``DataLoader(..., num_workers=2)`` calls (N RNG002 findings,
  whose fix inserts a shared ``seed_worker`` function and ``import random``);
* ``lines``: one finding in a file of N lines of plain code;
* ``files``: N small files with one finding each.

Each command runs in a fresh process (``python -m seedlint check --no-cache -j 1``); its wall
time and peak resident memory (``os.wait4``) are printed, then for each series the growth of
each column from one scale to the next (``x4.1`` means 4.1 times the time of the scale before).
Linear cost means about 4x per step (quadratic would be 16x), and ``--fix`` stays within 20x of
``check`` on the same input.

``--million`` also checks two generated modules of 1,000,000 lines (the issue's target: peak
RSS under 1.5 GB): ``dense``, the ``lines`` series' statements (``value_i = i * 2 +
len('text')``, 13 ``ast`` nodes a line), and ``realistic``, ``bench/run.py``'s generated module
(functions, classes, DataLoaders, seeding calls, blank lines). ``--million-only`` runs just
those. Markdown tables (``--markdown``) are what docs/performance.md shows.
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


def inserts_file(count: int) -> str:
    """N ``DataLoader(..., num_workers=2)`` calls: N RNG002 findings whose fix inserts code
    (a shared ``seed_worker`` function and ``import random``) besides its own argument."""
    calls = (f"loader_{i} = DataLoader(range({i}), num_workers=2)\n\n" for i in range(count))
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


Figures = dict[str, tuple[float, float]]  # command -> (seconds, peak MiB)
COMMANDS = {
    "check": ["--output-format", "concise", "."],
    "json": ["--output-format", "json", "."],
    "--fix": ["--fix", "--output-format", "concise", "."],
}


def measure(folder: Path, files: dict[str, str], commands: dict[str, list[str]]) -> Figures:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return {name: run(args, folder) for name, args in commands.items()}


def cell(figure: tuple[float, float]) -> str:
    return f"{figure[0]:.2f} s, {figure[1]:,.0f} MB"


def million(root: Path, markdown: bool) -> None:
    """Check two 1,000,000-line modules (dense and realistic) and print time and peak RSS."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run import generate_module  # bench/run.py's generated module

    rows = []
    for name, text in (
        ("dense", lines_file(1_000_000 - HEAD.count("\n") - 1)),
        ("realistic", generate_module(1_000_000)),
    ):
        figures = measure(root / f"million-{name}", {"big.py": text}, {"check": COMMANDS["check"]})
        seconds, peak = figures["check"]
        verdict = "PASS" if peak < 1536 else "FAIL"
        rows.append((name, text.count("\n"), len(text), seconds, peak, verdict))
        del text
    if markdown:
        print("\n| module | lines | MB | check | peak RSS | < 1.5 GB |")
        print("| --- | --- | --- | --- | --- | --- |")
        for name, count, size, seconds, peak, verdict in rows:
            print(
                f"| {name} | {count:,} | {size / 1e6:.1f} | {seconds:.1f} s | {peak:,.0f} MB "
                f"| {verdict} |"
            )
    else:
        for name, count, size, seconds, peak, verdict in rows:
            print(
                f"1M-line check, {name:<9} {count:>9,} lines {size / 1e6:6.1f} MB: "
                f"{seconds:7.1f} s {peak:8,.0f} MB peak  {verdict} (< 1.5 GB)",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--findings", type=int, default=625, help="1x findings in one file")
    parser.add_argument("--lines", type=int, default=15_625, help="1x lines with one finding")
    parser.add_argument("--files", type=int, default=100, help="1x files, one finding each")
    parser.add_argument("--scales", default="1,4,16")
    parser.add_argument("--series", default="findings,inserts,lines,files")
    parser.add_argument("--commands", default="check,json,--fix", help="of check,json,--fix")
    parser.add_argument("--million", action="store_true", help="also the 1M-line checks")
    parser.add_argument("--million-only", action="store_true", help="only the 1M-line checks")
    parser.add_argument("--markdown", action="store_true", help="markdown tables")
    options = parser.parse_args()
    scales = [int(s) for s in options.scales.split(",")]
    commands = {name: COMMANDS[name] for name in options.commands.split(",")}
    with tempfile.TemporaryDirectory(prefix="seedlint-scale-") as temp:
        root = Path(temp)
        if not options.million_only:
            series_table(root, options, scales, commands)
        if options.million or options.million_only:
            million(root, options.markdown)


def series_table(
    root: Path, options: argparse.Namespace, scales: list[int], commands: dict[str, list[str]]
) -> None:
    names = list(commands)
    if options.markdown:
        print("| series | scale | lines | files | findings | " + " | ".join(names), end="")
        print(" | fix/check |" if "--fix" in names and "check" in names else " |")
        print("| --- " * (5 + len(names) + ("--fix" in names and "check" in names)) + "|")
    else:
        header = f"{'series':<9} {'scale':>5} {'lines':>9} {'files':>6} {'findings':>8}  "
        header += "  ".join(f"{name:>17}" for name in names)
        print(header + ("  fix/check" if "--fix" in names and "check" in names else ""))
    growth: list[str] = []
    for series in options.series.split(","):
        previous: Figures = {}
        steps: dict[str, list[float]] = {name: [] for name in names}
        for scale in scales:
            if series in ("findings", "inserts"):
                count = options.findings * scale
                make = findings_file if series == "findings" else inserts_file
                files, findings = {"many.py": make(count)}, count
            elif series == "lines":
                files, findings = {"long.py": lines_file(options.lines * scale)}, 1
            else:
                count = options.files * scale
                files = {f"f{i}.py": findings_file(1) for i in range(count)}
                findings = count
            lines = sum(text.count("\n") for text in files.values())
            figures = measure(root / f"{series}-{scale}", files, commands)
            ratio = ""
            if "--fix" in figures and "check" in figures:
                ratio = f"{figures['--fix'][0] / max(figures['check'][0], 1e-9):.1f}x"
            for name in names:
                if previous:
                    steps[name].append(figures[name][0] / max(previous[name][0], 1e-9))
            previous = figures
            if options.markdown:
                cells = [series, f"{scale}x", f"{lines:,}", f"{len(files):,}", f"{findings:,}"]
                cells += [cell(figures[name]) for name in names] + ([ratio] if ratio else [])
                print("| " + " | ".join(cells) + " |", flush=True)
            else:
                print(
                    f"{series:<9} {scale:>4}x {lines:>9,} {len(files):>6,} {findings:>8,}  "
                    + "  ".join(f"{figures[n][0]:>7.2f}s {figures[n][1]:>6.0f}M" for n in names)
                    + (f"  {ratio:>9}" if ratio else ""),
                    flush=True,
                )
        per_step = ", ".join(
            f"{name} " + " then ".join(f"x{step:.1f}" for step in steps[name]) for name in names
        )
        growth.append(f"{series}: time growth per scale step: {per_step}")
    print()
    for line in growth:
        print(("- " if options.markdown else "") + line)


if __name__ == "__main__":
    main()
