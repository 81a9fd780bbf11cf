use super::*;

/// Gives `data` in pieces, then fails.
struct FailsAfter {
    data: Vec<u8>,
    at: usize,
}

impl Read for FailsAfter {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.data.len() {
            return Err(std::io::Error::other("the disk went away"));
        }
        let n = out.len().min(self.data.len() - self.at).min(1 << 20);
        out[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A read error in the middle of a file: everything before it that was read
/// is applied, and the reader's place is the end of what it applied.
#[test]
fn a_read_error_leaves_the_reader_at_what_it_applied() {
    // Damaged lines (each a diagnostic) over more than one batch.
    let line = format!("{{\"type\":\"user\",\"message\":{}\n", "x".repeat(60));
    let count = (BATCH + BATCH / 2) / line.len();
    let data = line.repeat(count).into_bytes();
    let mut r = Reader::new(claude::Sink::for_format(
        Path::new("t.jsonl"),
        Format::ClaudeJsonl,
    ));
    let mut src = FailsAfter { data, at: 0 };
    let err = r.read(&mut src, true, &AtomicU64::new(0));
    assert!(err.is_err());
    assert!(
        r.line > 0 && r.line < count,
        "some lines, not all: {}",
        r.line
    );
    assert_eq!(
        r.diagnostics.len(),
        r.line,
        "every line counted was applied"
    );
    assert_eq!(r.offset, (r.line * line.len()) as u64);
    let last = r.diagnostics.last().unwrap();
    assert_eq!(last.line, r.line);
    assert_eq!(last.byte_offset, r.offset - line.len() as u64);
}

/// The corpus folder for this crate's own tests (as the binary's tests find
/// it, `tests/common/corpus.rs`): `$MCSCOPE_CORPUS`, else `shared/corpus`
/// beside the checkout; None after a note where it is absent, a failure
/// under `MCSCOPE_REQUIRE_CORPUS=1`.
pub(crate) fn corpus_dir() -> Option<std::path::PathBuf> {
    let dir = match std::env::var_os("MCSCOPE_CORPUS") {
        Some(d) => std::path::PathBuf::from(d),
        None => std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    if dir.join("claude-code").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("MCSCOPE_REQUIRE_CORPUS").as_deref() != Ok("1"),
        "corpus not found at {} (MCSCOPE_REQUIRE_CORPUS=1)",
        dir.display()
    );
    eprintln!("note: corpus not found at {}; skipped", dir.display());
    None
}
