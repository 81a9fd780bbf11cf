"""A large OpenCode database (version 1.3.2, so auto runs prune; the 1.18.33 schema) for load tests: N requests, each a tool step
with a 20,000-character output (the schema of scripts/make-opencode-sample.py,
trimmed to the columns mcscope reads), a prompt every 5 requests."""
import sqlite3, json, os, sys
N = int(sys.argv[1]); out = sys.argv[2]
# An optional third argument: the characters of each output (default 20,000).
CHARS = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
T0 = 1796030102000
if os.path.exists(out): os.remove(out)
db = sqlite3.connect(out)
db.executescript("""
CREATE TABLE `session` ( `id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text,
  `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL,
  `cost` real DEFAULT 0 NOT NULL, `revert` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL );
CREATE TABLE `message` ( `id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL );
CREATE TABLE `part` ( `id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL );
""")
db.execute("insert into session values ('ses_b','p',NULL,'s','/home/dev/proj','big','1.3.2',0,NULL,?,?)", (T0, T0))
n = 0
def nid(p):
    global n
    n += 1
    return f"{p}_{(T0 + n):012x}{n:014d}"
body = "".join(f"line {i} of the output, with some text to make it long enough\n" for i in range(max(1, CHARS // 60 + 1)))[:CHARS]
user = None
for k in range(N):
    if k % 5 == 0:
        user = nid("msg")
        db.execute("insert into message values (?,?,?,?,?)", (user, 'ses_b', T0, T0, json.dumps({"role": "user", "time": {"created": T0 + n * 1000}})))
        db.execute("insert into part values (?,?,?,?,?,?)", (nid("prt"), user, 'ses_b', T0, T0, json.dumps({"type": "text", "text": f"prompt {k}"})))
    mid = nid("msg")
    last = k % 5 == 4
    d = {"role": "assistant", "parentID": user, "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "cost": 0.01,
         "finish": "stop" if last else "tool-calls", "time": {"created": T0 + n * 1000, "completed": T0 + n * 1000 + 500},
         "tokens": {"input": 3, "output": 100, "reasoning": 0, "cache": {"read": 1000 * k, "write": 5000}}}
    db.execute("insert into message values (?,?,?,?,?)", (mid, 'ses_b', T0, T0, json.dumps(d)))
    db.execute("insert into part values (?,?,?,?,?,?)", (nid("prt"), mid, 'ses_b', T0, T0, json.dumps({"type": "text", "text": "working on it"})))
    if not last:
        call = f"toolu_{k:08d}"
        db.execute("insert into part values (?,?,?,?,?,?)", (nid("prt"), mid, 'ses_b', T0, T0, json.dumps(
            {"type": "tool", "callID": call, "tool": "read", "state": {"status": "completed", "input": {"filePath": f"/home/dev/proj/f{k}.ts"},
             "output": body, "title": "f", "metadata": {}, "time": {"start": T0, "end": T0 + 1}}})))
db.commit()
