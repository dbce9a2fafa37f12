"""The Emacs (eglot) snippet of docs/integrations.md, run in a batch Emacs when one with eglot
is installed (Debian: ``apt-get install emacs-nox elpa-eglot``; Emacs 29+ has eglot built in):
diagnostics, the quick fixes and fix-all offered, the preferred fix applied, the diagnostics
cleared after it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.support import UNSEEDED_SCRIPT, editor, fixed_by_cli, run_editor
from tests.test_integrations import snippet

pytest.importorskip("pygls")

REPO = Path(__file__).resolve().parent.parent

DRIVER = r"""
(require 'package)
(package-initialize)
(require 'cl-lib)
(unless (require 'eglot nil t)
  (princ "NO-EGLOT\n")
  (kill-emacs 0))
(defun seedlint-test-wait (pred)
  (let ((deadline (+ (float-time) 60)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (flymake-start nil t)
      ;; What eglot's idle timer does (a batch Emacs is never idle):
      (eglot--signal-textDocument/didChange)
      (accept-process-output nil 0.1))))
(find-file (expand-file-name "train.py"))
(python-mode)
(apply #'eglot--connect (eglot--guess-contact))
(seedlint-test-wait (lambda () (flymake-diagnostics)))
(dolist (d (flymake-diagnostics))
  (princ (format "DIAG %d:%d %s\n" (line-number-at-pos (flymake-diagnostic-beg d))
                 (save-excursion (goto-char (flymake-diagnostic-beg d)) (current-column))
                 (flymake-diagnostic-text d))))
(goto-char (point-min))
(search-forward "DataLoader(range")
(let ((actions (eglot-code-actions (line-beginning-position) (line-end-position) "quickfix"))
      (fix-all (eglot-code-actions (point-min) (point-max) "source.fixAll.seedlint")))
  (dolist (a actions)
    (princ (format "ACTION %s preferred=%s\n" (plist-get a :title) (plist-get a :isPreferred))))
  (dolist (a fix-all) (princ (format "FIXALL %s\n" (plist-get a :title))))
  (eglot--apply-workspace-edit
   (plist-get (cl-find-if (lambda (a) (plist-get a :isPreferred)) actions) :edit)))
(princ (format "BUFFER\n%sEND\n" (buffer-string)))
(seedlint-test-wait (lambda () (null (flymake-diagnostics))))
(princ (format "AFTER %d\n" (length (flymake-diagnostics))))
(kill-emacs 0)
"""


def test_eglot_snippet_in_a_batch_emacs(tmp_path: Path) -> None:
    emacs = editor("emacs", "apt-get install -y emacs-nox elpa-eglot")
    text = snippet("elisp", ";; init.el")
    (tmp_path / "train.py").write_text(UNSEEDED_SCRIPT)
    (tmp_path / "run.el").write_text(text + DRIVER)
    bin_dir = tmp_path / "bin"  # `seedlint` on PATH: this checkout's, with this Python
    bin_dir.mkdir()
    shim = bin_dir / "seedlint"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m seedlint "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    env["PATH"] = os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])
    env["HOME"] = str(tmp_path)  # no user init file
    out = run_editor([emacs, "--batch", "-l", str(tmp_path / "run.el")], env, tmp_path)
    if "NO-EGLOT" in out:
        message = "this Emacs has no eglot (Emacs 29+, or apt-get install -y elpa-eglot)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: CI must run this test", pytrace=False)
        pytest.skip(message)
    line = next(i for i, x in enumerate(UNSEEDED_SCRIPT.splitlines(), 1) if "DataLoader(" in x)
    col = UNSEEDED_SCRIPT.splitlines()[line - 1].index("DataLoader")
    assert f"DIAG {line}:{col} seedlint [RNG001]" in out, out
    assert "(RNG001) preferred=t" in out, out
    assert "ACTION Disable RNG001 for this line preferred=nil" in out, out
    assert "FIXALL Fix all seedlint findings that have a fix" in out, out
    # The preferred fix writes what `seedlint check --fix` writes (its layout included).
    fixed = fixed_by_cli(UNSEEDED_SCRIPT, tmp_path / "train.py")
    assert f"BUFFER\n{fixed}END" in out, out
    assert "AFTER 0" in out, out
