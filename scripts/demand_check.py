#!/usr/bin/env python3
"""Check on real code that the lazy project index answers as one that parsed every module.

A check run parses a module it did not check only when a question needs it (see
``ProjectSetup.build``). For each project folder given (default: every project of the
benchmark corpus, ``bench/corpus/*``), this builds the index twice: with every module parsed,
and lazily, as a run would if it had parsed none of them itself (the strictest case), asked
about every module whose findings may depend on the project. Every answer must be the same.

Usage::

    python scripts/demand_check.py                       # the corpus's projects
    python scripts/demand_check.py ../nanoGPT ../yolov5  # any project folders

It prints, per project, the modules, those with a summary that needs a tree, those the lazy
index parsed, and the modules whose answers differ (exit code 1 when any does).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Optional

from seedlint.analysis.facts import AnalysisOptions
from seedlint.config import Settings, SettingsResolver
from seedlint.project.index import ProjectIndex, needs_project
from seedlint.project.layout import Layout
from seedlint.project.summary import LIGHT, ModuleSummary, light_summary, needs_tree
from seedlint.run.loader_names import LoaderNames, full_summary
from seedlint.run.pool import pool_map
from seedlint.run.summaries import ProjectSetup, summary_of
from seedlint.run.summaries import _imports_project as imports_project

ROOT = Path(__file__).resolve().parent.parent


def _full(path: str) -> tuple[str, Optional[ModuleSummary]]:
    raw = Path(path).read_bytes()
    if not needs_tree(raw):
        if not light_summary(raw).parser:
            return path, LIGHT
        # it may define an argparse dest a loader asks for: the lazy index parses it then
        return path, full_summary(raw, path, AnalysisOptions())
    try:
        return path, summary_of(raw, path, AnalysisOptions())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return path, None


def check(root: Path, processes: int) -> bool:
    paths = sorted(str(p) for p in root.rglob("*.py") if p.is_file())
    sizes = [Path(p).stat().st_size for p in paths]
    summaries = {p: s for p, s in pool_map(_full, paths, sizes, processes) if s is not None}
    # The modules binding a loader name the run finds (whatever their words): from their trees.
    names = LoaderNames(None, str(root), AnalysisOptions())
    names.from_files(paths, processes)
    names.found = True
    names.complete(lambda: paths, processes, dict)
    for path in names.linked():
        summaries[path] = full_summary(Path(path).read_bytes(), path, AnalysisOptions())
    # The files a run asks the index about: those whose words need a tree (a module a run
    # summarises from its bytes is never asked, whatever parsing it would show).
    asked = sorted(p for p, s in summaries.items() if s.full and needs_project(s))
    # A module summarised from its bytes that an answer looks into (a base class, a re-export)
    # is parsed, as a run parses it on demand, in rounds, each once.
    tried: set[str] = set()
    while True:
        full = ProjectIndex(Layout(root, paths), summaries)
        for path in paths:
            full.answers(path)
        light = sorted(p for p in full.unread - tried if p in summaries and not summaries[p].full)
        tried.update(light)
        light = [p for p in light if imports_project(p, Path(p).read_bytes(), full.layout)]
        if not light:
            break
        for path in light:
            summaries[path] = full_summary(Path(path).read_bytes(), path, AnalysisOptions())
    trees = sum(1 for s in full.summaries.values() if s.full)
    parsed: list[str] = []
    parse = ProjectSetup._parse

    def counted(self: ProjectSetup, chosen: list[str], *args: Any, **kwargs: Any) -> None:
        parsed.extend(chosen)
        parse(self, chosen, *args, **kwargs)

    ProjectSetup._parse = counted  # type: ignore[method-assign,assignment]
    try:
        start = time.perf_counter()
        setup = ProjectSetup(SettingsResolver({}), Settings(root=root), None, processes, root)
        setup.loader_names(paths)
        setup.complete_loaders(lambda: paths, {}, read=False)
        lazy = setup.build(paths, {}, asked)
        seconds = time.perf_counter() - start
    finally:
        ProjectSetup._parse = parse  # type: ignore[method-assign]
    differ = [p for p in asked if lazy.answers(p) != full.answers(p)]
    print(
        f"{root.name}: {len(paths)} modules, {trees} need a tree, {len(asked)} asked, "
        f"{len(parsed)} parsed lazily ({seconds:.1f} s), {len(differ)} answers differ"
    )
    for path in differ:
        print(f"  differs: {path}")
    return not differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    corpus = ROOT / "bench" / "corpus"
    default = sorted(p for p in corpus.iterdir() if p.is_dir()) if corpus.is_dir() else []
    parser.add_argument("folders", nargs="*", type=Path, default=default)
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    args = parser.parse_args()
    if not args.folders:
        print("no project folders (build the corpus: python bench/build_corpus.py)")
        return 2
    results = [check(Path(folder).resolve(), args.jobs) for folder in args.folders]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
