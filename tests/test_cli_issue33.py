"""Issue 33's command-line points: the real CLI in a subprocess, as ruff users meet it."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from seedlint.core import Applicability
from seedlint.rules import RULES
from tests.support import run_seedlint

SHUFFLED = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "torch.manual_seed(0)\n"
    "loader = DataLoader([1, 2, 3], shuffle=True)\n"
    "print(loader)\n"
)
GRAPH = (
    "import torch\n"
    "\n"
    "g = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g):\n"
    "    torch.manual_seed(0)\n"
    "    y = torch.rand(3)\n"
)


def seedlint(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    result = run_seedlint(*args, cwd=tmp_path)
    return result.returncode, result.stdout, result.stderr


# -- 1. --fix-only and --diff say what they fixed (ruff's words) -----------------------------
def test_fix_only_and_diff_summaries(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    (tmp_path / "g.py").write_text(GRAPH)
    rc, out, err = seedlint(tmp_path, "check", "--no-cache", "--diff", "a.py", "g.py")
    assert rc == 1 and out.startswith("--- a.py\n+++ a.py\n")
    assert err == "Would fix 1 finding (1 additional fix available with `--unsafe-fixes`).\n"
    rc, out, err = seedlint(tmp_path, "check", "--no-cache", "--diff", "g.py")
    assert (rc, out) == (0, "")
    assert err == "No findings would be fixed (1 fix available with `--unsafe-fixes`).\n"
    rc, out, err = seedlint(tmp_path, "check", "--no-cache", "--fix-only", "a.py")
    assert (rc, out, err) == (0, "Fixed 1 finding.\n", "")
    assert "generator=torch.Generator().manual_seed(0)" in (tmp_path / "a.py").read_text()
    rc, out, _ = seedlint(tmp_path, "check", "--no-cache", "--fix-only", "a.py")
    assert (rc, out) == (0, "")  # nothing left to fix: nothing said, as ruff


# -- 3. no Python files; a named file that does not parse -----------------------------------
def test_no_python_files_warns(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.txt").write_text("x\n")
    for folder in ("empty", "docs"):
        rc, out, err = seedlint(tmp_path, "check", "--no-cache", folder)
        assert rc == 0 and out == "All checks passed!\n"
        assert err == "warning: No Python files found under the given path(s)\n"
    (tmp_path / "docs" / "ok.py").write_text("x = 1\n")
    rc, out, err = seedlint(tmp_path, "check", "--no-cache", "docs")
    assert (rc, err) == (0, "")


def test_named_file_that_does_not_parse_is_reported(tmp_path: Path) -> None:
    # None of the rules' words: the pre-filter rules the file out of a walk, not when named.
    (tmp_path / "broken.py").write_text("def train(:\n    pass\n")
    args = ("check", "--no-cache", "--output-format", "concise", "-q")
    rc, out, _ = seedlint(tmp_path, *args, "broken.py")
    assert rc == 1
    assert out == "broken.py:1:11: RNG000 SyntaxError: invalid syntax\n"
    rc, out, _ = seedlint(tmp_path, *args, "--fix", "broken.py")
    assert rc == 1 and "RNG000" in out
    rc, out, _ = seedlint(tmp_path, *args, "--ignore", "RNG000", "broken.py")
    assert (rc, out) == (0, "")


# -- 4. did you mean ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["chek", "."], "unrecognized subcommand `chek` (did you mean `check`?)"),
        (["check", "--fixx", "."], "unrecognized arguments: --fixx (did you mean `--fix`?)"),
        (["--unsafe-fixess", "."], "(did you mean `--unsafe-fixes`?)"),
        (["check", "--output-format", "consice"], "(did you mean `concise`?)"),
        (["check", "--select", "RNG01"], "(did you mean `RNG001`?)"),
        (["rule", "RNG01"], "unknown rule `RNG01` (did you mean `RNG001`?)"),
    ],
)
def test_did_you_mean(tmp_path: Path, args: list[str], hint: str) -> None:
    rc, _, err = seedlint(tmp_path, *args)
    assert rc == 2 and hint in err and len(err.splitlines()) == 1


def test_a_file_named_like_a_subcommand_is_checked(tmp_path: Path) -> None:
    (tmp_path / "chek").write_text("")
    assert "subcommand" not in seedlint(tmp_path, "chek")[2]


# -- 5. the "newer Python" hint only where a newer grammar may read the line ----------------
def test_newer_python_hint_only_for_newer_syntax(tmp_path: Path) -> None:
    (tmp_path / "old.py").write_text("import torch\ndef train(:\n    torch.manual_seed(0)\n")
    args = ("check", "--no-cache", "--output-format", "concise", "-q")
    _, out, _ = seedlint(tmp_path, *args, "old.py")
    assert out == "old.py:2:11: RNG000 SyntaxError: invalid syntax\n"
    from seedlint.rules.rng000_invalid_file import NEWER_SYNTAX

    newer = [(v, p) for v, p in NEWER_SYNTAX if v > sys.version_info[:2]]
    if not newer:
        pytest.skip("no grammar newer than this Python's is known")
    samples = {
        (3, 12): "type Batch = list[int]\n",
        (3, 13): "def f[T = int](x: T) -> T:\n    return x\n",
        (3, 14): "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n",
        (3, 15): "lazy import json\n",
    }
    # Constructs libcst reads (PEP 695, 696) are lowered and checked (engine/grammar.py): the
    # hint is for the others.
    version = min(v for v, _ in newer if v in samples and v >= (3, 14))
    (tmp_path / "new.py").write_text("import torch\ntorch.manual_seed(0)\n" + samples[version])
    _, out, _ = seedlint(tmp_path, *args, "new.py")
    assert "a newer Python may read it)" in out, out


# -- 9. `seedlint rule NAME` -----------------------------------------------------------------
def test_rule_by_name(tmp_path: Path) -> None:
    rc, out, _ = seedlint(tmp_path, "rule", "dataloader-shuffle-without-generator")
    assert rc == 0 and out.startswith("# dataloader-shuffle-without-generator (RNG001)")
    rc, _, err = seedlint(tmp_path, "rule", "dataloader-shuffle-without-generatr")
    assert rc == 2 and "(did you mean `dataloader-shuffle-without-generator`?)" in err


# -- 10. `seedlint rules` says which fixes are unsafe ---------------------------------------
def test_rules_listing_marks_unsafe_only_fixes(tmp_path: Path) -> None:
    listing = {line.split()[0]: line for line in seedlint(tmp_path, "rules")[1].splitlines()}
    assert listing["RNG003"].endswith("unsafe fix (--unsafe-fixes)")
    assert listing["RNG008"].endswith("unsafe fix (--unsafe-fixes)")
    assert listing["RNG001"].endswith("fixable")
    assert listing["RNG000"].endswith("-")


@pytest.mark.parametrize("rule", [r for r in RULES if r.invalid], ids=lambda r: r.code)
def test_fix_always_unsafe_agrees_with_the_examples(rule: type) -> None:
    fixed = [example for example in rule.invalid if example.fixed is not None]
    if rule.fix_always_unsafe:
        assert fixed and all(example.unsafe for example in fixed)
    elif fixed:
        assert any(not example.unsafe for example in fixed)
    assert Applicability.UNSAFE.value == "unsafe"


# -- 12. ruff's other output formats ----------------------------------------------------------
def test_pylint_azure_grouped(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    (tmp_path / "g.py").write_text(GRAPH)
    base = ("check", "--no-cache", "a.py", "g.py", "--output-format")
    rc, out, _ = seedlint(tmp_path, *base, "pylint")
    assert rc == 1
    assert out.splitlines() == [
        "a.py:5: [RNG001] DataLoader shuffles without a `generator`: its order depends on the "
        "global torch generator",
        "g.py:5: [RNG003] Seeding inside `with torch.cuda.graph(...)`: may raise at capture, "
        "never replayed",
    ]
    _, out, _ = seedlint(tmp_path, *base, "azure")
    assert out.splitlines()[0] == (
        "##vso[task.logissue type=error;sourcepath=a.py;linenumber=5;columnnumber=10;"
        "code=RNG001;]DataLoader shuffles without a `generator`: its order depends on the "
        "global torch generator"
    )
    _, out, _ = seedlint(tmp_path, *base, "grouped")
    assert out.startswith(
        "a.py:\n  5:10 RNG001 [*] DataLoader shuffles without a `generator`: its order "
        "depends on the global torch generator\n\ng.py:\n  5:5 RNG003 Seeding inside"
    )
    assert out.endswith(
        "Found 2 findings.\n[*] 1 fixable with the `--fix` option "
        "(1 hidden fix can be enabled with the `--unsafe-fixes` option).\n"
    )


def test_junit_and_rdjson(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    (tmp_path / "ok.py").write_text("x = 1\n")
    base = ("check", "--no-cache", "--output-format")
    _, out, _ = seedlint(tmp_path, *base, "junit", "a.py")
    suites = ET.fromstring(out.split("\n", 1)[1])
    assert suites.attrib == {"name": "seedlint", "tests": "1", "failures": "1", "errors": "0"}
    (suite,) = suites
    assert suite.attrib["name"] == "a.py" and suite.attrib["package"] == "org.seedlint"
    (case,) = suite
    assert case.attrib == {
        "name": "org.seedlint.RNG001",
        "classname": "a",
        "line": "5",
        "column": "10",
    }
    failure = case.find("failure")
    assert failure is not None and failure.text is not None
    assert failure.text.startswith("line 5, col 10, DataLoader shuffles without")
    assert failure.text.endswith("\n\nPass `generator=torch.Generator().manual_seed(0)`")
    rc, out, _ = seedlint(tmp_path, *base, "junit", "ok.py")
    assert rc == 0 and '<testcase name="No errors found" classname="seedlint"/>' in out
    rc, out, _ = seedlint(tmp_path, *base, "rdjson", "a.py")
    data = json.loads(out)
    assert data["source"]["name"] == "seedlint" and data["severity"] == "WARNING"
    (item,) = data["diagnostics"]
    assert item["code"]["value"] == "RNG001" and item["code"]["url"].endswith("RNG001.md")
    assert item["location"] == {
        "path": "a.py",
        "range": {"start": {"line": 5, "column": 10}, "end": {"line": 5, "column": 45}},
    }
    (suggestion,) = item["suggestions"]
    assert suggestion["text"] == ", generator=torch.Generator().manual_seed(0)"
    assert suggestion["range"]["start"] == {"line": 5, "column": 44}


# -- 2. notebooks: code frames, and --diff per cell ------------------------------------------
NOTEBOOK = Path(__file__).parent / "fixtures" / "notebooks" / "two_cells.ipynb"


def test_notebook_code_frame_and_per_cell_diff(tmp_path: Path) -> None:
    (tmp_path / "nb.ipynb").write_bytes(NOTEBOOK.read_bytes())
    rc, out, _ = seedlint(tmp_path, "check", "--no-cache", "nb.ipynb")
    assert rc == 1
    assert (
        " --> nb.ipynb:cell 4:1:10\n"
        "  |\n"
        "1 | loader = DataLoader(dataset, batch_size=2, shuffle=True)  # ünïcode comment\n"
        "  |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    ) in out
    rc, out, err = seedlint(tmp_path, "check", "--no-cache", "--diff", "nb.ipynb")
    assert rc == 1 and err.endswith("Would fix 1 finding.\n")
    assert out.startswith(
        "--- nb.ipynb:cell 1\n+++ nb.ipynb:cell 1\n@@ -1 +1,2 @@\n+import torch\n"
        " from torch.utils.data import DataLoader\n"
    )
    assert "--- nb.ipynb:cell 4\n+++ nb.ipynb:cell 4\n" in out
    assert "+    generator=torch.Generator().manual_seed(0),\n" in out
    assert '"source"' not in out and "cell 3" not in out  # no JSON, no unchanged cell
    assert (tmp_path / "nb.ipynb").read_bytes() == NOTEBOOK.read_bytes()


# -- 11. the full output previews the fix ----------------------------------------------------
def test_full_output_previews_the_fix(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(SHUFFLED)
    (tmp_path / "g.py").write_text(GRAPH)
    _, out, _ = seedlint(tmp_path, "check", "--no-cache", "a.py", "g.py")
    assert (
        "  help: Pass `generator=torch.Generator().manual_seed(0)`\n"
        "  |\n"
        "4 | torch.manual_seed(0)\n"
        "  - loader = DataLoader([1, 2, 3], shuffle=True)\n"
        "5 + loader = DataLoader([1, 2, 3], shuffle=True, "
        "generator=torch.Generator().manual_seed(0))\n"
        "6 | print(loader)\n"
        "  |\n"
    ) in out
    graph = out[out.index("RNG003") :]
    assert " - " not in graph  # an unsafe fix --fix would not apply: no preview (ruff)
    _, out, _ = seedlint(tmp_path, "check", "--no-cache", "--unsafe-fixes", "g.py")
    assert "  -     torch.manual_seed(0)\n" in out
    assert "note: This is an unsafe fix and may change runtime behavior" in out


# -- 6. --show-settings: line-length comes from ruff's or black's configuration -------------
def test_show_settings_names_the_line_length_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.seedlint]\nselect = ["RNG001"]\n')
    (tmp_path / "ruff.toml").write_text("line-length = 100\n")
    (tmp_path / "t.py").write_text(SHUFFLED)
    rc, out, _ = seedlint(tmp_path, "check", "--show-settings", "t.py")
    rows = {line.split(" = ")[0]: line for line in out.splitlines() if " = " in line}
    assert rc == 0
    assert rows["line-length"] == (
        f"line-length = 100  # {tmp_path.resolve() / 'ruff.toml'} "
        "(ruff's line-length; not a [tool.seedlint] key)"
    ), rows["line-length"]
    assert rows["select"].endswith(f"# {tmp_path.resolve() / 'pyproject.toml'}")
    assert rows["ignore-noqa"] == "ignore-noqa = false  # default (--ignore-noqa; no config key)"
    (tmp_path / "ruff.toml").unlink()
    rc, out, _ = seedlint(tmp_path, "check", "--show-settings", "t.py")
    assert "line-length = 88  # default (no ruff or black configuration sets it)" in out
    # a seedlint table rejects the key: the setting is the formatter's
    (tmp_path / "pyproject.toml").write_text("[tool.seedlint]\nline-length = 100\n")
    rc, _, err = seedlint(tmp_path, "check", "--show-settings", "t.py")
    assert rc == 2 and "unknown key `line-length`" in err


# -- 7. a fix to a call in a hanging indent stays within line-length -------------------------
ALIGNED = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "\n"
    "def build(dataset_for_training, batch_size_for_training, seed):\n"
    "    torch.manual_seed(seed)\n"
    "    train_loader_for_the_experiment = DataLoader(dataset_for_training,\n"
    "                                                 batch_size=batch_size_for_training,\n"
    "                                                 shuffle=True{comment})\n"
    "    return train_loader_for_the_experiment\n"
)


def test_fix_in_a_hanging_indent_respects_line_length(tmp_path: Path) -> None:
    target = tmp_path / "train.py"
    target.write_text(ALIGNED.format(comment=""))
    seedlint(tmp_path, "check", "--no-cache", "--fix", "-q", "train.py")
    fixed = target.read_text()
    assert max(len(line) for line in fixed.splitlines()) <= 88, fixed
    assert (
        "    train_loader_for_the_experiment = DataLoader(\n"
        "        dataset_for_training,\n"
        "        batch_size=batch_size_for_training,\n"
        "        shuffle=True,\n"
        "        generator=torch.Generator().manual_seed(seed),\n"
        "    )\n"
    ) in fixed
    # comments in the call stay where they were, each with its argument
    target.write_text(
        ALIGNED.format(comment="")
        .replace("dataset_for_training,\n", "dataset_for_training,  # the data\n")
        .replace(
            "                                                 batch_size",
            "    # how many\n                                                 batch_size",
        )
    )
    seedlint(tmp_path, "check", "--no-cache", "--fix", "-q", "train.py")
    assert (
        "    train_loader_for_the_experiment = DataLoader(\n"
        "        dataset_for_training,  # the data\n"
        "        # how many\n"
        "        batch_size=batch_size_for_training,\n"
        "        shuffle=True,\n"
        "        generator=torch.Generator().manual_seed(seed),\n"
        "    )\n"
    ) in target.read_text(), target.read_text()


def test_full_output_leaves_previews_out_of_a_large_run(tmp_path: Path) -> None:
    from seedlint.cli import PREVIEW_FILES

    for n in range(PREVIEW_FILES + 1):
        (tmp_path / f"a{n}.py").write_text(SHUFFLED)
    rc, out, _ = seedlint(tmp_path, "check", "--no-cache", ".")
    assert rc == 1 and " - loader = " not in out
    assert (
        f"Fix previews left out: {PREVIEW_FILES + 1} files have fixes (more than "
        f"{PREVIEW_FILES}); `seedlint check --diff` shows every fix.\n"
    ) in out


# -- 13. the docs give an install that works today (seedlint is not on PyPI) -----------------
ROOT = Path(__file__).resolve().parent.parent
PYPI_INSTALL = re.compile(
    r"""(?:pip|pipx|uv tool|uv pip)\s+install\s+(?:--?[\w-]+(?:[ =][\w.]+)?\s+)*"""
    r"""['"]?seedlint(?:\[\w+\])?(?:==[\w.]+)?['"]?(?=[\s`'"]|$)(?!\s*@)""",
    re.MULTILINE,
)


def test_no_doc_promises_an_install_from_pypi() -> None:
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    texts += sorted((ROOT / "seedlint").rglob("*.py"))
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in texts
        for match in PYPI_INSTALL.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
    assert PYPI_INSTALL.search("pip install 'seedlint[server]'")  # the test can fail
    assert PYPI_INSTALL.search('python -m pip install "seedlint==0.1.0"')
    assert PYPI_INSTALL.search("pipx install --python python3.13 seedlint`")
    assert not PYPI_INSTALL.search("pip install 'seedlint[server] @ git+https://x/y'")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python3 -m pip install ." in readme
    assert 'python3 -m pip install "git+https://github.com/seedlint/seedlint"' in readme


# -- 8. RNG100 (ruff's RUF100, for RNG codes) and --ignore-noqa -----------------------------
NOQA = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "g = torch.Generator().manual_seed(0)\n"
    "a = DataLoader([1], shuffle=True)  # noqa: RNG001\n"
    "b = DataLoader([1], shuffle=True, generator=g)  # noqa: RNG001, E501\n"
    "c = 1  # noqa: RNG003, RNG009, RNG002, RNG002\n"
    'd = "# noqa: RNG001"\n'
    "e = 2  # noqa\n"
)


def test_unused_noqa_is_off_by_default_and_selectable(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text(NOQA)
    args = ("check", "--no-cache", "--output-format", "concise", "-q", "t.py")
    assert seedlint(tmp_path, *args)[:2] == (0, "")  # off by default, as RUF100
    for selected in (["--extend-select", "RNG100"], ["--select", "ALL"]):
        rc, out, _ = seedlint(tmp_path, *args, *selected, "--ignore", "RNG003")
        assert rc == 1
        assert out.splitlines() == [
            "t.py:6:49: RNG100 Unused `noqa` directive (unused: `RNG001`)",
            "t.py:7:8: RNG100 Unused `noqa` directive (unused: `RNG002`; non-enabled: "
            "`RNG003`; duplicated: `RNG002`; unknown: `RNG009`)",
        ]
    (tmp_path / "pyproject.toml").write_text('[tool.seedlint]\nextend-select = ["RNG100"]\n')
    assert seedlint(tmp_path, *args)[0] == 1


def test_ignore_noqa_reads_no_suppression_comment(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text(NOQA)
    (tmp_path / "f.py").write_text("# seedlint: noqa\n" + SHUFFLED)
    args = ("check", "--no-cache", "--output-format", "concise", "-q")
    assert seedlint(tmp_path, *args, "t.py", "f.py")[:2] == (0, "")
    rc, out, _ = seedlint(tmp_path, *args, "--ignore-noqa", "t.py", "f.py")
    assert rc == 1
    assert [line.split(": ")[0:2] for line in out.splitlines()] == [
        ["f.py:6:10", "RNG001 [*] DataLoader shuffles without a `generator`"],
        ["t.py:5:5", "RNG001 [*] DataLoader shuffles without a `generator`"],
    ]
    # RNG100 judges suppression comments: with --ignore-noqa there are none
    rc, out, _ = seedlint(tmp_path, *args, "--ignore-noqa", "--select", "RNG100", "t.py")
    assert (rc, out) == (0, "")
    (tmp_path / "t.py").write_text("def f(:  # noqa: RNG000\n")
    assert seedlint(tmp_path, *args, "t.py")[0] == 0
    assert seedlint(tmp_path, *args, "--ignore-noqa", "t.py")[0] == 1


def test_full_output_previews_a_notebook_fix_in_its_cell(tmp_path: Path) -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["Data."]},
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": [
                "import torch\n",
                "from torch.utils.data import DataLoader\n",
                "torch.manual_seed(0)\n",
                "loader = DataLoader([1, 2], shuffle=True)",
            ],
        },
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook, indent=1) + "\n")
    _, out, _ = seedlint(tmp_path, "check", "--no-cache", "nb.ipynb")
    assert (
        " ::: cell 2\n"
        "  |\n"
        "3 | torch.manual_seed(0)\n"
        "  - loader = DataLoader([1, 2], shuffle=True)\n"
        "4 + loader = DataLoader([1, 2], shuffle=True, "
        "generator=torch.Generator().manual_seed(0))\n"
        "  |\n"
    ) in out, out
