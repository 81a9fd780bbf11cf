#!/usr/bin/env python3
"""Regenerate claude-idle-server.jsonl: a Claude Code 2.1.332 session that comes back after 71 minutes.

Deterministic: no randomness, fixed ids and timestamps. Run from anywhere:

    python3 sample-sessions/make_claude_idle_server.py

The session (SPEC §13.S, worked by hand here, never through mcscope):

- Turn 1 (10:00): "Map the billing module". The assistant first calls TodoWrite (not a compactable tool,
  so Claude Code lists it in `exclude_tools`), then 32 compactable calls (Read, Grep, Bash in turn),
  each result exactly 6,000 ASCII chars: est_tokens = round(6000 / 4) = 1,500 each. Then an answer.
  Every assistant line has a numeric `apiBlockIndex` (S1: the reply before a return must have one).
- The return (11:16:xx, 71 minutes after the answer): a new prompt. 71 > 65 minutes, the prompt is a
  string, and the last assistant record before it has `apiBlockIndex`: a return (S1), idle 71.000 min.
- Request 35 (the return's request, the first after it): N = 32 clearable results before the return
  (each >= 64 UTF-16 units, compactable, not excluded); S = 0 results after it.
  K = 12 (2.1.310+), minimum trigger = K + 15 = 27. T0 = N - 3 = 29 > 12 and >= 27: a plan (S5).
  Edit sent: trigger tool_uses 29 + 0 = 29, keep 12 + 0 = 12, clear_at_least 20,000,
  exclude_tools ["TodoWrite"].
  S7: U = 33 tool uses (TodoWrite counts toward the trigger) > 29: fires. Keep = the last 12 of the
  32 non-excluded uses; the 20 before them are cleared: 20 x 1,500 = 30,000 tokens >= 20,000: applied.
- Response 35 reads one more file and its line records what the server did:
  `context_management.applied_edits = [{type: clear_tool_uses_20250919, cleared_tool_uses: 20,
  cleared_input_tokens: 30000}]`. Its result is 30 x "é": 30 UTF-16 units but 60 UTF-8 bytes, so after
  the return it counts (>= 48 bytes, S5) where before it would not (< 64 units, S2).
- Request 36 (a later request of the same return): the last response shows the server cleared
  (recorded, 20 > 0), so the edit is sent again (S6, `server_cleared_recorded`). S = 1:
  trigger 29 + 1 = 30, keep 12 + 1 = 13. U = 34 > 30: fires; the last 13 of 33 non-excluded uses are
  kept, the same 20 cleared (30,000 tokens). Response 36 records the same applied_edits and answers.
"""
import hashlib
import json
import os
import uuid
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "claude-idle-server.jsonl")

CWD = "/home/dev/billing"
SID = "5f0c2b7e-8a14-4d3b-9e61-2c7d9a0b4e18"
VERSION = "2.1.332"
MODEL = "claude-opus-4-7"
START = datetime(2026, 11, 20, 10, 0, 0, tzinfo=timezone.utc)
RESULT_CHARS = 6000          # est_tokens 1,500 each
CALLS = 32                   # N = 32 clearable results before the return
IDLE_MINUTES = 71

recs = []
state = {"last": None, "n": 0}


def det_uuid(label):
    return str(uuid.UUID(bytes=hashlib.sha1(("idle-server:" + label).encode()).digest()[:16], version=4))


def ts(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def common(kind, at, label):
    u = det_uuid(label)
    r = {"parentUuid": state["last"], "isSidechain": False, "userType": "external", "cwd": CWD,
         "sessionId": SID, "version": VERSION, "entrypoint": "cli", "gitBranch": "main", "type": kind,
         "uuid": u, "timestamp": ts(at)}
    state["last"] = u
    return r


def usage(cache_read, cache_create, out):
    return {"input_tokens": 4, "cache_creation_input_tokens": cache_create,
            "cache_read_input_tokens": cache_read, "output_tokens": out}


def prompt(label, text, at):
    r = common("user", at, "prompt-" + label)
    r["message"] = {"role": "user", "content": text}
    recs.append(r)


def assistant(label, block, at, use, applied=None):
    r = common("assistant", at, "asst-" + label)
    r["apiBlockIndex"] = 0
    msg = {"model": MODEL, "id": "msg_" + label, "type": "message", "role": "assistant",
           "content": [block], "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
           "usage": use}
    if applied is not None:
        msg["context_management"] = {"applied_edits": applied}
    r["message"] = msg
    recs.append(r)


def result(tid, text, at):
    r = common("user", at, "result-" + tid)
    r["message"] = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": text}]}
    recs.append(r)


def body(label):
    """RESULT_CHARS of ASCII text that says where it came from."""
    line = f"{label}: ledger row, amount, currency, posted_at, settled_at, note\n"
    text = (line * (RESULT_CHARS // len(line) + 1))[:RESULT_CHARS]
    assert len(text) == RESULT_CHARS
    return text


def call(n, at, tool, inp, text, applied=None, cache=(20000, 2000)):
    tid = f"toolu_{n:02d}"
    assistant(f"{n:02d}", {"type": "tool_use", "id": tid, "name": tool, "input": inp}, at,
              usage(cache[0], cache[1], 60), applied)
    result(tid, text, at + timedelta(seconds=2))
    return at + timedelta(seconds=5)


APPLIED = [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 20, "cleared_input_tokens": 30000}]


def main():
    t = START
    prompt("1", "Map the billing module: where are invoices built, taxed and sent?", t)
    t += timedelta(seconds=3)
    t = call(0, t, "TodoWrite", {"todos": [{"content": "map billing", "status": "in_progress"}]},
             "Todos have been modified successfully.")
    tools = ["Read", "Grep", "Bash"]
    for n in range(1, CALLS + 1):
        tool = tools[(n - 1) % 3]
        inp = {"Read": {"file_path": f"{CWD}/src/billing/part{n:02d}.py"},
               "Grep": {"pattern": f"invoice_{n}", "path": f"{CWD}/src"},
               "Bash": {"command": f"git log --oneline -- src/billing/part{n:02d}.py"}}[tool]
        t = call(n, t, tool, inp, body(f"{tool} {n:02d}"), cache=(20000 + 1500 * n, 1500))
    answer_at = t
    assistant("answer1", {"type": "text", "text": "Invoices are built in part01-part12, taxed in part13-part24 and "
                                                  "sent from part25-part32."}, answer_at,
              usage(20000 + 1500 * CALLS, 200, 120))
    # The return: 71 minutes after the last counted record (the answer).
    back = answer_at + timedelta(minutes=IDLE_MINUTES)
    prompt("2", "Back again. Which function applies the VAT rounding?", back)
    # Response 35: the server cleared 20 tool uses (30,000 tokens) from this request.
    t = call(33, back + timedelta(seconds=4), "Read", {"file_path": f"{CWD}/src/billing/vat.py"}, "é" * 30,
             applied=APPLIED, cache=(0, 26000))
    # Response 36: sent again (the last response recorded a clearing); the same 20 cleared.
    r = common("assistant", t, "asst-answer2")
    r["apiBlockIndex"] = 0
    r["message"] = {"model": MODEL, "id": "msg_answer2", "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": "vat.py's round_vat() applies half-even rounding."}],
                    "stop_reason": "end_turn", "usage": usage(26000, 100, 40),
                    "context_management": {"applied_edits": APPLIED}}
    recs.append(r)
    with open(OUT, "w", encoding="utf-8") as f:
        for r in recs:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
