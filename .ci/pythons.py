"""The interpreters on this machine, other than the one running this, whose version the
project's ``requires-python`` claims: one path per line, newest last (for .ci/run)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

from packaging.specifiers import SpecifierSet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def candidates(minor: int) -> list[str]:
    """Where ``python3.<minor>`` may be: on PATH, or installed by pyenv (whose shims refuse a
    version that is not selected)."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = [shutil.which(f"python3.{minor}") or ""]
    found += sorted(glob.glob(f"{root}/versions/3.{minor}.*/bin/python3.{minor}"), reverse=True)
    found += [f"/usr/bin/python3.{minor}", f"/usr/local/bin/python3.{minor}"]
    return [path for path in found if path]


def works(path: str, minor: int) -> bool:
    try:
        result = subprocess.run(
            [path, "-c", "import sys, venv; print(sys.version_info[1])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0 and result.stdout.strip() == str(minor)


def main() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    claimed = SpecifierSet(project["requires-python"])
    for minor in range(6, 20):
        if minor == sys.version_info[1] or f"3.{minor}" not in claimed:
            continue
        path = next((p for p in candidates(minor) if works(p, minor)), None)
        if path is not None:
            print(path)


if __name__ == "__main__":
    main()
