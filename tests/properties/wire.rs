//! Properties 4, 4b, 4c and 5: what the rewrite and cache-edits wires send.

use super::*;

// ---------------------------------------------------------------------------
// Wire helpers
// ---------------------------------------------------------------------------

fn body_messages(body: &Value, qwen: bool) -> Option<&Vec<Value>> {
    body.get(if qwen { "contents" } else { "messages" })
        .and_then(Value::as_array)
}

/// A message's blocks, a string content read as one text block.
fn blocks_of(msg: &Value, qwen: bool) -> Vec<Value> {
    let content = &msg[if qwen { "parts" } else { "content" }];
    match content {
        Value::String(s) => vec![json!({"type": "text", "text": s})],
        Value::Array(a) => a.clone(),
        _ => Vec::new(),
    }
}

fn is_result_block(b: &Value, qwen: bool) -> bool {
    if qwen {
        b.get("functionResponse").is_some_and(Value::is_object)
    } else {
        b.get("type").and_then(Value::as_str) == Some("tool_result")
    }
}

/// 4. cache-edits: the wire is the local body plus cache_reference / cache_control
///    keys and cache_edits / "." blocks, message by message.
pub(super) fn prop_cache_edits_keep_content(case: &Case) -> Result<(), TestCaseError> {
    let strip = |b: &Value| -> Value {
        let mut b = b.clone();
        if let Some(o) = b.as_object_mut() {
            o.remove("cache_reference");
            o.remove("cache_control");
        }
        b
    };
    for k in 1..=case.n() {
        let local = case.wire(k, Side::Local)?;
        let wire = case.wire(k, Side::Wire)?;
        let (Some(lm), Some(wm)) = (body_messages(&local, false), body_messages(&wire, false))
        else {
            fail!(case, k, "bodies without messages");
        };
        check!(
            case,
            k,
            lm.len() == wm.len(),
            "local has {} messages, wire {}",
            lm.len(),
            wm.len()
        );
        for (i, (l, w)) in lm.iter().zip(wm).enumerate() {
            let lb = blocks_of(l, false);
            let wb: Vec<Value> = blocks_of(w, false)
                .iter()
                .map(strip)
                .filter(|b| b["type"] != "cache_edits")
                .filter(|b| *b != json!({"type": "text", "text": "."}))
                .collect();
            check!(
                case,
                k,
                lb == wb && l["role"] == w["role"],
                "message {i}: the wire changes more than cache blocks and keys\nlocal: {l}\nwire:  {w}"
            );
            let lr: Vec<&Value> = lb.iter().filter(|b| is_result_block(b, false)).collect();
            let wr: Vec<Value> = blocks_of(w, false)
                .into_iter()
                .filter(|b| is_result_block(b, false))
                .collect();
            let same = lr.len() == wr.len()
                && lr.iter().zip(&wr).all(|(a, b)| {
                    a["content"] == b["content"] && a["tool_use_id"] == b["tool_use_id"]
                });
            check!(
                case,
                k,
                same,
                "message {i}: tool_result contents differ\nlocal: {l}\nwire:  {w}"
            );
        }
    }
    Ok(())
}

/// 4c. cache-edits, the added pieces (SPEC §6): one `cache_control`, in the last
///     message; `cache_reference` = the id on every tool_result strictly before
///     the last message and nowhere else; `cache_edits` blocks only in user
///     messages, never naming an id twice; under `count` (deletions cumulative in
///     the view) they name exactly the ids cleared in the request's wire.
pub(super) fn prop_cache_edits_shape(case: &Case) -> Result<(), TestCaseError> {
    let s = &case.setup.session;
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let wire = case.wire(k, Side::Wire)?;
        let msgs = body_messages(&wire, false).cloned().unwrap_or_default();
        let last = msgs.len().saturating_sub(1);
        let mut controls = Vec::new();
        let mut refs: Vec<String> = Vec::new();
        for (i, m) in msgs.iter().enumerate() {
            let user = m["role"] == "user";
            for (j, b) in blocks_of(m, false).iter().enumerate() {
                if let Some(cc) = b.get("cache_control") {
                    controls.push((i, j, cc.clone()));
                }
                let want_ref = (is_result_block(b, false) && user && i < last)
                    .then(|| b["tool_use_id"].clone());
                check!(
                    case,
                    k,
                    b.get("cache_reference").cloned() == want_ref,
                    "message {i} block {j}: cache_reference {:?}, expected {want_ref:?}\nmessage: {m}",
                    b.get("cache_reference")
                );
                if b["type"] == "cache_edits" {
                    let edits = b["edits"].as_array().cloned().unwrap_or_default();
                    check!(
                        case,
                        k,
                        user && !edits.is_empty(),
                        "message {i}: a cache_edits block must be non-empty and in a user message: {m}"
                    );
                    for e in edits {
                        let id = e["cache_reference"].as_str().unwrap_or("?").to_string();
                        check!(
                            case,
                            k,
                            e["type"] == "delete" && !refs.contains(&id),
                            "message {i}: bad or repeated delete {e}; earlier deletes {refs:?}"
                        );
                        refs.push(id);
                    }
                }
            }
        }
        check!(
            case,
            k,
            controls.len() == 1
                && controls[0].0 == last
                && controls[0].2 == json!({"type": "ephemeral"}),
            "expected one cache_control {{type: ephemeral}} in the last message ({last}); got {controls:?}"
        );
        if case.pol.kind == KindArg::Count {
            let mut want: Vec<String> = p
                .step
                .cleared
                .iter()
                .map(|&r| s.results[r].id.clone())
                .collect();
            want.sort();
            want.dedup();
            refs.sort();
            check!(
                case,
                k,
                refs == want,
                "count: the wire deletes {refs:?}, but the ids cleared in the wire are {want:?}"
            );
        }
    }
    Ok(())
}

/// 4b. rewrite: the wire is the local body with exactly the results of the
///     plan's `cleared` list replaced by the placeholder.
pub(super) fn prop_rewrite_matches_plan(case: &Case) -> Result<(), TestCaseError> {
    let qwen = case.w.sess.qwen;
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let local = case.wire(k, Side::Local)?;
        let wire = case.wire(k, Side::Wire)?;
        let q = case.req(k);
        let mut expect = local.clone();
        let key = if qwen { "contents" } else { "messages" };
        let part_key = if qwen { "parts" } else { "content" };
        for m in q.view_start..q.end {
            let rs: Vec<usize> = (0..case.w.m.results.len())
                .filter(|&r| case.w.m.results[r].msg == m)
                .collect();
            let Some(blocks) = expect[key][m - q.view_start][part_key].as_array_mut() else {
                check!(
                    case,
                    k,
                    rs.is_empty(),
                    "message {} holds results but no blocks",
                    m - q.view_start
                );
                continue;
            };
            let mut i = 0;
            for b in blocks.iter_mut().filter(|b| is_result_block(b, qwen)) {
                check!(
                    case,
                    k,
                    i < rs.len(),
                    "message {}: more result blocks than results",
                    m - q.view_start
                );
                if p.step.cleared.contains(&rs[i]) {
                    if qwen {
                        b["functionResponse"]["response"] = json!({"output": PLACEHOLDER});
                    } else {
                        b["content"] = json!(PLACEHOLDER);
                    }
                }
                i += 1;
            }
            check!(
                case,
                k,
                i == rs.len(),
                "message {}: {i} result blocks for {} results",
                m - q.view_start,
                rs.len()
            );
        }
        check!(
            case,
            k,
            wire == expect,
            "rewrite wire differs from local + placeholders for cleared {:?}\nexpected: {expect}\nwire:     {wire}",
            case.ids(&p.step.cleared)
        );
    }
    Ok(())
}

/// 5. Both bodies are valid JSON that round-trips, with model and messages /
///    contents; the local body holds the view's messages.
pub(super) fn prop_bodies_valid(case: &Case) -> Result<(), TestCaseError> {
    let qwen = case.w.sess.qwen;
    for k in 1..=case.n() {
        let q = case.req(k);
        let mut counts = Vec::new();
        for side in [Side::Local, Side::Wire] {
            let body = case.wire(k, side)?;
            let text = serde_json::to_string(&body).unwrap();
            let back: Value = serde_json::from_str(&text).unwrap();
            check!(case, k, back == body, "{side:?} body does not round-trip");
            check!(
                case,
                k,
                body.get("model").is_some(),
                "{side:?} body has no model: {body}"
            );
            let Some(msgs) = body_messages(&body, qwen) else {
                fail!(
                    case,
                    k,
                    "{side:?} body has no {}: {body}",
                    if qwen { "contents" } else { "messages" }
                );
            };
            for (i, m) in msgs.iter().enumerate() {
                let want = match (i % 2 == 0, qwen) {
                    (true, _) => "user",
                    (false, false) => "assistant",
                    (false, true) => "model",
                };
                check!(
                    case,
                    k,
                    m["role"] == want,
                    "{side:?} message {i} has role {}, expected {want} (alternating from user)",
                    m["role"]
                );
            }
            counts.push(msgs.len());
        }
        let view = q.end - q.view_start;
        check!(
            case,
            k,
            counts[0] == view && counts[1] == view,
            "the view has {view} messages; local body {}, wire body {}",
            counts[0],
            counts[1]
        );
    }
    Ok(())
}
