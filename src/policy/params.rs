//! The plan's parameters in one table (SPEC §7 `policy`, §8): each one's JSON,
//! config and sidecar key, its flag and the words of its `--help`, its default
//! per harness (read from the harness's preset, not copied), how `compare`
//! takes it, its TUI `:` command and keys, and how to tell two of its values
//! apart. The header's marks (a `*` where a value differs from the one the
//! session was opened with, else where it came from), the TUI's commands and
//! keys and the flags' help read this table, so a parameter is described once.

use super::{PlanKind, Policy};
use crate::session::HarnessId;

/// The largest count a parameter takes (keep, trigger, minimum trigger): a
/// billion results is more than any session holds, and the counts the plans
/// add to it (`keep + 15`) stay far from u32's end.
pub const MAX_COUNT: u32 = 1_000_000_000;

/// One parameter of a plan.
#[derive(Debug)]
pub struct Param {
    /// The key in the JSON `policy` object, the config file and the sidecar.
    pub key: &'static str,
    /// The command-line flag that sets it.
    pub flag: &'static str,
    /// The TUI's `:` command that tunes it, if there is one.
    pub command: Option<&'static str>,
    /// How that command reads its value (`:policy`, which also settles the
    /// delivery, is the TUI's own).
    pub set: Option<Set>,
    /// Whether two policies hold the same value (the header asks at every
    /// draw: a comparison, not a formatted copy).
    pub same: fn(&Policy, &Policy) -> bool,
    /// For a numeric parameter, the plan kinds that read it when they decide,
    /// each with the engine function that reads it cited beside it: under
    /// `auto`, the `policy` object gives a kind that does not read it no value
    /// (SPEC §15.6). None for the others (the kind, the delivery, the api
    /// edits and the flags), which this column does not follow.
    pub read_by: Option<&'static [Read]>,
    /// What it sets, the start of its flag's `--help`.
    pub about: &'static str,
    /// The values the flag takes where clap's value list does not say them
    /// (None: a switch, or a named value clap lists).
    pub range: Option<&'static str>,
    /// Its default, as `--help` says it.
    pub default: ByDefault,
    /// How `compare` takes the flag.
    pub compare: Compare,
    /// The TUI keys that step it, if there are any.
    pub keys: Option<&'static Keys>,
    /// How the config file and a sidecar read its key, and what the value
    /// sets (SPEC §8): a key is accepted, checked and applied because its row
    /// is here.
    pub put: Put,
    /// Its line of `config --print`.
    pub print: Print,
    /// The switch that turns it off, where it has one (`--no-protect`), and
    /// that switch's `--help`.
    pub off: Option<(&'static str, &'static str)>,
}

/// A key's value as `config --print` shows it; None where the policy's preset
/// or plan kind does not read the key (its line is left out).
pub type Print = fn(&Policy) -> Option<String>;

/// How the config file and a sidecar read a key's value (the type serde
/// reads, so a wrong one is named as before), and what it sets in the policy.
/// A function that returns an error refuses the value: the words say why.
#[derive(Debug, Clone, Copy)]
pub enum Put {
    U32(fn(&mut Policy, u32)),
    U64(fn(&mut Policy, u64)),
    I64(fn(&mut Policy, i64)),
    F64(fn(&mut Policy, f64) -> Result<(), String>),
    Bool(fn(&mut Policy, bool)),
    Str(fn(&mut Policy, &str) -> Result<(), String>),
    /// The api preset's edits: the API's own JSON objects.
    List(fn(&mut Policy, &[serde_json::Value]) -> Result<(), String>),
    /// The preset, which chooses the rules the other keys apply over: setup
    /// reads it first (`choose_preset`); the function says whether a name is
    /// one.
    Preset(fn(&str) -> bool),
}

/// A config and sidecar key: a parameter's, or one of [`OTHER_KEYS`].
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub key: &'static str,
    pub put: Put,
    pub print: Print,
    /// The flag that sets it and the flag's `--help`, where the table gives
    /// them (the preset's flag is clap's value list, described by clap).
    pub flag: Option<(&'static str, Help)>,
}

/// A flag's `--help`, made when the help is (it may read a harness's
/// constants).
pub type Help = fn() -> String;

/// The keys of the config file and the sidecar that are no row of [`PARAMS`]:
/// the preset, and the api preset's readings where the documentation is
/// silent (SPEC §11; their flags are the api preset's own, `setup` marks them).
pub static OTHER_KEYS: &[Key] = &[
    Key {
        key: "preset",
        put: Put::Preset(|name| name.parse::<crate::harness::PresetId>().is_ok()),
        // `config --print` names the preset on its own line, before the keys.
        print: |_| None,
        flag: None,
    },
    Key {
        key: "api_excluded_count_toward_keep",
        put: Put::Bool(|p, v| p.api.excluded_count_toward_keep = v),
        print: |p| (p.kind == PlanKind::Api).then(|| p.api.excluded_count_toward_keep.to_string()),
        flag: Some(("--api-excluded-count-toward-keep", || {
            format!("{API_READING} excluded tools' uses count toward `keep` (default: they do not)")
        })),
    },
    Key {
        key: "api_trigger_inclusive",
        put: Put::Bool(|p, v| p.api.trigger_inclusive = v),
        print: |p| (p.kind == PlanKind::Api).then(|| p.api.trigger_inclusive.to_string()),
        flag: Some(("--api-trigger-inclusive", || {
            format!("{API_READING} the trigger fires at >= its value (default: strictly >)")
        })),
    },
    Key {
        key: "api_placeholder",
        put: Put::Str(|p, v| {
            p.api.placeholder = v.to_string();
            Ok(())
        }),
        print: |p| (p.kind == PlanKind::Api).then(|| format!("{:?}", p.api.placeholder)),
        flag: Some(("--api-placeholder", || {
            format!(
                "{API_READING} what a cleared result reads in the server view (default: {}). \
                 clear_at_least is always compared with every token the edit clears at the request \
                 (the server is stateless)",
                crate::harness::CLEARED
            )
        })),
    },
];

/// The start of the help of the api preset's readings.
const API_READING: &str = "api preset, a reading the documentation leaves open:";

/// The `--help` of a flag the table describes that is no parameter's own
/// (`by_flag` finds those): an api preset's reading, or a parameter's switch
/// that turns it off.
pub fn other_flag_help(long: &str) -> Option<String> {
    OTHER_KEYS
        .iter()
        .filter_map(|k| k.flag)
        .find(|(flag, _)| flag.trim_start_matches('-') == long)
        .map(|(_, help)| help())
        .or_else(|| {
            PARAMS
                .iter()
                .filter_map(|p| p.off)
                .find(|(flag, _)| flag.trim_start_matches('-') == long)
                .map(|(_, help)| help.to_string())
        })
}

/// Every key of the config file's `[policy]` and of a sidecar, in the order
/// `config --print` lists them: the parameters' (in the table's order), then
/// [`OTHER_KEYS`].
pub fn keys() -> impl Iterator<Item = Key> {
    PARAMS
        .iter()
        .map(|p| Key {
            key: p.key,
            put: p.put,
            print: p.print,
            // A parameter's flag is described by its row (`Param::help`).
            flag: None,
        })
        .chain(OTHER_KEYS.iter().copied())
}

/// The row of a config or sidecar key.
pub fn key(name: &str) -> Option<Key> {
    keys().find(|k| k.key == name)
}

/// Whether the policy's preset offers a plan kind (a harness's own keys are
/// shown only where it does).
fn offers(p: &Policy, kind: PlanKind) -> bool {
    p.preset.rules().offers(kind)
}

/// A parameter's default, as `--help` says it.
#[derive(Debug, Clone, Copy)]
pub enum ByDefault {
    /// One value per harness, read from `Policy::preset(h)` each time the help
    /// is made: the harness rules hold the numbers, the help only shows them.
    Preset(fn(&Policy) -> String),
    /// As `Preset`, then words for what the presets do not hold (idle-server's
    /// own gap; a harness that never clears what the flag allows).
    PresetThen(fn(&Policy) -> String, fn() -> String),
    /// A default that goes by more than the harness (the plan kind, the
    /// version): words made by the function, from the constants the engine
    /// reads where it has them.
    Made(fn() -> String),
}

/// How `compare` takes a parameter's flag.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Compare {
    /// A comma-separated list of values, one grid row per value; `e_g` an
    /// example list for its help; `grid` its values in the default grid (SPEC
    /// §9, §15.23) for the kinds that read it: a kind's own list, else the
    /// list for every kind (`None`); none, the session's value.
    List {
        e_g: &'static str,
        grid: &'static [(Option<PlanKind>, &'static [f64])],
    },
    /// One value for every row, in plan's words.
    Same,
    /// One value for every row, in compare's own words (its help is its own).
    Own,
    /// Compare has no such flag.
    Not,
}

/// How a `:` command sets its parameter from the value typed after it.
#[derive(Debug)]
pub struct Set {
    /// Sets the value into the policy; false, the policy untouched, when it
    /// does not read.
    pub parse: fn(&mut Policy, &str) -> bool,
    /// What the value is, and an example, for the line that refuses one
    /// (`Param::expected`).
    pub what: &'static str,
    pub e_g: Option<&'static str>,
}

impl Param {
    /// Its values in `compare`'s default grid for plan kind `kind` (see
    /// [`Compare::List`]); None: the session's value.
    pub fn default_grid(&self, kind: PlanKind) -> Option<&'static [f64]> {
        let Compare::List { grid, .. } = self.compare else {
            return None;
        };
        grid.iter()
            .find(|(k, _)| *k == Some(kind))
            .or_else(|| grid.iter().find(|(k, _)| k.is_none()))
            .map(|&(_, values)| values)
    }

    /// What its `:` command expected, said when a value does not read:
    /// "expected minutes, e.g. :gap 7.5 (negative disables)".
    pub fn expected(&self) -> Option<String> {
        let (set, command) = (self.set.as_ref()?, self.command?);
        let mut out = format!("expected {}", set.what);
        if let Some(e_g) = set.e_g {
            out.push_str(&format!(", e.g. :{command} {e_g}"));
        }
        if let Some(range) = self.range {
            out.push_str(&format!(" ({range})"));
        }
        Some(out)
    }
}

/// The TUI keys that step a parameter up and down, and by how much.
#[derive(Debug)]
pub struct Keys {
    pub more: char,
    pub less: char,
    pub step: u32,
    /// What the keys step, in the help's words, and the step's unit.
    pub what: &'static str,
    pub unit: &'static str,
    /// What else they step, for the help (`(api: keep)`), or empty.
    pub also: &'static str,
}

impl Keys {
    /// The key's help line: `keep_recent + 1 (api: keep)`.
    pub fn help(&self, more: bool) -> String {
        let sign = if more { '+' } else { '-' };
        let step = crate::numbers::fmt_int(u64::from(self.step));
        let also = if self.also.is_empty() {
            String::new()
        } else {
            format!(" {}", self.also)
        };
        format!("{} {sign} {step}{}{also}", self.what, self.unit)
    }
}

/// `+` / `-`: keep_recent by one (the api preset's first edit's keep too).
pub const KEEP_KEYS: Keys = Keys {
    more: '+',
    less: '-',
    step: 1,
    what: "keep_recent",
    unit: "",
    also: "(api: keep)",
};
/// `]` / `[`: the idle gap threshold by 5 minutes.
pub const GAP_KEYS: Keys = Keys {
    more: ']',
    less: '[',
    step: 5,
    what: "gap threshold",
    unit: " min",
    also: "",
};
/// `}` / `{`: the size threshold by 50,000 chars.
pub const SIZE_KEYS: Keys = Keys {
    more: '}',
    less: '{',
    step: 50_000,
    what: "size threshold",
    unit: " chars",
    also: "",
};

/// A number as the help shows it: `60`, `7.5`.
fn num(x: f64) -> String {
    crate::numbers::fmt_num(x)
}

/// A switch's value as the help shows it.
fn on(b: bool) -> String {
    if b { "on" } else { "off" }.into()
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

/// Every parameter, in the order of the JSON `policy` object's keys (SPEC §7,
/// the harnesses' own after the shared ones): the config keys, `config
/// --print`, serde's list of keys and the TUI's `:` commands follow it.
pub static PARAMS: &[Param] = &[
    Param {
        key: "kind",
        flag: "--policy",
        command: Some("policy"),
        set: None,
        same: |a, b| a.kind == b.kind,
        read_by: None,
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
            e_g: "idle,size,count",
            grid: &[],
        },
        keys: None,
        put: Put::Str(|p, k| {
            p.kind = super::PlanKind::parse(k).ok_or_else(|| "not a plan kind".to_string())?;
            Ok(())
        }),
        print: |p| Some(p.kind.name().into()),
        off: None,
    },
    Param {
        key: "keep_recent",
        flag: "--keep-recent",
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
        // idle, forced: engine/idle.rs `idle::time_based` and
        // `idle::media_to_clear` (`Policy::keep_for`); size: engine/size.rs
        // `size::size` and engine/size_index.rs; count: engine/count.rs
        // `count::count`; budget: engine/budget_plan.rs `budget_plan::budget`;
        // idle-server: engine/idle_server.rs `idle_server::params`
        // (by version when none is given). Not mask, prune or api.
        read_by: Some(&[
            (PlanKind::Idle, When::Always),
            (PlanKind::Forced, When::Always),
            (PlanKind::Size, When::Always),
            (PlanKind::Count, When::Always),
            (PlanKind::Budget, When::Always),
            (PlanKind::IdleServer, When::Always),
        ]),
        about: "Results kept outside the plan: the most recent N",
        range: None,
        default: ByDefault::Made(|| {
            format!(
                "per plan kind: {}, budget {}, {}",
                PlanKind::Idle.default_keep(),
                PlanKind::Budget.default_keep(),
                crate::harness::claude_idle_server::keep_by_version(true),
            )
        }),
        compare: Compare::List {
            e_g: "2,5,10",
            grid: &[
                (
                    Some(PlanKind::Idle),
                    &[1.0, 2.0, 3.0, 5.0, 8.0, 10.0, 15.0, 20.0],
                ),
                // The served keep is 12–64 (SPEC §13.C, §15.23).
                (Some(PlanKind::IdleServer), &[5.0, 12.0, 24.0, 64.0]),
                (Some(PlanKind::Size), &[5.0]),
                (Some(PlanKind::Count), &[2.0, 5.0, 10.0]),
            ],
        },
        keys: Some(&KEEP_KEYS),
        put: Put::U32(|p, k| p.keep_recent = Some(k)),
        print: |p| {
            Some(p.keep_recent.map_or_else(
                || {
                    if p.preset.auto_may(PlanKind::IdleServer) {
                        format!(
                            "by plan kind ({}, budget {}, {})",
                            PlanKind::Idle.default_keep(),
                            PlanKind::Budget.default_keep(),
                            crate::harness::claude_idle_server::keep_by_version(false),
                        )
                    } else {
                        PlanKind::Idle.default_keep().to_string()
                    }
                },
                |k| k.to_string(),
            ))
        },
        off: None,
    },
    Param {
        key: "gap_threshold_minutes",
        flag: "--gap-minutes",
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
        // idle: engine/idle.rs `idle::idle` (through `Policy::gap_holds`);
        // idle-server: engine/idle_server.rs `idle_server::params` (the
        // explicit gap, else its own 65); size: engine/size.rs `size::size`,
        // only for qwen's coupling.
        read_by: Some(&[
            (PlanKind::Idle, When::Always),
            (PlanKind::IdleServer, When::Always),
            (PlanKind::Size, When::SizeNeedsIdle),
        ]),
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
            e_g: "5,30,60",
            // The default grid's gaps are idle's (SPEC §9): qwen's size, which
            // reads the gap too, runs at the session's.
            grid: &[
                (
                    Some(PlanKind::IdleServer),
                    &[crate::harness::claude_idle_server::GAP_MINUTES],
                ),
                (
                    Some(PlanKind::Idle),
                    &[5.0, 10.0, 15.0, 30.0, 45.0, 60.0, 90.0, 120.0],
                ),
            ],
        },
        keys: Some(&GAP_KEYS),
        put: Put::F64(|p, g| {
            p.gap_threshold_minutes = finite_minutes(g)?;
            p.gap_explicit = true;
            Ok(())
        }),
        print: |p| {
            // Idle-server reads its own gap unless one is given.
            Some(
                if p.preset.auto_may(PlanKind::IdleServer) && !p.gap_explicit {
                    format!(
                        "{} (idle-server: {})",
                        p.gap_threshold_minutes,
                        num(crate::harness::claude_idle_server::GAP_MINUTES)
                    )
                } else {
                    p.gap_threshold_minutes.to_string()
                },
            )
        },
        off: None,
    },
    Param {
        key: "size_threshold",
        flag: "--size-threshold",
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
        // engine/size.rs `size::size`, engine/size_index.rs.
        read_by: Some(&[(PlanKind::Size, When::Always)]),
        about: "Size threshold in chars",
        range: Some("negative disables"),
        default: ByDefault::Preset(|p| p.size_threshold.to_string()),
        compare: Compare::List {
            e_g: "200000,500000",
            grid: &[(
                None,
                &[100_000.0, 200_000.0, 300_000.0, 500_000.0, 800_000.0],
            )],
        },
        keys: Some(&SIZE_KEYS),
        put: Put::I64(|p, s| {
            p.size_threshold = s;
            p.size_explicit = true;
        }),
        print: |p| Some(p.size_threshold.to_string()),
        off: None,
    },
    Param {
        key: "low_watermark",
        flag: "--no-low-watermark",
        command: None,
        set: None,
        same: |a, b| a.low_watermark == b.low_watermark,
        read_by: None,
        about: "Clear down to the threshold instead of half of it: low watermark off",
        range: None,
        default: ByDefault::Preset(|p| on(p.low_watermark)),
        compare: Compare::Same,
        keys: None,
        put: Put::Bool(|p, w| p.low_watermark = w),
        print: |p| Some(p.low_watermark.to_string()),
        off: None,
    },
    Param {
        key: "trigger_threshold",
        flag: "--trigger",
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
        // engine/count.rs `count::count`.
        read_by: Some(&[(PlanKind::Count, When::Always)]),
        about: "Count plan: active results before deletions start",
        range: None,
        default: ByDefault::Preset(|p| p.trigger_threshold.to_string()),
        compare: Compare::List {
            e_g: "5,10,20",
            grid: &[(None, &[5.0, 10.0, 20.0, 40.0])],
        },
        keys: None,
        put: Put::U32(|p, t| p.trigger_threshold = t),
        print: |p| Some(p.trigger_threshold.to_string()),
        off: None,
    },
    Param {
        key: "delivery",
        flag: "--delivery",
        command: Some("delivery"),
        set: Some(Set {
            parse: |p, v| match super::Delivery::parse(v) {
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
        read_by: None,
        about: "How clearings reach the API",
        range: None,
        default: ByDefault::Made(|| {
            "cache-edits for claude count, server for the api preset, else rewrite".into()
        }),
        // The default grid's deliveries are each kind's own (`compare::grid`).
        compare: Compare::List {
            e_g: "rewrite,cache-edits",
            grid: &[],
        },
        keys: None,
        put: Put::Str(|p, d| {
            p.delivery = super::Delivery::parse(d).ok_or_else(|| {
                format!(
                    "not a delivery ({})",
                    crate::vocab::names::<super::Delivery>()
                )
            })?;
            Ok(())
        }),
        print: |p| Some(p.delivery.name().into()),
        off: None,
    },
    Param {
        key: "protect",
        flag: "--protect",
        command: None,
        set: None,
        same: |a, b| a.protect == b.protect,
        read_by: None,
        about: "Protect managed-memory reads",
        range: None,
        default: ByDefault::Preset(|p| on(p.protect)),
        compare: Compare::Same,
        keys: None,
        put: Put::Bool(|p, v| p.protect = v),
        print: |p| Some(p.protect.to_string()),
        off: Some(("--no-protect", "Do not protect managed-memory reads")),
    },
    Param {
        key: "clear_errors",
        flag: "--clear-errors",
        command: None,
        set: None,
        same: |a, b| a.clear_errors == b.clear_errors,
        read_by: None,
        about: "Error results may be cleared",
        range: None,
        default: ByDefault::PresetThen(
            |p| on(p.clear_errors),
            || {
                let never: Vec<&str> = <HarnessId as strum::VariantArray>::VARIANTS
                    .iter()
                    .filter(|h| !h.rules().errors_clearable)
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
    },
    Param {
        key: "budget_tokens",
        flag: "--budget-tokens",
        command: None,
        set: None,
        same: |a, b| a.budget_tokens == b.budget_tokens,
        // engine/budget_plan.rs `budget_plan::budget`, harness/claude_budget.rs `decide`.
        read_by: Some(&[(PlanKind::Budget, When::Always)]),
        about: "Budget plan: the tool-result tokens it clears down to",
        range: None,
        default: ByDefault::Preset(|p| p.budget_tokens.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, v| p.budget_tokens = v),
        print: |p| Some(p.budget_tokens.to_string()),
        off: None,
    },
    Param {
        key: "budget_min_saving",
        flag: "--budget-min-saving",
        command: None,
        set: None,
        same: |a, b| a.budget_min_saving == b.budget_min_saving,
        // engine/budget_plan.rs `budget_plan::budget`, harness/claude_budget.rs `decide`.
        read_by: Some(&[(PlanKind::Budget, When::Always)]),
        about: "Budget plan: the least saving that lets it fire",
        range: None,
        default: ByDefault::Preset(|p| p.budget_min_saving.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, v| p.budget_min_saving = v),
        print: |p| Some(p.budget_min_saving.to_string()),
        off: None,
    },
    Param {
        key: "budget_warning_tokens",
        flag: "--budget-warning",
        command: None,
        set: None,
        same: |a, b| a.budget_warning_tokens == b.budget_warning_tokens,
        // engine/budget_plan.rs `budget_plan::budget`, through
        // `Policy::budget_warning_at` (by version when none is given).
        read_by: Some(&[(PlanKind::Budget, When::Always)]),
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
    },
    Param {
        key: "min_trigger_tool_uses",
        flag: "--min-trigger-tool-uses",
        command: None,
        set: None,
        same: |a, b| a.min_trigger_tool_uses == b.min_trigger_tool_uses,
        // engine/idle_server.rs `idle_server::params` (keep + 15
        // when none is given).
        read_by: Some(&[(PlanKind::IdleServer, When::Always)]),
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
            p.preset.auto_may(PlanKind::IdleServer).then(|| {
                p.min_trigger_tool_uses
                    .map_or("keep_recent + 15 (idle-server)".into(), |m| m.to_string())
            })
        },
        off: None,
    },
    Param {
        key: "mask_protect_tokens",
        flag: "--protect-tokens",
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
        // engine/mask.rs `mask::mask`.
        read_by: Some(&[(PlanKind::Mask, When::Always)]),
        about: "mask (Gemini CLI): the newest tokens of tool output it protects",
        range: None,
        default: ByDefault::Preset(|p| p.mask_protect_tokens.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, t| p.mask_protect_tokens = t),
        print: |p| offers(p, PlanKind::Mask).then(|| p.mask_protect_tokens.to_string()),
        off: None,
    },
    Param {
        key: "mask_min_prunable_tokens",
        flag: "--min-prunable-tokens",
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
        // engine/mask.rs `mask::mask`.
        read_by: Some(&[(PlanKind::Mask, When::Always)]),
        about: "mask (Gemini CLI): the least prunable tokens that let it mask",
        range: None,
        default: ByDefault::Preset(|p| p.mask_min_prunable_tokens.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, t| p.mask_min_prunable_tokens = t),
        print: |p| offers(p, PlanKind::Mask).then(|| p.mask_min_prunable_tokens.to_string()),
        off: None,
    },
    Param {
        key: "mask_protect_latest_turn",
        flag: "--no-protect-latest-turn",
        command: None,
        set: None,
        same: |a, b| a.mask_protect_latest_turn == b.mask_protect_latest_turn,
        read_by: None,
        about: "mask (Gemini CLI): scan the latest content of the history too, as Gemini \
CLI's remote flag 45758819 set to false does: protect latest turn off",
        range: None,
        default: ByDefault::Preset(|p| on(p.mask_protect_latest_turn)),
        compare: Compare::Same,
        keys: None,
        put: Put::Bool(|p, v| p.mask_protect_latest_turn = v),
        print: |p| offers(p, PlanKind::Mask).then(|| p.mask_protect_latest_turn.to_string()),
        off: None,
    },
    Param {
        key: "prune_protect_tokens",
        flag: "--prune-protect",
        command: None,
        set: None,
        same: |a, b| a.prune_protect_tokens == b.prune_protect_tokens,
        // engine/prune.rs `prune::prune`.
        read_by: Some(&[(PlanKind::Prune, When::Always)]),
        about: "prune (OpenCode): the newest tool-output tokens it never clears, \
OpenCode's PRUNE_PROTECT",
        range: None,
        default: ByDefault::Preset(|p| p.prune_protect_tokens.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, v| p.prune_protect_tokens = v),
        print: |p| offers(p, PlanKind::Prune).then(|| p.prune_protect_tokens.to_string()),
        off: None,
    },
    Param {
        key: "prune_minimum_tokens",
        flag: "--prune-minimum",
        command: None,
        set: None,
        same: |a, b| a.prune_minimum_tokens == b.prune_minimum_tokens,
        // engine/prune.rs `prune::prune`.
        read_by: Some(&[(PlanKind::Prune, When::Always)]),
        about: "prune (OpenCode): what it must be able to clear, strictly more, before \
it marks anything, OpenCode's PRUNE_MINIMUM",
        range: None,
        default: ByDefault::Preset(|p| p.prune_minimum_tokens.to_string()),
        compare: Compare::Same,
        keys: None,
        put: Put::U64(|p, v| p.prune_minimum_tokens = v),
        print: |p| offers(p, PlanKind::Prune).then(|| p.prune_minimum_tokens.to_string()),
        off: None,
    },
    Param {
        key: "api_edits",
        flag: "--api-edit",
        command: None,
        set: None,
        same: |a, b| a.api == b.api,
        read_by: None,
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
            p.api.edits = super::api::parse_edits(edits)?;
            Ok(())
        }),
        print: |p| {
            (p.kind == PlanKind::Api)
                .then(|| serde_json::Value::Array(p.api.edits_json()).to_string())
        },
        off: None,
    },
];

impl PlanKind {
    /// Whether this kind reads the numeric parameter `key` when it decides
    /// under preset `preset`: the table's `read_by` (SPEC §15.6). False for a
    /// parameter the column does not follow.
    pub fn reads(self, key: &str, preset: crate::session::HarnessId) -> bool {
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

impl Param {
    /// Its flag without the dashes, as clap names it (`gap-minutes`).
    pub fn long(&self) -> &'static str {
        self.flag.trim_start_matches('-')
    }

    /// The function that reads its default from a preset, where it has one.
    pub fn preset_default(&self) -> Option<fn(&Policy) -> String> {
        match self.default {
            ByDefault::Preset(show) | ByDefault::PresetThen(show, _) => Some(show),
            ByDefault::Made(_) => None,
        }
    }

    /// Its default as `--help` says it: the value most harnesses share, then
    /// the harnesses that differ (`500000; gemini -1`), each read from
    /// `Policy::preset`; or the default's words.
    pub fn default_words(&self) -> String {
        match self.default {
            ByDefault::Made(words) => words(),
            ByDefault::PresetThen(show, then) => {
                format!("{}; {}", Self::preset_words(show), then())
            }
            ByDefault::Preset(show) => Self::preset_words(show),
        }
    }

    /// How the presets' values read a default: see [`Param::default_words`].
    fn preset_words(show: fn(&Policy) -> String) -> String {
        let harnesses = <HarnessId as strum::VariantArray>::VARIANTS;
        let shown: Vec<(HarnessId, String)> = harnesses
            .iter()
            .map(|&h| (h, show(&Policy::preset(h))))
            .collect();
        // The most common value (the first harness's on a tie).
        let common = shown
            .iter()
            .max_by_key(|(h, v)| {
                let n = shown.iter().filter(|(_, w)| w == v).count();
                (n, std::cmp::Reverse(*h as usize))
            })
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let mut words = common.clone();
        let mut others: Vec<&String> = Vec::new();
        for (_, v) in &shown {
            if *v != common && !others.contains(&v) {
                others.push(v);
            }
        }
        for v in others {
            let names: Vec<&str> = shown
                .iter()
                .filter(|(_, w)| w == v)
                .map(|(h, _)| h.name())
                .collect();
            words.push_str(&format!("; {} {v}", names.join(", ")));
        }
        words
    }

    /// Its flag's `--help` (plan, timeline, the TUI's flags…): what it sets,
    /// the values it takes, its default.
    pub fn help(&self) -> String {
        let range = self.range.map(|r| format!("{r}; ")).unwrap_or_default();
        format!("{} ({range}default {})", self.about, self.default_words())
    }

    /// Its flag's `--help` under `compare`: a list where compare takes one,
    /// plan's words where it takes one value alike, None where compare's
    /// words are its own or it has no such flag.
    pub fn compare_help(&self) -> Option<String> {
        match self.compare {
            Compare::List { e_g, .. } => {
                let range = self.range.map(|r| format!(", {r}")).unwrap_or_default();
                Some(format!(
                    "{}; a comma-separated list, one setting per value, e.g. {e_g}{range} \
                     (default: the grid of docs/compare.md)",
                    self.about
                ))
            }
            Compare::Same => Some(self.help()),
            Compare::Own | Compare::Not => None,
        }
    }
}

/// The row of a flag (`--gap-minutes`), if it sets a parameter.
pub fn by_flag(long: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.long() == long)
}

/// The row of a key (`gap_threshold_minutes`).
pub fn by_key(key: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.key == key)
}

/// The row of a TUI `:` command (`gap`).
pub fn by_command(command: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.command == Some(command))
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

/// A gap threshold in minutes (SPEC §15.25): any finite number, a negative one
/// disabling the idle rule; NaN or an infinity is refused (NaN would compare
/// false with every gap and silently disable it).
pub fn check_minutes(x: f64) -> Result<f64, String> {
    finite_minutes(x).map_err(|e| format!("{}: {e}", crate::numbers::shown(x)))
}

/// As [`check_minutes`], the words without the value (a key's check puts it
/// after the key).
pub fn finite_minutes(x: f64) -> Result<f64, String> {
    if x.is_finite() && x.abs() <= MAX_MINUTES {
        Ok(x)
    } else {
        Err(format!(
            "expected a finite number of minutes of at most {MAX_MINUTES:e} either way (negative disables)"
        ))
    }
}

/// The largest gap threshold, in minutes, either way (about 1,900 years):
/// in milliseconds it stays an exact integer, and no sum of gaps overflows.
pub const MAX_MINUTES: f64 = 1e9;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::HarnessId;

    /// SPEC §9, §15.23: the default grid's values are the table's. A kind's
    /// own list is for a kind that reads the key on some harness, and the
    /// values of a count, a size or a trigger are whole.
    #[test]
    fn the_default_grid_is_the_table_s() {
        let keep = by_key("keep_recent").unwrap();
        assert_eq!(
            keep.default_grid(PlanKind::IdleServer),
            Some(&[5.0, 12.0, 24.0, 64.0][..])
        );
        assert_eq!(keep.default_grid(PlanKind::Budget), None);
        let gap = by_key("gap_threshold_minutes").unwrap();
        assert_eq!(gap.default_grid(PlanKind::IdleServer), Some(&[65.0][..]));
        assert_eq!(gap.default_grid(PlanKind::Size), None);
        let size = by_key("size_threshold").unwrap();
        assert_eq!(size.default_grid(PlanKind::Size).map(<[f64]>::len), Some(5));
        for p in PARAMS {
            let Compare::List { grid, .. } = p.compare else {
                continue;
            };
            for &(kind, values) in grid {
                if let Some(kind) = kind {
                    let read = <HarnessId as strum::VariantArray>::VARIANTS
                        .iter()
                        .any(|&h| kind.reads(p.key, h));
                    assert!(read, "{} {}", p.key, kind.name());
                }
                if p.key != "gap_threshold_minutes" {
                    assert!(
                        values.iter().all(|v| v.fract() == 0.0 && *v >= 0.0),
                        "{}",
                        p.key
                    );
                }
            }
        }
    }

    #[test]
    fn every_value_a_user_can_change_is_seen_as_changed() {
        let a = Policy::preset(HarnessId::Claude);
        let mut b = a.clone();
        b.trigger_threshold += 1;
        b.low_watermark = !b.low_watermark;
        b.gap_threshold_minutes = 7.5;
        assert_eq!(
            changed(&a, &b),
            [
                "gap_threshold_minutes",
                "low_watermark",
                "trigger_threshold"
            ]
        );
        assert!(changed(&a, &a).is_empty());
    }

    #[test]
    fn a_harness_s_own_plan_shows_only_its_own_parameters() {
        let mut p = Policy::preset(HarnessId::Claude);
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
        let read = |k: crate::policy::PlanKind, h: HarnessId| -> Vec<&str> {
            numeric
                .iter()
                .copied()
                .filter(|key| k.reads(key, h))
                .collect()
        };
        let c = HarnessId::Claude;
        assert_eq!(read(Idle, c), ["keep_recent", "gap_threshold_minutes"]);
        assert_eq!(read(Forced, c), ["keep_recent"]);
        assert_eq!(read(Size, c), ["keep_recent", "size_threshold"]);
        assert_eq!(
            read(Size, HarnessId::Qwen),
            ["keep_recent", "gap_threshold_minutes", "size_threshold"]
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
                "keep_recent",
                "gap_threshold_minutes",
                "min_trigger_tool_uses"
            ]
        );
        assert_eq!(
            read(Mask, HarnessId::Gemini),
            ["mask_protect_tokens", "mask_min_prunable_tokens"]
        );
        assert_eq!(
            read(Prune, HarnessId::Opencode),
            ["prune_protect_tokens", "prune_minimum_tokens"]
        );
        for k in [Auto, Api, Recorded] {
            assert!(read(k, c).is_empty(), "{}", k.name());
        }
        // Every numeric field of the policy object is in the column.
        let json = serde_json::to_value(Policy::preset(HarnessId::Claude)).unwrap();
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
        let json = serde_json::to_value(Policy::preset(HarnessId::Claude)).unwrap();
        for p in PARAMS {
            let key = if p.key == "api_edits" { "api" } else { p.key };
            assert!(json.get(key).is_some(), "{key} is no policy field");
        }
    }
}

#[cfg(test)]
mod wiring {
    use super::*;

    /// Every `:` command but `:policy` (the TUI's own) reads its value through
    /// the table, says what it expected in the words users had before the
    /// table held them, and leaves the policy as it was on a bad value.
    #[test]
    fn each_command_reads_its_value_and_names_what_it_expected() {
        type Case = (
            &'static str,
            &'static str,
            &'static str,
            fn(&Policy) -> String,
        );
        let cases: &[Case] = &[
            (
                "gap",
                "7.5",
                "expected minutes, e.g. :gap 7.5 (negative disables)",
                |p| p.gap_threshold_minutes.to_string(),
            ),
            (
                "keep",
                "3",
                "expected a count of 1 or more, e.g. :keep 3",
                |p| format!("{:?}", p.keep_recent),
            ),
            (
                "size",
                "300_000",
                "expected chars, e.g. :size 300000 (negative disables)",
                |p| format!("{} {}", p.size_threshold, p.size_explicit),
            ),
            ("trigger", "4", "expected a count, e.g. :trigger 4", |p| {
                p.trigger_threshold.to_string()
            }),
            (
                "delivery",
                "cache-edits",
                "expected rewrite or cache-edits",
                |p| p.delivery.name().to_string(),
            ),
            (
                "mask-protect",
                "30000",
                "expected tokens, e.g. :mask-protect 30000",
                |p| p.mask_protect_tokens.to_string(),
            ),
            (
                "mask-min",
                "10000",
                "expected tokens, e.g. :mask-min 10000",
                |p| p.mask_min_prunable_tokens.to_string(),
            ),
        ];
        let with_set: Vec<&str> = PARAMS
            .iter()
            .filter(|p| p.set.is_some())
            .filter_map(|p| p.command)
            .collect();
        let named: Vec<&str> = cases.iter().map(|c| c.0).collect();
        assert_eq!(with_set.len(), named.len(), "{with_set:?}");
        for c in commands() {
            assert!(c == "policy" || named.contains(&c), ":{c} reads no value");
        }
        for &(cmd, good, expected, value) in cases {
            let param = by_command(cmd).unwrap();
            let set = param.set.as_ref().unwrap();
            assert_eq!(param.expected().as_deref(), Some(expected), ":{cmd}");
            let before = Policy::preset(HarnessId::Claude);
            let mut p = before.clone();
            assert!(!(set.parse)(&mut p, "soon"), ":{cmd} soon");
            assert_eq!(value(&p), value(&before), ":{cmd} soon left it");
            assert!((set.parse)(&mut p, good), ":{cmd} {good}");
            assert_ne!(value(&p), value(&before), ":{cmd} {good} set it");
        }
        // The count's floor and a negative size (which disables) read as before.
        let mut p = Policy::preset(HarnessId::Claude);
        let keep = by_command("keep").unwrap();
        assert!(!(keep.set.as_ref().unwrap().parse)(&mut p, "0"));
        let size = by_command("size").unwrap();
        assert!((size.set.as_ref().unwrap().parse)(&mut p, "-1"));
        assert_eq!(p.size_threshold, -1);
    }

    #[test]
    fn the_tui_commands_are_the_table_s_then_explain() {
        use crate::tui::app::{COMMANDS, complete};
        let mut want: Vec<&str> = commands().collect();
        want.push("explain");
        assert_eq!(*COMMANDS, want);
        // Each completes to itself from its first letters where no other
        // command shares them.
        for c in commands() {
            let unique = (1..=c.len())
                .map(|n| &c[..n])
                .find(|head| COMMANDS.iter().filter(|o| o.starts_with(head)).count() == 1)
                .expect(c);
            assert_eq!(complete(unique), (format!("{c} "), None), "{unique}");
        }
    }

    /// The help clap prints for `--long` in `sub` (the command line as parsed).
    fn help_of(sub: &str, long: &str) -> Option<String> {
        let cli = crate::cli::command();
        let cmd = cli.find_subcommand(sub).expect(sub);
        let arg = cmd.get_arguments().find(|a| a.get_long() == Some(long))?;
        Some(arg.get_help().map(|h| h.to_string()).unwrap_or_default())
    }

    #[test]
    fn every_flag_is_one_plan_takes_with_the_table_s_help() {
        for p in PARAMS {
            for sub in ["plan", "timeline", "explain", "wire", "evidence", "config"] {
                let help = help_of(sub, p.long()).unwrap_or_else(|| panic!("{sub} {}", p.flag));
                assert_eq!(help, p.help(), "{sub} {}", p.flag);
            }
            let compare = help_of("compare", p.long());
            match p.compare {
                Compare::List { .. } | Compare::Same => {
                    assert_eq!(compare, p.compare_help(), "compare {}", p.flag);
                }
                // Compare's own words, left as its derive wrote them.
                Compare::Own => {
                    assert!(compare.is_some_and(|h| !h.is_empty()), "compare {}", p.flag)
                }
                Compare::Not => assert_eq!(compare, None, "compare {}", p.flag),
            }
        }
        // compare's lists are named as lists.
        let cli = crate::cli::command();
        let compare = cli.find_subcommand("compare").expect("compare");
        for p in PARAMS
            .iter()
            .filter(|p| matches!(p.compare, Compare::List { .. }))
        {
            let arg = compare
                .get_arguments()
                .find(|a| a.get_long() == Some(p.long()))
                .expect(p.flag);
            let names = arg.get_value_names().expect(p.flag);
            assert!(names[0].ends_with(",…"), "{}: {names:?}", p.flag);
        }
        // …and every list compare takes is a row's, but the api preset's
        // edit values (its edits are JSON, not policy keys).
        for arg in compare.get_arguments() {
            let list = arg.get_value_names().is_some_and(|n| n[0].ends_with(",…"));
            let long = arg.get_long().unwrap_or_default();
            if list && !["api-trigger", "api-keep"].contains(&long) {
                let row = by_flag(long).unwrap_or_else(|| panic!("--{long} is no row"));
                assert!(matches!(row.compare, Compare::List { .. }), "--{long}");
            }
        }
    }

    /// The value `help` shows for harness `h`: the one after `default `,
    /// unless a `; h… V` part names `h`.
    fn shown_for(help: &str, h: HarnessId) -> String {
        let tail = help.rsplit_once("default ").expect(help).1;
        let tail = tail.strip_suffix(')').expect(help);
        let mut parts = tail.split("; ");
        let common = parts.next().expect(help).to_string();
        for part in parts {
            let (names, v) = part.rsplit_once(' ').expect(help);
            if names.split(", ").any(|n| n == h.name()) {
                return v.to_string();
            }
        }
        common
    }

    /// The defaults `--help` shows are each harness's preset, read from the
    /// policy's JSON (not through the table's functions).
    #[test]
    fn the_defaults_shown_are_each_harness_s_preset() {
        let mut checked = 0;
        for p in PARAMS {
            if p.preset_default().is_none() {
                continue;
            }
            let help = help_of("plan", p.long()).expect(p.flag);
            for &h in <HarnessId as strum::VariantArray>::VARIANTS {
                let json = serde_json::to_value(Policy::preset(h)).unwrap();
                let want = &json[p.key];
                let shown = shown_for(&help, h);
                match want {
                    serde_json::Value::Bool(b) => {
                        assert_eq!(shown, if *b { "on" } else { "off" }, "{} {h:?}", p.key)
                    }
                    serde_json::Value::Number(n) => assert_eq!(
                        shown.parse::<f64>().ok(),
                        n.as_f64(),
                        "{} {h:?}: {help}",
                        p.key
                    ),
                    other => panic!("{}: {other}", p.key),
                }
                checked += 1;
            }
        }
        assert!(checked >= 12 * 4, "{checked}");
        // A harness whose value differs is named: gemini's size plan is off.
        let size = help_of("plan", "size-threshold").unwrap();
        assert!(size.contains("; gemini -1"), "{size}");
        // What no preset holds is said too: idle-server's own gap, and the
        // harnesses that keep error results whatever `--clear-errors` says.
        let gap = help_of("plan", "gap-minutes").unwrap();
        let own = crate::harness::claude_idle_server::GAP_MINUTES;
        assert!(gap.contains(&format!("idle-server {own}")), "{gap}");
        let errors = help_of("plan", "clear-errors").unwrap();
        for &h in <HarnessId as strum::VariantArray>::VARIANTS {
            let never = errors.contains(&format!("{} never clear", h.name()))
                || errors.contains(&format!("and {} never clear", h.name()))
                || errors.contains(&format!("{} and ", h.name()));
            assert_eq!(never, !h.rules().errors_clearable, "{h:?}: {errors}");
        }
    }

    /// `--policy`'s default says what `auto` runs for every preset (Gemini CLI
    /// and OpenCode too), and for Claude Code every row of the version table
    /// with the kind `auto` takes there.
    #[test]
    fn the_policy_help_says_what_auto_runs_for_every_preset() {
        use crate::harness::PresetId;
        use crate::harness::claude_version::VersionRow;
        let help = help_of("plan", "policy").unwrap();
        for p in <PresetId as strum::VariantArray>::VARIANTS {
            let words = p.asks().auto_words();
            assert!(words.starts_with(p.name()), "{words}");
            assert!(help.contains(&words), "{p:?}: {help}");
        }
        for v in ["2.0.5", "2.1.70", "2.1.90", "2.1.200", "2.1.290", "2.1.332"] {
            let row = VersionRow::of(Some(v));
            let kind = row.auto_kind().map_or("nothing", PlanKind::name);
            assert!(
                help.contains(&format!("{kind} on {}", row.name())),
                "{v}: {help}"
            );
        }
        assert!(help.contains("gemini mask") && help.contains("opencode prune up to 1.3.2"));
    }
}

#[cfg(test)]
mod flag_help {
    use super::*;

    /// The api preset's readings and the switches that turn a parameter off
    /// take their `--help` from the table, in every subcommand that has them.
    #[test]
    fn other_flags_take_their_help_from_the_table() {
        let flags: Vec<&str> = OTHER_KEYS
            .iter()
            .filter_map(|k| k.flag.map(|(f, _)| f))
            .chain(PARAMS.iter().filter_map(|p| p.off.map(|(f, _)| f)))
            .collect();
        assert_eq!(flags.len(), 5, "{flags:?}");
        let cmd = crate::cli::command();
        let mut found = 0;
        for s in cmd.get_subcommands() {
            for a in s.get_arguments() {
                let Some(long) = a.get_long() else { continue };
                if flags.iter().any(|f| f.trim_start_matches('-') == long) {
                    let help = a.get_help().map(|h| h.to_string());
                    assert_eq!(help, other_flag_help(long), "{} --{long}", s.get_name());
                    assert!(help.is_some_and(|h| !h.is_empty()));
                    found += 1;
                }
            }
        }
        assert!(found >= 5 * 3, "{found}");
    }
}
