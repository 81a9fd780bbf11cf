//! mcscope: what microcompaction did to a coding agent's conversation.
//!
//! The flow is `load` → [`session::Session`] → `policy` (plans along the timeline)
//! → `wire` (request bodies) → `diff` rows → TUI / CLI. Every step but loading and
//! drawing is a plain function.

pub mod analysis;
pub mod caveats;
pub mod cli;
pub mod compare;
pub mod compare_html;
pub mod config;
pub mod diff;
pub mod evidence;
pub mod harness;
pub mod load;
pub mod numbers;
pub mod policy;
pub mod prices;
pub mod report;
pub mod scan;
pub mod series;
pub mod session;
pub mod setup;
pub mod totals;
pub mod tui;
pub mod wire;
