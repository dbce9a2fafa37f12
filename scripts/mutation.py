#!/usr/bin/env python3
"""Machine-made mutants (issue 31): cosmic-ray's operators over the core, each module tested by
its own fast subset of the tests.

``scripts/mutate`` plants bugs a person wrote; this script lets cosmic-ray (pinned in the
``dev`` extra) make them: every comparison, operator, boolean, number, ``not``, ``break``,
``except`` and decorator that its operators can change, in the modules of ``TARGETS``.
cosmic-ray enumerates the mutants (its ``init``) and applies each one to a file (its
``use_mutation``, which puts the file back afterwards); this script chooses which mutants run,
runs each module's own tests (``TESTS``: a fast subset, so that a mutant costs seconds), keeps
to a time budget and writes the table.

Everything happens in a copy of the repository in a temporary folder (its tracked and
untracked, not ignored files, and the C accelerator), with the copy first on ``PYTHONPATH``: the
working tree is never touched. The unmutated copy's subsets run first (the table means nothing
if they fail), and a subset that still passes when its module cannot even be imported (the
canary) is an error: it does not test that module.

Which mutants::

    scripts/mutation.py --sample 320 --seed 0        # the table in docs/mutation.md
    scripts/mutation.py --changed origin/main        # the lines changed since the merge base
    scripts/mutation.py --module seedlint/engine/noqa.py --sample 0   # every mutant of a file

A *site* is a place cosmic-ray can mutate (one comparison, one number...); ``--sample N`` takes
N sites at random (``--seed``) over every target module, and one of each site's mutations (also
at random: ``<`` may become any of ``<=``, ``>``, ``==``...). ``--changed BASE`` keeps the sites
on lines that differ between the working tree and the merge base of BASE and HEAD, in the target
modules that changed. ``--sample 0`` means every site, all of its mutations.

A mutant is **killed** when its tests fail (or run past the timeout), **survived** when they
pass; a survivor is **equivalent** when ``docs/mutation-equivalents.tsv`` explains why its
behaviour cannot differ (one line: path, function, operator, the line before and after, why;
tab-separated, so the explanation survives the code moving). Mutants left when the budget
(``--budget`` seconds) runs out are counted as **not run**. The exit code is 1 when a survivor is
left unexplained, 2 when the unmutated tests fail, else 0.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "docs" / "mutation-equivalents.tsv"

# The modules mutated (files, or folders whose *.py files are).
TARGETS = (
    "seedlint/rules",
    "seedlint/analysis",
    "seedlint/project",
    "seedlint/fixes",
    "seedlint/engine",
    "seedlint/config.py",
    "seedlint/report",
    "seedlint/run",
    "seedlint/cli.py",
)

# -- the fast subsets: for each module (a glob, the first that matches wins), the test files
# that cover it. Each runs in seconds; the tests/test_mutation_*.py files were written for the
# mutants these subsets let through.
RULES = (
    "tests/test_rules.py",
    "tests/test_examples.py",
    "tests/test_rule_messages.py",
    "tests/test_docs.py::test_rule_page_is_generated_from_the_rule",
    "tests/test_mutation_rules.py",
)
FIXES = (
    "tests/test_examples.py",
    "tests/test_fixes.py::test_fix_properties",
    "tests/test_fixes.py::test_fixed_code_parses_in_every_pair",
    "tests/test_fixes.py::test_fixed_findings_keep_their_original_rows",
    "tests/test_fix_identity.py",
    "tests/test_fix_refusal.py",
    "tests/test_fix_seeds.py",
    "tests/test_mutation_fixes.py",
    "tests/test_mutation_rules.py::test_fix_cases",
    # the rules' own fixtures: the fixes' helpers (a generator that is absent, where a fix
    # goes) decide findings and fix titles too
    "tests/test_mutation_rules.py::test_mutation_fixture_findings",
    "tests/test_mutation_rules.py::test_every_fixture_finding_byte_for_byte",
)
PROJECT = (
    "tests/test_rules.py",  # the rule fixtures: the index answers every RNG004 case there too
    "tests/test_project_hints.py",
    "tests/test_projects.py",
    "tests/test_mutation_project.py",
    "tests/test_mutation_run.py",
)
ENGINE = (
    *RULES,
    "tests/test_fixes.py::test_check_does_not_import_libcst",
    "tests/test_rng000_selection.py",
    "tests/test_pipeline.py",
    "tests/test_editor_add_noqa.py",
    "tests/test_mutation_engine.py",
)
RUN = (
    "tests/test_mutants.py",
    "tests/test_stdin.py",
    "tests/test_dotdot_paths.py",
    "tests/test_mutation_run.py",
)
TESTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("seedlint/rules/*", RULES),
    (
        "seedlint/analysis/compact.py",  # used on large modules only, as parse.py's pieces are
        (
            *RULES,
            "tests/test_mutation_engine.py::test_a_module_parsed_in_pieces_is_the_whole_module",
            "tests/test_mutation_engine.py::test_a_large_modules_hollowed_values_keep_what_a_read_sees",
            "tests/test_mutation_engine.py::test_a_large_module_that_defines_a_builtins_name_keeps_its_calls",
        ),
    ),
    ("seedlint/analysis/*", (*RULES, "tests/test_guards.py", "tests/test_item_meanings.py")),
    ("seedlint/project/*", PROJECT),
    (
        "seedlint/fixes/write.py",
        (
            "tests/test_mutants.py",
            "tests/test_fixes.py::test_a_read_only_file_is_reported_and_left",
            "tests/test_fixes.py::test_write_is_atomic_and_keeps_the_mode",
            "tests/test_fixes.py::test_write_replaces_a_symlinks_target",
            "tests/test_fixes.py::test_write_refuses_a_file_that_changed_on_disk",
            *FIXES,
        ),
    ),
    (
        "seedlint/fixes/[es][dp]*.py",  # edits.py, spliced.py: the json edits
        (
            "tests/test_fixes.py::test_json_edits_reproduce_each_fix",
            "tests/test_scale_json_edits.py::test_the_same_fixes_as_on_the_whole_module",
            "tests/test_scale_json_edits.py::test_spliced_edits_equal_minimal_edits_of_the_whole_texts",
            *FIXES,
        ),
    ),
    ("seedlint/fixes/window.py", ("tests/test_fix_window.py", *FIXES)),
    ("seedlint/fixes/*", FIXES),
    ("seedlint/engine/noqa.py", ("tests/test_mutants.py", *ENGINE)),
    (
        "seedlint/engine/fix.py",
        (
            *ENGINE,
            "tests/test_fix_window.py",  # large modules' window
            # a notebook's cells that do not parse, left out of the fix
            "tests/test_notebook_cells.py::test_fix_never_touches_a_broken_cell",
            "tests/test_notebook_cells.py::"
            "test_an_import_a_fix_puts_above_a_broken_first_cell_goes_to_the_next_cell",
        ),
    ),
    ("seedlint/engine/splice.py", ("tests/test_fix_splice.py", *ENGINE)),  # the joined trees
    ("seedlint/engine/*", ENGINE),
    ("seedlint/config.py", ("tests/test_mutants.py", "tests/test_mutation_config.py")),
    ("seedlint/report/*", ("tests/test_sarif_uri.py", "tests/test_mutation_report.py")),
    (
        "seedlint/run/summaries.py",
        (
            *RUN,
            "tests/test_project_demand.py",
            "tests/test_project_loader_names.py",
            "tests/test_project_light.py",  # modules summarised from their bytes, on demand
            "tests/test_argparse_project.py",  # argparse-defining modules, on demand
        ),
    ),
    ("seedlint/run/cache.py", (*RUN, "tests/test_cache_security.py")),  # signed entries
    ("seedlint/run/*", RUN),
    ("seedlint/cli.py", (*RUN, "tests/test_mutation_cli.py")),
)
PYTEST = ("-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider", "--no-header")
TIMEOUT_FACTOR = 5  # a mutant's tests may take 5 times the unmutated run (plus 30 s) ...
TIMEOUT_EXTRA = 30  # ... before it counts as killed (a mutant that loops forever)
NO_BASELINE_TIMEOUT = 60  # with --no-baseline, where the unmutated time is not measured


def tests_for(module: str) -> tuple[str, ...]:
    for pattern, tests in TESTS:
        if fnmatch.fnmatch(module, pattern):
            return tuple(t for t in tests if (ROOT / t.split("::")[0]).exists())
    raise KeyError(f"no test subset for {module}: add it to TESTS in scripts/mutation.py")


def target_modules() -> list[str]:
    modules: list[str] = []
    for target in TARGETS:
        path = ROOT / target
        found = sorted(path.glob("*.py")) if path.is_dir() else [path]
        modules += [str(p.relative_to(ROOT)) for p in found if p.read_text(encoding="utf-8")]
    return [m for m in modules if not m.endswith("__init__.py") or _has_code(m)]


def _has_code(module: str) -> bool:
    text = (ROOT / module).read_text(encoding="utf-8")
    return any(line.strip() and not line.startswith(('"""', "#")) for line in text.splitlines())


# -- which lines changed ---------------------------------------------------------------------
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def changed_lines(diff: str) -> set[int]:
    """The new side's line numbers that ``git diff -U0`` shows added or changed."""
    lines: set[int] = set()
    for match in _HUNK.finditer(diff):
        start, count = int(match.group(1)), int(match.group(2) or "1")
        lines.update(range(start, start + count))
    return lines


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout


def changes_since(base: str, modules: Iterable[str]) -> dict[str, set[int]]:
    """For each target module that differs between the merge base of ``base`` and HEAD and the
    working tree: the lines that differ."""
    merge_base = git("merge-base", base, "HEAD").strip()
    changed: dict[str, set[int]] = {}
    for module in modules:
        lines = changed_lines(git("diff", "-U0", merge_base, "--", module))
        if lines:
            changed[module] = lines
    return changed


# -- the mutants -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Mutant:
    module: str
    operator: str
    occurrence: int
    line: int
    end_line: int
    function: str

    @property
    def site(self) -> tuple[str, int, int, str]:
        family = self.operator.split("_")[0]
        return (self.module, self.line, self.end_line, family + str(self.function))


@dataclass
class Result:
    mutant: Mutant
    outcome: str  # killed, survived, equivalent, timeout, no-mutation, error
    seconds: float
    before: str = ""
    after: str = ""
    why: str = ""
    output: str = ""

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        m = self.mutant
        return (m.module, m.function, m.operator, self.before, self.after)


def enumerate_mutants(copy: Path, modules: Sequence[str]) -> list[Mutant]:
    """cosmic-ray's own enumeration (its ``init`` into a work database), read back."""
    from cosmic_ray.commands.init import init
    from cosmic_ray.work_db import WorkDB, use_db

    found: list[Mutant] = []
    with use_db(str(copy / ".mutation-session.sqlite"), WorkDB.Mode.create) as db:
        init([Path(m) for m in modules], db, {})
        for item in db.work_items:
            for spec in item.mutations:
                found.append(
                    Mutant(
                        module=str(spec.module_path),
                        operator=spec.operator_name,
                        occurrence=spec.occurrence,
                        line=spec.start_pos[0],
                        end_line=spec.end_pos[0],
                        function=spec.definition_name or "<module>",
                    )
                )
    return sorted(found, key=lambda m: (m.module, m.operator, m.occurrence))


def choose(mutants: Sequence[Mutant], sample: int, seed: int) -> list[Mutant]:
    """``sample`` sites at random, one mutation of each (every one when ``sample`` is 0), in
    the order they will run."""
    rng = random.Random(seed)
    sites: dict[tuple[str, int, int, str], list[Mutant]] = {}
    for mutant in mutants:
        sites.setdefault(mutant.site, []).append(mutant)
    keys = sorted(sites)
    rng.shuffle(keys)
    if sample == 0:
        return [m for key in keys for m in sites[key]]
    return [rng.choice(sites[key]) for key in keys[:sample]]


def load_equivalents(path: Path = EQUIVALENTS) -> dict[tuple[str, str, str, str, str], str]:
    """The survivors explained: ``path<TAB>function<TAB>operator<TAB>before<TAB>after<TAB>why``
    (``#`` starts a comment line)."""
    explained: dict[tuple[str, str, str, str, str], str] = {}
    if not path.exists():
        return explained
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 6 or not fields[5].strip():
            raise ValueError(f"{path}:{number}: want 6 tab-separated fields, the last the reason")
        module, function, operator, before, after, why = fields
        explained[(module, function, operator, before, after)] = why.strip()
    return explained


def equivalents_line(result: Result, why: str = "WHY") -> str:
    return "\t".join((*result.key, why))


def _changed_text(diff_before: str, diff_after: str) -> tuple[str, str]:
    """The mutated lines, before and after (stripped, joined by `` / ``)."""
    import difflib

    old = diff_before.splitlines()
    new = diff_after.splitlines()
    removed: list[str] = []
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, old, new, autojunk=False
    ).get_opcodes():
        if tag != "equal":
            removed += [line.strip() for line in old[i1:i2]]
            added += [line.strip() for line in new[j1:j2]]
    return " / ".join(removed), " / ".join(added)


# -- running ---------------------------------------------------------------------------------
def repository_files() -> list[str]:
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    names = [name for name in listed if name and (ROOT / name).is_file()]
    # The word scan's C accelerator is ignored by git, and built where the tests run.
    names += [str(p.relative_to(ROOT)) for p in (ROOT / "seedlint").rglob("*.so")]
    return names


def copy_repository(target: Path) -> None:
    for name in repository_files():
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, destination)
    # Compiled once, checked against each source's hash: a mutant is never met by the .pyc of
    # the code before it (nor the restored code by the mutant's).
    subprocess.run(
        [
            sys.executable,
            "-m",
            "compileall",
            "-q",
            "--invalidation-mode",
            "checked-hash",
            "seedlint",
        ],
        cwd=target,
        check=True,
    )


def environment(copy: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEEDLINT_")}
    env["PYTHONPATH"] = str(copy)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_tests(copy: Path, tests: Sequence[str], timeout: float) -> tuple[int | None, float, str]:
    """pytest's exit code (None on a timeout), the seconds it took, the end of its output."""
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, *PYTEST, *tests],
            cwd=copy,
            env=environment(copy),
            capture_output=True,
            text=True,
            timeout=timeout,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - start, "timed out"
    return proc.returncode, time.monotonic() - start, (proc.stdout + proc.stderr)[-3000:]


@contextlib.contextmanager
def mutated(copy: Path, mutant: Mutant) -> Iterator[tuple[str, str | None]]:
    """cosmic-ray's ``use_mutation``: the file is mutated in the copy for the block, and put
    back after it."""
    import cosmic_ray.plugins
    from cosmic_ray.mutating import use_mutation

    operator = cosmic_ray.plugins.get_operator(mutant.operator)()
    with use_mutation(copy / mutant.module, operator, mutant.occurrence) as (before, after):
        yield before, after


def check_imports_the_copy(copy: Path) -> None:
    probe = subprocess.run(
        [sys.executable, "-c", "import seedlint; print(seedlint.__file__)"],
        cwd=copy,
        env=environment(copy),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not Path(probe).resolve().is_relative_to(copy.resolve()):
        raise SystemExit(f"the tests would import {probe}, not the copy in {copy}")


@dataclass
class Baseline:
    tests: tuple[str, ...]
    seconds: float
    canary: str = ""  # why the canary was not killed, if it was not
    problems: list[str] = field(default_factory=list)


def canary(copy: Path, module: str, tests: Sequence[str], timeout: float) -> str:
    """The module's subset must fail when the module raises on import."""
    path = copy / module
    original = path.read_bytes()
    path.write_bytes(b'raise RuntimeError("mutation canary")\n' + original)
    try:
        code, _, _ = run_tests(copy, tests, timeout)
    finally:
        path.write_bytes(original)
    return "" if code not in (0, 5) else f"its tests pass when {module} cannot be imported"


def run(
    copy: Path,
    chosen: Sequence[Mutant],
    deadline: float,
    with_canary: bool,
    verbose: bool,
    save: Callable[[list[Result]], None] = lambda results: None,
    with_baseline: bool = True,
) -> tuple[list[Result], list[Mutant], dict[str, Baseline]]:
    """Each chosen mutant's result, while the budget lasts (``save`` is given the results so
    far after each one), the mutants left, and each module's unmutated run."""
    explained = load_equivalents()
    baselines: dict[str, Baseline] = {}
    subsets: dict[tuple[str, ...], float] = {}
    timeouts: dict[tuple[str, ...], float] = {}

    def baseline_of(module: str) -> Baseline:
        """The module's subset, run unmutated the first time a mutant of it comes up."""
        if module not in baselines:
            tests = tests_for(module)
            if tests not in subsets and not with_baseline:
                subsets[tests] = 0.0  # trusted: the whole suite has just passed (CI)
                timeouts[tests] = NO_BASELINE_TIMEOUT
            if tests not in subsets:
                code, seconds, output = run_tests(copy, tests, 900)
                if code != 0:
                    raise SystemExit(
                        f"the unmutated code fails `pytest {' '.join(tests)}`:\n{output}"
                    )
                subsets[tests] = seconds
                print(f"  ok  {' '.join(tests)}  ({seconds:.1f} s)", flush=True)
            baselines[module] = Baseline(tests, subsets[tests])
            if with_canary:
                baselines[module].canary = canary(copy, module, tests, 900)
                if baselines[module].canary:
                    print(f"  CANARY SURVIVED: {baselines[module].canary}", flush=True)
        return baselines[module]

    results: list[Result] = []
    left: list[Mutant] = []
    for index, mutant in enumerate(chosen):
        known = baselines.get(mutant.module)
        if time.monotonic() + (known.seconds if known else 0) > deadline:
            left = list(chosen[index:])
            break
        baseline = baseline_of(mutant.module)
        if time.monotonic() + baseline.seconds > deadline:
            left = list(chosen[index:])
            break
        timeout = timeouts.get(baseline.tests, TIMEOUT_FACTOR * baseline.seconds + TIMEOUT_EXTRA)
        with mutated(copy, mutant) as (before_code, after_code):
            if after_code is None:
                results.append(Result(mutant, "no-mutation", 0.0))
                continue
            code, seconds, output = run_tests(copy, baseline.tests, timeout)
            if not with_baseline:  # the cost of the next mutant, estimated by this one's
                baseline.seconds = max(baseline.seconds, seconds)
        before, after = _changed_text(before_code, after_code)
        result = Result(mutant, "", seconds, before, after, output=output)
        if code is None:
            result.outcome = "timeout"
        elif code == 0:
            why = explained.get(result.key)
            result.outcome = "equivalent" if why else "survived"
            result.why = why or ""
        else:  # any failure: the unmutated subset passed, so the mutant made it fail
            result.outcome = "killed"
        results.append(result)
        save(results)
        where = f"{mutant.module}:{mutant.line}"
        print(f"{result.outcome:>10}  {where}  {mutant.operator}  ({seconds:.1f} s)", flush=True)
        if result.outcome == "survived" or (verbose and result.outcome != "killed"):
            print(f"            - {before}\n            + {after}", flush=True)
            if verbose:
                print(output)
    return results, left, baselines


# -- the table -------------------------------------------------------------------------------
COLUMNS = ("killed", "survived", "equivalent")


def table(results: Sequence[Result], left: Sequence[Mutant]) -> str:
    rows: dict[str, dict[str, int]] = {}
    for result in results:
        if result.outcome == "no-mutation":
            continue
        row = rows.setdefault(
            result.mutant.module, {"mutants": 0, "error": 0, **dict.fromkeys(COLUMNS, 0)}
        )
        row["mutants"] += 1
        outcome = "killed" if result.outcome == "timeout" else result.outcome
        row[outcome] += 1
    lines = [
        "| module | mutants | killed | survived | equivalent |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    total = dict.fromkeys(("mutants", "error", *COLUMNS), 0)
    for module in sorted(rows):
        row = rows[module]
        for key in total:
            total[key] += row[key]
        lines.append(
            f"| `{module}` | {row['mutants']} | {row['killed']} | {row['survived']} | "
            f"{row['equivalent']} |"
        )
    lines.append(
        f"| **all** | **{total['mutants']}** | **{total['killed']}** | **{total['survived']}** | "
        f"**{total['equivalent']}** |"
    )
    scored = total["mutants"] - total["equivalent"] - total["error"]
    score = 100.0 * total["killed"] / scored if scored else 100.0
    timeouts = sum(1 for r in results if r.outcome == "timeout")
    lines.append("")
    lines.append(
        f"Score: {total['killed']} killed of {scored} non-equivalent mutants = {score:.1f}% "
        f"({timeouts} of the killed by a timeout; {total['error']} errors; "
        f"{len(left)} not run within the budget)."
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=40, help="sites to mutate (0: all)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument("--module", action="append", default=[], help="only this file (again)")
    parser.add_argument("--changed", metavar="BASE", help="only lines changed since BASE")
    parser.add_argument(
        "--budget",
        type=float,
        default=3600,
        help="seconds for the whole run, the copy and the unmutated tests included (3600)",
    )
    parser.add_argument(
        "--no-baseline",
        action="store_true",
        help="do not run the unmutated subsets first (CI: the whole suite has just passed)",
    )
    parser.add_argument("--canary", action="store_true", help="check each subset's canary")
    parser.add_argument("--table", type=Path, help="write the table (markdown) here")
    parser.add_argument("--results", type=Path, help="write every result (json) here")
    parser.add_argument(
        "--again",
        type=Path,
        metavar="RESULTS",
        help="run the survivors of an earlier --results file again (after new tests), and "
        "keep its other results: the table covers them all; with --sample, then run the "
        "mutants of that sample (and --seed) it did not reach",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show pytest's output")
    args = parser.parse_args(argv)
    args.sample_given = any(a.startswith("--sample") for a in (argv or sys.argv[1:]))
    started = time.monotonic()

    modules = target_modules()
    if args.module:
        unknown = sorted(set(args.module) - set(modules))
        if unknown:
            parser.error(f"not a target module: {', '.join(unknown)}")
        modules = [m for m in modules if m in args.module]
    changed: dict[str, set[int]] | None = None
    if args.changed:
        changed = changes_since(args.changed, modules)
        modules = sorted(changed)
        print(f"changed since {args.changed}: {', '.join(modules) or 'no target module'}")
        if not modules:
            return 0
    for module in modules:
        tests_for(module)  # every module has its subset, before anything runs

    with tempfile.TemporaryDirectory(prefix="seedlint-mutation-") as temporary:
        copy = Path(temporary) / "repo"
        copy_repository(copy)
        check_imports_the_copy(copy)
        here = Path.cwd()
        os.chdir(copy)  # cosmic-ray names the modules by their paths relative to the copy
        try:
            mutants = enumerate_mutants(copy, modules)
        finally:
            os.chdir(here)
        if changed is not None:
            mutants = [m for m in mutants if changed[m.module] & set(range(m.line, m.end_line + 1))]
        kept: list[Result] = []
        before_again: dict[Mutant, Result] = {}
        if args.again:
            chosen, kept = earlier(args.again, mutants)
            before_again = earlier_results(args.again, chosen)
            if args.sample_given:  # and the rest of that sample, which it did not reach
                done = {r.mutant for r in kept} | set(chosen)
                chosen += [m for m in choose(mutants, args.sample, args.seed) if m not in done]
        else:
            chosen = choose(mutants, args.sample, args.seed)
        print(
            f"{len(mutants)} mutants at {len({m.site for m in mutants})} sites in "
            f"{len(modules)} modules; running {len(chosen)} (seed {args.seed}, "
            f"budget {args.budget:.0f} s)",
            flush=True,
        )

        def save(results: list[Result]) -> None:
            if args.results:
                text = json.dumps([_as_json(r) for r in kept + results], indent=1)
                args.results.write_text(text + "\n", encoding="utf-8")

        deadline = started + args.budget
        results, left, baselines = run(
            copy, chosen, deadline, args.canary, args.verbose, save, not args.no_baseline
        )
        # An earlier survivor the budget did not reach again keeps its earlier result (the
        # table still covers every mutant of that run).
        unreached = [before_again[m] for m in left if m in before_again]
        left = [m for m in left if m not in before_again]
        if unreached:
            print(f"{len(unreached)} earlier results not run again within the budget: kept")
        results = kept + results + unreached

    text = table(results, left)
    print()
    print(text)
    canaries = [f"{m}: {b.canary}" for m, b in baselines.items() if b.canary]
    if canaries:
        print("\nsubsets that do not test their module:\n  " + "\n  ".join(canaries))
    if args.table:
        args.table.write_text(text + "\n", encoding="utf-8")
    if args.results:
        text = json.dumps([_as_json(r) for r in results], indent=1)
        args.results.write_text(text + "\n", encoding="utf-8")
    survivors = [r for r in results if r.outcome == "survived"]
    if survivors:
        print(f"\n{len(survivors)} survivors that {EQUIVALENTS.relative_to(ROOT)} does not explain")
        print("(kill each with a test, or explain it with a line of that file):")
        for result in survivors:
            print("  " + equivalents_line(result))
    return 1 if survivors or canaries else 0


def earlier(path: Path, mutants: Sequence[Mutant]) -> tuple[list[Mutant], list[Result]]:
    """An earlier run's survivors (to run again) and its other results (kept as they were)."""
    by_id = {(m.module, m.operator, m.occurrence): m for m in mutants}
    again: list[Mutant] = []
    kept: list[Result] = []
    for item in json.loads(path.read_text(encoding="utf-8")):
        mutant = by_id.get((item["module"], item["operator"], item["occurrence"]))
        if mutant is None or mutant.line != item["line"]:
            raise SystemExit(f"{path}: {item['module']}:{item['line']} changed since that run")
        if item["outcome"] in ("survived", "equivalent", "timeout"):  # a timeout: load?
            again.append(mutant)
        else:
            outcome = "killed" if item["outcome"] == "error" else item["outcome"]  # exit 4, 5
            kept.append(Result(mutant, outcome, item["seconds"], item["before"], item["after"]))
    timed_out = {
        (i["module"], i["operator"], i["occurrence"])
        for i in json.loads(path.read_text(encoding="utf-8"))
        if i["outcome"] == "timeout"
    }
    again.sort(key=lambda m: (m.module, m.operator, m.occurrence) in timed_out)  # survivors first
    return again, kept


def earlier_results(path: Path, again: Sequence[Mutant]) -> dict[Mutant, Result]:
    """The earlier results of the mutants :func:`earlier` runs again."""
    by_id = {(m.module, m.operator, m.occurrence): m for m in again}
    explained = load_equivalents()
    found: dict[Mutant, Result] = {}
    for item in json.loads(path.read_text(encoding="utf-8")):
        mutant = by_id.get((item["module"], item["operator"], item["occurrence"]))
        if mutant is not None:
            result = Result(mutant, item["outcome"], item["seconds"], item["before"], item["after"])
            if result.outcome in ("survived", "equivalent"):  # as the equivalents file says now
                result.why = explained.get(result.key, "")
                result.outcome = "equivalent" if result.why else "survived"
            found[mutant] = result
    return found


def _as_json(result: Result) -> dict[str, Any]:
    m = result.mutant
    return {
        "module": m.module,
        "line": m.line,
        "end_line": m.end_line,
        "function": m.function,
        "operator": m.operator,
        "occurrence": m.occurrence,
        "outcome": result.outcome,
        "seconds": round(result.seconds, 2),
        "before": result.before,
        "after": result.after,
        "why": result.why,
    }


if __name__ == "__main__":
    sys.exit(main())
