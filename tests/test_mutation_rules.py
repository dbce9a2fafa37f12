"""The rules and the analysis, at the edges the machine-made mutants found untested (issue 31).

``tests/fixtures/mutation/*.py`` are rule fixtures as ``tests/fixtures/RNG00N/`` are: a line
ending in ``# error: RNG00N`` expects that finding there, every other line none. Each is checked
by ``check_text`` and by the command line over the whole folder. ``FIXES`` are fix cases: the
text a real ``--fix`` (``--unsafe-fixes`` where the case says) writes.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from seedlint import cli
from seedlint.engine.check import check_text
from seedlint.rules.rng002_workers_without_init_fn import PREFIX, WorkersWithoutInitFnViolation
from tests.fixtures_support import expected_findings, fixture_settings

_STREAM_NAMES = ["safe_load", "load", "full_load", "unsafe_load"]

FOLDER = Path(__file__).parent / "fixtures" / "mutation"
CASES = sorted(FOLDER.glob("*.py"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_mutation_fixture_findings(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = check_text(text, str(path), fixture_settings(text, FOLDER)).findings
    assert sorted((f.row, f.code) for f in found) == expected_findings(text)
    assert expected_findings(text) or "no finding" in text.lower()


def test_mutation_fixtures_through_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(FOLDER)
    capsys.readouterr()
    code = cli.main(
        ["check", "--isolated", "--no-cache", "--output-format", "json", *(p.name for p in CASES)]
    )
    found = sorted(
        (f["filename"], f["location"]["row"], f["code"])
        for f in json.loads(capsys.readouterr().out)
    )
    expected = sorted(
        (str(p), row, code) for p in CASES for row, code in expected_findings(p.read_text())
    )
    assert [(Path(name).name, row, c) for name, row, c in found] == [
        (Path(name).name, row, c) for name, row, c in expected
    ]
    assert code == 1


# A module with two worker functions, the first (by the fix's order) rebound.
WORKER_FUNCTIONS = (
    "import random\n"
    "\n"
    "import numpy as np\n"
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "\n"
    "def seed_worker(worker_id):\n"
    "    seed = torch.initial_seed() % 2**32\n"
    "    np.random.seed(seed)\n"
    "    random.seed(seed)\n"
    "\n"
    "\n"
    "seed_worker = None\n"
    "\n"
    "\n"
    "def worker_init_fn(worker_id):\n"
    "    seed = torch.initial_seed() % 2**32\n"
    "    np.random.seed(seed)\n"
    "    random.seed(seed)\n"
    "\n"
    "\n"
    "loader = DataLoader(range(8), num_workers=2)\n"
)

# (name, before, after, the options)
FIXES = [
    *[
        (
            f"{code} replaces a `generator=None` passed by position, not adding a keyword",
            (
                "import torch\n"
                f"from torch.utils.data import {name}\n"
                "\n"
                f"result = {name}({before})\n"
                "print(list(result))\n"
            ),
            (
                "import torch\n"
                f"from torch.utils.data import {name}\n"
                "\n"
                f"result = {name}({before[: -len('None')]}torch.Generator().manual_seed(0))\n"
                "print(list(result))\n"
            ),
            [],
        )
        for code, name, before in [
            ("rng006", "random_split", "range(8), [4, 4], None"),
            ("rng007", "RandomSampler", "range(8), False, None, None"),
        ]
    ],
    (
        "rng002 under Lightning's seed_everything passes `workers=True` to it",
        (
            "import lightning.pytorch as pl\n"
            "from torch.utils.data import DataLoader\n"
            "\n"
            "pl.seed_everything(7)\n"
            "loader = DataLoader(range(8), num_workers=4)\n"
            "print(list(loader))\n"
        ),
        (
            "import lightning.pytorch as pl\n"
            "from torch.utils.data import DataLoader\n"
            "\n"
            "pl.seed_everything(7, workers=True)\n"
            "loader = DataLoader(range(8), num_workers=4)\n"
            "print(list(loader))\n"
        ),
        [],
    ),
    (
        (
            "rng002 in a script that seeds nothing replaces `generator=None` by a generator seeded "
            "from the fix-seed literal"
        ),
        (
            "import torch\n"
            "from torch.utils.data import DataLoader\n"
            "\n"
            "loader = DataLoader(range(8), num_workers=2, generator=None)\n"
            "print(list(loader))\n"
        ),
        (
            "import random\n"
            "\n"
            "import torch\n"
            "from torch.utils.data import DataLoader\n"
            "\n"
            "\n"
            "def seed_worker(worker_id):\n"
            '    """Seed this DataLoader worker\'s random streams (added by seedlint)."""\n'
            "    worker_seed = torch.initial_seed() % 2**32\n"
            "    random.seed(worker_seed)\n"
            "\n"
            "\n"
            "loader = DataLoader(\n"
            "    range(8),\n"
            "    num_workers=2,\n"
            "    generator=torch.Generator().manual_seed(0),\n"
            "    worker_init_fn=seed_worker,\n"
            ")\n"
            "print(list(loader))\n"
        ),
        [],
    ),
    (
        (
            "rng002 in a class of a script that seeds nothing adds `SEED = 0` and seeds the "
            "loader's generator from it (unsafe)"
        ),
        (
            "import torch\n"
            "from torch.utils.data import DataLoader\n"
            "\n"
            "\n"
            "class Evaluator:\n"
            "    def __init__(self, data):\n"
            "        self.loader = DataLoader(data, num_workers=2)\n"
            "\n"
            "\n"
            'if __name__ == "__main__":\n'
            "    Evaluator(range(8))\n"
        ),
        (
            "import random\n"
            "\n"
            "import torch\n"
            "from torch.utils.data import DataLoader\n"
            "\n"
            "\n"
            "def seed_worker(worker_id):\n"
            '    """Seed this DataLoader worker\'s random streams (added by seedlint)."""\n'
            "    worker_seed = torch.initial_seed() % 2**32\n"
            "    random.seed(worker_seed)\n"
            "\n"
            "\n"
            "SEED = 0\n"
            "\n"
            "\n"
            "class Evaluator:\n"
            "    def __init__(self, data):\n"
            "        self.loader = DataLoader(\n"
            "            data,\n"
            "            num_workers=2,\n"
            "            worker_init_fn=seed_worker,\n"
            "            generator=torch.Generator().manual_seed(SEED),\n"
            "        )\n"
            "\n"
            "\n"
            'if __name__ == "__main__":\n'
            "    Evaluator(range(8))\n"
        ),
        ["--unsafe-fixes"],
    ),
    (
        ("rng002 keeps a generator the program made and seeded"),
        (
            "import torch\n"
            "from torch.utils.data import DataLoader\n"
            "\n"
            "g = torch.Generator()\n"
            "g.manual_seed(5)\n"
            "loader = DataLoader(range(8), num_workers=2, generator=g)\n"
            "print(list(loader))\n"
        ),
        (
            "import random\n"
            "\n"
            "import torch\n"
            "from torch.utils.data import DataLoader\n"
            "\n"
            "\n"
            "def seed_worker(worker_id):\n"
            '    """Seed this DataLoader worker\'s random streams (added by seedlint)."""\n'
            "    worker_seed = torch.initial_seed() % 2**32\n"
            "    random.seed(worker_seed)\n"
            "\n"
            "\n"
            "g = torch.Generator()\n"
            "g.manual_seed(5)\n"
            "loader = DataLoader(range(8), num_workers=2, generator=g, "
            "worker_init_fn=seed_worker)\n"
            "print(list(loader))\n"
        ),
        [],
    ),
    (
        "rng002 names its new function apart from a name read unbound after a function",
        "import torch\nfrom torch.utils.data import DataLoader\n\n\ndef main():\n"
        "    return DataLoader(range(8), num_workers=2)\n\n\nhooks = [seed_worker]\n",
        "import random\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n\n"
        "def seed_worker_(worker_id):\n"
        '    """Seed this DataLoader worker\'s random streams (added by seedlint)."""\n'
        "    worker_seed = torch.initial_seed() % 2**32\n    random.seed(worker_seed)\n\n\n"
        "def main():\n    return DataLoader(range(8), num_workers=2, worker_init_fn=seed_worker_)\n"
        "\n\nhooks = [seed_worker]\n",
        [],
    ),
    (
        "rng001 takes the seed a loaded config's `seed` key holds, read in the module",
        "import json\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n"
        'with open("config.json") as f:\n    config = json.load(f)\n'
        'print("seed", config["seed"])\nloader = DataLoader(range(8), shuffle=True)\n',
        "import json\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n"
        'with open("config.json") as f:\n    config = json.load(f)\n'
        'print("seed", config["seed"])\nloader = DataLoader(\n    range(8),\n'
        '    shuffle=True,\n    generator=torch.Generator().manual_seed(config["seed"]),\n)\n',
        [],
    ),
    (
        "rng004 reuses the last seeding call's literal",
        "import random\n\nimport torch\n\nrandom.seed(1234)\nx = torch.rand(3)\n",
        "import random\n\nimport torch\n\nrandom.seed(1234)\ntorch.manual_seed(1234)\n"
        "x = torch.rand(3)\n",
        [],
    ),
    (
        "rng001 in a method takes the seed its __init__ stores on self",
        "import torch\nfrom torch.utils.data import DataLoader\n\n\nclass Trainer:\n"
        "    def __init__(self, seed, cfg):\n        width = 2\n        self.cfg = cfg\n"
        "        self.cfg.width = width\n        self.items = [0]\n        self.items[0] = 1\n"
        "        self.seed = seed\n\n    def loader(self):\n"
        "        return DataLoader(range(8), shuffle=True)\n",
        "import torch\nfrom torch.utils.data import DataLoader\n\n\nclass Trainer:\n"
        "    def __init__(self, seed, cfg):\n        width = 2\n        self.cfg = cfg\n"
        "        self.cfg.width = width\n        self.items = [0]\n        self.items[0] = 1\n"
        "        self.seed = seed\n\n    def loader(self):\n"
        "        return DataLoader(\n            range(8),\n            shuffle=True,\n"
        "            generator=torch.Generator().manual_seed(self.seed),\n        )\n",
        [],
    ),
    (
        "rng004 writes the last seeding call's own argument again, even one tested for None",
        "import random\nimport sys\n\nimport torch\n\n"
        "seed = int(sys.argv[1]) if sys.argv[1:] else None\nif seed is not None:\n"
        "    random.seed(seed)\nmodel = torch.nn.Linear(2, 2)\n",
        "import random\nimport sys\n\nimport torch\n\n"
        "seed = int(sys.argv[1]) if sys.argv[1:] else None\nif seed is not None:\n"
        "    random.seed(seed)\n    torch.manual_seed(seed)\nmodel = torch.nn.Linear(2, 2)\n",
        [],
    ),
    (
        "rng004 never writes again an argument that may be None with no test on the way",
        "import random\nimport sys\n\nimport torch\n\n"
        "seed = int(sys.argv[1]) if sys.argv[1:] else None\n"
        "random.seed(seed)\nmodel = torch.nn.Linear(2, 2)\n",
        "import random\nimport sys\n\nimport torch\n\n"
        "seed = int(sys.argv[1]) if sys.argv[1:] else None\n"
        "random.seed(seed)\nmodel = torch.nn.Linear(2, 2)\n",
        [],
    ),
    (
        "rng004 inside a match statement's case: the seed goes into the case",
        "import random\nimport sys\n\nimport torch\n\nmatch sys.argv[1:]:\n    case []:\n"
        "        random.seed(5)\n        model = torch.nn.Linear(2, 2)\n",
        "import random\nimport sys\n\nimport torch\n\nmatch sys.argv[1:]:\n    case []:\n"
        "        random.seed(5)\n        torch.manual_seed(5)\n"
        "        model = torch.nn.Linear(2, 2)\n",
        [],
    ),
    (
        "rng001 fix exactly line-length long (88) stays on one line",
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "loader = DataLoader(ddddddddd, shuffle=True)\n",
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "loader = DataLoader(ddddddddd, shuffle=True, "
        "generator=torch.Generator().manual_seed(0))\n",
        [],
    ),
    (
        "rng001 fix one longer (89) is split",
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "loader = DataLoader(dddddddddd, shuffle=True)\n",
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "loader = DataLoader(\n    dddddddddd,\n    shuffle=True,\n"
        "    generator=torch.Generator().manual_seed(0),\n)\n",
        [],
    ),
    (
        "rng001 in a function takes the module's seeding call's argument",
        "import random\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n"
        'CONFIG = {"s": 7}\nrandom.seed(CONFIG["s"])\n\n\n'
        "def build():\n    return DataLoader(range(8), shuffle=True)\n",
        "import random\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n"
        'CONFIG = {"s": 7}\nrandom.seed(CONFIG["s"])\n\n\n'
        "def build():\n    return DataLoader(\n        range(8),\n        shuffle=True,\n"
        '        generator=torch.Generator().manual_seed(CONFIG["s"]),\n    )\n',
        [],
    ),
    (
        "rng002 reuses a worker_init_fn when the first candidate's name is rebound",
        WORKER_FUNCTIONS,
        WORKER_FUNCTIONS.replace("num_workers=2)", "num_workers=2, worker_init_fn=worker_init_fn)"),
        ["--select", "RNG002"],
    ),
    (
        "rng004 seeding in a compound statement's header: the seed goes before the statement",
        "import random\n\nimport torch\n\nfor _ in range(random.seed(0) or 1):\n"
        "    model = torch.nn.Linear(2, 2)\n",
        "import random\n\nimport torch\n\ntorch.manual_seed(0)\n"
        "for _ in range(random.seed(0) or 1):\n    model = torch.nn.Linear(2, 2)\n",
        [],
    ),
    (
        "rng001 in a call with a hanging indent whose new line is too long: one per line",
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "train_loader_for_the_experiments = DataLoader(range(8),\n"
        "                                              shuffle=True)\n",
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "train_loader_for_the_experiments = DataLoader(\n    range(8),\n    shuffle=True,\n"
        "    generator=torch.Generator().manual_seed(0),\n)\n",
        [],
    ),
    (
        "rng001's import of torch takes another name where the module reads torch unbound",
        "from torch.utils.data import DataLoader\n\n"
        "loader = DataLoader(range(8), shuffle=True)\nprint(torch)\n",
        "import torch as torch_\nfrom torch.utils.data import DataLoader\n\n"
        "loader = DataLoader(range(8), shuffle=True, generator=torch_.Generator().manual_seed(0))\n"
        "print(torch)\n",
        [],
    ),
    (
        "rng001 in a function whose parameter shadows the module's parsed arguments",
        "import argparse\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n"
        'parser = argparse.ArgumentParser()\nparser.add_argument("--seed", type=int, default=0)\n'
        "cli = parser.parse_args()\n\n\ndef build(cli):\n"
        "    return DataLoader(range(8), shuffle=True)\n",
        "import argparse\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n"
        "SEED = 0\nparser = argparse.ArgumentParser()\n"
        'parser.add_argument("--seed", type=int, default=0)\n'
        "cli = parser.parse_args()\n\n\ndef build(cli):\n    return DataLoader(\n"
        "        range(8),\n        shuffle=True,\n"
        "        generator=torch.Generator().manual_seed(SEED),\n    )\n",
        ["--unsafe-fixes"],
    ),
    (
        "rng001 in a method takes the seed the class reads by key from what __init__ stores",
        "import torch\nfrom torch.utils.data import DataLoader\n\n\nclass Trainer:\n"
        "    def __init__(self, config):\n        self.config = config\n\n"
        "    def describe(self):\n        return f\"seed {self.config['seed']}\"\n\n"
        "    def loader(self):\n        return DataLoader(range(8), shuffle=True)\n",
        "import torch\nfrom torch.utils.data import DataLoader\n\n\nclass Trainer:\n"
        "    def __init__(self, config):\n        self.config = config\n\n"
        "    def describe(self):\n        return f\"seed {self.config['seed']}\"\n\n"
        "    def loader(self):\n        return DataLoader(\n            range(8),\n"
        "            shuffle=True,\n"
        '            generator=torch.Generator().manual_seed(self.config["seed"]),\n        )\n',
        [],
    ),
    (
        "rng004 before a loop whose body imports torch: torch is not bound before the loop",
        "import random\n\nfor _ in range(random.seed(0) or 1):\n    import torch\n\n"
        "    model = torch.nn.Linear(2, 2)\n",
        "import random\n\nimport torch as torch_\n\ntorch_.manual_seed(0)\n"
        "for _ in range(random.seed(0) or 1):\n    import torch\n\n"
        "    model = torch.nn.Linear(2, 2)\n",
        [],
    ),
    (
        "rng001's import of torch goes in its place in a block mixing sections",
        "import os\nimport numpy as np\nimport yaml\nfrom torch.utils.data import DataLoader\n\n"
        "loader = DataLoader(range(8), shuffle=True)\nprint(os, np, yaml)\n",
        "import os\nimport numpy as np\nimport torch\nimport yaml\n"
        "from torch.utils.data import DataLoader\n\n"
        "loader = DataLoader(range(8), shuffle=True, generator=torch.Generator().manual_seed(0))\n"
        "print(os, np, yaml)\n",
        [],
    ),
    (
        "rng001 in a module whose only guard tests another name than __main__: library code",
        "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
        "def loader():\n    return DataLoader(range(8), shuffle=True)\n\n\n"
        'if __name__ == "__mp_main__":\n    loader()\n',
        "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
        "def loader():\n    return DataLoader(\n        range(8),\n        shuffle=True,\n"
        "        generator=torch.Generator().manual_seed(torch.initial_seed()),\n    )\n\n\n"
        'if __name__ == "__mp_main__":\n    loader()\n',
        [],
    ),
    *(
        (
            f"rng001 in a method: self.hparams.seed only after self.{call}()",
            "import torch\nfrom torch.utils.data import DataLoader\n\n\nclass Model:\n"
            f"    def __init__(self, seed):\n        self.{call}()\n\n    def loader(self):\n"
            "        return DataLoader(range(8), shuffle=True)\n",
            "import torch\nfrom torch.utils.data import DataLoader\n\n\nclass Model:\n"
            f"    def __init__(self, seed):\n        self.{call}()\n\n    def loader(self):\n"
            "        return DataLoader(\n            range(8),\n            shuffle=True,\n"
            f"            generator=torch.Generator().manual_seed({seed}),\n        )\n",
            [],
        )
        for call, seed in [
            ("save_hyperparameters", "self.hparams.seed"),
            ("load_weights", "torch.initial_seed()"),  # a name before it in order
            ("setup", "torch.initial_seed()"),  # and one after it
        ]
    ),
]


@pytest.mark.parametrize(
    ("before", "after", "options"), [case[1:] for case in FIXES], ids=[case[0] for case in FIXES]
)
def test_fix_cases(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    before: str,
    after: str,
    options: list[str],
) -> None:
    (tmp_path / "train.py").write_text(before)
    monkeypatch.chdir(tmp_path)
    cli.main(["check", "--isolated", "--no-cache", "--fix", "-q", *options, "train.py"])
    assert (tmp_path / "train.py").read_text() == after


# -- every finding of every rule fixture, with its span, message, fix title and safety --------
GOLDEN = FOLDER / "findings.txt"


def _fixture_findings() -> str:
    from tests.fixtures_support import FIXTURES, rule_fixtures

    out = []
    for path in [*rule_fixtures(), *CASES]:
        text = path.read_text(encoding="utf-8")
        settings = fixture_settings(text, FIXTURES if path not in CASES else FOLDER)
        for f in check_text(text, str(path), settings).findings:
            fix = "no fix" if f.fix is None else f"{f.fix.applicability.value}: {f.fix.message}"
            name = path.relative_to(FIXTURES).as_posix()
            out.append(
                f"{name}:{f.row}:{f.col}-{f.end_row}:{f.end_col} {f.code} {f.name}: {f.message}"
                f"\n    noqa rows {list(f.noqa_rows)}; {fix}"
            )
    return "\n".join(out) + "\n"


def test_every_fixture_finding_byte_for_byte() -> None:
    """The span, message, noqa rows, fix title and fix safety of every finding of the rule
    fixtures (``test_rules`` checks their rows and codes). After a deliberate change, write
    the file again with ``python -m tests.test_mutation_rules`` and read the diff."""
    assert _fixture_findings() == GOLDEN.read_text(encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    GOLDEN.write_text(_fixture_findings(), encoding="utf-8")


def test_rng005_for_a_dataset_class_of_another_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A loader with workers over a dataset class of another module that holds an RNG object:
    RNG005 at the loader (the project index answers), without a fix."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "data.py").write_text(
        "import numpy as np\nfrom torch.utils.data import Dataset\n\n\n"
        "class Noisy(Dataset):\n    def __init__(self):\n"
        "        self.rng = np.random.default_rng()\n\n"
        "    def __getitem__(self, index):\n        return self.rng.normal()\n"
    )
    (tmp_path / "train.py").write_text(
        "import torch\nfrom torch.utils.data import DataLoader\n\nfrom data import Noisy\n\n"
        "loader = DataLoader(Noisy(), num_workers=2, worker_init_fn=None)\n"
    )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--no-cache", "--output-format", "json", "--select", "RNG005", "."])
    found = [
        (f["filename"], f["location"]["row"], f["code"], f["fix"])
        for f in json.loads(capsys.readouterr().out)
    ]
    assert [(Path(name).name, row, code, fix) for name, row, code, fix in found] == [
        ("train.py", 6, "RNG005", None)
    ]


def _project_json(
    folder: Path,
    files: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *options: str,
) -> list[dict[str, object]]:
    """The json findings of ``seedlint check .`` over a project of ``files``."""
    (folder / "pyproject.toml").write_text("")
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    monkeypatch.chdir(folder)
    capsys.readouterr()
    cli.main(["check", "--no-cache", "--output-format", "json", *options, "."])
    found: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return found


@pytest.mark.parametrize(
    ("attribute", "shown"),
    [
        ("rng", "`self.rng`"),
        ("abcdefghijklmno", "`self.abcdefghijklmno`"),  # 20 characters with `self.`
        ("abcdefghijklmnop", "an RNG object"),  # 21: too long to name
    ],
)
def test_rng005_of_another_module_names_a_short_attribute(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    attribute: str,
    shown: str,
) -> None:
    """RNG005 at a loader over another module's dataset class names the RNG object when its
    name is at most 20 characters long, and says "an RNG object" when it is longer."""
    found = _project_json(
        tmp_path,
        {
            "data.py": "import numpy as np\nfrom torch.utils.data import Dataset\n\n\n"
            "class Noisy(Dataset):\n    def __init__(self):\n"
            f"        self.{attribute} = np.random.default_rng()\n\n"
            f"    def __getitem__(self, index):\n        return self.{attribute}.normal()\n",
            "train.py": "from torch.utils.data import DataLoader\n\nfrom data import Noisy\n\n"
            "loader = DataLoader(Noisy(), num_workers=2, worker_init_fn=None)\n",
        },
        monkeypatch,
        capsys,
        "--select",
        "RNG005",
    )
    assert [f["message"] for f in found] == [
        f"`Noisy` holds {shown} (`data.py:7`), copied into every worker: same draws"
    ]


@pytest.mark.parametrize(
    ("read", "expected"),
    [
        ('cfg.get("shuffle", False)', ["RNG001"]),  # the config sets it: true
        ('cfg.get("quiet", True)', []),  # the config sets it: false
        ('cfg.get("unset", False)', []),  # not set: the default
        ('cfg.get("unset", True)', ["RNG001"]),
        ('cfg.get("unset")', []),  # not set: None
    ],
)
def test_a_config_read_with_get_reads_its_key(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    read: str,
    expected: list[str],
) -> None:
    """``cfg.get(key, default)`` of a loaded config is the key's value where the config sets it
    (its first argument), the default where it does not."""
    found = _project_json(
        tmp_path,
        {
            "config.yaml": "shuffle: true\nquiet: false\n",
            "train.py": "import yaml\nimport torch\nfrom torch.utils.data import DataLoader\n\n"
            "torch.manual_seed(0)\n"
            'with open("config.yaml") as f:\n    cfg = yaml.safe_load(f)\n'
            f"loader = DataLoader(range(8), shuffle={read})\n",
        },
        monkeypatch,
        capsys,
    )
    assert [f["code"] for f in found] == expected


HYDRA_TRAIN = (
    "import os\n\nimport hydra\nimport torch\nimport yaml\n"
    "from torch.utils.data import DataLoader\n\n\n"
    '@hydra.main(version_base=None, config_path="conf", config_name="config")\n'
    "def main(cfg):\n"
    "    torch.manual_seed(0)\n"
    "    DataLoader(range(8), shuffle=cfg.data.shuffle, num_workers=cfg.workers)\n"
    "    DataLoader(range(8), shuffle=cfg.data.quiet, num_workers=cfg.workers)\n"
    "\n\n"
    'with open(os.path.join("conf", "data", "cifar.yaml")) as f:\n'
    "    data = yaml.safe_load(f)\n"
    'DataLoader(range(8), shuffle=data["shuffle"])\n'
    'DataLoader(range(8), shuffle=data["quiet"])\n'
)


def test_hydra_defaults_plain_and_optional_and_a_joined_config_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Hydra defaults list with a plain config (`- base`), an `optional` group that exists
    and one that does not; and a config opened at an `os.path.join` of literal parts: each
    value is read from its file (workers 0 from base.yaml: no RNG002)."""
    found = _project_json(
        tmp_path,
        {
            "conf/config.yaml": "defaults:\n  - base\n  - optional data: cifar\n"
            "  - optional missing: nothing\n  - _self_\n",
            "conf/base.yaml": "workers: 0\n",
            "conf/data/cifar.yaml": "shuffle: true\nquiet: false\n",
            "train.py": HYDRA_TRAIN,
        },
        monkeypatch,
        capsys,
    )
    origin = "set in conf/data/cifar.yaml:1"
    assert [
        (f["location"]["row"], f["code"], f["origin"]["source"])  # type: ignore[index]
        for f in found
    ] == [(12, "RNG001", origin), (18, "RNG001", origin)]


def test_only_the_first_parameter_of_a_hydra_main_is_its_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hydra passes the config as the first argument: a read of another parameter of the
    decorated function is no config value (unknown: the shuffle may be true), whatever the
    config sets under the same key."""
    found = _project_json(
        tmp_path,
        {
            "conf/config.yaml": "shuffle: true\nquiet: false\n",
            "train.py": "import hydra\nimport torch\nfrom torch.utils.data import DataLoader\n\n\n"
            '@hydra.main(version_base=None, config_path="conf", config_name="config")\n'
            "def main(cfg, extra=None):\n"
            "    torch.manual_seed(0)\n"
            "    DataLoader(range(8), shuffle=cfg.quiet)\n"
            "    DataLoader(range(8), shuffle=extra.quiet)\n"
            "    DataLoader(range(8), shuffle=extra.shuffle)\n",
        },
        monkeypatch,
        capsys,
    )
    assert [(f["location"]["row"], f["code"], f["origin"]) for f in found] == [  # type: ignore[index]
        (10, "RNG001", None),
        (11, "RNG001", None),
    ]


@pytest.mark.parametrize("part", ["cfg[sys.argv[1]]", "cfg or {}", "(cfg or {})['train']"])
def test_a_config_read_through_an_expression_that_is_no_key_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], part: str
) -> None:
    """A name bound to a loaded config read with a computed key, or to an expression that is
    not a chain of keys from a name or a call: no config value is known (the shuffle may be
    true), and nothing fails."""
    found = _project_json(
        tmp_path,
        {
            "config.yaml": "train:\n  shuffle: false\nshuffle: false\n",
            "train.py": "import sys\n\nimport torch\nimport yaml\n"
            "from torch.utils.data import DataLoader\n\n"
            "torch.manual_seed(0)\n"
            'with open("config.yaml") as f:\n    cfg = yaml.safe_load(f)\n'
            f"part = {part}\n"
            'loader = DataLoader(range(8), shuffle=part["shuffle"])\n',
        },
        monkeypatch,
        capsys,
    )
    assert [(f["location"]["row"], f["code"]) for f in found] == [(11, "RNG001")]


@pytest.mark.parametrize(("digits", "named"), [(20, True), (21, False)])
def test_an_origin_is_named_for_a_value_of_at_most_20_characters(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    digits: int,
    named: bool,
) -> None:
    """Where a value is set (an argparse default) is recorded for a value Python writes in at
    most 20 characters; a longer one has no origin."""
    value = "1" * digits
    found = _project_json(
        tmp_path,
        {
            "train.py": "import argparse\n\nimport torch\n"
            "from torch.utils.data import DataLoader\n\nparser = argparse.ArgumentParser()\n"
            f'parser.add_argument("--workers", type=int, default={value})\n'
            "args = parser.parse_args()\ntorch.manual_seed(0)\n"
            "loader = DataLoader(range(8), num_workers=args.workers)\n",
        },
        monkeypatch,
        capsys,
    )
    origin = {
        "name": "num_workers",
        "value": value,
        "source": "argparse default, line 7",
        "filename": str(tmp_path / "train.py"),
        "row": 7,
    }
    assert [(f["code"], f["origin"]) for f in found] == [("RNG002", origin if named else None)]


# One sample of each syntax of NEWER_SYNTAX, in its order: (the version, the sample).
NEWER_SAMPLES = [
    ((3, 10), "match command:\n    case [x]:\n        pass\n"),
    ((3, 10), "with (open('a') as f, open('b') as g):\n    pass\n"),
    ((3, 11), "try:\n    pass\nexcept* ValueError:\n    pass\n"),
    ((3, 11), "x = a[*b]\n"),
    ((3, 12), "type Batch = list[int]\n"),
    ((3, 12), "def first[T](items: list[T]) -> T:\n    return items[0]\n"),
    ((3, 12), 'x = f"{"nested"}"\n'),
    ((3, 13), "def f[T = int](x: T) -> T:\n    return x\n"),
    ((3, 14), "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n"),
    ((3, 14), 'x = t"hello {name}"\n'),
    ((3, 15), "lazy import json\n"),
]


@pytest.mark.parametrize(
    ("index", "version", "sample"), [(i, *s) for i, s in enumerate(NEWER_SAMPLES)]
)
def test_each_newer_syntax_is_named_by_its_python(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    index: int,
    version: tuple[int, int],
    sample: str,
) -> None:
    """Every syntax a later Python adds (each entry of RNG000's table): a file using it that
    this Python cannot parse is RNG000 saying a newer Python may read it; on a Python that has
    it, the file is checked (no RNG000). The sample holds the entry's syntax."""
    import sys

    from seedlint.rules.rng000_invalid_file import NEWER_SYNTAX

    assert len(NEWER_SYNTAX) == len(NEWER_SAMPLES)
    assert NEWER_SYNTAX[index][0] == version
    assert any(NEWER_SYNTAX[index][1].search(line) for line in sample.splitlines())
    (tmp_path / "new.py").write_text(sample)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--isolated", "--no-cache", "--output-format", "json", "new.py"])
    messages = [f["message"] for f in json.loads(capsys.readouterr().out) if f["code"] == "RNG000"]
    if version <= sys.version_info[:2]:
        assert messages == []
    elif version in ((3, 12), (3, 13)):  # PEP 695, 696, 701: lowered and checked, or the hint
        assert all(m.endswith("a newer Python may read it)") for m in messages)
    else:
        assert len(messages) == 1 and messages[0].endswith("a newer Python may read it)")


@pytest.mark.parametrize(
    ("opened", "followed"),
    [
        ('open("config.yaml")', True),
        ('io.open("config.yaml")', True),
        ('Path("config.yaml").open()', True),
        ('open("config.yaml", "r")', True),  # the path is the first argument
        ('io.open("config.yaml", "r")', True),
        ('Path("config.yaml").open("r")', True),
        ('other.open("config.yaml")', False),  # not io: some object's open
        ('Folder("config.yaml").open()', False),  # not Path
        ('str("config.yaml").open()', False),
    ],
)
def test_each_spelling_of_opening_a_config(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    opened: str,
    followed: bool,
) -> None:
    """A config loaded from `open(path)`, `io.open(path)` or `Path(path).open()` is read (its
    `shuffle: false` holds: no finding); another object's `open` is not followed (the value may
    be anything, as `json.load` of an unknown stream gives)."""
    found = _project_json(
        tmp_path,
        {
            "config.yaml": "shuffle: false\n",
            "train.py": "import io\nfrom pathlib import Path\n\nimport torch\nimport yaml\n"
            "from torch.utils.data import DataLoader\n\nfrom lib import Folder, other\n\n"
            f"torch.manual_seed(0)\nwith {opened} as f:\n    cfg = yaml.safe_load(f)\n"
            'loader = DataLoader(range(8), shuffle=cfg["shuffle"])\n',
        },
        monkeypatch,
        capsys,
    )
    assert [f["code"] for f in found] == ([] if followed else ["RNG001"])


@pytest.mark.parametrize(
    ("read", "followed"),
    [
        ('OmegaConf.load("config.yaml")', True),  # a file loader: its path
        ('OmegaConf.create("config.yaml")', False),  # not a loader: a config of that string
        *[(f'yaml.{name}(open("config.yaml"))', True) for name in _STREAM_NAMES],
        *[(f'ruamel.{name}(open("config.yaml"))', True) for name in _STREAM_NAMES],
        ('json.load(open("config.json"))', True),
        ('yaml.dump(open("config.yaml"))', False),
        ('other.load(open("config.yaml"))', False),
    ],
)
def test_each_config_loader_of_the_table(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    read: str,
    followed: bool,
) -> None:
    """`OmegaConf.load(path)` and each stream loader of `yaml`, `ruamel` and `json` read the
    config (its `shuffle: false` holds: no finding); another call is not followed (the value
    may be anything)."""
    found = _project_json(
        tmp_path,
        {
            "config.yaml": "shuffle: false\n",
            "config.json": '{"shuffle": false}\n',
            "train.py": "import json\n\nimport ruamel\nimport torch\nimport yaml\n"
            "from omegaconf import OmegaConf\nfrom torch.utils.data import DataLoader\n\n"
            "from lib import other\n\n"
            f"torch.manual_seed(0)\ncfg = {read}\n"
            'loader = DataLoader(range(8), shuffle=cfg["shuffle"])\n',
        },
        monkeypatch,
        capsys,
    )
    assert [f["code"] for f in found] == ([] if followed else ["RNG001"])


def test_the_config_loader_cases_cover_the_tables() -> None:
    from seedlint.analysis import configs

    assert set(_STREAM_NAMES) == configs._STREAM_LOADERS
    assert configs._FILE_LOADERS == {"load"}
    assert configs._LOADER_MODULES == {"yaml", "json", "ruamel", "OmegaConf"}


def test_a_parameter_is_a_config_where_every_call_passes_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`build(cfg)`, called with a loaded config, reads that config's `shuffle: false`; the
    same function that nothing calls may be given anything (its shuffle may be true)."""
    found = _project_json(
        tmp_path,
        {
            "config.yaml": "shuffle: false\n",
            "train.py": "import torch\nimport yaml\nfrom torch.utils.data import DataLoader\n\n\n"
            'def build(cfg):\n    return DataLoader(range(8), shuffle=cfg["shuffle"])\n\n\n'
            'def unused(cfg):\n    return DataLoader(range(8), shuffle=cfg["shuffle"])\n\n\n'
            'torch.manual_seed(0)\nwith open("config.yaml") as f:\n    loaded = yaml.safe_load(f)\n'
            "loader = build(loaded)\n",
        },
        monkeypatch,
        capsys,
    )
    assert [(f["location"]["row"], f["code"]) for f in found] == [(11, "RNG001")]


def test_a_config_get_with_a_computed_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`cfg.get(key(), False)`: a key not written as a literal is no read the config model
    follows (the value may be anything): RNG001, as for any unknown shuffle."""
    found = _project_json(
        tmp_path,
        {
            "config.yaml": "shuffle: false\n",
            "train.py": "import torch\nimport yaml\nfrom torch.utils.data import DataLoader\n\n"
            'torch.manual_seed(0)\nwith open("config.yaml") as f:\n    cfg = yaml.safe_load(f)\n'
            'loader = DataLoader(range(8), shuffle=cfg.get(str("shuffle"), False))\n',
        },
        monkeypatch,
        capsys,
    )
    assert [(f["code"], f["location"]["row"]) for f in found] == [("RNG001", 8)]


# -- RNG002: the Lightning message names the seeder of another module within 100 characters
RNG002_HEAD = f"{PREFIX}: no `workers=True` at `"
RNG002_PLAIN = f"{PREFIX}: Lightning seeds workers only with `workers=True`"


def rng002_message(seeder_at: str | None) -> str:
    call = ast.parse("f()").body[0]
    assert isinstance(call, ast.Expr)
    return WorkersWithoutInitFnViolation(
        call.value, framework="Lightning", seeder_at=seeder_at
    ).message


def seeder_place(length: int) -> str:
    """A seeder's place of ``length`` characters, in a folder."""
    return "pkg/" + "x" * (length - len("pkg/.py:9")) + ".py:9"


def test_rng002_names_the_seeder_by_its_path_when_it_fits() -> None:
    fits = seeder_place(100 - len(RNG002_HEAD) - 1)
    assert rng002_message(fits) == f"{RNG002_HEAD}{fits}`"
    assert len(rng002_message(fits)) == 100


def test_rng002_names_the_seeder_by_its_file_when_the_path_does_not_fit() -> None:
    longer = seeder_place(100 - len(RNG002_HEAD))
    assert rng002_message(longer) == f"{RNG002_HEAD}{longer[len('pkg/') :]}`"


def test_rng002_names_no_seeder_when_neither_fits() -> None:
    name = "x" * 60 + ".py:9"
    assert rng002_message(name) == RNG002_PLAIN
    assert rng002_message(None) == RNG002_PLAIN
    assert rng002_message("") == RNG002_PLAIN


RNG002_DATA = (
    "import lightning as L\nfrom torch.utils.data import DataLoader\n\n\n"
    "class Data(L.LightningDataModule):\n    def train_dataloader(self):\n"
    "        return DataLoader(range(8), num_workers=4)\n"
)


@pytest.mark.parametrize(
    ("program", "message"),
    [
        # Fabric's seeder in another module (its summary is read from a tree without text)
        ("fabric = L.Fabric()\n    fabric.seed_everything(3)\n", None),
        ("fabric = L.Fabric()\n    fabric.seed_everything(3, workers=False)\n", "at"),
        ("pass\n", "plain"),  # no seeding through Lightning: a plain finding
        ('import os\n    os.environ["PL_SEED_WORKERS"] = "1"\n', None),
    ],
)
def test_rng002_decides_lightning_by_the_program_in_another_module(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    program: str,
    message: str | None,
) -> None:
    train = (
        "import lightning as L\n\nfrom data import Data\n\n\ndef main():\n    "
        + program
        + "    L.Trainer().fit(L.LightningModule(), Data())\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    )
    found = _project_json(
        tmp_path, {"data.py": RNG002_DATA, "train.py": train}, monkeypatch, capsys
    )
    messages = [f["message"] for f in found if f["code"] == "RNG002"]
    if message is None:
        assert messages == []
    elif message == "at":
        assert messages == [f"{PREFIX}: no `workers=True` at `train.py:8`"]
    else:
        assert messages == [f"{PREFIX}: only `random`, `torch` and `np.random` are reseeded"]


# -- every library loader class of the table ---------------------------------------------------
# (qualified name, RNG002 by default, RNG002 once `dataloader-classes` names it), written out
# here rather than read from the table, so that a changed entry fails the test.
LIBRARY_LOADERS = [
    *(
        (name, False, False)
        for name in ("monai.data.DataLoader", "monai.data.dataloader.DataLoader")
    ),
    *(
        (name, True, True)
        for name in (
            "torchdata.stateful_dataloader.StatefulDataLoader",
            "torchdata.stateful_dataloader.stateful_dataloader.StatefulDataLoader",
            "torch_geometric.loader.DataLoader",
            "torch_geometric.loader.dataloader.DataLoader",
            "torch_geometric.loader.NeighborLoader",
            "torch_geometric.loader.LinkNeighborLoader",
            "torch_geometric.loader.NodeLoader",
            "torch_geometric.loader.LinkLoader",
            "torch_geometric.data.DataLoader",
            "torch_geometric.data.DataListLoader",
            "torch_geometric.data.DenseDataLoader",
            "torch_geometric.data.dataloader.DataLoader",
            "torch_geometric.data.dataloader.DataListLoader",
            "torch_geometric.data.dataloader.DenseDataLoader",
            "torch_geometric.loader.DataListLoader",
            "torch_geometric.loader.data_list_loader.DataListLoader",
            "torch_geometric.loader.DenseDataLoader",
            "torch_geometric.loader.dense_data_loader.DenseDataLoader",
        )
    ),
    *(
        (name, False, True)
        for name in (
            "litdata.StreamingDataLoader",
            "litdata.streaming.dataloader.StreamingDataLoader",
        )
    ),
]


def test_the_library_loaders_cover_the_table() -> None:
    from seedlint.analysis.libraries import LOADER_CLASSES

    assert sorted(n for n, _, _ in LIBRARY_LOADERS) == sorted(
        n for e in LOADER_CLASSES for n in e.names
    )


@pytest.mark.parametrize(("name", "default", "configured"), LIBRARY_LOADERS, ids=lambda v: str(v))
def test_each_library_loader_class_with_workers(name: str, default: bool, configured: bool) -> None:
    """Each library loader class of the table, called with workers and no ``worker_init_fn``:
    RNG002 unless it installs its own worker seeding (MONAI's); a class the rules do not check
    by default (litdata's, whose dataset seeds its order) is checked once
    ``dataloader-classes`` names it."""
    from seedlint.config import Settings

    module, cls = name.rsplit(".", 1)
    text = f"from {module} import {cls}\n\nloader = {cls}(range(8), num_workers=2)\n"
    for classes, flagged in (((), default), ((name,), configured)):
        codes = [
            f.code
            for f in check_text(text, "train.py", Settings(dataloader_classes=classes)).findings
        ]
        assert codes == (["RNG002"] if flagged else []), classes


# -- a key the loaded configuration does not set ------------------------------------------------
def test_a_key_the_config_file_does_not_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read by subscript, a key the file does not set may be anything (RNG002: it may be a
    worker count); by ``.get``, it is the default: None (no workers), or the one given."""
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "train.yaml").write_text("shuffle: false\n")
    (tmp_path / "train.py").write_text(
        "import torch\nimport yaml\nfrom torch.utils.data import DataLoader\n\n"
        'torch.manual_seed(0)\nwith open("configs/train.yaml") as f:\n'
        "    config = yaml.safe_load(f)\nds = list(range(8))\n"
        'DataLoader(ds, num_workers=config["num_workers"])\n'
        'DataLoader(ds, num_workers=config.get("num_workers"))\n'
        'DataLoader(ds, num_workers=config.get("num_workers", 4))\n'
        'DataLoader(ds, num_workers=config.get("num_workers", default=4))\n'
    )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    cli.main(["check", "--isolated", "--no-cache", "--output-format", "json", "train.py"])
    found = json.loads(capsys.readouterr().out)
    assert [(f["location"]["row"], f["code"]) for f in found] == [
        (9, "RNG002"),
        (11, "RNG002"),
        (12, "RNG002"),
    ]


# (In this module: the mutation script runs it for `seedlint/analysis/compact.py`.)
def test_a_fix_reading_a_hollowed_value_is_checked_on_the_whole_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A very large module's value that nothing read is hollowed: a fixed text that now reads
    it (`unique_name`) cannot be joined to the old tree (its value is gone from it), and the
    fix loop's check goes back to the whole text; a fixed text that reads no hollowed name
    is joined."""
    from seedlint.engine import parse
    from seedlint.engine.splice import splice

    monkeypatch.setattr(parse, "LARGE", 100)
    monkeypatch.setattr(parse, "PIECE", 60)
    filler = "".join(f"v{index} = {index} * 2\n" for index in range(20))
    old = (
        "import torch\nfrom torch.utils.data import DataLoader\n\nunique_name = 17 * 2\n"
        f"{filler}loader = DataLoader(range(8), shuffle=True)\n"
    )
    tree = parse.parse_module(old, "m.py")
    reads = old.replace("shuffle=True)", "shuffle=bool(unique_name))")
    assert splice(old, tree, reads, "m.py") is None
    other = old.replace("shuffle=True)", "shuffle=False)")
    assert splice(old, parse.parse_module(old, "m.py"), other, "m.py") is not None


def test_rng000_for_a_file_that_cannot_be_decoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that is not UTF-8 (and names no other encoding) is one RNG000 finding saying
    why, at the first byte that does not decode; no grammar is named (it is no syntax error,
    though a later line holds syntax a newer Python reads)."""
    (tmp_path / "bad.py").write_bytes(b'x = "\xff"\nmatch x:\n    case 1:\n        pass\n')
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = cli.main(["check", "--isolated", "--no-cache", "--output-format", "concise", "bad.py"])
    assert capsys.readouterr().out.splitlines()[0] == (
        "bad.py:1:6: RNG000 cannot decode: not valid utf-8 (the file has no coding cookie): "
        "invalid start byte (byte 0xff)"
    )
    assert code == 1


@pytest.mark.parametrize(("count", "expected"), [(7, []), (8, ["RNG001"])])
def test_a_config_interpolation_chain_is_followed_seven_hops(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    count: int,
    expected: list[str],
) -> None:
    """`k0: ${k1}`, `k1: ${k2}`, ... down to `false`: seven interpolations are followed (the
    value is known: no finding), an eighth is not (the value may be anything)."""
    chain = "".join(f"k{index}: ${{k{index + 1}}}\n" for index in range(count))
    found = _project_json(
        tmp_path,
        {
            "config.yaml": f"{chain}k{count}: false\n",
            "train.py": "import torch\nfrom omegaconf import OmegaConf\n"
            "from torch.utils.data import DataLoader\n\ntorch.manual_seed(0)\n"
            'cfg = OmegaConf.load("config.yaml")\n'
            "loader = DataLoader(range(8), shuffle=cfg.k0)\n",
        },
        monkeypatch,
        capsys,
    )
    assert [f["code"] for f in found] == expected


def test_a_config_mapping_spread_into_the_loader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`DataLoader(..., **cfg.loader)` passes the keys of that part of the config: its
    `shuffle: true` is a finding (with where it is set), another part's `shuffle: false` none."""
    found = _project_json(
        tmp_path,
        {
            "config.yaml": "loader:\n  shuffle: true\n  num_workers: 0\nquiet:\n  shuffle: false\n",
            "train.py": "import torch\nfrom omegaconf import OmegaConf\n"
            "from torch.utils.data import DataLoader\n\ntorch.manual_seed(0)\n"
            'cfg = OmegaConf.load("config.yaml")\n'
            "loader = DataLoader(range(8), **cfg.loader)\n"
            "quiet = DataLoader(range(8), **cfg.quiet)\n",
        },
        monkeypatch,
        capsys,
    )
    assert [(f["location"]["row"], f["code"], f["message"]) for f in found] == [
        (
            7,
            "RNG001",
            "DataLoader shuffles without a `generator` (shuffle=True: set in config.yaml:2)",
        )
    ]
