"""The language-server snippets of docs/integrations.md: each names a command that starts the
server, and the Neovim one runs in a headless Neovim when one is installed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import UNSEEDED_SCRIPT, editor
from tests.test_integrations import snippet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

pytest.importorskip("pygls")

REPO = Path(__file__).resolve().parent.parent
ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")},
    "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
}


def answers_initialize(argv: list[str]) -> None:
    """``argv`` (with ``seedlint`` run as this Python's module) speaks LSP on stdio."""
    assert argv[:2] == ["seedlint", "server"], argv
    command = [sys.executable, "-m", "seedlint", *argv[1:]]
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    data = b"".join(
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        for body in (json.dumps(m).encode() for m in messages)
    )
    proc = subprocess.run(command, input=data, capture_output=True, env=ENV, timeout=60)
    assert b'"serverInfo"' in proc.stdout and b'"codeActionProvider"' in proc.stdout, proc


def test_the_install_line_names_the_extra() -> None:
    line = snippet("sh", "seedlint[server]").splitlines()[0]
    assert line.startswith(
        "python3 -m pip install 'seedlint[server] @ git+https://github.com/seedlint/seedlint'"
    )
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert {re.split(r"[<>=;]", d)[0] for d in extras["server"]} == {"pygls", "lsprotocol"}


def test_helix_languages_toml() -> None:
    config = tomllib.loads(snippet("toml", "# languages.toml"))
    server = config["language-server"]["seedlint"]
    answers_initialize([server["command"], *server["args"]])
    (python,) = config["language"]
    assert python["name"] == "python" and "seedlint" in python["language-servers"]


def test_eglot_program() -> None:
    text = snippet("elisp", ";; init.el")
    (program,) = re.findall(r"\(python-mode \. \(([^)]*)\)\)", text)
    answers_initialize(re.findall(r'"([^"]*)"', program))


def test_neovim_011_config_command() -> None:
    text = snippet("lua", "-- init.lua (Neovim 0.11+)")
    (cmd,) = re.findall(r"cmd = \{([^}]*)\}", text)
    answers_initialize(re.findall(r'"([^"]*)"', cmd))
    assert 'vim.lsp.enable("seedlint")' in text


def test_neovim_snippet_in_a_headless_neovim(tmp_path: Path) -> None:
    nvim = editor("nvim", "apt-get install -y neovim")
    text = snippet("lua", "-- init.lua")
    assert "0.11" not in text.splitlines()[0]
    (tmp_path / "train.py").write_text(UNSEEDED_SCRIPT)
    check = (
        f'vim.cmd("edit {tmp_path / "train.py"}")\n'
        "local buf = vim.api.nvim_get_current_buf()\n"
        "vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50)\n"
        "for _, d in ipairs(vim.diagnostic.get(buf)) do\n"
        '  io.stdout:write(string.format("%s %d:%d\\n", d.code, d.lnum, d.col))\n'
        "end\n"
        'vim.cmd("qa!")\n'
    )
    (tmp_path / "init.lua").write_text(text + check)
    # `seedlint` on PATH must be this checkout's: a shim that runs it with this Python.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "seedlint"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m seedlint "$@"\n')
    shim.chmod(0o755)
    env = {**ENV, "PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])}
    env["HOME"] = str(tmp_path)
    proc = subprocess.run(
        [nvim, "--headless", "-u", str(tmp_path / "init.lua"), "--cmd", "filetype on"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=90,
    )
    line = next(i for i, x in enumerate(UNSEEDED_SCRIPT.splitlines()) if "DataLoader(" in x)
    col = UNSEEDED_SCRIPT.splitlines()[line].index("DataLoader")
    assert f"RNG001 {line}:{col}" in proc.stdout + proc.stderr, proc
