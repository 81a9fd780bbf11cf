//! Issue 22 item 3: each plan kind is a function of a look and the policy; auto keeps to its kinds.

use super::*;

/// Where each plan kind's verdict is written (issue 22 item 3): its file under
/// `src/policy/engine/` and its function. A kind added to `PlanKind` without a
/// row here fails the test below.
fn kind_function(kind: mcscope::policy::PlanKind) -> Option<(&'static str, &'static str)> {
    Some(match kind.name() {
        "auto" => return None,
        "idle" => ("idle.rs", "idle"),
        "forced" => ("idle.rs", "forced"),
        "idle-server" => ("idle_server.rs", "idle_server"),
        "size" => ("size.rs", "size"),
        "count" => ("count.rs", "count"),
        "budget" => ("budget_plan.rs", "budget"),
        "api" => ("api.rs", "api"),
        "recorded" => ("recorded.rs", "recorded"),
        "mask" => ("mask.rs", "mask"),
        "prune" => ("prune.rs", "prune"),
        "cline" => ("cline.rs", "cline"),
        other => panic!("plan kind {other} has no row in kind_function"),
    })
}

/// Issue 22 item 3: every plan kind is a plain function of what the view
/// holds (a `Look`) and the policy, not a method of the engine: its file
/// defines `fn <kind><L: Look>(` whose first parameter is the view. The
/// kinds that carry nothing from request to request have no engine code in
/// their files at all.
#[test]
fn every_plan_kind_is_a_function_of_a_look_and_the_policy() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/mcscope-core/src/policy/engine");
    let plain = [
        "idle.rs",
        "size.rs",
        "count.rs",
        "budget_plan.rs",
        "mask.rs",
    ];
    let mut seen = 0;
    for &kind in <mcscope::policy::PlanKind as strum::VariantArray>::VARIANTS {
        let Some((file, function)) = kind_function(kind) else {
            continue;
        };
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let code = non_test_code(&dir.join(file), &text).unwrap_or_default();
        let head = format!("fn {function}<L: Look>(");
        let at = code
            .find(&head)
            .unwrap_or_else(|| panic!("{file} has no `{head}` for plan kind {}", kind.name()));
        let params = &code[at + head.len()..];
        let params = &params[..params.find(')').unwrap()];
        let first = params.split(',').next().unwrap_or_default().trim();
        assert!(
            first.ends_with(": &L") && !params.contains("self"),
            "{file}: {function} takes the view first, not the engine: ({params})"
        );
        if plain.contains(&file) {
            assert!(
                !code.contains("impl Engine"),
                "{file} holds engine code: plan kind {} is to be a function of the view",
                kind.name()
            );
        }
        seen += 1;
    }
    assert_eq!(seen, 11, "every kind but auto has its function");
}

/// The kinds a harness declares `auto` may choose (`Harness::auto_kinds`, which
/// the legality check and the config's printing read) hold every kind its auto
/// does choose, request by request, on every sample under every preset; and
/// each is a kind the harness offers.
#[test]
fn auto_chooses_only_the_kinds_its_harness_declares() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    let mut sessions = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".mcscope.json")
            || !(name.ends_with(".jsonl") || name.ends_with(".json") || name.ends_with(".db"))
        {
            continue;
        }
        sessions.push(mcscope::load::load(&path, None).unwrap());
    }
    assert!(sessions.len() >= 8, "{} samples", sessions.len());
    let mut seen = std::collections::BTreeSet::new();
    for h in <HarnessId as strum::VariantArray>::VARIANTS.iter().copied() {
        let declared = h.asks().auto_kinds();
        for k in declared {
            assert!(
                h.rules().offers(*k),
                "{h:?} declares {k:?}, not a kind it offers"
            );
        }
        let policy = mcscope::policy::Policy::preset(h);
        for s in &sessions {
            for r in &s.requests {
                if let Some(k) = h.asks().auto_kind(&policy, r, r.gap_minutes) {
                    assert!(
                        declared.contains(&k),
                        "{h:?} chose {k:?} at request {} of {}",
                        r.index,
                        s.path.display()
                    );
                    seen.insert(format!("{h:?} {k:?}"));
                }
            }
        }
    }
    // The samples reach past one kind of one harness, so that the check can fail.
    assert!(seen.len() >= 4, "{seen:?}");
}
