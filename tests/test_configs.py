"""Config files as sources of values (issue 28): what the program loads by a path its code
names, parsed with PyYAML, composed as Hydra composes; a changed config invalidates the cache.

The fixture projects ``tests/fixtures/projects/configs_hydra`` and ``configs_files`` hold the
patterns with their expected findings (``tests/test_projects.py`` checks them); this module
tests the parts and the command line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

from seedlint.analysis.configs import UNKNOWN, ConfigFile, Entry, compose, lookup
from seedlint.project.configs import ConfigFiles, parse, unchanged


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def value_at(entry: Optional[Entry], *keys: str) -> Any:
    assert entry is not None
    found = lookup(entry, entry, list(keys))
    if isinstance(found, Entry):
        return found.value
    return found


# -- parsing ------------------------------------------------------------------------------------
def test_a_yaml_file_gives_its_values_with_their_rows() -> None:
    parsed = parse(b"a:\n  b: 4\n  c: [1, 2]\nd: true\n", "x.yaml")
    assert parsed is not None
    assert value_at(parsed.root, "a", "b") == 4
    assert value_at(parsed.root, "d") is True
    found = lookup(parsed.root, parsed.root, ["a", "b"])
    assert isinstance(found, Entry) and found.row == 2 and found.file == "x.yaml"
    assert value_at(parsed.root, "a", "c", "1") is not None
    assert value_at(parsed.root, "a", "missing") is None


def test_merge_keys_and_anchors_are_followed() -> None:
    text = b"base: &b\n  shuffle: false\n  n: 1\ntrain:\n  <<: *b\n  shuffle: true\n"
    parsed = parse(text, "t.yaml")
    assert parsed is not None
    assert value_at(parsed.root, "train", "shuffle") is True
    assert value_at(parsed.root, "train", "n") == 1


def test_json_is_read_as_yaml() -> None:
    parsed = parse(b'{"loader": {"num_workers": 2, "shuffle": false}}', "c.json")
    assert parsed is not None
    assert value_at(parsed.root, "loader", "num_workers") == 2


def test_an_alias_bomb_is_not_expanded() -> None:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, 9):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    assert parse("\n".join(lines).encode(), "bomb.yaml") is None  # 10**9 nodes: not built


def test_no_python_object_is_ever_built(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = f"x: !!python/object/apply:os.system ['touch {marker}']\ny: !include other.yaml\n"
    parsed = parse(text.encode(), "evil.yaml")
    assert parsed is not None and not marker.exists()
    assert value_at(parsed.root, "x") is UNKNOWN  # a tag no safe loader builds: not known
    assert value_at(parsed.root, "y") is UNKNOWN


def test_what_does_not_parse_is_no_config() -> None:
    assert parse(b"a: [1, 2\n", "bad.yaml") is None
    assert parse(b"\xff\xfe\x00", "bin.yaml") is None
    assert parse(b"---\na: 1\n---\nb: 2\n", "two.yaml") is None  # two documents


def test_files_outside_the_project_are_never_read(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project, {"pyproject.toml": "", "train.py": "", "conf/c.yaml": "a: 1\n"})
    write(tmp_path, {"secret.yaml": "a: 2\n"})
    source = ConfigFiles(str(project / "train.py"))
    assert source.read("conf/c.yaml") is not None
    assert source.read("../secret.yaml") is None
    assert source.read(str(tmp_path / "secret.yaml")) is None
    (project / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    assert source.read("link.yaml") is None  # a link leading out of the project


def test_a_file_over_a_megabyte_is_not_read(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "", "big.yaml": "a: 1\n" + "# pad\n" * 200_000})
    source = ConfigFiles(str(tmp_path / "train.py"))
    assert source.read("big.yaml") is None


def test_every_file_read_or_looked_for_is_recorded(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "", "c.yaml": "a: 1\n"})
    source = ConfigFiles(str(tmp_path / "train.py"))
    source.read("c.yaml")
    source.read("absent.yaml")
    consulted = dict(source.consulted)
    assert consulted[str(tmp_path / "c.yaml")] != ""
    assert consulted[str(tmp_path / "absent.yaml")] == ""
    assert unchanged(consulted)
    (tmp_path / "c.yaml").write_text("a: 2\n")
    assert not unchanged(consulted)
    (tmp_path / "c.yaml").write_text("a: 1\n")
    (tmp_path / "absent.yaml").write_text("b: 1\n")
    assert not unchanged(consulted)  # a file that appeared


# -- Hydra's composition ------------------------------------------------------------------------
class Files:
    """A config source over a dict: path -> text."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def read(self, written: str, folder: Optional[str] = None) -> Optional[ConfigFile]:
        name = f"{folder}/{written}" if folder else written
        text = self.files.get(name)
        return None if text is None else parse(text.encode(), name)


def test_hydra_defaults_groups_self_and_overrides() -> None:
    files = Files(
        {
            "conf/config.yaml": (
                "defaults:\n  - data: a\n  - model: small\n  - override data: b\n  - _self_\n"
                "data:\n  shuffle: true\n"
            ),
            "conf/data/a.yaml": "workers: 1\nshuffle: false\n",
            "conf/data/b.yaml": "workers: 8\nshuffle: false\n",
            "conf/model/small.yaml": "defaults:\n  - backbone: r18\nwidth: 4\n",
            "conf/model/backbone/r18.yaml": "depth: 18\n",
        }
    )
    composed = compose(files, "conf", "config")
    assert value_at(composed, "data", "workers") == 8  # the override's choice
    assert value_at(composed, "data", "shuffle") is True  # _self_ after the groups
    assert value_at(composed, "model", "width") == 4
    assert value_at(composed, "model", "backbone", "depth") == 18  # a group's own defaults


def test_hydra_self_first_lets_the_groups_win() -> None:
    files = Files(
        {
            "c/config.yaml": "defaults:\n  - _self_\n  - data: a\ndata:\n  workers: 0\n",
            "c/data/a.yaml": "workers: 3\n",
        }
    )
    assert value_at(compose(files, "c", "config"), "data", "workers") == 3


def test_hydra_package_headers_and_global_configs() -> None:
    files = Files(
        {
            "c/config.yaml": "defaults:\n  - exp: fast\n  - loader@train.loader: big\n",
            "c/exp/fast.yaml": "# @package _global_\nworkers: 2\n",
            "c/loader/big.yaml": "workers: 16\n",
        }
    )
    composed = compose(files, "c", "config")
    assert value_at(composed, "workers") == 2
    assert value_at(composed, "train", "loader", "workers") == 16


def test_hydra_missing_values_interpolations_and_unseen_choices() -> None:
    files = Files(
        {
            "c/config.yaml": (
                "defaults:\n  - optional extra: none\n"
                "a: ${b.c}\nb:\n  c: 3\nm: ???\nloop: ${loop}\nenv: ${oc.env:HOME}\n"
            ),
        }
    )
    composed = compose(files, "c", "config")
    assert value_at(composed, "a") == 3
    assert value_at(composed, "m") is UNKNOWN
    assert value_at(composed, "loop") is UNKNOWN  # `a: ${a}` ends
    assert value_at(composed, "env") is UNKNOWN
    chosen_later = Files({"c/config.yaml": "defaults:\n  - data: ???\nx: 1\n"})
    assert value_at(compose(chosen_later, "c", "config"), "data", "workers") is UNKNOWN
    assert compose(Files({}), "c", "config") is None


# -- the command line ---------------------------------------------------------------------------
def seedlint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cwd / ".xdg")}
    return subprocess.run(
        [sys.executable, "-m", "seedlint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


PROGRAM = """\
import yaml
from torch.utils.data import DataLoader

config = yaml.safe_load(open("settings.yaml"))
DataLoader(range(4), num_workers=config["loader"]["workers"])
"""


@pytest.mark.parametrize("many", [False, True], ids=["per-file entries", "run record"])
def test_a_changed_config_invalidates_the_cache(tmp_path: Path, many: bool) -> None:
    write(
        tmp_path,
        {"pyproject.toml": "", "train.py": PROGRAM, "settings.yaml": "loader:\n  workers: 2\n"},
    )
    if many:  # a run of 64 files or more keeps one record of the whole run
        write(tmp_path, {f"m{i}.py": f"x = {i}\n" for i in range(70)})
    args = ("check", "--output-format", "concise", "-q", ".")
    assert "RNG002" in seedlint(*args, cwd=tmp_path).stdout
    assert "RNG002" in seedlint(*args, cwd=tmp_path).stdout  # from the cache
    (tmp_path / "settings.yaml").write_text("loader:\n  workers: 0\n")
    assert seedlint(*args, cwd=tmp_path).stdout == ""
    (tmp_path / "settings.yaml").write_text("loader:\n  workers: 3\n")
    assert "num_workers=3" in seedlint(*args, cwd=tmp_path).stdout


def test_json_gives_the_origin_as_a_structured_field(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"pyproject.toml": "", "train.py": PROGRAM, "settings.yaml": "loader:\n  workers: 2\n"},
    )
    for _ in range(2):  # checked, then from the cache: the same field
        out = seedlint("check", "--output-format", "json", "train.py", cwd=tmp_path).stdout
        (item,) = json.loads(out)
        assert item["origin"] == {
            "name": "num_workers",
            "value": "2",
            "source": "set in settings.yaml:2",
            "filename": str(tmp_path / "settings.yaml"),
            "row": 2,
        }
    argparse_program = (
        "import argparse\nfrom torch.utils.data import DataLoader\n"
        "p = argparse.ArgumentParser()\np.add_argument('--workers', type=int, default=4)\n"
        "args = p.parse_args()\nDataLoader(range(4), num_workers=args.workers)\n"
        "DataLoader(range(4), num_workers=2)\n"
    )
    write(tmp_path, {"opts.py": argparse_program})
    out = seedlint("check", "--output-format", "json", "--no-cache", "opts.py", cwd=tmp_path).stdout
    first, second = json.loads(out)
    assert first["origin"]["source"] == "argparse default, line 4"
    assert first["origin"]["row"] == 4
    assert first["origin"]["filename"] == str(tmp_path / "opts.py")
    assert second["origin"] is None  # written at the call


def test_a_hydra_program_is_judged_by_its_composed_config(tmp_path: Path) -> None:
    program = (
        "import hydra\nfrom torch.utils.data import DataLoader\n\n"
        "@hydra.main(version_base=None, config_path='conf', config_name='train')\n"
        "def main(cfg):\n    DataLoader(range(4), num_workers=cfg.data.workers)\n"
    )
    write(
        tmp_path,
        {
            "pyproject.toml": "",
            "train.py": program,
            "conf/train.yaml": "defaults:\n  - data: small\n",
            "conf/data/small.yaml": "workers: 0\n",
            "conf/data/big.yaml": "workers: 6\n",
        },
    )
    args = ("check", "--output-format", "concise", "-q", "train.py")
    assert seedlint(*args, cwd=tmp_path).stdout == ""  # 0 workers: no finding
    (tmp_path / "conf/train.yaml").write_text("defaults:\n  - data: big\n")
    out = seedlint(*args, cwd=tmp_path).stdout
    assert "RNG002" in out and "num_workers=6: set in conf/data/big.yaml:1" in out


def test_only_a_module_naming_a_config_loader_reads_configs(tmp_path: Path) -> None:
    """The value model asks nothing of configs in a module that names no loader (`yaml`,
    `json`, `OmegaConf`, `hydra`): no file is looked for, so its cache entry depends on none."""
    from seedlint.config import Settings
    from seedlint.engine.check import check_text

    write(tmp_path, {"pyproject.toml": "", "settings.yaml": "loader:\n  workers: 2\n"})
    plain = "from torch.utils.data import DataLoader\nDataLoader(range(4), num_workers=cfg.n)\n"
    checked = check_text(plain, str(tmp_path / "plain.py"), Settings(root=tmp_path))
    assert checked.configs == {}
    loading = check_text(PROGRAM, str(tmp_path / "train.py"), Settings(root=tmp_path))
    assert list(loading.configs) == [str(tmp_path / "settings.yaml")]
    assert [f.code for f in loading.findings] == ["RNG002"]
