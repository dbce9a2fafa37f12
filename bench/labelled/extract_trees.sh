#!/bin/bash
# extract_trees.sh STUDYDIR OWNER/NAME COMMIT : extract a fetch snapshot at COMMIT into STUDYDIR/NAME
# (the snapshot first brought in with the `fetch` tool, which puts it under /work/.mirror)
# git archive first; if it fails (blobs missing from the snapshot), only the text files
# (.py .ipynb .yaml .yml .json .cfg .toml .txt .sh .md .ini) via ls-tree + cat-file, missing blobs listed.
set -u
root=$1; repo=$2; commit=$3
name=${repo#*/}; gd=/work/.mirror/${repo/\//+}/repo
dest=$root/$name
rm -rf "$dest"; mkdir -p "$dest"
if git --git-dir="$gd" archive "$commit" 2>/tmp/arch.err | tar -x -C "$dest" && [ ! -s /tmp/arch.err ] && [ "${PIPESTATUS[0]}" = 0 ]; then
  echo "$repo $commit archive $(find "$dest" -type f | wc -l) files"
  exit 0
fi
echo "$repo: archive failed: $(head -c 200 /tmp/arch.err)" >&2
rm -rf "$dest"; mkdir -p "$dest"
n=0; miss=0
while IFS=$'\t' read -r meta path; do
  set -- $meta; mode=$1; type=$2; sha=$3
  [ "$type" = blob ] || continue
  case "$path" in *.py|*.ipynb|*.yaml|*.yml|*.json|*.cfg|*.toml|*.txt|*.sh|*.md|*.ini) ;; *) continue;; esac
  [ "$mode" = 120000 ] && continue
  mkdir -p "$dest/$(dirname "$path")"
  if git --git-dir="$gd" cat-file blob "$sha" > "$dest/$path" 2>/dev/null; then n=$((n+1)); else rm -f "$dest/$path"; miss=$((miss+1)); echo "  missing text blob: $path" >&2; fi
done < <(git --git-dir="$gd" ls-tree -r "$commit")
echo "$repo $commit text-only $n files, $miss text blobs missing"
