//! What the harness may not have run (SPEC §5 "What the harness may not have run"):
//! the caveats `plan`, `timeline` and `explain` carry in JSON and say in words, and
//! the TUI header shows in short. Each harness's row lists its own (`Preset::caveats`:
//! the texts and the rule that shows each live in its file, `src/harness/`); here is
//! what a rule reads and how the list is made.

use crate::vocab::{PlanKind, Policy};

use crate::harness::caveat::Ask;
pub(crate) use crate::harness::caveat::At;
pub use crate::harness::caveat::Caveat;

/// The caveats of a policy whose plans in force are `kinds` (what `auto` chose,
/// or the kind asked for), with what each request in `at` holds (SPEC §13.C,
/// §5): each caveat once, in the order of [`ALL`], its placeholders filled.
pub fn caveats(policy: &Policy, kinds: &[PlanKind], at: &[At<'_>]) -> Vec<Caveat> {
    caveats_with(policy, kinds, at, false)
}

/// As [`caveats`], where `cut` says a `tool_results_cut` record is in the view
/// (SPEC §13.C `claude_cut_flags`: any claude-preset plan then applies it).
pub(crate) fn caveats_with(
    policy: &Policy,
    kinds: &[PlanKind],
    at: &[At<'_>],
    cut: bool,
) -> Vec<Caveat> {
    let ask = Ask {
        policy,
        kinds,
        at,
        cut,
    };
    // Each harness (and the api preset) shows its own caveats, in its row's order.
    let facts = policy.asks().facts();
    let mut out: Vec<Caveat> = facts
        .offers
        .caveats
        .iter()
        .filter_map(|rule| {
            rule.text(&ask).map(|text| Caveat {
                id: rule.template.id,
                short: rule.template.short,
                text,
            })
        })
        .collect();
    // SPEC §16.I, §18.9: last, a plan the session shows did not run.
    let said: Vec<String> = policy
        .did_not_run
        .iter()
        .filter_map(|(kind, k, n)| {
            let r = facts.offers.recorded_kinds.iter().find(|r| r.kind == *kind)?;
            Some(format!(
                "the {} plan did not run in this session: it would have cleared {n} result{} at request {k} and {} (off: {}); auto plans nothing for it, and --policy {} shows it as a what-if",
                kind.name(),
                if *n == 1 { "" } else { "s" },
                r.record,
                r.off,
                kind.name()
            ))
        })
        .collect();
    if !said.is_empty() {
        out.push(Caveat {
            id: "plan_did_not_run",
            short: "a plan did not run",
            text: said.join("; "),
        });
    }
    out
}

/// The caveats `preset`'s sessions carry where a recorded cut is a fact of
/// every row (SPEC §13.C: `compare` applies cuts in every row of a claude
/// session): those a cut alone makes show.
pub fn of_cuts(preset: crate::session::HarnessId) -> Vec<Caveat> {
    let policy = Policy::preset(preset);
    let without = caveats_with(&policy, &[], &[], false);
    caveats_with(&policy, &[], &[], true)
        .into_iter()
        .filter(|c| !without.contains(c))
        .collect()
}

/// Every caveat of every preset, in the registry's order (SPEC §15.8: §13.C's
/// table, then the qwen ids, then the api preset's, then §14's: Gemini CLI's
/// and OpenCode's).
#[cfg(test)]
pub(crate) fn all() -> Vec<crate::harness::caveat::Template> {
    <crate::harness::PresetId as strum::VariantArray>::VARIANTS
        .iter()
        .flat_map(|p| p.rules().offers.caveats.iter().map(|r| r.template))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Delivery;
    use crate::session::HarnessId;
    use crate::vocab::Plausible;

    fn ids(p: &Policy, kinds: &[PlanKind]) -> Vec<&'static str> {
        caveats(p, kinds, &[]).iter().map(|c| c.id).collect()
    }

    #[test]
    fn each_plan_names_its_caveat() {
        let claude = Policy::preset(HarnessId::Claude);
        assert_eq!(ids(&claude, &[PlanKind::Idle]), ["claude_idle_flag"]);
        assert_eq!(
            ids(&claude, &[PlanKind::Budget]),
            ["claude_budget_kill_switch"]
        );
        assert_eq!(
            ids(&claude, &[PlanKind::Idle, PlanKind::Budget]),
            ["claude_idle_flag", "claude_budget_kill_switch"]
        );
        assert_eq!(ids(&claude, &[PlanKind::Count]), ["claude_cached_internal"]);
        assert!(ids(&claude, &[PlanKind::Size]).is_empty());
        assert!(ids(&claude, &[]).is_empty());
        let mut edits = claude.clone();
        edits.delivery = Delivery::CacheEdits;
        assert_eq!(
            ids(&edits, &[PlanKind::Idle]),
            ["claude_idle_flag", "claude_cached_internal"]
        );
        let qwen = Policy::preset(HarnessId::Qwen);
        assert_eq!(
            ids(&qwen, &[PlanKind::Idle]),
            ["qwen_memory_pressure", "qwen_unseen_restart"]
        );
        // The api preset names its beta header and nothing of Claude Code's.
        assert_eq!(
            ids(&Policy::api_preset(), &[PlanKind::Api]),
            ["api_beta_header"]
        );
    }

    #[test]
    fn ids_are_unique_and_texts_say_something() {
        let all = all();
        assert_eq!(all.len(), 29);
        for (i, c) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|d| d.id != c.id));
            assert!(c.text.len() > 40 && !c.short.is_empty());
        }
    }

    /// SPEC §5: the memory-pressure pass keeps managed-memory protection (the
    /// caveat once said the opposite).
    #[test]
    fn the_memory_pressure_pass_is_said_to_protect_memory() {
        let t = all()
            .into_iter()
            .find(|c| c.id == "qwen_memory_pressure")
            .unwrap()
            .text;
        assert!(t.contains("with managed-memory protection") && !t.contains("without"));
        assert!(t.contains("never when idle is disabled"));
    }

    fn at(kind: Option<PlanKind>, version: Option<&str>) -> At<'_> {
        At {
            kind,
            version,
            plausible: Plausible {
                could_run: None,
                reason: "no_plan",
            },
            idle_server_sent: false,
            pdf_page_texts: false,
            unversioned: false,
            marked: false,
            sanitized: false,
            redacted_differs: false,
            condensed: false,
        }
    }

    fn listed(p: &Policy, kinds: &[PlanKind], at: &[At<'_>]) -> Vec<(&'static str, String)> {
        caveats(p, kinds, at)
            .into_iter()
            .map(|c| (c.id, c.text))
            .collect()
    }

    /// SPEC §13.T2 / §13.C: auto in a no-plan row says claude_auto_none, and
    /// from 2.1.110 the context hint.
    #[test]
    fn t2_auto_none_and_the_context_hint() {
        let auto = Policy::preset(HarnessId::Claude);
        let got = listed(&auto, &[], &[at(None, Some("2.1.200"))]);
        let ids: Vec<_> = got.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, ["claude_context_hint", "claude_auto_none"]);
        assert!(
            got[1]
                .1
                .starts_with("Claude Code 2.1.105–2.1.284 has no client-side")
        );
        // 2.1.70: the early row, and no hint (before 2.1.110).
        let got = listed(&auto, &[], &[at(None, Some("2.1.70"))]);
        assert_eq!(got.len(), 1);
        assert!(got[0].1.contains("2.1.64–2.1.83 (sampled 2.1.70–2.1.80)"));
        // Both rows over a timeline: one caveat naming both.
        let both = [at(None, Some("2.1.70")), at(None, Some("2.1.120"))];
        let got = listed(&auto, &[], &both);
        let none = got
            .iter()
            .find(|(id, _)| *id == "claude_auto_none")
            .unwrap();
        assert!(none.1.contains("2.1.80) / 2.1.105–2.1.284"), "{}", none.1);
    }

    /// SPEC §13.T3 / §15.9: unknown and before-2.0.0 say claude_version_unknown.
    #[test]
    fn t3_unknown_and_before_2_say_version_unknown() {
        let auto = Policy::preset(HarnessId::Claude);
        let idle = [PlanKind::Idle];
        let ids = |a: &[At<'_>], kinds: &[PlanKind]| -> Vec<&'static str> {
            caveats(&auto, kinds, a).iter().map(|c| c.id).collect()
        };
        assert_eq!(
            ids(&[at(Some(PlanKind::Idle), None)], &idle),
            ["claude_idle_flag", "claude_version_unknown"]
        );
        assert_eq!(
            ids(&[at(None, Some("1.0.128"))], &[]),
            ["claude_version_unknown"]
        );
        // An explicit kind does not claim auto's reading.
        let named = Policy {
            kind: PlanKind::Idle,
            ..auto.clone()
        };
        assert_eq!(
            caveats(&named, &idle, &[at(Some(PlanKind::Idle), None)])
                .iter()
                .map(|c| c.id)
                .collect::<Vec<_>>(),
            ["claude_idle_flag"]
        );
    }

    /// SPEC §13.T4: an unsampled version names its nearest sampled builds.
    #[test]
    fn t4_unsampled_names_the_neighbours() {
        let auto = Policy::preset(HarnessId::Claude);
        let got = listed(&auto, &[], &[at(None, Some("2.1.66"))]);
        let (_, text) = got
            .iter()
            .find(|(id, _)| *id == "claude_version_unsampled")
            .unwrap();
        assert_eq!(
            text,
            "Version 2.1.66 was not sampled (nearest sampled builds: 2.1.63 and 2.1.70); mcscope uses the row of the table that contains 2.1.66."
        );
    }

    /// SPEC §13.C / §15.8: every claude id at once comes in the table's order,
    /// with X and R filled in claude_not_plausible.
    #[test]
    fn c_order_is_the_tables() {
        let mut p = Policy::preset(HarnessId::Claude);
        p.delivery = Delivery::CacheEdits;
        let kinds = [
            PlanKind::Idle,
            PlanKind::IdleServer,
            PlanKind::Budget,
            PlanKind::Count,
        ];
        let mut sent = at(Some(PlanKind::IdleServer), Some("2.1.305"));
        sent.idle_server_sent = true;
        let mut what_if = at(Some(PlanKind::Idle), Some("2.1.88"));
        what_if.plausible = Plausible {
            could_run: Some(false),
            reason: "not_interactive",
        };
        let all = [sent, what_if, at(None, Some("2.1.200")), at(None, None)];
        let got = listed(&p, &kinds, &all);
        let ids: Vec<_> = got.iter().map(|(id, _)| *id).collect();
        assert_eq!(
            ids,
            [
                "claude_idle_flag",
                "claude_idle_server_flag",
                "claude_idle_server_activity",
                "claude_idle_server_offset",
                "claude_idle_server_refused",
                "claude_context_hint",
                "claude_auto_none",
                "claude_version_unsampled",
                "claude_version_unknown",
                "claude_budget_kill_switch",
                "claude_cached_internal",
                "claude_not_plausible",
            ]
        );
        assert_eq!(
            got.last().unwrap().1,
            "This Claude Code build / entrypoint has no code path for plan idle (reason not_interactive): the clearing shown is a what-if, not what happened."
        );
        // The old idle text (a server-negotiated scheme from 2.1.156) is gone.
        assert!(
            got.iter()
                .all(|(_, t)| !t.contains("2.1.156, per third-party"))
        );
        // The api preset lists none of Claude Code's (SPEC §15.10).
        assert_eq!(
            ids_of(&Policy::api_preset(), &[PlanKind::Api], &all),
            ["api_beta_header"]
        );
    }

    /// SPEC §17.C.U7, §18.9: `claude_pdf_page_texts` where idle-server at
    /// 2.1.333+ met a page-text PDF row before the return, after §13.C's
    /// table and before `claude_idle_server_host_pauses`; the flag caveat
    /// says the page-text flag too.
    #[test]
    fn u7_pdf_page_texts_after_the_13c_table_and_before_host_pauses() {
        let p = Policy {
            kind: PlanKind::IdleServer,
            ..Policy::preset(HarnessId::Claude)
        };
        let mut pdf = at(Some(PlanKind::IdleServer), Some("2.1.337"));
        pdf.pdf_page_texts = true;
        let got = listed(&p, &[PlanKind::IdleServer], &[pdf]);
        let ids: Vec<_> = got.iter().map(|(id, _)| *id).collect();
        assert_eq!(
            ids[ids.len() - 3..],
            [
                "claude_context_hint",
                "claude_pdf_page_texts",
                "claude_idle_server_host_pauses"
            ]
        );
        assert!(got[ids.len() - 2].1.starts_with(
            "PDF page text attached to a message is clearable from 2.1.333 (remote flag tengu_lucid_heron, default on), but its text is not in the transcript"
        ));
        assert!(got[0].1.ends_with(
            "the transcript does not record the flag, and, from 2.1.333, page-text PDF clearing (tengu_lucid_heron, default on) until a reply records client_cleared_pdf_page_texts."
        ));
        // Without such a row it is not listed.
        let plain = listed(
            &p,
            &[PlanKind::IdleServer],
            &[at(Some(PlanKind::IdleServer), Some("2.1.337"))],
        );
        assert!(plain.iter().all(|(id, _)| *id != "claude_pdf_page_texts"));
    }

    fn ids_of(p: &Policy, kinds: &[PlanKind], at: &[At<'_>]) -> Vec<&'static str> {
        caveats(p, kinds, at).iter().map(|c| c.id).collect()
    }
}
