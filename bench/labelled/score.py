#!/usr/bin/env python3
"""Score seedlint's JSON reports against hand-made labels: per-rule TP/FP/FN, precision, recall.

Commands (issue 28's labelled set; the repositories are extracted snapshots, outside /work/main):

    # 1. one seedlint JSON report per repository, named after the repository's name
    mkdir -p /work/main-labels/reports
    for d in /work/labelled/*/; do
        n=$(basename "$d")
        /work/main/.venv/bin/seedlint check --no-cache --output-format json --select RNG0 \
            --exit-zero "$d" > /work/main-labels/reports/"$n".json
    done
    # 2. score every label file bench/labelled/*/*.tsv against those reports
    python3 bench/labelled/score.py --reports /work/main-labels/reports --root /work/labelled
    # (--check: exit 1 when a rule's precision or recall is below 0.95; --verbose: every match)

Label files: bench/labelled/<labeller>/<repo-name>.tsv, tab-separated, UTF-8, one header row
`repo path line rule expected why`, then one row per (call site, rule):

    repo      owner/name on GitHub, e.g. victoresque/pytorch-template
    path      the file, relative to the repository root, with `/` separators
    line      the 1-based line seedlint should report at (the first line of the call, or of the
              seed block's first seeding call for RNG004); for a notebook `C:R`, C the cell's
              1-based index among all cells (markdown included), R the 1-based row in that cell
    rule      RNG001 ... RNG008
    expected  yes (seedlint should report this rule here) or no (it should not)
    why       a short reason, from the code and its configs; a row corrected after seeing
              seedlint's output starts with `relabelled: <reason>`

Lines starting with `#` and blank lines are ignored. Scoring, per rule, over the labelled
repositories only: a finding at a `yes` row is a TP; a `yes` row with no finding is a FN; a
finding at a `no` row, or at a place no row names, is a FP (the latter are listed as
`unlabelled`, to be labelled by reading the code). Several findings of one rule at one place
count once. A labelled repository without a report is left out, with a warning. A
repository is found at `<root>/<name>` and its report at `<reports>/<name>.json`
(`name` = the part of `repo` after `/`), unless `--repo owner/name=DIR,REPORT` says otherwise.
Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import glob
import json
import os
import sys
from collections import defaultdict

RULES = [f"RNG00{i}" for i in range(1, 9)]
HERE = os.path.dirname(os.path.abspath(__file__))


def read_labels(pattern):
    labels = {}  # (repo, path, line, rule) -> (expected, why, file)
    for tsv in sorted(glob.glob(pattern)):
        with open(tsv, encoding="utf-8", newline="") as fh:
            rows = [r for r in csv.reader(fh, delimiter="\t") if r and not r[0].startswith("#")]
        if not rows:
            continue
        if [c.strip() for c in rows[0][:6]] != ["repo", "path", "line", "rule", "expected", "why"]:
            sys.exit(f"{tsv}: the header must be: repo path line rule expected why")
        for n, row in enumerate(rows[1:], 2):
            if len(row) < 6:
                sys.exit(f"{tsv}:{n}: 6 columns expected, got {len(row)}")
            repo, path, line, rule, expected, why = (c.strip() for c in row[:6])
            line = line[len("cell ") :] if line.startswith("cell ") else line
            if rule not in RULES or expected not in ("yes", "no"):
                sys.exit(f"{tsv}:{n}: bad rule {rule!r} or expected {expected!r}")
            key = (repo, path, line, rule)
            if key in labels:
                sys.exit(f"{tsv}:{n}: duplicate row for {key} (first in {labels[key][2]})")
            labels[key] = (expected, why, tsv)
    return labels


def read_findings(repo, repo_dir, report):
    with open(report, encoding="utf-8") as fh:
        data = json.load(fh)
    root = os.path.abspath(repo_dir)
    found = defaultdict(list)  # (repo, path, line, rule) -> [messages]
    for f in data:
        if f.get("code") not in RULES:
            continue
        path = os.path.relpath(os.path.abspath(f["filename"]), root).replace(os.sep, "/")
        row = f["location"]["row"]
        line = f"{f['cell']}:{row}" if f.get("cell") is not None else str(row)
        found[(repo, path, line, f["code"])].append(f.get("message", ""))
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--labels", default=os.path.join(HERE, "*", "*.tsv"), help="glob of TSV files")
    ap.add_argument(
        "--reports", default=os.path.join(HERE, "reports"), help="folder of <name>.json"
    )
    ap.add_argument("--root", default="/work/labelled", help="folder holding <name>/ checkouts")
    ap.add_argument("--repo", action="append", default=[], metavar="OWNER/NAME=DIR,REPORT")
    ap.add_argument("--check", action="store_true", help="exit 1 below 0.95 precision or recall")
    ap.add_argument("--verbose", action="store_true", help="list the true positives too")
    args = ap.parse_args(argv)

    labels = read_labels(args.labels)
    if not labels:
        sys.exit(f"no labels match {args.labels}")
    where = {}
    for spec in args.repo:
        name, _, rest = spec.partition("=")
        d, _, r = rest.partition(",")
        where[name] = (d, r)
    repos = sorted({k[0] for k in labels})
    found = {}
    missing = set()
    for repo in repos:
        name = repo.split("/")[-1]
        d, r = where.get(
            repo, (os.path.join(args.root, name), os.path.join(args.reports, name + ".json"))
        )
        if not os.path.exists(r):
            print(f"warning: {repo}: no report {r}: its labels are left out", file=sys.stderr)
            missing.add(repo)
            continue
        found.update(read_findings(repo, d, r))
    labels = {k: v for k, v in labels.items() if k[0] not in missing}
    repos = [r for r in repos if r not in missing]
    if not labels:
        sys.exit("no repository has a report")

    counts = {rule: {"TP": 0, "FP": 0, "FN": 0, "yes": 0, "no": 0} for rule in RULES}
    lines = []
    for key in sorted(set(labels) | set(found)):
        repo, path, line, rule = key
        c = counts[rule]
        lab = labels.get(key)
        if lab:
            c[lab[0]] += 1
        where_s = f"{repo} {path}:{line} {rule}"
        if key in found and lab and lab[0] == "yes":
            c["TP"] += 1
            if args.verbose:
                lines.append(f"TP  {where_s}")
        elif key in found:
            c["FP"] += 1
            why = f"labelled no: {lab[1]}" if lab else "unlabelled"
            lines.append(f"FP  {where_s}  [{why}]  seedlint: {found[key][0][:120]}")
        elif lab and lab[0] == "yes":
            c["FN"] += 1
            lines.append(f"FN  {where_s}  [{lab[1]}]")

    def ratio(a, b):
        return a / b if b else None

    def fmt(x):
        return "  n/a" if x is None else f"{x:5.3f}"

    print(f"{len(labels)} labelled rows, {len(repos)} repositories: {', '.join(repos)}")
    print(
        f"{'rule':7} {'yes':>4} {'no':>4} {'TP':>4} {'FP':>4} {'FN':>4} {'prec':>6} {'recall':>6}"
    )
    failed = False
    tot = defaultdict(int)
    for rule in RULES:
        c = counts[rule]
        for k in c:
            tot[k] += c[k]
        p, r = ratio(c["TP"], c["TP"] + c["FP"]), ratio(c["TP"], c["TP"] + c["FN"])
        failed |= any(x is not None and x < 0.95 for x in (p, r))
        print(
            f"{rule:7} {c['yes']:4} {c['no']:4} {c['TP']:4} {c['FP']:4} {c['FN']:4}"
            f" {fmt(p):>6} {fmt(r):>6}"
        )
    p, r = ratio(tot["TP"], tot["TP"] + tot["FP"]), ratio(tot["TP"], tot["TP"] + tot["FN"])
    print(
        f"{'all':7} {tot['yes']:4} {tot['no']:4} {tot['TP']:4} {tot['FP']:4} {tot['FN']:4}"
        f" {fmt(p):>6} {fmt(r):>6}"
    )
    print("(n/a: no labelled positive and no finding for that rule)")
    if lines:
        print()
        print("\n".join(lines))
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
