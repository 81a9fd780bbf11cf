#!/usr/bin/env python3
"""Writes sample-sessions/cline-task/: one Cline task folder as the classic
engine (v4.0.12) writes it (`api_conversation_history.json`,
`ui_messages.json`, `context_history.json`, `task_metadata.json`, each JSON on
one line), the worked example of Cline's context manager with a duplicate
read and a truncation.

Run from the repository: python3 sample-sessions/make_cline_task.py

The model (`qwen3-coder` through an OpenAI-compatible provider) has no window
in its model info, so Cline takes 128,000 and its limit (`maxAllowedSize`) is
98,000. The text-protocol tools put each result in the next user message as
`[<tool> for '<arg>'] Result:` and the result in the same block.

  i  role       content                                              chars
  0  user       <task> + <environment_details>                         ~500
  1  assistant  <read_file> src/app.ts
  2  user       [read_file for 'src/app.ts'] Result: + A              40,000
  3  assistant  <execute_command> npm test
  4  user       [execute_command for 'npm test'] Result: + B         300,000
  5  assistant  <read_file> src/app.ts
  6  user       [read_file for 'src/app.ts'] Result: + A              40,000
  7  assistant  <replace_in_file> src/app.ts
  8  user       [replace_in_file for 'src/app.ts'] Result: ... <final_file_content> A2   40,000
  9  assistant  <execute_command> npm test
 10  user       [execute_command for 'npm test'] Result: ok               ~40
 11  assistant  <attempt_completion>

Requests R1..R6 answer messages 0, 2, 4, 6, 8, 10. Their usage (tokensIn,
tokensOut, cacheWrites, cacheReads):

  R3  10 + 70 + 75,100 + 12,300 = 87,480 < 98,000: before R4 nothing happens.
  R4   2 + 180 + 10,400 + 87,900 = 98,482 >= 98,000: before R5 the rule fires;
       98,482 / 2 < 98,000, so it keeps half.
  Step 1: from message 2, src/app.ts is read at 2 and 6 and written with its
       final content at 8: 2 and 6 get the notice (8, the latest, stays);
       `npm test` is no file. Each saves 40,037 + 1 - (37 + 1 + 153) chars of
       the ~423,000 counted: about 19 % < 30 %, so
  Step 2: message 1 gets the truncation notice and the range is
       [2, 2 + floor((9 - 2) / 4) * 2 - 1] = [2, 3] (message 3 is the
       assistant's). R5 sends [0, 1*, 4, 5, 6*, 7, 8].
  R5   5 + 90 + 86,000 + 1,900 = 87,995 and R6 88,560: no more firing.

context_history.json records the three edits at R4's ts; R5's and R6's
api_req_started carry conversationHistoryDeletedRange [2, 3].
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "cline-task")

NOTICE = (
    "[[NOTE] This file read has been removed to save space in the context window. "
    "Refer to the latest file read for the most up to date version of this file.]"
)
TRUNCATION = (
    "[NOTE] Some previous conversation history with the user has been removed to maintain "
    "optimal context window length. The initial user task has been retained for continuity, "
    "while intermediate conversation history has been removed. Keep this in mind as you "
    "continue assisting the user. Pay special attention to the user's latest messages."
)

T0 = 1796300000000


def lines(prefix, n, width=80):
    """`n` characters of numbered source-like lines."""
    out = []
    i = 0
    size = 0
    while size < n:
        line = f"{prefix} line {i:05d} " + "x" * (width - len(prefix) - 13)
        out.append(line)
        size += len(line) + 1
        i += 1
    text = "\n".join(out)
    return text[:n]


A = lines("// src/app.ts", 40000)
B = lines("FAIL test/app.test.ts", 300000)
A2 = lines("// src/app.ts (edited)", 40000)


def text(t):
    return {"type": "text", "text": t}


def user(i, *blocks):
    return {"role": "user", "content": list(blocks), "ts": T0 + i * 60000}


def assistant(i, t):
    return {
        "role": "assistant",
        "content": [text(t)],
        "ts": T0 + i * 60000 + 5000,
        "modelInfo": {"modelId": "qwen3-coder", "providerId": "openai", "mode": "act"},
    }


def tool_call(tool, **params):
    inner = "".join(f"\n<{k}>{v}</{k}>" for k, v in params.items())
    return f"<{tool}>{inner}\n</{tool}>"


READ_HEADER = "[read_file for 'src/app.ts'] Result:"
history = [
    user(
        0,
        text("<task>\nfix the failing test in src/app.ts\n</task>"),
        text("<environment_details>\n# Current Working Directory (/home/dev/app) Files\nsrc/\ntest/\npackage.json\n</environment_details>"),
    ),
    assistant(1, "I will read the file first.\n" + tool_call("read_file", path="src/app.ts")),
    user(2, text(READ_HEADER + "\n" + A)),
    assistant(3, tool_call("execute_command", command="npm test", requires_approval="false")),
    user(4, text("[execute_command for 'npm test'] Result:\n" + B)),
    assistant(5, tool_call("read_file", path="src/app.ts")),
    user(6, text(READ_HEADER + "\n" + A)),
    assistant(7, tool_call("replace_in_file", path="src/app.ts", diff="------- SEARCH\nold\n=======\nnew\n+++++++ REPLACE")),
    user(
        8,
        text(
            "[replace_in_file for 'src/app.ts'] Result:\nThe content was successfully saved to src/app.ts.\n\n"
            "Here is the full, updated content of the file that was saved:\n\n"
            '<final_file_content path="src/app.ts">\n' + A2 + "\n</final_file_content>\n"
        ),
    ),
    assistant(9, tool_call("execute_command", command="npm test", requires_approval="false")),
    user(10, text("[execute_command for 'npm test'] Result:\nTests: 12 passed, 12 total")),
    assistant(11, tool_call("attempt_completion", result="The test passes now.")),
]

# (tokensIn, tokensOut, cacheWrites, cacheReads, cost)
USAGE = [
    (600, 80, 1500, 0, 0.0061),
    (10, 60, 10100, 2100, 0.0392),
    (10, 70, 75100, 12300, 0.2856),
    (2, 180, 10400, 87900, 0.0660),
    (5, 90, 86000, 1900, 0.3244),
    (10, 50, 600, 87900, 0.0289),
]

ui = [{"ts": T0, "type": "say", "say": "task", "text": "fix the failing test in src/app.ts"}]
for k, (tin, tout, cw, cr, cost) in enumerate(USAGE):
    answered = 2 * k  # the user message the request answers
    ts = history[answered]["ts"] + 1000
    info = {
        "request": "(the request text)",
        "tokensIn": tin,
        "tokensOut": tout,
        "cacheWrites": cw,
        "cacheReads": cr,
        "cost": cost,
    }
    m = {
        "ts": ts,
        "type": "say",
        "say": "api_req_started",
        "text": json.dumps(info),
        "conversationHistoryIndex": answered,
        "modelInfo": {"modelId": "qwen3-coder", "providerId": "openai", "mode": "act"},
    }
    if k >= 4:
        m["conversationHistoryDeletedRange"] = [2, 3]
    ui.append(m)
    ui.append({"ts": ts + 3000, "type": "say", "say": "text", "text": "(the reply)", "conversationHistoryIndex": answered + 1})

r4_ts = ui[1 + 2 * 3]["ts"]
assert ui[1 + 2 * 3]["say"] == "api_req_started"

notice_update = [r4_ts, "text", [READ_HEADER + "\n" + NOTICE], []]
context = [
    [2, [2, [[0, [notice_update]]]]],
    [6, [2, [[0, [notice_update]]]]],
    [1, [0, [[0, [[r4_ts, "text", [TRUNCATION], []]]]]]],
]

metadata = {
    "files_in_context": [
        {"path": "src/app.ts", "record_state": "active", "record_source": "cline_edited", "cline_read_date": T0 + 6 * 60000, "cline_edit_date": T0 + 8 * 60000}
    ],
    "model_usage": [{"ts": T0, "model_id": "qwen3-coder", "model_provider_id": "openai", "mode": "act"}],
    "environment_history": [
        {"ts": T0, "os_name": "linux", "os_version": "6.8", "os_arch": "x64", "host_name": "Visual Studio Code", "host_version": "1.105.0", "cline_version": "4.0.12"}
    ],
}

os.makedirs(OUT, exist_ok=True)
for name, value in [
    ("api_conversation_history.json", history),
    ("ui_messages.json", ui),
    ("context_history.json", context),
    ("task_metadata.json", metadata),
]:
    with open(os.path.join(OUT, name), "w") as f:
        f.write(json.dumps(value, separators=(",", ":")))
print("wrote", OUT)
