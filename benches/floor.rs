//! The line-scan floor of a JSON timeline (SPEC §18.23): one pass over a
//! Claude Code session with `memchr`, computing only what a timeline row needs
//! of the records (per assistant response: its message id, timestamp and the
//! four usage counts; the number of lines). No JSON is parsed, nothing is
//! normalized, no plan runs: what no reader of the file can go below.
//! `scripts/bench.sh` times it beside `wc -l`, ccusage and mcscope.
//!
//! `cargo bench --bench floor -- FILE` prints the figures it found, so a run
//! that reads nothing is seen.
#![allow(clippy::unwrap_used, clippy::expect_used)] // bench code: a failed unwrap is a failed run

use memchr::memmem::Finder;
use std::collections::HashSet;

/// The unsigned integer right after `key` in `hay`, if the key is there.
fn number_after(finder: &Finder, hay: &[u8]) -> Option<u64> {
    let at = finder.find(hay)? + finder.needle().len();
    let digits = hay[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&hay[at..at + digits])
        .ok()?
        .parse()
        .ok()
}

/// The JSON string right after `key` (no escapes in ids and timestamps).
fn string_after<'a>(finder: &Finder, hay: &'a [u8]) -> Option<&'a [u8]> {
    let at = finder.find(hay)? + finder.needle().len();
    let end = memchr::memchr(b'"', &hay[at..])?;
    Some(&hay[at..at + end])
}

fn main() {
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .expect("usage: floor FILE");
    let data = std::fs::read(&path).expect("a readable file");
    let usage = Finder::new(br#""usage":{"#);
    let keys = [
        Finder::new(br#""input_tokens":"#),
        Finder::new(br#""cache_creation_input_tokens":"#),
        Finder::new(br#""cache_read_input_tokens":"#),
        Finder::new(br#""output_tokens":"#),
    ];
    let id = Finder::new(br#""id":""#);
    let timestamp = Finder::new(br#""timestamp":""#);
    let (mut lines, mut responses) = (0u64, 0u64);
    let mut totals = [0u64; 4];
    let mut seen: HashSet<&[u8]> = HashSet::new();
    let mut last_time: &[u8] = b"";
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', &data).chain(std::iter::once(data.len())) {
        let line = &data[start..end];
        start = end + 1;
        if line.is_empty() {
            continue;
        }
        lines += 1;
        let Some(u) = usage.find(line) else {
            continue;
        };
        // A response streamed over several records counts once (by its id).
        let message = string_after(&id, line).unwrap_or(b"");
        if !seen.insert(message) {
            continue;
        }
        responses += 1;
        let tail = &line[u..];
        for (total, key) in totals.iter_mut().zip(&keys) {
            *total += number_after(key, tail).unwrap_or(0);
        }
        if let Some(t) = string_after(&timestamp, line) {
            last_time = t;
        }
    }
    println!(
        "lines {lines} responses {responses} input {} cache_write {} cache_read {} output {} last {}",
        totals[0],
        totals[1],
        totals[2],
        totals[3],
        String::from_utf8_lossy(last_time)
    );
}
