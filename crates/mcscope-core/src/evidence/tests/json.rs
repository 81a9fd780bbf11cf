//! The JSON forms of the evidence: the session's counts, a request's object.

use super::*;

#[test]
fn counts_tally_explanations_records_and_agreements() {
    let b = |facts| ObservedBreak {
        expected: 10_000,
        observed: 0,
        facts,
    };
    let mc = |agrees: Option<bool>| Microcompact {
        writer: Writer::Cached,
        line: 1,
        compacted_tool_ids: vec![],
        pre_tokens: Some(0),
        tokens_saved: Some(1),
        ids_complete: true,
        comparison: agrees.map(|a| Comparison {
            agrees: Some(a),
            incomplete: false,
            missing: vec![],
            extra: vec![],
            absent: vec![],
            named: 0,
        }),
    };
    let r1 = RequestEvidence {
        observed_break: Some(b(BreakFacts {
            ttl: true,
            cache_edits: true,
            ..Default::default()
        })),
        microcompact: Some(Box::new(mc(Some(true)))),
        ..Default::default()
    };
    let r2 = RequestEvidence {
        observed_break: Some(b(BreakFacts::default())),
        compactions: vec![mc(Some(false)), mc(None)],
        ..Default::default()
    };
    let c = counts(&[(1, &r1), (2, &r2)]);
    assert_eq!(c.ttl, 1);
    assert_eq!(c.cache_edits, 1);
    assert_eq!(c.unexplained, 1);
    assert_eq!(c.compaction, 0);
    assert_eq!(c.boundaries, 3);
    assert_eq!(c.agrees, 1);
    assert_eq!(c.of(Explanation::Ttl), 1);
    assert_eq!(c.of(Explanation::ModelChange), 0);
    // The JSON: one key per explanation, named and ordered as the words'
    // keys, then the records and their agreements.
    let json = serde_json::to_string(&c).unwrap();
    assert_eq!(
        json,
        r#"{"compaction":0,"server_compaction":0,"model_change":0,"ttl":1,"plan_rewrite":0,"harness_rewrite":0,"cache_edits":1,"context_edits":0,"client_cut":0,"restart":0,"tools_changed":0,"unexplained":1,"boundaries":3,"agrees":1,"absent":0,"tool_results_cut":0,"thinking_stripped":0,"resumed_after_pause":0,"idle_server_agrees":0,"idle_server_differs":0}"#
    );
    let keys: Vec<String> = value(c).as_object().unwrap().keys().cloned().collect();
    let mut names: Vec<&str> = Explanation::ALL.iter().map(|e| e.name()).collect();
    // SPEC §15.24: then `absent` and the §13.J keys.
    names.extend([
        "boundaries",
        "agrees",
        "absent",
        "tool_results_cut",
        "thinking_stripped",
        "resumed_after_pause",
        "idle_server_agrees",
        "idle_server_differs",
    ]);
    assert_eq!(keys, names);
}

#[test]
fn a_request_without_evidence_writes_the_specs_empty_object() {
    // SPEC §10: every key null but `compactions`, an empty list — keys in the
    // SPEC's order, none left out.
    // SPEC §13.J adds the §13.E keys: no cut, no strip, no resume note, no
    // recorded idle_server.
    let empty = r#"{"usage":null,"observed_break":null,"microcompact":null,"compactions":[],"applied_edits":null,"tool_results_cut":[],"thinking_stripped":null,"resumed_after_pause":false,"idle_server":{"recorded":null,"simulated":null,"agrees":null,"differs":[]}}"#;
    let json = |e: RequestEvidenceJson| serde_json::to_string(&e).unwrap();
    assert_eq!(json(RequestEvidence::empty_json()), empty);
    assert_eq!(json(RequestEvidence::default().json()), empty);
    // A record that was not compared keeps `agrees`, `missing` and `extra` as
    // nulls rather than dropping them.
    let ev = RequestEvidence {
        microcompact: Some(Box::new(Microcompact {
            writer: Writer::Cached,
            line: 4,
            compacted_tool_ids: vec!["t1".into()],
            ids_complete: true,
            pre_tokens: None,
            tokens_saved: Some(1200),
            comparison: None,
        })),
        applied_edits: Some(vec![]),
        ..Default::default()
    };
    assert_eq!(
        json(ev.json()),
        r#"{"usage":null,"observed_break":null,"microcompact":{"writer":"cached","compacted_tool_ids":["t1"],"pre_tokens":null,"tokens_saved":1200,"agrees":null,"missing":null,"extra":null,"absent":[]},"compactions":[],"applied_edits":[],"tool_results_cut":[],"thinking_stripped":null,"resumed_after_pause":false,"idle_server":{"recorded":null,"simulated":null,"agrees":null,"differs":[]}}"#
    );
}
