//! mcscope: what microcompaction did to a coding agent's conversation.
//!
//! The flow is `load` → [`session::Session`] → `policy` (plans along the timeline)
//! → `wire` (request bodies) → `diff` rows → TUI / CLI. Every step but loading and
//! drawing is a plain function.
//!
//! # The library's API
//! The crate is a binary first; the library exists for the binary (`main.rs`),
//! the benchmarks, the fuzz targets and the integration tests, and its API is
//! what they use, nothing more:
//! - [`setup`] (clap-free `Opts` → a [`analysis::Setup`]), [`load`] (a session from
//!   a file, a thread, a followed file), [`session`] (the normalized session);
//! - [`analysis`] (the plan at a request, the timeline, explain, the wire, the
//!   evidence beside a plan), [`policy`] (the `Policy`, the engine and its
//!   reported types, protection, the api edits), [`wire`] (bodies and token
//!   figures), [`evidence`] and [`totals`] (what the transcript recorded, and the
//!   whole-session figures), [`context`] (what fills the window per request);
//! - [`report`] (the JSON and text of each subcommand, reasons in words),
//!   [`numbers`], [`config`] (the configuration file), [`scan`] (the picker's
//!   one-pass summary);
//! - the edges: [`cli`] (clap) and [`tui`] (the app, its keymap and drawing);
//! - the leaves every module may use: [`vocab`] (the shared words) and
//!   [`derived`] (facts a run derives from its session once).
//!
//! Everything else is `pub(crate)`: the preset table (`harness`), `compare`,
//! `caveats`, `prices`, `series`, `diff`, and every module's helpers.

// pub(crate) by default: a `pub` item that the library's API below does not
// reach is an error under `clippy -D warnings`.
#![warn(unreachable_pub)]

pub mod analysis;
pub mod bill;
pub(crate) mod caveats;
pub mod cli;
pub mod color;
pub(crate) mod compare;
pub(crate) mod compare_html;
pub mod config;
pub mod context;
pub mod derived;
pub(crate) mod diff;
pub mod evidence;
pub(crate) mod export;
pub mod harness;
pub mod load;
pub mod numbers;
pub(crate) mod page_paths;
pub mod policy;
pub(crate) mod prices;
pub mod report;
pub mod sanitize;
pub mod scan;
pub(crate) mod series;
pub mod session;
pub mod setup;
pub mod statusline;
pub mod theme;
pub mod totals;
pub mod tui;
pub mod vocab;
pub mod wire;
pub mod zone;
