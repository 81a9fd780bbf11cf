//! The command line's flags over the layers below them (config file, sidecar,
//! preset): each one given is the value, marked as a flag's.

use super::*;

/// The flags over the layers: each one given is the value, marked as a flag's.
pub(super) fn apply_flags(
    p: &mut Policy,
    opts: &Opts,
    sources: &mut std::collections::BTreeMap<&'static str, Source>,
) -> Result<(), UsageError> {
    // Every option by name: a field added to `Opts` does not compile until the
    // setup says what it does with it.
    let Opts {
        // The request is the caller's to pick (`request_index`).
        at: _,
        policy,
        preset: _,
        ref api_edit,
        api_excluded_count_toward_keep,
        api_trigger_inclusive,
        ref api_placeholder,
        keep_recent,
        gap_minutes,
        min_trigger_tool_uses,
        prune_protect,
        prune_minimum,
        size_threshold,
        protect_tokens,
        min_prunable_tokens,
        no_protect_latest_turn,
        no_low_watermark,
        trigger,
        // Settled with the kind (`settle_kind_and_delivery`).
        delivery: _,
        shared:
            SharedOpts {
                budget_tokens,
                budget_min_saving,
                budget_warning,
                protect,
                no_protect,
                clear_errors,
                no_clear_errors,
                memory_root: _,
                path_map: _,
                cache_ttl: _,
            },
        // The output format is the CLI's; the input format was the loader's.
        format: _,
        json: _,
        input_format: _,
        session: _,
    } = *opts;
    for (key, set) in flags_given(opts) {
        if set {
            sources.insert(key, Source::Flag);
        }
    }
    if let Some(k) = policy {
        p.kind = k;
    }
    if !api_edit.is_empty() {
        let list = api_edit
            .iter()
            .map(|t| {
                serde_json::from_str(t).map_err(|e| {
                    UsageError::bad(format!("--api-edit {t:?}"), format!("not JSON: {e}"))
                })
            })
            .collect::<Result<Vec<serde_json::Value>, _>>()?;
        p.api.edits = crate::policy::api::parse_edits(&list)
            .map_err(|e| UsageError::bad("--api-edit", e.to_string()))?;
    }
    p.api.excluded_count_toward_keep |= api_excluded_count_toward_keep;
    p.api.trigger_inclusive |= api_trigger_inclusive;
    if let Some(t) = api_placeholder {
        p.api.placeholder = t.clone();
    }
    p.budget_tokens = budget_tokens.unwrap_or(p.budget_tokens);
    p.budget_min_saving = budget_min_saving.unwrap_or(p.budget_min_saving);
    p.budget_warning_tokens = budget_warning.or(p.budget_warning_tokens);
    p.keep_recent = keep_recent.or(p.keep_recent);
    if let Some(g) = gap_minutes {
        // Opts built without clap (the TUI, tests) get clap's check here.
        p.gap_threshold_minutes =
            config::check_minutes(g).map_err(|e| UsageError::BadGap(e.to_string()))?;
        p.gap_explicit = true;
    }
    p.min_trigger_tool_uses = min_trigger_tool_uses.or(p.min_trigger_tool_uses);
    p.mask_protect_tokens = protect_tokens.unwrap_or(p.mask_protect_tokens);
    p.mask_min_prunable_tokens = min_prunable_tokens.unwrap_or(p.mask_min_prunable_tokens);
    if no_protect_latest_turn {
        p.mask_protect_latest_turn = false;
    }
    p.prune_protect_tokens = prune_protect.unwrap_or(p.prune_protect_tokens);
    p.prune_minimum_tokens = prune_minimum.unwrap_or(p.prune_minimum_tokens);
    p.size_threshold = size_threshold.unwrap_or(p.size_threshold);
    p.size_explicit |= size_threshold.is_some();
    if no_low_watermark {
        p.low_watermark = false;
    }
    p.trigger_threshold = trigger.unwrap_or(p.trigger_threshold);
    if protect {
        p.protect = true;
    }
    if no_protect {
        p.protect = false;
    }
    if clear_errors {
        p.clear_errors = true;
    }
    if no_clear_errors {
        p.clear_errors = false;
    }
    Ok(())
}

/// Which of the table's parameters (`policy::params`, by key) the options
/// give: the header marks each one given as a flag's, and `--policy recorded`
/// names the ones it refuses by the table's flag.
pub(super) fn flags_given(opts: &Opts) -> Vec<(&'static str, bool)> {
    vec![
        ("kind", opts.policy.is_some()),
        ("budget_tokens", opts.shared.budget_tokens.is_some()),
        ("budget_min_saving", opts.shared.budget_min_saving.is_some()),
        (
            "budget_warning_tokens",
            opts.shared.budget_warning.is_some(),
        ),
        ("keep_recent", opts.keep_recent.is_some()),
        ("gap_threshold_minutes", opts.gap_minutes.is_some()),
        (
            "min_trigger_tool_uses",
            opts.min_trigger_tool_uses.is_some(),
        ),
        ("prune_protect_tokens", opts.prune_protect.is_some()),
        ("prune_minimum_tokens", opts.prune_minimum.is_some()),
        ("size_threshold", opts.size_threshold.is_some()),
        ("mask_protect_tokens", opts.protect_tokens.is_some()),
        (
            "mask_min_prunable_tokens",
            opts.min_prunable_tokens.is_some(),
        ),
        ("mask_protect_latest_turn", opts.no_protect_latest_turn),
        ("low_watermark", opts.no_low_watermark),
        ("trigger_threshold", opts.trigger.is_some()),
        ("protect", opts.shared.protect || opts.shared.no_protect),
        (
            "clear_errors",
            opts.shared.clear_errors || opts.shared.no_clear_errors,
        ),
        ("delivery", opts.delivery.is_some()),
        ("api_edits", !opts.api_edit.is_empty()),
        (
            "api_excluded_count_toward_keep",
            opts.api_excluded_count_toward_keep,
        ),
        ("api_trigger_inclusive", opts.api_trigger_inclusive),
        ("api_placeholder", opts.api_placeholder.is_some()),
    ]
}
