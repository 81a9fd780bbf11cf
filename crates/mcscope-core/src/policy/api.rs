//! The `api` preset's parameters (SPEC §11): Anthropic's context-editing
//! strategies as the Messages API takes them (`context_management.edits`), read
//! from the API's own edit objects and checked with errors that name the field.

use serde_json::Value;

pub use crate::vocab::policy::{
    ApiSpec, CLEAR_THINKING, CLEAR_TOOL_USES, ClearInputs, Edit, TriggerOn, default_clear_tool_uses,
};

impl Default for ApiSpec {
    fn default() -> ApiSpec {
        ApiSpec {
            edits: vec![default_clear_tool_uses()],
            excluded_count_toward_keep: false,
            trigger_inclusive: false,
            placeholder: crate::harness::PresetId::SERVER
                .rules()
                .placeholder
                .to_string(),
        }
    }
}

/// Parses a list of edit objects, in the order sent; `clear_thinking` must come
/// first when both are sent (the API's own rule).
pub fn parse_edits(list: &[Value]) -> Result<Vec<Edit>, String> {
    let edits = list
        .iter()
        .enumerate()
        .map(|(i, v)| parse_edit(v).map_err(|e| format!("api_edits[{i}]: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(t) = edits
        .iter()
        .position(|e| matches!(e, Edit::ClearThinking { .. }))
        && edits[..t]
            .iter()
            .any(|e| matches!(e, Edit::ClearToolUses { .. }))
    {
        return Err(format!(
            "api_edits[{t}]: {CLEAR_THINKING} must come before {CLEAR_TOOL_USES} (the API refuses it after)"
        ));
    }
    Ok(edits)
}

/// One edit object; the error names the field and what it expected.
pub fn parse_edit(v: &Value) -> Result<Edit, String> {
    let o = v
        .as_object()
        .ok_or_else(|| format!("expected an edit object, got {v}"))?;
    let kind = o
        .get("type")
        .and_then(Value::as_str)
        .ok_or("type: missing (clear_tool_uses_20250919 or clear_thinking_20251015)")?;
    let allowed: &[&str] = match kind {
        CLEAR_TOOL_USES => &[
            "type",
            "trigger",
            "keep",
            "clear_at_least",
            "exclude_tools",
            "clear_tool_inputs",
        ],
        CLEAR_THINKING => &["type", "keep"],
        other => {
            return Err(format!(
                "type: unknown edit {other:?} (clear_tool_uses_20250919 or clear_thinking_20251015)"
            ));
        }
    };
    if let Some(k) = o.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!("{k}: not a field of {kind}"));
    }
    if kind == CLEAR_THINKING {
        let keep = match o.get("keep") {
            None => Some(1),
            Some(Value::String(s)) if s == "all" => None,
            Some(k) => Some(typed_value(k, "keep", &["thinking_turns"])?.1),
        };
        return Ok(Edit::ClearThinking { keep });
    }
    let trigger = match o.get("trigger") {
        None => TriggerOn::InputTokens(100_000),
        Some(t) => match typed_value(t, "trigger", &["input_tokens", "tool_uses"])? {
            ("input_tokens", n) => TriggerOn::InputTokens(n),
            (_, n) => TriggerOn::ToolUses(n),
        },
    };
    let keep = match o.get("keep") {
        None => 3,
        Some(k) => typed_value(k, "keep", &["tool_uses"])?.1,
    };
    let clear_at_least = o
        .get("clear_at_least")
        .map(|c| typed_value(c, "clear_at_least", &["input_tokens"]).map(|x| x.1))
        .transpose()?;
    let exclude_tools = match o.get("exclude_tools") {
        None => Vec::new(),
        Some(v) => names(v, "exclude_tools")?,
    };
    let clear_inputs = match o.get("clear_tool_inputs") {
        None | Some(Value::Bool(false)) => ClearInputs::None,
        Some(Value::Bool(true)) => ClearInputs::All,
        Some(v @ Value::Array(_)) => ClearInputs::Tools(names(v, "clear_tool_inputs")?),
        Some(other) => {
            return Err(format!(
                "clear_tool_inputs: expected true, false or a list of tool names, got {other}"
            ));
        }
    };
    Ok(Edit::ClearToolUses {
        trigger,
        keep,
        clear_at_least,
        exclude_tools,
        clear_inputs,
    })
}

/// `{"type": T, "value": n}` with T one of `types` and n a whole number >= 0.
fn typed_value(
    v: &Value,
    field: &str,
    types: &[&'static str],
) -> Result<(&'static str, u64), String> {
    let expected = || {
        let t: Vec<String> = types.iter().map(|t| format!("{t:?}")).collect();
        format!("{{\"type\": {}, \"value\": N}}", t.join(" | "))
    };
    let o = v
        .as_object()
        .ok_or_else(|| format!("{field}: expected {}, got {v}", expected()))?;
    if let Some(k) = o.keys().find(|k| *k != "type" && *k != "value") {
        return Err(format!(
            "{field}.{k}: not a field (expected {})",
            expected()
        ));
    }
    let t = o
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{field}.type: missing (expected {})", expected()))?;
    let t = types
        .iter()
        .find(|x| **x == t)
        .ok_or_else(|| format!("{field}.type: {t:?} is not one of {}", expected()))?;
    let n = o
        .get("value")
        .ok_or_else(|| format!("{field}.value: missing"))?;
    let n = n
        .as_u64()
        .ok_or_else(|| format!("{field}.value: expected a whole number >= 0, got {n}"))?;
    Ok((t, n))
}

fn names(v: &Value, field: &str) -> Result<Vec<String>, String> {
    let a = v
        .as_array()
        .ok_or_else(|| format!("{field}: expected a list of tool names, got {v}"))?;
    a.iter()
        .enumerate()
        .map(|(i, x)| {
            x.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("{field}[{i}]: expected a tool name, got {x}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_triggers_of_the_api_edits_are_named_by_their_types() {
        use crate::policy::Trigger;
        assert_eq!(Trigger::ClearToolUses.name(), CLEAR_TOOL_USES);
        assert_eq!(Trigger::ClearThinking.name(), CLEAR_THINKING);
        assert_eq!(
            serde_json::to_string(&Trigger::ClearThinking).unwrap(),
            "\"clear_thinking_20251015\""
        );
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let e = parse_edit(&json!({"type": CLEAR_TOOL_USES})).unwrap();
        assert_eq!(e, default_clear_tool_uses());
        let t = parse_edit(&json!({"type": CLEAR_THINKING})).unwrap();
        assert_eq!(t, Edit::ClearThinking { keep: Some(1) });
        let all = parse_edit(&json!({"type": CLEAR_THINKING, "keep": "all"})).unwrap();
        assert_eq!(all, Edit::ClearThinking { keep: None });
    }

    #[test]
    fn every_field_parses_and_round_trips() {
        let v = json!({"type": CLEAR_TOOL_USES,
            "trigger": {"type": "tool_uses", "value": 12},
            "keep": {"type": "tool_uses", "value": 4},
            "clear_at_least": {"type": "input_tokens", "value": 5000},
            "exclude_tools": ["memory"],
            "clear_tool_inputs": ["Bash"]});
        let e = parse_edit(&v).unwrap();
        assert_eq!(
            e,
            Edit::ClearToolUses {
                trigger: TriggerOn::ToolUses(12),
                keep: 4,
                clear_at_least: Some(5000),
                exclude_tools: vec!["memory".into()],
                clear_inputs: ClearInputs::Tools(vec!["Bash".into()]),
            }
        );
        assert_eq!(e.to_json(), v);
    }

    #[test]
    fn errors_name_the_bad_field() {
        let err = |v: Value| parse_edits(&[v]).unwrap_err();
        assert_eq!(
            err(json!({"type": "clear_everything"})),
            "api_edits[0]: type: unknown edit \"clear_everything\" (clear_tool_uses_20250919 or clear_thinking_20251015)"
        );
        let e = err(json!({"type": CLEAR_TOOL_USES, "trigger": {"type": "minutes", "value": 3}}));
        assert!(
            e.starts_with("api_edits[0]: trigger.type: \"minutes\""),
            "{e}"
        );
        let e = err(json!({"type": CLEAR_TOOL_USES, "keep": {"type": "tool_uses", "value": -1}}));
        assert!(
            e.starts_with("api_edits[0]: keep.value: expected a whole number"),
            "{e}"
        );
        let e = err(json!({"type": CLEAR_TOOL_USES, "exclude_tools": "memory"}));
        assert!(
            e.starts_with("api_edits[0]: exclude_tools: expected a list"),
            "{e}"
        );
        let e = err(json!({"type": CLEAR_TOOL_USES, "clear_tool_inputs": "yes"}));
        assert!(e.starts_with("api_edits[0]: clear_tool_inputs:"), "{e}");
        let e = err(json!({"type": CLEAR_TOOL_USES, "keep_recent": 3}));
        assert_eq!(
            e,
            "api_edits[0]: keep_recent: not a field of clear_tool_uses_20250919"
        );
        let e = err(json!({"type": CLEAR_THINKING, "keep": {"type": "tool_uses", "value": 1}}));
        assert!(
            e.starts_with("api_edits[0]: keep.type: \"tool_uses\""),
            "{e}"
        );
        // Thinking first, as the API requires.
        let e = parse_edits(&[
            json!({"type": CLEAR_TOOL_USES}),
            json!({"type": CLEAR_THINKING}),
        ])
        .unwrap_err();
        assert!(
            e.starts_with("api_edits[1]: clear_thinking_20251015 must come before"),
            "{e}"
        );
        assert!(
            parse_edits(&[
                json!({"type": CLEAR_THINKING}),
                json!({"type": CLEAR_TOOL_USES})
            ])
            .is_ok()
        );
    }

    #[test]
    fn the_trigger_is_strict_unless_inclusive() {
        let mut spec = ApiSpec::default();
        assert!(!spec.exceeds(100, 100));
        assert!(spec.exceeds(101, 100));
        spec.trigger_inclusive = true;
        assert!(spec.exceeds(100, 100));
    }
}
