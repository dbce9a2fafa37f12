"""``scripts/fuzz --volume N --workers K``: the volume run split over K processes, with a time
bound, its figures added up (programs, crashes, minutes, programs a minute)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
FUZZ = ROOT / "scripts" / "fuzz"


def fuzz(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, str(FUZZ), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp,
        timeout=600,
    )


def test_volume_over_two_processes(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    proc = fuzz(
        "--volume", "12", "--workers", "2", "--batch", "3", "--minutes", "5",
        "--only", "loader_programs_check", "--logs", str(logs), tmp=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "over 2 processes" in proc.stdout
    programs = int(re.search(r"^programs: (\d+)$", proc.stdout, re.MULTILINE)[1])  # type: ignore[index]
    assert programs >= 12
    assert re.search(r"^crashes: 0$", proc.stdout, re.MULTILINE)
    assert re.search(r"^programs a minute: \d+$", proc.stdout, re.MULTILINE)
    worker_logs = sorted(p.name for p in logs.iterdir())
    assert worker_logs == ["worker-0.log", "worker-1.log"]
    for log in logs.iterdir():  # each worker ran the loader and the notebook programs
        text = log.read_text()
        assert "notebook programs: " in text and "loader programs: " in text, text


def test_workers_must_be_positive(tmp_path: Path) -> None:
    proc = fuzz("--volume", "5", "--workers", "0", tmp=tmp_path)
    assert proc.returncode == 2 and "--workers" in proc.stderr
