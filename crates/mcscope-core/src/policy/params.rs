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

/// One key's value, as its row's type read it (a config file's, a sidecar's,
/// a flag's, a setting of `compare`'s grid).
#[derive(Debug, Clone, PartialEq)]
pub enum KeyValue {
    U32(u32),
    U64(u64),
    I64(i64),
    F64(f64),
    Bool(bool),
    Str(String),
    List(Vec<serde_json::Value>),
}

impl KeyValue {
    /// A number's value as a float (a count or a size: exact below 2^53);
    /// None for the others.
    pub fn number(&self) -> Option<f64> {
        match *self {
            KeyValue::U32(v) => Some(f64::from(v)),
            KeyValue::U64(v) => Some(v as f64),
            KeyValue::I64(v) => Some(v as f64),
            KeyValue::F64(v) => Some(v),
            KeyValue::Bool(_) | KeyValue::Str(_) | KeyValue::List(_) => None,
        }
    }
}

/// A number as a setting shows it (`5`, `7.5`, `-1`).
impl std::fmt::Display for KeyValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyValue::U32(v) => write!(f, "{v}"),
            KeyValue::U64(v) => write!(f, "{v}"),
            KeyValue::I64(v) => write!(f, "{v}"),
            KeyValue::F64(v) => write!(f, "{v}"),
            KeyValue::Bool(v) => write!(f, "{v}"),
            KeyValue::Str(v) => write!(f, "{v}"),
            KeyValue::List(v) => write!(f, "{}", serde_json::Value::Array(v.clone())),
        }
    }
}

/// One parameter of a plan.
#[derive(Debug)]
pub struct Param {
    /// The key in the JSON `policy` object, the config file and the sidecar.
    pub key: &'static str,
    /// The command-line flag that sets it.
    pub flag: &'static str,
    /// How the flag reads its value (the binary makes clap's argument of it).
    pub takes: Takes,
    /// The TUI's `:` command that tunes it, if there is one.
    pub command: Option<&'static str>,
    /// How that command reads its value (`:policy`, which also settles the
    /// delivery, is the TUI's own).
    pub set: Option<Set>,
    /// Whether two policies hold the same value (the header asks at every
    /// draw: a comparison, not a formatted copy).
    pub same: fn(&Policy, &Policy) -> bool,
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
    /// How the JSON `policy` object shows it.
    pub json: InPolicy,
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
    /// The flag that sets it, how the flag reads its value and the flag's
    /// `--help`, where the table gives them (the preset's flag is clap's value
    /// list, described by clap).
    pub flag: Option<(&'static str, Takes, Help)>,
    /// How the JSON `policy` object shows it.
    pub json: InPolicy,
}

/// How a flag reads its value on the command line: the binary makes clap's
/// argument of it, and reads what clap read as the key's value.
#[derive(Debug, Clone, Copy)]
pub enum Takes {
    /// A count, at most [`MAX_COUNT`] (`N`).
    Count,
    /// A number of tokens (`N`).
    Tokens,
    /// A number of characters, a negative one disabling (`C`).
    Chars,
    /// Minutes, a negative number disabling (`M`; [`check_minutes`]).
    Minutes,
    /// One of the names the function lists, in the order `--help` lists them.
    Named(fn() -> Vec<&'static str>),
    /// Any text (`TEXT`).
    Text,
    /// A JSON object, the flag repeatable (`JSON`).
    Json,
    /// A switch that turns it on ([`Param::off`] names the one that turns it
    /// off).
    On,
    /// A switch that turns it off.
    Off,
}

/// A flag the table describes, as the command line takes it.
#[derive(Debug, Clone, Copy)]
pub struct Flag {
    /// The key it sets.
    pub key: &'static str,
    /// The flag without its dashes (`gap-minutes`).
    pub long: &'static str,
    pub takes: Takes,
    /// The switch it overrides and that overrides it (`--protect` and
    /// `--no-protect`: the last given wins).
    pub partner: Option<&'static str>,
    /// How `compare` takes it.
    pub compare: Compare,
}

/// Every flag the table describes, in the table's order: each parameter's,
/// the switch that turns it off where it has one, then [`OTHER_KEYS`]'.
pub fn flags() -> impl Iterator<Item = Flag> {
    let long = |f: &'static str| f.trim_start_matches('-');
    PARAMS
        .iter()
        .flat_map(move |p| {
            let own = Flag {
                key: p.key,
                long: long(p.flag),
                takes: p.takes,
                partner: p.off.map(|(off, _)| long(off)),
                compare: p.compare,
            };
            let off = p.off.map(|(off, _)| Flag {
                key: p.key,
                long: long(off),
                takes: Takes::Off,
                partner: Some(long(p.flag)),
                compare: p.compare,
            });
            std::iter::once(own).chain(off)
        })
        .chain(OTHER_KEYS.iter().filter_map(move |k| {
            k.flag.map(|(flag, takes, _)| Flag {
                key: k.key,
                long: long(flag),
                takes,
                partner: None,
                compare: Compare::Not,
            })
        }))
}

/// The flag the table describes by its name without dashes, if it does.
pub fn flag(long: &str) -> Option<Flag> {
    flags().find(|f| f.long == long)
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
        json: InPolicy::names(1, |p| p.preset_name().into()),
    },
    Key {
        key: "api_excluded_count_toward_keep",
        put: Put::Bool(|p, v| p.api.excluded_count_toward_keep = v),
        print: |p| {
            p.kind
                .is_api()
                .then(|| p.api.excluded_count_toward_keep.to_string())
        },
        flag: Some(("--api-excluded-count-toward-keep", Takes::On, || {
            format!("{API_READING} excluded tools' uses count toward `keep` (default: they do not)")
        })),
        json: InPolicy::api(17, |p| p.api.excluded_count_toward_keep.into()),
    },
    Key {
        key: "api_trigger_inclusive",
        put: Put::Bool(|p, v| p.api.trigger_inclusive = v),
        print: |p| p.kind.is_api().then(|| p.api.trigger_inclusive.to_string()),
        flag: Some(("--api-trigger-inclusive", Takes::On, || {
            format!("{API_READING} the trigger fires at >= its value (default: strictly >)")
        })),
        json: InPolicy::api(18, |p| p.api.trigger_inclusive.into()),
    },
    Key {
        key: "api_placeholder",
        put: Put::Str(|p, v| {
            p.api.placeholder = v.to_string();
            Ok(())
        }),
        print: |p| p.kind.is_api().then(|| format!("{:?}", p.api.placeholder)),
        flag: Some(("--api-placeholder", Takes::Text, || {
            format!(
                "{API_READING} what a cleared result reads in the server view (default: {}). \
                 clear_at_least is always compared with every token the edit clears at the request \
                 (the server is stateless)",
                crate::harness::CLEARED
            )
        })),
        json: InPolicy::api(19, |p| p.api.placeholder.clone().into()),
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
        .find(|(flag, _, _)| flag.trim_start_matches('-') == long)
        .map(|(_, _, help)| help())
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
            json: p.json,
        })
        .chain(OTHER_KEYS.iter().copied())
}

/// The row of a config or sidecar key.
pub fn key(name: &str) -> Option<Key> {
    keys().find(|k| k.key == name)
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
#[derive(Debug, Clone, Copy)]
pub enum Compare {
    /// A comma-separated list of values, one grid row per value; `e_g` an
    /// example list for its help. Its values in the default grid (SPEC §9,
    /// §15.23) are each plan's (`Plan::grid`): qwen's size, which reads the
    /// gap too, runs at the session's.
    List {
        /// The list's value name in the help (`N,…`).
        value: &'static str,
        e_g: &'static str,
        /// A number each setting of the grid takes one of (the kind and the
        /// delivery are the grid's own axes): how a setting names it.
        axis: Option<Axis>,
    },
    /// One value for every row, in plan's words.
    Same,
    /// One value for every row, in compare's own words (its help is its own).
    Own,
    /// Compare has no such flag.
    Not,
}

/// A numeric parameter `compare` lists: the grid multiplies a kind that
/// reads it by its values, and a setting names the one it took.
#[derive(Debug, Clone, Copy)]
pub struct Axis {
    /// Its name in a setting's words (`keep 5`, `gap 30m`).
    pub name: &'static str,
    /// Its letter in the compare panel's short form (`k5`, `g30m`).
    pub short: &'static str,
    /// The unit after a value in both (`m`), and in a group's range (` min`).
    pub unit: &'static str,
    pub unit_long: &'static str,
    /// The policy's value, as a setting takes it (None: the policy gives none,
    /// `keep_recent` by kind).
    pub get: fn(&Policy) -> Option<KeyValue>,
}

/// The numeric parameters `compare` takes lists of, in the table's order,
/// each with its axis.
pub fn axes() -> impl Iterator<Item = (&'static Param, Axis)> {
    PARAMS.iter().filter_map(|p| match p.compare {
        Compare::List { axis: Some(a), .. } => Some((p, a)),
        _ => None,
    })
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

/// When a plan kind reads a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Whenever it decides.
    Always,
    /// Only under a preset whose `size` plan is off with idle
    /// (`Harness::size_off_with_idle`: qwen's settings coupling, SPEC §5).
    SizeNeedsIdle,
}

mod in_policy;
mod table;
pub use in_policy::{Holds, InPolicy, NoneInForce, Over, Settle, Used};
pub use table::PARAMS;

/// One parameter a harness's own plan reads, as a header shows it: its key
/// (for the header's marks), and the words before and after its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub key: &'static str,
    pub before: &'static str,
    pub value: String,
    pub after: &'static str,
}

/// A parameter as a header shows it (see [`Shown`]).
pub fn shown(key: &'static str, before: &'static str, value: String, after: &'static str) -> Shown {
    Shown {
        key,
        before,
        value,
        after,
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
mod tests;
