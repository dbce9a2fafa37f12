"""A warm run of many files takes its findings from the last such run's record when every
file's stat key, the settings and the project's loader names are as they were
(``seedlint/run/files.py``): one signed file read instead of an entry per file. Each change
to any of them must give the findings a run without the record gives."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from seedlint import cli
from seedlint.run import cache as cache_module
from tests.test_cli import CLEAN, UNSEEDED

COUNT = 70  # more files than a run that keeps no record (`_RUN_FILES`)


def _age(root: Path) -> None:
    """Every file's modification time 10 s back: stat keys a run trusts at once."""
    for path in root.rglob("*.py"):
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - 10**10))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.seedlint]\n")
    for index in range(COUNT):
        (root / f"m{index:02d}.py").write_text(UNSEEDED if index % 2 else CLEAN)
    return root


def _run(
    project: Path, capsys: pytest.CaptureFixture[str], *extra: str, cache: bool = True
) -> list[tuple[str, str, int]]:
    where = ["--cache-dir", str(project.parent / "cache")] if cache else ["--no-cache"]
    cli.main(["check", *where, "--exit-zero", "--output-format", "json", *extra, "."])
    found = json.loads(capsys.readouterr().out)
    return sorted((Path(f["filename"]).name, f["code"], f["location"]["row"]) for f in found)


def _records(project: Path) -> list[Path]:
    return sorted((project.parent / "cache").glob("*/run-*.json"))


def test_the_record_gives_the_last_findings_and_follows_every_change(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    fresh = _run(project, capsys)  # files written just now: their stat keys are not trusted
    assert not _records(project)
    _age(project)
    assert _run(project, capsys) == fresh
    assert len(_records(project)) == 1
    assert len(fresh) == COUNT // 2

    # The record is what the next run reads: no file's entry is looked up.
    looked: list[str] = []
    by_stat = cache_module.Cache.by_stat

    def counted(self: cache_module.Cache, settings: object, path: str, key: object) -> object:
        looked.append(path)
        return by_stat(self, settings, path, key)  # type: ignore[arg-type]

    monkeypatch.setattr(cache_module.Cache, "by_stat", counted)
    assert _run(project, capsys) == fresh
    assert looked == []

    # An edited file (another stat key): its findings change, the record follows.
    (project / "m01.py").write_text(CLEAN)
    _age(project)
    expected = _run(project, capsys, cache=False)
    assert _run(project, capsys) == expected == [f for f in fresh if f[0] != "m01.py"]
    looked.clear()
    assert _run(project, capsys) == expected and looked == []

    # Other settings: another record, never the first one's findings.
    assert _run(project, capsys, "--ignore", "RNG001") == []
    assert _run(project, capsys) == expected

    # Another set of files: a file gone, a file added.
    (project / "m03.py").unlink()
    (project / "new.py").write_text(UNSEEDED)
    _age(project)
    expected = _run(project, capsys, cache=False)
    assert ("new.py", "RNG001", 3) in expected and not any(f[0] == "m03.py" for f in expected)
    assert _run(project, capsys) == expected


def test_a_record_seedlint_did_not_write_is_ignored(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    _age(project)
    expected = _run(project, capsys)
    assert _run(project, capsys) == expected
    (record,) = _records(project)
    mac, _, body = record.read_bytes().partition(b"\n")
    data = json.loads(body)
    data["files"] = []  # no findings, under the old MAC
    record.write_bytes(mac + b"\n" + json.dumps(data).encode())
    assert _run(project, capsys) == expected


def test_a_run_of_few_files_keeps_no_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for index in range(3):
        (tmp_path / f"m{index}.py").write_text(UNSEEDED)
    _age(tmp_path)
    monkeypatch.chdir(tmp_path)
    cli.main(["check", "--cache-dir", str(tmp_path / "cache"), "--exit-zero", "."])
    capsys.readouterr()
    assert not list((tmp_path / "cache").glob("*/run-*.json"))
    assert list((tmp_path / "cache").glob("*/*.json"))  # the files' own entries


def test_a_run_of_part_of_a_project_follows_the_files_it_does_not_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`seedlint check src` reads `helpers/seeding.py` for the index but does not check it: an
    edit there changes `src/train.py`'s findings, whatever the checked files' stat keys."""
    (tmp_path / "pyproject.toml").write_text("[tool.seedlint]\n")
    (tmp_path / "helpers").mkdir()
    (tmp_path / "src").mkdir()
    seeding = tmp_path / "helpers" / "seeding.py"
    seeding.write_text("import torch\n\n\ndef set_seeds(seed):\n    torch.manual_seed(seed)\n")
    (tmp_path / "src" / "train.py").write_text(
        "import numpy as np\nimport torch\n\nfrom helpers.seeding import set_seeds\n\n\n"
        "def main():\n    set_seeds(0)\n    np.random.seed(0)\n    return torch.nn.Linear(2, 2)\n"
        "\n\nif __name__ == '__main__':\n    main()\n"
    )
    for index in range(COUNT):
        (tmp_path / "src" / f"m{index:02d}.py").write_text(f"x = {index}\n")
    _age(tmp_path)
    monkeypatch.chdir(tmp_path)

    def run() -> str:
        cache = str(tmp_path / "cache")
        cli.main(
            ["check", "--cache-dir", cache, "--exit-zero", "--output-format", "concise", "src"]
        )
        return capsys.readouterr().out

    assert run() == run() == "All checks passed!\n"
    seeding.write_text("def set_seeds(seed):\n    pass\n")  # no longer seeds torch
    stat = seeding.stat()
    os.utime(seeding, ns=(stat.st_atime_ns, stat.st_mtime_ns - 10**10))  # the checked: as they were
    assert "src/train.py:9:5: RNG004" in run()
