//! mcscope: what microcompaction did to a coding agent's conversation.
//!
//! The domain is the `mcscope-core` crate (loaders, the normalized session,
//! the harnesses, the plans and their engine, the wire, the evidence, the
//! totals, the bill and the setup of a run from its options), which names no
//! terminal or command-line crate; its modules are re-exported here under
//! their names (`mcscope::policy`, `mcscope::setup`…).
//! This crate is the binary's library on top of it, for the binary
//! (`main.rs`), the benchmarks, the fuzz targets and the integration tests:
//! - [`report`] (the JSON and text of each subcommand, reasons in words),
//!   [`statusline`], `compare` (the grid of settings) and its page;
//! - the edges: [`cli`] (clap), [`color`] and [`tui`] (the app, its keymap and
//!   drawing).

// pub(crate) by default: a `pub` item that the library's API below does not
// reach is an error under `clippy -D warnings`.
#![warn(unreachable_pub)]

pub use mcscope_core::{
    analysis, bill, caveats, config, context, derived, diff, evidence, export, harness, load,
    numbers, page_paths, policy, policy_json, prices, sanitize, scan, series, session, setup,
    theme, totals, vocab, wire, words, zone,
};

pub mod cli;
pub mod color;
pub(crate) mod compare;
pub(crate) mod compare_html;
pub mod named;
pub mod report;
pub mod statusline;
pub mod tui;
