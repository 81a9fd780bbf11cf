//! The command line's flags over the layers below them (config file, sidecar,
//! preset): each one given is the value, marked as a flag's.

use super::*;

/// The flags over the layers: each parameter given is the value, marked as a
/// flag's (`Given::apply`, by the table's rows).
pub(super) fn apply_flags(
    p: &mut Policy,
    opts: &Opts,
    sources: &mut std::collections::BTreeMap<&'static str, Source>,
) -> Result<(), UsageError> {
    opts.given.apply(p, sources)
}
