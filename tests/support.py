"""Running the real command line in a subprocess, the one way every test file does it."""

from __future__ import annotations

import ast
import copy
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def run_seedlint(
    *args: str,
    cwd: Path,
    stdin: str | bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    text: bool = True,
    clean_env: bool = False,
) -> subprocess.CompletedProcess[Any]:
    """``python -m seedlint *args`` in ``cwd``, its output captured (``str``, or ``bytes``).

    The environment is this process's plus ``env``, less ``SEEDLINT_OUTPUT_FORMAT`` (or, with
    ``clean_env``, less every ``SEEDLINT_*`` variable), so that the developer's settings never
    change what a test sees. ``stdin`` is encoded or decoded to match ``text``.
    """
    base = os.environ
    if clean_env:
        base = {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")}
    full_env = {**base, **(env or {})}
    full_env.pop("SEEDLINT_OUTPUT_FORMAT", None)
    if isinstance(stdin, str) and not text:
        stdin = stdin.encode()
    elif isinstance(stdin, bytes) and text:
        stdin = stdin.decode()
    return subprocess.run(
        [sys.executable, "-m", "seedlint", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=text,
        env=full_env,
        timeout=timeout,
    )


def editor(binary: str, install: str) -> str:
    """The path of a real editor's ``binary`` for a test that drives it: skipped where the
    editor is not installed, except in CI (``CI`` set), where ``.ci/editors`` installs it and a
    missing editor fails the test instead of hiding it."""
    import shutil

    import pytest

    path = shutil.which(binary)
    if path is None:
        message = f"{binary} is not installed ({install})"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: CI must run this test", pytrace=False)
        pytest.skip(message)
    return path


def run_editor(command: list[str], env: dict[str, str], cwd: Path) -> str:
    """Run a headless editor (its script quits it); its output. A script that stops (a Lua
    or Lisp error waits for a key) fails the test with what the editor said, not a bare
    timeout."""
    import pytest

    try:
        proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=90)
    except subprocess.TimeoutExpired as error:
        said = [part for part in (error.stdout, error.stderr) if part]
        text = "".join(p.decode(errors="replace") if isinstance(p, bytes) else p for p in said)
        pytest.fail(f"{command[0]} did not finish in 90 s; it said:\n{text}", pytrace=False)
    return proc.stdout + proc.stderr


def fixed_by_cli(text: str, path: Path) -> str:
    """What ``seedlint check --fix`` (safe fixes) writes for ``text`` at ``path``: what a
    preferred quick fix of a one-finding buffer must give, in the fixes' own layout."""
    from seedlint.config import Settings
    from seedlint.engine.fix import fix_bytes

    fixed = fix_bytes(text.encode(), str(path), Settings(root=path.parent), unsafe=False)
    assert not fixed.errors, fixed.errors
    return fixed.new_raw.decode()


# Small programs several integration tests check.
UNSEEDED_SCRIPT = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "loader = DataLoader(range(8), batch_size=2, shuffle=True)\n"
)
# RNG002: a loader with workers and no worker_init_fn (line 16, column 10); its dataset holds no
# RNG object (no RNG005).
WORKERS_SCRIPT = (
    "import numpy as np\n"
    "from torch.utils.data import DataLoader, Dataset\n"
    "\n"
    "\n"
    "class Noisy(Dataset):\n"
    "    def __init__(self):\n"
    "        self.scale = 2.0\n"
    "\n"
    "    def __getitem__(self, index):\n"
    "        return self.scale * np.random.random()\n"
    "\n"
    "    def __len__(self):\n"
    "        return 4\n"
    "\n"
    "\n"
    "loader = DataLoader(Noisy(), num_workers=4)\n"
)


def plain_dump(tree: ast.AST) -> str:
    """``ast.dump`` of a tree whose nodes may be compact (``seedlint.analysis.compact``): a
    copy of a compact node is made of its ``ast`` class (``ast.dump`` leaves out a plain
    node's unset optional fields only)."""
    return ast.dump(copy.deepcopy(tree), include_attributes=True)
