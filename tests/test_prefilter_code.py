"""The loader rules' second pre-filter stage: a loader class named only in comments and string
literals (docstrings above all) is never called, so the file is not parsed for those rules.
The scan that tells code from comments and strings must never take code for either: it is
compared with Python's own tokenizer on every fixture and on generated texts."""

from __future__ import annotations

import ast
import io
import sys
import tokenize
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seedlint.config import Settings
from seedlint.engine.check import check_text
from seedlint.engine.selection import selection
from seedlint.prefilter.scan import code_only, in_code
from tests.fixtures_support import FIXTURES

WORD = b"DataLoader"


def _is_python(raw: bytes) -> bool:
    """Whether the text parses (the tokenizer module reads broken text too, leniently: a
    file that does not parse has no finding, only RNG000 when a rule's words send it to the
    parser, as for any file no rule can fire on)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(raw)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _named_in_code(raw: bytes, word: bytes) -> bool | None:
    """Whether a name token holding ``word`` occurs (Python's tokenizer); None when the text
    is not Python."""
    if not _is_python(raw):
        return None
    try:
        for token in tokenize.tokenize(io.BytesIO(raw).readline):
            if token.type == tokenize.NAME and word.decode() in token.string:
                return True
    except (tokenize.TokenError, SyntaxError, IndentationError, UnicodeDecodeError):
        return None
    return False


def _no_nested_quotes(raw: bytes) -> bool:
    return sys.version_info < (3, 12) or (b'f"' not in raw and b"f'" not in raw)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"""Wrap a DataLoader."""\n', False),
        ("# a DataLoader here\nx = 1\n", False),
        ("x = 'DataLoader'  # DataLoader\n", False),
        ("def f():\n    '''Use a\n    DataLoader.'''\n", False),
        ('s = "a \\" DataLoader"\n', False),
        ("s = r'\\' DataLoader'\n", False),
        ('s = """ \'\'\' """; DataLoader()\n', True),
        ("s = '#'; DataLoader()\n", True),
        ('s = "\\\\"; DataLoader()\n', True),
        ('s = """a\n""" + "b"\nloader = DataLoader(x)\n', True),
        ("from torch.utils.data import DataLoader\n", True),
        ("x = 'unclosed\nDataLoader(x)\n", True),
        ('"""DataLoader"""\nclass AudioDataLoader(Base): pass\n', True),
        ("x = 1\n", False),
    ],
)
def test_code_and_the_rest(text: str, expected: bool) -> None:
    raw = text.encode()
    assert in_code(raw, (WORD,)) is expected
    if _named_in_code(raw, WORD) is not None:
        assert _named_in_code(raw, WORD) is expected


def test_the_scan_agrees_with_the_tokenizer_on_every_fixture() -> None:
    compared = 0
    for path in sorted(FIXTURES.rglob("*.py")):
        raw = path.read_bytes()
        named = _named_in_code(raw, WORD)
        if named is None or WORD not in raw or not _no_nested_quotes(raw):
            continue
        assert in_code(raw, (WORD,)) is named, path
        compared += 1
    assert compared > 30


_PIECES = st.sampled_from(
    [
        "DataLoader",
        "x = DataLoader(ds)",
        "# DataLoader's note",
        "'DataLoader'",
        '"DataLoader"',
        '"""DataLoader',
        "'''",
        '"""',
        "'",
        '"',
        "\\",
        "\\'",
        '\\"',
        "#",
        "r'\\'",
        "b'",
        "x = 1",
        " ",
    ]
)
_LINES = st.lists(st.lists(_PIECES, max_size=5).map("".join), max_size=8).map("\n".join)


@settings(max_examples=500, deadline=None)
@given(_LINES)
def test_the_scan_never_takes_code_for_a_string(text: str) -> None:
    """Wherever the tokenizer reads the text, a loader name it finds in code is in code for
    the scan too (the scan may say yes for more: never less)."""
    raw = text.encode()
    named = _named_in_code(raw, WORD)
    if named is None:
        return  # not Python: the file would not parse (RNG000), whatever the scan says
    if named:
        assert in_code(raw, (WORD,))


def test_a_docstring_loader_is_not_parsed_but_a_called_one_is() -> None:
    chosen = selection(Settings())
    doc = b'"""Iterate a DataLoader."""\n\n\ndef report(batches):\n    return list(batches)\n'
    called = b"from torch.utils.data import DataLoader\n\nDataLoader(range(4), shuffle=True)\n"
    assert not {r.code for r in chosen.firing(doc, "a.py")} & {"RNG001", "RNG002", "RNG005"}
    assert {"RNG001", "RNG002"} <= {r.code for r in chosen.firing(called, "b.py")}
    found = check_text(called.decode(), "b.py", Settings()).findings
    assert [f.code for f in found] == ["RNG001"]


def _name_spans(raw: bytes) -> list[tuple[int, int]] | None:
    """The byte spans of the text's name and operator tokens (None: it is not Python)."""
    if not _is_python(raw):
        return None
    starts = [0]
    for line in raw.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    spans = []
    try:
        for token in tokenize.tokenize(io.BytesIO(raw).readline):
            if token.type in (tokenize.NAME, tokenize.OP):
                (row, col), (end_row, end_col) = token.start, token.end
                spans.append((starts[row - 1] + col, starts[end_row - 1] + end_col))
    except (tokenize.TokenError, SyntaxError, IndentationError, UnicodeDecodeError):
        return None
    return spans


@settings(max_examples=500, deadline=None)
@given(_LINES)
def test_blanking_keeps_every_name_and_operator(text: str) -> None:
    """``code_only`` blanks comments and strings only: every name and operator the tokenizer
    reads is where it was, and so is every line break."""
    raw = text.encode()
    spans = _name_spans(raw)
    if spans is None or not _no_nested_quotes(raw):
        return
    blanked = code_only(raw)
    assert len(blanked) == len(raw)
    assert [i for i, c in enumerate(blanked) if c == 10] == [
        i for i, c in enumerate(raw) if c == 10
    ]
    for start, end in spans:
        assert blanked[start:end] == raw[start:end]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('import random\n"""random.seed(0) is called by the caller."""\n', "RNG004"),
        ("import random\n# random.seed(0)\n", "RNG004"),
        ('import torch\nDOC = "with torch.cuda.graph(g): torch.manual_seed(0)"\n', "RNG003"),
    ],
)
def test_a_call_in_a_string_or_comment_is_not_parsed_for(text: str, code: str) -> None:
    chosen = selection(Settings())
    raw = text.encode()
    assert code not in {r.code for r in chosen.firing(raw, "a.py")}
    uncommented = raw.replace(b"# ", b"").replace(b'"""', b"").replace(b'DOC = "', b"")
    uncommented = uncommented.replace(b')"', b")")
    assert code in {r.code for r in chosen.firing(uncommented, "a.py")}, uncommented


def test_text_the_scan_cannot_read_as_python_counts_as_code() -> None:
    """Bytes that are not UTF-8, or hold a NUL, are checked (and reported: RNG000) whole."""
    for raw in (b'"\xff" + "DataLoader"', b'x = "\x00 DataLoader"', b"\x89PNG'#DataLoader"):
        assert in_code(raw, (WORD,))
        assert code_only(raw) == raw
    assert not in_code(b'"caf\xc3\xa9 DataLoader"', (WORD,))  # UTF-8 text is read
