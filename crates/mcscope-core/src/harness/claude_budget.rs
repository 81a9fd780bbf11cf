//! Claude Code's token-budget microcompact (SPEC §5 `budget`), as plain functions:
//! its defaults, its usage gate by version and the clearing walk. The engine's
//! budget plan (`policy/engine/budget_plan.rs`) feeds it the eligible
//! results of a view (which ones, and which sit in the keep window) and the
//! recorded usage; it answers what is cleared and which gate held or failed.
//!
//! Reconstructed from the Claude Code 2.1.7 and 2.1.38 bundles: it reproduces the
//! real `microcompact_boundary` records of 2.1.14–2.1.22 sessions id for id.

/// `keep_recent` of the budget plan when none is given.
pub(crate) const DEFAULT_KEEP: u32 = 3;
/// The tool-result tokens the plan clears down to.
pub(crate) const DEFAULT_BUDGET_TOKENS: u64 = 40_000;
/// The least saving that lets it fire.
pub(crate) const DEFAULT_MIN_SAVING: u64 = 20_000;
/// The budget plan (SPEC §5 `budget`, Claude Code 2.1.7 and 2.1.38's
/// token-budget microcompact) gates on usage by version: this up to 2.1.20.
pub(crate) const WARNING_UP_TO_2_1_20: u64 = 135_000;
/// The usage gate from 2.1.21, and when no version is recorded.
pub(crate) const WARNING_FROM_2_1_21: u64 = 147_000;
/// The last version of the lower gate.
pub(crate) const WARNING_LOW_UNTIL: (u32, u32, u32) = (2, 1, 20);

/// The budget plan's usage gate by version in words for the help.
pub(crate) fn budget_warning_words() -> String {
    let (a, b, c) = WARNING_LOW_UNTIL;
    format!(
        "{} up to Claude Code {a}.{b}.{c}, {} from {a}.{b}.{} or with no version",
        budget_warning(Some(&format!("{a}.{b}.{c}"))),
        budget_warning(Some(&format!("{a}.{b}.{}", c + 1))),
        c + 1
    )
}

/// The gate in short for a plan's settings line: `135,000 up to 2.1.20, else 147,000`.
pub fn budget_warning_short() -> String {
    let (a, b, c) = WARNING_LOW_UNTIL;
    format!(
        "{} up to {a}.{b}.{c}, else {}",
        crate::numbers::fmt_int(WARNING_UP_TO_2_1_20),
        crate::numbers::fmt_int(WARNING_FROM_2_1_21)
    )
}

/// The budget plan's usage gate by version: 135,000 up to 2.1.20, 147,000 from 2.1.21 or with
/// no (readable) version.
pub fn budget_warning(v: Option<&str>) -> u64 {
    match v.and_then(super::claude_version::parse) {
        Some(ver) if ver <= WARNING_LOW_UNTIL => WARNING_UP_TO_2_1_20,
        _ => WARNING_FROM_2_1_21,
    }
}

/// The one compactable tool the budget plan never clears.
pub(crate) const NOT_ELIGIBLE_TOOL: &str = "PowerShell";

/// The plan's parameters at one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Params {
    pub keep: usize,
    pub budget_tokens: u64,
    pub min_saving: u64,
    pub warning: u64,
}

/// One eligible result, in `tool_use` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Item {
    /// Its est_tokens (SPEC §2).
    pub tokens: u64,
    /// In the last `keep` eligible call ids: never cleared.
    pub in_window: bool,
}

/// Why the plan did not fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failed {
    /// No main-thread response with usage in the view.
    NoUsage,
    /// The recorded usage is below the warning threshold.
    Usage,
    /// The eligible total is within the budget: nothing to clear.
    WithinBudget,
    /// Clearing would save less than the minimum.
    MinSaving,
}

/// The outcome at one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decision {
    /// Σ tokens of the eligible results.
    pub pre_tokens: u64,
    /// Positions (into the items) the walk takes, oldest first; cleared only
    /// when the plan fires.
    pub walk: Vec<usize>,
    /// Σ tokens of `walk`.
    pub saved: u64,
    /// None: it fires.
    pub failed: Option<Failed>,
}

/// The budget plan at one request: outside the keep window, oldest first, an
/// item is taken while `pre_tokens − saved > budget_tokens` (the last one may
/// overshoot); it fires only when `usage >= warning` and `saved >= min_saving`.
pub(crate) fn decide(items: &[Item], usage: Option<u64>, p: &Params) -> Decision {
    let pre_tokens: u64 = items.iter().map(|i| i.tokens).sum();
    let mut saved = 0;
    let mut walk = Vec::new();
    for (pos, item) in items.iter().enumerate() {
        if item.in_window {
            continue;
        }
        if pre_tokens - saved <= p.budget_tokens {
            break;
        }
        walk.push(pos);
        saved += item.tokens;
    }
    let failed = match usage {
        None => Some(Failed::NoUsage),
        Some(u) if u < p.warning => Some(Failed::Usage),
        _ if pre_tokens <= p.budget_tokens => Some(Failed::WithinBudget),
        _ if saved < p.min_saving => Some(Failed::MinSaving),
        _ => None,
    };
    Decision {
        pre_tokens,
        walk,
        saved,
        failed,
    }
}

/// Marks the last `keep` of `n` eligible calls as the keep window (the engine
/// marks it on the view; the tests here mark it with this).
#[cfg(test)]
pub(crate) fn window(n: usize, keep: usize) -> impl Fn(usize) -> bool {
    let from = n.saturating_sub(keep);
    move |i| i >= from
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warning_by_version() {
        assert_eq!(budget_warning(Some("2.1.20")), 135_000);
        assert_eq!(budget_warning(Some("2.1.21")), 147_000);
        assert_eq!(budget_warning(Some("2.1.17")), 135_000);
        assert_eq!(budget_warning(Some("2.0.0")), 135_000);
        assert_eq!(budget_warning(None), 147_000);
        assert_eq!(budget_warning(Some("nightly")), 147_000);
    }

    fn params() -> Params {
        Params {
            keep: 3,
            budget_tokens: DEFAULT_BUDGET_TOKENS,
            min_saving: DEFAULT_MIN_SAVING,
            warning: WARNING_UP_TO_2_1_20,
        }
    }

    /// Items of these token counts, the last `keep` in the window.
    fn items(tokens: &[u64], keep: usize) -> Vec<Item> {
        let w = window(tokens.len(), keep);
        tokens
            .iter()
            .enumerate()
            .map(|(i, &t)| Item {
                tokens: t,
                in_window: w(i),
            })
            .collect()
    }

    #[test]
    fn usage_gate_holds_at_exactly_the_threshold() {
        // 30k × 4 = 120,000 tokens; keep the last 3: only the first is outside.
        // Clearing it leaves 90,000 > 40,000 still, but the walk ends there: saves 30,000.
        let it = items(&[30_000, 30_000, 30_000, 30_000], 3);
        let d = decide(&it, Some(135_000), &params());
        assert_eq!(d.failed, None, "135,000 >= 135,000 fires");
        assert_eq!(
            (d.pre_tokens, d.walk.clone(), d.saved),
            (120_000, vec![0], 30_000)
        );
        let d = decide(&it, Some(134_999), &params());
        assert_eq!(d.failed, Some(Failed::Usage), "one token under does not");
        let d = decide(&it, None, &params());
        assert_eq!(d.failed, Some(Failed::NoUsage));
    }

    #[test]
    fn minimum_saving_just_below_and_at() {
        // pre = 19,999 + 3 × 10,000 = 49,999 > 40,000: the walk takes the first (19,999),
        // one short of the 20,000 minimum: no fire.
        let it = items(&[19_999, 10_000, 10_000, 10_000], 3);
        let d = decide(&it, Some(200_000), &params());
        assert_eq!((d.pre_tokens, d.saved), (49_999, 19_999));
        assert_eq!(d.failed, Some(Failed::MinSaving));
        // 20,000 + 30,000 = 50,000: saving exactly 20,000 fires.
        let it = items(&[20_000, 10_000, 10_000, 10_000], 3);
        let d = decide(&it, Some(200_000), &params());
        assert_eq!((d.pre_tokens, d.saved), (50_000, 20_000));
        assert_eq!(d.failed, None);
        assert_eq!(d.walk, vec![0]);
    }

    #[test]
    fn keeps_the_last_three_even_when_over_budget() {
        // Five results of 25,000: pre 125,000. Outside the window: the first two.
        // 125,000 > 40,000 → take #0 (100,000 left) → 100,000 > 40,000 → take #1 (75,000 left).
        // The last three stay although 75,000 is still over the budget.
        let it = items(&[25_000; 5], 3);
        let d = decide(&it, Some(150_000), &params());
        assert_eq!(d.walk, vec![0, 1]);
        assert_eq!(d.saved, 50_000);
        assert_eq!(d.failed, None);
        // keep 1: #0 → 100,000 left, #1 → 75,000, #2 → 50,000, and 50,000 > 40,000 takes #3
        // too (25,000 left); #4 is the window.
        let mut p = params();
        p.keep = 1;
        let it = items(&[25_000; 5], 1);
        assert_eq!(decide(&it, Some(150_000), &p).walk, vec![0, 1, 2, 3]);
    }

    #[test]
    fn the_last_one_cleared_may_overshoot() {
        // pre = 5,000 + 60,000 + 1,000 + 1,000 + 1,000 = 68,000.
        // #0: 68,000 > 40,000 → take (63,000 left). #1: 63,000 > 40,000 → take (3,000 left:
        // far under the budget — the overshoot). Nothing else is outside the window.
        let it = items(&[5_000, 60_000, 1_000, 1_000, 1_000], 3);
        let d = decide(&it, Some(140_000), &params());
        assert_eq!(d.pre_tokens, 68_000);
        assert_eq!(d.walk, vec![0, 1]);
        assert_eq!(d.saved, 65_000);
        // The walk stops as soon as the rest fits: 30,000 + 15,000 + … :
        // pre = 30,000 + 15,000 + 15,000 + 3 × 1,000 = 63,000; take #0 → 33,000 ≤ 40,000: stop.
        let it = items(&[30_000, 15_000, 15_000, 1_000, 1_000, 1_000], 3);
        let d = decide(&it, Some(140_000), &params());
        assert_eq!((d.walk.clone(), d.saved), (vec![0], 30_000));
    }

    #[test]
    fn within_budget_clears_nothing() {
        // 3 × 13,000 + 1,000 = 40,000: not > 40,000.
        let it = items(&[1_000, 13_000, 13_000, 13_000], 3);
        let d = decide(&it, Some(300_000), &params());
        assert_eq!(d.walk, Vec::<usize>::new());
        assert_eq!(d.failed, Some(Failed::WithinBudget));
    }
}
