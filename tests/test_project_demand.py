"""The project index of a check run parses only the modules a question needs (issue 11's speed).

A module with seeding, loader or ``__main__`` words that the check did not parse is *deferred*:
it is parsed only when the asked files' answers look into it (a helper a program calls, a
module a loader class is reached through) or when it names a function whose callers matter.
These tests compare the answers of that lazy index with those of an index that parsed every
module (:func:`tests.test_projects.index_for`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from seedlint.config import Settings, SettingsResolver
from seedlint.project.index import ProjectIndex, needs_project
from seedlint.run.summaries import ProjectSetup
from tests.test_projects import PROJECTS, index_for, projects


def _lazy(root: Path, asked: list[str]) -> tuple[ProjectIndex, list[str]]:
    """The index a check run builds for ``asked`` when the check parsed nothing (every other
    module deferred), and the modules it parsed."""
    parsed: list[str] = []
    parse = ProjectSetup._parse

    def counted(self: ProjectSetup, paths: list[str], *args: Any, **kwargs: Any) -> None:
        parsed.extend(paths)
        parse(self, paths, *args, **kwargs)

    setup = ProjectSetup(SettingsResolver({}), Settings(root=root), None, 1, root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ProjectSetup, "_parse", counted)
        checked = sorted(str(p) for p in root.rglob("*.py"))
        # The project's loader names first, as a run finds them (the check parsed nothing).
        setup.loader_names(checked)
        setup.complete_loaders(lambda: checked, {}, read=False)
        index = setup.build(checked, {}, asked)
    return index, parsed


def _asked(full: ProjectIndex) -> list[str]:
    return sorted(path for path, summary in full.summaries.items() if needs_project(summary))


@pytest.mark.parametrize("root", projects(), ids=lambda p: p.name)
def test_the_lazy_index_answers_as_the_full_one(root: Path, tmp_path: Path) -> None:
    copy = tmp_path / root.name
    shutil.copytree(root, copy)
    full = index_for(copy)
    asked = _asked(full)
    for path in asked:  # each asked file on its own: its demand alone must suffice
        index, _ = _lazy(copy, [path])
        assert index.answers(path) == full.answers(path), path


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


SEEDING = "import random\nimport numpy as np\nimport torch\n\n\ndef set_seeds(seed):\n"
SEEDING += "    random.seed(seed)\n    np.random.seed(seed)\n"
TRAIN = (
    "import torch\n\nimport pkg\n\n\ndef main():\n    pkg.configure(0)\n"
    "    return torch.nn.Linear(2, 2)\n\n\nif __name__ == '__main__':\n    main()\n"
)


def test_a_caller_through_a_renamed_reexport_is_found(tmp_path: Path) -> None:
    """`train.py` never names `set_seeds`: it calls the package's re-export `configure`."""
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "from .seeding import set_seeds as configure\n",
            "pkg/seeding.py": SEEDING,
            "train.py": TRAIN,
        },
    )
    seeding = str(tmp_path / "pkg" / "seeding.py")
    full = index_for(tmp_path)
    (verdict,) = full.unseeded_torch(seeding)
    assert verdict.entry.startswith("train:")  # a program that draws and never seeds torch
    index, parsed = _lazy(tmp_path, [seeding])
    assert index.answers(seeding) == full.answers(seeding)
    assert str(tmp_path / "train.py") in parsed


def test_modules_no_answer_needs_stay_unparsed(tmp_path: Path) -> None:
    """Scripts and seeding modules that neither call the asked helper nor are called by its
    programs are summarised from their bytes: a project's other programs cost nothing."""
    others = {
        f"tools/script_{i}.py": (
            "import random\nimport torch\n\n\ndef main():\n    random.seed(1)\n"
            "    torch.manual_seed(1)\n    return torch.rand(2)\n\n\n"
            "if __name__ == '__main__':\n    main()\n"
        )
        for i in range(5)
    }
    _write(
        tmp_path,
        {
            **others,
            "pkg/__init__.py": "",
            "pkg/seeding.py": SEEDING,
            "pkg/helpers.py": "import torch\n\n\ndef seed_torch(seed):\n"
            "    torch.manual_seed(seed)\n",
            "train.py": "import torch\n\nfrom pkg.helpers import seed_torch\n"
            "from pkg.seeding import set_seeds\n\n\ndef main():\n    set_seeds(0)\n"
            "    seed_torch(0)\n    return torch.nn.Linear(2, 2)\n\n\n"
            "if __name__ == '__main__':\n    main()\n",
        },
    )
    seeding = str(tmp_path / "pkg" / "seeding.py")
    full = index_for(tmp_path)
    assert full.unseeded_torch(seeding) == []  # train.py's program seeds torch through a helper
    index, parsed = _lazy(tmp_path, [seeding])
    assert index.answers(seeding) == full.answers(seeding)
    # train.py names set_seeds (a caller); helpers.py is what its program calls.
    assert sorted(Path(p).name for p in parsed) == ["helpers.py", "seeding.py", "train.py"]


def test_a_caller_through_a_star_reexport_is_found(tmp_path: Path) -> None:
    """`train.py` imports `set_seeds` from the package, which star-imports it: the package
    names no `set_seeds`, the caller no `seeding`."""
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "from .seeding import *\n",
            "pkg/seeding.py": SEEDING,
            "train.py": TRAIN.replace("import pkg\n", "from pkg import set_seeds\n").replace(
                "pkg.configure(0)", "set_seeds(0)"
            ),
        },
    )
    seeding = str(tmp_path / "pkg" / "seeding.py")
    full = index_for(tmp_path)
    (verdict,) = full.unseeded_torch(seeding)
    assert verdict.entry.startswith("train:")
    index, parsed = _lazy(tmp_path, [seeding])
    assert index.answers(seeding) == full.answers(seeding)
    assert {str(tmp_path / "train.py"), str(tmp_path / "pkg" / "__init__.py")} <= set(parsed)


# -- scripts/demand_check.py: the same comparison on whole projects of real code -------------
ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "demand_check.py"
CORPUS = ROOT / "bench" / "corpus"


def _run_script(*folders: Path) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, str(SCRIPT), "--jobs", "2", *map(str, folders)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(args, capture_output=True, text=True, timeout=900, env=env, check=False)


def test_demand_check_script(tmp_path: Path) -> None:
    copies = []
    for root in projects():
        shutil.copytree(root, tmp_path / root.name)
        copies.append(tmp_path / root.name)
    run = _run_script(*copies)
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(run.stdout.splitlines()) == len(copies)
    assert all(line.endswith(", 0 answers differ") for line in run.stdout.splitlines())


@pytest.mark.skipif(
    not CORPUS.is_dir() and not os.environ.get("CI"),  # CI builds it: there it must run
    reason="bench/corpus is not built (python bench/build_corpus.py)",
)
def test_the_lazy_index_answers_as_the_full_one_on_the_corpus() -> None:
    run = _run_script()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 answers differ" in run.stdout and "differs:" not in run.stdout


def test_a_run_naming_an_edited_file_leaves_the_summary_table_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pre-commit run after an edit changes only the named file's summary: the project's
    table is not rewritten for it (the next run computes it again), and findings hold."""
    from seedlint import cli

    root = tmp_path / "builders"
    shutil.copytree(PROJECTS / "builders", root)
    (root / "pyproject.toml").write_text("")
    monkeypatch.chdir(root)
    monkeypatch.setenv("SEEDLINT_CACHE_DIR", str(tmp_path / "cache"))

    def run(*paths: str) -> list[str]:
        cli.main(["check", "--exit-zero", "--output-format", "concise", *paths])
        return sorted(line for line in capsys.readouterr().out.splitlines() if "RNG" in line)

    past = 1_600_000_000  # stat keys older than the racy window: the first run trusts them
    for path in root.rglob("*.py"):
        os.utime(path, (past, past))
    whole = run(".")
    (table,) = (tmp_path / "cache").glob("*/summaries-*.json")
    written = table.read_bytes()
    data = root / "data.py"
    for edit in range(2):
        data.write_text(data.read_text() + f"# edit {edit}\n")
        named = run("data.py")
        assert named == [line for line in whole if line.startswith("data.py:")]
        assert table.read_bytes() == written
    assert run(".") == whole


def test_summary_table_entries_are_decoded_when_used() -> None:
    """A run decodes the table's entries of the modules it asks about only; the others are
    written back as they were read; an entry that does not decode counts as absent."""
    from seedlint.analysis.facts import AnalysisOptions
    from seedlint.project.summary import to_json
    from seedlint.run.summaries import Entries, summary_of

    summary = summary_of(SEEDING.encode(), "seeding.py", AnalysisOptions())
    kept = [[1, 2, 3, 4], "hash-b", to_json(summary)]
    entries = Entries(
        {"/p/a.py": [[1, 2, 3, 4], "hash-a", None], "/p/b.py": kept, "/p/c.py": "not an entry"}
    )
    assert entries.get("/p/c.py") is None
    assert entries.get("/p/a.py") == ((1, 2, 3, 4), "hash-a", None)
    assert "/p/b.py" in entries and sorted(entries.paths()) == ["/p/a.py", "/p/b.py"]
    assert entries.to_json()["/p/b.py"] is kept  # never decoded: written back as read
    decoded = entries.get("/p/b.py")
    assert decoded is not None and decoded[2] == summary


def test_a_files_remembered_absolute_name_follows_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that checks from several folders (the tests, an editor's server) gets each
    folder's file: the name remembered once per run must not outlive a change of folder."""
    from seedlint.run.cache import key_of

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        assert key_of("train.py") == str(tmp_path / name / "train.py")
        assert key_of("../c/./d.py") == str(tmp_path / "c" / "d.py")


def test_the_servers_cheap_test_never_misses_a_module_that_needs_the_project() -> None:
    """`may_need_project` (asked by the language server at every change, before computing a
    summary) says yes for every fixture module whose summary needs the project."""
    from seedlint.engine.check import check_bytes
    from seedlint.project.summary import may_need_project, summarize

    fixtures = Path(__file__).resolve().parent / "fixtures"
    needing = 0
    for path in sorted(fixtures.rglob("*.py")):
        checked = check_bytes(path.read_bytes(), str(path), Settings(root=fixtures))
        if checked.facts is None:
            continue
        if needs_project(summarize(checked.facts)):
            needing += 1
            assert may_need_project(checked.facts), path
        checked.release()
    assert needing >= 20


def test_a_loader_class_under_other_names_is_found(tmp_path: Path) -> None:
    """A DataLoader subclass reached only under a name that is not its own (a renamed
    re-export): the index gates loader questions on the names that may stand for a loader
    class, and that name is among them."""
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "from torch.utils.data import DataLoader\n\n"
            "from .loaders import AudioLoader as Feeder\n",
            "pkg/loaders.py": "from torch.utils.data import DataLoader\n\n\n"
            "class AudioLoader(DataLoader):\n    pass\n",
            "train.py": "import pkg\n\n\ndef main():\n"
            "    return pkg.Feeder(range(4), shuffle=True)\n",
        },
    )
    train = str(tmp_path / "train.py")
    full = index_for(tmp_path)
    found = {qualname for qualname, _ in full.loader_class_answers(train)}
    assert found == {"pkg.Feeder"}
    index, _ = _lazy(tmp_path, [train])
    assert index.answers(train) == full.answers(train)


@pytest.mark.parametrize(
    ("init", "bound"),
    [
        ("from .models import *\n", {"Net"}),
        (
            "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .models import *\n",
            set(),
        ),
        ("import typing\n\nif typing.TYPE_CHECKING:\n    from .models import *\n", set()),
        (
            "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    pass\n"
            "else:\n    from .models import *\n",
            {"Net"},
        ),
    ],
    ids=["plain", "type-checking", "typing-type-checking", "else-branch"],
)
def test_a_star_import_under_type_checking_binds_nothing(
    tmp_path: Path, init: str, bound: set[str]
) -> None:
    """A star import only a type checker runs binds no name at run time, and its modules are
    not read (transformers' `__init__` star-imports every model's module that way)."""
    _write(tmp_path, {"pkg/__init__.py": init, "pkg/models.py": "class Net:\n    pass\n"})
    index = index_for(tmp_path)
    names = {name for name, _ in index.star_bindings(str(tmp_path / "pkg" / "__init__.py"))}
    assert names == bound


def test_a_chain_of_star_imports_longer_than_the_limit_is_not_followed(tmp_path: Path) -> None:
    """Each module star-imports the next: past STAR_MODULES modules what the chain binds is
    unknown (the INCOMPLETE key), below it every name is bound."""
    from seedlint.project.index import INCOMPLETE, STAR_MODULES

    for length, complete in ((STAR_MODULES, True), (STAR_MODULES + 1, False)):
        root = tmp_path / str(length)
        files = {"pkg/__init__.py": "from .m0 import *\n"}
        for i in range(length):
            after = f"from .m{i + 1} import *\n" if i + 1 < length else ""
            files[f"pkg/m{i}.py"] = f"{after}class C{i}:\n    pass\n"
        _write(root, files)
        found = dict(index_for(root).star_bindings(str(root / "pkg" / "__init__.py")))
        assert (INCOMPLETE not in found) is complete
        assert ("C0" in found) and (f"C{length - 1}" in found) is complete
