"""Multi-module fixture projects: RNG004 decided per program, RNG003 through helpers, across
modules.

Each folder of ``tests/fixtures/projects`` is one project; its expected findings are written
beside the code (``# error: RNG004``). The whole project is indexed, then every file checked.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from seedlint.analysis.facts import AnalysisOptions
from seedlint.config import Settings
from seedlint.engine.check import check_text
from seedlint.prefilter.words import project_loaders_set
from seedlint.project.index import ProjectIndex, activate
from seedlint.project.layout import Layout, find_root, module_name
from seedlint.rules import BY_CODE
from seedlint.run.loader_names import LoaderNames, full_summary
from seedlint.run.summaries import _imports_project as imports_project
from seedlint.run.summaries import argparse_modules, summary_of
from tests.fixtures_support import FIXTURES, expected_findings

PROJECTS = FIXTURES / "projects"
CODES = ("RNG001", "RNG002", "RNG003", "RNG004", "RNG005")


def projects() -> list[Path]:
    return sorted(p for p in PROJECTS.iterdir() if p.is_dir())


def loader_names(root: Path) -> LoaderNames:
    """The project's loader names as a run without a record finds them (from its files)."""
    paths = sorted(str(p) for p in root.rglob("*.py"))
    names = LoaderNames(None, str(root), AnalysisOptions())
    names.from_files(paths, 1)
    names.found = True
    names.complete(lambda: paths, 1, dict)
    return names


def index_for(root: Path) -> ProjectIndex:
    paths = sorted(str(p) for p in root.rglob("*.py"))
    summaries = {p: summary_of(Path(p).read_bytes(), p, AnalysisOptions()) for p in paths}
    # A module binding a loader name is summarised from its tree whatever its words.
    for path in loader_names(root).linked():
        summaries[path] = full_summary(Path(path).read_bytes(), path, AnalysisOptions())
    # A module whose bytes may define an argparse dest some loader asks for, as the run's.
    for path in argparse_modules(paths, summaries, [], lambda p: Path(p).read_bytes()):
        summaries[path] = full_summary(Path(path).read_bytes(), path, AnalysisOptions())
    # A module summarised from its bytes that an answer looks into (a base class, a re-export)
    # is parsed, as a run parses it on demand, in rounds, each once.
    tried: set[str] = set()
    while True:
        index = ProjectIndex(Layout(root, paths), summaries)
        for path in paths:
            index.answers(path)
        light = sorted(p for p in index.unread - tried if not summaries[p].full)
        tried.update(light)
        light = [p for p in light if imports_project(p, Path(p).read_bytes(), index.layout)]
        if not light:
            return index
        for path in light:
            summaries[path] = full_summary(Path(path).read_bytes(), path, AnalysisOptions())


@contextlib.contextmanager
def active(index: ProjectIndex) -> Iterator[None]:
    activate(index)
    try:
        with project_loaders_set(loader_names(index.layout.root).hidden()):
            yield
    finally:
        activate(None)


def findings_of(root: Path) -> dict[str, list[tuple[int, str]]]:
    found: dict[str, list[tuple[int, str]]] = {}
    with active(index_for(root)):
        for path in sorted(root.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            checked = check_text(text, str(path), Settings(root=root))
            rows = sorted((f.row, f.code) for f in checked.findings if f.code in CODES)
            found[str(path.relative_to(root))] = rows
    return found


@pytest.mark.parametrize("root", projects(), ids=lambda p: p.name)
def test_project_findings(root: Path) -> None:
    expected = {
        str(path.relative_to(root)): [
            item for item in expected_findings(path.read_text(encoding="utf-8")) if item[1] in CODES
        ]
        for path in sorted(root.rglob("*.py"))
    }
    assert findings_of(root) == expected


def test_every_project_has_a_finding_and_a_clean_file() -> None:
    for root in projects():
        found = findings_of(root)
        assert any(found.values()) or root.name in ("init_chain", "scoped"), root.name
        assert any(not rows for rows in found.values()) or root.name == "tests_as_programs"


def test_messages_are_short() -> None:
    for root in projects():
        with active(index_for(root)):
            for path in sorted(root.rglob("*.py")):
                checked = check_text(path.read_text(), str(path), Settings(root=root))
                for finding in checked.findings:
                    assert len(finding.message) <= 100, finding.message
    assert BY_CODE["RNG004"].name == "torch-unseeded-in-seeded-program"


def test_layout_names_and_imports(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    package = tmp_path / "src" / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "mod.py").write_text("")
    namespace = tmp_path / "scripts" / "ns"
    namespace.mkdir(parents=True)
    (namespace / "helper.py").write_text("")
    script = tmp_path / "scripts" / "run.py"
    script.write_text("")
    assert find_root(package / "sub" / "mod.py") == tmp_path
    assert module_name(package / "sub" / "mod.py", tmp_path) == "pkg.sub.mod"
    assert module_name(package / "__init__.py", tmp_path) == "pkg"
    paths = [str(p) for p in tmp_path.rglob("*.py")]
    layout = Layout(tmp_path, paths)
    mod = str(package / "sub" / "mod.py")
    assert layout.resolve(str(script), "pkg.sub.mod.f") == (mod, ("f",))
    assert layout.resolve(str(script), "ns.helper.g") == (str(namespace / "helper.py"), ("g",))
    assert layout.resolve(mod, "..sub.mod.h") == (mod, ("h",))
    assert layout.resolve(mod, ".mod") == (mod, ())
    assert layout.resolve(str(script), "numpy.random.seed") is None


def test_temp_seed_restores_the_global_state() -> None:
    """The scoped-seeding context manager of the fixture leaves numpy's state as it found it
    (a runtime check of the claim that it is no run-level seeding)."""
    np = pytest.importorskip("numpy")
    namespace: dict[str, object] = {}
    source = (PROJECTS / "scoped" / "utils.py").read_text()
    exec(compile(source, "utils.py", "exec"), namespace)
    temp_seed = namespace["temp_seed"]
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    with temp_seed(5):  # type: ignore[operator]
        inside = np.random.rand()
    after = np.random.get_state()[1]
    assert (before == after).all()
    with temp_seed(5):  # type: ignore[operator]
        assert np.random.rand() == inside


def _cli(root: Path, *args: str) -> list[dict[str, object]]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    result = subprocess.run(
        [sys.executable, "-m", "seedlint", "check", "--output-format", "json", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    data: list[dict[str, object]] = json.loads(result.stdout)
    return data


def test_cache_follows_a_helper_in_another_module(tmp_path: Path) -> None:
    """Edit a helper so that it stops seeding torch: the dependent file's RNG004 appears on the
    next warm run; revert, and it is gone. Only ``train_clean.py`` is named (pre-commit)."""
    root = tmp_path / "helpers"
    shutil.copytree(PROJECTS / "helpers", root)
    (root / "pyproject.toml").write_text("")
    helper = root / "utils" / "seeding.py"
    original = helper.read_text()

    def rng004() -> list[tuple[str, object]]:
        found = _cli(root, "--select", "RNG004", "train_clean.py")
        return [(str(f["filename"]), f["location"]) for f in found]

    assert rng004() == []
    helper.write_text(original.replace("torch.manual_seed(seed)", "pass"))
    assert len(rng004()) == 1
    helper.write_text(original)
    assert rng004() == []


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("helpers", "RNG004"),
        ("base_class", "RNG004"),
        ("star", "RNG004"),
        ("loader_names", "RNG001"),
        ("argparse_modules", "RNG002"),
        ("options_class", "RNG002"),
        ("light_base", "RNG005"),
        ("light_reexport", "RNG001"),
    ],
)
def test_flake8_plugin_equals_the_cli(tmp_path: Path, name: str, code: str) -> None:
    """flake8 sees one file at a time; the plugin's index (and, for `loader_names`, the
    project's loader names found from its files) makes its findings the CLI's."""
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root)
    (root / "setup.cfg").write_text("[flake8]\nselect = RNG\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    env["SEEDLINT_NO_CACHE"] = "1"
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "RNG", "-j", "1", *files],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    flake8 = sorted(
        (os.path.normpath(line.split(":")[0]), int(line.split(":")[1]), line.split()[1])
        for line in result.stdout.splitlines()
        if line.strip()
    )
    cli = sorted(
        (os.path.relpath(str(f["filename"]), root), _row(f), str(f["code"]))
        for f in _cli(root, "--no-cache", *files)
    )
    assert flake8 == cli
    assert any(found == code for _, _, found in cli)


def _row(finding: dict[str, object]) -> int:
    location = finding["location"]
    assert isinstance(location, dict)
    return int(location["row"])


def test_the_cached_walk_sees_added_and_removed_files(tmp_path: Path) -> None:
    from seedlint.config import SettingsResolver
    from seedlint.engine.selection import check_selectors
    from seedlint.run.summaries import SummaryCache, walk_project

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    resolver = SettingsResolver({}, check=check_selectors)
    settings = resolver.default()
    cache = SummaryCache(tmp_path / "cache", AnalysisOptions())
    first = walk_project(tmp_path, resolver, settings, cache)
    assert [Path(p).name for p in first] == ["a.py"]
    assert walk_project(tmp_path, resolver, settings, cache) is first  # reused
    (tmp_path / "pkg" / "b.py").write_text("y = 2\n")
    assert sorted(Path(p).name for p in walk_project(tmp_path, resolver, settings, cache)) == [
        "a.py",
        "b.py",
    ]
    (tmp_path / "pkg" / "a.py").unlink()
    assert [Path(p).name for p in walk_project(tmp_path, resolver, settings, cache)] == ["b.py"]


def test_the_cached_walk_holds_while_a_changed_folder_lists_the_same(tmp_path: Path) -> None:
    """A file saved by renaming a new one over it (editors, git, formatters) changes its
    folder's time, not what the folder holds: the recorded walk is kept, and no table is
    written for it. A new Python file, a new folder holding one, a new configuration file or
    a removed folder still make the walk run again."""
    from seedlint.config import SettingsResolver
    from seedlint.engine.selection import check_selectors
    from seedlint.run.summaries import SummaryCache, walk_project

    (tmp_path / "pyproject.toml").write_text("")
    package = tmp_path / "pkg"
    (package / "inner").mkdir(parents=True)
    (package / "a.py").write_text("x = 1\n")
    (package / "inner" / "c.py").write_text("z = 3\n")
    resolver = SettingsResolver({}, check=check_selectors)
    settings = resolver.default()
    cache = SummaryCache(tmp_path / "cache", AnalysisOptions())
    first = walk_project(tmp_path, resolver, settings, cache)

    def touched(folder: Path) -> None:  # a later time for the folder, whatever the clock
        stat = folder.stat()
        os.utime(folder, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))

    def walked() -> list[str]:
        cache.dirty = False
        return sorted(Path(p).name for p in walk_project(tmp_path, resolver, settings, cache))

    (package / "a.py.tmp").write_text("x = 2\n")
    os.replace(package / "a.py.tmp", package / "a.py")
    (package / "__pycache__").mkdir()  # no source in it
    (package / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"")
    (package / "data" / "deep").mkdir(parents=True)
    (package / "data" / "deep" / "table.csv").write_text("")
    touched(package)
    cache.dirty = False
    assert walk_project(tmp_path, resolver, settings, cache) is first and not cache.dirty
    (package / "new").mkdir()
    (package / "new" / "d.py").write_text("")
    touched(package)
    assert walked() == ["a.py", "c.py", "d.py"] and cache.dirty
    (package / "pyproject.toml").write_text("[tool.seedlint]\nextend-exclude = ['new']\n")
    touched(package)
    assert walked() == ["a.py", "c.py"] and cache.dirty
    (package / "inner" / "c.py").unlink()
    (package / "inner").rmdir()
    touched(package)
    assert walked() == ["a.py"] and cache.dirty
    assert walked() == ["a.py"] and not cache.dirty  # recorded again, and kept


def test_module_keys_equal_the_statement_walk_on_the_fixtures() -> None:
    """The definitions' keys read off the resolver's scopes equal those of a walk of the
    statements (nested functions, methods, classes in functions, definitions in blocks)."""
    import ast
    import warnings

    from seedlint.analysis.facts import AnalysisOptions, ModuleFacts
    from seedlint.project.summary import function_keys, module_keys

    sources = [
        b"def f():\n    def g():\n        class C:\n            def m(self): ...\n",
        b"class A:\n    class B:\n        def m(self): ...\n    if True:\n"
        b"        def n(self): ...\n",
        b"try:\n    def f(): ...\nexcept E:\n    def f(): ...\nmatch x:\n    case 1:\n"
        b"        class K: ...\n",
    ]
    root = Path(__file__).parent / "fixtures"
    sources.extend(path.read_bytes() for path in sorted(root.rglob("*.py")))
    compared = 0
    for source in sources:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # `...(x)` in a fixture: a SyntaxWarning
                tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue  # the fixtures of files that do not parse
        assert module_keys(ModuleFacts(tree, AnalysisOptions(), "")) == function_keys(tree)
        compared += 1
    assert compared > 50


def _callers_by_brute_force(index: ProjectIndex) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Every function's callers, from the callees of every function of the project."""
    callers: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for path, summary in index.summaries.items():
        if summary.full:
            for key in summary.functions:
                for callee in index.callees((path, key)):
                    callers.setdefault(callee, []).append((path, key))
    return callers


_RENAMING_PROJECT = {
    "pkg/__init__.py": "from .core import seed_all as everything\nfrom .base import Base\n",
    "pkg/core.py": "import random\n\ndef seed_all(s):\n    random.seed(s)\n",
    "pkg/base.py": (
        "from .core import seed_all\n\nclass Base:\n    def __init__(self):\n"
        "        seed_all(0)\n\n    def m(self):\n        seed_all(1)\n"
    ),
    "pkg/more.py": "from .base import Base as Renamed\n\nclass Leaf(Renamed):\n    pass\n",
    "app.py": (
        "import pkg\nfrom pkg import Base as B\nfrom pkg.more import Leaf\n"
        "from pkg.core import *\n\n"
        "class D(B):\n    def __init__(self):\n        super().__init__()\n        self.m()\n\n"
        "def outer():\n    def inner():\n        seed_all(2)\n    inner()\n    D()\n    Leaf()\n\n"
        "pkg.everything(0)\nouter()\n"
    ),
}


def test_callers_equal_the_brute_force_call_graph(tmp_path: Path) -> None:
    """The index resolves only the call references whose names may stand for a function
    (its name, an alias, a subclass's for ``__init__``): that finds every caller the whole
    call graph has, on every fixture project and on a project that renames and re-exports."""
    for name, text in _RENAMING_PROJECT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    checked = 0
    for root in [*projects(), tmp_path]:
        index = index_for(root)
        expected = _callers_by_brute_force(index)
        # The project's functions (the index asks for the callers of those only, never of an
        # external seeding call, of torch's randomness, or of a module not read).
        nodes = [
            (path, key) for path, summary in index.summaries.items() for key in summary.functions
        ]
        for node in sorted(nodes):
            assert index.callers(node) == expected.get(node, []), (root.name, node)
            checked += bool(expected.get(node))
    assert checked > 20
    renamed = index_for(tmp_path)
    seed_all = (str(tmp_path / "pkg" / "core.py"), "seed_all")
    init = (str(tmp_path / "pkg" / "base.py"), "Base.__init__")
    assert {key for _, key in renamed.callers(seed_all)} >= {"", "outer.inner", "Base.__init__"}
    assert {key for _, key in renamed.callers(init)} >= {"D.__init__"}  # super().__init__()


def test_call_sites_name_only_references_their_functions_call() -> None:
    """The index looks for the re-exports a caller goes through among the functions' call
    references alone: every call site's references are among them."""
    sites = 0
    for path in sorted(FIXTURES.rglob("*.py")):
        summary = summary_of(path.read_bytes(), str(path), AnalysisOptions())
        calls = {
            reference for function in summary.functions.values() for reference in function.calls
        }
        for site in summary.sites:
            assert set(site.references) <= calls, (path, site)
            sites += 1
    assert sites > 20
