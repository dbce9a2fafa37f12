"""The project's loader names that no loader word finds (``run.loader_names``): a DataLoader
subclass named ``AudioLoader``, a re-export ``Feeder``, called from a file that holds no
`DataLoader` at all. Checked through the real CLI (one named file, cold, warm, without a cache),
``--fix`` (and the fixed code run with real PyTorch), the cache after an edit elsewhere, and the
pieces: the whole-name scan, the pre-filter, the record."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from seedlint.analysis.facts import AnalysisOptions
from seedlint.config import Settings
from seedlint.engine.selection import selection
from seedlint.prefilter.scan import names_in_code
from seedlint.prefilter.words import hidden_loader_names, project_loaders_set
from seedlint.project.hints import loader_closure
from seedlint.run.cache import Cache
from seedlint.run.loader_names import LoaderNames
from tests.fixtures_support import FIXTURES, expected_findings
from tests.support import run_seedlint

PROJECT = FIXTURES / "projects" / "loader_names"
LOADER_CODES = ("RNG001", "RNG002")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "loader_names"
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text("")
    return root


def _rows(root: Path, *args: str, name: str = "train.py") -> list[tuple[int, str]]:
    result = run_seedlint("check", "--output-format", "json", *args, cwd=root)
    assert result.returncode in (0, 1), result.stderr
    found = json.loads(result.stdout)
    return sorted(
        (f["location"]["row"], f["code"])
        for f in found
        if os.path.basename(f["filename"]) == name and f["code"] in LOADER_CODES
    )


def _expected(path: Path) -> list[tuple[int, str]]:
    return sorted(e for e in expected_findings(path.read_text()) if e[1] in LOADER_CODES)


def test_the_fixture_file_holds_no_loader_word() -> None:
    """What makes the case: the pre-filter's words alone would skip `train.py`."""
    raw = (PROJECT / "train.py").read_bytes()
    assert b"DataLoader" not in raw
    assert not selection(Settings()).may_fire(raw, "train.py")
    assert _expected(PROJECT / "train.py")


def test_one_named_file_cold_warm_and_without_cache(project: Path) -> None:
    """A pre-commit run names `train.py` alone: the names the rest of the project binds are
    found from its files (no record yet), then read from the record (warm), and without a
    cache folder from the files again."""
    expected = _expected(project / "train.py")
    cache = ("--cache-dir", str(project / ".cache"))
    assert _rows(project, *cache, "train.py") == expected  # cold: no record
    records = list((project / ".cache").glob("*/loaders-*.json"))
    assert len(records) == 1
    assert _rows(project, *cache, "train.py") == expected  # warm: the record
    assert _rows(project, "--no-cache", "train.py") == expected
    assert _rows(project, "--no-cache", ".") == expected  # the whole project


def test_a_name_bound_elsewhere_later_reaches_an_unchanged_file(project: Path) -> None:
    """The cache stays correct: `train.py` is unchanged (its stat key too) while another
    module starts, then stops, binding one of the names it calls to a loader class."""
    feeders = project / "pkg" / "feeders.py"
    original = feeders.read_text()
    plain = original.replace("from .loaders import AudioLoader as Feeder", "Feeder = list")
    feeders.write_text(plain)
    cache = ("--cache-dir", str(project / ".cache"))
    without = [row for row in _expected(project / "train.py") if row[0] != 9]
    assert _rows(project, *cache, ".") == without
    feeders.write_text(original)
    assert _rows(project, *cache, ".") == _expected(project / "train.py")
    feeders.write_text(plain)
    assert _rows(project, *cache, ".") == without


def test_fix_seeds_them_and_a_second_fix_changes_nothing(project: Path) -> None:
    train = project / "train.py"
    before = train.read_text()
    fixed = run_seedlint("check", "--no-cache", "--fix", "train.py", cwd=project)
    assert fixed.returncode == 1, fixed.stderr  # the `Bins` calls have no fix: still reported
    after = train.read_text()
    assert after != before
    assert after.count("generator=torch.Generator().manual_seed(0)") == 2  # audio, ordered
    assert after.count("worker_init_fn=seed_worker") == 1  # fed
    compile(after, "train.py", "exec")
    again = run_seedlint("check", "--no-cache", "--fix", "train.py", cwd=project)
    assert train.read_text() == after, again.stdout
    lines = after.splitlines()
    left = _rows(project, "--no-cache", "train.py")
    assert [code for _, code in left] == ["RNG001", "RNG002"]
    assert all("Bins(dataset, True, 4, 2)" in lines[row - 1] for row, _ in left)


def _orders(root: Path) -> tuple[list[int], list[int]]:
    """The first epoch's order of `train.audio` (an AudioLoader) built after the global seed is
    set to 1, then (the module run again) to 2: one process, one import of torch."""
    code = (
        "import importlib, torch\n"
        "torch.manual_seed(1)\n"
        "import train\n"
        "print([int(i) for b in train.audio for i in b])\n"
        "torch.manual_seed(2)\n"
        "importlib.reload(train)\n"
        "print([int(i) for b in train.audio for i in b])\n"
    )
    env = dict(os.environ, PYTHONPATH=str(root))
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.strip().splitlines()
    return json.loads(first), json.loads(second)


def test_the_fixed_loader_no_longer_follows_the_global_stream(project: Path) -> None:
    """Runtime, real PyTorch: before the fix the AudioLoader's order changes with the global
    seed (it draws from the global generator); after it, the order is the same."""
    pytest.importorskip("torch")
    before = _orders(project)
    assert before[0] != before[1]
    run_seedlint("check", "--no-cache", "--fix", "train.py", cwd=project)
    after = _orders(project)
    assert after[0] == after[1]
    assert sorted(after[0]) == sorted(before[0]) == list(range(10))


def test_names_in_code_reads_whole_names_outside_comments_and_strings() -> None:
    names = (b"Feeder",)
    assert names_in_code(b"x = Feeder(1)\n", names)
    assert names_in_code(b"x = pkg.Feeder\n", names)
    assert not names_in_code(b"x = Feeders(1)\n", names)
    assert not names_in_code(b"x = MyFeeder(1)\n", names)
    assert not names_in_code(b"# Feeder(1)\n", names)
    assert not names_in_code(b'"""Feeder(1)"""\n', names)
    assert not names_in_code(b"x = \xc3\xa9Feeder\n", names)  # part of a non-ASCII name


def test_the_loader_rules_pass_a_file_naming_a_project_loader() -> None:
    raw = (PROJECT / "train.py").read_bytes()
    chosen = selection(Settings())
    with project_loaders_set({"AudioLoader"}):
        codes = {rule.code for rule in chosen.firing(raw, "train.py")}
    assert codes == {"RNG001", "RNG002"}  # RNG005 checks DataLoader calls of its own module
    assert not chosen.firing(raw, "train.py")  # and without the names, nothing


def test_closure_and_hidden_names() -> None:
    links = [
        ("AudioLoader", ("",)),  # a loader class
        ("Feeder", ("AudioLoader",)),
        ("SortedLoader", ("Feeder",)),
        ("Unrelated", ("object",)),
        ("MyDataLoader", ("DataLoader",)),
    ]
    names = loader_closure(links, {"DataLoader"})
    assert names == {"AudioLoader", "Feeder", "SortedLoader", "MyDataLoader"}
    # A name holding a loader word is found by the words: not looked for.
    assert hidden_loader_names(names, AnalysisOptions()) == {
        "AudioLoader",
        "Feeder",
        "SortedLoader",
    }


def test_the_record_is_signed_and_read_back(tmp_path: Path) -> None:
    store = Cache(tmp_path / "cache")
    names = LoaderNames(store, str(PROJECT), AnalysisOptions())
    paths = sorted(str(p) for p in PROJECT.rglob("*.py"))
    names.from_files(paths, 1)
    names.found = True
    names.complete(lambda: paths, 1, dict)
    hidden = names.hidden()
    assert {"AudioLoader", "Feeder", "Bins", "Buckets", "SortedLoader", "Batches"} <= hidden
    names.save()
    again = LoaderNames(Cache(tmp_path / "cache"), str(PROJECT), AnalysisOptions())
    assert again.found and again.hidden() == hidden
    (record,) = (tmp_path / "cache").glob("*/loaders-*.json")
    record.write_bytes(record.read_bytes().replace(b"Feeder", b"Feeddr"))
    tampered = LoaderNames(Cache(tmp_path / "cache"), str(PROJECT), AnalysisOptions())
    assert not tampered.found  # not written by seedlint: read as no record


def _settle(root: Path) -> None:
    """Every file's modification time a minute back: the cache trusts no stat key younger than
    its racy window, and the test needs its entries trusted as a user's would be."""
    past = time.time() - 60
    for path in root.rglob("*.py"):
        past += 0.001  # distinct times
        os.utime(path, (past, past))


def test_a_run_naming_only_the_binding_module_keeps_the_cache_right(project: Path) -> None:
    """A pre-commit run names only the module that starts binding `Feeder`: the record learns
    the name there, and the next run of the whole project finds the unchanged `other.py`
    (whose entry in the findings' cache said "nothing") calling it. The findings' cache is
    keyed by the hidden names, so no entry taken without the name is trusted with it."""
    feeders = project / "pkg" / "feeders.py"
    original = feeders.read_text()
    feeders.write_text(
        original.replace("from .loaders import AudioLoader as Feeder", "Feeder = list")
    )
    (project / "other.py").write_text(
        "from pkg.feeders import Feeder\n\nfed = Feeder(range(4), num_workers=2)\n"
    )
    _settle(project)  # stat keys old enough to be trusted by the findings' cache
    cache = ("--cache-dir", str(project / ".cache"))
    assert _rows(project, *cache, ".", name="other.py") == []
    feeders.write_text(original)
    past = time.time() - 30
    os.utime(feeders, (past, past))  # `other.py` keeps its stat key: a cache hit
    _rows(project, *cache, "pkg/feeders.py", name="feeders.py")
    assert _rows(project, *cache, ".", name="other.py") == [(3, "RNG002")]
