//! Side-by-side diff rows of the local request vs the wire payload (no ratatui types).
//!
//! Rows are aligned `(left, right)` pairs over the pretty-printed JSON of both bodies;
//! a changed pair carries the changed span of each side; long unchanged runs fold.

use similar::{Algorithm, DiffOp, TextDiff};
use std::collections::HashSet;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Equal,
    /// Only on the left: the local request had it, the wire does not.
    Delete,
    /// Only on the right: the wire added it (cache_edits, "." …).
    Insert,
    /// Both sides, different text.
    Change,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// 1-based line number in that side's JSON.
    pub no: usize,
    /// Where the line is (its end excluded) in that side's text: rows hold no copy
    /// of the lines, so a diff of two big bodies is quick to build and to free.
    pub span: std::ops::Range<usize>,
    /// The changed span, as a char range, when the row is a `Change`.
    pub emph: Option<(usize, usize)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub kind: Kind,
    pub left: Option<Side>,
    pub right: Option<Side>,
}

/// What the diff view shows: a row, or a run of unchanged rows folded into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    Row(usize),
    Fold { start: usize, len: usize },
}

#[derive(Debug, Clone, Default)]
pub struct Diff {
    /// The two texts: the local request (left) and the wire payload (right).
    pub left: String,
    pub right: String,
    pub rows: Vec<Row>,
    /// The first row of each run of changes, in order (`n` / `N` jump between them).
    pub changes: Vec<usize>,
    /// True when the deadline cut the diff short (the result is still correct, coarser).
    pub coarse: bool,
}

impl Diff {
    /// The left (local) line of a row.
    pub fn left_line(&self, row: &Row) -> Option<&str> {
        row.left.as_ref().map(|s| &self.left[s.span.clone()])
    }

    /// The right (wire) line of a row.
    pub fn right_line(&self, row: &Row) -> Option<&str> {
        row.right.as_ref().map(|s| &self.right[s.span.clone()])
    }
}

/// Diffs two texts line by line, within a time budget; the diff keeps the texts.
pub fn diff(local: String, wire: String, budget: Duration) -> Diff {
    let (rows, changes, coarse) = rows(&local, &wire, budget);
    Diff {
        left: local,
        right: wire,
        rows,
        changes,
        coarse,
    }
}

fn rows(local: &str, wire: &str, budget: Duration) -> (Vec<Row>, Vec<usize>, bool) {
    let started = Instant::now();
    let d = TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .deadline(started + budget)
        .diff_lines(local, wire);
    // Whether the deadline cut the line diff short (building rows after it is
    // not the diff's doing: a big exact diff is not coarse).
    let coarse = started.elapsed() >= budget;
    let old: Vec<&str> = d.iter_old_slices().collect();
    let new: Vec<&str> = d.iter_new_slices().collect();
    // A line's place in its text, its end excluded (the slices are the texts').
    let span = |text: &str, line: &str| {
        let start = line.as_ptr() as usize - text.as_ptr() as usize;
        start..start + line.trim_end_matches(['\n', '\r']).len()
    };
    let line = |s: &str| span(local, s);
    let wline = |s: &str| span(wire, s);
    let mut rows = Vec::new();
    let mut changes = Vec::new();
    for op in d.ops() {
        let first = rows.len();
        match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for i in 0..len {
                    rows.push(Row {
                        kind: Kind::Equal,
                        left: Some(side(old_index + i, line(old[old_index + i]))),
                        right: Some(side(new_index + i, wline(new[new_index + i]))),
                    });
                }
                continue;
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => {
                for (i, text) in old.iter().enumerate().skip(old_index).take(old_len) {
                    rows.push(Row {
                        kind: Kind::Delete,
                        left: Some(side(i, line(text))),
                        right: None,
                    });
                }
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                for (i, text) in new.iter().enumerate().skip(new_index).take(new_len) {
                    rows.push(Row {
                        kind: Kind::Insert,
                        left: None,
                        right: Some(side(i, wline(text))),
                    });
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                for i in 0..old_len.max(new_len) {
                    let l = (i < old_len).then(|| side(old_index + i, line(old[old_index + i])));
                    let r = (i < new_len).then(|| side(new_index + i, wline(new[new_index + i])));
                    let kind = match (&l, &r) {
                        // A comma added or dropped where an element was appended after
                        // it is no change of that line.
                        (Some(a), Some(b))
                            if local[a.span.clone()].trim_end_matches(',')
                                == wire[b.span.clone()].trim_end_matches(',') =>
                        {
                            Kind::Equal
                        }
                        (Some(_), Some(_)) => Kind::Change,
                        (Some(_), None) => Kind::Delete,
                        _ => Kind::Insert,
                    };
                    let mut row = Row {
                        kind,
                        left: l,
                        right: r,
                    };
                    if let (Kind::Change, Some(a), Some(b)) = (kind, &mut row.left, &mut row.right)
                    {
                        let (ea, eb) = changed_span(&local[a.span.clone()], &wire[b.span.clone()]);
                        a.emph = Some(ea);
                        b.emph = Some(eb);
                    }
                    rows.push(row);
                }
            }
        }
        // The run starts at its first changed row (not at a comma-only one).
        let Some(first) = (first..rows.len()).find(|&i| rows[i].kind != Kind::Equal) else {
            continue;
        };
        if changes
            .last()
            .is_none_or(|&c: &usize| rows[c..first].iter().any(|r| r.kind == Kind::Equal))
        {
            changes.push(first);
        }
    }
    (rows, changes, coarse)
}

fn side(i: usize, span: std::ops::Range<usize>) -> Side {
    Side {
        no: i + 1,
        span,
        emph: None,
    }
}

/// The differing middle of two lines (common prefix and suffix removed), in chars.
pub(crate) fn changed_span(a: &str, b: &str) -> ((usize, usize), (usize, usize)) {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let max_suffix = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    ((prefix, a.len() - suffix), (prefix, b.len() - suffix))
}

/// Folds unchanged runs longer than `2 * context + 1`, except those in `expanded`
/// (keyed by the first row the fold would hide).
pub fn fold(rows: &[Row], context: usize, expanded: &HashSet<usize>) -> Vec<Item> {
    let mut items = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        if rows[i].kind != Kind::Equal {
            items.push(Item::Row(i));
            i += 1;
            continue;
        }
        let start = i;
        while i < rows.len() && rows[i].kind == Kind::Equal {
            i += 1;
        }
        let len = i - start;
        let head = if start == 0 { 0 } else { context };
        let tail = if i == rows.len() { 0 } else { context };
        if len > head + tail + 1 && !expanded.contains(&(start + head)) {
            items.extend((start..start + head).map(Item::Row));
            items.push(Item::Fold {
                start: start + head,
                len: len - head - tail,
            });
            items.extend((i - tail..i).map(Item::Row));
        } else {
            items.extend((start..i).map(Item::Row));
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_align_and_mark_the_changed_span() {
        let a = "a\n\"content\": \"long text\"\nc\n";
        let b = "a\n\"content\": \"[cleared]\"\nc\nd\n";
        let d = diff(a.into(), b.into(), Duration::from_secs(1));
        let kinds: Vec<Kind> = d.rows.iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds,
            [Kind::Equal, Kind::Change, Kind::Equal, Kind::Insert]
        );
        let r = &d.rows[1];
        assert_eq!(r.left.as_ref().unwrap().emph, Some((12, 21)));
        assert_eq!(r.right.as_ref().unwrap().emph, Some((12, 21)));
        assert_eq!(d.changes, [1, 3]);
        assert_eq!(d.left_line(r), Some("\"content\": \"long text\""));
        assert_eq!(d.right_line(&d.rows[3]), Some("d"));
        assert_eq!(d.left_line(&d.rows[3]), None);
    }

    #[test]
    fn a_trailing_comma_is_not_a_change_of_the_line_above_an_insert() {
        // The wire appends an element: the last one before it gains a comma.
        let a = "[\n  {\"a\": 1}\n]\n";
        let b = "[\n  {\"a\": 1},\n  {\"b\": 2}\n]\n";
        let d = diff(a.into(), b.into(), Duration::from_secs(1));
        let kinds: Vec<Kind> = d.rows.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, [Kind::Equal, Kind::Equal, Kind::Insert, Kind::Equal]);
        assert_eq!(d.rows[1].right.as_ref().unwrap().emph, None);
        assert_eq!(d.changes, [2], "one change: the appended element");
        // A real change next to a comma is still one.
        let d = diff("x\n1\n".into(), "x\n2,\n3\n".into(), Duration::from_secs(1));
        assert_eq!(d.rows[1].kind, Kind::Change);
        assert_eq!(d.changes, [1]);
    }

    #[test]
    fn long_unchanged_runs_fold_with_context() {
        let a: String = (0..20).map(|i| format!("{i}\n")).collect();
        let b = a.replace("10\n", "ten\n");
        let d = diff(a, b, Duration::from_secs(1));
        let items = fold(&d.rows, 2, &HashSet::new());
        assert_eq!(items.first(), Some(&Item::Fold { start: 0, len: 8 }));
        assert!(items.contains(&Item::Row(10)));
        assert_eq!(items.last(), Some(&Item::Fold { start: 13, len: 7 }));
        let all = fold(&d.rows, 2, &[0, 13].into_iter().collect());
        assert_eq!(all.len(), 20);
    }
}
