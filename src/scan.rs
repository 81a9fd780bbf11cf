//! One line of the picker per session file, read cheaply: a light pass over the
//! lines that keeps only what a row shows (harness, project, first prompt,
//! requests, tool results, sub-agent threads), never the tool outputs.
//!
//! The loader builds the whole session (messages, wire parts, plans); this scan
//! only counts, so a folder of big sessions fills the picker in seconds. Its
//! counts follow the loader's rules (a response per `message.id`, one more
//! request for user content after the last response, sidechain records apart).

use crate::session::Harness;
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

type Raw<'a> = Option<&'a RawValue>;

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
    pub harness: Harness,
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
}

/// Longest prompt kept for a row (characters).
const PROMPT_MAX: usize = 240;

/// Summarises the file at `path`; an unreadable file gives a row with its error.
pub fn scan(path: &Path) -> Summary {
    let meta = std::fs::metadata(path);
    let (size, modified) = match &meta {
        Ok(m) => (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH)),
        Err(_) => (0, SystemTime::UNIX_EPOCH),
    };
    match std::fs::File::open(path) {
        Ok(f) => scan_reader(path, size, modified, f),
        Err(e) => {
            let mut s = scan_reader(path, size, modified, std::io::empty());
            s.error = Some(e.to_string());
            s
        }
    }
}

/// As [`scan`], over any reader (the file's contents).
pub fn scan_reader(path: &Path, size: u64, modified: SystemTime, r: impl Read) -> Summary {
    let mut st = State::default();
    let mut reader = BufReader::with_capacity(1 << 20, r);
    let mut buf = Vec::new();
    let mut line = 0usize;
    let mut error = None;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {
                line += 1;
                st.line(line, &buf);
            }
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    st.finish(path, size, modified, error)
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

#[derive(Debug, Default)]
struct State {
    records: usize,
    summaries: usize,
    qwen: bool,
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
        let harness = if self.qwen || (self.main_is_sidechain.is_none() && in_qwen_tree(path)) {
            Harness::Qwen
        } else {
            Harness::Claude
        };
        let kind = if self.main_is_sidechain == Some(true) || is_subagent_path(path) {
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
        let project = self
            .cwd
            .clone()
            .or_else(|| project_dir(path).map(decode_project))
            .unwrap_or_default();
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
        }
    }
}

fn trim(mut b: &[u8]) -> &[u8] {
    while let [rest @ .., last] = b
        && last.is_ascii_whitespace()
    {
        b = rest;
    }
    while let [first, rest @ ..] = b
        && first.is_ascii_whitespace()
    {
        b = rest;
    }
    b
}

fn str_of(v: Raw<'_>) -> Option<Cow<'_, str>> {
    let text = v?.get();
    if !text.starts_with('"') {
        return None;
    }
    if memchr::memchr(b'\\', text.as_bytes()).is_none() {
        return Some(Cow::Borrowed(&text[1..text.len() - 1]));
    }
    serde_json::from_str::<String>(text).ok().map(Cow::Owned)
}

enum Prompt {
    Typed(String),
    Command(String),
}

/// The prompt a user typed, on one line; a slash command as `/name args`; None
/// for the harness's own text (caveats, command output, reminders, interrupts).
fn prompt_of(text: &str) -> Option<Prompt> {
    let t = text.trim_start();
    if t.starts_with("<command-") {
        let name = between(t, "<command-name>", "</command-name>")?;
        let args = between(t, "<command-args>", "</command-args>").unwrap_or("");
        let name = if name.starts_with('/') {
            name.to_string()
        } else {
            format!("/{name}")
        };
        return Some(Prompt::Command(one_line(&format!("{name} {args}"))));
    }
    const HARNESS: &[&str] = &[
        "<local-command-",
        "<ide_",
        "<system-reminder>",
        "<bash-",
        "<user-prompt-submit-hook>",
        "Caveat:",
        "[Request interrupted",
        "This session is being continued",
    ];
    if t.is_empty() || HARNESS.iter().any(|h| t.starts_with(h)) {
        return None;
    }
    Some(Prompt::Typed(one_line(t)))
}

fn between<'a>(t: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = t.find(open)? + open.len();
    let end = t[start..].find(close)? + start;
    Some(t[start..end].trim())
}

/// Whitespace runs (newlines included) as one space, at most [`PROMPT_MAX`] chars.
fn one_line(t: &str) -> String {
    let mut out = String::new();
    for (i, word) in t.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() >= PROMPT_MAX {
            return out.chars().take(PROMPT_MAX).collect();
        }
    }
    out
}

/// A sub-agent transcript by its place: `agent-*.jsonl`, or under `subagents/`.
pub fn is_subagent_path(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("agent-"))
        || path.components().any(|c| c.as_os_str() == "subagents")
}

/// The session file a sub-agent file belongs to, where its place says it:
/// `<project>/<session>/subagents/agent-*.jsonl` (Claude Code 2.1) →
/// `<project>/<session>.jsonl`; `<project>/subagents/<session>/agent-*.jsonl` (Qwen)
/// → `<project>/chats/<session>.jsonl`; a sibling `agent-*.jsonl` (Claude Code 2.0)
/// → `<project>/<session_id>.jsonl`, the id its records carry.
pub fn parent_session(path: &Path, session_id: Option<&str>) -> Option<PathBuf> {
    let dir = path.parent()?;
    if dir.file_name()? == "subagents" {
        let session = dir.parent()?;
        let name = session.file_name()?.to_str()?;
        return Some(session.parent()?.join(format!("{name}.jsonl")));
    }
    let up = dir.parent()?;
    if up.file_name().is_some_and(|n| n == "subagents") {
        let name = dir.file_name()?.to_str()?;
        return Some(up.parent()?.join("chats").join(format!("{name}.jsonl")));
    }
    let own = path.file_name()?.to_str()?;
    match session_id {
        Some(id) if own.starts_with("agent-") && !id.is_empty() => {
            Some(dir.join(format!("{id}.jsonl")))
        }
        _ => None,
    }
}

fn in_qwen_tree(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == ".qwen")
}

/// The project folder of a session file: its parent, above `chats/` (Qwen) and
/// `<session>/subagents/` or `subagents/<session>/` (sub-agent files).
pub fn project_dir(path: &Path) -> Option<&str> {
    let mut dirs: Vec<&str> = path
        .parent()?
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    // <project>/<session>/subagents/agent-x.jsonl (Claude Code 2.1.x)
    if dirs.last() == Some(&"subagents") {
        dirs.pop();
        dirs.pop();
    } else if dirs.len() >= 2 && dirs[dirs.len() - 2] == "subagents" {
        // <project>/subagents/<session>/agent-x.jsonl (Qwen)
        dirs.truncate(dirs.len() - 2);
    }
    if dirs.last() == Some(&"chats") {
        dirs.pop();
    }
    dirs.last().copied()
}

/// A harness's sanitised project folder name back to a path: Claude Code and Qwen
/// Code write the cwd with `/` (and `.`) as `-`, so `-home-me-app` is
/// `/home/me/app`. A name that does not start with `-` is not one: kept as is.
/// (`-` in a folder name cannot be told from `/`; the records' `cwd` wins when
/// there is one.)
pub fn decode_project(name: &str) -> String {
    if name.starts_with('-') {
        name.replace('-', "/")
    } else {
        name.to_string()
    }
}

/// A project path for a narrow column: the home folder as `~`.
pub fn short_project(project: &str, home: Option<&str>) -> String {
    match home {
        Some(h) if !h.is_empty() && h != "/" => match project.strip_prefix(h) {
            Some("") => "~".into(),
            Some(rest) if rest.starts_with('/') => format!("~{rest}"),
            _ => project.to_string(),
        },
        _ => project.to_string(),
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
        texts: Vec<&'a RawValue>,
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
mod tests {
    use super::*;

    fn scan_text(path: &str, text: &str) -> Summary {
        scan_reader(
            Path::new(path),
            text.len() as u64,
            SystemTime::UNIX_EPOCH,
            text.as_bytes(),
        )
    }

    const PROJECT: &str = "/home/me/.claude/projects/-home-me-app/s1.jsonl";

    #[test]
    fn counts_responses_by_id_and_results_and_finds_the_typed_prompt() {
        // A caveat (meta), a slash command, the typed prompt, then a response split
        // over two lines (one id), a tool result, a second response, and a last
        // user message with no response yet: 3 requests, 1 result.
        let text = [
            r#"{"type":"summary","summary":"old title","leafUuid":"x"}"#,
            r#"{"type":"user","isMeta":true,"cwd":"/home/me/app","uuid":"u0","message":{"role":"user","content":"Caveat: the messages below were generated by the user while running local commands."}}"#,
            r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"<command-message>init is analyzing</command-message>\n<command-name>/init</command-name>"}}"#,
            r#"{"type":"user","uuid":"u2","message":{"role":"user","content":"Fix the   failing\ntest in parser.rs"}}"#,
            r#"{"type":"assistant","uuid":"a1","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Looking"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}"#,
            r#"{"type":"user","uuid":"u3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"fn main() {}"}]}}"#,
            r#"{"type":"assistant","uuid":"a3","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"Done"}]}}"#,
            r#"{"type":"user","uuid":"u4","message":{"role":"user","content":"thanks"}}"#,
            "not json at all",
        ]
        .join("\n");
        let s = scan_text(PROJECT, &text);
        assert_eq!(s.kind, Kind::Session);
        assert_eq!(s.harness, Harness::Claude);
        assert_eq!(s.project, "/home/me/app", "the records' cwd");
        assert_eq!(
            s.prompt.as_deref(),
            Some("Fix the failing test in parser.rs")
        );
        assert_eq!((s.requests, s.results), (3, 1));
        assert!(s.threads.is_empty());
    }

    #[test]
    fn a_session_of_only_commands_shows_its_first_command() {
        // An IDE note leads the blocks: the typed text is the next one.
        let ide = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<ide_opened_file>a.rs</ide_opened_file>"},{"type":"text","text":"explain a.rs"}]}}"#;
        assert_eq!(
            scan_text(PROJECT, ide).prompt.as_deref(),
            Some("explain a.rs")
        );
        let text = r#"{"type":"user","message":{"role":"user","content":"<command-message>init</command-message>\n<command-name>/init</command-name>\n<command-args>--quick</command-args>"}}"#;
        let s = scan_text(PROJECT, text);
        assert_eq!(s.prompt.as_deref(), Some("/init --quick"));
        assert_eq!(
            s.requests, 1,
            "user content with no response is one request"
        );
    }

    #[test]
    fn empty_summary_only_and_sub_agent_files_are_told_apart() {
        let empty = scan_text(PROJECT, "");
        assert_eq!(empty.kind, Kind::Empty);
        assert_eq!(empty.project, "/home/me/app", "decoded from the folder");
        assert_eq!((empty.requests, empty.results), (0, 0));
        let blank = scan_text(PROJECT, "\n  \n");
        assert_eq!(blank.kind, Kind::Empty);
        let summary = scan_text(
            PROJECT,
            r#"{"type":"summary","summary":"t","leafUuid":"x"}"#,
        );
        assert_eq!(summary.kind, Kind::SummaryOnly);
        let other = scan_text(
            PROJECT,
            r#"{"type":"file-history-snapshot","messageId":"m"}"#,
        );
        assert_eq!(other.kind, Kind::NoMessages);
        for k in [Kind::Empty, Kind::SummaryOnly, Kind::NoMessages] {
            assert!(k.is_blank());
        }
        assert!(!Kind::SubAgent.is_blank());

        let sub = r#"{"type":"assistant","isSidechain":true,"agentId":"c8d9","message":{"id":"m1","role":"assistant","content":[]}}"#;
        // Only sidechain records: a sub-agent transcript wherever it lies.
        assert_eq!(scan_text(PROJECT, sub).kind, Kind::SubAgent);
        assert_eq!(scan_text(PROJECT, sub).requests, 1);
        // By name or place, even empty.
        for p in [
            "/p/-home-me-app/agent-c8d9b115.jsonl",
            "/p/-home-me-app/258c7280/subagents/agent-a881341.jsonl",
        ] {
            let s = scan_text(p, "");
            assert_eq!(s.kind, Kind::SubAgent, "{p}");
            assert_eq!(s.project, "/home/me/app", "{p}");
        }
    }

    #[test]
    fn inline_sidechain_threads_are_listed_with_their_lines() {
        // Main: prompt + one response. Two inline threads (roots with parentUuid
        // null), the first with two responses and a result, the second with one.
        let text = [
            r#"{"type":"user","uuid":"m1","parentUuid":null,"message":{"role":"user","content":"main prompt"}}"#,
            r#"{"type":"assistant","uuid":"m2","parentUuid":"m1","message":{"id":"r1","content":[]}}"#,
            r#"{"type":"user","isSidechain":true,"uuid":"s1","parentUuid":null,"message":{"role":"user","content":"list the files"}}"#,
            r#"{"type":"assistant","isSidechain":true,"uuid":"s2","parentUuid":"s1","message":{"id":"r2","content":[]}}"#,
            r#"{"type":"user","isSidechain":true,"uuid":"s3","parentUuid":"s2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}}"#,
            r#"{"type":"user","isSidechain":true,"uuid":"x1","parentUuid":null,"message":{"role":"user","content":"grep for TODO"}}"#,
            r#"{"type":"assistant","isSidechain":true,"uuid":"s4","parentUuid":"s3","message":{"id":"r3","content":[]}}"#,
            r#"{"type":"assistant","isSidechain":true,"uuid":"x2","parentUuid":"x1","message":{"id":"r4","content":[]}}"#,
        ]
        .join("\n");
        let s = scan_text(PROJECT, &text);
        assert_eq!(s.kind, Kind::Session);
        assert_eq!(
            (s.requests, s.results),
            (1, 0),
            "sidechains left out of the main"
        );
        assert_eq!(s.prompt.as_deref(), Some("main prompt"));
        assert_eq!(s.threads.len(), 2);
        let t = &s.threads[0];
        assert_eq!((t.n, t.requests, t.results), (1, 2, 1));
        assert_eq!(t.prompt.as_deref(), Some("list the files"));
        assert_eq!(t.lines, vec![3, 4, 5, 7]);
        let t = &s.threads[1];
        assert_eq!((t.n, t.requests, t.results), (2, 1, 0));
        assert_eq!(t.lines, vec![6, 8]);
    }

    #[test]
    fn qwen_records_count_each_assistant_record_and_each_function_response() {
        let text = [
            r#"{"uuid":"1","parentUuid":null,"type":"user","cwd":"/home/dev/proj","message":{"role":"user","parts":[{"text":"Why does the test fail?"}]}}"#,
            r#"{"uuid":"2","parentUuid":"1","type":"assistant","message":{"role":"model","parts":[{"functionCall":{"id":"c1","name":"read_file","args":{}}},{"functionCall":{"id":"c2","name":"read_file","args":{}}}]}}"#,
            r#"{"uuid":"3","parentUuid":"2","type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"x"}}}]}}"#,
            r#"{"uuid":"4","parentUuid":"3","type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"c2","name":"read_file","response":{"output":"y"}}}]}}"#,
            r#"{"uuid":"5","parentUuid":"4","type":"user","subtype":"notification","message":{"role":"user","parts":[{"text":"<task-notification>"}]}}"#,
            r#"{"uuid":"6","parentUuid":"5","type":"assistant","message":{"role":"model","parts":[{"text":"Fixed."}]}}"#,
            r#"{"uuid":"7","parentUuid":"6","type":"user","subtype":"realtime_message","message":{"role":"user","parts":[{"text":"open it"}]}}"#,
        ]
        .join("\n");
        let s = scan_text(
            "/home/dev/.qwen/projects/-home-dev-proj/chats/s.jsonl",
            &text,
        );
        assert_eq!(s.harness, Harness::Qwen);
        assert_eq!(s.project, "/home/dev/proj");
        assert_eq!(s.prompt.as_deref(), Some("Why does the test fail?"));
        // Two assistant records; the realtime message is not history.
        assert_eq!((s.requests, s.results), (2, 2));
        assert_eq!(
            project_dir(Path::new("/q/projects/-a-b/subagents/sid/agent-1.jsonl")),
            Some("-a-b")
        );
        assert_eq!(
            project_dir(Path::new("/q/projects/-a-b/chats/s.jsonl")),
            Some("-a-b")
        );
    }

    #[test]
    fn a_sub_agent_file_names_its_parent_session() {
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(
            parent_session(Path::new("/c/-a/258c/subagents/agent-a881341.jsonl"), None),
            p("/c/-a/258c.jsonl")
        );
        assert_eq!(
            parent_session(Path::new("/q/-a/subagents/sid/agent-1.jsonl"), None),
            p("/q/-a/chats/sid.jsonl")
        );
        assert_eq!(
            parent_session(Path::new("/c/-a/agent-c8d9b115.jsonl"), Some("a7da")),
            p("/c/-a/a7da.jsonl")
        );
        assert_eq!(
            parent_session(Path::new("/c/-a/agent-c8d9b115.jsonl"), None),
            None
        );
        assert_eq!(
            parent_session(Path::new("/c/-a/s1.jsonl"), Some("s1")),
            None
        );
        let sub =
            r#"{"type":"assistant","isSidechain":true,"sessionId":"a7da","message":{"id":"m1"}}"#;
        assert_eq!(
            scan_text("/c/-a/agent-c8d9b115.jsonl", sub)
                .session_id
                .as_deref(),
            Some("a7da")
        );
    }

    #[test]
    fn projects_decode_and_shorten_under_home() {
        assert_eq!(decode_project("-home-me-app"), "/home/me/app");
        assert_eq!(decode_project("claude-code"), "claude-code");
        assert_eq!(short_project("/home/me/app", Some("/home/me")), "~/app");
        assert_eq!(short_project("/home/me", Some("/home/me")), "~");
        assert_eq!(
            short_project("/home/meow/app", Some("/home/me")),
            "/home/meow/app"
        );
        assert_eq!(short_project("/srv/x", None), "/srv/x");
    }

    #[test]
    fn a_long_prompt_is_cut_and_harness_text_is_no_prompt() {
        let long = "word ".repeat(200);
        match prompt_of(&long) {
            Some(Prompt::Typed(p)) => assert_eq!(p.chars().count(), PROMPT_MAX),
            _ => panic!("a typed prompt"),
        }
        for t in [
            "<local-command-stdout>ok</local-command-stdout>",
            "<system-reminder>x</system-reminder>",
            "[Request interrupted by user]",
            "<ide_opened_file>The user opened x</ide_opened_file>",
            "   ",
        ] {
            assert!(prompt_of(t).is_none(), "{t}");
        }
    }
}
