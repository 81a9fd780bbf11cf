//! Claude Code session transcripts (`~/.claude/projects/<cwd>/<session>.jsonl`).
//! See `shared/reference/claude-code-jsonl.md` for the record shapes.

use super::RecordSink;
use super::builder::{AssistantRecord, Builder, PLACEHOLDER, UserRecord};
use super::raw::{self, Raw};
use crate::session::{Diagnostic, Evidence, Format, Part, Session, ToolCall, ToolResult, Usage};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Raw<'a>,
    #[serde(borrow, default)]
    subtype: Raw<'a>,
    #[serde(rename = "isSidechain", borrow, default)]
    sidechain: Raw<'a>,
    #[serde(rename = "isMeta", borrow, default)]
    meta: Raw<'a>,
    #[serde(borrow, default)]
    timestamp: Raw<'a>,
    #[serde(borrow, default)]
    cwd: Raw<'a>,
    #[serde(borrow, default)]
    message: Raw<'a>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Raw<'a>,
    #[serde(borrow, default)]
    replacements: Raw<'a>,
    #[serde(rename = "microcompactMetadata", borrow, default)]
    microcompact: Raw<'a>,
}

#[derive(Deserialize)]
pub(super) struct Msg<'a> {
    #[serde(borrow, default)]
    pub id: Raw<'a>,
    #[serde(borrow, default)]
    pub model: Raw<'a>,
    #[serde(borrow, default)]
    pub content: Raw<'a>,
    #[serde(borrow, default)]
    pub usage: Raw<'a>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Raw<'a>,
    #[serde(borrow, default)]
    id: Raw<'a>,
    #[serde(borrow, default)]
    name: Raw<'a>,
    #[serde(borrow, default)]
    input: Raw<'a>,
    #[serde(borrow, default)]
    tool_use_id: Raw<'a>,
    #[serde(borrow, default)]
    content: Raw<'a>,
    #[serde(borrow, default)]
    is_error: Raw<'a>,
    #[serde(borrow, default)]
    text: Raw<'a>,
}

#[derive(Deserialize)]
struct Input<'a> {
    #[serde(borrow, default)]
    file_path: Raw<'a>,
    #[serde(borrow, default)]
    command: Raw<'a>,
    #[serde(borrow, default)]
    pattern: Raw<'a>,
    #[serde(borrow, default)]
    url: Raw<'a>,
    #[serde(borrow, default)]
    query: Raw<'a>,
    #[serde(borrow, default)]
    path: Raw<'a>,
}

#[derive(Deserialize, Default)]
struct RawUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct Replacement<'a> {
    #[serde(rename = "toolUseId", borrow, default)]
    tool_use_id: Raw<'a>,
    #[serde(borrow, default)]
    replacement: Raw<'a>,
}

pub struct Sink {
    b: Builder,
    /// None until the first user/assistant record says which thread is "main".
    what_if: Option<bool>,
    /// `content-replacement` records: the text the model saw instead (SPEC §2).
    replacements: HashMap<String, String>,
}

impl Sink {
    pub fn new(path: &Path) -> Sink {
        Sink {
            b: Builder::new(path, Format::ClaudeJsonl),
            what_if: None,
            replacements: HashMap::new(),
        }
    }
}

impl RecordSink for Sink {
    fn record(&mut self, text: &str, line: usize, offset: u64) -> Result<(), String> {
        let rec: Line = serde_json::from_str(text).map_err(super::json_error)?;
        self.b.s.records += 1;
        let kind = raw::string(rec.kind);
        let kind = kind.as_deref().unwrap_or("");
        let sidechain = raw::is_true(rec.sidechain);
        if matches!(kind, "user" | "assistant") && self.what_if.is_none() {
            // A sub-agent file holds only sidechain records: plan it as a what-if.
            self.what_if = Some(sidechain);
        }
        let main = sidechain == self.what_if.unwrap_or(false);
        match kind {
            "user" | "assistant" if !main => self.b.s.sidechain_records += 1,
            "user" => self.user(&rec, text.len(), line, offset)?,
            "assistant" => self.assistant(&rec, text.len(), line, offset)?,
            "system" if main => {
                let subtype = raw::string(rec.subtype);
                match subtype.as_deref() {
                    Some("compact_boundary") => self.b.begin_segment(),
                    Some("microcompact_boundary") => self.evidence(&rec, line),
                    _ => {}
                }
            }
            "content-replacement" => {
                let for_main =
                    raw::is_null_or_absent(rec.agent_id) != self.what_if.unwrap_or(false);
                if for_main {
                    for r in raw::elements(rec.replacements) {
                        let Ok(r) = serde_json::from_str::<Replacement>(r.get()) else {
                            continue;
                        };
                        if let (Some(id), Some(text)) =
                            (raw::owned(r.tool_use_id), raw::owned(r.replacement))
                        {
                            self.replacements.insert(id, text);
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>, diagnostics: Vec<Diagnostic>) -> Session {
        // A replacement stands for the whole content of every result with that id.
        if !self.replacements.is_empty() {
            for r in &mut self.b.s.results {
                if let Some(text) = self.replacements.get(&r.id) {
                    let chars = raw::utf16_len_str(text);
                    r.chars = chars;
                    r.media = 0;
                    r.est_tokens = js_round_quarter(chars);
                    r.already_cleared = text == PLACEHOLDER;
                }
            }
        }
        let mut s = self.b.finish(diagnostics);
        s.subagent_what_if = self.what_if == Some(true);
        s.replacements = self.replacements;
        s
    }
}

impl Sink {
    fn user(&mut self, rec: &Line<'_>, len: usize, line: usize, offset: u64) -> Result<(), String> {
        let msg: Msg = raw::object(rec.message).ok_or("user record without a message object")?;
        let ts = raw::string(rec.timestamp);
        let blocks = raw::elements(msg.content);
        let parsed: Vec<Block> = blocks
            .iter()
            .filter_map(|b| serde_json::from_str::<Block>(b.get()).ok())
            .collect();
        let has_tool_result = parsed.iter().any(is_tool_result);
        let idx = self.b.user(UserRecord {
            part: Part::Record { offset, len },
            ts: ts.as_deref(),
            line,
            is_meta: raw::is_true(rec.meta),
            has_tool_result,
        });
        for block in parsed.iter().filter(|b| is_tool_result(b)) {
            let Some(id) = raw::owned(block.tool_use_id) else {
                continue;
            };
            let m = measure(block.content);
            self.b.result(ToolResult {
                id,
                name: None,
                msg: idx,
                chars: m.chars,
                media: m.media,
                est_tokens: m.est_tokens,
                is_error: raw::is_true(block.is_error),
                already_cleared: m.placeholder,
                line,
            });
        }
        Ok(())
    }

    fn assistant(
        &mut self,
        rec: &Line<'_>,
        len: usize,
        line: usize,
        offset: u64,
    ) -> Result<(), String> {
        let msg: Msg =
            raw::object(rec.message).ok_or("assistant record without a message object")?;
        let ts = raw::string(rec.timestamp);
        let idx = self.b.assistant(AssistantRecord {
            part: Part::Record { offset, len },
            ts: ts.as_deref(),
            line,
            response_id: raw::owned(msg.id),
            model: raw::owned(msg.model),
            usage: usage(msg.usage),
        });
        let cwd = raw::owned(rec.cwd);
        for b in raw::elements(msg.content) {
            let Ok(block) = serde_json::from_str::<Block>(b.get()) else {
                continue;
            };
            if raw::string(block.kind).as_deref() != Some("tool_use") {
                continue;
            }
            let (Some(id), Some(name)) = (raw::owned(block.id), raw::owned(block.name)) else {
                continue;
            };
            let input: Option<Input> = raw::object(block.input);
            let (file_path, summary) = match &input {
                Some(i) => (
                    raw::owned(i.file_path),
                    [i.command, i.pattern, i.url, i.query, i.path]
                        .into_iter()
                        .find_map(raw::owned),
                ),
                None => (None, None),
            };
            self.b.call(ToolCall {
                id,
                name,
                msg: idx,
                file_path,
                legacy_path: None,
                summary,
                cwd: cwd.clone(),
            });
        }
        Ok(())
    }

    fn evidence(&mut self, rec: &Line<'_>, line: usize) {
        #[derive(Deserialize)]
        struct Meta {
            #[serde(rename = "compactedToolIds", default)]
            compacted_tool_ids: Vec<String>,
        }
        let ids = rec
            .microcompact
            .and_then(|m| serde_json::from_str::<Meta>(m.get()).ok())
            .map(|m| m.compacted_tool_ids)
            .unwrap_or_default();
        self.b.s.evidence.push(Evidence {
            line,
            before_request: self.b.s.requests.len() + 1,
            compacted_tool_ids: ids,
        });
    }
}

fn is_tool_result(b: &Block<'_>) -> bool {
    raw::string(b.kind).as_deref() == Some("tool_result") && raw::is_string(b.tool_use_id)
}

pub(super) fn usage(v: Raw<'_>) -> Option<Usage> {
    let u: RawUsage = serde_json::from_str(v?.get()).ok()?;
    Some(Usage {
        input_tokens: u.input_tokens.unwrap_or(0),
        cache_creation_input_tokens: u.cache_creation_input_tokens.unwrap_or(0),
        cache_read_input_tokens: u.cache_read_input_tokens.unwrap_or(0),
        output_tokens: u.output_tokens.unwrap_or(0),
    })
}

/// `Math.round(len / 4)`, as Claude Code's `roughTokenCountEstimation`.
pub fn js_round_quarter(len: u64) -> u64 {
    (len + 2) / 4
}

/// Claude counts 2000 tokens per image or document in a tool result.
pub const MEDIA_TOKENS: u64 = 2000;

pub(super) struct Measure {
    pub chars: u64,
    pub media: u32,
    pub est_tokens: u64,
    pub placeholder: bool,
}

/// Measures a `tool_result.content`: a string, or text / image / document blocks.
pub(super) fn measure(content: Raw<'_>) -> Measure {
    let mut m = Measure {
        chars: 0,
        media: 0,
        est_tokens: 0,
        placeholder: false,
    };
    if let Some(n) = raw::utf16_len(content) {
        m.chars = n;
        m.est_tokens = js_round_quarter(n);
        m.placeholder = raw::string(content).as_deref() == Some(PLACEHOLDER);
        return m;
    }
    let mut texts = 0;
    let mut only_text_is_placeholder = true;
    for b in raw::elements(content) {
        let Ok(block) = serde_json::from_str::<Block>(b.get()) else {
            continue;
        };
        match raw::string(block.kind).as_deref() {
            Some("text") => {
                let n = raw::utf16_len(block.text).unwrap_or(0);
                m.chars += n;
                m.est_tokens += js_round_quarter(n);
                texts += 1;
                only_text_is_placeholder &= raw::string(block.text).as_deref() == Some(PLACEHOLDER);
            }
            Some("image") | Some("document") => {
                m.media += 1;
                m.est_tokens += MEDIA_TOKENS;
            }
            _ => {}
        }
    }
    m.placeholder = texts == 1 && only_text_is_placeholder && m.media == 0;
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    fn m(json: &str) -> Measure {
        let r = RawValue::from_string(json.to_string()).unwrap();
        measure(Some(&r))
    }

    #[test]
    fn measures_strings_blocks_and_media() {
        let x = m(r#""abcdef""#);
        assert_eq!((x.chars, x.est_tokens, x.media), (6, 2, 0));
        let x = m(
            r#"[{"type":"text","text":"ab"},{"type":"text","text":"abcdef"},{"type":"image","source":{}}]"#,
        );
        // round(2/4)=1 (half up), round(6/4)=2, +2000 for the image
        assert_eq!((x.chars, x.est_tokens, x.media), (8, 2003, 1));
        assert!(m(r#""[Old tool result content cleared]""#).placeholder);
        assert!(m(r#"[{"type":"text","text":"[Old tool result content cleared]"}]"#).placeholder);
        assert!(!m(r#""something else""#).placeholder);
    }
}
