//! Plans (SPEC §3–§5): which tool results a harness would clear before each request.
//!
//! `presets` holds every harness fact in one table; `protect` decides managed-memory
//! protection through one `Resolver`; `engine` walks the timeline once, carrying
//! the clearings that are still in force from request to request.

pub mod engine;
pub mod protect;

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
}

impl Policy {
    /// The defaults of a preset (SPEC §5 table).
    pub fn preset(preset: Harness) -> Policy {
        Policy {
            kind: PlanKind::Auto,
            preset,
            keep_recent: 5,
            gap_threshold_minutes: 60.0,
            size_threshold: 500_000,
            low_watermark: true,
            trigger_threshold: 10,
            delivery: Delivery::Rewrite,
            // Qwen protects managed memory; Claude Code has no such rule (what-if).
            protect: preset == Harness::Qwen,
            // Claude's time-based clearing clears errors too; Qwen never does.
            clear_errors: preset == Harness::Claude,
        }
    }

    /// `keep_recent` is floored to 1 by both harnesses.
    pub fn keep(&self) -> usize {
        self.keep_recent.max(1) as usize
    }

    /// Whether error results may be cleared under this preset (never by `size`).
    pub fn errors_clearable(&self) -> bool {
        self.preset == Harness::Claude && self.clear_errors
    }
}

/// The tool names a harness writes, and which of them plans may clear.
#[derive(Debug, Clone)]
pub struct Tools {
    pub compactable: &'static [&'static str],
    pub read: &'static str,
    pub file_path: &'static [&'static str],
}

impl Tools {
    /// Tool names follow the transcript's harness, whatever preset is applied.
    pub fn of(harness: Harness) -> Tools {
        match harness {
            // Claude Code 2.1.88 services/compact/microCompact.ts COMPACTABLE_TOOLS.
            Harness::Claude => Tools {
                compactable: &[
                    "Read",
                    "Bash",
                    "PowerShell",
                    "Grep",
                    "Glob",
                    "WebSearch",
                    "WebFetch",
                    "Edit",
                    "Write",
                ],
                read: "Read",
                file_path: &["Read", "Edit", "Write"],
            },
            // Qwen Code services/microcompaction/microcompact.ts.
            Harness::Qwen => Tools {
                compactable: &[
                    "read_file",
                    "run_shell_command",
                    "grep_search",
                    "glob",
                    "web_fetch",
                    "read_mcp_resource",
                    "edit",
                    "write_file",
                ],
                read: "read_file",
                file_path: &["read_file", "edit", "write_file"],
            },
        }
    }

    pub fn is_compactable(&self, name: &str) -> bool {
        self.compactable.contains(&name)
    }

    pub fn is_file_path_tool(&self, name: &str) -> bool {
        self.file_path.contains(&name)
    }
}
