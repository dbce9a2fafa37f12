"""scripts/mutation.py's own parts (issue 31): each target module has a subset of tests that
exist, the changed lines of a diff, the sample, the equivalents file (each entry still names a
line of its module), and the text of a mutation."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "mutation_script", ROOT / "scripts" / "mutation.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_script"] = module
    spec.loader.exec_module(module)
    return module


mutation = _script()


def test_every_target_module_has_a_subset_of_existing_tests() -> None:
    modules = mutation.target_modules()
    assert "seedlint/cli.py" in modules and "seedlint/config.py" in modules
    assert {m.split("/")[1] for m in modules} >= {
        "rules", "analysis", "project", "fixes", "engine", "report", "run", "cli.py", "config.py",
    }  # fmt: skip
    assert "seedlint/run/__init__.py" not in modules  # a docstring only: nothing to mutate
    for module in modules:
        tests = mutation.tests_for(module)
        assert tests, module
        for test in tests:
            assert (ROOT / test.split("::")[0]).is_file(), test
    with pytest.raises(KeyError):
        mutation.tests_for("seedlint/server.py")


def test_changed_lines_of_a_diff() -> None:
    diff = (
        "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n"
        "@@ -3 +3 @@\n-a\n+b\n"
        "@@ -10,0 +11,2 @@\n+c\n+d\n"
        "@@ -20,3 +22,0 @@\n-e\n-f\n-g\n"
    )
    assert mutation.changed_lines(diff) == {3, 11, 12}
    assert mutation.changed_lines("") == set()


def _mutant(module: str, line: int, operator: str, occurrence: int) -> object:
    return mutation.Mutant(module, operator, occurrence, line, line, "f")


def test_the_sample_takes_one_mutation_per_site_and_is_seeded() -> None:
    mutants = [
        _mutant("a.py", line, f"core/ReplaceComparisonOperator_Eq_{kind}", index)
        for index, (line, kind) in enumerate(
            (line, kind) for line in range(1, 21) for kind in "ABC"
        )
    ]
    first = mutation.choose(mutants, 5, 0)
    assert first == mutation.choose(mutants, 5, 0)
    assert len(first) == 5 and len({m.site for m in first}) == 5
    assert mutation.choose(mutants, 5, 1) != first
    # A longer sample of the same seed starts with the shorter one (CI's fixed sample is the
    # start of the documented run's).
    assert mutation.choose(mutants, 8, 0)[:5] == first
    assert sorted(mutation.choose(mutants, 0, 0), key=id) == sorted(mutants, key=id)


def test_every_equivalent_names_a_line_its_module_has() -> None:
    explained = mutation.load_equivalents()
    assert explained
    for (module, _function, operator, before, after), why in explained.items():
        text = (ROOT / module).read_text(encoding="utf-8")
        assert all(part in text for part in before.split(" / ")), (module, before)
        assert before != after and operator.startswith("core/") and len(why) > 20


def test_a_malformed_equivalents_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "eq.tsv"
    path.write_text("# comment\n\nseedlint/cli.py\tf\tcore/AddNot\tx\tnot x\n")
    with pytest.raises(ValueError, match="6 tab-separated fields"):
        mutation.load_equivalents(path)
    path.write_text("seedlint/cli.py\tf\tcore/AddNot\tx\tnot x\twhy not\n")
    assert mutation.load_equivalents(path) == {
        ("seedlint/cli.py", "f", "core/AddNot", "x", "not x"): "why not"
    }


def test_the_text_of_a_mutation() -> None:
    before = "a = 1\nif x == 1:\n    pass\nb = 2\n"
    after = "a = 1\nif x != 1:\n    pass\nb = 2\n"
    assert mutation._changed_text(before, after) == ("if x == 1:", "if x != 1:")
    assert mutation._changed_text("@cache\ndef f():\n", "def f():\n") == ("@cache", "")
