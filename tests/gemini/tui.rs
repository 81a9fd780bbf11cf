//! The TUI and its picker on Gemini CLI files: the p cycle, v's saved originals, the picker's rows.

use super::*;

/// The TUI on session `path` at request `k` (None: the last), its
/// background work done.
fn app_at(path: &std::path::Path, k: Option<usize>) -> mcscope::tui::app::App {
    use mcscope::cli::{self, Opts};
    let opts = Opts {
        at: k.map(|k| k.to_string()),
        ..Default::default()
    };
    let setup = cli::setup(path, &opts).unwrap();
    let k = cli::request_index(&setup.session, opts.at.as_deref()).unwrap();
    let mut a = mcscope::tui::app::App::session_at(setup, k);
    a.view_mut().unwrap().wait_background();
    a
}

/// One key through the real keymap.
fn press(a: &mut mcscope::tui::app::App, c: char) {
    use ratatui::crossterm::event::{KeyCode, KeyEvent};
    let action =
        mcscope::tui::keymap::action_for(KeyEvent::from(KeyCode::Char(c)), a.in_text_input())
            .unwrap();
    a.update(action);
}

/// SPEC §15.3: the gemini `p` cycle is `auto → mask → recorded`, pressed
/// through the real keymap; at 80×24 the header shows mask's own parameters
/// whole, and the wire holds the harness's masked snippet.
#[test]
fn t15_3_the_p_cycle_and_the_header_at_80x24() {
    let mut a = app_at(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(MASKED),
        Some(4),
    );
    let lines = screen::screen(&a, 80, 24);
    let head = lines[..4].join("\n");
    assert!(head.contains("plan auto → mask (gemini)"), "{head}");
    assert!(head.contains("protect 50,000 tok"), "{head}");
    assert!(head.contains("prunable ≥ 30,000"), "{head}");
    assert!(head.contains("latest turn skipped"), "{head}");
    assert!(!head.contains("keep") && !head.contains("gap ≥"), "{head}");
    assert!(
        a.view()
            .unwrap()
            .wire_json()
            .contains("<tool_output_masked>")
    );
    let mut seen = Vec::new();
    for _ in 0..3 {
        press(&mut a, 'p');
        seen.push(a.view().unwrap().policy().kind.name());
    }
    assert_eq!(seen, ["mask", "recorded", "auto"]);
}

/// The picker's light pass tells a Gemini CLI file apart and counts it as
/// the loader does (reference §1.2–§1.4): requests, results once by id, the
/// first prompt past the session context; a sub-agent header marks it.
#[test]
fn reference_1_2_the_picker_s_row_of_a_gemini_file() {
    use mcscope::scan::{Kind, scan};
    for p in [BUILD, MASKED] {
        let row = scan(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(p));
        assert_eq!(row.harness.name(), "gemini", "{p}");
        assert_eq!((row.requests, row.results), (5, 3), "{p}");
        assert_eq!(row.kind, Kind::Session, "{p}");
        assert!(
            row.prompt
                .as_deref()
                .unwrap()
                .starts_with("Why is npm run build so slow?")
        );
    }
    let mut h = header();
    h["kind"] = json!("subagent");
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join(".gemini/tmp/myproj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let p = chats.join("session-x.jsonl");
    let lines = [
        h,
        user("u1", "2026-11-30T09:00:01.000Z", "task"),
        gemini("g1", "2026-11-30T09:00:02.000Z", "ok"),
    ];
    std::fs::write(
        &p,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let row = scan(&p);
    assert_eq!(row.kind, Kind::SubAgent);
    assert_eq!(row.project, "myproj");
    assert_eq!(row.requests, 1);
}

/// Reference §2.6: `v` shows the original Gemini CLI saved under
/// `tool-outputs/` for an output the file holds only masked, read only inside
/// the session's own `tool-outputs` folder: a snippet naming a path out of it
/// (`..`, a symlink) is never followed.
#[test]
fn reference_2_6_v_shows_the_saved_original_and_nothing_outside() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join(".gemini/tmp/proj");
    let saved = tmp.join("tool-outputs/session-s-1");
    std::fs::create_dir_all(&saved).unwrap();
    std::fs::create_dir_all(tmp.join("chats")).unwrap();
    std::fs::write(
        saved.join("read_file_c1_ab12c.txt"),
        serde_json::to_string_pretty(&json!({"output": "THE ORIGINAL TEXT"})).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.path().join("secret.txt"), "{\"output\": \"SECRET\"}").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), saved.join("link_c3_x.txt")).unwrap();
    let snippet = |rel: &str| {
        format!(
            "<tool_output_masked>\nx\n\nOutput too large. Full output available at: /other/machine/.gemini/tmp/proj/tool-outputs/{rel}\n</tool_output_masked>"
        )
    };
    let masked = |id: &str, rel: &str| json!({"functionResponse": {"id": id, "name": "read_file", "response": {"output": snippet(rel)}}});
    let calls = json!([
        {"functionCall": {"id": "c1", "name": "read_file", "args": {}}},
        {"functionCall": {"id": "c2", "name": "read_file", "args": {}}},
        {"functionCall": {"id": "c3", "name": "read_file", "args": {}}}]);
    let lines = [
        header(),
        json!({"$set": {"messages": [
            {"id": "a", "timestamp": "2026-11-30T09:00:00.000Z", "type": "user", "content": [{"text": "go"}]},
            {"id": "b", "timestamp": "2026-11-30T09:00:00.000Z", "type": "gemini", "content": calls, "thoughts": [], "tokens": null},
            {"id": "c", "timestamp": "2026-11-30T09:00:00.000Z", "type": "user", "content": [
                masked("c1", "session-s-1/read_file_c1_ab12c.txt"),
                masked("c2", "session-s-1/../../../../secret.txt"),
                masked("c3", "session-s-1/link_c3_x.txt")]}]}}),
        gemini("g1", "2026-11-30T09:00:02.000Z", "ok"),
    ];
    let path = tmp.join("chats/session-2026-11-30T09-00-s1.jsonl");
    std::fs::write(
        &path,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let mut a = app_at(&path, Some(1));
    let mut shown = Vec::new();
    for i in 0..3 {
        press(&mut a, 'v');
        shown.push(screen::screen(&a, 120, 30).join("\n"));
        press(&mut a, 'q');
        if i < 2 {
            press(&mut a, 'j');
        }
    }
    for (i, s) in shown.iter().enumerate() {
        // Each view is titled with its result's id.
        assert!(s.contains(&format!("c{}  read_file", i + 1)), "{s}");
    }
    assert!(shown[0].contains("THE ORIGINAL TEXT"), "{}", shown[0]);
    for s in &shown[1..] {
        assert!(!s.contains("SECRET"), "{s}");
        assert!(s.contains("tool_output_masked"), "{s}");
    }
}

/// SPEC §15.13 through the TUI: `:mask-protect` and `:mask-min` tune the
/// masking's thresholds, the header marks them changed, and the plan follows
/// (reference §4's variant: protection 1,000 masks at request 4 as well).
#[test]
fn spec_15_13_the_mask_thresholds_tuned_with_colon_commands() {
    let mut a = app_at(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(BUILD),
        Some(3),
    );
    // The unmasked sample's masking did not run (SPEC §16.I): auto plans
    // nothing; `p` turns to the mask plan, the what-if.
    press(&mut a, 'p');
    assert_eq!(a.view().unwrap().policy().kind.name(), "mask");
    // At request 3 nothing is masked with the defaults.
    assert!(
        !a.view()
            .unwrap()
            .wire_json()
            .contains("<tool_output_masked>")
    );
    a.view_mut().unwrap().run_command(":mask-min 100");
    a.view_mut().unwrap().run_command(":mask-protect 100");
    a.view_mut().unwrap().wait_background();
    let head = screen::screen(&a, 80, 24)[..4].join("\n");
    assert!(head.contains("protect 100* tok"), "{head}");
    assert!(head.contains("prunable ≥ 100*"), "{head}");
    // F1 (518) is now past the newest 100 tokens: masked at request 3.
    assert!(
        a.view()
            .unwrap()
            .wire_json()
            .contains("<tool_output_masked>")
    );
    a.view_mut().unwrap().run_command(":mask-min lots");
    let lines = screen::screen(&a, 80, 24).join("\n");
    assert!(lines.contains("expected tokens"), "{lines}");
}

/// The picker counts the results of the 0.39–0.43 layout, which live only
/// in the responses' `toolCalls`.
#[test]
fn reference_1_3_the_picker_counts_results_of_tool_calls() {
    let mut g = gemini("g1", "2026-11-30T09:00:02.000Z", "");
    g["toolCalls"] = json!([{"id": "c1", "name": "read_file", "args": {},
        "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "A"}}}]}]);
    let (_d, p) = file(
        "session-k.jsonl",
        &[
            header(),
            user("u1", "2026-11-30T09:00:01.000Z", "read"),
            g,
            gemini("g2", "2026-11-30T09:00:03.000Z", "ok"),
        ],
    );
    let row = mcscope::scan::scan(std::path::Path::new(&p));
    assert_eq!((row.requests, row.results), (2, 1));
}

/// Reference §1.1 (≤ 0.38: one `.json` record per session): the picker lists
/// `chats/session-*.json` and counts it; a record longer than the format
/// sniff's head (pretty-printed, over 1 MB) still loads as Gemini CLI's.
#[test]
fn reference_1_1_legacy_json_files_in_the_picker_and_when_large() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join(".gemini/tmp/old/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let big = "z".repeat(1_200_000);
    let record = json!({"sessionId": "s-3", "projectHash": "h", "startTime": "2026-03-01T09:00:00.000Z",
        "lastUpdated": "2026-03-01T09:00:00.000Z", "messages": [
            user("u1", "2026-03-01T09:00:01.000Z", &big),
            gemini("g1", "2026-03-01T09:00:02.000Z", "hello")]});
    let p = chats.join("session-2026-03-01T09-00-s3.json");
    std::fs::write(&p, serde_json::to_string_pretty(&record).unwrap()).unwrap();
    let listed = mcscope::load::list_sessions(&dir.path().join(".gemini/tmp")).unwrap();
    assert!(listed.iter().any(|(f, _, _)| f == &p), "{listed:?}");
    let row = mcscope::scan::scan(&p);
    assert_eq!(row.harness.name(), "gemini");
    assert_eq!(row.requests, 1);
    assert_eq!(row.project, "old");
    let t = json(&["timeline", p.to_str().unwrap(), "-j"]);
    assert_eq!(t["session"]["format"], "gemini-json");
    assert_eq!(t["requests"].as_array().unwrap().len(), 1);
}
