//! The plan's parameters in one table (SPEC §7 `policy`, §8): each one's JSON,
//! config and sidecar key, its flag, its TUI `:` command, and how to tell two
//! of its values apart. The header's marks (a `*` where a value differs from the one the
//! session was opened with, else where it came from) and the TUI's commands
//! read this table, so no parameter is left unmarked.

use super::Policy;

/// One parameter of a plan.
#[derive(Debug)]
pub struct Param {
    /// The key in the JSON `policy` object, the config file and the sidecar.
    pub key: &'static str,
    /// The command-line flag that sets it.
    pub flag: &'static str,
    /// The TUI's `:` command that tunes it, if there is one.
    pub command: Option<&'static str>,
    /// Whether two policies hold the same value (the header asks at every
    /// draw: a comparison, not a formatted copy).
    pub same: fn(&Policy, &Policy) -> bool,
}

/// Every parameter, commands first in the order the TUI lists them.
pub static PARAMS: &[Param] = &[
    Param {
        key: "gap_threshold_minutes",
        flag: "--gap-minutes",
        command: Some("gap"),
        same: |a, b| a.gap_threshold_minutes == b.gap_threshold_minutes,
    },
    Param {
        key: "keep_recent",
        flag: "--keep-recent",
        command: Some("keep"),
        same: |a, b| a.keep_recent == b.keep_recent,
    },
    Param {
        key: "size_threshold",
        flag: "--size-threshold",
        command: Some("size"),
        same: |a, b| a.size_threshold == b.size_threshold,
    },
    Param {
        key: "trigger_threshold",
        flag: "--trigger",
        command: Some("trigger"),
        same: |a, b| a.trigger_threshold == b.trigger_threshold,
    },
    Param {
        key: "kind",
        flag: "--policy",
        command: Some("policy"),
        same: |a, b| a.kind == b.kind,
    },
    Param {
        key: "delivery",
        flag: "--delivery",
        command: Some("delivery"),
        same: |a, b| a.delivery == b.delivery,
    },
    Param {
        key: "mask_protect_tokens",
        flag: "--protect-tokens",
        command: Some("mask-protect"),
        same: |a, b| a.mask_protect_tokens == b.mask_protect_tokens,
    },
    Param {
        key: "mask_min_prunable_tokens",
        flag: "--min-prunable-tokens",
        command: Some("mask-min"),
        same: |a, b| a.mask_min_prunable_tokens == b.mask_min_prunable_tokens,
    },
    Param {
        key: "api_edits",
        flag: "--api-edit",
        command: None,
        same: |a, b| a.api == b.api,
    },
    Param {
        key: "low_watermark",
        flag: "--no-low-watermark",
        command: None,
        same: |a, b| a.low_watermark == b.low_watermark,
    },
    Param {
        key: "protect",
        flag: "--protect",
        command: None,
        same: |a, b| a.protect == b.protect,
    },
    Param {
        key: "clear_errors",
        flag: "--clear-errors",
        command: None,
        same: |a, b| a.clear_errors == b.clear_errors,
    },
    Param {
        key: "min_trigger_tool_uses",
        flag: "--min-trigger-tool-uses",
        command: None,
        same: |a, b| a.min_trigger_tool_uses == b.min_trigger_tool_uses,
    },
    Param {
        key: "budget_tokens",
        flag: "--budget-tokens",
        command: None,
        same: |a, b| a.budget_tokens == b.budget_tokens,
    },
    Param {
        key: "budget_min_saving",
        flag: "--budget-min-saving",
        command: None,
        same: |a, b| a.budget_min_saving == b.budget_min_saving,
    },
    Param {
        key: "budget_warning_tokens",
        flag: "--budget-warning",
        command: None,
        same: |a, b| a.budget_warning_tokens == b.budget_warning_tokens,
    },
    Param {
        key: "mask_protect_latest_turn",
        flag: "--no-protect-latest-turn",
        command: None,
        same: |a, b| a.mask_protect_latest_turn == b.mask_protect_latest_turn,
    },
    Param {
        key: "prune_protect_tokens",
        flag: "--prune-protect",
        command: None,
        same: |a, b| a.prune_protect_tokens == b.prune_protect_tokens,
    },
    Param {
        key: "prune_minimum_tokens",
        flag: "--prune-minimum",
        command: None,
        same: |a, b| a.prune_minimum_tokens == b.prune_minimum_tokens,
    },
];

/// One parameter a harness's own plan reads, as a header shows it: its key
/// (for the header's marks), and the words before and after its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub key: &'static str,
    pub before: &'static str,
    pub value: String,
    pub after: &'static str,
}

/// The parameters of a plan kind that reads only its own (Gemini CLI's
/// `mask`, OpenCode's `prune`, SPEC §15.13), in the order a header shows
/// them; None for the kinds that read the shared ones (keep, gap, size…).
pub fn own(kind: super::PlanKind, p: &Policy) -> Option<Vec<Shown>> {
    use crate::numbers::fmt_int;
    let shown = |key, before, value, after| Shown {
        key,
        before,
        value,
        after,
    };
    match kind {
        super::PlanKind::Mask => Some(vec![
            shown(
                "mask_protect_tokens",
                "protect ",
                fmt_int(p.mask_protect_tokens),
                " tok",
            ),
            shown(
                "mask_min_prunable_tokens",
                "prunable ≥ ",
                fmt_int(p.mask_min_prunable_tokens),
                "",
            ),
            shown(
                "mask_protect_latest_turn",
                "",
                if p.mask_protect_latest_turn {
                    "latest turn skipped"
                } else {
                    "latest turn scanned"
                }
                .into(),
                "",
            ),
        ]),
        super::PlanKind::Prune => Some(vec![
            shown(
                "prune_protect_tokens",
                "protect ",
                fmt_int(p.prune_protect_tokens),
                " tok",
            ),
            shown(
                "prune_minimum_tokens",
                "minimum > ",
                fmt_int(p.prune_minimum_tokens),
                "",
            ),
        ]),
        _ => None,
    }
}

/// The keys of the parameters whose values differ between `a` and `b`.
pub fn changed(a: &Policy, b: &Policy) -> Vec<&'static str> {
    PARAMS
        .iter()
        .filter(|p| !(p.same)(a, b))
        .map(|p| p.key)
        .collect()
}

/// The TUI's `:` commands that tune a parameter, in the table's order.
pub fn commands() -> impl Iterator<Item = &'static str> {
    PARAMS.iter().filter_map(|p| p.command)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Harness;

    #[test]
    fn every_value_a_user_can_change_is_seen_as_changed() {
        let a = Policy::preset(Harness::Claude);
        let mut b = a.clone();
        b.trigger_threshold += 1;
        b.low_watermark = !b.low_watermark;
        b.gap_threshold_minutes = 7.5;
        assert_eq!(
            changed(&a, &b),
            [
                "gap_threshold_minutes",
                "trigger_threshold",
                "low_watermark"
            ]
        );
        assert!(changed(&a, &a).is_empty());
    }

    #[test]
    fn a_harness_s_own_plan_shows_only_its_own_parameters() {
        let mut p = Policy::preset(Harness::Claude);
        p.prune_protect_tokens = 30_000;
        let prune = own(crate::policy::PlanKind::Prune, &p).unwrap();
        let keys: Vec<&str> = prune.iter().map(|o| o.key).collect();
        assert_eq!(keys, ["prune_protect_tokens", "prune_minimum_tokens"]);
        assert_eq!(prune[0].value, "30,000");
        let mask = own(crate::policy::PlanKind::Mask, &p).unwrap();
        assert_eq!(mask.len(), 3);
        assert!(own(crate::policy::PlanKind::Idle, &p).is_none());
        // Every key is the table's, so the header can mark it.
        for o in prune.iter().chain(&mask) {
            assert!(PARAMS.iter().any(|q| q.key == o.key), "{}", o.key);
        }
    }

    #[test]
    fn keys_are_the_policy_json_s() {
        let json = serde_json::to_value(Policy::preset(Harness::Claude)).unwrap();
        for p in PARAMS {
            let key = if p.key == "api_edits" { "api" } else { p.key };
            assert!(json.get(key).is_some(), "{key} is no policy field");
        }
    }
}

#[cfg(test)]
mod wiring {
    use super::*;

    #[test]
    fn the_tui_commands_are_the_table_s_then_explain() {
        let mut want: Vec<&str> = commands().collect();
        want.push("explain");
        assert_eq!(crate::tui::app::COMMANDS, want.as_slice());
    }

    #[test]
    fn every_flag_is_one_plan_takes() {
        use clap::CommandFactory;
        let cli = crate::cli::Cli::command();
        let plan = cli.find_subcommand("plan").expect("plan");
        let longs: Vec<String> = plan
            .get_arguments()
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        for p in PARAMS {
            assert!(longs.iter().any(|l| l == p.flag), "{}", p.flag);
        }
    }
}
