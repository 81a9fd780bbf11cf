//! The per-request picture of one setting (SPEC §9): the recorded prompt size
//! P(k), the tokens the setting keeps out of the wire, what the harness itself
//! had kept out (SPEC §9a `recorded_cleared_tokens`), and the simulated context
//! `sim_ctx` = P(k) + `recorded_cleared_tokens[k]` − `in_wire_tokens[k]` (an
//! estimate), with where the plan fired and where the simulated cache prefix
//! broke. What the footer's sparklines, the chart view and `compare --format
//! html` draw.

use crate::analysis::Setup;
use crate::context::{Context, ContextRun};
use crate::session::Session;
use crate::totals::{self, Accumulator, SessionFacts, Totals};

/// Request `k`'s figures for the pictures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Point {
    /// 1-based request index.
    pub k: usize,
    /// P(k) = input + W + R of k's response (SPEC §10); None without usage.
    pub recorded: Option<u64>,
    /// `in_wire_tokens[k]`.
    pub in_wire: u64,
    /// `recorded_cleared_tokens[k]` (SPEC §9a): already missing from P(k).
    pub recorded_cleared: u64,
    /// The plan fired at k.
    pub fired: bool,
    /// `break[k]`: the simulated cache prefix broke at k (warm or not).
    pub broke: bool,
    /// `warm[k]`.
    pub warm: bool,
}

impl Point {
    /// `sim_ctx[k]` = P(k) + `recorded_cleared_tokens[k]` − `in_wire_tokens[k]`
    /// (never below 0): the harness's own clearing is added back before the
    /// setting's is taken away, so it is not subtracted twice. None when k's
    /// response recorded no usage.
    pub fn simulated(&self) -> Option<u64> {
        self.recorded.map(|p| {
            p.saturating_add(self.recorded_cleared)
                .saturating_sub(self.in_wire)
        })
    }
}

pub use crate::policy::recorded::{RecordedCleared, recorded_cleared_all};

/// R(k) / P(k) of request k, four decimals (SPEC §15.17); None without usage
/// or when P(k) is 0.
pub fn hit_rate(s: &Session, k: usize) -> Option<f64> {
    let req = s.request(k)?;
    let u = s.messages.get(req.response?)?.usage.as_ref()?;
    let p = u.prompt();
    (p > 0).then(|| crate::bill::rate4(u.cache_read_input_tokens as f64 / p as f64))
}

/// Every request's point under `setup`'s setting, what fills its window (SPEC
/// §12 `context`), and the setting's session totals (the same ones `compare`
/// sums), in one pass of the timeline.
pub fn series(setup: &Setup, facts: &SessionFacts) -> std::io::Result<Series> {
    let s = &setup.session;
    let mut acc = Accumulator::new(s);
    let mut points = Vec::with_capacity(s.requests.len());
    let harness = recorded_cleared_all(s);
    let mut contexts = Vec::with_capacity(s.requests.len());
    let mut run = ContextRun::new(setup);
    totals::each_request(setup, facts, setup.last_request(), |st, f| {
        acc.add(setup, facts, st, f);
        contexts.push(run.next(st));
        points.push(Point {
            k: st.index,
            recorded: s.recorded_prompt(st.index),
            in_wire: f.in_wire_tokens,
            recorded_cleared: harness.get(st.index - 1).map_or(0, |h| h.tokens),
            fired: st.fired(),
            broke: f.cache_break(),
            warm: f.warm,
        });
        Ok(())
    })?;
    Ok(Series {
        points,
        contexts,
        totals: acc.totals,
    })
}

/// [`series`]: one point and one context per request, and the totals.
pub struct Series {
    pub points: Vec<Point>,
    pub contexts: Vec<Context>,
    pub totals: Totals,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simulated_context_is_the_recorded_one_less_what_the_wire_leaves_out() {
        let p = Point {
            k: 3,
            recorded: Some(50_000),
            in_wire: 12_000,
            ..Default::default()
        };
        assert_eq!(p.simulated(), Some(38_000));
        // SPEC §9 sim_ctx: what the harness had already cleared (8,000) is added
        // back before the setting's 12,000 are taken away.
        let harness = Point {
            recorded_cleared: 8_000,
            ..p
        };
        assert_eq!(harness.simulated(), Some(46_000));
        // An estimate larger than the prompt stops at 0; no usage, no point.
        let p = Point {
            recorded: Some(1_000),
            in_wire: 1_500,
            ..p
        };
        assert_eq!(p.simulated(), Some(0));
        let p = Point {
            recorded: None,
            ..p
        };
        assert_eq!(p.simulated(), None);
    }
}
