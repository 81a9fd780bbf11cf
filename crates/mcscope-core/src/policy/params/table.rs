//! The parameter table: every parameter of a plan, one row each.

use super::in_policy::{EVERY_KIND, UNDER_AUTO, whole};
use super::*;
use serde_json::json;

/// Every parameter, in the order of the JSON `policy` object's keys (SPEC §7,
/// the harnesses' own after the shared ones): the config keys, `config
/// --print`, serde's list of keys and the TUI's `:` commands follow it.
pub static PARAMS: &[Param] = &[
    Param {
        key: "kind",
        flag: "--policy",
        takes: Takes::Named(crate::vocab::names_of::<PlanKind>),
        command: Some("policy"),
        set: None,
        same: |a, b| a.kind == b.kind,
        about: "The plan kind",
        range: None,
        // Each preset says what its `auto` chooses (`Harness::auto_words`).
        default: ByDefault::Made(|| {
            let each: Vec<String> = <crate::harness::PresetId as strum::VariantArray>::VARIANTS
                .iter()
                .map(|p| p.asks().auto_words())
                .collect();
            format!(
                "auto, the harness's own choice at each request: {}",
                each.join("; ")
            )
        }),
        // The default grid's kinds are the harness row's `grid_kinds`.
        compare: Compare::List {
            value: "KIND,…",
            e_g: "idle,size,count",
            axis: None,
        },
        keys: None,
        put: Put::Str(|p, k| {
            p.kind = super::PlanKind::parse(k).ok_or_else(|| "not a plan kind".to_string())?;
            Ok(())
        }),
        print: |p| Some(p.kind.name().into()),
        off: None,
        json: InPolicy::names(0, |p| json!(p.kind)),
    },
    Param {
        key: "keep_recent",
        flag: "--keep-recent",
        takes: Takes::Count,
        command: Some("keep"),
        set: Some(Set {
            parse: |p, v| match v.parse::<u32>() {
                Ok(k) if (1..=MAX_COUNT).contains(&k) => {
                    p.keep_recent = Some(k);
                    true
                }
                _ => false,
            },
            what: "a count of 1 or more",
            e_g: Some("3"),
        }),
        same: |a, b| a.keep_recent == b.keep_recent,
        about: "Results kept outside the plan: the most recent N",
        range: None,
        default: ByDefault::Made(|| {
            let (common, own) = crate::policy::default_keeps(true);
            format!("per plan kind: {common}, {}", own.join(", "))
        }),
        compare: Compare::List {
            value: "N,…",
            e_g: "2,5,10",
            axis: Some(Axis {
                name: "keep",
                short: "k",
                unit: "",
                unit_long: "",
                get: |p| p.keep_recent.map(KeyValue::U32),
            }),
        },
        keys: Some(&KEEP_KEYS),
        put: Put::U32(|p, k| p.keep_recent = Some(k)),
        print: |p| {
            Some(p.keep_recent.map_or_else(
                || {
                    let (common, own) = crate::policy::default_keeps(false);
                    // Where auto may run a kind that keeps by version.
                    if auto_may(p, PlanKind::keeps_by_version) {
                        format!("by plan kind ({common}, {})", own.join(", "))
                    } else {
                        common.to_string()
                    }
                },
                |k| k.to_string(),
            ))
        },
        off: None,
        // A kind that keeps by the keep given (not the api preset's edits).
        json: InPolicy::by_kind(
            2,
            |p| json!(p.kind.keep_at(p, None).and(p.keep_recent)),
            |k, p, version| k.keep_at(p, version).map(|v| json!(v)),
            EVERY_KIND,
        )
        .given(|p| p.keep_recent.is_some()),
    },
    Param {
        key: "gap_threshold_minutes",
        flag: "--gap-minutes",
        takes: Takes::Minutes,
        command: Some("gap"),
        set: Some(Set {
            parse: |p, v| match v.parse::<f64>() {
                Ok(m) if m.is_finite() => {
                    p.gap_threshold_minutes = m;
                    true
                }
                _ => false,
            },
            what: "minutes",
            e_g: Some("7.5"),
        }),
        same: |a, b| a.gap_threshold_minutes == b.gap_threshold_minutes,
        about: "Idle gap threshold in minutes",
        range: Some("negative disables"),
        // idle-server's own gap is Claude Code's constant, not a preset's.
        default: ByDefault::PresetThen(
            |p| num(p.gap_threshold_minutes),
            || {
                format!(
                    "idle-server {} unless given",
                    num(crate::harness::claude_idle_server::GAP_MINUTES)
                )
            },
        ),
        compare: Compare::List {
            value: "M,…",
            e_g: "5,30,60",
            axis: Some(Axis {
                name: "gap",
                short: "g",
                unit: "m",
                unit_long: " min",
                get: |p| Some(KeyValue::F64(p.gap_threshold_minutes)),
            }),
        },
        keys: Some(&GAP_KEYS),
        put: Put::F64(|p, g| {
            p.gap_threshold_minutes = finite_minutes(g)?;
            p.gap_explicit = true;
            Ok(())
        }),
        print: |p| {
            // A kind auto may run that reads its own gap unless one is given
            // (idle-server's).
            let own = p
                .preset
                .asks()
                .auto_kinds()
                .iter()
                .find_map(|&k| k.own_gap().filter(|_| !p.gap_explicit).map(|g| (k, g)));
            Some(match own {
                Some((k, g)) => format!("{} ({}: {})", p.gap_threshold_minutes, k.name(), num(g)),
                None => p.gap_threshold_minutes.to_string(),
            })
        },
        off: None,
        // idle-server's own gap where none is given (`Plan::own_gap`).
        json: InPolicy::by_kind(
            3,
            |p| whole(p.gap_threshold_minutes),
            |k, p, _| Some(whole(k.gap(p))),
            Settle {
                none: NoneInForce::PolicyUnlessAuto,
                ..EVERY_KIND
            },
        )
        .given(|p| p.gap_explicit),
    },
    Param {
        key: "size_threshold",
        flag: "--size-threshold",
        takes: Takes::Chars,
        command: Some("size"),
        set: Some(Set {
            parse: |p, v| match v.replace(['_', ','], "").parse::<i64>() {
                Ok(c) => {
                    p.size_threshold = c;
                    p.size_explicit = true;
                    true
                }
                _ => false,
            },
            what: "chars",
            e_g: Some("300000"),
        }),
        same: |a, b| a.size_threshold == b.size_threshold,
        about: "Size threshold in chars",
        range: Some("negative disables"),
        default: ByDefault::Preset(|p| p.size_threshold.to_string()),
        compare: Compare::List {
            value: "C,…",
            e_g: "200000,500000",
            axis: Some(Axis {
                name: "size",
                short: "s",
                unit: "",
                unit_long: "",
                get: |p| Some(KeyValue::I64(p.size_threshold)),
            }),
        },
        keys: Some(&SIZE_KEYS),
        put: Put::I64(|p, s| {
            p.size_threshold = s;
            p.size_explicit = true;
        }),
        print: |p| Some(p.size_threshold.to_string()),
        off: None,
        json: InPolicy::number(4, |p| json!(p.size_threshold)).given(|p| p.size_explicit),
    },
    Param {
        key: "low_watermark",
        flag: "--no-low-watermark",
        takes: Takes::Off,
        command: None,
        set: None,
        same: |a, b| a.low_watermark == b.low_watermark,
        about: "Clear down to the threshold instead of half of it: low watermark off",
        range: None,
        default: ByDefault::Preset(|p| on(p.low_watermark)),
        compare: Compare::Same,
        keys: None,
        put: Put::Bool(|p, w| p.low_watermark = w),
        print: |p| Some(p.low_watermark.to_string()),
        off: None,
        json: InPolicy::held(5, |p| json!(p.low_watermark)),
    },
    Param {
        key: "trigger_threshold",
        flag: "--trigger",
        takes: Takes::Count,
        command: Some("trigger"),
        set: Some(Set {
            parse: |p, v| match v.parse::<u32>() {
                Ok(t) if t <= MAX_COUNT => {
                    p.trigger_threshold = t;
                    true
                }
                _ => false,
            },
            what: "a count",
            e_g: Some("4"),
        }),
        same: |a, b| a.trigger_threshold == b.trigger_threshold,
        about: "Count plan: active results before deletions start",
        range: None,
        default: ByDefault::Preset(|p| p.trigger_threshold.to_string()),
        compare: Compare::List {
            value: "N,…",
            e_g: "5,10,20",
            axis: Some(Axis {
                name: "trigger",
                short: "t",
                unit: "",
                unit_long: "",
                get: |p| Some(KeyValue::U32(p.trigger_threshold)),
            }),
        },
        keys: None,
        put: Put::U32(|p, t| p.trigger_threshold = t),
        print: |p| Some(p.trigger_threshold.to_string()),
        off: None,
        json: InPolicy::number(6, |p| json!(p.trigger_threshold)),
    },
    Param {
        key: "delivery",
        flag: "--delivery",
        takes: Takes::Named(crate::vocab::names_of::<crate::policy::Delivery>),
        command: Some("delivery"),
        set: Some(Set {
            parse: |p, v| match crate::policy::Delivery::parse(v) {
                Some(d) => {
                    p.delivery = d;
                    true
                }
                None => false,
            },
            what: "rewrite or cache-edits",
            e_g: None,
        }),
        same: |a, b| a.delivery == b.delivery,
        about: "How clearings reach the API",
        range: None,
        default: ByDefault::Made(|| {
            "cache-edits for claude count, server for the api preset, else rewrite".into()
        }),
        // The default grid's deliveries are each kind's own (`compare::grid`).
        compare: Compare::List {
            value: "rewrite|cache-edits,…",
            e_g: "rewrite,cache-edits",
            axis: None,
        },
        keys: None,
        put: Put::Str(|p, d| {
            p.delivery = crate::policy::Delivery::parse(d).ok_or_else(|| {
                format!(
                    "not a delivery ({})",
                    crate::vocab::names::<crate::policy::Delivery>()
                )
            })?;
            Ok(())
        }),
        print: |p| Some(p.delivery.name().into()),
        off: None,
        // The kinds are delivered as asked, but the server's own.
        json: InPolicy::by_kind(
            7,
            |p| json!(p.delivery),
            |k, p, _| {
                Some(json!(if k.server_only() {
                    crate::policy::Delivery::Server
                } else {
                    p.delivery
                }))
            },
            Settle {
                given_stands: false,
                all_read: true,
                none: NoneInForce::Policy,
                ..EVERY_KIND
            },
        ),
    },
    Param {
        key: "protect",
        flag: "--protect",
        takes: Takes::On,
        command: None,
        set: None,
        same: |a, b| a.protect == b.protect,
        about: "Protect managed-memory reads",
        range: None,
        default: ByDefault::Preset(|p| on(p.protect)),
        compare: Compare::Same,
        keys: None,
        put: Put::Bool(|p, v| p.protect = v),
        print: |p| Some(p.protect.to_string()),
        off: Some(("--no-protect", "Do not protect managed-memory reads")),
        json: InPolicy::held(8, |p| json!(p.protect)),
    },
    Param {
        key: "clear_errors",
        flag: "--clear-errors",
        takes: Takes::On,
        command: None,
        set: None,
        same: |a, b| a.clear_errors == b.clear_errors,
        about: "Error results may be cleared",
        range: None,
        default: ByDefault::PresetThen(
            |p| on(p.clear_errors),
            || {
                let never: Vec<&str> = <HarnessId as strum::VariantArray>::VARIANTS
                    .iter()
                    .filter(|h| !h.rules().tools.errors_clearable)
                    .map(|h| h.name())
                    .collect();
                format!(
                    "{} never clear error results, whatever the flag",
                    never.join(" and ")
                )
            },
        ),
        compare: Compare::Same,
        keys: None,
        put: Put::Bool(|p, v| p.clear_errors = v),
        print: |p| Some(p.clear_errors.to_string()),
        off: Some((
            "--no-clear-errors",
            "Keep error results (on the presets whose harness can clear them)",
        )),
        json: InPolicy::held(9, |p| json!(p.clear_errors)),
    },
    Param {
        key: "budget_tokens",
        flag: "--budget-tokens",
        takes: Takes::Tokens,
        command: None,
        set: None,
        same: |a, b| a.budget_tokens == b.budget_tokens,
        about: "Budget plan: the tool-result tokens it clears down to",
        range: None,
        default: ByDefault::Preset(|p| p.budget_tokens.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, v| p.budget_tokens = v),
        print: |p| Some(p.budget_tokens.to_string()),
        off: None,
        json: InPolicy::number(10, |p| json!(p.budget_tokens)),
    },
    Param {
        key: "budget_min_saving",
        flag: "--budget-min-saving",
        takes: Takes::Tokens,
        command: None,
        set: None,
        same: |a, b| a.budget_min_saving == b.budget_min_saving,
        about: "Budget plan: the least saving that lets it fire",
        range: None,
        default: ByDefault::Preset(|p| p.budget_min_saving.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, v| p.budget_min_saving = v),
        print: |p| Some(p.budget_min_saving.to_string()),
        off: None,
        json: InPolicy::number(11, |p| json!(p.budget_min_saving)),
    },
    Param {
        key: "budget_warning_tokens",
        flag: "--budget-warning",
        takes: Takes::Tokens,
        command: None,
        set: None,
        same: |a, b| a.budget_warning_tokens == b.budget_warning_tokens,
        about: "Budget plan: the recorded usage it waits for",
        range: None,
        default: ByDefault::Made(|| {
            format!(
                "by version: {}",
                crate::harness::claude_budget::budget_warning_words()
            )
        }),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, w| p.budget_warning_tokens = Some(w)),
        print: |p| {
            Some(
                p.budget_warning_tokens
                    .map_or("by version".into(), |w| w.to_string()),
            )
        },
        off: None,
        // budget's gate by version where none is given.
        json: InPolicy::by_kind(
            12,
            |p| json!(p.budget_warning_tokens),
            |k, p, version| {
                k.own_value("budget_warning_tokens", p, version)
                    .or(p.budget_warning_tokens)
                    .map(|v| json!(v))
            },
            UNDER_AUTO,
        )
        .given(|p| p.budget_warning_tokens.is_some()),
    },
    Param {
        key: "min_trigger_tool_uses",
        flag: "--min-trigger-tool-uses",
        takes: Takes::Count,
        command: None,
        set: None,
        same: |a, b| a.min_trigger_tool_uses == b.min_trigger_tool_uses,
        about: crate::harness::claude_idle_server::MIN_TRIGGER_ABOUT,
        range: None,
        default: ByDefault::Made(|| {
            format!(
                "keep + {}",
                crate::harness::claude_idle_server::MIN_TRIGGER_OVER_KEEP
            )
        }),
        compare: Compare::Not,
        keys: None,
        put: Put::U32(|p, m| p.min_trigger_tool_uses = Some(m)),
        print: |p| {
            // idle-server (where auto may run it): SPEC §13.S4.
            auto_may(p, |k| k.reads("min_trigger_tool_uses", p.preset)).then(|| {
                p.min_trigger_tool_uses
                    .map_or("keep_recent + 15 (idle-server)".into(), |m| m.to_string())
            })
        },
        off: None,
        // idle-server's keep + 15 where none is given (SPEC §13.S4).
        json: InPolicy::by_kind(
            13,
            |p| json!(p.min_trigger_tool_uses),
            |k, p, version| {
                k.own_value("min_trigger_tool_uses", p, version)
                    .and_then(|m| u32::try_from(m).ok())
                    .or(p.min_trigger_tool_uses)
                    .map(|m| json!(m))
            },
            EVERY_KIND,
        )
        .given(|p| p.min_trigger_tool_uses.is_some()),
    },
    Param {
        key: "mask_protect_tokens",
        flag: "--protect-tokens",
        takes: Takes::Tokens,
        command: Some("mask-protect"),
        set: Some(Set {
            parse: |p, v| match v.parse::<u64>() {
                Ok(t) => {
                    p.mask_protect_tokens = t;
                    true
                }
                _ => false,
            },
            what: "tokens",
            e_g: Some("30000"),
        }),
        same: |a, b| a.mask_protect_tokens == b.mask_protect_tokens,
        about: "mask (Gemini CLI): the newest tokens of tool output it protects",
        range: None,
        default: ByDefault::Preset(|p| p.mask_protect_tokens.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, t| p.mask_protect_tokens = t),
        print: |p| {
            p.read_here("mask_protect_tokens")
                .then(|| p.mask_protect_tokens.to_string())
        },
        off: None,
        json: InPolicy::number(20, |p| json!(p.mask_protect_tokens)).own(),
    },
    Param {
        key: "mask_min_prunable_tokens",
        flag: "--min-prunable-tokens",
        takes: Takes::Tokens,
        command: Some("mask-min"),
        set: Some(Set {
            parse: |p, v| match v.parse::<u64>() {
                Ok(t) => {
                    p.mask_min_prunable_tokens = t;
                    true
                }
                _ => false,
            },
            what: "tokens",
            e_g: Some("10000"),
        }),
        same: |a, b| a.mask_min_prunable_tokens == b.mask_min_prunable_tokens,
        about: "mask (Gemini CLI): the least prunable tokens that let it mask",
        range: None,
        default: ByDefault::Preset(|p| p.mask_min_prunable_tokens.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, t| p.mask_min_prunable_tokens = t),
        print: |p| {
            p.read_here("mask_min_prunable_tokens")
                .then(|| p.mask_min_prunable_tokens.to_string())
        },
        off: None,
        json: InPolicy::number(21, |p| json!(p.mask_min_prunable_tokens)).own(),
    },
    Param {
        key: "mask_protect_latest_turn",
        flag: "--no-protect-latest-turn",
        takes: Takes::Off,
        command: None,
        set: None,
        same: |a, b| a.mask_protect_latest_turn == b.mask_protect_latest_turn,
        about: "mask (Gemini CLI): scan the latest content of the history too, as Gemini \
CLI's remote flag 45758819 set to false does: protect latest turn off",
        range: None,
        default: ByDefault::Preset(|p| on(p.mask_protect_latest_turn)),
        compare: Compare::Same,
        keys: None,
        put: Put::Bool(|p, v| p.mask_protect_latest_turn = v),
        print: |p| {
            p.read_here("mask_protect_latest_turn")
                .then(|| p.mask_protect_latest_turn.to_string())
        },
        off: None,
        json: InPolicy::held(22, |p| json!(p.mask_protect_latest_turn)).own(),
    },
    Param {
        key: "prune_protect_tokens",
        flag: "--prune-protect",
        takes: Takes::Tokens,
        command: None,
        set: None,
        same: |a, b| a.prune_protect_tokens == b.prune_protect_tokens,
        about: "prune (OpenCode): the newest tool-output tokens it never clears, \
OpenCode's PRUNE_PROTECT",
        range: None,
        default: ByDefault::Preset(|p| p.prune_protect_tokens.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, v| p.prune_protect_tokens = v),
        print: |p| {
            p.read_here("prune_protect_tokens")
                .then(|| p.prune_protect_tokens.to_string())
        },
        off: None,
        json: InPolicy::number(14, |p| json!(p.prune_protect_tokens)).own(),
    },
    Param {
        key: "prune_minimum_tokens",
        flag: "--prune-minimum",
        takes: Takes::Tokens,
        command: None,
        set: None,
        same: |a, b| a.prune_minimum_tokens == b.prune_minimum_tokens,
        about: "prune (OpenCode): what it must be able to clear, strictly more, before \
it marks anything, OpenCode's PRUNE_MINIMUM",
        range: None,
        default: ByDefault::Preset(|p| p.prune_minimum_tokens.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, v| p.prune_minimum_tokens = v),
        print: |p| {
            p.read_here("prune_minimum_tokens")
                .then(|| p.prune_minimum_tokens.to_string())
        },
        off: None,
        json: InPolicy::number(15, |p| json!(p.prune_minimum_tokens)).own(),
    },
    Param {
        key: "cline_context_window",
        flag: "--context-window",
        takes: Takes::Tokens,
        command: Some("window"),
        set: Some(Set {
            parse: |p, v| match v.parse::<u64>() {
                Ok(t) if t > 0 => {
                    p.cline_context_window = Some(t);
                    true
                }
                _ => false,
            },
            what: "tokens",
            e_g: Some("200000"),
        }),
        same: |a, b| a.cline_context_window == b.cline_context_window,
        about: "cline (Cline): the model's context window its limit is taken from \
(64,000: 37,000; 128,000: 98,000; 200,000: 160,000; else max(W - 40,000, 0.8 W))",
        range: None,
        default: ByDefault::Made(|| {
            "by the model id: claude-* 200,000 (1,000,000 with [1m]), else 128,000".into()
        }),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, t| p.cline_context_window = Some(t)),
        print: |p| {
            p.read_here("cline_context_window").then(|| {
                p.cline_context_window
                    .map_or_else(|| "by model".to_string(), |t| t.to_string())
            })
        },
        off: None,
        json: InPolicy::held(23, |p| json!(p.cline_context_window)).own(),
    },
    Param {
        key: "cline_dedupe",
        flag: "--no-dedupe",
        takes: Takes::Off,
        command: None,
        set: None,
        same: |a, b| a.cline_dedupe == b.cline_dedupe,
        about: "cline (Cline): truncate without first replacing duplicate file reads \
with the notice (a what-if: every classic build replaces them)",
        range: None,
        default: ByDefault::Preset(|p| on(p.cline_dedupe)),
        compare: Compare::Same,
        keys: None,
        put: Put::Bool(|p, v| p.cline_dedupe = v),
        print: |p| {
            p.read_here("cline_dedupe")
                .then(|| p.cline_dedupe.to_string())
        },
        off: None,
        json: InPolicy::held(24, |p| json!(p.cline_dedupe)).own(),
    },
    Param {
        key: "api_edits",
        flag: "--api-edit",
        takes: Takes::Json,
        command: None,
        set: None,
        same: |a, b| a.api == b.api,
        about: "api preset: one `context_management` edit, the API's own JSON object \
(repeatable, in the order sent), e.g. '{\"type\":\"clear_tool_uses_20250919\", \
\"trigger\":{\"type\":\"input_tokens\",\"value\":30000},\"keep\":{\"type\":\"tool_uses\", \
\"value\":5},\"clear_at_least\":{\"type\":\"input_tokens\",\"value\":5000}, \
\"exclude_tools\":[\"memory\"]}' or '{\"type\":\"clear_thinking_20251015\"}'",
        range: None,
        default: ByDefault::Made(|| {
            "one clear_tool_uses_20250919 with the documented defaults".into()
        }),
        compare: Compare::Own,
        keys: None,
        put: Put::List(|p, edits| {
            p.api.edits = crate::policy::api::parse_edits(edits)?;
            Ok(())
        }),
        print: |p| {
            p.kind
                .is_api()
                .then(|| serde_json::Value::Array(p.api.edits_json()).to_string())
        },
        off: None,
        json: InPolicy::api(16, |p| serde_json::Value::Array(p.api.edits_json())),
    },
];

/// Whether `auto` under the policy's preset may choose a kind that holds `f`.
fn auto_may(p: &Policy, f: impl Fn(PlanKind) -> bool) -> bool {
    p.preset.asks().auto_kinds().iter().any(|&k| f(k))
}
