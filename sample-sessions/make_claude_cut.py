#!/usr/bin/env python3
"""Regenerate claude-cut.jsonl: a Claude Code 2.1.332 session whose return after a long pause
recorded what the client did to the request itself (the facts mcscope applies in every plan).

Deterministic: no randomness, fixed ids and timestamps. Run from anywhere:

    python3 sample-sessions/make_claude_cut.py

The session (cwd /home/dev/ledger): a user asks why a ledger report drifts; five sequential tool calls,
each in its own response, then an answer with a thinking block; 80 minutes later Claude Code writes, before
the next prompt, a `tool_results_cut` attachment, a `thinking_stripped` attachment and the resume note.

Requests (one per response, SPEC §2):
  1 Read ledger.py           toolu_R1   2,400 chars (60 lines of 40)     -> cut
  2 Bash pytest -q           toolu_E1     900 chars, is_error            -> not cut: "error"
  3 Bash git status --short  toolu_S1      11 chars ("M ledger.py")      -> not cut: "not_shorter" (11 <= 33)
  4 mcp__tracker__get_issue  toolu_M1   1,500 chars                      -> cut (an MCP tool is eligible)
  5 Grep "round("            toolu_G1   1,200 chars (30 lines of 40)     -> cut
  6 the answer (thinking + text)
  7 the answer after the return: the three records belong to it.

The stand-in is "[Old tool result content cleared]": 33 UTF-16 units, non-empty and <= 200, so the record
counts. The client's estimate (roughTokens and client_estimated_cleared_input_tokens) is chars / 4 of the
three it cut: 2,400/4 + 1,500/4 + 1,200/4 = 600 + 375 + 300 = 1,275. The reply to request 7 records
`applied_edits: []` with `client_cut_tool_uses: 3`: the client cut three results and sent no edit.

Usage (input 4 each; W = cache writes, R = cache reads), so that request 7 is an observed break:
  1 W 12,000 R 0 | 2 W 700 R 12,000 | 3 W 300 R 12,700 | 4 W 50 R 13,000 | 5 W 400 R 13,050 | 6 W 350 R 13,450
  7 W 13,900 R 0: expected E = R6 + W6 = 13,450 + 350 = 13,800; 0 < 0.95 x 13,800 and the drop 13,800 >= 2,000.
  Explanations: ttl (80 minutes >= the 5-minute TTL of the last write) and client_cut (the cut record).
The thinking of response 6 is left out of the wire of request 7 (thinking_stripped), on both sides.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "claude-cut.jsonl")

CWD = "/home/dev/ledger"
SID = "5b0c2e7a-9d41-4f63-8a2e-1c7d3f9b6e05"
VERSION = "2.1.332"
MODEL = "claude-opus-4-7"
STAND_IN = "[Old tool result content cleared]"

records = []
n = 0
minute = 0.0


def ts(m):
    # 2026-11-30T09:00:00.000Z plus m minutes, to the millisecond.
    total_ms = int(round(m * 60_000))
    s, ms = divmod(total_ms, 1000)
    mi, s = divmod(s, 60)
    h, mi = divmod(mi, 60)
    return f"2026-11-30T{9 + h:02d}:{mi:02d}:{s:02d}.{ms:03d}Z"


def rec(kind, after_minutes, **fields):
    global n, minute
    minute += after_minutes
    n += 1
    r = {
        "parentUuid": records[-1]["uuid"] if records else None,
        "isSidechain": False,
        "userType": "external",
        "cwd": CWD,
        "sessionId": SID,
        "version": VERSION,
        "entrypoint": "cli",
        "type": kind,
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": ts(minute),
    }
    r.update(fields)
    records.append(r)


def usage(w, r):
    return {"input_tokens": 4, "cache_creation_input_tokens": w, "cache_read_input_tokens": r,
            "output_tokens": 60,
            "cache_creation": {"ephemeral_5m_input_tokens": w, "ephemeral_1h_input_tokens": 0}}


def assistant(msg_id, blocks, u, after=0.1, extra=None):
    for b in blocks:
        message = {"model": MODEL, "id": msg_id, "type": "message", "role": "assistant",
                   "content": [b], "stop_reason": None, "usage": u}
        if extra:
            message.update(extra)
        rec("assistant", after, message=message)
        after = 0.0


def call(msg_id, tool_id, name, inp, u):
    assistant(msg_id, [{"type": "tool_use", "id": tool_id, "name": name, "input": inp}], u)


def result(tool_id, text, error=False):
    block = {"tool_use_id": tool_id, "type": "tool_result", "content": text}
    if error:
        block["is_error"] = True
    rec("user", 0.2, message={"role": "user", "content": [block]})


def lines(prefix, count, width=40):
    # count lines of exactly `width` chars joined by "\n": count * width + (count - 1) chars... so
    # each line is width - 1 chars plus its newline, and the last one width chars: count * width in all.
    out = []
    for i in range(count):
        body = f"{prefix} {i + 1:03d} "
        w = width if i == count - 1 else width - 1
        out.append((body + "." * w)[:w])
    return "\n".join(out)


read_text = lines("ledger.py", 60)            # 2,400 chars
error_text = ("E" * 899) + "!"                 # 900 chars
status_text = "M ledger.py"                    # 11 chars
issue_text = lines("issue #412", 38)[:1500]    # 1,520 chars cut to 1,500
grep_text = lines("ledger.py:round(", 30)      # 1,200 chars
assert (len(read_text), len(error_text), len(status_text), len(issue_text), len(grep_text)) == (
    2400, 900, 11, 1500, 1200)
assert len(STAND_IN) == 33

rec("user", 0.0, message={"role": "user", "content": "Why does the monthly ledger report drift by a cent?"})
call("msg_01CUTa1", "toolu_R1", "Read", {"file_path": "/home/dev/ledger/ledger.py"}, usage(12_000, 0))
result("toolu_R1", read_text)
call("msg_01CUTa2", "toolu_E1", "Bash", {"command": "pytest -q"}, usage(700, 12_000))
result("toolu_E1", error_text, error=True)
call("msg_01CUTa3", "toolu_S1", "Bash", {"command": "git status --short"}, usage(300, 12_700))
result("toolu_S1", status_text)
call("msg_01CUTa4", "toolu_M1", "mcp__tracker__get_issue", {"id": 412}, usage(50, 13_000))
result("toolu_M1", issue_text)
call("msg_01CUTa5", "toolu_G1", "Grep", {"pattern": "round(", "path": "/home/dev/ledger"},
     usage(400, 13_050))
result("toolu_G1", grep_text)
assistant("msg_01CUTa6", [
    {"type": "thinking", "thinking": "round() is banker's rounding; the report sums rounded lines.",
     "signature": "c2lnbmF0dXJl"},
    {"type": "text", "text": "The report rounds each line before summing; sum first, then round."},
], usage(350, 13_450))

# 80 minutes later: the return. Claude Code writes the cut, the thinking strip and the note first.
rec("attachment", 80.0, attachment={
    "type": "tool_results_cut", "callIds": ["toolu_R1", "toolu_E1", "toolu_S1", "toolu_M1", "toolu_G1"],
    "standIn": STAND_IN, "roughTokens": 600 + 375 + 300})
rec("attachment", 0.0, attachment={"type": "thinking_stripped", "scope": "all", "cause": "return_after_idle"})
rec("attachment", 0.0, attachment={
    "type": "critical_system_reminder",
    "content": "This chat has resumed after a long pause. Earlier tool results may be out of date."})
rec("user", 0.0, message={"role": "user", "content": "Back. Can you make that fix?"})
assistant("msg_01CUTa7", [
    {"type": "thinking", "thinking": "Change the report to sum, then round.", "signature": "c2ln"},
    {"type": "text", "text": "Yes: I will sum the raw amounts and round once."},
], usage(13_900, 0), extra={"context_management": {
    "applied_edits": [], "client_cut_tool_uses": 3,
    "client_estimated_cleared_input_tokens": 600 + 375 + 300}})

with open(OUT, "w", encoding="utf-8", newline="\n") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
print(f"wrote {OUT}: {len(records)} records")
