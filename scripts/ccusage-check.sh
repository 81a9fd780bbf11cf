#!/usr/bin/env bash
# Cross-checks mcscope's recorded bill (its token totals, SPEC §9a) against ccusage's session report
# on the same Claude Code transcripts.
#
#   scripts/ccusage-check.sh [PATH…]      PATHs: transcripts or folders of them
#                                         (default: ../shared/corpus/claude-code)
#
# The files are copied into a temporary fake `~/.claude/projects` tree (HOME and CLAUDE_CONFIG_DIR point
# there, so neither tool reads or writes a real harness folder): one project per folder, or, for the
# corpus's flat names `owner__repo__rest.jsonl`, one per `owner__repo`, with `X__subagents__agent-Y.jsonl`
# laid out as Claude Code 2.1 does (`X/subagents/agent-Y.jsonl`). Then `mcscope compare FOLDER -j` and
# `ccusage claude session --json --offline` run over it, and each session's input, output, cache-write
# and cache-read tokens (main thread + sub-agents) are set side by side. Dollars are not compared:
# ccusage prices each model from its own table.
#
# ccusage is not a dependency: without it on PATH the script says so and exits 0 (install it with
# `npm install -g ccusage@20.0.24`, which ships a Linux binary). Environment: MCSCOPE_BIN (default:
# target/debug/mcscope, built when missing), CCUSAGE (default: ccusage).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

ccusage=${CCUSAGE:-ccusage}
if ! command -v "$ccusage" >/dev/null 2>&1; then
  echo "ccusage is not installed: nothing to compare (npm install -g ccusage@20.0.24 installs it)"
  exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed to read the two reports" >&2; exit 2; }
bin=${MCSCOPE_BIN:-$root/target/debug/mcscope}
if [ ! -x "$bin" ]; then
  cargo build --quiet
fi

[ $# -gt 0 ] || set -- "$root/../shared/corpus/claude-code"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
projects="$tmp/home/.claude/projects"
mkdir -p "$projects"

# place FILE PROJECT NAME: copies FILE to PROJECT/NAME, a flat `X__subagents__agent-Y.jsonl` to
# PROJECT/X/subagents/agent-Y.jsonl.
place() {
  local file=$1 project=$2 name=$3
  case "$name" in
    *__subagents__*)
      local session=${name%%__subagents__*} agent=${name##*__subagents__}
      mkdir -p "$projects/$project/$session/subagents"
      cp "$file" "$projects/$project/$session/subagents/$agent"
      ;;
    *)
      mkdir -p "$projects/$project"
      cp "$file" "$projects/$project/$name"
      ;;
  esac
}

n=0
for path in "$@"; do
  if [ -d "$path" ]; then
    base=$(basename "$path")
    while IFS= read -r -d '' f; do
      rel=${f#"$path"/}
      name=$(basename "$f")
      if [ "$rel" != "$name" ]; then
        # A real tree: kept as it is under its folder.
        mkdir -p "$projects/$base/$(dirname "$rel")"
        cp "$f" "$projects/$base/$rel"
      elif [[ "$name" == *__*__* ]]; then
        # The corpus's flat names: owner__repo__rest.jsonl.
        project=${name%%__*}
        rest=${name#*__}
        project="$project"__${rest%%__*}
        place "$f" "$project" "${rest#*__}"
      else
        place "$f" "$base" "$name"
      fi
      n=$((n + 1))
    done < <(find "$path" -type f -name '*.jsonl' -print0 | sort -z)
  elif [ -f "$path" ]; then
    place "$path" files "$(basename "$path")"
    n=$((n + 1))
  else
    echo "no such file or folder: $path" >&2
    exit 2
  fi
done
echo "copied $n transcript(s) into a temporary ~/.claude/projects"

HOME="$tmp/home" CLAUDE_CONFIG_DIR="$tmp/home/.claude" "$bin" compare "$projects" --policy idle -j -q \
  > "$tmp/mcscope.json"
HOME="$tmp/home" CLAUDE_CONFIG_DIR="$tmp/home/.claude" "$ccusage" claude session --json --offline \
  > "$tmp/ccusage.json" 2> "$tmp/ccusage.err" || {
  echo "ccusage failed:" >&2
  cat "$tmp/ccusage.err" >&2
  exit 1
}

python3 - "$tmp/mcscope.json" "$tmp/ccusage.json" "$("$ccusage" --version 2>/dev/null | head -1)" <<'PY'
import json, os, sys

mc = json.load(open(sys.argv[1]))
cc = json.load(open(sys.argv[2]))
version = sys.argv[3]

def ours(rec):
    """Main thread + sub-agents: what a bill over every file of the session holds."""
    parts = [rec] + ([rec["subagents"]] if rec.get("subagents") else [])
    s = lambda k: sum(p[k] for p in parts)
    return {"input": s("input"), "output": s("output"),
            "cache_write": s("cache_write_5m") + s("cache_write_1h"),
            "cache_read": s("cache_read"), "responses": s("responses")}

mine = {os.path.splitext(os.path.basename(x["path"]))[0]: ours(x["recorded"]) for x in mc["sessions"]}
skipped = {os.path.splitext(os.path.basename(x["path"]))[0]: x["reason"] for x in mc["skipped"]}
theirs = {}
for x in cc.get("sessions", []):
    theirs[x["sessionId"]] = {"input": x["inputTokens"], "output": x["outputTokens"],
                             "cache_write": x["cacheCreationTokens"], "cache_read": x["cacheReadTokens"]}

keys = ("input", "output", "cache_write", "cache_read")
same = differ = 0
totals = {"mcscope": dict.fromkeys(keys, 0), "ccusage": dict.fromkeys(keys, 0)}
print(f"{'session':<58} {'field':<12} {'mcscope':>12} {'ccusage':>12}")
for sid in sorted(set(mine) | set(theirs)):
    a, b = mine.get(sid), theirs.get(sid)
    name = sid if len(sid) <= 58 else sid[:55] + "..."
    if a is None:
        # ccusage reports a Claude Code 2.0 sibling `agent-*.jsonl` as a session of its own;
        # mcscope bills it under the session its records name. Its tokens still count in the totals.
        why = skipped.get(sid, "not a main-thread session: billed under its parent's sub-agents")
        print(f"{name:<58} only ccusage lists it as a session (mcscope: {why})")
        for k in keys:
            totals["ccusage"][k] += b[k]
            print(f"{'':<58} {k:<12} {'':>12} {b[k]:>12,}")
        continue
    if b is None:
        if a["responses"]:
            print(f"{name:<58} only mcscope counts it ({a['responses']} responses)")
        continue
    for k in keys:
        totals["mcscope"][k] += a[k]
        totals["ccusage"][k] += b[k]
    diffs = [k for k in keys if a[k] != b[k]]
    if diffs:
        differ += 1
        for k in diffs:
            print(f"{name:<58} {k:<12} {a[k]:>12,} {b[k]:>12,}")
    else:
        same += 1
print()
print(f"{version}: {same} session(s) agree on all four token totals, {differ} differ")
print("over every file:")
for k in keys:
    a, b = totals["mcscope"][k], totals["ccusage"][k]
    print(f"  {k:<12} mcscope {a:>14,}   ccusage {b:>14,}   {'same' if a == b else f'differ by {a - b:+,}'}")
PY
