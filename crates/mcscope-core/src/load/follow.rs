//! Following a session file as it grows: what changed since the last look, and
//! the new lines read (`mcscope --follow`, the TUI and the status line).

use super::*;

/// What a [`Follower`] found when it looked at the file again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Unchanged,
    /// New complete lines were read (how many).
    Grew(usize),
    /// The file got shorter, was replaced or was rewritten in place: it was
    /// read again from the start.
    Restarted(String),
    /// The file is gone: what was read is kept (said once; a file that comes
    /// back under the name is read from the start).
    Deleted,
}

/// A session file that may still be growing: `poll` reads only what was appended,
/// holds back a partial last line until it is complete, and starts over when the
/// file is truncated or replaced (rotated).
pub struct Follower {
    path: PathBuf,
    /// The reader as it was before the first read: a restart starts from a
    /// copy of it.
    start: Box<dyn Tail>,
    state: Box<dyn Tail>,
    identity: (u64, u64),
    /// What the file looked like at the last poll: a rewrite in place keeps
    /// the inode and may keep the size, so the bytes already read are checked.
    seen: Seen,
    /// The file was missing at the last poll (said once).
    gone: bool,
}

/// The last poll's view of the file: its length and mtime, and hashes of the
/// first line and of the last bytes read (both inside what was consumed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Seen {
    len: u64,
    mtime: Option<std::time::SystemTime>,
    head: u64,
    tail: u64,
}

/// The head hash covers the first line up to this many bytes, the tail hash
/// this many bytes before the offset: two small reads per poll.
pub(super) const HEAD_BYTES: u64 = 64 << 10;
pub(super) const TAIL_BYTES: u64 = 4 << 10;

/// A follower's reader of one format (a format that can be followed gives
/// one: [`format::FormatLoader::follow`]).
pub trait Tail: Send {
    /// Reads on from the reader's place to the end of `file` (a partial last
    /// line is held back).
    fn read(&mut self, file: &mut File, progress: &AtomicU64) -> std::io::Result<()>;
    /// Bytes consumed (whole lines only).
    fn offset(&self) -> u64;
    /// Lines consumed.
    fn lines(&self) -> usize;
    /// The session as read so far.
    fn session(&self) -> Session;
    /// A copy of this reader, in its state.
    fn boxed(&self) -> Box<dyn Tail>;
}

impl<S: RecordSink + Clone + 'static> Tail for Reader<S> {
    fn read(&mut self, file: &mut File, progress: &AtomicU64) -> std::io::Result<()> {
        Reader::read(self, file, false, progress)
    }

    fn offset(&self) -> u64 {
        self.offset
    }

    fn lines(&self) -> usize {
        self.line
    }

    fn session(&self) -> Session {
        self.sink.clone().finish(self.diagnostics.clone())
    }

    fn boxed(&self) -> Box<dyn Tail> {
        Box::new(self.clone())
    }
}

impl Follower {
    /// Opens a JSONL session for following (messages-json bodies do not grow).
    pub fn open(path: &Path, format: Option<Format>) -> Result<Follower, LoadError> {
        let io = |source| LoadError::Io {
            path: path.to_path_buf(),
            source,
        };
        // Only a regular file, never waiting to open (a FIFO would block).
        let mut file = super::regular::open_regular_io(path).map_err(io)?;
        let format = match format {
            Some(f) => f,
            None => detect(path, &mut file).map_err(io)??,
        };
        let start = format::of(format)
            .follow(path)
            .map_err(|why| LoadError::UnknownFormat {
                path: path.to_path_buf(),
                why: why.into(),
            })?;
        let mut f = Follower {
            path: path.to_path_buf(),
            state: start.boxed(),
            start,
            identity: (0, 0),
            seen: Seen::default(),
            gone: false,
        };
        match f.poll().map_err(io)? {
            Change::Deleted => Err(io(std::io::ErrorKind::NotFound.into())),
            _ => Ok(f),
        }
    }

    /// Reads what was appended since the last poll.
    pub fn poll(&mut self) -> std::io::Result<Change> {
        use std::io::{Seek, SeekFrom};
        use std::os::unix::fs::MetadataExt;
        // Only while it is still a regular file (a FIFO put in its place would
        // block the poll for ever).
        let mut file = match super::regular::open_regular_io(&self.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(if std::mem::replace(&mut self.gone, true) {
                    Change::Unchanged
                } else {
                    Change::Deleted
                });
            }
            r => r?,
        };
        self.gone = false;
        let meta = file.metadata()?;
        let identity = (meta.dev(), meta.ino());
        let offset = self.offset();
        let mut change = Change::Unchanged;
        let known = self.identity != (0, 0);
        let replaced = known && identity != self.identity;
        let shorter = meta.len() < offset;
        // Same inode, not shorter: the bytes already read must still be there.
        // A same-size change with a new mtime is a rewrite too (an append
        // always grows the file).
        let rewritten = known
            && !replaced
            && !shorter
            && (seen(&file, &meta, offset)?.marks() != self.seen.marks()
                || (meta.modified().ok() != self.seen.mtime && meta.len() == self.seen.len));
        if replaced || shorter || rewritten {
            let why = if replaced {
                "the file was replaced (rotated): reading it again from the start"
            } else if shorter {
                "the file got shorter (truncated): reading it again from the start"
            } else {
                "the file was rewritten in place: reading it again from the start"
            };
            *self = Follower {
                path: self.path.clone(),
                state: self.start.boxed(),
                start: self.start.boxed(),
                identity,
                seen: Seen::default(),
                gone: false,
            };
            change = Change::Restarted(why.into());
        } else if meta.len() == offset {
            self.identity = identity;
            self.seen = seen(&file, &meta, offset)?;
            return Ok(Change::Unchanged);
        }
        self.identity = identity;
        file.seek(SeekFrom::Start(self.offset()))?;
        let before = self.lines();
        let progress = AtomicU64::new(0);
        self.state.read(&mut file, &progress)?;
        // The length and mtime as of the read (a write since then is seen at
        // the next poll, as growth or as a change).
        self.seen = seen(&file, &meta, self.offset())?;
        let grew = self.lines() - before;
        if change == Change::Unchanged && grew > 0 {
            change = Change::Grew(grew);
        }
        Ok(change)
    }

    fn offset(&self) -> u64 {
        self.state.offset()
    }

    fn lines(&self) -> usize {
        self.state.lines()
    }

    /// The session as read so far (the held-back partial line not included).
    pub fn session(&self) -> Session {
        normalize::normalize(self.state.session())
    }
}

/// What a follower checks at its next poll: `meta`'s length and mtime, and
/// the hashes of the first line and of the bytes just before `offset`.
pub(super) fn seen(file: &File, meta: &std::fs::Metadata, offset: u64) -> std::io::Result<Seen> {
    let (head, tail) = content_marks(file, offset)?;
    Ok(Seen {
        len: meta.len(),
        mtime: meta.modified().ok(),
        head,
        tail,
    })
}

/// What the first `offset` bytes of a file hash to, in two halves: its first
/// line (within the bytes read and the first 64 KiB) and the 4 KiB before
/// `offset`. A file rewritten in place shows in either; both the follower and
/// the status line's cache compare them before reading on from `offset`.
pub fn content_marks(file: &File, offset: u64) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::FileExt;
    let read = |at: u64, n: u64| -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0; usize::try_from(n).unwrap_or(0)];
        let mut got = 0;
        while got < buf.len() {
            match file.read_at(&mut buf[got..], at + got as u64)? {
                0 => break,
                k => got += k,
            }
        }
        buf.truncate(got);
        Ok(buf)
    };
    let mut head = read(0, offset.min(HEAD_BYTES))?;
    if let Some(end) = memchr::memchr(b'\n', &head) {
        head.truncate(end + 1);
    }
    let tail_at = offset.saturating_sub(TAIL_BYTES);
    let tail = read(tail_at, offset - tail_at)?;
    Ok((fnv1a(&head), fnv1a(&tail)))
}

impl Seen {
    /// The content half: what the bytes already read hash to.
    fn marks(&self) -> (u64, u64) {
        (self.head, self.tail)
    }
}

/// FNV-1a, 64 bits: a few KiB per poll, not worth a dependency.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
