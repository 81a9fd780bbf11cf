//! The header and the list: Qwen's send kinds, sub-agent records left out, media entries.

use super::*;

const MEDIA: &str = "tests/fixtures/qwen/media.jsonl";

/// The age list's rows: from below its column titles to the diff's title.
fn list_region(lines: &[String]) -> Vec<String> {
    let start = lines
        .iter()
        .position(|l| l.contains("tool results by age"))
        .unwrap();
    let end = lines
        .iter()
        .position(|l| l.contains("local request (left)"))
        .unwrap();
    lines[start + 2..end]
        .iter()
        .filter(|l| !l.trim().is_empty())
        .cloned()
        .collect()
}

#[test]
fn qwen_send_kinds_and_their_notes_are_in_the_header_within_80_columns() {
    // today.jsonl request 5: a notification two hours after request 4.
    let a = open(
        &sample(TODAY),
        Opts {
            at: Some("5".into()),
            ..Default::default()
        },
    );
    let lines = screen(&a, 80, 24, false);
    let head = header(&lines);
    assert!(
        head[0].contains("request 5/6") && head[0].contains("notification"),
        "{head:?}"
    );
    // "notification: notification or teammate message: Qwen runs no microcompaction
    // here" is 82 chars: wrapped to a second line, nothing cut.
    let joined = head.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains(
            "notification: notification or teammate message: Qwen runs no microcompaction here"
        ),
        "{head:?}"
    );
    // The caveats' line wraps too: its end is on screen.
    assert!(joined.contains("leaves no record"), "{head:?}");
    // send-kinds.jsonl: request 11's unknown subtype, request 7's hook.
    let a = open(
        &sample(KINDS),
        Opts {
            at: Some("11".into()),
            ..Default::default()
        },
    );
    let head = header(&screen(&a, 80, 30, false));
    assert!(head[0].contains("user_query"), "{head:?}");
    let joined = head.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("note: unknown input subtype mystery_kind: treated as a prompt"),
        "{head:?}"
    );
    let a = open(
        &sample(KINDS),
        Opts {
            at: Some("7".into()),
            ..Default::default()
        },
    );
    let head = header(&screen(&a, 80, 30, false));
    assert!(head[0].contains("hook"), "{head:?}");
    let joined = head.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("no input recorded: assumed a hook continuation"),
        "{head:?}"
    );
}

#[test]
fn sub_agent_records_left_out_are_counted_in_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = common::Claude::default();
    c.prompt("look", 0.0).read("t1", "/repo/a.rs").answer("ok");
    let path = c.write(dir.path(), "s.jsonl");
    // Two sub-agent records (isSidechain: true) appended.
    let mut text = std::fs::read_to_string(&path).unwrap();
    for n in 0..2 {
        let mut v: Value = serde_json::from_str(&c.lines[0]).unwrap();
        v["isSidechain"] = json!(true);
        v["uuid"] = json!(format!("side-{n}"));
        text.push_str(&v.to_string());
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    let a = open(&path, Opts::default());
    assert_eq!(a.view().unwrap().setup.session.sidechain_records, 2);
    let head = header(&screen(&a, 120, 40, false)).join(" ");
    assert!(
        head.contains("2 sub-agent records (0 tool calls) left out of the simulation"),
        "{head}"
    );
    // Without any, nothing is said.
    let a = open(&sample(BUDGET), Opts::default());
    assert!(
        !header(&screen(&a, 120, 40, false))
            .join(" ")
            .contains("sub-agent")
    );
}

#[test]
fn qwen_media_entries_are_listed_with_their_own_status_in_message_order() {
    // forced with keep 1: the pasted image (message 0, part 1) and m1's nested
    // screenshot are cleared, the PDF (part 2) and m2's screenshot (the last) kept.
    let opts = Opts::default()
        .with("--policy", "forced")
        .with("--keep-recent", "1");
    let mut a = open(&sample(MEDIA), opts);
    let lines = screen(&a, 120, 40, false);
    assert!(
        has(&lines, "tool results by age (4 + 4 media)"),
        "{}",
        lines.join("\n")
    );
    let list = list_region(&lines);
    let order: Vec<&str> = list
        .iter()
        .map(|l| {
            let l = l.as_str();
            [
                "image/png (message 0, part 1)",
                "application/pdf (message 0, part 2)",
                " r1 ",
                " m1 ",
                "image/jpeg in m1's result",
                " m2 ",
                "image/jpeg in m2's result",
                " r2 ",
            ]
            .into_iter()
            .find(|n| l.contains(n))
            .unwrap_or(l)
        })
        .collect();
    assert_eq!(
        order,
        [
            "image/png (message 0, part 1)",
            "application/pdf (message 0, part 2)",
            " r1 ",
            " m1 ",
            "image/jpeg in m1's result",
            " m2 ",
            "image/jpeg in m2's result",
            " r2 ",
        ],
        "{list:?}"
    );
    // Glyph and word: readable without colour.
    assert!(row(&list, "image/png").contains("✗ media_cleared"));
    assert!(row(&list, "application/pdf").contains("· kept"));
    assert!(row(&list, "in m1's result").contains("✗ media_cleared"));
    assert!(row(&list, "in m2's result").contains("· kept"));
    // ↓ moves between results only: from r1 to m1, skipping no result, landing on none
    // of the media rows.
    a.view_mut().unwrap().select_id("r1");
    a.update(Action::Down);
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("m1"));
    // The cleared filter (s): r1 and the two cleared media entries.
    a.update(Action::CycleFilter);
    let v = a.view().unwrap();
    assert_eq!(v.filter, Filter::Cleared);
    let rows = v.rows();
    assert_eq!(
        rows.iter()
            .filter(|r| matches!(r, ListRow::Media(_)))
            .count(),
        2
    );
    assert_eq!(
        rows.iter()
            .filter(|r| matches!(r, ListRow::Result(_)))
            .count(),
        1
    );
    let lines = screen(&a, 120, 40, false);
    assert!(
        has(&lines, "(1 of 4 + 2 of 4 media, cleared only, Esc clears)"),
        "{}",
        lines.join("\n")
    );
    let list = list_region(&lines);
    assert_eq!(list.len(), 3, "{list:?}");
    assert!(!has(&list, "application/pdf"));
    // The protected filter shows no media entry.
    a.update(Action::CycleFilter);
    assert_eq!(a.view().unwrap().filter, Filter::Protected);
    assert!(
        a.view()
            .unwrap()
            .rows()
            .iter()
            .all(|r| matches!(r, ListRow::Result(_)))
    );
}
