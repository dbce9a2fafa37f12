"""The run's caches never change a finding (issue 31): the machine-made mutants of
``seedlint/run`` (the findings' cache, the project summaries' cache, the run record) served a
stale or a wrong entry, and no test compared a warm run with a cold one.

For every project of ``tests/fixtures/projects/``: the findings of a run without a cache are
those of a cold run with one, of a warm run (the files old enough for their stat key to be
trusted), of a warm run after every file was touched (same bytes, new stat key), of a warm run
after one file changed, and of a run in the process pool; and a run of one file (whose
project's other modules come from the summaries' cache) finds what it finds without a cache.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from seedlint import cli
from tests.test_mutants import pool_forced

PROJECTS = Path(__file__).parent / "fixtures" / "projects"
OLD = 1_000_000_000


def check(
    folder: Path, capsys: pytest.CaptureFixture[str], *args: str, path: Path | None = None
) -> list[Any]:
    capsys.readouterr()
    code = cli.main(["check", "--output-format", "json", *args, str(path or folder)])
    out = json.loads(capsys.readouterr().out)
    assert code == (1 if out else 0)
    for finding in out:
        finding["filename"] = os.path.relpath(finding["filename"], folder)
    return sorted(out, key=lambda f: json.dumps(f, sort_keys=True))


def age(folder: Path, when: int = OLD) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            os.utime(path, (when, when))


@pytest.mark.parametrize("name", sorted(p.name for p in PROJECTS.iterdir() if p.is_dir()))
def test_the_caches_never_change_a_finding(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
) -> None:
    folder = tmp_path / name
    shutil.copytree(PROJECTS / name, folder)
    age(folder)
    monkeypatch.chdir(tmp_path)
    plain = check(folder, capsys, "--no-cache")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert check(folder, capsys, *cache) == plain  # cold
    assert (tmp_path / "cache").is_dir()
    assert check(folder, capsys, *cache) == plain  # warm
    age(folder, OLD + 10)  # every stat key changes, no byte does
    assert check(folder, capsys, *cache) == plain
    assert check(folder, capsys, *cache) == plain
    # One file at a time (a pre-commit run): the other modules' summaries from the cache.
    for path in sorted(folder.rglob("*.py"))[:4]:
        alone = check(folder, capsys, "--no-cache", path=path)
        assert check(folder, capsys, *cache, path=path) == alone
        assert check(folder, capsys, *cache, path=path) == alone
    # One file changes: the warm run's findings are those of a run without the cache.
    first = sorted(folder.rglob("*.py"))[0]
    first.write_text(first.read_text() + "\nextra = 1\n")
    age(folder, OLD + 20)
    changed = check(folder, capsys, "--no-cache")
    assert check(folder, capsys, *cache) == changed
    assert check(folder, capsys, *cache, "--jobs", "1") == changed
    pool_forced(monkeypatch)
    assert check(folder, capsys, "--no-cache", "--jobs", "2") == changed
    assert check(folder, capsys, *cache, "--jobs", "2") == changed


def test_a_run_of_many_files_one_without_a_stat_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run of more files than a run record needs, one of which cannot be stat-ed (it
    vanished, say): no record is kept, and every file is still checked."""
    from seedlint.run import files

    folder = tmp_path / "many"
    folder.mkdir()
    for index in range(files._RUN_FILES + 6):
        (folder / f"m{index:03d}.py").write_text(
            "import torch\nfrom torch.utils.data import DataLoader\n\n"
            f"loader = DataLoader(range({index + 1}), shuffle=True)\n"
        )
    age(folder)
    real = files.stat_key
    lost = folder / "m005.py"
    monkeypatch.setattr(files, "stat_key", lambda path: None if path == lost else real(path))
    monkeypatch.chdir(tmp_path)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    for _ in range(2):
        found = check(folder, capsys, *cache)
        assert len(found) == files._RUN_FILES + 6
    assert not list((tmp_path / "cache").rglob("run-*.json"))


SHUFFLED = (
    "import torch\nfrom torch.utils.data import DataLoader\n\n"
    "loader = DataLoader(range(8), shuffle=True)\n"
)


def test_a_run_of_many_files_keeps_a_record_the_next_run_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One file more than a run record needs, old enough to be trusted: the run keeps a record,
    and the next run takes its findings from it (no file's own entry is looked up), the same
    as a run without a cache."""
    from seedlint.run import cache as cache_module
    from seedlint.run import files

    folder = tmp_path / "many"
    folder.mkdir()
    (folder / "shuffled.py").write_text(SHUFFLED)
    for index in range(files._RUN_FILES):
        (folder / f"m{index:03d}.py").write_text(f"x = {index}\n")
    age(folder)
    monkeypatch.chdir(tmp_path)
    plain = check(folder, capsys, "--no-cache")
    assert [(f["filename"], f["code"]) for f in plain] == [("shuffled.py", "RNG001")]
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert check(folder, capsys, *cache) == plain
    assert len(list((tmp_path / "cache").rglob("run-*.json"))) == 1
    looked: list[str] = []
    by_stat = cache_module.Cache.by_stat

    def counted(self: cache_module.Cache, settings: object, path: str, key: object) -> object:
        looked.append(path)
        return by_stat(self, settings, path, key)  # type: ignore[arg-type]

    monkeypatch.setattr(cache_module.Cache, "by_stat", counted)
    assert check(folder, capsys, *cache) == plain
    assert looked == []


def test_links_in_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link to a file inside the folder checked is checked as its own path; a link to a
    file outside it is left out, and neither is a warning."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "o.py").write_text(SHUFFLED)
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("")
    (folder / "inside.py").write_text(SHUFFLED)
    (folder / "alias.py").symlink_to("inside.py")
    (folder / "outside.py").symlink_to(tmp_path / "out" / "o.py")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["check", "--no-cache", "--output-format", "json", "proj"]) == 1
    out, err = capsys.readouterr()
    assert sorted(Path(f["filename"]).name for f in json.loads(out)) == ["alias.py", "inside.py"]
    assert err == ""


def test_a_file_that_cannot_be_read_is_one_finding_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file found but unreadable when its turn comes (its permissions changed, say): an
    RNG000 finding with the system's reason."""
    from seedlint.run import files

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "locked.py").write_text(SHUFFLED)
    real = files.read_regular

    def read(path: Path) -> bytes:
        if Path(path).name == "locked.py":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(files, "read_regular", read)
    monkeypatch.chdir(tmp_path)
    found = check(tmp_path, capsys, "--no-cache")
    assert [(f["filename"], f["code"], f["message"]) for f in found] == [
        ("locked.py", "RNG000", "cannot read: Permission denied")
    ]


@pytest.mark.parametrize(
    ("sizes", "count", "chunks"),
    [
        ([1, 1, 1, 1], 2, [(0, 2), (2, 4)]),
        ([5, 1, 1, 1], 2, [(0, 1), (1, 4)]),  # one big file: a chunk of its own
        ([1, 1, 1], 1, [(0, 3)]),
        ([0, 0, 0], 3, [(0, 3)]),  # sizes unknown: one chunk
        ([], 2, []),
    ],
)
def test_size_chunks_are_about_equal_in_bytes(
    sizes: list[int], count: int, chunks: list[tuple[int, int]]
) -> None:
    from seedlint.run.pool import size_chunks

    assert size_chunks(sizes, count) == chunks


def test_fix_takes_the_project_index_it_builds_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--fix`` builds the project's index before the per-file work (no cache folder): a
    program that seeds torch through a project helper is left as it is, the other is fixed."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "helpers.py").write_text(
        "import torch\n\n\ndef set_seed(s):\n    torch.manual_seed(s)\n"
    )
    head = "import random\n\nimport torch\n\n"
    tail = "model = torch.nn.Linear(2, 2)\n"
    train = head + "from helpers import set_seed\n\nrandom.seed(0)\nset_seed(0)\n" + tail
    other = head + "random.seed(0)\n" + tail
    (tmp_path / "train.py").write_text(train)
    (tmp_path / "other.py").write_text(other)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--fix", "-q", "train.py", "other.py"]) == 0
    assert (tmp_path / "train.py").read_text() == train
    assert (tmp_path / "other.py").read_text() == other.replace(
        "random.seed(0)\n", "random.seed(0)\ntorch.manual_seed(0)\n"
    )


@pytest.mark.parametrize("name", ["helpers", "builders"])
def test_a_warm_run_checks_no_unchanged_file_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """The findings' cache holds each file's findings with the project's answers they took:
    a second run over unchanged files (old enough for their stat keys) checks none of them
    again, and finds the same."""
    from seedlint.run import files

    folder = tmp_path / name
    shutil.copytree(PROJECTS / name, folder)
    age(folder)
    monkeypatch.chdir(tmp_path)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    cold = check(folder, capsys, *cache)
    checked: list[str] = []
    real = files.check_bytes

    def counted(raw: bytes, display: str, settings: Any) -> Any:
        checked.append(display)
        return real(raw, display, settings)

    monkeypatch.setattr(files, "check_bytes", counted)
    assert check(folder, capsys, *cache) == cold
    assert checked == []


def test_the_key_folder_is_made_with_its_parents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cache's secret key lives under XDG_CACHE_HOME, which may not exist yet: it is made,
    with its parents, and the cache is used (no warning)."""
    home = tmp_path / "not" / "yet"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "train.py").write_text(SHUFFLED)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["check", "-q", "--cache-dir", str(tmp_path / "cache"), "train.py"]) == 1
    assert capsys.readouterr().err == ""
    assert (home / "seedlint" / "cache-key").is_file()


@pytest.mark.parametrize(
    ("config", "left_out"),
    [
        ("", ["build/b.py", "venv/v.py"]),  # the default exclusions, by name
        (
            '[tool.seedlint]\nextend-exclude = ["skipme.py"]\n',
            ["build/b.py", "venv/v.py", "skipme.py"],
        ),
        ('[tool.seedlint]\nextend-exclude = ["skip*"]\n', ["build/b.py", "venv/v.py", "skipme.py"]),
    ],
    ids=["defaults", "a-name", "a-glob"],
)
def test_excluded_names_and_globs_are_not_checked(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    config: str,
    left_out: list[str],
) -> None:
    (tmp_path / "pyproject.toml").write_text(config)
    every = ["top.py", "build/b.py", "venv/v.py", "skipme.py"]
    for name in every:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(SHUFFLED)
    monkeypatch.chdir(tmp_path)
    found = check(tmp_path, capsys, "--no-cache")
    assert sorted(f["filename"] for f in found) == sorted(n for n in every if n not in left_out)


def test_fix_of_one_file_named_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file named twice (itself and a link to it) is fixed once: no error, exit 0."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "inside.py").write_text(SHUFFLED)
    (tmp_path / "alias.py").symlink_to("inside.py")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["check", "--no-cache", "--fix", "inside.py", "alias.py"]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == ("Found 1 finding (1 fixed, 0 remaining).\n", "")
    assert (tmp_path / "inside.py").read_text() == SHUFFLED.replace(
        "shuffle=True)", "shuffle=True, generator=torch.Generator().manual_seed(0))"
    )


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_git_ignores_above_the_folder_stop_at_the_repository(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    depth: int,
) -> None:
    """A folder checked inside a git repository (at each depth below its root) follows the
    `.gitignore` files from the repository's root down, never one above that root."""
    outer = tmp_path / "outer"
    repo = outer / "repo"
    (repo / ".git").mkdir(parents=True)
    (outer / ".gitignore").write_text("outside_rule.py\n")  # not the repository's
    (repo / ".gitignore").write_text("inside_rule.py\n")
    folder = repo.joinpath(*[f"d{level}" for level in range(depth)])
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("outside_rule.py", "inside_rule.py", "kept.py"):
        (folder / name).write_text(SHUFFLED)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert (
        cli.main(["check", "--isolated", "--no-cache", "--output-format", "json", str(folder)]) == 1
    )
    found = sorted(Path(f["filename"]).name for f in json.loads(capsys.readouterr().out))
    assert found == ["kept.py", "outside_rule.py"]


def _warm_runs_as_loader_classes_change(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    train: str,
    renamings: tuple[tuple[str, str], ...],
) -> list[list[tuple[str, int, str]]]:
    """``train.py`` (its text) beside ``pkg/loaders.py``, whose first class of each renaming
    is the loader class and the second a plain one: for each, the findings of a run without
    the cache, checked equal to two warm runs'."""
    folder = tmp_path / "proj"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pyproject.toml").write_text("")
    (folder / "pkg" / "__init__.py").write_text("")
    loaders = folder / "pkg" / "loaders.py"
    template = "from torch.utils.data import DataLoader\n\n\nclass {0}(DataLoader):\n    pass\n"
    template += "\n\nclass {1}:\n    def __init__(self, *args, **kwargs):\n        pass\n"
    (folder / "train.py").write_text(train)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    monkeypatch.chdir(tmp_path)
    rows = []
    for when, names in enumerate(renamings):
        loaders.write_text(template.format(*names))
        age(folder, OLD + when)
        plain = check(folder, capsys, "--no-cache")
        assert check(folder, capsys, *cache) == plain
        assert check(folder, capsys, *cache) == plain
        rows.append([(f["filename"], f["location"]["row"], f["code"]) for f in plain])
    return rows


def test_a_warm_run_after_the_projects_loader_classes_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that calls the project's loader classes by names of its own (no loader word in
    it): after another module makes a different name the loader class, a warm run finds what a
    run without the cache finds (the cached findings are kept by the project's loader names)."""
    train = (
        "from pkg.loaders import Audio, Feeder\n\n"
        "audio = Audio(range(8), shuffle=True)\nfed = Feeder(range(8), shuffle=True)\n"
    )
    renamings = (("Audio", "Feeder"), ("Feeder", "Audio"))
    rows = _warm_runs_as_loader_classes_change(tmp_path, monkeypatch, capsys, train, renamings)
    assert rows == [[("train.py", 3, "RNG001")], [("train.py", 4, "RNG001")]]


def test_a_warm_run_after_a_file_loses_its_loader_and_names_a_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cached file whose findings came from the project (it calls `Feeder`, a loader class)
    names `Pump`, which another module then makes the loader class instead: the new name
    makes the file's cached findings stale, and its project answers now equal its one-module
    index's (it calls no loader class of the project), so only its checking again because it
    names a new loader name (``fresh``) drops the finding."""
    train = (
        "from pkg.loaders import Feeder, Pump\n\n"
        "fed = Feeder(range(8), shuffle=True)\nkinds = [Pump]\n"
    )
    renamings = (("Feeder", "Pump"), ("Pump", "Feeder"))
    rows = _warm_runs_as_loader_classes_change(tmp_path, monkeypatch, capsys, train, renamings)
    assert rows == [[("train.py", 3, "RNG001")], []]


def test_a_configured_cache_dir_is_relative_to_its_configuration_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`cache-dir` in the configuration file given (`--config`) names a folder beside that
    file (as ruff reads it), not one in the working folder; the warm run finds the same."""
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[tool.seedlint]\ncache-dir = "build/lint"\n')
    (folder / "train.py").write_text(SHUFFLED)
    age(folder)
    monkeypatch.chdir(tmp_path)
    config = ["--config", str(folder / "pyproject.toml")]
    first = check(folder, capsys, *config)
    assert [(f["filename"], f["code"]) for f in first] == [("train.py", "RNG001")]
    assert (folder / "build" / "lint").is_dir()
    assert not (tmp_path / "build").exists() and not (tmp_path / ".seedlint_cache").exists()
    assert check(folder, capsys, *config) == first


@pytest.mark.parametrize("linked", ["src", "cache"])
def test_checked_paths_are_compared_with_the_cache_folder_as_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], linked: str
) -> None:
    """The checked paths are compared with the cache folder as named, not resolved (thousands
    for pre-commit: no system call each). A checked folder that is a link into the cache
    folder: the cache is refused for the other files it holds, by their name; a checked link to
    a cache folder that holds only what seedlint writes there: the cache is used."""
    (tmp_path / "proj").mkdir()
    store = tmp_path / "store"
    (store / "realsrc").mkdir(parents=True)
    (store / "realsrc" / "a.py").write_text(SHUFFLED)
    (tmp_path / "proj" / "src").symlink_to(Path("..") / "store" / "realsrc")
    other = tmp_path / "other"
    other.mkdir()
    (tmp_path / "proj" / "cache").symlink_to(Path("..") / "other")
    monkeypatch.chdir(tmp_path / "proj")
    folder = "../store" if linked == "src" else "../other"
    paths = ["src"] if linked == "src" else ["src", "cache"]
    capsys.readouterr()
    assert cli.main(["check", "-q", "--cache-dir", folder, *paths]) == 1
    out, err = capsys.readouterr()
    assert "src/a.py:4:10" in out
    if linked == "src":
        assert err == (
            "seedlint: warning: the cache folder ../store is not used: it holds files "
            "seedlint did not write there (`realsrc`)\n"
        )
    else:
        assert err == ""
    assert (linked == "cache") is (other / "CACHEDIR.TAG").exists()


def test_a_cache_table_that_is_a_link_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A findings table replaced by a link (to the same signed bytes, moved out of the cache)
    is not followed: the file is checked again, with the same findings."""
    from seedlint.run import files

    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "train.py").write_text(SHUFFLED)
    age(folder)
    monkeypatch.chdir(tmp_path)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    cold = check(folder, capsys, *cache)
    [table] = (tmp_path / "cache").rglob("*.jsonl")
    away = tmp_path / "away"
    away.mkdir()
    table.rename(away / table.name)
    table.symlink_to(away / table.name)
    checked: list[str] = []
    real = files.check_bytes

    def counted(raw: bytes, display: str, settings: Any) -> Any:
        checked.append(Path(display).name)
        return real(raw, display, settings)

    monkeypatch.setattr(files, "check_bytes", counted)
    assert check(folder, capsys, *cache) == cold
    assert checked == ["train.py"]
    table.unlink()
    (away / table.name).rename(table)  # the same bytes, in place: read
    checked.clear()
    assert check(folder, capsys, *cache) == cold
    assert checked == []


def test_fix_a_file_without_a_stat_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--fix on files, one of which cannot be stat-ed when the work is shared out (its size
    counts as 0): every file is fixed all the same."""
    from seedlint.run import files

    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(SHUFFLED)
    real = files.stat_key
    monkeypatch.setattr(
        files, "stat_key", lambda path: None if Path(path).name == "a.py" else real(path)
    )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["check", "--isolated", "--no-cache", "--fix", "-q", "a.py", "b.py"]) == 0
    for name in ("a.py", "b.py"):
        assert "generator=torch.Generator().manual_seed(0)" in (tmp_path / name).read_text()


@pytest.mark.parametrize("pattern", ["build/", "/build/", "build", "/build"])
def test_a_folder_named_explicitly_is_walked_though_git_ignores_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    pattern: str,
) -> None:
    """``seedlint check build`` where ``.gitignore`` ignores the folder (each pattern form, a
    folder-only one too): the folder named is walked, its files checked."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text(f"{pattern}\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "x.py").write_text(SHUFFLED)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["check", "--no-cache", "--output-format", "concise", "build"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{os.path.join('build', 'x.py')}:4:10: RNG001 ")


def test_fix_a_project_one_of_whose_modules_has_no_stat_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--fix over a project whose index reads a module that cannot be stat-ed (it vanished
    and came back, say): its size counts as 0 when the summaries are shared out, and the fix
    is the same."""
    from seedlint.run import summaries

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "helper.py").write_text(
        "import torch\n\n\ndef make():\n    return torch.randn(2)\n"
    )
    (tmp_path / "train.py").write_text(
        "import torch\nfrom torch.utils.data import DataLoader\n\nfrom helper import make\n\n"
        "torch.manual_seed(0)\nx = make()\nloader = DataLoader(range(8), num_workers=2)\n"
    )
    real = summaries.stat_key
    monkeypatch.setattr(
        summaries, "stat_key", lambda path: None if Path(path).name == "helper.py" else real(path)
    )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["check", "--no-cache", "--fix", "-q", "."]) == 0
    assert "worker_init_fn=seed_worker" in (tmp_path / "train.py").read_text()


@pytest.mark.parametrize(
    ("imports", "parsed_too"),
    [
        ("from os import path\n", False),
        ("from .paths import path\n", True),
        ("from os.path import *\n", True),
    ],
    ids=["absolute", "relative", "star"],
)
def test_a_module_naming_a_caller_word_is_parsed_for_a_relative_or_star_import_only(
    tmp_path: Path, imports: str, parsed_too: bool
) -> None:
    """The lazy index looks for the callers of `set_seeds`: `tools/other.py` names the word
    (its own function) and not the module it comes from; it is parsed only when it imports
    relatively or with a star (the caller may reach `set_seeds` through a module it does not
    name), not for an absolute `from ... import` of names."""
    from tests.test_project_demand import SEEDING, _lazy, _write
    from tests.test_projects import index_for

    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/seeding.py": SEEDING,
            "train.py": "import torch\n\nfrom pkg.seeding import set_seeds\n\n\n"
            "def main():\n    set_seeds(0)\n    return torch.nn.Linear(2, 2)\n\n\n"
            "if __name__ == '__main__':\n    main()\n",
            "tools/other.py": f"import random\n{imports}\n\n"
            "def set_seeds(seed):\n    random.seed(seed)\n    return str(seed)\n\n\n"
            "if __name__ == '__main__':\n    set_seeds(1)\n",
        },
    )
    seeding = str(tmp_path / "pkg" / "seeding.py")
    index, parsed = _lazy(tmp_path, [seeding])
    assert index.answers(seeding) == index_for(tmp_path).answers(seeding)
    expected = ["pkg/seeding.py", *(["tools/other.py"] if parsed_too else []), "train.py"]
    assert sorted(Path(p).relative_to(tmp_path).as_posix() for p in parsed) == expected


def test_build_index_with_a_cache_folder_serves_the_second_build_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """:func:`build_index` given a cache folder keeps the summaries there: a second build over
    unchanged files (old enough for their stat key to be trusted) computes none, and has the
    same summaries."""
    from seedlint.config import Settings, SettingsResolver
    from seedlint.run import summaries

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "helper.py").write_text(
        "import torch\n\n\ndef seed_all(s):\n    torch.manual_seed(s)\n"
    )
    (tmp_path / "train.py").write_text(
        "import random\n\nimport torch\n\nfrom helper import seed_all\n\n"
        "random.seed(0)\nseed_all(0)\nx = torch.rand(2)\n"
    )
    age(tmp_path)
    files = [str(tmp_path / "helper.py"), str(tmp_path / "train.py")]
    computed: list[str] = []
    real = summaries._compute

    def counted(path: str, *args: Any) -> Any:
        computed.append(Path(path).name)
        return real(path, *args)

    monkeypatch.setattr(summaries, "_compute", counted)
    built = []
    for _ in range(2):
        index = summaries.build_index(
            [tmp_path / "train.py"],
            SettingsResolver({}),
            Settings(root=tmp_path),
            tmp_path / "cache",
            1,
            tmp_path,
            True,
            None,
            files,
        )
        assert index is not None
        built.append(index.summaries)
    assert computed == ["train.py", "helper.py"]  # the first build's only
    assert built[1] == built[0]


def test_a_warm_run_serves_findings_with_their_origins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Findings whose value is set elsewhere (an argparse default in the file, a key of a YAML
    config) come from the findings' cache with their origins: the warm run checks no file
    again and prints the same json."""
    from seedlint.run import files

    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("")
    (folder / "config.yaml").write_text("data:\n  workers: 2\n")
    (folder / "train.py").write_text(
        "import argparse\n\nimport torch\nimport yaml\nfrom torch.utils.data import DataLoader\n\n"
        "parser = argparse.ArgumentParser()\n"
        'parser.add_argument("--workers", type=int, default=4)\n'
        'args = parser.parse_args()\nwith open("config.yaml") as f:\n    cfg = yaml.safe_load(f)\n'
        "torch.manual_seed(0)\nfirst = DataLoader(range(8), num_workers=args.workers)\n"
        'second = DataLoader(range(8), num_workers=cfg["data"]["workers"])\n'
    )
    age(folder)
    monkeypatch.chdir(tmp_path)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    cold = check(folder, capsys, *cache)
    assert [f["origin"]["source"] for f in cold] == [
        "argparse default, line 8",
        "set in config.yaml:2",
    ]
    checked: list[str] = []
    real = files.check_bytes

    def counted(raw: bytes, display: str, settings: Any) -> Any:
        checked.append(display)
        return real(raw, display, settings)

    monkeypatch.setattr(files, "check_bytes", counted)
    assert check(folder, capsys, *cache) == cold
    assert checked == []


def test_a_cached_project_walk_sees_a_module_added_in_a_subfolder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A check of one file walks its project through the summaries' cache, whose walk is kept
    with the modification times of every folder: a module added in a subfolder (the project's
    root unchanged) is seen by the next run (a caller passing `train=True`)."""
    folder = tmp_path / "proj"
    (folder / "sub").mkdir(parents=True)
    (folder / "pyproject.toml").write_text("")
    (folder / "lib.py").write_text(
        "from torch.utils.data import DataLoader\n\n\n"
        "def build(ds, train):\n    return DataLoader(ds, shuffle=train)\n"
    )
    (folder / "sub" / "run1.py").write_text(
        "from lib import build\n\nloader = build(range(8), False)\n"
    )
    age(folder)
    for path in (folder, folder / "sub"):
        os.utime(path, (OLD, OLD))
    monkeypatch.chdir(tmp_path)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert check(folder, capsys, *cache, path=folder / "lib.py") == []
    (folder / "sub" / "run2.py").write_text(
        "from lib import build\n\nloader = build(range(8), True)\n"
    )
    os.utime(folder, (OLD, OLD))  # only the subfolder changed
    found = check(folder, capsys, *cache, path=folder / "lib.py")
    assert [(f["filename"], f["location"]["row"], f["message"]) for f in found] == [
        (
            "lib.py",
            5,
            "DataLoader shuffles without a `generator` (shuffle=True from `sub/run2.py:3`)",
        )
    ]
