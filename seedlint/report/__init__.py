"""Output formats, one function each: full, concise, json, json-lines, github, sarif."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, Optional

from seedlint import __version__
from seedlint.core import Applicability, Finding
from seedlint.rules import BY_CODE

DOCS_URL = "https://github.com/seedlint/seedlint/blob/main/docs/rules/{code}.md"


def rule_url(code: str) -> str:
    return DOCS_URL.format(code=code)


def _location(finding: Finding) -> str:
    if finding.cell is not None:
        return f"{finding.path}:cell {finding.cell}:{finding.row}:{finding.col + 1}"
    return f"{finding.path}:{finding.row}:{finding.col + 1}"


def _marker(finding: Finding) -> str:
    """``[*]`` for a fix that ``--fix`` applies (unsafe ones only with ``--unsafe-fixes``)."""
    return "[*] " if finding.fix is not None and finding.fixable else ""


def concise(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    lines = [f"{_location(f)}: {f.code} {_marker(f)}{f.message}" for f in findings]
    return "\n".join(lines) + ("\n" if lines else "")


def full(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    sources = sources or {}
    out: list[str] = []
    for finding in findings:
        out.append(f"{finding.code} {_marker(finding)}{finding.message}")
        out.append(f" --> {_location(finding)}")
        lines = sources.get(finding.path)
        if lines and 1 <= finding.row <= len(lines):
            text = lines[finding.row - 1].expandtabs(4)
            gutter = str(finding.row)
            pad = " " * len(gutter)
            width = finding.end_col - finding.col if finding.end_row == finding.row else len(text)
            width = max(1, min(width, len(text) - finding.col if len(text) > finding.col else 1))
            out.append(f"{pad} |")
            out.append(f"{gutter} | {text}")
            out.append(f"{pad} | {' ' * finding.col}{'^' * width}")
        if finding.fix is not None:
            out.append(f"  help: {finding.fix.message}")
            if finding.fix.applicability is Applicability.UNSAFE:
                out.append("  note: This is an unsafe fix and may change runtime behavior")
        out.append("")
    return "\n".join(out) + "\n" if out else ""


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
        "url": rule_url(finding.code),
    }


def to_json(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    return json.dumps([_json_item(f) for f in findings], indent=2) + "\n"


def json_lines(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    return "".join(json.dumps(_json_item(f)) + "\n" for f in findings)


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(findings: Sequence[Finding], sources: Optional[dict[str, list[str]]] = None) -> str:
    lines = []
    for f in findings:
        props = ",".join(
            [
                f"title={_escape_property(f'seedlint ({f.code})')}",
                f"file={_escape_property(f.path)}",
                f"line={f.row}",
                f"col={f.col + 1}",
                f"endLine={f.end_row}",
                f"endColumn={f.end_col + 1}",
            ]
        )
        message = _escape_data(f"{_location(f)}: {f.code} {f.message}")
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
    for f in findings:
        results.append(
            {
                "ruleId": f.code,
                "ruleIndex": index[f.code],
                "level": "error",
                "message": {"text": f.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": _uri(f.path)},
                            "region": {
                                "startLine": f.row,
                                "startColumn": f.col + 1,
                                "endLine": f.end_row,
                                "endColumn": max(f.end_col + 1, 1),
                            },
                        }
                    }
                ],
            }
        )
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


Formatter = Callable[[Sequence[Finding], Optional[dict[str, list[str]]]], str]
FORMATS: dict[str, Formatter] = {
    "full": full,
    "concise": concise,
    "json": to_json,
    "json-lines": json_lines,
    "github": github,
    "sarif": sarif,
}
HUMAN = ("full", "concise")


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


def statistics(findings: Sequence[Finding]) -> str:
    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if f.fix is not None and f.fixable}
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        mark = "[*]" if code in fixable else "[ ]"
        lines.append(f"{count:>5}\t{code}\t{mark} {BY_CODE[code].name}")
    return "\n".join(lines) + ("\n" if lines else "")
