//! The configuration file's and a sidecar's keys are the parameter table's
//! (`policy::params`), read alike by both (a sidecar is read by `setup`).

use crate::config::{Config, KeyValue as Value, PolicyKeys, Preset, Source};
use crate::policy::Policy;
use crate::policy::params::{self, Put};
use std::collections::BTreeMap;
use strum::VariantArray;

/// The keys serde lists when it refuses an unknown key (message `e`).
fn keys_listed(e: &str) -> Vec<String> {
    let list = e.split("expected one of ").nth(1).expect(e);
    let list = list.split(" at line").next().expect(e);
    list.split(", ")
        .map(|k| k.trim().trim_matches('`').to_string())
        .collect()
}

/// The policy keys the config file and a sidecar accept are the
/// parameter table's, and besides them only the preset, the api preset's
/// readings and a table per preset: a row added to `policy::params`
/// without its key, or a key without its row, fails here.
#[test]
fn the_policy_keys_are_the_parameter_table_s() {
    use crate::policy::params::PARAMS;
    let e = toml::from_str::<Config>("[policy]\nno_such_key = 1\n")
        .unwrap_err()
        .to_string();
    let config = keys_listed(&e);
    let e = crate::setup::Sidecar::parse(r#"{"no_such_key": 1}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(keys_listed(&e), config, "the sidecar's are the config's");
    let presets: Vec<&str> = <Preset as VariantArray>::VARIANTS
        .iter()
        .map(|&p| p.into())
        .collect();
    let others = [
        "preset",
        "api_excluded_count_toward_keep",
        "api_trigger_inclusive",
        "api_placeholder",
    ];
    let mut want: Vec<&str> = PARAMS.iter().map(|p| p.key).collect();
    want.extend(others);
    want.extend(&presets);
    want.sort_unstable();
    let mut got: Vec<&str> = config.iter().map(String::as_str).collect();
    got.sort_unstable();
    assert_eq!(got, want);
}

/// Every row of the table is a key of the config file and of a sidecar:
/// read as its type, applied to the policy and marked as the layer's, and
/// a value of another type is refused naming the key.
#[test]
fn every_row_of_the_table_is_a_config_and_sidecar_key() {
    use crate::session::HarnessId;
    let sample = |put: Put| -> (&str, serde_json::Value) {
        match put {
            Put::U32(_) | Put::U64(_) => ("7", serde_json::json!(7)),
            Put::I64(_) => ("-7", serde_json::json!(-7)),
            Put::F64(_) => ("7.5", serde_json::json!(7.5)),
            Put::Bool(_) => ("false", serde_json::json!(false)),
            Put::Str(_) => ("\"idle\"", serde_json::json!("idle")),
            Put::Preset(_) => ("\"qwen\"", serde_json::json!("qwen")),
            Put::List(_) => (
                "[{type = \"clear_thinking_20251015\"}]",
                serde_json::json!([{"type": "clear_thinking_20251015"}]),
            ),
        }
    };
    let mut n = 0;
    for row in params::keys() {
        let (toml_value, json_value) = sample(row.put);
        // A delivery takes its own names; a switch both values (one of
        // them is the preset's).
        let values = match (row.key, row.put) {
            ("delivery", _) => vec![("\"cache-edits\"", serde_json::json!("cache-edits"))],
            (_, Put::Bool(_)) => vec![
                ("false", serde_json::json!(false)),
                ("true", serde_json::json!(true)),
            ],
            _ => vec![(toml_value, json_value)],
        };
        let mut changed = false;
        for (toml_value, json_value) in values {
            let config = crate::config::parse(&format!("[policy]\n{} = {toml_value}\n", row.key))
                .unwrap_or_else(|e| panic!("{}: {e}", row.key));
            let side = crate::setup::Sidecar::parse(&format!("{{\"{}\": {json_value}}}", row.key))
                .unwrap_or_else(|e| panic!("{}: {e}", row.key));
            assert_eq!(config.policy, side.keys, "{}", row.key);
            let mut p = Policy::preset(HarnessId::Claude);
            let before = p.clone();
            let mut sources = BTreeMap::new();
            config
                .policy
                .apply(&mut p, Source::Config, &mut sources)
                .unwrap();
            if matches!(row.put, Put::Preset(_)) {
                assert!(sources.is_empty(), "the preset is read by setup");
                changed = true;
            } else {
                assert_eq!(sources.get(row.key), Some(&Source::Config), "{}", row.key);
                changed |= p != before;
            }
        }
        assert!(changed, "{}: no value set anything", row.key);
        // A value of another type: refused, the key named.
        let wrong = if matches!(row.put, Put::Str(_) | Put::Preset(_) | Put::List(_)) {
            "3"
        } else {
            "\"x\""
        };
        let e =
            crate::config::parse(&format!("[policy]\n{} = {wrong}\n", row.key)).expect_err(row.key);
        assert!(e.starts_with("line 2: ") && e.contains(row.key), "{e}");
        n += 1;
    }
    assert_eq!(n, params::PARAMS.len() + params::OTHER_KEYS.len());
}

#[test]
fn a_key_given_twice_or_unknown_and_a_null() {
    // A sidecar is read as a JSON object first: its last value wins.
    let s = crate::setup::Sidecar::parse(r#"{"keep_recent": 2, "keep_recent": 3}"#).unwrap();
    assert_eq!(s.keys.get("keep_recent"), Some(&Value::U32(3)));
    // The config file's parser refuses a key given twice.
    let e = crate::config::parse("[policy]\nkeep_recent = 2\nkeep_recent = 3\n").unwrap_err();
    assert!(
        e.starts_with("line 3:") && e.contains("duplicate key"),
        "{e}"
    );
    let s = crate::setup::Sidecar::parse(r#"{"budget_warning_tokens": null}"#).unwrap();
    assert_eq!(s.keys, PolicyKeys::default());
    let e = crate::config::parse("[policy.qwen]\nkeep_recnt = 3\n").unwrap_err();
    assert!(
        e.starts_with("line 2: unknown field `keep_recnt`, expected one of `kind`, `keep_recent`"),
        "{e}"
    );
}

/// `config --print` lists every key of the table but the preset (named on
/// its own line) under some preset and plan kind, with where it came from,
/// and leaves out a key where the policy does not read it.
#[test]
fn config_print_lists_each_key_where_the_policy_reads_it() {
    use crate::policy::PlanKind;
    use crate::session::HarnessId;
    let mut policies = Vec::new();
    for &h in <HarnessId as VariantArray>::VARIANTS {
        for &kind in <PlanKind as VariantArray>::VARIANTS {
            let mut p = Policy::preset(h);
            p.kind = kind;
            policies.push(p);
        }
    }
    let settings = crate::config::Settings::default();
    for row in params::keys() {
        let shown: Vec<&Policy> = policies
            .iter()
            .filter(|p| (row.print)(p).is_some())
            .collect();
        if matches!(row.put, Put::Preset(_)) {
            assert!(shown.is_empty());
            continue;
        }
        let p = shown
            .first()
            .unwrap_or_else(|| panic!("{}: never shown", row.key));
        let out = crate::config::describe(p, &settings);
        let line = format!("\n{} = {}  (preset)\n", row.key, (row.print)(p).unwrap());
        assert!(out.contains(&line), "{line:?} in {out}");
    }
    // A Gemini CLI key is left out for Claude Code, which has no mask.
    let out = crate::config::describe(&Policy::preset(HarnessId::Claude), &settings);
    assert!(!out.contains("mask_protect_tokens"), "{out}");
    assert!(out.contains("min_trigger_tool_uses = "), "{out}");
}

/// Two bad values: the first in the table's order is named, in the
/// config file (whose parser hands keys over by name) and in a sidecar
/// (as written) alike; two bad preset tables, the first in the
/// registry's order; a table of keys that is not one, in words.
#[test]
fn the_first_bad_value_is_the_table_s_first() {
    let e =
        crate::config::parse("[policy]\ndelivery = \"pigeon\"\nkind = \"bogus\"\n").unwrap_err();
    assert_eq!(e, "[policy] kind = \"bogus\": not a plan kind");
    let s = crate::setup::Sidecar::parse(r#"{"delivery": "pigeon", "kind": "bogus"}"#).unwrap();
    assert_eq!(
        s.keys.check().unwrap_err(),
        "kind = \"bogus\": not a plan kind"
    );
    let e = crate::config::parse("[policy.gemini]\nkind = \"b1\"\n[policy.qwen]\nkind = \"b2\"\n")
        .unwrap_err();
    assert_eq!(e, "[qwen] kind = \"b2\": not a plan kind");
    let e = crate::setup::Sidecar::parse(r#"{"qwen": 5}"#).unwrap_err();
    assert_eq!(e, "line 1: qwen: expected a table of policy keys, found 5");
}
