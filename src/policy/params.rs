//! The plan's parameters in one table (SPEC §7 `policy`, §8): each one's JSON,
//! config and sidecar key, its flag, its TUI `:` command, and how to tell two
//! of its values apart. The header's marks (a `*` where a value differs from the one the
//! session was opened with, else where it came from) and the TUI's commands
//! read this table, so no parameter is left unmarked.

use super::{PlanKind, Policy};

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
    /// For a numeric parameter, the plan kinds that read it when they decide,
    /// each with the engine function that reads it cited beside it: under
    /// `auto`, the `policy` object gives a kind that does not read it no value
    /// (SPEC §15.6). None for the others (the kind, the delivery, the api
    /// edits and the flags), which this column does not follow.
    pub read_by: Option<&'static [Read]>,
}

/// A plan kind that reads a parameter, and when.
pub type Read = (PlanKind, When);

/// When a plan kind reads a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Whenever it decides.
    Always,
    /// Only under a preset whose `size` plan is off with idle
    /// (`size_needs_idle`: qwen's settings coupling, SPEC §5).
    SizeNeedsIdle,
}

/// Every parameter, commands first in the order the TUI lists them.
pub static PARAMS: &[Param] = &[
    Param {
        key: "gap_threshold_minutes",
        flag: "--gap-minutes",
        command: Some("gap"),
        same: |a, b| a.gap_threshold_minutes == b.gap_threshold_minutes,
        // idle: engine/mod.rs `Engine::evaluate` (its Idle arm, through
        // `Policy::gap_holds`); idle-server: engine/idle_server.rs
        // `Engine::idle_server_params` (the explicit gap, else its own 65);
        // size: `Engine::evaluate`'s Size arm, only for qwen's coupling.
        read_by: Some(&[
            (PlanKind::Idle, When::Always),
            (PlanKind::IdleServer, When::Always),
            (PlanKind::Size, When::SizeNeedsIdle),
        ]),
    },
    Param {
        key: "keep_recent",
        flag: "--keep-recent",
        command: Some("keep"),
        same: |a, b| a.keep_recent == b.keep_recent,
        // idle, forced: engine/idle.rs `Engine::time_based` and
        // `Engine::media_to_clear` (`Policy::keep_for`); size: engine/size.rs
        // `Engine::size` and engine/size_index.rs; count: engine/count.rs
        // `Engine::count`; budget: engine/budget_plan.rs `Engine::budget`;
        // idle-server: engine/idle_server.rs `Engine::idle_server_params`
        // (by version when none is given). Not mask, prune or api.
        read_by: Some(&[
            (PlanKind::Idle, When::Always),
            (PlanKind::Forced, When::Always),
            (PlanKind::Size, When::Always),
            (PlanKind::Count, When::Always),
            (PlanKind::Budget, When::Always),
            (PlanKind::IdleServer, When::Always),
        ]),
    },
    Param {
        key: "size_threshold",
        flag: "--size-threshold",
        command: Some("size"),
        same: |a, b| a.size_threshold == b.size_threshold,
        // engine/size.rs `Engine::size`, engine/size_index.rs.
        read_by: Some(&[(PlanKind::Size, When::Always)]),
    },
    Param {
        key: "trigger_threshold",
        flag: "--trigger",
        command: Some("trigger"),
        same: |a, b| a.trigger_threshold == b.trigger_threshold,
        // engine/count.rs `Engine::count`.
        read_by: Some(&[(PlanKind::Count, When::Always)]),
    },
    Param {
        key: "kind",
        flag: "--policy",
        command: Some("policy"),
        same: |a, b| a.kind == b.kind,
        read_by: None,
    },
    Param {
        key: "delivery",
        flag: "--delivery",
        command: Some("delivery"),
        same: |a, b| a.delivery == b.delivery,
        read_by: None,
    },
    Param {
        key: "mask_protect_tokens",
        flag: "--protect-tokens",
        command: Some("mask-protect"),
        same: |a, b| a.mask_protect_tokens == b.mask_protect_tokens,
        // engine/mask.rs `Engine::mask`.
        read_by: Some(&[(PlanKind::Mask, When::Always)]),
    },
    Param {
        key: "mask_min_prunable_tokens",
        flag: "--min-prunable-tokens",
        command: Some("mask-min"),
        same: |a, b| a.mask_min_prunable_tokens == b.mask_min_prunable_tokens,
        // engine/mask.rs `Engine::mask`.
        read_by: Some(&[(PlanKind::Mask, When::Always)]),
    },
    Param {
        key: "api_edits",
        flag: "--api-edit",
        command: None,
        same: |a, b| a.api == b.api,
        read_by: None,
    },
    Param {
        key: "low_watermark",
        flag: "--no-low-watermark",
        command: None,
        same: |a, b| a.low_watermark == b.low_watermark,
        read_by: None,
    },
    Param {
        key: "protect",
        flag: "--protect",
        command: None,
        same: |a, b| a.protect == b.protect,
        read_by: None,
    },
    Param {
        key: "clear_errors",
        flag: "--clear-errors",
        command: None,
        same: |a, b| a.clear_errors == b.clear_errors,
        read_by: None,
    },
    Param {
        key: "min_trigger_tool_uses",
        flag: "--min-trigger-tool-uses",
        command: None,
        same: |a, b| a.min_trigger_tool_uses == b.min_trigger_tool_uses,
        // engine/idle_server.rs `Engine::idle_server_params` (keep + 15
        // when none is given).
        read_by: Some(&[(PlanKind::IdleServer, When::Always)]),
    },
    Param {
        key: "budget_tokens",
        flag: "--budget-tokens",
        command: None,
        same: |a, b| a.budget_tokens == b.budget_tokens,
        // engine/budget_plan.rs `Engine::budget`, policy/budget.rs `decide`.
        read_by: Some(&[(PlanKind::Budget, When::Always)]),
    },
    Param {
        key: "budget_min_saving",
        flag: "--budget-min-saving",
        command: None,
        same: |a, b| a.budget_min_saving == b.budget_min_saving,
        // engine/budget_plan.rs `Engine::budget`, policy/budget.rs `decide`.
        read_by: Some(&[(PlanKind::Budget, When::Always)]),
    },
    Param {
        key: "budget_warning_tokens",
        flag: "--budget-warning",
        command: None,
        same: |a, b| a.budget_warning_tokens == b.budget_warning_tokens,
        // engine/budget_plan.rs `Engine::budget`, through
        // `Policy::budget_warning_at` (by version when none is given).
        read_by: Some(&[(PlanKind::Budget, When::Always)]),
    },
    Param {
        key: "mask_protect_latest_turn",
        flag: "--no-protect-latest-turn",
        command: None,
        same: |a, b| a.mask_protect_latest_turn == b.mask_protect_latest_turn,
        read_by: None,
    },
    Param {
        key: "prune_protect_tokens",
        flag: "--prune-protect",
        command: None,
        same: |a, b| a.prune_protect_tokens == b.prune_protect_tokens,
        // engine/prune.rs `Engine::prune`.
        read_by: Some(&[(PlanKind::Prune, When::Always)]),
    },
    Param {
        key: "prune_minimum_tokens",
        flag: "--prune-minimum",
        command: None,
        same: |a, b| a.prune_minimum_tokens == b.prune_minimum_tokens,
        // engine/prune.rs `Engine::prune`.
        read_by: Some(&[(PlanKind::Prune, When::Always)]),
    },
];

impl PlanKind {
    /// Whether this kind reads the numeric parameter `key` when it decides
    /// under preset `preset`: the table's `read_by` (SPEC §15.6). False for a
    /// parameter the column does not follow.
    pub fn reads(self, key: &str, preset: crate::session::Harness) -> bool {
        PARAMS
            .iter()
            .find(|p| p.key == key)
            .and_then(|p| p.read_by)
            .is_some_and(|by| {
                by.iter().any(|&(k, when)| {
                    k == self
                        && match when {
                            When::Always => true,
                            When::SizeNeedsIdle => preset.rules().size_needs_idle,
                        }
                })
            })
    }
}

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

    /// SPEC §15.6: what each plan kind reads, as the table says (the
    /// engine's functions are cited in it).
    #[test]
    fn s15_6_each_kind_reads_its_own_numeric_parameters() {
        use crate::policy::PlanKind::*;
        let numeric: Vec<&str> = PARAMS
            .iter()
            .filter(|p| p.read_by.is_some())
            .map(|p| p.key)
            .collect();
        let read = |k: crate::policy::PlanKind, h: Harness| -> Vec<&str> {
            numeric
                .iter()
                .copied()
                .filter(|key| k.reads(key, h))
                .collect()
        };
        let c = Harness::Claude;
        assert_eq!(read(Idle, c), ["gap_threshold_minutes", "keep_recent"]);
        assert_eq!(read(Forced, c), ["keep_recent"]);
        assert_eq!(read(Size, c), ["keep_recent", "size_threshold"]);
        assert_eq!(
            read(Size, Harness::Qwen),
            ["gap_threshold_minutes", "keep_recent", "size_threshold"]
        );
        assert_eq!(read(Count, c), ["keep_recent", "trigger_threshold"]);
        assert_eq!(
            read(Budget, c),
            [
                "keep_recent",
                "budget_tokens",
                "budget_min_saving",
                "budget_warning_tokens"
            ]
        );
        assert_eq!(
            read(IdleServer, c),
            [
                "gap_threshold_minutes",
                "keep_recent",
                "min_trigger_tool_uses"
            ]
        );
        assert_eq!(
            read(Mask, Harness::Gemini),
            ["mask_protect_tokens", "mask_min_prunable_tokens"]
        );
        assert_eq!(
            read(Prune, Harness::Opencode),
            ["prune_protect_tokens", "prune_minimum_tokens"]
        );
        for k in [Auto, Api, Recorded] {
            assert!(read(k, c).is_empty(), "{}", k.name());
        }
        // Every numeric field of the policy object is in the column.
        let json = serde_json::to_value(Policy::preset(Harness::Claude)).unwrap();
        for (key, v) in json.as_object().unwrap() {
            let numeric_field = v.is_number()
                || key == "budget_warning_tokens"
                || key == "keep_recent"
                || key == "min_trigger_tool_uses";
            assert_eq!(numeric_field, numeric.contains(&key.as_str()), "{key}");
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
