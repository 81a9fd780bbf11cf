#!/usr/bin/env python3
"""Sessions of many small requests: the growth case for timeline, compare and
evidence (their cost per request must not grow with the session).

    make-many-requests.py claude N OUT.jsonl [COMPACT_EVERY [IDLE_EVERY]]  # N requests
    make-many-requests.py api N OUT.json       # Messages API body, N messages
    make-many-requests.py gemini N OUT.jsonl   # Gemini CLI JSONL (0.39+), N requests

claude: turns of a prompt and 3 tool calls (4 requests a turn) with small
results (Read, Grep, Bash), usage on every response (the cache read grows
and drops back every 40 turns, so evidence has observed breaks to explain),
a microcompact_boundary record every 50 turns; with COMPACT_EVERY a
compact_boundary every that many turns, with IDLE_EVERY a 75-minute gap every
that many turns (0, the default: none). Without compactions the session is one
view that grows with it, the hard case for work per request; without gaps the
idle plan never fires (a fire clears every older result of the view, so its
rows, and the JSON that lists them, grow with the view whatever the code does). api: an agent loop of N messages
(a user task, then tool_use / tool_result pairs), every result small.
gemini: the claude shape in Gemini CLI's records (a prompt, 3 tool calls whose
results are written in the response's toolCalls and as a user record, then an
answer), results of about 500 tokens so that masking fires every few turns.
Deterministic: fixed ids, no randomness.
"""
import json, sys

def ts(s):
    d, s = divmod(s, 86400)
    return f"2026-01-{1 + d % 28:02d}T{s // 3600:02d}:{(s // 60) % 60:02d}:{s % 60:02d}.000Z"

def claude(n, out, compact_every=0, idle_every=0):
    lines = []
    clock = 0
    uid = 0
    parent = None
    def rec(typ, content, extra=None, usage=None):
        nonlocal uid, parent
        m = {"role": "user" if typ == "user" else "assistant", "content": content}
        if typ == "assistant":
            m.update({"model": "claude-opus-4-6", "id": f"msg_{uid}", "type": "message",
                      "usage": usage or {}})
        r = {"type": typ, "uuid": f"u{uid}", "parentUuid": parent, "sessionId": "many",
             "cwd": "/w", "version": "2.1.88", "timestamp": ts(clock), "message": m}
        if extra:
            r.update(extra)
        parent = f"u{uid}"
        uid += 1
        lines.append(json.dumps(r))
    requests = 0
    turn = 0
    read = 20000
    tools = [("Read", lambda c: {"file_path": f"/w/src/f{c % 500}.py"}),
             ("Grep", lambda c: {"pattern": f"sym{c}", "path": "/w"}),
             ("Bash", lambda c: {"command": f"ls /w/d{c % 300}"})]
    call = 0
    while requests < n:
        if idle_every and turn and turn % idle_every == 0:
            clock += 75 * 60
        if compact_every and turn and turn % compact_every == 0:
            lines.append(json.dumps({"type": "system", "subtype": "compact_boundary", "uuid": f"u{uid}",
                                     "parentUuid": None, "logicalParentUuid": parent, "sessionId": "many",
                                     "timestamp": ts(clock), "compactMetadata": {"trigger": "auto", "preTokens": read}}))
            parent = f"u{uid}"
            uid += 1
            rec("user", "This session is being continued from a previous conversation. Summary: work.",
                {"isCompactSummary": True})
            read = 20000
        rec("user", f"task {turn}: look at module {turn % 97}")
        clock += 30
        if turn % 40 == 39:
            read = 20000
        for j in range(3):
            if requests >= n:
                break
            name, inp = tools[j]
            tid = f"toolu_{call:08d}"
            call += 1
            read += 900
            rec("assistant", [{"type": "tool_use", "id": tid, "name": name, "input": inp(call)}],
                usage={"input_tokens": 5, "cache_creation_input_tokens": 900, "cache_read_input_tokens": read,
                       "output_tokens": 60})
            requests += 1
            clock += 4
            rec("user", [{"type": "tool_result", "tool_use_id": tid,
                          "content": f"result {call} " + "x" * (300 + 37 * (call % 11))}])
            clock += 2
        if requests < n:
            rec("assistant", [{"type": "text", "text": f"done with task {turn}"}],
                usage={"input_tokens": 5, "cache_creation_input_tokens": 300, "cache_read_input_tokens": read,
                       "output_tokens": 20})
            requests += 1
            clock += 20
        if turn % 50 == 49:
            ids = [f"toolu_{c:08d}" for c in range(max(0, call - 6), call - 3)]
            lines.append(json.dumps({"type": "system", "subtype": "microcompact_boundary", "uuid": f"u{uid}",
                                     "parentUuid": parent, "sessionId": "many", "timestamp": ts(clock),
                                     "microcompactMetadata": {"trigger": "auto", "preTokens": 0,
                                                              "tokensSaved": 900, "compactedToolIds": ids,
                                                              "clearedAttachmentUUIDs": []}}))
            parent = f"u{uid}"
            uid += 1
        turn += 1
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")

def api(n, out):
    msgs = [{"role": "user", "content": "fix every module"}]
    c = 0
    while len(msgs) < n:
        tid = f"toolu_{c:08d}"
        msgs.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": tid, "name": ["Read", "Grep", "Bash"][c % 3],
             "input": {"file_path": f"/w/f{c}.py"}}]})
        if len(msgs) < n:
            msgs.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tid, "content": f"result {c} " + "y" * (150 + 13 * (c % 7))}]})
        c += 1
    if msgs[-1]["role"] == "assistant":
        msgs.append({"role": "user", "content": "go on"})
    body = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "system": "You are an agent.",
            "tools": [{"name": t, "description": t, "input_schema": {"type": "object"}} for t in ("Read", "Grep", "Bash")],
            "messages": msgs}
    with open(out, "w") as f:
        json.dump(body, f)

def gemini(n, out):
    lines = [json.dumps({"sessionId": "many", "projectHash": "h" * 64, "startTime": ts(0),
                         "lastUpdated": ts(0), "kind": "main"})]
    clock = 0
    uid = 0
    def rec(r):
        nonlocal uid
        r["id"] = f"r{uid}"
        r["timestamp"] = ts(clock)
        uid += 1
        lines.append(json.dumps(r))
    tokens = lambda i: {"input": 9000 + i, "output": 30, "cached": 8000, "thoughts": 5, "tool": 0,
                        "total": 9035 + i}
    names = ["read_file", "search_file_content", "run_shell_command"]
    requests = turn = call = 0
    while requests < n:
        rec({"type": "user", "content": [{"text": f"task {turn}: look at module {turn % 97}"}]})
        clock += 30
        for j in range(3):
            if requests >= n:
                break
            cid = f"{names[j]}__{names[j]}_{call:08d}_0"
            out_text = f"result {call} " + "z" * (1800 + 37 * (call % 11))
            fr = {"functionResponse": {"id": cid, "name": names[j], "response": {"output": out_text}}}
            call += 1
            rec({"type": "gemini", "content": "", "thoughts": [], "tokens": tokens(call),
                 "model": "gemini-2.5-pro",
                 "toolCalls": [{"id": cid, "name": names[j], "args": {"file_path": f"f{call}.ts"},
                                "result": [fr]}]})
            requests += 1
            clock += 4
            rec({"type": "user", "content": [fr]})
            clock += 2
        if requests < n:
            rec({"type": "gemini", "content": f"done with task {turn}", "thoughts": [],
                 "tokens": tokens(call), "model": "gemini-2.5-pro"})
            requests += 1
            clock += 20
        turn += 1
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")

if __name__ == "__main__":
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind == "claude":
        extra = [int(x) for x in sys.argv[4:6]]
        claude(n, out, *extra)
    elif kind == "gemini":
        gemini(n, out)
    else:
        api(n, out)
