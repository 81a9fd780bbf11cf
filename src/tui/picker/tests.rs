use super::*;
use std::time::Duration;

fn write(dir: &std::path::Path, name: &str, text: &str, age_s: u64) -> (PathBuf, u64, SystemTime) {
    let p = dir.join(name);
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).unwrap_or_default();
    }
    std::fs::write(&p, text).unwrap_or_default();
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000_000 - age_s);
    (p, text.len() as u64, t)
}

fn session(prompt: &str, responses: usize) -> String {
    let mut s = format!(
        "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{prompt}\"}}}}\n"
    );
    for i in 0..responses {
        s +=
            &format!("{{\"type\":\"assistant\",\"message\":{{\"id\":\"m{i}\",\"content\":[]}}}}\n");
    }
    s
}

fn scanned(files: Vec<(PathBuf, u64, SystemTime)>) -> Picker {
    let mut p = Picker::new("t".into(), files);
    for i in 0..p.entries.len() {
        let e = &mut p.entries[i];
        e.summary = Some(scan::scan(&e.path));
        p.haystacks[i] = e.haystack();
        p.link(i);
    }
    p.rebuild();
    p
}

fn names(p: &Picker) -> Vec<String> {
    p.rows
        .iter()
        .map(|r| match *r {
            Row::File(i) => p.entries[i]
                .path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            Row::Thread(i, t) => format!("thread {} of {}", t + 1, i),
        })
        .collect()
}

#[test]
fn blank_files_sort_last_under_every_key_and_filter_and_sort_keys_work() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let d = &dir.path().join("-home-me-app");
    let files = vec![
        write(d, "empty.jsonl", "", 0), // the newest, but empty
        write(
            d,
            "summary.jsonl",
            "{\"type\":\"summary\",\"summary\":\"x\"}\n",
            1,
        ),
        write(d, "small.jsonl", &session("fix the parser", 1), 2),
        write(d, "big.jsonl", &session("write the readme please", 3), 3),
    ];
    let mut p = scanned(files);
    assert_eq!(
        names(&p),
        ["small.jsonl", "big.jsonl", "empty.jsonl", "summary.jsonl"]
    );
    p.update(Action::CycleSort);
    assert_eq!(p.sort, SortKey::Size);
    assert_eq!(names(&p)[..2], ["big.jsonl", "small.jsonl"]);
    p.update(Action::CycleSort);
    assert_eq!(p.sort, SortKey::Requests);
    assert_eq!(names(&p)[..2], ["big.jsonl", "small.jsonl"]);
    p.update(Action::ReverseSort);
    assert_eq!(names(&p)[..2], ["small.jsonl", "big.jsonl"]);
    assert_eq!(
        names(&p)[2..],
        ["empty.jsonl", "summary.jsonl"],
        "still last"
    );

    // Typing only filters after `/`; Esc clears.
    assert_eq!(p.update(Action::Type('x')), None);
    assert_eq!(p.filter, "");
    p.update(Action::Search);
    for c in "parser".chars() {
        p.update(Action::Type(c));
    }
    assert_eq!(names(&p), ["small.jsonl"], "'fix the parser'");
    p.update(Action::Erase);
    p.update(Action::Erase);
    p.update(Action::Type('z'));
    assert!(p.rows.is_empty(), "'parsz' matches nothing");
    // Ctrl-U, through the picker's keymap, clears the filter line and keeps it open.
    let ctrl_u = ratatui::crossterm::event::KeyEvent::new(
        ratatui::crossterm::event::KeyCode::Char('u'),
        ratatui::crossterm::event::KeyModifiers::CONTROL,
    );
    p.update(crate::tui::keymap::key_action(ctrl_u, true, p.typing));
    assert!(p.filter.is_empty() && p.typing);
    assert_eq!(p.rows.len(), 4);
    p.update(Action::Type('z'));
    p.update(Action::Back);
    assert!(p.filter.is_empty() && !p.typing);
    assert_eq!(p.rows.len(), 4);
    match p.update(Action::Open) {
        Some(Outcome::Open(t)) => {
            assert!(t.path.ends_with("small.jsonl") && t.thread.is_none())
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(p.update(Action::Quit), Some(Outcome::Quit));
}

#[test]
fn the_gate_holds_the_worker_after_n_files() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let files: Vec<_> = (0..5)
        .map(|i| write(dir.path(), &format!("s{i}.jsonl"), &session("hi", 1), i))
        .collect();
    let gate = Gate::pause_after(2);
    let mut p = Picker::scanning("t".into(), files, gate.clone());
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while p.scanned < 2 && std::time::Instant::now() < deadline {
        p.poll();
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    p.poll();
    assert_eq!(p.scanned, 2, "held after 2");
    gate.release();
    while p.scanning_now() && std::time::Instant::now() < deadline {
        p.poll();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(p.scanned, 5);
    assert!(!p.stopped);
}

#[test]
fn a_worker_that_ends_early_is_said_to_have_stopped() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let files: Vec<_> = (0..5)
        .map(|i| write(dir.path(), &format!("s{i}.jsonl"), &session("hi", 1), i))
        .collect();
    let gate = Gate::pause_after(2);
    let mut p = Picker::scanning("t".into(), files, gate.clone());
    if let Some(s) = &p.scanner {
        s.stop.store(true, Ordering::Relaxed);
    }
    gate.release();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while p.scanner.is_some() && std::time::Instant::now() < deadline {
        p.poll();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(p.stopped, "read {} of 5", p.scanned);
    assert!(p.scanned < 5);
    assert!(!p.scanning_now());
}

/// The filter ranks like fzf: a word found only as letters strewn over a row does
/// not match it (`gemini` matched 170 of 290 real sessions before).
#[test]
fn a_filter_word_strewn_across_a_row_does_not_match_it() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let d = &dir.path().join("-home-me-app");
    let files = vec![
        write(d, "a.jsonl", &session("ask gemini about the parser", 1), 3),
        write(
            d,
            "b.jsonl",
            &session("fix the git merge in the mini parser", 1),
            2,
        ),
        write(d, "c.jsonl", &session("Gemini CLI notes", 1), 1),
        write(d, "d.jsonl", &session("generate a minimal index", 1), 0),
    ];
    let mut p = scanned(files);
    for (filter, want) in [
        ("gemini", vec!["c.jsonl", "a.jsonl"]),
        // Word starts: "Gemini CLI".
        ("gc", vec!["c.jsonl"]),
        ("parser", vec!["a.jsonl", "b.jsonl"]),
        ("parser !gemini", vec!["b.jsonl"]),
        // Smart case: a capital asks for that case.
        ("Gem", vec!["c.jsonl"]),
        ("minimal", vec!["d.jsonl"]),
        ("zebra", vec![]),
    ] {
        p.filter = filter.into();
        p.rebuild();
        let mut got = names(&p);
        got.sort();
        let mut want: Vec<String> = want.into_iter().map(String::from).collect();
        want.sort();
        assert_eq!(got, want, "filter {filter:?}");
    }
}
