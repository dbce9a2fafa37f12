"""The project index, at the edges the machine-made mutants found untested (issue 31): what a
file's findings take from other files (a builder's callers), on a cold run and on a warm one
after the other file changed (the cache must not serve the old answer).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedlint import cli

BUILDER = (
    "from torch.utils.data import DataLoader\n\n\n"
    "def build(ds, train):\n    return DataLoader(ds, shuffle=train)\n"
)


def findings(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> list[tuple[str, int, str, str]]:
    monkeypatch.chdir(project)
    capsys.readouterr()
    code = cli.main(["check", "--output-format", "json", *args])
    out = json.loads(capsys.readouterr().out)
    assert code == (1 if out else 0)
    return sorted(
        (Path(f["filename"]).name, f["location"]["row"], f["code"], f["message"]) for f in out
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "lib.py").write_text(BUILDER)
    return tmp_path


@pytest.mark.parametrize("cache", [["--no-cache"], ["--cache-dir", "cache"]], ids=["cold", "warm"])
def test_a_builders_finding_follows_its_callers(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    cache: list[str],
) -> None:
    train = project / "train.py"
    train.write_text("from lib import build\n\nloader = build(range(8), True)\n")
    flagged = [
        (
            "lib.py",
            5,
            "RNG001",
            "DataLoader shuffles without a `generator` (shuffle=True from `train.py:3`)",
        )
    ]
    assert findings(project, monkeypatch, capsys, *cache, ".") == flagged
    train.write_text("from lib import build\n\nloader = build(range(8), False)\n")
    assert findings(project, monkeypatch, capsys, *cache, ".") == []
    train.write_text("from lib import build\n\nloader = build(range(8), train=True)\n")
    assert findings(project, monkeypatch, capsys, *cache, ".") == flagged
    # Only lib.py named: its callers are still the project's.
    assert findings(project, monkeypatch, capsys, *cache, "lib.py") == flagged


def test_a_rebound_parameter_or_a_local_is_no_builder_parameter(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A loader argument is the caller's only when it is, as written, a parameter bound once:
    a parameter the function rebinds, or a local variable, is its own value."""
    (project / "lib.py").write_text(
        "from torch.utils.data import DataLoader\n\n\n"
        "def build(ds, train):\n    train = False\n    return DataLoader(ds, shuffle=train)\n\n\n"
        "def local(ds):\n    shuffle = True\n    return DataLoader(ds, shuffle=shuffle)\n"
    )
    (project / "train.py").write_text(
        "from lib import build, local\n\nloader = build(range(8), True)\nother = local(range(8))\n"
    )
    assert findings(project, monkeypatch, capsys, "--no-cache", ".") == [
        (
            "lib.py",
            11,
            "RNG001",
            "DataLoader shuffles without a `generator`: its order depends on the global torch "
            "generator",
        )
    ]
