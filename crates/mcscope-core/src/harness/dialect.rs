//! The shapes of a request body (SPEC §6): the Messages API's and Gemini's
//! `contents`, and how each counts text as tokens.

use super::*;

/// The shape of a request body and its blocks (SPEC §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// The Messages API: `tool_result` blocks, `cache_edits`, the server's view.
    Anthropic,
    /// Gemini `contents`: `functionResponse` parts and top-level media parts.
    Gemini,
}

impl Dialect {
    /// What a (non-result) content block is.
    pub fn block(self, block: &serde_json::Value) -> Block<'_> {
        match self {
            Dialect::Anthropic => anthropic::block(block),
            Dialect::Gemini => gemini::block(block),
        }
    }

    /// Whether a content block is a tool result as the loaders count them.
    pub fn is_tool_result(self, block: &serde_json::Value) -> bool {
        match self {
            Dialect::Anthropic => anthropic::is_tool_result(block),
            Dialect::Gemini => gemini::is_tool_result(block),
        }
    }

    /// Clears a tool-result block in place: `placeholder` (the harness's,
    /// `Preset::placeholder`) in its place.
    pub fn clear_block(self, block: &mut serde_json::Value, placeholder: &str) {
        match self {
            Dialect::Anthropic => anthropic::clear_block(block, placeholder),
            Dialect::Gemini => gemini::clear_block(block, placeholder),
        }
    }

    /// A message body holding one text (the content of a record that could not
    /// be read back).
    pub fn text_body(self, text: String) -> serde_json::Value {
        match self {
            Dialect::Anthropic => anthropic::text_body(text),
            Dialect::Gemini => gemini::text_body(text),
        }
    }

    /// Whether a string content is sent as a text block (the Messages API turns
    /// `"content": "…"` into `[{"type": "text", "text": "…"}]`).
    pub fn string_is_text_block(self) -> bool {
        self == Dialect::Anthropic
    }

    /// Whether results can be deleted from the server's cache (`cache_edits`).
    pub fn has_cache_edits(self) -> bool {
        self == Dialect::Anthropic
    }

    /// Whether the server's own view (server-side edits) exists for the body.
    pub fn has_server_view(self) -> bool {
        self == Dialect::Anthropic
    }

    /// Whether top-level media parts are counted and cleared apart from results.
    pub fn has_media_parts(self) -> bool {
        self == Dialect::Gemini
    }
}

/// The placeholder both harnesses write over a cleared tool result.
/// Claude Code 2.1.88 `microCompact.ts` and Qwen Code `microcompact.ts`.
pub(crate) const CLEARED: &str = "[Old tool result content cleared]";

/// How a harness estimates the tokens of a result's text (SPEC §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextTokens {
    /// `Math.round(len / 4)` per text block (Claude Code `roughTokenCountEstimation`).
    RoundQuarter,
    /// `Math.ceil(len / 4)` (Qwen Code).
    CeilQuarter,
}

impl TextTokens {
    pub fn of(self, utf16_len: u64) -> u64 {
        match self {
            TextTokens::RoundQuarter => (utf16_len + 2) / 4,
            TextTokens::CeilQuarter => utf16_len.div_ceil(4),
        }
    }
}

/// The shape of a request body (SPEC §6): Messages API or Gemini `contents`.
#[derive(Debug, Clone, Copy)]
pub struct WireShape {
    /// The body's key for its message list.
    pub messages: &'static str,
    /// A message's key for its blocks / parts.
    pub content: &'static str,
    pub user_role: &'static str,
    pub assistant_role: &'static str,
}
