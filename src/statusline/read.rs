//! Reading a transcript from an offset: whole lines only, so that a line still
//! being written is read, whole, at the next call.

use super::fold::Fold;
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};

/// Folds the complete lines from `offset` on into `fold`; the offset after the
/// last newline read.
pub(crate) fn fold_from(file: &mut File, offset: u64, fold: &mut Fold) -> std::io::Result<u64> {
    file.seek(SeekFrom::Start(offset))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut at = offset;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 || line.last() != Some(&b'\n') {
            return Ok(at);
        }
        at += n as u64;
        if let Some(rec) = parse(&line) {
            fold.feed(rec);
        }
    }
}

/// A line the loader would read, parsed as it parses it; None for a blank,
/// damaged or foreign line (the loader's diagnostic is not the line's business).
fn parse(line: &[u8]) -> Option<crate::load::Live> {
    let text = simdutf8::basic::from_utf8(line)
        .ok()?
        .trim_end_matches(['\n', '\r']);
    if !text.trim_start().starts_with('{') {
        return None;
    }
    crate::load::live_record(text)
}
