#!/usr/bin/env python3
"""Regenerate api-agent.json: one Anthropic Messages API request body of an agent loop (SPEC §11 sample).

Deterministic: no randomness, fixed ids. Run from anywhere:

    python3 sample-sessions/make-api-agent.py

The body is what an agent built on the Messages API sends at its 28th request: a system prompt, six tool
definitions (the SDK-style Read, Grep, Glob, Bash, Edit and Anthropic's `memory` tool), the user's task, and
the loop so far. Every assistant turn opens with a thinking block. There are 30 tool uses:

- 1-9 small ones: the agent views its memory directory and reads its notes, lists the tree, greps, runs
  `git log` and reads a short config (a few hundred tokens each);
- 10-14 five large source reads (about 6,000 tokens each), which push the prompt past 30,000 tokens while
  the old results are still small: `clear_at_least` 5,000 blocks that first clearing;
- 15-30 the investigation and the fix: reads, greps, test runs, two edits, and two `memory` writes (the
  sidecar excludes `memory`, so those results are never cleared).

The sidecar (api-agent.mcscope.json) selects the api preset with trigger 30,000 input tokens, keep 5 tool
uses, clear_at_least 5,000 and exclude_tools ["memory"]. A request body records no usage, so the input
tokens are mcscope's estimate (SPEC §2's rule over every block).
"""
import hashlib
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "api-agent.json")
SIDECAR = os.path.join(HERE, "api-agent.mcscope.json")
MODEL = "claude-sonnet-4-5"
ROOT = "/srv/ledgerd"
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def b62(seed, n):
    h = hashlib.sha256(seed.encode()).digest()
    out = ""
    i = 0
    while len(out) < n:
        out += B62[h[i % len(h)] % 62]
        i += 1
        if i % len(h) == 0:
            h = hashlib.sha256(h).digest()
    return out


def tool_id(n):
    return "toolu_01" + b62(f"api-agent-{n}", 22)


def signature(n):
    return "Eq" + b62(f"sig-{n}", 86) + "=="


# ----------------------------------------------------------------------------- file contents

NOUNS = ["entry", "batch", "account", "posting", "journal", "ledger", "balance", "transfer", "currency",
         "settlement", "payout", "refund", "invoice", "statement", "period", "cursor", "snapshot", "audit"]
VERBS = ["load", "apply", "post", "reverse", "reconcile", "settle", "validate", "normalize", "split",
         "merge", "lock", "release", "emit", "fetch", "close", "open", "sum", "round"]


def module(name, functions, seed):
    """A Python module of `functions` functions, numbered lines as the Read tool shows them."""
    lines = [f'"""ledgerd.{name}: {NOUNS[seed % len(NOUNS)]} handling for the nightly reconciliation."""',
             "from __future__ import annotations", "", "import decimal", "import logging",
             "from dataclasses import dataclass", "from datetime import date, datetime, timezone", "",
             "from ledgerd.db import Session, advisory_lock", "from ledgerd.money import Money, quantize", "",
             f"log = logging.getLogger(__name__)", ""]
    for i in range(functions):
        verb = VERBS[(seed * 7 + i) % len(VERBS)]
        noun = NOUNS[(seed * 3 + i * 5) % len(NOUNS)]
        other = NOUNS[(seed + i * 11) % len(NOUNS)]
        fn = f"{verb}_{noun}"
        lines += [
            "",
            f"def {fn}(session: Session, {noun}_id: int, *, as_of: date | None = None) -> Money:",
            f'    """{verb.capitalize()} one {noun} against its {other} rows; returns the signed amount."""',
            f"    as_of = as_of or datetime.now(timezone.utc).date()",
            f"    rows = session.query({noun.capitalize()}Row).filter_by(id={noun}_id).all()",
            f"    if not rows:",
            f"        log.warning(\"{fn}: no {noun} %s\", {noun}_id)",
            f"        return Money.zero()",
            f"    total = Money.zero(rows[0].currency)",
            f"    for row in rows:",
            f"        if row.booked_on > as_of:",
            f"            continue",
            f"        amount = quantize(row.amount, row.currency)",
            f"        total = total + (amount if row.side == \"credit\" else -amount)",
            f"    with advisory_lock(session, \"{other}\", {noun}_id):",
            f"        session.add({other.capitalize()}Event(kind=\"{verb}\", ref={noun}_id, amount=total))",
            f"    return total",
        ]
    return "\n".join(f"{n:>6}\t{l}" for n, l in enumerate(lines, 1))


def test_log(failed, passed, seed):
    lines = ["============================= test session starts ==============================",
             "platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0",
             f"rootdir: {ROOT}", "configfile: pyproject.toml", "collected %d items" % (failed + passed), ""]
    for i in range(passed):
        lines.append(f"tests/test_{NOUNS[(seed + i) % len(NOUNS)]}.py::test_{VERBS[(i * 5) % len(VERBS)]}_{i} PASSED")
    for i in range(failed):
        lines += [f"tests/test_reconcile.py::test_nightly_rounding_{i} FAILED", "",
                  "    def test_nightly_rounding_%d(session):" % i,
                  "        batch = make_batch(session, amounts=[\"0.105\", \"0.105\", \"0.105\"], currency=\"EUR\")",
                  "        result = reconcile_batch(session, batch.id)",
                  ">       assert result.difference == Money(\"0.00\", \"EUR\")",
                  "E       AssertionError: assert Money('0.01', 'EUR') == Money('0.00', 'EUR')",
                  "", "tests/test_reconcile.py:%d: AssertionError" % (40 + i * 12)]
    lines.append(f"========================= {failed} failed, {passed} passed in 4.21s =========================")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- the loop

CALLS = []  # (thinking, text or None, [(tool, input, result)])


def turn(thinking, calls, text=None):
    CALLS.append((thinking, text, calls))


MEMORY_NOTES = """# ledgerd notes
- Money is quantized with ROUND_HALF_EVEN everywhere except payouts (ROUND_DOWN, by contract).
- Nightly reconciliation: ledgerd/reconcile.py, run by ops/cron/nightly.sh at 02:10 UTC.
- Flaky: tests/test_locks.py::test_advisory_timeout (ignore unless it fails twice)."""

turn("The user says the nightly reconciliation started failing after yesterday's merge. I keep notes in my "
     "memory directory; check it before anything else.",
     [("memory", {"command": "view", "path": "/memories"},
       "Here are the files and directories up to 2 levels deep in /memories:\n4.0K\t/memories\n1.2K\t/memories/ledgerd-notes.md")])
turn("There is a notes file for this repository. Read it.",
     [("memory", {"command": "view", "path": "/memories/ledgerd-notes.md"}, MEMORY_NOTES)])
turn("Rounding rules matter here. Let me see the layout of the package and which files changed recently.",
     [("Glob", {"pattern": "ledgerd/**/*.py", "path": ROOT},
       "\n".join(f"{ROOT}/ledgerd/{n}.py" for n in ["__init__", "db", "money", "reconcile", "batches", "postings",
                                                     "accounts", "payouts", "periods", "cli", "settings"])),
      ("Bash", {"command": "git log --oneline -8", "description": "Recent commits"},
       "\n".join(f"{b62('c' + str(i), 7).lower()} {m}" for i, m in enumerate([
           "reconcile: sum postings per batch before quantizing (#412)", "money: add quantize() helper",
           "ci: pin pytest 8.3", "payouts: round down per contract", "db: advisory_lock context manager",
           "batches: skip empty batches", "periods: close on UTC midnight", "initial import"])))])
turn("The top commit changed when quantizing happens in reconcile. Search for quantize call sites.",
     [("Grep", {"pattern": "quantize\\(", "path": f"{ROOT}/ledgerd", "output_mode": "content", "-n": True},
       "\n".join(f"{ROOT}/ledgerd/{f}:{l}:        amount = quantize(row.amount, row.currency)"
                 for f, l in [("reconcile.py", 88), ("reconcile.py", 141), ("batches.py", 57), ("postings.py", 73),
                              ("payouts.py", 102), ("money.py", 31)]))])
turn("Check the settings for the rounding mode and the cron entry.",
     [("Read", {"file_path": f"{ROOT}/ledgerd/settings.py"},
       module("settings", 1, 2)),
      ("Bash", {"command": "cat ops/cron/nightly.sh", "description": "Nightly cron script"},
       "#!/bin/sh\nset -eu\ncd /srv/ledgerd\nexec python -m ledgerd.cli reconcile --as-of \"$(date -u -d yesterday +%F)\" --strict")])
turn("--strict makes any difference fatal. Where does the reconcile command raise on a difference?",
     [("Grep", {"pattern": "difference", "path": f"{ROOT}/ledgerd/reconcile.py", "output_mode": "content", "-n": True},
       "\n".join(f"{ROOT}/ledgerd/reconcile.py:{l}:{t}" for l, t in [
           (93, "    difference = expected - booked"), (94, "    if strict and difference != Money.zero(currency):"),
           (95, "        raise ReconcileError(batch_id, difference)"), (152, "    return Result(difference=difference)")]))])
turn("Let me run the reconcile tests to see the failure itself.",
     [("Bash", {"command": "python -m pytest tests/test_reconcile.py -q -x", "description": "Reconcile tests"},
       test_log(1, 3, 1))])
turn("A one-cent difference on three amounts of 0.105: a rounding order problem. I need the whole modules.",
     [("Read", {"file_path": f"{ROOT}/ledgerd/reconcile.py"}, module("reconcile", 26, 3))])
turn("Now the batches module, which builds the expected totals.",
     [("Read", {"file_path": f"{ROOT}/ledgerd/batches.py"}, module("batches", 26, 4))])
turn("And postings, where the booked side is summed.",
     [("Read", {"file_path": f"{ROOT}/ledgerd/postings.py"}, module("postings", 26, 5))])
turn("The money module defines quantize(); read it whole.",
     [("Read", {"file_path": f"{ROOT}/ledgerd/money.py"}, module("money", 26, 6))])
turn("Payouts round down by contract; check it is not shared with reconcile.",
     [("Read", {"file_path": f"{ROOT}/ledgerd/payouts.py"}, module("payouts", 26, 7))])
turn("Compare the commit's diff against what I read.",
     [("Bash", {"command": "git show --stat HEAD && git show HEAD -- ledgerd/reconcile.py", "description": "Top commit"},
       "\n".join(["commit " + b62("head", 40).lower(), "Author: Dana Whitfield <dana@example.com>",
                  "Date:   Thu Nov 26 17:42:10 2026 +0000", "",
                  "    reconcile: sum postings per batch before quantizing (#412)", "",
                  " ledgerd/reconcile.py | 14 ++++++++------", " 1 file changed, 8 insertions(+), 6 deletions(-)", ""] +
                 [f"@@ -{80 + i * 9},7 +{80 + i * 9},8 @@ def reconcile_batch(session, batch_id, *, strict=False):\n"
                  "-        total += quantize(row.amount, row.currency)\n+        total += row.amount\n"
                  "+    total = quantize(total, currency)" for i in range(6)]))])
turn("The commit moved quantize() after the sum. The expected side still quantizes per row. Check accounts "
     "for a second sum.",
     [("Read", {"file_path": f"{ROOT}/ledgerd/accounts.py"}, module("accounts", 6, 8))])
turn("Let me look at how the tests build batches.",
     [("Grep", {"pattern": "def make_batch", "path": f"{ROOT}/tests", "output_mode": "content", "-n": True},
       f"{ROOT}/tests/conftest.py:48:def make_batch(session, amounts, currency=\"EUR\", booked_on=None):"),
      ("Read", {"file_path": f"{ROOT}/tests/test_reconcile.py"}, module("test_reconcile", 5, 9))])
turn("Record the finding in memory before editing, in case the context is cleared.",
     [("memory", {"command": "str_replace", "path": "/memories/ledgerd-notes.md",
                  "old_str": "- Flaky:", "new_str": "- 2026-11-27: #412 sums before quantizing in reconcile "
                  "but batches quantize per row: one-cent differences on .xx5 amounts.\n- Flaky:"},
       "The memory file has been edited.")])
turn("Find every place that compares expected with booked totals.",
     [("Grep", {"pattern": "expected", "path": f"{ROOT}/ledgerd", "output_mode": "content", "-n": True},
       "\n".join(f"{ROOT}/ledgerd/{f}:{l}:    expected = sum_expected(session, batch_id)"
                 for f, l in [("reconcile.py", 90), ("reconcile.py", 139), ("cli.py", 211)]))])
turn("The periods module closes on UTC midnight; read it to be sure as_of is not involved.",
     [("Read", {"file_path": f"{ROOT}/ledgerd/periods.py"}, module("periods", 6, 10))])
turn("Not involved. Make both sides quantize per row, as the contract says.",
     [("Edit", {"file_path": f"{ROOT}/ledgerd/reconcile.py", "old_string": "        total += row.amount\n",
                "new_string": "        total += quantize(row.amount, row.currency)\n", "replace_all": True},
       f"The file {ROOT}/ledgerd/reconcile.py has been updated. All occurrences were replaced.")])
turn("Remove the quantize after the sum, which is now redundant.",
     [("Edit", {"file_path": f"{ROOT}/ledgerd/reconcile.py", "old_string": "    total = quantize(total, currency)\n",
                "new_string": "", "replace_all": True},
       f"The file {ROOT}/ledgerd/reconcile.py has been updated. All occurrences were replaced.")])
turn("Run the reconcile tests again.",
     [("Bash", {"command": "python -m pytest tests/test_reconcile.py -q", "description": "Reconcile tests"},
       test_log(0, 4, 2))])
turn("Passing. Run the full suite to check payouts and batches.",
     [("Bash", {"command": "python -m pytest -q", "description": "Full test suite"}, test_log(0, 60, 3))])
turn("Everything passes. Add a regression test with the exact amounts from the failing night.",
     [("Read", {"file_path": f"{ROOT}/tests/conftest.py"}, module("conftest", 3, 11))])
turn("Write the regression test next to the others.",
     [("Edit", {"file_path": f"{ROOT}/tests/test_reconcile.py", "old_string": "def test_nightly_rounding_0",
                "new_string": "def test_nightly_three_halves(session):\n    batch = make_batch(session, "
                "amounts=[\"0.105\"] * 3, currency=\"EUR\")\n    assert reconcile_batch(session, batch.id, "
                "strict=True).difference == Money(\"0.00\", \"EUR\")\n\n\ndef test_nightly_rounding_0"},
       f"The file {ROOT}/tests/test_reconcile.py has been updated.")])
turn("Run it.",
     [("Bash", {"command": "python -m pytest tests/test_reconcile.py -q", "description": "Reconcile tests"},
       test_log(0, 5, 4))])
turn("Dry-run the nightly command against the failing date to confirm.",
     [("Bash", {"command": "python -m ledgerd.cli reconcile --as-of 2026-11-26 --strict --dry-run",
                "description": "Nightly reconcile, dry run"},
       "\n".join(f"batch {1000 + i}: expected {100 + i * 7}.{i:02d} EUR booked {100 + i * 7}.{i:02d} EUR ok"
                 for i in range(40)) + "\n40 batches reconciled, 0 differences")])
turn("Update my notes with the fix.",
     [("memory", {"command": "str_replace", "path": "/memories/ledgerd-notes.md",
                  "old_str": "one-cent differences on .xx5 amounts.",
                  "new_str": "one-cent differences on .xx5 amounts. Fixed: quantize per row on both sides; "
                  "regression test test_nightly_three_halves."},
       "The memory file has been edited.")],
     text="The dry run reconciles all 40 batches.")

assert sum(len(c[2]) for c in CALLS) == 30, sum(len(c[2]) for c in CALLS)

n = 0
messages = [{"role": "user", "content": [{"type": "text", "text":
    "The nightly reconciliation job in ledgerd has failed twice since yesterday's merge with "
    "`ReconcileError: batch 1017 difference 0.01 EUR`. Find the cause, fix it, and add a regression test. "
    "The repository is at /srv/ledgerd."}]}]
results_msg = None
for i, (thinking, text, calls) in enumerate(CALLS):
    content = [{"type": "thinking", "thinking": thinking, "signature": signature(i)}]
    if text:
        content.append({"type": "text", "text": text})
    results = []
    for tool, inp, result in calls:
        n += 1
        tid = tool_id(n)
        content.append({"type": "tool_use", "id": tid, "name": tool, "input": inp})
        results.append({"type": "tool_result", "tool_use_id": tid, "content": result})
    messages.append({"role": "assistant", "content": content})
    messages.append({"role": "user", "content": results})

TOOLS = [
    {"name": "Read", "description": "Read a file; returns numbered lines.",
     "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}},
    {"name": "Grep", "description": "Search file contents with a regular expression.",
     "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}},
                      "required": ["pattern"]}},
    {"name": "Glob", "description": "List files matching a glob pattern.",
     "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}},
    {"name": "Bash", "description": "Run a shell command in the repository.",
     "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}},
    {"name": "Edit", "description": "Replace text in a file.",
     "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"},
                                                       "old_string": {"type": "string"},
                                                       "new_string": {"type": "string"}},
                      "required": ["file_path", "old_string", "new_string"]}},
    {"type": "memory_20250818", "name": "memory"},
]

EDITS = [{"type": "clear_tool_uses_20250919",
          "trigger": {"type": "input_tokens", "value": 30000},
          "keep": {"type": "tool_uses", "value": 5},
          "clear_at_least": {"type": "input_tokens", "value": 5000},
          "exclude_tools": ["memory"]}]

body = {
    "model": MODEL,
    "max_tokens": 16000,
    "system": "You are a careful software engineer working in the user's repository. Keep notes in your memory "
              "directory so that you can resume if your context is cleared.",
    "thinking": {"type": "enabled", "budget_tokens": 4000},
    "tools": TOOLS,
    "context_management": {"edits": EDITS},
    "messages": messages,
}
with open(OUT, "w") as f:
    json.dump(body, f, indent=1)
    f.write("\n")
with open(SIDECAR, "w") as f:
    json.dump({"preset": "api", "api_edits": EDITS}, f, indent=1)
    f.write("\n")
print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes, {n} tool uses) and {SIDECAR}")
