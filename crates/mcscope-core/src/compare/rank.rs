//! The order of the rows, the groups of identical rows and the recommendation
//! (SPEC §9 sort, §9a "The recommendation", §15.15 `same_as`).

use super::avail::Availability;
use super::*;

/// The totals a group compares (SPEC §9a): every figure of the row, dollars as
/// shown (to the millionth).
fn group_key(r: &Row) -> (u64, u64, u64, u64, u64, u64, Option<i64>) {
    let t = &r.totals;
    (
        t.fires,
        t.cleared_results,
        t.tokens_not_sent,
        t.cache_breaks,
        t.tokens_rewritten,
        t.later_used,
        prices::usd_rounded(r.delta_usd).map(|x| (x * 1e6).round() as i64),
    )
}

/// The availability the recommendation reads (SPEC §9a): `user`, or where no
/// row is one (claude, presets without a user setting) `remote_flag`.
pub fn eligible(rows: &[Row]) -> Availability {
    if rows
        .iter()
        .any(|r| !r.baseline && r.availability == Some(Availability::User))
    {
        Availability::User
    } else {
        Availability::RemoteFlag
    }
}

/// Whether row `r` may be recommended: not the baseline, of the eligible
/// availability, fired at least once and saves money (as shown: a Δ that
/// rounds to 0 saves nothing).
fn qualifies(r: &Row, eligible: Availability) -> bool {
    !r.baseline
        && r.availability == Some(eligible)
        && r.totals.fires > 0
        && prices::usd_rounded(r.delta_usd).is_some_and(|d| d < 0.0)
}

/// Rows sorted (the baseline first, outside the sort; the rest by
/// `delta_usd` ascending, null last, `later_used` ascending, `tokens_not_sent`
/// descending, then grid order), each row's `same_as`, the recommended row and
/// the median `later_used` it read: among the qualifying rows, the first whose
/// `later_used` is not above their median (the lower middle of an even count).
pub fn sort_and_recommend(rows: Vec<Row>) -> (Vec<Row>, Option<usize>, Option<u64>) {
    let (mut rows, mut rest): (Vec<Row>, Vec<Row>) = rows.into_iter().partition(|r| r.baseline);
    // SPEC §15.5: the baseline is what happened, no setting to choose.
    for r in &mut rows {
        r.availability = None;
        r.knob = None;
    }
    // A stable sort keeps grid order among equals.
    rest.sort_by(|a, b| {
        let usd = match (a.delta_usd, b.delta_usd) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        usd.then(a.totals.later_used.cmp(&b.totals.later_used))
            .then(b.totals.tokens_not_sent.cmp(&a.totals.tokens_not_sent))
    });
    rows.extend(rest);
    // Groups over the sorted rows: equal totals sort next to each other.
    for i in 0..rows.len() {
        rows[i].same_as = None;
        if i == 0 || rows[i].baseline || rows[i - 1].baseline {
            continue;
        }
        if group_key(&rows[i]) == group_key(&rows[i - 1]) {
            rows[i].same_as = Some(rows[i - 1].same_as.unwrap_or(i - 1));
        }
    }
    let (recommended, median) = recommend(&rows, |_| true);
    (rows, recommended, median)
}

/// The recommendation among the sorted rows `keep` admits (SPEC §9a): among
/// the qualifying ones, the first whose `later_used` is not above their
/// median (the lower middle of an even count); with that median.
pub fn recommend(rows: &[Row], keep: impl Fn(&Row) -> bool) -> (Option<usize>, Option<u64>) {
    let kept: Vec<Row> = rows.iter().filter(|r| keep(r)).cloned().collect();
    let which = eligible(&kept);
    let candidates: Vec<usize> = (0..rows.len())
        .filter(|&i| keep(&rows[i]) && qualifies(&rows[i], which))
        .collect();
    let mut used: Vec<u64> = candidates
        .iter()
        .map(|&i| rows[i].totals.later_used)
        .collect();
    used.sort_unstable();
    let median = used.get(used.len().saturating_sub(1) / 2).copied();
    let recommended = median.and_then(|m| {
        candidates
            .iter()
            .copied()
            .find(|&i| rows[i].totals.later_used <= m)
    });
    (recommended, median)
}

/// The first row (not the baseline) in sort order with dollars: the cheapest.
pub fn cheapest(rows: &[Row]) -> Option<usize> {
    rows.iter()
        .position(|r| !r.baseline && r.delta_usd.is_some())
}

/// The members of the group whose first row is `first` (itself included).
pub fn members(rows: &[Row], first: usize) -> Vec<usize> {
    std::iter::once(first)
        .chain((first + 1..rows.len()).take_while(|&j| rows[j].same_as == Some(first)))
        .collect()
}

/// The kinds of a group's settings (`idle`, `count cache-edits`, `api`…),
/// each once, in row order.
pub fn group_kinds(rows: &[Row], group: &[usize]) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for &i in group {
        let p = &rows[i].params;
        let k = match p.kind {
            PlanKind::Api => "api".to_string(),
            // The server's own kind names no delivery: it has one.
            k if p.delivery != Delivery::Rewrite && !k.server_only() => {
                format!("{} {}", k.name(), p.delivery.name())
            }
            k => k.name().to_string(),
        };
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds
}

/// A group in words (SPEC §9a: "gap 30–90 min: identical"): per preset, kind
/// and delivery, the parameters every member shares, then the values of those
/// that differ — a range where the group holds every row of the comparison
/// between its ends, else a list.
pub fn group_words(rows: &[Row], group: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut done: Vec<usize> = Vec::new();
    for &i in group {
        if done.contains(&i) {
            continue;
        }
        let p = &rows[i].params;
        let same_kind = |q: &Params| {
            q.preset == p.preset
                && q.kind == p.kind
                && q.delivery == p.delivery
                && q.preset_name() == p.preset_name()
        };
        let sub: Vec<usize> = group
            .iter()
            .copied()
            .filter(|&j| same_kind(&rows[j].params))
            .collect();
        done.extend(&sub);
        parts.push(kind_words(rows, &sub, &same_kind));
    }
    format!("{}: identical", parts.join("; "))
}

/// One parameter of a setting: a numeric parameter of the table (by key),
/// or the api preset's edit's trigger or keep.
#[derive(Clone, Copy)]
enum Getter {
    Key(&'static str),
    ApiTrigger,
    ApiKeep,
}

impl Getter {
    /// The setting's value of it, as a number.
    fn get(self, p: &Params) -> Option<f64> {
        match self {
            Getter::Key(key) => p.number(key),
            Getter::ApiTrigger => p.api_trigger.map(|x| x as f64),
            Getter::ApiKeep => p.api_keep.map(|x| x as f64),
        }
    }
}

/// The parameters a group's words name, each with its name and unit: the
/// table's numeric ones (`policy::params::axes`), then the api edit's.
fn parameters() -> Vec<(&'static str, &'static str, Getter)> {
    crate::policy::params::axes()
        .map(|(row, axis)| (axis.name, axis.unit_long, Getter::Key(row.key)))
        .chain([
            ("trigger", "", Getter::ApiTrigger),
            ("keep", "", Getter::ApiKeep),
        ])
        .collect()
}

/// The members `sub` of one kind in words: `claude idle keep 5 gap 30–90 min`.
fn kind_words(rows: &[Row], sub: &[usize], same_kind: &dyn Fn(&Params) -> bool) -> String {
    let p = &rows[sub[0]].params;
    let mut w = vec![p.preset_name().to_string()];
    // The number of combinations the listed values make.
    let mut product = 1usize;
    if !p.kind.is_api() {
        w.push(p.kind.name().to_string());
    }
    let parameters = parameters();
    for (j, &(name, unit, get)) in parameters.iter().enumerate() {
        let mut values: Vec<f64> = sub
            .iter()
            .filter_map(|&i| get.get(&rows[i].params))
            .collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        let (Some(&lo), Some(&hi)) = (values.first(), values.last()) else {
            continue;
        };
        if lo == hi {
            w.push(format!("{name} {}{unit}", num(lo)));
            continue;
        }
        product *= values.len();
        // Every row of this kind whose other parameters match a member's and
        // whose value lies between the ends is in the group: a range.
        let others_match = |q: &Params| {
            sub.iter().any(|&i| {
                parameters
                    .iter()
                    .enumerate()
                    .all(|(k, (_, _, g))| k == j || g.get(q) == g.get(&rows[i].params))
            })
        };
        let whole = rows.iter().enumerate().all(|(i, r)| {
            let v = get.get(&r.params);
            r.baseline
                || !same_kind(&r.params)
                || !others_match(&r.params)
                || !v.is_some_and(|v| v >= lo && v <= hi)
                || sub.contains(&i)
        });
        let shown = if whole {
            format!("{}–{}", num(lo), num(hi))
        } else {
            values
                .iter()
                .map(|&v| num(v))
                .collect::<Vec<_>>()
                .join(", ")
        };
        w.push(format!("{name} {shown}{unit}"));
    }
    let d = p.delivery;
    if !p.kind.is_api() && (d != Delivery::Rewrite || p.kind.grid_deliveries(true).len() > 1) {
        w.push(d.name().to_string());
    }
    // Two parameters that differ but not every combination of their values:
    // say how many of them the group holds.
    if product > sub.len() {
        w.push(format!("({} of these {product} combinations)", sub.len()));
    }
    w.join(" ")
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::KeyValue;

    fn row(i: usize, usd: Option<f64>, later: u64, not_sent: u64) -> Row {
        let mut r = Row::new(Params {
            values: vec![("keep_recent", KeyValue::U32(i as u32))],
            ..Params::of_kind(HarnessId::Claude, PlanKind::Idle)
        });
        r.totals = Totals {
            fires: 1,
            later_used: later,
            tokens_not_sent: not_sent,
            ..Default::default()
        };
        r.delta_usd = usd;
        r.availability = Some(Availability::RemoteFlag);
        r
    }

    fn keeps(rows: &[Row]) -> Vec<u32> {
        rows.iter()
            .map(|r| r.params.number("keep_recent").map_or(0, |k| k as u32))
            .collect()
    }

    #[test]
    fn rows_sort_by_dollars_then_later_used_then_tokens_then_grid_order() {
        let rows = vec![
            row(0, None, 0, 10),
            row(1, Some(-1.0), 3, 10),
            row(2, Some(-2.0), 5, 10),
            row(3, Some(-1.0), 1, 10),
            row(4, Some(-1.0), 1, 99),
            row(5, Some(-1.0), 1, 99),
        ];
        let (sorted, _, _) = sort_and_recommend(rows);
        // -2 first; among -1: later 1 before 3, and 99 tokens before 10; 4 before 5
        // (grid order); null last.
        assert_eq!(keeps(&sorted), vec![2, 4, 5, 3, 1, 0]);
    }

    /// SPEC §9a recommendation: the lower middle of an even count of the
    /// qualifying rows.
    #[test]
    fn spec_9a_recommendation_reads_the_lower_median_of_the_qualifying_rows() {
        // later_used 5, 4, 2, 1 (sorted by dollars): sorted values 1 2 4 5, the
        // lower middle is 2 → the first row with later_used <= 2 is keep 2.
        let rows = vec![
            row(0, Some(-4.0), 5, 0),
            row(1, Some(-3.0), 4, 0),
            row(2, Some(-2.0), 2, 0),
            row(3, Some(-1.0), 1, 0),
            // A net cost is no candidate: its later_used does not count.
            row(4, Some(1.0), 0, 0),
        ];
        let (sorted, rec, median) = sort_and_recommend(rows);
        assert_eq!(median, Some(2));
        assert_eq!(rec, Some(2));
        assert_eq!(sorted[2].params.number("keep_recent"), Some(2.0));
        assert_eq!(sort_and_recommend(Vec::new()).1, None);
    }

    /// SPEC §9a recommendation: never a row that never fires, never an
    /// internal one, never the baseline, never a net cost; `user` rows first.
    #[test]
    fn spec_9a_recommendation_skips_what_cannot_be_used() {
        let mut never = row(0, Some(-5.0), 0, 0);
        never.totals.fires = 0;
        let mut internal = row(1, Some(-4.0), 0, 0);
        internal.availability = Some(Availability::Internal);
        let mut baseline = row(2, Some(-9.0), 0, 0);
        baseline.baseline = true;
        let remote = row(3, Some(-1.0), 0, 0);
        let (sorted, rec, _) = sort_and_recommend(vec![
            never.clone(),
            internal.clone(),
            baseline.clone(),
            remote.clone(),
        ]);
        assert!(sorted[0].baseline);
        // SPEC §15.5: the baseline has availability and knob null.
        assert_eq!((sorted[0].availability, &sorted[0].knob), (None, &None));
        assert_eq!(rec, Some(3));
        assert_eq!(sorted[3].params.number("keep_recent"), Some(3.0));
        // A user row wins over a cheaper remote flag.
        let mut user = row(4, Some(-0.5), 0, 0);
        user.availability = Some(Availability::User);
        let (sorted, rec, _) = sort_and_recommend(vec![remote.clone(), user]);
        assert_eq!(sorted[rec.unwrap()].params.number("keep_recent"), Some(4.0));
        // Only a net cost: none, the cheapest named.
        let (sorted, rec, _) = sort_and_recommend(vec![row(5, Some(0.67), 0, 0), never]);
        assert_eq!(rec, None);
        assert_eq!(cheapest(&sorted), Some(0));
    }

    /// SPEC §15.15 same_as: identical totals form a group over the sorted
    /// rows; the baseline is never in one.
    #[test]
    fn spec_15_15_same_as_groups_identical_rows() {
        let gap = |g: f64, usd: f64| {
            let mut r = row(5, Some(usd), 0, 10);
            r.params
                .set("gap_threshold_minutes", Some(KeyValue::F64(g)));
            r
        };
        let mut baseline = gap(10.0, -1.0);
        baseline.baseline = true;
        let rows = vec![
            baseline,
            gap(15.0, -1.0),
            gap(30.0, -0.5),
            gap(45.0, -0.5),
            gap(60.0, -0.5),
            gap(90.0, -0.5),
            gap(120.0, -0.2),
        ];
        let (sorted, _, _) = sort_and_recommend(rows);
        let same: Vec<Option<usize>> = sorted.iter().map(|r| r.same_as).collect();
        assert_eq!(
            same,
            vec![None, None, None, Some(2), Some(2), Some(2), None]
        );
        assert_eq!(members(&sorted, 2), vec![2, 3, 4, 5]);
        assert_eq!(
            group_words(&sorted, &members(&sorted, 2)),
            "claude idle keep 5 gap 30–90 min: identical"
        );
        // Not every value between the ends: a list.
        let rows = vec![gap(30.0, -0.5), gap(45.0, -0.1), gap(60.0, -0.5)];
        let (sorted, _, _) = sort_and_recommend(rows);
        assert_eq!(
            group_words(&sorted, &members(&sorted, 0)),
            "claude idle keep 5 gap 30, 60 min: identical"
        );
        // Settings of two kinds that never fire: one group, each kind named.
        let mut size = gap(30.0, 0.0);
        size.params.kind = PlanKind::Size;
        size.params.set("gap_threshold_minutes", None);
        size.params
            .set("size_threshold", Some(KeyValue::I64(800_000)));
        let rows = vec![gap(120.0, 0.0), size];
        let (sorted, _, _) = sort_and_recommend(rows);
        let g = members(&sorted, 0);
        assert_eq!(g, vec![0, 1]);
        assert_eq!(group_kinds(&sorted, &g), vec!["idle", "size"]);
        assert_eq!(
            group_words(&sorted, &g),
            "claude idle keep 5 gap 120 min; claude size keep 5 size 800000: identical"
        );
        // Two parameters that differ, not every pair: counted.
        let kg = |k: u32, g: f64, usd: f64| {
            let mut r = gap(g, usd);
            r.params.set("keep_recent", Some(KeyValue::U32(k)));
            r
        };
        let rows = vec![
            kg(1, 30.0, -0.1),
            kg(1, 90.0, 0.0),
            kg(3, 30.0, 0.0),
            kg(3, 90.0, 0.0),
        ];
        let (sorted, _, _) = sort_and_recommend(rows);
        assert_eq!(
            group_words(&sorted, &members(&sorted, 1)),
            "claude idle keep 1, 3 gap 30, 90 min (3 of these 4 combinations): identical"
        );
    }
}
