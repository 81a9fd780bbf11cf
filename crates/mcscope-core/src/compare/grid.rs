//! The grid of settings a comparison runs: the command line's lists, and the
//! cross product of what each plan kind reads.

use super::*;

/// The comma-separated lists of the command line; None: not given.
#[derive(Debug, Clone, Default)]
pub struct Lists {
    pub policy: Option<Vec<PlanKind>>,
    pub keep_recent: Option<Vec<u32>>,
    pub gap_minutes: Option<Vec<f64>>,
    pub size_threshold: Option<Vec<i64>>,
    pub trigger: Option<Vec<u32>>,
    pub delivery: Option<Vec<Delivery>>,
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
            || self.keep_recent.is_some()
            || self.gap_minutes.is_some()
            || self.size_threshold.is_some()
            || self.trigger.is_some()
            || self.delivery.is_some()
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

/// One setting of the grid: the parameters it sets (None: the session's own).
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub preset: HarnessId,
    pub kind: PlanKind,
    pub keep_recent: Option<u32>,
    pub gap_minutes: Option<f64>,
    pub size_threshold: Option<i64>,
    pub trigger: Option<u32>,
    pub delivery: Delivery,
    /// The api preset's first clear_tool_uses edit: trigger value, keep value.
    pub api_trigger: Option<u64>,
    pub api_keep: Option<u64>,
}

/// Which list parameters a kind reads on `preset`'s sessions: keep, gap, size,
/// trigger — the parameter table's `read_by` column (`PlanKind::reads`), so a
/// kind is multiplied by the lists of what it reads (SPEC §9). `auto` reads
/// what the kind it chooses at a request reads: keep, gap and size.
fn uses(kind: PlanKind, preset: HarnessId) -> (bool, bool, bool, bool) {
    if kind == PlanKind::Auto {
        return (true, true, true, false);
    }
    let reads = |key| kind.reads(key, preset);
    (
        reads("keep_recent"),
        reads("gap_threshold_minutes"),
        reads("size_threshold"),
        reads("trigger_threshold"),
    )
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
    let opt = |v: &Option<Vec<u32>>| -> Vec<Option<u32>> {
        v.as_ref()
            .map_or(vec![None], |v| v.iter().copied().map(Some).collect())
    };
    let mut out = Vec::new();
    for kind in kinds {
        let (uk, ug, us, ut) = uses(kind, preset);
        // The default grid's values are the parameter table's (`Compare::List`).
        let grid_of = |key: &str| {
            default
                .then(|| crate::policy::params::by_key(key))
                .flatten()
                .and_then(|p| p.default_grid(kind))
        };
        let keeps: Vec<Option<u32>> = match grid_of("keep_recent") {
            Some(values) => values.iter().map(|&v| Some(v as u32)).collect(),
            None if uk => opt(&lists.keep_recent),
            None => vec![None],
        };
        let gaps: Vec<Option<f64>> = match (grid_of("gap_threshold_minutes"), ug) {
            (Some(values), true) => values.iter().copied().map(Some).collect(),
            (None, true) if !default => lists
                .gap_minutes
                .as_ref()
                .map_or(vec![None], |v| v.iter().copied().map(Some).collect()),
            _ => vec![None],
        };
        let sizes: Vec<Option<i64>> = match (grid_of("size_threshold"), us) {
            (Some(values), true) => values.iter().map(|&v| Some(v as i64)).collect(),
            (None, true) if !default => lists
                .size_threshold
                .as_ref()
                .map_or(vec![None], |v| v.iter().copied().map(Some).collect()),
            _ => vec![None],
        };
        let triggers: Vec<Option<u32>> = match (grid_of("trigger_threshold"), ut) {
            (Some(values), true) => values.iter().map(|&v| Some(v as u32)).collect(),
            (None, true) if !default => opt(&lists.trigger),
            _ => vec![None],
        };
        let deliveries: Vec<Delivery> = match &lists.delivery {
            // idle-server is delivered by the server only (SPEC §13.S).
            _ if kind == PlanKind::IdleServer => vec![Delivery::Server],
            Some(d) => d.clone(),
            None if kind == PlanKind::Count && edits => {
                vec![Delivery::Rewrite, Delivery::CacheEdits]
            }
            None => vec![Delivery::Rewrite],
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
            for &keep_recent in &keeps {
                for &gap_minutes in &gaps {
                    for &size_threshold in &sizes {
                        for &trigger in &triggers {
                            out.push(Params {
                                preset,
                                kind,
                                keep_recent,
                                gap_minutes,
                                size_threshold,
                                trigger,
                                delivery,
                                api_trigger: None,
                                api_keep: None,
                            });
                        }
                    }
                }
            }
        }
    }
    out
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
                keep_recent: None,
                gap_minutes: None,
                size_threshold: None,
                trigger: None,
                delivery: Delivery::Server,
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
        let (uk, ug, us, ut) = uses(p.kind, p.preset);
        Params {
            preset: p.preset,
            kind: p.kind,
            keep_recent: p.keep_recent.filter(|_| uk),
            gap_minutes: ug.then_some(p.gap_threshold_minutes),
            size_threshold: us.then_some(p.size_threshold),
            trigger: ut.then_some(p.trigger_threshold),
            delivery: p.delivery,
            api_trigger: (p.kind == PlanKind::Api)
                .then(|| p.api.first_trigger())
                .flatten(),
            api_keep: (p.kind == PlanKind::Api)
                .then(|| p.api.first_keep())
                .flatten(),
        }
    }

    /// Plan kind `kind` of `preset` with no parameter given, delivered by
    /// rewrite.
    pub fn of_kind(preset: HarnessId, kind: PlanKind) -> Params {
        Params {
            preset,
            kind,
            keep_recent: None,
            gap_minutes: None,
            size_threshold: None,
            trigger: None,
            delivery: Delivery::Rewrite,
            api_trigger: None,
            api_keep: None,
        }
    }

    /// The baseline (SPEC §9a): plan kind `recorded`, no parameter.
    pub fn baseline(preset: HarnessId) -> Params {
        Params::of_kind(preset, PlanKind::Recorded)
    }

    /// The session's policy with this setting's parameters.
    pub fn apply(&self, base: &Policy) -> Policy {
        let mut p = base.clone();
        if self.kind == PlanKind::Api {
            p.kind = PlanKind::Api;
            p.delivery = Delivery::Server;
            p.protect = false;
            p.api.tune_first_tool_uses(self.api_trigger, self.api_keep);
            return p;
        }
        // The api preset's baseline keeps delivery server: its preset's mark.
        let api_baseline = self.kind == PlanKind::Recorded && base.kind == PlanKind::Api;
        p.kind = self.kind;
        p.delivery = if api_baseline {
            Delivery::Server
        } else {
            self.delivery
        };
        if let Some(k) = self.keep_recent {
            p.keep_recent = Some(k);
        }
        if let Some(g) = self.gap_minutes {
            p.gap_threshold_minutes = g;
            p.gap_explicit = true;
        }
        if let Some(s) = self.size_threshold {
            p.size_threshold = s;
            p.size_explicit = true;
        }
        if let Some(t) = self.trigger {
            p.trigger_threshold = t;
        }
        p
    }

    /// The preset's name as the text form shows it (`api` for its rows).
    pub fn preset_name(&self) -> &'static str {
        if self.kind == PlanKind::Api {
            crate::harness::PresetId::SERVER.name()
        } else {
            self.preset.name()
        }
    }

    /// The setting in words, for the text form.
    pub fn words(&self) -> String {
        if self.kind == PlanKind::Api {
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
        if let Some(k) = self.keep_recent {
            let _ = write!(w, " keep {k}");
        }
        if let Some(g) = self.gap_minutes {
            let _ = write!(w, " gap {g}m");
        }
        if let Some(s) = self.size_threshold {
            let _ = write!(w, " size {s}");
        }
        if let Some(t) = self.trigger {
            let _ = write!(w, " trigger {t}");
        }
        if self.delivery != Delivery::Rewrite || self.kind == PlanKind::Count {
            let _ = write!(w, " {}", self.delivery.name());
        }
        w
    }
}
