#!/usr/bin/env python3
"""Writes sample-sessions/opencode-build.db: the worked example of
shared/reference/opencode.md §1.5 and §4, as OpenCode 1.18.33 stores it
(SQLite, tables `session`, `message`, `part`; reference §1.2), with the
reference's third turn and one more prompt after it.

Run from the repository: python3 scripts/make-opencode-sample.py

The session (config `{"compaction":{"prune":true}}`, so prune runs, §2.5):

  turn 1 (09:15)  R1 read build.config.ts   O1 =   2,000 chars -> round(2000/4)     =    500 tokens
                  R2 bash npm run build     O2 = 239,999 chars -> round(59,999.75)  = 60,000 tokens
                  R3 grep vendor/heavy      O3 =   8,000 chars -> round(8000/4)     =  2,000 tokens
                  R4 answer (finish "stop")
  turn 2 (+2 h)   R5 answer                 (the pause changes nothing: prune has no time rule)
  turn 3          R6 read jest.config.ts    O4 =   1,200 chars -> 300 tokens
                  R7 answer
  turn 4          R8 answer

When prune runs (after each loop, §2.2) and what it marks (§2.3):
  - after turn 1: scanning newest -> oldest, `turns` reaches 2 only at turn 1's
    user message, which has no tools: nothing.
  - after turn 2: turn 2 skipped (turns 0 -> 1), turn 1's assistants skipped
    (turns = 1), turn 1's user message makes turns = 2: nothing.
  - after turn 3: turns 3 and 2 are skipped; then turn 1 from its last part back:
        grep O3  2,000  total  2,000 <= 40,000  protected
        bash O2 60,000  total 62,000 >  40,000  pruned 60,000
        read O1    500  total 62,500 >  40,000  pruned 60,500
    pruned = 60,500 > 20,000 (PRUNE_MINIMUM): the bash and the read parts get
    `state.time.compacted` = 1796037991337 (after R7 completed at 1796037991000).
  - after turn 4: the scan stops at the compacted bash part (`break loop`):
    nothing new.

So R1-R7 send every output whole; R8 (the first request whose assistant
`time.created` >= 1796037991337, SPEC §15.14) sends
"[Old tool result content cleared]" for the read O1 and the bash O2; the grep
O3 and the read O4 stay. The stored outputs stay in the rows (§2.4).

Usage and cost per assistant message (`tokens`, `cost`) are made up but
consistent: OpenCode's own total is the sum of `cost`, 0.4914 USD.
"""

import json
import os
import sqlite3

OUT = os.path.join(os.path.dirname(__file__), "..", "sample-sessions", "opencode-build.db")

# Reference §1.5: the exact outputs.
O1 = "".join(f"export const opt{i:02d} = {100+i};".ljust(39) + "\n" for i in range(1, 51))
O2 = "\n".join(
    f"[build] step {i:04d}/4000 compiled src/mod_{i:04d}.ts in 12ms".ljust(59, ".") for i in range(1, 4001)
)
O3 = "".join(
    f"src/mod_{i*37:04d}.ts:12: import heavy from ./vendor/heavy-{i:03d}".ljust(79) + "\n" for i in range(1, 101)
)
O4 = "".join(f"export const jest{i:02d} = {i};".ljust(39) + "\n" for i in range(1, 31))
assert (len(O1), len(O2), len(O3), len(O4)) == (2000, 239999, 8000, 1200)

SES = "ses_dd4438cb3ffeXq3Lm9TzR2bN7c"
PROJECT = "7e1f3c9a2b6d4e8f0a1c3e5b7d9f2a4c6e8b0d13"
SNAP = "9f2c1e7a0b3d4c5e6f708192a3b4c5d6e7f80912"
PRUNED_AT = 1796037991337
MODEL = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}
PATH = {"cwd": "/home/dev/proj", "root": "/home/dev/proj"}

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def ident(prefix, ms, tail):
    """Reference §1.2: prefix_ + 12 hex of the low 48 bits of ms*4096+1 + 14 base62."""
    assert len(tail) == 14 and all(c in B62 for c in tail)
    return f"{prefix}_{(ms * 4096 + 1) & (2**48 - 1):012x}{tail}"


rows = []  # (table, dict)


def user(ms, tail, text, ptail):
    mid = ident("msg", ms, tail)
    rows.append(("message", dict(id=mid, time_created=ms, time_updated=ms,
                                 data={"role": "user", "time": {"created": ms}, "agent": "build", "model": MODEL})))
    rows.append(("part", dict(id=ident("prt", ms + 1, ptail), message_id=mid, time_created=ms + 1,
                              time_updated=ms + 1, data={"type": "text", "text": text})))
    return mid


def assistant(created, completed, tail, parent, finish, cost, tokens, parts):
    """parts: (ms, tail, data) after a step-start; a step-finish closes the step."""
    mid = ident("msg", created, tail)
    rows.append(("message", dict(id=mid, time_created=created, time_updated=completed, data={
        "role": "assistant", "time": {"created": created, "completed": completed}, "parentID": parent,
        "modelID": MODEL["modelID"], "providerID": MODEL["providerID"], "mode": "build", "agent": "build",
        "path": PATH, "cost": cost, "tokens": tokens, "finish": finish})))
    first = parts[0][0] - 20
    rows.append(("part", dict(id=ident("prt", first, "StepStart00000"[:14]), message_id=mid, time_created=first,
                              time_updated=first, data={"type": "step-start", "snapshot": SNAP})))
    for ms, ptail, data in parts:
        rows.append(("part", dict(id=ident("prt", ms, ptail), message_id=mid, time_created=ms,
                                  time_updated=ms, data=data)))
    rows.append(("part", dict(id=ident("prt", completed, "StepFinish0000"), message_id=mid, time_created=completed,
                              time_updated=completed, data={"type": "step-finish", "reason": finish, "snapshot": SNAP,
                                                            "cost": cost, "tokens": tokens})))
    return mid


def tokens(inp, out, read, write):
    return {"input": inp, "output": out, "reasoning": 0, "cache": {"read": read, "write": write}}


def tool(call, name, inp, output, title, start, end, compacted=None):
    t = {"start": start, "end": end}
    if compacted is not None:
        t["compacted"] = compacted
    return {"type": "tool", "callID": call, "tool": name, "state": {
        "status": "completed", "input": inp, "output": output, "title": title,
        "metadata": {"truncated": False}, "time": t}}


# Turn 1 (reference §1.5).
u1 = user(1796030102481, "Kp8Vw1Ys4Hd6Gf", "Why is npm run build so slow? Check build.config.ts and the build output.",
          "Ra5Nc2Qe7Jt9Bm")
assistant(1796030102530, 1796030106150, "Zu4Dx8Lk1Pw3Sv", u1, "tool-calls", 0.034, tokens(3, 61, 0, 9120), [
    (1796030105880, "Wg3Js7Ke1Vx8Ld", tool("toolu_01Hq3xK9mVb2Lw7Rt5Yz8NcD", "read",
                                            {"filePath": "/home/dev/proj/build.config.ts"}, O1, "build.config.ts",
                                            1796030105902, 1796030106140, PRUNED_AT))])
assistant(1796030106160, 1796030151040, "Dn1Fv5Ug8Xs3Ka", u1, "tool-calls", 0.012, tokens(4, 52, 9120, 640), [
    (1796030109874, "Vs2Kd8Pm5Rj1Gx", tool("toolu_01Nm4Pq8Wx2Ks6Jd9Tb3LvYe", "bash",
                                            {"command": "npm run build", "description": "Run the build"}, O2,
                                            "Run the build", 1796030109901, 1796030151020, PRUNED_AT))])
assistant(1796030151050, 1796030158950, "Ja8Nx1Sv7Dk2Mp", u1, "tool-calls", 0.23, tokens(4, 57, 9760, 60150), [
    (1796030158702, "Lb5Zm3Yk8Vd1Rs", tool("toolu_01Rc7Vn2Hs5Qw8Lm1Xk4PzTb", "grep",
                                            {"pattern": "vendor/heavy", "path": "/home/dev/proj/src"}, O3,
                                            "vendor/heavy", 1796030158720, 1796030158911))])
assistant(1796030158960, 1796030167330, "Ub3Hs8Lw4Mg9Ez", u1, "stop", 0.031, tokens(4, 88, 69910, 2100), [
    (1796030163120, "Gx2Cm6Rf9Ju4Wp", {"type": "text", "text": "The build is slow because 100 modules import "
                                       "./vendor/heavy and source maps are generated for all 4,000 modules.",
                                       "time": {"start": 1796030163120, "end": 1796030167300}})])
# Turn 2, two hours later.
u2 = user(1796037614005, "Yr4Tb9Gq2Fe6Mc", "ok, turn source maps off for production builds", "Cw1Ks5Xj8Pd3Nz")
assistant(1796037614060, 1796037619554, "Ev6Hm2Bt9Rq4La", u2, "stop", 0.094, tokens(3, 14, 0, 72050), [
    (1796037617420, "Rm3Fy8Lc5Vp2Jq", {"type": "text", "text": "I will edit build.config.ts.",
                                       "time": {"start": 1796037617420, "end": 1796037619500}})])
# Turn 3 (reference §4, the extension).
u3 = user(1796037960000, "Hq7Nw2Lp5Tc8Vb", "also check jest.config.ts", "Fz3Km9Dr1Yx6Gs")
assistant(1796037960050, 1796037962310, "Pn4Jt8Wc2Ls7Qd", u3, "tool-calls", 0.0301, tokens(3, 48, 72050, 420), [
    (1796037962000, "Bv6Xs1Mh9Kr3Ne", tool("toolu_01Wd5Rk2Hn8Tq4Zp7Lc1MvXs", "read",
                                            {"filePath": "/home/dev/proj/jest.config.ts"}, O4, "jest.config.ts",
                                            1796037962000, 1796037962300))])
assistant(1796037962320, 1796037991000, "Tc2Gv7Nq4Wm8Jf", u3, "stop", 0.0258, tokens(3, 95, 72470, 330), [
    (1796037962400, "Mk5Yp1Ds8Hb3Wr", {"type": "text", "text": "jest.config.ts transforms every module with "
                                       "ts-jest; it is not part of the production build.",
                                       "time": {"start": 1796037962400, "end": 1796037990900}})])
# Turn 4: the first request after the prune marks (SPEC §15.14).
u4 = user(1796038200000, "Qs9Lc3Vn6Xd1Ht", "thanks; add a note about it to the README", "Jw4Bf8Pk2Zm5Ry")
assistant(1796038200050, 1796038204000, "Ag1Rt6Mz3Kq9Lv", u4, "stop", 0.0345, tokens(3, 41, 9120, 3350), [
    (1796038200500, "Ud7Hc2Wn5Lx8Pb", {"type": "text", "text": "Added a Build section to README.md.",
                                       "time": {"start": 1796038200500, "end": 1796038203900}})])

assistants = [r[1]["data"] for r in rows if r[0] == "message" and r[1]["data"]["role"] == "assistant"]
SESSION = dict(
    id=SES, project_id=PROJECT, workspace_id=None, parent_id=None, slug="brave-falcon", directory="/home/dev/proj",
    path=None, title="Slow npm build", version="1.18.33",
    cost=round(sum(a["cost"] for a in assistants), 6),
    tokens_input=sum(a["tokens"]["input"] for a in assistants),
    tokens_output=sum(a["tokens"]["output"] for a in assistants),
    tokens_reasoning=0,
    tokens_cache_read=sum(a["tokens"]["cache"]["read"] for a in assistants),
    tokens_cache_write=sum(a["tokens"]["cache"]["write"] for a in assistants),
    revert=None, time_created=1796030100300, time_updated=1796038204000, time_compacting=None, time_archived=None)
assert abs(SESSION["cost"] - 0.4914) < 1e-9, SESSION["cost"]

# Reference §1.2 (1.18.33 schema; the columns mcscope does not read are kept for shape).
SCHEMA = """
CREATE TABLE `session` ( `id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text,
  `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL, `version` text NOT NULL,
  `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer,
  `summary_diffs` text, `metadata` text, `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL,
  `tokens_output` integer DEFAULT 0 NOT NULL, `tokens_reasoning` integer DEFAULT 0 NOT NULL,
  `tokens_cache_read` integer DEFAULT 0 NOT NULL, `tokens_cache_write` integer DEFAULT 0 NOT NULL, `revert` text,
  `permission` text, `agent` text, `model` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
  `time_compacting` integer, `time_archived` integer );
CREATE TABLE `message` ( `id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL,
  FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE );
CREATE TABLE `part` ( `id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL );
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
"""


def main():
    out = os.path.normpath(OUT)
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(out + suffix):
            os.remove(out + suffix)
    db = sqlite3.connect(out)
    db.executescript(SCHEMA)
    cols = list(SESSION)
    db.execute(f"INSERT INTO session ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
               [SESSION[c] for c in cols])
    for table, r in rows:
        data = json.dumps(r["data"], separators=(",", ":"))
        if table == "message":
            db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                       (r["id"], SES, r["time_created"], r["time_updated"], data))
        else:
            db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                       (r["id"], r["message_id"], SES, r["time_created"], r["time_updated"], data))
    db.commit()
    db.execute("VACUUM")
    db.close()
    print(f"wrote {out}: {sum(1 for t, _ in rows if t == 'message')} messages, "
          f"{sum(1 for t, _ in rows if t == 'part')} parts, cost {SESSION['cost']}")


if __name__ == "__main__":
    main()
