//! Gemini CLI's chat files: the JSON Lines of 0.39+ and the legacy whole-file
//! record of ≤ 0.38. Both are replayed whole (a line may rewrite an earlier
//! one), so neither is streamed nor followed.

use super::super::{LoadError, gemini};
use super::{FormatLoader, Head, LightCounter, LightRecord, LightSeen, LightTally};
use crate::load::raw::string as str_of;
use crate::session::{Format, Session};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

pub(super) struct GeminiJsonl;
pub(super) struct GeminiJson;

/// Whether a parsed record is Gemini CLI's: Some(true) for a whole legacy
/// record (a header with its messages), Some(false) for a line of the JSONL
/// (its header, a `$set` or a `$rewindTo`).
fn record_kind(o: &Map<String, Value>) -> Option<bool> {
    if o.contains_key("$set") || o.contains_key("$rewindTo") {
        return Some(false);
    }
    let header = o.get("sessionId").is_some_and(Value::is_string)
        && o.get("projectHash").is_some_and(Value::is_string);
    if !header {
        return None;
    }
    Some(o.get("messages").is_some_and(Value::is_array))
}

fn whole_kind(head: &Head<'_>) -> Option<bool> {
    head.whole()
        .and_then(Value::as_object)
        .and_then(record_kind)
}

/// Loads the file: JSON Lines read line by line, a whole legacy record read
/// whole (both replayed, not streamed).
fn load_whole(
    path: &Path,
    mut file: File,
    format: Format,
    whole_record: bool,
    progress: &AtomicU64,
) -> Result<Session, LoadError> {
    if !whole_record {
        return gemini::load(path, gemini::Input::Lines(file, progress), format);
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|source| LoadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    progress.store(bytes.len() as u64, Ordering::Relaxed);
    let text = String::from_utf8_lossy(&bytes);
    gemini::load(path, gemini::Input::Whole(&text), format)
}

const NO_FOLLOW: &str =
    "following a Gemini CLI session as it grows is not built yet; open it without --follow";

impl FormatLoader for GeminiJsonl {
    fn format(&self) -> Format {
        Format::GeminiJsonl
    }

    fn sniff_record(&self, record: &Map<String, Value>) -> bool {
        record_kind(record) == Some(false)
    }

    fn sniff_whole(&self, head: &Head<'_>) -> bool {
        whole_kind(head) == Some(false)
    }

    fn read(
        &self,
        path: &Path,
        file: File,
        _session: Option<&str>,
        progress: &AtomicU64,
    ) -> Result<Session, LoadError> {
        load_whole(path, file, self.format(), false, progress)
    }

    fn follow(&self, _path: &Path) -> Result<Box<dyn super::super::Tail>, &'static str> {
        Err(NO_FOLLOW)
    }

    fn listed(&self, path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "jsonl")
    }

    /// The light pass counts a legacy record as these lines too.
    fn light_claims(&self, seen: &LightSeen, _path: &Path) -> bool {
        seen.counted_by == Some(self.format())
    }

    /// Its header (`projectHash`), a `$set` or a `$rewindTo`.
    fn light_counter(&self, record: &LightRecord<'_>) -> Option<Box<dyn LightCounter>> {
        let ours =
            record.project_hash.is_some() || record.set.is_some() || record.rewind_to.is_some();
        ours.then(|| Box::new(LightCount::default()) as Box<dyn LightCounter>)
    }

    /// `<home>/.gemini/tmp/<project slug>/chats/…`: the slug names it.
    fn light_project(&self, path: &Path) -> Option<String> {
        Some(
            path.ancestors()
                .find(|a| a.file_name().is_some_and(|n| n == "chats"))
                .and_then(|c| c.parent()?.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        )
    }

    /// A sub-agent's file says so in its header, not by its name.
    fn subagent_by_path(&self) -> bool {
        false
    }
}

impl FormatLoader for GeminiJson {
    fn format(&self) -> Format {
        Format::GeminiJson
    }

    fn sniff_record(&self, record: &Map<String, Value>) -> bool {
        record_kind(record) == Some(true)
    }

    /// A whole legacy record, or one longer than the head: its header keys
    /// lead it.
    fn sniff_whole(&self, head: &Head<'_>) -> bool {
        if whole_kind(head) == Some(true) {
            return true;
        }
        let lead = &head.bytes[..head.bytes.len().min(4096)];
        whole_kind(head).is_none()
            && memchr::memmem::find(lead, b"\"projectHash\"").is_some()
            && memchr::memmem::find(lead, b"\"sessionId\"").is_some()
    }

    fn read(
        &self,
        path: &Path,
        file: File,
        _session: Option<&str>,
        progress: &AtomicU64,
    ) -> Result<Session, LoadError> {
        load_whole(path, file, self.format(), true, progress)
    }

    fn follow(&self, _path: &Path) -> Result<Box<dyn super::super::Tail>, &'static str> {
        Err(NO_FOLLOW)
    }

    /// Gemini CLI up to 0.38 wrote one `.json` record per session in its
    /// `chats` folder (`session-*.json`).
    fn listed(&self, path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "json")
            && path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == "chats")
            && path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("session-"))
    }

    /// A `.json` file: a whole record (anything else is read on as lines).
    fn light_whole(&self, path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "json")
    }

    /// The record (`{sessionId, projectHash, …, messages}`) as its lines
    /// would be: the header, then each message.
    fn light_lines(&self, bytes: &[u8]) -> Option<Vec<String>> {
        let v: Value = serde_json::from_slice(super::super::encoding::strip_bom(bytes)).ok()?;
        let o = v.as_object()?;
        if !o.get("projectHash").is_some_and(|h| h.is_string()) {
            return None;
        }
        let mut head = o.clone();
        let messages = head.remove("messages")?;
        let mut lines = vec![Value::Object(head).to_string()];
        for m in messages.as_array()? {
            lines.push(m.to_string());
        }
        Some(lines)
    }

    /// A sub-agent's file says so in its header, not by its name.
    fn subagent_by_path(&self) -> bool {
        false
    }
}

/// The picker's count of a Gemini CLI file, as its loader counts
/// (`load::gemini`): a response is a `gemini` record with a `model` at its
/// first appearance; results are counted once by id; the prompt is the first
/// text a person typed (the session context and hook notes are not).
#[derive(Default)]
struct LightCount {
    /// The header's `kind` said `subagent`.
    subagent: bool,
    /// The responses seen (by record id) and the results (by tool id).
    responses: HashSet<String>,
    results: HashSet<String>,
}

impl LightCounter for LightCount {
    fn record(&mut self, rec: &LightRecord<'_>, main: &mut dyn LightTally) {
        if rec.project_hash.is_some() {
            self.subagent |= str_of(rec.header_kind).as_deref() == Some("subagent");
            return;
        }
        let Some(id) = str_of(rec.id) else {
            return;
        };
        if matches!(rec.kind, "user" | "gemini") {
            main.message();
        }
        match rec.kind {
            "gemini" => {
                if rec.model.is_some() && self.responses.insert(id.into_owned()) {
                    main.response();
                }
                // Results a `toolCalls` entry carries, each once by id.
                let calls: Vec<ToolCallEntry> = rec
                    .tool_calls
                    .and_then(|c| serde_json::from_str(c.get()).ok())
                    .unwrap_or_default();
                for part in calls.iter().flat_map(|c| c.result.iter().flatten()) {
                    if let Some(r) = &part.response
                        && let Some(rid) = str_of(r.id)
                        && self.results.insert(rid.into_owned())
                    {
                        main.result();
                    }
                }
            }
            "user" => {
                let parts: Vec<LightPart> = rec
                    .content
                    .and_then(|c| serde_json::from_str(c.get()).ok())
                    .unwrap_or_default();
                let mut results = 0;
                for p in &parts {
                    if let Some(r) = &p.response
                        && let Some(rid) = str_of(r.id)
                        && self.results.insert(rid.into_owned())
                    {
                        results += 1;
                    }
                }
                let text = parts
                    .iter()
                    .filter(|p| p.response.is_none())
                    .filter_map(|p| str_of(p.text))
                    .find(|t| {
                        !t.starts_with("<session_context>") && !t.starts_with("<hook_context>")
                    });
                main.user(results, text.as_deref().filter(|_| results == 0));
            }
            _ => {}
        }
    }

    fn subagent(&self) -> bool {
        self.subagent
    }
}

/// A `toolCalls` entry: its result parts (0.39–0.43 hold the results only
/// there).
#[derive(Deserialize)]
struct ToolCallEntry<'a> {
    #[serde(borrow, default)]
    result: Option<Vec<LightPart<'a>>>,
}

/// A part of a content, as a picker row counts it.
#[derive(Deserialize)]
struct LightPart<'a> {
    #[serde(borrow, default)]
    text: Option<crate::load::raw::Json<'a>>,
    #[serde(rename = "functionResponse", borrow, default)]
    response: Option<LightResponse<'a>>,
}

#[derive(Deserialize)]
struct LightResponse<'a> {
    #[serde(borrow, default)]
    id: Option<crate::load::raw::Json<'a>>,
}
