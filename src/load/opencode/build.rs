//! OpenCode messages and parts → the normalized session (reference §1.3–§1.4).

use super::super::RecordSink;
use super::super::claude;
use super::{Row, SessionInfo};
use crate::load::claude::fields;
use crate::session::{Diagnostic, Format, Part, Role, Session, SessionWarning};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::Path;

/// What a pending or running tool part reads in the wire (reference §1.4:
/// 1.18.33 `toModelMessages`).
const INTERRUPTED: &str = "[Tool execution was interrupted]";

/// What OpenCode sends for a user message's `compaction` part (1.3.2 and
/// 1.18.33 `toModelMessages`: `"What did we do so far?"`).
const COMPACTION_ASK: &str = "What did we do so far?";

/// What it sends for a `subtask` part (1.18.33 `toModelMessages`).
const SUBTASK_NOTE: &str = "The following tool was executed by the user";

/// A message or part row: its id and its data.
type Item = (String, Value);

/// Builds the session from its rows (messages and parts, any order).
pub(super) fn session(
    path: &Path,
    format: Format,
    info: SessionInfo,
    messages: Vec<Row>,
    parts: Vec<Row>,
) -> Session {
    let mut diagnostics = Vec::new();
    let (messages, by_msg) = sorted_rows(messages, parts, &mut diagnostics);
    let warnings: Vec<SessionWarning> = revert_warning(&info, &messages).into_iter().collect();
    let mut walk = Walk::new(&messages, &by_msg, info.version.clone());
    let mut feeder = Feeder {
        sink: claude::Sink::for_format(path, format),
        line: 0,
        skipped: Vec::new(),
    };
    for i in 0..messages.len() {
        walk.message(i, &mut feeder, &mut diagnostics);
    }
    diagnostics.extend(std::mem::take(&mut feeder.skipped));
    let mut s = feeder.sink.finish(diagnostics);
    s.session_id = Some(info.id.clone());
    // SPEC §2: a sub-agent session is planned as a what-if (reference §5.7:
    // sub-agent sessions prune themselves; their rows are in the same tables).
    s.subagent_what_if = info.parent_id.is_some();
    s.warnings.extend(warnings);
    walk.got.fill(&mut s);
    s
}

/// The rows that read, messages in id order and each message's parts in id
/// order; a row whose data does not read is a diagnostic.
fn sorted_rows(
    messages: Vec<Row>,
    parts: Vec<Row>,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<Item>, HashMap<String, Vec<Item>>) {
    let mut messages: Vec<Item> = messages
        .into_iter()
        .enumerate()
        .filter_map(|(i, r)| match r.data {
            Ok(v) => Some((r.id, v)),
            Err(e) => {
                diagnostics.push(row_diagnostic(i + 1, &format!("message {}", r.id), &e));
                None
            }
        })
        .collect();
    // Reference §1.2: ids are time-ordered; the loop reads them in id order.
    messages.sort_by(|a, b| a.0.cmp(&b.0));
    let mut by_msg: HashMap<String, Vec<Item>> = HashMap::new();
    for (i, r) in parts.into_iter().enumerate() {
        match r.data {
            Ok(v) => by_msg
                .entry(r.message_id.unwrap_or_default())
                .or_default()
                .push((r.id, v)),
            Err(e) => diagnostics.push(row_diagnostic(i + 1, &format!("part {}", r.id), &e)),
        }
    }
    for list in by_msg.values_mut() {
        list.sort_by(|a, b| a.0.cmp(&b.0));
    }
    // A part whose message is not in the session is read by nothing: said,
    // not dropped in silence.
    let known: std::collections::HashSet<&str> =
        messages.iter().map(|(id, _)| id.as_str()).collect();
    let mut orphans: Vec<(&String, &Vec<Item>)> = by_msg
        .iter()
        .filter(|(mid, _)| !known.contains(mid.as_str()))
        .collect();
    orphans.sort_by(|a, b| a.0.cmp(b.0));
    for (mid, list) in orphans {
        for (pid, _) in list {
            diagnostics.push(Diagnostic {
                line: 0,
                byte_offset: 0,
                message: format!(
                    "part {pid} skipped: its message {} is not in the session",
                    if mid.is_empty() {
                        "(none named)"
                    } else {
                        mid.as_str()
                    }
                ),
            });
        }
    }
    (messages, by_msg)
}

/// Reference §1.4: `session.revert` hides the messages from `revert.messageID`
/// on (and, with `partID`, that message's parts from it on) from OpenCode's
/// next request, until the next prompt removes them (`SessionRevert.cleanup`).
/// They are the session's tail, and their requests were sent and billed
/// before the revert (as a rewound Claude branch, SPEC §15.1): they stay,
/// and no request of the file comes after them to leave them out of; the
/// warning says so.
fn revert_warning(info: &SessionInfo, messages: &[Item]) -> Option<SessionWarning> {
    let revert = info.revert.as_ref()?;
    let msg = revert.get("messageID").and_then(Value::as_str)?;
    let part = revert.get("partID").and_then(Value::as_str);
    let hidden = messages
        .iter()
        .filter(|(id, _)| id.as_str() > msg || (part.is_none() && id == msg))
        .count();
    Some(SessionWarning {
        id: "opencode_revert",
        line: None,
        text: match part {
            None => format!(
                "the session is reverted to message {msg}: OpenCode's next request leaves out {hidden} message(s), from that one on; their requests were sent and billed, and are shown"
            ),
            Some(p) => format!(
                "the session is reverted to message {msg}, part {p}: OpenCode's next request leaves out that message's parts from {p} on and the {hidden} message(s) after it; their requests were sent and billed, and are shown"
            ),
        },
    })
}

/// Feeds Claude-shaped records to the Claude reader, numbering them as its
/// lines; a record it cannot parse is skipped with a diagnostic.
struct Feeder {
    sink: claude::Sink,
    line: usize,
    skipped: Vec<Diagnostic>,
}

impl Feeder {
    /// `again`: the record is of a message already fed, in the view again
    /// (a compaction's retained tail): an assistant record is no response.
    fn feed(&mut self, record: Value, body: Option<Value>, again: bool) {
        self.line += 1;
        let line = self.line;
        let text = record.to_string();
        match claude::Sink::parse(&text) {
            Ok(tagged) => {
                let part = Part::Inline(Box::new(body.unwrap_or(Value::Null)));
                if again {
                    self.sink.apply_inline(tagged, line, part);
                } else {
                    self.sink.apply_part(tagged, line, part);
                }
            }
            Err(e) => self.skipped.push(Diagnostic {
                line,
                byte_offset: 0,
                message: format!("record {line} skipped: {e}"),
            }),
        }
    }
}

/// What OpenCode records beside the messages that its plans and the bill
/// read, gathered while the messages are fed (reference §1.3, §2.3, §2.4).
#[derive(Default)]
struct Gathered {
    /// Each call's file, by call id (the part's input names it).
    file_paths: HashMap<String, String>,
    /// SPEC §15.14 `recorded.harness_usd`: the sum of the assistant messages'
    /// `cost` (reference §1.3), a reverted tail's included (it was billed).
    harness_usd: Option<f64>,
    /// Token counts of the wrong shape, in words (SPEC §15.2 warnings).
    warnings: Vec<String>,
    /// Reference §1.3, §2.4: each completed part's `state.time.compacted`
    /// (callID, ms), and each assistant message's `time.created`, in request
    /// order.
    marks: Vec<(String, i64)>,
    assistant_created: Vec<Option<i64>>,
    /// Reference §2.3: prune counts every user message as a turn.
    user_messages: Vec<(usize, usize)>,
    summaries: Vec<(usize, usize)>,
    /// Per message, the results its own records added; and each result a
    /// retained tail repeats in a later view, with the one it repeats.
    msg_results: Vec<(usize, usize)>,
    copies: HashMap<usize, usize>,
    /// Per request (assistant message), whether its prompt loop ended with it
    /// (prune runs then), and the requests that are a compaction's summary.
    loop_ends: Vec<bool>,
    summary_requests: Vec<usize>,
}

impl Gathered {
    /// Writes what was gathered into the session the records made.
    fn fill(self, s: &mut Session) {
        s.harness_usd = self.harness_usd;
        s.warnings
            .extend(self.warnings.into_iter().map(|text| SessionWarning {
                id: crate::load::claude::fields::MALFORMED,
                line: None,
                text,
            }));
        for c in &mut s.calls {
            if let Some(p) = self.file_paths.get(&c.id) {
                c.file_path = Some(p.clone());
            }
        }
        s.user_messages = self.user_messages;
        s.loop_ends = self.loop_ends;
        s.summary_requests = self.summary_requests;
        s.result_copies = self.copies;
        s.summaries = self.summaries;
        attach_marks(s, &self.marks, &self.assistant_created);
        // SPEC §15.13: OpenCode's own estimate, `round(len / 4)`, is the one its
        // prune decides by; it is the results' `est_tokens` here.
        s.harness_tokens = s.results.iter().map(|r| Some(r.est_tokens)).collect();
    }
}

/// The walk over the messages in id order: what it reads of them all, and
/// what it has gathered so far.
struct Walk<'a> {
    messages: &'a [Item],
    by_msg: &'a HashMap<String, Vec<Item>>,
    version: Option<String>,
    /// Reference §1.4: summary assistant → the compaction it completed.
    completed: HashMap<String, String>,
    /// A completed compaction's user message: its place, its body and time.
    compaction_asks: HashMap<&'a str, (usize, Value, Option<i64>)>,
    next_users: Vec<Option<usize>>,
    index: HashMap<&'a str, usize>,
    /// A build that records no `finish` at all: a response a user message
    /// follows ends its loop.
    records_finish: bool,
    got: Gathered,
}

impl<'a> Walk<'a> {
    fn new(
        messages: &'a [Item],
        by_msg: &'a HashMap<String, Vec<Item>>,
        version: Option<String>,
    ) -> Walk<'a> {
        Walk {
            messages,
            by_msg,
            version,
            completed: completed_compactions(messages),
            compaction_asks: HashMap::new(),
            next_users: next_user_messages(messages),
            index: messages
                .iter()
                .enumerate()
                .map(|(i, (id, _))| (id.as_str(), i))
                .collect(),
            records_finish: messages
                .iter()
                .any(|(_, m)| m.get("finish").is_some_and(Value::is_string)),
            got: Gathered {
                msg_results: Vec::with_capacity(messages.len()),
                ..Gathered::default()
            },
        }
    }

    fn parts_of(&self, i: usize) -> &'a [Item] {
        self.by_msg
            .get(&self.messages[i].0)
            .map_or(&[][..], Vec::as_slice)
    }

    /// The parts of the message `m`'s `parentID` names (none: no such message).
    fn parent_parts(&self, m: &Value) -> &'a [Item] {
        m.get("parentID")
            .and_then(Value::as_str)
            .and_then(|p| self.index.get(p))
            .map_or(&[][..], |&p| self.parts_of(p))
    }

    /// Feeds message `i`'s records, notes what it tells the plans, and after
    /// the summary of a completed compaction, starts the view it leaves.
    fn message(&mut self, i: usize, feeder: &mut Feeder, diagnostics: &mut Vec<Diagnostic>) {
        let messages = self.messages;
        let (id, m) = &messages[i];
        let parts = self.parts_of(i);
        let first = feeder.sink.made().1;
        if m.get("role").and_then(Value::as_str) == Some("assistant") {
            self.got.warnings.extend(fields::count_warnings(
                m.get("tokens"),
                &TOKEN_FIELDS,
                &format!("message {id}"),
            ));
        }
        let records = records_of(m, parts, id, &self.version, &mut self.got.file_paths);
        let mut shell = false;
        match m.get("role").and_then(Value::as_str) {
            Some("user") => {
                if self.completed.values().any(|c| c == id) {
                    let body = records.first().map(|(_, b)| b.clone()).unwrap_or_default();
                    self.compaction_asks.insert(id, (i, body, created_of(m)));
                }
                self.got.user_messages.push(feeder.sink.made());
            }
            Some("assistant") if shell_run(m, self.parent_parts(m)) => {
                // A `!command` the user ran: in later requests' history, no
                // request of its own (1.18.33 `SessionPrompt.shellImpl`).
                shell = true;
                self.got.marks.extend(compacted_marks(parts));
            }
            Some("assistant") => self.response(i, feeder),
            other => diagnostics.push(Diagnostic {
                line: 0,
                byte_offset: 0,
                message: format!(
                    "message {id} skipped: role {}",
                    other.map_or("absent".into(), |r| format!("{r:?}"))
                ),
            }),
        }
        let wire = records.first().map(|(_, b)| b.clone());
        for (record, body) in records {
            if let Some(assistant) = sent_as(&record, &body) {
                feeder.feed(record, Some(body), shell && assistant);
            }
        }
        self.got.msg_results.push((first, feeder.sink.made().1));
        self.after_compaction(i, wire, feeder);
    }

    /// An assistant message that was a response: its cost, time, whether its
    /// loop ended with it, whether it is a compaction's summary, and its
    /// parts' prune marks.
    fn response(&mut self, i: usize, feeder: &Feeder) {
        let m = &self.messages[i].1;
        let parts = self.parts_of(i);
        if let Some(c) = m.get("cost").and_then(Value::as_f64) {
            *self.got.harness_usd.get_or_insert(0.0) += c;
        }
        self.got.assistant_created.push(created_of(m));
        let next_user = self.next_users[i];
        let own = Ends {
            m,
            parts,
            compaction: m
                .get("summary")
                .and_then(Value::as_bool)
                .filter(|s| *s)
                .and_then(|_| compaction_part(self.parent_parts(m))),
            next: next_user.map(|u| (&self.messages[u].1, self.parts_of(u))),
            // Where no `finish` is recorded: the message after it is a
            // user message, or there is none.
            bare_end: (!self.records_finish).then(|| next_user.is_none_or(|u| u == i + 1)),
        };
        self.got.loop_ends.push(own.ends_loop());
        // Reference §2.3 "Stop": any summary assistant, failed or not;
        // each sent the summarizer's prompt.
        if m.get("summary").and_then(Value::as_bool) == Some(true) {
            let made = feeder.sink.made().1;
            self.got
                .summaries
                .push((self.got.user_messages.len(), made));
            self.got
                .summary_requests
                .push(self.got.assistant_created.len());
        }
        self.got.marks.extend(compacted_marks(parts));
    }

    /// Reference §1.4: the view starts at the last completed compaction
    /// (`filterCompacted`), with its user message and this summary at its
    /// head. The summary's own request is sent before that, with the view
    /// it summarizes and the compaction's prompt (1.3.2
    /// `SessionCompaction.process`: `toModelMessages(input.messages)` plus
    /// the prompt). Nothing, unless message `i` (whose first record's body
    /// is `wire`) is the summary of a completed compaction.
    fn after_compaction(&mut self, i: usize, wire: Option<Value>, feeder: &mut Feeder) {
        let (id, m) = &self.messages[i];
        let Some((c, ask, ask_at)) = self
            .completed
            .get(id.as_str())
            .and_then(|c| self.compaction_asks.get(c.as_str()))
        else {
            return;
        };
        let c = *c;
        feeder.feed(
            json!({"type": "system", "subtype": "compact_boundary"}),
            None,
            false,
        );
        feeder.sink.inline(
            Role::User,
            Part::Inline(Box::new(ask.clone())),
            timestamp(*ask_at).as_deref(),
        );
        feeder.sink.inline(
            Role::Assistant,
            Part::Inline(Box::new(wire.unwrap_or_default())),
            timestamp(completed_of(m)).as_deref(),
        );
        self.retained_tail(c, feeder);
    }

    /// 1.18 (`filterCompacted`, grep `if(!z.tail_start_id)break`): the
    /// compaction part of message `c` (its user message) with a
    /// `tail_start_id` keeps the messages from there up to the compaction
    /// verbatim, after the summary (`[...slice(compaction, summary + 1),
    /// ...slice(tail, compaction), ...after]`): they are fed again, and each
    /// result they repeat is noted with the one it repeats.
    fn retained_tail(&mut self, c: usize, feeder: &mut Feeder) {
        let tail = self.messages[c].0.as_str();
        let tail_start = self
            .by_msg
            .get(tail)
            .into_iter()
            .flatten()
            .find_map(|(_, p)| {
                (p.get("type").and_then(Value::as_str) == Some("compaction"))
                    .then(|| p.get("tail_start_id").and_then(Value::as_str))
                    .flatten()
            })
            .and_then(|t| self.messages[..c].iter().position(|(id, _)| id == t));
        for j in tail_start.into_iter().flat_map(|t| t..c) {
            let (tid, tm) = &self.messages[j];
            let tparts = self.parts_of(j);
            let start = feeder.sink.made().1;
            for (record, body) in
                records_of(tm, tparts, tid, &self.version, &mut self.got.file_paths)
            {
                if let Some(again) = sent_as(&record, &body) {
                    feeder.feed(record, Some(body), again);
                }
            }
            let (from, to) = self.got.msg_results[j];
            let end = feeder.sink.made().1;
            if end - start == to - from {
                self.got.copies.extend((start..end).zip(from..to));
            }
        }
    }
}

/// The completed tool parts of a message that carry a prune mark.
fn compacted_marks(parts: &[(String, Value)]) -> Vec<(String, i64)> {
    parts
        .iter()
        .filter(|(_, p)| p.get("type").and_then(Value::as_str) == Some("tool"))
        .filter(|(_, p)| p.pointer("/state/status").and_then(Value::as_str) == Some("completed"))
        .filter_map(|(_, p)| {
            let ms = p.pointer("/state/time/compacted").and_then(Value::as_i64)?;
            let id = p.get("callID").and_then(Value::as_str)?;
            Some((id.to_string(), ms))
        })
        .collect()
}

/// The prune marks as evidence (SPEC §14, §15.14): each belongs to the first
/// request whose assistant `time.created` ≥ its `time.compacted` (reference
/// §5.2: prune runs in the background after a loop, so a request of the next
/// turn may start before it wrote); the marks of one request are one record.
/// A session with a mark has `plan_recorded` on every request (prune was on).
fn attach_marks(s: &mut Session, marks: &[(String, i64)], created: &[Option<i64>]) {
    if marks.is_empty() {
        return;
    }
    // Requests with a response, in order: the k-th is the k-th assistant.
    let responding: Vec<usize> = s
        .requests
        .iter()
        .filter(|r| r.response.is_some())
        .map(|r| r.index)
        .collect();
    let mut by_request: std::collections::BTreeMap<usize, Vec<&str>> = Default::default();
    for (id, ms) in marks {
        let at = created
            .iter()
            .zip(&responding)
            .find(|(c, _)| c.is_some_and(|c| c >= *ms))
            .map_or(s.requests.len() + 1, |(_, &k)| k);
        by_request.entry(at).or_default().push(id);
    }
    for (at, ids) in by_request {
        let segment = s
            .request(at)
            .map_or_else(|| s.requests.last().map_or(0, |r| r.segment), |r| r.segment);
        // OpenCode's own count of what it cleared: `Token.estimate` of each.
        let tokens: u64 = ids
            .iter()
            .filter_map(|id| s.results.iter().rev().find(|r| r.id == *id))
            .map(|r| r.est_tokens)
            .sum();
        s.evidence.push(crate::session::Evidence {
            line: 0,
            before_request: at,
            compacted_tool_ids: ids.iter().map(|id| id.to_string()).collect(),
            ids_complete: true,
            budget_writer: true,
            pre_tokens: None,
            tokens_saved: Some(tokens),
            uuid: None,
            after_request: at.saturating_sub(1),
            segment,
            pruned: true,
            mask: false,
        });
    }
    for r in &mut s.requests {
        r.plan_recorded = true;
    }
}

/// A diagnostic for a row whose `data` could not be read.
fn row_diagnostic(n: usize, what: &str, e: &str) -> Diagnostic {
    Diagnostic {
        line: n,
        byte_offset: 0,
        message: format!("{what} skipped: {e}"),
    }
}

/// A Claude-shaped record around a message body (what the reader parses).
fn record(kind: &str, ms: Option<i64>, version: &Option<String>, message: Value) -> Value {
    let mut r = Map::new();
    r.insert("type".into(), kind.into());
    if let Some(ts) = timestamp(ms) {
        r.insert("timestamp".into(), ts.into());
    }
    if let Some(v) = version {
        r.insert("version".into(), v.clone().into());
    }
    r.insert("message".into(), message);
    Value::Object(r)
}

/// For each message, the first user message after it (its index).
fn next_user_messages(messages: &[(String, Value)]) -> Vec<Option<usize>> {
    let mut out = vec![None; messages.len()];
    let mut next = None;
    for (i, (_, m)) in messages.iter().enumerate().rev() {
        out[i] = next;
        if m.get("role").and_then(Value::as_str) == Some("user") {
            next = Some(i);
        }
    }
    out
}

/// An assistant message, with what tells whether its prompt loop ended with
/// it (prune runs then).
struct Ends<'a> {
    m: &'a Value,
    parts: &'a [(String, Value)],
    /// For a summary, its compaction's `compaction` part.
    compaction: Option<&'a Value>,
    /// The first user message after it, with its parts.
    next: Option<(&'a Value, &'a [(String, Value)])>,
    /// For a build that records no `finish`: whether only a user message (or
    /// nothing) follows it.
    bare_end: Option<bool>,
}

impl Ends<'_> {
    /// Reference §2.2; 1.18.33 `SessionPrompt.run`: the loop breaks when the
    /// newest assistant has a `finish` other than `tool-calls` / `unknown`, no
    /// tool part of its own to answer, and answers the newest user message
    /// (`j.parentID===X.id`); a failed step or a rejected permission stops it
    /// too. `prune` is forked after the loop.
    fn ends_loop(&self) -> bool {
        let m = self.m;
        if let Some(e) = m.get("error").filter(|e| !e.is_null()) {
            // A failed step stops the loop; an abort interrupts its fiber, and
            // the prune after the loop never runs (`Wl.interrupt(x.run.fiber)`).
            return e.get("name").and_then(Value::as_str) != Some("MessageAbortedError");
        }
        // A rejected permission or a dismissed question stops it (`blocked`).
        if self.parts.iter().any(|(_, p)| rejected(p)) {
            return true;
        }
        let finished = match (m.get("finish").and_then(Value::as_str), self.bare_end) {
            (Some(f), _) => f != "tool-calls" && f != "unknown",
            (None, Some(bare)) => bare,
            (None, None) => false,
        };
        // `fe`: a tool part it still has to answer (not run by the provider,
        // not interrupted) keeps the loop going, whatever `finish` says.
        let answers = self.parts.iter().any(|(_, p)| {
            p.get("type").and_then(Value::as_str) == Some("tool")
                && p.pointer("/metadata/providerExecuted") != Some(&Value::Bool(true))
                && p.pointer("/state/metadata/interrupted") != Some(&Value::Bool(true))
        });
        if !finished || answers {
            return false;
        }
        // An auto-compaction's summary: the loop carries on with the message
        // `process` writes after it (the earlier prompt posted again after an
        // overflow, else the synthetic continue).
        let auto = self
            .compaction
            .is_some_and(|c| c.get("auto") == Some(&Value::Bool(true)));
        let overflow = self
            .compaction
            .is_some_and(|c| c.get("overflow") == Some(&Value::Bool(true)));
        let Some((next, next_parts)) = self.next else {
            return true;
        };
        if auto && overflow {
            return false;
        }
        // The newest user message when the loop looked must be the one this
        // answers: a prompt written while it streamed joins the loop; so do
        // the continue an auto-compaction writes and the compaction message a
        // step that overflowed makes.
        if let (Some(asked), Some(done)) = (created_of(next), completed_of(m))
            && asked < done
        {
            return false;
        }
        !next_parts.iter().any(|(_, p)| {
            p.pointer("/metadata/compaction_continue") == Some(&Value::Bool(true))
                || (p.get("type").and_then(Value::as_str) == Some("compaction")
                    && p.get("auto") == Some(&Value::Bool(true)))
        })
    }
}

/// A tool part the user refused (1.18.33 `failToolCall`: a
/// `PermissionRejectedError` or `QuestionRejectedError` sets `blocked`).
fn rejected(p: &Value) -> bool {
    p.get("type").and_then(Value::as_str) == Some("tool")
        && p.pointer("/state/status").and_then(Value::as_str) == Some("error")
        && p.pointer("/state/error")
            .and_then(Value::as_str)
            .is_some_and(|e| {
                e.starts_with("The user rejected permission to use this specific tool call.")
                    || e.starts_with("The user dismissed this question")
            })
}

/// The `compaction` part among a message's parts.
fn compaction_part(parts: &[(String, Value)]) -> Option<&Value> {
    parts
        .iter()
        .map(|(_, p)| p)
        .find(|p| p.get("type").and_then(Value::as_str) == Some("compaction"))
}

/// Whether assistant message `m` is a `!command` the user ran (1.18.33
/// `SessionPrompt.shellImpl`: a user message holding only the synthetic note
/// "The following tool was executed by the user", and an assistant with no
/// `finish` holding the shell's part), which sends no model request.
fn shell_run(m: &Value, parent: &[(String, Value)]) -> bool {
    m.get("finish").is_none_or(Value::is_null)
        && m.get("error").is_none_or(Value::is_null)
        && !parent.is_empty()
        && parent.iter().all(|(_, p)| {
            p.get("type").and_then(Value::as_str) == Some("text")
                && p.get("synthetic") == Some(&Value::Bool(true))
                && p.get("text").and_then(Value::as_str) == Some(SUBTASK_NOTE)
        })
}

/// Whether a later request leaves assistant message `m` out (1.18.33
/// `toModelMessages`: `if(V.info.error&&!(aborted&&V.parts.some(not step-start
/// or reasoning)))continue`).
fn unsent(m: &Value, parts: &[(String, Value)]) -> bool {
    let Some(e) = m.get("error").filter(|e| !e.is_null()) else {
        return false;
    };
    let aborted = e.get("name").and_then(Value::as_str) == Some("MessageAbortedError");
    let content = parts.iter().any(|(_, p)| {
        !matches!(
            p.get("type").and_then(Value::as_str),
            Some("step-start" | "reasoning")
        )
    });
    !(aborted && content)
}

/// Whether a record is sent, and then whether it is an assistant's: 1.18.33
/// `toModelMessages` sends no user message left with no part
/// (`if(X.parts.length>0)`); it still counts as a turn.
fn sent_as(record: &Value, body: &Value) -> Option<bool> {
    let kind = record.get("type").and_then(Value::as_str);
    let empty = body["content"].as_array().is_some_and(Vec::is_empty);
    (!(kind == Some("user") && empty)).then_some(kind == Some("assistant"))
}

/// A message's `time.created`.
fn created_of(m: &Value) -> Option<i64> {
    m.pointer("/time/created").and_then(Value::as_i64)
}

/// A message's `time.completed`, else its `time.created`.
fn completed_of(m: &Value) -> Option<i64> {
    m.pointer("/time/completed")
        .and_then(Value::as_i64)
        .or(created_of(m))
}

/// A message's records as the reader parses them, each with the body the wire
/// sends: a user message's; an assistant message's, and the results after it.
fn records_of(
    m: &Value,
    parts: &[(String, Value)],
    id: &str,
    version: &Option<String>,
    file_paths: &mut HashMap<String, String>,
) -> Vec<(Value, Value)> {
    match m.get("role").and_then(Value::as_str) {
        Some("user") => {
            let body = json!({"role": "user", "content": user_blocks(parts)});
            vec![(record("user", created_of(m), version, body.clone()), body)]
        }
        Some("assistant") => {
            let at = completed_of(m);
            // 1.18.33 `toModelMessages` leaves out a failed response (an
            // aborted one only when it has nothing but reasoning): its
            // request was sent and billed, its content is in no later one.
            let (blocks, results) = if unsent(m, parts) {
                (Vec::new(), Vec::new())
            } else {
                assistant_blocks(parts, file_paths)
            };
            let mut body = Map::new();
            body.insert("role".into(), "assistant".into());
            body.insert("content".into(), Value::Array(blocks));
            let wire = Value::Object(body.clone());
            body.insert("id".into(), Value::String(id.to_string()));
            if let Some(model) = m.get("modelID").filter(|v| v.is_string()) {
                body.insert("model".into(), model.clone());
            }
            if let Some(usage) = usage(m) {
                body.insert("usage".into(), usage);
            }
            let mut out = vec![(record("assistant", at, version, Value::Object(body)), wire)];
            if !results.is_empty() {
                let body = json!({"role": "user", "content": results});
                out.push((record("user", at, version, body.clone()), body));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// Milliseconds since the epoch as a record's RFC 3339 `timestamp`.
fn timestamp(ms: Option<i64>) -> Option<String> {
    let ts = chrono::DateTime::from_timestamp_millis(ms?)?;
    Some(ts.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

/// The compactions that completed, as summary assistant → user message: a
/// summary assistant (`summary: true`, `finish` set, no `error`) whose
/// `parentID` names the user message (1.3.2 `filterCompacted`, reference §1.4).
fn completed_compactions(messages: &[(String, Value)]) -> HashMap<String, String> {
    messages
        .iter()
        .filter(|(_, m)| {
            m.get("role").and_then(Value::as_str) == Some("assistant")
                && m.get("summary").and_then(Value::as_bool) == Some(true)
                && m.get("finish").is_some_and(|f| !f.is_null())
                && m.get("error").is_none_or(Value::is_null)
        })
        .filter_map(|(id, m)| {
            let parent = m.get("parentID").and_then(Value::as_str)?;
            Some((id.clone(), parent.to_string()))
        })
        .collect()
}

/// A user message's blocks as 1.18.33 `toModelMessages` sends them: its
/// texts (not `ignored`, not empty), files (not `text/plain` or
/// `application/x-directory`, whose content is in a text part), a
/// compaction's ask and a subtask's note.
fn user_blocks(parts: &[(String, Value)]) -> Vec<Value> {
    let mut out = Vec::new();
    for (_, p) in parts {
        match p.get("type").and_then(Value::as_str) {
            Some("text") if p.get("ignored").and_then(Value::as_bool) != Some(true) => {
                let text = p.get("text").and_then(Value::as_str).unwrap_or_default();
                if !text.is_empty() {
                    out.push(json!({"type": "text", "text": text}));
                }
            }
            Some("file") => {
                let mime = p.get("mime").and_then(Value::as_str).unwrap_or_default();
                if mime == "text/plain" || mime == "application/x-directory" {
                    continue;
                }
                let url = p.get("url").and_then(Value::as_str).unwrap_or_default();
                if mime.starts_with("image/") {
                    out.push(json!({"type": "image", "source": {"type": "url", "url": url}}));
                } else {
                    let name = p.get("filename").and_then(Value::as_str).unwrap_or(url);
                    out.push(json!({"type": "text", "text": format!("[file {name} ({mime})]")}));
                }
            }
            Some("compaction") => out.push(json!({"type": "text", "text": COMPACTION_ASK})),
            Some("subtask") => out.push(json!({"type": "text", "text": SUBTASK_NOTE})),
            _ => {}
        }
    }
    out
}

/// An assistant message's blocks (text, reasoning, tool calls, in part order)
/// and the tool results that follow it (reference §1.4: a completed part's
/// `state.output`; an error part's `state.error`; a pending or running part
/// reads "[Tool execution was interrupted]"). The stored output is kept even
/// when the part is marked `time.compacted`: the mark is evidence of OpenCode's
/// own prune (SPEC §14), the text it cleared is what it had before.
fn assistant_blocks(
    parts: &[(String, Value)],
    file_paths: &mut HashMap<String, String>,
) -> (Vec<Value>, Vec<Value>) {
    let mut blocks = Vec::new();
    let mut results = Vec::new();
    for (_, p) in parts {
        match p.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = p.get("text").and_then(Value::as_str).unwrap_or_default();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
            }
            Some("reasoning") => {
                let text = p.get("text").and_then(Value::as_str).unwrap_or_default();
                if !text.is_empty() {
                    blocks.push(json!({"type": "thinking", "thinking": text}));
                }
            }
            Some("tool") => {
                let call_id = p
                    .get("callID")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let tool = p.get("tool").and_then(Value::as_str).unwrap_or_default();
                let state = p.get("state").cloned().unwrap_or(Value::Null);
                let input = state.get("input").cloned().unwrap_or_else(|| json!({}));
                if let Some(fp) = input.get("filePath").and_then(Value::as_str) {
                    file_paths.insert(call_id.clone(), fp.to_string());
                }
                blocks
                    .push(json!({"type": "tool_use", "id": call_id, "name": tool, "input": input}));
                let (content, is_error) = match state.get("status").and_then(Value::as_str) {
                    Some("completed") => (state.get("output").cloned().unwrap_or_default(), false),
                    // An interrupted tool's output so far is sent as its
                    // output (1.18.33: `metadata.interrupted===!0`); it stays
                    // an error part, which prune never counts.
                    Some("error") => match state.pointer("/metadata/interrupted") {
                        Some(Value::Bool(true))
                            if state
                                .pointer("/metadata/output")
                                .is_some_and(Value::is_string) =>
                        {
                            (
                                state
                                    .pointer("/metadata/output")
                                    .cloned()
                                    .unwrap_or_default(),
                                true,
                            )
                        }
                        _ => (state.get("error").cloned().unwrap_or_default(), true),
                    },
                    _ => (Value::String(INTERRUPTED.into()), true),
                };
                let content = match content {
                    Value::String(s) => Value::String(s),
                    Value::Null => Value::String(String::new()),
                    other => Value::String(other.to_string()),
                };
                let mut r =
                    json!({"type": "tool_result", "tool_use_id": call_id, "content": content});
                if is_error {
                    r["is_error"] = Value::Bool(true);
                }
                results.push(r);
            }
            _ => {}
        }
    }
    (blocks, results)
}

/// An assistant message's `tokens` as a response's usage (see [`usage`]).
pub(super) fn usage_of(m: &Value) -> Option<crate::session::Usage> {
    let u = usage(m)?;
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Some(crate::session::Usage {
        input_tokens: n("input_tokens"),
        cache_creation_input_tokens: n("cache_creation_input_tokens"),
        cache_read_input_tokens: n("cache_read_input_tokens"),
        output_tokens: n("output_tokens"),
        ..Default::default()
    })
}

/// The counts of `tokens` the bill reads.
const TOKEN_FIELDS: [&str; 5] = [
    "/input",
    "/output",
    "/reasoning",
    "/cache/read",
    "/cache/write",
];

/// An assistant message's `tokens` as Messages API usage (SPEC §14, §9a):
/// input (OpenCode's figure leaves the cache out), cache writes and reads, and
/// output with the reasoning tokens (OpenCode bills reasoning at the output
/// price). None when the message has no `tokens` object.
fn usage(m: &Value) -> Option<Value> {
    let t = m.get("tokens").filter(|t| t.is_object())?;
    // A count of the wrong shape makes the usage unknown (warned about in
    // `usage_warnings`), never 0.
    if fields::counts_malformed(t, &TOKEN_FIELDS) {
        return None;
    }
    let n = |p: &str| t.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    // A failed request: OpenCode makes the message before the stream, with
    // every count 0. That is no usage recorded (an unknown, not a cold read).
    let all_zero = [
        "/input",
        "/output",
        "/reasoning",
        "/cache/read",
        "/cache/write",
    ]
    .iter()
    .all(|p| n(p) == 0);
    if all_zero && m.get("error").is_some_and(|e| !e.is_null()) {
        return None;
    }
    Some(json!({
        "input_tokens": n("/input"),
        "cache_creation_input_tokens": n("/cache/write"),
        "cache_read_input_tokens": n("/cache/read"),
        "output_tokens": n("/output") + n("/reasoning"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(list: &[Value]) -> Vec<(String, Value)> {
        list.iter().map(|p| ("p".to_string(), p.clone())).collect()
    }

    /// Reference §2.2 (1.18.33 `SessionPrompt.run`): when a loop ends with a
    /// response, so that prune runs after it.
    #[test]
    fn s2_2_which_response_ends_a_loop() {
        let at = |finish: Value, error: Value| {
            json!({"role": "assistant", "finish": finish, "error": error,
                "time": {"created": 100, "completed": 200}})
        };
        let user = |created: i64| json!({"role": "user", "time": {"created": created}});
        let prompt = parts(&[json!({"type": "text", "text": "next"})]);
        let cont = parts(&[
            json!({"type": "text", "text": "Continue", "synthetic": true,
            "metadata": {"compaction_continue": true}}),
        ]);
        let shell_note = parts(&[json!({"type": "text", "synthetic": true, "text": SUBTASK_NOTE})]);
        let auto_compaction = parts(&[json!({"type": "compaction", "auto": true})]);
        let later = user(300);
        let ends =
            |m: &Value, own: &[(String, Value)], next: Option<(&Value, &[(String, Value)])>| {
                Ends {
                    m,
                    parts: own,
                    compaction: None,
                    next,
                    bare_end: None,
                }
                .ends_loop()
            };
        let ok = at(json!("stop"), Value::Null);
        // A finished answer, then a prompt written after it: the loop ended.
        assert!(ends(&ok, &[], Some((&later, &prompt))));
        assert!(ends(&ok, &[], None));
        // A `!command` after it: the prune had run already.
        assert!(ends(&ok, &[], Some((&later, &shell_note))));
        // A step that asked for tools, or an unknown finish: it goes on.
        assert!(!ends(
            &at(json!("tool-calls"), Value::Null),
            &[],
            Some((&later, &prompt))
        ));
        assert!(!ends(&at(json!("unknown"), Value::Null), &[], None));
        // `finish: stop` with a tool part to answer still goes on (`fe`).
        let tool = parts(&[json!({"type": "tool", "state": {"status": "completed"}})]);
        assert!(!ends(&ok, &tool, None));
        // A prompt written while it streamed joins the loop; so do the
        // continue and an overflow's compaction message.
        assert!(!ends(&ok, &[], Some((&user(150), &prompt))));
        assert!(!ends(&ok, &[], Some((&later, &cont))));
        assert!(!ends(&ok, &[], Some((&later, &auto_compaction))));
        // A failed step stops the loop; an abort interrupts it (no prune); a
        // rejected permission stops it.
        assert!(ends(
            &at(Value::Null, json!({"name": "APIError"})),
            &[],
            Some((&later, &prompt))
        ));
        assert!(!ends(
            &at(Value::Null, json!({"name": "MessageAbortedError"})),
            &[],
            None
        ));
        let refused = parts(&[json!({"type": "tool", "state": {"status": "error",
            "error": "The user rejected permission to use this specific tool call."}})]);
        assert!(ends(
            &at(json!("tool-calls"), Value::Null),
            &refused,
            Some((&later, &prompt))
        ));
        // An auto-compaction's summary after an overflow: the prompt is posted
        // again and the loop goes on; a manual one ends it.
        let summary = at(json!("stop"), Value::Null);
        let overflowed = json!({"type": "compaction", "auto": true, "overflow": true});
        let manual = json!({"type": "compaction", "auto": false});
        let with = |c: &Value| {
            Ends {
                m: &summary,
                parts: &[],
                compaction: Some(c),
                next: Some((&later, &prompt)),
                bare_end: None,
            }
            .ends_loop()
        };
        assert!(!with(&overflowed));
        assert!(with(&manual));
        // No `finish` recorded by the build: a following user message ends it.
        let bare = json!({"role": "assistant", "time": {"created": 100, "completed": 200}});
        let bare_ends = |end| {
            Ends {
                m: &bare,
                parts: &[],
                compaction: None,
                next: None,
                bare_end: Some(end),
            }
            .ends_loop()
        };
        assert!(bare_ends(true));
        assert!(!bare_ends(false));
        // A `!command`'s own response sends no request.
        assert!(shell_run(&bare, &shell_note));
        assert!(!shell_run(&ok, &shell_note));
        assert!(!shell_run(&bare, &prompt));
    }
}
