#!/bin/bash
# score_all.sh SEEDLINT_TREE OUT_DIR
#
# Re-runs the labelled studies D, E, F (F1+F2) and G (G1+G2) of /work/main/bench/labelled
# with the seedlint source tree SEEDLINT_TREE (put first on PYTHONPATH, run with
# /work/main/.venv's python) and scores them with bench/labelled/score.py.
#
# Trees: /work/studyD/<name>, /work/studyE/<name>, /work/studyF/<name> (F1 and F2),
# /work/studyG/<name> (G1 and G2); <name> = the part of owner/name after '/' (score.py's
# --root convention). Recreated from `fetch` snapshots by bench/labelled/extract_trees.sh.
#
# Per repository (one at a time, nice -n 10), as each study's REPORT.md did:
#   python -m seedlint check --no-cache --output-format json --select RNG0 --exit-zero <tree>
#       > OUT/<study>/<name>.json       (--select RNG003 where commits.txt says "RNG003 only":
#                                         D's NVIDIA/TransformerEngine)
#   (cd <tree> && python -m seedlint check --no-cache --output-format concise --select RNG002,RNG004 .)
#       > OUT/<study>/<name>.wholerepo.txt
# then per study
#   python3 /work/main/bench/labelled/score.py --reports OUT/<study> --root /work/study<X>
#       --labels '/work/main/bench/labelled/<X>*/*.tsv'      > OUT/<study>/score.txt (printed)
# A summary of the per-rule tables goes to OUT/tables.txt.
set -u
if [ $# -ne 2 ]; then echo "usage: $0 SEEDLINT_TREE OUT_DIR" >&2; exit 2; fi
TREE=$(cd "$1" && pwd) || exit 2
OUT=$2; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
LAB=$(cd "$(dirname "$0")" && pwd)
PY=${SEEDLINT_PYTHON:-$LAB/../../.venv/bin/python}
export PYTHONPATH=$TREE
where=$("$PY" -c 'import seedlint, os; print(os.path.dirname(seedlint.__file__))') || exit 1
if [ "$where" != "$TREE/seedlint" ]; then echo "seedlint imported from $where, not $TREE/seedlint" >&2; exit 1; fi
{
  echo "tree: $TREE"
  echo "commit: $(git -C "$TREE" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "dirty: $(git -C "$TREE" status --porcelain 2>/dev/null | wc -l) changed paths"
  echo "seedlint: $where"
  echo "date: $(date -u +%FT%TZ)"
} > "$OUT/run-info.txt"
cat "$OUT/run-info.txt"
: > "$OUT/tables.txt"

for study in D E F G; do
  root=/work/study$study
  mkdir -p "$OUT/$study"
  for commits in "$LAB"/"$study"*/commits.txt; do
    while read -r repo commit rest; do
      [ -n "$repo" ] || continue
      case "$repo" in \#*) continue;; esac
      repo=${repo/+//}; name=${repo#*/}
      select=RNG0
      case "$rest" in *"RNG003 only"*) select=RNG003;; esac
      dir=$root/$name
      if [ ! -d "$dir" ]; then echo "warning: $study $repo: no tree $dir" >&2; continue; fi
      t0=$(date +%s.%N)
      nice -n 10 "$PY" -m seedlint check --no-cache --output-format json --select "$select" \
          --exit-zero "$dir" > "$OUT/$study/$name.json" 2> "$OUT/$study/$name.stderr"
      rc=$?
      (cd "$dir" && nice -n 10 "$PY" -m seedlint check --no-cache --output-format concise \
          --select RNG002,RNG004 .) > "$OUT/$study/$name.wholerepo.txt" 2> "$OUT/$study/$name.wholerepo.stderr"
      t1=$(date +%s.%N)
      n=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$OUT/$study/$name.json" 2>/dev/null || echo "?")
      w=$(grep -cE ' RNG00[0-9] ' "$OUT/$study/$name.wholerepo.txt")
      printf '%s %-45s select=%-6s rc=%s findings=%s wholerepo(RNG002,RNG004)=%s %.1fs\n' \
        "$study" "$repo" "$select" "$rc" "$n" "$w" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" | tee -a "$OUT/runs.txt"
      [ -s "$OUT/$study/$name.stderr" ] && sed 's/^/    stderr: /' "$OUT/$study/$name.stderr" | head -5
    done < "$commits"
  done
  python3 "$LAB/score.py" --reports "$OUT/$study" --root "$root" \
      --labels "$LAB/$study*/*.tsv" > "$OUT/$study/score.txt" 2> "$OUT/$study/score.stderr"
  echo
  echo "===== study $study (labels $LAB/$study*/*.tsv, root $root)"
  cat "$OUT/$study/score.stderr" "$OUT/$study/score.txt"
  { echo "===== study $study"; sed -n '1,/^(n\/a/p' "$OUT/$study/score.txt"; echo; } >> "$OUT/tables.txt"
done
