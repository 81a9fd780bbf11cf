//! `timeline --follow` through the real binary: rows that arrive later stay
//! under the column titles printed first, and the totals line is printed
//! again with the figures of the whole file so far.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn later_rows_keep_the_header_s_columns_and_the_totals_are_printed_again() {
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl"),
    )
    .unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("live.jsonl");
    // The first 9 records: requests 1–4, where count (trigger 3) has not fired
    // and no warm cache broke: the FIRED and CACHE cells are narrow.
    std::fs::write(&path, lines[..9].join("\n") + "\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .arg("timeline")
        .arg(&path)
        .args([
            "--policy",
            "count",
            "--delivery",
            "rewrite",
            "--trigger",
            "3",
        ])
        .args(["--keep-recent", "2", "--follow", "--interval-ms", "50"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Lines arrive on a channel, so that a line that never comes fails the
    // test after a while instead of hanging it.
    let out = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen: Vec<String> = Vec::new();
    let read_until = |seen: &mut Vec<String>, done: &dyn Fn(&str) -> bool| loop {
        let line = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("{e}: no more lines after {seen:#?}"));
        let line = line.trim_end().to_string();
        let stop = done(&line);
        seen.push(line);
        if stop {
            break;
        }
    };
    read_until(&mut seen, &|l| l.starts_with("totals: "));
    assert!(
        seen.last().unwrap().starts_with("totals: 0 fires"),
        "{seen:?}"
    );
    // The rest: request 5, where count fires and the rewrite breaks the warm
    // cache (`count`, `broken`: wider than anything above), and request 6.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(f, "{}", lines[9..].join("\n")).unwrap();
    drop(f);
    read_until(&mut seen, &|l| l.starts_with("totals: "));
    child.kill().unwrap();
    let _ = child.wait();
    let titles = seen
        .iter()
        .find(|l| l.trim_start().starts_with("REQ"))
        .unwrap();
    let col = |title: &str| titles.find(title).unwrap();
    let rows: Vec<&String> = seen
        .iter()
        .filter(|l| {
            l.trim_start()
                .split(' ')
                .next()
                .is_some_and(|w| w.parse::<usize>().is_ok())
        })
        .collect();
    assert_eq!(rows.len(), 6, "{seen:#?}");
    for r in &rows {
        // The WHY cell starts under WHY, the CACHE cell under CACHE, the request
        // number ends where REQ ends.
        assert!(
            r[col("WHY")..].starts_with("count: "),
            "{r:?} under {titles:?}"
        );
        let cache = &r[col("CACHE")..];
        assert!(
            ["cold", "kept", "broken"]
                .iter()
                .any(|w| cache.starts_with(w)),
            "{r:?} under {titles:?}"
        );
        assert!(r.as_bytes()[col("REQ") + 2].is_ascii_digit(), "{r:?}");
    }
    assert!(
        rows[4].contains("broken") && rows[4].contains("count"),
        "{rows:#?}"
    );
    // The totals again, with request 5's fire and break.
    let last = seen.last().unwrap();
    assert!(
        last.starts_with("totals: 1 fires, 2 results cleared")
            && last.contains("1 cache breaks while warm"),
        "{seen:#?}"
    );
}
