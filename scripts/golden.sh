#!/usr/bin/env bash
# Golden JSON: proof that a change kept (or only added to) what mcscope prints.
#
#   scripts/golden.sh write NAME          outputs of the current tree → target/golden/NAME/
#   scripts/golden.sh diff OLD NEW [--added-ok]
#                                         compares two trees; --added-ok lets NEW carry keys
#                                         (and files) that OLD did not have, nothing else
#   scripts/golden.sh check REV [--added-ok]
#                                         writes REV (built in a temporary worktree) and the
#                                         working tree, then diffs them
#
# What is written, for every sample and corpus session: `plan`, `timeline`, `wire` and `evidence` JSON under
# every plan kind × delivery, and `explain` JSON for every tool id of a sample and the first 20 of
# each corpus file. A command that exits non-zero is kept as its exit status and stderr, so a
# refusal (e.g. cache-edits on a qwen session) is checked too. The repository's absolute path is
# written as <ROOT>, so trees made in different checkouts compare.
#
# Environment: MCSCOPE_BIN (default: `cargo build` and target/debug/mcscope — debug builds also
# check the incremental engine against full passes), MCSCOPE_CORPUS (default ../shared/corpus),
# GOLDEN_KINDS and GOLDEN_DELIVERIES (space-separated, to add kinds as they land).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

kinds=${GOLDEN_KINDS:-"auto idle forced size count budget"}
deliveries=${GOLDEN_DELIVERIES:-"rewrite cache-edits"}
corpus=${MCSCOPE_CORPUS:-../shared/corpus}

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

sessions() {
  # Samples first, then the corpus (skipped with a note when absent).
  find sample-sessions -name '*.jsonl' -o -name '*.json' ! -name '*.mcscope.json' | grep -v '\.mcscope\.json$' | sort
  if [ -d "$corpus" ]; then
    find "$corpus" -name '*.jsonl' | sort
  else
    echo "golden: no corpus at $corpus; samples only" >&2
  fi
}

# Tool ids of a session in file order (tool_use / functionCall ids), one a line.
tool_ids() {
  python3 - "$1" <<'PY'
import json, sys
seen, out = set(), []
def walk(v):
    if isinstance(v, dict):
        if v.get("type") == "tool_use" and isinstance(v.get("id"), str):
            yield v["id"]
        fc = v.get("functionCall")
        if isinstance(fc, dict) and isinstance(fc.get("id"), str):
            yield fc["id"]
        for x in v.values():
            yield from walk(x)
    elif isinstance(v, list):
        for x in v:
            yield from walk(x)
path = sys.argv[1]
text = open(path, encoding="utf-8", errors="replace").read()
docs = []
try:
    docs = [json.loads(text)]
except Exception:
    for line in text.splitlines():
        try:
            docs.append(json.loads(line))
        except Exception:
            pass
for d in docs:
    for i in walk(d):
        if i not in seen:
            seen.add(i)
            out.append(i)
print("\n".join(out))
PY
}

# run OUT CMD...: stdout to OUT.json, or exit status + stderr to OUT.err.
run() {
  local out=$1
  shift
  local rc=0
  "$@" >"$out.json" 2>"$out.stderr" || rc=$?
  if [ "$rc" -ne 0 ]; then
    { echo "exit $rc"; cat "$out.stderr"; } >"$out.err"
    rm -f "$out.json"
  fi
  rm -f "$out.stderr"
  # Trees written in different checkouts compare: the checkout's path is <ROOT>.
  for f in "$out.json" "$out.err"; do
    [ -f "$f" ] && sed -i "s#$root#<ROOT>#g" "$f"
  done
  return 0
}

write() {
  local name=$1
  local bin=${MCSCOPE_BIN:-}
  if [ -z "$bin" ]; then
    cargo build --quiet
    bin=$root/target/debug/mcscope
  fi
  local dir=target/golden/$name
  rm -rf "$dir"
  mkdir -p "$dir"
  local n=0
  while IFS= read -r s; do
    local tag
    tag=$(echo "$s" | sed 's#^\.\./shared/corpus/##; s#^sample-sessions/#sample/#; s#[/ ]#__#g')
    local d=$dir/$tag
    mkdir -p "$d"
    for k in $kinds; do
      for del in $deliveries; do
        run "$d/plan.$k.$del" "$bin" plan "$s" --policy "$k" --delivery "$del" --format json
        run "$d/timeline.$k.$del" "$bin" timeline "$s" --policy "$k" --delivery "$del" --format json
        run "$d/wire.$k.$del" "$bin" wire "$s" --policy "$k" --delivery "$del"
        run "$d/evidence.$k.$del" "$bin" evidence "$s" --policy "$k" --delivery "$del" --format json
      done
    done
    local limit=20
    case "$s" in sample-sessions/*) limit=100000 ;; esac
    local i=0
    while IFS= read -r id; do
      [ -n "$id" ] || continue
      i=$((i + 1))
      [ "$i" -le "$limit" ] || break
      run "$d/explain.$(printf '%03d' "$i")" "$bin" explain "$s" "$id" --format json
    done < <(tool_ids "$s")
    n=$((n + 1))
  done < <(sessions)
  echo "golden: wrote $n sessions to $dir ($(find "$dir" -type f | wc -l) files)"
}

diff_trees() {
  local old=$1 new=$2 added_ok=${3:-}
  python3 - "$old" "$new" "$added_ok" <<'PY'
import json, os, sys
old, new, added_ok = sys.argv[1], sys.argv[2], sys.argv[3] == "--added-ok"

def files(top):
    out = set()
    for d, _, fs in os.walk(top):
        for f in fs:
            out.add(os.path.relpath(os.path.join(d, f), top))
    return out

def compare(a, b, where, problems):
    """Whether b keeps everything of a (and, unless added_ok, adds nothing)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a.keys()) != [k for k in b.keys() if k in a]:
            problems.append(f"{where}: key order changed")
        for k in a:
            if k not in b:
                problems.append(f"{where}.{k}: removed")
            else:
                compare(a[k], b[k], f"{where}.{k}", problems)
        extra = [k for k in b if k not in a]
        if extra and not added_ok:
            problems.append(f"{where}: added {extra}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            problems.append(f"{where}: {len(a)} items -> {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{where}[{i}]", problems)
    elif a != b or type(a) is not type(b):
        problems.append(f"{where}: {json.dumps(a)[:120]} -> {json.dumps(b)[:120]}")

fo, fn = files(old), files(new)
bad = 0
for f in sorted(fo - fn):
    print(f"missing: {f}")
    bad += 1
for f in sorted(fn - fo):
    if not added_ok:
        print(f"added: {f}")
        bad += 1
for f in sorted(fo & fn):
    pa, pb = os.path.join(old, f), os.path.join(new, f)
    ta, tb = open(pa, "rb").read(), open(pb, "rb").read()
    if ta == tb:
        continue
    if not (added_ok and f.endswith(".json")):
        print(f"differs: {f}")
        bad += 1
        continue
    problems = []
    try:
        compare(json.loads(ta), json.loads(tb), "$", problems)
    except ValueError as e:
        problems.append(f"not JSON: {e}")
    if problems:
        bad += 1
        print(f"differs: {f}")
        for p in problems[:10]:
            print(f"  {p}")
        if len(problems) > 10:
            print(f"  (+{len(problems) - 10} more)")
same = len(fo & fn)
print(f"golden: {same} files compared, {bad} differ" + (" (added keys allowed)" if added_ok else ""))
sys.exit(1 if bad else 0)
PY
}

cmd=${1:-}
case "$cmd" in
  write)
    [ $# -eq 2 ] || usage
    write "$2"
    ;;
  diff)
    [ $# -ge 3 ] || usage
    diff_trees "target/golden/$2" "target/golden/$3" "${4:-}"
    ;;
  check)
    [ $# -ge 2 ] || usage
    rev=$2
    wt=$(mktemp -d)
    trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || true' EXIT
    git worktree add --detach "$wt" "$rev" >/dev/null
    # Build the old tree with this checkout's target dir for the dependencies.
    (cd "$wt" && CARGO_TARGET_DIR="$root/target/golden-build" cargo build --quiet)
    MCSCOPE_BIN="$root/target/golden-build/debug/mcscope" write base
    write head
    diff_trees target/golden/base target/golden/head "${3:-}"
    ;;
  *)
    usage
    ;;
esac
