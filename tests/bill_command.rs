//! `mcscope bill` through the real binary (SPEC §16.R): the worked example's
//! text, the JSON's sums, the NDJSON rows in DuckDB, the empty window, colour,
//! unpriced models and the reports by day, month, block and project.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/corpus.rs"]
mod corpus;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// (exit code, stdout, stderr) of `mcscope ARGS` with no config file.
fn mcscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(root())
        .env(
            "MCSCOPE_CONFIG",
            root().join("target/no-config-for-bill-tests.toml"),
        )
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .output()
        .expect("run mcscope");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> Value {
    let (code, out, err) = mcscope(args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"))
}

const EXAMPLE: &str = "claude-code/entireio__cli__38-ecf75f2f1d-0-full.jsonl";

/// SPEC §16.R's text on `entireio__cli__38`, as §18.24 reads it: the project
/// is the cwd's last component, "(W < D)" marks every such break, "1 break".
#[test]
fn r_the_worked_example_s_text_line_for_line() {
    let Some(path) = corpus::file(EXAMPLE) else {
        return;
    };
    let (code, out, _) = mcscope(&[
        "bill",
        path.to_str().unwrap(),
        "--by",
        "session",
        "-z",
        "UTC",
    ]);
    assert_eq!(code, 0);
    let want = "\
session 4a364c97 (cli, 2026-02-14 21:28 UTC, 142 responses, claude-opus-4-5, Claude Code 2.1.17)
recorded: $12.18 · hit rate 96.7 % · cache writes 495,580 tokens = $4.96 (1h: 495,580)
  growth        225,519  $2.26  45.5 %
  unexplained   167,962  $1.68  33.9 %   2 breaks (req 56, 86), fell to the 18,576-token floor
  clearing       58,479  $0.58  11.8 %   1 break (req 48 (W < D), microcompact_boundary line 343)
  first          27,979  $0.28   5.6 %
  compaction     12,781  $0.13   2.6 %   1 break (req 116 (W < D))
  drift           2,860  $0.03   0.6 %
levers: DISABLE_MICROCOMPACT would have saved ≈ $0.56 of re-writes (Claude Code ≤ 2.1.63)
";
    assert_eq!(out, want);
}

/// SPEC §16.R's example row and causes, number for number, in the JSON.
#[test]
fn r_the_worked_example_s_json_row() {
    let Some(path) = corpus::file(EXAMPLE) else {
        return;
    };
    let v = json(&["bill", path.to_str().unwrap(), "--by", "session", "-j"]);
    assert_eq!(v["schema"], "mcscope.bill/1");
    let row = &v["rows"][0];
    assert_eq!(row["responses"], 142);
    assert_eq!(row["cache_write_1h"], 495_580);
    assert_eq!(row["cache_write_usd"], 4.9558);
    let c = &row["cache_write_causes"];
    let want = [
        ("growth", 225_519, 2.25519, 0),
        ("unexplained", 167_962, 1.67962, 2),
        ("clearing", 58_479, 0.58479, 1),
        ("first", 27_979, 0.27979, 1),
        ("compaction", 12_781, 0.12781, 1),
        ("drift", 2_860, 0.0286, 0),
        ("ttl", 0, 0.0, 0),
        ("resume", 0, 0.0, 0),
    ];
    for (cause, tokens, usd, events) in want {
        assert_eq!(c[cause]["tokens_1h"], tokens, "{cause}");
        assert_eq!(c[cause]["usd"], usd, "{cause}");
        assert_eq!(c[cause]["events"], events, "{cause}");
    }
    let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "first",
            "growth",
            "drift",
            "compaction",
            "ttl",
            "resume",
            "model_switch",
            "clearing",
            "tools_changed",
            "unexplained",
            "subagent"
        ]
    );
    let breaks: Vec<(u64, &str, u64)> = row["breaks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["request"].as_u64().unwrap(),
                b["cause"].as_str().unwrap(),
                b["rewritten"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        breaks,
        [
            (48, "clearing", 58_479),
            (56, "unexplained", 62_876),
            (86, "unexplained", 105_086),
            (116, "compaction", 12_781)
        ]
    );
    assert_eq!(row["breaks"][0]["usd"], 0.58479);
    // §16.L: DISABLE_MICROCOMPACT's saving is the re-write against a warm read
    // (58,479 × ($10 − $0.50) / 1M); levers of behaviour apply with 0.
    assert_eq!(row["levers"]["avoid_clearing"], 0.555551);
    assert_eq!(row["levers"]["avoid_ttl"], 0.0);
    assert_eq!(row["levers"]["ttl_1h_net"], Value::Null);
    assert_eq!(row["avoidable_usd"], 0.555551);
    assert_eq!(row["unexplained_share"], 0.3389);
}

/// BL3 on every report of the samples and the corpus: the causes sum to the
/// writes per row and in the totals, and the rows to the totals.
#[test]
fn bl3_causes_sum_to_the_writes_and_rows_to_the_totals() {
    let mut dirs = vec![root().join("sample-sessions")];
    if let Some(c) = corpus::dir() {
        dirs.push(c.join("claude-code"));
        dirs.push(c.join("opencode"));
        dirs.push(c.join("qwen-code"));
    }
    for dir in dirs {
        for by in ["day", "month", "session", "project", "block"] {
            let v = json(&["bill", dir.to_str().unwrap(), "--by", by, "-j", "-q"]);
            let sum = |row: &Value, part: &str| -> u64 {
                row["cache_write_causes"]
                    .as_object()
                    .unwrap()
                    .values()
                    .map(|c| c[part].as_u64().unwrap())
                    .sum()
            };
            let mut rows_w = (0, 0, 0);
            for row in v["rows"].as_array().unwrap().iter().chain([&v["totals"]]) {
                assert_eq!(
                    sum(row, "tokens_5m"),
                    row["cache_write_5m"].as_u64().unwrap(),
                    "{} {by}",
                    dir.display()
                );
                assert_eq!(
                    sum(row, "tokens_1h"),
                    row["cache_write_1h"].as_u64().unwrap(),
                    "{} {by}",
                    dir.display()
                );
            }
            for row in v["rows"].as_array().unwrap() {
                rows_w.0 += row["cache_write_5m"].as_u64().unwrap();
                rows_w.1 += row["cache_write_1h"].as_u64().unwrap();
                rows_w.2 += row["responses"].as_u64().unwrap();
            }
            let t = &v["totals"];
            assert_eq!(
                rows_w,
                (
                    t["cache_write_5m"].as_u64().unwrap(),
                    t["cache_write_1h"].as_u64().unwrap(),
                    t["responses"].as_u64().unwrap()
                ),
                "{} {by}",
                dir.display()
            );
        }
    }
}

/// `--rows`: every line's cause and growth make its writes; the lines are the
/// JSON's responses.
#[test]
fn rows_are_one_flat_line_per_response() {
    let (code, out, _) = mcscope(&["bill", "sample-sessions", "--rows", "-q"]);
    assert_eq!(code, 0);
    let v = json(&["bill", "sample-sessions", "-j", "-q"]);
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.len() as u64,
        v["totals"]["responses"].as_u64().unwrap()
    );
    for l in &lines {
        assert_eq!(l["schema"], "mcscope.bill_row/1");
        for part in ["5m", "1h"] {
            let c = l[format!("cause_tokens_{part}")].as_u64().unwrap();
            let g = l[format!("growth_tokens_{part}")].as_u64().unwrap();
            assert_eq!(
                c + g,
                l[format!("cache_write_{part}")].as_u64().unwrap(),
                "{l}"
            );
        }
        if l["cause"] == "growth" {
            assert_eq!(
                (l["cause_tokens_5m"].as_u64(), l["cause_tokens_1h"].as_u64()),
                (Some(0), Some(0))
            );
        }
        // Flat: no value is an object.
        assert!(
            l.as_object().unwrap().values().all(|x| !x.is_object()),
            "{l}"
        );
    }
}

/// docs/bill.md's DuckDB query over the rows gives the JSON's causes. Skips
/// with a note where DuckDB's Python package is not installed.
#[test]
fn rows_load_into_duckdb_as_the_docs_show() {
    let has = Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        eprintln!("note: python3's duckdb package is not installed (pip install duckdb); skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let rows_dir = dir.path().join("rows");
    std::fs::create_dir(&rows_dir).unwrap();
    let (code, out, _) = mcscope(&["bill", "sample-sessions", "--rows", "-q"]);
    assert_eq!(code, 0);
    std::fs::write(rows_dir.join("me.ndjson"), out).unwrap();
    // The query of docs/bill.md, summed over the days.
    let doc = std::fs::read_to_string(root().join("docs/bill.md")).unwrap();
    let query = doc
        .split("duckdb <<'SQL'\n")
        .nth(1)
        .and_then(|q| q.split("\nSQL\n").next())
        .expect("docs/bill.md shows a duckdb query");
    let script = format!(
        "import duckdb, json\nrows = duckdb.sql({query:?}).fetchall()\nout = {{}}\nfor day, cause, tokens, usd in rows:\n    out[cause] = out.get(cause, 0) + int(tokens)\nprint(json.dumps(out))\n"
    );
    let run = Command::new("python3")
        .args(["-c", &script])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let got: Value = serde_json::from_slice(&run.stdout).unwrap();
    let v = json(&["bill", "sample-sessions", "-j", "-q"]);
    for (cause, c) in v["totals"]["cache_write_causes"].as_object().unwrap() {
        let want = c["tokens_5m"].as_u64().unwrap() + c["tokens_1h"].as_u64().unwrap();
        assert_eq!(got[cause].as_u64().unwrap_or(0), want, "{cause}");
    }
}

/// §18.24: a date window with no response prints one line on stderr and no
/// table; the JSON keeps `rows: []`.
#[test]
fn an_empty_window_is_one_line_and_no_table() {
    let (code, out, err) = mcscope(&["bill", "sample-sessions", "--since", "2099-01-01"]);
    assert_eq!((code, out.as_str()), (0, ""));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no response with recorded usage"), "{err}");
    let v = json(&["bill", "sample-sessions", "--since", "2099-01-01", "-j"]);
    assert_eq!(v["rows"], serde_json::json!([]));
    assert_eq!(v["since"], "2099-01-01");
}

/// `--since`/`--until` pick responses by their own day (BL1).
#[test]
fn bl1_the_window_picks_responses_by_their_day() {
    let all = json(&["bill", "sample-sessions", "-j", "-q", "-z", "UTC"]);
    let rows = all["rows"].as_array().unwrap();
    assert!(rows.len() >= 2, "the samples span several days");
    let day = rows[1]["key"].as_str().unwrap();
    let one = json(&[
        "bill",
        "sample-sessions",
        "-j",
        "-q",
        "-z",
        "UTC",
        "--since",
        day,
        "--until",
        day,
    ]);
    assert_eq!(one["rows"].as_array().unwrap().len(), 1);
    assert_eq!(one["rows"][0], rows[1]);
}

/// Colour marks the causes only where colour is on (SPEC §7a's rule).
#[test]
fn colour_is_on_only_where_asked() {
    let (_, plain, _) = mcscope(&["bill", "sample-sessions", "-q"]);
    assert!(!plain.contains('\x1b'));
    let (_, coloured, _) = mcscope(&["bill", "sample-sessions", "-q", "--color", "always"]);
    assert!(coloured.contains("\x1b["), "{coloured}");
    let forced = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(["bill", "sample-sessions", "-q"])
        .current_dir(root())
        .env("FORCE_COLOR", "1")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&forced.stdout).contains("\x1b["));
}

/// BL5 and §18.5: an unpriced model's tokens count, its dollars do not, the
/// others' dollars stay, and the text names it.
#[test]
fn bl5_an_unpriced_model_never_blanks_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("sample-sessions/claude-demo.jsonl")).unwrap();
    let model =
        serde_json::from_str::<Value>(text.lines().find(|l| l.contains("\"assistant\"")).unwrap())
            .unwrap()["message"]["model"]
            .as_str()
            .unwrap()
            .to_string();
    std::fs::write(dir.path().join("a.jsonl"), &text).unwrap();
    // Another session (its responses are new: a repeated one is billed once).
    let renamed = text
        .replace(&model, "mystery-model-9")
        .replace("\"sessionId\":\"", "\"sessionId\":\"x")
        .replace("\"requestId\":\"", "\"requestId\":\"x");
    std::fs::write(dir.path().join("b.jsonl"), renamed).unwrap();
    let d = dir.path().to_str().unwrap();
    let v = json(&["bill", d, "-j", "-q"]);
    let t = &v["totals"];
    assert!(t["usd"].as_f64().unwrap() > 0.0);
    assert_eq!(
        t["unpriced"]["models"],
        serde_json::json!(["mystery-model-9"])
    );
    assert!(t["unpriced"]["responses"].as_u64().unwrap() > 0);
    let (_, out, _) = mcscope(&["bill", d, "-q"]);
    assert!(
        out.contains("unpriced (give --price-* or a [prices] row)"),
        "{out}"
    );
    assert!(out.contains("mystery-model-9"), "{out}");
}

/// `-b` adds one line per model under each row; `--by block` keys are the
/// block's start on the hour, UTC; `--by project` the cwd's last component.
#[test]
fn breakdown_blocks_and_projects() {
    let (_, out, _) = mcscope(&["bill", "sample-sessions", "-q", "-b", "--by", "month"]);
    assert!(
        out.lines()
            .any(|l| l.starts_with("    ") && l.contains(" responses, input ")),
        "{out}"
    );
    let v = json(&["bill", "sample-sessions", "-j", "-q", "--by", "block"]);
    for row in v["rows"].as_array().unwrap() {
        let k = row["key"].as_str().unwrap();
        assert!(k.ends_with(":00:00Z") && k.len() == 20, "{k}");
    }
    let v = json(&["bill", "sample-sessions", "-j", "-q", "--by", "project"]);
    assert!(
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| !r["key"].as_str().unwrap().contains('/'))
    );
}

/// The bill of one file that does not load is an error naming it, exit ≠ 0.
#[test]
fn a_file_that_does_not_load_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let p: &Path = &dir.path().join("x.jsonl");
    std::fs::write(p, "not json\n").unwrap();
    let (code, _, err) = mcscope(&["bill", p.to_str().unwrap()]);
    assert_ne!(code, 0, "{err}");
}

/// SPEC §16.I, §18.8 on real transcripts: Claude Code 2.1.38's budget plan
/// would have cleared 33 results at request 87 of marot/spotter and the file
/// holds no microcompact_boundary: it did not run, so auto plans nothing and
/// says why, while `--policy budget` shows the what-if; entireio's 2.1.17
/// session records its boundaries: it ran.
#[test]
fn i_a_budget_plan_without_its_records_did_not_run() {
    let Some(spotter) =
        corpus::file("claude-code/marot__spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    else {
        return;
    };
    let f = spotter.to_str().unwrap();
    let e = json(&["evidence", f, "--format", "json"]);
    assert_eq!(
        e["session"]["ran"],
        serde_json::json!({"budget": false, "idle-server": null})
    );
    assert_eq!(
        e["session"]["ran_because"],
        serde_json::json!({"budget": "no_record_where_it_would_clear", "idle-server": "never_fired"})
    );
    let t = json(&["timeline", f, "--format", "json"]);
    let reqs = t["requests"].as_array().unwrap();
    assert!(
        reqs.iter()
            .all(|r| r["plan_kind"].is_null() && r["fired"] == false)
    );
    assert_eq!(reqs[86]["harness_could_run_reason"], "did_not_run");
    let caveat = t["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "plan_did_not_run")
        .expect("the caveat");
    assert!(
        caveat["text"].as_str().unwrap().contains(
            "would have cleared 33 results at request 87 and no microcompact_boundary was written"
        ),
        "{caveat}"
    );
    let what_if = json(&["timeline", f, "--format", "json", "--policy", "budget"]);
    assert_eq!(what_if["requests"][86]["fired"], true);
    // §16.L: DISABLE_MICROCOMPACT is a lever only where the plan ran.
    let bill = json(&["bill", f, "--by", "session", "-j"]);
    assert_eq!(bill["rows"][0]["levers"]["avoid_clearing"], Value::Null);
    let Some(entire) = corpus::file(EXAMPLE) else {
        return;
    };
    let e = json(&["evidence", entire.to_str().unwrap(), "--format", "json"]);
    assert_eq!(e["session"]["ran"]["budget"], true);
    assert_eq!(e["session"]["ran_because"]["budget"], "record");
}

/// SPEC §16 item 3: the explain page names the levers where they apply — the
/// switch of the plan that cleared the result, in the versions that read it,
/// and the session's levers against its cache writes; a what-if names none.
#[test]
fn l_the_explain_page_names_the_levers_where_they_apply() {
    let plan = json(&[
        "plan",
        "sample-sessions/claude-budget.jsonl",
        "--at",
        "7",
        "--format",
        "json",
    ]);
    let id = plan["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["status"] == "cleared")
        .unwrap()["tool_use_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, md, _) = mcscope(&[
        "explain",
        "sample-sessions/claude-budget.jsonl",
        &id,
        "--format",
        "md",
    ]);
    assert_eq!(code, 0);
    let section = md.split("## What you can change").nth(1).unwrap();
    let section = section.split("## ").next().unwrap();
    assert!(
        section.contains("`DISABLE_MICROCOMPACT=1` in the shell turns the budget plan off"),
        "{section}"
    );
    assert!(
        section.contains("\\(Claude Code 2.0.0–2.1.63\\)"),
        "{section}"
    );
    assert!(section.contains("≈ \\$0.59 of re-writes"), "{section}");
    let (_, html, _) = mcscope(&[
        "explain",
        "sample-sessions/claude-budget.jsonl",
        &id,
        "--format",
        "html",
    ]);
    assert!(html.contains("<ul id=\"levers\">"), "{html}");
    // The demo's idle plan is a remote flag's what-if: no switch, only the
    // session's own lever (its ttl break).
    let (_, md, _) = mcscope(&[
        "explain",
        "sample-sessions/claude-demo.jsonl",
        "toolu_A",
        "--format",
        "md",
    ]);
    let section = md.split("## What you can change").nth(1).unwrap();
    assert!(!section.contains("turns the"), "{section}");
    assert!(
        section.contains("keeping the idle gap under the cache's TTL"),
        "{section}"
    );
}
