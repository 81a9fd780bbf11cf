//! `compare`'s grid is the core's (`mcscope_core::compare`: the settings, the
//! runs, the ranking); this module adds its outputs, the JSON and the text.

pub(crate) use mcscope_core::compare::*;

mod output;
pub(crate) use output::{COLUMNS, json, kind_line, row_cells, skip_kinds, text};
