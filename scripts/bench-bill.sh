#!/usr/bin/env bash
# `mcscope bill DIR --by day` against ccusage `daily` over one folder of
# real-shaped sessions (SPEC §16 item 8; BENCHMARKS.md "The bill"): each
# command RUNS times, in turn, CPU by `perf stat -e task-clock`; prints each
# median and mcscope's ratio to ccusage's.
#
#   scripts/bench-bill.sh [N]        N sessions, default 400
#   RUNS=5 CCUSAGE=/path/to/ccusage scripts/bench-bill.sh
#
# The folder is made once under target/bench/bill-N: every Claude Code session
# of the corpus in turn, each copy with its own session, message, request and
# record ids and its days shifted, in ten project folders of a fake
# `~/.claude/projects`, which ccusage reads under a temporary HOME.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
N=${1:-400}
SHARED=${MCSCOPE_SHARED:-$PWD/../shared}
HOME_DIR=target/bench/bill-$N
DIR=$HOME_DIR/.claude/projects
if [ ! -d "$DIR" ]; then
  mkdir -p "$DIR"
  python3 - "$SHARED/corpus/claude-code" "$DIR" "$N" <<'PY'
import datetime, json, os, sys, glob
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = sorted(f for f in glob.glob(os.path.join(src, "*.jsonl")) if "agent-" not in os.path.basename(f))
IDS = {"uuid", "parentUuid", "logicalParentUuid", "leafUuid", "id", "requestId", "messageId", "promptId", "sessionId", "tool_use_id"}
def rewrite(v, sfx, days):
    if isinstance(v, dict):
        o = {}
        for k, x in v.items():
            if k in IDS and isinstance(x, str) and x:
                o[k] = x + sfx
            elif k == "timestamp" and isinstance(x, str):
                try:
                    t = datetime.datetime.fromisoformat(x.replace("Z", "+00:00")) + datetime.timedelta(days=days)
                    o[k] = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
                except ValueError:
                    o[k] = x
            else:
                o[k] = rewrite(x, sfx, days)
        return o
    if isinstance(v, list):
        return [rewrite(x, sfx, days) for x in v]
    return v
for i in range(n):
    f = files[i % len(files)]
    d = os.path.join(out, f"-home-dev-proj{i % 10}")
    os.makedirs(d, exist_ok=True)
    with open(f) as r, open(os.path.join(d, f"s{i:04d}.jsonl"), "w") as w:
        for line in r:
            try:
                rec = json.loads(line)
            except ValueError:
                w.write(line)
                continue
            w.write(json.dumps(rewrite(rec, f"-{i}", i // len(files)), separators=(",", ":")) + "\n")
PY
fi
cargo build --release --quiet
CCUSAGE=${CCUSAGE:-$(command -v ccusage || true)}
cpu() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}'; }
out=$(mktemp)
for _ in $(seq "$RUNS"); do
  echo "mcscope-bill-day $(cpu target/release/mcscope bill "$DIR" --by day -j -q)" >> "$out"
  if [ -n "$CCUSAGE" ]; then
    echo "ccusage-daily $(HOME=$PWD/$HOME_DIR CLAUDE_CONFIG_DIR=$PWD/$HOME_DIR/.claude cpu "$CCUSAGE" claude daily --json --offline)" >> "$out"
  fi
done
[ -n "$CCUSAGE" ] || echo "ccusage: not installed here (npm install ccusage@20.0.24; CCUSAGE=path)"
echo "$N sessions, $(du -sm "$DIR" | cut -f1) MB"
python3 - "$out" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, ms = line.split()
    d[name].append(float(ms))
m = statistics.median(d["mcscope-bill-day"])
for name, v in d.items():
    med = statistics.median(v)
    print(f"{name:17} median {med:9.1f} ms  (range {min(v):.1f}-{max(v):.1f})  mcscope / it {m / med:6.2f}")
PY
rm -f "$out"
