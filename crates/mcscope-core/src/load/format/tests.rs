//! The sniff's order of precedence, as the loaders' table gives it.

use super::*;
use std::path::Path;

fn sniffed(name: &str, head: &str) -> Format {
    sniff(Path::new(name), head.as_bytes()).unwrap()
}

#[test]
fn a_line_is_offered_to_the_loaders_in_table_order() {
    // Qwen's `parts` beside Claude's `content`: Qwen asks first.
    let both = r#"{"type":"user","message":{"parts":[],"content":"x"}}"#;
    assert_eq!(sniffed("s.jsonl", both), Format::QwenJsonl);
    // A `messages` array without `type` is a body, before any record reading.
    let body = r#"{"messages":[],"message":{"content":"x"}}"#;
    assert_eq!(sniffed("s.jsonl", body), Format::MessagesJson);
    // Gemini CLI's header, or a `$set`, before a body.
    let header = r#"{"sessionId":"a","projectHash":"b","messages":[]}"#;
    assert_eq!(sniffed("s.jsonl", header), Format::GeminiJson);
    let header = r#"{"sessionId":"a","projectHash":"b"}"#;
    assert_eq!(sniffed("s.jsonl", header), Format::GeminiJsonl);
    let set = r#"{"$set":{"x":1},"messages":[]}"#;
    assert_eq!(sniffed("s.jsonl", set), Format::GeminiJsonl);
    // The first line a loader claims decides; lines nobody claims pass.
    let later = "{\"type\":\"summary\"}\n{\"message\":{\"parts\":[]}}\n";
    assert_eq!(sniffed("s.jsonl", later), Format::QwenJsonl);
}

#[test]
fn a_head_with_no_object_line_is_read_whole() {
    let legacy = "{\n \"sessionId\": \"a\",\n \"projectHash\": \"b\",\n \"messages\": []\n}\n";
    assert_eq!(sniffed("s.json", legacy), Format::GeminiJson);
    let info = "{\n \"id\": \"ses_1\",\n \"projectID\": \"p\",\n \"time\": {}\n}\n";
    assert_eq!(sniffed("ses_1.json", info), Format::OpencodeJson);
    let body = "{\n \"messages\": []\n}\n";
    assert_eq!(sniffed("b.txt", body), Format::MessagesJson);
    // A `.json` name is a body whatever the head says.
    assert_eq!(sniffed("b.json", "{\n \"x\": 1\n}\n"), Format::MessagesJson);
    assert_eq!(sniffed("b.txt", "{\n \"x\": 1\n}\n"), Format::ClaudeJsonl);
}

#[test]
fn magic_blank_and_not_json() {
    let mut db = crate::load::opencode::db::MAGIC.to_vec();
    db.extend_from_slice(b"\0\0\0");
    assert_eq!(sniff(Path::new("x.db"), &db).unwrap(), Format::OpencodeDb);
    assert_eq!(sniffed("e.jsonl", " \n\n"), Format::ClaudeJsonl);
    assert!(matches!(
        sniff(Path::new("e.txt"), b"hello\n"),
        Err(LoadError::UnknownFormat { .. })
    ));
}

#[test]
fn the_picker_lists_what_the_loaders_list() {
    assert!(listed(Path::new("/p/s.jsonl")));
    assert!(listed(Path::new("/g/chats/session-1.json")));
    assert!(!listed(Path::new("/g/other/session-1.json")));
    assert!(!listed(Path::new("/g/chats/s.json")));
    assert!(!listed(Path::new("/p/s.json")));
    assert!(light_whole(Path::new("/p/s.json")).is_some());
    assert!(light_whole(Path::new("/p/s.jsonl")).is_none());
}

/// The light pass hands a Gemini CLI file's lines to its loader's own
/// counter from the first record that claims it; Claude-shaped records are
/// claimed by none (the shared count takes them).
#[test]
fn the_light_pass_counts_a_gemini_file_with_its_loader_s_own_counter() {
    struct Tally(usize, usize, usize, Vec<String>);
    impl LightTally for Tally {
        fn message(&mut self) {}
        fn response(&mut self) {
            self.0 += 1;
        }
        fn result(&mut self) {
            self.1 += 1;
        }
        fn user(&mut self, results: usize, text: Option<&str>) {
            self.2 += results;
            self.3.extend(text.map(str::to_string));
        }
    }
    let raw = |s: &'static str| Some(crate::load::raw::test_json(s));
    let claude = LightRecord {
        kind: "user",
        ..LightRecord::default()
    };
    assert!(light_counter(&claude).is_none());
    let header = LightRecord {
        project_hash: raw(r#""h""#),
        header_kind: raw(r#""subagent""#),
        ..LightRecord::default()
    };
    let (format, mut own) = light_counter(&header).unwrap();
    assert_eq!(format, Format::GeminiJsonl);
    let mut t = Tally(0, 0, 0, Vec::new());
    own.record(&header, &mut t);
    assert!(own.subagent());
    let user = LightRecord {
        kind: "user",
        id: raw(r#""u1""#),
        content: raw(r#"[{"text":"fix it"}]"#),
        ..LightRecord::default()
    };
    let reply = LightRecord {
        kind: "gemini",
        id: raw(r#""g1""#),
        model: raw(r#""gemini-x""#),
        tool_calls: raw(r#"[{"result":[{"functionResponse":{"id":"c1"}}]}]"#),
        ..LightRecord::default()
    };
    // A response rewritten by a later line (the same id) counts once, and
    // so does its result.
    for r in [&user, &reply, &reply] {
        own.record(r, &mut t);
    }
    assert_eq!((t.0, t.1, t.2), (1, 1, 0));
    assert_eq!(t.3, ["fix it"]);
}
