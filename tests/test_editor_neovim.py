"""The Neovim 0.7+ snippet of docs/integrations.md in a headless Neovim (when one is
installed), beyond the diagnostics that tests/test_server_docs.py checks: the quick fixes and
fix-all offered, the preferred fix applied, the diagnostics cleared after it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.support import UNSEEDED_SCRIPT, editor, fixed_by_cli, run_editor
from tests.test_integrations import snippet

pytest.importorskip("pygls")

REPO = Path(__file__).resolve().parent.parent

DRIVER = """
local out = io.stdout
vim.cmd("edit {path}")
local buf = vim.api.nvim_get_current_buf()
vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
for _, d in ipairs(vim.diagnostic.get(buf)) do
  out:write(string.format("DIAG %s %d:%d\\n", d.code, d.lnum, d.col))
end
local d = vim.diagnostic.get(buf)[1]
local function actions(only)
  local params = {{
    textDocument = vim.lsp.util.make_text_document_params(buf),
    range = {{
      start = {{ line = d.lnum, character = 0 }},
      ["end"] = {{ line = d.lnum, character = 0 }},
    }},
    context = {{ diagnostics = {{}}, only = {{ only }} }},
  }}
  local found = {{}}
  local results = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 60000)
  for _, res in pairs(results or {{}}) do
    for _, a in ipairs(res.result or {{}}) do table.insert(found, a) end
  end
  return found
end
local preferred
for _, a in ipairs(actions("quickfix")) do
  out:write(string.format("ACTION %s preferred=%s\\n", a.title, tostring(a.isPreferred)))
  if a.isPreferred then preferred = a end
end
for _, a in ipairs(actions("source.fixAll.seedlint")) do
  out:write("FIXALL " .. a.title .. "\\n")
end
-- Neovim resolves the edit of the action picked (what vim.lsp.buf.code_action does).
local edit = preferred.edit
if edit == nil then
  local resolved = vim.lsp.buf_request_sync(buf, "codeAction/resolve", preferred, 60000)
  for _, res in pairs(resolved or {{}}) do edit = res.result.edit end
  out:write("RESOLVED " .. tostring(edit ~= nil) .. "\\n")
end
vim.lsp.util.apply_workspace_edit(edit, "utf-16")
local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
out:write("BUFFER\\n" .. table.concat(lines, "\\n") .. "\\nEND\\n")
vim.wait(60000, function() return #vim.diagnostic.get(buf) == 0 end, 50)
out:write("AFTER " .. #vim.diagnostic.get(buf) .. "\\n")
vim.cmd("qa!")
"""


def test_neovim_code_actions_in_a_headless_neovim(tmp_path: Path) -> None:
    nvim = editor("nvim", "apt-get install -y neovim")
    text = snippet("lua", "-- init.lua")
    path = tmp_path / "train.py"
    path.write_text(UNSEEDED_SCRIPT)
    (tmp_path / "init.lua").write_text(text + DRIVER.format(path=path))
    bin_dir = tmp_path / "bin"  # `seedlint` on PATH: this checkout's, with this Python
    bin_dir.mkdir()
    shim = bin_dir / "seedlint"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m seedlint "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    env["PATH"] = os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])
    env["HOME"] = str(tmp_path)
    out = run_editor(
        [nvim, "--headless", "-u", str(tmp_path / "init.lua"), "--cmd", "filetype on"],
        env,
        tmp_path,
    )
    line = next(i for i, x in enumerate(UNSEEDED_SCRIPT.splitlines()) if "DataLoader(" in x)
    col = UNSEEDED_SCRIPT.splitlines()[line].index("DataLoader")
    assert f"DIAG RNG001 {line}:{col}" in out, out
    assert "(RNG001) preferred=true" in out, out
    assert "RESOLVED true" in out, out  # Neovim resolves: the edit came on request
    assert "ACTION Disable RNG001 for this line preferred=nil" in out, out
    assert "FIXALL Fix all seedlint findings that have a fix" in out, out
    # The preferred fix writes what `seedlint check --fix` writes (its layout included).
    assert f"BUFFER\n{fixed_by_cli(UNSEEDED_SCRIPT, path)}END" in out, out
    assert "AFTER 0" in out, out
