//! The diff and the wire: scrolling to a result, count's cache-edits block, v, export.

use super::*;

#[test]
fn selecting_a_result_scrolls_the_diff_to_it() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    a.update(Action::Down);
    a.update(Action::Down);
    let lines = screen(&a, 120, 40, true);
    let diff_start = lines
        .iter()
        .position(|l| l.contains("local request (left)"))
        .unwrap();
    assert!(
        lines[diff_start..]
            .iter()
            .take(6)
            .any(|l| l.contains("\"tool_use_id\": \"toolu_C\""))
    );
}

#[test]
fn export_writes_the_wire_atomically_and_never_over_the_input() {
    let t = tempfile::tempdir().unwrap();
    let copy = t.path().join("s.jsonl");
    std::fs::copy(sample(DEMO), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let opts = Opts::default()
        .with("--policy", "count")
        .with("--keep-recent", "2")
        .with("--trigger", "3");
    let mut a = App::session(cli::setup(&copy, &opts).unwrap());
    a.update(Action::Export);
    assert!(matches!(
        a.view().unwrap().overlay,
        Some(Overlay::Export(_))
    ));
    let target = t.path().join("out.json");
    if let Some(Overlay::Export(p)) = &mut view_mut(&mut a).overlay {
        *p = target.display().to_string();
    }
    assert!(a.submit());
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert!(written.to_string().contains("cache_edits"));
    assert!(
        a.view()
            .unwrap()
            .status
            .as_deref()
            .unwrap()
            .starts_with("wrote")
    );
    // Refuses the input itself.
    let e = view_mut(&mut a).export(&copy).unwrap_err();
    assert!(e.to_string().contains("refusing"));
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    // No temp files left behind.
    let names: Vec<String> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// The diff region's rows on screen: from its title to the footer.
fn diff_region(lines: &[String]) -> Vec<String> {
    let start = lines
        .iter()
        .position(|l| l.contains("local request (left)"))
        .unwrap();
    let end = lines
        .iter()
        .position(|l| l.starts_with("✓ cache") || l.starts_with("✕ cache"))
        .unwrap_or(lines.len());
    lines[start + 1..end].to_vec()
}

#[test]
fn switching_to_count_opens_the_diff_on_the_cache_edits_block() {
    // Opened under idle (rewrite), then p p p to count: the sidecar-free delivery
    // default for count on Claude is cache-edits, but a tune keeps the delivery, so
    // d switches it. The diff must open on the block, not at line 1.
    let mut a = app(DEMO, Some(KindArg::Idle));
    let lines = screen(&a, 80, 24, true);
    assert!(
        diff_region(&lines)
            .iter()
            .any(|l| l.contains("~") && l.contains("\"content\": \"[Old tool r")),
        "idle opens on a placeholder:\n{}",
        lines.join("\n")
    );
    // idle → idle-server → forced → size → count (SPEC §13.S).
    for _ in 0..4 {
        a.update(Action::CyclePlan);
    }
    assert_eq!(a.view().unwrap().policy().kind.name(), "count");
    a.update(Action::ToggleDelivery);
    assert_eq!(a.view().unwrap().policy().delivery.name(), "cache-edits");
    let lines = screen(&a, 80, 24, true);
    assert!(
        has(&diff_region(&lines), "\"cache_edits\""),
        "{}",
        lines.join("\n")
    );
    // SPEC §13.P3: no external build has cached microcompact: the TUI says what-if.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("may not have run:") && l.contains("what-if")),
        "{}",
        lines.join("\n")
    );
    // Opening a session under count / cache-edits lands there too.
    let a = app(DEMO, Some(KindArg::Count));
    let lines = screen(&a, 80, 24, true);
    assert!(
        has(&diff_region(&lines), "\"cache_edits\""),
        "{}",
        lines.join("\n")
    );
}

#[test]
fn v_shows_the_full_content_the_wire_lost() {
    // Idle at request 6 cleared toolu_A (a 40-line Read of src/config.ts).
    let mut a = app(DEMO, Some(KindArg::Idle));
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_A"));
    a.update(Action::ViewContent);
    let lines = screen(&a, 100, 30, true);
    assert!(has(&lines, "toolu_A  Read"), "{}", lines.join("\n"));
    assert!(has(&lines, "1→import path from \"node:path\";"));
    assert!(has(&lines, "line 1 of 40"), "{}", lines.join("\n"));
    a.update(Action::Bottom);
    let lines = screen(&a, 100, 30, true);
    assert!(has(&lines, "line 40 of 40"));
    assert!(has(&lines, "40→"));
    a.update(Action::Back);
    assert!(a.view().unwrap().overlay.is_none() && !a.quit);
    // Qwen: the functionResponse's output.
    let mut m = app(MEMORY, Some(KindArg::Forced));
    m.update(Action::ViewContent);
    let lines = screen(&m, 120, 40, true);
    assert!(
        has(&lines, "name: App architecture"),
        "{}",
        lines.join("\n")
    );
}
