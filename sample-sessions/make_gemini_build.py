#!/usr/bin/env python3
"""Gemini CLI (0.61.0 layout) sessions made from one worked example.

    python3 sample-sessions/make_gemini_build.py   # writes both files beside it

gemini-build.jsonl: a prompt at 09:15, three tool calls in a row, an answer at
09:16; a second prompt after a two-hour pause. No masking is recorded: this is
the session as it would be with masking off, so `mask` is a what-if.

gemini-build-masked.jsonl: the same session as Gemini CLI writes it, masking
included: before request 4 it re-mints every history content (seven message
lines, each followed by a `$set` of `lastUpdated`) and writes a checkpoint
`{"$set": {"messages": [...]}}` whose tool outputs are masked.

The arithmetic (Gemini CLI's own estimate, floor((name + compact JSON of the
response) / 4), toolOutputMaskingService.ts and tokenCalculation.ts):

    F1 read_file          2,000 chars,    50 "\\n": JSON 2,063   -> floor((9 + 2,063)/4)       =    518
    F2 run_shell_command 240,033 chars, 4,000 "\\n": JSON 244,046 -> floor((17 + 244,046)/4)   = 61,015
    F3 grep_search        8,000 chars,   100 "\\n": JSON 8,113   -> floor((11 + 8,113)/4)      =  2,031

    request 1  history [E]                   nothing scanned
    request 2  history [E, P1, M1]           no function response
    request 3  history [.., F1, M2]          F1 518 <= 50,000: protected
    request 4  history [.., F2, M3]          F2: 61,015 > 50,000 crosses the boundary, so F2 and
                                             everything older (F1) is prunable: 61,533 >= 30,000: mask
               F2 masked: snippet 1,518 chars, JSON 1,558, floor((17 + 1,558)/4) = 393 (saves 60,622)
               F1 masked: snippet   751 chars, JSON   787, floor((9 + 787)/4)    = 199 (saves 319)
    request 5  (two hours later) F3 2,031 protected; F1, F2 already masked: nothing. No time rule.
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
SID = "6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b"
TMP = "/home/dev/.gemini/tmp/proj"
ENV = ("<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
       "Today's date is Monday, November 30, 2026 (formatted according to the user's locale).\n"
       "My operating system is: linux\nThe project's temporary directory is: /home/dev/.gemini/tmp/proj\n\n\n\n"
       "</session_context>")
PROMPT1 = "Why is npm run build so slow? Check build.config.ts and the build output."

F1 = "".join(f"export const opt{i:02d} = {100+i};".ljust(39) + "\n" for i in range(1, 51))
F2 = "Output: " + "\n".join(f"[build] step {i:04d}/4000 compiled src/mod_{i:04d}.ts in 12ms".ljust(59, ".")
                            for i in range(1, 4001)) + "\nProcess Group PGID: 48211"
F3 = "".join(f"src/mod_{i*37:04d}.ts:12: import heavy from ./vendor/heavy-{i:03d}".ljust(79) + "\n"
             for i in range(1, 101))
assert (len(F1), len(F2), len(F3)) == (2000, 240033, 8000)

ID1 = "read_file__read_file_1796030106117_0"
ID2 = "run_shell_command__run_shell_command_1796030109874_0"
ID3 = "grep_search__grep_search_1796030158702_0"


def js(v):
    """JSON.stringify: compact, non-ASCII as is."""
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def simple_preview(text):
    lines = text.split("\n")
    if len(lines) <= 20:
        return text
    return "\n".join(lines[:10]) + f"\n\n... [{len(lines) - 20} lines omitted] ...\n\n" + "\n".join(lines[-10:])


def saved(tool, call_id, rand):
    return f"{TMP}/tool-outputs/session-{SID}/{tool}_{call_id}_{rand}.txt"


def snippet(preview, path):
    return f"<tool_output_masked>\n{preview}\n\nOutput too large. Full output available at: {path}\n</tool_output_masked>"


# F2 (the shell tool): sections "Output" (4,000 lines: the first and last 10) and
# "Process Group PGID", kept whole.
F2_BODY = F2[len("Output: "):F2.index("\nProcess Group PGID: ")]
F2_MASKED = snippet("Output: " + simple_preview(F2_BODY.strip()) + "\nProcess Group PGID: 48211",
                    saved("run_shell_command", ID2, "k3x9q"))
# F1 (any other tool): the first and last 250 characters of the pretty JSON.
pretty = json.dumps({"output": F1}, indent=2, ensure_ascii=False)
F1_MASKED = snippet(pretty[:250] + "\n... [TRUNCATED] ...\n" + pretty[-250:], saved("read_file", ID1, "p0w2d"))
assert (len(F2_MASKED), len(F1_MASKED)) == (1518, 751), (len(F2_MASKED), len(F1_MASKED))
assert len(js({"output": F2_MASKED})) == 1558 and len(js({"output": F1_MASKED})) == 787


def fr(call_id, name, output):
    return {"functionResponse": {"id": call_id, "name": name, "response": {"output": output}}}


def msg(mid, ts, typ, content, **extra):
    m = {"id": mid, "timestamp": ts, "type": typ, "content": content}
    m.update(extra)
    return m


def gemini(mid, ts, text, tokens, thoughts=None, calls=None):
    m = msg(mid, ts, "gemini", text, thoughts=thoughts or [], tokens=tokens, model="gemini-2.5-pro")
    if calls is not None:
        m["toolCalls"] = calls
    return m


def tokens(i, o, c, t=0):
    return {"input": i, "output": o, "cached": c, "thoughts": t, "tool": 0, "total": i + o + t}


def call(call_id, name, args, output, ts, display, desc, md):
    return {"id": call_id, "name": name, "args": args, "result": [fr(call_id, name, output)],
            "status": "success", "timestamp": ts, "resultDisplay": display, "description": desc,
            "displayName": md[0], "renderOutputAsMarkdown": md[1]}


def setl(ts):
    return {"$set": {"lastUpdated": ts}}


def lines(masked):
    out = []
    out.append({"sessionId": SID, "projectHash": "bb97ae4cdb5b0dd7e32b198a7ebcb35332fca3343779f0895ffb11258627aa8f",
                "startTime": "2026-11-30T09:15:00.412Z", "lastUpdated": "2026-11-30T09:15:00.412Z", "kind": "main"})
    env = msg("d04923d38bb0f6017037e74183378ef4", "2026-11-30T09:15:00.415Z", "user", [{"text": ENV}])
    out.append({"$set": {"messages": [env], "lastUpdated": "2026-11-30T09:15:00.415Z"}})
    out.append(msg("0b6f2f7e-5c1a-4d0e-9a51-3f4c2b9d8e01", "2026-11-30T09:15:02.481Z", "user", [{"text": PROMPT1}]))
    out.append(setl("2026-11-30T09:15:02.482Z"))
    thought = [{"subject": "Inspecting the build setup", "description": "I will read the build config first.",
                "timestamp": "2026-11-30T09:15:05.907Z"}]
    m1 = ("5d2c9a10-8f3b-4b6e-a1c7-0e9f8d7c6b02", "2026-11-30T09:15:06.121Z", "", tokens(9120, 24, 0, 61), thought)
    out.append(gemini(*m1))
    out.append(setl("2026-11-30T09:15:06.122Z"))
    c1 = call(ID1, "read_file", {"file_path": "build.config.ts"}, F1, "2026-11-30T09:15:06.140Z", "",
              "build.config.ts", ("ReadFile", True))
    out.append(gemini(*m1, calls=[c1]))
    out.append(msg("a7e1c3d5-2b4f-4c6a-8e9d-1f2a3b4c5d03", "2026-11-30T09:15:06.152Z", "user", [fr(ID1, "read_file", F1)]))
    out.append(setl("2026-11-30T09:15:06.153Z"))
    t2 = "Source maps are on for every module. Let me time the build."
    m2 = ("c4d5e6f7-0a1b-4c2d-8e3f-5a6b7c8d9e04", "2026-11-30T09:15:09.880Z", t2, tokens(9790, 38, 8704))
    out.append(gemini(*m2))
    out.append(setl("2026-11-30T09:15:09.881Z"))
    args2 = {"command": "npm run build", "description": "Run the build"}
    c2 = call(ID2, "run_shell_command", args2, F2, "2026-11-30T09:15:51.020Z", "", "npm run build", ("Shell", False))
    out.append(gemini(*m2, calls=[c2]))
    out.append(msg("e8f9a0b1-3c4d-4e5f-9a0b-6c7d8e9f0a05", "2026-11-30T09:15:51.034Z", "user",
                   [fr(ID2, "run_shell_command", F2)]))
    out.append(setl("2026-11-30T09:15:51.035Z"))
    t3 = "4,000 modules compile. Let me find who imports the heavy vendor bundle."
    m3 = ("f1a2b3c4-4d5e-4f60-8a1b-7c8d9e0f1a06", "2026-11-30T09:15:58.706Z", t3, tokens(71402, 41, 9216))
    out.append(gemini(*m3))
    out.append(setl("2026-11-30T09:15:58.707Z"))
    args3 = {"pattern": "vendor/heavy", "dir_path": "src"}
    c3 = call(ID3, "grep_search", args3, F3, "2026-11-30T09:15:58.911Z", "Found 100 matches",
              "'vendor/heavy' within src", ("SearchText", True))
    out.append(gemini(*m3, calls=[c3]))
    if masked:
        # setHistory(): every content re-minted (new ids, the masking's time),
        # thoughts gone, the first call of a model turn signed; then a checkpoint.
        def mid(n):
            return f"9a8b7c6d-000{n}-4e00-8000-00000000a00{n}"
        ts = "2026-11-30T09:15:58.925Z"
        ts2 = "2026-11-30T09:15:58.926Z"
        ts3 = "2026-11-30T09:15:58.927Z"
        sig = "skip_thought_signature_validator"
        minted = [
            msg(mid(1), ts, "user", [{"text": ENV}]),
            msg(mid(2), ts, "user", [{"text": PROMPT1}]),
            msg(mid(3), ts2, "gemini", [{"functionCall": {"id": ID1, "name": "read_file",
                                                          "args": {"file_path": "build.config.ts"}},
                                         "thoughtSignature": sig}], thoughts=[], tokens=None),
            msg(mid(4), ts2, "user", [fr(ID1, "read_file", F1_MASKED)]),
            msg(mid(5), ts2, "gemini", [{"text": t2}, {"functionCall": {"id": ID2, "name": "run_shell_command",
                                                                         "args": args2}}], thoughts=[], tokens=None),
            msg(mid(6), ts2, "user", [fr(ID2, "run_shell_command", F2_MASKED)]),
            msg(mid(7), ts3, "gemini", [{"text": t3}, {"functionCall": {"id": ID3, "name": "grep_search",
                                                                         "args": args3}}], thoughts=[], tokens=None),
        ]
        for m in minted:
            out.append(m)
            out.append(setl(m["timestamp"]))
        out.append({"$set": {"messages": minted, "lastUpdated": ts3}})
    out.append(msg("b2c3d4e5-5e6f-4071-8b2c-8d9e0f1a2b07", "2026-11-30T09:15:58.936Z", "user",
                   [fr(ID3, "grep_search", F3)]))
    out.append(setl("2026-11-30T09:15:58.937Z"))
    out.append(gemini("c3d4e5f6-6f70-4182-9c3d-9e0f1a2b3c08", "2026-11-30T09:16:07.330Z",
                      "The build is slow because 100 modules import ./vendor/heavy and source maps are generated for all 4,000 modules.",
                      tokens(14962 if masked else 75507, 29, 0)))
    out.append(setl("2026-11-30T09:16:07.331Z"))
    out.append(msg("d4e5f607-7081-4293-8d4e-0f1a2b3c4d09", "2026-11-30T11:20:14.005Z", "user",
                   [{"text": "ok, turn source maps off for production builds"}]))
    out.append(setl("2026-11-30T11:20:14.006Z"))
    out.append(gemini("e5f60718-8192-43a4-9e5f-1a2b3c4d5e10", "2026-11-30T11:20:19.554Z",
                      "I will edit build.config.ts.", tokens(15046 if masked else 75591, 12, 14336 if masked else 0)))
    out.append(setl("2026-11-30T11:20:19.555Z"))
    return out


for name, masked in (("gemini-build.jsonl", False), ("gemini-build-masked.jsonl", True)):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        for rec in lines(masked):
            f.write(js(rec) + "\n")
