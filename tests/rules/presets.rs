//! Presets apart from the harness: protection as a what-if, cache_edits refused for Qwen.

use super::*;

#[test]
fn claude_preset_can_protect_as_a_what_if() {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let mem = base.join("m");
    std::fs::create_dir_all(&mem).unwrap();
    let mut c = Claude::default();
    let f = mem.join("note.md");
    c.prompt("go", 0.0)
        .read("M", f.to_str().unwrap())
        .bash("A", 100)
        .bash("B", 100)
        .answer("ok")
        .prompt("x", 90.0)
        .answer("y");
    let path = c.write(&base, "s.jsonl");
    let s = setup(&path, opts(KindArg::Idle, 1));
    assert!(!s.policy.protect, "off by default for claude");
    assert_eq!(ids(&s, &last(&s), Status::Cleared), ["M", "A"]);
    let mut o = opts(KindArg::Idle, 1);
    o.given.read("--protect", "").unwrap();
    o.shared.memory_root = vec![format!("team={}", mem.display())];
    let s = setup(&path, o);
    let p = last(&s);
    assert_eq!(ids(&s, &p, Status::Protected), ["M"]);
    assert_eq!(ids(&s, &p, Status::Cleared), ["A"]);
}

#[test]
fn cache_edits_is_refused_for_qwen_sessions() {
    let t = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0).answer("ok");
    let path = q.write(t.path(), "s.jsonl");
    let o = Opts::default().with("--delivery", "cache-edits");
    let e = mcscope::cli::setup(&path, &o).unwrap_err().to_string();
    assert!(e.contains("cache-edits"), "{e}");
    // A qwen count plan defaults to rewrite.
    let s = setup(&path, opts(KindArg::Count, 1));
    assert_eq!(s.policy.delivery, mcscope::policy::Delivery::Rewrite);
}

#[test]
fn preset_can_differ_from_the_harness() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0).answer("ok");
    let o = Opts {
        preset: Some(PresetArg::Qwen),
        ..Default::default()
    };
    let s = setup(&c.write(t.path(), "s.jsonl"), o);
    assert_eq!(s.policy.preset, mcscope::session::HarnessId::Qwen);
    assert!(s.policy.protect);
}
