//! The bundled sample sessions give exactly the outcomes the README promises, through
//! the real binary, in JSON and in text.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::Value;
use std::process::Command;

fn mcscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json(args: &[&str]) -> Value {
    let (code, out, err) = mcscope(args);
    assert_eq!(code, 0, "mcscope {args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect()
}

const DEMO: &str = "sample-sessions/claude-demo.jsonl";
const MEMORY: &str = "sample-sessions/qwen-memory/session.jsonl";
const SIZE: &str = "sample-sessions/claude-size.jsonl";

#[test]
fn demo_count_plan_deletes_a_and_b_through_cache_edits() {
    let p = json(&["plan", DEMO, "--policy", "count", "--format", "json"]);
    assert_eq!(p["schema"], "mcscope.plan/1");
    assert_eq!(p["policy"]["keep_recent"], 2, "from the sidecar");
    assert_eq!(p["policy"]["trigger_threshold"], 3, "from the sidecar");
    assert_eq!(p["policy"]["delivery"], "cache-edits");
    assert_eq!(strings(&p["cleared"]), ["toolu_A", "toolu_B"]);
    assert_eq!(strings(&p["kept"]), ["toolu_C", "toolu_D"]);
    assert_eq!(strings(&p["protected"]), Vec::<&str>::new());
    // The deletion happened at the request that first sent D's result.
    let t = json(&["timeline", DEMO, "--policy", "count", "--format", "json"]);
    let fired: Vec<&Value> = t["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["fired"] == true)
        .collect();
    assert_eq!(fired.len(), 1);
    assert_eq!(strings(&fired[0]["newly_cleared"]), ["toolu_A", "toolu_B"]);
    let at = fired[0]["index"].as_u64().unwrap();
    let first_d = json(&[
        "plan",
        DEMO,
        "--policy",
        "count",
        "--at",
        &at.to_string(),
        "--format",
        "json",
    ]);
    let d = first_d["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool_use_id"] == "toolu_D")
        .unwrap();
    assert_eq!(
        d["pending"], true,
        "request {at} is the first to send D's result"
    );
    assert_eq!(
        strings(&first_d["metadata"]["cache"]["cache_edits_deleted"]),
        ["toolu_A", "toolu_B"]
    );
}

fn blocks(body: &Value) -> Vec<(usize, Value)> {
    let mut out = Vec::new();
    for (i, m) in body["messages"].as_array().unwrap().iter().enumerate() {
        if let Some(a) = m["content"].as_array() {
            out.extend(a.iter().map(|b| (i, b.clone())));
        }
    }
    out
}

#[test]
fn demo_count_wire_pins_one_cache_edits_block_and_references_earlier_results() {
    let wire = json(&["wire", DEMO, "--policy", "count"]);
    let local = json(&["wire", DEMO, "--policy", "count", "--side", "local"]);
    let all = blocks(&wire);
    let edits: Vec<&(usize, Value)> = all
        .iter()
        .filter(|(_, b)| b["type"] == "cache_edits")
        .collect();
    assert_eq!(edits.len(), 1, "exactly one cache_edits block");
    let (msg, block) = edits[0];
    let refs: Vec<&str> = block["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["cache_reference"].as_str().unwrap())
        .collect();
    assert_eq!(refs, ["toolu_A", "toolu_B"]);
    assert!(
        block["edits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["type"] == "delete")
    );
    // Pinned at the user message that held D's result (where it was created).
    let holder = &wire["messages"][*msg]["content"];
    assert!(
        holder
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["tool_use_id"] == "toolu_D")
    );
    // cache_reference on every tool_result strictly before the last message.
    let last = wire["messages"].as_array().unwrap().len() - 1;
    for (i, b) in &all {
        if b["type"] == "tool_result" {
            assert_eq!(i < &last, b["cache_reference"] == b["tool_use_id"], "{b}");
        }
    }
    // One cache_control, on the last block of the last message.
    let cc: Vec<&(usize, Value)> = all
        .iter()
        .filter(|(_, b)| b.get("cache_control").is_some())
        .collect();
    assert_eq!(cc.len(), 1);
    assert_eq!(cc[0].0, last);
    // Local content unchanged: no placeholder anywhere, the same tool_result text.
    let text = wire.to_string();
    assert!(!text.contains("[Old tool result content cleared]"));
    let contents = |body: &Value| -> Vec<Value> {
        blocks(body)
            .into_iter()
            .filter(|(_, b)| b["type"] == "tool_result")
            .map(|(_, b)| b["content"].clone())
            .collect()
    };
    assert_eq!(contents(&wire), contents(&local));
    assert!(!local.to_string().contains("cache_edits"));
}

#[test]
fn demo_idle_wire_holds_exactly_two_placeholders() {
    let wire = json(&["wire", DEMO, "--policy", "idle"]);
    let cleared: Vec<String> = blocks(&wire)
        .into_iter()
        .filter(|(_, b)| b["content"] == "[Old tool result content cleared]")
        .map(|(_, b)| b["tool_use_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(cleared, ["toolu_A", "toolu_B"]);
    assert!(!wire.to_string().contains("cache_edits"));
    let p = json(&["plan", DEMO, "--policy", "idle", "--format", "json"]);
    assert_eq!(p["fired"], true);
    assert_eq!(p["trigger"], "idle");
    assert_eq!(p["request"]["gap_minutes"], 75.5);
    assert_eq!(strings(&p["cleared"]), ["toolu_A", "toolu_B"]);
    assert_eq!(strings(&p["kept"]), ["toolu_C", "toolu_D"]);
    // The cache prefix breaks at A's result (message 2: prompt, call, result).
    assert_eq!(p["metadata"]["cache"]["prefix_broken_at_message"], 2);
    assert!(
        p["metadata"]["cache"]["tokens_after_break"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(
        strings(&p["metadata"]["evicted_read_paths"]),
        ["/home/dev/shop/src/config.ts"]
    );
}

#[test]
fn demo_text_forms_are_readable_tables() {
    let (code, out, _) = mcscope(&["plan", DEMO, "--policy", "idle"]);
    assert_eq!(code, 0);
    let row = |id: &str| out.lines().find(|l| l.contains(id)).unwrap().to_string();
    assert!(row("toolu_A").contains("cleared") && row("toolu_A").contains("gap 75.5 min >= 60"));
    assert!(row("toolu_D").contains("kept"));
    assert!(out.contains("cleared in the wire: [toolu_A, toolu_B]"));
    let (code, out, _) = mcscope(&["explain", DEMO, "toolu_A", "--policy", "idle"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("first vanished from the wire at request 6"),
        "{out}"
    );
    let e = json(&[
        "explain", DEMO, "toolu_A", "--policy", "idle", "--format", "json",
    ]);
    assert_eq!(e["schema"], "mcscope.explain/1");
    assert_eq!(e["first_cleared_at"], 6);
    assert_eq!(
        e["requests"].as_array().unwrap().len(),
        5,
        "in the view from request 2 on"
    );
    let (code, out, _) = mcscope(&["timeline", DEMO, "--policy", "idle"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines()
            .filter(|l| l.trim_start().starts_with(char::is_numeric))
            .count(),
        6
    );
}

#[test]
fn memory_sample_forced_keeps_memory_and_clears_the_escape() {
    let p = json(&["plan", MEMORY, "--policy", "forced", "--format", "json"]);
    assert_eq!(p["session"]["format"], "qwen-jsonl");
    assert_eq!(p["fired"], true);
    assert_eq!(p["trigger"], "forced");
    assert_eq!(
        strings(&p["protected"]),
        ["call_proj", "call_user", "call_team"]
    );
    assert_eq!(strings(&p["cleared"]), ["call_src", "call_leak"]);
    assert_eq!(strings(&p["kept"]), ["call_shell"]);
    let cand = |id: &str| {
        p["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["tool_use_id"] == id)
            .unwrap()
            .clone()
    };
    for (id, root) in [
        ("call_proj", "project"),
        ("call_user", "user"),
        ("call_team", "team"),
    ] {
        assert_eq!(cand(id)["protection"]["outcome"], "protected", "{id}");
        assert_eq!(cand(id)["protection"]["root"], root, "{id}");
    }
    let leak = cand("call_leak");
    assert_eq!(leak["protection"]["outcome"], "symlink_escape");
    assert_eq!(leak["protection"]["root"], "project");
    let target = leak["protection"]["resolved"].as_str().unwrap();
    assert!(
        target.ends_with("sample-sessions/qwen-memory/tree/home/dev/secrets/notes.md"),
        "{target}"
    );
    assert_eq!(cand("call_src")["protection"]["outcome"], "outside");
    assert_eq!(cand("call_shell")["protection"], Value::Null);
    assert_eq!(
        strings(&p["metadata"]["evicted_read_paths"]),
        [
            "/home/dev/app/src/main.py",
            "/home/dev/.qwen/projects/-home-dev-app/memory/leaked.md"
        ]
    );
    let (code, out, _) = mcscope(&["plan", MEMORY, "--policy", "forced"]);
    assert_eq!(code, 0);
    assert!(out.contains("protected: [call_proj, call_user, call_team]"));
    assert!(out.lines().any(|l| l.contains("call_leak")
        && l.contains("symlink_escape")
        && l.contains("notes.md")));
}

#[test]
fn memory_sample_wire_is_gemini_contents_with_placeholders() {
    let wire = json(&["wire", MEMORY, "--policy", "forced"]);
    let contents = wire["contents"].as_array().unwrap();
    let mut cleared = Vec::new();
    for m in contents {
        for p in m["parts"].as_array().unwrap() {
            if let Some(r) = p.get("functionResponse")
                && r["response"]["output"] == "[Old tool result content cleared]"
            {
                cleared.push(r["id"].as_str().unwrap().to_string());
            }
            // /compress-fast drops thought parts.
            assert_ne!(p.get("thought"), Some(&Value::Bool(true)));
        }
    }
    assert_eq!(cleared, ["call_src", "call_leak"]);
    let (code, _, err) = mcscope(&["wire", MEMORY, "--delivery", "cache-edits"]);
    assert_eq!(code, 2);
    assert!(err.contains("cache-edits"), "{err}");
}

#[test]
fn size_sample_fires_and_shows_the_low_watermark() {
    let p = json(&["plan", SIZE, "--format", "json"]);
    assert_eq!(p["policy"]["kind"], "size", "from the sidecar");
    assert_eq!(p["fired"], true);
    assert_eq!(p["trigger"], "size");
    let m = &p["metadata"];
    assert!(m["tool_result_chars_before"].as_u64().unwrap() > 500_000);
    assert_eq!(m["target_chars"], 250_000);
    let after = m["tool_result_chars_after"].as_u64().unwrap();
    assert!(after <= 250_000, "{after}");
    let p2 = json(&["plan", SIZE, "--no-low-watermark", "--format", "json"]);
    assert_eq!(p2["metadata"]["target_chars"], 500_000);
    let cleared = p["cleared"].as_array().unwrap().len();
    let cleared2 = p2["cleared"].as_array().unwrap().len();
    assert!(
        cleared2 < cleared,
        "the low watermark clears more ({cleared} vs {cleared2})"
    );
}

#[test]
fn flags_win_over_the_sidecar() {
    let p = json(&[
        "plan",
        DEMO,
        "--policy",
        "idle",
        "--keep-recent",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(p["policy"]["keep_recent"], 3);
    assert_eq!(strings(&p["cleared"]), ["toolu_A"]);
}

#[test]
fn bad_usage_exits_2_with_one_line() {
    for args in [
        vec!["plan", "sample-sessions/no-such.jsonl"],
        vec!["plan", "sample-sessions"],
        vec!["plan", DEMO, "--at", "99"],
        vec!["explain", DEMO, "toolu_ZZZ"],
    ] {
        let (code, out, err) = mcscope(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty());
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
    let (_, _, err) = mcscope(&["plan", "sample-sessions/no-such.jsonl"]);
    assert!(
        err.contains("sample-sessions/no-such.jsonl") && err.contains("No such file"),
        "{err}"
    );
    // Which five are newest depends on the checkout's file times: any sample will do.
    let (_, _, err) = mcscope(&["plan", "sample-sessions"]);
    // The five newest (by modification time, which a checkout sets at will).
    assert!(
        err.contains("is a directory; give one session file, e.g. sample-sessions/")
            && err.matches(".jsonl").count() + err.matches("api_conversation_history.json").count()
                == 5,
        "lists the newest sessions: {err}"
    );
}

const TODAY: &str = "sample-sessions/qwen-memory/today.jsonl";

#[test]
fn qwen_today_notification_clears_nothing_and_the_prompt_after_it_does() {
    let t = json(&["timeline", TODAY, "--format", "json"]);
    let rows = t["requests"].as_array().unwrap();
    let kinds: Vec<&str> = rows
        .iter()
        .map(|r| r["send_kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "user_query",
            "tool_result",
            "tool_result",
            "tool_result",
            "notification",
            "user_query"
        ]
    );
    // Two hours later, but a notification: nothing runs.
    assert!(rows[4]["gap_minutes"].as_f64().unwrap() > 60.0);
    assert_eq!(rows[4]["fired"], false);
    let p = json(&["plan", TODAY, "--format", "json"]);
    assert_eq!(p["fired"], true);
    assert_eq!(p["trigger"], "idle");
    assert_eq!(strings(&p["cleared"]), ["call_main", "call_shot"]);
    assert_eq!(strings(&p["protected"]), ["call_mem"]);
    assert_eq!(strings(&p["kept"]), ["call_grep"]);
    let tool = |id: &str| {
        p["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["tool_use_id"] == id)
            .unwrap()["tool"]
            .clone()
    };
    // The bridged reads are read_file results.
    assert_eq!(tool("call_main"), "read_file");
    assert_eq!(tool("call_mem"), "read_file");
    // The image read: 0 chars, 1,600 tokens for its image.
    let shot = p["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool_use_id"] == "call_shot")
        .unwrap();
    assert_eq!(shot["chars"], 0);
    assert_eq!(shot["est_tokens"], 1600);
    let (code, text, _) = mcscope(&["timeline", TODAY]);
    assert_eq!(code, 0);
    assert!(text.contains("notification or teammate message: Qwen runs no microcompaction here"));
}

#[test]
fn budget_sample_evidence_agrees_with_the_budget_plan() {
    let v = json(&[
        "evidence",
        "sample-sessions/claude-budget.jsonl",
        "--format",
        "json",
    ]);
    let r7 = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["index"] == 7)
        .unwrap();
    assert_eq!(r7["microcompact"]["writer"], "budget");
    assert_eq!(r7["microcompact"]["agrees"], true);
    assert_eq!(v["counts"]["agrees"], 1);
}

/// The cut sample (SPEC §13.E1–E4, `make_claude_cut.py`): at request 7 the
/// record cut the Read, the MCP result and the Grep, not the error or the short
/// status; the thinking of response 6 is left out; the break is ttl + client_cut.
#[test]
fn cut_sample_applies_the_recorded_facts() {
    let v = json(&[
        "plan",
        "sample-sessions/claude-cut.jsonl",
        "--at",
        "7",
        "--format",
        "json",
    ]);
    assert_eq!(strings(&v["cut"]), ["toolu_R1", "toolu_M1", "toolu_G1"]);
    assert_eq!(
        v["evidence"]["observed_break"]["explanations"],
        serde_json::json!(["ttl", "client_cut"])
    );
    assert_eq!(
        v["evidence"]["tool_results_cut"][0]["not_applied"],
        serde_json::json!([{"id": "toolu_E1", "reason": "error"},
                           {"id": "toolu_S1", "reason": "not_shorter"}])
    );
    assert_eq!(v["evidence"]["resumed_after_pause"], true);
    assert_eq!(
        v["evidence"]["idle_server"]["recorded"]["client_cut_tool_uses"],
        3
    );
    let wire = json(&["wire", "sample-sessions/claude-cut.jsonl", "--at", "7"]);
    let text = wire.to_string();
    assert!(!text.contains("\"thinking\""), "thinking stripped");
    assert!(text.contains("[Old tool result content cleared]"));
}

/// SPEC §15.6 in the text header: under `auto` it names the settings that
/// were given and those the chosen kinds read, as the JSON policy object gives
/// them a value; an explicit kind shows every setting.
#[test]
fn s15_6_the_text_header_under_auto_names_what_the_json_gives_a_value() {
    let budget = "sample-sessions/claude-budget.jsonl";
    let header = |args: &[&str]| {
        let (code, out, err) = mcscope(args);
        assert_eq!(code, 0, "{err}");
        out.lines()
            .find(|l| l.starts_with("policy:"))
            .unwrap()
            .to_string()
    };
    // auto -> budget reads keep_recent only of these: gap, size and trigger are null.
    let auto = header(&["timeline", budget]);
    let p = &json(&["timeline", budget, "--format", "json"])["policy"];
    assert!(p["gap_threshold_minutes"].is_null() && p["trigger_threshold"].is_null());
    assert!(auto.contains("keep_recent 3"), "{auto}");
    for gone in ["gap >=", "size >", "trigger"] {
        assert!(!auto.contains(gone), "{auto}");
    }
    // A given trigger is shown under auto, as the JSON gives it.
    let given = header(&["timeline", budget, "--trigger", "7"]);
    assert!(
        given.contains("trigger 7") && !given.contains("gap >="),
        "{given}"
    );
    // idle reads the gap (the demo's sidecar gives the trigger).
    let idle = header(&["timeline", DEMO]);
    assert!(
        idle.contains("gap >= 60 min") && !idle.contains("size >"),
        "{idle}"
    );
    // An explicit kind: every setting, as before.
    let explicit = header(&["timeline", budget, "--policy", "budget"]);
    assert!(
        explicit.contains("gap >= 60 min") && explicit.contains("size > 500000"),
        "{explicit}"
    );
}

/// SPEC §13.P3: where the build that wrote the session had no code path for
/// the plan, `plan` says the clearing is a what-if of that harness's build,
/// with the reason id (claude count: internal builds only).
#[test]
fn plan_says_a_what_if_of_the_session_s_build() {
    let (code, out, err) = mcscope(&["plan", DEMO, "--policy", "count"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines().any(|l| l
            == "what-if: this Claude Code build / entrypoint has no code path for plan count (reason internal_builds_only): the clearing shown did not happen"),
        "{out}"
    );
    // A plan the build had says nothing of the kind.
    let (_, out, _) = mcscope(&["plan", DEMO, "--policy", "recorded"]);
    assert!(!out.contains("what-if: this"), "{out}");
}
