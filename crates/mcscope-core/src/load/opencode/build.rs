//! OpenCode messages and parts → the normalized session (reference §1.3–§1.4).

use super::super::RecordSink;
use super::super::claude;
use super::{Row, SessionInfo};
use crate::load::claude::fields;
use crate::session::{Diagnostic, Format, Part, Role, Session, SessionWarning};
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

mod messages;
pub(super) use messages::usage_of;
use messages::*;

/// What a pending or running tool part reads in the wire (reference §1.4:
/// 1.18.33 `toModelMessages`).
const INTERRUPTED: &str = "[Tool execution was interrupted]";

/// What OpenCode sends for a user message's `compaction` part (1.3.2 and
/// 1.18.33 `toModelMessages`: `"What did we do so far?"`).
const COMPACTION_ASK: &str = "What did we do so far?";

/// What it sends for a `subtask` part (1.18.33 `toModelMessages`).
const SUBTASK_NOTE: &str = "The following tool was executed by the user";

/// A part row: its id and its data.
type Item = (String, Value);

/// A message row that reads, with what the walk reads of every message before
/// it walks any. Its data is read again when the walk reaches it: a long
/// session's messages as trees of values are several times their text (issue
/// 41 item 5).
struct Msg {
    id: String,
    data: super::RowData,
    /// Its role is `user`.
    user: bool,
    /// For the summary of a completed compaction, its `parentID`.
    parent: Option<Box<str>>,
    created: Option<i64>,
    /// `finish` is recorded (a string).
    finish: bool,
    /// The summary of a completed compaction ([`completes_compaction`]).
    completes: bool,
}

impl Msg {
    fn of(row: Row, m: &Value) -> Msg {
        let completes = completes_compaction(m);
        Msg {
            id: row.id.into(),
            data: row.data,
            user: m.get("role").and_then(Value::as_str) == Some("user"),
            parent: completes
                .then(|| m.get("parentID").and_then(Value::as_str).map(Box::from))
                .flatten(),
            created: created_of(m),
            finish: m.get("finish").is_some_and(Value::is_string),
            completes,
        }
    }

    /// The message's data (it read when the rows were sorted, so it reads
    /// again: the same row, in the load's one read transaction).
    fn value(&self, stored: Option<&super::Stored<'_>>) -> std::borrow::Cow<'_, Value> {
        match &self.data {
            super::RowData::Read(v) => std::borrow::Cow::Borrowed(v),
            data => std::borrow::Cow::Owned(
                data.read_at(&self.id, stored, super::Table::Message)
                    .unwrap_or(Value::Null),
            ),
        }
    }
}

/// Builds the session from its rows (messages and parts, any order).
pub(super) fn session(
    path: &Path,
    format: Format,
    info: SessionInfo,
    messages: Vec<Row>,
    parts: Vec<Row>,
    stored: Option<&super::Stored<'_>>,
) -> Session {
    let mut diagnostics = Vec::new();
    let (messages, store) = sorted_rows(messages, parts, stored, &mut diagnostics);
    let warnings: Vec<SessionWarning> = revert_warning(&info, &messages).into_iter().collect();
    let mut walk = Walk::new(&messages, &store, info.version.clone());
    let mut feeder = Feeder {
        sink: claude::Sink::for_format(path, format),
        line: 0,
        skipped: Vec::new(),
    };
    let mut walked = Vec::new();
    for i in 0..messages.len() {
        walk.message(i, &mut feeder, &mut walked);
    }
    // In the order they had when every row was read first: the part rows
    // that do not read (in row order), the parts of no message of the
    // session, then what the walk found.
    diagnostics.extend(store.errors.take().into_values());
    diagnostics.extend(std::mem::take(&mut *store.orphans.borrow_mut()));
    diagnostics.extend(walked);
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

/// The rows that read, messages in id order, and the parts by message in id
/// order, read when the walk reads them; a message row whose data does not
/// read is a diagnostic (a part row's is one too, in [`Parts::errors`]).
fn sorted_rows<'a>(
    messages: Vec<Row>,
    parts: Vec<Row>,
    stored: Option<&'a super::Stored<'a>>,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<Msg>, Parts<'a>) {
    // As many as the rows: a long session's messages are not grown twice over.
    let mut read = Vec::with_capacity(messages.len());
    read.extend(messages.into_iter().enumerate().filter_map(|(i, r)| {
        match r.read(stored, super::Table::Message) {
            Ok(v) => Some(Msg::of(r, &v)),
            Err(e) => {
                diagnostics.push(row_diagnostic(i + 1, &format!("message {}", r.id), &e));
                None
            }
        }
    }));
    let mut messages: Vec<Msg> = read;
    // Reference §1.2: ids are time-ordered; the loop reads them in id order.
    messages.sort_by(|a, b| a.id.cmp(&b.id));
    // The part rows by message (none named: ""), each message's in id order
    // (a stable sort: rows of one id keep the rows' order), in one list.
    let mut rows: Vec<(usize, Row)> = parts.into_iter().enumerate().collect();
    fn message(r: &Row) -> &str {
        r.message_id.as_deref().unwrap_or("")
    }
    rows.sort_by(|(_, a), (_, b)| message(a).cmp(message(b)).then_with(|| a.id.cmp(&b.id)));
    let mut by_msg: HashMap<String, std::ops::Range<usize>> = HashMap::new();
    let mut start = 0;
    while start < rows.len() {
        let message = String::from(rows[start].1.message_id.take().unwrap_or_default());
        let mut end = start + 1;
        while end < rows.len() && rows[end].1.message_id.as_deref().unwrap_or("") == message {
            rows[end].1.message_id = None;
            end += 1;
        }
        by_msg.insert(message, start..end);
        start = end;
    }
    let store = Parts {
        rows,
        by_msg,
        stored,
        cache: RefCell::new(Vec::new()),
        errors: RefCell::new(BTreeMap::new()),
        orphans: RefCell::new(Vec::new()),
    };
    // A part whose message is not in the session is read by nothing: said,
    // not dropped in silence.
    let known: std::collections::HashSet<&str> = messages.iter().map(|m| m.id.as_str()).collect();
    let mut orphans: Vec<&String> = store
        .by_msg
        .keys()
        .filter(|mid| !known.contains(mid.as_str()))
        .collect();
    orphans.sort();
    for mid in orphans {
        for (pid, _) in store.read(mid).iter() {
            store.orphans.borrow_mut().push(Diagnostic {
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
    (messages, store)
}

/// The part rows by message, each message's read into values when the walk
/// reads it. The last few read are kept: an assistant's parent, which every
/// assistant of a loop reads, and the next user message, read just before it
/// is walked.
struct Parts<'a> {
    /// The part rows (with their place among the rows read), by message.
    rows: Vec<(usize, Row)>,
    by_msg: HashMap<String, std::ops::Range<usize>>,
    /// Where the rows left in the database are read again.
    stored: Option<&'a super::Stored<'a>>,
    /// Most recently read first.
    cache: RefCell<Vec<(String, Rc<[Item]>)>>,
    /// The rows that did not read, by row: each once, however often read.
    errors: RefCell<BTreeMap<usize, Diagnostic>>,
    orphans: RefCell<Vec<Diagnostic>>,
}

/// How many messages' parts [`Parts`] keeps read.
const PARTS_KEPT: usize = 8;

impl Parts<'_> {
    /// The parts of message `mid` that read, in id order.
    fn read(&self, mid: &str) -> Rc<[Item]> {
        let mut cache = self.cache.borrow_mut();
        if let Some(k) = cache.iter().position(|(m, _)| m == mid) {
            let hit = cache.remove(k);
            let parts = Rc::clone(&hit.1);
            cache.insert(0, hit);
            return parts;
        }
        let mut errors = self.errors.borrow_mut();
        let parts: Rc<[Item]> = self
            .of(mid)
            .iter()
            .filter_map(|(n, r)| match r.read(self.stored, super::Table::Part) {
                Ok(v) => Some((r.id.to_string(), v)),
                Err(e) => {
                    errors
                        .entry(*n)
                        .or_insert_with(|| row_diagnostic(n + 1, &format!("part {}", r.id), &e));
                    None
                }
            })
            .collect();
        cache.insert(0, (mid.to_string(), Rc::clone(&parts)));
        cache.truncate(PARTS_KEPT);
        parts
    }

    /// Message `mid`'s part rows, in id order.
    fn of(&self, mid: &str) -> &[(usize, Row)] {
        self.by_msg
            .get(mid)
            .and_then(|r| self.rows.get(r.clone()))
            .unwrap_or(&[])
    }

    /// The `rowid`s of message `mid`'s part rows, in id order, where the
    /// bodies are made again from the database (every row has one).
    fn rowids(&self, mid: &str) -> Option<Vec<i64>> {
        if !self.stored.is_some_and(|s| s.in_place) {
            return None;
        }
        self.of(mid)
            .iter()
            .filter_map(|(_, r)| match r.data {
                super::RowData::Stored(rowid) => Some(Some(rowid)),
                // Read for no part when it was loaded, nor when made again.
                super::RowData::Bad(_) => None,
                _ => Some(None),
            })
            .collect()
    }

    /// Whether any part that reads is a `step-start` (the rows left in the
    /// database were looked at as they were first read).
    fn any_step_start(&self) -> bool {
        self.stored.is_some_and(|s| s.step_start)
            || self.rows.iter().any(|(_, r)| match &r.data {
                super::RowData::Text(t) => super::names_kind(t, "step-start"),
                super::RowData::Stored(_) => false,
                data => data.read().is_ok_and(|p| is_part(&p, "step-start")),
            })
    }
}

/// Reference §1.4: `session.revert` hides the messages from `revert.messageID`
/// on (and, with `partID`, that message's parts from it on) from OpenCode's
/// next request, until the next prompt removes them (`SessionRevert.cleanup`).
/// They are the session's tail, and their requests were sent and billed
/// before the revert (as a rewound Claude branch, SPEC §15.1): they stay,
/// and no request of the file comes after them to leave them out of; the
/// warning says so.
fn revert_warning(info: &SessionInfo, messages: &[Msg]) -> Option<SessionWarning> {
    let revert = info.revert.as_ref()?;
    let msg = revert.get("messageID").and_then(Value::as_str)?;
    let part = revert.get("partID").and_then(Value::as_str);
    let hidden = messages
        .iter()
        .filter(|m| m.id.as_str() > msg || (part.is_none() && m.id == msg))
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
    /// `body` is the wire's, with where it is made again from (see
    /// [`inline`]).
    fn feed(&mut self, record: Value, body: Option<(Value, MadeFrom)>, again: bool) {
        self.line += 1;
        let line = self.line;
        let text = record.to_string();
        match claude::Sink::parse(&text) {
            Ok(mut tagged) => {
                // What the reader measured of the record's `message.content`
                // is the body's: the body is the record's message but for
                // the assistant's `id`, `model` and `usage`.
                let part = Part::Inline(match body {
                    Some((body, remade)) => inline(body, remade, Some(tagged.take_measure())),
                    None => crate::session::Inline::new(Value::Null),
                });
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

/// Where a body is made again from: its message's row and part rows, and
/// which of the records [`records_of`] makes of them it is (none: held).
type MadeFrom = Option<(Box<[i64]>, usize)>;

/// A body, made again from its rows whenever it is read where it can be
/// (issue 41 item 5: a long session's bodies are as large as its database),
/// else held as its text.
fn inline(
    body: Value,
    remade: MadeFrom,
    measure: Option<crate::session::InlineMeasure>,
) -> crate::session::Inline {
    let text = body.to_string();
    match remade {
        Some((rows, record)) => {
            let sum = (text.len(), crate::fasthash::hash_str(&text));
            match crate::session::Inline::from_rows(rows, record, sum, measure) {
                Ok(inline) => inline,
                Err(measure) => crate::session::Inline::written(body, text, measure),
            }
        }
        None => crate::session::Inline::written(body, text, measure),
    }
}

/// The bodies last made of one message's rows, each lent out once: a
/// message's records are read one after the other (an assistant's, then its
/// results'), and the rows are read once for both.
#[derive(Debug, Default)]
pub struct Remade {
    rows: Box<[i64]>,
    bodies: Vec<Option<Value>>,
}

/// Record `body.record` of what the build makes of the message row and part
/// rows `body.rows` names, read again from `conn` in one read transaction
/// (or taken from `last`, the bodies last made): the body as it was loaded,
/// or why it is not (a row gone or changed since).
pub(crate) fn remake(
    conn: &rusqlite::Connection,
    body: crate::session::RowsBody<'_>,
    last: &mut Remade,
) -> Result<Value, String> {
    let changed =
        || "the database changed since loading: its rows no longer make this message".to_string();
    let kept = (*last.rows == *body.rows)
        .then(|| last.bodies.get_mut(body.record).and_then(Option::take))
        .flatten();
    let made = match kept {
        Some(made) => made,
        None => {
            let tx = conn
                .unchecked_transaction()
                .map_err(|e| format!("cannot read the database again: {e}"))?;
            let (&msg, parts) = body.rows.split_first().ok_or_else(changed)?;
            let (id, m) = super::read_row(&tx, super::Table::Message, msg)?;
            // As the load read them: the part rows that read, in id order.
            let parts: Vec<Item> = parts
                .iter()
                .filter_map(|&p| super::read_row(&tx, super::Table::Part, p).ok())
                .collect();
            let mut bodies: Vec<Option<Value>> =
                records_of(&m, &parts, &id, &None, &mut HashMap::new())
                    .into_iter()
                    .map(|(_, b)| Some(b))
                    .collect();
            let made = bodies
                .get_mut(body.record)
                .and_then(Option::take)
                .ok_or_else(changed)?;
            *last = Remade {
                rows: body.rows.into(),
                bodies,
            };
            made
        }
    };
    let text = made.to_string();
    if text.len() != body.len || crate::fasthash::hash_str(&text) != body.hash {
        return Err(changed());
    }
    Ok(made)
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
        s.turns.user_messages = self.user_messages;
        s.turns.loop_ends = self.loop_ends;
        s.turns.summary_requests = self.summary_requests;
        s.turns.result_copies = self.copies;
        s.turns.summaries = self.summaries;
        attach_marks(s, &self.marks, &self.assistant_created);
        // SPEC §15.13: OpenCode's own estimate, `round(len / 4)`, is the one its
        // prune decides by; it is the results' `est_tokens` here.
        s.harness_tokens = s.results.iter().map(|r| Some(r.est_tokens)).collect();
    }
}

/// The walk over the messages in id order: what it reads of them all, and
/// what it has gathered so far.
struct Walk<'a> {
    messages: &'a [Msg],
    parts: &'a Parts<'a>,
    version: Option<String>,
    /// Reference §1.4: summary assistant → the compaction it completed.
    completed: HashMap<String, String>,
    /// A completed compaction's user message: its place, its body and time.
    compaction_asks: HashMap<&'a str, (usize, Value, Option<i64>)>,
    next_users: Vec<Option<usize>>,
    /// Where the last turn begins: its user message (0 without one).
    last_turn: usize,
    index: HashMap<&'a str, usize>,
    /// A build that records no `finish` at all: a response a user message
    /// follows ends its loop.
    records_finish: bool,
    /// The session records `step-start` parts (every build that can be read
    /// does; a file without any is read as one request per assistant message).
    records_steps: bool,
    got: Gathered,
}

impl<'a> Walk<'a> {
    fn new(messages: &'a [Msg], parts: &'a Parts<'a>, version: Option<String>) -> Walk<'a> {
        Walk {
            messages,
            parts,
            version,
            // Reference §1.4: each completed compaction's summary, by the
            // user message its `parentID` names (1.3.2 `filterCompacted`).
            completed: messages
                .iter()
                .filter(|m| m.completes)
                .filter_map(|m| Some((m.id.clone(), m.parent.as_deref()?.to_string())))
                .collect(),
            compaction_asks: HashMap::new(),
            next_users: next_user_messages(messages),
            last_turn: messages.iter().rposition(|m| m.user).unwrap_or(0),
            index: messages
                .iter()
                .enumerate()
                .map(|(i, m)| (m.id.as_str(), i))
                .collect(),
            records_finish: messages.iter().any(|m| m.finish),
            records_steps: parts.any_step_start(),
            got: Gathered {
                msg_results: Vec::with_capacity(messages.len()),
                ..Gathered::default()
            },
        }
    }

    /// Where record `k` of message `i` is made again from (none: its body
    /// is held). The last turn's bodies (from the last user message on) are
    /// held: a live OpenCode is still writing them (a running tool's part
    /// becomes a completed one), and a body made again must be the one
    /// loaded; an earlier message's rows change only by prune's marks, which
    /// change no body.
    fn remade(&self, i: usize, k: usize) -> MadeFrom {
        if i >= self.last_turn {
            return None;
        }
        let m = &self.messages[i];
        let super::RowData::Stored(rowid) = m.data else {
            return None;
        };
        let mut rows = vec![rowid];
        rows.extend(self.parts.rowids(&m.id)?);
        Some((rows.into_boxed_slice(), k))
    }

    fn parts_of(&self, i: usize) -> Rc<[Item]> {
        self.parts.read(&self.messages[i].id)
    }

    /// The parts of the message `m`'s `parentID` names (none: no such message).
    fn parent_parts(&self, m: &Value) -> Rc<[Item]> {
        m.get("parentID")
            .and_then(Value::as_str)
            .and_then(|p| self.index.get(p))
            .map_or_else(|| Rc::from(Vec::new()), |&p| self.parts_of(p))
    }

    /// Feeds message `i`'s records, notes what it tells the plans, and after
    /// the summary of a completed compaction, starts the view it leaves.
    fn message(&mut self, i: usize, feeder: &mut Feeder, diagnostics: &mut Vec<Diagnostic>) {
        let messages = self.messages;
        let id = &messages[i].id;
        let m = messages[i].value(self.parts.stored);
        let m: &Value = &m;
        let parts = self.parts_of(i);
        let first = feeder.sink.made().1;
        if m.get("role").and_then(Value::as_str) == Some("assistant") {
            self.got.warnings.extend(fields::count_warnings(
                m.get("tokens"),
                &TOKEN_FIELDS,
                &format!("message {id}"),
            ));
        }
        let records = records_of(m, &parts, id, &self.version, &mut self.got.file_paths);
        let mut shell = false;
        match m.get("role").and_then(Value::as_str) {
            Some("user") => {
                if self.completed.values().any(|c| c == id) {
                    let body = records.first().map(|(_, b)| b.clone()).unwrap_or_default();
                    self.compaction_asks.insert(id, (i, body, created_of(m)));
                }
                self.got.user_messages.push(feeder.sink.made());
            }
            Some("assistant")
                if shell_run(m, &self.parent_parts(m))
                    || (self.records_steps
                        && !parts.iter().any(|(_, p)| is_part(p, "step-start"))) =>
            {
                // A `!command` the user ran (1.18.33 `SessionPrompt.shellImpl`),
                // or a subtask's execution (a lone `task` part, SPEC §17.O.2):
                // no model was called, so no request of its own (request k is
                // the k-th assistant message with a `step-start`, §18.15); it
                // is in later requests' history.
                shell = true;
                self.got.marks.extend(compacted_marks(&parts));
            }
            Some("assistant") => self.response(i, m, feeder),
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
        for (k, (record, body)) in records.into_iter().enumerate() {
            if let Some(assistant) = sent_as(&record, &body) {
                feeder.feed(record, Some((body, self.remade(i, k))), shell && assistant);
            }
        }
        self.got.msg_results.push((first, feeder.sink.made().1));
        self.after_compaction(i, m, wire, feeder);
    }

    /// An assistant message that was a response: its cost, time, whether its
    /// loop ended with it, whether it is a compaction's summary, and its
    /// parts' prune marks.
    fn response(&mut self, i: usize, m: &Value, feeder: &Feeder) {
        let parts = self.parts_of(i);
        if let Some(c) = m.get("cost").and_then(Value::as_f64) {
            *self.got.harness_usd.get_or_insert(0.0) += c;
        }
        self.got.assistant_created.push(created_of(m));
        let next_user = self.next_users[i];
        let summary = m.get("summary").and_then(Value::as_bool) == Some(true);
        let parent = summary.then(|| self.parent_parts(m));
        let next_parts = next_user.map(|u| self.parts_of(u));
        let own = Ends {
            m,
            parts: &parts,
            compaction: parent.as_deref().and_then(compaction_part),
            next: next_user
                .zip(next_parts.as_deref())
                .map(|(u, p)| (self.messages[u].created, p)),
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
        self.got.marks.extend(compacted_marks(&parts));
    }

    /// Reference §1.4: the view starts at the last completed compaction
    /// (`filterCompacted`), with its user message and this summary at its
    /// head. The summary's own request is sent before that, with the view
    /// it summarizes and the compaction's prompt (1.3.2
    /// `SessionCompaction.process`: `toModelMessages(input.messages)` plus
    /// the prompt). Nothing, unless message `i` (whose first record's body
    /// is `wire`) is the summary of a completed compaction.
    fn after_compaction(&mut self, i: usize, m: &Value, wire: Option<Value>, feeder: &mut Feeder) {
        let id = &self.messages[i].id;
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
        // Each is its message's first record's body.
        let ask = inline(ask.clone(), self.remade(c, 0), None);
        feeder
            .sink
            .inline(Role::User, Part::Inline(ask), timestamp(*ask_at).as_deref());
        let summary = match wire {
            Some(w) => inline(w, self.remade(i, 0), None),
            None => crate::session::Inline::new(Value::Null),
        };
        feeder.sink.inline(
            Role::Assistant,
            Part::Inline(summary),
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
        let tail_start = self
            .parts_of(c)
            .iter()
            .find_map(|(_, p)| {
                (p.get("type").and_then(Value::as_str) == Some("compaction"))
                    .then(|| p.get("tail_start_id").and_then(Value::as_str))
                    .flatten()
            })
            .and_then(|t| self.messages[..c].iter().position(|m| m.id == t));
        for j in tail_start.into_iter().flat_map(|t| t..c) {
            let (tid, tm) = (
                &self.messages[j].id,
                self.messages[j].value(self.parts.stored),
            );
            let tparts = self.parts_of(j);
            let start = feeder.sink.made().1;
            let records = records_of(&tm, &tparts, tid, &self.version, &mut self.got.file_paths);
            for (k, (record, body)) in records.into_iter().enumerate() {
                if let Some(again) = sent_as(&record, &body) {
                    feeder.feed(record, Some((body, self.remade(j, k))), again);
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
            context_edit: false,
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
fn next_user_messages(messages: &[Msg]) -> Vec<Option<usize>> {
    let mut out = vec![None; messages.len()];
    let mut next = None;
    for (i, m) in messages.iter().enumerate().rev() {
        out[i] = next;
        if m.user {
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
    /// The first user message after it: its `time.created`, and its parts.
    next: Option<(Option<i64>, &'a [Item])>,
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
        let Some((asked, next_parts)) = self.next else {
            return true;
        };
        if auto && overflow {
            return false;
        }
        // The newest user message when the loop looked must be the one this
        // answers: a prompt written while it streamed joins the loop; so do
        // the continue an auto-compaction writes and the compaction message a
        // step that overflowed makes.
        if let (Some(asked), Some(done)) = (asked, completed_of(m))
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

#[cfg(test)]
mod tests;
