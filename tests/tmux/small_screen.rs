//! At 80×24: the demo's captions, a long session's marks, compare rows, a Gemini CLI session.

use super::*;

/// The rows of the demo's caption box: from its top border to its bottom one.
fn caption_rows(screen: &[String]) -> Option<std::ops::RangeInclusive<usize>> {
    let top = screen
        .iter()
        .position(|l| l.starts_with("┌ mcscope demo"))?;
    let bottom = top + screen[top..].iter().position(|l| l.starts_with('└'))?;
    Some(top..=bottom)
}

/// `mcscope demo` at 80×24, stage by stage: the caption whole (its key
/// sentence and its navigation hint inside the box), the region it talks about
/// on screen outside the box, and the stages in request order.
#[test]
fn at_80x24_each_demo_caption_is_whole_and_its_region_stays_in_view() {
    let Some(t) = Tmux::start("demo80", 80, 24) else {
        return;
    };
    t.type_line("mcscope demo");
    // (stage, request, the caption's key sentence, what the region shows).
    let stages: [(usize, &str, &str, &str); 5] = [
        (1, "4/6", "rank 1 is the oldest", "toolu_C  Bash"),
        (
            2,
            "5/6",
            "At request 5 four results are active",
            "toolu_B  Grep",
        ),
        // Stage 3 talks about the diff's left side: the local request still
        // holds toolu_D's result (the words issue: it was covered).
        (
            3,
            "5/6",
            "still pending at request 5",
            "\"tool_use_id\": \"toolu_D",
        ),
        (
            4,
            "6/6",
            "a cache_edits block deletes toolu_A",
            "\"type\": \"cache_edits\"",
        ),
        (
            5,
            "6/6",
            "broke nothing that was still warm",
            "0 warm breaks (0 re-written)",
        ),
    ];
    for (stage, request, sentence, region) in stages {
        if stage > 1 {
            t.key("Right");
        }
        let hint = format!("→ next  ← back  Esc leave the demo   ({stage}/5)");
        // The key sentence may be broken over two caption lines: look for its
        // words in the box's text.
        let s = t.wait(&format!("stage {stage}'s caption and its region"), |s| {
            // The header's first row (the caption may cover the list's title).
            s[0].contains(&format!("request {request}"))
                && caption_rows(s).is_some_and(|r| {
                    let text: Vec<String> = s[r.clone()]
                        .iter()
                        .map(|l| l.trim_matches(|c| c == '│' || c == ' ').to_string())
                        .collect();
                    text.join(" ").contains(sentence) && text.iter().any(|l| l == &hint)
                })
                && has(s, region)
        });
        let boxed = caption_rows(&s).unwrap();
        let at = s.iter().position(|l| l.contains(region)).unwrap();
        assert!(
            !boxed.contains(&at),
            "stage {stage}: the caption covers {region:?}:\n{}",
            s.join("\n")
        );
        // The box is the screen's width: no caption line runs off it.
        assert!(
            s[boxed]
                .iter()
                .all(|l| l.ends_with('│') || l.ends_with('┐') || l.ends_with('┘')),
            "stage {stage}:\n{}",
            s.join("\n")
        );
        if stage == 5 {
            // The words follow the footer: the verdict, the expired cache.
            assert!(
                s.iter()
                    .any(|l| l.starts_with("✕ cache prefix broken at message 2")),
                "{}",
                s.join("\n")
            );
            assert!(has(&s, "expected (drop 23,070): ttl"), "{}", s.join("\n"));
        }
    }
    t.key("q");
    t.assert_shell_back();
}

/// A long session (more requests than columns) at 80×24: the highlighted mark
/// of the request shown is in its column ⌊(k−1)·W/N⌋ after the 9-column label,
/// the header keeps every value and its mark, the footer cuts no word.
#[test]
fn at_80x24_a_long_session_s_marks_header_and_footer_hold() {
    let dir = tempfile::tempdir().unwrap();
    let path = long_session(dir.path());
    let Some(t) = Tmux::start("long80", 80, 24) else {
        return;
    };
    t.type_line(&format!("mcscope {} --policy idle --at 41", path.display()));
    t.wait_header("41/251");
    // 251 requests on 80 - 10 = 70 columns: request 41 in column 40·70/251 = 11,
    // where its observed break (after the 70-minute gap) is `T`: the cache
    // expired (SPEC §16.S, a break's mark is its cause's glyph).
    let s = t.wait("the marks line", |s| {
        marks_line(s).is_some_and(|l| l.contains('T'))
    });
    let marks = marks_line(&s).unwrap();
    assert_eq!(
        marks.chars().skip(9).position(|c| c == 'T'),
        Some(11),
        "{marks:?}"
    );
    let head = header(&s).unwrap().join(" ");
    for value in ["rewrite", "protect off", "trigger", "claude-jsonl (claude)"] {
        assert!(head.contains(value), "{value}: {head}");
    }
    // The observed break's explanation, whole, on the footer's lines: ttl alone,
    // since idle is a what-if on this version (SPEC §15.10: a plan the build
    // could not run explains nothing that happened).
    let words: Vec<&str> = s.iter().flat_map(|l| l.split_whitespace()).collect();
    assert!(
        words.contains(&"ttl") && !words.contains(&"plan_rewrite") && has(&s, "what-if"),
        "{}",
        s.join("\n")
    );
    t.key("q");
    t.assert_shell_back();
}

/// 250 responses (251 requests): a steady cache, 70-minute gaps before
/// requests 41, 121 and 201 (idle fires there and the expired cache is an
/// observed break), microcompact records before requests 60 and 61.
fn long_session(dir: &Path) -> PathBuf {
    let t0 = 1_780_000_000_000i64;
    let iso = |min: f64| {
        chrono::DateTime::from_timestamp_millis(t0 + (min * 60_000.0) as i64)
            .unwrap()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    };
    let mut lines: Vec<serde_json::Value> = Vec::new();
    let mut rec = |kind: &str, min: f64, extra: serde_json::Value| {
        let n = lines.len() + 1;
        let parent = lines.last().map(|l| l["uuid"].clone());
        let mut r = serde_json::json!({"parentUuid": parent, "isSidechain": false, "type": kind,
            "uuid": format!("u-{n}"), "timestamp": iso(min), "sessionId": "s",
            "version": "2.1.17", "cwd": "/r"});
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        lines.push(r);
    };
    let (mut min, mut read) = (0.0, 0u64);
    for i in 1..=250u64 {
        let gap = [41, 121, 201].contains(&i);
        min += if gap { 70.0 } else { 1.0 };
        if i == 1 || gap {
            rec(
                "user",
                min,
                serde_json::json!({"message": {"role": "user", "content": "go on"}}),
            );
        }
        if [60, 61].contains(&i) {
            rec(
                "system",
                min,
                serde_json::json!({"subtype": "microcompact_boundary",
                "content": "Context microcompacted", "microcompactMetadata": {"trigger": "auto",
                "preTokens": 0, "tokensSaved": 500, "compactedToolIds": [format!("c{}", i - 2)],
                "clearedAttachmentUUIDs": []}}),
            );
        }
        rec(
            "assistant",
            min + 0.1,
            serde_json::json!({"message": {"id": format!("m{i}"),
            "type": "message", "role": "assistant", "model": "claude-opus-4-5",
            "content": [{"type": "tool_use", "id": format!("c{i}"), "name": "Bash",
                "input": {"command": "ls"}}],
            "usage": {"input_tokens": 5, "cache_creation_input_tokens": 1000,
                "cache_read_input_tokens": read, "output_tokens": 50,
                "cache_creation": {"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 0}}}}),
        );
        rec(
            "user",
            min + 0.2,
            serde_json::json!({"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("c{i}"), "content": "x".repeat(4000)}]}}),
        );
        read = if [40, 120, 200].contains(&i) {
            0
        } else {
            read + 1000
        };
    }
    let p = dir.join("long.jsonl");
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&p, text.join("\n") + "\n").unwrap();
    p
}

/// The compare panel at 80×24 (short form): the parameter that varies leads
/// the setting, so no two rows on screen look alike.
#[test]
fn at_80x24_the_compare_panel_s_rows_differ() {
    let Some(t) = Tmux::start("compare80", 80, 24) else {
        return;
    };
    t.type_line(&format!("mcscope {DEMO}"));
    t.wait_header("6/6");
    t.key("c");
    let s = t.wait("the panel's rows", |s| {
        has(s, "k=keep g=gap") && has(s, "recommended: row")
    });
    let start = s.iter().position(|l| l.contains("SETTING")).unwrap();
    let rows: Vec<String> = s[start + 1..]
        .iter()
        .take_while(|l| !l.contains("recommended: row"))
        .map(|l| {
            let a = l.find('│').unwrap() + '│'.len_utf8();
            let b = l.rfind('│').unwrap();
            l[a..b].split_once(' ').unwrap().1.trim().to_string()
        })
        .collect();
    assert!(rows.len() >= 10, "{}", s.join("\n"));
    let distinct: std::collections::HashSet<&String> = rows.iter().collect();
    assert_eq!(distinct.len(), rows.len(), "{}", s.join("\n"));
    // The baseline first, named in words (SPEC §9a; cut at a space for the
    // WHO column), then the settings.
    assert!(rows[0].starts_with("recorded: what"), "{}", s.join("\n"));
    assert!(rows[1].starts_with("g5m k1 idle"), "{}", s.join("\n"));
    t.key("Escape");
    // Apart from the next key: an Esc read together with a key that follows is
    // that key with Alt, and `q` would be lost.
    t.wait("the panel to close", |s| !has(s, "recommended: row"));
    t.key("q");
    t.assert_shell_back();
}

/// The compare panel at 80×24 on claude-size, whose only rows that save are
/// internal builds' plans (the words issue: the column that says who can set
/// a row was dropped at 80 columns): each row ends with who can set it, the
/// top two `internal`; the lines under the table end with a whole word.
#[test]
fn at_80x24_the_compare_panel_says_who_can_set_each_row() {
    let Some(t) = Tmux::start("compare80who", 80, 24) else {
        return;
    };
    t.type_line("mcscope sample-sessions/claude-size.jsonl");
    t.wait_header("10/10");
    t.key("c");
    let s = t.wait("the panel's rows", |s| {
        has(s, "WHO: who sets it") && has(s, "recommended: none")
    });
    let all = s.join("\n");
    // Inside the panel's borders (one cell in from each edge).
    let inside = |l: &String| -> String { l.chars().skip(2).take(76).collect() };
    let start = s.iter().position(|l| l.contains("SETTING")).unwrap();
    assert!(inside(&s[start]).trim_end().ends_with("WHO"), "{all}");
    let who: Vec<String> = s[start + 1..]
        .iter()
        .take_while(|l| !l.contains("recommended: "))
        .map(|l| inside(l).split_whitespace().last().unwrap().to_string())
        .collect();
    assert!(who.len() >= 10, "{all}");
    assert_eq!(who[..4], ["-", "internal", "internal", "remote"], "{all}");
    // The lines under the table: whole, or cut after a whole word with "…";
    // the keys in short, whole.
    let under: Vec<String> = s[start + 1 + who.len()..]
        .iter()
        .take(3)
        .map(|l| inside(l).trim_end().to_string())
        .collect();
    assert!(under[0].ends_with("no setting you can use saves…"), "{all}");
    assert!(
        under[1].ends_with("the transcript's records prove, not a…"),
        "{all}"
    );
    assert_eq!(
        under[2], "↑/↓ select  Enter apply  S sort  A reverse  C chart  Esc close",
        "{all}"
    );
    // Row 1 selected: who can set it, in words.
    t.key("Down");
    t.wait_text("row 1: internal: only in the harness's internal builds");
    t.key("Escape");
    t.wait("the panel to close", |s| !has(s, "recommended: none"));
    t.key("q");
    t.assert_shell_back();
}

/// A Gemini CLI session in the real binary, at 80x24 and wide: the header
/// names its format and mask's own parameters, `p` steps auto → mask →
/// recorded, and the request that masked shows the masked outputs cleared.
#[test]
fn a_gemini_session_at_80x24_and_wide() {
    for (w, h) in [(80, 24), (160, 45)] {
        let Some(t) = Tmux::start(&format!("gemini{w}"), w, h) else {
            return;
        };
        t.type_line("mcscope sample-sessions/gemini-build-masked.jsonl --at 4");
        let s = t.wait_header("4/5");
        let head = header(&s).unwrap_or(&[]).join("\n");
        assert!(head.contains("gemini-jsonl (gemini)"), "{head}");
        assert!(head.contains("protect 50,000 tok"), "{head}");
        assert!(head.contains("prunable ≥ 30,000"), "{head}");
        assert!(has(&s, "✗ cleared"), "{}", s.join("\n"));
        t.key("p");
        t.wait_text("plan mask*");
        t.key("p");
        t.wait_text("plan recorded*");
        t.key("q");
        t.assert_shell_back();
    }
}

/// A Cline task folder in the real binary, at 80x24 and wide (SPEC §17.K,
/// §18.2): the folder is the session, the header names its format and the
/// plan's own parameters, the request where the rule fired shows both reads
/// replaced by the notice, `:window` sets the window (nothing fires at
/// 200,000), and `p` steps auto → cline → recorded.
#[test]
fn a_cline_task_at_80x24_and_wide() {
    for (w, h) in [(80, 24), (160, 45)] {
        let Some(t) = Tmux::start(&format!("cline{w}"), w, h) else {
            return;
        };
        t.type_line("mcscope sample-sessions/cline-task --at 5");
        let s = t.wait_header("5/6");
        let head = header(&s).unwrap_or(&[]).join("\n");
        assert!(head.contains("cline-task (cline)"), "{head}");
        assert!(head.contains("window by model"), "{head}");
        assert!(head.contains("dedupe on"), "{head}");
        let screen = s.join("\n");
        assert_eq!(screen.matches("✗ cleared").count(), 2, "{screen}");
        assert!(has(&s, "cline-2-0") && has(&s, "cline-6-0"), "{screen}");
        // `:window` is --context-window through the keymap: at 200,000 the
        // limit is 160,000 and nothing fires here.
        t.key(":");
        t.wait_text(":▏");
        t.type_line("window 200000");
        let s = t.wait_text("window 200,000*");
        assert!(has(&s, "no plan fired"), "{}", s.join("\n"));
        assert!(!has(&s, "✗ cleared"), "{}", s.join("\n"));
        t.key("p");
        t.wait_text("plan cline*");
        t.key("p");
        t.wait_text("plan recorded*");
        t.key("q");
        t.assert_shell_back();
    }
}
