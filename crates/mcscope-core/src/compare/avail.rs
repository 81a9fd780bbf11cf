//! Who can set a row (SPEC §9a "Availability", §15.15): `user`, `remote_flag`,
//! `internal` or `what_if`, with the settings keys and values that set it.

use super::*;
use serde_json::Value;

pub use crate::harness::Availability;

/// A row's availability `a` on a session with its knob: the settings keys a
/// user writes, with their values, where the user can set it; else None.
pub fn with_knob(a: Availability, policy: &Policy) -> (Availability, Option<Value>) {
    (a, knob(policy).filter(|_| a == Availability::User))
}

/// Who can set `policy` on session `s` (SPEC §9a, §15.15): a claude row is
/// `what_if` on a session where §13.P is false for its kind at every request.
/// It reads only the kind, the delivery and the preset (what `compare`
/// computes once per session for the rows that share them).
pub fn availability(policy: &Policy, s: &Session) -> Availability {
    policy.asks().availability(policy, s)
}

/// The settings keys and values that set `policy` where a user can: Qwen
/// Code's `settings.json` keys the kind reads; the api preset's request field.
pub fn knob(policy: &Policy) -> Option<Value> {
    policy.asks().knob(policy)
}

/// A row's availability over its sessions: `user` or `remote_flag` only when
/// it is that for every session, else the least reachable one; the knob when
/// every session gives the same one.
pub fn combine(
    a: Option<(Availability, Option<Value>)>,
    b: (Availability, Option<Value>),
) -> (Availability, Option<Value>) {
    match a {
        None => b,
        Some((x, k)) => {
            let knob = if k == b.1 { k } else { None };
            (x.max(b.0), knob)
        }
    }
}

/// A knob as `key=value` pairs for a line of text, after a prefix: qwen's
/// keys as they are; the api's `context_management` by its first
/// clear_tool_uses edit's trigger and keep (the JSON holds the edits whole).
pub fn knob_pairs(knob: &Value) -> (&'static str, Vec<(String, String)>) {
    if let Some(cm) = knob.get("context_management") {
        let edit = cm["edits"]
            .as_array()
            .and_then(|e| e.iter().find(|e| e["type"] == "clear_tool_uses_20250919"))
            .cloned()
            .unwrap_or(Value::Null);
        let pairs = [("trigger", &edit["trigger"]), ("keep", &edit["keep"])]
            .into_iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.to_string(), v["value"].to_string()))
            .collect();
        return ("context_management: ", pairs);
    }
    let pairs = knob
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.to_string())).collect())
        .unwrap_or_default();
    ("", pairs)
}

/// A knob in a line of text (`-`: none).
pub fn knob_words(knob: &Option<Value>) -> String {
    let Some(k) = knob else { return "-".into() };
    let (prefix, pairs) = knob_pairs(k);
    let pairs: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{prefix}{}", pairs.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    fn of(policy: &Policy, s: &Session) -> (Availability, Option<Value>) {
        with_knob(availability(policy, s), policy)
    }

    fn session(version: &str) -> Session {
        let mut s = Session::empty(
            PathBuf::from("s.jsonl"),
            crate::session::Format::ClaudeJsonl,
        );
        s.requests.push(crate::session::Request {
            version: Some(version.into()),
            entrypoint: Some("cli".into()),
            ..crate::session::Request::empty(1)
        });
        s
    }

    fn policy(preset: HarnessId, kind: PlanKind, delivery: Delivery) -> Policy {
        Policy {
            kind,
            delivery,
            ..Policy::preset(preset)
        }
    }

    /// SPEC §9a availability, §15.15: every kind of both presets.
    #[test]
    fn spec_9a_availability_by_kind_and_version() {
        let old = session("2.1.90");
        let new = session("2.1.300");
        let at = |p: HarnessId, k: PlanKind, d: Delivery, s: &Session| of(&policy(p, k, d), s).0;
        use Availability::*;
        use Delivery::*;
        let c = HarnessId::Claude;
        assert_eq!(at(c, PlanKind::Idle, Rewrite, &old), RemoteFlag);
        // 2.1.300 has no client-side idle code: §13.P false at every request.
        assert_eq!(at(c, PlanKind::Idle, Rewrite, &new), WhatIf);
        assert_eq!(at(c, PlanKind::IdleServer, Server, &new), RemoteFlag);
        assert_eq!(at(c, PlanKind::IdleServer, Server, &old), WhatIf);
        assert_eq!(at(c, PlanKind::Count, Rewrite, &new), Internal);
        assert_eq!(at(c, PlanKind::Count, CacheEdits, &new), Internal);
        assert_eq!(at(c, PlanKind::Forced, Rewrite, &old), WhatIf);
        assert_eq!(at(c, PlanKind::Size, Rewrite, &old), WhatIf);
        assert_eq!(
            at(c, PlanKind::Budget, Rewrite, &session("2.1.20")),
            RemoteFlag
        );
        let q = HarnessId::Qwen;
        assert_eq!(at(q, PlanKind::Count, Rewrite, &old), WhatIf);
        assert_eq!(
            of(&policy(q, PlanKind::Forced, Rewrite), &old),
            (User, None)
        );
        let api = of(&Policy::api_preset(), &old);
        assert_eq!(api.0, User);
        assert!(api.1.unwrap()["context_management"]["edits"].is_array());
    }

    /// SPEC §15.15: qwen's knob holds every key the row needs, with its values.
    #[test]
    fn spec_15_15_qwen_knob_values() {
        let s = session("0.24.4");
        let mut p = policy(HarnessId::Qwen, PlanKind::Idle, Delivery::Rewrite);
        p.gap_threshold_minutes = 30.0;
        p.keep_recent = Some(3);
        assert_eq!(
            of(&p, &s).1,
            Some(json!({"toolResultsThresholdMinutes": 30, "toolResultsNumToKeep": 3}))
        );
        p.kind = PlanKind::Size;
        p.size_threshold = 200_000;
        assert_eq!(
            of(&p, &s).1,
            Some(json!({"toolResultsNumToKeep": 3, "toolResultsTotalCharsThreshold": 200000}))
        );
        p.gap_threshold_minutes = 7.5;
        p.kind = PlanKind::Idle;
        assert_eq!(
            knob_words(&of(&p, &s).1),
            "toolResultsThresholdMinutes=7.5 toolResultsNumToKeep=3"
        );
    }

    /// SPEC §15.15: over a folder, the least reachable session decides.
    #[test]
    fn spec_15_15_a_folder_row_is_remote_flag_only_when_every_session_is() {
        use Availability::*;
        let one = combine(None, (RemoteFlag, None));
        assert_eq!(combine(Some(one.clone()), (WhatIf, None)).0, WhatIf);
        assert_eq!(combine(Some(one), (RemoteFlag, None)).0, RemoteFlag);
        let k = Some(json!({"toolResultsNumToKeep": 3}));
        let both = combine(Some((User, k.clone())), (User, k.clone()));
        assert_eq!(both, (User, k.clone()));
        let other = Some(json!({"toolResultsNumToKeep": 4}));
        assert_eq!(combine(Some((User, k)), (User, other)), (User, None));
    }
}
