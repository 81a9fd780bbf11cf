#!/bin/sh
# Runs one fuzz target for SECONDS (default 600) on its corpus, with the
# dictionary, and keeps the log in fuzz/logs/<target>-<date>.log.
# Usage: fuzz/run.sh TARGET [SECONDS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
t=$1
secs=${2:-600}
cd "$here/.."
mkdir -p "$here/logs" "$here/corpus/$t"
log="$here/logs/$t-$(date +%Y%m%d-%H%M%S).log"
export RUSTC_BOOTSTRAP=1
# One thread for the loader's parallel parse: keeps the other core free.
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1}
start=$(date +%s)
set +e
cargo fuzz run -s none "$t" "$here/corpus/$t" -- \
  -max_total_time="$secs" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
  -dict="$here/dict/mcscope.dict" -print_final_stats=1 >"$log" 2>&1
rc=$?
set -e
end=$(date +%s)
echo "target=$t rc=$rc wall=$((end - start))s log=$log" | tee -a "$here/logs/runs.txt"
grep -E '^stat::number_of_executed_units|^Done [0-9]+ runs|DONE' "$log" | tail -3
