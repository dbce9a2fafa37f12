"""What seedlint promises about the code it reads (docs/security.md), where a test can show it:

- it never imports, executes or evaluates the code it checks: a checked file whose top level
  would print, write a file or exit leaves no trace, and seedlint's own source has no ``eval``,
  ``exec``, ``pickle`` or dynamic import of anything;
- it reads configuration with a TOML parser only;
- a walk follows no symbolic link out of the tree it was given (a file named on the command line
  is checked wherever it points);
- it writes only the files it fixes and its own cache folder.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import seedlint

SOURCE = Path(seedlint.__file__).parent
MARKER = "SEEDLINT_SECURITY_MARKER"

# Top-level code that would leave a trace if anything imported or ran it.
TRAP = """\
import pathlib
pathlib.Path({marker!r}).write_text("executed: " + __name__)
print("{marker} EXECUTED")
raise SystemExit(97)
"""


def seedlint_command(*args: str) -> list[str]:
    """seedlint as the ``seedlint`` command runs it: ``-I`` keeps the checked folder (the
    working directory) off ``sys.path``, as the console script does."""
    return [sys.executable, "-I", "-m", "seedlint", *args]


def run(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")}
    proc = subprocess.run(
        seedlint_command(*args),
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**base, **(env or {})},
        timeout=300,
    )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc


def state(root: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every path under ``root``; for files, their inode, modification time and content (a
    folder's time changes whenever a file in it is replaced, so only its existence counts)."""
    result: dict[str, tuple[int, int, bytes]] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        if path.is_dir() and not path.is_symlink():
            result[path.relative_to(root).as_posix()] = (info.st_ino, 0, b"")
            continue
        data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
        result[path.relative_to(root).as_posix()] = (info.st_ino, info.st_mtime_ns, data)
    return result


def trap_tree(root: Path) -> Path:
    """A project whose every Python file, notebook cell and config would act if run."""
    marker = str(root / "marker.txt")
    trap = TRAP.format(marker=marker)
    project = root / "project"
    (project / "pkg").mkdir(parents=True)
    finding = "from torch.utils.data import DataLoader\nloader = DataLoader([], shuffle=True)\n"
    (project / "train.py").write_text(trap + finding)
    (project / "pkg" / "__init__.py").write_text(trap + "import torch\ntorch.manual_seed(0)\n")
    (project / "setup.py").write_text(trap)
    (project / "conftest.py").write_text(trap)
    # Files named like modules that seedlint itself imports: never picked up.
    for name in ("libcst", "pathspec", "tomllib", "json", "tokenize", "seedlint"):
        (project / f"{name}.py").write_text(trap + "DataLoader = 1\n")
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    import json

    notebook = {
        "cells": [{**cell, "source": trap.splitlines(True) + finding.splitlines(True)}],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (project / "analysis.ipynb").write_text(json.dumps(notebook))
    (project / "pyproject.toml").write_text(
        "[tool.seedlint]\n"
        f"fix-seed = 7\n"
        f"# {trap!r}\n"
        "[tool.setuptools]\n"
        f'script = "__import__(\\"pathlib\\").Path({marker!r}).write_text(\\"x\\")"\n'
    )
    return project


def test_checked_code_is_never_run(tmp_path: Path) -> None:
    project = trap_tree(tmp_path)
    before = state(project)
    proc = run(project, "check", "--no-cache", "--output-format", "concise", ".")
    assert proc.returncode == 1  # findings, and no SystemExit(97) from a trap
    assert "train.py:" in proc.stdout and "analysis.ipynb:" in proc.stdout
    assert MARKER not in proc.stdout + proc.stderr
    assert not (tmp_path / "marker.txt").exists()
    assert state(project) == before  # not even a __pycache__


def test_fixing_code_never_runs_it(tmp_path: Path) -> None:
    project = trap_tree(tmp_path)
    proc = run(project, "check", "--fix", "--no-cache", ".")
    assert MARKER not in proc.stdout + proc.stderr
    assert not (tmp_path / "marker.txt").exists()
    assert not list(project.rglob("__pycache__"))
    assert "generator=" in (project / "train.py").read_text()


def test_python_dash_m_from_an_untrusted_folder_is_documented() -> None:
    """``python -m seedlint`` puts the working directory first on ``sys.path`` (Python's rule,
    not seedlint's): the security page says to use the ``seedlint`` command or ``python -I``."""
    text = (Path(__file__).parent.parent / "docs" / "security.md").read_text()
    assert "python -I -m seedlint" in text


# -- seedlint's own source -------------------------------------------------------------------
FORBIDDEN_CALLS = {"eval", "exec", "execfile", "__import__", "breakpoint", "input"}
FORBIDDEN_MODULES = {
    "pickle",
    "cPickle",
    "dill",
    "marshal",
    "shelve",
    "runpy",
    "importlib",
    "imp",
    "pkgutil",
    "subprocess",
    "ctypes",
    "code",
    "codeop",
    "pty",
    "socket",
    "urllib",
    "http",
    "yaml",
    "configparser",
}
# The one exception: fixes/write.py swaps a fixed file's name with the old one's through
# Linux's renameat2 (RENAME_EXCHANGE), which os does not offer, so that an editor's save is
# never overwritten (issue 34); it calls that one C library function, nothing else.
# And project/configs.py reads the config files a program loads with PyYAML's safe loader only
# (test_configs_use_the_safe_loader_only): no tag of it builds a Python object.
ALLOWED_IMPORTS = {("fixes", "write.py", "ctypes"), ("project", "configs.py", "yaml")}
FORBIDDEN_ATTRIBUTES = {
    "system",
    "popen",
    "execv",
    "execve",
    "execl",
    "execlp",
    "execvp",
    "spawnv",
    "spawnl",
    "posix_spawn",
    "startfile",
    "import_module",
    "exec_module",
    "load_module",
    "literal_eval",  # harmless, but nothing needs it: keep values symbolic
}


# `seedlint verify` runs the user's program, only when asked (docs/verify.md): it is the one part
# of seedlint that starts processes and imports at run time, and it is held apart below.
VERIFY = SOURCE / "verify"


def source_files() -> list[Path]:
    files = sorted(p for p in SOURCE.rglob("*.py") if VERIFY not in p.parents)
    assert len(files) > 10
    return files


def test_only_the_verify_command_reaches_the_code_that_runs_programs() -> None:
    """Nothing but cli.py imports seedlint.verify, and cli.py only inside a function (the
    `verify` dispatch): checking, fixing, the server and the flake8 plugin never load it."""
    importers = []
    for path in source_files():
        tree = ast.parse(path.read_text(), filename=str(path))
        top_level = set(map(id, tree.body))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            if any(n == "seedlint.verify" or n.startswith("seedlint.verify.") for n in names):
                importers.append((path.name, id(node) in top_level))
    assert importers == [("cli.py", False)]


def parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


@pytest.mark.parametrize("path", source_files(), ids=lambda p: str(p.relative_to(SOURCE)))
def test_source_never_runs_or_unpickles_anything(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    parent_of = parents(tree)
    problems: list[str] = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (path.parent.name, path.name, alias.name) in ALLOWED_IMPORTS:
                    continue
                if alias.name.split(".")[0] in FORBIDDEN_MODULES:
                    problems.append(f"{where}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in FORBIDDEN_MODULES:
                problems.append(f"{where}: from {node.module} import ...")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_CALLS:
                problems.append(f"{where}: {func.id}()")
            if isinstance(func, ast.Attribute) and func.attr in FORBIDDEN_ATTRIBUTES:
                problems.append(f"{where}: .{func.attr}()")
            if isinstance(func, ast.Name) and func.id == "compile":
                # Allowed only to ask "does it compile?": the code object is thrown away; or
                # to parse (`ast.PyCF_ONLY_AST`: a tree, no code object).
                only_ast = any("PyCF_ONLY_AST" in ast.unparse(a) for a in node.args[3:4])
                if not only_ast and not isinstance(parent_of.get(id(node)), ast.Expr):
                    problems.append(f"{where}: the result of compile() is kept")
            if isinstance(func, ast.Attribute) and func.attr == "get_context":
                # Worker processes are forked: nothing is pickled to start them, and no
                # module of the checked tree is imported to rebuild ``__main__``.
                arguments = [a.value for a in node.args if isinstance(a, ast.Constant)]
                if arguments != ["fork"]:
                    problems.append(f"{where}: a process start method other than fork")
        elif isinstance(node, ast.Attribute) and node.attr == "path":
            target = parent_of.get(id(node))
            if (
                isinstance(node.value, ast.Name)
                and node.value.id == "sys"
                and isinstance(target, ast.Attribute)
                and target.attr in ("insert", "append", "extend")
            ):
                problems.append(f"{where}: changes sys.path")
    assert problems == []


def test_configuration_is_read_with_a_toml_parser_only() -> None:
    config = (SOURCE / "config.py").read_text()
    tree = ast.parse(config)
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert {"tomllib", "tomli"} & imported
    assert not imported & {"configparser", "yaml", "runpy", "importlib"}


def test_configuration_values_are_never_evaluated(tmp_path: Path) -> None:
    marker = tmp_path / "marker.txt"
    payload = f"__import__('pathlib').Path({str(marker)!r}).write_text('x')"
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.seedlint]\nselect = ["{payload}"]\nfix-seed = "{payload}"\n'
    )
    (tmp_path / "a.py").write_text("from torch.utils.data import DataLoader\n")
    proc = run(tmp_path, "check", "--no-cache", ".")
    assert proc.returncode == 2 and proc.stderr.startswith("seedlint: error:")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not marker.exists()


# -- symbolic links --------------------------------------------------------------------------
FINDING = "from torch.utils.data import DataLoader\nloader = DataLoader([], shuffle=True)\n"


def test_walk_follows_no_symlink_out_of_the_tree(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(FINDING)
    (outside / "pkg").mkdir()
    (outside / "pkg" / "deep.py").write_text(FINDING)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "own.py").write_text(FINDING)
    (tree / "link.py").symlink_to(outside / "secret.py")
    (tree / "linked_folder").symlink_to(outside / "pkg")
    (tree / "inside_link.py").symlink_to(tree / "own.py")  # inside the tree: checked
    before = state(outside)
    proc = run(tree, "check", "--no-cache", "--output-format", "concise", ".")
    paths = sorted({line.split(":")[0] for line in proc.stdout.splitlines() if ": RNG" in line})
    assert paths == ["inside_link.py", "own.py"]
    assert "secret" not in proc.stdout and "deep.py" not in proc.stdout
    # --fix does not write outside either.
    run(tree, "check", "--fix", "--no-cache", ".")
    assert state(outside) == before
    # Named on the command line, a link is the user's choice: it is checked.
    explicit = run(tree, "check", "--no-cache", "--output-format", "concise", "link.py")
    assert explicit.stdout.startswith("link.py:2:")


# -- what seedlint writes --------------------------------------------------------------------
def test_check_writes_only_its_cache_folder(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    home = tmp_path / "home"
    temp = tmp_path / "temp"
    for folder in (tree / "pkg", home, temp):
        folder.mkdir(parents=True)
    (tree / "pkg" / "a.py").write_text(FINDING)
    (tree / "pkg" / "b.py").write_text("import torch\n")
    (tree / ".gitignore").write_text("build/\n")
    env = {"HOME": str(home), "TMPDIR": str(temp), "XDG_CACHE_HOME": str(home / ".cache")}
    before = state(tree)
    proc = run(tree, "check", ".", env=env)
    assert proc.returncode == 1
    after = state(tree)
    changed = {name for name in after if after[name] != before.get(name)}
    assert changed and all(name.startswith(".seedlint_cache") for name in changed), changed
    assert set(before) <= set(after)
    # Outside the tree: only the cache's secret key, in the user's cache folder.
    key = home / ".cache" / "seedlint" / "cache-key"
    assert {p for p in home.rglob("*") if p.is_file()} <= {key} and not list(temp.rglob("*"))


def test_fix_writes_only_the_fixed_file(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    home = tmp_path / "home"
    temp = tmp_path / "temp"
    for folder in (tree / "pkg", home, temp):
        folder.mkdir(parents=True)
    (tree / "pkg" / "a.py").write_text(FINDING)
    (tree / "pkg" / "b.py").write_text("import torch\ntorch.manual_seed(0)\n")
    (tree / "pkg" / "c.py").write_text(
        "from torch.utils.data import DataLoader\nDataLoader([], shuffle=True)  # noqa: RNG001\n"
    )
    env = {"HOME": str(home), "TMPDIR": str(temp), "XDG_CACHE_HOME": str(home / ".cache")}
    before = state(tree)
    proc = run(tree, "check", "--fix", ".", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = state(tree)
    changed = {name for name in after if after[name] != before.get(name)}
    changed = {name for name in changed if not name.startswith(".seedlint_cache")}
    assert changed == {"pkg/a.py"}
    assert set(after) - set(before) <= {n for n in after if n.startswith(".seedlint_cache")}
    assert not list(home.rglob("*")) and not list(temp.rglob("*"))


def test_cache_never_overwrites_a_users_gitignore(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / ".gitignore").write_text("mine\n")
    (tmp_path / "a.py").write_text(FINDING)
    run(tmp_path, "check", "--cache-dir", str(cache), "a.py")
    assert (cache / ".gitignore").read_text() == "mine\n"
    assert (cache / "CACHEDIR.TAG").exists()


def test_clean_removes_only_a_seedlint_cache_folder(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work\n")
    proc = run(tmp_path, "clean", "--cache-dir", str(precious))
    assert proc.returncode == 2 and "not a seedlint cache folder" in proc.stderr
    assert (precious / "thesis.tex").exists()
    (tmp_path / "a.py").write_text(FINDING)
    run(tmp_path, "check", "a.py")
    assert (tmp_path / ".seedlint_cache").is_dir()
    assert run(tmp_path, "clean").returncode == 0
    assert not (tmp_path / ".seedlint_cache").exists()


def test_configs_use_the_safe_loader_only() -> None:
    """The one module that imports yaml names no loader but the safe ones, and no function
    that builds with another (`yaml.load`, `full_load`, `unsafe_load`)."""
    path = Path(__file__).parent.parent / "seedlint" / "project" / "configs.py"
    tree = ast.parse(path.read_text())
    used = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "yaml"
    }
    assert used, "configs.py no longer uses yaml: drop its ALLOWED_IMPORTS entry"
    assert used <= {"SafeLoader", "CSafeLoader", "YAMLError", "MappingNode", "SequenceNode"}
