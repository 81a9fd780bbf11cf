use super::*;
use crate::session::HarnessId;

/// SPEC §9, §15.23: the default grid's values are the plans'. A kind lists
/// only a key it reads on some harness and compare lists, and the values of a
/// count, a size or a trigger are whole.
#[test]
fn the_default_grid_is_each_plan_s() {
    let keep = by_key("keep_recent").unwrap();
    assert_eq!(
        PlanKind::IdleServer.default_grid(keep.key),
        Some(&[5.0, 12.0, 24.0, 64.0][..])
    );
    assert_eq!(PlanKind::Budget.default_grid(keep.key), None);
    let gap = by_key("gap_threshold_minutes").unwrap();
    assert_eq!(
        PlanKind::IdleServer.default_grid(gap.key),
        Some(&[65.0][..])
    );
    assert_eq!(PlanKind::Size.default_grid(gap.key), None);
    let size = by_key("size_threshold").unwrap();
    assert_eq!(
        PlanKind::Size.default_grid(size.key).map(<[f64]>::len),
        Some(5)
    );
    for p in PARAMS {
        for &kind in <PlanKind as strum::VariantArray>::VARIANTS {
            let Some(values) = kind.default_grid(p.key) else {
                continue;
            };
            // A plan lists only what it reads, and compare lists it.
            let read = <HarnessId as strum::VariantArray>::VARIANTS
                .iter()
                .any(|&h| kind.reads(p.key, h));
            assert!(read, "{} {}", p.key, kind.name());
            assert!(
                matches!(p.compare, Compare::List { axis: Some(_), .. }),
                "{}",
                p.key
            );
            if p.key != "gap_threshold_minutes" {
                assert!(
                    values.iter().all(|v| v.fract() == 0.0 && *v >= 0.0),
                    "{}",
                    p.key
                );
            }
        }
    }
}

#[test]
fn every_value_a_user_can_change_is_seen_as_changed() {
    let a = Policy::preset(HarnessId::Claude);
    let mut b = a.clone();
    b.trigger_threshold += 1;
    b.low_watermark = !b.low_watermark;
    b.gap_threshold_minutes = 7.5;
    assert_eq!(
        changed(&a, &b),
        [
            "gap_threshold_minutes",
            "low_watermark",
            "trigger_threshold"
        ]
    );
    assert!(changed(&a, &a).is_empty());
}

#[test]
fn a_harness_s_own_plan_shows_only_its_own_parameters() {
    let mut p = Policy::preset(HarnessId::Claude);
    p.prune_protect_tokens = 30_000;
    let prune = crate::policy::PlanKind::Prune.shown(&p).unwrap();
    let keys: Vec<&str> = prune.iter().map(|o| o.key).collect();
    assert_eq!(keys, ["prune_protect_tokens", "prune_minimum_tokens"]);
    assert_eq!(prune[0].value, "30,000");
    let mask = crate::policy::PlanKind::Mask.shown(&p).unwrap();
    assert_eq!(mask.len(), 3);
    assert!(crate::policy::PlanKind::Idle.shown(&p).is_none());
    // Every key is the table's, so the header can mark it.
    for o in prune.iter().chain(&mask) {
        assert!(PARAMS.iter().any(|q| q.key == o.key), "{}", o.key);
    }
}

/// SPEC §15.6: what each plan kind reads, as its plan says (`Plan::reads`,
/// which cites the engine's functions).
#[test]
fn s15_6_each_kind_reads_its_own_numeric_parameters() {
    use crate::policy::PlanKind::*;
    let numeric: Vec<&str> = PARAMS.iter().map(|p| p.key).collect();
    let read = |k: crate::policy::PlanKind, h: HarnessId| -> Vec<&str> {
        numeric
            .iter()
            .copied()
            .filter(|key| k.reads(key, h))
            .collect()
    };
    let c = HarnessId::Claude;
    assert_eq!(read(Idle, c), ["keep_recent", "gap_threshold_minutes"]);
    assert_eq!(read(Forced, c), ["keep_recent"]);
    assert_eq!(read(Size, c), ["keep_recent", "size_threshold"]);
    assert_eq!(
        read(Size, HarnessId::Qwen),
        ["keep_recent", "gap_threshold_minutes", "size_threshold"]
    );
    assert_eq!(read(Count, c), ["keep_recent", "trigger_threshold"]);
    assert_eq!(
        read(Budget, c),
        [
            "keep_recent",
            "budget_tokens",
            "budget_min_saving",
            "budget_warning_tokens"
        ]
    );
    assert_eq!(
        read(IdleServer, c),
        [
            "keep_recent",
            "gap_threshold_minutes",
            "min_trigger_tool_uses"
        ]
    );
    // mask reads Gemini CLI's own switch too (protectLatestTurn).
    assert_eq!(
        read(Mask, HarnessId::Gemini),
        [
            "mask_protect_tokens",
            "mask_min_prunable_tokens",
            "mask_protect_latest_turn"
        ]
    );
    assert_eq!(
        read(Prune, HarnessId::Opencode),
        ["prune_protect_tokens", "prune_minimum_tokens"]
    );
    // SPEC §18.2: cline reads its window (a number, null by the model) and its switch.
    assert_eq!(
        read(Cline, HarnessId::Cline),
        ["cline_context_window", "cline_dedupe"]
    );
    for k in [Auto, Api, Recorded] {
        assert!(read(k, c).is_empty(), "{}", k.name());
    }
    // Every numeric field of the policy object is one some plan reads (and
    // of the switches, only a harness's own: mask's protectLatestTurn, Cline's
    // dedupe).
    let read_by_some: Vec<&str> = numeric
        .iter()
        .copied()
        .filter(|key| {
            <crate::policy::PlanKind as strum::VariantArray>::VARIANTS
                .iter()
                .any(|k| {
                    <HarnessId as strum::VariantArray>::VARIANTS
                        .iter()
                        .any(|&h| k.reads(key, h))
                })
        })
        .collect();
    let json = serde_json::to_value(Policy::preset(HarnessId::Claude)).unwrap();
    for (key, v) in json.as_object().unwrap() {
        let numeric_field = v.is_number()
            || key == "budget_warning_tokens"
            || key == "keep_recent"
            || key == "min_trigger_tool_uses"
            || key == "mask_protect_latest_turn"
            || key == "cline_context_window"
            || key == "cline_dedupe";
        assert_eq!(numeric_field, read_by_some.contains(&key.as_str()), "{key}");
    }
}

#[test]
fn keys_are_the_policy_json_s() {
    let json = serde_json::to_value(Policy::preset(HarnessId::Claude)).unwrap();
    for p in PARAMS {
        let key = if p.key == "api_edits" { "api" } else { p.key };
        assert!(json.get(key).is_some(), "{key} is no policy field");
    }
}
