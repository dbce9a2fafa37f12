"""Latency of ``seedlint server``: from a ``didChange`` to its ``publishDiagnostics``.

Not a test. A stdlib-only LSP client starts the server over stdio, opens a generated
2,000-line file with findings, then changes one line of it ``--changes`` times (waiting for the
diagnostics of each change before the next) and reports the median and the 90th percentile of
the time from writing ``didChange`` to reading the ``publishDiagnostics`` of that version, on
the warm server (after ``--warmup`` changes that are not counted).

It runs three sessions:

* ``debounce off`` (``initializationOptions.debounce = 0``): what checking costs;
* ``after a pause``: the server's default debounce, each change sent ``--pause`` seconds after
  the previous one's diagnostics (a keystroke after a pause in typing: checked at once);
* ``burst``: the default debounce, each measured change the last of ``--burst`` changes sent
  ``--gap`` seconds apart (typing: the time is from the last keystroke to its diagnostics,
  the debounce pause included).

The client declares what VS Code declares for code actions (``resolveSupport`` for the
``edit``, ``dataSupport``) and sends what an editor sends: once each change's diagnostics came,
the ``textDocument/codeAction`` request of the cursor's line (no ``only``, the diagnostics
there: what VS Code asks when the diagnostics at the cursor change, for its light bulb), timed
as "code actions". At the end it times a quick fix (the request for the finding's range, then
``codeAction/resolve`` of its preferred fix: the edit is worked out then) and fix-all
(``only: ["source.fixAll"]``, then its resolve). "first diagnostics": the file opened on a
server started half a second before.

``--file PATH`` runs on a real file (e.g. one of bench/corpus) instead of the generated one:
each change edits a comment line appended to it. ``--project`` makes the temporary folder a
project (a ``.git`` folder in it), whose files the server reads once it is initialized,
before the file is opened; without it the folder is in no project and is not read ahead.

Usage::

    python bench/lsp_latency.py [--lines 2000] [--changes 40] [--warmup 5] [--pause 0.3]
                                [--burst 5] [--gap 0.03] [--no-debounce-only] [--file PATH]

``SEEDLINT_BENCH_SEEDLINT`` overrides the server command (default: this Python, ``-m
seedlint``), e.g. ``"seedlint"``.

``--in-process N`` times instead the server's ``lint`` of the changed buffer called directly
``N`` times in this process (no stdio, no client: the process CPU time of a check and its
diagnostics, which a loaded machine disturbs less); the ``seedlint`` imported is the one on
``sys.path`` (``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shlex
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Optional

REPO = Path(__file__).resolve().parent.parent

BLOCK = '''

class Noisy{n}(Dataset):
    """A dataset whose augmentation draws from its own RNG (block {n})."""

    def __init__(self, items):
        self.items = list(items)
        self.rng = np.random.default_rng()

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index] * self.rng.random()


def make_loaders_{n}(train, valid, batch_size=32):
    """Two loaders: the first shuffles unseeded, the second is seeded."""
    generator = torch.Generator()
    generator.manual_seed({n})
    train_loader = DataLoader(train, batch_size=batch_size, shuffle=True)
    valid_loader = DataLoader(valid, batch_size=batch_size, shuffle=True, generator=generator)
    noisy = DataLoader(Noisy{n}(range(10)), batch_size=batch_size, num_workers=2)
    return train_loader, valid_loader, noisy


def step_{n}(model, batch, optimizer):
    optimizer.zero_grad()
    loss = model(batch).sum()  # value {n}
    loss.backward()
    optimizer.step()
    return loss.item()
'''
HEADER = (
    '"""A generated training module for the language-server latency benchmark."""\n\n'
    "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader, Dataset\n"
)


def generate(lines: int, every: int = 1) -> str:
    """``lines`` lines of blocks; every ``every``-th block has two findings (RNG001, RNG002),
    the others are seeded."""
    parts = [HEADER]
    count = HEADER.count("\n")
    n = 0
    while count < lines:
        block = BLOCK.format(n=n)
        if n % every:
            block = block.replace("shuffle=True)", "shuffle=True, generator=generator)")
            block = block.replace("num_workers=2", "num_workers=0")
        parts.append(block)
        count += block.count("\n")
        n += 1
    text = "".join(parts)
    return "".join(text.splitlines(keepends=True)[:lines])


class Client:
    """Just enough JSON-RPC over pipes: requests, notifications, and a queue of what came."""

    def __init__(self, command: list[str]) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")}
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=REPO
        )
        self.inbox: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            body = stream.read(length)
            self.inbox.put((time.perf_counter(), json.loads(body)))

    def send(self, message: dict[str, Any]) -> float:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        stream = self.process.stdin
        assert stream is not None
        stamp = time.perf_counter()
        stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stream.flush()
        return stamp

    def notify(self, method: str, params: Any) -> float:
        return self.send({"method": method, "params": params})

    def request(self, method: str, params: Any) -> tuple[float, Any]:
        self.next_id += 1
        ident = self.next_id
        start = self.send({"id": ident, "method": method, "params": params})
        stamp, message = self.wait(lambda m: m.get("id") == ident and "method" not in m)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return stamp - start, message.get("result")

    def wait(self, wanted: Any, timeout: float = 60) -> tuple[float, dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the server")
            stamp, message = self.inbox.get(timeout=left)
            if message.get("method") == "client/registerCapability":  # answer, as editors do
                self.send({"id": message["id"], "result": None})
                continue
            if wanted(message):
                return stamp, message

    def diagnostics(self, uri: str, version: int) -> tuple[float, list[Any]]:
        stamp, message = self.wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri
                and m["params"].get("version") == version
            )
        )
        return stamp, message["params"]["diagnostics"]

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()


def cpu_seconds(pid: int) -> float:
    """The process's user+system CPU seconds (Linux ``/proc``; NaN elsewhere): on a busy
    machine the wall time includes waiting for a core, this does not."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def session(
    command: list[str],
    path: Path,
    text: str,
    debounce: Optional[float],
    args: argparse.Namespace,
    pause: float = 0.0,
    burst: int = 1,
) -> dict[str, Any]:
    client = Client(command)
    options = {} if debounce is None else {"debounce": debounce}
    folder = path.parent.as_uri()
    client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": folder,
            "workspaceFolders": [{"uri": folder, "name": "bench"}],
            "capabilities": CAPABILITIES,
            "initializationOptions": options,
        },
    )
    client.notify("initialized", {})
    time.sleep(0.5)  # an editor opens a file a moment after the server started
    uri = path.as_uri()
    lines = text.splitlines(keepends=True)
    target = next((i for i, line in enumerate(lines) if "# value" in line), None)
    if target is None:  # a real file: a comment line of its own is edited
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines.append("# value\n")
        target = len(lines) - 1
        text = "".join(lines)
    opened = client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    )
    stamp, found = client.diagnostics(uri, 1)
    first = stamp - opened
    timings: list[float] = []
    cpu: list[float] = []
    automatic: list[float] = []  # the code actions of the cursor's line after each change
    automatic_cpu: list[float] = []
    version = 1
    for index in range(args.warmup + args.changes):
        time.sleep(pause)
        before = cpu_seconds(client.process.pid)
        for typed in range(burst):
            if typed:
                time.sleep(args.gap)
            version += 1
            lines[target] = lines[target].replace("# value", f"# value {version}", 1)
            sent = client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": "".join(lines)}],
                },
            )
        stamp, found = client.diagnostics(uri, version)
        spent = cpu_seconds(client.process.pid) - before
        # The editor asks for the code actions at the cursor (on the changed line) when the
        # diagnostics there change, with those diagnostics: VS Code's light bulb.
        cursor = {"line": target, "character": 0}
        here = [
            d
            for d in found
            if d["range"]["start"]["line"] <= target < d["range"]["end"]["line"] + 1
        ]
        before_action = cpu_seconds(client.process.pid)
        elapsed, _ = client.request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": {"start": cursor, "end": cursor},
                "context": {"diagnostics": here, "triggerKind": 2},
            },
        )
        if index >= args.warmup:
            timings.append(stamp - sent)
            cpu.append(spent)
            automatic.append(elapsed)
            automatic_cpu.append(cpu_seconds(client.process.pid) - before_action)
    finding = next((d for d in found if d["code"] == "RNG001"), found[0] if found else None)
    actions: list[float] = []
    fix_all: list[float] = []
    actions_cpu: list[float] = []
    fix_all_cpu: list[float] = []
    for _ in range(3 if finding is not None else 0):
        before = cpu_seconds(client.process.pid)
        elapsed, result = client.request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": finding["range"],
                "context": {"diagnostics": [finding], "triggerKind": 1},
            },
        )
        preferred = [a for a in result or [] if a.get("isPreferred")]
        if preferred:  # the quick fix the user picks: its edit comes from resolve
            picked = preferred[0]
            if "edit" not in picked:
                resolved, picked = client.request("codeAction/resolve", picked)
                elapsed += resolved
            assert picked.get("edit"), "no edit for the preferred quick fix"
            actions.append(elapsed)
            actions_cpu.append(cpu_seconds(client.process.pid) - before)
        before = cpu_seconds(client.process.pid)
        elapsed, result = client.request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "context": {"diagnostics": [], "only": ["source.fixAll"], "triggerKind": 1},
            },
        )
        if result:
            action = result[0]
            if "edit" not in action:
                resolved, action = client.request("codeAction/resolve", action)
                elapsed += resolved
            fix_all.append(elapsed)
            fix_all_cpu.append(cpu_seconds(client.process.pid) - before)
    client.close()
    return {
        "findings": len(found),
        "open": first,
        "change": timings,
        "cpu": cpu,
        "automatic": automatic,
        "automatic_cpu": automatic_cpu,
        "quick_fix": actions,
        "quick_fix_cpu": actions_cpu,
        "fix_all": fix_all,
        "fix_all_cpu": fix_all_cpu,
    }


def in_process(text: str, count: int, folder: Path) -> str:
    """``seedlint.server``'s ``lint`` of a changed buffer, ``count`` times after 5 untimed."""
    from lsprotocol import types
    from pygls.workspace import Workspace

    import seedlint.server

    path = folder / "train_generated.py"
    server = seedlint.server.build()
    uri = folder.as_uri()
    server.protocol._workspace = Workspace(  # what `initialize` makes
        uri, types.TextDocumentSyncKind.Full, [types.WorkspaceFolder(uri, "bench")], "utf-16"
    )
    published: list[int] = []
    server.text_document_publish_diagnostics = (  # type: ignore[method-assign]
        lambda params: published.append(len(params.diagnostics))
    )
    cpu: list[float] = []
    wall: list[float] = []
    for version in range(1, count + 6):
        changed = text.replace("# value 0", f"# value 0 {version}", 1)
        item = types.TextDocumentItem(path.as_uri(), "python", version, changed)
        server.workspace.put_text_document(item)
        start_cpu, start = time.process_time(), time.perf_counter()
        server.lint(item.uri)
        if version > 5:
            cpu.append(time.process_time() - start_cpu)
            wall.append(time.perf_counter() - start)
    return (
        f"in process ({seedlint.server.__file__}): {published[-1]} diagnostics; lint CPU "
        f"median {ms(statistics.median(cpu))}, p90 {ms(percentile(cpu, 0.9))}; wall median "
        f"{ms(statistics.median(wall))}, p90 {ms(percentile(wall, 0.9))} over {count} changes"
    )


def ms(value: float) -> str:
    return f"{value * 1000:.1f} ms"


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    return f"median {ms(statistics.median(values))}, p90 {ms(percentile(values, 0.9))}"


# What VS Code declares for code actions (the parts the server reads).
CAPABILITIES: dict[str, Any] = {
    "textDocument": {
        "codeAction": {
            "dynamicRegistration": True,
            "isPreferredSupport": True,
            "dataSupport": True,
            "resolveSupport": {"properties": ["edit"]},
            "codeActionLiteralSupport": {
                "codeActionKind": {"valueSet": ["", "quickfix", "source", "source.fixAll"]}
            },
        },
        "publishDiagnostics": {"versionSupport": True},
    }
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--changes", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument(
        "--every", type=int, default=1, help="findings in every N-th block (1: 124 findings)"
    )
    parser.add_argument(
        "--pause", type=float, default=0.3, help="seconds before each change (after a pause)"
    )
    parser.add_argument("--burst", type=int, default=5, help="changes per burst")
    parser.add_argument("--gap", type=float, default=0.03, help="seconds between burst changes")
    parser.add_argument(
        "--no-debounce-only", action="store_true", help="skip the runs with the default debounce"
    )
    parser.add_argument(
        "--in-process", type=int, metavar="N", help="time N lint() calls in this process only"
    )
    parser.add_argument("--file", type=Path, help="a real file instead of the generated one")
    parser.add_argument(
        "--project",
        action="store_true",
        help="the folder is a project (a .git folder in it), as an editor's workspace mostly is",
    )
    args = parser.parse_args()
    override = os.environ.get("SEEDLINT_BENCH_SEEDLINT")
    base = shlex.split(override) if override else [sys.executable, "-m", "seedlint"]
    command = [*base, "server"]
    text = generate(args.lines, args.every)
    if args.file is not None:
        text = args.file.read_text(encoding="utf-8")
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        name = args.file.name if args.file is not None else "train_generated.py"
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8")
        if args.project:  # the server reads a project's files once it is initialized
            (Path(folder) / ".git").mkdir()
        if args.in_process:
            print(in_process(text, args.in_process, Path(folder)))
            return 0
        print(f"server: {' '.join(command)}")
        print(f"file: {text.count(chr(10))} lines, {len(text.encode())} bytes")
        runs: list[tuple[str, Optional[float], float, int]] = [("debounce off", 0.0, 0.0, 1)]
        if not args.no_debounce_only:
            runs.append(("after a pause", None, args.pause, 1))
            runs.append((f"burst of {args.burst}", None, 0.0, args.burst))
        for label, debounce, pause, burst in runs:
            result = session(command, path, text, debounce, args, pause, burst)
            change = result["change"]
            print(
                f"{label}: {result['findings']} findings; didChange -> publishDiagnostics "
                f"{summary(change)}, max {ms(max(change))} over {len(change)} changes; server "
                f"CPU per measured change {summary(result['cpu'])}; code actions at the "
                f"cursor after each change {summary(result['automatic'])} (server CPU "
                f"{summary(result['automatic_cpu'])}); first diagnostics "
                f"{ms(result['open'])}; quick fix (request + resolve) "
                f"{summary(result['quick_fix'])} (server CPU "
                f"{summary(result['quick_fix_cpu'])}); fix-all (request + resolve) "
                f"{summary(result['fix_all'])} (server CPU {summary(result['fix_all_cpu'])})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
