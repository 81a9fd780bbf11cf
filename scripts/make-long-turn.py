#!/usr/bin/env python3
"""A Claude Code session of one turn with N tool calls (a long agentic run): the
stress case for plans, whose cost grows with the turn, and for the diff (the last
request's view holds every call). Usage: make-long-turn.py N OUT.jsonl"""
import json, sys

n, out = int(sys.argv[1]), sys.argv[2]

def ts(s):
    return f"2026-01-01T{(s // 3600) % 24:02d}:{(s // 60) % 60:02d}:{s % 60:02d}.000Z"

def rec(i, typ, content, s):
    m = {"role": "user" if typ == "user" else "assistant", "content": content}
    if typ == "assistant":
        m.update({"model": "claude-opus-4-6", "id": f"msg_{i}", "type": "message"})
    return json.dumps({"type": typ, "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i else None,
                       "sessionId": "long-turn", "cwd": "/w", "timestamp": ts(s), "message": m})

lines = [rec(0, "user", "go through every file", 0)]
for c in range(n):
    tool = {"type": "tool_use", "id": f"t{c}", "name": "Read",
            "input": {"file_path": f"/w/src/f{c}.txt"}}
    result = {"type": "tool_result", "tool_use_id": f"t{c}", "content": "x" * 2000}
    lines.append(rec(2 * c + 1, "assistant", [tool], 2 * c + 1))
    lines.append(rec(2 * c + 2, "user", [result], 2 * c + 2))
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
