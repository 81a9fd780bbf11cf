#!/usr/bin/env python3
"""Regenerate claude-size.jsonl: a Claude Code 2.1.88 session whose tool results total > 500,000 chars.

Deterministic: no randomness, fixed ids and timestamps. Run from anywhere:

    python3 sample-sessions/make_claude_size.py

The session: a user asks for an audit of a Python codebase; the assistant makes eight sequential tool calls
(six Reads of large modules, one Grep, one Bash `ruff check`), each in its own response, then a text answer;
then a new user prompt and a short answer. The modules are generated from templates, so the Grep and ruff
outputs point at the very lines the Reads show.

Claude Code stores every result twice (the `tool_result` text and the `toolUseResult` object), so the file
costs about 1.9 bytes per tool-result char. To stay under 1,000,000 bytes the generated code uses short lines
and the Grep/Bash outputs are modest; the total still ends above the 500,000-char size threshold.
"""
import hashlib
import json
import os
import re
import uuid
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "claude-size.jsonl")

CWD = "/home/dev/ledger"
SID = "8d2f6a41-3c7e-4b9a-b5d0-6e1f2a9c7b34"
VERSION = "2.1.88"
MODEL = "claude-opus-4-6"
START = "2026-04-09T15:20:07.412Z"
READ_LIMIT = 3000            # the assistant passes limit=3000; every module is shorter, so it is read whole
MAX_FILE_BYTES = 1_000_000
THRESHOLD = 500_000

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


# ----------------------------------------------------------------------------- ids, time, output

def det_uuid(label):
    return str(uuid.UUID(bytes=hashlib.sha1(("size:" + label).encode()).digest()[:16], version=4))


def b62(label, n):
    h = int.from_bytes(hashlib.sha256(("size:" + label).encode()).digest(), "big")
    out = []
    for _ in range(n):
        h, r = divmod(h, 62)
        out.append(B62[r])
    return "".join(out)


def ts(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def numbered(text, start=1):
    """Claude Code's Read format: line number right-aligned to 6, U+2192, the line."""
    return "\n".join(f"{i:>6}\u2192{line}" for i, line in enumerate(text.split("\n"), start))


# ----------------------------------------------------------------------------- the fake codebase

NOUNS = ["account", "balance", "posting", "journal", "invoice", "payment", "refund", "transfer", "statement",
         "batch", "entry", "fee", "rate", "settlement", "hold", "reserve", "payout", "period", "vendor",
         "charge", "credit", "debit", "accrual", "deposit"]
VERBS = ["load", "apply", "post", "void", "split", "merge", "close", "reopen", "allocate", "reverse",
         "validate", "convert", "match", "export", "settle", "archive", "release", "recalc"]
QUALS = ["pending", "open", "draft", "posted", "foreign", "daily", "monthly", "manual", "auto", "partial"]


def word(seq, i):
    return seq[i % len(seq)]


def function(mod, k):
    """One generated top-level function; six shapes, some with the issues the audit looks for."""
    noun = word(NOUNS, k * 7 + len(mod))
    verb = word(VERBS, k * 5 + 3 + len(mod))
    qual = word(QUALS, k * 3 + 1)
    lines = [
        f"def {verb}_{qual}_{noun}(repo, key, when=None):",
        f"    '''{verb.capitalize()} the {qual} {noun} `key`.'''",
        "    when = when or repo.clock.today()",
        f"    rec = repo.get_{noun}(key)",
        "    if rec is None:",
        "        raise LookupError(key)",
    ]
    shape = k % 6
    if shape == 0:
        lines += [
            "    try:",
            "        rows = repo.rows(key, when)",
            "    except Exception as exc:",
            f"        log.warning('{verb}: %s', exc)",
            "        return ZERO",
            "    return sum(r.amount for r in rows)",
        ]
    elif shape == 1:
        lines += [
            "    amt = float(rec.amount)",
            "    amt = amt * float(rec.rate)",
            "    amt = round(amt, 2)  # TODO: half-even?",
            f"    repo.audit('{verb}', key, amt)",
            "    return Decimal(str(amt))",
        ]
    elif shape == 2:
        lines += [
            "    total = ZERO",
            "    for line in rec.lines:",
            "        if line.ccy != repo.ccy:",
            "            line = repo.fx.conv(",
            "                line, repo.ccy, when)",
            "        total += line.amount",
            "    total = total.quantize(CENT)",
            f"    repo.emit('{noun}.{verb}', key)",
            "    return total",
        ]
    elif shape == 3:
        lines += [
            "    try:",
            f"        repo.lock('{noun}', key)",
            "    except:",
            "        pass",
            f"    rec.status = '{qual}'",
            "    repo.save(rec)",
            "    return rec.total",
        ]
    elif shape == 4:
        lines += [
            "    gross = rec.total",
            "    for fee in rec.fees:",
            "        if not fee.due(when):",
            "            continue",
            "        cut = gross * fee.pct / 100",
            "        gross -= round(cut, 2)",
            "    if gross < 0:",
            "        raise ValueError(gross)",
            "    return gross",
        ]
    else:
        lines += [
            "    with repo.uow() as uow:",
            f"        uow.mark(rec, '{verb}')",
            "        uow.commit()",
            "    return rec.total",
        ]
    return lines


def module_source(mod, max_lines):
    """A module of whole top-level functions (PEP 8 spacing), at most max_lines lines long."""
    stem = mod.rsplit("/", 1)[-1].replace(".py", "")
    out = [
        f"'''{stem.capitalize()} operations of the ledger core.'''",
        "from __future__ import annotations",
        "",
        "import logging",
        "from decimal import Decimal",
        "",
        "log = logging.getLogger(__name__)",
        "ZERO = Decimal('0')",
        "CENT = Decimal('0.01')",
    ]
    k = 0
    while True:
        fn = ["", ""] + function(mod, k)
        if len(out) + len(fn) + 1 > max_lines:
            break
        out += fn
        k += 1
    return "\n".join(out) + "\n"


MODULES = {                       # path -> maximum length in lines
    "src/ledger/accounts.py": 2451,
    "src/ledger/transactions.py": 2437,
    "src/ledger/reconcile.py": 2462,
    "src/ledger/reports.py": 2444,
    "src/ledger/importers/ofx.py": 2449,
    "src/ledger/settlement.py": 2458,
}
SOURCES = {m: module_source(m, n) for m, n in MODULES.items()}


def grep_output(pattern, head_limit):
    rx = re.compile(pattern)
    hits = []
    for f, text in SOURCES.items():
        for i, line in enumerate(text.split("\n"), 1):
            if rx.search(line):
                hits.append(f"{f}:{i}:{line}")
    return hits[:head_limit]


def ruff_output(max_lines):
    out = []
    for f, text in SOURCES.items():
        for i, line in enumerate(text.split("\n"), 1):
            col = len(line) - len(line.lstrip()) + 1
            s = line.strip()
            if s == "except Exception as exc:":
                out.append(f"{f}:{i}:{col}: BLE001 Do not catch blind exception: `Exception`")
            elif s == "except:":
                out.append(f"{f}:{i}:{col}: E722 Do not use bare `except`")
                out.append(f"{f}:{i}:{col}: S110 `try`-`except`-`pass` detected, consider logging the exception")
    found = len(out)
    return "\n".join(out[:max_lines]), found


# ----------------------------------------------------------------------------- records

recs = []
state = {"last": None}


def common(kind):
    return {"parentUuid": state["last"], "isSidechain": False, "userType": "external", "cwd": CWD,
            "sessionId": SID, "version": VERSION, "gitBranch": "main", "type": kind}


def usage(inp, cc, cr, out):
    return {"input_tokens": inp, "cache_creation_input_tokens": cc, "cache_read_input_tokens": cr,
            "output_tokens": out, "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": cc, "ephemeral_5m_input_tokens": 0},
            "inference_geo": "", "iterations": []}


def prompt(label, text, at):
    u = det_uuid("prompt-" + label)
    recs.append({"type": "file-history-snapshot", "messageId": u,
                 "snapshot": {"messageId": u, "trackedFileBackups": {},
                              "timestamp": ts(at + timedelta(milliseconds=58))},
                 "isSnapshotUpdate": False})
    r = common("user")
    r.update({"message": {"role": "user", "content": text}, "uuid": u, "timestamp": ts(at),
              "todos": [], "permissionMode": "default"})
    recs.append(r)
    state["last"] = u


def assistant(resp, idx, block, at, stop, use):
    u = det_uuid(f"asst-{resp}-{idx}")
    r = common("assistant")
    del r["type"]
    r["message"] = {"model": MODEL, "id": "msg_01" + b62("msg" + resp, 22), "type": "message",
                    "role": "assistant", "content": [block], "stop_reason": stop, "stop_sequence": None,
                    "usage": use}
    r["requestId"] = "req_011C" + b62("req" + resp, 20)
    r["type"] = "assistant"
    r["uuid"] = u
    r["timestamp"] = ts(at)
    recs.append(r)
    state["last"] = u
    return u


def tool_result(tid, content, tur, at, src, is_error=None):
    u = det_uuid("result-" + tid)
    block = {"tool_use_id": tid, "type": "tool_result", "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    r = common("user")
    r.update({"message": {"role": "user", "content": [block]}, "uuid": u, "timestamp": ts(at),
              "toolUseResult": tur, "sourceToolAssistantUUID": src})
    recs.append(r)
    state["last"] = u


def read_call(path):
    text = SOURCES[path]
    n = len(text.split("\n"))
    assert n <= READ_LIMIT
    tur = {"type": "text", "file": {"filePath": f"{CWD}/{path}", "content": text,
                                    "numLines": n, "startLine": 1, "totalLines": n}}
    return "Read", {"file_path": f"{CWD}/{path}", "limit": READ_LIMIT}, numbered(text), tur, None


def grep_call():
    pattern = r"round\(|float\("
    hits = grep_output(pattern, 120)
    content = "\n".join(hits)
    tur = {"mode": "content", "numFiles": 0, "filenames": [], "content": content, "numLines": len(hits),
           "appliedLimit": 120}
    return ("Grep", {"pattern": pattern, "path": f"{CWD}/src", "output_mode": "content", "-n": True,
                     "head_limit": 120}, content, tur, None)


def ruff_call():
    body, found = ruff_output(110)
    out = body + f"\nFound {found} errors."   # sed prints the first 110 lines and ruff's last line
    cmd = "ruff check src/ --select BLE001,E722,S110 --output-format concise | sed -n '1,110p;$p'"
    tur = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}
    return ("Bash", {"command": cmd, "description": "Lint for blind and bare excepts"}, out, tur, False)


CALLS = [  # (response label, optional text block before the tool call, tool call)
    ("r1", "I'll start with the account and transaction modules.", lambda: read_call("src/ledger/accounts.py")),
    ("r2", None, lambda: read_call("src/ledger/transactions.py")),
    ("r3", "Both modules mix `float` and `Decimal`. Let me see how widespread that is.", grep_call),
    ("r4", None, lambda: read_call("src/ledger/reconcile.py")),
    ("r5", "Now the linter's view of exception handling across the package.", ruff_call),
    ("r6", None, lambda: read_call("src/ledger/reports.py")),
    ("r7", None, lambda: read_call("src/ledger/importers/ofx.py")),
    ("r8", None, lambda: read_call("src/ledger/settlement.py")),
]


def main():
    t = datetime.strptime(START, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    prompt("1", "Audit the ledger codebase for error handling and money rounding problems. "
                "Look at the core modules under src/ledger and tell me what you find.", t)
    cache_read, cache_create = 17102, 3986      # system prompt + tools already cached; this turn's prefix
    prev_tokens = 0
    rows = []
    for n, (resp, lead_text, make) in enumerate(CALLS, 1):
        name, inp, content, tur, is_err = make()
        tid = "toolu_01" + b62("tool" + resp, 22)
        if n > 1:
            cache_read += cache_create
            cache_create = prev_tokens
        first_in = 3 if n == 1 else 1
        t += timedelta(seconds=2, milliseconds=317 + 91 * n)
        if lead_text:
            assistant(resp, 0, {"type": "text", "text": lead_text}, t, None,
                      usage(first_in, cache_create, cache_read, 9))
            t += timedelta(milliseconds=604)
        out_tokens = 88 + 9 * n + (24 if lead_text else 0)
        src = assistant(resp, 1, {"type": "tool_use", "id": tid, "name": name, "input": inp,
                                  "caller": {"type": "direct"}},
                        t, "tool_use", usage(first_in, cache_create, cache_read, out_tokens))
        t += timedelta(milliseconds=45 + 13 * n)
        tool_result(tid, content, tur, t, src, is_err)
        prev_tokens = out_tokens + round(len(content) / 4.2)
        rows.append((tid, name, inp.get("file_path") or inp.get("command") or inp.get("pattern"), len(content)))

    answer = (
        "Audit summary for `src/ledger`:\n\n"
        "**Money rounding**\n"
        "- About a sixth of the helpers convert to `float` (`amt = float(rec.amount)`, `* float(rec.rate)`), "
        "then `round(amt, 2)` before going back to `Decimal(str(amt))`. Binary floats plus rounding in the middle "
        "make cents drift; keep `Decimal` end to end and `quantize(CENT)` once.\n"
        "- Fee loops round each fee (`gross -= round(cut, 2)`): right type, but per-fee rounding compounds. "
        "Round the sum once.\n\n"
        "**Error handling**\n"
        "- Every lock acquisition is `try: self.lock(...) except: pass` (ruff E722 + S110), so a lock failure is "
        "ignored and the record is saved unlocked. This is the most serious issue.\n"
        "- The row loaders catch `Exception` (BLE001), log a warning and return `ZERO`, so a failed read looks "
        "like a zero balance. Let repository errors propagate.\n\n"
        "Suggested order: the `except: pass` lock blocks, then the float paths, then the blind excepts."
    )
    t += timedelta(seconds=23, milliseconds=408)
    cache_read += cache_create
    cache_create = prev_tokens
    assistant("r9", 0, {"type": "text", "text": answer}, t, "end_turn", usage(1, cache_create, cache_read, 468))

    t += timedelta(minutes=3, seconds=12, milliseconds=90)
    prompt("2", "ok, which file should I fix first?", t)
    reply = ("`src/ledger/accounts.py`. Its services are called by every other module, so fixing its "
             "`except: pass` lock blocks removes the unlocked-save risk everywhere; then `transactions.py` "
             "for the float rounding.")
    t += timedelta(seconds=5, milliseconds=377)
    cache_read += cache_create
    cache_create = 468 + 31
    assistant("r10", 0, {"type": "text", "text": reply}, t, "end_turn", usage(3, cache_create, cache_read, 74))

    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for r in recs:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")

    total, run = 0, 0
    for tid, name, what, n in rows:
        run += n
        print(f"{tid}  {name:<4} {n:>6} chars  running total {run:>6}  {what}")
    total = run
    size = os.path.getsize(OUT)
    print(f"total tool-result chars: {total}; file: {size} bytes; {len(recs)} records")
    assert total > THRESHOLD, total
    assert size < MAX_FILE_BYTES, size


if __name__ == "__main__":
    main()
