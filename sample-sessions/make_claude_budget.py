#!/usr/bin/env python3
"""Regenerate claude-budget.jsonl: a Claude Code 2.1.17 session in which the token-budget microcompact fires.

Deterministic: no randomness, fixed ids and timestamps. Run from anywhere:

    python3 sample-sessions/make_claude_budget.py

The session: a user asks why the integration tests of a Go service flake; the assistant makes six sequential
tool calls (two Bash runs, three Reads, one of the Bash runs failing with is_error) whose results are large,
then answers; the user asks for the fix; the assistant edits a file, runs the tests again and answers.

The `microcompact_boundary` record that Claude Code's budget plan writes is computed here by hand from the
rule of SPEC §5, never through mcscope:

- tokens of a result = round(len/4) over its text (JavaScript rounding, half up; UTF-16 length);
- eligible = results of Read, Bash, Grep, Glob, WebSearch, WebFetch, Edit, Write (errors included);
- usage gate = the last response's recorded input + cache_creation + cache_read + output >= 135,000
  (the 2.1.17 warning threshold: 135,000 up to 2.1.20);
- pre_tokens = sum over the eligible results; keep the last 3; walk the rest oldest first, clearing while
  pre_tokens - saved > 40,000; fire only when saved >= 20,000.

The recorded usage is made to cross 135,000 with the sixth response (its prompt carried the first five
results), so the plan first fires at request 7, the one that sends the sixth result: the record is written
after that result and before response 7, whose first line has the record's uuid as parentUuid (as in real
files). The usage counts a 30,000-token base (system prompt, tool definitions, CLAUDE.md) that transcripts
never hold.
"""
import hashlib
import json
import os
import uuid
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "claude-budget.jsonl")

CWD = "/home/dev/ledgerd"
SID = "3f9c1e27-8b4d-4a61-9e0c-5d2b7a18c6f3"
VERSION = "2.1.17"
MODEL = "claude-opus-4-5-20251101"
START = "2026-02-03T10:12:41.205Z"
BASE = 30_000               # system prompt + tools + CLAUDE.md: in the usage, never in the transcript

# SPEC §5 budget numbers at 2.1.17.
WARNING = 135_000
BUDGET = 40_000
MIN_SAVING = 20_000
KEEP = 3
ELIGIBLE = {"Read", "Bash", "Grep", "Glob", "WebSearch", "WebFetch", "Edit", "Write"}

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


# ----------------------------------------------------------------------------- ids, time, sizes

def det_uuid(label):
    return str(uuid.UUID(bytes=hashlib.sha1(("budget:" + label).encode()).digest()[:16], version=4))


def b62(label, n):
    h = int.from_bytes(hashlib.sha256(("budget:" + label).encode()).digest(), "big")
    out = []
    for _ in range(n):
        h, r = divmod(h, 62)
        out.append(B62[r])
    return "".join(out)


def ts(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def utf16_len(s):
    return len(s.encode("utf-16-le")) // 2


def est_tokens(text):
    """Claude Code's roughTokenCountEstimation: Math.round(length / 4), half up."""
    return (utf16_len(text) + 2) // 4


def exactly(lines, chars):
    """The lines joined, cut to `chars` UTF-16 units (all ASCII here but the Read arrow, which is one unit)."""
    text = ""
    i = 0
    while utf16_len(text) < chars:
        text += lines(i) + "\n"
        i += 1
    return text[:chars]


def numbered(i, line):
    """Claude Code's Read format: line number right-aligned to 6, U+2192, the line."""
    return f"{i + 1:>6}\u2192{line}"


# ----------------------------------------------------------------------------- the contents

PKGS = ["settle", "ledger", "clock", "batch", "payout", "journal"]
TESTS = ["TestSettlementWindow", "TestBatchCloseAtMidnight", "TestPayoutRetry", "TestJournalReplay",
         "TestClockSkewTolerance", "TestSettlementRollover"]


def test_log(i):
    t = TESTS[i % len(TESTS)]
    p = PKGS[i % len(PKGS)]
    if i % 37 == 17:
        return (f"    {p}_test.go:{80 + i % 300}: settlement window closed at 23:59:59.999 but batch "
                f"{1000 + i} was stamped 00:00:00.001 (want same day)")
    if i % 37 == 18:
        return f"--- FAIL: {t} ({(i % 900) / 100:.2f}s)"
    return f"=== RUN   {t}/case_{i:05d}\n--- PASS: {t}/case_{i:05d} ({(i % 70) / 100:.2f}s)"


def race_log(i):
    if i % 29 == 0:
        return "=================="
    if i % 29 == 1:
        return "WARNING: DATA RACE"
    if i % 29 == 2:
        return f"Write at 0x00c000{i:06x} by goroutine {40 + i % 17}:"
    if i % 29 == 3:
        return f"  ledgerd/internal/settle.(*Clock).Advance()\n      {CWD}/internal/settle/clock.go:{61 + i % 5} +0x{i:x}"
    if i % 29 == 4:
        return f"Previous read at 0x00c000{i:06x} by goroutine {12 + i % 9}:"
    return f"  ledgerd/internal/settle.(*Batch).Close()\n      {CWD}/internal/settle/batch.go:{120 + i % 40} +0x{i * 7:x}"


def go_source(name):
    def line(i):
        k = i % 23
        if k == 0:
            return f"// {name}{i}: part of the settlement pipeline; see docs/settlement.md section {i % 9}."
        if k == 1:
            return f"func (b *Batch) step{i}(ctx context.Context, now time.Time) error {{"
        if k == 2:
            return f"\tif now.Sub(b.openedAt) > b.window {{ return errWindowClosed{i % 4} }}"
        if k == 3:
            return f"\tb.mu.Lock(); defer b.mu.Unlock()"
        if k == 4:
            return f"\tb.clock.Advance(now) // reads b.clock.now without the clock's own lock"
        if k == 5:
            return "}"
        return f"\tentries = append(entries, Entry{{ID: {i}, Amount: amt.Mul(rate{k}), At: b.clock.Now()}})"
    return lambda i: numbered(i, line(i))


def git_log(i):
    if i % 19 == 0:
        return f"commit {hashlib.sha1(str(i).encode()).hexdigest()}\nAuthor: Dana Ruiz <dana@example.com>"
    if i % 19 == 1:
        return "    settle: share one Clock between batches (saves an allocation per batch)"
    return f"{'+' if i % 2 else '-'}\tb.clock = {'shared' if i % 2 else 'newClock()'}  // hunk {i}"


# (label, lead text, tool, input, content maker, target est_tokens, is_error)
CALLS = [
    ("r1", "I'll run the integration tests a few times to catch a failure.",
     "Bash", {"command": "go test ./... -run Integration -count=5 2>&1 | tail -n 4000",
              "description": "Run integration tests 5 times"},
     test_log, 22_000, False),
    ("r2", "The failures are all in settlement around midnight. Let me read the batch code.",
     "Read", {"file_path": f"{CWD}/internal/settle/batch.go"}, go_source("batch"), 24_000, False),
    ("r3", None,
     "Bash", {"command": "go test -race ./internal/settle/... -count=3",
              "description": "Run settle tests with the race detector"},
     race_log, 16_000, True),
    ("r4", "A data race on the clock. Reading clock.go.",
     "Read", {"file_path": f"{CWD}/internal/settle/clock.go"}, go_source("clock"), 26_000, False),
    ("r5", None,
     "Read", {"file_path": f"{CWD}/internal/settle/batch_test.go"}, go_source("batch_test"), 20_000, False),
    ("r6", "When did batches start sharing the clock?",
     "Bash", {"command": "git log -p --since=2026-01-27 -- internal/settle/",
              "description": "Recent changes to settle"},
     git_log, 14_000, False),
]


# ----------------------------------------------------------------------------- records

recs = []
state = {"last": None}


def common(kind):
    return {"parentUuid": state["last"], "isSidechain": False, "userType": "external", "cwd": CWD,
            "sessionId": SID, "version": VERSION, "gitBranch": "main", "slug": "quiet-settling-clock",
            "type": kind}


def usage(inp, cc, cr, out):
    return {"input_tokens": inp, "cache_creation_input_tokens": cc, "cache_read_input_tokens": cr,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": cc},
            "output_tokens": out, "service_tier": "standard"}


def prompt(label, text, at):
    u = det_uuid("prompt-" + label)
    recs.append({"type": "file-history-snapshot", "messageId": u,
                 "snapshot": {"messageId": u, "trackedFileBackups": {},
                              "timestamp": ts(at + timedelta(milliseconds=41))},
                 "isSnapshotUpdate": False})
    r = common("user")
    r.update({"message": {"role": "user", "content": text}, "uuid": u, "timestamp": ts(at),
              "thinkingMetadata": {"maxThinkingTokens": 31999}, "todos": [], "permissionMode": "default"})
    recs.append(r)
    state["last"] = u


def assistant(resp, idx, block, at, stop, use):
    u = det_uuid(f"asst-{resp}-{idx}")
    r = common("assistant")
    r["message"] = {"model": MODEL, "id": "msg_01" + b62("msg" + resp, 22), "type": "message",
                    "role": "assistant", "content": [block], "stop_reason": stop, "stop_sequence": None,
                    "usage": use}
    r["requestId"] = "req_011C" + b62("req" + resp, 20)
    r["uuid"] = u
    r["timestamp"] = ts(at)
    recs.append(r)
    state["last"] = u
    return u


def tool_result(tid, content, at, src, is_error):
    u = det_uuid("result-" + tid)
    block = {"tool_use_id": tid, "type": "tool_result", "content": content}
    if is_error:
        block["is_error"] = True
    r = common("user")
    r.update({"message": {"role": "user", "content": [block]}, "uuid": u, "timestamp": ts(at),
              "sourceToolAssistantUUID": src})
    if is_error:
        r["toolUseResult"] = "Error: " + content[:200]
    recs.append(r)
    state["last"] = u


def microcompact_boundary(at, pre_tokens, saved, ids):
    u = det_uuid("microcompact-boundary")
    r = common("system")
    r.update({"subtype": "microcompact_boundary", "content": "Context microcompacted", "isMeta": False,
              "timestamp": ts(at), "uuid": u, "level": "info",
              "microcompactMetadata": {"trigger": "auto", "preTokens": pre_tokens, "tokensSaved": saved,
                                       "compactedToolIds": ids, "clearedAttachmentUUIDs": []}})
    recs.append(r)
    state["last"] = u


# ----------------------------------------------------------------------------- the budget rule, by hand

def budget_plan(results, last_usage):
    """SPEC §5 at one request: `results` = [(id, tool, tokens)] in tool_use order (all answered here)."""
    eligible = [(i, t) for i, tool, t in results if tool in ELIGIBLE]
    pre = sum(t for _, t in eligible)
    keep = {i for i, _ in eligible[-KEEP:]}
    saved, cleared = 0, []
    for i, t in eligible:
        if i in keep:
            continue
        if pre - saved > BUDGET:
            cleared.append(i)
            saved += t
    fires = last_usage is not None and last_usage >= WARNING and saved >= MIN_SAVING
    return fires, pre, saved, cleared


def main():
    t = datetime.strptime(START, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    prompt("1", "The integration tests in ledgerd flake about one run in five since last Tuesday. "
                "Find out why.", t)
    cache_read, cache_create = BASE - 2_000, 2_000   # the base is cached; this turn's prompt is new
    results = []            # (id, tool, est_tokens) in tool_use order
    last_usage = None       # recorded total of the last response
    boundary = None
    for n, (resp, lead, tool, inp, lines, tokens, is_err) in enumerate(CALLS, 1):
        content = exactly(lines, 4 * tokens)
        assert est_tokens(content) == tokens, (resp, est_tokens(content))
        tid = "toolu_01" + b62("tool" + resp, 22)
        # Request n (the result of call n-1 is pending): before its response, the harness's budget check.
        fires, pre, saved, cleared = budget_plan(results, last_usage)
        assert not fires, f"the plan must not fire before request 7 (request {n})"
        if n > 1:
            cache_read += cache_create
            cache_create = results[-1][2] + 60
        t += timedelta(seconds=3, milliseconds=211 + 97 * n)
        out_tokens = 70 + 11 * n
        use = usage(3, cache_create, cache_read, out_tokens)
        if lead:
            assistant(resp, 0, {"type": "text", "text": lead}, t, None, use)
            t += timedelta(milliseconds=512)
        src = assistant(resp, 1, {"type": "tool_use", "id": tid, "name": tool, "input": inp}, t, "tool_use", use)
        last_usage = 3 + cache_create + cache_read + out_tokens
        t += timedelta(seconds=1 + n, milliseconds=37 * n)
        tool_result(tid, content, t, src, is_err)
        results.append((tid, tool, tokens))
        print(f"request {n}: response usage {last_usage:>7}  {tid} {tool:<4} {tokens:>6} tokens")

    # Request 7 sends the sixth result: the usage gate holds now, and the plan fires.
    fires, pre, saved, cleared = budget_plan(results, last_usage)
    assert fires, (last_usage, pre, saved)
    t += timedelta(milliseconds=124)
    microcompact_boundary(t, pre, saved, cleared)
    boundary = (pre, saved, cleared)

    answer = (
        "Found it. Since commit `settle: share one Clock between batches`, every batch calls "
        "`b.clock.Advance(now)` under its own `b.mu`, not the clock's lock, so two batches closing around "
        "midnight race on `Clock.now` (the race detector shows it in `clock.go` and `batch.go`). One batch "
        "then stamps its entries with the other's time and lands on the next day.\n\n"
        "Fix: give `Clock` its own mutex (or go back to one clock per batch)."
    )
    t += timedelta(seconds=14, milliseconds=802)
    # The cleared results broke the cache right after the base: the rest is written again.
    cache_read = BASE
    cache_create = 2_000 + sum(x[2] for x in results) - saved + 60 * len(results)
    assistant("r7", 0, {"type": "text", "text": answer}, t, "end_turn", usage(3, cache_create, cache_read, 196))

    t += timedelta(minutes=2, seconds=48, milliseconds=330)
    prompt("2", "Makes sense. Give Clock its own mutex and add a regression test.", t)
    edit_id = "toolu_01" + b62("tool" + "r8", 22)
    t += timedelta(seconds=6, milliseconds=90)
    cache_read += cache_create
    cache_create = 260
    src = assistant("r8", 0, {"type": "tool_use", "id": edit_id, "name": "Edit",
                              "input": {"file_path": f"{CWD}/internal/settle/clock.go",
                                        "old_string": "type Clock struct {\n\tnow time.Time",
                                        "new_string": "type Clock struct {\n\tmu  sync.Mutex\n\tnow time.Time"}},
                    t, "tool_use", usage(3, cache_create, cache_read, 142))
    t += timedelta(milliseconds=388)
    tool_result(edit_id, f"The file {CWD}/internal/settle/clock.go has been updated successfully.", t, src, False)
    test_id = "toolu_01" + b62("tool" + "r9", 22)
    t += timedelta(seconds=4, milliseconds=12)
    cache_read += cache_create
    cache_create = 180
    src = assistant("r9", 0, {"type": "tool_use", "id": test_id, "name": "Bash",
                              "input": {"command": "go test -race ./internal/settle/... -count=20",
                                        "description": "Race-test settle 20 times"}},
                    t, "tool_use", usage(3, cache_create, cache_read, 88))
    t += timedelta(seconds=41, milliseconds=506)
    tool_result(test_id, "ok  \tledgerd/internal/settle\t38.114s", t, src, False)
    t += timedelta(seconds=5, milliseconds=640)
    cache_read += cache_create
    cache_create = 120
    assistant("r10", 0, {"type": "text", "text": "Done: `Clock` now locks its own `mu` in `Advance` and `Now`, "
                                                  "and 20 race-detector runs of the settle tests pass."},
              t, "end_turn", usage(3, cache_create, cache_read, 51))

    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for r in recs:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")

    pre, saved, cleared = boundary
    print(f"microcompact_boundary before request 7: preTokens {pre}, tokensSaved {saved}, "
          f"compactedToolIds {cleared}")
    print(f"file: {os.path.getsize(OUT)} bytes; {len(recs)} records")


if __name__ == "__main__":
    main()
