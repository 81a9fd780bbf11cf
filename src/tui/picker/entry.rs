//! One file of the picker's list, how the filter ranks it, and the orders the
//! list sorts by.

use super::*;

/// One file of the list, with its summary once the worker has read it.
#[derive(Debug, Clone)]
pub struct Entry {
    pub path: PathBuf,
    pub size: u64,
    pub modified: SystemTime,
    pub summary: Option<Summary>,
    /// A session of a database (OpenCode's `opencode.db`): its id.
    pub session: Option<String>,
}

impl Entry {
    /// What the file is, as far as known: a 0-byte file is empty before any scan.
    pub fn kind(&self) -> Option<Kind> {
        match &self.summary {
            Some(s) => Some(s.kind),
            None if self.size == 0 && !scan::is_subagent_path(&self.path) => Some(Kind::Empty),
            None if scan::is_subagent_path(&self.path) => Some(Kind::SubAgent),
            None => None,
        }
    }

    pub(super) fn blank(&self) -> bool {
        self.kind().is_some_and(Kind::is_blank)
    }

    /// The project as far as known: the records' cwd once scanned, else the folder.
    pub fn project(&self) -> String {
        match &self.summary {
            Some(s) => s.project.clone(),
            None => scan::project_dir(&self.path)
                .map(scan::decode_project)
                .unwrap_or_default(),
        }
    }

    /// The text the filter matches: what the row shows, and the file's name.
    pub(super) fn haystack(&self) -> String {
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match &self.summary {
            Some(s) => format!(
                "{} {} {} {} {}",
                s.harness.name(),
                s.project,
                s.prompt.as_deref().unwrap_or(""),
                s.kind.mark(),
                name
            ),
            None => format!("{} {name}", self.project()),
        }
    }
}

/// The filter's score of a row. Each word of the filter must be in the row as a
/// run of letters (`parser`, case and accents folded as nucleo folds them) or as
/// the starts of words in order (`gc` for "Gemini CLI"); the row is then ranked
/// by nucleo's fuzzy score, which puts word starts and contiguous runs first. A
/// word found only as letters strewn over a long row — `gemini` in "generate a
/// minimal index" — does not match: `gemini` matched 170 of 290 real sessions
/// when any subsequence did. A `!word` only has to be absent.
pub(super) fn ranked(
    pattern: &Pattern,
    hay: &str,
    buf: &mut Vec<char>,
    matcher: &mut Matcher,
) -> Option<u32> {
    let mut total = 0;
    for atom in &pattern.atoms {
        let score = atom.score(Utf32Str::new(hay, buf), matcher)?;
        if !atom.negative {
            // `score` set the matcher's case folding for this word.
            let run = matcher
                .substring_match(Utf32Str::new(hay, buf), atom.needle_text())
                .is_some();
            if !run && !word_starts(hay, &atom.needle_text().to_string()) {
                return None;
            }
        }
        total += u32::from(score);
    }
    Some(total)
}

/// Whether the letters of `needle` are, in order, the first letters of words of
/// `hay` (a word starts after a non-alphanumeric character or at a lower-to-upper
/// case change, as in `camelCase`).
pub(super) fn word_starts(hay: &str, needle: &str) -> bool {
    let mut want = needle.chars().flat_map(char::to_lowercase).peekable();
    let mut prev: Option<char> = None;
    for c in hay.chars() {
        let start = match prev {
            None => c.is_alphanumeric(),
            Some(p) => {
                c.is_alphanumeric()
                    && (!p.is_alphanumeric() || (p.is_lowercase() && c.is_uppercase()))
            }
        };
        prev = Some(c);
        if start
            && want
                .peek()
                .is_some_and(|&w| c.to_lowercase().eq(std::iter::once(w)))
        {
            want.next();
        }
    }
    want.peek().is_none()
}

/// What the list is sorted by (`s` cycles; blank files stay last whatever the key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Date,
    Size,
    Requests,
}

impl SortKey {
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Date => "date",
            SortKey::Size => "size",
            SortKey::Requests => "requests",
        }
    }

    pub(super) fn next(self) -> SortKey {
        match self {
            SortKey::Date => SortKey::Size,
            SortKey::Size => SortKey::Requests,
            SortKey::Requests => SortKey::Date,
        }
    }
}
