"""SARIF ``artifactLocation.uri`` is a URI reference: every special character percent-encoded."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import pytest

from seedlint import report
from seedlint.core import Finding


def _uris(path: str) -> str:
    finding = Finding("RNG001", "x", "m", path, 1, 0, 1, 1)
    document = json.loads(report.sarif([finding]))
    [result] = document["runs"][0]["results"]
    uri: str = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    return uri


@pytest.mark.parametrize(
    "name", ["a::b.py", "hash#x.py", "q?.py", "a b.py", "new\nline.py", "per%cent.py", "é.py"]
)
def test_relative_uris_are_percent_encoded(name: str) -> None:
    uri = _uris(f"pkg/{name}")
    assert uri.startswith("pkg/")
    assert not set(uri) & set(":#? \n"), uri
    assert urllib.parse.unquote(uri) == f"pkg/{name}"
    assert urllib.parse.urlsplit(uri).path == uri  # no scheme, query or fragment


def test_absolute_uris_outside_the_folder_are_percent_encoded(tmp_path: Path) -> None:
    outside = Path("/") / "outside dir" / "a#b?.py"
    uri = _uris(str(outside))
    assert uri.startswith("file:///") and "#" not in uri and "?" not in uri and " " not in uri
    assert urllib.parse.unquote(urllib.parse.urlsplit(uri).path) == str(outside)
