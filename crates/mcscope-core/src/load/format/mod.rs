//! One seam for every transcript format (issue 22, item 2): each
//! [`Format`] variant has one [`FormatLoader`], in a file of this folder, and
//! the rest of the crate asks the loader instead of matching on the format.
//!
//! A loader answers four questions: whether a file looks like it (`sniff_*`,
//! asked in the order of [`LOADERS`]), how a file becomes a [`Session`]
//! (`load`), whether and how a growing file is followed (`follow`), and what
//! the picker's light pass lists and counts (`listed`, `light_*`). Outside
//! this folder (and `src/session.rs`, where the enum lives) no source file names
//! a `Format` variant: `tests/seam.rs` counts them.

mod claude;
mod cline;
mod gemini;
mod messages;
mod opencode;
mod qwen;

pub(super) use claude::load_thread;

use super::LoadError;
use crate::session::{Format, Session};
use serde_json::{Map, Value};
use std::cell::OnceCell;
use std::fs::File;
use std::path::Path;
use std::sync::atomic::AtomicU64;

/// What one format's loader knows. Every method but `format` and `load` has a
/// default: the format does not claim the file, cannot be followed, and holds
/// one session.
pub trait FormatLoader: Sync {
    /// The variant this loader reads (what `session.format` prints).
    fn format(&self) -> Format;

    /// Sniff, first stage: the file's first bytes are this format's magic (a
    /// binary file: SQLite).
    fn sniff_magic(&self, _head: &[u8]) -> bool {
        false
    }

    /// Sniff, first stage too: the file's name and first bytes are this
    /// format's (a task folder's fixed file names, Cline's).
    fn sniff_name(&self, _path: &Path, _head: &[u8]) -> bool {
        false
    }

    /// The file that stands for a folder that is one session of this format
    /// (Cline's task folder: its `api_conversation_history.json`), if `dir`
    /// is one.
    fn folder_session(&self, _dir: &Path) -> Option<std::path::PathBuf> {
        None
    }

    /// A store of this harness's sessions in or beside folder `dir` that
    /// mcscope does not read, in one line (Cline 4.1+'s SDK store).
    fn unread_store(&self, _dir: &Path) -> Option<String> {
        None
    }

    /// Sniff, second stage: one JSON object line of the first 200 lines is a
    /// record of this format. Lines are read in file order; each line is
    /// offered to the loaders in the order of [`LOADERS`].
    fn sniff_record(&self, _record: &Map<String, Value>) -> bool {
        false
    }

    /// Whether a file of this format may be one mcscope wrote (a wire export
    /// is a Messages API body): the writer may then replace it; it never
    /// replaces a harness's transcript (SPEC §18.21).
    fn mcscope_writes(&self) -> bool {
        false
    }

    /// Sniff, last stage: the head as a whole (asked only when no line of it
    /// was a JSON object: a pretty-printed file).
    fn sniff_whole(&self, _head: &Head<'_>) -> bool {
        false
    }

    /// Reads the file (`file` is open at its start) into a session as the
    /// format records it; `session` chooses one of a file that holds several;
    /// `progress` is the bytes read so far, where the format streams.
    fn read(
        &self,
        path: &Path,
        file: File,
        session: Option<&str>,
        progress: &AtomicU64,
    ) -> Result<Session, LoadError>;

    /// [`FormatLoader::read`], then the one normalization every session gets
    /// (`load::normalize`: rank order, media cost, repeated paths), so that no
    /// caller of a loader gets a session the engine would read differently.
    fn load(
        &self,
        path: &Path,
        file: File,
        session: Option<&str>,
        progress: &AtomicU64,
    ) -> Result<Session, LoadError> {
        self.read(path, file, session, progress)
            .map(super::normalize::normalize)
    }

    /// The state of a follower of a growing file of this format, or why the
    /// format cannot be followed (the `unknown format` error's words).
    fn follow(&self, _path: &Path) -> Result<Box<dyn super::Tail>, &'static str> {
        Err("this format cannot be followed")
    }

    /// A file of this format holds several sessions (a database: `--session
    /// ID` chooses one, and the picker lists its rows).
    fn holds_sessions(&self) -> bool {
        false
    }

    /// The picker and `compare` list the file at `path`, found in a folder, as
    /// a session of this format.
    fn listed(&self, _path: &Path) -> bool {
        false
    }

    /// The picker's light pass reads the file at `path` as one whole record,
    /// not as lines: [`FormatLoader::light_lines`] then says what it counts.
    fn light_whole(&self, _path: &Path) -> bool {
        false
    }

    /// A whole record (the first bytes of a file the light pass reads whole)
    /// as the lines the light pass counts; None: not this format's record.
    fn light_lines(&self, _bytes: &[u8]) -> Option<Vec<String>> {
        None
    }

    /// The light pass's verdict: what it saw makes the file this format's.
    fn light_claims(&self, _seen: &LightSeen, _path: &Path) -> bool {
        false
    }

    /// The light pass meets `record`: a format whose records are not
    /// Claude-shaped (Gemini CLI's) claims the file by it and counts this
    /// line and every later one its own way, with the counter it returns.
    /// None: the record is for the shared count of Claude-shaped records
    /// (Claude Code's, Qwen Code's), as the loaders' shared `Builder` reads
    /// them.
    fn light_counter(&self, _record: &LightRecord<'_>) -> Option<Box<dyn LightCounter>> {
        None
    }

    /// The project of a file of this format, from where it is kept (None:
    /// the records' `cwd` or the folder name, as the picker reads them).
    fn light_project(&self, _path: &Path) -> Option<String> {
        None
    }

    /// A file of this format whose path marks a sub-agent transcript is one
    /// (`agent-*.jsonl`, a `subagents` folder).
    fn subagent_by_path(&self) -> bool {
        true
    }

    /// A session of this format has sub-agent transcripts in files beside it.
    fn subagent_files(&self) -> bool {
        false
    }

    /// The file's records are read again for the idle facts of a return
    /// (SPEC §13.S1): only a format whose records carry them.
    fn return_facts(&self) -> bool {
        false
    }
}

/// Every loader, in the order detection asks them (the order of precedence
/// of the sniff: a database's magic, Gemini CLI's header, OpenCode's session
/// info, an OpenCode export, a Messages API body, Qwen's `message.parts`, then Claude Code, which
/// takes anything else).
pub static LOADERS: [&dyn FormatLoader; 9] = [
    &opencode::OpencodeDb,
    &cline::ClineTask,
    &gemini::GeminiJsonl,
    &gemini::GeminiJson,
    &opencode::OpencodeJson,
    &opencode::OpencodeExport,
    &messages::MessagesJson,
    &qwen::QwenJsonl,
    &claude::ClaudeJsonl,
];

/// The format of a file with nothing to tell it by (blank, or no record any
/// loader claims): an empty Claude session (SPEC §1).
static FALLBACK: &dyn FormatLoader = &claude::ClaudeJsonl;

/// The loader of `format`.
pub fn of(format: Format) -> &'static dyn FormatLoader {
    LOADERS
        .iter()
        .copied()
        .find(|l| l.format() == format)
        .unwrap_or(FALLBACK)
}

/// The first bytes of a file as the last sniff stage sees them: the bytes,
/// the path, and the bytes parsed as one JSON value (once, when first asked).
pub struct Head<'a> {
    pub bytes: &'a [u8],
    pub path: &'a Path,
    whole: OnceCell<Option<Value>>,
}

impl Head<'_> {
    /// The head parsed as one JSON value (None: it is not one).
    pub fn whole(&self) -> Option<&Value> {
        self.whole
            .get_or_init(|| serde_json::from_slice::<Value>(self.bytes).ok())
            .as_ref()
    }
}

/// Detects the format from a file's first bytes (at most 1 MiB, a BOM
/// stripped after the magic is looked at): the loaders are asked stage by
/// stage in the order of [`LOADERS`].
pub fn sniff(path: &Path, head: &[u8]) -> Result<Format, LoadError> {
    Ok(claim(path, head)?.unwrap_or(FALLBACK.format()))
}

/// The format a loader claims the file by (its magic, one of its records, or
/// its whole head): None where nothing claims it and [`sniff`] falls back to
/// an empty Claude session. The writer refuses to replace a claimed file
/// (SPEC §18.21).
fn claim(path: &Path, head: &[u8]) -> Result<Option<Format>, LoadError> {
    if let Some(l) = LOADERS
        .iter()
        .find(|l| l.sniff_magic(head) || l.sniff_name(path, head))
    {
        return Ok(Some(l.format()));
    }
    let head = super::encoding::strip_bom(head);
    // Damaged lines (NUL runs, cut-off records) are diagnostics later, not a reason
    // to refuse the file: only a head without a single `{`-line is not JSON at all.
    let looks_json = head.split(|&b| b == b'\n').any(|l| {
        l.iter()
            .find(|b| !b.is_ascii_whitespace() && **b != 0)
            .is_some_and(|&b| b == b'{')
    });
    if head.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    if !looks_json {
        return Err(LoadError::UnknownFormat {
            path: path.to_path_buf(),
            why: format!(
                "expected a {} session, or a Messages API body (JSON)",
                crate::harness::titles()
            ),
        });
    }
    let mut saw_object = false;
    for line in head.split(|&b| b == b'\n').take(200) {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let Some(obj) = v.as_object() else { continue };
        saw_object = true;
        if let Some(l) = LOADERS.iter().find(|l| l.sniff_record(obj)) {
            return Ok(Some(l.format()));
        }
    }
    if !saw_object {
        let head = Head {
            bytes: head,
            path,
            whole: OnceCell::new(),
        };
        if let Some(l) = LOADERS.iter().find(|l| l.sniff_whole(&head)) {
            return Ok(Some(l.format()));
        }
    }
    Ok(None)
}

/// The harness transcript format a loader claims `head` by (None: nothing
/// claims it, or it is a format mcscope itself writes): what the writer
/// refuses to replace.
pub fn transcript(path: &Path, head: &[u8]) -> Option<Format> {
    claim(path, head)
        .ok()
        .flatten()
        .filter(|f| !of(*f).mcscope_writes())
}

/// The file that stands for `dir` where a loader reads the folder as one
/// session (a Cline task folder).
pub fn folder_session(dir: &Path) -> Option<std::path::PathBuf> {
    LOADERS.iter().find_map(|l| l.folder_session(dir))
}

/// What the stores in or beside the folders `dirs` that mcscope does not read
/// are, one line each (said where a folder is listed, exit 0).
pub fn unread_stores(dirs: &[std::path::PathBuf]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for d in dirs {
        for l in LOADERS.iter() {
            if let Some(line) = l.unread_store(d)
                && !out.contains(&line)
            {
                out.push(line);
            }
        }
    }
    out
}

/// Whether `path` is the file that stands for its folder (a Cline task's
/// history): `compare` and `bill` list it beside `*.jsonl` files.
pub fn stands_for_folder(path: &Path) -> bool {
    // By name first (no file system call for a folder's other files).
    LOADERS.iter().any(|l| l.listed(path))
        && path
            .parent()
            .and_then(folder_session)
            .is_some_and(|f| f == path)
}

/// Whether the picker and `compare` list the file at `path` found in a folder.
pub fn listed(path: &Path) -> bool {
    LOADERS.iter().any(|l| l.listed(path))
}

/// The loader whose whole record the light pass reads the file at `path` as.
pub fn light_whole(path: &Path) -> Option<&'static dyn FormatLoader> {
    LOADERS.iter().copied().find(|l| l.light_whole(path))
}

/// What the picker's light pass saw of a file's records, for the loaders to
/// say whose file it is.
#[derive(Debug, Clone, Copy, Default)]
pub struct LightSeen {
    /// The format whose own counter counted the lines (see
    /// [`FormatLoader::light_counter`]), if one claimed a record.
    pub counted_by: Option<Format>,
    /// A `message` with `parts` (Qwen Code's records).
    pub message_parts: bool,
    /// A user or assistant message was seen (the main thread is known).
    pub messages: bool,
}

/// The first loader whose own counter claims `record` (see
/// [`FormatLoader::light_counter`]), with that counter.
pub fn light_counter(record: &LightRecord<'_>) -> Option<(Format, Box<dyn LightCounter>)> {
    LOADERS
        .iter()
        .find_map(|l| Some((l.format(), l.light_counter(record)?)))
}

type Raw<'a> = crate::load::raw::Raw<'a>;

/// One line of a file as the picker's light pass parsed it: the fields a
/// format's own counter reads, unparsed (a field the line lacks is None).
#[derive(Debug, Clone, Copy, Default)]
pub struct LightRecord<'a> {
    /// `type`.
    pub kind: &'a str,
    pub id: Raw<'a>,
    pub model: Raw<'a>,
    /// The top-level `content` (not `message.content`).
    pub content: Raw<'a>,
    /// `toolCalls`.
    pub tool_calls: Raw<'a>,
    /// A header's `projectHash` and `kind`.
    pub project_hash: Raw<'a>,
    pub header_kind: Raw<'a>,
    /// `$set` and `$rewindTo`.
    pub set: Raw<'a>,
    pub rewind_to: Raw<'a>,
}

/// A format's own count of the light pass's lines, from the record that
/// claimed the file on (see [`FormatLoader::light_counter`]).
pub trait LightCounter {
    /// Counts one line into `main`, the file's main thread.
    fn record(&mut self, record: &LightRecord<'_>, main: &mut dyn LightTally);

    /// The records say the file is a sub-agent's.
    fn subagent(&self) -> bool;
}

/// The main thread's counts, as a format's own counter adds to them.
pub trait LightTally {
    /// A user or assistant message was seen: the main thread is known.
    fn message(&mut self);
    /// A response: one more request.
    fn response(&mut self);
    /// A tool result a response carries.
    fn result(&mut self);
    /// A user message with `results` tool results and, where a person may
    /// have typed it, its text (the picker's prompt, if it reads as one).
    fn user(&mut self, results: usize, text: Option<&str>);
}

/// The format the light pass counted the file as.
pub fn light_format(seen: &LightSeen, path: &Path) -> &'static dyn FormatLoader {
    LOADERS
        .iter()
        .copied()
        .find(|l| l.light_claims(seen, path))
        .unwrap_or(FALLBACK)
}

#[cfg(test)]
mod tests;
