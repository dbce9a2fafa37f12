"""The ``seedlint`` command: options and exit codes (0 clean, 1 findings, 2 error)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional, TextIO

from seedlint import __version__, report
from seedlint.config import (
    OUTPUT_FORMATS,
    ConfigError,
    Settings,
    SettingsResolver,
    check_seed,
    describe,
    did_you_mean,
    env_bool,
    env_choice,
    find_line_length_file,
    parse_per_file_ignores,
)
from seedlint.core import Finding, FixAvailability
from seedlint.core.printable import printable, printable_path
from seedlint.documents import (
    DecodeError,
    DocumentError,
    NotebookDocument,
    Source,
    is_notebook,
    read_document,
)
from seedlint.engine.check import check_named, collector_paused, invalid
from seedlint.engine.parse import keep_parses
from seedlint.engine.selection import check_selectors, selection
from seedlint.project.index import activate
from seedlint.project.layout import find_root
from seedlint.rules import BY_CODE, RULES
from seedlint.rules.rng000_invalid_file import InvalidFile
from seedlint.run.cache import Cache, cache_folder
from seedlint.run.discovery import discover, is_excluded
from seedlint.run.files import FileTask, attach_edits, check_files, fix_files, read_file
from seedlint.run.notices import warn
from seedlint.run.pool import default_jobs
from seedlint.run.summaries import ProjectSetup

# The full output previews fixes (libcst, about 0.15 s a file) when at most this many files
# have fixes; a larger run prints the findings without them (`--diff` shows every fix).
PREVIEW_FILES = 10
# seedlint is not on PyPI: what pip installs it from.
REPOSITORY = "git+https://github.com/seedlint/seedlint"
SUBCOMMANDS = ("check", "rule", "rules", "clean", "server", "verify")
INVALID_CODE = InvalidFile.code


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # exit 2 with one line, like ruff
        raise UsageError(message + _usage_hint(self, message))


def _options_of(parser: argparse.ArgumentParser) -> set[str]:
    """Every long option of ``parser`` and of its subcommands."""
    options = {o for o in parser._option_string_actions if o.startswith("--")}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                options |= _options_of(sub)
    return options


def _usage_hint(parser: argparse.ArgumentParser, message: str) -> str:
    """`` (did you mean `--fix`?)`` for a mistyped option or choice (ruff's "a similar
    argument exists")."""
    if message.startswith("unrecognized arguments: "):
        for word in message.split(": ", 1)[1].split():
            if word.startswith("--"):
                hint = did_you_mean(word.split("=", 1)[0], _options_of(parser))
                if hint:
                    return hint
        return ""
    choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if choice is not None:
        return did_you_mean(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
    return ""


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
    fix.add_argument("--no-fix", dest="fix", action="store_false", help="apply no fixes")
    fix.add_argument(
        "--unsafe-fixes",
        action="store_true",
        default=None,
        help="also apply unsafe fixes (with --fix), or mark them fixable",
    )
    fix.add_argument(
        "--no-unsafe-fixes",
        dest="unsafe_fixes",
        action="store_false",
        help="never apply or offer unsafe fixes (overrides the configuration)",
    )
    fix.add_argument("--fix-only", action="store_true", help="apply fixes, report nothing else")
    fix.add_argument("--diff", action="store_true", help="print the fixes as a diff; write nothing")
    fix.add_argument("--show-fixes", action="store_true", help="list what was fixed")
    fix.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="exit 1 when anything was fixed, even if nothing is left",
    )
    fix.add_argument(
        "--add-noqa",
        action="store_true",
        help="add `# noqa: CODE` to the line of every finding (keeps existing codes)",
    )
    fix.add_argument("--fix-seed", type=int, help="the seed a fix uses when the code names none")
    rules = check.add_argument_group("rule selection")
    selector_help = {
        "select": "rule codes or prefixes to check (comma-separated; default: RNG0)",
        "extend-select": "rule codes or prefixes to check in addition to `select`",
        "ignore": "rule codes or prefixes not to check",
        "extend-ignore": "rule codes or prefixes not to check, in addition to `ignore`",
        "fixable": "rule codes or prefixes whose fixes may be applied (default: ALL)",
        "unfixable": "rule codes or prefixes whose fixes are never applied",
    }
    for name, text in selector_help.items():
        rules.add_argument(f"--{name}", type=_codes, metavar="CODES", help=text)
    rules.add_argument(
        "--ignore-noqa",
        action="store_true",
        default=None,
        help="ignore every suppression comment (# noqa, # seedlint: noqa)",
    )
    rules.add_argument(
        "--per-file-ignores",
        action="append",
        metavar="GLOB:CODES",
        help="ignore CODES in files matching GLOB (repeatable)",
    )
    files = check.add_argument_group("files")
    files.add_argument(
        "--exclude",
        type=_codes,
        metavar="GLOBS",
        help="files and folders to skip (comma-separated; replaces the default list)",
    )
    files.add_argument(
        "--extend-exclude", type=_codes, metavar="GLOBS", help="more files and folders to skip"
    )
    files.add_argument(
        "--respect-gitignore",
        action="store_true",
        default=None,
        help="skip files that .gitignore ignores (the default)",
    )
    files.add_argument(
        "--no-respect-gitignore",
        dest="respect_gitignore",
        action="store_false",
        help="check files that .gitignore ignores",
    )
    files.add_argument(
        "--force-exclude",
        action="store_true",
        default=None,
        help="apply the excludes to files named on the command line too (for pre-commit)",
    )
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
        help="how to print findings (default: full; env SEEDLINT_OUTPUT_FORMAT)",
    )
    out.add_argument("-o", "--output-file", type=Path, help="write the report to this file")
    out.add_argument(
        "--statistics",
        action="store_true",
        help="print only the number of findings per rule (a json list with json output)",
    )
    out.add_argument(
        "-e", "--exit-zero", action="store_true", help="exit 0 even when there are findings"
    )
    out.add_argument("-q", "--quiet", action="store_true", help="print findings only")
    out.add_argument("-s", "--silent", action="store_true", help="print nothing")
    out.add_argument("--show-files", action="store_true", help="list the files to check")
    out.add_argument(
        "--show-settings",
        action="store_true",
        help="print the resolved settings for the first file, and where each comes from",
    )
    out.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="say on stderr which files were skipped, and why",
    )
    speed = check.add_argument_group("speed")
    speed.add_argument(
        "--no-cache",
        action="store_true",
        default=None,
        help="read and write no cache (env SEEDLINT_NO_CACHE=true)",
    )
    speed.add_argument(
        "--cache-dir",
        type=Path,
        default=os.environ.get("SEEDLINT_CACHE_DIR"),
        help="the cache folder (default: .seedlint_cache; env SEEDLINT_CACHE_DIR)",
    )
    speed.add_argument("-j", "--jobs", type=int, help="processes to use (default: one per core)")

    rule = sub.add_parser("rule", help="print a rule's documentation")
    rule.add_argument("code", nargs="?")
    rule.add_argument("--all", action="store_true")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")

    sub.add_parser("rules", help="list the rules")
    clean = sub.add_parser("clean", help="remove the cache folder")
    clean.add_argument("--cache-dir", type=Path, default=os.environ.get("SEEDLINT_CACHE_DIR"))
    sub.add_parser("server", help="run the language server (LSP) over standard input and output")
    sub.add_parser("verify", help="run a program twice and show which random stream differs")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["verify"]:  # its own options, and the program after `--`
        from seedlint import verify

        return verify.main(args_list[1:])
    if not args_list or (
        args_list[0] not in SUBCOMMANDS and args_list[0] not in ("-h", "--help", "--version")
    ):
        args_list.insert(0, "check")
    parser = build_parser()
    try:
        _check_subcommand(args_list)
        args = parser.parse_args(args_list)
        if args.command == "rule":
            return _rule(args)
        if args.command == "rules":
            return _rules()
        if args.command == "clean":
            return _clean(args)
        if args.command == "server":
            return _server()
        return _check(args)
    except UsageError as error:
        print(f"seedlint: error: {printable(str(error))}", file=sys.stderr)
        return 2
    except ConfigError as error:
        print(f"seedlint: error: {printable(str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("seedlint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as error:  # a bug in seedlint: one line, never a traceback
        print(
            f"seedlint: error: internal error: {type(error).__name__}: {printable(str(error))} "
            "(please report this at the seedlint issue tracker, with the command line)",
            file=sys.stderr,
        )
        return 2


def _check_subcommand(args_list: list[str]) -> None:
    """A first word that names no file and looks like a mistyped subcommand is a usage error
    that says which one (ruff: "a similar subcommand exists")."""
    if args_list[0] != "check" or len(args_list) < 2 or args_list[1] in SUBCOMMANDS:
        return
    word = args_list[1]
    if word.startswith("-") or os.path.lexists(word):
        return
    hint = did_you_mean(word, SUBCOMMANDS)
    if hint:
        raise UsageError(f"unrecognized subcommand `{word}`{hint}")


def _rule(args: argparse.Namespace) -> int:
    by_name = {rule.name: rule for rule in RULES}  # ruff takes a rule's name too
    if args.all:
        chosen = list(RULES)
    elif args.code and args.code.upper() in BY_CODE:
        chosen = [BY_CODE[args.code.upper()]]
    elif args.code and args.code.lower() in by_name:
        chosen = [by_name[args.code.lower()]]
    elif args.code:
        is_code = args.code[:1].isalpha() and args.code[-1:].isdigit()
        hint = did_you_mean(*((args.code.upper(), BY_CODE) if is_code else (args.code, by_name)))
        raise UsageError(f"unknown rule `{args.code}`{hint}")
    else:
        raise UsageError("name a rule, or --all")
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
        if rule.fix_always_unsafe:  # --fix alone never applies it
            fixable = "unsafe fix (--unsafe-fixes)"
        print(f"{rule.code}  {rule.name:<40} {fixable}")
    return 0


def _clean(args: argparse.Namespace) -> int:
    import shutil

    folder = _cache_folder(args.cache_dir or Path(".seedlint_cache"))
    if folder.is_symlink():  # never delete through a link seedlint did not make
        raise UsageError(f"{folder} is a symbolic link, not a seedlint cache folder; kept")
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


def _cache_folder(folder: Path) -> Path:
    if "\0" in str(folder):
        raise UsageError(f"the cache folder {str(folder)!r} contains a NUL character")
    return folder


def _server() -> int:
    try:
        from seedlint import server
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in ("pygls", "lsprotocol"):
            raise
        raise UsageError(
            "`seedlint server` needs pygls and lsprotocol: python3 -m pip install "
            f"'seedlint[server] @ {REPOSITORY}' (or '.[server]' in a clone)"
        ) from None
    return server.main()


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
    if args.fix_seed is not None:
        check_seed(args.fix_seed, "--fix-seed")
    for name in ("respect_gitignore", "force_exclude", "unsafe_fixes", "fix_seed", "ignore_noqa"):
        if getattr(args, name) is not None:
            overrides[name] = getattr(args, name)
    if args.per_file_ignores:
        overrides["per_file_ignores"] = parse_per_file_ignores(
            args.per_file_ignores, check_selectors
        )
    return overrides


def _check(args: argparse.Namespace) -> int:
    # ruff's environment variables: read here, so that a bad value is a usage error (exit 2).
    no_cache = args.no_cache if args.no_cache is not None else env_bool("SEEDLINT_NO_CACHE")
    env_format = env_choice("SEEDLINT_OUTPUT_FORMAT", OUTPUT_FORMATS)
    overrides = _overrides(args)
    resolver = SettingsResolver(
        overrides, config=args.config, isolated=args.isolated, check=check_selectors
    )
    default = resolver.default()
    output_format = args.output_format or env_format or default.output_format or "full"
    fixing = bool(args.fix or args.fix_only or args.diff)
    if args.statistics and output_format not in (*report.HUMAN, "json", "json-lines"):
        raise UsageError(
            f"--statistics prints a table, or json: not available with `{output_format}` output"
        )
    if args.add_noqa and fixing:
        raise UsageError("--add-noqa cannot be combined with --fix, --fix-only or --diff")
    paths = [Path(p) for p in (args.paths or ["."])]
    if len(paths) > 1 and any(str(p) == "-" for p in paths):
        raise UsageError("`-` (standard input) cannot be combined with other paths")
    for path in paths:
        if str(path) != "-" and not path.exists() and not path.is_symlink():
            raise UsageError(f"{path}: no such file or folder")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    processes = args.jobs or default_jobs()

    tasks: list[FileTask] = []
    findings: list[Finding] = []
    stdin = [str(p) for p in paths] == ["-"]
    if stdin and args.add_noqa:
        raise UsageError("--add-noqa changes files: it does not read standard input")
    if args.show_settings:
        return _show_settings(args, resolver, overrides, paths, env_format)
    if stdin:
        display = args.stdin_filename or "-"
        settings = resolver.for_path(Path(display)) if args.stdin_filename else default
        raw = _read_stdin()
        if args.stdin_filename and settings.force_exclude and is_excluded(Path(display), settings):
            if fixing and not args.diff:  # an excluded buffer comes back unchanged
                sys.stdout.buffer.write(raw)
                sys.stdout.flush()
            return 0
        tasks.append(FileTask(Path(display), display, settings, raw))
    else:
        for candidate in discover(paths, resolver, _skipped if args.verbose else _quiet):
            display = os.path.normpath(str(candidate.path))
            if args.show_files:
                print(printable_path(display))
                continue
            if candidate.problem is not None:
                chosen = selection(candidate.settings)
                findings.extend(invalid(display, f"cannot read: {candidate.problem}", chosen))
                continue
            tasks.append(FileTask(candidate.path, display, candidate.settings))
        if args.show_files:
            return 0
        if not tasks and not findings and not args.silent:
            print("warning: No Python files found under the given path(s)", file=sys.stderr)
        if args.verbose:
            _say_ruled_out(tasks)

    # The project: for --fix its index is built once before the per-file work (and the pool's
    # fork); a check builds it only when a checked file's findings may depend on it.
    cache_dir: Optional[Path] = None
    if not no_cache and not stdin and not fixing:  # standard input and --fix write nothing
        _cache_folder(args.cache_dir or Path(default.cache_dir or ".seedlint_cache"))
        cache_dir, refused = cache_folder(args.cache_dir, default, paths)
        if refused is not None:  # it must never hold the project (its .gitignore holds `*`)
            warn(f"the cache folder {cache_dir} is not used: {refused}")
            cache_dir = None
    checked = [t.path for t in tasks if t.raw is None]
    root = args.project_root
    if root is None and not checked and args.stdin_filename:
        root = find_root(Path(args.stdin_filename))
    project = ProjectSetup(resolver, default, cache_dir, processes, root)
    if not stdin and len(paths) == 1 and os.path.isdir(paths[0]):
        project.walked = (os.path.abspath(paths[0]), [t.display for t in tasks])
    if fixing and tasks and (checked or args.stdin_filename):
        always = not checked  # standard input: its text is not on disk to be summarised
        activate(project.fix_index(checked, always))
    return _run(args, tasks, findings, processes, fixing, stdin, output_format, project)


def _run(
    args: argparse.Namespace,
    tasks: list[FileTask],
    findings: list[Finding],
    processes: int,
    fixing: bool,
    stdin: bool,
    output_format: str,
    project: ProjectSetup,
) -> int:
    fixed: list[Finding] = []
    fix_failed = False
    files: dict[str, tuple[bytes, Settings]] = {}
    if fixing:
        outcome = fix_files(tasks, processes, write=not args.diff and not stdin)
        for error in outcome.errors:
            print(f"seedlint: error: {printable(str(error))}", file=sys.stderr)
        fix_failed = bool(outcome.errors)
        findings.extend(outcome.remaining)
        fixed = outcome.fixed
        if args.diff:
            sys.stdout.write(outcome.diff)
            if not args.silent and not args.quiet:  # as ruff: the summary on stderr
                sys.stderr.write(report.fix_summary(len(fixed), findings, applied=False))
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
        folder = project.cache_dir  # None when fixing, for standard input and --no-cache
        cache = Cache(folder) if folder is not None else None
        # The cyclic collector paused meanwhile (the pool's workers are forked with it off):
        # what a check keeps (every module's summary, the findings) lives to the end, what it
        # drops is freed by reference counting, and each burst of allocations (the workers'
        # results, a module parsed on demand) would make the collector rescan all of it: about
        # 0.1 s of a cold run over 7,577 files, in the process the others wait on. (Not when
        # fixing: libcst leaves cycles behind.)
        # The json edits (and the preview) check each file with a fix again: the check
        # pass's last tree is kept for it (a run of one large file parses it once).
        keep_parses(output_format in report.WITH_EDITS and not args.fix_only)
        with collector_paused():
            findings.extend(check_files(tasks, processes, cache, project))
            if cache is not None:
                cache.save()
        if args.add_noqa:
            return _add_noqa(findings)
        if output_format in report.WITH_EDITS:
            flagged = {
                f.path for f in findings if f.fix is not None and _previewed(f, output_format)
            }
            for task in tasks:
                if task.display in flagged:
                    content = task.raw if task.raw is not None else read_file(task.path)[0]
                    if content is not None:
                        files[task.display] = (content, task.settings)
    previews_left_out = 0
    if output_format in report.WITH_EDITS and not args.fix_only:
        if output_format == "full":  # the preview shows only the fixes --fix would apply
            previewed = {f.path for f in findings if f.fix is not None and f.fixable}
            files = {p: v for p, v in files.items() if p in previewed}
            if len(files) > PREVIEW_FILES:  # libcst for each: a human-sized run only
                previews_left_out, files = len(files), {}
        findings = attach_edits(findings, files, processes)
    keep_parses(False)

    if not stdin:
        findings.extend(_named_unparsable(args, tasks, [*findings, *fixed]))
    findings.sort(key=lambda f: f.sort_key)
    sources = None
    if stdin:
        raw = tasks[0].raw or b""
        sources = {tasks[0].display: _lines_of(raw)} if raw else {}
    _emit(args, findings, output_format, len(fixed), fixed, sources, previews_left_out)
    if args.exit_zero:
        return 0
    if fixing and (fix_failed or (args.exit_non_zero_on_fix and fixed)):
        return 1
    if args.fix_only:
        return 0
    return 1 if findings else 0


def _named_unparsable(
    args: argparse.Namespace, tasks: list[FileTask], found: list[Finding]
) -> list[Finding]:
    """RNG000 for the files named on the command line that the pre-filter ruled out (so
    never parsed) and that do not parse: a file the user names is worth parsing."""
    named = {os.path.normpath(p) for p in args.paths or () if not os.path.isdir(p)}
    seen = {f.path for f in found}
    out: list[Finding] = []
    for task in tasks:
        if task.display not in named or task.display in seen or task.raw is not None:
            continue
        raw, _ = read_file(task.path)
        if raw is not None and not selection(task.settings).may_fire(raw, task.display):
            out.extend(check_named(raw, task.display, task.settings))
    return out


def _read_stdin() -> bytes:
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise UsageError("cannot read standard input: it is closed")
    try:
        return bytes(stream.read())
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read standard input: {error}") from None


def _lines_of(raw: bytes) -> list[str]:
    try:
        return Source.decode(raw).text.splitlines()
    except DecodeError:
        return []


def _previewed(finding: Finding, output_format: str) -> bool:
    """Whether ``output_format`` shows the edits of ``finding``'s fix (``full``: only those
    ``--fix`` applies, as ruff's preview)."""
    return output_format != "full" or finding.fixable


def _sources_of(path: str, raw: bytes) -> dict[str, list[str]]:
    """The lines the ``full`` output's code frames show, keyed by :func:`report.source_key`:
    a notebook's per code cell (its findings count rows in the cell)."""
    if not is_notebook(path):
        return {path: _lines_of(raw)}
    try:
        document = read_document(raw, path)
    except DocumentError:
        return {}
    if not isinstance(document, NotebookDocument):
        return {}
    return {
        report.source_key(path, cell.index): cell.source.splitlines()
        for cell in document.notebook.cells
    }


def _emit(
    args: argparse.Namespace,
    findings: list[Finding],
    output_format: str,
    fixed_count: int,
    fixed: list[Finding],
    sources: Optional[dict[str, list[str]]] = None,
    previews_left_out: int = 0,
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
        if args.statistics:  # the table only (ruff), or the same counts as json
            json_output = output_format in ("json", "json-lines")
            stream.write((report.statistics_json if json_output else report.statistics)(findings))
            return
        shown = [] if args.fix_only else findings
        if output_format == "full" and sources is None:
            sources = {}
            for path in sorted({f.path for f in shown}):
                raw, _ = read_file(Path(path))
                if raw is not None:
                    sources.update(_sources_of(path, raw))
        stream.write(report.FORMATS[output_format](shown, sources))
        if output_format in report.HUMAN and not args.quiet:
            if args.show_fixes and fixed:
                stream.write(_fixed_list(fixed))
            if previews_left_out:
                stream.write(
                    f"Fix previews left out: {previews_left_out} files have fixes (more than "
                    f"{PREVIEW_FILES}); `seedlint check --diff` shows every fix.\n"
                )
            if args.fix_only:  # as ruff: what was fixed
                stream.write(report.fix_summary(fixed_count, findings, applied=True))
            else:
                stream.write(report.summary(shown, fixed_count))
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
        lines.append(f"- {printable_path(path)}:")
        for code, count in sorted(counts.items()):
            lines.append(f"    {count} × {code} ({BY_CODE[code].name})")
    return "\n".join(lines) + "\n\n"


def _quiet(path: Path, reason: str) -> None:
    return None


def _skipped(path: Path, reason: str) -> None:
    print(
        f"seedlint: skipped {printable(os.path.normpath(str(path)))}: {printable(reason)}",
        file=sys.stderr,
    )


def _say_ruled_out(tasks: list[FileTask]) -> None:
    """``-v``: the files the pre-filter rules out (no selected rule can fire on them)."""
    for task in tasks:
        raw = task.raw if task.raw is not None else read_file(task.path)[0]
        if raw is not None and not selection(task.settings).may_fire(raw, task.display):
            _skipped(task.path, "no selected rule can fire on it (the pre-filter ruled it out)")
    print(f"seedlint: {len(tasks)} file{'s' if len(tasks) != 1 else ''} to check", file=sys.stderr)


def _add_noqa(findings: list[Finding]) -> int:
    """``--add-noqa``: a ``# noqa: CODE`` on each finding's line; exit 0 (ruff's behaviour)."""
    from seedlint.engine.add_noqa import add_noqa_bytes
    from seedlint.fixes.write import write_fixed

    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        # A file that does not parse takes no comment, nor does an unused comment.
        if finding.code not in (INVALID_CODE, "RNG100"):
            by_path.setdefault(finding.path, []).append(finding)
    added = 0
    for path, found in sorted(by_path.items()):
        raw, _ = read_file(Path(path))
        if raw is None:
            continue
        new_raw, changed = add_noqa_bytes(raw, path, found)  # a notebook: in its cells
        if changed:
            problem = write_fixed(Path(path), raw, new_raw)
            if problem is not None:
                print(f"seedlint: error: {printable(path)}: {printable(problem)}", file=sys.stderr)
                continue
            added += changed
    print(f"Added {added} noqa directive{'s' if added != 1 else ''}.", file=sys.stderr)
    return 0


def _show_settings(
    args: argparse.Namespace,
    resolver: SettingsResolver,
    overrides: dict[str, Any],
    paths: list[Path],
    env_format: Optional[str],
) -> int:
    """``--show-settings``: the settings for the first file to check, and where each comes
    from (ruff shows those of the first file too)."""
    if [str(p) for p in paths] == ["-"]:
        first = Path(args.stdin_filename) if args.stdin_filename else None
    else:
        first = next((c.path for c in discover(paths, resolver)), None)
    settings = resolver.for_path(first) if first is not None else resolver.default()
    env = {"output-format": "SEEDLINT_OUTPUT_FORMAT"} if env_format else {}
    if os.environ.get("SEEDLINT_CACHE_DIR"):
        env["cache-dir"] = "SEEDLINT_CACHE_DIR"
    shown = settings
    if env_format and "output_format" not in overrides and args.output_format is None:
        shown = replace(settings, output_format=env_format)
    if args.output_format is not None:
        shown = replace(shown, output_format=args.output_format)
        overrides = {**overrides, "output_format": args.output_format}
    if args.cache_dir is not None:
        shown = replace(shown, cache_dir=str(args.cache_dir))
        if "cache-dir" not in env:
            overrides = {**overrides, "cache_dir": args.cache_dir}
    lines = [
        f"Resolved settings for: {os.path.normpath(str(first)) if first else '(no file)'}",
        f"Configuration file: {settings.config_file or '(none)'}",
        f"Root: {settings.root}",
    ]
    folder = first if first is not None and first.is_dir() else (first or Path("x")).parent
    length_file = None if args.isolated else find_line_length_file(folder.absolute())
    for key, value, where in describe(shown, overrides, env, length_file):
        if isinstance(value, tuple):
            value = list(value)
        lines.append(f"{key} = {json.dumps(value, default=str)}  # {where}")
    print("\n".join(lines))
    return 0
