use super::*;
use serde_json::json;

/// A little transcript, written as JSONL lines and read back with `read_facts`.
#[derive(Default)]
struct T {
    lines: Vec<String>,
    minute: i64,
    n: usize,
}

fn ts(minute: i64) -> String {
    let t = jiff::Timestamp::from_second(1_780_000_000 + minute * 60).unwrap();
    t.to_string()
}

impl T {
    fn at(&mut self, minute: i64) -> &mut Self {
        self.minute = minute;
        self
    }
    fn push(&mut self, v: Value) -> &mut Self {
        self.lines.push(v.to_string());
        self
    }
    fn prompt(&mut self, text: &str) -> &mut Self {
        let m = self.minute;
        self.push(json!({"type": "user", "timestamp": ts(m), "message": {"role": "user", "content": text}}))
    }
    /// An assistant line calling `tool` (id `t<n>`) and its result of `text`.
    fn call(&mut self, tool: &str, text: &str) -> &mut Self {
        self.n += 1;
        let (id, m) = (format!("t{}", self.n), self.minute);
        self.push(
            json!({"type": "assistant", "timestamp": ts(m), "apiBlockIndex": 0,
            "message": {"id": format!("m{}", self.n), "model": "claude", "role": "assistant",
            "content": [{"type": "tool_use", "id": id, "name": tool, "input": {}}]}}),
        );
        self.push(
            json!({"type": "user", "timestamp": ts(m), "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": id, "content": text}]}}),
        )
    }
    fn reply(&mut self, cm: Option<Value>) -> &mut Self {
        self.n += 1;
        let m = self.minute;
        let mut msg = json!({"id": format!("m{}", self.n), "model": "claude", "role": "assistant",
            "content": [{"type": "text", "text": "ok"}]});
        if let Some(cm) = cm {
            msg["context_management"] = cm;
        }
        self.push(
            json!({"type": "assistant", "timestamp": ts(m), "apiBlockIndex": 0, "message": msg}),
        )
    }
    fn facts(&self) -> Vec<RecFact> {
        read_facts(&self.lines.join("\n"), false)
    }
}

fn params(keep: u32) -> Params {
    Params {
        keep,
        min_trigger: keep + MIN_TRIGGER_OVER_KEEP,
        gap_minutes: GAP_MINUTES,
    }
}

/// `n` Reads of 100 chars at minute 0, a reply, then a prompt at `back`.
fn session(n: usize, back: i64) -> T {
    let mut t = T::default();
    t.at(0).prompt("go");
    for _ in 0..n {
        t.call("Read", &"x".repeat(100));
    }
    t.reply(None).at(back).prompt("back again");
    t
}

/// SPEC §13.S1: more than 65 minutes (strictly), after an anchored reply.
#[test]
fn s1_the_return_is_strictly_after_the_gap() {
    let p = params(12);
    let d = decide(&session(30, 65).facts(), Some("2.1.332"), &p, false);
    assert_eq!(
        d.sent,
        Err(NotSent::NoReturn),
        "65 minutes is not more than 65"
    );
    let d = decide(&session(30, 66).facts(), Some("2.1.332"), &p, false);
    let r = d.ret.expect("66 minutes is a return");
    assert_eq!(r.idle_minutes, 66.0);
    // A reply without apiBlockIndex (nor joinedApiReply) opens no return.
    let mut t = session(30, 66);
    let reply = t.lines.len() - 2;
    t.lines[reply] = t.lines[reply].replace("\"apiBlockIndex\":0,", "");
    assert_eq!(
        decide(&t.facts(), Some("2.1.332"), &p, false).sent,
        Err(NotSent::NoReturn)
    );
    // A meta record is not counted: it neither returns nor moves the latest time.
    let mut t = session(30, 40);
    t.push(json!({"type": "user", "isMeta": true, "timestamp": ts(80), "message": {"role": "user", "content": "meta"}}));
    t.at(110).prompt("later");
    let d = decide(&t.facts(), Some("2.1.332"), &p, false);
    assert_eq!(
        d.ret.map(|r| r.idle_minutes),
        Some(70.0),
        "110 - 40, not 110 - 80"
    );
}

/// SPEC §13.S4–S5: N ≥ 30 from 2.1.310 (keep 12, minimum 27), N ≥ 23 before.
#[test]
fn s5_the_trigger_needs_enough_clearable_results() {
    let at = |n: usize, v: &str| {
        let keep = default_keep(Some(v));
        decide(&session(n, 70).facts(), Some(v), &params(keep), false)
    };
    let d = at(29, "2.1.332");
    assert_eq!((d.clearable, d.sent), (29, Err(NotSent::TooFewResults)));
    let d = at(30, "2.1.332");
    assert_eq!(d.sent, Ok(SentBecause::FirstAfterReturn));
    assert_eq!((d.trigger, d.keep), (Some(27), Some(12)));
    let d = at(22, "2.1.300");
    assert_eq!(d.sent, Err(NotSent::TooFewResults));
    let d = at(23, "2.1.300");
    assert_eq!((d.trigger, d.keep), (Some(20), Some(5)));
}

/// SPEC §13.S2 / §13.A8: 64 UTF-16 units before the return, 48 UTF-8 bytes
/// after it (30 `é` are 30 units but 60 bytes).
#[test]
fn s2_s5_sizes_are_units_before_and_bytes_after() {
    let mut t = T::default();
    t.at(0).prompt("go").call("Read", &"y".repeat(63));
    for _ in 0..30 {
        t.call("Read", &"x".repeat(100));
    }
    t.reply(None).at(70).prompt("back");
    let d = decide(&t.facts(), Some("2.1.332"), &params(12), false);
    assert_eq!(d.clearable, 30, "the 63-unit result is not clearable");
    // After the return: 30 é (60 bytes) counts, 40 ascii (40 bytes) does not.
    let mut t = session(30, 70);
    t.n = 100;
    t.call("Read", &"é".repeat(30))
        .call("Read", &"z".repeat(40));
    let d = decide(&t.facts(), Some("2.1.332"), &params(12), false);
    assert_eq!(d.since_return, 1);
    assert_eq!((d.trigger, d.keep), (Some(28), Some(13)));
}

/// SPEC §13.S3: tools not compactable are excluded (when their name is
/// listable); a refused compactable tool is excluded as a whole.
#[test]
fn s3_excluded_tools() {
    let mut t = session(31, 10);
    t.call(
        "TodoWrite",
        "done, with enough text to matter for nothing at all here",
    )
    .call("bad name!", "x");
    t.n = 200;
    t.push(json!({"type": "assistant", "timestamp": ts(10), "apiBlockIndex": 0, "message": {"id": "mb", "model": "claude",
        "content": [{"type": "tool_use", "id": "b1", "name": "Bash", "input": {}}]}}));
    t.push(json!({"type": "user", "timestamp": ts(10), "message": {"role": "user", "content": [{"type": "tool_result",
        "tool_use_id": "b1", "is_error": true, "content": "The user doesn't want to proceed with this tool use. Stop."}]}}));
    t.reply(None).at(90).prompt("back");
    let d = decide(&t.facts(), Some("2.1.332"), &params(12), false);
    assert_eq!(d.exclude_tools, ["Bash", "TodoWrite"]);
    assert_eq!(d.clearable, 31);
    // mcp__container__Read is compactable from 2.1.310 only.
    assert!(compactable("mcp__container__Read", Some("2.1.310")));
    assert!(!compactable("mcp__container__Read", Some("2.1.300")));
}

/// SPEC §13.S6: a later request is sent while the last response shows the
/// server cleared (recorded), else by the simulation's own result at k − 1.
#[test]
fn s6_sending_after_the_first_request() {
    let p = params(12);
    let cleared = |n: u64| json!({"applied_edits": [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": n, "cleared_input_tokens": 100}]});
    let mut t = session(30, 70);
    t.reply(Some(cleared(18)));
    let d = decide(&t.facts(), Some("2.1.332"), &p, false);
    assert_eq!(d.sent, Ok(SentBecause::ServerClearedRecorded));
    // A tool result after that response does not hide it.
    t.push(
        json!({"type": "user", "timestamp": ts(70), "message": {"role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "later", "content": "x"}]}}),
    );
    let d = decide(&t.facts(), Some("2.1.332"), &p, false);
    assert_eq!(d.sent, Ok(SentBecause::ServerClearedRecorded));
    let mut t = session(30, 70);
    t.reply(Some(cleared(0)));
    assert_eq!(
        decide(&t.facts(), Some("2.1.332"), &p, true).sent,
        Err(NotSent::ServerStopped)
    );
    // applied_edits from clear_thinking alone proves nothing: the simulation decides.
    let mut t = session(30, 70);
    t.reply(Some(json!({"applied_edits": []})));
    assert_eq!(
        decide(&t.facts(), Some("2.1.332"), &p, true).sent,
        Ok(SentBecause::ServerClearedSimulated)
    );
    assert_eq!(
        decide(&t.facts(), Some("2.1.332"), &p, false).sent,
        Err(NotSent::ServerStopped)
    );
    // A client cut (a tool_results_cut attachment without cause) stops it; one
    // withdrawn by its tool does not.
    let mut t = session(30, 70);
    t.push(
        json!({"type": "attachment", "timestamp": ts(70), "attachment": {"type": "tool_results_cut",
        "callIds": ["t1"], "standIn": "cut", "roughTokens": 10, "cause": "withdrawn_by_tool"}}),
    );
    assert_eq!(
        decide(&t.facts(), Some("2.1.332"), &p, false).sent,
        Ok(SentBecause::FirstAfterReturn)
    );
    t.push(
        json!({"type": "attachment", "timestamp": ts(70), "attachment": {"type": "tool_results_cut",
        "callIds": ["t1"], "standIn": "cut", "roughTokens": 10}}),
    );
    assert_eq!(
        decide(&t.facts(), Some("2.1.332"), &p, false).sent,
        Err(NotSent::CutByClient)
    );
}

/// SPEC §13.S4: keep by version.
#[test]
fn s4_keep_by_version() {
    assert_eq!(default_keep(Some("2.1.285")), 5);
    assert_eq!(default_keep(Some("2.1.309")), 5);
    assert_eq!(default_keep(Some("2.1.310")), 12);
    assert_eq!(default_keep(None), 12);
}

/// The flag's help says the rule's first version (the version table's
/// idle-server row) and its count (`BELOW_COUNT`), as the rule has them.
#[test]
fn the_min_trigger_help_says_the_rule_s_version_and_count() {
    use crate::harness::claude_version::VersionRow;
    let first = VersionRow::IdleServerKeep5
        .name()
        .split('-')
        .next()
        .unwrap_or_default();
    assert!(
        MIN_TRIGGER_ABOUT.contains(&format!("Claude Code {first}+ sends")),
        "{MIN_TRIGGER_ABOUT}"
    );
    assert!(
        MIN_TRIGGER_ABOUT.ends_with(&format!("results less {BELOW_COUNT} reach it")),
        "{MIN_TRIGGER_ABOUT}"
    );
}

/// SPEC §13.S1 in words (the words issue): a pause past the gap after a reply
/// with neither `apiBlockIndex` nor `joinedApiReply` is no return, and the
/// decision keeps its minutes so the note names that reason, not "no prompt
/// after more than the idle gap".
#[test]
fn s1_an_unanchored_pause_is_no_return_and_says_why() {
    let mut t = T::default();
    t.at(0).prompt("go");
    for _ in 0..30 {
        t.call("Read", &"x".repeat(100));
    }
    // The reply before the pause carries no apiBlockIndex.
    t.push(json!({"type": "assistant", "timestamp": ts(0),
        "message": {"id": "mz", "model": "claude", "role": "assistant",
        "content": [{"type": "text", "text": "done"}]}}));
    t.at(80).prompt("back again");
    let d = decide(&t.facts(), Some("2.1.332"), &params(12), false);
    assert_eq!((d.ret.clone(), d.sent), (None, Err(NotSent::NoReturn)));
    assert_eq!(d.unanchored, Some(80.0));
    // Anchored, the same pause is a return, and nothing is said of an anchor.
    let d = decide(
        &session(30, 80).facts(),
        Some("2.1.332"),
        &params(12),
        false,
    );
    assert!(d.ret.is_some() && d.unanchored.is_none());
}

impl T {
    /// A `message_pdf_reads` row whose reads have these result kinds
    /// (`page_texts`, `document`), SPEC §17.C.U2's shape.
    fn row(&mut self, uuid: &str, kinds: &[&str]) -> &mut Self {
        let m = self.minute;
        let reads: Vec<Value> = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| {
                json!({"path": format!("/w/{i}.pdf"), "pages": 1, "result": [
                    {"type": "text", "text": "PDF file read: /w/x.pdf (9 KB).\n"}, {"type": k}]})
            })
            .collect();
        self.push(
            json!({"type": "attachment", "uuid": uuid, "timestamp": ts(m),
            "attachment": {"type": "message_pdf_reads", "reads": reads}}),
        )
    }
    fn d(&self, v: &str) -> Decision {
        decide(&self.facts(), Some(v), &params(12), false)
    }
}

/// `n` Reads, a prompt bringing a row of `kinds` at minute 1, a reply, and
/// the return at minute 71.
fn with_row(n: usize, kinds: &[&str]) -> T {
    let mut t = T::default();
    t.at(0).prompt("go");
    for _ in 0..n {
        t.call("Read", &"x".repeat(100));
    }
    t.at(1)
        .prompt("the pdfs")
        .row("aaaaaaaa-0000-4000-8000-000000000001", kinds);
    t.reply(None).at(71).prompt("back again");
    t
}

/// SPEC §17.C.U2a: from 2.1.310 to 2.1.332 a row with a read anywhere in
/// the view, before the return or after it, puts `Read` in
/// `exclude_tools`; a row of no read counts as none.
#[test]
fn u2a_a_pdf_read_row_excludes_read() {
    let t = with_row(30, &["page_texts"]);
    let d = t.d("2.1.332");
    assert_eq!(d.exclude_tools, ["Read"]);
    assert_eq!((d.clearable, d.sent), (0, Err(NotSent::TooFewResults)));
    assert!(d.pdf.excludes_read && !d.pdf.clears_page_texts);
    // After the return too.
    let mut t = session(31, 70);
    t.row("aaaaaaaa-0000-4000-8000-000000000002", &["page_texts"]);
    assert_eq!(t.d("2.1.310").exclude_tools, ["Read"]);
    // `"reads": []` is no row; before 2.1.310 there is no rule.
    let t = with_row(30, &[]);
    assert_eq!(t.d("2.1.332").clearable, 30);
    let t = with_row(30, &["page_texts"]);
    assert_eq!(t.d("2.1.309").clearable, 30);
}

/// SPEC §17.C.U2 "Superseded rows", §18.17(a): a row followed by another
/// with no real reply in between is ignored (a `reads: []` row that takes
/// it back, here); a thinking-only or `<synthetic>` reply is no real reply.
#[test]
fn u2a_a_superseded_row_is_ignored() {
    let mut t = T::default();
    t.at(0).prompt("go");
    for _ in 0..30 {
        t.call("Read", &"x".repeat(100));
    }
    t.at(1).prompt("the pdf").row("r-1", &["page_texts"]);
    t.push(json!({"type": "assistant", "timestamp": ts(1), "message": {"id": "think", "model": "claude",
        "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": " "}]}}));
    t.push(json!({"type": "assistant", "timestamp": ts(1), "message": {"id": "err", "model": "<synthetic>",
        "content": [{"type": "text", "text": "API Error"}]}}));
    t.row("r-2", &[]);
    t.reply(None).at(71).prompt("back again");
    let d = t.d("2.1.332");
    assert!(d.exclude_tools.is_empty(), "{:?}", d.exclude_tools);
    assert_eq!(d.clearable, 30);
    // A real reply between the two rows keeps the first.
    let mut t = with_row(30, &["page_texts"]);
    t.reply(None).row("r-3", &[]);
    t.at(150).prompt("back once more");
    assert_eq!(t.d("2.1.332").exclude_tools, ["Read"]);
}

/// SPEC §17.C.U2b, §18.17(b): from 2.1.333 the rows before the return keep
/// `Read` clearable only when the page-text path is on and every one
/// qualifies: 2.1.333 one page-text read, 2.1.334+ page texts only; a
/// `document` read (or a second read in 2.1.333) excludes `Read` as U2a.
#[test]
fn u2b_read_stays_clearable_only_when_every_row_qualifies() {
    let two = with_row(30, &["page_texts", "page_texts"]);
    let d = two.d("2.1.334");
    assert!(d.exclude_tools.is_empty());
    assert_eq!((d.clearable, d.pdf.clearable), (32, 2));
    assert!(d.pdf.clears_page_texts && d.pdf.page_text_row);
    assert_eq!(two.d("2.1.333").exclude_tools, ["Read"]);
    let one = with_row(30, &["page_texts"]);
    assert_eq!(
        (one.d("2.1.333").clearable, one.d("2.1.333").pdf.clearable),
        (31, 1)
    );
    let mixed = with_row(30, &["page_texts", "document"]);
    let d = mixed.d("2.1.337");
    assert_eq!(
        (d.exclude_tools.clone(), d.clearable),
        (vec!["Read".to_string()], 0)
    );
    assert!(d.pdf.page_text_row && !d.pdf.clears_page_texts);
    // No row before the return: Read is not excluded on account of PDFs.
    assert!(session(30, 70).d("2.1.337").exclude_tools.is_empty());
}

/// SPEC §17.C.U2b: after the return a row excludes `Read` only for marker
/// lines in its page text, assumed absent (13.A U-3): a `document` row
/// there leaves `Read` clearable from 2.1.333 (not in 2.1.332, U2a).
#[test]
fn u2b_a_row_after_the_return_does_not_exclude_read() {
    let mut t = session(30, 70);
    t.row("aaaaaaaa-0000-4000-8000-000000000002", &["document"]);
    let d = t.d("2.1.337");
    assert!(d.exclude_tools.is_empty());
    assert_eq!((d.clearable, d.since_return), (30, 0));
    assert!(!d.pdf.clears_page_texts && !d.pdf.page_text_row);
    assert_eq!(t.d("2.1.332").exclude_tools, ["Read"]);
}

/// SPEC §17.C.U3: each page-text read of a qualifying row before the
/// return is one clearable result whatever its size (no 64-unit floor), and
/// `Read` excluded for another reason takes them out too.
#[test]
fn u3_each_page_text_read_is_one_clearable_result() {
    let t = with_row(28, &["page_texts", "page_texts"]);
    let d = t.d("2.1.337");
    assert_eq!(d.clearable, 30);
    assert_eq!((d.trigger, d.keep), (Some(27), Some(12)));
    assert_eq!(d.sent, Ok(SentBecause::FirstAfterReturn));
    // A refused Read excludes the tool as a whole: no PDF result counts.
    let mut t = with_row(28, &["page_texts", "page_texts"]);
    t.lines.insert(
        1,
        json!({"type": "assistant", "timestamp": ts(0), "apiBlockIndex": 0, "message": {"id": "mr", "model": "claude",
            "content": [{"type": "tool_use", "id": "r0", "name": "Read", "input": {}}]}})
        .to_string(),
    );
    t.lines.insert(
        2,
        json!({"type": "user", "timestamp": ts(0), "message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "r0", "is_error": true, "content": "The user doesn't want to proceed with this tool use."}]}})
        .to_string(),
    );
    let d = t.d("2.1.337");
    assert_eq!((d.clearable, d.pdf.clearable), (0, 0));
    assert!(!d.pdf.clears_page_texts);
    // Under 2.1.333 a page-text path is read too: on by default.
    assert_eq!(
        with_row(30, &["page_texts"]).d("2.1.333").pdf.path_on,
        Some(true)
    );
    assert_eq!(with_row(30, &["page_texts"]).d("2.1.332").pdf.path_on, None);
}

/// SPEC §17.C.U6, §18.17(c): a reply after the return that records
/// `client_cleared_pdf_page_texts: true` fixes the path on for the later
/// requests of the return; one that proves an edit was sent without it
/// fixes it off (then `Read` is excluded as U2a).
#[test]
fn u6_the_recorded_reply_fixes_the_page_text_path() {
    let sent = |pdf: bool| {
        let mut cm = json!({"applied_edits": [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 18,
            "cleared_input_tokens": 100}], "client_sent_trigger_tool_uses": 29, "client_sent_keep_tool_uses": 12});
        if pdf {
            cm["client_cleared_pdf_page_texts"] = json!(true);
        }
        cm
    };
    let mut on = with_row(30, &["page_texts", "page_texts"]);
    on.reply(Some(sent(true)));
    let d = on.d("2.1.337");
    assert_eq!((d.pdf.path_on, d.clearable), (Some(true), 32));
    assert_eq!(d.sent, Ok(SentBecause::ServerClearedRecorded));
    let mut off = with_row(30, &["page_texts", "page_texts"]);
    off.reply(Some(sent(false)));
    let d = off.d("2.1.337");
    assert_eq!((d.pdf.path_on, d.clearable), (Some(false), 0));
    assert_eq!(d.exclude_tools, ["Read"]);
    // A reply that proves no edit (no client_sent_ key, no clearing entry)
    // leaves the default.
    let mut none = with_row(30, &["page_texts", "page_texts"]);
    none.reply(Some(json!({"applied_edits": []})));
    assert_eq!(none.d("2.1.337").pdf.path_on, Some(true));
}

/// SPEC §17.C.U4: from 2.1.333 a compact summary's kept `call` entries are
/// tool uses and results at the summary's place: a compactable one of 64
/// units or more is clearable, a small one is not, another tool's name is
/// excluded; in 2.1.332 they do not exist for the plan.
#[test]
fn u4_earlier_messages_calls_count_from_2_1_333() {
    let mut t = T::default();
    t.push(json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
        "timestamp": ts(0), "message": {"role": "user", "content": "This session is being continued"},
        "earlierMessages": [
            {"kind": "user", "text": "fix the parser"},
            {"kind": "call", "id": "toolu_01A", "name": "Read", "input": {"file_path": "/w/p.rs"}, "text": "x".repeat(3000)},
            {"kind": "call", "id": "toolu_01B", "name": "Bash", "input": {"command": "cargo test"}, "text": "ok"},
            {"kind": "call", "id": "toolu_01C", "name": "TodoWrite", "input": {"todos": []}, "text": "Todos have been modified"},
            {"kind": "reply", "text": "Tests pass."}]}));
    t.at(0).prompt("go");
    for _ in 0..29 {
        t.call("Read", &"x".repeat(100));
    }
    t.reply(None).at(70).prompt("back");
    let d = t.d("2.1.337");
    assert_eq!(d.clearable, 30);
    assert_eq!(d.exclude_tools, ["TodoWrite"]);
    assert_eq!((d.trigger, d.keep), (Some(27), Some(12)));
    let d = t.d("2.1.332");
    assert_eq!(d.clearable, 29);
    assert!(d.exclude_tools.is_empty());
    assert_eq!(d.sent, Err(NotSent::TooFewResults));
}
