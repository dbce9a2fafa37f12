"""A module's bytes rule out loader classes before it is parsed (``seedlint/project/hints.py``).

The project index of a check run asks, for every name a checked file calls through a project
module, whether it is a DataLoader class. A module the check did not parse is then parsed only
when its class hint cannot rule the name out. Each case below writes a project whose checked
file calls a name of such a module, and compares the lazy index's answers with the answers of
an index that parsed every module; the cases where the name may be a loader must still parse.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from seedlint.project.hints import ClassHint, class_hint, possible_loader_names
from seedlint.project.summary import LIGHT
from tests.test_project_demand import _lazy, _write
from tests.test_projects import index_for

TARGETS = frozenset({"torch.utils.data.DataLoader"})


def hint(text: str) -> ClassHint:
    found = class_hint(text.encode())
    assert found is not None
    return found


def loaders(*texts: str) -> frozenset[str]:
    return possible_loader_names({}, [hint(text) for text in texts], TARGETS)


def test_classes_and_their_bases_are_read() -> None:
    found = hint(
        "import torch.nn as nn\nfrom torch.utils.data import DataLoader as DL\n"
        "from typing import Generic\n\nclass A(nn.Module):\n    pass\n\n\n"
        "class B(A, metaclass=Meta):\n    class C(DL):\n        pass\n\n\n"
        "class D:\n    pass\n\n\nclass E[T](Generic[T], list):\n    pass\n"
    )
    assert found.classes == {
        "A": {"Module"},
        "B": {"A"},
        "C": {"DL"},
        "D": frozenset(),
        "E": {"Generic"},  # `list`: a builtin, no loader
    }
    assert ("DataLoader", "DL") in found.renamed
    assert not found.star


def test_loader_names_follow_bases_and_renamed_imports() -> None:
    names = loaders(
        "from torch.utils.data import DataLoader as DL\nclass Mine(DL):\n    pass\n",
        "from .a import Mine as Yours\nclass Theirs(Yours):\n    pass\nclass Other(object):\n"
        "    pass\n",
    )
    assert {"DataLoader", "DL", "Mine", "Yours", "Theirs"} <= names
    assert "Other" not in names


@pytest.mark.parametrize(
    "text",
    [
        "from torch.utils import data\nBase = data.DataLoader\nclass K(Base):\n    pass\n",
        "Base: type = make()\nclass K(Base):\n    pass\n",
        "def f(Base):\n    class K(Base):\n        pass\n",  # a parameter
        "class K(make_base()):\n    pass\n",  # a call
        "class K(*bases):\n    pass\n",
        "class K(A,  # why\n        B):\n    pass\n",  # a comment in the list
    ],
)
def test_bases_the_hint_cannot_read_make_a_possible_loader(text: str) -> None:
    assert "K" in loaders(text)


@pytest.mark.parametrize(
    "text",
    [
        "x: Base = 1\nclass Base:\n    pass\nclass K(Base):\n    pass\n",  # an annotation
        "def f(x: A | Base = None):\n    pass\nclass Base:\n    pass\nclass K(Base):\n    pass\n",
        "class K(object):\n    pass\n",
        "import torch.nn as nn\nclass K(nn.Module):\n    pass\n",
        '"""A docstring: the class of objects."""\nclass K:\n    pass\n',
    ],
)
def test_bases_the_hint_reads_as_no_loader(text: str) -> None:
    assert "K" not in loaders(text)


@pytest.mark.parametrize(
    "text",
    [
        "class\\\n    K(DataLoader):\n    pass\n",  # a continued class statement
        "class Ñame(object):\n    pass\n",  # a name that is not ASCII
    ],
)
def test_text_the_hint_cannot_read_gives_no_hint(text: str) -> None:
    assert class_hint(text.encode()) is None


def test_a_non_ascii_import_makes_its_alias_a_possible_loader() -> None:
    assert "B" in loaders("from m import Ñ as B\nclass K(B):\n    pass\n")


def test_star_imports_and_non_ascii_names_are_never_ruled_out() -> None:
    names = loaders("from m import *\nclass K:\n    pass\n")
    assert hint("from m import *\n").may_hold_loader(("Anything",), names)
    assert hint("x = 1\n").may_hold_loader(("Ñ",), names)
    assert not hint("x = 1\n").may_hold_loader(("K",), frozenset())


def test_parsed_modules_give_their_classes_and_imports() -> None:
    assert possible_loader_names({"light.py": LIGHT}, [], TARGETS) == {"DataLoader"}


# -- the lazy index: what a hint rules out is not parsed; what it cannot, still is ---------
CHECKED = (
    "import torch\nfrom torch.utils.data import DataLoader\n\nfrom pkg import shapes\n\n\n"
    "def build(ds):\n    shapes.{name}(ds)\n    return DataLoader(ds, shuffle=True)\n"
)
# `shuffle` and `loader`: words that make a module need a tree without making a rule fire
SHAPES = (
    "import torch\n\nfrom pkg.base import Base\n\n\nclass Square:\n    shuffle = 1\n\n\n"
    "class Fancy(Base):\n    def __init__(self, ds, shuffle=True):\n"
    "        super().__init__(ds, shuffle=shuffle)\n"
)
BASE = "from torch.utils.data import DataLoader\n\n\nclass Base(DataLoader):\n    pass\n"


@pytest.mark.parametrize(("name", "parsed"), [("Square", False), ("Fancy", True)])
def test_a_name_the_hint_rules_out_is_answered_without_parsing(
    tmp_path: Path, name: str, parsed: bool
) -> None:
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": BASE,
            "pkg/shapes.py": SHAPES,
            "train.py": CHECKED.replace("{name}", name),
        },
    )
    train = str(tmp_path / "train.py")
    full = index_for(tmp_path)
    index, read = _lazy(tmp_path, [train])
    assert index.answers(train) == full.answers(train)
    assert (str(tmp_path / "pkg" / "shapes.py") in read) == parsed
    if parsed:  # the second-level subclass is a loader class: found through the parse
        info = index.loader_class(train, "pkg.shapes.Fancy")
        assert info is not None and info.loader


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_continued_base_lists_and_line_endings(newline: str) -> None:
    text = (
        "import torch.nn as nn\nfrom torch.utils.data import DataLoader\n"
        "class K(nn.\\\n    Module):\n    pass\nclass L(\n    DataLoader,\n):\n    pass\n"
    ).replace("\n", newline)
    found = hint(text)
    assert found.classes == {"K": {"Module"}, "L": {"DataLoader"}}


def test_a_folder_configured_loader_class_reexported_by_a_project_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The index keeps a library name reached through a project module only when it is a
    DataLoader class; the classes of every checked file's settings count, not only the
    root's: `app/` configures `mylib.FastLoader`, which `pkg/loaders.py` re-exports and
    `app/train.py` star-imports."""
    from seedlint import cli

    _write(
        tmp_path,
        {
            "pyproject.toml": "[tool.seedlint]\n",
            "app/seedlint.toml": 'dataloader-classes = ["mylib.FastLoader"]\n',
            "pkg/__init__.py": "",
            "pkg/loaders.py": "from mylib import FastLoader\n\n\ndef make(ds):\n"
            "    return FastLoader(ds)\n",
            "app/train.py": "from pkg.loaders import *\n\nloader = FastLoader([1], shuffle=True)\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    code = cli.main(["check", "--no-cache", "--output-format", "concise", "."])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "app/train.py:3:10: RNG001" in out, out


# -- the summary table keeps the hints -------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "class A:\n    pass\nclass B(A, metaclass=M):\n    pass\n",
        "from x import Loader as L\nfrom m import *\nclass C(L):\n    pass\n",
        "Base = object\nclass D(Base):\n    pass\n",  # a base the hint cannot read: None
        "import Ñ as B\n",  # a non-ASCII import: its alias may be anything
    ],
)
def test_a_hint_round_trips_through_json(text: str) -> None:
    import json

    from seedlint.project.hints import hint_from_json, hint_to_json

    found = class_hint(text.encode())
    assert hint_from_json(json.loads(json.dumps(hint_to_json(found)))) == found


def test_every_fixture_hint_round_trips_through_json() -> None:
    import json

    from seedlint.project.hints import hint_from_json, hint_to_json

    fixtures = sorted((Path(__file__).parent / "fixtures").rglob("*.py"))
    assert fixtures
    for path in fixtures:
        found = class_hint(path.read_bytes())
        assert hint_from_json(json.loads(json.dumps(hint_to_json(found)))) == found, path


@pytest.mark.parametrize("data", [[{}, [], 1], [{"A": "B"}, [], True], [{}, [["a"]], True], "x"])
def test_a_hint_not_as_written_is_refused(data: object) -> None:
    from seedlint.project.hints import hint_from_json

    with pytest.raises(ValueError):
        hint_from_json(data)


# A module that needs a tree (`shuffle`) that no rule parses: the index reads its hint.
SQUARE = "import torch\n\n\nclass Square:\n    shuffle = 1\n"


def test_a_run_that_builds_the_index_again_reads_the_hints_the_table_keeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pkg/shapes.py` is never parsed (its hint rules `Square` out): a warm run that builds
    the index again (a file's stat key changed) takes its hint from the summary table, not
    from its bytes; once the module changes, from its new bytes."""
    import os

    from seedlint import cli
    from seedlint.run import files, summaries

    project = tmp_path / "project"
    _write(
        project,
        {
            "pyproject.toml": "[tool.seedlint]\n",
            "pkg/__init__.py": "",
            "pkg/shapes.py": SQUARE,
            # A literal argument to a project call: the file's answers need the index.
            "train.py": CHECKED.replace("{name}(ds)", "Square(ds, shuffle=True)"),
        },
    )
    cache = str(tmp_path / "cache")
    monkeypatch.chdir(project)

    def touch(path: Path) -> None:  # a new stat key, the same content, not written just now
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - 10**10))

    for path in project.rglob("*.py"):  # stat keys to trust from the first run on
        touch(path)
    read: list[bytes] = []
    original = summaries.class_hint

    def counted(raw: bytes) -> object:
        read.append(raw)
        return original(raw)

    monkeypatch.setattr(summaries, "class_hint", counted)  # the index's, for modules unread
    monkeypatch.setattr(files, "class_hint", counted)  # the check pass's, for modules it read

    def run() -> str:
        code = cli.main(["check", "--cache-dir", cache, "--output-format", "concise", "."])
        out = capsys.readouterr().out
        assert code == 1, out
        assert "train.py:9:12: RNG001" in out, out
        return out

    first = run()
    shapes = project / "pkg" / "shapes.py"
    touch(project / "train.py")
    read.clear()
    assert run() == first
    assert SQUARE.encode() not in read  # the table's hint
    shapes.write_text(SQUARE + "\n\nclass Circle:\n    pass\n")
    touch(shapes)
    read.clear()
    assert run() == first
    assert (SQUARE + "\n\nclass Circle:\n    pass\n").encode() in read  # new content: read
