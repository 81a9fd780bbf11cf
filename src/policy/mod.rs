//! Plans (SPEC §3–§5): which tool results a harness would clear before each request.
//!
//! `crate::harness` holds every harness fact in one table; `protect` decides managed-memory
//! protection through one `Resolver`; `engine` walks the timeline once, carrying
//! the clearings that are still in force from request to request.

pub mod engine;
pub mod protect;
pub mod send;

use crate::session::Harness;
use serde::Serialize;

pub use engine::{Candidate, Engine, Status, Step, Trigger};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanKind {
    Auto,
    Idle,
    Forced,
    Size,
    Count,
}

impl PlanKind {
    pub const ALL: [PlanKind; 5] = [
        PlanKind::Auto,
        PlanKind::Idle,
        PlanKind::Forced,
        PlanKind::Size,
        PlanKind::Count,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PlanKind::Auto => "auto",
            PlanKind::Idle => "idle",
            PlanKind::Forced => "forced",
            PlanKind::Size => "size",
            PlanKind::Count => "count",
        }
    }

    pub fn parse(s: &str) -> Option<PlanKind> {
        PlanKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Delivery {
    Rewrite,
    CacheEdits,
}

impl Delivery {
    pub fn name(self) -> &'static str {
        match self {
            Delivery::Rewrite => "rewrite",
            Delivery::CacheEdits => "cache-edits",
        }
    }

    pub fn parse(s: &str) -> Option<Delivery> {
        match s {
            "rewrite" => Some(Delivery::Rewrite),
            "cache-edits" => Some(Delivery::CacheEdits),
            _ => None,
        }
    }
}

/// The parameters of a plan: the JSON `policy` object, a sidecar, or flags.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Policy {
    pub kind: PlanKind,
    pub preset: Harness,
    pub keep_recent: u32,
    pub gap_threshold_minutes: f64,
    pub size_threshold: i64,
    pub low_watermark: bool,
    pub trigger_threshold: u32,
    pub delivery: Delivery,
    pub protect: bool,
    pub clear_errors: bool,
    /// Whether `size_threshold` was set (flag, sidecar, config): with the qwen
    /// preset, a negative gap without one turns size off too (SPEC §5).
    #[serde(skip)]
    pub size_explicit: bool,
}

impl Policy {
    /// The defaults of a preset (SPEC §5 table).
    pub fn preset(preset: Harness) -> Policy {
        let d = preset.rules().defaults;
        Policy {
            kind: PlanKind::Auto,
            preset,
            keep_recent: d.keep_recent,
            gap_threshold_minutes: d.gap_threshold_minutes,
            size_threshold: d.size_threshold,
            low_watermark: d.low_watermark,
            trigger_threshold: d.trigger_threshold,
            delivery: Delivery::Rewrite,
            protect: d.protect,
            clear_errors: d.clear_errors,
            size_explicit: false,
        }
    }

    /// `keep_recent` is floored to 1 by both harnesses.
    pub fn keep(&self) -> usize {
        self.keep_recent.max(1) as usize
    }

    /// Whether error results may be cleared under this preset (never by `size`).
    pub fn errors_clearable(&self) -> bool {
        self.preset.rules().errors_clearable && self.clear_errors
    }
}
