//! Could the harness have run this plan here? (SPEC §13.P, §15.10.) Per request:
//! whether the Claude Code build that wrote the session had the plan's code path
//! (`true`), had none (`false`: the clearing shown is a what-if), or cannot be
//! told (`null`), with the reason id. The remote flags are caveats, not this.

pub use crate::harness::plausible_at as at;
pub use crate::vocab::Plausible;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Delivery, PlanKind, Policy};
    use crate::session::{Format, HarnessId, Request, Session};
    use std::path::PathBuf;

    fn session(format: Format) -> Session {
        Session::empty(PathBuf::from("s.jsonl"), format)
    }

    fn req(version: Option<&str>, entrypoint: Option<&str>) -> Request {
        Request {
            version: version.map(str::to_string),
            entrypoint: entrypoint.map(str::to_string),
            ..Request::empty(1)
        }
    }

    fn claude(kind: PlanKind) -> Policy {
        Policy {
            kind,
            ..Policy::preset(HarnessId::Claude)
        }
    }

    fn pair(p: Plausible) -> (Option<bool>, &'static str) {
        (p.could_run, p.reason)
    }

    /// SPEC §13.P1: every row of the table, first match wins.
    #[test]
    fn p1_rows_in_order() {
        let s = session(Format::ClaudeJsonl);
        let at = |kind: Option<PlanKind>, v: Option<&str>, e: Option<&str>| {
            pair(at(
                &claude(kind.unwrap_or(PlanKind::Auto)),
                &s,
                &req(v, e),
                kind,
            ))
        };
        let cli = Some("cli");
        assert_eq!(at(None, Some("2.1.200"), cli), (None, "no_plan"));
        assert_eq!(
            at(Some(PlanKind::Forced), None, cli),
            (Some(false), "not_in_claude_code")
        );
        assert_eq!(
            at(Some(PlanKind::Size), Some("2.1.88"), cli),
            (Some(false), "not_in_claude_code")
        );
        assert_eq!(
            at(Some(PlanKind::Count), None, cli),
            (Some(false), "internal_builds_only")
        );
        assert_eq!(
            at(Some(PlanKind::Idle), None, cli),
            (None, "version_unknown")
        );
        assert_eq!(
            at(Some(PlanKind::Budget), Some("2.1.63"), cli),
            (Some(true), "ok")
        );
        assert_eq!(
            at(Some(PlanKind::Budget), Some("2.1.64"), cli),
            (Some(false), "version_lacks_code")
        );
        assert_eq!(
            at(Some(PlanKind::Budget), Some("1.0.5"), cli),
            (Some(false), "version_lacks_code")
        );
        assert_eq!(
            at(Some(PlanKind::Idle), Some("2.1.83"), cli),
            (Some(false), "version_lacks_code")
        );
        assert_eq!(
            at(Some(PlanKind::Idle), Some("2.1.88"), None),
            (None, "entrypoint_unknown")
        );
        assert_eq!(
            at(Some(PlanKind::Idle), Some("2.1.88"), cli),
            (Some(true), "ok")
        );
        assert_eq!(
            at(Some(PlanKind::Idle), Some("2.1.104"), Some("sdk-ts")),
            (Some(false), "not_interactive")
        );
        // S9: SDK main threads run idle-server.
        assert_eq!(
            at(Some(PlanKind::IdleServer), Some("2.1.285"), Some("sdk-ts")),
            (Some(true), "ok")
        );
        assert_eq!(
            at(Some(PlanKind::IdleServer), Some("2.1.284"), cli),
            (Some(false), "version_lacks_code")
        );
    }

    /// SPEC §15.10: delivery cache-edits is internal builds only, whatever the kind.
    #[test]
    fn cache_edits_is_internal_builds_only() {
        let s = session(Format::ClaudeJsonl);
        let mut p = claude(PlanKind::Idle);
        p.delivery = Delivery::CacheEdits;
        assert_eq!(
            pair(at(
                &p,
                &s,
                &req(Some("2.1.88"), Some("cli")),
                Some(PlanKind::Idle)
            )),
            (Some(false), "internal_builds_only")
        );
    }

    /// SPEC §13.P1: qwen sessions, messages-json bodies and the api preset are
    /// not assessed.
    #[test]
    fn others_are_not_assessed() {
        let r = req(Some("2.1.88"), Some("cli"));
        let idle = Some(PlanKind::Idle);
        for f in [Format::QwenJsonl, Format::MessagesJson] {
            let mut s = session(f);
            s.harness = if f == Format::QwenJsonl {
                HarnessId::Qwen
            } else {
                HarnessId::Claude
            };
            assert_eq!(
                pair(at(&claude(PlanKind::Idle), &s, &r, idle)),
                (None, "not_assessed")
            );
        }
        let s = session(Format::ClaudeJsonl);
        assert_eq!(
            pair(at(&Policy::api_preset(), &s, &r, Some(PlanKind::Api))),
            (None, "not_assessed")
        );
    }
}
