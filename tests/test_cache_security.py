"""The cache folder is untrusted input: links, forged or committed tables, foreign entries."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from seedlint.config import Settings
from seedlint.core import Finding
from seedlint.run.cache import CACHE_FORMAT, Cache
from seedlint.run.cache import digest as content_digest
from tests.support import UNSEEDED_SCRIPT, run_seedlint

FLAGGED = "RNG001"


def _env(tmp_path: Path, name: str = "key-home") -> dict[str, str]:
    return {"XDG_CACHE_HOME": str(tmp_path / name)}


def check(tree: Path, *args: str, env: dict[str, str]) -> Any:
    proc = run_seedlint(
        "check", "--output-format", "concise", *args, cwd=tree, env=env, clean_env=True
    )
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return proc


def test_a_linked_gitignore_in_the_cache_folder_is_not_written_through(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / ".seedlint_cache").mkdir(parents=True)
    victim = tmp_path / "global-gitignore"
    victim.write_text("*.log\n")
    (tree / ".seedlint_cache" / ".gitignore").symlink_to(victim)
    (tree / ".seedlint_cache" / "CACHEDIR.TAG").symlink_to(tmp_path / "tag-target")
    (tree / "a.py").write_text(UNSEEDED_SCRIPT)
    proc = check(tree, ".", env=_env(tmp_path))
    assert proc.returncode == 1 and FLAGGED in proc.stdout
    assert victim.read_text() == "*.log\n"
    assert not (tmp_path / "tag-target").exists()


def test_a_cache_folder_that_is_a_link_is_refused_with_one_warning(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tree / ".seedlint_cache").symlink_to(Path("..") / "elsewhere")
    (tree / "a.py").write_text(UNSEEDED_SCRIPT)
    (tree / "b.py").write_text(UNSEEDED_SCRIPT)
    proc = check(tree, ".", env=_env(tmp_path))
    assert proc.returncode == 1 and proc.stdout.count(FLAGGED) == 2
    assert list(elsewhere.iterdir()) == []
    assert proc.stderr.count("warning") == 1 and "symbolic link" in proc.stderr


def test_a_linked_version_folder_is_refused(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    cache = tree / ".seedlint_cache"
    cache.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    version_folder = Cache(cache)._folder  # the folder name this build uses
    version_folder.symlink_to(elsewhere)
    (tree / "a.py").write_text(UNSEEDED_SCRIPT)
    proc = check(tree, ".", env=_env(tmp_path))
    assert proc.returncode == 1 and FLAGGED in proc.stdout
    assert list(elsewhere.iterdir()) == []
    assert "symbolic link" in proc.stderr


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs chown")
def test_a_cache_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    cache = tree / ".seedlint_cache"
    cache.mkdir(parents=True)
    os.chown(cache, 65534, 65534)
    (tree / "a.py").write_text(UNSEEDED_SCRIPT)
    proc = check(tree, ".", env=_env(tmp_path))
    assert proc.returncode == 1 and FLAGGED in proc.stdout
    assert "not yours" in proc.stderr and list(cache.iterdir()) == []


def _tables(tree: Path) -> list[Path]:
    """The findings tables (the summary table, ``summaries-*.json``, is another file)."""
    return sorted((tree / ".seedlint_cache").rglob(f"*-{CACHE_FORMAT}.jsonl"))


def _entries(body: bytes) -> dict[str, Any]:
    """A table's body, one line per file: its path and its entry, each as JSON."""
    pairs = (line.split("\t", 1) for line in body.decode().splitlines())
    return {json.loads(path): json.loads(entry) for path, entry in pairs}


def _body(entries: dict[str, Any]) -> bytes:
    return "\n".join(f"{json.dumps(k)}\t{json.dumps(v)}" for k, v in entries.items()).encode()


def test_an_edited_table_never_hides_a_finding(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text(UNSEEDED_SCRIPT)
    env = _env(tmp_path)
    assert check(tree, ".", env=env).returncode == 1
    [table] = _tables(tree)
    mac, _, body = table.read_bytes().partition(b"\n")
    data = _entries(body)
    for entry in data.values():
        entry["findings"] = []
        entry["stat"] = None
    table.write_bytes(mac + b"\n" + _body(data))
    proc = check(tree, ".", env=env)
    assert proc.returncode == 1 and FLAGGED in proc.stdout


def test_a_table_written_on_another_machine_never_hides_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A committed cache (tarred and extracted at the same path) was made with another key."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text(UNSEEDED_SCRIPT)
    # The attacker's machine: a clean file at the same path, cached there.
    (tree / "a.py").write_text("import torch\n")
    attacker = _env(tmp_path, "attacker")
    assert check(tree, ".", env=attacker).returncode == 0
    [table] = _tables(tree)
    data = _entries(table.read_bytes().partition(b"\n")[2])
    (tree / "a.py").write_text(UNSEEDED_SCRIPT)
    digest = content_digest(UNSEEDED_SCRIPT.encode())
    for entry in data.values():  # claims: the flagged content has no findings
        entry.update(stat=None, digest=digest, findings=[])
    # Signed with the attacker's key: valid there, not here.
    monkeypatch.setenv("XDG_CACHE_HOME", attacker["XDG_CACHE_HOME"])
    forged = Cache(tree / ".seedlint_cache")
    body = _body(data)
    table.write_bytes(forged._mac(table.name, body).encode() + b"\n" + body)
    assert check(tree, ".", env=attacker).returncode == 0  # the forgery works on its own key
    proc = check(tree, ".", env=_env(tmp_path, "victim"))
    assert proc.returncode == 1 and FLAGGED in proc.stdout


@pytest.mark.parametrize(
    "forged",
    [
        {"path": "/etc/passwd"},
        {"row": "3"},
        {"row": 0},
        {"col": 1.5},
        {"code": "RNG999"},
        {"code": ["RNG001"]},
        {"message": "::warning file=x::owned"},
        {"message": "line\n::error::x"},
        {"fix": ["safe", "::set-output name=x::y"]},
        {"fix": ["sure", "x"]},
        {"noqa_rows": [True]},
        {"cell": -1},
        {"fixable": "yes"},
    ],
)
def test_entries_are_validated_even_with_a_valid_mac(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forged: dict[str, Any]
) -> None:
    """Even a table signed with this user's key (say, by an older build) is checked entry by
    entry: a bad entry is ignored and the file checked again, never printed."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text(UNSEEDED_SCRIPT)
    env = _env(tmp_path)
    assert check(tree, ".", env=env).returncode == 1
    [table] = _tables(tree)
    body = table.read_bytes().partition(b"\n")[2]
    data = _entries(body)
    [entry] = data.values()
    [finding] = entry["findings"]
    finding.update(forged)
    entry["stat"] = None
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    signer = Cache(tree / ".seedlint_cache")
    new_body = _body(data)
    table.write_bytes(signer._mac(table.name, new_body).encode() + b"\n" + new_body)
    proc = check(tree, ".", env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.count(FLAGGED) == 1 and proc.stdout.startswith("a.py:4:")
    assert "::" not in proc.stdout and "passwd" not in proc.stdout and "RNG999" not in proc.stdout


def test_the_cache_folder_depends_on_the_grammar_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "k"))
    here = Cache(tmp_path / "c")._folder
    monkeypatch.setattr(sys, "version_info", (3, sys.version_info[1] + 1, 0, "final", 0))
    assert Cache(tmp_path / "c")._folder != here


def test_a_syntax_error_cached_under_another_grammar_is_not_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "k"))
    settings = Settings(root=tmp_path)
    finding = Finding("RNG000", "invalid-file", "SyntaxError: x", "a.py", 1, 0, 1, 0)
    old = Cache(tmp_path / "c")
    old.put(settings, "a.py", "d", [finding])
    old.save()
    monkeypatch.setattr(sys, "version_info", (3, sys.version_info[1] + 1, 0, "final", 0))
    assert Cache(tmp_path / "c").get(settings, "a.py", "d") is None
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "k"))
    assert Cache(tmp_path / "c").get(settings, "a.py", "d") == [finding]


def test_the_cache_key_does_not_depend_on_the_working_folder(tmp_path: Path) -> None:
    """Two folders share a config (one settings digest) and a cache folder; the same file
    name in each, the same content, but per-file-ignores silence only one of them."""
    (tmp_path / "seedlint.toml").write_text('[per-file-ignores]\n"one/*" = ["RNG001"]\n')
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.py").write_text(UNSEEDED_SCRIPT)
    env = {**_env(tmp_path), "SEEDLINT_CACHE_DIR": str(tmp_path / "shared-cache")}
    config = str(tmp_path / "seedlint.toml")
    first = check(tmp_path / "one", "--config", config, "a.py", env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    second = check(tmp_path / "two", "--config", config, "a.py", env=env)
    assert second.returncode == 1 and FLAGGED in second.stdout


def test_a_nul_in_the_cache_dir_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(UNSEEDED_SCRIPT)
    (tmp_path / "pyproject.toml").write_text('[tool.seedlint]\ncache-dir = "c\\u0000d"\n')
    proc = run_seedlint("check", "a.py", cwd=tmp_path, env=_env(tmp_path), clean_env=True)
    assert proc.returncode == 2 and "internal error" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and "cache" in proc.stderr


def test_clean_refuses_a_linked_cache_folder(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "CACHEDIR.TAG").write_text("created by seedlint\n")
    (elsewhere / "precious.txt").write_text("keep\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / ".seedlint_cache").symlink_to(elsewhere)
    proc = run_seedlint("clean", cwd=tree, env=_env(tmp_path))
    assert proc.returncode == 2 and "internal error" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and "link" in proc.stderr
    assert (elsewhere / "precious.txt").exists()


def test_a_table_keeps_every_path_and_the_lines_it_did_not_decode(tmp_path: Path) -> None:
    """One line per file: a path with a tab, a newline, a quote, a backslash, non-ASCII or an
    undecodable byte comes back as it went in, and a line read but never asked for is written
    back byte for byte."""
    from seedlint.config import Settings
    from seedlint.core import Finding

    cache = Cache(tmp_path / "cache")
    settings = Settings()
    paths = [str(tmp_path / name) for name in ("a.py", "t\tb.py", "n\nc.py", 'q"\\d.py', "é.py")]
    paths.append(os.fsdecode(os.fsencode(str(tmp_path)) + b"/\xff.py"))
    for index, path in enumerate(paths):
        finding = Finding("RNG001", "dataloader-shuffle-without-generator", "m", path, 1, 0, 1, 1)
        cache.put(settings, path, f"d{index}", [finding] if index % 2 else [], (index, 1, 2, 3))
    cache.save()
    [table] = sorted((tmp_path / "cache").rglob(f"*-{CACHE_FORMAT}.jsonl"))
    first = table.read_bytes()
    again = Cache(tmp_path / "cache")
    for index, path in enumerate(paths):
        found = again.by_stat(settings, path, (index, 1, 2, 3))
        assert found is not None and len(found[0]) == index % 2, path
    reread = Cache(tmp_path / "cache")
    assert reread.by_stat(settings, paths[0], (0, 1, 2, 3)) is not None  # one line decoded
    reread.put(settings, paths[0], "d0", [], (0, 1, 2, 3))
    reread.save()
    assert table.read_bytes() == first  # the others written back as they were read


def test_the_code_digest_follows_every_saved_edit_of_the_source(tmp_path: Path) -> None:
    """The cache folder's name carries a digest of seedlint's source files' names, sizes and
    times: an edit (even one keeping the size), an added or a removed file changes it; a
    compiled file, another kind of file or a run that changes nothing does not."""
    from seedlint.run.cache import source_digest

    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    module = package / "sub" / "m.py"
    module.write_text("x = 1\n")
    (package / "a.py").write_text("")
    first = source_digest(str(tmp_path))
    assert source_digest(str(tmp_path)) == first
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "a.py").write_text("")  # not source
    (package / "notes.txt").write_text("")
    assert source_digest(str(tmp_path)) == first
    stat = module.stat()
    module.write_text("x = 2\n")  # the same size
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    second = source_digest(str(tmp_path))
    assert second != first
    (package / "b.py").write_text("")
    third = source_digest(str(tmp_path))
    assert third not in (first, second)
    (package / "b.py").unlink()
    assert source_digest(str(tmp_path)) == second
