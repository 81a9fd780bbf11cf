//! Sections 1–3: JSON nested 10,000 deep, a 50 MB line, a million tiny lines.

use super::*;

/// A small realistic Claude session: a prompt, two Bash calls with their
/// results, an answer, and a prompt after a long gap (the trailing request).
fn small_session() -> Claude {
    let mut c = Claude::default();
    c.prompt("Build it.", 0.0)
        .bash("toolu_B1", 300)
        .bash("toolu_B2", 300)
        .answer("Built.")
        .prompt("Again?", 90.0);
    c
}

/// `n` opening brackets, then `n` closing ones.
fn nested_arrays(n: usize) -> String {
    "[".repeat(n) + &"]".repeat(n)
}

/// `{"a":{"a":…1…}}`, `n` deep.
fn nested_objects(n: usize) -> String {
    "{\"a\":".repeat(n) + "1" + &"}".repeat(n)
}

// ---- 1. JSON nested 10,000 deep on one line ----

#[test]
fn nested_10000_deep_is_one_diagnostic_and_the_rest_loads() {
    const DEPTH: usize = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let mut c = small_session();
    // Line 3: the brief's shape, arrays in message.content. Line 5: objects as the
    // text of a tool_result text block.
    c.lines.insert(
        2,
        format!(
            r#"{{"type":"user","message":{{"role":"user","content":{}}}}}"#,
            nested_arrays(DEPTH)
        ),
    );
    c.lines.insert(
        4,
        format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_DEEP","content":[{{"type":"text","text":{}}}]}}]}}}}"#,
            nested_objects(DEPTH)
        ),
    );
    let path = c.write(dir.path(), "deep.jsonl");
    let s = load_ok(&path);
    assert_diagnostics_at(&s, &path, &[3, 5]);
    // The rest loads as if the deep lines were not there.
    let clean = small_session().write(dir.path(), "clean.jsonl");
    let clean = load_ok(&clean);
    assert_eq!(s.records, clean.records);
    assert_eq!(s.requests.len(), clean.requests.len());
    let ids = |s: &Session| s.results.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&s), ids(&clean));
    assert_eq!(ids(&s), ["toolu_B1", "toolu_B2"]);

    let setup = setup_ok(&path, opts_idle(1));
    exercise(&setup, true);
    let out = run_bin(&[
        OsStr::new("timeline"),
        path.as_os_str(),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]);
    let v = json_ok(&out, "timeline");
    let lines: Vec<u64> = v["session"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [3, 5]);
}

/// A 10,000-deep value where the loader skips or does not descend (a
/// `toolUseResult`, which real Claude Code records carry with arbitrary tool
/// output; a tool_result `content` that is an object) must not load as a record
/// that the wire builder then cannot read back: either the line is a diagnostic
/// or every request that holds it can be planned and sent.
#[test]
fn nested_10000_deep_in_a_skipped_field_is_a_diagnostic_or_readable() {
    const DEPTH: usize = 10_000;
    let dir = tempfile::tempdir().unwrap();
    // Line 3 is toolu_B1's result, line 5 toolu_B2's.
    let variants: [(&str, usize, &str); 2] = [
        ("toolUseResult", 3, "/toolUseResult"),
        ("content-object", 5, "/message/content/0/content"),
    ];
    for (name, line, pointer) in variants {
        let mut c = small_session();
        let mut rec: Value = serde_json::from_str(&c.lines[line - 1]).unwrap();
        assert_eq!(rec["type"], "user");
        match rec.pointer_mut(pointer) {
            Some(v) => *v = json!("DEEP"),
            None => rec["toolUseResult"] = json!("DEEP"),
        }
        c.lines[line - 1] = rec.to_string().replace("\"DEEP\"", &nested_objects(DEPTH));
        let path = c.write(dir.path(), &format!("deep-{name}.jsonl"));
        let s = load_ok(&path);
        if s.diagnostics.iter().any(|d| d.line == line) {
            continue;
        }
        // Loaded as a record: every request must still be readable.
        let setup = setup_ok(&path, opts_idle(1));
        exercise(&setup, true);
        for args in [
            &["wire", "--at", "3"][..],
            &["plan", "--policy", "forced", "--keep-recent", "1"][..],
        ] {
            let mut a: Vec<&OsStr> = vec![OsStr::new(args[0]), path.as_os_str()];
            a.extend(args[1..].iter().map(OsStr::new));
            a.extend([OsStr::new("--format"), OsStr::new("json")]);
            json_ok(&run_bin(&a), &format!("{name}: {args:?}"));
        }
    }
}

// ---- 2. A 50 MB single line ----

#[test]
fn a_fifty_megabyte_line_loads_and_measures() {
    const N: usize = 50_000_000;
    let dir = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("Dump the log.", 0.0)
        .call("toolu_BIG", "Bash", json!({"command": "cat huge.log"}));
    // An escape and an astral character force the decoding path: N-3 'y', "\n"
    // (one unit), "😀" (two UTF-16 units).
    let content = "y".repeat(N - 3) + "\n😀";
    c.result("toolu_BIG", &content);
    drop(content);
    let path = c.write(dir.path(), "big.jsonl");
    assert!(std::fs::metadata(&path).unwrap().len() > N as u64);

    // The two commands run while the test loads the file itself: three
    // readings of 50 MB share the cores.
    let json = |cmd: &'static str| {
        let path = path.clone();
        std::thread::spawn(move || {
            run_bin(&[
                OsStr::new(cmd),
                path.as_os_str(),
                OsStr::new("--format"),
                OsStr::new("json"),
            ])
        })
    };
    let (timeline, plan) = (json("timeline"), json("plan"));

    let s = load_ok(&path);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.records, 3);
    assert_eq!(s.results.len(), 1);
    assert_eq!(s.results[0].chars, N as u64);
    assert_eq!(s.results[0].line, 3);
    assert_eq!(s.requests.len(), 2);
    drop(s);

    let out = timeline.join().unwrap();
    let v = json_ok(&out, "timeline");
    assert_eq!(v["requests"].as_array().map(Vec::len), Some(2));
    let out = plan.join().unwrap();
    let v = json_ok(&out, "plan");
    assert_eq!(v["candidates"][0]["chars"], N as u64);
}

// ---- 3. A million tiny lines ----

#[test]
fn a_million_tiny_lines_load_without_diagnostics() {
    const LINES: usize = 1_000_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("million.jsonl");
    let mut tail = Claude::default();
    tail.prompt("hi", 0.0).bash("toolu_LAST", 10).answer("done");
    assert_eq!(tail.lines.len(), 4);
    {
        let mut f = BufWriter::new(std::fs::File::create(&path).unwrap());
        for i in 0..LINES - tail.lines.len() {
            let line = match i % 3 {
                0 => r#"{"type":"progress"}"#,
                1 => r#"{"type":"summary","summary":"s","leafUuid":"u"}"#,
                _ => r#"{"type":"progress","data":{"type":"hook_progress"}}"#,
            };
            writeln!(f, "{line}").unwrap();
        }
        for l in &tail.lines {
            writeln!(f, "{l}").unwrap();
        }
        f.flush().unwrap();
    }
    let s = load_ok(&path);
    assert!(s.diagnostics.is_empty(), "{:?}", &s.diagnostics[..1]);
    assert_eq!(s.records, LINES);
    assert_eq!(s.results.len(), 1);
    assert_eq!(s.results[0].line, LINES - 1);
    assert_eq!(s.requests.len(), 2);
    let setup = setup_ok(&path, Opts::default());
    let p = plan(&setup, 2);
    assert_eq!(p.candidates.len(), 1);
}
