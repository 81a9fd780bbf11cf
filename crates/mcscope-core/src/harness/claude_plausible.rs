//! Could Claude Code have run this plan here? (SPEC §13.P, §15.10.) Per request:
//! whether the build that wrote the session had the plan's code path (`true`),
//! had none (`false`: the clearing shown is a what-if), or cannot be told
//! (`null`), with the reason id. The remote flags are caveats, not this.
//! Upstream: the published bundles up to 2.1.332 (`claude_version.rs`'s rows).

use super::claude_version::{VersionRow, parse};
use crate::session::{Request, Session};
use crate::vocab::Plausible;
use crate::vocab::{Delivery, PlanKind, Policy};

/// SPEC §13.P1's table after the baseline's row, first matching rule: `kind`
/// is the plan in force at `req` (auto's choice; None: none).
pub(super) fn could_run(
    policy: &Policy,
    s: &Session,
    req: &Request,
    kind: Option<PlanKind>,
) -> Plausible {
    let not_assessed = Plausible::NOT_ASSESSED;
    // Only Claude Code's own transcripts (its first format) under its own
    // preset are assessed: a messages-json body records no build.
    if s.harness.rules().formats.first() != Some(&s.format)
        || policy.preset != s.harness
        || policy.kind.is_api()
    {
        return not_assessed;
    }
    let Some(kind) = kind else {
        return Plausible::of(None, "no_plan");
    };
    let v = req.version.as_deref();
    let row = VersionRow::of(v);
    let ok = |yes: bool, no: &'static str| {
        if yes {
            Plausible::of(Some(true), "ok")
        } else {
            Plausible::of(Some(false), no)
        }
    };
    match kind {
        PlanKind::Forced | PlanKind::Size => Plausible::of(Some(false), "not_in_claude_code"),
        PlanKind::Count => Plausible::of(Some(false), "internal_builds_only"),
        _ if policy.delivery == Delivery::CacheEdits => {
            Plausible::of(Some(false), "internal_builds_only")
        }
        PlanKind::Api | PlanKind::Auto | PlanKind::Mask | PlanKind::Prune | PlanKind::Cline => {
            not_assessed
        }
        PlanKind::Recorded => Plausible::RECORDED,
        _ if row == VersionRow::Unknown => Plausible::of(None, "version_unknown"),
        PlanKind::Budget => ok(row == VersionRow::Budget, "version_lacks_code"),
        PlanKind::Idle if row != VersionRow::Idle => {
            Plausible::of(Some(false), "version_lacks_code")
        }
        PlanKind::Idle => match req.entrypoint.as_deref() {
            None => Plausible::of(None, "entrypoint_unknown"),
            Some("cli") => Plausible::of(Some(true), "ok"),
            Some(_) => Plausible::of(Some(false), "not_interactive"),
        },
        PlanKind::IdleServer => ok(
            v.and_then(parse).is_some_and(|x| x >= (2, 1, 285)),
            "version_lacks_code",
        ),
    }
}
