//! `--policy recorded`, the baseline (SPEC §9a, §15.3, §15.5): it takes no plan
//! parameters, and the session says where an applied server edit's ids are
//! unknown.

use crate::analysis::Setup;
use crate::policy::engine::Note;
use crate::session::SessionWarning;

/// The `session.warnings` id of an applied edit whose ids the baseline could
/// not name (SPEC §15.5).
pub(crate) const BASELINE_EDIT_IDS_UNKNOWN: &str = "baseline_edit_ids_unknown";

/// The flags of the plan parameters given (`keep_recent` is `--keep`), which
/// the baseline refuses: it takes none (SPEC §15.3).
pub(super) fn flags_of(given: &[&str]) -> Vec<String> {
    given
        .iter()
        .map(|&k| {
            crate::policy::params::by_key(k)
                .map_or(k, |p| p.flag)
                .to_string()
        })
        .collect()
}

/// One warning per request where the session records the server clearing tool
/// uses and idle-server's simulation with the version's defaults does not
/// clear as many (SPEC §15.5): the baseline counts the recorded tokens there
/// without knowing which results they were.
pub(crate) fn warnings(setup: &Setup) -> Vec<SessionWarning> {
    if !crate::policy::recorded::any_edit_cleared(&setup.session) {
        return Vec::new();
    }
    let s = &setup.session;
    let mut out = Vec::new();
    let mut engine = setup.engine(setup.last_request()).lean().newly_only();
    while let Some(st) = engine.step() {
        let Note::Recorded(why) = &st.note else {
            continue;
        };
        let Some(e) = why.edit.filter(|e| !e.ids_known()) else {
            continue;
        };
        let line = s.requests[st.index - 1]
            .response
            .map(|m| s.messages[m].first_line);
        let simulated = match e.simulated {
            Some(n) => format!("clears {n}"),
            None => "applies nothing".to_string(),
        };
        out.push(SessionWarning {
            id: BASELINE_EDIT_IDS_UNKNOWN,
            line,
            text: format!(
                "request {}: the server cleared {} tool uses ({} tokens) as recorded, but idle-server's simulation with the version's defaults {simulated} there: the baseline counts the recorded tokens as not sent without knowing which results they were",
                st.index,
                e.cleared_tool_uses,
                crate::numbers::fmt_int(e.cleared_input_tokens)
            ),
        });
    }
    out
}
