//! The parameter table (`policy::params`) wired into the command line and the
//! TUI: each flag's help, each `:` command, each default shown.

mod flag_help;
mod given;
mod wiring;
