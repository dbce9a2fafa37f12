"""Smoke test of bench/lsp_latency.py on a small file: the three sessions and the in-process
mode run and report (the figures themselves are not tested)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "bench" / "lsp_latency.py"
ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")},
    "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
}


def run(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--lines", "120", *args],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=REPO,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_three_sessions_report() -> None:
    out = run("--changes", "2", "--warmup", "0", "--pause", "0.12", "--gap", "0.01")
    for label in ("debounce off", "after a pause", "burst of 5"):
        (line,) = [x for x in out.splitlines() if x.startswith(f"{label}:")]
        assert "findings; didChange -> publishDiagnostics median" in line
        assert "over 2 changes" in line and "fix-all (request + resolve) median" in line
        assert "code actions at the cursor after each change median" in line


def test_in_process() -> None:
    out = run("--in-process", "2")
    assert "in process (" in out and str(REPO / "seedlint" / "server.py") in out
    assert "diagnostics; lint CPU median" in out and "over 2 changes" in out
