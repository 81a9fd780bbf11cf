#!/usr/bin/env python3
"""Writes qwen-memory/today.jsonl: the qwen-memory project as today's Qwen Code
(0.20.0, September 2026) records it — record shapes from
shared/reference/qwen-code-jsonl.md, "Additions".

What it shows (with the sidecar today.mcscope.json, keep_recent 1):
- request 1: a prompt; the model reads the project memory and src/main.py through
  the bridged `tool_call` deferred tool, and a screenshot with read_file (an image
  read: output "" with the image nested in functionResponse.parts);
- request 5: a background agent's notification two hours later: Qwen runs no
  microcompaction at a notification, whatever the gap;
- request 6: the user's next prompt, two hours after the last response: idle fires
  and clears the bridged main.py read and the image read; the memory read is
  protected.
Run from sample-sessions/: `python3 make_qwen_today.py`.
"""
import json
from datetime import datetime, timedelta, timezone

t = datetime(2026, 9, 21, 9, 0, 0, tzinfo=timezone.utc)
n = 0
parent = None
lines = []


def rec(kind, minutes=0.0, provenance=None, **fields):
    global t, n, parent
    t += timedelta(minutes=minutes, seconds=2)
    n += 1
    uuid = f"7d0c{n:04d}-5b1e-4c2a-9f3e-0a1b2c3d4e5f"
    r = {"uuid": uuid, "parentUuid": parent, "sessionId": "5e2f7a10-today",
         "timestamp": t.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "type": kind,
         "provenance": provenance or {"user": "real_user", "assistant": "assistant_output",
                                      "tool_result": "tool_result"}.get(kind, "system"),
         "cwd": "/home/dev/app", "version": "0.20.0", "gitBranch": "main"}
    r.update(fields)
    parent = uuid
    lines.append(json.dumps(r, separators=(",", ":")))


def usage(prompt, cached):
    return {"promptTokenCount": prompt, "cachedContentTokenCount": cached}


def result(call_id, name, output, parts=None):
    resp = {"id": call_id, "name": name, "response": {"output": output}}
    if parts:
        resp["parts"] = parts
    rec("tool_result", message={"role": "user", "parts": [{"functionResponse": resp}]},
        toolCallResult={"callId": call_id, "status": "success", "resultDisplay": ""})


MEMORY = "/home/dev/.qwen/projects/-home-dev-app/memory/architecture.md"
rec("user", message={"role": "user", "parts": [
    {"text": "The login page renders blank. Check main.py against our architecture notes."}]},
    promptId="5e2f7a10-today########1")
rec("assistant", model="qwen3-coder-plus", message={"role": "model", "parts": [
    {"functionCall": {"id": "call_mem", "name": "tool_call",
                      "args": {"name": "read_file", "arguments": {"file_path": MEMORY}}}},
    {"functionCall": {"id": "call_main", "name": "tool_call",
                      "args": {"name": "read_file",
                               "arguments": {"file_path": "/home/dev/app/src/main.py"}}}}]},
    usageMetadata=usage(15200, 0))
result("call_mem", "tool_call", "# Architecture\n- handlers live in app/handlers\n" * 40)
result("call_main", "tool_call", "def main():\n    serve(app)\n" * 120)
rec("assistant", model="qwen3-coder-plus", message={"role": "model", "parts": [
    {"functionCall": {"id": "call_shot", "name": "read_file",
                      "args": {"file_path": "/home/dev/app/docs/login.png"}}}]},
    usageMetadata=usage(18900, 15100))
result("call_shot", "read_file", "",
       parts=[{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgoAAAANSUhEUg=="}}])
rec("assistant", model="qwen3-coder-plus", message={"role": "model", "parts": [
    {"functionCall": {"id": "call_grep", "name": "grep_search",
                      "args": {"pattern": "render_login", "path": "/home/dev/app"}}}]},
    usageMetadata=usage(20600, 18800))
result("call_grep", "grep_search", "src/main.py:88: render_login(None)\n" * 30)
rec("assistant", model="qwen3-coder-plus", message={"role": "model", "parts": [
    {"text": "render_login is called with None on line 88; I started a background agent to check the templates."}]},
    usageMetadata=usage(21400, 20500))
rec("user", 120, provenance="system", subtype="notification", deliveredTurn=True,
    message={"role": "user", "parts": [{"text": "<task-notification>templates agent: login.html is missing</task-notification>"}]},
    systemPayload={"displayText": "Agent templates-2b completed"})
rec("assistant", model="qwen3-coder-plus", message={"role": "model", "parts": [
    {"text": "The agent confirms login.html is missing."}]}, usageMetadata=usage(21900, 0))
rec("user", 120, message={"role": "user", "parts": [{"text": "OK, add the template and fix line 88."}]},
    promptId="5e2f7a10-today########2")
rec("assistant", model="qwen3-coder-plus", message={"role": "model", "parts": [
    {"text": "Adding templates/login.html and passing the user to render_login."}]},
    usageMetadata=usage(22300, 0))

with open("qwen-memory/today.jsonl", "w") as f:
    f.write("\n".join(lines) + "\n")
