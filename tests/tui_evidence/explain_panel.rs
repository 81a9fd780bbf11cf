//! The explain panel: the records that name a result, budget firings, send kinds, cuts, masks.

use super::*;

#[test]
fn the_explain_panel_shows_the_records_that_name_a_result() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = open(&evidence_session(dir.path()), count_opts());
    // a: named by the cached record on line 8, request 3's; the count plan newly clears
    // a there (agrees); the selected plan (auto: budget on 2.1.17, usage far below the
    // gate) clears nothing there, so a is missing from it.
    let lines = explain(&mut a, "a");
    assert!(
        has(
            &lines,
            "◇ microcompact_boundary at line 8 (cached writer) belongs to request 3"
        ),
        "{}",
        lines.join("\n")
    );
    assert!(has(&lines, "cleared [a (this)]"));
    assert!(has(&lines, "pre_tokens 0  tokens_saved 2,000"));
    assert!(has(&lines, "against the count plan: agrees"));
    assert!(has(
        &lines,
        "against the selected plan (auto): missing [a] (named by the record, not cleared by the plan)"
    ));
    a.update(Action::Back);
    // c: line 12's record, request 4's, where count newly clears b instead.
    let lines = explain(&mut a, "c");
    assert!(has(
        &lines,
        "◇ microcompact_boundary at line 12 (cached writer) belongs to request 4"
    ));
    assert!(has(&lines, "pre_tokens 0  tokens_saved 1,000"));
    assert!(
        has(
            &lines,
            "against the count plan: missing [c] (named by the record, not cleared by the plan); extra [b]"
        ),
        "{}",
        lines.join("\n")
    );
    a.update(Action::Back);
    // b: no record names it.
    let lines = explain(&mut a, "b");
    assert!(
        !has(&lines, "microcompact_boundary"),
        "{}",
        lines.join("\n")
    );
    // With count selected, the writer's plan is the selected one: said once.
    let mut a = open(
        &evidence_session(dir.path()),
        count_opts().with("--policy", "count"),
    );
    let lines = explain(&mut a, "a");
    assert!(has(&lines, "against the count plan: agrees"));
    assert!(!has(&lines, "against the selected plan"));
}

/// The bundled budget sample: its record on line 19 names three results at request 7,
/// which the budget plan (auto on 2.1.x) reproduces: the panel says so.
#[test]
fn the_budget_samples_record_shows_in_the_explain_panel() {
    let mut a = open(&sample(BUDGET), Opts::default());
    let first = "toolu_01qH7HZN50jZIuWJeHd3PBLK";
    let lines = explain(&mut a, first);
    assert!(has(
        &lines,
        "◇ microcompact_boundary at line 19 (budget writer) belongs to request 7"
    ));
    assert!(has(
        &lines,
        &format!(
            "cleared [{first} (this), toolu_01L7S8L1jAUCfpbbl5zHey6U, toolu_01DqkmUrEG7dgciyZUtEndMC]"
        )
    ));
    assert!(has(&lines, "pre_tokens 122,000  tokens_saved 62,000"));
    assert!(has(&lines, "against the budget plan: agrees"));
    // At 80×24 the record's line still shows (it sits above the rows, which scroll).
    a.resize(80, 24);
    let small = screen(&a, 80, 24, false);
    assert!(
        has(&small, "◇ microcompact_boundary at line 19"),
        "{}",
        small.join("\n")
    );
}

/// Four Bash results of 80,000 chars (20,000 tokens each) in one turn, an answer
/// whose recorded usage is 150,000, then a new prompt: the budget plan fires at the
/// turn start (2.1.88's gate 147,000; clearing A leaves 60,000, saving 20,000, the
/// minimum), where no record is expected.
fn turn_start_session(dir: &Path) -> PathBuf {
    let mut c = common::Claude::default();
    c.prompt("build and test everything", 0.0);
    for id in ["A", "B", "C", "D"] {
        c.bash(id, 80_000);
    }
    c.answer("all green");
    for line in &mut c.lines {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v["type"] == "assistant" && v["message"]["content"][0]["type"] == "text" {
            v["message"]["usage"] = json!({"input_tokens": 5, "cache_creation_input_tokens": 1000,
                "cache_read_input_tokens": 150_000 - 1005 - 20, "output_tokens": 20});
            *line = v.to_string();
        }
    }
    c.prompt("thanks; and the docs?", 3.0);
    c.answer("the docs build too");
    c.write(dir, "s.jsonl")
}

#[test]
fn a_silent_budget_firing_is_said_in_the_header_and_the_explain_panel() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Opts::default().with("--policy", "budget");
    let mut a = open(&turn_start_session(dir.path()), opts);
    assert_eq!(k(&a), 6);
    assert!(a.view().unwrap().mark(6).silent);
    let lines = screen(&a, 120, 40, false);
    let head = header(&lines).join(" ");
    assert!(
        head.contains("silent: budget fired at a turn start"),
        "{head}"
    );
    // A's explain: cleared at 6, with the note on that row only.
    let lines = explain(&mut a, "A");
    let at = lines
        .iter()
        .position(|l| l.contains("   6  ✗ cleared"))
        .unwrap_or_else(|| panic!("{}", lines.join("\n")));
    assert!(
        lines[at + 1..]
            .iter()
            .take(3)
            .any(|l| l.contains("silent: budget fired at a turn start")),
        "{}",
        lines.join("\n")
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("silent: budget fired"))
            .count(),
        1
    );
    // Request 5 (a tool loop) does not fire: no note in its header.
    a.update(Action::Back);
    key(&mut a, Action::PrevRequest);
    assert!(
        !header(&screen(&a, 120, 40, false))
            .join(" ")
            .contains("silent")
    );
}

#[test]
fn the_explain_panel_says_the_send_kind_where_it_decides_the_fate() {
    let mut a = open(&sample(TODAY), Opts::default());
    let lines = explain(&mut a, "call_main");
    // Requests 2–4 send tool results: Qwen runs only size there (the result
    // stays); 2 and 3 read alike and fold into one row (the words issue), 4
    // has its own size.
    let tool_rows = lines
        .iter()
        .filter(|l| l.contains("tool_result: tool results: Qwen runs only the size check here"))
        .count();
    assert_eq!(tool_rows, 2, "{}", lines.join("\n"));
    assert!(
        lines.iter().any(|l| l.contains("2–3  · kept")),
        "{}",
        lines.join("\n")
    );
    // Request 5, the notification: its words are said once (its reason has them).
    assert_eq!(
        lines
            .iter()
            .filter(|l| l
                .contains("notification or teammate message: Qwen runs no microcompaction here"))
            .count(),
        1,
        "{}",
        lines.join("\n")
    );
    // Request 6, the prompt that cleared it: no send-kind line.
    assert!(!has(&lines, "user_query:"), "{}", lines.join("\n"));
}

/// SPEC §15.21: the explain panel shows a recorded cut that names the result
/// above its fate, with what it did to it.
#[test]
fn the_explain_panel_shows_the_cut_record_above_the_simulation() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-cut.jsonl");
    let mut a = open(&path, Opts::default());
    let lines = explain(&mut a, "toolu_R1");
    let record = lines
        .iter()
        .position(|l| l.contains("◇ tool_results_cut at line 14 belongs to request 7"))
        .unwrap_or_else(|| panic!("{}", lines.join("\n")));
    assert!(has(&lines, "cut by Claude Code (recorded): its stand-in"));
    let fate = lines
        .iter()
        .position(|l| l.contains("◌ cut"))
        .unwrap_or_else(|| panic!("{}", lines.join("\n")));
    assert!(record < fate, "the record comes above the simulation");
    a.update(Action::Back);
    let lines = explain(&mut a, "toolu_E1");
    assert!(
        has(&lines, "not applied here: error"),
        "{}",
        lines.join("\n")
    );
}

/// Issue 42 item 4: the explain panel speaks of a Gemini CLI masking and of
/// OpenCode's prune marks in their own words (never `microcompact_boundary`,
/// a line 0 or `pre_tokens`).
#[test]
fn the_explain_panel_names_gemini_and_opencode_records_in_their_own_words() {
    let mut a = open(
        &sample("sample-sessions/gemini-build-masked.jsonl"),
        Opts::default(),
    );
    let lines = explain(&mut a, "read_file__read_file_1796030106117_0");
    let text = lines.join("\n");
    assert!(
        has(
            &lines,
            "◇ masking recorded at line 32 (gemini_mask) belongs to request 4"
        ),
        "{text}"
    );
    assert!(
        has(
            &lines,
            "masked [read_file__read_file_1796030106117_0 (this)"
        ),
        "{text}"
    );
    assert!(has(&lines, "against the mask plan:"), "{text}");
    assert!(
        !text.contains("microcompact_boundary") && !text.contains("pre_tokens"),
        "{text}"
    );

    let mut a = open(
        &sample("sample-sessions/opencode-build.db"),
        Opts::default(),
    );
    let lines = explain(&mut a, "toolu_01Hq3xK9mVb2Lw7Rt5Yz8NcD");
    let text = lines.join("\n");
    assert!(
        has(
            &lines,
            "◇ OpenCode's prune marks (state.time.compacted) belong to request 8"
        ),
        "{text}"
    );
    assert!(has(&lines, "OpenCode's estimate 60,500"), "{text}");
    assert!(has(&lines, "against the prune plan:"), "{text}");
    assert!(
        !text.contains("microcompact_boundary") && !text.contains("pre_tokens"),
        "{text}"
    );
}

/// The explain panel folds runs of identical rows as the page does (the words
/// issue: 373 two-line rows on a long session): on the demo, toolu_A is kept
/// alike at requests 2–5, one row; the ▶ marks the run that holds the request
/// shown.
#[test]
fn the_explain_panel_folds_runs_of_identical_rows() {
    let demo =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl");
    let mut a = open(&demo, Opts::default());
    let lines = explain(&mut a, "toolu_A");
    let rows: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("· kept") || l.contains("✗ cleared"))
        .collect();
    assert_eq!(rows.len(), 2, "{}", lines.join("\n"));
    assert!(rows[0].contains(" 2–5  · kept"), "{}", lines.join("\n"));
    assert!(rows[1].contains("▶   6  ✗ cleared"), "{}", lines.join("\n"));
}
