//! `mcscope evidence` on the real transcripts in `shared/corpus/` (SPEC §10).
//!
//! For every corpus file the usage records and the observed cache breaks are counted a
//! second time here, by a plain `serde_json::Value` walk of the file that uses no
//! mcscope code — §2's grouping of lines into responses and §10's formula only — and
//! compared with what the `mcscope evidence --format json` binary prints.
//!
//! The corpus is found at `$MCSCOPE_CORPUS`, else at `<CARGO_MANIFEST_DIR>/../shared/corpus`.
//! When it is absent the test prints a note and passes, unless `MCSCOPE_REQUIRE_CORPUS=1`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/corpus.rs"]
mod corpus;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus_dir() -> Option<PathBuf> {
    corpus::dir()
}

fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.expect("directory entry").path())
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// One response's usage as §10 reads it.
#[derive(Debug, Clone, Copy)]
struct Read {
    /// R, and what the next response may expect: R + W (claude) or R (qwen).
    read: u64,
    expected_next: u64,
    aggregated: bool,
}

/// What the walk finds: per response (1-based request index), its usage (None:
/// none recorded, or `<synthetic>`), and the breaks as (index, expected, observed).
#[derive(Debug, Default, PartialEq)]
struct Walk {
    usage_records: Vec<usize>,
    breaks: Vec<(usize, u64, u64)>,
}

fn num(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// The responses of a transcript in file order, each with the usage of the last of
/// its lines that has one. Claude: main-thread assistant lines sharing `message.id`
/// with the response before them are one response (a compact_boundary ends that);
/// qwen: every main-thread `assistant` record is one.
fn responses(path: &Path, qwen: bool) -> Vec<Option<Read>> {
    let text = std::fs::read(path).unwrap();
    let mut out: Vec<Option<Read>> = Vec::new();
    let mut main_is_sidechain: Option<bool> = None;
    let mut last_id: Option<String> = None;
    for line in text.split(|&b| b == b'\n') {
        let Ok(rec) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let kind = rec.get("type").and_then(Value::as_str).unwrap_or("");
        let sidechain = rec.get("isSidechain") == Some(&Value::Bool(true));
        let message_kinds: &[&str] = if qwen {
            &["user", "tool_result", "assistant"]
        } else {
            &["user", "assistant"]
        };
        if message_kinds.contains(&kind) && main_is_sidechain.is_none() {
            main_is_sidechain = Some(sidechain);
        }
        if sidechain != main_is_sidechain.unwrap_or(false) {
            continue;
        }
        if kind == "system"
            && rec.get("subtype").and_then(Value::as_str) == Some("compact_boundary")
        {
            last_id = None;
            continue;
        }
        if kind != "assistant" || !rec.get("message").is_some_and(Value::is_object) {
            continue;
        }
        if qwen {
            let read = rec.get("usageMetadata").filter(|u| u.is_object()).map(|u| {
                let r = num(u, "cachedContentTokenCount");
                Read {
                    read: r,
                    expected_next: r,
                    aggregated: false,
                }
            });
            out.push(read);
            continue;
        }
        let msg = &rec["message"];
        let id = msg.get("id").and_then(Value::as_str).map(str::to_string);
        let continues = id.is_some() && id == last_id;
        if !continues {
            out.push(None);
        }
        last_id = id;
        let synthetic = msg.get("model").and_then(Value::as_str) == Some("<synthetic>");
        if let Some(u) = msg.get("usage").filter(|u| u.is_object()) {
            let slot = out.last_mut().unwrap();
            if synthetic {
                *slot = None;
                continue;
            }
            let r = num(u, "cache_read_input_tokens");
            let w = num(u, "cache_creation_input_tokens");
            let aggregated = u
                .get("server_tool_use")
                .and_then(Value::as_object)
                .is_some_and(|m| m.values().any(|v| v.as_f64().is_some_and(|n| n > 0.0)));
            *slot = Some(Read {
                read: r,
                expected_next: r + w,
                aggregated,
            });
        }
    }
    out
}

/// §10: k − 1 is the previous response with usage that is not aggregated; a break
/// when R(k) < 0.95·E and E − R(k) ≥ 2000.
fn walk(path: &Path, qwen: bool) -> Walk {
    let mut w = Walk::default();
    let mut prev: Option<u64> = None;
    for (i, r) in responses(path, qwen).into_iter().enumerate() {
        let Some(r) = r else { continue };
        w.usage_records.push(i + 1);
        if r.aggregated {
            continue;
        }
        if let Some(e) = prev
            && (r.read as f64) < 0.95 * e as f64
            && e.saturating_sub(r.read) >= 2000
        {
            w.breaks.push((i + 1, e, r.read));
        }
        prev = Some(r.expected_next);
    }
    w
}

fn mcscope_evidence(path: &Path) -> Walk {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(["evidence", "--format", "json"])
        .arg(path)
        .output()
        .expect("run mcscope");
    assert!(
        out.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "mcscope.evidence/1");
    let mut w = Walk::default();
    for r in v["requests"].as_array().unwrap() {
        let k = r["index"].as_u64().unwrap() as usize;
        if !r["usage"].is_null() {
            w.usage_records.push(k);
        }
        let b = &r["observed_break"];
        if !b.is_null() {
            let (e, o) = (
                b["expected"].as_u64().unwrap(),
                b["observed"].as_u64().unwrap(),
            );
            assert_eq!(b["drop"].as_u64().unwrap(), e - o);
            assert!(!b["explanations"].as_array().unwrap().is_empty());
            w.breaks.push((k, e, o));
        }
    }
    w
}

#[test]
fn usage_records_and_observed_breaks_match_an_independent_walk() {
    let Some(dir) = corpus_dir() else { return };
    let mut files = 0;
    let mut total_breaks = 0;
    for (sub, qwen) in [("claude-code", false), ("qwen-code", true)] {
        for path in jsonl_files(&dir.join(sub)) {
            let expected = walk(&path, qwen);
            let got = mcscope_evidence(&path);
            assert_eq!(got, expected, "{}", path.display());
            files += 1;
            total_breaks += expected.breaks.len();
        }
    }
    assert!(files >= 20, "only {files} corpus files");
    // The corpus has real breaks (entireio's at the budget record, request 48).
    assert!(total_breaks > 0);
}

/// The one real budget record in the corpus: line 343 of entireio__cli__38, written
/// before request 48, whose first record is its child; it explains the break there.
#[test]
fn the_real_budget_record_attaches_to_request_48() {
    let Some(dir) = corpus_dir() else { return };
    let path = dir.join("claude-code/entireio__cli__38-ecf75f2f1d-0-full.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(["evidence", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let r48 = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["index"] == 48)
        .expect("request 48");
    let mc = &r48["microcompact"];
    assert_eq!(mc["writer"], "budget");
    assert_eq!(mc["pre_tokens"], 65398);
    assert_eq!(mc["tokens_saved"], 45149);
    assert_eq!(mc["compacted_tool_ids"].as_array().unwrap().len(), 7);
    assert_eq!(
        mc["compacted_tool_ids"][0],
        "toolu_01Fj8LHRfhQzYgx2JqnZRRdo"
    );
    // auto runs budget on 2.1.17: the simulated rewrite explains the break too,
    // and the record agrees with the budget plan id for id. SPEC §10: the budget
    // writer's record is `harness_rewrite` (it rewrote results), not cache_edits.
    assert_eq!(
        r48["observed_break"]["explanations"],
        serde_json::json!(["plan_rewrite", "harness_rewrite"])
    );
    assert_eq!(mc["agrees"], true);
    assert_eq!(mc["missing"], serde_json::json!([]));
    assert_eq!(mc["extra"], serde_json::json!([]));
    assert_eq!(
        v["warnings"],
        serde_json::json!([]),
        "its parentUuid checks out"
    );
    assert_eq!(v["counts"]["boundaries"], 1);
}
