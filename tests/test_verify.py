"""``seedlint verify`` on the examples: real runs of the real CLI, with CPU torch.

Each test asserts the differing stream, the file:line it names and the exit code. The examples
run with ``--steps`` so that each run is one torch import and a few batches.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import run_seedlint

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = "examples/verify"
TRACER = ROOT / "seedlint" / "verify" / "tracer.py"

pytest.importorskip("torch")


def verify(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> Any:
    return run_seedlint("verify", *args, cwd=cwd, env=env, timeout=300)


def verify_json(*program: str, steps: int = 4, cwd: Path = ROOT) -> tuple[int, dict[str, Any]]:
    result = verify("--steps", str(steps), "--output-format", "json", "--", *program, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


def located(data: dict[str, Any]) -> set[tuple[Any, str, str]]:
    return {(f["code"], f["stream"], f"{f['filename']}:{f['line']}") for f in data["findings"]}


def doc_block(page: str, command: str) -> list[str]:
    text = (ROOT / page).read_text(encoding="utf-8")
    return text.split(f"$ {command}\n", 1)[1].split("```", 1)[0].splitlines()


UNSEEDED = f"seedlint verify --steps 4 --output-format concise -- python {EXAMPLES}/unseeded.py"


def test_unseeded_example_names_torch_then_the_loader() -> None:
    result = verify(*UNSEEDED.split()[2:])
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(": ", 1)[0] for line in lines[:2]] == [
        f"RNG004 {EXAMPLES}/unseeded.py:26",  # the model's init: torch's global generator
        f"RNG001 {EXAMPLES}/unseeded.py:27",  # the DataLoader
    ]
    assert "torch's global generator differs from draw 0" in lines[0]
    assert "the batch order differs from step 0" in lines[1]
    # the README and docs/verify.md show this very output
    assert doc_block("README.md", UNSEEDED) == lines
    assert doc_block("docs/verify.md", UNSEEDED) == lines


def test_docs_say_verify_runs_the_program() -> None:
    page = (ROOT / "docs" / "verify.md").read_text(encoding="utf-8")
    assert "**`seedlint verify` runs your program.**" in page
    for section in ("## What it runs", "## What it traces", "## What it cannot see"):
        assert section in page
    assert "67280421310721" in page and "every CUDA device" in page
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/verify.md" in readme and "**runs your program**" in readme
    assert readme.index("python3 -m pytest -q") < readme.index("## Verifying a run")


def test_seeded_example_matches() -> None:
    code, data = verify_json(f"{EXAMPLES}/seeded.py", steps=3)  # a script: this Python
    assert code == 0 and data["match"] and data["outputs_match"]
    streams = {s["stream"] for s in data["streams"]}
    assert f"DataLoader@{EXAMPLES}/seeded.py:23#0" in streams
    assert f"torch.Generator@{EXAMPLES}/seeded.py:22#0" in streams
    assert "torch" in streams


def test_dataset_rng_copied_into_workers() -> None:
    code, data = verify_json("python", f"{EXAMPLES}/dataset_rng.py")
    assert code == 1
    assert located(data) == {("RNG005", "np.random.Generator", f"{EXAMPLES}/dataset_rng.py:21")}
    assert sorted(data["findings"][0]["workers"]) == [0, 1]


def test_workers_seeds_come_from_the_unseeded_torch_generator() -> None:
    result = verify(
        "--steps", "4", "--output-format", "concise", "--", "python", f"{EXAMPLES}/workers.py"
    )
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    loader = [line for line in lines if f"{EXAMPLES}/workers.py:31:" in line]
    assert len(loader) == 1 and "the workers' seeds differ from epoch 0" in loader[0]
    # seedlint check does not flag this file for RNG004 (the loader does not shuffle), so
    # verify gives the fix to make by hand rather than a rule that would not fire
    assert loader[0].startswith("- ") and "torch.manual_seed(seed)" in loader[0]
    assert loader[0] in (ROOT / "docs" / "verify.md").read_text(encoding="utf-8")
    assert any(line.startswith(f"- {EXAMPLES}/workers.py:32:") for line in lines)


def test_fix_then_verify_matches(tmp_path: Path) -> None:
    shutil.copy(ROOT / EXAMPLES / "unseeded.py", tmp_path / "unseeded.py")
    fixed = run_seedlint("check", "--no-cache", "--fix", "unseeded.py", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout
    result = verify("--steps", "4", "--", "python", "unseeded.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("The 2 runs match: 5 random streams traced, none differs.")


# -- without torch: the tracer, the exit codes and the bootstrap --------------------------------
def test_tracer_imports_nothing_of_seedlint() -> None:
    tree = ast.parse(TRACER.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0
            names.add((node.module or "").split(".")[0])
    assert "seedlint" not in names
    stdlib = getattr(sys, "stdlib_module_names", None)  # Python 3.10 and newer
    if stdlib is not None:
        assert names <= set(stdlib) | {"__future__"}


def test_unseeded_random_in_a_module_and_user_pythonpath(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "helper.py").write_text("import random\n\ndef draw():\n    return random.random()\n")
    (lib / "sitecustomize.py").write_text("import os\nos.environ['USER_SITE_RAN'] = '1'\n")
    (tmp_path / "prog.py").write_text(
        "import os\nimport helper\n\nprint(os.environ.get('USER_SITE_RAN'))\nprint(helper.draw())\n"
    )
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT), str(lib)])}
    result = verify("--output-format", "json", "--", "-m", "prog", cwd=tmp_path, env=env)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert located(data) == {(None, "random", "lib/helper.py:4")}
    assert "never seeds it" in data["findings"][0]["message"]


def test_outputs_differ_while_streams_match(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(
        "import random\nimport time\n\nrandom.seed(0)\nprint(random.random())\n"
        "print(time.time_ns())\n"
    )
    result = verify("--", sys.executable, "prog.py", cwd=tmp_path)
    assert result.returncode == 0
    assert "The 2 runs match" in result.stdout
    assert "what the program computes differs" in result.stdout
    assert "printed output differs from line 2" in result.stdout
    assert "torch.use_deterministic_algorithms" in result.stdout


def test_parameters_that_differ_while_streams_match(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(
        "import time\n\nimport torch\n\ntorch.manual_seed(0)\nmodel = torch.nn.Linear(2, 2)\n"
        "with torch.no_grad():\n    model.weight.add_(time.time_ns() % 1000)\n"
    )
    result = verify("--", "python", "prog.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "the parameters of the `Linear` created at prog.py:6 differ" in result.stdout
    assert "does not come from seeding" in result.stdout


def test_the_tracer_leaves_what_the_program_can_do(tmp_path: Path) -> None:
    """A checkpoint written under verify loads without it (a traced torch.Generator pickles as
    a plain one, with its state), and TorchScript still compiles the functions it wraps."""
    (tmp_path / "prog.py").write_text(
        "import pickle\n\nimport torch\n\ng = torch.Generator().manual_seed(3)\n"
        "data = pickle.dumps(g)\nassert b'_seedlint_tracer' not in data, data\n"
        "copy = pickle.loads(data)\nassert type(copy) is torch._C.Generator\n"
        "assert torch.equal(copy.get_state(), g.get_state())\n"
        "assert isinstance(torch.default_generator, torch.Generator)\n"
        "\n\n@torch.jit.script\ndef noisy(x: torch.Tensor) -> torch.Tensor:\n"
        "    return torch.nn.functional.dropout(x, 0.5) + torch.rand(2)\n\n\n"
        "print(noisy(torch.ones(2)))\n"
    )
    result = verify("--", "python", "prog.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr


def test_a_failing_program_exits_2_with_its_stderr(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text("raise RuntimeError('boom in the program')\n")
    result = verify("--", "python", "prog.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "run 1 of the program failed (exit code 1)" in result.stderr
    assert "RuntimeError: boom in the program" in result.stderr


def test_a_run_past_the_timeout_exits_2(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text("import time\ntime.sleep(30)\n")
    result = verify("--timeout", "1", "--", "python", "prog.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "did not finish within 1 s" in result.stderr


@pytest.mark.parametrize(
    "args", [(), ("--runs", "1", "--", "python", "x.py"), ("--bogus", "--", "python", "x.py")]
)
def test_bad_usage_exits_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    result = verify(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("seedlint: error:")


def test_the_tracer_needs_no_pythonpath_of_the_user(tmp_path: Path) -> None:
    """The bootstrap puts the tracer on the child's path itself: with no PYTHONPATH set, the
    child's path holds the bootstrap folder only, and nothing of seedlint is loaded into it."""
    (tmp_path / "prog.py").write_text(
        "import os\nimport random\nprint(os.environ['PYTHONPATH'].count(os.pathsep))\n"
        "print(random.random())\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SEEDLINT_OUTPUT_FORMAT")}
    launcher = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from seedlint.cli import main; "
    launcher += "sys.exit(main(sys.argv[1:]))"
    command = [sys.executable, "-c", launcher, "verify", "--output-format", "json", "--"]
    result = subprocess.run(
        [*command, sys.executable, "prog.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert located(data) == {(None, "random", "prog.py:4")}
    assert data["tracer_seedlint_modules"] == []


def test_python_dash_i_skips_the_tracer_and_verify_says_so(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text("print(1)\n")
    result = verify("--", sys.executable, "-I", "prog.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "without the tracer's record" in result.stderr
