//! The `policy` object of the JSON outputs (SPEC §7, §15.6): the values a plan
//! ran with, as the kinds in force used them; the reports and `compare`'s rows
//! both carry it.

use crate::analysis::Setup;
use crate::policy::params::{self, Holds, InPolicy, NoneInForce, Over};
use crate::policy::{PlanKind, Policy};
use crate::session::Request;
use serde::Serialize;
use serde_json::Value;

pub use crate::numbers::{Num, number};

/// The `policy` object (SPEC §7): the keys of the parameter table the
/// policy's preset and kind hold, in schema order, each with its value
/// (`params::InPolicy`).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyJson(Vec<(&'static str, Value)>);

impl Serialize for PolicyJson {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl PolicyJson {
    /// The value of `key`, where the object holds it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// `keep_recent`, where it is one number.
    pub fn keep_recent(&self) -> Option<u32> {
        self.get("keep_recent")
            .and_then(Value::as_u64)
            .and_then(|k| u32::try_from(k).ok())
    }

    fn set(&mut self, key: &str, value: Value) {
        if let Some(slot) = self.0.iter_mut().find(|(k, _)| *k == key) {
            slot.1 = value;
        }
    }
}

/// The keys the `policy` object holds under `p`, in schema order.
fn held(p: &Policy) -> Vec<(&'static str, InPolicy)> {
    let mut keys: Vec<(&'static str, InPolicy)> = params::keys()
        .filter(|k| match k.json.holds {
            Holds::Always => true,
            Holds::WhereRead => p.read_here(k.key),
            Holds::WhereKind(f) => f(p.kind),
        })
        .map(|k| (k.key, k.json))
        .collect();
    keys.sort_by_key(|(_, j)| j.place);
    keys
}

/// The `policy` object of the plan kind asked for, each value the policy's
/// (every one but the kind and the preset null under `recorded`, SPEC
/// §15.3); `keep_recent` as [`keep_recent_of`] says.
pub fn policy_json(p: &Policy, keep_recent: Option<u32>) -> PolicyJson {
    let baseline = p.kind.is_baseline();
    let mut json = PolicyJson(
        held(p)
            .into_iter()
            .map(|(key, j)| {
                let named = matches!(j.over, Over::Names);
                (
                    key,
                    if baseline && !named {
                        Value::Null
                    } else {
                        (j.value)(p)
                    },
                )
            })
            .collect(),
    );
    if !baseline {
        json.set("keep_recent", keep_recent.into());
    }
    json
}

/// `policy.keep_recent` (SPEC §5): the explicit value, else the default shared by
/// the kinds in force (`plan`: the one at K; `timeline`: all of them); null when
/// there is none or they differ.
pub fn keep_recent_of(p: &Policy, kinds: &[PlanKind]) -> Option<u32> {
    // The api preset keeps by its edits' `keep` (SPEC §11: null).
    p.kind.keep_at(p, None)?;
    if p.keep_recent.is_some() {
        return p.keep_recent;
    }
    // idle-server keeps by version (SPEC §13.S4).
    if kinds.iter().any(|k| k.keeps_by_version()) {
        return None;
    }
    let first = kinds.first()?.default_keep();
    kinds
        .iter()
        .all(|k| k.default_keep() == first)
        .then_some(first)
}

/// The value every kind in force used for `key` (`at`: each one's kind and
/// request version, `used` as its row says); null where one used none or
/// they differ. With `only_read` (`auto`, unless every kind reads the key), a
/// kind that does not read the key used none (SPEC §15.6).
fn common(
    p: &Policy,
    (key, j): (&str, &InPolicy),
    used: Option<params::Used>,
    at: &[(PlanKind, Option<&str>)],
    only_read: bool,
) -> Value {
    let one = |&(k, version): &(PlanKind, Option<&str>)| -> Option<Value> {
        if only_read && !k.reads(key, p.preset) {
            return None;
        }
        match used {
            Some(used) => used(k, p, version),
            None => Some((j.value)(p)),
        }
    };
    let Some(first) = at.first().and_then(one) else {
        return Value::Null;
    };
    if at[1..].iter().all(|x| one(x).as_ref() == Some(&first)) {
        first
    } else {
        Value::Null
    }
}

/// Whether the parameter `key` was given (flag, sidecar, config): the
/// policy's own mark where its row names one, else where the setup says it
/// came from.
pub fn explicit(setup: &Setup, key: &str) -> bool {
    match params::key(key).and_then(|k| k.json.given) {
        Some(given) => given(&setup.policy),
        None => setup.settings.source(key) != crate::config::Source::Preset,
    }
}

/// The `policy` object over `at` (request, kind in force): each value the
/// explicit one, else the one every request with a kind used, else null
/// (SPEC §5, §15.6), as its row of the parameter table settles it. With no
/// request at all, the kinds `kinds_chosen` decide.
pub fn policy_over(setup: &Setup, at: &[(&Request, Option<PlanKind>)]) -> PolicyJson {
    let p = &setup.policy;
    if p.kind.is_baseline() {
        return policy_json(p, None);
    }
    let auto = p.kind.is_auto();
    // Each (kind, version) once: a value is the kind's at the version, and
    // only whether they all agree counts.
    let mut in_force: Vec<(PlanKind, Option<&str>)> = Vec::new();
    let mut add = |pair| {
        if !in_force.contains(&pair) {
            in_force.push(pair);
        }
    };
    if setup.session.requests.is_empty() || at.is_empty() {
        setup
            .kinds_chosen()
            .into_iter()
            .for_each(|k| add((k, None)));
    } else {
        at.iter()
            .filter_map(|&(r, k)| k.map(|k| (k, r.version.as_deref())))
            .for_each(add);
    }
    // Requests where auto chose no kind at all: the values are null (§15.6).
    let none_chosen = in_force.is_empty() && !at.is_empty() && !setup.session.requests.is_empty();
    let values = held(p)
        .into_iter()
        .map(|(key, j)| {
            let value = match j.over {
                Over::Names | Over::Held => (j.value)(p),
                Over::Used { used, settle } => {
                    if (settle.given_stands && explicit(setup, key)) || !(settle.every_kind || auto)
                    {
                        (j.value)(p)
                    } else if in_force.is_empty() {
                        match settle.none {
                            _ if none_chosen => Value::Null,
                            NoneInForce::Policy => (j.value)(p),
                            NoneInForce::PolicyUnlessAuto if !auto => (j.value)(p),
                            _ => Value::Null,
                        }
                    } else {
                        common(p, (key, &j), used, &in_force, auto && !settle.all_read)
                    }
                }
            };
            (key, value)
        })
        .collect();
    PolicyJson(values)
}

/// The policy of `plan` at request K (a session without requests: its kinds).
pub fn policy_at(setup: &Setup, req: &Request, kind: Option<PlanKind>) -> PolicyJson {
    if req.index == 0 {
        return policy_over(setup, &[]);
    }
    policy_over(setup, &[(req, kind)])
}

/// The policy of `timeline` and `evidence`: every request with auto's choice.
pub fn policy_all(setup: &Setup) -> PolicyJson {
    let at: Vec<(&Request, Option<PlanKind>)> = setup
        .session
        .requests
        .iter()
        .map(|r| (r, setup.policy.kind_at(r, r.gap_minutes)))
        .collect();
    policy_over(setup, &at)
}

/// Two sessions' `policy` objects under `auto` as one (a `compare` row over
/// several sessions, SPEC §15.6): each value the kinds settle (the numbers
/// and the delivery) where both hold the same, else null; the others are the
/// first's.
pub fn policy_merged(mut a: PolicyJson, b: &PolicyJson) -> PolicyJson {
    for (key, value) in a.0.iter_mut() {
        let settled = params::key(key).is_some_and(|k| matches!(k.json.over, Over::Used { .. }));
        if settled && b.get(key).is_some_and(|v| v != value) {
            *value = Value::Null;
        }
    }
    a
}

#[cfg(test)]
mod tests {
    //! SPEC §15.6: under `auto`, each numeric field of `policy` is the explicit
    //! value, else the one every chosen kind used, else null.
    use super::*;
    use crate::config::Source;
    use crate::session::{Format, Session};
    use serde_json::json;
    use std::path::PathBuf;

    /// A session of `format` with one request per version (None: no version).
    fn setup(format: Format, versions: &[Option<&str>]) -> Setup {
        let mut s = Session::empty(PathBuf::from("s"), format);
        for (i, v) in versions.iter().enumerate() {
            s.requests.push(Request {
                version: v.map(str::to_string),
                ..Request::empty(i + 1)
            });
        }
        let p = Policy::preset(s.harness);
        Setup::new(s, p)
    }

    /// The `policy` object over every request with the kinds given.
    fn over(setup: &Setup, kinds: &[Option<PlanKind>]) -> Value {
        let at: Vec<(&Request, Option<PlanKind>)> = setup
            .session
            .requests
            .iter()
            .zip(kinds.iter().copied())
            .collect();
        serde_json::to_value(policy_over(setup, &at)).unwrap()
    }

    /// The numeric fields of a `policy` object (and the delivery).
    fn numbers(v: &Value) -> Value {
        let keys = [
            "keep_recent",
            "gap_threshold_minutes",
            "size_threshold",
            "trigger_threshold",
            "delivery",
            "budget_tokens",
            "budget_min_saving",
            "budget_warning_tokens",
            "min_trigger_tool_uses",
            "prune_protect_tokens",
            "prune_minimum_tokens",
            "mask_protect_tokens",
            "mask_min_prunable_tokens",
        ];
        let mut out = serde_json::Map::new();
        for k in keys {
            if let Some(x) = v.get(k) {
                out.insert(k.into(), x.clone());
            }
        }
        Value::Object(out)
    }

    #[test]
    fn s15_6_auto_choosing_prune_gives_prune_s_thresholds_and_nulls_keep_gap_size() {
        let s = setup(Format::OpencodeDb, &[Some("1.2.0"), Some("1.2.0")]);
        assert_eq!(s.policy.kind, PlanKind::Auto);
        let prune = Some(PlanKind::Prune);
        let want = json!({
            "keep_recent": null,
            "gap_threshold_minutes": null,
            "size_threshold": null,
            "trigger_threshold": null,
            "delivery": "rewrite",
            "budget_tokens": null,
            "budget_min_saving": null,
            "budget_warning_tokens": null,
            "min_trigger_tool_uses": null,
            "prune_protect_tokens": 40000,
            "prune_minimum_tokens": 20000,
        });
        // `timeline` (every request) and `plan` at K.
        assert_eq!(numbers(&over(&s, &[prune, prune])), want);
        let plan = policy_at(&s, &s.session.requests[1], prune);
        assert_eq!(numbers(&serde_json::to_value(plan).unwrap()), want);
    }

    #[test]
    fn s15_6_auto_choosing_claude_idle_everywhere_nulls_size_trigger_and_budget() {
        // 2.1.84–2.1.104: auto runs idle (§13.T).
        let s = setup(Format::ClaudeJsonl, &[Some("2.1.90"), Some("2.1.100")]);
        let want = json!({
            "keep_recent": 5,
            "gap_threshold_minutes": 60,
            "size_threshold": null,
            "trigger_threshold": null,
            "delivery": "rewrite",
            "budget_tokens": null,
            "budget_min_saving": null,
            "budget_warning_tokens": null,
            "min_trigger_tool_uses": null,
        });
        assert_eq!(
            numbers(&serde_json::to_value(policy_all(&s)).unwrap()),
            want
        );
        let plan = policy_at(&s, &s.session.requests[0], Some(PlanKind::Idle));
        assert_eq!(numbers(&serde_json::to_value(plan).unwrap()), want);
    }

    #[test]
    fn s15_6_a_field_one_chosen_kind_reads_and_another_does_not_is_null() {
        // budget at 2.1.50, idle at 2.1.90: keep 3 and 5, the gap and the
        // budget's values read by one kind only.
        let s = setup(Format::ClaudeJsonl, &[Some("2.1.50"), Some("2.1.90")]);
        assert_eq!(
            numbers(&serde_json::to_value(policy_all(&s)).unwrap()),
            json!({
                "keep_recent": null,
                "gap_threshold_minutes": null,
                "size_threshold": null,
                "trigger_threshold": null,
                "delivery": "rewrite",
                "budget_tokens": null,
                "budget_min_saving": null,
                "budget_warning_tokens": null,
                "min_trigger_tool_uses": null,
            })
        );
        // `plan` at the budget request: the values budget used, its gate by
        // version (147000 from 2.1.21).
        let plan = policy_at(&s, &s.session.requests[0], Some(PlanKind::Budget));
        assert_eq!(
            numbers(&serde_json::to_value(plan).unwrap()),
            json!({
                "keep_recent": 3,
                "gap_threshold_minutes": null,
                "size_threshold": null,
                "trigger_threshold": null,
                "delivery": "rewrite",
                "budget_tokens": 40000,
                "budget_min_saving": 20000,
                "budget_warning_tokens": 147000,
                "min_trigger_tool_uses": null,
            })
        );
        // qwen: idle and size both read keep and the gap (size for the
        // settings coupling, §5); only size reads the size threshold.
        let q = setup(Format::QwenJsonl, &[None, None]);
        let v = over(&q, &[Some(PlanKind::Idle), Some(PlanKind::Size)]);
        assert_eq!(v["keep_recent"], json!(5));
        assert_eq!(v["gap_threshold_minutes"], json!(60));
        assert_eq!(v["size_threshold"], Value::Null);
        let v = over(&q, &[Some(PlanKind::Size), None]);
        assert_eq!(v["size_threshold"], json!(500000));
        assert_eq!(v["trigger_threshold"], Value::Null);
    }

    #[test]
    fn s15_6_an_explicit_value_under_auto_stays() {
        let mut s = setup(Format::ClaudeJsonl, &[Some("2.1.90"), Some("2.1.100")]);
        s.policy.keep_recent = Some(7);
        s.policy.size_threshold = 1000;
        s.policy.size_explicit = true;
        s.policy.budget_tokens = 30_000;
        s.policy.budget_warning_tokens = Some(100_000);
        for key in ["budget_tokens", "trigger_threshold"] {
            s.settings.sources.insert(key, Source::Sidecar);
        }
        let v = numbers(&serde_json::to_value(policy_all(&s)).unwrap());
        assert_eq!(v["keep_recent"], json!(7));
        assert_eq!(v["size_threshold"], json!(1000));
        assert_eq!(v["budget_tokens"], json!(30000));
        assert_eq!(v["budget_warning_tokens"], json!(100000));
        // Given at its default value: still given.
        assert_eq!(v["trigger_threshold"], json!(10));
        // Not given, and idle does not read it.
        assert_eq!(v["budget_min_saving"], Value::Null);
        let mut o = setup(Format::OpencodeDb, &[Some("1.2.0")]);
        o.policy.prune_minimum_tokens = 5_000;
        o.settings
            .sources
            .insert("prune_minimum_tokens", Source::Flag);
        o.policy.keep_recent = Some(2);
        let v = over(&o, &[None]);
        // Auto chose no kind: only what was given.
        assert_eq!(v["prune_minimum_tokens"], json!(5000));
        assert_eq!(v["prune_protect_tokens"], Value::Null);
        assert_eq!(v["keep_recent"], json!(2));
    }

    #[test]
    fn s15_6_a_named_kind_s_object_is_as_it_was() {
        let mut s = setup(Format::ClaudeJsonl, &[Some("2.1.90")]);
        s.policy.kind = PlanKind::Idle;
        let v = numbers(&serde_json::to_value(policy_all(&s)).unwrap());
        assert_eq!(v["size_threshold"], json!(500000));
        assert_eq!(v["trigger_threshold"], json!(10));
        assert_eq!(v["budget_tokens"], json!(40000));
        assert_eq!(v["budget_warning_tokens"], Value::Null);
        let mut o = setup(Format::OpencodeDb, &[Some("1.2.0")]);
        o.policy.kind = PlanKind::Prune;
        let v = numbers(&serde_json::to_value(policy_all(&o)).unwrap());
        assert_eq!(v["keep_recent"], json!(5));
        assert_eq!(v["gap_threshold_minutes"], json!(60));
        assert_eq!(v["prune_protect_tokens"], json!(40000));
    }

    /// The keys of the object (SPEC §7), in the schema's order.
    fn keys_of(p: &Policy) -> Vec<String> {
        let v = serde_json::to_value(policy_json(p, None)).unwrap();
        v.as_object().unwrap().keys().cloned().collect()
    }

    /// SPEC §7, §15.13: the object is made from the parameter table's rows,
    /// in the schema's order (the shared keys, then prune's, the api
    /// preset's, mask's), each harness plan's keys only where its preset
    /// offers the plan; a row's place is its own.
    #[test]
    fn s7_the_policy_object_is_the_table_s_rows_in_schema_order() {
        let shared = [
            "kind",
            "preset",
            "keep_recent",
            "gap_threshold_minutes",
            "size_threshold",
            "low_watermark",
            "trigger_threshold",
            "delivery",
            "protect",
            "clear_errors",
            "budget_tokens",
            "budget_min_saving",
            "budget_warning_tokens",
            "min_trigger_tool_uses",
        ];
        let with = |own: &[&str]| -> Vec<String> {
            shared.iter().chain(own).map(|k| k.to_string()).collect()
        };
        use crate::session::HarnessId;
        assert_eq!(keys_of(&Policy::preset(HarnessId::Claude)), with(&[]));
        assert_eq!(keys_of(&Policy::preset(HarnessId::Qwen)), with(&[]));
        let mask = [
            "mask_protect_tokens",
            "mask_min_prunable_tokens",
            "mask_protect_latest_turn",
        ];
        assert_eq!(keys_of(&Policy::preset(HarnessId::Gemini)), with(&mask));
        let prune = ["prune_protect_tokens", "prune_minimum_tokens"];
        assert_eq!(keys_of(&Policy::preset(HarnessId::Opencode)), with(&prune));
        let api = [
            "api_edits",
            "api_excluded_count_toward_keep",
            "api_trigger_inclusive",
            "api_placeholder",
        ];
        assert_eq!(keys_of(&Policy::api_preset()), with(&api));
        // Under `recorded`: every value null but the kind and the preset, a
        // harness plan's own keys there all the same (SPEC §15.3).
        let mut g = Policy::preset(HarnessId::Gemini);
        g.kind = PlanKind::Recorded;
        let v = serde_json::to_value(policy_json(&g, Some(3))).unwrap();
        assert_eq!(keys_of(&g), with(&mask));
        for (k, x) in v.as_object().unwrap() {
            assert_eq!(x.is_null(), k != "kind" && k != "preset", "{k}");
        }
        // Every key of the config file has one place in the object.
        let mut places: Vec<u8> = params::keys().map(|k| k.json.place).collect();
        places.sort_unstable();
        let n = places.len();
        places.dedup();
        assert_eq!(places.len(), n, "two keys share a place");
    }
}
