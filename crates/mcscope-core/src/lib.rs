//! mcscope's domain: what microcompaction did to a coding agent's conversation,
//! as plain functions and data. It names no terminal or command-line crate
//! (the binary, `mcscope`, is the command line, the TUI and what they print).
//!
//! The flow is [`load`] → [`session::Session`] → [`policy`] (plans along the
//! timeline) → [`wire`] (request bodies) → [`diff`] rows. Beside it:
//! - [`analysis`] (a run's `Setup`: the plan at a request, the timeline,
//!   explain, the wire, the evidence beside a plan), [`evidence`] and
//!   [`totals`] (what the transcript recorded, and the whole-session figures),
//!   [`context`] (what fills the window per request), [`bill`] and [`prices`]
//!   (the recorded bill), [`series`] (per-request series), [`caveats`];
//! - [`harness`] (each harness's rows, rules and words), [`config`] (the
//!   configuration file), [`scan`] (a folder's one-pass summary), [`export`]
//!   (the one writer);
//! - the leaves every module may use: [`vocab`] (the shared words),
//!   [`derived`] (facts a run derives from its session once), [`numbers`],
//!   [`sanitize`], [`zone`], [`theme`], [`page_paths`].

pub mod analysis;
pub mod bill;
pub mod caveats;
pub mod compare;
pub mod config;
pub mod context;
pub mod derived;
pub mod diff;
pub mod evidence;
pub mod export;
pub mod fasthash;
pub mod harness;
pub mod load;
pub mod numbers;
pub mod page_paths;
pub mod policy;
pub mod policy_json;
pub mod prices;
pub mod sanitize;
pub mod scan;
pub mod series;
pub mod session;
pub mod setup;
pub mod theme;
pub mod totals;
pub mod utf16;
pub mod vocab;
pub mod wire;
pub mod words;
pub mod zone;
