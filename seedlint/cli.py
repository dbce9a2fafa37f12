"""The ``seedlint`` command: options and exit codes (0 clean, 1 findings, 2 error)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, TextIO

from seedlint import __version__, report
from seedlint.config import (
    OUTPUT_FORMATS,
    ConfigError,
    Settings,
    SettingsResolver,
    parse_per_file_ignores,
)
from seedlint.core import Finding, FixAvailability
from seedlint.documents import DecodeError, Source
from seedlint.engine.check import invalid
from seedlint.engine.selection import check_selectors, selection
from seedlint.project.index import activate
from seedlint.project.layout import find_root
from seedlint.rules import BY_CODE, RULES
from seedlint.run.cache import Cache
from seedlint.run.discovery import discover, is_excluded
from seedlint.run.files import FileTask, attach_edits, check_files, fix_files, read_file
from seedlint.run.pool import default_jobs
from seedlint.run.summaries import build_index

SUBCOMMANDS = ("check", "rule", "rules", "clean")


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # exit 2 with one line, like ruff
        raise UsageError(message)


def _codes(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="seedlint",
        description="Find and fix unseeded random streams in PyTorch code.",
    )
    parser.add_argument("--version", action="version", version=f"seedlint {__version__}")
    sub = parser.add_subparsers(dest="command")

    check = sub.add_parser("check", help="check files and folders (the default command)")
    check.add_argument(
        "paths", nargs="*", help="files or folders to check (default: .); - for stdin"
    )
    fix = check.add_argument_group("fixes")
    fix.add_argument("--fix", action="store_true", default=None, help="apply safe fixes")
    fix.add_argument("--no-fix", dest="fix", action="store_false")
    fix.add_argument("--unsafe-fixes", action="store_true", default=None)
    fix.add_argument("--no-unsafe-fixes", dest="unsafe_fixes", action="store_false")
    fix.add_argument("--fix-only", action="store_true", help="apply fixes, report nothing else")
    fix.add_argument("--diff", action="store_true", help="print the fixes as a diff; write nothing")
    fix.add_argument("--show-fixes", action="store_true", help="list what was fixed")
    fix.add_argument("--exit-non-zero-on-fix", action="store_true")
    fix.add_argument("--fix-seed", type=int, help="the seed a fix uses when the code names none")
    rules = check.add_argument_group("rule selection")
    for name in ("select", "extend-select", "ignore", "extend-ignore", "fixable", "unfixable"):
        rules.add_argument(f"--{name}", type=_codes, metavar="CODES")
    rules.add_argument("--per-file-ignores", action="append", metavar="GLOB:CODES")
    files = check.add_argument_group("files")
    files.add_argument("--exclude", type=_codes, metavar="GLOBS")
    files.add_argument("--extend-exclude", type=_codes, metavar="GLOBS")
    files.add_argument("--respect-gitignore", action="store_true", default=None)
    files.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false")
    files.add_argument("--force-exclude", action="store_true", default=None)
    files.add_argument("--stdin-filename", help="the name to report for standard input")
    config = check.add_argument_group("configuration")
    config.add_argument("--config", type=Path, help="a config file to use for every file")
    config.add_argument("--isolated", action="store_true", help="ignore every config file")
    config.add_argument(
        "--project-root",
        type=Path,
        help="the project's root folder (default: the nearest folder upwards holding "
        "pyproject.toml, setup.py, setup.cfg or .git)",
    )
    out = check.add_argument_group("output")
    out.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        default=os.environ.get("SEEDLINT_OUTPUT_FORMAT") or None,
    )
    out.add_argument("-o", "--output-file", type=Path)
    out.add_argument("--statistics", action="store_true")
    out.add_argument("-e", "--exit-zero", action="store_true")
    out.add_argument("-q", "--quiet", action="store_true", help="print findings only")
    out.add_argument("-s", "--silent", action="store_true", help="print nothing")
    out.add_argument("--show-files", action="store_true", help="list the files to check")
    speed = check.add_argument_group("speed")
    speed.add_argument(
        "--no-cache", action="store_true", default=bool(os.environ.get("SEEDLINT_NO_CACHE"))
    )
    speed.add_argument("--cache-dir", type=Path, default=os.environ.get("SEEDLINT_CACHE_DIR"))
    speed.add_argument("-j", "--jobs", type=int, help="processes to use (default: one per core)")

    rule = sub.add_parser("rule", help="print a rule's documentation")
    rule.add_argument("code", nargs="?")
    rule.add_argument("--all", action="store_true")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")

    sub.add_parser("rules", help="list the rules")
    clean = sub.add_parser("clean", help="remove the cache folder")
    clean.add_argument("--cache-dir", type=Path, default=os.environ.get("SEEDLINT_CACHE_DIR"))
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (
        args_list[0] not in SUBCOMMANDS and args_list[0] not in ("-h", "--help", "--version")
    ):
        args_list.insert(0, "check")
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
        if args.command == "rule":
            return _rule(args)
        if args.command == "rules":
            return _rules()
        if args.command == "clean":
            return _clean(args)
        return _check(args)
    except UsageError as error:
        print(f"seedlint: error: {error}", file=sys.stderr)
        return 2
    except ConfigError as error:
        print(f"seedlint: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("seedlint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as error:  # a bug in seedlint: one line, never a traceback
        print(
            f"seedlint: error: internal error: {type(error).__name__}: {error} (please report "
            "this at the seedlint issue tracker, with the command line)",
            file=sys.stderr,
        )
        return 2


def _rule(args: argparse.Namespace) -> int:
    if args.all:
        chosen = list(RULES)
    elif args.code and args.code.upper() in BY_CODE:
        chosen = [BY_CODE[args.code.upper()]]
    else:
        raise UsageError(f"unknown rule `{args.code}`" if args.code else "name a rule, or --all")
    if args.output_format == "json":
        items = [
            {
                "code": r.code,
                "name": r.name,
                "summary": r.summary,
                "fix": (
                    f"Fix is {r.fix_availability.value} available."
                    if r.fix_availability is not FixAvailability.NONE
                    else None
                ),
                "explanation": r.documentation(),
            }
            for r in chosen
        ]
        print(json.dumps(items if args.all else items[0], indent=2))
    else:
        print("\n".join(r.documentation() for r in chosen), end="")
    return 0


def _rules() -> int:
    for rule in RULES:
        fixable = "fixable" if rule.fix_availability is not FixAvailability.NONE else "-"
        print(f"{rule.code}  {rule.name:<40} {fixable}")
    return 0


def _clean(args: argparse.Namespace) -> int:
    import shutil

    folder = args.cache_dir or Path(".seedlint_cache")
    if folder.is_dir():
        try:
            tag = (folder / "CACHEDIR.TAG").read_text(errors="replace")
        except OSError:
            tag = ""
        if "created by seedlint" not in tag and any(folder.iterdir()):
            # Only ever delete a folder seedlint made (a mistyped --cache-dir must not cost a tree).
            raise UsageError(f"{folder} is not a seedlint cache folder (no CACHEDIR.TAG); kept")
        shutil.rmtree(folder)
    return 0


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for name in ("select", "extend_select", "ignore", "extend_ignore", "fixable", "unfixable"):
        value = getattr(args, name)
        if value is not None:
            check_selectors(tuple(value), name.replace("_", "-"))
            overrides[name] = tuple(value)
    for name in ("exclude", "extend_exclude"):
        if getattr(args, name) is not None:
            overrides[name] = tuple(getattr(args, name))
    for name in ("respect_gitignore", "force_exclude", "unsafe_fixes", "fix_seed"):
        if getattr(args, name) is not None:
            overrides[name] = getattr(args, name)
    if args.per_file_ignores:
        overrides["per_file_ignores"] = parse_per_file_ignores(
            args.per_file_ignores, check_selectors
        )
    return overrides


def _check(args: argparse.Namespace) -> int:
    resolver = SettingsResolver(
        _overrides(args), config=args.config, isolated=args.isolated, check=check_selectors
    )
    default = resolver.default()
    output_format = args.output_format or default.output_format or "full"
    fixing = bool(args.fix or args.fix_only or args.diff)
    paths = [Path(p) for p in (args.paths or ["."])]
    for path in paths:
        if str(path) != "-" and not path.exists() and not path.is_symlink():
            raise UsageError(f"{path}: no such file or folder")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    processes = args.jobs or default_jobs()

    tasks: list[FileTask] = []
    findings: list[Finding] = []
    stdin = [str(p) for p in paths] == ["-"]
    if stdin:
        display = args.stdin_filename or "-"
        settings = resolver.for_path(Path(display)) if args.stdin_filename else default
        raw = sys.stdin.buffer.read()
        if args.stdin_filename and settings.force_exclude and is_excluded(Path(display), settings):
            if fixing and not args.diff:  # an excluded buffer comes back unchanged
                sys.stdout.buffer.write(raw)
                sys.stdout.flush()
            return 0
        tasks.append(FileTask(Path(display), display, settings, raw))
    else:
        for candidate in discover(paths, resolver):
            display = os.path.normpath(str(candidate.path))
            if args.show_files:
                print(display)
                continue
            if candidate.problem is not None:
                chosen = selection(candidate.settings)
                findings.extend(invalid(display, f"cannot read: {candidate.problem}", chosen))
                continue
            tasks.append(FileTask(candidate.path, display, candidate.settings))
        if args.show_files:
            return 0

    # The project's index, built once before the per-file work (and the pool's fork).
    cache_dir = None
    if not args.no_cache and not stdin:  # standard input writes nothing
        cache_dir = args.cache_dir or Path(default.cache_dir or ".seedlint_cache")
    checked = [t.path for t in tasks if t.raw is None]
    if tasks and (checked or args.stdin_filename):
        root = args.project_root
        if root is None and not checked:
            root = find_root(Path(args.stdin_filename))
        always = not checked  # standard input: its text is not on disk to be summarised
        activate(build_index(checked, resolver, default, cache_dir, processes, root, always))
    return _run(args, tasks, findings, processes, fixing, stdin, output_format, default)


def _run(
    args: argparse.Namespace,
    tasks: list[FileTask],
    findings: list[Finding],
    processes: int,
    fixing: bool,
    stdin: bool,
    output_format: str,
    default: Settings,
) -> int:
    fixed: list[Finding] = []
    fix_failed = False
    files: dict[str, tuple[bytes, Settings]] = {}
    if fixing:
        outcome = fix_files(tasks, processes, write=not args.diff and not stdin)
        for error in outcome.errors:
            print(f"seedlint: error: {error}", file=sys.stderr)
        fix_failed = bool(outcome.errors)
        findings.extend(outcome.remaining)
        fixed = outcome.fixed
        if args.diff:
            sys.stdout.write(outcome.diff)
            return 1 if outcome.diff or fix_failed else 0
        if stdin:  # the fixed buffer on stdout, what is left on stderr
            task = tasks[0]
            sys.stdout.buffer.write(outcome.final.get(task.display, task.raw or b""))
            sys.stdout.flush()
            remaining = sorted(findings, key=lambda f: f.sort_key)
            sys.stderr.write(report.FORMATS["concise"](remaining, None))
            if args.exit_zero:
                return 0
            return 1 if remaining or fix_failed else 0
        settings_of = {task.display: task.settings for task in tasks}
        files = {p: (raw, settings_of[p]) for p, raw in outcome.final.items() if p in settings_of}
    else:
        cache = None
        if not args.no_cache and not stdin:
            cache = Cache(args.cache_dir or Path(default.cache_dir or ".seedlint_cache"))
        findings.extend(check_files(tasks, processes, cache))
        if cache is not None:
            cache.save()
        if output_format in ("json", "json-lines"):
            flagged = {f.path for f in findings if f.fix is not None}
            for task in tasks:
                if task.display in flagged:
                    raw = task.raw if task.raw is not None else read_file(task.path)[0]
                    if raw is not None:
                        files[task.display] = (raw, task.settings)
    if output_format in ("json", "json-lines") and not args.fix_only:
        findings = attach_edits(findings, files)

    findings.sort(key=lambda f: f.sort_key)
    sources = None
    if stdin:
        raw = tasks[0].raw or b""
        sources = {tasks[0].display: _lines_of(raw)} if raw else {}
    _emit(args, findings, output_format, len(fixed), fixed, sources)
    if args.exit_zero:
        return 0
    if fixing and (fix_failed or (args.exit_non_zero_on_fix and fixed)):
        return 1
    if args.fix_only:
        return 0
    return 1 if findings else 0


def _lines_of(raw: bytes) -> list[str]:
    try:
        return Source.decode(raw).text.splitlines()
    except DecodeError:
        return []


def _emit(
    args: argparse.Namespace,
    findings: list[Finding],
    output_format: str,
    fixed_count: int,
    fixed: list[Finding],
    sources: Optional[dict[str, list[str]]] = None,
) -> None:
    if args.silent:
        return
    stream: TextIO
    close = False
    if args.output_file is not None:
        # surrogateescape: a file name that is not UTF-8 is written back as its own bytes.
        try:
            stream = open(args.output_file, "w", encoding="utf-8", errors="surrogateescape")  # noqa: SIM115
        except OSError as error:
            raise UsageError(f"cannot write {args.output_file}: {error.strerror}") from None
        close = True
    else:
        stream = sys.stdout
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            # A file name that is not UTF-8 (or text the terminal cannot show) must not crash.
            stream.reconfigure(errors="backslashreplace")
    try:
        shown = [] if args.fix_only else findings
        if output_format == "full" and sources is None:
            sources = {}
            for path in sorted({f.path for f in shown}):
                if path.endswith(".ipynb"):
                    continue
                raw, _ = read_file(Path(path))
                if raw is not None:
                    sources[path] = _lines_of(raw)
        stream.write(report.FORMATS[output_format](shown, sources))
        if output_format in report.HUMAN and not args.quiet:
            if args.show_fixes and fixed:
                stream.write(_fixed_list(fixed))
            if args.statistics:
                stream.write(report.statistics(findings))
            stream.write(report.summary(shown, fixed_count))
        elif args.statistics and output_format in report.HUMAN:
            stream.write(report.statistics(findings))
    finally:
        if close:
            stream.close()


def _fixed_list(fixed: list[Finding]) -> str:
    from collections import Counter

    by_file: dict[str, Counter[str]] = {}
    for finding in fixed:
        by_file.setdefault(finding.path, Counter())[finding.code] += 1
    lines = [f"\nFixed {len(fixed)} finding{'s' if len(fixed) != 1 else ''}:"]
    for path, counts in sorted(by_file.items()):
        lines.append(f"- {path}:")
        for code, count in sorted(counts.items()):
            lines.append(f"    {count} × {code} ({BY_CODE[code].name})")
    return "\n".join(lines) + "\n\n"
