"""Property tests: generated programs never crash the check, and ``--fix`` output always
parses, is idempotent, leaves no fixable finding, and never touches a file without one.

Two sources of programs:

- hypothesmith: arbitrary valid Python from the grammar (and from libcst's node types), with a
  comment naming every rule's trigger words on top so that every rule looks at it, and with a
  generated DataLoader snippet appended so that the fixer works inside strange code;
- :func:`loader_programs`: DataLoader calls with random argument mixes (positional and keyword,
  literal and computed values, ``*args``/``**kwargs``), import aliases, layouts (one line,
  exploded, comments between arguments) and contexts (module level, functions, methods, lambdas,
  comprehensions), with random seeding preludes, datasets holding RNG objects, and capture regions.

The in-process APIs are used (no subprocesses), and a bounded number of examples runs in CI,
derandomized so that CI is repeatable; ``scripts/fuzz`` runs the same properties with more
examples and fresh randomness (``SEEDLINT_PROPERTY_EXAMPLES`` and ``SEEDLINT_FUZZ``).
"""

from __future__ import annotations

import ast
import os
from collections import Counter

import hypothesmith
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seedlint.config import Settings
from seedlint.engine import parse
from seedlint.engine.check import check_bytes, check_text
from seedlint.engine.fix import applies, fix_text
from seedlint.fixes import window

SETTINGS = Settings()
DISPLAY = "generated.py"
# Every rule's pre-filter words, so that each rule checks every generated program.
TRIGGERS = (
    "# DataLoader Random rng Generator( graph( capture_begin seed set_seed torch random cuda\n"
)
STATS: Counter[str] = Counter()  # what was generated and checked (scripts/fuzz prints it)

_EXAMPLES = int(os.environ.get("SEEDLINT_PROPERTY_EXAMPLES") or 0)
_FUZZ = bool(os.environ.get("SEEDLINT_FUZZ"))


def budget(default: int) -> settings:
    return settings(
        max_examples=_EXAMPLES or default,
        deadline=None,
        derandomize=not _FUZZ,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


# -- the properties --------------------------------------------------------------------------
def assert_checks(text: str) -> None:
    """The check never raises and never fails inside seedlint."""
    STATS["programs checked"] += 1
    for findings in (
        check_bytes(text.encode("utf-8"), DISPLAY, SETTINGS).findings,
        check_text(text, DISPLAY, SETTINGS).findings,
    ):
        internal = [f for f in findings if f.message.startswith("internal error")]
        assert not internal, internal[0].message
    # The pre-filter never hides a finding: every rule run on the program finds the same.
    every_rule = check_text(text, DISPLAY, SETTINGS, prefilter=False).findings
    assert check_text(text, DISPLAY, SETTINGS).findings == every_rule
    # Checked the way a very large module is (parsed in pieces, hollowed, compacted), the
    # program gets the same findings.
    large, piece = parse.LARGE, parse.PIECE
    parse.LARGE, parse.PIECE = -1, 1
    try:
        assert check_text(text, DISPLAY, SETTINGS).findings == every_rule
    finally:
        parse.LARGE, parse.PIECE = large, piece


def fixable(text: str, unsafe: bool) -> list[str]:
    findings = check_text(text, DISPLAY, SETTINGS).findings
    return [f"{f.code}:{f.row}" for f in findings if applies(f, unsafe)]


def assert_fixes(text: str, unsafe: bool) -> None:
    """``--fix`` output parses and compiles, is idempotent and leaves no fixable finding; a
    program with no fixable finding is returned unchanged."""
    STATS["programs fixed"] += 1
    before = fixable(text, unsafe)
    result = fix_text(text, DISPLAY, SETTINGS, unsafe)
    assert result.error is None, result.error
    assert not result.warnings, result.warnings
    if not before:
        assert result.new_text == text
        return
    STATS["programs changed by --fix"] += 1
    STATS["findings fixed"] += len(result.fixed)
    # Fixed through a window (as a very large module is), the result is the same.
    lines, window.WINDOW_LINES = window.WINDOW_LINES, 0
    try:
        windowed = fix_text(text, DISPLAY, SETTINGS, unsafe)
    finally:
        window.WINDOW_LINES = lines
    assert (windowed.new_text, windowed.error) == (result.new_text, result.error)
    ast.parse(result.new_text)
    compile(result.new_text, DISPLAY, "exec", dont_inherit=True)
    assert fixable(result.new_text, unsafe) == []
    again = fix_text(result.new_text, DISPLAY, SETTINGS, unsafe)
    assert again.error is None and again.new_text == result.new_text
    assert again.fixed == []


# -- DataLoader programs ---------------------------------------------------------------------
IMPORTS = [
    ("from torch.utils.data import DataLoader\n", "DataLoader"),
    ("from torch.utils.data import DataLoader as Loader\n", "Loader"),
    ("import torch.utils.data\n", "torch.utils.data.DataLoader"),
    ("import torch.utils.data as tud\n", "tud.DataLoader"),
    ("from torch.utils import data\n", "data.DataLoader"),
    ("from torch.utils.data import *\n", "DataLoader"),
    ("from torch.utils.data.dataloader import DataLoader\n", "DataLoader"),
    ("from mylib import DataLoader  # not torch's\n", "DataLoader"),
]
TORCH_LOADERS = [item for item in IMPORTS if "mylib" not in item[0]]
TORCH_IMPORTS = [
    "",
    "import torch\n",
    "import torch as th\n",
    "import numpy as np\nimport torch\n",
    "from torch import Generator, manual_seed\n",
]
VALUES = {
    "dataset": ["dataset", "datasets[0]", "list(range(10))", "Noisy()", "make_dataset()"],
    "batch_size": ["4", "batch_size", "args.batch_size", "None"],
    "shuffle": [
        "True",
        "False",
        "None",
        "shuffle",
        "args.shuffle",
        "not shuffle",
        "1",
        "sampler is None",
        "train and True",
    ],
    "sampler": ["None", "RandomSampler(dataset)", "sampler", "SequentialSampler(dataset)"],
    "num_workers": ["0", "2", "workers", "args.num_workers", "os.cpu_count()"],
    "worker_init_fn": ["None", "seed_worker", "lambda worker_id: None"],
    "generator": [
        "None",
        "torch.Generator()",
        "g",
        "torch.Generator().manual_seed(seed)",
        "make_generator()",
    ],
    "persistent_workers": ["True", "False"],
    "collate_fn": ["None", "collate"],
    "drop_last": ["True", "False"],
}
POSITIONAL_ORDER = ["dataset", "batch_size", "shuffle", "sampler"]
PRELUDES = [
    "import random\nrandom.seed(0)\n",
    "import numpy as np\nnp.random.seed(1)\n",
    "import torch\ntorch.manual_seed(2)\n",
    "import torch\ntorch.cuda.manual_seed(3)\n",
    "import torch\ntorch.cuda.manual_seed_all(4)\n",
    "import torch\ng = torch.Generator()\n",
    "import torch\ng = torch.Generator()\ng.manual_seed(5)\n",
    "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--seed', type=int, "
    "default=6)\nargs = parser.parse_args()\n",
    "import random\nimport numpy as np\n\n\ndef set_seed(seed):\n    random.seed(seed)\n"
    "    np.random.seed(seed)\n",
    "import numpy as np\nfrom torch.utils.data import Dataset\n\n\nclass Noisy(Dataset):\n"
    "    def __init__(self):\n        self.rng = np.random.default_rng()\n\n"
    "    def __len__(self):\n        return 4\n\n    def __getitem__(self, i):\n"
    "        return self.rng.normal()\n",
    "import random\n\n\ndef seed_worker(worker_id):\n    random.seed(worker_id)\n",
    "from torch.utils.data import RandomSampler, SequentialSampler\n",
    "import torch\n\ng = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n"
    "    torch.manual_seed(7)\n    out = model(x)\n",
    "import torch\n\ns = torch.cuda.Stream()\ngraph = torch.cuda.CUDAGraph()\n"
    "graph.capture_begin()\ntorch.cuda.manual_seed_all(8)\ny = f(x)\ngraph.capture_end()\n",
    "import random\nimport torch\n\n\ndef seed_everything(seed):\n    random.seed(seed)\n"
    "    torch.cuda.manual_seed(seed)\n\n\nmodel = torch.nn.DataParallel(net)\n",
    '"""A module docstring."""\n',
    "from __future__ import annotations\n",
    "import os\n",
]


@st.composite
def loader_call(draw: st.DrawFn, callee: str, fixable: bool = False) -> str:
    """One DataLoader call, with its arguments laid out in one of several ways; ``fixable``:
    one that shuffles with no generator or sampler (RNG001's safe fix applies)."""
    choices = sorted(VALUES)
    if fixable:
        choices = [n for n in choices if n not in ("shuffle", "sampler", "generator")]
    names = draw(st.lists(st.sampled_from(choices), unique=True, max_size=7))
    if fixable:
        names.insert(draw(st.integers(0, len(names))), "shuffle")
    if "dataset" not in names and draw(st.booleans()):
        names.insert(0, "dataset")
    positional_count = 0

    def value(name: str) -> str:
        return "True" if fixable and name == "shuffle" else draw(st.sampled_from(VALUES[name]))

    for name in POSITIONAL_ORDER:
        if name in names and draw(st.booleans()):
            positional_count += 1
        else:
            break
    positional = [value(n) for n in POSITIONAL_ORDER[:positional_count]]
    keywords = [n for n in names if n not in POSITIONAL_ORDER[:positional_count]]
    keywords = draw(st.permutations(keywords))
    parts = positional + [f"{n}={value(n)}" for n in keywords]
    if not fixable and draw(st.integers(0, 9)) == 0:
        parts.append("*extra")
    if not fixable and draw(st.integers(0, 9)) == 0:
        parts.append("**options")
    layout = draw(st.sampled_from(["line", "exploded", "comments", "hanging", "empty"]))
    if (layout == "empty" and not fixable) or not parts:  # a fixable call keeps its shuffle
        return f"{callee}()"
    if layout == "line":
        return f"{callee}({', '.join(parts)})"
    if layout == "hanging":
        return f"{callee}(\n    {', '.join(parts)}\n)"
    if layout == "comments":
        body = "".join(f"    {p},  # {i}\n" for i, p in enumerate(parts))
        return f"{callee}(  # start\n{body})"
    return f"{callee}(\n" + "".join(f"    {p},\n" for p in parts) + ")"


def indent(code: str, prefix: str = "    ") -> str:
    return "".join(prefix + line if line.strip() else line for line in code.splitlines(True))


@st.composite
def loader_program(draw: st.DrawFn, fixable: bool = False) -> str:
    """A module of DataLoader calls; ``fixable``: torch's DataLoader, each call shuffling with
    no generator (so RNG001's safe fix applies to each)."""
    imports, callee = draw(st.sampled_from(TORCH_LOADERS if fixable else IMPORTS))
    torch_import = draw(st.sampled_from(TORCH_IMPORTS))
    preludes = draw(st.lists(st.sampled_from(PRELUDES), unique=True, max_size=4))
    future = [p for p in preludes if p.startswith(("from __future__", '"""'))]
    preludes = [p for p in preludes if p not in future]
    calls = draw(st.lists(loader_call(callee, fixable), min_size=1, max_size=3))
    context = draw(
        st.sampled_from(
            ["module", "function", "method", "lambda", "comprehension", "nested", "if", "with"]
        )
    )
    body: list[str] = []
    for index, call in enumerate(calls):
        if context == "module":
            body.append(f"loader_{index} = {call}\n")
        elif context == "function":
            body.append(
                f"def make_{index}(dataset, shuffle=True, seed=0, workers=2, sampler=None):\n"
                + indent(f"loader = {call}\nreturn loader\n")
            )
        elif context == "method":
            body.append(
                f"class Module{index}:\n"
                + indent(f"def train_dataloader(self, shuffle=True):\n{indent(f'return {call}')}\n")
            )
        elif context == "lambda":
            body.append(f"make_{index} = lambda dataset, shuffle=True: {call}\n")
        elif context == "comprehension":
            body.append(f"loaders_{index} = [{call} for dataset in datasets]\n")
        elif context == "nested":
            body.append(f"batches_{index} = list(iter({call}))\n")
        elif context == "if":
            body.append(f"if train:\n{indent(f'loader = {call}')}\nelse:\n    loader = None\n")
        else:
            body.append(f"with context():\n{indent(f'loader = {call}')}\n")
    sections = [*future, imports + torch_import, *preludes, *body]
    return "\n\n".join(section.rstrip("\n") + "\n" for section in sections)


@given(loader_program())
@budget(120)
def test_loader_programs_check_and_fix(text: str) -> None:
    STATS["loader programs"] += 1
    assert_checks(text)
    assert_fixes(text, unsafe=False)


@given(loader_program())
@budget(40)
def test_loader_programs_fix_with_unsafe_fixes(text: str) -> None:
    STATS["loader programs (unsafe fixes)"] += 1
    assert_fixes(text, unsafe=True)


# -- arbitrary programs ----------------------------------------------------------------------
@given(hypothesmith.from_grammar())
@budget(25)
def test_grammar_programs_never_crash_the_check(text: str) -> None:
    STATS["grammar programs"] += 1
    assert_checks(TRIGGERS + text)


@given(hypothesmith.from_node())
@budget(25)
def test_libcst_programs_never_crash_the_check(text: str) -> None:
    STATS["libcst-node programs"] += 1
    assert_checks(TRIGGERS + text)


@given(hypothesmith.from_grammar(), loader_program(fixable=True))
@budget(20)
def test_loader_inside_arbitrary_program_fixes(program: str, loader: str) -> None:
    """The fixer inside strange code: a generated program, then a generated loader module
    whose every call has a safe fix (so that every example is fixed)."""
    STATS["grammar programs + loader"] += 1
    if not program.endswith("\n"):
        program += "\n"
    text = TRIGGERS + program + "\n" + loader.replace("from __future__ import annotations\n", "")
    try:
        compile(text, DISPLAY, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return  # e.g. the generated program ends inside a construct the loader cannot follow
    assert_checks(text)
    assert fixable(text, unsafe=False), "a generated loader has no safe fix"
    assert_fixes(text, unsafe=False)
