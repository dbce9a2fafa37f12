"""The pre-filter's second stage (``seedlint/analysis/text.py``) never hides a finding.

Every spelling the name resolver follows to ``random.seed``, ``numpy.random.seed``,
``torch.cuda.manual_seed(_all)`` or ``torch.cuda.graph`` (imports, ``as`` aliases, assigned
aliases, conditional expressions, star imports, odd layouts) is generated; for each program the
rule must find its finding both with and without the pre-filter. The programs the stage rules
out must really have no finding.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from seedlint.config import Settings
from seedlint.engine.check import check_text
from seedlint.engine.selection import selection
from seedlint.prefilter import scan as text

SETTINGS = Settings()

# How a program can get at a module (`{m}` is the name used below) and then call `seed`.
RANDOM_SPELLINGS = [
    ("import random", "random.seed"),
    ("import random as rnd", "rnd.seed"),
    ("import random as rnd\nr = rnd", "r.seed"),
    ("import random\nr = (random)", "r.seed"),
    ("import random\nr = (\n    random\n)", "r.seed"),
    ("import random\nimport numpy\nr = random if len([]) else numpy.random", "r.seed"),
    ("import random\nr: object = random", "r.seed"),
    ("import random\nr: 'a=b' = random", "r.seed"),
    ("import random as \u03c1\nr = \u03c1", "r.seed"),
    ("import random as \u03c1\nr = (\u03c1)", "r.seed"),
    ("import random as \u03c1", "\u03c1.seed"),
    ("import random\nif (r := random):\n    pass", "r.seed"),
    ("import random", "(random if len([]) else random).seed"),
    ("import random", "random . seed"),
    ("import random", "random.\\\n    seed"),
    ("import random", "(random  # the module\n    .seed)"),
    ("from random import seed", "seed"),
    ("from random import seed as s", "s"),
    ("from random import (  # the (seed) function\n    getstate,\n    seed,\n)", "seed"),
    ("from random import *", "seed"),
    ("import numpy as np", "np.random.seed"),
    ("import numpy.random as npr", "npr.seed"),
    ("from numpy import random as npr", "npr.seed"),
    ("from numpy import (random as  # an alias\n    npr)", "npr.seed"),
    ("from numpy import random", "random.seed"),
    ("import numpy as np", "np.random.mtrand.seed"),
    ("from numpy.random import seed as npseed", "npseed"),
    ("import numpy as np\nnpr = np.random\nalias = npr", "alias.seed"),
]
CUDA_SPELLINGS = [
    ("", "torch.cuda.manual_seed"),
    ("", "torch.cuda.manual_seed_all"),
    ("", "torch.cuda.random.manual_seed"),
    ("from torch import cuda", "cuda.manual_seed"),
    ("from torch import cuda as c", "c.manual_seed_all"),
    ("import torch.cuda as tc", "tc.manual_seed"),
    ("c = torch.cuda", "c.manual_seed"),
    ("from torch.cuda import manual_seed_all as seed_all_devices", "seed_all_devices"),
    ("from torch.cuda import *", "manual_seed"),
]
GRAPH_SPELLINGS = [
    ("", "torch.cuda.graph"),
    ("", "torch.xpu.graph"),
    ("", "torch.cuda.graphs.graph"),
    ("from torch.cuda import graph", "graph"),
    ("from torch.cuda import graph as capture", "capture"),
    ("from torch import cuda", "cuda.graph"),
    ("from torch import cuda as c", "c.graph"),
    ("tc = torch.cuda", "tc.graph"),
    ("tc = torch.cuda if torch.cuda.is_available() else torch.xpu", "tc.graph"),
    ("from torch.cuda import *", "graph"),
]


def codes(program: str, prefilter: bool = True) -> list[str]:
    return [f.code for f in check_text(program, "t.py", SETTINGS, prefilter=prefilter).findings]


def passes(program: str, code: str) -> bool:
    return code in {rule.code for rule in selection(SETTINGS).firing(program.encode())}


@pytest.mark.parametrize(("prelude", "call"), RANDOM_SPELLINGS)
def test_random_and_numpy_seeding_spellings(prelude: str, call: str) -> None:
    program = f"import torch\n{prelude}\n{call}(0)\nnoise = torch.rand(3)\n"
    assert codes(program, prefilter=False) == ["RNG004"], program
    assert passes(program, "RNG004"), program
    assert codes(program) == ["RNG004"]


@pytest.mark.parametrize(("prelude", "call"), CUDA_SPELLINGS)
def test_cuda_seeding_spellings(prelude: str, call: str) -> None:
    program = f"import torch\n{prelude}\n\ndef main():\n    {call}(0)\n    torch.rand(3)\n"
    assert codes(program, prefilter=False) == ["RNG004"], program
    assert passes(program, "RNG004"), program
    assert codes(program) == ["RNG004"]


@pytest.mark.parametrize(("prelude", "context"), GRAPH_SPELLINGS)
def test_graph_capture_spellings(prelude: str, context: str) -> None:
    program = (
        f"import torch\n{prelude}\n\ndef capture(g):\n"
        f"    with {context}(g):\n        torch.manual_seed(0)\n"
    )
    assert codes(program, prefilter=False) == ["RNG003"], program
    assert passes(program, "RNG003"), program
    assert codes(program) == ["RNG003"]


@pytest.mark.parametrize(
    "program",
    [
        # Attributes that look like seeding but cannot resolve to a module's function.
        "import torch\nimport random\n\nclass A:\n    def f(self):\n        self.seed(0)\n",
        "import torch\nimport random\n\ndef f(a):\n    torch.Generator().manual_seed(a.seed)\n",
        "import torch\nimport numpy as np\n\ng = torch.Generator(device='cpu')\ng.seed()\n",
        "import torch\nimport random\nrng = random.Random(0)\nrng.seed(1)\n",
        "import torch\nimport random\nargs = parse()\nargs.seed\n",
        "import torch\nimport random\nx = self.fx\nx.graph(1)\n# seed\n",
        # The words in a comment only.
        "import torch\nimport random  # seed\nrandom.random()\n",
        # A keyword or constant before the dot, or assigned in a string: nothing binds it.
        'import torch\nimport random\n"""\nNone = random\n"""\nx = None\nx.seed(0)\n',
        "import torch\nfrom .graph import g  # manual_seed\nwith g():\n    torch.manual_seed(0)\n",
        "import torch\nimport random\n# True = random\nTrue.seed\n",
    ],
)
def test_ruled_out_programs_have_no_finding(program: str) -> None:
    assert not passes(program, "RNG004") and not passes(program, "RNG003"), program
    assert codes(program, prefilter=False) == []


def test_combined_spellings_exhaustively() -> None:
    """Every import spelling with every layout of the call, with and without the filter."""
    layouts = ["{call}(0)", "x = {call}(0)", "if True:\n    {call}(0)", "({call})(0)"]
    for (prelude, call), layout in itertools.product(RANDOM_SPELLINGS, layouts):
        program = f"import torch\n{prelude}\n{layout.format(call=call)}\n"
        expected = codes(program, prefilter=False)
        assert codes(program) == expected, program
        if expected:
            assert passes(program, "RNG004"), program


def test_a_file_full_of_attributes_is_not_scanned_forever() -> None:
    lines = "".join(f"x{i} = f()\nx{i}.seed(0)\n" for i in range(2000))
    program = "import torch\nimport random\n" + lines
    assert text._BUDGET < 2000
    assert passes(program, "RNG004")  # past the budget the scan says "may"
    assert codes(program) == codes(program, prefilter=False) == []


def test_module_spellings_follow_the_canonical_names() -> None:
    from seedlint.analysis.names import module_spellings

    assert module_spellings("numpy.random") == {"random", "mtrand"}
    assert {"cuda", "random", "graphs"} <= module_spellings("torch.cuda")


# -- scripts/prefilter_check.py: the same comparison on whole folders of real code ----------
ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "prefilter_check.py"
CORPUS = ROOT / "bench" / "corpus"


def run_check(*folders: Path) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, str(SCRIPT), "--jobs", "2", *map(str, folders)]
    return subprocess.run(args, capture_output=True, text=True, timeout=900)


def test_prefilter_check_script(tmp_path: Path) -> None:
    (tmp_path / "seeded.py").write_text("import torch\nimport random as r\nr.seed(0)\n")
    broken = "import torch\nimport random\n\nclass A:\n    def f(self):\n        self.seed(\n"
    (tmp_path / "skipped.py").write_text(broken)
    (tmp_path / "clean.py").write_text("x = 1\n")
    run = run_check(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 files; 1 pass the pre-filter" in run.stdout
    # The broken file has `seed` but no seeding a rule reports: never parsed, listed as such.
    assert "not parsed (no rule can fire)" in run.stdout and "skipped.py" in run.stdout
    assert "the rules' findings are identical" in run.stdout


@pytest.mark.skipif(
    not CORPUS.is_dir() and not os.environ.get("CI"),  # CI builds it: there it must run
    reason="bench/corpus is not built (python bench/build_corpus.py)",
)
def test_prefilter_hides_nothing_on_the_corpus() -> None:
    run = run_check(CORPUS)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "the rules' findings are identical" in run.stdout


# -- the literal search for `.attr` finds what the regex finds ------------------------------
ATTRIBUTE_TEXTS = [
    "random.seed(0)\nx.manual_seed(1)\n",
    "a . seed (0)\nb.\\\n    seed(0)\n",  # spaces, a line continuation
    "a.seedling(0)\nb.seed_all(0)\nc.myseed(0)\n_seed(0)\n",  # longer words, no dot
    "a.  # a comment\n    seed(0)\n",  # a comment between: the regex reads the text
    "s = 'x.seed'\n# y.seed\nz.seedé(0)\nw.éseed(0)\n",  # strings, comments, non-ASCII
    ".seed\nseed.\n..seed\n",  # at the edges
    "torch.cuda.graph(g)\nwith g.graph_pool():\n    pass\n",
]
ATTRIBUTE_SETS = [
    frozenset({"seed", "manual_seed", "manual_seed_all"}),
    frozenset({"seed", "seed_all", "set_seed", "enable_full_determinism"}),
    frozenset({"graph"}),
]


@pytest.mark.parametrize("source", ATTRIBUTE_TEXTS)
def test_attribute_dots_equal_the_regex(source: str) -> None:
    raw = source.encode()
    for attrs in ATTRIBUTE_SETS:
        expected = [m.start() for m in text._attribute_pattern(attrs).finditer(raw)]
        found = text._attribute_dots(raw, attrs)
        if found is None:  # only where a comment may stand between
            assert b"#" in raw
        else:
            assert found == expected, (source, attrs)


def test_attribute_dots_equal_the_regex_on_the_fixtures() -> None:
    fixtures = sorted((ROOT / "tests" / "fixtures").rglob("*.py"))
    assert fixtures
    for path in fixtures:
        raw = path.read_bytes()
        for attrs in ATTRIBUTE_SETS:
            found = text._attribute_dots(raw, attrs)
            if found is not None:
                expected = [m.start() for m in text._attribute_pattern(attrs).finditer(raw)]
                assert found == expected, (path, attrs)


def test_word_scan_answers_exactly() -> None:
    from seedlint.prefilter.words import WordScan

    raw = b"import torch\nSEED = 1\nloader = DataLoader(ds, shuffle=True)\n# Sampler\n"
    scan = WordScan(raw)
    words = [b"seed", b"Seed", b"SEED", b"DataLoader", b"RandomSampler", b"Sampler", b"rand"]
    for word in words:
        assert scan.has(word) == (word in raw), word
    assert scan.has_folded(b"seed") and not scan.has_folded(b"generator")


def test_assignments_are_found_as_one_regex_per_name_finds_them() -> None:
    """`_assignments_of` (a literal search and one shared tail for a longer name, a pattern of
    its own for a name of one or two characters) finds what a compiled `name` + tail regex
    finds, left to right without overlap, then filtered by the character before: on texts
    made of names, spaces, annotations, `=`/`==`/`:=`, parentheses, backslashes, quotes,
    dots and line ends."""
    import random
    import re

    from seedlint.prefilter.scan import _ASSIGNMENT_TAIL, _assignments_of, _is_word

    def expected(raw: bytes, name: bytes) -> list[tuple[int, int]]:
        pattern = re.compile(re.escape(name) + _ASSIGNMENT_TAIL.pattern)
        return [
            (m.start(), m.end())
            for m in pattern.finditer(raw)
            if not m.start() or not (_is_word(raw[m.start() - 1]) or raw[m.start() - 1] == 46)
        ]

    pieces = [
        b"a",
        b"aa",
        b"ab",
        b"x",
        b"_a",
        b".",
        b" ",
        b"\t",
        b":",
        b"=",
        b"==",
        b":=",
        b")",
        b"(",
        b"\\",
        b'"',
        b"'",
        b"\n",
        b"\r\n",
        b"int",
        b"1",
        b"\xc3\xa9",
        b"#",
    ]
    names = [b"a", b"aa", b"ab", b"x", b"int", b"aab", b"_a_", b"abab"]
    rng = random.Random(7)
    checked = 0
    for _ in range(4000):
        raw = b"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 24)))
        for name in names:
            assert list(_assignments_of(raw, name)) == expected(raw, name), (raw, name)
            checked += 1
    assert checked == 32000


def test_keywords_and_constants_never_denote_a_module() -> None:
    """`None.seed`, `from .graph import g`: no assignment or import binds a keyword, even where
    the text seems to (in a string), so the scan does not look for one."""
    from seedlint.prefilter.scan import _name_may_denote

    raw = b'"""\nNone = random\nfrom = random\n"""\n'
    modules = frozenset({"random"})
    assert not _name_may_denote(raw, b"None", modules, set())
    assert not _name_may_denote(raw, b"from", modules, set())
    assert _name_may_denote(raw.replace(b"None", b"Nona"), b"Nona", modules, set())
