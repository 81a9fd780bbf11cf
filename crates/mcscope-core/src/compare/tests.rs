use super::*;
use crate::config::KeyValue;

fn row(i: usize, usd: Option<f64>, later: u64, not_sent: u64) -> Row {
    let mut r = Row::new(Params {
        values: vec![("keep_recent", KeyValue::U32(i as u32))],
        ..Params::of_kind(HarnessId::Claude, PlanKind::Idle)
    });
    r.totals = Totals {
        later_used: later,
        tokens_not_sent: not_sent,
        ..Default::default()
    };
    r.delta_usd = usd;
    r
}

/// SPEC §9: a kind is multiplied by the lists of the parameters it
/// reads, which are its plan's `reads`: budget reads keep
/// (its list was ignored, every row ran keep 3), qwen's size reads the gap
/// (its idle coupling); the default grid is SPEC §9's, unchanged.
#[test]
fn a_kind_is_multiplied_by_what_the_table_says_it_reads() {
    let lists = Lists {
        policy: Some(vec![PlanKind::Budget]),
        values: vec![
            ("keep_recent", vec![KeyValue::U32(2), KeyValue::U32(5)]),
            (
                "gap_threshold_minutes",
                vec![KeyValue::F64(5.0), KeyValue::F64(60.0)],
            ),
        ],
        ..Default::default()
    };
    let g = grid(HarnessId::Claude, &lists);
    let keeps: Vec<Option<f64>> = g.iter().map(|p| p.number("keep_recent")).collect();
    assert_eq!(
        keeps,
        [Some(2.0), Some(5.0)],
        "budget reads keep, not the gap"
    );
    assert!(
        g.iter()
            .all(|p| p.number("gap_threshold_minutes").is_none())
    );
    let lists = Lists {
        policy: Some(vec![PlanKind::Size]),
        values: vec![(
            "gap_threshold_minutes",
            vec![KeyValue::F64(5.0), KeyValue::F64(60.0)],
        )],
        ..Default::default()
    };
    assert_eq!(
        grid(HarnessId::Qwen, &lists).len(),
        2,
        "qwen's size reads the gap"
    );
    assert_eq!(
        grid(HarnessId::Claude, &lists).len(),
        1,
        "claude's does not"
    );
    // The default grid: idle 8 × 8, size 5, count 3 × 4 × 2, idle-server 4.
    assert_eq!(
        grid(HarnessId::Claude, &Lists::default()).len(),
        64 + 5 + 24 + 4
    );
    assert_eq!(grid(HarnessId::Qwen, &Lists::default()).len(), 64 + 5);
}

/// `auto` is multiplied by what any harness's `auto` may choose reads: the
/// keep, the gap and the size (Qwen's size), not count's trigger.
#[test]
fn auto_reads_what_the_kinds_it_may_choose_read() {
    let reads: Vec<&str> = crate::policy::params::axes()
        .map(|(row, _)| row.key)
        .filter(|k| grid::uses(PlanKind::Auto, HarnessId::Claude, k))
        .collect();
    assert_eq!(
        reads,
        ["keep_recent", "gap_threshold_minutes", "size_threshold"]
    );
}

#[test]
fn api_lists_make_their_cross_product_for_claude_shaped_sessions_only() {
    let lists = Lists {
        api_trigger: Some(vec![50_000, 100_000, 150_000]),
        api_keep: Some(vec![3, 5, 10]),
        ..Default::default()
    };
    let g = grid(HarnessId::Claude, &lists);
    assert_eq!(g.len(), 9);
    assert!(
        g.iter()
            .all(|p| p.kind.is_api() && p.delivery == Delivery::Server)
    );
    assert_eq!((g[1].api_trigger, g[1].api_keep), (Some(50_000), Some(5)));
    assert_eq!(
        format!("{} {}", g[1].preset_name(), g[1].words()),
        "api trigger 50000 keep 5"
    );
    assert!(grid(HarnessId::Qwen, &lists).is_empty());
    // Applied: the first clear_tool_uses edit takes both values.
    let p = g[1].apply(&Policy::preset(HarnessId::Claude));
    assert_eq!(p.kind, PlanKind::Api);
    assert_eq!(
        p.api.edits_json()[0],
        serde_json::json!({"type": "clear_tool_uses_20250919",
                   "trigger": {"type": "input_tokens", "value": 50000},
                   "keep": {"type": "tool_uses", "value": 5}})
    );
}

#[test]
fn the_default_grid_multiplies_only_what_a_kind_reads() {
    let g = grid(HarnessId::Claude, &Lists::default());
    let count = |k: PlanKind| g.iter().filter(|p| p.kind == k).count();
    assert_eq!(count(PlanKind::Idle), 64);
    assert_eq!(count(PlanKind::Size), 5);
    // count: 3 keeps × 4 triggers × 2 deliveries.
    assert_eq!(count(PlanKind::Count), 24);
    assert!(
        g.iter().filter(|p| p.kind == PlanKind::Idle).all(
            |p| p.number("size_threshold").is_none() && p.number("trigger_threshold").is_none()
        )
    );
    let q = grid(HarnessId::Qwen, &Lists::default());
    assert_eq!(q.len(), 69);
    // Lists: idle × keep {2, 5} × gap {30}; size takes keep but not the gap.
    let lists = Lists {
        policy: Some(vec![PlanKind::Idle, PlanKind::Size]),
        values: vec![
            ("keep_recent", vec![KeyValue::U32(2), KeyValue::U32(5)]),
            ("gap_threshold_minutes", vec![KeyValue::F64(30.0)]),
        ],
        ..Default::default()
    };
    let g = grid(HarnessId::Claude, &lists);
    assert_eq!(g.len(), 4);
    assert!(
        g.iter()
            .filter(|p| p.kind == PlanKind::Size)
            .all(|p| p.number("gap_threshold_minutes").is_none())
    );
    // cache-edits is never run on qwen.
    let lists = Lists {
        policy: Some(vec![PlanKind::Count]),
        delivery: Some(vec![Delivery::Rewrite, Delivery::CacheEdits]),
        ..Default::default()
    };
    assert_eq!(grid(HarnessId::Qwen, &lists).len(), 1);
    assert_eq!(grid(HarnessId::Claude, &lists).len(), 2);
}

#[test]
fn s18_5_an_unpriced_session_is_left_out_of_a_row_s_dollars() {
    let mut r = row(0, None, 0, 0);
    add_to(&mut r, "a", Totals::default(), Some(-1.0), true);
    add_to(&mut r, "b", Totals::default(), Some(-0.5), false);
    assert_eq!(r.delta_usd, Some(-1.5));
    add_to(&mut r, "c", Totals::default(), None, false);
    assert_eq!(r.delta_usd, Some(-1.5));
    add_to(&mut r, "d", Totals::default(), Some(-0.5), false);
    assert_eq!(r.delta_usd, Some(-2.0));
    assert_eq!(r.per_session.len(), 4);
    assert_eq!(r.per_session[2].delta_usd, None);
    // Only unpriced sessions: no dollars.
    let mut r = row(0, None, 0, 0);
    add_to(&mut r, "a", Totals::default(), None, true);
    add_to(&mut r, "b", Totals::default(), None, false);
    assert_eq!(r.delta_usd, None);
}
