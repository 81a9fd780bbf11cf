//! The grid of settings a comparison runs: the command line's lists, and the
//! cross product of what each plan kind reads.

use super::*;
use crate::config::KeyValue;

/// The comma-separated lists of the command line; None: not given.
#[derive(Debug, Clone, Default)]
pub struct Lists {
    pub policy: Option<Vec<PlanKind>>,
    pub delivery: Option<Vec<Delivery>>,
    /// The lists of the numeric parameters (`policy::params::axes`), by key,
    /// each value read as its row's type.
    pub values: Vec<(&'static str, Vec<KeyValue>)>,
    /// The api preset (SPEC §11): the first clear_tool_uses edit's trigger
    /// value and keep value.
    pub api_trigger: Option<Vec<u64>>,
    pub api_keep: Option<Vec<u64>>,
}

impl Lists {
    fn any(&self) -> bool {
        self.api_trigger.is_some()
            || self.api_keep.is_some()
            || self.policy.is_some()
            || self.delivery.is_some()
            || !self.values.is_empty()
    }

    /// The list given for the parameter of `key`.
    pub fn of(&self, key: &str) -> Option<&[KeyValue]> {
        self.values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_slice())
    }
}

/// Parses `a,b,c` with `one`; a bad item names itself.
pub fn parse_list<T>(
    flag: &str,
    text: &str,
    one: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, String> {
    text.split(',')
        .map(str::trim)
        .map(|x| one(x).ok_or_else(|| format!("--{flag} {text:?}: cannot read {x:?}")))
        .collect()
}

/// One setting of the grid: the parameters it sets (a parameter it does not
/// set keeps the session's own).
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub preset: HarnessId,
    pub kind: PlanKind,
    pub delivery: Delivery,
    /// The numeric parameters it sets (`policy::params::axes`), by key, in
    /// the table's order.
    pub values: Vec<(&'static str, KeyValue)>,
    /// The api preset's first clear_tool_uses edit: trigger value, keep value.
    pub api_trigger: Option<u64>,
    pub api_keep: Option<u64>,
}

/// Whether a kind reads the parameter of `key` on `preset`'s sessions (the
/// plans' `reads`, `PlanKind::reads`), so that the grid
/// multiplies the kind by that parameter's list (SPEC §9). `auto` reads what
/// any harness's `auto` may choose reads.
pub(super) fn uses(kind: PlanKind, preset: HarnessId, key: &str) -> bool {
    if !kind.is_auto() {
        return kind.reads(key, preset);
    }
    <HarnessId as strum::VariantArray>::VARIANTS
        .iter()
        .any(|&h| h.asks().auto_kinds().iter().any(|k| k.reads(key, h)))
}

/// The setting grid for sessions of `preset` (SPEC §9): the default grid when no
/// list is given; otherwise the cross product of the lists, a kind multiplied
/// only by the parameters it reads (a parameter without a list keeps the
/// session's value). Settings a preset cannot run (cache-edits on qwen, budget
/// off rewrite) are left out.
pub fn grid(preset: HarnessId, lists: &Lists) -> Vec<Params> {
    let facts = preset.rules();
    let edits = facts.offers_delivery(Delivery::CacheEdits);
    if lists.api_trigger.is_some() || lists.api_keep.is_some() {
        return if facts.offers.api_grid {
            api_grid(lists)
        } else {
            Vec::new()
        };
    }
    let default = !lists.any();
    let kinds: Vec<PlanKind> = match &lists.policy {
        Some(k) => k.clone(),
        None => facts.offers.grid_kinds.to_vec(),
    };
    let mut out = Vec::new();
    for kind in kinds {
        // Each numeric parameter the kind reads: the default grid's values
        // for the kind (the parameter table's `Compare::List`), else the
        // list given, else the session's own; one setting per combination,
        // the table's first parameter outermost.
        let mut combos: Vec<Vec<(&'static str, KeyValue)>> = vec![Vec::new()];
        for (row, _) in crate::policy::params::axes() {
            if !uses(kind, preset, row.key) {
                continue;
            }
            let values: Vec<KeyValue> = match kind.default_grid(row.key).filter(|_| default) {
                Some(grid) => grid.iter().map(|&v| of_grid(row, v)).collect(),
                None => match lists.of(row.key) {
                    Some(list) => list.to_vec(),
                    None => continue,
                },
            };
            combos = combos
                .iter()
                .flat_map(|c| {
                    values.iter().map(move |v| {
                        let mut c = c.clone();
                        c.push((row.key, v.clone()));
                        c
                    })
                })
                .collect();
        }
        let deliveries: Vec<Delivery> = match &lists.delivery {
            // idle-server is delivered by the server only (SPEC §13.S).
            _ if kind.server_only() => vec![Delivery::Server],
            Some(d) => d.clone(),
            None => kind.grid_deliveries(edits),
        };
        for &delivery in &deliveries {
            // What setup would refuse on the preset's sessions is left out
            // (`Policy::check`: cache-edits off Claude, budget off rewrite…).
            let legal = Policy {
                kind,
                delivery,
                ..Policy::preset(preset)
            };
            if legal.check(preset).is_err() {
                continue;
            }
            for values in &combos {
                out.push(Params {
                    preset,
                    kind,
                    delivery,
                    values: values.clone(),
                    api_trigger: None,
                    api_keep: None,
                });
            }
        }
    }
    out
}

/// A value of a default grid (the table holds them as numbers) as its
/// parameter's type.
fn of_grid(row: &crate::policy::params::Param, v: f64) -> KeyValue {
    use crate::policy::params::Put;
    match row.put {
        Put::I64(_) => KeyValue::I64(v as i64),
        Put::F64(_) => KeyValue::F64(v),
        Put::U64(_) => KeyValue::U64(v as u64),
        _ => KeyValue::U32(v as u32),
    }
}

/// The api preset's grid: its trigger values × its keep values (a list not
/// given keeps the session's edit), each run on the claude-shaped sessions.
fn api_grid(lists: &Lists) -> Vec<Params> {
    let opt = |v: &Option<Vec<u64>>| -> Vec<Option<u64>> {
        v.as_ref()
            .map_or(vec![None], |v| v.iter().copied().map(Some).collect())
    };
    let mut out = Vec::new();
    for api_trigger in opt(&lists.api_trigger) {
        for api_keep in opt(&lists.api_keep) {
            out.push(Params {
                preset: crate::harness::PresetId::SERVER.harness(),
                kind: PlanKind::Api,
                delivery: Delivery::Server,
                values: Vec::new(),
                api_trigger,
                api_keep,
            });
        }
    }
    out
}

impl Params {
    /// The setting a policy is, with the parameters its kind reads.
    pub fn of(p: &Policy) -> Params {
        Params {
            preset: p.preset,
            kind: p.kind,
            delivery: p.delivery,
            values: crate::policy::params::axes()
                .filter(|(row, _)| uses(p.kind, p.preset, row.key))
                .filter_map(|(row, axis)| Some((row.key, (axis.get)(p)?)))
                .collect(),
            api_trigger: p.kind.is_api().then(|| p.api.first_trigger()).flatten(),
            api_keep: p.kind.is_api().then(|| p.api.first_keep()).flatten(),
        }
    }

    /// Plan kind `kind` of `preset` with no parameter given, delivered by
    /// rewrite.
    pub fn of_kind(preset: HarnessId, kind: PlanKind) -> Params {
        Params {
            preset,
            kind,
            delivery: Delivery::Rewrite,
            values: Vec::new(),
            api_trigger: None,
            api_keep: None,
        }
    }

    /// Sets the parameter of `key` to `value` (None: the session's own), in
    /// the table's order.
    pub fn set(&mut self, key: &'static str, value: Option<KeyValue>) {
        self.values.retain(|(k, _)| *k != key);
        if let Some(v) = value {
            self.values.push((key, v));
            let at = |k: &str| {
                crate::policy::params::PARAMS
                    .iter()
                    .position(|p| p.key == k)
            };
            self.values.sort_by_key(|(k, _)| at(k));
        }
    }

    /// The value it sets for the parameter of `key`, as a number.
    pub fn number(&self, key: &str) -> Option<f64> {
        self.values
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.number())
    }

    /// The baseline (SPEC §9a): plan kind `recorded`, no parameter.
    pub fn baseline(preset: HarnessId) -> Params {
        Params::of_kind(preset, PlanKind::Recorded)
    }

    /// The session's policy with this setting's parameters.
    pub fn apply(&self, base: &Policy) -> Policy {
        let mut p = base.clone();
        if self.kind.is_api() {
            p.kind = PlanKind::Api;
            p.delivery = Delivery::Server;
            p.protect = false;
            p.api.tune_first_tool_uses(self.api_trigger, self.api_keep);
            return p;
        }
        // The api preset's baseline keeps delivery server: its preset's mark.
        let api_baseline = self.kind.is_baseline() && base.kind.is_api();
        p.kind = self.kind;
        p.delivery = if api_baseline {
            Delivery::Server
        } else {
            self.delivery
        };
        for (key, value) in &self.values {
            // The grid's values were read as their rows' types: none is refused.
            let _ = crate::config::set_key(&mut p, key, value);
        }
        p
    }

    /// The preset's name as the text form shows it (`api` for its rows).
    pub fn preset_name(&self) -> &'static str {
        if self.kind.is_api() {
            crate::harness::PresetId::SERVER.name()
        } else {
            self.preset.name()
        }
    }

    /// The setting in words, for the text form.
    pub fn words(&self) -> String {
        if self.kind.is_api() {
            // The preset's name says api; its edit's values follow.
            let mut w = Vec::new();
            if let Some(t) = self.api_trigger {
                w.push(format!("trigger {t}"));
            }
            if let Some(k) = self.api_keep {
                w.push(format!("keep {k}"));
            }
            return w.join(" ");
        }
        let mut w = self.kind.name().to_string();
        for (row, axis) in crate::policy::params::axes() {
            if let Some((_, v)) = self.values.iter().find(|(k, _)| *k == row.key) {
                let _ = write!(w, " {} {v}{}", axis.name, axis.unit);
            }
        }
        // A kind the grid runs with several deliveries always names its own.
        if self.delivery != Delivery::Rewrite || self.kind.grid_deliveries(true).len() > 1 {
            let _ = write!(w, " {}", self.delivery.name());
        }
        w
    }
}
