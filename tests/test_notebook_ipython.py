"""IPython syntax where IPython recognises it: our own rules agree with IPython's transformer.

``seedlint.documents.ipython`` answers with ``IPython.core.inputtransformer2`` when IPython is
installed and with its own rules on ``tokenize`` when it is not. The property test generates
cells from pieces of Python and IPython syntax (``%`` in and out of brackets, backslash
continuations, help, shell escapes, auto-calls, cell magics, strings over several lines) and
checks that both answers name the same lines.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from seedlint.documents import ipython
from seedlint.documents.ipython import Syntax, ipython_module, ipython_syntax, own_syntax

HAS_IPYTHON = ipython_module() is not None


def answer(found: Syntax) -> tuple[object, int, set[int]]:
    return found.magic, found.magic_line, found.lines()


@pytest.fixture(params=["ipython", "own"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Run a test with IPython's answer, then with our own rules (IPython hidden)."""
    if request.param == "own":
        monkeypatch.setattr(ipython, "_IPYTHON", False)
    elif not HAS_IPYTHON:
        pytest.skip("IPython is not installed")
    yield request.param


CASES = [
    # A `%` continuation line: inside the call's brackets, after a backslash.
    ("print('epoch %d loss %.3f' \\\n      %(epoch, loss))\n", set()),
    # `%` formatting inside brackets, on a line of its own.
    ("text = (\n    'items: %d'\n    % n\n)\n", set()),
    ("rows = [\n  '%s'\n  %('a',),\n]\n", set()),
    # After a backslash continuation of a Python line: the modulo operator.
    ("total = 10 \\\n% 3\n", set()),
    # A magic continued with a backslash takes its continuation lines.
    ("!pip install \\\n  numpy\nx = 1\n", {0, 1}),
    ("%time f(x) \\\n  + 1\n", {0, 1}),
    # `?` at the end of an expression: help when a name is before it.
    ("model.fc?\n", {0}),
    ("torch.manual_seed??\n", {0}),
    ("x = y?\n", {0}),
    ("?obj\n", {0}),
    ("f(x)?\n", set()),  # IPython leaves it: the cell does not compile
    ("x = 1  # why?\n", set()),
    # Shell and magic assignments, auto-calls.
    ("files = !ls\nt = %timeit -o f()\n", {0, 1}),
    ("/print a b\n,print a b\n;print a b\n", {0, 1, 2}),
    # Inside a string over several lines: data.
    ("s = '''\n%d\n!x\nobj?\n'''\n", set()),
    # In a block: the indented magic is a line of its own.
    ("for i in range(3):\n    %time f(i)\n    !echo hi\n", {1, 2}),
]


@pytest.mark.parametrize(("source", "lines"), CASES)
def test_ipython_syntax_lines(backend: str, source: str, lines: set[int]) -> None:
    found = ipython.syntax(source)
    assert found.magic is None
    assert found.lines() == lines


@pytest.mark.parametrize(
    ("source", "magic", "line"),
    [
        ("%%bash\necho hi\n", "bash", 0),
        ("\n\n%%time\nx = 1\n", "time", 2),  # IPython drops the leading blank lines first
        ("x = 1\n%%bash\n", None, 0),  # not on the first line: a line magic named `%bash`
        ("%%time?\n", None, 0),  # help about the magic
    ],
)
def test_cell_magics_only_on_the_first_line(
    backend: str, source: str, magic: str | None, line: int
) -> None:
    found = ipython.syntax(source)
    assert (found.magic, found.magic_line) == (magic, line)


PIECES = [
    "x = 1",
    "print('a %d' % x)",
    "print('epoch %d' \\",
    "      %(epoch))",
    "y = (1 +",
    "     2)",
    "z = [",
    "  %d,",
    "  '%s' % a,",
    "]",
    "s = '''",
    "%not a magic",
    "'''",
    "w = a \\",
    "%q",
    "% q",
    "if x:",
    "    pass",
    "    %time f()",
    "    !ls",
    "    obj?",
    "obj?",
    "obj.attr??",
    "a[0]?",
    "f(x)?",
    "?obj",
    "??",
    "!ls \\",
    "   more",
    "files = !ls",
    "files = ! ls",
    "t = %time f()",
    "t = %",
    "%%bash",
    "%%time",
    "%%time?",
    "",
    "   ",
    "# comment?",
    "x = 1  # why?",
    "/f a",
    "/ f",
    ",f a b",
    ";f a",
    "x = 'unterminated",
    "%matplotlib inline",
    "!pip install torch",
    "a = b = %who_ls",
    "d = {'k':",
    "  !x}",
    "lambda: %x",
    "x = 1; y?",
    "f'{x!r}?'",
    "x = \\",
    "  %time f()",
    "y != 2",
    "x = '%d' % y",
]


@pytest.mark.skipif(not HAS_IPYTHON, reason="IPython is not installed")
@settings(
    # derandomized so that CI is repeatable, as tests/test_properties.py; more with the variables
    max_examples=int(os.environ.get("SEEDLINT_PROPERTY_EXAMPLES") or 100),
    deadline=None,
    derandomize=not os.environ.get("SEEDLINT_FUZZ"),
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=8),
    st.booleans(),
    st.sampled_from(["", "    "]),
)
def test_our_rules_agree_with_ipython(pieces: list[str], newline: bool, indent: str) -> None:
    source = "\n".join(indent + piece if piece else piece for piece in pieces)
    if newline:
        source += "\n"
    theirs = ipython_syntax(source)
    assume(theirs is not None)  # IPython itself failed on the cell (an inconsistent dedent)
    assert theirs is not None
    assert answer(own_syntax(source)) == answer(theirs), source
    assert answer(ipython.syntax(source)) == answer(theirs), source  # with its quick look
