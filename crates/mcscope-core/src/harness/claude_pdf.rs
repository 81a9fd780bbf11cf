//! Claude Code's PDF reads and `earlierMessages` (SPEC §17.C.U2–U4, §18.17):
//! what a `message_pdf_reads` attachment row and a compact summary's
//! `earlierMessages` hold, read from a transcript line, and which of the
//! rules a version has. The loader makes each page-text read and each kept
//! call a `tool_use` / `tool_result` pair of the wire (they count in the
//! server's tool uses whatever the version); `claude_idle_server` reads the
//! same records for S2 / S3.

use super::claude_version as version;
use serde_json::Value;

/// The attachment type of a PDF that came with the user's message (2.1.337
/// bundle, grep `h=Bt({type:"message_pdf_reads",reads:T,`).
pub const PDF_READS: &str = "message_pdf_reads";
/// The tool a page-text read is sent as (`sentName:Ae`, `Ae="Read"`).
pub const READ: &str = "Read";
/// A page-text read's call id: `toolu_pdfread_<row uuid without dashes>`,
/// then `-<i>` for the i-th read after the first (grep
/// ``function fnn(e,o=0){return`toolu_pdfread_${e.replaceAll("-","")}${o===0?"":`-${o}`}`}``).
pub const ID_PREFIX: &str = "toolu_pdfread_";
/// `candidates[].source` of a call kept in a compact summary (SPEC §17.C.U4).
pub const EARLIER_MESSAGES: &str = "earlier_messages";

/// What the second half of a read's `result` pair is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadKind {
    /// `{"type": "page_texts", "file_uuid": …}`: the text is in memory only.
    PageTexts,
    /// `{"type": "document", "source": {…base64…}}`.
    Document,
    /// Anything else (a `text`-only result, an odd shape): never a page text.
    Other,
}

/// One entry of a row's `reads`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfRead {
    pub path: Option<String>,
    pub kind: ReadKind,
    /// The `text` notice of its `result` (`PDF file read: …`).
    pub notice: Option<String>,
}

/// A `message_pdf_reads` row: its `uuid` (the call ids' stem) and reads. A
/// row with `"reads": []` (a read taken back or left behind) counts as no row
/// (`Hhe` is `(Tce(e)?.length??0)>0`) but still supersedes an earlier one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PdfRow {
    pub uuid: String,
    pub reads: Vec<PdfRead>,
}

impl PdfRow {
    /// The row of an `attachment` object, when it is one (`uuid`: the record's).
    pub fn of_attachment(a: &Value, uuid: Option<&str>) -> Option<PdfRow> {
        if a.get("type").and_then(Value::as_str) != Some(PDF_READS) {
            return None;
        }
        let reads = match a.get("reads") {
            Some(Value::Array(reads)) => reads.iter().map(read_of).collect(),
            _ => Vec::new(),
        };
        Some(PdfRow {
            uuid: uuid.unwrap_or_default().to_string(),
            reads,
        })
    }

    /// The row of a transcript record (`{"type": "attachment", …}`).
    pub fn of_record(v: &Value) -> Option<PdfRow> {
        if v.get("type").and_then(Value::as_str) != Some("attachment") {
            return None;
        }
        PdfRow::of_attachment(v.get("attachment")?, v.get("uuid").and_then(Value::as_str))
    }

    /// Whether it holds a read (otherwise it counts as no row).
    pub fn has_reads(&self) -> bool {
        !self.reads.is_empty()
    }

    /// Its page-text reads with their place among the row's reads.
    pub fn page_texts(&self) -> impl Iterator<Item = (usize, &PdfRead)> {
        self.reads
            .iter()
            .enumerate()
            .filter(|(_, r)| r.kind == ReadKind::PageTexts)
    }

    /// The call id of read `i` (SPEC §18.17(e)).
    pub fn call_id(&self, i: usize) -> String {
        call_id(&self.uuid, i)
    }

    /// Whether the row keeps `Read` clearable under `rule` (U2b): 2.1.333
    /// one read, a page text; 2.1.334+ every read a page text (`LUa`:
    /// `t.every((r)=>r.type==="page_texts")`).
    pub fn qualifies(&self, rule: PdfRule) -> bool {
        let page = |r: &PdfRead| r.kind == ReadKind::PageTexts;
        match rule {
            PdfRule::OneRead => self.reads.len() == 1 && self.reads.iter().all(page),
            PdfRule::AllPageTexts => self.has_reads() && self.reads.iter().all(page),
            PdfRule::None | PdfRule::AnyRowExcludes => false,
        }
    }
}

/// A page-text read's call id (SPEC §17.C.U3, §18.17(e)).
pub fn call_id(uuid: &str, i: usize) -> String {
    let stem = uuid.replace('-', "");
    if i == 0 {
        format!("{ID_PREFIX}{stem}")
    } else {
        format!("{ID_PREFIX}{stem}-{i}")
    }
}

fn read_of(r: &Value) -> PdfRead {
    let result = r.get("result").and_then(Value::as_array);
    let part = |i: usize| result.and_then(|a| a.get(i));
    let kind = match part(1).and_then(|p| p.get("type")).and_then(Value::as_str) {
        Some("page_texts") => ReadKind::PageTexts,
        Some("document") => ReadKind::Document,
        _ => ReadKind::Other,
    };
    let notice = part(0)
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .and_then(|p| p.get("text"))
        .and_then(Value::as_str)
        .map(str::to_string);
    PdfRead {
        path: r.get("path").and_then(Value::as_str).map(str::to_string),
        kind,
        notice,
    }
}

/// Which PDF-read rule a version has (SPEC §17.C.U1–U3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PdfRule {
    /// Before 2.1.310: no rule (U2a's first version is unknown; 13.A U-1).
    None,
    /// 2.1.310–2.1.332, U2a: any row with a read excludes `Read`.
    AnyRowExcludes,
    /// 2.1.333, U2b: a row of exactly one page-text read qualifies.
    OneRead,
    /// 2.1.334+ (and an unknown version, read as the newest), U2b: a row
    /// whose reads are all page texts qualifies.
    AllPageTexts,
}

impl PdfRule {
    pub fn of(v: Option<&str>) -> PdfRule {
        match v.map(version::parse) {
            // Unknown: the newest rules, as `compactable` reads it.
            None | Some(None) => PdfRule::AllPageTexts,
            Some(Some(x)) if x < (2, 1, 310) => PdfRule::None,
            Some(Some(x)) if x <= (2, 1, 332) => PdfRule::AnyRowExcludes,
            Some(Some((2, 1, 333))) => PdfRule::OneRead,
            Some(Some(_)) => PdfRule::AllPageTexts,
        }
    }

    /// 2.1.333 and later: U2b, the page-text path and `earlierMessages` (U4).
    pub fn from_333(self) -> bool {
        matches!(self, PdfRule::OneRead | PdfRule::AllPageTexts)
    }
}

/// A `call` entry of a compact summary's `earlierMessages` (SPEC §17.C.U4):
/// a `tool_use` `{id, name, input}` and its `tool_result` `{content: text}`.
#[derive(Debug, Clone, PartialEq)]
pub struct EarlierCall {
    pub id: String,
    pub name: String,
    pub input: Value,
    pub text: String,
}

/// The valid `call` entries of a record's `earlierMessages`, in order: only
/// on an `isCompactSummary: true` record, and only entries that pass the
/// bundle's filter (2.1.337, grep
/// `e.isCompactSummary===!0&&Array.isArray(e.earlierMessages)?e.earlierMessages.filter(`):
/// an object whose `text` is a non-blank string and, for a call, whose
/// `input` is an object and whose `id` and `name` match the tool-name
/// charset (`Wos`, read as `^[a-zA-Z0-9_-]{1,128}$`).
pub fn earlier_calls(summary: bool, earlier: Option<&Value>) -> Vec<EarlierCall> {
    let Some(Value::Array(entries)) = earlier.filter(|_| summary) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|e| {
            let s = |k: &str| e.get(k).and_then(Value::as_str);
            let text = s("text").filter(|t| !t.trim().is_empty())?;
            let input = e.get("input").filter(|i| i.is_object())?;
            let (id, name) = (s("id")?, s("name")?);
            (s("kind") == Some("call") && charset(id) && charset(name)).then(|| EarlierCall {
                id: id.to_string(),
                name: name.to_string(),
                input: input.clone(),
                text: text.to_string(),
            })
        })
        .collect()
}

/// `^[a-zA-Z0-9_-]{1,128}$`: the tool-name charset (SPEC §13.S3's `Fge`).
pub fn charset(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether an assistant record is a real reply (SPEC §17.C.U2 "Superseded
/// rows"): not virtual, a model other than `<synthetic>`, and a block that
/// is neither thinking nor empty text.
pub fn real_reply(v: &Value) -> bool {
    let msg = v.get("message");
    let model = msg.and_then(|m| m.get("model")).and_then(Value::as_str);
    if v.get("isVirtual").and_then(Value::as_bool) == Some(true)
        || model == Some(crate::session::SYNTHETIC_MODEL)
    {
        return false;
    }
    match msg.and_then(|m| m.get("content")) {
        Some(Value::String(t)) => !t.trim().is_empty(),
        Some(Value::Array(blocks)) => {
            blocks
                .iter()
                .any(|b| match b.get("type").and_then(Value::as_str) {
                    Some("thinking" | "redacted_thinking") => false,
                    Some("text") => b
                        .get("text")
                        .and_then(Value::as_str)
                        .is_some_and(|t| !t.trim().is_empty()),
                    _ => true,
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    /// SPEC §18.17(e): the first read has no suffix, the second `-1`.
    #[test]
    fn u3_call_ids_drop_the_dashes_and_number_from_the_second_read() {
        assert_eq!(
            call_id("aaaaaaaa-0000-4000-8000-000000000001", 0),
            "toolu_pdfread_aaaaaaaa000040008000000000000001"
        );
        assert_eq!(
            call_id("aaaaaaaa-0000-4000-8000-000000000001", 1),
            "toolu_pdfread_aaaaaaaa000040008000000000000001-1"
        );
    }

    #[test]
    fn u1_the_rule_by_version() {
        assert_eq!(PdfRule::of(Some("2.1.309")), PdfRule::None);
        assert_eq!(PdfRule::of(Some("2.1.310")), PdfRule::AnyRowExcludes);
        assert_eq!(PdfRule::of(Some("2.1.332")), PdfRule::AnyRowExcludes);
        assert_eq!(PdfRule::of(Some("2.1.333")), PdfRule::OneRead);
        assert_eq!(PdfRule::of(Some("2.1.334")), PdfRule::AllPageTexts);
        assert_eq!(PdfRule::of(Some("2.1.337")), PdfRule::AllPageTexts);
        assert_eq!(PdfRule::of(None), PdfRule::AllPageTexts);
    }

    /// SPEC §17.C.U2b, §18.17(b): 2.1.333 takes one page-text read, 2.1.334+
    /// any number; a `document` (or text) read never qualifies.
    #[test]
    fn u2b_which_rows_qualify() {
        let read = |kind: &str| json!({"path": "/w/a.pdf", "pages": 1, "result": [{"type": "text", "text": "PDF file read"}, {"type": kind}]});
        let row = |reads: Vec<Value>| {
            PdfRow::of_attachment(
                &json!({"type": "message_pdf_reads", "reads": reads}),
                Some("u-1"),
            )
            .unwrap()
        };
        let one = row(vec![read("page_texts")]);
        let two = row(vec![read("page_texts"), read("page_texts")]);
        let mixed = row(vec![read("page_texts"), read("document")]);
        assert!(one.qualifies(PdfRule::OneRead) && one.qualifies(PdfRule::AllPageTexts));
        assert!(!two.qualifies(PdfRule::OneRead) && two.qualifies(PdfRule::AllPageTexts));
        assert!(!mixed.qualifies(PdfRule::AllPageTexts));
        assert!(!row(vec![]).has_reads());
        assert_eq!(one.reads[0].notice.as_deref(), Some("PDF file read"));
    }

    /// Odd shapes are read without failing: a `reads` that is no list is no
    /// read (no row); an entry of another shape is a read that is no page
    /// text (it never qualifies, so it excludes `Read` from 2.1.333).
    #[test]
    fn u2_odd_shapes_are_reads_that_never_qualify() {
        let row = |reads: Value| {
            PdfRow::of_attachment(&json!({"type": "message_pdf_reads", "reads": reads}), None)
                .unwrap()
        };
        assert!(!row(json!("x")).has_reads());
        let odd = row(json!([1, {"result": 5}, {"path": 3, "result": [{"type": "text"}]}]));
        assert_eq!(odd.reads.len(), 3);
        assert!(
            odd.reads
                .iter()
                .all(|r| r.kind == ReadKind::Other && r.path.is_none())
        );
        assert!(!odd.qualifies(PdfRule::AllPageTexts));
        assert_eq!(odd.call_id(2), "toolu_pdfread_-2");
        assert!(PdfRow::of_attachment(&json!({"type": "tool_results_cut"}), None).is_none());
        assert!(earlier_calls(true, Some(&json!("x"))).is_empty());
    }

    /// SPEC §17.C.U4: only valid `call` entries of a compact summary.
    #[test]
    fn u4_earlier_calls_keep_valid_calls_only() {
        let e = json!([
            {"kind": "user", "text": "fix the parser"},
            {"kind": "call", "id": "toolu_01A", "name": "Read", "input": {"file_path": "/w/p.rs"}, "text": "fn main() {}"},
            {"kind": "call", "id": "toolu_01B", "name": "Bash", "input": {"command": "x"}, "text": "   "},
            {"kind": "call", "id": "bad id", "name": "Bash", "input": {}, "text": "ok"},
            {"kind": "call", "id": "toolu_01C", "name": "Bash", "input": [], "text": "ok"},
        ]);
        let calls = earlier_calls(true, Some(&e));
        assert_eq!(calls.len(), 1);
        assert_eq!(
            (calls[0].id.as_str(), calls[0].name.as_str()),
            ("toolu_01A", "Read")
        );
        assert!(earlier_calls(false, Some(&e)).is_empty());
    }
}
