//! Checks of the core (`mcscope-core`) that need a run set up as the command
//! line and the TUI set it up (`setup`: preset ← config file ← sidecar ←
//! options), which is this crate's.

mod context;
mod wired;
