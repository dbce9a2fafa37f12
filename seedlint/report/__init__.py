"""Output formats, one function each: full, concise, grouped, json, json-lines, junit, github,
gitlab, pylint, rdjson, azure, sarif (ruff's list, in ruff's shapes).

A notebook finding counts its rows in its cell (``cell``). The formats a CI service shows on the
file itself (``github``, ``gitlab``, ``sarif``) point at the line of the ``.ipynb`` that holds
that cell line (nbformat writes one source line per JSON line), and say the cell in the message
(``github``), or in the result's ``properties`` (``sarif``).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Optional

from seedlint import __version__
from seedlint.core import Applicability, Edit, Finding
from seedlint.core.printable import printable, printable_path
from seedlint.documents.notebook import cell_lines_in_file
from seedlint.rules import BY_CODE

DOCS_URL = "https://github.com/seedlint/seedlint/blob/main/docs/rules/{code}.md"


def rule_url(code: str) -> str:
    return DOCS_URL.format(code=code)


def _printable_keeping_tabs(line: str) -> str:
    """A preview line made harmless, its tabs kept (an indentation, harmless in a terminal)."""
    return "\t".join(printable(part) for part in line.split("\t"))


def _location(finding: Finding) -> str:
    if finding.cell is not None:
        return f"{finding.path}:cell {finding.cell}:{finding.row}:{finding.col + 1}"
    return f"{finding.path}:{finding.row}:{finding.col + 1}"


def _shown_location(finding: Finding) -> str:
    """:func:`_location` for a terminal: the path made harmless (see ``core/printable.py``)."""
    return _location(replace(finding, path=printable_path(finding.path)))


def _marker(finding: Finding) -> str:
    """``[*]`` for a fix that ``--fix`` applies (unsafe ones only with ``--unsafe-fixes``)."""
    return "[*] " if finding.fix is not None and finding.fixable else ""


def concise(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    lines = [f"{_shown_location(f)}: {f.code} {_marker(f)}{printable(f.message)}" for f in findings]
    return "\n".join(lines) + ("\n" if lines else "")


def full(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    sources = sources or {}
    out: list[str] = []
    for finding in findings:
        out.append(f"{finding.code} {_marker(finding)}{printable(finding.message)}")
        out.append(f" --> {_shown_location(finding)}")
        lines = sources.get(source_key(finding.path, finding.cell))
        if lines and 1 <= finding.row <= len(lines):
            text = lines[finding.row - 1].expandtabs(4)
            gutter = str(finding.row)
            pad = " " * len(gutter)
            width = finding.end_col - finding.col if finding.end_row == finding.row else len(text)
            width = max(1, min(width, len(text) - finding.col if len(text) > finding.col else 1))
            out.append(f"{pad} |")
            shown = printable(text)
            if shown != text:  # the carets under the escaped text
                lead = len(printable(text[: finding.col]))
                width = len(printable(text[finding.col : finding.col + width])) or 1
            else:
                lead = finding.col
            out.append(f"{gutter} | {shown}")
            out.append(f"{pad} | {' ' * lead}{'^' * width}")
        if finding.fix is not None:
            out.append(f"  help: {printable(finding.fix.message)}")
            if finding.fixable and finding.fix.edits and lines:
                preview = fix_preview(lines, finding.fix.edits, finding.cell)
                out.extend(_printable_keeping_tabs(line) for line in preview)
            if finding.fix.applicability is Applicability.UNSAFE:
                out.append("  note: This is an unsafe fix and may change runtime behavior")
        out.append("")
    return "\n".join(out) + "\n" if out else ""


def source_key(path: str, cell: Optional[int] = None) -> str:
    """The key of a file's lines in ``sources`` (a notebook's: one key per cell, its rows
    counted in the cell, as its findings count them)."""
    return path if cell is None else f"{path}:cell {cell}"


PREVIEW_WINDOW = 3  # lines around the edits that the preview's diff is computed on (ruff's)
PREVIEW_CONTEXT = 1  # unchanged lines shown around each change (ruff's)


def fix_preview(
    lines: Sequence[str], edits: Sequence[Edit], cell: Optional[int] = None
) -> list[str]:
    """The fix as ruff's full output shows it: the lines around the edits after a gutter,
    each kept line with its new number and ``|``, each removed one with ``-``, each added one
    with its number and ``+`` (a notebook's ``lines`` and ``edits`` are its ``cell``'s, which
    a ``::: cell N`` line names). Empty when the edits do not fit the lines."""
    first = min(edit.row for edit in edits)
    last = max(edit.end_row for edit in edits)
    if first < 1 or last > len(lines) + 1:  # len + 1: an insertion after the last line break
        return []
    start = max(first - PREVIEW_WINDOW, 1)
    end = min(last + PREVIEW_WINDOW, len(lines))
    old = [line.rstrip("\r\n") for line in lines[start - 1 : end]]
    text = "\n".join(old) + "\n"
    offsets = [0]
    for line in old:
        offsets.append(offsets[-1] + len(line) + 1)
    pieces, cursor = [], 0
    for edit in sorted(edits, key=lambda e: (e.row, e.col, e.end_row, e.end_col)):
        begin = offsets[edit.row - start] + edit.col
        stop = offsets[edit.end_row - start] + edit.end_col
        if begin < cursor or stop < begin:
            return []  # overlapping edits: no preview rather than a wrong one
        pieces += [text[cursor:begin], edit.content]
        cursor = stop
    new = ("".join(pieces) + text[cursor:]).split("\n")
    if new and new[-1] == "":
        new.pop()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    groups = list(matcher.get_grouped_opcodes(PREVIEW_CONTEXT))
    if not groups:
        return []
    width = len(str(groups[-1][-1][4] + start - 1))
    blank = " " * width
    out = [f"{':::':>{width + 3}} cell {cell}"] if cell is not None else []
    out.append(f"{blank} |")
    for number, group in enumerate(groups):
        if number:
            out.append("-" * 80)
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [_preview_line(start + j, "|", new[j], width) for j in range(j1, j2)]
                continue
            out += [f"{blank} - {old[i]}".rstrip() for i in range(i1, i2)]
            out += [_preview_line(start + j, "+", new[j], width) for j in range(j1, j2)]
    out.append(f"{blank} |")
    return out


def _preview_line(number: int, sign: str, text: str, width: int) -> str:
    return f"{number:<{width}} {sign} {text}".rstrip()


def _json_item(finding: Finding) -> dict[str, Any]:
    fix: Optional[dict[str, Any]] = None
    if finding.fix is not None:
        fix = {
            "applicability": finding.fix.applicability.value,
            "message": finding.fix.message,
            "edits": [
                {
                    "content": edit.content,
                    "location": {"row": edit.row, "column": edit.col + 1},
                    "end_location": {"row": edit.end_row, "column": edit.end_col + 1},
                }
                for edit in finding.fix.edits
            ],
        }
    return {
        "cell": finding.cell,
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "filename": os.path.abspath(finding.path) if finding.path != "-" else "-",
        "location": {"row": finding.row, "column": finding.col + 1},
        "end_location": {"row": finding.end_row, "column": finding.end_col + 1},
        "fix": fix,
        "noqa_row": finding.noqa_rows[0] if finding.noqa_rows else finding.row,
        "origin": _json_origin(finding),
        "url": rule_url(finding.code),
    }


def _json_origin(finding: Finding) -> Optional[dict[str, Any]]:
    """Where the finding's hazardous value is set, when not at the call (structured)."""
    origin = finding.origin
    if origin is None:
        return None
    path = origin.path or finding.path
    return {
        "name": origin.name,
        "value": origin.value,
        "source": origin.source,
        "filename": os.path.abspath(path) if path != "-" else "-",
        "row": origin.row or None,
    }


def to_json(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    return json.dumps([_json_item(f) for f in findings], indent=2) + "\n"


def json_lines(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    return "".join(json.dumps(_json_item(f)) + "\n" for f in findings)


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


# -- where a finding is in the file as a CI service shows it ---------------------------------


def _cell_lines(path: str) -> dict[int, tuple[bool, list[tuple[int, int]]]]:
    """For each cell of the notebook at ``path``: where its lines are in the ``.ipynb``
    (:func:`~seedlint.documents.notebook.cell_lines_in_file`). Empty when the file cannot be
    read."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            return cell_lines_in_file(handle.read())
    except (OSError, ValueError, IndexError):
        return {}


class _FileLines:
    """(line, column, end line, end column), 1-based, of a finding in its file: a notebook
    finding's cell row is mapped to the line of the ``.ipynb`` that holds it (the column counts
    from the start of that line's JSON string, so escapes may shift it)."""

    def __init__(self) -> None:
        self._notebooks: dict[str, dict[int, tuple[bool, list[tuple[int, int]]]]] = {}

    def region(self, f: Finding) -> tuple[int, int, int, int]:
        if f.cell is None:
            return f.row, f.col + 1, f.end_row, max(f.end_col + 1, 1)
        if f.path not in self._notebooks:
            self._notebooks[f.path] = _cell_lines(f.path)
        found = self._notebooks[f.path].get(f.cell)
        if not found:
            return 1, 1, 1, 1  # the file, when its cells cannot be found again
        is_list, positions = found
        if not is_list:  # one string: the whole cell is on this line; its first row is exact
            line, col = positions[0]
            if f.row == 1 and f.end_row == 1:
                return line, col + 2 + f.col, line, col + 2 + f.end_col
            return line, col + 1, line, col + 2
        line, col = positions[min(f.row, len(positions)) - 1]
        end_line, end_col = positions[min(f.end_row, len(positions)) - 1]
        return line, col + 2 + f.col, end_line, end_col + 2 + f.end_col


def _relative_to(path: str, base: Optional[str]) -> str:
    """``path`` relative to the folder ``base`` (a CI service's checkout) when it lies inside
    it, else relative to the working directory, with forward slashes."""
    absolute = Path(os.path.abspath(path))
    for folder in [base] if base else []:
        for candidate, root in (
            (absolute, Path(os.path.abspath(folder))),
            (Path(os.path.realpath(absolute)), Path(os.path.realpath(folder))),
        ):
            try:
                return candidate.relative_to(root).as_posix()
            except ValueError:
                continue
    return Path(os.path.normpath(path)).as_posix() if path != "-" else path


def github(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    """Workflow commands. Paths are relative to ``GITHUB_WORKSPACE`` (the repository's root,
    where GitHub looks for them) when set, so a step with ``working-directory:`` still points
    at the right file."""
    lines = []
    where = _FileLines()
    workspace = os.environ.get("GITHUB_WORKSPACE")
    for f in findings:
        path = _relative_to(f.path, workspace) if workspace else f.path
        line, col, end_line, end_col = where.region(f)
        props = ",".join(
            [
                f"title={_escape_property(f'seedlint ({f.code})')}",
                f"file={_escape_property(path)}",
                f"line={line}",
                f"col={col}",
                f"endLine={end_line}",
                f"endColumn={end_col}",
            ]
        )
        shown = replace(f, path=path) if path != f.path else f
        message = _escape_data(f"{_location(shown)}: {f.code} {f.message}")
        lines.append(f"::error {props}::{message}")
    return "\n".join(lines) + ("\n" if lines else "")


def sarif(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    rules = []
    for code, rule in sorted(BY_CODE.items()):
        doc = rule.documentation()
        rules.append(
            {
                "id": code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": _first_paragraph(rule.doc)[:1000]},
                "help": {"text": rule.summary, "markdown": doc},
                "helpUri": rule_url(code),
                "defaultConfiguration": {"level": "error"},
                "properties": {"tags": ["reproducibility", "pytorch"]},
            }
        )
    index = {code: i for i, code in enumerate(sorted(BY_CODE))}
    results = []
    where = _FileLines()
    for f in findings:
        line, col, end_line, end_col = where.region(f)
        result: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": "error",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.path)},
                        "region": {
                            "startLine": line,
                            "startColumn": col,
                            "endLine": end_line,
                            "endColumn": end_col,
                        },
                    }
                }
            ],
        }
        if f.cell is not None:
            # The region is the .ipynb's line; the cell and the position in it ride along.
            result["locations"][0]["logicalLocations"] = [
                {"name": f"cell {f.cell}", "kind": "module"}
            ]
            result["properties"] = {
                "cell": f.cell,
                "cellRegion": {
                    "startLine": f.row,
                    "startColumn": f.col + 1,
                    "endLine": f.end_row,
                    "endColumn": max(f.end_col + 1, 1),
                },
            }
        results.append(result)
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "seedlint",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": "https://github.com/seedlint/seedlint",
                        "rules": rules,
                    }
                },
                "results": results,
                "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def _uri(path: str) -> str:
    absolute = Path(path).absolute()
    try:
        relative = absolute.relative_to(Path.cwd()).as_posix()
    except ValueError:
        pass
    else:  # a URI reference: every character but unreserved ones and "/" percent-encoded
        return _percent_encoded(relative)
    return "file://" + _percent_encoded(absolute.as_posix())


_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")


def _percent_encoded(path: str) -> str:
    """RFC 3986: every byte of the path but unreserved characters and ``/`` as ``%XX``."""
    return "".join(chr(b) if b in _UNRESERVED else f"%{b:02X}" for b in os.fsencode(path))


def _first_paragraph(doc: str) -> str:
    """The doc's first paragraph of text (a heading line opening a paragraph is left out)."""
    for paragraph in doc.strip().split("\n\n"):
        lines = paragraph.split("\n")
        while lines and lines[0].startswith("#"):
            lines.pop(0)
        if lines:
            return " ".join(" ".join(lines).split())
    return ""


def gitlab(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    """A GitLab Code Quality report. Paths are relative to ``CI_PROJECT_DIR`` when set (else to
    the working directory). The fingerprint hashes the rule, the path and the message (not the
    line, so that a finding keeps it when code above it moves), and the occurrence among
    identical ones."""
    items = []
    where = _FileLines()
    base = os.environ.get("CI_PROJECT_DIR") or os.getcwd()
    seen: Counter[tuple[str, str, str]] = Counter()
    for f in findings:
        path = _relative_to(f.path, base)
        line, _, end_line, _ = where.region(f)
        key = (f.code, path, f.message)
        seen[key] += 1
        blob = "\0".join((*key, str(seen[key]))).encode("utf-8", "surrogateescape")
        description = f.message if f.cell is None else f"cell {f.cell}:{f.row}: {f.message}"
        items.append(
            {
                "description": description,
                "check_name": f.code,
                "fingerprint": hashlib.sha256(blob).hexdigest(),
                "severity": "major",
                "location": {"path": path, "lines": {"begin": line, "end": end_line}},
            }
        )
    return json.dumps(items, indent=2) + "\n"


def grouped(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    """ruff's ``grouped``: each file's name, then its findings, ``row:col CODE [*] message``
    (rows right-aligned, columns left-aligned in the file's widths), a blank line after each
    file."""
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    out = []
    for path in sorted(by_path):
        found = by_path[path]
        rows = max(len(str(f.row)) for f in found)
        cols = max(len(str(f.col + 1)) for f in found)
        out.append(f"{path}:")
        for f in found:
            cell = f"cell {f.cell}:" if f.cell is not None else ""
            where = f"{' ' * (rows - len(str(f.row)))}{cell}{f.row}:{f.col + 1}"
            where += " " * (cols - len(str(f.col + 1)))
            out.append(f"  {where} {f.code} {_marker(f)}{f.message}")
        out.append("")
    return "\n".join(out) + "\n" if out else ""


def pylint(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    """ruff's ``pylint``: ``path:row: [CODE] message``."""
    lines = []
    for f in findings:
        row = f"cell {f.cell}:{f.row}" if f.cell is not None else str(f.row)
        lines.append(f"{f.path}:{row}: [{f.code}] {f.message}")
    return "\n".join(lines) + ("\n" if lines else "")


def _escape_azure(value: str) -> str:
    """Azure Pipelines' logging command escapes (properties: also ``;`` and ``]``)."""
    return value.replace("%", "%AZP25").replace("\r", "%0D").replace("\n", "%0A")


def azure(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    """ruff's ``azure``: one ``##vso[task.logissue ...]`` logging command per finding (a
    notebook's at the ``.ipynb`` line that holds the cell's line, as ``github``)."""
    lines = []
    where = _FileLines()
    for f in findings:
        line, col, _, _ = where.region(f)
        path = _escape_azure(f.path).replace(";", "%3B").replace("]", "%5D")
        message = f.message if f.cell is None else f"cell {f.cell}:{f.row}: {f.message}"
        lines.append(
            f"##vso[task.logissue type=error;sourcepath={path};linenumber={line};"
            f"columnnumber={col};code={f.code};]{_escape_azure(message)}"
        )
    return "\n".join(lines) + ("\n" if lines else "")


def _attribute(value: str) -> str:
    import xml.sax.saxutils  # only the junit report: it imports urllib, http and email (~20 ms)

    return xml.sax.saxutils.quoteattr(_xml_text(value))


def _xml_text(value: str) -> str:
    """Text XML 1.0 can hold: other control characters (and unpaired surrogates, from file
    names that are not UTF-8) replaced."""
    return "".join(
        "\ufffd" if (ord(c) < 0x20 and c not in "\t\n\r") or 0xD800 <= ord(c) <= 0xDFFF else c
        for c in value
    )


def junit(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    """ruff's ``junit``: a test suite per file, a failing test case ``org.seedlint.CODE`` per
    finding (``line``, ``column``; the fix's title after the message); one passing case when
    there is no finding."""
    import xml.sax.saxutils

    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    count = len(findings)
    head = f'<testsuites name="seedlint" tests="{max(count, 1)}" failures="{count}" errors="0">'
    out.append(head)
    if not findings:
        out.append(
            '    <testsuite name="seedlint" tests="1" disabled="0" errors="0" failures="0" '
            'package="org.seedlint">'
        )
        out.append('        <testcase name="No errors found" classname="seedlint"/>')
        out.append("    </testsuite>")
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    for path in sorted(by_path):
        found = by_path[path]
        out.append(
            f'    <testsuite name={_attribute(path)} tests="{len(found)}" disabled="0" '
            f'errors="0" failures="{len(found)}" package="org.seedlint">'
        )
        classname = path[: -len(Path(path).suffix)] if Path(path).suffix else path
        for f in found:
            cell = f"cell {f.cell}, " if f.cell is not None else ""
            body = f"{cell}line {f.row}, col {f.col + 1}, {f.message}"
            if f.fix is not None:
                body += f"\n\n{f.fix.message}"
            out.append(
                f'        <testcase name="org.seedlint.{f.code}" classname={_attribute(classname)}'
                f' line="{f.row}" column="{f.col + 1}">'
            )
            out.append(
                f"            <failure message={_attribute(f.message)}>"
                f"{xml.sax.saxutils.escape(_xml_text(body))}</failure>"
            )
            out.append("        </testcase>")
        out.append("    </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


def _rd_range(row: int, col: int, end_row: int, end_col: int) -> dict[str, Any]:
    return {
        "end": {"column": end_col, "line": end_row},
        "start": {"column": col, "line": row},
    }


def rdjson(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    """ruff's ``rdjson`` (reviewdog's diagnostic format): each finding's code and its doc
    page, its range (a notebook's: the ``.ipynb`` lines, as ``github``), its message, and its
    fix's edits as suggestions."""
    items = []
    where = _FileLines()
    for f in findings:
        line, col, end_line, end_col = where.region(f)
        item: dict[str, Any] = {
            "code": {"url": rule_url(f.code), "value": f.code},
            "location": {"path": f.path, "range": _rd_range(line, col, end_line, end_col)},
            "message": f.message if f.cell is None else f"cell {f.cell}:{f.row}: {f.message}",
        }
        if f.fix is not None and f.fix.edits and f.cell is None:
            item["suggestions"] = [
                {
                    "range": _rd_range(e.row, e.col + 1, e.end_row, e.end_col + 1),
                    "text": e.content,
                }
                for e in f.fix.edits
            ]
        items.append(item)
    document = {
        "diagnostics": items,
        "severity": "WARNING",
        "source": {"name": "seedlint", "url": "https://github.com/seedlint/seedlint"},
    }
    return json.dumps(document, indent=2) + "\n"


Formatter = Callable[[Sequence[Finding], Optional[dict[str, list[str]]]], str]
FORMATS: dict[str, Formatter] = {
    "full": full,
    "concise": concise,
    "json": to_json,
    "json-lines": json_lines,
    "github": github,
    "gitlab": gitlab,
    "sarif": sarif,
    "grouped": grouped,
    "junit": junit,
    "pylint": pylint,
    "rdjson": rdjson,
    "azure": azure,
}
HUMAN = ("full", "concise", "grouped")
# The formats that show a fix's edits (computed for them with libcst).
WITH_EDITS = ("json", "json-lines", "rdjson", "full")


def fix_summary(fixed: int, remaining: Sequence[Finding], applied: bool) -> str:
    """``--fix-only`` (``applied``) and ``--diff``'s summary, in ruff's words: what was (or
    would be) fixed, and the unsafe fixes left for ``--unsafe-fixes``."""
    unapplied = sum(1 for f in remaining if f.fix is not None and not f.fixable)
    s = "" if fixed == 1 else "s"
    es = "" if unapplied == 1 else "es"
    if unapplied:
        if fixed:
            verb = "Fixed" if applied else "Would fix"
            more = f"{unapplied} additional fix{es} available with `--unsafe-fixes`"
            return f"{verb} {fixed} finding{s} ({more}).\n"
        verb = "No findings fixed" if applied else "No findings would be fixed"
        return f"{verb} ({unapplied} fix{es} available with `--unsafe-fixes`).\n"
    if fixed:
        return f"{'Fixed' if applied else 'Would fix'} {fixed} finding{s}.\n"
    return ""


def summary(findings: Sequence[Finding], fixed: int = 0) -> str:
    count = len(findings)
    lines: list[str] = []
    if count == 0 and fixed == 0:
        return "All checks passed!\n"
    if fixed:
        noun = "finding" if count + fixed == 1 else "findings"
        lines.append(f"Found {count + fixed} {noun} ({fixed} fixed, {count} remaining).")
    else:
        lines.append(f"Found {count} finding{'s' if count != 1 else ''}.")
    safe = sum(1 for f in findings if f.fix is not None and f.fixable)
    unsafe = sum(1 for f in findings if f.fix is not None and not f.fixable)
    hidden = f"{unsafe} hidden fix{'es' if unsafe != 1 else ''} can be enabled with the "
    hidden += "`--unsafe-fixes` option"
    if safe:
        text = f"[*] {safe} fixable with the `--fix` option"
        lines.append(text + (f" ({hidden})." if unsafe else "."))
    elif unsafe:
        lines.append(f"No fixes available ({hidden}).")
    return "\n".join(lines) + "\n"


def _counts(findings: Sequence[Finding]) -> list[tuple[str, int, bool]]:
    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if f.fix is not None and f.fixable}
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [(code, count, code in fixable) for code, count in ordered]


def statistics(findings: Sequence[Finding]) -> str:
    """ruff's ``--statistics`` table: count, code, fixable mark, name; one line per rule."""
    lines = []
    any_fixable = False
    for code, count, fixable in _counts(findings):
        any_fixable |= fixable
        lines.append(f"{count:>5}\t{code}\t{'[*]' if fixable else '[ ]'} {BY_CODE[code].name}")
    if any_fixable:
        lines.append("[*] fixable with `seedlint check --fix`")
    return "\n".join(lines) + ("\n" if lines else "")


def statistics_json(findings: Sequence[Finding]) -> str:
    """``--statistics`` with json output (ruff's shape): a list of code, name, count, fixable."""
    items = [
        {"code": code, "name": BY_CODE[code].name, "count": count, "fixable": fixable}
        for code, count, fixable in _counts(findings)
    ]
    return json.dumps(items, indent=2) + "\n"
