//! SPEC §16.B's partition on real transcripts: the worked example of §16.R
//! number for number, and every corpus session's causes summing to its writes.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/corpus.rs"]
mod corpus;

use mcscope::bill::causes::{self, Cause, Level};

fn load(path: &std::path::Path) -> mcscope::session::Session {
    mcscope::load::load(path, None).expect("loads")
}

/// SPEC §16.R's table on `entireio__cli__38`: five rows and the session's causes.
#[test]
fn b_worked_example_entireio_cli_38_number_for_number() {
    let Some(path) = corpus::file("claude-code/entireio__cli__38-ecf75f2f1d-0-full.jsonl") else {
        return;
    };
    let s = load(&path);
    let rows = causes::partition(&s, &[], &mut Default::default());
    assert_eq!(rows.len(), 142);
    let w: u64 = rows.iter().map(|r| r.write()).sum();
    assert_eq!(w, 495_580);
    let at = |k: usize| rows.iter().find(|r| r.request == Some(k)).unwrap();
    let r1 = at(1);
    assert_eq!((r1.line, r1.cause, r1.write()), (5, Cause::First, 27_979));
    let r48 = at(48);
    assert_eq!(
        (
            r48.line,
            r48.expected,
            r48.cache_read,
            r48.write(),
            r48.rewritten(),
            r48.cause
        ),
        (344, Some(135_873), 18_576, 58_479, 58_479, Cause::Clearing)
    );
    assert_eq!(r48.marker, Some(("microcompact_boundary", 343)));
    let r56 = at(56);
    assert_eq!(
        (
            r56.line,
            r56.expected,
            r56.cache_read,
            r56.write(),
            r56.rewritten(),
            r56.cause,
            r56.level
        ),
        (
            410,
            Some(81_452),
            18_576,
            65_496,
            62_876,
            Cause::Unexplained,
            Some(Level::Floor)
        )
    );
    let r86 = at(86);
    assert_eq!(
        (
            r86.line,
            r86.expected,
            r86.write(),
            r86.rewritten(),
            r86.cause,
            r86.level
        ),
        (
            586,
            Some(123_662),
            105_326,
            105_086,
            Cause::Unexplained,
            Some(Level::Floor)
        )
    );
    let r116 = at(116);
    assert_eq!(
        (
            r116.line,
            r116.expected,
            r116.write(),
            r116.rewritten(),
            r116.cause
        ),
        (851, Some(153_937), 12_781, 12_781, Cause::Compaction)
    );
    let total = |c: Cause| -> u64 {
        rows.iter()
            .map(|r| {
                let (a, b) = r.part(c);
                a + b
            })
            .sum()
    };
    let want = [
        (Cause::Growth, 225_519),
        (Cause::Unexplained, 167_962),
        (Cause::Clearing, 58_479),
        (Cause::First, 27_979),
        (Cause::Compaction, 12_781),
        (Cause::Drift, 2_860),
    ];
    for (c, n) in want {
        assert_eq!(total(c), n, "{}", c.name());
    }
    for c in [
        Cause::Ttl,
        Cause::Resume,
        Cause::ModelSwitch,
        Cause::ToolsChanged,
        Cause::Subagent,
    ] {
        assert_eq!(total(c), 0, "{}", c.name());
    }
    // Every write is 1h on this file.
    assert!(rows.iter().all(|r| r.cache_write_5m == 0));
}

/// SPEC §16.B4 and BL3: on every corpus session the parts of each response sum
/// to its writes, 5m and 1h apart, and the responses to the recorded bill's
/// writes (§9a), sub-agents included.
#[test]
fn b4_every_corpus_session_bills_causes_that_sum_to_its_writes() {
    let mut files = corpus::jsonl_files();
    if let Some(dir) = corpus::dir() {
        for f in std::fs::read_dir(dir.join("opencode"))
            .into_iter()
            .flatten()
            .flatten()
        {
            files.push(f.path());
        }
    }
    let mut checked = 0;
    for path in files {
        let Ok(s) = mcscope::load::load(&path, None) else {
            continue;
        };
        let lines = mcscope::load::subagents::usage_lines(&s);
        let rows = causes::partition(&s, &lines, &mut Default::default());
        for r in &rows {
            let (c5, c1) = (r.cause_5m, r.cause_1h);
            assert_eq!(c5 + r.growth_5m(), r.cache_write_5m, "{}", path.display());
            assert_eq!(c1 + r.growth_1h(), r.cache_write_1h, "{}", path.display());
            let parts: u64 = Cause::ALL
                .iter()
                .map(|c| {
                    let (a, b) = r.part(*c);
                    a + b
                })
                .sum();
            assert_eq!(
                parts,
                r.write(),
                "{} request {:?}",
                path.display(),
                r.request
            );
        }
        let bill = mcscope::bill::recorded(&s, &lines, None);
        let mut want = bill.main;
        if let Some((t, _)) = bill.subagents {
            want.add(&t);
        }
        let w5: u64 = rows.iter().map(|r| r.cache_write_5m).sum();
        let w1: u64 = rows.iter().map(|r| r.cache_write_1h).sum();
        assert_eq!(
            (w5, w1),
            (want.cache_write_5m, want.cache_write_1h),
            "{}",
            path.display()
        );
        assert_eq!(rows.len() as u64, want.responses, "{}", path.display());
        checked += 1;
    }
    eprintln!("{checked} corpus sessions billed");
}
