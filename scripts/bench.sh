#!/usr/bin/env bash
# Benchmarks mcscope against plain baselines on the same files, in one run, and
# writes BENCHMARKS.md (median of RUNS runs, ratios, peak RSS).
#
#   scripts/bench.sh            # 50 MB and 200 MB sessions grown from the largest corpus file
#   RUNS=3 scripts/bench.sh     # fewer runs
#   scripts/bench.sh --report   # rewrite BENCHMARKS.md from the last run's measurements
#   scripts/bench.sh --growth   # only the growth in requests (its section of BENCHMARKS.md)
#   scripts/bench.sh --growth-report   # rewrite that section from the last growth run
#   BASE_BIN=/path/to/old/mcscope scripts/bench.sh --growth   # the same, beside an older build
#
# Needs python3, jq, tmux and /usr/bin/time (GNU time); claude-code-log (PyPI) is
# measured when installed (`pip install claude-code-log`), else its row says so.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${RUNS:-5}
SHARED=${MCSCOPE_SHARED:-$ROOT/../shared}
SRC="$SHARED/corpus/claude-code/marot__spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl"
OUT=$ROOT/target/bench
mkdir -p "$OUT"

# Growth in requests (issue 21): each command on a small and a large session of
# the same shape, the two taking turns run by run; the ratio of the medians is
# what counts (8x the requests, target <= 10x the time). Shapes from
# scripts/make-many-requests.py: many short turns in one view (no compaction:
# the hard case), one long turn (make-long-turn.py), a Messages API body.
growth() {
  local bin=$1 tag=$2 runs=${RUNS_GROWTH:-3}
  local g=$OUT/growth
  mkdir -p "$g"
  for n in 2000 16000; do
    [ -s "$g/many$n.jsonl" ] || python3 scripts/make-many-requests.py claude $n "$g/many$n.jsonl"
    [ -s "$g/turn$n.jsonl" ] || python3 scripts/make-long-turn.py $n "$g/turn$n.jsonl"
  done
  # The issue's target: a 40,000-message body in at most 10x the 5,000 one's time.
  for n in 5000 40000; do
    [ -s "$g/api$n.json" ] || python3 scripts/make-many-requests.py api $n "$g/api$n.json"
  done
  # pair NAME SMALL LARGE ARGS...: alternating timed runs of both sizes.
  pair() {
    local name=$1 small=$2 large=$3; shift 3
    for _ in $(seq "$runs"); do
      for f in "$small" "$large"; do
        local sz; sz=$(basename "$f"); sz=${sz%%.*}
        /usr/bin/time -f "$tag $name ${sz} %e %M" -o "$OUT/time.txt" "$bin" "$@" "$f" >/dev/null 2>"$OUT/stderr.txt" || true
        cat "$OUT/time.txt" >> "$OUT/growth.txt"
      done
    done
  }
  pair timeline-json "$g/many2000.jsonl" "$g/many16000.jsonl" timeline --format json
  pair evidence-json "$g/many2000.jsonl" "$g/many16000.jsonl" evidence --format json
  pair compare-json "$g/turn2000.jsonl" "$g/turn16000.jsonl" compare --format json
  pair compare-json "$g/many2000.jsonl" "$g/many16000.jsonl" compare --format json
  pair api-timeline-text "$g/api5000.json" "$g/api40000.json" timeline --preset api
  # Issue 41 item 5: every format at 2,000 and 16,000 requests, CPU (user +
  # sys) and peak RSS against max(file size, 64 MB).
  for n in 2000 16000; do
    [ -s "$g/gemini$n.jsonl" ] || python3 scripts/make-many-requests.py gemini $n "$g/gemini$n.jsonl"
    [ -s "$g/body$n.json" ] || python3 scripts/make-many-requests.py api $n "$g/body$n.json"
    [ -s "$g/opencode$n.db" ] || python3 scripts/make-opencode-big.py $n "$g/opencode$n.db" 2000
  done
  cpu() {
    local name=$1 small=$2 large=$3; shift 3
    for _ in $(seq "$runs"); do
      for f in "$small" "$large"; do
        local sz; sz=$(basename "$f"); sz=${sz%%.*}
        local bytes; bytes=$(stat -c %s "$f")
        if command -v perf >/dev/null 2>&1; then
          # perf's task clock (every thread's CPU, in ms) is finer than
          # time's 10 ms ticks, which a 2,000-request run is a few of.
          /usr/bin/time -f "%M" -o "$OUT/rss.txt" perf stat -x, -e task-clock -o "$OUT/clock.txt" \
            "$bin" "$@" "$f" >/dev/null 2>"$OUT/stderr.txt" || true
          local ms; ms=$(grep task-clock "$OUT/clock.txt" | cut -d, -f1)
          echo "$tag $name ${sz} $(python3 -c "print($ms / 1000)") 0 $(cat "$OUT/rss.txt") $bytes" >> "$OUT/cpu.txt"
        else
          /usr/bin/time -f "$tag $name ${sz} %U %S %M $bytes" -o "$OUT/time.txt" "$bin" "$@" "$f" >/dev/null 2>"$OUT/stderr.txt" || true
          cat "$OUT/time.txt" >> "$OUT/cpu.txt"
        fi
      done
    done
  }
  local shape ext
  for shape in many gemini body opencode; do
    ext=jsonl
    case $shape in body) ext=json ;; opencode) ext=db ;; esac
    cpu plan-json "$g/${shape}2000.$ext" "$g/${shape}16000.$ext" plan --format json
    cpu timeline-text "$g/${shape}2000.$ext" "$g/${shape}16000.$ext" timeline
    cpu evidence-json "$g/${shape}2000.$ext" "$g/${shape}16000.$ext" evidence --format json
  done
}

# Puts the section in FILE (its first line is its "## " heading) into
# BENCHMARKS.md in place of the section of that heading, up to the next one, or
# at the end.
put_section() {
python3 - "$1" <<'PY'
import os, sys
text = open(sys.argv[1]).read()
heading = text.split("\n", 1)[0]
md = open("BENCHMARKS.md").read() if os.path.exists("BENCHMARKS.md") else ""
start = md.find(heading + "\n")
if start >= 0:
    end = md.find("\n## ", start + 1)
    md = md[:start] + text + ("\n" + md[end + 1:] if end >= 0 else "")
else:
    md = md.rstrip("\n") + "\n\n" + text
open("BENCHMARKS.md", "w").write(md)
PY
}

cpu_report() {
python3 - "$OUT" <<'PY'
import statistics, sys, os, re
out = sys.argv[1]
rows = {}
for line in open(os.path.join(out, "cpu.txt")):
    tag, name, size, user, sys_, rss, size_b = line.split()
    shape = re.match(r"[a-z]+", size).group(0)
    rows.setdefault((tag, name, shape), {}).setdefault(size, []).append(
        (float(user) + float(sys_), int(rss), int(size_b)))
desc = {"many": "Claude Code JSONL", "gemini": "Gemini CLI JSONL", "body": "Messages API body",
        "opencode": "OpenCode database"}
lines = ["## Growth and memory by format (issue 41 item 5)", "",
         "Made by `scripts/bench.sh --growth`: `plan`, text `timeline` and `evidence` on each format at "
         "2,000 and 16,000 requests (`scripts/make-many-requests.py claude|gemini|api`, "
         "`scripts/make-opencode-big.py N OUT 2000`), the sizes taking turns; CPU is every thread's (perf's task clock where perf is "
         "installed, else user + sys), the median of the runs. Targets: 16,000 requests in at most 10x the CPU of 2,000; peak RSS at most "
         "max(file size, 64 MB). (The JSON timeline lists every cleared id on every row, so its output, "
         "and its cost, grow with the view by definition where a plan fires: it is not in this table.)", "",
         "| build | command | format | CPU 2,000 s | CPU 16,000 s | ratio | RSS 16,000 MB | file MB | RSS bound |",
         "|---|---|---|---:|---:|---:|---:|---:|---|"]
for (tag, name, shape), by in rows.items():
    sizes = sorted(by, key=lambda z: int(re.sub(r"\D", "", z)))
    if len(sizes) < 2:
        continue
    a, b = by[sizes[0]], by[sizes[-1]]
    ca, cb = statistics.median(x[0] for x in a), statistics.median(x[0] for x in b)
    rss = max(x[1] for x in b) / 1024
    fmb = b[0][2] / 1e6
    bound = max(fmb, 64)
    ok = "holds" if rss <= bound else f"**over** ({rss / bound:.1f}x)"
    lines.append(f"| {tag} | `{name}` | {desc.get(shape, shape)} | {ca:.3f} | {cb:.3f} | "
                 f"**{cb / max(ca, 0.001):.1f}x** | {rss:.0f} | {fmb:.1f} | {ok} |")
text = "\n".join(lines) + "\n"
open(os.path.join(out, "cpu.md"), "w").write(text)
print(text)
PY
put_section "$OUT/cpu.md"
}


growth_report() {
python3 - "$OUT" <<'PY'
import statistics, sys, os, re
out = sys.argv[1]
rows = {}
for line in open(os.path.join(out, "growth.txt")):
    tag, name, size, secs, rss = line.split()
    shape = re.match(r"[a-z]+", size).group(0)
    rows.setdefault((tag, name, shape), {}).setdefault(size, []).append(float(secs))
desc = {
    "many": "short turns in one view",
    "turn": "one long turn",
    "api": "Messages API body",
}
def n_of(size):
    m = re.match(r"([a-z]+)(\d+)", size)
    return m.group(1), int(m.group(2))
lines = ["## Growth in requests", "",
         "Made by `scripts/bench.sh --growth`: each command on a small and a large session of one shape "
         "(`scripts/make-many-requests.py`, `scripts/make-long-turn.py`), the two sizes taking turns run by run, "
         "median of the runs; the ratio of the medians first (target: 8x the requests or messages in at most "
         "10x the time). "
         "`many`: turns of a prompt and three small tool calls, no compaction (one view that grows with the "
         "session); `turn`: one turn of N small calls; `api`: a Messages API body of N messages (one tool use "
         "and its result per pair).", "",
         "| build | command | shape | sizes | ratio of time | ratio of size | small s | large s |",
         "|---|---|---|---|---:|---:|---:|---:|"]
for (tag, name, _), by in rows.items():
    sizes = sorted(by, key=lambda z: n_of(z)[1])
    if len(sizes) < 2:
        continue
    a, b = sizes[0], sizes[-1]
    ma, mb = statistics.median(by[a]), statistics.median(by[b])
    kind, na = n_of(a)
    _, nb = n_of(b)
    unit = "messages" if kind == "api" else "requests"
    lines.append(f"| {tag} | `{name}` | {desc.get(kind, kind)} | {na:,} / {nb:,} {unit} | "
                 f"**{mb / ma:.1f}x** | {nb / na:.0f}x | {ma:.2f} | {mb:.2f} |")
text = "\n".join(lines) + "\n"
open(os.path.join(out, "growth.md"), "w").write(text)
print(text)
PY
put_section "$OUT/growth.md"
}

if [ "${1:-}" = "--growth-report" ]; then growth_report; exit 0; fi
if [ "${1:-}" = "--growth" ]; then
  cargo build --release --quiet
  : > "$OUT/growth.txt"
  : > "$OUT/cpu.txt"
  if [ -n "${BASE_BIN:-}" ]; then growth "$BASE_BIN" before; fi
  growth "$ROOT/target/release/mcscope" this
  growth_report
  cpu_report
  exit 0
fi

if [ "${1:-}" != "--report" ]; then
cargo build --release --quiet
BIN=$ROOT/target/release/mcscope
for mb in 50 200; do
  [ -s "$OUT/big$mb.jsonl" ] || python3 "$SHARED/bench/make-big-session.py" "$SRC" "$mb" "$OUT/big$mb.jsonl" >/dev/null
done

cat > "$OUT/pyloop.py" <<'PY'
import json, sys
n = 0
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        json.loads(line)
        n += 1
print(n)
PY

# run NAME CMD...: RUNS timed runs with GNU time; one "name seconds maxrss_kb" line each.
run() {
  local name=$1; shift
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "$name %e %M" -o "$OUT/time.txt" "$@" >/dev/null 2>"$OUT/stderr.txt" || true
    cat "$OUT/time.txt" >> "$OUT/times.txt"
  done
}

: > "$OUT/times.txt"
F=$OUT/big50.jsonl
run "mcscope-timeline-50" "$BIN" timeline "$F" --format json
# The ratio's two sides take turns, run by run, so a slow spell of the machine
# (other work on a core) weighs on both alike.
F=$OUT/big200.jsonl
for _ in $(seq "$RUNS"); do
  RUNS=1 run "mcscope-timeline-200" "$BIN" timeline "$F" --format json
  RUNS=1 run "python-json-loads-200" python3 "$OUT/pyloop.py" "$F"
done
run "jq-200" jq -c 'select(.type=="user") | .uuid' "$F"
if command -v claude-code-log >/dev/null 2>&1; then
  # One run: it takes tens of seconds.
  RUNS=1 run "claude-code-log-200" claude-code-log convert "$F" -o "$OUT/ccl.html"
fi

# First frame of the TUI: from starting it in a fresh tmux pane until the pane
# shows its first screen (the progress bar while the file loads).
first_frame() {
  local sock=mcscope-bench-$$-$RANDOM
  local t0 t1
  t0=$(date +%s%N)
  tmux -L "$sock" -f /dev/null new-session -d -s b -x 200 -y 50 "$BIN $F; sleep 5"
  for _ in $(seq 2000); do
    if tmux -L "$sock" capture-pane -p -t b 2>/dev/null | grep -q -e "loading" -e "request "; then break; fi
    sleep 0.002
  done
  t1=$(date +%s%N)
  tmux -L "$sock" kill-server 2>/dev/null || true
  echo "tui-first-frame-200 $(python3 -c "print(($t1-$t0)/1e9)") 0" >> "$OUT/times.txt"
}
if command -v tmux >/dev/null 2>&1; then
  for _ in $(seq "$RUNS"); do first_frame; done
fi

cargo bench --quiet --bench keystrokes -- "$F" > "$OUT/keystrokes.txt" 2>/dev/null || true
# The stress case: one turn of 3,000 tool calls (plans cost more the longer the turn).
[ -s "$OUT/long-turn.jsonl" ] || python3 scripts/make-long-turn.py 3000 "$OUT/long-turn.jsonl"
cargo bench --quiet --bench keystrokes -- "$OUT/long-turn.jsonl" > "$OUT/keystrokes-long.txt" 2>/dev/null || true
# Growth in requests (its own section; `--growth` runs it alone).
: > "$OUT/growth.txt"
: > "$OUT/cpu.txt"
growth "$BIN" this
growth_report >/dev/null
cpu_report >/dev/null

fi

python3 - "$OUT" "$RUNS" <<'PY'
import statistics, sys, os, platform, subprocess, datetime
out, runs = sys.argv[1], int(sys.argv[2])
rows = {}
for line in open(os.path.join(out, "times.txt")):
    name, secs, rss = line.split()
    rows.setdefault(name, []).append((float(secs), int(rss)))
med = {k: statistics.median(s for s, _ in v) for k, v in rows.items()}
rss = {k: max(r for _, r in v) for k, v in rows.items()}
size = {mb: os.path.getsize(os.path.join(out, f"big{mb}.jsonl")) for mb in (50, 200)}
m200 = med["mcscope-timeline-200"]
def ratio(name):
    if name not in med:
        return "-"
    r = m200 / med[name]
    return f"{r:.2f}x" if r >= 0.1 else f"1/{1 / r:.0f}"
lines = []
w = lines.append
w("# Benchmarks\n")
w(f"Made by `scripts/bench.sh` on {datetime.date.today()} ({platform.machine()}, {os.cpu_count()} cores); "
  f"median of {runs} runs, every command on the same files in the same invocation "
  "(mcscope timeline and the Python loop on 200 MB take turns, run by run). "
  f"Inputs: the largest corpus session grown by `make-big-session.py` to {size[50]/1e6:.0f} MB and {size[200]/1e6:.0f} MB.\n")
w("| command (200 MB file) | median s | peak RSS MB | mcscope timeline as a fraction of it |")
w("|---|---:|---:|---:|")
labels = [
    ("mcscope-timeline-200", "`mcscope timeline big200.jsonl --format json > /dev/null`"),
    ("python-json-loads-200", "Python loop: `json.loads` every line"),
    ("jq-200", "`jq -c 'select(.type==\"user\") \\| .uuid'`"),
    ("claude-code-log-200", "`claude-code-log convert big200.jsonl -o out.html` (1 run)"),
]
for key, label in labels:
    if key in med:
        w(f"| {label} | {med[key]:.2f} | {rss[key]/1024:.0f} | {ratio(key) if key != 'mcscope-timeline-200' else '1'} |")
    else:
        w(f"| {label} | not installed here: `pip install claude-code-log` | | |")
w("")
w(f"- Peak RSS of mcscope timeline on 200 MB: {rss['mcscope-timeline-200']/1024:.0f} MB = "
  f"{rss['mcscope-timeline-200']*1024/size[200]:.2f}x the file size (target <= 0.5x).")
w(f"- Linear growth: timeline on 50 MB {med['mcscope-timeline-50']:.2f} s, on 200 MB {m200:.2f} s: "
  f"{m200/med['mcscope-timeline-50']:.1f}x for {size[200]/size[50]:.1f}x the bytes.")
if "tui-first-frame-200" in med:
    w(f"- TUI first frame (the progress screen) on the 200 MB file, measured in tmux from starting the pane "
      f"(tmux's own start-up included): median {med['tui-first-frame-200']*1000:.0f} ms (target <= 300 ms).")
ks = open(os.path.join(out, "keystrokes.txt")).read().strip()
if ks:
    w("\nKeystrokes once loaded (`cargo bench --bench keystrokes -- big200.jsonl`: 1,000 actions, each a "
      "re-plan and a full redraw on a 200x50 TestBackend, run as the event loop runs them: action, take finished "
      "background work, draw; target p99 <= 16 ms). Requests over 256 KB get their bodies read, printed and "
      "diffed on a worker thread and the footer's fired marks on another, both at a lower priority. "
      "'back to back' sends the next key at once; 'paced' waits for the background diff first and times the "
      "frame that shows it on its own, and how long after the key it appears; 'while the compare panel computes' "
      "opens and closes the compare panel (`c`, Esc) first and times only the keys pressed while its rows are "
      "still being computed in the background (which waits while keys arrive; the last pass turns that wait off):\n")
    w("```")
    w(ks)
    w("```")
ks = open(os.path.join(out, "keystrokes-long.txt")).read().strip()
if ks:
    w("\nThe stress case, not a target: one turn of 3,000 tool calls (`scripts/make-long-turn.py 3000`, "
      "8 MB). A plan at request k runs the engine from the turn's start, so its cost grows with the turn, and "
      "the last requests' views hold every call (6 MB bodies to diff in the background):\n")
    w("```")
    w(ks)
    w("```")
growth = os.path.join(out, "growth.md")
if os.path.exists(growth):
    lines.append("")
    lines.append(open(growth).read().rstrip("\n"))
open("BENCHMARKS.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
