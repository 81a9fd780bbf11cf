//! The baseline row of `compare` (SPEC §9a): first, outside the sort, and the
//! `estimated_usd` it gives every row.

use super::*;

/// The rows with their `estimated_usd` (SPEC §9a: per session, the recorded
/// `usd` − the baseline's `delta_usd` + the row's, then summed; unknown when
/// any is), the baseline first unless `--no-baseline` left it out. It stands
/// outside the sort and the recommendation.
pub fn with_baseline(rows: Vec<Row>, base: Row, sessions: &[SessionInfo], lead: bool) -> Vec<Row> {
    let usd: std::collections::HashMap<&str, Option<f64>> = sessions
        .iter()
        .map(|s| (s.path.as_str(), s.recorded.usd))
        .collect();
    let base_delta: std::collections::HashMap<String, Option<f64>> = base
        .per_session
        .iter()
        .map(|p| (p.path.clone(), p.delta_usd))
        .collect();
    let estimate = |mut r: Row| {
        for p in &mut r.per_session {
            let recorded = usd.get(p.path.as_str()).copied().flatten();
            let b = base_delta.get(&p.path).copied().flatten();
            p.estimated_usd = (|| Some(recorded? - b? + p.delta_usd?))();
        }
        r.estimated_usd = (!r.per_session.is_empty())
            .then(|| {
                r.per_session
                    .iter()
                    .map(|p| p.estimated_usd)
                    .sum::<Option<f64>>()
            })
            .flatten();
        r
    };
    let first = lead.then(|| estimate(base.clone()));
    // The groups' indices (`same_as`) move down by the row put before them.
    let shift = usize::from(first.is_some());
    first
        .into_iter()
        .chain(rows.into_iter().map(estimate).map(|mut r| {
            r.same_as = r.same_as.map(|i| i + shift);
            r
        }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(usd: Option<f64>) -> Row {
        let mut r = Row::new(Params::baseline(HarnessId::Claude));
        r.delta_usd = usd;
        r
    }

    fn info(path: &str, usd: Option<f64>) -> SessionInfo {
        let mut recorded = crate::bill::Recorded::zero();
        recorded.usd = usd;
        SessionInfo {
            path: path.into(),
            harness: HarnessId::Claude,
            model: None,
            requests: 1,
            price: None,
            recorded,
        }
    }

    /// SPEC §9a baseline: `estimated_usd` per session is the recorded usd − the
    /// baseline's Δ + the row's Δ, then summed; unknown when any part is; the
    /// baseline leads unless `--no-baseline`.
    #[test]
    fn t9a_estimated_usd_is_per_session_then_summed() {
        let mut base = row(None);
        base.baseline = true;
        add_to(&mut base, "a", Totals::default(), Some(0.5), true);
        add_to(&mut base, "b", Totals::default(), Some(-0.25), false);
        let mut r = row(None);
        r.params.kind = PlanKind::Idle;
        add_to(&mut r, "a", Totals::default(), Some(-1.0), true);
        add_to(&mut r, "b", Totals::default(), Some(-0.5), false);
        let sessions = [info("a", Some(10.0)), info("b", Some(4.0))];
        let rows = with_baseline(vec![r.clone()], base.clone(), &sessions, true);
        assert!(rows[0].baseline && !rows[1].baseline);
        // The baseline's estimate is the recorded bill: 10 + 4.
        assert_eq!(rows[0].estimated_usd, Some(14.0));
        // a: 10 − 0.5 − 1 = 8.5; b: 4 + 0.25 − 0.5 = 3.75.
        let per: Vec<Option<f64>> = rows[1]
            .per_session
            .iter()
            .map(|p| p.estimated_usd)
            .collect();
        assert_eq!(per, [Some(8.5), Some(3.75)]);
        assert_eq!(rows[1].estimated_usd, Some(12.25));
        // --no-baseline: the same estimates, without the row.
        let rows = with_baseline(vec![r.clone()], base.clone(), &sessions, false);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].estimated_usd, Some(12.25));
        // A session without a price: its estimate and the row's are unknown.
        let sessions = [info("a", Some(10.0)), info("b", None)];
        let rows = with_baseline(vec![r], base, &sessions, true);
        assert_eq!(rows[1].per_session[0].estimated_usd, Some(8.5));
        assert_eq!(rows[1].per_session[1].estimated_usd, None);
        assert_eq!(rows[1].estimated_usd, None);
    }
}
