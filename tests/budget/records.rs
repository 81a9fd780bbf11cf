//! The recorded budget boundaries, read with serde_json, reproduced by `plan --policy budget`.

use super::*;

/// A budget-writer `microcompact_boundary` read with serde_json alone, and the request
/// it changed: the one whose response comes right after it (responses are counted as
/// distinct `message.id`s of main-thread assistant records, in file order).
struct Record {
    request: usize,
    pre_tokens: u64,
    tokens_saved: u64,
    ids: Vec<String>,
}

fn budget_records(path: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut responses = 0;
    let mut last_id: Option<String> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v["isSidechain"] == true {
            continue;
        }
        if v["type"] == "assistant" {
            let id = v["message"]["id"].as_str().map(str::to_string);
            if id.is_none() || id != last_id {
                responses += 1;
            }
            last_id = id;
        }
        let md = &v["microcompactMetadata"];
        if v["subtype"] == "microcompact_boundary" && md["preTokens"].as_u64().unwrap_or(0) > 0 {
            out.push(Record {
                request: responses + 1,
                pre_tokens: md["preTokens"].as_u64().unwrap(),
                tokens_saved: md["tokensSaved"].as_u64().unwrap(),
                ids: strs(&md["compactedToolIds"]),
            });
        }
    }
    out
}

/// `plan --policy budget --at K` reproduces the record id for id, in order.
fn check_reproduced(path: &str, r: &Record) -> Value {
    let k = r.request.to_string();
    let p = json(&[
        "plan", path, "--policy", "budget", "--at", &k, "--format", "json",
    ]);
    assert_eq!(p["fired"], true, "{path} at {k}: {}", p["note"]);
    assert_eq!(p["trigger"], "budget");
    assert_eq!(newly_cleared(&p), r.ids, "{path} at {k}");
    p
}

#[test]
fn sample_record_is_reproduced_by_plan_budget() {
    let recs = budget_records(&Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE));
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    // The script's figures, by hand: six results of 22,000 / 24,000 / 16,000 (an error) /
    // 26,000 / 20,000 / 14,000 tokens = 122,000; keep the last 3; clearing the first three
    // leaves 60,000 (still > 40,000, but the rest is the keep window): 62,000 saved.
    assert_eq!(
        (r.request, r.pre_tokens, r.tokens_saved),
        (7, 122_000, 62_000)
    );
    let p = check_reproduced(SAMPLE, r);
    assert_eq!(p["metadata"]["pre_tokens"], r.pre_tokens);
    assert_eq!(p["metadata"]["tokens_saved"], r.tokens_saved);
    assert_eq!(p["request"]["version"], "2.1.17");
    assert_eq!(p["request"]["silent"], false, "a tool-loop request");
    assert_eq!(p["policy"]["kind"], "budget");
    assert_eq!(p["policy"]["keep_recent"], 3, "budget's own default");
    assert_eq!(p["policy"]["budget_tokens"], 40_000);
    assert_eq!(p["policy"]["budget_min_saving"], 20_000);
    assert_eq!(
        p["policy"]["budget_warning_tokens"],
        Value::Null,
        "by version"
    );
    assert_eq!(caveat_ids(&p), ["claude_budget_kill_switch"]);
    // The error result (the race-detector run) is cleared like any other.
    let err = p["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["is_error"] == true)
        .unwrap();
    assert_eq!(err["status"], "cleared");
    let reason = p["candidates"][0]["reason"].as_str().unwrap();
    assert_eq!(
        reason,
        "budget: usage 138,439 ≥ 135,000; 122,000 tokens of results > 40,000; rank 1 of 6, not in last 3"
    );
    // auto picks budget on a 2.1.17 session, with the same outcome.
    let a = json(&["plan", SAMPLE, "--at", "7", "--format", "json"]);
    assert_eq!(a["policy"]["kind"], "auto");
    assert_eq!(a["trigger"], "budget");
    assert_eq!(
        a["policy"]["keep_recent"], 3,
        "the default of the kind auto chose"
    );
    assert_eq!(newly_cleared(&a), r.ids);
}

#[test]
fn sample_timeline_fires_once_and_the_clearing_outlives_the_turn() {
    let t = json(&["timeline", SAMPLE, "--policy", "budget", "--format", "json"]);
    let rows = t["requests"].as_array().unwrap();
    let fired: Vec<u64> = rows
        .iter()
        .filter(|r| r["fired"] == true)
        .map(|r| r["index"].as_u64().unwrap())
        .collect();
    assert_eq!(fired, [7], "usage 118,368 at request 6 is under the gate");
    assert!(
        rows[5]["note"]
            .as_str()
            .unwrap()
            .contains("118,368 < 135,000")
    );
    let ids = strs(&rows[6]["newly_cleared"]);
    // Request 8 begins a turn (idle clearings would lapse there): budget's stay, to the end.
    assert_eq!(rows[7]["begins_turn"], true);
    for r in &rows[7..] {
        assert_eq!(strs(&r["cleared"]), ids, "request {}", r["index"]);
        assert_eq!(r["silent"], false);
    }
    assert_eq!(t["policy"]["keep_recent"], 3);
    assert_eq!(caveat_ids(&t), ["claude_budget_kill_switch"]);
    assert!(rows.iter().all(|r| r["version"] == "2.1.17"));
    // The wire of request 10 still carries the placeholder for the first cleared result.
    let (code, wire, _) = mcscope(&["wire", SAMPLE, "--policy", "budget", "--at", "10"]);
    assert_eq!(code, 0);
    assert_eq!(
        wire.matches("[Old tool result content cleared]").count(),
        3,
        "three results replaced"
    );
}

/// The real record at line 343 of a Claude Code 2.1.17 session (SPEC §10's example).
#[test]
fn corpus_record_is_reproduced_by_plan_budget() {
    let Some(path) = corpus::file("claude-code/entireio__cli__38-ecf75f2f1d-0-full.jsonl") else {
        return;
    };
    let recs = budget_records(&path);
    assert_eq!(recs.len(), 1, "one budget record in this session");
    let r = &recs[0];
    assert_eq!(r.ids.len(), 7);
    let p = check_reproduced(path.to_str().unwrap(), r);
    // The token figures agree too (est_tokens of the recorded contents).
    assert_eq!(p["metadata"]["pre_tokens"], r.pre_tokens);
    assert_eq!(p["metadata"]["tokens_saved"], r.tokens_saved);
    assert!(
        p["candidates"][1]["reason"]
            .as_str()
            .unwrap()
            .starts_with("budget: usage 135,887 ≥ 135,000; 65,398 tokens of results > 40,000;")
    );
    // It fires nowhere else in the session (the compaction later resets the memory).
    let t = json(&[
        "timeline",
        path.to_str().unwrap(),
        "--policy",
        "budget",
        "--format",
        "json",
    ]);
    let fired: Vec<usize> = t["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["fired"] == true)
        .map(|x| x["index"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(fired, [r.request]);
}

/// SPEC §9a per request, §9 `sim_ctx`: under `--policy budget` the sample's
/// record at request 7 (three ids, 62,000 estimated tokens) is in force from 7
/// on, so `sim_ctx` = P(k) + 62,000 − in_wire_tokens = P(k): request 7's is
/// its recorded 92,363. `hit_rate` = R(k) / P(k), four decimals.
#[test]
fn t9a_timeline_carries_recorded_cleared_and_sim_ctx() {
    let t = json(&["timeline", SAMPLE, "--policy", "budget", "--format", "json"]);
    let rows = t["requests"].as_array().unwrap();
    let r7 = &rows[6];
    assert_eq!(r7["index"], json!(7));
    let record = &budget_records(Path::new(SAMPLE))[0];
    assert_eq!(strs(&r7["recorded_cleared"]), record.ids);
    assert_eq!(r7["recorded_cleared_tokens"], json!(62_000));
    assert_eq!(r7["in_wire_tokens"], json!(62_000));
    let u = &r7["evidence"]["usage"];
    let p = u["input"].as_u64().unwrap()
        + u["cache_write"].as_u64().unwrap()
        + u["cache_read"].as_u64().unwrap();
    assert_eq!(p, 92_363);
    assert_eq!(r7["sim_ctx"], json!(92_363));
    let hit = (u["cache_read"].as_u64().unwrap() as f64 / p as f64 * 1e4).round() / 1e4;
    assert_eq!(r7["hit_rate"], json!(hit));
    // Before the record nothing is recorded as cleared, and sim_ctx is P(k).
    assert_eq!(rows[5]["recorded_cleared"], json!([]));
    assert_eq!(rows[5]["recorded_cleared_tokens"], json!(0));
    // Under a setting that clears nothing, the harness's clearing is added back:
    // sim_ctx = P(7) + 62,000, the context the session would have had.
    let t = json(&[
        "timeline",
        SAMPLE,
        "--policy",
        "size",
        "--size-threshold",
        "-1",
        "--format",
        "json",
    ]);
    let r7 = &t["requests"][6];
    assert_eq!(r7["in_wire_tokens"], json!(0));
    assert_eq!(r7["sim_ctx"], json!(92_363 + 62_000));
}
