//! A line that holds a NUL byte can never parse (JSON allows none, in a string
//! or out of one), so a long one is skipped as it is read instead of being held:
//! a crash can leave gigabytes of NULs without a newline, and buffering them
//! cost memory equal to their length (and a rescan per batch). The skip keeps
//! one small chunk and the first NUL run's place, for the diagnostic.

use std::io::Read;

/// Bytes read per step while skipping.
const CHUNK: usize = 256 << 10;

/// A zeroed block to compare chunks against (a memcmp, fast in any build).
static ZEROS: [u8; CHUNK] = [0; CHUNK];

/// One skipped line.
pub(super) struct Skipped {
    /// Bytes of the line, its newline included when it has one.
    pub len: u64,
    /// Whether a newline ended it (else the file ended first).
    pub complete: bool,
    /// The first NUL run, as file offsets `[start, end)`.
    pub run: (u64, u64),
    /// What was read after the newline: the start of the next lines.
    pub rest: Vec<u8>,
}

/// Skips the line that begins with `head` (file offset `start`, no newline in
/// it, at least one NUL) and goes on in `file` up to its newline or the end.
pub(super) fn skip_line(head: &[u8], start: u64, file: &mut impl Read) -> std::io::Result<Skipped> {
    let first = memchr::memchr(0, head).unwrap_or(head.len());
    let mut run = Run {
        start: start + first as u64,
        end: start + first as u64,
        open: true,
    };
    run.feed(&head[first..]);
    let mut len = head.len() as u64;
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => {
                return Ok(Skipped {
                    len,
                    complete: false,
                    run: (run.start, run.end),
                    rest: Vec::new(),
                });
            }
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let got = &chunk[..n];
        if got == &ZEROS[..n] {
            // The common case inside a run: no newline, nothing else to look at.
            run.feed_zeros(n);
            len += n as u64;
            continue;
        }
        let newline = memchr::memchr(b'\n', got);
        let line_part = &got[..newline.unwrap_or(n)];
        run.feed(line_part);
        len += line_part.len() as u64;
        if let Some(nl) = newline {
            return Ok(Skipped {
                len: len + 1,
                complete: true,
                run: (run.start, run.end),
                rest: got[nl + 1..].to_vec(),
            });
        }
    }
}

/// The first NUL run of a line, followed as its bytes arrive.
struct Run {
    start: u64,
    end: u64,
    /// Whether the bytes seen so far end inside the run.
    open: bool,
}

impl Run {
    fn feed_zeros(&mut self, n: usize) {
        if self.open {
            self.end += n as u64;
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        if !self.open {
            return;
        }
        let zeros = if bytes == &ZEROS[..bytes.len().min(CHUNK)] {
            bytes.len()
        } else {
            bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len())
        };
        self.end += zeros as u64;
        self.open = zeros == bytes.len();
    }
}

/// The diagnostic of a line skipped for its NULs (file offsets `[start, end)`).
pub(super) fn message(start: u64, end: u64) -> String {
    format!(
        "line skipped: {} NUL byte(s) at bytes {start} to {end} of the file (crash damage?)",
        end - start
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_nul_line_is_skipped_to_its_newline() {
        let mut tail = vec![0u8; 3 * CHUNK + 7];
        tail.extend_from_slice(b"xyz\n{\"next\":1}\n");
        let s = skip_line(b"{\"a\":\0\0", 100, &mut &tail[..]).unwrap();
        assert!(s.complete);
        assert_eq!(s.run, (105, 100 + 7 + 3 * CHUNK as u64 + 7));
        assert_eq!(s.len, 7 + 3 * CHUNK as u64 + 7 + 4);
        assert_eq!(s.rest, b"{\"next\":1}\n");
        let s = skip_line(b"\0", 0, &mut &[0u8; 10][..]).unwrap();
        assert!(!s.complete);
        assert_eq!((s.len, s.run), (11, (0, 11)));
    }
}
