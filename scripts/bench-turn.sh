#!/usr/bin/env bash
# Two builds of mcscope in turn on the same command, as BENCHMARKS.md's
# before/after tables are made: RUNS runs each, alternating, the CPU of each
# run by `perf stat -e task-clock`; prints the medians (ms), the ratio and each
# build's range.
#
#   scripts/bench-turn.sh OLD_BIN NEW_BIN RUNS -- timeline big.jsonl --format json
set -euo pipefail
[ $# -ge 4 ] && [ "$4" = "--" ] || { echo "usage: $0 OLD_BIN NEW_BIN RUNS -- ARGS…" >&2; exit 2; }
OLD=$1 NEW=$2 RUNS=$3; shift 4
cpu() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}'; }
old=() new=()
for _ in $(seq "$RUNS"); do old+=("$(cpu "$OLD" "$@")"); new+=("$(cpu "$NEW" "$@")"); done
python3 - "${old[*]}" "${new[*]}" <<'PY'
import statistics, sys
o = [float(x) for x in sys.argv[1].split()]
n = [float(x) for x in sys.argv[2].split()]
mo, mn = statistics.median(o), statistics.median(n)
print(f"before {mo:.2f} ms  after {mn:.2f} ms  after/before {mn / mo:.3f}  "
      f"(ranges {min(o):.2f}-{max(o):.2f} and {min(n):.2f}-{max(n):.2f})")
PY
