#!/usr/bin/env bash
# The JSON timeline against ccusage, the line-scan floor and `wc -l` on one
# Claude Code session (SPEC §18.23; BENCHMARKS.md "The line-scan floor"): each
# command RUNS times, in turn, CPU by `perf stat -e task-clock`; prints each
# median and mcscope's ratio to it, then the peak RSS of mcscope and ccusage
# (one run each, GNU time).
#
#   scripts/bench-floor.sh [FILE]     FILE default: target/bench/big200.jsonl,
#                                     grown from the largest corpus session
#   RUNS=5 CCUSAGE=/path/to/ccusage scripts/bench-floor.sh
#
# ccusage (`npm install ccusage@20.0.24`) reads the file from a fake
# `~/.claude/projects` tree under a temporary HOME; without it its row says so.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
SHARED=${MCSCOPE_SHARED:-$PWD/../shared}
F=${1:-target/bench/big200.jsonl}
if [ ! -s "$F" ]; then
  mkdir -p "$(dirname "$F")"
  python3 "$SHARED/bench/make-big-session.py" \
    "$SHARED/corpus/claude-code/marot__spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl" 200 "$F" >/dev/null
fi
cargo build --release --quiet
FLOOR=$(cargo bench --no-run --bench floor 2>&1 | sed -n 's/.*(\(target\/release\/deps\/floor-[a-z0-9]*\)).*/\1/p' | head -1)
CCUSAGE=${CCUSAGE:-$(command -v ccusage || true)}
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
if [ -n "$CCUSAGE" ]; then
  mkdir -p "$HOME_DIR/.claude/projects/-bench"
  cp "$F" "$HOME_DIR/.claude/projects/-bench/00000000-0000-4000-8000-000000000000.jsonl"
fi
cpu() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}'; }
out=$(mktemp)
for _ in $(seq "$RUNS"); do
  echo "mcscope $(cpu target/release/mcscope timeline "$F" --format json)" >> "$out"
  echo "floor $(cpu "$FLOOR" "$F")" >> "$out"
  echo "wc $(cpu wc -l "$F")" >> "$out"
  if [ -n "$CCUSAGE" ]; then
    echo "ccusage $(HOME=$HOME_DIR CLAUDE_CONFIG_DIR=$HOME_DIR/.claude cpu "$CCUSAGE" claude session --json --offline)" >> "$out"
  fi
done
[ -n "$CCUSAGE" ] || echo "ccusage: not installed here (npm install ccusage@20.0.24; CCUSAGE=path)"
python3 - "$out" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, ms = line.split()
    d[name].append(float(ms))
m = statistics.median(d["mcscope"])
for name, v in d.items():
    med = statistics.median(v)
    print(f"{name:8} median {med:9.1f} ms  (range {min(v):.1f}-{max(v):.1f})  mcscope / it {m / med:6.2f}")
PY
rm -f "$out"
# Peak RSS, one run each (GNU time's maximum resident set size, in KB).
if [ -x /usr/bin/time ]; then
  rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
  echo "peak RSS: mcscope $(($(rss target/release/mcscope timeline "$F" --format json) / 1024)) MB, file $(($(stat -c %s "$F") >> 20)) MB"
  if [ -n "$CCUSAGE" ]; then
    echo "peak RSS: ccusage $(($(HOME=$HOME_DIR CLAUDE_CONFIG_DIR=$HOME_DIR/.claude rss "$CCUSAGE" claude session --json --offline) / 1024)) MB"
  fi
fi
