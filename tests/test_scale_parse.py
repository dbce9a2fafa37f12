"""A large module is parsed in pieces (``seedlint.engine.parse``): the same tree as
``ast.parse`` of the whole text, node for node and position for position, the same error for a
file that does not parse, and a lower peak of memory while checking.

The pieces are made small here (``LARGE``/``PIECE`` patched) so that every column-0 line of a
small text is tried as a piece boundary, the tricky ones included.
"""

from __future__ import annotations

import ast
import gc
import random
import tracemalloc

import pytest

from seedlint.config import Settings
from seedlint.engine import parse
from seedlint.engine.check import check_text, findings_of
from tests.support import plain_dump

SNIPPETS = [
    "x = 1\n",
    "def f(a,\nb):\n    return a\n",  # a column-0 line inside brackets
    's = """\nfoo = 1\nelse:\nexcept\n"""\n',  # column-0 lines inside a string
    "t = '''\n\n)\n'''\n",
    "if x:\n    pass\nelif y:\n    pass\nelse:\n    pass\n",
    "try:\n  pass\nexcept E:\n  pass\nelse:\n  pass\nfinally:\n  pass\n",
    "@dec\n@other(1,\n2)\ndef g(): pass\n",
    "class C:\n    x = 1\n\n# comment\n    \n\n    y = 2\nz = C\n",
    "z = 1 + \\\n2\n",
    "a = 1\r\nb = [\r\n3]\r\n",  # CRLF
    "c = 3\rd = 4\r",  # lone CR line ends
    "match x:\n    case 1:\n        pass\n    case _:\n        pass\n",
    'v = f"{x}" f"{y!r:>{w}}"\n',
    "async def h():\n    await x\n    async with y as z:\n        pass\n",
    "é = 'ü'; ü = é\n",  # columns are UTF-8 byte offsets
    "\x0cq = 1\n",  # a form feed at a line start
    "from __future__ import annotations\n",
    "for i in range(3):\n    pass\nelse:\n    pass\n",
    "while w:\n    break\n",
    "with open(p) as h, \\\n     open(q) as k:\n    pass\n",
    "lam = (lambda: 0)\n(lam)()\n",
    "[\n1,\n2,\n]\n",
    "# only a comment\n\n\n",
    "from torch.utils.data import DataLoader\nloader = DataLoader(range(8), shuffle=True)\n",
]
BROKEN = [
    "x = (\n",  # unclosed bracket at the end
    "def f(:\n    pass\n",
    "s = '''\nnever closed\n",
    "else:\n    pass\n",
    "  indented = 1\n",
    "y = 1 +\n",
    "return\x00\n",
]


def texts(count: int, seed: int) -> list[str]:
    chooser = random.Random(seed)
    return ["".join(chooser.choices(SNIPPETS, k=chooser.randint(1, 30))) for _ in range(count)]


@pytest.fixture
def tiny_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse, "LARGE", 0)  # every text is "large"
    monkeypatch.setattr(parse, "PIECE", 1)  # every column-0 line is a candidate boundary


def outcome(text: str) -> str:
    try:
        tree = parse.parse_module(text, "m.py", hollow=False)
    except (SyntaxError, ValueError) as error:
        return f"{type(error).__name__}: {error} {getattr(error, 'lineno', None)}"
    return plain_dump(tree)


def expected(text: str) -> str:
    try:
        tree = ast.parse(text, "m.py")
    except (SyntaxError, ValueError) as error:
        return f"{type(error).__name__}: {error} {getattr(error, 'lineno', None)}"
    return ast.dump(tree, include_attributes=True)


@pytest.mark.usefixtures("tiny_pieces")
def test_pieces_make_the_same_tree_as_one_parse() -> None:
    for text in texts(300, seed=15):
        assert outcome(text) == expected(text), text


@pytest.mark.usefixtures("tiny_pieces")
def test_pieces_are_really_used(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = ast.parse

    def counting(source: str, *args: object, **kwargs: object) -> ast.Module:
        calls.append(len(source))
        return real(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(parse.ast, "parse", counting)
    text = "".join(f"x_{i} = {i}\n" for i in range(50))
    tree = parse.parse_module(text, "m.py", hollow=False)
    assert len(calls) == 50  # one piece a statement here
    assert plain_dump(tree) == ast.dump(real(text), include_attributes=True)


@pytest.mark.usefixtures("tiny_pieces")
def test_a_broken_text_gets_the_error_of_one_parse() -> None:
    chooser = random.Random(7)
    for text in texts(150, seed=16):
        cut = chooser.randrange(len(text) + 1)
        broken = text[:cut] + chooser.choice(BROKEN) + text[cut:]
        assert outcome(broken) == expected(broken), broken


@pytest.mark.usefixtures("tiny_pieces")
def test_the_check_finds_the_same_in_pieces() -> None:
    text = "from torch.utils.data import DataLoader\n" + "".join(texts(3, seed=3))
    text += "loader2 = DataLoader(range(8), shuffle=True)\n"
    pieces = check_text(text, "m.py", Settings()).findings
    assert pieces, "the DataLoader calls are found"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parse, "LARGE", 10**9)
        whole = check_text(text, "m.py", Settings()).findings
    assert pieces == whole


def test_checking_a_large_module_peaks_near_its_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without pieces, ``ast.parse`` holds CPython's C tree, its tokens and the Python tree at
    once: the check peaked at 1.7 times the Python tree. In pieces, only one piece's C tree
    exists at a time. Sizes are made small (the pieces 50,000 characters) to keep this quick;
    the bench (``bench/scale.py --million``) measures the real sizes."""
    monkeypatch.setattr(parse, "LARGE", 100_000)
    monkeypatch.setattr(parse, "PIECE", 50_000)
    text = "import torch\nfrom torch.utils.data import DataLoader\n"
    text += "loader = DataLoader(range(8), shuffle=True)\n"
    text += "".join(f"value_{i} = {i} * 2 + len('text')\n" for i in range(12_000))
    raw = text.encode()
    enabled = gc.isenabled()
    gc.disable()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tree = ast.parse(text)
        tree_size = tracemalloc.get_traced_memory()[0] - before
        del tree
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        checked = findings_of(raw, "big.py", Settings())
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
        if enabled:
            gc.enable()
    assert [f.code for f in checked.findings] == ["RNG001"]
    assert peak < 1.4 * tree_size, peak / tree_size
