//! Cline task folders (SPEC §17.K, §18.2–§18.4; `reference/cline.md` §1–§2):
//! `tasks/<taskId>/api_conversation_history.json` (what was sent, never
//! rewritten), `ui_messages.json` (one `api_req_started` per request, with
//! its usage and the deleted range in force), `context_history.json` (every
//! edit the context manager made) and `task_metadata.json` (the version and
//! the models).
//!
//! The history is Anthropic `MessageParam`s, so it goes through the Claude
//! reader as inline messages, one request per assistant message. A result
//! Cline sends as text (`[read_file for 'x'] Result:` then its content, or an
//! @-mention's `<file_content>`) becomes a `tool_result` block of its own in
//! the body mcscope keeps, the header or the tags staying text around it, and
//! gets a call of its own (the header's tool and path), so that every plan
//! and report sees it as the result it is.

pub mod facts;
mod scan;

use super::LoadError;
use super::claude;
use crate::session::{Diagnostic, Format, Part, Session, SessionWarning, ToolCall};
use facts::*;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The characters Cline counts of a text (JavaScript's `length`).
pub(crate) fn text_len(s: &str) -> i64 {
    scan::utf16(s) as i64
}

/// Whether a text block is a text-protocol result (`[tool …] Result:`).
pub(crate) fn is_result_text(text: &str) -> bool {
    scan::any_header(text).is_some()
}

/// What a person typed in a task's first message: the `<task>` element's
/// text where it has one, else the text.
pub(crate) fn task_text(text: &str) -> String {
    let inner = text
        .split_once("<task>")
        .and_then(|(_, rest)| rest.split_once("</task>"))
        .map_or(text, |(t, _)| t);
    inner.trim().to_string()
}

/// The task's files (reference §1: `GlobalFileNames`, v4.0.12 `core/storage/disk.ts`).
pub const HISTORY: &str = "api_conversation_history.json";
const UI: &str = "ui_messages.json";
const CONTEXT: &str = "context_history.json";
const METADATA: &str = "task_metadata.json";
/// Every file of a task folder that names the task (SPEC §17.K.1).
pub const TASK_FILES: [&str; 4] = [HISTORY, UI, CONTEXT, METADATA];

/// A task file above this is not read (the largest history seen is a few MB).
const CAP: u64 = 1 << 30;

/// The task folder `path` names: the folder itself where it holds a history,
/// or the folder of one of its files.
pub fn task_dir(path: &Path) -> Option<PathBuf> {
    if path.is_dir() {
        return path.join(HISTORY).is_file().then(|| path.to_path_buf());
    }
    let name = path.file_name()?.to_str()?;
    TASK_FILES
        .contains(&name)
        .then(|| path.parent().map(Path::to_path_buf))
        .flatten()
        .filter(|d| d.join(HISTORY).is_file())
}

/// Reads one of the task's files whole (None: absent).
fn read(dir: &Path, name: &str) -> Result<Option<Value>, LoadError> {
    let path = dir.join(name);
    if !path.exists() {
        return Ok(None);
    }
    let bytes = super::regular::read_capped(&path, CAP).map_err(|e| LoadError::UnknownFormat {
        path: path.clone(),
        why: format!("a Cline task file that cannot be read ({e})"),
    })?;
    let bytes = super::encoding::strip_bom(&bytes);
    serde_json::from_slice(bytes)
        .map(Some)
        .map_err(|e| LoadError::UnknownFormat {
            path,
            why: format!("not a Cline task file: {}", super::json_error(e)),
        })
}

/// Loads the task whose folder `path` is in (SPEC §17.K.1).
pub(crate) fn load(path: &Path, format: Format) -> Result<Session, LoadError> {
    let dir = task_dir(path).ok_or_else(|| LoadError::UnknownFormat {
        path: path.to_path_buf(),
        why: format!("not a Cline task: no {HISTORY} beside it"),
    })?;
    let history = match read(&dir, HISTORY)? {
        Some(Value::Array(a)) => a,
        _ => {
            return Err(LoadError::UnknownFormat {
                path: dir.join(HISTORY),
                why: "not a Cline history (a JSON array of messages)".into(),
            });
        }
    };
    let ui = read(&dir, UI)?;
    let context = read(&dir, CONTEXT)?;
    let metadata = read(&dir, METADATA)?;
    let mut notes = Vec::new();
    let has_ui = matches!(ui, Some(Value::Array(_)));
    let ui: Vec<Value> = match ui {
        Some(Value::Array(a)) => a,
        Some(_) => {
            notes.push(format!("{UI} skipped: not a JSON array"));
            Vec::new()
        }
        None => Vec::new(),
    };
    let (reqs, usage_warnings) = api_requests(&ui);
    let answered = answers(&history, &reqs);
    let meta = Metadata::of(metadata.as_ref());
    let mut task = Task::build(&history);
    let mut s = task.feed(
        &dir.join(HISTORY),
        format,
        &history,
        &reqs,
        &answered,
        &meta,
    );
    task.place(&s);
    s.warnings
        .extend(usage_warnings.into_iter().map(|text| SessionWarning {
            id: super::claude::fields::MALFORMED,
            line: None,
            text,
        }));
    s.diagnostics
        .extend(notes.into_iter().map(|message| Diagnostic {
            line: 0,
            byte_offset: 0,
            message,
        }));
    let edits = context.map(|c| context_edits(&c, &mut s.diagnostics));
    let condensed = condensed(&history, &ui);
    let mut f = std::mem::take(&mut task.facts);
    f.edits = edits;
    f.condensed = condensed;
    f.has_ui = has_ui;
    f.requests = task_requests(&s, &f, &history, &reqs, &answered, &meta);
    s.evidence = recorded(&s, &f);
    if !s.evidence.is_empty() || f.requests.iter().any(|r| r.deleted_range.is_some()) {
        for r in &mut s.requests {
            r.plan_recorded = true;
        }
    }
    s.condensed = condensed;
    s.harness_usd = reqs
        .iter()
        .filter_map(|r| r.cost)
        .fold(None, |a, c| Some(a.unwrap_or(0.0) + c));
    s.session_id = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    s.own = crate::session::OwnFacts::of(f);
    Ok(s)
}

/// One `api_req_started` of `ui_messages.json` (reference §2.2).
#[derive(Debug, Clone, Default)]
struct ApiReq {
    ts: Option<i64>,
    tokens_in: Option<u64>,
    tokens_out: Option<u64>,
    cache_writes: Option<u64>,
    cache_reads: Option<u64>,
    cost: Option<f64>,
    /// `conversationHistoryIndex`: the last history message when it was added.
    index: Option<usize>,
    range: Option<(usize, usize)>,
    model: Option<String>,
}

impl ApiReq {
    /// Reference §3.1: `(tokensIn||0) + (tokensOut||0) + (cacheWrites||0) + (cacheReads||0)`.
    fn total(&self) -> u64 {
        [
            self.tokens_in,
            self.tokens_out,
            self.cache_writes,
            self.cache_reads,
        ]
        .iter()
        .map(|v| v.unwrap_or(0))
        .fold(0u64, u64::saturating_add)
    }

    fn has_usage(&self) -> bool {
        self.tokens_in.is_some() || self.tokens_out.is_some()
    }

    /// The usage as the Claude reader reads it: the prompt is tokensIn +
    /// cacheWrites + cacheReads (SPEC §18.3).
    fn usage(&self) -> Value {
        json!({
            "input_tokens": self.tokens_in.unwrap_or(0),
            "output_tokens": self.tokens_out.unwrap_or(0),
            "cache_creation_input_tokens": self.cache_writes.unwrap_or(0),
            "cache_read_input_tokens": self.cache_reads.unwrap_or(0),
        })
    }
}

/// A token count as recorded: a whole number (anything else is unknown,
/// and said: `warn`).
fn count(v: &Value, key: &str) -> Option<u64> {
    super::claude::fields::count_value(v.get(key))
        .ok()
        .flatten()
}

/// Every `say: "api_req_started"` in order (reference §2.2), and its usage
/// fields of the wrong shape in words (SPEC §15.2, as the Claude loader warns).
fn api_requests(ui: &[Value]) -> (Vec<ApiReq>, Vec<String>) {
    let mut warnings = Vec::new();
    let reqs = ui
        .iter()
        .enumerate()
        .filter(|(_, m)| m.get("say").and_then(Value::as_str) == Some("api_req_started"))
        .map(|(n, m)| {
            let info: Value = m
                .get("text")
                .and_then(Value::as_str)
                .and_then(|t| serde_json::from_str(t).ok())
                .unwrap_or(Value::Null);
            for key in ["tokensIn", "tokensOut", "cacheWrites", "cacheReads"] {
                if let Err(what) = super::claude::fields::count_value(info.get(key)) {
                    warnings.push(format!(
                        "{key} of ui message {} (api_req_started) is {what}, not a token count; its usage is unknown",
                        n + 1
                    ));
                }
            }
            ApiReq {
                ts: m.get("ts").and_then(Value::as_i64),
                tokens_in: count(&info, "tokensIn"),
                tokens_out: count(&info, "tokensOut"),
                cache_writes: count(&info, "cacheWrites"),
                cache_reads: count(&info, "cacheReads"),
                cost: info
                    .get("cost")
                    .and_then(Value::as_f64)
                    .filter(|c| c.is_finite()),
                index: m
                    .get("conversationHistoryIndex")
                    .and_then(Value::as_u64)
                    .map(|i| i as usize),
                range: range_of(m.get("conversationHistoryDeletedRange")),
                model: m
                    .pointer("/modelInfo/modelId")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            }
        })
        .collect();
    (reqs, warnings)
}

fn range_of(v: Option<&Value>) -> Option<(usize, usize)> {
    let a = v?.as_array()?;
    match a.as_slice() {
        [x, y] => Some((x.as_u64()? as usize, y.as_u64()? as usize)),
        _ => None,
    }
}

/// `task_metadata.json` (reference §2.4): the versions and models by time.
#[derive(Debug, Default)]
struct Metadata {
    versions: Vec<(i64, String)>,
    models: Vec<(i64, String)>,
}

impl Metadata {
    fn of(v: Option<&Value>) -> Metadata {
        let list = |key: &str, field: &str| -> Vec<(i64, String)> {
            let mut out: Vec<(i64, String)> = v
                .and_then(|v| v.get(key))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|e| {
                            Some((
                                e.get("ts").and_then(Value::as_i64).unwrap_or(0),
                                e.get(field)?.as_str()?.to_string(),
                            ))
                        })
                        .collect()
                })
                .unwrap_or_default();
            out.sort_by_key(|e| e.0);
            out
        };
        Metadata {
            versions: list("environment_history", "cline_version"),
            models: list("model_usage", "model_id"),
        }
    }

    /// The entry in force at `ts`: the latest not after it, else the first.
    fn at(list: &[(i64, String)], ts: Option<i64>) -> Option<&str> {
        let i = ts.map_or(list.len(), |t| list.partition_point(|e| e.0 <= t));
        list.get(i.saturating_sub(1))
            .or(list.first())
            .map(|e| e.1.as_str())
    }
}

/// A candidate of a user message, in the order its body holds it.
#[derive(Debug, Clone)]
struct Cand {
    id: String,
    hist: usize,
    /// Its call: the tool and its argument (None: a native result, whose
    /// call is the assistant's `tool_use`).
    call: Option<(String, Option<String>)>,
    native: bool,
}

/// The task's history read for mcscope: each message's body as kept, its
/// candidates, and the rule's facts.
struct Task {
    bodies: Vec<Value>,
    cands: Vec<Cand>,
    facts: TaskFacts,
    /// Per occurrence, its candidate (index into `cands`).
    occ_cand: Vec<usize>,
}

impl Task {
    fn build(history: &[Value]) -> Task {
        let mut t = Task {
            bodies: Vec::with_capacity(history.len()),
            cands: Vec::new(),
            facts: TaskFacts::default(),
            occ_cand: Vec::new(),
        };
        let mut msg = 0usize;
        let mut prev_user = false;
        for (i, m) in history.iter().enumerate() {
            let user = m.get("role").and_then(Value::as_str) != Some("assistant");
            if i > 0 && !(user && prev_user) {
                msg += 1;
            }
            prev_user = user;
            let blocks: Vec<Value> = match m.get("content") {
                Some(Value::Array(a)) => a.clone(),
                Some(Value::String(s)) => vec![json!({"type": "text", "text": s})],
                _ => Vec::new(),
            };
            t.facts.history.push(HistMessage {
                user,
                msg,
                blocks: blocks.iter().map(scan::counted).collect(),
            });
            let body = if user {
                t.user_body(i, &blocks)
            } else {
                blocks
            };
            t.bodies.push(Value::Array(body));
        }
        t
    }

    /// A user message's blocks with each result as a `tool_result` of its
    /// own, its candidates and the rule's occurrences (reference §3.2).
    fn user_body(&mut self, i: usize, blocks: &[Value]) -> Vec<Value> {
        let mut out = Vec::with_capacity(blocks.len());
        // Reference §3.2: block 0 names a read or a write with its final
        // content; otherwise blocks 0–2 may hold @-mentions.
        let first = blocks.first().and_then(scan::block_text);
        let normal = first.and_then(scan::header).and_then(|(tool, path, _)| {
            match tool {
                "read_file" => Some(EditKind::Read),
                "write_to_file" | "replace_in_file" => {
                    let same = first.and_then(scan::final_content).is_some();
                    let next = blocks
                        .get(1)
                        .and_then(scan::block_text)
                        .and_then(scan::final_content)
                        .is_some();
                    (same || next).then_some(EditKind::Alter)
                }
                _ => None,
            }
            .map(|k| (k, path.to_string()))
        });
        let mut skip_next = false;
        for (b, block) in blocks.iter().enumerate() {
            if std::mem::take(&mut skip_next) {
                continue;
            }
            let kind = block.get("type").and_then(Value::as_str);
            if kind == Some("tool_result") {
                let id = block
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                self.cand(
                    i,
                    b,
                    id,
                    None,
                    true,
                    normal.as_ref().filter(|_| b == 0),
                    blocks,
                );
                out.push(block.clone());
                continue;
            }
            let Some(text) = (kind == Some("text"))
                .then(|| block.get("text").and_then(Value::as_str))
                .flatten()
            else {
                out.push(block.clone());
                continue;
            };
            if let Some((tool, arg, len)) = scan::any_header(text) {
                let id = format!("cline-{i}-{b}");
                let rest = text[len..].strip_prefix('\n').unwrap_or(&text[len..]);
                let occ = normal.as_ref().filter(|_| b == 0);
                let call = Some((tool.to_string(), arg.map(str::to_string)));
                out.push(json!({"type": "text", "text": &text[..len]}));
                // The result in the next block (older tasks): the header alone here.
                let next = blocks.get(b + 1).filter(|n| {
                    rest.trim().is_empty() && n.get("type").and_then(Value::as_str) == Some("text")
                });
                let content = match next {
                    Some(n) => {
                        skip_next = true;
                        n.get("text").and_then(Value::as_str).unwrap_or_default()
                    }
                    None => rest,
                };
                let at = if next.is_some() { b + 1 } else { b };
                self.cand(i, at, id.clone(), call, false, occ, blocks);
                out.push(json!({"type": "tool_result", "tool_use_id": id, "content": content}));
                continue;
            }
            if normal.is_none() && b <= 2 {
                let found = scan::mentions(text);
                if !found.is_empty() {
                    let mut at = 0;
                    for (n, m) in found.iter().enumerate() {
                        let id = format!("cline-{i}-{b}#{}", n + 1);
                        out.push(json!({"type": "text", "text": &text[at..m.inner.0]}));
                        let inner = &text[m.inner.0..m.inner.1];
                        out.push(
                            json!({"type": "tool_result", "tool_use_id": id, "content": inner}),
                        );
                        let call = Some((
                            crate::harness::CLINE_MENTION_TOOL.to_string(),
                            Some(m.path.to_string()),
                        ));
                        let saved = scan::utf16(inner) as i64
                            - scan::utf16(crate::harness::CLINE_NOTICE) as i64;
                        self.cands.push(Cand {
                            id,
                            hist: i,
                            call,
                            native: false,
                        });
                        self.occ_cand.push(self.cands.len() - 1);
                        self.facts.occurrences.push(Occurrence {
                            hist: i,
                            block: b,
                            kind: EditKind::Mention,
                            path: m.path.to_string(),
                            result: 0,
                            saved,
                        });
                        at = m.inner.1;
                    }
                    out.push(json!({"type": "text", "text": &text[at..]}));
                    continue;
                }
            }
            out.push(block.clone());
        }
        out
    }

    /// Adds a candidate; `occ`: block 0's read or write, which the rule may
    /// replace (the result sits in block `b`).
    #[allow(clippy::too_many_arguments)]
    fn cand(
        &mut self,
        i: usize,
        b: usize,
        id: String,
        call: Option<(String, Option<String>)>,
        native: bool,
        occ: Option<&(EditKind, String)>,
        blocks: &[Value],
    ) {
        self.cands.push(Cand {
            id,
            hist: i,
            call,
            native,
        });
        let Some((kind, path)) = occ else {
            return;
        };
        let notice = scan::utf16(crate::harness::CLINE_NOTICE) as i64;
        let text = blocks.get(b).and_then(scan::block_text).unwrap_or_default();
        let (block, saved) = match kind {
            // Reference §3.2: the result in the same block becomes
            // `"<header>\n" + NOTICE`; in the next block, NOTICE.
            EditKind::Read => match scan::header(text) {
                Some((_, _, len)) => (
                    b,
                    scan::utf16(text) as i64 - scan::utf16(&text[..len]) as i64 - 1 - notice,
                ),
                None => (b, scan::utf16(text) as i64 - notice),
            },
            // The final content's inner text becomes `" " + NOTICE + " "`.
            EditKind::Alter => {
                let (at, t) = match scan::final_content(text) {
                    Some(_) => (b, text),
                    None => (
                        b + 1,
                        blocks
                            .get(b + 1)
                            .and_then(scan::block_text)
                            .unwrap_or_default(),
                    ),
                };
                let inner = scan::final_content(t).map_or(0, |(s, e)| scan::utf16(&t[s..e]) as i64);
                (at, inner - notice - 2)
            }
            EditKind::Mention => (b, 0),
        };
        self.occ_cand.push(self.cands.len() - 1);
        self.facts.occurrences.push(Occurrence {
            hist: i,
            block,
            kind: *kind,
            path: path.clone(),
            result: 0,
            saved,
        });
    }

    /// Each candidate's result, after the reader made them: the results are
    /// the `tool_result` blocks in order, so each candidate is the result of
    /// its id at or after the last one placed.
    fn place(&mut self, s: &Session) {
        let n = s.results.len();
        self.facts.result_hist = vec![0; n];
        self.facts.result_native = vec![false; n];
        let mut at = 0;
        let mut of_cand = vec![None; self.cands.len()];
        for (c, cand) in self.cands.iter().enumerate() {
            if let Some(r) = (at..n).find(|&r| s.results[r].id == cand.id) {
                of_cand[c] = Some(r);
                self.facts.result_hist[r] = cand.hist;
                self.facts.result_native[r] = cand.native;
                at = r + 1;
            }
        }
        // A result no candidate names (an empty id): its message's.
        let msg_hist: HashMap<usize, usize> = self
            .facts
            .history
            .iter()
            .enumerate()
            .rev()
            .map(|(i, h)| (h.msg, i))
            .collect();
        for (r, res) in s.results.iter().enumerate() {
            if !of_cand.contains(&Some(r)) {
                self.facts.result_hist[r] = msg_hist.get(&res.msg).copied().unwrap_or(0);
            }
        }
        let mut kept = Vec::with_capacity(self.facts.occurrences.len());
        for (o, occ) in self.facts.occurrences.iter().enumerate() {
            if let Some(r) = of_cand[self.occ_cand[o]] {
                let mut occ = occ.clone();
                occ.result = r;
                kept.push(occ);
            }
        }
        self.facts.occurrences = kept;
    }

    /// Feeds the bodies to the Claude reader: one request per assistant
    /// message, with its `api_req_started`'s usage.
    fn feed(
        &self,
        path: &Path,
        format: Format,
        history: &[Value],
        reqs: &[ApiReq],
        by_index: &HashMap<usize, usize>,
        meta: &Metadata,
    ) -> Session {
        let mut sink = claude::Sink::for_format(path, format);
        let mut skipped = Vec::new();
        for (i, m) in history.iter().enumerate() {
            let user = self.facts.history[i].user;
            let ts = m.get("ts").and_then(Value::as_i64);
            let req = by_index.get(&i).map(|&j| &reqs[j]);
            let at = req.and_then(|r| r.ts).or(ts);
            let mut message = Map::new();
            message.insert(
                "role".into(),
                if user { "user" } else { "assistant" }.into(),
            );
            message.insert("content".into(), self.bodies[i].clone());
            let wire = Value::Object(message.clone());
            if !user {
                message.insert("id".into(), format!("cline-message-{i}").into());
                let model = req
                    .and_then(|r| r.model.clone())
                    .or_else(|| {
                        m.pointer("/modelInfo/modelId")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                    })
                    .or_else(|| Metadata::at(&meta.models, at).map(str::to_string));
                if let Some(model) = model {
                    message.insert("model".into(), model.into());
                }
                let usage = match req {
                    Some(r) if r.has_usage() => Some(r.usage()),
                    Some(_) => None,
                    // Reference §2.5: without ui_messages.json, `metrics`.
                    None => metrics_usage(m),
                };
                if let Some(u) = usage {
                    message.insert("usage".into(), u);
                }
            }
            let mut record = Map::new();
            record.insert(
                "type".into(),
                if user { "user" } else { "assistant" }.into(),
            );
            if let Some(t) = at.and_then(timestamp) {
                record.insert("timestamp".into(), t.into());
            }
            if let Some(v) = Metadata::at(&meta.versions, at) {
                record.insert("version".into(), v.into());
            }
            record.insert("message".into(), Value::Object(message));
            let text = Value::Object(record).to_string();
            match <claude::Sink as super::RecordSink>::parse(&text) {
                Ok(tagged) => sink.apply_part(
                    tagged,
                    i + 1,
                    Part::Inline(crate::session::Inline::new(wire)),
                ),
                Err(e) => skipped.push(Diagnostic {
                    line: i + 1,
                    byte_offset: 0,
                    message: format!("message {i} skipped: {e}"),
                }),
            }
        }
        let mut s = super::RecordSink::finish(sink, skipped);
        self.fix_calls(&mut s, history);
        s
    }

    /// Each result's call: a native one's path from its input, the others a
    /// call of their own (the header's tool and argument) placed at the
    /// message before the result.
    fn fix_calls(&self, s: &mut Session, history: &[Value]) {
        let tools = &s.harness.rules().tools;
        // Native `tool_use` inputs name a file in `path` (Cline's tools).
        let mut inputs: HashMap<&str, &Value> = HashMap::new();
        for m in history {
            if let Some(a) = m.get("content").and_then(Value::as_array) {
                for b in a {
                    if b.get("type").and_then(Value::as_str) == Some("tool_use")
                        && let (Some(id), Some(input)) =
                            (b.get("id").and_then(Value::as_str), b.get("input"))
                    {
                        inputs.insert(id, input);
                    }
                }
            }
        }
        for c in &mut s.calls {
            let Some(input) = inputs.get(c.id.as_str()) else {
                continue;
            };
            let path = input.get("path").and_then(Value::as_str);
            if tools.file_path_tools.contains(&c.name.as_str()) {
                if c.file_path.is_none() {
                    c.file_path = path.map(str::to_string);
                }
            } else if c.summary.is_none() {
                c.summary = ["command", "regex", "url", "query", "path"]
                    .iter()
                    .find_map(|k| input.get(*k).and_then(Value::as_str))
                    .map(|v| crate::sanitize::line(v).chars().take(200).collect());
            }
        }
        for cand in &self.cands {
            let Some((tool, arg)) = &cand.call else {
                continue;
            };
            let own = self.facts.history[cand.hist].msg;
            let msg = own.checked_sub(1).unwrap_or(own);
            let file = tools.file_path_tools.contains(&tool.as_str());
            s.calls.push(ToolCall {
                id: cand.id.clone(),
                name: tool.clone(),
                msg,
                file_path: arg.clone().filter(|_| file),
                legacy_path: None,
                summary: arg.clone().filter(|_| !file),
                cwd: None,
                unparseable: false,
            });
        }
        s.calls.sort_by_key(|c| c.msg);
    }
}

/// Which `api_req_started` answers each assistant message: the one whose
/// `conversationHistoryIndex` is the message before it (the last such);
/// where they carry none, the k-th request for the k-th assistant message.
fn answers(history: &[Value], reqs: &[ApiReq]) -> HashMap<usize, usize> {
    let assistants: Vec<usize> = history
        .iter()
        .enumerate()
        .filter(|(_, m)| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .map(|(i, _)| i)
        .collect();
    let mut out = HashMap::new();
    if !reqs.is_empty() && reqs.iter().all(|r| r.index.is_some()) {
        for (j, r) in reqs.iter().enumerate() {
            if let Some(a) = r.index.and_then(|c| c.checked_add(1))
                && history
                    .get(a)
                    .and_then(|m| m.get("role"))
                    .and_then(Value::as_str)
                    == Some("assistant")
            {
                out.insert(a, j);
            }
        }
    } else {
        for (k, &a) in assistants.iter().enumerate() {
            if k < reqs.len() {
                out.insert(a, k);
            }
        }
    }
    out
}

/// Reference §2.1: `metrics.tokens {prompt, completion, cached}` on an
/// assistant message (the prompt holds the cached tokens).
fn metrics_usage(m: &Value) -> Option<Value> {
    let t = m.pointer("/metrics/tokens")?;
    let prompt = count(t, "prompt").unwrap_or(0);
    let cached = count(t, "cached").unwrap_or(0);
    Some(json!({
        "input_tokens": prompt.saturating_sub(cached),
        "output_tokens": count(t, "completion").unwrap_or(0),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": cached.min(prompt),
    }))
}

/// Milliseconds since the epoch as a record's RFC 3339 `timestamp`.
fn timestamp(ms: i64) -> Option<String> {
    let ts = chrono::DateTime::from_timestamp_millis(ms)?;
    Some(ts.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

/// `context_history.json` (reference §2.3): `[[messageIndex, [editType,
/// [[blockIndex, [[ts, "text", [text], metadata], …]], …]]], …]`.
fn context_edits(v: &Value, diagnostics: &mut Vec<Diagnostic>) -> Vec<RecordedEdit> {
    let mut out = Vec::new();
    let Some(messages) = v.as_array() else {
        diagnostics.push(note(format!("{CONTEXT} skipped: not a JSON array")));
        return out;
    };
    for (n, entry) in messages.iter().enumerate() {
        let read = || -> Option<Vec<RecordedEdit>> {
            let hist = entry.get(0)?.as_u64()? as usize;
            let inner = entry.get(1)?;
            let kind = inner.get(0)?.as_u64()?;
            let mut edits = Vec::new();
            for block in inner.get(1)?.as_array()? {
                let b = block.get(0)?.as_u64()? as usize;
                let updates = block.get(1)?.as_array()?;
                for (u, update) in updates.iter().enumerate() {
                    let ts = update.get(0)?.as_i64()?;
                    let paths = update
                        .pointer("/3/0")
                        .and_then(Value::as_array)
                        .map(|a| {
                            a.iter()
                                .filter_map(|p| p.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default();
                    edits.push(RecordedEdit {
                        hist,
                        kind,
                        block: b,
                        ts,
                        paths,
                        last: u + 1 == updates.len(),
                    });
                }
            }
            Some(edits)
        };
        match read() {
            Some(e) => out.extend(e),
            None => diagnostics.push(note(format!("{CONTEXT} entry {} skipped: not [messageIndex, [editType, [[blockIndex, updates]]]]", n + 1))),
        }
    }
    out
}

fn note(message: String) -> Diagnostic {
    Diagnostic {
        line: 0,
        byte_offset: 0,
        message,
    }
}

/// SPEC §18.4: auto-condense is on only where the task records a
/// `summarize_task` / condense request.
fn condensed(history: &[Value], ui: &[Value]) -> bool {
    let ui_says = ui.iter().any(|m| {
        ["ask", "say"]
            .iter()
            .any(|k| m.get(*k).and_then(Value::as_str) == Some("condense"))
    });
    let history_says = history.iter().any(|m| {
        m.get("role").and_then(Value::as_str) == Some("assistant")
            && m.get("content").and_then(Value::as_array).is_some_and(|a| {
                a.iter().any(|b| {
                    b.get("name").and_then(Value::as_str) == Some("summarize_task")
                        || b.get("text")
                            .and_then(Value::as_str)
                            .is_some_and(|t| t.contains("<summarize_task>"))
                })
            })
    });
    ui_says || history_says
}

/// Each request's recorded facts, in the session's request order.
fn task_requests(
    s: &Session,
    f: &TaskFacts,
    history: &[Value],
    reqs: &[ApiReq],
    by_index: &HashMap<usize, usize>,
    meta: &Metadata,
) -> Vec<TaskRequest> {
    // The session's message of each assistant history message.
    let hist_of_msg: HashMap<usize, usize> = f
        .history
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.user)
        .map(|(i, h)| (h.msg, i))
        .collect();
    let metrics_total = |m: &Value| {
        m.pointer("/metrics/tokens").map(|t| {
            count(t, "prompt")
                .unwrap_or(0)
                .saturating_add(count(t, "completion").unwrap_or(0))
        })
    };
    let mut out = Vec::with_capacity(s.requests.len());
    let mut last_assistant: Option<usize> = None;
    for r in &s.requests {
        let hist = r.response.and_then(|m| hist_of_msg.get(&m).copied());
        let sent = hist.unwrap_or(history.len());
        let j = hist.and_then(|h| by_index.get(&h).copied());
        // The api_req_started before this one (reference §3.1's
        // `previousApiReqIndex`): before the trailing request, the last.
        let prev = match (j, hist) {
            (Some(j), _) => j.checked_sub(1),
            (None, None) => reqs.len().checked_sub(1),
            (None, Some(_)) => None,
        };
        let (prev_total, prev_ts) = match prev.map(|p| &reqs[p]) {
            Some(p) => (Some(p.total()), p.ts),
            None if reqs.is_empty() => (
                last_assistant.and_then(|a| metrics_total(&history[a])),
                last_assistant.and_then(|a| history[a].get("ts").and_then(Value::as_i64)),
            ),
            None => (None, None),
        };
        let at = j.and_then(|j| reqs[j].ts).or(r.now_ms);
        out.push(TaskRequest {
            sent,
            prev_total,
            prev_ts,
            model: j
                .and_then(|j| reqs[j].model.clone())
                .or_else(|| r.response.and_then(|m| s.messages[m].model.clone()))
                .or_else(|| Metadata::at(&meta.models, at).map(str::to_string)),
            deleted_range: j.and_then(|j| reqs[j].range),
        });
        if hist.is_some() {
            last_assistant = hist;
        }
    }
    out
}

/// The records as evidence (SPEC §17.K.4): at each request, the results its
/// edits newly replaced (`context_history.json`, stamped with the `ts` of the
/// request before it) and those its recorded range newly holds.
fn recorded(s: &Session, f: &TaskFacts) -> Vec<crate::session::Evidence> {
    let mut by_request: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    let at_ts = |ts: i64| {
        f.requests
            .iter()
            .position(|r| r.prev_ts.is_some_and(|t| t >= ts))
            .map_or(f.requests.len() + 1, |k| k + 1)
    };
    if let Some(edits) = &f.edits {
        // The mention paths each block had replaced before an update.
        let mut before: HashMap<(usize, usize), Vec<String>> = HashMap::new();
        for e in edits {
            let results: Vec<usize> = match e.kind {
                2 | 3 => f
                    .occurrences
                    .iter()
                    .filter(|o| o.hist == e.hist && o.kind != EditKind::Mention)
                    .map(|o| o.result)
                    .collect(),
                4 => {
                    let old = before
                        .insert((e.hist, e.block), e.paths.clone())
                        .unwrap_or_default();
                    f.occurrences
                        .iter()
                        .filter(|o| {
                            o.hist == e.hist
                                && o.kind == EditKind::Mention
                                && e.paths.contains(&o.path)
                                && !old.contains(&o.path)
                        })
                        .map(|o| o.result)
                        .collect()
                }
                _ => Vec::new(),
            };
            by_request.entry(at_ts(e.ts)).or_default().extend(results);
        }
    }
    // The recorded range at each request, against the one before it.
    let mut prev: Option<(usize, usize)> = None;
    for (k, r) in f.requests.iter().enumerate() {
        let Some((a, b)) = r.deleted_range else {
            continue;
        };
        let was = |h: usize| prev.is_some_and(|(pa, pb)| (pa..=pb).contains(&h));
        let after = b.saturating_add(1);
        let after_user = f.history.get(after).is_some_and(|h| h.user);
        let newly: Vec<usize> = f
            .result_hist
            .iter()
            .enumerate()
            .filter(|&(r, &h)| {
                ((a..=b).contains(&h) || (h == after && after_user && f.result_native[r]))
                    && !was(h)
            })
            .map(|(r, _)| r)
            .collect();
        if prev != Some((a, b)) {
            by_request.entry(k + 1).or_default().extend(newly);
        }
        prev = Some((a, b));
    }
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (k, mut results) in by_request {
        results.retain(|&r| seen.insert(r));
        if results.is_empty() {
            continue;
        }
        results.sort_unstable();
        let segment = s.request(k).map_or(0, |r| r.segment);
        out.push(crate::session::Evidence {
            line: 0,
            before_request: k,
            compacted_tool_ids: results.iter().map(|&r| s.results[r].id.clone()).collect(),
            ids_complete: true,
            budget_writer: true,
            pre_tokens: None,
            tokens_saved: None,
            uuid: None,
            after_request: k.saturating_sub(1),
            segment,
            mask: false,
            pruned: false,
            context_edit: true,
        });
    }
    out
}
