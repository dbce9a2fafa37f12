"""Text that comes from a file's name or content, made harmless for a terminal or a CI log.

A file name may hold a newline, an ANSI escape or a workflow command (a file named
``x\\n::error file=forged.py::FORGED.py``): printed raw, it would move the cursor, recolour the
terminal, or make GitHub Actions or Azure Pipelines run a command. :func:`printable` shows
every control character (C0, DEL, C1), every line or paragraph separator and every invisible
bidirectional or formatting mark escaped (``\\x1b``, ``\\n``, ``\\u202e``), so that what is
printed stays on its line and looks like what it is, and writes Azure's ``##vso[`` as
``##vso\\x5b``. :func:`printable_path` also keeps a path from starting a line the way a
command does (``::``, ``##``, whitespace): such a path is shown as ``./path``, the same file.

The machine formats (json, json-lines, sarif, gitlab) escape with their own syntax (JSON), and
``github`` with the workflow commands' own escapes; these two helpers are for every other
line seedlint prints, on stdout and on stderr.
"""

from __future__ import annotations

import re

# Control characters, separators and invisible marks (Cc, Zl, Zp and the Cf characters that
# reorder or hide text), and Azure Pipelines' command prefix anywhere in a line.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]|##vso\\[",
    re.IGNORECASE,
)
# The same without the tab, for a line of code shown as it is (a diff's line).
_UNSAFE_BUT_TAB = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]"
    "|##vso\\[",
    re.IGNORECASE,
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_COMMAND_START = re.compile(r"[\s:#]")


def _escaped(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) > 1:  # ##vso[
        return found[:-1] + "\\x5b"
    named = _NAMED.get(found)
    if named is not None:
        return named
    code = ord(found)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character, separator and invisible mark escaped."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escaped, text)


def printable_code(line: str) -> str:
    """A line of code (without its ending) as :func:`printable` shows it, its tabs kept."""
    if _UNSAFE_BUT_TAB.search(line) is None:
        return line
    return _UNSAFE_BUT_TAB.sub(_escaped, line)


def printable_path(path: str) -> str:
    """A path as :func:`printable` shows it, never starting the way a CI command does."""
    shown = printable(path)
    if shown and _COMMAND_START.match(shown):
        return "./" + shown
    return shown
