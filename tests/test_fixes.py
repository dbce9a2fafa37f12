"""`--fix` and friends: every fixture pair through the real CLI, the fix loop's guarantees, and
the fix options (`--diff`, `--fix-only`, `--show-fixes`, `--unsafe-fixes`, ...).

A pair is ``tests/fixtures/fixes/<case>/before.py`` and ``after.py`` (compared byte for byte);
an optional ``args`` file holds extra command-line options for the case.
"""

from __future__ import annotations

import ast
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional

import pytest

from seedlint.config import Settings
from seedlint.engine.check import check_bytes
from seedlint.engine.fix import applies, fix_bytes, fix_text
from seedlint.fixes.write import write_fixed
from tests.support import run_seedlint

ROOT = Path(__file__).resolve().parent.parent
PAIRS = Path(__file__).parent / "fixtures" / "fixes"
CASES = sorted(p.name for p in PAIRS.iterdir() if (p / "before.py").is_file())

SHUFFLED = """\
import torch
from torch.utils.data import DataLoader

loader = DataLoader(range(8), shuffle=True)
"""
IN_CAPTURE = """\
import torch

graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    torch.manual_seed(0)
    out = torch.rand(2, device="cuda")
"""
CLEAN = """\
import torch
from torch.utils.data import DataLoader

loader = DataLoader(range(8), shuffle=True, generator=torch.Generator().manual_seed(0))
"""


def run(
    args: list[str], cwd: Path, stdin: Optional[bytes] = None
) -> subprocess.CompletedProcess[bytes]:
    return run_seedlint(*args, cwd=cwd, stdin=stdin, env={"PYTHONPATH": str(ROOT)}, text=False)


def case_args(case: str) -> list[str]:
    path = PAIRS / case / "args"
    return shlex.split(path.read_text()) if path.is_file() else []


def case_settings(case: str) -> Settings:
    args = case_args(case)
    settings = Settings(root=PAIRS)
    if "--unsafe-fixes" in args:
        settings = replace(settings, unsafe_fixes=True)
    if "--fix-seed" in args:
        settings = replace(settings, fix_seed=int(args[args.index("--fix-seed") + 1]))
    if "--select" in args:
        settings = replace(settings, select=tuple(args[args.index("--select") + 1].split(",")))
    if "--extend-ignore" in args:
        ignored = tuple(args[args.index("--extend-ignore") + 1].split(","))
        settings = replace(settings, extend_ignore=ignored)
    return settings


# -- the fixture pairs, through the CLI ------------------------------------------------------
@pytest.fixture(scope="module")
def fixed_pairs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every pair's ``before.py`` copied as ``<case>.py`` and fixed by one CLI run per set of
    options (the files are independent: one run over many files is what users do)."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for case in CASES:
        groups.setdefault(tuple(case_args(case)), []).append(case)
    paths: dict[str, Path] = {}
    for index, (args, cases) in enumerate(sorted(groups.items())):
        folder = tmp_path_factory.mktemp(f"pairs{index}")
        for case in cases:
            paths[case] = folder / f"{case}.py"
            paths[case].write_bytes((PAIRS / case / "before.py").read_bytes())
        result = run(["check", "--isolated", "--no-cache", "--fix", *args, "."], folder)
        assert result.returncode in (0, 1), result.stderr.decode()
        assert b"error" not in result.stderr, result.stderr.decode()
    return paths


@pytest.mark.parametrize("case", CASES)
def test_fix_pair(case: str, fixed_pairs: dict[str, Path]) -> None:
    assert fixed_pairs[case].read_bytes() == (PAIRS / case / "after.py").read_bytes()


@pytest.mark.parametrize("case", CASES)
def test_fix_properties(case: str) -> None:
    """Fixing twice equals fixing once, the result compiles, and no fixed finding is left."""
    settings = case_settings(case)
    before = (PAIRS / case / "before.py").read_bytes()
    after = (PAIRS / case / "after.py").read_bytes()
    first = fix_bytes(before, "subject.py", settings, settings.unsafe_fixes)
    assert not first.errors
    assert first.new_raw == after
    second = fix_bytes(after, "subject.py", settings, settings.unsafe_fixes)
    assert second.new_raw == after and not second.fixed
    compile(after, "subject.py", "exec", dont_inherit=True)
    left = check_bytes(after, "subject.py", settings).findings
    assert not [f for f in left if applies(f, settings.unsafe_fixes)]
    found = check_bytes(before, "subject.py", settings).findings
    assert len(left) == len(found) - len(first.fixed)


def test_every_fix_has_pairs() -> None:
    expected = {"RNG001", "RNG002", "RNG003", "RNG004", "RNG005", "RNG006", "RNG007", "RNG008"}
    fixed: set[str] = set()
    for case in CASES:
        settings = case_settings(case)
        raw = (PAIRS / case / "before.py").read_bytes()
        fixed |= {f.code for f in fix_bytes(raw, "x.py", settings, settings.unsafe_fixes).fixed}
    assert fixed == expected


def test_fixed_findings_keep_their_original_rows() -> None:
    text = (PAIRS / "combined_rng001_rng002" / "before.py").read_text()
    result = fix_text(text, "x.py", Settings(extend_ignore=("RNG005",)), unsafe=False)
    assert sorted((f.code, f.row) for f in result.fixed) == [("RNG001", 19), ("RNG002", 19)]


# -- the guarantees ------------------------------------------------------------------------
def test_a_fix_that_breaks_the_code_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import libcst as cst

    from seedlint.fixes.context import Change
    from seedlint.rules.rng001_shuffle_without_generator import ShuffleWithoutGenerator

    def broken(self: object, ctx: object, violation: object) -> Change:
        change = Change()
        module = ctx.module  # type: ignore[attr-defined]
        statement = module.body[-1]
        change.insert_after(statement, [cst.SimpleStatementLine([cst.Expr(cst.Name("if"))])])
        return change

    monkeypatch.setattr(ShuffleWithoutGenerator, "fix", broken)
    result = fix_text(SHUFFLED, "x.py", Settings(), unsafe=False)
    assert result.new_text == SHUFFLED
    assert result.error is not None and "RNG001" in result.error
    assert [f.code for f in result.remaining] == ["RNG001"]

    from seedlint.run.files import FileTask, fix_files

    path = tmp_path / "x.py"
    path.write_text(SHUFFLED)
    outcome = fix_files([FileTask(path, "x.py", Settings(root=tmp_path))], 1)
    assert path.read_text() == SHUFFLED
    assert any("RNG001" in error for error in outcome.errors)
    assert not outcome.fixed and [f.code for f in outcome.remaining] == ["RNG001"]


def test_a_fix_that_crashes_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from seedlint.rules.rng001_shuffle_without_generator import ShuffleWithoutGenerator

    def crash(self: object, ctx: object, violation: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(ShuffleWithoutGenerator, "fix", crash)
    result = fix_text(SHUFFLED, "x.py", Settings(), unsafe=False)
    assert result.new_text == SHUFFLED
    assert result.error is not None and "RNG001" in result.error and "boom" in result.error


def test_fixes_that_never_converge_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fix that does not remove its finding: the loop stops after 10 rounds and says so."""
    from seedlint.fixes.context import Change, parse_statement
    from seedlint.rules.rng004_missing_cuda_seeding import MissingCudaSeeding

    def useless(self: object, ctx: object, violation: object) -> Change:
        change = Change()
        module = ctx.module  # type: ignore[attr-defined]
        change.insert_after(module.body[-1], [parse_statement("x = 1\n")])
        return change

    monkeypatch.setattr(MissingCudaSeeding, "fix", useless)
    text = "import random\nimport torch\n\nrandom.seed(0)\nnet = torch.nn.Linear(2, 2)\n"
    result = fix_text(text, "x.py", Settings(), unsafe=False)
    assert result.error is None
    assert result.new_text.count("x = 1") == 10
    assert len(result.warnings) == 1 and "RNG004" in result.warnings[0]
    assert "10 rounds" in result.warnings[0]


def test_write_refuses_a_file_that_changed_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_text("edited meanwhile\n")
    problem = write_fixed(path, b"what was read\n", b"fixed\n")
    assert problem is not None and "changed on disk" in problem
    assert path.read_text() == "edited meanwhile\n"


def test_write_is_atomic_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(SHUFFLED)
    path.chmod(0o751)
    result = run(["check", "--isolated", "--no-cache", "--fix", "train.py"], tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    assert "generator=torch.Generator().manual_seed(0)" in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]  # no temporary left


def test_write_replaces_a_symlinks_target(tmp_path: Path) -> None:
    target = tmp_path / "real.py"
    target.write_text(SHUFFLED)
    (tmp_path / "link.py").symlink_to(target)
    run(["check", "--isolated", "--no-cache", "--fix", "link.py"], tmp_path)
    assert (tmp_path / "link.py").is_symlink()
    assert "generator=" in target.read_text()


def test_a_read_only_file_is_reported_and_left(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(SHUFFLED)
    path.chmod(0o444)
    result = run(["check", "--isolated", "--no-cache", "--fix", "train.py"], tmp_path)
    assert result.returncode == 1
    assert b"read-only" in result.stderr and b"train.py" in result.stderr
    assert path.read_text() == SHUFFLED
    assert b"RNG001" in result.stdout  # still reported


# -- the options -----------------------------------------------------------------------------
@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(SHUFFLED)
    (tmp_path / "graph.py").write_text(IN_CAPTURE)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_markers_and_summary(project: Path) -> None:
    result = run(["check", "--isolated", "--no-cache", "--output-format", "concise"], project)
    out = result.stdout.decode()
    assert "train.py:4:10: RNG001 [*] DataLoader" in out
    assert "graph.py:5:5: RNG003 Seeding" in out  # an unsafe fix: no marker
    assert "[*] 1 fixable with the `--fix` option (1 hidden fix can be enabled with the " in out
    unsafe = run(
        ["check", "--isolated", "--no-cache", "--output-format", "concise", "--unsafe-fixes"],
        project,
    ).stdout.decode()
    assert "RNG003 [*] Seeding" in unsafe
    assert "[*] 2 fixable with the `--fix` option." in unsafe
    unfixable = run(
        ["check", "--isolated", "--no-cache", "--output-format", "concise", "--unfixable", "RNG"],
        project,
    ).stdout.decode()
    assert "[*]" not in unfixable


def test_full_output_shows_the_fix(project: Path) -> None:
    out = run(["check", "--isolated", "--no-cache", "graph.py"], project).stdout.decode()
    assert "help: Move the seeding to just before the capture region" in out
    assert "note: This is an unsafe fix" in out


def test_markers_come_from_the_cache_too(project: Path) -> None:
    args = ["check", "--isolated", "--output-format", "concise", "train.py"]
    first = run(args, project).stdout.decode()
    second = run(args, project).stdout.decode()
    assert "[*]" in first and first == second
    assert (project / ".seedlint_cache").is_dir()


def test_fix_unsafe_gating(project: Path) -> None:
    result = run(["check", "--isolated", "--no-cache", "--fix", "graph.py"], project)
    assert result.returncode == 1
    assert (project / "graph.py").read_text() == IN_CAPTURE
    assert b"hidden fix can be enabled with the `--unsafe-fixes` option" in result.stdout
    result = run(
        ["check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "graph.py"], project
    )
    assert result.returncode == 0, result.stdout.decode()
    text = (project / "graph.py").read_text()
    assert text.index("torch.manual_seed(0)") < text.index("with torch.cuda.graph")


def test_unsafe_fixes_from_config(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.seedlint]\nunsafe-fixes = true\n")
    result = run(["check", "--no-cache", "--fix", "graph.py"], project)
    assert result.returncode == 0
    assert "    torch.manual_seed(0)" not in (project / "graph.py").read_text()


def test_bare_command_fixes(project: Path) -> None:
    result = run(["--isolated", "--no-cache", "--fix", "train.py"], project)
    assert result.returncode == 0
    assert b"All checks passed!" in result.stdout or b"fixed" in result.stdout
    assert "generator=" in (project / "train.py").read_text()


def test_diff(project: Path) -> None:
    result = run(["check", "--isolated", "--no-cache", "--diff", "."], project)
    assert result.returncode == 1
    out = result.stdout.decode()
    assert out.startswith("--- train.py\n+++ train.py\n@@")
    assert "-loader = DataLoader(range(8), shuffle=True)\n" in out
    assert "+loader = DataLoader(range(8), shuffle=True, generator=torch.Generator()" in out
    assert "graph.py" not in out  # unsafe: not without --unsafe-fixes
    assert (project / "train.py").read_text() == SHUFFLED
    clean = run(["check", "--isolated", "--no-cache", "--diff", "clean.py"], project)
    assert clean.returncode == 0 and clean.stdout == b""
    unsafe = run(["check", "--isolated", "--no-cache", "--diff", "--unsafe-fixes", "."], project)
    assert unsafe.returncode == 1 and b"--- graph.py" in unsafe.stdout
    assert (project / "graph.py").read_text() == IN_CAPTURE


@pytest.mark.skipif(shutil.which("patch") is None, reason="the patch program is not installed")
def test_diff_of_a_patch_applies(project: Path) -> None:
    """The diff is a real unified diff: `patch` turns the file into what --fix writes."""
    diff = run(["check", "--isolated", "--no-cache", "--diff", "train.py"], project).stdout
    copy = project / "copy"
    copy.mkdir()
    (copy / "train.py").write_text(SHUFFLED)
    patched = subprocess.run(["patch", "-p0", "-s"], cwd=copy, input=diff, capture_output=True)
    assert patched.returncode == 0, patched.stderr
    run(["check", "--isolated", "--no-cache", "--fix", "train.py"], project)
    assert (copy / "train.py").read_text() == (project / "train.py").read_text()


def test_fix_only(project: Path) -> None:
    result = run(["check", "--isolated", "--no-cache", "--fix-only", "."], project)
    assert result.returncode == 0  # RNG003 is left (unsafe) but not reported
    assert b"RNG003" not in result.stdout
    assert "generator=" in (project / "train.py").read_text()


def test_show_fixes(project: Path) -> None:
    result = run(["check", "--isolated", "--no-cache", "--fix", "--show-fixes", "."], project)
    out = result.stdout.decode()
    assert "Fixed 1 finding:" in out
    assert "- train.py:" in out and "1 × RNG001 (dataloader-shuffle-without-generator)" in out
    assert "Found 2 findings (1 fixed, 1 remaining)." in out


def test_exit_non_zero_on_fix(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(SHUFFLED)
    assert run(["check", "--isolated", "--no-cache", "--fix", "."], tmp_path).returncode == 0
    (tmp_path / "train.py").write_text(SHUFFLED)
    args = ["check", "--isolated", "--no-cache", "--fix", "--exit-non-zero-on-fix", "."]
    assert run(args, tmp_path).returncode == 1
    assert run(args, tmp_path).returncode == 0  # nothing left to fix


def test_fix_seed_option(project: Path) -> None:
    run(["check", "--isolated", "--no-cache", "--fix", "--fix-seed", "31", "train.py"], project)
    assert "manual_seed(31)" in (project / "train.py").read_text()
    (project / "train.py").write_text(SHUFFLED)
    (project / "pyproject.toml").write_text("[tool.seedlint]\nfix-seed = 5\n")
    run(["check", "--no-cache", "--fix", "train.py"], project)
    assert "manual_seed(5)" in (project / "train.py").read_text()


def test_json_fix_field(project: Path) -> None:
    result = run(["check", "--isolated", "--no-cache", "--output-format", "json", "."], project)
    items = {item["code"]: item for item in json.loads(result.stdout)}
    fix = items["RNG001"]["fix"]
    assert fix["applicability"] == "safe"
    assert fix["message"].startswith("Pass `generator=")
    assert fix["edits"] == [
        {
            "content": ", generator=torch.Generator().manual_seed(0)",
            "location": {"row": 4, "column": 43},
            "end_location": {"row": 4, "column": 43},
        }
    ]
    moved = items["RNG003"]["fix"]
    assert moved["applicability"] == "unsafe"
    assert apply_edits(IN_CAPTURE, moved["edits"]).startswith(
        "import torch\n\ngraph = torch.cuda.CUDAGraph()\ntorch.manual_seed(0)\nwith"
    )
    lines = run(
        ["check", "--isolated", "--no-cache", "--output-format", "json-lines", "train.py"], project
    )
    assert json.loads(lines.stdout.splitlines()[0])["fix"]["edits"][0]["content"].startswith(", ")


def test_json_edits_reproduce_each_fix() -> None:
    """Every fixture pair with one finding: its json edits give exactly what --fix writes."""
    for case in ("rng001_one_per_line", "rng004_unseeded_torch", "rng001_torch_shadowed"):
        before = (PAIRS / case / "before.py").read_text()
        from seedlint.run.files import attach_edits

        settings = Settings(root=PAIRS)
        findings = check_bytes(before.encode(), "x.py", settings).findings
        assert len(findings) == 1
        [finding] = attach_edits(findings, {"x.py": (before.encode(), settings)})
        assert finding.fix is not None and finding.fix.edits
        edits = [
            {
                "content": e.content,
                "location": {"row": e.row, "column": e.col + 1},
                "end_location": {"row": e.end_row, "column": e.end_col + 1},
            }
            for e in finding.fix.edits
        ]
        assert apply_edits(before, edits) == (PAIRS / case / "after.py").read_text()


def apply_edits(text: str, edits: list[dict[str, object]]) -> str:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(location: object) -> int:
        assert isinstance(location, dict)
        return starts[location["row"] - 1] + location["column"] - 1

    for edit in sorted(edits, key=lambda e: offset(e["location"]), reverse=True):
        text = (
            text[: offset(edit["location"])]
            + str(edit["content"])
            + text[offset(edit["end_location"]) :]
        )
    return text


def test_stdin_fix(tmp_path: Path) -> None:
    result = run(
        ["check", "--isolated", "--fix", "-"],
        tmp_path,
        stdin=IN_CAPTURE.encode() + SHUFFLED.encode(),
    )
    assert result.returncode == 1  # RNG003 is left
    assert b"generator=torch.Generator().manual_seed(0)" in result.stdout
    assert b"RNG003" in result.stderr and b"RNG003" not in result.stdout
    clean = run(["check", "--isolated", "--fix", "-"], tmp_path, stdin=CLEAN.encode())
    assert clean.returncode == 0 and clean.stdout == CLEAN.encode()
    named = run(
        ["check", "--isolated", "--fix", "--stdin-filename", "train.py", "-"],
        tmp_path,
        stdin=SHUFFLED.encode(),
    )
    assert named.returncode == 0 and b"generator=" in named.stdout
    diff = run(["check", "--isolated", "--diff", "-"], tmp_path, stdin=SHUFFLED.encode())
    assert diff.returncode == 1 and diff.stdout.startswith(b"--- -\n+++ -\n")


def test_stdin_fix_keeps_crlf_and_bom(tmp_path: Path) -> None:
    raw = b"\xef\xbb\xbf" + SHUFFLED.replace("\n", "\r\n").encode()
    result = run(["check", "--isolated", "--fix", "-"], tmp_path, stdin=raw)
    assert result.returncode == 0
    assert result.stdout.startswith(b"\xef\xbb\xbfimport torch\r\n")
    assert result.stdout.count(b"\r\n") == raw.count(b"\r\n") and b"generator=" in result.stdout


def test_check_does_not_import_libcst(tmp_path: Path) -> None:
    """A check whose output shows no fix edits (the full output's preview does) never imports
    libcst."""
    (tmp_path / "train.py").write_text(SHUFFLED)
    code = (
        "import sys; from seedlint.cli import main; "
        "main(['check', '--isolated', '--no-cache', '-q', '--output-format', 'concise', "
        "'train.py']); "
        "print('LIBCST' if 'libcst' in sys.modules else 'NO-LIBCST')"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert result.stdout.strip().endswith("NO-LIBCST"), result.stdout + result.stderr


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_fixed_code_parses_in_every_pair(case: str, unsafe: bool) -> None:
    """What seedlint's fix loop makes of every pair's ``before.py``, with safe fixes and with
    unsafe ones too, parses (and compiles whenever the input did) and is a fixed point."""
    settings = case_settings(case)
    raw = (PAIRS / case / "before.py").read_bytes()
    display = f"{case}/before.py"
    result = fix_bytes(raw, display, settings, unsafe)
    assert result.errors == []
    new_text = check_bytes(result.new_raw, display, settings).text
    ast.parse(new_text)
    if _compiles(check_bytes(raw, display, settings).text):
        assert _compiles(new_text), new_text
    assert fix_bytes(result.new_raw, display, settings, unsafe).new_raw == result.new_raw


def _compiles(text: str) -> bool:
    try:
        compile(text, "<fixed>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def test_json_edits_over_the_pool_equal_those_of_one_process() -> None:
    """The json output's edits are computed one file per pool task: every fixture pair's
    `before.py`, as one run's files, gets the same edits over two processes as in one."""
    from seedlint.run import pool
    from seedlint.run.files import attach_edits

    if not pool.can_fork():
        pytest.skip("no fork on this platform: the pool runs in-process")
    settings = Settings(root=PAIRS)
    findings = []
    files = {}
    for before in sorted(PAIRS.glob("*/before.py")):
        raw = before.read_bytes()
        name = f"{before.parent.name}.py"
        found = [f for f in check_bytes(raw, name, settings).findings if f.fix is not None]
        if found:
            findings.extend(found)
            files[name] = (raw, settings)
    assert len(files) > 10
    one = attach_edits(findings, files, 1)
    two = attach_edits(findings, files, 2)
    assert one == two
    assert sum(1 for f in one if f.fix is not None and f.fix.edits) > 10
