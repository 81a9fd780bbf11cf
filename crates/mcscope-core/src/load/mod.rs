//! Loaders: one module per input format, each turning a file into a [`Session`].
//!
//! The file is streamed line by line; a line that cannot be used becomes a
//! [`Diagnostic`] and loading goes on (SPEC §1). Only the fields that plans need
//! are parsed, and big strings are measured in place (see `raw`).

mod branches;
mod builder;
mod claude;
pub mod cline;
mod deep;
pub mod format;
mod gemini;
/// Claude Code attachment records that are facts about the wire (SPEC §13.E).
pub use claude::attach as claude_attach;
pub(crate) mod encoding;
pub(crate) mod jsonlen;
mod live;
mod messages;
mod normalize;
mod nulrun;
pub mod opencode;
pub(crate) mod qwen;
pub mod raw;
pub mod readback;
pub mod regular;
pub mod subagents;
pub mod surrogate;

use crate::session::{Diagnostic, Format, Session};
use rayon::prelude::*;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub use builder::PLACEHOLDER;
pub use live::{Live, LiveLine, live_record};
mod follow;
pub use follow::{Change, Follower, Tail};
pub use follow::{content_marks, fnv1a};

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: is a directory; give one session file")]
    Directory { path: PathBuf },
    #[error("{path}: unknown format: {why}")]
    UnknownFormat { path: PathBuf, why: String },
    /// A FIFO, socket or device: never opened for reading (it could block or
    /// never end).
    #[error("{path}: not a regular file ({what}); give a session file")]
    NotRegular { path: PathBuf, what: &'static str },
    /// A database of several sessions without `--session`, or naming none of
    /// them: the sessions there are, one a line.
    #[error("{path}: {why}:\n{list}")]
    Sessions {
        path: PathBuf,
        why: String,
        list: String,
    },
    #[error(
        "{path}: a UTF-16 file; mcscope reads UTF-8 (JSON Lines as the harnesses write them): convert it, e.g. iconv -f UTF-16 -t UTF-8"
    )]
    Utf16 { path: PathBuf },
}

impl LoadError {
    /// Why a folder's file is skipped, as `compare`'s `skipped[].reason` (SPEC
    /// §15.2); None for an error that is not one of those reasons.
    pub fn skip_reason(&self) -> Option<&'static str> {
        match self {
            LoadError::NotRegular { .. } => Some("not_regular"),
            LoadError::Utf16 { .. } => Some("utf16"),
            _ => None,
        }
    }
}

/// Opens a session file: a regular file only (through a symlink too), and never
/// a UTF-16 one.
fn open_session(path: &Path) -> Result<File, LoadError> {
    let io = |source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = regular::open_regular(path).map_err(|e| match e {
        regular::OpenError::NotRegular("a directory") => LoadError::Directory {
            path: path.to_path_buf(),
        },
        regular::OpenError::NotRegular(what) => LoadError::NotRegular {
            path: path.to_path_buf(),
            what,
        },
        regular::OpenError::Io(source) => io(source),
        regular::OpenError::TooBig(_) => io(std::io::Error::other(e.to_string())),
    })?;
    let mut head = [0u8; 64];
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..]).map_err(io)? {
            0 => break,
            got => n += got,
        }
    }
    if encoding::is_utf16(&head[..n]) {
        return Err(LoadError::Utf16 {
            path: path.to_path_buf(),
        });
    }
    rewind(&mut file).map_err(io)?;
    Ok(file)
}

fn rewind(file: &mut File) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(0)).map(|_| ())
}

/// A format's two halves: `parse` is pure and runs on many lines at once;
/// `apply` sees the parsed records in file order and builds the session.
trait RecordSink: Send {
    type Rec: Send;
    /// Parses one line's text. An Err becomes a diagnostic for that line.
    fn parse(text: &str) -> Result<Self::Rec, String>;
    fn apply(&mut self, rec: Self::Rec, line: usize, offset: u64, len: usize);
    fn finish(self, diagnostics: Vec<Diagnostic>) -> Session;
}

/// Loads a session file, detecting its format unless one is given.
pub fn load(path: &Path, format: Option<Format>) -> Result<Session, LoadError> {
    load_with_progress(path, format, &AtomicU64::new(0))
}

/// As [`load`], storing the bytes read so far in `progress` (for a progress bar).
pub fn load_with_progress(
    path: &Path,
    format: Option<Format>,
    progress: &AtomicU64,
) -> Result<Session, LoadError> {
    load_session(path, format, None, progress)
}

/// As [`load_with_progress`], choosing session `session` of a file that holds
/// several (an OpenCode database: `--session ID`, SPEC §15.14).
pub fn load_session(
    path: &Path,
    format: Option<Format>,
    session: Option<&str>,
    progress: &AtomicU64,
) -> Result<Session, LoadError> {
    let io = |source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = open_session(path)?;
    let format = match format {
        Some(f) => f,
        None => detect(path, &mut file).map_err(io)??,
    };
    rewind(&mut file).map_err(io)?;
    format::of(format).load(path, file, session, progress)
}

/// The file a session path names: itself, or, for a folder a loader reads
/// as one session (a Cline task folder, SPEC §18.4), that folder's file.
pub fn session_file(path: &Path) -> std::borrow::Cow<'_, Path> {
    match path
        .is_dir()
        .then(|| format::folder_session(path))
        .flatten()
    {
        Some(file) => std::borrow::Cow::Owned(file),
        None => std::borrow::Cow::Borrowed(path),
    }
}

/// The format of the file at `path` as detection sees it (None: unreadable or
/// unknown).
pub fn sniff(path: &Path) -> Option<Format> {
    let mut file = open_session(path).ok()?;
    detect(path, &mut file).ok()?.ok()
}

/// How much of an existing file the writer reads to tell whether it is a
/// transcript: more than the loader's 1 MiB head, since a Claude Code file can
/// open with snapshot records or a pasted image longer than that.
const WRITER_HEAD: u64 = 64 << 20;

/// The harness transcript format of the existing regular file at `path`
/// (None: nothing claims it, or a format mcscope writes itself): what the
/// writer refuses to replace. An error, in words, where it cannot tell: the
/// file cannot be read, or it is JSON whose first line runs past 64 MB.
pub fn transcript_format(path: &Path) -> Result<Option<Format>, String> {
    let file = regular::open_regular(path)
        .map_err(|e| format!("it cannot be read to tell whether it is a transcript ({e})"))?;
    let mut head = Vec::new();
    file.take(WRITER_HEAD)
        .read_to_end(&mut head)
        .map_err(|e| format!("it cannot be read to tell whether it is a transcript ({e})"))?;
    let first = head.iter().find(|b| !b.is_ascii_whitespace());
    if head.len() as u64 == WRITER_HEAD
        && first == Some(&b'{')
        && memchr::memchr(b'\n', &head).is_none()
    {
        return Err(
            "its first line is a JSON record longer than 64 MB: it may be a transcript".into(),
        );
    }
    Ok(format::transcript(path, &head))
}

/// One session of a database, as its picker row shows it.
pub use opencode::SessionInfo as DbSession;

/// The sessions of the database at `path`, newest first.
pub fn database_sessions(path: &Path) -> Result<Vec<DbSession>, LoadError> {
    opencode::db_sessions(path)
}

/// Whether files of `format` hold several sessions (a database: `--session ID`
/// chooses one).
pub fn holds_sessions(format: Format) -> bool {
    format::of(format).holds_sessions()
}

/// Loads one inline sub-agent thread of a Claude Code file: only `lines` (1-based,
/// as [`crate::scan::Thread::lines`] lists them) are read, so its sidechain
/// records are planned as a what-if (SPEC §2) and the main thread is not read.
pub fn load_thread(
    path: &Path,
    lines: std::collections::HashSet<usize>,
    progress: &AtomicU64,
) -> Result<Session, LoadError> {
    let file = open_session(path)?;
    format::load_thread(path, file, lines, progress).map(normalize::normalize)
}

/// Bytes read per batch: lines are split sequentially (memchr) and parsed in
/// parallel. Two batches are in flight (one parsed while the one before is
/// applied and the next read): at 8 MiB they and their parsed lines were a
/// fifth of a 16,000-request session's peak (BENCHMARKS.md, growth and memory
/// by format: 81-98 MB at 8 MiB, 65-84 MB at 2 MiB); 1 MiB saves little more.
const BATCH: usize = 2 << 20;

/// Reads JSONL in batches of whole lines (a line longer than a batch grows it),
/// parses each batch's lines in parallel and applies them in file order.
fn stream<S: RecordSink>(
    path: &Path,
    mut file: File,
    sink: S,
    progress: &AtomicU64,
) -> Result<Session, LoadError> {
    let mut r = Reader::new(sink);
    r.read(&mut file, true, progress)
        .map_err(|source| LoadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(r.sink.finish(r.diagnostics))
}

/// The state of a JSONL read: where it is, and what it has built so far.
#[derive(Clone)]
struct Reader<S> {
    sink: S,
    diagnostics: Vec<Diagnostic>,
    /// Bytes consumed (whole lines only).
    offset: u64,
    line: usize,
}

impl<S: RecordSink> Reader<S> {
    fn new(sink: S) -> Self {
        Reader {
            sink,
            diagnostics: Vec::new(),
            offset: 0,
            line: 0,
        }
    }

    /// Reads `file` from its current position to its end. With `final_read`, a last
    /// line without a newline is taken (and reported as truncated); otherwise it
    /// is held back until it is complete (a file still being written).
    ///
    /// A pipeline over batches of whole lines: while the pool splits and parses
    /// batch N, this reader applies batch N-1 (in file order) and reads batch N+1,
    /// so no core waits for the sequential half.
    fn read(
        &mut self,
        file: &mut (impl Read + Send),
        final_read: bool,
        progress: &AtomicU64,
    ) -> std::io::Result<()> {
        let mut buf: Vec<u8> = Vec::with_capacity(BATCH);
        // The batch before's buffer, reused for the next read: a new one for
        // every batch can be a fresh mapping of 2 MiB to fault in each time
        // (glibc maps blocks over its mmap threshold).
        let mut spare: Vec<u8> = Vec::new();
        let mut eof = false;
        let mut pending: Option<Parsed<S::Rec>> = None;
        // How much of a long line's buffer was searched for a NUL already.
        let mut nul_checked = 0;
        fill(file, &mut buf, &mut eof)?;
        while !buf.is_empty() {
            let end = match memchr::memrchr(b'\n', &buf) {
                Some(i) => i + 1,
                None if eof && final_read => buf.len(),
                None if eof => break, // a partial last line: wait for the rest
                None if memchr::memchr(0, &buf[nul_checked..]).is_some() => {
                    // One line longer than the buffer, with a NUL: it cannot
                    // parse, so it is skipped as it is read, not held.
                    if let Some(p) = pending.take() {
                        self.apply(p, progress);
                    }
                    match self.skip_nul_line(&buf, file, final_read, progress)? {
                        Some(rest) => {
                            buf = rest;
                            nul_checked = 0;
                            eof = false;
                            fill(file, &mut buf, &mut eof)?;
                            continue;
                        }
                        None => return Ok(()),
                    }
                }
                None => {
                    // One line longer than the buffer: read on.
                    nul_checked = buf.len();
                    fill(file, &mut buf, &mut eof)?;
                    continue;
                }
            };
            let mut next = std::mem::take(&mut spare);
            next.clear();
            next.reserve(BATCH.max(buf.len() - end + BATCH / 2));
            next.extend_from_slice(&buf[end..]);
            let (first_line, offset) = (self.line + 1, self.offset);
            let (parsed, filled) = rayon::join(
                || parse_batch::<S>(&buf[..end], first_line, offset),
                || {
                    if let Some(p) = pending.take() {
                        self.apply(p, progress);
                    }
                    fill(file, &mut next, &mut eof)
                },
            );
            self.line += parsed.lines.len();
            self.offset += end as u64;
            if let Err(e) = filled {
                // What was read is applied before the error goes up: the reader's
                // place (line, offset) always matches what it has applied.
                self.apply(parsed, progress);
                return Err(e);
            }
            pending = Some(parsed);
            spare = std::mem::replace(&mut buf, next);
            if spare.capacity() > 4 * BATCH {
                // A buffer grown for one long line is not kept for the rest
                // of the load.
                spare = Vec::new();
            }
            nul_checked = 0;
        }
        if let Some(p) = pending {
            self.apply(p, progress);
        }
        Ok(())
    }

    /// Skips the long line with a NUL that `head` begins (at the reader's
    /// place), reading on to its newline: one diagnostic with the NUL run's
    /// bytes. Returns what follows the line, or None when the file ended inside
    /// it (a last line still being written is held back when not `final_read`).
    fn skip_nul_line(
        &mut self,
        head: &[u8],
        file: &mut impl Read,
        final_read: bool,
        progress: &AtomicU64,
    ) -> std::io::Result<Option<Vec<u8>>> {
        let skipped = nulrun::skip_line(head, self.offset, file)?;
        if !skipped.complete && !final_read {
            return Ok(None);
        }
        let mut message = nulrun::message(skipped.run.0, skipped.run.1);
        if !skipped.complete {
            message.push_str("; truncated last line (no newline)");
        }
        self.line += 1;
        self.diagnostics.push(Diagnostic {
            line: self.line,
            byte_offset: self.offset,
            message,
        });
        self.offset += skipped.len;
        progress.store(self.offset, Ordering::Relaxed);
        Ok(skipped.complete.then_some(skipped.rest))
    }

    /// Applies a parsed batch in file order: records to the sink, damaged lines
    /// to the diagnostics.
    fn apply(&mut self, batch: Parsed<S::Rec>, progress: &AtomicU64) {
        for (l, p) in batch.lines {
            let note = |message| Diagnostic {
                line: l.line,
                byte_offset: l.offset,
                message,
            };
            match p {
                LineRead::Record(rec) => self.sink.apply(rec, l.line, l.offset, l.len),
                LineRead::Repaired(rec, message) => {
                    self.diagnostics.push(note(message));
                    self.sink.apply(rec, l.line, l.offset, l.len);
                }
                LineRead::Blank => {}
                LineRead::Damaged(message) => self.diagnostics.push(note(message)),
            }
        }
        progress.store(batch.end, Ordering::Relaxed);
    }
}

/// Where one line of a batch is: its number, offset and length without the line end.
struct LineAt {
    line: usize,
    offset: u64,
    len: usize,
}

/// What one line gave.
enum LineRead<R> {
    Blank,
    Record(R),
    /// A record read after its lone surrogate escapes were replaced (the note).
    Repaired(R, String),
    /// A damaged line: why it was skipped.
    Damaged(String),
}

/// A batch of lines, parsed, in file order; `end` is the offset after its last line.
struct Parsed<R> {
    lines: Vec<(LineAt, LineRead<R>)>,
    end: u64,
}

/// Splits a run of whole lines (memchr) and parses them in parallel.
fn parse_batch<S: RecordSink>(bytes: &[u8], first_line: usize, offset: u64) -> Parsed<S::Rec> {
    let mut spans = Vec::new();
    // A UTF-8 byte-order mark before the first line is no part of it: its first
    // record starts after it (and is read back from there).
    let mut at = if offset == 0 && bytes.starts_with(encoding::BOM) {
        encoding::BOM.len()
    } else {
        0
    };
    while at < bytes.len() {
        let stop = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1);
        spans.push((at, stop));
        at = stop;
    }
    // Each line's place goes with its record in one pass: a record is large
    // (its short texts are kept in place), and a second pass moved every one.
    let lines = spans
        .par_iter()
        .enumerate()
        .map(|(i, &(a, b))| {
            let at = LineAt {
                line: first_line + i,
                offset: offset + a as u64,
                len: trimmed_len(&bytes[a..b]),
            };
            (at, parse_line::<S>(&bytes[a..b], offset + a as u64))
        })
        .collect();
    Parsed {
        lines,
        end: offset + bytes.len() as u64,
    }
}

/// Reads on until `buf` holds a batch (half a batch more than it had, at least),
/// or the file ends.
fn fill(file: &mut impl Read, buf: &mut Vec<u8>, eof: &mut bool) -> std::io::Result<()> {
    let want = buf.len().max(BATCH / 2) + BATCH / 2;
    while !*eof && buf.len() < want {
        // read_to_end fills spare capacity without zeroing a whole batch first.
        let room = (want - buf.len()) as u64;
        *eof = Read::take(&mut *file, room).read_to_end(buf)? == 0;
    }
    Ok(())
}

/// The length of a line without its line end.
fn trimmed_len(bytes: &[u8]) -> usize {
    let mut n = bytes.len();
    while n > 0 && matches!(bytes[n - 1], b'\n' | b'\r') {
        n -= 1;
    }
    n
}

/// Checks a line (at file offset `offset`) and parses it.
fn parse_line<S: RecordSink>(bytes: &[u8], offset: u64) -> LineRead<S::Rec> {
    let complete = bytes.last() == Some(&b'\n');
    let body = &bytes[..trimmed_len(bytes)];
    if body.iter().all(u8::is_ascii_whitespace) {
        return LineRead::Blank;
    }
    // No line with a NUL byte parses (JSON allows none, in a string or out of
    // one), so the scan for it is made only for a line that failed.
    let nul = || {
        memchr::memchr(0, body).map(|at| {
            let run = body[at..].iter().take_while(|&&b| b == 0).count();
            let start = offset + at as u64;
            nulrun::message(start, start + run as u64)
        })
    };
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        return LineRead::Damaged(
            nul().unwrap_or_else(|| "line skipped: not a JSON object (every record is one)".into()),
        );
    }
    // simdutf8 checks the common, valid case several times faster than std;
    // std's error says where a bad line goes wrong.
    let valid = simdutf8::basic::from_utf8(body).ok();
    let text = match valid.map_or_else(|| std::str::from_utf8(body), Ok) {
        Ok(t) => t,
        Err(e) => {
            return LineRead::Damaged(nul().unwrap_or_else(|| {
                format!(
                    "line skipped: invalid UTF-8 at byte {} of the line",
                    e.valid_up_to()
                )
            }));
        }
    };
    let e = match S::parse(text) {
        Ok(rec) => return LineRead::Record(rec),
        Err(e) => e,
    };
    // Only a line that failed is looked at for lone surrogates (the fast path
    // stays one parse): repaired, it is read as Node and Python read it.
    if let Some((fixed, f)) = surrogate::repair(text)
        && let Ok(rec) = S::parse(&fixed)
    {
        return LineRead::Repaired(rec, surrogate_note(f));
    }
    LineRead::Damaged(nul().unwrap_or_else(|| {
        if complete {
            format!("line skipped: {e}")
        } else {
            format!("line skipped: truncated last line (no newline; still being written?): {e}")
        }
    }))
}

/// The diagnostic of a record kept after its lone surrogates were replaced.
pub(crate) fn surrogate_note(f: surrogate::Fixed) -> String {
    format!(
        "{} lone surrogate escape(s) replaced by U+FFFD (the first at byte {} of the line), as JavaScript and Python read them; the record is kept",
        f.count, f.first
    )
}

/// A parser error in words about the line (serde's "line 1" means the record).
pub(crate) fn json_error(e: serde_json::Error) -> String {
    json_error_text(&e)
}

pub(crate) fn json_error_text(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let msg = text
        .rfind(" at line ")
        .map_or(text.as_str(), |i| &text[..i]);
    if msg == "trailing characters" {
        format!(
            "two records glued on one line (more JSON after column {})",
            e.column()
        )
    } else if e.is_eof() {
        format!("the record ends early at column {} (cut off)", e.column())
    } else {
        format!("invalid JSON at column {}: {msg}", e.column())
    }
}

/// Detects the format from the first MiB: the loaders are asked in their
/// order of precedence (see [`format::sniff`]); an empty or summary-only file
/// is an empty Claude session (SPEC §1).
fn detect(path: &Path, file: &mut File) -> std::io::Result<Result<Format, LoadError>> {
    let mut head = Vec::new();
    file.take(1 << 20).read_to_end(&mut head)?;
    Ok(format::sniff(path, &head))
}

/// Re-reads the bytes of one record for the wire builder, its lone surrogate
/// escapes replaced as when it was loaded (the same length: see `surrogate`).
pub fn read_span(file: &File, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0; len];
    file.read_exact_at(&mut buf, offset)?;
    if surrogate::may_hold_surrogates(&buf) {
        surrogate::repair_in_place(&mut buf);
    }
    Ok(buf)
}

/// The session files in a directory (recursively one level into sub-folders), newest first.
pub fn list_sessions(dir: &Path) -> std::io::Result<Vec<(PathBuf, u64, std::time::SystemTime)>> {
    list_folder(dir).map(|l| l.sessions)
}

/// A folder's session files, and the `*.jsonl` names that are no regular file.
#[derive(Debug, Default)]
pub struct Listing {
    /// (path, size, modified), newest first.
    pub sessions: Vec<(PathBuf, u64, std::time::SystemTime)>,
    /// FIFOs, sockets, devices (or symlinks to one) named like a session: never
    /// opened, only counted (a FIFO would block the read for ever).
    pub not_regular: Vec<PathBuf>,
}

/// As [`list_sessions`], with the names skipped because they are no regular file.
pub fn list_folder(dir: &Path) -> std::io::Result<Listing> {
    let mut out = Listing::default();
    let mut stack = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let entry = entry?;
            let p = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth < 3 {
                    stack.push((p, depth + 1));
                }
                continue;
            }
            // The names a format's sessions are kept under (`*.jsonl`,
            // Gemini CLI's legacy `chats/session-*.json`).
            if !format::listed(&p) {
                continue;
            }
            // What a symlink names (a link to a session is one; to /dev/zero not).
            let Ok(meta) = std::fs::metadata(&p) else {
                continue;
            };
            if meta.is_file() {
                let mtime = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
                out.sessions.push((p, meta.len(), mtime));
            } else if !meta.is_dir() {
                out.not_regular.push(p);
            }
        }
    }
    out.sessions
        .sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    out.not_regular.sort();
    Ok(out)
}

/// The sidecar of a session, where its settings may be kept:
/// `claude-demo.jsonl` → `claude-demo.mcscope.json`.
pub fn sidecar_path(session: &Path) -> PathBuf {
    let stem = session
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let stem = stem
        .strip_suffix(".jsonl")
        .or_else(|| stem.strip_suffix(".json"))
        .unwrap_or(&stem)
        .to_string();
    session.with_file_name(format!("{stem}.mcscope.json"))
}

#[cfg(test)]
pub(crate) mod tests;
