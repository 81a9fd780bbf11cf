//! Gemini CLI (SPEC §14, §15.12–13): its row of facts, its tool-output masking
//! as the harness computes it (the token estimate, the preview and the masked
//! snippet), and who can set it. Upstream (google-gemini/gemini-cli 0.61.0):
//! `packages/core/src/context/toolOutputMaskingService.ts`,
//! `packages/core/src/utils/tokenCalculation.ts`, `utils/paths.ts`,
//! `services/chatRecordingService.ts`.

use super::caveat::{Rule, Template, when};
use super::*;
use crate::vocab::NoRun;
use serde_json::Value;

/// `DEFAULT_TOOL_PROTECTION_THRESHOLD = 50000` (toolOutputMaskingService.ts).
pub const MASK_PROTECT_TOKENS: u64 = 50_000;
/// `DEFAULT_MIN_PRUNABLE_TOKENS_THRESHOLD = 30000`.
pub const MASK_MIN_PRUNABLE_TOKENS: u64 = 30_000;
/// `MASKING_INDICATOR_TAG`: a response whose pretty JSON holds `<tool_output_masked`
/// is already masked and never counted again.
pub const MASKED_TAG: &str = "<tool_output_masked";

/// Gemini CLI: every tool's output is masked but the four `EXEMPT_TOOLS`
/// (toolOutputMaskingService.ts: `activate_skill`, `ask_user`,
/// `enter_plan_mode`, `exit_plan_mode`).
pub(crate) static GEMINI: Preset = Preset {
    harness: HarnessId::Gemini,
    name: "gemini",
    title: "Gemini CLI",
    words: Words {
        records: "gemini_mask",
        rewrite: "Gemini CLI masked old tool outputs (recorded in the file), which breaks the prefix",
        error_kept: None,
        folders: "Gemini CLI's chats under tmp/ of $GEMINI_CLI_HOME/.gemini or ~/.gemini",
    },
    server_preset: false,
    formats: &[Format::GeminiJsonl, Format::GeminiJson],
    // The Gemini `contents` dialect: Qwen Code is a fork of Gemini CLI.
    dialect: Dialect::Gemini,
    // The scan walks the history's contents and parts in order: responses
    // keep their own place.
    rank_by: RankBy::Responses,
    dedup_paths: true,
    gap_from: GapFrom::LastReply,
    // Only `$rewindTo` rewinds (chatRecordingService.ts).
    unmarked_forks: false,
    cache_writes: false,
    levers: Levers::NONE,
    offers: Offers {
        recorded_kinds: &[RecordedKind {
            kind: PlanKind::Mask,
            record: "no output was masked in the file",
            off: "the masking's remote flags or settings",
        }],
        grid_kinds: &[PlanKind::Mask],
        api_grid: false,
        // SPEC §15.3: gemini `auto → mask → recorded`.
        kinds: &[PlanKind::Auto, PlanKind::Mask, PlanKind::Recorded],
        // The harness rewrites its own history; it sends no edits.
        deliveries: &[Delivery::Rewrite],
        caveats: &CAVEATS,
    },
    tools: Tools {
        compactable: &[],
        every_tool: true,
        exempt: &[
            "activate_skill",
            "ask_user",
            "enter_plan_mode",
            "exit_plan_mode",
        ],
        read_tool: "read_file",
        // tools/read-file.ts, write-file.ts, edit.ts (`replace`): `file_path`.
        file_path_tools: &["read_file", "write_file", "replace"],
        shell_tools: &["run_shell_command"],
        aliases: &[],
        bridge_tool: None,
        // Masking takes `response: {error}` parts too (reference §2.2).
        errors_clearable: true,
        vouchers: Vouchers::AnyStaying,
        memory_search_tool: None,
    },
    // tokenCalculation.ts: `IMAGE_TOKEN_ESTIMATE = 3000`.
    media_tokens: 3000,
    text_tokens: TextTokens::CeilQuarter,
    wire: WireShape {
        messages: "contents",
        content: "parts",
        user_role: "user",
        assistant_role: "model",
    },
    home: Home {
        // utils/paths.ts: `process.env["GEMINI_CLI_HOME"]` names the home that
        // holds `.gemini`.
        base_env: "GEMINI_CLI_HOME",
        base_dir: ".gemini",
        user_memory: "memory",
        project_dir: ".gemini",
        project_by_git_root: false,
        local_memory_env: None,
        list_env: false,
        home_bases: &[".gemini"],
        env_is_home: true,
        // `<home>/.gemini/tmp/<project>/chats/session-*.jsonl` (reference §1.1).
        sessions: "tmp",
    },
    defaults: Defaults {
        keep_recent: 5,
        gap_threshold_minutes: 60.0,
        size_threshold: -1,
        low_watermark: true,
        trigger_threshold: 10,
        protect: false,
        clear_errors: true,
    },
    placeholder: CLEARED,
    beta_header: None,
};

/// Gemini CLI's answers.
pub(super) struct GeminiCli;

impl Harness for GeminiCli {
    fn facts(&self) -> &'static Preset {
        &GEMINI
    }

    /// SPEC §15.12: `auto` runs `mask` at every request (always on from 0.37;
    /// a file with no version runs it with a caveat, `caveats.rs`).
    fn auto_kind(&self, _policy: &Policy, _req: &Request, _gap: Option<f64>) -> Option<PlanKind> {
        Some(PlanKind::Mask)
    }

    fn auto_kinds(&self) -> &'static [PlanKind] {
        &[PlanKind::Mask]
    }

    fn auto_words(&self) -> String {
        "gemini mask at every request".into()
    }

    fn no_plan(&self, _req: &Request) -> NoRun {
        NoRun::Unsaid
    }
}

impl ForUsers for GeminiCli {
    /// SPEC §15.13: `mask` is `remote_flag` (its thresholds are remote flags
    /// 45758817–9 since 0.41; the settings are ignored), knob null.
    fn availability(&self, policy: &Policy, _s: &Session) -> Availability {
        match policy.kind {
            PlanKind::Mask | PlanKind::Auto => Availability::RemoteFlag,
            _ => Availability::WhatIf,
        }
    }
}

/// UTF-16 code units of a string (JavaScript's `length`).
fn units(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// `JSON.stringify(v)`'s length in UTF-16 units: serde's compact form escapes
/// as JavaScript does (`\"`, `\\`, `\n`…, `\u00XX` for other controls).
/// Counted as it is written, never held: an output may be hundreds of MB.
fn compact_len(v: &Value) -> usize {
    crate::utf16::of_json(v) as usize
}

/// `estimateTokenCountSync(parts, depth)` (tokenCalculation.ts).
fn parts_tokens(parts: &[Value], depth: u32) -> f64 {
    parts_total(parts, depth).floor()
}

/// [`parts_tokens`] before its last floor: a sum of quarters and whole
/// numbers, exact in an f64 (every count is far below 2^50).
fn parts_total(parts: &[Value], depth: u32) -> f64 {
    if depth > 3 {
        return 0.0;
    }
    let mut total = 0.0;
    for part in parts {
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            let n = units(text);
            total += if n > 100_000 {
                n as f64 / 4.0
            } else {
                text.encode_utf16()
                    .map(|u| if u <= 127 { 0.25 } else { 1.5 })
                    .sum()
            };
        } else if let Some(fr) = part.get("functionResponse").filter(|f| !f.is_null()) {
            total += response_tokens_raw(fr, depth);
        } else {
            let mime = ["inlineData", "fileData"]
                .iter()
                .find_map(|k| part.get(k)?.get("mimeType")?.as_str());
            total += match mime {
                Some(m) if m.starts_with("image/") => 3000.0,
                Some(m) if m.starts_with("application/pdf") => 25_800.0,
                _ => compact_len(part) as f64 / 4.0,
            };
        }
    }
    total
}

fn response_tokens_raw(fr: &Value, depth: u32) -> f64 {
    let name = fr.get("name").and_then(Value::as_str).map_or(0, units);
    let mut total = name as f64 / 4.0;
    match fr.get("response") {
        Some(Value::String(s)) => total += units(s) as f64 / 4.0,
        Some(Value::Null) | None => {}
        Some(v) => total += compact_len(v) as f64 / 4.0,
    }
    if let Some(nested) = fr.get("parts").and_then(Value::as_array)
        && !nested.is_empty()
    {
        total += parts_tokens(nested, depth + 1);
    }
    total
}

/// The harness's own tokens of one `functionResponse` part
/// (`estimateTokenCountSync([part])`): ⌊(name + compact JSON of `response` +
/// nested parts) / 4⌋ (reference §2.3).
pub fn part_tokens(part: &Value) -> u64 {
    parts_tokens(std::slice::from_ref(part), 0) as u64
}

/// The tokens Gemini CLI counts for a part masked with any snippet, from one
/// look at the part: `masked_part(part, S)` counts `base` (its count with an
/// empty snippet, unfloored) and a quarter of `S`'s escaped length where the
/// snippet lands in what is counted, floored (`parts_tokens`: a masked
/// `functionResponse` object's response is `{output: S}`, counted as its
/// compact JSON; JSON escapes each character alone). The masking facts are
/// made while loading, where the part is at hand, and the snippet's path
/// only once the session's folder is known.
#[derive(Debug, Clone, Copy)]
pub struct MaskedTokens {
    base: f64,
    grows: bool,
}

impl MaskedTokens {
    pub fn of(part: &Value) -> MaskedTokens {
        // As `parts_total` reads the part: a text part counts its text alone.
        let text = part.get("text").and_then(Value::as_str).is_some();
        let grows = !text && part.get("functionResponse").is_some_and(Value::is_object);
        let base = parts_total(std::slice::from_ref(&masked_part(part, "")), 0);
        MaskedTokens { base, grows }
    }

    /// `part_tokens(&masked_part(part, S))`, given `escaped_units(S)`.
    pub fn with(self, escaped: u64) -> u64 {
        let add = if self.grows {
            escaped as f64 / 4.0
        } else {
            0.0
        };
        (self.base + add).floor() as u64
    }
}

/// The length in UTF-16 units of `s` as a JSON string's content (its
/// escapes counted, its quotes not).
pub fn escaped_units(s: &str) -> u64 {
    crate::utf16::of_json(s).saturating_sub(2)
}

/// `preview(tool, fr, content)` of `content = output_content(fr)`, None where
/// that is None: a shell output's preview reads the response; any other
/// tool's reads the pretty JSON, written through [`PrettyPreview`] and never
/// held whole (an output may be hundreds of MB).
pub fn output_preview(tool: &str, fr: &Value) -> Option<String> {
    let response = fr.get("response").filter(|v| truthy(v))?;
    if tool == "run_shell_command" {
        return Some(preview(tool, fr, ""));
    }
    let mut w = PrettyPreview::default();
    // Writing to it cannot fail, nor can serializing a Value.
    let _ = serde_json::to_writer_pretty(&mut w, response);
    Some(w.preview())
}

/// What [`preview`] keeps of a text written to it: its length in UTF-16
/// units, its first bytes and its last (each enough for more than 500 units,
/// at most four bytes a unit), so the preview is made without the text.
#[derive(Default)]
struct PrettyPreview {
    units: u64,
    head: Vec<u8>,
    /// The last `KEPT` bytes, as a ring from `tail_at`.
    tail: Vec<u8>,
    tail_at: usize,
}

impl PrettyPreview {
    const KEPT: usize = 2048 + 8;

    fn preview(&self) -> String {
        let whole_prefix = |b: &[u8]| match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(e) => String::from_utf8_lossy(&b[..e.valid_up_to()]).into_owned(),
        };
        let head = whole_prefix(&self.head);
        if self.units <= 500 {
            // Then the text is at most 2,000 bytes: the head holds it whole.
            return head;
        }
        let mut tail = self.tail[self.tail_at..].to_vec();
        tail.extend_from_slice(&self.tail[..self.tail_at]);
        // From the first whole character.
        let start = tail
            .iter()
            .position(|&b| b & 0xC0 != 0x80)
            .unwrap_or(tail.len());
        let tail = String::from_utf8_lossy(&tail[start..]).into_owned();
        format!(
            "{}\n... [TRUNCATED] ...\n{}",
            head_units(&head, 250),
            tail_units(&tail, 250)
        )
    }
}

impl std::io::Write for PrettyPreview {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.units += crate::utf16::of_bytes(buf);
        let room = Self::KEPT.saturating_sub(self.head.len());
        self.head.extend_from_slice(&buf[..room.min(buf.len())]);
        for &b in buf.iter().skip(buf.len().saturating_sub(Self::KEPT)) {
            if self.tail.len() < Self::KEPT {
                self.tail.push(b);
            } else {
                self.tail[self.tail_at] = b;
                self.tail_at = (self.tail_at + 1) % Self::KEPT;
            }
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `getToolOutputContent`: the pretty JSON of `response` (2 spaces), None
/// when it is null or absent (such a part is never a candidate).
pub fn output_content(fr: &Value) -> Option<String> {
    // `if (!response) return null`: a falsy response is no output.
    match fr.get("response") {
        Some(v) if truthy(v) => serde_json::to_string_pretty(v).ok(),
        _ => None,
    }
}

/// Whether a `functionResponse` is masked already (`isAlreadyMasked`: the
/// tag anywhere in the pretty JSON of a truthy `response`). JSON escapes no
/// character of the tag, so its strings and keys are searched as they are,
/// without printing the response.
pub fn is_masked(fr: &Value) -> bool {
    fn holds(v: &Value) -> bool {
        match v {
            Value::String(s) => s.contains(MASKED_TAG),
            Value::Array(a) => a.iter().any(holds),
            Value::Object(o) => o.iter().any(|(k, v)| k.contains(MASKED_TAG) || holds(v)),
            _ => false,
        }
    }
    fr.get("response").is_some_and(|r| truthy(r) && holds(r))
}

/// Whether a `functionResponse` is a masking record: its `response.output`
/// is the text Gemini CLI writes in place of a masked output, which starts
/// with `<tool_output_masked>` (reference §1.4). A tool output that merely
/// mentions the tag is content; [`is_masked`] (Gemini CLI's own
/// `isAlreadyMasked`) still makes the masking skip it.
pub fn is_masked_record(fr: &Value) -> bool {
    fr.get("response")
        .and_then(|r| r.get("output"))
        .and_then(Value::as_str)
        .is_some_and(|o| o.starts_with("<tool_output_masked>"))
}

/// `sanitizeFilenamePart`: every character but `[a-zA-Z0-9_-]` becomes `_`
/// (per UTF-16 unit, as the regex replaces them).
pub fn sanitize_filename_part(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let keep = c.is_ascii_alphanumeric() || c == '_' || c == '-';
            std::iter::repeat_n(
                if keep { c } else { '_' },
                if keep { 1 } else { c.len_utf16() },
            )
        })
        .collect()
}

/// The first `n` UTF-16 units of `s` (JavaScript `slice(0, n)`), ending at a
/// whole character: a Rust string cannot hold half a surrogate pair.
fn head_units(s: &str, n: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        used += c.len_utf16();
        if used > n {
            return &s[..i];
        }
    }
    s
}

/// The last `n` UTF-16 units of `s` (`slice(-n)`), from a whole character.
fn tail_units(s: &str, n: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices().rev() {
        used += c.len_utf16();
        if used > n {
            return &s[i + c.len_utf8()..];
        }
    }
    s
}

/// `formatSimplePreview`: up to 20 lines whole, else the first and last 10.
fn simple_preview(content: &str) -> String {
    let lines: Vec<&str> = content.split('\n').collect();
    if lines.len() <= 20 {
        return content.to_string();
    }
    format!(
        "{}\n\n... [{} lines omitted] ...\n\n{}",
        lines[..10].join("\n"),
        lines.len() - 20,
        lines[lines.len() - 10..].join("\n")
    )
}

/// JavaScript's `String.prototype.trim` (white space and line terminators,
/// the byte-order mark included).
fn js_trim(s: &str) -> &str {
    // JavaScript's white space is Unicode's but for U+0085, plus U+FEFF.
    s.trim_matches(|c: char| (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}')
}

/// The shell tool's section names (`sectionRegex`).
const SECTIONS: [&str; 6] = [
    "Output",
    "Error",
    "Exit Code",
    "Signal",
    "Background PIDs",
    "Process Group PGID",
];

/// `content.split(/^(Output|Error|…): /m)`: the text before the first
/// section, then (name, text) pairs. `^` matches at the start and after a
/// JavaScript line terminator.
fn split_sections(content: &str) -> (String, Vec<(&'static str, String)>) {
    let mut cuts: Vec<(usize, usize, &'static str)> = Vec::new();
    let starts = std::iter::once(0).chain(
        content
            .char_indices()
            .filter(|(_, c)| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'))
            .map(|(i, c)| i + c.len_utf8()),
    );
    for at in starts {
        let rest = &content[at..];
        if let Some(name) = SECTIONS
            .iter()
            .find(|n| rest.strip_prefix(**n).is_some_and(|r| r.starts_with(": ")))
        {
            cuts.push((at, at + name.len() + 2, name));
        }
    }
    let Some(first) = cuts.first() else {
        return (content.to_string(), Vec::new());
    };
    let pre = content[..first.0].to_string();
    let mut out = Vec::new();
    for (i, &(_, body, name)) in cuts.iter().enumerate() {
        let end = cuts.get(i + 1).map_or(content.len(), |c| c.0);
        out.push((name, content[body..end].to_string()));
    }
    (pre, out)
}

/// A JavaScript value in a template string (`${v}`).
fn js_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(_) => "[object Object]".into(),
        Value::Array(a) => a.iter().map(js_text).collect::<Vec<_>>().join(","),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

/// JavaScript truthiness of a JSON value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// `formatShellPreview(response)` (toolOutputMaskingService.ts).
fn shell_preview(response: &Value) -> String {
    let pick = ["output", "stdout"]
        .iter()
        .filter_map(|k| response.get(*k))
        .find(|v| truthy(v));
    let content = match pick {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v @ (Value::Object(_) | Value::Array(_))) => return v.to_string(),
        Some(v) => return js_text(v),
    };
    let (pre, sections) = split_sections(&content);
    // `parts.length < 3`: no section, the line rule alone (and nothing added).
    if sections.is_empty() {
        return simple_preview(&content);
    }
    let mut preview = {
        let mut parts = Vec::new();
        if !js_trim(&pre).is_empty() {
            parts.push(simple_preview(js_trim(&pre)));
        }
        for (name, body) in &sections {
            let body = js_trim(body);
            if *name == "Output" {
                parts.push(format!("Output: {}", simple_preview(body)));
            } else {
                parts.push(format!("{name}: {body}"));
            }
        }
        parts.join("\n")
    };
    let exit = response
        .get("exitCode")
        .filter(|v| !v.is_null())
        .or_else(|| response.get("exit_code"));
    if let Some(code) = exit
        && !code.is_null()
        && code.as_f64() != Some(0.0)
        && !content.contains(&format!("Exit Code: {}", js_text(code)))
    {
        preview.push_str(&format!("\n[Exit Code: {}]", js_text(code)));
    }
    if let Some(error) = response.get("error").filter(|e| truthy(e))
        && !content.contains(&format!("Error: {}", js_text(error)))
    {
        preview.push_str(&format!("\n[Error: {}]", js_text(error)));
    }
    preview
}

/// The preview a masked response shows: the shell tool's sections, else
/// the head and tail 250 units of the pretty JSON.
pub fn preview(tool: &str, fr: &Value, content: &str) -> String {
    if tool == "run_shell_command" {
        let empty = Value::Object(Default::default());
        let response = fr.get("response").filter(|r| truthy(r)).unwrap_or(&empty);
        return shell_preview(response);
    }
    if units(content) > 500 {
        format!(
            "{}\n... [TRUNCATED] ...\n{}",
            head_units(content, 250),
            tail_units(content, 250)
        )
    } else {
        content.to_string()
    }
}

/// Where Gemini CLI saves a masked original:
/// `<project temp>/tool-outputs/session-<id>/<tool>_<call id>_<random>.txt`.
/// The random part (`Math.random().toString(36).substring(7)`) is the
/// recorded one when the file shows it, else `rand` stands in.
pub fn saved_path(
    project_tmp: &str,
    session_id: Option<&str>,
    tool: &str,
    call_id: &str,
    rand: &str,
) -> String {
    let mut dir = format!("{}/tool-outputs", project_tmp.trim_end_matches('/'));
    if let Some(id) = session_id.filter(|s| !s.is_empty()) {
        dir.push_str(&format!("/session-{}", sanitize_filename_part(id)));
    }
    format!(
        "{dir}/{}_{}_{rand}.txt",
        sanitize_filename_part(tool).to_lowercase(),
        sanitize_filename_part(call_id).to_lowercase()
    )
}

/// What stands in for the random part of a saved original's name when the
/// file does not show it (`Math.random().toString(36).substring(7)`, about
/// five characters).
pub(crate) const STAND_IN: &str = "xxxxx";

/// The snippet Gemini CLI writes over a response it masks (the result `id`'s
/// `functionResponse` `fr`, whose output is `content`): its preview and where
/// it saved the original.
pub fn snippet_of(
    project_tmp: &str,
    session_id: Option<&str>,
    id: &str,
    fr: &Value,
) -> Option<String> {
    let tool = tool_of(fr);
    let path = saved_path(project_tmp, session_id, tool, id, STAND_IN);
    Some(masked_snippet(&output_preview(tool, fr)?, &path))
}

/// The tool a saved original is named by: the response's `name`, else
/// `unknown_tool`.
pub fn tool_of(fr: &Value) -> &str {
    tool_named(fr.get("name").and_then(Value::as_str))
}

/// The tool a saved original is named by, of a response named `name`.
pub fn tool_named(name: Option<&str>) -> &str {
    name.filter(|t| !t.is_empty()).unwrap_or("unknown_tool")
}

/// The `parts` element `i` of a message body, or Null.
pub fn part_of(body: &Value, i: usize) -> Value {
    body.get("parts")
        .and_then(|p| p.get(i))
        .cloned()
        .unwrap_or(Value::Null)
}

/// The text Gemini CLI writes over result `r` when it masks it: the file's
/// own where it recorded one, else the snippet it would write of `part` (the
/// result's part as the file holds it); None for a result it never masks
/// (`Masking::tokens` says so).
pub fn masked_text<'a>(
    s: &'a crate::session::Session,
    r: usize,
    part: &Value,
) -> Option<std::borrow::Cow<'a, str>> {
    if s.masking.tokens.get(r).is_none_or(|&t| t == u64::MAX) {
        return None;
    }
    if let Some(text) = s.masking.recorded.get(&r) {
        return Some(text.as_str().into());
    }
    let fr = part.get("functionResponse")?;
    snippet_of(
        &s.masking.project_tmp,
        s.masking.session_id.as_deref(),
        &s.results[r].id,
        fr,
    )
    .map(Into::into)
}

/// `formatMaskedSnippet`: what the model reads in place of a masked output.
pub fn masked_snippet(preview: &str, path: &str) -> String {
    format!(
        "<tool_output_masked>\n{preview}\n\nOutput too large. Full output available at: {path}\n</tool_output_masked>"
    )
}

/// A masked copy of a `functionResponse` part: `response` is `{output:
/// snippet}`, every other key (id, name, nested media) kept.
pub fn masked_part(part: &Value, snippet: &str) -> Value {
    let masked = || serde_json::json!({ "output": snippet });
    let Some(fr) = part.get("functionResponse").and_then(Value::as_object) else {
        return part.clone();
    };
    // The copy leaves the response out (an output may be hundreds of MB) and
    // puts the snippet in its place, or last where there was none.
    let mut new_fr: serde_json::Map<String, Value> = fr
        .iter()
        .map(|(k, v)| match k.as_str() {
            "response" => (k.clone(), masked()),
            _ => (k.clone(), v.clone()),
        })
        .collect();
    if !fr.contains_key("response") {
        new_fr.insert("response".into(), masked());
    }
    let mut out = serde_json::Map::new();
    for (k, v) in part.as_object().into_iter().flatten() {
        let v = match k.as_str() {
            "functionResponse" => Value::Object(std::mem::take(&mut new_fr)),
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    Value::Object(out)
}

pub(crate) const GEMINI_VERSION_UNKNOWN: Template = Template {
    id: "gemini_version_unknown",
    short: "version unknown: masking may have been off",
    // Reference §3: masking came in 0.29 (off by default), on by default from
    // 0.30 and always on from 0.37; the .json layout is 0.38 and older.
    text: "This legacy .json session (Gemini CLI 0.38 or older) records no version and no masking: masking \
did not exist before 0.29, was off by default in 0.29 and could be switched off up to 0.36, so the simulated \
mask may never have run.",
};

pub(crate) const GEMINI_REMOTE_FLAGS: Template = Template {
    id: "gemini_remote_flags",
    short: "thresholds may be remote flags",
    // Reference §2.7: flags 45758817-9 override the thresholds for Code Assist
    // users; since 0.41 the settings are ignored.
    text: "Gemini CLI takes the masking thresholds from remote flags (45758817-9) for Google-login users, or \
GEMINI_EXP; the file does not record them. The defaults (50,000 protected, 30,000 prunable, latest turn \
protected) are what API-key users get.",
};

/// Gemini CLI's caveats (SPEC §14, §15.12).
pub(super) static CAVEATS: [Rule; 2] = [
    Rule::by(GEMINI_VERSION_UNKNOWN, |a, t| {
        when(a.at.iter().any(|x| x.unversioned), t)
    }),
    Rule::on_kind(GEMINI_REMOTE_FLAGS, PlanKind::Mask),
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Issue 41 item 5: the masking facts are taken while loading, before
    /// the snippet's path is known: the tokens of a part masked with any
    /// snippet are its count with an empty one and a quarter of the
    /// snippet's escaped length, floored, exactly as counted on the masked
    /// part; and a snippet's escaped length is its preview's and its path's.
    #[test]
    fn masked_tokens_are_the_masked_part_s_for_any_snippet() {
        let huge = "y".repeat(120_000);
        let parts = [
            json!({"functionResponse": {"id": "a", "name": "read_file", "response": {"output": "big"}}}),
            json!({"functionResponse": {"id": "a", "name": "run_shell_command", "response": {"output": "x", "exitCode": 1}}}),
            json!({"functionResponse": {"id": "b", "name": "é😀", "response": "a string"}}),
            json!({"functionResponse": {"id": "b", "name": "n"}}),
            json!({"functionResponse": {"id": "c", "name": "read_many_files", "response": {"output": "o"},
                   "parts": [{"inlineData": {"mimeType": "image/png", "data": "AA"}}, {"text": "nested é"},
                             {"functionResponse": {"name": "deep", "response": {"k": [1, 2]},
                              "parts": [{"text": "deeper"}]}}]}}),
            json!({"text": "a text part", "functionResponse": {"id": "d", "name": "t", "response": {"output": "o"}}}),
            json!({"text": huge, "functionResponse": {"name": "t"}}),
            json!({"functionResponse": "not an object"}),
            json!({"functionResponse": null, "fileData": {"mimeType": "application/pdf"}}),
            json!({"other": [1, "two"]}),
        ];
        let snippets = [
            String::new(),
            "plain".to_string(),
            masked_snippet(
                "line 1\n\"quoted\" \\ é 😀 \u{1}",
                "/tmp/p/tool-outputs/session-s/t_a_xxxxx.txt",
            ),
            "z".repeat(100_001),
        ];
        for part in &parts {
            let m = MaskedTokens::of(part);
            for snippet in &snippets {
                assert_eq!(
                    m.with(escaped_units(snippet)),
                    part_tokens(&masked_part(part, snippet)),
                    "{part} with a snippet of {} bytes",
                    snippet.len()
                );
            }
        }
        let preview = "head é\n\t\"q\" 😀";
        let path = "/h/é p/tool-outputs/x\\y.txt";
        assert_eq!(
            escaped_units(&masked_snippet(preview, path)),
            escaped_units(&masked_snippet(preview, "")) + escaped_units(path)
        );
        assert_eq!(
            escaped_units("a\n😀"),
            5,
            "a, \\n (two), a surrogate pair (two)"
        );
    }

    /// Issue 41 item 5: the preview of an output is made as its pretty JSON
    /// is written, never held whole, and is the preview of that JSON: at
    /// every length around the 500-unit line and the 250-unit cuts, with
    /// characters of one to four bytes and escapes at the cuts.
    #[test]
    fn an_output_s_preview_is_made_without_holding_its_text() {
        let mut outputs: Vec<Value> = Vec::new();
        for fill in ["a", "é", "漢", "😀", "\n", "\u{1}"] {
            for n in [
                0, 1, 200, 240, 245, 246, 247, 248, 249, 250, 251, 252, 480, 490, 491, 492, 495,
                496, 497, 498, 499, 500, 501, 502, 510, 600, 1000, 3000,
            ] {
                let text: String = (0..n)
                    .map(|i| if i % 7 == 3 { "x" } else { fill })
                    .collect();
                outputs.push(json!({"output": text}));
                outputs.push(json!({"output": format!("😀{text}😀")}));
            }
        }
        outputs.push(json!({"output": "o", "error": {"message": "é".repeat(400)}, "n": [1, 2.5]}));
        outputs.push(json!(["a list", "😀".repeat(300)]));
        outputs.push(json!("a string response"));
        outputs.push(json!(null));
        outputs.push(json!(0));
        outputs.push(json!(""));
        for response in outputs {
            for tool in ["read_file", "run_shell_command", "unknown_tool"] {
                let fr = json!({"id": "a", "name": tool, "response": response});
                let want = output_content(&fr).map(|c| preview(tool, &fr, &c));
                assert_eq!(output_preview(tool, &fr), want, "{tool} {response}");
            }
        }
    }

    /// Issue 41 item 5: the masked copy of a part never copies the response
    /// it replaces (one output may be hundreds of MB), and is the part with
    /// `response` set in place, or appended where there was none, every
    /// other key kept in its order.
    #[test]
    fn a_masked_part_is_the_part_with_its_response_set() {
        let set = |part: &Value, snippet: &str| {
            let mut out = part.clone();
            if let Some(fr) = out
                .get_mut("functionResponse")
                .and_then(Value::as_object_mut)
            {
                fr.insert("response".into(), json!({ "output": snippet }));
            }
            out
        };
        let parts = [
            json!({"functionResponse": {"id": "a", "name": "read_file", "response": {"output": "big"}}}),
            json!({"z": 1, "functionResponse": {"response": {"output": "x"}, "id": "a", "parts": [{"inlineData": {"mimeType": "image/png", "data": "AA"}}]}, "a": [2]}),
            json!({"functionResponse": {"id": "b", "name": "x"}}),
            json!({"functionResponse": "not an object"}),
            json!({"text": "no response"}),
            json!("a string"),
        ];
        for part in &parts {
            let got = masked_part(part, "<tool_output_masked>s</tool_output_masked>");
            let want = set(part, "<tool_output_masked>s</tool_output_masked>");
            assert_eq!(got, want, "{part}");
            assert_eq!(got.to_string(), want.to_string(), "key order: {part}");
        }
    }

    /// Reference §4's generator, in Rust.
    pub(crate) fn f1() -> String {
        (1..=50)
            .map(|i| format!("{:<39}\n", format!("export const opt{i:02} = {};", 100 + i)))
            .collect()
    }

    pub(crate) fn f2() -> String {
        let lines: Vec<String> = (1..=4000)
            .map(|i| {
                let s = format!("[build] step {i:04}/4000 compiled src/mod_{i:04}.ts in 12ms");
                format!("{s:.<59}")
            })
            .collect();
        format!("Output: {}\nProcess Group PGID: 48211", lines.join("\n"))
    }

    fn part(name: &str, id: &str, output: &str) -> Value {
        json!({"functionResponse": {"id": id, "name": name, "response": {"output": output}}})
    }

    #[test]
    fn reference_2_3_tokens_of_the_worked_example() {
        assert_eq!(f1().len(), 2000);
        assert_eq!(f2().len(), 240_033);
        let p1 = part("read_file", "read_file__read_file_1796030106117_0", &f1());
        let p2 = part(
            "run_shell_command",
            "run_shell_command__run_shell_command_1796030109874_0",
            &f2(),
        );
        assert_eq!(compact_len(&p1["functionResponse"]["response"]), 2063);
        assert_eq!(part_tokens(&p1), 518);
        assert_eq!(compact_len(&p2["functionResponse"]["response"]), 244_046);
        assert_eq!(part_tokens(&p2), 61_015);
    }

    #[test]
    fn reference_2_3_nested_media_and_text() {
        // An image nested in the response: 3000, whatever its bytes.
        let p = json!({"functionResponse": {"name": "read_file", "response": {"output": ""},
            "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}});
        // ⌊(9 + 13) / 4 + 3000⌋ = 3005.
        assert_eq!(part_tokens(&p), 3005);
    }

    #[test]
    fn reference_2_4_masked_snippets_of_the_worked_example() {
        let tmp = "/home/dev/.gemini/tmp/proj";
        let sid = Some("6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b");
        let p2 = part(
            "run_shell_command",
            "run_shell_command__run_shell_command_1796030109874_0",
            &f2(),
        );
        let fr = &p2["functionResponse"];
        let content = output_content(fr).unwrap();
        let path = saved_path(
            tmp,
            sid,
            "run_shell_command",
            "run_shell_command__run_shell_command_1796030109874_0",
            "k3x9q",
        );
        assert!(path.ends_with("/tool-outputs/session-6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b/run_shell_command_run_shell_command__run_shell_command_1796030109874_0_k3x9q.txt"));
        let snippet = masked_snippet(&preview("run_shell_command", fr, &content), &path);
        assert_eq!(units(&snippet), 1518);
        assert!(snippet.contains("\n\n... [3980 lines omitted] ...\n\n"));
        assert!(snippet.contains("\nProcess Group PGID: 48211\n\nOutput too large."));
        let masked = masked_part(&p2, &snippet);
        assert_eq!(compact_len(&masked["functionResponse"]["response"]), 1558);
        assert_eq!(part_tokens(&masked), 393);

        let p1 = part("read_file", "read_file__read_file_1796030106117_0", &f1());
        let fr = &p1["functionResponse"];
        let content = output_content(fr).unwrap();
        let path = saved_path(
            tmp,
            sid,
            "read_file",
            "read_file__read_file_1796030106117_0",
            "p0w2d",
        );
        let snippet = masked_snippet(&preview("read_file", fr, &content), &path);
        assert_eq!(units(&snippet), 751);
        assert!(
            snippet
                .starts_with("<tool_output_masked>\n{\n  \"output\": \"export const opt01 = 101;")
        );
        assert!(snippet.contains("\\n\"\n}\n\nOutput too large"));
        let masked = masked_part(&p1, &snippet);
        assert_eq!(compact_len(&masked["functionResponse"]["response"]), 787);
        assert_eq!(part_tokens(&masked), 199);
        assert!(is_masked(&masked["functionResponse"]));
        assert!(!is_masked(&p1["functionResponse"]));
        // The tag in any string of the response counts (`{error: …}` too).
        let e = json!({"name": "x", "response": {"error": "see <tool_output_masked>"}});
        assert!(is_masked(&e));
    }

    #[test]
    fn reference_2_4_shell_preview_sections_and_root_fields() {
        let r = json!({"output": "Output: a\nb\nError: boom\nExit Code: 2", "exitCode": 2});
        assert_eq!(shell_preview(&r), "Output: a\nb\nError: boom\nExit Code: 2");
        // A root exit code the text does not name is added; so is an error.
        let r = json!({"output": "Output: x", "exitCode": 3, "error": "bad"});
        assert_eq!(shell_preview(&r), "Output: x\n[Exit Code: 3]\n[Error: bad]");
        // No section marker: the line rule over the whole text.
        let text: String = (1..=30).map(|i| format!("l{i}\n")).collect();
        let p = shell_preview(&json!({"output": text}));
        assert!(p.starts_with("l1\nl2\n"));
        assert!(p.contains("... [11 lines omitted] ..."));
        // No section marker returns the line rule alone (`parts.length < 3`):
        // an error response of the shell previews as nothing, and a root exit
        // code is not added.
        assert_eq!(shell_preview(&json!({"error": "denied"})), "");
        assert_eq!(
            shell_preview(&json!({"output": "plain", "exitCode": 3})),
            "plain"
        );
    }

    #[test]
    fn reference_1_1_sanitized_file_names() {
        assert_eq!(sanitize_filename_part("a.b/c d"), "a_b_c_d");
        assert_eq!(sanitize_filename_part("ok-_9"), "ok-_9");
    }

    #[test]
    fn gemini_home_is_the_variable_s_dot_gemini() {
        use std::ffi::OsStr;
        use std::path::Path;
        assert_eq!(
            GEMINI
                .home
                .bases_from(Some(OsStr::new("/g")), Some(Path::new("/h"))),
            [PathBuf::from("/g/.gemini")]
        );
        assert_eq!(
            GEMINI.home.bases_from(None, Some(Path::new("/h"))),
            [PathBuf::from("/h/.gemini")]
        );
    }

    #[test]
    fn reference_2_2_exempt_tools_are_never_masked() {
        for t in [
            "activate_skill",
            "ask_user",
            "enter_plan_mode",
            "exit_plan_mode",
        ] {
            assert!(!GEMINI.is_compactable(t), "{t}");
        }
        for t in [
            "read_file",
            "run_shell_command",
            "mcp_tool_x",
            "grep_search",
        ] {
            assert!(GEMINI.is_compactable(t), "{t}");
        }
    }
}
