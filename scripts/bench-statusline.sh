#!/usr/bin/env bash
# The live line's targets (SPEC §12, issue 27), as ratios in one invocation, on a
# 200 MB transcript grown from a real corpus session:
#   warm  = a call after one line was appended / the first (cold) call   (target <= 1/20)
#   idle  = a call with nothing appended / `mcscope --version`          (target <= 2x)
# Each figure is the median of RUNS runs of the release build; the cold call
# runs with an empty cache folder every time. Prints the BENCHMARKS.md rows.
#
#   scripts/bench-statusline.sh          # RUNS=5
#   MB=50 RUNS=3 scripts/bench-statusline.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${RUNS:-5}
MB=${MB:-200}
SHARED=${MCSCOPE_SHARED:-$ROOT/../shared}
SRC="$SHARED/corpus/claude-code/marot__spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl"
OUT=$ROOT/target/bench/statusline
mkdir -p "$OUT"
cargo build --release -q
BIN=$ROOT/target/release/mcscope
BIG=$OUT/big-$MB.jsonl
[ -s "$BIG" ] || python3 "$SHARED/bench/make-big-session.py" "$SRC" "$MB" "$BIG" >/dev/null
STDIN=$(printf '{"transcript_path": "%s", "model": {"id": "claude-opus-4-5"}}' "$BIG")
export HOME=$OUT/home XDG_CACHE_HOME=$OUT/cache
mkdir -p "$HOME"
# One line to append: the transcript's own last line, again.
LAST=$(tail -n 1 "$BIG")
WORK=$OUT/work.jsonl

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# ns of one run of "$@" with $STDIN on stdin, stdout dropped.
timed() { local t0 t1; t0=$(now); printf '%s' "$STDIN" | "$@" >/dev/null; t1=$(now); echo $((t1 - t0)); }

cold=() warm=() idle=() version=()
for _ in $(seq "$RUNS"); do
  cp "$BIG" "$WORK"
  STDIN=$(printf '{"transcript_path": "%s", "model": {"id": "claude-opus-4-5"}}' "$WORK")
  rm -rf "$XDG_CACHE_HOME"
  cold+=("$(timed "$BIN" statusline)")
  printf '%s\n' "$LAST" >>"$WORK"
  warm+=("$(timed "$BIN" statusline)")
  idle+=("$(timed "$BIN" statusline)")
  version+=("$(timed "$BIN" --version)")
done
m() { printf '%s\n' "$@" | median; }
C=$(m "${cold[@]}") W=$(m "${warm[@]}") I=$(m "${idle[@]}") V=$(m "${version[@]}")
ms() { awk -v n="$1" 'BEGIN {printf "%.1f", n / 1e6}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.4f", a / b}'; }
echo "| call | median ms | ratio | target |"
echo "|---|---|---|---|"
echo "| first (cold) call, $MB MB | $(ms "$C") | 1 | |"
echo "| after one appended line | $(ms "$W") | $(ratio "$W" "$C") of cold | ≤ 0.05 |"
echo "| nothing appended | $(ms "$I") | $(ratio "$I" "$V")× \`--version\` | ≤ 2 |"
echo "| \`mcscope --version\` | $(ms "$V") | 1 | |"
