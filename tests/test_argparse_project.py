"""argparse defaults defined in another module of the project, through the real CLI: the
whole run, one file, standard input, ``--diff`` and the cache agree, and each finding names the
file and line of the default it comes from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support import run_seedlint

PROJECTS = Path(__file__).parent / "fixtures" / "projects"
FACTORY = "data_provider/data_factory.py"


def _project(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root)
    (root / "pyproject.toml").write_text("[tool.seedlint]\n")
    return root


def _findings(root: Path, *args: str, stdin: str | None = None) -> list[tuple[str, int, object]]:
    result = run_seedlint(
        "check", "--output-format", "json", "--select", "RNG002", *args, cwd=root, stdin=stdin
    )
    assert result.returncode in (0, 1), result.stderr
    found = []
    for finding in json.loads(result.stdout):
        origin = finding["origin"]
        if origin is not None:
            origin = (origin["value"], origin["source"], Path(origin["filename"]).name)
        name = (
            Path(finding["filename"]).relative_to(root).as_posix()
            if finding["filename"] != "-"
            else "-"
        )
        found.append((name, finding["location"]["row"], origin))
    return sorted(found, key=lambda item: (item[0], item[1]))


def test_defaults_of_another_module_decide_and_are_named(tmp_path: Path) -> None:
    root = _project(tmp_path, "argparse_modules")
    found = _findings(root, "--no-cache", ".")
    assert found == [
        (FACTORY, 11, ("4", "argparse default, run.py:18", "run.py")),
        (FACTORY, 15, ("2", "argparse default, tools/options.py:9", "options.py")),
        (FACTORY, 17, None),  # defined nowhere: may be anything
        (FACTORY, 19, None),  # a module's attribute
        ("exp/exp_main.py", 15, ("4", "argparse default, run.py:18", "run.py")),
    ]
    # one file, and standard input, answer as the whole run does
    factory = [item for item in found if item[0] == FACTORY]
    assert _findings(root, "--no-cache", FACTORY) == factory
    text = (root / FACTORY).read_text()
    piped = _findings(root, "--no-cache", "--stdin-filename", FACTORY, "-", stdin=text)
    assert piped == factory
    # `--diff` fixes the loaders with workers only (`--num_workers` defaults to 0)
    diff = run_seedlint("check", "--select", "RNG002", "--diff", FACTORY, cwd=root).stdout
    assert "-    DataLoader(data_set, batch_size=2, num_workers=args.workers)" in diff
    assert "-    DataLoader(data_set, batch_size=2, num_workers=args.num_workers)" not in diff
    assert "-    DataLoader(data_set, batch_size=2, num_workers=args.threads)" not in diff


def test_the_cache_follows_a_default_changed_in_another_module(tmp_path: Path) -> None:
    root = _project(tmp_path, "argparse_modules")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    first = _findings(root, *cache, ".")
    assert [row for name, row, _ in first if name == FACTORY] == [11, 15, 17, 19]
    run = root / "run.py"
    original = run.read_text()
    run.write_text(
        original.replace(
            '"--num_workers", type=int, default=0', '"--num_workers", type=int, default=3'
        )
    )
    second = _findings(root, *cache, FACTORY)
    assert (FACTORY, 9, ("3", "argparse default, run.py:17", "run.py")) in second
    # the other program's parser, in a module the project parses only on demand
    options = root / "tools" / "options.py"
    options.write_text(options.read_text().replace("default=2", "default=0"))
    run.write_text(original)
    third = _findings(root, *cache, ".")
    assert [row for name, row, _ in third if name == FACTORY] == [11, 17, 19]
    assert _findings(root, *cache, ".") == third  # warm


def test_an_options_class_of_another_module(tmp_path: Path) -> None:
    root = _project(tmp_path, "options_class")
    expected = [
        (
            "data/loading.py",
            6,
            ("4", "argparse default, options/base_options.py:7", "base_options.py"),
        )
    ]
    assert _findings(root, "--no-cache", ".") == expected
    assert _findings(root, "--no-cache", "data/loading.py") == expected


def test_fix_reads_a_parser_in_a_module_no_rule_parses(tmp_path: Path) -> None:
    """The parser lives in a module whose words need no tree (parsed on demand): `--fix`
    builds its own index, and must read it as the check does (default 0: nothing to fix;
    default 4: the finding and its fix)."""
    root = tmp_path / "fx"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    (root / "pkg" / "__init__.py").write_text("")
    options = (
        "import argparse\n\n\ndef parser():\n    p = argparse.ArgumentParser()\n"
        '    p.add_argument("--workers", type=int, default={})\n    return p\n'
    )
    loader = (
        "from torch.utils.data import DataLoader\n\n\ndef build(ds, args):\n"
        "    return DataLoader(ds, num_workers=args.workers)\n"
    )
    (root / "pkg" / "data.py").write_text(loader)
    for default, found in (
        ("0", []),
        ("4", [("pkg/data.py", 5, ("4", "argparse default, pkg/options.py:6", "options.py"))]),
    ):
        (root / "pkg" / "options.py").write_text(options.format(default))
        assert _findings(root, "--no-cache", ".") == found
        diff = run_seedlint("check", "--no-cache", "--select", "RNG002", "--diff", ".", cwd=root)
        assert ("worker_init_fn=seed_worker" in diff.stdout) == bool(found), diff.stdout
