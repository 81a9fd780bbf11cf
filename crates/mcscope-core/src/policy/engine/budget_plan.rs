//! `budget` (SPEC §5): Claude Code's token-budget microcompact, over the view; the
//! walk itself is `harness::claude_budget::decide`. A plain function of what the view
//! holds (`Look`) and the policy's parameters.

use super::*;
use crate::fasthash::FastSet as HashSet;
use crate::policy::params::When;

/// The usage gate at a request of `version` (SPEC §5): the one given, else
/// the version's.
fn warning_at(p: &Policy, version: Option<&str>) -> u64 {
    p.budget_warning_tokens
        .unwrap_or_else(|| crate::harness::claude_budget::budget_warning(version))
}

/// `budget`: past the usage gate, clear the oldest eligible results outside
/// the last keep_recent eligible calls until the rest fits the budget
/// (SPEC §5; the walk itself is `budget::decide`).
pub(super) fn budget<L: Look>(look: &L, p: &Policy, req: &Request) -> Verdict {
    let s = look.session();
    let keep = p.keep_for(PlanKind::Budget);
    let warning = warning_at(p, req.version.as_deref());
    let usage = look.last_usage();
    let gate = Gate { usage, warning };
    // Below the usage gate nothing fires and nothing is kept for a reason of
    // the plan's own: the eligible tokens are a running total, so such a step
    // costs no pass over the view.
    if usage.is_none_or(|u| u < warning) {
        let mut v = Verdict::none(Note::Budget(BudgetNote::Gate(gate)));
        v.pre_tokens = Some(look.eligible_tokens(p.errors_clearable()));
        return v;
    }
    let eligible_tool =
        |c: &Candidate| c.compactable && c.tool.as_deref() != Some(budget::NOT_ELIGIBLE_TOOL);
    // Ids out of the plan's reach: protected, or already cleared by it
    // (its memory: a cleared id is no longer collected).
    let gone: HashSet<&str> = look
        .cands()
        .iter()
        .filter(|c| c.protected() || look.in_force(c))
        .map(|c| s.results[c.result].id.as_str())
        .collect();
    let ids: Vec<&str> = look
        .compactable_calls()
        .iter()
        .map(|&c| &s.calls[c])
        .filter(|c| c.name != budget::NOT_ELIGIBLE_TOOL && !gone.contains(c.id.as_str()))
        .map(|c| c.id.as_str())
        .collect();
    let window: HashSet<&str> = ids[ids.len().saturating_sub(keep)..]
        .iter()
        .copied()
        .collect();
    let mut positions = Vec::new();
    let mut items = Vec::new();
    let mut kept = Why::default();
    for (pos, c) in look.cands().iter().enumerate() {
        let r = &s.results[c.result];
        if !c.compactable || c.protected() || look.gone(c.result) || look.in_force(c) {
            continue;
        }
        if !eligible_tool(c) {
            kept.insert(pos, Kept::Budget(BudgetKept::NotEligible));
            continue;
        }
        if r.is_error && !p.errors_clearable() {
            kept.insert(pos, Kept::ErrorClearErrorsOff);
            continue;
        }
        let in_window = window.contains(r.id.as_str());
        if in_window {
            kept.insert(
                pos,
                Kept::Budget(BudgetKept::InLastEligible {
                    keep,
                    rank: look.rank(pos),
                }),
            );
        }
        positions.push(pos);
        items.push(budget::Item {
            tokens: r.est_tokens,
            in_window,
        });
    }
    let params = budget::Params {
        keep,
        budget_tokens: p.budget_tokens,
        min_saving: p.budget_min_saving,
        warning,
    };
    let d = budget::decide(&items, usage, &params);
    let why = BudgetWhy {
        gate,
        pre_tokens: d.pre_tokens,
        budget: p.budget_tokens,
    };
    let walked: HashSet<usize> = d.walk.iter().map(|&i| positions[i]).collect();
    for (i, &pos) in positions.iter().enumerate() {
        if !items[i].in_window && !walked.contains(&pos) {
            let rank = look.rank(pos);
            kept.insert(
                pos,
                Kept::Budget(BudgetKept::RestFits {
                    budget: p.budget_tokens,
                    rank,
                }),
            );
        }
    }
    let mut v = match d.failed {
        None => Verdict {
            trigger: Some(Trigger::Budget),
            clear: d
                .walk
                .iter()
                .map(|&i| {
                    let pos = positions[i];
                    let rank = look.rank(pos);
                    (pos, ClearReason::Budget(BudgetCleared { why, rank, keep }))
                })
                .collect(),
            media: Vec::new(),
            strip: Vec::new(),
            media_kept: 0,
            target: None,
            note: Note::Budget(BudgetNote::Fired {
                why,
                saved: d.saved,
            }),
            kept: Why::default(),
            pre_tokens: None,
        },
        Some(failed) => Verdict::none(match failed {
            budget::Failed::NoUsage | budget::Failed::Usage => Note::Budget(BudgetNote::Gate(gate)),
            budget::Failed::WithinBudget => Note::Budget(BudgetNote::Within(why)),
            budget::Failed::MinSaving => Note::Budget(BudgetNote::MinSaving {
                why,
                saved: d.saved,
                min: p.budget_min_saving,
            }),
        }),
    };
    if v.fired() {
        v.kept = kept;
    }
    v.pre_tokens = Some(d.pre_tokens);
    v
}

/// `budget` (SPEC §5): Claude Code 2.0–2.1.63's tool-result budget, by rewrite.
pub(super) struct Budget;

impl super::plan::Plan for Budget {
    /// The header's budget line: its budget, least saving and usage gate
    /// (by version where none is given).
    fn header(&self, p: &Policy) -> Option<String> {
        use crate::numbers::fmt_int;
        let warning = match p.budget_warning_tokens {
            Some(w) => fmt_int(w),
            None => format!(
                "by version ({})",
                crate::harness::claude_budget::budget_warning_short()
            ),
        };
        Some(format!(
            "budget: {} tokens, min saving {}, usage gate {}",
            fmt_int(p.budget_tokens),
            fmt_int(p.budget_min_saving),
            warning
        ))
    }

    /// Its clearings last over the view (or it reads the request before).
    fn replay(&self) -> super::plan::Replay {
        super::plan::Replay::View
    }

    /// It rewrites the request (SPEC §5): its delivery is rewrite.
    fn settles(&self) -> Option<super::plan::Settles> {
        Some(super::plan::Settles {
            delivery: Delivery::Rewrite,
            always: false,
            words: "budget rewrites the request: delivery set to rewrite",
        })
    }

    /// `budget_plan::budget`: the keep, the budget, the least saving and the
    /// warning (by version when none is given).
    fn reads(&self) -> &'static [(&'static str, When)] {
        &[
            ("keep_recent", When::Always),
            ("budget_tokens", When::Always),
            ("budget_min_saving", When::Always),
            ("budget_warning_tokens", When::Always),
        ]
    }

    /// Budget's clearings are remembered over the view (SPEC §5).
    fn lasts(&self) -> &'static [(Trigger, super::plan::Lasts)] {
        &[(Trigger::Budget, super::plan::Lasts::View)]
    }

    fn kind(&self) -> PlanKind {
        PlanKind::Budget
    }

    fn decide(&self, e: &mut Engine<'_>, req: &Request, _: &super::plan::At) -> Decided {
        Decided::verdict(budget(&*e, &e.policy, req))
    }

    fn default_keep(&self) -> u32 {
        crate::harness::claude_budget::DEFAULT_KEEP
    }

    fn deliveries(&self) -> &'static [Delivery] {
        &[Delivery::Rewrite]
    }

    fn placeholder_note(&self) -> Option<&'static str> {
        Some(
            "note: Claude Code sent a <persisted-output> pointer to a saved file in place of a result cleared by budget ([Old tool result content cleared] when saving failed); the placeholder is shown",
        )
    }

    /// Claude Code's `microcompact_boundary` with `preTokens` (SPEC §10).
    fn writes(&self) -> Option<crate::vocab::Writer> {
        Some(crate::vocab::Writer::Budget)
    }

    /// The TUI's budget line: its budget, least saving and usage gate.
    fn header_parts(
        &self,
        p: &Policy,
        req: &Request,
    ) -> Option<Vec<(Option<&'static str>, String)>> {
        use crate::numbers::fmt_int;
        Some(vec![
            (None, "budget ".into()),
            (Some("budget_tokens"), fmt_int(p.budget_tokens)),
            (None, " (min ".into()),
            (Some("budget_min_saving"), fmt_int(p.budget_min_saving)),
            (None, ", gate ".into()),
            (
                Some("budget_warning_tokens"),
                fmt_int(warning_at(p, req.version.as_deref())),
            ),
            (None, ")".into()),
        ])
    }

    /// Claude Code writes a `microcompact_boundary` whenever it fires.
    fn shows_unrecorded(&self) -> bool {
        true
    }

    /// Its usage gate by version where none is given (SPEC §5).
    fn own_value(&self, key: &str, p: &Policy, version: Option<&str>) -> Option<u64> {
        (key == "budget_warning_tokens").then(|| warning_at(p, version))
    }

    /// It is Claude Code's, by rewrite (SPEC §5); a server delivery is the
    /// legality check's own refusal (the server does not run it).
    fn refuses(
        &self,
        p: &Policy,
        _session: crate::session::HarnessId,
    ) -> Option<crate::policy::Refused> {
        let off = !p.preset.rules().offers(self.kind()) || !self.deliveries().contains(&p.delivery);
        (off && p.delivery != Delivery::Server).then_some(crate::policy::Refused::Preset)
    }

    fn refusal(&self, r: &crate::policy::Refusal) -> (String, String) {
        let owner = crate::harness::owner_of(self.kind());
        (
            format!(
                "the budget plan is {}'s token-budget microcompact: it takes the {} preset and rewrite delivery (got preset {}, delivery {})",
                owner.title,
                owner.name,
                r.preset.name(),
                r.delivery.name()
            ),
            format!(
                "budget runs with --preset {} and --delivery rewrite",
                owner.name
            ),
        )
    }
}

impl std::fmt::Display for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let w = crate::numbers::fmt_int(self.warning);
        match self.usage {
            Some(u) if u >= self.warning => write!(f, "usage {} ≥ {w}", crate::numbers::fmt_int(u)),
            Some(u) => write!(f, "usage {} < {w}", crate::numbers::fmt_int(u)),
            None => write!(f, "no recorded usage in the view (gate {w})"),
        }
    }
}

impl std::fmt::Display for BudgetWhy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = if self.pre_tokens > self.budget {
            ">"
        } else {
            "≤"
        };
        write!(
            f,
            "budget: {}; {} tokens of results {op} {}",
            self.gate,
            crate::numbers::fmt_int(self.pre_tokens),
            crate::numbers::fmt_int(self.budget)
        )
    }
}

/// What the budget plan said at a request (the step's note).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BudgetNote {
    /// Below the usage gate (or no usage recorded).
    Gate(Gate),
    Fired {
        why: BudgetWhy,
        saved: u64,
    },
    Within(BudgetWhy),
    MinSaving {
        why: BudgetWhy,
        saved: u64,
        min: u64,
    },
}

impl std::fmt::Display for BudgetNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::numbers::fmt_int;
        match self {
            BudgetNote::Gate(gate) => write!(f, "budget: {gate}"),
            BudgetNote::Fired { why, saved } => {
                write!(f, "{why}; clearing saves {}", fmt_int(*saved))
            }
            BudgetNote::Within(why) => write!(f, "{why}: nothing to clear"),
            BudgetNote::MinSaving { why, saved, min } => write!(
                f,
                "{why}, but clearing saves only {} < {} minimum",
                fmt_int(*saved),
                fmt_int(*min)
            ),
        }
    }
}

/// Past the budget, outside the keep window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetCleared {
    pub why: BudgetWhy,
    pub rank: Rank,
    pub keep: usize,
}

impl std::fmt::Display for BudgetCleared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let BudgetCleared { why, rank, keep } = self;
        write!(f, "{why}; {rank}, not in last {keep}")
    }
}

/// Why the budget plan kept a result of its own.
#[derive(Debug, Clone, PartialEq)]
pub enum BudgetKept {
    /// The budget plan never clears this tool's results.
    NotEligible,
    InLastEligible {
        keep: usize,
        rank: Rank,
    },
    RestFits {
        budget: u64,
        rank: Rank,
    },
}

impl std::fmt::Display for BudgetKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::harness::claude_budget::NOT_ELIGIBLE_TOOL;
        match self {
            BudgetKept::NotEligible => write!(
                f,
                "{NOT_ELIGIBLE_TOOL} results are never cleared by the budget plan"
            ),
            BudgetKept::InLastEligible { keep, rank } => {
                write!(f, "in the last {keep} eligible calls ({rank})")
            }
            BudgetKept::RestFits { budget, rank } => write!(
                f,
                "budget: the rest fits in {} once older results are cleared ({rank})",
                crate::numbers::fmt_int(*budget)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{Transcript, cleared};
    use crate::policy::PlanKind;

    #[test]
    fn budget_fires_past_the_usage_gate_and_keeps_the_last_three() {
        let mut t = Transcript::new();
        t.prompt(0);
        // Five results of 40,000 chars = 10,000 tokens each; the last response's
        // usage 150,000 passes the 147,000 gate of 2.1.90 (no version below 2.1.21).
        for (i, id) in ["A", "B", "C", "D", "E"].iter().enumerate() {
            t.call(id, "Read", 40_000, if i == 4 { 150_000 } else { 10 });
        }
        let (s, p) = t.plan(PlanKind::Budget, |p| {
            p.budget_tokens = 20_000;
            p.budget_min_saving = 10_000;
        });
        // 50,000 tokens > 20,000: keep C, D, E; clear A (40,000 left), B (30,000 left).
        assert_eq!(p.step.trigger.map(|t| t.name()), Some("budget"));
        assert_eq!(cleared(&s, &p), ["A", "B"]);
        assert_eq!(p.step.pre_tokens, Some(50_000));
        // Below the gate nothing fires.
        let (s, p) = t.plan(PlanKind::Budget, |p| {
            p.budget_warning_tokens = Some(150_001)
        });
        assert!(!p.step.fired() && cleared(&s, &p).is_empty());
    }

    #[test]
    fn below_the_gate_pre_tokens_is_the_running_total_and_a_carried_run_agrees() {
        let mut t = Transcript::new();
        t.prompt(0);
        for (i, id) in ["A", "B", "C", "D", "E"].iter().enumerate() {
            t.call(id, "Read", 40_000, if i == 4 { 150_000 } else { 10 });
        }
        let tune = |p: &mut crate::policy::Policy| {
            p.budget_tokens = 20_000;
            p.budget_min_saving = 10_000;
        };
        // Gate 200,000: nothing fires, and the eligible tokens are still read:
        // five results of 10,000 tokens.
        let (_, p) = t.plan(PlanKind::Budget, |p| {
            tune(p);
            p.budget_warning_tokens = Some(200_000);
        });
        assert!(!p.step.fired());
        assert_eq!(p.step.pre_tokens, Some(50_000));
        // Carrying the requests fires where stepping them in full does, and
        // run_to(n) reads as the n-th full step.
        let (s, _) = t.plan(PlanKind::Budget, tune);
        let n = s.last_request();
        let mut full = s.engine(n);
        let steps: Vec<_> = std::iter::from_fn(|| full.step()).collect();
        let mut carried = s.engine(n);
        let triggers: Vec<_> = std::iter::from_fn(|| carried.carry()).collect();
        assert_eq!(
            triggers,
            steps.iter().map(|st| st.trigger).collect::<Vec<_>>()
        );
        assert_eq!(triggers.last(), Some(&Some(crate::policy::Trigger::Budget)));
        let last = s.engine(n).run_to(n).unwrap();
        let want = &steps[n - 1];
        assert_eq!(
            (
                &last.newly_cleared,
                &last.cleared,
                &last.note,
                last.chars_after
            ),
            (
                &want.newly_cleared,
                &want.cleared,
                &want.note,
                want.chars_after
            )
        );
        assert_eq!(last.newly_cleared.len(), 2, "A and B go");
    }
}
