//! Reading a transcript from an offset: whole lines only, so that a line still
//! being written is read, whole, at the next call; and bounded, so that a
//! damaged tail costs neither memory nor time again at every refresh.
//!
//! A line that holds a NUL byte can never parse (JSON allows none), and one
//! longer than [`RECORD_CAP`] is no record the status line reads: either is
//! skipped as it is read, a chunk at a time, never held. When the file ends
//! inside such a line (a crash's NUL tail, not yet followed by a newline),
//! the place reached is kept with `skipping` set, so the next call goes on
//! from there to the line's newline instead of reading the damage again.

use super::fold::Fold;
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};

/// The longest line the status line reads as a record (the usage it needs is
/// in assistant records of a few KB; a longer line is a tool output).
pub(crate) const RECORD_CAP: usize = 64 << 20;

/// Where a read stopped: the offset, and whether it is inside a damaged line
/// whose rest (up to its newline) the next read skips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Place {
    pub offset: u64,
    pub skipping: bool,
}

/// Folds the complete lines from `from` on into `fold`; where the read stopped.
pub(crate) fn fold_from(file: &mut File, from: Place, fold: &mut Fold) -> std::io::Result<Place> {
    fold_lines(file, from, fold, RECORD_CAP)
}

fn fold_lines(file: &mut File, from: Place, fold: &mut Fold, cap: usize) -> std::io::Result<Place> {
    file.seek(SeekFrom::Start(from.offset))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut at = from.offset;
    let mut skipping = from.skipping;
    let mut line: Vec<u8> = Vec::new();
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            // The end: a damaged line's place is kept; a partial good line is
            // read again, whole, next time.
            return Ok(if skipping {
                Place {
                    offset: at + line.len() as u64,
                    skipping: true,
                }
            } else {
                Place {
                    offset: at,
                    skipping: false,
                }
            });
        }
        let newline = memchr::memchr(b'\n', buf);
        let take = newline.map_or(buf.len(), |i| i + 1);
        if skipping {
            // Nothing of a damaged line is held.
            at += take as u64;
        } else {
            let chunk = &buf[..take];
            if memchr::memchr(0, chunk).is_some() || line.len() + take > cap {
                skipping = true;
                at += (line.len() + take) as u64;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        reader.consume(take);
        if newline.is_some() {
            if skipping {
                skipping = false;
            } else {
                at += line.len() as u64;
                if let Some(rec) = parse(&line) {
                    fold.feed(rec);
                }
                line.clear();
            }
        }
    }
}

/// A line the loader would read, parsed as it parses it; None for a blank,
/// damaged or foreign line (the loader's diagnostic is not the line's business).
fn parse(line: &[u8]) -> Option<crate::load::LiveLine> {
    let text = simdutf8::basic::from_utf8(line)
        .ok()?
        .trim_end_matches(['\n', '\r']);
    if !text.trim_start().starts_with('{') {
        return None;
    }
    crate::load::live_record(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn fold_of(bytes: &[u8], from: Place, cap: usize) -> (Place, Fold) {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        let mut fold = Fold::default();
        let place = fold_lines(&mut f, from, &mut fold, cap).unwrap();
        (place, fold)
    }

    /// Issue 41 item 3: a NUL tail without a newline is skipped as it is read
    /// and its end kept, so the next call does not read it again; when the
    /// line ends later, reading goes on after its newline.
    #[test]
    fn safe_io_3_a_nul_tail_is_read_once() {
        let good = b"{\"type\":\"user\"}\n";
        let mut bytes = good.to_vec();
        bytes.extend(std::iter::repeat_n(0u8, 3 << 20));
        let (place, _) = fold_of(&bytes, Place::default(), RECORD_CAP);
        assert_eq!(
            place,
            Place {
                offset: bytes.len() as u64,
                skipping: true
            }
        );
        // The damaged line ends, then a good one follows: the record glued
        // to the NULs goes with them (as the loader skips the whole line).
        bytes.extend_from_slice(b"{\"glued\":1}\n");
        bytes.extend_from_slice(good);
        let (next, _) = fold_of(&bytes, place, RECORD_CAP);
        assert_eq!(
            next,
            Place {
                offset: bytes.len() as u64,
                skipping: false
            }
        );
    }

    /// A line past the cap is skipped whole; a partial good line is left to
    /// be read again once complete.
    #[test]
    fn safe_io_3_a_line_past_the_cap_is_skipped_and_a_partial_one_waits() {
        let long = format!("{{\"x\":\"{}\"}}\n", "a".repeat(100));
        let (place, _) = fold_of(long.as_bytes(), Place::default(), 50);
        assert_eq!(
            place,
            Place {
                offset: long.len() as u64,
                skipping: false
            }
        );
        let (place, _) = fold_of(b"{\"type\":\"user\"}\n{\"type\"", Place::default(), 50);
        assert_eq!(
            place,
            Place {
                offset: 16,
                skipping: false
            }
        );
    }
}
