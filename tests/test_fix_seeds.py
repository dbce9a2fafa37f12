"""The seed a fix writes (issue 13): the program's own seed where the fix goes, bound there at
run time; else ``torch.initial_seed()``; a literal only in scripts. The fix title names the
expression the fix writes. Runtime checks with real PyTorch (CPU) import the fixed modules."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from seedlint.analysis.facts import ModuleFacts
from seedlint.config import Settings
from seedlint.engine.check import check_text
from seedlint.engine.fix import fix_text
from seedlint.engine.selection import fix_options
from seedlint.fixes.locate import start
from seedlint.fixes.seeds import Seed, choose_seed

ROOT = Path(__file__).resolve().parent.parent
PAIRS = Path(__file__).parent / "fixtures" / "fixes"


def seed_at_loader(text: str, settings: Settings = Settings()) -> Seed:
    facts = ModuleFacts(ast.parse(text), text=text)
    (loader,) = facts.dataloader_calls
    return choose_seed(facts, start(loader.call), loader.scope, fix_options(settings))


LIBRARY = (
    "from torch.utils.data import DataLoader\n\n\n"
    "def f(ds):\n    return DataLoader(ds, shuffle=True)\n"
)
SCRIPT = LIBRARY + '\n\nif __name__ == "__main__":\n    f(range(3))\n'


@pytest.mark.parametrize(
    ("text", "expected", "origin"),
    [
        (LIBRARY, None, "initial_seed"),
        (SCRIPT, "0", "fix-seed"),  # called from the __main__ guard of a script seeding nothing
        (
            "from torch.utils.data import DataLoader\n\n"
            "loader = DataLoader(range(3), shuffle=True)\n",
            "0",
            "fix-seed",
        ),
        (
            "import torch\nfrom torch.utils.data import DataLoader\n\ntorch.manual_seed(5)\n"
            "loader = DataLoader(range(3), shuffle=True)\n",
            "5",
            "program",
        ),
        (  # a global of the __main__ guard, read from a function: NameError on import
            "from torch.utils.data import DataLoader\n\n\ndef f(ds):\n"
            "    return DataLoader(ds, shuffle=True)\n\n\n"
            'if __name__ == "__main__":\n    seed = 3\n    f(range(3))\n',
            "0",
            "fix-seed",  # an unseeded script: its entry point gets the literal
        ),
        (  # the same global outside the guard exists on import
            "from torch.utils.data import DataLoader\n\nseed = 3\n\n\ndef f(ds):\n"
            "    return DataLoader(ds, shuffle=True)\n",
            "seed",
            "program",
        ),
        (  # a parameter named `*_seed`
            "from torch.utils.data import DataLoader\n\n\ndef f(ds, data_seed=4):\n"
            "    return DataLoader(ds, shuffle=True)\n",
            "data_seed",
            "program",
        ),
        (  # a bool flag that ends in `_seed` is not a seed
            "from torch.utils.data import DataLoader\n\n\ndef f(ds, use_seed=True):\n"
            "    return DataLoader(ds, shuffle=True)\n",
            None,
            "initial_seed",
        ),
        (  # `self.seed` is set after the loader in `__init__`: not yet bound there
            "from torch.utils.data import DataLoader\n\n\nclass T:\n"
            "    def __init__(self, ds, seed=1):\n"
            "        self.loader = DataLoader(ds, shuffle=True)\n"
            "        self.seed = seed\n",
            "seed",
            "program",
        ),
        (  # `self.seed` set from a None default is not used
            "from torch.utils.data import DataLoader\n\n\nclass T:\n"
            "    def __init__(self, seed=None):\n        self.seed = seed\n\n"
            "    def loader(self, ds):\n        return DataLoader(ds, shuffle=True)\n",
            None,
            "initial_seed",
        ),
    ],
)
def test_seed_choice(text: str, expected: str | None, origin: str) -> None:
    seed = seed_at_loader(text)
    assert (seed.expression, seed.origin) == (expected, origin)


def test_fix_seed_set_is_used_in_scripts_only() -> None:
    explicit = Settings(fix_seed=7)
    assert seed_at_loader(SCRIPT, explicit) == Seed("7", "fix-seed")
    assert seed_at_loader(LIBRARY, explicit) == Seed(None, "initial_seed")
    # the default (not set) is written only in the entry point of a script that seeds nothing
    seeding = "    s = 1\n    torch.manual_seed(s)\n    f(range(3))"
    seeded = SCRIPT.replace("    f(range(3))", seeding)
    seeded = "import torch\n" + seeded
    assert seed_at_loader(seeded, Settings()) == Seed(None, "initial_seed")


CASES = sorted(p.name for p in PAIRS.iterdir() if (p / "before.py").is_file())


@pytest.mark.parametrize("case", CASES)
def test_the_title_names_what_the_fix_writes(case: str) -> None:
    """Every RNG001 fix title quotes the generator expression that the fix really writes."""
    args = (PAIRS / case / "args").read_text() if (PAIRS / case / "args").is_file() else ""
    settings = Settings(root=PAIRS, unsafe_fixes="--unsafe-fixes" in args)
    if "--fix-seed" in args:
        settings = replace(settings, fix_seed=int(args.split("--fix-seed")[1].split()[0]))
    text = (PAIRS / case / "before.py").read_text(encoding="utf-8", errors="surrogateescape")
    try:
        titles = [
            f.fix.message
            for f in check_text(text, "x.py", settings).findings
            if f.code == "RNG001" and f.fix is not None
        ]
    except UnicodeError:
        pytest.skip("not a UTF-8 fixture")
    after = fix_text(text, "x.py", settings, unsafe=True).new_text
    flat = "".join(after.split())
    for title in titles:
        written = title.split("`")[1].removeprefix("generator=")
        assert "".join(written.split()) in flat, (title, after)


NO_SEED_CLASS = (
    "import torch\nfrom torch.utils.data import RandomSampler, random_split\n\n\n"
    "class Splits:\n    def __init__(self, data):\n"
    "        self.train, self.val = random_split(data, [0.5, 0.5])\n"
    "        self.sampler = RandomSampler(self.train)\n"
    "        self.other = RandomSampler(self.val, generator=torch.Generator())\n\n\n"
    'if __name__ == "__main__":\n    Splits(list(range(8)))\n'
)


@pytest.mark.parametrize("seeded", [False, True])
def test_rng006_rng007_fixes_in_a_program_that_seeds_nothing_add_a_seed_and_are_unsafe(
    seeded: bool,
) -> None:
    """Where ``torch.initial_seed()`` would be random (nothing seeds torch), the RNG006 and
    RNG007 fixes, and the fix that seeds an unseeded Generator, are unsafe and add ``SEED = 0``;
    in a program that seeds torch they are safe and use its seed."""
    text = NO_SEED_CLASS.replace("    Splits(", "    torch.manual_seed(1)\n    Splits(")
    text = text if seeded else NO_SEED_CLASS
    findings = check_text(text, "x.py", Settings()).findings
    fixes = sorted((f.code, f.row, f.fix.message, f.fixable) for f in findings if f.fix)
    seed = "1" if seeded else "SEED"  # the seed the program names
    tail = "" if seeded else " and add `SEED = 0` where the program starts (it seeds nothing)"
    generator = f"torch.Generator().manual_seed({seed})"
    assert fixes == [
        ("RNG006", 7, f"Pass `generator={generator}`{tail}", seeded),
        ("RNG007", 8, f"Pass `generator={generator}`{tail}", seeded),
        ("RNG007", 9, f"Seed the generator where it is made: `.manual_seed({seed})`{tail}", seeded),
    ]
    after = fix_text(text, "x.py", Settings(), unsafe=True).new_text
    assert ("SEED = 0\n" in after) is not seeded
    assert after.count(f"Generator().manual_seed({seed})") == 3


# -- at run time, with real PyTorch ---------------------------------------------------------------
DRIVER = r"""
import importlib.util, json, sys
import torch

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # imported, not run as __main__
    return module

def order(loader):
    return [int(x) for batch in loader for x in batch]

library = load(sys.argv[1], "library")
guarded = load(sys.argv[2], "guarded")
trainer = load(sys.argv[3], "trainer")
out = {}
torch.manual_seed(1)
out["seed1"] = order(library.make_loader(range(16)))
torch.manual_seed(1)
torch.rand(3)  # an extra draw before the loader
out["seed1_extra_draw"] = order(library.make_loader(range(16)))
torch.manual_seed(2)
out["seed2"] = order(library.make_loader(range(16)))
torch.manual_seed(1)
out["guarded"] = order(guarded.build(range(16)))
out["trainer5"] = order(trainer.Trainer(range(16), seed=5).loader())
torch.rand(5)
out["trainer5_again"] = order(trainer.Trainer(range(16), seed=5).loader())
out["trainer6"] = order(trainer.Trainer(range(16), seed=6).loader())
print(json.dumps(out))
"""


def test_fixed_modules_import_and_follow_the_run_seed(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="runs the fixed modules with PyTorch")
    names = ["seed_library_initial_seed", "seed_main_guard_args", "seed_self_attribute"]
    paths = []
    for name in names:
        path = tmp_path / f"{name}.py"
        path.write_bytes((PAIRS / name / "after.py").read_bytes())
        paths.append(str(path))
    (tmp_path / "driver.py").write_text(DRIVER)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, "driver.py", *paths],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert sorted(out["seed1"]) == list(range(16))
    # torch.initial_seed(): follows torch.manual_seed, not the number of draws before the loader
    assert out["seed1"] == out["seed1_extra_draw"]
    assert out["seed1"] != out["seed2"]
    # the function that reads no `args` of the __main__ guard runs when the module is imported
    assert out["guarded"] == out["seed1"]
    # `self.seed` from the constructor: the order follows the trainer's seed only
    assert out["trainer5"] == out["trainer5_again"] != out["trainer6"]


def test_rng004_writes_no_literal_in_library_code() -> None:
    """A library helper whose seed cannot be written again gets no fix (a literal there would
    fix torch's stream for every user of the library); a script gets `fix-seed`."""
    from seedlint.engine.check import check_text as check

    library = (
        "import random\n\nimport numpy as np\nimport torch\n\n\n"
        "def set_seed(config):\n"
        "    random.seed(config.get_seed())\n"
        "    np.random.seed(config.get_seed())\n"
    )
    findings = [f for f in check(library, "lib.py", Settings()).findings if f.code == "RNG004"]
    assert findings and findings[0].fix is None
    script = library + "\n\nif __name__ == '__main__':\n    set_seed(make_config())\n"
    script += "    model = torch.nn.Linear(2, 2)\n"
    findings = [f for f in check(script, "run.py", Settings()).findings if f.code == "RNG004"]
    assert findings


def test_the_module_walks_skip_only_statements_that_hold_nothing() -> None:
    """The fix titles' module-wide walks (seed-like reads, comparisons with None) skip the
    statements on rows without `seed` / `None`: on every fixture (and on reads that only a
    decorator or a continuation row holds) they find what a walk of every node finds."""
    import warnings

    from seedlint.fixes.seeds import _none_tested, _seed_reads

    sources = [
        "@use(args.seed)\ndef f():\n    pass\n\nclass C:\n    @with_seed(\n        cfg['seed']\n"
        "    )\n    def m(self):\n        if self.rng_seed is None:\n            pass\n",
        "x = (\n    opts\n    .SEED\n)\ny = f(a,\n      b) == None\n",
        "a = 1\r\nb = args.seed\rc = d is not None\n",  # every line break the parser knows
    ]
    root = Path(__file__).parent / "fixtures"
    sources.extend(p.read_bytes().decode("utf-8", "replace") for p in sorted(root.rglob("*.py")))
    compared = 0
    for text in sources:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        pruned, whole = ModuleFacts(tree, text=text), ModuleFacts(tree, text="")
        reads = [(read, id(node), id(scope.node)) for read, node, scope in _seed_reads(pruned)]
        every = [(read, id(node), id(scope.node)) for read, node, scope in _seed_reads(whole)]
        assert reads == every
        assert _none_tested(pruned) == _none_tested(whole)
        compared += bool(every)
    assert compared > 10


def test_seeded_factories_are_found_under_any_spelling() -> None:
    """The seeds a fix may reuse include seeded RNG constructors; only calls spelled like one
    (its name, an import alias, an assigned alias) are resolved, and every such spelling is
    still found: only the constructor calls, each once."""
    from seedlint.analysis.facts import AnalysisOptions
    from seedlint.fixes.seeds import seeding_calls

    source = (
        "import numpy as np\n"
        "from numpy.random import default_rng as mk\n"
        "from random import Random as R\n"
        "make = np.random.RandomState\n"
        "a = mk(1)\n"
        "b = R(2)\n"
        "c = make(3)\n"
        "d = np.random.default_rng(4)\n"
        "e = np.zeros(5)\n"
        "f = Random(6)\n"  # unbound: not the random module's
    )
    facts = ModuleFacts(ast.parse(source), AnalysisOptions(), source, "m.py")
    found = [call.args[0].value for call, _ in seeding_calls(facts)]  # type: ignore[attr-defined]
    assert found == [1, 2, 3, 4]


WORKERS_CLASS = (
    "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
    "class Evaluator:\n    def __init__(self, data):\n"
    "        self.loader = DataLoader(data, num_workers=2)\n\n\n"
    'if __name__ == "__main__":\n    Evaluator(range(8))\n'
)
WORKERS_SCRIPT = (
    "import torch\nfrom torch.utils.data import DataLoader\n\n"
    "loader = DataLoader(range(8), num_workers=2, generator=None)\nprint(list(loader))\n"
)
WORKERS_SUBCLASS = (  # its __init__ takes worker_init_fn, not generator
    "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
    "class Loader(DataLoader):\n"
    "    def __init__(self, data, num_workers=0, worker_init_fn=None):\n"
    "        super().__init__(data, num_workers=num_workers, worker_init_fn=worker_init_fn)\n\n\n"
    "loader = Loader(range(8), num_workers=2)\nprint(list(loader))\n"
)
_WORKER = (
    "Pass `worker_init_fn=seed_worker`, a new module-level function that reseeds each worker's "
    "`random`"
)
_NEW_SEED = " and add `SEED = 0` where the program starts (it seeds nothing)"


@pytest.mark.parametrize(
    ("text", "seeded", "title", "safe"),
    [
        (
            WORKERS_CLASS,
            False,
            f"{_WORKER}, with `generator=torch.Generator().manual_seed(SEED)`{_NEW_SEED}",
            False,
        ),
        (
            WORKERS_CLASS,
            True,
            f"{_WORKER}, with `generator=torch.Generator().manual_seed(1)`",
            True,
        ),
        (
            WORKERS_SCRIPT,
            False,
            f"{_WORKER}, with `generator=torch.Generator().manual_seed(0)`",
            True,
        ),
        (
            WORKERS_SCRIPT,
            True,
            f"{_WORKER}, with `generator=torch.Generator().manual_seed(1)`",
            True,
        ),
        (WORKERS_SUBCLASS, False, None, False),  # a worker_init_fn alone: the workers stay random
        (WORKERS_SUBCLASS, True, _WORKER, False),  # the base seed follows torch.manual_seed(1)
    ],
)
def test_the_rng002_fix_in_a_program_that_seeds_nothing_also_seeds_the_base_seed(
    text: str, seeded: bool, title: str | None, safe: bool
) -> None:
    """In a script that seeds nothing, the global generator that draws the workers' base seed
    is unseeded: the RNG002 fix passes a seeded ``generator=`` too (the fix-seed literal where
    the script makes the loader, else a new ``SEED`` constant: unsafe), or offers no fix."""
    if seeded:
        lines = text.split("\n")
        at = next(i for i, line in enumerate(lines) if line.startswith(("if __name__", "loader")))
        indent = "    " if lines[at].startswith("if") else ""
        lines.insert(at + 1 if indent else at, f"{indent}torch.manual_seed(1)")
        text = "\n".join(lines)
    findings = [f for f in check_text(text, "x.py", Settings()).findings if f.code == "RNG002"]
    assert len(findings) == 1
    fix = findings[0].fix
    assert (fix.message if fix else None) == title
    if fix is None:
        assert fix_text(text, "x.py", Settings(), unsafe=True).new_text == text
        return
    assert findings[0].fixable is safe
    after = fix_text(text, "x.py", Settings(), unsafe=True).new_text
    assert ("SEED = 0\n" in after) is ("SEED" in title)
    written = title.split("`generator=")[1].split("`")[0] if "generator=" in title else None
    assert (written is not None and written in after) or (
        written is None and "generator=" not in after
    )
    assert "worker_init_fn=seed_worker" in after and "generator=None" not in after
