//! The commands and the TUI on a database: --session, the picker, compare, the header.

use super::*;

/// SPEC §15.14 `--session ID`: without it a database of several sessions is
/// exit 2 listing them; an unknown id is exit 2 too; every subcommand takes it.
#[test]
fn s15_14_session_chooses_one_session_of_a_database() {
    let mut db = Db::new();
    db.session("ses_one", None, None);
    db.session("ses_two", None, None);
    let u = db.user("ses_one", "one");
    db.assistant("ses_one", &u, json!({}), vec![text("a")]);
    let u = db.user("ses_two", "two");
    db.assistant("ses_two", &u, json!({}), vec![text("b")]);
    db.assistant("ses_two", &u, json!({}), vec![text("c")]);
    for cmd in ["plan", "timeline", "evidence", "wire"] {
        let (code, out, err) = bin::run(&[cmd, db.p()]);
        assert_eq!(code, 2, "{cmd}: {out}");
        assert!(
            err.contains("2 sessions in this database; choose one with --session ID"),
            "{err}"
        );
        assert!(err.contains("ses_one") && err.contains("ses_two"), "{err}");
        let (code, _, err) = bin::run(&[cmd, db.p(), "--session", "ses_two"]);
        assert_eq!(code, 0, "{cmd}: {err}");
    }
    let t = timeline(db.p(), &["--session", "ses_two"]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 2);
    let (code, _, err) = bin::run(&["plan", db.p(), "--session", "ses_nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no session \"ses_nope\""), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// SPEC §15.14 / issue #29 item 1: `mcscope opencode.db` opens a picker of the
/// database's sessions (newest first, a sub-agent session under its parent,
/// counts from the rows), and Enter opens the chosen one (`--session ID`).
#[test]
fn s15_14_a_database_opens_a_picker_of_its_sessions() {
    use mcscope::tui::picker::{Picker, Row};
    let mut db = Db::new();
    db.session("ses_old", None, None);
    db.session("ses_sub", Some("ses_old"), None);
    db.session("ses_new", None, None);
    db.conn
        .execute(
            "UPDATE session SET time_updated = time_updated + 100 WHERE id = 'ses_new'",
            [],
        )
        .unwrap();
    let u = db.user("ses_old", "old");
    db.assistant(
        "ses_old",
        &u,
        json!({}),
        vec![tool("c1", "read", "x"), text("a")],
    );
    db.assistant("ses_old", &u, json!({}), vec![text("b")]);
    let u = db.user("ses_sub", "sub");
    db.assistant("ses_sub", &u, json!({}), vec![text("c")]);
    let u = db.user("ses_new", "new");
    db.assistant("ses_new", &u, json!({}), vec![text("d")]);
    let format = mcscope::load::sniff(&db.path).unwrap();
    assert!(mcscope::load::holds_sessions(format));
    let sessions = mcscope::load::database_sessions(&db.path).unwrap();
    let mut p = Picker::of_database("db".into(), &db.path, format, &sessions);
    let ids: Vec<String> = p
        .rows
        .iter()
        .map(|r| match *r {
            Row::File(i) => p.entries[i].session.clone().unwrap(),
            Row::Thread(..) => panic!("no threads in a database"),
        })
        .collect();
    assert_eq!(ids, ["ses_new", "ses_old", "ses_sub"]);
    let old = p
        .entries
        .iter()
        .position(|e| e.session.as_deref() == Some("ses_old"))
        .unwrap();
    let sub = p
        .entries
        .iter()
        .position(|e| e.session.as_deref() == Some("ses_sub"))
        .unwrap();
    assert_eq!(p.parent_of(sub), Some(old));
    let s = p.entries[old].summary.as_ref().unwrap();
    assert_eq!((s.requests, s.results), (2, 1));
    assert_eq!(s.prompt.as_deref(), Some("title of ses_old"));
    p.selected = 1;
    let t = p.target().unwrap();
    assert_eq!(t.session.as_deref(), Some("ses_old"));
    // What Enter loads: that session.
    let (setup, _) = mcscope::tui::load_target(
        &t,
        &mcscope::cli::Opts::default(),
        &std::sync::atomic::AtomicU64::new(0),
    )
    .unwrap();
    assert_eq!(setup.session.session_id.as_deref(), Some("ses_old"));
    assert_eq!(setup.session.requests.len(), 2);
}

/// SPEC §15.14 "`compare DB` compares every main session": each main session
/// is a unit (`PATH#ID`), a sub-agent session is billed in its parent's row,
/// and the prune row is the user's `compaction.prune`.
#[test]
fn s15_14_compare_a_database_compares_every_main_session() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    std::fs::copy(SAMPLE, &db).unwrap();
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
           SELECT 'ses_other', project_id, NULL, 'b', directory, 'Other', version, time_created, time_updated - 9 FROM session;
         INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
           SELECT 'ses_kid', project_id, 'ses_dd4438cb3ffeXq3Lm9TzR2bN7c', 'k', directory, 'Kid', version, time_created, time_updated - 5
           FROM session WHERE id = 'ses_dd4438cb3ffeXq3Lm9TzR2bN7c';",
    )
    .unwrap();
    drop(conn);
    let c = bin::json(&["compare", db.to_str().unwrap(), "-j"]);
    let paths: Vec<&str> = c["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 1, "{paths:?}");
    assert!(paths[0].ends_with("#ses_dd4438cb3ffeXq3Lm9TzR2bN7c"));
    // The session without requests is skipped as a folder's empty file is.
    assert_eq!(c["skipped"][0]["reason"], "empty", "{}", c["skipped"]);
    let row = &c["rows"][1];
    assert_eq!(row["availability"], "user");
    assert_eq!(row["knob"], json!({"compaction.prune": true}));
}

/// The TUI at 80×24 on the sample (docs/adding-a-harness.md): request 8 under
/// `auto` shows OpenCode's prune, the bash and the read cleared, the grep kept.
#[test]
fn the_sample_at_80x24_shows_the_prune_at_request_8() {
    let opts = mcscope::cli::Opts {
        at: Some("8".into()),
        ..Default::default()
    };
    let setup = mcscope::cli::setup(Path::new(SAMPLE), &opts).unwrap();
    let mut app = mcscope::tui::app::App::session_at(setup, 8);
    app.view_mut().unwrap().wait_background();
    let lines = screen::screen(&app, 80, 24);
    let all = lines.join("\n");
    assert!(lines.iter().all(|l| l.chars().count() == 80), "{all}");
    assert!(all.contains("opencode-db"), "{all}");
    assert!(all.contains("prune"), "{all}");
    let bash = screen::row(&lines, "npm run build");
    assert!(bash.contains("cleared"), "{all}");
    let grep = screen::row(&lines, "vendor/heavy");
    assert!(grep.contains("kept"), "{all}");
}

/// SPEC §15.13: `compare` takes prune's thresholds for its rows too.
#[test]
fn s15_13_compare_takes_the_prune_thresholds() {
    let c = bin::json(&["compare", SAMPLE, "--prune-protect", "1000000", "-j"]);
    let rows = c["rows"].as_array().unwrap();
    let prune = rows
        .iter()
        .find(|r| r["policy"]["kind"] == "prune")
        .unwrap();
    assert_eq!(
        prune["policy"]["prune_protect_tokens"], 1_000_000,
        "{prune}"
    );
    assert_eq!(prune["cleared_results"], 0, "{prune}");
}

/// SPEC §15.13: the header names prune's own thresholds, never the shared
/// parameters prune does not read (keep, gap, size).
#[test]
fn s15_13_the_header_names_prune_s_own_thresholds() {
    let out = bin::ok(&["timeline", SAMPLE, "--prune-protect", "30000"]);
    let head = out.lines().nth(1).unwrap();
    assert!(
        head.contains("protect 30,000 tok  minimum > 20,000"),
        "{head}"
    );
    assert!(
        !head.contains("keep_recent") && !head.contains("gap >="),
        "{head}"
    );
    // Where auto chose no plan (1.18.33, no mark): still prune's own, in the
    // text and in the TUI's header.
    let mut db = Db::new();
    db.session("ses_h", None, None);
    let u = db.user("ses_h", "go");
    db.assistant("ses_h", &u, json!({}), vec![text("ok")]);
    let out = bin::ok(&["timeline", db.p()]);
    let head = out.lines().nth(1).unwrap();
    assert!(
        head.contains("protect 40,000 tok  minimum > 20,000"),
        "{head}"
    );
    assert!(!head.contains("keep_recent"), "{head}");
    let setup = mcscope::cli::setup(Path::new(db.p()), &mcscope::cli::Opts::default()).unwrap();
    let mut app = mcscope::tui::app::App::session_at(setup, 1);
    app.view_mut().unwrap().wait_background();
    let screen = screen::screen(&app, 80, 24).join("\n");
    assert!(screen.contains("protect 40,000 tok"), "{screen}");
    assert!(!screen.contains("keep 5"), "{screen}");
}
