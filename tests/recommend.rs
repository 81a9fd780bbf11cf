//! SPEC §9a "Availability" and "The recommendation", §15.15 (`knob`,
//! `same_as`): who can set each row of `mcscope compare`, which row is
//! recommended, and identical rows printed once — through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn text_of(args: &[&str]) -> String {
    common::bin::ok(args)
}

fn json_of(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--format");
    a.push("json");
    serde_json::from_str(&text_of(&a)).unwrap()
}

/// The setting rows: after the baseline, which leads every comparison (SPEC
/// §9a) and is checked here to be row 0. Indices into this slice are one less
/// than JSON's `rows` (and `recommended`, `same_as`, the text's row numbers).
fn rows(v: &Value) -> &[Value] {
    let all = v["rows"].as_array().unwrap();
    assert_eq!(all[0]["baseline"], true, "{v}");
    assert_eq!(all[0]["same_as"], Value::Null);
    &all[1..]
}

const NONE: &str = "no clearing recommended: no setting you can use saves money here";

/// SPEC §9a recommendation: an idle-only grid where every setting that fires
/// costs money (a 1-hour cache on claude-size: each clearing breaks it warm)
/// recommends nothing — not the rows that never fire (Δ 0, sorted first), not
/// the cheapest net cost — and says so with the cheapest row's Δ.
#[test]
fn spec_9a_recommendation_a_net_cost_grid_recommends_nothing() {
    let args = [
        "compare",
        "sample-sessions/claude-size.jsonl",
        "--policy",
        "idle",
        "--keep-recent",
        "1,3,5",
        "--gap-minutes",
        "1,2,5,10",
        "--cache-ttl",
        "1h",
        "-q",
    ];
    let v = json_of(&args);
    assert_eq!(v["recommended"], Value::Null);
    let rows = rows(&v);
    // The first rows never fire (Δ 0); every row that fires is a net cost.
    assert_eq!(rows[0]["fires"], 0);
    assert_eq!(rows[0]["delta_usd"].as_f64().unwrap(), 0.0);
    assert!(
        rows.iter()
            .filter(|r| r["fires"].as_u64().unwrap() > 0)
            .all(|r| r["delta_usd"].as_f64().unwrap() > 0.0)
    );
    let text = text_of(&args);
    let line = text.lines().find(|l| l.contains(NONE)).expect(&text);
    assert!(
        line.contains(
            "the cheapest row, 1 (claude idle keep 1 gap 5m, remote_flag), has Δ 0.000000 USD"
        ),
        "{line}"
    );
    assert!(!text.contains("Recommended: row"), "{text}");
}

/// SPEC §9a recommendation: `count … cache-edits` saves the most on the demo
/// but is internal (no public build has it): the recommendation is the first
/// remote-flag row that saves, and the text says it is a what-if; the
/// internal caveat is in the text, not only in the JSON.
#[test]
fn spec_9a_recommendation_never_an_internal_setting() {
    let args = [
        "compare",
        "sample-sessions/claude-demo.jsonl",
        "--policy",
        "idle,count",
        "--keep-recent",
        "1,3",
        "--gap-minutes",
        "60",
        "--trigger",
        "3",
        "-q",
    ];
    let v = json_of(&args);
    let rows = rows(&v);
    assert_eq!(rows[0]["policy"]["kind"], "count");
    assert_eq!(rows[0]["policy"]["delivery"], "cache-edits");
    assert_eq!(rows[0]["availability"], "internal");
    assert_eq!(rows[0]["knob"], Value::Null);
    let rec = v["recommended"].as_u64().unwrap() as usize - 1;
    assert_eq!(rec, 1);
    assert_eq!(rows[rec]["policy"]["kind"], "idle");
    assert_eq!(rows[rec]["availability"], "remote_flag");
    for r in rows {
        let kind = r["policy"]["kind"].as_str().unwrap();
        let want = if kind == "count" {
            "internal"
        } else {
            "remote_flag"
        };
        assert_eq!(r["availability"], want, "{r}");
    }
    let text = text_of(&args);
    assert!(
        text.contains("Recommended: row 2 (claude idle keep 1 gap 60m, remote_flag)"),
        "{text}"
    );
    assert!(
        text.contains("a what-if: Claude Code's settings are remote flags, not yours to set"),
        "{text}"
    );
    assert!(text.contains("caveat claude_cached_internal: "), "{text}");
    assert!(text.contains("caveat claude_idle_flag: "), "{text}");
    // The table says who can set each row.
    let table: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("claude count"))
        .collect();
    assert!(table.iter().all(|l| l.contains("internal")), "{table:?}");
}

/// SPEC §9a, §15.15 same_as: on the demo, whose one long pause is 75.5
/// minutes, gaps 30, 45 and 60 fire at the same request and give identical
/// rows (90 never fires): JSON marks the group, the text prints it once.
#[test]
fn spec_15_15_identical_gaps_are_one_group() {
    let args = [
        "compare",
        "sample-sessions/claude-demo.jsonl",
        "--policy",
        "idle",
        "--keep-recent",
        "1",
        "--gap-minutes",
        "30,45,60,90",
        "-q",
    ];
    let v = json_of(&args);
    let rows = rows(&v);
    let gaps: Vec<f64> = rows
        .iter()
        .map(|r| r["policy"]["gap_threshold_minutes"].as_f64().unwrap())
        .collect();
    let same: Vec<Value> = rows.iter().map(|r| r["same_as"].clone()).collect();
    // 30, 45 and 60 fire at the 75.5-minute pause; 90 never fires.
    assert_eq!(gaps, vec![30.0, 45.0, 60.0, 90.0]);
    assert_eq!(same, vec![json!(null), json!(1), json!(1), json!(null)]);
    let text = text_of(&args);
    let group: Vec<&str> = text.lines().filter(|l| l.contains("identical")).collect();
    assert_eq!(group.len(), 1, "{text}");
    assert!(
        group[0].contains("1–3* ")
            && group[0].contains("claude idle keep 1 gap 30–60 min: identical"),
        "{text}"
    );
    // The group's rows are printed once: two lines for four rows.
    let table: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("claude idle") && !l.starts_with("Recommended"))
        .collect();
    assert_eq!(table.len(), 2, "{text}");
    assert!(table[1].trim_start().starts_with("4 "), "{text}");
}

/// Copies `files` (path under the repository, name in the folder) into a
/// temporary folder.
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (from, to) in files {
        std::fs::copy(root().join(from), dir.path().join(to)).unwrap();
    }
    dir
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// SPEC §15.15: over a folder, a row is `remote_flag` only when it is for
/// every session. The demo (2.1.88) has the client-side idle code, the cut
/// sample (2.1.332) has none, so idle is a what-if over both; idle-server
/// the other way round.
#[test]
fn spec_15_15_one_session_makes_a_folder_row_what_if() {
    let base = [
        "--policy",
        "idle,idle-server",
        "--keep-recent",
        "5",
        "--gap-minutes",
        "60",
        "-q",
    ];
    let avail = |dir: &Path| -> Vec<(String, Value)> {
        let mut a = vec!["compare".to_string(), path(dir)];
        a.extend(base.iter().map(|s| s.to_string()));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let v = json_of(&a);
        let mut out: Vec<(String, Value)> = rows(&v)
            .iter()
            .map(|r| {
                (
                    r["policy"]["kind"].as_str().unwrap().to_string(),
                    r["availability"].clone(),
                )
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    };
    let demo = folder(&[("sample-sessions/claude-demo.jsonl", "demo.jsonl")]);
    assert_eq!(
        avail(demo.path()),
        vec![
            ("idle".into(), json!("remote_flag")),
            ("idle-server".into(), json!("what_if")),
        ]
    );
    let both = folder(&[
        ("sample-sessions/claude-demo.jsonl", "demo.jsonl"),
        ("sample-sessions/claude-cut.jsonl", "cut.jsonl"),
    ]);
    assert_eq!(
        avail(both.path()),
        vec![
            ("idle".into(), json!("what_if")),
            ("idle-server".into(), json!("what_if")),
        ]
    );
    let cut = folder(&[("sample-sessions/claude-cut.jsonl", "cut.jsonl")]);
    assert_eq!(
        avail(cut.path()),
        vec![
            ("idle".into(), json!("what_if")),
            ("idle-server".into(), json!("remote_flag")),
        ]
    );
}

/// SPEC §9a availability, §15.15 knob: a qwen row is the user's, set by
/// `settings.json` keys with the row's values; `count` is a what-if; `forced`
/// (`/compress-fast`) is the user's with no knob. Dollars need a price for
/// Qwen's model: given, the recommendation names the keys to write.
#[test]
fn spec_15_15_qwen_knob_values() {
    let v = json_of(&[
        "compare",
        "sample-sessions/qwen-memory/today.jsonl",
        "--policy",
        "idle,size,count,forced",
        "--keep-recent",
        "1,3",
        "--gap-minutes",
        "30",
        "--size-threshold",
        "2000",
        "--price-input",
        "1",
        "--price-write-5m",
        "1.25",
        "--price-write-1h",
        "2",
        "--price-read",
        "0.1",
        "-q",
    ]);
    let find = |kind: &str, keep: u64| {
        rows(&v)
            .iter()
            .find(|r| r["policy"]["kind"] == kind && r["policy"]["keep_recent"] == keep)
            .unwrap()
            .clone()
    };
    let idle = find("idle", 1);
    assert_eq!(idle["availability"], "user");
    assert_eq!(
        idle["knob"],
        json!({"toolResultsThresholdMinutes": 30, "toolResultsNumToKeep": 1})
    );
    let size = find("size", 3);
    assert_eq!(size["availability"], "user");
    assert_eq!(
        size["knob"],
        json!({"toolResultsNumToKeep": 3, "toolResultsTotalCharsThreshold": 2000})
    );
    assert_eq!(find("count", 3)["availability"], "what_if");
    assert_eq!(find("count", 3)["knob"], Value::Null);
    assert_eq!(find("forced", 1)["availability"], "user");
    assert_eq!(find("forced", 1)["knob"], Value::Null);
    // The recommendation is a user row that fires and saves.
    let rec = &rows(&v)[v["recommended"].as_u64().expect("a recommendation") as usize - 1];
    assert_eq!(rec["availability"], "user");
    assert!(rec["fires"].as_u64().unwrap() > 0);
    assert!(rec["delta_usd"].as_f64().unwrap() < 0.0);
}

/// SPEC §9a, §15.15 same_as: a session whose one long pause is 100 minutes:
/// idle gaps 30, 45, 60 and 90 all fire at the request after it and clear
/// the same results, so their rows are identical — one group, one text line
/// "gap 30–90 min: identical" — and 120 never fires.
#[test]
fn spec_9a_gaps_30_to_90_minutes_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = common::Claude::default();
    c.prompt("read them", 0.0)
        .read("t1", "/repo/a.rs")
        .read("t2", "/repo/b.rs")
        .read("t3", "/repo/c.rs")
        .answer("read")
        .prompt("and now?", 100.0)
        .answer("done");
    let file = c.write(dir.path(), "pause.jsonl");
    let shown = file.to_str().unwrap();
    let mut args = vec![
        "compare",
        shown,
        "--policy",
        "idle",
        "--keep-recent",
        "1",
        "--gap-minutes",
        "30,45,60,90,120",
        "-q",
    ];
    args.extend(PRICES);
    let v = json_of(&args);
    let rows = rows(&v);
    let gaps: Vec<f64> = rows
        .iter()
        .map(|r| r["policy"]["gap_threshold_minutes"].as_f64().unwrap())
        .collect();
    assert_eq!(gaps, vec![30.0, 45.0, 60.0, 90.0, 120.0]);
    assert!(rows[0]["fires"].as_u64().unwrap() > 0);
    assert!(rows[0]["delta_usd"].as_f64().unwrap() < 0.0);
    assert_eq!(rows[4]["fires"], 0);
    let same: Vec<Value> = rows.iter().map(|r| r["same_as"].clone()).collect();
    assert_eq!(
        same,
        vec![json!(null), json!(1), json!(1), json!(1), json!(null)]
    );
    let text = text_of(&args);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("claude idle")).collect();
    assert!(
        lines[0].contains("1–4* ")
            && lines[0].contains("claude idle keep 1 gap 30–90 min: identical"),
        "{text}"
    );
    // Rows 1–3 have no line of their own; row 4 has.
    assert!(lines[1].trim_start().starts_with("5 "), "{text}");
    assert_eq!(v["recommended"], 1);
}

/// SPEC §9a: a recommended row the user cannot set says it is a what-if of
/// the harness's remote flags, naming the harness of the row (Gemini CLI's
/// masking thresholds are its remote flags), not always Claude Code.
#[test]
fn a_remote_flag_recommendation_names_its_own_harness() {
    for (sample, harness) in [
        ("sample-sessions/gemini-build.jsonl", "Gemini CLI"),
        ("sample-sessions/claude-idle-server.jsonl", "Claude Code"),
    ] {
        let mut args = vec!["compare", sample];
        args.extend(PRICES);
        let text = text_of(&args);
        let line = text
            .lines()
            .find(|l| l.starts_with("Recommended: row"))
            .unwrap_or_else(|| panic!("{sample}: no recommendation\n{text}"));
        assert!(
            line.contains("remote_flag")
                && line.ends_with(&format!(
                    "This is a what-if: {harness}'s settings are remote flags, not yours to set."
                )),
            "{line}"
        );
    }
}

/// A price for every token kind (USD per million), so that every row has dollars.
const PRICES: [&str; 8] = [
    "--price-input",
    "3",
    "--price-write-5m",
    "3.75",
    "--price-write-1h",
    "6",
    "--price-read",
    "0.3",
];
