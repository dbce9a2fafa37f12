"""Issue 34, case 12: the language server scans only the project roots a saved buffer needs;
an unsaved (``untitled:``) buffer belongs to no project scan (its made-up path lies in a
workspace folder that may be ``/``: the scan walked the whole file system)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("pytest_lsp")

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.test_server import client, published

# A loader class of the project, known only to a scan of the project (its name holds no
# loader word the buffer's own check could resolve: it is imported).
LOADERS = "from torch.utils.data import DataLoader\n\n\nclass FastLoader(DataLoader):\n    pass\n"
BUFFER = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "from loaders import FastLoader\n"
    "\n"
    "a = DataLoader(range(8), shuffle=True)\n"
    "b = FastLoader(range(8), shuffle=True)\n"
)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
async def test_case_12_an_unsaved_buffer_belongs_to_no_project_scan(
    client: LanguageClient, tmp_path: Path
) -> None:
    (tmp_path / "loaders.py").write_text(LOADERS)
    fifo = tmp_path / "stuck.py"
    os.mkfifo(fifo)  # a scan that opened it would wait forever
    try:
        await _check_both(client, tmp_path)
    finally:
        _unblock(fifo)


def _unblock(fifo: Path) -> None:
    """A server stuck opening the FIFO (a build without the fix, which opens it again and
    again) gets an end of file each time for a minute, from a thread, so that the session
    can shut down and the test fail instead of hang."""

    def feed() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and fifo.exists():
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass  # no reader: nothing waits on it
            time.sleep(0.05)

    threading.Thread(target=feed, daemon=True).start()


async def _check_both(client: LanguageClient, tmp_path: Path) -> None:
    uri = "untitled:Untitled-1"
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, BUFFER))
    )
    found = await published(client, uri, timeout=20)
    rows = sorted((d.range.start.line, d.code) for d in found)
    # The buffer is checked on its own: its DataLoader, not the project's FastLoader.
    assert rows == [(4, "RNG001")], rows
    # A saved file of the same folder is checked with its project (the FIFO skipped).
    saved = tmp_path / "train.py"
    saved.write_text(BUFFER)
    client.diagnostics.pop(saved.as_uri(), None)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(saved.as_uri(), "python", 1, BUFFER))
    )
    found = await published(client, saved.as_uri(), timeout=20)
    rows = sorted((d.range.start.line, d.code) for d in found)
    assert rows == [(4, "RNG001"), (5, "RNG001")], rows


__all__ = ["client"]
