//! mcscope: what microcompaction did to a coding agent's conversation.
//!
//! The flow is `load` → [`session::Session`] → `policy` (plans along the timeline)
//! → `wire` (request bodies) → `diff` rows → TUI / CLI. Every step but loading and
//! drawing is a plain function.

// pub(crate) by default: a `pub` item that the library's API below does not
// reach is an error under `clippy -D warnings`.
#![warn(unreachable_pub)]

pub mod analysis;
pub(crate) mod caveats;
pub mod cli;
pub(crate) mod compare;
pub(crate) mod compare_html;
pub mod config;
pub(crate) mod diff;
pub mod evidence;
pub(crate) mod harness;
pub mod load;
pub mod numbers;
pub mod policy;
pub(crate) mod prices;
pub mod report;
pub mod scan;
pub(crate) mod series;
pub mod session;
pub mod setup;
pub mod totals;
pub mod tui;
pub mod wire;
