"""The project index, at the edges the machine-made mutants found untested (issue 31): what a
file's findings take from other files (a builder's callers), on a cold run and on a warm one
after the other file changed (the cache must not serve the old answer).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

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
            "DataLoader shuffles without a `generator` (shuffle=True: assigned at line 10)",
        )
    ]


HELPERS = (
    "import torch\n\n\ndef set_seed(s):\n    torch.manual_seed(s)\n\n\n"
    "def set_other(s):\n    pass\n"
)
PROGRAM = (
    "import random\n\nimport torch\n\nfrom {module} import {helper}\n\n"
    "random.seed(0)\n{helper}(0)\nmodel = torch.nn.Linear(2, 2)\n"
)
UNSEEDED = (
    "This program seeds `random` but never torch (it draws in `other`): add `torch.manual_seed`"
)


@pytest.mark.parametrize(
    ("utils", "module"),
    [
        (None, "helpers"),  # the helper itself
        ("from helpers import set_seed, set_other\n", "utils"),  # a re-export by name
        ("from helpers import *\n", "utils"),  # a re-export by a star import
        ("from helpers import*\n", "utils"),  # the same, unspaced
    ],
    ids=["direct", "by-name", "star", "star-unspaced"],
)
def test_seeding_through_a_helper_and_its_re_exports(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    utils: str | None,
    module: str,
) -> None:
    (project / "helpers.py").write_text(HELPERS)
    if utils is not None:
        (project / "utils.py").write_text(utils)
    (project / "train.py").write_text(PROGRAM.format(module=module, helper="set_seed"))
    (project / "other.py").write_text(PROGRAM.format(module=module, helper="set_other"))
    assert findings(project, monkeypatch, capsys, "--no-cache", ".") == [
        ("other.py", 7, "RNG004", UNSEEDED)
    ]


@pytest.mark.parametrize("star", ["from lib import *\n", "from pkg.lib import *\n"])
def test_a_builders_caller_through_a_star_import(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], star: str
) -> None:
    if "pkg" in star:
        (project / "pkg").mkdir()
        (project / "pkg" / "__init__.py").write_text("")
        (project / "lib.py").rename(project / "pkg" / "lib.py")
    (project / "caller.py").write_text(star + "\nloader = build(range(8), True)\n")
    (project / "ordered.py").write_text(star + "\nloader = build(range(8), False)\n")
    assert findings(project, monkeypatch, capsys, "--no-cache", ".") == [
        (
            "lib.py",
            5,
            "RNG001",
            "DataLoader shuffles without a `generator` (shuffle=True from `caller.py:3`)",
        )
    ]


DEFINED = "class B:\n    pass\n\n\nclass C:\n    pass\n\n\n"


@pytest.mark.parametrize(
    ("first", "second", "bases"),
    [
        ("B", "C", frozenset({"B", "C"})),  # both read: the union
        ("B", "make()", None),  # one unreadable: may be anything
        ("make()", "B", None),
        ("make()", "make()", None),
        ("B", "B", frozenset({"B"})),
    ],
)
def test_a_class_defined_twice_has_the_bases_of_both(
    first: str, second: str, bases: frozenset[str] | None
) -> None:
    from seedlint.project.hints import class_hint

    text = DEFINED + f"class A({first}):\n    pass\n\n\nclass A({second}):\n    pass\n"
    found = class_hint(text.encode())
    assert found is not None
    assert found.classes == {"B": frozenset(), "C": frozenset(), "A": bases}


@pytest.mark.parametrize(
    "init",
    [
        "from .loaders import MyLoader\n",
        "from .loaders import *\n",
        "from .loaders import*\n",
    ],
    ids=["by-name", "star", "star-unspaced"],
)
def test_a_loader_class_through_its_packages_re_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], init: str
) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "loaders.py").write_text(
        "from torch.utils.data import DataLoader\n\n\nclass MyLoader(DataLoader):\n    pass\n"
    )
    (tmp_path / "pkg" / "__init__.py").write_text(init)
    (tmp_path / "train.py").write_text(
        "from pkg import MyLoader\n\nloader = MyLoader(range(8), shuffle=True)\n"
    )
    assert [f[:3] for f in findings(tmp_path, monkeypatch, capsys, "--no-cache", ".")] == [
        ("train.py", 3, "RNG001")
    ]


@pytest.mark.parametrize(
    "base", ["helpers", "helpers.Missing", "pkg", "pkg.mod.Thing", "unknown.Thing"]
)
def test_a_class_whose_base_is_a_module_or_a_missing_name(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], base: str
) -> None:
    """A base that names a module, or a name a module lacks, is no loader class: the calls of
    the subclass are no loader calls, and nothing breaks."""
    (project / "helpers.py").write_text("import torch\n\nvalue = 1\n")
    (project / "pkg").mkdir()
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "mod.py").write_text("Thing = 1\n")
    (project / "train.py").write_text(
        f"import helpers\nimport pkg\nimport pkg.mod\nimport unknown\n\n\nclass D({base}):\n"
        "    pass\n\n\nloader = D(range(8), shuffle=True)\n"
    )
    assert findings(project, monkeypatch, capsys, "--no-cache", ".") == []


LOADER_CLASS = (
    "from torch.utils.data import DataLoader\n\n\nclass MyLoader(DataLoader):\n    pass\n"
)


@pytest.mark.parametrize(
    ("files", "name"),
    [
        # a chain of star imports: what the last module binds is what the first re-exports
        (
            {
                "__init__.py": "from .a import *\n",
                "a.py": "from .b import *\n",
                "b.py": LOADER_CLASS,
            },
            "MyLoader",
        ),
        # a library's loader class through a star import of the library, in a package module
        # that also star-imports a project module
        (
            {
                "__init__.py": "from torch.utils.data import *\nfrom .a import *\n",
                "a.py": "x = 1\n",
            },
            "DataLoader",
        ),
        # ... and through two star imports, the second of the library
        (
            {"__init__.py": "from .a import *\n", "a.py": "from torch.utils.data import *\n"},
            "DataLoader",
        ),
    ],
    ids=["project-chain", "library-beside-project", "library-through-project"],
)
def test_a_loader_class_through_a_chain_of_star_imports(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    name: str,
) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    for file, text in files.items():
        (tmp_path / "pkg" / file).write_text(text)
    (tmp_path / "train.py").write_text(
        f"from pkg import {name}\n\nloader = {name}(range(8), shuffle=True)\n"
    )
    assert [f[:3] for f in findings(tmp_path, monkeypatch, capsys, "--no-cache", ".")] == [
        ("train.py", 3, "RNG001")
    ]


@pytest.mark.parametrize("helpers", [HELPERS, "import torch\n\nvalue = 1\n"], ids=["read", "light"])
def test_a_loader_class_of_another_module_with_a_module_among_its_bases(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    helpers: str,
) -> None:
    """A base that names a module (parsed, or summarised from its bytes) adds nothing to a
    loader class of another module: its calls are still loader calls."""
    (project / "helpers.py").write_text(helpers)
    (project / "loaders.py").write_text(
        "import helpers\nfrom torch.utils.data import DataLoader\n\n\n"
        "class D(helpers, DataLoader):\n    pass\n"
    )
    (project / "train.py").write_text(
        "from loaders import D\n\nloader = D(range(8), shuffle=True)\n"
    )
    assert [f[:3] for f in findings(project, monkeypatch, capsys, "--no-cache", ".")] == [
        ("train.py", 3, "RNG001")
    ]


@pytest.mark.parametrize("where", ["Seeds", "Base"], ids=["inherited", "own"])
def test_seeding_through_a_static_method_reached_through_its_module(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """`helpers.Seeds.set(0)`: a method reached through the module and the class, defined in
    the class or inherited from its base, seeds torch for the program."""
    (project / "helpers.py").write_text(
        "import torch\n\n\nclass Base:\n    @staticmethod\n    def set(s):\n"
        "        torch.manual_seed(s)\n\n\nclass Seeds(Base):\n    pass\n"
    )
    (project / "train.py").write_text(
        "import random\n\nimport torch\n\nimport helpers\n\n"
        f"random.seed(0)\nhelpers.{where}.set(0)\nmodel = torch.nn.Linear(2, 2)\n"
    )
    assert findings(project, monkeypatch, capsys, "--no-cache", ".") == []


PROGRAM_MAIN = (
    "import torch\n\nfrom helpers import setup\n\n\ndef main():\n    setup()\n{torch}"
    '    return torch.nn.Linear(2, 2)\n\n\nif __name__ == "__main__":\n    main()\n'
)


@pytest.mark.parametrize(
    ("seeds", "safety"), [(True, "unsafe"), (False, "safe")], ids=["completed", "alone"]
)
def test_a_helpers_fix_is_unsafe_where_another_program_seeds_torch(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    seeds: bool,
    safety: str,
) -> None:
    """Two programs call a helper that seeds `random`; one of them draws without seeding torch.
    The fix (seed torch in the helper) would change the other program's stream when that one
    seeds torch itself: then it is unsafe."""
    (project / "helpers.py").write_text(
        "import random\n\nimport torch\n\n\ndef setup():\n    random.seed(0)\n"
    )
    (project / "a.py").write_text(
        PROGRAM_MAIN.format(torch="    torch.manual_seed(0)\n" if seeds else "")
    )
    (project / "b.py").write_text(PROGRAM_MAIN.format(torch=""))
    monkeypatch.chdir(project)
    capsys.readouterr()
    cli.main(["check", "--no-cache", "--output-format", "json", "."])
    found = [
        (Path(f["filename"]).name, f["location"]["row"], f["code"], f["fix"]["applicability"])
        for f in json.loads(capsys.readouterr().out)
    ]
    assert found == [("helpers.py", 7, "RNG004", safety)]


def test_seeding_in_a_capture_region_through_another_module_after_a_local_one(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A capture region that seeds itself, then calls a helper of another module that seeds
    the device: both calls are RNG003 findings."""
    (project / "helpers.py").write_text(
        "import torch\n\n\ndef reseed():\n    torch.cuda.manual_seed(1)\n"
    )
    (project / "train.py").write_text(
        "import torch\n\nimport helpers\n\ng = torch.cuda.CUDAGraph()\ng.capture_begin()\n"
        "torch.manual_seed(0)\nhelpers.reseed()\ng.capture_end()\n"
    )
    found = findings(project, monkeypatch, capsys, "--no-cache", ".")
    assert [f[:3] for f in found] == [("train.py", 7, "RNG003"), ("train.py", 8, "RNG003")]


@pytest.mark.parametrize(
    ("stored", "flagged"),
    [
        ('options["worker_init_fn"] = init_worker', False),
        ('options["worker_init_fn"] = partial(init_worker, 7)', False),
        ('options["worker_init_fn"] = partial(init_worker, seed=seed) if seed else None', False),
        ('options["worker_init_fn"] = None if seed is None else partial(init_worker)', False),
        ('options["collate_fn"] = partial(init_worker, seed=seed)', True),  # not the workers
    ],
)
def test_a_worker_init_fn_stored_in_a_keyword_dict_is_no_seeding_helper(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stored: str,
    flagged: bool,
) -> None:
    # `set_seed` is a seeding helper that leaves torch out in every case: flagged at row 9
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "data.py").write_text(
        "import random\nfrom functools import partial\n\nimport numpy as np\nimport torch\n\n\n"
        "def set_seed(seed):\n    random.seed(seed)\n    np.random.seed(seed)\n\n\n"
        "def init_worker(worker_id, seed=0):\n"
        "    np.random.seed(seed + worker_id)\n    random.seed(seed + worker_id)\n\n\n"
        "def make_loader(dataset, seed=None):\n"
        "    options = dict(dataset=dataset, num_workers=2)\n"
        f"    {stored}\n"
        "    return torch.utils.data.DataLoader(**options)\n"
    )
    found = findings(tmp_path, monkeypatch, capsys, "--select", "RNG004", ".")
    rows = [9, 14] if flagged else [9]
    assert [(name, row, code) for name, row, code, _ in found] == [
        ("data.py", row, "RNG004") for row in rows
    ]


TEST_MODULE = (
    '"""Test functions are programs of their own, in a tests folder whatever the file\'s name."""\n'
    "\nimport numpy as np\nimport torch\n\n\n"
    "def test_forward_unseeded():\n"
    "    np.random.seed(0)\n"
    "    model = torch.nn.Linear(2, 2)\n"
    "    assert model(torch.zeros(2)).shape == (2,)\n"
    "\n\n"
    "def test_forward_seeded():\n"
    "    np.random.seed(0)\n"
    "    torch.manual_seed(0)\n"
    "    model = torch.nn.Linear(2, 2)\n"
    "    assert model(torch.zeros(2)).shape == (2,)\n"
)


def test_a_test_function_in_a_test_folder_is_a_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `test_*` function is an entry point in a module of a `tests` or `test` folder (each
    spelling, at any depth), not only in a `test_*.py` file: its program seeds numpy and never
    torch, while the module as a whole seeds torch in its other test."""
    (tmp_path / "pyproject.toml").write_text("")
    folders = ["tests", "test", "src/tests", "pkg/test"]
    for folder in folders:
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "checks.py").write_text(TEST_MODULE)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--no-cache", "--output-format", "json", "."])
    found = sorted(
        (os.path.dirname(os.path.relpath(f["filename"])), f["location"]["row"], f["code"])
        for f in json.loads(capsys.readouterr().out)
    )
    assert found == sorted((os.path.normpath(folder), 8, "RNG004") for folder in folders)


CONFIGS = Path(__file__).parent / "fixtures" / "projects" / "configs_files"


def test_a_config_value_names_its_file_and_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The origin of a value read from a YAML or JSON config is the file and the 1-based line
    that sets it."""
    monkeypatch.chdir(CONFIGS)
    capsys.readouterr()
    cli.main(["check", "--isolated", "--no-cache", "--output-format", "json", "."])
    origins = [f["origin"] for f in json.loads(capsys.readouterr().out) if f["origin"]]
    assert origins
    for origin in origins:
        path = Path(origin["filename"])
        line = path.read_text().splitlines()[origin["row"] - 1]
        assert origin["source"].endswith(f"{path.name}:{origin['row']}")
        key = {"shuffle": "shuffle", "num_workers": "num_workers"}[origin["name"]]
        assert key in line and origin["value"].lower() in line.lower(), (origin, line)


# -- the index's pre-filter: a module that may construct a class whose construction seeds -----
@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("from transformers import Trainer\n\n\nclass T(Trainer):\n    pass\n", True),
        ("import transformers\n\ntrainer = transformers.Trainer(model=None)\n", True),
        # a `Trainer` of another library beside transformers, or none: read from the bytes
        ("import transformers\nimport mylib\n\ntrainer = mylib.Trainer()\n", False),
        ("import transformers\n\nmodel = transformers.AutoModel()\n", False),
        ("from mylib import Trainer\n\ntrainer = Trainer()\n", False),
    ],
)
def test_a_module_without_the_word_seed_is_read_when_it_may_construct_a_trainer(
    text: str, read: bool
) -> None:
    from seedlint.project.summary import needs_tree

    assert needs_tree(text.encode()) is read


def test_a_generator_s_own_seed_is_no_stream_of_a_helper() -> None:
    """`generator.manual_seed(0)` seeds no global stream: beside `np.random.seed` in a library
    function that does not draw, it does not make that function a seeding helper (two
    streams) that RNG004 would report."""
    from seedlint.config import Settings
    from seedlint.engine.check import check_text

    text = (
        "import numpy as np\nimport torch\n\n\ndef prepare(generator: torch.Generator):\n"
        "    np.random.seed(0)\n    generator.manual_seed(0)\n    return generator\n"
    )
    rng004 = Settings(select=("RNG004",))
    assert check_text(text, "gen.py", rng004).findings == []
    # Two global streams (numpy, CUDA) make it a helper, reported at its CUDA seeding.
    helper = text.replace("generator.manual_seed(0)", "torch.cuda.manual_seed(0)")
    assert [f.row for f in check_text(helper, "gen.py", rng004).findings] == [7]


HOOK = (
    "import numpy as np\nimport torch\n\n\n"
    "def sample(x, pytest=False):\n    if pytest:\n        np.random.seed(0)\n"
    "    return x + torch.rand(3)\n"
)


@pytest.mark.parametrize("cache", [["--no-cache"], ["--cache-dir", "cache"]], ids=["cold", "warm"])
def test_a_seeding_hook_runs_as_its_callers_in_other_files_say(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    cache: list[str],
) -> None:
    """`if pytest:` on a parameter with a False default: its seeding runs only where a call in
    another file passes a true value, and the answer follows that file's edits."""
    (project / "lib.py").write_text(HOOK)
    train = project / "train.py"
    program = "from lib import sample\n\nif __name__ == '__main__':\n    sample(1, pytest={})\n"
    train.write_text(program.format("False"))
    args = [*cache, "--select", "RNG004", "."]
    assert findings(project, monkeypatch, capsys, *args) == []
    train.write_text(program.format("True"))
    message = (
        "This program seeds `np.random` but never torch (it draws in `sample`): "
        "add `torch.manual_seed`"
    )
    assert findings(project, monkeypatch, capsys, *args) == [("lib.py", 7, "RNG004", message)]
    train.write_text(program.format("0"))
    assert findings(project, monkeypatch, capsys, *args) == []


def test_a_seeding_hook_whose_caller_cannot_be_read_again_may_run(tmp_path: Path) -> None:
    """The callers' arguments are read from their files when asked: a file gone (or not
    parsing) since its summary was made shows no call, so the hook may run."""
    from seedlint.analysis.facts import AnalysisOptions
    from seedlint.project.index import ProjectIndex
    from seedlint.project.layout import Layout
    from seedlint.project.summary import passed_to
    from seedlint.run.summaries import full_summary

    assert passed_to(b"def (", "", "pytest", 1) == []
    lib, train = str(tmp_path / "lib.py"), str(tmp_path / "train.py")
    program = b"from lib import sample\n\nif __name__ == '__main__':\n    sample(1)\n"
    summaries = {
        lib: full_summary(HOOK.encode(), lib, AnalysisOptions()),
        train: full_summary(program, train, AnalysisOptions()),
    }
    (tmp_path / "lib.py").write_text(HOOK)
    node = (lib, "sample")
    for written, live in ((True, 0), (False, 1)):
        if written:
            (tmp_path / "train.py").write_bytes(program)
        else:
            (tmp_path / "train.py").unlink()
        index = ProjectIndex(Layout(tmp_path, [lib, train]), summaries)
        function = index.function(node)
        assert function is not None and function.seeds[0].guard == "pytest"
        assert len(index.live_seeds(node, function)) == live


def test_a_draw_in_a_module_read_from_its_bytes_is_named_in_the_message(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "models.py").write_text(
        "import torch\n\n\ndef build():\n    return torch.nn.Linear(3, 3)\n"
    )
    (project / "train.py").write_text(
        "import numpy as np\n\nfrom models import build\n\n\n"
        "def main():\n    np.random.seed(0)\n    return build()\n"
    )
    message = (
        "This program seeds `np.random` but never torch (it draws in `models`): "
        "add `torch.manual_seed`"
    )
    found = findings(project, monkeypatch, capsys, "--no-cache", "--select", "RNG004", ".")
    assert found == [("train.py", 7, "RNG004", message)]


# -- RNG002: Lightning's worker seeding decided by the programs reaching a loader ----------------
LIGHTNING_DATA = (
    "import lightning as L\nfrom torch.utils.data import DataLoader\n\n\n"
    "class Data(L.LightningDataModule):\n    def train_dataloader(self):\n"
    "        return DataLoader(range(8), num_workers=4)\n"
)


def test_rng002_names_the_seeder_of_the_program_in_another_module(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "data.py").write_text(LIGHTNING_DATA)
    (project / "train.py").write_text(
        "import lightning as L\n\nfrom data import Data\n\n\ndef main():\n"
        "    L.seed_everything(3)\n    L.Trainer().fit(L.LightningModule(), Data())\n"
    )
    message = "DataLoader with workers and no `worker_init_fn`: no `workers=True` at `train.py:7`"
    assert findings(project, monkeypatch, capsys, "--no-cache", ".") == [
        ("data.py", 7, "RNG002", message)
    ]


def test_the_summary_lists_the_lightning_functions_building_loaders_with_workers() -> None:
    """Only loaders with workers and no `worker_init_fn` (the index's questions)."""
    import ast

    from seedlint.analysis.facts import ModuleFacts
    from seedlint.project.summary import summarize

    def loaders(text: str) -> tuple[str, ...]:
        return summarize(ModuleFacts(ast.parse(text), path="data.py")).worker_loaders

    assert loaders(LIGHTNING_DATA) == ("Data.train_dataloader",)
    assert loaders(LIGHTNING_DATA.replace("num_workers=4", "num_workers=0")) == ()
    assert loaders(LIGHTNING_DATA.replace("=4", "=4, worker_init_fn=print")) == ()
    assert loaders(LIGHTNING_DATA.replace("import lightning as L\n", "import L\n")) == ()
    # a loader that is no question (no workers, or a class seeding its workers) before one that
    # is: the later one is still listed
    before = (
        "    def val_dataloader(self):\n        return DataLoader(range(8), num_workers=0)\n\n"
        "    def test_dataloader(self):\n"
        "        return monai.data.DataLoader(range(8), num_workers=4)\n\n"
    )
    both = LIGHTNING_DATA.replace("    def train_dataloader", before + "    def train_dataloader")
    both = "import monai\n" + both
    assert loaders(both) == ("Data.train_dataloader",)


def test_rng002_is_plain_where_the_program_never_seeds_through_lightning(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "data.py").write_text(LIGHTNING_DATA)
    (project / "train.py").write_text(
        "import lightning as L\n\nfrom data import Data\n\n\ndef main():\n"
        "    L.Trainer().fit(L.LightningModule(), Data())\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    )
    message = (
        "DataLoader with workers and no `worker_init_fn`: only `random`, `torch` and `np.random`"
        " are reseeded"
    )
    assert findings(project, monkeypatch, capsys, "--no-cache", ".") == [
        ("data.py", 7, "RNG002", message)
    ]


def test_rng002_follows_a_loader_class_of_another_module_in_a_lightning_hook(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """deepspeech.pytorch's shape: the hook builds the project's own DataLoader subclass."""
    (project / "loaders.py").write_text(
        "from torch.utils.data import DataLoader\n\n\nclass AudioLoader(DataLoader):\n    pass\n"
    )
    (project / "data.py").write_text(
        LIGHTNING_DATA.replace(
            "from torch.utils.data import DataLoader", "from loaders import AudioLoader"
        ).replace("DataLoader(range", "AudioLoader(range")
    )
    (project / "train.py").write_text(
        "import lightning as L\n\nfrom data import Data\n\n\ndef main():\n"
        "    L.seed_everything(3)\n    L.Trainer().fit(L.LightningModule(), Data())\n"
    )
    message = "DataLoader with workers and no `worker_init_fn`: no `workers=True` at `train.py:7`"
    assert findings(project, monkeypatch, capsys, "--no-cache", ".") == [
        ("data.py", 7, "RNG002", message)
    ]


def test_rng002_names_the_programs_seeder_not_one_in_scoped_code(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A seeder inside scoped code (the state saved and restored) is not the program's."""
    (project / "data.py").write_text(LIGHTNING_DATA)
    (project / "train.py").write_text(
        "import lightning as L\nimport torch\n\nfrom data import Data\n\n\n"
        "def scoped():\n    state = torch.get_rng_state()\n    L.seed_everything(1)\n"
        "    torch.set_rng_state(state)\n\n\n"
        "def seed():\n    L.seed_everything(2)\n\n\n"
        "def main():\n    scoped()\n    seed()\n    L.Trainer().fit(L.LightningModule(), Data())\n"
    )
    message = "DataLoader with workers and no `worker_init_fn`: no `workers=True` at `train.py:14`"
    assert findings(project, monkeypatch, capsys, "--no-cache", ".") == [
        ("data.py", 7, "RNG002", message)
    ]


def test_rng002_a_class_of_the_same_name_elsewhere_is_not_the_data_module(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """train.py builds `other.Data`, not data.py's: no program reaches data.py's loader (a
    library's DataModule: its users' programs decide)."""
    (project / "data.py").write_text(LIGHTNING_DATA)
    (project / "other.py").write_text("class Data:\n    pass\n")
    (project / "train.py").write_text(
        "import lightning as L\n\nimport data\nfrom other import Data\n\n\ndef main():\n"
        "    L.seed_everything(3)\n    Data()\n    return data\n"
    )
    assert findings(project, monkeypatch, capsys, "--no-cache", ".") == []


@pytest.mark.parametrize("name", ["missing/sub/train.py", "train.py"])
def test_standard_input_named_in_a_folder_that_does_not_exist(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Standard input named by ``--stdin-filename`` in a folder that does not exist (an
    editor's unsaved buffer): its project root is looked for all the same, and it is checked
    as it would be where the folder exists."""
    import io

    text = "import random\n\nimport torch\n\nrandom.seed(0)\nx = torch.rand(2)\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    found = findings(project, monkeypatch, capsys, "--no-cache", "--stdin-filename", name, "-")
    assert [f[:3] for f in found] == [("train.py", 5, "RNG004")]


@pytest.mark.parametrize(("on_disk", "given"), [(False, True), (True, False)])
def test_standard_input_is_checked_as_given_not_as_on_disk(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    on_disk: bool,
    given: bool,
) -> None:
    """An editor's buffer (standard input named after a file of the project) differs from the
    file on disk: its builder's callers in the buffer decide, not those of the saved file."""
    import io

    def text(shuffle: bool) -> str:
        return BUILDER + f"\n\nloader = build(range(8), train={shuffle})\n"

    (project / "train.py").write_text(text(on_disk))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text(given).encode())))
    found = findings(
        project, monkeypatch, capsys, "--no-cache", "--stdin-filename", "train.py", "-"
    )
    if given:
        assert found == [
            ("train.py", 5, "RNG001", "DataLoader shuffles without a `generator` "
             "(shuffle=True from `train.py:8`)")
        ]  # fmt: skip
    else:
        assert found == []


def test_rng003_names_where_another_modules_helper_seeds_the_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A call inside a capture region that seeds the GPU in another module of the project:
    the message names that seeding call's path from the project's root, and its row."""
    import shutil

    project = tmp_path / "capture_helper"
    shutil.copytree(Path(__file__).parent / "fixtures" / "projects" / "capture_helper", project)
    (project / "pyproject.toml").write_text("")
    where = "(`utils/seeding.py:10`): may raise, never replayed"
    assert findings(project, monkeypatch, capsys, "--no-cache", "capture.py") == [
        ("capture.py", 10, "RNG003", f"`seed_everything()` seeds the GPU during capture {where}"),
        ("capture.py", 19, "RNG003", f"`reseed()` seeds the GPU during capture {where}"),
    ]


class _Mounted:
    """``os`` for :mod:`seedlint.project.layout`, where the folders under ``mount`` are on
    another device than the rest (their ``stat`` has another ``st_dev``), and ``stat`` of
    ``broken`` fails."""

    def __init__(self, mount: Path, broken: Path | None = None) -> None:
        self.mount, self.broken = str(mount), None if broken is None else str(broken)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def stat(self, path: Any) -> Any:
        if self.broken is not None and os.fspath(path) == self.broken:
            raise PermissionError(path)
        found = os.stat(path)
        inside = os.fspath(path) == self.mount or os.fspath(path).startswith(self.mount + os.sep)
        return SimpleNamespace(st_dev=found.st_dev + 1 if inside else found.st_dev)


def test_the_root_search_stops_at_a_file_system_boundary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder mounted below a project is a tree of its own: the search for a root marker
    stops at the mount (no root: the start's own folder); where the start's device cannot be
    read, the search goes on up to the marker."""
    from seedlint.project import layout

    (tmp_path / "pyproject.toml").write_text("")
    start = tmp_path / "mnt" / "pkg"
    start.mkdir(parents=True)
    (start / "train.py").write_text("x = 1\n")
    assert layout.find_root(start / "train.py") == tmp_path
    monkeypatch.setattr(layout, "os", _Mounted(tmp_path / "mnt"))
    assert layout.project_root(start) is None
    assert layout.find_root(start / "train.py") == start
    monkeypatch.setattr(layout, "os", _Mounted(tmp_path / "mnt", broken=start))
    assert layout.project_root(start) == tmp_path


def test_a_builder_whose_caller_should_pass_the_generator_names_what_it_passes(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The builder takes the `generator` it passes on: the fix belongs at the caller, and the
    message says what the caller passes (`shuffle=True`) and what it does not."""
    (project / "lib.py").write_text(
        "from torch.utils.data import DataLoader\n\n\n"
        "def build(ds, train, generator=None):\n"
        "    return DataLoader(ds, shuffle=train, generator=generator)\n"
    )
    (project / "train.py").write_text("from lib import build\n\nloader = build(range(8), True)\n")
    message = "DataLoader shuffles without a `generator` (`train.py:3` passes shuffle=True, no "
    message += "`generator`)"
    assert findings(project, monkeypatch, capsys, "--no-cache", ".") == [
        ("lib.py", 5, "RNG001", message)
    ]


def test_a_fix_round_takes_the_files_callers_as_the_fixed_text_has_them(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--fix` with the project's index: RNG002's fix puts `seed_worker` and its imports above
    a builder's caller in the same file, and the finding left (the builder's, which has no
    fix) names the caller's line in the fixed text (the index built before the fix holds the
    file's old summary: the fixed text's stands in for it)."""
    (project / "m.py").write_text(
        "from torch.utils.data import DataLoader\n\n\n"
        "def build(ds, shuffle, generator=None):\n"
        "    return DataLoader(ds, shuffle=shuffle, generator=generator)\n\n\n"
        "workers = DataLoader(range(8), num_workers=2)\n"
        "loader = build(range(8), True)\n"
    )
    message = "DataLoader shuffles without a `generator` (`m.py:{}` passes shuffle=True, no "
    message += "`generator`)"
    assert findings(project, monkeypatch, capsys, "--no-cache", "m.py") == [
        ("m.py", 5, "RNG001", message.format(9)),
        (
            "m.py",
            8,
            "RNG002",
            "DataLoader with workers and no `worker_init_fn`: only `random`, "
            "`torch` and `np.random` are reseeded",
        ),
    ]
    assert findings(project, monkeypatch, capsys, "--no-cache", "--fix", "m.py") == [
        ("m.py", 14, "RNG001", message.format(18))
    ]
    assert "loader = build(range(8), True)" in (project / "m.py").read_text().splitlines()[17]


@pytest.mark.parametrize(
    "reexport",
    ["import os; from . import build\n", "from. import build\n"],
    ids=["after-a-semicolon", "no-space"],
)
def test_a_builders_caller_through_a_re_export_the_line_search_does_not_see(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    reexport: str,
) -> None:
    """`train.py` (read by the check pass) calls the builder through `pkg/sub.py`, a module
    the index parses only on demand whose relative import is not at a line's start (or has no
    space after `from`), and which names no module the builder is reached through: the word
    search for modules that may hide a caller passes it by, and it is parsed because the read
    caller's call resolves into it (``ProjectIndex.named_through``)."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(BUILDER)
    (tmp_path / "pkg" / "sub.py").write_text('"""The train_loader\'s builder."""\n' + reexport)
    (tmp_path / "train.py").write_text(
        "from torch.utils.data import DataLoader\n\nfrom pkg.sub import build\n\n"
        "plain = DataLoader(range(8))\nloader = build(range(8), True)\n"
    )
    assert findings(tmp_path, monkeypatch, capsys, "--no-cache", ".") == [
        (
            "__init__.py",
            5,
            "RNG001",
            "DataLoader shuffles without a `generator` (shuffle=True from `train.py:6`)",
        )
    ]


IMPORT = b"from torch.utils.data import DataLoader\n"


@pytest.mark.parametrize(
    ("raw", "classes"),
    [
        # at the file's first byte, the file ending in a name (no line break)
        (b"class Base(object):\n    pass\nx = 1", {"Base": frozenset()}),
        (b"class Base:\n    pass\n_", {"Base": frozenset()}),
        # spaces between the name and its bases, or its colon
        (IMPORT + b"class Feeder (DataLoader):\n    pass\n", {"Feeder": frozenset({"DataLoader"})}),
        (IMPORT + b"class Plain \t:\n    pass\n", {"Plain": frozenset()}),
        (
            IMPORT + b"class Feeder[T] (DataLoader):\n    pass\n",  # after type parameters
            {"Feeder": frozenset({"DataLoader"})},
        ),
        # the bases' bracket far into the file (at byte 2,154: its 2,048 bit set)
        (
            IMPORT + b"#" + b"x" * 2100 + b"\nclass Feeder(DataLoader):\n    pass\n",
            {"Feeder": frozenset({"DataLoader"})},
        ),
    ],
    ids=["first-byte", "first-byte-underscore", "space-bases", "space-colon", "space-typed", "far"],
)
def test_the_class_hint_reads_each_class_statement(
    raw: bytes, classes: dict[str, frozenset[str]]
) -> None:
    """A module's class hint (its classes and their bases, read from its bytes) has every class
    statement: one at the file's first byte, one with spaces before its bases or its colon
    (after its type parameters too), one whose bases' bracket is thousands of bytes into the
    file."""
    from seedlint.project.hints import class_hint

    hint = class_hint(raw)
    assert hint is not None
    assert hint.classes == classes


def test_rng003_looks_past_a_helper_that_seeds_in_a_scope_of_its_own(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The helper called in the capture region first calls one that restores the state it
    seeded (no device seeding that lasts), then one that seeds the GPU: the search goes on
    past the first to the second."""
    (project / "helpers.py").write_text(
        "import torch\n\n\ndef scoped_seed(seed):\n    state = torch.get_rng_state()\n"
        "    torch.manual_seed(seed)\n    torch.set_rng_state(state)\n\n\n"
        "def seed_everything(seed):\n    torch.manual_seed(seed)\n\n\n"
        "def setup_seed(seed):\n    scoped_seed(seed)\n    seed_everything(seed)\n"
    )
    (project / "capture.py").write_text(
        "import torch\n\nfrom helpers import setup_seed\n\n\n"
        "def capture(model, static_input):\n    graph = torch.cuda.CUDAGraph()\n"
        "    with torch.cuda.graph(graph):\n        setup_seed(0)\n"
        "        out = model(static_input)\n    return graph, out\n"
    )
    message = "`setup_seed()` seeds the GPU during capture (`helpers.py:11`): may raise, never "
    message += "replayed"
    assert findings(project, monkeypatch, capsys, "--no-cache", "capture.py") == [
        ("capture.py", 9, "RNG003", message)
    ]


@pytest.mark.parametrize(
    "call",
    ["self.make_loader(True)", "cls.make_loader(True)", "super().make_loader(True)"],
    ids=["self", "cls", "super"],
)
def test_the_cheap_test_of_needing_the_project_covers_a_method_of_a_base_elsewhere(
    call: str,
) -> None:
    """``may_need_project`` (the language server asks it at every change) is a superset of
    ``needs_project``: a call passing a literal to a method that a base class of another
    module may define (through `self`, `cls` or `super()`) needs the project, and both say
    so."""
    from seedlint.config import Settings
    from seedlint.engine.check import check_text
    from seedlint.project.index import needs_project
    from seedlint.project.summary import may_need_project, summarize

    text = (
        "from base import Base\n\n\nclass Trainer(Base):\n    @classmethod\n"
        f"    def run(cls, self=None):\n        return {call}\n"
    )
    facts = check_text(text, "t.py", Settings()).facts
    assert facts is not None
    assert needs_project(summarize(facts))
    assert may_need_project(facts)


def test_questions_of_no_summary_and_of_one_from_bytes_are_none() -> None:
    """A module without a summary, or with one made from its bytes (not its tree), asks the
    project nothing (``questions`` takes an optional summary)."""
    from seedlint.project.index import needs_project, questions
    from seedlint.project.summary import LIGHT

    assert questions(None) == []
    assert questions(LIGHT) == []
    assert not needs_project(None) and not needs_project(LIGHT)


@pytest.mark.parametrize(("count", "found"), [(12, True), (13, False)])
def test_a_loader_class_followed_through_at_most_12_star_imports(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    count: int,
    found: bool,
) -> None:
    """`from m0 import Feeder`, where `m0` star-imports `m1`, which star-imports `m2`, ... down
    to the module defining the loader class: a chain of 12 star imports is followed (RNG001 at
    the call), a 13th is not (the class is not known)."""
    for index in range(count):
        (project / f"m{index}.py").write_text(f"from m{index + 1} import *\n")
    (project / f"m{count}.py").write_text(
        "from torch.utils.data import DataLoader\n\n\nclass Feeder(DataLoader):\n    pass\n"
    )
    (project / "train.py").write_text(
        "from m0 import Feeder\n\nloader = Feeder(range(8), shuffle=True)\n"
    )
    codes = [
        code for *_, code, _ in findings(project, monkeypatch, capsys, "--no-cache", "train.py")
    ]
    assert codes == (["RNG001"] if found else [])


def test_only_a_spread_of_another_modules_function_into_a_loader_asks_the_index() -> None:
    """`**f()` into a DataLoader asks the index for `f`'s dict only where `f` may be a
    function of another module of the project: not a function of this module (the module's
    own value model reads it), not a library's (`dict(...)`), not a spread into another call."""
    import ast as _ast

    from seedlint.analysis.facts import ModuleFacts
    from seedlint.project.summary import summarize

    text = (
        "from torch.utils.data import DataLoader\n"
        "from helpers import loader_kwargs, other_kwargs\n\n\n"
        "def local_kwargs():\n    return {'pin_memory': True}\n\n\n"
        "def build(ds, fit):\n"
        "    kw = other_kwargs()\n"
        "    fit(**other_kwargs())\n"
        "    DataLoader(ds, **local_kwargs())\n"
        "    DataLoader(ds, **dict(pin_memory=True))\n"
        "    return DataLoader(ds, **loader_kwargs())\n"
    )
    facts = ModuleFacts(_ast.parse(text), path="m.py")
    try:
        assert summarize(facts).spreads == ("=helpers.loader_kwargs",)
    finally:
        facts.release()
