#!/bin/sh
# Builds the seed corpus of every target in fuzz/corpus/<target>/ (git-ignored):
#   - sample-sessions/**/*.jsonl of the crate,
#   - shared/corpus/claude-code/*.jsonl under 200 KB whole, the bigger ones as
#     their first 50 lines,
#   - shared/corpus/qwen-code/*.jsonl,
#   - tests/fixtures/hostile/* (minus make.py),
#   - tests/fixtures/qwen/*.jsonl (send kinds, bridged calls, media, restarts),
#   - tests/fixtures/fuzz/*.bin (the minimised findings),
#   - fuzz/seeds/handmade/* (committed: every record kind the loaders know);
# and for config, sidecar and surrogate fuzz/seeds/<target>/* (surrogate: all of the above too).
# Usage: fuzz/seed.sh [SHARED_CORPUS_DIR]   (default /work/shared/corpus)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
shared=${1:-/work/shared/corpus}
seeds="$here/corpus/_seeds"
rm -rf "$seeds"
mkdir -p "$seeds"
add() { # add SRC NAME
  cp "$1" "$seeds/$2"
}
(cd "$root/sample-sessions" && find . -name '*.jsonl') | while read -r f; do
  add "$root/sample-sessions/$f" "sample-$(echo "${f#./}" | tr / _)"
done
for f in "$shared"/claude-code/*.jsonl; do
  [ -e "$f" ] || continue
  n=$(basename "$f")
  if [ "$(wc -c < "$f")" -lt 204800 ]; then
    add "$f" "claude-$n"
  else
    head -n 50 "$f" > "$seeds/claude-head50-$n"
  fi
done
for f in "$shared"/qwen-code/*.jsonl; do
  [ -e "$f" ] && add "$f" "qwen-$(basename "$f")"
done
for f in "$root"/tests/fixtures/hostile/*; do
  case "$f" in *.py) continue ;; esac
  add "$f" "hostile-$(basename "$f")"
done
for f in "$root"/tests/fixtures/qwen/*.jsonl; do
  add "$f" "qwen-fixture-$(basename "$f")"
done
for f in "$root"/tests/fixtures/fuzz/*.bin; do
  [ -e "$f" ] && add "$f" "fuzz-fixture-$(basename "$f")"
done
for f in "$here"/seeds/handmade/*; do
  add "$f" "handmade-$(basename "$f")"
done
for t in load_claude load_qwen load_messages pipeline; do
  mkdir -p "$here/corpus/$t"
  cp -n "$seeds"/* "$here/corpus/$t/"
done
# The small-file parsers and the surrogate repair: their own committed seeds
# (fuzz/seeds/<target>/); the repair also reads the loaders' lines.
for t in config sidecar surrogate; do
  mkdir -p "$here/corpus/$t"
  cp -n "$here/seeds/$t"/* "$here/corpus/$t/"
done
cp -n "$seeds"/* "$here/corpus/surrogate/"
echo "seeds: $(ls "$seeds" | wc -l) files, $(du -sh "$seeds" | cut -f1)"
ls -S -l "$seeds" | head -5
