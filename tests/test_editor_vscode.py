"""The VS Code extension (editors/vscode) as docs/integrations.md builds it: the scripts the
snippet runs exist, the manifest starts `seedlint server` for Python and notebooks, and the
settings the docs name are the manifest's. The extension itself runs in code-server under
headless Chromium in `bash .ci/vscode` (editors/vscode/test/e2e.js; CI runs it after
`.ci/editors` installed its tools), not here: it needs Node, Chromium and code-server."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.test_integrations import DOC, snippet

REPO = Path(__file__).resolve().parent.parent
EXTENSION = REPO / "editors" / "vscode"


def test_the_build_snippet_runs_the_manifests_scripts() -> None:
    text = snippet("sh", "cd editors/vscode")
    manifest = json.loads((EXTENSION / "package.json").read_text())
    scripts = re.findall(r"npm run (\w+)", text)
    assert scripts == ["compile", "package"]
    assert all(name in manifest["scripts"] for name in scripts)
    assert "seedlint.vsix" in manifest["scripts"]["package"]
    assert "code --install-extension seedlint.vsix" in text


def test_the_manifest_starts_the_server_for_python_and_notebooks() -> None:
    manifest = json.loads((EXTENSION / "package.json").read_text())
    assert set(manifest["activationEvents"]) == {
        "onLanguage:python",
        "onNotebook:jupyter-notebook",
    }
    assert manifest["main"] == "./out/extension.js"
    assert "vscode-languageclient" in manifest["dependencies"]
    source = (EXTENSION / "src" / "extension.ts").read_text()
    assert '"server"' in source and 'notebook: "jupyter-notebook"' in source
    settings = manifest["contributes"]["configuration"]["properties"]
    assert set(settings) == {"seedlint.path", "seedlint.debounce"}
    docs = DOC.read_text()
    assert all(f"`{name}`" in docs for name in settings)
