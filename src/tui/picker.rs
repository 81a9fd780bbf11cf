//! The session list (a folder, or the harness folders): its state and its keys.
//!
//! Files are listed at once from their metadata; a worker thread then summarises
//! them one by one (`crate::scan`, newest first) and sends each summary down a
//! channel that [`Picker::poll`] drains on every tick, so rows fill in while keys
//! keep working. The filter is fuzzy (`nucleo-matcher`), over what a row shows.

use super::keymap::Action;
use crate::scan::{self, Kind, Summary};
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::SystemTime;

mod entry;
use entry::ranked;
pub use entry::{Entry, SortKey};

/// A picker's title with how many `*.jsonl` names of its folders were left out
/// because they are no regular file (FIFOs, devices: never opened).
pub fn with_skipped(title: String, not_regular: usize) -> String {
    match not_regular {
        0 => title,
        1 => format!("{title} (1 not a regular file, skipped)"),
        n => format!("{title} ({n} not regular files, skipped)"),
    }
}

/// A row on screen: a file, or an inline sub-agent thread under its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    File(usize),
    /// Entry, index into its summary's threads.
    Thread(usize, usize),
}

/// What Enter asks the caller to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub path: PathBuf,
    /// An inline sub-agent thread: its number and its lines in the file.
    pub thread: Option<(usize, Vec<usize>)>,
    /// A session of a database: its id (`--session ID`).
    pub session: Option<String>,
}

/// What a key did that the app must carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Quit,
    Open(Target),
}

/// A test's hold on the background scan: the worker waits before file `n` while
/// the limit is `n` or less, until [`Gate::release`].
#[derive(Debug, Clone, Default)]
pub struct Gate(Arc<(Mutex<Option<usize>>, Condvar)>);

impl Gate {
    /// A gate that lets the first `n` files through, then holds the worker.
    pub fn pause_after(n: usize) -> Gate {
        Gate(Arc::new((Mutex::new(Some(n)), Condvar::new())))
    }

    /// Lets the worker go on to the end.
    pub fn release(&self) {
        let (m, c) = &*self.0;
        *m.lock().unwrap_or_else(|e| e.into_inner()) = None;
        c.notify_all();
    }

    fn wait_before(&self, file: usize) {
        let (m, c) = &*self.0;
        let mut limit = m.lock().unwrap_or_else(|e| e.into_inner());
        while limit.is_some_and(|n| file >= n) {
            limit = c.wait(limit).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The worker's end of the list: summaries as they come, and a stop flag the
/// worker checks before each file (set when the picker goes away).
struct Scanner {
    rx: Receiver<(usize, Summary)>,
    stop: Arc<AtomicBool>,
    gate: Gate,
}

impl Drop for Scanner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.gate.release();
    }
}

pub struct Picker {
    pub title: String,
    pub entries: Vec<Entry>,
    /// What is shown, in order (filtered and sorted).
    pub rows: Vec<Row>,
    /// Index into `rows`.
    pub selected: usize,
    pub filter: String,
    /// The filter line has the keys (after `/`).
    pub typing: bool,
    pub sort: SortKey,
    pub reverse: bool,
    /// The help panel, at this scroll.
    pub help: Option<usize>,
    /// Files summarised so far.
    pub scanned: usize,
    /// The worker stopped before the last file.
    pub stopped: bool,
    /// The user moved the selection: it follows its row as rows arrive and move
    /// (until then it stays on the first row).
    follow: bool,
    scanner: Option<Scanner>,
    haystacks: Vec<String>,
    matcher: Matcher,
    /// Each file's session, for a sub-agent file listed under it.
    parents: Vec<Option<usize>>,
    index: std::collections::HashMap<PathBuf, usize>,
}

impl std::fmt::Debug for Picker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Picker")
            .field("title", &self.title)
            .field("entries", &self.entries.len())
            .field("rows", &self.rows.len())
            .field("selected", &self.selected)
            .field("filter", &self.filter)
            .finish()
    }
}

impl Picker {
    /// A list of `files` (path, size, modified), newest first, not yet summarised.
    pub fn new(title: String, files: Vec<(PathBuf, u64, SystemTime)>) -> Picker {
        let entries: Vec<Entry> = files
            .into_iter()
            .map(|(path, size, modified)| Entry {
                path,
                size,
                modified,
                summary: None,
                session: None,
            })
            .collect();
        let haystacks = entries.iter().map(Entry::haystack).collect();
        let mut p = Picker {
            title,
            entries,
            rows: Vec::new(),
            selected: 0,
            filter: String::new(),
            typing: false,
            sort: SortKey::Date,
            reverse: false,
            help: None,
            scanned: 0,
            stopped: false,
            follow: false,
            scanner: None,
            haystacks,
            matcher: Matcher::new(Config::DEFAULT),
            parents: Vec::new(),
            index: Default::default(),
        };
        p.index = p
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.path.clone(), i))
            .collect();
        p.parents = vec![None; p.entries.len()];
        for i in 0..p.entries.len() {
            p.link(i);
        }
        p.rebuild();
        p
    }

    /// The sessions of one database (`mcscope opencode.db`, SPEC §15.14), newest
    /// first: each row is a session, summarised from the database's own rows (no
    /// scan), a sub-agent session listed under its parent.
    pub fn of_database(
        title: String,
        path: &std::path::Path,
        format: crate::session::Format,
        sessions: &[crate::load::DbSession],
    ) -> Picker {
        let mut p = Picker::new(title, Vec::new());
        p.add_database(path, format, sessions);
        p
    }

    /// Adds the sessions of a database to the list (after the files the worker
    /// summarises, whose places stay).
    pub fn add_database(
        &mut self,
        path: &std::path::Path,
        format: crate::session::Format,
        sessions: &[crate::load::DbSession],
    ) {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let time = |ms: Option<i64>| {
            ms.and_then(|ms| u64::try_from(ms).ok())
                .map_or(std::time::UNIX_EPOCH, |ms| {
                    std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms)
                })
        };
        let first = self.entries.len();
        for s in sessions {
            let modified = time(s.time_updated);
            let e = Entry {
                path: path.to_path_buf(),
                size,
                modified,
                session: Some(s.id.clone()),
                summary: Some(Summary {
                    path: path.to_path_buf(),
                    size,
                    modified,
                    harness: format.harness(),
                    project: s.directory.clone().unwrap_or_default(),
                    prompt: Some(s.title.clone()).filter(|t| !t.is_empty()),
                    requests: s.requests,
                    results: s.tools,
                    kind: if s.parent_id.is_some() {
                        Kind::SubAgent
                    } else {
                        Kind::Session
                    },
                    threads: Vec::new(),
                    session_id: Some(s.id.clone()),
                    error: None,
                    note: None,
                }),
            };
            self.haystacks.push(e.haystack());
            self.entries.push(e);
            let parent = s
                .parent_id
                .as_deref()
                .and_then(|p| sessions.iter().position(|o| o.id == p))
                .map(|i| first + i);
            self.parents.push(parent);
        }
        self.scanned += sessions.len();
        self.rebuild();
    }

    /// As [`Picker::new`], summarising the files on a worker thread, newest first;
    /// `gate` lets a test hold the worker.
    pub fn scanning(title: String, files: Vec<(PathBuf, u64, SystemTime)>, gate: Gate) -> Picker {
        let mut p = Picker::new(title, files);
        let paths: Vec<PathBuf> = p.entries.iter().map(|e| e.path.clone()).collect();
        let (tx, rx) = std::sync::mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let worker_stop = stop.clone();
        let worker_gate = gate.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("{}picker-scan", super::background::BACKGROUND))
            .spawn(move || {
                for (i, path) in paths.iter().enumerate() {
                    worker_gate.wait_before(i);
                    if worker_stop.load(Ordering::Relaxed) {
                        return;
                    }
                    if tx.send((i, scan::scan(path))).is_err() {
                        return;
                    }
                }
            });
        if spawned.is_ok() {
            p.scanner = Some(Scanner { rx, stop, gate });
        }
        p
    }

    /// Takes the summaries the worker has sent; true when rows changed.
    pub fn poll(&mut self) -> bool {
        let Some(s) = &self.scanner else {
            return false;
        };
        let mut got = Vec::new();
        let finished = loop {
            match s.rx.try_recv() {
                Ok(x) => got.push(x),
                Err(TryRecvError::Empty) => break false,
                Err(TryRecvError::Disconnected) => break true,
            }
        };
        let changed = !got.is_empty();
        for (i, summary) in got {
            if let Some(e) = self.entries.get_mut(i) {
                e.summary = Some(summary);
                self.haystacks[i] = e.haystack();
                self.scanned += 1;
                self.link(i);
            }
        }
        if finished {
            self.scanner = None;
            // The worker ended before the last file (it panicked): say so.
            self.stopped = self.scanned < self.entries.len();
        }
        if changed {
            self.rebuild();
        }
        changed || finished
    }

    /// Whether the worker still has files to read.
    pub fn scanning_now(&self) -> bool {
        self.scanner.is_some() && self.scanned < self.entries.len()
    }

    /// The row's file and thread: what the selection follows across rebuilds.
    fn key(&self, r: Row) -> (usize, Option<usize>) {
        match r {
            Row::File(i) => (i, None),
            Row::Thread(i, t) => (i, Some(t)),
        }
    }

    /// Filters and sorts the rows again, keeping the selection on its row.
    fn rebuild(&mut self) {
        let keep = self
            .rows
            .get(self.selected)
            .filter(|_| self.follow)
            .map(|&r| self.key(r));
        let pattern = (!self.filter.trim().is_empty())
            .then(|| Pattern::parse(&self.filter, CaseMatching::Smart, Normalization::Smart));
        let mut buf = Vec::new();
        let n = self.entries.len();
        // Each file's own score, the threads it shows, and its best score with them
        // (every score Some(0) without a filter).
        let mut own: Vec<Option<u32>> = vec![Some(0); n];
        let mut threads: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut best: Vec<Option<u32>> = vec![Some(0); n];
        for (i, e) in self.entries.iter().enumerate() {
            let listed = e.summary.as_ref().map_or(&[][..], |s| &s.threads[..]);
            let Some(pattern) = &pattern else {
                threads[i] = (0..listed.len()).collect();
                continue;
            };
            own[i] = ranked(pattern, &self.haystacks[i], &mut buf, &mut self.matcher);
            best[i] = own[i];
            for (t, th) in listed.iter().enumerate() {
                let hay = format!(
                    "{} sub-agent thread {} {}",
                    self.haystacks[i],
                    th.n,
                    th.prompt.as_deref().unwrap_or("")
                );
                let score = ranked(pattern, &hay, &mut buf, &mut self.matcher);
                if score.is_some() || own[i].is_some() {
                    threads[i].push(t);
                }
                best[i] = best[i].max(score);
            }
        }
        // Sub-agent files under their session: all of them when the session
        // matches, else those that match (the session then shown for context).
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, p) in self.parents.iter().enumerate() {
            if let Some(p) = *p {
                children[p].push(i);
            }
        }
        let mut shown: Vec<(usize, u32, Vec<usize>)> = Vec::new();
        for i in 0..n {
            if self.parents[i].is_some() {
                continue;
            }
            let mut kids: Vec<usize> = children[i]
                .iter()
                .copied()
                .filter(|&c| own[i].is_some() || best[c].is_some())
                .collect();
            kids.sort_by(|&a, &b| {
                let (ea, eb) = (&self.entries[a], &self.entries[b]);
                eb.modified.cmp(&ea.modified).then(ea.path.cmp(&eb.path))
            });
            let top = kids.iter().map(|&c| best[c]).fold(best[i], Option::max);
            if let Some(top) = top {
                shown.push((i, top, kids));
            }
        }
        let entries = &self.entries;
        let (sort, reverse) = (self.sort, self.reverse);
        shown.sort_by(|a, b| {
            let (ea, eb) = (&entries[a.0], &entries[b.0]);
            let by_key = match sort {
                SortKey::Date => eb.modified.cmp(&ea.modified),
                SortKey::Size => eb.size.cmp(&ea.size),
                // Not yet counted: after the counted ones.
                SortKey::Requests => {
                    let r = |e: &Entry| e.summary.as_ref().map(|s| s.requests);
                    match (r(ea), r(eb)) {
                        (Some(x), Some(y)) => y.cmp(&x),
                        (Some(_), None) => std::cmp::Ordering::Less,
                        (None, Some(_)) => std::cmp::Ordering::Greater,
                        (None, None) => std::cmp::Ordering::Equal,
                    }
                }
            };
            let by_key = if reverse { by_key.reverse() } else { by_key };
            ea.blank()
                .cmp(&eb.blank())
                .then(b.1.cmp(&a.1))
                .then(by_key)
                .then(ea.path.cmp(&eb.path))
        });
        let mut rows = Vec::with_capacity(n);
        for (i, _, kids) in shown {
            for f in std::iter::once(i).chain(kids) {
                rows.push(Row::File(f));
                rows.extend(threads[f].iter().map(|&t| Row::Thread(f, t)));
            }
        }
        self.rows = rows;
        self.selected = keep
            .and_then(|k| self.rows.iter().position(|&r| self.key(r) == k))
            .unwrap_or(0)
            .min(self.rows.len().saturating_sub(1));
    }

    /// Links entry `i` to its session's entry, when its place or its records
    /// name one that is listed (and is no sub-agent file itself).
    fn link(&mut self, i: usize) {
        let e = &self.entries[i];
        let id = e.summary.as_ref().and_then(|s| s.session_id.as_deref());
        self.parents[i] = scan::parent_session(&e.path, id)
            .and_then(|p| self.index.get(&p).copied())
            .filter(|&p| p != i && !scan::is_subagent_path(&self.entries[p].path));
    }

    /// The session a sub-agent file is listed under, if any.
    pub fn parent_of(&self, i: usize) -> Option<usize> {
        self.parents.get(i).copied().flatten()
    }

    /// The first row shown when `height` rows fit (the selection stays on screen).
    pub fn top(&self, height: usize) -> usize {
        self.selected.saturating_sub(height.saturating_sub(1))
    }

    /// The selected row's file or thread.
    pub fn target(&self) -> Option<Target> {
        match *self.rows.get(self.selected)? {
            Row::File(i) => Some(Target {
                path: self.entries[i].path.clone(),
                thread: None,
                session: self.entries[i].session.clone(),
            }),
            Row::Thread(i, t) => {
                let e = &self.entries[i];
                let th = e.summary.as_ref()?.threads.get(t)?;
                Some(Target {
                    path: e.path.clone(),
                    thread: Some((th.n, th.lines.clone())),
                    session: None,
                })
            }
        }
    }

    fn set_filter(&mut self, f: String) {
        self.filter = f;
        self.follow = false;
        self.rebuild();
        // The best match first.
        self.selected = 0;
    }

    /// The one place the picker's state changes.
    pub fn update(&mut self, action: Action) -> Option<Outcome> {
        if let Some(scroll) = &mut self.help {
            match action {
                Action::Up => *scroll = scroll.saturating_sub(1),
                Action::Down => *scroll = (*scroll + 1).min(help_len()),
                Action::PageUp => *scroll = scroll.saturating_sub(10),
                Action::PageDown => *scroll = (*scroll + 10).min(help_len()),
                Action::Top => *scroll = 0,
                // Esc, q, ? and any other key close the help.
                _ => self.help = None,
            }
            return None;
        }
        let last = self.rows.len().saturating_sub(1);
        if matches!(
            action,
            Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Top
                | Action::Bottom
                | Action::FirstRequest
                | Action::LastRequest
        ) {
            self.follow = true;
        }
        match action {
            Action::Type(c) if self.typing => {
                let mut f = std::mem::take(&mut self.filter);
                f.push(c);
                self.set_filter(f);
            }
            Action::Erase if self.typing => {
                let mut f = std::mem::take(&mut self.filter);
                f.pop();
                self.set_filter(f);
            }
            Action::EraseLine if self.typing => self.set_filter(String::new()),
            // Enter opens the selection; the filter stays, its line closes.
            Action::Submit | Action::Open | Action::Explain => {
                self.typing = false;
                return self.target().map(Outcome::Open);
            }
            Action::Search => self.typing = true,
            Action::Back => {
                self.typing = false;
                if !self.filter.is_empty() {
                    self.set_filter(String::new());
                }
            }
            Action::CycleSort => {
                self.sort = self.sort.next();
                self.rebuild();
            }
            Action::ReverseSort => {
                self.reverse = !self.reverse;
                self.rebuild();
            }
            Action::Help => self.help = Some(0),
            Action::Quit => return Some(Outcome::Quit),
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Down => self.selected = (self.selected + 1).min(last),
            Action::PageUp => self.selected = self.selected.saturating_sub(10),
            Action::PageDown => self.selected = (self.selected + 10).min(last),
            Action::FirstRequest | Action::Top => self.selected = 0,
            Action::LastRequest | Action::Bottom => self.selected = last,
            _ => {}
        }
        None
    }

    /// A click on screen row `row` (the list starts at row 2, under the title and
    /// the column titles) of a list `height` rows high.
    pub fn click(&mut self, row: u16, height: usize) {
        let first = 2u16;
        if row < first || (row - first) as usize >= height {
            return;
        }
        let i = self.top(height) + (row - first) as usize;
        if i < self.rows.len() {
            self.selected = i;
            self.follow = true;
        }
    }
}

/// Lines of the picker's help: how far it can scroll.
fn help_len() -> usize {
    super::keymap::picker_help_lines().len()
}

#[cfg(test)]
mod tests;
