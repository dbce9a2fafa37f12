"""A module with none of the index's pre-filter words is summarised from its bytes; when an
answer looks into it (a base class defined there, a re-export a caller goes through) it is
parsed on demand, by every face: the check run, standard input, ``--fix`` and the flake8
plugin (``tests/test_projects.py``) report the same findings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.support import run_seedlint
from tests.test_projects import PROJECTS


def _seedlint(root: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    result = run_seedlint("check", "--no-cache", *args, cwd=root, stdin=stdin)
    assert result.returncode in (0, 1), result.stderr
    return result


def _found(output: str) -> list[tuple[str, int, str]]:
    return sorted(
        (os.path.normpath(str(f["filename"])), int(f["location"]["row"]), str(f["code"]))
        for f in json.loads(output)
    )


def _copy(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root)
    (root / "pyproject.toml").write_text("")
    return root


def test_a_base_class_in_a_wordless_module_is_read_by_every_face(tmp_path: Path) -> None:
    root = _copy(tmp_path, "light_base")
    main = root / "main.py"
    cli = _seedlint(root, "--output-format", "json", "--select", "RNG005", ".")
    assert _found(cli.stdout) == [(str(main), 8, "RNG005")]
    stdin = _seedlint(
        root,
        "--output-format",
        "json",
        "--select",
        "RNG005",
        "--stdin-filename",
        "main.py",
        "-",
        stdin=main.read_text(),
    )
    assert _found(stdin.stdout) == [(str(main), 8, "RNG005")]
    # --fix builds its index without the check pass: what is left unfixed is reported.
    fixed = _seedlint(root, "--output-format", "concise", "--select", "RNG005", "--fix", ".")
    assert "main.py:8:14: RNG005" in fixed.stdout
    safe = _seedlint(root, "--output-format", "json", "--select", "RNG005", "safe.py")
    assert _found(safe.stdout) == []


def test_a_reexport_in_a_wordless_module_leads_to_the_caller(tmp_path: Path) -> None:
    root = _copy(tmp_path, "light_reexport")
    lib = root / "pkg" / "lib.py"
    cli = _seedlint(root, "--output-format", "json", "--select", "RNG001", ".")
    assert _found(cli.stdout) == [(str(lib), 5, "RNG001")]
    fix = _seedlint(
        root, "--output-format", "concise", "--select", "RNG001", "--fix", "--diff", "."
    )
    assert "+        generator=" in fix.stdout
    assert fix.stdout.count("generator=") == 1  # `build_ordered`'s caller does not shuffle
