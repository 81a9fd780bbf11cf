//! The `policy` object of the JSON outputs (SPEC §7, §15.6): the values a plan
//! ran with, as the kinds in force used them; the reports and `compare`'s rows
//! both carry it.

use crate::analysis::Setup;
use crate::policy::{Delivery, PlanKind, Policy};
use crate::session::Request;
use serde::Serialize;
use serde_json::Value;

/// A figure as the reports print it: a whole number as an integer.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(untagged)]
pub enum Num {
    Int(i64),
    Float(f64),
}

pub fn number(x: f64) -> Num {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        Num::Int(x as i64)
    } else {
        Num::Float(x)
    }
}

/// The `policy` object (SPEC §7), fields in schema order; the api preset's
/// keys follow (absent otherwise).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PolicyJson {
    pub kind: PlanKind,
    pub preset: &'static str,
    pub keep_recent: Option<u32>,
    pub gap_threshold_minutes: Option<Num>,
    /// Null, as every field but `kind` and `preset`, under plan kind
    /// `recorded` (SPEC §15.3).
    pub size_threshold: Option<i64>,
    pub low_watermark: Option<bool>,
    pub trigger_threshold: Option<u32>,
    pub delivery: Option<Delivery>,
    pub protect: Option<bool>,
    pub clear_errors: Option<bool>,
    pub budget_tokens: Option<u64>,
    pub budget_min_saving: Option<u64>,
    pub budget_warning_tokens: Option<u64>,
    /// `idle-server`'s least trigger (SPEC §13.J: null unless it runs or was given).
    pub min_trigger_tool_uses: Option<u32>,
    /// OpenCode's prune thresholds (SPEC §15.13): only for a preset that
    /// offers `prune` (absent elsewhere; null under `recorded`).
    #[serde(flatten)]
    pub prune: Option<PrunePolicyJson>,
    #[serde(flatten)]
    pub api: Option<PolicyApiJson>,
    /// `mask`'s keys (SPEC §15.13), for a preset that offers it.
    #[serde(flatten)]
    pub mask: Option<MaskPolicyJson>,
}

/// `prune`'s keys of the `policy` object (SPEC §15.13).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PrunePolicyJson {
    pub prune_protect_tokens: Option<u64>,
    pub prune_minimum_tokens: Option<u64>,
}

/// `mask`'s keys of the `policy` object (SPEC §15.13).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct MaskPolicyJson {
    pub mask_protect_tokens: Option<u64>,
    pub mask_min_prunable_tokens: Option<u64>,
    pub mask_protect_latest_turn: Option<bool>,
}

/// The `policy` object: gap thresholds print as integers when they are whole;
/// `keep_recent` as [`keep_recent_of`] says.
pub fn policy_json(p: &Policy, keep_recent: Option<u32>) -> PolicyJson {
    if p.kind.is_baseline() {
        // The baseline is read from the records: no parameter (SPEC §15.3).
        return PolicyJson {
            kind: p.kind,
            preset: p.preset_name(),
            keep_recent: None,
            gap_threshold_minutes: None,
            size_threshold: None,
            low_watermark: None,
            trigger_threshold: None,
            delivery: None,
            protect: None,
            clear_errors: None,
            budget_tokens: None,
            budget_min_saving: None,
            budget_warning_tokens: None,
            min_trigger_tool_uses: None,
            // A harness's own keys are there, null, as every other (SPEC §15.3).
            prune: p
                .read_here("prune_protect_tokens")
                .then_some(PrunePolicyJson {
                    prune_protect_tokens: None,
                    prune_minimum_tokens: None,
                }),
            api: None,
            mask: p
                .read_here("mask_protect_tokens")
                .then_some(MaskPolicyJson {
                    mask_protect_tokens: None,
                    mask_min_prunable_tokens: None,
                    mask_protect_latest_turn: None,
                }),
        };
    }
    let prunes = p.read_here("prune_protect_tokens");
    PolicyJson {
        kind: p.kind,
        preset: p.preset_name(),
        keep_recent,
        gap_threshold_minutes: Some(number(p.gap_threshold_minutes)),
        size_threshold: Some(p.size_threshold),
        low_watermark: Some(p.low_watermark),
        trigger_threshold: Some(p.trigger_threshold),
        delivery: Some(p.delivery),
        protect: Some(p.protect),
        clear_errors: Some(p.clear_errors),
        budget_tokens: Some(p.budget_tokens),
        budget_min_saving: Some(p.budget_min_saving),
        budget_warning_tokens: p.budget_warning_tokens,
        min_trigger_tool_uses: p.min_trigger_tool_uses,
        prune: prunes.then_some(PrunePolicyJson {
            prune_protect_tokens: Some(p.prune_protect_tokens),
            prune_minimum_tokens: Some(p.prune_minimum_tokens),
        }),
        api: policy_keys(p),
        mask: p
            .read_here("mask_protect_tokens")
            .then_some(MaskPolicyJson {
                mask_protect_tokens: Some(p.mask_protect_tokens),
                mask_min_prunable_tokens: Some(p.mask_min_prunable_tokens),
                mask_protect_latest_turn: Some(p.mask_protect_latest_turn),
            }),
    }
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

/// The `api` keys of the `policy` object (api preset only), in schema order.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PolicyApiJson {
    pub api_edits: Vec<Value>,
    pub api_excluded_count_toward_keep: bool,
    pub api_trigger_inclusive: bool,
    pub api_placeholder: String,
}

/// The `api` keys of the `policy` object (api preset only).
pub fn policy_keys(p: &Policy) -> Option<PolicyApiJson> {
    p.kind.is_api().then(|| PolicyApiJson {
        api_edits: p.api.edits_json(),
        api_excluded_count_toward_keep: p.api.excluded_count_toward_keep,
        api_trigger_inclusive: p.api.trigger_inclusive,
        api_placeholder: p.api.placeholder.clone(),
    })
}

/// The policy values one request's kind used (SPEC §15.6). Under `auto`, a
/// numeric value is None where the kind does not read that parameter
/// ([`PlanKind::reads`], the table of `policy::params`).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Used {
    keep: Option<u32>,
    gap: Option<f64>,
    size: Option<i64>,
    trigger: Option<u32>,
    budget_tokens: Option<u64>,
    budget_min_saving: Option<u64>,
    budget_warning: Option<u64>,
    min_trigger: Option<u32>,
    prune_protect: Option<u64>,
    prune_minimum: Option<u64>,
    mask_protect: Option<u64>,
    mask_min_prunable: Option<u64>,
    delivery: Delivery,
}

/// The values kind `kind` used at `req` (None: a session without requests).
/// With `only_read`, a parameter the kind does not read has none (`auto`,
/// SPEC §15.6); without, every value is given as the kind would take it (a
/// named kind's object, as it has always been).
fn used_at(p: &Policy, req: Option<&Request>, kind: PlanKind, only_read: bool) -> Used {
    let version = req.and_then(|r| r.version.as_deref());
    let keep = kind.keep_at(p, version);
    let read = |key: &str| !only_read || kind.reads(key, p.preset);
    // A value of the kind's own (a default by version), else the policy's.
    let own = |key: &str| kind.own_value(key, p, version);
    Used {
        keep: gate(read("keep_recent"), keep),
        gap: gate(read("gap_threshold_minutes"), Some(kind.gap(p))),
        size: gate(read("size_threshold"), Some(p.size_threshold)),
        trigger: gate(read("trigger_threshold"), Some(p.trigger_threshold)),
        budget_tokens: gate(read("budget_tokens"), Some(p.budget_tokens)),
        budget_min_saving: gate(read("budget_min_saving"), Some(p.budget_min_saving)),
        budget_warning: gate(
            read("budget_warning_tokens"),
            own("budget_warning_tokens").or(p.budget_warning_tokens),
        ),
        min_trigger: gate(
            read("min_trigger_tool_uses"),
            own("min_trigger_tool_uses")
                .and_then(|m| u32::try_from(m).ok())
                .or(p.min_trigger_tool_uses),
        ),
        prune_protect: gate(read("prune_protect_tokens"), Some(p.prune_protect_tokens)),
        prune_minimum: gate(read("prune_minimum_tokens"), Some(p.prune_minimum_tokens)),
        mask_protect: gate(read("mask_protect_tokens"), Some(p.mask_protect_tokens)),
        mask_min_prunable: gate(
            read("mask_min_prunable_tokens"),
            Some(p.mask_min_prunable_tokens),
        ),
        // auto's kinds are delivered as asked, but the server's own.
        delivery: if kind.server_only() {
            Delivery::Server
        } else {
            p.delivery
        },
    }
}

/// `v` where `on`, else none.
fn gate<T>(on: bool, v: Option<T>) -> Option<T> {
    if on { v } else { None }
}

/// The value every entry of `used` holds (None: none, or they differ).
fn common<T: PartialEq + Copy>(used: &[Used], f: impl Fn(&Used) -> Option<T>) -> Option<T> {
    let first = f(used.first()?)?;
    used.iter().all(|u| f(u) == Some(first)).then_some(first)
}

/// Parameter `key`'s value: the one `given` where it was given, else the one
/// every chosen kind used ([`common`]).
fn given_or_common<T: PartialEq + Copy>(
    setup: &Setup,
    used: &[Used],
    key: &str,
    given: Option<T>,
    f: impl Fn(&Used) -> Option<T>,
) -> Option<T> {
    if explicit(setup, key) {
        given
    } else {
        common(used, f)
    }
}

/// Whether the parameter `key` was given (flag, sidecar, config): the
/// policy's own mark where it has one, else where the setup says it came from.
pub fn explicit(setup: &Setup, key: &str) -> bool {
    let p = &setup.policy;
    match key {
        "keep_recent" => p.keep_recent.is_some(),
        "gap_threshold_minutes" => p.gap_explicit,
        "size_threshold" => p.size_explicit,
        "budget_warning_tokens" => p.budget_warning_tokens.is_some(),
        "min_trigger_tool_uses" => p.min_trigger_tool_uses.is_some(),
        _ => setup.settings.source(key) != crate::config::Source::Preset,
    }
}

/// The `policy` object over `at` (request, kind in force): each value the
/// explicit one, else the one every request with a kind used, else null
/// (SPEC §5, §15.6). With no request at all, the kinds `kinds` decide.
pub fn policy_over(setup: &Setup, at: &[(&Request, Option<PlanKind>)]) -> PolicyJson {
    let p = &setup.policy;
    if p.kind.is_baseline() {
        return policy_json(p, None);
    }
    let auto = p.kind.is_auto();
    let used: Vec<Used> = if setup.session.requests.is_empty() || at.is_empty() {
        setup
            .kinds_chosen()
            .iter()
            .map(|&k| used_at(p, None, k, auto))
            .collect()
    } else {
        at.iter()
            .filter_map(|&(r, k)| k.map(|k| used_at(p, Some(r), k, auto)))
            .collect()
    };
    let mut json = policy_json(p, None);
    // A kind that keeps by the keep given (not the api preset's edits).
    json.keep_recent = match p.keep_recent {
        Some(k) if p.kind.keep_at(p, None).is_some() => Some(k),
        _ => common(&used, |u| u.keep),
    };
    // Requests where auto chose no kind at all: the values are null (§15.6).
    let none_chosen = used.is_empty() && !at.is_empty() && !setup.session.requests.is_empty();
    if !p.gap_explicit {
        json.gap_threshold_minutes = match used.first() {
            Some(_) => common(&used, |u| u.gap).map(number),
            None if none_chosen || auto => None,
            None => Some(number(p.gap_threshold_minutes)),
        };
    }
    json.min_trigger_tool_uses = match p.min_trigger_tool_uses {
        Some(m) => Some(m),
        None => common(&used, |u| u.min_trigger),
    };
    json.delivery = match used.first() {
        Some(_) => common(&used, |u| Some(u.delivery)),
        None if none_chosen => None,
        None => Some(p.delivery),
    };
    if auto {
        // Each other numeric field as the kinds auto chose read it (§15.6).
        let pick = |key: &str, given, f: &dyn Fn(&Used) -> Option<u64>| {
            given_or_common(setup, &used, key, given, f)
        };
        json.size_threshold =
            given_or_common(setup, &used, "size_threshold", json.size_threshold, |u| {
                u.size
            });
        json.trigger_threshold = given_or_common(
            setup,
            &used,
            "trigger_threshold",
            json.trigger_threshold,
            |u| u.trigger,
        );
        json.budget_tokens = pick("budget_tokens", json.budget_tokens, &|u| u.budget_tokens);
        json.budget_min_saving = pick("budget_min_saving", json.budget_min_saving, &|u| {
            u.budget_min_saving
        });
        json.budget_warning_tokens =
            pick("budget_warning_tokens", json.budget_warning_tokens, &|u| {
                u.budget_warning
            });
        if let Some(prune) = json.prune.as_mut() {
            prune.prune_protect_tokens =
                pick("prune_protect_tokens", prune.prune_protect_tokens, &|u| {
                    u.prune_protect
                });
            prune.prune_minimum_tokens =
                pick("prune_minimum_tokens", prune.prune_minimum_tokens, &|u| {
                    u.prune_minimum
                });
        }
        if let Some(mask) = json.mask.as_mut() {
            mask.mask_protect_tokens =
                pick("mask_protect_tokens", mask.mask_protect_tokens, &|u| {
                    u.mask_protect
                });
            mask.mask_min_prunable_tokens = pick(
                "mask_min_prunable_tokens",
                mask.mask_min_prunable_tokens,
                &|u| u.mask_min_prunable,
            );
        }
    }
    json
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
/// several sessions, SPEC §15.6): each numeric value and the delivery where
/// both hold the same, else null; the flags are the first's.
pub fn policy_merged(mut a: PolicyJson, b: &PolicyJson) -> PolicyJson {
    fn both<T: PartialEq>(x: &mut Option<T>, y: &Option<T>) {
        if x != y {
            *x = None;
        }
    }
    both(&mut a.keep_recent, &b.keep_recent);
    both(&mut a.gap_threshold_minutes, &b.gap_threshold_minutes);
    both(&mut a.size_threshold, &b.size_threshold);
    both(&mut a.trigger_threshold, &b.trigger_threshold);
    both(&mut a.delivery, &b.delivery);
    both(&mut a.budget_tokens, &b.budget_tokens);
    both(&mut a.budget_min_saving, &b.budget_min_saving);
    both(&mut a.budget_warning_tokens, &b.budget_warning_tokens);
    both(&mut a.min_trigger_tool_uses, &b.min_trigger_tool_uses);
    if let (Some(x), Some(y)) = (a.prune.as_mut(), b.prune.as_ref()) {
        both(&mut x.prune_protect_tokens, &y.prune_protect_tokens);
        both(&mut x.prune_minimum_tokens, &y.prune_minimum_tokens);
    }
    if let (Some(x), Some(y)) = (a.mask.as_mut(), b.mask.as_ref()) {
        both(&mut x.mask_protect_tokens, &y.mask_protect_tokens);
        both(&mut x.mask_min_prunable_tokens, &y.mask_min_prunable_tokens);
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
}
