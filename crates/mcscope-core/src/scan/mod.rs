//! One line of the picker per session file, read cheaply: a light pass over the
//! lines that keeps only what a row shows (harness, project, first prompt,
//! requests, tool results, sub-agent threads), never the tool outputs.
//!
//! The loader builds the whole session (messages, wire parts, plans); this scan
//! only counts, so a folder of big sessions fills the picker in seconds. Its
//! counts follow the loader's rules (a response per `message.id`, one more
//! request for user content after the last response, sidechain records apart).//!
//! Here: the summary and the pass over the lines; `prompt` the first prompt's
//! words, `paths` where a session file sits (project, sub-agent, parent).

mod paths;
mod prompt;

pub use paths::{decode_project, is_subagent_path, parent_session, project_dir, short_project};
pub(crate) use prompt::str_of;
use prompt::{Prompt, prompt_of, trim};

use crate::load::format::{LightCounter, LightRecord, LightTally};
use crate::session::{Format, HarnessId};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

type Raw<'a> = crate::load::raw::Raw<'a>;

/// What a file holds, as the picker marks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A main-thread session.
    Session,
    /// A sub-agent transcript (`agent-*.jsonl`, a `subagents` folder, or only
    /// sidechain records): opened as a what-if.
    SubAgent,
    /// Records, but no user or assistant message: only `summary` lines.
    SummaryOnly,
    /// Records, but no message of any kind the picker knows.
    NoMessages,
    /// Nothing at all (0 bytes, or blank lines).
    Empty,
}

impl Kind {
    /// The mark in the picker's row; empty for an ordinary session.
    pub fn mark(self) -> &'static str {
        match self {
            Kind::Session => "",
            Kind::SubAgent => "sub-agent",
            Kind::SummaryOnly => "summary only",
            Kind::NoMessages => "no messages",
            Kind::Empty => "empty",
        }
    }

    /// Files with nothing to plan: listed last.
    pub fn is_blank(self) -> bool {
        matches!(self, Kind::SummaryOnly | Kind::NoMessages | Kind::Empty)
    }
}

/// An inline sub-agent thread of a main file (`isSidechain` records, Claude Code
/// ≤1.0.x): its own entry under its session, opened as a what-if.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    /// 1-based, in the order the threads start in the file.
    pub n: usize,
    pub prompt: Option<String>,
    pub requests: usize,
    pub results: usize,
    /// The file's lines (1-based) that belong to the thread.
    pub lines: Vec<usize>,
}

/// One session file, summarised.
#[derive(Debug, Clone)]
pub struct Summary {
    pub path: PathBuf,
    pub size: u64,
    pub modified: SystemTime,
    pub harness: HarnessId,
    /// The project: the records' `cwd` when they carry one, else decoded from the
    /// folder name (`-home-me-app` → `/home/me/app`).
    pub project: String,
    /// The first prompt a person typed (meta records, slash-command wrappers, tool
    /// results and compact summaries skipped); else the first slash command.
    pub prompt: Option<String>,
    pub requests: usize,
    pub results: usize,
    pub kind: Kind,
    pub threads: Vec<Thread>,
    /// The first `sessionId` the records carry (a sub-agent file: its parent's).
    pub session_id: Option<String>,
    /// The file could not be read (the row says why).
    pub error: Option<String>,
    /// What the light pass left unread, when it did (the row says so): it reads
    /// at most [`PREFIX_CAP`] bytes, and of a line at most [`LINE_CAP`].
    pub note: Option<String>,
}

/// The most the light pass reads of one file: a picker row is a summary, and
/// a sparse or endless file must not cost its length.
pub const PREFIX_CAP: u64 = 256 << 20;

/// The longest line the light pass holds; the rest of a longer one is passed
/// over unread into memory (real lines stay under a few MB: an image is one).
pub const LINE_CAP: usize = 16 << 20;

/// Longest prompt kept for a row (characters).
const PROMPT_MAX: usize = 240;

/// Summarises the file at `path`; an unreadable file gives a row with its error
/// (a FIFO, socket or device is never opened for reading: one could block, the
/// other never end).
pub fn scan(path: &Path) -> Summary {
    let meta = std::fs::metadata(path);
    let (size, modified) = match &meta {
        Ok(m) => (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH)),
        Err(_) => (0, SystemTime::UNIX_EPOCH),
    };
    match crate::load::regular::open_regular(path) {
        Ok(f) => scan_reader(path, size, modified, f),
        Err(e) => {
            let mut s = scan_reader(path, size, modified, std::io::empty());
            s.error = Some(e.to_string());
            s
        }
    }
}

/// As [`scan`], over any reader (the file's contents): its first
/// [`PREFIX_CAP`] bytes, lines over [`LINE_CAP`] passed over.
pub fn scan_reader(path: &Path, size: u64, modified: SystemTime, mut r: impl Read) -> Summary {
    if let Some(whole) = crate::load::format::light_whole(path) {
        // A whole-file record (Gemini CLI ≤ 0.38): read at most one line's cap
        // of it; anything else goes on as lines, from the bytes already read.
        let mut head = Vec::new();
        if let Err(e) = (&mut r).take(LINE_CAP as u64 + 1).read_to_end(&mut head) {
            return State::default().finish(path, size, modified, Some(e.to_string()));
        }
        if let Some(lines) = whole.light_lines(&head) {
            // Counted as its lines would be.
            let mut st = State::default();
            for (i, l) in lines.iter().enumerate() {
                st.line(i + 1, l.as_bytes());
            }
            return st.finish(path, size, modified, None);
        }
        return scan_capped(
            path,
            size,
            modified,
            std::io::Cursor::new(head).chain(r),
            PREFIX_CAP,
            LINE_CAP,
        );
    }
    scan_capped(path, size, modified, r, PREFIX_CAP, LINE_CAP)
}

fn scan_capped(
    path: &Path,
    size: u64,
    modified: SystemTime,
    r: impl Read,
    prefix: u64,
    line_cap: usize,
) -> Summary {
    let mut st = State::default();
    // One byte more than the prefix tells a file of exactly that size from a longer one.
    let mut reader = BufReader::with_capacity(1 << 20, r.take(prefix.saturating_add(1)));
    let mut buf = Vec::new();
    let mut line = 0usize;
    let (mut read, mut long_lines) = (0u64, 0usize);
    let mut error = None;
    loop {
        buf.clear();
        match capped_line(&mut reader, &mut buf, line_cap) {
            Ok((0, _)) => break,
            Ok((n, whole)) => {
                read += n;
                if read > prefix {
                    // The line the cap cut: not read whole, so not counted.
                    break;
                }
                line += 1;
                if !whole {
                    long_lines += 1;
                    continue;
                }
                let text = if line == 1 {
                    crate::load::encoding::strip_bom(&buf)
                } else {
                    &buf
                };
                st.line(line, text);
            }
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    let mut notes = Vec::new();
    if read > prefix {
        notes.push(format!("summary from the first {} MB", prefix >> 20));
    }
    match long_lines {
        0 => {}
        1 => notes.push(format!("1 line over {} MB not read", line_cap >> 20)),
        n => notes.push(format!("{n} lines over {} MB not read", line_cap >> 20)),
    }
    let mut s = st.finish(path, size, modified, error);
    s.note = (!notes.is_empty()).then(|| notes.join("; "));
    s
}

/// Reads one line into `buf` (its newline included), holding at most `cap`
/// bytes of it: the rest of a longer line is consumed unkept. Returns the
/// bytes the line had and whether `buf` holds it whole.
fn capped_line(
    r: &mut impl BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<(u64, bool)> {
    let (mut len, mut whole) = (0u64, true);
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((len, whole));
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if whole && buf.len() + take <= cap {
            buf.extend_from_slice(&chunk[..take]);
        } else {
            whole = false;
            buf.clear();
        }
        len += take as u64;
        r.consume(take);
        if done {
            return Ok((len, whole));
        }
    }
}

/// Requests and results of one thread, counted as the loader builds them.
#[derive(Debug, Default, Clone)]
struct Counter {
    requests: usize,
    results: usize,
    /// The last response's id (None: no response since the last boundary).
    last_response: Option<Option<String>>,
    /// A user message after the last response: one more request at the end.
    trailing_user: bool,
    prompt: Option<String>,
    command: Option<String>,
    lines: Vec<usize>,
}

impl Counter {
    fn user(&mut self, results: usize, prompt: Option<Prompt>) {
        self.results += results;
        self.trailing_user = true;
        match prompt {
            Some(Prompt::Typed(p)) if self.prompt.is_none() => self.prompt = Some(p),
            Some(Prompt::Command(c)) if self.command.is_none() => self.command = Some(c),
            _ => {}
        }
    }

    fn assistant(&mut self, id: Option<String>) {
        let merge =
            matches!((&self.last_response, &id), (Some(Some(last)), Some(id)) if last == id);
        if !merge {
            self.requests += 1;
            self.last_response = Some(id);
        }
        self.trailing_user = false;
    }

    fn boundary(&mut self) {
        self.last_response = None;
        self.trailing_user = false;
    }

    fn requests(&self) -> usize {
        self.requests + self.trailing_user as usize
    }

    fn prompt(&self) -> Option<String> {
        self.prompt.clone().or_else(|| self.command.clone())
    }
}

/// The main thread's counter as a format's own counter adds to it.
struct MainTally<'a> {
    counter: &'a mut Counter,
    main_is_sidechain: &'a mut Option<bool>,
}

impl LightTally for MainTally<'_> {
    fn message(&mut self) {
        self.main_is_sidechain.get_or_insert(false);
    }

    fn response(&mut self) {
        self.counter.requests += 1;
        self.counter.trailing_user = false;
    }

    fn result(&mut self) {
        self.counter.results += 1;
    }

    fn user(&mut self, results: usize, text: Option<&str>) {
        self.counter.user(results, text.and_then(prompt_of));
    }
}

#[derive(Default)]
struct State {
    records: usize,
    summaries: usize,
    qwen: bool,
    /// A format that counts its lines its own way (Gemini CLI's), once one
    /// of its records claimed the file: it counts every line from there on.
    own: Option<(Format, Box<dyn LightCounter>)>,
    cwd: Option<String>,
    session_id: Option<String>,
    /// The first message record's `isSidechain`: which thread is "main".
    main_is_sidechain: Option<bool>,
    main: Counter,
    threads: Vec<Counter>,
    /// Sidechain record uuid → its thread.
    thread_of: HashMap<String, usize>,
}

impl State {
    fn line(&mut self, n: usize, bytes: &[u8]) {
        let text = trim(bytes);
        if text.is_empty() {
            return;
        }
        let Ok(rec) = serde_json::from_slice::<Rec>(text) else {
            return;
        };
        self.records += 1;
        let kind = rec.kind.as_deref().unwrap_or("");
        if self.cwd.is_none()
            && let Some(cwd) = str_of(rec.cwd).filter(|c| !c.is_empty())
        {
            self.cwd = Some(cwd.into_owned());
        }
        if self.session_id.is_none()
            && let Some(id) = str_of(rec.session_id).filter(|c| !c.is_empty())
        {
            self.session_id = Some(id.into_owned());
        }
        let light = LightRecord {
            kind,
            id: rec.id,
            model: rec.model,
            content: rec.content,
            tool_calls: rec.tool_calls,
            project_hash: rec.project_hash,
            header_kind: rec.header_kind,
            set: rec.set,
            rewind_to: rec.rewind_to,
        };
        if self.own.is_none() {
            self.own = crate::load::format::light_counter(&light);
        }
        if let Some((_, own)) = &mut self.own {
            let mut main = MainTally {
                counter: &mut self.main,
                main_is_sidechain: &mut self.main_is_sidechain,
            };
            own.record(&light, &mut main);
            return;
        }
        let sidechain = rec.sidechain.is_some_and(|v| v.get() == "true");
        let subtype = str_of(rec.subtype);
        let message = match kind {
            "summary" => {
                self.summaries += 1;
                return;
            }
            "user" | "assistant" | "tool_result" => rec.message.is_some(),
            _ => false,
        };
        // Qwen records that never reach the model's history.
        if subtype.as_deref() == Some("realtime_message") {
            return;
        }
        if message && self.main_is_sidechain.is_none() {
            self.main_is_sidechain = Some(sidechain);
        }
        let main = sidechain == self.main_is_sidechain.unwrap_or(false);
        let counter = if main {
            &mut self.main
        } else {
            let uuid = str_of(rec.uuid).map(Cow::into_owned);
            let parent = str_of(rec.parent).and_then(|p| self.thread_of.get(p.as_ref()).copied());
            let t = match parent {
                Some(t) => t,
                // A message whose parent is no sidechain record starts a thread;
                // any other sidechain record continues the last one.
                None if message || self.threads.is_empty() => {
                    self.threads.push(Counter::default());
                    self.threads.len() - 1
                }
                None => self.threads.len() - 1,
            };
            if let Some(u) = uuid {
                self.thread_of.insert(u, t);
            }
            let c = &mut self.threads[t];
            c.lines.push(n);
            c
        };
        let Some(msg) = rec.message else {
            if kind == "system"
                && matches!(
                    subtype.as_deref(),
                    Some("compact_boundary" | "chat_compression")
                )
            {
                counter.boundary();
            }
            return;
        };
        if msg.parts.is_some() {
            self.qwen = true;
        }
        let meta = rec.meta.is_some_and(|v| v.get() == "true")
            || rec.compact.is_some_and(|v| v.get() == "true");
        match kind {
            "assistant" => counter.assistant(str_of(msg.id).map(Cow::into_owned)),
            "user" | "tool_result" => {
                let (results, text) = match (&msg.content, &msg.parts) {
                    (Some(Content::Text(t)), _) => (0, Some(Cow::Borrowed(t.as_str()))),
                    (Some(Content::Blocks { results, texts }), _) => {
                        // The first text block a person wrote (an IDE note may lead).
                        let text = texts
                            .iter()
                            .filter_map(|t| str_of(Some(*t)))
                            .find(|t| prompt_of(t).is_some());
                        (*results, if *results == 0 { text } else { None })
                    }
                    (_, Some(parts)) => {
                        let results = parts.iter().filter(|p| p.response.is_some()).count();
                        let text = rec
                            .payload
                            .as_ref()
                            .and_then(|p| str_of(p.display))
                            .or_else(|| parts.iter().find_map(|p| str_of(p.text)));
                        (results, if results == 0 { text } else { None })
                    }
                    _ => (0, None),
                };
                // Qwen's subtyped user records (cron, notifications, agent messages)
                // are not what a person typed.
                let typed = !meta && kind == "user" && subtype.is_none();
                counter.user(results, text.filter(|_| typed).and_then(|t| prompt_of(&t)));
            }
            _ => {}
        }
    }

    fn finish(
        self,
        path: &Path,
        size: u64,
        modified: SystemTime,
        error: Option<String>,
    ) -> Summary {
        // The light pass sniffs the format; the format names its harness.
        let seen = crate::load::format::LightSeen {
            counted_by: self.own.as_ref().map(|(f, _)| *f),
            message_parts: self.qwen,
            messages: self.main_is_sidechain.is_some(),
        };
        let format = crate::load::format::light_format(&seen, path);
        let harness = format.format().harness();
        let kind = if self.own.as_ref().is_some_and(|(_, c)| c.subagent())
            || self.main_is_sidechain == Some(true)
            || (format.subagent_by_path() && is_subagent_path(path))
        {
            Kind::SubAgent
        } else if self.main_is_sidechain.is_some() {
            Kind::Session
        } else if self.records == 0 {
            Kind::Empty
        } else if self.summaries > 0 {
            Kind::SummaryOnly
        } else {
            Kind::NoMessages
        };
        let project = format.light_project(path).unwrap_or_else(|| {
            self.cwd
                .clone()
                .or_else(|| project_dir(path).map(decode_project))
                .unwrap_or_default()
        });
        let threads = if self.main_is_sidechain == Some(false) {
            self.threads
                .iter()
                .filter(|c| c.requests() > 0 || c.prompt().is_some())
                .enumerate()
                .map(|(i, c)| Thread {
                    n: i + 1,
                    prompt: c.prompt(),
                    requests: c.requests(),
                    results: c.results,
                    lines: c.lines.clone(),
                })
                .collect()
        } else {
            Vec::new()
        };
        Summary {
            path: path.to_path_buf(),
            size,
            modified,
            harness,
            project,
            prompt: self.main.prompt(),
            requests: self.main.requests(),
            results: self.main.results,
            kind,
            threads,
            session_id: self.session_id,
            error,
            note: None,
        }
    }
}

#[derive(Deserialize)]
struct Rec<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Raw<'a>,
    #[serde(rename = "isSidechain", borrow, default)]
    sidechain: Raw<'a>,
    #[serde(rename = "isMeta", borrow, default)]
    meta: Raw<'a>,
    #[serde(rename = "isCompactSummary", borrow, default)]
    compact: Raw<'a>,
    #[serde(borrow, default)]
    cwd: Raw<'a>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Raw<'a>,
    #[serde(borrow, default)]
    uuid: Raw<'a>,
    #[serde(rename = "parentUuid", borrow, default)]
    parent: Raw<'a>,
    #[serde(borrow, default)]
    message: Option<Msg<'a>>,
    #[serde(rename = "systemPayload", borrow, default)]
    payload: Option<Payload<'a>>,
    /// Gemini CLI's lines (SPEC §14): a message's `id`, `model` and
    /// top-level `content`; the header's `projectHash` and `kind`; `$set`
    /// updates and `$rewindTo`.
    #[serde(borrow, default)]
    id: Raw<'a>,
    #[serde(borrow, default)]
    model: Raw<'a>,
    #[serde(borrow, default)]
    content: Raw<'a>,
    #[serde(rename = "projectHash", borrow, default)]
    project_hash: Raw<'a>,
    #[serde(rename = "kind", borrow, default)]
    header_kind: Raw<'a>,
    #[serde(rename = "$set", borrow, default)]
    set: Raw<'a>,
    #[serde(rename = "$rewindTo", borrow, default)]
    rewind_to: Raw<'a>,
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Raw<'a>,
}

#[derive(Deserialize)]
struct Msg<'a> {
    #[serde(borrow, default)]
    id: Raw<'a>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
    #[serde(borrow, default)]
    parts: Option<Vec<QwenPart<'a>>>,
}

#[derive(Deserialize)]
struct QwenPart<'a> {
    #[serde(borrow, default)]
    text: Raw<'a>,
    #[serde(rename = "functionResponse", default)]
    response: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct Payload<'a> {
    #[serde(rename = "displayText", borrow, default)]
    display: Raw<'a>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Raw<'a>,
}

/// `message.content`: a string, or blocks counted as they are read (tool results,
/// and the first text block), never kept.
enum Content<'a> {
    Text(String),
    Blocks {
        results: usize,
        texts: Vec<crate::load::raw::Json<'a>>,
    },
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of blocks")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
                // Only the start can be shown: a compact summary may be long.
                Ok(Content::Text(s.chars().take(PROMPT_MAX * 4).collect()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut results = 0;
                let mut texts = Vec::new();
                while let Some(b) = seq.next_element::<Block<'a>>()? {
                    match (b.kind.as_deref(), b.text) {
                        (Some("tool_result"), _) => results += 1,
                        (Some("text"), Some(t)) if texts.len() < 4 => texts.push(t),
                        _ => {}
                    }
                }
                Ok(Content::Blocks { results, texts })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Self::Value, A::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests;
