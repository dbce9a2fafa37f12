"""Tests that kill the bugs a mutation check planted and the suite let through (issue 16):
the cache serving findings of other settings, an in-place write, a process pool never used,
noqa comments ignoring their codes, and the fix loop keeping code that does not compile.

None depends on timing: a file is made "old enough to be trusted" by setting its modification
time back, a write is made to fail by raising where the writer calls the system, and the pool
is made to run by lowering its thresholds. ``scripts/mutate`` plants these bugs again and runs
these tests against them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable

import pytest

from seedlint import cli
from seedlint.config import Settings
from seedlint.engine import fix as fix_loop
from seedlint.engine.check import check_text
from seedlint.engine.fix import fix_text
from seedlint.engine.noqa import file_exemption, line_suppresses
from seedlint.fixes import write
from seedlint.fixes.write import write_fixed
from seedlint.run import files, pool, summaries
from seedlint.run.files import FileTask, check_files, fix_files

SHUFFLED = """\
import torch
from torch.utils.data import DataLoader

loader = DataLoader(range(8), shuffle=True)
"""
# RNG001 (shuffle) and RNG002 (workers, no worker_init_fn) in one file.
TWO_RULES = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __init__(self):
        self.scale = 2.0

    def __len__(self):
        return 4

    def __getitem__(self, index):
        return self.scale * np.random.normal()


loader = DataLoader(Noisy(), shuffle=True, num_workers=2)
"""
OLD = 1_000_000_000  # 2001: far older than the cache's "racy" window


# -- the cache: a change of settings is never served from the cache --------------------------
def age(path: Path) -> None:
    """Set the file's modification time back, so that the cache trusts its stat key (the
    entry is then served without reading the file)."""
    os.utime(path, (OLD, OLD))


def seedlint_json(args: Sequence[str], cwd: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Run the CLI in this process (faster than a subprocess); its json output."""
    monkeypatch.chdir(cwd)
    out = cwd / ".out.json"
    code = cli.main(["check", "--output-format", "json", "-o", str(out), *args])
    assert code in (0, 1), code
    return json.loads(out.read_text())


def codes(findings: Any) -> list[str]:
    return sorted(f["code"] for f in findings)


@pytest.fixture
def aged(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(TWO_RULES)
    age(tmp_path / "train.py")
    return tmp_path


CACHE = ["--cache-dir", "cache", "--isolated"]


def test_cache_is_trusted_by_stat_for_an_old_file(
    aged: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The premise of the tests below: a warm run over an old file reads nothing (so only the
    settings part of the key can keep stale findings out)."""
    first = seedlint_json([*CACHE, "train.py"], aged, monkeypatch)
    reads: list[Path] = []
    real = files.read_file

    def spy(path: Path) -> tuple[Any, Any]:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(files, "read_file", spy)
    assert seedlint_json([*CACHE, "train.py"], aged, monkeypatch) == first
    assert reads == []
    assert codes(first) == ["RNG001", "RNG002"]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--select", "RNG001"], ["RNG001"]),
        (["--ignore", "RNG001"], ["RNG002"]),
        (["--extend-ignore", "RNG002"], ["RNG001"]),
        (["--per-file-ignores", "train.py:RNG002"], ["RNG001"]),
        (["--per-file-ignores", "*.py:RNG"], []),
    ],
    ids=["select", "ignore", "extend-ignore", "per-file-ignores", "per-file-ignores-all"],
)
def test_cache_never_serves_findings_of_other_settings(
    aged: Path, monkeypatch: pytest.MonkeyPatch, options: list[str], expected: list[str]
) -> None:
    assert codes(seedlint_json([*CACHE, "train.py"], aged, monkeypatch)) == ["RNG001", "RNG002"]
    assert codes(seedlint_json([*CACHE, *options, "train.py"], aged, monkeypatch)) == expected
    # ... and back: the first settings' entry is still right.
    assert codes(seedlint_json([*CACHE, "train.py"], aged, monkeypatch)) == ["RNG001", "RNG002"]


def test_cache_sees_a_config_file_edit(aged: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = aged / "pyproject.toml"
    args = ["--cache-dir", "cache", "train.py"]
    config.write_text("[tool.seedlint]\n")
    assert codes(seedlint_json(args, aged, monkeypatch)) == ["RNG001", "RNG002"]
    config.write_text('[tool.seedlint]\nignore = ["RNG002"]\n')
    assert codes(seedlint_json(args, aged, monkeypatch)) == ["RNG001"]
    config.write_text('[tool.seedlint]\nper-file-ignores = {"train.py" = ["RNG001"]}\n')
    assert codes(seedlint_json(args, aged, monkeypatch)) == ["RNG002"]
    config.write_text("[tool.seedlint]\n")
    assert codes(seedlint_json(args, aged, monkeypatch)) == ["RNG001", "RNG002"]


def test_cache_sees_a_new_fix_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fix's title names the seed it writes: a cached title of another seed is stale."""
    (tmp_path / "train.py").write_text(SHUFFLED)
    age(tmp_path / "train.py")

    def title(seed: int) -> str:
        found = seedlint_json([*CACHE, "--fix-seed", str(seed), "train.py"], tmp_path, monkeypatch)
        assert len(found) == 1
        return str(found[0]["fix"]["message"])

    assert "manual_seed(3)" in title(3)
    assert "manual_seed(4)" in title(4)
    assert "manual_seed(3)" in title(3)


# -- atomic writes ---------------------------------------------------------------------------
NEW = SHUFFLED.replace("shuffle=True)", "shuffle=True, generator=torch.Generator())").encode()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "train.py")


def test_write_replaces_the_file_with_a_new_one(tmp_path: Path) -> None:
    """A new inode: the new bytes went to another file that replaced the old one (an in-place
    write keeps the inode, and a reader could see half a file). A file with several hard links
    is the exception, kept whole by its own tests (tests/test_fix_identity.py)."""
    target = tmp_path / "train.py"
    target.write_text(SHUFFLED)
    before = os.stat(target).st_ino
    fd = os.open(target, os.O_RDONLY)  # holds the old inode open after the replace
    try:
        assert write_fixed(target, SHUFFLED.encode(), NEW) is None
        assert target.read_bytes() == NEW
        assert os.stat(target).st_ino != before
        # The old inode was never written to: it still holds the old bytes.
        assert os.pread(fd, 4096, 0) == SHUFFLED.encode()
    finally:
        os.close(fd)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("where", ["write", "fsync", "chmod", "replace"])
def test_a_write_failing_half_way_leaves_the_old_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    target = tmp_path / "train.py"
    target.write_text(SHUFFLED)

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    if where == "write":  # the first bytes are written, then the disk is full
        real_fdopen = os.fdopen

        class HalfWriter:
            def __init__(self, handle: Any) -> None:
                self.handle = handle

            def __enter__(self) -> HalfWriter:
                return self

            def __exit__(self, *exc: object) -> None:
                self.handle.close()

            def write(self, data: bytes) -> int:
                self.handle.write(data[: len(data) // 2])
                self.handle.flush()
                raise OSError(28, "No space left on device")

            def __getattr__(self, name: str) -> Any:
                return getattr(self.handle, name)

        monkeypatch.setattr(
            write.os, "fdopen", lambda *a, **k: HalfWriter(real_fdopen(*a, **k)), raising=True
        )
    else:
        monkeypatch.setattr(write.os, where, fail)
        if where == "replace":  # Linux swaps the names first (renameat2): take os.replace
            monkeypatch.setattr(write, "_exchange", lambda *args: False)
    problem = write_fixed(target, SHUFFLED.encode(), NEW)
    assert problem is not None and "No space left on device" in problem
    assert target.read_text() == SHUFFLED
    assert leftovers(tmp_path) == []


def test_an_interrupted_write_leaves_the_old_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "train.py"
    target.write_text(SHUFFLED)

    def interrupt(*args: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(write.os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_fixed(target, SHUFFLED.encode(), NEW)
    assert target.read_text() == SHUFFLED
    assert leftovers(tmp_path) == []


def test_fix_through_the_cli_gives_the_file_a_new_inode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "train.py"
    target.write_text(SHUFFLED)
    before = os.stat(target).st_ino
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--isolated", "--no-cache", "--fix", "-q", "train.py"]) == 0
    assert "generator=torch.Generator().manual_seed(0)" in target.read_text()
    assert os.stat(target).st_ino != before
    assert leftovers(tmp_path) == []


# -- the process pool ------------------------------------------------------------------------
def pool_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lower the pool's thresholds to 2 items and 0 bytes, wherever they are read (a pool
    asked to stay, stays)."""
    monkeypatch.setattr(pool, "MIN_ITEMS", 2)
    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    real = pool.pool_map

    def forced(
        function: Callable[[Any], Any],
        items: Sequence[Any],
        sizes: Sequence[int],
        processes: int,
        **options: Any,
    ) -> list[Any]:
        keep = bool(options.get("keep"))
        return real(function, items, sizes, processes, min_items=2, min_bytes=0, keep=keep)

    monkeypatch.setattr(files, "pool_map", forced)


def record_pids(monkeypatch: pytest.MonkeyPatch, name: str, log: Path) -> Callable[[], set[int]]:
    """Wrap ``files.<name>`` (the function the pool runs) to log the pid of each call."""
    real = getattr(files, name)

    def logged(task: FileTask) -> Any:
        with open(log, "a") as handle:
            handle.write(f"{os.getpid()}\n")
        return real(task)

    monkeypatch.setattr(files, name, logged)
    return lambda: {int(line) for line in log.read_text().split()} if log.exists() else set()


def many_files(folder: Path, count: int = 12) -> list[FileTask]:
    settings = Settings(root=folder)
    tasks = []
    for index in range(count):
        path = folder / f"m{index:02d}.py"
        path.write_text((SHUFFLED if index % 3 else TWO_RULES) + f"\nvalue = {index}\n")
        tasks.append(FileTask(path, path.name, settings))
    return tasks


@pytest.mark.skipif(not pool.can_fork(), reason="no fork on this platform")
def test_check_runs_in_the_pool_and_jobs_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = many_files(tmp_path)
    serial = check_files(tasks, 1, None)
    pool_forced(monkeypatch)
    pids = record_pids(monkeypatch, "_check_task", tmp_path / "pids.log")
    parallel = check_files(tasks, 2, None)
    workers = pids() - {os.getpid()}
    assert workers, "the check never ran in a forked worker"
    assert parallel == serial
    assert sorted(f.code for f in serial).count("RNG002") == 4


@pytest.mark.skipif(not pool.can_fork(), reason="no fork on this platform")
def test_fix_runs_in_the_pool_and_jobs_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = many_files(tmp_path)
    serial = fix_files(tasks, 1, write=False)
    pool_forced(monkeypatch)
    pids = record_pids(monkeypatch, "_fix_task", tmp_path / "pids.log")
    parallel = fix_files(tasks, 2, write=False)
    assert pids() - {os.getpid()}, "the fix never ran in a forked worker"
    assert parallel.diff == serial.diff and parallel.diff.count("+++ ") == len(tasks)
    assert parallel.remaining == serial.remaining and parallel.errors == serial.errors == []
    assert [f.code for f in parallel.fixed] == [f.code for f in serial.fixed]


@pytest.mark.skipif(not pool.can_fork(), reason="no fork on this platform")
def test_pool_map_uses_forked_workers_above_its_thresholds() -> None:
    items = list(range(40))
    result = pool.pool_map(_pid_and_square, items, [1] * 40, 2, min_items=2, min_bytes=0)
    assert [square for _, square in result] == [i * i for i in items]
    assert {pid for pid, _ in result} - {os.getpid()}
    serial = pool.pool_map(_pid_and_square, items, [1] * 40, 2, min_items=41, min_bytes=0)
    assert {pid for pid, _ in serial} == {os.getpid()}


def _pid_and_square(item: int) -> tuple[int, int]:
    return os.getpid(), item * item


@pytest.mark.skipif(not pool.can_fork(), reason="no fork on this platform")
def test_a_kept_pool_takes_work_until_it_is_closed() -> None:
    """A kept pool's workers take work until it is closed, or until another pool forks (its
    threads must not run across a fork); a map run in this process leaves it be."""
    items = list(range(40))

    def kept_worker() -> bool:
        future = pool.submit_kept(_pid_and_square, 7)
        return future is not None and future.result() != (os.getpid(), 49)

    pool.pool_map(_pid_and_square, items, [1] * 40, 2, min_items=2, min_bytes=0, keep=True)
    assert kept_worker()
    pool.pool_map(_pid_and_square, items, [1] * 40, 2, min_items=41, min_bytes=0)  # no fork
    assert kept_worker()
    pool.close_kept()
    assert pool.submit_kept(_pid_and_square, 7) is None
    pool.pool_map(_pid_and_square, items, [1] * 40, 2, min_items=2, min_bytes=0, keep=True)
    assert kept_worker()
    pool.pool_map(_pid_and_square, items, [1] * 40, 2, min_items=2, min_bytes=0)  # forks
    assert pool.submit_kept(_pid_and_square, 7) is None  # closed before the fork, not kept


_PARSED_IN: list[Path] = []  # where the kept workers log the pids that parsed on demand


_COMPUTE_WITH = summaries._compute_with


def _logged_compute_with(item: Any) -> Any:
    with open(_PARSED_IN[0], "a") as handle:
        handle.write(f"{os.getpid()}\n")
    return _COMPUTE_WITH(item)


@pytest.mark.skipif(not pool.can_fork(), reason="no fork on this platform")
def test_the_index_parses_on_demand_in_the_check_passs_kept_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A helper in a module no rule parses is parsed when a program's answers need it: by the
    check pass's workers, kept idle for it, while the main process searches for callers. The
    answers are those of a run in one process: the helper seeds torch, so the program that
    seeds `random` and calls it has no RNG004 finding."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    helper = "import torch\n\n\ndef set_seed(s):\n    torch.manual_seed(s)\n"
    (project / "helpers.py").write_text(helper)
    (project / "train.py").write_text(
        "import random\n\nimport torch\n\nfrom helpers import set_seed\n\n"
        "random.seed(0)\nset_seed(0)\nmodel = torch.nn.Linear(2, 2)\n"
    )
    for index in range(4):
        (project / f"other{index}.py").write_text(f"value = {index}\n")

    def run(*extra: str) -> list[Any]:
        cli.main(["check", "--no-cache", "--output-format", "json", *extra, str(project)])
        return sorted(json.loads(capsys.readouterr().out), key=lambda f: str(f))

    serial = run("--jobs", "1")
    pool_forced(monkeypatch)
    monkeypatch.setattr(summaries, "_compute_with", _logged_compute_with)
    _PARSED_IN[:] = [tmp_path / "pids.log"]
    parallel = run("--jobs", "2")
    parsed_in = {int(line) for line in _PARSED_IN[0].read_text().split()}
    assert parsed_in and os.getpid() not in parsed_in, "not parsed by a kept worker"
    assert parallel == serial
    assert not [f for f in serial if f["code"] == "RNG004"]
    assert pool.submit_kept(_pid_and_square, 1) is None  # closed at the end of the run


# -- noqa honours its code list --------------------------------------------------------------
LOADER_LINE = "loader = DataLoader(range(8), shuffle=True)"


@pytest.mark.parametrize(
    ("comment", "suppressed"),
    [
        ("# noqa", True),
        ("# noqa: RNG001", True),
        ("# noqa:RNG002,RNG001", True),
        ("# noqa: RNG", True),  # a prefix, as ruff reads it
        ("# noqa: RNG002", False),
        ("# noqa: RNG0011", False),
        ("# noqa: E501, F401", False),
        ("# NOQA: RNG003 RNG004", False),
    ],
)
def test_noqa_honours_its_code_list(comment: str, suppressed: bool) -> None:
    assert line_suppresses(f"{LOADER_LINE}  {comment}", "RNG001") is suppressed
    text = SHUFFLED.replace(LOADER_LINE, f"{LOADER_LINE}  {comment}")
    found = [f.code for f in check_text(text, "train.py", Settings()).findings]
    assert found == ([] if suppressed else ["RNG001"])


@pytest.mark.parametrize(
    ("header", "suppressed"),
    [
        ("# seedlint: noqa", True),
        ("# seedlint: noqa: RNG001", True),
        ("# seedlint: noqa: RNG002", False),
        ("# seedlint: noqa: RNG002, RNG003", False),
        ("# flake8: noqa: RNG002", False),  # ruff's meaning: that code in the file
    ],
)
def test_file_noqa_honours_its_code_list(header: str, suppressed: bool) -> None:
    text = header + "\n" + SHUFFLED
    assert file_exemption(text).covers("RNG001") is suppressed
    found = [f.code for f in check_text(text, "train.py", Settings()).findings]
    assert found == ([] if suppressed else ["RNG001"])


# -- the fix loop's compile check ------------------------------------------------------------
@pytest.mark.parametrize(
    "broken",
    [
        "loader = DataLoader(range(8), shuffle=True, generator=(\n",  # does not parse
        "return DataLoader(range(8), shuffle=True)\n",  # parses, but does not compile
    ],
    ids=["syntax-error", "compile-error"],
)
def test_fix_loop_rejects_a_codemod_that_breaks_the_code(
    monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    from seedlint.fixes import transform

    def bad_codemod(module: Any, changes: Any, positions: Any) -> str:
        return str(module.code).replace(LOADER_LINE + "\n", broken)

    monkeypatch.setattr(transform, "apply_changes", bad_codemod)
    result = fix_text(SHUFFLED, "train.py", Settings(), unsafe=True)
    assert result.new_text == SHUFFLED
    assert result.fixed == []
    assert result.error is not None and "does not compile" in result.error
    assert "RNG001" in result.error


def test_fix_loop_accepts_what_compiles() -> None:
    """The other side of the check above: the real codemod's output is kept."""
    result = fix_text(SHUFFLED, "train.py", Settings(), unsafe=False)
    assert result.error is None and result.new_text != SHUFFLED
    assert fix_loop._compiles(result.new_text, "train.py")
