//! The configuration file (SPEC §8) through the real binary: each policy key, the
//! precedence flags > sidecar > config > preset, the preset tables, roots and
//! path maps, and a bad file (one line, exit 2; the TUI goes on with defaults).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `mcscope ARGS` with `MCSCOPE_CONFIG` set to `config` (every child gets its own).
fn run(config: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(root())
        .env("MCSCOPE_CONFIG", config)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn policy(config: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "plan",
        "sample-sessions/claude-size.jsonl",
        "--format",
        "json",
    ];
    args.extend(extra);
    let (code, out, err) = run(config, &args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<Value>(&out).unwrap()["policy"].clone()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn each_policy_key_of_the_config_applies() {
    let dir = tempfile::tempdir().unwrap();
    // claude-size's sidecar sets kind and keep_recent: the other keys come from here.
    let c = write(
        dir.path(),
        "c.toml",
        "[policy]\ngap_threshold_minutes = 45\nsize_threshold = 300000\nlow_watermark = false\n\
         trigger_threshold = 7\nprotect = true\nclear_errors = false\nbudget_tokens = 30000\n\
         budget_min_saving = 10000\nbudget_warning_tokens = 120000\n",
    );
    let p = policy(&c, &[]);
    assert_eq!(p["gap_threshold_minutes"], 45);
    assert_eq!(p["size_threshold"], 300000);
    assert_eq!(p["low_watermark"], false);
    assert_eq!(p["trigger_threshold"], 7);
    assert_eq!(p["protect"], true);
    assert_eq!(p["clear_errors"], false);
    assert_eq!(p["budget_tokens"], 30000);
    assert_eq!(p["budget_min_saving"], 10000);
    assert_eq!(p["budget_warning_tokens"], 120000);
    // kind, keep_recent, delivery: the sidecar wins over the config for these.
    let c = write(
        dir.path(),
        "k.toml",
        "[policy]\nkind = \"count\"\nkeep_recent = 4\ndelivery = \"rewrite\"\n",
    );
    let p = policy(&c, &[]);
    assert_eq!(p["kind"], "size", "from the sidecar");
    assert_eq!(p["keep_recent"], 2, "from the sidecar");
    assert_eq!(p["delivery"], "rewrite");
    // On a session without a sidecar the config's kind and keep apply.
    let (code, out, err) = run(
        &c,
        &[
            "plan",
            "tests/fixtures/qwen/names-and-bridges.jsonl",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["policy"]["kind"], "count");
    assert_eq!(v["policy"]["keep_recent"], 4);
}

#[test]
fn flags_beat_the_sidecar_which_beats_the_config_which_beats_the_preset() {
    let dir = tempfile::tempdir().unwrap();
    let c = write(
        dir.path(),
        "c.toml",
        "[policy]\nkeep_recent = 9\ngap_threshold_minutes = 30\n",
    );
    let p = policy(&c, &[]);
    assert_eq!(p["keep_recent"], 2, "sidecar over config");
    assert_eq!(p["gap_threshold_minutes"], 30, "config over preset");
    let p = policy(&c, &["--keep-recent", "6", "--gap-minutes", "20"]);
    assert_eq!(p["keep_recent"], 6, "flag over sidecar");
    assert_eq!(p["gap_threshold_minutes"], 20, "flag over config");
    let none = dir.path().join("absent.toml");
    assert_eq!(
        policy(&none, &[])["gap_threshold_minutes"],
        60,
        "preset default"
    );
    // `config --print` names each value's source.
    let (code, out, _) = run(
        &c,
        &[
            "config",
            "--print",
            "sample-sessions/claude-size.jsonl",
            "--trigger",
            "4",
        ],
    );
    assert_eq!(code, 0);
    assert!(out.contains("keep_recent = 2  (sidecar)"), "{out}");
    assert!(
        out.contains("gap_threshold_minutes = 30  (config)"),
        "{out}"
    );
    assert!(out.contains("trigger_threshold = 4  (flag)"), "{out}");
    assert!(out.contains("size_threshold = 500000  (preset)"), "{out}");
    // plan text names the files it read.
    let (_, text, _) = run(&c, &["plan", "sample-sessions/claude-size.jsonl"]);
    assert!(
        text.contains(
            "settings read from: sidecar sample-sessions/claude-size.mcscope.json, config "
        ),
        "{text}"
    );
}

/// A flag's delivery wins over the config file's as every flag does: under the
/// api preset, `--delivery server` over a config's `rewrite` is the preset's
/// own delivery, not a refusal that names it ("its delivery is server (got
/// server)", before the flags were a layer of keys like the config's).
#[test]
fn a_flag_s_delivery_wins_over_the_config_s_under_the_api_preset() {
    let dir = tempfile::tempdir().unwrap();
    let c = write(dir.path(), "c.toml", "[policy]\ndelivery = \"rewrite\"\n");
    let args = [
        "plan",
        "sample-sessions/claude-cut.jsonl",
        "--preset",
        "api",
        "--delivery",
        "server",
        "--format",
        "json",
    ];
    let (code, out, err) = run(&c, &args);
    assert_eq!(code, 0, "{err}");
    let p = &serde_json::from_str::<Value>(&out).unwrap()["policy"];
    assert_eq!(p["delivery"], "server");
    assert_eq!(p["kind"], "api");
    // Without the flag, the config's rewrite is still refused under api.
    let (code, _, err) = run(&c, &args[..4]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("its delivery is server (got rewrite)"),
        "{err}"
    );
}

#[test]
fn a_preset_table_overrides_policy_for_that_preset_only() {
    let dir = tempfile::tempdir().unwrap();
    let c = write(
        dir.path(),
        "c.toml",
        "[policy]\ntrigger_threshold = 7\n[policy.qwen]\ntrigger_threshold = 3\n",
    );
    assert_eq!(policy(&c, &[])["trigger_threshold"], 7, "claude");
    let (_, out, _) = run(
        &c,
        &[
            "plan",
            "tests/fixtures/qwen/media.jsonl",
            "--format",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["policy"]["trigger_threshold"], 3, "qwen");
    // [policy] preset: the preset to apply when no flag or sidecar says.
    let c = write(dir.path(), "p.toml", "[policy]\npreset = \"qwen\"\n");
    let (_, out, _) = run(
        &c,
        &[
            "plan",
            "sample-sessions/claude-demo.jsonl",
            "--format",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["policy"]["preset"], "qwen");
}

#[test]
fn memory_roots_and_path_maps_of_the_config_are_relative_to_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let c = write(
        dir.path(),
        "c.toml",
        "[memory_roots]\nuser = \"mem/user\"\n[path_map]\n\"/home/dev/shop\" = \"shop\"\n",
    );
    let (code, out, err) = run(
        &c,
        &[
            "plan",
            "sample-sessions/claude-demo.jsonl",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let roots = v["protection"]["memory_roots"].as_array().unwrap();
    let user = roots.iter().find(|r| r["root"] == "user").unwrap();
    assert_eq!(
        user["dir"],
        json!(dir.path().join("mem/user").display().to_string())
    );
    let map = v["protection"]["path_map"].as_array().unwrap();
    assert_eq!(map[0]["from"], "/home/dev/shop");
    assert_eq!(
        map[0]["to"],
        json!(dir.path().join("shop").display().to_string())
    );
}

#[test]
fn a_bad_file_is_one_line_and_exit_2_for_the_cli_and_a_notice_in_the_tui() {
    let dir = tempfile::tempdir().unwrap();
    let c = write(
        dir.path(),
        "c.toml",
        "mouse = true\n[policy]\nkeep_recnt = 3\n",
    );
    let (code, out, err) = run(&c, &["plan", "sample-sessions/claude-demo.jsonl"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "mcscope: {}: line 3: unknown field `keep_recnt`",
            c.display()
        )),
        "{err}"
    );
    let c = write(dir.path(), "v.toml", "[policy]\ndelivery = \"pigeon\"\n");
    let (code, _, err) = run(&c, &["timeline", "sample-sessions/claude-demo.jsonl"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("delivery = \"pigeon\": not a delivery"),
        "{err}"
    );
}

/// The TUI goes on with the defaults and says why.
#[test]
fn the_tui_uses_the_defaults_and_says_so_when_the_config_is_bad() {
    let dir = tempfile::tempdir().unwrap();
    let c = write(dir.path(), "c.toml", "[policy]\nkeep_recent = \"x\"\n");
    let progress = std::sync::atomic::AtomicU64::new(0);
    let (setup, _) = mcscope::tui::load_session_with(
        &root().join("sample-sessions/claude-demo.jsonl"),
        &Default::default(),
        &progress,
        mcscope::config::read(&c),
    )
    .unwrap();
    assert_eq!(
        setup.policy.keep_recent,
        Some(2),
        "the sidecar still applies"
    );
    let notice = setup.settings.config_notice.clone().unwrap();
    assert!(
        notice.contains("line 2") && notice.ends_with("defaults used"),
        "{notice}"
    );
    let app = mcscope::tui::app::App::session(setup);
    assert_eq!(app.view().unwrap().status.as_deref(), Some(notice.as_str()));
}

#[test]
fn config_prices_give_dollars_to_a_model_the_table_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("absent.toml");
    let args = [
        "compare",
        "sample-sessions/qwen-memory/today.jsonl",
        "--format",
        "json",
        "--quiet",
    ];
    let (code, out, err) = run(&none, &args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["sessions"][0]["price"].is_null());
    let c = write(
        dir.path(),
        "c.toml",
        "[prices.\"qwen3-coder\"]\ninput = 1.0\nwrite_5m = 1.25\nwrite_1h = 2.0\nread = 0.1\n",
    );
    let (code, out, err) = run(&c, &args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["sessions"][0]["price"]["prefix"], "qwen3-coder");
    assert!(
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["delta_usd"].is_number())
    );
}

/// `cache_ttl` follows the same precedence, and the TUI's footer totals use it: the
/// flag, else the sidecar's, else the config file's, else auto.
#[test]
fn cache_ttl_takes_the_flag_then_the_sidecar_then_the_config() {
    use mcscope::totals::CacheTtl;
    let dir = tempfile::tempdir().unwrap();
    let c = write(dir.path(), "c.toml", "cache_ttl = \"1h\"\n");
    let progress = std::sync::atomic::AtomicU64::new(0);
    let ttl = |opts: mcscope::cli::Opts, session: &Path| {
        mcscope::tui::load_session_with(session, &opts, &progress, mcscope::config::read(&c))
            .unwrap()
            .0
            .settings
            .cache_ttl
    };
    let demo = root().join("sample-sessions/claude-demo.jsonl");
    assert_eq!(ttl(Default::default(), &demo), CacheTtl::OneHour);
    let flag = mcscope::cli::Opts {
        shared: mcscope::cli::SharedOpts {
            cache_ttl: Some(CacheTtl::FiveMinutes),
            ..Default::default()
        },
        ..Default::default()
    };
    assert_eq!(ttl(flag, &demo), CacheTtl::FiveMinutes);
    // A sidecar's cache_ttl wins over the config's.
    let session = dir.path().join("s.jsonl");
    std::fs::copy(&demo, &session).unwrap();
    write(dir.path(), "s.mcscope.json", "{\"cache_ttl\": \"5m\"}");
    assert_eq!(ttl(Default::default(), &session), CacheTtl::FiveMinutes);
}

/// `[theme] cleared = "magenta"` through the TUI's own reading of the file: the
/// cleared rows' status cells turn magenta, the kept ones stay green; without the
/// table (or with a bad file) cleared is today's red; under NO_COLOR no colour,
/// the glyph stays.
#[test]
fn the_theme_of_the_config_colours_the_age_list() {
    use mcscope::cli::{self, Opts};
    use mcscope::tui::ui::{self, Theme};
    use ratatui::style::Color;
    let dir = tempfile::tempdir().unwrap();
    let themed = write(dir.path(), "t.toml", "[theme]\ncleared = \"magenta\"\n");
    let plain = write(dir.path(), "p.toml", "mouse = true\n");
    let bad = write(dir.path(), "b.toml", "[theme]\ncleared = \"blood\"\n");
    // The fg of the first cell of `word` in the row of `id`, and the cell before
    // it (the status glyph).
    let status = |config: &Path, color: bool, id: &str, word: &str| -> (Color, String) {
        let palette = mcscope::tui::palette_of(&mcscope::config::read(config));
        let opts = Opts::default().with("--policy", "count");
        let path = root().join("sample-sessions/claude-demo.jsonl");
        let app = mcscope::tui::app::App::session(cli::setup(&path, &opts).unwrap());
        let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
        t.draw(|f| ui::draw(f, &app, Theme { color, palette }))
            .unwrap();
        let buf = t.backend().buffer().clone();
        for y in 0..40 {
            let cells: Vec<String> = (0..120).map(|x| buf[(x, y)].symbol().to_string()).collect();
            let line = cells.concat();
            if !line.contains(id) {
                continue;
            }
            let n = word.chars().count();
            if let Some(x) = (0..=120 - n).find(|&x| cells[x..x + n].concat() == word) {
                return (buf[(x as u16, y)].fg, cells[x - 2].clone());
            }
        }
        panic!(
            "no row {id} with {word}: {}",
            (0..40)
                .map(|y| (0..120)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>())
                .collect::<Vec<_>>()
                .join("\n")
        );
    };
    assert_eq!(
        status(&themed, true, "toolu_A", "cleared"),
        (Color::Magenta, "✗".into())
    );
    assert_eq!(
        status(&themed, true, "toolu_C", "kept"),
        (Color::Green, "·".into())
    );
    assert_eq!(
        status(&plain, true, "toolu_A", "cleared"),
        (Color::Red, "✗".into())
    );
    assert_eq!(
        status(&bad, true, "toolu_A", "cleared"),
        (Color::Red, "✗".into())
    );
    assert_eq!(
        status(&themed, false, "toolu_A", "cleared"),
        (Color::Reset, "✗".into())
    );
}

/// A bad `[theme]` colour or key stops a CLI command that reads the config: one
/// line naming the file, the line and the key, exit 2. `config --print` lists
/// the theme's entries.
#[test]
fn a_bad_theme_colour_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let c = write(
        dir.path(),
        "c.toml",
        "mouse = true\n[theme]\nkept = \"green\"\ncleared = \"blood\"\n",
    );
    let (code, out, err) = run(&c, &["plan", "sample-sessions/claude-demo.jsonl"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "mcscope: {}: line 4: [theme] cleared: \"blood\": not a colour",
            c.display()
        )),
        "{err}"
    );
    let c = write(dir.path(), "k.toml", "[theme]\nclered = \"red\"\n");
    let (code, _, err) = run(&c, &["timeline", "sample-sessions/claude-demo.jsonl"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("line 2: [theme] clered: unknown theme key"),
        "{err}"
    );
    let c = write(
        dir.path(),
        "g.toml",
        "[theme]\ncleared = \"#ff00ff\"\nprotected = \"lightcyan\"\n",
    );
    let (code, out, err) = run(&c, &["config", "--print"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("theme.cleared = #ff00ff  (config)"), "{out}");
    assert!(
        out.contains("theme.protected = lightcyan  (config)"),
        "{out}"
    );
}

/// SPEC §13.S4, §13.S10: `config --print` lists idle-server's minimum trigger
/// (`min_trigger_tool_uses`) with where it came from, and the keep and gap
/// idle-server uses by default beside the other kinds'.
#[test]
fn config_print_lists_the_idle_server_settings() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c.toml");
    std::fs::write(&c, "[policy]\nmin_trigger_tool_uses = 33\n").unwrap();
    let (code, out, err) = run(
        &c,
        &[
            "config",
            "--print",
            "sample-sessions/claude-idle-server.jsonl",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("min_trigger_tool_uses = 33  (config)"),
        "{out}"
    );
    assert!(
        out.contains("keep_recent = by plan kind (5, budget 3, idle-server 5 before 2.1.310 and 12 from it)  (preset)"),
        "{out}"
    );
    assert!(
        out.contains("gap_threshold_minutes = 60 (idle-server: 65)  (preset)"),
        "{out}"
    );
    let (_, out, _) = run(
        &c,
        &[
            "config",
            "--print",
            "sample-sessions/claude-idle-server.jsonl",
            "--min-trigger-tool-uses",
            "40",
        ],
    );
    assert!(out.contains("min_trigger_tool_uses = 40  (flag)"), "{out}");
    let none = dir.path().join("absent.toml");
    let (_, out, _) = run(
        &none,
        &[
            "config",
            "--print",
            "sample-sessions/claude-idle-server.jsonl",
        ],
    );
    assert!(
        out.contains("min_trigger_tool_uses = keep_recent + 15 (idle-server)  (preset)"),
        "{out}"
    );
}

/// `config --print` on a Gemini CLI session lists the three settings its
/// masking reads (SPEC §15.13), with where each came from; a Claude Code
/// session, whose plans never mask, lists none of them.
#[test]
fn config_print_lists_the_mask_settings_where_the_preset_masks() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c.toml");
    std::fs::write(&c, "[policy.gemini]\nmask_protect_tokens = 20000\n").unwrap();
    let (code, out, err) = run(
        &c,
        &["config", "--print", "sample-sessions/gemini-build.jsonl"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("mask_protect_tokens = 20000  (config)"),
        "{out}"
    );
    assert!(
        out.contains("mask_min_prunable_tokens = 30000  (preset)"),
        "{out}"
    );
    assert!(
        out.contains("mask_protect_latest_turn = true  (preset)"),
        "{out}"
    );
    let (_, out, _) = run(
        &c,
        &[
            "config",
            "--print",
            "sample-sessions/gemini-build.jsonl",
            "--no-protect-latest-turn",
        ],
    );
    assert!(
        out.contains("mask_protect_latest_turn = false  (flag)"),
        "{out}"
    );
    let (_, out, _) = run(
        &c,
        &["config", "--print", "sample-sessions/claude-demo.jsonl"],
    );
    assert!(!out.contains("mask_"), "{out}");
}

/// A sidecar's values are checked by the same rows as the config file's: a
/// bad plan kind, delivery or preset is one line naming the sidecar, the key
/// and the value, exit 2; a preset table's bad value is named by its key path
/// for every preset of the registry.
#[test]
fn a_sidecar_s_bad_value_is_named_with_the_file_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("no-config.toml");
    let session = dir.path().join("s.jsonl");
    std::fs::copy(root().join("sample-sessions/claude-demo.jsonl"), &session).unwrap();
    let side = dir.path().join("s.mcscope.json");
    for (text, want) in [
        (r#"{"kind": "bogus"}"#, r#"kind = "bogus": not a plan kind"#),
        (
            r#"{"delivery": "pigeon"}"#,
            r#"delivery = "pigeon": not a delivery (rewrite, cache-edits, server)"#,
        ),
        (
            r#"{"preset": "cursor"}"#,
            r#"preset = "cursor": not a preset (claude, qwen, api, gemini, opencode, cline)"#,
        ),
        (
            r#"{"opencode": {"prune_protect_tokens": "x"}}"#,
            r#"line 1: opencode.prune_protect_tokens: expected a whole number, 0 or more, found "x""#,
        ),
    ] {
        std::fs::write(&side, text).unwrap();
        let (code, out, err) = run(&none, &["plan", session.to_str().unwrap()]);
        assert_eq!(code, 2, "{text}");
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("mcscope: {}: bad sidecar: ", side.display()))
                && err.trim_end().ends_with(want),
            "{text}: {err}"
        );
    }
}

/// `config --print` without a PATH: each preset's section holds its own keys;
/// what every session shares (cache TTL, mouse, `[prices]`, `[theme]`) is
/// listed once, after them, under its own heading, not under `[claude]`.
#[test]
fn config_print_lists_prices_and_theme_once_under_their_own_heading() {
    let dir = tempfile::tempdir().unwrap();
    let c = write(
        dir.path(),
        "c.toml",
        "mouse = false\n[prices.\"claude-x\"]\ninput = 5.0\nwrite_5m = 6.25\nwrite_1h = 10.0\nread = 0.5\n[theme]\ncleared = \"red\"\n",
    );
    let (code, out, err) = run(&c, &["config", "--print"]);
    assert_eq!(code, 0, "{err}");
    let sections: Vec<&str> = out.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(
        sections,
        [
            "[claude]",
            "[qwen]",
            "[gemini]",
            "[opencode]",
            "[cline]",
            "[every harness]"
        ]
    );
    let shared = out.split("[every harness]").nth(1).unwrap();
    for line in [
        "mouse = false  (config)",
        "prices.\"claude-x\" = input 5 write_5m 6.25 write_1h 10 read 0.5  (config)",
        "theme.cleared = red  (config)",
    ] {
        assert_eq!(out.matches(line).count(), 1, "{line} once:\n{out}");
        assert!(
            shared.contains(line),
            "{line} under [every harness]:\n{out}"
        );
    }
    let claude = out.split("[qwen]").next().unwrap();
    assert!(
        !claude.contains("prices.") && !claude.contains("theme."),
        "{claude}"
    );
    assert!(
        out.starts_with(&format!("config file: {}\n", c.display())),
        "{out}"
    );
}
