//! `cline` (SPEC §17.K.3, §18.2–§18.4): Cline's classic context manager,
//! `ContextManager.getNewContextMessagesAndMetadata` as `reference/cline.md`
//! §3 quotes it from v4.0.12 (`apps/vscode/src/core/context/
//! context-management/ContextManager.ts`).
//!
//! Before every request it reads the previous request's recorded total
//! (tokensIn + tokensOut + cacheWrites + cacheReads) against the limit of the
//! window (§3.1). Where the total reaches it: every copy of a file's content
//! but the latest, in the messages after the deleted range, is replaced by
//! the notice (§3.2); where that saves less than 30 % of the characters it
//! counts (or replaces nothing), the first assistant message gets the
//! truncation notice and the range [2, b] grows by half (a quarter kept when
//! the total is over twice the limit) of what follows it (§3.3). The notices
//! and the range last for the rest of the task.

use super::*;
use crate::load::cline::facts::{EditKind, Occurrence, TaskFacts};
use crate::policy::params::When;
use std::collections::HashMap;

/// What Cline's context manager holds across requests: its notices and its
/// range (stored for the rest of the task).
#[derive(Debug, Clone, Default)]
pub(crate) struct Memory {
    /// Per occurrence (`TaskFacts::occurrences`): the notice replaced it.
    replaced: Vec<bool>,
    /// Per (history message, block): its counted length once edited.
    edited: HashMap<(usize, usize), i64>,
    /// Per history message: the `EditType` of its first edit (0: the
    /// truncation notice).
    msg_edit: HashMap<usize, u64>,
    /// `conversationHistoryDeletedRange` (inclusive).
    range: Option<(usize, usize)>,
}

impl super::own_state::OwnState for Memory {
    const KIND: PlanKind = PlanKind::Cline;
}

/// Reference §3.2: the notices save at least this share of the counted
/// characters, or the history is truncated too.
const ENOUGH_SAVED: f64 = 0.3;

/// `total / 2 > maxAllowedSize` (reference §3.1: keep a quarter), with the
/// limit of window `w` as Cline computes it (a float for other windows).
fn over_twice(total: u64, w: u64, limit: u64) -> bool {
    match w {
        64_000 | 128_000 | 200_000 => total > 2 * limit,
        // max(W − 40,000, 0.8·W): over twice both.
        _ => total > 2 * w.saturating_sub(40_000) && 5 * (total as u128) > 8 * (w as u128),
    }
}

/// Reference §3.3 `getNextTruncationRange` for a history of `len` messages
/// (`roles[i]`: message i is the assistant's).
fn next_range(
    assistant: impl Fn(usize) -> Option<bool>,
    len: usize,
    current: Option<(usize, usize)>,
    quarter: bool,
) -> (usize, usize) {
    let start = current.map_or(2, |r| r.1 + 1);
    let rest = len.saturating_sub(start);
    let remove = if quarter {
        (rest * 3 / 4 / 2) * 2
    } else {
        (rest / 4) * 2
    };
    let mut end = (start + remove).saturating_sub(1);
    if assistant(end) == Some(false) {
        end = end.saturating_sub(1);
    }
    (2, end)
}

/// The task's facts, where the session is a Cline task.
fn facts(s: &Session) -> Option<&TaskFacts> {
    s.own.get::<TaskFacts>()
}

/// `cline` at `req` over the view `look` (see the module's note): what is in
/// force there, its memory `m` carried from the request before.
pub(super) fn cline<L: Look>(look: &L, p: &Policy, m: &mut Memory, req: &Request) -> Verdict {
    let s = look.session();
    let Some(f) = facts(s) else {
        return Verdict::none(Note::Cline(ClineNote::NotATask));
    };
    let Some(tr) = f.requests.get(req.index.wrapping_sub(1)) else {
        return Verdict::none(Note::Cline(ClineNote::NotATask));
    };
    if m.replaced.len() != f.occurrences.len() {
        *m = Memory {
            replaced: vec![false; f.occurrences.len()],
            ..Memory::default()
        };
    }
    let window = p
        .cline_context_window
        .unwrap_or_else(|| crate::harness::cline_window(tr.model.as_deref()));
    let limit = crate::harness::cline_limit(window);
    let fired = tr
        .prev_total
        .filter(|&t| t >= limit)
        .map(|total| fire(m, f, tr.sent, total, window, limit, p, s.condensed));
    // What is in force at this request: every notice and the range.
    let mut clear: Vec<(usize, ClearReason)> = Vec::new();
    let mut put = |r: usize, why: ClineCleared| {
        if let Some(pos) = look.position(r)
            && !look.in_force(&look.cands()[pos])
            && !clear.iter().any(|c| c.0 == pos)
        {
            clear.push((pos, ClearReason::Cline(why)));
        }
    };
    for (o, occ) in f.occurrences.iter().enumerate() {
        if m.replaced[o] {
            put(
                occ.result,
                ClineCleared::Notice {
                    kind: occ.kind,
                    later: later_copy(f, o),
                },
            );
        }
    }
    if let Some((a, b)) = m.range {
        let after = b + 1;
        let after_user = f.history.get(after).is_some_and(|h| h.user);
        for (r, &h) in f.result_hist.iter().enumerate() {
            if (a..=b).contains(&h) {
                put(r, ClineCleared::Truncated { range: (a, b) });
            } else if h == after && after_user && f.result_native[r] {
                // Reference §3.4: the first message kept after the range, a
                // user message, sends no `tool_result` blocks.
                put(r, ClineCleared::Dropped { range: (a, b) });
            }
        }
    }
    clear.sort_unstable_by_key(|c| c.0);
    let notices: Vec<usize> = f
        .occurrences
        .iter()
        .enumerate()
        .filter(|(o, _)| m.replaced[*o])
        .map(|(_, occ)| occ.result)
        .collect();
    let fired_here = fired.is_some();
    let state = ClineState {
        total: tr.prev_total,
        limit,
        window,
        range: m.range,
        notices,
    };
    let mut kept = Why::default();
    // Where the rule did not fire here, the note says why nothing changed.
    if look.explains() && fired.is_some() {
        // Why each result that stays stays (reference §3.2: the notice
        // replaces only earlier copies of a file's content).
        let occ_of: HashMap<usize, usize> = f
            .occurrences
            .iter()
            .enumerate()
            .map(|(o, occ)| (occ.result, o))
            .collect();
        for (pos, c) in look.cands().iter().enumerate() {
            if look.in_force(c) || clear.iter().any(|x| x.0 == pos) {
                continue;
            }
            let why = match occ_of.get(&c.result) {
                Some(&o) if m.replaced[o] => continue,
                Some(_) => ClineKept::LatestCopy,
                None => ClineKept::NotAFile,
            };
            kept.insert(pos, Kept::Cline(why));
        }
    }
    let mut v = Verdict::none(Note::Cline(ClineNote::At { state, fired }));
    v.kept = kept;
    if fired_here || !clear.is_empty() {
        v.trigger = Some(Trigger::Cline);
    }
    v.clear = clear;
    v
}

/// The later copy an occurrence's notice points the model to: the last
/// occurrence of its path.
fn later_copy(f: &TaskFacts, o: usize) -> usize {
    let path = &f.occurrences[o].path;
    f.occurrences
        .iter()
        .rev()
        .find(|x| &x.path == path)
        .map_or(f.occurrences[o].hist, |x| x.hist)
}

/// The rule where it fires (reference §3.1–§3.3): the notices, then the
/// truncation where they save too little. Returns what it did.
#[allow(clippy::too_many_arguments)]
fn fire(
    m: &mut Memory,
    f: &TaskFacts,
    sent: usize,
    total: u64,
    window: u64,
    limit: u64,
    p: &Policy,
    condensed: bool,
) -> Fired {
    let quarter = over_twice(total, window, limit);
    let start = m.range.map_or(2, |r| r.1 + 1);
    let mut new: Vec<usize> = Vec::new();
    let mut saved_share = None;
    if p.cline_dedupe {
        // §3.2: the occurrences of messages start..sent, a message already
        // edited (but for its mentions) skipped, a mention replaced before
        // left out; per path, all but the last.
        let mut by_path: Vec<(&str, Vec<usize>)> = Vec::new();
        for (o, occ) in f.occurrences.iter().enumerate() {
            if occ.hist < start || occ.hist >= sent {
                continue;
            }
            match m.msg_edit.get(&occ.hist) {
                Some(&k) if k != EditKind::Mention.number() => continue,
                Some(_) if m.replaced[o] => continue,
                _ => {}
            }
            match by_path.iter_mut().find(|(p, _)| *p == occ.path) {
                Some((_, list)) => list.push(o),
                None => by_path.push((occ.path.as_str(), vec![o])),
            }
        }
        for (_, list) in &by_path {
            if let Some((_, rest)) = list.split_last() {
                new.extend(rest.iter().copied().filter(|&o| !m.replaced[o]));
            }
        }
        new.sort_unstable();
        if !new.is_empty() {
            saved_share = Some(share_saved(m, f, &new, start, sent));
        }
        for &o in &new {
            let occ: &Occurrence = &f.occurrences[o];
            m.replaced[o] = true;
            let key = (occ.hist, occ.block);
            let now = current(m, f, key);
            m.edited.insert(key, now - occ.saved);
            m.msg_edit.entry(occ.hist).or_insert(occ.kind.number());
        }
    }
    let truncate = saved_share.is_none_or(|s| s < ENOUGH_SAVED);
    let mut truncated = None;
    if truncate && !condensed {
        // §3.3: the truncation notice on message 1 (block 0), once.
        if let std::collections::hash_map::Entry::Vacant(e) = m.msg_edit.entry(1) {
            e.insert(0);
            if f.history
                .get(1)
                .is_some_and(|h| h.blocks.first().is_some_and(Option::is_some))
            {
                m.edited.insert(
                    (1, 0),
                    crate::load::cline::text_len(crate::harness::CLINE_TRUNCATION_NOTICE),
                );
            }
        }
        let range = next_range(
            |i| f.history.get(i).map(|h| !h.user),
            sent,
            m.range,
            quarter,
        );
        m.range = Some(range);
        truncated = Some(range);
    }
    Fired {
        notices: new.len(),
        saved_permille: saved_share.map(|s| (s * 1000.0).round() as u32),
        truncated,
        quarter,
        condensed: truncate && condensed,
    }
}

/// A block's counted length now: as last edited, else as recorded.
fn current(m: &Memory, f: &TaskFacts, key: (usize, usize)) -> i64 {
    m.edited.get(&key).copied().unwrap_or_else(|| {
        f.history
            .get(key.0)
            .and_then(|h| h.blocks.get(key.1).copied().flatten())
            .unwrap_or(0) as i64
    })
}

/// Reference §3.2 `calculateContextOptimizationMetrics`: the characters the
/// new notices save, over the characters counted in messages 0–1 and
/// `start..sent` (each block as it stood before them).
fn share_saved(m: &Memory, f: &TaskFacts, new: &[usize], start: usize, sent: usize) -> f64 {
    let mut saved: HashMap<(usize, usize), i64> = HashMap::new();
    for &o in new {
        let occ = &f.occurrences[o];
        *saved.entry((occ.hist, occ.block)).or_default() += occ.saved;
    }
    let mut total: i64 = 0;
    let mut gained: i64 = 0;
    for i in (0..2.min(sent)).chain(start..sent) {
        let Some(h) = f.history.get(i) else { continue };
        for (b, len) in h.blocks.iter().enumerate() {
            if len.is_none() {
                continue;
            }
            total += current(m, f, (i, b));
            gained += saved.get(&(i, b)).copied().unwrap_or(0);
        }
    }
    if total <= 0 {
        0.0
    } else {
        gained as f64 / total as f64
    }
}

/// What the rule did where it fired.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fired {
    /// Copies newly replaced by the notice.
    pub notices: usize,
    /// The share of the counted characters they saved (‰); None: none.
    pub saved_permille: Option<u32>,
    /// The range after the truncation, where it truncated.
    pub truncated: Option<(usize, usize)>,
    /// It would keep a quarter (the total over twice the limit).
    pub quarter: bool,
    /// It would truncate, but the task auto-condenses instead (not simulated).
    pub condensed: bool,
}

/// What the rule reads and holds at a request (`request.cline`, SPEC §18.3).
#[derive(Debug, Clone, PartialEq)]
pub struct ClineState {
    /// The previous request's recorded total (None: no usage before).
    pub total: Option<u64>,
    pub limit: u64,
    pub window: u64,
    /// The range in force (after this request's truncation).
    pub range: Option<(usize, usize)>,
    /// The results the notice replaces in this request's wire.
    pub notices: Vec<usize>,
}

/// SPEC §18.3's `request.cline` of request `index` whose step said `note`
/// (None where the plan in force is not `cline`): the range in force, the
/// results the notice replaces, the limit and the total it read, and the
/// range Cline recorded there against the simulated one.
pub fn request_json(s: &Session, index: usize, note: &Note) -> Option<serde_json::Value> {
    let Note::Cline(n) = note else {
        return None;
    };
    let st = n.state()?;
    let f = facts(s)?;
    let range = |r: Option<(usize, usize)>| r.map(|(a, b)| serde_json::json!([a, b]));
    let recorded = f
        .requests
        .get(index.wrapping_sub(1))
        .and_then(|r| r.deleted_range);
    Some(serde_json::json!({
        "deleted_range": range(st.range),
        "notices": st.notices.iter().map(|&r| s.results[r].id.as_str()).collect::<Vec<_>>(),
        "limit": st.limit,
        "total": st.total,
        "recorded_deleted_range": range(recorded),
        "deleted_range_agrees": f.has_ui.then_some(recorded == st.range),
    }))
}

/// What Cline's context manager said at a request (the step's note).
#[derive(Debug, Clone, PartialEq)]
pub enum ClineNote {
    /// The session is no Cline task (no facts to read).
    NotATask,
    At {
        state: ClineState,
        fired: Option<Fired>,
    },
}

impl ClineNote {
    /// What `request.cline` prints (SPEC §18.3).
    pub fn state(&self) -> Option<&ClineState> {
        match self {
            ClineNote::At { state, .. } => Some(state),
            ClineNote::NotATask => None,
        }
    }
}

impl std::fmt::Display for ClineNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::numbers::{fmt_int, plural};
        let (state, fired) = match self {
            ClineNote::NotATask => return f.write_str("cline: not a Cline task (nothing to read)"),
            ClineNote::At { state, fired } => (state, fired),
        };
        let Some(total) = state.total else {
            return f.write_str("cline: the request before recorded no usage: nothing to do");
        };
        let Some(fired) = fired else {
            return write!(
                f,
                "cline: the request before used {} < {} (window {}): nothing to do",
                fmt_int(total),
                fmt_int(state.limit),
                fmt_int(state.window)
            );
        };
        write!(
            f,
            "cline: the request before used {} ≥ {} (window {}): ",
            fmt_int(total),
            fmt_int(state.limit),
            fmt_int(state.window)
        )?;
        match (fired.notices, fired.saved_permille) {
            (0, _) | (_, None) => f.write_str("no duplicate file read to replace")?,
            (n, Some(p)) => write!(
                f,
                "{} replaced by the notice ({}.{}% of the characters)",
                plural(n, "duplicate read"),
                p / 10,
                p % 10
            )?,
        }
        match (fired.truncated, fired.condensed) {
            (Some((a, b)), _) => write!(
                f,
                "; under 30 %: truncated messages [{a}, {b}] (kept {})",
                if fired.quarter { "a quarter" } else { "half" }
            ),
            (None, true) => {
                f.write_str("; under 30 %: auto-condense summarizes here instead (not simulated)")
            }
            (None, false) => f.write_str("; 30 % or more: no truncation"),
        }
    }
}

/// Why Cline's context manager left a result in the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClineKept {
    /// A file's content with no later copy after the range (or the only one).
    LatestCopy,
    /// Not a file's content: the notice replaces only reads, writes' final
    /// content and @-mentions; only a truncation takes it.
    NotAFile,
}

impl std::fmt::Display for ClineKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ClineKept::LatestCopy => {
                "the latest copy of its file in the history Cline sends (its notice replaces only earlier ones)"
            }
            ClineKept::NotAFile => {
                "not a file's content: Cline's notice replaces only reads, writes' final content and @-mentions; outside the truncated range"
            }
        })
    }
}

/// Why Cline's context manager cleared a result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClineCleared {
    /// Replaced by the duplicate-read notice: a later copy of the file is at
    /// history message `later`.
    Notice { kind: EditKind, later: usize },
    /// In the deleted range.
    Truncated { range: (usize, usize) },
    /// A `tool_result` block of the first message after the range.
    Dropped { range: (usize, usize) },
}

impl std::fmt::Display for ClineCleared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClineCleared::Notice { kind, later } => write!(
                f,
                "replaced by Cline's notice: {} of a file whose latest copy is in message {later}",
                match kind {
                    EditKind::Read => "a read",
                    EditKind::Alter => "the final content of a write",
                    EditKind::Mention => "an @-mention",
                }
            ),
            ClineCleared::Truncated { range: (a, b) } => {
                write!(f, "truncated by Cline (range [{a}, {b}])")
            }
            ClineCleared::Dropped { range: (a, b) } => write!(
                f,
                "dropped by Cline: the first message after the range [{a}, {b}] sends no tool_result blocks"
            ),
        }
    }
}

/// `cline` (SPEC §17.K.3).
pub(super) struct Cline;

impl super::plan::Plan for Cline {
    fn kind(&self) -> PlanKind {
        PlanKind::Cline
    }

    fn state(&self, _s: &Session, _d: &Derived, p: &Policy) -> Option<PlanState> {
        PlanState::empty_where_runs::<Memory>(p)
    }

    /// Its notices and range are stored for the rest of the task.
    fn replay(&self) -> super::plan::Replay {
        super::plan::Replay::Session
    }

    fn lasts(&self) -> &'static [(Trigger, super::plan::Lasts)] {
        &[(Trigger::Cline, super::plan::Lasts::View)]
    }

    fn reads(&self) -> &'static [(&'static str, When)] {
        &[
            ("cline_context_window", When::Always),
            ("cline_dedupe", When::Always),
        ]
    }

    fn shown(&self, p: &Policy) -> Option<Vec<crate::policy::params::Shown>> {
        use crate::numbers::fmt_int;
        use crate::policy::params;
        Some(vec![
            params::shown(
                "cline_context_window",
                "window ",
                p.cline_context_window
                    .map_or_else(|| "by model".to_string(), fmt_int),
                "",
            ),
            params::shown(
                "cline_dedupe",
                "dedupe ",
                if p.cline_dedupe { "on" } else { "off" }.to_string(),
                "",
            ),
        ])
    }

    fn deliveries(&self) -> &'static [Delivery] {
        &[Delivery::Rewrite]
    }

    /// Cline writes its notices to `context_history.json` (SPEC §17.K.4).
    fn writes(&self) -> Option<crate::vocab::Writer> {
        Some(crate::vocab::Writer::ClineContext)
    }

    fn decide(&self, e: &mut Engine<'_>, req: &Request, _: &super::plan::At) -> Decided {
        Decided::verdict(e.cline_step(req))
    }

    /// Reference §3.3: once truncated, block 0 of the first assistant
    /// message reads the truncation notice.
    fn wire_texts(&self, e: &Engine<'_>) -> Vec<(usize, usize, &'static str)> {
        let (Some(m), Some(f)) = (e.plans.get::<Memory>(), facts(e.s)) else {
            return Vec::new();
        };
        match (m.msg_edit.get(&1), f.history.get(1)) {
            (Some(0), Some(h)) if !h.user => {
                vec![(h.msg, 0, crate::harness::CLINE_TRUNCATION_NOTICE)]
            }
            _ => Vec::new(),
        }
    }

    /// Reference §3.4: the range is not sent (messages 0 and 1, then what
    /// follows it): the session's messages of history messages a..=b.
    fn dropped(&self, e: &Engine<'_>) -> Vec<std::ops::Range<usize>> {
        let (Some(m), Some(f)) = (e.plans.get::<Memory>(), facts(e.s)) else {
            return Vec::new();
        };
        let Some((a, b)) = m.range else {
            return Vec::new();
        };
        match (f.history.get(a), f.history.get(b)) {
            (Some(x), Some(y)) if x.msg <= y.msg => std::iter::once(x.msg..y.msg + 1).collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference §3.3, §5: the range after the 28 % variant: [2, 3].
    #[test]
    fn k3_the_next_range_drops_half_of_the_rest() {
        let roles = [false, true, false, true, false, true, false, true, false];
        let assistant = |i: usize| roles.get(i).copied();
        assert_eq!(next_range(assistant, 9, None, false), (2, 3));
        // The range grows from its end: startOfRest 4.
        assert_eq!(next_range(assistant, 9, Some((2, 3)), false), (2, 5));
        // A quarter kept: floor(7·3/4/2)·2 = 4 → [2, 5].
        assert_eq!(next_range(assistant, 9, None, true), (2, 5));
        // The end moves back off a user message (two user messages in a row).
        let roles = [false, true, false, false, true, false, true, false, true];
        let assistant = |i: usize| roles.get(i).copied();
        assert_eq!(next_range(assistant, 9, None, false), (2, 2));
    }

    /// Reference §3.1: a quarter is kept when the total is over twice the limit.
    #[test]
    fn k3_quarter_when_over_twice_the_limit() {
        assert!(!over_twice(98_682, 128_000, 98_000));
        assert!(over_twice(196_001, 128_000, 98_000));
        assert!(!over_twice(196_000, 128_000, 98_000));
        // 1,000,000: limit 960,000.
        assert!(over_twice(1_920_001, 1_000_000, 960_000));
    }
}
